# shellcheck shell=bash
# harness/lib/hierarchy-plot.sh: harness/report's plot of bench hierarchy --ws-sweep (bandwidth against working set, with the level edges).
# Needs: messages.sh, plots.sh, and from harness/report JQ_DEFS (its jq definitions) and PLOT.  Sourced after them, never run.

# plot_hierarchy: bench hierarchy --ws-sweep's Copy bandwidth against the
# working set, a line for 1 thread and one for all, from the first run
# that has the sweep, with each level's edge from its latency summary as
# a vertical line (dashed grey where the summary named the level
# uncertainly) labelled with the level's name.  The names reach gnuplot
# as data (gp_text), the numbers only where the JSON holds numbers.
plot_hierarchy() {
	local recs=$1 range ymin ymax lo hi
	jq -s -r "$JQ_DEFS$JQ_GP"'
		hsweep_runs[0] as $r
		| if $r == null then empty else
		  ($r.doc.hierarchy_sweep.points[] | select((.working_set_bytes | num) != null)
		   | select((.copy_mbs | num) != null) | select(.copy_mbs > 0)
		   | "pt\t\(.threads | gp_num)\t\(.working_set_bytes)\t\(.copy_mbs)"),
		  ($r.doc.hierarchy_edges[]? | select((.bytes | num) != null) | select(.bytes > 0)
		   | "edge\t\(.level | gp_text)\t\(.bytes)\t\(if .certain == true then 1 else 0 end)")
		  end' \
		"$recs" >"$PLOT/hier.tsv" 2>/dev/null || return 0
	grep -q '^pt' "$PLOT/hier.tsv" || return 0
	range=$(cd "$PLOT" && awk -F'\t' 'BEGIN { OFS = "\t" }
		FNR == NR {
			if ($1 == "pt") {
				if (lo == "" || $3 < lo) lo = $3; if (hi == "" || $3 > hi) hi = $3
				if (ymn == "" || $4 < ymn) ymn = $4; if (ymx == "" || $4 > ymx) ymx = $4
				if (one == "" || $2 < one) one = $2
			}
			next
		}
		FNR == 1 { ymin = ymn / 2; ymax = ymx * 3 }
		$1 == "pt" && $2 ~ /^[0-9]+$/ {
			f = ($2 == one ? "sweep-one.dat" : "sweep-all.dat")
			if (!(f in head)) { head[f] = 1; print "\"" ($2 == one ? "1 thread" : $2 " threads") "\"\tMB/s" > f }
			print $3, $4 > f
		}
		$1 == "edge" && $3 >= lo / 2 && $3 <= hi * 2 {
			f = ($4 == 1 ? "edge-sure.dat" : "edge-doubt.dat")
			print $3, ymin "\n" $3, ymax "\n" > f
			print $3, ymax / 1.6, $2 ($4 == 1 ? "" : "?") > "edge-label.dat"
		}
		END { print ymin, ymax, lo / 1.2, hi * 1.2 }' hier.tsv hier.tsv)
	IFS=$'\t' read -r ymin ymax lo hi <<<"$range"
	if ! is_plain_number "$ymin" || ! is_plain_number "$ymax" || ! is_plain_number "$lo" || ! is_plain_number "$hi"; then
		note "the hierarchy sweep's ranges are not numbers; no hierarchy plot"
		return 0
	fi
	{
		printf 'set title "Copy bandwidth against working set (both arrays, all threads), with the latency analysis'"'"' level edges"\n'
		printf 'set xlabel "working set (bytes, log2 axis)"\nset ylabel "MB/s (log axis)"\n'
		printf 'set logscale x 2\nset logscale y 10\nset grid\nset key bottom left\n'
		printf 'set xrange [%s:%s]\nset yrange [%s:%s]\n' "$lo" "$hi" "$ymin" "$ymax"
		size_tics "$lo" "$hi"
		printf 'plot "sweep-one.dat" using 1:2 with linespoints lt 1 pt 7 ps 0.6 title columnheader(1)'
		[ ! -f "$PLOT/sweep-all.dat" ] || printf ', "sweep-all.dat" using 1:2 with linespoints lt 2 pt 5 ps 0.6 title columnheader(1)'
		[ ! -f "$PLOT/edge-sure.dat" ] || printf ', "edge-sure.dat" using 1:2 with lines lc rgb "black" dt 2 title "level edge"'
		[ ! -f "$PLOT/edge-doubt.dat" ] || printf ', "edge-doubt.dat" using 1:2 with lines lc rgb "gray50" dt 3 lw 1.5 title "uncertain edge (?)"'
		[ ! -f "$PLOT/edge-label.dat" ] || printf ', "edge-label.dat" using 1:2:3 with labels left offset 0.3,0 notitle'
		printf '\n'
	} >"$PLOT/hierarchy.gp"
	plot_both hierarchy
}
