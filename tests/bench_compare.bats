#!/usr/bin/env bats
# harness/bench-compare: alternating runs against a reference STREAM.
# STREAM itself is not shipped, so bench.c, whose output follows STREAM's
# contract, stands in as the reference here.

load test_helper
# bench and stream.c built with the same flags in test after test
cc_cache_on

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# Results go to the test's own directory, never the work tree's results/.
setup() { export MEMBENCH_RESULTS="$BATS_TEST_TMPDIR/results"; }

@test "bench-compare prints per-kernel medians, spreads and ratios" {
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O0 -fopenmp" --size 100000 \
		--rounds 3 --threads 2 --variant "nt=--stores nt" -- -n 3
	assert_success
	assert_line --regexp '^\| config \| kernel \| median best MB/s'
	for cfg in ref bench nt; do
		for k in Copy Scale Add Triad; do
			assert_line --regexp "^\| $cfg \| $k \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9]{3} \| [0-9]+\.[0-9]{3} \| [0-9]+\.[0-9]{3} \| [^|]+ \|$"
		done
	done
	# the reference's ratio to itself is exactly 1
	assert_line --regexp '^\| ref \| Triad \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| 1\.000 \|'
	# no targets unless asked
	refute_line --regexp '^(PASS|MISS) '
	# runs alternate: the progress shows ABBA order
	[[ "$stderr" == *"round 1 of 3: ref"*"round 1 of 3: nt"*"round 2 of 3: nt"*"round 2 of 3: ref"* ]]
}

@test "bench-compare: the median of an even number of rounds is the mean of the middle two" {
	# A built reference that prints STREAM's lines with planted rates:
	# round N gives line N; sorted they are 1000 1010 1030 1100.
	printf '%s\n' 1100 1000 1030 1010 >"$BATS_TEST_TMPDIR/rates"
	cat >"$BATS_TEST_TMPDIR/stream" <<EOT
#!/bin/sh
n=\$(cat "$BATS_TEST_TMPDIR/n" 2>/dev/null || echo 0); n=\$((n + 1)); echo "\$n" >"$BATS_TEST_TMPDIR/n"
r=\$(sed -n "\${n}p" "$BATS_TEST_TMPDIR/rates")
for k in Copy Scale Add Triad; do echo "\$k:  \$r.0  0.001  0.001  0.001"; done
EOT
	chmod +x "$BATS_TEST_TMPDIR/stream"
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$BATS_TEST_TMPDIR/stream" --cflags "-O0" --size 100000 --rounds 4 --warmup 0 -- -n 3
	assert_success
	for k in Copy Scale Add Triad; do
		assert_line --regexp "^\| ref \| $k \| 1020\.0 \| 1100\.0 \| 1\.100 \| 1\.000 \| "
	done
}

@test "bench-compare refuses to run without a reference" {
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare"
	assert_failure 2
	[[ "$stderr" == "bench-compare: --ref is required"* ]]
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" --ref /nonexistent/stream.c
	assert_failure 2
	[[ "$stderr" == *"does not exist"* ]]
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" --ref "$MEMBENCH_ROOT/bench.c" --rounds x
	assert_failure 2
	[[ "$stderr" == *"--rounds: 'x' is not a positive integer"* ]]
}

# fake_likwid DIR MBS [KERNELS]: a likwid-bench on PATH that lists
# KERNELS (default: the four) and reports MBS MByte/s, and logs its calls.
fake_likwid() {
	local dir=$1 mbs=$2 kernels=${3:-copy_mem_avx512 stream_mem_avx512 copy_avx512 stream_avx512_fma}
	mkdir -p "$dir"
	cat >"$dir/likwid-bench" <<EOT
#!/bin/bash
echo "\$*" >>"$dir/calls"
if [ "\$1" = -a ]; then
	for k in $kernels; do echo "\$k - a kernel"; done
	exit 0
fi
echo "MByte/s:		$mbs"
EOT
	chmod +x "$dir/likwid-bench"
}

@test "--peers alternates stream.c, bench plain and auto, the native build and likwid-bench, and checks the targets" {
	# a likwid-bench far faster than anything: auto must MISS its first
	# target for Copy and Triad, and the run still succeeds
	fake_likwid "$BATS_TEST_TMPDIR/bin" 99999999.0
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O0 -fopenmp" --size 100000 \
		--rounds 2 --threads 2 --peers -- -n 3
	assert_success
	for cfg in ref bench auto native; do
		for k in Copy Scale Add Triad; do
			assert_line --regexp "^\| $cfg \| $k \| [0-9]+\.[0-9] \| [0-9]+\.[0-9] \| [0-9]+\.[0-9]{3} \| [0-9]+\.[0-9]{3} \| [0-9]+\.[0-9]{3} \| [^|]+ \|$"
		done
	done
	# bench's rows say the method (stores/ISA) each kernel used: the
	# default is the build's own code, as stream.c's
	assert_line --regexp '^\| bench \| Triad \| .* \| plain/generic \|$'
	assert_line --regexp '^\| native \| Triad \| .* \| nt/(generic|sse2|avx2|avx512) \|$'
	for lk in copy_mem_avx512 copy_avx512; do
		assert_line --regexp "^\| lw-$lk \| Copy \| 99999999\.0 \| .* \| 1\.000 \| $lk \|$"
		refute_line --regexp "^\| lw-$lk \| Triad "
	done
	for lk in stream_mem_avx512 stream_avx512_fma; do
		assert_line --regexp "^\| lw-$lk \| Triad \| 99999999\.0 \| .* \| 1\.000 \| $lk \|$"
	done
	# likwid-bench got the same arrays: 2 of 100000 doubles for copy, 3 for the triad
	grep -qx -- '-t copy_mem_avx512 -W N:1600000B:2' "$BATS_TEST_TMPDIR/bin/calls"
	grep -qx -- '-t stream_avx512_fma -W N:2400000B:2' "$BATS_TEST_TMPDIR/bin/calls"
	for k in Copy Triad; do
		assert_line --regexp "^MISS $k: auto 0\.[0-9]{3}x the best config \(lw-"
	done
	for k in Copy Scale Add Triad; do
		assert_line --regexp "^(PASS|MISS) $k: bench plain stores [0-9.]+x stream\.c; target >= 1\.00$"
		assert_line --regexp "^(PASS|MISS) $k: auto spread [0-9.]+, stream\.c [0-9.]+; target: no worse$"
	done
	# Scale has no likwid peer, so its verdict rests on measured rates:
	# whichever way they fall, PASS must mean a ratio of at least 0.98
	line=$(grep -E '^(PASS|MISS) Scale: auto [0-9.]+x the best config' <<<"$output")
	[ -n "$line" ]
	ratio=$(sed -E 's/^[A-Z]+ Scale: auto ([0-9.]+)x.*/\1/' <<<"$line")
	# (0.980 is printed for ratios on either side of the target)
	if [ "$ratio" = 0.980 ]; then
		:
	elif awk -v r="$ratio" 'BEGIN { exit !(r >= 0.98) }'; then
		[[ "$line" == PASS* ]]
	else
		[[ "$line" == MISS* ]]
	fi
	assert_line --regexp '^[1-9][0-9]* target\(s\) missed$'
	# all of them alternate in one run
	[[ "$stderr" == *"round 1 of 2: ref"*"round 1 of 2: lw-stream_avx512_fma"*"round 2 of 2: lw-stream_avx512_fma"*"round 2 of 2: ref"* ]]
	# --strict turns a miss into a failure
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O0" --size 100000 \
		--rounds 1 --peers --strict -- -n 3
	assert_failure 1
	[[ "$stderr" == *"a target was missed (--strict)"* ]]
}

@test "likwid-bench kernels that are missing or cannot run are skipped with the reason" {
	fake_likwid "$BATS_TEST_TMPDIR/bin" 1000.0 "copy_avx512"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O0" --size 100000 --rounds 1 --likwid -- -n 3
	assert_success
	[[ "$stderr" == *"skipping likwid-bench copy_mem_avx512: this likwid-bench has no such kernel"* ]]
	[[ "$stderr" == *"skipping likwid-bench stream_avx512_fma: this likwid-bench has no such kernel"* ]]
	assert_line --regexp '^\| lw-copy_avx512 \| Copy \| 1000\.0 '
	refute_line --partial 'lw-copy_mem_avx512'
	# one that cannot run in this machine
	printf '#!/bin/sh\n[ "$1" = -a ] && { echo "copy_avx512 - k"; exit 0; }\necho "ERROR: cannot access topology"; exit 1\n' \
		>"$BATS_TEST_TMPDIR/bin/likwid-bench"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O0" --size 100000 --rounds 1 --likwid -- -n 3
	assert_success
	[[ "$stderr" == *"skipping likwid-bench copy_avx512: it cannot run here (ERROR: cannot access topology)"* ]]
	refute_line --partial '| lw-'
}

@test "--warmup: warm-up rounds run first, go to warmup.txt, and are left out of every figure" {
	# copy_avx512 only; its probe run (1 MiB) says 5.0, the first timed
	# run at the compared size (the warm-up) 900000.0, every later one 1000.0
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	cat >"$BATS_TEST_TMPDIR/bin/likwid-bench" <<EOT
#!/bin/bash
[ "\$1" = -a ] && { echo "copy_avx512 - k"; exit 0; }
case " \$* " in *" N:1600000B:"*) ;; *) echo "MByte/s:		5.0"; exit 0 ;; esac
n=\$(cat "$BATS_TEST_TMPDIR/n" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$BATS_TEST_TMPDIR/n"
if [ "\$n" = 0 ]; then echo "MByte/s:		900000.0"; else echo "MByte/s:		1000.0"; fi
EOT
	chmod +x "$BATS_TEST_TMPDIR/bin/likwid-bench"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O0" --size 100000 --rounds 2 \
		--warmup 1 --likwid -- -n 3
	assert_success
	[[ "$stderr" == *"warm-up round 1 of 1: ref"*"warm-up round 1 of 1: lw-copy_avx512"*"round 1 of 2: ref"* ]]
	assert_line --partial '2 rounds after 1 warm-up round(s)'
	# median, max and spread come from the two timed rounds only
	assert_line --regexp '^\| lw-copy_avx512 \| Copy \| 1000\.0 \| 1000\.0 \| 1\.000 \|'
	dir=$(ls -d "$MEMBENCH_RESULTS"/*/*-bench-compare)
	grep -q '^lw-copy_avx512 900000.0 ' "$dir/warmup.txt"
	[ "$(grep -c '^lw-copy_avx512 ' "$dir/rates.txt")" -eq 2 ]
	[ "$(grep -c '^ref ' "$dir/warmup.txt")" -eq 1 ]
	[ "$(grep -c '^ref ' "$dir/rates.txt")" -eq 2 ]
	# --warmup 0 runs none; a bad count is refused
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" \
		--ref "$MEMBENCH_ROOT/bench.c" --cflags "-O0" --size 100000 --rounds 1 --warmup 0 -- -n 3
	assert_success
	[[ "$stderr" != *"warm-up"* ]]
	run --separate-stderr "$MEMBENCH_ROOT/harness/bench-compare" --ref "$MEMBENCH_ROOT/bench.c" --warmup -1
	assert_failure 2
	[[ "$stderr" == *"--warmup: '-1' is not a whole number of rounds from 0 to 100"* ]]
}
