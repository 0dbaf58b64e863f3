#!/usr/bin/env bats
# bench.c cross-built for aarch64 and ppc64le (static, Debian's cross gcc)
# and run under qemu-user: stream validates and latency completes.
# The builds are warning-free under -Wall -Wextra -pedantic -Werror, as on
# x86 (they once warned that nt_fence was defined but not used).

load test_helper
load consumers_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# The portability table's targets (docs/bench.md): i686, armhf, s390x
# (big-endian), riscv64, musl and windows (mingw-w64, under wine).  Each
# is built once per file run, static and warning-free, into
# $BATS_FILE_TMPDIR, and its small runs' JSON kept there for the
# comparison across targets.

# port_bin TARGET: build TARGET's bench unless this file run did; set
# $bin and $runner (what runs it here: qemu, wine, or nothing).  The
# build's warnings fail the caller.
port_bin() {
	local cc qemu="" flags=()
	case "$1" in
	i686) cc=i686-linux-gnu-gcc ;;
	armhf) cc=arm-linux-gnueabihf-gcc qemu=qemu-arm-static ;;
	s390x) cc=s390x-linux-gnu-gcc qemu=qemu-s390x-static ;;
	riscv64) cc=riscv64-linux-gnu-gcc qemu=qemu-riscv64-static ;;
	musl) cc=musl-gcc ;;
	windows) cc=x86_64-w64-mingw32-gcc flags=(-fopenmp) ;;
	esac
	need "$cc"
	bin="$BATS_FILE_TMPDIR/bench-$1"
	[ "$1" != windows ] || bin="$bin.exe"
	if [ ! -e "$bin.log" ]; then
		"$cc" -std=c99 -O2 -Wall -Wextra -pedantic -static "${flags[@]}" \
			"$MEMBENCH_ROOT/bench.c" -o "$bin" >"$bin.log" 2>&1 ||
			echo "(the build failed)" >>"$bin.log"
	fi
	[ ! -s "$bin.log" ] || {
		echo "$cc warned or failed:"
		cat "$bin.log"
		return 1
	}
	runner=()
	case "$1" in
	i686)
		# natively where the kernel runs 32-bit x86, else under qemu
		"$bin" --version >/dev/null 2>&1 || {
			need qemu-i386-static
			runner=(qemu-i386-static)
		}
		;;
	windows)
		wine_start
		runner=(wine_run)
		;;
	*) [ -z "$qemu" ] || { need "$qemu"; runner=("$qemu"); } ;;
	esac
}

# port_runs TARGET: TARGET validates STREAM at 200000 elements and
# prints a latency curve up to 1 MiB; STREAM's text and both runs' JSON
# are left in $BATS_FILE_TMPDIR.
port_runs() {
	local cr=$'\r'
	port_bin "$1"
	run "${runner[@]}" "$bin" stream -s 200000 -n 3 --json-file "$(port_path "$BATS_FILE_TMPDIR/$1-stream.json")"
	assert_success
	assert_line --regexp '^Solution Validates'
	printf '%s\n' "$output" >"$BATS_FILE_TMPDIR/$1-stream.txt"
	run "${runner[@]}" "$bin" latency --max 1M --steps-per-octave 1 --json-file "$(port_path "$BATS_FILE_TMPDIR/$1-latency.json")"
	assert_success
	# lat_mem_rd's curve: 512 bytes to 1 MiB, a size and a latency a
	# line (ended \r\n on Windows)
	assert_line --regexp "^0\\.00049 [0-9]+\\.[0-9]+$cr?\$"
	assert_line --regexp "^1\\.00000 [0-9]+\\.[0-9]+$cr?\$"
}

# port_path PATH: PATH as TARGET's bench opens it (wine reaches the
# Linux tree through its Z: drive).
port_path() {
	if [ "${#runner[@]}" -gt 0 ] && [ "${runner[0]}" = wine_run ]; then
		printf 'Z:%s\n' "${1//\//\\}"
	else
		printf '%s\n' "$1"
	fi
}

# The JSON's shape: every path, array indices as #, warnings left out
# (a slow emulator warns about its clock where a machine need not).
json_shape='[paths | map(if type == "number" then "#" else . end) | join(".")
	| select(startswith("warnings") | not)] | unique'

# wine_start: wine in a prefix of this file run's own; its server stays
# up until teardown_file (each start of a cold wine costs seconds).
wine_start() {
	need wine
	export WINEPREFIX="$BATS_FILE_TMPDIR/wine" WINEDEBUG=-all
	[ ! -d "$WINEPREFIX" ] || return 0
	mkdir "$WINEPREFIX"
	wineserver -p 600 3>&-
	wineboot -i >/dev/null 2>&1 3>&-
}

# wine_run ARGS: wine, without bats' descriptor 3: the server and the
# services wine starts outlive the command, and bats waits for every
# holder of that descriptor before it ends a test.
wine_run() {
	wine "$@" 3>&-
}

# wine_on CPUS ARGS: the same, on those CPUs only (taskset).
wine_on() {
	local cpus="$1"
	shift
	taskset -c "$cpus" wine "$@" 3>&-
}

teardown_file() {
	[ ! -d "$BATS_FILE_TMPDIR/wine" ] ||
		WINEPREFIX="$BATS_FILE_TMPDIR/wine" wineserver -k 2>/dev/null || :
}

@test "i686: static, warning-free, validates STREAM and prints a latency curve" {
	port_runs i686
}

@test "armhf: static, warning-free, validates STREAM and prints a latency curve under qemu" {
	port_runs armhf
}

@test "s390x (big-endian): static, warning-free, validates STREAM and prints a latency curve under qemu" {
	port_runs s390x
}

@test "riscv64: static, warning-free, validates STREAM and prints a latency curve under qemu" {
	port_runs riscv64
}

@test "musl: static, warning-free, validates STREAM and prints a latency curve" {
	port_runs musl
}

@test "windows (mingw-w64, under wine): warning-free, validates STREAM, prints a latency curve, and says once what Windows cannot give" {
	port_runs windows
	# no smaps: the chase's page size is not known, nor claimed
	assert_line --partial ', 1 MiB on pages of unknown size (no smaps), chase on CPU '
	f="$BATS_FILE_TMPDIR/windows-stream.txt"
	# Windows ends lines with \r\n.  A consumer on Windows reads them in
	# text mode (as \n); each rule reads the rates of the raw bytes too.
	grep -q $'\r$' "$f"
	tr -d '\r' <"$f" >"$f.lf"
	every_consumer_reads_one_rate "$f.lf"
	for k in $KERNELS; do
		v=$(grep_awk "$k" <"$f.lf")
		for rule in pts_value regex_anchored regex_unanchored pkb_value grep_awk; do
			[ "$("$rule" "$k" <"$f")" = "$v" ] || {
				echo "$rule $k reads '$("$rule" "$k" <"$f")' from the CRLF text, not '$v'"
				return 1
			}
		done
	done
	[ "$(grep -c '^Not on Windows: smaps' "$f")" = 1 ]
	grep -q '^Host: .*, Windows [0-9.]* x86_64, ' "$f"
	run jq -r '[.validation.ok, (.system.kernel | startswith("Windows ")), .system.thp,
		(.system.os_unavailable | contains("smaps") and contains("hugetlbfs")),
		.system.hugepages.total, .build.streaming_stores_isa] | @tsv' "$BATS_FILE_TMPDIR/windows-stream.json"
	assert_output "$(printf 'true\ttrue\tunavailable\ttrue\t-1\tsse2')"
	run jq -r '.system.os_unavailable | contains("smaps")' "$BATS_FILE_TMPDIR/windows-latency.json"
	assert_output true
	# the CPUs the process may use, from GetProcessAffinityMask
	need taskset
	run wine_on 0 "$bin" info --json
	assert_success
	run jq -r '.process.allowed_cpus' <<<"${output//$'\r'/}"
	assert_output 0
	# OpenMP's threads pinned with SetThreadAffinityMask, each where
	# GetCurrentProcessorNumber finds it
	if [ "$(nproc)" -ge 2 ]; then
		OMP_NUM_THREADS=2 run "${runner[@]}" "$bin" stream -s 200000 -n 3 --json
		assert_success
		run jq -c '[.validation.ok, .run.binding, [.run.threads[].cpu]]' <<<"${output//$'\r'/}"
		assert_output '[true,"auto (bench pinned thread i to the i-th allowed CPU)",[0,1]]'
		# bench c2c: each pair's threads pinned by SetThreadAffinityMask
		# and found there; Windows gives no topology, so the relation is
		# unknown, and said so
		run wine_on 0,1 "$bin" c2c --json
		assert_success
		run jq -c '[.build.modes[-1], (.c2c.pairs[] | .on_cpus, .a_ran_on, .b_ran_on, .relation, .answered == .round_trips)]' <<<"${output//$'\r'/}"
		assert_output '["c2c",true,[0,0],[1,1],"unknown",true]'
	fi
	# large pages: used where the account holds the privilege, else
	# refused in one line that names it (wine's accounts do not)
	run --separate-stderr "${runner[@]}" "$bin" stream -s 20000 -n 3 --alloc hugetlb
	if [ "$status" = 0 ]; then
		assert_line --regexp '^Solution Validates'
	else
		assert_failure 2
		assert_output ""
		[[ "$stderr" == *"bench: --alloc hugetlb: "*SeLockMemoryPrivilege* ]]
	fi
	run --separate-stderr "${runner[@]}" "$bin" stream -s 20000 -n 3 --alloc shm
	assert_failure 2
	[[ "$stderr" == *"bench: --alloc shm: Windows has no System V shared memory"* ]]
	# no mbind or move_pages: bench nodes is refused in one line
	run --separate-stderr "${runner[@]}" "$bin" nodes --buffer 4M
	assert_failure 2
	assert_output ""
	[ "${stderr%$'\r'}" = "bench: mode nodes: this build cannot bind memory to a node (that needs Linux's mbind(2) and move_pages(2))" ]
	# the Linux targets state nothing of the kind
	run jq -r '.system.os_unavailable' "$BATS_FILE_TMPDIR/musl-stream.json"
	[ ! -s "$BATS_FILE_TMPDIR/musl-stream.json" ] || assert_output null
}

@test "32-bit builds refuse what their address space cannot map, in one line, before allocating" {
	for t in i686 armhf; do
		port_bin "$t"
		# three arrays of 1.6 GB: 4.8 GB, beyond any 32-bit process
		run --separate-stderr "${runner[@]}" "$bin" stream -s 200000000 -n 3
		assert_failure 2
		assert_output ""
		[ "$stderr" = "bench: --size: 3 arrays of 200000000 elements need 4577.6 MiB, more than this 32-bit build can map (2048.0 MiB)" ]
		run --separate-stderr "${runner[@]}" "$bin" latency --max 3G
		assert_failure 2
		assert_output ""
		[ "$stderr" = "bench: --max 3 GiB is more than this 32-bit build can map (2.0 GiB)" ]
	done
}

@test "every target's JSON has the host's shape, validation and latency sizes (byte order and word size change nothing)" {
	local t
	run "$BENCH" stream -s 200000 -n 3 --json
	assert_success
	stream_host=$output
	run "$BENCH" latency --max 1M --steps-per-octave 1 --json
	assert_success
	latency_host=$output
	for t in i686 armhf s390x riscv64 musl; do
		[ -s "$BATS_FILE_TMPDIR/$t-latency.json" ] || port_runs "$t"
		run jq -n --argjson host "$stream_host" --slurpfile t "$BATS_FILE_TMPDIR/$t-stream.json" \
			"(\$host | $json_shape) == (\$t[0] | $json_shape) and
			 \$host.validation == \$t[0].validation and \$t[0].validation.ok"
		assert_output true
		run jq -n --argjson host "$latency_host" --slurpfile t "$BATS_FILE_TMPDIR/$t-latency.json" \
			"(\$host | $json_shape) == (\$t[0] | $json_shape) and
			 [\$host.curve[].bytes] == [\$t[0].curve[].bytes] and
			 \$host.run.strides == \$t[0].run.strides"
		assert_output true
	done
}

# cross_build TRIPLET QEMU_ARCH: bench.c built static at -O2 for TRIPLET,
# warning-free (-Werror), in $bin; built once in a make check run
# (build_variant's cache) for every test here that runs that target.
cross_build() {
	need "$1-gcc"
	need "qemu-$2-static"
	bin=$(build_variant "bench-$2" "$1-gcc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror -static \
		2>"$BATS_TEST_TMPDIR/cc.err") || fail "$1-gcc failed: $(cat "$BATS_TEST_TMPDIR/cc.err")"
	# nothing from the compiler or the linker (the test that builds it
	# first sees it)
	[ ! -s "$BATS_TEST_TMPDIR/cc.err" ] || fail "$1-gcc warned: $(cat "$BATS_TEST_TMPDIR/cc.err")"
}

# cross_check TRIPLET QEMU_ARCH: build and run bench.c for that target.
cross_check() {
	local qemu="qemu-$2-static" bin
	cross_build "$1" "$2"
	run "$qemu" "$bin" stream -s 20000 -n 3
	assert_success
	assert_line --regexp '^Solution Validates'
	run "$qemu" "$bin" latency --max 64K --steps-per-octave 1
	assert_success
	assert_output --regexp '[0-9]'
}

@test "aarch64: static cross build runs under qemu and validates" {
	cross_check aarch64-linux-gnu aarch64
}

@test "ppc64le: static cross build runs under qemu and validates" {
	cross_check powerpc64le-linux-gnu ppc64le
}

# cross_bin TRIPLET QEMU_ARCH: a static build for that target, or skip.
# run_target ARGS runs the last one under its qemu.
cross_bin() {
	qemu="qemu-$2-static"
	cross_build "$1" "$2"
}

run_target() {
	"$qemu" "$@"
}

# on_cpu CPU ARGS: the same under qemu's model of CPU (QEMU_CPU).
on_cpu() {
	env QEMU_CPU="$1" "$qemu" "${@:2}"
}

# The data cache line the OS (here qemu-user, standing in for the kernel)
# passes the target in AT_DCACHEBSIZE, read by a program of our own.
auxv_line() {
	local src="$BATS_TEST_TMPDIR/auxv.c"
	cat >"$src" <<'C'
#include <stdio.h>
#include <sys/auxv.h>
int main(void) { printf("%lu\n", getauxval(AT_DCACHEBSIZE)); return 0; }
C
	"$1-gcc" -static -O2 "$src" -o "$BATS_TEST_TMPDIR/auxv-$2" &&
		"qemu-$2-static" "$BATS_TEST_TMPDIR/auxv-$2"
}

# Under qemu-user the target reads the host's sysfs, as bench on the
# host does: each test runs the target with a fake sysfs that reports
# caches and with one that reports none, whatever this host's says.  Their
# latency runs take a point an octave (a quarter of the default's time
# under qemu): only the line, its source and the stride are read.
@test "ppc64le: the 128-byte cache line the OS passes is reported and sets the default stride; a line sysfs reports comes first" {
	cross_bin powerpc64le-linux-gnu ppc64le
	line=$(auxv_line powerpc64le-linux-gnu ppc64le)
	[ "$line" = 128 ] || skip "qemu passes AT_DCACHEBSIZE=$line, not 128"
	fake_sysfs "$BATS_TEST_TMPDIR/none" none
	fake_sysfs "$BATS_TEST_TMPDIR/caches" caches 64
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/none" run run_target "$bin" info
	assert_success
	assert_line 'Cache line: 128 bytes (auxv AT_DCACHEBSIZE)'
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/none" run run_target "$bin" latency --max 64K --steps-per-octave 1 --json
	assert_success
	run jq -r '[.system.cache_line, .system.cache_line_source, .run.strides[0]] | @tsv' <<<"$output"
	assert_output "$(printf '128\tauxv AT_DCACHEBSIZE\t128')"
	# sysfs's line is the L1d's own; the auxv value is the fallback
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/caches" run run_target "$bin" info
	assert_success
	assert_line 'Cache line: 64 bytes (sysfs)'
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/caches" run run_target "$bin" latency --max 64K --steps-per-octave 1 --json
	assert_success
	run jq -r '[.system.cache_line, .system.cache_line_source, .run.strides[0]] | @tsv' <<<"$output"
	assert_output "$(printf '64\tsysfs\t64')"
}

@test "aarch64: where the OS passes no cache line, none is invented; a line sysfs reports is used" {
	cross_bin aarch64-linux-gnu aarch64
	line=$(auxv_line aarch64-linux-gnu aarch64)
	[ "$line" = 0 ] || skip "qemu passes AT_DCACHEBSIZE=$line here"
	fake_sysfs "$BATS_TEST_TMPDIR/none" none
	fake_sysfs "$BATS_TEST_TMPDIR/caches" caches 128
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/none" run run_target "$bin" info
	assert_success
	assert_line 'Cache line: unknown (the OS reports none)'
	assert_line 'Caches (OS-reported): none'
	# no line: the default stride is 64, said as a default
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/none" run run_target "$bin" latency --max 64K --steps-per-octave 1 --json
	assert_success
	run jq -c '[.system.cache_line, .system.cache_line_source, .run.strides[0]]' <<<"$output"
	assert_output '[null,null,64]'
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/caches" run run_target "$bin" info
	assert_success
	assert_line 'Cache line: 128 bytes (sysfs)'
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/caches" run run_target "$bin" latency --max 64K --steps-per-octave 1 --json
	assert_success
	run jq -r '[.system.cache_line, .system.cache_line_source, .run.strides[0]] | @tsv' <<<"$output"
	assert_output "$(printf '128\tsysfs\t128')"
}

@test "cross targets without streaming stores say --stores nt fell back to plain stores" {
	# the aarch64 CPU without SVE: with it, SVE's streaming stores serve
	for t in aarch64-linux-gnu:aarch64 powerpc64le-linux-gnu:ppc64le; do
		cross_bin "${t%%:*}" "${t#*:}"
		cpu=max
		[ "${t#*:}" != aarch64 ] || cpu=cortex-a57
		[ "${t#*:}" != ppc64le ] || cpu=power9
		run on_cpu "$cpu" "$bin" stream -s 20000 -n 3 --stores nt --json
		assert_success
		run jq -r '[.build.streaming_stores_isa, .run.stores, .run.stores_fallback] | @tsv' <<<"$output"
		assert_output "$(printf 'none\tplain\tplain stores (this target has no streaming store)')"
		run on_cpu "$cpu" "$bin" stream -s 20000 -n 3 --stores auto
		assert_success
		assert_line 'Stores fallback: plain stores (this target has no streaming store)'
		assert_line --partial 'WARNING: --stores auto: streaming stores fall back to plain stores'
	done
}

@test "the compiler's scalar streaming store says it is a fallback; vector ones do not" {
	need clang
	# no vector type for long double: bench uses clang's builtin
	bin=$(build_variant longdouble clang -O2 '-DSTREAM_TYPE=long double' -DBENCH_TYPEID=0)
	run "$bin" -s 20000 -n 3 --stores nt --json
	assert_success
	run jq -r '[.build.streaming_stores_isa, .run.stores, (.run.stores_fallback | startswith("the compiler'"'"'s __builtin_nontemporal_store"))] | @tsv' <<<"$output"
	assert_output "$(printf 'builtin\tnt\ttrue')"
	run "$BENCH" -s 20000 -n 3 --stores nt --json
	assert_success
	run jq -r '[.build.streaming_stores_isa != "none", .build.streaming_stores_isa != "builtin", .run.stores_fallback == null] | @tsv' <<<"$output"
	[ "$output" = "$(printf 'true\ttrue\ttrue')" ] ||
		[[ "$output" == false* ]] # a host build without vector streaming stores
	run "$BENCH" -s 20000 -n 3 --stores plain --json
	run jq -r '.run.stores_fallback' <<<"$output"
	assert_output null
}

# SVE on aarch64.  qemu-user emulates SVE at any vector length the
# architecture allows (QEMU_CPU=max,sve-default-vector-length=BYTES),
# and cortex-a57 is a CPU without it.

# sve_bin NAME CFLAGS...: an aarch64 build, or skip.
# (-O2 alone is cross_build's aarch64 bench, shared with the tests above)
sve_bin() {
	local name="$1"
	shift
	qemu="qemu-aarch64-static"
	if [ "$*" = -O2 ]; then
		cross_build aarch64-linux-gnu aarch64
		return
	fi
	need aarch64-linux-gnu-gcc
	need qemu-aarch64-static
	bin=$(build_variant "bench-sve-$name" aarch64-linux-gnu-gcc -std=c99 -static "$@") || return 1
}

@test "aarch64 with SVE: every vector length dispatches to SVE (streaming stores, or --isa auto), says its length, and validates" {
	sve_bin double -O2
	double=$bin
	sve_bin float -O3 -fopenmp -DSTREAM_TYPE=float
	float=$bin
	export OMP_NUM_THREADS=3
	# 384 and 1152 bits: SVE lengths need not be powers of two
	for bytes in 16 48 64 144 256; do
		cpu="max,sve-default-vector-length=$bytes"
		for b in "$double" "$float"; do
			for stores in plain nt; do
				# plain stores run the build's own code unless --isa
				# says otherwise; streaming stores dispatch by themselves
				isa=()
				[ "$stores" = nt ] || isa=(--isa auto)
				# 20011 elements: a tail after the last whole vector in
				# every thread's share
				run on_cpu "$cpu" "$b" -s 20011 -n 3 --kernels all --stores "$stores" "${isa[@]}" --json
				assert_success
				run jq -e --argjson bits $((bytes * 8)) --arg st "$stores" '
					.validation.ok == true and .run.isa == "sve" and
					.run.isa_vector_bits == $bits and .run.stores == $st and
					.run.stores_fallback == null and
					(.run.isa_available | index("sve") != null) and
					(.results | length) == 10 and
					(.results | all(.isa == "sve"))' <<<"$output"
				assert_success
			done
		done
		run on_cpu "$cpu" "$double" info
		assert_success
		assert_line "Instruction sets: generic sve (run-time dispatch; sve, the widest, has $((bytes * 8))-bit vectors)"
		run on_cpu "$cpu" "$double" -s 20011 -n 3 --isa auto
		assert_success
		assert_line "Instruction set: sve ($((bytes * 8))-bit vectors; the widest this CPU has, chosen at run time; this CPU: sve)"
		assert_line --regexp '^Solution Validates'
		run on_cpu "$cpu" "$double" -s 20011 -n 3
		assert_success
		assert_line "Instruction set: generic (this build's own code, as STREAM's; --isa auto dispatches; this CPU: sve)"
		assert_line --regexp '^Solution Validates'
	done
}

@test "aarch64 without SVE runs its own code and refuses sve; --stores auto weighs SVE where it exists" {
	sve_bin double -O2
	run on_cpu cortex-a57 "$bin" -s 20011 -n 3 --kernels all --json
	assert_success
	run jq -r '[.validation.ok, .run.isa, (.run.isa_vector_bits | tostring), (.run.isa_available | join(","))] | @tsv' <<<"$output"
	assert_output "$(printf 'true\tgeneric\tnull\tgeneric')"
	run on_cpu cortex-a57 "$bin" info --json
	assert_success
	run jq -c '.process | [.isa_available, .isa_dispatch, .isa_vector_bits]' <<<"$output"
	assert_output '[["generic"],true,null]'
	run --separate-stderr on_cpu cortex-a57 "$bin" -s 20011 -n 3 --isa sve
	assert_failure 2
	[ "$stderr" = "bench: --isa: this CPU lacks sve (it has: generic only)" ]
	[ -z "$output" ]
	# the CPU has SVE, but MEMBENCH_CPU_LACKS hides it
	run env MEMBENCH_CPU_LACKS=sve QEMU_CPU=max "$qemu" "$bin" -s 20011 -n 3 --stores nt --json
	assert_success
	run jq -r '[.validation.ok, .run.isa, .run.stores_fallback] | @tsv' <<<"$output"
	assert_output "$(printf 'true\tgeneric\tplain stores (this target has no streaming store)')"
	run on_cpu max "$bin" -s 20011 -n 3 --stores auto --kernels all --json
	assert_success
	run jq -e '.validation.ok and .run.isa == "sve" and
		([.results[] | select(.kernel == "Triad") | .calibration[] |
			.method] | sort == ["nt/sve", "plain/generic", "plain/sve"])' <<<"$output"
	assert_success
}

# The mnemonics of kernels_sve's (and sve_read's) instructions that qemu translated (and
# so ran) in one run of $bin: qemu's trace gives the addresses, objdump
# the instructions at them (qemu's own disassembler knows no SVE).
sve_ran() {
	local log="$BATS_TEST_TMPDIR/trace.log"
	rm -f "$log"
	on_cpu max -d in_asm -D "$log" "$bin" "$@" >/dev/null || return 1
	aarch64-linux-gnu-objdump -d --no-show-raw-insn "$bin" |
		awk '/^[0-9a-f]+ <.*>:$/ { fn = $2; next }
		     fn ~ /^<(kernels_sve|sve_read)[.>]/ && $1 ~ /:$/ { sub(":", "", $1); print $1, $2 }' \
			>"$BATS_TEST_TMPDIR/sve.insns"
	grep -o '^0x[0-9a-f]*' "$log" | sed 's/^0x0*//' | sort -u >"$BATS_TEST_TMPDIR/ran"
	awk 'NR == FNR { ran[$1] = 1; next } ran[$1] { print $2 }' \
		"$BATS_TEST_TMPDIR/ran" "$BATS_TEST_TMPDIR/sve.insns" | sort -u
}

@test "aarch64: a run that reports sve runs SVE's loads and stores (streaming ones for nt); generic and the plain default run none" {
	need aarch64-linux-gnu-objdump
	sve_bin noinline -O2 -fno-inline
	run sve_ran -s 2011 -n 2 --kernels copy,triad --stores nt
	assert_success
	assert_line stnt1d
	assert_line ld1d
	assert_line whilelo
	refute_line st1d
	run sve_ran -s 2011 -n 2 --kernels copy,triad --stores plain --isa auto
	assert_success
	assert_line st1d
	refute_line stnt1d
	run sve_ran -s 2011 -n 2 --kernels read --isa auto
	assert_success
	assert_line ld1d
	assert_line faddv
	# the default (plain stores, no --isa) is the build's own code, as
	# STREAM's
	run sve_ran -s 2011 -n 2 --kernels copy,triad,read
	assert_success
	assert_output ""
	run sve_ran -s 2011 -n 2 --kernels copy,triad --stores nt --isa generic
	assert_success
	assert_output ""
}
