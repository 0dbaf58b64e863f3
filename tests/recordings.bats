#!/usr/bin/env bats
# $stderr is set by bats' run.
# shellcheck disable=SC2154
# Real runs from machines the suite never runs on, replayed: bench
# latency --curve-in RECORD reads bench's own JSON record, analyses it
# again with the record's caches, pages, clock and probes, and measures
# nothing.  Each machine's records (tests/recordings/MACHINE/) are held
# to its truth.json by tests/recordings/check; no test here runs a sweep.

load test_helper

# outside the fast tier, as the full tier runs its files: a test at a time
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

REC="$BATS_TEST_DIRNAME/recordings"
ZEN3="$REC/amd-zen3-kvm/4k-5.json"

# without FIELD...: the Zen 3 record with jq's del() of each path
without() {
	local f="$BATS_TEST_TMPDIR/without.json"
	jq "del($1)" "$ZEN3" >"$f"
	echo "$f"
}

@test "every recording replays, and its summary holds to its machine's truth" {
	run "$REC/check" "$BENCH"
	echo "$output"
	assert_success
	# every record was scored, and every machine's memory once for each
	# TLB-local window its records were measured with
	local d windows=0
	for d in "$REC"/*/; do
		windows=$((windows + $(jq -s 'map(.probes.local_window_bytes) | unique | length' "$d"/*-[0-9]*.json)))
	done
	[ "$windows" -ge "$(find "$REC" -name truth.json | wc -l)" ]
	[ "$(grep -c '^ok   [a-z0-9-]*, [0-9]* KiB TLB-local window: memory medians' <<<"$output")" = "$windows" ]
	[ "$(grep -c '^ok   [a-z0-9-]*/' <<<"$output")" = "$(find "$REC" -name '*-[0-9]*.json' | wc -l)" ]
	# the records truth.json calls disturbed, and only they, were scored
	# by the levels bench still named certain
	[ "$(grep -c '^ok   [a-z0-9-]*/[a-z0-9-]*: .*; disturbed (bench) from [0-9]* to [0-9]* KiB: L2, L3 not scored, uncertain across it$' <<<"$output")" = \
		"$(jq -s 'map(.disturbed // {} | length) | add' "$REC"/*/truth.json)" ]
	[ "$(grep -c 'disturbed (bench)' <<<"$output")" -ge 4 ]
}

@test "a replay prints a live run's summary: the stride lines, the clock, the OS's caches, and the JSON's summary and probes" {
	run --separate-stderr "$BENCH" latency --curve-in "$ZEN3"
	assert_success
	assert_line --index 0 '# membench 0.1.0 latency: a replay of a record, nothing measured: pattern random, alloc mmap, 256 MiB on 4 KiB pages (0% huge), chase on CPU 0'
	assert_line --regexp '^# clock: 3[0-9]{3} MHz, measured: '
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB .* \| DRAM [0-9.]+ ns'
	assert_line --regexp '^# stride=64: TLBs \(a line a page, 4 KiB pages, seen to 65536 of them, 256 MiB\): L1 TLB '
	assert_line --regexp '^# stride=64: memory: [0-9.]+ ns [0-9.]+ cyc of its own \(the TLB-local chase.s median over its memory plateau, [0-9]+ points from [0-9.]+ MiB\); at 256 MiB it reads [0-9.]+ ns, the full random chase [0-9.]+ ns there'
	assert_line '# OS-reported caches: L1d 32 KiB | L2 512 KiB | L3 32 MiB'
	run --separate-stderr "$BENCH" latency --curve-in "$ZEN3" --json
	assert_success
	# the record's run, curve and probes' points come through as they
	# were; the summary is this build's
	jq -e --slurpfile r "$ZEN3" '.mode == "latency" and .replay.source != null and
		.replay.command == $r[0].command and .system == $r[0].system and
		.run == $r[0].run and .curve == $r[0].curve and .clock == $r[0].clock and
		(.probes.tlb_local | map(del(.first_ns))) == ($r[0].probes.tlb_local | map(del(.first_ns))) and
		(.probes.tlb_local | map(.first_ns)) == ($r[0].probes.tlb_local | map(.first_ns)) and
		(.summary | length) == 1 and (.summary[0].levels | length) >= 3 and
		.summary[0].memory.reached == true' <<<"$output" >/dev/null
}

@test "the latency part of a bench all record replays as the latency record does" {
	jq '{schema, mode: "all", command, build, system,
		stream: {}, latency: {run, clock, curve, summary, probes, mlp, loaded},
		warnings}' "$ZEN3" >"$BATS_TEST_TMPDIR/all.json"
	run --separate-stderr "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/all.json" --json
	assert_success
	local all=$output
	run --separate-stderr "$BENCH" latency --curve-in "$ZEN3" --json
	[ "$(jq -c .summary <<<"$all")" = "$(jq -c .summary <<<"$output")" ]
	jq -e '.replay.mode == "all"' <<<"$all" >/dev/null
}

@test "a record that lacks a field the analysis reads: one line naming it, exit 2, nothing printed" {
	local path f
	for path in .run.max_bytes .run.pattern .system.caches '.curve[3].ns' \
		.probes.page_bytes .probes.local_window_bytes '.probes.tlb_local[0].first_ns' \
		.clock.mhz .system.cache_line; do
		f=$(without "$path")
		run --separate-stderr "$BENCH" latency --curve-in "$f"
		[ "$status" -eq 2 ]
		[ -z "$output" ]
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		# the message names the field as the record spells it
		[[ "$stderr" == *"the record has no ${path#.}"* ]] || {
			echo "$path: $stderr"
			return 1
		}
	done
	# a record whose probes did not run needs the base page, which
	# records before the replay did not carry
	jq '.probes = null' "$ZEN3" >"$BATS_TEST_TMPDIR/noprobes.json"
	run --separate-stderr "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/noprobes.json"
	[ "$status" -eq 2 ]
	[ "$stderr" = "bench: --curve-in $BATS_TEST_TMPDIR/noprobes.json: the record has no run.base_page_bytes (not a bench latency record, or one from a bench that did not write it)" ]
	jq '.probes = null | .run.base_page_bytes = 4096' "$ZEN3" >"$BATS_TEST_TMPDIR/noprobes.json"
	run --separate-stderr "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/noprobes.json"
	assert_success
	assert_line --regexp '^# stride=64: L1d '
}

@test "bad records: not JSON, the wrong figures, another mode, a replay's own output: one line, exit 2" {
	local f="$BATS_TEST_TMPDIR/bad.json"
	check_bad() {
		run --separate-stderr "$BENCH" latency --curve-in "$f"
		[ "$status" -eq 2 ] && [ -z "$output" ] && [ "$(wc -l <<<"$stderr")" -eq 1 ] &&
			[[ "$stderr" == *"$1"* ]] || { echo "want '$1': $stderr"; return 1; }
	}
	head -c 3000 "$ZEN3" >"$f"
	check_bad "not JSON at byte 3000: "
	printf '{"mode": "latency", "a": [1, 2,]}' >"$f"
	check_bad "not JSON at byte 31: no JSON value here"
	printf '{"mode": "latency", "a": 01}' >"$f"
	check_bad "a number not written as JSON writes one"
	{ printf '{"mode": "latency", "a": '; printf '%0.s[' $(seq 40); } >"$f"
	check_bad "nested too deep"
	printf '{"mode": "stream"}' >"$f"
	check_bad "a record of bench stream, which has no latency curve"
	jq '.curve[5].ns = -1' "$ZEN3" >"$f"
	check_bad "curve[5].ns is -1, not a latency in ns"
	jq '.curve[5].bytes = .curve[4].bytes' "$ZEN3" >"$f"
	check_bad "curve[5].bytes does not rise from the point before"
	jq '.run.strides = [128]' "$ZEN3" >"$f"
	check_bad "curve[0].stride is none of run.strides"
	jq '.run.pattern = "zigzag"' "$ZEN3" >"$f"
	check_bad 'run.pattern "zigzag" is no pattern bench knows'
	jq '.system.caches = "many"' "$ZEN3" >"$f"
	check_bad "system.caches is a string, not an array"
	"$BENCH" latency --curve-in "$ZEN3" --json >"$f"
	check_bad "a replay's output, not a record"
	# the flags a record answers itself are refused with one
	run --separate-stderr "$BENCH" latency --curve-in "$ZEN3" --caches 32K,512K
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--caches: $ZEN3 is a bench record, which holds its own"* ]]
}

@test "memory's own latency is the median of the TLB-local chase's whole memory plateau, not of its last three points" {
	# the Zen 3 guest's 4k-5: its last three points read 94, 91 and 100 ns
	run --separate-stderr "$BENCH" latency --curve-in "$ZEN3" --json
	assert_success
	jq -e '.summary[0].memory as $m |
		[.probes.tlb_local[] | select(.bytes >= $m.from_bytes) | .ns] as $p |
		def med: sort | if length % 2 == 1 then .[length / 2 | floor]
			else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		$m.reached and ($p | length) == $m.points and $m.points >= 10 and
		($m.ns - ($p | med) | fabs) < 1e-6 and
		($m.tlb_local_tail_ns - (.probes.tlb_local[-3:] | map(.ns) | med) | fabs) < 1e-6 and
		($m.ns - $m.tlb_local_tail_ns | fabs) > 1' <<<"$output" >/dev/null
}

@test "a climbing stretch gives up its number before a flat one: the rise out of the L2 is L2+?, the flat L3 share stays L3" {
	# the Intel guest's thp-5: its L2 leaves by degrees from 1.1 to 3.4
	# MiB, the climb's middle (10 ns) a stretch of its own; the L3 share
	# is flat at 17 ns to 20 MiB, and the OS reports three data caches
	run --separate-stderr "$BENCH" latency --curve-in "$REC/intel-f6m167-kvm/thp-5.json" --json
	assert_success
	jq -e '[.summary[0].levels[] | {name, certain}] ==
		[{name: "L1d", certain: true}, {name: "L2", certain: true},
		 {name: "L2+", certain: false}, {name: "L3", certain: true},
		 {name: "DRAM", certain: true}]' <<<"$output" >/dev/null ||
		fail "levels: $(jq -c '[.summary[0].levels[] | {name, certain, ns}]' <<<"$output")"
	l3=$(jq '.summary[0].levels[] | select(.name == "L3") | .ns' <<<"$output")
	awk -v n="$l3" 'BEGIN { exit !(n > 15 && n < 20) }'
}

@test "a run disturbed longer than its re-timings says so once, in text and JSON, and names no level certain on the climb into the disturbance" {
	# the Intel guest's hugetlb1g-2: 10 re-timed points of the TLB-local
	# chase read 1.3-2.8 times from their first readings, and its curve
	# still falls 1.44 times (under the 1.5 that re-times a point, so no
	# fall is said); the L2 left early, at 756 KiB, on the climb into it
	local f="$REC/intel-f6m167-kvm/hugetlb1g-2.json"
	run --separate-stderr "$BENCH" latency --curve-in "$f" --json
	assert_success
	jq -e '.summary[0] as $s | $s.disturbed.points_apart == 10 and
		$s.disturbed.from_bytes < 2097152 and $s.disturbed.to_bytes > 4194304 and
		([$s.notes[] | select(test("^disturbed: 10 TLB-local points timed again read over 1.3 times from their first, and the chase still falls so from [0-9.]+ [KM]iB to [0-9.]+ MiB; no level ending there, or climbing into it, is certain$"))] | length) == 1 and
		([$s.notes[] | select(test("still falls from"))] | length) == 0 and
		($s.levels[] | select(.name == "L1d") | .certain and (.disturbed | not)) and
		($s.levels[] | select(.name == "L2") | (.certain | not) and .disturbed and .boundary_bytes < 1048576) and
		([$s.levels[] | select(.certain == true and .name != "DRAM")] | map(.name)) == ["L1d"]' <<<"$output" >/dev/null ||
		fail "$(jq -c '.summary[0] | {disturbed, notes, levels: [.levels[] | {name, certain, disturbed, boundary_bytes}]}' <<<"$output")"
	run --separate-stderr "$BENCH" latency --curve-in "$f"
	assert_success
	[ "$(grep -c '^# stride=64: disturbed: ' <<<"$output")" = 1 ]
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB .* \| L2\? 756.1 KiB '
	# a clean record of the same machine and pages: no word of it
	run --separate-stderr "$BENCH" latency --curve-in "$REC/intel-f6m167-kvm/hugetlb1g-10.json" --json
	assert_success
	jq -e '.summary[0].disturbed == null and ([.summary[0].levels[] | select(.disturbed)] | length) == 0 and
		([.summary[0].notes[] | select(test("^disturbed: "))] | length) == 0' <<<"$output" >/dev/null
}

@test "memory read with a window of more than half the L1 TLB the run measured is said to be not TLB-local; a window inside one page always is" {
	local d="$REC/intel-f6m167-kvm" f want
	# 4k-1: a 64-page window, 99 L1 TLB entries measured; 4k-10: 32
	# pages; hugetlb2m-1: 64 base pages inside one 2 MiB page
	for f in 4k-1:false 4k-10:true hugetlb2m-1:true "../amd-zen3-kvm/4k-5:false"; do
		want=${f##*:}
		run --separate-stderr "$BENCH" latency --curve-in "$d/${f%:*}.json" --json
		assert_success
		jq -e --argjson want "$want" '.summary[0] | .memory.reached and .memory.tlb_local == $want and
			([.notes[] | select(test("^memory.s own latency is not TLB-local by bench.s own rule: the chase.s window of 64 pages of 4 KiB is more than half the [0-9]+-entry L1 TLB this run measured$"))] | length) == (if $want then 0 else 1 end)' <<<"$output" >/dev/null ||
			fail "$f: $(jq -c '.summary[0] | {memory, notes}' <<<"$output")"
	done
	run --separate-stderr "$BENCH" latency --curve-in "$d/4k-1.json"
	assert_line --regexp "^# stride=64: memory's own latency is not TLB-local by bench's own rule: the chase's window of 64 pages of 4 KiB is more than half the 99-entry L1 TLB this run measured$"
}
