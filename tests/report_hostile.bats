#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# Results opened by people who did not make them: a result's
# text and numbers are data, never code.  setup_file makes two tiny real
# runs (bench all, with a latency curve, and a three-step size sweep); the
# tests plant payloads in every string and number field of their JSON and
# in their text files, then run report (text, CSV, HTML, the index),
# compare, submission and verify on them, and look for what a payload
# would leave: a canary file, or markup that reached the HTML unescaped.
# They also check the index's links for hostile run names, and that a run
# that failed validation shows FAILED and none of its numbers.

load test_helper

REPORT=$MEMBENCH_ROOT/harness/report
COMPARE=$MEMBENCH_ROOT/harness/compare
SUBMIT=$MEMBENCH_ROOT/harness/submission
VERIFY=$MEMBENCH_ROOT/harness/verify

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local res=$BATS_FILE_TMPDIR/results
	command -v jq >/dev/null || return 0
	[ -x "$MEMBENCH_ROOT/bench" ] || (cd "$MEMBENCH_ROOT" && make bench >&2)
	export MEMBENCH_LOCK_DIR=$BATS_FILE_TMPDIR/lock
	unset OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY KMP_AFFINITY OMP_NUM_THREADS
	{
		"$MEMBENCH_ROOT/harness/run" --results "$res" --label all -- all -s 20000 -n 3 --max 128K
		"$MEMBENCH_ROOT/harness/sweep-size" --results "$res" --llc 1M --multiples 0.25,1,4 -- -n 3
		"$MEMBENCH_ROOT/harness/run" --results "$res" --label mix -- mix -s 20000 -n 3
		"$MEMBENCH_ROOT/harness/run" --results "$res" --label nodes -- nodes --buffer 2M -n 2
		if "$MEMBENCH_ROOT/bench" info --json | jq -e '.build.modes | index("c2c")' >/dev/null && [ "$(nproc)" -ge 2 ]; then
			"$MEMBENCH_ROOT/harness/run" --results "$res" --label c2c -- c2c --cpus 0,1
		fi
	} >"$BATS_FILE_TMPDIR/fixtures.log" 2>&1 || { cat "$BATS_FILE_TMPDIR/fixtures.log" >&2; return 1; }
}

setup() {
	need jq
	need gnuplot
	W=$BATS_TEST_TMPDIR/results
	cp -r "$BATS_FILE_TMPDIR/results" "$W"
	HOSTDIR=$(find "$W" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	ALL=$(find "$HOSTDIR" -mindepth 1 -maxdepth 1 -type d -name '*-all' | head -n 1)
	SIZE=$(find "$HOSTDIR" -mindepth 1 -maxdepth 1 -type d -name '*-sweep-size' | head -n 1)
	[ -f "$ALL/step-001.json" ] && [ -f "$SIZE/step-002.json" ]
	CANARY=$BATS_TEST_TMPDIR/canary
}

# gp_path PATH: PATH as a gnuplot string expression without a '/' (each
# one is the first character of GPVAL_PWD), so that a payload passes the
# character filter the old report put in front of gnuplot.
gp_path() {
	local out='""' part parts
	IFS=/ read -ra parts <<<"${1#/}"
	for part in "${parts[@]}"; do out="$out . substr(GPVAL_PWD,1,1) . \"$part\""; done
	printf '%s' "$out"
}

# The payloads.  A string field gets P_STR: it closes a gnuplot string and
# calls system(), then comments out the rest of the line; then gnuplot's
# other quotes and backquotes, shell command substitution, markup, and
# the characters awk's sub() and sed read as their own.  A number field
# gets P_NUM, a gnuplot expression that runs a command where a number is
# pasted into a script.  Every command touches a canary under $CANARY.
#
# P_STR's quotes and commands run past the 80 characters a gnuplot label
# keeps, so a label spliced into a gnuplot script would never show them;
# P_SHORT puts them inside: it closes a '...' string, runs a command and
# opens another; carries a backquote command (gnuplot runs those in a
# "..." string) and a shell one.  Its commands name the canary in the
# environment (C_SQ, C_BT, C_SH, set by the test), so each stays short.
payloads() {
	# shellcheck disable=SC2016 # the $ are for the shell a payload reaches
	P_SHORT='x'"'"'; system('"'"'touch $C_SQ'"'"'); y='"'"'`touch $C_BT`$(touch $C_SH)'
	P_STR="x<i>&amp;\" . system(\"touch \" . $(gp_path "$CANARY-gp-string")) . \"y\" # \"; system(\"touch $CANARY-gp-dq\"); # '; system('touch $CANARY-gp-sq'); # \`touch $CANARY-bt\` \$(touch $CANARY-sh) <script>alert(1)</script> & \\1 \\ %s %n | ; /"
	P_NUM="strlen(system(\"touch \" . $(gp_path "$CANARY-gp-number"))) # \$(touch $CANARY-sh-num) \`touch $CANARY-bt-num\` <script>alert(2)</script> & \\1"
}

# plant WHICH FILE: payloads into FILE's leaves.  strings: every string
# but schema and mode (which decide how a file is read); numbers: every
# number but exit_status (which decides whether a step passed);
# levels: the numbers of the latency levels only; all: every string and
# number leaf, with a tab and a newline too.  strings and all also add a
# parameter whose name is the payload.
plant() {
	local tmp=$BATS_TEST_TMPDIR/plant.json ctl
	ctl=$'\t\n'
	jq --arg which "$1" --arg s "${PLANT_STR:-$P_STR}" --arg n "$P_NUM" --arg ctl "$ctl" '
		(if $which == "all" then ($s + $ctl) else $s end) as $s
		| if $which == "levels" then
			.bench.latency.summary[]?.levels[]? |= (.ns = $n | .cycles = $n | .from_bytes = $n | .to_bytes = $n | .boundary_bytes = $n)
		  else
			reduce paths(scalars) as $p (.;
				getpath($p) as $v
				| if ($v | type) == "string" and ($which == "all" or ($which == "strings" and ($p[-1] != "schema" and $p[-1] != "mode")))
				  then setpath($p; $s)
				  elif ($v | type) == "number" and ($which == "all" or ($which == "numbers" and $p[-1] != "exit_status"))
				  then setpath($p; $n)
				  else . end)
			| if ($which == "strings" or $which == "all") and (.params | type) == "object" then .params[$s] = $s else . end
		  end' "$2" >"$tmp"
	mv "$tmp" "$2"
}

# plant_run WHICH RUNDIR: every step's JSON, and a payload line in each
# text file a reader of the run takes words from.
plant_run() {
	local f
	for f in "$2"/step-*.json; do plant "$1" "$f"; done
	for f in "$2"/provenance.txt "$2"/summary.md "$2"/step-*.raw; do
		printf '%s\n| %s | %s MB/s |\n' "${PLANT_STR:-$P_STR}" "${PLANT_STR:-$P_STR}" "$P_NUM" >>"$f"
	done
}

# no_canary: nothing any payload would have made exists.
no_canary() {
	local left
	left=$(find "$BATS_TEST_TMPDIR" -name 'canary*')
	[ -z "$left" ] || { echo "payload ran: $left" >&2; return 1; }
}

# html_clean FILE: no markup from a payload in FILE: no script or <i>
# element (the payloads' markup) nor any on* attribute, as a browser's
# parser reads the page, inline SVG included.
html_clean() {
	run grep -ciE '<script|<i>|<i ' "$1"
	assert_output 0
	python3 - "$1" <<'EOF'
import html.parser, sys
bad = []
class P(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        if tag in ("script", "i", "b", "iframe", "object", "embed") or any(k.startswith("on") for k, _ in attrs):
            bad.append((tag, attrs))
P().feed(open(sys.argv[1], encoding="utf-8").read())
assert not bad, bad
EOF
}

@test "payloads in every string and number field: report, the index, compare, submission and verify run none of them, and the HTML escapes them" {
	payloads
	local pass which run b out
	export C_SQ=$CANARY-gp-sq-short C_BT=$CANARY-gp-bt-short C_SH=$CANARY-sh-short
	# short: the string fields again, with P_SHORT, whose payloads fit in
	# a label
	for pass in strings numbers levels all short; do
		rm -rf "$W"
		cp -r "$BATS_FILE_TMPDIR/results" "$W"
		which=$pass PLANT_STR=''
		[ "$pass" != short ] || which=strings PLANT_STR=$P_SHORT
		plant_run "$which" "$ALL"
		plant_run "$which" "$SIZE"
		for run in "$ALL" "$SIZE"; do
			run "$REPORT" --html --format md,csv,txt "$run"
			# a document whose schema is itself a payload is refused; any
			# other is rendered, the payloads as text
			if [ "$which" = all ]; then [ "$status" -le 2 ]; else assert_success; fi
			[ ! -f "$run/report.html" ] || html_clean "$run/report.html"
			for f in "$run"/plot-*.svg; do
				[ ! -e "$f" ] || python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$f"
			done
			# compare, submission and verify read no plot labels and
			# every number alike: the levels' numbers (a part of
			# numbers') and the short strings (strings' kind, made to
			# fit a plot's label) add nothing there
			case "$pass" in levels | short) continue ;; esac
			run "$COMPARE" "$run" "$BATS_FILE_TMPDIR/results/${run#"$W"/}"
			run "$COMPARE" --json "$run" "$run"
			out=$BATS_TEST_TMPDIR/bundles-$pass
			mkdir -p "$out"
			run --separate-stderr "$SUBMIT" --output "$out" "$run"
			if [ "$status" = 0 ]; then
				b=$output
				run "$VERIFY" "$b"
				mkdir -p "$out/u"
				tar -C "$out/u" -xzf "$b"
				for f in "$out"/u/*/report.html; do [ ! -e "$f" ] || html_clean "$f"; done
				rm -rf "$out/u" "$b"
			fi
			run "$SUBMIT" --redact --output "$out" "$run"
		done
		run "$REPORT" --html --format md,csv,txt "$W"
		assert_success
		html_clean "$W/report.html"
		run "$REPORT" --html "$HOSTDIR"
		assert_success
		html_clean "$HOSTDIR/report.html"
		no_canary
		# the payloads are shown, escaped, not dropped
		if [ "$pass" = short ]; then
			# and the short ones reach the plots' labels whole
			[ -s "$ALL/plot-latency.svg" ] && [ -s "$SIZE/plot-bandwidth-size.svg" ]
			grep -qF "system(&apos;touch \$C_SQ&apos;)" "$ALL/plot-latency.svg" ||
				grep -qF "system('touch \$C_SQ')" "$ALL/plot-latency.svg"
		fi
		if [ "$pass" = strings ]; then
			grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$ALL/report.html"
			grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$W/report.html"
			# and the plots are still drawn, the labels as text
			[ -s "$ALL/plot-latency.svg" ] && [ -s "$SIZE/plot-bandwidth-size.svg" ]
			grep -qF 'x&lt;i>&amp;amp;' "$ALL/plot-latency.svg"
		fi
	done
}

@test "payloads in bench mix's and c2c's fields: their tables, the c2c heatmap and compare run none, and the HTML escapes them" {
	payloads
	local which run mix c2c
	mix=$(find "$HOSTDIR" -mindepth 1 -maxdepth 1 -type d -name '*-mix' | head -n 1)
	c2c=$(find "$HOSTDIR" -mindepth 1 -maxdepth 1 -type d -name '*-c2c' | head -n 1)
	[ -n "$c2c" ] || skip "no c2c run (a build without OpenMP, or one CPU)"
	for which in strings numbers all; do
		rm -rf "$W"
		cp -r "$BATS_FILE_TMPDIR/results" "$W"
		plant_run "$which" "$mix"
		plant_run "$which" "$c2c"
		for run in "$mix" "$c2c"; do
			run "$REPORT" --html --format md,csv,txt "$run"
			if [ "$which" = all ]; then [ "$status" -le 2 ]; else assert_success; fi
			[ ! -f "$run/report.html" ] || html_clean "$run/report.html"
			for f in "$run"/plot-*.svg; do
				[ ! -e "$f" ] || python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$f"
			done
			run "$COMPARE" "$run" "$BATS_FILE_TMPDIR/results/${run#"$W"/}"
			run "$COMPARE" --json "$run" "$run"
		done
		run "$REPORT" --html "$HOSTDIR"
		assert_success
		html_clean "$HOSTDIR/report.html"
		no_canary
		if [ "$which" = strings ]; then
			# the payloads are shown, escaped, in the tables and the heatmap
			grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$mix/report.html"
			grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$c2c/report.html"
			[ -s "$c2c/plot-c2c-1.svg" ]
		fi
		if [ "$which" = numbers ]; then
			# CPU numbers planted as payloads label the heatmap as text
			[ -s "$c2c/plot-c2c-1.svg" ]
			grep -qF 'strlen(system(' "$c2c/plot-c2c-1.svg"
		fi
	done
}

@test "payloads in bench nodes' fields: its matrices, its cells, the heatmaps and compare run none, and the HTML escapes them" {
	payloads
	local which nodes
	nodes=$(find "$HOSTDIR" -mindepth 1 -maxdepth 1 -type d -name '*-nodes' | head -n 1)
	[ -f "$nodes/step-001.json" ]
	for which in strings numbers all; do
		rm -rf "$W"
		cp -r "$BATS_FILE_TMPDIR/results" "$W"
		plant_run "$which" "$nodes"
		run "$REPORT" --html --format md,csv,txt "$nodes"
		if [ "$which" = all ]; then [ "$status" -le 2 ]; else assert_success; fi
		[ ! -f "$nodes/report.html" ] || html_clean "$nodes/report.html"
		for f in "$nodes"/plot-*.svg; do
			[ ! -e "$f" ] || python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$f"
		done
		run "$COMPARE" "$nodes" "$BATS_FILE_TMPDIR/results/${nodes#"$W"/}"
		run "$COMPARE" --json "$nodes" "$nodes"
		run "$REPORT" --html "$HOSTDIR"
		assert_success
		html_clean "$HOSTDIR/report.html"
		no_canary
		if [ "$which" = strings ]; then
			# the payloads are shown, escaped, in the tables and the heatmaps
			grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$nodes/report.html"
			[ -s "$nodes/plot-nodes-1-1.svg" ]
		fi
		if [ "$which" = numbers ]; then
			# node numbers planted as payloads label the heatmap as text
			[ -s "$nodes/plot-nodes-1-1.svg" ]
			grep -qF 'strlen(system(' "$nodes/plot-nodes-1-1.svg"
		fi
	done
}

@test "index links: relative ./ paths, percent-encoded: javascript:alert(1) is no scheme, a&b resolves" {
	local name
	for name in 'javascript:alert(1)' 'a&b' '50%#x?y "q" <b>'; do
		cp -r "$ALL" "$HOSTDIR/$name"
		run "$REPORT" --html "$HOSTDIR/$name"
		assert_success
	done
	run "$REPORT" --html --format csv "$HOSTDIR"
	assert_success
	html_clean "$HOSTDIR/report.html"
	grep -qF '<a href="./a%26b/report.html">' "$HOSTDIR/report.html"
	grep -qF '<a href="./javascript%3Aalert%281%29/report.html">' "$HOSTDIR/report.html"
	# every link: relative, starting ./, no scheme, and it names a file
	# that exists once decoded (as a browser resolves it)
	python3 - "$HOSTDIR/report.html" <<'EOF'
import html.parser, os, sys, urllib.parse
page = sys.argv[1]
hrefs = []
class P(html.parser.HTMLParser):
    def handle_starttag(self, tag, attrs):
        hrefs.extend(v for k, v in attrs if k == "href")
P().feed(open(page, encoding="utf-8").read())
assert len(hrefs) == 3, hrefs
for h in hrefs:
    u = urllib.parse.urlsplit(h)
    assert h.startswith("./") and not u.scheme and not u.netloc and not u.query and not u.fragment, h
    target = os.path.join(os.path.dirname(page), urllib.parse.unquote(u.path))
    assert os.path.isfile(target), (h, target)
EOF
	# the name as text is escaped, not a link
	grep -qF '50%#x?y &quot;q&quot; &lt;b&gt;' "$HOSTDIR/report.html"
}

# fail_step FILE: the step as the harness writes a run whose validation
# failed (bench exit status 1, its JSON saying so), numbers and all.
fail_step() {
	jq '.exit_status = 1 | .status = "validation failed" | .bench.validation.ok = false' "$1" >"$BATS_TEST_TMPDIR/f.json"
	mv "$BATS_TEST_TMPDIR/f.json" "$1"
}

@test "a run that failed validation: FAILED and none of its numbers, in the index, every table and every plot" {
	# ALL gets a second step, a copy of the first, that failed; SIZE's
	# second step failed; a third run failed altogether.
	jq '.step = 2' "$ALL/step-001.json" >"$ALL/step-002.json"
	fail_step "$ALL/step-002.json"
	fail_step "$SIZE/step-002.json"
	BAD=$HOSTDIR/20990101T000000Z-bad
	cp -r "$ALL" "$BAD"
	rm -f "$BAD/step-002.json"
	fail_step "$BAD/step-001.json"
	# BAD's figures made its own (ALL's are shown, ALL's first step passed)
	jq '.bench.results[].best_mbs *= 1.37 | .bench.latency.summary[].levels[].ns *= 1.37' \
		"$BAD/step-001.json" >"$BATS_TEST_TMPDIR/f.json"
	mv "$BATS_TEST_TMPDIR/f.json" "$BAD/step-001.json"
	# Bench's figures of the failed steps: none may be shown.  (ALL's
	# second step has the same numbers as its first, which passed; it is
	# checked in the rows, below.)
	nums=$BATS_TEST_TMPDIR/failed-numbers
	jq -r '.bench | (.results[]?.best_mbs), (.latency.summary[]?.levels[]?.ns)' "$BAD/step-001.json" "$SIZE/step-002.json" >"$nums"
	[ -s "$nums" ]
	triad=$(jq -r '.bench.results[] | select(.kernel == "Triad") | .best_mbs' "$BAD/step-001.json")
	for d in "$ALL" "$SIZE" "$BAD"; do
		run "$REPORT" --html --format md,csv,txt "$d"
		assert_success
	done
	run "$REPORT" --html --format csv,md "$HOSTDIR"
	assert_success
	idx=$HOSTDIR/report-index.csv
	# the index: the failed run's best Triad and last level say FAILED
	row=$(grep -F "${BAD##*/}," "$idx")
	[ "$(printf '%s\n' "$row" | awk -F, '{ print $6, $7, $8 }')" = '1 FAILED FAILED' ]
	# ALL: one of two steps failed; its best Triad is the passing step's
	best=$(jq -r '.bench.results[] | select(.kernel == "Triad") | .best_mbs' "$ALL/step-001.json")
	[ "$(grep -F "${ALL##*/}," "$idx" | awk -F, '{ print $6, $7 }')" = "1 $best" ]
	# no figure of a failed step in any table or page of the failed runs
	while IFS= read -r v; do
		for f in "$BAD"/report* "$SIZE"/report* "$HOSTDIR"/report*; do
			if grep -qF -- "$v" "$f"; then echo "$v of a failed step is in $f" >&2; return 1; fi
		done
	done <"$nums"
	# nor, rounded, in the pages that round
	for f in "$BAD/report.md" "$BAD/report.txt" "$BAD/report.html"; do
		run grep -cF -- "$(round_as_c 1 "$triad")" "$f"
		assert_output 0
	done
	# the tables: the failed step's row says FAILED and has no rate
	awk -F, 'NR > 1 && $1 == "002"' "$ALL/report-bandwidth.csv" | grep -q 'FAILED'
	[ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "Triad MB/s") c = i; next } $1 == "002" { print $c }' "$ALL/report-bandwidth.csv")" = '' ]
	awk -F, 'NR > 1 && $1 == "002"' "$ALL/report-levels.csv" | grep -q 'FAILED'
	[ "$(awk -F, 'NR > 1 && $1 == "002" && $5 != ""' "$ALL/report-levels.csv" | grep -c .)" = 1 ]
	[ "$(awk -F, 'NR > 1 && $1 == "002" { print $6 $7 $8 }' "$ALL/report-levels.csv")" = '' ]
	[[ "$(head -n 1 "$ALL/report-curve.csv")" != *'002 '* ]]
	# the plots: the failed step is named FAILED, and drawn nowhere
	grep -q '002 .*FAILED' "$ALL/plot-latency.svg"
	grep -q '002 FAILED' "$ALL/plot-bars.svg"
	grep -q '002 FAILED' "$SIZE/plot-bandwidth-size.svg"
	# a run with nothing that passed has nothing to draw
	run find "$BAD" -name 'plot-*'
	assert_output ''
}

@test "CSV: text starting with = + - @ gets a leading quote, numbers (negative ones too) stay numbers; report.md code spans hold backquotes" {
	f=$SIZE/step-001.json
	jq '.status = "=1+2" | .params["@SUM(A1)"] = "+cmd|calc" | .params.neg = "-2+3"
		| .bench.results[0].best_mbs = -5 | .bench.build.cflags = "cc `id` -O2"
		| .bench.command = ["./bench", "``x", "`"]' "$f" >"$BATS_TEST_TMPDIR/f.json"
	mv "$BATS_TEST_TMPDIR/f.json" "$f"
	for s in "$SIZE"/step-*.json; do
		jq '.bench.command = ["./bench", "``x", "`"] | .bench.build.cflags = "cc `id` -O2"' "$s" >"$BATS_TEST_TMPDIR/f.json"
		mv "$BATS_TEST_TMPDIR/f.json" "$s"
	done
	run "$REPORT" --format md,csv "$SIZE"
	assert_success
	# every field of every CSV: no formula; the -5 is still the number -5
	python3 - "$SIZE" <<'EOF2'
import csv, glob, re, sys
num = re.compile(r'^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$')
seen = {"'=1+2", "'+cmd|calc", "'-2+3", "'@SUM(A1)"}
found = set()
neg = False
for name in glob.glob(sys.argv[1] + "/report-*.csv"):
    rows = list(csv.reader(open(name, newline="")))
    for row in rows:
        for c in row:
            assert not (c[:1] in "=+-@" and c and not num.match(c)), (name, c)
            found.add(c)
    if name.endswith("report-bandwidth.csv"):
        col = rows[0].index("Copy MB/s")
        neg = any(r[col] == "-5" for r in rows[1:])
assert seen <= found, seen - found
assert neg, "the negative rate is not the number -5"
EOF2
	# the build line and the command as code spans they cannot leave
	grep -qF -- '``cc `id` -O2``' "$SIZE/report.md"
	grep -qF -- 'bench command: ``` ./bench ``x ` ```' "$SIZE/report.md"
}
