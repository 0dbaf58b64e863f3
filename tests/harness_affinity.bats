#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# --bind translated for each OpenMP runtime, and the check of where bench's
# threads really ran.  The fake machine has 2 packages x 2 cores x 2 SMT
# threads, siblings numbered N and N+4, so compact and scatter orders differ
# from plain CPU order.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() {
	harness_setup
	# shellcheck source=harness/lib.sh
	. "$HARNESS_REPO/harness/lib.sh"
}

env_of() { printf '%s\n' "${BIND_ENV[@]}"; }

@test "topology orders: compact keeps siblings together, scatter goes round the packages" {
	run compact_order
	assert_output "$(printf '%s\n' 0 4 1 5 2 6 3 7)"
	run scatter_order
	assert_output "$(printf '%s\n' 0 2 1 3 4 6 5 7)"
}

@test "libgomp: close, spread, a list and none" {
	RUNTIME=libgomp
	bind_setup close
	run env_of
	assert_output "$(printf '%s\n' OMP_PROC_BIND=close 'OMP_PLACES={0},{4},{1},{5},{2},{6},{3},{7}' 'GOMP_CPU_AFFINITY=0 4 1 5 2 6 3 7')"
	bind_setup spread
	run env_of
	assert_output "$(printf '%s\n' OMP_PROC_BIND=spread 'OMP_PLACES={0},{4},{1},{5},{2},{6},{3},{7}' 'GOMP_CPU_AFFINITY=0 2 1 3 4 6 5 7')"
	bind_setup 3,1-2
	run env_of
	assert_output "$(printf '%s\n' OMP_PROC_BIND=close 'OMP_PLACES={3},{1},{2}' 'GOMP_CPU_AFFINITY=3 1 2')"
	bind_setup none
	run env_of
	assert_output OMP_PROC_BIND=false
}

@test "libomp and libiomp5: KMP_AFFINITY compact, scatter, explicit proclist, none" {
	for RUNTIME in libomp libiomp5; do
		bind_setup close
		run env_of
		assert_line 'KMP_AFFINITY=granularity=fine,compact'
		assert_line OMP_PROC_BIND=close
		refute_line --partial GOMP_CPU_AFFINITY
		bind_setup spread
		run env_of
		assert_line 'KMP_AFFINITY=granularity=fine,scatter'
		bind_setup 3,1-2
		run env_of
		assert_line 'KMP_AFFINITY=granularity=fine,explicit,proclist=[3,1,2]'
		assert_line 'OMP_PLACES={3},{1},{2}'
		bind_setup none
		run env_of
		assert_output "$(printf '%s\n' OMP_PROC_BIND=false KMP_AFFINITY=none)"
	done
}

@test "a CPU that is not online is bad input" {
	run "$HARNESS_REPO/harness/run" --bind 0,9
	assert_failure 2
	assert_output --partial 'CPU 9 is not online'
}

# threads_json CPU...: a bench-shaped record of where threads ran.
threads_json() {
	local i=0 t='' c
	for c in "$@"; do t="$t${t:+,}{\"thread\":$i,\"cpu\":$c,\"cpu_end\":$c}"; i=$((i + 1)); done
	echo "{\"run\":{\"threads\":[$t]}}" >"$BATS_TEST_TMPDIR/t.json"
}

@test "verification: close on libgomp wants thread i on the i-th compact CPU" {
	RUNTIME=libgomp
	bind_setup close
	threads_json 0 4 1
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = true ]
	threads_json 0 1 2
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = false ]
	[[ "$BIND_NOTE" == *'thread 1 ran on CPU 1, expected 4'* ]]
}

@test "verification: the pattern may start at the place thread 0 runs on, and wrap" {
	# libgomp binds the initial thread to the place it is running on, and
	# close assigns the others from there: compact order here is 0 4 1 5 ...
	RUNTIME=libgomp
	bind_setup close
	threads_json 4 1 5
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = true ]
	threads_json 4 5 1
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = false ]
	[[ "$BIND_NOTE" == *'thread 1 ran on CPU 5, expected 1'* ]]
}

@test "verification: spread follows OpenMP on libgomp and scatter on libomp" {
	RUNTIME=libgomp
	bind_setup spread
	threads_json 0 2
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = true ]
	threads_json 0 1 2 3
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = true ]
	RUNTIME=libomp
	bind_setup spread
	threads_json 0 2 1
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = true ]
	threads_json 0 4 1
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = false ]
}

@test "verification: more threads than CPUs may share, but not pile up" {
	RUNTIME=libgomp
	bind_setup 0,1
	threads_json 0 0 1 1
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = true ]
	threads_json 0 0 0 1
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = false ]
	[[ "$BIND_NOTE" == *'hold more than 2 threads'* ]]
	threads_json 0 5
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[[ "$BIND_NOTE" == *'outside the bound set'* ]]
}

@test "verification: a thread that moved did not stay bound" {
	RUNTIME=libgomp
	bind_setup 0,1
	echo '{"run":{"threads":[{"thread":0,"cpu":0,"cpu_end":1},{"thread":1,"cpu":1,"cpu_end":1}]}}' >"$BATS_TEST_TMPDIR/t.json"
	verify_binding "$BATS_TEST_TMPDIR/t.json"
	[ "$BIND_VERIFIED" = false ]
	[[ "$BIND_NOTE" == *'thread 0 moved from CPU 0 to 1'* ]]
}

@test "the runner warns when bench's threads were not where the binding put them" {
	export FAKE_CPUS='0 1'
	run "$HARNESS_REPO/harness/run" --bind close -- -t 2 -s 1000
	assert_success
	assert_output --partial 'binding did not take: thread 1 ran on CPU 1, expected 4'
	assert_output --partial '| binding did not take |'
}

@test "the runtime comes from bench info, else ldd, else --omp-runtime" {
	export FAKE_RUNTIME=libomp
	run "$HARNESS_REPO/harness/run" --dry-run --bind close
	assert_output --partial 'OpenMP runtime: unknown (from ldd)'
	run "$HARNESS_REPO/harness/run" --bind close -- -s 1000
	assert_output --partial 'OpenMP runtime: libomp (from bench info --json)'
	run jq -r '.env[]' "$(result_dir)/step-001.json"
	assert_line 'KMP_AFFINITY=granularity=fine,compact'
	run "$HARNESS_REPO/harness/run" --dry-run --bind close --omp-runtime libiomp5
	assert_output --partial 'KMP_AFFINITY=granularity=fine,compact'
}

@test "real bench built with gcc (libgomp) and clang (libomp): binding verified" {
	real_bench >/dev/null
	unset MEMBENCH_SYSFS MEMBENCH_PROCFS MEMBENCH_UID
	clang_bench=$(build_variant bench-clang clang -O2 -fopenmp)
	# each build's sweep under a results root of its own: two sweeps in
	# one second are <stamp>-sweep-bind and <stamp>-sweep-bind.2, which
	# no sort of their paths orders as they ran
	local i=0
	for b in "$HARNESS_REPO/bench" "$clang_bench"; do
		n=$(getconf _NPROCESSORS_ONLN)
		i=$((i + 1))
		MEMBENCH_RESULTS=$MEMBENCH_RESULTS/build-$i MEMBENCH_BENCH=$b run "$HARNESS_REPO/harness/sweep-bind" --binds "close spread 0" --threads "$n" -- -s 100000 -n 3
		assert_success
		refute_output --partial 'binding did not take'
		assert_output --partial 'binding verified'
	done
	# the clang build's sweep: libomp's variables
	run jq -r '.env[]' "$(find "$MEMBENCH_RESULTS/build-2" -path '*sweep-bind*' -name step-001.json)"
	assert_line 'KMP_AFFINITY=granularity=fine,compact'
}
