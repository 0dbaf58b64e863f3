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
