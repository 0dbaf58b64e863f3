#!/usr/bin/env bats
# $stderr is set by bats' run.
# shellcheck disable=SC2154
# bench hierarchy: each level the latency analysis names, its bandwidth
# beside its latency.  The levels come from crafted or recorded curves
# (--curve-in), so the table's shape, working sets and refusals do not
# depend on this machine's caches; the bandwidth is measured here, at
# small sizes.  One live run sweeps its own (short) curve.

load test_helper

setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; } # its tests run in order (CONTRIBUTING.md)

FIX="$BATS_TEST_DIRNAME/fixtures"
# memory's arrays small and few repetitions: the tests read the shape
SMALL=(-s 200000 -n 3)

# stair FILE LEVELS...: a staircase curve to 256 MiB
stair() {
	local f="$1"
	shift
	awk -v max=268435456 -v levels="$*" -f "$FIX/stair-curve.awk" >"$f"
}

# hier ARGS...: bench hierarchy's JSON, on no sysfs caches (so L1 and
# L2 are private and L3 shared, whatever this machine says) and 2 threads
hier() {
	mkdir -p "$BATS_TEST_TMPDIR/sys"
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/sys" run --separate-stderr \
		"$BENCH" hierarchy -t 2 "${SMALL[@]}" --json "$@"
	assert_success
}

@test "a crafted curve: a row per level and thread count, memory last, working sets inside each level" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 10485760:15 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,10M
	jq -e '
	  (.hierarchy | map([.level, .threads])) ==
	    [["L1d",1],["L1d",2],["L2",1],["L2",2],["L3",1],["L3",2],
	     ["DRAM",1],["DRAM",2]]
	  and (.hierarchy | map(select(.level != "DRAM")) | all(
	    .measured and
	    # 1/2 of the upper edge, on 4 KiB, at least 2x the lower edge
	    (if .threads == 1 then .working_set_bytes ==
	       ((.edge_hi_bytes / 2 / 4096 | floor) * 4096) else true end) and
	    .working_set_bytes / (if .shared then 1 else .threads end) <=
	       .edge_hi_bytes / 2 and
	    .working_set_thread_bytes >= 2 * .edge_lo_bytes))
	  # private levels: a share per core; the shared L3: split
	  and ([.hierarchy[] | select(.level == "L2")] |
	       .[1].working_set_bytes == 2 * .[0].working_set_bytes)
	  and ([.hierarchy[] | select(.level == "L3")] |
	       .[1].working_set_bytes == .[0].working_set_bytes and
	       .[1].working_set_thread_bytes * 2 == .[0].working_set_bytes)
	  # memory: STREAM'\''s three arrays of -s elements
	  and ([.hierarchy[] | select(.level == "DRAM")] |
	       all(.working_set_bytes == 3 * 200000 * 8))
	  and (.hierarchy | all(.read_mbs > 0 and .write_mbs > 0 and
	       .copy_mbs > 0 and .triad_mbs > 0))
	  and .hierarchy_valid
	' <<<"$output" >/dev/null
}

@test "the rows' latency is the summary's, level for level" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 10485760:15 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,10M
	jq -e '(.latency.summary[0].levels | map({(.name): .ns}) | add) as $ns
	  | (.hierarchy | length) == 8
	  and (.hierarchy | all(.latency_ns == $ns[.level]))' \
		<<<"$output" >/dev/null
}

@test "the text table: the header, a row per level and thread count, the working-set rule" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 10485760:15 0:90
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR" run --separate-stderr "$BENCH" \
		hierarchy -t 2 "${SMALL[@]}" --curve-in "$BATS_TEST_TMPDIR/c.txt" \
		--caches 32K,1M,10M --mhz 3000
	assert_success
	assert_line --regexp '^Level +Threads +WorkSet +Lat\.ns +read MB/s +write MB/s +copy MB/s +triad MB/s +Lat\.cyc +B/c/core'
	assert_line --regexp '^L1d +1 +16 KiB +1 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +3\.0 +[0-9.]+'
	assert_line --regexp '^L2 +2 +1\.0 MiB +3\.[0-9]+ '
	assert_line --regexp '^DRAM +2 +4\.6 MiB +'
	assert_line --partial 'Working set: the kernel'
	[ "$(grep -cE '^(L1d|L2|L3|DRAM) +[12] ' <<<"$output")" -eq 8 ]
}

@test "CSV: a header and the JSON's rows" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 10485760:15 0:90
	run --separate-stderr "$BENCH" hierarchy -t 2 "${SMALL[@]}" --csv \
		--curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,10M
	assert_success
	assert_line --index 0 'level,threads,working_set_bytes,latency_ns,read_mbs,write_mbs,copy_mbs,triad_mbs,read_bytes_per_cycle_per_core,told_apart,note'
	[ "${#lines[@]}" -eq 9 ]
	assert_line --index 8 --regexp '^DRAM,2,4800000,'
}

@test "a level named uncertainly gets no row, and the reason is printed" {
	# without --caches, the curve's L2 and L3 edges could be TLBs' reach
	hier --curve-in "$FIX/curve-4level.txt"
	jq -e '(.hierarchy | map(.level) | unique) == ["DRAM", "L1d"] and
	  (.hierarchy_skipped | length) == 2 and
	  (.hierarchy_skipped[0] | test("^L2\\? has no row: the latency analysis names it uncertainly \\(its edge could be a TLB.s reach\\)$"))' \
		<<<"$output" >/dev/null
	run --separate-stderr "$BENCH" hierarchy -t 2 "${SMALL[@]}" \
		--curve-in "$FIX/curve-4level.txt"
	assert_success
	assert_line '  L3? has no row: the latency analysis names it uncertainly (its edge could be a TLB'"'"'s reach)'
	refute_line --regexp '^L[23] '
}

@test "a level the sweep never left has no edge, and no row" {
	hier --curve-in "$FIX/curve-no-dram.txt"
	jq -e '(.hierarchy | map(.level) | unique) == ["DRAM", "L1d"] and
	  (.hierarchy_skipped[0] | test("^L2 has no row: the sweep never left it"))' \
		<<<"$output" >/dev/null
}

@test "a shared level too small to split among the threads is said so, not measured" {
	# L3 6 MiB: 3 MiB holds 1 thread 2x above L2's 1 MiB, 2 threads not
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 6291456:15 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,6M
	jq -e '[.hierarchy[] | select(.level == "L3")] |
	  .[0].measured and .[0].read_mbs > 0 and
	  (.[1].measured | not) and .[1].read_mbs == null and
	  (.[1].why | test("^L3 is too small to split among 2 threads: a share of 1\\.[0-9] MiB is under 2x the level below \\(1\\.0 MiB\\)$"))' \
		<<<"$output" >/dev/null
}

@test "edges too close for a working set inside: no row, and why" {
	# L2 ends at 96 KiB: 48 KiB is not 2x above L1d's 32 KiB
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 98304:4 10485760:15 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,96K,10M
	jq -e '(.hierarchy | map(.level) | unique) == ["DRAM", "L1d", "L3"] and
	  (.hierarchy_skipped | any(test("^L2 has no row: its edges .* are too close")))' \
		<<<"$output" >/dev/null
}

@test "told apart: a cache level's flag follows its Read against the next measured level's, by its spread" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 10485760:15 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,10M -n 5
	local t
	for t in 1 2; do
		jq -e --argjson t "$t" '[.hierarchy[] | select(.threads == $t)] as $r
		  | [range(0; ($r | length) - 1) | $r[.] as $a | $r[. + 1] as $b |
		     $a.told_apart == ($a.read_mbs > $b.read_mbs and
		       $a.read_mbs - $b.read_mbs >= $a.read_mbs * $a.read_spread_pct / 100)]
		  | all and ($r[-1].told_apart == null)' <<<"$output" >/dev/null
	done
}

@test "bytes per cycle per core: every cache row's Read over the clock and its threads, none for memory" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 10485760:15 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,10M --mhz 2345.5
	jq -e '.hierarchy_mhz as $mhz | $mhz == 2345.5 and
	  ([.hierarchy[] | select(.level != "DRAM") | .level] | unique) ==
	    ["L1d", "L2", "L3"] and
	  (.hierarchy | all(if .level == "DRAM" then
	      .read_bytes_per_cycle_per_core == null
	    else (.read_mbs / $mhz / .threads) as $b |
	      (.read_bytes_per_cycle_per_core - $b | fabs) < 1e-6 * $b end))' \
		<<<"$output" >/dev/null
}

# cpuinfo VENDOR FAMILY MODEL [FLAGS]: a /proc whose cpuinfo names that
# CPU (flags "fpu" unless FLAGS says)
cpuinfo() {
	mkdir -p "$BATS_TEST_TMPDIR/proc"
	cp -r /proc/meminfo "$BATS_TEST_TMPDIR/proc/" 2>/dev/null || true
	printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: test CPU\nflags\t\t: %s\n' \
		"$1" "$2" "$3" "${4:-fpu}" >"$BATS_TEST_TMPDIR/proc/cpuinfo"
}

# zen4_peak_ok: the L1d row's peak per kernel is what a Zen 4 core's
# widths give (57647: two 256-bit loads and one 256-bit store a cycle;
# a 512-bit access takes two 256-bit slots), counted here in slots from
# the JSON's own clock and each method's vector width; the per cent is
# the measured figure over it, unclipped.  The JSON on stdin.
zen4_peak_ok() {
	jq -e '.hierarchy_mhz as $mhz | .hierarchy[0] as $l |
	  {sse2: 128, avx2: 256, avx512: 512} as $bits |
	  {read: [1, 0], write: [0, 1], copy: [1, 1], triad: [2, 1]} as $ls |
	  $mhz > 0 and $l.level == "L1d" and $l.core == "AMD Zen 4 (family 19h)" and
	  ($l.peak_source | test("^Software Optimization Guide for the AMD Zen4 Microarchitecture, publication 57647: section 2\\.11 .*section 2\\.12 ")) and
	  ([$ls | to_entries[] | .key as $k | .value as [$nl, $ns] |
	    ($l[$k + "_method"] | split("/")[1] // "none") as $isa |
	    if $bits[$isa] == null then $l.core_peak[$k].mbs == null
	    else ($bits[$isa]) as $w | (($w + 255) / 256 | floor) as $slots |
	      ([$nl * $slots / 2, $ns * $slots / 1] | max) as $cycles |
	      (($nl + $ns) * $w / 8 / $cycles * $mhz) as $peak |
	      ($l.core_peak[$k].mbs - $peak | fabs) < 1e-6 * $peak and
	      (100 * $l[$k + "_mbs"] / $peak) as $pct |
	      ($l.core_peak[$k].pct - $pct | fabs) < 1e-6 * $pct
	    end] | all) and
	  # the top-level figure is the kernel nearest its peak
	  ($l.peak_kernel as $k | $l.core_peak_mbs == $l.core_peak[$k].mbs and
	   $l.peak_pct == ([$l.core_peak[] | .pct // empty] | max)) and
	  # above 100% is said so, naming the kernels
	  ([$l.core_peak | to_entries[] | select(.value.pct != null and
	     .value.pct > 100) | .key] as $over |
	   if ($over | length) > 0
	   then $l.peak_warning == "above the peak: \($over | join(", ")); the table'\''s entry or the clock is wrong"
	   else $l.peak_warning == null end)' >/dev/null
}

@test "L1d peak: a CPU in the table gets its peak from its widths, the clock and the method's width, with the source" {
	# AMD family 16h: one 128-bit load and one 128-bit store a cycle
	cpuinfo AuthenticAMD 22 0
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
		--curve-in "$FIX/curve-4level.txt" --mhz 1000
	jq -e '.hierarchy[0] as $l | $l.level == "L1d" and
	  $l.core == "AMD family 16h (Jaguar)" and
	  ($l.peak_source | test("^Software Optimization Guide for AMD Family 16h Processors, publication 52128 .*section 2\\.5\\.2")) and
	  # Write: one 16-byte store a cycle at any width of 128 bits or more
	  (if ($l.write_method | test("avx|sse")) then
	     $l.core_peak.write.mbs == 16000 and
	     ($l.core_peak.write.pct - 100 * $l.write_mbs / 16000 | fabs) < 1e-4
	   else $l.core_peak.write.mbs == null end) and
	  # Triad: two loads and a store, the loads one a cycle: 48 B in 2 cycles
	  (if ($l.triad_method | test("avx|sse")) then
	     $l.core_peak.triad.mbs == 24000 else true end) and
	  ($l.peak_pct == null or $l.peak_pct > 0)' <<<"$output" >/dev/null
	# a model of family 16h outside the guide's models is not in it
	cpuinfo AuthenticAMD 22 48
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
		--curve-in "$FIX/curve-4level.txt" --mhz 1000
	jq -e '.hierarchy[0] | .peak_pct == null and
	  (.peak_note | test("family 22 model 48 is not in"))' <<<"$output" >/dev/null
}

@test "L1d peak: Zen 4 by family 19h model, its peak counted from the clock and the method's width" {
	local model mhz
	# both of Linux's Zen 4 model ranges, at clocks of no round figure
	for model in 17 97 160; do
		for mhz in 2345.5 1; do
			cpuinfo AuthenticAMD 25 "$model"
			MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
				--curve-in "$FIX/curve-4level.txt" --mhz "$mhz"
			zen4_peak_ok <<<"$output"
			jq -e '.hierarchy[0].peak_caveat == null' <<<"$output" >/dev/null
		done
	done
	# at 256 bits a vector takes one slot, not two (where the CPU has AVX2)
	if grep -qw avx2 /proc/cpuinfo; then
		cpuinfo AuthenticAMD 25 97
		MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
			--curve-in "$FIX/curve-4level.txt" --mhz 2345.5 --isa avx2
		zen4_peak_ok <<<"$output"
	fi
	# family 19h models outside them are Zen 3's (or unknown): no peak
	for model in 1 33 95 176; do
		cpuinfo AuthenticAMD 25 "$model"
		MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
			--curve-in "$FIX/curve-4level.txt" --mhz 1000
		jq -e --arg m "$model" '.hierarchy[0] | .peak_pct == null and
		  .core == null and
		  .peak_note == "AuthenticAMD family 25 model \($m) is not in bench'\''s table of cores (hier_cores[])"' \
			<<<"$output" >/dev/null
	done
}

@test "L1d peak: under a hypervisor the entry of the reported model is used, and said so" {
	cpuinfo AuthenticAMD 25 17 "fpu vme hypervisor lahf_lm"
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
		--curve-in "$FIX/curve-4level.txt" --mhz 3000
	zen4_peak_ok <<<"$output"
	jq -e '.hierarchy[0].peak_caveat | test("^a hypervisor reports this CPU.s family and model")' \
		<<<"$output" >/dev/null
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" run --separate-stderr "$BENCH" \
		hierarchy -t 2 "${SMALL[@]}" --curve-in "$FIX/curve-4level.txt" \
		--mhz 3000
	assert_success
	assert_line --regexp '^L1d core peak \(AMD Zen 4 \(family 19h\), AuthenticAMD family 25 model 17; 2 x 256-bit loads \+ 1 x 256-bit stores, 32 B of stores a cycle, at 3000 MHz\): read '
	assert_line '  caveat: a hypervisor reports this CPU'\''s family and model (cpuinfo'\''s "hypervisor" flag); the entry is the reported model'\''s, which need not be the host'\''s core'
	# "hypervisor" must be a flag of its own, not part of another
	cpuinfo AuthenticAMD 25 17 "fpu nothypervisor"
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
		--curve-in "$FIX/curve-4level.txt" --mhz 3000
	jq -e '.hierarchy[0] | .core_peak_mbs > 0 and .peak_caveat == null' \
		<<<"$output" >/dev/null
	# a guest whose reported model is not in the table: no per cent,
	# caveat or not (this project's Intel guest, family 6 model 167)
	cpuinfo GenuineIntel 6 167 "fpu hypervisor"
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
		--curve-in "$FIX/curve-4level.txt" --mhz 3000
	jq -e '.hierarchy[0] | .peak_pct == null and .peak_caveat == null and
	  (.peak_note | test("family 6 model 167 is not in"))' <<<"$output" >/dev/null
}

@test "L1d peak: a CPU not in the table is said so, and no per cent is given" {
	# this guest's own: family 6 model 167 (docs/bench.md: why not listed)
	cpuinfo GenuineIntel 6 167
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
		--curve-in "$FIX/curve-4level.txt" --mhz 1000
	jq -e '.hierarchy[0] | .level == "L1d" and .peak_pct == null and
	  .core_peak_mbs == null and .core_peak == null and
	  .peak_note == "GenuineIntel family 6 model 167 is not in bench'\''s table of cores (hier_cores[])"' \
		<<<"$output" >/dev/null
	# Zen 3 (family 25 model 33): not in it either, for want of a source
	cpuinfo AuthenticAMD 25 33
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" hier \
		--curve-in "$FIX/curve-4level.txt" --mhz 1000
	jq -e '.hierarchy[0] | .peak_pct == null and
	  .peak_note == "AuthenticAMD family 25 model 33 is not in bench'\''s table of cores (hier_cores[])"' \
		<<<"$output" >/dev/null
	cpuinfo GenuineIntel 6 1
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" run --separate-stderr "$BENCH" \
		hierarchy -t 2 "${SMALL[@]}" --curve-in "$FIX/curve-4level.txt" \
		--mhz 1000
	assert_success
	assert_line "L1d core peak: unknown (GenuineIntel family 6 model 1 is not in bench's table of cores (hier_cores[])); no % given"
}

@test "refusals: flags of other modes, and --curve-in's own" {
	run --separate-stderr "$BENCH" hierarchy --kernels read
	assert_failure
	[ "$stderr" = "bench: --kernels does not apply to mode 'hierarchy'" ]
	run --separate-stderr "$BENCH" hierarchy --caches 32K
	assert_failure
	assert [ "${#lines[@]}" -eq 0 ]
	run --separate-stderr "$BENCH" hierarchy --curve-in "$BATS_TEST_TMPDIR/none.txt"
	assert_failure
	assert [ "${#lines[@]}" -eq 0 ]
}

@test "live: its own short sweep names the levels, and every row is one of them" {
	run --separate-stderr "$BENCH" hierarchy --max 4M --steps-per-octave 2 \
		"${SMALL[@]}" --json
	assert_success
	jq -e '(.latency.summary[0].levels | map(.name)) as $names
	  | (.hierarchy | length) >= 2 and (.hierarchy | length) % 2 == 0
	  and .hierarchy[-1].level == "DRAM"
	  and (.hierarchy | all(.level as $l | $names | index($l) != null or $l == "DRAM"))
	  and (.hierarchy | all(.threads >= 1))
	  and .hierarchy_valid' <<<"$output" >/dev/null
}

@test "memory's arrays inside the last cache's edge: a warning says its row may read a cache" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 1048576:4 10485760:15 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,10M
	jq -e '.warnings | any(test("^hierarchy: DRAM.s arrays \\(4\\.6 MiB\\) are under 4x L3.s edge \\(9\\.9 MiB\\)"))' \
		<<<"$output" >/dev/null
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,1M,10M -s 2000000
	jq -e '.warnings | any(test("^hierarchy:")) | not' <<<"$output" >/dev/null
}

@test "bench all ends with the hierarchy, from its own latency summary" {
	run --separate-stderr "$BENCH" all "${SMALL[@]}" --max 1M \
		--steps-per-octave 2 --json
	assert_success
	jq -e '.mode == "all" and (.results | length) == 4 and
	  (.latency.summary[0].levels | map(.name)) as $names
	  | .hierarchy[-1].level == "DRAM" and
	  (.hierarchy | all(.level as $l | $names | index($l) != null or $l == "DRAM"))' \
		<<<"$output" >/dev/null
	run --separate-stderr "$BENCH" all "${SMALL[@]}" --max 1M --steps-per-octave 2
	assert_success
	assert_line --regexp '^Memory hierarchy: bandwidth inside each level \(levels from this run.s latency sweep\)'
	assert_line --regexp '^DRAM +1 '
}

@test "bench all --best: memory's row at the run's threads and size is the run's own --best figures, to the digit; the rest is STREAM's run" {
	run --separate-stderr "$BENCH" all "${SMALL[@]}" -t 2 --max 1M \
		--steps-per-octave 2 --best --kernels read,write,copy,triad --json
	assert_success
	jq -e '(.best.results | map({(.kernel | ascii_downcase): .best_mbs}) | add) as $b
	  | [.hierarchy[] | select(.level == "DRAM")] as $m
	  | ($m | length) == 2
	  and ($m[1] | .threads == 2 and .read_mbs == $b.read and
	       .write_mbs == $b.write and .copy_mbs == $b.copy and
	       .triad_mbs == $b.triad and .read_from == "run_best" and
	       .triad_from == "run_best")
	  # 1 thread is not the run'\''s count: measured by STREAM'\''s run
	  and ($m[0] | .threads == 1 and .read_from == "stream_run" and
	       .triad_from == "stream_run" and .read_mbs > 0)' \
		<<<"$output" >/dev/null
	# without Read and Write in the run, those two are measured
	run --separate-stderr "$BENCH" all "${SMALL[@]}" -t 2 --max 1M \
		--steps-per-octave 2 --best --json
	assert_success
	jq -e '(.best.results | map({(.kernel | ascii_downcase): .best_mbs}) | add) as $b
	  | .hierarchy[-1] | .threads == 2 and .copy_mbs == $b.copy and
	  .copy_from == "run_best" and .read_from == "stream_run" and
	  .write_from == "stream_run" and .read_mbs > 0' <<<"$output" >/dev/null
}

@test "memory's row is --best's run: each kernel's method is one of --best's candidates for it, and validated" {
	run --separate-stderr "$BENCH" --best --kernels read,write,copy,triad \
		"${SMALL[@]}" -t 2 --json
	assert_success
	local cands="$output"
	hier --curve-in "$FIX/curve-4level.txt"
	jq -e --argjson b "$cands" '
	  ($b.best.results | map({(.kernel | ascii_downcase):
	     [.calibration[].method]}) | add) as $c
	  | [.hierarchy[] | select(.level == "DRAM")] | length == 2 and
	  all(. as $r | ["read", "write", "copy", "triad"] |
	      all(. as $k | $r[$k + "_from"] == "stream_run" and
	          ($c[$k] | index($r[$k + "_method"])) != null))' \
		<<<"$output" >/dev/null
	jq -e '.hierarchy_valid' <<<"$output" >/dev/null
}

@test "Read's method: a sum or bare loads (x86), validated either way; the methods line names it and says what bare loads check" {
	hier --curve-in "$FIX/curve-4level.txt"
	jq -e '.hierarchy_valid and ([.hierarchy[] | .read_method |
	  test("^(plain|load)/[a-z0-9]+$")] | all)' <<<"$output" >/dev/null
	loads=$(jq '[.hierarchy[] | select(.read_method | startswith("load/"))] | length' <<<"$output")
	echo "rows read by bare loads: $loads"
	mkdir -p "$BATS_TEST_TMPDIR/sys"
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/sys" run --separate-stderr \
		"$BENCH" hierarchy -t 2 "${SMALL[@]}" --curve-in "$FIX/curve-4level.txt"
	assert_success
	methods=$(grep '^Methods (1 thread):' <<<"$output")
	# each level's four methods, Read's first
	[[ "$methods" =~ ^Methods\ \(1\ thread\):\ L1d\ (plain|load)/[a-z0-9]+\  ]]
	if grep -q ' load/' <<<"$methods"; then
		assert_line 'Methods load/...: read by bare loads, whose values are not used (as likwid-bench'"'"'s load);'
		assert_line '  no sum to check: the fastest sum'"'"'s total after them is the one validated.'
	else
		refute_line --partial 'bare loads'
	fi
}

@test "harness/run: the summary shows the hierarchy's table, each level with no row and why" {
	local t="$BATS_TEST_TMPDIR"
	MEMBENCH_LOCK_DIR="$t/lock" run --separate-stderr \
		"$BATS_TEST_DIRNAME/../harness/run" --results "$t/r" --bench "$BENCH" \
		--label h -- hierarchy --curve-in "$FIX/curve-4level.txt" "${SMALL[@]}" -t 2
	assert_success
	local s
	s=$(find "$t/r" -name summary.md)
	[ -f "$s" ]
	grep -qx '## Memory hierarchy' "$s"
	local n='[0-9]+(\.[0-9])?'
	grep -qE "^\| 1 \| L1d \| 1 \| 20480 \| $n \| $n \| $n \| $n \| 1\.2 \| .*\|\$" "$s"
	grep -qE "^\| 1 \| DRAM \| 2 \| 4800000 \| $n \| $n \| $n \| $n \| 98\.5 \| " "$s"
	[ "$(grep -cE '^\| 1 \| (L1d|DRAM) \| [12] \|' "$s")" -eq 4 ]
	grep -qxF -e '- step 1: L2? has no row: the latency analysis names it uncertainly (its edge could be a TLB'"'"'s reach)' "$s"
}

@test "bench all's summary (make run's) has the STREAM table, then the hierarchy's" {
	local t="$BATS_TEST_TMPDIR"
	MEMBENCH_LOCK_DIR="$t/lock" run --separate-stderr \
		"$BATS_TEST_DIRNAME/../harness/run" --results "$t/r" --bench "$BENCH" \
		--label a -- all "${SMALL[@]}" -t 2 --max 1M --steps-per-octave 2 --best
	assert_success
	local s
	s=$(find "$t/r" -name summary.md)
	grep -q '^| .* | Copy MB/s | ' "$s"
	grep -qx '## Memory hierarchy' "$s"
	grep -qE '^\| 1 \| DRAM \| 2 \| 4800000 \|' "$s"
	# the table follows the STREAM table
	[ "$(grep -n 'Copy MB/s' "$s" | head -1 | cut -d: -f1)" -lt "$(grep -n '^## Memory hierarchy' "$s" | cut -d: -f1)" ]
}

@test "--ws-sweep: Copy from 1 KiB to 4x the last edge, 2 sizes an octave, 1 thread and all; the edges are the summary's" {
	stair "$BATS_TEST_TMPDIR/c.txt" 32768:1 262144:4 0:90
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,256K --ws-sweep
	jq -e '(.latency.summary[0].levels | map(select(.boundary_bytes != null and .name != "DRAM"))
	        | map({level: .name, bytes: .boundary_bytes})) as $sum
	  | (.hierarchy_edges | map({level, bytes})) == $sum
	  and (.hierarchy_edges | map(.level)) == ["L1d", "L2"]
	  and (.hierarchy_edges[-1].bytes) as $top
	  | .hierarchy_sweep.kernel == "copy"
	  and ((.hierarchy_sweep.to_bytes - 4 * $top) | fabs) < 1
	  and ([.hierarchy_sweep.points[] | select(.threads == 1)] as $one
	       | [.hierarchy_sweep.points[] | select(.threads == 2)] as $all
	       | ($one | map(.working_set_bytes)) == ($all | map(.working_set_bytes))
	       and $one[0].working_set_bytes == 1024
	       # 2 an octave: each size about 1.414x the one before (on 64 bytes)
	       and ([range(1; $one | length) | $one[.].working_set_bytes / $one[. - 1].working_set_bytes]
	            | all(. > 1.37 and . < 1.46))
	       and ($one[-1].working_set_bytes <= 4 * $top)
	       and ($one[-1].working_set_bytes * 1.4143 > 4 * $top)
	       and ($one + $all | all(.copy_mbs > 0 and (.copy_method | test("^(plain/|memcpy)")))))
	  and .hierarchy_valid' <<<"$output" >/dev/null
	# without the flag, no sweep
	hier --curve-in "$BATS_TEST_TMPDIR/c.txt" --caches 32K,256K
	jq -e 'has("hierarchy_sweep") | not' <<<"$output" >/dev/null
}

@test "harness/report: the hierarchy's table, its notes and the plot of the sweep, names passed as data" {
	local t="$BATS_TEST_TMPDIR"
	stair "$t/c.txt" 32768:1 262144:4 0:90
	MEMBENCH_LOCK_DIR="$t/lock" run --separate-stderr \
		"$BATS_TEST_DIRNAME/../harness/run" --results "$t/r" --bench "$BENCH" \
		--label h -- hierarchy --curve-in "$t/c.txt" --caches 32K,256K \
		"${SMALL[@]}" -t 2 --ws-sweep
	assert_success
	local d
	d=$(dirname "$(find "$t/r" -name summary.md)")
	# a hostile level name in the record: it must stay text; and an L1d
	# peak from a guest's entry, above 100%: its caveat and warning are
	# carried into the notes
	jq '.bench.hierarchy_edges[0].level = "L1d\"\nsystem \"touch '"$t"'/pwned\"\n#"
	  | .bench.hierarchy[0] |= (del(.peak_note) + {core_peak_mbs: 1000,
	      peak_pct: 250, peak_kernel: "copy", core: "test core",
	      peak_source: "test guide", peak_caveat: "test caveat",
	      peak_warning: "above the peak: copy; test"})' \
		"$d/step-001.json" >"$t/s.json"
	mv "$t/s.json" "$d/step-001.json"
	run --separate-stderr "$BATS_TEST_DIRNAME/../harness/report" --html -o "$t/o" "$d"
	assert_success
	[ ! -e "$t/pwned" ]
	[ -s "$t/o/plot-hierarchy.svg" ]
	[ -s "$t/o/plot-hierarchy.png" ]
	grep -q 'id="plot-hierarchy"' "$t/o/report.html"
	grep -q '^## Memory hierarchy: bandwidth inside each level' "$t/o/report.md"
	[ "$(grep -cE '^\| 001 +\| (L1d|L2|DRAM) +\| +[12] \|' "$t/o/report.md")" -eq 6 ]
	grep -q '^- 001: L1d core peak 1000 MB/s (test core), copy at 250%; source: test guide; caveat: test caveat; above the peak: copy; test$' "$t/o/report.md"
	# the plot's lines: the two thread counts and the edges' names
	grep -q '>1 thread<' "$t/o/plot-hierarchy.svg"
	grep -q '>2 threads<' "$t/o/plot-hierarchy.svg"
	grep -q '>L2<' "$t/o/plot-hierarchy.svg"
}

@test "--curve-in a recorded bench record (tests/recordings): its certain levels get rows, inside their edges, with its latency and clock" {
	local rec="$BATS_TEST_DIRNAME/recordings/amd-zen3-kvm/4k-1.json"
	run --separate-stderr "$BENCH" latency --curve-in "$rec" --json
	assert_success
	local sum="$output"
	hier --curve-in "$rec"
	jq -e --argjson l "$sum" '
	  ($l.summary[0].levels | map(select(.name != "DRAM" and .certain))) as $lv
	  | ($l.clock.mhz) as $mhz
	  | ($lv | length) >= 2
	  and ([.hierarchy[] | select(.threads == 1) | .level]) == ([$lv[].name] + ["DRAM"])
	  and ([.hierarchy[] | select(.threads == 1 and .level != "DRAM")] | to_entries
	       | all(.value.working_set_bytes ==
	             (($lv[.key].boundary_bytes / 2 / 4096 | floor) * 4096)
	             and .value.latency_ns == $lv[.key].ns
	             and ((.value.latency_cycles - $lv[.key].ns * $mhz / 1000) | fabs) < 1e-3))
	  and .latency.source == $l.replay.source
	  and .hierarchy_valid' <<<"$output" >/dev/null
}
