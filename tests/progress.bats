#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# Progress lines ("cell 3 of 14, about 2 min left") on stderr: on a
# terminal, or with --progress; never into a pipe or a file otherwise.

load test_helper
load harness_helper
load matrix_helper
# cells other files build too: once a run (tests/cc-cache)
cc_cache_on

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() { harness_setup; }

SWEEP=$HARNESS_REPO/harness/sweep-size

# on_pty CMD...: run CMD with stdout and stderr on a pseudo-terminal
# (util-linux script), its output in $output.
on_pty() {
	need script
	local cmd="" w
	for w in "$@"; do cmd="$cmd $(printf '%q' "$w")"; done
	run script -qec "$cmd" /dev/null
	output=${output//$'\r'/}
	mapfile -t lines <<<"$output"
}

@test "fmt_left: seconds, minutes, hours" {
	run bash -c '. "$1/harness/lib.sh"; fmt_left 0; echo; fmt_left 59; echo; fmt_left 60; echo; fmt_left 149; echo; fmt_left 3930' sh "$HARNESS_REPO"
	assert_success
	assert_output $'about 0 s left\nabout 59 s left\nabout 1 min left\nabout 2 min left\nabout 1 h 6 min left'
}

@test "a sweep into a pipe prints no progress; --progress does" {
	run --separate-stderr "$SWEEP" --llc 1M --multiples 1,2
	assert_success
	[[ "$stderr" != *" of 2, "* ]] || fail "progress into a pipe: $stderr"
	run --separate-stderr "$SWEEP" --progress --llc 1M --multiples 1,2
	assert_success
	[[ "$stderr" == *"sweep-size: step 1 of 2, time left not known yet: 1x LLC, 131072 elements"* ]]
	[[ "$stderr" =~ sweep-size:\ step\ 2\ of\ 2,\ about\ [0-9]+\ (s|min)\ left:\ 2x\ LLC ]]
	# progress is stderr's: stdout holds none of it
	[[ "$output" != *" of 2, "* ]]
}

@test "a sweep on a terminal prints progress without being asked" {
	on_pty "$SWEEP" --llc 1M --multiples 1,2
	assert_success
	assert_line 'sweep-size: step 1 of 2, time left not known yet: 1x LLC, 131072 elements'
	assert_line --regexp '^sweep-size: step 2 of 2, about [0-9]+ (s|min) left: 2x LLC, 262144 elements$'
}

@test "the latency sweeps: time-latency-sweep counts its runs, on a terminal or with --progress" {
	tls=$HARNESS_REPO/harness/time-latency-sweep
	b=$(real_bench)
	# a point an octave: the runs' figures are not what is checked, and
	# each run takes a fifth of the default's 1.2 s
	run --separate-stderr "$tls" -b "$b" -n 2 -- --max 64K --steps-per-octave 1
	assert_success
	[[ "$stderr" != *"run 1 of 2"* ]] || fail "progress into a pipe: $stderr"
	run --separate-stderr "$tls" -b "$b" --progress -n 2 -- --max 64K --steps-per-octave 1
	assert_success
	[[ "$stderr" == *"time-latency-sweep: run 1 of 2, time left not known yet: bench latency, run 1 of 2"* ]]
	[[ "$stderr" =~ time-latency-sweep:\ run\ 2\ of\ 2,\ about\ [0-9]+\ (s|min)\ left:\ bench\ latency,\ run\ 2\ of\ 2 ]]
	on_pty "$tls" -b "$b" -n 2 -- --max 64K --steps-per-octave 1
	assert_success
	assert_line --partial 'time-latency-sweep: run 1 of 2, time left not known yet'
}

@test "the matrix: cell i of n on a terminal or with --progress, nothing into a pipe" {
	need_compiler gcc
	# two cells, one build (memory modes share it): progress counts cells
	m=$(write_matrix prog 'gcc | -O1 | | plain ; static | 1')
	run --separate-stderr "$RUN_MATRIX" --size 100000 --ntimes 3 --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_success
	[[ "$stderr" != *" of 2, "* ]] || fail "progress into a pipe: $stderr"
	run --separate-stderr "$RUN_MATRIX" --progress --size 100000 --ntimes 3 --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_success
	[[ "$stderr" == *"run-matrix: cell 1 of 2, time left not known yet: cell 001"* ]]
	[[ "$stderr" =~ run-matrix:\ cell\ 2\ of\ 2,\ about\ [0-9]+\ (s|min)\ left:\ cell\ 002 ]]
	on_pty "$RUN_MATRIX" --size 100000 --ntimes 3 --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_success
	assert_line 'run-matrix: cell 1 of 2, time left not known yet: cell 001'
}

@test "the matrix with --repeat counts runs, and a cell that fails is not counted again" {
	need_compiler gcc
	m=$(write_matrix progrep 'gcc | -O2 | BENCH_CORRUPT_TEST=1 | plain | 1' 'gcc | -O2 | | plain | 1')
	run --separate-stderr "$RUN_MATRIX" --progress --repeat 2 --size 100000 --ntimes 3 --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_failure 1
	# 4 runs planned; the failed cell's second run drops out, so 3 of 3
	[[ "$stderr" == *"run-matrix: run 1 of 4, time left not known yet: round 1 of 2, cell 001"* ]]
	[[ "$stderr" =~ run-matrix:\ run\ 3\ of\ 3,\ about\ [0-9]+\ (s|min)\ left:\ round\ 2\ of\ 2,\ cell\ 002 ]]
}
