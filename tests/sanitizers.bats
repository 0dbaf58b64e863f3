#!/usr/bin/env bats
# bench.c under AddressSanitizer and UndefinedBehaviorSanitizer: every
# mode's quick cases, and bad input, run clean with gcc, with and
# without OpenMP, and with clang and OpenMP.  A sanitizer finding fails the test distinctly:
# UBSan halts (status 1 plus "runtime error"), ASan and LSan exit 99.
#
# Leak detection stays on, OpenMP builds included: libgomp's and libomp's
# thread pools report no leaks here, so ASAN_OPTIONS needs no
# detect_leaks=0.  The builds use -DSTREAM_ARRAY_SIZE=100000 because
# LeakSanitizer scans the static arrays at every exit, and the default
# 3 x 80 MB costs about 2 s per run; every case below fits 100000.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=abort_on_error=0:exitcode=99
export OMP_NUM_THREADS=2

SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -g -O1 -DSTREAM_ARRAY_SIZE=100000"
# both compilers, and both of bench's code paths (OpenMP and without);
# clang without OpenMP added a fourth build and run of each case and
# nothing of either
VARIANTS="gcc gcc-openmp clang-openmp"

# san_build VARIANT: compile the sanitized bench for VARIANT into
# $BATS_FILE_TMPDIR, once per file, so the later tests find it.
san_build() {
	local v="$1" cc="${1%-openmp}" omp=""
	[ "$v" = "$cc" ] || omp=-fopenmp
	need "$cc"
	if [ "$cc" = clang ] && [ -n "$omp" ] &&
		[ -z "$(find /usr/lib /usr/include -name omp.h 2>/dev/null | head -n 1)" ]; then
		missing_tool "no omp.h for clang (libomp-dev)"
	fi
	# shellcheck disable=SC2086 # the flag lists are meant to split
	run "$cc" $SAN_FLAGS $omp "$MEMBENCH_ROOT/bench.c" -o "$BATS_FILE_TMPDIR/bench-$v"
	assert_success
}

# clean_run BIN ARGS...: run a sanitized bench; any sanitizer report in
# its output fails, naming the binary.
clean_run() {
	run --separate-stderr "$@"
	if [[ "$stderr" == *"runtime error"* || "$stderr" == *"Sanitizer"* ]]; then
		echo "sanitizer report from $*:"
		echo "$stderr"
		return 1
	fi
}

# each_variant [--validates] ARGS...: run ARGS on every sanitized build
# made above; each run must succeed without a report (and with
# --validates, print STREAM's "Solution Validates").
each_variant() {
	local v bin n=0 validates=0
	[ "$1" != --validates ] || { validates=1; shift; }
	for v in $VARIANTS; do
		bin="$BATS_FILE_TMPDIR/bench-$v"
		[ -x "$bin" ] || continue
		n=$((n + 1))
		clean_run "$bin" "$@"
		[ "$status" -eq 0 ] || {
			echo "bench-$v $* exited $status: $stderr"
			return 1
		}
		[ "$validates" = 0 ] || [[ "$output" == *"Solution Validates"* ]] || {
			echo "bench-$v $* did not validate: $output"
			return 1
		}
	done
	[ "$n" -gt 0 ] || missing_tool "no sanitized build (gcc or clang missing)"
}

@test "gcc builds bench.c with ASan and UBSan" {
	san_build gcc
}

@test "gcc -fopenmp builds bench.c with ASan and UBSan" {
	san_build gcc-openmp
}

@test "clang -fopenmp builds bench.c with ASan and UBSan" {
	san_build clang-openmp
}

@test "sanitized: stream" {
	each_variant --validates stream -s 100000 -n 3
}

@test "sanitized: every kernel, auto stores" {
	each_variant --validates -s 100000 -n 3 --kernels all --stores auto
}

@test "sanitized: each allocation mode that works here" {
	local mode
	for mode in static malloc mmap thp shm; do
		each_variant --validates -s 100000 -n 3 --alloc "$mode"
	done
}

@test "sanitized: latency" {
	each_variant latency --max 256K
}

@test "sanitized: latency's probes, from a first size above the TLB-local window" {
	# 1 MiB is above the 64-page window and holds the 128 pages the
	# line-a-page chase needs: both probes run, the TLB-local chase
	# skipping and filling in sizes from the sweep's first
	each_variant latency --min 1M --max 2M --json
	jq -e '(.probes.tlb_local | length) > 0 and (.probes.line_a_page | length) > 0' <<<"$output" >/dev/null
}

@test "sanitized: latency with chains and the page pattern" {
	each_variant latency --max 256K --chains 4 --pattern page
}

@test "sanitized: all" {
	each_variant --validates all -s 100000 -n 3 --max 256K
}

@test "sanitized: mix, and c2c where the build can run it (refused in one line where it cannot)" {
	each_variant mix -s 100000 -n 3
	local v bin
	for v in $VARIANTS; do
		bin="$BATS_FILE_TMPDIR/bench-$v"
		[ -x "$bin" ] || continue
		clean_run "$bin" c2c --json
		if [ "$(nproc)" -ge 2 ] && "$bin" info --json | jq -e '.build.modes | index("c2c")' >/dev/null; then
			[ "$status" -eq 0 ] || { echo "bench-$v c2c exited $status: $stderr"; return 1; }
		else
			[ "$status" -eq 2 ] && [[ "$stderr" == "bench: c2c: "* ]] || {
				echo "bench-$v c2c: $status: $stderr"
				return 1
			}
		fi
	done
}

@test "sanitized: nodes, text, JSON and CSV, on this machine and on a shape whose extra nodes the kernel refuses" {
	each_variant nodes --buffer 2M -n 2 --kernels read,triad
	each_variant nodes --buffer 2M -n 2 --json
	each_variant nodes --buffer 2M -n 2 --csv
	two_cpus
	free_ids 2
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu $CPU_A 0 $CPU_A $(real_node)
		cpu $CPU_B 1 $CPU_B ${FAKE_IDS[0]}
		node $(real_node) 8388608 8388608
		node ${FAKE_IDS[0]} 8388608 8388608
		node ${FAKE_IDS[1]} 8388608 8388608
	EOF
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys each_variant nodes --buffer 2M -n 2 --cpus cores
	[[ "$output" == *refused* ]]
}

@test "sanitized: info --json" {
	each_variant info --json
	jq -e . <<<"$output" >/dev/null
}

@test "sanitized: latency --curve-in" {
	each_variant latency --curve-in "$MEMBENCH_ROOT/tests/fixtures/curve-4level.txt"
}

@test "sanitized: --plan" {
	each_variant --plan
	assert_line "mode=stream"
}

@test "sanitized: the lat_mem_rd personality" {
	each_variant lat_mem_rd 1 64
}

@test "sanitized: bad input exits 2 with one line and no report" {
	local v bin args
	for v in $VARIANTS; do
		bin="$BATS_FILE_TMPDIR/bench-$v"
		[ -x "$bin" ] || continue
		while IFS= read -r args; do
			# shellcheck disable=SC2086 # each line is an argument list
			clean_run "$bin" $args
			[ "$status" -eq 2 ] && [ -z "$output" ] &&
				[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || {
				echo "bench-$v $args: status $status, stdout '$output', stderr '$stderr'"
				return 1
			}
		done <<-'EOF'
			--frobnicate
			frob
			-s
			--ntimes ten
			-s -5
			-s 100x
			--size 0
			-s 184467440737095516160
			-s 1000000000000
			-s 288230376151711743
			-t 0
			--alloc bigpages
			--kernels copy,nope
			-n 1
			--stores fast
			--json=yes
			info --size 5
			--alloc static -s 20000000
			latency --max 12Q
			latency --min 1M --max 64K
			latency --stride 0
			latency --chains 0
			latency --pattern zigzag
			latency --curve-in /nonexistent/curve
			lat_mem_rd
			lat_mem_rd x 64
			nodes --nodes 999
			nodes --nodes 0,0
			nodes --cpus 4095
			nodes --buffer 100T
			nodes --alloc shm
		EOF
	done
}
