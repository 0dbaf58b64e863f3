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
	idle=$(jq -r '.loaded.curves[0].idle_ns * 100 | round / 100' "$json")
	assert_line --regexp "^ +1 +1:0 .* $(printf '%.2f' "$idle") +[-0-9.]+ +[0-9.]+ +(yes|NO) "
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" -n x
	assert_failure 2
	run --separate-stderr "$MEMBENCH_ROOT/harness/loaded-latency" --tolerance much
	assert_failure 2
}

# competitor CPU: a task on CPU that takes the core for 1 ms every 4 ms,
# for at most 60 s; real-time where the OS lets it (it then always
# preempts), else an ordinary task (a woken one preempts too).  Its pid
# is in $COMPETITOR, which teardown stops however the test ends; it
# returns once the program runs.
competitor() {
	cat >"$BATS_TEST_TMPDIR/busy.c" <<'C'
#include <time.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
int main(void)
{
	struct timespec nap = {0, 3000000};
	double end = now() + 60, t;
	while (now() < end) {
		for (t = now(); now() - t < 1e-3;)
			;
		nanosleep(&nap, 0);
	}
	return 0;
}
C
	cc -O1 -o "$BATS_TEST_TMPDIR/busy" "$BATS_TEST_TMPDIR/busy.c"
	local rt=(chrt -f 1)
	chrt -f 1 true 2>/dev/null || rt=()
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
	local cpu try cyc ok=0
	cpu=$("$BENCH" latency --min 4K --max 4K --json | jq -r .run.cpu)
	competitor "$cpu"
	for try in 1 2 3; do
		run --separate-stderr "$BENCH" latency --min 4K --max 16K --steps-per-octave 4 --json
		assert_success
		# the competitor took the core: some runs and windows say so,
		# and the clock still had its seven whole runs
		jq -e --argjson cpu "$cpu" '.run.cpu == $cpu and
			.clock.preempted_runs > 0 and
			.clock.runs - .clock.preempted_runs >= 7 and
			([.curve[].preempted] | add) > 0' <<<"$output" >/dev/null ||
			{ jq -c '.clock, [.curve[].preempted]' <<<"$output"; return 1; }
		# and L1 is still a whole number of cycles (one load a step):
		# with a clock from interrupted runs it read 3.5 on a 4-cycle L1
		cyc=$(jq -r '.summary[0].levels[] | select(.name == "L1d") | .cycles' <<<"$output")
		echo "try $try: L1d $cyc cycles"
		awk -v c="$cyc" 'BEGIN { r = int(c + 0.5)
			exit !(r >= 2 && r <= 8 && c - r < 0.3 && r - c < 0.3) }' && { ok=1; break; }
	done
	run "$BENCH" latency --min 4K --max 16K --steps-per-octave 4
	assert_success
	assert_line --regexp '^# clock: [0-9]+ MHz, measured: .* \([0-9]+ of its [0-9]+ runs were preempted and not used\)$'
	[ "$ok" = 1 ] || fail "no run under the competitor gave a whole number of L1 cycles"
}
