# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/lock.sh: the one membench lock every measuring command holds, in a directory only its user may write
# Needs: messages.sh, options.sh (WAIT_LOCK, RESULTS_ROOT), knobs.sh (the journal it recovers).  Sourced after them, never run.

# One lock for every command that measures, so `make run` and `make matrix`
# never share the machine.  It lives in a directory only we may write: a
# lock file at a predictable name in a world-writable directory could be
# planted, as a symlink, by anyone.

# private_dir DIR: a real directory (no symlink), ours, that nobody else
# may write.
private_dir() {
	local owner mode
	[ -d "$1" ] && [ ! -L "$1" ] || return 1
	owner=$(stat -c '%u %a' "$1") || return 1
	mode=${owner#* } owner=${owner% *}
	[ "$owner" = "$EUID" ] && [ $((8#$mode & 8#022)) -eq 0 ]
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
	private_dir "$dir" || die "refusing the lock directory $dir: it must be a real directory (not a symlink), owned by uid $EUID, that no one else may write"
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
