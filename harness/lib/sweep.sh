# shellcheck shell=bash
# harness/lib/sweep.sh: what a sweep asks of bench's arguments and plan: the mode, the options it sets itself, sizes, bench --plan
# Needs: messages.sh, options.sh (BENCH, BENCH_ARGS), binding.sh (LIMIT_MEM_BYTES, LIMIT_CPUS).  Sourced after them, never run.

# expect_mode MODE: drop MODE from the front of the bench arguments, or
# refuse another one; a sweep decides the mode itself.
expect_mode() {
	local first=${BENCH_ARGS[0]:-}
	case "$first" in
	"$1") BENCH_ARGS=("${BENCH_ARGS[@]:1}") ;;
	stream|latency|all|info|mix|c2c|nodes) die "$PROG runs bench $1; do not pass '$first' after --" ;;
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

# limits_check MODE: under a cgroup's memory limit or CPU quota (bench
# info --json's system.memory_limit and cpu_quota, as load_build_info
# left them in LIMIT_MEM_BYTES and LIMIT_CPUS), what bench would do with
# the bench arguments, asked of `bench --plan` before any machine setting
# changes: bench's refusal (a size that cannot fit) ends the run here,
# in bench's own words; a size the limit capped, and threads above the
# quota, are warned of.  The rule is bench's, not a copy of it.
limits_check() {
	local mode=$1 v
	# both empty when bench info gave no system object, or no limits
	[ -n "$LIMIT_MEM_BYTES$LIMIT_CPUS" ] || return 0
	# every mode that runs has a plan (info measures nothing)
	case "$mode" in stream | latency | all | mix | c2c | nodes) ;; *) return 0 ;; esac
	bench_plan ${BENCH_ARGS[@]+"${BENCH_ARGS[@]}"}
	v=$(plan_value array_size_wanted)
	[ -z "$v" ] || warn "the memory limit ($(plan_value memory_limit_bytes) bytes, $(plan_value memory_limit_source)) caps the arrays at $(plan_value array_size) elements, not $v"
	v=$(plan_value latency_max_wanted)
	[ -z "$v" ] || warn "the memory limit ($(plan_value memory_limit_bytes) bytes, $(plan_value memory_limit_source)) caps latency's --max at $(plan_value latency_max_bytes) bytes, not $v"
	[ "$(plan_value buffer_rule)" != memory_limit ] ||
		warn "the memory limit ($(plan_value memory_limit_bytes) bytes, $(plan_value memory_limit_source)) caps bench nodes' buffer at $(plan_value buffer_bytes) bytes, not $(plan_value buffer_wanted_bytes)"
	[ "$(plan_value threads_over_quota)" != 1 ] ||
		warn "$(plan_value threads) threads under a CPU quota of $(plan_value cpu_quota) CPUs ($(plan_value cpu_quota_source)): they take turns, and the figures are not the machine's"
	return 0
}
