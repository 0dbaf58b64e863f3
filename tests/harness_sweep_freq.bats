#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/sweep-freq: one step per CPU frequency, skipped cleanly where the
# frequency cannot be set.

load test_helper
load harness_helper

setup() { harness_setup; }

SWEEP=$HARNESS_REPO/harness/sweep-freq
cpufreq() { cat "$FAKE/sys/devices/system/cpu/cpu$1/cpufreq/$2"; }

@test "no cpufreq: a clean skip, nothing written, nothing run" {
	rm -r "$FAKE"/sys/devices/system/cpu/cpu*/cpufreq
	run "$SWEEP"
	assert_success
	assert_output --partial 'CPU frequency cannot be set on this machine: not available on this machine'
	[ ! -e "$MEMBENCH_RESULTS" ]
	[ ! -e "$FAKE_BENCH_LOG" ]
}

@test "no cpufreq with --required: exit 2" {
	rm -r "$FAKE"/sys/devices/system/cpu/cpu*/cpufreq
	run "$SWEEP" --required
	assert_failure 2
}

@test "not root: a clean skip" {
	export MEMBENCH_UID=1000
	run "$SWEEP"
	assert_success
	assert_output --partial 'needs root'
	[ ! -e "$MEMBENCH_RESULTS" ]
}

@test "steps at each offered frequency with turbo off, then turbo; all restored" {
	run "$SWEEP" -- -s 1000
	assert_success
	assert_output --partial '| 1200 | off |'
	assert_output --partial '| 2000 | off |'
	assert_output --partial '| 2600 | off |'
	assert_output --partial '| 2600 | on |'
	run jq -r '.settings[-1]' "$(result_dir)/step-002.json"
	assert_output 'freq: 2000 MHz on 8 CPUs (userspace governor), verified'
	[ "$(cpufreq 3 scaling_governor)" = powersave ]
	# scaling_setspeed is not put back: the kernel shows "<unsupported>"
	# once the old governor is back, and refuses writes of it.
	[ "$(cat "$FAKE/sys/devices/system/cpu/intel_pstate/no_turbo")" = 0 ]
}
