#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/sweep-offset: STREAM's OFFSET experiment, --offset 0 to a page.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# The fake bench, wrapped so that its rates follow --offset as aliasing
# would: Copy loses 70% and Add 20% where b is 1-2047 bytes past a, Scale
# 5% at a whole page (4096 bytes).  The numbers are made up; the tests
# check the sweep's arithmetic on them.
setup() {
	harness_setup
	mv "$MEMBENCH_BENCH" "$BATS_TEST_TMPDIR/bench-inner"
	cat >"$MEMBENCH_BENCH" <<'EOF_BENCH'
#!/bin/bash
set -eu
off=0 jfile='' prev=''
for a in "$@"; do
	[ "$prev" != --offset ] || off=$a
	[ "$prev" != --json-file ] || jfile=$a
	prev=$a
done
"${0%/*}/bench-inner" "$@"
[ -n "$jfile" ] || exit 0
jq -c --argjson b "$((off * 8 % 4096))" --argjson whole "$((off * 8))" '
	.results |= map(.best_mbs = 10000 * (
		if .kernel == "Copy" and $b > 0 and $b < 2048 then 0.3
		elif .kernel == "Add" and $b > 0 and $b < 2048 then 0.8
		elif .kernel == "Scale" and $whole == 4096 then 0.95
		else 1 end))' "$jfile" >"$jfile.new"
mv "$jfile.new" "$jfile"
EOF_BENCH
	chmod +x "$MEMBENCH_BENCH"
}

SWEEP=$HARNESS_REPO/harness/sweep-offset

@test "default offsets: 0 to one page in cache-line steps, as elements" {
	run "$SWEEP" --dry-run -- -s 1000
	assert_success
	run grep -o -- '--offset [0-9]* --json-file' <<<"$output"
	assert_output "$(for ((e = 0; e <= 512; e += 8)); do echo "--offset $e --json-file"; done)"
}

@test "the table has each offset's rates and the closing line names the costliest" {
	run "$SWEEP" --step 1024 -- -s 1000
	assert_success
	assert_line '| Offset bytes | Offset elements | Thread:CPU | Pages | Copy MB/s | Scale MB/s | Add MB/s | Triad MB/s | Status |'
	assert_line --regexp '^\| 1024 \| 128 \| .* \| 3000\.0 \| 10000\.0 \| 8000\.0 \| 10000\.0 \| ok \|$'
	assert_line --regexp '^\| 2048 \| 256 \| .* \| 10000\.0 \| 10000\.0 \| 10000\.0 \| 10000\.0 \| ok \|$'
	assert_line 'Costliest offsets (b sits that many bytes past a, c twice as far): Copy 1024 B: 0.30x its best (0 B), 70.0% lost; Scale 4096 B: 0.95x its best (0 B), 5.0% lost; Add 1024 B: 0.80x its best (0 B), 20.0% lost; Triad 0 B: 1.00x its best (0 B), 0.0% lost'
	# the same line is in summary.md, and the report's offset section says it
	run grep -c '^Costliest offsets' "$(result_dir)/summary.md"
	assert_output 1
	run "$HARNESS_REPO/harness/report" --out "$BATS_TEST_TMPDIR/rep" "$(result_dir)"
	assert_success
	assert_output --partial "Offset sweep: each kernel's costliest --offset"
	assert_line --regexp '^\| Copy +\| +1024 \| +3000\.0 \| +0 \| +10000\.0 \| +0\.30 \|$'
	assert_line --partial '- Costliest offsets (b sits that many bytes past a, c twice as far): Copy 1024 B: 0.30x'
}

@test "bad steps and a bench --offset are bad input, before any results" {
	run "$SWEEP" --step 12
	assert_failure 2
	assert_output "sweep-offset: --step 12 is not a multiple of bench's 8-byte elements"
	run "$SWEEP" --step x
	assert_failure 2
	[ "${#lines[@]}" -eq 1 ]
	run "$SWEEP" -- --offset 3
	assert_failure 2
	assert_output 'sweep-offset: sweep-offset sets --offset itself; do not pass it after --'
	[ ! -e "$MEMBENCH_RESULTS" ]
}

@test "real bench: a two-step sweep runs, and bench's aliasing line is its own" {
	unset MEMBENCH_SYSFS MEMBENCH_PROCFS MEMBENCH_UID
	export MEMBENCH_BENCH
	MEMBENCH_BENCH=$(real_bench)
	run "$SWEEP" --step 256 --to 256 -- -s 100000 -n 3
	assert_success
	assert_line --regexp '^\| 256 \| 32 \| .* \| ok \|$'
	assert_line --regexp '^Costliest offsets \(b sits that many bytes past a, c twice as far\): Copy (0|256) B: '
	# bench said where --offset 32 aliases, in the step's own output
	d=$(result_dir)
	grep -q '^WARNING: aliasing: .*copy c-a 512' "$d/step-002.raw"
	run grep -c aliasing "$d/step-001.raw"
	assert_output 0
	# --alloc static keeps the compiled offset: bench refuses, before any step
	run "$SWEEP" -- --alloc static
	assert_failure 2
	assert_output --partial 'static arrays keep the compiled OFFSET'
}
