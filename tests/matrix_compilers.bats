#!/usr/bin/env bats
# matrix/find-compilers: compilers are found on PATH and their OpenMP flag
# is the one that really built and ran a two-thread program.

load matrix_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# A PATH directory with the shell tools find-compilers uses, the assembler
# and linker a compiler driver looks up on PATH, and no
# compiler: tests add the compilers they want to be found.
fake_bin() {
	local b="$BATS_TEST_TMPDIR/bin" t
	mkdir -p "$b"
	for t in sh dirname sed sort awk readlink mktemp env grep cut tr rm cat head tail as ld; do
		ln -sf "$(command -v "$t")" "$b/$t"
	done
	printf '%s' "$b"
}

@test "every compiler on PATH once, with the OpenMP flag that worked" {
	need_compiler gcc
	b=$(fake_bin)
	ln -s "$(command -v gcc)" "$b/gcc-77"
	ln -s "$(command -v gcc)" "$b/gcc-ar" # a tool, not a compiler
	run env PATH="$b" "$FIND_COMPILERS"
	# Only gcc-77 is on that PATH; gcc-ar is no compiler.
	assert_success
	assert_output --regexp "^gcc-77	$b/gcc-77	gcc	ok	-fopenmp	[0-9]{6}	"
	assert_equal "${#lines[@]}" 1
}

@test "one binary under two names counts once" {
	need_compiler gcc
	b=$(fake_bin)
	ln -s "$(command -v gcc)" "$b/gcc"
	ln -s "$(command -v gcc)" "$b/gcc-77"
	run env PATH="$b" "$FIND_COMPILERS"
	assert_success
	assert_output --regexp "^gcc	$b/gcc	gcc	ok	-fopenmp	"
	assert_equal "${#lines[@]}" 1
}

@test "a flag that does not give OpenMP is not recorded; tcc has none" {
	need_compiler gcc
	run env MATRIX_OPENMP_gcc=-DNOT_OPENMP "$FIND_COMPILERS" gcc
	assert_success
	assert_output --regexp '^gcc	[^	]+	gcc	no-openmp	-	-	'
	run env MATRIX_OPENMP_gcc="-fno-such-flag ; -fopenmp" "$FIND_COMPILERS" gcc
	assert_output --regexp '^gcc	[^	]+	gcc	ok	-fopenmp	'
	# ./setup --test installs tcc
	need tcc
	run "$FIND_COMPILERS" tcc
	assert_output --regexp '^tcc	[^	]+	tcc	no-openmp	'
}

@test "MATRIX_COMPILERS names the list; a missing one is recorded as missing" {
	need_compiler gcc
	run env MATRIX_COMPILERS="gcc no-such-cc-42" "$FIND_COMPILERS"
	assert_success
	assert_line --index 0 --regexp '^gcc	.*	ok	'
	assert_line --index 1 $'no-such-cc-42\t-\t-\tmissing\t-\t-\tnot found on PATH'
}

@test "a compiler that cannot build a program is broken, not ok" {
	b=$(fake_bin)
	printf '#!/bin/sh\necho "fakecc 1.0"; exit 1\n' >"$b/clang-99"
	chmod +x "$b/clang-99"
	run env PATH="$b:$PATH" "$FIND_COMPILERS" clang-99
	assert_success
	assert_output $'clang-99\t'"$b/clang-99"$'\tclang\tbroken\t-\t-\tfakecc 1.0'
}
