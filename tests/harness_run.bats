#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/run: settings are saved, applied, verified, recorded and restored,
# on a fake machine (MEMBENCH_SYSFS / MEMBENCH_PROCFS) and a fake bench.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() { harness_setup; }

RUN=$HARNESS_REPO/harness/run
thp() { cat "$FAKE/sys/kernel/mm/transparent_hugepage/enabled"; }
pool() { cat "$FAKE/proc/sys/vm/nr_hugepages"; }
gov() { cat "$FAKE/sys/devices/system/cpu/cpu$1/cpufreq/scaling_governor"; }

@test "--help lists every option" {
	run "$RUN" --help
	assert_success
	for o in --governor --freq --turbo --bind --numa --thp --hugepages --smt --prefetch \
		--label --dry-run --required --peak-mts --channels --sockets --bus-bits --results --bench; do
		assert_output --partial -- "$o"
	done
}

@test "governor, THP and nr_hugepages are set during the run and restored after" {
	run "$RUN" --governor performance --thp always --hugepages 8 --label set -- -s 1000
	assert_success
	d=$(result_dir)
	# During: the step record saw the changed state.
	run jq -r '.state_during[]' "$d/step-001.json"
	assert_line 'thp enabled: always'
	assert_line 'nr_hugepages: 8'
	# meminfo's huge page lines, and none of its others
	assert_line 'HugePages_Total: 0'
	assert_line 'Hugepagesize: 2048 kB'
	refute_line --partial 'MemTotal'
	run jq -r '.settings[]' "$d/step-001.json"
	assert_line 'governor: performance on 8 CPUs, verified'
	assert_line 'thp: always (was madvise), verified'
	assert_line 'hugepages: 8 reserved (was 0), verified'
	# After: everything is back.
	[ "$(thp)" = madvise ]
	[ "$(pool)" = 0 ]
	for c in 0 1 2 3 4 5 6 7; do [ "$(gov "$c")" = powersave ]; done
	grep -q '^- thp: always (was madvise), verified' "$d/summary.md"
	grep -q '^## THP and huge pages before the run' "$d/provenance.txt"
}

@test "SIGINT in the middle of a run restores the machine and leaves no summary" {
	export FAKE_BENCH_SLEEP=30
	set -m
	"$RUN" --thp always --hugepages 4 --label int >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	set +m
	for _ in $(seq 100); do grep -q '^stream' "$FAKE_BENCH_LOG" 2>/dev/null && break; sleep 0.1; done
	grep -q '^stream' "$FAKE_BENCH_LOG"
	[ "$(thp)" = always ]
	[ "$(pool)" = 4 ]
	# Ctrl-C goes to the whole foreground process group.
	kill -INT -- "-$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	[ "$(thp)" = madvise ]
	[ "$(pool)" = 0 ]
	d=$(result_dir)
	[ -f "$d/INTERRUPTED" ]
	[ ! -e "$d/summary.md" ]
	[ ! -e "$d/step-001.json" ]
	run find "$d" -name '.*tmp*'
	assert_output ''
	grep -q 'interrupted by SIGINT' "$BATS_TEST_TMPDIR/out"
}

@test "a pool that reserved fewer pages than asked is caught" {
	make_short_pool_writer "$BATS_TEST_TMPDIR/writer"
	export MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/writer FAKE_POOL_LIMIT=3
	run "$RUN" --hugepages 8 -- -s 1000
	assert_success
	assert_output --partial 'asked for 8 huge pages, the kernel reserved 3 (short pool)'
	d=$(result_dir)
	grep -q 'hugepages: NOT APPLIED AS ASKED' "$d/summary.md"
	run jq -r .status "$d/step-001.json"
	assert_output 'ok; hugepages NOT as asked'
	[ "$(pool)" = 0 ]
}

# offer_1g: the fake machine keeps a pool of 1 GiB pages too.
G1=kernel/mm/hugepages/hugepages-1048576kB
offer_1g() {
	mkdir -p "$FAKE/sys/$G1"
	echo 0 >"$FAKE/sys/$G1/nr_hugepages"
	echo 0 >"$FAKE/sys/$G1/free_hugepages"
}
pool1g() { cat "$FAKE/sys/$G1/nr_hugepages"; }

@test "--hugepages SIZE:N: pages of that size in its own pool, recorded, restored; the default size's stays nr_hugepages" {
	offer_1g
	run "$RUN" --hugepages 1G:2 --label g -- -s 1000
	assert_success
	assert_output --partial "run: restored $FAKE/sys/$G1/nr_hugepages to '0'"
	d=$(result_dir)
	run jq -r '.state_during[]' "$d/step-001.json"
	assert_line "$G1/nr_hugepages: 2"
	assert_line "$G1/free_hugepages: 0"
	assert_line 'kernel/mm/hugepages/hugepages-2048kB/nr_hugepages: 0'
	assert_line 'nr_hugepages: 0'
	run jq -r '.settings[]' "$d/step-001.json"
	assert_output 'hugepages 1G: 2 reserved (was 0), verified'
	grep -qx -- '- hugepages 1G: 2 reserved (was 0), verified' "$d/provenance.txt"
	[ "$(pool1g)" = 0 ] && [ "$(pool)" = 0 ]
	# 2M is the default size here: nr_hugepages, as --hugepages 8 writes
	rm -rf "$MEMBENCH_RESULTS"
	run "$RUN" --hugepages 2M:8 -- -s 1000
	assert_success
	run jq -r '.state_during[], .settings[]' "$(result_dir)/step-001.json"
	assert_line 'nr_hugepages: 8'
	assert_line "$G1/nr_hugepages: 0"
	assert_line 'hugepages 2M: 8 reserved (was 0), verified'
	[ "$(pool)" = 0 ]
	# meminfo's Hugepagesize names the default size where sysfs does not
	rm -r "$FAKE/sys/kernel/mm/hugepages/hugepages-2048kB"
	run "$RUN" --dry-run --hugepages 2M:4 -- -s 1000
	assert_success
	assert_line "dry-run: hugepages 2M: would write '4' to $FAKE/proc/sys/vm/nr_hugepages (now '0') and check the count"
}

@test "a 1 GiB pool the kernel fills short is caught" {
	offer_1g
	make_short_pool_writer "$BATS_TEST_TMPDIR/writer"
	export MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/writer FAKE_POOL_LIMIT=1
	run "$RUN" --hugepages 1G:2 -- -s 1000
	assert_success
	assert_output --partial 'run: warning: hugepages 1G: NOT applied as asked: asked for 2 huge pages of 1G, the kernel reserved 1 (short pool)'
	run jq -r .status "$(result_dir)/step-001.json"
	assert_output 'ok; hugepages 1G NOT as asked'
	run jq -r '.state_during[]' "$(result_dir)/step-001.json"
	assert_line "$G1/nr_hugepages: 1"
	[ "$(pool1g)" = 0 ]
}

@test "--hugepages: a malformed value, or a size the kernel does not offer, is one line naming the sizes it offers, exit 2, nothing changed" {
	before=$(tree_digest)
	for v in 1G:x 1G: :2 3X:2 1G:2:3 -1 0G:1 2.5M:1 1G:1234567890123 "$(printf '1G:1\n2')"; do
		run "$RUN" --thp always --hugepages "$v" -- -s 1000
		assert_failure 2
		assert_equal "${#lines[@]}" 1
		assert_output --partial 'run: --hugepages wants a page count N, or SIZE:N for pages of a named size (1G:2, 2M:512), not '
	done
	# refused before anything changes: THP, set before the pool, is never written
	make_fake_tool "$BATS_TEST_TMPDIR/bin" knob-log 'echo "$1" >>"$KNOB_LOG"; printf "%s\n" "$2" >"$1"'
	export MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/bin/knob-log KNOB_LOG=$BATS_TEST_TMPDIR/knob.log
	for a in '' --dry-run; do
		run "$RUN" $a --thp always --hugepages 1G:2 -- -s 1000
		assert_failure 2
		assert_output "run: --hugepages 1G:2: this kernel offers no 1G huge pages (no $FAKE/sys/$G1); it offers 2M"
	done
	[ ! -e "$KNOB_LOG" ]
	[ "$(tree_digest)" = "$before" ]
	[ ! -e "$MEMBENCH_RESULTS" ]
	[ ! -e "$FAKE_BENCH_LOG" ]
	# every size it offers, smallest first
	offer_1g
	mkdir "$FAKE/sys/kernel/mm/hugepages/hugepages-32768kB"
	run "$RUN" --hugepages 64K:1 -- -s 1000
	assert_failure 2
	assert_output --partial 'it offers 2M, 32M and 1G'
}

@test "apply_hugepages N SIZE_KB, as a sweep names 1 GiB pages: that pool; a size not offered is refused, or left in HUGEPAGES_PROBLEM" {
	export MEMBENCH_LOCK_DIR=$BATS_TEST_TMPDIR/lock
	# shellcheck disable=SC2016 # run by the inner bash
	apply='set -eu; . "$1/harness/lib.sh"; HUGEPAGES_TOO_MANY=${2:-die} apply_hugepages 2 1048576
		printf "problem=%s got=%s\n" "$HUGEPAGES_PROBLEM" "$HUGEPAGES_GOT"; printf "%s\n" "${SETTINGS[@]}"'
	run bash -c "$apply" sweep "$HARNESS_REPO" skip
	assert_success
	assert_output "problem=--hugepages 1G:2: this kernel offers no 1G huge pages (no $FAKE/sys/$G1); it offers 2M got="
	run bash -c "$apply" sweep "$HARNESS_REPO"
	assert_failure 2
	assert_output "sweep: --hugepages 1G:2: this kernel offers no 1G huge pages (no $FAKE/sys/$G1); it offers 2M"
	offer_1g
	run bash -c "$apply" sweep "$HARNESS_REPO"
	assert_success
	assert_line 'problem= got=2'
	assert_line 'hugepages 1G: 2 reserved (was 0), verified'
	[ "$(pool1g)" = 2 ] && [ "$(pool)" = 0 ]
}

@test "--required refuses a short pool, restores it and runs nothing" {
	make_short_pool_writer "$BATS_TEST_TMPDIR/writer"
	export MEMBENCH_KNOB_WRITER=$BATS_TEST_TMPDIR/writer FAKE_POOL_LIMIT=3
	run "$RUN" --required --hugepages 8
	assert_failure 2
	assert_output --partial 'refusing because of --required'
	[ "$(pool)" = 0 ]
	run grep -c '^stream' "$FAKE_BENCH_LOG"
	assert_output 0
}

@test "--dry-run prints each change and changes and runs nothing" {
	before=$(tree_digest)
	run "$RUN" --dry-run --governor performance --thp never --hugepages 16 --smt off \
		--turbo off --freq 2000 --bind close --omp-runtime libgomp -- -s 1000
	assert_success
	assert_output --partial "dry-run: thp: would write 'never'"
	assert_output --partial "dry-run: hugepages: would write '16'"
	assert_output --partial "dry-run: governor: would write 'performance'"
	assert_output --partial "dry-run: smt: would write 'off'"
	assert_output --partial "dry-run: turbo: would write '1'"
	assert_output --partial "dry-run: freq: would write '2000000'"
	assert_output --regexp 'dry-run: step 1 .*OMP_PROC_BIND=close.*GOMP_CPU_AFFINITY=0 4 1 5 2 6 3 7.*stream -s 1000 --json-file '
	[ "$(tree_digest)" = "$before" ]
	[ ! -e "$MEMBENCH_RESULTS" ]
	[ ! -e "$FAKE_BENCH_LOG" ]
}

@test "not root: privileged settings are skipped with a note, and the run says so" {
	export MEMBENCH_UID=1000
	before=$(tree_digest)
	run "$RUN" --governor performance --thp always --hugepages 8 --smt off --turbo off -- -s 1000
	assert_success
	assert_output --partial 'thp: skipped: needs root'
	assert_output --partial 'hugepages: skipped: needs root'
	assert_output --partial 'governor: skipped: needs root'
	[ "$(tree_digest)" = "$before" ]
	d=$(result_dir)
	grep -q '^- thp: SKIPPED: needs root' "$d/summary.md"
	grep -q 'thp: SKIPPED: needs root' "$d/provenance.txt"
	run jq -r .status "$d/step-001.json"
	assert_output --partial 'thp skipped'
}

@test "not root with --required: refused before bench runs" {
	export MEMBENCH_UID=1000
	run "$RUN" --required --thp always
	assert_failure 2
	assert_output --partial 'thp: needs root'
	[ ! -e "$FAKE_BENCH_LOG" ] || ! grep -q '^stream' "$FAKE_BENCH_LOG"
}

@test "no cpufreq: governor and freq say not available, and the run goes on" {
	rm -r "$FAKE"/sys/devices/system/cpu/cpu*/cpufreq
	run "$RUN" --governor performance --freq 2000 -- -s 1000
	assert_success
	assert_output --partial 'governor: skipped: not available on this machine'
	assert_output --partial 'freq: skipped: not available on this machine'
	grep -q '^stream' "$FAKE_BENCH_LOG"
}

@test "no cpufreq with --required: the run stops" {
	rm -r "$FAKE"/sys/devices/system/cpu/cpu*/cpufreq
	run "$RUN" --required --governor performance
	assert_failure 2
	assert_output --partial 'not available on this machine'
	assert_output --partial 'refusing because of --required'
}

@test "freq pins min and max where there is no userspace governor, and restores them" {
	for c in 0 1 2 3 4 5 6 7; do
		echo 'performance powersave' >"$FAKE/sys/devices/system/cpu/cpu$c/cpufreq/scaling_available_governors"
	done
	run "$RUN" --freq 2000 -- -s 1000
	assert_success
	run jq -r '.settings[]' "$(result_dir)/step-001.json"
	assert_output 'freq: 2000 MHz on 8 CPUs (min=max), verified'
	[ "$(cat "$FAKE/sys/devices/system/cpu/cpu5/cpufreq/scaling_min_freq")" = 1200000 ]
	[ "$(cat "$FAKE/sys/devices/system/cpu/cpu5/cpufreq/scaling_max_freq")" = 2600000 ]
}

@test "a frequency outside the CPU's range is bad input" {
	run "$RUN" --freq 9000
	assert_failure 2
	assert_output --partial 'outside this CPU'
	[ "${#lines[@]}" -eq 1 ]
}

@test "turbo and SMT are set and restored" {
	run "$RUN" --turbo off --smt off -- -s 1000
	assert_success
	run jq -r '.settings[]' "$(result_dir)/step-001.json"
	assert_line --partial 'turbo: off'
	assert_line 'smt: off (was on), verified'
	[ "$(cat "$FAKE/sys/devices/system/cpu/intel_pstate/no_turbo")" = 0 ]
	[ "$(cat "$FAKE/sys/devices/system/cpu/smt/control")" = on ]
}

@test "SMT control that says notsupported is not available" {
	echo notsupported >"$FAKE/sys/devices/system/cpu/smt/control"
	run "$RUN" --smt off -- -s 1000
	assert_success
	assert_output --partial "smt: skipped: not available on this machine"
}

@test "prefetch off on x86 says not supported here" {
	run "$RUN" --prefetch off -- -s 1000
	assert_success
	assert_output --partial 'prefetch: skipped: not supported here'
}

@test "prefetch off and SMT through ppc64_cpu are set and restored" {
	state=$BATS_TEST_TMPDIR/ppc
	echo 'smt=8 dscr=0' >"$state"
	make_fake_tool "$BATS_TEST_TMPDIR/bin" ppc64_cpu "
. <(tr ' ' '\\n' <'$state')
case \"\$1\" in
--smt) echo \"SMT=\$smt\" ;;
--dscr) echo \"DSCR is \$dscr\" ;;
--smt=*) smt=\${1#--smt=}; [ \"\$smt\" = off ] && smt=1; echo \"smt=\$smt dscr=\$dscr\" >'$state' ;;
--dscr=*) dscr=\${1#--dscr=}; echo \"smt=\$smt dscr=\$dscr\" >'$state' ;;
esac"
	export FAKE_BENCH_SLEEP=0
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$RUN" --prefetch off --smt off -- -s 1000
	assert_success
	run jq -r '.settings[]' "$(result_dir)/step-001.json"
	assert_line 'prefetch: off via ppc64_cpu --dscr=1 (was 0)'
	assert_line 'smt: off via ppc64_cpu (was 8)'
	[ "$(cat "$state")" = 'smt=8 dscr=0' ]
}

@test "without numactl, cpupower and hugeadm: clear skips, the run goes on" {
	p=$(trimmed_path numactl cpupower hugeadm)
	PATH=$p run "$RUN" --numa '--membind 0' -- -s 1000
	assert_success
	assert_output --partial 'numa: skipped: numactl not installed'
	d=$(result_dir)
	grep -q 'cpupower not installed: skipped' "$d/provenance.txt"
	grep -q 'numactl not installed: skipped' "$d/provenance.txt"
	grep -q 'hugeadm not installed: skipped' "$d/provenance.txt"
	run jq -r '.command | join(" ")' "$d/step-001.json"
	refute_output --partial numactl
}

@test "without numactl and --required: refused" {
	p=$(trimmed_path numactl)
	PATH=$p run "$RUN" --required --numa '--membind 0'
	assert_failure 2
	assert_output --partial 'numactl not installed'
}

@test "--numa runs bench under numactl and records the policy" {
	need numactl
	run "$RUN" --numa '--physcpubind 0 --membind 0' -- -s 1000
	assert_success
	d=$(result_dir)
	run jq -r '.command | join(" ")' "$d/step-001.json"
	assert_output --partial 'numactl --physcpubind 0 --membind 0'
	# the command as bench was started, one element an argument, nothing
	# added at the end
	run jq -r '.command | (map(select(test("^(env|-s|1000|--json-file)$"))) | join(";")), (.[-1] | test("/[.]step-001[.]bench[.]json[.]tmp[.][0-9]+$"))' "$d/step-001.json"
	assert_output "$(printf 'env;-s;1000;--json-file\ntrue')"
	grep -q 'numa: numactl --physcpubind 0 --membind 0 (policy: bind' "$d/summary.md"
}

@test "theoretical peak from the options, and each rate as a percentage of it" {
	run "$RUN" --peak-mts 1600 --channels 4 --sockets 2 -- -s 1000 -t 2
	assert_success
	assert_output --partial '1600 MT/s x 64 bit / 8 x 4 channels x 2 sockets (given) = 102400.0 MB/s'
	assert_output --partial '| Copy MB/s (% peak) |'
	# The fake bench reports 2001.5 MB/s: 2% of 102400.
	assert_output --partial '| 2001.5 (2%) |'
}

@test "theoretical peak from dmidecode when root" {
	make_fake_tool "$BATS_TEST_TMPDIR/bin" dmidecode '
for i in 1 2 3 4; do printf "Memory Device\n\tData Width: 64 bits\n\tSize: 16 GB\n\tSpeed: 5600 MT/s\n\tConfigured Memory Speed: 4800 MT/s\n"; done
printf "Memory Device\n\tSize: No Module Installed\n"'
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$RUN" -- -s 1000
	assert_success
	assert_output --partial 'channels ASSUMED one per populated DIMM (4 DIMMs over 2 sockets'
	assert_output --partial '4800 MT/s x 64 bit / 8 x 2 channels x 2 sockets (dmidecode) = 153600.0 MB/s'
}

@test "--peak-mts without --channels is bad input" {
	run "$RUN" --peak-mts 1600
	assert_failure 2
	assert_output --partial 'needs --channels'
}

@test "bad input: one line, exit 2, no results" {
	for args in '--thp sometimes' '--bogus' '--hugepages lots' '--bind 0-x' '--label a/b' '--turbo'; do
		read -r -a a <<<"$args"
		run "$RUN" "${a[@]}"
		assert_failure 2
		[ "${#lines[@]}" -eq 1 ]
	done
	[ ! -e "$MEMBENCH_RESULTS" ]
}

@test "a bench failure is reported in the row and the exit status" {
	run "$RUN" -- --bad
	assert_failure 1
	assert_output --partial 'bench error (exit 2)'
	assert_output --partial 'bench said: bench: bad option --bad'
}

@test "results are never overwritten: two runs, two directories" {
	# Both runs in the same second: the second gets a .2 suffix.
	make_fake_tool "$BATS_TEST_TMPDIR/bin" date 'echo 20260101T000000Z'
	PATH=$BATS_TEST_TMPDIR/bin:$PATH "$RUN" --label same -- -s 1000 >/dev/null 2>&1
	PATH=$BATS_TEST_TMPDIR/bin:$PATH "$RUN" --label same -- -s 1000 >/dev/null 2>&1
	run find "$MEMBENCH_RESULTS" -name summary.md
	[ "${#lines[@]}" -eq 2 ]
	for d in "$MEMBENCH_RESULTS/$(hostname -s)/20260101T000000Z-same" \
		"$MEMBENCH_RESULTS/$(hostname -s)/20260101T000000Z-same.2"; do
		for f in provenance.txt step-001.raw step-001.json summary.md; do [ -s "$d/$f" ]; done
	done
}

@test "provenance holds what the issue asks for" {
	export OMP_SCHEDULE=static
	run "$RUN" --bind spread --thp always -- -s 1000
	assert_success
	p=$(result_dir)/provenance.txt
	for s in '## command' '## membench version (git describe --always --dirty)' '## sha256 of bench.c' \
		'## build (bench info --json' '## OMP_\*, GOMP_\*, KMP_\*' '## kernel command line' \
		'## THP and huge pages before the run' '## THP and huge pages during the run' \
		'## cpufreq per CPU' '## lscpu' '## numactl -H'; do
		grep -q "^$s" "$p"
	done
	grep -q '^OMP_SCHEDULE=static' "$p"
	grep -q '^OMP_PROC_BIND=spread' "$p"
	grep -q 'BOOT_IMAGE=/vmlinuz fake' "$p"
	grep -q 'cpu3: scaling_driver=acpi-cpufreq scaling_governor=powersave' "$p"
	grep -q '"cflags": "fakecc -O3 -fopenmp"' "$p"
	grep -q -- '--bind spread --thp always -- -s 1000' "$p"
	# the summary names the build's flags and where the runtime came from
	grep -qxF -- "- bench: \`$MEMBENCH_BENCH\`, built with \`fakecc -O3 -fopenmp\`" "${p%/*}/summary.md"
	grep -qxF -- '- OpenMP runtime: libgomp (from bench info --json)' "${p%/*}/summary.md"
}

# A results file system that fills up during a step: a 64 KiB tmpfs, filled
# by a bench wrapper just before the fake bench prints.  Needs root and
# mount; skips plainly where mounting is not permitted.
unmount_full() { [ -z "${FULL_FS:-}" ] || ! mountpoint -q "$FULL_FS" || umount "$FULL_FS"; }
teardown() { unmount_full; }

@test "a full results file system: the step writer says no space left on device, exits non-zero and keeps no half-written step" {
	FULL_FS=$BATS_TEST_TMPDIR/full
	mkdir "$FULL_FS"
	mount -t tmpfs -o size=64k membench-test "$FULL_FS" 2>/dev/null || { FULL_FS=''; skip "cannot mount a tmpfs here (not root, or not permitted)"; }
	cat >"$BATS_TEST_TMPDIR/filling-bench" <<EOF2
#!/bin/bash
case "\${1:-}" in stream) head -c 1048576 /dev/zero >"$FULL_FS/filler" 2>/dev/null || true ;; esac
exec "$BATS_TEST_TMPDIR/bench" "\$@"
EOF2
	chmod +x "$BATS_TEST_TMPDIR/filling-bench"
	MEMBENCH_RESULTS=$FULL_FS/results MEMBENCH_BENCH=$BATS_TEST_TMPDIR/filling-bench run "$RUN" --label full -- -s 1000
	assert_failure 2
	assert_output --partial 'step-001.raw: no space left on device'
	refute_output --partial 'see step-001.stderr'
	d=$(find "$FULL_FS/results" -mindepth 2 -maxdepth 2 -type d | head -n1)
	[ -n "$d" ]
	run find "$d" -name 'step-*' -o -name '.*tmp*'
	assert_output ''
}

# On a full results file system bench's own stderr cannot be written there
# either: bench below fills a 16 KiB tmpfs (in a mount namespace of the
# test's own), says on stderr that its --json-file hit no space left on
# device, frees its temporary file (as bench does) and exits 2.  The
# harness must still hear it, name the full disk, and point at no
# step-NNN.stderr that was never written.
@test "a full results disk that bench's own error cannot reach either is named as such, and no missing file is pointed at" {
	need unshare
	[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
	local root=$BATS_TEST_TMPDIR/small
	mkdir "$root"
	cat >"$BATS_TEST_TMPDIR/full-bench" <<EOF2
#!/bin/bash
case "\${1:-}" in
stream)
	head -c 1048576 /dev/zero >"$root/filler" 2>/dev/null
	echo "bench: --json-file $root/x: No space left on device" >&2
	rm -f "$root/filler"
	exit 2 ;;
esac
exec "$BATS_TEST_TMPDIR/bench" "\$@"
EOF2
	chmod +x "$BATS_TEST_TMPDIR/full-bench"
	MEMBENCH_BENCH=$BATS_TEST_TMPDIR/full-bench run unshare -m sh -c \
		'mount -t tmpfs -o size=16k membench-full "$1" || exit 77
		MEMBENCH_RESULTS=$1/results "$2" --label full -- -s 1000; rc=$?
		find "$1/results" -name "step-*" -printf "kept: %p\n"; exit "$rc"' sh "$root" "$RUN"
	[ "$status" != 77 ] || skip "cannot mount a tmpfs here"
	assert_failure 2
	assert_output --regexp 'step-001[.][a-z]+: no space left on device'
	refute_output --partial 'see step-001.stderr'
	refute_output --partial 'bench error'
	# nothing of the step was kept
	refute_output --partial 'kept: '
}

@test "a bench that fails and says nothing: the warning says so and points at no stderr file" {
	cat >"$BATS_TEST_TMPDIR/mute-bench" <<EOF2
#!/bin/bash
case "\${1:-}" in stream) exit 2 ;; esac
exec "$BATS_TEST_TMPDIR/bench" "\$@"
EOF2
	chmod +x "$BATS_TEST_TMPDIR/mute-bench"
	MEMBENCH_BENCH=$BATS_TEST_TMPDIR/mute-bench run "$RUN" --label mute -- -s 1000
	assert_output --partial 'step 1: bench error (exit 2) (bench wrote nothing on stderr)'
	refute_output --partial 'see step-001.stderr'
	d=$(result_dir)
	[ -f "$d/step-001.json" ]
	[ ! -e "$d/step-001.stderr" ]
	# and one that says something is pointed at, and the file is there
	cat >"$BATS_TEST_TMPDIR/loud-bench" <<EOF2
#!/bin/bash
case "\${1:-}" in stream) echo 'bench: something bad' >&2; exit 2 ;; esac
exec "$BATS_TEST_TMPDIR/bench" "\$@"
EOF2
	chmod +x "$BATS_TEST_TMPDIR/loud-bench"
	rm -rf "$MEMBENCH_RESULTS"
	MEMBENCH_BENCH=$BATS_TEST_TMPDIR/loud-bench run "$RUN" --label loud -- -s 1000
	assert_output --partial 'step 1: bench error (exit 2) (see step-001.stderr)'
	assert_output --partial 'step 1: bench said: bench: something bad'
	d=$(result_dir)
	[ "$(cat "$d/step-001.stderr")" = 'bench: something bad' ]
}
