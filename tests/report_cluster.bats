#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/report on cluster run directories (docs/cluster.md): setup_file
# builds bench-mpi with Open MPI's wrapper and lays out a results tree the
# way harness/slurm/membench.sbatch does (<results>/cluster/<stamp>-<label>-
# job<ID>/ with cluster.json, cluster.txt, cluster.stderr, provenance.txt):
# one run from a real two-rank mpirun (BENCH_FAKE_HOST makes the ranks two
# nodes, with a latency chase on each), one from --cluster-in rows with an
# outlier.  Every number a test sees in a report is checked against the
# JSON bench-mpi wrote; nothing here reads how fast anything was.

load test_helper

REPORT=$MEMBENCH_ROOT/harness/report
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1

# cluster_run RESULTS NAME BENCH-ARGS...: one run directory as the batch
# script writes it, from bench-mpi started with BENCH-ARGS (a launcher
# first where there is one).
cluster_run() {
	local d=$1/cluster/$2 rc=0
	shift 2
	mkdir -p "$d/nodes"
	timeout 120 "$@" --json-file "$d/cluster.json" >"$d/cluster.txt" 2>"$d/cluster.stderr" || rc=$?
	printf 'bench-mpi: %s\nexit status: %s\n' "$*" "$rc" >"$d/provenance.txt"
	return "$rc"
}

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local res=$BATS_FILE_TMPDIR/results b=$BATS_FILE_TMPDIR/bm-rep
	# tests skip by name when these are missing
	command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null || return 0
	if [ -n "${REPORT_CLUSTER_FIXTURES:-}" ]; then
		# a results tree an earlier run made (the breakage checks reuse it)
		cp -r "$REPORT_CLUSTER_FIXTURES" "$res"
		return 0
	fi
	mpicc.openmpi -O2 -fopenmp -DBENCH_MPI "$MEMBENCH_ROOT/bench.c" -o "$b" >&2
	# shellcheck disable=SC2086 # TINY is a list of options
	BENCH_FAKE_HOST=nodeA,nodeB cluster_run "$res" 20261130T120000Z-two-job101 \
		mpirun.openmpi --oversubscribe -np 2 "$b" $TINY --cluster-latency 256K
	# --cluster-in exits 0 here: node04 is an outlier, none failed
	cluster_run "$res" 20261130T130000Z-rows-job102 \
		"$b" --cluster-in "$MEMBENCH_ROOT/tests/fixtures/cluster/threshold.txt"
	# a node whose validation failed: bench-mpi exits 1 and still writes the JSON
	! cluster_run "$res" 20261130T140000Z-bad-job103 \
		"$b" --cluster-in "$MEMBENCH_ROOT/tests/fixtures/cluster/failed.txt"
}

need_mpi() {
	need mpicc.openmpi
	need mpirun.openmpi
}

setup() {
	need_mpi
	RES=$BATS_FILE_TMPDIR/results
	TWO=$RES/cluster/20261130T120000Z-two-job101
	ROWS=$RES/cluster/20261130T130000Z-rows-job102
	BAD=$RES/cluster/20261130T140000Z-bad-job103
}

# csv_tsv FILE: a CSV table as TSV (quoted fields undone), header included.
csv_tsv() {
	python3 -c 'import csv, sys
for r in csv.reader(open(sys.argv[1])): print("\t".join(r))' "$1"
}

@test "a real two-node mpirun run: the per-node CSV is the JSON's nodes, host by host, latency and pages included" {
	run "$REPORT" --format csv,md --html -o "$BATS_TEST_TMPDIR/out" "$TWO"
	assert_success
	diff <(csv_tsv "$BATS_TEST_TMPDIR/out/report-nodes.csv" | cut -f1-11) <(jq -r '
		["Host", "Ranks", "Threads", "Copy", "Scale", "Add", "Triad", "Latency ns", "Validation", "Page KiB", "Huge %"],
		(.cluster.nodes[] | [.host, .ranks, .threads, .rates_mbs.copy, .rates_mbs.scale, .rates_mbs.add,
			.rates_mbs.triad, .latency_ns, (if .valid then "passed" else "FAILED" end), .page_kib, .huge_pct])
		| map(tostring) | join("\t")' "$TWO/cluster.json")
	# the Outlier column names a node exactly when the JSON flags it
	diff <(csv_tsv "$BATS_TEST_TMPDIR/out/report-nodes.csv" | awk -F'\t' 'NR > 1 { print $1, ($12 != "") }') \
		<(jq -r '.cluster as $c | $c.nodes[] | .host as $h | "\($h) \(if any($c.outliers[]; .host == $h) then 1 else 0 end)"' "$TWO/cluster.json")
	# two rows, nodeA then nodeB, each with a latency figure
	[ "$(csv_tsv "$BATS_TEST_TMPDIR/out/report-nodes.csv" | cut -f1 | tail -n +2 | tr '\n' ' ')" = "nodeA nodeB " ]
	jq -e '[.cluster.nodes[].latency_ns > 0] == [true, true]' "$TWO/cluster.json"
	# the Markdown shows the same table
	grep -q '^| Host  *| Ranks ' "$BATS_TEST_TMPDIR/out/report.md"
}

@test "aggregate and min/median/max across nodes: the summary CSV equals the JSON" {
	run "$REPORT" --format csv --no-plots -o "$BATS_TEST_TMPDIR/out" "$TWO"
	assert_success
	diff <(csv_tsv "$BATS_TEST_TMPDIR/out/report-summary.csv") <(jq -r '.cluster as $c
		| ["Figure", "Nodes", "Copy", "Scale", "Add", "Triad"],
		  (["Aggregate (sum over nodes)", $c.aggregate.nodes] + [$c.aggregate.rates_mbs | .copy, .scale, .add, .triad]),
		  (["min", "median", "max"][] as $f | [$f, $c.node_count] + [$c.spread[$f] | .copy, .scale, .add, .triad])
		| map(tostring) | join("\t")' "$TWO/cluster.json")
}

@test "--cluster-in rows with an outlier: node04 flagged in Triad with the threshold; node03 at exactly the threshold is not" {
	run "$REPORT" --format csv,txt --no-plots -o "$BATS_TEST_TMPDIR/out" "$ROWS"
	assert_success
	jq -e '[.cluster.outliers[].host] == ["node04"]' "$ROWS/cluster.json"
	diff <(csv_tsv "$BATS_TEST_TMPDIR/out/report-outliers.csv") <(jq -r '.cluster as $c
		| ["Host", "Kernel", "MB/s", "Median MB/s", "Below median %", "Threshold %"],
		  ($c.outliers[] | .host as $h | .kernels[]
		   | [$h, (.kernel | ascii_upcase[0:1] + .[1:]), .mbs, $c.spread.median[.kernel], .below_median_pct, $c.outlier_pct])
		| map(tostring) | join("\t")' "$ROWS/cluster.json")
	# the node table's Outlier column: node04 only
	[ "$(csv_tsv "$BATS_TEST_TMPDIR/out/report-nodes.csv" | awk -F'\t' 'NR > 1 && $NF != "" { print $1 ": " $NF }')" = \
		"node04: triad 5% below" ]
	# per-node rows come from their own node: node05's Copy is 1200
	[ "$(csv_tsv "$BATS_TEST_TMPDIR/out/report-nodes.csv" | awk -F'\t' '$1 == "node05" { print $4 }')" = \
		"$(jq -r '.cluster.nodes[] | select(.host == "node05") | .rates_mbs.copy' "$ROWS/cluster.json")" ]
	assert_output --partial 'Outliers: nodes more than 5% below the median'
	assert_output --partial 'Outlier threshold: more than 5% below the median'
	assert_output --partial 'Launch: stored rows (--cluster-in'
}

@test "--html: the node table, the outliers and the per-node plot with the outlier marked, inline" {
	need gnuplot
	run "$REPORT" --html -o "$BATS_TEST_TMPDIR/out" "$ROWS"
	assert_success
	local html=$BATS_TEST_TMPDIR/out/report.html
	grep -q '<th>Host</th>' "$html"
	grep -q '<th>Below median %</th>' "$html"
	grep -q '<td>node04</td>' "$html"
	grep -q '<figure class="plot" id="plot-cluster">' "$html"
	# the bar plot: one label per node, only node04's says OUTLIER
	python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(0 if r.tag.endswith("svg") else 1)' \
		"$BATS_TEST_TMPDIR/out/plot-cluster.svg"
	grep -q 'node04_OUTLIER:triad' "$BATS_TEST_TMPDIR/out/plot-cluster.svg"
	[ "$(grep -c '_OUTLIER:' "$BATS_TEST_TMPDIR/out/plot-cluster.svg")" -eq 1 ]
	[ -s "$BATS_TEST_TMPDIR/out/plot-cluster.png" ]
	# no network: nothing fetched from elsewhere
	run grep -E '(src|href)="https?:' "$html"
	assert_failure
}

@test "a node whose validation failed: its row says FAILED with the ranks and no rate, the others passed" {
	run "$REPORT" --format csv --no-plots -o "$BATS_TEST_TMPDIR/out" "$BAD"
	assert_success
	diff <(csv_tsv "$BATS_TEST_TMPDIR/out/report-nodes.csv" | awk -F'\t' 'NR > 1 { print $1, $8 }') \
		<(jq -r '.cluster.nodes[] | "\(.host) \(if .valid then "passed" else "FAILED (\(.failed_ranks) ranks)" end)"' "$BAD/cluster.json")
	grep -q 'FAILED (1 ranks)' "$BATS_TEST_TMPDIR/out/report-nodes.csv"
	# the failed node shows none of its rates; the run shows no figure
	# across nodes, since bench-mpi's include the failed node
	[ "$(csv_tsv "$BATS_TEST_TMPDIR/out/report-nodes.csv" | awk -F'\t' '$1 == "beta" { print $4 $5 $6 $7 }')" = '' ]
	[ "$(csv_tsv "$BATS_TEST_TMPDIR/out/report-summary.csv" | awk -F'\t' 'NR > 1 { print $3 $4 $5 $6 }' | tr -d '\n')" = '' ]
	grep -q 'FAILED' "$BATS_TEST_TMPDIR/out/report-summary.csv"
}

@test "the results root's index lists every cluster run with its nodes, failed nodes and outliers" {
	local out=$BATS_TEST_TMPDIR/idx
	run "$REPORT" --format csv --no-plots -o "$out" "$RES"
	assert_success
	diff <(csv_tsv "$out/report-index.csv" | cut -f1,2,5,6,7,9 | tail -n +2) <(
		for d in "$TWO" "$ROWS" "$BAD"; do
			jq -r --arg n "cluster/${d##*/}" '.cluster as $c | [$n, "cluster: \($c.node_count) nodes, \($c.ranks) ranks",
				($c.nodes | length), ([$c.nodes[] | select(.valid == false)] | length),
				(if $c.valid == false then "FAILED" else [$c.nodes[] | select(.valid != false) | .rates_mbs.triad] | max end),
				(if ($c.outliers | length) == 0 then "outliers: none" else "outliers: " + ($c.outliers | map(.host) | join(" ")) end)]
				| map(tostring) | join("\t")' "$d/cluster.json"
		done)
}

@test "bad cluster directories: no cluster.json, or JSON without cluster.nodes: one line, exit 2, nothing written" {
	local d=$BATS_TEST_TMPDIR/cluster/x-job1
	mkdir -p "$d"
	printf 'mpirun: a rank died\n' >"$d/cluster.stderr"
	run --separate-stderr "$REPORT" "$d"
	assert_failure 2
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"cluster.json: missing"* ]]
	# in an index it is a row that says why, in the verdict column
	run "$REPORT" --format csv --no-plots -o "$BATS_TEST_TMPDIR/idx" "$BATS_TEST_TMPDIR"
	assert_success
	[ "$(csv_tsv "$BATS_TEST_TMPDIR/idx/report-index.csv" | awk -F'\t' '$1 == "cluster/x-job1" { print $2 "|" $7 "|" substr($9, 1, 11) }')" = \
		"cluster||unreadable:" ]
	printf '{"schema": "x", "cluster": {}}\n' >"$d/cluster.json"
	run --separate-stderr "$REPORT" "$d"
	assert_failure 2
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"not bench-mpi's cluster JSON"* ]]
	[ -z "$(find "$d" -name 'report*')" ]
}
