#!/usr/bin/env bats
# The arrays' layout rule (bench.c, layout_shifts): no kernel's
# destination sits 1-2047 bytes ahead of one of its sources modulo 4 KiB
# (4K aliasing), checked on the addresses the arrays really got
# (run.arrays[].address), not on what bench says of them; and the one
# line that names a layout the user chose which breaks it.

load test_helper
load layout_helper

@test "the default layout keeps every kernel out of the aliasing window, in every mode bench lays out" {
	for mode in malloc mmap thp shm; do
		for size in 99999 1000003 123457; do
			run_rule -s "$size" --alloc "$mode"
		done
	done
}

@test "the rule holds on hugetlb pages, at odd sizes" {
	with_hugepages 8 "$BENCH" -s 100003 --alloc hugetlb --kernels all -n 2 \
		--json-file "$BATS_TEST_TMPDIR/h.json"
	assert_success
	check_rule "$BATS_TEST_TMPDIR/h.json"
}

@test "bench mix lays out its arrays by the same rule" {
	json="$BATS_TEST_TMPDIR/mix.json"
	run --separate-stderr "$BENCH" mix -s 100003 -n 2 --json-file "$json"
	assert_success
	check_rule "$json"
}

@test "--offset and --stagger of whole pages keep the rule" {
	run_rule -s 100000 --offset 512
	run_rule -s 100000 --stagger 8192
	run_rule -s 100000 --stagger 0
}

@test "the text header and --plan give each kernel's distances" {
	run "$BENCH" -s 100000 -n 2
	assert_success
	assert_line 'Array layout: dst-src mod 4 KiB, bytes: copy c-a 0; scale b-c 0; add c-a 0, c-b 0; triad a-b 0, a-c 0'
	refute_output --partial aliasing
	run "$BENCH" -s 100000 --kernels all --stagger 64 --plan
	assert_success
	assert_line 'layout_distances=copy:c-a:128,scale:b-c:4032,add:c-a:128,add:c-b:64,triad:a-b:4032,triad:a-c:3968,nstream:a-b:4032,nstream:a-c:3968,axpy:c-a:128'
	assert_line 'layout_aliasing=copy:c-a:128,add:c-a:128,add:c-b:64,axpy:c-a:128'
	run "$BENCH" -s 100000 --offset 8 --plan --json
	assert_success
	run jq -r '.plan.layout_distances, .plan.layout_aliasing' <<<"$output"
	assert_output "$(printf '%s\n' copy:c-a:128,scale:b-c:4032,add:c-a:128,add:c-b:64,triad:a-b:4032,triad:a-c:3968 \
		copy:c-a:128,add:c-a:128,add:c-b:64)"
}

@test "--stagger 64 is run as asked, with one aliasing line before the table" {
	run --separate-stderr "$BENCH" -s 100000 -n 2 --stagger 64
	assert_success
	run grep -c aliasing <<<"$output"
	assert_output 1
	run --separate-stderr "$BENCH" -s 100000 -n 2 --stagger 64
	local line table
	line=$(grep -n 'aliasing' <<<"$output" | cut -d: -f1)
	table=$(grep -n '^Function ' <<<"$output" | cut -d: -f1)
	[ "$line" -lt "$table" ]
	assert_line 'WARNING: aliasing: destination 1-2047 bytes ahead of a source in the 4 KiB page, so loads may wait on stores (4K aliasing): copy c-a 128; add c-a 128, c-b 64 (dst-src bytes); every array at one page offset avoids it (the default layout: --stagger a multiple of 4096, --offset a multiple of 512, not --alloc static)'
	# STREAM's parsers key on its labels and words, which the line avoids
	run grep -cE 'aliasing.*(Copy:|Scale:|Add:|Triad:|Function|Best Rate|Solution|Validates)' <<<"$output"
	assert_output 0
	run --separate-stderr "$BENCH" -s 100000 -n 2 --stagger 64
	# the layout the user asked for is the one that ran
	assert_line 'Array layout: dst-src mod 4 KiB, bytes: copy c-a 128; scale b-c 4032; add c-a 128, c-b 64; triad a-b 4032, a-c 3968'
	assert_line --regexp '^Copy: +[0-9]'
}

@test "an aliasing --offset is named in the text and the JSON" {
	# 32 elements: b 256 and c 512 bytes past a in the page
	run --separate-stderr "$BENCH" -s 100000 -n 2 --offset 32
	assert_success
	assert_line --partial 'WARNING: aliasing: destination 1-2047 bytes ahead of a source in the 4 KiB page, so loads may wait on stores (4K aliasing): copy c-a 512; add c-a 512, c-b 256 (dst-src bytes)'
	run --separate-stderr "$BENCH" -s 100000 -n 2 --offset 32 --kernels copy,scale --json
	assert_success
	run jq -r '[.warnings[] | select(test("aliasing"))] | length' <<<"$output"
	assert_output 1
}

@test "--alloc static: the warning follows where the linker put the arrays" {
	run --separate-stderr "$BENCH" --alloc static -n 2 --json
	[ "$status" -le 1 ] # a static build's arrays may be small: validation still counts
	local json="$BATS_TEST_TMPDIR/s.json" aliasing warned
	printf '%s\n' "$output" >"$json"
	aliasing=$(jq '[.run.layout.distances[] | select(.aliasing)] | length' "$json")
	warned=$(jq '[.warnings[] | select(test("^aliasing: "))] | length' "$json")
	if [ "$aliasing" -gt 0 ]; then [ "$warned" = 1 ]; else [ "$warned" = 0 ]; fi
	# and bench's distances are the addresses' own
	local pair k d s da ds
	for pair in $(jq -r '.run.layout.distances[] | "\(.kernel):\(.dst):\(.src):\(.bytes)"' "$json"); do
		IFS=: read -r k d s said <<<"$pair"
		da=$(jq -r --arg n "$d" '.run.arrays[] | select(.name == $n) | .address' "$json")
		ds=$(jq -r --arg n "$s" '.run.arrays[] | select(.name == $n) | .address' "$json")
		[ "$(((da - ds) & 4095))" = "$said" ] || fail "$k $d-$s: $said is not the addresses' distance"
	done
}
