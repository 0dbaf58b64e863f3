#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/sweep-latency-pages: latency curves under THP and hugetlb modes.

load test_helper
load harness_helper

setup() { harness_setup; }

SWEEP=$HARNESS_REPO/harness/sweep-latency-pages

@test "one curve per mode, side by side, THP and the pool restored" {
	run "$SWEEP" --max 16M --modes 'thp-never thp-always hugetlb'
	assert_success
	assert_output --partial '| Size MB | thp-never ns | thp-always ns | hugetlb ns |'
	# The fake bench answers faster with THP always, as a real one should.
	assert_output --partial '| 16 | 77.5 | 62.5 | 77.5 |'
	assert_output --partial 'At 16 MB: thp-never 77.5 ns, thp-always 62.5 ns (-19% vs thp-never), hugetlb 77.5 ns (0% vs thp-never)'
	d=$(result_dir)
	run jq -r '.settings[-1]' "$d/step-003.json"
	# As many pages as bench --plan says: 16 MiB of 2 MiB pages.
	assert_output 'hugepages: 8 reserved (was 0), verified'
	run jq -r '.command | join(" ")' "$d/step-003.json"
	assert_output --partial 'latency --alloc hugetlb --max 16M'
	# Raw output is lat_mem_rd's text, as bench printed it.
	head -n1 "$d/step-001.raw" | grep -q '^"stride=64'
	[ "$(cat "$FAKE/sys/kernel/mm/transparent_hugepage/enabled")" = madvise ]
	[ "$(cat "$FAKE/proc/sys/vm/nr_hugepages")" = 0 ]
}

@test "without bench latency: a clear message" {
	export FAKE_NO_LATENCY=1
	run "$SWEEP"
	assert_failure 2
	assert_output 'sweep-latency-pages: this bench has no latency mode (rebuild it from the current bench.c): nothing to sweep'
}

@test "unknown modes are bad input" {
	run "$SWEEP" --modes 'thp-sometimes'
	assert_failure 2
	[ "${#lines[@]}" -eq 1 ]
}
