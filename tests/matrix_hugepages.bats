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
	tiny_matrix hugepages
	assert_success
	assert_equal "$(hugepages_state)" "$before"
	dir=$(results_dir)
	row() { table_row "$dir" "$(grep -l "^memory = $1\$" "$dir"/cells/*/cell.info | sed 's|.*/cells/0*||; s|/.*||')"; }
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
	m=$(write_matrix slow 'gcc | -O2 | | hugetlb ; bss-relink | 1')
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
	m=$(write_matrix slow 'gcc | -O2 | | hugetlb ; plain | 1')
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
