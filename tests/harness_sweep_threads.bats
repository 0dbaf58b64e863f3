#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/sweep-threads: thread counts 1..2x CPUs under one binding.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() { harness_setup; }

SWEEP=$HARNESS_REPO/harness/sweep-threads

@test "default counts go from 1 to twice the online CPUs" {
	run "$SWEEP" -- -s 1000
	assert_success
	# 8 fake CPUs: 1 2 4 8 16.
	run grep -o -- '-t [0-9]*' "$FAKE_BENCH_LOG"
	assert_output "$(printf -- '-t %s\n' 1 2 4 8 16)"
}

@test "every step uses the chosen binding" {
	run "$SWEEP" --threads 2,3 --bind 1,2 -- -s 1000
	assert_success
	d=$(result_dir)
	run jq -r '.env[]' "$d/step-002.json"
	assert_line 'GOMP_CPU_AFFINITY=1 2'
	run jq -r '.params.Binding' "$d/step-001.json"
	assert_output 1,2
}

@test "bad thread counts are bad input" {
	run "$SWEEP" --threads 1,x
	assert_failure 2
	[ "${#lines[@]}" -eq 1 ]
}

@test "real bench: a tiny thread sweep produces the table, binding verified" {
	unset MEMBENCH_SYSFS MEMBENCH_PROCFS MEMBENCH_UID
	export MEMBENCH_BENCH
	MEMBENCH_BENCH=$(real_bench)
	run "$SWEEP" --threads 1,2 -- -s 100000 -n 3
	assert_success
	assert_line '| Threads | Binding | Thread:CPU | Pages | Copy MB/s | Scale MB/s | Add MB/s | Triad MB/s | Status |'
	assert_line --regexp '^\| 1 \| close \| 0:[0-9]+ \| [0-9]+ KiB [0-9]+% huge(, [0-9]+ KiB [0-9]+% huge)* \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| ok, binding verified \|$'
	assert_line --regexp '^\| 2 \| close \| 0:[0-9]+ 1:[0-9]+ \| [0-9]+ KiB [0-9]+% huge(, [0-9]+ KiB [0-9]+% huge)* \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| ok, binding verified \|$'
	run jq -r '.bench.run.threads_counted' "$(result_dir)/step-002.json"
	assert_output 2
}
