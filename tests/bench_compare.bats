#!/usr/bin/env bats
# harness/bench-compare: alternating runs against a reference STREAM.
# STREAM itself is not shipped, so bench.c, whose output follows STREAM's
# contract, stands in as the reference here.

load test_helper

# Results go to the test's own directory, never the work tree's results/.
setup() { export MEMBENCH_RESULTS="$BATS_TEST_TMPDIR/results"; }

@test "bench-compare prints per-kernel medians, spreads and ratios" {
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O2 -fopenmp" --size 100000 \
		--rounds 3 --threads 2 --variant "nt=--stores nt" -- -n 3
	assert_success
	assert_line --regexp '^\| config \| kernel \| median best MB/s'
	for cfg in ref bench nt; do
		for k in Copy Scale Add Triad; do
			assert_line --regexp "^\| $cfg \| $k \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9]{3} \| [0-9]+\.[0-9]{3} \|$"
		done
	done
	# the reference's ratio to itself is exactly 1
	assert_line --regexp '^\| ref \| Triad \| .* \| 1\.000 \|$'
	# runs alternate: the progress shows ABBA order
	[[ "$stderr" == *"round 1 of 3: ref"*"round 1 of 3: nt"*"round 2 of 3: nt"*"round 2 of 3: ref"* ]]
}

@test "bench-compare refuses to run without a reference" {
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare"
	assert_failure 2
	[[ "$stderr" == "bench-compare: --ref is required"* ]]
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" --ref /nonexistent/stream.c
	assert_failure 2
	[[ "$stderr" == *"does not exist"* ]]
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" --ref "$MEMBENCH_ROOT/bench.c" --rounds x
	assert_failure 2
	[[ "$stderr" == *"--rounds: 'x' is not a positive integer"* ]]
}
