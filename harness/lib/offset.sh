# shellcheck shell=bash
# harness/lib/offset.sh: what an --offset sweep (harness/sweep-offset) found: each kernel's rate by offset, its costliest offset and what that cost; read by the sweep's closing line and by harness/report.
# Needs: nothing but jq and awk.  Sourced, never run.

# offset_rates KEY FILE...: one "bytes<TAB>kernel<TAB>best MB/s" line per
# kernel of every record in FILE... (JSON objects) whose params give an
# "Offset bytes" and whose bench document, under KEY (bench: a sweep's
# step files; doc: harness/report's records), validated.
offset_rates() {
	local key=$1
	shift
	jq -r --arg key "$key" '
		select((.params["Offset bytes"] | type) == "number" and (.[$key].validation.ok? // false) == true)
		| .params["Offset bytes"] as $b
		| (.[$key].results // [])[]
		| select((.best_mbs | type) == "number" and (.kernel | type) == "string")
		| [$b, .kernel, .best_mbs] | @tsv' "$@"
}

# offset_costs: from offset_rates' lines on stdin, one line per kernel, in
# the order they first come: "kernel<TAB>costliest offset<TAB>its MB/s
# <TAB>best offset<TAB>its MB/s<TAB>ratio".  A kernel name is data: one
# that is not a plain word is left out.
offset_costs() {
	awk -F'\t' '
		$1 !~ /^[0-9]+$/ || $2 !~ /^[A-Za-z][A-Za-z0-9_]*$/ || $3 !~ /^[0-9]+([.][0-9]*)?([eE][-+]?[0-9]+)?$/ { next }
		!($2 in seen) { seen[$2] = 1; order[++n] = $2; lo[$2] = hi[$2] = $3 + 0; at_lo[$2] = at_hi[$2] = $1 }
		$3 + 0 < lo[$2] { lo[$2] = $3 + 0; at_lo[$2] = $1 }
		$3 + 0 > hi[$2] { hi[$2] = $3 + 0; at_hi[$2] = $1 }
		END {
			for (i = 1; i <= n; i++) {
				k = order[i]
				printf "%s\t%s\t%.1f\t%s\t%.1f\t%.3f\n", k, at_lo[k], lo[k], at_hi[k], hi[k], (hi[k] > 0 ? lo[k] / hi[k] : 0)
			}
		}'
}

# offset_closing: from offset_costs' lines on stdin, the one line that
# names each kernel's costliest offset and by how much.
offset_closing() {
	awk -F'\t' '
		{ s = s (s == "" ? "" : "; ") sprintf("%s %s B: %.2fx its best (%s B), %.1f%% lost", $1, $2, $6, $4, 100 * (1 - $6)) }
		END { if (s != "") print "Costliest offsets (b sits that many bytes past a, c twice as far): " s }'
}
