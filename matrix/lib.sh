# shellcheck shell=bash
# matrix/lib.sh: reading the matrix's definition files (matrix/compilers/*,
# matrix/memory/*, config.matrix), shared by find-compilers and run-matrix.
# Sourced, never run, after harness/lib.sh (which has die and the rest).

# The value of "KEY = value" in a definition file; empty when absent.
# Comments (#...) and surrounding blanks are dropped.
def_get() {
	sed -n "s/[[:space:]]*#.*//; s/^[[:space:]]*$2[[:space:]]*=[[:space:]]*//p" "$1" |
		sed 's/[[:space:]]*$//' | tail -n 1
}

# Is KEY present in the file at all (even with an empty value)?
def_has() {
	grep -q "^[[:space:]]*$2[[:space:]]*=" "$1"
}

# A compiler name as a shell variable suffix: gcc-12 -> gcc_12.
var_suffix() {
	printf '%s' "$1" | tr -c 'A-Za-z0-9' '_'
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
		printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}
