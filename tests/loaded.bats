#!/usr/bin/env bats
# $stderr is set by bats' run.
# shellcheck disable=SC2154
# bench latency --load-threads: the loaded-latency rows (one idle row and
# one row per delay, per read:write mix), the JSON against the text, the
# doubling point, CPU placement, and refused input.  Rates are never
# compared with a number: the machine running the suite may be busy.

load test_helper

# One run shared by the tests that only read it: two mixes, two delays,
# text on stdout and the same run in JSON.
setup_file() {
	load test_helper
	if ! "$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null; then
		return 0
	fi
	"$BENCH" latency --min 512K --max 1M --load-threads 1 --rw 1:0,2:1 \
		--delays 0,1000 --json-file "$BATS_FILE_TMPDIR/run.json" \
		>"$BATS_FILE_TMPDIR/run.txt"
}

needs_openmp() {
	"$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null ||
		skip "this bench has no OpenMP"
}

refused() { refused_by latency "$@"; }

@test "one row per mix: idle first, then each delay, largest first" {
	needs_openmp
	jq -e '
		(.loaded.rows | map(.rw)) == ["1:0", "1:0", "1:0", "2:1", "2:1", "2:1"] and
		(.loaded.rows | map(.idle)) == [true, false, false, true, false, false] and
		(.loaded.rows | map(.delay)) == [null, 1000, 0, null, 1000, 0] and
		(.loaded.curves | map(.rw)) == ["1:0", "2:1"] and
		(.loaded.curves | map([.reads, .writes])) == [[1, 0], [2, 1]]' \
		"$BATS_FILE_TMPDIR/run.json" >/dev/null
}

@test "the idle row ran no load thread and moved nothing; loaded rows moved bytes, or bench names the row whose load never ran" {
	needs_openmp
	jq -e '
		(.loaded.rows | map(select(.idle)) |
			all(.threads == 0 and .load_mbs == 0 and .load_moved == false and
				.ns > 0 and .windows > 0)) and
		(.loaded.rows | map(select(.idle | not)) |
			all(.threads == 1 and .ns > 0 and .windows > 0 and
				.load_moved == (.load_mbs > 0)))' \
		"$BATS_FILE_TMPDIR/run.json" >/dev/null
	# a busy machine may give the load threads no CPU time in a row's
	# timing: the text names exactly the rows the JSON marks
	local text json
	text=$(sed -n 's/^# mix \([0-9]*:[0-9]*\) delay \([0-9]*\): the load threads finished no 16 KiB chunk while the chase was timed .*; the doubling point leaves the row out$/\1 \2/p' \
		"$BATS_FILE_TMPDIR/run.txt")
	json=$(jq -r '.loaded.rows[] | select((.idle | not) and (.load_moved | not)) | "\(.rw) \(.delay)"' \
		"$BATS_FILE_TMPDIR/run.json")
	assert_equal "$text" "$json"
}

@test "each row's bandwidth is the bytes its load threads moved over its time" {
	needs_openmp
	# bytes come in whole chunks of the mix, so a rate that was not
	# counted from the threads' bytes cannot pass
	jq -e '
		.loaded as $l | $l.rows | all(. as $r |
			($l.curves[] | select(.rw == $r.rw) | .chunk_bytes) as $chunk |
			$chunk > 0 and $r.seconds > 0 and $r.load_bytes % $chunk == 0 and
			$r.load_moved == ($r.load_bytes > 0) and
			(if $r.idle then $r.load_bytes == 0 else true end) and
			(($r.load_bytes / $r.seconds / 1e6 - $r.load_mbs) | fabs) <=
				1e-6 * ($r.load_mbs + 1))' \
		"$BATS_FILE_TMPDIR/run.json" >/dev/null
}

@test "the text rows are the JSON rows" {
	needs_openmp
	local text json
	text=$(awk '$1 == "#" && $2 ~ /^[0-9]+:[0-9]+$/ && NF == 7 {
		print $2, $3, $4, $5, $7 }' "$BATS_FILE_TMPDIR/run.txt")
	json=$(jq -r '.loaded.rows[] | [.rw, (if .idle then "idle" else .delay end),
		.ns, .ns_min, .load_mbs] | @tsv' \
		"$BATS_FILE_TMPDIR/run.json" |
		awk -F'\t' '{ printf "%s %s %.2f %.2f %.1f\n", $1, $2, $3, $4, $5 }')
	[ -n "$text" ]
	[ "$text" = "$json" ] || {
		printf 'text:\n%s\njson:\n%s\n' "$text" "$json"
		return 1
	}
}

@test "each row's minimum window is at most its median; the idle rows are compared with the sweep's point at the same size" {
	needs_openmp
	jq -e '
		(.loaded.rows | all(.ns_min > 0 and .ns_min <= .ns)) and (.curve | length) > 1 and
		.loaded.sweep_ns == .curve[-1].ns and .curve[-1].bytes == .loaded.bytes' \
		"$BATS_FILE_TMPDIR/run.json" >/dev/null
	# the text's comparison lines: one per idle row, its figures the JSON's
	local text json
	text=$(sed -n 's/^# idle row \([0-9:]*\) against the sweep at 1 MiB: \([0-9.]*\) ns against \([0-9.]*\) ns (\([-+][0-9.]*\)%)$/\1 \2 \3 \4/p' \
		"$BATS_FILE_TMPDIR/run.txt")
	json=$(jq -r '.loaded as $l | $l.rows[] | select(.idle) |
		[.rw, .ns, $l.sweep_ns, 100 * (.ns / $l.sweep_ns - 1)] | @tsv' \
		"$BATS_FILE_TMPDIR/run.json" |
		awk -F'\t' '{ printf "%s %.2f %.2f %+.1f\n", $1, $2, $3, $4 }')
	[ "$(wc -l <<<"$text")" -eq 2 ]
	[ "$text" = "$json" ] || {
		printf 'text:\n%s\njson:\n%s\n' "$text" "$json"
		return 1
	}
}

@test "the doubling point follows the rows: interpolated between the straddling rows, or not reached" {
	needs_openmp
	# For each mix, among its rows whose load ran (a busy machine may give
	# a row's load threads no CPU time): not reached means every loaded
	# row stays below twice idle; reached means the row named by
	# double_by_delay is the first at or above it, and the bandwidth lies
	# between its neighbours'.
	jq -e '
		.loaded as $l | $l.curves | all(. as $c |
			($l.rows | map(select(.rw == $c.rw and (.idle or .load_moved)))) as $rows |
			($rows[0].ns == $c.idle_ns) and $c.loaded_rows == ($rows | length) - 1 and
			(($rows | map(select(.idle | not)) |
				map(.ns >= 2 * $c.idle_ns) | index(true)) as $i |
			if $i == null then
				($c.doubles | not) and $c.double_mbs == null and
				$c.double_by_delay == null
			else
				($rows[$i + 1]) as $hi | ($rows[$i]) as $lo |
				$c.doubles and $c.double_by_delay == $hi.delay and
				$c.double_after_delay == $lo.delay and
				$c.double_mbs >= ([$lo.load_mbs, $hi.load_mbs] | min) and
				$c.double_mbs <= ([$lo.load_mbs, $hi.load_mbs] | max)
			end))' "$BATS_FILE_TMPDIR/run.json" >/dev/null
	# and the text says the same per mix
	run grep -c '^# mix [0-9]*:[0-9]*: idle [0-9.]* ns; latency doubles' \
		"$BATS_FILE_TMPDIR/run.txt"
	assert_output 2
}

@test "the chase runs at --max on its own CPU; the load thread on another" {
	needs_openmp
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	jq -e '.loaded.bytes == 1048576 and .loaded.shared == "none" and
		(.loaded.load_cpus | length) == 1 and
		.loaded.load_cpus[0] != .loaded.chase_cpu' \
		"$BATS_FILE_TMPDIR/run.json" >/dev/null
	grep -q '^# loaded latency at 1 MiB: chase on CPU [0-9]*, 1 load thread(s) on CPU [0-9]*$' \
		"$BATS_FILE_TMPDIR/run.txt"
}

@test "--load-threads all: one per CPU besides the chase's" {
	needs_openmp
	local cpus
	cpus=$(nproc)
	run --separate-stderr "$BENCH" latency --min 1M --max 1M \
		--load-threads all --rw 1:1 --delays 0 --json
	assert_success
	printf '%s\n' "$output" | jq -e --argjson n "$((cpus > 1 ? cpus - 1 : 1))" '
		.loaded.load_threads == $n and (.loaded.load_cpus | length) == $n and
		(.loaded.rows | map(.rw)) == ["1:1", "1:1"]' >/dev/null
	if [ "$cpus" -gt 1 ]; then
		printf '%s\n' "$output" | jq -e '.loaded.shared == "none" and
			(.loaded.chase_cpu as $c | .loaded.load_cpus | all(. != $c))' >/dev/null
	fi
}

@test "one CPU: the load thread shares the chase's CPU, with a warning" {
	needs_openmp
	need taskset
	run --separate-stderr taskset -c 0 "$BENCH" latency --min 1M --max 1M \
		--load-threads 1 --rw 1:0 --delays 0 --json
	assert_success
	printf '%s\n' "$output" | jq -e '.loaded.shared == "chase" and
		.loaded.load_cpus[0] == .loaded.chase_cpu and
		(.warnings | any(test("share it with the chase")))' >/dev/null
}

@test "more load threads than other CPUs: they share, with a warning" {
	needs_openmp
	need taskset
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	run --separate-stderr taskset -c 0,1 "$BENCH" latency --min 1M --max 1M \
		--load-threads 2 --rw 1:0 --delays 0 --json
	assert_success
	printf '%s\n' "$output" | jq -e '.loaded.shared == "load" and
		(.loaded.chase_cpu as $c | .loaded.load_cpus | all(. != $c)) and
		(.warnings | any(test("load threads share CPUs")))' >/dev/null
}

@test "4:2 is read as 2:1" {
	needs_openmp
	run --separate-stderr "$BENCH" latency --min 1M --max 1M \
		--load-threads 1 --rw 4:2 --delays 0 --json
	assert_success
	printf '%s\n' "$output" | jq -e '(.loaded.curves | map(.rw)) == ["2:1"]' \
		>/dev/null
}

@test "bad --rw lists are refused" {
	local bad
	for bad in 0:0 2 2: :1 2:x 9:1 1:9 -1:0 "" "1:0," ,1:0 1:0,,2:1 \
		1:0,2:1,1:0 2:1,4:2 1:0,1:1,1:2,1:3,1:4,1:5,1:6,1:7,2:1; do
		refused --load-threads 1 --rw "$bad"
		[[ "$stderr" == *--rw* ]] || { echo "--rw '$bad': $stderr"; return 1; }
	done
}

@test "bad --delays lists are refused" {
	local bad many
	many=$(seq -s, 0 32)
	for bad in -5 x 1.5 "" 5,5 1,,2 ,1 "1," 100000001 "$many"; do
		refused --load-threads 1 --delays "$bad"
		[[ "$stderr" == *--delays* ]] || { echo "--delays '$bad': $stderr"; return 1; }
	done
}

@test "--rw or --delays without --load-threads is refused" {
	refused --rw 2:1
	[[ "$stderr" == *"add --load-threads"* ]]
	refused --delays 0
	[[ "$stderr" == *"add --load-threads"* ]]
	refused --load-threads 0 --rw 1:0
	refused --load-threads many
	[[ "$stderr" == *--load-threads* ]]
}

@test "without --max the loaded chase reaches STREAM's rule over the reported LLC" {
	local root="$BATS_TEST_TMPDIR/sys"
	fake_llc "$root" 128M 0
	# 4 x 128 MiB = 512 MiB, past the 256 MiB default
	MEMBENCH_SYSFS=$root run --separate-stderr "$BENCH" latency --load-threads 1 --plan
	assert_success
	assert_line latency_max_bytes=536870912
	# --max given: it stands; no load threads: the default stands
	MEMBENCH_SYSFS=$root run --separate-stderr "$BENCH" latency --load-threads 1 --max 64M --plan
	assert_line latency_max_bytes=67108864
	MEMBENCH_SYSFS=$root run --separate-stderr "$BENCH" latency --plan
	assert_line latency_max_bytes=268435456
}

