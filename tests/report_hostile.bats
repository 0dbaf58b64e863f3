#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# Results opened by people who did not make them (issue 19).  setup_file
# makes two tiny real runs (bench all, with a latency curve, and a
# three-step size sweep); the tests check the index's links for hostile
# run names.

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
