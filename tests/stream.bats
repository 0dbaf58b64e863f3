#!/usr/bin/env bats
# `bench stream`: STREAM's output contract, JSON, kernels and validation.

load test_helper

@test "text output keeps STREAM's lines, in STREAM's order" {
	run "$BENCH" stream -s 100000 -n 4 -t 2
	assert_success
	assert_line "Array size = 100000 (elements), Offset = 0 (elements)"
	assert_line "This system uses 8 bytes per array element."
	assert_line "Each kernel will be executed 4 times."
	assert_line "Number of Threads requested = 2"
	assert_line "Number of Threads counted = 2"
	assert_line --regexp '^Your clock granularity(/precision)? appears to be '
	assert_line --regexp '^Each test below will take on the order of [0-9]+ microseconds\.$'
	assert_line --regexp '^   \(= [0-9]+ clock ticks\)$'
	assert_line "Solution Validates: avg error less than 1.000000e-13 on all three arrays"

	# The header is followed directly by the four rows, formatted exactly
	# as STREAM's printf("%s%12.1f  %11.6f  %11.6f  %11.6f\n").
	header=$(grep -n '^Function    Best Rate MB/s  Avg time     Min time     Max time$' \
		<<<"$output" | cut -d: -f1)
	[ -n "$header" ]
	row='[ 0-9]{10}\.[0-9]  [ 0-9]{4}\.[0-9]{6}  [ 0-9]{4}\.[0-9]{6}  [ 0-9]{4}\.[0-9]{6}'
	i=0
	for label in "Copy:      " "Scale:     " "Add:       " "Triad:     "; do
		i=$((i + 1))
		line=$(sed -n "$((header + i))p" <<<"$output")
		[[ "$line" =~ ^"$label"$row$ ]] || {
			echo "row $i does not match STREAM's format: '$line'"
			return 1
		}
	done
	# ... and the table ends with STREAM's rule, then validation.
	[ "$(sed -n "$((header + 5))p" <<<"$output")" = \
		"-------------------------------------------------------------" ]
}

@test "a STREAM parser's awk gets the four best rates" {
	run "$BENCH" $TINY
	assert_success
	rates=$(awk '/^(Copy|Scale|Add|Triad):/ {print $2}' <<<"$output" | wc -l)
	[ "$rates" -eq 4 ]
	# every rate is a positive number, measured, not a placeholder
	awk '/^(Copy|Scale|Add|Triad):/ { if ($2 + 0 <= 0) exit 1 }' <<<"$output"
}

@test "best rate is bytes moved over the minimum time" {
	run "$BENCH" $TINY --json
	assert_success
	# STREAM's byte counts: 2, 2, 3, 3 words per element
	run jq -r '.results[] | "\(.kernel) \(.bytes) \(.best_mbs) \(.min_s)"' <<<"$output"
	assert_success
	while read -r k bytes best min; do
		case "$k" in
		Copy|Scale) want=$((2 * 8 * 100000)) ;;
		Add|Triad) want=$((3 * 8 * 100000)) ;;
		esac
		[ "${bytes%.*}" -eq "$want" ]
		awk -v b="$bytes" -v r="$best" -v t="$min" \
			'BEGIN { e = b / t / 1e6; exit !(r > e * 0.999 && r < e * 1.001) }'
	done <<<"$output"
}

@test "--json prints one document with build, system, run, results and validation" {
	run "$BENCH" $TINY -t 2 --json
	assert_success
	run jq -e '
		.schema == "membench/1" and .mode == "stream" and
		(.build.compiler | length > 0) and (.build.cflags | type == "string") and
		(.system.online_cpus >= 1) and (.system.caches | type == "array") and
		(.system.timestamp | test("^[0-9-]+T[0-9:]+Z$")) and
		.run.threads_counted == 2 and (.run.threads | length) == 2 and
		(.run.threads | all(.cpu >= 0)) and
		(.run.arrays | length) == 3 and (.run.arrays | all(.page_kib >= 4)) and
		([.results[].kernel] == ["Copy", "Scale", "Add", "Triad"]) and
		(.results | all(.best_mbs > 0 and .min_s <= .median_s and
				.median_s <= .max_s and .min_s <= .avg_s)) and
		.validation.ok == true' <<<"$output"
	assert_success
}

@test "--json writes nothing but JSON on stdout" {
	run --separate-stderr "$BENCH" $TINY --json
	assert_success
	jq -e . <<<"$output" >/dev/null
	[ "$(jq -s length <<<"$output")" -eq 1 ]
}

@test "thread CPUs are reported so a binding can be checked" {
	run "$BENCH" $TINY -t 2
	assert_success
	assert_line --regexp '^Thread CPUs: 0:[0-9]+ 1:[0-9]+$'
	assert_line --regexp '^Binding: auto'
	OMP_PROC_BIND=close run "$BENCH" $TINY -t 2
	assert_line "Binding: from OMP_PROC_BIND=close"
}

@test "read and write kernels are opt-in and validate" {
	run "$BENCH" $TINY --kernels all
	assert_success
	assert_line --regexp '^Read:      '
	assert_line --regexp '^Write:     '
	assert_line --regexp '^Solution Validates'
	run "$BENCH" $TINY --kernels read,triad --json
	assert_success
	run jq -r '[.results[].kernel] | join(",")' <<<"$output"
	assert_output "Triad,Read"
}

@test "streaming stores validate and are reported" {
	run "$BENCH" $TINY --stores nt --kernels all --json
	assert_success
	run jq -r '[.run.stores, .validation.ok] | @tsv' <<<"$output"
	assert_output "$(printf 'nt\ttrue')"
	bin=$(build_variant avx512 gcc -O3 -fopenmp -march=native)
	run "$bin" -s 100003 -n 3 --offset 1 --stores nt --kernels all
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "streaming stores that the target lacks are announced, not hidden" {
	# BENCH_TYPEID=0 treats the type as unknown, which leaves gcc with no
	# streaming-store path at all.
	bin=$(build_variant nont gcc -O2 -DBENCH_TYPEID=0)
	run "$bin" $TINY --stores nt
	assert_success
	assert_line --partial "streaming stores were requested but are not available on this target"
	assert_line --regexp '^Allocation: .*stores plain'
}

@test "a corrupted array fails validation with STREAM's lines and status 1" {
	bin=$(build_variant corrupt gcc -O2 -DBENCH_CORRUPT_TEST=1)
	run "$bin" $TINY
	assert_failure 1
	assert_line --regexp '^Failed Validation on array a\[\], AvgRelAbsErr > epsilon \(1\.000000e-13\)$'
	assert_line --regexp '^     For array a\[\], 1 errors were found\.$'
	refute_line --regexp '^Solution Validates'
	run "$bin" $TINY --json
	assert_failure 1
	run jq -r '.validation.ok, .validation.arrays[0].errors' <<<"$output"
	assert_output "$(printf 'false\n1')"
}

@test "one element off by a relative 1e-6 fails validation (BENCH_CORRUPT_TEST=2)" {
	# 1e-6 of one element in 100000 is an average relative error of 1e-11,
	# a hundred times STREAM's epsilon for double
	bin=$(build_variant corrupt2 gcc -O2 -DBENCH_CORRUPT_TEST=2)
	run "$bin" $TINY
	assert_failure 1
	assert_line --regexp '^Failed Validation on array a\[\], AvgRelAbsErr > epsilon \(1\.000000e-13\)$'
	assert_line --regexp '^     For array a\[\], 1 errors were found\.$'
	refute_line --partial 'Failed Validation on array b'
	refute_line --partial 'Solution Validates'
	run "$bin" $TINY --json
	assert_failure 1
	run jq -r '[.validation.ok, (.validation.arrays[] | .errors)] | @tsv' <<<"$output"
	assert_output "$(printf 'false\t1\t0\t0')"
}

@test "a Read total off by a relative 1e-6 fails validation: Read's sums are checked (BENCH_CORRUPT_TEST=3)" {
	bin=$(build_variant corrupt3 gcc -O2 -DBENCH_CORRUPT_TEST=3)
	run "$bin" $TINY --kernels all
	assert_failure 1
	# the last of the three repetitions, named as the text counts them
	assert_line --regexp '^Failed Validation on Read: repetition 3 summed [0-9.e+]+, expected [0-9.e+]+$'
	[ "$(grep -c '^Failed Validation' <<<"$output")" -eq 1 ]
	refute_line --partial 'Solution Validates'
	run "$bin" $TINY --kernels read --json
	assert_failure 1
	run jq -r '[.validation.ok, .validation.read_ok, ([.validation.arrays[].errors] | add)] | @tsv' <<<"$output"
	assert_output "$(printf 'false\tfalse\t0')"
	# without Read nothing is damaged, and the same build validates
	run "$bin" $TINY
	assert_success
	assert_line --regexp '^Solution Validates'
}

@test "the first repetition is left out of min, max, average and median (BENCH_WARMUP_TEST)" {
	# The warm-up test build records each kernel's first repetition as
	# 1e12 s (copy, add, read) or 1e-12 s (scale, triad, write): counted,
	# it would be the max and swamp the average, or be the min.  The
	# bounds are a hundred-fold from those values, not speeds.
	bin=$(build_variant warmup gcc -O2 -fopenmp -DBENCH_WARMUP_TEST=1000000000000)
	run "$bin" $TINY --kernels all --best --json
	assert_success
	run jq -e '[.results[], .best.results[]] | length == 12 and all(
		.min_s > 1e-10 and .max_s < 1e10 and .median_s < 1e10 and
		(.avg_s // 0) < 1e10 and .min_s <= .median_s and .median_s <= .max_s)' <<<"$output"
	assert_success
	# STREAM's table: Avg and Max time of the slow-first kernels
	run "$bin" $TINY --kernels all
	assert_success
	awk '/^(Copy|Add|Read):/ { n++; if ($3 >= 1e10 || $5 >= 1e10) exit 1 }
		END { exit n != 3 }' <<<"$output"
}

@test "small arrays get STREAM's sizing advice with the size that satisfies it" {
	run "$BENCH" $TINY --json
	llc=$(jq '[.system.caches[] | select(.type != "Instruction")] | max_by(.level) | .bytes' <<<"$output")
	[ "$llc" -gt 0 ] || skip "the OS reports no cache sizes"
	want=$(((4 * llc + 7) / 8))
	run jq -r '.warnings[]' <<<"$output"
	assert_output --partial "--size $want or more"
}

@test "the sizing advice follows the cache sizes the OS reports" {
	fake="$BATS_TEST_TMPDIR/sys"
	d="$fake/devices/system/cpu/cpu0/cache/index3"
	mkdir -p "$d"
	echo 3 >"$d/level"
	echo Unified >"$d/type"
	echo 64K >"$d/size"
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 30000 -n 3 --json
	assert_success
	run jq -r '.warnings[]' <<<"$output"
	assert_output --partial "--size 32768 or more"
	MEMBENCH_SYSFS="$fake" run "$BENCH" -s 32768 -n 3 --json
	run jq -r '.warnings | map(select(test("last-level"))) | length' <<<"$output"
	assert_output 0
}

@test "info shows build and machine, in text and JSON" {
	run "$BENCH" info
	assert_success
	assert_line --regexp '^Build: '
	assert_line --regexp '^OpenMP: [0-9]+ \((libgomp|libomp|libiomp5|unknown)\)$'
	assert_line --regexp '^Caches \(OS-reported\):'
	assert_line --regexp '^Memory: .*THP (always|madvise|never|unavailable)'
	assert_line --regexp '^Allowed CPUs: [0-9]'
	run "$BENCH" info --json
	assert_success
	run jq -e '.mode == "info" and (.build.openmp_runtime | length > 0) and (.system.hostname | length > 0)' <<<"$output"
	assert_success
	# the allowed CPU set is read from the process, not assumed
	need taskset
	run taskset -c 0 "$BENCH" info --json
	run jq -r .process.allowed_cpus <<<"$output"
	assert_output 0
}

@test "--help lists every option and --version prints the version" {
	run "$BENCH" --help
	assert_success
	for opt in --size --ntimes --threads --offset --alloc --kernels --json --help --version; do
		assert_output --partial -- "$opt"
	done
	run "$BENCH" --version
	assert_success
	assert_output --regexp '^membench bench '
}

@test "--json-file keeps the text on stdout and writes the same run as JSON" {
	out="$BATS_TEST_TMPDIR/run.json"
	run "$BENCH" $TINY --json-file "$out"
	assert_success
	assert_line --regexp '^Copy:  '
	best=$(awk '/^Triad:/ {print $2}' <<<"$output")
	# the file holds the run that printed the text, not another one
	run jq -r '.results[] | select(.kernel == "Triad") | .best_mbs' "$out"
	assert_success
	awk -v a="$best" -v b="$output" 'BEGIN { exit !(a - b < 0.06 && b - a < 0.06) }'
	# no temporary file (bench writes .NAME.XXXXXX beside NAME) is left
	[ -z "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name ".$(basename "$out").*")" ]
}

@test "--json-file leaves no file when the run is refused or interrupted" {
	out="$BATS_TEST_TMPDIR/bad.json"
	run "$BENCH" -s 100000000000 --json-file "$out"
	assert_failure 2
	[ ! -e "$out" ]
	# SIGTERM, not SIGINT: a background job of a non-interactive shell
	# starts with SIGINT ignored, and bench keeps an ignored signal ignored
	"$BENCH" -s 30000000 -n 200 --json-file "$out" >/dev/null &
	pid=$!
	sleep 1
	kill -TERM "$pid"
	wait "$pid" || true
	[ ! -e "$out" ]
	[ -z "$(find "$BATS_TEST_TMPDIR" -maxdepth 1 -name '.bad.json.*')" ]
}

@test "--json and --json-file together are refused" {
	run "$BENCH" $TINY --json --json-file "$BATS_TEST_TMPDIR/x.json"
	assert_failure 2
	assert_output --partial "choose one"
}

@test "--stores auto times every method per kernel, keeps the fastest, and validates" {
	run "$BENCH" -s 200000 -n 3 --stores auto --kernels all --json
	assert_success
	run jq -e '
		.run.stores == "auto" and .run.calibration_passes == 2 and
		.validation.ok == true and
		(.results | all(.method as $m | (.calibration | length) >= 2 and
			(.calibration | min_by(.best_s) | .method) == $m)) and
		(.results | map(select(.kernel != "Read")) | all(
			.calibration_plain_s > 0 and (.calibration | any(.stores == "nt")))) and
		(.results[] | select(.kernel == "Copy") | .calibration | any(.method == "memcpy")) and
		(.results[] | select(.kernel == "Read") | .stores == "none")' <<<"$output"
	assert_success
	run "$BENCH" -s 200000 -n 3 --stores auto
	m='(plain|nt)/(generic|sse2|avx2|avx512)'
	assert_line --regexp "^Allocation: thp, stores auto: copy ($m|memcpy) scale $m add $m triad $m, stagger 4160 bytes\$"
}

@test "plain stores by default, as STREAM; STREAMING_STORES=2 makes auto the default" {
	run "$BENCH" $TINY --json
	assert_success
	run jq -r '[.run.stores, .run.calibration_passes, (.results | map(.stores) | unique | join(","))] | @tsv' <<<"$output"
	assert_output "$(printf 'plain\t0\tplain')"
	bin=$(build_variant auto gcc -O2 -DSTREAMING_STORES=2)
	run "$bin" $TINY --json
	assert_success
	run jq -r '[.build.streaming_stores, .run.stores, .run.calibration_passes] | @tsv' <<<"$output"
	assert_output "$(printf 'auto\tauto\t2')"
}

@test "repetitions that would overflow the element type are refused" {
	run --separate-stderr "$BENCH" -s 1000 -n 300
	assert_failure 2
	[[ "$stderr" == *"--ntimes: 300 repetitions make double values overflow"*"use at most 244" ]]
	run --separate-stderr "$BENCH" -s 1000 -n 300 --stores auto
	assert_failure 2
	[[ "$stderr" == *"--ntimes: 300 repetitions plus calibration make double values overflow"*"use at most 242" ]]
	bin=$(build_variant floatn gcc -O2 -DSTREAM_TYPE=float)
	run --separate-stderr "$bin" -s 1000 -n 40 --stores plain
	assert_failure 2
	[[ "$stderr" == *"--ntimes: 40 repetitions make float values overflow"*"use at most 32" ]]
	# copy alone never grows the values
	run "$bin" -s 1000 -n 1000 --kernels copy
	assert_success
}

@test "--size auto applies STREAM's 4x rule to the reported last-level cache" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0
	bin=$(build_variant small gcc -O2 -fopenmp -DSTREAM_ARRAY_SIZE=1000)
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto -n 3 --json
	assert_success
	run jq -r '[.run.size_auto, .run.array_size, (.warnings | map(select(test("last-level"))) | length)] | @tsv' <<<"$output"
	assert_output "$(printf 'true\t524288\t0')"
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto -n 3
	assert_line "Array size: 524288 elements, chosen by --size auto (4x the reported last-level cache, at most half of memory)"
	# static arrays cannot grow, so auto stops at the compiled size
	MEMBENCH_SYSFS="$fake" run "$bin" -s auto -n 3 --alloc static --json
	assert_success
	run jq -r .run.array_size <<<"$output"
	assert_output 1000
}
