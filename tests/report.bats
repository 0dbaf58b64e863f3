#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/report: tables, plots and the HTML page rendered from results that
# bench itself wrote.  setup_file makes them with tiny real runs (harness/run,
# sweep-size, sweep-threads, a latency run, sweep-freq on a fake cpufreq
# tree, and a two-cell matrix with two runs per cell); every number the
# tests see in a report is checked against the JSON those runs wrote.

load test_helper
load harness_helper

REPORT=$MEMBENCH_ROOT/harness/report
PNG=$MEMBENCH_ROOT/tests/fixtures/report/png_check.py

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local res=$BATS_FILE_TMPDIR/results m=$BATS_FILE_TMPDIR/tiny.matrix
	# REPORT_FIXTURES=DIR reuses results an earlier run made (the tests
	# copy them, never write into DIR); the breakage checks use it.
	if [ -n "${REPORT_FIXTURES:-}" ]; then
		cp -r "$REPORT_FIXTURES" "$res"
		return 0
	fi
	[ -x "$MEMBENCH_ROOT/bench" ] || (cd "$MEMBENCH_ROOT" && make bench >&2)
	export MEMBENCH_LOCK_DIR=$BATS_FILE_TMPDIR/lock
	unset OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY KMP_AFFINITY OMP_NUM_THREADS
	{
		h=$MEMBENCH_ROOT/harness
		"$h/run" --results "$res" --label single -- -s 20000 -n 3
		"$h/sweep-size" --results "$res" --llc 1M --multiples 0.25,1,4 -- -n 3
		"$h/sweep-threads" --results "$res" --threads 1,2 -- -s 20000 -n 3
		# 512 KiB: 128 pages, the fewest the line-a-page chase takes
		"$h/run" --results "$res" --label lat -- latency --max 512K --steps-per-octave 4
		# cpufreq only exists on the fake machine: the harness sets it
		# there, bench runs for real.
		make_fake_machine "$BATS_FILE_TMPDIR/fake"
		MEMBENCH_SYSFS=$BATS_FILE_TMPDIR/fake/sys MEMBENCH_PROCFS=$BATS_FILE_TMPDIR/fake/proc MEMBENCH_UID=0 \
			"$h/sweep-freq" --results "$res" --freqs 1200,2600 --no-turbo-step -- -s 20000 -n 3 -t 1
		MEMBENCH_SYSFS=$BATS_FILE_TMPDIR/fake/sys MEMBENCH_PROCFS=$BATS_FILE_TMPDIR/fake/proc MEMBENCH_UID=0 \
			"$h/sweep-latency-pages" --results "$res" --modes 'thp-never thp-always' --max 128K
		"$h/time-latency-sweep" --results "$res" -n 2 -- --max 128K
		printf '%s\n' 'gcc | -O0 | STREAM_ARRAY_SIZE=20000 | plain | 1' \
			'gcc | -O1 | STREAM_ARRAY_SIZE=20000 | plain | 1' >"$m"
		"$MEMBENCH_ROOT/matrix/run-matrix" --results "$res" --repeat 2 --ntimes 3 "$m"
	} >"$BATS_FILE_TMPDIR/fixtures.log" 2>&1 || { cat "$BATS_FILE_TMPDIR/fixtures.log" >&2; return 1; }
}

setup() {
	RES=$BATS_FILE_TMPDIR/results
	HOSTDIR=$(find "$RES" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	# A fresh copy per test: reports are written into the run directories.
	W=$BATS_TEST_TMPDIR/results
	cp -r "$RES" "$W"
	HOSTDIR=$W/${HOSTDIR##*/}
	TINY=$(run_dir '*-single') SIZE=$(run_dir '*-sweep-size') THREADS=$(run_dir '*-sweep-threads')
	LAT=$(run_dir '*-lat') FREQ=$(run_dir '*-sweep-freq') MATRIX=$(run_dir '*-matrix-tiny')
	PAGES=$(run_dir '*-sweep-latency-pages') TIMING=$(run_dir '*-time-latency-sweep')
}

run_dir() { find "$HOSTDIR" -mindepth 1 -maxdepth 1 -type d -name "$1" | head -n 1; }

# csv_col FILE NAME: the column NAME of a report CSV (no quoted commas in
# the columns these tests read), one value a line.
csv_col() {
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } c { print $c }' "$2"
}

# svg_ok FILE: parses as XML and its root is an <svg> element.
svg_ok() {
	python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(0 if r.tag.endswith("svg") else 1)' "$1"
}

# png_ok FILE: PNG signature and an 800x480 IHDR.
png_ok() {
	run python3 "$PNG" size "$1"
	assert_success
	assert_output '800 480'
}

@test "a size sweep: every rate in the CSV is bench's best_mbs from the step's JSON" {
	run "$REPORT" --format csv,md "$SIZE"
	assert_success
	csv=$SIZE/report-bandwidth.csv
	[ -f "$csv" ]
	for k in Copy Scale Add Triad; do
		diff <(csv_col "$k MB/s" "$csv") \
			<(for f in "$SIZE"/step-*.json; do jq -r --arg k "$k" '.bench.results[] | select(.kernel == $k) | .best_mbs' "$f"; done)
	done
	# the LLC-multiple column, from the steps' params
	diff <(csv_col 'x LLC' "$csv") <(jq -r '.params["x LLC"]' "$SIZE"/step-*.json)
	[ "$(csv_col 'x LLC' "$csv" | paste -sd' ')" = '0.25 1 4' ]
	# the run-rule verdict of each step
	diff <(csv_col 'Run rules' "$csv") <(jq -r '.bench.run_rules.verdict' "$SIZE"/step-*.json)
	# Markdown: the same numbers, one decimal, right-aligned, units in the header
	triad=$(jq -r '.bench.results[] | select(.kernel == "Triad") | .best_mbs' "$SIZE/step-003.json")
	grep -qE "\| +$(round_as_c 1 "$triad") \|" "$SIZE/report.md"
	grep -q '| Triad MB/s |' "$SIZE/report.md"
	grep -qE '^\| -+ \| .* -+: \|' "$SIZE/report.md"
	# the reasons behind a verdict are listed under the table
	reason=$(jq -r '.bench.run_rules.reasons[0]' "$SIZE/step-001.json")
	grep -qF -- "$reason" "$SIZE/report.md"
	# stdout is the Markdown report
	assert_output --partial '## Bandwidth: best rate per kernel (MB/s, 10^6 bytes/s)'
}

@test "a thread sweep and a single run: threads, binding and rates from the JSON; txt aligns columns" {
	run "$REPORT" --format csv,txt "$THREADS"
	assert_success
	csv=$THREADS/report-bandwidth.csv
	diff <(csv_col 'Threads' "$csv") <(jq -r '.params.Threads' "$THREADS"/step-*.json)
	diff <(csv_col 'Threads ran' "$csv") <(jq -r '.bench.run.threads_counted' "$THREADS"/step-*.json)
	diff <(csv_col 'Triad MB/s' "$csv") <(jq -r '.bench.results[] | select(.kernel == "Triad") | .best_mbs' "$THREADS"/step-*.json)
	# txt: a header and rows whose Triad column ends in the same place
	hdr=$(grep -n 'Triad MB/s' "$THREADS/report.txt" | head -n 1)
	end=$(( $(printf '%s' "${hdr#*:}" | awk '{ print index($0, "Triad MB/s") + length("Triad MB/s") - 1 }') ))
	v=$(round_as_c 1 "$(jq -r '.bench.results[] | select(.kernel == "Triad") | .best_mbs' "$THREADS/step-002.json")")
	row=$(grep -E '^002 ' "$THREADS/report.txt")
	# the value ends at that column, a word of its own (another column
	# may hold the same digits, so it is not searched for)
	printf '%s' "$row" | awk -v v="$v" -v e="$end" '{
		s = e - length(v) + 1
		exit !(substr($0, s, length(v)) == v && (s == 1 || substr($0, s - 1, 1) == " "))
	}' || { echo "Triad $v does not end at column $end: $row"; return 1; }
	run "$REPORT" --format csv "$TINY"
	assert_success
	diff <(csv_col 'Copy MB/s' "$TINY/report-bandwidth.csv") \
		<(jq -r '.bench.results[] | select(.kernel == "Copy") | .best_mbs' "$TINY/step-001.json")
}

@test "a latency run: levels and the curve are bench's, ns and cycles" {
	run "$REPORT" --format csv "$LAT"
	assert_success
	diff <(csv_col 'ns' "$LAT/report-levels.csv") <(jq -r '.bench.summary[].levels[].ns' "$LAT/step-001.json")
	diff <(csv_col 'Level' "$LAT/report-levels.csv") <(jq -r '.bench.summary[].levels[].name' "$LAT/step-001.json")
	diff <(csv_col 'cycles' "$LAT/report-levels.csv") <(jq -r '.bench.summary[].levels[].cycles // ""' "$LAT/step-001.json")
	# the curve: every point, size in bytes and ns
	diff <(csv_col 'Size (bytes)' "$LAT/report-curve.csv") <(jq -r '.bench.curve[].bytes' "$LAT/step-001.json")
	diff <(awk -F, 'NR > 1 { print $2 }' "$LAT/report-curve.csv") <(jq -r '.bench.curve[].ns' "$LAT/step-001.json")
}

@test "page modes side by side, and a latency timing run: each curve and level from its own JSON" {
	run "$REPORT" --format csv "$PAGES" "$TIMING"
	assert_success
	head -n 1 "$PAGES/report-curve.csv" | grep -q 'Mode=thp-never.*Mode=thp-always'
	for i in 1 2; do
		diff <(awk -F, -v c=$((i + 1)) 'NR > 1 { print $c }' "$PAGES/report-curve.csv") \
			<(jq -r '.bench.curve[].ns' "$PAGES/step-00$i.json")
	done
	diff <(csv_col 'Mode' "$PAGES/report-levels.csv") \
		<(jq -r '.params.Mode as $m | .bench.summary[].levels[] | $m' "$PAGES"/step-*.json)
	diff <(csv_col 'ns' "$TIMING/report-levels.csv") <(jq -r '.summary[].levels[].ns' "$TIMING"/run-1.json "$TIMING"/run-2.json)
	diff <(csv_col 'Run' "$TIMING/report-levels.csv") \
		<(for i in 1 2; do jq -r --arg i "$i" '.summary[].levels[] | $i' "$TIMING/run-$i.json"; done)
	svg_ok "$PAGES/plot-latency.svg"
	grep -q 'Mode=thp-always' "$PAGES/plot-latency.svg"
}

@test "a matrix with two runs a cell: the median of the runs' best rates, and their spread" {
	run "$REPORT" --format csv "$MATRIX"
	assert_success
	csv=$MATRIX/report-bandwidth.csv
	diff <(csv_col 'Cell' "$csv") <(printf '001\n002\n')
	diff <(csv_col 'Runs' "$csv") <(printf '2\n2\n')
	for c in 001 002; do
		for k in Copy Triad; do
			want=$(jq -r --arg k "$k" '.results[] | select(.kernel == $k) | .best_mbs' "$MATRIX/cells/$c"/run-*/result.json |
				awk '{ s += $1 } END { printf "%.6f", s / NR }')
			got=$(awk -F, -v c="$c" -v n="$k MB/s" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) k = i; next } $1 == c { printf "%.6f", $k }' "$csv")
			[ "$got" = "$want" ]
		done
		lo=$(jq -r '.results[] | select(.kernel == "Triad") | .best_mbs' "$MATRIX/cells/$c"/run-*/result.json | sort -g | head -n 1)
		hi=$(jq -r '.results[] | select(.kernel == "Triad") | .best_mbs' "$MATRIX/cells/$c"/run-*/result.json | sort -g | tail -n 1)
		grep -qF -- ",$lo,$hi," "$csv"
	done
	grep -q '"gcc -O1 -DSTREAM_ARRAY_SIZE=20000"\|,gcc -O1 -DSTREAM_ARRAY_SIZE=20000,' "$csv"
}

@test "plots: valid SVG and 800x480 PNG for latency, size, threads, frequency and matrix bars" {
	run "$REPORT" "$LAT" "$SIZE" "$THREADS" "$FREQ" "$MATRIX"
	assert_success
	for p in "$LAT/plot-latency" "$SIZE/plot-bandwidth-size" "$THREADS/plot-bandwidth-threads" \
		"$FREQ/plot-bandwidth-freq" "$MATRIX/plot-bars"; do
		svg_ok "$p.svg"
		png_ok "$p.png"
	done
	# the latency plot has its second axis in cycles (bench knew the clock)
	mhz=$(jq -r '.bench.clock.mhz | round' "$LAT/step-001.json")
	grep -q "cycles at $mhz MHz" "$LAT/plot-latency.svg"
	# plateaus and the boundary are marked and labelled with bench's ns
	name=$(jq -r '.bench.summary[0].levels[0].name' "$LAT/step-001.json")
	ns=$(jq -r '.bench.summary[0].levels[0].ns' "$LAT/step-001.json")
	grep -qF "$name $(printf '%.3g' "$ns") ns" "$LAT/plot-latency.svg"
	grep -q '>boundary<' "$LAT/plot-latency.svg"
	# caches against TLBs: bench's three chases on one graph, the
	# measured reaches labelled
	svg_ok "$LAT/plot-latency-tlb.svg"
	png_ok "$LAT/plot-latency-tlb.png"
	for t in 'full random (the curve)' 'TLB-local (caches, memory)' 'a line a page (TLBs)'; do
		grep -qF ">$t<" "$LAT/plot-latency-tlb.svg"
	done
	[ "$(jq '.bench.probes.line_a_page | length' "$LAT/step-001.json")" -gt 0 ]
	local -a reach
	mapfile -t reach < <(jq -r '.bench.summary[0].tlbs | to_entries[] |
		"L\(.key + 1) TLB \(.value.entries | round) x \(.value.page_bytes / 1024 | round) KiB"' "$LAT/step-001.json")
	for t in "${reach[@]}"; do grep -qF ">$t<" "$LAT/plot-latency-tlb.svg"; done
	# the size sweep marks each LLC multiple
	for m in 0.25 1 4; do grep -qF ">${m}x LLC<" "$SIZE/plot-bandwidth-size.svg"; done
}

@test "the OS-reported cache sizes are marked on the latency plot when the OS reports them" {
	# This VM's sysfs reports no caches; give the step's JSON one, as a
	# machine that reports them would have written it.
	jq '.bench.system.caches = [{name: "L2", level: 2, type: "Unified", bytes: 65536, line: 64, instances: 1}]' \
		"$LAT/step-001.json" >"$BATS_TEST_TMPDIR/s.json"
	cp "$BATS_TEST_TMPDIR/s.json" "$LAT/step-001.json"
	run "$REPORT" "$LAT"
	assert_success
	grep -q '>L2 (OS)<' "$LAT/plot-latency.svg"
	grep -q '>OS cache size<' "$LAT/plot-latency.svg"
}

# keep_gnuplot: a gnuplot on PATH that keeps each script report gives it,
# with the data files beside it, in $GP/<script name>/, then draws it.
keep_gnuplot() {
	local bin=$BATS_TEST_TMPDIR/gp-bin real
	need gnuplot
	real=$(command -v gnuplot)
	GP=$BATS_TEST_TMPDIR/gp
	mkdir -p "$bin" "$GP"
	cat >"$bin/gnuplot" <<EOF
#!/bin/sh
mkdir -p "$GP/\${1%.gp}" && cp ./*.dat ./*.gp "$GP/\${1%.gp}/"
exec "$real" "\$@"
EOF
	chmod +x "$bin/gnuplot"
	PATH=$bin:$PATH
}

# plant_memory STEP: the step's summary as a run whose caches and TLBs
# were measured apart says it: memory's own latency (the TLB-local
# chase's) 1.7 times below the full random chase's tail, and the DRAM
# level at it, from the second level on.  The tail is the curve's
# slowest point, so that its label needs room at the top of the plot.
plant_memory() {
	jq '([.bench.curve[].ns] | max) as $top | .bench.summary[0] |= (.tail.ns = $top
		| .tail.ns as $t | .memory = {reached: true, ns: ($t / 1.7), cycles: null,
		tlb_local_tail_ns: ($t / 1.7), tail_ns: $t, tlb_ns: ($t - $t / 1.7)}
		| .levels = [.levels[0], {name: "DRAM", ns: ($t / 1.7), cycles: null,
			from_bytes: .levels[1].from_bytes, to_bytes: .tail.bytes, boundary_bytes: null}])' \
		"$1" >"$BATS_TEST_TMPDIR/planted.json"
	cp "$BATS_TEST_TMPDIR/planted.json" "$1"
}

@test "the latency plot: each curve's last line is its own tail, not memory's own latency, and no label covers another" {
	keep_gnuplot
	# five page modes, as sweep-latency-pages runs them: three more
	# steps like the second, the five tails alike
	for m in 3:thp-madvise 4:hugetlb 5:hugetlb-1g; do
		jq --argjson n "${m%%:*}" --arg m "${m#*:}" '.step = $n | .what = $m | .params.Mode = $m' \
			"$PAGES/step-002.json" >"$PAGES/step-00${m%%:*}.json"
		cp "$PAGES/step-002.raw" "$PAGES/step-00${m%%:*}.raw"
	done
	for i in 1 2 3 4 5; do plant_memory "$PAGES/step-00$i.json"; done
	run "$REPORT" "$PAGES"
	assert_success
	d=$GP/latency-svg
	read -r ymin ymax < <(sed -n 's/^set yrange \[\([^:]*\):\([^]]*\)\]$/\1 \2/p' "$d/latency.gp")
	for i in 0 1 2 3 4; do
		f=$PAGES/step-00$((i + 1)).json
		read -r tail from to mem < <(jq -r '.bench.summary[0] | "\(.tail.ns) \(.tail.from_bytes) \(.tail.bytes) \(.memory.ns)"' "$f")
		# the thick line that ends the curve: at its tail, over the
		# tail's sizes; none at memory's own latency
		run awk -v t="$tail" -v f="$from" -v e="$to" -v m="$mem" '
			NF == 2 {
				if (n++ % 2 == 0) { x0 = $1; y0 = $2 } else if ($1 + 0 > last + 0) { last = $1; first = x0; y = $2 }
				if ($2 - m < 1e-9 * m && m - $2 < 1e-9 * m) print "a line at memory'"'"'s own latency " m
			}
			END {
				if (last != e || first != f || y - t > 1e-9 * t || t - y > 1e-9 * t)
					print "the last line runs " first "-" last " at " y ", not the tail " f "-" e " at " t
			}' "$d/plateau-$i.dat"
		assert_output ''
		run cut -f3 "$d/ptail-$i.dat"
		assert_output "tail $(printf '%.3g' "$tail") ns"
		grep -qF ">tail $(printf '%.3g' "$tail") ns<" "$PAGES/plot-latency.svg"
		refute grep -q DRAM "$d/plabel-$i.dat"
		grep -q "\"ptail-$i.dat\" using 1:2:3 with labels" "$d/latency.gp"
	done
	# the drawing has every tail's label (gnuplot leaves off one whose
	# point is on the frame)
	[ "$(grep -c '>tail [^<]* ns<' "$PAGES/plot-latency.svg")" = 5 ]
	# labels at one x lie at least 0.04 of the y range's height apart
	# (a log axis), and a line below its top (gnuplot draws each 0.8 of
	# a line above its point)
	run awk -F'\t' -v lo="$ymin" -v hi="$ymax" '
		{ n++; x[n] = $1; y[n] = log($2); t[n] = $3 }
		END {
			r = log(hi) - log(lo)
			for (i = 1; i <= n; i++) {
				if (log(hi) - y[i] < 0.055 * r) print t[i] " at the top of the frame"
				for (j = i + 1; j <= n; j++)
					if (x[i] == x[j] && y[i] - y[j] < 0.04 * r && y[j] - y[i] < 0.04 * r)
						print t[i] " and " t[j] " at " x[i] ": " exp(y[i]) " and " exp(y[j]) " ns"
			}
			if (n != 10) print n " labels, not 10"
		}' "$d"/plabel-*.dat "$d"/ptail-*.dat
	assert_output ''
}

# path_without_gnuplot: a PATH that holds only the commands report needs
# (trimmed_path links all of /usr/bin, which is slow on a busy machine).
path_without_gnuplot() {
	local bin=$BATS_TEST_TMPDIR/bin-no-gnuplot c p
	mkdir -p "$bin"
	for c in bash sh env jq awk sed grep cut sort tr head tail mktemp rm mv cat chmod mkdir \
		dirname basename find hostname id uname wc paste cp ls; do
		p=$(command -v "$c") && ln -sf "$p" "$bin/$c"
	done
	printf '%s' "$bin"
}

@test "no gnuplot: said once, tables written all the same, no plot files" {
	bin=$(path_without_gnuplot)
	[ ! -e "$bin/gnuplot" ]
	run env PATH="$bin" "$REPORT" --html --format md,csv "$SIZE" "$LAT"
	assert_success
	[ "$(printf '%s\n' "$output" | grep -c 'gnuplot is not installed')" = 1 ]
	[ -s "$SIZE/report.md" ] && [ -s "$SIZE/report-bandwidth.csv" ] && [ -s "$LAT/report-levels.csv" ]
	[ -s "$SIZE/report.html" ]
	grep -q 'No plots: gnuplot was not installed' "$SIZE/report.html"
	run find "$SIZE" "$LAT" -name 'plot-*'
	assert_output ''
}

# chromium_shot HTML PNG: load HTML in headless chromium at 1024x800, write
# a screenshot; the console messages land in $BATS_TEST_TMPDIR/console.
chromium_shot() {
	local prof
	prof=$(mktemp -d "$BATS_TEST_TMPDIR/chromium.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$prof" \
		--enable-logging=stderr --v=0 --hide-scrollbars --window-size=1024,800 \
		--screenshot="$2" "file://$1" >/dev/null 2>"$BATS_TEST_TMPDIR/chromium.log"
	grep 'CONSOLE' "$BATS_TEST_TMPDIR/chromium.log" >"$BATS_TEST_TMPDIR/console" || true
}

# The first plot's box, as report.html's CSS places it: below the 88px
# header and an 8px margin, 16px from the left, 800x480.
plot_pixels() { python3 "$PNG" colored "$1" 16 96 800 480; }

@test "report.html: one file, no URL at all, loads in headless chromium without console errors, and shows the plot" {
	need chromium
	run "$REPORT" --html "$LAT"
	assert_success
	html=$LAT/report.html
	[ -s "$html" ]
	# nothing that could fetch: no URL, no element or CSS rule that loads,
	# no reference but the SVG's own #ids
	run grep -cE "https?:|//[a-z]|<(link|script|img|iframe|object|embed)|@import|url\(|(src|href)=[\"'][^#]" "$html"
	assert_output 0
	grep -q '<svg' "$html"
	grep -q 'Latency levels' "$html"
	grep -q 'Provenance (provenance.txt)' "$html"
	grep -q '<td>variant</td>\|Run rules\|ns per dependent load' "$html"
	chromium_shot "$html" "$BATS_TEST_TMPDIR/shot.png"
	run cat "$BATS_TEST_TMPDIR/console"
	assert_output ''
	n=$(plot_pixels "$BATS_TEST_TMPDIR/shot.png")
	[ "$n" -ge 1000 ]
	# The same page without its plot fails the check: the region is blank.
	sed '/<svg/,/<\/svg>/d' "$html" >"$BATS_TEST_TMPDIR/noplot.html"
	run grep -c '<svg' "$BATS_TEST_TMPDIR/noplot.html"
	assert_output 0
	chromium_shot "$BATS_TEST_TMPDIR/noplot.html" "$BATS_TEST_TMPDIR/noplot.png"
	n=$(plot_pixels "$BATS_TEST_TMPDIR/noplot.png")
	[ "$n" -lt 1000 ]
}

@test "the console check sees an error: a page that logs one is caught" {
	need chromium
	printf '<!DOCTYPE html><title>x</title><script>console.error("planted")</script>\n' >"$BATS_TEST_TMPDIR/bad.html"
	chromium_shot "$BATS_TEST_TMPDIR/bad.html" "$BATS_TEST_TMPDIR/bad.png"
	grep -q planted "$BATS_TEST_TMPDIR/console"
}

@test "report.html escapes what it takes from files: host names, labels, provenance" {
	jq '.bench.system.hostname = "<b>h&x</b>" | .params.Label = "<i onload=x>\"q\""' "$TINY/step-001.json" >"$BATS_TEST_TMPDIR/s.json"
	cp "$BATS_TEST_TMPDIR/s.json" "$TINY/step-001.json"
	printf '<script>alert(1)</script>\n' >>"$TINY/provenance.txt"
	run "$REPORT" --html "$TINY"
	assert_success
	html=$TINY/report.html
	grep -qF '&lt;b&gt;h&amp;x&lt;/b&gt;' "$html"
	grep -qF '&lt;i onload=x&gt;&quot;q&quot;' "$html"
	grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$html"
	run grep -cE '<b>h|<i onload|<script' "$html"
	assert_output 0
}

@test "a parent directory: an index with one row per run, linked to the reports" {
	run "$REPORT" --html "$LAT"
	assert_success
	run "$REPORT" --html --format md,csv "$W"
	assert_success
	n=$(find "$W" -mindepth 2 -maxdepth 2 -type d | wc -l)
	[ "$n" = 8 ]
	[ "$(($(wc -l <"$W/report-index.csv") - 1))" = "$n" ]
	for d in "$TINY" "$SIZE" "$THREADS" "$LAT" "$FREQ" "$MATRIX" "$PAGES" "$TIMING"; do
		grep -qF "${d#"$W"/}" "$W/report-index.csv"
		grep -qF "${d#"$W"/}" "$W/report.md"
	done
	grep -q 'size sweep' "$W/report-index.csv"
	grep -q 'frequency sweep' "$W/report-index.csv"
	grep -q ',matrix,' "$W/report-index.csv"
	grep -q 'page-mode sweep' "$W/report-index.csv"
	grep -q 'latency timing' "$W/report-index.csv"
	# the best Triad of the sweep-size row is the largest of its steps
	best=$(jq -r '.bench.results[] | select(.kernel == "Triad") | .best_mbs' "$SIZE"/step-*.json | sort -g | tail -n 1)
	grep -F "${SIZE#"$W"/}," "$W/report-index.csv" | grep -qF ",$best,"
	# a run that has its report.html is linked, by a relative ./ path
	grep -qF "<a href=\"./${LAT#"$W"/}/report.html\">" "$W/report.html"
	# a host directory works as well as the root
	run "$REPORT" --format csv "$HOSTDIR"
	assert_success
	[ "$(($(wc -l <"$HOSTDIR/report-index.csv") - 1))" = "$n" ]
}

@test "-o writes elsewhere and leaves the run directory as it was" {
	before=$(find "$SIZE" | sort)
	run "$REPORT" --html --format md,csv,txt -o "$BATS_TEST_TMPDIR/out" "$SIZE"
	assert_success
	[ "$(find "$SIZE" | sort)" = "$before" ]
	for f in report.md report.txt report-bandwidth.csv report.html plot-bandwidth-size.svg plot-bandwidth-size.png; do
		[ -s "$BATS_TEST_TMPDIR/out/$f" ]
	done
}

@test "bad input: one line on stderr, exit 2, nothing written" {
	mkdir "$BATS_TEST_TMPDIR/empty"
	run "$REPORT" "$BATS_TEST_TMPDIR/empty"
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output --partial 'not a results directory'
	run find "$BATS_TEST_TMPDIR/empty" -mindepth 1
	assert_output ''

	run "$REPORT" "$BATS_TEST_TMPDIR/nope"
	assert_failure 2
	assert_output "report: $BATS_TEST_TMPDIR/nope: no such directory"

	printf '{"schema": "membench-harness/1", "bench": {' >"$THREADS/step-002.json"
	run "$REPORT" --html --format md,csv "$THREADS"
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output "report: $THREADS/step-002.json: not readable JSON"
	run find "$THREADS" -name 'report*' -o -name 'plot-*' -o -name '.report.*'
	assert_output ''

	# results.sh reads every step file in one jq start; a file that start
	# cannot take is still named, in the file-by-file reader's words
	printf '{"schema": "membench/1"}' >"$THREADS/step-002.json"
	run "$REPORT" "$THREADS"
	assert_failure 2
	assert_output "report: $THREADS/step-002.json: not a harness step record (schema membench-harness/1)"
	for bad in null '{"schema": "membench-harness/1"} {'; do
		printf '%s' "$bad" >"$THREADS/step-002.json"
		run "$REPORT" "$THREADS"
		assert_failure 2
		assert_output "report: $THREADS/step-002.json: not readable JSON"
	done
	printf 'false' >"$TIMING/run-2.json"
	run "$REPORT" "$TIMING"
	assert_failure 2
	assert_output "report: $TIMING/run-2.json: not readable JSON"

	printf '{"results": [' >"$MATRIX/cells/001/run-1/result.json"
	run "$REPORT" "$MATRIX"
	assert_failure 2
	assert_output --partial 'cells/001/run-1/result.json: not readable JSON'

	run "$REPORT" --format pdf "$SIZE"
	assert_failure 2
	assert_output "report: --format wants md, csv or txt (comma-separated), not 'pdf'"
	run "$REPORT" -o "$BATS_TEST_TMPDIR/o" "$SIZE" "$LAT"
	assert_failure 2
	assert_output 'report: -o takes one DIR, not 2'
	run "$REPORT"
	assert_failure 2
	run "$REPORT" --no-such-option
	assert_failure 2
	assert_output "report: unknown option '--no-such-option' (see --help)"
}

@test "an index notes a run it cannot read instead of failing" {
	printf 'not json' >"$THREADS/step-001.json"
	run "$REPORT" --format csv "$W"
	assert_success
	grep -F "${THREADS#"$W"/}," "$W/report-index.csv" | grep -q 'unreadable'
}

# ------------------------------------------------- page modes (sweep-latency-pages)
# pm_csv FILE COLUMN: a column of a report CSV, one cell a line, its
# quotes undone (the reasons hold commas).
pm_csv() {
	python3 -c 'import csv, sys
r = list(csv.reader(open(sys.argv[1])))
c = r[0].index(sys.argv[2])
print("\n".join(x[c] for x in r[1:]))' "$1" "$2"
}

# pm_plant N JQ: rewrite step N of the page-mode run with a jq program.
pm_plant() {
	jq "$2" "$PAGES/step-00$1.json" >"$BATS_TEST_TMPDIR/step.json"
	cp "$BATS_TEST_TMPDIR/step.json" "$PAGES/step-00$1.json"
}

# pm_probes: the two steps as a run at 1 GiB would leave them: 4 KiB
# pages with two TLB levels (the second uncertain), and 2 MiB pages
# whose TLB did not run out, with smaller pages behind them.
pm_probes() {
	pm_plant 1 '.bench.run.buffer.page_kib = 4 | .bench.summary[0] += {tail: {ns: 180.25, bytes: 1073741824},
		memory: {reached: true, ns: 95.5, tlb_local_tail_ns: 95.5, tail_ns: 180.25, tlb_ns: 84.75, smaller_pages_behind: null},
		tlbs: [{entries: 72, page_bytes: 4096, reach_bytes: 294912, certain: true},
		       {entries: 3072, page_bytes: 4096, reach_bytes: 12582912, certain: false}],
		tlbs_seen: {page_bytes: 4096, pages: 262144, bytes: 1073741824, not_measured: null}}'
	pm_plant 2 '.bench.run.buffer.page_kib = 2048 | .bench.summary[0] += {tail: {ns: 120.75, bytes: 1073741824},
		memory: {reached: true, ns: 96.0, tlb_local_tail_ns: 96.0, tail_ns: 120.75, tlb_ns: 24.75,
		         smaller_pages_behind: {ns: 20.5, tlb_hit_ns: 1, reach_bytes: 8388608, from_bytes: 2097152, to_bytes: 6291456, points: 3}},
		tlbs: [], tlbs_seen: {page_bytes: 2097152, pages: 512, bytes: 1073741824, not_measured: null}}'
}

@test "page modes: memory, walks and TLB reach by mode from each step's JSON, and the closing line's arithmetic" {
	# the fixture's own runs, at 128 KiB: the probes could not run, and
	# the reach column gives bench's reason
	run "$REPORT" --format csv "$PAGES"
	assert_success
	csv=$PAGES/report-page-modes.csv
	diff <(pm_csv "$csv" Mode) <(jq -r '.params.Mode' "$PAGES"/step-*.json)
	diff <(pm_csv "$csv" 'Full random ns') <(jq -r '.bench.summary[0].tail.ns' "$PAGES"/step-*.json)
	# (report's CSV puts a quote before text a spreadsheet would read as a formula)
	diff <(pm_csv "$csv" 'TLB reach') <(jq -r '.bench.summary[0] | "\u0027" + (.tlbs_seen.not_measured // .not_measured_apart)' "$PAGES"/step-*.json)
	[ "$(pm_csv "$csv" 'TLB reach' | head -n 1)" != "'" ]
	# the figures as a run at 1 GiB gives them
	pm_probes
	run "$REPORT" --format csv,md --html "$PAGES"
	assert_success
	diff <(pm_csv "$csv" 'Pages') <(printf '4 KiB\n2 MiB\n')
	diff <(pm_csv "$csv" 'Largest size') <(printf '1 GiB\n1 GiB\n')
	diff <(pm_csv "$csv" 'Memory ns') <(jq -r '.bench.summary[0].memory.ns' "$PAGES"/step-*.json)
	diff <(pm_csv "$csv" 'Walks ns') <(jq -r '.bench.summary[0].memory.tlb_ns' "$PAGES"/step-*.json)
	# the largest level, marked where bench was not certain of it; where
	# none ran out, at least what the probe saw
	diff <(pm_csv "$csv" 'TLB reach') <(printf '12 MiB? (4 KiB pages)\n>= 1 GiB (2 MiB pages; no TLB ran out)\n')
	diff <(pm_csv "$csv" 'Smaller pages behind') <(printf 'no\nyes: +20.5 ns a load at 2 MiB-6 MiB\n')
	# the saving is the difference of the tails (180.25 - 120.75), the
	# walks that remain thp-always's of thp-never's (24.75 of 84.75)
	line="At 1024 MB the best pages (thp-always, 2 MiB) save 60 ns a random access (-33% vs thp-never); 25 ns of thp-never's 85 ns of walks remain (29%); thp-always still sees smaller pages behind its own: the walks that remain are the host's"
	grep -qxF -- "- $line" "$PAGES/report.md"
	grep -qF -- "<li>${line//\'/\&#39;}</li>" "$PAGES/report.html"
	grep -q '<h2>Page modes: memory&#39;s own latency' "$PAGES/report.html"
	# a run of no page modes has no such table
	run "$REPORT" --format csv "$LAT"
	assert_success
	[ ! -e "$LAT/report-page-modes.csv" ]
}

@test "page modes: a skipped, a failed and a larger-sized mode are left out of the comparison, and said" {
	pm_probes
	jq -n '{schema: "membench-harness/1", step: 3, what: "hugetlb-1g", params: {Mode: "hugetlb-1g", Alloc: "hugetlb"},
		status: "skipped: bench: --page-size 1G: no 1 GiB pages", exit_status: null, bench: null}' >"$PAGES/step-003.json"
	jq '.step = 4 | .params.Mode = "hugetlb" | .exit_status = 1 | .status = "validation failed"' "$PAGES/step-002.json" >"$PAGES/step-004.json"
	jq '.step = 5 | .params.Mode = "thp-madvise" | .bench.summary[0].tail.ns = 50 | .bench.summary[0].tail.bytes = 2147483648' \
		"$PAGES/step-002.json" >"$PAGES/step-005.json"
	run "$REPORT" --format csv,md "$PAGES"
	assert_success
	csv=$PAGES/report-page-modes.csv
	diff <(pm_csv "$csv" Status) <(printf 'ok\nok\nskipped: bench: --page-size 1G: no 1 GiB pages\nvalidation failed\nok\n')
	# a failed step shows none of its figures
	[ "$(pm_csv "$csv" 'Full random ns' | sed -n 4p)" = '' ]
	[ "$(pm_csv "$csv" 'TLB reach' | sed -n 4p)" = '' ]
	grep -qE '^\| 004 +\| hugetlb +\| - +\| - +\| +- \| +- \| +- \| - +\| - +\| validation failed +\|$' "$PAGES/report.md"
	# thp-madvise's 50 ns is at 2 GiB, not the others' 1 GiB: not the best
	grep -qxF -- "- At 1024 MB the best pages (thp-always, 2 MiB) save 60 ns a random access (-33% vs thp-never); 25 ns of thp-never's 85 ns of walks remain (29%); thp-always still sees smaller pages behind its own: the walks that remain are the host's; left out: hugetlb-1g (skipped), hugetlb (failed), thp-madvise (largest size 2048 MB)" "$PAGES/report.md"
}

@test "page modes in report.html: modes, statuses and reasons from the files are escaped" {
	pm_probes
	pm_plant 2 '.params.Mode = "<img src=x onerror=alert(1)>&" | .status = "<script>alert(2)</script>"
		| .bench.summary[0].tlbs_seen.not_measured = "<b onclick=x>\"q\"</b>"'
	run "$REPORT" --html "$PAGES"
	assert_success
	html=$PAGES/report.html
	grep -qF '<td>&lt;img src=x onerror=alert(1)&gt;&amp;</td>' "$html"
	grep -qF '<td>&lt;script&gt;alert(2)&lt;/script&gt;</td>' "$html"
	grep -qF '<td>not measured: &lt;b onclick=x&gt;&quot;q&quot;&lt;/b&gt;</td>' "$html"
	# the closing line names the mode too
	grep -qF 'the best pages (&lt;img src=x onerror=alert(1)&gt;&amp;, 2 MiB) save 60 ns' "$html"
	run grep -cE '<img|<script>alert|<b onclick' "$html"
	assert_output 0
}
