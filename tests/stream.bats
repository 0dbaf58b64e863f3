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

@test "small arrays get STREAM's sizing advice with the size that satisfies it; without reported caches, none" {
	# both ways, whatever this host's sysfs says
	fake_sysfs "$BATS_TEST_TMPDIR/caches" caches
	fake_sysfs "$BATS_TEST_TMPDIR/none" none
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/caches" run "$BENCH" $TINY --json
	assert_success
	llc=$(jq '[.system.caches[] | select(.type != "Instruction")] | max_by(.level) | .bytes' <<<"$output")
	[ "$llc" = 33554432 ]
	want=$(((4 * llc + 7) / 8))
	run jq -r '.warnings[]' <<<"$output"
	assert_output --partial "--size $want or more"
	# no cache reported: no size to advise, and the rule is said to be
	# unchecked rather than kept
	MEMBENCH_SYSFS="$BATS_TEST_TMPDIR/none" run "$BENCH" $TINY --json
	assert_success
	jq -e '.system.caches == [] and
		(.warnings | map(select(test("last-level|or more follows"))) | length) == 0 and
		(.run_rules.reasons | any(startswith("the OS reports no last-level cache")))' <<<"$output"
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

@test "info's labelled lines and its JSON's process facts are one list: each line a fact with its value, each fact a line" {
	# generated from both outputs: a label says its key in words ("Default
	# threads" for threads_default), so each "Label: value" line after the
	# instruction sets finds its fact by name; the isa_ facts are the
	# instruction sets' sentence, and the binding variables are unset so
	# binding_env, the JSON's alone, is null.  One run writes both (each
	# run measures the timer's granularity anew).
	json="$BATS_TEST_TMPDIR/info.json"
	run --separate-stderr env -u OMP_PROC_BIND -u OMP_PLACES -u GOMP_CPU_AFFINITY \
		-u KMP_AFFINITY "$BENCH" info --json-file "$json"
	assert_success
	facts=${output#*$'\n'Instruction sets: *$'\n'}
	run jq -e --arg facts "$facts" '
		def words: ascii_downcase | [scan("[a-z]+")];
		# the text shows a figure to 3 digits and a unit, unknown for null
		def shows($t): if . == null then $t == "unknown"
			elif type == "number" then ($t | sub(" [a-z]+$"; "") | tonumber?) as $n
				| $n != null and (($n - .) | fabs) <= 0.005 * fabs
			else tostring == $t end;
		def named($name): ($name | words) - (.key | words) == [];
		[.process | to_entries[]] as $p
		| [$facts | split("\n")[] | select(length > 0)
			| capture("^(?<name>[^:]+): (?<v>.*)$")] as $lines
		| ($lines | length) > 0
		and all($lines[]; . as $l | [$p[] | select(named($l.name))] | length == 1
			and (.[0].value | shows($l.v)))
		and all($p[] | select((.key | startswith("isa_") | not) and .value != null);
			. as $f | any($lines[]; . as $l | $f | named($l.name) and (.value | shows($l.v))))' "$json"
	assert_success
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
		(.results | map(select(.kernel != "Read" and .kernel != "Dot")) | all(
			.calibration_plain_s > 0 and (.calibration | any(.stores == "nt")))) and
		(.results[] | select(.kernel == "Copy") | .calibration | any(.method == "memcpy")) and
		(.results | map(select(.kernel == "Read" or .kernel == "Dot")) |
			length == 2 and all(.stores == "none"))' <<<"$output"
	assert_success
	run "$BENCH" -s 200000 -n 3 --stores auto
	m='(plain|nt)/(generic|sse2|avx2|avx512)'
	assert_line --regexp "^Allocation: thp, stores auto: copy ($m|memcpy) scale $m add $m triad $m, stagger 4096 bytes\$"
}

@test "BabelStream's Dot and Nstream: chosen by --kernels, validated, in text, JSON and CSV, never in the default table" {
	run --separate-stderr "$BENCH" $TINY --kernels dot,nstream
	assert_success
	# STREAM's row layout, under their own labels, and only theirs
	assert_line --regexp '^Dot: {7}[ 0-9]{9}[0-9]\.[0-9]( +[0-9]+\.[0-9]{6}){3}$'
	assert_line --regexp '^Nstream: {3}[ 0-9]{9}[0-9]\.[0-9]( +[0-9]+\.[0-9]{6}){3}$'
	refute_line --regexp '^(Copy|Scale|Add|Triad|Read|Write):'
	assert_line --regexp '^Solution Validates'
	assert_line --regexp '^  median dot '
	run --separate-stderr "$BENCH" $TINY --kernels nstream,dot --json
	assert_success
	# 100000 doubles: Dot reads two arrays, Nstream reads three and writes one
	run jq -r '.validation.ok, .validation.dot_ok, (.validation | has("read_ok")),
		(.results[] | [.kernel, .bytes, .flops, .stores] | @tsv)' <<<"$output"
	assert_output "$(printf 'true\ntrue\nfalse\nDot\t1600000\t200000\tnone\nNstream\t3200000\t300000\tplain')"
	run --separate-stderr "$BENCH" $TINY --kernels dot,nstream --csv
	assert_success
	[ "$(cut -d, -f1,9,14,15 <<<"$output" | tail -n +2 | paste -sd ' ')" = "Dot,1600000,none,ok Nstream,3200000,plain,ok" ]
	# all is every kernel, in the table's order
	run --separate-stderr "$BENCH" $TINY --kernels all --json
	assert_success
	run jq -r '[.results[].kernel] | join(" ")' <<<"$output"
	assert_output 'Copy Scale Add Triad Read Write Dot Nstream Axpy Update'
	# the default run is STREAM's four and says nothing of them
	run "$BENCH" $TINY
	assert_success
	refute_output --regexp '(D|d)ot|(N|n)stream|(A|a)xpy|(U|u)pdate'
}

@test "Axpy and Update, bench mix's in-place 2:1 and 1:1 rows: chosen by --kernels, validated, bytes of what they read and write" {
	run --separate-stderr "$BENCH" $TINY --kernels axpy,update
	assert_success
	assert_line --regexp '^Axpy: {6}[ 0-9]{9}[0-9]\.[0-9]( +[0-9]+\.[0-9]{6}){3}$'
	assert_line --regexp '^Update: {4}[ 0-9]{9}[0-9]\.[0-9]( +[0-9]+\.[0-9]{6}){3}$'
	assert_line --regexp '^Solution Validates'
	for stores in nt auto; do
		run --separate-stderr "$BENCH" $TINY --kernels axpy,update --stores "$stores"
		assert_success
		assert_line --regexp '^Solution Validates'
	done
	# 100000 doubles: Axpy reads c and a and writes c, Update reads and writes b
	run --separate-stderr "$BENCH" $TINY --kernels axpy,update --json
	assert_success
	run jq -r '.results[] | [.kernel, .bytes, .flops] | @tsv' <<<"$output"
	assert_output "$(printf 'Axpy\t2400000\t200000\nUpdate\t1600000\t100000')"
}
