#!/usr/bin/env bats
# --plan: the allocation plan a run would follow, from the same decision
# the run makes (alloc_plan), measured and allocated nothing.

load test_helper

# plan_value KEY: the value of KEY=... in $output
plan_value() { printf '%s\n' "$output" | sed -n "s/^$1=//p"; }

@test "--plan prints the plan as key=value lines and measures nothing" {
	run --separate-stderr "$BENCH" -s 100000 --plan
	assert_success
	refute_line --partial "Function"
	[ "$(plan_value mode)" = stream ]
	[ "$(plan_value array_size)" = 100000 ]
	[ "$(plan_value regions)" = 3 ]
	# every line is key=value, nothing else
	# (not '! grep': bats ignores a failing ! mid-test, SC2314)
	# shellcheck disable=SC2143
	[ -z "$(printf '%s\n' "$output" | grep -vE '^[a-z_]+=[^ ]*$')" ]
	# 3 arrays of 800000 bytes, shifted by 0, 4096 and 8192 bytes of stagger
	[ "$(plan_value total_bytes)" = $((3 * 800000 + 4096 + 8192)) ]
}

@test "--plan's huge page count is the one the run refuses with" {
	fake="$BATS_TEST_TMPDIR/proc"
	fake_procfs "$fake" 4 4
	# 262144 doubles are exactly one 2 MiB page; the stagger pushes arrays
	# b and c one page further each: 1 + 2 + 2 pages
	MEMBENCH_PROCFS="$fake" run "$BENCH" -s 262144 --alloc hugetlb --plan
	assert_success
	[ "$(plan_value huge_page_bytes)" = 2097152 ]
	[ "$(plan_value huge_pages)" = 5 ]
	MEMBENCH_PROCFS="$fake" refused_by -s 262144 --alloc hugetlb
	[[ "$stderr" == *"needs 5 huge pages but only 4 are free"* ]]
}

@test "--plan does not refuse a pool it is asked about in order to fill it" {
	fake="$BATS_TEST_TMPDIR/proc"
	fake_procfs "$fake" 0 0
	MEMBENCH_PROCFS="$fake" run "$BENCH" latency --max 64M --alloc hugetlb --plan
	assert_success
	[ "$(plan_value huge_pages)" = 32 ]
	[ "$(plan_value regions)" = 1 ]
	[ "$(plan_value latency_max_bytes)" = 67108864 ]
}

@test "bench all --plan needs the larger of its two programs' pages" {
	fake="$BATS_TEST_TMPDIR/proc"
	fake_procfs "$fake" 0 0
	MEMBENCH_PROCFS="$fake" run "$BENCH" all -s 100000 --max 64M --alloc hugetlb --plan
	assert_success
	[ "$(plan_value huge_pages)" = 32 ]
	[ "$(plan_value array_size)" = 100000 ]
	MEMBENCH_PROCFS="$fake" run "$BENCH" all -s 20000000 --max 4M --alloc hugetlb --plan
	assert_success
	# three arrays of 160 MB: 77 pages each (the stagger stays inside)
	[ "$(plan_value huge_pages)" = 231 ]
}

@test "--plan refuses what the run refuses, in one line" {
	refused_by --alloc static -s 20000000 --plan
	[[ "$stderr" == *"exceeds the compiled static array size"* ]]
	refused_by latency --max 100G --plan
	[[ "$stderr" == *"physical memory"* ]]
}

@test "--plan --json is one document with the shared header" {
	run "$BENCH" -s 100000 --plan --json
	assert_success
	jq -e '.schema == "membench/1" and .mode == "stream" and .build.version and
		.plan.array_size == 100000 and .plan.regions == 3 and (.warnings | length == 0)' <<<"$output"
}

@test "--plan's key=value lines and --plan --json's plan are one list: the same keys, in order, with the same values" {
	# generated from both outputs, not from a list of keys: a key that one
	# side lost, gained or spells otherwise fails here (the JSON's mode is
	# the document's own; a flag is true/false there and 1/0 in the lines).
	# One run writes both: the lines on stdout, the JSON into a file.
	json="$BATS_TEST_TMPDIR/plan.json"
	for args in "-s 100000" "latency --max 1M" "all -s 100000 --max 1M --alloc hugetlb"; do
		run --separate-stderr "$BENCH" $args --plan --json-file "$json"
		assert_success
		text=$output
		run jq -r '{mode} + .plan | to_entries[] | "\(.key)=\(.value |
			if type == "boolean" then (if . then 1 else 0 end) else . end)"' "$json"
		assert_success
		assert_output "$text"
	done
}
