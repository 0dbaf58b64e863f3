# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/session.sh: a measuring session: traps, signals and exit, session_open and session_begin, step_run, one bench run into step-NNN.*, the record of a step that could not run, and alternate_rounds, the ABBA rounds of bench-compare and latency-compare
# Needs: every lib file below it: messages, options, knobs, topology, binding, settings, provenance, resultsdir, lock, progress.  Sourced after them, never run.

STEP=0 FAILED_STEPS=0 INTERRUPTED=0
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
	# a command's check of what bench would do (harness/run: the cgroup's
	# limits), before any setting changes
	[ -z "${BEFORE_SETTINGS:-}" ] || [ "$DRY_RUN" = 1 ] || "$BEFORE_SETTINGS"
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
	case "${1:-}" in stream|latency|all|info|mix|c2c|nodes|hierarchy) printf '%s' "$1" ;; *) printf 'stream' ;; esac
}

# run_watched OUT ERR CMD...: run CMD, its stdout to OUT and stderr to
# ERR, in the background so that a signal reaches our trap at once, not
# when CMD has finished (on_signal stops it first, by STEP_PID); its exit
# status in RC.
run_watched() {
	local out=$1 err=$2
	shift 2
	RC=0
	"$@" >"$out" 2>"$err" &
	STEP_PID=$!
	wait "$STEP_PID" || RC=$?
	STEP_PID=''
}

# step_run WHAT PARAMS_JSON WEIGHT BENCH_ARGS...: run bench once, write
# step-NNN.raw (bench's stdout as printed), step-NNN.stderr and step-NNN.json
# (the harness's record of the step, with bench's own JSON inside).
# bench writes its text to the raw file and, from the same run, its JSON
# (--json-file) into the record; latency records also hold the first
# stride's curve read from the text.
step_run() {
	local what=$1 params=$2 weight=$3 mode num cmd=() rc=0 status said state raw err rec v json_ok=0 curve=null stride bjson slurp
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
	# bench's stderr waits in the scratch directory, off the results file
	# system: on a full one, bench's own "No space left on device" would
	# be lost with the file it was written to
	err=$SCRATCH/step-$num.stderr
	bjson=$RESULTS_DIR/.step-$num.bench.json.tmp.$$
	run_watched "$raw" "$err" "${cmd[@]}"
	rc=$RC
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
	said=$status
	status="$status$PENDING_PROBLEMS"
	PENDING_PROBLEMS=""
	# kept whole or not at all (a full disk: one line, exit 2)
	[ ! -s "$err" ] || atomic_write "$RESULTS_DIR/step-$num.stderr" <"$err"
	printf -v rec '%s\n' "${cmd[@]}"
	slurp=/dev/null
	[ "$json_ok" != 1 ] || slurp=$bjson
	{
		jq -n \
			--argjson step "$STEP" --arg what "$what" --argjson params "$params" \
			--arg status "$status" --argjson exit_status "$rc" --arg cmd "$rec" \
			--arg runtime "$RUNTIME" --arg bind "${CURRENT_BIND:-}" --arg bindkind "$BIND_KIND" \
			--arg places "${PLACES[*]}" --arg observed "$BIND_OBSERVED" \
			--argjson verified "$BIND_VERIFIED" --arg bindnote "$BIND_NOTE" \
			--arg env "$(omp_env_for_bench)" --arg state "$state" \
			--arg settings "$(printf '%s\n' "${SETTINGS[@]}")" \
			--argjson peak "${PEAK_MBS:-null}" --argjson curve "$curve" --argjson stride "${stride:-null}" \
			--slurpfile bench "$slurp" \
			'{schema: "membench-harness/1", step: $step, what: $what, params: $params,
			  status: $status, exit_status: $exit_status, command: ($cmd | split("\n")[:-1]),
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
	# A step run under a setting that did not take says so in its own row;
	# a failed one points at what bench said, where it said anything.
	if [ "$said" != ok ] && [ "$said" != 'binding did not take' ]; then
		if [ -s "$err" ]; then
			warn "step $STEP: $said (see step-$num.stderr)"
		else
			warn "step $STEP: $said (bench wrote nothing on stderr)"
		fi
	fi
	[ "$rc" != 2 ] || [ ! -s "$err" ] || note "step $STEP: bench said: $(head -n1 "$err")"
	rm -f "$err"
	return 0
}

# step_skipped DIR N WHAT PARAMS STATUS: the record of harness
# step N that did not run (what it needed could not be had): no bench
# document and no exit status, STATUS ("skipped: why") in their place,
# and that line as its .raw, so every reader shows the step and why.
step_skipped() {
	local n f t
	printf -v n '%03d' "$2"
	f=$1/step-$n t=$1/.step-$n
	{ jq -n --argjson step "$2" --arg what "$3" --argjson params "$4" --arg status "$5" \
		'{schema: "membench-harness/1", step: $step, what: $what, params: $params, status: $status,
		  exit_status: null, command: [], env: [], settings: [], state_during: [], latency: null, bench: null}' \
		>"$t.json.tmp.$$" && printf '%s\n' "$5" >"$t.raw.tmp.$$" && mv "$t.raw.tmp.$$" "$f.raw" &&
		mv "$t.json.tmp.$$" "$f.json"; } 2>/dev/null || die "cannot write $f.json (disk full or read-only?)"
}

# check_round_counts: ROUNDS (1 or more) and WARMUP (0 to 100) of a
# command that alternates its sides (bench-compare, latency-compare);
# WARMUP is left in decimal.
check_round_counts() {
	[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$ROUNDS' is not a positive integer"
	if ! [[ "$WARMUP" =~ ^[0-9]{1,3}$ ]] || ((10#$WARMUP > 100)); then
		die "--warmup: '$WARMUP' is not a whole number of rounds from 0 to 100"
	fi
	WARMUP=$((10#$WARMUP))
}

# alternate_rounds RUN NAME...: WARMUP warm-up rounds, then rounds 1 to
# ROUNDS, each calling `RUN NAME ROUND` once per NAME.  Warm-up rounds come
# first, in round 1's order, with ROUND w1, w2...: the first processes
# after a quiet spell ran up to 45% slower here, so their figures are kept
# apart.  Every second counted round runs the NAMEs in reverse (ABBA), so
# a slow drift of the machine hits every side alike.
alternate_rounds() {
	local run=$1 i j round label name order
	shift
	for ((i = 1 - WARMUP; i <= ROUNDS; i++)); do
		round=$i label="round $i of $ROUNDS"
		((i > 0)) || round=w$((i + WARMUP)) label="warm-up round $((i + WARMUP)) of $WARMUP"
		order=("$@")
		if ((i > 0 && i % 2 == 0)); then
			order=()
			for ((j = $#; j >= 1; j--)); do order+=("${!j}"); done
		fi
		for name in "${order[@]}"; do
			note "$label: $name"
			"$run" "$name" "$round"
		done
	done
}
