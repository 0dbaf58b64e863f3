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
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB 2 ns \| L2 1\.5 MiB 6\.[0-9]+ ns \| L3 5\.0 MiB 44\.[0-9] ns \| DRAM 1[23][0-9] ns \(14[0-9] ns from 1[0-9]\.[0-9] MiB\) \(16[0-9] ns from [0-9.]+ MiB\)$'
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
	assert_line --regexp '^# stride=64: L1d [0-9.]+ KiB 1\.2 ns \| L2 1\.0 MiB 4 ns \| DRAM (99|100)[.0-9]* ns$'
	assert_line '# stride=64: the OS reports L3 32 MiB but the curve shows no plateau for it'
	# each level is matched with the OS cache its size agrees with
	run "$BENCH" latency --curve-in "$FIX/curve-no-l3.txt" --caches 48K,1M,32M --json
	jq -e '.summary[0].levels[:2] | map(.os_bytes) == [49152, 1048576] and
		all(.agrees)' <<<"$output" >/dev/null
}

@test "a curve too sparse to name levels says so and names nothing" {
	# seven points two octaves apart, a plausible hierarchy among them
	printf '%s\n' '"stride=64' '0.00391 1.1' '0.01562 1.1' '0.06250 4.0' \
		'0.25000 4.2' '1.00000 14' '4.00000 15' '16.00000 95' \
		>"$BATS_TEST_TMPDIR/sparse.txt"
	summary "$BATS_TEST_TMPDIR/sparse.txt"
	assert_line '# stride=64: no level named'
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
	assert_line '# stride=16: no level named'
	assert_line --regexp '^# stride=16: the prefetcher hides the levels: a sequential chase with stride 16, below the 64-byte line, .*; use --pattern random$'
	# the same numbers from a random chase are two levels, read as such
	summary "$BATS_TEST_TMPDIR/seq.txt" --caches 32K,1M,line=64
	refute_output --partial 'prefetcher'
	assert_line --regexp '^# stride=16: L1d '
}

@test "--caches: sizes rise, and only a stored curve takes them" {
	refused_by latency --curve-in "$FIX/curve-no-l3.txt" --caches 1M,32K
	[[ "$stderr" == *"--caches: '32K' is not larger than the cache before it"* ]]
	refused_by latency --caches 32K,1M
	[[ "$stderr" == *"--caches describes the machine of a stored curve; it needs --curve-in"* ]]
	refused_by latency --curve-in "$FIX/curve-no-l3.txt" --caches 32K,,1M
	refused_by latency --curve-in "$FIX/curve-no-l3.txt" --caches 32K,line=7
}
