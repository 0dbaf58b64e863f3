# shellcheck shell=bash
# shellcheck disable=SC2034 # its variables are read by the files and commands that source it
# harness/lib/settings.sh: the machine settings a command applies, each saved, applied and verified: SMT, prefetch, governor, frequency, turbo, THP, huge pages, hugetlbfs, numactl
# Needs: messages.sh, options.sh, knobs.sh, topology.sh.  Sourced after them, never run.

NUMA_ARGV=()         # numactl's arguments, when --numa took

apply_smt() {
	local want=$1 cur
	if have ppc64_cpu; then
		cur=$(ppc64_cpu --smt 2>/dev/null | sed -n 's/^SMT=\([0-9]*\).*/\1/p; s/^SMT is \(on\|off\).*/\1/p' | head -n1)
		[ -n "$cur" ] || { not_applied smt "ppc64_cpu --smt did not report the current state"; return 0; }
		is_root || { not_applied smt "needs root (ppc64_cpu --smt=$want)"; return 0; }
		if [ "$DRY_RUN" = 1 ]; then plan "smt: would run ppc64_cpu --smt=$want (now $cur)"; return 0; fi
		save_for_restore ppc64_smt smt "$cur"
		ppc64_cpu --smt="$want" >/dev/null 2>&1 || { not_verified smt "ppc64_cpu --smt=$want failed"; return 0; }
		record_setting "smt: $want via ppc64_cpu (was $cur)"
		return 0
	fi
	[ -r "$SMT_FILE" ] || { not_applied smt "not available on this machine (no $SMT_FILE)"; return 0; }
	cur=$(knob_current "$SMT_FILE")
	case "$cur" in
	on|off) ;;
	*) not_applied smt "not available on this machine ($SMT_FILE says '$cur')"; return 0 ;;
	esac
	is_root || { not_applied smt "needs root (would write $want to $SMT_FILE)"; return 0; }
	set_knob smt "$SMT_FILE" "$want" && [ "$DRY_RUN" = 0 ] && record_setting "smt: $want (was $cur), verified"
	return 0
}

apply_prefetch() {
	local want=$1 cur
	[ "$want" = off ] || { record_setting "prefetch: left as the machine has it"; return 0; }
	if have ppc64_cpu; then
		# DSCR 1 = no hardware prefetch on POWER.
		cur=$(ppc64_cpu --dscr 2>/dev/null | sed -n 's/^DSCR is \([0-9]*\).*/\1/p' | head -n1)
		[ -n "$cur" ] || { not_applied prefetch "ppc64_cpu --dscr did not report the current value"; return 0; }
		is_root || { not_applied prefetch "needs root (ppc64_cpu --dscr=1)"; return 0; }
		if [ "$DRY_RUN" = 1 ]; then plan "prefetch: would run ppc64_cpu --dscr=1 (now $cur)"; return 0; fi
		save_for_restore ppc64_dscr dscr "$cur"
		ppc64_cpu --dscr=1 >/dev/null 2>&1 || { not_verified prefetch "ppc64_cpu --dscr=1 failed"; return 0; }
		record_setting "prefetch: off via ppc64_cpu --dscr=1 (was $cur)"
		return 0
	fi
	not_applied prefetch "not supported here: on x86 it needs an MSR tool and a documented prefetch MSR for this exact CPU model, and membench knows none"
}

# The cpufreq directories of all online CPUs, or nothing.
cpufreq_dirs() {
	local cpu
	for cpu in $(online_cpus); do
		[ -d "$CPU_DIR/cpu$cpu/cpufreq" ] && printf '%s\n' "$CPU_DIR/cpu$cpu/cpufreq"
	done
	return 0
}

no_cpufreq_reason() { printf 'not available on this machine (no cpufreq under %s/cpu*/cpufreq)' "$CPU_DIR"; }

apply_governor() {
	local g=$1 dirs=() d avail ok=1
	mapfile -t dirs < <(cpufreq_dirs)
	[ ${#dirs[@]} -gt 0 ] || { not_applied governor "$(no_cpufreq_reason)"; return 0; }
	avail=$(knob_current "${dirs[0]}/scaling_available_governors" 2>/dev/null || true)
	case " $avail " in
	*" $g "*) ;;
	*) not_applied governor "governor '$g' not offered here (available: ${avail:-unknown})"; return 0 ;;
	esac
	is_root || { not_applied governor "needs root (would set '$g' on ${#dirs[@]} CPUs)"; return 0; }
	for d in "${dirs[@]}"; do set_knob governor "$d/scaling_governor" "$g" || ok=0; done
	[ "$DRY_RUN" = 1 ] || [ "$ok" = 0 ] || record_setting "governor: $g on ${#dirs[@]} CPUs, verified"
}

apply_freq() {
	local mhz=$1 khz=$(($1 * 1000)) dirs=() d lo hi ok=1 setspeed=0 avail v
	mapfile -t dirs < <(cpufreq_dirs)
	[ ${#dirs[@]} -gt 0 ] || { not_applied freq "$(no_cpufreq_reason)"; return 0; }
	lo=$(knob_current "${dirs[0]}/cpuinfo_min_freq" 2>/dev/null || echo 0)
	hi=$(knob_current "${dirs[0]}/cpuinfo_max_freq" 2>/dev/null || echo 0)
	if is_uint "$lo" && is_uint "$hi" && [ "$hi" -gt 0 ] && { [ "$khz" -lt "$lo" ] || [ "$khz" -gt "$hi" ]; }; then
		die "--freq $mhz MHz is outside this CPU's range $((lo / 1000))-$((hi / 1000)) MHz"
	fi
	is_root || { not_applied freq "needs root (would pin ${#dirs[@]} CPUs to $mhz MHz)"; return 0; }
	avail=$(knob_current "${dirs[0]}/scaling_available_governors" 2>/dev/null || true)
	case " $avail " in *" userspace "*) [ -e "${dirs[0]}/scaling_setspeed" ] && setspeed=1 ;; esac
	for d in "${dirs[@]}"; do
		if [ "$setspeed" = 1 ]; then
			set_knob freq "$d/scaling_governor" userspace || ok=0
			# setspeed reads "<unsupported>" under other governors; it only
			# needs restoring when it held a real value.
			v=$(knob_current "$d/scaling_setspeed")
			if [ "$DRY_RUN" = 1 ]; then
				plan "freq: would write '$khz' to $d/scaling_setspeed (now '$v')"
			else
				is_uint "$v" && save_for_restore file "$d/scaling_setspeed" "$v"
				knob_write "$d/scaling_setspeed" "$khz" 2>/dev/null || true
				v=$(knob_current "$d/scaling_setspeed")
				[ "$v" = "$khz" ] || { not_verified freq "$d/scaling_setspeed reads '$v' after writing $khz"; ok=0; }
			fi
		elif [ "$DRY_RUN" = 1 ]; then
			plan "freq: would set $d/scaling_min_freq and scaling_max_freq to $khz (now $(knob_current "$d/scaling_min_freq") $(knob_current "$d/scaling_max_freq"))"
		else
			save_for_restore minmax "$d" "$(knob_current "$d/scaling_min_freq") $(knob_current "$d/scaling_max_freq")"
			write_freq_range "$d" "$khz" "$khz"
			if [ "$(knob_current "$d/scaling_min_freq") $(knob_current "$d/scaling_max_freq")" != "$khz $khz" ]; then
				not_verified freq "$d min/max did not both become $khz kHz"
				ok=0
			fi
		fi
	done
	[ "$DRY_RUN" = 1 ] || [ "$ok" = 0 ] || record_setting "freq: $mhz MHz on ${#dirs[@]} CPUs ($([ "$setspeed" = 1 ] && echo 'userspace governor' || echo 'min=max')), verified"
}

apply_turbo() {
	local want=$1 f value
	if [ -e "$CPU_DIR/intel_pstate/no_turbo" ]; then
		f=$CPU_DIR/intel_pstate/no_turbo
		[ "$want" = on ] && value=0 || value=1
	elif [ -e "$CPU_DIR/cpufreq/boost" ]; then
		f=$CPU_DIR/cpufreq/boost
		[ "$want" = on ] && value=1 || value=0
	else
		not_applied turbo "not available on this machine (no intel_pstate/no_turbo or cpufreq/boost under $CPU_DIR)"
		return 0
	fi
	is_root || { not_applied turbo "needs root (would write $value to $f)"; return 0; }
	set_knob turbo "$f" "$value" && [ "$DRY_RUN" = 0 ] && record_setting "turbo: $want ($f=$value), verified"
	return 0
}

apply_thp() {
	local want=$1 cur
	[ -r "$THP_FILE" ] || { not_applied thp "not available on this machine (no $THP_FILE)"; return 0; }
	# The kernel lists its choices with the current one in brackets.
	case " $(cat "$THP_FILE") " in
	*" $want "*|*"[$want]"*|*[!]]) ;;
	*) not_applied thp "kernel does not offer '$want' ($(cat "$THP_FILE"))"; return 0 ;;
	esac
	cur=$(knob_current "$THP_FILE")
	is_root || { not_applied thp "needs root (would write $want to $THP_FILE, now $cur)"; return 0; }
	set_knob thp "$THP_FILE" "$want" && [ "$DRY_RUN" = 0 ] && record_setting "thp: $want (was $cur), verified"
	return 0
}

# apply_hugepages N|SIZE:N [SIZE_KB]: reserve N huge pages of the default
# size, or of the size SIZE names (--hugepages 1G:2) or SIZE_KB kB
# (apply_hugepages 2 1048576), in that size's own pool, then check the
# kernel really did: it silently reserves fewer when memory is
# fragmented.  HUGEPAGES_PROBLEM says why the pool could not be written
# at all (empty when it could), HUGEPAGES_GOT what the pool holds after.
# A pool that does not fit, or a size the kernel keeps no pool of, is
# refused (exit 2), or with HUGEPAGES_TOO_MANY=skip (run-matrix, which
# then skips the cells) left in HUGEPAGES_PROBLEM.
HUGEPAGES_GOT='' HUGEPAGES_PROBLEM='' HUGEPAGES_TOO_MANY=die
HUGEPAGES_MARGIN_PCT=10

# meminfo_kb KEY: KEY's value in $PROCFS/meminfo (kB), empty when absent.
meminfo_kb() { awk -v k="$1:" '$1 == k { print $2; exit }' "$PROCFS/meminfo" 2>/dev/null; }

# hugepages_overcommit WANT CUR [SIZE_KB [SPEC]]: say why growing the pool
# from CUR to WANT pages of SIZE_KB kB (default: Hugepagesize) would not
# fit, or return 1 when it fits.  The growth, (WANT - CUR) x the page
# size (pages already in the pool are not in MemAvailable), must stay
# below MemAvailable minus HUGEPAGES_MARGIN_PCT% of MemTotal, which is
# left for the kernel, bench's own pages and everything else running.
# SPEC is the --hugepages value the message names (default: WANT).
# Without MemAvailable (kernels before 3.14) nothing is checked.
hugepages_overcommit() {
	local want=$1 cur=$2 size=${3:-} total avail margin grow
	[ -n "$size" ] || size=$(meminfo_kb Hugepagesize)
	total=$(meminfo_kb MemTotal) avail=$(meminfo_kb MemAvailable)
	is_posint "$size" && is_uint "$total" && is_uint "$avail" && is_uint "$cur" || return 1
	[ "$want" -gt "$cur" ] || return 1
	grow=$(((want - cur) * size)) margin=$((total * HUGEPAGES_MARGIN_PCT / 100))
	[ "$grow" -ge $((avail - margin)) ] || return 1
	printf -- '--hugepages %s does not fit: %s more pages of %s kB are %s kB, and MemAvailable %s kB minus a margin of %s kB (%s%% of MemTotal %s kB) leaves %s kB' \
		"${4:-$want}" $((want - cur)) "$size" "$grow" "$avail" "$margin" "$HUGEPAGES_MARGIN_PCT" "$total" $((avail - margin))
}

apply_hugepages() {
	local want kb def file name=hugepages spec of='' cur got
	HUGEPAGES_PROBLEM='' HUGEPAGES_GOT=''
	parse_hugepages "$1" || die "apply_hugepages: '$1' is neither N nor SIZE:N"
	want=$HP_PAGES kb=${HP_SIZE_KB:-${2:-}} spec=$HP_PAGES
	[ -z "$kb" ] || is_posint "$kb" || die "apply_hugepages: '$kb' is not a page size in kB"
	# The default size's pool is nr_hugepages, whichever way it is named;
	# any other size has its own, beside it in sysfs.
	file=$NR_HUGEPAGES_FILE
	if [ -n "$kb" ]; then
		page_words "$kb"
		name="hugepages $PAGE_WORDS" spec=$PAGE_WORDS:$want of=" of $PAGE_WORDS"
		def=$(meminfo_kb Hugepagesize)
		if [ "$kb" != "$def" ]; then
			if ! hugepages_offered "$kb"; then
				HUGEPAGES_PROBLEM="--hugepages $spec: $HP_WHY"
				[ "$HUGEPAGES_TOO_MANY" = skip ] || die "$HUGEPAGES_PROBLEM"
				return 0
			fi
			file=$HUGEPAGES_DIR/hugepages-${kb}kB/nr_hugepages
		fi
	fi
	if [ ! -e "$file" ]; then
		HUGEPAGES_PROBLEM="not available on this machine (no $file)"
		not_applied "$name" "$HUGEPAGES_PROBLEM"
		return 0
	fi
	cur=$(knob_current "$file")
	if HUGEPAGES_PROBLEM=$(hugepages_overcommit "$want" "$cur" "$kb" "$spec"); then
		[ "$HUGEPAGES_TOO_MANY" = skip ] || die "$HUGEPAGES_PROBLEM"
		return 0
	fi
	HUGEPAGES_PROBLEM=''
	if ! is_root; then
		HUGEPAGES_PROBLEM="needs root (would write $want to $file, now $cur)"
		not_applied "$name" "$HUGEPAGES_PROBLEM"
		return 0
	fi
	if [ "$DRY_RUN" = 1 ]; then
		plan "$name: would write '$want' to $file (now '$cur') and check the count"
		return 0
	fi
	save_for_restore file "$file" "$cur"
	if ! knob_write "$file" "$want" 2>/dev/null; then
		HUGEPAGES_PROBLEM="$file is not writable (run as root)"
		not_verified "$name" "$HUGEPAGES_PROBLEM"
		return 0
	fi
	got=$(knob_current "$file")
	HUGEPAGES_GOT=$got
	if [ "$got" != "$want" ]; then
		not_verified "$name" "asked for $want huge pages$of, the kernel reserved $got (short pool)"
		return 0
	fi
	record_setting "$name: $want reserved (was $cur), verified"
}

# apply_hugetlbfs_mount: mount a hugetlbfs on a fresh directory of our own
# (HUGETLBFS_MOUNT), unmounted and removed by restore_all.  Returns 1 with
# HUGETLBFS_PROBLEM set when the mount fails.
HUGETLBFS_MOUNT='' HUGETLBFS_PROBLEM=''
apply_hugetlbfs_mount() {
	local mnt err
	mnt=$(mktemp -d "${TMPDIR:-/tmp}/membench-hugetlbfs.XXXXXX")
	if ! err=$(mount -t hugetlbfs none "$mnt" 2>&1); then
		rmdir "$mnt"
		HUGETLBFS_PROBLEM=$(printf '%s\n' "$err" | head -n 1)
		return 1
	fi
	save_for_restore mount "$mnt" ''
	HUGETLBFS_MOUNT=$mnt
	record_setting "hugetlbfs: mounted at $mnt"
}

apply_numa() {
	[ -n "$OPT_NUMA" ] || return 0
	have numactl || { not_applied numa "numactl not installed (wanted: numactl $OPT_NUMA)"; NUMA_ARGV=(); return 0; }
	read -r -a NUMA_ARGV <<<"$OPT_NUMA"
	if [ "$DRY_RUN" = 1 ]; then plan "numa: would run bench under numactl $OPT_NUMA"; return 0; fi
	# numactl applies the policy to the program it starts; ask it to show it.
	if ! numactl "${NUMA_ARGV[@]}" numactl --show >"$SCRATCH/numa-show" 2>&1; then
		NUMA_ARGV=()
		not_verified numa "numactl $OPT_NUMA refused: $(head -n1 "$SCRATCH/numa-show")"
		return 0
	fi
	record_setting "numa: numactl $OPT_NUMA ($(tr '\n' ';' <"$SCRATCH/numa-show" | sed 's/;$//'))"
}
