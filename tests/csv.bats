#!/usr/bin/env bats
# bench --csv: one header line and one row per kernel, the same run's
# numbers as its JSON, with the units in the header.

load test_helper

# csv_col NAME: the column of the CSV in $output named NAME, one value a
# line (quoted fields are read as CSV, so reasons with commas stay whole).
csv_col() {
	python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
for r in rows:
    print(r[sys.argv[1]])' "$1" <<<"$output"
}

@test "--csv: the header names every column with its unit, one row per kernel" {
	run --separate-stderr "$BENCH" $TINY --csv
	assert_success
	assert_line --index 0 'kernel,best_rate_MB/s,avg_time_s,min_time_s,max_time_s,median_rate_MB/s,median_time_s,spread_max/min_time,bytes_per_pass,array_elements,ntimes,threads,alloc,stores,validation,run_rules,run_rule_reasons,table,method'
	[ "${#lines[@]}" = 5 ]
	[ "$(csv_col kernel | tr '\n' ' ')" = "Copy Scale Add Triad " ]
	[ "$(csv_col validation | sort -u)" = ok ]
	[ "$(csv_col table | sort -u)" = standard ]
	# no text report on stdout
	refute_output --partial 'Solution Validates'
	run --separate-stderr "$BENCH" $TINY --csv --kernels read,write
	assert_success
	[ "$(csv_col kernel | tr '\n' ' ')" = "Read Write " ]
	[ "$(csv_col stores | tr '\n' ' ')" = "none plain " ]
}

@test "--csv and --json-file of the same run carry the same numbers" {
	j="$BATS_TEST_TMPDIR/r.json"
	run --separate-stderr "$BENCH" $TINY --csv --json-file "$j"
	assert_success
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/r.csv"
	# every number field of every row against the JSON's
	cat >"$BATS_TEST_TMPDIR/check.py" <<'EOPY'
import csv, json, sys
doc = json.load(open(sys.argv[1]))
res = {r["kernel"]: r for r in doc["results"]}
pairs = [("best_rate_MB/s", "best_mbs"), ("avg_time_s", "avg_s"),
         ("min_time_s", "min_s"), ("max_time_s", "max_s"),
         ("median_rate_MB/s", "median_mbs"), ("median_time_s", "median_s"),
         ("bytes_per_pass", "bytes"), ("stores", "stores")]
bad = 0
n = 0
for row in csv.DictReader(sys.stdin):
    j = res[row["kernel"]]
    n += 1
    for c, k in pairs:
        if str(row[c]) != str(j[k]) and not (c != "stores" and float(row[c]) == float(j[k])):
            print("MISMATCH", row["kernel"], c, row[c], j[k]); bad = 1
    if abs(float(row["spread_max/min_time"]) - j["max_s"] / j["min_s"]) > 1e-6 * j["max_s"] / j["min_s"]:
        print("MISMATCH spread", row["kernel"]); bad = 1
    if int(row["array_elements"]) != doc["run"]["array_size"] or int(row["ntimes"]) != doc["run"]["ntimes"] \
       or int(row["threads"]) != doc["run"]["threads_counted"] or row["alloc"] != doc["run"]["alloc"]:
        print("MISMATCH run", row["kernel"]); bad = 1
    if row["run_rules"] != doc["run_rules"]["verdict"] or row["run_rule_reasons"] != "; ".join(doc["run_rules"]["reasons"]):
        print("MISMATCH rules", row["kernel"]); bad = 1
    if row["validation"] != ("ok" if doc["validation"]["ok"] else "failed"):
        print("MISMATCH validation"); bad = 1
print("rows", n)
sys.exit(bad)
EOPY
	out=$(python3 "$BATS_TEST_TMPDIR/check.py" "$j" <"$BATS_TEST_TMPDIR/r.csv")
	echo "$out"
	[ "$out" = "rows 4" ]
}

@test "--csv rates agree with the text's STREAM table to its digits" {
	# The text and CSV cannot share one stdout; each row's best rate is
	# bytes/min time, which the text prints to 0.1 MB/s and 6 decimals.
	run --separate-stderr "$BENCH" $TINY --csv
	assert_success
	python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    rate = float(r["bytes_per_pass"]) / float(r["min_time_s"]) / 1e6
    assert abs(rate - float(r["best_rate_MB/s"])) <= 1e-6 * rate, r
    assert float(r["min_time_s"]) <= float(r["median_time_s"]) <= float(r["max_time_s"]), r
' <<<"$output"
}

@test "--csv: warnings go to stderr, the run-rule reasons into the row, free of commas" {
	fake="$BATS_TEST_TMPDIR/sys"
	fake_llc "$fake" 1M 0
	MEMBENCH_SYSFS="$fake" run --separate-stderr "$BENCH" -s 100000 -n 3 --csv
	assert_success
	[[ "$stderr" == *"bench: warning: each array"* ]]
	[ "$(csv_col run_rules | sort -u)" = variant ]
	[[ "$(csv_col run_rule_reasons | head -n 1)" == "arrays of 100000 elements: below 4x all last-level caches (524288); "* ]]
	# free text holds no comma, so `awk -F,` counts the header's fields
	# in every row (here three rules broke: size, ntimes, kernels)
	MEMBENCH_SYSFS="$fake" run --separate-stderr "$BENCH" -s 100000 -n 3 --csv --kernels copy,read
	assert_success
	run awk -F, '{ print NF }' <<<"$output"
	[ "$(sort -u <<<"$output")" = 19 ]
}

@test "--csv --best: the best-method run's rows follow the standard ones" {
	run --separate-stderr "$BENCH" $TINY --csv --best --kernels copy,triad \
		--json-file "$BATS_TEST_TMPDIR/r.json"
	assert_success
	[ "$(csv_col table | tr '\n' ' ')" = "standard standard best best " ]
	[ "$(csv_col kernel | tr '\n' ' ')" = "Copy Triad Copy Triad " ]
	# the best rows are --best's figures, not the standard run's again:
	# each row's rate and method against the JSON of the same run
	python3 -c '
import csv, json, sys
doc = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(sys.stdin))
for table, res in (("standard", doc["results"]), ("best", doc["best"]["results"])):
    got = [r for r in rows if r["table"] == table]
    assert len(got) == len(res), (table, got)
    for r, j in zip(got, res):
        assert r["kernel"] == j["kernel"] and float(r["best_rate_MB/s"]) == float(j["best_mbs"]), (r, j)
        assert r["method"] == j["method"], (r, j)
' "$BATS_TEST_TMPDIR/r.json" <<<"$output"
}

@test "--csv refuses what it cannot combine with, one line, exit 2" {
	run --separate-stderr "$BENCH" $TINY --csv --json
	assert_failure 2
	[ "$stderr" = "bench: --csv and --json: choose one for stdout (--csv --json-file PATH writes both)" ]
	assert_output ''
	run --separate-stderr "$BENCH" --csv --plan
	assert_failure 2
	[[ "$stderr" == "bench: --csv and --plan: "* ]]
	run --separate-stderr "$BENCH" latency --csv
	assert_failure 2
	[ "$stderr" = "bench: --csv does not apply to mode 'latency'" ]
	run --separate-stderr "$BENCH" all --csv
	assert_failure 2
	run --separate-stderr "$BENCH" --csv=yes
	assert_failure 2
	[ "$stderr" = "bench: --csv takes no value" ]
}
