# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/summary.sh: a session's summary.md: its header, the STREAM and latency tables, the warnings, and session_end
# Needs: session.sh and what it sources.  Sourced after them, never run.

# summary_stream_table: the table a STREAM report shows, one row per step:
# the step's parameters, the CPUs its threads ran on, the pages the arrays
# got (and on a machine of several nodes, or with --placement, the share
# of them on each node), then best MB/s per kernel (and % of peak when
# known).
summary_stream_table() {
	jq -s -r '
		(.[0].params | keys_unsorted) as $pk
		| (reduce (.[] | .bench.results[]?.kernel) as $k ([]; if any(.[]; . == $k) then . else . + [$k] end)) as $ks
		| ([($pk | length)] | @tsv),
		  ($pk + ["Thread:CPU", "Pages"] + $ks + ["Status"] | @tsv),
		  (.[] | . as $r
		   | [($pk[] | ($r.params[.] | tostring))]
		     + [(if $r.binding.observed == "" then "-" else $r.binding.observed end)]
		     + [([$r.bench.run.arrays[]? | "\(.page_kib) KiB \(.huge_pct | round)% huge"
		           + ((.physical.node_pages // .node_pages) as $np
		              | if ($np | type) == "object" and ($np | length) > 0
		                then ($np | to_entries | (map(.value) | add) as $all
		                      | " on " + (map("node \(.key) \(100 * .value / $all | round)%") | join(" ")))
		                else "" end)]
		         | unique | join(", ")
		         | if . == "" then "-" else . end)]
		     + [$ks[] as $k | ([$r.bench.results[]? | select(.kernel == $k)][0].best_mbs // "-") | tostring]
		     + [$r.status + (if $r.binding.verified == true then ", binding verified" else "" end)]
		   | @tsv)' "$RESULTS_DIR"/step-*.json |
		awk -F'\t' -v peak="${PEAK_MBS:-}" '
			NR == 1 { np = $1; next }
			NR == 2 { nk = NF - np - 3
				  line = "|"; sep = "|"
				  for (i = 1; i <= NF; i++) {
					h = $i
					if (i > np + 2 && i <= np + 2 + nk) h = h " MB/s" (peak != "" ? " (% peak)" : "")
					line = line " " h " |"
					sep = sep ((i > np + 2 && i <= np + 2 + nk) ? " ---: |" : " --- |")
				  }
				  print line; print sep; next }
			{ line = "|"
			  for (i = 1; i <= NF; i++) {
				c = $i
				if (i > np + 2 && i <= np + 2 + nk && c ~ /^[0-9.eE+-]+$/) {
					c = sprintf("%.1f", c)
					if (peak != "") c = c sprintf(" (%.0f%%)", 100 * $i / peak)
				}
				line = line " " c " |"
			  }
			  print line }'
}

# What else the results directory holds, for the summary's header.
RESULT_FILES='per step: step-NNN.raw (bench output), step-NNN.json'

# shellcheck disable=SC2016 # the backquotes are Markdown
summary_header() {
	printf '# %s on %s\n\n' "$PROG" "$(host_name)"
	printf -- '- command: `%s`\n' "$(printf '%q ' "$0" "${ORIG_ARGS[@]}" | sed 's/ $//')"
	printf -- '- bench: `%s`, built with `%s`\n' "$BENCH" "$BUILD_CFLAGS"
	printf -- '- OpenMP runtime: %s (from %s)\n' "$RUNTIME" "$RUNTIME_HOW"
	printf -- '- theoretical peak: %s\n' "$PEAK_NOTE"
	printf -- '- provenance: provenance.txt; %s\n' "$RESULT_FILES"
	printf '\n## Settings\n\n'
	if [ ${#SETTINGS[@]} -eq 0 ]; then printf 'None changed.\n'; else printf -- '- %s\n' "${SETTINGS[@]}"; fi
}

summary_footer() {
	if [ ${#WARNINGS[@]} -gt 0 ]; then
		printf '\n## Warnings\n\n'
		printf -- '- %s\n' "${WARNINGS[@]}"
	fi
}

# session_end BODY_FUNCTION: write summary.md from the header, the body the
# caller prints, and the warnings; print it; set the exit status.
session_end() {
	[ "$DRY_RUN" = 0 ] || return 0
	{ summary_header; printf '\n'; "$@"; summary_footer; } | atomic_write "$RESULTS_DIR/summary.md"
	cat "$RESULTS_DIR/summary.md"
	note "results in $RESULTS_DIR"
	[ "$FAILED_STEPS" -eq 0 ] || exit 1
}

# summary_latency_table: sizes down, one column per step, ns per load.
summary_latency_table() {
	jq -s -r '
		[.[] | (.params | to_entries | .[0].value | tostring)] as $cols
		| [.[] | [.latency.curve[]? | {key: (.size_mb | tostring), value: .ns}] | from_entries] as $maps
		| ([.[] | .latency.curve[]?.size_mb] | unique) as $sizes
		| (["Size MB"] + ($cols | map(. + " ns")) | @tsv),
		  ($sizes[] as $s | [($s | tostring)] + [$maps[] | (.[$s | tostring] // "-") | tostring] | @tsv)
	' "$RESULTS_DIR"/step-*.json |
		awk -F'\t' '
			NR == 1 { line = "|"; sep = "|"
				  for (i = 1; i <= NF; i++) { line = line " " $i " |"; sep = sep " ---: |" }
				  print line; print sep; next }
			{ line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line }'
	# The step statuses, so a failed mode is not mistaken for a missing size.
	printf '\n| Step | Mode | Status |\n| ---: | --- | --- |\n'
	jq -r '"| \(.step) | \(.params | to_entries | map(.value | tostring) | join(" ")) | \(.status) |"' \
		"$RESULTS_DIR"/step-*.json
}

# SUMMARY_JQ_MD: md, jq's text as a Markdown table cell (control
# characters made spaces, a backslash and | escaped, < > & as entities:
# the summary is read rendered); n1, a number to one decimal, else "-".
# shellcheck disable=SC2016 # jq programs, not shell expansions
SUMMARY_JQ_MD='def md: tostring | gsub("[[:cntrl:]]"; " ") | gsub("\\\\"; "\\\\")
	| gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;") | gsub("\\|"; "\\|");
	def n1: if type == "number" then (. * 10 | round / 10 | tostring) else "-" end;'

# summary_hierarchy_table: bench hierarchy's table (also at the end of
# bench all, so make run's summary has it), a row per step, level and
# thread count: working set, Read/Write/Copy/Triad MB/s, latency ns, and
# the reason where a row was not measured; then each level with no row
# and why.  Prints nothing where no step has a hierarchy.
summary_hierarchy_table() {
	jq -e -s 'any(.[]; (.bench.hierarchy // []) != [])' "$RESULTS_DIR"/step-*.json >/dev/null || return 0
	printf '\n## Memory hierarchy\n\n'
	printf '| Step | Level | Threads | Working set bytes | Read MB/s | Write MB/s | Copy MB/s | Triad MB/s | Latency ns | Note |\n'
	printf '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n'
	jq -r "$SUMMARY_JQ_MD"'
		. as $r | .bench.hierarchy[]? | "| \($r.step) | \(.level | md) | \(.threads | md) | \(.working_set_bytes | md) | \(.read_mbs | n1) | \(.write_mbs | n1) | \(.copy_mbs | n1) | \(.triad_mbs | n1) | \(.latency_ns | n1) | \(if .measured then (if .told_apart == false then "not told apart from the next level" else "" end) else (.why // "" | md) end) |"' \
		"$RESULTS_DIR"/step-*.json
	jq -e -s 'any(.[]; (.bench.hierarchy_skipped // []) != [])' "$RESULTS_DIR"/step-*.json >/dev/null || return 0
	printf '\nLevels with no row:\n\n'
	jq -r "$SUMMARY_JQ_MD"'. as $r | .bench.hierarchy_skipped[]? | "- step \($r.step): \(md)"' "$RESULTS_DIR"/step-*.json
}

# summary_stream_hierarchy: the STREAM table, then the hierarchy's where
# the run has one (bench all, make run).
summary_stream_hierarchy() {
	summary_stream_table
	summary_hierarchy_table
}

# summary_mix_table: bench mix's table, a row per step and mix: plain and
# streaming MB/s (best repetition); a step that failed shows none.
summary_mix_table() {
	printf '| Step | Mix | Kernel | R:W | Plain MB/s | Streaming MB/s | Status |\n'
	printf '| ---: | --- | --- | --- | ---: | ---: | --- |\n'
	jq -r "$SUMMARY_JQ_MD"'
		. as $r | if (.bench.mix.rows // []) == [] then "| \(.step) | - | - | - | - | - | \(.status | md) |"
		else .bench.mix.rows[] | "| \($r.step) | \(.mix | md) | \(.kernel | md) | \(.reads | md):\(.writes | md) | \(if $r.exit_status == 0 then (.plain.best_mbs | n1) else "-" end) | \(if $r.exit_status == 0 then (.nt.best_mbs | n1) else "-" end) | \($r.status | md) |" end' \
		"$RESULTS_DIR"/step-*.json
}

# summary_c2c_table: bench c2c's summary, a row per step and relation of
# its CPUs: pairs, the least minimum and the median of the medians, over
# the cells that ran on their CPUs; then how many cells were marked.
summary_c2c_table() {
	printf '| Step | Relation | Pairs | On their CPUs | Min ns | Median ns | Status |\n'
	printf '| ---: | --- | ---: | ---: | ---: | ---: | --- |\n'
	jq -r "$SUMMARY_JQ_MD"'
		. as $r | if (.bench.c2c.summary // []) == [] then "| \(.step) | - | - | - | - | - | \(.status | md) |"
		else .bench.c2c.summary[] | "| \($r.step) | \(.relation | md) | \(.pairs | md) | \(.pairs_on_cpus | md) | \(if $r.exit_status == 0 then (.min_ns | n1) else "-" end) | \(if $r.exit_status == 0 then (.median_ns | n1) else "-" end) | \($r.status | md)\(if ($r.bench.c2c.marked // 0) > 0 then ", \($r.bench.c2c.marked | md) cells marked" else "" end) |" end' \
		"$RESULTS_DIR"/step-*.json
}

# summary_nodes_table: bench nodes' matrices, a row per step, matrix and
# cell: its figure (ns or MB/s), and whether its binding held: "yes",
# "NO" with what did not (its threads' CPUs, its pages' node), "refused"
# with the kernel's error, or "unknown" where the kernel did not say
# where the pages are.  A failed step shows no figure.
summary_nodes_table() {
	printf '| Step | Matrix | CPUs of node | Memory of node | Value | Unit | Binding held | Status |\n'
	printf '| ---: | --- | ---: | ---: | ---: | --- | --- | --- |\n'
	jq -r "$SUMMARY_JQ_MD"'
		def held: if .binding != "ok" then "refused (\(.error | md))" elif .held == true then "yes"
			elif .cpus_held != true then "NO: threads ran elsewhere" elif .pages_known != true then "unknown: pages"
			else "NO: pages elsewhere" end;
		. as $r | if (.bench.nodes.matrices // []) == [] then "| \(.step) | - | - | - | - | - | - | \(.status | md) |"
		else .bench.nodes.matrices[] | (.kernel // .matrix) as $m | .unit as $u | .cells[]
		| "| \($r.step) | \($m | md) | \(.cpu_node | md) | \(.mem_node | md) | \(if $r.exit_status == 0 then (.value | n1) else "-" end) | \($u | md) | \(held) | \($r.status | md) |" end' \
		"$RESULTS_DIR"/step-*.json
}
