#!/usr/bin/env bats
# tests/cc-cache, the compiler the matrix and bench-compare files see:
# the second build of one program is the first's binary; a changed
# source, other flags, a build it cannot key and a failed build each run
# the compiler.  A full disk is matrix_hardening.bats' (its exit-status
# test builds a cell the store already holds into a 64 KiB tmpfs).

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() {
	need gcc
	# a store of the test's own, not the run's
	CC_CACHE_DIR=$BATS_TEST_TMPDIR/cache
	cc_cache_on
	S=$BATS_TEST_TMPDIR/src
	mkdir -p "$S"
	printf '#include <stdio.h>\nint main(void) { puts("one"); return 0; }\n' >"$S/p.c"
}

# stored: how many programs the store holds
stored() { find "$CC_CACHE_DIR/store" -name '*.bin' 2>/dev/null | wc -l; }

@test "cc-cache: a second build of the same program is the stored binary; another source or flag is built" {
	run gcc -O1 "$S/p.c" -o "$S/a"
	assert_success
	assert_equal "$(stored)" 1
	assert_equal "$("$S/a")" one
	# the stored binary, changed: a build that copies it prints "two"
	bin=$(find "$CC_CACHE_DIR/store" -name '*.bin')
	printf '#include <stdio.h>\nint main(void) { puts("two"); return 0; }\n' >"$S/q.c"
	gcc -O1 "$S/q.c" -o "$S/q"
	cp "$S/q" "$bin"
	run gcc -O1 "$S/p.c" -o "$S/b"
	assert_success
	assert_equal "$("$S/b")" two
	# the same text under another name is the same program
	cp "$S/p.c" "$S/p2.c"
	run gcc -O1 "$S/p2.c" -o "$S/c"
	assert_equal "$("$S/c")" two
	# another flag, another source: built
	run gcc -O2 "$S/p.c" -o "$S/d"
	assert_equal "$("$S/d")" one
	printf '#include <stdio.h>\nint main(void) { puts("three"); return 0; }\n' >"$S/p.c"
	run gcc -O1 "$S/p.c" -o "$S/e"
	assert_equal "$("$S/e")" three
	assert_equal "$(stored)" 4
}

@test "cc-cache: what it cannot key runs the compiler every time, and a failed build is not stored" {
	# -c, a file of its own by "name", an include path, no -o
	run gcc -c "$S/p.c" -o "$S/p.o"
	assert_success
	printf 'int f(void) { return 1; }\n' >"$S/f.h"
	printf '#include "f.h"\nint main(void) { return f() - 1; }\n' >"$S/i.c"
	run gcc "$S/i.c" -o "$S/i"
	assert_success
	run gcc -I"$S" -O1 "$S/p.c" -o "$S/j"
	assert_success
	assert_equal "$(stored)" 0
	# a failed build: the compiler's words, its status, nothing stored
	printf 'int main(void) { return x; }\n' >"$S/bad.c"
	run --separate-stderr gcc "$S/bad.c" -o "$S/bad"
	assert_failure
	[[ "$stderr" == *"undeclared"* ]]
	assert_equal "$(stored)" 0
	# what the compiler printed is printed again from the store
	printf 'int main(void) { int u; return 0; }\n' >"$S/w.c"
	run --separate-stderr gcc -Wall "$S/w.c" -o "$S/w1"
	[[ "$stderr" == *"unused variable"* ]]
	run --separate-stderr gcc -Wall "$S/w.c" -o "$S/w2"
	assert_success
	[[ "$stderr" == *"unused variable"* ]]
	assert_equal "$(stored)" 1
}

@test "cc-cache: a gcc placed before it that calls it back reaches the real one, and MEMBENCH_CC_CACHE=off turns it off" {
	# a test's fake gcc in front, calling the gcc it found (this shim)
	mkdir -p "$BATS_TEST_TMPDIR/fake"
	printf '#!/bin/sh\nexec %s "$@"\n' "$CC_CACHE_DIR/bin/gcc" >"$BATS_TEST_TMPDIR/fake/gcc"
	chmod +x "$BATS_TEST_TMPDIR/fake/gcc"
	PATH=$BATS_TEST_TMPDIR/fake:$PATH run timeout 60 gcc -O1 "$S/p.c" -o "$S/a"
	assert_success
	assert_equal "$("$S/a")" one
	assert_equal "$(stored)" 1
	# off: cc_cache_on puts nothing on PATH
	PATH=${PATH#"$CC_CACHE_DIR/bin:"}
	MEMBENCH_CC_CACHE=off cc_cache_on
	[[ ":$PATH:" != *":$CC_CACHE_DIR/bin:"* ]]
	cc_cache_on
	[[ ":$PATH:" == *":$CC_CACHE_DIR/bin:"* ]]
}
