# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/messages.sh: messages (note, warn, die, plan), the small predicates and parsers, the version, and the paths every other file reads.
# Needs: nothing: every other file needs it.  Sourced first, never run.

# Environment (mostly for tests):
#   MEMBENCH_SYSFS   sysfs root (default /sys)
#   MEMBENCH_PROCFS  procfs root (default /proc)
#   MEMBENCH_BENCH   bench binary (default <repo>/bench)
#   MEMBENCH_RESULTS results root (default <repo>/results)
#   MEMBENCH_UID     pretend to be this uid (tests of the non-root path)
#   MEMBENCH_LOCK_DIR  directory that holds the lock (default: see lock_dir)
#   MEMBENCH_KNOB_WRITER  command run as `CMD PATH VALUE` instead of writing a
#                    knob directly; tests use it to act like a kernel that
#                    reserves fewer huge pages than asked.


SYSFS=${MEMBENCH_SYSFS:-/sys}
PROCFS=${MEMBENCH_PROCFS:-/proc}
CPU_DIR=$SYSFS/devices/system/cpu
THP_FILE=$SYSFS/kernel/mm/transparent_hugepage/enabled
THP_DEFRAG_FILE=$SYSFS/kernel/mm/transparent_hugepage/defrag
NR_HUGEPAGES_FILE=$PROCFS/sys/vm/nr_hugepages
SMT_FILE=$CPU_DIR/smt/control

HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO_ROOT=$(cd "$HARNESS_DIR/.." && pwd)
PROG=${0##*/}
# The one version string is bench's own; configure's is for tarball names.
MEMBENCH_VERSION=$(sed -n 's/^#define BENCH_VERSION "\([^"]*\)".*/\1/p' "$REPO_ROOT/bench.c" 2>/dev/null)
MEMBENCH_VERSION=${MEMBENCH_VERSION:-unknown}

WARNINGS=()          # every warn, for the summary
note() { printf '%s: %s\n' "$PROG" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; WARNINGS+=("$*"); }
# Bad input or a refused requirement: one line, exit 2 (traps restore).
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 2; }
# What --dry-run would do goes to stdout, so it can be read or diffed.
plan() { printf 'dry-run: %s\n' "$*"; }

is_uint() { case "$1" in ''|*[!0-9]*) return 1 ;; *) return 0 ;; esac; }
is_number() { [[ $1 =~ ^[0-9]+([.][0-9]+)?$ ]]; }
is_posint() { is_uint "$1" && [ "$1" -gt 0 ]; }
is_root() { [ "${MEMBENCH_UID:-$EUID}" = 0 ]; }
have() { command -v "$1" >/dev/null 2>&1; }

# check_component WHAT VALUE: VALUE becomes one path component (a results
# directory name): letters, digits, '.', '_' and '-', not starting with '.'
# or '-', at most 64 characters, one line.  Refuse anything else, in one
# line (%q shows a newline or a quote without breaking it).  The whole
# string must match: [[ =~ ]] anchors at the ends of the string, not of
# each line as grep does.
COMPONENT_MAX=64
is_component() {
	[[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]] && [ ${#1} -le "$COMPONENT_MAX" ]
}
check_component() {
	is_component "$2" ||
		die "$1 must be one path component of at most $COMPONENT_MAX letters, digits, '.', '_' or '-', not starting with '.' or '-'; not $(printf '%q' "$2")"
}

print_version() { printf '%s (membench) %s\n' "$PROG" "$MEMBENCH_VERSION"; }

# host_name: the short host name results are filed under, as one safe
# path component: a machine with no name set (Linux says "(none)": a
# fresh guest, an initramfs) is unnamed-host, and a character a path
# component must not hold becomes '-'.
host_name() {
	local h
	h=$(hostname -s 2>/dev/null || uname -n)
	h=${h%%.*}
	case "$h" in '' | '(none)') h=unnamed-host ;; esac
	h=${h//[^A-Za-z0-9._-]/-}
	is_component "$h" || h=unnamed-host
	printf '%s\n' "$h"
}

# expand_cpu_list "0-3,8": one CPU per line.
expand_cpu_list() {
	local part a b
	local IFS=,
	for part in $1; do
		case "$part" in
		*-*) a=${part%-*} b=${part#*-}
			is_uint "$a" && is_uint "$b" && [ "$a" -le "$b" ] || return 1
			for ((; a <= b; a++)); do printf '%s\n' "$a"; done ;;
		*) is_uint "$part" || return 1; printf '%s\n' "$part" ;;
		esac
	done
}
