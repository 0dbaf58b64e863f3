#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031,SC2016 # bats runs each test in a subshell on purpose
# Hardening: values that become path components, the results root, the
# huge page bound, the lock before any state, and the recovery journal.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() { harness_setup; }

RUN=$HARNESS_REPO/harness/run

@test "a label must be one safe path component: newline, \$(...), '/', leading '.' or '-', or too long is refused in one line" {
	nl='a
$(touch pwned)'
	for bad in "$nl" 'a/b' '.hidden' '-x' '..' '' 'a b' "a'b" "$(printf 'x%.0s' $(seq 65))"; do
		run "$RUN" --label "$bad" -- -s 1000
		assert_failure 2
		assert_equal "${#lines[@]}" 1
		assert_output --partial 'run: --label must be one path component'
	done
	[ ! -e "$MEMBENCH_RESULTS" ]
	[ ! -e pwned ] && [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
	[ ! -e "$FAKE_BENCH_LOG" ]
	# The longest and the odd-but-safe ones still go through.
	run "$RUN" --label "_a.b-1$(printf 'x%.0s' $(seq 58))" -- -s 1000
	assert_success
}

@test "bench-compare: a --variant name becomes a file name and must be one safe component" {
	run "$HARNESS_REPO/harness/bench-compare" --ref "$HARNESS_REPO/bench.c" --variant '../x=-t 1'
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output --partial 'bench-compare: --variant NAME must be one path component'
}

@test "an empty --results, or a results root that is not a directory, is refused in one line" {
	cd "$BATS_TEST_TMPDIR"
	# A host name of this test's own, so a harness that did write under /
	# (as it used to) is caught and cleaned up after.
	host=membench-test-$(basename "$(mktemp -u)")
	make_fake_tool "$BATS_TEST_TMPDIR/bin" hostname "echo $host"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$RUN" --results '' -- -s 1000
	if [ -e "/$host" ]; then rm -rf "/${host:?}"; fail "wrote under the filesystem root"; fi
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output 'run: --results needs a directory, not an empty string'
	[ ! -e "$FAKE_BENCH_LOG" ]
	echo file >"$BATS_TEST_TMPDIR/notadir"
	run "$RUN" --results "$BATS_TEST_TMPDIR/notadir" -- -s 1000
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output "run: the results root $BATS_TEST_TMPDIR/notadir is not a directory"
	run "$RUN" --results "$BATS_TEST_TMPDIR/notadir/sub" -- -s 1000
	assert_failure 2
	assert_equal "${#lines[@]}" 1
	assert_output --partial "run: cannot create the results directory $BATS_TEST_TMPDIR/notadir/sub/"
}

@test "--hugepages N that would not fit in MemAvailable minus 10% of MemTotal is refused, with the numbers" {
	# 20000000 kB available - 2400000 kB margin = 17600000 kB = 8593.75 pages of 2048 kB.
	before=$(tree_digest)
	for args in '--hugepages 8594' '--dry-run --hugepages 8594' '--hugepages 99999999'; do
		read -r -a a <<<"$args"
		run "$RUN" "${a[@]}" -- -s 1000
		assert_failure 2
		assert_equal "${#lines[@]}" 1
	done
	run "$RUN" --hugepages 8594 -- -s 1000
	assert_output 'run: --hugepages 8594 does not fit: 8594 more pages of 2048 kB are 17600512 kB, and MemAvailable 20000000 kB minus a margin of 2400000 kB (10% of MemTotal 24000000 kB) leaves 17600000 kB'
	assert_equal "$(tree_digest)" "$before"
	run grep -c -- --json-file "$FAKE_BENCH_LOG"
	assert_output 0
	# Pages already in the pool are not in MemAvailable: only the growth counts.
	echo 100 >"$MEMBENCH_PROCFS/sys/vm/nr_hugepages"
	run "$RUN" --hugepages 8693 -- -s 1000
	assert_success
	assert_equal "$(cat "$MEMBENCH_PROCFS/sys/vm/nr_hugepages")" 100
	run "$RUN" --hugepages 8694 -- -s 1000
	assert_failure 2
}

@test "--hugepages 1G:N is bounded by 1 GiB pages, not Hugepagesize" {
	mkdir -p "$MEMBENCH_SYSFS/kernel/mm/hugepages/hugepages-1048576kB"
	echo 0 >"$MEMBENCH_SYSFS/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
	# 17600000 kB left = 16.8 pages of 1048576 kB (8593 of Hugepagesize's 2048)
	before=$(tree_digest)
	run "$RUN" --hugepages 1G:17 -- -s 1000
	assert_failure 2
	assert_output 'run: --hugepages 1G:17 does not fit: 17 more pages of 1048576 kB are 17825792 kB, and MemAvailable 20000000 kB minus a margin of 2400000 kB (10% of MemTotal 24000000 kB) leaves 17600000 kB'
	assert_equal "$(tree_digest)" "$before"
	run "$RUN" --hugepages 1G:16 -- -s 1000
	assert_success
}

# start_killable ARGS...: harness/run ARGS in a process group of its own
# with a slow fake bench, until that bench has started; PGID is the group.
# Its scratch directory under the test's: kill -9 leaves it behind.
start_killable() {
	TMPDIR=$BATS_TEST_TMPDIR FAKE_BENCH_SLEEP=30 setsid "$RUN" "$@" >"$BATS_TEST_TMPDIR/first.out" 2>&1 &
	PGID=$!
	for _ in $(seq 100); do grep -qs -- '--json-file' "$FAKE_BENCH_LOG" && break; sleep 0.1; done
	grep -q -- '--json-file' "$FAKE_BENCH_LOG"
}

THP=kernel/mm/transparent_hugepage/enabled

@test "a second run while the first holds the lock changes nothing and saves nothing" {
	start_killable --thp always --hugepages 4 --label first
	assert_equal "$(cat "$MEMBENCH_SYSFS/$THP")" always
	before=$(tree_digest)
	journal=$(cat "$MEMBENCH_LOCK_DIR/journal")
	for cmd in "harness/run --thp never --hugepages 8 --required --label second" \
		"harness/run --thp never --hugepages 8 --label second" \
		"harness/sweep-latency-pages --modes thp-never" \
		"harness/sweep-freq --freqs 2000 --required" \
		"harness/restore"; do
		read -r -a argv <<<"$cmd"
		run "$HARNESS_REPO/${argv[0]}" "${argv[@]:1}"
		assert_failure 2
		assert_equal "${#lines[@]}" 1
		assert_output --partial 'another membench command is measuring'
		assert_equal "$(tree_digest)" "$before"
		assert_equal "$(cat "$MEMBENCH_LOCK_DIR/journal")" "$journal"
	done
	[ -z "$(find "$MEMBENCH_RESULTS" -maxdepth 2 -name '*second*')" ]
	kill -TERM "$PGID"; wait "$PGID" || true
	# The first one restores its own originals, not the second's view.
	assert_equal "$(cat "$MEMBENCH_SYSFS/$THP")" madvise
	[ ! -e "$MEMBENCH_LOCK_DIR/journal" ]
}

@test "after kill -9 the journal is left; the next run says what was left changed, restores it before saving anything" {
	start_killable --thp always --hugepages 4 --label killed
	dir=$(result_dir)
	[ -n "$(find "$dir" -name '.*.tmp.*')" ]
	grep -q "^file	$MEMBENCH_SYSFS/$THP	madvise$" "$MEMBENCH_LOCK_DIR/journal"
	kill -KILL -- -"$PGID"; wait "$PGID" || true
	# No trap ran: the machine is still changed.
	assert_equal "$(cat "$MEMBENCH_SYSFS/$THP")" always
	assert_equal "$(cat "$MEMBENCH_PROCFS/sys/vm/nr_hugepages")" 4
	run "$RUN" --label next -- -s 1000
	assert_success
	assert_output --regexp "run: warning: a previous run \\(pid [0-9]+: run --thp always --hugepages 4 --label killed\\) ended without restoring the machine and left changed: $MEMBENCH_SYSFS/$THP is 'always', was 'madvise', $MEMBENCH_PROCFS/sys/vm/nr_hugepages is '4', was '0'; restoring it now"
	assert_output --partial "run: restored $MEMBENCH_SYSFS/$THP to 'madvise'"
	assert_output --partial "run: removed the temporary files it left in $dir"
	assert_equal "$(cat "$MEMBENCH_SYSFS/$THP")" madvise
	assert_equal "$(cat "$MEMBENCH_PROCFS/sys/vm/nr_hugepages")" 0
	[ -z "$(find "$dir" -name '.*.tmp.*')" ]
	[ ! -e "$MEMBENCH_LOCK_DIR/journal" ]
	# The state saved as "before" is the restored one.
	grep -A1 '^## THP and huge pages before the run' "$(find "$MEMBENCH_RESULTS" -path '*-next/provenance.txt')" | grep -qx 'thp enabled: madvise'
}

@test "after kill -9 with a 1 GiB pool reserved, harness/restore puts that pool back" {
	G1=$MEMBENCH_SYSFS/kernel/mm/hugepages/hugepages-1048576kB
	mkdir -p "$G1"
	echo 0 >"$G1/nr_hugepages"
	start_killable --hugepages 1G:2 --label killed
	grep -q "^file	$G1/nr_hugepages	0$" "$MEMBENCH_LOCK_DIR/journal"
	kill -KILL -- -"$PGID"; wait "$PGID" || true
	assert_equal "$(cat "$G1/nr_hugepages")" 2
	run "$HARNESS_REPO/harness/restore"
	assert_success
	assert_output --partial "left changed: $G1/nr_hugepages is '2', was '0'"
	assert_output --partial "restore: restored $G1/nr_hugepages to '0'"
	assert_equal "$(cat "$G1/nr_hugepages")" 0
	[ ! -e "$MEMBENCH_LOCK_DIR/journal" ]
}

@test "harness/restore puts back what a killed run left, and says when there is nothing" {
	start_killable --thp never --label killed
	kill -KILL -- -"$PGID"; wait "$PGID" || true
	assert_equal "$(cat "$MEMBENCH_SYSFS/$THP")" never
	run "$HARNESS_REPO/harness/restore"
	assert_success
	assert_output --partial "left changed: $MEMBENCH_SYSFS/$THP is 'never', was 'madvise'"
	assert_equal "$(cat "$MEMBENCH_SYSFS/$THP")" madvise
	[ ! -e "$MEMBENCH_LOCK_DIR/journal" ]
	run "$HARNESS_REPO/harness/restore"
	assert_success
	assert_output "restore: no journal in $MEMBENCH_LOCK_DIR: nothing was left to restore"
}
