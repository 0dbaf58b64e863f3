#!/usr/bin/env bats
# harness/slurm/membench.sbatch under a real one-node Slurm that each test
# starts: munged with a key of its own, slurmctld and slurmd from a
# generated slurm.conf (this host, its CPUs, state in a mktemp directory),
# then sbatch and a bounded wait.  Where the host mounts cgroup v1's
# memory, cpuset and freezer controllers, Slurm's cgroup plugins enforce
# a job's --mem and --cpus-per-task (proctrack/cgroup, task/cgroup), as a
# cluster's do; elsewhere no cgroups (proctrack/linuxproc, task/none), and
# SLURM_CGROUPS says which.  The daemons are stopped by pid at teardown,
# whatever happened, and the cgroups Slurm made are removed.
# The machine settings go to a fake sysfs (tests/harness_helper.bash).

# shellcheck disable=SC2030,SC2031 # each test exports its own environment
load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# the longest wait for the daemons, and for a job
BOUND=120

# slurm_start: a private Slurm, or skip naming what is missing or failed.
slurm_start() {
	local c host cpus port
	for c in munged slurmctld slurmd sbatch scontrol sinfo mpicc.openmpi; do
		need "$c"
	done
	[ "$(id -u)" = 0 ] || skip "the daemons of a private Slurm run as root here"
	host=$(hostname)
	# the daemons find each other by this name: where it does not
	# resolve (a root without /etc/hosts), each lookup waits its timeout
	getent hosts "$host" >/dev/null || skip "this host's name $host does not resolve (no /etc/hosts entry or DNS)"
	# munged refuses a key or socket under a path it cannot traverse, so
	# the tree is a fresh mktemp directory (not the 0700 bats one), 0711
	SL=$(mktemp -d "${TMPDIR:-/tmp}/membench-slurm.XXXXXX")
	chmod 711 "$SL"
	mkdir -p "$SL/munge/run" "$SL/state" "$SL/spool" "$SL/log"
	dd if=/dev/urandom of="$SL/munge/munge.key" bs=1024 count=1 2>/dev/null
	chown -R munge:munge "$SL/munge"
	chmod 711 "$SL/munge"
	chmod 755 "$SL/munge/run"
	chmod 400 "$SL/munge/munge.key"
	runuser -u munge -- munged --key-file="$SL/munge/munge.key" \
		--socket="$SL/munge/run/munge.socket" --pid-file="$SL/munge/run/munged.pid" \
		--log-file="$SL/munge/munged.log" --seed-file="$SL/munge/seed" ||
		skip "munged does not start here: $(tail -n 1 "$SL/munge/munged.log" 2>/dev/null)"
	cpus=$(nproc)
	# ports of our own, away from a real Slurm's 6817/6818
	port=$((20000 + RANDOM % 20000))
	# cgroup v1's controllers that Slurm 22.05's cgroup/v1 needs; the
	# directories it makes under them (slurm_<host>) go at teardown,
	# those that were there before stay
	SLURM_CGROUPS=0 SLURM_CG_NEW=()
	tracking="ProctrackType=proctrack/linuxproc"$'\n'"TaskPlugin=task/none"
	if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ] &&
		[ -f /sys/fs/cgroup/cpuset/cpuset.cpus ] && [ -d /sys/fs/cgroup/freezer ]; then
		SLURM_CGROUPS=1
		tracking="ProctrackType=proctrack/cgroup"$'\n'"TaskPlugin=task/cgroup"
		for c in memory cpuset freezer; do
			[ -e "/sys/fs/cgroup/$c/slurm_$host" ] || SLURM_CG_NEW+=("/sys/fs/cgroup/$c/slurm_$host")
		done
		printf '%s\n' CgroupPlugin=cgroup/v1 CgroupMountpoint=/sys/fs/cgroup \
			ConstrainRAMSpace=yes ConstrainCores=yes ConstrainSwapSpace=no >"$SL/cgroup.conf"
	fi
	cat >"$SL/slurm.conf" <<EOF
ClusterName=membenchtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SL/munge/run/munge.socket
StateSaveLocation=$SL/state
SlurmdSpoolDir=$SL/spool
SlurmctldPidFile=$SL/slurmctld.pid
SlurmdPidFile=$SL/slurmd.pid
SlurmctldLogFile=$SL/log/slurmctld.log
SlurmdLogFile=$SL/log/slurmd.log
$tracking
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$cpus RealMemory=2000 State=UNKNOWN
PartitionName=membenchtest Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
	export SLURM_CONF=$SL/slurm.conf
	slurmctld -D -f "$SLURM_CONF" >"$SL/log/slurmctld.out" 2>&1 &
	echo $! >"$SL/slurmctld.bgpid"
	slurmd -D -f "$SLURM_CONF" >"$SL/log/slurmd.out" 2>&1 &
	echo $! >"$SL/slurmd.bgpid"
	for _ in $(seq "$BOUND"); do
		[ "$(sinfo -h -N -o %t 2>/dev/null)" = idle ] && return 0
		kill -0 "$(cat "$SL/slurmd.bgpid")" 2>/dev/null ||
			skip "slurmd cannot run here: $(tail -n 1 "$SL/log/slurmd.log" 2>/dev/null || tail -n 1 "$SL/log/slurmd.out")"
		kill -0 "$(cat "$SL/slurmctld.bgpid")" 2>/dev/null ||
			skip "slurmctld cannot run here: $(tail -n 1 "$SL/log/slurmctld.log" 2>/dev/null)"
		sleep 1
	done
	skip "the private Slurm's node never came up idle: $(sinfo -h -N -o '%t %E' 2>&1)"
}

teardown() {
	local f
	[ -n "${SL:-}" ] || return 0
	for f in slurmd.bgpid slurmctld.bgpid munge/run/munged.pid; do
		[ -s "$SL/$f" ] && kill "$(cat "$SL/$f")" 2>/dev/null || :
	done
	sleep 1
	for f in slurmd.bgpid slurmctld.bgpid munge/run/munged.pid; do
		[ -s "$SL/$f" ] && kill -KILL "$(cat "$SL/$f")" 2>/dev/null || :
	done
	# the cgroups this Slurm made, deepest first (cgroupfs holds no
	# links, and find follows none)
	for f in ${SLURM_CG_NEW[@]+"${SLURM_CG_NEW[@]}"}; do
		[ -d "$f" ] && find "$f" -depth -type d -exec rmdir {} + 2>/dev/null || :
	done
	rm -rf "$SL"
}

# job_wait ID: the job's final state on stdout, within the bound.
job_wait() {
	local st
	for _ in $(seq "$BOUND"); do
		st=$(scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
		case "$st" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY)
			echo "$st"
			return 0 ;;
		esac
		sleep 1
	done
	echo "still ${st:-unknown} after $BOUND s"
}

@test "sbatch membench.sbatch: one build, the settings held on the node and restored, one results directory with the cluster table" {
	local jid st dir thp_before
	harness_setup
	slurm_start
	export MPICC=mpicc.openmpi OMP_NUM_THREADS=1
	thp_before=$(cat "$MEMBENCH_SYSFS/kernel/mm/transparent_hugepage/enabled")
	# bench reads its cgroup through the fake machine's /proc: there,
	# the real one of whichever process reads it
	ln -s /proc/self "$MEMBENCH_PROCFS/self"
	# a job's box, as a cluster's scheduler makes it: --mem and
	# --cpus-per-task (the build inside takes about 280 MB)
	jid=$(sbatch --parsable -N1 --ntasks-per-node=2 --cpus-per-task=1 --mem=900M \
		--output="$SL/job.out" \
		--chdir="$MEMBENCH_ROOT" "$MEMBENCH_ROOT/harness/slurm/membench.sbatch" \
		--label slurmtest --thp always --cflags '-O0 -fopenmp' -- -s 100000 -n 3)
	st=$(job_wait "$jid")
	cat "$SL/job.out"
	[ "$st" = COMPLETED ]
	dir=$(find "$MEMBENCH_RESULTS/cluster" -mindepth 1 -maxdepth 1 -type d -name "*-slurmtest-job$jid")
	[ -n "$dir" ]
	[ -d "$dir" ]
	# one table from rank 0, in the job's output and in the directory
	[ "$(grep -c '^Node  *Ranks' "$SL/job.out")" -eq 1 ]
	grep -qx 'validation passed on every rank' "$dir/cluster.txt"
	grep -q '^Triad: ' "$dir/cluster.txt"
	jq -e --arg h "$(hostname)" '.cluster.ranks == 2 and
		[.cluster.nodes[].host] == [$h] and .cluster.valid' "$dir/cluster.json"
	# built once, by the wrapper and with the flags asked for (-O0: an
	# -O3 build costs 7 s of CPU, and the optimiser is not what is
	# checked), and that binary ran
	grep -qx 'build: mpicc.openmpi -O0 -fopenmp -DBENCH_MPI' "$dir/provenance.txt"
	[ -x "$dir/bench-mpi" ]
	jq -e '.build.cflags == "mpicc.openmpi -O0 -fopenmp -DBENCH_MPI"' "$dir/cluster.json"
	# the node held THP always during the run, and has it back
	grep -qx "setting: thp: always (was madvise), verified" "$dir/nodes/$(hostname -s).settings"
	[ -e "$dir/nodes/$(hostname -s).restored" ]
	[ "$(cat "$MEMBENCH_SYSFS/kernel/mm/transparent_hugepage/enabled")" = "madvise" ]
	[ -n "$thp_before" ]
	grep -qx 'bench-mpi exit status: 0' "$dir/provenance.txt"
	# each node's limits, as bench-mpi read them there: Slurm's cgroup
	# holds the job to its --mem where the plugin runs; the cpuset (one
	# CPU a task) is the affinity bench reads as always, not a quota
	if [ "$SLURM_CGROUPS" = 1 ]; then
		jq -e '.cluster.nodes[0] | .memory_limit_bytes == 943718400 and .cpu_quota_cpus == null
			and .limits_differ == false' "$dir/cluster.json"
		grep -qx "limits on $(hostname): memory limit 943718400 bytes, CPU quota none" "$dir/provenance.txt"
		grep -qx 'Limits: memory limit 900 MiB, CPU quota none' "$dir/cluster.txt"
	else
		echo "# no cgroup v1 memory, cpuset and freezer here: Slurm ran without its cgroup plugin" >&3
		grep -qx "limits on $(hostname): memory limit none, CPU quota none" "$dir/provenance.txt"
	fi
	# harness/report renders the batch job's directory as it is: the
	# node table is the JSON's node, and the results root indexes the run
	run "$MEMBENCH_ROOT/harness/report" --format csv --no-plots -o "$SL/report" "$dir"
	assert_success
	[ "$(awk -F, 'NR == 2 { print $1 "," $2 }' "$SL/report/report-nodes.csv")" = \
		"$(jq -r '.cluster.nodes[0] | "\(.host),\(.ranks)"' "$dir/cluster.json")" ]
	[ "$(awk -F, 'NR == 2 { print $7 }' "$SL/report/report-nodes.csv")" = \
		"$(jq -r '.cluster.nodes[0].rates_mbs.triad | tostring' "$dir/cluster.json")" ]
	run "$MEMBENCH_ROOT/harness/report" --format md --no-plots -o "$SL/index" "$MEMBENCH_RESULTS"
	assert_success
	grep -q "$(basename "$dir")" "$SL/index/"*.md
}

@test "sbatch membench.sbatch: a node whose settings fail (--required) ends the job naming it, and nothing is left changed" {
	local jid st dir
	harness_setup
	slurm_start
	export MPICC=mpicc.openmpi OMP_NUM_THREADS=1
	# a kernel that reserves fewer huge pages than asked
	make_short_pool_writer "$BATS_TEST_TMPDIR/writer"
	export MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/writer FAKE_POOL_LIMIT=3
	jid=$(sbatch --parsable -N1 --ntasks-per-node=1 --output="$SL/job.out" \
		--chdir="$MEMBENCH_ROOT" "$MEMBENCH_ROOT/harness/slurm/membench.sbatch" \
		--label short --required --thp always --hugepages 64 --setup-timeout 60 --cflags -O0 -- -s 100000 -n 3)
	st=$(job_wait "$jid")
	cat "$SL/job.out"
	[ "$st" = FAILED ]
	grep -q "membench.sbatch: the settings did not take on every node (ready: none of 1" "$SL/job.out"
	grep -q "node-settings: .*huge" "$SL/job.out"
	dir=$(find "$MEMBENCH_RESULTS/cluster" -mindepth 1 -maxdepth 1 -type d -name "*-short-job$jid")
	[ ! -e "$dir/cluster.txt" ]
	[ "$(cat "$MEMBENCH_SYSFS/kernel/mm/transparent_hugepage/enabled")" = "madvise" ]
	[ "$(cat "$MEMBENCH_PROCFS/sys/vm/nr_hugepages")" = 0 ]
}

@test "membench.sbatch and node-settings refuse bad input and runs outside Slurm, one line, exit 2" {
	harness_setup
	unset SLURM_JOB_ID
	run --separate-stderr env MEMBENCH_SRC="$MEMBENCH_ROOT" \
		"$MEMBENCH_ROOT/harness/slurm/membench.sbatch" -- -s 100000
	assert_failure 2
	assert_equal "$stderr" "membench.sbatch: not inside a Slurm job: submit this script with sbatch"
	run --separate-stderr env SLURM_JOB_ID=1 MEMBENCH_SRC="$MEMBENCH_ROOT" \
		"$MEMBENCH_ROOT/harness/slurm/membench.sbatch" --launch ssh
	assert_failure 2
	assert_equal "$stderr" "membench.sbatch: --launch wants srun or mpirun, not 'ssh'"
	run --separate-stderr env SLURM_JOB_ID=1 MEMBENCH_SRC="$MEMBENCH_ROOT" \
		"$MEMBENCH_ROOT/harness/slurm/membench.sbatch" --cflags ' '
	assert_failure 2
	assert_equal "$stderr" "membench.sbatch: --cflags wants the compiler's flags, not ' '"
	run --separate-stderr env SLURM_JOB_ID=1 MEMBENCH_SRC="$MEMBENCH_ROOT" \
		"$MEMBENCH_ROOT/harness/slurm/membench.sbatch" --cflags
	assert_failure 2
	assert_equal "$stderr" "membench.sbatch: --cflags wants the compiler's flags, not ''"
	run --separate-stderr env SLURM_JOB_ID=1 MEMBENCH_SRC="$MEMBENCH_ROOT" \
		"$MEMBENCH_ROOT/harness/slurm/membench.sbatch" -- --json
	assert_failure 2
	[[ "$stderr" == "membench.sbatch: bench-mpi's JSON goes to cluster.json"* ]]
	run --separate-stderr env MEMBENCH_SRC=/nonexistent \
		"$MEMBENCH_ROOT/harness/slurm/membench.sbatch"
	assert_failure 2
	[[ "$stderr" == "membench.sbatch: no membench tree at '/nonexistent'"* ]]
	run --separate-stderr "$MEMBENCH_ROOT/harness/slurm/node-settings" --thp always
	assert_failure 2
	assert_equal "$stderr" "node-settings: --run-dir is required"
	mkdir -p "$BATS_TEST_TMPDIR/run/nodes"
	run --separate-stderr "$MEMBENCH_ROOT/harness/slurm/node-settings" \
		--run-dir "$BATS_TEST_TMPDIR/run" -- -s 5
	assert_failure 2
	[[ "$stderr" == "node-settings: bench arguments do not belong here"* ]]
}

@test "shellcheck: the Slurm scripts" {
	need shellcheck
	cd "$MEMBENCH_ROOT"
	run shellcheck -x harness/slurm/membench.sbatch harness/slurm/node-settings
	assert_success
}
