# shellcheck shell=bash
# shellcheck disable=SC2034 # options are read by the files and commands that source this
# harness/lib/options.sh: the options every command takes, the machine-setting options, and parse_options, the one option loop every command runs.
# Needs: messages.sh.  Sourced after them, never run.

OPT_GOVERNOR='' OPT_FREQ='' OPT_TURBO='' OPT_BIND='' OPT_NUMA='' OPT_THP=''
OPT_HUGEPAGES='' OPT_SMT='' OPT_PREFETCH='' OPT_LABEL='' OPT_RUNTIME=''
DRY_RUN=0 REQUIRED=0 WAIT_LOCK=0 OPT_PROGRESS=0
PEAK_MTS='' PEAK_CHANNELS='' PEAK_SOCKETS='' PEAK_BUS_BITS=64
RESULTS_ROOT=${MEMBENCH_RESULTS:-$REPO_ROOT/results}
BENCH=${MEMBENCH_BENCH:-$REPO_ROOT/bench}
BENCH_ARGS=()
ORIG_ARGS=()
RESULTS_DIR=''       # this run's directory under RESULTS_ROOT (make_results_dir)
SCRATCH=''           # this run's scratch directory (session_open)
CONSUMED=0

# parse_options [--only-help] HANDLER ARGS...: the one option loop of every
# membench command.  ARGS are kept in ORIG_ARGS (the lock, the journal, the
# provenance and the summary show the command line).  Each turn HANDLER is
# asked first, with the words left: it returns 0 having taken CONSUMED
# words (1 unless it says otherwise), 1 for "not mine", or 2 to end the
# loop (at "--", having kept the words after it).  What no handler takes
# is one of the options every command takes (parse_std_opt; with
# --only-help, for a command that writes no results, only -h, --help and
# --version), or refused in one line, exit 2.
parse_options() {
	local only_help=0 handler rc
	[ "$1" != --only-help ] || { only_help=1; shift; }
	handler=$1
	shift
	ORIG_ARGS=("$@")
	while [ $# -gt 0 ]; do
		CONSUMED=1 rc=0
		"$handler" "$@" || rc=$?
		case "$rc" in
		0) ;;
		2) return 0 ;;
		*)
			case "$only_help:$1" in
			1:-h | 1:--help) usage; exit 0 ;;
			1:--version) print_version; exit 0 ;;
			0:*) parse_std_opt "$@" || die "unknown option '$1' (see --help)" ;;
			*) die "unknown option '$1' (see --help)" ;;
			esac
			;;
		esac
		shift "$CONSUMED" 2>/dev/null || die "option $1 needs a value"
	done
}

# no_own_options: the handler of a command that takes only the options
# every command takes.
no_own_options() { return 1; }

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
  --hugepages [SIZE:]N
                      reserve N huge pages of the default size, or of SIZE
                      (1G:2, 2M:512: that size's own pool); count verified
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
parse_common_opt() {
	local opt=$1 q
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
	--hugepages) printf -v q '%q' "$2" # a newline stays in the one line
		parse_hugepages "$2" ||
			die "--hugepages wants a page count N, or SIZE:N for pages of a named size (1G:2, 2M:512), not $q"
		# a size the kernel keeps no pool of: refused before anything changes
		[ -z "$HP_SIZE_KB" ] || hugepages_offered "$HP_SIZE_KB" || die "--hugepages $2: $HP_WHY"
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

check_bind_spec() {
	case "$1" in
	none|close|spread) return 0 ;;
	esac
	expand_cpu_list "$1" >/dev/null 2>&1 \
		|| die "--bind wants none, close, spread or a CPU list like 0,2,4-7, not '$1'"
}

# parse_args ARGS...: the options of a command that measures (the sweeps):
# whatever its parse_own_opt takes (it sets CONSUMED, or returns 1 for "not
# mine"), then the common options; everything after "--" goes to bench.
parse_args() { parse_options common_opt_handler "$@"; }
common_opt_handler() {
	if [ "$1" != -- ] && declare -F parse_own_opt >/dev/null && parse_own_opt "$@"; then
		return 0
	fi
	parse_common_opt "$@" && return 0
	BENCH_ARGS=("${@:2}")
	return 2
}

# own_value OPT ARGS...: check OPT has a value (for parse_own_opt).
own_value() { [ $# -ge 2 ] || die "option $1 needs a value"; CONSUMED=2; }
