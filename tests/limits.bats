#!/usr/bin/env bats
# The box bench runs in: the memory limit and CPU quota of its cgroup
# (a Slurm job's --mem and --cpus-per-task, a container's --memory and
# --cpus).  Fake cgroup trees (MEMBENCH_PROCFS for /proc/self/cgroup and
# mountinfo, MEMBENCH_CGROUP before every mount point) cover v2, nesting
# and the odd values; real cgroups, made here as root, cover what the
# kernel enforces.

load test_helper
load harness_helper

# fake_box and job_box, the fake cgroup trees (limits_helper.bash)
load limits_helper

# limits: bench info --json's limits as "MEM|MEM_SOURCE|CPUS|CPU_SOURCE|UNREAD"
limits() {
	run --separate-stderr "$BENCH" info --json
	assert_success
	output=$(printf '%s' "$output" | jq -r '.system | [
		(.memory_limit.bytes // "none"), (.memory_limit.source // "none"),
		(.cpu_quota.cpus // "none"), (.cpu_quota.source // "none"),
		(.limits_unread // "none")] | join("|")')
}

@test "v2: the smallest limit up the tree binds, memory.high as memory.max; threads follow the quota" {
	need jq
	local v2="$BATS_TEST_TMPDIR/box/cg/sys/fs/cgroup"
	fake_box "$BATS_TEST_TMPDIR/box" "0::/job/step"
	mkdir -p "$v2/job/step"
	echo $((300 << 20)) >"$v2/job/memory.max"   # the parent binds
	echo max >"$v2/job/step/memory.max"
	echo $((900 << 20)) >"$v2/job/step/memory.high"
	echo "50000 100000" >"$v2/job/cpu.max"
	echo "max 100000" >"$v2/job/step/cpu.max"
	limits
	[ "$output" = "$((300 << 20))|cgroup v2 memory.max of /job|0.5|cgroup v2 cpu.max of /job|none" ]
	# memory.high lower than the parent's max: it is the limit
	echo $((200 << 20)) >"$v2/job/step/memory.high"
	echo "250000 100000" >"$v2/job/step/cpu.max"
	limits
	[ "$output" = "$((200 << 20))|cgroup v2 memory.high of /job/step|0.5|cgroup v2 cpu.max of /job|none" ]
	# the text, and the default threads: the quota rounded up, 1
	run --separate-stderr "$BENCH" info
	assert_success
	assert_line "Memory limit: 200 MiB (cgroup v2 memory.high of /job/step); bench's arrays and buffers take at most 164.9 MiB of it"
	assert_line "CPU quota: 0.50 CPUs (cgroup v2 cpu.max of /job)"
	if [[ "$output" == *$'\nOpenMP: '* ]]; then
		assert_line "Default threads: 1"
	fi
}

@test "a size bench chooses is capped under the limit and says so; an explicit one that cannot fit is refused" {
	need jq
	job_box $((200 << 20)) ""
	# 200 MiB less 32 MiB and 1/64: 168,755,200 bytes for three arrays
	fit=$(((200 * 1048576 - (32 << 20) - (200 << 20) / 64 - 3 * 4096) / 24))
	run --separate-stderr "$BENCH" --plan
	assert_success
	assert_line "array_size=$fit"
	assert_line "array_size_wanted=10000000"
	assert_line "memory_limit_bytes=$((200 << 20))"
	assert_line "memory_usable_bytes=$((200 * 1048576 - (32 << 20) - (200 << 20) / 64))"
	run --separate-stderr "$BENCH" -s auto --plan
	assert_line "array_size=$fit"
	refused_by -s "$((fit + 1))" -n 3
	[[ "$stderr" == *"the memory limit of 200 MiB (cgroup v2 memory.max of /job)"*"the largest that fits is --size $fit" ]]
	refused_by latency --max 300m
	[[ "$stderr" == *"--max 300 MiB: the run needs"*"memory.max of /job"*"the largest that fits is --max 155.2 MiB" ]]
	refused_by nodes --buffer 100m
	[[ "$stderr" == *"--buffer 100 MiB: a cell needs more than the memory limit of 200 MiB"*"--buffer 54 MiB" ]]
	# latency's default --max (256 MiB) is capped, with loaded latency's
	run --separate-stderr "$BENCH" latency --plan
	assert_success
	assert_line "latency_max_bytes=$((158720 << 10))"
	run --separate-stderr "$BENCH" latency --load-threads 1 --plan
	assert_success
	assert_line "latency_max_bytes=$((80896 << 10))"
	# the run's size is the plan's, and the run says what capped it
	echo $((40 << 20)) >"$V2/job/memory.max"
	fit=$(((40 * 1048576 - (32 << 20) - (40 << 20) / 64 - 3 * 4096) / 24))
	run --separate-stderr "$BENCH" -n 2 --kernels copy
	assert_success
	assert_line "Array size = $fit (elements), Offset = 0 (elements)"
	assert_line "Array size: capped from 10000000 to $fit elements by the memory limit of 40 MiB (cgroup v2 memory.max of /job)"
	assert_line "WARNING: the default array size: capped at $fit elements (wanted 10000000 elements) to fit under the memory limit of 40 MiB (cgroup v2 memory.max of /job), with 32 MiB and 1/64 of it left for bench itself"
	# load threads whose arrays cannot fit: refused for what the user
	# gave, the load threads, not for a --max bench chose
	refused_by latency --load-threads 2
	assert_equal "$stderr" "bench: --load-threads 2: the memory limit of 40 MiB (cgroup v2 memory.max of /job) leaves no room for a chase beside 2 load arrays of at least 64 MiB each (bench keeps 32 MiB and 1/64 of it for itself)"
	# a limit so small nothing fits: refused, not run, and a --max the
	# user did not give is not named
	echo $((32 << 20)) >"$V2/job/memory.max"
	refused_by -n 3
	[[ "$stderr" == *"leaves no room for the arrays"* ]]
	refused_by latency
	assert_equal "$stderr" "bench: latency: the memory limit of 32 MiB (cgroup v2 memory.max of /job) leaves no room for a chase (bench keeps 32 MiB and 1/64 of it for itself)"
	refused_by latency --max 1m
	[[ "$stderr" == "bench: --max 1 MiB: the memory limit of 32 MiB "* ]]
}

@test "odd values break nothing: max, v1's unlimited, above the machine, malformed, unreadable, unmounted, the root cgroup" {
	need jq
	local box="$BATS_TEST_TMPDIR/box" cg="$BATS_TEST_TMPDIR/box/cg/sys/fs/cgroup"
	fake_box "$box" "4:memory:/a" "3:cpu,cpuacct:/a" "0::/b"
	mkdir -p "$cg/memory/a" "$cg/cpu,cpuacct/a" "$cg/b"
	# v1's "no limit" is its largest page count; quota -1 is none
	echo 9223372036854771712 >"$cg/memory/a/memory.limit_in_bytes"
	echo -1 >"$cg/cpu,cpuacct/a/cpu.cfs_quota_us"
	echo 100000 >"$cg/cpu,cpuacct/a/cpu.cfs_period_us"
	echo $((50 << 20)) >"$cg/b/memory.max" # v2's, not this process's hierarchy for memory
	limits
	[ "$output" = "none|none|none|none|none" ]
	# v1 limits, one of them above the machine: reported, not binding
	echo 1125899906842624 >"$cg/memory/a/memory.limit_in_bytes"
	echo 75000 >"$cg/cpu,cpuacct/a/cpu.cfs_quota_us" # of 50000: 1.5 CPUs
	echo 50000 >"$cg/cpu,cpuacct/a/cpu.cfs_period_us"
	limits
	[ "$output" = "1125899906842624|cgroup v1 memory.limit_in_bytes of /a|1.5|cgroup v1 cpu.cfs_quota_us/cpu.cfs_period_us of /a|none" ]
	run --separate-stderr "$BENCH" -s 100000 --plan
	assert_line "array_size=100000"
	run --separate-stderr "$BENCH" info
	assert_line "Memory limit: 1024 TiB (cgroup v1 memory.limit_in_bytes of /a), above the machine's memory: it does not bind"
	# malformed and unreadable files: said, and no limit
	echo lots >"$cg/memory/a/memory.limit_in_bytes"
	echo "1 0" >"$cg/cpu,cpuacct/a/cpu.cfs_quota_us"
	limits
	[ "$output" = "none|none|none|none|memory.limit_in_bytes of /a is not a size; cpu.cfs_quota_us of /a is not a quota" ]
	rm "$cg/memory/a/memory.limit_in_bytes"
	mkdir "$cg/memory/a/memory.limit_in_bytes" # read(2) fails: EISDIR
	echo -1 >"$cg/cpu,cpuacct/a/cpu.cfs_quota_us"
	limits
	[ "$output" = "none|none|none|none|memory.limit_in_bytes (Is a directory)" ]
	# the run goes on as today
	run --separate-stderr "$BENCH" $TINY --kernels copy
	assert_success
	assert_line "Limits not read: memory.limit_in_bytes (Is a directory)"
	# no cgroup fs mounted
	: >"$box/proc/self/mountinfo"
	limits
	[ "$output" = "none|none|none|none|the memory controller's cgroup fs is not mounted; the cpu controller's cgroup fs is not mounted" ]
	# a container's view (Docker on v1 without a cgroup namespace): the
	# mount's root is the container's cgroup, mounted as the top
	fake_box "$box" "4:memory:/docker/c1" "3:cpu,cpuacct:/docker/c1"
	sed -i 's| / /sys/fs/cgroup/memory | /docker/c1 /sys/fs/cgroup/memory |' "$box/proc/self/mountinfo"
	rm -r "$cg/memory/a/memory.limit_in_bytes"
	echo $((700 << 20)) >"$cg/memory/memory.limit_in_bytes"
	# (inside the mount, /docker/c1 would be another cgroup, not ours)
	mkdir -p "$cg/memory/docker/c1"
	echo $((50 << 20)) >"$cg/memory/docker/c1/memory.limit_in_bytes"
	limits
	[ "$output" = "$((700 << 20))|cgroup v1 memory.limit_in_bytes of /|none|none|none" ]
	# the root cgroup of v2: no limit files, nothing to say
	rm "$cg/memory/memory.limit_in_bytes"
	fake_box "$box" "0::/"
	limits
	[ "$output" = "none|none|none|none|none" ]
	# no /proc/self/cgroup at all (a kernel without cgroups)
	rm "$box/proc/self/cgroup"
	limits
	[ "$output" = "none|none|none|none|none" ]
}

@test "threads above the quota run, with a warning in text and JSON, and the run rules mark them" {
	need jq
	"$BENCH" info | grep -q '^OpenMP: ' || skip "this bench was built without OpenMP"
	job_box "" "50000 100000"
	run --separate-stderr "$BENCH" $TINY -t 2 --kernels copy --json
	assert_success
	printf '%s' "$output" | jq -e '.run.threads_over_quota == true and
		.run.threads_requested == 2 and
		(.warnings | any(startswith("2 threads under a CPU quota of 0.50 CPUs (cgroup v2 cpu.max of /job)"))) and
		(.run_rules.reasons | any(startswith("2 threads above a CPU quota of 0.50 CPUs"))) and
		.system.cpu_quota.cpus == 0.5' >/dev/null
	# OMP_NUM_THREADS is a choice too; the default is the quota's
	OMP_NUM_THREADS=2 run --separate-stderr "$BENCH" $TINY --kernels copy
	assert_success
	assert_line --partial "WARNING: 2 threads under a CPU quota of 0.50 CPUs"
	assert_line --partial "2 threads above a CPU quota"
	run --separate-stderr "$BENCH" $TINY --kernels copy
	assert_success
	assert_line "Number of Threads requested = 1"
	assert_line "Threads: 1, from the CPU quota of 0.50 CPUs (cgroup v2 cpu.max of /job), not the allowed CPUs"
	refute_line --partial "above a CPU quota"
}

@test "nodes --plan: the buffer under the limit, and a --buffer that cannot fit refused as the run refuses it" {
	need jq
	job_box $((200 << 20)) "50000 100000"
	# the plan's refusal is the run's, word for word
	refused_by nodes --buffer 100m
	local ran=$stderr
	refused_by nodes --buffer 100m --plan
	[ "$stderr" = "$ran" ]
	# the default buffer, capped: three arrays in 200 MiB less the
	# headroom, in whole MiB
	run --separate-stderr "$BENCH" nodes --plan
	assert_success
	assert_line "mode=nodes"
	assert_line "buffer_bytes=$((54 << 20))"
	assert_line "buffer_rule=memory_limit"
	assert_line "total_bytes=$((3 * (54 << 20)))"
	assert_line "memory_limit_bytes=$((200 << 20))"
	assert_line "memory_limit_source=cgroup v2 memory.max of /job"
	[ "$(printf '%s\n' "$output" | sed -n 's/^buffer_wanted_bytes=//p')" -gt $((54 << 20)) ]
	run --separate-stderr "$BENCH" nodes --matrix latency --buffer 150m --plan
	assert_success
	assert_line "buffer_bytes=$((150 << 20))"
	assert_line "buffer_rule=given"
	# a latency cell is one thread; a bandwidth cell one a CPU of its row
	assert_line "threads=1"
	assert_line "threads_over_quota=0"
	run --separate-stderr "$BENCH" nodes --plan --json
	assert_success
	printf '%s' "$output" | jq -e '.plan as $p | $p.threads_over_quota == ($p.threads > 1) and
		((.warnings | any(startswith("bench nodes'"'"' rows: \($p.threads) threads under a CPU quota of 0.50 CPUs")))
		 == $p.threads_over_quota)' >/dev/null
}

@test "load threads above the quota run, with a warning in text and JSON, and the run marks them" {
	need jq
	"$BENCH" info | grep -q '^OpenMP: ' || skip "this bench was built without OpenMP"
	local lat=(latency --load-threads 1 --min 1m --max 1m --steps-per-octave 1 --mhz 3000 --rw 1:0 --delays 0)
	job_box "" "50000 100000"
	# the chase and one load thread: two threads on half a CPU
	run --separate-stderr "$BENCH" "${lat[@]}" --json-file "$BATS_TEST_TMPDIR/run.json"
	assert_success
	assert_line --partial "# WARNING: --load-threads 1: 2 threads under a CPU quota of 0.50 CPUs"
	jq -e '.loaded.threads_over_quota == true and
		(.warnings | any(startswith("--load-threads 1: 2 threads under a CPU quota of 0.50 CPUs (cgroup v2 cpu.max of /job): they take turns")))' "$BATS_TEST_TMPDIR/run.json" >/dev/null
	run --separate-stderr "$BENCH" "${lat[@]}" --plan
	assert_success
	assert_line "threads=2"
	assert_line "threads_over_quota=1"
	# two CPUs' worth holds them: nothing said, nothing marked
	echo "200000 100000" >"$V2/job/cpu.max"
	run --separate-stderr "$BENCH" "${lat[@]}" --json
	assert_success
	printf '%s' "$output" | jq -e '.loaded.threads_over_quota == false and
		(.warnings | any(test("CPU quota")) | not)' >/dev/null
}

@test "c2c's pair above the quota runs, with a warning in text and JSON, and the run marks it" {
	need jq
	"$BENCH" info | grep -q '^OpenMP: ' || skip "this bench cannot run c2c (no OpenMP)"
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no pair to measure"
	job_box "" "50000 100000"
	run --separate-stderr "$BENCH" c2c --cpus 0,1 --json-file "$BATS_TEST_TMPDIR/run.json"
	assert_success
	assert_line --partial "WARNING: c2c's pairs: 2 threads under a CPU quota of 0.50 CPUs"
	jq -e '.c2c.threads_over_quota == true and
		(.warnings | any(startswith("c2c'"'"'s pairs: 2 threads under a CPU quota of 0.50 CPUs (cgroup v2 cpu.max of /job): they take turns")))' "$BATS_TEST_TMPDIR/run.json" >/dev/null
	run --separate-stderr "$BENCH" c2c --cpus 0,1 --plan
	assert_success
	assert_line "mode=c2c"
	assert_line "cpus=0-1"
	assert_line "pairs=1"
	assert_line "threads=2"
	assert_line "threads_over_quota=1"
	echo "200000 100000" >"$V2/job/cpu.max"
	run --separate-stderr "$BENCH" c2c --cpus 0,1 --json
	assert_success
	printf '%s' "$output" | jq -e '.c2c.threads_over_quota == false and
		(.warnings | any(test("CPU quota")) | not)' >/dev/null
}

# real_box MEM_BYTES QUOTA_US: make a memory cgroup of MEM_BYTES, and
# under it one without a limit of its own (so that the parent's binds),
# and a CPU cgroup with QUOTA_US of every 100000 us: v1's controllers,
# or v2's where its root can give them to a child.  Names are random;
# teardown removes them.  Sets BOX_MEM and BOX_CPU (the directories a
# command joins) and BOX_NAME; skips, or under CI fails, where no
# cgroup can be made.
real_box() {
	local mem="$1" quota="$2" v1=/sys/fs/cgroup v2=""
	[ "$(id -u)" = 0 ] || skip "making cgroups needs root"
	BOX_NAME=$(mktemp -u membench-limits.XXXXXXXXXX)
	BOX_NAME=${BOX_NAME##*/}
	if [ -f "$v1/memory/memory.limit_in_bytes" ] && [ -f "$v1/cpu/cpu.cfs_quota_us" ]; then
		BOX_DIRS=("$v1/memory/$BOX_NAME" "$v1/cpu/$BOX_NAME")
		mkdir "$v1/memory/$BOX_NAME" "$v1/memory/$BOX_NAME/step" "$v1/cpu/$BOX_NAME" || missing_tool "cannot make a v1 cgroup"
		BOX_DIRS=("$v1/memory/$BOX_NAME/step" "${BOX_DIRS[@]}")
		echo "$mem" >"$v1/memory/$BOX_NAME/memory.limit_in_bytes"
		echo 100000 >"$v1/cpu/$BOX_NAME/cpu.cfs_period_us"
		echo "$quota" >"$v1/cpu/$BOX_NAME/cpu.cfs_quota_us"
		BOX_MEM="$v1/memory/$BOX_NAME/step" BOX_CPU="$v1/cpu/$BOX_NAME"
		return 0
	fi
	for v2 in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		[ -f "$v2/cgroup.controllers" ] && [[ " $(cat "$v2/cgroup.controllers") " == *" memory "*" cpu "* || " $(cat "$v2/cgroup.controllers") " == *" cpu "*" memory "* ]] && break
		v2=""
	done
	[ -n "$v2" ] || missing_tool "no cgroup hierarchy here has the memory and cpu controllers (v1 mounts or v2's root)"
	echo "+memory +cpu" >"$v2/cgroup.subtree_control" 2>/dev/null || missing_tool "cgroup v2's root will not give memory and cpu to a child"
	mkdir "$v2/$BOX_NAME" || missing_tool "cannot make a v2 cgroup"
	BOX_DIRS=("$v2/$BOX_NAME")
	echo "+memory +cpu" >"$v2/$BOX_NAME/cgroup.subtree_control" 2>/dev/null || missing_tool "cgroup v2 will not nest memory and cpu"
	mkdir "$v2/$BOX_NAME/step"
	BOX_DIRS=("$v2/$BOX_NAME/step" "${BOX_DIRS[@]}")
	echo "$mem" >"$v2/$BOX_NAME/memory.max"
	echo "$quota 100000" >"$v2/$BOX_NAME/cpu.max"
	BOX_MEM="$v2/$BOX_NAME/step" BOX_CPU="$v2/$BOX_NAME/step"
}

# in_box COMMAND...: COMMAND inside the real box (the paths are
# arguments, never program text).
in_box() {
	sh -c 'echo $$ >"$1/cgroup.procs" && echo $$ >"$2/cgroup.procs" && shift 2 && exec "$@"' \
		sh "$BOX_MEM" "$BOX_CPU" "$@"
}

teardown() {
	local d
	for d in "${BOX_DIRS[@]}"; do
		rmdir "$d" 2>/dev/null || :
	done
}

@test "in a real cgroup: the run fits under the limit the kernel enforces, the quota sets the threads, an explicit size is refused" {
	need jq
	real_box $((128 << 20)) 50000
	# -s auto and the default size: capped, and they run (no OOM killer)
	run --separate-stderr in_box "$BENCH" -s auto -n 3 --kernels copy,triad --json
	assert_success
	printf '%s' "$output" | jq -e --argjson mem $((128 << 20)) '
		.system.memory_limit.bytes == $mem and
		(.system.memory_limit.source | test("^cgroup v[12] memory\\.(limit_in_bytes|max) of /membench-limits\\.[A-Za-z0-9]+$")) and
		.system.cpu_quota.cpus == 0.5 and
		.run.array_size_wanted > .run.array_size and
		3 * 8 * .run.array_size <= .system.memory_limit.usable_bytes and
		(.warnings | any(startswith("--size auto'"'"'s arrays: capped at")))' >/dev/null
	if "$BENCH" info | grep -q '^OpenMP: '; then
		printf '%s' "$output" | jq -e '.run.threads_counted == 1 and
			(.run.threads_quota | startswith("1, from the CPU quota of 0.50 CPUs"))' >/dev/null
	fi
	[ "$(cat "/sys/fs/cgroup/memory/$BOX_NAME/memory.failcnt" 2>/dev/null || echo 0)" = 0 ]
	# latency's default sweep, capped; its last point is the cap
	run --separate-stderr in_box "$BENCH" latency --min 48m --steps-per-octave 1
	assert_success
	assert_line --partial "# WARNING: latency's default --max: capped at"
	# an explicit size that cannot fit: one line, before anything is allocated
	refused_command in_box "$BENCH" -s 40000000
	[[ "$stderr" == *"more than the memory limit of 128 MiB"*"the largest that fits is --size "* ]]
}
