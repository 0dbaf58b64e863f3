#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# The membench lock: every command that measures holds it, a second one is
# refused at once (or waits, with --wait-lock), and the lock directory must
# be a private directory of ours, never a symlink someone planted.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() { harness_setup; }

RUN=$HARNESS_REPO/harness/run
RUN_MATRIX=$HARNESS_REPO/matrix/run-matrix

# hold_lock: harness/run in the background with a slow fake bench, until
# its bench has started (so the lock is held); HOLDER is its pid.
hold_lock() {
	FAKE_BENCH_SLEEP=${1:-30} "$RUN" --label holder >"$BATS_TEST_TMPDIR/holder.out" 2>&1 &
	HOLDER=$!
	for _ in $(seq 100); do grep -qs '^stream' "$FAKE_BENCH_LOG" && break; sleep 0.1; done
	grep -q '^stream' "$FAKE_BENCH_LOG"
}

release_lock() {
	kill -TERM "$HOLDER" 2>/dev/null || true
	wait "$HOLDER" || true
}

@test "a second command is refused at once, naming the holder; the first is untouched" {
	hold_lock
	run "$RUN" --label second -- -s 1000
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output --regexp "^run: another membench command is measuring \\(pid $HOLDER: run --label holder; lock .*/lock\\); try again when it is done, or pass --wait-lock$"
	# Nothing ran and nothing was written for the refused one.
	assert_equal "$(grep -c '^stream' "$FAKE_BENCH_LOG")" 1
	[ -z "$(find "$MEMBENCH_RESULTS" -maxdepth 2 -name '*-second*')" ]
	release_lock
}

@test "make run and make matrix exclude each other: run-matrix is refused while a harness measures" {
	hold_lock
	m=$BATS_TEST_TMPDIR/one.matrix
	echo 'gcc | -O2 | | plain | 1' >"$m"
	run "$RUN_MATRIX" --size 100000 --results "$BATS_TEST_TMPDIR/mresults" "$m"
	assert_failure 2
	assert_output --regexp "^run-matrix: another membench command is measuring \\(pid $HOLDER: run "
	# Refused before building: no results directory at all.
	[ ! -e "$BATS_TEST_TMPDIR/mresults" ]
	# A dry run measures nothing and needs no lock.
	run "$RUN_MATRIX" --dry-run --size 100000 --results "$BATS_TEST_TMPDIR/mresults" "$m"
	assert_success
	release_lock
}

@test "--wait-lock waits for the holder, then runs" {
	hold_lock 2
	run "$RUN" --wait-lock --label waiter -- -s 1000
	assert_success
	assert_output --partial "run: waiting for the lock: pid $HOLDER: run --label holder holds it"
	wait "$HOLDER"
	# Both ran, one after the other.
	assert_equal "$(grep -c '^stream' "$FAKE_BENCH_LOG")" 2
	[ -n "$(find "$MEMBENCH_RESULTS" -name summary.md -path '*-waiter/*')" ]
}

@test "the lock file names its holder while it runs" {
	hold_lock
	assert_equal "$(cat "$MEMBENCH_LOCK_DIR/lock")" "pid $HOLDER: run --label holder"
	assert_equal "$(stat -c %a "$MEMBENCH_LOCK_DIR")" 700
	release_lock
}

@test "a symlink planted at the lock directory is refused, and nothing is written through it" {
	mkdir -m 700 "$BATS_TEST_TMPDIR/elsewhere"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$BATS_TEST_TMPDIR/planted"
	MEMBENCH_LOCK_DIR=$BATS_TEST_TMPDIR/planted run "$RUN" -- -s 1000
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output --partial "run: refusing the lock directory $BATS_TEST_TMPDIR/planted: it must be a real directory (not a symlink)"
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
	[ ! -e "$FAKE_BENCH_LOG" ]
}

@test "a lock directory others may write or own, or a symlinked lock file, is refused" {
	mkdir -m 700 "$BATS_TEST_TMPDIR/open"
	chmod 777 "$BATS_TEST_TMPDIR/open"
	MEMBENCH_LOCK_DIR=$BATS_TEST_TMPDIR/open run "$RUN" -- -s 1000
	assert_failure 2
	assert_output --partial 'refusing the lock directory'
	# private, but another user's (as root, given away to nobody)
	if [ "$(id -u)" = 0 ]; then
		mkdir -m 700 "$BATS_TEST_TMPDIR/theirs"
		chown 65534 "$BATS_TEST_TMPDIR/theirs"
		MEMBENCH_LOCK_DIR=$BATS_TEST_TMPDIR/theirs run "$RUN" -- -s 1000
		assert_failure 2
		assert_output --partial "refusing the lock directory $BATS_TEST_TMPDIR/theirs: it must be a real directory (not a symlink), owned by uid 0"
	fi
	mkdir -m 700 "$BATS_TEST_TMPDIR/mine"
	ln -s "$BATS_TEST_TMPDIR/target" "$BATS_TEST_TMPDIR/mine/lock"
	MEMBENCH_LOCK_DIR=$BATS_TEST_TMPDIR/mine run "$RUN" -- -s 1000
	assert_failure 2
	assert_output "run: refusing the lock file $BATS_TEST_TMPDIR/mine/lock: it is a symlink"
	[ ! -e "$BATS_TEST_TMPDIR/target" ]
}

@test "where the lock lives: /run/membench for root, else a private XDG_RUNTIME_DIR, else the results root" {
	unset MEMBENCH_LOCK_DIR
	where() { bash -c ". '$HARNESS_REPO/harness/lib.sh'; lock_dir"; }
	MEMBENCH_UID=0 run where
	assert_output /run/membench
	mkdir -m 700 "$BATS_TEST_TMPDIR/xdg"
	MEMBENCH_UID=1000 XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/xdg run where
	assert_output "$BATS_TEST_TMPDIR/xdg/membench"
	chmod 1777 "$BATS_TEST_TMPDIR/xdg"
	MEMBENCH_UID=1000 XDG_RUNTIME_DIR=$BATS_TEST_TMPDIR/xdg run where
	assert_output "$MEMBENCH_RESULTS/.lock"
	MEMBENCH_UID=1000 XDG_RUNTIME_DIR='' run where
	assert_output "$MEMBENCH_RESULTS/.lock"
	release_lock
}

@test "every measuring command takes the lock" {
	hold_lock
	m=$BATS_TEST_TMPDIR/one.matrix
	echo 'gcc | -O2 | | plain | 1' >"$m"
	for cmd in "harness/sweep-threads --threads 1" "harness/sweep-bind --binds none" \
		"harness/sweep-size --llc 1M --multiples 1" "harness/sweep-latency-pages --modes thp-never" \
		"harness/sweep-freq --freqs 2000" "harness/time-latency-sweep -n 1" "harness/sweep-offset --to 0" \
		"harness/bench-compare --ref $HARNESS_REPO/bench.c --size 1000 --rounds 1" \
		"harness/latency-compare --ref $MEMBENCH_BENCH --kind multichase --size 64K --rounds 1" \
		"matrix/run-matrix $m"; do
		read -r -a argv <<<"$cmd"
		run "$HARNESS_REPO/${argv[0]}" "${argv[@]:1}"
		assert_failure 2
		assert_output --regexp "^${argv[0]#*/}: another membench command is measuring \\(pid $HOLDER: "
	done
	# Questions to bench (--plan, info) may come first; no measuring step did.
	assert_equal "$(grep -c -- '--json-file' "$FAKE_BENCH_LOG")" 1
	release_lock
}
