# tests/matrix_helper.bash: shared by tests/matrix*.bats.
# shellcheck disable=SC2034,SC2154 # variables used by the .bats files; $output set by bats
load test_helper
load harness_helper

ROOT=$MEMBENCH_ROOT
RUN_MATRIX="$ROOT/matrix/run-matrix"
FIND_COMPILERS="$ROOT/matrix/find-compilers"

# A matrix definition in the test's temporary directory; prints its path.
write_matrix() { # name lines...
	local f="$BATS_TEST_TMPDIR/$1.matrix"
	shift
	printf '%s\n' "$@" >"$f"
	printf '%s' "$f"
}

# run-matrix with tiny arrays, results under the test's temporary directory.
tiny_matrix() {
	run "$RUN_MATRIX" --size 100000 --ntimes 3 --results "$BATS_TEST_TMPDIR/results" "$@"
}

# The results directory a run-matrix output names on its last line.
results_dir() { printf '%s\n' "$output" | sed -n 's/^results[^:]*: //p' | tail -n 1; }

# The table row of cell N (1-based) from table.md.
table_row() { # dir N
	awk -v n="$2" -F'|' '$2 ~ "^ *" n " *$"' "$1/table.md"
}

need_compiler() {
	need "$1"
}

hugepages_state() { # what a test must leave as it found
	printf '%s|' "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)"
	awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts | sort | tr '\n' ' '
}

# A gcc on PATH that builds a planted bench for any cell whose macros
# hold FAKE=NAME: run K of that bench copies $FAKEDIR/NAME.K.json to
# result.json and prints STREAM's "Solution Validates".  Everything else
# (find-compilers' probes, other cells) goes to the real gcc.  The table
# then shows numbers the test chose, not whatever the machine gave; the
# STREAM lines it prints carry the same numbers, so harness/verify can
# check a bundle of the run.
fake_gcc() {
	local bin=$BATS_TEST_TMPDIR/fakebin real
	need gcc
	real=$(command -v gcc)
	mkdir -p "$bin" "$BATS_TEST_TMPDIR/fake"
	cat >"$bin/gcc" <<EOT
#!/bin/sh
name="" out=""
prev=""
for a in "\$@"; do
	case "\$a" in -DFAKE=*) name=\${a#-DFAKE=} ;; esac
	[ "\$prev" != -o ] || out=\$a
	prev=\$a
done
if [ -n "\$name" ] && [ "\$out" = bench ]; then
	cat >bench <<'EOB'
#!/bin/sh
n=\$(cat .fake-runs 2>/dev/null || echo 0); n=\$((n + 1)); echo "\$n" >.fake-runs
cp "$BATS_TEST_TMPDIR/fake/NAME.\$n.json" result.json || exit 2
jq -r '.results[] | "\(.kernel) \(.best_mbs)"' result.json | awk '{ printf "%s: %.1f\n", \$1, \$2 }'
echo "Solution Validates"
EOB
	sed -i "s/NAME/\$name/" bench
	chmod +x bench
	exit 0
fi
exec "$real" "\$@"
EOT
	chmod +x "$bin/gcc"
	PATH=$bin:$PATH
	export PATH
}

# fake_result NAME RUN COPY SCALE ADD TRIAD [WARNING...]: the JSON run RUN
# of the planted bench NAME reports.
fake_result() {
	local name=$1 run=$2 copy=$3 scale=$4 add=$5 triad=$6
	shift 6
	jq -n --argjson c "$copy" --argjson s "$scale" --argjson a "$add" --argjson t "$triad" \
		--args '{schema: "membench/1", mode: "stream",
		system: {cpu_model: "Planted CPU 9000", online_cpus: 64, machine: "x86_64",
			memory_bytes: 274877906944, kernel: "Linux 9.9.9-test",
			caches: [{name: "L3", level: 3, bytes: 33554432, instances: 2}]},
		run: {array_size: 100000, threads_counted: 1, alloc: "mmap",
			arrays: [{name: "a", huge_pct: 0, page_kib: 4, kernel_page_kib: 4}]},
		results: [{kernel: "Copy", best_mbs: $c}, {kernel: "Scale", best_mbs: $s},
			{kernel: "Add", best_mbs: $a}, {kernel: "Triad", best_mbs: $t}],
		validation: {ok: true},
		run_rules: {verdict: (if $ARGS.positional | length > 0 then "variant" else "standard" end),
			reasons: [$ARGS.positional[] | select(test("last-level")) | "arrays below 4x all last-level caches"]},
		warnings: $ARGS.positional}' "$@" >"$BATS_TEST_TMPDIR/fake/$name.$run.json"
}

# plant_even_runs B_SCALE: four runs each of the planted benches a and b,
# out of order.  Sorted, a's Copy is 1000 1010 1030 1100 (median 1020),
# b's Copy 800 810 830 900 (820) and b's Triad 1000 1010 1050 1100
# (1030); b's Scale is B_SCALE in every run, every other rate 1000.
plant_even_runs() {
	local k acopy=(1100 1000 1030 1010) bcopy=(800 830 900 810) btriad=(1000 1100 1010 1050)
	for k in 1 2 3 4; do
		fake_result a "$k" "${acopy[k - 1]}" 1000 1000 1000
		fake_result b "$k" "${bcopy[k - 1]}" "$1" 1000 "${btriad[k - 1]}"
	done
}
