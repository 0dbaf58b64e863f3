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
	"$BENCH" latency --max 1M --json | jq "$PIN" >"$d/latency.json"
	"$BENCH" all -s 100000 -n 5 --max 1M --json >"$d/all.json"
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

@test "harness runs: a failed step is skipped with a note, other params are matched by name" {
	t=$BATS_TEST_TMPDIR
	harness_dir "$t/A" "$F/stream.json" "$F/stream.json"
	jq '.params = {Threads: 2}' "$t/A/step-001.json" >"$t/x" && mv "$t/x" "$t/A/step-001.json"
	jq '.params = {Threads: 4}' "$t/A/step-002.json" >"$t/x" && mv "$t/x" "$t/A/step-002.json"
	cp -r "$t/A" "$t/B"
	jq '.status = "validation failed" | .exit_status = 1' "$t/B/step-002.json" >"$t/x" && mv "$t/x" "$t/B/step-002.json"
	run "$COMPARE" "$t/A" "$t/B"
	assert_success
	assert_line 'compare: B: skipping step-002: validation failed'
	assert_line --regexp '^\| Threads=2 \| Copy \| .* \| within noise \|'
	refute_line --regexp '^\| Threads=4 \| Copy'
	assert_line 'Only in A: Threads=4: Copy; Threads=4: Scale; Threads=4: Add; Threads=4: Triad'
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
}

@test "bad input: one line, exit 2" {
	echo 'not json {' >"$BATS_TEST_TMPDIR/bad.json"
	mkdir "$BATS_TEST_TMPDIR/empty"
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
EOF
}
