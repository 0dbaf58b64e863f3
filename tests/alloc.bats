#!/usr/bin/env bats
# Every allocation mode runs, validates, and gets the memory it names.
# bench reports each array's mapping as the kernel's smaps describes it;
# each test checks that mapping against a source bench does not control:
# the binary's symbol table and the loader's entry point (static), glibc
# serving malloc from the brk heap (malloc), the System V segment list
# (shm), the huge page pool (hugetlb), and the madvise flag (thp).

load test_helper

# glibc serves allocations below this from the brk heap ([heap] in smaps)
# instead of mmap; 32 MiB is the largest value the tunable accepts.
HEAP_TUNABLE=glibc.malloc.mmap_threshold=33554432

alloc_runs() {
	run "$BENCH" -s 600000 -n 3 --alloc "$1" --json
	assert_success
	run jq -r '[.run.alloc, .validation.ok, (.run.arrays | map(.page_kib) | min)] | @tsv' <<<"$output"
	assert_success
	[[ "$output" == "$1"$'\t'true$'\t'* ]]
}

# bench MODE ARGS...: a run whose JSON goes to $json, its stdout (the
# loader's auxv, when asked for) to $aux. MODE stream or latency.
json_run() {
	local mode="$1"
	shift
	json="$BATS_TEST_TMPDIR/run.json"
	aux="$BATS_TEST_TMPDIR/aux"
	if [ "$mode" = stream ]; then
		"$BENCH" -s 600000 -n 3 "$@" --json-file "$json" >"$aux"
	else
		"$BENCH" latency --min 1m --max 4m --steps-per-octave 1 "$@" --json-file "$json" >"$aux"
	fi
}

# The arrays (stream) or the chase buffer (latency) of $json, one per
# line: name address bytes start end vmas kernel_page_kib hugetlb_kib
# inode vmflags (spaces as commas) and the mapping's name ("-" if none).
buffers() {
	jq -r '(if .mode == "stream" then .run.arrays[]
		else (.run.buffer + {name: "chase"}) end)
		| [.name, .address, .bytes, .mapping.start, .mapping.end,
		   .mapping.vmas, .mapping.kernel_page_kib, .mapping.hugetlb_kib,
		   .mapping.inode, (.mapping.vmflags | gsub(" "; ",")),
		   (if .mapping.name == "" then "-" else .mapping.name end)]
		| @tsv' "$json"
}

# Every buffer lies inside the one mapping bench reports for it.
inside_mapping() {
	local name addr bytes start end vmas rest n=0
	while IFS=$'\t' read -r name addr bytes start end vmas rest; do
		[ "$vmas" = 1 ] || { echo "$name spans $vmas mappings"; return 1; }
		((start <= addr && addr + bytes <= end)) ||
			{ echo "$name $addr+$bytes is outside $start-$end"; return 1; }
		n=$((n + 1))
	done < <(buffers)
	[ "$n" -ge 1 ]
}

# flags_lack FLAG...: no buffer's VmFlags holds any FLAG.
flags_lack() {
	local flags f
	for flags in $(buffers | cut -f10); do
		for f in "$@"; do
			[[ ",$flags," != *",$f,"* ]] ||
				{ echo "VmFlags $flags holds $f"; return 1; }
		done
	done
}

# flags_have FLAG: every buffer's VmFlags holds FLAG.
flags_have() {
	local flags n=0
	for flags in $(buffers | cut -f10); do
		[[ ",$flags," == *",$1,"* ]] ||
			{ echo "VmFlags $flags lacks $1"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

# names_are NAME: every buffer's mapping is named NAME ("-" anonymous).
names_are() {
	local got n=0
	while IFS= read -r got; do
		[ "$got" = "$1" ] || { echo "mapping named '$got', not '$1'"; return 1; }
		n=$((n + 1))
	done < <(buffers | cut -f11)
	[ "$n" -ge 1 ]
}

# The static arrays are where the binary's symbol table puts them: the
# load base (the loader's AT_ENTRY minus the ELF entry point) plus the
# symbol's value from nm.  A buffer any allocator returns fails this.
static_at_symbols() {
	local entry base name addr sym n=0
	need nm
	need readelf
	entry=$(awk '/^AT_ENTRY:/ {print $2}' "$aux")
	[ -n "$entry" ] || skip "the loader shows no auxv (not glibc)"
	base=$((entry - $(readelf -h "$BENCH" | awk '/Entry point address/ {print $4}')))
	((base % 4096 == 0))
	while IFS=$'\t' read -r name addr _; do
		[ "$name" = chase ] && name=a
		sym=$(nm "$BENCH" | awk -v s="static_$name" '$3 == s {print $1}')
		[ -n "$sym" ] || { echo "nm finds no static_$name"; return 1; }
		((addr == base + 0x$sym)) || {
			printf '%s at %x, the symbol table says %x\n' "$name" \
				"$addr" $((base + 0x$sym))
			return 1
		}
		n=$((n + 1))
	done < <(buffers)
	[ "$n" -ge 1 ]
}

# System V segments while bench runs: poll ipcs until bench exits.
shm_run() {
	local mode="$1" pid
	shift
	need ipcs
	seen="$BATS_TEST_TMPDIR/ipcs"
	: >"$seen"
	json="$BATS_TEST_TMPDIR/run.json"
	if [ "$mode" = stream ]; then
		"$BENCH" -s 2000000 -n 40 --alloc shm "$@" --json-file "$json" >/dev/null &
	else
		"$BENCH" latency --min 1m --max 4m --steps-per-octave 1 --alloc shm "$@" --json-file "$json" >/dev/null &
	fi
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		ipcs -m >>"$seen" 2>/dev/null || true
	done
	wait "$pid"
}

# Each buffer's mapping is a segment ipcs listed while bench ran: the
# smaps inode of a SysV mapping is the segment's shmid; the segment's size
# is the buffer's bytes plus its offset into the segment.
shm_segments_seen() {
	local name addr bytes start end vmas kps htlb inode rest n=0
	while IFS=$'\t' read -r name addr bytes start end vmas kps htlb inode rest; do
		[ "$inode" -gt 0 ] || { echo "$name: no shmid"; return 1; }
		awk -v id="$inode" -v lo="$bytes" -v hi="$((bytes + 65536))" '
			$2 == id && $5 >= lo && $5 <= hi { found = 1 }
			END { exit !found }' "$seen" || {
			echo "$name: ipcs never listed segment $inode of about $bytes bytes"
			return 1
		}
		n=$((n + 1))
	done < <(buffers)
	[ "$n" -ge 1 ]
}

# ---------------------------------------------------------------- static

@test "--alloc static uses the .bss arrays" {
	alloc_runs static
}

@test "--alloc static: the arrays are at the symbol table's addresses" {
	LD_SHOW_AUXV=1 json_run stream --alloc static
	inside_mapping
	static_at_symbols
	flags_lack sh ht hg
}

@test "latency --alloc static: the chase buffer is static_a" {
	LD_SHOW_AUXV=1 json_run latency --alloc static
	inside_mapping
	static_at_symbols
	flags_lack sh ht hg
}

# ---------------------------------------------------------------- malloc

@test "--alloc malloc" {
	alloc_runs malloc
}

@test "--alloc malloc: arrays come from malloc's brk heap when glibc keeps it there" {
	ldd --version 2>&1 | grep -qi 'glibc\|gnu libc' || skip "not glibc"
	GLIBC_TUNABLES=$HEAP_TUNABLE json_run stream --alloc malloc
	inside_mapping
	names_are '[heap]'
	flags_lack sh ht hg
}

@test "latency --alloc malloc: the chase buffer comes from malloc's heap" {
	ldd --version 2>&1 | grep -qi 'glibc\|gnu libc' || skip "not glibc"
	GLIBC_TUNABLES=$HEAP_TUNABLE json_run latency --alloc malloc
	inside_mapping
	names_are '[heap]'
	flags_lack sh ht hg
}

# ------------------------------------------------------------------ mmap

@test "--alloc mmap" {
	alloc_runs mmap
}

@test "--alloc mmap: anonymous mappings, not malloc's heap, not shared" {
	GLIBC_TUNABLES=$HEAP_TUNABLE json_run stream --alloc mmap
	inside_mapping
	names_are -
	flags_lack sh ht hg
}

@test "latency --alloc mmap (its default): an anonymous mapping" {
	GLIBC_TUNABLES=$HEAP_TUNABLE json_run latency --alloc mmap
	inside_mapping
	names_are -
	flags_lack sh ht hg
}

# The THP mode is the kernel's, and what the kernel gives is real, not
# faked: each test checks the branch this machine is on.
@test "--alloc mmap stays on base pages under THP madvise or never; under always the pages reported are smaps'" {
	thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo "")
	run "$BENCH" -s 4000000 -n 3 --alloc mmap --json
	assert_success
	if [[ "$thp" == *"[always]"* ]]; then
		# the kernel may back it with huge pages: bench says what it got
		jq -e '.system.thp == "always" and (.run.arrays | all(
			(.huge_pct > 0) == (.mapping.anon_huge_kib > 0)))' <<<"$output"
	else
		run jq -r '[.run.arrays[].huge_pct] | max' <<<"$output"
		assert_output 0
	fi
}

# ------------------------------------------------------------------- thp

@test "--alloc thp obtains transparent huge pages when THP allows it, and says so when it does not" {
	thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo "[never]")
	run "$BENCH" -s 4000000 -n 3 --alloc thp --json
	assert_success
	if [[ "$thp" == *"[never]"* ]]; then
		# THP off: base pages, reported as such, never claimed huge
		jq -e '.system.thp != "always" and .system.thp != "madvise" and
			(.run.arrays | all(.huge_pct == 0 and .page_kib < 2048))' <<<"$output"
		run "$BENCH" -s 4000000 -n 3 --alloc thp
		assert_line --regexp '^Page size: a [0-9]+ KiB \(0% huge\)'
		return 0
	fi
	run jq -r '.run.arrays[] | "\(.page_kib) \(.huge_pct) \(.mapping.anon_huge_kib)"' <<<"$output"
	# 32 MB arrays on a 2 MiB-aligned madvised range: mostly huge
	while read -r kib pct anon; do
		[ "$kib" -ge 2048 ]
		awk -v p="$pct" 'BEGIN { exit !(p >= 50) }'
		[ "$anon" -ge 2048 ]
	done <<<"$output"
	run "$BENCH" -s 4000000 -n 3 --alloc thp
	assert_line --regexp '^Page size: a 2048 KiB \([0-9]+% huge\), b 2048 KiB'
}

@test "--alloc thp: the arrays' mappings are madvised for huge pages (hg)" {
	json_run stream --alloc thp
	inside_mapping
	flags_have hg
	flags_lack sh ht
}

@test "latency --alloc thp: the chase buffer is madvised for huge pages" {
	json_run latency --alloc thp
	inside_mapping
	flags_have hg
	flags_lack sh ht
}

# ------------------------------------------------------------------- shm

@test "--alloc shm leaves no System V segment behind" {
	# the segments of this run, by shmid: other tests (and files) running
	# side by side make and remove segments of their own meanwhile
	local name addr bytes start end vmas kps htlb inode rest n=0
	shm_run stream
	while IFS=$'\t' read -r name addr bytes start end vmas kps htlb inode rest; do
		[ "$inode" -gt 0 ] || fail "$name: no shmid"
		ipcs -m | awk -v id="$inode" '$2 == id { left = 1 } END { exit left }' ||
			fail "$name: segment $inode is still there after bench exited"
		n=$((n + 1))
	done < <(buffers)
	[ "$n" -ge 3 ]
}

@test "--alloc shm: each array is a System V segment that ipcs lists" {
	shm_run stream
	inside_mapping
	names_are '/SYSV00000000 (deleted)'
	flags_have sh
	shm_segments_seen
	run jq -r '.validation.ok' "$json"
	assert_output true
}

@test "latency --alloc shm: the chase buffer is a System V segment" {
	shm_run latency
	inside_mapping
	names_are '/SYSV00000000 (deleted)'
	flags_have sh
	shm_segments_seen
}

# --------------------------------------------------------------- hugetlb

@test "--alloc hugetlb runs from a reserved pool and restores it" {
	pool_lock
	before=$(cat /proc/sys/vm/nr_hugepages)
	with_hugepages 16 "$BENCH" -s 1000000 -n 3 --alloc hugetlb --json
	assert_success
	run jq -r '.run.arrays[] | "\(.page_kib) \(.huge_pct)"' <<<"$output"
	assert_output "$(printf '2048 100\n2048 100\n2048 100')"
	[ "$(cat /proc/sys/vm/nr_hugepages)" = "$before" ]
}

# hugetlb_run MODE ARGS: json_run with a pool of 16 pages, restored.
hugetlb_run() {
	json="$BATS_TEST_TMPDIR/run.json"
	if [ "$1" = stream ]; then
		with_hugepages 16 "$BENCH" -s 1000000 -n 3 --alloc hugetlb --json-file "$json"
	else
		with_hugepages 16 "$BENCH" latency --min 1m --max 4m --steps-per-octave 1 --alloc hugetlb \
			--json-file "$json"
	fi
	assert_success
}

# The kernel's page size for a hugetlb mapping is the pool's, and only
# hugetlb mappings carry the ht flag.
on_hugetlb_pages() {
	local pool kps htlb
	pool=$(awk '/^Hugepagesize:/ {print $2}' /proc/meminfo)
	while IFS=$'\t' read -r kps htlb; do
		[ "$kps" = "$pool" ] || { echo "KernelPageSize $kps, pool $pool"; return 1; }
		[ "$htlb" -ge "$pool" ] || { echo "Hugetlb $htlb KiB"; return 1; }
	done < <(buffers | cut -f7,8)
	flags_have ht
}

@test "--alloc hugetlb: each array is a hugetlb mapping on the pool's pages" {
	hugetlb_run stream
	inside_mapping
	on_hugetlb_pages
}

@test "latency --alloc hugetlb: the chase buffer is a hugetlb mapping" {
	hugetlb_run latency
	inside_mapping
	on_hugetlb_pages
}

@test "--alloc hugetlb with an empty pool exits 2, never SIGBUS" {
	# an empty pool as procfs says it, whatever this machine's is
	fake_procfs "$BATS_TEST_TMPDIR/proc" 0 0
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" run --separate-stderr "$BENCH" -s 1000000 -n 3 --alloc hugetlb
	assert_failure 2
	assert_output ""
	[[ "$stderr" == *"huge pages but only 0 are free"* ]]
	# and the machine's own pool, as it is: enough, or refused in one
	# line; never a signal
	pool_lock
	run --separate-stderr "$BENCH" -s 1000000 -n 3 --alloc hugetlb
	if [ "$status" = 0 ]; then
		assert_line --regexp '^Solution Validates'
	else
		assert_failure 2
		assert_output ""
		[[ "$stderr" == *"huge pages but only "*" are free"* ]]
	fi
}

# ------------------------------------------------------------------ text

@test "the text reports one mapping line per array and for the chase buffer" {
	run "$BENCH" -s 600000 -n 3 --alloc shm
	assert_success
	for a in a b c; do
		assert_line --regexp "^Mapping $a: [0-9a-f]+-[0-9a-f]+ \(.*\) /SYSV00000000 \(deleted\), KernelPageSize 4 KiB, .*VmFlags .*\bsh\b"
	done
	run "$BENCH" latency --min 1m --max 2m --alloc thp
	assert_success
	assert_line --regexp '^# mapping of the chase buffer: [0-9a-f]+-[0-9a-f]+ \(.*\) anonymous, KernelPageSize [0-9]+ KiB, .*VmFlags .*\bhg\b'
}

@test "each Mapping line starts with its array's own range; arrays bench maps keep mappings of their own" {
	local mode json i addr bytes lo hi
	for mode in thp mmap static; do
		json=$("$BENCH" -s 2000000 -n 3 --alloc "$mode" --json-file "$BATS_TEST_TMPDIR/$mode.json")
		for i in 0 1 2; do
			addr=$(jq -r ".run.arrays[$i].address" "$BATS_TEST_TMPDIR/$mode.json")
			bytes=$(jq -r ".run.arrays[$i].bytes" "$BATS_TEST_TMPDIR/$mode.json")
			lo=$(printf '%x' "$addr") hi=$(printf '%x' $((addr + bytes)))
			grep -q "^Mapping $(jq -r ".run.arrays[$i].name" "$BATS_TEST_TMPDIR/$mode.json"): $lo-$hi (15.3 MiB) in [0-9a-f]*-[0-9a-f]* (" <<<"$json" ||
				{ echo "$mode: array $i's line does not start with $lo-$hi:"; grep '^Mapping' <<<"$json"; return 1; }
		done
		case "$mode" in
		thp | mmap)
			# the kernel would merge them: a guard page between keeps each apart
			run jq -c '[.run.arrays[].mapping.shared_with] | add' "$BATS_TEST_TMPDIR/$mode.json"
			assert_output '[]'
			run jq -r '.run.arrays | map(.mapping.start) | unique | length' "$BATS_TEST_TMPDIR/$mode.json"
			assert_output 3
			! grep -q 'which holds' <<<"$json" ;;
		static)
			# one .bss mapping holds all three, and each line says so
			run jq -c '[.run.arrays[].mapping.shared_with]' "$BATS_TEST_TMPDIR/$mode.json"
			assert_output '[["b","c"],["a","c"],["a","b"]]'
			grep -q '^Mapping a: .*, which holds b and c) ' <<<"$json" ;;
		esac
	done
}

# ------------------------------------------------------------ page sizes

# fake_pools DIR SIZE_KIB:FREE...: a sysfs under DIR whose kernel keeps
# pools of those sizes, each with FREE free pages (and as many in all).
fake_pools() {
	local root="$1" p
	shift
	mkdir -p "$root/kernel/mm/hugepages"
	for p in "$@"; do
		mkdir -p "$root/kernel/mm/hugepages/hugepages-${p%%:*}kB"
		echo "${p#*:}" >"$root/kernel/mm/hugepages/hugepages-${p%%:*}kB/nr_hugepages"
		echo "${p#*:}" >"$root/kernel/mm/hugepages/hugepages-${p%%:*}kB/free_hugepages"
		echo 0 >"$root/kernel/mm/hugepages/hugepages-${p%%:*}kB/resv_hugepages"
	done
}

# fake_cpuinfo DIR FLAGS: a procfs under DIR whose CPU has those flags.
fake_cpuinfo() {
	fake_procfs "$1" 0 0
	printf 'processor\t: 0\nflags\t\t: %s\n\n' "$2" >"$1/cpuinfo"
}

@test "--page-size: a size the machine does not offer, or another mode, is refused in one line before anything is allocated" {
	local sys=$BATS_TEST_TMPDIR/sys proc=$BATS_TEST_TMPDIR/proc
	fake_pools "$sys" 2048:64
	fake_cpuinfo "$proc" 'fpu pse sse2 avx2'
	export MEMBENCH_SYSFS=$sys MEMBENCH_PROCFS=$proc
	refused_by latency --alloc hugetlb --page-size 1G --max 1G
	[[ "$stderr" == 'bench: --page-size 1 GiB: this CPU has no 1 GiB pages (no pdpe1gb among the flags of '"$proc"'/cpuinfo); the kernel offers 2 MiB' ]]
	# the CPU has them, the kernel keeps no pool of them
	fake_cpuinfo "$proc" 'fpu pse pdpe1gb avx2'
	refused_by -s 1000000 -n 3 --alloc hugetlb --page-size 1G
	[[ "$stderr" == 'bench: --page-size 1 GiB: the kernel keeps no pool of that size; it offers huge pages of 2 MiB ('"$sys"'/kernel/mm/hugepages)' ]]
	refused_by latency --alloc hugetlb --page-size 3M
	[[ "$stderr" == *'--page-size 3 MiB: not a power of two' ]]
	refused_by latency --alloc hugetlb --page-size 4K
	[[ "$stderr" == *'--page-size 4 KiB: not larger than the base page of '* ]]
	refused_by latency --alloc shm --page-size 4M
	[[ "$stderr" == *'the kernel keeps no pool of that size; it offers huge pages of 2 MiB '* ]]
	# only hugetlb and shm choose a page size
	refused_by latency --alloc thp --page-size 2M
	[[ "$stderr" == 'bench: --page-size: it picks the huge pages of --alloc hugetlb or shm, and this run'"'"'s chase buffer is --alloc thp' ]]
	refused_by --page-size 2M -s 1000000
	[[ "$stderr" == *"this run's arrays are --alloc thp" ]]
	refused_by nodes --alloc mmap --page-size 2M
	[[ "$stderr" == *"this run's buffers are --alloc mmap" ]]
	# a pool of the size with too few free pages: named with its own file
	fake_pools "$sys" 2048:64 1048576:2
	refused_by -s 100000000 -n 3 --alloc hugetlb --page-size 1G
	[[ "$stderr" == 'bench: --alloc hugetlb: needs 3 huge pages of 1 GiB but only 2 are free (nr_hugepages=2); reserve more, e.g. echo 3 > '"$sys"'/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages' ]]
	# --plan asks no pool: it says what the run takes, for the harness
	run --separate-stderr "$BENCH" latency --alloc hugetlb --page-size 1G --max 3G --plan
	assert_success
	assert_line huge_page_bytes=1073741824
	assert_line huge_pages=3
	run --separate-stderr "$BENCH" -s 1000 --alloc hugetlb --page-size 1G --plan
	assert_line huge_pages=3
}

@test "info lists every huge page size the kernel keeps a pool of" {
	local sys=$BATS_TEST_TMPDIR/sys
	fake_pools "$sys" 2048:5 1048576:2 32768:0
	MEMBENCH_SYSFS=$sys run "$BENCH" info
	assert_success
	assert_line 'Huge page sizes (--page-size): 2 MiB (5 in the pool, 5 free) | 32 MiB (0 in the pool, 0 free) | 1 GiB (2 in the pool, 2 free)'
	MEMBENCH_SYSFS=$sys run "$BENCH" info --json
	jq -e '.system.hugepages.sizes == [{page_kib: 2048, total: 5, free: 5},
		{page_kib: 32768, total: 0, free: 0}, {page_kib: 1048576, total: 2, free: 2}]' <<<"$output" >/dev/null
	# and this machine's, as its sysfs lists them
	local d sizes=()
	for d in /sys/kernel/mm/hugepages/hugepages-*kB; do
		[ -d "$d" ] && sizes+=("$(basename "$d" | tr -dc 0-9)")
	done
	run "$BENCH" info --json
	[ "$(jq -r '[.system.hugepages.sizes[].page_kib] | join(" ")' <<<"$output")" = \
		"$(printf '%s\n' ${sizes[@]+"${sizes[@]}"} | sort -n | paste -sd ' ')" ]
}

# paged_run KIB N ARGS...: bench ARGS, its JSON in $json, with the pool
# of KIB KiB pages at N pages (with_pool), put back afterwards.
paged_run() {
	local kib=$1 n=$2
	shift 2
	json="$BATS_TEST_TMPDIR/run.json"
	with_pool "$kib" "$n" "$BENCH" "$@" --json-file "$json"
}

# on_pages_of KIB: every buffer of $json is a hugetlb mapping of KIB KiB
# pages, and the run says it asked for that size.
on_pages_of() {
	local kps htlb
	while IFS=$'\t' read -r kps htlb; do
		[ "$kps" = "$1" ] || { echo "KernelPageSize $kps, asked $1"; return 1; }
		[ "$htlb" -ge "$1" ] || { echo "Hugetlb $htlb KiB"; return 1; }
	done < <(buffers | cut -f7,8)
	flags_have ht
	[ "$(jq -r '.run.page_size_bytes' "$json")" = $(($1 * 1024)) ]
}

@test "--page-size 2M: hugetlb and shm arrays and chase buffers on the pool's 2 MiB pages" {
	paged_run 2048 40 -s 1000000 -n 3 --alloc hugetlb --page-size 2M
	assert_success
	assert_line --regexp '^Solution Validates'
	on_pages_of 2048
	# shm: without --page-size a segment takes shmem's own pages; with
	# it, SHM_HUGETLB puts it on the pool's
	paged_run 2048 40 -s 1000000 -n 3 --alloc shm --page-size 2M
	assert_success
	on_pages_of 2048
	names_are '/SYSV00000000 (deleted)'
	flags_have sh
	paged_run 2048 40 latency --min 1m --max 4m --steps-per-octave 1 --alloc shm --page-size 2M
	assert_success
	on_pages_of 2048
	paged_run 2048 40 latency --min 1m --max 4m --steps-per-octave 1 --alloc hugetlb --page-size 2M
	assert_success
	on_pages_of 2048
}

# slow: a guest's first touch of each 1 GiB page faults it in on the host
# (2.5 s a page on the Intel guest, 9 s for this test), so check-fast
# leaves it to make check
# bats test_tags=slow
@test "--page-size 1G: the chase buffer and the arrays on 1 GiB pages, from a pool the test reserves" {
	paged_run 1048576 1 latency --min 1m --max 16m --steps-per-octave 1 --alloc hugetlb --page-size 1G
	assert_success
	on_pages_of 1048576
	assert_line --regexp '^# mapping of the chase buffer: .*, KernelPageSize 1048576 KiB, '
	# three arrays, three pages, however small
	paged_run 1048576 3 -s 1000000 -n 3 --alloc hugetlb --page-size 1G
	assert_success
	on_pages_of 1048576
}
