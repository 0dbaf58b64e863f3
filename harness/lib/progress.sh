# shellcheck shell=bash
# harness/lib/progress.sh: "step 3 of 14, about 2 min left" lines on stderr
# Needs: messages.sh (PROG), options.sh (OPT_PROGRESS).  Sourced after them, never run.

PROGRESS_N=0 PROGRESS_W_TOTAL=0 PROGRESS_W_DONE=0 PROGRESS_T0=0

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
