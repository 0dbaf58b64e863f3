# shellcheck shell=bash
# harness/lib/report-sections.sh: which of harness/report's tables and plots a run's records hold anything for, told by one jq start, so that report starts jq only for those.
# Needs: messages.sh, node-matrices.sh (JQ_NODES), and from harness/report JQ_DEFS and JQ_MATRIX (its jq definitions).  Sourced after them, never run.
#
# A jq start costs 16-30 ms on the development guests, and report ran one
# for every table, note and plot, whether the run had anything for it or
# not: 31 starts for one harness step, most of them printing nothing.
# Each test below is the very expression with which that section's own
# jq decides to print nothing, so a section told "none" would have printed
# nothing and exited 0.  A test that fails (a field of the wrong type)
# answers "some", and the section's own jq runs, and fails, as it always
# has.  Where the one jq fails as a whole, every answer is "unknown", and
# every section runs.

# shellcheck disable=SC2016 # jq programs, not shell expansions
REPORT_SECTIONS_JQ='
def sec(f): try (if f then 1 else 0 end) catch 1;
[sec([.[] | select(.doc != null and ((.doc.results // []) | length) > 0)] | length > 0),
 sec([.[] | select((.params | type) == "object" and (.params | has("Mode")) and (.params | has("Alloc")))] | length > 0),
 sec([.[] | select(.doc != null and (.doc | lat) != null)] | length > 0),
 sec([.[] | select(.doc != null and (failed | not)) | . as $r | ($r.doc | lat) | select(. != null and .probes != null)] | length > 0),
 sec([.[] | select(.doc.mode? == "mix")] | length > 0),
 sec([.[] | select(((.doc.hierarchy? // []) | length) > 0)] | length > 0),
 sec([.[] | select(failed | not) | select(((.doc.hierarchy_sweep.points? // []) | length) > 0)] | length > 0),
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
	line=$(jq -s -r "$JQ_DEFS$JQ_MATRIX$JQ_NODES$REPORT_SECTIONS_JQ" "$1" 2>/dev/null) || line=''
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
