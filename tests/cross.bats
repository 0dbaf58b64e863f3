#!/usr/bin/env bats
# bench.c cross-built for aarch64 and ppc64le (static, Debian's cross gcc)
# and run under qemu-user: stream validates and latency completes.
# The builds are warning-free under -Wall -Wextra -pedantic -Werror, as on
# x86 (they once warned that nt_fence was defined but not used).

load test_helper

# cross_check TRIPLET QEMU_ARCH: build and run bench.c for that target.
cross_check() {
	local triplet="$1" qemu="qemu-$2-static" bin
	command -v "$triplet-gcc" >/dev/null || skip "$triplet-gcc is not installed"
	command -v "$qemu" >/dev/null || skip "$qemu is not installed"
	bin="$BATS_TEST_TMPDIR/bench-$2"
	run "$triplet-gcc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror -static \
		"$MEMBENCH_ROOT/bench.c" -o "$bin"
	assert_success
	assert_output ""
	run "$qemu" "$bin" stream -s 20000 -n 3
	assert_success
	assert_line --regexp '^Solution Validates'
	run "$qemu" "$bin" latency --max 64K
	assert_success
	assert_output --regexp '[0-9]'
}

@test "aarch64: static cross build runs under qemu and validates" {
	cross_check aarch64-linux-gnu aarch64
}

@test "ppc64le: static cross build runs under qemu and validates" {
	cross_check powerpc64le-linux-gnu ppc64le
}
