# shellcheck shell=bash
# shellcheck disable=SC2034 # the constants are read by the commands that source this
# harness/lib/results.sh: the one owner of the results layout: what a run directory holds, its records, its statistics.
# Needs: messages.sh (die, note) and jq.  Sourced after them, never run.
#
# It owns, and no command decides for itself:
#   - what a directory is: a harness run (step-NNN.json, .raw, .stderr), a
#     matrix run (cells/NNN/ with cell.info, result.json, output.txt,
#     stderr.txt, or run-K/ below a cell for --repeat), a latency timing
#     (run-N.json), a cluster run (cluster.json), or a tree of such runs;
#   - one normalised record per run, as JSON lines (results_records);
#   - the one reader of a cell's cell.info (results_cell_info);
#   - the one median and spread: in shell (results_median, results_spread),
#     for awk programs (RESULTS_AWK_STATS) and for jq programs
#     (RESULTS_JQ_STATS), each defined once here;
#   - the one rule for "beyond noise" (results_noise_rows), which compare,
#     run-matrix and verify share.
# report, compare, verify and submission ask it; none of them names a file
# of the layout.  The harness's step writer (lib/session.sh) and run-matrix write
# the files this reads.

# What each kind of run holds, for messages that say what was looked for.
RESULTS_RUN_FILES='step-*.json, cells/, run-*.json or cluster.json'
# Files a bundle leaves out because the run can remake them: the matrix's
# per-cell binaries (cells/NNN/build.sh rebuilds them) and its link to
# ld.hugetlbfs.  tar --exclude patterns, relative to the run directory.
RESULTS_REBUILT=('./cells/*/bench' './ld-hugetlbfs')

# ------------------------------------------------------------ statistics
# RESULTS_AWK_STATS: awk functions, put in front of an awk program that
# needs them.  median_of(a, n) sorts a[1..n] in place (numbers) and returns
# the median; spread_of(a, n) is the largest over the smallest, or -1
# when that is undefined (no values, or a smallest <= 0).
# shellcheck disable=SC2016 # awk programs, not shell expansions
RESULTS_AWK_STATS='
function median_of(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j - 1]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function spread_of(a, n,   i, mn, mx) {
	if (n < 1) return -1
	for (i = 1; i <= n; i++) {
		if (i == 1 || a[i] < mn) mn = a[i]
		if (i == 1 || a[i] > mx) mx = a[i]
	}
	return mn > 0 ? mx / mn : -1
}
'

# RESULTS_JQ_STATS: the same two for jq programs: an array of numbers in,
# a number (or null when undefined) out.
# shellcheck disable=SC2016 # jq programs, not shell expansions
RESULTS_JQ_STATS='
def median: sort | if length == 0 then null elif length % 2 == 1 then .[(length - 1) / 2]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def spread: if length == 0 or min <= 0 then null else max / min end;
'

# results_median [EMPTY]: the median of the numbers on stdin, one a line
# ("-" and empty lines ignored), in the input's own digits when it is one
# of them (an odd count), else the shortest digits that give the mean of
# the middle two exactly.  EMPTY (default: nothing) when there are none.
results_median() {
	awk -v empty="${1-}" "$RESULTS_AWK_STATS"'
		NF && $1 != "-" { n++; v[n] = w[n] = $1 + 0; s[n] = $1 }
		END {
			if (n == 0) { if (empty != "") print empty; exit }
			m = median_of(v, n)
			if (n % 2) { for (i = 1; w[i] != m; i++); print s[i]; exit }
			for (p = 15; p < 17; p++) if (sprintf("%." p "g", m) + 0 == m) break
			printf "%." p "g\n", m
		}'
}

# results_spread: the largest over the smallest of the numbers on stdin,
# to two decimals; nothing when undefined.
results_spread() {
	awk "$RESULTS_AWK_STATS"'
		NF && $1 != "-" { n++; v[n] = $1 + 0 }
		END { s = spread_of(v, n); if (s >= 0) printf "%.2f\n", s }'
}

# results_noise_rows: "faster", "slower" or "within noise" for every item,
# by one stated rule (harness/compare's --help and docs/harness.md give
# it).  harness/compare, run-matrix's baseline columns and verify use it.
# Reads sample lines on stdin, tab-separated:
#   side(A|B)  group-key  group-label  item  kind(bw|lat)  run  value  low  high
# (low..high: the run's own band, used when a side has a single run) and
# prints one line per item found on both sides:
#   row  group  item  kind  a_median  b_median  change_pct  a_n  b_n
#        a_spread_pct  b_spread_pct  test  p  verdict
# and "only  A|B  group  item" for an item found on one side.
results_noise_rows() {
	awk -v alpha=0.05 -v min_runs=4 "$RESULTS_AWK_STATS"'
function median(s, k,   n, i, a) {
	n = cnt[s, k]
	for (i = 1; i <= n; i++) a[i] = val[s, k, i]
	return median_of(a, n)
}
# spread: max/min - 1 over the runs, or over the one run band.
function spread(s, k,   n, i, a, r) {
	n = cnt[s, k]
	if (n == 1) { a[1] = lo[s, k, 1]; a[2] = hi[s, k, 1]; n = 2 }
	else for (i = 1; i <= n; i++) a[i] = val[s, k, i]
	r = spread_of(a, n)
	return r >= 0 ? r - 1 : 0
}
# ustat(k): Mann-Whitney U of B over A (pairs where B is larger, ties 1/2).
function ustat(k,   i, j, u) {
	u = 0
	for (i = 1; i <= cnt["A", k]; i++) for (j = 1; j <= cnt["B", k]; j++)
		u += val["B", k, j] > val["A", k, i] ? 1 : (val["B", k, j] == val["A", k, i] ? 0.5 : 0)
	return u
}
# mw_p(m, n, u): two-sided p of U = u.  Exact: the counts of U are the
# coefficients of the Gaussian binomial [m+n choose m]_q, built as
# prod (1 - q^(n+i)) / (1 - q^i).  Ties round towards the middle.
function mw_p(m, n, u,   N, c, i, k, d, tot, pl, pg, z, t, p) {
	N = m * n
	if (N > 40000) {
		z = (abs(u - N / 2) - 0.5) / sqrt(N * (m + n + 1) / 12)
		if (z < 0) return 1
		t = 1 / (1 + 0.3275911 * z / sqrt(2))    # erfc, Abramowitz-Stegun 7.1.26
		p = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) * exp(-z * z / 2)
		return p > 1 ? 1 : p
	}
	for (k = 0; k <= N; k++) c[k] = 0
	c[0] = 1
	for (i = 1; i <= m; i++) {
		d = n + i
		for (k = N; k >= d; k--) c[k] -= c[k - d]
		for (k = i; k <= N; k++) c[k] += c[k - i]
	}
	tot = pl = pg = 0
	for (k = 0; k <= N; k++) {
		tot += c[k]
		if (k <= u + 0.5) pl += c[k]
		if (k >= u - 0.5) pg += c[k]
	}
	p = 2 * (pl < pg ? pl : pg) / tot
	return p > 1 ? 1 : p
}
function abs(x) { return x < 0 ? -x : x }
BEGIN { FS = OFS = "\t"; OFMT = "%.10g" }
{
	k = $2 SUBSEP $4
	if (!((k) in kind)) { order[++nk] = k; kind[k] = $5; grp[k] = $3; item[k] = $4 }
	c = ++cnt[$1, k]
	val[$1, k, c] = $7 + 0
	lo[$1, k, c] = ($8 + 0 < $7 + 0) ? $8 + 0 : $7 + 0
	hi[$1, k, c] = ($9 + 0 > $7 + 0) ? $9 + 0 : $7 + 0
}
END {
	for (o = 1; o <= nk; o++) {
		k = order[o]
		if (!cnt["A", k] || !cnt["B", k]) {
			print "only", (cnt["A", k] ? "A" : "B"), grp[k], item[k]
			continue
		}
		ma = median("A", k); mb = median("B", k)
		change = ma != 0 ? (mb - ma) / ma * 100 : 0
		sa = spread("A", k) * 100; sb = spread("B", k) * 100
		up = 0; p = ""
		if (cnt["A", k] >= min_runs && cnt["B", k] >= min_runs) {
			test = "mann-whitney"
			u = ustat(k)
			p = mw_p(cnt["A", k], cnt["B", k], u)
			noise = p >= alpha
			up = u > cnt["A", k] * cnt["B", k] / 2
		} else {
			test = "spread"
			noise = abs(change) <= (sa > sb ? sa : sb)
			up = change > 0
		}
		# More bandwidth is faster; more latency is slower.
		verdict = noise ? "within noise" : ((up == (kind[k] == "bw")) ? "faster" : "slower")
		print "row", grp[k], item[k], kind[k], ma, mb, change, cnt["A", k], cnt["B", k], sa, sb, test, p, verdict
	}
}'
}

# ------------------------------------------------------------ cell.info
# results_cell_info FILE KEY: KEY's value in a matrix cell's cell.info,
# empty when absent; the last line for KEY wins (run-matrix appends each
# status).  The value is the rest of the line after "KEY = ", blanks at
# its end dropped: cell.info is written, not edited, and has no comments,
# so a '#' (a -D value's) is part of the value.  Bash, not sed: callers
# read it per cell.
results_cell_info() {
	local l v=''
	[ -f "$1" ] || return 0
	while IFS= read -r l || [ -n "$l" ]; do
		[[ $l =~ ^[[:space:]]*"$2"[[:space:]]*=[[:space:]]*(.*)$ ]] || continue
		v=${BASH_REMATCH[1]}
		v=${v%"${v##*[![:space:]]}"}
	done <"$1"
	printf '%s' "$v"
}

# results_cell_info_has FILE KEY: is KEY in cell.info at all (even empty)?
results_cell_info_has() {
	local l
	[ -f "$1" ] || return 1
	while IFS= read -r l || [ -n "$l" ]; do
		[[ $l =~ ^[[:space:]]*"$2"[[:space:]]*= ]] && return 0
	done <"$1"
	return 1
}

# results_cell_info_write DIR KEY VALUE: add "KEY = VALUE" to DIR's
# cell.info (run-matrix's writer; the reader above reads it back).
results_cell_info_write() { printf '%s = %s\n' "$2" "$3" >>"$1/cell.info"; }

# results_matrix_info RUN KEY: KEY's value in a matrix run's matrix.info
# (what run-matrix knew that its cells do not say: the matrix's name, the
# host, --repeat, the run timeout, the baseline cell, and the machine as
# read when no cell's bench reported it; written when the runs are over),
# read as cell.info is.  results_matrix_info_write RUN KEY VALUE adds one.
results_matrix_info() { results_cell_info "$1/matrix.info" "$2"; }
results_matrix_info_write() { printf '%s = %s\n' "$2" "$3" >>"$1/matrix.info"; }

# ------------------------------------------------------------ kinds
# results_kind DIR: harness, matrix, timing, cluster, or nothing for "not
# a run" (a tree of runs, or neither).
results_kind() {
	if compgen -G "$1/step-*.json" >/dev/null; then echo harness
	elif [ -d "$1/cells" ]; then echo matrix
	elif compgen -G "$1/run-*.json" >/dev/null; then echo timing
	elif [ -f "$1/cluster.json" ] || [ -f "$1/cluster.stderr" ]; then echo cluster
	fi
}

# results_finished DIR: the run wrote its summary (a matrix: table.csv; a
# harness run: summary.md); a run without one did not finish.
results_finished() {
	case "$(results_kind "$1")" in
	matrix) [ -f "$1/table.csv" ] ;;
	harness) [ -f "$1/summary.md" ] ;;
	*) return 1 ;;
	esac
}

# results_runs_below DIR: the run directories one or two levels below
# DIR (a host directory, or a results root), one a line, in glob order;
# symbolic links are not followed.
results_runs_below() {
	local rd
	for rd in "$1"/*/ "$1"/*/*/; do
		rd=${rd%/}
		if [ ! -d "$rd" ] || [ -L "$rd" ] || [ -z "$(results_kind "$rd")" ]; then continue; fi
		printf '%s\n' "$rd"
	done
}

# ------------------------------------------------------------ records
# results_records DIR: one JSON line per run of DIR, for every kind:
#   {id, group, name, run, params{}, status, exit_status,
#    doc (bench's JSON document, or null), peak (MB/s or null),
#    files: {json, raw, stderr} (paths relative to DIR, or null),
#    cell: {dir, build_line, run_line, memory, expect} (matrix runs; else null)}
# id is unique in DIR; runs with the same group are repeats of one
# measurement (a matrix cell's --repeat runs); name is how messages call
# the run (step-001, cells/001, cells/001/run-2).  A run that failed keeps
# its exit status and status, and its document when bench wrote one.
# Dies (2) naming a file that is not readable JSON.
results_records() {
	case "$(results_kind "$1")" in
	harness) results_load_harness "$1" ;;
	matrix) results_load_matrix "$1" ;;
	timing) results_load_timing "$1" ;;
	cluster) results_load_cluster "$1" ;;
	*) die "$1: not a results directory (no $RESULTS_RUN_FILES in it)" ;;
	esac
}

# results_runs DIR: the runs of a harness or matrix run directory without
# reading their JSON, for a reader that checks each document itself (and
# names what is wrong in its own words): one line a run, fields apart by
# US (0x1f):
#   name  json  group  run  exit_status  build_line  run_line  is_cell_dir
# (json relative to DIR, empty where the run wrote none; group, run, exit
# status and the lines only for a matrix; is_cell_dir 1 where the run's
# files are the cell's own, not a run-K directory's).
results_runs() {
	local f n cell c info k rel rc b r
	case "$(results_kind "$1")" in
	harness)
		for f in "$1"/step-*.json; do
			n=${f##*/}
			printf '%s\x1f%s\x1f\x1f\x1f\x1f\x1f\x1f\n' "${n%.json}" "$n"
		done ;;
	matrix)
		for cell in "$1"/cells/*/; do
			cell=${cell%/} c=${cell##*/}
			info=$cell/cell.info
			[ -f "$info" ] || continue
			b=$(results_cell_info "$info" build_line) r=$(results_cell_info "$info" run_line)
			b=${b//$'\x1f'/ } r=${r//$'\x1f'/ }
			for ((k = 1; ; k++)); do
				results_cell_run "$info" "$c" "$k" || break
				rc=$RESULTS_RUN_RC rel=$RESULTS_RUN_REL
				f=''
				[ ! -f "$1/$rel/result.json" ] || f=$rel/result.json
				printf '%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\n' "$rel" "$f" "$c" "$k" "${rc//$'\x1f'/ }" "$b" "$r" \
					"$RESULTS_RUN_OWN"
			done
		done ;;
	*) die "$1: not a harness or matrix run (no $RESULTS_RUN_FILES in it)" ;;
	esac
}

# results_cell_run INFO CELL K: run K of cell CELL as its cell.info
# INFO records it, into RESULTS_RUN_RC (its exit status), RESULTS_RUN_REL
# (its directory under the run: the cell's own for a single run_status,
# run-K below it for run_K_status) and RESULTS_RUN_OWN (1 for the cell's
# own directory, 0 for run-K); status 1 when there is no run K.  Sets
# variables, not output, so the walks over runs fork no subshell for it.
results_cell_run() {
	if [ "$3" = 1 ] && results_cell_info_has "$1" run_status; then
		RESULTS_RUN_RC=$(results_cell_info "$1" run_status)
		RESULTS_RUN_REL=cells/$2 RESULTS_RUN_OWN=1
	elif results_cell_info_has "$1" "run_${3}_status"; then
		RESULTS_RUN_RC=$(results_cell_info "$1" "run_${3}_status")
		RESULTS_RUN_REL=cells/$2/run-$3 RESULTS_RUN_OWN=0
	else
		return 1
	fi
}

# results_json_ok FILE: FILE parses as JSON, or die naming it.
results_json_ok() { jq -e . "$1" >/dev/null 2>&1 || die "$1: not readable JSON"; }

# results_map_json TEST MAP FILE...: MAP on every FILE's JSON in one jq
# start (16-30 ms each), $n set to FILE's name less its directory, ".json"
# and "run-"; only when each FILE holds one JSON value that TEST holds for
# and each path is printable ASCII.  Else it prints nothing and fails, and
# the reader goes file by file, to name the file at fault as it always has.
results_map_json() {
	local out test=$1 map=$2
	shift 2
	[ $# -gt 0 ] || return 1
	out=$(jq -n -c --argjson nf $# '[inputs | [input_filename, .]] as $v
		| if ($v | length) != $nf or ([$v[][0]] | unique | length) != $nf
		     or any($v[][0]; test("^[ -~]+$") | not) or any($v[][1]; ('"$test"') | not) then error("one file at a time")
		  else $v[] | (.[0] | split("/") | last | rtrimstr(".json") | ltrimstr("run-")) as $n | .[1] | '"$map"' end' \
		"$@" 2>/dev/null) || return 1
	printf '%s\n' "$out"
}

# shellcheck disable=SC2016 # jq programs, not shell expansions
RESULTS_HARNESS_MAP='{id: (.step | tostring | if length < 3 then ("00" + .)[-3:] else . end),
	name: $n, run: 1, params: (.params // {}), status: (.status // "unknown"),
	exit_status: .exit_status, doc: .bench, peak: .peak_mbs,
	files: {json: "\($n).json", raw: "\($n).raw", stderr: "\($n).stderr"}, cell: null} | .group = .id'
# shellcheck disable=SC2016 # jq programs, not shell expansions
RESULTS_TIMING_MAP='{id: $n, group: $n, name: "run-\($n)", run: 1, params: {Run: $n},
	status: "ok", exit_status: 0, doc: ., peak: null,
	files: {json: "run-\($n).json", raw: null, stderr: null}, cell: null}'

results_load_harness() {
	local f n
	results_map_json '(.schema? // "") == "membench-harness/1"' "$RESULTS_HARNESS_MAP" "$1"/step-*.json && return 0
	for f in "$1"/step-*.json; do
		results_json_ok "$f"
		jq -e '(.schema? // "") == "membench-harness/1"' "$f" >/dev/null 2>&1 ||
			die "$f: not a harness step record (schema membench-harness/1)"
		n=${f##*/}; n=${n%.json}
		jq -c --arg n "$n" "$RESULTS_HARNESS_MAP" "$f"
	done
}

results_load_timing() {
	local f n
	results_map_json '. != null and . != false' "$RESULTS_TIMING_MAP" "$1"/run-*.json && return 0
	for f in "$1"/run-*.json; do
		results_json_ok "$f"
		n=${f##*/run-}; n=${n%.json}
		jq -c --arg n "$n" "$RESULTS_TIMING_MAP" "$f"
	done
}

# A cluster run (harness/slurm/membench.sbatch): one record holding
# bench-mpi's whole JSON (cluster.json); report's cluster tables read
# .doc.cluster.
results_load_cluster() {
	local f=$1/cluster.json
	[ -f "$f" ] || die "$f: missing (the run ended before bench-mpi wrote it; see $1/cluster.stderr)"
	results_json_ok "$f"
	jq -e '(.cluster.nodes | type) == "array" and (.cluster.nodes | length) > 0' "$f" >/dev/null ||
		die "$f: not bench-mpi's cluster JSON (no cluster.nodes)"
	jq -c '{id: "cluster", group: "cluster", name: "cluster", run: 1, params: {},
		status: (if .cluster.valid == false then "FAILED validation" else "ok" end),
		exit_status: null, doc: ., peak: null,
		files: {json: "cluster.json", raw: null, stderr: "cluster.stderr"}, cell: null}' "$f"
}

# A matrix run: one record per run of each cell (run K of a --repeat
# matrix in run-K/); a skipped cell, or one that never ran, is one record
# without a document.
results_load_matrix() {
	local cell c info rc k rel st found cellj b r m e
	for cell in "$1"/cells/*/; do
		cell=${cell%/} c=${cell##*/}
		info=$cell/cell.info
		[ -f "$info" ] || continue
		b=$(results_cell_info "$info" build_line) r=$(results_cell_info "$info" run_line) m=$(results_cell_info "$info" memory)
		e=$(results_cell_info "$info" expect)
		cellj=$(jq -n -c --arg c "$c" --arg b "$b" --arg r "$r" --arg m "$m" --arg e "$e" \
			'{params: {Cell: $c, Build: $b, Memory: $m},
			  cell: {dir: "cells/\($c)", build_line: $b, run_line: $r, memory: $m, expect: $e}}')
		if [ -f "$cell/skipped.txt" ]; then
			jq -n -c --arg c "$c" --argjson p "$cellj" --arg s "skipped: $(head -n 1 "$cell/skipped.txt")" \
				'{id: $c, group: $c, name: "cells/\($c)", run: null, params: $p.params, status: $s,
				  exit_status: null, doc: null, peak: null, files: null, cell: $p.cell}'
			continue
		fi
		found=0
		for ((k = 1; ; k++)); do
			results_cell_run "$info" "$c" "$k" || break
			rc=$RESULTS_RUN_RC rel=$RESULTS_RUN_REL
			found=1
			case "$rc" in
			0) st=ok ;;
			1) st='FAILED validation' ;;
			124) st='FAILED: timed out' ;;
			*) st="FAILED: exit status $rc" ;;
			esac
			# The exit status must be a number: it is data from the file.
			[[ $rc =~ ^[0-9]+$ ]] || rc=null
			if [ -f "$1/$rel/result.json" ]; then
				results_json_ok "$1/$rel/result.json"
				jq -c --arg c "$c" --argjson k "$k" --argjson p "$cellj" --arg s "$st" --argjson rc "$rc" --arg rel "$rel" \
					'{id: "\($c).\($k)", group: $c, name: $rel, run: $k, params: $p.params, status: $s, exit_status: $rc,
					  doc: ., peak: null,
					  files: {json: "\($rel)/result.json", raw: "\($rel)/output.txt", stderr: "\($rel)/stderr.txt"},
					  cell: $p.cell}' "$1/$rel/result.json"
			else
				jq -n -c --arg c "$c" --argjson k "$k" --argjson p "$cellj" --arg s "$st" --argjson rc "$rc" --arg rel "$rel" \
					'{id: "\($c).\($k)", group: $c, name: $rel, run: $k, params: $p.params, status: $s, exit_status: $rc,
					  doc: null, peak: null,
					  files: {json: null, raw: "\($rel)/output.txt", stderr: "\($rel)/stderr.txt"},
					  cell: $p.cell}'
			fi
		done
		[ "$found" = 1 ] || jq -n -c --arg c "$c" --argjson p "$cellj" \
			'{id: $c, group: $c, name: "cells/\($c)", run: null, params: $p.params, status: "not run",
			  exit_status: null, doc: null, peak: null, files: null, cell: $p.cell}'
	done
}
