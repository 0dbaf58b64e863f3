#!/usr/bin/env bats
# The arrays' layout rule (tests/layout.bats) at STREAM's own sizes:
# 10,000,000 and 80,000,000 elements (1.9 GB of arrays) and --size auto.
# Seconds each, so in make check, not check-fast.

load test_helper
load layout_helper

# its runs allocate gigabytes and a huge page pool: one test at a time
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

@test "the rule holds at 10,000,000 and 80,000,000 elements and at --size auto" {
	# auto: a fake 2 MiB LLC, so auto is the compiled size, not gigabytes
	fake_llc "$BATS_TEST_TMPDIR/sys" 2048K 0
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/sys" run_rule -s auto
	run_rule -s 10000000 --alloc mmap
	run_rule -s 80000000
}

@test "the rule holds at 10,000,000 elements in malloc, shm and hugetlb" {
	run_rule -s 10000000 --alloc malloc
	run_rule -s 10000000 --alloc shm
	# three arrays of 80 MB (and a page of stagger): 39 + 39 + 39 pages of 2 MiB
	with_hugepages 117 "$BENCH" -s 10000000 --alloc hugetlb --kernels all -n 2 \
		--json-file "$BATS_TEST_TMPDIR/h.json"
	assert_success
	check_rule "$BATS_TEST_TMPDIR/h.json"
}
