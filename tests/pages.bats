#!/usr/bin/env bats
# $stderr and $lines are set by bats' run.
# shellcheck disable=SC2154
# Every page size the machine offers: the latency probes on 4 KiB, 2 MiB
# and 1 GiB pages.  Memory's own latency comes from windows of base pages
# whatever pages the buffer got; the line-a-page chase measures the TLBs
# of the run's own pages and says how far it saw; walks that no TLB of
# those pages explains are said, and only where the run's figures show
# them; no run names more cache levels than the OS reports.  Real pools,
# reserved by the tests as root and put back (with_pool, test_helper).

load test_helper

setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

BASE=$(getconf PAGESIZE)

# The rule bench applies for smaller_pages_behind, worked again from the
# run's own curves (jq, on the latency document): inside the L1 TLB's
# reach of its pages (half of it, clear of its edge; the pages the
# line-a-page chase saw where no TLB ran out; a buffer of no more pages
# than any L1 DTLB holds), over memory's points where the line-a-page
# chase of as many pages reads less than a walk, the full random chase's
# median excess over the TLB-local chase against the line-a-page
# chase's.  Prints {hidden, ns, hit, from, to, points}, or null where
# fewer than three points say.
HIDDEN_RULE='
	def at($l; $x): if $x <= $l[0].bytes then $l[0].ns
		else ([range(1; $l | length) | select($l[.].bytes >= $x)][0]) as $i |
		if $i == null then $l[-1].ns else
		(($l[$i - 1].ns | log) + (($l[$i].ns / $l[$i - 1].ns) | log) *
		 (($x / $l[$i - 1].bytes) | log) / (($l[$i].bytes / $l[$i - 1].bytes) | log)) | exp end end;
	def med: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	.summary[0] as $s | .probes as $p | ($p.line_a_page // []) as $lp |
	($s.levels[1].ns) as $walk |
	(if ($lp | length) > 0 then
		(if ($s.tlbs | length) > 0 then $s.tlbs[0].reach_bytes / 2 else $s.tlbs_seen.bytes end)
	 elif (.run.buffer.bytes / $p.page_bytes) <= 32 then .run.buffer.bytes else null end) as $reach |
	if $reach == null or ($s.memory.reached | not) then null else
	[.curve[] | select(.stride == $s.stride and .bytes >= $s.levels[-1].from_bytes and .bytes <= $reach) |
		.bytes as $x |
		(if ($lp | length) > 0 then
			([$lp[] | select(.bytes <= $x)] | if length > 0 then .[-1] else $lp[0] end) |
			([.excess_ns, 0] | max)
		 else 0 end) as $hit |
		select(($lp | length) == 0 or $hit < $walk) |
		{x: $x, hit: $hit, d: (.ns - at($p.tlb_local; $x))}] as $pts |
	if ($pts | length) < 3 then null else
	($pts | map(.d) | med) as $ns | ($pts | map(.hit) | med) as $hit |
	{hidden: ($ns > $hit + 0.1 * ($s.memory.tlb_local_tail_ns + $hit)), ns: $ns, hit: $hit,
	 from: $pts[0].x, to: $pts[-1].x, points: ($pts | length)} end end'

# hidden_agrees JSON_FILE: bench said smaller pages behind its own
# exactly where its figures show them, with those figures.
hidden_agrees() {
	local want got
	want=$(jq -c "$HIDDEN_RULE" "$1")
	got=$(jq -c '.summary[0].memory.smaller_pages_behind' "$1")
	echo "worked again: $want; bench: $got"
	if [ "$want" = null ] || [ "$(jq -r .hidden <<<"$want")" = false ]; then
		[ "$got" = null ]
		return
	fi
	jq -e --argjson w "$want" '.summary[0].memory.smaller_pages_behind as $g |
		def near($a; $b): ($a - $b | fabs) <= 1e-6 * ([$a | fabs, $b | fabs, 1] | max);
		near($g.ns; $w.ns) and near($g.tlb_hit_ns; $w.hit) and $g.from_bytes == $w.from and
		$g.to_bytes == $w.to and $g.points == $w.points' "$1" >/dev/null
}

@test "memory's own latency comes from windows of 32 base pages, on 2 MiB pages too" {
	local json=$BATS_TEST_TMPDIR/run.json
	with_pool 2048 40 "$BENCH" latency --min 4K --max 64M --steps-per-octave 4 --alloc hugetlb \
		--json-file "$json"
	assert_success
	# the buffer is on 2 MiB pages, the windows are 32 of the base page
	jq -e --argjson base "$BASE" '.run.buffer.page_kib == 2048 and
		.probes.page_bytes == 2097152 and .probes.local_window_bytes == 32 * $base and
		(.summary[0].memory | type) == "object"' "$json" >/dev/null
	# 32 pages of 2 MiB are too few for the line-a-page chase: said, and
	# no TLB named; the caches and memory are measured all the same
	jq -e '.summary[0] | .not_measured_apart == null and .tlbs == [] and
		.tlbs_seen == {page_bytes: 2097152, pages: null, bytes: null,
			not_measured: "--max 64 MiB holds 32 pages of 2 MiB, and the line-a-page chase needs 128"}' \
		"$json" >/dev/null
	assert_line '# stride=64: TLBs of its 2 MiB pages: not measured (--max 64 MiB holds 32 pages of 2 MiB, and the line-a-page chase needs 128)'
	assert_line --regexp '^# stride=64: memory: ([0-9.]+ ns [0-9.]+ cyc of its own \(the TLB-local chase.s median over its memory plateau, [0-9]+ points from [0-9.]+ [KM]iB\); at 64 MiB it reads [0-9.]+ ns, |not reached \(the TLB-local chase reads [0-9.]+ ns at 64 MiB\); )'
	hidden_agrees "$json"
}

@test "on transparent huge pages too, the windows are base pages" {
	local json=$BATS_TEST_TMPDIR/run.json
	run "$BENCH" latency --min 1M --max 16M --steps-per-octave 2 --alloc thp --json-file "$json"
	assert_success
	[ "$(jq -r '.run.buffer.page_kib * 1024' "$json")" -gt "$BASE" ] ||
		skip "THP gave this buffer no huge pages ($(jq -r .run.buffer.page_kib "$json") KiB)"
	jq -e --argjson base "$BASE" '.probes.page_bytes == .run.buffer.page_kib * 1024 and
		.probes.local_window_bytes == 32 * $base' "$json" >/dev/null
}

@test "the line-a-page chase measures the TLBs of the run's own pages, and says how far it saw" {
	local json=$BATS_TEST_TMPDIR/run.json
	with_pool 2048 130 "$BENCH" latency --min 4K --max 256M --steps-per-octave 4 --alloc hugetlb \
		--json-file "$json"
	assert_success
	jq -e '.summary[0] as $s | .probes as $p |
		$p.page_bytes == 2097152 and
		$s.tlbs_seen == {page_bytes: 2097152, pages: 128, bytes: 268435456, not_measured: null} and
		$p.line_a_page[0].pages == 16 and $p.line_a_page[-1].pages == 128 and
		($p.line_a_page | all(.bytes == .pages * 2097152)) and
		($s.tlbs | all(.page_bytes == 2097152 and
			(.entries * .page_bytes - .reach_bytes | fabs) < 1))' "$json" >/dev/null
	# a TLB is named only where two points or more lie beyond its edge:
	# never at the end of the pages the chase crossed
	jq -e '.probes.line_a_page as $lp | .summary[0].tlbs |
		all(.reach_bytes as $r | [$lp[] | select(.bytes > $r)] | length >= 2)' "$json" >/dev/null
	assert_line --regexp '^# stride=64: TLBs \(a line a page, 2 MiB pages, seen to 128 of them, 256 MiB\):'
	hidden_agrees "$json"
	# the line says it exactly when the JSON does
	if [ "$(jq -c .summary[0].memory.smaller_pages_behind "$json")" = null ]; then
		refute_line --partial 'smaller pages behind'
	else
		assert_line --regexp '^# stride=64: smaller pages behind its 2 MiB pages: inside the (L1 TLB'"'"'s|TLBs'"'"') reach \([0-9.]+ [KMG]iB\), at [0-9.]+ [KMG]iB-[0-9.]+ [KMG]iB, the full random chase reads [0-9.]+ ns above memory'"'"'s own where a line a page reads [0-9.]+ ns above it; '
	fi
}

@test "on 4 KiB pages no walk is laid at a host's door: the L1 TLB's reach lies inside the caches" {
	# every 4 KiB record of the two machines in tests/recordings,
	# replayed: none says smaller pages are behind its pages, as the rule
	# worked again says; and the Zen 3 guest's huge-page records say so
	# exactly where the rule does, with its figures (a live 4 KiB sweep
	# checked this on one curve of this machine in 6 s)
	local f n=0 json=$BATS_TEST_TMPDIR/run.json
	for f in "$BATS_TEST_DIRNAME"/recordings/*/4k-[0-9]*.json "$BATS_TEST_DIRNAME"/recordings/amd-zen3-kvm/[ht]*-[0-9]*.json; do
		"$BENCH" latency --curve-in "$f" --json >"$json"
		case "${f##*/}" in
		4k-*)
			jq -e '.probes.page_bytes == 4096 and
				.summary[0].memory.smaller_pages_behind == null' "$json" >/dev/null || fail "$f: $(jq -c .summary[0].memory "$json")"
			! "$BENCH" latency --curve-in "$f" | grep -q 'smaller pages behind' || fail "$f: the text says smaller pages behind"
			;;
		esac
		hidden_agrees "$json" || fail "$f"
		n=$((n + 1))
	done
	[ "$n" -ge 25 ]
}

@test "on 1 GiB pages the buffer is one page: memory and the caches are measured, the TLBs are not" {
	local json=$BATS_TEST_TMPDIR/run.json
	with_pool 1048576 1 "$BENCH" latency --min 4K --max 64M --steps-per-octave 4 --alloc hugetlb \
		--page-size 1G --json-file "$json"
	assert_success
	jq -e --argjson base "$BASE" '.run.buffer.page_kib == 1048576 and
		.probes.page_bytes == 1073741824 and .probes.local_window_bytes == 32 * $base and
		.summary[0].tlbs_seen.not_measured == "--max 64 MiB is less than one page of 1 GiB, and the line-a-page chase needs 128"' \
		"$json" >/dev/null
	hidden_agrees "$json"
}

@test "no run numbers more cache levels than the OS reports: a level past them is no cache of its own" {
	# real runs of two machines (tests/recordings), replayed with the
	# OS's caches cut to an L1d and an L2 (Intel: a 1 MiB L2, half its
	# own): the analysis alone is checked, which a live sweep under a
	# fake sysfs took 7 s to do on one machine's curve
	local rec l2 f="$BATS_TEST_TMPDIR/two.json"
	while read -r rec l2; do
		jq --argjson l2 "$l2" '.system.caches |= ([.[] | select(.level <= 2 and .type != "Instruction")]
			| map(if .level == 2 then .bytes = $l2 else . end))' \
			"$BATS_TEST_DIRNAME/recordings/$rec" >"$f"
		run --separate-stderr "$BENCH" latency --curve-in "$f" --json
		assert_success
		jq -e --argjson l2 "$l2" '(.summary[0].caches | .[1] == $l2 and length == 2) and
			([.summary[0].levels[] | select(.name | test("^L[0-9]+d?$"))] | length <= 2) and
			([.summary[0].levels[] | select(.name | endswith("+"))] | length >= 1) and
			(.summary[0].levels | all(if (.name | endswith("+")) then .certain == false else true end))' \
			<<<"$output" >/dev/null ||
			{ echo "$rec: $(jq -c '[.summary[0].levels[] | [.name, .boundary_bytes, .certain]]' <<<"$output")"; return 1; }
	done <<'EOT'
intel-f6m167-kvm/4k-10.json 1048576
intel-f6m167-kvm/hugetlb2m-10.json 1048576
amd-zen3-kvm/4k-5.json 524288
EOT
}

@test "nodes --alloc hugetlb: every cell on its node's pool's pages; a node whose pool is short is refused before anything is allocated" {
	with_pool 2048 200 "$BENCH" nodes --alloc hugetlb --page-size 2M --buffer 64M -n 3 --json-file "$BATS_TEST_TMPDIR/n.json"
	assert_success
	assert_line --regexp '^Allocation: hugetlb, each buffer bound .*\(pages of 2 MiB\)$'
	jq -e '.nodes.alloc == "hugetlb" and .nodes.page_size_bytes == 2097152 and
		([.nodes.matrices[].cells[]?] | length > 0) and
		([.. | objects | select(has("pages_held") and .pages_held != null)] |
			length > 0 and all(.page_kib == 2048 and .huge_pct == 100 and .pages_held))' \
		"$BATS_TEST_TMPDIR/n.json" >/dev/null || { jq -c .nodes "$BATS_TEST_TMPDIR/n.json" | head -c 2000; return 1; }
	# 64 MiB a buffer, three arrays a bandwidth cell: 96 pages of 2 MiB
	with_pool 2048 10 --separate-stderr "$BENCH" nodes --alloc hugetlb --buffer 64M -n 3
	assert_failure 2
	assert_output ''
	[[ "$stderr" =~ ^bench:\ --alloc\ hugetlb:\ (node\ [0-9]+\ has\ [0-9]+\ free\ huge\ pages\ of\ 2\ MiB\ and\ a\ cell\ takes\ 96|needs\ 96\ huge\ pages\ of\ 2\ MiB\ but\ only\ 10\ are\ free) ]]
	[ "$(wc -l <<<"$stderr")" = 1 ]
}
