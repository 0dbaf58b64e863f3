#!/usr/bin/env bats
# The harness inside the limits bench runs under (limits.bats has bench's
# own): harness/run refuses or warns before it changes a setting, records
# the limits in its provenance, and harness/compare says when two runs'
# limits differ.  A fake v2 cgroup stands for the box; these run the
# whole harness, so they are in the full tier (make check), not
# check-fast.

load test_helper
load harness_helper
load limits_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# box_machine MEM_BYTES: harness_setup's fake machine, the real bench,
# and a fake v2 cgroup /job of MEM_BYTES and half a CPU in its /proc.
box_machine() {
	harness_setup
	export MEMBENCH_BENCH=$BENCH MEMBENCH_CGROUP=$BATS_TEST_TMPDIR/cg
	mkdir -p "$FAKE/proc/self" "$MEMBENCH_CGROUP/sys/fs/cgroup/job"
	echo "0::/job" >"$FAKE/proc/self/cgroup"
	echo '30 22 0:27 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw' >"$FAKE/proc/self/mountinfo"
	echo "$1" >"$MEMBENCH_CGROUP/sys/fs/cgroup/job/memory.max"
	echo "50000 100000" >"$MEMBENCH_CGROUP/sys/fs/cgroup/job/cpu.max"
}

@test "harness/run refuses a size that cannot fit before it changes a setting, warns of a capped one, and records the limits" {
	need jq
	box_machine $((40 << 20))
	before=$(tree_digest)
	run "$HARNESS_REPO/harness/run" --thp always --hugepages 4 --label box -- -s 40000000 -n 2
	assert_failure 2
	assert_output --partial "bench refused --plan for '-s 40000000 -n 2': bench: --size: 3 arrays of 40000000 elements need 915.5 MiB, more than the memory limit of 40 MiB (cgroup v2 memory.max of /job)"
	[ "$(tree_digest)" = "$before" ] # THP and the pool untouched
	run "$HARNESS_REPO/harness/run" --thp always --label box -- -n 2 --kernels copy -t 2
	assert_success
	assert_output --partial "the memory limit (41943040 bytes, cgroup v2 memory.max of /job) caps the arrays at "
	assert_output --partial "2 threads under a CPU quota of 0.5 CPUs (cgroup v2 cpu.max of /job): they take turns"
	d=$(result_dir)
	grep -qxF 'memory limit: 41943040 bytes (cgroup v2 memory.max of /job)' "$d/provenance.txt"
	grep -qxF 'CPU quota: 0.5 CPUs (cgroup v2 cpu.max of /job)' "$d/provenance.txt"
	grep -qxF '0::/job' "$d/provenance.txt"
}

@test "harness/run asks bench's plan under either limit alone: a memory limit with no CPU quota, a CPU quota with no memory limit" {
	need jq
	box_machine $((40 << 20))
	echo "max 100000" >"$MEMBENCH_CGROUP/sys/fs/cgroup/job/cpu.max"
	run "$HARNESS_REPO/harness/run" --label box -- -n 2 --kernels copy -t 2
	assert_success
	assert_output --partial "the memory limit (41943040 bytes, cgroup v2 memory.max of /job) caps the arrays at "
	refute_output --partial "under a CPU quota"
	echo max >"$MEMBENCH_CGROUP/sys/fs/cgroup/job/memory.max"
	echo "50000 100000" >"$MEMBENCH_CGROUP/sys/fs/cgroup/job/cpu.max"
	run "$HARNESS_REPO/harness/run" --label box -- -s 100000 -n 2 --kernels copy -t 2
	assert_success
	assert_output --partial "2 threads under a CPU quota of 0.5 CPUs (cgroup v2 cpu.max of /job): they take turns"
	refute_output --partial "the memory limit ("
}

# knob_log: every machine setting the harness writes, logged to
# $KNOB_LOG before it is written (a refused run's restore would leave
# the tree as it was, so the tree alone cannot say nothing was applied).
knob_log() {
	export MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/knob-writer KNOB_LOG=$BATS_TEST_TMPDIR/knobs.log
	: >"$KNOB_LOG"
	printf '#!/bin/sh\nprintf "%%s %%s\\n" "$1" "$2" >>"$KNOB_LOG"\nprintf "%%s\\n" "$2" >"$1"\n' >"$MEMBENCH_KNOB_WRITER"
	chmod +x "$MEMBENCH_KNOB_WRITER"
}

@test "harness/run asks bench nodes' plan too: a --buffer that cannot fit is refused before any setting is applied, a capped one warned of" {
	need jq
	box_machine $((40 << 20))
	knob_log
	before=$(tree_digest)
	run "$HARNESS_REPO/harness/run" --thp always --hugepages 4 --label box -- nodes --buffer 100m
	assert_failure 2
	assert_output --partial "bench refused --plan for 'nodes --buffer 100m': bench: --buffer 100 MiB: a cell needs more than the memory limit of 40 MiB (cgroup v2 memory.max of /job)"
	[ ! -s "$KNOB_LOG" ] # nothing written, not even put back
	[ "$(tree_digest)" = "$before" ]
	# the log does see a setting applied
	run "$HARNESS_REPO/harness/run" --thp always --label box -- nodes --matrix latency
	assert_success
	grep -q 'transparent_hugepage/enabled always$' "$KNOB_LOG"
	assert_output --partial "the memory limit (41943040 bytes, cgroup v2 memory.max of /job) caps bench nodes' buffer at $((6 << 20)) bytes, not "
}

@test "harness/run warns of c2c's pair above the quota before it changes a setting" {
	need jq
	"$BENCH" info | grep -q '^OpenMP: ' || skip "this bench cannot run c2c (no OpenMP)"
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no pair to measure"
	box_machine $((400 << 20))
	run "$HARNESS_REPO/harness/run" --label box -- c2c --cpus 0,1
	assert_success
	assert_output --partial "2 threads under a CPU quota of 0.5 CPUs (cgroup v2 cpu.max of /job): they take turns"
}

@test "harness/compare says when two runs had different limits, and not when only the cgroup differs" {
	need jq
	local t=$BATS_TEST_TMPDIR
	"$BENCH" $TINY --kernels copy --json >"$t/a.json"
	jq '.system.memory_limit = {bytes: 734003200, source: "cgroup v1 memory.limit_in_bytes of /slurm/job_7"}
		| .system.cpu_quota = {cpus: 2, source: "cgroup v1 cpu.cfs_quota_us/cpu.cfs_period_us of /slurm/job_7"}' "$t/a.json" >"$t/b.json"
	jq '.system.memory_limit.source = "cgroup v1 memory.limit_in_bytes of /slurm/job_8"' "$t/b.json" >"$t/c.json"
	run "$HARNESS_REPO/harness/compare" "$t/a.json" "$t/b.json"
	assert_success
	assert_line '- limits: A: memory limit none, CPU quota none, B: memory limit 734003200 bytes, CPU quota 2 CPUs'
	run "$HARNESS_REPO/harness/compare" --fail-on-regression 50 "$t/a.json" "$t/b.json"
	assert_failure 2
	assert_output --partial 'differ in limits'
	run "$HARNESS_REPO/harness/compare" "$t/b.json" "$t/c.json"
	assert_success
	refute_output --partial 'limits'
}

# ---- moved from limits.bats (the fast tier): lat_mem_rd's four runs
# up to 1 MiB take 7 s on the 2-vCPU guest
@test "lat_mem_rd -P: chases above the quota or the allowed CPUs run, and a warning follows the curve" {
	"$BENCH" info | grep -q '^OpenMP: ' || skip "this bench was built without OpenMP"
	job_box "" "50000 100000"
	# two chases on half a CPU: the curve as lat_mem_rd writes it, on
	# stderr, then one '#' line that lmbench's readers skip
	run --separate-stderr "$BENCH" lat_mem_rd -P 2 1 64
	assert_success
	assert_equal "$output" ""
	assert_equal "$(head -n 1 <<<"$stderr")" '"stride=64'
	assert_equal "$(grep -c '^# ' <<<"$stderr")" 1
	assert_equal "$(tail -n 1 <<<"$stderr")" "# WARNING: -P 2: 2 threads under a CPU quota of 0.50 CPUs (cgroup v2 cpu.max of /job): they take turns on the time of 1 CPU, and the figures are not the machine's"
	# one chase, or a quota that holds both: nothing said
	run --separate-stderr "$BENCH" lat_mem_rd -P 1 1 64
	assert_success
	[[ "$stderr" != *"#"* ]]
	echo "200000 100000" >"$V2/job/cpu.max"
	if [ "$(nproc)" -ge 2 ]; then
		run --separate-stderr taskset -c 0,1 "$BENCH" lat_mem_rd -P 2 1 64
		assert_success
		[[ "$stderr" != *"#"* ]]
	fi
	# more chases than the CPUs it may run on, whatever the quota
	run --separate-stderr taskset -c 0 "$BENCH" lat_mem_rd -P 2 1 64
	assert_success
	assert_equal "$(tail -n 1 <<<"$stderr")" "# WARNING: -P 2: 2 chases on 1 allowed CPU take turns, and each times the turns, not the memory"
}
