#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/sweep-latency-pages: latency curves under THP and hugetlb modes.

load test_helper
load harness_helper

setup() { harness_setup; }

SWEEP=$HARNESS_REPO/harness/sweep-latency-pages

@test "one curve per mode, side by side, THP and the pool restored" {
	run "$SWEEP" --max 16M --modes 'thp-never thp-always hugetlb'
	assert_success
	assert_output --partial '| Size MB | thp-never ns | thp-always ns | hugetlb ns |'
	# The fake bench answers faster with THP always, as a real one should.
	assert_output --partial '| 16 | 77.5 | 62.5 | 77.5 |'
	# the fake's tails: 200.5 ns on 4 KiB pages, 145.5 on the 2 MiB pool;
	# walks 110.25 and 55.25 ns
	assert_output --partial 'At 16 MB the best pages (hugetlb, 2 MiB) save 55 ns a random access (-27% vs thp-never); 55 ns of thp-never'"'"'s 110 ns of walks remain (50%)'
	d=$(result_dir)
	run jq -r '.settings[-1]' "$d/step-003.json"
	# As many pages as bench --plan says: 16 MiB of 2 MiB pages.
	assert_output 'hugepages: 8 reserved (was 0), verified'
	run jq -r '.command | join(" ")' "$d/step-003.json"
	assert_output --partial 'latency --alloc hugetlb --max 16M'
	# Raw output is lat_mem_rd's text, as bench printed it.
	head -n1 "$d/step-001.raw" | grep -q '^"stride=64'
	[ "$(cat "$FAKE/sys/kernel/mm/transparent_hugepage/enabled")" = madvise ]
	[ "$(cat "$FAKE/proc/sys/vm/nr_hugepages")" = 0 ]
}

@test "without bench latency: a clear message" {
	export FAKE_NO_LATENCY=1
	run "$SWEEP"
	assert_failure 2
	assert_output 'sweep-latency-pages: this bench has no latency mode (rebuild it from the current bench.c): nothing to sweep'
}

@test "unknown modes are bad input, and so is a page size after --" {
	run "$SWEEP" --modes 'thp-sometimes'
	assert_failure 2
	[ "${#lines[@]}" -eq 1 ]
	run "$SWEEP" --modes 'hugetlb-2g'
	assert_failure 2
	assert_output "sweep-latency-pages: unknown page mode 'hugetlb-2g' (see --help)"
	run "$SWEEP" -- --page-size 2M
	assert_failure 2
	assert_output 'sweep-latency-pages: sweep-latency-pages sets --page-size itself; do not pass it after --'
	[ ! -e "$FAKE_BENCH_LOG" ] || ! grep -q -- '--json-file' "$FAKE_BENCH_LOG"
}

# page_row MODE: the summary's row of the page-mode table for MODE.
page_row() { printf '%s\n' "$output" | grep -E "^\| [0-9]{3} \| $1 \|"; }

# cell ROW N: the N-th cell of a Markdown row.
cell() { printf '%s\n' "$1" | awk -F' [|] ' -v n="$2" '{ c = $n; sub(/^[|] /, "", c); sub(/ [|]$/, "", c); print c }'; }

@test "by default the 1 GiB mode too: skipped with bench's reason where the machine offers no 1 GiB pages" {
	run "$SWEEP" --max 1G
	assert_success
	why="bench: --page-size 1G: the kernel offers no huge pages of that size (no hugepages-1048576kB)"
	# one line now, and a row in both tables
	assert_line "sweep-latency-pages: hugetlb-1g: skipped: $why"
	[ "$(grep -c 'hugetlb-1g: skipped' <<<"$output")" = 1 ]
	assert_line "| 4 | hugetlb-1g hugetlb | skipped: $why |"
	row=$(page_row hugetlb-1g)
	[ "$row" = "| 004 | hugetlb-1g | - | - | - | - | - | - | - | skipped: $why |" ]
	# bench was asked for its plan only, never run on 1 GiB pages
	grep -q -- '--page-size 1G .*--plan' "$FAKE_BENCH_LOG"
	run grep -- '--page-size 1G .*--json-file' "$FAKE_BENCH_LOG"
	assert_failure
	d=$(result_dir)
	run jq -c '[.step, .params.Mode, .status, .exit_status, .bench]' "$d/step-004.json"
	assert_output "[4,\"hugetlb-1g\",\"skipped: $why\",null,null]"
	# the three that ran, and the closing line says who was left out
	run cat "$d/summary.md"
	assert_output --partial '(-27% vs thp-never); 55 ns of thp-never'"'"'s 110 ns of walks remain (50%); left out: hugetlb-1g (skipped)'
}

@test "the page-mode table: every figure is the step's JSON, the saving the difference of its tails" {
	run "$SWEEP" --max 1G --modes 'thp-never thp-always hugetlb'
	assert_success
	out=$output
	d=$(result_dir)
	for i in 1 2 3; do
		f=$d/step-00$i.json
		m=$(jq -r '.params.Mode' "$f")
		output=$out row=$(page_row "$m")
		[ -n "$row" ] || { echo "no row for $m"; return 1; }
		# the pages the run got, and the largest size
		[ "$(cell "$row" 3)" = "$(jq -r '.bench.run.buffer.page_kib / 1024 | if . >= 1 then "\(.) MiB" else "\(. * 1024) KiB" end' "$f")" ]
		[ "$(cell "$row" 4)" = '1 GiB' ]
		for c in '5 .tail.ns' '6 .memory.ns' '7 .memory.tlb_ns'; do
			want=$(round_as_c 1 "$(jq -r ".bench.summary[0]${c#* }" "$f")")
			[ "$(cell "$row" "${c%% *}")" = "$want" ] || { echo "$m column ${c%% *}: $(cell "$row" "${c%% *}"), JSON $want"; return 1; }
		done
		# the largest reach the fake measured, with its page size; or, where
		# no level ran out, as far as the probe saw
		want=$(jq -r '.bench.summary[0] | def b: if . >= 1073741824 then "\(. / 1073741824) GiB" elif . >= 1048576 then "\(. / 1048576) MiB" else "\(. / 1024) KiB" end;
			if (.tlbs | length) > 0 then (.tlbs | max_by(.reach_bytes) | "\(.reach_bytes | b) (\(.page_bytes | b) pages)")
			else ">= \(.tlbs_seen.bytes | b) (\(.tlbs_seen.page_bytes | b) pages; no TLB ran out)" end' "$f")
		# (the summary is read rendered: its > is an entity)
		[ "$(cell "$row" 8)" = "${want/>/\&gt;}" ] || { echo "$m reach: $(cell "$row" 8), JSON $want"; return 1; }
		[ "$(cell "$row" 9)" = no ]
	done
	[ "$(cell "$(output=$out page_row thp-never)" 8)" = '8 MiB (4 KiB pages)' ]
	[ "$(cell "$(output=$out page_row hugetlb)" 8)" = '&gt;= 1 GiB (2 MiB pages; no TLB ran out)' ]
	# the closing line: the best (least tail) against the first mode
	line=$(grep '^At 1024 MB' "$d/summary.md")
	save=$(jq -s -r '.[0].bench.summary[0].tail.ns - .[2].bench.summary[0].tail.ns | round' "$d"/step-00[1-3].json)
	pct=$(jq -s -r '100 * (.[2].bench.summary[0].tail.ns - .[0].bench.summary[0].tail.ns) / .[0].bench.summary[0].tail.ns | round' "$d"/step-00[1-3].json)
	walks=$(jq -s -r '[.[2], .[0]] | map(.bench.summary[0].memory.tlb_ns | round) | join(" ")' "$d"/step-00[1-3].json)
	left=$(jq -s -r '100 * .[2].bench.summary[0].memory.tlb_ns / .[0].bench.summary[0].memory.tlb_ns | round' "$d"/step-00[1-3].json)
	[ "$line" = "At 1024 MB the best pages (hugetlb, 2 MiB) save $save ns a random access ($pct% vs thp-never); ${walks% *} ns of thp-never's ${walks#* } ns of walks remain ($left%)" ]
	[ "$save $pct $walks $left" = '55 -27 55 110 50' ]
}

@test "the probes' reasons: a buffer too small for the line-a-page chase, no probes at all" {
	run "$SWEEP" --max 16M --modes 'thp-never hugetlb'
	assert_success
	# 16 MiB of 4 KiB pages: the 8 MiB level ran out, the next did not
	[ "$(cell "$(page_row thp-never)" 8)" = '8 MiB (4 KiB pages)' ]
	# 8 pages of 2 MiB: the chase could not run, and says why
	[ "$(cell "$(page_row hugetlb)" 8)" = 'not measured: --max holds 8 pages of 2097152 bytes, and the line-a-page chase needs 128' ]
	export FAKE_NO_PROBES=1
	run "$SWEEP" --max 16M --modes 'thp-never hugetlb'
	assert_success
	[ "$(page_row hugetlb)" = '| 002 | hugetlb | 2 MiB | 16 MiB | 145.5 | - | - | fake: the probes did not run | - | ok |' ]
	assert_output --partial 'At 16 MB the best pages (hugetlb, 2 MiB) save 55 ns a random access (-27% vs thp-never); the walks were not measured apart in thp-never and hugetlb'
}

@test "smaller pages behind the best mode's own: its row and the closing line say so" {
	export FAKE_SMALLER_PAGES_BEHIND=1
	run "$SWEEP" --max 16M --modes 'thp-never hugetlb'
	assert_success
	[ "$(cell "$(page_row thp-never)" 9)" = no ]
	[ "$(cell "$(page_row hugetlb)" 9)" = 'yes: +35.5 ns a load at 4 MiB-8 MiB' ]
	assert_output --partial '55 ns of thp-never'"'"'s 110 ns of walks remain (50%); hugetlb still sees smaller pages behind its own: the walks that remain are the host'"'"'s'
}

# offer_1g: the fake machine gets a pool of 1 GiB pages, as a kernel
# booted with hugepagesz=1G has.
offer_1g() {
	mkdir -p "$FAKE/sys/kernel/mm/hugepages/hugepages-1048576kB"
	echo 0 >"$FAKE/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
}

@test "where the machine offers 1 GiB pages: the pool bench --plan says, reserved and checked, the run on them, the pool restored" {
	offer_1g
	run "$SWEEP" --max 2G --modes 'thp-never hugetlb-1g'
	assert_success
	d=$(result_dir)
	run jq -r '.command | join(" ")' "$d/step-002.json"
	assert_output --partial 'latency --alloc hugetlb --page-size 1G --max 2G'
	run jq -r '.settings[-1]' "$d/step-002.json"
	assert_output 'hugepages 1G: 2 reserved (was 0), verified'
	[ "$(cat "$FAKE/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages")" = 0 ]
	[ "$(cat "$FAKE/proc/sys/vm/nr_hugepages")" = 0 ]
	run cat "$d/summary.md"
	[ "$(cell "$(page_row hugetlb-1g)" 3)" = '1 GiB' ]
	assert_output --partial 'At 2048 MB the best pages (hugetlb-1g, 1 GiB) save 60 ns a random access (-30% vs thp-never); 50 ns of thp-never'"'"'s 110 ns of walks remain (46%)'
	# a dry run plans the same, and changes nothing
	run "$SWEEP" --max 2G --modes 'hugetlb-1g' --dry-run
	assert_success
	assert_output --partial "hugepages 1G: would write '2' to $FAKE/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
	assert_output --partial 'latency --alloc hugetlb --page-size 1G --max 2G'
}

@test "the 1 GiB pool that cannot be made: too little memory, or a short pool given back; skipped with the reason, exit 0" {
	offer_1g
	# 2 GiB of pages against MemAvailable 2.8 GiB less a 10% margin of 24 GB
	printf 'MemTotal: 24000000 kB\nMemAvailable: 3000000 kB\nHugePages_Total: 0\nHugepagesize: 2048 kB\n' >"$FAKE/proc/meminfo"
	run "$SWEEP" --max 2G --modes 'thp-never hugetlb-1g'
	assert_success
	assert_line --regexp '^sweep-latency-pages: hugetlb-1g: skipped: --hugepages 1G:2 does not fit: .*MemAvailable 3000000 kB'
	[ "$(cat "$FAKE/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages")" = 0 ]
	run grep -- '--page-size 1G .*--json-file' "$FAKE_BENCH_LOG"
	assert_failure
	# a kernel that reserves one page of the two: skipped, and the one page
	# given back before the next mode runs
	printf 'MemTotal: 24000000 kB\nMemAvailable: 20000000 kB\nHugePages_Total: 0\nHugepagesize: 2048 kB\n' >"$FAKE/proc/meminfo"
	rm -rf "$MEMBENCH_RESULTS" "$FAKE_BENCH_LOG"
	make_short_pool_writer "$BATS_TEST_TMPDIR/writer"
	export MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/writer FAKE_POOL_LIMIT=1
	run "$SWEEP" --max 2G --modes 'hugetlb-1g thp-never'
	assert_success
	assert_line 'sweep-latency-pages: hugetlb-1g: skipped: short pool: asked for 2 pages of 1 GiB, the kernel reserved 1'
	d=$(result_dir)
	run jq -r '.settings[-2:][]' "$d/step-002.json"
	assert_line 'hugepages 1G: 0 reserved (was 1), verified'
	# the skip is the skipped step's: the next one ran as asked
	[ "$(jq -r .status "$d/step-002.json")" = ok ]
	[ "$(cat "$FAKE/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages")" = 0 ]
	run cat "$d/summary.md"
	assert_output --partial '| 001 | hugetlb-1g | - | - | - | - | - | - | - | skipped: short pool: asked for 2 pages of 1 GiB, the kernel reserved 1 |'
	assert_output --partial 'At 2048 MB no mode beats thp-never (201 ns a random access); left out: hugetlb-1g (skipped)'
	run grep -- '--page-size 1G .*--json-file' "$FAKE_BENCH_LOG"
	assert_failure
}

@test "report shows the summary's page-mode table and closing line" {
	run "$SWEEP" --max 1G
	assert_success
	d=$(result_dir)
	run "$HARNESS_REPO/harness/report" --format md,csv --html "$d"
	assert_success
	# the same line, word for word, in the report and its page
	line=$(grep '^At 1024 MB' "$d/summary.md")
	grep -qxF -- "- $line" "$d/report.md"
	grep -qF -- "<li>${line//\'/\&#39;}</li>" "$d/report.html"
	# the same rows, cell for cell (report pads its columns)
	diff <(grep -E '^\| [0-9]{3} \| (thp|huge)' "$d/summary.md" | sed 's/&gt;/>/g') \
		<(grep -E '^\| [0-9]{3} +\| (thp|huge)' "$d/report.md" | sed -E 's/ +\|/ |/g; s/\| +/| /g')
	[ "$(awk -F, '$2 == "thp-never" { print $8 }' "$d/report-page-modes.csv")" = '8 MiB (4 KiB pages)' ]
}
