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
HUGEPAGES_DIR=$SYSFS/kernel/mm/hugepages   # a hugepages-<kB>kB pool per size offered
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

# ------------------------------------------------------- huge page sizes
# page_kb SIZE: a huge page size as hugeadm writes one (64K, 2M, 1G; 2MB
# and 1GiB too) in PAGE_KB, in kB; returns 1 for anything else.
page_kb() {
	PAGE_KB=''
	[[ $1 =~ ^([1-9][0-9]{0,6})([KkMmGg])(i?[Bb])?$ ]] || return 1
	case "${BASH_REMATCH[2]}" in
	[Kk]) PAGE_KB=${BASH_REMATCH[1]} ;;
	[Mm]) PAGE_KB=$((BASH_REMATCH[1] * 1024)) ;;
	*) PAGE_KB=$((BASH_REMATCH[1] * 1048576)) ;;
	esac
}

# page_words KB: KB kB as hugeadm names the size (2048: 2M, 1048576: 1G)
# in PAGE_WORDS.
page_words() {
	if (($1 % 1048576 == 0)); then PAGE_WORDS=$(($1 / 1048576))G
	elif (($1 % 1024 == 0)); then PAGE_WORDS=$(($1 / 1024))M
	else PAGE_WORDS=$1K; fi
}

# parse_hugepages SPEC: --hugepages' value, N (pages of the default size)
# or SIZE:N (hugeadm's --pool-pages-min form: 1G:2, 2M:512), in HP_PAGES
# and HP_SIZE_KB (empty for the default size); returns 1 for anything
# else.  At most 12 digits: N x a 1 GiB page stays inside shell numbers.
parse_hugepages() {
	HP_PAGES=$1 HP_SIZE_KB=''
	case "$1" in
	*:*) page_kb "${1%%:*}" || return 1
		HP_SIZE_KB=$PAGE_KB HP_PAGES=${1#*:} ;;
	esac
	[[ $HP_PAGES =~ ^[0-9]{1,12}$ ]] || return 1
	HP_PAGES=$((10#$HP_PAGES))
}

# hugepage_sizes: the sizes the kernel keeps a pool of, one
# $HUGEPAGES_DIR/hugepages-<kB>kB directory each, smallest first: in
# HUGEPAGE_SIZES (kB) and HUGEPAGE_SIZE_WORDS ("2M and 1G", or "none").
hugepage_sizes() {
	local - d kb i j t
	set +f # run-matrix reads its matrix with globbing off
	HUGEPAGE_SIZES=() HUGEPAGE_SIZE_WORDS=''
	for d in "$HUGEPAGES_DIR"/hugepages-*kB; do
		kb=${d##*/hugepages-} kb=${kb%kB}
		if [ -d "$d" ] && is_posint "$kb"; then HUGEPAGE_SIZES+=("$kb"); fi
	done
	# a glob sorts 1048576kB before 2048kB
	for ((i = 1; i < ${#HUGEPAGE_SIZES[@]}; i++)); do
		for ((j = i; j > 0 && HUGEPAGE_SIZES[j - 1] > HUGEPAGE_SIZES[j]; j--)); do
			t=${HUGEPAGE_SIZES[j]} HUGEPAGE_SIZES[j]=${HUGEPAGE_SIZES[j - 1]} HUGEPAGE_SIZES[j - 1]=$t
		done
	done
	for ((i = 0; i < ${#HUGEPAGE_SIZES[@]}; i++)); do
		page_words "${HUGEPAGE_SIZES[i]}"
		if ((i == 0)); then HUGEPAGE_SIZE_WORDS=$PAGE_WORDS
		elif ((i == ${#HUGEPAGE_SIZES[@]} - 1)); then HUGEPAGE_SIZE_WORDS="$HUGEPAGE_SIZE_WORDS and $PAGE_WORDS"
		else HUGEPAGE_SIZE_WORDS="$HUGEPAGE_SIZE_WORDS, $PAGE_WORDS"; fi
	done
	HUGEPAGE_SIZE_WORDS=${HUGEPAGE_SIZE_WORDS:-none}
}

# hugepages_offered KB: whether the kernel keeps a pool of KB kB pages
# (its hugepages-<KB>kB directory, or the default size, meminfo's
# Hugepagesize, whose pool is nr_hugepages); when not, HP_WHY says so and
# names the sizes it does offer.
hugepages_offered() {
	local kb line
	HP_WHY=''
	hugepage_sizes
	for kb in ${HUGEPAGE_SIZES[@]+"${HUGEPAGE_SIZES[@]}"}; do
		[ "$kb" != "$1" ] || return 0
	done
	while IFS= read -r line; do
		case "$line" in Hugepagesize:*) [[ $line =~ ^Hugepagesize:\ +$1\ kB$ ]] && return 0 ;; esac
	done 2>/dev/null <"$PROCFS/meminfo" || true
	page_words "$1"
	HP_WHY="this kernel offers no $PAGE_WORDS huge pages (no $HUGEPAGES_DIR/hugepages-$1kB); it offers $HUGEPAGE_SIZE_WORDS"
	return 1
}
