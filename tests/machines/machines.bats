#!/usr/bin/env bats
# The emulated machines (make check-machines; docs/testing.md): each shape
# in tests/machines/shapes is booted once under QEMU (software emulation,
# Debian's cloud kernel, an initramfs of this tree's bench and harness),
# runs tests/machines/guest/checks, and these tests assert on what its
# console printed.  No test asserts a speed: emulated bandwidth swings 28x
# between repetitions.

load ../test_helper
load machines_helper

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true
	command -v qemu-system-x86_64 >/dev/null || return 0
	boot_machines
}

setup() { need_machines; }

# expected_shape: "cpu package core thread node" of each CPU as the
# guest's kernel says (lscpu): core named by its lowest CPU, thread its
# place among the core's CPUs.
expected_shape() {
	cpu_map | sort -n | awk '
		{ cpu[NR] = $1; core[NR] = $2; sock[NR] = $3; node[NR] = $4
		  if (!($2 in first)) first[$2] = $1; rank[NR] = seen[$2]++ }
		END { for (i = 1; i <= NR; i++) print cpu[i], sock[i], first[core[i]], rank[i], node[i] }'
}

@test "every shape boots, runs every check to its end, and every command in it succeeds" {
	local s bad name
	for s in $(machine_shapes); do
		shape_begin "$s"
		bad=$(grep '^@@@ end ' "$LOG" | grep -v ' rc=0$' || :)
		[ -z "$bad" ] || { echo "checks that failed in the guest:"; echo "$bad"; return 1; }
		for name in machine.lscpu info.json bind.t1.json presets sweep pages.all.json pages.omp.json \
			mapping.thp.json settings make-run; do
			[ "$(section_rc "$name")" = 0 ] || { echo "check $name did not run"; return 1; }
		done
	done
}

@test "info's topology is the guest kernel's and the shape's: packages, cores, SMT siblings, nodes with their CPUs and memory" {
	local s info n want got mib bytes cpus sock core
	for s in $(machine_shapes); do
		shape_begin "$s"
		info=$(section_json info.json)
		# CPU by CPU, against the kernel's own account (lscpu)
		diff <(expected_shape) <(jq -r '.system.topology.cpu[] | "\(.id) \(.package) \(.core) \(.thread) \(.node)"' <<<"$info")
		# the totals, against what QEMU was told
		run jq -c '.system.topology | [.known, .packages, .cores, .threads_per_core, .cpus]' <<<"$info"
		assert_output "[true,$SHAPE_SOCKETS,$((SHAPE_SOCKETS * SHAPE_CORES)),$SHAPE_THREADS,$(shape_cpus)]"
		run jq -r '[.system.numa.nodes[].id] | join(" ")' <<<"$info"
		assert_output "$(printf '%s\n' "${SHAPE_NODES[@]}" | sort -n | paste -sd' ')"
		for n in "${SHAPE_NODES[@]}"; do
			# the CPUs the shape places on node n, and their packages
			want=0
			for p in "${SHAPE_PLACES[@]}"; do
				read -r pn sock core <<<"$p"
				[ "$pn" = "$n" ] || continue
				if [ "$core" = - ]; then want=$((want + SHAPE_CORES * SHAPE_THREADS)); else want=$((want + SHAPE_THREADS)); fi
				run jq -r --argjson n "$n" --argjson p "$sock" \
					'[.system.topology.cpu[] | select(.node == $n) | .package] | unique | index($p) != null' <<<"$info"
				assert_output true
			done
			cpus=$(jq -r --argjson n "$n" '.system.numa.nodes[] | select(.id == $n) | .cpus | length' <<<"$info")
			[ "$cpus" = "$want" ] || { echo "node $n: $cpus CPUs, the shape places $want"; return 1; }
			# the kernel keeps some of a node's memory for itself
			mib=${SHAPE_NODE_MIB[$n]}
			bytes=$(jq -r --argjson n "$n" '.system.numa.nodes[] | select(.id == $n) | .memory_bytes' <<<"$info")
			[ "$bytes" -le $((mib << 20)) ] && [ "$bytes" -ge $((mib * 3 << 18)) ] ||
				{ echo "node $n: $bytes bytes of memory, the shape gives it $mib MiB"; return 1; }
		done
		# the guest's init turned NUMA balancing off, and info says so
		section info | grep -qx 'Memory policy: default (each page on the node of the CPU that first touches it); NUMA balancing off'
		# the text says the same
		got=$(section info | grep -c '^NUMA node ')
		[ "$got" = "${#SHAPE_NODES[@]}" ]
		section info | grep -qx "Topology: $SHAPE_SOCKETS package[s]*, $((SHAPE_SOCKETS * SHAPE_CORES)) cores, $(shape_cpus) CPUs online, .*"
	done
}

# spread_ok JSON [runtime]: bench's default binding in run JSON: one
# thread a core while there are cores, the packages in proportion to
# their cores, the threads in package order, none moved; on the kernel's
# CPU map.  runtime: the OpenMP runtime's spread over cores, which binds
# a thread to a core (it may move between the core's siblings) and may
# start the pattern at any core (thread 0 stays where it was).
spread_ok() {
	local json=$1 runtime=${2:-}
	jq -r '.run.threads[] | "\(.thread) \(.cpu) \(.cpu_end)"' <<<"$json" |
		awk -v map="$(cpu_map)" -v runtime="$runtime" '
		BEGIN { n = split(map, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], f, " "); core[f[1]] = f[3] "." f[2]; sock[f[1]] = f[3]
				if (!(f[3] "." f[2] in cs)) { cs[f[3] "." f[2]] = 1; ncores++; pc[f[3]]++ } ncpus++ } }
		{ t[NR] = $1; c[NR] = $2
		  if ($2 != $3 && (runtime == "" || core[$2] != core[$3])) { print "thread " $1 " moved from CPU " $2 " to " $3; bad = 1 }
		  if (!($2 in core)) { print "thread " $1 " on CPU " $2 ", not online"; bad = 1 } }
		END { T = NR
			for (i = 1; i <= T; i++) { oncpu[c[i]]++; oncore[core[c[i]]]++; onpkg[sock[c[i]]]++
				if (runtime == "" && i > 1 && sock[c[i]] < sock[c[i - 1]]) { print "thread " t[i] " is on an earlier package than thread " t[i - 1]; bad = 1 } }
			lo = int(T / ncores); hi = lo + (T % ncores ? 1 : 0)
			for (k in cs) if ((oncore[k] + 0) < lo || (oncore[k] + 0) > hi) {
				print "core " k " runs " (oncore[k] + 0) " threads, not " lo "-" hi; bad = 1 }
			if (T <= ncpus) for (k in oncpu) if (oncpu[k] > 1) { print "CPU " k " runs " oncpu[k] " threads"; bad = 1 }
			for (p in pc) { share = T * pc[p] / ncores; d = (onpkg[p] + 0) - share
				if (d > 1 || d < -1) { print "package " p " runs " (onpkg[p] + 0) " threads, its cores share is " share; bad = 1 } }
			exit bad }'
}

@test "bench's default binding: one thread a core, spread over every package before SMT siblings, and says so (defect 1)" {
	local s t json cores ncpus
	for s in $(machine_shapes); do
		shape_begin "$s"
		ncpus=$(cpu_map | wc -l)
		cores=$((SHAPE_SOCKETS * SHAPE_CORES))
		# where the threads ran, at every count, then what bench said of it
		for t in 1 2 3 $((cores / 2)) "$cores" "$ncpus"; do
			[ "$t" -ge 1 ] && [ "$t" -le "$ncpus" ] || continue
			echo "-- bench -t $t"
			spread_ok "$(section_json "bind.t$t.json")"
		done
		for t in 1 2 3 $((cores / 2)) "$cores" "$ncpus"; do
			[ "$t" -ge 1 ] && [ "$t" -le "$ncpus" ] || continue
			json=$(section_json "bind.t$t.json")
			run jq -r '[.run.binding_rule, .run.threads_counted] | join(" ")' <<<"$json"
			assert_output "spread_cores $t"
			section "bind.t$t" | grep -q "^Binding: auto, spread over cores as OMP_PROC_BIND=spread OMP_PLACES=cores would: $t threads\{0,1\} on "
		done
		# the issue's case: -t 4 on 2 sockets runs on four cores, two a socket
		if [ "$cores" = 4 ] && [ "$SHAPE_SOCKETS" = 2 ]; then
			run jq -r '[.run.threads[].package] | sort | join(" ")' <<<"$(section_json bind.t4.json)"
			assert_output "0 0 1 1"
		fi
	done
}

@test "an OpenMP binding of the user's own wins, and the Binding line keeps every variable (defect 3)" {
	local s cores json
	for s in $(machine_shapes); do
		shape_begin "$s"
		cores=$((SHAPE_SOCKETS * SHAPE_CORES))
		section "bind-omp.t$cores" | grep -qx 'Binding: from OMP_PROC_BIND=spread OMP_PLACES=cores'
		json=$(section_json "bind-omp.t$cores.json")
		run jq -r '.run.binding_rule' <<<"$json"
		assert_output openmp_env
		# libgomp's spread over cores: one thread a core, as bench's own
		spread_ok "$json" runtime
	done
}

@test "each harness preset puts its threads where it says, verified from the CPUs they ran on" {
	local s i last c0 c1
	for s in $(machine_shapes); do
		shape_begin "$s"
		last=$(cpu_map | tail -n 1 | cut -d' ' -f1)
		# close, spread, then the list "last,0": two threads each
		for i in 1 2 3; do
			run jq -r '[.status, .binding.verified, .bench.run.threads_counted] | join(" ")' <<<"$(section_json "presets.step-00$i.json")"
			assert_output "ok true 2"
		done
		# close: one core's two siblings, where the shape has SMT
		read -r c0 c1 < <(jq -r '[.bench.run.threads[].cpu] | join(" ")' <<<"$(section_json presets.step-001.json)")
		if [ "$SHAPE_THREADS" -gt 1 ]; then
			[ "$(cpu_map | awk -v c="$c0" '$1 == c { print $3 "." $2 }')" = "$(cpu_map | awk -v c="$c1" '$1 == c { print $3 "." $2 }')" ] ||
				{ echo "close put its threads on CPUs $c0 and $c1, not one core's siblings"; return 1; }
		fi
		# spread: two packages, where the shape has them
		read -r c0 c1 < <(jq -r '[.bench.run.threads[].cpu] | join(" ")' <<<"$(section_json presets.step-002.json)")
		if [ "$SHAPE_SOCKETS" -gt 1 ]; then
			[ "$(cpu_map | awk -v c="$c0" '$1 == c { print $3 }')" != "$(cpu_map | awk -v c="$c1" '$1 == c { print $3 }')" ] ||
				{ echo "spread put its threads on CPUs $c0 and $c1, one package"; return 1; }
		fi
		run jq -r '[.bench.run.threads[].cpu] | join(" ")' <<<"$(section_json presets.step-003.json)"
		assert_output "$last 0"
	done
}

@test "a thread sweep to every CPU: each step validates, on CPUs of its own, and the last uses them all" {
	local s steps i json t cpus ncpus
	for s in $(machine_shapes); do
		shape_begin "$s"
		ncpus=$(cpu_map | wc -l)
		steps=$(section sweep | grep -c '^| [0-9]')
		[ "$steps" -ge 3 ]
		for ((i = 1; i <= steps; i++)); do
			json=$(section_json "sweep.step-$(printf %03d "$i").json")
			run jq -r '[.status, .binding.verified, .bench.validation.ok] | join(" ")' <<<"$json"
			assert_output "ok true true"
			t=$(jq -r '.bench.run.threads_counted' <<<"$json")
			cpus=$(jq -r '[.bench.run.threads[].cpu] | unique | length' <<<"$json")
			[ "$cpus" = "$t" ] || { echo "step $i: $t threads on $cpus CPUs"; return 1; }
		done
		[ "$t" = "$ncpus" ]
		[ "$(jq -r '[.bench.run.threads[].cpu] | sort | join(" ")' <<<"$json")" = "$(cpu_map | cut -d' ' -f1 | sort -n | paste -sd' ')" ]
	done
}

# pages_ok JSON: every huge page of each array on the node of the threads
# that use most of it (their equal shares of the elements), counted in
# base pages from --placement's node_pages, on the kernel's CPU map.  A
# page within 1% of an even split may be on either side.
pages_ok() {
	local json=$1 i
	for i in 0 1 2; do
		jq -r --argjson i "$i" '.run as $r | $r.arrays[$i] |
			"\($r.array_size) \($r.bytes_per_element) \(.address) \(.bytes) \(.huge_pct) \(.page_kib)",
			([$r.threads[].cpu] | join(" ")),
			(.physical.node_pages | to_entries | map("\(.key)=\(.value)") | join(" "))' <<<"$json" |
		awk -v map="$(cpu_map)" -v name="$i" '
			function hex(s,   v, k, d) { v = 0; s = tolower(substr(s, 3))
				for (k = 1; k <= length(s); k++) { d = index("0123456789abcdef", substr(s, k, 1)) - 1; v = v * 16 + d }
				return v }
			BEGIN { n = split(map, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); node[f[1]] = f[4] } }
			NR == 1 { N = $1; e = $2; A = hex($3); bytes = $4; huge = $5; P = $6 * 1024 }
			NR == 2 { T = split($0, cpu, " ") }
			NR == 3 { k = split($0, kv, " "); for (i = 1; i <= k; i++) { split(kv[i], p, "="); got[p[1]] = p[2] } }
			END {
				if (huge < 100 || P != 2097152) { print "array " name ": " huge "% on " P / 1024 " KiB pages, not all on 2 MiB ones"; exit 1 }
				lo4 = int(A / 4096) * 4096; hi4 = int((A + bytes + 4095) / 4096) * 4096
				for (pg = int(A / P) * P; pg < A + bytes; pg += P) {
					plo = (pg - A) / e; phi = (pg + P - A) / e
					if (plo < 0) plo = 0; if (phi > N) phi = N
					delete own; best = ""; all = phi - plo
					for (t = 1; t <= T; t++) {
						tlo = N * (t - 1) / T; thi = N * t / T
						a = (tlo > plo ? tlo : plo); b = (thi < phi ? thi : phi)
						if (b > a) own[node[cpu[t]]] += b - a }
					for (nd in own) if (best == "" || own[nd] > own[best]) best = nd
					base = ((pg + P < hi4 ? pg + P : hi4) - (pg > lo4 ? pg : lo4)) / 4096
					if (own[best] < 0.51 * all) slack += base; else want[best] += base }
				for (nd in want) seen[nd] = 1; for (nd in got) seen[nd] = 1
				for (nd in seen) { d = (got[nd] + 0) - (want[nd] + 0)
					if (d > slack || -d > slack) { print "array " name ": node " nd " holds " (got[nd] + 0) " base pages, its threads use most of " (want[nd] + 0) " (slack " slack + 0 ")"; bad = 1 } }
				exit bad }' || return 1
	done
}

@test "first touch puts every 2 MiB page on the node of the threads that use most of it (defect 2)" {
	local s step
	for s in $(machine_shapes); do
		shape_begin "$s"
		[ "${#SHAPE_NODES[@]}" -gt 1 ] || continue
		for step in pages.all pages.cores pages.omp; do
			[ -n "$(section_rc "$step.json")" ] || continue # cores == CPUs: no pages.cores
			echo "-- $step"
			pages_ok "$(section_json "$step.json")"
		done
		# bench's own spans were split on the pages
		run jq -r '.run.span_bytes' <<<"$(section_json pages.all.json)"
		assert_output 2097152
	done
}

# node_pages JSON ARRAY_INDEX: "node=pages ..." of --placement's account.
node_pages() {
	jq -r --argjson i "$2" '.run.arrays[$i].physical.node_pages | to_entries | map("\(.key)=\(.value)") | join(" ")' <<<"$1"
}

@test "numactl's --membind, --interleave and --preferred put each array's pages where they say, and an all-remote run says so (defect 3)" {
	local s json other first i all nodes mem
	for s in $(machine_shapes); do
		shape_begin "$s"
		[ "${#SHAPE_NODES[@]}" -gt 1 ] || continue
		policy_nodes
		first=$POLICY_FIRST other=$POLICY_OTHER
		# --membind to another node than the threads': every page there, and a warning
		json=$(section_json policy.remote.json)
		run jq -c '[.system.memory_policy.mode, .system.memory_policy.nodes, ([.run.threads[].node] | unique)]' <<<"$json"
		assert_output "[\"bind\",[$other],[$first]]"
		for i in 0 1 2; do
			[ "$(node_pages "$json" "$i" | sed 's/=[0-9]*//g')" = "$other" ] || { echo "membind: array $i: $(node_pages "$json" "$i")"; return 1; }
		done
		section policy.remote | grep -qx "Memory policy: bind, node $other; NUMA balancing off"
		section policy.remote | grep -qx "WARNING: every page of the arrays is on node $other and every thread runs on node $first: all of this run's memory is remote (see the Memory policy line)"
		jq -e '.warnings | any(test("all of this run.s memory is remote"))' <<<"$json" >/dev/null
		# --preferred: there too, since it has room
		json=$(section_json policy.preferred.json)
		for i in 0 1 2; do
			[ "$(node_pages "$json" "$i" | sed 's/=[0-9]*//g')" = "$other" ] || { echo "preferred: array $i: $(node_pages "$json" "$i")"; return 1; }
		done
		section policy.preferred | grep -qx "Memory policy: preferred, node $other; NUMA balancing off"
		# --interleave=all: every node with memory gets its turn, a huge page at a time
		json=$(section_json policy.interleave.json)
		mem=$(printf '%s\n' "${SHAPE_NODES[@]}" | sort -n | paste -sd' ')
		for i in 0 1 2; do
			all=$(node_pages "$json" "$i")
			nodes=$(tr ' ' '\n' <<<"$all" | cut -d= -f1 | paste -sd' ')
			[ "$nodes" = "$mem" ] || { echo "interleave: array $i on nodes '$nodes', not all of '$mem': $all"; return 1; }
			tr ' ' '\n' <<<"$all" | cut -d= -f2 | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { exit hi - lo > 1024 }' ||
				{ echo "interleave: array $i unevenly: $all"; return 1; }
		done
		# the harness's --numa: the same through its own numactl
		json=$(section_json numa.step-001.json)
		run jq -r '[.status, .bench.system.memory_policy.mode] | join(" ")' <<<"$json"
		assert_output "ok bind"
		for i in 0 1 2; do
			[ "$(node_pages "$(jq -c .bench <<<"$json")" "$i" | sed 's/=[0-9]*//g')" = "$other" ]
		done
		# and a run under no policy says so
		section pages.all | grep -qx 'Memory policy: default (each page on the node of the CPU that first touches it); NUMA balancing off'
	done
}

@test "each Mapping line gives its own array's range, and bench's arrays keep mappings of their own (defect 4)" {
	local s step json i name addr bytes
	for s in $(machine_shapes); do
		shape_begin "$s"
		for step in mapping.thp mapping.mmap; do
			json=$(section_json "$step.json")
			for i in 0 1 2; do
				name=$(jq -r ".run.arrays[$i].name" <<<"$json")
				addr=$(jq -r ".run.arrays[$i].address" <<<"$json")
				bytes=$(jq -r ".run.arrays[$i].bytes" <<<"$json")
				section "$step" | grep -q "^Mapping $name: $(printf '%x-%x' "$addr" $((addr + bytes))) (15.3 MiB) in " ||
					{ echo "$step: no Mapping $name line for its own range"; section "$step" | grep '^Mapping'; return 1; }
			done
			run jq -c '[.run.arrays[].mapping.shared_with] | add' <<<"$json"
			assert_output '[]'
		done
	done
}

@test "SMT off and THP never hold during the run and are put back after it" {
	local s json
	for s in $(machine_shapes); do
		shape_begin "$s"
		json=$(section_json settings.step-001.json)
		run jq -r '[.status, .bench.system.topology.threads_per_core, .bench.system.topology.cpus, .bench.system.thp] | join(" ")' <<<"$json"
		if [ "$SHAPE_THREADS" -gt 1 ]; then
			assert_output "ok 1 $((SHAPE_SOCKETS * SHAPE_CORES)) never"
			section settings | grep -q 'smt: off (was on), verified'
		else
			# no SMT to turn off: the harness says so, and runs
			assert_output "ok; smt skipped 1 $(shape_cpus) never"
		fi
		[ "$(section settings.after)" = "$(section machine.smt; section machine.thp)" ] ||
			{ echo "before:"; section machine.smt; section machine.thp; echo "after:"; section settings.after; return 1; }
	done
}

@test "make run finishes with its summary, a machine without a name files results under unnamed-host, and --placement's nodes reach the summary (defect 5)" {
	local s other
	for s in $(machine_shapes); do
		shape_begin "$s"
		section make-run | grep -q '^| run | not set | '
		section make-run | grep -q '^Solution Validates'
		[ "$(section make-run.dir | cut -d/ -f1)" = unnamed-host ]
		[ "$(section settings.dir | cut -d/ -f1)" = unnamed-host ]
		if [ "${#SHAPE_NODES[@]}" -gt 1 ]; then
			policy_nodes
			other=$POLICY_OTHER
			section numa | grep -q "^| numa | not set | .* | 2048 KiB 100% huge on node $other 100% | "
		fi
	done
}

# node_cpus N: the CPUs the guest's kernel places on node N (lscpu), one
# a line, ascending.
node_cpus() { cpu_map | awk -v n="$1" '$4 == n { print $1 }' | sort -n; }

@test "bench nodes: a row for each node with CPUs, a column for every node (memory alone a column only), every cell on the CPUs and pages it names" {
	local s doc rows cols n
	for s in $(machine_shapes); do
		shape_begin "$s"
		doc=$(section_json nodes.json)
		# rows: the nodes the kernel gives CPUs; columns: every node
		rows=$(cpu_map | awk '{ print $4 }' | sort -nu | paste -sd' ')
		cols=$(printf '%s\n' "${SHAPE_NODES[@]}" | sort -n | paste -sd' ')
		[ "$(jq -r '[.nodes.rows[].node] | map(tostring) | join(" ")' <<<"$doc")" = "$rows" ]
		[ "$(jq -r '[.nodes.columns[].node] | map(tostring) | join(" ")' <<<"$doc")" = "$cols" ]
		for n in $rows; do
			# a row's CPUs are its node's, as the kernel says (every CPU is
			# this process's to use in the guest)
			[ "$(jq -r --argjson n "$n" '.nodes.rows[] | select(.node == $n) | .cpus[]' <<<"$doc")" = "$(node_cpus "$n")" ] ||
				{ echo "row $n: CPUs $(jq -c --argjson n "$n" '.nodes.rows[] | select(.node == $n) | .cpus' <<<"$doc"), the kernel's: $(node_cpus "$n" | paste -sd,)"; return 1; }
		done
		for n in $cols; do
			[[ " $rows " == *" $n "* ]] && continue
			# memory without CPUs: a column, no row, and the text says so
			section nodes | grep -q "^Columns: .*; node $n has no CPUs: a column only"
			! section nodes | grep -qE "^ +$n:" || { echo "node $n, memory alone, has a row"; return 1; }
		done
		# every cell of both matrices: bound, each thread seen on its CPU
		# at its start and end, each of those CPUs on the row's node (the
		# kernel's lscpu), every page on the column's node, validated
		jq -r '.nodes.matrices[] | .matrix as $m | .cells[] | [$m, .cpu_node, .mem_node, .binding, .held, .cpus_held,
			(.ran_on == [.cpus[] | ., .]), (.node_pages == {(.mem_node | tostring): .pages}), (.pages >= 1024),
			(.validated != false), (.cpus | map(tostring) | join(","))] | map(tostring) | join(" ")' <<<"$doc" |
			while read -r m r c b h ch ran pages some valid cpus; do
				[ "$b $h $ch $ran $pages $some $valid" = "ok true true true true true true" ] ||
					{ echo "$m $r->$c did not hold: $b $h $ch $ran $pages $some $valid"; exit 1; }
				for cpu in ${cpus//,/ }; do
					node_cpus "$r" | grep -qx "$cpu" || { echo "$m $r->$c ran on CPU $cpu, not one of node $r's"; exit 1; }
				done
			done
		[ "$(jq '[.nodes.matrices[].cells[]] | length' <<<"$doc")" -eq $((2 * $(wc -w <<<"$rows") * ${#SHAPE_NODES[@]})) ]
	done
}

@test "bench nodes in a cpuset of the first node's memory: the kernel refuses to bind the others, and each of their cells says so" {
	local s doc first
	for s in $(machine_shapes); do
		shape_begin "$s"
		first=$(cpu_map | awk '{ print $4 }' | sort -n | head -n 1)
		# the cpuset held: its memory is the first node's alone
		[ "$(section nodes.cpuset | head -n 1)" = "$first" ]
		doc=$(section_json nodes.cpuset.json)
		run jq -r --argjson f "$first" '.nodes.matrices[] | .cells[] |
			if .mem_node == $f then "\(.binding) \(.held)" else "\(.binding) \(.error) \(.value)" end' <<<"$doc"
		[ "${#lines[@]}" -gt 0 ]
		for line in "${lines[@]}"; do
			[[ $line == "ok true" || $line == "refused Invalid argument null" ]] || { echo "a cell: $line"; return 1; }
		done
		[ "$(grep -c '^refused' <<<"$output")" -eq $(($(jq '.nodes.rows | length' <<<"$doc") * (${#SHAPE_NODES[@]} - 1))) ]
		section nodes.cpuset | grep -qE "^  latency [0-9]+->[0-9]+: refused: the kernel would not bind memory to node [0-9]+ \(mbind: Invalid argument\)$"
	done
}

# gib_shapes: GIB_SHAPES, the shapes booted here that reserve 1 GiB pages
# (a gigantic-pages line).  None among those MACHINES names: the test is
# skipped; none in the whole tier: it fails, since nothing else can show
# that --page-size 1G gets 1 GiB pages (the development machine has none).
gib_shapes() {
	local s
	GIB_SHAPES=()
	for s in $(machine_shapes); do
		if (shape_read "$MACHINES_HERE/shapes/$s" && [ "$SHAPE_GIGANTIC" = 1 ]); then GIB_SHAPES+=("$s"); fi
	done
	[ "${#GIB_SHAPES[@]}" -eq 0 ] || return 0
	[ -z "${MACHINES:-}" ] || skip "no shape in MACHINES has a gigantic-pages line"
	echo "no shape in tests/machines/shapes has a gigantic-pages line: nothing tests 1 GiB pages"
	return 1
}

# pool SECTION SIZE_KB all|nodeN: "nr_hugepages free_hugepages" of that
# pool, as the guest's pools printed it in SECTION.
pool() { section "$1" | awk -v k="$2kB" -v w="$3" '$1 == k && $2 == w { print $3, $4 }'; }

# pools_put_back SECTION: SECTION's pools are gib.before's, every one.
pools_put_back() {
	diff <(section gib.before) <(section "$1" | grep -E '^[0-9]+kB ') ||
		{ echo "$1: the huge page pools were not put back as they were (< before, > after)"; return 1; }
}

@test "1 GiB pages with the default size left at 2 MiB: info lists them, and --page-size 1G puts latency's, stream's and shm's buffers on them" {
	local s json step a addr bytes page pages
	gib_shapes
	for s in "${GIB_SHAPES[@]}"; do
		shape_begin "$s"
		# the guest's pools: three pages of 1 GiB, reserved at run time, and
		# 520 of the default size, 2 MiB (1040 MiB), which a bench that
		# dropped --page-size's size would be given instead
		section gib.reserve | grep -qx 'Hugepagesize: *2048 kB'
		[ "$(pool gib.reserve 1048576 all)" = "3 3" ] || {
			echo "the guest's kernel reserved '$(pool gib.reserve 1048576 all)' (nr free) of the 3 pages of 1 GiB asked:"
			echo "its nodes lacked free 1 GiB-aligned gigabytes (the shape file says where they should be)"
			section gib.reserve
			return 1
		}
		[ "$(pool gib.reserve 2048 all)" = "520 520" ]
		# info: every size with its pool, the default size 2 MiB
		json=$(section_json gib.info.json)
		run jq -c '[.system.hugepages.page_kib, [.system.hugepages.sizes[] | [.page_kib, .total, .free]]]' <<<"$json"
		assert_output '[2048,[[2048,520,520],[1048576,3,3]]]'
		section gib.info | grep -qx 'Huge page sizes (--page-size): 2 MiB (520 in the pool, 520 free) | 1 GiB (3 in the pool, 3 free)'
		# latency on hugetlb's and shm's 1 GiB pages: the buffer on one, as
		# smaps says; the TLB-local window the build's base pages whatever
		# the page (tlb_local_window, read from this build on the host);
		# the line-a-page probe (128 pages) not run, and why
		local win
		win=$(tlb_local_window "$BENCH")
		for step in gib.latency:hugetlb gib.shm:shm; do
			echo "-- ${step%%:*}"
			json=$(section_json "${step%%:*}.json")
			run jq -c '[.run.alloc, .run.page_size_bytes, .run.buffer.page_kib, .run.buffer.mapping.kernel_page_kib,
				.run.buffer.huge_pct, .probes.local_window_bytes, .summary[0].tlbs_seen.pages,
				([.warnings[] | select(test("page-size"))] | length)]' <<<"$json"
			assert_output "[\"${step#*:}\",1073741824,1048576,1048576,100,$win,null,0]"
			run jq -r '.summary[0].tlbs_seen.not_measured' <<<"$json"
			assert_output '--max 64 MiB is less than one page of 1 GiB, and the line-a-page chase needs 128'
			section "${step%%:*}" | grep -q '^# membench .* latency: .* 64 MiB on 1048576 KiB pages (100% huge)'
		done
		# stream: validated, each array on 1 GiB pages (smaps'
		# KernelPageSize too), and on a page of its own: three pages
		section gib.stream | grep -q '^Solution Validates'
		json=$(section_json gib.stream.json)
		run jq -c '[.validation.ok, .run.alloc, .run.page_size_bytes, [.run.arrays[] | [.page_kib, .mapping.kernel_page_kib]],
			([.warnings[] | select(test("--page-size"))] | length)]' <<<"$json"
		assert_output '[true,"hugetlb",1073741824,[[1048576,1048576],[1048576,1048576],[1048576,1048576]],0]'
		pages=''
		for a in 0 1 2; do
			read -r addr bytes < <(jq -r --argjson a "$a" '.run.arrays[$a] | "\(.address) \(.bytes)"' <<<"$json")
			[[ $addr =~ ^0x[0-9a-f]+$ ]] && [[ $bytes =~ ^[0-9]+$ ]]
			page=$((addr >> 30))
			[ "$page" = $(((addr + bytes - 1) >> 30)) ] || { echo "array $a ($addr, $bytes bytes) crosses a 1 GiB page"; return 1; }
			[[ " $pages " != *" $page "* ]] || { echo "array $a shares its 1 GiB page with another array"; return 1; }
			pages+=" $page"
		done
	done
}

@test "1 GiB pages node by node: bench nodes puts each cell's buffer on its column's node's 1 GiB pages, and refuses in one line when a node's pool is empty" {
	local s doc rows line m r c b h kib where ran n
	gib_shapes
	for s in "${GIB_SHAPES[@]}"; do
		shape_begin "$s"
		policy_nodes
		# a page on every node, reserved in the node's own pool
		for n in "${SHAPE_NODES[@]}"; do
			[ "$(pool gib.pernode 1048576 "node$n")" = "1 1" ] ||
				{ echo "node $n: '$(pool gib.pernode 1048576 "node$n")' pages of 1 GiB (nr free), not 1"; section gib.pernode; return 1; }
		done
		# every cell: bound, held, on 1 GiB pages, every page on its
		# column's node, its thread on its CPU throughout
		doc=$(section_json gib.nodes.json)
		rows=$(cpu_map | awk '{ print $4 }' | sort -nu | wc -l)
		run jq -r '.nodes.matrices[] | .matrix as $m | .cells[] | [$m, .cpu_node, .mem_node, .binding, .held, .page_kib,
			(.node_pages == {(.mem_node | tostring): .pages} and .pages > 0), (.ran_on == [.cpus[] | ., .])] | map(tostring) | join(" ")' <<<"$doc"
		[ "${#lines[@]}" -eq $((rows * ${#SHAPE_NODES[@]})) ] || { echo "${#lines[@]} cells, not $rows rows x ${#SHAPE_NODES[@]} columns"; return 1; }
		for line in "${lines[@]}"; do
			read -r m r c b h kib where ran <<<"$line"
			[ "$m $b $h $kib $where $ran" = "latency ok true 1048576 true true" ] || { echo "cell $r->$c: $line"; return 1; }
		done
		# one node's pool emptied, the others' kept: refused, in one line
		[ "$(pool gib.emptied 1048576 "node$POLICY_OTHER")" = "0 0" ]
		[ "$(pool gib.emptied 1048576 "node$POLICY_FIRST")" = "1 1" ]
		run section gib.refused
		[ "${#lines[@]}" -eq 2 ] || { echo "the refusal is not one line:"; printf '%s\n' "${lines[@]}"; return 1; }
		[[ ${lines[0]} == "bench: --alloc hugetlb: node $POLICY_OTHER has 0 free huge pages of 1 GiB and a cell takes 1; "* ]]
		[ "${lines[1]}" = "exit status 2" ]
		pools_put_back gib.restored
	done
}

@test "the harness reserves 1 GiB pages itself: run --hugepages 1G:1 and sweep-latency-pages' hugetlb-1g mode run on them, and each puts the pool back" {
	local s json was
	gib_shapes
	for s in "${GIB_SHAPES[@]}"; do
		shape_begin "$s"
		was=$(pool gib.before 1048576 all)
		was=${was% *}
		# run: the pool reserved and verified, bench's run on it (its info
		# saw the page), then the pool as it was
		section gib.run | grep -q "hugepages 1G: 1 reserved (was $was), verified"
		json=$(section_json gib.run.step-001.json)
		run jq -c '[.status, .bench.run.alloc, .bench.run.buffer.page_kib, (.bench.system.hugepages.sizes[] | select(.page_kib == 1048576) | .total)]' <<<"$json"
		assert_output '["ok","hugetlb",1048576,1]'
		pools_put_back gib.run.after
		# the sweep: THP never on base pages, then hugetlb-1g on 1 GiB pages
		# of a pool it reserved; THP and the pool put back
		json=$(section_json gib.sweep.step-001.json)
		run jq -c '[.status, .bench.system.thp, .bench.run.alloc, .bench.run.buffer.page_kib]' <<<"$json"
		assert_output '["ok","never","mmap",4]'
		json=$(section_json gib.sweep.step-002.json)
		run jq -c '[.status, .bench.run.alloc, .bench.run.page_size_bytes, .bench.run.buffer.page_kib, (.bench.system.hugepages.sizes[] | select(.page_kib == 1048576) | .total)]' <<<"$json"
		assert_output '["ok","hugetlb",1073741824,1048576,1]'
		[ "$(section gib.sweep.after | head -n 1)" = "$(section machine.thp)" ]
		pools_put_back gib.sweep.after
	done
}
