#!/usr/bin/env bats
# Static checks: shellcheck on every shell script and .bats file, and
# cppcheck on bench.c with the committed .cppcheck-suppressions.xml.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# The excludes for .bats files, all idioms of this suite, not findings:
#   SC2086  $TINY and flag lists are unquoted on purpose, to split
#   SC2154  $stderr, $lines are set by bats' run --separate-stderr
#   SC2016  single-quoted sh -c / awk programs expand nothing on purpose
#   SC2015  `A && B || { echo why; return 1; }` is the failure idiom
BATS_EXCLUDES=SC2086,SC2154,SC2016,SC2015

@test "shellcheck: every script in harness/ (lib/ and slurm/ too), matrix/, release/, setup, .ci/run, tests/ (its helpers and scripts), tests/machines/" {
	need shellcheck
	cd "$MEMBENCH_ROOT"
	local f scripts=()
	for f in harness/* harness/lib/* harness/slurm/* matrix/* release/* setup .ci/run tests/* \
		tests/machines/* tests/machines/guest/*; do
		[ -f "$f" ] || continue
		case "$f" in *.sh | *.bash) ;; *) head -n 1 "$f" | grep -q '^#!.*sh' || continue ;; esac
		scripts+=("$f")
	done
	[ "${#scripts[@]}" -gt 10 ]
	# each file on its own, not through what it sources (-x): lib/*.sh
	# are in the list, and following lib.sh from each of the thirty
	# scripts that source it read it thirty times (82 s of 127 for this
	# file); on its own a script can only be warned of more, not less
	run shellcheck "${scripts[@]}"
	assert_success
}

@test "shellcheck: every .bats file, with the documented excludes" {
	need shellcheck
	cd "$MEMBENCH_ROOT"
	run shellcheck -x --shell=bash -e "$BATS_EXCLUDES" tests/*.bats tests/machines/*.bats
	assert_success
}

@test "cppcheck: bench.c is clean but for the committed suppressions" {
	need cppcheck
	cd "$MEMBENCH_ROOT"
	run cppcheck --enable=warning,portability,performance --error-exitcode=1 -q \
		--std=c99 --suppress-xml=.cppcheck-suppressions.xml bench.c
	assert_success
	assert_output ""
}

@test "report, compare, verify and submission name no file of the results layout: harness/lib/results.sh owns it" {
	cd "$MEMBENCH_ROOT"
	run grep -nE 'cells/|cells\\/|step-|cell\.info' harness/report harness/lib/plots.sh harness/compare harness/verify harness/submission
	assert_output ''
	assert_failure 1 # grep: no line matched (2 would be an error)
}

@test "one median: defined once, in harness/lib/results.sh (shell, awk and jq alike)" {
	cd "$MEMBENCH_ROOT"
	# a shell or jq definition named for it, or the middle element of a
	# sorted list (awk's a[(n + 1) / 2], jq's .[(length - 1) / 2])
	run grep -rlE 'def +median|median[a-z_]* *\(\) *\{|[+-] 1\) / 2\]' harness matrix setup
	assert_success
	assert_output harness/lib/results.sh
}

# The product's shell files: every script of harness/ (lib/ and slurm/
# too) and matrix/, setup and .ci/run; not matrix's definition files.
product_shell_files() {
	local f
	for f in harness/* harness/lib/* harness/slurm/* matrix/* setup .ci/run; do
		[ -f "$f" ] || continue
		case "$f" in *.sh) ;; *) head -n 1 "$f" | grep -q '^#!.*sh' || continue ;; esac
		printf '%s\n' "$f"
	done
}

@test "shell files stay small: none over 900 lines, no harness/lib/ file over 450" {
	cd "$MEMBENCH_ROOT"
	local files=()
	mapfile -t files < <(product_shell_files)
	[ "${#files[@]}" -gt 20 ]
	run awk 'FNR == 1 && NR > 1 { check() } { f = FILENAME; n = FNR } END { check() }
		function check() {
			if (n > 900 || (f ~ /^harness\/lib\// && n > 450)) print f ": " n " lines"
		}' "${files[@]}"
	assert_success
	assert_output ''
}

@test "harness/lib: each file calls only into the files its Needs line names, and harness/lib.sh sources those first" {
	cd "$MEMBENCH_ROOT"
	run awk -f tests/lib_deps.awk harness/lib.sh harness/lib/*.sh
	assert_success
	assert_output ''
	# every lib file has its Needs line
	run grep -Lx '# Needs: .*' harness/lib/*.sh
	assert_output ''
	# and the check sees a call it was not told of
	cp -r harness/lib harness/lib.sh "$BATS_TEST_TMPDIR/"
	printf 'late() {\n\tsession_open\n}\n' >>"$BATS_TEST_TMPDIR/lib/options.sh"
	run awk -f tests/lib_deps.awk "$BATS_TEST_TMPDIR/lib.sh" "$BATS_TEST_TMPDIR"/lib/*.sh
	assert_output 'options calls session_open of session, which its Needs line does not name'
}

@test "one option loop: only harness/lib/options.sh walks the arguments (parse_options)" {
	cd "$MEMBENCH_ROOT"
	local files=()
	# setup is POSIX sh, run before bash's harness is any use, and takes
	# none of the harness's options: it keeps its own loop.
	mapfile -t files < <(product_shell_files | grep -vx setup)
	# The loop's tell-tales: keeping the command line, and walking "$@".
	run grep -lE 'ORIG_ARGS=\(|while \[ "?\$#"? -gt 0 \]' "${files[@]}"
	assert_success
	assert_output harness/lib/options.sh
}

@test "tests round figures as the programs do: round_as_c, never bash's printf (long double)" {
	# a table's figure is rounded through a double by bench, awk and the
	# harnesses; bash's printf rounds through long double, so a tie such
	# as 1.185 lands the other way there (a CI run failed so)
	run grep -nE "printf '%[0-9]*\.[0-9]+f'" "$MEMBENCH_ROOT"/tests/*.bats "$MEMBENCH_ROOT"/tests/*.bash
	assert_failure 1
	assert_output ''
}
