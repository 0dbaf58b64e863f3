#!/usr/bin/env bats
# $stderr is set by bats' run.
# shellcheck disable=SC2154
# The latency runs under load and with several chains at real sizes:
# --chains' memory-level parallelism, the --load-threads table at its
# default delays, and harness/loaded-latency against the sweep.  They
# are the longest of the latency tests, so they run in the full tier
# (make check), not in check-fast; loaded.bats and latency.bats keep the
# rest.  Rates are never compared with a number.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

needs_openmp() {
	"$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null ||
		skip "this bench has no OpenMP"
}

@test "--chains: ns per load falls and parallelism is reported" {
	run "$BENCH" latency --min 8M --max 8M --chains 4 --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		(.mlp.rows | map(.chains)) == [1, 2, 4] and
		.mlp.rows[0].parallelism == 1 and
		.mlp.rows[2].ns_per_load < .mlp.rows[0].ns_per_load' >/dev/null
	run "$BENCH" latency --min 8M --max 8M --chains 3
	assert_success
	assert_line --regexp '^# memory-level parallelism at 8 MiB'
	assert_line --regexp '^#    3 '
}

@test "--load-threads: a table of latency against achieved bandwidth" {
	"$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null ||
		skip "this bench has no OpenMP"
	run "$BENCH" latency --min 1M --max 1M --load-threads 1 --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		(.loaded.rows | length) == 22 and .loaded.rows[-1].delay == 0 and
		(.loaded.rows | map(select(.idle | not)) |
			all(.ns > 0 and .load_moved == (.load_mbs > 0))) and
		(.loaded.load_cpus | length) == 1' >/dev/null
}

@test "harness/loaded-latency: idle against the sweep per run and mix, then the median curve" {
	needs_openmp
	export MEMBENCH_RESULTS="$BATS_TEST_TMPDIR/results"
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" -n 1 -b "$BENCH" -- \
		--min 1M --max 1M --delays 100,0
	assert_success
	assert_line --regexp '^ +1 +1:0 +[-0-9.]+ +[0-9.]+ +[0-9.]+ +[-0-9.]+ +[0-9.]+ +(yes|NO) '
	assert_line --regexp '^ +1 +2:1 '
	assert_line --regexp '^ +1:0 +idle +[0-9.]+ +0\.0$'
	# "-" where the run's row had no load (its threads got no CPU time)
	assert_line --regexp '^ +2:1 +0 +([0-9.]+ +[0-9.]+|- +-)$'
	local json_rows
	json_rows=$(jq -r '.loaded.rows[] | select((.idle | not) and (.load_moved | not)) | "\(.rw) \(.delay)"' \
		"$(find "$MEMBENCH_RESULTS" -name run-1.json)")
	assert_equal "$(printf '%s\n' "$output" | awk '$3 == "-" && $4 == "-" { print $1, $2 }')" "$json_rows"
	# the table's idle latency is the run's JSON idle row
	local json idle
	json=$(find "$MEMBENCH_RESULTS" -name run-1.json)
	idle=$(jq -r '.loaded.curves[0].idle_ns * 100 | round / 100' "$json")
	assert_line --regexp "^ +1 +1:0 .* $(printf '%.2f' "$idle") +[-0-9.]+ +[0-9.]+ +(yes|NO) "
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" -n x
	assert_failure 2
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" --tolerance much
	assert_failure 2
}
