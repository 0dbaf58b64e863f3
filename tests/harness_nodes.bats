#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# bench nodes through the harness: harness/run passes the mode through
# under its settings and puts the machine back, report draws each matrix
# as a table and a heatmap labelled by node with the values in its
# cells, and compare rules on the matrices cell by cell.  setup_file
# makes one tiny real run on a fake machine (the harness's cpufreq tree,
# with NUMA nodes added: this machine's first node with its first CPU,
# a node of its second CPU and a node of memory alone, which this kernel
# lacks, so it refuses to bind to them).

load test_helper
load harness_helper

REPORT=$MEMBENCH_ROOT/harness/report
COMPARE=$MEMBENCH_ROOT/harness/compare
RUN=$MEMBENCH_ROOT/harness/run

# fake_nodes SYS: NUMA nodes in the fake machine's sysfs: the real node
# with CPU_A, fake node F1 with CPU_B, and F2 with memory and no CPUs.
fake_nodes() {
	local sys=$1 n
	two_cpus
	free_ids 2
	N0=$(real_node) F1=${FAKE_IDS[0]} F2=${FAKE_IDS[1]}
	for n in "$N0" "$F1" "$F2"; do
		mkdir -p "$sys/devices/system/node/node$n"
		printf 'Node %s MemTotal: 8388608 kB\nNode %s MemFree: 8388608 kB\n' "$n" "$n" \
			>"$sys/devices/system/node/node$n/meminfo"
	done
	echo "$CPU_A" >"$sys/devices/system/node/node$N0/cpulist"
	echo "$CPU_B" >"$sys/devices/system/node/node$F1/cpulist"
	: >"$sys/devices/system/node/node$F2/cpulist"
	echo "$N0,$F1-$F2" >"$sys/devices/system/node/online"
}

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local res=$BATS_FILE_TMPDIR/results f=$BATS_FILE_TMPDIR/fake
	command -v jq >/dev/null || return 0
	[ "$(nproc)" -ge 2 ] || return 0
	export MEMBENCH_LOCK_DIR=$BATS_FILE_TMPDIR/lock
	unset OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY KMP_AFFINITY OMP_NUM_THREADS
	make_fake_machine "$f"
	fake_nodes "$f/sys"
	MEMBENCH_SYSFS=$f/sys MEMBENCH_PROCFS=$f/proc MEMBENCH_UID=0 \
		"$RUN" --results "$res" --governor performance --label nodes -- nodes --buffer 4M -n 2 \
		>"$BATS_FILE_TMPDIR/fixtures.log" 2>&1 || { cat "$BATS_FILE_TMPDIR/fixtures.log" >&2; return 1; }
}

setup() {
	need jq
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no second node's row to play"
	W=$BATS_TEST_TMPDIR/results
	cp -r "$BATS_FILE_TMPDIR/results" "$W"
	NODES=$(find "$W" -mindepth 2 -maxdepth 2 -type d -name '*-nodes' | head -n 1)
	[ -f "$NODES/step-001.json" ]
	FAKE=$BATS_FILE_TMPDIR/fake
	two_cpus
	free_ids 2
	N0=$(real_node) F1=${FAKE_IDS[0]} F2=${FAKE_IDS[1]}
}

@test "harness/run passes nodes to bench under its settings, keeps its JSON and a summary row per cell, and puts the machine back" {
	run jq -r '.status, .exit_status, .bench.mode, (.settings | join(";"))' "$NODES/step-001.json"
	assert_line --index 0 ok
	assert_line --index 1 0
	assert_line --index 2 nodes
	assert_line --regexp '^governor: performance on 8 CPUs, verified'
	grep -q '^- governor: performance on 8 CPUs, verified' "$NODES/summary.md"
	grep -q '^Idle latency (ns per load): ' "$NODES/step-001.raw"
	for c in 0 1 2 3 4 5 6 7; do
		[ "$(cat "$FAKE/sys/devices/system/cpu/cpu$c/cpufreq/scaling_governor")" = powersave ]
	done
	# the summary: every cell of both matrices, its figure and its binding
	jq -r '.bench.nodes.matrices[] | (.kernel // .matrix) as $m | .unit as $u | .cells[]
		| "| 1 | \($m) | \(.cpu_node) | \(.mem_node) | \(if .binding == "ok" then (.value * 10 | round / 10 | tostring) else "-" end) | \($u) | \(if .binding == "ok" then "yes" else "refused (Invalid argument)" end) | ok |"' \
		"$NODES/step-001.json" >"$BATS_TEST_TMPDIR/want"
	[ "$(wc -l <"$BATS_TEST_TMPDIR/want")" = 12 ]
	[ "$(grep -cFxf "$BATS_TEST_TMPDIR/want" "$NODES/summary.md")" = 12 ]
	grep -qF "| 1 | read | $F1 | $F2 | - | MB/s | refused (Invalid argument) | ok |" "$NODES/summary.md"
	# a cell that did not hold says what did not: its record changed, the
	# summary made again from it
	jq --argjson n "$N0" '.bench.nodes.matrices[0].cells |= map(if .mem_node == $n then
		(if .cpu_node == $n then .cpus_held = false else .pages_held = false end) | .held = false else . end)
		| .bench.nodes.matrices[1].cells |= map(if .mem_node == $n and .cpu_node == $n then .pages_known = false | .held = false else . end)' \
		"$NODES/step-001.json" >"$BATS_TEST_TMPDIR/s.json"
	mv "$BATS_TEST_TMPDIR/s.json" "$NODES/step-001.json"
	run bash -c '. "$1/harness/lib.sh"; RESULTS_DIR=$2 summary_nodes_table' sh "$MEMBENCH_ROOT" "$NODES"
	assert_success
	assert_line --regexp "^\| 1 \| latency \| $N0 \| $N0 \| [0-9.]+ \| ns \| NO: threads ran elsewhere \| ok \|\$"
	assert_line --regexp "^\| 1 \| latency \| $F1 \| $N0 \| [0-9.]+ \| ns \| NO: pages elsewhere \| ok \|\$"
	assert_line --regexp "^\| 1 \| read \| $N0 \| $N0 \| [0-9.]+ \| MB/s \| unknown: pages \| ok \|\$"
	assert_line --regexp "^\| 1 \| read \| $F1 \| $N0 \| [0-9.]+ \| MB/s \| yes \| ok \|\$"
}

@test "harness/run refuses --bind for nodes in one line, before it changes anything" {
	harness_setup
	before=$(tree_digest)
	run --separate-stderr "$RUN" --governor performance --bind close -- nodes
	assert_failure 2
	[ "$stderr" = "run: --bind does not apply to bench nodes, which pins each row's threads itself" ]
	[ "$(tree_digest)" = "$before" ]
	[ ! -s "$FAKE_BENCH_LOG" ]
}

@test "report: each matrix as bench prints it, every cell a row, and a heatmap per matrix labelled by node with the values in its cells" {
	need gnuplot
	run "$REPORT" --html --format md,csv,txt "$NODES"
	assert_success
	# the matrices: rows the CPUs' nodes, columns the memory's, each cell
	# as bench's text has it (one decimal; refused where the kernel would not)
	local m want
	for m in 1 2; do
		want=$(jq -r --argjson m "$((m - 1))" 'def f1: (. * 10 | round) as $t | "\(($t - $t % 10) / 10).\($t % 10)";
			.bench.nodes.matrices[$m] as $mx | ([$mx.cells[].mem_node] | unique) as $cols
			| "node," + ($cols | map(tostring) | join(",")),
			  ([$mx.cells[].cpu_node] | unique[] as $r | [$r] + [$mx.cells[] | select(.cpu_node == $r)
			   | if .binding == "ok" then .value | f1 else "refused" end] | map(tostring) | join(","))' \
			"$NODES/step-001.json")
		diff <(printf '%s\n' "$want") "$NODES/report-node-matrix-01-$m.csv"
		grep -qF "$(sed -n 2p "$NODES/report-node-matrix-01-$m.csv" | cut -d, -f2)" "$NODES/step-001.raw"
	done
	[ "$(sed -n 2p "$NODES/report-node-matrix-01-1.csv" | cut -d, -f3-)" = refused,refused ]
	assert_line --regexp "^## Node matrix, 001: idle latency \\(ns\\); rows: the CPUs' node, columns: the memory's node"
	# every cell a row: the CPUs it names, where its threads ran, its pages
	python3 - "$NODES/report-node-matrix-cells.csv" "$NODES/step-001.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
cells = [(m, c) for m in json.load(open(sys.argv[2]))["bench"]["nodes"]["matrices"] for c in m["cells"]]
assert len(rows) == len(cells) == 12, rows
for r, (m, c) in zip(rows, cells):
    assert r["Matrix"] == (m["kernel"] or m["matrix"]) and r["Unit"] == m["unit"], r
    assert int(r["CPUs of node"]) == c["cpu_node"] and int(r["Memory of node"]) == c["mem_node"], r
    assert r["CPUs"] == " ".join(map(str, c["cpus"])), r
    if c["binding"] == "ok":
        assert float(r["Value"]) == c["value"] and r["Held"] == "yes", r
        assert r["Ran on"] == " ".join(map(str, c["ran_on"])), r
        assert int(r["Pages"]) == c["pages"] == int(r["On the node"]), r
    else:
        assert r["Value"] == "" and r["Held"] == "refused: Invalid argument", r
EOF
	# the heatmaps: SVG and PNG, in the HTML and the Markdown, each node a
	# label, each cell its text
	for m in 1 2; do
		[ -s "$NODES/plot-nodes-1-$m.svg" ] && [ -s "$NODES/plot-nodes-1-$m.png" ]
		grep -q "<figure class=\"plot\" id=\"plot-nodes-1-$m\">" "$NODES/report.html"
		grep -qF "plot-nodes-1-$m.svg" "$NODES/report.md"
		for n in "$N0" "$F1" "$F2"; do grep -qF ">$n</text>" "$NODES/plot-nodes-1-$m.svg"; done
		grep -qF '>refused</text>' "$NODES/plot-nodes-1-$m.svg"
		grep -qF ">$(sed -n 2p "$NODES/report-node-matrix-01-$m.csv" | cut -d, -f2)</text>" "$NODES/plot-nodes-1-$m.svg"
	done
	grep -qF 'idle latency (ns)' "$NODES/plot-nodes-1-1.svg"
	grep -qF 'read bandwidth (MB/s)' "$NODES/plot-nodes-1-2.svg"
}

@test "report: a cell whose binding did not hold is written with its mark and not coloured; a run that failed shows FAILED and none of its numbers" {
	need gnuplot
	local coloured
	run "$REPORT" --format csv "$NODES"
	assert_success
	# the heatmap's coloured cells: filled polygons (the colour box's
	# are the same in both renderings)
	coloured=$(grep -c "<polygon fill = 'rgb" "$NODES/plot-nodes-1-1.svg")
	jq --argjson n "$N0" '.bench.nodes.matrices[0].cells |= map(if .mem_node == $n and .cpu_node != $n
		then .held = false | .pages_held = false else . end)' "$NODES/step-001.json" >"$BATS_TEST_TMPDIR/s.json"
	mv "$BATS_TEST_TMPDIR/s.json" "$NODES/step-001.json"
	run "$REPORT" --format csv "$NODES"
	assert_success
	run awk -F, -v r="$F1" '$1 == r { print $2 }' "$NODES/report-node-matrix-01-1.csv"
	[[ $output =~ ^[0-9]+\.[0-9]!$ ]]
	grep -qF ">$output</text>" "$NODES/plot-nodes-1-1.svg"
	[ "$(grep -c "<polygon fill = 'rgb" "$NODES/plot-nodes-1-1.svg")" -eq $((coloured - 1)) ]
	run awk -F, -v r="$F1" -v n="$N0" '$3 == r && $4 == n && $2 == "latency" { print $11 }' "$NODES/report-node-matrix-cells.csv"
	assert_output 'NO !'
	# a failed run: no heatmap, and none of its numbers anywhere
	jq '.exit_status = 1 | .status = "validation failed"' "$NODES/step-001.json" >"$BATS_TEST_TMPDIR/f.json"
	mv "$BATS_TEST_TMPDIR/f.json" "$NODES/step-001.json"
	rm -f "$NODES"/plot-*
	run "$REPORT" --format csv,md "$NODES"
	assert_success
	[ "$(cat "$NODES/report-node-matrix-01-1.csv")" = "$(printf 'node,Status\n,FAILED (validation failed)')" ]
	while IFS= read -r v; do
		! grep -qF -- "$v" "$NODES/report-node-matrix-cells.csv" "$NODES/report.md" || { echo "$v of the failed run is shown" >&2; return 1; }
	done < <(jq -r '.bench.nodes.matrices[].cells[] | .value | numbers' "$NODES/step-001.json")
	[ ! -e "$NODES/plot-nodes-1-1.svg" ]
}

@test "compare: the matrices cell by cell; a cell that did not hold, or was refused, is said and not compared; nodes against another mode is refused" {
	# B: the same run, the latency cells 10% slower, read's 10% faster
	jq '.bench.nodes.matrices[0].cells |= map(if .binding == "ok" then .value *= 1.1 else . end)
		| .bench.nodes.matrices[1].cells |= map(if .binding == "ok" then (.value, .median, .worst) *= 1.1 else . end)' \
		"$NODES/step-001.json" >"$BATS_TEST_TMPDIR/b.json"
	run --separate-stderr "$COMPARE" --json "$NODES/step-001.json" "$BATS_TEST_TMPDIR/b.json"
	assert_success
	run jq -r '.rows[] | "\(.item) \(.kind) \(.unit) \(.change_pct * 10 | round / 10) \(.verdict)"' <<<"$output"
	assert_output "$(printf '%s\n' "nodes latency $N0 to $N0 latency ns 10 slower" "nodes latency $F1 to $N0 latency ns 10 slower" \
		"nodes read $N0 to $N0 bandwidth MB/s 10 faster" "nodes read $F1 to $N0 bandwidth MB/s 10 faster")"
	# the refused cells are each said, and compared nowhere
	run --separate-stderr "$COMPARE" "$NODES/step-001.json" "$NODES/step-001.json"
	assert_success
	[[ $stderr == *"its node cell nodes latency $N0 to $F2 did not hold where it says (binding refused), not compared"* ]]
	# a cell marked in B: said, not compared, and only A has it
	jq --argjson n "$N0" '.bench.nodes.matrices[1].cells |= map(if .cpu_node == $n and .mem_node == $n then .held = false | .cpus_held = false else . end)' \
		"$NODES/step-001.json" >"$BATS_TEST_TMPDIR/m.json"
	run --separate-stderr "$COMPARE" "$NODES/step-001.json" "$BATS_TEST_TMPDIR/m.json"
	assert_success
	[[ $stderr == *"B: skipping $BATS_TEST_TMPDIR/m.json: its node cell nodes read $N0 to $N0 did not hold where it says (held false), not compared"* ]]
	assert_line "Only in A: nodes read $N0 to $N0"
	# the setup each side ran with is listed, and another mode is refused
	jq '.bench.nodes.buffer_bytes = 8388608' "$NODES/step-001.json" >"$BATS_TEST_TMPDIR/d.json"
	run --separate-stderr "$COMPARE" "$NODES/step-001.json" "$BATS_TEST_TMPDIR/d.json"
	assert_success
	assert_output --partial 'buffer 4194304 bytes'
	assert_output --partial 'buffer 8388608 bytes'
	jq '.bench.mode = "c2c" | del(.bench.nodes) | .bench.c2c = {pairs: []}' "$NODES/step-001.json" >"$BATS_TEST_TMPDIR/c.json"
	run --separate-stderr "$COMPARE" "$NODES/step-001.json" "$BATS_TEST_TMPDIR/c.json"
	assert_failure 2
	# (after the notes of A's refused cells)
	[ "${stderr##*$'\n'}" = "compare: mismatched modes: A holds nodes results, B holds c2c" ]
}
