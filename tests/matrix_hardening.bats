#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# Hardening of run-matrix: names that become path components, results
# paths with quotes and spaces, and an exit status that tells failures.

load matrix_helper

@test "a matrix name that is not one safe path component is refused in one line" {
	d="$BATS_TEST_TMPDIR/defs"
	mkdir -p "$d"
	bad="$d/"'x
$(touch pwned).matrix'
	echo 'gcc | -O2 | | plain | 1' >"$bad"
	run "$RUN_MATRIX" --dry-run --results "$BATS_TEST_TMPDIR/results" "$bad"
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output --partial 'run-matrix: matrix name must be one path component'
	[ ! -e "$BATS_TEST_TMPDIR/results" ]
	m=$(write_matrix mem 'gcc | -O2 | | ../memory/plain | 1')
	run "$RUN_MATRIX" --dry-run --results "$BATS_TEST_TMPDIR/results" "$m"
	assert_failure 2
	assert_output --partial "memory mode ../memory/plain is not a file name in matrix/memory"
}
