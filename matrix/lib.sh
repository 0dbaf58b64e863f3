# shellcheck shell=bash
# matrix/lib.sh: reading the matrix's definition files (matrix/compilers/*,
# matrix/memory/*, config.matrix), shared by find-compilers and run-matrix.
# Sourced, never run, after harness/lib/messages.sh (which has die and the rest).

# The value of "KEY = value" in a definition file; empty when absent.
# Comments (#...) and surrounding blanks are dropped.
def_get() {
	local l v=''
	[ -f "$1" ] || return 0
	# bash, not sed: run-matrix reads cell.info and the mode files
	# hundreds of times a matrix, and every fork costs a millisecond
	while IFS= read -r l || [ -n "$l" ]; do
		l=${l%%#*}
		[[ $l =~ ^[[:space:]]*"$2"[[:space:]]*=[[:space:]]*(.*)$ ]] || continue
		v=${BASH_REMATCH[1]}
		v=${v%"${v##*[![:space:]]}"}
	done <"$1"
	printf '%s' "$v"
}

# Is KEY present in the file at all (even with an empty value)?
def_has() {
	grep -q "^[[:space:]]*$2[[:space:]]*=" "$1"
}

# A compiler name as a shell variable suffix: gcc-12 -> gcc_12.
var_suffix() {
	printf '%s' "${1//[!A-Za-z0-9]/_}"
}

# The value of the environment variable named $1, and whether it is set.
env_is_set() {
	eval "[ \"\${$1+set}\" = set ]"
}
env_value() {
	eval "printf '%s' \"\${$1-}\""
}

# Quote one word for a POSIX shell command line: only when needed.
shquote() {
	case "$1" in
	'' | *[!A-Za-z0-9_./=:,+@%-]*)
		printf "'%s'" "${1//\'/\'\\\'\'}" ;;
	*) printf '%s' "$1" ;;
	esac
}
