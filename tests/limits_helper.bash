# shellcheck shell=bash
# Fake cgroup trees for bench's limits (tests/limits.bats) and the
# full tier's slower runs under them (tests/limits_harness.bats).

# fake_box ROOT LINE...: a fake /proc under ROOT/proc whose
# self/cgroup holds the LINEs and whose mountinfo mounts cgroup2 at
# /sys/fs/cgroup (and v1's memory and cpu controllers beside it); the
# hierarchies lie under ROOT/cg.  Export MEMBENCH_PROCFS and
# MEMBENCH_CGROUP to point bench at it.
fake_box() {
	local root="$1"
	shift
	fake_procfs "$root/proc" 0 0
	mkdir -p "$root/proc/self" "$root/cg/sys/fs/cgroup/memory" \
		"$root/cg/sys/fs/cgroup/cpu,cpuacct"
	printf '%s\n' "$@" >"$root/proc/self/cgroup"
	cat >"$root/proc/self/mountinfo" <<'EOT'
22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw
30 22 0:27 / /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw
31 22 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
32 22 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
EOT
	export MEMBENCH_PROCFS="$root/proc" MEMBENCH_CGROUP="$root/cg"
}

# job_box MEM CPU_MAX: fake_box with one v2 cgroup, /job, this process's;
# MEM (bytes) is its memory.max and CPU_MAX ("QUOTA PERIOD") its cpu.max,
# each left unset when "".  $V2 is the hierarchy's root, for more.
job_box() {
	V2="$BATS_TEST_TMPDIR/box/cg/sys/fs/cgroup"
	fake_box "$BATS_TEST_TMPDIR/box" "0::/job"
	mkdir -p "$V2/job"
	[ -z "$1" ] || echo "$1" >"$V2/job/memory.max"
	[ -z "$2" ] || echo "$2" >"$V2/job/cpu.max"
}
