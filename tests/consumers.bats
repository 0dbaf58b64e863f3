#!/usr/bin/env bats
# bench as a drop-in for stream.c and lat_mem_rd under the scripts that
# parse them.  Each consumer's rule is written here as the consumer
# applies it, and applied to the real tools' stored output
# (fixtures/consumers, data only) and to bench's, so a rule that fails on
# bench but not on the original is a compatibility bug.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

load consumers_helper

@test "the consumers' rules read stream.c's own output (the rules are right)" {
	every_consumer_reads_one_rate "$FIX/stream-5.10.txt"
}

@test "the consumers' rules read stream_mpi.c's own output, passed and failed (the rules are right)" {
	every_consumer_reads_one_rate "$FIX/stream_mpi-1.8.txt" 1.8
	every_consumer_reads_one_rate "$FIX/stream_mpi-1.8-failed.txt" 1.8
	grep -q '^Failed Validation on array a\[\]' "$FIX/stream_mpi-1.8-failed.txt"
	# PerfKitBenchmarker's rule reads the rate of the line it names
	[ "$(pkb_value Triad <"$FIX/stream_mpi-1.8.txt")" = 145067.7 ]
}

@test "every consumer reads one rate per kernel from bench, in every store and allocation mode" {
	for stores in plain nt auto; do
		for alloc in static malloc mmap thp shm; do
			"$BENCH" $TINY --stores "$stores" --alloc "$alloc" \
				>"$BATS_TEST_TMPDIR/out" || {
				echo "bench --stores $stores --alloc $alloc failed"
				return 1
			}
			every_consumer_reads_one_rate "$BATS_TEST_TMPDIR/out" || {
				echo "(--stores $stores --alloc $alloc)"
				return 1
			}
		done
	done
}

@test "every consumer reads one rate per kernel from bench on hugetlb pages" {
	for stores in plain nt auto; do
		with_hugepages 8 "$BENCH" $TINY --stores "$stores" --alloc hugetlb
		assert_success
		printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/out"
		every_consumer_reads_one_rate "$BATS_TEST_TMPDIR/out"
	done
}

@test "every consumer reads one rate per kernel from bench all and --kernels all" {
	"$BENCH" all $TINY --max 256K >"$BATS_TEST_TMPDIR/all"
	every_consumer_reads_one_rate "$BATS_TEST_TMPDIR/all"
	"$BENCH" $TINY --kernels all --stores auto >"$BATS_TEST_TMPDIR/kall"
	every_consumer_reads_one_rate "$BATS_TEST_TMPDIR/kall"
}

@test "bench prints stream.c's lines in stream.c's order, its own lines between them" {
	"$BENCH" -s 200000 -n 4 -t 2 >"$BATS_TEST_TMPDIR/out"
	# each masked line of stream.c's output appears in bench's, in order
	lines_in_order "$FIX/stream-5.10.txt" "$BATS_TEST_TMPDIR/out"
	# the first lines are STREAM's, membench's identity on its own line
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/out")" = 'STREAM version $Revision: 5.10 $' ]
	[[ "$(sed -n 3p "$BATS_TEST_TMPDIR/out")" == "membench "* ]]
}

# lat_mem_rd's stream with the latencies masked: sizes, headers, blank lines
layout() { awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { print $1, "X"; next } { print }' "$1"; }

# lmrd ARGS...: run bench as lat_mem_rd through a symlink; stderr in
# $BATS_TEST_TMPDIR/curve, stdout must stay empty
lmrd() {
	ln -sf "$BENCH" "$BATS_TEST_TMPDIR/lat_mem_rd"
	"$BATS_TEST_TMPDIR/lat_mem_rd" "$@" >"$BATS_TEST_TMPDIR/stdout" \
		2>"$BATS_TEST_TMPDIR/curve"
	[ ! -s "$BATS_TEST_TMPDIR/stdout" ]
}

@test "run as lat_mem_rd, bench writes lat_mem_rd's stream line for line on stderr" {
	lmrd -P 1 1 64 128
	diff <(layout "$FIX/lat_mem_rd-P1-1-64-128.txt") <(layout "$BATS_TEST_TMPDIR/curve")
	# no stride given: lmbench's default, one block, no blank line after it
	lmrd 1
	diff <(layout "$FIX/lat_mem_rd-1.txt") <(layout "$BATS_TEST_TMPDIR/curve")
	# -t (the random chase), -W and -N are taken
	lmrd -W 2 -N 3 -t 1 256
	diff <(layout "$FIX/lat_mem_rd-t-1-256.txt") <(layout "$BATS_TEST_TMPDIR/curve")
}

@test "bench lat_mem_rd ... is the same personality" {
	run --separate-stderr "$BENCH" lat_mem_rd 1 128
	assert_success
	assert_output ""
	[[ "$stderr" == '"stride=128'* ]]
}

# getsummary's rule: in the "stride=128 block, L1 is the 0.00098 line, L2
# the 0.12500 line, memory the block's last line.
getsummary_points() {
	awk '/^"stride=/ { on = /^"stride=128/; next } !on || NF != 2 { next }
		$1 == 0.00098 { l1 = $2 } $1 == 0.12500 { l2 = $2 } { mem = $2 }
		END { if (l1 == "" || l2 == "" || mem == "") exit 1; print l1, l2, mem }' "$1"
}

@test "lmbench's summary finds its L1, L2 and memory points, in lat_mem_rd's output and in bench's" {
	getsummary_points "$FIX/lat_mem_rd-P1-1-64-128.txt"
	lmrd -P 1 1 64 128
	getsummary_points "$BATS_TEST_TMPDIR/curve"
	# bench latency's own sweep starts at 512 bytes, so it has them too
	"$BENCH" latency --stride 128 --max 1M >"$BATS_TEST_TMPDIR/own"
	getsummary_points "$BATS_TEST_TMPDIR/own"
	[ "$(sed -n 2p "$BATS_TEST_TMPDIR/own" | cut -d' ' -f1)" = 0.00049 ]
}

@test "the lat_mem_rd personality refuses what it cannot do, in one line" {
	ln -sf "$BENCH" "$BATS_TEST_TMPDIR/lat_mem_rd"
	for args in "" "-P" "-P 0 1" "-x 1" "0" "1 3" "1 64 abc"; do
		# shellcheck disable=SC2086 # the words are the arguments
		run --separate-stderr "$BATS_TEST_TMPDIR/lat_mem_rd" $args
		assert_failure 2
		assert_output ""
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == lat_mem_rd:* ]]
	done
	# -P asks for parallel chases, which need OpenMP
	bin=$(build_variant serial gcc -std=c99 -O2)
	ln -sf "$bin" "$BATS_TEST_TMPDIR/lat_mem_rd"
	run --separate-stderr "$BATS_TEST_TMPDIR/lat_mem_rd" -P 2 1
	assert_failure 2
	[[ "$stderr" == "lat_mem_rd: -P 2: parallel chases need OpenMP"* ]]
}

@test "the lat_mem_rd personality's refusals name its own arguments (size_in_MB, stride, -P, LAT_ALLOC), never bench's flags" {
	local lm="$BATS_TEST_TMPDIR/lat_mem_rd" args want bin
	ln -sf "$BENCH" "$lm"
	# lmrd_refuses WANT ARGS...: one line, exit 2, starting with WANT and
	# naming no flag of bench's
	lmrd_refuses() {
		want=$1
		shift
		run --separate-stderr "$@"
		assert_failure 2
		assert_output ""
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] &&
			[[ "$stderr" == "lat_mem_rd: $want"* ]] && [[ "$stderr" != *--* ]] || {
			echo "$*: $stderr"
			return 1
		}
	}
	# 953.7 TiB: more than any machine's memory, fewer than 2^32 lines
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086 # the words are the arguments
		lmrd_refuses "$want" "$lm" $args
	done <<'EOT'
1000000 64|stride 64: size_in_MB 1000000 makes more than 2^32 lines
1000000|stride 64: size_in_MB 1000000 makes more than 2^32 lines
1 1M|stride 1048576: a chain needs two strides, but size_in_MB 1 is 1048576 bytes
1000000000 1M|size_in_MB 1000000000 (953.7 TiB) is larger than this machine's physical memory
-P 64 1000000000 1M|-P 64: 64 chase buffers of 953.7 TiB are more than this machine's physical memory
1 64 -t|stride -t: options come before size_in_MB
1 12|stride 12: not a multiple of 8 bytes
EOT
	# an allocation that fails: the build's LAT_ALLOC, not --alloc
	lmrd_refuses 'LAT_ALLOC mmap: could not obtain 1000.0 MiB for the chase buffer' \
		bash -c 'ulimit -v 400000 && exec "$0" 1000' "$lm"
	if "$BENCH" info --json | jq -e '.build.openmp != null' >/dev/null; then
		# refused before the curve begins, not after its header
		OMP_THREAD_LIMIT=1 lmrd_refuses "-P 2: the OpenMP runtime's thread limit is 1" "$lm" -P 2 1
	fi
	# builds whose LAT_ALLOC is a huge page pool or the static array (at
	# -O0, a third of -O2's time: what they refuse is the macro's doing)
	bin=$(build_variant lat-hugetlb gcc -O0 -fopenmp '-DLAT_ALLOC="hugetlb"')
	ln -sf "$bin" "$lm"
	fake_procfs "$BATS_TEST_TMPDIR/proc" 0 0
	MEMBENCH_PROCFS="$BATS_TEST_TMPDIR/proc" lmrd_refuses \
		'LAT_ALLOC hugetlb: needs 1 huge pages but only 0 are free' "$lm" 1
	bin=$(build_variant lat-static gcc -O0 -fopenmp '-DLAT_ALLOC="static"')
	ln -sf "$bin" "$lm"
	lmrd_refuses 'LAT_ALLOC static: the chase buffer of 1048576000 bytes does not fit' "$lm" 1000
	lmrd_refuses 'LAT_ALLOC static: the static array holds one chase buffer, not 2' "$lm" -P 2 1
}

@test "lat_mem_rd -P N runs N chases at once, in lat_mem_rd's layout" {
	lmrd -P 2 1 64 128
	diff <(layout "$FIX/lat_mem_rd-P1-1-64-128.txt") <(layout "$BATS_TEST_TMPDIR/curve")
	# every point is a measured latency
	awk 'NF == 2 && $1 ~ /^[0-9.]+$/ && !($2 > 0) { exit 1 }' "$BATS_TEST_TMPDIR/curve"
}

@test "run as stream, bench takes no arguments and prints STREAM's text" {
	bin=$(build_variant small gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=200000 -DNTIMES=4)
	ln -sf "$bin" "$BATS_TEST_TMPDIR/stream"
	"$BATS_TEST_TMPDIR/stream" >"$BATS_TEST_TMPDIR/out"
	every_consumer_reads_one_rate "$BATS_TEST_TMPDIR/out"
	grep -qx 'Array size = 200000 (elements), Offset = 0 (elements)' "$BATS_TEST_TMPDIR/out"
	run --separate-stderr "$BATS_TEST_TMPDIR/stream" --json
	assert_failure 2
	assert_output ""
	[[ "$stderr" == "stream: takes no arguments"* ]]
}
