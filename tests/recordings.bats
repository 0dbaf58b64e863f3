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
	# every machine and every record was scored
	[ "$(grep -c '^ok   [a-z0-9-]*: memory medians' <<<"$output")" = "$(find "$REC" -name truth.json | wc -l)" ]
	[ "$(grep -c '^ok   [a-z0-9-]*/' <<<"$output")" = "$(find "$REC" -name '*-[0-9]*.json' | wc -l)" ]
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
