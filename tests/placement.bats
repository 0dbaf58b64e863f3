#!/usr/bin/env bats
# $stderr is set by bats' run; $TINY (test_helper) is a word list.
# shellcheck disable=SC2154,SC2086
# --placement: the physical pages of the stream arrays and the chase
# buffer, from /proc/self/pagemap.  As root the frames are real; as any
# other user they read as 0, and bench must say so rather than report them.

load test_helper

# 2,000,000 doubles: 16,000,000 bytes, 3906.25 pages of 4 KiB.
SIZE=(-s 2000000 -n 3)

needs_root() {
	[ "$(id -u)" -eq 0 ] || skip "reading frame numbers needs root"
	[ -r /proc/self/pagemap ] || skip "no /proc/self/pagemap"
}

# as_nobody CMD...: run CMD without root and without capabilities.
as_nobody() {
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
	else
		missing_tool "setpriv is not installed"
	fi
}

@test "as root: every array's pages, all present, in runs of real frames" {
	needs_root
	run --separate-stderr "$BENCH" "${SIZE[@]}" --placement --json
	assert_success
	# pages cover the array (its start need not be page aligned, so one
	# more page is allowed); runs partition the present pages
	printf '%s\n' "$output" | jq -e '
		.run.arrays | length == 3 and all(
			.physical.state == "ok" and .physical.why == null and
			.physical.page_bytes == 4096 and
			(.bytes / 4096 | ceil) as $min |
			.physical.pages >= $min and .physical.pages <= $min + 1 and
			.physical.present == .physical.pages and
			.physical.runs >= 1 and .physical.runs <= .physical.present and
			.physical.longest_run_pages >= 1 and
			.physical.longest_run_pages <= .physical.present and
			.physical.longest_run_pages * .physical.runs >= .physical.present and
			.physical.pfn_lo > 0 and
			.physical.pfn_hi - .physical.pfn_lo + 1 >= .physical.longest_run_pages and
			(.physical.node_pages == null or
			 ([.physical.node_pages[]] | add) == .physical.pages))' >/dev/null
}

@test "as root: the text line says what the JSON says" {
	needs_root
	local json text
	json=$("$BENCH" "${SIZE[@]}" --placement --json)
	text=$("$BENCH" "${SIZE[@]}" --placement)
	# page counts are fixed by the size; frames may differ between runs
	grep -q '^physical array a: [0-9]* pages of 4 KiB, [0-9]* present in [0-9]* runs\? of consecutive frames (longest .*, mean .*), frames 0x[0-9a-f]*-0x[0-9a-f]* (span .*), [0-9]*% on huge pages (\(kpageflags\|smaps\))' \
		<<<"$text"
	[ "$(grep -c '^physical array [abc]: ' <<<"$text")" -eq 3 ]
	local pages
	pages=$(jq -r '.run.arrays[0].physical.pages' <<<"$json")
	grep -q "^physical array a: $pages pages of 4 KiB, $pages present in " <<<"$text"
}

@test "as root with THP: the huge pages show as 2 MiB runs of frames" {
	needs_root
	run --separate-stderr "$BENCH" "${SIZE[@]}" --alloc thp --placement --json
	assert_success
	printf '%s\n' "$output" | jq -e '.run.arrays[0].huge_pct >= 50' >/dev/null ||
		skip "THP gave no huge pages here"
	# kpageflags (root) must agree with smaps that most pages are huge,
	# and a huge page is 512 consecutive frames
	printf '%s\n' "$output" | jq -e '.run.arrays | all(
		.physical.huge_source == "kpageflags" and
		.physical.huge_pct >= 50 and
		.physical.longest_run_pages >= 512)' >/dev/null
}

@test "as root: the latency mode reports the chase buffer" {
	needs_root
	run --separate-stderr "$BENCH" latency --min 1M --max 1M --placement --json
	assert_success
	printf '%s\n' "$output" | jq -e '.run.buffer.physical |
		.state == "ok" and .pages == 256 and .present == 256 and
		.runs >= 1 and .pfn_lo > 0' >/dev/null
	run --separate-stderr "$BENCH" latency --min 1M --max 1M --placement
	assert_success
	assert_line --regexp '^# physical chase buffer: 256 pages of 4 KiB, 256 present in [0-9]+ runs? '
}

@test "not root: frames are unavailable, said in one line, and the run goes on" {
	[ -r /proc/self/pagemap ] || skip "no /proc/self/pagemap"
	[ "$(id -u)" -eq 0 ] || skip "needs root to drop to another user"
	run --separate-stderr as_nobody "$BENCH" "${SIZE[@]}" --placement --json
	assert_success
	printf '%s\n' "$output" | jq -e '.run.arrays | all(
		.physical.state == "no_pfn" and
		(.physical.why | test("CAP_SYS_ADMIN")) and
		.physical.runs == null and .physical.pfn_lo == null and
		.physical.present == null and .physical.huge_source == "smaps" and
		.physical.pages >= 3907)' >/dev/null
	run --separate-stderr as_nobody "$BENCH" "${SIZE[@]}" --placement
	assert_success
	assert_line --regexp '^physical array a: [0-9]+ pages of 4 KiB, frames unavailable: frame numbers read as 0: reading them needs CAP_SYS_ADMIN \(run as root\)'
	refute_line --partial 'of consecutive frames'
	assert_line --partial 'Solution Validates'
}

@test "without --placement: no physical lines, and null in JSON" {
	run --separate-stderr "$BENCH" "${SIZE[@]}" --json
	assert_success
	printf '%s\n' "$output" | jq -e '.run.arrays | all(.physical == null)' >/dev/null
	run --separate-stderr "$BENCH" "${SIZE[@]}"
	assert_success
	refute_line --partial 'physical array'
}

@test "--placement does not apply to info" {
	refused_by info --placement
	[[ "$stderr" == *"--placement does not apply to mode 'info'"* ]]
}

@test "harness/placement-spread: each run's rates beside its placement, then the spread" {
	export MEMBENCH_RESULTS="$BATS_TEST_TMPDIR/results"
	run --separate-stderr "$MEMBENCH_ROOT/harness/placement-spread" -n 2 -b "$BENCH" -- \
		-s 200000 -n 3
	assert_success
	local place='[0-9-]+/[0-9.-]+M?/[0-9]+%'
	[ "$(id -u)" -eq 0 ] && place='[0-9]+/[0-9.]+M/[0-9]+%'
	assert_line --regexp "^ +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +$place +$place +$place *$"
	assert_line --regexp "^ +2 +[0-9.]+ "
	assert_line --regexp '^Triad +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$'
	assert_line --partial 'runs with Triad more than 5% below its median:'
	# the table's Triad is the run's JSON Triad
	local json triad
	json=$(find "$MEMBENCH_RESULTS" -name run-1.json)
	triad=$(jq -r '.results[] | select(.kernel == "Triad") | .best_mbs' "$json")
	assert_line --regexp "^ +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +$(round_as_c 1 "$triad") "
	run --separate-stderr "$MEMBENCH_ROOT/harness/placement-spread" -n 0
	assert_failure 2
	run --separate-stderr "$MEMBENCH_ROOT/harness/placement-spread" -- latency
	assert_failure 2
}

@test "harness/placement-spread: the median of an even number of runs is the mean of the middle two" {
	# A stand-in bench: run N reports line N of planted rates for all
	# four kernels; sorted they are 1000 1010 1030 1100 (median 1020).
	printf '%s\n' 1100 1000 1030 1010 >"$BATS_TEST_TMPDIR/rates"
	cat >"$BATS_TEST_TMPDIR/bench" <<EOT
#!/bin/sh
[ "\$1" = stream ] || exit 2
n=\$(cat "$BATS_TEST_TMPDIR/n" 2>/dev/null || echo 0); n=\$((n + 1)); echo "\$n" >"$BATS_TEST_TMPDIR/n"
r=\$(sed -n "\${n}p" "$BATS_TEST_TMPDIR/rates")
jq -n --argjson r "\$r" '{schema: "membench/1", mode: "stream",
	results: [("Copy", "Scale", "Add", "Triad") | {kernel: ., best_mbs: \$r}],
	run: {arrays: [("a", "b", "c") | {name: ., physical: {state: "unavailable", huge_pct: 0}}]}}'
EOT
	chmod +x "$BATS_TEST_TMPDIR/bench"
	MEMBENCH_RESULTS=$BATS_TEST_TMPDIR/results run --separate-stderr "$MEMBENCH_ROOT/harness/placement-spread" \
		-n 4 -b "$BATS_TEST_TMPDIR/bench" -- -s 1000
	assert_success
	for k in Copy Scale Add Triad; do
		assert_line --regexp "^$k +1020\.0 +1000\.0 +1100\.0 +1\.100$"
	done
}
