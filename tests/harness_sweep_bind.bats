#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/sweep-bind: binding presets side by side.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() { harness_setup; }

SWEEP=$HARNESS_REPO/harness/sweep-bind

@test "default presets: none, close, spread and every CPU as a list" {
	run "$SWEEP" -- -s 1000
	assert_success
	assert_output --partial '| none | OMP_PROC_BIND=false | 8 |'
	assert_output --partial '| close | OMP_PROC_BIND=close GOMP_CPU_AFFINITY=0 4 1 5 2 6 3 7 | 8 |'
	assert_output --partial '| spread | OMP_PROC_BIND=spread GOMP_CPU_AFFINITY=0 2 1 3 4 6 5 7 | 8 |'
	assert_output --partial '| 0,4,1,5,2,6,3,7 |'
}

@test "presets for libomp use KMP_AFFINITY" {
	export FAKE_RUNTIME=libomp FAKE_CPUS='0 2'
	run "$SWEEP" --binds 'close spread' --threads 2 -- -s 1000
	assert_success
	assert_output --partial '| close | OMP_PROC_BIND=close KMP_AFFINITY=granularity=fine,compact | 2 | 0:0 1:2 | - |'
	assert_output --partial '| spread | OMP_PROC_BIND=spread KMP_AFFINITY=granularity=fine,scatter | 2 | 0:0 1:2 | - |'
	# compact wants 0 then 4, so close did not take; scatter wants 0 then 2.
	assert_output --partial 'binding did not take |'
	assert_output --partial 'ok, binding verified |'
}

@test "--bind is refused: the sweep sets it per step" {
	run "$SWEEP" --bind close
	assert_failure 2
}
