# Shared set-up for membench's Bats suite.
# shellcheck disable=SC2034,SC2154 # TINY is for the .bats files; $stderr is set by bats
bats_require_minimum_version 1.5.0
#
# Tests run against the ./bench that `make check` builds at the top of the
# tree; variants (other macros, compilers) are compiled into the test's
# own temporary directory so nothing in the work tree is touched.

# (each line here runs in every test: a fork costs milliseconds on these
# guests, so none where bash can do the work itself)
case "$BATS_TEST_DIRNAME" in
/*) MEMBENCH_ROOT=${BATS_TEST_DIRNAME%/*} ;;
*) MEMBENCH_ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)" ;;
esac
BENCH="${BENCH:-$MEMBENCH_ROOT/bench}"
export MEMBENCH_ROOT BENCH

load_bats_lib() {
	local name="$1" dir f
	for dir in /usr/lib/bats /usr/local/lib/bats /usr/lib/node_modules \
		"${BATS_LIB_PATH:-/nonexistent}"; do
		if [ -f "$dir/$name/load.bash" ]; then
			# its src/*.bash, which hold only functions, sourced here:
			# load.bash runs dirname for each of them, 15 forks a test
			if [ -d "$dir/$name/src" ]; then
				for f in "$dir/$name"/src/*.bash; do
					# shellcheck disable=SC1090 # the library's own files
					source "$f"
				done
			else
				load "$dir/$name/load.bash"
			fi
			return 0
		fi
	done
	echo "bats library $name not found (apt-get install $name)" >&2
	return 1
}
load_bats_lib bats-support
load_bats_lib bats-assert

# python3 is Debian's, the one ./setup --test installs: a version
# manager's shim first on PATH (pyenv's) costs a second a call here.
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
fi

# Each test has a lock of its own, so the suite neither waits for nor
# blocks a membench command measuring on this machine.
export MEMBENCH_LOCK_DIR="$BATS_TEST_TMPDIR/lock"

# need CMD [WHY]: the test needs the command CMD.  Where it is missing the
# test is skipped, naming it, so a user without (say) qemu can still run
# the suite; under CI (CI=true) it fails instead, because ./setup --test
# installs every tool the suite uses and a skip there hides a setup gap.
need() {
	command -v "$1" >/dev/null 2>&1 || missing_tool "$1 is not installed${2:+ ($2)}"
}

# missing_tool REASON: skip (or, under CI, fail) for a missing tool or
# library; REASON names it.
missing_tool() {
	if [ "${CI:-}" = true ]; then
		echo "CI: $1; ./setup --test should have installed it (./setup --test --check)" >&2
		exit 1
	fi
	skip "$1"
}

# Small arrays keep the suite fast on two cores; they are far below the
# sizing rule, so tests never read anything into the rates.
TINY="-s 100000 -n 3"

# build_variant NAME COMPILER FLAGS...: compile bench.c into
# $BATS_FILE_TMPDIR/NAME and print its path.  Each variant is compiled
# once per bats run and shared by every file that asks for it: the cache
# under $BATS_RUN_TMPDIR is keyed by the compiler's path, the flags and
# bench.c itself, and filled by rename, so two files building the same
# variant side by side (make check's jobs) never see half a binary.
build_variant() {
	local name="$1" cc="$2" key cache path
	shift 2
	need "$cc"
	path=$(command -v "$cc")
	cache="${BATS_RUN_TMPDIR:-$BATS_FILE_TMPDIR}/variants"
	mkdir -p "$cache"
	key=$( { printf '%s\n' "$path" "$@"; cat "$MEMBENCH_ROOT/bench.c"; } | cksum | tr ' ' -)
	if [ ! -x "$cache/$key" ]; then
		"$cc" "$@" "$MEMBENCH_ROOT/bench.c" -o "$cache/$key.$$" >&2 || {
			rm -f "$cache/$key.$$"
			return 1
		}
		mv -f "$cache/$key.$$" "$cache/$key"
	fi
	# a copy under the name asked for: bench reads its own name (a bench
	# called stream or lat_mem_rd behaves as that tool)
	cp "$cache/$key" "$BATS_FILE_TMPDIR/$name" >&2 || return 1
	echo "$BATS_FILE_TMPDIR/$name"
}

# cc_cache_on: gcc, cc and clang build each distinct program once a run
# (tests/cc-cache), for the files whose tests build the same matrix cells
# and peers again and again.  The shims are files of their own, not
# links, so find-compilers still tells the three apart.  A test that
# puts a gcc of its own on PATH (fake_gcc) gets the shim as that gcc's
# real one.
cc_cache_on() {
	# MEMBENCH_CC_CACHE=off: every build runs the compiler (to rule the
	# cache out, or to time the suite without it)
	[ "${MEMBENCH_CC_CACHE:-on}" != off ] || return 0
	# the run's store, or the one a test names (tests/cc_cache.bats)
	CC_CACHE_DIR=${CC_CACHE_DIR:-${BATS_RUN_TMPDIR:-$BATS_FILE_TMPDIR}/cc-cache}
	export CC_CACHE_DIR
	if [ ! -x "$CC_CACHE_DIR/bin/clang" ]; then
		local new n
		mkdir -p "$CC_CACHE_DIR" || return 1
		new=$(mktemp -d "$CC_CACHE_DIR/.bin.XXXXXX") || return 1
		for n in gcc cc clang; do
			cp "$MEMBENCH_ROOT/tests/cc-cache" "$new/$n" || return 1
		done
		chmod 755 "$new" "$new"/* || return 1
		mv -T "$new" "$CC_CACHE_DIR/bin" 2>/dev/null || rm -rf "$new"
	fi
	case ":$PATH:" in
	*":$CC_CACHE_DIR/bin:"*) ;;
	*) PATH=$CC_CACHE_DIR/bin:$PATH ;;
	esac
}

# A fake /proc for the huge page checks: meminfo with the given pool.
fake_procfs() {
	local root="$1" total="$2" free="$3"
	mkdir -p "$root/sys/vm"
	cat >"$root/meminfo" <<EOT
MemTotal:       24000000 kB
HugePages_Total:    $total
HugePages_Free:     $free
HugePages_Rsvd:        0
HugePages_Surp:        0
Hugepagesize:       2048 kB
EOT
	echo "$total" >"$root/sys/vm/nr_hugepages"
	cp /proc/cpuinfo "$root/cpuinfo" 2>/dev/null || :
}

# pool_lock: hold the machine's huge page pool (nr_hugepages and the
# hugetlbfs mounts) until this test ends.  make check runs files side by
# side; a test that sets the pool, or checks that a run left it as it
# was, takes this lock first so no other file's test moves it meanwhile.
pool_lock() {
	# once per test: a second flock on a new descriptor would wait for
	# the first forever
	[ -z "${POOL_LOCK_FD:-}" ] || return 0
	exec {POOL_LOCK_FD}>>"${BATS_RUN_TMPDIR:-$BATS_FILE_TMPDIR}/hugepages.lock"
	flock "$POOL_LOCK_FD"
}

# default_huge_kib: the default huge page size in KiB (meminfo's
# Hugepagesize, whose pool is /proc/sys/vm/nr_hugepages), or nothing.
default_huge_kib() { awk '$1 == "Hugepagesize:" { print $2 }' /proc/meminfo; }

# with_hugepages N COMMAND...: with_pool of the default huge page size.
with_hugepages() {
	local kib
	kib=$(default_huge_kib)
	[ -n "$kib" ] || skip "this kernel has no huge pages (no Hugepagesize in /proc/meminfo)"
	with_pool "$kib" "$@"
}

# with_pool KIB N COMMAND...: run COMMAND with the pool of huge pages of
# KIB KiB (/sys/kernel/mm/hugepages/hugepages-KIBkB) at N pages, and put
# the pool back afterwards whatever happens.  A size the kernel does not
# offer is what the machine is (a CPU without 1 GiB pages): a plain skip.
# A pool the kernel refuses to fill, after memory is compacted once, is
# a skip with the reason.  Under CI it is a failure for the default huge
# page size, which any machine with huge pages fills; a larger size is
# what the machine is (a KVM guest of 24 GiB could make two 1 GiB pages
# and no third, compacted or not), and stays a plain skip.
with_pool() {
	local kib="$1" n="$2" dir old got
	shift 2
	dir=/sys/kernel/mm/hugepages/hugepages-${kib}kB
	[ "$(id -u)" = 0 ] || skip "reserving huge pages needs root"
	[ -d "$dir" ] || skip "this kernel offers no huge pages of $kib KiB (no $dir)"
	pool_lock
	old=$(cat "$dir/nr_hugepages")
	echo "$n" >"$dir/nr_hugepages" 2>/dev/null || :
	got=$(cat "$dir/free_hugepages")
	if [ "$got" -lt "$n" ] && [ -w /proc/sys/vm/compact_memory ]; then
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null || :
		echo "$n" >"$dir/nr_hugepages" 2>/dev/null || :
		got=$(cat "$dir/free_hugepages")
	fi
	if [ "$got" -lt "$n" ]; then
		echo "$old" >"$dir/nr_hugepages"
		[ "${CI:-}" != true ] || [ "$kib" != "$(default_huge_kib)" ] ||
			fail "the kernel reserved $got of $n huge pages of $kib KiB"
		skip "the kernel reserved $got of $n huge pages of $kib KiB"
	fi
	run "$@"
	echo "$old" >"$dir/nr_hugepages"
}

# need_mount_ns: the test mounts in a mount namespace of its own
# (unshare -m), which needs root and a / that is a mount point: a chroot
# into a plain directory has none.  Skips with the reason otherwise.
need_mount_ns() {
	need unshare
	[ "$(id -u)" = 0 ] || skip "a mount namespace needs root"
	local why
	why=$(unshare -m true 2>&1) || skip "no mount namespace here (${why:-unshare -m failed})"
}

# refused_by ARGS...: bench refuses ARGS as bad input: status 2, nothing
# on stdout, exactly one "bench: ..." line on stderr (left in $stderr).
refused_by() { refused_command "$BENCH" "$@"; }

# refused_command COMMAND...: as refused_by, for a command line that runs
# bench under another (taskset -c 1 "$BENCH" ARGS...).
refused_command() {
	run --separate-stderr "$@"
	assert_failure 2
	assert_output ""
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || {
		echo "expected one line on stderr, got: $stderr"
		return 1
	}
	[[ "$stderr" == bench:* ]]
}

# fake_llc ROOT SIZE CPU...: a fake sysfs under ROOT whose L3 is SIZE, one
# per listed CPU (each its own shared_cpu_list, so several CPUs make several
# caches).  Point MEMBENCH_SYSFS at ROOT.
fake_llc() {
	local root="$1" size="$2" cpu d
	shift 2
	for cpu in "$@"; do
		d="$root/devices/system/cpu/cpu$cpu/cache/index3"
		mkdir -p "$d"
		echo 3 >"$d/level"
		echo Unified >"$d/type"
		echo "$size" >"$d/size"
		echo "$cpu" >"$d/shared_cpu_list"
	done
}

# fake_sysfs ROOT caches|none [LINE]: a fake sysfs under ROOT for a
# machine whose sysfs reports caches (L1d 32 KiB, L1i 32 KiB, L2 1 MiB,
# L3 32 MiB, a LINE-byte line, 64 unless given) or reports none, as many
# guests' do.  Point MEMBENCH_SYSFS at ROOT.  A test whose outcome hangs
# on what sysfs says of the caches runs bench both ways, so that it
# passes on any host, whatever the host's own sysfs says, and checks
# both branches on every one.
fake_sysfs() {
	local root="$1" kind="$2" line="${3:-64}" i d level type size
	mkdir -p "$root/devices/system/cpu/cpu0"
	[ "$kind" = caches ] || return 0
	i=0
	for level in 1:Data:32K 1:Instruction:32K 2:Unified:1024K 3:Unified:32768K; do
		IFS=: read -r level type size <<<"$level"
		d="$root/devices/system/cpu/cpu0/cache/index$i"
		mkdir -p "$d"
		echo "$level" >"$d/level"
		echo "$type" >"$d/type"
		echo "$size" >"$d/size"
		echo "$line" >"$d/coherency_line_size"
		echo 0 >"$d/shared_cpu_list"
		i=$((i + 1))
	done
}

# each_sysfs [LINE]: both fake_sysfs trees under the test's directory, the
# one that reports caches (with a LINE-byte line) first; prints their
# roots, one a line, for a test to run bench under each.
each_sysfs() {
	fake_sysfs "$BATS_TEST_TMPDIR/sysfs-caches" caches "${1:-64}"
	fake_sysfs "$BATS_TEST_TMPDIR/sysfs-none" none
	printf '%s\n' "$BATS_TEST_TMPDIR/sysfs-caches" "$BATS_TEST_TMPDIR/sysfs-none"
}

# fake_shape ROOT: a fake sysfs machine under ROOT (point MEMBENCH_SYSFS
# at it), from lines on stdin:
#   cpu ID PACKAGE SIBLINGS NODE   one online CPU; SIBLINGS as sysfs lists
#                                  them (0,4); NODE - for none
#   node ID TOTAL_KIB FREE_KIB     a node's memory (- - for no meminfo)
# Each node's cpulist, and the online lists, are made from the cpu lines.
fake_shape() {
	local root=$1 kind id pkg sib node d online='' nodes='' n i
	local -A node_cpus=()
	# the directories are made in one mkdir, the files written by the
	# shell itself: a shape of a thousand CPUs takes no thousand forks
	local -a dirs=() files=() lines=()
	while read -r kind id pkg sib node; do
		case "$kind" in
		cpu)
			d=$root/devices/system/cpu/cpu$id/topology
			dirs+=("$d")
			files+=("$d/physical_package_id" "$d/thread_siblings_list")
			lines+=("$pkg" "$sib")
			online+=${online:+,}$id
			if [ "$node" != - ]; then node_cpus[$node]+=${node_cpus[$node]:+,}$id; fi
			;;
		node)
			d=$root/devices/system/node/node$id
			dirs+=("$d")
			nodes+=${nodes:+,}$id
			if [ "$pkg" != - ]; then
				files+=("$d/meminfo")
				lines+=("$(printf 'Node %s MemTotal:  %s kB\nNode %s MemFree:   %s kB\nNode %s MemUsed:  %s kB' \
					"$id" "$pkg" "$id" "$sib" "$id" $((pkg - sib)))")
			fi
			;;
		esac
	done
	mkdir -p "$root/devices/system/cpu" "${dirs[@]}"
	for i in "${!files[@]}"; do echo "${lines[$i]}" >"${files[$i]}"; done
	echo "$online" >"$root/devices/system/cpu/online"
	if [ -n "$nodes" ]; then
		echo "$nodes" >"$root/devices/system/node/online"
		for n in ${nodes//,/ }; do echo "${node_cpus[$n]:-}" >"$root/devices/system/node/node$n/cpulist"; done
	fi
}

# Playing a NUMA shape on this machine (bench nodes): the fake tree's
# CPUs must be CPUs this process may use, and its extra nodes ones this
# kernel does not have, so that binding there is refused by the kernel.

# ids LIST: the numbers of a sysfs list ("0-2,5"), one a line.
ids() {
	local part a b parts
	IFS=, read -r -a parts <<<"$1"
	for part in "${parts[@]}"; do
		a=${part%-*} b=${part#*-}
		while [ "$a" -le "$b" ]; do echo "$a"; a=$((a + 1)); done
	done
}

# allowed_cpus: the CPUs this shell may run on, as the kernel says.
allowed_cpus() {
	local line
	while read -r line; do
		[[ $line == Cpus_allowed_list:* ]] && ids "${line##*[[:space:]]}"
	done </proc/self/status
}

# two_cpus: the first two CPUs this process may use, in $CPU_A and
# $CPU_B; skips on a one-CPU machine (what the machine is).
two_cpus() {
	local c=()
	mapfile -t c < <(allowed_cpus)
	[ "${#c[@]}" -ge 2 ] || skip "one CPU: no second node's row to play"
	CPU_A=${c[0]} CPU_B=${c[1]}
}

# free_ids N: N node ids this kernel does not have online, in $FAKE_IDS,
# so the fake tree's extra nodes are ones the kernel refuses to bind.
free_ids() {
	local online id=40
	FAKE_IDS=()
	online=" $(ids "$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)" | tr '\n' ' ')"
	while [ "${#FAKE_IDS[@]}" -lt "$1" ]; do
		[[ $online == *" $id "* ]] || FAKE_IDS+=("$id")
		id=$((id + 1))
	done
}

# real_node: the first online node of this kernel; a fake tree keeps it,
# so that its cells there run on real memory.
real_node() { ids "$(cat /sys/devices/system/node/online 2>/dev/null || echo 0)" | head -n 1; }

# tlb_local_window BIN: the bytes of BIN's TLB-local chase window
# (LAT_LOCAL_PAGES base pages), as a short run reports it in JSON, so a
# test that needs a size beyond the window takes it from the build.
tlb_local_window() {
	"$1" latency --min 4K --max 1M --steps-per-octave 1 --json | jq -er .probes.local_window_bytes
}

# os_cache_bytes CPU LEVEL: the size in bytes of CPU's data or unified
# cache of LEVEL, as sysfs reports it, or nothing where it does not.  A
# test that needs a size inside a cache level takes it from here, never
# from one machine's figure, and skips (naming the reason) on nothing.
os_cache_bytes() {
	local idx level type size
	for idx in /sys/devices/system/cpu/cpu"$1"/cache/index*; do
		if [ ! -r "$idx/level" ] || [ ! -r "$idx/size" ]; then
			continue
		fi
		read -r level <"$idx/level"
		read -r type <"$idx/type"
		read -r size <"$idx/size"
		if [ "$level" != "$2" ] || [ "$type" = Instruction ]; then
			continue
		fi
		case "$size" in
		*K) echo $((${size%K} * 1024)) ;;
		*M) echo $((${size%M} * 1048576)) ;;
		*[0-9]) echo "$size" ;;
		*) continue ;;
		esac
		return 0
	done
}

# rt_prefix: RT, the command that runs a program at real-time priority 1
# (chrt -f 1) where the OS allows it, else nothing.  A live run whose
# readings a test needs undisturbed runs under it: no ordinary task (make
# check's other job, a busy loop) can then take its CPU mid-window.
rt_prefix() {
	RT=(chrt -f 1)
	chrt -f 1 true 2>/dev/null || RT=()
}

# round_as_c DIGITS X: X rounded as bench's printf, awk and the harnesses
# round it, through a double. bash's own printf rounds through long
# double, and a tie such as 1.185 or 4191.495 falls the other way there.
round_as_c() { awk -v d="$1" -v x="$2" 'BEGIN { printf "%.*f", d, x }'; }
