# tests/matrix_helper.bash: shared by tests/matrix*.bats.
# shellcheck disable=SC2034,SC2154 # variables used by the .bats files; $output set by bats
load test_helper
load harness_helper

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
RUN_MATRIX="$ROOT/matrix/run-matrix"
FIND_COMPILERS="$ROOT/matrix/find-compilers"

# A matrix definition in the test's temporary directory; prints its path.
write_matrix() { # name lines...
	local f="$BATS_TEST_TMPDIR/$1.matrix"
	shift
	printf '%s\n' "$@" >"$f"
	printf '%s' "$f"
}

# run-matrix with tiny arrays, results under the test's temporary directory.
tiny_matrix() {
	run "$RUN_MATRIX" --size 100000 --ntimes 3 --results "$BATS_TEST_TMPDIR/results" "$@"
}

# The results directory a run-matrix output names on its last line.
results_dir() { printf '%s\n' "$output" | sed -n 's/^results[^:]*: //p' | tail -n 1; }

# The table row of cell N (1-based) from table.md.
table_row() { # dir N
	awk -v n="$2" -F'|' '$2 ~ "^ *" n " *$"' "$1/table.md"
}

need_compiler() {
	command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"
}

hugepages_state() { # what a test must leave as it found
	printf '%s|' "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)"
	awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts | sort | tr '\n' ' '
}
