#!/usr/bin/env bats
# bench.c builds everywhere: through configure/make, and alone with a bare cc.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

@test "configure and make build ./bench in a fresh copy of the tree" {
	cp -r "$MEMBENCH_ROOT/bench.c" "$MEMBENCH_ROOT/configure" \
		"$MEMBENCH_ROOT/Makefile.in" "$MEMBENCH_ROOT/README.md" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run sh -c './configure >/dev/null && make >/dev/null'
	assert_success
	run ./bench --version
	assert_success
	assert_output --regexp '^membench bench [0-9]+\.[0-9]+\.[0-9]+$'
	# the build line the binary reports is the one make used
	run ./bench info
	assert_line --regexp '^Build flags: .*-O3'
}

# The strictest flags a user might try, with both compilers, with and
# without OpenMP: any warning fails the test.
strict_build() {
	local cc="$1" omp="$2" out
	need "$cc"
	out="$BATS_TEST_TMPDIR/b"
	run "$cc" -std=c99 -Wall -Wextra -pedantic -Werror -O2 $omp \
		"$MEMBENCH_ROOT/bench.c" -o "$out"
	assert_success
	assert_output ""
	run "$out" $TINY
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "gcc -std=c99 -pedantic builds bench.c alone without warnings" {
	strict_build gcc ""
}

@test "gcc -fopenmp -std=c99 -pedantic builds without warnings" {
	strict_build gcc -fopenmp
}

@test "clang -std=c99 -pedantic builds bench.c alone without warnings" {
	strict_build clang ""
}

@test "clang -fopenmp -std=c99 -pedantic builds without warnings" {
	[ -n "$(find /usr/lib /usr/include -name omp.h 2>/dev/null | head -n 1)" ] ||
		missing_tool "no omp.h for clang (libomp-dev)"
	strict_build clang -fopenmp
}

@test "a bare 'cc -O2 bench.c' needs no other file and no -l flag" {
	cd "$BATS_TEST_TMPDIR"
	cp "$MEMBENCH_ROOT/bench.c" .
	run cc -O2 bench.c -o bench
	assert_success
	run ./bench $TINY
	assert_success
	# without OpenMP STREAM prints no thread lines, and neither do we
	refute_line --partial "Number of Threads"
	assert_line "OpenMP: not enabled in this build"
}

@test "without OpenMP, --threads above 1 is refused" {
	bin=$(build_variant serial gcc -std=c99 -O2)
	run "$bin" -t 2 $TINY
	assert_failure 2
	assert_output --regexp 'built without OpenMP'
}

@test "float elements, OFFSET=3 and an odd array size validate" {
	bin=$(build_variant float gcc -O2 -fopenmp -DSTREAM_TYPE=float -DOFFSET=3)
	run "$bin" -s 100003 -n 4
	assert_success
	assert_line "This system uses 4 bytes per array element."
	assert_line "Array size = 100003 (elements), Offset = 3 (elements)"
	assert_line "Solution Validates: avg error less than 1.000000e-06 on all three arrays"
}

@test "macros set the defaults: size, ntimes, offset, stores" {
	# at -O0, as every build here that checks what a macro sets (a third
	# of -O2's time): the defaults do not depend on the optimiser
	bin=$(build_variant macros gcc -O0 -DSTREAM_ARRAY_SIZE=123457 -DNTIMES=4 \
		-DOFFSET=5 -DSTREAMING_STORES=1)
	run "$bin" --json
	assert_success
	run jq -r '[.run.array_size, .run.ntimes, .run.offset, .run.stores] | @tsv' <<<"$output"
	assert_output "$(printf '123457\t4\t5\tnt')"
}

@test "NTIMES at or below 1 becomes 10, as in STREAM" {
	bin=$(build_variant ntimes1 gcc -O0 -DNTIMES=1)
	run "$bin" -s 100000 --json
	assert_success
	run jq -r '.run.ntimes' <<<"$output"
	assert_output 10
}

@test "--offset moves the arrays' relative alignment by N elements" {
	run "$BENCH" $TINY --offset 0 --stagger 0 --json
	assert_success
	run jq -r '[.run.arrays[].address_mod_4k] | @tsv' <<<"$output"
	assert_output "$(printf '0\t0\t0')"
	run "$BENCH" $TINY --offset 3 --stagger 0 --json
	run jq -r '[.run.arrays[].address_mod_4k] | @tsv' <<<"$output"
	assert_output "$(printf '0\t24\t48')"
}

@test "tcc, a compiler without OpenMP or builtins, builds and runs bench.c" {
	bin=$(build_variant tcc tcc)
	run "$bin" $TINY
	assert_success
	assert_line --regexp '^Solution Validates'
	assert_line "Build: tcc unknown"
}

@test "make run is the main job: bench all through the harness, into results/" {
	root="$BATS_TEST_TMPDIR/results"
	# RUN_ARGS keeps it small; the harness is told where to put results
	run make -C "$MEMBENCH_ROOT" run RUN_ARGS="-s 200000 -n 3 --max 1M" \
		MEMBENCH_RESULTS="$root"
	assert_success
	assert_line --regexp '^Triad: '
	# the stride is this host's cache line (64 where none is reported)
	assert_line --regexp '^# stride=[0-9]+: L1d'
	# make run shows the best figures beside STREAM's (--best)
	assert_line --partial 'NOT a standard STREAM result'
	dir=$(find "$root" -mindepth 2 -maxdepth 2 -type d -name '*-run')
	[ -n "$dir" ]
	jq -e '.bench.mode == "all" and .bench.validation.ok' "$dir/step-001.json" >/dev/null
	[ -s "$dir/provenance.txt" ]
}

@test "make run, matrix, bench-compare and latency-compare share one results root and WAIT_LOCK" {
	[ -f "$MEMBENCH_ROOT/Makefile" ] || skip "run ./configure first"
	# One root for all three, so a non-root user's lock (<root>/.lock) is
	# the same lock; MEMBENCH_RESULTS chooses it unless RESULTS is given.
	for target in run matrix bench-compare latency-compare; do
		run env -u MEMBENCH_RESULTS make -n -C "$MEMBENCH_ROOT" "$target" REF=s.c
		assert_success
		assert_output --partial -- '--results "results"'
		refute_output --partial -- '--wait-lock'
		run make -n -C "$MEMBENCH_ROOT" "$target" REF=s.c MEMBENCH_RESULTS=/tmp/r WAIT_LOCK=1
		assert_output --partial -- '--results "/tmp/r" --wait-lock'
		run make -n -C "$MEMBENCH_ROOT" "$target" REF=s.c MEMBENCH_RESULTS=/tmp/r RESULTS=/tmp/s
		assert_output --partial -- '--results "/tmp/s"'
	done
}
