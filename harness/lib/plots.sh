# shellcheck shell=bash
# harness/lib/plots.sh: harness/report's figures: the gnuplot scripts (fixed text) and the data files they read, as SVG and PNG.
# Needs: messages.sh, and from harness/report JQ_DEFS (its jq definitions) and PLOT (the directory a figure is drawn in).  Sourced after them, never run.

# Data never becomes code.  The gnuplot scripts below are fixed text: every
# label, title and number that came from a result reaches gnuplot in a
# data file it reads (tab-separated), never in the script.  In those files
# a number is written only where the JSON holds a number (else NaN, which
# gnuplot skips), and text passes gp_text: one line of at most 80
# characters, with '\', '"' and '#' written as gnuplot's own escapes, so
# that no field ends early or turns its line into a comment.  The few
# numbers a script itself holds (axis ranges, tics, the clock in an axis
# label) are derived from such numbers and pass is_plain_number before
# they are written; one that does not is left out, with a note.
# shellcheck disable=SC2016 # jq programs, not shell expansions
JQ_GP='
def gp_text: tostring | gsub("[[:cntrl:]]"; " ") | .[0:80]
	| gsub("\\\\"; "\\\\") | gsub("\""; "\\042") | gsub("#"; "\\043");
def gp_num: if type == "number" then tostring else "NaN" end;
'

# is_plain_number S: S is a decimal number as JSON writes one, and nothing else.
is_plain_number() { [[ $1 =~ ^-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# plot_both NAME: run $PLOT/NAME.gp for SVG and for PNG.  gnuplot runs in
# $PLOT and writes plot.svg / plot.png there: no path enters the script.
plot_both() {
	local name=$1 t
	for t in svg png; do
		{
			if [ "$t" = svg ]; then
				printf 'set terminal svg size 800,480 font "sans,11" background rgb "white"\n'
			else
				printf 'set terminal pngcairo size 800,480 font "sans,10" background rgb "white"\n'
			fi
			printf 'set termoption noenhanced\nset datafile separator tab\nset output "plot.%s"\n' "$t"
			cat "$PLOT/$name.gp"
		} >"$PLOT/$name-$t.gp"
		rm -f "$PLOT/plot.$t"
		(cd "$PLOT" && gnuplot "$name-$t.gp") >"$PLOT/$name.log" 2>&1 ||
			die "gnuplot failed on plot $name: $(grep -v '^$' "$PLOT/$name.log" | tail -n 1)"
		mv -f "$PLOT/plot.$t" "$W/out/plot-$name.$t"
	done
	PLOTS_MADE+=("$name")
}

# size_tics MIN MAX: gnuplot xtics at powers of 2 (every other one when the
# range is wide), labelled in B/K/M/G.  MIN and MAX are checked numbers.
size_tics() {
	is_plain_number "$1" && is_plain_number "$2" || return 0
	awk -v lo="$1" -v hi="$2" 'BEGIN {
		p = 1; while (p * 2 <= lo) p *= 2
		n = 0; for (q = p; q <= hi * 2; q *= 2) n++
		step = n > 12 ? 4 : 2; if (n <= 6) step = 2
		s = ""
		for (q = p; q <= hi * 1.01; q *= step) {
			if (q >= 1073741824) l = q / 1073741824 "G"; else if (q >= 1048576) l = q / 1048576 "M"
			else if (q >= 1024) l = q / 1024 "K"; else l = q
			s = s (s == "" ? "" : ", ") "\"" l "\" " q
		}
		print "set xtics (" s ")"
	}'
}

# LAT_LABEL_AWK: place_labels(), for plot_latency's awk.  The labels
# (lx, ly, ltext, lser, lright: x, the plateau's ns, text, series, and
# 1 for a label that ends at x rather than starts there; nl of them)
# get their y in py, as log(ns), in an order that depends on nothing but
# them (by ns, then series, then x): each goes up, a label's height at
# a time, until it covers no label placed before it.  A label takes
# 0.045 of the frame's height (a line of the 800x480 plot's frame of
# about 380 pixels, with room between) and 0.0105 of its width a
# character (about 7 of its 680 pixels), from its x on.  Where
# the top label would leave the frame the y range grows (ymax), and the
# labels are placed again on the new scale.
LAT_LABEL_AWK='
# a label across the frame: from lab_x to lab_x + lab_w
function lab_w(k) { return length(ltext[k]) * 0.0105 }
function lab_x(k) { return (wx > 0 ? (log(lx[k]) - log(lo)) / wx : 0) - (lright[k] ? lab_w(k) : 0) }
function lab_before(a, b) {
	if (ly[a] != ly[b]) return ly[a] < ly[b]
	if (lser[a] != lser[b]) return lser[a] + 0 < lser[b] + 0
	return lx[a] + 0 < lx[b] + 0
}
function place_labels(   i, j, k, m, t, h, it, moved, peak, ord) {
	wx = log(hi) - log(lo)
	for (k = 1; k <= nl; k++) {
		ord[k] = k
		for (j = k; j > 1 && lab_before(ord[j], ord[j - 1]); j--) { t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t }
	}
	for (it = 0; it < 8; it++) {
		h = 0.045 * (log(ymax) - log(ymin))
		peak = ""
		for (i = 1; i <= nl; i++) {
			k = ord[i]; py[k] = log(ly[k])
			do {
				moved = 0
				for (j = 1; j < i; j++) {
					m = ord[j]
					if (lab_x(k) < lab_x(m) + lab_w(m) && lab_x(m) < lab_x(k) + lab_w(k) &&
					    py[k] > py[m] - h && py[k] < py[m] + h) { py[k] = py[m] + h; moved = 1 }
				}
			} while (moved)
			if (peak == "" || py[k] > peak) peak = py[k]
		}
		# a label sits 0.8 of a line above its y (the script offset)
		if (peak == "" || peak + 1.4 * h <= log(ymax)) break
		ymax = exp(peak + 1.5 * h)
	}
}
'
# plot_latency: one line per curve (record and stride) with its plateaus
# (thick segments labelled with their ns) and boundaries (dashed) in the
# curve's colour, the OS-reported cache sizes in grey, dotted; a failed
# run is a key entry that says FAILED.  Each thick line stands for a
# figure of the curve it is drawn on, the full random chase: its end is
# the summary's tail (the median of its last points, over those points'
# sizes), never memory's own latency, which is the TLB-local chase's and
# is drawn beside that chase (plot_latency_tlb).  So a run whose caches
# and TLBs were measured apart (summary.memory) draws no DRAM level here;
# its cache levels stay, as the curves agree below the TLBs' reach.
# jq writes lat.tsv, one line per series, point, level and OS cache; awk
# splits it into the data files gnuplot reads, with the vertical lines
# running from the bottom of the y range to its top, and places the
# labels so that none covers another (lat_label_awk).
plot_latency() {
	local recs=$1 n i ymin ymax lo hi mhz range sep
	jq -s -r "$JQ_DEFS$JQ_GP"'
		def positive: num // 0 | . > 0;
		lat_runs as $lat
		| [$lat[] | select(failed | not) | . as $r | ($r.doc | lat) as $L
		 | ($L.run.strides // [($L.curve // [])[0].stride]) as $st | $st[] as $s
		 | {r: $r, L: $L, s: $s, many: (($st | length) > 1)}] | to_entries[]
		| .key as $i | .value as $v
		| "series\t\($i)\t" + ("\($v.r.id) \($v.r | plabel)\(if $v.many then " stride \($v.s)" else "" end)" | gp_text) + "\t\($v.L.clock.mhz | gp_num)",
		  ($v.L.curve[]? | select(.stride == $v.s and (.bytes | positive) and (.ns | positive))
		   | "point\t\($i)\t\(.bytes)\t\(.ns)"),
		  (($v.L.summary // [])[] | select(.stride == $v.s) | . as $sum
		   | ((.levels[]? | select(.name != "DRAM" or $sum.memory == null)
		       | select((.ns | positive) and (.from_bytes | positive) and (.to_bytes | positive))
		       | "level\t\($i)\t\(.name | gp_text)\t\(.ns)\t\(.from_bytes)\t\(.to_bytes)\t\(.boundary_bytes | gp_num)"),
		      (.tail | objects | select((.ns | positive) and (.from_bytes | positive) and (.bytes | positive))
		       | "tail\t\($i)\ttail\t\(.ns)\t\(.from_bytes)\t\(.bytes)\tNaN"))),
		  ($v.r.doc.system.caches[]? | select(.type != "Instruction" and (.bytes | type) == "number")
		   | "os\t\(.name | gp_text)\t\(.bytes)"),
		  ($lat | to_entries[] | select(.value | failed)
		   | "failed\t\(.key)\t" + ("\(.value.id) \(.value | plabel): FAILED" | gp_text))' "$recs" >"$PLOT/lat.tsv"
	grep -q '^point' "$PLOT/lat.tsv" || return 0
	# Pass 1 finds the ranges and the labels; pass 2 places the labels,
	# writes the data files, named by the series index jq counted, and
	# prints the ranges for the script.
	range=$(cd "$PLOT" && awk -F'\t' "$LAT_LABEL_AWK"'BEGIN { OFS = "\t" }
		FNR == NR {
			if ($1 == "point") {
				if (ymn == "" || $4 < ymn) ymn = $4; if (ymx == "" || $4 > ymx) ymx = $4
				if (lo == "" || $3 < lo) lo = $3; if (hi == "" || $3 > hi) hi = $3
			}
			# a level'"'"'s label starts where it starts; the tail'"'"'s, at the
			# end of the curve, ends where it ends
			if (($1 == "level" || $1 == "tail") && $2 ~ /^[0-9]+$/) {
				nl++; lser[nl] = $2; ly[nl] = $4; ltext[nl] = $3 " " sprintf("%.3g", $4) " ns"
				lright[nl] = $1 == "tail"; lx[nl] = lright[nl] ? $6 : $5
			}
			next
		}
		FNR == 1 {
			ymin = ymn * 0.8; ymax = ymx * 1.3
			place_labels()
			top = exp(log(ymin) + 0.97 * (log(ymax) - log(ymin)))
		}
		$2 !~ /^[0-9]+$/ && $1 != "os" { next }
		$1 == "series" { print "\"" $3 "\"\tns" > ("lat-" $2 ".dat") }
		$1 == "point" { print $3, $4 > ("lat-" $2 ".dat") }
		$1 == "level" || $1 == "tail" {
			print $5, $4 "\n" $6, $4 "\n" > ("plateau-" $2 ".dat")
			if ($7 != "NaN" && $7 >= lo && $7 <= hi) print $7, ymin "\n" $7, ymax "\n" > ("boundary-" $2 ".dat")
		}
		$1 == "os" && !seen[$3]++ && $3 >= lo && $3 <= hi {
			print $3, ymin "\n" $3, ymax "\n" > "os.dat"
			print $3, top, $2 " (OS)" > "oslabel.dat"
		}
		$1 == "failed" { print "\"" $3 "\"\tns\n" lo, ymax * 100 > ("failed-" $2 ".dat") }
		END {
			# gnuplot draws no label whose point is on the frame: the
			# tail'"'"'s, at the largest size, goes a hair inside
			for (k = 1; k <= nl; k++) print (lright[k] ? lx[k] / 1.004 : lx[k]), exp(py[k]), ltext[k] > ((lright[k] ? "ptail-" : "plabel-") lser[k] ".dat")
			print ymin, ymax, lo, hi
		}' lat.tsv lat.tsv)
	IFS=$'\t' read -r ymin ymax lo hi <<<"$range"
	if ! is_plain_number "$ymin" || ! is_plain_number "$ymax" || ! is_plain_number "$lo" || ! is_plain_number "$hi"; then
		note "the latency curve's ranges are not numbers; no latency plot"
		return 0
	fi
	mhz=$(awk -F'\t' '$1 == "series" && $4 != "NaN" { print $4; exit }' "$PLOT/lat.tsv")
	if [ -n "$mhz" ] && ! is_plain_number "$mhz"; then
		note "the clock of the first latency curve is not a number; no cycles axis"
		mhz=''
	fi
	{
		printf 'set title "Latency: ns per dependent load against chain size"\n'
		printf 'set xlabel "chain size (bytes, log2 axis)"\nset ylabel "ns per load"\n'
		printf 'set logscale x 2\nset logscale y\nset yrange [%s:%s]\nset ytics 2 nomirror format "%%g"\nset grid\n' "$ymin" "$ymax"
		size_tics "$lo" "$hi"
		if [ -n "$mhz" ]; then
			# cycles = ns * MHz / 1000, the clock bench measured for the first curve
			printf 'set logscale y2\nset y2range [%s:%s]\nset y2tics 2 format "%%g"\nset y2label "cycles at %s MHz"\n' \
				"$(awk -v a="$ymin" -v m="$mhz" 'BEGIN { print a * m / 1000 }')" \
				"$(awk -v a="$ymax" -v m="$mhz" 'BEGIN { print a * m / 1000 }')" "$(printf '%.0f' "$mhz")"
		fi
		printf 'set key top left\n'
		printf 'plot '
		sep=''
		n=0
		while IFS=$'\t' read -r _ i _; do
			[[ $i =~ ^[0-9]+$ ]] || continue
			[ -f "$PLOT/lat-$i.dat" ] || continue
			printf '%s"lat-%s.dat" using 1:2 with linespoints lt %d pt 7 ps 0.5 title columnheader(1)' "$sep" "$i" "$((i + 1))"
			sep=', '
			[ ! -f "$PLOT/plateau-$i.dat" ] ||
				printf ', "plateau-%s.dat" using 1:2 with lines lw 4 lt %d notitle' "$i" "$((i + 1))"
			[ ! -f "$PLOT/plabel-$i.dat" ] ||
				printf ', "plabel-%s.dat" using 1:2:3 with labels left offset 0,0.8 tc lt %d notitle' "$i" "$((i + 1))"
			[ ! -f "$PLOT/ptail-$i.dat" ] ||
				printf ', "ptail-%s.dat" using 1:2:3 with labels right offset 0,0.8 tc lt %d notitle' "$i" "$((i + 1))"
			[ ! -f "$PLOT/boundary-$i.dat" ] ||
				printf ', "boundary-%s.dat" using 1:2 with lines dt 2 lt %d notitle' "$i" "$((i + 1))"
			n=$((n + 1))
		done < <(awk -F'\t' '$1 == "series"' "$PLOT/lat.tsv")
		[ ! -f "$PLOT/os.dat" ] ||
			printf ', "os.dat" using 1:2 with lines dt 3 lw 2 lc rgb "#808080" notitle, "oslabel.dat" using 1:2:3 with labels right rotate by 90 tc rgb "#606060" notitle'
		printf ', NaN with lines lw 4 lc rgb "#404040" title "plateau", NaN with lines dt 2 lc rgb "#404040" title "boundary"'
		[ ! -f "$PLOT/os.dat" ] || printf ', NaN with lines dt 3 lw 2 lc rgb "#808080" title "OS cache size"'
		while IFS=$'\t' read -r _ i _; do
			if ! [[ $i =~ ^[0-9]+$ ]] || [ ! -f "$PLOT/failed-$i.dat" ]; then continue; fi
			printf ', "failed-%s.dat" using 1:2 with points pt 2 lc rgb "#c00000" title columnheader(1)' "$i"
		done < <(awk -F'\t' '$1 == "failed"' "$PLOT/lat.tsv")
		printf '\n'
	} >"$PLOT/latency.gp"
	[ "$n" -gt 0 ] && plot_both latency
}

# plot_latency_tlb: caches against TLBs in one picture, for the first
# latency run whose bench measured them apart (its JSON's probes): the
# full random chase (the curve, first stride), the TLB-local chase (the
# caches and memory alone) and the line-a-page chase (the TLBs: x is the
# span of its pages), with each measured TLB's reach dashed.  jq writes
# the data files directly, one per curve, titles through gp_text.
plot_latency_tlb() {
	local recs=$1 lo hi f
	jq -s -r "$JQ_DEFS$JQ_GP"'
		tlb_runs[0] // empty
		| .L as $L | ($L.summary[0].stride) as $s
		| ($L.curve[] | select(.stride == $s) | "full\t\(.bytes | gp_num)\t\(.ns | gp_num)"),
		  ($L.probes.tlb_local[] | "local\t\(.bytes | gp_num)\t\(.ns | gp_num)"),
		  ($L.probes.line_a_page[] | "lpage\t\(.bytes | gp_num)\t\(.ns | gp_num)"),
		  ($L.summary[0].tlbs // [] | to_entries[]
		   | "reach\t\(.value.reach_bytes | gp_num)\t" + ("L\(.key + 1) TLB \(.value.entries | round) x \(.value.page_bytes / 1024 | round) KiB" | gp_text))' \
		"$recs" >"$PLOT/tlb.tsv"
	grep -q '^lpage' "$PLOT/tlb.tsv" || return 0
	# pass 1: the ranges; pass 2: the data files, the reaches spanning them
	read -r lo hi ymin ymax < <(cd "$PLOT" && awk -F'\t' 'BEGIN { OFS = "\t" }
		FNR == NR {
			if ($1 ~ /^(full|local|lpage)$/ && $2 != "NaN" && $3 != "NaN") {
				if (lo == "" || $2 < lo) lo = $2; if (hi == "" || $2 > hi) hi = $2
				if (ymn == "" || $3 < ymn) ymn = $3; if (ymx == "" || $3 > ymx) ymx = $3
			}
			next
		}
		FNR == 1 { ymin = ymn * 0.8; ymax = ymx * 1.3 }
		$1 == "full" || $1 == "local" || $1 == "lpage" { print $2, $3 > ("tlb-" $1 ".dat") }
		$1 == "reach" && $2 != "NaN" { print $2, ymin "\n" $2, ymax "\n" > "tlb-reach.dat"; print $2, ymin * 1.1, $3 > "tlb-rlabel.dat" }
		END { print lo, hi, ymin, ymax }' tlb.tsv tlb.tsv)
	if ! is_plain_number "$ymin" || ! is_plain_number "$ymax"; then
		note "the TLB probes' ranges are not numbers; no caches-against-TLBs plot"
		return 0
	fi
	{
		printf 'set title "Caches against TLBs: three chases of one run"\n'
		printf 'set xlabel "footprint (bytes, log2 axis; line-a-page: the span of its pages)"\nset ylabel "ns per load"\n'
		printf 'set logscale x 2\nset logscale y\nset yrange [%s:%s]\nset ytics 2 nomirror format "%%g"\nset grid\nset key top left\n' "$ymin" "$ymax"
		size_tics "$lo" "$hi"
		printf 'plot "tlb-full.dat" using 1:2 with linespoints lt 1 pt 7 ps 0.5 title "full random (the curve)"'
		printf ', "tlb-local.dat" using 1:2 with linespoints lt 2 pt 7 ps 0.5 title "TLB-local (caches, memory)"'
		printf ', "tlb-lpage.dat" using 1:2 with linespoints lt 3 pt 7 ps 0.5 title "a line a page (TLBs)"'
		f=''
		[ ! -f "$PLOT/tlb-reach.dat" ] || f=', "tlb-reach.dat" using 1:2 with lines dt 2 lc rgb "#606060" title "measured TLB reach", "tlb-rlabel.dat" using 1:2:3 with labels left rotate by 90 tc rgb "#404040" notitle'
		printf '%s\n' "$f"
	} >"$PLOT/latency-tlb.gp"
	plot_both latency-tlb
}

# plot_lines NAME XKEY XLABEL RECORDS: bandwidth per kernel against a step
# parameter (x LLC is turned into bytes per array), one line per kernel,
# titled from the data file's header; with x LLC each step's multiple is
# a dotted line and a label, on a y2 axis that spans the plot (0 to 1); a
# failed step is a FAILED label at its x, where it has one.
plot_lines() {
	local name=$1 xkey=$2 xlabel=$3 recs=$4 nk i lo hi
	jq -s -r --arg x "$xkey" --arg name "$name" "$JQ_DEFS$JQ_GP"'
		def xval: if $x == "x LLC" then (((.doc.run.arrays? // [])[0]?.bytes?) | num) else (.params[$x] | num // (tonumber? // null)) end;
		(map(select(((.doc.results? // []) | length) > 0 and (failed | not)))) as $ok
		# the kernels with a rate that is a number (gnuplot refuses a
		# column that holds none)
		| [($ok | kernels)[] as $k | select([$ok[] | .doc.results[] | select(.kernel == $k) | .best_mbs | numbers] | length > 0) | $k] as $ks
		# a row is a step with an x and at least one rate
		| ([$ok[] | . as $r | xval as $xv | select($xv != null)
		   | {x: $xv, m: .params[$x], v: [$ks[] as $k | ([$r.doc.results[] | select(.kernel == $k) | .best_mbs][0] | gp_num)]}
		   | select(any(.v[]; . != "NaN"))] | sort_by(.x)) as $rows
		| "kernels\t\($ks | length)",
		  "head\t" + ([$x] + $ks | map(gp_text) | join("\t")),
		  ($rows[] | "row\t\(.x)\t" + (.v | join("\t"))),
		  ($rows[] | "llc\t\(.x)\t" + ("\(.m | pval)x LLC" | gp_text)),
		  (.[] | select(failed) | xval as $xv | select($xv != null) | "failed\t\($xv)\t" + ("\(.id) FAILED" | gp_text))' \
		"$recs" >"$PLOT/$name.tsv"
	[ "$(grep -c '^row' "$PLOT/$name.tsv")" -ge 2 ] || return 0
	nk=$(sed -n 's/^kernels\t//p' "$PLOT/$name.tsv")
	[[ $nk =~ ^[0-9]+$ ]] && [ "$nk" -gt 0 ] || return 0
	{ sed -n 's/^head\t//p' "$PLOT/$name.tsv"; sed -n 's/^row\t//p' "$PLOT/$name.tsv"; } >"$PLOT/$name.dat"
	sed -n 's/^llc\t//p' "$PLOT/$name.tsv" >"$PLOT/$name-llc.dat"
	sed -n 's/^failed\t//p' "$PLOT/$name.tsv" >"$PLOT/$name-failed.dat"
	{
		printf 'set title "Bandwidth against %s"\nset xlabel "%s"\nset ylabel "best rate, MB/s"\n' "$xlabel" "$xlabel"
		printf 'set grid\nset key outside right\nset yrange [0:*]\nset y2range [0:1]\nunset y2tics\n'
		if [ "$xkey" = "x LLC" ]; then
			printf 'set logscale x 2\n'
			lo=$(sed -n '2p' "$PLOT/$name.dat" | cut -f1)
			hi=$(tail -n 1 "$PLOT/$name.dat" | cut -f1)
			size_tics "$lo" "$hi"
		fi
		printf 'plot '
		for ((i = 1; i <= nk; i++)); do
			printf '%s"%s.dat" using 1:%d with linespoints lt %d pt 7 title columnheader(%d)' "$([ "$i" = 1 ] || printf ', ')" \
				"$name" "$((i + 1))" "$i" "$((i + 1))"
		done
		if [ "$xkey" = "x LLC" ]; then
			printf ', "%s-llc.dat" using 1:(1) axes x1y2 with impulses dt 3 lc rgb "#909090" notitle' "$name"
			printf ', "%s-llc.dat" using 1:(0.03):2 axes x1y2 with labels left rotate by 90 offset -0.6,0 tc rgb "#505050" notitle' "$name"
		fi
		[ ! -s "$PLOT/$name-failed.dat" ] ||
			printf ', "%s-failed.dat" using 1:(0.5):2 axes x1y2 with labels center rotate by 90 tc rgb "#c00000" notitle' "$name"
		printf '\n'
	} >"$PLOT/$name.gp"
	plot_both "$name"
}

# plot_bars RECORDS: per step or cell, each kernel's best rate as a bar,
# with the spread as error bars: over the runs when a cell ran several
# times, else the run's own repetitions (worst..best rate).  A step or
# cell whose runs all failed keeps its place, labelled FAILED, with no bar.
plot_bars() {
	local recs=$1 nk i
	jq -s -r "$JQ_DEFS$JQ_GP"'
		def rate: .best_mbs | num;
		(map(select(((.doc.results? // []) | length) > 0 and (failed | not)))) as $ok
		# the kernels with a rate that is a number (gnuplot refuses a
		# column that holds none)
		| [($ok | kernels)[] as $k | select([$ok[] | .doc.results[] | select(.kernel == $k) | .best_mbs | numbers] | length > 0) | $k] as $ks
		| "kernels\t\($ks | length)",
		  "head\t" + (["group"] + [$ks[] | ., "low", "high"] | map(gp_text) | join("\t")),
		  "rates\t\([$ok[] | .doc.results[] | .best_mbs | numbers] | length)",
		  (group_by(.group)[] | . as $g
		   | [$g[] | select(((.doc.results? // []) | length) > 0 and (failed | not))] as $gok
		   | if ($gok | length) == 0 then
		       (if any($g[]; failed) then "row\t" + ("\($g[0].group) FAILED" | gp_text) + ([$ks[] | "\tNaN\tNaN\tNaN"] | join("")) else empty end)
		     else
		       "row\t" + ($g[0].group | gp_text) + "\t" + ([$ks[] as $k
		       | [$gok[] | .doc.results[] | select(.kernel == $k)] as $rs
		       | [$rs[] | rate | numbers] as $v
		       | if ($v | length) == 0 then "NaN\tNaN\tNaN"
		         elif ($rs | length) == 1 then
		           ($rs[0] | (.bytes | num) as $b | (.max_s | num) as $t
		            | "\($v[0])\t\(if $b != null and $t != null and $t > 0 then $b / $t / 1e6 else $v[0] end)\t\($v[0])")
		         else "\($v | median)\t\($v | min)\t\($v | max)" end] | join("\t"))
		     end)' \
		"$recs" >"$PLOT/bars.tsv"
	# gnuplot refuses a histogram with no number at all
	awk -F'\t' '$1 == "rates" && $2 > 0 { f = 1 } END { exit !f }' "$PLOT/bars.tsv" || return 0
	nk=$(sed -n 's/^kernels\t//p' "$PLOT/bars.tsv")
	[[ $nk =~ ^[0-9]+$ ]] && [ "$nk" -gt 0 ] || return 0
	{ sed -n 's/^head\t//p' "$PLOT/bars.tsv"; sed -n 's/^row\t//p' "$PLOT/bars.tsv"; } >"$PLOT/bars.dat"
	{
		printf 'set title "Best rate per %s; error bars: spread over runs, or over one run'"'"'s repetitions"\n' "$BARS_WHAT"
		printf 'set ylabel "MB/s"\nset xlabel "%s"\nset grid ytics\nset key outside right\nset yrange [0:*]\n' "$BARS_X"
		printf 'set style data histogram\nset style histogram errorbars gap 1 lw 1\nset style fill solid 0.6 border -1\nset xtics rotate by -30\n'
		printf 'plot '
		for ((i = 0; i < nk; i++)); do
			printf '%s"bars.dat" using %d:%d:%d:xtic(1) lt %d title columnheader(%d)' "$([ "$i" = 0 ] || printf ', ')" \
				"$((3 * i + 2))" "$((3 * i + 3))" "$((3 * i + 4))" "$((i + 1))" "$((3 * i + 2))"
		done
		printf '\n'
	} >"$PLOT/bars.gp"
	plot_both bars
}

# plot_heatmap NAME TITLE XLABEL YLABEL CELLS: a matrix as a heatmap, each
# cell coloured by its value and written with its text.  Generic: any
# matrix with row and column labels (c2c's CPUs; the node matrices').
# CELLS holds a line per cell, tab-separated: row label, column label,
# value (a number, or NaN for no colour) and text, the labels and text
# already passed through gp_text by the caller's jq.  Rows and columns go
# in the order they first appear, the first row at the top, and their
# labels reach gnuplot as data (xtic/ytic from files), never in the
# script; TITLE, XLABEL and YLABEL are the caller's own fixed words.
plot_heatmap() {
	local name=$1 title=$2 xlabel=$3 ylabel=$4 cells=$5 size nr nc any
	[ -s "$cells" ] || return 0
	size=$(awk -F'\t' -v x="$PLOT/$name-x.dat" -v y="$PLOT/$name-y.dat" \
		-v v="$PLOT/$name.dat" -v l="$PLOT/$name-labels.dat" '
		BEGIN { OFS = "\t"; nr = nc = 0 }
		NF < 4 { next }
		!(($1) in ri) { ri[$1] = nr; print nr, $1 > y; nr++ }
		!(($2) in ci) { ci[$2] = nc; print nc, $2 > x; nc++ }
		{ val[ci[$2], ri[$1]] = $3; print ci[$2], ri[$1], $4 > l; any = any || $3 != "NaN" }
		END {
			for (r = 0; r < nr; r++) for (c = 0; c < nc; c++)
				print c, r, ((c, r) in val ? val[c, r] : "NaN") > v
			print nr, nc, any + 0
		}' "$cells")
	read -r nr nc any <<<"$size"
	is_uint "$nr" && is_uint "$nc" && [ "$nr" -gt 0 ] && [ "$nc" -gt 0 ] || return 0
	{
		printf 'set title "%s"\nset xlabel "%s"\nset ylabel "%s"\n' "$title" "$xlabel" "$ylabel"
		printf 'set xrange [-0.5:%d-0.5]\nset yrange [%d-0.5:-0.5]\n' "$nc" "$nr"
		printf 'set xtics scale 0\nset ytics scale 0\nset key off\n'
		printf 'set palette defined (0 "#ffffe0", 1 "#ffb347", 2 "#e34a33")\n'
		printf 'plot '
		# gnuplot refuses an image with no number at all
		[ "$any" = 1 ] && printf '"%s.dat" using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette, ' "$name"
		printf '"%s-labels.dat" using 1:2:3 with labels, ' "$name"
		printf '"%s-x.dat" using 1:(NaN):xtic(2) with points, "%s-y.dat" using (NaN):1:ytic(2) with points\n' "$name" "$name"
	} >"$PLOT/$name.gp"
	plot_both "$name"
}
