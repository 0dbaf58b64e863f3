# shellcheck shell=bash
# harness/lib/report-sections.sh: which of harness/report's tables and plots a run's records hold anything for, told by one jq start, so that report starts jq only for those.
# Needs: messages.sh, node-matrices.sh (JQ_NODES), page-modes.sh (PAGE_MODES_JQ), and from harness/report JQ_DEFS and JQ_MATRIX (its jq definitions).  Sourced after them, never run.
#
# A jq start costs 16-30 ms on the development guests, and report ran one
# for every table, note and plot, whether the run had anything for it or
# not: 31 starts for one harness step, most of them printing nothing.
# Each test below asks the named selection that section's own jq reads
# and prints nothing without (bw_runs, lat_runs, tlb_runs, hier_runs,
# hsweep_runs in REPORT_RUNS_JQ, mix_runs, c2c_runs in JQ_MATRIX, nodes_runs,
# pm_runs), one definition for both, so a section told "none" would have
# printed nothing and exited 0.  A test that fails (a field of the wrong type)
# answers "some", and the section's own jq runs, and fails, as it always
# has.  Where the one jq fails as a whole, every answer is "unknown", and
# every section runs.

# REPORT_RUNS_JQ: the runs each table and plot reads, named once, the end
# of harness/report's JQ_DEFS (after its lat and failed): the tables
# select with them, and REPORT_SECTIONS_JQ asks them whether a table has
# anything.
# shellcheck disable=SC2016,SC2034 # jq programs, not shell expansions; harness/report reads it
REPORT_RUNS_JQ='
def bw_runs: [.[] | select(.doc != null and ((.doc.results // []) | length) > 0)];
def lat_runs: [.[] | select(.doc != null and (.doc | lat) != null)];
def hier_runs: [.[] | select(((.doc.hierarchy? // []) | length) > 0)];
def hsweep_runs: [.[] | select(failed | not) | select(((.doc.hierarchy_sweep.points? // []) | length) > 0)];
def tlb_runs: [.[] | select(.doc != null and (failed | not)) | . as $r | ($r.doc | lat)
	| select(. != null and .probes != null) | {r: $r, L: .}];
'

# shellcheck disable=SC2016 # jq programs, not shell expansions
REPORT_SECTIONS_JQ='
def sec(f): try (if f then 1 else 0 end) catch 1;
[sec(bw_runs | length > 0),
 sec(pm_runs | length > 0),
 sec(lat_runs | length > 0),
 sec(tlb_runs | length > 0),
 sec(mix_runs | length > 0),
 sec(hier_runs | length > 0),
 sec(hsweep_runs | length > 0),
 sec([.[] | .params["Offset bytes"] | type == "number"] | any),
 sec(nodes_runs | length > 0),
 (try (c2c_runs | length) catch "-"),
 # the bandwidth plot asks, record by record, what the params have, and
 # takes the last answer (jq -e); told here only when every record has
 # params to ask
 (if all(.[]; (.params | type) == "object") then (last | .params)
  | (has("x LLC"), has("Offset bytes"), has("Set MHz"), (has("Threads") and (has("Variables") | not)))
  | if . then 1 else 0 end else ("-", "-", "-", "-") end)]
| map(tostring) | join(" ")'

# report_sections RECORDS: set SEC_BW (bandwidth), SEC_PM (page modes),
# SEC_LAT (latency levels and curves), SEC_TLB (the TLB probes), SEC_MIX,
# SEC_HIER (hierarchy table), SEC_HSWEEP (its --ws-sweep), SEC_OFF (offset
# sweep), SEC_NODES to 1 (some) or 0 (none), SEC_C2C to the count of c2c
# runs, and SEC_P_LLC, SEC_P_OFF, SEC_P_MHZ, SEC_P_THR to what the
# bandwidth plot's tests of the params answer; anything else is unknown.
report_sections() {
	local line
	line=$(jq -s -r "$PAGE_MODES_JQ$JQ_DEFS$JQ_MATRIX$JQ_NODES$REPORT_SECTIONS_JQ" "$1" 2>/dev/null) || line=''
	# shellcheck disable=SC2034 # read by name (has_section, params_test)
	read -r SEC_BW SEC_PM SEC_LAT SEC_TLB SEC_MIX SEC_HIER SEC_HSWEEP SEC_OFF SEC_NODES SEC_C2C \
		SEC_P_LLC SEC_P_OFF SEC_P_MHZ SEC_P_THR <<<"$line" || true
}

# has_section NAME: does the run have something for section NAME (a
# SEC_ variable's name without SEC_)?  Yes unless report_sections said 0.
has_section() { local v="SEC_$1"; [ "${!v:-}" != 0 ]; }

# params_test NAME PROGRAM RECORDS: the bandwidth plot's test of the
# params (jq -e PROGRAM over the records, the last answer), from
# report_sections where it could tell, else from jq itself.
params_test() {
	local v="SEC_P_$1"
	case "${!v:-}" in
	1) return 0 ;;
	0) return 1 ;;
	*) jq -e "$2" "$3" >/dev/null 2>&1 ;;
	esac
}
