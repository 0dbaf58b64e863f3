#!/usr/bin/env bats
# The hugepages matrix: run-matrix reserves the pool and mounts hugetlbfs
# itself, puts both back on every exit path, and skips with the reason
# when it cannot.

load matrix_helper
# cells other files build too: once a run (tests/cc-cache)
cc_cache_on

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

can_reserve() {
	[ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/nr_hugepages ]
}

# A fake procfs: this machine's meminfo and mounts, and nr_hugepages
# missing, or a read-only one (even root cannot write free_hugepages).
RO_COUNT=/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages
fake_procfs() {
	local p="$BATS_TEST_TMPDIR/proc"
	mkdir -p "$p/sys/vm"
	cp /proc/meminfo /proc/mounts "$p/"
	[ "$1" = missing ] || ln -s "$RO_COUNT" "$p/sys/vm/nr_hugepages"
	printf '%s' "$p"
}

@test "hugepages matrix: runs and shows the page sizes when the pool can be reserved, else skips with the reason" {
	need_compiler gcc
	pool_lock
	before=$(hugepages_state)
	g1=/sys/kernel/mm/hugepages/hugepages-1048576kB
	before1g=$(cat "$g1/nr_hugepages" 2>/dev/null || true)
	# the shipped matrix's cells, built at -O0: what is checked is where
	# the arrays land, which the optimiser does not change, and -O3's
	# four builds cost 28 s of CPU where -O0's cost 5
	sed 's/@openmp -O3 /@openmp -O0 /' "$MEMBENCH_ROOT/matrix/hugepages.matrix" >"$BATS_TEST_TMPDIR/hugepages.matrix"
	[ "$(grep -c '@openmp -O0 ' "$BATS_TEST_TMPDIR/hugepages.matrix")" -ge 3 ]
	tiny_matrix "$BATS_TEST_TMPDIR/hugepages.matrix"
	assert_success
	assert_equal "$(hugepages_state)" "$before"
	assert_equal "$(cat "$g1/nr_hugepages" 2>/dev/null || true)" "$before1g"
	dir=$(results_dir)
	row() { table_row "$dir" "$(grep -l "^memory = $1\$" "$dir"/cells/*/cell.info | sed 's|.*/cells/0*||; s|/.*||')"; }
	# 1 GiB pages (three, an array each): where the kernel offers none
	# (this CPU has no pdpe1gb, or the kernel keeps no such pool) bench's
	# plan or run-matrix says so; where it does, the pool is reserved,
	# or the cell says how short it fell.
	if [ ! -d "$g1" ]; then
		assert_regex "$(row hugetlb-1g)" 'skipped: (bench --plan refused: bench: --page-size 1 GiB: |this kernel offers no 1G huge pages)'
	else
		assert_regex "$(row hugetlb-1g)" '(skipped: cannot reserve [0-9]+ huge pages of 1G: |skipped: could reserve only [0-9]+ of the [0-9]+ huge pages of 1G needed|\| ok \| 100% \(1048576 KiB hugetlb pages\) \|)'
	fi
	# glibc 2.34 dropped the hook HUGETLB_MORECORE used: never a number.
	if [ "$(getconf GNU_LIBC_VERSION | sed 's/glibc 2\.//; s/\..*//')" -ge 34 ]; then
		assert_regex "$(row morecore)" 'skipped: unsupported: HUGETLB_MORECORE needs glibc < 2.34'
	fi
	if ! can_reserve; then
		assert_regex "$(row hugetlb)" 'skipped: cannot reserve [0-9]+ huge pages: .*nr_hugepages is not writable'
		assert_regex "$(row bss-relink)" 'skipped: '
		return
	fi
	if grep -q 'could reserve only' "$dir/machine.txt"; then
		assert_regex "$(row hugetlb)" 'skipped: could reserve only [0-9]+ of the [0-9]+ huge pages'
		return
	fi
	grep -Eq '^nr_hugepages ([0-9]+ -> [0-9]+ .*|.*left alone)$' "$dir/machine.txt"
	assert_regex "$(row hugetlb)" '\| ok \| 100% \(2048 KiB hugetlb pages\) \|'
	assert_regex "$(row shm)" '\| ok \| 100% \(2048 KiB hugetlb pages\) \|'
	assert_regex "$(row plain)" '\| ok \| 0% \(4 KiB pages\) \|'
	if [ -x /usr/bin/ld.hugetlbfs ] && [ -e "$(gcc -print-file-name=libhugetlbfs.so.0)" ]; then
		# The relinked .bss really sits on 2 MiB pages, by smaps...
		assert_regex "$(row bss-relink)" '\| ok \| 100% \(2048 KiB hugetlb pages\) \|'
		jq -e '[.run.arrays[] | .kernel_page_kib == 2048] | all' \
			"$(dirname "$(grep -l '^memory = bss-relink$' "$dir"/cells/*/cell.info)")/result.json" >/dev/null
		# ...and without the library hugectl silently does nothing: flagged.
		assert_regex "$(row bss-relink-nolib)" '\| ok \| 0% \(4 KiB pages\): requested, NOT obtained \|'
	fi
}

@test "no huge page pool in the kernel: the pool cells are skipped with the reason" {
	need_compiler gcc
	p=$(fake_procfs missing)
	m=$(write_matrix pool 'gcc | -O2 | | plain ; hugetlb | 1')
	MEMBENCH_PROCFS=$p tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	assert_regex "$(table_row "$dir" 1)" '\| ok \|'
	assert_regex "$(table_row "$dir" 2)" "skipped: no $p/sys/vm/nr_hugepages: this kernel has no huge page pool"
}

@test "nr_hugepages cannot be written: skipped with the reason, nothing changed" {
	need_compiler gcc
	[ -f "$RO_COUNT" ] && ! (echo 1 >"$RO_COUNT") 2>/dev/null || skip "no read-only $RO_COUNT"
	p=$(fake_procfs readonly)
	sed -i 's/^HugePages_Free:.*/HugePages_Free:        0/' "$p/meminfo"
	m=$(write_matrix pool 'gcc | -O2 | | hugetlb | 1')
	MEMBENCH_PROCFS=$p tiny_matrix "$m"
	# Its only cell is skipped: nothing was measured, exit status 1.
	assert_failure 1
	assert_equal "${lines[-1]}" 'run-matrix: every cell was skipped: nothing was measured (see the table for why)'
	dir=$(results_dir)
	# As many pages as the cell's own bench says it needs.
	n=$(MEMBENCH_PROCFS=$p "$dir/cells/001/bench" stream --alloc hugetlb --plan | sed -n 's/^huge_pages=//p')
	assert_regex "$(table_row "$dir" 1)" \
		"skipped: cannot reserve $n huge pages: $p/sys/vm/nr_hugepages is not writable \\(run as root\\)"
}

@test "interrupted mid-run: nr_hugepages and mounts are put back" {
	can_reserve || skip "needs root and a writable /proc/sys/vm/nr_hugepages"
	need_compiler gcc
	need setsid
	pool_lock
	before=$(hugepages_state)
	# One long hugetlb cell (many repetitions of a tiny array).
	m=$(write_matrix slow 'gcc | -O0 | | hugetlb ; bss-relink | 1')
	setsid "$RUN_MATRIX" --size 4000000 --ntimes 200 \
		--results "$BATS_TEST_TMPDIR/results" "$m" >"$BATS_TEST_TMPDIR/log" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		grep -qs '^nr_hugepages .* -> ' "$BATS_TEST_TMPDIR"/results/*/*/machine.txt && break
		grep -qs 'left alone' "$BATS_TEST_TMPDIR"/results/*/*/machine.txt && break
		sleep 0.1
	done
	sleep 0.5
	kill -TERM -- "-$pid"
	wait "$pid" || true
	assert_equal "$(hugepages_state)" "$before"
	grep -q "restored .*nr_hugepages to\\|unmounted the hugetlbfs" "$BATS_TEST_TMPDIR/log" ||
		grep -q 'left alone' "$BATS_TEST_TMPDIR"/results/*/*/machine.txt
}

# A fake procfs whose pool "reserves" what is written to it, through the
# harness's knob writer, as a kernel with free memory would.
pool_procfs() {
	local p="$BATS_TEST_TMPDIR/fakeproc"
	mkdir -p "$p/sys/vm"
	printf 'MemTotal: 24000000 kB\nHugePages_Total: 0\nHugePages_Free: 0\nHugepagesize: 2048 kB\n' >"$p/meminfo"
	echo 0 >"$p/sys/vm/nr_hugepages"
	: >"$p/mounts"
	cat >"$BATS_TEST_TMPDIR/pool-writer" <<'EOF'
#!/bin/bash
printf '%s\n' "$2" >"$1"
case "$1" in
*/nr_hugepages) sed -i "s/^HugePages_Total:.*/HugePages_Total: $2/; s/^HugePages_Free:.*/HugePages_Free: $2/" \
	"$(dirname "$1")/../../meminfo" ;;
esac
EOF
	chmod +x "$BATS_TEST_TMPDIR/pool-writer"
	printf '%s' "$p"
}

@test "Ctrl-C mid-run: the harness's restore puts nr_hugepages back (fake procfs)" {
	need_compiler gcc
	p=$(pool_procfs)
	pool_lock
	real_before=$(hugepages_state)
	# The pool cell runs first; the long plain cell is running when Ctrl-C comes.
	m=$(write_matrix slow 'gcc | -O0 | | hugetlb ; plain | 1')
	# Job control: its own process group, and SIGINT not ignored as it is
	# for a plain background command.
	set -m
	MEMBENCH_PROCFS=$p MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/pool-writer MEMBENCH_UID=0 \
		"$RUN_MATRIX" --size 4000000 --ntimes 200 \
		--results "$BATS_TEST_TMPDIR/results" "$m" >"$BATS_TEST_TMPDIR/log" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 1 900); do
		grep -qs '^run-matrix: cell 002' "$BATS_TEST_TMPDIR/log" && break
		sleep 0.1
	done
	grep -q '^run-matrix: cell 002' "$BATS_TEST_TMPDIR/log"
	# The pool was raised for the hugetlb cell, and is still raised.
	[ "$(cat "$p/sys/vm/nr_hugepages")" -gt 0 ]
	grep -q '^nr_hugepages 0 -> ' "$BATS_TEST_TMPDIR"/results/*/*/machine.txt
	# Ctrl-C reaches the whole foreground process group.
	kill -INT -- "-$pid"
	rc=0
	wait "$pid" || rc=$?
	assert_equal "$rc" 130
	assert_equal "$(cat "$p/sys/vm/nr_hugepages")" 0
	grep -q "^run-matrix: interrupted by SIGINT; restoring the machine" "$BATS_TEST_TMPDIR/log"
	grep -q "^run-matrix: restored $p/sys/vm/nr_hugepages to '0'" "$BATS_TEST_TMPDIR/log"
	# shellcheck disable=SC2144 # the run made exactly one results directory
	[ -f "$BATS_TEST_TMPDIR"/results/*/*/INTERRUPTED ]
	# shellcheck disable=SC2144
	[ ! -e "$BATS_TEST_TMPDIR"/results/*/*/table.md ]
	# The machine's own pool was never touched.
	assert_equal "$(hugepages_state)" "$real_before"
}

# ------------------------------------------------ pools of a named size
# A fake machine whose default pool holds 2 MiB pages (procfs) and whose
# sysfs offers 1 GiB pages too, or not (no-1g), with a knob writer that
# reserves what is written, as a kernel with free memory does: at most
# FAKE_1G_LIMIT pages of 1 GiB when that is set.  Prints its root.
sized_machine() {
	local m=$BATS_TEST_TMPDIR/sized d
	mkdir -p "$m/proc/sys/vm" "$m/sys/kernel/mm/hugepages/hugepages-2048kB"
	printf 'MemTotal: 24000000 kB\nMemAvailable: %s kB\nHugePages_Total: 0\nHugePages_Free: 0\nHugepagesize: 2048 kB\n' \
		"${2:-20000000}" >"$m/proc/meminfo"
	echo 0 >"$m/proc/sys/vm/nr_hugepages"
	: >"$m/proc/mounts"
	for d in "$m"/sys/kernel/mm/hugepages/hugepages-2048kB \
		"$([ "$1" = no-1g ] || printf '%s' "$m/sys/kernel/mm/hugepages/hugepages-1048576kB")"; do
		[ -n "$d" ] || continue
		mkdir -p "$d"
		echo 0 >"$d/nr_hugepages"
		echo 0 >"$d/free_hugepages"
	done
	cat >"$m/writer" <<'EOT'
#!/bin/bash
v=$2
case "$1" in
*/hugepages-1048576kB/nr_hugepages)
	[ -z "${FAKE_1G_LIMIT:-}" ] || [ "$v" -le "$FAKE_1G_LIMIT" ] || v=$FAKE_1G_LIMIT ;;
esac
printf '%s\n' "$v" >"$1"
case "$1" in
*/hugepages-*kB/nr_hugepages) printf '%s\n' "$v" >"${1%/*}/free_hugepages" ;;
*/sys/vm/nr_hugepages) sed -i "s/^HugePages_Total:.*/HugePages_Total: $v/; s/^HugePages_Free:.*/HugePages_Free: $v/" \
	"${1%/sys/vm/nr_hugepages}/meminfo" ;;
esac
EOT
	chmod +x "$m/writer"
	printf '%s' "$m"
}

# A gcc on PATH that builds a planted bench for a cell whose macros hold
# FAKE_PAGES=1: its --plan answers as bench documents it (huge_page_bytes
# of --page-size, or of the default 2 MiB pages; three arrays, a page
# each), and its run writes in pool-during the pool of its page size as
# it ran, and a result.json whose arrays sit on those pages.  Other
# builds go to the real gcc.
plan_gcc() {
	local bin=$BATS_TEST_TMPDIR/plan-bin real
	need gcc
	real=$(command -v gcc)
	mkdir -p "$bin"
	cat >"$BATS_TEST_TMPDIR/planted-bench" <<'EOT'
#!/bin/bash
plan=0 ps='' alloc=mmap
while [ $# -gt 0 ]; do
	case "$1" in
	--plan) plan=1 ;;
	--page-size) ps=$2; shift ;;
	--alloc) alloc=$2; shift ;;
	esac
	shift
done
case "$ps" in
'') kib=2048 pool=$MEMBENCH_PROCFS/sys/vm/nr_hugepages ;;
1G) kib=1048576 pool=$MEMBENCH_SYSFS/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages ;;
*) echo "bench: --page-size $ps: not planted" >&2; exit 2 ;;
esac
if [ "$plan" = 1 ]; then
	printf 'mode=stream\nalloc=%s\nregions=3\nhuge_page_bytes=%s\nhuge_pages=3\n' "$alloc" $((kib * 1024))
	exit 0
fi
cat "$pool" >pool-during
jq -n --argjson k "$kib" '{schema: "membench/1", mode: "stream",
	system: {cpu_model: "Planted CPU 9000", online_cpus: 2, machine: "x86_64", kernel: "Linux 9.9.9-test"},
	run: {array_size: 100000, threads_counted: 1, alloc: "hugetlb",
		arrays: [("a", "b", "c") | {name: ., huge_pct: 100, page_kib: $k, kernel_page_kib: $k}]},
	results: [("Copy", "Scale", "Add", "Triad") | {kernel: ., best_mbs: 1000}],
	validation: {ok: true}, run_rules: {verdict: "standard", reasons: []}, warnings: []}' >result.json
printf '%s: 1000.0\n' Copy Scale Add Triad
echo "Solution Validates"
EOT
	cat >"$bin/gcc" <<EOT
#!/bin/sh
planted=0 out="" prev=""
for a in "\$@"; do
	[ "\$a" != -DFAKE_PAGES=1 ] || planted=1
	[ "\$prev" != -o ] || out=\$a
	prev=\$a
done
if [ "\$planted" = 1 ] && [ "\$out" = bench ]; then
	cp "$BATS_TEST_TMPDIR/planted-bench" bench && chmod +x bench
	exit
fi
exec "$real" "\$@"
EOT
	chmod +x "$bin/gcc"
	PATH=$bin:$PATH
}

# sized_matrix ROOT MATRIX: run-matrix on the fake machine ROOT, as root.
sized_matrix() {
	MEMBENCH_PROCFS=$1/proc MEMBENCH_SYSFS=$1/sys MEMBENCH_KNOB_WRITER=$1/writer MEMBENCH_UID=0 \
		tiny_matrix "$2"
}

G1=kernel/mm/hugepages/hugepages-1048576kB

@test "a 1 GiB cell: its own pool is reserved beside the default one, used by the run, and given back" {
	plan_gcc
	m=$(sized_machine offers-1g)
	mx=$(write_matrix sized 'gcc | -O2 | FAKE_PAGES=1 | hugetlb ; hugetlb-1g | 1')
	sized_matrix "$m" "$mx"
	assert_success
	assert_output --partial "run-matrix: restored $m/sys/$G1/nr_hugepages to '0'"
	dir=$(results_dir)
	grep -q -- '--alloc hugetlb --page-size 1G' "$dir/cells/002/run.sh"
	refute grep -q -- '--page-size' "$dir/cells/001/run.sh"
	# each pool sized by its own cells, in its own file
	grep -qx 'cell 001 needs 3 huge pages' "$dir/machine.txt"
	grep -qx 'cell 002 needs 3 huge pages of 1G' "$dir/machine.txt"
	grep -qx 'nr_hugepages 0 -> 3 (asked 3, 3 free)' "$dir/machine.txt"
	grep -qx 'hugepages-1048576kB nr_hugepages 0 -> 3 (asked 3, 3 free)' "$dir/machine.txt"
	# each run had its pool
	assert_equal "$(cat "$dir/cells/001/pool-during")" 3
	assert_equal "$(cat "$dir/cells/002/pool-during")" 3
	assert_regex "$(table_row "$dir" 2)" '\| ok \| 100% \(1048576 KiB hugetlb pages\) \|'
	# recorded, and both back as they were
	grep -qx -- '- hugepages 1G: 3 reserved (was 0), verified' "$dir/provenance.txt"
	grep -qx "$G1/nr_hugepages: 3" "$dir/provenance.txt"
	assert_equal "$(cat "$m/sys/$G1/nr_hugepages")" 0
	assert_equal "$(cat "$m/proc/sys/vm/nr_hugepages")" 0
}

@test "no 1 GiB pages offered: the 1 GiB cell is skipped with the sizes the kernel offers, the 2 MiB cell runs" {
	plan_gcc
	m=$(sized_machine no-1g)
	mx=$(write_matrix sized 'gcc | -O2 | FAKE_PAGES=1 | hugetlb ; hugetlb-1g | 1')
	sized_matrix "$m" "$mx"
	assert_success
	dir=$(results_dir)
	assert_regex "$(table_row "$dir" 1)" '\| ok \|'
	assert_equal "$(cat "$dir/cells/001/pool-during")" 3
	assert_regex "$(table_row "$dir" 2)" \
		"skipped: this kernel offers no 1G huge pages \\(no $m/sys/kernel/mm/hugepages/hugepages-1048576kB\\); it offers 2M \\|"
	[ ! -e "$dir/cells/002/pool-during" ]
	[ ! -e "$m/sys/$G1" ]
	assert_equal "$(cat "$m/proc/sys/vm/nr_hugepages")" 0
}

@test "a short 1 GiB pool: that pool alone is given back and its cell skipped, the 2 MiB pool stays for its cell" {
	plan_gcc
	m=$(sized_machine offers-1g)
	mx=$(write_matrix sized 'gcc | -O2 | FAKE_PAGES=1 | hugetlb ; hugetlb-1g | 1')
	FAKE_1G_LIMIT=2 sized_matrix "$m" "$mx"
	assert_success
	dir=$(results_dir)
	assert_regex "$(table_row "$dir" 2)" \
		'skipped: could reserve only 2 of the 3 huge pages of 1G needed \(hugepages-1048576kB nr_hugepages 0 -> 2\)'
	assert_output --partial "run-matrix: restored $m/sys/$G1/nr_hugepages to '0'"
	assert_regex "$(table_row "$dir" 1)" '\| ok \|'
	assert_equal "$(cat "$dir/cells/001/pool-during")" 3
	grep -qx -- "- hugepages 1G: NOT APPLIED AS ASKED: asked for 3 huge pages of 1G, the kernel reserved 2 (short pool)" "$dir/provenance.txt"
	assert_equal "$(cat "$m/sys/$G1/nr_hugepages")" 0
	assert_equal "$(cat "$m/proc/sys/vm/nr_hugepages")" 0
}

@test "a 1 GiB pool's growth is bounded by 1 GiB pages, not Hugepagesize" {
	plan_gcc
	# 5000000 kB available - 2400000 kB margin = 2600000 kB: two 1 GiB
	# pages, not the three the cell needs (as 2 MiB pages: 1269)
	m=$(sized_machine offers-1g 5000000)
	mx=$(write_matrix sized 'gcc | -O2 | FAKE_PAGES=1 | hugetlb-1g | 1')
	sized_matrix "$m" "$mx"
	assert_failure 1
	dir=$(results_dir)
	assert_regex "$(table_row "$dir" 1)" \
		'skipped: cannot reserve 3 huge pages of 1G: --hugepages 1G:3 does not fit: 3 more pages of 1048576 kB are 3145728 kB, and MemAvailable 5000000 kB'
	assert_equal "$(cat "$m/sys/$G1/nr_hugepages")" 0
}
