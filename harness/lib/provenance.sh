# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/provenance.sh: what the run was and what the machine is: the theoretical peak, the state captures and provenance.txt
# Needs: messages.sh, options.sh, knobs.sh (SETTINGS), topology.sh, binding.sh, resultsdir.sh.  Sourced after them, never run.

PEAK_MBS='' PEAK_NOTE=''
STATE_BEFORE=''      # capture_state before anything changed (session_open)

# ------------------------------------------------------- peak bandwidth
setup_peak() {
	local dmi speed width populated
	if [ -n "$PEAK_MTS" ]; then
		[ -n "$PEAK_CHANNELS" ] || die "--peak-mts needs --channels (memory channels per socket)"
		if [ -z "$PEAK_SOCKETS" ]; then
			PEAK_SOCKETS=$(count_packages)
			PEAK_NOTE="sockets: $PEAK_SOCKETS, counted from sysfs topology; "
		fi
		PEAK_NOTE="$PEAK_NOTE$PEAK_MTS MT/s x $PEAK_BUS_BITS bit / 8 x $PEAK_CHANNELS channels x $PEAK_SOCKETS sockets (given)"
	elif is_root && have dmidecode && dmi=$(dmidecode -t memory 2>/dev/null) && [ -n "$dmi" ]; then
		speed=$(printf '%s\n' "$dmi" | sed -n 's/^[[:space:]]*Configured \(Memory\|Clock\) Speed: \([0-9][0-9]*\) MT\/s.*/\2/p' | sort -n | head -n1)
		[ -n "$speed" ] || speed=$(printf '%s\n' "$dmi" | sed -n 's/^[[:space:]]*Speed: \([0-9][0-9]*\) MT\/s.*/\1/p' | sort -n | head -n1)
		width=$(printf '%s\n' "$dmi" | sed -n 's/^[[:space:]]*Data Width: \([0-9][0-9]*\) bits.*/\1/p' | sort -n | head -n1)
		populated=$(printf '%s\n' "$dmi" | grep -Ec '^[[:space:]]*Size: [0-9]+ [KMGT]B' || true)
		if [ -z "$speed" ] || [ "$populated" -eq 0 ]; then
			PEAK_NOTE='no theoretical peak: dmidecode gave no memory speed (pass --peak-mts and --channels)'
			return 0
		fi
		PEAK_MTS=$speed
		[ -n "$width" ] && [ "$PEAK_BUS_BITS" = 64 ] && PEAK_BUS_BITS=$width
		[ -n "$PEAK_SOCKETS" ] || PEAK_SOCKETS=$(count_packages)
		if [ -z "$PEAK_CHANNELS" ]; then
			PEAK_CHANNELS=$(((populated + PEAK_SOCKETS - 1) / PEAK_SOCKETS))
			PEAK_NOTE="channels ASSUMED one per populated DIMM ($populated DIMMs over $PEAK_SOCKETS sockets; pass --channels if wrong); "
		fi
		PEAK_NOTE="$PEAK_NOTE$PEAK_MTS MT/s x $PEAK_BUS_BITS bit / 8 x $PEAK_CHANNELS channels x $PEAK_SOCKETS sockets (dmidecode)"
	else
		if ! is_root; then PEAK_NOTE='no theoretical peak: not root, so dmidecode was not read (pass --peak-mts and --channels)'
		elif ! have dmidecode; then PEAK_NOTE='no theoretical peak: dmidecode not installed (pass --peak-mts and --channels)'
		else PEAK_NOTE='no theoretical peak: dmidecode -t memory gave nothing (pass --peak-mts and --channels)'; fi
		return 0
	fi
	PEAK_MBS=$(awk -v m="$PEAK_MTS" -v b="$PEAK_BUS_BITS" -v c="$PEAK_CHANNELS" -v s="$PEAK_SOCKETS" \
		'BEGIN { printf "%.1f", m * b / 8 * c * s }')
	PEAK_NOTE="$PEAK_NOTE = $PEAK_MBS MB/s"
}

# ------------------------------------------------------- state capture
# state_line FILE: FILE's first line in STATE_LINE, n/a when it cannot be
# read (read by the shell itself: capture_state runs at every step).
state_line() {
	STATE_LINE='n/a'
	[ -r "$1" ] && [ ! -d "$1" ] || return 0
	STATE_LINE=''
	IFS= read -r STATE_LINE 2>/dev/null <"$1" || true
}

capture_state() {
	local - d f line
	set +f # run-matrix reads its matrix with globbing off; this needs it
	state_line "$THP_FILE"
	printf 'thp enabled: %s\n' "$STATE_LINE"
	state_line "$THP_DEFRAG_FILE"
	printf 'thp defrag: %s\n' "$STATE_LINE"
	state_line "$NR_HUGEPAGES_FILE"
	printf 'nr_hugepages: %s\n' "$STATE_LINE"
	if [ -r "$PROCFS/meminfo" ]; then
		while IFS= read -r line || [ -n "$line" ]; do
			case $line in
			HugePages_* | Hugepagesize* | AnonHugePages* | ShmemHugePages*) printf '%s\n' "$line" ;;
			esac
		done <"$PROCFS/meminfo"
	fi
	# every size the kernel offers: meminfo's lines are the default size's
	# alone, and a 1 GiB pool is its own
	for d in "$HUGEPAGES_DIR"/hugepages-*kB; do
		for f in "$d/nr_hugepages" "$d/free_hugepages"; do
			[ -r "$f" ] || continue
			state_line "$f"
			printf '%s: %s\n' "${f#"$SYSFS"/}" "$STATE_LINE"
		done
	done
	return 0
}

cpufreq_state() {
	local cpu d k line
	for cpu in $(online_cpus); do
		d=$CPU_DIR/cpu$cpu/cpufreq
		if [ ! -d "$d" ]; then
			printf 'cpu%s: no cpufreq\n' "$cpu"
			continue
		fi
		line="cpu$cpu:"
		for k in scaling_driver scaling_governor scaling_cur_freq scaling_min_freq scaling_max_freq cpuinfo_min_freq cpuinfo_max_freq; do
			[ -r "$d/$k" ] && line="$line $k=$(knob_current "$d/$k")"
		done
		printf '%s\n' "$line"
	done
	for k in intel_pstate/no_turbo cpufreq/boost; do
		[ -r "$CPU_DIR/$k" ] && printf '%s: %s\n' "$k" "$(knob_current "$CPU_DIR/$k")"
	done
	return 0
}

# run_or_note TITLE CMD...: a provenance section from a tool that may be absent.
run_or_note() {
	local title=$1
	shift
	printf '\n## %s\n' "$title"
	if have "$1"; then
		"$@" 2>&1 || printf '(%s exited %s)\n' "$1" "$?"
	else
		printf '%s not installed: skipped\n' "$1"
	fi
}

# provenance_bench: the bench binary's part of provenance.txt.  A command
# that builds a bench per cell (run-matrix) defines its own after sourcing.
provenance_bench() {
	printf '\n## bench binary\n%s\n' "$BENCH"
	sha256sum "$BENCH" 2>&1 || true
	"$BENCH" --version 2>&1 | head -n 5 || true
	printf '\n## build (bench info --json: .build; compiler line is .cflags)\n'
	printf '%s\n' "$BUILD_JSON" | jq . 2>/dev/null || printf '%s\n' "$BUILD_JSON"
	printf '\n## OpenMP runtime\n%s (from %s)\n' "$RUNTIME" "$RUNTIME_HOW"
}

write_provenance() {
	{
		printf '# membench harness provenance\n'
		printf '\n## command\n'
		printf '%q ' "$0" "${ORIG_ARGS[@]}"
		printf '\n(run in %s)\n' "$PWD"
		printf '\n## date (UTC)\n%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		printf '\n## membench release (BENCH_VERSION in bench.c)\n%s\n' "$MEMBENCH_VERSION"
		printf '\n## membench version (git describe --always --dirty)\n'
		git -C "$REPO_ROOT" describe --always --dirty 2>&1 || true
		printf '\n## sha256 of bench.c\n'
		if [ -r "$REPO_ROOT/bench.c" ]; then sha256sum "$REPO_ROOT/bench.c"; else echo "bench.c not found in $REPO_ROOT"; fi
		provenance_bench
		printf '\n## OMP_*, GOMP_*, KMP_* for bench (sweeps that change them: see step-*.json .env)\n'
		omp_env_for_bench
		printf '\n## settings\n'
		[ ${#SETTINGS[@]} -eq 0 ] || printf -- '- %s\n' "${SETTINGS[@]}"
		printf '\n## limits (bench info --json: .system.memory_limit, .system.cpu_quota)\n'
		printf '%s' "$SYSTEM_JSON" | jq -r 'if type != "object" then "bench info gave none"
			else "memory limit: \((.memory_limit | objects | "\(.bytes) bytes (\(.source))") // "none")",
			     "CPU quota: \((.cpu_quota | objects | "\(.cpus) CPUs (\(.source))") // "none")",
			     "not read: \(.limits_unread // "nothing")" end' 2>/dev/null || echo 'bench info gave none'
		printf '\n## cgroup (/proc/self/cgroup)\n'
		cat "$PROCFS/self/cgroup" 2>&1 || true
		printf '\n## numactl\n%s\n' "${OPT_NUMA:-not used}"
		printf '\n## theoretical peak\n%s\n' "$PEAK_NOTE"
		printf '\n## kernel command line\n'
		cat "$PROCFS/cmdline" 2>&1 || true
		printf '\n## THP and huge pages before the run\n%s\n' "$STATE_BEFORE"
		printf '\n## THP and huge pages during the run (per step: step-*.json .state_during)\n'
		capture_state
		printf '\n## SMT\n%s\n' "$(cat "$SMT_FILE" 2>/dev/null || echo "no $SMT_FILE")"
		printf '\n## cpufreq per CPU\n'
		cpufreq_state
		run_or_note 'cpupower frequency-info' cpupower frequency-info
		run_or_note 'lscpu' lscpu
		run_or_note 'numactl -H' numactl -H
		run_or_note 'hugeadm --pool-list' hugeadm --pool-list
	} | atomic_write "$RESULTS_DIR/provenance.txt"
}
