#!/usr/bin/env bats
# STREAM's run rules: every bandwidth result says whether it is a standard
# STREAM result, or tuned or a variant, and why.

load test_helper

verdict() { jq -r '[.run_rules.verdict] + .run_rules.reasons | join(" | ")' <<<"$output"; }

@test "a run that keeps every rule is a standard STREAM result" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0
	# 4 x 1 MiB of doubles is 524288 elements; 8 MB arrays run well over
	# 20 ticks even in cache; ntimes 10, plain stores
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 1000000 -n 10 --json
	assert_success
	[ "$(verdict)" = standard ]
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 1000000 -n 10
	assert_line "Run rules: standard"
}

@test "each broken rule is named" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 500000 -n 10 --json
	[[ "$(verdict)" == "variant | arrays of 500000 elements: below 4x all last-level caches (524288)" ]]
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 1000000 -n 5 --json
	[[ "$(verdict)" == "variant | ntimes 5: below STREAM's 10" ]]
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 1000000 -n 10 --kernels copy,triad --json
	[[ "$(verdict)" == "variant | kernels other than STREAM's four" ]]
	# streaming stores alone make it tuned
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 1000000 -n 10 --stores nt --json
	[[ "$(verdict)" == "tuned | streaming stores" ]]
	# no reported cache: the 4x rule cannot be checked, so never standard
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/empty" run "$BENCH" -s 1000000 -n 10 --json
	[[ "$(verdict)" == "variant | the OS reports no last-level cache"* ]]
}

@test "too few clock ticks breaks the rules, by the same tick the text reports" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1K 0
	# 1000 doubles: each kernel takes about a microsecond, under 20 ticks
	# (one thread: no OpenMP team to wake, which a busy machine delays)
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 1000 -n 10 -t 1 --json
	assert_success
	[[ "$(verdict)" == *"ran fewer than 20 clock ticks"* ]]
	jq -e '.warnings | map(select(test("fewer than 20 clock ticks of 1e-06 s"))) | length > 0' <<<"$output"
}

@test "the 4x rule sums every last-level cache of the machine" {
	[ "$(getconf _NPROCESSORS_CONF)" -ge 2 ] || skip "needs two CPUs in sysfs"
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0 1 # two sockets' worth: 2 x 256 KiB
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 1000000 -n 10 --json
	[[ "$(verdict)" == "variant | arrays of 1000000 elements: below 4x all last-level caches (1048576)" ]]
}
