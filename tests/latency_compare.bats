#!/usr/bin/env bats
# harness/latency-compare: alternating runs against a reference pointer
# chaser.  Neither multichase nor lat_mem_rd is shipped, so fakes stand in
# that print chosen figures and log their arguments; a fake bench does the
# same for bench's JSON, and one test runs the real ./bench at a tiny size.

load test_helper

setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; } # the full tier runs a file's tests in order (CONTRIBUTING.md)

# Results go to the test's own directory, never the work tree's results/.
setup() {
	export MEMBENCH_RESULTS="$BATS_TEST_TMPDIR/results"
	F=$BATS_TEST_TMPDIR/fake
	mkdir -p "$F"
	export F
}

# fake_tool PATH SIDE [KIND]: a reference (SIDE ref) or bench (SIDE bench) that
# logs "SIDE ARGS" and the CPUs it may run on to $F/log, and prints the
# next line of $F/SIDE.ns (one line per call; the last line once they run
# out) as KIND (default: its name) does: multichase (its last line), lat_mem_rd ("size_MB ns" lines on
# stderr, the largest size not last) or bench's JSON.  bench's sweep
# prints the next line of $F/last.ns as its summary's last figure (tail),
# beside a DRAM level and steps of other figures ("none": no tail, as from
# a bench older than it), at --max or at the bytes in $F/tail.at.
# $F/fail.SIDE: that call (by count) exits 3.
fake_tool() {
	cat >"$1" <<EOF
#!/bin/bash
side=$2 kind=${3:-${1##*/}}
EOF
	cat >>"$1" <<'EOF'
next() { # next FILE: the call's line of FILE
	local n=0 v line
	[ ! -f "$F/$1.n" ] || read -r n <"$F/$1.n"
	n=$((n + 1)); echo "$n" >"$F/$1.n"
	while read -r line; do v=$line; ((--n)) || break; done <"$F/$1"
	printf '%s' "$v"
}
what=$side
[ "$side" = ref ] || case " $* " in *" --min "*) what=bench ;; *" latency "*) what=sweep ;; esac
case "$1" in
--version) echo 'bench fake 0'; exit 0 ;;
info) [ "${2:-}" = --json ] && echo '{"build":{"cflags":"fakecc -O9"}}' || echo 'Build flags: fakecc -O9'; exit 0 ;;
esac
while read -r key cpus; do [ "$key" != Cpus_allowed_list: ] || break; done </proc/self/status
echo "$what $* cpus=$cpus" >>"$F/log"
if [ -f "$F/fail.$what" ]; then
	n=$(next "fail.$what")
	[ "$n" != 1 ] || { echo "$what: planted failure" >&2; exit 3; }
fi
case "$kind:$what" in
multichase:ref) printf 'some header\n%7s\n\n' "$(next ref.ns)" ;;
lat_mem_rd:ref) printf '"stride=64\n0.00049 1.000\n250.00000 %s\n8.00000 20.000\n\n' "$(next ref.ns)" >&2 ;;
*:ref) echo 'no figure here' ;;
*:bench) printf '{"run":{"cpu":%s},"curve":[{"ns":1.5},{"ns":%s}]}\n' "${cpus%%[-,]*}" "$(next bench.ns)" ;;
*:sweep) d=$(next last.ns) prev='' stride='' max=''
	for a; do [ "$prev" != --stride ] || stride=$a; [ "$prev" != --max ] || max=$a; prev=$a; done
	l='{"name":"L3","ns":2},{"name":"DRAM","ns":3,"steps":[{"ns":4},{"ns":5}]}'
	t='' at=$(numfmt --from=iec "$max")
	[ ! -f "$F/tail.at" ] || read -r at <"$F/tail.at"
	[ "$d" = none ] || t=',"tail":{"ns":'"$d"',"bytes":'"$at"',"points":3}'
	printf '{"run":{"cpu":%s},"summary":[{"stride":8,"levels":[],"tail":{"ns":999,"bytes":1}},{"stride":%s,"levels":[%s]%s}]}\n' "${cpus%%[-,]*}" "$stride" "$l" "$t" ;;
esac
EOF
	chmod +x "$1"
}

# compare NAME [NS...]: run latency-compare against the fake reference
# $F/NAME (made here, if it is not there yet) that prints NS (one per call), with the fake bench, at 64K.
compare() {
	local name=$1
	shift
	[ $# -eq 0 ] || printf '%s\n' "$@" >"$F/ref.ns"
	[ -f "$F/bench.ns" ] || echo 100 >"$F/bench.ns"
	[ -f "$F/last.ns" ] || echo 100 >"$F/last.ns"
	[ -e "$F/$name" ] || fake_tool "$F/$name" ref
	fake_tool "$F/bench" bench
	run --separate-stderr "$MEMBENCH_ROOT/harness/latency-compare" --ref "$F/$name" \
		--bench "$F/bench" --size 64K "${ARGS[@]}"
}

result_dir() { dir=$(echo "$MEMBENCH_RESULTS"/*/*-latency-compare); [ -d "$dir" ]; }

@test "multichase gets -m and -T the size, -s the stride, pinned with bench; ABBA rounds after the warm-up" {
	need taskset
	cpu=0
	[ "$(nproc)" -lt 2 ] || cpu=1
	# the first (warm-up) call is far off: it must be left out
	ARGS=(--size 1536K --stride 128 --rounds 2 --warmup 1 --cpu "$cpu")
	compare multichase 500 100
	assert_success
	printf -v want '%s\n' \
		"ref -m 1536k -T 1536k -s 128 cpus=$cpu" \
		"bench latency --min 1536K --max 1536K --stride 128 --json cpus=$cpu" \
		"sweep latency --max 1536K --stride 128 --json cpus=$cpu" \
		"ref -m 1536k -T 1536k -s 128 cpus=$cpu" \
		"bench latency --min 1536K --max 1536K --stride 128 --json cpus=$cpu" \
		"sweep latency --max 1536K --stride 128 --json cpus=$cpu" \
		"sweep latency --max 1536K --stride 128 --json cpus=$cpu" \
		"bench latency --min 1536K --max 1536K --stride 128 --json cpus=$cpu" \
		"ref -m 1536k -T 1536k -s 128 cpus=$cpu"
	assert_equal "$(cat "$F/log")" "${want%$'\n'}"
	result_dir
	assert_equal "$(sed 1d "$dir/warmup.txt")" 'w1 500 100 100'
	assert_equal "$(sed 1d "$dir/rates.txt")" $'1 100 100 100\n2 100 100 100'
	assert_line '| ref (multichase) | 100.00 | 100.00-100.00 | 1.000 | 1.000 | 2 |'
	[[ "$stderr" == *"warm-up round 1 of 1: sweep"*"round 2 of 2: sweep"*"round 2 of 2: ref"* ]]
}

@test "lat_mem_rd (by --kind) gets -t -P 1 SIZE_MB STRIDE and its largest size's line is taken" {
	# a name it cannot tell needs --kind (the bad input test has the
	# refusal; its lat_mem_rd-only size refusal shows the name is read);
	# the path is data, never code
	d='a dir $(touch pwned)`touch pwned`'
	mkdir "$F/$d"
	fake_tool "$F/$d/lmrd" ref lat_mem_rd
	ARGS=(--kind lat_mem_rd --size 256M --stride 64 --rounds 1 --warmup 0)
	cd "$BATS_TEST_TMPDIR"
	compare "$d/lmrd" 95.5
	assert_success
	[ -z "$(find "$BATS_TEST_TMPDIR" -name pwned)" ]
	assert_equal "$(cut -d' ' -f1-6 "$F/log" | head -n1)" 'ref -t -P 1 256 64'
	result_dir
	assert_equal "$(sed 1d "$dir/rates.txt")" '1 95.5 100 100'
	assert_line '| ref (lat_mem_rd) | 95.50 | 95.50-95.50 | 1.000 | 1.000 | 1 |'
	assert_line "lat_mem_rd's largest size was 250.00000 MB (its own size steps), bench's 256M."
}

@test "medians, min-max, the median of per-round ratios and the ratio of medians come from rates.txt" {
	ARGS=(--rounds 4 --warmup 0)
	printf '%s\n' 110 180 120 90 >"$F/bench.ns"
	printf '%s\n' 95 none 105 100 >"$F/last.ns"
	compare multichase 100 200 100 100
	assert_success
	result_dir
	assert_equal "$(sed 1d "$dir/rates.txt")" $'1 100 110 95\n2 200 180 -\n3 100 120 105\n4 100 90 100'
	# ratios 1.1 0.9 1.2 0.9: their median is 1.0; the medians' ratio 115/100
	assert_line '| bench at 64K | 115.00 | 90.00-180.00 | 1.000 | 1.150 | 4 |'
	# the round with no last figure is left out, and said to be
	assert_line '| bench summary at 64K | 100.00 | 95.00-105.00 | 1.000 | 1.000 | 3 of 4: a last figure |'
	assert_line 'PASS bench at 64K: 1.000x multichase (median of 4 per-round ratios); target 0.900-1.100'
	[[ "$stderr" != *"last figure is at"* ]]
	assert_line 'PASS bench summary at 64K: 1.000x multichase (median of 3 per-round ratios); target 0.900-1.100'
	assert_line '0 target(s) missed'
	assert_equal "$(cat "$dir/summary.md")" "$output"
}

@test "PASS turns to MISS outside 10% either way, a sweep with no last figure misses, and --strict fails on a miss" {
	ARGS=(--rounds 1 --warmup 0 --strict)
	compare multichase 108
	assert_success
	assert_line 'PASS bench at 64K: 0.926x multichase (median of 1 per-round ratios); target 0.900-1.100'
	assert_line 'PASS bench summary at 64K: 0.926x multichase (median of 1 per-round ratios); target 0.900-1.100'
	rm -rf "$MEMBENCH_RESULTS" "$F"/*.n
	ARGS=(--rounds 1 --warmup 0)
	compare multichase 112
	assert_success
	assert_line 'MISS bench at 64K: 0.893x multichase (median of 1 per-round ratios); target 0.900-1.100'
	assert_line 'MISS bench summary at 64K: 0.893x multichase (median of 1 per-round ratios); target 0.900-1.100'
	rm -rf "$MEMBENCH_RESULTS" "$F"/*.n
	# a last figure that is not at the size compared is said to be
	echo 32768 >"$F/tail.at"
	compare multichase 100
	assert_success
	[[ "$stderr" == *"round 1: the sweep's last figure is at 32768 bytes, not at --size 64K"* ]]
	rm "$F/tail.at"
	rm -rf "$MEMBENCH_RESULTS" "$F"/*.n
	echo none >"$F/last.ns"
	ARGS=(--rounds 1 --warmup 0 --strict)
	compare multichase 90.5
	assert_failure 1
	assert_line 'MISS bench at 64K: 1.105x multichase (median of 1 per-round ratios); target 0.900-1.100'
	assert_line '| bench summary at 64K | - | - | - | - | 0 of 1: no last figure |'
	assert_line "MISS bench summary at 64K: the sweep's summary had no last figure (tail) in any round, so there is no figure to compare (a bench older than the summary's tail?)"
	assert_line '2 target(s) missed'
	[[ "$stderr" == *"a target was missed (--strict)" ]]
	# the summary is written all the same
	result_dir
	grep -q '^2 target(s) missed$' "$dir/summary.md"
}

@test "bad input: one line naming the problem, exit 2, before anything runs" {
	fake_tool "$F/multichase" ref
	fake_tool "$F/lat_mem_rd" ref
	printf '#!/bin/sh\n' >"$F/plain"
	chmod +x "$F/plain"
	: >"$F/notexec"
	lc=$MEMBENCH_ROOT/harness/latency-compare mc=$F/multichase
	while IFS='|' read -r args want; do
		read -r -a argv <<<"$args"
		run --separate-stderr "$lc" "${argv[@]}"
		assert_failure 2
		assert_equal "$stderr" "latency-compare: $want"
	done <<EOF
--size 1M|--ref is required: a built multichase or lat_mem_rd (neither is shipped with membench)
--ref $F/missing|--ref: $F/missing is not a file
--ref $F/notexec|--ref: $F/notexec is not executable
--ref $F/plain|--kind is required: plain is named neither multichase nor lat_mem_rd
--ref $mc --kind stream|--kind: stream is neither multichase nor lat_mem_rd
--ref $mc --size 0|--size: 0 is not a positive whole number of bytes with an optional K, M or G
--ref $mc --size 12Q|--size: 12Q is not a positive whole number of bytes with an optional K, M or G
--ref $mc --size 3.5M|--size: 3.5M is not a positive whole number of bytes with an optional K, M or G
--ref $mc --stride 12|--stride: 12 is not a positive multiple of 8 bytes
--ref $mc --stride 0|--stride: 0 is not a positive multiple of 8 bytes
--ref $mc --rounds 0|--rounds: '0' is not a positive integer
--ref $mc --warmup 101|--warmup: '101' is not a whole number of rounds from 0 to 100
--ref $mc --cpu x|--cpu: x is not a CPU number
--ref $F/lat_mem_rd --size 1536K|--size: lat_mem_rd takes its size in whole MiB, not 1536K
EOF
	[ ! -e "$MEMBENCH_RESULTS" ]
	[ ! -e "$F/log" ]
	# a reference whose output has no figure: refused, and no summary
	ARGS=(--rounds 1 --warmup 0 --kind multichase)
	rm "$F/plain"
	compare plain
	assert_failure 2
	assert_equal "${stderr##*$'\n'}" "latency-compare: round 1: the reference's output has no ns figure (its last line: 'no figure here')"
	result_dir
	[ ! -e "$dir/summary.md" ]
}

@test "a run that fails stops the command in one line naming the side and round, exit 1, and no summary" {
	ARGS=(--rounds 2 --warmup 1)
	printf '%s\n' 0 0 1 >"$F/fail.ref" # its third call: round 2's, the last
	compare multichase 100
	assert_failure 1
	assert_equal "${stderr##*$'\n'}" "latency-compare: round 2: the reference (multichase) failed (exit 3): 'ref: planted failure'"
	result_dir
	[ ! -e "$dir/summary.md" ]
	rm -rf "$MEMBENCH_RESULTS" "$F"/*.n "$F/fail.ref"
	echo 1 >"$F/fail.sweep"
	compare multichase 100
	assert_failure 1
	assert_equal "${stderr##*$'\n'}" "latency-compare: round w1: bench (sweep) failed (exit 3): 'sweep: planted failure'"
	result_dir
	[ ! -e "$dir/summary.md" ]
}

@test "with the real bench at 64K: the results directory, its figures and its provenance" {
	need taskset
	fake_tool "$F/multichase" ref
	echo 12.5 >"$F/ref.ns"
	run --separate-stderr "$MEMBENCH_ROOT/harness/latency-compare" --ref "$F/multichase" \
		--bench "$BENCH" --size 64K --rounds 1 --warmup 0
	assert_success
	result_dir
	for f in provenance.txt ref.raw bench.raw sweep.raw rates.txt warmup.txt summary.md; do [ -s "$dir/$f" ]; done
	assert_equal "$(find "$dir" -type f | wc -l)" 7
	# bench's own figure, and its summary's last figure, at 64K too
	[[ "$(sed 1d "$dir/rates.txt")" =~ ^1\ 12\.5\ [0-9.]+(e-?[0-9]+)?\ [0-9.]+(e-?[0-9]+)?$ ]]
	sed 1d "$dir/sweep.raw" | jq -e '.summary[0].tail.bytes == 65536' >/dev/null
	[[ "$stderr" != *"last figure is at"* ]]
	sed 1d "$dir/bench.raw" | jq -e '.curve[-1].bytes == 65536' >/dev/null
	sha=$(sha256sum "$F/multichase")
	grep -qxF "$sha" "$dir/provenance.txt"
	grep -qF "ref:   taskset -c 0 $F/multichase -m 64k -T 64k -s 64" "$dir/provenance.txt"
	grep -qF "sweep: taskset -c 0 $BENCH latency --max 64K --stride 64 --json" "$dir/provenance.txt"
	grep -q '^Build flags: ' "$dir/provenance.txt"
	grep -q '"cflags": ' "$dir/provenance.txt"
}
