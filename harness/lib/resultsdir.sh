# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/resultsdir.sh: a fresh results directory for a run, and writing a file into it whole (atomic_write) or not at all
# Needs: messages.sh, options.sh (RESULTS_ROOT, OPT_LABEL, RESULTS_DIR), knobs.sh (journal_write).  Sourced after them, never run.

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
