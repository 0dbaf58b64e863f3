#!/usr/bin/env bats
# The hugepages matrix: run-matrix reserves the pool and mounts hugetlbfs
# itself, puts both back on every exit path, and skips with the reason
# when it cannot.

load matrix_helper

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
	assert_success
	assert_regex "$(table_row "$(results_dir)" 1)" \
		"skipped: cannot reserve 7 huge pages: $p/sys/vm/nr_hugepages is not writable \\(run as root\\)"
}

@test "interrupted mid-run: nr_hugepages and mounts are put back" {
	can_reserve || skip "needs root and a writable /proc/sys/vm/nr_hugepages"
	need_compiler gcc
	command -v setsid >/dev/null || skip "setsid is not installed"
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
	grep -q 'restored to\|left alone' "$BATS_TEST_TMPDIR"/results/*/*/machine.txt
}
