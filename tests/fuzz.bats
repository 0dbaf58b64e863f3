#!/usr/bin/env bats
# Fuzzing: libFuzzer (with ASan and UBSan) on bench's option parser, its
# size parsers and its --curve-in reader, through tests/fuzz/fuzz_bench.c,
# which includes bench.c unchanged.  Each target replays the committed
# corpus and every crasher kept in tests/fuzz/crashers/TARGET, then fuzzes
# for a bounded time (FUZZ_SECONDS, default 10) without writing into the
# committed corpus.  A longer hunt by hand:
#     FUZZ_SECONDS=600 bats tests/fuzz.bats

load test_helper

FUZZ_DIR="$MEMBENCH_ROOT/tests/fuzz"

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	command -v clang >/dev/null || return 0
	# one binary, the three targets in it (FUZZ_TARGET picks one): a
	# sanitized build of bench.c takes half a minute
	nice -n 10 clang -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined \
		"$FUZZ_DIR/fuzz_bench.c" -o "$BATS_FILE_TMPDIR/fuzz_bench" \
		2>"$BATS_FILE_TMPDIR/build.log" || true
}

# fuzzer NAME: FUZZER, the command that runs the target NAME; or skip
# naming what is missing.
fuzzer() {
	need clang
	ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 ||
		missing_tool "clang's libFuzzer runtime is missing (libclang-rt-14-dev)"
	[ -x "$BATS_FILE_TMPDIR/fuzz_bench" ] || {
		cat "$BATS_FILE_TMPDIR/build.log"
		return 1
	}
	FUZZER=(env "FUZZ_TARGET=$1" "$BATS_FILE_TMPDIR/fuzz_bench")
}

# Options every run shares: a refused input leaves blocks the harness
# frees itself, so leak checking is off; 10 s on one input is a hang.
FUZZ_OPTS=(-detect_leaks=0 -timeout=10 -rss_limit_mb=2048)

# replay NAME: the corpus and the crashers, each input once.
replay() {
	local inputs
	fuzzer "$1" || return 1
	mapfile -t inputs < <(find "$FUZZ_DIR/corpus/$1" "$FUZZ_DIR/crashers/$1" \
		-type f ! -name README -print)
	[ "${#inputs[@]}" -ge 1 ]
	run "${FUZZER[@]}" "${FUZZ_OPTS[@]}" "${inputs[@]}"
	assert_success
	[[ "$output" == *"Executed "*" in "* ]]
}

# hunt NAME: fuzz for FUZZ_SECONDS from the corpus, with the target's
# dictionary of tokens (tests/fuzz/NAME.dict); new inputs go to a scratch
# directory, any crash is left there as an artifact to keep.
hunt() {
	local work
	fuzzer "$1" || return 1
	work="$BATS_TEST_TMPDIR/work"
	mkdir -p "$work/corpus" "$work/artifacts"
	run nice -n 10 "${FUZZER[@]}" "${FUZZ_OPTS[@]}" -max_total_time="${FUZZ_SECONDS:-10}" \
		-dict="$FUZZ_DIR/$1.dict" \
		-artifact_prefix="$work/artifacts/" "$work/corpus" "$FUZZ_DIR/corpus/$1"
	if [ "$status" -ne 0 ] || [ -n "$(find "$work/artifacts" -type f)" ]; then
		printf '%s\n' "$output" | tail -40
		find "$work/artifacts" -type f -exec sh -c \
			'for f; do echo "keep this crasher in tests/fuzz/crashers/: $f"; od -c "$f" | head; done' \
			sh {} +
		return 1
	fi
	[[ "$output" == *"Done "*" runs in "* ]]
}

@test "fuzz options: the corpus and the kept crashers replay clean" {
	replay options
}

@test "fuzz sizes: the corpus and the kept crashers replay clean" {
	replay sizes
}

@test "fuzz curve: the corpus and the kept crashers replay clean" {
	replay curve
}

@test "fuzz options: a bounded run finds no crash, hang or sanitizer report" {
	hunt options
}

@test "fuzz sizes: a bounded run finds no crash, hang or sanitizer report" {
	hunt sizes
}

@test "fuzz curve: a bounded run finds no crash, hang or sanitizer report" {
	hunt curve
}

@test "the fuzz binary runs the target FUZZ_TARGET names, and refuses one it does not have" {
	fuzzer nodes || return 1
	run "${FUZZER[@]}" -runs=1
	assert_failure 2
	assert_output --partial "FUZZ_TARGET must be options, sizes or curve, not 'nodes'"
	# one input through each target: each reaches code of its own, so
	# libFuzzer counts a different coverage for each
	mkdir -p "$BATS_TEST_TMPDIR/in"
	printf '12x' >"$BATS_TEST_TMPDIR/in/one"
	local t covs=()
	for t in options sizes curve; do
		fuzzer "$t" || return 1
		run "${FUZZER[@]}" "${FUZZ_OPTS[@]}" -runs=0 "$BATS_TEST_TMPDIR/in"
		assert_success
		covs+=("$(printf '%s\n' "$output" | sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p')")
	done
	[ -n "${covs[0]}" ] && [ -n "${covs[1]}" ] && [ -n "${covs[2]}" ]
	[ "${covs[0]}" != "${covs[1]}" ] && [ "${covs[1]}" != "${covs[2]}" ] && [ "${covs[0]}" != "${covs[2]}" ]
}

@test "the kept curve crashers, fed to bench itself, get exit 0 or one line and 2" {
	local f n=0
	while IFS= read -r f; do
		run --separate-stderr "$BENCH" latency --curve-in "$f"
		if [ "$status" -ne 0 ]; then
			assert_failure 2
			assert_output ""
			[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		fi
		n=$((n + 1))
	done < <(find "$FUZZ_DIR/crashers/curve" -type f ! -name README)
	[ "$n" -ge 1 ] || skip "no curve crasher is kept"
}

@test "the fuzz harness really reports: a planted crash in the curve reader is found" {
	local work
	need clang
	fuzzer curve || return 1
	work="$BATS_TEST_TMPDIR/planted"
	mkdir -p "$work"
	# a copy of bench.c whose curve reader reads out of bounds on a
	# line that starts with "!"
	sed 's|if (!eof \&\& line\[0\] == .".) {|if (!eof \&\& line[0] == 33) { char *z = malloc(1); z[4] = 1; free(z); }\n&|' \
		"$MEMBENCH_ROOT/bench.c" >"$work/bench.c"
	grep -q 'z\[4\] = 1' "$work/bench.c" # the plant took
	mkdir -p "$work/tests/fuzz"
	cp "$FUZZ_DIR/fuzz_bench.c" "$work/tests/fuzz/"
	# the harness and the sanitizers of the build above, at -O0: the copy
	# is run on one input, never fuzzed, and -O0 builds it in 3 s of CPU
	# where -O1 took 16 (the longest build of the suite)
	nice -n 10 clang -g -O0 -fsanitize=fuzzer,address,undefined -DFUZZ_TARGET=3 \
		"$work/tests/fuzz/fuzz_bench.c" -o "$work/fuzz_curve"
	printf '!\n' >"$work/input"
	# its curve file in $work: the crash skips the destructor that removes it
	TMPDIR=$work run "$work/fuzz_curve" "${FUZZ_OPTS[@]}" "$work/input"
	assert_failure
	assert_output --partial "heap-buffer-overflow"
}
