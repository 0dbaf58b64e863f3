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

# cross_bin TRIPLET QEMU_ARCH: a static build for that target, or skip.
# run_target ARGS runs the last one under its qemu.
cross_bin() {
	local triplet="$1"
	qemu="qemu-$2-static"
	command -v "$triplet-gcc" >/dev/null || skip "$triplet-gcc is not installed"
	command -v "$qemu" >/dev/null || skip "$qemu is not installed"
	bin="$BATS_TEST_TMPDIR/bench-$2"
	"$triplet-gcc" -std=c99 -O2 -static "$MEMBENCH_ROOT/bench.c" -o "$bin"
}

run_target() {
	"$qemu" "$@"
}

# The data cache line the OS (here qemu-user, standing in for the kernel)
# passes the target in AT_DCACHEBSIZE, read by a program of our own.
auxv_line() {
	local src="$BATS_TEST_TMPDIR/auxv.c"
	cat >"$src" <<'C'
#include <stdio.h>
#include <sys/auxv.h>
int main(void) { printf("%lu\n", getauxval(AT_DCACHEBSIZE)); return 0; }
C
	"$1-gcc" -static -O2 "$src" -o "$BATS_TEST_TMPDIR/auxv-$2" &&
		"qemu-$2-static" "$BATS_TEST_TMPDIR/auxv-$2"
}

@test "ppc64le: the 128-byte cache line the OS passes is reported and sets the default stride" {
	cross_bin powerpc64le-linux-gnu ppc64le
	line=$(auxv_line powerpc64le-linux-gnu ppc64le)
	[ "$line" = 128 ] || skip "qemu passes AT_DCACHEBSIZE=$line, not 128"
	run run_target "$bin" info
	assert_success
	assert_line 'Cache line: 128 bytes (auxv AT_DCACHEBSIZE)'
	run run_target "$bin" latency --max 64K --json
	assert_success
	run jq -r '[.system.cache_line, .system.cache_line_source, .run.strides[0]] | @tsv' <<<"$output"
	assert_output "$(printf '128\tauxv AT_DCACHEBSIZE\t128')"
}

@test "aarch64: where the OS passes no cache line, none is invented" {
	cross_bin aarch64-linux-gnu aarch64
	line=$(auxv_line aarch64-linux-gnu aarch64)
	[ "$line" = 0 ] || skip "qemu passes AT_DCACHEBSIZE=$line here"
	[ -d /sys/devices/system/cpu/cpu0/cache/index0 ] &&
		skip "sysfs reports caches here; the line comes from there"
	run run_target "$bin" info
	assert_success
	assert_line 'Cache line: unknown (the OS reports none)'
}

@test "cross targets without streaming stores say --stores nt fell back to plain stores" {
	for t in aarch64-linux-gnu:aarch64 powerpc64le-linux-gnu:ppc64le; do
		cross_bin "${t%%:*}" "${t#*:}"
		run run_target "$bin" stream -s 20000 -n 3 --stores nt --json
		assert_success
		run jq -r '[.build.streaming_stores_isa, .run.stores, .run.stores_fallback] | @tsv' <<<"$output"
		assert_output "$(printf 'none\tplain\tplain stores (this target has no streaming store)')"
		run run_target "$bin" stream -s 20000 -n 3 --stores auto
		assert_success
		assert_line 'Stores fallback: plain stores (this target has no streaming store)'
		assert_line --partial 'WARNING: --stores auto: streaming stores fall back to plain stores'
	done
}

@test "the compiler's scalar streaming store says it is a fallback; vector ones do not" {
	command -v clang >/dev/null || skip "clang is not installed"
	# no vector type for long double: bench uses clang's builtin
	bin=$(build_variant longdouble clang -O2 '-DSTREAM_TYPE=long double' -DBENCH_TYPEID=0)
	run "$bin" -s 20000 -n 3 --stores nt --json
	assert_success
	run jq -r '[.build.streaming_stores_isa, .run.stores, (.run.stores_fallback | startswith("the compiler'"'"'s __builtin_nontemporal_store"))] | @tsv' <<<"$output"
	assert_output "$(printf 'builtin\tnt\ttrue')"
	run "$BENCH" -s 20000 -n 3 --stores nt --json
	assert_success
	run jq -r '[.build.streaming_stores_isa != "none", .build.streaming_stores_isa != "builtin", .run.stores_fallback == null] | @tsv' <<<"$output"
	[ "$output" = "$(printf 'true\ttrue\ttrue')" ] ||
		[[ "$output" == false* ]] # a host build without vector streaming stores
	run "$BENCH" -s 20000 -n 3 --stores plain --json
	run jq -r '.run.stores_fallback' <<<"$output"
	assert_output null
}
