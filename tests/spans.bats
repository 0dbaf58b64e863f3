#!/usr/bin/env bats
# tests/spans/span_check.c: every kernel, at every instruction-set level
# the CPU runs and with plain and streaming stores, writes exactly its
# thread's span [lo, hi) at every alignment, and nothing either side;
# Read's bare loads (x86) write nothing at all.
# Natively with gcc, clang and float elements; for aarch64 under qemu at
# SVE vector lengths of 128, 384 and 2048 bits and on a CPU without SVE.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

SPAN_SRC="$MEMBENCH_ROOT/tests/spans/span_check.c"
SPAN_LINE=' 1040 spans, 0 faults'

# The lines a clean check prints for the given level names.
span_expect() {
	for l in "$@"; do
		how=dispatched
		[ "$l" != generic ] || how="this build's code"
		printf 'plain/%s %s:%s\n' "$l" "$how" "$SPAN_LINE"
		printf 'nt/%s %s:%s\n' "$l" "$how" "$SPAN_LINE"
		# Read's bare loads, at x86's dispatched levels: 1 kernel of 10
		case $l in sse2 | avx2 | avx512)
			printf 'load/%s dispatched: 104 spans, 0 faults\n' "$l" ;;
		esac
	done
	printf '%d levels, 0 faults\n' "$#"
}

@test "host builds: every level's kernels write exactly their span (gcc, clang, float)" {
	# shellcheck disable=SC2207 # level names have no spaces
	levels=($("$BENCH" $TINY --kernels copy --json | jq -r '.run.isa_available[]'))
	[ "${#levels[@]}" -ge 1 ]
	for cc in "gcc" "clang" "gcc -DSTREAM_TYPE=float"; do
		need "${cc%% *}"
		# shellcheck disable=SC2086 # the compiler and its flag
		$cc -O2 "$SPAN_SRC" -o "$BATS_TEST_TMPDIR/span"
		run "$BATS_TEST_TMPDIR/span"
		assert_success
		assert_output "$(span_expect "${levels[@]}")"
	done
}

@test "aarch64: SVE's kernels write exactly their span at 128, 384 and 2048 bits; a CPU without SVE runs the build's own" {
	need aarch64-linux-gnu-gcc
	need qemu-aarch64-static
	aarch64-linux-gnu-gcc -O2 -static "$SPAN_SRC" -o "$BATS_TEST_TMPDIR/span"
	for bytes in 16 48 256; do
		run env QEMU_CPU="max,sve-default-vector-length=$bytes" qemu-aarch64-static "$BATS_TEST_TMPDIR/span"
		assert_success
		# gcc's aarch64 build has no streaming store of its own
		assert_output "$(span_expect generic sve | grep -v '^nt/generic')"
	done
	run env QEMU_CPU=cortex-a57 qemu-aarch64-static "$BATS_TEST_TMPDIR/span"
	assert_success
	assert_output "$(printf 'plain/generic this build'"'"'s code:%s\n1 levels, 0 faults' "$SPAN_LINE")"
}

@test "a kernel that stores past its span is caught, and so is one that skips an element" {
	src="$BATS_TEST_TMPDIR/bench.c"
	mkdir -p "$BATS_TEST_TMPDIR/tests/spans"
	cp "$SPAN_SRC" "$BATS_TEST_TMPDIR/tests/spans/"
	# the generic store kernels' loop (Copy's among them) runs one
	# element too far, then one short
	cp "$MEMBENCH_ROOT/bench.c" "$src"
	perl -0pi -e 's/(for \(j = lo; j )< (hi; j\+\+\) +\\\n\t+dst##_\[j\] = KS f;)/$1<= $2/' "$src"
	run cmp -s "$src" "$MEMBENCH_ROOT/bench.c"
	assert_failure 1
	# the broken copies are built at -O0 (1 s a build, where -O2 took 4):
	# a store past the span or a skipped one is the loop's own at any
	# level; the first test checks the optimised kernels
	gcc -O0 "$BATS_TEST_TMPDIR/tests/spans/span_check.c" -o "$BATS_TEST_TMPDIR/span"
	run "$BATS_TEST_TMPDIR/span"
	assert_failure 1
	assert_line --regexp '^FAULT plain/generic copy shift [0-9] \[[0-9]+, [0-9]+\): c\[[0-9]+\] is .* \(outside the span\)$'
	perl -0pi -e 's/(for \(j = lo; j )<= (hi; j\+\+\) +\\\n\t+dst##_\[j\] = KS f;)/$1+ 1 < $2/' "$src"
	gcc -O0 "$BATS_TEST_TMPDIR/tests/spans/span_check.c" -o "$BATS_TEST_TMPDIR/span"
	run "$BATS_TEST_TMPDIR/span"
	assert_failure 1
	assert_line --regexp '^FAULT plain/generic copy .*\(inside the span\)$'
}

@test "span_check's values are its own, not the table's: a row whose formula changes, its byte count still true, is caught" {
	src="$BATS_TEST_TMPDIR/bench.c"
	mkdir -p "$BATS_TEST_TMPDIR/tests/spans"
	cp "$SPAN_SRC" "$BATS_TEST_TMPDIR/tests/spans/"
	# Axpy's row loses its scalar (c = c + a): the same arrays read and
	# written, so the table's check of its words passes and validation's
	# replay, made from the same row, would agree with it; and Update's:
	# b = b.  Both rows in one copy, built once (at -O0, as above):
	# span_check runs each kernel on arrays of its own and reports every
	# fault, so each row's is found as it would be alone
	cp "$MEMBENCH_ROOT/bench.c" "$src"
	perl -0pi -e 's/(X\(AXPY, .*\n\t  KADD\(KLD\(c\), )KMUL\(KQ, KLD\(a\)\)\)/$1KLD(a))/' "$src"
	run cmp -s "$src" "$MEMBENCH_ROOT/bench.c"
	assert_failure 1
	cp "$src" "$src.axpy"
	perl -0pi -e 's/(X\(UPDATE, .*, )KMUL\(KQ, KLD\(b\)\)\)/$1KLD(b))/' "$src"
	run cmp -s "$src" "$src.axpy"
	assert_failure 1
	gcc -O0 "$BATS_TEST_TMPDIR/tests/spans/span_check.c" -o "$BATS_TEST_TMPDIR/span"
	run "$BATS_TEST_TMPDIR/span"
	assert_failure 1
	assert_line --regexp '^FAULT plain/generic axpy shift [0-9] \[[0-9]+, [0-9]+\): c\[[0-9]+\] is .* \(inside the span\)$'
	assert_line --regexp '^FAULT plain/generic update .*b\[[0-9]+\] is .* \(inside the span\)$'
}
