#!/usr/bin/env bats
# $stderr is set by bats' run.
# shellcheck disable=SC2154
# The latency summary read from stored curves (--curve-in, nothing is
# measured): scored against real published curves (tests/fixtures/latency,
# truth.tsv), and each of its rules on a synthetic curve that breaks when
# the rule does.

load test_helper

FIX="$BATS_TEST_DIRNAME/fixtures"

# The scorer's table and status, once for the file's two corpus tests.
setup_file() {
	local rc=0
	"$BATS_TEST_DIRNAME/fixtures/latency/score" "$BENCH" \
		>"$BATS_FILE_TMPDIR/score.md" 2>&1 || rc=$?
	echo "$rc" >"$BATS_FILE_TMPDIR/score.rc"
}

# summary FILE [ARGS...]: bench's text summary of a stored curve.
summary() {
	run --separate-stderr "$BENCH" latency --curve-in "$@"
	assert_success
}

@test "corpus: every real curve's summary agrees with what its source documents, or is a known miss" {
	cat "$BATS_FILE_TMPDIR/score.md"
	[ "$(cat "$BATS_FILE_TMPDIR/score.rc")" = 0 ]
	# one row a fixture, none skipped
	[ "$(grep -c '^| [a-z0-9.-]*\.txt |' "$BATS_FILE_TMPDIR/score.md")" -eq \
		"$(grep -c '^[a-z0-9]' "$FIX/latency/truth.tsv")" ]
}

@test "corpus: docs/latency.md shows the scorer's table as it is now" {
	local doc output
	output=$(cat "$BATS_FILE_TMPDIR/score.md")
	doc=$(sed -n '/^<!-- latency-score:begin -->$/,/^<!-- latency-score:end -->$/p' \
		"$MEMBENCH_ROOT/docs/latency.md" | sed '1d;$d')
	[ -n "$doc" ]
	[ "$doc" = "$output" ] || {
		diff <(echo "$doc") <(echo "$output")
		fail "docs/latency.md's table differs from tests/fixtures/latency/score"
	}
}

@test "DRAM is the plateau the curve ends on: a 44 ns L3 stays a cache, TLB rises are DRAM's steps" {
	summary "$FIX/curve-l3-44ns.txt"
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB 2 ns \| L2\? 1\.5 MiB 6\.[0-9]+ ns \| L3\? 5\.0 MiB 44\.[0-9] ns \| DRAM 1[23][0-9] ns from 5\.[0-9] MiB \(14[0-9] ns from 1[0-9]\.[0-9] MiB\) \(16[0-9] ns from [0-9.]+ MiB\), 16[0-9] ns at 256 MiB$'
	run "$BENCH" latency --curve-in "$FIX/curve-l3-44ns.txt" --json
	jq -e '.summary[0].levels | map(.name) == ["L1d", "L2", "L3", "DRAM"] and
		(.[3].steps | length) == 2' <<<"$output" >/dev/null
}

@test "the warning under the summary is true: DRAM latency is reached where DRAM's plateau starts" {
	# the OS (a guest's view of its host) reports a 300 MiB L3; the curve
	# leaves its 44 ns L3 at 5 MiB and memory starts right after
	summary "$FIX/curve-l3-44ns.txt" --caches 48K,2M,300M
	assert_line '# stride=64: L3: the curve leaves this level at 5.0 MiB but the OS reports 300 MiB'
	assert_line --regexp '^# stride=64: DRAM latency is reached at 5\.[0-9] MiB, inside the OS-reported last-level cache of 300 MiB$'
	refute_line --partial 'no plateau for it'
}

@test "fewer caches than the OS reports: said, and memory keeps its name" {
	summary "$FIX/curve-no-l3.txt" --caches 48K,1M,32M
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB 1\.2 ns \| L2 1\.0 MiB 4 ns \| DRAM (99|100)[.0-9]* ns from 1\.7 MiB, 10[01][.0-9]* ns at 256 MiB$'
	assert_line '# stride=64: the OS reports L3 32 MiB but the curve shows no plateau for it'
	# each level is matched with the OS cache its size agrees with
	run "$BENCH" latency --curve-in "$FIX/curve-no-l3.txt" --caches 48K,1M,32M --json
	jq -e '.summary[0].levels[:2] | map(.os_bytes) == [49152, 1048576] and
		all(.agrees)' <<<"$output" >/dev/null
}

# loglin X0 Y0 X1 Y1...: a curve at half octaves from 4 KiB to 256 MiB
# through the points (log2 KiB, ns), straight on log axes between them.
loglin() {
	echo '"stride=64'
	awk -v knots="$*" 'BEGIN {
		n = split(knots, k, " ")
		for (x = 2; x <= 18.001; x += 0.5) {
			for (i = 3; i < n && x > k[i]; i += 2) ;
			f = (x - k[i - 2]) / (k[i] - k[i - 2])
			if (f < 0) f = 0
			if (f > 1) f = 1
			printf "%.5f %.3f\n", 2 ^ x / 1024,
				exp(log(k[i - 1]) + f * (log(k[i + 1]) - log(k[i - 1])))
		}
	}'
}

@test "a cache that climbs across its size is still a level: the stretch climbs less steeply than the rises around it" {
	# an L2 climbing 5 to 12 ns from 64 KiB to 1 MiB, 11% a point, so no
	# two neighbours are within 10% of each other
	loglin 5 1.5 6 5 10 12 11.5 40 14 40 15.5 120 18 120 \
		>"$BATS_TEST_TMPDIR/climb.txt"
	summary "$BATS_TEST_TMPDIR/climb.txt" --caches 32K,1M,16M
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB 1\.5 ns \| L2 1\.[0-9] MiB [0-9.]+ ns \| L3 [0-9.]+ MiB 40 ns \| DRAM 120 ns from [0-9.]+ MiB, 120 ns at 128-256 MiB$'
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/climb.txt" --caches 32K,1M,16M --json
	jq -e '.summary[0].levels | map(.name) == ["L1d", "L2", "L3", "DRAM"] and
		(.[:3] | map(.os_bytes) == [32768, 1048576, 16777216] and all(.agrees)) and
		.[1].ns > 7 and .[1].ns < 10' <<<"$output" >/dev/null
}

@test "a sweep past twice the last-level cache ends in memory even while it still climbs" {
	# memory climbs 13% a point from 16 MiB to the end (256 MiB, 32
	# times the 8 MiB L3): no plateau, and no cache is that large
	loglin 5 1.5 6 5 10 5 11 30 13 30 14 100 18 280 >"$BATS_TEST_TMPDIR/tail.txt"
	summary "$BATS_TEST_TMPDIR/tail.txt" --caches 32K,1M,8M
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB 1\.5 ns \| L2 [0-9.]+ MiB 5 ns \| L3 [0-9.]+ MiB 30 ns \| DRAM 2[0-9][0-9] ns from 128 MiB, 2[0-9][0-9] ns at 128-256 MiB$'
	assert_line --regexp '^# stride=64: DRAM still rising: the sweep reaches 32 times the OS-reported last-level cache of 8 MiB'
	refute_output --partial 'DRAM not reached'
	# the figure is the tail's, within 15% of the last point
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/tail.txt" --caches 32K,1M,8M --json
	jq -e '.summary[0].levels[-1] | .name == "DRAM" and .ns > 0.85 * 280' <<<"$output" >/dev/null
	# without the OS's caches nothing says no cache holds the tail
	summary "$BATS_TEST_TMPDIR/tail.txt"
	assert_line --regexp '^# stride=64: DRAM not reached'
}

@test "the summary ends at the tail: memory still climbing inside its last stretch is quoted where the curve ends, with its size" {
	# 8 points an octave to 2 GiB: memory flat at 150 ns to 512 MiB, then
	# 10% slower by 2 GiB (page walks past 1 GiB on 4 KiB pages), all
	# within one stretch, whose median is 150 ns
	awk 'BEGIN { print "\"stride=64"; for (k = 0; k <= 152; k++) {
		s = 4096 * 2 ^ (k / 8)
		if (s <= 32768) v = 1.2; else if (s <= 1048576) v = 4
		else if (s <= 8388608) v = 14; else if (s <= 536870912) v = 150
		else v = 150 * (s / 536870912) ^ 0.068
		printf "%.5f %.3f\n", s / 1048576, v } }' >"$BATS_TEST_TMPDIR/climb-tail.txt"
	summary "$BATS_TEST_TMPDIR/climb-tail.txt" --caches 32K,1M,8M
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB 1\.2 ns \| L2 [0-9.]+ MiB 4 ns \| L3 [0-9.]+ MiB 14 ns \| DRAM 150 ns from [0-9.]+ MiB, 164 ns at 2 GiB$'
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/climb-tail.txt" --caches 32K,1M,8M --json
	# the tail is the median of the last three points, not the stretch's
	jq -e '.summary[0] | .levels[-1].ns == 150 and (.levels[-1].steps | length) == 0 and
		.tail.ns == 163.86 and (.tail.bytes / 1048576 | round) == 2048 and
		.tail.points == 3 and (.tail.from_bytes / 1048576 | floor) == 1722' \
		<<<"$output" >/dev/null
	# one wild point at the end does not move it
	sed '$s/ .*/ 250.000/' "$BATS_TEST_TMPDIR/climb-tail.txt" >"$BATS_TEST_TMPDIR/wild.txt"
	summary "$BATS_TEST_TMPDIR/wild.txt" --caches 32K,1M,8M
	assert_line --regexp ', 164 ns at 2 GiB$'
	# with points spread wider than a quarter octave, the label spans them
	awk '!/^[0-9]/ || NR % 8 == 2' "$BATS_TEST_TMPDIR/climb-tail.txt" >"$BATS_TEST_TMPDIR/octave.txt"
	summary "$BATS_TEST_TMPDIR/octave.txt" --caches 32K,1M,8M
	assert_line --regexp '; 157 ns at 512 MiB-2 GiB$'
}

@test "a level the curve's own noise could as well hide or split is marked uncertain, in text and JSON; clear levels are not" {
	local zen=$FIX/latency/epyc-zen5-vm-random.txt
	# as stored, every level of the Zen 5 guest's curve is read alike
	# when its own point-to-point noise is drawn afresh; with its TLBs
	# named (Zen 5: 96 and 4096 entries), every level is certain
	run "$BENCH" latency --curve-in "$zen" --caches 48K,1M,32M --tlb 96,4096 --json
	jq -e '.summary[0].levels | length == 4 and
		all(.certain == true and .confidence >= 0.8)' <<<"$output" >/dev/null
	summary "$zen" --caches 48K,1M,32M --tlb 96,4096
	refute_output --partial '?'
	refute_output --partial 'uncertain'
	# without them, the L3 share's edge (4.6 MiB, where the OS says 32
	# MiB) is where a TLB could run out: named, not certain
	run "$BENCH" latency --curve-in "$zen" --caches 48K,1M,32M --json
	jq -e '.summary[0].levels | map(.certain) == [true, true, false, true] and
		.[2].could_be_tlb and .[2].confidence >= 0.8' <<<"$output" >/dev/null
	summary "$zen" --caches 48K,1M,32M
	assert_line --regexp '^# stride=0: L1d [^?]* \| L3\? 4\.6 MiB '
	assert_line '# stride=0: L3? could be a TLB'"'"'s reach, not a cache: its edge is where a TLB of 32-8192 4096-byte pages run out'
	# the same curve, each point off by up to 18% (a fixed pattern):
	# its L3 share reads as two levels, and the summary says it is unsure
	# of the first.  The second, the share's edge at 4.6 MiB, is read
	# alike in the readings whatever number they give it (matched by
	# edge, not by name), and is marked only because its edge could be a
	# TLB's
	awk '/^[0-9]/ { k++; printf "%s %.3f\n", $1, $2 * (1 + 0.03 * ((k * 31) % 13 - 6)); next }
		{ print }' "$zen" >"$BATS_TEST_TMPDIR/busy.txt"
	summary "$BATS_TEST_TMPDIR/busy.txt" --caches 48K,1M,32M
	assert_line --regexp '^# stride=0: L1d [0-9.]+ KiB [0-9.]+ ns \| L2\?? [^|]* \| L3\? 1\.6 MiB [0-9.]+ ns \| L4\? 4\.6 MiB [0-9.]+ ns \| DRAM '
	assert_line --regexp '^# stride=0: L3\? is uncertain: [0-9]+ of 32 readings of this curve with its own point-to-point noise drawn afresh name it alike \(its edge in them from [0-9.]+ [KM]iB to [0-9.]+ MiB\)$'
	refute_line --regexp '^# stride=0: L4\? is uncertain: '
	assert_line '# stride=0: L4? could be a TLB'"'"'s reach, not a cache: its edge is where a TLB of 32-8192 4096-byte pages run out'
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/busy.txt" --caches 48K,1M,32M --json
	local first=$output
	jq -e '.summary[0].levels | map(.name) == ["L1d", "L2", "L3", "L4", "DRAM"] and
		(.[2] | .certain == false and .confidence < 0.8) and
		(.[3] | .certain == false and .could_be_tlb and .confidence >= 0.8) and
		.[0].certain and .[4].certain' <<<"$output" >/dev/null
	# the readings are seeded: the same curve gets the same answer
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/busy.txt" --caches 48K,1M,32M --json
	[ "$(jq -c '[.summary[0].levels[].confidence]' <<<"$output")" = \
		"$(jq -c '[.summary[0].levels[].confidence]' <<<"$first")" ]
}

@test "an uncertain stretch in the middle of an edge takes no number: the real L3 above it stays L3" {
	# a gradual L2 edge (3.9 ns to 583 KiB, 6.5 ns to 1 MiB) below an L3
	# the reading is certain of (14 ns to 40 MiB; the TLBs named, so no
	# edge is doubted as one): the middle stretch ends within twice the
	# L2's edge, is not certain, and is named after the L2
	awk 'BEGIN { print "\"stride=64"; for (s = 512; s <= 268435456; s *= 2 ^ 0.125) { k++
		ns = s <= 49152 ? 1.1 : s <= 597000 ? 3.9 : s <= 1048576 ? 6.5 : s <= 41943040 ? 14 : 95
		printf "%.6f %.3f\n", s / 1048576, ns * (1 + 0.01 * ((k * 7) % 5 - 2)) } }' >"$BATS_TEST_TMPDIR/edge.txt"
	summary "$BATS_TEST_TMPDIR/edge.txt" --tlb 64,1536
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB [0-9.]+ ns \| L2 583\.1 KiB 3\.9 ns \| L2\+\? 980\.6 KiB 6\.47 ns \| L3 39\.7 MiB 14 ns \| DRAM 95 ns '
	assert_line '# stride=64: L2+? is uncertain: it ends within 2 times of where L2 ends, and no cache is that near the one below'
	refute_output --partial 'L4'
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/edge.txt" --tlb 64,1536 --json
	jq -e '.summary[0].levels | map(.name) == ["L1d", "L2", "L2+", "L3", "DRAM"] and
		map(.certain) == [true, true, false, true, true]' <<<"$output" >/dev/null
	# a real cache its readings only disagree on keeps its number: the
	# Kunpeng 920's L2, each point off by up to 18% in a fixed pattern
	awk '/^[0-9]/ { k++; printf "%s %.3f\n", $1, $2 * (1 + 0.03 * ((k * 31) % 13 - 6)); next }
		{ print }' "$FIX/latency/kunpeng920-membind3-seq.txt" >"$BATS_TEST_TMPDIR/kunpeng.txt"
	summary "$BATS_TEST_TMPDIR/kunpeng.txt" --pattern stride --caches 64K,512K,23040K
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB [0-9.]+ ns \| L2\? 443\.4 KiB [0-9.]+ ns \| L3 19\.6 MiB '
}

@test "a cache that ends within twice the size of the one below is uncertain: an L3 shared with other tenants leaving by degrees is no L4" {
	# the Zen 5 guest's TLB-local chase on a run whose L3 share reached
	# 16.7 MiB, then half-hit to 30.6 MiB (52.6 ns) before memory (95.3)
	awk 'BEGIN { for (s = 512; s <= 268435456; s *= 2 ^ 0.125) {
		ns = s <= 49152 ? 1.1 : s <= 921600 ? 3.9 : s <= 17511219 ? 12.8 : s <= 32086425 ? 52.6 : 95.3
		printf "%.6f %.3f\n", s / 1048576, ns } }' >"$BATS_TEST_TMPDIR/l4.txt"
	summary "$BATS_TEST_TMPDIR/l4.txt" --caches 48K,1M,32M --tlb 64
	assert_line --regexp '^# stride=0: L1d [^?|]* \| L2 [^?|]* \| L3 16\.7 MiB [^?|]* \| L4\? 30\.6 MiB 52\.6 ns \| DRAM 95\.3 ns '
	assert_line "# stride=0: L4? is uncertain: it ends within 2 times of where L3 ends, and no cache is that near the one below"
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/l4.txt" --caches 48K,1M,32M --tlb 64 --json
	jq -e '.summary[0].levels | map(.certain) == [true, true, true, false, true] and
		.[3].confidence >= 0.8 and (.[3].could_be_tlb | not)' <<<"$output" >/dev/null
	# the same stretch ending past twice the L3's edge is a level
	awk '{ if ($1 > 16.7 && $1 <= 40) $2 = 52.6; print }' \
		"$BATS_TEST_TMPDIR/l4.txt" >"$BATS_TEST_TMPDIR/l4-far.txt"
	summary "$BATS_TEST_TMPDIR/l4-far.txt" --caches 48K,1M,32M --tlb 64
	assert_line --regexp '^# stride=0: L1d [^?|]* \| L2 [^?|]* \| L3 16\.7 MiB [^?|]* \| L4 [34][0-9.]* MiB 52\.6 ns \| DRAM 95\.3 ns '
	refute_output --partial '?'
}

@test "--tlb: a rise at a named TLB's reach is a step inside the cache that ends where the OS's does; without --tlb no size rule guesses so" {
	# 1 ns to 16 KiB, 2.8 ns from 22.6 KiB (a list walk with a node a
	# page: 256 pages of 64 bytes run out of a 256-entry TLB), the L1d's
	# 64 KiB edge a 1.6 times rise after it
	loglin 4 1.0 4.5 2.8 6 2.8 6.5 4.5 10 4.5 11 16 14 16 15 90 18 90 \
		>"$BATS_TEST_TMPDIR/tlb.txt"
	summary "$BATS_TEST_TMPDIR/tlb.txt" --caches 64K,2M,16M --tlb 256,page=64
	assert_line --regexp '^# stride=64: L1d 76\.1 KiB 1 ns \(2\.8 ns from 22\.6 KiB\) \| L2 1\.2 MiB 4\.5 ns \| L3 19\.0 MiB 16 ns \| DRAM 90 ns from 32 MiB, 90 ns at 128-256 MiB$'
	# the caches alone no longer make the rise a step (the size rule
	# retired): it is a level's edge, and the disagreement is said
	summary "$BATS_TEST_TMPDIR/tlb.txt" --caches 64K,2M,16M
	assert_line --regexp '^# stride=64: L1d 19\.0 KiB 1 ns \| L2 76\.1 KiB 2\.8 ns \| '
	assert_line '# stride=64: L1d: the curve leaves this level at 19.0 KiB but the OS reports 64 KiB'
	# an OS cache the merged level would not end at explains nothing:
	# the rise stays a level's edge, though --tlb names it, and is marked
	summary "$BATS_TEST_TMPDIR/tlb.txt" --caches 256K,2M,16M --tlb 256,page=64
	assert_line --regexp '^# stride=64: L1d\? 19\.0 KiB 1 ns \| L2 76\.1 KiB 2\.8 ns \| '
	assert_line '# stride=64: L1d? could be a TLB'"'"'s reach, not a cache: its edge is where a known TLB (measured, or --tlb), of 64-byte pages run out'
	# a TLB of another reach leaves the rise a certain cache's edge
	summary "$BATS_TEST_TMPDIR/tlb.txt" --tlb 8192,page=64
	assert_line --regexp '^# stride=64: L1d 19\.0 KiB 1 ns \| L2 76\.1 KiB 2\.8 ns \| L3 '
	# --tlb is refused on a live run, and without entries
	run "$BENCH" latency --tlb 64 --max 1M
	assert_failure 2
	assert_output --partial 'it needs --curve-in'
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/tlb.txt" --tlb page=64
	assert_failure 2
	assert_output --partial 'names no TLB'
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/tlb.txt" --tlb 64,32
	assert_failure 2
	assert_output --partial "'32' is not larger than the TLB before it"
}

@test "with the OS's caches, a rise where the next reported cache ends is its edge, though less than a new level's jump" {
	# a prefetched line-stride chase: L2 3.4 ns, L3 4.2 ns, memory
	# 5.1 ns, each less than 1.5 times the one before
	loglin 6 1.5 6.5 3.4 9 3.4 9.5 4.2 14 4.2 14.5 5.1 18 5.1 \
		>"$BATS_TEST_TMPDIR/squeezed.txt"
	summary "$BATS_TEST_TMPDIR/squeezed.txt" --pattern stride --caches 64K,512K,16M
	assert_line '# stride=64: L1d 76.1 KiB 1.5 ns | L2 608.9 KiB 3.4 ns | L3 19.0 MiB 4.2 ns | DRAM 5.1 ns from 22.6 MiB, 5.1 ns at 128-256 MiB'
	# the same L2 and L3 before memory 3.8 times slower
	loglin 6 1.5 6.5 3.4 9 3.4 9.5 4.2 14 4.2 14.5 16 18 16 \
		>"$BATS_TEST_TMPDIR/squeezed-far.txt"
	summary "$BATS_TEST_TMPDIR/squeezed-far.txt" --pattern stride --caches 64K,512K,16M
	assert_line '# stride=64: L1d 76.1 KiB 1.5 ns | L2 608.9 KiB 3.4 ns | L3 19.0 MiB 4.2 ns | DRAM 16 ns from 22.6 MiB, 16 ns at 128-256 MiB'
	# without them, nothing tells the L3's edge from a step, and memory
	# at 11 times the L1d is the prefetcher's: no level is named
	summary "$BATS_TEST_TMPDIR/squeezed-far.txt" --pattern stride
	assert_line '# stride=64: no level named; 16 ns at 128-256 MiB'
	assert_line '# stride=64: the prefetcher hides the levels: a sequential chase with stride 64 rises from 1.5 to only 16 ns, and no cache sizes say where its levels end; use --pattern random'
	# memory's own TLB step near a reported 64 MiB cache stays a step:
	# memory arrived 3 times above the 44 ns level, not squeezed
	summary "$FIX/curve-l3-44ns.txt" --caches 128K,4M,64M
	assert_line --regexp '^# stride=64: .* \| L3 5\.0 MiB 44\.[0-9] ns \| DRAM 1[23][0-9] ns from 5\.[0-9] MiB \(14[0-9] ns from [0-9.]+ MiB\) \(16[0-9] ns from [0-9.]+ MiB\), 16[0-9] ns at 256 MiB$'
}

@test "a curve too sparse to name levels says so and names nothing" {
	# seven points two octaves apart, a plausible hierarchy among them
	printf '%s\n' '"stride=64' '0.00391 1.1' '0.01562 1.1' '0.06250 4.0' \
		'0.25000 4.2' '1.00000 14' '4.00000 15' '16.00000 95' \
		>"$BATS_TEST_TMPDIR/sparse.txt"
	summary "$BATS_TEST_TMPDIR/sparse.txt"
	assert_line '# stride=64: no level named; 15 ns at 1-16 MiB'
	assert_line --regexp '^# stride=64: too sparse to name levels: 7 points from 4\.0 KiB to 16 MiB, a median of 2 octaves apart'
	refute_output --partial 'L1d'
}

@test "a sequential chase below the line size that never rises: the prefetcher hides the levels" {
	{
		echo '"stride=16'
		awk 'BEGIN { for (i = 0; i < 40; i++)
			printf "%.5f %.3f\n", 0.00391 * 2 ^ (i / 3), (i < 12 ? 1.0 : 1.6) }'
	} >"$BATS_TEST_TMPDIR/seq.txt"
	summary "$BATS_TEST_TMPDIR/seq.txt" --pattern stride --caches 32K,1M,line=64
	assert_line '# stride=16: no level named; 1.6 ns at 20.2-32.0 MiB'
	assert_line --regexp '^# stride=16: the prefetcher hides the levels: a sequential chase with stride 16, below the 64-byte line, .*; use --pattern random$'
	# the same numbers from a random chase are two levels, read as such
	summary "$BATS_TEST_TMPDIR/seq.txt" --caches 32K,1M,line=64
	refute_output --partial 'prefetcher'
	assert_line --regexp '^# stride=16: L1d '
}

@test "a sequential chase whose memory is not many times its L1d: memory's latency is hidden, and without caches no level is named" {
	# a prefetched line-stride chase: L2 3.4 ns, L3 4.2 ns, memory 5.1 ns
	loglin 6 1.5 6.5 3.4 9 3.4 9.5 4.2 14 4.2 14.5 5.1 18 5.1 \
		>"$BATS_TEST_TMPDIR/streamed.txt"
	summary "$BATS_TEST_TMPDIR/streamed.txt" --pattern stride --caches 64K,512K,16M
	assert_line '# stride=64: L1d 76.1 KiB 1.5 ns | L2 608.9 KiB 3.4 ns | L3 19.0 MiB 4.2 ns | DRAM 5.1 ns from 22.6 MiB, 5.1 ns at 128-256 MiB'
	assert_line "# stride=64: memory's latency is hidden: this sequential chase's DRAM reads 5.1 ns, 3.4 times its L1d (a chase that waits for memory reads 20 times or more); use --pattern random"
	# the same numbers from a random chase are what it measured
	summary "$BATS_TEST_TMPDIR/streamed.txt" --caches 64K,512K,16M
	refute_output --partial 'hidden'
	# memory 27 times the L1d waited for memory
	loglin 6 1.5 6.5 3.4 9 3.4 9.5 4.2 14 4.2 14.5 40 18 40 \
		>"$BATS_TEST_TMPDIR/waited.txt"
	summary "$BATS_TEST_TMPDIR/waited.txt" --pattern stride --caches 64K,512K,16M
	assert_line '# stride=64: L1d 76.1 KiB 1.5 ns | L2 608.9 KiB 3.4 ns | L3 19.0 MiB 4.2 ns | DRAM 40 ns from 22.6 MiB, 40 ns at 128-256 MiB'
	refute_output --partial 'hidden'
	summary "$BATS_TEST_TMPDIR/waited.txt" --pattern stride
	refute_output --partial 'prefetcher'
	# without cache sizes, nothing says where a streamed chase's levels
	# end, and one that ends still short of memory may be streamed
	summary "$BATS_TEST_TMPDIR/streamed.txt" --pattern stride
	assert_line '# stride=64: no level named; 5.1 ns at 128-256 MiB'
	assert_line '# stride=64: the prefetcher hides the levels: a sequential chase with stride 64 rises from 1.5 to only 5.1 ns, and no cache sizes say where its levels end; use --pattern random'
	loglin 6 1.5 6.5 3.4 9 3.4 9.5 4.2 18 4.2 | awk '!/^[0-9]/ || $1 <= 8' \
		>"$BATS_TEST_TMPDIR/short.txt"
	summary "$BATS_TEST_TMPDIR/short.txt" --pattern stride --caches 64K,512K,16M
	assert_line --regexp '^# stride=64: DRAM not reached: the sweep ends at 8 MiB, at 4\.2 ns \(raise --max; or the prefetcher streams this sequential chase: use --pattern random\)$'
}

@test "--caches: sizes rise, and only a stored curve takes them" {
	refused_by latency --curve-in "$FIX/curve-no-l3.txt" --caches 1M,32K
	[[ "$stderr" == *"--caches: '32K' is not larger than the cache before it"* ]]
	refused_by latency --caches 32K,1M
	[[ "$stderr" == *"--caches describes the machine of a stored curve; it needs --curve-in"* ]]
	refused_by latency --curve-in "$FIX/curve-no-l3.txt" --caches 32K,,1M
	refused_by latency --curve-in "$FIX/curve-no-l3.txt" --caches 32K,line=7
}
