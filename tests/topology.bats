#!/usr/bin/env bats
# The machine's shape as bench reads it: packages (sockets), cores, SMT
# siblings and NUMA nodes with their CPUs and memory, in info's text and
# in every document's system object.  Fake sysfs trees (fake_shape in
# test_helper.bash) play the machines that trip software up; the
# emulated machines (tests/machines) check the same against real kernels.

load test_helper

# shape_json: the topology and numa objects, compact, of `bench info`
# on the fake tree in $BATS_TEST_TMPDIR/sys.
shape_json() {
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys "$BENCH" info --json |
		jq -c '{t: .system.topology, n: .system.numa}'
}

# cpu_rows: "id package core thread node" of each CPU, one line each.
cpu_rows() {
	jq -r '.t.cpu[] | "\(.id) \(.package) \(.core) \(.thread) \(.node)"' <<<"$1"
}

@test "2 sockets x 2 cores x 2 threads numbered as Intel firmware does: CPU 0's sibling is CPU 4" {
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu 0 0 0,4 0
		cpu 1 0 1,5 0
		cpu 2 1 2,6 1
		cpu 3 1 3,7 1
		cpu 4 0 0,4 0
		cpu 5 0 1,5 0
		cpu 6 1 2,6 1
		cpu 7 1 3,7 1
		node 0 1048576 524288
		node 1 1048576 262144
	EOF
	json=$(shape_json)
	run jq -c '.t | [.known, .source, .packages, .cores, .threads_per_core, .cpus, .truncated]' <<<"$json"
	assert_output '[true,"sysfs",2,4,2,8,false]'
	run cpu_rows "$json"
	assert_output "$(printf '%s\n' '0 0 0 0 0' '1 0 1 0 0' '2 1 2 0 1' '3 1 3 0 1' \
		'4 0 0 1 0' '5 0 1 1 0' '6 1 2 1 1' '7 1 3 1 1')"
	run jq -c '.n | [.known, [.nodes[] | [.id, .cpu_list, .cpus, .memory_bytes, .free_bytes]]]' <<<"$json"
	assert_output '[true,[[0,"0-1,4-5",[0,1,4,5],1073741824,536870912],[1,"2-3,6-7",[2,3,6,7],1073741824,268435456]]]'
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run "$BENCH" info
	assert_success
	assert_line "Topology: 2 packages, 4 cores, 8 CPUs online, 2 SMT threads per core"
	assert_line "SMT siblings: 0,4 1,5 2,6 3,7"
	assert_line "NUMA node 0: CPUs 0-1,4-5, memory 1 GiB (512 MiB free)"
	assert_line "NUMA node 1: CPUs 2-3,6-7, memory 1 GiB (256 MiB free)"
}

@test "QEMU's numbering (siblings adjacent), node ids with a gap and a node of memory without CPUs" {
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu 0 0 0-1 0
		cpu 1 0 0-1 0
		cpu 2 0 2-3 0
		cpu 3 0 2-3 0
		cpu 4 1 4-5 2
		cpu 5 1 4-5 2
		cpu 6 1 6-7 2
		cpu 7 1 6-7 2
		node 0 2097152 1048576
		node 2 1048576 1048576
		node 5 4194304 4194000
	EOF
	json=$(shape_json)
	run cpu_rows "$json"
	assert_output "$(printf '%s\n' '0 0 0 0 0' '1 0 0 1 0' '2 0 2 0 0' '3 0 2 1 0' \
		'4 1 4 0 2' '5 1 4 1 2' '6 1 6 0 2' '7 1 6 1 2')"
	run jq -c '[.n.nodes[] | [.id, .cpu_list, .cpus, .memory_bytes]]' <<<"$json"
	assert_output '[[0,"0-3",[0,1,2,3],2147483648],[2,"4-7",[4,5,6,7],1073741824],[5,"",[],4294967296]]'
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run "$BENCH" info
	assert_line "SMT siblings: 0-1 2-3 4-5 6-7"
	assert_line "NUMA node 5: no CPUs, memory 4 GiB (4.0 GiB free)"
}

@test "SMT turned off: every other CPU offline, one thread a core, and no siblings line" {
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu 0 0 0 0
		cpu 2 0 2 0
		cpu 4 1 4 1
		cpu 6 1 6 1
		node 0 1048576 524288
		node 1 1048576 524288
	EOF
	json=$(shape_json)
	run jq -c '.t | [.packages, .cores, .threads_per_core, .cpus]' <<<"$json"
	assert_output '[2,4,1,4]'
	run jq -c '[.n.nodes[].cpu_list]' <<<"$json"
	assert_output '["0,2","4,6"]'
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run "$BENCH" info
	assert_line "Topology: 2 packages, 4 cores, 4 CPUs online, no SMT"
	refute_line --partial "SMT siblings"
}

@test "one core of four with its sibling offline: up to 2 SMT threads a core" {
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu 0 0 0,4 0
		cpu 1 0 1,5 0
		cpu 2 0 2,6 0
		cpu 3 0 3 0
		cpu 4 0 0,4 0
		cpu 5 0 1,5 0
		cpu 6 0 2,6 0
		node 0 1048576 524288
	EOF
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run "$BENCH" info
	assert_line "Topology: 1 package, 4 cores, 7 CPUs online, up to 2 SMT threads per core"
	assert_line "SMT siblings: 0,4 1,5 2,6"
}

@test "more than 64 CPUs: 2 sockets x 48 cores x 2 threads, Intel's numbering" {
	local cpu pkg core
	for cpu in $(seq 0 191); do
		core=$((cpu % 96)) pkg=$((cpu % 96 / 48))
		echo "cpu $cpu $pkg $core,$((core + 96)) $pkg"
	done >"$BATS_TEST_TMPDIR/shape"
	printf 'node 0 8388608 4194304\nnode 1 8388608 4194304\n' >>"$BATS_TEST_TMPDIR/shape"
	fake_shape "$BATS_TEST_TMPDIR/sys" <"$BATS_TEST_TMPDIR/shape"
	json=$(shape_json)
	run jq -c '[.t.packages, .t.cores, .t.threads_per_core, .t.cpus, [.n.nodes[].cpu_list]]' <<<"$json"
	assert_output '[2,96,2,192,["0-47,96-143","48-95,144-191"]]'
	run jq -c '[.t.cpu[] | select(.id == 70 or .id == 166) | [.package, .core, .thread, .node]]' <<<"$json"
	assert_output '[[1,70,0,1],[1,70,1,1]]'
}

@test "more CPUs than the build lists: the first 1024, and the shape says it was cut" {
	local cpu
	for cpu in $(seq 0 1099); do echo "cpu $cpu 0 $cpu 0"; done >"$BATS_TEST_TMPDIR/shape"
	echo 'node 0 8388608 4194304' >>"$BATS_TEST_TMPDIR/shape"
	fake_shape "$BATS_TEST_TMPDIR/sys" <"$BATS_TEST_TMPDIR/shape"
	json=$(shape_json)
	run jq -c '[.t.cpus, .t.truncated, .t.cores, (.t.cpu | last | .id), (.n.nodes[0].cpus | length)]' <<<"$json"
	assert_output '[1024,true,1024,1023,1024]'
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run "$BENCH" info
	assert_line "Topology: 1 package, 1024 cores, 1024 CPUs online, no SMT (more than this build lists)"
}

@test "an OS that says nothing: the shape is unknown, one node of every CPU assumed, and both say so" {
	mkdir -p "$BATS_TEST_TMPDIR/sys"
	json=$(shape_json)
	run jq -c '.t | [.known, .source, .packages, .cores, .threads_per_core, ([.cpu[] | .package, .core, .thread, .node] | unique)]' <<<"$json"
	assert_output '[false,null,null,null,null,[null]]'
	# the CPUs are the ones this process may run on
	run jq -r '[.t.cpu[].id] | length' <<<"$json"
	assert_output "$(getconf _NPROCESSORS_ONLN)"
	run jq -c '.n | [.known, .source, (.nodes | length), .nodes[0].id, (.nodes[0].cpus | length) == '"$(getconf _NPROCESSORS_ONLN)"', .nodes[0].memory_bytes > 0]' <<<"$json"
	assert_output '[false,null,1,0,true,true]'
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run "$BENCH" info
	assert_line "Topology: not reported by the OS ($(getconf _NPROCESSORS_ONLN) CPUs)"
	assert_line "NUMA nodes: not reported by the OS (one node assumed: every CPU and all of memory)"
	refute_line --regexp '^NUMA node [0-9]'
}

@test "lists that are not lists, and a CPU without its topology, make the shape unknown, not wrong" {
	local bad
	# (CPUs 0-2 exist: only the list is wrong; out of order, a lookup
	# by number would miss)
	for bad in '0-3,x' '3-1' '3-1,0' '0,,1' '-1' '0-' '0-99999999' '2,0-1' '0-2,2'; do
		rm -rf "$BATS_TEST_TMPDIR/sys"
		printf 'cpu 0 0 0 0\ncpu 1 0 1 0\ncpu 2 0 2 0\nnode 0 1024 512\n' | fake_shape "$BATS_TEST_TMPDIR/sys"
		echo "$bad" >"$BATS_TEST_TMPDIR/sys/devices/system/cpu/online"
		run jq -c '.t.known' <<<"$(shape_json)"
		assert_output false
	done
	# a CPU the online list names whose topology directory is missing
	rm -rf "$BATS_TEST_TMPDIR/sys"
	printf 'cpu 0 0 0 0\ncpu 1 0 1 0\nnode 0 1024 512\n' | fake_shape "$BATS_TEST_TMPDIR/sys"
	rm -r "$BATS_TEST_TMPDIR/sys/devices/system/cpu/cpu1/topology"
	run jq -c '[.t.known, .n.known, .n.nodes[0].cpu_list]' <<<"$(shape_json)"
	assert_output '[false,true,"0-1"]'
	# a sibling list that leaves the CPU itself out
	rm -rf "$BATS_TEST_TMPDIR/sys"
	printf 'cpu 0 0 1 0\ncpu 1 0 1 0\nnode 0 1024 512\n' | fake_shape "$BATS_TEST_TMPDIR/sys"
	run jq -c '.t.known' <<<"$(shape_json)"
	assert_output false
}

@test "a node whose meminfo cannot be read: its memory is unknown, its CPUs still listed" {
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu 0 0 0 0
		cpu 1 0 1 1
		node 0 1048576 524288
		node 1 - -
	EOF
	run jq -c '[.n.nodes[] | [.id, .cpu_list, .memory_bytes, .free_bytes]]' <<<"$(shape_json)"
	assert_output '[[0,"0",1073741824,536870912],[1,"1",null,null]]'
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run "$BENCH" info
	assert_line "NUMA node 1: CPUs 1, memory unknown"
}

@test "this machine: every online CPU once, each on a node that lists it, in every mode's document" {
	local doc
	for doc in "$("$BENCH" info --json)" "$("$BENCH" --json $TINY -t 1)"; do
		run jq -r '.system.topology | [.cpus, (.cpu | length), (.cpu | map(.id) | unique | length)] | @tsv' <<<"$doc"
		assert_output "$(printf '%s\t%s\t%s' "$(getconf _NPROCESSORS_ONLN)" "$(getconf _NPROCESSORS_ONLN)" "$(getconf _NPROCESSORS_ONLN)")"
		# node membership agrees both ways
		run jq -e '.system as $s | all($s.topology.cpu[]; . as $c | ($c.node == null) or
			any($s.numa.nodes[]; .id == $c.node and (.cpus | index($c.id)) != null))' <<<"$doc"
		assert_success
	done
	if [ -r /sys/devices/system/cpu/cpu0/topology/physical_package_id ]; then
		run jq -r '.system.topology.cpu[0].package' <<<"$("$BENCH" info --json)"
		assert_output "$(cat /sys/devices/system/cpu/cpu0/topology/physical_package_id)"
	fi
	run "$BENCH" $TINY -t 1
	assert_line --regexp '^Topology: '
}

@test "--bind auto follows the shape: the first package's cores first, one thread a core, and says what it chose" {
	need taskset
	taskset -c 0,1 true 2>/dev/null || skip "needs CPUs 0 and 1"
	# a machine whose firmware put CPU 1 on the first package, CPU 0 on the second
	fake_shape "$BATS_TEST_TMPDIR/sys" <<-EOF
		cpu 0 1 0 1
		cpu 1 0 1 0
		node 0 1048576 524288
		node 1 1048576 524288
	EOF
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run taskset -c 0,1 "$BENCH" $TINY -t 2
	assert_success
	assert_line "Thread CPUs: 0:1 1:0"
	assert_line "Binding: auto, spread over cores as OMP_PROC_BIND=spread OMP_PLACES=cores would: 2 threads on 2 of 2 cores in 2 of 2 packages, nodes 0-1, one a core"
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run taskset -c 0,1 "$BENCH" $TINY -t 1 --json
	assert_success
	run jq -c '.run | [.binding_rule, .threads[0].cpu, .threads[0].package, .threads[0].node]' <<<"$output"
	assert_output '["spread_cores",1,0,0]'
	# the two as SMT siblings of one core: three threads share it, the
	# first two on CPU 0 (spread's T > P rule: consecutive threads a core)
	rm -rf "$BATS_TEST_TMPDIR/sys"
	printf 'cpu 0 0 0-1 0\ncpu 1 0 0-1 0\nnode 0 1048576 524288\n' | fake_shape "$BATS_TEST_TMPDIR/sys"
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run taskset -c 0,1 "$BENCH" $TINY -t 2
	assert_line "Thread CPUs: 0:0 1:1"
	assert_line --partial "2 threads on 1 of 1 cores in 1 of 1 package, node 0, up to 2 on one core's SMT siblings"
	# a shape that says nothing: the i-th allowed CPU, as always
	rm -rf "$BATS_TEST_TMPDIR/sys"
	mkdir -p "$BATS_TEST_TMPDIR/sys"
	MEMBENCH_SYSFS=$BATS_TEST_TMPDIR/sys run taskset -c 0,1 "$BENCH" $TINY -t 2 --json
	run jq -c '.run | [.binding, .binding_rule, [.threads[].cpu]]' <<<"$output"
	assert_output '["auto (bench pinned thread i to the i-th allowed CPU)","allowed_order",[0,1]]'
}

@test "every OpenMP binding variable the user set is named, and the policy numactl set is reported" {
	OMP_PROC_BIND=spread OMP_PLACES=cores run "$BENCH" $TINY -t 2
	assert_success
	assert_line "Binding: from OMP_PROC_BIND=spread OMP_PLACES=cores"
	OMP_PROC_BIND=spread OMP_PLACES=cores run "$BENCH" $TINY -t 2 --json
	run jq -c '.run | [.binding, .binding_rule]' <<<"$output"
	assert_output '["from OMP_PROC_BIND=spread OMP_PLACES=cores","openmp_env"]'
	run "$BENCH" info
	assert_line --regexp '^Memory policy: default \(each page on the node of the CPU that first touches it\)(; NUMA balancing (on|off).*)?$'
	run jq -r '.system.numa_balancing' <<<"$("$BENCH" info --json)"
	if [ -r /proc/sys/kernel/numa_balancing ]; then
		assert_output "$(cat /proc/sys/kernel/numa_balancing)"
	else
		assert_output null
	fi
	need numactl
	numactl --membind=0 true 2>/dev/null || skip "numactl cannot bind memory here"
	numactl --membind=0 "$BENCH" $TINY -t 1 --json >"$BATS_TEST_TMPDIR/bind.json"
	run jq -c '.system.memory_policy | [.mode, .nodes, .node_list]' "$BATS_TEST_TMPDIR/bind.json"
	assert_output '["bind",[0],"0"]'
	run numactl --interleave=0 "$BENCH" info
	assert_line --regexp '^Memory policy: interleave, node 0(;|$)'
}
