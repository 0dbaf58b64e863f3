#!/usr/bin/env bats
# Run-time instruction-set dispatch (--isa, BENCH_ISA), --stores auto over
# every method, --best, and the per-kernel spread.  Every level the CPU
# has is forced in turn and must validate and say so; a level the CPU
# lacks (MEMBENCH_CPU_LACKS plays such a CPU) is refused, never run.

load test_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# The levels this CPU may run, as bench sees them (generic first).
cpu_levels() {
	"$BENCH" $TINY --kernels copy --json | jq -r '.run.isa_available[]'
}

@test "each level the CPU has, with plain and streaming stores, validates and reports that level" {
	levels=$(cpu_levels)
	[[ "$levels" == generic* ]]
	for isa in $levels; do
		for stores in plain nt; do
			run "$BENCH" $TINY --kernels all --isa "$isa" --stores "$stores" --json
			assert_success
			# generic keeps this build's own code; nt only where it has them
			want=$stores
			[ "$isa:$stores" != generic:nt ] ||
				want=$(jq -r 'if .build.streaming_stores_available then "nt" else "plain" end' <<<"$output")
			run jq -e --arg isa "$isa" --arg st "$want" '
				.validation.ok == true and .run.isa == $isa and
				(.results | length) == 10 and
				(.results | all(.isa == $isa and
					.method == (if .kernel == "Read" or .kernel == "Dot" then "plain" else $st end) + "/" + $isa and
					.stores == (if .kernel == "Read" or .kernel == "Dot" then "none" else $st end)))' <<<"$output"
			assert_success
			run "$BENCH" $TINY --isa "$isa" --stores "$stores"
			assert_success
			assert_line --regexp "^Instruction set: $isa \\("
			assert_line --regexp '^Solution Validates'
		done
	done
}

@test "bench info lists the levels a run may use, and the widest one's width" {
	levels=$(cpu_levels | paste -sd ' ')
	widest=$(cpu_levels | tail -n 1)
	bits=$("$BENCH" $TINY --kernels copy --isa auto --json | jq -r '.run.isa_vector_bits')
	[ "$widest" != generic ] || skip "this build or CPU has nothing above generic"
	run "$BENCH" info
	assert_success
	assert_line "Instruction sets: $levels (run-time dispatch; $widest, the widest, has $bits-bit vectors)"
	run "$BENCH" info --json
	assert_success
	run jq -r '[(.process.isa_available | join(" ")), .process.isa_dispatch, .process.isa_vector_bits] | @tsv' <<<"$output"
	assert_output "$(printf '%s\ttrue\t%s' "$levels" "$bits")"
	# what the CPU lacks is not listed
	run env MEMBENCH_CPU_LACKS=avx512,avx2,sse2 "$BENCH" info
	assert_line "Instruction sets: generic (run-time dispatch; this CPU has nothing above generic)"
}

@test "BENCH_ISA caps the level as --isa does, and --isa overrides it" {
	# streaming stores, which would run the widest level without it
	run env BENCH_ISA=generic "$BENCH" $TINY --stores nt --json
	assert_success
	run jq -r '[.run.isa, .run.isa_rule, (.results | map(.isa) | unique | join(","))] | @tsv' <<<"$output"
	assert_output "$(printf 'generic\tset\tgeneric')"
	run env BENCH_ISA=generic "$BENCH" $TINY --isa auto --json
	assert_success
	widest=$(cpu_levels | tail -n 1)
	run jq -r '[.run.isa, .run.isa_rule] | @tsv' <<<"$output"
	assert_output "$(printf '%s\tauto' "$widest")"
	# BENCH_ISA=auto is --isa auto, not "neither given": plain stores too
	# run the widest level
	run env BENCH_ISA=auto "$BENCH" $TINY --json
	assert_success
	run jq -r '[.run.isa, .run.isa_rule] | @tsv' <<<"$output"
	assert_output "$(printf '%s\tauto' "$widest")"
	# a cap also bounds what --stores auto tries
	run env BENCH_ISA=sse2 "$BENCH" $TINY --stores auto --json
	assert_success
	run jq -r '[.results[].calibration[].isa] | unique | join(",")' <<<"$output"
	assert_output "generic,sse2"
}

@test "unknown levels are refused in one line with exit 2" {
	for bad in avx9 AVX2 "" sse; do
		run --separate-stderr "$BENCH" $TINY --isa "$bad"
		assert_failure 2
		[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 1 ]
		[[ "$stderr" == "bench: --isa: "* ]]
	done
	run --separate-stderr env BENCH_ISA=neon "$BENCH" $TINY
	assert_failure 2
	[ "$stderr" = "bench: BENCH_ISA: unknown instruction set 'neon' (auto, generic, sse2, avx2, avx512, sve)" ]
	[ -z "$output" ]
}

@test "a level the CPU lacks is refused, and auto never picks or calibrates it" {
	cpu_levels | grep -qx avx2 || skip "this CPU has no AVX2"
	run --separate-stderr env MEMBENCH_CPU_LACKS=avx512,avx2 "$BENCH" $TINY --isa avx2
	assert_failure 2
	[ "$stderr" = "bench: --isa: this CPU lacks avx2 (it has: sse2)" ]
	[ -z "$output" ]
	run --separate-stderr env MEMBENCH_CPU_LACKS=avx512 BENCH_ISA=avx512 "$BENCH" $TINY
	assert_failure 2
	[[ "$stderr" == "bench: BENCH_ISA: this CPU lacks avx512"* ]]
	run env MEMBENCH_CPU_LACKS=avx512 "$BENCH" $TINY --stores auto --kernels all --json
	assert_success
	run jq -e '.run.isa == "avx2" and (.run.isa_available | index("avx512") == null) and
		.validation.ok == true and
		([.results[].calibration[].isa] | index("avx512") == null) and
		([.results[].calibration[].isa] | index("avx2") != null)' <<<"$output"
	assert_success
	run env MEMBENCH_CPU_LACKS=avx512 "$BENCH" $TINY --isa auto --json
	assert_success
	run jq -r '.run.isa' <<<"$output"
	assert_output avx2
}

@test "a build that cannot dispatch runs generic code and refuses wider levels" {
	bin=$(build_variant tcc tcc)
	run "$bin" $TINY --json
	assert_success
	run jq -r '[.run.isa, .run.isa_dispatch, .run.isa_rule, (.run.isa_available | join(","))] | @tsv' <<<"$output"
	assert_output "$(printf 'generic\tfalse\tno_dispatch\tgeneric')"
	run "$bin" $TINY --isa auto
	assert_success
	assert_line "Instruction set: generic (this build's code, no run-time dispatch; this CPU: not probed)"
	run --separate-stderr "$bin" $TINY --isa sse2
	assert_failure 2
	[[ "$stderr" == "bench: --isa: sse2 needs run-time dispatch, which this build lacks"* ]]
}

@test "an -march=native build still dispatches and validates at every level" {
	bin=$(build_variant native gcc -O2 -march=native -DSTREAMING_STORES=1)
	for isa in $(cpu_levels); do
		run "$bin" $TINY --isa "$isa" --json
		assert_success
		run jq -e --arg isa "$isa" '.validation.ok and .run.stores == "nt" and
			(.results | all(.isa == $isa))' <<<"$output"
		assert_success
	done
}

@test "float elements dispatch and validate too" {
	bin=$(build_variant float gcc -O2 -fopenmp -DSTREAM_TYPE=float)
	for isa in $(cpu_levels); do
		run "$bin" -s 100000 -n 3 --isa "$isa" --stores nt --json
		assert_success
		run jq -e '.validation.ok' <<<"$output"
		assert_success
	done
}

@test "the dispatched kernels are compiled for their ISA: zmm in avx512, ymm in avx2" {
	need objdump
	bin=$(build_variant plain gcc -O3 -fopenmp)
	dis=$(objdump -d --no-show-raw-insn "$bin")
	fn() { awk -v f="<$1>:" '$2 == f { on = 1; next } on && /^$/ { exit } on' <<<"$dis"; }
	fn kernels_avx512 | grep -q 'vmovntpd.*%zmm'
	fn kernels_avx512 | grep -q 'vmovupd.*%zmm'
	fn kernels_avx2 | grep -q 'vmovntpd.*%ymm'
	fn kernels_avx2 | grep -q 'vmovupd.*%ymm'
	n=$(fn kernels_avx2 | grep -c '%zmm' || true)
	[ "$n" -eq 0 ]
	# the build's own code (the OpenMP region, where gcc inlines the
	# generic kernels and the SSE2 ones) stays at x86-64's baseline
	own=$(fn run_kernel._omp_fn.0)
	[ -n "$own" ]
	n=$(grep -c '%ymm\|%zmm' <<<"$own" || true)
	[ "$n" -eq 0 ]
}

# isa_fn BIN FUNCTION: FUNCTION's instructions in BIN, without raw bytes.
isa_fn() {
	objdump -d --no-show-raw-insn "$1" |
		awk -v f="<$2>:" '$2 == f { on = 1; next } on && /^$/ { exit } on'
}

# The registers of width REG (zmm, ymm) that FUNCTION's code adds memory
# into and keeps (vaddpd MEM,%REGn,%REGn: a sum's accumulator), one a line.
sum_accumulators() {
	isa_fn "$1" "$2" |
		sed -n "s/.*vaddpd [^%]*(%[^)]*),%$3\([0-9]*\),%$3\([0-9]*\)\$/\1 \2/p" |
		awk '$1 == $2 { print $1 }' | sort -u
}

@test "Read's sum keeps 8 vector accumulators at each dispatched width, enough for two adds a cycle" {
	need objdump
	bin=$(build_variant plain gcc -O3 -fopenmp)
	# 4 AVX-512 accumulators left Read at half of the loads' rate in
	# the L1d (docs/measurements.md, 2026-12-07 third session)
	n=$(sum_accumulators "$bin" kernels_avx512 zmm | wc -l)
	echo "avx512 accumulators: $n"
	[ "$n" -ge 8 ]
	n=$(sum_accumulators "$bin" kernels_avx2 ymm | wc -l)
	echo "avx2 accumulators: $n"
	[ "$n" -ge 8 ]
}

# The loops of FUNCTION (a backward jump and the lines from its target
# to it) that load vectors of width REG (zmm, ymm) into registers and do
# no vector arithmetic: each one's count of loads, one a line.
bare_load_loops() {
	isa_fn "$1" "$2" | awk -v reg="%$3" '
		{ line[NR] = $0; at[$1] = NR }
		END {
			for (i = 1; i <= NR; i++) {
				if (line[i] !~ /\tj[a-z]+ +[0-9a-f]+ </)
					continue
				split(line[i], f, /[ \t]+/)
				s = at[f[4] ":"]
				if (!s || s > i)
					continue
				loads = 0
				arith = 0
				for (j = s; j <= i; j++) {
					if (line[j] ~ ("\tvmov[a-z]* +[^%]*\\(%[^)]*\\)," reg "[0-9]+$"))
						loads++
					if (line[j] ~ /\tv(add|sub|mul|fma|fnma|fms|div)/)
						arith++
				}
				if (loads && !arith)
					print loads
			}
		}' | sort -n
}

@test "Read's bare loads: a loop of 8 vector loads at each dispatched width, and no arithmetic in it" {
	need objdump
	# likwid-bench's load kernel loads 8 vectors a step and uses none;
	# a sum's adds held Read at 0.69 of it in the L1d
	# (docs/measurements.md, 2026-12-07 third session, "Bare loads")
	for bin in "$(build_variant plain gcc -O3 -fopenmp)" \
		"$(build_variant clang clang -O3 -fopenmp)"; do
		n=$(bare_load_loops "$bin" kernels_avx512 zmm | tail -n 1)
		echo "$bin avx512: ${n:-no} loads"
		[ "${n:-0}" -eq 8 ]
		n=$(bare_load_loops "$bin" kernels_avx2 ymm | tail -n 1)
		echo "$bin avx2: ${n:-no} loads"
		[ "${n:-0}" -eq 8 ]
	done
}

@test "--best --kernels read: the bare loads are a candidate at each level, the fastest is named, and a sum validates them" {
	run "$BENCH" --best --kernels read -s 100000 -n 3 --json
	assert_success
	levels=$(cpu_levels)
	want=$(for l in $levels; do [ "$l" = sse2 ] || echo "plain/$l"; done
		for l in $levels; do [ "$l" = generic ] || echo "load/$l"; done)
	got=$(jq -r '.best.results[0].calibration[].method' <<<"$output")
	[ "$got" = "$want" ] || { echo "candidates: $got"; return 1; }
	jq -e '.best.validated and .best.results[0].stores == "none" and
	  (.best.results[0] | (.method | test("^(plain|load)/")) and
	   if (.method | startswith("load/")) then (.checked_by | test("^plain/"))
	   else .checked_by == null end)' <<<"$output" >/dev/null
	method=$(jq -r '.best.results[0].method' <<<"$output")
	# the text names the method, and says what a load method checks
	run "$BENCH" --best --kernels read -s 100000 -n 3
	assert_success
	assert_line --regexp '^  read +[0-9.]+ +[0-9.]+ +[0-9.]+  (plain|load)/[a-z0-9]+ +[0-9.]+$'
	assert_line 'Best-method results validated.'
	if grep -q '^  read .* load/' <<<"$output"; then
		assert_line --regexp '^  read by load/[a-z0-9]+: bare loads, their values unused, no sum to check;$'
		assert_line --regexp '^  plain/[a-z0-9]+ summed the arrays after them, and its total is the one validated\.$'
	else
		refute_line --partial 'bare loads'
	fi
	echo "json's method $method"
	# at the build's own level there are no bare loads
	run "$BENCH" --best --kernels read -s 100000 -n 3 --isa generic --json
	assert_success
	run jq -r '[.best.results[0].calibration[].method] | join(" ")' <<<"$output"
	assert_output 'plain/generic'
}

@test "a Read total off by 1e-6 fails --best's validation whichever Read method wins (BENCH_CORRUPT_TEST=3)" {
	# a bare-load winner has no total: the sum after it is the one checked
	bin=$(build_variant corrupt3 gcc -O0 -DBENCH_CORRUPT_TEST=3)
	run --separate-stderr "$bin" --best --kernels read -s 100000 -n 3 --json
	assert_failure 1
	run jq -r '[.best.validated, (.best.results[0].method | split("/")[0])] | @tsv' <<<"$output"
	echo "$output"
	[[ "$output" == $'false\t'* ]]
	run --separate-stderr "$bin" --best --kernels read -s 100000 -n 3
	assert_failure 1
	assert_line 'Best-method results FAILED validation: these figures are not results.'
}

@test "a build that cannot dispatch (long double) has no bare loads" {
	bin=$(build_variant longdouble gcc -O2 '-DSTREAM_TYPE=long double' -DBENCH_TYPEID=0)
	run "$bin" --best --kernels read -s 100000 -n 3 --json
	assert_success
	run jq -r '[.best.results[0].calibration[].method] | join(" ")' <<<"$output"
	assert_output 'plain/generic'
	run "$bin" --best --kernels read -s 100000 -n 3
	refute_line --partial 'load/'
}

@test "the dispatched kernels store whole vectors where the compiler does not vectorize (gcc -O2, float)" {
	need objdump
	# gcc 12 at -O2 left a loop of plain stores scalar: the float
	# build's Write ran at 4 bytes a store under the name plain/avx512
	bin=$(build_variant o2float gcc -O2 -fopenmp -DSTREAM_TYPE=float)
	isa_fn "$bin" kernels_avx512 | grep -q 'vmovups *%zmm[0-9]*,.*(%'
	isa_fn "$bin" kernels_avx2 | grep -q 'vmovups *%ymm[0-9]*,.*(%'
	run "$bin" --kernels all --isa avx512 -s 10007 -n 2
	assert_success
	assert_output --partial 'Solution Validates'
	run "$bin" --kernels all --isa avx2 -s 10007 -n 2
	assert_success
	assert_output --partial 'Solution Validates'
}

# gdb_batch ARGS...: gdb in batch mode, the program it runs writing its
# stdout a line at a time.  Its dprintf lines and the program's text share
# one stream; block-buffered, the program flushed 4096 bytes that ended
# mid-line, and the next dprintf line was glued to that line's start
# ("...or mSPAN 0 1 1"), lost to every reader of a line that begins with
# its word: where the text before the first kernel crossed 4096 bytes
# (a long cache line, a warning), Copy's first pass went missing.
gdb_batch() {
	stdbuf -oL gdb -q -batch -nx -ex 'set pagination off' "$@"
}

# Which of the dispatched kernel functions a run enters, one name per
# line (sse2, avx2, avx512), as gdb sees it: a dprintf at each function's
# entry.  -fno-inline keeps kernels_sse2 a function of its own (gcc
# otherwise inlines it, SSE2 being x86-64's baseline).
entered_kernels() {
	local bin="$1"
	shift
	gdb_batch \
		-ex 'dprintf kernels_sse2,"ENTERED sse2\n"' \
		-ex 'dprintf kernels_avx2,"ENTERED avx2\n"' \
		-ex 'dprintf kernels_avx512,"ENTERED avx512\n"' \
		-ex run --args "$bin" "$@" 2>&1 |
		sed -n 's/^ENTERED \([a-z0-9]*\)$/\1/p' | sort -u
}

@test "kernel_span calls the kernels of the level the run reports, and no other (gdb at each function's entry)" {
	need gdb
	bin=$(build_variant noinline gcc -O2 -fopenmp -fno-inline)
	# the breakpoints can be set, so each function exists in this build
	nm "$bin" | grep -q ' kernels_sse2$'
	nm "$bin" | grep -q ' kernels_avx512$'
	for isa in $(cpu_levels); do
		for stores in plain nt; do
			got=$(entered_kernels "$bin" -s 2000 -n 2 -t 1 \
				--kernels all --isa "$isa" --stores "$stores")
			want=$isa
			[ "$isa" != generic ] || want=""
			[ "$got" = "$want" ] || {
				echo "--isa $isa --stores $stores entered: ${got:-nothing}"
				return 1
			}
		done
	done
	# --isa auto picks the widest level, and runs only its kernels; so
	# do streaming stores without --isa
	got=$(entered_kernels "$bin" -s 2000 -n 2 -t 1 --kernels triad --isa auto)
	want=$("$bin" -s 2000 -n 2 -t 1 --kernels triad --isa auto --json | jq -r .run.isa)
	[ "$got" = "$want" ]
	got=$(entered_kernels "$bin" -s 2000 -n 2 -t 1 --kernels triad --stores nt)
	[ "$got" = "$want" ]
}

# gdb_kernels OUT BIN ARGS...: run BIN under gdb, stdout and dprintf
# lines into OUT: "SPAN k kind isa" at each kernel_span entry (one per
# timed or calibration pass with -t 1: the kernel and the method it is
# given), then "CODE level nt" at the entry of the kernel code that pass
# ran: kernels_sse2/_avx2/_avx512 or the generic k_* functions.  A -O0
# -g build keeps every one a function with its arguments readable.  The
# k_* functions, generated from the kernels' table, share one source
# line, so gdb stops at their first instruction (not after a prologue
# it cannot find by lines) and reads nt from its register (x86-64's
# sixth integer argument, r9), which is where dispatch exists.
gdb_kernels() {
	local out="$1" bin="$2"
	shift 2
	gdb_batch \
		-ex 'dprintf kernel_span,"SPAN %d %d %d\n",k,m.kind,m.isa' \
		-ex 'dprintf kernels_sse2,"CODE sse2 %d\n",nt' \
		-ex 'dprintf kernels_avx2,"CODE avx2 %d\n",nt' \
		-ex 'dprintf kernels_avx512,"CODE avx512 %d\n",nt' \
		-ex 'dprintf *k_copy,"CODE generic %d\n",(int)$r9' \
		-ex 'dprintf *k_scale,"CODE generic %d\n",(int)$r9' \
		-ex 'dprintf *k_add,"CODE generic %d\n",(int)$r9' \
		-ex 'dprintf *k_triad,"CODE generic %d\n",(int)$r9' \
		-ex 'dprintf *k_read,"CODE generic 0\n"' \
		-ex 'dprintf *k_write,"CODE generic %d\n",(int)$r9' \
		-ex 'dprintf *k_dot,"CODE generic 0\n"' \
		-ex 'dprintf *k_nstream,"CODE generic %d\n",(int)$r9' \
		-ex 'dprintf *k_axpy,"CODE generic %d\n",(int)$r9' \
		-ex 'dprintf *k_update,"CODE generic %d\n",(int)$r9' \
		-ex run --args "$bin" "$@" >"$out" 2>&1
}

# ran KERNEL OUT: the method each of KERNEL's passes ran, in order, named
# as bench names methods (plain/avx2, nt/generic, memcpy): read from the
# code it entered, not from what bench passed; a pass that entered no
# kernel code ran memcpy.  A pass whose code is not the method kernel_span
# was given prints "METHOD ran CODE" instead.
ran() {
	awk -v want="$1" '
		BEGIN {
			split("copy scale add triad read write dot nstream axpy update", name, " ")
			split("plain nt memcpy load", kind, " ")
			split("generic sse2 avx2 avx512 sve", isa, " ")
		}
		function flush() {
			if (k != "" && name[k + 1] == want) {
				if (code == "")
					code = "memcpy"
				print code == given ? code : given " ran " code
			}
			k = ""; code = ""
		}
		$1 == "SPAN" {
			flush(); k = $2
			given = $3 == 2 ? "memcpy" : kind[$3 + 1] "/" isa[$4 + 1]
		}
		$1 == "CODE" && k != "" && code == "" {
			code = ($3 == 2 ? "load/" : $3 ? "nt/" : "plain/") $2
		}
		END { flush() }' "$2"
}

# the method a JSON document reports for KERNEL; PATH is .results or .best.results
reported() {
	jq -r --arg k "$1" "$2"'[] | select(.kernel | ascii_downcase == $k) | .method' "$3"
}

@test "--stores auto and --best report the method each kernel's timed repetitions ran (gdb in the kernel code)" {
	need gdb
	bin=$(build_variant debug gcc -O0 -g -fopenmp)
	nm "$bin" | grep -q ' kernels_avx2$' || skip "this build has no dispatched kernels"
	local out="$BATS_TEST_TMPDIR/gdb.out" json="$BATS_TEST_TMPDIR/run.json"
	local k want ncand got timed win
	# --stores auto: per kernel, 2 calibration passes over each candidate,
	# then the 3 timed repetitions, which must run what the reports name
	gdb_kernels "$out" "$bin" -s 2000 -n 3 -t 1 --kernels all --stores auto --json-file "$json"
	! grep -q 'ptrace: Operation not permitted' "$out" || skip "gdb may not trace here"
	jq -e '.validation.ok' "$json" >/dev/null
	for k in copy scale add triad read write dot nstream axpy update; do
		want=$(reported "$k" .results "$json")
		ncand=$(jq --arg k "$k" '.results[] | select(.kernel | ascii_downcase == $k) | .calibration | length' "$json")
		got=$(ran "$k" "$out")
		# Read by bare loads: one pass of its fastest sum after them
		check=0
		[[ "$want" != load/* ]] || check=1
		[ "$(wc -l <<<"$got")" -eq $((2 * ncand + 3 + check)) ] || {
			echo "$k: $(wc -l <<<"$got") passes, expected $((2 * ncand + 3 + check))"
			return 1
		}
		# every pass, calibration's too, ran the method it was given
		! grep ' ran ' <<<"$got" || { echo "$k: kernel_span ran other code"; return 1; }
		if [ "$check" = 1 ]; then
			[ "$(tail -n 1 <<<"$got")" = "$(jq -r '.results[] | select(.kernel == "Read") | .checked_by' "$json")" ]
			got=$(head -n -1 <<<"$got")
		fi
		timed=$(tail -n 3 <<<"$got" | sort -u)
		[ "$timed" = "$want" ] || {
			echo "$k: the JSON reports $want; the timed repetitions ran: $timed"
			return 1
		}
		# the text names it too: calibration's winner, and (but Read) the stores
		win=$(awk -v k="$k" '/^Calibration/ { on = 1; next } on && $1 == k { print $2; exit }' "$out")
		[ "$win" = "$timed" ] || { echo "$k: the text's winner is $win; ran $timed"; return 1; }
		[ "$k" = read ] || [ "$k" = dot ] || grep -q "^Allocation: .*stores auto:.* $k ${timed}[ ,]" "$out" || {
			echo "$k: the Allocation line does not name $timed"
			return 1
		}
	done
	# --best: the standard run's 3 repetitions, then calibration, then the
	# best run's 3, each reported in its own table
	gdb_kernels "$out" "$bin" -s 2000 -n 3 -t 1 --kernels all --best --json-file "$json"
	jq -e '.validation.ok and .best.validated' "$json" >/dev/null
	for k in copy scale add triad read write dot nstream axpy update; do
		got=$(ran "$k" "$out")
		! grep ' ran ' <<<"$got" || { echo "$k: kernel_span ran other code"; return 1; }
		if [[ "$(reported "$k" .best.results "$json")" == load/* ]]; then
			[ "$(tail -n 1 <<<"$got")" = "$(jq -r '.best.results[] | select(.kernel == "Read") | .checked_by' "$json")" ]
			got=$(head -n -1 <<<"$got")
		fi
		want=$(reported "$k" .results "$json")
		timed=$(head -n 3 <<<"$got" | sort -u)
		[ "$timed" = "$want" ] || { echo "$k: standard run reports $want, ran $timed"; return 1; }
		want=$(reported "$k" .best.results "$json")
		timed=$(tail -n 3 <<<"$got" | sort -u)
		[ "$timed" = "$want" ] || { echo "$k: --best reports $want, its repetitions ran $timed"; return 1; }
		win=$(awk -v k="$k" '/^  kernel +best MB\/s/ { on = 1; next } on && $1 == k { print $5; exit }' "$out")
		[ "$win" = "$timed" ] || { echo "$k: the --best table says $win; ran $timed"; return 1; }
	done
}

# copy_calls BIN ARGS...: libc's memcpy and memmove as a run of BIN with
# -s 2000 -n 3 -t 1 --kernels copy calls them for Copy's whole span
# (16000 bytes of double), one "memcpy" or "memmove" line per call, as
# gdb sees them at the PLT (the size is the third argument's register);
# nothing on a machine whose register we do not name here.
copy_calls() {
	local bin="$1" size
	shift
	case $(uname -m) in
	x86_64) size='$rdx' ;;
	aarch64) size='$x2' ;;
	*) return 0 ;;
	esac
	gdb_batch \
		-ex "dprintf memcpy@plt,\"CALL memcpy %lu\\n\",$size" \
		-ex "dprintf memmove@plt,\"CALL memmove %lu\\n\",$size" \
		-ex run --args "$bin" -s 2000 -n 3 -t 1 --kernels copy "$@" 2>&1 |
		sed -n 's/^CALL \(mem[a-z]*\) 16000$/\1/p'
}

# The default's guard: a default run (neither --isa nor BENCH_ISA,
# plain stores) measures the code this build's compiler made of STREAM's
# loops, as stream.c does, not the dispatched kernels.  Read from what
# ran, not from what bench reports.
@test "a default run takes the path of the build's own compiled loops: generic code, and libc's copy where Copy's loop became one (gdb)" {
	need gdb
	local out="$BATS_TEST_TMPDIR/gdb.out" json="$BATS_TEST_TMPDIR/run.json"
	local k got want bin
	# every repetition of every kernel entered this build's own code
	# (k_copy ...) with plain stores, and was given that method
	bin=$(build_variant debug gcc -O0 -g -fopenmp)
	nm "$bin" | grep -q ' kernels_avx2$' || skip "this build has no dispatched kernels"
	gdb_kernels "$out" "$bin" -s 2000 -n 3 -t 1 --kernels all --json-file "$json"
	! grep -q 'ptrace: Operation not permitted' "$out" || skip "gdb may not trace here"
	jq -e '.validation.ok and .run.isa == "generic" and .run.isa_rule == "stream"' "$json" >/dev/null
	grep -q "^Instruction set: generic (this build's own code, as STREAM's; " "$out"
	for k in copy scale add triad read write dot nstream axpy update; do
		got=$(ran "$k" "$out")
		[ "$(sort -u <<<"$got")" = plain/generic ] && [ "$(wc -l <<<"$got")" -eq 3 ] || {
			echo "$k: a default run ran: $(sort -u <<<"$got" | paste -sd ' ')"
			return 1
		}
	done
	# Copy in the optimised build: gcc -O3 turns the generic loop into a
	# call to libc (memmove here; memcpy in stream.c, whose arrays are
	# distinct globals; glibc's two are one code, with streaming stores
	# for large copies), which the dispatched loops are not.  A default
	# run makes the same calls as --isa generic, the build's own code.
	bin=$(build_variant plain gcc -O3 -fopenmp)
	want=$(copy_calls "$bin" --isa generic)
	got=$(copy_calls "$bin")
	[ "$got" = "$want" ] || {
		echo "Copy's library calls: --isa generic ${want:-none}; default ${got:-none}" | paste -sd ' '
		return 1
	}
}

@test "without --isa, plain stores run this build's own code and say so; streaming stores, auto, --best and --isa auto run the widest" {
	widest=$(cpu_levels | tail -n 1)
	[ "$widest" != generic ] || skip "this build or CPU has nothing above generic"
	have=$(cpu_levels | grep -vx generic | paste -sd ' ')
	run "$BENCH" $TINY --kernels all --json
	assert_success
	run jq -r '[.run.isa, .run.isa_rule, (.run.isa_vector_bits | tostring),
		(.results | map(.method) | unique | join(","))] | @tsv' <<<"$output"
	assert_output "$(printf 'generic\tstream\tnull\tplain/generic')"
	run "$BENCH" $TINY
	assert_success
	assert_line "Instruction set: generic (this build's own code, as STREAM's; --isa auto dispatches; this CPU: $have)"
	bits=$("$BENCH" $TINY --isa auto --json | jq -r .run.isa_vector_bits)
	for how in "--stores nt:stores" "--stores auto:stores" "--isa auto:auto"; do
		# shellcheck disable=SC2086 # the flag and its value
		run "$BENCH" $TINY ${how%:*} --json
		assert_success
		# auto's calibration weighs every level up to the widest
		run jq -e --arg isa "$widest" --arg rule "${how#*:}" '
			.run.isa == $isa and .run.isa_rule == $rule and
			if .run.stores == "auto"
			then [.results[].calibration[].isa] | index($isa) != null
			else .results | all(.isa == $isa) end' <<<"$output"
		assert_success
		run "$BENCH" $TINY ${how%:*}
		assert_success
		assert_line "Instruction set: $widest ($bits-bit vectors; the widest this CPU has, chosen at run time; this CPU: $have)"
	done
	# --best: STREAM's table is the build's own code, the best table weighs
	# the widest level too
	run "$BENCH" $TINY --best --json
	assert_success
	run jq -e --arg isa "$widest" '.run.isa == "generic" and
		(.results | all(.method == "plain/generic")) and
		([.best.results[].calibration[].isa] | index($isa) != null)' <<<"$output"
	assert_success
	# plain stores, not the build's default stores, are the rule: a build
	# that streams by default dispatches, and --stores plain does not
	bin=$(build_variant native gcc -O2 -march=native -DSTREAMING_STORES=1)
	run "$bin" $TINY --json
	assert_success
	run jq -r '[.run.stores, .run.isa, .run.isa_rule] | @tsv' <<<"$output"
	assert_output "$(printf 'nt\t%s\tstores' "$widest")"
	run "$bin" $TINY --stores plain --json
	assert_success
	run jq -r '[.run.stores, .run.isa, .run.isa_rule] | @tsv' <<<"$output"
	assert_output "$(printf 'plain\tgeneric\tstream')"
}

@test "--stores auto says which method won, by how much, and what calibration cost" {
	run "$BENCH" -s 200000 -n 3 --stores auto --kernels all
	assert_success
	assert_line --regexp '^Calibration \(--stores auto\): 2 passes, [0-9]+\.[0-9]{3} s; fastest per kernel:$'
	for k in copy scale add triad read write dot nstream axpy update; do
		assert_line --regexp "^  $k +(memcpy|(plain|nt|load)/(generic|sse2|avx2|avx512)) +([0-9]+\\.[0-9]{3}x .* \\(next\\).*|\\(the only method\\))$"
	done
	run "$BENCH" -s 200000 -n 3 --stores auto --json
	assert_success
	run jq -e '.run.calibration_s > 0 and
		(.results | all(.calibration | all(.best_s > 0)))' <<<"$output"
	assert_success
	# without auto there is no calibration, and nothing says there was
	run "$BENCH" $TINY
	refute_line --partial 'Calibration'
}

@test "--best adds a labelled table after STREAM's unchanged lines" {
	run --separate-stderr "$BENCH" $TINY
	assert_success
	plain=$output
	refute_line --partial 'Best achievable'
	run --separate-stderr "$BENCH" $TINY --best --kernels all
	assert_success
	assert_line 'Best achievable, NOT a standard STREAM result (--best): each kernel'"'"'s'
	assert_line 'Best-method results validated.'
	for k in copy scale add triad read write dot nstream axpy update; do
		assert_line --regexp "^  $k +[0-9]+\\.[0-9] +[0-9]+\\.[0-9] +[0-9]+\\.[0-9]{3}  (memcpy|(plain|nt|load)/[a-z0-9]+) +[0-9]+\\.[0-9]{3}$"
	done
	# the table follows the run rules, and STREAM's table keeps plain stores
	[[ "$output" == *"Run rules:"*"Best achievable"* ]]
	assert_line --regexp '^Allocation: .*stores plain'
	# STREAM's own lines are the same set as without --best.  A number
	# and the padding before it are one N: %12.1f pads a rate of four
	# digits with one more space than one of five, and on a busy machine
	# the two runs' rates differ by that much (their layout is checked in
	# stream.bats)
	shape() { grep -E '^(Copy|Scale|Add|Triad|Function|Solution|STREAM)' | sed 's/ *[0-9][0-9.]*/ N/g'; }
	[ "$(shape <<<"$plain")" = "$(printf '%s\n' "$output" | shape | grep -v '^Read\|^Write')" ]
	run "$BENCH" $TINY --best --json
	assert_success
	run jq -e '.best.validated and (.best.note | test("not a standard STREAM result")) and
		(.best.results | length) == 4 and .best.calibration_s > 0 and
		(.best.results | all(.best_mbs > 0 and .ratio_to_standard > 0 and .spread >= 1 and
			(.method | test("^(memcpy|(plain|nt)/)")))) and
		(.results | all(.stores == "plain"))' <<<"$output"
	assert_success
	# without --best the JSON has no best block
	run "$BENCH" $TINY --json
	run jq -e 'has("best") | not' <<<"$output"
	assert_success
}

@test "every kernel's run-to-run spread is in the JSON, max/min of its times" {
	run "$BENCH" $TINY --kernels all --json
	assert_success
	run jq -e '(.results | length) == 10 and
		(.results | all(.spread >= 1 and ((.spread - .max_s / .min_s) | if . < 0 then -. else . end) < 1e-3 * .spread))' <<<"$output"
	assert_success
}
