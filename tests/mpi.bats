#!/usr/bin/env bats
# bench-mpi, the cluster mode (docs/cluster.md): bench.c built with
# -DBENCH_MPI through Open MPI's and MPICH's wrappers, started with their
# own launchers on this one machine with two ranks and tiny arrays.
# BENCH_FAKE_HOST (a test hook) makes the two ranks two nodes.  Every
# launch runs under `timeout`, so a hang fails the test instead of the
# suite; nothing here reads the rates.

# shellcheck disable=SC2030,SC2031 # bats' run sets $output in every test,
# which shellcheck reads as subshells
load test_helper
load consumers_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# As root, Open MPI's launcher refuses to start without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one thread a rank: two ranks on two CPUs
export OMP_NUM_THREADS=1
# the longest any launch may take before the test calls it a hang
BOUND=120

# mpi_build FLAVOUR [FLAGS...]: bench.c through mpicc.FLAVOUR into this
# file's temporary directory (once per flag set); prints the path.  The
# name stays under 15 characters, the length ps shows of a command.
# Built at -O0, as variants.bats' are: what these tests check (ranks,
# tables, validation, hangs and kills) does not depend on the optimiser,
# and -O0 compiles in a fifth of -O2's time.  configure's bench-mpi
# (-O3) and the warning-free builds (-O2) are the optimised ones.
mpi_build() {
	local flavour="$1" out
	shift
	need "mpicc.$flavour"
	out="$BATS_FILE_TMPDIR/bm-${flavour:0:4}$(printf '%s' "$*" | cksum | cut -c1-4)"
	if [ ! -x "$out" ]; then
		"mpicc.$flavour" -O0 -fopenmp -DBENCH_MPI "$@" \
			"$MEMBENCH_ROOT/bench.c" -o "$out.tmp" >&2 || return 1
		mv "$out.tmp" "$out"
	fi
	echo "$out"
}

# mpi_launcher FLAVOUR: that MPI's launcher into the array $launch.  Local
# ranks inherit the launcher's environment in both MPIs.
mpi_launcher() {
	case "$1" in
	openmpi) launch=(mpirun.openmpi --oversubscribe) ;;
	mpich) launch=(mpiexec.hydra) ;;
	esac
	need "${launch[0]}"
}

# Every process below PID, children first.
descendants() {
	local p
	for p in $(ps -o pid= --ppid "$1"); do
		echo "$p"
		descendants "$p"
	done
}

# rank_pids LAUNCHER_PID BINARY: the pids of the ranks running BINARY.
rank_pids() {
	local p name
	name=$(basename "$2")
	for p in $(descendants "$1"); do
		[ "$(ps -o comm= -p "$p" 2>/dev/null)" = "$name" ] && echo "$p"
	done
	return 0
}

two_ranks_one_node() {
	local flavour="$1" b host
	b=$(mpi_build "$flavour")
	mpi_launcher "$flavour"
	host=$(hostname)
	run timeout "$BOUND" "${launch[@]}" -np 2 "$b" $TINY
	assert_success
	# only rank 0 prints: one header, one table, one row for the one node
	[ "$(grep -c '^membench .* cluster$' <<<"$output")" -eq 1 ]
	[ "$(grep -c '^Node  *Ranks  *Threads  *copy  *scale  *add  *triad' <<<"$output")" -eq 1 ]
	[ "$(grep -cE "^$host +2 +2 " <<<"$output")" -eq 1 ]
	[ "$(grep -c '^Aggregate (sum) ' <<<"$output")" -eq 1 ]
	assert_line --regexp '^2 ranks on 1 node, simultaneous; 100000 elements'
	assert_line 'Outliers (more than 5% below the median): none'
	assert_line 'validation passed on every rank'
	[ "$(grep -c 'Solution Validates' <<<"$output")" -eq 1 ]
	run timeout "$BOUND" "${launch[@]}" -np 2 "$b" $TINY --json
	assert_success
	jq -e --arg h "$host" '.mode == "stream" and .cluster.ranks == 2 and
		(.cluster.nodes | length) == 1 and .cluster.nodes[0].host == $h and
		.cluster.nodes[0].ranks == 2 and .cluster.nodes[0].valid and
		.cluster.aggregate.rates_mbs.triad == .cluster.nodes[0].rates_mbs.triad and
		.cluster.aggregate.rates_mbs.triad > 0 and .cluster.outliers == [] and
		.cluster.valid and .cluster.launch == "simultaneous"' <<<"$output"
	# every rank renders stored rows alike; still only rank 0's reach stdout
	run timeout "$BOUND" "${launch[@]}" -np 2 "$b" \
		--cluster-in "$MEMBENCH_ROOT/tests/fixtures/cluster/threshold.txt"
	assert_success
	[ "$(grep -c '^Node  *Ranks' <<<"$output")" -eq 1 ]
	[ "$(grep -c '^node01 ' <<<"$output")" -eq 1 ]
}

@test "Open MPI: two ranks print one table, a row for the node and the aggregate; JSON cluster.ranks is 2" {
	two_ranks_one_node openmpi
}

@test "MPICH: two ranks print one table, a row for the node and the aggregate; JSON cluster.ranks is 2" {
	two_ranks_one_node mpich
}

# Two ranks on this one node, each with arrays of 100000 elements: the
# node's bytes are both ranks' (Copy 2 x 8 x 200000), and its rate is
# those bytes over the time it reports.  Counting one rank's arrays reads
# half.  (Ranks with other sizes are refused: every rank runs rank 0's
# options.)
node_counts_every_rank() {
	local flavour="$1" b
	b=$(mpi_build "$flavour")
	mpi_launcher "$flavour"
	run --separate-stderr timeout "$BOUND" "${launch[@]}" -np 2 "$b" -s 100000 -n 3 --json
	assert_success
	jq -e '.cluster.nodes as $n | ($n | length) == 1 and $n[0].ranks == 2 and
		$n[0].bytes == {copy: 3200000, scale: 3200000, add: 4800000, triad: 4800000} and
		($n[0] | [.bytes, .best_s, .rates_mbs] as [$b, $t, $r] |
			["copy", "scale", "add", "triad"] | all(. as $k | $t[$k] > 0 and
				(($b[$k] / $t[$k] / 1e6 - $r[$k]) | fabs) <= 1e-6 * $r[$k])) and
		.cluster.aggregate.rates_mbs == $n[0].rates_mbs' <<<"$output" || {
		jq -c '.cluster.nodes[] | {ranks, bytes, best_s, rates_mbs}' <<<"$output"
		return 1
	}
}

@test "Open MPI: a node's rate counts the arrays of every rank on it" {
	node_counts_every_rank openmpi
}

@test "MPICH: a node's rate counts the arrays of every rank on it" {
	node_counts_every_rank mpich
}

@test "a node's best repetition is never the first (BENCH_WARMUP_TEST)" {
	# the warm-up test build records every rank's first repetition as
	# 1e12 s (copy, add) or 1e-12 s (scale, triad); the bounds are a
	# hundred-fold from those values
	local b
	b=$(mpi_build openmpi -DBENCH_WARMUP_TEST=1000000000000)
	mpi_launcher openmpi
	BENCH_FAKE_HOST=nodeA,nodeB run --separate-stderr timeout "$BOUND" \
		"${launch[@]}" -np 2 "$b" $TINY --json
	assert_success
	jq -e '(.cluster.nodes | length) == 2 and (.cluster.nodes | all(.best_s |
		[.copy, .scale, .add, .triad] | all(. > 1e-10 and . < 1e10)))' <<<"$output" || {
		jq -c '.cluster.nodes[].best_s' <<<"$output"
		return 1
	}
}

# ibarriers ARGS...: how many MPI_Ibarrier calls rank 0 of a two-rank
# Open MPI run of bench-mpi ARGS makes, counted by a PMPI wrapper that
# the ranks preload ($lib).
ibarriers() {
	run timeout "$BOUND" "${launch[@]}" -x LD_PRELOAD="$lib" -np 2 "$b" "$@"
	assert_success
	sed -n 's/^IBARRIERS //p' <<<"$output"
}

@test "bench-mpi times with stream's loop and a barrier before every kernel's pass (MPI_Ibarrier counted)" {
	local b lib="$BATS_TEST_TMPDIR/libcount.so" one two more
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	cat >"$BATS_TEST_TMPDIR/count.c" <<'EOC'
#include <mpi.h>
#include <stdio.h>
static long n;
int MPI_Ibarrier(MPI_Comm c, MPI_Request *r) { n++; return PMPI_Ibarrier(c, r); }
int MPI_Finalize(void)
{
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		fprintf(stderr, "IBARRIERS %ld\n", n);
	return PMPI_Finalize();
}
EOC
	mpicc.openmpi -shared -fPIC "$BATS_TEST_TMPDIR/count.c" -o "$lib"
	one=$(ibarriers $TINY --kernels copy)
	two=$(ibarriers $TINY --kernels copy,scale)
	more=$(ibarriers -s 100000 -n 4 --kernels copy,scale)
	echo "barriers: copy $one, copy,scale $two, one more repetition $more"
	# Scale's three passes add three; a fourth repetition of two kernels, two
	[ $((two - one)) -eq 3 ]
	[ $((more - two)) -eq 2 ]
}

@test "two ranks as two nodes (BENCH_FAKE_HOST), sequential: a row per node in rank order, one table" {
	local b
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	BENCH_FAKE_HOST=nodeA,nodeB run timeout "$BOUND" "${launch[@]}" -np 2 \
		"$b" $TINY --cluster sequential --json
	assert_success
	jq -e '.cluster.ranks == 2 and .cluster.launch == "sequential" and
		[.cluster.nodes[].host] == ["nodeA", "nodeB"] and
		[.cluster.nodes[].ranks] == [1, 1] and .cluster.aggregate.nodes == 2 and
		(.cluster.aggregate.rates_mbs.copy - (.cluster.nodes[0].rates_mbs.copy +
			.cluster.nodes[1].rates_mbs.copy) | fabs) < 0.01 and
		.cluster.spread.min.copy <= .cluster.spread.median.copy and
		.cluster.spread.median.copy <= .cluster.spread.max.copy' <<<"$output"
	BENCH_FAKE_HOST=nodeA,nodeB run timeout "$BOUND" "${launch[@]}" -np 2 \
		"$b" $TINY --cluster sequential
	assert_success
	[ "$(grep -c '^Node  *Ranks' <<<"$output")" -eq 1 ]
	[ "$(grep -cE '^node[AB] +1 +1 ' <<<"$output")" -eq 2 ]
	assert_line 'Nodes ran one at a time: the sum is not a figure of the nodes at once.'
}

@test "--cluster-latency: one chase per node, its figure in the row and the JSON" {
	local b
	b=$(mpi_build mpich)
	mpi_launcher mpich
	BENCH_FAKE_HOST=nodeA,nodeB run timeout "$BOUND" "${launch[@]}" -np 2 \
		"$b" $TINY --cluster-latency 1M --json
	assert_success
	jq -e '[.cluster.nodes[].latency_ns > 0] == [true, true]' <<<"$output"
}

@test "the outlier rule on stored rows: strictly more than PCT below the median; a node exactly at the threshold is not flagged" {
	local b fx="$MEMBENCH_ROOT/tests/fixtures/cluster"
	b=$(mpi_build openmpi)
	# one rank, no launcher: --cluster-in measures nothing
	run timeout "$BOUND" "$b" --cluster-in "$fx/threshold.txt" --json
	assert_success
	# node03's Copy is 950, exactly 5% below the median 1000: not flagged;
	# node04's Triad is 949.9: flagged, and only that kernel
	jq -e '.cluster.ranks == 10 and (.cluster.nodes | length) == 5 and
		.cluster.spread.median.copy == 1000 and .cluster.spread.median.triad == 1000 and
		.cluster.spread.min.triad == 949.9 and .cluster.spread.max.copy == 1200 and
		.cluster.aggregate.rates_mbs.copy == 5150 and
		[.cluster.outliers[].host] == ["node04"] and
		[.cluster.outliers[0].kernels[].kernel] == ["triad"]' <<<"$output"
	run timeout "$BOUND" "$b" --cluster-in "$fx/threshold.txt"
	assert_success
	assert_line 'Per-node figures read from '"$fx"'/threshold.txt; nothing measured.'
	assert_line 'Outliers (more than 5% below the median): '
	assert_line '  node04: triad 5.0% below'
	refute_line --partial 'node03:'
	# a threshold just under 5% catches node03's Copy as well
	run timeout "$BOUND" "$b" --cluster-in "$fx/threshold.txt" --outlier 4.99 --json
	assert_success
	jq -e '[.cluster.outliers[].host] == ["node03", "node04"] and
		[.cluster.outliers[0].kernels[].kernel] == ["copy"]' <<<"$output"
	# and a wide one catches nobody
	run timeout "$BOUND" "$b" --cluster-in "$fx/threshold.txt" --outlier 20
	assert_success
	assert_line 'Outliers (more than 20% below the median): none'
}

@test "--cluster-in: a row that failed validation fails the run (exit 1) and is named" {
	local b
	b=$(mpi_build openmpi)
	run timeout "$BOUND" "$b" --cluster-in "$MEMBENCH_ROOT/tests/fixtures/cluster/failed.txt"
	assert_failure 1
	assert_line 'Validation failed on node beta'
	refute_line --partial 'Solution Validates'
}

@test "bench-mpi refuses bad cluster input: one line naming the problem, exit 2" {
	local b bad="$BATS_TEST_TMPDIR/bad.txt"
	b=$(mpi_build openmpi)
	printf 'node01 2 8 1000 1000 1000\n' >"$bad"
	for args in "--cluster-in $bad" "--cluster-in $BATS_TEST_TMPDIR/none.txt" \
		"--cluster sideways" "--outlier 100" "--outlier -1" \
		"--cluster-timeout x" "--cluster-latency 1"; do
		run --separate-stderr timeout "$BOUND" "$b" $args
		assert_failure 2
		assert_output ""
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ] || {
			echo "$args: expected one line, got: $stderr"
			return 1
		}
		[[ "$stderr" == "bench: rank 0 on "* ]]
	done
	# under a launcher, rank 0 names an option error, not every rank
	mpi_launcher openmpi
	run --separate-stderr timeout "$BOUND" "${launch[@]}" -np 2 "$b" --outlier 0
	assert_failure
	[ "$(grep -c '^bench: rank [0-9]* on .*--outlier' <<<"$stderr")" -eq 1 ]
}

# The corrupt-test build breaks the last rank's a[]: with three ranks as
# three nodes, nodeC failed.  Its row says FAILED and shows no rate, it is
# out of the sum, the spread and the outlier rule, named under the
# table, stream_mpi.c's lines say Failed Validation, and the run exits 1.
corrupt_rank_named() {
	local flavour="$1" b
	b=$(mpi_build "$flavour" -DBENCH_CORRUPT_TEST=1)
	mpi_launcher "$flavour"
	BENCH_FAKE_HOST=nodeA,nodeB,nodeC run timeout "$BOUND" "${launch[@]}" -np 3 \
		"$b" $TINY --json-file "$BATS_TEST_TMPDIR/r.json"
	assert_failure 1
	assert_line 'Validation failed on rank 2 (host nodeC)'
	assert_line --partial 'bench: rank 2 on nodeC: validation failed (a[] 1,'
	assert_line --regexp '^nodeC +1 +1 +- +- +- +- +FAILED '
	assert_line '1 of 3 nodes failed validation and is left out of the sum, the spread and the outlier rule.'
	assert_line --regexp '^Failed Validation on array a\[\]'
	refute_line --partial 'Solution Validates'
	refute_line --partial 'validation passed'
	refute_line --partial 'on rank 0'
	jq -e '.cluster.valid == false and .cluster.nodes[0].valid and .cluster.nodes[1].valid and
		.cluster.nodes[2].valid == false and .cluster.nodes[2].first_failed_rank == 2 and
		.cluster.nodes[2].rates_mbs.copy == null and
		.cluster.aggregate.failed_nodes == ["nodeC"] and .cluster.aggregate.nodes == 2 and
		([.cluster.outliers[].host] | index("nodeC") == null) and
		.cluster.stream_aggregate.validated == false and
		(.cluster.nodes[0:2] | all(.rates_mbs.copy > 0)) and
		(.cluster.aggregate.rates_mbs.copy - (.cluster.nodes[0].rates_mbs.copy +
			.cluster.nodes[1].rates_mbs.copy) | fabs) < 0.01 and
		.cluster.spread.max.copy == ([.cluster.nodes[0:2][].rates_mbs.copy] | max)' \
		"$BATS_TEST_TMPDIR/r.json"
}

@test "rank 0 prints stream_mpi.c's lines in its order; every consumer reads the aggregate, the JSON's stream_aggregate" {
	local b k want got
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	run --separate-stderr timeout "$BOUND" "${launch[@]}" -np 2 "$b" -s 200000 -n 4 \
		--json-file "$BATS_TEST_TMPDIR/r.json"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/out"
	every_consumer_reads_one_rate "$BATS_TEST_TMPDIR/out" 1.8
	# ReFrame's sanity pattern finds the one validation line
	[ "$(grep -c 'Solution Validates: avg error less than' "$BATS_TEST_TMPDIR/out")" -eq 1 ]
	# each masked line of stream_mpi.c's output appears, in order
	lines_in_order "$FIX/stream_mpi-1.8.txt" "$BATS_TEST_TMPDIR/out"
	assert_line 'Total Aggregate Array size = 400000 (elements)'
	assert_line '   Array size per MPI rank = 200000 (elements)'
	# what the parsers read is the JSON's figure, to the text's digits
	for k in $KERNELS; do
		got=$(pts_value "$k" <"$BATS_TEST_TMPDIR/out")
		want=$(jq -r --arg k "$k" '.cluster.stream_aggregate.results[] | select(.kernel == $k) |
			.best_mbs * 10 | round / 10' "$BATS_TEST_TMPDIR/r.json")
		awk -v a="$got" -v b="$want" 'BEGIN { exit !((a - b) ^ 2 < 0.0101) }' || {
			echo "$k: text $got, JSON $want"
			return 1
		}
	done
	# the aggregate is all ranks' bytes over the slowest rank's time
	jq -e '.cluster.stream_aggregate | .array_size == 400000 and
		(.results[] | select(.kernel == "Copy") | .bytes == 6400000 and
			.min_s <= .avg_s and .avg_s <= .max_s)' "$BATS_TEST_TMPDIR/r.json"
	# membench's table names the kernels in lower case, below STREAM's
	assert_line --regexp '^Node +Ranks +Threads +copy +scale +add +triad '
}

@test "ranks that disagree on their options are refused in one line naming the rank and the option, exit 2, no timeout waited" {
	local b args
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	for args in "--kernels copy,scale|--kernels add,triad|--kernels 'add,triad', rank 0 'copy,scale'" \
		"-s 100000|-s 60000|--size '60000', rank 0 '100000'" \
		"-n 3|-n 4|--ntimes '4', rank 0 '3'"; do
		IFS='|' read -r a0 a1 said <<<"$args"
		# shellcheck disable=SC2086 # the options split into words
		run --separate-stderr timeout 60 "${launch[@]}" -np 1 "$b" $TINY $a0 --cluster-timeout 600 \
			: -np 1 "$b" $TINY $a1 --cluster-timeout 600
		[ "$status" -eq 2 ] || { echo "$args: exit $status"; return 1; }
		[ "$(grep -c '^bench: ' <<<"$stderr")" -eq 1 ]
		grep -qF "bench: rank 1 runs $said: every rank must run the same options and build" <<<"$stderr"
		refute_output --partial 'Function'
	done
}

# N ranks as N nodes (BENCH_FAKE_HOST), tiny arrays, one thread each.
many_nodes() {
	local n="$1" hosts="" i b
	for ((i = 1; i <= n; i++)); do hosts+="n$i,"; done
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	BENCH_FAKE_HOST=${hosts%,} run --separate-stderr timeout "$BOUND" "${launch[@]}" \
		-np "$n" "$b" -s 20000 -n 3 --json-file "$BATS_TEST_TMPDIR/r.json"
	assert_success
	[ "$(grep -cE '^n[0-9]+ +1 +1 ' <<<"$output")" -eq "$n" ]
	# every node in rank order, the sum, the spread and the outliers by
	# the rule, recomputed from the nodes' own rates
	jq -e --argjson n "$n" '.cluster as $c | $c.ranks == $n and $c.node_count == $n and
		[$c.nodes[].host] == [range(1; $n + 1) | "n\(.)"] and $c.gather_s >= 0 and
		$c.stream_aggregate.array_size == 20000 * $n and
		(["copy", "scale", "add", "triad"] | all(. as $k |
			([$c.nodes[].rates_mbs[$k]] | add) as $sum |
			(($c.aggregate.rates_mbs[$k] - $sum) | fabs) < 1e-6 * $sum and
			([$c.nodes[].rates_mbs[$k]] | sort | if length % 2 == 1 then .[(length - 1) / 2]
				else (.[length / 2 - 1] + .[length / 2]) / 2 end) as $med |
			(($c.spread.median[$k] - $med) | fabs) < 1e-6 * $med and
			([$c.nodes[] | select((($med - .rates_mbs[$k]) * 100) > $c.outlier_pct * $med) | .host]) ==
				[$c.outliers[] | select(any(.kernels[]; .kernel == $k)) | .host]))' \
		"$BATS_TEST_TMPDIR/r.json"
}

@test "16 ranks as 16 nodes: every row, the sum, the median and the outliers by the rule" {
	many_nodes 16
}

@test "64 ranks as 64 nodes: every row, the sum, the median and the outliers by the rule" {
	many_nodes 64
}

@test "Open MPI: a failed validation on one rank (corrupt-test build) names its rank and host, exit 1" {
	corrupt_rank_named openmpi
}

@test "MPICH: a failed validation on one rank (corrupt-test build) names its rank and host, exit 1" {
	corrupt_rank_named mpich
}

# Start a long run in the background, wait until both ranks run, then
# do SIGNAL to rank 1's process; the launcher's status comes back in
# $launched and its output in $output.
signal_a_rank() {
	local flavour="$1" sig="$2" b lp pids
	shift 2
	b=$(mpi_build "$flavour")
	mpi_launcher "$flavour"
	# Copy alone, a million times, lasts an hour on any machine (the other
	# kernels cap -n, their values overflow): the run must still be in its
	# timed loop when the signal comes (-n 200 ended before it on a fast
	# CI machine, and kill found no process); the kill or the timeout
	# ends it long before, and BOUND caps it
	timeout "$BOUND" "${launch[@]}" -np 2 "$b" -s 4000000 -n 1000000 --kernels copy "$@" \
		>"$BATS_TEST_TMPDIR/out" 2>&1 &
	lp=$!
	for _ in $(seq 100); do
		mapfile -t pids < <(rank_pids "$lp" "$b")
		[ "${#pids[@]}" -ge 2 ] && break
		sleep 0.2
	done
	[ "${#pids[@]}" -ge 2 ] || {
		kill "$lp"
		echo "the ranks never started"
		return 1
	}
	sleep 2 # past the set-up: the ranks are in the timed loop
	# the higher pid is rank 1 (each MPI starts its ranks in order)
	victim=$(printf '%s\n' "${pids[@]}" | sort -n | tail -n 1)
	kill "-$sig" "$victim" || {
		kill "$lp"
		echo "rank pid $victim had gone before the signal"
		return 1
	}
	launched=0
	wait "$lp" || launched=$?
	kill -KILL "$victim" 2>/dev/null || : # a stopped rank outlives the job
	run cat "$BATS_TEST_TMPDIR/out"
}

@test "Open MPI: a rank killed mid-run ends the run with a message naming its node, within the bound" {
	signal_a_rank openmpi KILL
	echo "$output"
	[ "$launched" -ne 0 ]
	[ "$launched" -ne 124 ]
	assert_output --regexp "process rank 1 with PID [0-9]+ on node $(hostname) exited on signal 9"
}

@test "MPICH: a rank killed mid-run ends the run with a message naming its node, within the bound" {
	signal_a_rank mpich KILL
	echo "$output"
	[ "$launched" -ne 0 ]
	[ "$launched" -ne 124 ]
	assert_output --partial "RUNNING AT $(hostname)"
}

@test "a rank that hangs (stopped) ends the run after --cluster-timeout with a message naming the waiting rank's node and step" {
	signal_a_rank openmpi STOP --cluster-timeout 3
	echo "$output"
	[ "$launched" -ne 0 ]
	[ "$launched" -ne 124 ]
	assert_output --regexp "bench: rank 0 on $(hostname): the barrier (before [A-Za-z]+, repetition [0-9]+|after the last repetition): not every rank arrived within 3 s"
}

@test "a node that cannot get its huge pages ends the run naming that node" {
	local b fake="$BATS_TEST_TMPDIR/proc"
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	# nodeB's /proc shows an empty pool; nodeA has the real one, filled
	fake_procfs "$fake" 0 0
	export BENCH_FAKE_HOST=nodeA,nodeB
	with_hugepages 3 timeout "$BOUND" "${launch[@]}" \
		-np 1 "$b" $TINY --alloc hugetlb : \
		-np 1 env MEMBENCH_PROCFS="$fake" "$b" $TINY --alloc hugetlb
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
	assert_output --partial 'bench: rank 1 on nodeB: --alloc hugetlb: needs 3 huge pages but only 0 are free'
	refute_output --partial 'rank 0 on nodeA: --alloc'
}

@test "bench-mpi takes --page-size, and a rank whose machine lacks the size is refused naming its node" {
	local b sys="$BATS_TEST_TMPDIR/sys"
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	export BENCH_FAKE_HOST=nodeA,nodeB
	with_pool 2048 6 timeout "$BOUND" "${launch[@]}" -np 2 "$b" $TINY --alloc hugetlb --page-size 2M --json
	assert_success
	jq -e '.cluster.ranks == 2 and (.command | index("--page-size") != null)' \
		<<<"$output" >/dev/null || { echo "$output" | head -c 2000; return 1; }
	# nodeB's kernel keeps 1 GiB pages only: that rank says so, and
	# nodeA, whose pool is real and filled, waits for it and says nothing
	# (were both refused, either line could end the job alone)
	mkdir -p "$sys/kernel/mm/hugepages/hugepages-1048576kB"
	echo 0 >"$sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
	with_pool 2048 6 timeout "$BOUND" "${launch[@]}" \
		-np 1 "$b" $TINY --alloc hugetlb --page-size 2M : \
		-np 1 env MEMBENCH_SYSFS="$sys" "$b" $TINY --alloc hugetlb --page-size 2M
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
	assert_output --partial 'bench: rank 1 on nodeB: --page-size 2 MiB: the kernel keeps no pool of that size; it offers huge pages of 1 GiB'
	refute_output --partial 'rank 0 on nodeA: --'
}

# bench.c less every "#ifdef BENCH_MPI" block (keeping the #else side):
# the file a non-MPI build compiles if the macro works as it should.
strip_mpi() {
	awk '
	skip == 0 && else_depth == 0 && /^#ifdef BENCH_MPI$/ { skip = 1; depth = 0; next }
	skip {
		if ($0 ~ /^#if/) depth++
		else if ($0 ~ /^#endif/) { if (depth == 0) { skip = 0; next } depth-- }
		else if ($0 ~ /^#else/ && depth == 0) { skip = 0; else_depth = 1; next }
		next
	}
	else_depth {
		if ($0 ~ /^#if/) else_depth++
		else if ($0 ~ /^#endif/) { if (--else_depth == 0) next }
	}
	{ print }' "$1"
}

@test "a non-MPI build is the program bench.c builds without its MPI parts, and links no MPI" {
	local d="$BATS_TEST_TMPDIR"
	mkdir -p "$d/with" "$d/without"
	cp "$MEMBENCH_ROOT/bench.c" "$d/with/bench.c"
	strip_mpi "$MEMBENCH_ROOT/bench.c" >"$d/without/bench.c"
	# the strip did remove the cluster layer's code (comments may name it)
	grep -q 'cluster_start' "$d/with/bench.c"
	run grep -cE 'MPI_[A-Z]|mpi\.h|cluster_[a-z]|BENCH_OUTLIER|BENCH_CLUSTER' "$d/without/bench.c"
	assert_output 0
	# at -O0, where every function, used or not, and every statement is
	# compiled as written, so any token the strip left or took shows in
	# the object as at -O2 or more (and in a third of the time)
	for flags in "-O0" "-O0 -fopenmp"; do
		(cd "$d/with" && gcc $flags -c bench.c -o bench.o)
		(cd "$d/without" && gcc $flags -c bench.c -o bench.o)
		cmp "$d/with/bench.o" "$d/without/bench.o" || {
			echo "gcc $flags: the objects differ"
			return 1
		}
	done
	# and the bench under test has no MPI in it
	run ldd "$BENCH"
	assert_success
	refute_output --partial 'libmpi'
	run nm -D "$BENCH"
	assert_success
	assert_output --partial 'malloc'
	refute_output --partial 'MPI_'
	run "$BENCH" --help
	assert_success
	refute_output --partial 'cluster'
	refused_by --cluster sequential
	[[ "$stderr" == "bench: unknown option '--cluster'"* ]]
}

@test "the strip check fails when MPI code leaks out of its #ifdef" {
	# the previous test's awk would pass a leak by accident if it stripped
	# too much: a line outside the blocks must survive
	local d="$BATS_TEST_TMPDIR"
	printf '#ifdef BENCH_MPI\nint a;\n#if X\nint b;\n#endif\n#else\nint c;\n#endif\nint d;\n' >"$d/t.c"
	run strip_mpi "$d/t.c"
	assert_output "$(printf 'int c;\nint d;')"
}

@test "./configure --with-mpi builds bench-mpi through MPICC; bench-mpi reports its build line" {
	local d="$BATS_TEST_TMPDIR/build"
	need mpicc.mpich
	mkdir -p "$d"
	cd "$d"
	MATRIX_COMPILERS=gcc run "$MEMBENCH_ROOT/configure" --with-mpi MPICC=mpicc.mpich
	assert_success
	assert_line --partial 'whether mpicc.mpich builds an MPI-3 program... yes'
	run make bench-mpi
	assert_success
	ldd ./bench-mpi | grep -q 'libmpich'
	run timeout "$BOUND" ./bench-mpi $TINY
	assert_success
	assert_line --partial 'Build flags: mpicc.mpich -O3'
	assert_line 'validation passed on every rank'
	# and a wrapper that cannot build MPI code is refused at configure
	MATRIX_COMPILERS=gcc run "$MEMBENCH_ROOT/configure" --with-mpi MPICC=gcc
	assert_failure
	assert_output --partial 'gcc cannot build an MPI-3 program'
}

@test "bench-mpi keeps bench's warnings: arrays under STREAM's sizing rule, kernels under 20 clock ticks" {
	local b
	b=$(mpi_build openmpi)
	fake_llc "$BATS_TEST_TMPDIR/sys" 4M 0
	# one thread: a team of two, woken on a busy machine, can take the
	# 20 ticks a 1000-element copy otherwise stays under
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run timeout "$BOUND" "$b" -s 1000 -n 3 -t 1
	assert_success
	assert_line --regexp "^WARNING: each rank's arrays \(1000 elements\) are smaller than 4x the reported last-level cache; --size [0-9]+ or more"
	assert_line --regexp '^WARNING: copy took .* fewer than 20 clock ticks'
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run timeout "$BOUND" "$b" -s 1000 -n 3 --json
	assert_success
	jq -e '[.warnings[] | select(test("smaller than 4x"))] | length == 1' <<<"$output"
}

@test "bench-mpi builds warning-free (-std=c99 -pedantic -Wall -Wextra -Werror) with both MPIs, gcc and clang, with and without OpenMP" {
	local flavour cc omp n=0
	# every pair of the three choices (MPI, compiler, OpenMP) is built, in
	# four builds, not all eight combinations: a warning comes from what
	# one of them adds, or two together (a header under a compiler, a
	# pragma under OpenMP); each build is 6 s at -O2 on the 2-vCPU guest
	# ./setup --test installs both MPIs, gcc and clang
	while read -r flavour cc omp; do
		need "mpicc.$flavour"
		need "$cc"
		[ "$omp" = openmp ] && omp=-fopenmp || omp=''
		OMPI_CC=$cc MPICH_CC=$cc run "mpicc.$flavour" -std=c99 -pedantic \
			-Wall -Wextra -Werror -O2 $omp -DBENCH_MPI \
			"$MEMBENCH_ROOT/bench.c" -o "$BATS_TEST_TMPDIR/w"
		assert_success
		assert_output ""
		n=$((n + 1))
	done <<'EOT'
openmpi gcc openmp
openmpi clang serial
mpich gcc serial
mpich clang openmp
EOT
	[ "$n" -eq 4 ]
}

@test "bench-mpi records each node's cgroup limits, and the table names a node whose limits differ from the others'" {
	local b d=$BATS_TEST_TMPDIR r
	need jq
	b=$(mpi_build openmpi)
	mpi_launcher openmpi
	# one fake /proc, and a fake cgroup tree a rank: nodeB's box is smaller
	fake_procfs "$d/proc" 0 0
	mkdir -p "$d/proc/self"
	echo "0::/job" >"$d/proc/self/cgroup"
	echo '30 22 0:27 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw' >"$d/proc/self/mountinfo"
	for r in 0 1 2; do
		mkdir -p "$d/cg$r/sys/fs/cgroup/job"
		echo $((1 << 30)) >"$d/cg$r/sys/fs/cgroup/job/memory.max"
	done
	echo $((512 << 20)) >"$d/cg1/sys/fs/cgroup/job/memory.max"
	echo "200000 100000" >"$d/cg1/sys/fs/cgroup/job/cpu.max"
	printf '#!/bin/sh\nMEMBENCH_CGROUP="$BOX_ROOT/cg$OMPI_COMM_WORLD_RANK" exec "$@"\n' >"$d/rank"
	chmod +x "$d/rank"
	BOX_ROOT=$d MEMBENCH_PROCFS=$d/proc BENCH_FAKE_HOST=nodeA,nodeB,nodeC run timeout "$BOUND" \
		"${launch[@]}" -np 3 "$d/rank" "$b" $TINY --kernels copy --json-file "$d/c.json"
	assert_success
	assert_line "Limits: memory limit 1 GiB, CPU quota none on the other nodes"
	assert_line "Limits differ on nodeB: memory limit 512 MiB, CPU quota 2.00 CPUs"
	jq -e '[.cluster.nodes[] | [.host, .memory_limit_bytes, .cpu_quota_cpus, .limits_differ]]
		== [["nodeA", 1073741824, null, false], ["nodeB", 536870912, 2, true],
		    ["nodeC", 1073741824, null, false]]' "$d/c.json"
}
