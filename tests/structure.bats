#!/usr/bin/env bats
# bench.c's structure: tools that read C see every function, and the file
# runs in the order its opening map states.

load test_helper

@test "ctags sees every function of bench.c, main and the mode entry points included" {
	# Debian's universal-ctags installs ctags-universal; plain ctags may be
	# another program
	ctags="ctags-universal"
	command -v "$ctags" >/dev/null || ctags="ctags"
	"$ctags" --version 2>/dev/null | grep -q 'Universal Ctags' ||
		missing_tool "Universal Ctags is not installed (universal-ctags)"
	run "$ctags" -x --c-kinds=f "$MEMBENCH_ROOT/bench.c"
	assert_success
	funcs=$(printf '%s\n' "$output" | awk '{ print $1 }' | sort -u)
	for f in main stream_mode latency_mode all_mode info_mode plan_mode mix_mode c2c_mode \
		parse_options alloc_plan lat_analyse; do
		grep -qx "$f" <<<"$funcs" || {
			echo "ctags does not see $f"
			return 1
		}
	done
	# Every function definition the compiler sees, ctags sees too: count the
	# lines that open a top-level definition ("static T name(" at column 0).
	defined=$(grep -cE '^(static [^=;(]*[ *]|int )[a-z_0-9]+\(' "$MEMBENCH_ROOT/bench.c")
	seen=$(printf '%s\n' "$output" | wc -l)
	[ "$seen" -ge "$defined" ] || {
		echo "ctags lists $seen functions, bench.c defines $defined"
		return 1
	}
}

@test "bench.c's sections run in the order of its opening map" {
	src="$MEMBENCH_ROOT/bench.c"
	# the map: " *     12 Report ..." lines between "Map." and the end of the comment
	map=$(awk '/^ \* Map\./ { on = 1; next } on && /^ \*\// { exit }
		on && match($0, /^ \*  +[0-9]+ [A-Z][a-z]*/) {
			n = split(substr($0, 3), w, " "); sub(/[.:]$/, "", w[2]); print w[1], w[2] }' "$src")
	# the banners: the line after each "/* ====" opening one
	banners=$(awk '/^\/\* =+$/ { getline; if (match($0, /^ \* [0-9]+ /)) {
			split(substr($0, 4), w, " "); sub(/[.:]$/, "", w[2]); print w[1], w[2] } }' "$src")
	[ -n "$map" ]
	[ "$(printf '%s\n' "$map" | wc -l)" -ge 20 ]
	diff <(printf '%s\n' "$map") <(printf '%s\n' "$banners")
}

# readme_problems FILE: one line for each thing FILE (a README) says that
# is not so: more than 300 lines; a plan ("planned", "not yet built",
# "under way"); a mode bench does not take, a harness or matrix command,
# a make target, an installed membench-* command or a linked file that
# does not exist.  Nothing when all hold.
readme_problems() {
	local f=$1 modes w code
	[ "$(wc -l <"$f")" -le 300 ] || echo "$(wc -l <"$f") lines, more than 300"
	grep -inE 'planned|not yet built|not built yet|under way|coming soon' "$f" | sed 's/^/a plan: /'
	# what it gives as code: fenced blocks' lines and `spans`
	code=$(awk '/^```/ { fence = !fence; next } fence { sub(/[ \t]#.*/, ""); print; next } { while (match($0, /`[^`]+`/)) { print substr($0, RSTART + 1, RLENGTH - 2); $0 = substr($0, RSTART + RLENGTH) } }' "$f")
	# the modes: bench's usage line, each `bench MODE` and **`MODE`**
	modes=$("$BENCH" --help | sed -n '1s/^usage: bench \[\([a-z0-9|]*\)\].*/\1/p')
	[ -n "$modes" ] || echo "bench --help has no usage line with its modes"
	grep -F 'bench [' "$f" | grep -vqF "bench [$modes]" && echo "its usage line is not bench's: bench [$modes]"
	for w in $(grep -oE '(^|[ /])bench [a-z][a-z0-9_]*' <<<"$code" | sed 's/.* //' | sort -u) \
		$(grep -oE '^- \*\*`[a-z0-9_]+`\*\*' "$f" | tr -d '*`-' | sort -u); do
		case "|$modes|lat_mem_rd|" in *"|$w|"*) ;; *) echo "no mode '$w' (bench [$modes])" ;; esac
	done
	while read -r w; do
		grep -qE "^$w:" "$MEMBENCH_ROOT/Makefile.in" || echo "no make target '$w'"
	done < <(grep -oE '\bmake [a-z][a-z-]*' <<<"$code" | sed 's/^make //' | sort -u)
	while read -r w; do
		[ -e "$MEMBENCH_ROOT/$w" ] || echo "no command $w"
	done < <(grep -oE '(harness|matrix)/[a-z][a-z0-9/._-]*[a-z0-9]' "$f" | sort -u)
	while read -r w; do
		grep -qE "(harness|matrix)/${w#membench-}( |$)|$w( |$)" "$MEMBENCH_ROOT/Makefile.in" || echo "no installed command $w"
	done < <(grep -oE '\bmembench-[a-z][a-z-]*' "$f" | sort -u)
	while read -r w; do
		[ -e "$MEMBENCH_ROOT/$w" ] || echo "no file $w"
	done < <(grep -oE '\]\([A-Za-z0-9_./-]+(#[a-z0-9_-]+)?\)' "$f" | sed 's/^](//; s/[#)].*//' | sort -u)
}

@test "the README is a newcomer's page: at most 300 lines, no plans, and every mode, command, target and file it names exists" {
	run readme_problems "$MEMBENCH_ROOT/README.md"
	assert_success
	assert_output ""
	# each kind of untruth, planted in a copy, is named
	local r=$BATS_TEST_TMPDIR/README.md
	cp "$MEMBENCH_ROOT/README.md" "$r"
	printf '%s\n' '- **`tlb`** measures the TLBs.' 'Run `bench warp`, or:' '```sh' './bench tlb2 -s 1000   # then' 'make frobnicate' '```' \
		'harness/teleport and membench-teleport are planned.' 'Installing it is under way, see [x](docs/none.md).' >>"$r"
	run readme_problems "$r"
	for w in "no mode 'tlb'" "no mode 'warp'" "no mode 'tlb2'" "no make target 'frobnicate'" \
		"no command harness/teleport" "no installed command membench-teleport" "no file docs/none.md"; do
		assert_line --partial "$w"
	done
	assert_equal "$(grep -c '^a plan: ' <<<"$output")" 2
	seq 300 >>"$r"
	run readme_problems "$r"
	assert_line --regexp '^[0-9]+ lines, more than 300$'
}

@test "section 17, the latency analysis, does not grow past the 840 lines it had when the recordings were first replayed (6b4a216): measurement replaces rules" {
	local n
	n=$(awk '/^ \* 17 Analysis \(latency\)/ { s = NR } /^ \* 18 Load and MLP/ { if (s) print NR - s; exit }' "$MEMBENCH_ROOT/bench.c")
	[ -n "$n" ] || { echo "section 17 or 18 not found in bench.c"; return 1; }
	[ "$n" -le 840 ] || { echo "section 17 is $n lines, over 840: take a rule out for each one added (docs/latency.md)"; return 1; }
}
