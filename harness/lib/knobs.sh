# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/knobs.sh: every change to a machine knob: read, write, save the old value, restore it, and the journal that survives a killed run
# Needs: messages.sh, options.sh (DRY_RUN, REQUIRED, ORIG_ARGS, RESULTS_DIR).  Sourced after them, never run.

# Settings applied, skipped or failed, one line each; and those that failed
# since the last step, for its status.
SETTINGS=() PENDING_PROBLEMS=''
RESTORE_KIND=() RESTORE_TARGET=() RESTORE_VALUE=()

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

# restore_entry I: put back RESTORE_*[I] and read it back; returns 1
# (having said RESTORE FAILED) when it did not go back.
restore_entry() {
	local kind=${RESTORE_KIND[$1]} target=${RESTORE_TARGET[$1]} value=${RESTORE_VALUE[$1]} now min max
	case "$kind" in
	file)
		knob_write "$target" "$value" 2>/dev/null || true
		now=$(knob_current "$target")
		if [ "$now" = "$value" ]; then
			note "restored $target to '$value'"
		else
			printf '%s: RESTORE FAILED: %s is %s, was %s\n' "$PROG" "$target" "$now" "$value" >&2
			return 1
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
			return 1
		fi
		;;
	mount)
		if umount "$target" 2>/dev/null && rmdir "$target"; then
			note "unmounted the hugetlbfs at $target"
		else
			printf '%s: RESTORE FAILED: could not unmount the hugetlbfs at %s\n' "$PROG" "$target" >&2
			return 1
		fi
		;;
	ppc64_smt | ppc64_dscr)
		if ppc64_cpu "--${kind#ppc64_}=$value" >/dev/null 2>&1; then
			note "restored ppc64_cpu --${kind#ppc64_}=$value"
		else
			printf '%s: RESTORE FAILED: ppc64_cpu --%s=%s\n' "$PROG" "${kind#ppc64_}" "$value" >&2
			return 1
		fi
		;;
	esac
	return 0
}

# restore_all: undo every change, newest first.  restore_one KIND TARGET:
# only that one (run-matrix gives back a pool it could not fill and keeps
# the others).  Safe to call twice.  What could not be put back stays in
# RESTORE_* and in the journal, and sets RESTORE_FAILED.
RESTORE_FAILED=0
restore_all() { restore_changes; }
restore_one() { restore_changes "$1" "$2"; }
restore_changes() {
	local i fk=() ft=() fv=()
	for ((i = ${#RESTORE_KIND[@]} - 1; i >= 0; i--)); do
		if [ $# -eq 0 ] || [ "${RESTORE_KIND[$i]}:${RESTORE_TARGET[$i]}" = "$1:$2" ]; then
			! restore_entry "$i" || continue
			RESTORE_FAILED=1
		fi
		fk=("${RESTORE_KIND[$i]}" ${fk[@]+"${fk[@]}"})
		ft=("${RESTORE_TARGET[$i]}" ${ft[@]+"${ft[@]}"})
		fv=("${RESTORE_VALUE[$i]}" ${fv[@]+"${fv[@]}"})
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
