# shellcheck shell=bash
# Helpers for the harness tests: a fake machine (sysfs and procfs trees) and
# a fake bench that prints bench's documented output shapes, for the tests
# that check the harness's own logic.  Tests of real sweeps use ./bench.

# Load after test_helper (which brings bats-support and bats-assert).

HARNESS_REPO=$MEMBENCH_ROOT # test_helper's, without the forks

# make_fake_machine DIR: a 2-package, 2-core, 2-thread (8 CPU) box with
# cpufreq, intel_pstate, SMT control, THP and a huge page pool, CPUs numbered
# the way Linux does on Intel (siblings are N and N+4).
make_fake_machine() {
	local root=$1 cpu d
	local sys=$root/sys proc=$root/proc
	mkdir -p "$sys/devices/system/cpu/smt" "$sys/devices/system/cpu/intel_pstate" \
		"$sys/kernel/mm/transparent_hugepage" "$sys/kernel/mm/hugepages/hugepages-2048kB" \
		"$proc/sys/vm"
	echo 0-7 >"$sys/devices/system/cpu/online"
	echo on >"$sys/devices/system/cpu/smt/control"
	echo 0 >"$sys/devices/system/cpu/intel_pstate/no_turbo"
	for cpu in 0 1 2 3 4 5 6 7; do
		d=$sys/devices/system/cpu/cpu$cpu
		mkdir -p "$d/topology" "$d/cpufreq" "$d/cache/index0" "$d/cache/index2" "$d/cache/index3"
		echo $(((cpu % 4) / 2)) >"$d/topology/physical_package_id"
		echo $((cpu % 2)) >"$d/topology/core_id"
		echo "$((cpu % 4)),$((cpu % 4 + 4))" >"$d/topology/thread_siblings_list"
		echo powersave >"$d/cpufreq/scaling_governor"
		echo 'performance powersave userspace' >"$d/cpufreq/scaling_available_governors"
		echo '2600000 2000000 1200000' >"$d/cpufreq/scaling_available_frequencies"
		echo '<unsupported>' >"$d/cpufreq/scaling_setspeed"
		echo 1200000 >"$d/cpufreq/cpuinfo_min_freq"
		echo 2600000 >"$d/cpufreq/cpuinfo_max_freq"
		echo 1200000 >"$d/cpufreq/scaling_min_freq"
		echo 2600000 >"$d/cpufreq/scaling_max_freq"
		echo 1800000 >"$d/cpufreq/scaling_cur_freq"
		echo acpi-cpufreq >"$d/cpufreq/scaling_driver"
		echo 1 >"$d/cache/index0/level"; echo Data >"$d/cache/index0/type"; echo 48K >"$d/cache/index0/size"
		echo 2 >"$d/cache/index2/level"; echo Unified >"$d/cache/index2/type"; echo 1024K >"$d/cache/index2/size"
		echo 3 >"$d/cache/index3/level"; echo Unified >"$d/cache/index3/type"; echo 4M >"$d/cache/index3/size"
	done
	echo 'always [madvise] never' >"$sys/kernel/mm/transparent_hugepage/enabled"
	echo 'always defer defer+madvise [madvise] never' >"$sys/kernel/mm/transparent_hugepage/defrag"
	echo 0 >"$sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
	echo 0 >"$proc/sys/vm/nr_hugepages"
	printf 'MemTotal: 24000000 kB\nMemAvailable: 20000000 kB\nHugePages_Total: 0\nHugepagesize: 2048 kB\n' >"$proc/meminfo"
	echo 'BOOT_IMAGE=/vmlinuz fake' >"$proc/cmdline"
}

# make_fake_bench PATH: a bench stand-in.  It logs each call to
# $FAKE_BENCH_LOG, sleeps $FAKE_BENCH_SLEEP seconds, reports runtime
# $FAKE_RUNTIME, and reports thread i on CPU word i of $FAKE_CPUS (default:
# CPU i), and run.arrays as $FAKE_ARRAYS (default []).  The rates it
# prints are made up; tests only check the harness.
# Its latency JSON gives the probes' figures by the pages the buffer got
# (4 KiB; 2 MiB under THP always or --alloc thp, or from the default
# hugetlb pool; --page-size's with --alloc hugetlb): memory 90.25 ns on
# every page size, the full random chase's tail 200.5, 150.5 (THP), 145.5
# (a 2 MiB pool) or 140.5 ns (1 GiB pages), TLB levels whose reach is
# below --max, smaller_pages_behind with $FAKE_SMALLER_PAGES_BEHIND on
# huge pages, and no probes at all with $FAKE_NO_PROBES.  --page-size
# wants the fake machine's hugepages-<kB>kB directory, as a kernel that
# offers the size has.
make_fake_bench() {
	cat >"$1" <<'EOF'
#!/bin/bash
set -eu
echo "$*" >>"${FAKE_BENCH_LOG:-/dev/null}"
mode=stream
case "${1:-}" in stream|latency|all|info) mode=$1; shift ;; esac
case "${1:-}" in --version) echo 'bench fake 0'; exit 0 ;; esac
threads=2 size=1000 json=0 max_mb=64 jfile='' plan=0 alloc=mmap page_size='' page_arg=''
while [ $# -gt 0 ]; do
	case "$1" in
	--plan) plan=1 ;;
	--alloc) alloc=$2; shift ;;
	--page-size) page_arg=$2
		case "$2" in *K) page_size=$((${2%K} * 1024)) ;; *M) page_size=$((${2%M} * 1048576)) ;;
		*G) page_size=$((${2%G} * 1073741824)) ;; *) page_size=$2 ;; esac
		shift ;;
	-t|--threads) threads=$2; shift ;;
	-s|--size) size=$2; shift ;;
	--max) case "$2" in *K) max_mb=$(awk -v v="${2%K}" 'BEGIN { print v / 1024 }') ;;
		*M) max_mb=${2%M} ;; *G) max_mb=$((${2%G} * 1024)) ;; *) max_mb=$(($2 / 1048576)) ;; esac
		shift ;;
	--json) json=1 ;;
	--json-file) jfile=$2; shift ;;
	--help) if [ "$mode" = latency ] && [ -n "${FAKE_NO_LATENCY:-}" ]; then echo 'bench: unknown mode latency' >&2; exit 2; fi
		echo usage; exit 0 ;;
	--bad) echo 'bench: bad option --bad' >&2; exit 2 ;;
	esac
	shift
done
# A signalled bench stops at once, and so does its sleep: an orphaned
# sleep would hold bats' output open until it ended.
nap() {
	[ "${FAKE_BENCH_SLEEP:-0}" != 0 ] || return 0
	sleep "$FAKE_BENCH_SLEEP" &
	napper=$!
	trap 'kill "$napper" 2>/dev/null; exit 143' TERM
	trap 'kill "$napper" 2>/dev/null; exit 130' INT
	wait "$napper"
	trap - TERM INT
}
# --page-size: a size the fake machine offers, as bench refuses one the
# kernel does not.
if [ -n "$page_size" ] && [ ! -d "${MEMBENCH_SYSFS:-/sys}/kernel/mm/hugepages/hugepages-$((page_size / 1024))kB" ]; then
	echo "bench: --page-size $page_arg: the kernel offers no huge pages of that size (no hugepages-$((page_size / 1024))kB)" >&2
	exit 2
fi
# --plan: bench's key=value allocation plan, with 2 MiB huge pages (or
# --page-size's) and the fake machine's 4 MiB LLC ($FAKE_LLC_BYTES
# overrides it).
if [ "$plan" = 1 ]; then
	[ -z "${FAKE_NO_PLAN:-}" ] || { echo "bench: unknown option '--plan' (see bench --help)" >&2; exit 2; }
	llc=${FAKE_LLC_BYTES:-4194304} hp=${page_size:-2097152}
	printf 'mode=%s\nalloc=%s\nsize_auto=0\noffset=0\nstagger=0\nelem_bytes=8\n' "$mode" "$alloc"
	printf 'llc_bytes=%s\nstream_rule_elements=%s\nhuge_page_bytes=%s\n' "$llc" $((4 * llc / 8)) "$hp"
	if [ "$mode" = latency ]; then
		max=$(awk -v m="$max_mb" 'BEGIN { printf "%.0f", m * 1048576 }')
		printf 'regions=1\ntotal_bytes=%s\nlatency_max_bytes=%s\nhuge_pages=%s\n' "$max" "$max" $(((max + hp - 1) / hp))
	else
		printf 'array_size=%s\nregions=3\ntotal_bytes=%s\nhuge_pages=%s\n' "$size" $((3 * size * 8)) $((3 * ((size * 8 + hp - 1) / hp)))
	fi
	exit 0
fi
build='{"compiler":"fakecc 1","cflags":"fakecc -O3 -fopenmp","openmp":201511,"openmp_runtime":"'"${FAKE_RUNTIME:-libgomp}"'","stream_type":"double"}'
if [ "$mode" = info ]; then
	echo '{"schema":"membench/1","mode":"info","build":'"$build"',"system":{"caches":[{"name":"L2","level":2,"type":"Unified","bytes":1048576},{"name":"L3","level":3,"type":"Unified","bytes":4194304}]}}'
	exit 0
fi
if [ "$mode" = latency ]; then
	[ -z "${FAKE_NO_LATENCY:-}" ] || { echo 'bench: unknown mode latency' >&2; exit 2; }
	nap
	thp=$(cat "${MEMBENCH_SYSFS:-/sys}/kernel/mm/transparent_hugepage/enabled")
	case "$thp" in always|*'[always]'*) mem=80 ;; *) mem=100 ;; esac
	# A 4 MiB cache in front of memory, half-octave steps from 4 KiB to --max.
	echo '"stride=64'
	awk -v max="$max_mb" -v mem="$mem" 'BEGIN { c = 4
		for (e = -16; 2 ^ (e / 2) <= max; e++) { m = 2 ^ (e / 2)
			l = (m <= c) ? 10 : 10 + (1 - c / m) * (mem - 10); printf "%.5f %.3f\n", m, l } }'
	echo
	echo 'summary: fake'
	[ -n "$jfile" ] || exit 0
	page=4096 tail=200.5
	case "$alloc" in
	hugetlb) page=${page_size:-2097152} tail=145.5; [ "$page" != 1073741824 ] || tail=140.5 ;;
	thp) case "$thp" in never|*'[never]'*) ;; *) page=2097152 tail=150.5 ;; esac ;;
	*) [ "$mem" = 100 ] || { page=2097152 tail=150.5; } ;;
	esac
	awk -v max="$max_mb" -v page="$page" -v tail="$tail" -v fit="${FAKE_LLC_FIT:-4194304}" \
		-v behind="${FAKE_SMALLER_PAGES_BEHIND:-}" -v noprobes="${FAKE_NO_PROBES:-}" 'BEGIN {
		bytes = max * 1048576; mem = 90.25
		tl = ""; n = split(page == 4096 ? "64 2048" : (page == 2097152 ? "2048" : ""), e, " ")
		for (i = 1; i <= n; i++) if (e[i] * page < bytes)
			tl = tl (tl == "" ? "" : ",") sprintf("{\"entries\":%d,\"page_bytes\":%d,\"reach_bytes\":%d,\"miss_ns\":%d,\"confidence\":1,\"certain\":true}", e[i], page, e[i] * page, 10 * i)
		seen = bytes / page >= 128 ? sprintf("{\"page_bytes\":%d,\"pages\":%d,\"bytes\":%d,\"not_measured\":null}", page, bytes / page, bytes) \
			: sprintf("{\"page_bytes\":%d,\"pages\":null,\"bytes\":null,\"not_measured\":\"--max holds %d pages of %d bytes, and the line-a-page chase needs 128\"}", page, int((bytes + page - 1) / page), page)
		sb = (behind != "" && page > 4096) ? "{\"ns\":35.5,\"tlb_hit_ns\":1.5,\"reach_bytes\":8388608,\"from_bytes\":4194304,\"to_bytes\":8388608,\"points\":3}" : "null"
		mm = sprintf("{\"reached\":true,\"ns\":%s,\"cycles\":null,\"tlb_local_tail_ns\":%s,\"tail_ns\":%s,\"tlb_ns\":%s,\"smaller_pages_behind\":%s}", mem, mem, tail, tail - mem, sb)
		if (noprobes != "") { mm = "null"; seen = "null"; tl = "null" } else tl = "[" tl "]"
		printf "{\"page_kib\":%d,\"summary\":{\"stride\":64,\"llc_fit_bytes\":%s,\"tail\":{\"ns\":%s,\"cycles\":null,\"bytes\":%d,\"from_bytes\":%d,\"points\":3},\"memory\":%s,\"tlbs\":%s,\"tlbs_seen\":%s,\"not_measured_apart\":%s}}\n",
			page / 1024, fit, tail, bytes, bytes * 0.84, mm, tl, seen, noprobes != "" ? "\"fake: the probes did not run\"" : "null" }' |
		jq -c --argjson build "$build" --arg alloc "$alloc" '{schema: "membench/1", mode: "latency", build: $build,
			run: {alloc: $alloc, buffer: {page_kib: .page_kib, huge_pct: (if .page_kib > 4 then 100 else 0 end)}},
			curve: [], summary: [.summary]}' >"$jfile"
	exit 0
fi
nap
read -r -a cpus <<<"${FAKE_CPUS:-}"
t=''
for ((i = 0; i < threads; i++)); do
	t="$t${t:+,}{\"thread\":$i,\"cpu\":${cpus[$i]:-$i}}"
done
r=''
for k in Copy Scale Add Triad; do
	r="$r${r:+,}{\"kernel\":\"$k\",\"bytes\":$((size * 16)),\"best_mbs\":$((1000 * threads + size / 1000)).5,\"avg_s\":0.1,\"min_s\":0.1,\"max_s\":0.1,\"median_s\":0.1}"
done
doc='{"schema":"membench/1","mode":"stream","build":'"$build"',"system":{},"run":{"array_size":'"$size"',"threads_requested":'"$threads"',"threads":['"$t"'],"arrays":'"${FAKE_ARRAYS:-[]}"'},"results":['"$r"'],"validation":{"ok":true},"warnings":[]}'
if [ -n "$jfile" ]; then
	echo 'fake STREAM text'
	echo "$doc" >"$jfile"
else
	echo "$doc"
fi
EOF
	chmod +x "$1"
}

# harness_setup: a fake machine and bench in the test's own directory, and
# the environment that points the harness at them.
harness_setup() {
	FAKE=$BATS_TEST_TMPDIR/machine
	make_fake_machine "$FAKE"
	make_fake_bench "$BATS_TEST_TMPDIR/bench"
	export MEMBENCH_SYSFS=$FAKE/sys MEMBENCH_PROCFS=$FAKE/proc
	export MEMBENCH_BENCH=$BATS_TEST_TMPDIR/bench
	export MEMBENCH_RESULTS=$BATS_TEST_TMPDIR/results
	export MEMBENCH_UID=0
	export FAKE_BENCH_LOG=$BATS_TEST_TMPDIR/bench.log
	unset OMP_PROC_BIND OMP_PLACES GOMP_CPU_AFFINITY KMP_AFFINITY OMP_NUM_THREADS
}

# tree_digest: every file of the fake machine with its content.
tree_digest() { (cd "$FAKE" && find . -type f | sort | xargs sha256sum); }

# the one results directory a run made
result_dir() { find "$MEMBENCH_RESULTS" -mindepth 2 -maxdepth 2 -type d | head -n1; }

# trimmed_path NAME...: a PATH holding every command of this machine except
# NAME..., to show what happens where they are not installed.
trimmed_path() {
	local bin=$BATS_TEST_TMPDIR/trimmed-bin d n hide=()
	mkdir -p "$bin"
	for n in "$@"; do hide+=(-e "$n"); done
	# one ln per directory, earlier directories first: ln leaves a name
	# that an earlier directory already linked (and says so, unheard)
	for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
		[ -d "$d" ] || continue
		(cd "$d" && ls -A) | { if [ $# -gt 0 ]; then grep -vxF "${hide[@]}"; else cat; fi; } |
			sed "s|^|$d/|" | xargs -r -d '\n' ln -s -t "$bin" 2>/dev/null || true
	done
	printf '%s' "$bin"
}

# A knob writer that behaves like a kernel short of memory: nr_hugepages
# never goes above $FAKE_POOL_LIMIT.
make_short_pool_writer() {
	cat >"$1" <<'EOF'
#!/bin/bash
value=$2
case "$1" in
*/nr_hugepages) [ "$value" -le "$FAKE_POOL_LIMIT" ] || value=$FAKE_POOL_LIMIT ;;
esac
printf '%s\n' "$value" >"$1"
EOF
	chmod +x "$1"
}

# make_fake_tool DIR NAME SCRIPT: put a stand-in command on a PATH directory.
make_fake_tool() {
	mkdir -p "$1"
	printf '#!/bin/bash\n%s\n' "$3" >"$1/$2"
	chmod +x "$1/$2"
}

# real_bench: the ./bench make check built, or skip.
real_bench() {
	[ -x "$HARNESS_REPO/bench" ] || skip "no ./bench (run make first)"
	printf '%s' "$HARNESS_REPO/bench"
}
