# shellcheck shell=bash
# harness/lib/matrix-table.sh: the matrix's tables, table.md and table.csv, from a matrix run's records and its matrix.info.
# Needs: messages.sh, results.sh.  Sourced after them, never run.
# Sourced by harness/report (`report --matrix-table
# DIR`), which run-matrix calls once the runs are over.  Only what bench
# measured and reported goes in: a cell without a clean, validated run
# shows why, never a number.

# Only what bench measured and reported goes in: a cell without a clean,
# validated run shows why, never a number.
huge_summary() { # "a=pct=kib b=..." expect -> text
	printf '%s\n' "$1" | tr ' ' '\n' | awk -F= -v expect="$2" '
		# kernel page size > 4 KiB: hugetlb pages; otherwise the huge
		# share is THP (AnonHugePages), and page_kib its page size.
		function pc(p) { p = sprintf("%.1f", p); sub(/\.0$/, "", p); return p "%" }
		function share(p, k, kk) {
			if (kk > 4) return sprintf("%s (%d KiB hugetlb pages)", pc(p), kk)
			if (p > 0) return sprintf("%s THP (%d KiB)", pc(p), k)
			return sprintf("0%% (%d KiB pages)", kk)
		}
		NF == 4 && $2 == "null" { bad = 1 }
		NF == 4 && $2 != "null" { n++; name[n] = $1; pct[n] = $2 + 0; kib[n] = $3 + 0; kk[n] = $4 + 0
			  if (kk[n] > 4 && pct[n] < 100) pct[n] = 100  # hugetlb pages
			  if (n == 1 || pct[n] < min) min = pct[n] }
		END {
			if (n == 0 || bad) { print "not reported"; exit }
			same = 1
			for (i = 2; i <= n; i++) if (pct[i] != pct[1] || kib[i] != kib[1] || kk[i] != kk[1]) same = 0
			if (same) s = share(pct[1], kib[1], kk[1])
			else for (i = 1; i <= n; i++)
				s = s (i > 1 ? ", " : "") name[i] " " share(pct[i], kib[i], kk[i])
			if (expect == "huge" && min < 10) s = s ": requested, NOT obtained"
			else if (expect == "huge" && min < 90) s = s ": requested, partly obtained"
			print s
		}'
}
# One run, from its exit status and result.json, into r_status (ok or why
# not), the four best rates, and what bench reported about the run.
read_run() { # result.json exit-status expect stderr.txt
	r_copy="" r_scale="" r_add="" r_triad="" r_thr="" r_alloc="" r_asize="" r_huge="" r_kib=""
	r_json=0 r_rc=$2 r_expect=$3
	case "$2" in
	0 | 1)
		if vals=$(jq -er '
			def best(k): first(.results[]? | select(.kernel == k) | .best_mbs) // "";
			[best("Copy"), best("Scale"), best("Add"), best("Triad"),
			 (if .validation.ok == true then "ok" else "bad" end),
			 (.run.threads_counted // ((.run.threads // []) | length)), (.run.alloc // ""),
			 (.run.array_size // ""),
			 ([.run.arrays[]? | "\(.name)=\(.huge_pct)=\(.page_kib)=\(.kernel_page_kib // .page_kib)"] | join(" ")),
			 ([.run.arrays[]? | .page_kib] | unique | map(tostring) | join("/"))
			] | @tsv' "$1" 2>/dev/null); then
			r_json=1
			old_ifs=$IFS; IFS='	'
			# shellcheck disable=SC2086 # split the tab-separated record
			set -- $vals
			IFS=$old_ifs
			r_copy=$1 r_scale=$2 r_add=$3 r_triad=$4 r_thr=$6 r_alloc=$7 r_asize=$8
			r_huge=$(huge_summary "$9" "$r_expect") r_kib=${10}
			if [ "$r_rc" = 0 ] && [ "$5" = ok ]; then
				r_status=ok
			else
				r_status="FAILED validation" r_copy="" r_scale="" r_add="" r_triad=""
			fi
		elif [ "$2" = 1 ]; then
			r_status="FAILED validation"
		else
			r_status="FAILED: bench printed no JSON (see ${4##*/})"
		fi ;;
	2) r_status="skipped: bench refused: $(head -n 1 "$4" | cut -c1-160)" ;;
	124) r_status="FAILED: timed out after ${timeout_s}s" ;;
	*) if [[ $2 =~ ^[0-9]+$ ]] && [ "$2" -gt 128 ]; then
		r_status="FAILED: killed by signal $(($2 - 128))"
	else
		r_status="FAILED: exit status $2"
	fi ;;
	esac
}

# What a reader must know before trusting a cell's numbers, from bench's
# own warnings and from Triad against Add: both move three words per
# element, so a Triad far from Add's rate means something other than
# memory bandwidth was measured.
TRIAD_ADD_LOW=0.75 TRIAD_ADD_HIGH=1.33
triad_add_ratio() { # ADD TRIAD -> Triad/Add when outside the band, else nothing
	awk -v a="$1" -v t="$2" -v lo="$TRIAD_ADD_LOW" -v hi="$TRIAD_ADD_HIGH" \
		'BEGIN { if (a > 0 && t != "" && (t / a < lo || t / a > hi)) printf "%.2f", t / a }'
}
cell_caveats() { # WARNINGS-FILE TRIAD/ADD-RATIO -> "arrays < 4x LLC; ..."
	{
		awk '/smaller than .*last-level cache/ { print "arrays < 4x LLC"; next }
			/fewer than 20 clock ticks/ { print "< 20 clock ticks"; next }
			/moved from CPU/ { print "a thread moved CPU"; next }
			NF { print "bench warned" }' "$1"
		[ -z "$2" ] || printf 'Triad %sx Add\n' "$2"
	} | awk '!seen[$0]++' | paste -sd';' - | sed 's/;/; /g'
}

# matrix_table_render DIR DEST SCRATCH: write DEST/table.md and
# DEST/table.csv for the matrix run in DIR (SCRATCH: an empty directory
# to work in); print "status<TAB>CELL<TAB>STATUS" for each cell that is
# not ok.  Returns 1 when a table could not be written.
matrix_table_render() {
	local out=$1 dest=$2 SCRATCH=$3 recs c k name host repeat timeout_s base_cell compilers
	local -A build_line=() run_line=() memory=() expect=() cell_dir=() skipped=() run_rc=() run_json=() run_err=()
	local cells=''
	recs=$SCRATCH/records.jsonl
	results_records "$out" >"$recs"
	name=$(results_matrix_info "$out" name) host=$(results_matrix_info "$out" host)
	repeat=$(results_matrix_info "$out" repeat) timeout_s=$(results_matrix_info "$out" timeout)
	base_cell=$(results_matrix_info "$out" baseline)
	[[ $repeat =~ ^[1-9][0-9]*$ ]] || die "$out: no repeat count in its matrix.info: not a finished matrix run"
	compilers=$out/compilers.txt
	# The cells, their lines and their runs, from the records; fields
	# apart by US (0x1f), which is not blank, so empty ones stay.
	while IFS=$'\x1f' read -r c k rc json err b r m e dir st; do
		if [ -z "${build_line[$c]+set}" ]; then
			cells="$cells $c"
			build_line[$c]=$b run_line[$c]=$r memory[$c]=$m expect[$c]=$e cell_dir[$c]=$dir
		fi
		case "$k" in
		null) [[ $st != skipped:* ]] || skipped[$c]=$st ;;
		*) run_rc[$c.$k]=$rc run_json[$c.$k]=$json run_err[$c.$k]=$err ;;
		esac
	done < <(jq -r --arg out "$out" '[.group, .run, .exit_status,
			(if .files.json then "\($out)/\(.files.json)" else "" end),
			(if .files.stderr then "\($out)/\(.files.stderr)" else "" end),
			.cell.build_line, .cell.run_line, .cell.memory, .cell.expect, .cell.dir, .status]
		| map(if . == null then "null" else tostring | gsub("[\n\r\u001f]"; " ") end) | join("\u001f")' "$recs")
	nl=$'\n'
	rows="$SCRATCH/rows.tsv"
	: >"$rows"
	notes="$SCRATCH/notes.tsv"
	: >"$notes"
	for c in $cells; do
		copy="" scale="" add="" triad="" thr="" alloc="" asize="" huge="" kib="" spr=""
		if [ -n "${skipped[$c]+set}" ]; then
			status=${skipped[$c]}
		else
			# Every run that took place; a validation failure in any of them
			# fails the cell, else the first other failure names it.
			copies="" scales="" adds="" triads="" bad_valid=0 failed="" json_seen=0
			ex="$SCRATCH/extra.$c"
			: >"$ex.rules"; : >"$ex.reasons"; : >"$ex.warn"; : >"$ex.samples"
			k=1
			while [ "$k" -le "$repeat" ] && [ -n "${run_rc[$c.$k]+set}" ]; do
				read_run "${run_json[$c.$k]}" "${run_rc[$c.$k]}" "${expect[$c]}" "${run_err[$c.$k]}"
				if [ "$r_json" = 1 ]; then
					# The run-rule verdict, its reasons and bench's warnings,
					# each distinct line once per cell, for the notes.
					jq -r '.run_rules.verdict // empty' "${run_json[$c.$k]}" >>"$ex.rules"
					jq -r '.run_rules.reasons[]? // empty' "${run_json[$c.$k]}" >>"$ex.reasons"
					jq -r '.warnings[]? // empty' "${run_json[$c.$k]}" >>"$ex.warn"
					if [ "$json_seen" = 0 ]; then
						thr=$r_thr alloc=$r_alloc asize=$r_asize kib=$r_kib
					fi
					json_seen=1
					# Pages can differ from run to run (THP): show each share seen.
					case "$nl$huge$nl" in
					*"$nl$r_huge$nl"*) ;;
					*) huge="$huge${huge:+$nl}$r_huge" ;;
					esac
				fi
				case "$r_status" in
				ok)
					copies="$copies$r_copy$nl" scales="$scales$r_scale$nl"
					adds="$adds$r_add$nl" triads="$triads$r_triad$nl"
					printf '%s\t%s\t%s\n' Copy "$k" "$r_copy" Scale "$k" "$r_scale" \
						Add "$k" "$r_add" Triad "$k" "$r_triad" >>"$ex.samples" ;;
				"FAILED validation") bad_valid=1 ;;
				FAILED:*) if [ -z "$failed" ]; then
					failed=$r_status
					[ "$repeat" = 1 ] || failed="$failed in run $k of $repeat"
				fi ;;
				*) [ -n "$failed" ] || failed=$r_status ;;
				esac
				k=$((k + 1))
			done
			huge=$(printf '%s\n' "$huge" | awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
			if [ "$bad_valid" = 1 ]; then
				status="FAILED validation"
			elif [ -n "$failed" ]; then
				status=$failed
			else
				status=ok
				# results.sh's median and spread: bench's own digits
				copy=$(printf '%s' "$copies" | results_median '') scale=$(printf '%s' "$scales" | results_median '')
				add=$(printf '%s' "$adds" | results_median '') triad=$(printf '%s' "$triads" | results_median '')
				[ "$repeat" = 1 ] || spr=$(printf '%s' "$triads" | results_spread)
			fi
		fi
		# The run-rule verdict and the caveats: only for a cell with numbers.
		rules="" reasons="" caveats=""
		if [ "$status" = ok ]; then
			rules=$(awk '!seen[$0]++' "$ex.rules" | paste -sd/ -)
			reasons=$(awk '!seen[$0]++' "$ex.reasons" | paste -sd';' - | sed 's/;/; /g')
			tr_ratio=$(triad_add_ratio "$add" "$triad")
			caveats=$(cell_caveats "$ex.warn" "$tr_ratio")
			awk -v c="$c" '!seen[$0]++ { print c "\t" $0 }' "$ex.warn" >>"$notes"
			[ -z "$tr_ratio" ] || printf "%s\tTriad's rate is %sx Add's, though both move three words per element (outside %s-%s)\n" \
				"$c" "$tr_ratio" "$TRIAD_ADD_LOW" "$TRIAD_ADD_HIGH" >>"$notes"
		fi
		printf '%s\t' "$c" "${build_line[$c]}" "${run_line[$c]}" \
			"${memory[$c]}" "$alloc" "$thr" "$asize" "$copy" "$scale" "$add" \
			"$triad" "$status" "$huge" "$kib" "$spr" "${cell_dir[$c]}" "$rules" "$reasons" >>"$rows"
		printf '%s\n' "$caveats" >>"$rows"
		# what is not ok, for run-matrix's exit status and final line
		[ "$status" = ok ] || printf 'status\t%s\t%s\n' "$c" "$status"
	done

	# The baseline: --baseline's cell, else the first row that has numbers.
	[ -n "$base_cell" ] || base_cell=$(awk -F'\t' '$12 == "ok" && $11 != "" { print $1; exit }' "$rows")
	base_status=$(awk -F'\t' -v c="$base_cell" '$1 == c { print $12 }' "$rows")
	# Each cell with numbers against it, kernel by kernel, by the rule
	# harness/compare uses (results_noise_rows): the samples are each run's best
	# rates, so the change is between the medians the table shows.
	vs="$SCRATCH/vs.tsv"
	: >"$vs"
	if [ "$base_status" = ok ]; then
		awk -F'\t' -v b="$base_cell" '$12 == "ok" && $1 != b { print $1 }' "$rows" | while IFS= read -r c; do
			awk -v c="$c" 'BEGIN { OFS = "\t" } { print "A", c, c, $1, "bw", $2, $3, $3, $3 }' "$SCRATCH/extra.$base_cell.samples"
			awk -v c="$c" 'BEGIN { OFS = "\t" } { print "B", c, c, $1, "bw", $2, $3, $3, $3 }' "$SCRATCH/extra.$c.samples"
		done | results_noise_rows | awk 'BEGIN { FS = OFS = "\t" } $1 == "row" { print $2, $3, $7, $14, $12, $13 }' >"$vs"
	fi

	# The header: the machine and the compilers, from the first result.json
	# bench wrote (its own report of the system), else from what run-matrix
	# read of the machine (matrix.info's system_fallback).
	first_json=$(jq -r 'select(.files.json != null) | .files.json' "$recs" | head -n 1)
	[ -z "$first_json" ] || first_json=$out/$first_json
	if [ -n "$first_json" ] && sysline=$(jq -r '.system as $s | [
			"CPU: \($s.cpu_model // "unknown"), \($s.online_cpus // "?") online CPUs (\($s.machine // "?"))",
			"Memory: \(if $s.memory_bytes then ($s.memory_bytes / 1073741824 * 10 | round / 10 | tostring) + " GiB" else "unknown" end); last-level cache: \(
				[$s.caches[]?] as $c | ($c | map(.level) | max) as $m
				| [$c[] | select(.level == $m) | "\(.name) \(.bytes / 1048576 * 100 | round / 100) MiB x \(.instances)"]
				| if length == 0 then "none reported by the OS" else join(", ") end)",
			"Kernel: \($s.kernel // "unknown")"] | .[]' "$first_json" 2>/dev/null); then
		:
	else
		sysline=$(results_matrix_info "$out" system_fallback | sed 's/\\n/\n/g')
	fi
	compiler_versions=$(awk -F'\t' '$4 != "missing" && $7 != "" { printf "%s%s: %s", (n++ ? "; " : ""), $1, $7 }' "$compilers")

	# Markdown and CSV from rows.tsv.  The Triad ratio is Triad over the
	# baseline's; a second table gives every kernel's change against it.
	# With --repeat, the rates are medians over the runs, a column gives the
	# Triad spread (max/min) over them, and with 3 or more runs each change
	# gets a verdict.
	title="matrix $name on $host, $(basename "$out" | cut -d- -f1) UTC"
	[ "$repeat" = 1 ] ||
		title="$title; rates are medians of $repeat interleaved runs per cell"
	awk -F'\t' -v md="$dest/table.md" -v csv="$dest/table.csv" -v title="$title" \
		-v repeat="$repeat" -v basecell="$base_cell" -v basestatus="$base_status" \
		-v sysline="$sysline" -v compilers="${compiler_versions:-none found}" \
		-v vsfile="$vs" -v notesfile="$notes" '
		function num(x) { return x == "" ? "" : sprintf("%.1f", x) }
		function q(x) { gsub(/"/, "\"\"", x); return "\"" x "\"" }
		function cell(x) { gsub(/\|/, "\\|", x); gsub(/`/, "'"'"'", x); return x }
		function pct(x) { x = sprintf("%+.1f%%", x); return x == "-0.0%" ? "+0.0%" : x }
		BEGIN {
			while ((getline l < vsfile) > 0) {
				split(l, v, "\t")
				chg[v[1], v[2]] = v[3]; verdict[v[1], v[2]] = v[4]
			}
			while ((getline l < notesfile) > 0) {
				t = index(l, "\t")
				notes = notes "- cell " substr(l, 1, t - 1) ": " substr(l, t + 1) "\n"
			}
			nk = split("Copy Scale Add Triad", kern, " ")
		}
		{ row[NR] = $0; if ($1 == basecell) { baserow = NR; base = $11 }
		  if ($17 != "" && $17 != "standard") rules = rules "- cell " $1 ": " $17 ($18 != "" ? ": " $18 : "") "\n" }
		END {
			multi = repeat > 1
			verdicts = repeat >= 3
			printf "%s\n\n", title >md
			n = split(sysline, sl, "\n")
			for (i = 1; i <= n; i++) printf "- %s\n", sl[i] >md
			printf "- Compilers: %s\n", compilers >md
			split(row[baserow], bf, "\t")
			if (baserow && basestatus == "ok")
				printf "- Baseline: row %d, `%s`\n\n", baserow, cell(bf[2]) >md
			else if (baserow)
				printf "- Baseline: row %d, `%s`, which has no numbers (%s): no comparison\n\n", baserow, cell(bf[2]), basestatus >md
			else
				printf "- Baseline: none, no row has numbers\n\n" >md
			print "| # | build | memory | threads | Copy MB/s | Scale MB/s | Add MB/s | Triad MB/s | validation | huge pages | Triad ratio |" \
				(multi ? " Triad spread |" : "") " run rules | caveats |" >md
			print "|---|---|---|---|---:|---:|---:|---:|---|---|---:|" (multi ? "---:|" : "") "---|---|" >md
			print "cell,build_line,run_line,memory,alloc,threads,array_size,copy_mbs,scale_mbs,add_mbs,triad_mbs,validation,huge_pages,page_kib,triad_ratio," \
				(multi ? "triad_spread," : "") "dir,run_rules,run_rule_reasons,caveats,baseline," \
				"copy_vs_baseline_pct,scale_vs_baseline_pct,add_vs_baseline_pct,triad_vs_baseline_pct" \
				(verdicts ? ",copy_verdict,scale_verdict,add_verdict,triad_verdict" : "") >csv
			for (i = 1; i <= NR; i++) {
				split(row[i], f, "\t")
				ratio = (f[12] == "ok" && basestatus == "ok" && base > 0) ? sprintf("%.2f", f[11] / base) : ""
				mem = f[4] (f[5] != "" && f[5] != f[4] ? " (" f[5] ")" : "")
				printf "| %d | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |%s %s | %s |\n", i,
					cell(f[2]), cell(mem), f[6], num(f[8]), num(f[9]), num(f[10]),
					num(f[11]), cell(f[12]), cell(f[13]), ratio,
					(multi ? " " f[15] " |" : ""), cell(f[17]), cell(f[19]) >md
				vsc = ""; vsv = ""
				for (k = 1; k <= nk; k++) {
					x = (f[1] == basecell && f[12] == "ok") ? 0 : chg[f[1], kern[k]]
					vsc = vsc "," (x == "" ? "" : sprintf("%.1f", x))
					if (verdicts) vsv = vsv "," (f[1] == basecell ? "" : q(verdict[f[1], kern[k]]))
				}
				printf "%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s%s,%s,%s,%s,%d%s%s\n", i, q(f[2]), q(f[3]),
					q(f[4]), q(f[5]), f[6], f[7], f[8], f[9], f[10], f[11], q(f[12]),
					q(f[13]), q(f[14]), ratio, (multi ? f[15] "," : ""), q(f[16]),
					q(f[17]), q(f[18]), q(f[19]), (f[1] == basecell), vsc, vsv >csv
			}
			if (baserow && basestatus == "ok" && multi)
				printf "\nTriad ratio: median Triad best rate over row %d'"'"'s. Triad spread: the largest over the smallest of a cell'"'"'s %d Triad best rates.\n", baserow, repeat >md
			else if (baserow && basestatus == "ok")
				printf "\nTriad ratio: Triad best rate over row %d'"'"'s.\n", baserow >md
			# Against the baseline, every kernel.
			if (baserow && basestatus == "ok") {
				printf "\n## Against the baseline, row %d\n\n", baserow >md
				if (verdicts)
					printf "Change of each kernel'"'"'s median best rate, and whether it is beyond noise by harness/compare'"'"'s rule over the %d runs a side: a Mann-Whitney rank test (p < 0.05) with 4 or more runs, else within noise when the change is no larger than the larger spread (max/min - 1) of the two cells'"'"' runs.\n\n", repeat >md
				else
					printf "Change of each kernel'"'"'s %s. With REPEAT of 3 or more, each change also gets a verdict: faster, slower or within noise.\n\n", (multi ? "median best rate" : "best rate") >md
				print "| cell | build | Copy | Scale | Add | Triad |" >md
				print "|---|---|---:|---:|---:|---:|" >md
				for (i = 1; i <= NR; i++) {
					split(row[i], f, "\t")
					line = "| " f[1] " | `" cell(f[2]) "` |"
					for (k = 1; k <= nk; k++) {
						if (f[1] == basecell) c = "baseline"
						else if (f[12] != "ok") c = (k == 1 ? cell(f[12]) : "")
						else {
							c = pct(chg[f[1], kern[k]])
							if (verdicts) c = c " " verdict[f[1], kern[k]]
						}
						line = line " " c " |"
					}
					print line >md
				}
			}
			if (notes != "")
				printf "\n## Caveats\n\nWhat bench warned about each cell with numbers, and a Triad far from Add:\n\n%s", notes >md
			if (rules != "")
				printf "\n## Run rules\n\nSTREAM'"'"'s run rules (docs/bench.md): a cell that is not \"standard\" says why:\n\n%s", rules >md
			print "" >md
		}' "$rows" || return 1
	if [ "$repeat" = 1 ]; then
		printf 'Exact build and run lines: cells/NNN/build.sh, run.sh; raw output: output.txt (text), result.json (the same run as JSON), stderr.txt.\n' >>"$dest/table.md"
	else
		printf 'Exact build and run lines: cells/NNN/build.sh, run.sh; raw output of run K: cells/NNN/run-K/output.txt (text), result.json (the same run as JSON), stderr.txt.\n' >>"$dest/table.md"
	fi || return 1
}
