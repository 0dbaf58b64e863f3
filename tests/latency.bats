#!/usr/bin/env bats
# $stderr is set by bats' run; $TINY (test_helper) is a word list.
# shellcheck disable=SC2154,SC2086
# bench latency: lat_mem_rd's output contract, real chases on tiny sweeps,
# the summary of recorded runs replayed (--curve-in, nothing measured),
# the plateau detector on stored synthetic curves, and refused input.

load test_helper

FIX="$BATS_TEST_DIRNAME/fixtures"

# A tiny sweep: 4 KiB to 64 KiB, two sizes per octave.
SMALL=(--min 4K --max 64K --steps-per-octave 2)

# refused_by (test_helper) for the latency mode
refused() { refused_by latency "$@"; }

# level NAME FIELD: a field of the named level in the first summary.
level() {
	jq -r --arg n "$1" ".summary[0].levels[] | select(.name == \$n) | .$2"
}

@test "text output is lat_mem_rd's: header, size_MB ns lines, blank line, # summary" {
	run "$BENCH" latency "${SMALL[@]}" --stride 64
	assert_success
	assert_line --index 0 '"stride=64'
	# 4K, 5.6K, 8K, ... 64K: nine points, each "%.5f %.3f"
	local i
	for i in 1 2 3 4 5 6 7 8 9; do
		[[ "${lines[$i]}" =~ ^[0-9]+\.[0-9]{5}\ [0-9]+\.[0-9]{3}$ ]] ||
			{ echo "line $i: ${lines[$i]}"; return 1; }
	done
	[ "${lines[1]%% *}" = "0.00391" ]
	[ "${lines[9]%% *}" = "0.06250" ]
	# bats drops blank lines from $lines: the raw output has one after
	# the curve, and every line after it is a '#' comment
	printf '%s\n' "$output" | awk '
		NR == 11 && $0 != "" { exit 1 }
		NR > 11 && $0 !~ /^# / { exit 1 }'
	assert_line --regexp '^# stride=64: L1d\?? '
	assert_line --regexp '^# clock: [0-9]+ MHz, measured'
	assert_line --regexp '^# OS-reported caches:'
}

@test "sizes rise geometrically and end at --max" {
	run "$BENCH" latency --min 4K --max 100K --steps-per-octave 4
	assert_success
	printf '%s\n' "$output" | awk '
		/^[0-9]/ { if (prev != "" && $1 <= prev) exit 1; prev = $1; last = $1 }
		END { if (last != "0.09766") exit 1 }'
}

@test "several strides: one header each, a blank line after each curve" {
	run "$BENCH" latency "${SMALL[@]}" --stride 64,128
	assert_success
	[ "$(printf '%s\n' "$output" | grep -c '^"stride=')" -eq 2 ]
	printf '%s\n' "$output" | awk '
		/^"stride=128/ { if (prev != "") exit 1; seen = 1 }
		{ prev = $0 }
		END { if (!seen) exit 1 }'
	assert_line --regexp '^# stride=128: '
}

# chain_stat LINE KEY: the value of KEY=... in a chain line of
# MEMBENCH_CHAIN_STATS=1
chain_stat() {
	local f
	for f in $1; do [[ $f != "$2="* ]] || echo "${f#*=}"; done
}

@test "the random chase checks its own chain (one cycle, no more neighbours, same-page steps or repeated steps than chance) and reads slower than the stride chase at 64 MiB" {
	local line rnd str n=0 k
	# every chain bench builds is checked as it is built; the hook
	# prints what the check counted and its bounds (docs/latency.md)
	MEMBENCH_CHAIN_STATS=1 run --separate-stderr "$BENCH" latency --stride 64 --min 64M --max 64M --json
	assert_success
	rnd=$(jq '.curve[] | select(.bytes == 67108864) | .ns' <<<"$output")
	while read -r line; do
		[[ $line == "chain pattern=random lines=1048576 cycle=1 "* ||
			$line == "chain pattern=TLB-local lines="*" cycle=1 "* ||
			$line == "chain pattern=line-a-page lines="*" cycle=1 "* ]] ||
			{ echo "not a chain line: $line"; return 1; }
		if [[ $line == "chain pattern=random "* ]]; then
			n=$((n + 1))
			# a random cycle of n lines: 2 neighbours on average, bound
			# 2 + 30 + sqrt(30^2 + 4*30*2)
			[ "$(chain_stat "$line" near_mean)" = 2 ] || return 1
			[ "$(chain_stat "$line" near_bound)" = 65.76 ] || return 1
		fi
		for k in near page repeat; do
			[ "$(chain_stat "$line" "${k}_bound")" = none ] && continue
			awk -v c="$(chain_stat "$line" "$k")" -v b="$(chain_stat "$line" "${k}_bound")" \
				'BEGIN { exit !(c + 0 <= b + 0) }' || { echo "$k over its bound: $line"; return 1; }
		done
	done <<<"$stderr"
	[ "$n" -eq 1 ]
	[[ $stderr == *"chain pattern=TLB-local lines=1048576 "* ]]
	# the stride chase's chain, which claims no order, counts what an
	# address-ordered "random" chain would: every step a neighbour
	MEMBENCH_CHAIN_STATS=1 run --separate-stderr "$BENCH" latency --stride 64 --pattern stride --min 64M --max 64M --json
	assert_success
	str=$(jq '.curve[] | select(.bytes == 67108864) | .ns' <<<"$output")
	line=$(grep '^chain pattern=stride lines=1048576 ' <<<"$stderr")
	[ "$(chain_stat "$line" near)" -ge 1048575 ]
	[ "$(chain_stat "$line" near_bound)" = none ]
	# past L2 (of every machine met so far; past the last level on most)
	# each load of the random chase waits for the next level, where the
	# stride chase's next line up is a prefetcher's first guess and
	# shares its TLB entry with its page's other lines: the random chase
	# read 17 times slower on the Intel guest, and one built in address
	# order as fast (docs/latency.md)
	echo "64 MiB: random $rnd ns, stride $str ns"
	awk -v r="$rnd" -v s="$str" 'BEGIN { exit !(r > 1.5 * s) }'
}

# Runs recorded on the Intel guest (family 6 model 167) by the build of
# commit 5edac5f, replayed: the analysis's checks read them, and nothing
# is measured (tests/fixtures/records/README.md)
REC="$FIX/records"

@test "caches and TLBs measured apart: the summary's caches are the TLB-local chase's, its TLBs the line-a-page chase's, memory both" {
	local json page rec size pages
	# a sweep to 4 MiB, which ends in the L2 (memory not reached), and
	# one to 256 MiB, which reaches memory's plateau: both of memory's
	# readings below
	for rec in "$REC/intel-f6m167-kvm-4k-4m.json" "$REC/intel-f6m167-kvm-4k-256m.json"; do
		run --separate-stderr "$BENCH" latency --curve-in "$rec" --json
		assert_success
		json=$output
		# the record's probes come back as they were read: the TLB-local
		# chase at the sweep's own sizes, the line-a-page chase from 16
		# pages to the buffer's (a live run's are held to this in the test
		# below)
		jq -e '.probes as $p | $p.page_bytes >= 4096 and
			$p.local_window_bytes == 32 * $p.page_bytes and
			($p.tlb_local | map(.bytes)) == (.curve | map(.bytes)) and
			($p.tlb_local | all(.ns > 0)) and
			$p.line_a_page[0].pages == 16 and
			($p.line_a_page[-1].bytes == .run.max_bytes) and
			([$p.line_a_page[] | .bytes == .pages * $p.page_bytes] | all) and
			([$p.line_a_page | range(1; length) as $i | .[$i].pages > .[$i - 1].pages] | all) and
			($p.line_a_page | all(.ns > 0 and (.excess_ns | type) == "number"))' \
			<<<"$json" >/dev/null
		# each line-a-page point's excess is over the TLB-local chase of as
		# many lines (pages x stride bytes), between its points on log-log axes
		jq -e '.probes.tlb_local as $l | .run.strides[0] as $st |
			def at($x): if $x <= $l[0].bytes then $l[0].ns
				else ([range(1; $l | length) | select($l[.].bytes >= $x)][0]) as $i |
				if $i == null then $l[-1].ns else
				(($l[$i - 1].ns | log) + (($l[$i].ns / $l[$i - 1].ns) | log) *
				 (($x / $l[$i - 1].bytes) | log) / (($l[$i].bytes / $l[$i - 1].bytes) | log)) | exp end end;
			[.probes.line_a_page[] | (.excess_ns - (.ns - at(.pages * $st))) | fabs < 1e-6] | all' \
			<<<"$json" >/dev/null
		# each TLB: entries x page = reach, and what a miss adds
		jq -e '.summary[0] as $s | ($s.tlbs | type) == "array" and ($s.tlbs | length) > 0 and
			($s.tlbs | all(.page_bytes == $s.tlbs[0].page_bytes and
				(.entries * .page_bytes - .reach_bytes | fabs) < 1 and
				.reach_bytes >= 16 * .page_bytes and (.miss_ns | type) == "number")) and
			$s.not_measured_apart == null' <<<"$json" >/dev/null
		# memory: the curve's own tail beside the TLB-local chase's, and the
		# difference between them; memory's own latency the median of the
		# TLB-local chase's memory plateau, where it was reached
		jq -e '.summary[0] as $s | .probes.tlb_local[-3:] as $l |
			($l | map(.ns) | sort | .[1]) as $med |
			$s.memory.tail_ns == $s.tail.ns and
			($s.memory.tlb_local_tail_ns - $med | fabs) < 1e-6 and
			($s.memory.tlb_ns - ($s.memory.tail_ns - $med) | fabs) < 1e-6 and
			(if $s.memory.reached then
				[.probes.tlb_local[] | select(.bytes >= $s.memory.from_bytes) | .ns] as $p |
				($p | length) == $s.memory.points and
				($s.memory.ns - ($p | sort | if length % 2 == 1 then .[length / 2 | floor]
					else (.[length / 2 - 1] + .[length / 2]) / 2 end) | fabs) < 1e-6
			 else $s.memory.ns == null and $s.memory.points == null end)' <<<"$json" >/dev/null
		# the levels are the TLB-local curve's, read as a stored curve is:
		# the same names and edges (on this guest's records; not on five
		# of the AMD Zen 3 guest's 4 KiB ones, whose replay reads their
		# probes too: docs/latency.md, "Replaying a record")
		jq -r '"\"stride=64", (.probes.tlb_local[] | "\(.bytes / 1048576) \(.ns)")' \
			<<<"$json" >"$BATS_TEST_TMPDIR/local.txt"
		run --separate-stderr "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/local.txt" --json
		assert_success
		[ "$(jq -c '[.summary[0].levels[] | [.name, .boundary_bytes]]' <<<"$output")" = \
			"$(jq -c '[.summary[0].levels[] | [.name, .boundary_bytes]]' <<<"$json")" ]
		# the text: the three parts once each, and the curve's rises
		page=$(jq -r '.probes.page_bytes / 1024 | floor' <<<"$json")
		pages=$(jq -r '.run.max_bytes / .probes.page_bytes' <<<"$json")
		size=$(jq -r '.run.max_bytes / 1048576 | "\(.) MiB"' <<<"$json")
		jq -e '.summary[0].tlbs_seen as $t | .probes.page_bytes as $p |
			$t == {page_bytes: $p, pages: (.run.max_bytes / $p), bytes: .run.max_bytes, not_measured: null}' \
			<<<"$json" >/dev/null
		run --separate-stderr "$BENCH" latency --curve-in "$rec"
		assert_success
		[ "$(grep -c '^# stride=64: TLBs (a line a page, '"$page"' KiB pages, seen to '"$pages"' of them, '"$size"'):' <<<"$output")" = 1 ]
		[ "$(grep -c '^# stride=64: memory: ' <<<"$output")" = 1 ]
		[ "$(grep -c "^# stride=64: the full random curve's rises:" <<<"$output")" = 1 ]
		refute_line --partial 'not measured apart'
		# the caches line ends in its last level: the tail is memory's line's
		assert_line --regexp '^# stride=64: memory: .*the full random chase [0-9.]+ ns there, TLB misses add -?[0-9.e+-]+ ns$'
		refute_line --regexp "^# stride=64: L1d.* at $size\$"
	done
}

@test "a live run: its probes run where they should, or it says why not, and its summary is the replay of its own record: the stride lines and summary[] alike" {
	local rec="$BATS_TEST_TMPDIR/run.json" args
	# with the probes (the default pattern), and without (a sequential
	# chase, two strides, whose second reads the probes' pages)
	for args in "--min 4K --max 8M --steps-per-octave 4" \
		"--pattern stride --stride 64,128 --min 4K --max 8M --steps-per-octave 2"; do
		# shellcheck disable=SC2086
		run --separate-stderr "$BENCH" latency $args --json-file "$rec"
		assert_success
		local live=$output
		grep -q '^# stride=64: L1d' <<<"$live"
		# what was measured: the TLB-local chase at the sweep's own sizes
		# (every one, at four steps an octave or fewer), in a window of 32
		# base pages; the line-a-page chase from 16 pages to the buffer's,
		# its bytes its pages' span.  A sequential chase runs no probes,
		# and its summary says why
		if [[ $args == --pattern* ]]; then
			jq -e '.probes == null and
				.summary[0].not_measured_apart == "they run beside a random sweep (--pattern random)"' \
				"$rec" >/dev/null
		else
			jq -e '.probes as $p | $p.page_bytes >= 4096 and
				$p.local_window_bytes == 32 * $p.page_bytes and
				($p.tlb_local | map(.bytes)) == (.curve | map(.bytes)) and
				($p.tlb_local | all(.ns > 0)) and
				$p.line_a_page[0].pages == 16 and
				($p.line_a_page[-1].bytes == 8388608) and
				([$p.line_a_page[] | .bytes == .pages * $p.page_bytes] | all) and
				([$p.line_a_page | range(1; length) as $i | .[$i].pages > .[$i - 1].pages] | all) and
				($p.line_a_page | all(.ns > 0 and (.excess_ns | type) == "number"))' \
				"$rec" >/dev/null
		fi
		run --separate-stderr "$BENCH" latency --curve-in "$rec"
		assert_success
		diff <(grep '^# stride=' <<<"$live") <(grep '^# stride=' <<<"$output")
		run --separate-stderr "$BENCH" latency --curve-in "$rec" --json
		assert_success
		[ "$(jq -c .summary "$rec")" = "$(jq -c .summary <<<"$output")" ]
		[ "$(jq -c .probes "$rec")" = "$(jq -c .probes <<<"$output")" ]
		jq -e '.run.base_page_bytes >= 4096' "$rec" >/dev/null
	done
}

@test "the TLB-local chase times every other size above its window, and each size skipped between two points that read apart" {
	# eight steps an octave across the L2's edge: flat stretches at half
	# the sweep's sizes, the edge at all of them.  A size is timed when
	# it is the first above the window, one of the last three (memory's
	# own latency), every other one counting down from the largest, or
	# between two of those that read more than 1.1 times apart (at their
	# first readings, before any re-timing).  The edge is the L2's, as
	# the OS reports it: the sweep runs to twice it (4 MiB at least)
	local cpu l2 win max=$((4 << 20))
	cpu=$("$BENCH" latency --min 4K --max 4K --json | jq -r .run.cpu)
	l2=$(os_cache_bytes "$cpu" 2)
	[ -n "$l2" ] || skip "the OS reports no L2 size for CPU $cpu (/sys/devices/system/cpu/cpu$cpu/cache)"
	win=$(tlb_local_window "$BENCH")
	[ "$l2" -gt "$win" ] ||
		skip "CPU $cpu's L2 ($((l2 / 1024)) KiB, sysfs) ends inside the TLB-local chase's window ($((win / 1024)) KiB): no edge above it"
	[ "$max" -ge $((2 * l2)) ] || max=$((2 * l2))
	run --separate-stderr "$BENCH" latency --min 128K --max "$max" --json
	assert_success
	jq -e '.probes.local_window_bytes as $w | (.curve | map(.bytes)) as $c |
		($c | length) as $n | (.probes.tlb_local | map(.bytes)) as $l |
		(.probes.tlb_local | map({key: (.bytes | tostring),
			value: (.first_ns // .ns)}) | from_entries) as $t |
		([range(0; $n) | select($c[.] > $w)][0]) as $i0 |
		def at($i): $t[$c[$i] | tostring];
		def coarse($i): ($n - 1 - $i) % 2 == 0 or $i + 3 >= $n or $i == $i0;
		def apart($i): (at($i - 1) / at($i + 1)) as $r | $r > 1.1 or $r < 1 / 1.1;
		$i0 != null and ($l - $c) == [] and ($l == ($l | sort)) and
		([range(0; $i0) | at(.) != null] | all) and
		([range($i0; $n) | select(coarse(.)) | at(.) != null] | all) and
		([range($i0; $n) | select(coarse(.) | not) | (at(.) != null) == apart(.)] | all) and
		([range($i0; $n) | select(at(.) == null)] | length > 0) and
		([range($i0; $n) | select(coarse(.) | not) | select(apart(.))] | length > 0)' \
		<<<"$output" >/dev/null ||
		{ jq -c '.probes.local_window_bytes, [.curve[] | .bytes], [.probes.tlb_local[] | [.bytes, .ns, .first_ns]]' <<<"$output"; return 1; }
}

@test "where the probes cannot run, the summary says so once and reads the full random curve, marking edges a TLB could explain" {
	# the live run's part: a sweep to 256 KiB runs no probes, and says
	# why (a sequential chase's reason is held live in "a live run: its
	# probes run where they should"); one size is enough to show it
	run --separate-stderr "$BENCH" latency --min 256K --max 256K --json
	assert_success
	jq -e '.probes == null and
		(.summary[0].not_measured_apart | startswith("--max 256 KiB holds 64 pages"))' <<<"$output" >/dev/null
	# the summary's part, on runs recorded on this guest: 4 KiB to 256
	# KiB, four sizes an octave; and a sequential chase to 1 MiB
	run --separate-stderr "$BENCH" latency --curve-in "$REC/intel-f6m167-kvm-4k-256k.json"
	assert_success
	[ "$(grep -c 'not measured apart' <<<"$output")" = 1 ]
	assert_line --regexp '^# stride=64: caches and TLBs not measured apart \(--max 256 KiB holds 64 pages of [0-9]+ KiB, and the line-a-page chase needs 128\): '
	run --separate-stderr "$BENCH" latency --curve-in "$REC/intel-f6m167-kvm-4k-256k.json" --json
	jq -e '.probes == null and .summary[0].tlbs == null and .summary[0].memory == null and
		(.summary[0].not_measured_apart | startswith("--max 256 KiB holds 64 pages"))' <<<"$output" >/dev/null
	run --separate-stderr "$BENCH" latency --curve-in "$REC/intel-f6m167-kvm-stride-4k-1m.json"
	assert_success
	assert_line '# stride=64: caches and TLBs not measured apart (they run beside a random sweep (--pattern random)): the levels are this curve'"'"'s, and one whose edge could be a TLB'"'"'s reach is marked ?'
}

@test "L1 latency in cycles is a small integer (one load per chase step)" {
	# Up to eight runs: on a busy machine the clock estimate or a point
	# can be caught by preemption (seen while other builds ran, and in a
	# check-fresh where three runs read 3.37-4.53 cycles).  A run that
	# says its clock estimate moved has uncertain cycles by its own
	# account, and is not evidence either way.  A chase that is not one
	# load per step fails all eight.
	local cyc try
	for try in 1 2 3 4 5 6 7 8; do
		run --separate-stderr "$BENCH" latency --min 4K --max 16K --steps-per-octave 4 --json
		assert_success
		cyc=$(printf '%s\n' "$output" | level L1d cycles)
		if jq -e '[.warnings[]? | select(test("clock estimate moved"))] | length > 0' <<<"$output" >/dev/null; then
			echo "try $try: L1d $cyc cycles, but the clock estimate moved"
			continue
		fi
		# the clock beside it, so a failure says which side moved
		echo "try $try: L1d $cyc cycles, $(level L1d ns <<<"$output") ns; clock $(jq -c .clock <<<"$output")"
		awk -v c="$cyc" 'BEGIN {
			r = int(c + 0.5)
			exit !(r >= 2 && r <= 8 && c - r < 0.3 && r - c < 0.3) }' &&
			return 0
	done
	fail "no run gave a whole number of L1 cycles"
}

# The CPU clock as the OS states it, in MHz, as "LOW HIGH": LOW is the
# largest of /proc/cpuinfo's "cpu MHz" lines (a VM's is the host's TSC
# rate), a model name's "@ N.NNGHz" and cpufreq's base frequency; HIGH
# adds cpufreq's maximum (turbo).  Nothing when the OS states none.
os_clock_mhz() {
	{
		awk -F: '/^cpu MHz/ { print "low", $2 + 0 }
			/^model name/ && match($2, /@ *[0-9.]+ *GHz/) {
				f = substr($2, RSTART, RLENGTH); gsub(/[^0-9.]/, "", f)
				print "low", f * 1000 }' /proc/cpuinfo 2>/dev/null
		cat /sys/devices/system/cpu/cpu*/cpufreq/base_frequency 2>/dev/null |
			awk '{ print "low", $1 / 1000 }'
		cat /sys/devices/system/cpu/cpu*/cpufreq/cpuinfo_max_freq 2>/dev/null |
			awk '{ print "high", $1 / 1000 }'
	} | awk '$2 > 0 { if ($1 == "low" && $2 > lo) lo = $2; if ($2 > hi) hi = $2 }
		END { if (lo > 0) print lo, hi }'
}

@test "the clock is measured, and is the CPU's: within 0.6x the OS's stated clock and 2.5x its maximum" {
	# The clock turns a chase's ns into cycles; a wrong constant can still
	# give an L1 latency near a whole number of cycles.  The OS's figure
	# is independent of bench; the margin covers turbo above a VM's TSC
	# rate and a throttled core.  A measured clock is also measured twice
	# a run (start and end, for drift), and two measurements do not agree
	# to nine digits in every one of three runs, which a constant does
	# whatever its value.  Up to three runs, as a busy machine can catch
	# an estimate in preemption.
	local ref lo hi mhz end try differ=0 near=0
	ref=$(os_clock_mhz)
	[ -n "$ref" ] || skip "the OS states no CPU clock"
	read -r lo hi <<<"$ref"
	for try in 1 2 3; do
		run --separate-stderr "$BENCH" latency "${SMALL[@]}" --json
		assert_success
		[ "$(printf '%s\n' "$output" | jq -r .clock.source)" != "from --mhz" ]
		read -r mhz end < <(printf '%s\n' "$output" | jq -r '"\(.clock.mhz) \(.clock.mhz_at_end)"')
		echo "try $try: measured $mhz MHz, at the end $end MHz; the OS states $lo MHz, at most $hi MHz"
		if [ "$mhz" != "$end" ]; then
			differ=1
		fi
		if awk -v m="$mhz" -v lo="$lo" -v hi="$hi" \
			'BEGIN { exit !(m >= 0.6 * lo && m <= 2.5 * hi) }'; then
			near=1
		fi
		[ "$differ$near" != 11 ] || return 0
	done
	[ "$differ" = 1 ] || fail "every run measured the same clock twice: a constant, not a measurement"
	fail "the measured clock is not the CPU's"
}

@test "--mhz overrides the clock estimate and says so" {
	run "$BENCH" latency "${SMALL[@]}" --mhz 1000 --json
	assert_success
	[ "$(printf '%s\n' "$output" | jq -r .clock.source)" = "from --mhz" ]
	printf '%s\n' "$output" |
		jq -e '.curve[0] | (.cycles - .ns) | fabs < 1e-6' >/dev/null
}

@test "JSON parses and carries curve, summary and the page report; the default stride is sysfs's line, else 64" {
	local sys stride
	# a 128-byte line, so the default stride shows where it came from
	for sys in $(each_sysfs 128); do
		stride=64
		[[ "$sys" == *-none ]] || stride=128
		MEMBENCH_SYSFS=$sys run "$BENCH" latency "${SMALL[@]}" --json
		assert_success
		printf '%s\n' "$output" | jq -e --argjson s "$stride" '
		.schema == "membench/1" and .mode == "latency" and
		.run.pattern == "random" and .run.strides == [$s] and
		(.curve | length) == 9 and .curve[0].bytes == 4096 and
		(.curve | all(.ns > 0 and .repeats >= 1)) and
		.summary[0].stride == $s and (.summary[0].levels | length) >= 1 and
		.run.buffer.page_kib >= 4 and (.clock.mhz > 100) and
		.build.compiler != null and .system.caches != null' >/dev/null
	done
}

# guest_caches ROOT FLAGS [L1 L2 [L3]]: a fake sysfs and procfs under
# ROOT whose caches are L1d and L1i L1, L2 and L3 (none when not given;
# by default QEMU's built-in Intel descriptors, L1d 32 KiB, L2 4 MiB, L3
# 16 MiB), and whose CPU has FLAGS.  Point MEMBENCH_SYSFS at ROOT/sys and
# MEMBENCH_PROCFS at ROOT/proc.
guest_caches() {
	local root="$1" flags="$2" i d
	[ $# -gt 2 ] || set -- "$1" "$2" 32K 4096K 16384K
	local -a spec=("1 Data $3" "1 Instruction $3" "2 Unified $4")
	[ -z "${5:-}" ] || spec+=("3 Unified $5")
	for i in "${!spec[@]}"; do
		d="$root/sys/devices/system/cpu/cpu0/cache/index$i"
		mkdir -p "$d"
		set -- ${spec[$i]}
		echo "$1" >"$d/level"
		echo "$2" >"$d/type"
		echo "$3" >"$d/size"
		echo 64 >"$d/coherency_line_size"
	done
	mkdir -p "$root/proc"
	printf 'processor\t: 0\nmodel name\t: Intel Xeon Processor (Icelake)\nflags\t\t: %s\n' \
		"$flags" >"$root/proc/cpuinfo"
}

# on_machine ROOT: a run recorded on this guest (4 KiB to 4 MiB) as a
# run on the machine whose fake sysfs and procfs are under ROOT would
# record it: its system part is what bench info --json reads there, which
# is what a live run writes (the same reading of the OS), so a replay of
# it is the analysis a live run there prints; the file's path is printed
on_machine() {
	local f="$BATS_TEST_TMPDIR/on-machine.json"
	MEMBENCH_SYSFS="$1/sys" MEMBENCH_PROCFS="$1/proc" "$BENCH" info --json >"$f.info"
	jq --slurpfile i "$f.info" '.system = $i[0].system' "$REC/intel-f6m167-kvm-4k-4m.json" >"$f"
	echo "$f"
}

@test "a guest's made-up caches (QEMU's built-in ones) are said to be, and the summary is read without them" {
	local g="$BATS_TEST_TMPDIR/guest" h="$BATS_TEST_TMPDIR/host" rec
	guest_caches "$g" "fpu sse2 avx512f hypervisor"
	guest_caches "$h" "fpu sse2 avx512f hypervisorx"
	MEMBENCH_SYSFS="$g/sys" MEMBENCH_PROCFS="$g/proc" run "$BENCH" info
	assert_success
	assert_line "Caches: these sizes are QEMU's built-in Intel cache descriptors, which a guest gets when its CPU model names none: they are not the host's, and the latency summary does not use them"
	# the summary of a run there (on_machine: what nothing measured
	# needs, replayed)
	rec=$(on_machine "$g")
	run --separate-stderr "$BENCH" latency --curve-in "$rec" --json
	assert_success
	jq -e '.system.hypervisor == true and
		.system.caches_made_up_by == "QEMU'"'"'s built-in Intel cache descriptors" and
		.summary[0].caches == [] and all(.summary[0].levels[]; .os_bytes == null)' <<<"$output" >/dev/null
	run --separate-stderr "$BENCH" latency --curve-in "$rec"
	assert_line "# OS-reported caches: L1d 32 KiB | L2 4 MiB | L3 16 MiB (QEMU's built-in Intel cache descriptors, not the host's: not used)"
	# the same sizes on a CPU that runs under no hypervisor (a Core 2 has
	# a 32 KiB L1d and a 4 MiB L2) are the OS's, and are used
	rec=$(on_machine "$h")
	run --separate-stderr "$BENCH" latency --curve-in "$rec" --json
	assert_success
	jq -e '.system.hypervisor == false and .system.caches_made_up_by == null and
		.summary[0].caches == [32768, 4194304, 16777216]' <<<"$output" >/dev/null
	MEMBENCH_SYSFS="$h/sys" MEMBENCH_PROCFS="$h/proc" run "$BENCH" info
	refute_line --partial "built-in"
	# one size off is a real cache
	echo 48K >"$g/sys/devices/system/cpu/cpu0/cache/index0/size"
	rec=$(on_machine "$g")
	run --separate-stderr "$BENCH" latency --curve-in "$rec" --json
	jq -e '.system.caches_made_up_by == null and
		.summary[0].caches == [49152, 4194304, 16777216]' <<<"$output" >/dev/null
}

@test "made-up caches are told by QEMU's AMD sizes too, and without an L3 (older machine types); near misses are real" {
	local g="$BATS_TEST_TMPDIR/guest" h="$BATS_TEST_TMPDIR/host" who sizes want
	local intel="QEMU's built-in Intel cache descriptors" amd="QEMU's built-in AMD cache descriptors"
	# QEMU's legacy AMD descriptors (target/i386/cpu.c): L1d 64 KiB, L2
	# 512 KiB, and its one legacy L3, 16 MiB, only with l3-cache
	while IFS='|' read -r who sizes want; do
		rm -rf "$g" "$h"
		# shellcheck disable=SC2086 # the sizes are words
		guest_caches "$g" "fpu sse2 hypervisor" $sizes
		# shellcheck disable=SC2086
		guest_caches "$h" "fpu sse2" $sizes
		# the test above follows made-up sizes into the summary; here
		# only the reading of them, so bench info's is enough
		MEMBENCH_SYSFS="$g/sys" MEMBENCH_PROCFS="$g/proc" run --separate-stderr "$BENCH" info --json
		assert_success
		jq -e --arg who "$who" '.system.caches_made_up_by == $who' <<<"$output" >/dev/null ||
			fail "$sizes under a hypervisor: $(jq -c .system.caches_made_up_by <<<"$output")"
		run --separate-stderr "$BENCH" latency --curve-in "$(on_machine "$g")"
		assert_success
		assert_line "# OS-reported caches: $want ($who, not the host's: not used)"
		MEMBENCH_SYSFS="$g/sys" MEMBENCH_PROCFS="$g/proc" run "$BENCH" info
		assert_line "Caches: these sizes are $who, which a guest gets when its CPU model names none: they are not the host's, and the latency summary does not use them"
		# without the hypervisor flag the same sizes are the OS's
		MEMBENCH_SYSFS="$h/sys" MEMBENCH_PROCFS="$h/proc" run --separate-stderr "$BENCH" info --json
		assert_success
		jq -e '.system.caches_made_up_by == null and (.system.caches | length) > 2' <<<"$output" >/dev/null
	done <<EOT
$amd|64K 512K 16384K|L1d 64 KiB | L2 512 KiB | L3 16 MiB
$amd|64K 512K|L1d 64 KiB | L2 512 KiB
$intel|32K 4096K|L1d 32 KiB | L2 4 MiB
EOT
	# near misses are real caches: an AMD L1d with Intel's L2, AMD's L1d
	# and L2 with another L3, a size one step off
	for sizes in "64K 4096K 16384K" "32K 512K 16384K" "64K 512K 32768K" "64K 1024K" "32K 2048K"; do
		rm -rf "$g"
		# shellcheck disable=SC2086
		guest_caches "$g" "fpu sse2 hypervisor" $sizes
		MEMBENCH_SYSFS="$g/sys" MEMBENCH_PROCFS="$g/proc" run --separate-stderr "$BENCH" info --json
		assert_success
		jq -e '.system.caches_made_up_by == null and (.system.caches | length) > 2' <<<"$output" >/dev/null ||
			fail "$sizes: $(jq -c '[.system.caches_made_up_by, .system.caches]' <<<"$output")"
	done
}

@test "stride and page patterns run" {
	run "$BENCH" latency "${SMALL[@]}" --pattern stride
	assert_success
	assert_line --regexp '^# membench .* pattern stride'
	run "$BENCH" latency --min 4K --max 256K --steps-per-octave 1 --pattern page
	assert_success
	assert_line --regexp '^# membench .* pattern page'
}

@test "--alloc applies to the chase buffer and its pages are reported" {
	run "$BENCH" latency "${SMALL[@]}" --alloc malloc --json
	assert_success
	[ "$(printf '%s\n' "$output" | jq -r .run.alloc)" = malloc ]
	run "$BENCH" latency --min 4M --max 4M --alloc thp --json
	assert_success
	printf '%s\n' "$output" | jq -e '.run.buffer.huge_pct >= 0' >/dev/null
}

@test "detector: four levels with 3% noise and spikes" {
	run "$BENCH" latency --curve-in "$FIX/curve-4level.txt" --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		def near(a; b; f): a >= b / f and a <= b * f;
		.summary[0].levels as $l |
		($l | map(.name)) == ["L1d", "L2", "L3", "DRAM"] and
		near($l[0].ns; 1.2; 1.1) and near($l[1].ns; 4; 1.1) and
		near($l[2].ns; 13; 1.1) and near($l[3].ns; 100; 1.1) and
		near($l[0].boundary_bytes; 49152; 1.41) and
		near($l[1].boundary_bytes; 2097152; 1.41) and
		near($l[2].boundary_bytes; 33554432; 1.41) and
		$l[3].boundary_bytes == null' >/dev/null
}

@test "detector: a level's ns is its plateau's median, the mean of the middle two for an even count" {
	# Six points a level, half an octave apart, alternating: L1d 1.00
	# and 1.08 ns (median 1.04), memory 100 and 104 ns (median 102).
	{
		echo '"stride=64'
		awk 'BEGIN { for (i = 0; i < 6; i++) printf "%.5f %.3f\n", 0.00390625 * 2 ^ (i / 2), (i % 2 ? 1.08 : 1.00)
			for (i = 0; i < 6; i++) printf "%.5f %.3f\n", 64 * 2 ^ (i / 2), (i % 2 ? 104 : 100) }'
	} >"$BATS_TEST_TMPDIR/even.txt"
	run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/even.txt" --json
	assert_success
	run jq -r '.summary[0].levels[] | "\(.name) \(.ns * 1000 | round / 1000)"' <<<"$output"
	assert_output 'L1d 1.04
DRAM 102'
}

@test "detector: the same hierarchy with 8% noise" {
	run "$BENCH" latency --curve-in "$FIX/curve-noisy.txt" --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		def near(a; b; f): a >= b / f and a <= b * f;
		.summary[0].levels as $l |
		($l | map(.name)) == ["L1d", "L2", "L3", "DRAM"] and
		near($l[1].ns; 4; 1.15) and near($l[3].ns; 100; 1.15) and
		near($l[1].boundary_bytes; 2097152; 1.41)' >/dev/null
}

@test "detector: POWER9-like sizes (lat_mem_rd on POWER9), cycles from --mhz" {
	run "$BENCH" latency --curve-in "$FIX/curve-power9.txt" --mhz 2000
	assert_success
	# no caches or TLBs given: edges where a TLB could run out are marked
	assert_output --regexp 'L1d 3[0-9.]+ KiB 1.0[0-9] ns 2.1 cyc \| L2\? 5[0-9.]+ KiB 4.2[0-9] ns'
	assert_output --regexp '\| L3\? (9|10|11)[0-9.]* MiB 9.[0-9]+ ns .* \| DRAM 7[0-9.]+ ns'
}

@test "detector: memory that slows past 64 MiB is one DRAM level with a step, not an L4" {
	run "$BENCH" latency --curve-in "$FIX/curve-dram-step.txt" --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		def near(a; b; f): a >= b / f and a <= b * f;
		.summary[0].levels as $l |
		($l | map(.name)) == ["L1d", "L2", "L3", "DRAM"] and
		near($l[2].boundary_bytes; 8388608; 1.41) and
		near($l[3].ns; 130; 1.1) and ($l[3].steps | length) == 1 and
		near($l[3].steps[0].ns; 200; 1.1) and
		near($l[3].steps[0].from_bytes; 67108864; 1.41)' >/dev/null
	run "$BENCH" latency --curve-in "$FIX/curve-dram-step.txt"
	assert_success
	assert_line --regexp '^# stride=64: L1d .* \| L3\? [0-9.]+ MiB 1[34][.0-9]* ns \| DRAM 1[23][0-9] ns from [0-9.]+ MiB \((19|20)[0-9] ns from [0-9.]+ MiB\), (19|20)[0-9] ns at 256 MiB$'
}

@test "detector: a sweep that stops in L2 says DRAM was not reached" {
	run "$BENCH" latency --curve-in "$FIX/curve-no-dram.txt"
	assert_success
	assert_line --regexp '^# stride=64: L1d .* \| L2 3\.[0-9]+ ns from [0-9.]+ KiB, 3\.[0-9]+ ns at 1 MiB$'
	assert_line --partial 'DRAM not reached'
}

@test "detector reads bench's own output back" {
	local sys
	# the stride the file's header names, whichever the default was
	for sys in $(each_sysfs 128); do
		MEMBENCH_SYSFS=$sys "$BENCH" latency "${SMALL[@]}" >"$BATS_TEST_TMPDIR/own.txt"
		MEMBENCH_SYSFS=$sys run "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/own.txt"
		assert_success
		assert_line --regexp "^# stride=$(sed -n '1s/^"stride=//p' "$BATS_TEST_TMPDIR/own.txt"): L1d\\?? "
	done
}

@test "--curve-in refuses a stride header that is not a whole number of bytes, naming the file and line" {
	local bad c="$BATS_TEST_TMPDIR/c"
	# -64 was read as 2^64 - 64 and a huge one clamped to 2^63 - 1
	for bad in -64 +64 1e20 100000000000000000000 0 "" 64x 0x40 1125899906842625; do
		printf '# a comment\n"stride=%s\n0.00049 1.1\n0.00098 1.2\n' "$bad" >"$c"
		refused --curve-in "$c"
		[ "$stderr" = "bench: --curve-in $c:2: the \"stride= header is not a whole number of bytes from 1 to 2^50" ] ||
			{ echo "stride=$bad: $stderr"; return 1; }
	done
	# the largest is read as it is, and so is lat_mem_rd's CRLF line
	printf '"stride=1125899906842624\n0.00049 1.1\n\n"stride=128\r\n0.00049 1.1\n' >"$c"
	run "$BENCH" latency --curve-in "$c" --json
	assert_success
	jq -e '[.summary[].stride] == [1125899906842624, 128]' <<<"$output"
}

@test "--curve-in refuses a file that is not a curve" {
	printf 'hello world\n' >"$BATS_TEST_TMPDIR/bad.txt"
	refused --curve-in "$BATS_TEST_TMPDIR/bad.txt"
	[[ "$stderr" == *'not a "size_MB ns" line'* ]]
	refused --curve-in "$BATS_TEST_TMPDIR/missing.txt"
}

@test "bad input: --min larger than --max" {
	refused --min 1M --max 64K
	[[ "$stderr" == *"--min 1 MiB is larger than --max 64 KiB"* ]]
}

@test "bad input: --stride 0 and a stride that is not a pointer multiple" {
	refused --stride 0
	[[ "$stderr" == *"--stride: 0 is not a positive multiple"* ]]
	refused --stride 12
}

@test "bad input: a stride list with an empty entry, as every comma list" {
	for l in 64,,128 ,64 "64,"; do
		refused --stride "$l"
		[[ "$stderr" == *"--stride: '$l' has an empty entry"* ]]
	done
}

@test "bad input: a stride larger than --max" {
	refused --stride 1M --max 64K
	[[ "$stderr" == *"--stride 1048576"* ]]
}

@test "bad input: unknown pattern" {
	refused --pattern zigzag
	[[ "$stderr" == *"unknown pattern 'zigzag'"* ]]
}

@test "bad input: --chains 0 and too many chains" {
	refused --chains 0
	[[ "$stderr" == *"--chains"* ]]
	refused --chains 17
}

@test "bad input: --max larger than physical memory" {
	refused --max 64T --stride 65536
	[[ "$stderr" == *"larger than this machine's physical memory"* ]]
}

@test "bad input: --mhz must be a positive number" {
	refused --mhz -5
	refused --mhz abc
}

@test "latency options do not apply to stream" {
	run --separate-stderr "$BENCH" stream --chains 2
	assert_failure 2
	[[ "$stderr" == *"--chains does not apply to mode 'stream'"* ]]
}

@test "bench all: STREAM's table, then the latency summary" {
	local sys stride
	for sys in $(each_sysfs 128); do
		stride=64
		[[ "$sys" == *-none ]] || stride=128
		MEMBENCH_SYSFS=$sys run "$BENCH" all $TINY --max 1M --steps-per-octave 2
		assert_success
		assert_line --regexp '^Triad: +[0-9]'
		assert_line --partial 'Solution Validates'
		assert_line --regexp "^# stride=$stride: L1d\\?? "
		refute_line --regexp '^"stride='
	done
	run "$BENCH" all $TINY --max 1M --steps-per-octave 2 --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		.mode == "all" and (.results | length) == 4 and
		.latency.summary[0].levels[0].name == "L1d" and
		(.latency.curve | length) > 0' >/dev/null
}

@test "bench all refuses bad latency options before measuring" {
	run --separate-stderr "$BENCH" all $TINY --min 1M --max 64K
	assert_failure 2
	assert_output ""
}

@test "harness/time-latency-sweep times runs and prints medians" {
	export MEMBENCH_RESULTS="$BATS_TEST_TMPDIR/results"
	run "$MEMBENCH_ROOT/harness/time-latency-sweep" -n 2 -b "$BENCH" -- \
		--min 4K --max 64K --steps-per-octave 2
	assert_success
	# each run's row holds its own JSON's L1d and clock, and the median
	# row of two runs their mean: values from the runs, not a machine's
	# speed (an L1 of "1.x ns" fails at 2.2 GHz)
	local d l1 mhz
	d=$(ls -d "$MEMBENCH_RESULTS"/*/*-time-latency-sweep)
	for i in 1 2; do
		l1[i]=$(jq -r '.summary[0].levels[] | select(.name == "L1d") | .ns' "$d/run-$i.json")
		mhz[i]=$(jq -r '.clock.mhz' "$d/run-$i.json")
		# rounded as the harness rounds (round_as_c)
		assert_line --regexp "^bench +$i +[0-9]+\.[0-9]+ +$(round_as_c 2 "${l1[i]}") .* $(round_as_c 2 "${mhz[i]}")\$"
	done
	assert_line --regexp "^bench +median +[0-9.]+ +$(awk -v a="${l1[1]}" -v b="${l1[2]}" 'BEGIN { printf "%.2f", (a + b) / 2 }') "
	run "$MEMBENCH_ROOT/harness/time-latency-sweep" -n x
	assert_failure 2
}

@test "harness/time-latency-sweep: the median of an even number of runs is the mean of the middle two" {
	# A stand-in bench: run N reports line N (L1d, L2 and DRAM ns, MHz).
	printf '%s\n' '1.6 4.6 86 2300' '1.0 4.0 80 2000' '2.0 5.0 90 2400' '1.2 4.2 82 2100' >"$BATS_TEST_TMPDIR/runs"
	cat >"$BATS_TEST_TMPDIR/bench" <<EOT
#!/bin/sh
[ "\$1" = latency ] || exit 2
n=\$(cat "$BATS_TEST_TMPDIR/n" 2>/dev/null || echo 0); n=\$((n + 1)); echo "\$n" >"$BATS_TEST_TMPDIR/n"
set -- \$(sed -n "\${n}p" "$BATS_TEST_TMPDIR/runs")
printf '{"schema":"membench/1","mode":"latency","summary":[{"stride":64,"levels":[{"name":"L1d","ns":%s},{"name":"L2","ns":%s},{"name":"DRAM","ns":%s}]}],"clock":{"mhz":%s}}\n' "\$@"
EOT
	chmod +x "$BATS_TEST_TMPDIR/bench"
	MEMBENCH_RESULTS=$BATS_TEST_TMPDIR/results run "$MEMBENCH_ROOT/harness/time-latency-sweep" -n 4 -b "$BATS_TEST_TMPDIR/bench"
	assert_success
	assert_line --regexp '^bench +2 +[0-9.]+ +1\.00 +4\.00 +80\.00 +2000\.00$'
	# sorted: 1.0 1.2 1.6 2.0, 4.0 4.2 4.6 5.0, 80 82 86 90, 2000 2100 2300 2400
	assert_line --regexp '^bench +median +[0-9.]+ +1\.40 +4\.40 +84\.00 +2200\.00$'
}
