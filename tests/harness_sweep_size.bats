#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/sweep-size: array sizes in multiples of the last-level cache.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() { harness_setup; }

SWEEP=$HARNESS_REPO/harness/sweep-size

@test "sizes are multiples of the LLC bench --plan reports, one step each" {
	run "$SWEEP" --multiples 0.5,1,2 -- -n 3
	assert_success
	# The fake LLC is 4 MiB: 0.5x is 2 MiB of doubles, 262144 elements.
	assert_output --partial 'LLC 4194304 bytes (reported by'
	assert_output --partial '| 0.5 | 262144 | 2.00 |'
	assert_output --partial '| 1 | 524288 | 4.00 |'
	assert_output --partial '| 2 | 1048576 | 8.00 |'
	run grep -c -- '-t 1 -s ' "$FAKE_BENCH_LOG"
	assert_output 3
}

@test "the reported LLC is bench's (--plan llc_bytes), not the harness's own reading" {
	# sysfs still says 4 MiB; bench says 8 MiB, and bench is the one source.
	export FAKE_LLC_BYTES=8388608
	run "$SWEEP" --multiples 0.5
	assert_success
	assert_output --partial 'LLC 8388608 bytes (reported by'
	assert_output --partial '| 0.5 | 524288 | 4.00 |'
	grep -q -- '--plan' "$FAKE_BENCH_LOG"
}

@test "no LLC known to bench: refused with a way out, before any results" {
	export FAKE_LLC_BYTES=0
	run "$SWEEP"
	assert_failure 2
	assert_output 'sweep-size: bench knows no LLC size on this machine (llc_bytes=0 in bench stream --plan); pass --llc SIZE'
	[ ! -e "$MEMBENCH_RESULTS" ]
}

@test "progress on stderr with --progress: step i of n, time left" {
	run "$SWEEP" --progress --llc 1M --multiples 1,2
	assert_success
	assert_line 'sweep-size: step 1 of 2, time left not known yet: 1x LLC, 131072 elements'
	assert_line --regexp '^sweep-size: step 2 of 2, about [0-9]+ (s|min) left: 2x LLC, 262144 elements$'
}

@test "the sweep sets -s and -t itself" {
	run "$SWEEP" -- -s 100
	assert_failure 2
	assert_output 'sweep-size: sweep-size sets -s itself; do not pass it after --'
}

@test "measured LLC needs bench's latency mode, and says so when it is missing" {
	export FAKE_NO_LATENCY=1
	run "$SWEEP" --llc-from measured
	assert_failure 2
	assert_output --partial 'this bench has no latency mode (rebuild it from the current bench.c)'
}

@test "measured LLC is bench's own fit of the latency curve, and both are recorded" {
	# The fake's fit differs from the LLC it reports, so the note shows
	# which one the sweep took.
	export FAKE_LLC_FIT=6291456
	run "$SWEEP" --llc-from measured --multiples 1
	assert_success
	assert_output --partial 'LLC 6291456 bytes (measured'
	assert_output --partial 'the OS reports 4194304 bytes)'
	assert_output --partial '| 1 | 786432 | 6.00 |'
	[ -s "$(result_dir)/llc-curve.raw" ]
	run jq -r '.summary[0].llc_fit_bytes' "$(result_dir)/llc-curve.json"
	assert_output 6291456
}

@test "bench's LLC fit finds the knee of noisy synthetic curves, as the sweep reads it" {
	b=$(real_bench)
	for c in 8 32; do
		# A 1 MiB cache, then c MiB, then memory; the sweep's chase starts
		# past the smaller cache (twice the L2), so the curve does too.
		{
			echo '"stride=64'
			awk -v c="$c" 'BEGIN { srand(c); for (e = -2; e <= 10; e += 0.25) { m = 2 ^ e
				l = (m <= 1) ? 4 : (m <= c ? 15 : 15 + (1 - c / m) * 85)
				if (m >= 2) printf "%.5f %.3f\n", m, l * (1 + (rand() - 0.5) * 0.04) } }'
		} >"$BATS_TEST_TMPDIR/curve"
		run jq -r '.summary[0].llc_fit_bytes' < <("$b" latency --curve-in "$BATS_TEST_TMPDIR/curve" --json)
		assert_output "$((c * 1048576))"
	done
}

@test "real bench: a tiny size sweep produces the table" {
	unset MEMBENCH_SYSFS MEMBENCH_PROCFS MEMBENCH_UID
	export MEMBENCH_BENCH
	MEMBENCH_BENCH=$(real_bench)
	run "$SWEEP" --llc 1M --multiples 0.25,1 -- -n 3
	assert_success
	assert_line '| x LLC | Elements | MiB per array | Thread:CPU | Pages | Copy MB/s | Scale MB/s | Add MB/s | Triad MB/s | Status |'
	assert_line --regexp '^\| 0.25 \| 32768 \| 0.25 \| 0:[0-9]+ \| [0-9]+ KiB [0-9]+% huge(, [0-9]+ KiB [0-9]+% huge)* \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| ok \|$'
	assert_line --regexp '^\| 1 \| 131072 \| 1.00 \| 0:[0-9]+ \| [0-9]+ KiB [0-9]+% huge(, [0-9]+ KiB [0-9]+% huge)* \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| ok \|$'
	d=$(result_dir)
	run jq -r '.bench.run.array_size' "$d/step-002.json"
	assert_output 131072
	grep -q '^## sha256 of bench.c' "$d/provenance.txt"
}
