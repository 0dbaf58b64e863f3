# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the scripts and tests that source it
# tests/machines/shape.bash: read a machine shape file (tests/machines/
# shapes/NAME), for tests/machines/boot, which turns it into QEMU's
# options, and for the tests, which expect what it says.  Sourced.
#
# A shape file holds comment lines (#) and these, each word checked:
#   smp SOCKETS CORES THREADS   the CPUs: sockets x cores x SMT threads
#   node ID MIB                 a NUMA node and its memory
#   place NODE SOCKET [CORE]    the CPUs of SOCKET (or of its CORE) are
#                               on NODE; a node no place names has
#                               memory and no CPUs
#   hotplug SOCKET CORE THREAD  plug this CPU in after boot, in the
#                               order of these lines (then Linux numbers
#                               the CPUs in that order); CPU 0 0 0 is
#                               there from the start
#   timeout SECONDS             how long the guest may take (600)
#   on-request                  booted only when MACHINES names it, not
#                               by a plain `make check-machines`
#   gigantic-pages              the guest reserves 1 GiB pages and runs
#                               the checks of --page-size 1G on them
#                               (its nodes must leave free, aligned
#                               gigabytes: docs/testing.md); its kernel
#                               boots with nokaslr and init_on_alloc=0

# shape_read FILE: set SHAPE_SOCKETS, SHAPE_CORES, SHAPE_THREADS,
# SHAPE_NODES (ids), SHAPE_NODE_MIB[id], SHAPE_PLACES ("node socket
# core" lines, core - for a whole socket), SHAPE_HOTPLUG ("socket core
# thread" lines), SHAPE_TIMEOUT, SHAPE_ON_REQUEST and SHAPE_GIGANTIC
# (1 or 0); return 1 with a message on stderr when FILE is not a shape.
shape_read() {
	local file=$1 line n=0 w=() num='^[0-9]+$'
	SHAPE_SOCKETS='' SHAPE_CORES='' SHAPE_THREADS='' SHAPE_NODES=() SHAPE_PLACES=()
	SHAPE_HOTPLUG=() SHAPE_TIMEOUT=600 SHAPE_ON_REQUEST=0 SHAPE_GIGANTIC=0
	SHAPE_NODE_MIB=()
	[ -r "$file" ] || { echo "shape: cannot read $file" >&2; return 1; }
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%%#*}
		read -r -a w <<<"$line"
		[ ${#w[@]} -gt 0 ] || continue
		local x ok=1
		for x in "${w[@]:1}"; do [[ $x =~ $num ]] && [ ${#x} -le 6 ] || ok=0; done
		case "${w[0]}:${#w[@]}:$ok" in
		smp:4:1) SHAPE_SOCKETS=${w[1]} SHAPE_CORES=${w[2]} SHAPE_THREADS=${w[3]} ;;
		node:3:1) SHAPE_NODES+=("${w[1]}") SHAPE_NODE_MIB[w[1]]=${w[2]} ;;
		place:3:1) SHAPE_PLACES+=("${w[1]} ${w[2]} -") ;;
		place:4:1) SHAPE_PLACES+=("${w[1]} ${w[2]} ${w[3]}") ;;
		hotplug:4:1) SHAPE_HOTPLUG+=("${w[1]} ${w[2]} ${w[3]}") ;;
		timeout:2:1) SHAPE_TIMEOUT=${w[1]} ;;
		on-request:1:1) SHAPE_ON_REQUEST=1 ;;
		gigantic-pages:1:1) SHAPE_GIGANTIC=1 ;;
		*) echo "shape: $file line $n is not a shape line: $line" >&2; return 1 ;;
		esac
	done <"$file"
	if [ -z "$SHAPE_SOCKETS" ] || [ ${#SHAPE_NODES[@]} -eq 0 ]; then
		echo "shape: $file needs an smp line and a node line" >&2
		return 1
	fi
}

# shape_cpus: how many CPUs the shape has.
shape_cpus() { echo $((SHAPE_SOCKETS * SHAPE_CORES * SHAPE_THREADS)); }

# shape_node_of SOCKET CORE: the node the shape places that core on, or
# nothing.
shape_node_of() {
	local p w
	for p in "${SHAPE_PLACES[@]}"; do
		read -r -a w <<<"$p"
		if [ "${w[1]}" = "$1" ] && { [ "${w[2]}" = - ] || [ "${w[2]}" = "$2" ]; }; then
			echo "${w[0]}"
			return 0
		fi
	done
}
