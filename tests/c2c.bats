#!/usr/bin/env bats
# bench c2c: core-to-core latency.  For each pair of CPUs two pinned
# threads bounce a line; each cell holds the minimum and median of its
# windows' half round trips, says where its threads ran, and is summed
# up by how the two CPUs relate (from sysfs, which a fake tree stands in
# for here).  No test reads anything into a latency: only the shape of
# the figures (min <= median <= max) and what the run says of itself.

load test_helper

setup() {
	need taskset
	"$BENCH" info --json | jq -e '.build.modes | index("c2c")' >/dev/null ||
		skip "this bench cannot run c2c (no OpenMP)"
	[ "$(nproc)" -ge 2 ] || skip "one CPU: no pair to measure"
}

# refused_on CPUS ARGS...: refused_by (test_helper), bench run on CPUS.
refused_on() {
	local cpus=$1
	shift
	refused_command taskset -c "$cpus" "$BENCH" "$@"
}

# fake_topology ROOT PKG0:CORE0 PKG1:CORE1: a sysfs under ROOT where CPU 0
# and CPU 1 sit in those packages and cores (two CPUs of one PKG:CORE are
# SMT siblings), as bench's reader of the machine's shape reads it.
fake_topology() {
	local root=$1 i j sib
	shift
	local -a spec=("$@")
	for ((i = 0; i < ${#spec[@]}; i++)); do
		sib=''
		for ((j = 0; j < ${#spec[@]}; j++)); do
			[ "${spec[j]}" != "${spec[i]}" ] || sib+=${sib:+,}$j
		done
		echo "cpu $i ${spec[i]%:*} $sib -"
	done | fake_shape "$root"
}

@test "every pair of allowed CPUs, once: min and median of its windows, where its threads ran, the round trips the other thread answered" {
	run --separate-stderr taskset -c 0,1 "$BENCH" c2c --json
	assert_success
	[ -z "$stderr" ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/c2c.json"
	run jq -e '.mode == "c2c" and .c2c.cpus_from == "allowed" and ([.c2c.cpus[].cpu] == [0, 1]) and
		.c2c.windows >= 1 and (.c2c.pairs | length) == 1 and .c2c.marked == 0 and
		(.c2c.pairs | all(.a < .b and .pinned and .on_cpus and
			.a_ran_on == [.a, .a] and .b_ran_on == [.b, .b] and
			.round_trips > 0 and .answered == .round_trips and
			.min_ns > 0 and .min_ns <= .q1_ns and .q1_ns <= .median_ns and
			.median_ns <= .q3_ns and .q3_ns <= .max_ns))' "$BATS_TEST_TMPDIR/c2c.json"
	assert_success
	# the text: the matrix's row for CPU 0, min/median under CPU 1
	run --separate-stderr taskset -c 0,1 "$BENCH" c2c
	assert_success
	assert_line --regexp '^Half round trip per pair \(ns\), min/median of [0-9]+ windows'
	assert_line --regexp '^ +1$'
	assert_line --regexp '^ +0 +[0-9]+\.[0-9]/[0-9]+\.[0-9]$'
	assert_line --regexp '^CPUs: 0-1 \(every allowed CPU\), 1 pair; '
	refute_line --partial 'Marked'
}

@test "each pair's relation comes from the topology: SMT siblings, same socket, other socket; the summary has a row for each" {
	local fake=$BATS_TEST_TMPDIR/sys rel
	# a core is named by its lowest CPU, as the machine's shape names it
	for case in "0:0 0:0 smt 0:0:0_1:0:0" "0:0 0:1 socket 0:0:0_1:0:1" "0:0 1:0 remote 0:0:0_1:1:1"; do
		read -r p0 p1 rel cpus <<<"$case"
		rm -rf "$fake"
		fake_topology "$fake" "$p0" "$p1"
		MEMBENCH_SYSFS=$fake run --separate-stderr taskset -c 0,1 "$BENCH" c2c --json
		assert_success
		run jq -r '.c2c.pairs[0].relation,
			(.c2c.summary[] | "\(.relation) \(.pairs) \(.pairs_on_cpus)"),
			(.c2c.cpus | map("\(.cpu):\(.package):\(.core)") | join(" "))' <<<"$output"
		assert_line --index 0 "$rel"
		for r in smt socket remote; do
			if [ "$r" = "$rel" ]; then assert_line "$r 1 1"; else assert_line "$r 0 0"; fi
		done
		assert_line "${cpus/_/ }"
	done
	# the text's summary names the relation, with the cell's figures
	MEMBENCH_SYSFS=$fake run --separate-stderr taskset -c 0,1 "$BENCH" c2c
	assert_success
	assert_line --regexp '^  other socket +1 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
	assert_line --regexp '^  same core \(SMT siblings\) +0 +- +-$'
	assert_line 'Topology (sysfs): 0:socket 0 core 0 1:socket 1 core 1'
}

@test "no topology: the relation is unknown, said so, and --cpus cores or sockets is refused in one line" {
	local fake=$BATS_TEST_TMPDIR/empty
	mkdir -p "$fake"
	MEMBENCH_SYSFS=$fake run --separate-stderr taskset -c 0,1 "$BENCH" c2c --json
	assert_success
	run jq -r '.c2c.pairs[0].relation, (.c2c.cpus[0] | "\(.package) \(.core)")' <<<"$output"
	assert_output "$(printf 'unknown\nnull null')"
	for w in cores sockets; do
		MEMBENCH_SYSFS=$fake refused_on 0,1 c2c --cpus "$w"
		[ "$stderr" = "bench: --cpus $w: the OS reports no topology for CPU 0 (sysfs cpu0/topology), so bench cannot tell $w apart" ]
	done
}

@test "--cpus cores and sockets take the first allowed CPU of each; one core or one socket is refused in one line" {
	local fake=$BATS_TEST_TMPDIR/sys
	fake_topology "$fake" 0:0 1:0
	MEMBENCH_SYSFS=$fake run --separate-stderr taskset -c 0,1 "$BENCH" c2c --cpus sockets --json
	assert_success
	run jq -r '.c2c.cpus_from, ([.c2c.cpus[].cpu] | join(",")), .c2c.pairs[0].relation' <<<"$output"
	assert_output "$(printf 'sockets\n0,1\nremote')"
	rm -rf "$fake"
	fake_topology "$fake" 0:0 0:0
	MEMBENCH_SYSFS=$fake refused_on 0,1 c2c --cpus cores
	[ "$stderr" = "bench: --cpus cores: the CPUs this process may run on (0-1) are on one core; a pair needs two" ]
	rm -rf "$fake"
	fake_topology "$fake" 0:0 0:1
	MEMBENCH_SYSFS=$fake run --separate-stderr taskset -c 0,1 "$BENCH" c2c --cpus cores --json
	assert_success
	[ "$(jq -r '[.c2c.cpus[].cpu] | join(",")' <<<"$output")" = 0,1 ]
	MEMBENCH_SYSFS=$fake refused_on 0,1 c2c --cpus sockets
	[ "$stderr" = "bench: --cpus sockets: the CPUs this process may run on (0-1) are on one socket; a pair needs two" ]
}

@test "bad --cpus: a CPU outside the allowed set, one that does not exist, one CPU, a repeat, a backward range, words: one line, exit 2" {
	n=$(getconf _NPROCESSORS_CONF)
	refused_on 0 c2c --cpus 0,1
	[ "$stderr" = "bench: --cpus: CPU 1 is not one this process may run on (0)" ]
	refused_by c2c --cpus "0,$n"
	[ "$stderr" = "bench: --cpus: CPU $n does not exist (this machine has $n CPUs, 0-$((n - 1)))" ]
	refused_by c2c --cpus 1
	[ "$stderr" = "bench: --cpus: '1' names one CPU; a pair needs two" ]
	refused_by c2c --cpus 0,1,0
	[ "$stderr" = "bench: --cpus: CPU 0 is listed twice" ]
	refused_by c2c --cpus 1-0
	[ "$stderr" = "bench: --cpus: the range 1-0 runs backwards" ]
	refused_by c2c --cpus all
	[ "$stderr" = "bench: --cpus: 'all' is not a CPU list (such as 0-3,8), cores or sockets" ]
	refused_by c2c --cpus 0,,1
	[ "$stderr" = "bench: --cpus: '0,,1' has an empty entry" ]
	# a process allowed one CPU has no pair at all
	refused_on 1 c2c
	[ "$stderr" = "bench: c2c: this process may run on one CPU only (1); a pair needs two" ]
}

@test "an OpenMP binding in the environment, which pins the program before bench starts, is refused in one line" {
	OMP_PROC_BIND=true refused_by c2c
	[ "$stderr" = "bench: c2c: OMP_PROC_BIND is set, and the OpenMP runtime has pinned the program to its first place before bench began; c2c pins each pair's threads itself: unset it" ]
}

@test "--csv: one row per pair, the same figures as the run's JSON" {
	j=$BATS_TEST_TMPDIR/c2c.json
	run --separate-stderr taskset -c 0,1 "$BENCH" c2c --csv --json-file "$j"
	assert_success
	assert_line --index 0 'cpu_a,cpu_b,relation,min_ns,median_ns,q1_ns,q3_ns,max_ns,windows,round_trips,answered,a_ran_on,b_ran_on,on_cpus'
	[ "${#lines[@]}" = 2 ]
	printf '%s\n' "$output" | python3 -c '
import csv, json, sys
doc = json.load(open(sys.argv[1]))["c2c"]
pairs = {(p["a"], p["b"]): p for p in doc["pairs"]}
bad = 0
for row in csv.DictReader(sys.stdin):
    p = pairs[(int(row["cpu_a"]), int(row["cpu_b"]))]
    for k in ("min_ns", "median_ns", "q1_ns", "q3_ns", "max_ns"):
        if float(row[k]) != float(p[k]):
            print("MISMATCH", k, row[k], p[k]); bad = 1
    if int(row["round_trips"]) != p["round_trips"] or int(row["answered"]) != p["answered"] \
       or row["relation"] != p["relation"] or int(row["windows"]) != doc["windows"] \
       or row["a_ran_on"] != " ".join(map(str, p["a_ran_on"])) or row["on_cpus"] != ("yes" if p["on_cpus"] else "no"):
        print("MISMATCH", row); bad = 1
sys.exit(bad)' "$j"
}
