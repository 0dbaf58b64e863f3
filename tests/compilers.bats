#!/usr/bin/env bats
# Every C compiler Debian 12 offers (setup --test installs them) builds
# bench.c warning-free with -Wall -Wextra -pedantic -Werror, in -std=c99
# at -O0, -O3 and -Ofast and in -std=c11 at -O3, and the build's tiny
# stream run validates.  (What the standard changes is the language the
# front end accepts, which any -O level shows; what the -O level changes
# is the optimisers' warnings and code, which c99's three builds show.)
# tcc takes no -W flags (nor -Ofast).  -Ofast builds also keep refusing
# NaN input: -ffinite-math-only must not fold bench's checks away.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# compiler_matrix CC: every -std and -O combination of CC builds and runs.
compiler_matrix() {
	local cc="$1" std opt bin wflags="-Wall -Wextra -pedantic -Werror"
	need "$cc"
	[ "$cc" != tcc ] || wflags=""
	for std in c99 c11; do
		for opt in -O0 -O3 -Ofast; do
			[ "$cc" != tcc ] || [ "$opt" != -Ofast ] || continue
			# c11 once, at -O0: the standard is what it checks, and
			# -O3's warnings are c99's run's (a build of bench.c takes
			# 6 s at -O3, 2 at -O0)
			[ "$std" = c99 ] || [ "$opt" = -O0 ] || continue
			bin="$BATS_TEST_TMPDIR/bench-$std$opt"
			# shellcheck disable=SC2086 # the flag list is meant to split
			run "$cc" -std="$std" "$opt" $wflags "$MEMBENCH_ROOT/bench.c" -o "$bin"
			[ "$status" -eq 0 ] && [ -z "$output" ] || {
				echo "$cc -std=$std $opt $wflags: status $status"
				echo "$output"
				return 1
			}
			run "$bin" stream $TINY
			[ "$status" -eq 0 ] && [[ "$output" == *"Solution Validates"* ]] || {
				echo "$cc -std=$std $opt: stream exited $status"
				echo "$output"
				return 1
			}
			run "$bin" latency --mhz nan
			[ "$status" -eq 2 ] || {
				echo "$cc -std=$std $opt: --mhz nan exited $status"
				return 1
			}
			printf '0.001 nan\n0.002 1.5\n' >"$BATS_TEST_TMPDIR/nan.txt"
			run timeout 20 "$bin" latency --curve-in "$BATS_TEST_TMPDIR/nan.txt"
			[ "$status" -eq 2 ] || {
				echo "$cc -std=$std $opt: a NaN in --curve-in exited $status"
				return 1
			}
		done
	done
}

@test "gcc-11: c99 at -O0, -O3 and -Ofast, c11 at -O0, warning-free and validating" {
	compiler_matrix gcc-11
}

@test "gcc-12: c99 at -O0, -O3 and -Ofast, c11 at -O0, warning-free and validating" {
	compiler_matrix gcc-12
}

@test "clang-13: c99 at -O0, -O3 and -Ofast, c11 at -O0, warning-free and validating" {
	compiler_matrix clang-13
}

@test "clang-14: c99 at -O0, -O3 and -Ofast, c11 at -O0, warning-free and validating" {
	compiler_matrix clang-14
}

@test "clang-15: c99 at -O0, -O3 and -Ofast, c11 at -O0, warning-free and validating" {
	compiler_matrix clang-15
}

@test "clang-16: c99 at -O0, -O3 and -Ofast, c11 at -O0, warning-free and validating" {
	compiler_matrix clang-16
}

@test "tcc: c99 and c11, -O0 and -O3, builds and validates" {
	compiler_matrix tcc
}
