#!/usr/bin/env bats
# Defects found by trying bench as a hostile or careless user would; each
# test failed before its fix.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# one_line_refusal: the last `run --separate-stderr` exited 2 with one
# line on stderr and nothing on stdout
one_line_refusal() {
	assert_failure 2
	assert_output ""
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || {
		echo "stderr: $stderr"
		return 1
	}
}

@test "--json-file refuses a target that is not a regular file, and follows no symlink" {
	d="$BATS_TEST_TMPDIR/t"
	mkdir "$d"
	mkfifo "$d/fifo"
	echo secret >"$d/victim"
	ln -s "$d/victim" "$d/link"
	for target in "$d/fifo" "$d" "$d/link"; do
		run --separate-stderr "$BENCH" $TINY --json-file "$target"
		one_line_refusal
		[[ "$stderr" == *"exists and is not a regular file"* ]]
	done
	[ "$(cat "$d/victim")" = secret ] && [ -L "$d/link" ] && [ -p "$d/fifo" ]
}

@test "--json-file writes through a new temporary file and leaves nothing else" {
	d="$BATS_TEST_TMPDIR/t"
	mkdir "$d"
	# names another user could plant when the temporary name is PATH.tmp.PID:
	# the next few hundred PIDs
	# (one process makes them all, so the PIDs are still ahead)
	perl -e 'symlink("$ARGV[0]/victim", "$ARGV[0]/r.json.tmp.$_") for $ARGV[1] .. $ARGV[1] + 399' \
		"$d" "$((BASHPID + 1))"
	[ "$(find "$d" -mindepth 1 -maxdepth 1 | wc -l)" -eq 400 ]
	(umask 022 && "$BENCH" $TINY --json-file "$d/r.json" >/dev/null)
	jq -e '.validation.ok' "$d/r.json" >/dev/null
	[ "$(stat -c %a "$d/r.json")" = 644 ]
	[ ! -e "$d/victim" ]
	# r.json and the planted links, no temporary file left
	[ "$(find "$d" -mindepth 1 -maxdepth 1 | wc -l)" -eq 401 ]
}

@test "a result that could not be written is a failure" {
	[ -w /dev/full ] || skip "no /dev/full"
	for args in "$TINY" "$TINY --json" "info" "latency --max 64K"; do
		# shellcheck disable=SC2086 # the words are the arguments
		run --separate-stderr "$BENCH" $args
		assert_success
		# shellcheck disable=SC2086
		run bash -c '"$0" "$@" >/dev/full' "$BENCH" $args
		assert_failure 2
		[[ "$output" == *"standard output: No space left on device"* ]]
	done
}

@test "non-finite or absurd values in --curve-in are refused, never a hang" {
	for bad in inf nan 1e400 -inf 2e9; do
		printf '"stride=64\n0.00049 1.1\n0.00098 %s\n0.00195 1.2\n' "$bad" \
			>"$BATS_TEST_TMPDIR/c"
		run --separate-stderr timeout 20 "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/c"
		one_line_refusal
	done
	printf '"stride=64\ninf 1.1\n' >"$BATS_TEST_TMPDIR/c"
	run --separate-stderr timeout 20 "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/c" --json
	one_line_refusal
}

@test "a curve of 200000 points is summarised, not stuck in quadratic time" {
	awk 'BEGIN { print "\"stride=64"
		for (i = 0; i < 200000; i++)
			printf "%.9f %.3f\n", (512 + i * 64) / 1048576,
				(i < 500 ? 1.1 : i < 4000 ? 4 : i < 100000 ? 12 : 90) * (1 + (i % 7) / 1000) }' \
		>"$BATS_TEST_TMPDIR/big"
	# a hang guard, not a speed target: the quadratic reader took minutes
	run timeout 120 "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/big" --json
	assert_success
	jq -e '.summary[0].levels | map(.name) == ["L1d", "L2", "L3", "DRAM"]' <<<"$output"
}

@test "the thread limit holds however the count arrives" {
	# an OpenMP build whatever $BENCH is: isa.bats' -O0 one for gdb
	# (build_variant makes it once a run; alone, -O0 takes a third of
	# -O2's time), since the limit does not depend on the optimiser
	bin=$(build_variant omp gcc -O0 -g -fopenmp)
	OMP_NUM_THREADS=100000 run --separate-stderr "$bin" $TINY
	one_line_refusal
	[[ "$stderr" == *"OMP_NUM_THREADS: 100000 threads is above the maximum 1024"* ]]
	refused_by $TINY -t 100000
}

@test "--load-threads that cannot fit in memory is refused before anything is measured" {
	run --separate-stderr "$BENCH" latency --max 1G --load-threads 1000
	one_line_refusal
	[[ "$stderr" == *"--load-threads 1000"*"physical memory"* ]]
}

@test "--load-threads beyond the CPUs bench may run on is said once, before measuring" {
	need taskset
	taskset -c 0 true 2>/dev/null || skip "cannot bind to CPU 0"
	note='--load-threads 1: only one CPU is allowed, so the load threads share it with the chase'
	# the text and the JSON of one run (a loaded run takes 5 s)
	run --separate-stderr taskset -c 0 "$BENCH" latency --min 1M --max 1M --load-threads 1 \
		--json-file "$BATS_TEST_TMPDIR/r.json"
	assert_success
	# the first line, above the curve that is printed as it is measured
	[[ "${lines[0]}" == "# WARNING: $note"* ]]
	[ "$(grep -c 'share it with the chase' <<<"$output")" -eq 1 ]
	run jq -r --arg n "$note" '[.warnings[] | select(startswith($n))] | length' "$BATS_TEST_TMPDIR/r.json"
	assert_output 1
}

@test "--load-threads that fits the CPUs draws no CPU warning" {
	need taskset
	taskset -c 0,1 true 2>/dev/null || skip "this machine has fewer than 2 CPUs"
	# one mix, one delay: the CPU check is made once, before any row (a
	# run of the default rows took 5 s, this one 1)
	run taskset -c 0,1 "$BENCH" latency --min 1M --max 1M --load-threads 1 --rw 1:0 --delays 0 --json
	assert_success
	run jq -r '[.warnings[] | select(contains("CPUs"))] | length' <<<"$output"
	assert_output 0
}

@test "nothing is printed before a refusal" {
	printf '"stride=64\n0.00049 1.1\nnot a point\n' >"$BATS_TEST_TMPDIR/bad"
	run --separate-stderr "$BENCH" latency --curve-in "$BATS_TEST_TMPDIR/bad" --json
	one_line_refusal
	run --separate-stderr "$BENCH" $TINY --json-file "$BATS_TEST_TMPDIR"
	one_line_refusal
}

@test "ignored signals stay ignored (nohup, a harness that ignores SIGINT)" {
	f="$BATS_TEST_TMPDIR/r.json"
	# a sweep of about 3.5 s on the 2-vCPU guest, signalled at 0.5 s; both
	# signals must reach it while it runs (a kill that finds no process
	# fails the test, which could otherwise pass having signalled nothing)
	bash -c 'trap "" HUP INT; exec "$0" latency --max 8M --json-file "$1" >/dev/null' \
		"$BENCH" "$f" &
	pid=$!
	sleep 0.5
	kill -HUP "$pid" || fail "bench had ended before its SIGHUP"
	kill -INT "$pid" || fail "bench had ended before its SIGINT"
	wait "$pid"
	jq -e '.curve | length > 0' "$f" >/dev/null
}

@test "-Ofast keeps every check: overflow, NaN input and failed validation" {
	bin=$(build_variant ofast gcc -Ofast -fopenmp)
	run --separate-stderr "$bin" -s 1000 -n 300
	one_line_refusal
	run --separate-stderr "$bin" latency --mhz nan
	one_line_refusal
	bin=$(build_variant ofastf gcc -Ofast -fopenmp -DSTREAM_TYPE=float)
	run --separate-stderr "$bin" -s 1000 -n 40
	one_line_refusal
	bin=$(build_variant ofastc gcc -Ofast -fopenmp -DBENCH_CORRUPT_TEST=1)
	run "$bin" $TINY
	assert_failure 1
	assert_line --partial "Failed Validation on array a[]"
}
