# shellcheck shell=bash
# harness/lib/node-matrices.sh: harness/report's tables and heatmaps of bench nodes' matrices.
# Needs: messages.sh, plots.sh, and from harness/report JQ_DEFS and JQ_MATRIX (its jq definitions) and PLOT.  Sourced after them, never run.

# bench nodes: per run, each matrix (latency, then a kernel's bandwidth)
# as bench prints it, on matrix_table and plot_heatmap, a cell that did
# not hold written with its mark and not coloured; and every cell a row.
# shellcheck disable=SC2016 # jq programs, not shell expansions
JQ_NODES='
def nodes_runs: [.[] | select(.doc.mode? == "nodes")];
def nodes_mark: if .held == true then "" elif .cpus_held != true or .pages_known == true then "!" else "?" end;
def nodes_text: if .binding != "ok" then "refused" elif .validated == false then "FAILED" + nodes_mark
	else (.value | f1) + nodes_mark end;
def nodes_cells: [.cells[]? | {row: .cpu_node, col: .mem_node, text: nodes_text,
	value: (if .held == true and .validated != false then (.value | num) else null end)}];
def nodes_title($r): "Node matrix, \($r.id): \(if .matrix == "latency" then "idle latency" else "\(.kernel) bandwidth" end) (\(.unit)); rows: the CPUs'"'"' node, columns: the memory'"'"'s node; ! binding did not hold, ? pages not known";
'

# table_nodes I M RECORDS: the M-th matrix of the I-th nodes run (0-based).
table_nodes() {
	jq -s -r --argjson i "$1" --argjson m "$2" "$JQ_DEFS$JQ_MATRIX$JQ_NODES"'
		nodes_runs[$i] as $r | ($r.doc.nodes.matrices[$m] // empty) | nodes_title($r) as $t
		| if ($r | failed) then $t, "s\ts", "node\tStatus", (["", ($r | shown_status)] | map(clean) | @tsv)
		  else nodes_cells | matrix_table($t; "node") end' "$3"
}

# table_nodes_cells RECORDS: every cell of every nodes run, a row each.
table_nodes_cells() {
	jq -s -r "$JQ_DEFS$JQ_MATRIX$JQ_NODES"'
		nodes_runs as $n | if ($n | length) == 0 then empty else
		"Node matrices: every cell, where its threads ran and its pages lay",
		"s\ts\ti\ti\tf1\ts\ts\ts\ti\ti\ts\ts",
		"Step\tMatrix\tCPUs of node\tMemory of node\tValue\tUnit\tCPUs\tRan on\tPages\tOn the node\tHeld\tStatus",
		($n[] | . as $r | $r.doc.nodes.matrices[]? | (.kernel // .matrix) as $m | .unit as $u | .cells[]?
		 | [$r.id, $m, .cpu_node, .mem_node, (if ($r | failed) or .binding != "ok" then null else .value | num end), $u,
		    (.cpus // [] | map(tostring) | join(" ")), (.ran_on // [] | map(tostring) | join(" ")), .pages,
		    (.node_pages[.mem_node | tostring]? // null),
		    (if .binding != "ok" then "refused: \(.error)" elif .held == true then "yes" else "NO " + nodes_mark end),
		    ($r | shown_status)] | map(if . == null then "" else clean end) | @tsv)
		end' "$1"
}

# plot_nodes RECORDS: a heatmap of each matrix of each nodes run; the
# title names the kernel only when it is a kernel's name (a-z).
plot_nodes() {
	local n i=0 m k what name
	n=$(jq -s -r "$JQ_DEFS$JQ_MATRIX$JQ_NODES"'nodes_runs | map(.doc.nodes.matrices | length) | join(" ")' "$1")
	for m in $n; do
		is_uint "$m" || return 0
		for ((k = 0; k < m; k++)); do
			name=nodes-$((i + 1))-$((k + 1))
			what=$(jq -s -r --argjson i "$i" --argjson m "$k" "$JQ_DEFS$JQ_NODES"'nodes_runs[$i].doc.nodes.matrices[$m] | .kernel // .matrix | tostring' "$1")
			[[ $what =~ ^[a-z]{1,16}$ ]] || what=''
			case "$what" in latency) what="idle latency (ns)" ;; '') what="bandwidth (MB/s)" ;; *) what="$what bandwidth (MB/s)" ;; esac
			jq -s -r --argjson i "$i" --argjson m "$k" "$JQ_DEFS$JQ_MATRIX$JQ_NODES$JQ_GP"'
				nodes_runs[$i] | select(failed | not) | .doc.nodes.matrices[$m] | nodes_cells[]
				| [(.row | gp_text), (.col | gp_text), (.value | gp_num), (.text | gp_text)] | join("\t")' \
				"$1" >"$PLOT/$name.cells"
			plot_heatmap "$name" "Node matrix, $what; ! binding did not hold, ? pages unknown" \
				"memory's node" "CPUs' node" "$PLOT/$name.cells"
		done
		i=$((i + 1))
	done
}

# tables_nodes RECORDS DIR: every table above into DIR, as report's
# other tables are (NN-name.tsv, so report-node-matrix-01-2.csv: the
# first nodes run's second matrix), each run's matrices, then the cells.
tables_nodes() {
	local i=0 n k
	for n in $(jq -s -r "$JQ_DEFS$JQ_MATRIX$JQ_NODES"'nodes_runs | map(.doc.nodes.matrices | length) | join(" ")' "$1"); do
		is_uint "$n" || return 0
		for ((k = 0; k < n; k++)); do
			table_nodes "$i" "$k" "$1" >"$2/$(printf '60-node-matrix-%02d-%d' $((i + 1)) $((k + 1))).tsv"
		done
		i=$((i + 1))
	done
	table_nodes_cells "$1" >"$2/69-node-matrix-cells.tsv"
}
