#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# bench mix and bench c2c through the harness: harness/run passes their
# modes through under its settings and puts the machine back, report
# draws their tables and c2c's heatmap from their JSON, and compare rules
# on them row by row and cell by cell.  setup_file makes two tiny real
# runs, under a governor set on a fake cpufreq tree (bench runs for real
# on this machine; its topology is the fake's).

load test_helper
load harness_helper

REPORT=$MEMBENCH_ROOT/harness/report
COMPARE=$MEMBENCH_ROOT/harness/compare
RUN=$MEMBENCH_ROOT/harness/run

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local res=$BATS_FILE_TMPDIR/results f=$BATS_FILE_TMPDIR/fake
	command -v jq >/dev/null || return 0
	"$BENCH" info --json | jq -e '.build.modes | index("c2c")' >/dev/null || return 0
	[ "$(nproc)" -ge 2 ] || return 0
	export MEMBENCH_LOCK_DIR=$BATS_FILE_TMPDIR/lock
	unset OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY KMP_AFFINITY OMP_NUM_THREADS
	make_fake_machine "$f"
	{
		MEMBENCH_SYSFS=$f/sys MEMBENCH_PROCFS=$f/proc MEMBENCH_UID=0 \
			"$RUN" --results "$res" --governor performance --label mix -- mix -s 20000 -n 3
		MEMBENCH_SYSFS=$f/sys MEMBENCH_PROCFS=$f/proc MEMBENCH_UID=0 \
			"$RUN" --results "$res" --governor performance --label c2c -- c2c --cpus 0,1
	} >"$BATS_FILE_TMPDIR/fixtures.log" 2>&1 || { cat "$BATS_FILE_TMPDIR/fixtures.log" >&2; return 1; }
}

setup() {
	need jq
	"$BENCH" info --json | jq -e '.build.modes | index("c2c")' >/dev/null ||
		skip "this bench cannot run c2c (no OpenMP)"
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no pair to measure"
	W=$BATS_TEST_TMPDIR/results
	cp -r "$BATS_FILE_TMPDIR/results" "$W"
	MIX=$(find "$W" -mindepth 2 -maxdepth 2 -type d -name '*-mix' | head -n 1)
	C2C=$(find "$W" -mindepth 2 -maxdepth 2 -type d -name '*-c2c' | head -n 1)
	[ -f "$MIX/step-001.json" ] && [ -f "$C2C/step-001.json" ]
	FAKE=$BATS_FILE_TMPDIR/fake
}

@test "harness/run passes mix and c2c to bench under its settings, keeps their JSON and summary, and puts the machine back" {
	for d in "$MIX" "$C2C"; do
		run jq -r '.status, .exit_status, .bench.mode, (.command | index("performance") == null), (.settings | join(";"))' "$d/step-001.json"
		assert_line --index 0 ok
		assert_line --index 1 0
		assert_line --index 2 "${d##*-}"
		assert_line --regexp '^governor: performance on 8 CPUs, verified'
		grep -q '^- governor: performance on 8 CPUs, verified' "$d/summary.md"
		# the raw file is bench's own text of that run
		grep -q "bench ${d##*-}" "$d/step-001.raw"
	done
	# the fake cpufreq tree is back to powersave everywhere
	for c in 0 1 2 3 4 5 6 7; do
		[ "$(cat "$FAKE/sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor")" = powersave ]
	done
	# the summaries: mix's rows and c2c's relations, as the JSON has them
	jq -r '.bench.mix.rows[] | "| 1 | \(.mix) | \(.kernel) | \(.reads):\(.writes) | \(.plain.best_mbs * 10 | round / 10) | \(.nt.best_mbs // null | if . == null then "-" else . * 10 | round / 10 end) | ok |"' \
		"$MIX/step-001.json" >"$BATS_TEST_TMPDIR/want"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/want")" = 5 ]
	grep -qFxf "$BATS_TEST_TMPDIR/want" "$MIX/summary.md"
	[ "$(grep -cFxf "$BATS_TEST_TMPDIR/want" "$MIX/summary.md")" = 5 ]
	# the fake topology puts CPUs 0 and 1 on two cores of one socket
	run jq -r '.bench.c2c.pairs[0] | "\(.relation) \(.median_ns * 10 | round / 10)"' "$C2C/step-001.json"
	read -r rel med <<<"$output"
	[ "$rel" = socket ]
	grep -qE "^\| 1 \| socket \| 1 \| 1 \| [0-9.]+ \| $med \| ok \|$" "$C2C/summary.md"
}

@test "harness/run refuses --bind for c2c in one line, before it changes anything" {
	harness_setup
	before=$(tree_digest)
	run --separate-stderr "$RUN" --governor performance --bind close -- c2c
	assert_failure 2
	[ "$stderr" = "run: --bind does not apply to bench c2c, which pins each pair's threads itself" ]
	[ "$(tree_digest)" = "$before" ]
	[ ! -s "$FAKE_BENCH_LOG" ]
}

@test "report: the mix table, every number the run's own, in Markdown, CSV, text and HTML" {
	run "$REPORT" --html --format md,csv,txt "$MIX"
	assert_success
	assert_line --regexp '^## Bandwidth by read:write mix: best rate \(MB/s, 10\^6 bytes/s\), bytes as STREAM counts them$'
	python3 - "$MIX/report-mix.csv" "$MIX/step-001.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
doc = json.load(open(sys.argv[2]))["bench"]["mix"]["rows"]
assert [r["Mix"] for r in rows] == [d["mix"] for d in doc], rows
for r, d in zip(rows, doc):
    assert r["Kernel"] == d["kernel"] and r["Formula"] == d["formula"], r
    assert r["R:W"] == "%d:%d" % (d["reads"], d["writes"]), r
    assert float(r["Plain MB/s"]) == d["plain"]["best_mbs"], r
    assert (r["Streaming MB/s"] == "") == (d["nt"] is None), r
    assert d["nt"] is None or float(r["Streaming MB/s"]) == d["nt"]["best_mbs"], r
EOF
	grep -q '<td>triad-like</td>' "$MIX/report.html"
}

@test "report: c2c's matrix, pairs and summary from its JSON, and a heatmap labelled by CPU with the values in its cells" {
	need gnuplot
	run "$REPORT" --html --format md,csv,txt "$C2C"
	assert_success
	# one decimal, as report writes them (and bench's text)
	read -r a b mn med < <(jq -r 'def f1: (. * 10 | round) as $t | "\(($t - $t % 10) / 10).\($t % 10)";
		.bench.c2c.pairs[0] | "\(.a) \(.b) \(.min_ns | f1) \(.median_ns | f1)"' "$C2C/step-001.json")
	# the matrix, as bench prints it: the row CPU, the column CPU, min/median
	[ "$(sed -n '1p' "$C2C/report-c2c-matrix-1.csv")" = "CPU,$b" ]
	[ "$(sed -n '2p' "$C2C/report-c2c-matrix-1.csv")" = "$a,$mn/$med" ]
	python3 - "$C2C/report-c2c-pairs.csv" "$C2C/report-c2c-summary.csv" "$C2C/step-001.json" <<'EOF'
import csv, json, sys
pairs = list(csv.DictReader(open(sys.argv[1], newline="")))
summ = list(csv.DictReader(open(sys.argv[2], newline="")))
c2c = json.load(open(sys.argv[3]))["bench"]["c2c"]
assert len(pairs) == len(c2c["pairs"]) == 1, pairs
p, d = pairs[0], c2c["pairs"][0]
for col, key in (("Min ns", "min_ns"), ("Q1 ns", "q1_ns"), ("Median ns", "median_ns"), ("Q3 ns", "q3_ns")):
    assert float(p[col]) == d[key], (col, p[col], d[key])
assert p["A ran on"] == "%d-%d" % tuple(d["a_ran_on"]) and p["On its CPUs"] == "yes", p
assert [s["Relation"] for s in summ] == [s["relation"] for s in c2c["summary"]], summ
for s, j in zip(summ, c2c["summary"]):
    assert int(s["Pairs"]) == j["pairs"] and (s["Median ns"] == "") == (j["median_ns"] is None), s
    assert j["median_ns"] is None or float(s["Median ns"]) == j["median_ns"], s
EOF
	# the heatmap: SVG and PNG, in the HTML, its CPUs and its cell as text
	[ -s "$C2C/plot-c2c-1.svg" ] && [ -s "$C2C/plot-c2c-1.png" ]
	grep -q '<figure class="plot" id="plot-c2c-1">' "$C2C/report.html"
	grep -qF ">$mn/$med</text>" "$C2C/plot-c2c-1.svg"
	grep -qF ">$a</text>" "$C2C/plot-c2c-1.svg"
	grep -qF ">$b</text>" "$C2C/plot-c2c-1.svg"
	grep -qF 'plot-c2c-1.svg' "$C2C/report.md"
}

@test "the heatmap and matrix are generic: four CPUs, six pairs, a marked row: one row per pinging CPU, every cell written, marked ones with their !" {
	need gnuplot
	# the real run's document with a matrix of four CPUs made from it: the
	# figures are the test's, chosen so that each cell says where it is
	jq '.bench.c2c.pairs = [range(0; 4) as $a | range($a + 1; 4) as $b | .bench.c2c.pairs[0]
		| .a = $a | .b = $b | .min_ns = 10 * $a + $b | .median_ns = 10 * $a + $b + 0.5
		| .on_cpus = ($a != 1)]' "$C2C/step-001.json" >"$BATS_TEST_TMPDIR/s.json"
	mv "$BATS_TEST_TMPDIR/s.json" "$C2C/step-001.json"
	run "$REPORT" --format csv --html "$C2C"
	assert_success
	run cat "$C2C/report-c2c-matrix-1.csv"
	assert_output "$(printf 'CPU,1,2,3\n0,1.0/1.5,2.0/2.5,3.0/3.5\n1,,12.0/12.5!,13.0/13.5!\n2,,,23.0/23.5')"
	# a label per cell, in the heatmap too
	for t in 1.0/1.5 2.0/2.5 3.0/3.5 '12.0/12.5!' '13.0/13.5!' 23.0/23.5; do
		grep -qF ">$t</text>" "$C2C/plot-c2c-1.svg"
	done
	# the marked cells are out of the summary, not out of the pairs
	[ "$(awk -F, 'NR > 1 && $NF == "NO: marked"' "$C2C/report-c2c-pairs.csv" | wc -l)" = 2 ]
}

@test "compare: mix row by row, c2c cell by cell; a marked cell is said and not compared; mix against c2c is refused" {
	run --separate-stderr "$COMPARE" --json "$MIX" "$MIX"
	assert_success
	run jq -r '[.rows[] | "\(.item) \(.kind) \(.verdict)"] | join(";")' <<<"$output"
	assert_output 'all reads plain bandwidth within noise;3:1 plain bandwidth within noise;3:1 nt bandwidth within noise;2:1 plain bandwidth within noise;2:1 nt bandwidth within noise;1:1 plain bandwidth within noise;1:1 nt bandwidth within noise;triad-like plain bandwidth within noise;triad-like nt bandwidth within noise'
	# B: the same c2c run, its median 10% higher: slower, past its quartiles
	jq '.bench.c2c.pairs[0] |= (.median_ns *= 1.1 | .q1_ns *= 1.1 | .q3_ns *= 1.1)' "$C2C/step-001.json" >"$BATS_TEST_TMPDIR/b.json"
	run --separate-stderr "$COMPARE" --json "$C2C/step-001.json" "$BATS_TEST_TMPDIR/b.json"
	assert_success
	run jq -r '.rows[] | "\(.item) \(.kind) \(.unit) \(.change_pct * 10 | round / 10)"' <<<"$output"
	assert_output 'c2c 0-1 latency ns 10'
	# a cell that did not run on its CPUs is no sample: said, not compared
	# (A and B: the run's pair and a copy of it as pair 0-2, marked in B)
	jq '.bench.c2c.pairs += [.bench.c2c.pairs[0] | .b = 2]' "$C2C/step-001.json" >"$BATS_TEST_TMPDIR/a.json"
	jq '.bench.c2c.pairs[1].on_cpus = false' "$BATS_TEST_TMPDIR/a.json" >"$BATS_TEST_TMPDIR/m.json"
	run --separate-stderr "$COMPARE" "$BATS_TEST_TMPDIR/a.json" "$BATS_TEST_TMPDIR/m.json"
	assert_success
	[ "$stderr" = "compare: B: skipping $BATS_TEST_TMPDIR/m.json: its c2c cell 0-2 did not run as it says (on_cpus false), not compared" ]
	assert_line --regexp '^\| c2c 0-1 \| [0-9.]+ ns \| [0-9.]+ ns \| 0% \| within noise \|'
	assert_line 'Only in A: c2c 0-2'
	run --separate-stderr "$COMPARE" "$MIX" "$C2C"
	assert_failure 2
	[ "$stderr" = "compare: mismatched modes: A holds mix results, B holds c2c" ]
}

@test "a mix run that failed validation: FAILED and none of its numbers in the tables and the summary" {
	jq '.exit_status = 1 | .status = "validation failed" | .bench.validation.ok = false' "$MIX/step-001.json" >"$BATS_TEST_TMPDIR/f.json"
	mv "$BATS_TEST_TMPDIR/f.json" "$MIX/step-001.json"
	run "$REPORT" --format csv,md "$MIX"
	assert_success
	[ "$(awk -F, 'NR > 1 { print $(NF - 2) $(NF - 1) }' "$MIX/report-mix.csv" | sort -u)" = '' ]
	[ "$(awk -F, 'NR > 1 { print $NF }' "$MIX/report-mix.csv" | sort -u)" = 'FAILED (validation failed)' ]
	while IFS= read -r v; do
		! grep -qF -- "$v" "$MIX/report-mix.csv" "$MIX/report.md" || { echo "$v of the failed run is shown" >&2; return 1; }
	done < <(jq -r '.bench.mix.rows[] | .plain.best_mbs, (.nt.best_mbs // empty)' "$MIX/step-001.json")
}
