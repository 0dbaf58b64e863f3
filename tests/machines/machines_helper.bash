# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the tests that load it
# Helpers for tests/machines/machines.bats: boot every machine shape once
# (setup_file), keep what each guest printed, and read it back section by
# section.  Load after test_helper.

# test_helper took tests/ for the top of the tree: this file is a level
# deeper
MACHINES_HERE=$BATS_TEST_DIRNAME
MEMBENCH_ROOT=${MACHINES_HERE%/tests/machines}
BENCH=${BENCH:-$MEMBENCH_ROOT/bench}
export MEMBENCH_ROOT BENCH
# shellcheck source-path=SCRIPTDIR source=shape.bash
. "$MACHINES_HERE/shape.bash"

# Where the initramfs and the guests' logs go (make check-machines sets
# it to build/machines); a log stays after the run, to be read.
MACHINES_DIR=${MACHINES_DIR:-$MEMBENCH_ROOT/build/machines}

# machine_shapes: the shapes to boot: $MACHINES (names), else every file
# in tests/machines/shapes but those marked on-request.
machine_shapes() {
	local f names=()
	if [ -n "${MACHINES:-}" ]; then
		read -r -a names <<<"$MACHINES"
		printf '%s\n' "${names[@]}"
		return 0
	fi
	for f in "$MACHINES_HERE"/shapes/*; do
		(shape_read "$f" && [ "$SHAPE_ON_REQUEST" = 0 ]) || continue
		printf '%s\n' "${f##*/}"
	done
}

# boot_machines: build the initramfs from this tree, then boot each shape
# once, its console in $MACHINES_DIR/SHAPE.log and the seconds it took in
# SHAPE.seconds.  MACHINES_JOBS guests at a time (default: one a host
# CPU, since QEMU runs each guest in one host thread), the longest first
# (machines_longest_first), so that it does not start last and run alone.
# MACHINES_KEEP=1 keeps a finished log from an earlier run instead of
# booting again (for work on the tests themselves).
boot_machines() {
	local s t0 jobs running=0
	command -v qemu-system-x86_64 >/dev/null || return 0
	jobs=${MACHINES_JOBS:-$(nproc 2>/dev/null || echo 1)}
	[[ "$jobs" =~ ^[1-9][0-9]{0,2}$ ]] ||
		{ echo "check-machines: MACHINES_JOBS must be a number of guests from 1, not '$jobs'" >&2; return 1; }
	mkdir -p "$MACHINES_DIR"
	if [ "${MACHINES_KEEP:-0}" != 1 ] || [ ! -s "$MACHINES_DIR/initrd" ]; then
		t0=$SECONDS
		"$MACHINES_HERE/build-initramfs" "$MACHINES_DIR/initrd" "$BENCH" >&2 || return 1
		echo "# initramfs built in $((SECONDS - t0)) s" >&3
	fi
	echo "# booting $(machine_shapes | wc -l) shapes, $jobs at a time" >&3
	for s in $(machines_longest_first); do
		if [ "${MACHINES_KEEP:-0}" = 1 ] && grep -q '^@@@ done rc=' "$MACHINES_DIR/$s.log" 2>/dev/null; then
			echo "# $s: kept the log of an earlier boot" >&3
			continue
		fi
		if [ "$running" -ge "$jobs" ]; then
			wait -n || :
			running=$((running - 1))
		fi
		boot_one "$s" &
		running=$((running + 1))
	done
	wait
}

# machines_longest_first: machine_shapes, the longest first: a shape with
# gigantic-pages (its 1 GiB pages' checks add about a minute, which puts
# it level with the 72-CPU shape or past it), then the most vCPUs.
machines_longest_first() {
	local s
	for s in $(machine_shapes); do
		(shape_read "$MACHINES_HERE/shapes/$s" && printf '%s %s %s\n' "$SHAPE_GIGANTIC" "$(shape_cpus)" "$s") || printf '0 0 %s\n' "$s"
	done | sort -k1,1nr -k2,2nr -k3,3 | cut -d' ' -f3
}

# boot_one SHAPE: boot it, its console in SHAPE.log, its seconds in
# SHAPE.seconds.  A guest that does not finish leaves a log without
# "@@@ done", which shape_begin reports test by test.
boot_one() {
	local s=$1 t0=$SECONDS log=$MACHINES_DIR/$1.log
	rm -f "$log" "$MACHINES_DIR/$s.seconds"
	"$MACHINES_HERE/boot" "$MACHINES_HERE/shapes/$s" "$MACHINES_DIR/initrd" "$log" >&2 || :
	echo $((SECONDS - t0)) >"$MACHINES_DIR/$s.seconds"
	echo "# $s: booted and checked in $((SECONDS - t0)) s, log $log" >&3
}

# need_machines: the tools the tier needs (a failure under CI=true).
need_machines() {
	need qemu-system-x86_64 "qemu-system-x86"
	need cpio
	need busybox "busybox-static"
	need numactl
	need lscpu "util-linux"
	need jq
	local k
	for k in "${MEMBENCH_KERNEL:-}" /boot/vmlinuz-*-cloud-amd64; do
		[ -n "$k" ] && [ -r "$k" ] && return 0
	done
	missing_tool "no kernel for the guests: /boot/vmlinuz-*-cloud-amd64 (linux-image-cloud-amd64)"
}

# each_shape: set SHAPE and LOG to each shape in turn and read its shape
# file, printing which, so a failing assertion's output names the shape
# and the log to read.  Use as: for SHAPE in $(machine_shapes); do
# shape_begin "$SHAPE"; ...; done
shape_begin() {
	SHAPE=$1 LOG=$MACHINES_DIR/$1.log
	echo "== shape $SHAPE; its guest's console: $LOG"
	shape_read "$MACHINES_HERE/shapes/$SHAPE" || return 1
	[ -s "$LOG" ] || { echo "no log: the guest did not run"; return 1; }
	grep -q '^@@@ done rc=' "$LOG" || { echo "the guest did not finish; its last lines:"; tail -n 20 "$LOG"; return 1; }
}

# section NAME: what the current shape's guest printed for check NAME.
section() {
	awk -v b="@@@ begin $1" -v e="@@@ end $1 rc=" '
		$0 == b { on = 1; next }
		on && index($0, e) == 1 { exit }
		on { print }' "$LOG"
}

# section_rc NAME: the exit status check NAME ended with ("" if it never ran).
section_rc() {
	awk -v e="@@@ end $1 rc=" 'index($0, e) == 1 { print substr($0, length(e) + 1); exit }' "$LOG"
}

# section_json NAME: the JSON document of section NAME, checked to be one.
section_json() {
	local doc
	doc=$(section "$1")
	jq -e . >/dev/null 2>&1 <<<"$doc" || { echo "section $1 of $SHAPE is not JSON: ${doc:0:300}" >&2; return 1; }
	printf '%s\n' "$doc"
}

# cpu_map: "cpu core socket node" of each CPU, as the guest's kernel says
# (lscpu -p), independent of bench.
cpu_map() { section machine.lscpu | grep -v '^#' | tr ',' ' '; }

# policy_nodes: POLICY_FIRST, the lowest node with CPUs, and
# POLICY_OTHER, a node without CPUs if the shape has one, else the next
# node: as the guest's checks chose them for their numactl runs.
policy_nodes() {
	local n
	POLICY_FIRST=$(cpu_map | awk '{ print $4 }' | sort -n | head -n 1)
	POLICY_OTHER=''
	for n in $(printf '%s\n' "${SHAPE_NODES[@]}" | sort -n); do
		cpu_map | awk -v n="$n" '$4 == n { found = 1 } END { exit found }' && { POLICY_OTHER=$n; break; }
	done
	[ -n "$POLICY_OTHER" ] || POLICY_OTHER=$(printf '%s\n' "${SHAPE_NODES[@]}" | sort -n | grep -vx "$POLICY_FIRST" | head -n 1)
}
