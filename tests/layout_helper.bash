# shellcheck shell=bash
# The arrays' layout rule as the tests check it, for layout.bats and
# layout_sizes.bats: from the addresses the arrays really got
# (run.arrays[].address), not from what bench says of them.
# Load after test_helper.

# The window bench states (docs/bench.md): a destination 1..W bytes
# ahead of a source in the page aliases.
W=2047

# Each kernel's (destination, source) pairs, written out here from
# STREAM's and the extras' formulas, not read from bench: a slip in
# bench's own reading of its kernel table must not hide here.
PAIRS='copy:c:a scale:b:c add:c:a add:c:b triad:a:b triad:a:c nstream:a:b nstream:a:c axpy:c:a'

# check_rule JSON: every pair's distance, from the arrays' addresses, is
# outside (0, W]; and bench's own run.layout says the same distances.
check_rule() {
	local json="$1" pair k d s n addr dist said line
	declare -A low told
	# two jq calls a run: the addresses, then bench's own distances
	while read -r n addr; do
		[[ "$addr" =~ ^0x[0-9a-f]+$ ]] || fail "array $n has no address: '$addr'"
		low[$n]=$((addr & 4095))
	done < <(jq -r '.run.arrays[] | "\(.name) \(.address)"' "$json")
	[ "${#low[@]}" = 3 ] || fail "not three arrays in $json"
	while read -r line said; do told[$line]=$said; done < <(jq -r '.run.layout.distances[] | "\(.kernel):\(.dst):\(.src) \(.bytes)"' "$json")
	for pair in $PAIRS; do
		IFS=: read -r k d s <<<"$pair"
		dist=$(((low[$d] - low[$s] + 4096) % 4096))
		if [ "$dist" -gt 0 ] && [ "$dist" -le "$W" ]; then
			fail "$k: $d is $dist bytes ahead of $s in the page ($json)"
		fi
		# bench's report, for the kernels the run ran (every one with
		# --kernels all: run_rule counts them)
		[ -z "${told[$pair]+set}" ] || [ "${told[$pair]}" = "$dist" ] ||
			fail "$k $d-$s: bench says '${told[$pair]}', the addresses $dist"
	done
}

# run_rule ARGS...: one run of every kernel, then the rule on its JSON.
run_rule() {
	local json="$BATS_TEST_TMPDIR/run.json"
	run --separate-stderr "$BENCH" --kernels all -n 2 "$@" --json-file "$json"
	assert_success
	refute_output --partial aliasing
	check_rule "$json"
	# every pair of every kernel was reported
	[ "$(jq '.run.layout.distances | length' "$json")" = 9 ]
}
