#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# What every membench script shares through harness/lib/ (parse_options in
# options.sh, die in messages.sh): --help from
# its own usage text, --version from bench.c's BENCH_VERSION, and bad input
# as one line and exit status 2.

load test_helper
load harness_helper

setup() { harness_setup; }

SCRIPTS="harness/run harness/restore harness/sweep-bind harness/sweep-freq harness/sweep-latency-pages
harness/sweep-size harness/sweep-threads harness/sweep-offset harness/bench-compare harness/latency-compare harness/time-latency-sweep
harness/loaded-latency harness/placement-spread harness/submission harness/verify
harness/compare harness/report matrix/run-matrix matrix/find-compilers"

bench_version() { sed -n 's/^#define BENCH_VERSION "\([^"]*\)".*/\1/p' "$HARNESS_REPO/bench.c"; }

@test "--version on every script: '<script> (membench) VERSION', VERSION from bench.c" {
	v=$(bench_version)
	[ -n "$v" ]
	for s in $SCRIPTS; do
		run "$HARNESS_REPO/$s" --version
		assert_success
		assert_output "${s#*/} (membench) $v"
	done
}

@test "the version has one source: bench.c beside the scripts" {
	copy=$BATS_TEST_TMPDIR/copy
	mkdir -p "$copy"
	cp -r "$HARNESS_REPO/harness" "$HARNESS_REPO/matrix" "$copy/"
	sed 's/^#define BENCH_VERSION ".*"/#define BENCH_VERSION "9.8.7-test"/' "$HARNESS_REPO/bench.c" >"$copy/bench.c"
	for s in harness/run harness/bench-compare harness/time-latency-sweep matrix/run-matrix; do
		run "$copy/$s" --version
		assert_output "${s#*/} (membench) 9.8.7-test"
	done
}

@test "--help on every script: its usage text, from the script, not its source lines" {
	for s in $SCRIPTS; do
		run "$HARNESS_REPO/$s" --help
		assert_success
		assert_line --index 0 --regexp "^usage: $s "
		assert_output --partial '--version'
		refute_output --partial 'set -eu'
		refute_output --regexp '(^|'$'\n'')#'
	done
	# No script prints its own lines as help.
	# shellcheck disable=SC2046 # the script paths are meant to split
	run grep -lE "sed -n '?[0-9]+,[0-9]+p'? \"\\\$0\"|awk .*\"\\\$0\"" $(printf "$HARNESS_REPO/%s " $SCRIPTS)
	assert_output ''
}

@test "an unknown option on every script: one line, exit 2" {
	for s in $SCRIPTS; do
		run "$HARNESS_REPO/$s" --no-such-option
		assert_failure 2
		assert_equal "${#lines[@]}" 1
		assert_output --regexp "^${s#*/}: unknown option '--no-such-option'"
	done
}

@test "the one option loop: an option's missing value is one line, and report and compare take only --help and --version of the shared options" {
	for s in harness/restore:--results harness/loaded-latency:-n harness/verify:--signer matrix/run-matrix:--size harness/report:--format; do
		run "$HARNESS_REPO/${s%:*}" "${s#*:}"
		assert_failure 2
		assert_equal "${#lines[@]}" 1
		p=${s%:*}
		assert_output "${p#*/}: option ${s#*:} needs a value"
	done
	# They write no results and hold no lock: --results, --wait-lock and
	# --progress are not theirs.
	for s in harness/report harness/compare; do
		for o in --results --wait-lock --progress; do
			run "$HARNESS_REPO/$s" "$o" x
			assert_failure 2
			assert_output "${s#*/}: unknown option '$o' (see --help)"
		done
	done
}

@test "the summary's Pages column gives each array's pages by node: --placement's, else bench's own" {
	FAKE_ARRAYS='[{"name":"a","page_kib":2048,"huge_pct":100,"physical":{"node_pages":{"0":6,"1":2}},"node_pages":{"0":1,"1":1}},
		{"name":"b","page_kib":2048,"huge_pct":100,"physical":null,"node_pages":{"0":3,"1":1}},
		{"name":"c","page_kib":4,"huge_pct":0,"physical":null,"node_pages":null}]' \
		run "$HARNESS_REPO/harness/run" --label nodes -- -s 1000
	assert_success
	assert_line --regexp '^\| nodes \| not set \| 0:0 1:1 \| 2048 KiB 100% huge on node 0 75% node 1 25%, 4 KiB 0% huge \|'
}

@test "a machine with no host name set files its results under unnamed-host, and a name is one safe component" {
	local name want
	# the name, through the harness's own host_name, for each kind of name
	for name in '(none)' '' 'a b/c' '-x' 'node7.cluster.example'; do
		case "$name" in
		'a b/c') want=a-b-c ;;
		node7.*) want=node7 ;;
		*) want=unnamed-host ;;
		esac
		make_fake_tool "$BATS_TEST_TMPDIR/bin" hostname "printf '%s\n' '$name'"
		PATH=$BATS_TEST_TMPDIR/bin:$PATH run bash -c '. "$1/harness/lib.sh"; host_name' sh "$HARNESS_REPO"
		assert_success
		assert_output "$want"
	done
	# and a whole run files under it, the summary naming it
	make_fake_tool "$BATS_TEST_TMPDIR/bin" hostname "printf '%s\n' '(none)'"
	rm -rf "$MEMBENCH_RESULTS"
	PATH=$BATS_TEST_TMPDIR/bin:$PATH run "$HARNESS_REPO/harness/run" --label host -- -s 1000
	assert_success
	[ -d "$MEMBENCH_RESULTS/unnamed-host" ] || { find "$MEMBENCH_RESULTS" -mindepth 1 -maxdepth 1; return 1; }
	[ "$(find "$MEMBENCH_RESULTS" -mindepth 1 -maxdepth 1 | wc -l)" -eq 1 ]
	run grep -h '^# run on ' "$MEMBENCH_RESULTS"/*/*/summary.md
	assert_output '# run on unnamed-host'
}
