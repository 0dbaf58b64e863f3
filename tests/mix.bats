#!/usr/bin/env bats
# bench mix: bandwidth by read:write mix, all threads on the memory they
# first touched, plain and streaming stores in one table.  Each row is a
# kernel of the kernels' table; its reads:writes come from the formula,
# its bytes are counted as STREAM counts them, and each column's run is
# validated on its own.  No test reads anything into a rate.

load test_helper

# csv_col NAME: the column NAME of the CSV in $output, one value a line.
csv_col() {
	python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    print(r[sys.argv[1]])' "$1" <<<"$output"
}

@test "one table: the five mixes, each with its kernel, formula and R:W from that formula, a plain and a streaming rate" {
	run --separate-stderr "$BENCH" mix $TINY
	assert_success
	assert_line --regexp '^mix +kernel +formula +R:W +plain MB/s +streaming MB/s$'
	assert_line --regexp '^all reads +read +s \+= a +1:0 +[0-9]+\.[0-9] +-$'
	assert_line --regexp '^3:1 +nstream +a = a \+ b \+ q\*c +3:1 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
	assert_line --regexp '^2:1 +axpy +c = c \+ q\*a +2:1 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
	assert_line --regexp '^1:1 +update +b = q\*b +1:1 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
	assert_line --regexp '^triad-like +triad +a = b \+ q\*c +2:1 +[0-9]+\.[0-9] +[0-9]+\.[0-9]$'
	assert_line --regexp '^Validation, plain stores: every element of a, b and c within 1e-13 of the replay on scalars, read.s sums within 1e-9$'
	assert_line --regexp '^Validation, streaming stores: every element of a, b and c within 1e-13 of the replay on scalars$'
	assert_line --regexp '^Methods: plain plain/[a-z0-9]+, streaming nt/[a-z0-9]+$'
	# a row named for a mix reads and writes in that ratio
	printf '%s\n' "$output" | awk '$1 ~ /^[0-9]+:[0-9]+$/ && $2 != "kernel" { if ($1 != $(NF - 2)) { print "row " $1 " is " $(NF - 2); bad = 1 } } END { exit bad }'
}

@test "not a STREAM result: no line holds STREAM's table words, so a STREAM parser finds nothing to misread" {
	run --separate-stderr "$BENCH" mix $TINY
	assert_success
	assert_line --partial 'not a STREAM result'
	refute_output --regexp 'Copy|Scale|Add|Triad|Function|Solution Validates|STREAM version'
}

@test "JSON: bytes as STREAM counts them (the formula's reads and writes, once per index) and the rates made from them" {
	run --separate-stderr "$BENCH" mix $TINY --json
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/mix.json"
	run jq -r '.mode, (.mix.rows | map(.mix) | join(",")), (.mix.rows | map(.kernel) | join(","))' "$BATS_TEST_TMPDIR/mix.json"
	assert_output "$(printf 'mix\nall reads,3:1,2:1,1:1,triad-like\nRead,Nstream,Axpy,Update,Triad')"
	# bytes = (reads + writes) x element size x array size, as STREAM counts;
	# each rate is those bytes over its own best (minimum) time
	run jq -e '.run.array_size as $n | .run.bytes_per_element as $e
		| .mix.rows | length == 5 and all(
			.bytes == (.reads + .writes) * $e * $n and
			((.plain.best_mbs - .bytes / .plain.min_s / 1e6) | fabs) <= 1e-6 * .plain.best_mbs and
			((.plain.median_mbs - .bytes / .plain.median_s / 1e6) | fabs) <= 1e-6 * .plain.median_mbs and
			(.nt == null or ((.nt.best_mbs - .bytes / .nt.min_s / 1e6) | fabs) <= 1e-6 * .nt.best_mbs))' \
		"$BATS_TEST_TMPDIR/mix.json"
	assert_success
	# the reads and writes a row claims are what its kernel does
	run jq -r '.mix.rows[] | "\(.formula) \(.reads):\(.writes)"' "$BATS_TEST_TMPDIR/mix.json"
	assert_output "$(printf 's += a 1:0\na = a + b + q*c 3:1\nc = c + q*a 2:1\nb = q*b 1:1\na = b + q*c 2:1')"
}

@test "JSON: plain and streaming stores at one instruction set, each column validated on its own; all reads has no streaming figure" {
	run --separate-stderr "$BENCH" mix $TINY --json
	assert_success
	json=$output
	run jq -e '.run.isa as $isa | .mix.rows as $r
		| ($r | all(.plain.stores == (if .kernel == "Read" then "none" else "plain" end) and .plain.isa == $isa)) and
		  ($r | map(select(.kernel != "Read")) | all(.nt.stores == "nt" and .nt.isa == $isa and .nt.validated)) and
		  ($r[0].nt == null) and .validation.ok and .validation.plain.ok and .validation.nt.ok and
		  .validation.plain.read_ok and (.validation.nt | has("read_ok") | not) and
		  .run.stores == "plain,nt" and (.run.threads | length) == .run.threads_counted' <<<"$json"
	assert_success
	# without --isa both run the widest level this CPU has; --isa sets both
	isa=$(jq -r '.run.isa_available[-1]' <<<"$json")
	[ "$(jq -r .run.isa <<<"$json")" = "$isa" ]
	run --separate-stderr "$BENCH" mix $TINY --isa generic --json
	assert_success
	run jq -r '[.mix.rows[] | .plain.method, (.nt // empty | .method)] | unique | join(" ")' <<<"$output"
	assert_output 'nt/generic plain/generic'
}

@test "--csv: a row per mix and store kind, the same numbers as the run's JSON" {
	j="$BATS_TEST_TMPDIR/r.json"
	run --separate-stderr "$BENCH" mix $TINY --csv --json-file "$j"
	assert_success
	assert_line --index 0 'mix,kernel,formula,reads,writes,stores,best_rate_MB/s,median_rate_MB/s,min_time_s,max_time_s,median_time_s,spread_max/min_time,bytes_per_pass,array_elements,ntimes,threads,alloc,method,validation'
	[ "${#lines[@]}" = 10 ]
	[ "$(csv_col mix | tr '\n' ',')" = "all reads,3:1,3:1,2:1,2:1,1:1,1:1,triad-like,triad-like," ]
	[ "$(csv_col stores | tr '\n' ' ')" = "none plain nt plain nt plain nt plain nt " ]
	[ "$(csv_col validation | sort -u)" = ok ]
	printf '%s\n' "$output" | python3 -c '
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = {r["mix"]: r for r in doc["mix"]["rows"]}
bad = 0
for c in csv.DictReader(sys.stdin):
    j = rows[c["mix"]]["nt" if c["stores"] == "nt" else "plain"]
    for col, key in (("best_rate_MB/s", "best_mbs"), ("median_rate_MB/s", "median_mbs"),
                     ("min_time_s", "min_s"), ("max_time_s", "max_s"), ("median_time_s", "median_s")):
        if float(c[col]) != float(j[key]):
            print("MISMATCH", c["mix"], c["stores"], col, c[col], j[key]); bad = 1
    if c["method"] != j["method"] or float(c["bytes_per_pass"]) != rows[c["mix"]]["bytes"]:
        print("MISMATCH", c["mix"], c["stores"], "method or bytes"); bad = 1
sys.exit(bad)' "$j"
}

@test "--plan: mix plans the bandwidth arrays alone; the flags of STREAM's table are refused in one line" {
	run --separate-stderr "$BENCH" mix -s 100000 --plan
	assert_success
	assert_line 'mode=mix'
	assert_line 'array_size=100000'
	refute_line --partial 'latency_max_bytes'
	for flag in "--kernels copy" "--stores nt" "--best"; do
		# shellcheck disable=SC2086 # the flag and its value
		refused_by mix $TINY $flag
		[ "$stderr" = "bench: ${flag%% *} does not apply to mode 'mix'" ]
	done
}
