#!/usr/bin/env bats
# Every allocation mode runs, validates and reports the pages it got.

load test_helper

alloc_runs() {
	run "$BENCH" -s 600000 -n 3 --alloc "$1" --json
	assert_success
	run jq -r '[.run.alloc, .validation.ok, (.run.arrays | map(.page_kib) | min)] | @tsv' <<<"$output"
	assert_success
	[[ "$output" == "$1"$'\t'true$'\t'* ]]
}

@test "--alloc static uses the .bss arrays" {
	alloc_runs static
}

@test "--alloc malloc" {
	alloc_runs malloc
}

@test "--alloc mmap" {
	alloc_runs mmap
}

@test "--alloc shm leaves no System V segment behind" {
	before=$(ipcs -m 2>/dev/null | grep -c '^0x' || true)
	alloc_runs shm
	after=$(ipcs -m 2>/dev/null | grep -c '^0x' || true)
	[ "$before" = "$after" ]
}

@test "--alloc thp obtains transparent huge pages when THP allows it" {
	thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo "[never]")
	[[ "$thp" != *"[never]"* ]] || skip "THP is disabled on this machine"
	run "$BENCH" -s 4000000 -n 3 --alloc thp --json
	assert_success
	run jq -r '.run.arrays[] | "\(.page_kib) \(.huge_pct)"' <<<"$output"
	# 32 MB arrays on a 2 MiB-aligned madvised range: mostly huge
	while read -r kib pct; do
		[ "$kib" -ge 2048 ]
		awk -v p="$pct" 'BEGIN { exit !(p >= 50) }'
	done <<<"$output"
	run "$BENCH" -s 4000000 -n 3 --alloc thp
	assert_line --regexp '^Page size: a 2048 KiB \([0-9]+% huge\), b 2048 KiB'
}

@test "--alloc mmap stays on base pages under THP madvise" {
	thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo "")
	[[ "$thp" == *"[madvise]"* ]] || skip "THP is not in madvise mode"
	run "$BENCH" -s 4000000 -n 3 --alloc mmap --json
	assert_success
	run jq -r '[.run.arrays[].huge_pct] | max' <<<"$output"
	assert_output 0
}

@test "--alloc hugetlb runs from a reserved pool and restores it" {
	before=$(cat /proc/sys/vm/nr_hugepages)
	with_hugepages 16 "$BENCH" -s 1000000 -n 3 --alloc hugetlb --json
	assert_success
	run jq -r '.run.arrays[] | "\(.page_kib) \(.huge_pct)"' <<<"$output"
	assert_output "$(printf '2048 100\n2048 100\n2048 100')"
	[ "$(cat /proc/sys/vm/nr_hugepages)" = "$before" ]
}

@test "--alloc hugetlb with an empty pool exits 2, never SIGBUS" {
	[ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" = 0 ] ||
		skip "the real pool is not empty"
	run --separate-stderr "$BENCH" -s 1000000 -n 3 --alloc hugetlb
	assert_failure 2
	assert_output ""
	[[ "$stderr" == *"huge pages but only 0 are free"* ]]
}
