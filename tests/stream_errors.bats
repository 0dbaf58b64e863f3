#!/usr/bin/env bats
# Bad input is refused before any work: one line on stderr, status 2,
# nothing on stdout.

load test_helper

refused() { refused_by "$@"; }

@test "unknown flag" {
	refused --frobnicate
	[[ "$stderr" == *"unknown option '--frobnicate'"* ]]
}

@test "unknown mode" {
	refused frob
	[[ "$stderr" == *"unknown mode 'frob'"* ]]
}

@test "missing number" {
	refused -s
	[[ "$stderr" == *"--size: missing value"* ]]
}

@test "non-numeric number" {
	refused --ntimes ten
	[[ "$stderr" == *"--ntimes: 'ten' is not a non-negative integer"* ]]
}

@test "negative number" {
	refused -s -5
	[[ "$stderr" == *"--size: '-5'"* ]]
}

@test "trailing junk after a number" {
	refused -s 100x
	[[ "$stderr" == *"--size: '100x'"* ]]
}

@test "zero size" {
	refused --size 0
	[[ "$stderr" == *"--size: 0 is below the minimum 1"* ]]
}

@test "overflowing number" {
	refused -s 184467440737095516160
	[[ "$stderr" == *"too large"* ]]
}

@test "arrays larger than physical memory are refused before allocating" {
	refused -s 1000000000000
	[[ "$stderr" == *"physical memory"* ]]
}

@test "size that overflows the address space" {
	refused -s 288230376151711743
	[[ "$stderr" == *"--size"* ]]
}

@test "threads below 1" {
	refused -t 0
	[[ "$stderr" == *"--threads: 0 is below the minimum 1"* ]]
}

@test "unknown alloc mode" {
	refused --alloc bigpages
	[[ "$stderr" == *"--alloc: unknown mode 'bigpages'"* ]]
}

@test "unknown kernel" {
	refused --kernels copy,nope
	[[ "$stderr" == *"--kernels: unknown kernel 'nope'"* ]]
}

@test "a kernel list with an empty entry, as every comma list" {
	for l in copy,,triad ,copy "copy,"; do
		refused --kernels "$l"
		[[ "$stderr" == *"--kernels: '$l' has an empty entry"* ]]
	done
	refused --kernels ''
	[[ "$stderr" == *"--kernels: missing list"* ]]
}

@test "ntimes below 2 leaves nothing to time" {
	refused -n 1
	[[ "$stderr" == *"--ntimes: 1 is below the minimum 2"* ]]
}

@test "unknown store kind" {
	refused --stores fast
	[[ "$stderr" == *"--stores: unknown value 'fast'"* ]]
}

@test "a value given to a switch" {
	refused --json=yes
	[[ "$stderr" == *"--json takes no value"* ]]
}

@test "an option of another mode" {
	refused info --size 5
	[[ "$stderr" == *"--size does not apply to mode 'info'"* ]]
}

@test "static arrays cannot grow past their compiled size" {
	refused --alloc static -s 20000000
	[[ "$stderr" == *"exceeds the compiled static array size 10000000"* ]]
}

@test "a huge page pool too small is refused with pages needed and free" {
	fake="$BATS_TEST_TMPDIR/proc"
	fake_procfs "$fake" 4 2
	# three arrays of 800 KB (plus stagger) need one 2 MiB page each
	MEMBENCH_PROCFS="$fake" refused --alloc hugetlb -s 100000
	[[ "$stderr" == *"needs 3 huge pages but only 2 are free (nr_hugepages=4)"* ]]
	[[ "$stderr" == *"/proc/sys/vm/nr_hugepages"* ]]
}
