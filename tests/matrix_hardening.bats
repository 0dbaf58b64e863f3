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

@test "a results path with a quote and a space: every cell builds, nothing is left behind" {
	need_compiler gcc
	m=$(write_matrix quoted 'gcc | -O2 ; -O1 | | plain | 1')
	root="$BATS_TEST_TMPDIR/it's a \"dir\""
	run "$RUN_MATRIX" --size 100000 --ntimes 3 --results "$root" "$m"
	assert_success
	dir=$(results_dir)
	[[ "$dir" == "$root/"* ]]
	for n in 1 2; do assert_regex "$(table_row "$dir" "$n")" '\| ok \|'; done
	assert_equal "$(sed -n 's/^build_status = //p' "$dir/cells/001/cell.info" "$dir/cells/002/cell.info" | tr '\n' ' ')" '0 0 '
	# Nothing outside the results directory, nothing stray inside it.
	assert_equal "$(find "$BATS_TEST_TMPDIR" -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')" \
		"$(printf '%s\n' "$BATS_TEST_TMPDIR/lock" "$m" "$root" | sort | tr '\n' ' ')"
	[ -z "$(find "$dir" -name 'build.list' -o -name '.*.tmp.*')" ]
}
