#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# make submission / harness/submission and harness/verify: a bundle of one
# finished run that verify re-checks, sha256 by sha256 and number by number.

load matrix_helper
# cells other files build too: once a run (tests/cc-cache)
cc_cache_on

SUBMIT=$MEMBENCH_ROOT/harness/submission
VERIFY=$MEMBENCH_ROOT/harness/verify

# A real two-cell matrix run and a real harness run, each once per file.
setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local root=$BATS_FILE_TMPDIR
	command -v gcc >/dev/null || return 0
	printf 'gcc | -O2 ; -O1 | | plain | 1\n' >"$root/two.matrix"
	MEMBENCH_LOCK_DIR=$root/lock "$BATS_TEST_DIRNAME/../matrix/run-matrix" --size 100000 --ntimes 3 \
		--results "$root/m" "$root/two.matrix" >/dev/null 2>&1 || true
	MEMBENCH_LOCK_DIR=$root/lock "$BATS_TEST_DIRNAME/../harness/run" --results "$root/h" \
		--bench "$BATS_TEST_DIRNAME/../bench" -- -s 100000 -n 3 >/dev/null 2>&1 || true
}
matrix_run() { find "$BATS_FILE_TMPDIR/m" -mindepth 2 -maxdepth 2 -type d | head -n 1; }
harness_run() { find "$BATS_FILE_TMPDIR/h" -mindepth 2 -maxdepth 2 -type d | head -n 1; }

# bundle RUN [--redact]: make a bundle in the test's directory, print its path.
bundle() {
	local run=$1
	shift
	"$SUBMIT" "$@" --output "$BATS_TEST_TMPDIR" "$run" 2>/dev/null
}
# unpack TARBALL: unpack it, print the bundle directory.
unpack() {
	mkdir -p "$BATS_TEST_TMPDIR/u"
	tar -C "$BATS_TEST_TMPDIR/u" -xzf "$1"
	find "$BATS_TEST_TMPDIR/u" -mindepth 1 -maxdepth 1 -type d
}
# remanifest DIR: what a forger does after an edit, so only the numbers can tell.
remanifest() {
	(cd "$1" && find . -type f ! -name MANIFEST.sha256 | LC_ALL=C sort | sed 's|^\./||' |
		xargs -d '\n' sha256sum >"$BATS_TEST_TMPDIR/manifest" && mv "$BATS_TEST_TMPDIR/manifest" MANIFEST.sha256)
}

@test "a matrix bundle holds what SUBMITTING.md lists, and verify passes it untouched" {
	[ -n "$(matrix_run)" ] || skip "no matrix run (gcc missing?)"
	t=$(bundle "$(matrix_run)")
	[[ "$(basename "$t")" == membench-*-matrix-two.tar.gz ]]
	b=$(unpack "$t")
	for f in bench.c bench.c.sha256 build-lines.txt run-rules.txt MANIFEST.sha256 \
		results/table.md results/table.csv results/provenance.txt results/cells/001/result.json \
		results/cells/001/output.txt results/cells/002/build.sh; do
		[ -f "$b/$f" ] || fail "no $f in the bundle"
	done
	[ ! -e "$b/results/cells/001/bench" ]
	assert_equal "$(cut -d' ' -f1 "$b/bench.c.sha256")" "$(sha256sum "$MEMBENCH_ROOT/bench.c" | cut -d' ' -f1)"
	grep -q '^cells/002	gcc -O1 -DSTREAM_ARRAY_SIZE=100000$' "$b/build-lines.txt"
	assert_equal "$(grep -c '^cells/00[12]	\(standard\|tuned\|variant\)	' "$b/run-rules.txt")" 2
	run "$VERIFY" "$t"
	assert_success
	assert_equal "${lines[-1]}" "verify: $t: every number agrees with the raw outputs and the manifest; this does not prove the numbers were measured"
	run "$VERIFY" "$b"
	assert_success
}

@test "a harness run bundle passes verify untouched" {
	[ -n "$(harness_run)" ] || skip "no harness run"
	t=$(bundle "$(harness_run)")
	run "$VERIFY" "$t"
	assert_success
	b=$(unpack "$t")
	[ -f "$b/results/summary.md" ] && [ -f "$b/results/step-001.raw" ]
	grep -q '^step-001	' "$b/run-rules.txt"
	grep -q '^step-001	.*(gcc ' "$b/build-lines.txt"
}

@test "one edited number in the matrix table fails verify, and is named" {
	[ -n "$(matrix_run)" ] || skip "no matrix run"
	b=$(unpack "$(bundle "$(matrix_run)")")
	# Triad of row 2, table.csv column 11: plus 1000 MB/s
	awk -F, -v OFS=, 'NR == 3 { $11 = $11 + 1000 } { print }' "$b/results/table.csv" >"$b/x" && mv "$b/x" "$b/results/table.csv"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line 'verify: results/table.csv: sha256 differs from MANIFEST.sha256'
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line --regexp '^verify: results/table.csv row 2 \(cell 002\): triad_mbs [0-9.]+ but the raw outputs give [0-9.]+$'
	refute_line --partial 'copy_mbs'
}

@test "a deleted table.csv row of a cell with results fails verify, and is named" {
	[ -n "$(matrix_run)" ] || skip "no matrix run"
	b=$(unpack "$(bundle "$(matrix_run)")")
	sed -i '3d' "$b/results/table.csv"
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line 'verify: results/table.csv: no row for cell 002, which has results'
}

@test "an edited table.md number, or raw text that disagrees with its JSON, fails" {
	[ -n "$(matrix_run)" ] || skip "no matrix run"
	b=$(unpack "$(bundle "$(matrix_run)")")
	copy=$(awk -F'|' '$2 ~ /^ 1 $/ { gsub(/ /, "", $6); print $6 }' "$b/results/table.md")
	sed -i "s/| $copy |/| 1.0 |/" "$b/results/table.md"
	sed -i 's/^\(Scale: *\)[0-9]*/\1123/' "$b/results/cells/002/output.txt"
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line "verify: results/table.md row 1 (cell 001): Copy 1.0 but the raw outputs give $copy"
	assert_line --regexp '^verify: results/cells/002/result.json: Scale best rate [0-9.e+]+ in the JSON, but the raw text says 123\.[0-9]$'
}

# set_scale BUNDLE X: the first step's Scale best rate in its JSON set to
# X, and summary.md's Scale cell to X at 0.1 MB/s, as the harness writes
# it: a consistent edit, so only the JSON against the raw text can tell.
set_scale() {
	local j=$1/results/step-001.json cell
	jq --argjson x "$2" '(.bench.results[] | select(.kernel == "Scale") | .best_mbs) = $x' "$j" >"$j.new"
	mv "$j.new" "$j"
	cell=$(awk -v x="$2" 'BEGIN { printf "%.1f", x }')
	awk -F'|' -v OFS='|' -v c=" $cell " '
		/^\| Label / { for (i = 1; i <= NF; i++) if ($i ~ /^ *Scale MB\/s *$/) col = i }
		col && !done && /^\| [^-]/ && !/^\| Label / { $col = c; done = 1 }
		{ print }' "$1/results/summary.md" >"$1/summary.new"
	mv "$1/summary.new" "$1/results/summary.md"
	remanifest "$1"
}

@test "verify: the JSON's best rate and the text's are one number rounded twice, not rounded alike" {
	[ -n "$(harness_run)" ] || skip "no harness run"
	b=$(unpack "$(bundle "$(harness_run)")")
	t=$(awk '/^Scale:/ { print $2; exit }' "$b/results/step-001.raw")
	[[ $t =~ ^[0-9]+\.[0-9]$ ]]
	# a rate just under t + 0.05 prints as t in the text and may print as
	# t + 0.05 in the JSON's 9 digits, which rounds to t + 0.1 again: the
	# widest gap one measured number can show, at any rate this machine
	# gives (a planted t + 0.0501 is no such number when t is small)
	set_scale "$b" "$(awk -v t="$t" 'BEGIN { printf "%.9g", t + 0.05 }')"
	run "$VERIFY" "$b"
	assert_success
	# 0.07 away is another number
	set_scale "$b" "$(awk -v t="$t" 'BEGIN { printf "%.2f", t + 0.07 }')"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line --partial "results/step-001.json: Scale best rate"
}

@test "an edited summary.md number of a harness run fails, and is named" {
	[ -n "$(harness_run)" ] || skip "no harness run"
	b=$(unpack "$(bundle "$(harness_run)")")
	triad=$(jq -r '.bench.results[] | select(.kernel == "Triad") | .best_mbs' "$b/results/step-001.json" | awk '{ printf "%.1f", $1 }')
	# the Triad column's cell of the first step row (another kernel's rate
	# can be the same number)
	awk -F'|' -v OFS='|' '
		/^\| Label / { for (i = 1; i <= NF; i++) if ($i ~ /^ *Triad MB\/s *$/) col = i }
		col && !done && /^\| [^-]/ && !/^\| Label / { $col = " 99999.9 "; done = 1 }
		{ print }' "$b/results/summary.md" >"$b/summary.new"
	mv "$b/summary.new" "$b/results/summary.md"
	grep -q '| 99999.9 |' "$b/results/summary.md"
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line "verify: results/summary.md step row 1: Triad 99999.9 but step 001 gives $triad"
}

# csv_get FILE ROW COLUMN / csv_set FILE ROW COLUMN VALUE: one field of a
# CSV, by row (1 = the first data row) and header name; the file is
# written back as Python's csv module quotes it, which verify reads alike.
csv_get() {
	python3 -c 'import csv, sys
print(list(csv.reader(open(sys.argv[1], newline="")))[int(sys.argv[2])][list(csv.reader(open(sys.argv[1], newline="")))[0].index(sys.argv[3])])' "$@"
}
csv_set() {
	python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
rows[int(sys.argv[2])][rows[0].index(sys.argv[3])] = sys.argv[4]
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)' "$@"
}
# md_get FILE SECTION KEY COLUMN / md_set FILE SECTION KEY COLUMN VALUE:
# one cell of a Markdown table in table.md: the first table when SECTION
# is empty, else the one under "## SECTION..."; the row whose first cell
# is KEY, the column headed COLUMN.
MD_CELL='
function trim(x) { gsub(/^ +| +$/, "", x); return x }
/^## / { heading = $0 }
{ here = (want == "") ? (heading == "") : (index(heading, "## " want) == 1) }
here && /^\|/ {
	n = split($0, f, "|")
	if (trim(f[2]) == "#" || trim(f[2]) == "cell") for (j = 2; j < n; j++) col[trim(f[j])] = j
	else if (trim(f[2]) == key && (column in col)) {
		if (!set) { print trim(f[col[column]]); exit }
		f[col[column]] = " " value " "
		line = f[1]; for (j = 2; j <= n; j++) line = line "|" f[j]
		$0 = line
	}
}
set { print }'
md_get() { awk -v want="$2" -v key="$3" -v column="$4" -v set=0 "$MD_CELL" "$1"; }
md_set() {
	awk -v want="$2" -v key="$3" -v column="$4" -v value="$5" -v set=1 "$MD_CELL" "$1" >"$1.new" && mv "$1.new" "$1"
}
# tampered BUNDLE: verify's complaints about the numbers, one a line, after
# the manifest is made again (as a forger would).
tampered() {
	remanifest "$1"
	run "$VERIFY" "$1"
	assert_failure 1
	complaints=$(printf '%s\n' "$output" | grep '^verify: results/' || true)
}

@test "verify re-derives the Triad ratio and each change against the baseline: one tampered alone fails, named" {
	[ -n "$(matrix_run)" ] || skip "no matrix run"
	t=$(bundle "$(matrix_run)")
	fresh() { rm -rf "$BATS_TEST_TMPDIR/u"; b=$(unpack "$t"); }

	fresh
	r=$(csv_get "$b/results/table.csv" 2 triad_ratio)
	csv_set "$b/results/table.csv" 2 triad_ratio "$(awk -v r="$r" 'BEGIN { printf "%.2f", r + 0.5 }')"
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.csv row 2 (cell 002): triad_ratio $(awk -v r="$r" 'BEGIN { printf "%.2f", r + 0.5 }') but the raw outputs give $r"

	fresh
	r=$(md_get "$b/results/table.md" '' 2 'Triad ratio')
	[ -n "$r" ]
	md_set "$b/results/table.md" '' 2 'Triad ratio' 9.99
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.md row 2 (cell 002): Triad ratio 9.99 but the raw outputs give $r"

	fresh
	c=$(csv_get "$b/results/table.csv" 2 copy_vs_baseline_pct)
	[ "$c" != -0.0 ] || c=0.0 # verify names a change of nothing 0.0
	csv_set "$b/results/table.csv" 2 copy_vs_baseline_pct 55.5
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.csv row 2 (cell 002): copy_vs_baseline_pct 55.5 but the raw outputs give $c"

	fresh
	c=$(md_get "$b/results/table.md" 'Against the baseline' 002 Scale)
	[[ "$c" == [+-]*% ]]
	md_set "$b/results/table.md" 'Against the baseline' 002 Scale +55.5%
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.md row 2 (cell 002) against the baseline: Scale +55.5% but the raw outputs give $c"
}

@test "verify with 4 runs a cell: medians of an even count, the Triad spread and the verdicts, each re-derived" {
	fake_gcc
	# The baseline's Copy runs give a median of 1020 (the middle two's
	# mean); B's Copy is slower in every run, its Scale 0.01% lower
	# (table.csv: -0.0), its Triad spread 1100/1000.
	plant_even_runs 999.9
	m=$(write_matrix four 'gcc | -O2 | FAKE=a ; FAKE=b | plain | 1')
	run "$RUN_MATRIX" --size 100000 --ntimes 3 --repeat 4 --results "$BATS_TEST_TMPDIR/m4" "$m"
	assert_success
	run4=$(find "$BATS_TEST_TMPDIR/m4" -mindepth 2 -maxdepth 2 -type d)
	assert_equal "$(csv_get "$run4/table.csv" 1 copy_mbs) $(csv_get "$run4/table.csv" 2 scale_vs_baseline_pct)" "1020 -0.0"
	t=$(bundle "$run4")
	run "$VERIFY" "$t"
	assert_success
	fresh() { rm -rf "$BATS_TEST_TMPDIR/u"; b=$(unpack "$t"); }

	fresh
	assert_equal "$(csv_get "$b/results/table.csv" 2 triad_spread)" 1.10
	csv_set "$b/results/table.csv" 2 triad_spread 1.01
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.csv row 2 (cell 002): triad_spread 1.01 but the raw outputs give 1.10"

	fresh
	md_set "$b/results/table.md" '' 2 'Triad spread' 1.01
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.md row 2 (cell 002): Triad spread 1.01 but the raw outputs give 1.10"

	fresh
	assert_equal "$(csv_get "$b/results/table.csv" 2 copy_verdict)" slower
	csv_set "$b/results/table.csv" 2 copy_verdict 'within noise'
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.csv row 2 (cell 002): copy_verdict within noise but the raw outputs give slower"

	fresh
	assert_equal "$(md_get "$b/results/table.md" 'Against the baseline' 002 Copy)" '-19.6% slower'
	md_set "$b/results/table.md" 'Against the baseline' 002 Copy '-19.6% within noise'
	tampered "$b"
	assert_equal "$complaints" "verify: results/table.md row 2 (cell 002) against the baseline: Copy -19.6% within noise but the raw outputs give -19.6% slower"
}

@test "a tampered bench.c fails the sha256, even with a new manifest and bench.c.sha256" {
	[ -n "$(harness_run)" ] || skip "no harness run"
	b=$(unpack "$(bundle "$(harness_run)")")
	echo '/* tuned */' >>"$b/bench.c"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line 'verify: bench.c: sha256 differs from MANIFEST.sha256'
	(cd "$b" && sha256sum bench.c >bench.c.sha256)
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line --regexp "^verify: bench.c: sha256 [0-9a-f]{64} differs from the one the run's provenance.txt recorded"
}

@test "a file added or removed after bundling fails verify" {
	[ -n "$(harness_run)" ] || skip "no harness run"
	b=$(unpack "$(bundle "$(harness_run)")")
	echo extra >"$b/results/notes.txt"
	rm "$b/run-rules.txt"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line 'verify: results/notes.txt: not in MANIFEST.sha256 (added after the bundle was made)'
	assert_line 'verify: run-rules.txt: in MANIFEST.sha256 but missing'
}

@test "--redact: the host name and the kernel command line are gone from every file and name" {
	need unshare
	need_compiler gcc
	secret='secret-host-42'
	res=$BATS_TEST_TMPDIR/res
	# A kernel command line of the test's own (a fake procfs), as a host
	# whose /proc/cmdline is empty (a container's) would leave nothing
	# to redact and the check below nothing to find.
	fake_procfs "$BATS_TEST_TMPDIR/proc" 0 0
	printf 'BOOT_IMAGE=/boot/vmlinuz-planted root=UUID=planted-cmdline-42 ro quiet\n' \
		>"$BATS_TEST_TMPDIR/proc/cmdline"
	# A host name of the test's own (a UTS namespace), set for the run and the bundling.
	cat >"$BATS_TEST_TMPDIR/inns.sh" <<EOS
export MEMBENCH_PROCFS=$BATS_TEST_TMPDIR/proc
hostname $secret || exit 77
"$MEMBENCH_ROOT/harness/run" --results "$res" --bench "$MEMBENCH_ROOT/bench" -- -s 100000 -n 3 >/dev/null 2>&1 || exit 3
d=\$(find "$res" -mindepth 2 -maxdepth 2 -type d)
"$SUBMIT" --output "$BATS_TEST_TMPDIR" "\$d" && "$SUBMIT" --redact --output "$BATS_TEST_TMPDIR" "\$d"
EOS
	run unshare -u sh "$BATS_TEST_TMPDIR/inns.sh"
	[ "$status" != 77 ] || skip "cannot set a host name here"
	plain=$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name "membench-$secret-*.tar.gz")
	red=$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name 'membench-redacted-host-*.tar.gz')
	[ -n "$plain" ] && [ -n "$red" ] || fail "bundles: $output"
	cmdline=$(tr -d '\0' <"$BATS_TEST_TMPDIR/proc/cmdline" | sed 's/[[:space:]]*$//')
	# Unredacted, both are there: the check below can fail.
	mkdir "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/r"
	tar -C "$BATS_TEST_TMPDIR/p" -xzf "$plain"
	tar -C "$BATS_TEST_TMPDIR/r" -xzf "$red"
	grep -rqF "$secret" "$BATS_TEST_TMPDIR/p"
	grep -rqF -- "$cmdline" "$BATS_TEST_TMPDIR/p"
	# Redacted: in no file, no file name, and the numbers still verify.
	run grep -rlF "$secret" "$BATS_TEST_TMPDIR/r"
	assert_output ''
	[ -z "$(find "$BATS_TEST_TMPDIR/r" -name "*$secret*")" ]
	run grep -rlF -- "$cmdline" "$BATS_TEST_TMPDIR/r"
	assert_output ''
	grep -q '^\[redacted\]$' "$BATS_TEST_TMPDIR"/r/*/results/provenance.txt
	jq -e '.bench.system.hostname == "redacted-host"' "$BATS_TEST_TMPDIR"/r/*/results/step-001.json >/dev/null
	run "$VERIFY" "$red"
	assert_success
}

# inside DIR: how often $h occurs in DIR's text files other than as the
# token $tok (nor inside redacted-host); provenance.txt, whose command
# line goes, the hashes, and the report made after redaction not counted.
inside() {
	local ex=(--exclude=bench.c --exclude='*.sha256' --exclude=provenance.txt --exclude='report.*' --exclude='plot-*')
	local all toks repl
	all=$(grep -rhoIF "$h" "$1" "${ex[@]}" | wc -l)
	toks=$(grep -rhoIP "$tok" "$1" "${ex[@]}" | wc -l)
	repl=$(grep -rhoIF redacted-host "$1" "${ex[@]}" | wc -l)
	echo $((all - toks - repl * $(grep -o "$h" <<<redacted-host | wc -l)))
}

@test "--redact: a host called vm, a, read or bench is gone as a token, every JSON key stays, and the bundle verifies" {
	command -v unshare >/dev/null || skip "no unshare"
	need_compiler gcc
	local h t tok f
	for h in vm a read bench; do
		t=$BATS_TEST_TMPDIR/host-$h
		mkdir -p "$t/p" "$t/r"
		cat >"$t/inns.sh" <<EOS
hostname $h || exit 77
"$MEMBENCH_ROOT/harness/run" --results "$t/res" --bench "$MEMBENCH_ROOT/bench" -- -s 100000 -n 3 >/dev/null 2>&1 || exit 3
d=\$(find "$t/res" -mindepth 2 -maxdepth 2 -type d)
"$SUBMIT" --output "$t/p" "\$d" >/dev/null && "$SUBMIT" --redact --output "$t/r" "\$d" >/dev/null
EOS
		run unshare -u sh "$t/inns.sh"
		[ "$status" != 77 ] || skip "cannot set a host name here"
		assert_success
		tar -C "$t/p" -xzf "$t"/p/*.tar.gz
		tar -C "$t/r" -xzf "$t"/r/*.tar.gz
		# The name as a token: not beside a letter, digit, '_' or '-',
		# nor beside a '.' that joins it to one (bench.c is another word).
		tok="(?<![A-Za-z0-9_-])(?<![A-Za-z0-9_-][.])$h(?![A-Za-z0-9_-])(?![.][A-Za-z0-9_-])"
		# Unredacted it is there, so the check below can fail...
		jq -e --arg h "$h" '.bench.system.hostname == $h' "$t"/p/*/results/step-001.json >/dev/null
		grep -rqIP "$tok" "$t/p" --exclude=bench.c
		# ...and redacted it is in no text file (bench.c is the source as
		# it was; the report and its plots are rendered afterwards, from
		# the redacted files, in words of their own: "bench", an <a> tag).
		# In JSON it is in no value; the keys are the unredacted ones.
		run grep -rlIP "$tok" "$t/r" --exclude=bench.c --exclude='report.*' --exclude='plot-*' --exclude='*.json'
		assert_output ''
		grep -q '^- host: redacted-host, ' "$t"/r/*/results/report.md
		# Inside longer words (threads, membench, bench.c, svm) it stays:
		# as many such occurrences as unredacted, and there are some.
		assert_equal "$(inside "$t/r")" "$(inside "$t/p")"
		[ "$(inside "$t/p")" -gt 0 ]
		jq -e '.bench.system.hostname == "redacted-host"' "$t"/r/*/results/step-001.json >/dev/null
		for f in $(cd "$t"/p/*/ && find . -name '*.json'); do
			assert_equal "$f: $(jq -r '.. | strings' "$t"/r/*/"$f" | grep -cP "$tok")" "$f: 0"
			# every document parses, with the same keys and schema
			assert_equal "$(jq -c '[paths], .schema' "$t"/r/*/"$f")" "$(jq -c '[paths], .schema' "$t"/p/*/"$f")"
		done
		run "$VERIFY" "$t"/r/*.tar.gz
		assert_success
	done
}

@test "--redact: a matrix's host name recorded in its cells' JSON is gone too" {
	[ -n "$(matrix_run)" ] || skip "no matrix run (gcc missing?)"
	# the run as if made on another machine and bundled here
	m=$BATS_TEST_TMPDIR/run
	cp -r "$(matrix_run)" "$m"
	for j in "$m"/cells/*/result.json; do
		jq '.system.hostname = "far-node-9"' "$j" >"$j.new" && mv "$j.new" "$j"
	done
	grep -rqF far-node-9 "$m"
	b=$(unpack "$(bundle "$m" --redact)")
	[ -d "$b" ]
	run grep -rlF far-node-9 "$b"
	assert_output ''
	run "$VERIFY" "$b"
	assert_success
}

@test "--redact: a recorded host name that is no host name stops the bundling, in one line" {
	[ -n "$(harness_run)" ] || skip "no harness run"
	cp -r "$(harness_run)" "$BATS_TEST_TMPDIR/run"
	f=$BATS_TEST_TMPDIR/run/step-001.json
	jq --arg h 'box "7"' '.bench.system.hostname = $h' "$f" >"$f.new" && mv "$f.new" "$f"
	run "$SUBMIT" --redact --output "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/run"
	assert_failure 2
	assert_output "submission: --redact: $(printf '%q' 'box "7"') was recorded as a host name, but is not one (letters, digits, '.', '_', '-'); not redacting it would leak it"
	[ -z "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name '*.tar.gz')" ]
}

@test "report.html: made by harness/report when it exists, and said so when not" {
	[ -n "$(harness_run)" ] || skip "no harness run"
	run --separate-stderr "$SUBMIT" --output "$BATS_TEST_TMPDIR" "$(harness_run)"
	assert_success
	if [ ! -x "$MEMBENCH_ROOT/harness/report" ]; then
		assert_equal "$stderr" 'submission: no harness/report here: the bundle has no report.html'
	fi
	# A copy of the harness with a stand-in report: the hook calls it.
	copy=$BATS_TEST_TMPDIR/copy
	mkdir -p "$copy/out"
	cp -r "$MEMBENCH_ROOT/harness" "$copy/"
	cp "$MEMBENCH_ROOT/bench.c" "$copy/"
	printf '#!/bin/sh\n[ "$1" = --html ] || exit 2\necho "<html>stand-in for $2</html>" >"$2/report.html"\n' >"$copy/harness/report"
	chmod +x "$copy/harness/report"
	run --separate-stderr "$copy/harness/submission" --output "$copy/out" "$(harness_run)"
	assert_success
	b=$(unpack "$output")
	grep -q '^<html>stand-in for ' "$b/report.html"
	[ ! -e "$b/results/report.html" ]
	grep -q ' report.html$' "$b/MANIFEST.sha256"
	run "$VERIFY" "$b"
	assert_success
}

@test "bad input: one line, exit 2, no tarball" {
	run "$SUBMIT" --output "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/nowhere"
	assert_failure 2
	assert_output "submission: no run directory '$BATS_TEST_TMPDIR/nowhere'"
	mkdir "$BATS_TEST_TMPDIR/empty"
	run "$SUBMIT" --output "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/empty"
	assert_failure 2
	assert_output --partial 'has no provenance.txt'
	if [ -n "$(harness_run)" ]; then
		cp -r "$(harness_run)" "$BATS_TEST_TMPDIR/cut"
		touch "$BATS_TEST_TMPDIR/cut/INTERRUPTED"
		run "$SUBMIT" --output "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/cut"
		assert_failure 2
		assert_output --partial 'was interrupted'
	fi
	[ -z "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name '*.tar.gz')" ]
	run "$VERIFY" "$BATS_TEST_TMPDIR/empty"
	assert_failure 2
	assert_output --partial 'has no MANIFEST.sha256'
	echo junk >"$BATS_TEST_TMPDIR/junk.tar.gz"
	run "$VERIFY" "$BATS_TEST_TMPDIR/junk.tar.gz"
	assert_failure 2
	assert_output --partial 'is not a gzip file'
}

@test "a matrix cell that failed validation is refused, named, without --allow-failed" {
	[ -n "$(matrix_run)" ] || skip "no matrix run"
	cp -r "$(matrix_run)" "$BATS_TEST_TMPDIR/run"
	j=$BATS_TEST_TMPDIR/run/cells/002/result.json
	jq '.validation.ok = false' "$j" >"$j.new" && mv "$j.new" "$j"
	run "$SUBMIT" --output "$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR/run"
	assert_failure 2
	assert_output "submission: $BATS_TEST_TMPDIR/run: cells/002 failed validation: not a result (--allow-failed packs it, marked FAILED)"
	[ -z "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name '*.tar.gz')" ]
}

@test "make submission RESULTS=DIR REDACT=1 calls harness/submission" {
	[ -f "$MEMBENCH_ROOT/Makefile" ] || skip "run ./configure first"
	run make -n -C "$MEMBENCH_ROOT" submission RESULTS=/some/run REDACT=1
	assert_success
	assert_output --partial "harness/submission --redact '/some/run'"
	run make -n -C "$MEMBENCH_ROOT" submission RESULTS=/some/run
	refute_output --partial -- '--redact'
}
