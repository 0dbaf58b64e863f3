# shellcheck shell=bash
# shellcheck disable=SC2034 # options and results are read by the scripts that source this
# harness/lib.sh: what every membench harness shares.  Sourced, never run.
#
# A harness session goes: parse options -> session_begin (save machine state,
# trap restore, apply settings, verify them, open the results directory and
# write the provenance) -> step_run once per measurement -> session_end.
# Every change to the machine goes through one apply_* function that saves the
# old value first, so restore_all (run from the EXIT/INT/TERM traps) can put
# it back whatever happens in between.
#
# Every command that measures also takes the membench lock (take_lock), so
# two of them never run at once, and names its results directory with
# make_results_dir; every command prints --help from its own usage function
# and --version from the one version string, bench.c's BENCH_VERSION.
#
# Environment (mostly for tests):
#   MEMBENCH_SYSFS   sysfs root (default /sys)
#   MEMBENCH_PROCFS  procfs root (default /proc)
#   MEMBENCH_BENCH   bench binary (default <repo>/bench)
#   MEMBENCH_RESULTS results root (default <repo>/results)
#   MEMBENCH_UID     pretend to be this uid (tests of the non-root path)
#   MEMBENCH_LOCK_DIR  directory that holds the lock (default: see lock_dir)
#   MEMBENCH_KNOB_WRITER  command run as `CMD PATH VALUE` instead of writing a
#                    knob directly; tests use it to act like a kernel that
#                    reserves fewer huge pages than asked.

SYSFS=${MEMBENCH_SYSFS:-/sys}
PROCFS=${MEMBENCH_PROCFS:-/proc}
CPU_DIR=$SYSFS/devices/system/cpu
THP_FILE=$SYSFS/kernel/mm/transparent_hugepage/enabled
THP_DEFRAG_FILE=$SYSFS/kernel/mm/transparent_hugepage/defrag
NR_HUGEPAGES_FILE=$PROCFS/sys/vm/nr_hugepages
SMT_FILE=$CPU_DIR/smt/control

HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$HARNESS_DIR/.." && pwd)
PROG=${0##*/}
# The one version string is bench's own; configure's is for tarball names.
MEMBENCH_VERSION=$(sed -n 's/^#define BENCH_VERSION "\([^"]*\)".*/\1/p' "$REPO_ROOT/bench.c" 2>/dev/null)
MEMBENCH_VERSION=${MEMBENCH_VERSION:-unknown}
# The results layout, its records and its statistics: one owner.
# shellcheck source=harness/results.sh
. "$HARNESS_DIR/results.sh"

# ---------------------------------------------------------------- options
OPT_GOVERNOR='' OPT_FREQ='' OPT_TURBO='' OPT_BIND='' OPT_NUMA='' OPT_THP=''
OPT_HUGEPAGES='' OPT_SMT='' OPT_PREFETCH='' OPT_LABEL='' OPT_RUNTIME=''
DRY_RUN=0 REQUIRED=0 WAIT_LOCK=0 OPT_PROGRESS=0
PEAK_MTS='' PEAK_CHANNELS='' PEAK_SOCKETS='' PEAK_BUS_BITS=64
RESULTS_ROOT=${MEMBENCH_RESULTS:-$REPO_ROOT/results}
BENCH=${MEMBENCH_BENCH:-$REPO_ROOT/bench}
BENCH_ARGS=()
ORIG_ARGS=()

# Session state.
SETTINGS=()          # one line per setting: applied, skipped or failed
PENDING_PROBLEMS=''  # settings that failed since the last step, for its status
WARNINGS=()
RESTORE_KIND=() RESTORE_TARGET=() RESTORE_VALUE=()
BIND_ENV=()          # NAME=VALUE pairs given to bench
CURRENT_BIND=''
BIND_KIND=none       # none | exact | omp-spread: how to check placement
PLACES=()            # CPUs the threads should land on, in order
RUNTIME=unknown RUNTIME_HOW=''
NUMA_ARGV=()
PEAK_MBS='' PEAK_NOTE=''
RESULTS_DIR='' STEP=0 FAILED_STEPS=0 INTERRUPTED=0
STATE_BEFORE=''
BUILD_JSON='null'
PROGRESS_N=0 PROGRESS_W_TOTAL=0 PROGRESS_W_DONE=0 PROGRESS_T0=0

note() { printf '%s: %s\n' "$PROG" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; WARNINGS+=("$*"); }
# Bad input or a refused requirement: one line, exit 2 (traps restore).
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 2; }
# What --dry-run would do goes to stdout, so it can be read or diffed.
plan() { printf 'dry-run: %s\n' "$*"; }

is_uint() { case "$1" in ''|*[!0-9]*) return 1 ;; *) return 0 ;; esac; }
is_number() { printf '%s' "$1" | grep -Eq '^[0-9]+([.][0-9]+)?$'; }
is_posint() { is_uint "$1" && [ "$1" -gt 0 ]; }
is_root() { [ "${MEMBENCH_UID:-$(id -u)}" = 0 ]; }
have() { command -v "$1" >/dev/null 2>&1; }

# check_component WHAT VALUE: VALUE becomes one path component (a results
# directory name): letters, digits, '.', '_' and '-', not starting with '.'
# or '-', at most 64 characters, one line.  Refuse anything else, in one
# line (%q shows a newline or a quote without breaking it).  The whole
# string must match: [[ =~ ]] anchors at the ends of the string, not of
# each line as grep does.
COMPONENT_MAX=64
is_component() {
	[[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]] && [ ${#1} -le "$COMPONENT_MAX" ]
}
check_component() {
	is_component "$2" ||
		die "$1 must be one path component of at most $COMPONENT_MAX letters, digits, '.', '_' or '-', not starting with '.' or '-'; not $(printf '%q' "$2")"
}

print_version() { printf '%s (membench) %s\n' "$PROG" "$MEMBENCH_VERSION"; }

# The options every membench command takes, in its own usage text too.
std_usage() {
	cat <<'EOF'
  --results DIR       results root (default <repo>/results)
  --wait-lock         wait for another membench command to finish instead
                      of refusing to start while it holds the lock
  --progress          print "step 3 of 14, about 2 min left" lines on stderr
                      even when it is not a terminal (on a terminal: always)
  -h, --help          this text
  --version           print the membench version
EOF
}

# parse_std_opt ARGS...: consume one option every command takes, set
# CONSUMED; return 1 when ARGS starts with something else.
parse_std_opt() {
	case "$1" in
	-h|--help) usage; exit 0 ;;
	--version) print_version; exit 0 ;;
	--wait-lock) WAIT_LOCK=1; CONSUMED=1 ;;
	--progress) OPT_PROGRESS=1; CONSUMED=1 ;;
	--results) [ $# -ge 2 ] || die "option $1 needs a value"
		# An empty root would put results/<host>/ under the filesystem root.
		[ -n "$2" ] || die "--results needs a directory, not an empty string"
		RESULTS_ROOT=$2; CONSUMED=2 ;;
	*) return 1 ;;
	esac
}

common_usage() {
	cat <<'EOF'
Machine settings (each one is saved, applied, verified, recorded and restored):
  --governor G        cpufreq governor on every CPU (e.g. performance)
  --freq MHZ          pin every CPU to MHZ (userspace governor, or min=max)
  --turbo on|off      intel_pstate no_turbo, or cpufreq boost
  --bind none|close|spread|LIST
                      OpenMP thread binding, translated for the runtime bench
                      was built with; LIST is CPUs like 0,2,4-7 (thread i on
                      the i-th CPU).  Checked afterwards against bench's
                      per-thread CPU report.
  --numa 'ARGS'       run bench under `numactl ARGS`
  --thp always|madvise|never   transparent huge pages
  --hugepages N       reserve N default-size huge pages (count is verified)
  --smt on|off        SMT control (sysfs smt/control, or ppc64_cpu)
  --prefetch off      hardware prefetch off where the platform allows it
  --required          stop (exit 2) when a setting cannot be applied, instead
                      of skipping it with a note
Run:
  --label NAME        results go to results/<host>/<UTC stamp>-NAME/
  --bench PATH        bench binary (default <repo>/bench)
  --omp-runtime libgomp|libomp|libiomp5|none   skip runtime detection
  --dry-run           print every change and command; change and run nothing
Theoretical peak (each result is also shown as a percentage of it):
  --peak-mts MT/S --channels N [--sockets S] [--bus-bits 64]
                      peak MB/s = MT/s * bus_bits/8 * channels * sockets;
                      without them, `dmidecode -t memory` is read when root
  --                  everything after it goes to bench unchanged
EOF
	std_usage
}

# parse_common_opt ARGS...: consume one common option, set CONSUMED.
# Returns 1 on "--" (the caller then takes the rest as bench arguments).
CONSUMED=0
parse_common_opt() {
	local opt=$1
	! parse_std_opt "$@" || return 0
	CONSUMED=2
	case "$opt" in
	--governor|--freq|--turbo|--bind|--numa|--thp|--hugepages|--smt|--prefetch|\
	--label|--bench|--omp-runtime|--peak-mts|--channels|--sockets|--bus-bits)
		[ $# -ge 2 ] || die "option $opt needs a value"
		;;
	esac
	case "$opt" in
	--governor) OPT_GOVERNOR=$2 ;;
	--freq) is_posint "$2" || die "--freq wants MHz as a whole number, not '$2'"
		OPT_FREQ=$2 ;;
	--turbo) case "$2" in on|off) OPT_TURBO=$2 ;; *) die "--turbo wants on or off, not '$2'" ;; esac ;;
	--bind) check_bind_spec "$2"; OPT_BIND=$2 ;;
	--numa) OPT_NUMA=$2 ;;
	--thp) case "$2" in always|madvise|never) OPT_THP=$2 ;;
		*) die "--thp wants always, madvise or never, not '$2'" ;; esac ;;
	--hugepages) is_uint "$2" || die "--hugepages wants a page count, not '$2'"
		OPT_HUGEPAGES=$2 ;;
	--smt) case "$2" in on|off) OPT_SMT=$2 ;; *) die "--smt wants on or off, not '$2'" ;; esac ;;
	--prefetch) case "$2" in on|off) OPT_PREFETCH=$2 ;;
		*) die "--prefetch wants off (or on, the default), not '$2'" ;; esac ;;
	--label) check_component --label "$2"; OPT_LABEL=$2 ;;
	--bench) BENCH=$2 ;;
	--omp-runtime) case "$2" in libgomp|libomp|libiomp5|none) OPT_RUNTIME=$2 ;;
		*) die "--omp-runtime wants libgomp, libomp, libiomp5 or none, not '$2'" ;; esac ;;
	--peak-mts) is_number "$2" || die "--peak-mts wants MT/s, not '$2'"; PEAK_MTS=$2 ;;
	--channels) is_posint "$2" || die "--channels wants a count, not '$2'"
		PEAK_CHANNELS=$2 ;;
	--sockets) is_posint "$2" || die "--sockets wants a count, not '$2'"
		PEAK_SOCKETS=$2 ;;
	--bus-bits) is_posint "$2" || die "--bus-bits wants bits, not '$2'"
		PEAK_BUS_BITS=$2 ;;
	--dry-run) DRY_RUN=1; CONSUMED=1 ;;
	--required) REQUIRED=1; CONSUMED=1 ;;
	--) CONSUMED=1; return 1 ;;
	*) die "unknown option '$opt' (see --help)" ;;
	esac
	return 0
}

# ---------------------------------------------------------------- knobs
# knob_current FILE: the value a knob holds now; for files that list choices
# ("always [madvise] never") the bracketed one.
knob_current() {
	local line=''
	IFS= read -r line <"$1" || true
	case "$line" in
	*'['*']'*) line=${line#*[}; line=${line%%]*} ;;
	esac
	printf '%s' "$line"
}

knob_write() {
	if [ -n "${MEMBENCH_KNOB_WRITER:-}" ]; then
		"$MEMBENCH_KNOB_WRITER" "$1" "$2"
	else
		printf '%s\n' "$2" >"$1"
	fi
}

# save_for_restore KIND TARGET VALUE: remember the first value we saw.
save_for_restore() {
	local i
	for i in "${!RESTORE_TARGET[@]}"; do
		[ "${RESTORE_KIND[$i]}" = "$1" ] && [ "${RESTORE_TARGET[$i]}" = "$2" ] && return 0
	done
	RESTORE_KIND+=("$1") RESTORE_TARGET+=("$2") RESTORE_VALUE+=("$3")
	# On disk before the change, so a run killed with SIGKILL (or a power
	# cut) leaves the original for the next one.
	journal_write
}

# saved_value KIND TARGET: the value a knob had before we first touched it.
saved_value() {
	local i
	for i in "${!RESTORE_TARGET[@]}"; do
		if [ "${RESTORE_KIND[$i]}" = "$1" ] && [ "${RESTORE_TARGET[$i]}" = "$2" ]; then
			printf '%s' "${RESTORE_VALUE[$i]}"
			return 0
		fi
	done
	return 1
}

# write_freq_range DIR MIN MAX: set a cpufreq policy's scaling_min_freq and
# scaling_max_freq (kHz).  Order matters, since the kernel refuses min > max
# at every moment: raise max before min, lower min before max.  Callers
# read the result back to verify it.
write_freq_range() {
	local dir=$1 min=$2 max=$3
	if [ "$min" -gt "$(knob_current "$dir/scaling_max_freq")" ]; then
		knob_write "$dir/scaling_max_freq" "$max" 2>/dev/null || true
		knob_write "$dir/scaling_min_freq" "$min" 2>/dev/null || true
	else
		knob_write "$dir/scaling_min_freq" "$min" 2>/dev/null || true
		knob_write "$dir/scaling_max_freq" "$max" 2>/dev/null || true
	fi
}

# restore_all: undo every change, newest first.  Safe to call twice.
# What could not be put back stays in RESTORE_* and in the journal, and
# sets RESTORE_FAILED.
RESTORE_FAILED=0
restore_all() {
	local i kind target value now min max fk=() ft=() fv=() failed
	for ((i = ${#RESTORE_KIND[@]} - 1; i >= 0; i--)); do
		failed=0
		kind=${RESTORE_KIND[$i]} target=${RESTORE_TARGET[$i]} value=${RESTORE_VALUE[$i]}
		case "$kind" in
		file)
			knob_write "$target" "$value" 2>/dev/null || true
			now=$(knob_current "$target")
			if [ "$now" = "$value" ]; then
				note "restored $target to '$value'"
			else
				printf '%s: RESTORE FAILED: %s is %s, was %s\n' "$PROG" "$target" "$now" "$value" >&2
				failed=1
			fi
			;;
		minmax)
			min=${value% *} max=${value#* }
			write_freq_range "$target" "$min" "$max"
			now="$(knob_current "$target/scaling_min_freq") $(knob_current "$target/scaling_max_freq")"
			if [ "$now" = "$value" ]; then
				note "restored $target min/max to $value kHz"
			else
				printf '%s: RESTORE FAILED: %s min/max is %s, was %s\n' "$PROG" "$target" "$now" "$value" >&2
				failed=1
			fi
			;;
		mount)
			if umount "$target" 2>/dev/null && rmdir "$target"; then
				note "unmounted the hugetlbfs at $target"
			else
				printf '%s: RESTORE FAILED: could not unmount the hugetlbfs at %s\n' "$PROG" "$target" >&2
				failed=1
			fi
			;;
		ppc64_smt | ppc64_dscr)
			if ppc64_cpu "--${kind#ppc64_}=$value" >/dev/null 2>&1; then
				note "restored ppc64_cpu --${kind#ppc64_}=$value"
			else
				printf '%s: RESTORE FAILED: ppc64_cpu --%s=%s\n' "$PROG" "${kind#ppc64_}" "$value" >&2
				failed=1
			fi
			;;
		esac
		if [ "$failed" = 1 ]; then
			RESTORE_FAILED=1
			fk=("$kind" ${fk[@]+"${fk[@]}"}) ft=("$target" ${ft[@]+"${ft[@]}"}) fv=("$value" ${fv[@]+"${fv[@]}"})
		fi
	done
	RESTORE_KIND=(${fk[@]+"${fk[@]}"}) RESTORE_TARGET=(${ft[@]+"${ft[@]}"}) RESTORE_VALUE=(${fv[@]+"${fv[@]}"})
	journal_write
}

# ------------------------------------------------------- journal
# JOURNAL, a file in the lock directory, holds the original of every value
# this run changed: written before the first change and after each new one,
# removed once everything is back.  A run killed where no trap runs
# (SIGKILL, a power cut) leaves it; the next command that takes the lock
# (or harness/restore) reads it, says what was left changed, puts it back
# and removes that run's hidden temporary files, before it saves anything.
# Lines: "pid N: command", "results<TAB>DIR", then KIND<TAB>TARGET<TAB>VALUE.
JOURNAL='' RECOVERED=0
journal_write() {
	local i tmp
	[ -n "$JOURNAL" ] || return 0
	tmp=$(mktemp "${JOURNAL%/*}/.journal.XXXXXX") || die "cannot write the journal in ${JOURNAL%/*}"
	{
		printf 'pid %s: %s\n' "$$" "$PROG${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}" | tr -d '\t' | head -n 1
		[ -z "$RESULTS_DIR" ] || printf 'results\t%s\n' "$RESULTS_DIR"
		for i in "${!RESTORE_KIND[@]}"; do
			printf '%s\t%s\t%s\n' "${RESTORE_KIND[$i]}" "${RESTORE_TARGET[$i]}" "${RESTORE_VALUE[$i]}"
		done
	} >"$tmp" || { rm -f "$tmp"; die "cannot write the journal $JOURNAL"; }
	mv -f "$tmp" "$JOURNAL" || { rm -f "$tmp"; die "cannot write the journal $JOURNAL"; }
}

# journal_now KIND TARGET: what the machine holds now, as the journal
# records it.
journal_now() {
	case "$1" in
	file) knob_current "$2" ;;
	minmax) printf '%s %s' "$(knob_current "$2/scaling_min_freq")" "$(knob_current "$2/scaling_max_freq")" ;;
	mount) if [ -d "$2" ]; then printf 'mounted'; else printf ''; fi ;;
	*) printf '?' ;;
	esac
}

# recover_journal: a journal left by a run that did not finish its restore.
recover_journal() {
	local line holder='' results='' kind target value now changed=''
	[ -f "$JOURNAL" ] || return 0
	RECOVERED=1
	RESTORE_KIND=() RESTORE_TARGET=() RESTORE_VALUE=()
	while IFS= read -r line || [ -n "$line" ]; do
		case "$line" in
		'pid '*) holder=$line ;;
		results$'\t'*) results=${line#results$'\t'} ;;
		*$'\t'*$'\t'*)
			kind=${line%%$'\t'*} value=${line##*$'\t'} target=${line#*$'\t'} target=${target%$'\t'*}
			case "$kind" in file|minmax|mount|ppc64_smt|ppc64_dscr) ;; *) continue ;; esac
			RESTORE_KIND+=("$kind") RESTORE_TARGET+=("$target") RESTORE_VALUE+=("$value")
			now=$(journal_now "$kind" "$target")
			if [ "$kind" = mount ]; then
				[ "$now" != mounted ] || changed="$changed${changed:+, }hugetlbfs still mounted at $target"
			elif [ "$now" != "$value" ]; then
				changed="$changed${changed:+, }$target is '$now', was '$value'"
			fi
			;;
		esac
	done <"$JOURNAL"
	if [ -n "$changed" ]; then
		warn "a previous run (${holder:-unknown}) ended without restoring the machine and left changed: $changed; restoring it now from $JOURNAL"
	else
		note "a previous run (${holder:-unknown}) ended without finishing its restore; nothing it changed is left changed"
	fi
	restore_all
	if [ -n "$results" ] && [ -d "$results" ]; then
		rm -f "$results"/.*.tmp.* 2>/dev/null || true
		note "removed the temporary files it left in $results"
	fi
	[ "$RESTORE_FAILED" = 0 ] ||
		die "could not restore what a previous run left changed (see RESTORE FAILED above); the journal $JOURNAL keeps it: fix it by hand, then run harness/restore"
	rm -f "$JOURNAL"
}

record_setting() { SETTINGS+=("$1"); }

# not_applied NAME REASON: skip with a note, or refuse under --required.
not_applied() {
	if [ "$DRY_RUN" = 1 ]; then
		if [ "$REQUIRED" = 1 ]; then plan "$1: would refuse (--required): $2"
		else plan "$1: would skip: $2"; fi
		record_setting "$1: SKIPPED (dry run): $2"
		return 0
	fi
	[ "$REQUIRED" = 0 ] || die "$1: $2; refusing because of --required"
	note "$1: skipped: $2"
	record_setting "$1: SKIPPED: $2"
	PENDING_PROBLEMS="$PENDING_PROBLEMS; $1 skipped"
}

# not_verified NAME WHAT: the write went in but the machine shows otherwise.
not_verified() {
	[ "$REQUIRED" = 0 ] || die "$1: $2; refusing because of --required"
	warn "$1: NOT applied as asked: $2"
	record_setting "$1: NOT APPLIED AS ASKED: $2"
	PENDING_PROBLEMS="$PENDING_PROBLEMS; $1 NOT as asked"
}

# set_knob NAME FILE VALUE: save, write, verify one file.  Returns 1 when
# the value did not take (already reported).
set_knob() {
	local name=$1 file=$2 value=$3 old now
	old=$(knob_current "$file")
	if [ "$DRY_RUN" = 1 ]; then
		plan "$name: would write '$value' to $file (now '$old')"
		return 0
	fi
	save_for_restore file "$file" "$old"
	if ! knob_write "$file" "$value" 2>/dev/null; then
		not_verified "$name" "writing '$value' to $file failed"
		return 1
	fi
	now=$(knob_current "$file")
	if [ "$now" != "$value" ]; then
		not_verified "$name" "wrote '$value' to $file, it reads '$now'"
		return 1
	fi
	return 0
}

# ------------------------------------------------------- topology helpers
# expand_cpu_list "0-3,8": one CPU per line.
expand_cpu_list() {
	local part a b
	local IFS=,
	for part in $1; do
		case "$part" in
		*-*) a=${part%-*} b=${part#*-}
			is_uint "$a" && is_uint "$b" && [ "$a" -le "$b" ] || return 1
			seq "$a" "$b" ;;
		*) is_uint "$part" || return 1; printf '%s\n' "$part" ;;
		esac
	done
}

online_cpus() {
	local list
	if [ -r "$CPU_DIR/online" ]; then
		list=$(knob_current "$CPU_DIR/online")
	else
		list="0-$(($(getconf _NPROCESSORS_ONLN) - 1))"
	fi
	expand_cpu_list "$list"
}

ncpus_online() { online_cpus | wc -l; }

# topology_table: "cpu package core" per online CPU.
topology_table() {
	local cpu pkg core t
	for cpu in $(online_cpus); do
		t=$CPU_DIR/cpu$cpu/topology
		pkg=0 core=$cpu
		[ -r "$t/physical_package_id" ] && pkg=$(knob_current "$t/physical_package_id")
		[ -r "$t/core_id" ] && core=$(knob_current "$t/core_id")
		printf '%s %s %s\n' "$cpu" "$pkg" "$core"
	done
}

# compact_order: SMT siblings next to each other, cores of a package next.
compact_order() { topology_table | sort -k2,2n -k3,3n -k1,1n | awk '{print $1}'; }

# scatter_order: one thread per core, round robin over packages, and only
# then the second SMT thread of each core (Intel's "scatter").
scatter_order() {
	topology_table | sort -k2,2n -k3,3n -k1,1n | awk '
		NR == 1 || $2 != pkg { pkg = $2; rank = -1; newpkg = 1 }
		newpkg || $3 != core { core = $3; rank++; smt = 0; newpkg = 0; print smt, rank, $2, $1; next }
		{ smt++; print smt, rank, $2, $1 }' |
		sort -k1,1n -k2,2n -k3,3n | awk '{print $4}'
}

count_packages() { topology_table | awk '{print $2}' | sort -u | wc -l; }

check_bind_spec() {
	case "$1" in
	none|close|spread) return 0 ;;
	esac
	expand_cpu_list "$1" >/dev/null 2>&1 \
		|| die "--bind wants none, close, spread or a CPU list like 0,2,4-7, not '$1'"
}

# ------------------------------------------------------- OpenMP runtime
# detect_runtime: what bench itself says it was built with, else ldd.
detect_runtime() {
	local rt=''
	if [ -n "$OPT_RUNTIME" ]; then
		RUNTIME=$OPT_RUNTIME RUNTIME_HOW='--omp-runtime'
		return
	fi
	if [ "$BUILD_JSON" != null ]; then
		rt=$(printf '%s' "$BUILD_JSON" | jq -r '.openmp_runtime // empty' 2>/dev/null || true)
		case "$rt" in
		libgomp|libomp|libiomp5|none) RUNTIME=$rt RUNTIME_HOW='bench info --json'; return ;;
		esac
	fi
	if have ldd; then
		case "$(ldd "$BENCH" 2>/dev/null)" in
		*libgomp*) RUNTIME=libgomp ;;
		*libiomp5*) RUNTIME=libiomp5 ;;
		*libomp*) RUNTIME=libomp ;;
		*) RUNTIME=unknown ;;
		esac
		RUNTIME_HOW='ldd'
	else
		RUNTIME=unknown RUNTIME_HOW='no bench info and no ldd'
	fi
}

# The variables a binding preset replaces: anything the user had set is
# removed, so the preset is the whole story.
AFFINITY_VARS="OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY KMP_AFFINITY"

# bind_setup SPEC: fill BIND_ENV, PLACES and BIND_KIND for runtime RUNTIME.
#   libgomp: OMP_PROC_BIND + OMP_PLACES as an explicit list, and the same
#            list in GOMP_CPU_AFFINITY (read by libgomp when OMP_PLACES is not).
#   libomp / libiomp5: OMP_PROC_BIND + OMP_PLACES, and KMP_AFFINITY, which
#            those runtimes obey first (they print warning #182 saying so).
bind_setup() {
	local spec=$1 kmp='' order=() places='' cpu online
	BIND_ENV=() PLACES=() BIND_KIND=none CURRENT_BIND=$spec
	[ -n "$spec" ] || return 0
	case "$spec" in
	none)
		BIND_ENV=(OMP_PROC_BIND=false)
		case "$RUNTIME" in libomp|libiomp5) BIND_ENV+=(KMP_AFFINITY=none) ;; esac
		return 0
		;;
	close|spread)
		mapfile -t order < <(compact_order)
		;;
	*)
		mapfile -t order < <(expand_cpu_list "$spec")
		online=" $(online_cpus | tr '\n' ' ')"
		for cpu in "${order[@]}"; do
			case "$online" in *" $cpu "*) ;; *) die "--bind: CPU $cpu is not online" ;; esac
		done
		;;
	esac
	for cpu in "${order[@]}"; do places="$places${places:+,}{$cpu}"; done
	case "$spec" in
	close) BIND_ENV=(OMP_PROC_BIND=close "OMP_PLACES=$places") kmp=granularity=fine,compact ;;
	spread) BIND_ENV=(OMP_PROC_BIND=spread "OMP_PLACES=$places") kmp=granularity=fine,scatter ;;
	*) BIND_ENV=(OMP_PROC_BIND=close "OMP_PLACES=$places")
		kmp="granularity=fine,explicit,proclist=[$(printf '%s,' "${order[@]}" | sed 's/,$//')]" ;;
	esac
	PLACES=("${order[@]}") BIND_KIND=exact
	case "$RUNTIME" in
	libgomp)
		if [ "$spec" = spread ]; then
			BIND_ENV+=("GOMP_CPU_AFFINITY=$(scatter_order | tr '\n' ' ' | sed 's/ $//')")
			BIND_KIND=omp-spread
		else
			BIND_ENV+=("GOMP_CPU_AFFINITY=${order[*]}")
		fi
		;;
	libomp|libiomp5)
		BIND_ENV+=("KMP_AFFINITY=$kmp")
		if [ "$spec" = spread ]; then mapfile -t PLACES < <(scatter_order); fi
		;;
	*)
		if [ "$spec" = spread ]; then BIND_KIND=omp-spread; fi
		warn "OpenMP runtime '$RUNTIME' ($RUNTIME_HOW): only OMP_PROC_BIND/OMP_PLACES are set"
		;;
	esac
}

# expected_cpu I T R: where thread I of T should run when thread 0 runs on
# place R, or "" when the OpenMP rules leave it to the implementation (more
# threads than places, or an uneven spread).  The OpenMP runtime assigns
# places relative to the parent thread's place, and libgomp binds the
# initial thread to the place it happens to be running on, so the pattern
# may start at any place and wrap around: R is read from thread 0.
expected_cpu() {
	local i=$1 t=$2 r=$3 p=${#PLACES[@]}
	[ "$p" -gt 0 ] && [ "$t" -le "$p" ] || return 0
	case "$BIND_KIND" in
	exact) printf '%s' "${PLACES[$(((r + i) % p))]}" ;;
	omp-spread) [ $((p % t)) -eq 0 ] && printf '%s' "${PLACES[$(((r + i * p / t) % p))]}" ;;
	esac
	return 0
}

# place_index CPU: CPU's index in PLACES, or 0 when it is not there (the
# check then reports the thread outside the bound set).
place_index() {
	local k
	for k in "${!PLACES[@]}"; do
		[ "${PLACES[$k]}" != "$1" ] || { printf '%s' "$k"; return 0; }
	done
	printf 0
}

# verify_binding JSONFILE: compare .run.threads[].cpu with what the preset
# asks.  Sets BIND_VERIFIED (true|false|null), BIND_OBSERVED, BIND_NOTE.
verify_binding() {
	local json=$1 pairs=() pair i cpu t exp bad='' allowed load max moved rot
	BIND_VERIFIED=null BIND_OBSERVED='' BIND_NOTE=''
	mapfile -t pairs < <(jq -r '.run.threads[]? | "\(.thread) \(.cpu)"' "$json" 2>/dev/null)
	# bench samples each thread's CPU before and after the kernels: a bound
	# thread must not have moved.
	moved=$(jq -r '[.run.threads[]? | select(.cpu_end != null and .cpu_end != .cpu)
		| "thread \(.thread) moved from CPU \(.cpu) to \(.cpu_end);"] | join(" ")' "$json" 2>/dev/null || true)
	t=${#pairs[@]}
	for pair in "${pairs[@]}"; do BIND_OBSERVED="$BIND_OBSERVED${BIND_OBSERVED:+ }${pair% *}:${pair#* }"; done
	if [ "$BIND_KIND" = none ]; then
		BIND_NOTE='no binding asked'
		return 0
	fi
	if [ "$t" -eq 0 ]; then
		BIND_NOTE='bench reported no per-thread CPUs; binding not checked'
		return 0
	fi
	allowed=" ${PLACES[*]} "
	rot=$(place_index "${pairs[0]#* }")
	for pair in "${pairs[@]}"; do
		i=${pair% *} cpu=${pair#* }
		if ! is_uint "$cpu"; then
			BIND_NOTE="bench could not tell thread $i's CPU; binding not checked"
			return 0
		fi
		case "$allowed" in
		*" $cpu "*) ;;
		*) bad="$bad thread $i ran on CPU $cpu, outside the bound set;" ;;
		esac
		exp=$(expected_cpu "$i" "$t" "$rot")
		if [ -n "$exp" ] && [ "$exp" != "$cpu" ]; then
			bad="$bad thread $i ran on CPU $cpu, expected $exp;"
		fi
	done
	# With more threads than places, no place may hold more than its share.
	max=$(((t + ${#PLACES[@]} - 1) / ${#PLACES[@]}))
	load=$(printf '%s\n' "${pairs[@]}" | awk '{print $2}' | sort | uniq -c | awk -v m="$max" '$1 > m {print $2}' | tr '\n' ' ')
	[ -z "$load" ] || bad="$bad CPU(s) $load hold more than $max threads;"
	[ -z "$moved" ] || bad="$bad $moved"
	if [ -n "$bad" ]; then
		BIND_VERIFIED=false BIND_NOTE="binding did not take:${bad%;}"
	else
		BIND_VERIFIED=true BIND_NOTE='binding verified from bench per-thread CPUs'
	fi
}

# ------------------------------------------------------- settings
apply_smt() {
	local want=$1 cur
	if have ppc64_cpu; then
		cur=$(ppc64_cpu --smt 2>/dev/null | sed -n 's/^SMT=\([0-9]*\).*/\1/p; s/^SMT is \(on\|off\).*/\1/p' | head -n1)
		[ -n "$cur" ] || { not_applied smt "ppc64_cpu --smt did not report the current state"; return 0; }
		is_root || { not_applied smt "needs root (ppc64_cpu --smt=$want)"; return 0; }
		if [ "$DRY_RUN" = 1 ]; then plan "smt: would run ppc64_cpu --smt=$want (now $cur)"; return 0; fi
		save_for_restore ppc64_smt smt "$cur"
		ppc64_cpu --smt="$want" >/dev/null 2>&1 || { not_verified smt "ppc64_cpu --smt=$want failed"; return 0; }
		record_setting "smt: $want via ppc64_cpu (was $cur)"
		return 0
	fi
	[ -r "$SMT_FILE" ] || { not_applied smt "not available on this machine (no $SMT_FILE)"; return 0; }
	cur=$(knob_current "$SMT_FILE")
	case "$cur" in
	on|off) ;;
	*) not_applied smt "not available on this machine ($SMT_FILE says '$cur')"; return 0 ;;
	esac
	is_root || { not_applied smt "needs root (would write $want to $SMT_FILE)"; return 0; }
	set_knob smt "$SMT_FILE" "$want" && [ "$DRY_RUN" = 0 ] && record_setting "smt: $want (was $cur), verified"
	return 0
}

apply_prefetch() {
	local want=$1 cur
	[ "$want" = off ] || { record_setting "prefetch: left as the machine has it"; return 0; }
	if have ppc64_cpu; then
		# DSCR 1 = no hardware prefetch on POWER.
		cur=$(ppc64_cpu --dscr 2>/dev/null | sed -n 's/^DSCR is \([0-9]*\).*/\1/p' | head -n1)
		[ -n "$cur" ] || { not_applied prefetch "ppc64_cpu --dscr did not report the current value"; return 0; }
		is_root || { not_applied prefetch "needs root (ppc64_cpu --dscr=1)"; return 0; }
		if [ "$DRY_RUN" = 1 ]; then plan "prefetch: would run ppc64_cpu --dscr=1 (now $cur)"; return 0; fi
		save_for_restore ppc64_dscr dscr "$cur"
		ppc64_cpu --dscr=1 >/dev/null 2>&1 || { not_verified prefetch "ppc64_cpu --dscr=1 failed"; return 0; }
		record_setting "prefetch: off via ppc64_cpu --dscr=1 (was $cur)"
		return 0
	fi
	not_applied prefetch "not supported here: on x86 it needs an MSR tool and a documented prefetch MSR for this exact CPU model, and membench knows none"
}

# The cpufreq directories of all online CPUs, or nothing.
cpufreq_dirs() {
	local cpu
	for cpu in $(online_cpus); do
		[ -d "$CPU_DIR/cpu$cpu/cpufreq" ] && printf '%s\n' "$CPU_DIR/cpu$cpu/cpufreq"
	done
	return 0
}

no_cpufreq_reason() { printf 'not available on this machine (no cpufreq under %s/cpu*/cpufreq)' "$CPU_DIR"; }

apply_governor() {
	local g=$1 dirs=() d avail ok=1
	mapfile -t dirs < <(cpufreq_dirs)
	[ ${#dirs[@]} -gt 0 ] || { not_applied governor "$(no_cpufreq_reason)"; return 0; }
	avail=$(knob_current "${dirs[0]}/scaling_available_governors" 2>/dev/null || true)
	case " $avail " in
	*" $g "*) ;;
	*) not_applied governor "governor '$g' not offered here (available: ${avail:-unknown})"; return 0 ;;
	esac
	is_root || { not_applied governor "needs root (would set '$g' on ${#dirs[@]} CPUs)"; return 0; }
	for d in "${dirs[@]}"; do set_knob governor "$d/scaling_governor" "$g" || ok=0; done
	[ "$DRY_RUN" = 1 ] || [ "$ok" = 0 ] || record_setting "governor: $g on ${#dirs[@]} CPUs, verified"
}

apply_freq() {
	local mhz=$1 khz=$(($1 * 1000)) dirs=() d lo hi ok=1 setspeed=0 avail v
	mapfile -t dirs < <(cpufreq_dirs)
	[ ${#dirs[@]} -gt 0 ] || { not_applied freq "$(no_cpufreq_reason)"; return 0; }
	lo=$(knob_current "${dirs[0]}/cpuinfo_min_freq" 2>/dev/null || echo 0)
	hi=$(knob_current "${dirs[0]}/cpuinfo_max_freq" 2>/dev/null || echo 0)
	if is_uint "$lo" && is_uint "$hi" && [ "$hi" -gt 0 ] && { [ "$khz" -lt "$lo" ] || [ "$khz" -gt "$hi" ]; }; then
		die "--freq $mhz MHz is outside this CPU's range $((lo / 1000))-$((hi / 1000)) MHz"
	fi
	is_root || { not_applied freq "needs root (would pin ${#dirs[@]} CPUs to $mhz MHz)"; return 0; }
	avail=$(knob_current "${dirs[0]}/scaling_available_governors" 2>/dev/null || true)
	case " $avail " in *" userspace "*) [ -e "${dirs[0]}/scaling_setspeed" ] && setspeed=1 ;; esac
	for d in "${dirs[@]}"; do
		if [ "$setspeed" = 1 ]; then
			set_knob freq "$d/scaling_governor" userspace || ok=0
			# setspeed reads "<unsupported>" under other governors; it only
			# needs restoring when it held a real value.
			v=$(knob_current "$d/scaling_setspeed")
			if [ "$DRY_RUN" = 1 ]; then
				plan "freq: would write '$khz' to $d/scaling_setspeed (now '$v')"
			else
				is_uint "$v" && save_for_restore file "$d/scaling_setspeed" "$v"
				knob_write "$d/scaling_setspeed" "$khz" 2>/dev/null || true
				v=$(knob_current "$d/scaling_setspeed")
				[ "$v" = "$khz" ] || { not_verified freq "$d/scaling_setspeed reads '$v' after writing $khz"; ok=0; }
			fi
		elif [ "$DRY_RUN" = 1 ]; then
			plan "freq: would set $d/scaling_min_freq and scaling_max_freq to $khz (now $(knob_current "$d/scaling_min_freq") $(knob_current "$d/scaling_max_freq"))"
		else
			save_for_restore minmax "$d" "$(knob_current "$d/scaling_min_freq") $(knob_current "$d/scaling_max_freq")"
			write_freq_range "$d" "$khz" "$khz"
			if [ "$(knob_current "$d/scaling_min_freq") $(knob_current "$d/scaling_max_freq")" != "$khz $khz" ]; then
				not_verified freq "$d min/max did not both become $khz kHz"
				ok=0
			fi
		fi
	done
	[ "$DRY_RUN" = 1 ] || [ "$ok" = 0 ] || record_setting "freq: $mhz MHz on ${#dirs[@]} CPUs ($([ "$setspeed" = 1 ] && echo 'userspace governor' || echo 'min=max')), verified"
}

apply_turbo() {
	local want=$1 f value
	if [ -e "$CPU_DIR/intel_pstate/no_turbo" ]; then
		f=$CPU_DIR/intel_pstate/no_turbo
		[ "$want" = on ] && value=0 || value=1
	elif [ -e "$CPU_DIR/cpufreq/boost" ]; then
		f=$CPU_DIR/cpufreq/boost
		[ "$want" = on ] && value=1 || value=0
	else
		not_applied turbo "not available on this machine (no intel_pstate/no_turbo or cpufreq/boost under $CPU_DIR)"
		return 0
	fi
	is_root || { not_applied turbo "needs root (would write $value to $f)"; return 0; }
	set_knob turbo "$f" "$value" && [ "$DRY_RUN" = 0 ] && record_setting "turbo: $want ($f=$value), verified"
	return 0
}

apply_thp() {
	local want=$1 cur
	[ -r "$THP_FILE" ] || { not_applied thp "not available on this machine (no $THP_FILE)"; return 0; }
	# The kernel lists its choices with the current one in brackets.
	case " $(cat "$THP_FILE") " in
	*" $want "*|*"[$want]"*|*[!]]) ;;
	*) not_applied thp "kernel does not offer '$want' ($(cat "$THP_FILE"))"; return 0 ;;
	esac
	cur=$(knob_current "$THP_FILE")
	is_root || { not_applied thp "needs root (would write $want to $THP_FILE, now $cur)"; return 0; }
	set_knob thp "$THP_FILE" "$want" && [ "$DRY_RUN" = 0 ] && record_setting "thp: $want (was $cur), verified"
	return 0
}

# apply_hugepages N: reserve, then check the kernel really did; it silently
# reserves fewer when memory is fragmented.  HUGEPAGES_PROBLEM says why the
# pool could not be written at all (empty when it could).
# A pool that does not fit is refused (exit 2), or with HUGEPAGES_TOO_MANY=skip
# (run-matrix, which then skips the cells) left in HUGEPAGES_PROBLEM.
HUGEPAGES_GOT='' HUGEPAGES_PROBLEM='' HUGEPAGES_TOO_MANY=die
HUGEPAGES_MARGIN_PCT=10

# meminfo_kb KEY: KEY's value in $PROCFS/meminfo (kB), empty when absent.
meminfo_kb() { awk -v k="$1:" '$1 == k { print $2; exit }' "$PROCFS/meminfo" 2>/dev/null; }

# hugepages_overcommit WANT CUR: say why growing the pool from CUR to WANT
# pages would not fit, or return 1 when it fits.  The growth, (WANT - CUR)
# x Hugepagesize (pages already in the pool are not in MemAvailable), must
# stay below MemAvailable minus HUGEPAGES_MARGIN_PCT% of MemTotal, which is
# left for the kernel, bench's own pages and everything else running.
# Without MemAvailable (kernels before 3.14) nothing is checked.
hugepages_overcommit() {
	local want=$1 cur=$2 size total avail margin grow
	size=$(meminfo_kb Hugepagesize) total=$(meminfo_kb MemTotal) avail=$(meminfo_kb MemAvailable)
	is_posint "$size" && is_uint "$total" && is_uint "$avail" && is_uint "$cur" || return 1
	[ "$want" -gt "$cur" ] || return 1
	grow=$(((want - cur) * size)) margin=$((total * HUGEPAGES_MARGIN_PCT / 100))
	[ "$grow" -ge $((avail - margin)) ] || return 1
	printf -- '--hugepages %s does not fit: %s more pages of %s kB are %s kB, and MemAvailable %s kB minus a margin of %s kB (%s%% of MemTotal %s kB) leaves %s kB' \
		"$want" $((want - cur)) "$size" "$grow" "$avail" "$margin" "$HUGEPAGES_MARGIN_PCT" "$total" $((avail - margin))
}

apply_hugepages() {
	local want=$1 cur got
	HUGEPAGES_PROBLEM=''
	if [ ! -e "$NR_HUGEPAGES_FILE" ]; then
		HUGEPAGES_PROBLEM="not available on this machine (no $NR_HUGEPAGES_FILE)"
		not_applied hugepages "$HUGEPAGES_PROBLEM"
		return 0
	fi
	cur=$(knob_current "$NR_HUGEPAGES_FILE")
	if HUGEPAGES_PROBLEM=$(hugepages_overcommit "$want" "$cur"); then
		[ "$HUGEPAGES_TOO_MANY" = skip ] || die "$HUGEPAGES_PROBLEM"
		return 0
	fi
	HUGEPAGES_PROBLEM=''
	if ! is_root; then
		HUGEPAGES_PROBLEM="needs root (would write $want to $NR_HUGEPAGES_FILE, now $cur)"
		not_applied hugepages "$HUGEPAGES_PROBLEM"
		return 0
	fi
	if [ "$DRY_RUN" = 1 ]; then
		plan "hugepages: would write '$want' to $NR_HUGEPAGES_FILE (now '$cur') and check the count"
		return 0
	fi
	save_for_restore file "$NR_HUGEPAGES_FILE" "$cur"
	if ! knob_write "$NR_HUGEPAGES_FILE" "$want" 2>/dev/null; then
		HUGEPAGES_PROBLEM="$NR_HUGEPAGES_FILE is not writable (run as root)"
		not_verified hugepages "$HUGEPAGES_PROBLEM"
		return 0
	fi
	got=$(knob_current "$NR_HUGEPAGES_FILE")
	HUGEPAGES_GOT=$got
	if [ "$got" != "$want" ]; then
		not_verified hugepages "asked for $want huge pages, the kernel reserved $got (short pool)"
		return 0
	fi
	record_setting "hugepages: $want reserved (was $cur), verified"
}

# apply_hugetlbfs_mount: mount a hugetlbfs on a fresh directory of our own
# (HUGETLBFS_MOUNT), unmounted and removed by restore_all.  Returns 1 with
# HUGETLBFS_PROBLEM set when the mount fails.
HUGETLBFS_MOUNT='' HUGETLBFS_PROBLEM=''
apply_hugetlbfs_mount() {
	local mnt err
	mnt=$(mktemp -d "${TMPDIR:-/tmp}/membench-hugetlbfs.XXXXXX")
	if ! err=$(mount -t hugetlbfs none "$mnt" 2>&1); then
		rmdir "$mnt"
		HUGETLBFS_PROBLEM=$(printf '%s\n' "$err" | head -n 1)
		return 1
	fi
	save_for_restore mount "$mnt" ''
	HUGETLBFS_MOUNT=$mnt
	record_setting "hugetlbfs: mounted at $mnt"
}

apply_numa() {
	[ -n "$OPT_NUMA" ] || return 0
	have numactl || { not_applied numa "numactl not installed (wanted: numactl $OPT_NUMA)"; NUMA_ARGV=(); return 0; }
	read -r -a NUMA_ARGV <<<"$OPT_NUMA"
	if [ "$DRY_RUN" = 1 ]; then plan "numa: would run bench under numactl $OPT_NUMA"; return 0; fi
	# numactl applies the policy to the program it starts; ask it to show it.
	if ! numactl "${NUMA_ARGV[@]}" numactl --show >"$SCRATCH/numa-show" 2>&1; then
		NUMA_ARGV=()
		not_verified numa "numactl $OPT_NUMA refused: $(head -n1 "$SCRATCH/numa-show")"
		return 0
	fi
	record_setting "numa: numactl $OPT_NUMA ($(tr '\n' ';' <"$SCRATCH/numa-show" | sed 's/;$//'))"
}

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
capture_state() {
	local - f
	set +f # run-matrix reads its matrix with globbing off; this needs it
	printf 'thp enabled: %s\n' "$(cat "$THP_FILE" 2>/dev/null || echo 'n/a')"
	printf 'thp defrag: %s\n' "$(cat "$THP_DEFRAG_FILE" 2>/dev/null || echo 'n/a')"
	printf 'nr_hugepages: %s\n' "$(cat "$NR_HUGEPAGES_FILE" 2>/dev/null || echo 'n/a')"
	grep -E '^(HugePages_|Hugepagesize|AnonHugePages|ShmemHugePages)' "$PROCFS/meminfo" 2>/dev/null || true
	for f in "$SYSFS"/kernel/mm/hugepages/hugepages-*/nr_hugepages; do
		[ -r "$f" ] && printf '%s: %s\n' "${f#"$SYSFS"/}" "$(cat "$f")"
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

# The OpenMP variables bench will see, after the preset replaced its own.
omp_env_for_bench() {
	local v
	env | grep -E '^(OMP|GOMP|KMP)_' | while IFS= read -r v; do
		case " $AFFINITY_VARS " in
		*" ${v%%=*} "*) [ ${#BIND_ENV[@]} -gt 0 ] && continue ;;
		esac
		printf '%s\n' "$v"
	done
	[ ${#BIND_ENV[@]} -eq 0 ] || printf '%s\n' "${BIND_ENV[@]}"
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

# ------------------------------------------------------- results
# atomic_write DEST: stdin to a temporary name beside DEST, then rename, so
# no reader ever sees half a file.  Refuses to replace an existing file.
atomic_write() {
	local dest=$1 tmp
	[ ! -e "$dest" ] || die "refusing to overwrite $dest"
	tmp="$(dirname "$dest")/.$(basename "$dest").tmp.$$"
	# A full disk or a read-only file system: one line, exit status 2.
	if ! cat >"$tmp" 2>/dev/null || ! mv "$tmp" "$dest" 2>/dev/null; then
		rm -f "$tmp" 2>/dev/null || true
		space_left "$(dirname "$dest")" || die "cannot write $dest: no space left on device"
		die "cannot write $dest (read-only or not ours?)"
	fi
}

# space_left DIR: a few bytes can still be written in DIR.  False on a
# full file system (ENOSPC: the write fails, or comes up short).
space_left() {
	local probe
	probe="$1/.probe.tmp.$$"
	if printf 'membench write probe\n' >"$probe" 2>/dev/null; then
		rm -f "$probe"
		return 0
	fi
	rm -f "$probe" 2>/dev/null || true
	[ -w "$1" ] || return 0 # not writable at all: read-only, not full
	return 1
}

# host_name: the short host name results are filed under.
host_name() { hostname -s 2>/dev/null || uname -n | cut -d. -f1; }

# make_results_dir: a new RESULTS_DIR, never an old one reused:
# RESULTS_ROOT/<host>/<UTC stamp>-<label>, then .2, .3... when taken.  The
# label is --label, else the command's name.
make_results_dir() {
	local host stamp base dir n=1
	host=$(host_name)
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	base=$RESULTS_ROOT/$host/$stamp-${OPT_LABEL:-$PROG}
	[ -n "$RESULTS_ROOT" ] || die "the results root is empty (pass --results DIR)"
	[ ! -e "$RESULTS_ROOT" ] || [ -d "$RESULTS_ROOT" ] ||
		die "the results root $(printf '%q' "$RESULTS_ROOT") is not a directory"
	mkdir -p "$RESULTS_ROOT/$host" 2>/dev/null ||
		die "cannot create the results directory $(printf '%q' "$RESULTS_ROOT/$host")"
	dir=$base
	# mkdir is atomic: whoever creates the directory owns it.
	until mkdir "$dir" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -lt 100 ] || die "cannot create a fresh results directory under $RESULTS_ROOT/$host"
		dir=$base.$n
	done
	RESULTS_DIR=$(cd "$dir" && pwd)
	journal_write # so a killed run's hidden temporary files can be found
}

# ------------------------------------------------------- lock
# One lock for every command that measures, so `make run` and `make matrix`
# never share the machine.  It lives in a directory only we may write: a
# lock file at a predictable name in a world-writable directory could be
# planted, as a symlink, by anyone.

# private_dir DIR: a real directory (no symlink), ours, that nobody else
# may write.
private_dir() {
	local owner mode
	[ -d "$1" ] && [ ! -L "$1" ] || return 1
	owner=$(stat -c %u "$1") mode=$(stat -c %a "$1") || return 1
	[ "$owner" = "$(id -u)" ] && [ $((8#$mode & 8#022)) -eq 0 ]
}

# lock_dir: where the lock lives.  MEMBENCH_LOCK_DIR when set; for root
# /run/membench; for others $XDG_RUNTIME_DIR/membench when that directory
# is theirs alone, else .lock under the results root.
lock_dir() {
	if [ -n "${MEMBENCH_LOCK_DIR:-}" ]; then
		printf '%s' "$MEMBENCH_LOCK_DIR"
	elif is_root; then
		printf '/run/membench'
	elif [ -n "${XDG_RUNTIME_DIR:-}" ] && private_dir "$XDG_RUNTIME_DIR"; then
		printf '%s/membench' "$XDG_RUNTIME_DIR"
	else
		printf '%s/.lock' "$RESULTS_ROOT"
	fi
}

# take_lock: hold the lock (flock on LOCK_FD) until this process and the
# benches it starts have exited.  A held lock is refused at once, naming
# its holder, unless --wait-lock.
LOCK_FD=''
take_lock() {
	local dir file holder
	[ -z "$LOCK_FD" ] || return 0
	have flock || die "flock (util-linux) is needed for the membench lock and is not installed"
	dir=$(lock_dir)
	if [ ! -e "$dir" ] && [ ! -L "$dir" ]; then
		[ -d "$(dirname "$dir")" ] || mkdir -p "$(dirname "$dir")" 2>/dev/null || true
		mkdir -m 700 "$dir" 2>/dev/null || [ -d "$dir" ] || die "cannot create the lock directory $dir"
	fi
	private_dir "$dir" || die "refusing the lock directory $dir: it must be a real directory (not a symlink), owned by uid $(id -u), that no one else may write"
	file=$dir/lock
	[ ! -L "$file" ] || die "refusing the lock file $file: it is a symlink"
	exec {LOCK_FD}<>"$file" || die "cannot open the lock file $file"
	if ! flock -n "$LOCK_FD"; then
		holder=$(head -n 1 "$file" 2>/dev/null || true)
		[ "$WAIT_LOCK" = 1 ] || die "another membench command is measuring (${holder:-holder unknown}; lock $file); try again when it is done, or pass --wait-lock"
		note "waiting for the lock: ${holder:-another membench command} holds it"
		flock "$LOCK_FD"
	fi
	printf 'pid %s: %s\n' "$$" "$PROG${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}" >"$file"
	# Under the lock, before any state is saved: what a killed run left.
	JOURNAL=$dir/journal
	recover_journal
	journal_write
}

# ------------------------------------------------------- progress
# "step 3 of 14, about 2 min left: what" on stderr before each step of a
# long command (the sweeps, the latency sweeps, the matrix's runs), only
# when stderr is a terminal or --progress was given: a log or a pipe gets
# no line it did not ask for.  The time left is the time so far scaled by
# the work left: each step has a weight (sweep-size: its array size).
progress_begin() { PROGRESS_N=$1 PROGRESS_W_TOTAL=$2 PROGRESS_W_DONE=0 PROGRESS_T0=$SECONDS; }

progress_on() { [ "$OPT_PROGRESS" = 1 ] || [ -t 2 ]; }

# fmt_left SECONDS: "about 40 s left", "about 2 min left", "about 1 h 5 min left".
fmt_left() {
	if [ "$1" -lt 60 ]; then
		printf 'about %d s left' "$1"
	elif [ "$1" -lt 3600 ]; then
		printf 'about %d min left' $((($1 + 30) / 60))
	else
		printf 'about %d h %d min left' $(($1 / 3600)) $((($1 % 3600 + 30) / 60))
	fi
}

progress_step() { # I WHAT [UNIT]: step (or UNIT) I of PROGRESS_N begins
	local i=$1 what=$2 unit=${3:-step} el=$((SECONDS - PROGRESS_T0)) left
	progress_on || return 0
	if [ "$PROGRESS_W_DONE" -gt 0 ]; then
		left=$(fmt_left $((el * (PROGRESS_W_TOTAL - PROGRESS_W_DONE) / PROGRESS_W_DONE)))
	else
		left='time left not known yet'
	fi
	printf '%s: %s %d of %d, %s%s\n' "$PROG" "$unit" "$i" "$PROGRESS_N" "$left" "${what:+: $what}" >&2
}

progress_done() { PROGRESS_W_DONE=$((PROGRESS_W_DONE + $1)); }

# ------------------------------------------------------- session
STEP_PID=''
on_signal() {
	INTERRUPTED=1
	note "interrupted by SIG$1; restoring the machine"
	# the step's bench first: nothing may run while the machine is restored
	if [ -n "$STEP_PID" ]; then
		kill -TERM "$STEP_PID" 2>/dev/null || true
		wait "$STEP_PID" 2>/dev/null || true
	fi
	[ "$1" = INT ] && exit 130
	exit 143
}

# interrupted_note: what INTERRUPTED says; a command whose results are not
# step files (run-matrix) defines its own.
interrupted_note() {
	printf 'Interrupted after %d completed step(s); there is no summary.md.\n' \
		"$(find "$RESULTS_DIR" -maxdepth 1 -name 'step-*.json' | wc -l)"
}

on_exit() {
	local rc=$?
	trap - EXIT INT TERM
	set +f
	restore_all
	[ -z "$RESULTS_DIR" ] || rm -f "$RESULTS_DIR"/.*.tmp.* 2>/dev/null || true
	if [ -n "$JOURNAL" ]; then
		if [ "$RESTORE_FAILED" = 0 ]; then
			rm -f "$JOURNAL"
		else
			note "the journal $JOURNAL keeps what could not be restored; harness/restore retries it"
		fi
	fi
	if [ "$INTERRUPTED" = 1 ] && [ -n "$RESULTS_DIR" ] && [ -d "$RESULTS_DIR" ]; then
		interrupted_note >"$RESULTS_DIR/INTERRUPTED"
	fi
	[ -z "${SCRATCH:-}" ] || rm -rf "$SCRATCH"
	exit "$rc"
}

# load_build_info: the build and system objects from `bench info --json`,
# when bench has them.
SYSTEM_JSON=null
load_build_info() {
	local out
	if out=$("$BENCH" info --json 2>/dev/null) && printf '%s' "$out" | jq -e .build >/dev/null 2>&1; then
		BUILD_JSON=$(printf '%s' "$out" | jq -c .build)
		SYSTEM_JSON=$(printf '%s' "$out" | jq -c '.system // null')
	else
		BUILD_JSON=null SYSTEM_JSON=null
	fi
}

# session_open: scratch space, the traps that restore the machine on every
# exit path, the lock (not for a dry run, which measures nothing) and the
# state before anything changes.  session_begin calls it; a command with
# work to do before its bench exists (bench-compare builds one) calls it
# first.
SESSION_OPEN=0
session_open() {
	[ "$SESSION_OPEN" = 0 ] || return 0
	have jq || die "jq is needed to read bench's JSON and is not installed"
	SESSION_OPEN=1
	SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/membench-harness.XXXXXX")
	trap on_exit EXIT
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	[ "$DRY_RUN" = 1 ] || take_lock
	STATE_BEFORE=$(capture_state)
}

# session_begin: everything up to the first step.  The apply order matters:
# SMT first (it changes which CPUs are online), binding last (it reads the
# topology that results).  With BENCH empty (run-matrix: a bench per cell)
# there is no build to read.
session_begin() {
	[ -z "$BENCH" ] || [ -x "$BENCH" ] || die "no bench binary at $BENCH (build it: ./setup && make, or pass --bench)"
	session_open
	if [ -n "$BENCH" ]; then
		# In a dry run nothing is executed, bench included; ldd only reads it.
		[ "$DRY_RUN" = 1 ] || load_build_info
		detect_runtime
	fi
	[ -z "$OPT_SMT" ] || apply_smt "$OPT_SMT"
	[ -z "$OPT_PREFETCH" ] || apply_prefetch "$OPT_PREFETCH"
	[ -z "$OPT_GOVERNOR" ] || apply_governor "$OPT_GOVERNOR"
	[ -z "$OPT_TURBO" ] || apply_turbo "$OPT_TURBO"
	[ -z "$OPT_FREQ" ] || apply_freq "$OPT_FREQ"
	[ -z "$OPT_THP" ] || apply_thp "$OPT_THP"
	[ -z "$OPT_HUGEPAGES" ] || apply_hugepages "$OPT_HUGEPAGES"
	apply_numa
	setup_peak
	if [ "$DRY_RUN" = 1 ]; then
		plan "OpenMP runtime: $RUNTIME (from $RUNTIME_HOW)"
		plan "peak: $PEAK_NOTE"
		return 0
	fi
	make_results_dir
	note "results in $RESULTS_DIR"
}

# The provenance goes out once the first step's binding is known.
PROVENANCE_DONE=0

# bench_mode ARGS...: the mode word bench would take from ARGS.
bench_mode() {
	case "${1:-}" in stream|latency|all|info) printf '%s' "$1" ;; *) printf 'stream' ;; esac
}

# step_run WHAT PARAMS_JSON WEIGHT BENCH_ARGS...: run bench once, write
# step-NNN.raw (bench's stdout as printed), step-NNN.stderr and step-NNN.json
# (the harness's record of the step, with bench's own JSON inside).
# bench writes its text to the raw file and, from the same run, its JSON
# (--json-file) into the record; latency records also hold the first
# stride's curve read from the text.
step_run() {
	local what=$1 params=$2 weight=$3 mode num cmd=() rc=0 status state raw err rec v json_ok=0 curve=null stride bjson
	shift 3
	STEP=$((STEP + 1))
	num=$(printf '%03d' "$STEP")
	mode=$(bench_mode "$@")
	[ "$mode" = "${1:-}" ] && shift
	cmd=(env)
	if [ ${#BIND_ENV[@]} -gt 0 ]; then
		for v in $AFFINITY_VARS; do cmd+=(-u "$v"); done
		cmd+=("${BIND_ENV[@]}")
	fi
	[ ${#NUMA_ARGV[@]} -eq 0 ] || cmd+=(numactl "${NUMA_ARGV[@]}")
	cmd+=("$BENCH" "$mode")
	cmd+=("$@" --json-file "$RESULTS_DIR/.step-$num.bench.json.tmp.$$")
	if [ "$DRY_RUN" = 1 ]; then
		plan "step $STEP ($what): ${cmd[*]}"
		return 0
	fi
	[ "$PROVENANCE_DONE" = 1 ] || { write_provenance; PROVENANCE_DONE=1; }
	progress_step "$STEP" "$what"
	state=$(capture_state)
	raw=$RESULTS_DIR/.step-$num.raw.tmp.$$
	err=$RESULTS_DIR/.step-$num.stderr.tmp.$$
	bjson=$RESULTS_DIR/.step-$num.bench.json.tmp.$$
	# bench runs in the background so that a signal reaches our trap at
	# once, not when bench has finished; on_signal stops it first.
	"${cmd[@]}" >"$raw" 2>"$err" &
	STEP_PID=$!
	wait "$STEP_PID" || rc=$?
	STEP_PID=''
	progress_done "$weight"
	# A full results file system cuts bench's output short, and bench
	# then fails for want of room, not of memory bandwidth: say so, keep
	# none of the step's files (on_exit removes the temporaries), exit 2.
	if ! space_left "$RESULTS_DIR" || grep -qs 'No space left on device' "$err"; then
		die "cannot write $RESULTS_DIR/step-$num.raw: no space left on device (step $STEP's results are not kept)"
	fi
	status=ok
	case "$rc" in
	0) ;;
	1) status='validation failed' ;;
	*) status="bench error (exit $rc)" ;;
	esac
	BIND_VERIFIED=null BIND_OBSERVED='' BIND_NOTE=''
	! jq -e . "$bjson" >/dev/null 2>&1 || json_ok=1
	if [ "$mode" = latency ]; then
		stride=$(sed -n 's/^"stride=\([0-9]*\).*/\1/p' "$raw" | head -n1)
		curve=$(awk '/^"stride=/ { n++ } n == 1 && /^[0-9]+[.][0-9]+ [0-9]+[.][0-9]+$/ { print $1, $2 }' "$raw" |
			jq -R -s -c '[split("\n")[] | select(length > 0) | split(" ") | {size_mb: (.[0] | tonumber), ns: (.[1] | tonumber)}]')
		[ "$curve" != '[]' ] || { [ "$status" != ok ] || status='no curve in output'; }
		[ -n "$stride" ] || stride=null
	elif [ "$json_ok" = 1 ]; then
		verify_binding "$bjson"
		if [ "$BIND_VERIFIED" = false ]; then
			warn "step $STEP: $BIND_NOTE"
			[ "$status" != ok ] || status='binding did not take'
		fi
	elif [ "$status" = ok ]; then
		status='bench printed no JSON'
	fi
	[ "$status" = ok ] || { [ "$status" = 'binding did not take' ] || FAILED_STEPS=$((FAILED_STEPS + 1)); }
	# A step run under a setting that did not take says so in its own row.
	[ "$status" = ok ] || [ "$status" = 'binding did not take' ] || warn "step $STEP: $status (see step-$num.stderr)"
	status="$status$PENDING_PROBLEMS"
	PENDING_PROBLEMS=""
	rec=$(printf '%s\n' "${cmd[@]}" | jq -R -s -c '{command: split("\n")[:-1]}')
	{
		jq -n \
			--argjson step "$STEP" --arg what "$what" --argjson params "$params" \
			--arg status "$status" --argjson exit_status "$rc" --argjson cmd "$rec" \
			--arg runtime "$RUNTIME" --arg bind "${CURRENT_BIND:-}" --arg bindkind "$BIND_KIND" \
			--arg places "${PLACES[*]}" --arg observed "$BIND_OBSERVED" \
			--argjson verified "$BIND_VERIFIED" --arg bindnote "$BIND_NOTE" \
			--arg env "$(omp_env_for_bench)" --arg state "$state" \
			--arg settings "$(printf '%s\n' "${SETTINGS[@]}")" \
			--argjson peak "${PEAK_MBS:-null}" --argjson curve "$curve" --argjson stride "${stride:-null}" \
			--slurpfile bench "$([ "$json_ok" = 1 ] && echo "$bjson" || echo /dev/null)" \
			'{schema: "membench-harness/1", step: $step, what: $what, params: $params,
			  status: $status, exit_status: $exit_status, command: $cmd.command,
			  env: ($env | split("\n") | map(select(length > 0))),
			  binding: {asked: (if $bind == "" then null else $bind end), runtime: $runtime,
			            check: $bindkind, places: ($places | split(" ") | map(select(length > 0) | tonumber)),
			            observed: $observed, verified: $verified, note: $bindnote},
			  settings: ($settings | split("\n") | map(select(length > 0))),
			  state_during: ($state | split("\n") | map(select(length > 0))),
			  peak_mbs: $peak,
			  latency: (if $curve == null then null else {stride: $stride, curve: $curve} end),
			  bench: ($bench[0] // null)}'
	} | atomic_write "$RESULTS_DIR/step-$num.json"
	mv "$raw" "$RESULTS_DIR/step-$num.raw"
	rm -f "$bjson"
	if [ -s "$err" ]; then mv "$err" "$RESULTS_DIR/step-$num.stderr"; else rm -f "$err"; fi
	[ "$rc" != 2 ] || note "step $STEP: bench said: $(head -n1 "$RESULTS_DIR/step-$num.stderr" 2>/dev/null)"
	return 0
}

# summary_stream_table: the table a STREAM report shows, one row per step:
# the step's parameters, the CPUs its threads ran on, then best MB/s per kernel (and
# % of peak when known).
summary_stream_table() {
	jq -s -r '
		(.[0].params | keys_unsorted) as $pk
		| (reduce (.[] | .bench.results[]?.kernel) as $k ([]; if any(.[]; . == $k) then . else . + [$k] end)) as $ks
		| ([($pk | length)] | @tsv),
		  ($pk + ["Thread:CPU", "Pages"] + $ks + ["Status"] | @tsv),
		  (.[] | . as $r
		   | [($pk[] | ($r.params[.] | tostring))]
		     + [(if $r.binding.observed == "" then "-" else $r.binding.observed end)]
		     + [([$r.bench.run.arrays[]? | "\(.page_kib) KiB \(.huge_pct | round)% huge"] | unique | join(", ")
		         | if . == "" then "-" else . end)]
		     + [$ks[] as $k | ([$r.bench.results[]? | select(.kernel == $k)][0].best_mbs // "-") | tostring]
		     + [$r.status + (if $r.binding.verified == true then ", binding verified" else "" end)]
		   | @tsv)' "$RESULTS_DIR"/step-*.json |
		awk -F'\t' -v peak="${PEAK_MBS:-}" '
			NR == 1 { np = $1; next }
			NR == 2 { nk = NF - np - 3
				  line = "|"; sep = "|"
				  for (i = 1; i <= NF; i++) {
					h = $i
					if (i > np + 2 && i <= np + 2 + nk) h = h " MB/s" (peak != "" ? " (% peak)" : "")
					line = line " " h " |"
					sep = sep ((i > np + 2 && i <= np + 2 + nk) ? " ---: |" : " --- |")
				  }
				  print line; print sep; next }
			{ line = "|"
			  for (i = 1; i <= NF; i++) {
				c = $i
				if (i > np + 2 && i <= np + 2 + nk && c ~ /^[0-9.eE+-]+$/) {
					c = sprintf("%.1f", c)
					if (peak != "") c = c sprintf(" (%.0f%%)", 100 * $i / peak)
				}
				line = line " " c " |"
			  }
			  print line }'
}

# What else the results directory holds, for the summary's header.
RESULT_FILES='per step: step-NNN.raw (bench output), step-NNN.json'

# shellcheck disable=SC2016 # the backquotes are Markdown
summary_header() {
	printf '# %s on %s\n\n' "$PROG" "$(host_name)"
	printf -- '- command: `%s`\n' "$(printf '%q ' "$0" "${ORIG_ARGS[@]}" | sed 's/ $//')"
	printf -- '- bench: `%s`, built with `%s`\n' "$BENCH" \
		"$(printf '%s' "$BUILD_JSON" | jq -r '(.cflags // .compiler // "unknown")' 2>/dev/null || echo unknown)"
	printf -- '- OpenMP runtime: %s (from %s)\n' "$RUNTIME" "$RUNTIME_HOW"
	printf -- '- theoretical peak: %s\n' "$PEAK_NOTE"
	printf -- '- provenance: provenance.txt; %s\n' "$RESULT_FILES"
	printf '\n## Settings\n\n'
	if [ ${#SETTINGS[@]} -eq 0 ]; then printf 'None changed.\n'; else printf -- '- %s\n' "${SETTINGS[@]}"; fi
}

summary_footer() {
	if [ ${#WARNINGS[@]} -gt 0 ]; then
		printf '\n## Warnings\n\n'
		printf -- '- %s\n' "${WARNINGS[@]}"
	fi
}

# session_end BODY_FUNCTION: write summary.md from the header, the body the
# caller prints, and the warnings; print it; set the exit status.
session_end() {
	[ "$DRY_RUN" = 0 ] || return 0
	{ summary_header; printf '\n'; "$@"; summary_footer; } | atomic_write "$RESULTS_DIR/summary.md"
	cat "$RESULTS_DIR/summary.md"
	note "results in $RESULTS_DIR"
	[ "$FAILED_STEPS" -eq 0 ] || exit 1
}

# ------------------------------------------------------- sweep helpers
# parse_args ARGS...: the common options plus whatever the script's
# parse_own_opt accepts (it sets CONSUMED, or returns 1 for "not mine").
parse_args() {
	ORIG_ARGS=("$@")
	while [ $# -gt 0 ]; do
		if [ "$1" != -- ] && declare -F parse_own_opt >/dev/null && parse_own_opt "$@"; then
			shift "$CONSUMED"
			continue
		fi
		if parse_common_opt "$@"; then
			shift "$CONSUMED"
		else
			shift
			BENCH_ARGS=("$@")
			break
		fi
	done
}

# own_value OPT ARGS...: check OPT has a value (for parse_own_opt).
own_value() { [ $# -ge 2 ] || die "option $1 needs a value"; CONSUMED=2; }

# expect_mode MODE: drop MODE from the front of the bench arguments, or
# refuse another one; a sweep decides the mode itself.
expect_mode() {
	local first=${BENCH_ARGS[0]:-}
	case "$first" in
	"$1") BENCH_ARGS=("${BENCH_ARGS[@]:1}") ;;
	stream|latency|all|info) die "$PROG runs bench $1; do not pass '$first' after --" ;;
	esac
	return 0
}

# refuse_bench_opt OPT...: the sweep sets these itself.
refuse_bench_opt() {
	local a o
	for a in ${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"}; do
		for o in "$@"; do
			case "$a" in "$o"|"$o="*) die "$PROG sets $o itself; do not pass it after --" ;; esac
		done
	done
	return 0
}

# to_bytes SIZE: 4096, 64K, 2M, 1G (binary multiples, as bench takes them).
to_bytes() {
	local n=${1%[KkMmGg]*} u
	u=${1#"$n"}
	u=${u%[iI][bB]}; u=${u%[bB]}
	is_number "$n" || return 1
	case "$u" in
	'') awk -v n="$n" 'BEGIN { printf "%.0f", n }' ;;
	[Kk]) awk -v n="$n" 'BEGIN { printf "%.0f", n * 1024 }' ;;
	[Mm]) awk -v n="$n" 'BEGIN { printf "%.0f", n * 1048576 }' ;;
	[Gg]) awk -v n="$n" 'BEGIN { printf "%.0f", n * 1073741824 }' ;;
	*) return 1 ;;
	esac
}

# bench_plan ARGS...: what bench would allocate for a run with ARGS,
# asked of bench itself (`bench ARGS --plan`: it resolves the options as
# the run would, prints key=value lines and measures nothing).  Bench owns
# the sizes, the huge page counts and the LLC it reports; the harness only
# reads them.  Dies with bench's own refusal.
BENCH_PLAN=''
bench_plan() {
	local out
	out=$("$BENCH" "$@" --plan 2>&1) ||
		die "bench refused --plan for '$*': $(printf '%s\n' "$out" | head -n 1)"
	BENCH_PLAN=$out
}

# plan_value KEY: KEY's value in the last bench_plan; empty when absent.
plan_value() { printf '%s\n' "$BENCH_PLAN" | sed -n "s/^$1=//p" | head -n 1; }

# bench_has_latency: a tiny chase; --help would succeed even in a bench
# whose latency mode is not built yet.
bench_has_latency() { "$BENCH" latency --min 4K --max 8K >/dev/null 2>&1; }

# summary_latency_table: sizes down, one column per step, ns per load.
summary_latency_table() {
	jq -s -r '
		[.[] | (.params | to_entries | .[0].value | tostring)] as $cols
		| [.[] | [.latency.curve[]? | {key: (.size_mb | tostring), value: .ns}] | from_entries] as $maps
		| ([.[] | .latency.curve[]?.size_mb] | unique) as $sizes
		| (["Size MB"] + ($cols | map(. + " ns")) | @tsv),
		  ($sizes[] as $s | [($s | tostring)] + [$maps[] | (.[$s | tostring] // "-") | tostring] | @tsv)
	' "$RESULTS_DIR"/step-*.json |
		awk -F'\t' '
			NR == 1 { line = "|"; sep = "|"
				  for (i = 1; i <= NF; i++) { line = line " " $i " |"; sep = sep " ---: |" }
				  print line; print sep; next }
			{ line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line }'
	# The step statuses, so a failed mode is not mistaken for a missing size.
	printf '\n| Step | Mode | Status |\n| ---: | --- | --- |\n'
	jq -r '"| \(.step) | \(.params | to_entries | map(.value | tostring) | join(" ")) | \(.status) |"' \
		"$RESULTS_DIR"/step-*.json
}
