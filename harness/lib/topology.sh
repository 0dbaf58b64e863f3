# shellcheck shell=bash
# harness/lib/topology.sh: the online CPUs and their packages and cores, and the compact and scatter orders over them
# Needs: messages.sh, knobs.sh (knob_current).  Sourced after them, never run.

online_cpus() {
	local list
	if [ -r "$CPU_DIR/online" ]; then
		list=$(knob_current "$CPU_DIR/online")
	else
		list="0-$(($(getconf _NPROCESSORS_ONLN) - 1))"
	fi
	expand_cpu_list "$list"
}

ncpus_online() { online_cpus | wc -l; }

# topology_table: "cpu package core" per online CPU.
topology_table() {
	local cpu pkg core t
	for cpu in $(online_cpus); do
		t=$CPU_DIR/cpu$cpu/topology
		pkg=0 core=$cpu
		[ -r "$t/physical_package_id" ] && pkg=$(knob_current "$t/physical_package_id")
		[ -r "$t/core_id" ] && core=$(knob_current "$t/core_id")
		printf '%s %s %s\n' "$cpu" "$pkg" "$core"
	done
}

# compact_order: SMT siblings next to each other, cores of a package next.
compact_order() { topology_table | sort -k2,2n -k3,3n -k1,1n | awk '{print $1}'; }

# scatter_order: one thread per core, round robin over packages, and only
# then the second SMT thread of each core (Intel's "scatter").
scatter_order() {
	topology_table | sort -k2,2n -k3,3n -k1,1n | awk '
		NR == 1 || $2 != pkg { pkg = $2; rank = -1; newpkg = 1 }
		newpkg || $3 != core { core = $3; rank++; smt = 0; newpkg = 0; print smt, rank, $2, $1; next }
		{ smt++; print smt, rank, $2, $1 }' |
		sort -k1,1n -k2,2n -k3,3n | awk '{print $4}'
}

count_packages() { topology_table | awk '{print $2}' | sort -u | wc -l; }
