# tests/lib_deps.awk: the one-way dependencies of harness/lib/.  Reads
# harness/lib.sh first (the order it sources the lib files in), then
# every harness/lib/*.sh, and prints one line for each broken rule:
#   FILE calls FUNC of OTHER, which its Needs line does not name
#   FILE needs OTHER, which harness/lib.sh sources after it
# A file's "# Needs:" header line names the lib files it needs (messages,
# messages.sh, ...); "X.sh and what it sources" needs X's needs too.  A
# call is a function name of another lib file as a word of code: comment
# lines and trailing comments are left out, and a word right after "." or
# "$" (a jq field, a variable) is not one.
FILENAME ~ /lib\.sh$/ {
	if (match($0, /lib\/[a-z-]+\.sh/))
		order[substr($0, RSTART + 4, RLENGTH - 7)] = ++sourced
	next
}
FNR == 1 { f = FILENAME; sub(/.*\//, "", f); sub(/\.sh$/, "", f); files[f] = 1 }
/^# Needs:/ {
	n = split($0, w, /[^a-z-]+/)
	for (i = 1; i <= n; i++)
		needs[f, w[i]] = 1
	if ($0 ~ /what it sources/)
		transitive[f] = 1
}
/^[a-z_][a-z0-9_]*\(\) *\{/ { name = $0; sub(/\(.*/, "", name); def[name] = f }
!/^[ \t]*#/ {
	line = $0
	sub(/[ \t]#.*/, "", line)
	gsub(/[^A-Za-z0-9_.$-]+/, " ", line)
	body[f] = body[f] " " line
}
END {
	for (k = 0; k < 20; k++)
		for (p in needs) {
			split(p, q, SUBSEP)
			if (q[1] in transitive)
				for (r in needs) {
					split(r, s, SUBSEP)
					if (s[1] == q[2])
						needs[q[1], s[2]] = 1
				}
		}
	for (g in files) {
		n = split(body[g], w, " ")
		for (i = 1; i <= n; i++) {
			x = w[i]
			if ((x in def) && def[x] != g && !((g, def[x]) in needs) && !seen[g, x]++)
				print g " calls " x " of " def[x] ", which its Needs line does not name"
		}
	}
	for (p in needs) {
		split(p, q, SUBSEP)
		if ((q[1] in order) && (q[2] in order) && q[1] != q[2] &&
		    order[q[2]] > order[q[1]])
			print q[1] " needs " q[2] ", which harness/lib.sh sources after it"
	}
}
