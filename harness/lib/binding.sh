# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/binding.sh: what bench was built with (bench info --json, its OpenMP runtime) and OpenMP thread binding: the preset, and the check of where the threads ran
# Needs: messages.sh, options.sh (OPT_RUNTIME, BENCH), topology.sh.  Sourced after them, never run.

BIND_ENV=()          # NAME=VALUE pairs given to bench
CURRENT_BIND=''
BIND_KIND=none       # none | exact | omp-spread: how to check placement
PLACES=()            # CPUs the threads should land on, in order
RUNTIME=unknown RUNTIME_HOW=''
BUILD_JSON='null'

# load_build_info: the build and system objects from `bench info --json`,
# when bench has them, and what the harness reads of them: the OpenMP
# runtime bench names, the memory limit's bytes and the CPU quota's CPUs
# (empty for none), and the build's flags.  One jq reads them all, a line
# each, the flags last, as they may hold anything.
SYSTEM_JSON=null BUILD_RUNTIME='' LIMIT_MEM_BYTES='' LIMIT_CPUS='' BUILD_CFLAGS=unknown
load_build_info() {
	local out fields
	BUILD_JSON=null SYSTEM_JSON=null BUILD_RUNTIME='' LIMIT_MEM_BYTES='' LIMIT_CPUS='' BUILD_CFLAGS=unknown
	out=$("$BENCH" info --json 2>/dev/null) || return 0
	fields=$(printf '%s' "$out" | jq -r 'select(.build) |
		(.build | tojson), (.system // null | tojson),
		((.build | objects | .openmp_runtime) // "" | tostring),
		((.system | objects | .memory_limit | objects | .bytes) // "" | tostring),
		((.system | objects | .cpu_quota | objects | .cpus) // "" | tostring),
		((.build | objects | .cflags // .compiler) // "unknown" | tostring)' 2>/dev/null) || return 0
	[ -n "$fields" ] || return 0
	{
		IFS= read -r BUILD_JSON
		IFS= read -r SYSTEM_JSON
		IFS= read -r BUILD_RUNTIME
		IFS= read -r LIMIT_MEM_BYTES
		IFS= read -r LIMIT_CPUS
		IFS= read -r -d '' BUILD_CFLAGS || true
	} <<<"$fields"
	BUILD_CFLAGS=${BUILD_CFLAGS%$'\n'}
}

# detect_runtime: what bench itself says it was built with, else ldd.
detect_runtime() {
	if [ -n "$OPT_RUNTIME" ]; then
		RUNTIME=$OPT_RUNTIME RUNTIME_HOW='--omp-runtime'
		return
	fi
	# empty unless load_build_info read a build from bench info
	case "$BUILD_RUNTIME" in
	libgomp|libomp|libiomp5|none) RUNTIME=$BUILD_RUNTIME RUNTIME_HOW='bench info --json'; return ;;
	esac
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

# expected_cpu I T R: in EXPECTED_CPU, where thread I of T should run when
# thread 0 runs on place R, or "" when the OpenMP rules leave it to the
# implementation (more threads than places, or an uneven spread).  The
# OpenMP runtime assigns places relative to the parent thread's place, and
# libgomp binds the initial thread to the place it happens to be running
# on, so the pattern may start at any place and wrap around: R is read
# from thread 0.  (Set, not printed: a subshell a thread is a fork each.)
expected_cpu() {
	local i=$1 t=$2 r=$3 p=${#PLACES[@]}
	EXPECTED_CPU=''
	[ "$p" -gt 0 ] && [ "$t" -le "$p" ] || return 0
	case "$BIND_KIND" in
	exact) EXPECTED_CPU=${PLACES[$(((r + i) % p))]} ;;
	omp-spread) [ $((p % t)) -ne 0 ] || EXPECTED_CPU=${PLACES[$(((r + i * p / t) % p))]} ;;
	esac
	return 0
}

# place_index CPU: in PLACE_INDEX, CPU's index in PLACES, or 0 when it is
# not there (the check then reports the thread outside the bound set).
place_index() {
	local k
	PLACE_INDEX=0
	for k in "${!PLACES[@]}"; do
		[ "${PLACES[$k]}" != "$1" ] || { PLACE_INDEX=$k; return 0; }
	done
}

# verify_binding JSONFILE: compare .run.threads[].cpu with what the preset
# asks.  Sets BIND_VERIFIED (true|false|null), BIND_OBSERVED, BIND_NOTE.
verify_binding() {
	local json=$1 pairs=() pair i cpu t bad='' allowed load max moved rot
	local -A held=()
	BIND_VERIFIED=null BIND_OBSERVED='' BIND_NOTE=''
	# each thread's "THREAD CPU", then one line of the threads that moved:
	# bench samples each thread's CPU before and after the kernels, and a
	# bound thread must not have moved
	mapfile -t pairs < <(jq -r '(.run.threads[]? | "\(.thread) \(.cpu)"),
		([.run.threads[]? | select(.cpu_end != null and .cpu_end != .cpu)
		  | "thread \(.thread) moved from CPU \(.cpu) to \(.cpu_end);"] | "moved:" + join(" "))' "$json" 2>/dev/null)
	moved=''
	if [ ${#pairs[@]} -gt 0 ] && [[ ${pairs[-1]} == moved:* ]]; then
		moved=${pairs[-1]#moved:}
		unset 'pairs[-1]'
	fi
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
	place_index "${pairs[0]#* }"
	rot=$PLACE_INDEX
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
		expected_cpu "$i" "$t" "$rot"
		if [ -n "$EXPECTED_CPU" ] && [ "$EXPECTED_CPU" != "$cpu" ]; then
			bad="$bad thread $i ran on CPU $cpu, expected $EXPECTED_CPU;"
		fi
		held[$cpu]=$((${held[$cpu]:-0} + 1))
	done
	# With more threads than places, no place may hold more than its share
	# (the CPUs that do, in sort's order).
	max=$(((t + ${#PLACES[@]} - 1) / ${#PLACES[@]}))
	load=''
	for cpu in "${!held[@]}"; do
		[ "${held[$cpu]}" -le "$max" ] || load="$load$cpu"$'\n'
	done
	[ -z "$load" ] || load=$(printf '%s' "$load" | sort | tr '\n' ' ')
	[ -z "$load" ] || bad="$bad CPU(s) $load hold more than $max threads;"
	[ -z "$moved" ] || bad="$bad $moved"
	if [ -n "$bad" ]; then
		BIND_VERIFIED=false BIND_NOTE="binding did not take:${bad%;}"
	else
		BIND_VERIFIED=true BIND_NOTE='binding verified from bench per-thread CPUs'
	fi
}

# The OpenMP variables bench will see, after the preset replaced its own:
# the exported OMP_*, GOMP_* and KMP_* (read from the shell's own
# variables, not by running env), each as NAME=VALUE.
omp_env_for_bench() {
	local n
	for n in ${!OMP_*} ${!GOMP_*} ${!KMP_*}; do
		[[ ${!n@a} == *x* ]] || continue
		case " $AFFINITY_VARS " in
		*" $n "*) [ ${#BIND_ENV[@]} -gt 0 ] && continue ;;
		esac
		printf '%s=%s\n' "$n" "${!n}"
	done
	[ ${#BIND_ENV[@]} -eq 0 ] || printf '%s\n' "${BIND_ENV[@]}"
}
