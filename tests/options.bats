#!/usr/bin/env bats
# bench's flags are one table (option_defs[] in bench.c) that parsing,
# --help, the defaults and the mode refusals all read.  These tests take
# the flags from `bench --help`, so a new flag is covered without editing
# them: each is tried in every mode, and the modes that take it are held
# against the pages that document it.

load test_helper

MODES="stream latency all info mix c2c nodes"

# Every flag of --help in every mode, with an empty value (for a switch:
# a value it does not take) and then a flag that exists nowhere, so that
# a value taken by mistake ends the parse there instead of starting a
# run.  One line per try in $BATS_FILE_TMPDIR/probes: flag, mode,
# status, what bench said; the flags with their argument (- for a
# switch) in $BATS_FILE_TMPDIR/flags.
setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local line name arg m out rc
	: >"$BATS_FILE_TMPDIR/flags"
	: >"$BATS_FILE_TMPDIR/probes"
	while IFS= read -r line; do
		[[ $line =~ ^\ \ (-.,\ |\ \ \ \ )--([a-z][a-z-]*)(\ ([^ ]+))? ]] ||
			continue
		name=${BASH_REMATCH[2]} arg=${BASH_REMATCH[4]:--}
		echo "$name $arg" >>"$BATS_FILE_TMPDIR/flags"
		for m in $MODES; do
			rc=0
			out=$("$BENCH" "$m" "--$name=" --no-such-flag 2>&1 </dev/null) ||
				rc=$?
			printf '%s\t%s\t%s\t%s\n' "$name" "$m" "$rc" "${out//$'\n'/\\n}" \
				>>"$BATS_FILE_TMPDIR/probes"
		done
	done < <("$BENCH" --help)
}

# load_probes: ARG[flag] (- for a switch) and IN[flag], the modes that
# took it (" stream all"), from setup_file's tries; each try must be
# refused, in one line with status 2, either as out of its mode in the
# table's words or for its value.
load_probes() {
	local name arg m rc out
	declare -gA ARG=() IN=()
	while read -r name arg; do
		ARG[$name]=$arg
		IN[$name]=""
	done <"$BATS_FILE_TMPDIR/flags"
	[ "${#ARG[@]}" -ge 20 ] || fail "only ${#ARG[@]} flags in bench --help"
	while IFS=$'\t' read -r name m rc out; do
		[ "$rc" = 2 ] || fail "bench $m --$name=: status $rc: $out"
		if [ "$out" = "bench: --$name does not apply to mode '$m'" ]; then
			continue
		elif [ "${ARG[$name]}" = - ] && [ "$out" = "bench: --$name takes no value" ]; then
			IN[$name]+=" $m"
		elif [ "${ARG[$name]}" != - ] && [[ $out == "bench: --$name: "* && $out != *\\n* ]]; then
			IN[$name]+=" $m"
		else
			fail "bench $m --$name=: $out"
		fi
	done <"$BATS_FILE_TMPDIR/probes"
}

# doc_flags FILE HEADING: the flags named in the first column of the
# table under "## HEADING" in FILE, one per line.
doc_flags() {
	local line cell on=0 re='--([a-z][a-z-]*)(.*)'
	while IFS= read -r line; do
		if [[ $line == "## "* ]]; then
			[ "$line" = "## $2" ] && on=1 || on=0
			continue
		fi
		[[ $on = 1 && $line == '| `'* ]] || continue
		cell=${line#| }
		cell=${cell%% | *}
		while [[ $cell =~ $re ]]; do
			echo "${BASH_REMATCH[1]}"
			cell=${BASH_REMATCH[2]}
		done
	done <"$1"
}

@test "every flag of --help is refused outside its modes in the table's words, and belongs to some mode" {
	load_probes
	for name in "${!ARG[@]}"; do
		[ -n "${IN[$name]}" ] || fail "--$name belongs to no mode"
	done
}

@test "a flag belongs to info only if it belongs to every mode (info measures nothing)" {
	load_probes
	for name in "${!ARG[@]}"; do
		if [[ ${IN[$name]} == *info* ]]; then
			[ "${IN[$name]}" = " stream latency all info mix c2c nodes" ] ||
				fail "--$name belongs to info but only to${IN[$name]}"
		fi
	done
}

@test "the flags of mode stream are the bandwidth flags docs/bench.md lists" {
	load_probes
	local name docs
	docs=" $(doc_flags "$MEMBENCH_ROOT/docs/bench.md" "Bandwidth flags" | tr '\n' ' ')"
	[[ $docs == *" size "* ]] || fail "no flags read from docs/bench.md"
	for name in "${!ARG[@]}"; do
		if [[ ${IN[$name]} == *stream* ]]; then
			[[ $docs == *" $name "* ]] ||
				fail "--$name belongs to stream but docs/bench.md's table lacks it"
		elif [[ $docs == *" $name "* ]]; then
			fail "docs/bench.md lists --$name as a bandwidth flag; it belongs to${IN[$name]}"
		fi
	done
}

# mode_flags MODE: the flags MODE takes, one a line, sorted.
mode_flags() {
	local name
	for name in "${!ARG[@]}"; do
		[[ ${IN[$name]} == *" $1"* ]] && echo "$name"
	done | sort
}

@test "the flags of modes mix, c2c and nodes are the ones docs/bench.md's tables name for them" {
	load_probes
	local want
	for m in mix c2c nodes; do
		case $m in
		mix) want=$(doc_flags "$MEMBENCH_ROOT/docs/bench.md" 'Bandwidth by read:write mix (`bench mix`)') ;;
		c2c) want=$(doc_flags "$MEMBENCH_ROOT/docs/bench.md" 'Core-to-core latency (`bench c2c`)') ;;
		nodes) want=$(doc_flags "$MEMBENCH_ROOT/docs/bench.md" 'Node-by-node matrices (`bench nodes`)') ;;
		esac
		want=$(printf '%s\nhelp\nversion\n' "$want" | sort -u)
		[ "$(printf '%s\n' "$want" | wc -l)" -ge 4 ] || fail "no $m flags read from docs/bench.md"
		diff <(printf '%s\n' "$want") <(mode_flags "$m") ||
			fail "bench $m's flags (right) are not the ones docs/bench.md lists for it (left)"
	done
}

@test "docs/latency.md's flags belong to mode latency, and it lists every flag of latency alone" {
	load_probes
	local name docs
	docs=" $(doc_flags "$MEMBENCH_ROOT/docs/latency.md" "Flags" | tr '\n' ' ')"
	[[ $docs == *" max "* ]] || fail "no flags read from docs/latency.md"
	for name in $docs; do
		[[ ${IN[$name]} == *latency* ]] ||
			fail "docs/latency.md lists --$name; it belongs to${IN[$name]:- no mode}"
	done
	for name in "${!ARG[@]}"; do
		[[ ${IN[$name]} == *latency* && ${IN[$name]} != *stream* ]] || continue
		[[ $docs == *" $name "* ]] ||
			fail "--$name belongs to latency but not stream, and docs/latency.md lacks it"
	done
}

@test "a value a flag cannot read is refused naming the flag; a FILE or PATH takes any name" {
	load_probes
	local name m out rc
	for name in "${!ARG[@]}"; do
		[ "${ARG[$name]}" != - ] || continue
		m=${IN[$name]# }
		m=${m%% *}
		rc=0
		out=$("$BENCH" "$m" "--$name" @ --no-such-flag 2>&1 </dev/null) || rc=$?
		[ "$rc" = 2 ] || fail "bench $m --$name @: status $rc: $out"
		case ${ARG[$name]} in
		FILE | PATH)
			[ "$out" = "bench: unknown option '--no-such-flag' (see bench --help)" ] ||
				fail "bench $m --$name @: $out"
			;;
		*)
			[[ $out == "bench: --$name: "*"@"* && $out != *$'\n'* ]] ||
				fail "bench $m --$name @: $out"
			;;
		esac
	done
}
