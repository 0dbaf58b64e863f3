#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/compare: verdicts per kernel and latency level, the regression
# gate, and the three kinds of input.  The fixtures are real bench runs
# (tiny ones); jq then pins each run's noise band, so that a verdict does
# not depend on how noisy this machine was, and plants the changes.

load test_helper
load harness_helper

COMPARE=$HARNESS_REPO/harness/compare

# Every kernel's repetitions within -1%..+2% of its median (a 3% band),
# every latency plateau point at the level's ns or 2% above it.
PIN='
if .results then .results |= map(.min_s = .median_s / 1.01 | .max_s = .median_s * 1.02
	| .best_mbs = .bytes / .min_s / 1e6 | .median_mbs = .bytes / .median_s / 1e6) else . end
| if .summary then
	.summary[0].levels as $lv
	| .curve |= [to_entries[] | .key as $i | .value
		| . as $p | ([$lv[] | select($p.bytes >= .from_bytes and $p.bytes <= .to_bytes)][0]) as $l
		| if $l then .ns = $l.ns * (1 + 0.02 * ($i % 2)) else . end]
  else . end'

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local d=$BATS_FILE_TMPDIR
	"$BENCH" -s 100000 -n 5 --json | jq "$PIN" >"$d/stream.json"
	# the stride given, not this host's cache line: the tests name it
	"$BENCH" latency --max 1M --stride 64 --json | jq "$PIN" >"$d/latency.json"
	"$BENCH" all -s 100000 -n 5 --max 1M --stride 64 --json >"$d/all.json"
	"$BENCH" info --json >"$d/info.json"
}

setup() { F=$BATS_FILE_TMPDIR; }

# rates FILE FACTOR KERNEL...: KERNEL's rates times FACTOR (times divided).
rates() {
	local f=$1 x=$2
	shift 2
	jq --argjson x "$x" '($ARGS.positional) as $k
		| .results |= map(if (.kernel | IN($k[])) then
			.best_mbs *= $x | .median_mbs *= $x
			| .min_s /= $x | .max_s /= $x | .median_s /= $x | .avg_s /= $x else . end)' \
		"$f" --args "$@"
}

# latency FILE FACTOR LEVEL: LEVEL's ns, and its plateau's points, times FACTOR.
latency() {
	jq --argjson x "$2" --arg n "$3" '
		(.summary[0].levels[] | select(.name == $n)) as $l
		| .summary[0].levels |= map(if .name == $n then .ns *= $x else . end)
		| .curve |= map(if .bytes >= $l.from_bytes and .bytes <= $l.to_bytes then .ns *= $x else . end)' "$1"
}

verdict() { # the verdict column of ITEM's row in $output
	printf '%s\n' "$output" | awk -F' [|] ' -v k="$1" '$1 == "| " k { print $5 }'
}

@test "identical inputs: every kernel within noise, and the gate passes" {
	run "$COMPARE" --fail-on-regression 10 "$F/stream.json" "$F/stream.json"
	assert_success
	assert_line --regexp '^\| Kernel/level \| A median \| B median \| Change \| Verdict \|'
	for k in Copy Scale Add Triad; do
		assert_line --regexp "^\| $k \| .* \| 0% \| within noise \|"
	done
	refute_output --partial faster
	refute_output --partial slower
}

@test "a 20% drop in Copy and Triad is slower; --fail-on-regression 10 exits 1 naming them" {
	rates "$F/stream.json" 0.8 Copy Triad >"$BATS_TEST_TMPDIR/b.json"
	run "$COMPARE" "$F/stream.json" "$BATS_TEST_TMPDIR/b.json"
	assert_success
	assert_line --regexp '^\| Copy \| .* \| -20% \| slower \|'
	assert_line --regexp '^\| Triad \| .* \| -20% \| slower \|'
	assert_line --regexp '^\| Scale \| .* \| within noise \|'
	assert_line --regexp '^\| Add \| .* \| within noise \|'

	run "$COMPARE" --fail-on-regression 10 "$F/stream.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 1
	assert_line 'compare: regression past 10%: Copy slower by 20%'
	assert_line 'compare: regression past 10%: Triad slower by 20%'
	refute_output --partial 'Scale slower'

	# A gate wider than the drop passes.
	run "$COMPARE" --fail-on-regression 25 "$F/stream.json" "$BATS_TEST_TMPDIR/b.json"
	assert_success
}

@test "a 0.5% wiggle inside the spread is within noise and passes the gate" {
	rates "$F/stream.json" 0.995 Copy Scale Add Triad >"$BATS_TEST_TMPDIR/b.json"
	run "$COMPARE" --fail-on-regression 10 "$F/stream.json" "$BATS_TEST_TMPDIR/b.json"
	assert_success
	for k in Copy Scale Add Triad; do
		assert_line --regexp "^\| $k \| .* \| -0.5% \| within noise \| spread ±3%, 1\+1 runs \|"
	done
}

@test "20% more bandwidth is faster, and the gate ignores it" {
	rates "$F/stream.json" 1.2 Add >"$BATS_TEST_TMPDIR/b.json"
	run "$COMPARE" --fail-on-regression 10 "$F/stream.json" "$BATS_TEST_TMPDIR/b.json"
	assert_success
	assert_line --regexp '^\| Add \| .* \| \+20% \| faster \|'
}

@test "a latency level 30% higher is slower, 30% lower is faster" {
	# The last level the sweep found (L2 with --max 1M on most machines).
	lvl=$(jq -r '.summary[0].levels[-1].name' "$F/latency.json")
	[ "$lvl" != L1d ]
	latency "$F/latency.json" 1.3 "$lvl" >"$BATS_TEST_TMPDIR/up.json"
	run "$COMPARE" --fail-on-regression 10 "$F/latency.json" "$BATS_TEST_TMPDIR/up.json"
	assert_failure 1
	assert_line --regexp "^\| $lvl \| [0-9.]+ ns \| [0-9.]+ ns \| \+30% \| slower \|"
	assert_line --regexp '^\| L1d \| .* \| 0% \| within noise \|'
	assert_line "compare: regression past 10%: $lvl slower by 30%"

	latency "$F/latency.json" 0.7 L1d >"$BATS_TEST_TMPDIR/down.json"
	run "$COMPARE" --fail-on-regression 10 "$F/latency.json" "$BATS_TEST_TMPDIR/down.json"
	assert_success
	assert_line --regexp '^\| L1d \| .* \| -30% \| faster \|'
}

@test "all mode: the kernels and the latency levels under .latency" {
	run "$COMPARE" "$F/all.json" "$F/all.json"
	assert_success
	for k in Copy Scale Add Triad L1d; do
		assert_line --regexp "^\| $k \| .* \| within noise \|"
	done
}

@test "--json: one row per kernel with medians, change, runs, test and verdict" {
	rates "$F/stream.json" 0.8 Copy >"$BATS_TEST_TMPDIR/b.json"
	run "$COMPARE" --json --fail-on-regression 10 "$F/stream.json" "$BATS_TEST_TMPDIR/b.json"
	assert_failure 1
	json=$(printf '%s\n' "$output" | sed '/^compare: /d')
	run jq -r '.schema, (.rows | length),
		(.rows[] | select(.item == "Copy") | "\(.kind) \(.change_pct | round) \(.a_runs) \(.test) \(.verdict) \(.regression)")' <<<"$json"
	assert_output "membench-compare/1
4
bandwidth -20 1 spread slower true"
}

# harness_dir DIR FILE...: a harness run directory, one step per FILE.
harness_dir() {
	local dir=$1 i=0 f
	shift
	mkdir -p "$dir"
	for f in "$@"; do
		i=$((i + 1))
		jq --argjson i "$i" '{schema: "membench-harness/1", step: $i, params: {Label: "run"},
			status: "ok", exit_status: 0, bench: .}' "$f" >"$dir/$(printf 'step-%03d.json' "$i")"
	done
}

@test "harness runs with 4 steps a side: Mann-Whitney decides" {
	t=$BATS_TEST_TMPDIR
	for i in 1 2 3 4; do
		rates "$F/stream.json" "1.00$i" Copy Scale Add Triad >"$t/a$i.json"
		rates "$t/a$i.json" 0.9 Copy >"$t/b$i.json"
	done
	harness_dir "$t/A" "$t"/a?.json
	harness_dir "$t/B" "$t"/b?.json
	run "$COMPARE" "$t/A" "$t/B"
	assert_success
	# Every B Copy run is below every A run: p = 2/70.
	assert_line --regexp '^\| Copy \| .* \| -10% \| slower \| p=0.029, 4\+4 runs \|'
	assert_line --regexp '^\| Triad \| .* \| 0% \| within noise \| p=1, 4\+4 runs \|'

	# 3 runs a side cannot reach 5%: the spread rule decides instead.
	rm "$t/A/step-004.json" "$t/B/step-004.json"
	run "$COMPARE" "$t/A" "$t/B"
	assert_line --regexp '^\| Copy \| .* \| slower \| spread ±0.2%, 3\+3 runs \|'
}

# runs_of DIR KERNEL=V,V,... ...: a harness run directory, one step per
# value, each the fixture with those kernels' median rates set to the
# values given (other kernels as they were).  With 2 or more runs a side
# the spread is over the runs, so the fixture's own band plays no part.
runs_of() {
	local dir=$1 n i
	shift
	n=$(tr ',' '\n' <<<"${1#*=}" | wc -l)
	for ((i = 0; i < n; i++)); do
		jq --argjson i "$i" '($ARGS.positional | map(split("=") | {key: .[0],
				value: (.[1] | split(",") | .[$i] | tonumber)}) | from_entries) as $v
			| .results |= map(if $v[.kernel] then .median_mbs = $v[.kernel] else . end)' \
			"$F/stream.json" --args "$@" >"$dir.$i.json"
	done
	harness_dir "$dir" "$dir".?.json
}

@test "4 runs a side: where the rank test and the spread band disagree, the rank test decides" {
	t=$BATS_TEST_TMPDIR
	# Copy: every B run below every A run (p = 2/70), a change of -3.9%
	# inside A's 5% spread.  Scale: +4%, outside both spreads (3% and
	# 2%), but one B run below one A run (p = 4/70).
	runs_of "$t/A" Copy=100,101,102,105 Scale=100,100,100,103
	runs_of "$t/B" Copy=96,97,98,99 Scale=102,104,104,104
	run "$COMPARE" --fail-on-regression 1 "$t/A" "$t/B"
	assert_failure 1
	# and each median of 4 runs is the mean of the middle two
	assert_line '| Copy | 101.5 MB/s | 97.5 MB/s | -3.9% | slower | p=0.029, 4+4 runs |'
	assert_line '| Scale | 100 MB/s | 104 MB/s | +4% | within noise | p=0.057, 4+4 runs |'
	assert_line 'compare: regression past 1%: Copy slower by 3.9%'
	refute_output --partial 'Scale slower'
	run "$COMPARE" --json "$t/A" "$t/B"
	assert_success
	run jq -r '.rule, (.rows[] | select(.item == "Copy" or .item == "Scale")
		| "\(.item) \(.a_spread_pct | round) \(.b_spread_pct | round) \(.test) \(.verdict)")' <<<"$output"
	assert_output "Mann-Whitney two-sided at 5% with >= 4 runs a side; else within noise when |change| <= the larger spread (max/min - 1)
Copy 5 3 mann-whitney slower
Scale 3 2 mann-whitney within noise"
}

@test "the rank test's level is the 5% it states: p=0.041 is a change, p=0.056 is not" {
	t=$BATS_TEST_TMPDIR
	# 6 against 6, five of 36 pairs with B above: p = 38/924.  A's 20%
	# spread would call the -9.8% change noise.
	runs_of "$t/A6" Copy=100,101,102,103,104,120
	runs_of "$t/B6" Copy=90,91,92,93,94,104.5
	run "$COMPARE" "$t/A6" "$t/B6"
	assert_success
	assert_line '| Copy | 102.5 MB/s | 92.5 MB/s | -9.8% | slower | p=0.041, 6+6 runs |'
	# 5 against 5, three of 25 pairs with B below: p = 14/252.  The +3%
	# change is past both spreads (2% and 2.5%).
	runs_of "$t/A5" Copy=100,100,100,101,102
	runs_of "$t/B5" Copy=100.5,101.5,103,103,103
	run "$COMPARE" "$t/A5" "$t/B5"
	assert_success
	assert_line '| Copy | 100 MB/s | 103 MB/s | +3% | within noise | p=0.056, 5+5 runs |'
}

@test "harness runs: other params are matched by name; a failed step is refused, --allow-failed shows it FAILED" {
	t=$BATS_TEST_TMPDIR
	harness_dir "$t/A" "$F/stream.json" "$F/stream.json"
	jq '.params = {Threads: 2}' "$t/A/step-001.json" >"$t/x" && mv "$t/x" "$t/A/step-001.json"
	jq '.params = {Threads: 4}' "$t/A/step-002.json" >"$t/x" && mv "$t/x" "$t/A/step-002.json"
	cp -r "$t/A" "$t/B"
	jq '.params = {Threads: 8}' "$t/B/step-001.json" >"$t/x" && mv "$t/x" "$t/B/step-001.json"
	run "$COMPARE" "$t/A" "$t/B"
	assert_success
	assert_line --regexp '^\| Threads=4 \| Copy \| .* \| within noise \|'
	assert_line 'Only in A: Threads=2: Copy; Threads=2: Scale; Threads=2: Add; Threads=2: Triad'
	assert_line 'Only in B: Threads=8: Copy; Threads=8: Scale; Threads=8: Add; Threads=8: Triad'

	# B's Threads=4 failed validation: no verdict on it, and no gate passes it
	jq '.status = "validation failed" | .exit_status = 1' "$t/B/step-002.json" >"$t/x" && mv "$t/x" "$t/B/step-002.json"
	for gate in '' '--fail-on-regression 10'; do
		# shellcheck disable=SC2086 # the gate is two words or none
		run "$COMPARE" $gate "$t/A" "$t/B"
		assert_failure 2
		assert_output "compare: B ($t/B): step-002 failed: validation failed (exit status 1); a failed run is not compared (--allow-failed shows the rest, the failed one as FAILED)"
	done
	run "$COMPARE" --allow-failed "$t/A" "$t/B"
	assert_success
	for k in Copy Scale Add Triad; do
		assert_line --regexp "^\| Threads=4 \| $k \| - \| FAILED \|  \| FAILED \| failed: B step-002 \|$"
	done
	assert_line 'Failed, not compared: B step-002 (Threads=4): validation failed (exit status 1)'
	refute_output --partial 'within noise'
	run "$COMPARE" --json --allow-failed "$t/A" "$t/B"
	run jq -r '[.rows[] | select(.group == "Threads=4") | "\(.verdict) \(.b_median) \(.change_pct) \(.regression)"] | unique[]' <<<"$output"
	assert_output 'FAILED null null false'
	run "$COMPARE" --allow-failed --fail-on-regression 10 "$t/A" "$t/B"
	assert_failure 2
	assert_output --partial 'do not go together'

	# a document that says its validation failed, under exit status 0, or alone
	jq '.status = "ok" | .exit_status = 0 | .bench.validation.ok = false' "$t/B/step-002.json" >"$t/x" && mv "$t/x" "$t/B/step-002.json"
	run "$COMPARE" "$t/A" "$t/B"
	assert_failure 2
	assert_output --partial "compare: B ($t/B): step-002 failed: its validation failed (bench.validation.ok is false);"
	jq '.validation.ok = false' "$F/stream.json" >"$t/failed.json"
	run "$COMPARE" --fail-on-regression 10 "$t/failed.json" "$F/stream.json"
	assert_failure 2
	assert_output --partial "compare: A: $t/failed.json failed: its validation failed (validation.ok is false);"
}

# matrix_cell DIR NNN BUILD_LINE [FILE...]: one cell; one FILE is the
# REPEAT=1 layout, several are run-K/ directories.
matrix_cell() {
	local d=$1/cells/$2 line=$3 k=0 f
	shift 3
	mkdir -p "$d"
	printf 'build_line = %s\nrun_line = ./bench -s 100000 -n 5\n' "$line" >"$d/cell.info"
	if [ $# = 1 ]; then
		cp "$1" "$d/result.json"
		echo 'run_status = 0' >>"$d/cell.info"
		return
	fi
	for f in "$@"; do
		k=$((k + 1))
		mkdir -p "$d/run-$k"
		cp "$f" "$d/run-$k/result.json"
		echo "run_${k}_status = 0" >>"$d/cell.info"
	done
}

@test "matrix runs: cells matched by their lines, REPEAT runs as repeats" {
	t=$BATS_TEST_TMPDIR
	rates "$F/stream.json" 0.8 Triad >"$t/slow.json"
	matrix_cell "$t/A" 001 'gcc -O2' "$F/stream.json"
	matrix_cell "$t/A" 002 'gcc -O3' "$F/stream.json" "$F/stream.json"
	# B numbers its cells differently and has one A lacks.
	matrix_cell "$t/B" 001 'clang -O3' "$F/stream.json"
	matrix_cell "$t/B" 002 'gcc -O2' "$F/stream.json"
	matrix_cell "$t/B" 003 'gcc -O3' "$t/slow.json" "$t/slow.json"
	run "$COMPARE" --fail-on-regression 10 "$t/A" "$t/B"
	assert_failure 1
	assert_line --regexp '^\| cell 001: gcc -O2 \| Triad \| .* \| within noise \| spread ±3%, 1\+1 runs \|'
	assert_line --regexp '^\| cell 002: gcc -O3 \| Triad \| .* \| -20% \| slower \| .*, 2\+2 runs \|'
	assert_line --partial 'Only in B: cell 001: clang -O3: Copy;'
	assert_line 'compare: regression past 10%: cell 002: gcc -O3: Triad slower by 20%'

	# A run of a cell that failed is refused, whether or not it left a
	# result.json (REPEAT=1 layout, and run-K/ layout)
	echo 'run_2_status = 1' >>"$t/B/cells/003/cell.info"
	rm "$t/B/cells/003/run-2/result.json"
	run "$COMPARE" "$t/A" "$t/B"
	assert_failure 2
	assert_output --partial "compare: B ($t/B): cell 003 run 2 failed: validation failed (exit status 1);"
	echo 'run_status = 3' >>"$t/A/cells/001/cell.info"
	run "$COMPARE" "$t/A" "$t/B"
	assert_failure 2
	assert_output --partial "compare: A ($t/A): cell 001 failed: exit status 3;"
}

@test "runs measured differently: each difference one line above the table; the gate refuses them unless --allow-different" {
	t=$BATS_TEST_TMPDIR
	# B: 20,000 elements on 1 thread, nt stores, another ISA and
	# allocation, another build, and a rate 15.58 times A's
	rates "$F/stream.json" 15.58 Copy Scale Add Triad | jq '.run.array_size = 20000
		| .run.threads_counted = 1 | .run.threads_requested = 1 | .run.stores = "nt"
		| .run.isa = "avx512" | .run.isa_rule = "set" | .run.alloc = "hugetlb"
		| .run.arrays[].page_kib = 2048 | .build.cflags = "cc -O1"' >"$t/b.json"
	jq '.run.array_size = 2000000 | .run.threads_counted = 2 | .run.threads_requested = 2
		| .run.stores = "plain" | .run.isa = "avx2" | .run.isa_rule = "auto" | .run.alloc = "mmap"
		| .run.arrays[].page_kib = 4 | .build.cflags = "cc -O3"' "$F/stream.json" >"$t/a.json"
	run "$COMPARE" "$t/a.json" "$t/b.json"
	assert_success
	assert_line --index 2 'Not measured the same way (the verdicts below compare different setups):'
	assert_line --index 3 '- array size: A: 2000000 elements, B: 20000 elements'
	assert_line --index 4 '- threads: A: 2 threads, B: 1 thread'
	assert_line --index 5 '- stores: A: plain stores, B: nt stores'
	assert_line --index 6 '- ISA: A: avx2 (rule auto), B: avx512 (rule set)'
	assert_line --index 7 '- allocation: A: alloc mmap, 4 KiB pages, B: alloc hugetlb, 2048 KiB pages'
	assert_line --index 8 --regexp '^- build: A: .*, flags cc -O3, double, membench .*, B: .*, flags cc -O1, double, membench .*$'
	assert_line --index 9 --regexp '^\| Kernel/level \|'
	assert_line --regexp '^\| Triad \| .* \| \+1458% \| faster \|'

	# the gate: refused, one line; --allow-different gates all the same
	run "$COMPARE" --fail-on-regression 10 "$t/b.json" "$t/a.json"
	assert_failure 2
	assert_output 'compare: A and B differ in array size, threads, stores, ISA, allocation, build (compare without --fail-on-regression lists how); the gate does not judge across that unless --allow-different is given'
	run "$COMPARE" --allow-different --fail-on-regression 10 "$t/b.json" "$t/a.json"
	assert_failure 1
	assert_line 'compare: regression past 10%: Triad slower by 93.6%'
	run "$COMPARE" --json --allow-different "$t/a.json" "$t/b.json"
	run jq -r '.differences[] | "\(.group)|\(.what)|\(.a)|\(.b)"' <<<"$output"
	assert_line '|threads|2 threads|1 thread'

	# harness runs: bench.c's sha256 from provenance.txt, and the latency chase
	harness_dir "$t/A" "$F/latency.json"
	harness_dir "$t/B" "$F/latency.json"
	printf '## sha256 of bench.c\n%s  /src/bench.c\n' "$(printf '%064d' 1)" >"$t/A/provenance.txt"
	printf '## sha256 of bench.c\n%s  /src/bench.c\n' "$(printf '%064d' 2)" >"$t/B/provenance.txt"
	jq '.bench.run.chains = 4' "$t/B/step-001.json" >"$t/x" && mv "$t/x" "$t/B/step-001.json"
	run "$COMPARE" "$t/A" "$t/B"
	assert_success
	assert_line '- latency chase: A: pattern random, strides 64, chains 1, load threads 0, B: pattern random, strides 64, chains 4, load threads 0'
	assert_line "- bench.c: A: sha256 $(printf '%064d' 1), B: sha256 $(printf '%064d' 2)"
	run "$COMPARE" --fail-on-regression 10 "$t/A" "$t/B"
	assert_failure 2
	assert_output --partial 'differ in latency chase, bench.c'
}

@test "text from results cannot break the table or reach it as markup: | and \\ escaped, <>& as entities, control characters as spaces" {
	t=$BATS_TEST_TMPDIR
	# one payload in a params value (the Run column), a params name, a
	# kernel name (a row, and Only in B), a step's status (Failed), and
	# the names A and B are given as
	p=$'x|y\\|`rm`<script>alert(1)</script>&amp;[a](javascript:1)\n| z |\r\e[31m\v'
	a="$t/A|<b>" b="$t/B|<b>"
	harness_dir "$a" "$F/stream.json" "$F/stream.json"
	cp -r "$a" "$b"
	for f in "$a"/step-*.json "$b"/step-*.json; do
		jq --arg p "$p" '.params = {($p): $p}' "$f" >"$t/x" && mv "$t/x" "$f"
	done
	jq --arg p "$p" '.params = {Other: 1} | .bench.results[0].kernel = $p' "$b/step-002.json" >"$t/x" && mv "$t/x" "$b/step-002.json"
	jq --arg p "$p" '.params = {Failed: 1} | .status = $p | .exit_status = 1' "$a/step-002.json" >"$t/x" && mv "$t/x" "$a/step-002.json"
	run "$COMPARE" --allow-failed "$a" "$b"
	assert_success
	# every row keeps its 8 column bars; none of the text is live
	assert_equal "$(grep -c '^| ' <<<"$output")" 6
	# (a \\ pair is one escaped backslash; what follows it is live)
	run awk '{ l = $0; gsub(/\\\\/, "", l) }
		l ~ /<script|<b>|[^\\][`[]|\033|\r|\v/ { print "live: " $0 }
		/^\| / { n = gsub(/[^\\]\|/, "", l); if (n != 7) print "bars " n ": " $0 }' <<<"$output"
	assert_output ''
	run "$COMPARE" --allow-failed "$a" "$b"
	assert_line --index 0 "A: $t/A\\|&lt;b&gt;"
	assert_line --regexp '^\| x\\\|y.*&lt;script&gt;alert\(1\)&lt;/script&gt;&amp;amp;\\\[a\\\]\(javascript:1\).* \| Copy \| .* \| within noise \|'
	assert_line --partial 'Failed, not compared: A step-002 (Failed=1): x\|y'
	assert_line --partial 'Only in B: Other=1: x\|y'
	# a backslash before a bar stays a backslash, the bar a bar
	cp "$F/stream.json" "$t/s\\|<b>.json"
	run "$COMPARE" "$t/s\\|<b>.json" "$F/stream.json"
	assert_line --index 0 "A: $t/s\\\\\\|&lt;b&gt;.json"
}

@test "bad input: one line, exit 2" {
	t=$BATS_TEST_TMPDIR
	echo 'not json {' >"$t/bad.json"
	mkdir "$t/empty" "$t/arrays"
	# a rate that is text or negative, a byte count that is text, a latency that is text
	jq '.results[0].median_mbs = "abc"' "$F/stream.json" >"$t/abc.json"
	jq '.results[1].median_mbs = -5' "$F/stream.json" >"$t/neg.json"
	jq '.results[2].bytes = "x"' "$F/stream.json" >"$t/bytes.json"
	jq '.summary[0].levels[0].ns = "x"' "$F/latency.json" >"$t/ns.json"
	# valid JSON that is no bench result: an array, two documents, a step whose bench is text
	echo '[{"schema": "membench/1", "mode": "stream"}]' >"$t/array.json"
	cat "$F/stream.json" "$F/stream.json" >"$t/two.json"
	echo '[]' >"$t/arrays/step-001.json"
	harness_dir "$t/textbench" "$F/stream.json"
	jq '.bench = "abc"' "$t/textbench/step-001.json" >"$t/x" && mv "$t/x" "$t/textbench/step-001.json"
	while IFS='|' read -r a b want; do
		run "$COMPARE" $a $b
		assert_failure 2
		assert_equal "${#lines[@]}" 1
		assert_output --regexp "^compare: .*$want"
	done <<EOF
$F/stream.json|$BATS_TEST_TMPDIR/missing.json|no such file or directory
$BATS_TEST_TMPDIR/bad.json|$F/stream.json|is not JSON
$F/stream.json|$F/latency.json|mismatched modes: A holds stream results, B holds latency
$F/all.json|$F/stream.json|mismatched modes
$F/info.json|$F/stream.json|holds no measurements
$BATS_TEST_TMPDIR/empty|$F/stream.json|neither a bench JSON file
$F/stream.json||wants two results
--fail-on-regression ten|$F/stream.json $F/stream.json|wants a percentage
$F/stream.json|$t/abc.json|B: '$t/abc.json' results\\[0\\]\\.median_mbs is "abc", not a positive rate in MB/s$
$t/neg.json|$F/stream.json|A: '$t/neg.json' results\\[1\\]\\.median_mbs is -5, not a positive rate in MB/s$
$F/stream.json|$t/bytes.json|results\\[2\\]\\.bytes is "x", not a number of 0 or more$
$F/latency.json|$t/ns.json|summary\\[0\\]\\.levels\\[0\\]\\.ns is "x", not a positive latency in ns$
$t/array.json|$F/stream.json|'$t/array.json' is a JSON array, not a membench result$
$F/stream.json|$t/two.json|holds 2 JSON values, not one membench result$
$t/arrays|$F/stream.json|A \\($t/arrays\\): '$t/arrays/step-001.json' is a JSON array, not a membench result$
$F/stream.json|$t/textbench|step-001.json' bench is a JSON string, not a bench document$
EOF
}
