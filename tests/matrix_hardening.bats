#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031,SC2016 # bats runs each test in a subshell on purpose
# Hardening of run-matrix: names that become path components, results
# paths with quotes and spaces, and an exit status that tells failures.

load matrix_helper
# cells other files build too: once a run (tests/cc-cache)
cc_cache_on

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

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

@test "exit status: 1 and the cell named when a cell fails validation" {
	need_compiler gcc
	m=$(write_matrix corrupt 'gcc | -O2 | BENCH_CORRUPT_TEST=1 | plain | 1' 'gcc | -O2 | | plain | 1')
	tiny_matrix "$m"
	assert_failure 1
	assert_equal "${lines[-1]}" 'run-matrix: cells that failed: 001 (FAILED validation)'
	assert_regex "$(table_row "$(sed -n 's/^results: //p' <<<"$output")" 2)" '\| ok \|'
}

@test "exit status: 1 when every cell is skipped, with a final message" {
	m=$(write_matrix none 'no-such-cc-42 | -O2 | | plain | 1')
	MATRIX_COMPILERS=no-such-cc-42 tiny_matrix "$m"
	assert_failure 1
	assert_equal "${lines[-1]}" 'run-matrix: every cell was skipped: nothing was measured (see the table for why)'
}

@test "exit status: 2 when the results disk is full, named as a write failure, not a build failure" {
	need_compiler gcc
	need_mount_ns
	m=$(write_matrix full 'gcc | -O2 | | plain | 1')
	root=$BATS_TEST_TMPDIR/full
	mkdir "$root"
	# A 64 KiB tmpfs in a mount namespace of the test's own: room for the
	# cell's scripts, not for its bench binary.
	run unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$1" || exit 77; shift; exec "$@"' sh "$root" \
		"$RUN_MATRIX" --size 100000 --ntimes 3 --results "$root" "$m"
	[ "$status" != 77 ] || skip "cannot mount a tmpfs here"
	assert_failure 2
	assert_regex "${lines[-1]}" '^run-matrix: (results writes failed, the results are incomplete: cells/001 \(the build could not write its results\)|cannot write .*: no space left on device)'
	refute_output --partial 'skipped: build failed'
}
