#!/usr/bin/env bats
# make matrix / matrix/run-matrix: cells built apart, run one at a time,
# one table row per cell.

load matrix_helper
# cells other files build too: once a run (tests/cc-cache)
cc_cache_on

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

@test "two compilers, end to end: a table row with numbers for each" {
	need_compiler gcc
	need_compiler clang
	# -O0: the table, the build lines and their replay are what is
	# checked, not the optimiser (-O2 cost 10 s of CPU more)
	m=$(write_matrix two 'gcc clang | @openmp -O0 | | plain | all')
	tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	[ -f "$dir/table.md" ] && [ -f "$dir/table.csv" ]
	for n in 1 2; do
		row=$(table_row "$dir" "$n")
		[[ "$row" == *"| ok |"* ]] || fail "row $n did not validate: $row"
		# Copy, Scale, Add and Triad are all numbers.
		nums=$(printf '%s' "$row" | awk -F'|' '{ print $6, $7, $8, $9 }')
		[[ "$nums" =~ ^\ *[0-9]+\.[0-9]\ +[0-9]+\.[0-9]\ +[0-9]+\.[0-9]\ +[0-9]+\.[0-9]\ *$ ]] ||
			fail "row $n numbers: '$nums'"
	done
	assert_equal "$(table_row "$dir" 1 | awk -F'|' '{ print $3 }')" ' `gcc -fopenmp -O0 -DSTREAM_ARRAY_SIZE=100000` '
	assert_equal "$(table_row "$dir" 2 | awk -F'|' '{ print $3 }')" ' `clang -fopenmp -O0 -DSTREAM_ARRAY_SIZE=100000` '
	# The table's numbers are bench's own, and the binary knows its build line.
	assert_equal "$(jq -r '.results[] | select(.kernel == "Triad") | .best_mbs' "$dir/cells/002/result.json" |
		awk '{ printf "%.1f", $1 }')" "$(table_row "$dir" 2 | awk -F'|' '{ print $9 }' | tr -d ' ')"
	assert_equal "$(jq -r .build.cflags "$dir/cells/001/result.json")" "gcc -fopenmp -O0 -DSTREAM_ARRAY_SIZE=100000"
	# CSV: header plus two rows, the build line and a ratio of 1 in row 1.
	assert_equal "$(wc -l <"$dir/table.csv")" 3
	run awk -F, 'NR == 2 { print $2, $15 }' "$dir/table.csv"
	assert_output '"gcc -fopenmp -O0 -DSTREAM_ARRAY_SIZE=100000" 1.00'
	# Each cell keeps its exact build and run command, and they replay.
	grep -q -- '-o bench' "$dir/cells/001/build.sh"
	rm "$dir/cells/001/bench"
	sh "$dir/cells/001/build.sh"
	rm "$dir/cells/001/result.json"
	run sh "$dir/cells/001/run.sh"
	assert_success
	# the replay prints STREAM's text and writes the same run's JSON
	assert_line --regexp '^Triad: '
	jq -e '.validation.ok == true' "$dir/cells/001/result.json" >/dev/null
}

@test "a compiler that is absent is a skipped row, and the matrix goes on" {
	need_compiler gcc
	m=$(write_matrix star '* | -O2 | | plain | 1')
	MATRIX_COMPILERS="no-such-cc-42 gcc" tiny_matrix "$m"
	assert_success
	dir=$(results_dir)
	assert_regex "$(table_row "$dir" 1)" 'skipped: compiler no-such-cc-42 not found on PATH'
	assert_regex "$(table_row "$dir" 2)" '\| ok \|'
	[ ! -e "$dir/cells/001/bench" ]
}

@test "a compiler without OpenMP builds serial cells; a missing flag skips" {
	need_compiler tcc
	m=$(write_matrix tcc 'tcc | @openmp -O2 ; @openmp -O2 @native | | plain | all')
	run "$RUN_MATRIX" --dry-run --size 100000 --results "$BATS_TEST_TMPDIR/results" "$m"
	assert_success
	assert_line --regexp '^001	tcc -O2 -DSTREAM_ARRAY_SIZE=100000	\./bench --json-file result\.json --isa generic --alloc mmap	planned$'
	assert_line --regexp '^002	.*	no tune-for-this-CPU flag known for tcc'
}

@test "a cell that fails validation shows FAILED validation, never numbers" {
	need_compiler gcc
	m=$(write_matrix corrupt \
		'gcc | -O0 | BENCH_CORRUPT_TEST=1 | plain | 1' \
		'gcc | -O2 | | plain | 1')
	tiny_matrix "$m"
	assert_failure 1
	assert_line 'run-matrix: cells that failed: 001 (FAILED validation)'
	dir=$(results_dir)
	row=$(table_row "$dir" 1)
	assert_regex "$row" '\| FAILED validation \|'
	assert_equal "$(printf '%s' "$row" | awk -F'|' '{ print $6 $7 $8 $9 $12 }' | tr -d ' ')" ""
	assert_equal "$(sed -n 's/^run_status = //p' "$dir/cells/001/cell.info")" 1
	assert_regex "$(table_row "$dir" 2)" '\| ok \|'
	run awk -F, 'NR == 2 { print $12, $11 }' "$dir/table.csv"
	assert_output '"FAILED validation" '
}

@test "--repeat 2: interleaved rounds, per-run files, medians and the Triad spread" {
	need_compiler gcc
	m=$(write_matrix rep 'gcc | -O2 ; -O1 | | plain | 1')
	tiny_matrix --repeat 2 "$m"
	assert_success
	dir=$(results_dir)
	# Round 1 runs every cell before round 2 starts, by the progress lines...
	assert_equal "$(printf '%s\n' "$output" |
		sed -n 's/^run-matrix: \(round [0-9]*\/[0-9]* cell [0-9]*\): .*/\1/p' | tr '\n' ,)" \
		'round 1/2 cell 001,round 1/2 cell 002,round 2/2 cell 001,round 2/2 cell 002,'
	# ...and by the files each run left.
	prev=""
	for r in 001/run-1 002/run-1 001/run-2 002/run-2; do
		f="$dir/cells/$r/result.json"
		[ -z "$prev" ] || [ -n "$(find "$f" -newer "$prev")" ] || fail "$r ran before $prev"
		prev=$f
	done
	for c in 001 002; do
		# Each run keeps its own files; the cell directory holds none.
		for k in 1 2; do
			grep -q '^Triad: ' "$dir/cells/$c/run-$k/output.txt"
			[ -f "$dir/cells/$c/run-$k/stderr.txt" ]
			jq -e '.validation.ok == true' "$dir/cells/$c/run-$k/result.json" >/dev/null
		done
		[ ! -e "$dir/cells/$c/result.json" ] && [ ! -e "$dir/cells/$c/output.txt" ]
		[ ! -e "$dir/cells/$c/run-3" ]
		# Every rate is the median of the runs' best rates; the spread is
		# the largest Triad best rate over the smallest.
		row=$(table_row "$dir" "${c#00}")
		assert_regex "$row" '\| ok \|'
		col=6
		for kernel in Copy Scale Add Triad; do
			want=$(jq -s --arg k "$kernel" '[.[].results[] | select(.kernel == $k) | .best_mbs] |
				sort | (.[0] + .[1]) / 2' "$dir/cells/$c"/run-[12]/result.json)
			assert_equal "$(printf '%s' "$row" | awk -F'|' -v i="$col" '{ print $i }' | tr -d ' ')" \
				"$(awk -v x="$want" 'BEGIN { printf "%.1f", x }')"
			col=$((col + 1))
		done
		run awk -F, -v n="${c#00}" -v want="$want" 'NR == n + 1 { exit !($11 == want) }' "$dir/table.csv"
		assert_success
		spread=$(jq -s '[.[].results[] | select(.kernel == "Triad") | .best_mbs] | max / min' \
			"$dir/cells/$c"/run-[12]/result.json | awk '{ printf "%.2f", $1 }')
		assert_equal "$(printf '%s' "$row" | awk -F'|' '{ print $13 }' | tr -d ' ')" "$spread"
		run awk -F, -v n="${c#00}" 'NR == n + 1 { print $16 }' "$dir/table.csv"
		assert_output "$spread"
	done
	assert_regex "$(head -n 1 "$dir/table.md")" '; rates are medians of 2 interleaved runs per cell$'
	assert_regex "$(grep '^| # |' "$dir/table.md")" '\| Triad ratio \| Triad spread \| run rules \| caveats \|$'
	run awk -F, 'NR == 1 { print $15, $16, $17 }' "$dir/table.csv"
	assert_output 'triad_ratio triad_spread dir'
}

@test "--repeat: a run that fails validation fails the cell, which is not run again" {
	need_compiler gcc
	m=$(write_matrix repbad \
		'gcc | -O2 | BENCH_CORRUPT_TEST=1 | plain | 1' \
		'gcc | -O2 | | plain | 1')
	tiny_matrix --repeat 2 "$m"
	assert_failure 1
	dir=$(results_dir)
	row=$(table_row "$dir" 1)
	assert_regex "$row" '\| FAILED validation \|'
	assert_equal "$(printf '%s' "$row" | awk -F'|' '{ print $6 $7 $8 $9 $12 $13 }' | tr -d ' ')" ""
	[ -f "$dir/cells/001/run-1/result.json" ] && [ ! -e "$dir/cells/001/run-2" ]
	[ -f "$dir/cells/002/run-2/result.json" ]
	assert_regex "$(table_row "$dir" 2)" '\| ok \| .* \| 1\.00 \| [0-9]+\.[0-9]{2} \| [a-z]+ \| [^|]* \|$'
}

@test "every run gets a new results directory, named as the harness names them" {
	need_compiler gcc
	# Both runs in the same second: the second gets the harness's .2 suffix.
	make_fake_tool "$BATS_TEST_TMPDIR/bin" date 'echo 20260101T000000Z'
	m=$(write_matrix one 'gcc | -O2 | | plain | 1')
	PATH=$BATS_TEST_TMPDIR/bin:$PATH tiny_matrix "$m"
	assert_success
	first=$(results_dir)
	sum=$(cat "$first/table.md" "$first/cells/001/result.json" | cksum)
	PATH=$BATS_TEST_TMPDIR/bin:$PATH tiny_matrix "$m"
	assert_success
	second=$(results_dir)
	assert_equal "$first" "$BATS_TEST_TMPDIR/results/$(hostname -s)/20260101T000000Z-matrix-one"
	assert_equal "$second" "$first.2"
	assert_equal "$(cat "$first/table.md" "$first/cells/001/result.json" | cksum)" "$sum"
	# Provenance as every harness writes it.
	grep -q '^## membench release (BENCH_VERSION in bench.c)' "$second/provenance.txt"
	grep -q '^## THP and huge pages before the run' "$second/provenance.txt"
	grep -q "^One binary per cell: cells/NNN/build.sh" "$second/provenance.txt"
}

@test "cells with the same build command are built once; each gets the binary and says whose it is" {
	need_compiler gcc
	m=$(write_matrix shared 'gcc | -O1 | | plain ; static | 1
gcc | -O1 -fno-inline | | plain | 1')
	tiny_matrix "$m"
	assert_success
	assert_output --partial 'building 2 of 3 cells'
	dir=$(results_dir)
	# cell 002 (static) is cell 001's command; 003's flags differ
	assert_equal "$(head -n 1 "$dir/cells/002/build.log")" \
		'run-matrix: the same build command as cell 001, built once: its binary, copied'
	run grep -l 'same build command' "$dir/cells/001/build.log" "$dir/cells/003/build.log"
	assert_output ''
	cmp "$dir/cells/001/bench" "$dir/cells/002/bench"
	run cmp -s "$dir/cells/001/bench" "$dir/cells/003/bench"
	assert_failure
	# each cell ran its own allocation and validated
	assert_equal "$(jq -r '.run.alloc + " " + (.validation.ok | tostring)' "$dir/cells/002/result.json")" 'static true'
	assert_equal "$(jq -r '.run.alloc + " " + (.validation.ok | tostring)' "$dir/cells/001/result.json")" 'mmap true'
	grep -q '^cells with the same build command share one build' "$dir/provenance.txt"
}

@test "static arrays past 2 GiB get -mcmodel=medium, small ones do not" {
	need_compiler gcc
	m=$(write_matrix big 'gcc | -O2 | | static | 1')
	run "$RUN_MATRIX" --dry-run --size 100000000 --results "$BATS_TEST_TMPDIR/results" "$m"
	assert_success
	assert_line --regexp '^001	gcc -O2 -mcmodel=medium -DSTREAM_ARRAY_SIZE=100000000	'
	run "$RUN_MATRIX" --dry-run --size 1000000 --results "$BATS_TEST_TMPDIR/results" "$m"
	refute_output --partial mcmodel
	m=$(write_matrix bigfloat 'gcc | -O2 | STREAM_TYPE=float | static | 1')
	run "$RUN_MATRIX" --dry-run --size 100000000 --results "$BATS_TEST_TMPDIR/results" "$m"
	refute_output --partial mcmodel
}

@test "the shipped matrices parse, and xeon-e5-2670-report keeps its icc rows" {
	# xeon-e5-2670-report last: its output is the one read below (each
	# dry run costs seconds of the shell's forks)
	for m in default hugepages xeon-e5-2670-report; do
		run "$RUN_MATRIX" --dry-run --results "$BATS_TEST_TMPDIR/results" "$m"
		assert_success
	done
	# icc is no part of setup: without it its six rows say so, with it
	# none does
	if ! command -v icc >/dev/null; then
		assert_equal "$(printf '%s\n' "$output" | grep -c '^0.*	icc .*compiler icc not found on PATH$')" 6
	else
		assert_equal "$(printf '%s\n' "$output" | grep -c 'compiler icc not found on PATH$')" 0
	fi
	assert_line --regexp '^001	gcc -O3 -DSTREAM_ARRAY_SIZE=11141120	\./bench --json-file result\.json --isa generic --alloc mmap -t 1	'
	assert_line --partial 'icc -O1 -opt-streaming-stores never -DSTREAM_ARRAY_SIZE=11141120'
}

@test "bad input: one line on stderr, status 2, no results directory" {
	run "$RUN_MATRIX" --results "$BATS_TEST_TMPDIR/results" no-such-matrix
	assert_failure 2
	assert_output --regexp "^run-matrix: no matrix 'no-such-matrix'"
	assert_equal "${#lines[@]}" 1
	run "$RUN_MATRIX" --size 12x --results "$BATS_TEST_TMPDIR/results" default
	assert_failure 2
	assert_output "run-matrix: SIZE must be a positive number of elements, not '12x'"
	run "$RUN_MATRIX" --repeat 0 --results "$BATS_TEST_TMPDIR/results" default
	assert_failure 2
	assert_output "run-matrix: REPEAT must be a positive number of runs per cell, not '0'"
	m=$(write_matrix bad 'gcc | -O2 | | no-such-mode')
	run "$RUN_MATRIX" --results "$BATS_TEST_TMPDIR/results" "$m"
	assert_failure 2
	assert_output --partial "no memory mode 'no-such-mode'"
	[ ! -e "$BATS_TEST_TMPDIR/results" ] || [ -z "$(find "$BATS_TEST_TMPDIR/results" -name table.md)" ]
}

@test "make matrix delegates to matrix/run-matrix" {
	[ -f "$ROOT/Makefile" ] && [ -f "$ROOT/config.matrix" ] || skip "run ./configure first"
	need_compiler gcc
	m=$(write_matrix viamake 'gcc | -O2 | | plain | 1')
	run make -s -C "$ROOT" matrix MATRIX="$m" SIZE=100000 RESULTS="$BATS_TEST_TMPDIR/r"
	assert_success
	assert_output --partial '| `gcc -O2 -DSTREAM_ARRAY_SIZE=100000` | plain (mmap) | 1 |'
	[ -n "$(find "$BATS_TEST_TMPDIR/r" -name table.csv)" ]
}

@test "make matrix passes REPEAT on as --repeat, and nothing without it" {
	[ -f "$ROOT/Makefile" ] || skip "run ./configure first"
	run make -n -C "$ROOT" matrix REPEAT=3
	assert_success
	assert_output --regexp '--repeat 3 default'
	run make -n -C "$ROOT" matrix
	assert_success
	refute_output --partial -- '--repeat'
	refute_output --partial -- '--isa'
	run make -n -C "$ROOT" matrix ISA=auto
	assert_output --partial -- '--isa auto'
}

@test "cells run the code their flags produced (--isa generic); --isa auto lets bench dispatch" {
	need_compiler gcc
	m=$(write_matrix isa 'gcc | -O2 | | plain | 1')
	run "$RUN_MATRIX" --dry-run --size 100000 --results "$BATS_TEST_TMPDIR/results" "$m"
	assert_success
	run cat "$(find "$BATS_TEST_TMPDIR/results" -path '*cells/001/run.sh')"
	assert_line --regexp '^exec \./bench --json-file result\.json --isa generic( |$)'
	run "$RUN_MATRIX" --isa auto --dry-run --size 100000 --results "$BATS_TEST_TMPDIR/r2" "$m"
	assert_success
	run cat "$(find "$BATS_TEST_TMPDIR/r2" -path '*cells/001/run.sh')"
	assert_line --regexp '^exec \./bench --json-file result\.json --isa auto( |$)'
	# end to end: the cell's own JSON says which code ran
	tiny_matrix "$m"
	assert_success
	run jq -r '[.run.isa, (.results | map(.isa) | unique | join(","))] | @tsv' "$(results_dir)/cells/001/result.json"
	assert_output "$(printf 'generic\tgeneric')"
	for bad in AVX2 neon ""; do
		run "$RUN_MATRIX" --isa "$bad" --dry-run --results "$BATS_TEST_TMPDIR/r3" "$m"
		assert_failure 2
		[ "${#lines[@]}" -eq 1 ]
		[ ! -e "$BATS_TEST_TMPDIR/r3" ]
	done
}
