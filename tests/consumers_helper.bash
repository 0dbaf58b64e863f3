# The rules by which the scripts people already run read STREAM's text,
# each written here as its consumer applies it (data only: no consumer's
# code).  consumers.bats applies them to stream.c and bench, mpi.bats to
# stream_mpi.c and bench-mpi; a rule that reads the original but not
# membench is a compatibility bug.

# the stored outputs of the real tools, for the files that load this one
# shellcheck disable=SC2034
FIX="$MEMBENCH_ROOT/tests/fixtures/consumers"
KERNELS="Copy Scale Add Triad"

# The Phoronix Test Suite's stream profile: the last line that starts
# with the kernel's label, second field.
pts_value() { awk -v k="$1:" 'index($0, k) == 1 { v = $2 } END { print v }'; }
# A Python-style parser: re.search(r'^Triad:\s+(\S+)', line) per line.
regex_anchored() { sed -nE "s/^$1:[[:space:]]+([^[:space:]]+).*/\1/p"; }
# re.findall(r'Triad:\s+(\S+)\s+\S+', text): unanchored, ReFrame's STREAM
# checks' performance pattern (their sanity pattern is the line
# 'Solution Validates: avg error less than').
regex_unanchored() { grep -oE "$1:[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+" | awk '{ print $2 }'; }
# The shell idioms: `grep Triad | awk '{print $2}'` and `... | cut -d: -f2`.
grep_awk() { grep "$1" | awk '{ print $2 }'; }
grep_cut() { grep "$1" | cut -d: -f2; }

# PerfKitBenchmarker's: each line stripped of blanks that starts with the
# label must read as the label, a colon and four numbers; the last such
# line's first number is the rate.
pkb_value() {
	awk -v k="$1:" '{ sub(/^[ \t]+/, "") }
		index($0, k) == 1 {
			if ($0 !~ /^[A-Za-z0-9_]+:[ \t]+[0-9]*\.?[0-9]+[ \t]+[0-9]*\.?[0-9]+[ \t]+[0-9]*\.?[0-9]+[ \t]+[0-9]*\.?[0-9]+/) {
				print "unparsed: " $0; exit 1
			}
			v = $2
		}
		END { print v }'
}

# every_consumer_reads_one_rate FILE [REVISION]: each rule yields exactly
# one positive number per kernel, and all rules yield the same one; the
# file has one STREAM version line, of REVISION (stream.c's 5.10 unless
# given; stream_mpi.c's is 1.8).
every_consumer_reads_one_rate() {
	local f="$1" rev="${2:-5.10}" k v rule got
	for k in $KERNELS; do
		v=$(grep_awk "$k" <"$f")
		[ "$(printf '%s\n' "$v" | wc -l)" -eq 1 ] || {
			echo "grep $k | awk matched more than one line in $f:"
			grep "$k" "$f"
			return 1
		}
		awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || {
			echo "grep $k | awk gave '$v', not a rate"
			return 1
		}
		for rule in pts_value regex_anchored regex_unanchored pkb_value; do
			got=$("$rule" "$k" <"$f")
			[ "$got" = "$v" ] || {
				echo "$rule $k gave '$got', grep gave '$v'"
				return 1
			}
		done
		got=$(grep_cut "$k" <"$f" | awk '{ print $1 }')
		[ "$got" = "$v" ] || {
			echo "grep $k | cut -d: -f2 gave '$got'"
			return 1
		}
	done
	# startswith("STREAM version") and the metadata parsers record
	[ "$(grep -c "^STREAM version \\\$Revision: $rev \\\$\$" "$f")" -eq 1 ]
	[ "$(grep -c 'STREAM version' "$f")" -eq 1 ]
	[ "$(grep -c 'Function' "$f")" -eq 1 ]
	[ "$(grep -c 'Solution Validates' "$f")" -le 1 ]
}

# STREAM's lines with every number masked.  stream.c prints one of two
# granularity lines, as its clock allows; either is STREAM's.
stream_skeleton() {
	sed -E 's/[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/N/g; s/ +/ /g
		s/^Your clock granularity.*/Your clock granularity .../
		s/^Your timer granularity.*/Your timer granularity .../' "$1"
}

# lines_in_order REFERENCE OUTPUT: every line of the reference tool's
# output, numbers masked, appears in OUTPUT's, in the same order.
lines_in_order() {
	awk 'NR == FNR { want[++n] = $0; next }
		i < n && $0 == want[i + 1] { i++ }
		END { if (i < n) { print "missing, in order: " want[i + 1]; exit 1 } }' \
		<(stream_skeleton "$1") <(stream_skeleton "$2")
}
