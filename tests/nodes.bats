#!/usr/bin/env bats
# bench nodes: for each node whose CPUs run against each node whose
# memory is read, the latency and bandwidth cells, each checked for the
# CPUs its threads ran on and the node of every page.  On this machine
# the matrices are real runs; fake sysfs trees (fake_shape) give it other
# shapes, whose extra nodes the real kernel refuses to bind to, so the
# refusal is the kernel's own.  The cells that must be marked (pages on
# the wrong node, threads on the wrong CPU) come from test builds in
# variants.bats, and the emulated machines run the matrices on real
# multi-node kernels (tests/machines).

load test_helper

# Small buffers and two repetitions: the suite reads structure, never
# speed.
SMALL="--buffer 4M -n 2"

@test "this machine: a row for each node with CPUs this process may use, a column for each node, every cell held where it says" {
	local n rows=() cols=() allowed json
	allowed=" $(allowed_cpus | tr '\n' ' ')"
	for n in /sys/devices/system/node/node[0-9]*; do
		[ -d "$n" ] || continue
		cols+=("${n##*node}")
		for c in $(ids "$(cat "$n/cpulist")"); do
			if [[ $allowed == *" $c "* ]]; then rows+=("${n##*node}"); break; fi
		done
	done
	[ "${#cols[@]}" -gt 0 ] || skip "this kernel lists no NUMA nodes"
	run --separate-stderr "$BENCH" nodes $SMALL --json
	assert_success
	json=$output
	run jq -r '[.nodes.rows[].node] | map(tostring) | join(" ")' <<<"$json"
	assert_output "$(printf '%s\n' "${rows[@]}" | sort -n | tr '\n' ' ' | sed 's/ $//')"
	run jq -r '[.nodes.columns[].node] | map(tostring) | join(" ")' <<<"$json"
	assert_output "$(printf '%s\n' "${cols[@]}" | sort -n | tr '\n' ' ' | sed 's/ $//')"
	# a row's CPUs are its node's CPUs this process may use
	for r in "${rows[@]}"; do
		want=$(for c in $(ids "$(cat "/sys/devices/system/node/node$r/cpulist")"); do
			[[ $allowed == *" $c "* ]] && echo "$c"; done | tr '\n' ' ')
		run jq -r --argjson r "$r" '.nodes.rows[] | select(.node == $r) | .cpus | map(tostring) | join(" ")' <<<"$json"
		assert_output "${want% }"
	done
	# the latency matrix, then read's; every cell of each
	run jq -r '[.nodes.matrices[] | "\(.matrix)/\(.kernel)/\(.unit)/\(.cells | length)"] | join(" ")' <<<"$json"
	assert_output "latency/null/ns/$((${#rows[@]} * ${#cols[@]})) bandwidth/read/MB/s/$((${#rows[@]} * ${#cols[@]}))"
	# every cell: bound, its threads seen only on the CPUs it names, each
	# page present and on its column's node, a figure, validated
	run jq -r '.nodes as $n | .nodes.matrices[] | .matrix as $m | .cells[] |
		. as $c | ($n.rows[] | select(.node == $c.cpu_node)) as $row |
		[$m, .cpu_node, .mem_node, .binding, .cpus_held, .pages_held, .held,
		 (.cpus == (if $m == "latency" then [$row.cpus[0]] else $row.cpus end)),
		 (.ran_on == [.cpus[] | ., .]),
		 (.node_pages == {(.mem_node | tostring): .pages}),
		 (.pages >= (if $m == "latency" then 1 else 3 end) * 1024),
		 (.value > 0), ((.validated | type) == "boolean" or (.stable | type) == "boolean"),
		 (.validated != false)] | map(tostring) | join(" ")' <<<"$json"
	assert_success
	for line in "${lines[@]}"; do
		[[ $line == *" ok true true true true true true true true true true" ]] ||
			fail "a cell did not hold: $line"
	done
	[ "${#lines[@]}" -eq $((2 * ${#rows[@]} * ${#cols[@]})) ]
}

@test "the text is a numactl -H-like matrix of the JSON's figures, and every cell has its line" {
	run --separate-stderr "$BENCH" nodes $SMALL --json-file "$BATS_TEST_TMPDIR/n.json"
	assert_success
	local json c1 row
	json=$(cat "$BATS_TEST_TMPDIR/n.json")
	c1=$(jq -r '.nodes.columns[0].node' <<<"$json")
	row=$(jq -r '.nodes.rows[0].node' <<<"$json")
	assert_line "Idle latency (ns per load): rows are the nodes whose CPU chased, columns the nodes whose memory it read"
	assert_line "Bandwidth of read (MB/s): rows are the nodes whose CPUs read, columns the nodes whose memory they read"
	assert_line --regexp "^node +$c1( |\$)"
	# each matrix's first row, cell by cell as the JSON has them
	for m in 0 1; do
		want=$(jq -r --argjson m "$m" --argjson r "$row" '
			[.nodes.matrices[$m].cells[] | select(.cpu_node == $r) | .value | tostring] | join(" ")' <<<"$json")
		got=$(printf '%s\n' "$output" | awk -v r="$(printf '%4d:' "$row")" -v m="$m" '
			$0 ~ /^(Idle latency|Bandwidth of)/ { k++ }
			k == m + 1 && index($0, r) == 1 { $1 = ""; sub(/^ /, ""); print; exit }')
		# the text's one decimal of each figure
		paste <(tr ' ' '\n' <<<"$want") <(tr ' ' '\n' <<<"$got") |
			awk '{ if (sprintf("%.1f", $1) != $2) { print "cell " NR ": " $1 " shown as " $2; bad = 1 } }
				END { exit bad }'
	done
	n=$(jq '[.nodes.matrices[].cells[]] | length' <<<"$json")
	[ "$(printf '%s\n' "$output" | grep -cE '^  (latency|read) [0-9]+->[0-9]+: CPUs? [0-9].*, ran there \(held\); [0-9]+ of [0-9]+ pages on node [0-9]+ \(held\); ')" -eq "$n" ]
	assert_line --regexp '^Buffer: 4 MiB a cell \(--buffer\)$'
	assert_line --regexp '^Row node [0-9]+: CPUs? [0-9]'
}

@test "--csv: a row per cell with the JSON's figures, no field with a comma" {
	run --separate-stderr "$BENCH" nodes $SMALL --kernels read,triad --csv --json-file "$BATS_TEST_TMPDIR/n.json"
	assert_success
	[ "${lines[0]}" = "matrix,kernel,cpu_node,mem_node,value,unit,binding,error,cpus,ran_on,cpus_held,pages,pages_on_node,pages_elsewhere,pages_held,held,page_kib,huge_pct,stable,validation,buffer_bytes,alloc" ]
	awk -F, 'NF != 22 { print "row " NR " has " NF " fields"; bad = 1 } END { exit bad }' <<<"$output"
	diff <(printf '%s\n' "$output" | tail -n +2 | cut -d, -f1-5,7,11,13,16) <(jq -r '.nodes.matrices[] | . as $m | .cells[] |
		[$m.matrix, ($m.kernel // ""), .cpu_node, .mem_node, .value, .binding,
		 (if .cpus_held then "yes" else "no" end), .node_pages[.mem_node | tostring],
		 (if .held then "yes" else "no" end)] | map(tostring) | join(",")' "$BATS_TEST_TMPDIR/n.json")
	# one latency matrix, then the kernels in the table's order
	run jq -r '[.nodes.matrices[] | .kernel // .matrix] | join(" ")' "$BATS_TEST_TMPDIR/n.json"
	assert_output "latency triad read"
}

@test "taskset: a row is only the CPUs this process may run on, and its cells ran there" {
	two_cpus
	run --separate-stderr taskset -c "$CPU_B" "$BENCH" nodes $SMALL --json
	assert_success
	run jq -r '[.nodes.rows[] | .cpus[]] | map(tostring) | join(" ")' <<<"$output"
	assert_output "$CPU_B"
	run --separate-stderr taskset -c "$CPU_B" "$BENCH" nodes $SMALL --json
	run jq -r '[.nodes.matrices[].cells[] | .ran_on[]] | unique | map(tostring) | join(" ")' <<<"$output"
	assert_output "$CPU_B"
	# --cpus chooses among them, -t takes the first N of a row
	run --separate-stderr "$BENCH" nodes $SMALL --cpus "$CPU_B" --matrix bandwidth --json
	assert_success
	run jq -r '[.nodes.matrices[].cells[] | .cpus, .ran_on] | flatten | unique | map(tostring) | join(" ")' <<<"$output"
	assert_output "$CPU_B"
}

@test "a node of memory without CPUs is a column only, and a binding the kernel refuses is said in each of its cells" {
	two_cpus
	free_ids 2
	local n0 f1=${FAKE_IDS[0]} f2=${FAKE_IDS[1]}
	n0=$(real_node)
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu $CPU_A 0 $CPU_A $n0
		cpu $CPU_B 1 $CPU_B $f1
		node $n0 8388608 8388608
		node $f1 8388608 8388608
		node $f2 8388608 8388608
	EOF
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run --separate-stderr "$BENCH" nodes $SMALL \
		--json-file "$BATS_TEST_TMPDIR/n.json"
	assert_success
	# the text: no row for the node without CPUs, a column for it
	assert_line "Columns: nodes $n0,$f1-$f2; node $f2 has no CPUs: a column only"
	refute_line --regexp "^ +$f2:"
	assert_line --regexp "^ +$f1: +[0-9.]+ +refused +refused\$"
	assert_line "  latency $n0->$f2: refused: the kernel would not bind memory to node $f2 (mbind: Invalid argument)"
	assert_line "  read $f1->$f1: refused: the kernel would not bind memory to node $f1 (mbind: Invalid argument)"
	local json
	json=$(cat "$BATS_TEST_TMPDIR/n.json")
	# rows: the nodes with CPUs; columns: every node
	run jq -c '[[.nodes.rows[].node], [.nodes.columns[] | [.node, .cpus]]]' <<<"$json"
	assert_output "[[$n0,$f1],[[$n0,1],[$f1,1],[$f2,0]]]"
	# the real node's cells ran, each row on its own CPU; the kernel
	# refused the others, and each says so with its error and no figure
	run jq -r '.nodes.matrices[] | .matrix as $m | .cells[] |
		[$m, .cpu_node, .mem_node, .binding, (.error // "-"), (.value | type), (.held | tostring), (.cpus | map(tostring) | join(" "))] | join(" ")' <<<"$json"
	assert_output "$(for m in latency bandwidth; do for r in "$n0:$CPU_A" "$f1:$CPU_B"; do
		echo "$m ${r%:*} $n0 ok - number true ${r#*:}"
		echo "$m ${r%:*} $f1 refused Invalid argument null null ${r#*:}"
		echo "$m ${r%:*} $f2 refused Invalid argument null null ${r#*:}"
	done; done)"
}

@test "bad input is one line and exit 2: a node that does not exist, a list that is not one (out of order, a node twice), a CPU that does not exist, what the mode cannot do" {
	refused_by nodes --nodes 999
	[[ $stderr == "bench: --nodes: node 999 does not exist (this machine's nodes: "*")" ]]
	refused_by nodes --nodes 0,0
	[ "$stderr" = "bench: --nodes: '0,0' is not a list of node ids in ascending order (such as 0-3,8)" ]
	refused_by nodes --nodes 1-x
	[ "$stderr" = "bench: --nodes: '1-x' is not a list of node ids in ascending order (such as 0-3,8)" ]
	refused_by nodes --cpus 1,0
	[ "$stderr" = "bench: --cpus: '1,0' is not a list of CPU ids in ascending order (such as 0-3,8), cores or sockets" ]
	refused_by nodes --cpus 4095
	[[ $stderr == "bench: --cpus: CPU 4095 does not exist (CPUs online: "*")" ]]
	refused_by nodes --alloc shm
	[[ $stderr == "bench: --alloc shm: "*"mmap, thp and hugetlb" ]]
	refused_by nodes --buffer 512K
	refused_by nodes --size 1000
	[ "$stderr" = "bench: --size does not apply to mode 'nodes'" ]
}

@test "bad input against the machine: a CPU outside the allowed set, a buffer larger than a node's free memory, a matrix without a row" {
	# a CPU this process may not run on
	two_cpus
	run --separate-stderr taskset -c "$CPU_A" "$BENCH" nodes --cpus "$CPU_B" --json-file "$BATS_TEST_TMPDIR/x.json"
	assert_failure 2
	assert_output ""
	[ "$stderr" = "bench: --cpus: CPU $CPU_B is outside the CPUs this process may run on ($CPU_A)" ]
	[ ! -e "$BATS_TEST_TMPDIR/x.json" ]
	# a node whose free memory cannot hold what a cell needs there
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu $CPU_A 0 $CPU_A 0
		node 0 1048576 65536
	EOF
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys refused_by nodes --buffer 32M
	[ "$stderr" = "bench: --buffer 32 MiB: node 0 has 64 MiB free, less than the 96 MiB a bandwidth cell's three arrays of that size take there" ]
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys refused_by nodes --buffer 80M --matrix latency
	[ "$stderr" = "bench: --buffer 80 MiB: node 0 has 64 MiB free, less than the 80 MiB a chase buffer of that size takes there" ]
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys refused_by nodes --cpus "$CPU_B"
	[ "$stderr" = "bench: --cpus: CPU $CPU_B does not exist (CPUs online: $CPU_A)" ]
	# a matrix needs a row: a node whose CPUs can run
	printf 'node 1 1048576 1048576\n' | fake_shape "$BATS_TEST_TMPDIR/sys"
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys refused_by nodes --nodes 1
	[ "$stderr" = "bench: mode nodes: no row for the matrices: none of the nodes has CPUs (a row is a node whose CPUs run)" ]
}

@test "the default buffer: the larger of 256 MiB and 4x the LLC, capped to a quarter of a column's free memory, and the text says so" {
	two_cpus
	local n0
	n0=$(real_node)
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu $CPU_A 0 $CPU_A $n0
		node $n0 8388608 65536
	EOF
	fake_llc "$BATS_TEST_TMPDIR/sys" 128M "$CPU_A"
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run --separate-stderr "$BENCH" nodes -n 2 --json-file "$BATS_TEST_TMPDIR/n.json"
	assert_success
	assert_line "Buffer: 16 MiB a cell (512 MiB wanted, capped by node $n0's free memory)"
	run jq -c '.nodes | [.buffer_bytes, .buffer_rule, .buffer_capped_by_node]' "$BATS_TEST_TMPDIR/n.json"
	assert_output "[16777216,\"capped\",$n0]"
	# latency alone takes one buffer, not three arrays: half of free
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run --separate-stderr "$BENCH" nodes --matrix latency --json
	assert_success
	run jq -c '[.nodes.buffer_bytes, [.nodes.matrices[].matrix]]' <<<"$output"
	assert_output '[33554432,["latency"]]'
}

@test "each cell says the pages it got: base pages with --alloc mmap, and what THP gave with thp" {
	grep -q '\[always\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null &&
		skip "THP always: mmap's pages may be huge too"
	run --separate-stderr "$BENCH" nodes $SMALL --alloc mmap --json-file "$BATS_TEST_TMPDIR/n.json"
	assert_success
	assert_line --regexp '^Allocation: mmap, each buffer bound .*\(base pages\)$'
	[ "$(printf '%s\n' "$output" | grep -c '; 4 KiB pages, 0% huge; ')" -eq "$(jq '[.nodes.matrices[].cells[]] | length' "$BATS_TEST_TMPDIR/n.json")" ]
	run jq -r '[.nodes.alloc, ([.nodes.matrices[].cells[] | [.page_kib, .huge_pct]] | unique | tostring)] | join(" ")' "$BATS_TEST_TMPDIR/n.json"
	assert_output 'mmap [[4,0]]'
	# thp: a cell on huge pages says their size, one on base pages 4 KiB
	run --separate-stderr "$BENCH" nodes $SMALL --json-file "$BATS_TEST_TMPDIR/t.json"
	assert_success
	assert_line --regexp '^Allocation: thp, each buffer bound .*\(huge pages where THP gives them; each cell says what it got\)$'
	run jq -r '[.nodes.alloc, ([.nodes.matrices[].cells[] | (.page_kib == 2048) == (.huge_pct >= 50)] | all)] | map(tostring) | join(" ")' "$BATS_TEST_TMPDIR/t.json"
	assert_output 'thp true'
}

@test "--cpus cores: the first allowed CPU of each core, one thread a core; sockets: of each package; refused where the OS names no cores" {
	two_cpus
	local n0
	n0=$(real_node)
	# the two CPUs as SMT siblings of one core, on one package
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu $CPU_A 0 $CPU_A,$CPU_B $n0
		cpu $CPU_B 0 $CPU_A,$CPU_B $n0
		node $n0 8388608 8388608
	EOF
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run --separate-stderr "$BENCH" nodes $SMALL --cpus cores --matrix bandwidth --json
	assert_success
	run jq -c '[.nodes.rows[] | .cpus], [.nodes.matrices[].cells[] | .ran_on, .held]' <<<"$output"
	assert_output "$(printf '[[%s]]\n[[%s,%s],true]' "$CPU_A" "$CPU_A" "$CPU_A")"
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run --separate-stderr "$BENCH" nodes $SMALL --cpus sockets --matrix latency --json
	assert_success
	run jq -c '[.nodes.rows[] | .cpus]' <<<"$output"
	assert_output "[[$CPU_A]]"
	# two cores: both CPUs
	fake_shape "$BATS_TEST_TMPDIR/sys2" <<-EOF
		cpu $CPU_A 0 $CPU_A $n0
		cpu $CPU_B 0 $CPU_B $n0
		node $n0 8388608 8388608
	EOF
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys2 run --separate-stderr "$BENCH" nodes $SMALL --cpus cores --matrix latency --json
	run jq -c '[.nodes.rows[] | .cpus]' <<<"$output"
	assert_output "[[$CPU_A,$CPU_B]]"
	rm -r "$BATS_TEST_TMPDIR/sys2/devices/system/cpu/cpu$CPU_B/topology"
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys2 refused_by nodes --cpus cores
	[ "$stderr" = "bench: --cpus cores: the OS reports no topology (sysfs cpu*/topology), so bench cannot tell cores apart" ]
}
