#!/usr/bin/env bats
# bench.c under valgrind's memcheck: a serial -O1 -g build, tiny sizes
# (memcheck runs code ~50x slower), every mode.  Any memcheck error makes
# valgrind exit 99, which fails the test distinctly from bench's own 1
# and 2.  Leak checking is off here; sanitizers.bats runs LeakSanitizer.

load test_helper

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	command -v valgrind >/dev/null || return 0
	cc -O1 -g "$MEMBENCH_ROOT/bench.c" -o "$BATS_FILE_TMPDIR/bench-vg"
}

# memcheck ARGS...: bench ARGS under memcheck; valgrind's own lines (==pid==)
# are shown when it fails.
memcheck() {
	need valgrind
	run --separate-stderr valgrind -q --error-exitcode=99 --leak-check=no \
		"$BATS_FILE_TMPDIR/bench-vg" "$@"
	[ "$status" -ne 99 ] || {
		echo "memcheck errors in bench $*:"
		echo "$stderr"
		return 1
	}
}

@test "memcheck: stream" {
	memcheck stream -s 10000 -n 3
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "memcheck: every kernel, auto stores" {
	memcheck -s 10000 -n 3 --kernels all --stores auto
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "memcheck: each allocation mode that works here" {
	local mode
	for mode in static malloc mmap thp shm; do
		memcheck -s 10000 -n 2 --alloc "$mode"
		assert_success
		assert_line --regexp '^Solution Validates'
	done
}

@test "memcheck: latency, random and page patterns, chains" {
	memcheck latency --max 64K
	assert_success
	memcheck latency --max 64K --chains 2 --pattern page
	assert_success
}

@test "memcheck: all" {
	memcheck all -s 10000 -n 2 --max 32K
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "memcheck: mix, and c2c refused by this serial build" {
	memcheck mix -s 10000 -n 2
	assert_success
	memcheck c2c
	assert_failure 2
	[[ "$stderr" == *"bench: c2c: core-to-core latency needs two threads at once"* ]]
}

@test "memcheck: nodes, each format" {
	memcheck nodes --buffer 1M -n 2
	assert_success
	assert_line --regexp '^ +[0-9]+: +[0-9.]+$'
	memcheck nodes --buffer 1M -n 2 --matrix bandwidth --json
	assert_success
	memcheck nodes --buffer 1M -n 2 --matrix latency --csv
	assert_success
}

@test "memcheck: info --json, --plan, --curve-in" {
	memcheck info --json
	assert_success
	memcheck --plan
	assert_success
	memcheck latency --curve-in "$MEMBENCH_ROOT/tests/fixtures/curve-4level.txt"
	assert_success
}

@test "memcheck: the lat_mem_rd personality" {
	memcheck lat_mem_rd 1 64
	assert_success
}

@test "memcheck: bad input is refused cleanly" {
	local args
	for args in --frobnicate "-s 100x" "--alloc bigpages" "latency --max 12Q" \
		"latency --curve-in /nonexistent/curve" "lat_mem_rd x 64"; do
		# shellcheck disable=SC2086 # each entry is an argument list
		memcheck $args
		assert_failure 2
	done
}
