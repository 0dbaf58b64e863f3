# shellcheck shell=bash
# harness/lib/page-modes.sh: the page-mode sweep's table and closing line (memory's own latency, the walks, the TLB reach, mode by mode), for sweep-latency-pages' summary and harness/report
# Needs: jq alone: its callers hand it the records results.sh reads (results_records).  Sourced, never run.

# One table and one closing line, drawn from the runs' own JSON by one jq
# program, so that the summary and every format of the report say the same.
# A row per step of a run whose steps name a Mode and an Alloc (the
# sweep's): the pages the buffer got, the largest size and the full random
# chase's tail there (summary[0].tail), memory's own latency and what the
# walks add (summary[0].memory.ns, .tlb_ns), the largest TLB reach measured
# (summary[0].tlbs[], or ">= what the probe saw" where no level ran out,
# or why it could not look), and whether smaller pages were seen behind
# the run's own.  A step that failed or was skipped shows no figure.
# shellcheck disable=SC2016 # jq programs, not shell expansions
PAGE_MODES_JQ='
def pm_num: if type == "number" then . else null end;
def pm_get(f): try f catch null;
def pm_text: if . == null then "" else tostring | gsub("[[:cntrl:]]"; " ") end;
# bytes as people read them: 4 KiB, 2 MiB, 1 GiB, 10.4 MiB (3 digits)
def pm_bytes: pm_num | if . == null then null else
	(reduce range(0; 4) as $i ({v: ., u: 0}; if .v >= 1024 then {v: (.v / 1024), u: (.u + 1)} else . end)) as $h
	| (if $h.v == ($h.v | floor) then $h.v elif $h.v >= 100 then ($h.v | round)
	   elif $h.v >= 10 then ($h.v * 10 | round / 10) else ($h.v * 100 | round / 100) end) as $v
	| "\($v) \(["B", "KiB", "MiB", "GiB", "TiB"][$h.u])" end;
def pm_mb: . / 1048576 | if . == floor then tostring else (. * 100 | round / 100 | tostring) end;
def pm_ns: round + 0 | tostring;
def pm_n1: if type == "number" then (. * 10 | round / 10 + 0 | tostring) else "-" end;
# pm_mode: a record (results_records) as the figures the table and the
# line read; a step that failed, or ran no bench, has none.
def pm_mode: . as $r
	| ((($r.exit_status // 0) != 0) or (pm_get($r.doc.validation.ok) == false)) as $failed
	| (if $failed or ($r.doc | type) != "object" then null else $r.doc end) as $d
	| (pm_get($d.summary[0]) | if type == "object" then . else null end) as $s
	| (pm_get($s.memory) | if type == "object" then . else null end) as $m
	| {id: ($r.id | pm_text), mode: (pm_get($r.params.Mode) | pm_text), status: ($r.status | pm_text),
	   skipped: ($r.status | pm_text | startswith("skipped")), failed: $failed,
	   page: (pm_get($d.run.buffer.page_kib) | pm_num | if . == null then null else . * 1024 end),
	   huge_pct: (pm_get($d.run.buffer.huge_pct) | pm_num),
	   tail: (pm_get($s.tail.ns) | pm_num), bytes: (pm_get($s.tail.bytes) | pm_num),
	   mem: (pm_get($m.ns) | pm_num), tlb: (pm_get($m.tlb_ns) | pm_num),
	   probed: ($m != null), behind: (pm_get($m.smaller_pages_behind) | if type == "object" then . else null end),
	   tlbs: (pm_get($s.tlbs) | if type == "array" then . else null end),
	   seen: (pm_get($s.tlbs_seen) | if type == "object" then . else null end),
	   why: pm_get($s.not_measured_apart)};
def pm_runs: [.[] | select((.params | type) == "object" and (.params | has("Mode")) and (.params | has("Alloc")))];
def pm_modes: pm_runs | map(pm_mode);
def pm_pages: if .page == null then null else (.page | pm_bytes)
	+ (if .huge_pct != null and .huge_pct > 0 and .huge_pct < 100 then ", \(.huge_pct | round)% huge" else "" end) end;
# the largest reach measured, "?" where bench was not certain of the level
def pm_reach: [(.tlbs // [])[] | select(type == "object" and (.reach_bytes | pm_num) != null)] as $t
	| if .seen == null and .tlbs == null then .why
	  elif (.seen.not_measured // null) != null then "not measured: \(.seen.not_measured | pm_text)"
	  elif ($t | length) > 0 then ($t | max_by(.reach_bytes))
	    | "\(.reach_bytes | pm_bytes)\(if .certain == false then "?" else "" end) (\(.page_bytes | pm_bytes // "?") pages)"
	  elif (.seen.bytes | pm_num) != null then ">= \(.seen.bytes | pm_bytes) (\(.seen.page_bytes | pm_bytes // "?") pages; no TLB ran out)"
	  else null end;
def pm_behind: if .probed | not then null elif .behind == null then "no"
	else "yes: +\(.behind.ns | pm_n1) ns a load at \(.behind.from_bytes | pm_bytes // "?")-\(.behind.to_bytes | pm_bytes // "?")" end;
def pm_columns: ["Step", "Mode", "Pages", "Largest size", "Full random ns", "Memory ns", "Walks ns", "TLB reach", "Smaller pages behind", "Status"];
def pm_types: ["s", "s", "s", "s", "f1", "f1", "f1", "s", "s", "s"];
# the cells of a row: numbers as the JSON holds them, null for none
def pm_row: [.id, .mode, pm_pages, (.bytes | pm_bytes), .tail, .mem, .tlb,
	(if .skipped or .failed then null else pm_reach end), (if .skipped or .failed then null else pm_behind end), .status];
# the closing line: against the first mode with a full random figure, the
# best at the same largest size; the rest are left out, and said
def pm_leftout($b): if .skipped then "skipped" elif .failed then "failed" elif .tail == null then "no figure"
	elif .bytes != $b.bytes then "largest size \(.bytes | pm_mb) MB" else "?" end;
def pm_closing: pm_modes as $all
	| [$all[] | select(.tail != null and .bytes != null)] as $with
	| if ($all | length) == 0 then empty
	  elif ($with | length) == 0 then "No mode has a full random figure at its largest size: nothing to compare."
	  else $with[0] as $b
	  | [$with[] | select(.bytes == $b.bytes)] as $c
	  | (reduce $c[1:][] as $x ($c[0]; if $x.tail < .tail then $x else . end)) as $best
	  | [$all[] | select(.tail == null or .bytes != $b.bytes)] as $out
	  | "At \($b.bytes | pm_mb) MB "
	    + (if $best.id == $b.id then "no mode beats \($b.mode) (\($b.tail | pm_ns) ns a random access)"
	       else "the best pages (\($best.mode)\(if $best.page != null then ", " + ($best.page | pm_bytes) else "" end)) save \($b.tail - $best.tail | pm_ns) ns a random access (\(100 * ($best.tail - $b.tail) / $b.tail | pm_ns)% vs \($b.mode))"
	         + (if $best.tlb != null and $b.tlb != null
	            then "; \($best.tlb | pm_ns) ns of \($b.mode)'"'"'s \($b.tlb | pm_ns) ns of walks remain"
	              + (if $b.tlb > 0 then " (\(100 * $best.tlb / $b.tlb | pm_ns)%)" else "" end)
	            else "; the walks were not measured apart in \([$b, $best] | map(select(.tlb == null) | .mode) | join(" and "))" end)
	       end)
	    + (if $best.behind != null then "; \($best.mode) still sees smaller pages behind its own: the walks that remain are the host'"'"'s" else "" end)
	    + (if ($out | length) > 0 then "; left out: " + ($out | map("\(.mode) (\(pm_leftout($b)))") | join(", ")) else "" end)
	  end | pm_text;
'

# page_modes_table RECORDS: the table in harness/report's form (a title,
# the column types, the header, then rows, tab-separated); nothing when
# no step names a page mode.
page_modes_table() {
	jq -s -r "$PAGE_MODES_JQ"'
		pm_modes as $all | if ($all | length) == 0 then empty else
		"Page modes: memory'"'"'s own latency, the walks and the TLB reach, mode by mode",
		(pm_types | @tsv), (pm_columns | @tsv),
		($all[] | pm_row | map(pm_text) | @tsv) end' "$1"
}

# page_modes_closing RECORDS: the closing line alone (report's note).
page_modes_closing() { jq -s -r "$PAGE_MODES_JQ"'pm_closing' "$1"; }

# page_modes_markdown RECORDS: the table in Markdown and the closing line
# under it, for the sweep's summary.  Text cells are escaped (control
# characters made spaces, a backslash and | escaped, < > & as entities:
# the summary is read rendered); numbers get one decimal as report's
# tables print them (awk's %.1f), "-" where there is none.
page_modes_markdown() {
	jq -s -r "$PAGE_MODES_JQ"'
		def md: pm_text | gsub("\\\\"; "\\\\") | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;") | gsub("\\|"; "\\|");
		pm_modes as $all | if ($all | length) == 0 then empty else
		(pm_types | @tsv), (pm_columns | @tsv),
		($all[] | pm_row | map(if type == "number" then tostring elif . == null or . == "" then "-" else md end) | @tsv),
		"", (pm_closing | md) end' "$1" |
		awk -F'\t' '
			NR == 1 { for (i = 1; i <= NF; i++) t[i] = $i; next }
			$0 == "" { body = 1; print; next }
			body { print; next }
			{ line = "|"
			  for (i = 1; i <= NF; i++) {
				c = $i
				if (NR > 2 && t[i] == "f1") c = (c ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) ? sprintf("%.1f", c) : "-"
				line = line " " c " |"
			  }
			  print line
			  if (NR == 2) { line = "|"; for (i = 1; i <= NF; i++) line = line (t[i] == "f1" ? " ---: |" : " --- |"); print line } }'
}
