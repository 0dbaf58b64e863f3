#!/usr/bin/env bats
# bench built another way: each test builds its own variant of bench.c
# (a test hook such as BENCH_CORRUPT_TEST, another element type or array
# size, -march=native, no OpenMP, no Linux) and checks what that build
# does.  The builds cost seconds each, so these tests are in the full
# tier; the fast tier's files test the one bench that make builds.

load test_helper

# Its tests run in order (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# run_rules.bats': the verdict and its reasons, one line
verdict() { jq -r '[.run_rules.verdict] + .run_rules.reasons | join(" | ")' <<<"$output"; }

# csv.bats': the column of the CSV in $output named NAME, one value a line
csv_col() {
	python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
for r in rows:
    print(r[sys.argv[1]])' "$1" <<<"$output"
}

# plan.bats': the value of KEY=... in $output
plan_value() { printf '%s\n' "$output" | sed -n "s/^$1=//p"; }

# latency.bats': refused_by (test_helper) for the latency mode
refused() { refused_by latency "$@"; }

needs_openmp() {
	"$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null ||
		skip "this bench has no OpenMP"
}

# ---- moved from stream.bats (the fast tier)
@test "streaming stores validate and are reported" {
	run "$BENCH" $TINY --stores nt --kernels all --json
	assert_success
	run jq -r '[.run.stores, .validation.ok] | @tsv' <<<"$output"
	assert_output "$(printf 'nt\ttrue')"
	bin=$(build_variant avx512 gcc -O3 -fopenmp -march=native)
	run "$bin" -s 100003 -n 3 --offset 1 --stores nt --kernels all
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "streaming stores that the target lacks are announced, not hidden" {
	# BENCH_TYPEID=0 treats the type as unknown, which leaves gcc with no
	# streaming-store path at all.
	bin=$(build_variant nont gcc -O0 -DBENCH_TYPEID=0)
	run "$bin" $TINY --stores nt
	assert_success
	assert_line --partial "streaming stores were requested but are not available on this target"
	assert_line --regexp '^Allocation: .*stores plain'
}

@test "a corrupted array fails validation with STREAM's lines and status 1" {
	bin=$(build_variant corrupt gcc -O0 -DBENCH_CORRUPT_TEST=1)
	run "$bin" $TINY
	assert_failure 1
	assert_line --regexp '^Failed Validation on array a\[\], AvgRelAbsErr > epsilon \(1\.000000e-13\)$'
	assert_line --regexp '^     For array a\[\], 1 errors were found\.$'
	refute_line --regexp '^Solution Validates'
	run "$bin" $TINY --json
	assert_failure 1
	run jq -r '.validation.ok, .validation.arrays[0].errors' <<<"$output"
	assert_output "$(printf 'false\n1')"
}

@test "a wrong formula in any kernel's table line fails validation: the replay's formulas are validation's own" {
	need gcc
	local k addr from to src="$MEMBENCH_ROOT/bench.c" d="$BATS_TEST_TMPDIR"
	# each kernel's line of KERNEL_TABLE, given a plausible wrong formula
	# that reads the arrays its row counts (so the start's check of the
	# words per index lets it by: two operands swapped, an add for a
	# multiply); the kernels and a replay of the table would agree,
	# validation's own formulas must not
	while IFS='|' read -r k addr from to; do
		sed "$addr s#$from#$to#" "$src" >"$d/$k.c"
		! cmp -s "$src" "$d/$k.c" || fail "$k: no line of KERNEL_TABLE matched $addr $from"
		gcc -O0 "$d/$k.c" -o "$d/$k" -lm
		run "$d/$k" -s 20000 -n 3 --kernels all
		assert_failure 1
		assert_line --regexp '^Failed Validation on (array [abc]\[\]|Read|Dot)'
		refute_line --regexp '^Solution Validates'
	done <<'EOT'
copy|/X(COPY,/|KLD(a))|KLD(b))
scale|/X(SCALE,/|KMUL(KQ, KLD(c)))|KADD(KQ, KLD(c)))
add|/X(ADD,/|KADD(KLD(a), KLD(b)))|KMUL(KLD(a), KLD(b)))
triad|/^\t  KADD(KLD(b), KMUL/|KADD(KLD(b), KMUL(KQ, KLD(c))))|KADD(KLD(c), KMUL(KQ, KLD(b))))
read|/X(READ,/|KLD(a))|KLD(b))
write|/X(WRITE,/|KQ)|KADD(KQ, KQ))
dot|/X(DOT,/|KMUL(KLD(a), KLD(b)))|KADD(KLD(a), KLD(b)))
nstream|/^\t  KADD(KLD(a), KADD/|KADD(KLD(a), KADD(KLD(b), KMUL(KQ, KLD(c)))))|KADD(KLD(a), KADD(KLD(c), KMUL(KQ, KLD(b)))))
axpy|/^\t  KADD(KLD(c), KMUL/|KADD(KLD(c), KMUL(KQ, KLD(a))))|KADD(KLD(a), KMUL(KQ, KLD(c))))
update|/X(UPDATE,/|KMUL(KQ, KLD(b)))|KADD(KQ, KLD(b)))
EOT
}

@test "one element off by a relative 1e-6 fails validation (BENCH_CORRUPT_TEST=2)" {
	# 1e-6 of one element in 100000 is an average relative error of 1e-11,
	# a hundred times STREAM's epsilon for double
	bin=$(build_variant corrupt2 gcc -O0 -DBENCH_CORRUPT_TEST=2)
	run "$bin" $TINY
	assert_failure 1
	assert_line --regexp '^Failed Validation on array a\[\], AvgRelAbsErr > epsilon \(1\.000000e-13\)$'
	assert_line --regexp '^     For array a\[\], 1 errors were found\.$'
	refute_line --partial 'Failed Validation on array b'
	refute_line --partial 'Solution Validates'
	run "$bin" $TINY --json
	assert_failure 1
	run jq -r '[.validation.ok, (.validation.arrays[] | .errors)] | @tsv' <<<"$output"
	assert_output "$(printf 'false\t1\t0\t0')"
}

@test "a Read total off by a relative 1e-6 fails validation: Read's sums are checked (BENCH_CORRUPT_TEST=3)" {
	bin=$(build_variant corrupt3 gcc -O0 -DBENCH_CORRUPT_TEST=3)
	run "$bin" $TINY --kernels all
	assert_failure 1
	# the last of the three repetitions, named as the text counts them
	assert_line --regexp '^Failed Validation on Read: repetition 3 summed [0-9.e+]+, expected [0-9.e+]+$'
	[ "$(grep -c '^Failed Validation' <<<"$output")" -eq 1 ]
	refute_line --partial 'Solution Validates'
	run "$bin" $TINY --kernels read --json
	assert_failure 1
	run jq -r '[.validation.ok, .validation.read_ok, ([.validation.arrays[].errors] | add)] | @tsv' <<<"$output"
	assert_output "$(printf 'false\tfalse\t0')"
	# without Read nothing is damaged, and the same build validates
	run "$bin" $TINY
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "a Dot total off by a relative 1e-6 fails validation: Dot's sums are checked (BENCH_CORRUPT_TEST=4)" {
	bin=$(build_variant corrupt4 gcc -O0 -DBENCH_CORRUPT_TEST=4)
	run "$bin" $TINY --kernels dot,nstream
	assert_failure 1
	assert_line --regexp '^Failed Validation on Dot: repetition 3 summed [0-9.e+]+, expected [0-9.e+]+$'
	[ "$(grep -c '^Failed Validation' <<<"$output")" -eq 1 ]
	refute_line --partial 'Solution Validates'
	run "$bin" $TINY --kernels all --json
	assert_failure 1
	run jq -r '[.validation.ok, .validation.dot_ok, .validation.read_ok, ([.validation.arrays[].errors] | add)] | @tsv' <<<"$output"
	assert_output "$(printf 'false\tfalse\ttrue\t0')"
	# without Dot nothing is damaged, and the same build validates
	run "$bin" $TINY --kernels read,nstream
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "an element Nstream's last pass missed fails validation (BENCH_CORRUPT_TEST=5)" {
	bin=$(build_variant corrupt5 gcc -O0 -DBENCH_CORRUPT_TEST=5)
	for stores in plain nt auto; do
		run "$bin" $TINY --kernels dot,nstream --stores "$stores"
		assert_failure 1
		assert_line --regexp '^Failed Validation on array a\[\], AvgRelAbsErr > epsilon \(1\.000000e-13\)$'
		assert_line --regexp '^     For array a\[\], 1 errors were found\.$'
		refute_line --partial 'Failed Validation on array b'
		refute_line --partial 'Solution Validates'
	done
	# without Nstream nothing is damaged, and the same build validates
	run "$bin" $TINY --kernels copy,scale,add,triad,read,write,dot
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "the first repetition is left out of min, max, average and median (BENCH_WARMUP_TEST)" {
	# The warm-up test build records each kernel's first repetition as
	# 1e12 s (copy, add, read, dot, axpy) or 1e-12 s (scale, triad, write,
	# nstream, update): counted,
	# it would be the max and swamp the average, or be the min.  The
	# bounds are a hundred-fold from those values, not speeds.
	bin=$(build_variant warmup gcc -O0 -fopenmp -DBENCH_WARMUP_TEST=1000000000000)
	run "$bin" $TINY --kernels all --best --json
	assert_success
	run jq -e '[.results[], .best.results[]] | length == 20 and all(
		.min_s > 1e-10 and .max_s < 1e10 and .median_s < 1e10 and
		(.avg_s // 0) < 1e10 and .min_s <= .median_s and .median_s <= .max_s)' <<<"$output"
	assert_success
	# STREAM's table: Avg and Max time of the slow-first kernels
	run "$bin" $TINY --kernels all
	assert_success
	awk '/^(Copy|Add|Read|Dot|Axpy):/ { n++; if ($3 >= 1e10 || $5 >= 1e10) exit 1 }
		END { exit n != 5 }' <<<"$output"
}

@test "plain stores by default, as STREAM; STREAMING_STORES=2 makes auto the default" {
	run "$BENCH" $TINY --json
	assert_success
	run jq -r '[.run.stores, .run.calibration_passes, (.results | map(.stores) | unique | join(","))] | @tsv' <<<"$output"
	assert_output "$(printf 'plain\t0\tplain')"
	bin=$(build_variant auto gcc -O2 -DSTREAMING_STORES=2)
	run "$bin" $TINY --json
	assert_success
	run jq -r '[.build.streaming_stores, .run.stores, .run.calibration_passes] | @tsv' <<<"$output"
	assert_output "$(printf 'auto\tauto\t2')"
}

@test "repetitions that would overflow the element type are refused" {
	run --separate-stderr "$BENCH" -s 1000 -n 300
	assert_failure 2
	[[ "$stderr" == *"--ntimes: 300 repetitions make double values overflow"*"use at most 244" ]]
	run --separate-stderr "$BENCH" -s 1000 -n 300 --stores auto
	assert_failure 2
	[[ "$stderr" == *"--ntimes: 300 repetitions plus calibration make double values overflow"*"use at most 242" ]]
	bin=$(build_variant float gcc -O2 -fopenmp -DSTREAM_TYPE=float)
	run --separate-stderr "$bin" -s 1000 -n 40 --stores plain
	assert_failure 2
	[[ "$stderr" == *"--ntimes: 40 repetitions make float values overflow"*"use at most 32" ]]
	# copy alone never grows the values
	run "$bin" -s 1000 -n 1000 --kernels copy
	assert_success
}

@test "--size auto applies STREAM's 4x rule to the reported last-level cache" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0
	bin=$(build_variant small gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=1000)
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto -n 3 --json
	assert_success
	run jq -r '[.run.size_auto, .run.array_size, (.warnings | map(select(test("last-level"))) | length)] | @tsv' <<<"$output"
	assert_output "$(printf 'true\t524288\t0')"
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto -n 3
	assert_line "Array size: 524288 elements, chosen by --size auto (4x the reported last-level cache, at most half of memory)"
	# static arrays cannot grow, so auto stops at the compiled size
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto -n 3 --alloc static --json
	assert_success
	run jq -r .run.array_size <<<"$output"
	assert_output 1000
}

# ---- moved from run_rules.bats (the fast tier)
@test "failed validation is a variant, never standard" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0
	bin=$(build_variant corrupt gcc -O0 -DBENCH_CORRUPT_TEST=1)
	MEMBENCH_SYSFS="$fake" run "$bin" -s 1000000 -n 10 --json
	assert_failure 1
	[[ "$(verdict)" == "variant | validation failed" ]]
}

@test "JSON records the command line; a hand build records its compiler macros" {
	run "$BENCH" $TINY --json
	jq -e --arg b "$BENCH" '.command == [$b, "-s", "100000", "-n", "3", "--json"]' <<<"$output"
	bin=$(build_variant hand gcc -O2)
	run "$bin" $TINY
	assert_line "Build flags: unknown (not built by make; compiler macros: __OPTIMIZE__ __SSE2__)"
	run "$bin" info --json
	jq -e '.build.target_macros == ["__OPTIMIZE__", "__SSE2__"]' <<<"$output"
}

# ---- moved from csv.bats (the fast tier)
@test "--csv: a failed validation is in the row and exits 1" {
	bad=$(build_variant corrupt gcc -O0 -DBENCH_CORRUPT_TEST=1) || fail "build failed"
	run --separate-stderr "$bad" $TINY --csv
	assert_failure 1
	[ "$(csv_col validation | sort -u)" = failed ]
	[ "$(csv_col run_rules | sort -u)" = variant ]
}

# ---- moved from plan.bats (the fast tier)
@test "--size auto: the plan's size is the one the run uses" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0
	bin=$(build_variant small gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=1000)
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto --plan
	assert_success
	[ "$(plan_value llc_bytes)" = 1048576 ]
	[ "$(plan_value stream_rule_elements)" = 524288 ]
	planned=$(plan_value array_size)
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto -n 3 --json
	assert_success
	[ "$(jq -r .run.array_size <<<"$output")" = "$planned" ]
	[ "$planned" = 524288 ]
}

@test "STREAM's rule counts every last-level cache of the machine" {
	[ "$(getconf _NPROCESSORS_CONF)" -ge 2 ] || skip "needs two CPUs in sysfs"
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0 1 # one L3 per CPU: two L3s
	bin=$(build_variant small gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=1000)
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto --plan
	assert_success
	[ "$(plan_value llc_bytes)" = 1048576 ]
	[ "$(plan_value llc_instances)" = 2 ]
	[ "$(plan_value stream_rule_elements)" = 1048576 ]
	[ "$(plan_value array_size)" = 1048576 ]
	MEMBENCH_SYSFS="$fake" run "$bin" info
	assert_line --partial "L3 1 MiB x2"
	# one L3 shared by both CPUs is one cache
	echo 0-1 >"$fake/devices/system/cpu/cpu0/cache/index3/shared_cpu_list"
	echo 0-1 >"$fake/devices/system/cpu/cpu1/cache/index3/shared_cpu_list"
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto --plan
	[ "$(plan_value llc_instances)" = 1 ]
	[ "$(plan_value array_size)" = 524288 ]
}

# ---- moved from latency.bats (the fast tier)
@test "--load-threads without OpenMP is refused" {
	local serial
	serial=$(build_variant serial gcc -std=c99 -O2)
	BENCH="$serial" refused --load-threads 1
	[[ "$stderr" == *"loaded latency needs OpenMP"* ]]
}

@test "load threads that count bytes they never read or write are refused by bench's own check (BENCH_LOAD_TEST)" {
	needs_openmp
	local lt1 lt2
	# the load threads count their chunks but skip their reads (1) or
	# their writes (2): what their reads summed, and the marks their
	# writes must have left, give them away
	lt1=$(build_variant loadtest1 gcc -O0 -fopenmp -DBENCH_LOAD_TEST=1)
	lt2=$(build_variant loadtest2 gcc -O0 -fopenmp -DBENCH_LOAD_TEST=2)
	BENCH=$lt1 refused --min 1M --max 1M --load-threads 1 --rw 1:0 --delays 0 --json
	[[ "$stderr" == "bench: internal error: load thread 1 counted "*" bytes, but its reads summed 0 where they must sum "* ]]
	BENCH=$lt2 refused --min 1M --max 1M --load-threads 1 --rw 1:1 --delays 0 --json
	[[ "$stderr" == "bench: internal error: load thread 1 counted "*" of the elements they wrote hold no write"* ]]
	# a mix without writes is all that build gets right, and passes
	run "$lt2" latency --min 1M --max 1M --load-threads 1 --rw 1:0 --delays 0 --json
	assert_success
	# and the real load threads pass it, a mix that reads what an earlier
	# mix wrote over included
	run "$BENCH" latency --min 1M --max 1M --load-threads 1 --rw 1:1,1:0,2:1 --delays 0 --json
	assert_success
	jq -e '(.loaded.rows | map(select(.idle | not)) | length) == 3' <<<"$output"
}

@test "a probe broken on purpose is refused by the chain check before it is timed (BENCH_PROBE_TEST)" {
	local bin
	bin=$(build_variant probetest gcc -O0 -DBENCH_PROBE_TEST=1)
	# (--json: the curve is printed as it is measured, before the probes)
	# the line-a-page chase visits two lines a page: it would time the
	# caches' effect under the TLBs' name
	MEMBENCH_PROBE_BREAK=1 BENCH=$bin refused --min 4K --max 1M --steps-per-octave 1 --json
	[[ "$stderr" == "bench: internal error: the line-a-page chain of "*" pages visits page "*" twice" ]]
	# the TLB-local window is the whole buffer: a full random chase
	# under the TLB-local name
	MEMBENCH_PROBE_BREAK=2 BENCH=$bin refused --min 4K --max 1M --steps-per-octave 1 --json
	[[ "$stderr" == "bench: internal error: the chain of "*" lines leaves its $(tlb_local_window "$bin")-byte windows "*" times, not once for each of its "* ]]
	# unbroken, the same build measures both probes
	run --separate-stderr "$bin" latency --min 4K --max 1M --steps-per-octave 1 --json
	assert_success
	jq -e '(.probes.tlb_local | length) > 0 and (.probes.line_a_page | length) > 0' <<<"$output" >/dev/null
}

@test "a random chain that is not random is refused by the chain check before it is timed (BENCH_PROBE_TEST)" {
	local bin
	bin=$(build_variant probetest gcc -O0 -DBENCH_PROBE_TEST=1)
	# in address order (--pattern stride's chain under random's name):
	# from 128 lines on, more neighbours than chance's bound of 66
	MEMBENCH_PROBE_BREAK=6 BENCH=$bin refused --min 4K --max 1M --steps-per-octave 1 --json
	[[ "$stderr" == "bench: internal error: the random chain of 128 lines steps to a neighbouring line 127 times, where a random order does so 2 times on average and at most 66: its loads could be prefetched" ]]
	# random only within each page: 63 of 64 steps stay in a page
	MEMBENCH_PROBE_BREAK=7 BENCH=$bin refused --min 4K --max 1M --steps-per-octave 1 --json
	[[ "$stderr" == "bench: internal error: the random chain of 256 lines steps within one base page 252 times, where a random order does so 63."*" times on average and at most 18"*": its loads could be prefetched" ]]
	# the TLB-local chase's windows, each in address order: its first
	# chain (two windows, tlb_local_window) steps to a neighbour at every
	# line but the last, where two windows of random order average 4
	local nl=$(($(tlb_local_window "$bin") * 2 / 64))
	MEMBENCH_PROBE_BREAK=8 BENCH=$bin refused --min 4K --max 1M --steps-per-octave 1 --json
	[[ "$stderr" == "bench: internal error: the TLB-local chain of $nl lines steps to a neighbouring line $((nl - 1)) times, where a random order does so 4 times on average and at most 71: its loads could be prefetched" ]]
	# and in text, nothing past the last chain too small to judge (64
	# lines: within any L1, where order cannot be told from chance)
	MEMBENCH_PROBE_BREAK=6 run --separate-stderr "$bin" latency --min 4K --max 1M --steps-per-octave 1
	assert_failure 2
	[ "${lines[-1]%% *}" = "0.00391" ]
}

@test "where the full random chase reads faster than the TLB-local chase at memory, the summary says one is not what it claims and prints no TLB cost (BENCH_PROBE_TEST)" {
	local bin
	bin=$(build_variant probetest gcc -O0 -DBENCH_PROBE_TEST=1)
	# 9: the TLB-local chase beyond its window reads four times
	# its time (inside the private L2, as the fall tests above)
	MEMBENCH_PROBE_BREAK=9 run --separate-stderr "$bin" latency --min 4K --max 512K --steps-per-octave 8 --json
	assert_success
	jq -e '.summary[0].memory as $m |
		$m.chases_disagree == true and $m.certain == false and $m.tlb_ns == null and
		$m.tail_ns < $m.tlb_local_tail_ns' <<<"$output" >/dev/null ||
		{ jq -c '.summary[0].memory, .summary[0].levels[-1]' <<<"$output"; return 1; }
	jq -e '.summary[0].levels[-1].certain == false' <<<"$output" >/dev/null
	MEMBENCH_PROBE_BREAK=9 run --separate-stderr "$bin" latency --min 4K --max 512K --steps-per-octave 8
	assert_success
	assert_line --regexp '^# stride=64: memory\?: .*; the full random chase [0-9.]+ ns there, TLB misses: not known$'
	assert_line --regexp '^# stride=64: the full random chase reads [0-9.]+ ns at 512 KiB, faster than the TLB-local chase.s [0-9.]+ ns by more than their spread \([0-9.e+-]+ ns\): one of the two chases is not what it claims, and the memory figures are not certain$'
	refute_line --regexp 'TLB misses add'
	# unbroken, the two agree
	run --separate-stderr "$bin" latency --min 4K --max 512K --steps-per-octave 8 --json
	assert_success
	jq -e '.summary[0].memory | .chases_disagree == false and .certain == true and (.tlb_ns | type) == "number"' <<<"$output" >/dev/null ||
		{ jq -c '.summary[0].memory' <<<"$output"; return 1; }
}

probe_setup() {
	bin=$(build_variant probetest gcc -O0 -DBENCH_PROBE_TEST=1)
	cpu=$("$bin" latency --min 4K --max 4K --json | jq -r .run.cpu)
	win=$(tlb_local_window "$bin") || fail "$bin reports no TLB-local window"
	max=$((2 * win))
	# and at least the 128 base pages (LAT_TLB_MIN_PAGES) without which
	# the line-a-page chase, and so the probes, do not run
	[ "$max" -ge $((128 * $(getconf PAGESIZE))) ] || max=$((128 * $(getconf PAGESIZE)))
	l2=$(os_cache_bytes "$cpu" 2)
	[ -n "$l2" ] || skip "the OS reports no L2 size for CPU $cpu (/sys/devices/system/cpu/cpu$cpu/cache)"
}

@test "the points on either side of a probe's fall are timed again (BENCH_PROBE_TEST)" {
	local bin cpu win max l2 mode RT
	probe_setup
	# the TLB-local chase's third-last point and the line-a-page chase's
	# third read four times their time once (3), as when a neighbour's
	# burst took the cache, or a quarter (5), as when a chain just built
	# held the shared L3 for a while; every point inside the private L2
	# of the CPU it runs on, where make check's other job cannot make a
	# real fall
	[ "$l2" -ge "$max" ] ||
		skip "CPU $cpu's L2 ($((l2 / 1024)) KiB, sysfs) is smaller than the probes' range ($((max / 1024)) KiB): a fall there could be real"
	# Each run at real-time priority where the OS allows it (rt_prefix),
	# so no other task takes the CPU mid-window; a burst from outside
	# (the other vCPU of a shared core) can still leave a fall, so up to
	# three runs a mode until one leaves none (the condition), each of
	# which must have timed the disturbed points again.
	local try clean
	rt_prefix
	for mode in 3 5; do
		clean=0
		for try in 1 2 3; do
			MEMBENCH_PROBE_BREAK=$mode run --separate-stderr "${RT[@]}" "$bin" latency --min 4K --max "$max" --steps-per-octave 8 --json
			assert_success
			# each was timed again, the new reading kept and the first
			# beside it (and the TLBs' excess is the kept one's over the
			# TLB-local chase's first point, as many lines)
			jq -e --argjson mode "$mode" 'def disturbed: if $mode == 3 then .first_ns > 2 * .ns
					else .first_ns < .ns / 2 end;
				.probes.retimed >= 2 and
				(.probes.tlb_local[-3] | disturbed) and
				.probes.tlb_local[0].ns as $l0 |
				(.probes.line_a_page[2] | disturbed and .pages * 64 <= 4096 and
					(.ns - .excess_ns - $l0 | fabs) < 1e-6 * $l0) and
				any(.summary[0].notes[]; test("^probe points timed again: [0-9]+ "))' <<<"$output" >/dev/null ||
				{ jq -c '.probes.retimed, .probes.tlb_local, .probes.line_a_page[:5], .summary[0].notes' <<<"$output"; return 1; }
			# and no point the probes timed is left 1.5 times slower than
			# a larger one (the TLB-local chase's points up to one window
			# are the sweep's, untouched: under make check's load its L1
			# edge read 2.78 ns, then 1.20)
			if jq -e 'def falls: . as $a | [range(0; length) as $i |
					$a[$i + 1:][] | select($a[$i].ns > 1.5 * .ns)] | length > 0;
				(.probes.local_window_bytes as $w |
				 [.probes.tlb_local[] | select(.bytes > $w)] | falls | not) and
				(.probes.line_a_page | falls | not) and
				([.summary[0].notes[] | select(test("still falls"))] | length) == 0' <<<"$output" >/dev/null; then
				clean=1
				break
			fi
			echo "mode $mode, try $try: a fall is left: $(jq -c '[.probes.tlb_local[] | [.bytes, .ns, .first_ns]], [.summary[0].notes[] | select(test("still falls"))]' <<<"$output")"
		done
		[ "$clean" = 1 ] || fail "mode $mode: in 3 runs (${RT[*]:-not real-time}) every one left a probe point 1.5 times slower than a larger one"
	done
}

@test "a fall the re-timings leave makes the levels across it uncertain (BENCH_PROBE_TEST)" {
	local bin cpu win max l2 try json spanned=0 RT
	probe_setup
	# 4: every timing of the TLB-local chase's third-last point is
	# slowed: after its passes the fall is still there, said, and the
	# level read across it is not certain.  That needs a level across
	# the point: the point at most half way into this CPU's L2 (sysfs),
	# whose plateau then runs to the curve's end.  A live curve under
	# load can still be read otherwise (a busy Zen 3 guest's ended a
	# level at 422 KiB), so up to five runs until one has a level across
	# the point; a run that has one must then mark it and say why.
	[ "$l2" -ge $((2 * max)) ] ||
		skip "CPU $cpu's L2 ($((l2 / 1024)) KiB, sysfs) is less than twice the probes' range ($((max / 1024)) KiB): no level need span the disturbed point"
	json=$BATS_TEST_TMPDIR/run.json
	rt_prefix
	for try in 1 2 3 4 5; do
		MEMBENCH_PROBE_BREAK=4 run --separate-stderr "${RT[@]}" "$bin" latency --min 4K --max "$max" --steps-per-octave 8 --json-file "$json"
		assert_success
		jq -c '{try: '"$try"', point: .probes.tlb_local[-3].bytes, levels: [.summary[0].levels[] | [.name, .from_bytes, .boundary_bytes]]}' "$json"
		jq -e '.probes.tlb_local[-3] as $p | [.summary[0].levels[] | select(.from_bytes <= $p.bytes and
			(.boundary_bytes // infinite) >= $p.bytes)] | length > 0' "$json" >/dev/null || continue
		spanned=1
		break
	done
	[ "$spanned" = 1 ] || fail "in 5 runs no level spanned the TLB-local chase's disturbed point (the condition this test needs)"
	jq -e --argjson max "$max" '.probes.tlb_local[-3] as $p | .probes.retimed >= 3 and $p.first_ns > 0 and
		$p.bytes > .probes.local_window_bytes and
		([.summary[0].levels[] | select(.from_bytes <= $p.bytes and
			(.boundary_bytes // infinite) >= $p.bytes)] | all(.certain == false)) and
		any(.summary[0].notes[]; test("^the TLB-local chase still falls from [0-9.]+ [KMG]iB to [0-9.]+ [KMG]iB when timed again: ")) and
		($max != 524288 or any(.summary[0].notes[]; test("^the TLB-local chase still falls from 430.5 KiB to 512 KiB when timed again: ")))' "$json" >/dev/null ||
		{ jq -c '.probes.retimed, .probes.tlb_local[-4:], .summary[0].levels, .summary[0].notes' "$json"; return 1; }
	# the text of the same run
	assert_line --regexp '^# stride=64: the TLB-local chase still falls from [0-9.]+ [KMG]iB to [0-9.]+ [KMG]iB when timed again: .* not certain$'
	[ "$max" != 524288 ] ||
		assert_line --regexp '^# stride=64: the TLB-local chase still falls from 430.5 KiB to 512 KiB when timed again: .* not certain$'
	assert_line --regexp '^# stride=64: L1d .* \| L2\? [0-9.]+ ns .*from '
}

# ---- moved from alloc.bats (the fast tier)
@test "where the OS keeps no smaps, the mapping is unknown, never invented" {
	# a build that believes it is not on Linux: the smaps shim has no file
	bin=$(build_variant nolinux gcc -std=gnu99 -O1 -U__linux__)
	run "$bin" -s 20000 -n 3
	assert_success
	assert_line 'Mapping a: unknown (no smaps on this system)'
	run "$bin" -s 20000 -n 3 --json
	assert_success
	run jq -r '[.run.arrays[] | .mapping == null and .page_kib == null] | all' <<<"$output"
	assert_output true
}

@test "rows whose load threads moved nothing are named, marked in the JSON and left out of the doubling point" {
	needs_openmp
	# A build whose load threads move their whole 256 MiB array as one
	# chunk, and whose rows are timed for 0.2 ms from the start, without
	# a warm-up: no thread can finish its first chunk (1.3 TB/s) before
	# a row's timing ends, as no thread gets CPU time on a busy machine.
	bin=$(build_variant nochunk gcc -O0 -fopenmp -DLAT_LOAD_CHUNK='(1u << 30)' \
		-DLAT_LOAD_MIN_BYTES='(256u << 20)' -DLAT_LOADED_WARM_NS=0 -DLAT_LOADED_NS=0.2e6)
	run --separate-stderr "$bin" latency --min 1M --max 1M --load-threads 1 \
		--rw 1:0,2:1 --delays 0,1000 --json-file "$BATS_TEST_TMPDIR/r.json"
	assert_success
	jq -e '.loaded | (.rows | length) == 6 and
		(.rows | all(.load_bytes == 0 and .load_mbs == 0 and .load_moved == false)) and
		(.curves | all(.loaded_rows == 0 and .doubles == false and .double_mbs == null))' \
		"$BATS_TEST_TMPDIR/r.json" >/dev/null || {
		jq -c '.loaded.rows[], .loaded.curves[]' "$BATS_TEST_TMPDIR/r.json"
		return 1
	}
	local m d
	# (2:1's chunk is whole blocks of lines, a little under 256 MiB)
	for m in 1:0 2:1; do
		for d in 1000 0; do
			assert_line --regexp "^# mix $m delay $d: the load threads finished no 256(\\.0)? MiB chunk while the chase was timed \\(a busy machine gave them no CPU time, or the delay outlasted the timing\\), so the row's latency is not loaded latency; the doubling point leaves the row out\$"
		done
		assert_line --regexp "^# mix $m: idle [0-9.]+ ns; latency doubles: not measured \(no row's load threads moved data\)\$"
	done
	assert_equal "$(grep -c 'the load threads finished no' <<<"$output")" 4
	# harness/loaded-latency puts no such row into its medians
	MEMBENCH_RESULTS=$BATS_TEST_TMPDIR/results run --separate-stderr \
		"$MEMBENCH_ROOT/harness/loaded-latency" -n 1 -b "$bin" -- --min 1M --max 1M --delays 100,0
	assert_success
	assert_line --regexp '^ +1:0 +idle +[0-9.]+ +0\.0$'
	assert_line --regexp '^ +2:1 +idle +[0-9.]+ +0\.0$'
	for m in 1:0 2:1; do
		for d in 100 0; do
			assert_line --regexp "^ +$m +$d +- +-\$"
		done
	done
}

# ---- moved from loaded.bats (the fast tier)
@test "a row counts only what its load threads moved while the chase was timed: threads that moved nothing read zero" {
	needs_openmp
	# A build whose rows are timed for 0.5 ms after a 200 ms warm-up, and
	# delays of 1e8 idle-loop turns, tens of ms on any CPU: each thread
	# moves one chunk, then spins past the timed window, so a row's window
	# holds at most one chunk a thread (none, unless a chunk happened to
	# fall in it).  Counting the warm-up's chunks (several), the rows
	# before (the counters run on across rows) or planned bytes reads more.
	bin=$(build_variant shortrow gcc -O2 -fopenmp \
		-DLAT_LOADED_WARM_NS=200e6 -DLAT_LOADED_NS=0.5e6)
	run --separate-stderr "$bin" latency --min 1M --max 1M --load-threads 1 \
		--rw 1:0 --delays 100000000,99999999 --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		.loaded as $l | $l.curves[0].chunk_bytes as $chunk | $chunk > 0 and
		($l.rows | map(.threads)) == [0, 1, 1] and
		($l.rows | all(.seconds > 0 and .load_bytes <= .threads * $chunk and
			((.load_bytes / .seconds / 1e6 - .load_mbs) | fabs) <=
				1e-6 * (.load_mbs + 1)))' >/dev/null || {
		printf '%s\n' "$output" | jq -c '.loaded.curves[0].chunk_bytes, .loaded.rows[]'
		return 1
	}
}


# ---- bench nodes: the cells that must be marked, the builds that cannot
@test "bench nodes: pages that did not land on the column's node mark the cell, in every format (NODES_MISPLACE_TEST)" {
	two_cpus
	free_ids 1
	local n0 f1=${FAKE_IDS[0]} bin
	n0=$(real_node)
	# a fake second node: its CPU is a real one, its memory is not there,
	# and the test build binds nothing, so the pages land where the
	# kernel's default puts them: never on the fake node
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu $CPU_A 0 $CPU_A $n0
		cpu $CPU_B 1 $CPU_B $f1
		node $n0 8388608 8388608
		node $f1 8388608 8388608
	EOF
	bin=$(build_variant misplace gcc -O0 -fopenmp -DNODES_MISPLACE_TEST=1)
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run --separate-stderr "$bin" nodes --buffer 4M -n 2 \
		--json-file "$BATS_TEST_TMPDIR/n.json" --csv
	assert_success
	# CSV: held, pages_held by cell
	run awk -F, 'NR > 1 { print $1, $3 "->" $4, $15, $16 }' <<<"$output"
	assert_output "$(for m in latency bandwidth; do for r in "$n0" "$f1"; do
		echo "$m $r->$n0 yes yes"
		echo "$m $r->$f1 no no"
	done; done)"
	# JSON: the column's node has none of the pages, the CPUs held
	run jq -r --arg f "$f1" '.nodes.matrices[].cells[] | select(.mem_node == ($f | tonumber)) |
		[.binding, .cpus_held, .pages_held, .held, (.node_pages | has($f)), (.node_pages | add) == .pages] | map(tostring) | join(" ")' \
		"$BATS_TEST_TMPDIR/n.json"
	assert_output "$(printf 'ok true false false false true\n%.0s' 1 2 3 4)"
	# the text: the figure marked, and the cell's line says where its pages are
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run --separate-stderr "$bin" nodes --buffer 4M -n 2 --matrix latency
	assert_success
	assert_line --regexp "^ +$n0: +[0-9.]+ +[0-9.]+!\$"
	assert_line --regexp "^  latency $f1->$f1: CPU $CPU_B, ran there \\(held\\); 0 of 1024 pages on node $f1, NOT HELD: 1024 on node [0-9]+; "
}

@test "bench nodes: threads that ran on other CPUs than their cell names mark it, in every format (NODES_MOVE_TEST)" {
	two_cpus
	local bin
	bin=$(build_variant move gcc -O0 -fopenmp -DNODES_MOVE_TEST=1)
	run --separate-stderr taskset -c "$CPU_A,$CPU_B" "$bin" nodes --buffer 4M -n 2 --json-file "$BATS_TEST_TMPDIR/n.json"
	assert_success
	run jq -r '.nodes.matrices[] | .matrix as $m | .cells[] |
		[$m, .cpus_held, .held, .pages_held, (.ran_on != [.cpus[] | ., .])] | map(tostring) | join(" ")' \
		"$BATS_TEST_TMPDIR/n.json"
	[ "${#lines[@]}" -ge 2 ]
	for line in "${lines[@]}"; do
		[[ $line == *" false false true true" ]] || fail "a cell on other CPUs was not marked: $line"
	done
	run --separate-stderr taskset -c "$CPU_A,$CPU_B" "$bin" nodes --buffer 4M -n 2 --matrix latency
	assert_success
	assert_line --regexp '^ +[0-9]+: +[0-9.]+!$'
	assert_line --regexp "^  latency [0-9]+->[0-9]+: CPU $CPU_A, NOT HELD: its 1 thread ran on CPU $CPU_B; "
}

@test "bench nodes: a bandwidth cell whose run does not validate says FAILED and the exit status is 1" {
	local bin
	bin=$(build_variant corrupt3 gcc -O0 -DBENCH_CORRUPT_TEST=3)
	run --separate-stderr "$bin" nodes --buffer 4M -n 2 --matrix bandwidth --json-file "$BATS_TEST_TMPDIR/n.json"
	assert_failure 1
	assert_line --regexp '^ +[0-9]+: +FAILED$'
	assert_line --regexp '^  read [0-9]+->[0-9]+: .*; FAILED validation: not a result$'
	assert_line --regexp '^WARNING: [0-9]+ bandwidth runs? failed validation'
	run jq -r '[.nodes.matrices[].cells[] | .validated, .held] | map(tostring) | unique | join(" ")' "$BATS_TEST_TMPDIR/n.json"
	assert_output "false true"
}

@test "bench nodes: a build without OpenMP runs a thread a row; one that is not for Linux refuses the mode in one line" {
	local bin
	bin=$(build_variant serial gcc -std=c99 -O2)
	run --separate-stderr "$bin" nodes --buffer 4M -n 2 --matrix bandwidth --json
	assert_success
	run jq -r '[.nodes.rows[].threads] + [.nodes.matrices[].cells[] | (.ran_on | length), .held] | map(tostring) | unique | join(" ")' <<<"$output"
	assert_output "1 2 true"
	bin=$(build_variant nolinux gcc -std=gnu99 -O1 -U__linux__)
	BENCH=$bin refused_by nodes
	[ "$stderr" = "bench: mode nodes: this build cannot bind memory to a node (that needs Linux's mbind(2) and move_pages(2))" ]
	run "$bin" info --json
	run jq -c '.build.modes' <<<"$output"
	assert_output '["stream","latency","all","info","mix"]'
}

# ---- the kernels' table read against itself
@test "a kernel row whose words per index are not its formula's reads and write is refused at every start" {
	local src="$BATS_TEST_TMPDIR/bench.c"
	cp "$MEMBENCH_ROOT/bench.c" "$src"
	# Axpy's row says 2 words per index; its formula reads c and a and
	# writes c: 3, which every byte count would otherwise misstate
	perl -0pi -e 's/(X\(AXPY, axpy, Axpy, "Axpy: +", STORE, c, )3,/${1}2,/' "$src"
	run cmp -s "$src" "$MEMBENCH_ROOT/bench.c"
	assert_failure 1
	gcc -O2 "$src" -o "$BATS_TEST_TMPDIR/bench"
	for mode in info stream mix; do
		run --separate-stderr "$BATS_TEST_TMPDIR/bench" "$mode"
		assert_failure 2
		assert_output ''
		[ "$stderr" = "bench: kernel table: axpy moves 2 words per index by its row, but its formula (c = c + q*a) reads 2 arrays and writes 1" ]
	done
}

# ---- bench mix and bench c2c
@test "bench mix: each column is validated on its own; a damaged one fails, exit 1, and says which" {
	# BENCH_CORRUPT_TEST=3 moves Read's last total, and only the plain
	# column runs Read
	bin=$(build_variant corrupt3 gcc -O0 -DBENCH_CORRUPT_TEST=3)
	run --separate-stderr "$bin" mix $TINY
	assert_failure 1
	assert_line "Validation, plain stores: FAILED, these figures are not results: read's sums disagree with the replay"
	assert_line --regexp '^Validation, streaming stores: every element of a, b and c within 1e-13 of the replay on scalars$'
	run --separate-stderr "$bin" mix $TINY --json
	assert_failure 1
	run jq -r '[.validation.ok, .validation.plain.ok, .validation.plain.read_ok, .validation.nt.ok,
		(.mix.rows | map(.plain.validated) | unique | .[]), (.mix.rows[1:] | map(.nt.validated) | unique | .[])] | @tsv' <<<"$output"
	assert_output "$(printf 'false\tfalse\tfalse\ttrue\tfalse\ttrue')"
	# an element of a[] off: both columns fail
	bin=$(build_variant corrupt gcc -O0 -DBENCH_CORRUPT_TEST=1)
	run --separate-stderr "$bin" mix $TINY --csv
	assert_failure 1
	[ "$(printf '%s\n' "${lines[@]:1}" | awk -F, '{ print $NF }' | sort -u)" = failed ]
}

@test "bench c2c in a build without OpenMP is refused in one line, and every other mode still runs" {
	serial=$(build_variant serial gcc -std=c99 -O2)
	BENCH=$serial refused_by c2c
	[ "$stderr" = "bench: c2c: core-to-core latency needs two threads at once, atomic loads and stores, and pinning, and this build lacks OpenMP (rebuild with -fopenmp)" ]
	run "$serial" info --json
	assert_success
	[ "$(jq -r '.build.modes | join(",")' <<<"$output")" = "stream,latency,all,info,mix,nodes" ]
	run "$serial" mix $TINY
	assert_success
}

@test "bench c2c: a pair whose thread ran on another CPU than it names is marked in the text, the JSON and the summary (C2C_MOVE_TEST)" {
	needs_openmp
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no pair to measure"
	# the answering thread is moved onto the pinging thread's CPU once both
	# are pinned: really running elsewhere, as a binding that did not hold
	bin=$(build_variant c2cmove gcc -O0 -fopenmp -DC2C_MOVE_TEST=1 -DC2C_WINDOWS=3 -DC2C_WARM_NS=1e6)
	run --separate-stderr taskset -c 0,1 "$bin" c2c --json
	assert_success
	run jq -r '.c2c.marked, (.c2c.pairs[0] | .on_cpus, (.b_ran_on | join(" "))),
		(.c2c.summary[] | select(.pairs > 0) | "\(.relation) \(.pairs) \(.pairs_on_cpus) \(.median_ns)"),
		(.warnings | length)' <<<"$output"
	assert_line --index 0 1
	assert_line --index 1 false
	assert_line --index 2 '1 0'
	assert_line --regexp '^[a-z]+ 1 0 null$'
	assert_line --index 4 1
	run --separate-stderr taskset -c 0,1 "$bin" c2c
	assert_success
	assert_line --regexp '^ +0 +[0-9.]+/[0-9.]+!$'
	assert_line '  0-1: its threads ran on CPUs 0 then 0 and 1 then 0, not on 0 and 1'
	assert_line 'WARNING: c2c pair 0-1 is marked: its threads ran on CPUs 0 then 0 and 1 then 0, not on 0 and 1'
}

@test "bench c2c: the pinging thread checks every number it reads; one the protocol never writes is caught, not timed (C2C_STRAY_TEST)" {
	needs_openmp
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no pair to measure"
	bin=$(build_variant c2cstray gcc -O0 -fopenmp -DC2C_STRAY_TEST=100)
	run --separate-stderr taskset -c 0,1 "$bin" c2c --json
	assert_success
	run jq -r '.c2c.pairs[0] | [.on_cpus, (.median_ns == null), .round_trips, .answered] | @tsv' <<<"$output"
	assert_output "$(printf 'false\ttrue\t100\t100')"
	run --separate-stderr taskset -c 0,1 "$bin" c2c
	assert_line --regexp '^ +0 +bad line!$'
	assert_line '  0-1: the line held a number neither thread writes, so nothing was measured'
}
