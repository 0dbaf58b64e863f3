#!/usr/bin/env bats
# $stderr is set by bats' run.
# shellcheck disable=SC2154
# The latency runs under load and with several chains at real sizes:
# --chains' memory-level parallelism, the --load-threads table at its
# default delays, and harness/loaded-latency against the sweep.  They
# are the longest of the latency tests, so they run in the full tier
# (make check), not in check-fast; loaded.bats and latency.bats keep the
# rest.  Rates are never compared with a number.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

needs_openmp() {
	"$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null ||
		skip "this bench has no OpenMP"
}

@test "--chains: ns per load falls and parallelism is reported" {
	run "$BENCH" latency --min 8M --max 8M --chains 4 --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		(.mlp.rows | map(.chains)) == [1, 2, 4] and
		.mlp.rows[0].parallelism == 1 and
		.mlp.rows[2].ns_per_load < .mlp.rows[0].ns_per_load' >/dev/null
	run "$BENCH" latency --min 8M --max 8M --chains 3
	assert_success
	assert_line --regexp '^# memory-level parallelism at 8 MiB'
	assert_line --regexp '^#    3 '
}

@test "--load-threads: a table of latency against achieved bandwidth" {
	"$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null ||
		skip "this bench has no OpenMP"
	run "$BENCH" latency --min 1M --max 1M --load-threads 1 --json
	assert_success
	printf '%s\n' "$output" | jq -e '
		(.loaded.rows | length) == 22 and .loaded.rows[-1].delay == 0 and
		(.loaded.rows | map(select(.idle | not)) |
			all(.ns > 0 and .load_moved == (.load_mbs > 0))) and
		(.loaded.load_cpus | length) == 1' >/dev/null
}

@test "harness/loaded-latency: idle against the sweep per run and mix, then the median curve" {
	needs_openmp
	export MEMBENCH_RESULTS="$BATS_TEST_TMPDIR/results"
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" -n 1 -b "$BENCH" -- \
		--min 1M --max 1M --delays 100,0
	assert_success
	assert_line --regexp '^ +1 +1:0 +[-0-9.]+ +[0-9.]+ +[0-9.]+ +[-0-9.]+ +[0-9.]+ +(yes|NO) '
	assert_line --regexp '^ +1 +2:1 '
	assert_line --regexp '^ +1:0 +idle +[0-9.]+ +0\.0$'
	# "-" where the run's row had no load (its threads got no CPU time)
	assert_line --regexp '^ +2:1 +0 +([0-9.]+ +[0-9.]+|- +-)$'
	local json_rows
	json_rows=$(jq -r '.loaded.rows[] | select((.idle | not) and (.load_moved | not)) | "\(.rw) \(.delay)"' \
		"$(find "$MEMBENCH_RESULTS" -name run-1.json)")
	assert_equal "$(printf '%s\n' "$output" | awk '$3 == "-" && $4 == "-" { print $1, $2 }')" "$json_rows"
	# the table's idle latency is the run's JSON idle row
	local json idle
	json=$(find "$MEMBENCH_RESULTS" -name run-1.json)
	idle=$(jq -r '.loaded.curves[0].idle_ns' "$json")
	assert_line --regexp "^ +1 +1:0 .* $(round_as_c 2 "$idle") +[-0-9.]+ +[0-9.]+ +(yes|NO) "
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" -n x
	assert_failure 2
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" --tolerance much
	assert_failure 2
}

# competitor CPU: a task on CPU that takes the core for 0.5 ms every
# 10 ms (absolute wake-ups, so the period holds whatever it waits for),
# for at most 60 s.  Where the OS allows real-time tasks, it is one at a
# priority above BENCH_RT (the command that runs bench at real-time
# priority 1), so each of its wake-ups preempts bench at once and
# nothing else can: bench's clock keeps seven whole runs of 2-4 ms,
# which take at least 14 ms, so at least one wake-up lands among them,
# and a run holds at most one (a period is longer than a run and the
# burst), so over the clock's 200 ms at least 23 runs are whole.  Where
# it does not (no root, no CAP_SYS_NICE), both are ordinary tasks,
# whose turns the scheduler picks, and the test retries.  Its pid is in
# $COMPETITOR, which teardown stops however the test ends; it returns
# once the program runs.
competitor() {
	cat >"$BATS_TEST_TMPDIR/busy.c" <<'C'
#define _POSIX_C_SOURCE 200809L
#include <time.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
int main(void)
{
	struct timespec next;
	double end = now() + 60, t;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (now() < end) {
		for (t = now(); now() - t < 0.5e-3;)
			;
		next.tv_nsec += 10000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, 0);
	}
	return 0;
}
C
	cc -O1 -o "$BATS_TEST_TMPDIR/busy" "$BATS_TEST_TMPDIR/busy.c"
	local rt=(chrt -f 2)
	BENCH_RT=(chrt -f 1)
	chrt -f 2 true 2>/dev/null || { rt=(); BENCH_RT=(); }
	taskset -c "$1" "${rt[@]}" "$BATS_TEST_TMPDIR/busy" 3>&- &
	COMPETITOR=$!
	# taskset and chrt exec the program in turn, and a bench started
	# before it runs measures its clock alone (a CI run failed so):
	# wait until the pid is the program (5 s at most)
	local i comm=
	for ((i = 0; i < 500; i++)); do
		read -r comm <"/proc/$COMPETITOR/comm" || break
		[ "$comm" = busy ] && return 0
		sleep 0.01
	done
	fail "the competitor did not start (last seen as '$comm')"
}

teardown() {
	[ -z "${COMPETITOR:-}" ] || kill "$COMPETITOR" 2>/dev/null || :
}

@test "a window another task interrupts is not the chase's: the clock's runs and the curve's windows that were preempted are set aside and counted" {
	# Up to five runs, each under the competitor (above): real-time, each
	# run sees its interruptions land and keeps its seven whole clock
	# runs; as ordinary tasks, the scheduler may let a run's clock go
	# uninterrupted or interrupt it past its 200 ms, and the test tries
	# again.  A run that meets the conditions must then read L1 as a
	# whole number of cycles: a clock from interrupted runs read 3.5 on a
	# 4-cycle L1.  A bench that does not set preempted runs aside reads
	# no preemption in any run, and fails all five.
	local cpu try cyc ok=0 why=
	cpu=$("$BENCH" latency --min 4K --max 4K --json | jq -r .run.cpu)
	competitor "$cpu"
	for try in 1 2 3 4 5; do
		run --separate-stderr "${BENCH_RT[@]}" "$BENCH" latency --min 4K --max 16K --steps-per-octave 4 --json
		assert_success
		jq -e --argjson cpu "$cpu" '.run.cpu == $cpu' <<<"$output" >/dev/null ||
			fail "bench ran on CPU $(jq .run.cpu <<<"$output"), not the competitor's $cpu"
		echo "try $try: clock $(jq -c '.clock | {runs, preempted_runs}' <<<"$output"), curve windows preempted $(jq -c '[.curve[].preempted]' <<<"$output")"
		# the competitor took the core: some runs and windows say so,
		# and the clock still had its seven whole runs
		if ! jq -e '.clock.preempted_runs > 0 and
			.clock.runs - .clock.preempted_runs >= 7 and
			([.curve[].preempted] | add) > 0' <<<"$output" >/dev/null; then
			why="no run had a preempted clock run, seven whole ones and a preempted window"
			continue
		fi
		# and L1 is still a whole number of cycles (one load a step)
		cyc=$(jq -r '.summary[0].levels[] | select(.name == "L1d") | .cycles' <<<"$output")
		echo "try $try: L1d $cyc cycles"
		awk -v c="$cyc" 'BEGIN { r = int(c + 0.5)
			exit !(r >= 2 && r <= 8 && c - r < 0.3 && r - c < 0.3) }' && { ok=1; break; }
		why="no run under the competitor gave a whole number of L1 cycles"
	done
	[ "$ok" = 1 ] || fail "in 5 runs under the competitor (${BENCH_RT[*]:-not real-time}): $why"
	# the text says it too (a run whose clock was interrupted)
	for try in 1 2 3 4 5; do
		run "${BENCH_RT[@]}" "$BENCH" latency --min 4K --max 16K --steps-per-octave 4
		assert_success
		assert_line --regexp '^# clock: [0-9]+ MHz, '
		grep -Eq '^# clock: [0-9]+ MHz, measured: .* \([0-9]+ of its [0-9]+ runs were preempted and not used\)$' <<<"$output" &&
			return 0
	done
	fail "in 5 runs under the competitor, no text run said its clock's preempted runs"
}
