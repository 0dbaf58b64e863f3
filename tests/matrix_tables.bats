#!/usr/bin/env bats
# Report-ready matrix tables: the machine in the header, a baseline row
# and every kernel's change against it (with a noise verdict from 3 runs
# on), the run-rule verdict per cell, and caveats instead of a bare "ok".
# The planted bench (fake_gcc) reports numbers the test chose.

load matrix_helper
# cells other files build too: once a run (tests/cc-cache)
cc_cache_on

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# The cell-vs-baseline table's row for cell NNN.
vs_row() { awk -F'|' -v c="$2" '$2 ~ "^ *" c " *$"' "$1/table.md"; }
# A CSV column by its header name, for row N (1-based).
csv_field() { # dir column N
	python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(rows[int(sys.argv[3]) - 1][sys.argv[2]])' "$1/table.csv" "$2" "$3"
}

@test "header: CPU, memory, kernel and compiler versions, and the baseline row" {
	fake_gcc
	fake_result base 1 1000 1000 1000 1000
	m=$(write_matrix hdr 'gcc | -O2 | FAKE=base | plain | 1')
	tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	run sed -n '3,7p' "$dir/table.md"
	assert_line --index 0 '- CPU: Planted CPU 9000, 64 online CPUs (x86_64)'
	assert_line --index 1 '- Memory: 256 GiB; last-level cache: L3 32 MiB x 2'
	assert_line --index 2 '- Kernel: Linux 9.9.9-test'
	assert_line --index 3 --regexp '^- Compilers: gcc: gcc .*[0-9]+\.[0-9]+'
	assert_line --index 4 '- Baseline: row 1, `gcc -O2 -DSTREAM_ARRAY_SIZE=100000 -DFAKE=base`'
	assert_equal "$(csv_field "$dir" run_rules 1)" standard
	assert_regex "$(table_row "$dir" 1)" '\| ok \| .* \| 1\.00 \| standard \|  \|$'
}

@test "every kernel's change against the first row, from the planted rates" {
	fake_gcc
	fake_result a 1 1000 2000 3000 3000
	fake_result b 1 1100 1800 3000 1500
	m=$(write_matrix vs 'gcc | -O2 | FAKE=a ; FAKE=b | plain | 1')
	tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	assert_regex "$(vs_row "$dir" 001)" '\| baseline \| baseline \| baseline \| baseline \|$'
	assert_regex "$(vs_row "$dir" 002)" '\| \+10\.0% \| -10\.0% \| \+0\.0% \| -50\.0% \|$'
	assert_equal "$(csv_field "$dir" copy_vs_baseline_pct 2),$(csv_field "$dir" triad_vs_baseline_pct 2)" "10.0,-50.0"
	assert_equal "$(csv_field "$dir" baseline 1)$(csv_field "$dir" baseline 2)" 10
	# one run a cell: no verdict is claimed
	refute_regex "$(vs_row "$dir" 002)" 'noise|faster|slower'
	assert_equal "$(head -n 1 "$dir/table.csv" | tr ',' '\n' | grep -c verdict)" 0
	# the old columns stay where they were: Triad ratio is 0.50
	assert_equal "$(table_row "$dir" 2 | awk -F'|' '{ print $12 }' | tr -d ' ')" 0.50
}

@test "--baseline names the row by number or by build line text" {
	fake_gcc
	fake_result a 1 1000 1000 1000 1000
	fake_result b 1 500 500 500 500
	m=$(write_matrix named 'gcc | -O2 | FAKE=a ; FAKE=b | plain | 1')
	tiny_matrix --baseline FAKE=b "$m"
	assert_success
	dir=$(results_dir)
	assert_regex "$(vs_row "$dir" 001)" '\| \+100\.0% \| \+100\.0% \| \+100\.0% \| \+100\.0% \|$'
	assert_regex "$(vs_row "$dir" 002)" '\| baseline \|'
	assert_line --regexp '^- Baseline: row 2, `gcc -O2 .*FAKE=b`$'
	assert_equal "$(table_row "$dir" 1 | awk -F'|' '{ print $12 }' | tr -d ' ')" 2.00
	rm -f "$BATS_TEST_TMPDIR"/fake/*
	fake_result a 1 1000 1000 1000 1000
	fake_result b 1 500 500 500 500
	run "$RUN_MATRIX" --size 100000 --results "$BATS_TEST_TMPDIR/r2" --baseline 002 "$m"
	assert_success
	assert_line --regexp '^- Baseline: row 2,'
}

@test "--baseline that names no cell, or several, is refused before anything is built" {
	m=$(write_matrix badbase 'gcc | -O2 ; -O3 | | plain | 1')
	run "$RUN_MATRIX" --dry-run --baseline 3 --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_failure 2
	assert_output 'run-matrix: --baseline 3: the matrix has cells 1 to 2'
	run "$RUN_MATRIX" --dry-run --baseline 'gcc -O' --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_failure 2
	assert_output "run-matrix: --baseline 'gcc -O' matches 2 cells' build lines, not one (001,002)"
	run "$RUN_MATRIX" --dry-run --baseline nowhere --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_failure 2
	assert_output "run-matrix: --baseline 'nowhere' matches 0 cells' build lines, not one"
	run "$RUN_MATRIX" --dry-run --baseline 0 --results "$BATS_TEST_TMPDIR/r" "$m"
	assert_failure 2
	run "$RUN_MATRIX" --baseline
	assert_failure 2
	assert_output 'run-matrix: option --baseline needs a value'
}

@test "REPEAT 4: a planted 20% drop is slower by the rank test, a wiggle within noise" {
	fake_gcc
	for k in 1 2 3 4; do
		w=$((k % 2))
		fake_result a "$k" $((1000 + k)) $((1000 + k)) $((1000 + k)) $((1000 + k))
		# Copy: 20% slower every run; Triad: a 0.3% wiggle around the baseline
		fake_result b "$k" $((800 + k)) $((1000 + k)) $((1000 + k)) $((1000 - 3 + 6 * w))
	done
	m=$(write_matrix noise 'gcc | -O2 | FAKE=a ; FAKE=b | plain | 1')
	tiny_matrix --repeat 4 "$m"
	assert_success
	dir=$(results_dir)
	row=$(vs_row "$dir" 002)
	assert_regex "$row" '\| -20\.0% slower \| \+0\.0% within noise \| \+0\.0% within noise \| [-+]0\.[0-9]% within noise \|$'
	assert_equal "$(csv_field "$dir" copy_verdict 2)" slower
	assert_equal "$(csv_field "$dir" triad_verdict 2)" "within noise"
	assert_output --partial 'a Mann-Whitney rank test (p < 0.05) with 4 or more runs'
}

@test "REPEAT 4: a rate is the mean of its middle two runs, in the table, the changes and harness/report" {
	fake_gcc
	# the upper or the lower middle alone gives other numbers everywhere
	# below than plant_even_runs' medians
	plant_even_runs 1000
	m=$(write_matrix even 'gcc | -O2 | FAKE=a ; FAKE=b | plain | 1')
	tiny_matrix --repeat 4 "$m"
	assert_success
	dir=$(results_dir)
	assert_equal "$(csv_field "$dir" copy_mbs 1) $(csv_field "$dir" copy_mbs 2) $(csv_field "$dir" triad_mbs 2)" "1020 820 1030"
	assert_equal "$(table_row "$dir" 1 | awk -F'|' '{ print $6 }' | tr -d ' ')" 1020.0
	assert_equal "$(table_row "$dir" 2 | awk -F'|' '{ gsub(/ /, ""); print $6, $9, $12 }')" '820.0 1030.0 1.03'
	# the change is between the medians: 820 against 1020
	assert_regex "$(vs_row "$dir" 002)" '\| -19\.6% slower \| \+0\.0% within noise \| \+0\.0% within noise \| \+3\.0% within noise \|$'
	# harness/report's matrix table: the same medians
	run "$ROOT/harness/report" "$dir"
	assert_success
	assert_line --regexp '^\| 001 +\| .* \| +1020\.0 \| +1000\.0 \| +1000\.0 \| +1000\.0 \| +1000\.0 \| +1000\.0 \| '
	assert_line --regexp '^\| 002 +\| .* \| +820\.0 \| +1000\.0 \| +1000\.0 \| +1030\.0 \| +1000\.0 \| +1100\.0 \| '
}

@test "REPEAT 3: the spread rule decides, as harness/compare's does with 3 runs" {
	fake_gcc
	for k in 1 2 3; do
		fake_result a "$k" $((990 + 10 * k)) 1000 1000 1000
		fake_result b "$k" $((995 + 10 * k)) 700 1000 1000
	done
	m=$(write_matrix three 'gcc | -O2 | FAKE=a ; FAKE=b | plain | 1')
	tiny_matrix --repeat 3 "$m"
	assert_success
	dir=$(results_dir)
	# Copy +0.5% inside a 2% spread; Scale -30% outside it
	assert_regex "$(vs_row "$dir" 002)" '\| \+0\.5% within noise \| -30\.0% slower \| \+0\.0% within noise \| \+0\.0% within noise \|$'
	assert_output --partial 'over the 3 runs a side'
}

@test "caveats: bench's warnings and a Triad far below Add replace a bare ok" {
	fake_gcc
	fake_result clean 1 1000 1000 1000 1000
	fake_result small 1 1000 1000 1000 1000 \
		"each array (0.8 MiB) is smaller than 4x the reported last-level cache (2 x 32 MiB); --size 16777216 or more follows STREAM's rule (VMs may report nonsense cache sizes)"
	fake_result odd 1 1000 1000 1000 290
	m=$(write_matrix cav 'gcc | -O2 | FAKE=clean ; FAKE=small ; FAKE=odd | plain | 1')
	tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	assert_regex "$(table_row "$dir" 1)" '\| ok \| .* \| standard \|  \|$'
	assert_regex "$(table_row "$dir" 2)" '\| ok \| .* \| variant \| arrays < 4x LLC \|$'
	assert_regex "$(table_row "$dir" 3)" '\| ok \| .* \| standard \| Triad 0\.29x Add \|$'
	assert_line --partial '- cell 002: each array (0.8 MiB) is smaller than 4x the reported last-level cache'
	assert_line "- cell 003: Triad's rate is 0.29x Add's, though both move three words per element (outside 0.75-1.33)"
	assert_line '- cell 002: variant: arrays below 4x all last-level caches'
	assert_equal "$(csv_field "$dir" caveats 3)" "Triad 0.29x Add"
	assert_equal "$(csv_field "$dir" caveats 1)" ""
}

@test "a baseline without numbers: no comparison, said so, and no ratios" {
	need_compiler gcc
	m=$(write_matrix nobase 'gcc | -O2 | BENCH_CORRUPT_TEST=1 ; | plain | 1')
	tiny_matrix --baseline 1 "$m"
	assert_failure 1
	dir=$(results_dir)
	assert_line '- Baseline: row 1, `gcc -O2 -DSTREAM_ARRAY_SIZE=100000 -DBENCH_CORRUPT_TEST=1`, which has no numbers (FAILED validation): no comparison'
	refute_output --partial '## Against the baseline'
	assert_equal "$(table_row "$dir" 2 | awk -F'|' '{ print $12 }' | tr -d ' ')" ""
	assert_equal "$(csv_field "$dir" triad_vs_baseline_pct 2)" ""
}

@test "real bench, end to end: run rules and caveats come from each cell's result.json" {
	need_compiler gcc
	m=$(write_matrix real 'gcc | -O2 | | plain | 1')
	tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	want=$(jq -r .run_rules.verdict "$dir/cells/001/result.json")
	assert_equal "$(csv_field "$dir" run_rules 1)" "$want"
	assert_equal "$(csv_field "$dir" run_rule_reasons 1)" "$(jq -r '.run_rules.reasons | join("; ")' "$dir/cells/001/result.json")"
	# the Triad caveat exactly when the cell's Triad/Add is outside
	# 0.75-1.33 (tiny arrays on a busy machine can get there), and the
	# others exactly when bench warned (tiny arrays usually warn)
	nwarn=$(jq '.warnings | length' "$dir/cells/001/result.json")
	ratio=$(jq '[.results[] | select(.kernel == "Triad")][0].best_mbs /
		[.results[] | select(.kernel == "Add")][0].best_mbs' "$dir/cells/001/result.json")
	caveats=$(csv_field "$dir" caveats 1)
	triad_cav=$(grep -o 'Triad [0-9.]*x Add' <<<"$caveats" || true)
	others=${caveats%"$triad_cav"}
	others=${others%"; "}
	if awk -v r="$ratio" 'BEGIN { exit !(r < 0.75 || r > 1.33) }'; then
		[ -n "$triad_cav" ] || fail "Triad/Add $ratio but no caveat: '$caveats'"
		awk -v r="$ratio" -v c="${triad_cav#Triad }" 'BEGIN { c += 0; exit !((r - c) < 0.011 && (c - r) < 0.011) }' ||
			fail "Triad/Add $ratio, caveat '$triad_cav'"
	else
		[ -z "$triad_cav" ] || fail "Triad/Add $ratio inside the band, caveat '$triad_cav'"
	fi
	{ [ "$nwarn" -gt 0 ] && [ -n "$others" ]; } || { [ "$nwarn" = 0 ] && [ -z "$others" ]; } ||
		fail "$nwarn warnings, caveats '$caveats'"
}

@test "make matrix passes BASELINE on as --baseline, and nothing without it" {
	[ -f "$ROOT/Makefile" ] || skip "run ./configure first"
	run make -n -C "$ROOT" matrix BASELINE='clang -O3'
	assert_success
	assert_output --partial "--baseline 'clang -O3'"
	run make -n -C "$ROOT" matrix
	refute_output --partial -- '--baseline'
}

@test "a -D value with a '#' in it: one cell.info reader, so run-matrix's tables, report, compare and submission all read it whole" {
	fake_gcc
	fake_result a 1 1000 1000 1000 1000
	fake_result b 1 900 900 900 900
	m=$(write_matrix hash 'gcc | -O2 | FAKE=a ; FAKE=b | plain | 1')
	MATRIX_CFLAGS_gcc='-DTAG=a#b' tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	want='-DTAG=a#b'
	# the library itself, then each consumer
	run bash -c '. "$1/harness/lib.sh"; results_cell_info "$2/cells/001/cell.info" build_line' _ "$MEMBENCH_ROOT" "$dir"
	assert_output --partial "$want -DSTREAM_ARRAY_SIZE"
	assert_regex "$(table_row "$dir" 1)" "$want"
	assert_equal "$(csv_field "$dir" build_line 1)" "$output"
	# the tables are report's: made again from the directory alone, byte for byte
	mkdir "$BATS_TEST_TMPDIR/again"
	run "$MEMBENCH_ROOT/harness/report" --matrix-table -o "$BATS_TEST_TMPDIR/again" "$dir"
	assert_success
	cmp "$dir/table.md" "$BATS_TEST_TMPDIR/again/table.md"
	cmp "$dir/table.csv" "$BATS_TEST_TMPDIR/again/table.csv"
	run "$MEMBENCH_ROOT/harness/report" --format csv --no-plots -o "$BATS_TEST_TMPDIR/rep" "$dir"
	assert_success
	grep -qF -- "$want -DSTREAM_ARRAY_SIZE" "$BATS_TEST_TMPDIR/rep/report-bandwidth.csv"
	# compare rules on median_mbs, which the planted results lack
	for f in "$dir"/cells/*/result.json; do
		jq '.results[] |= (.median_mbs = .best_mbs)' "$f" >"$f.new" && mv "$f.new" "$f"
	done
	run "$MEMBENCH_ROOT/harness/compare" "$dir" "$dir"
	assert_success
	assert_output --partial "$want -DSTREAM_ARRAY_SIZE"
	mkdir "$BATS_TEST_TMPDIR/out"
	run --separate-stderr "$MEMBENCH_ROOT/harness/submission" --output "$BATS_TEST_TMPDIR/out" "$dir"
	assert_success
	tar -xzOf "$output" --wildcards '*/build-lines.txt' | grep -qF -- "$want -DSTREAM_ARRAY_SIZE"
}
