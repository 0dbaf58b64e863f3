#!/usr/bin/env bats
# release/check-fresh against fakes: its refusals, the summary it prints
# from the two README commands' output, and that on every exit (the end,
# a failed build, Ctrl-C, a mount that stays busy) it puts back the host
# settings the tests changed and unmounts everything under its work
# directory before it removes anything.  The fakes stand in for
# mmdebstrap, mount, umount and chroot; the sysfs and procfs it saves and
# restores are fake trees (MEMBENCH_SYSFS, MEMBENCH_PROCFS).  The real
# proof is `make check-fresh` itself (CONTRIBUTING.md).

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

setup() {
	F=$BATS_TEST_TMPDIR/fake
	mkdir -p "$F/bin" "$F/tmp" "$F/sys/kernel/mm/transparent_hugepage" \
		"$F/sys/kernel/mm/hugepages/hugepages-1048576kB" "$F/proc/sys/vm" "$F/proc/self"
	echo 'always [madvise] never' >"$F/sys/kernel/mm/transparent_hugepage/enabled"
	echo 'always defer defer+madvise [madvise] never' >"$F/sys/kernel/mm/transparent_hugepage/defrag"
	echo 0 >"$F/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages"
	echo 0 >"$F/proc/sys/vm/nr_hugepages"
	printf '/dev/vda / ext4 rw 0 0\nproc /proc proc rw 0 0\n' >"$F/proc/self/mounts"
	echo 100 >"$F/dpkg"
	printf 'Types: deb\nURIs: http://deb.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n' >"$F/sources"
	export F MEMBENCH_SYSFS=$F/sys MEMBENCH_PROCFS=$F/proc CHECK_FRESH_SOURCES=$F/sources TMPDIR=$F/tmp
	# mmdebstrap: a root with the directories the script binds and clones into
	cat >"$F/bin/mmdebstrap" <<'EOF'
#!/bin/bash
echo "mmdebstrap $*" >>"$F/log"
mkdir -p "$4"/{proc,sys,dev,root,tmp,etc}
[ -z "${FAKE_BUILD_FAILS:-}" ] || { echo "fake $4/proc proc rw 0 0" >>"$F/proc/self/mounts"; exit 1; }
EOF
	# mount: a bind adds its target to the mount table; --make-* needs
	# a mount point, as the kernel does
	cat >"$F/bin/mount" <<'EOF'
#!/bin/bash
echo "mount $*" >>"$F/log"
case "$1" in
--bind | --rbind) echo "fake $3 none rw 0 0" >>"$F/proc/self/mounts" ;;
--make-*) awk -v m="$2" '$2 == m { f = 1 } END { exit !f }' "$F/proc/self/mounts" ||
	{ echo "mount: $2: not mount point or bad option." >&2; exit 32; } ;;
*) exit 1 ;;
esac
EOF
	# umount: busy while something is mounted below, or when it matches
	# the pattern FAKE_BUSY (even lazily); else the latest mount there goes
	cat >"$F/bin/umount" <<'EOF'
#!/bin/bash
echo "umount $*" >>"$F/log"
lazy=0
[ "$1" != -l ] || { lazy=1; shift; }
# shellcheck disable=SC2254 # a pattern
case "$1" in ${FAKE_BUSY:-/-}) exit 32 ;; esac
[ "$lazy" = 1 ] || ! awk -v m="$1/" 'index($2, m) == 1 { f = 1 } END { exit !f }' "$F/proc/self/mounts" || exit 32
awk -v m="$1" '{ l[NR] = $0; if ($2 == m) last = NR } END { if (!last) exit 32; for (i = 1; i <= NR; i++) if (i != last) print l[i] }' \
	"$F/proc/self/mounts" >"$F/mounts.new" || exit 32
mv "$F/mounts.new" "$F/proc/self/mounts"
EOF
	# chroot: dpkg-query lists $F/dpkg packages; the README's commands
	# print what setup and bats print, install packages, and change the
	# host's settings and mount a hugetlbfs, as the tests do
	cat >"$F/bin/chroot" <<'EOF'
#!/bin/bash
root=$1
shift
echo "chroot $root $*" >>"$F/log"
if [ "$1" = dpkg-query ]; then
	for ((i = 0; i < $(cat "$F/dpkg"); i++)); do echo ii; done
	echo rc
	exit 0
fi
case "${!#}" in
'cd /root/membench && ./setup && make run')
	echo "setup: missing: cc make; installing gcc libc6-dev make "
	echo $(($(cat "$F/dpkg") + 7)) >"$F/dpkg"
	echo "setup: now working: cc make"
	echo "setup: ready; now run 'make run' (or 'make check')"
	echo "Triad: ..." ;;
'cd /root/membench && ./setup --test && make check check-machines')
	echo "setup: missing: bats gdb; installing bats bats-assert bats-support gdb "
	echo $(($(cat "$F/dpkg") + 30)) >"$F/dpkg"
	echo "setup: ready; now run 'make run' (or 'make check')"
	echo always >"$MEMBENCH_SYSFS/kernel/mm/transparent_hugepage/enabled"
	echo 7 >"$MEMBENCH_PROCFS/sys/vm/nr_hugepages"
	echo "none $root/tmp/bats.1/huge hugetlbfs rw 0 0" >>"$MEMBENCH_PROCFS/self/mounts"
	echo 1..2
	echo "ok 1 first"
	echo "ok 2 second # skip gdb is not installed"
	if [ -n "${FAKE_CTRL_C:-}" ]; then
		kill -INT "$PPID"
		exit 130
	fi
	if [ -n "${FAKE_TERM_HANG:-}" ]; then
		# a suite that goes on after its runner is told to stop: a
		# process in the root, as the fake procfs shows it
		mkdir "$MEMBENCH_PROCFS/$$"
		ln -s "$root" "$MEMBENCH_PROCFS/$$/root"
		echo $$ >"$F/hang.pid"
		kill -TERM "$PPID"
		exec sleep 600 >/dev/null 2>&1
	fi
	echo "make check: 1 s in all (budget: 13 min on the 2-vCPU guest, docs/testing.md): within budget"
	# make check passed; the emulated machines' suite fails
	echo 1..2
	echo "ok 1 a shape boots"
	echo "not ok 2 third"
	echo "# (in test file tests/machines/machines.bats, line 9)"
	exit 2 ;;
*) exit 99 ;;
esac
EOF
	chmod +x "$F"/bin/*
	# a checkout of its own to clone: the script and one commit
	T=$BATS_TEST_TMPDIR/tree
	mkdir -p "$T/release"
	cp "$MEMBENCH_ROOT/release/check-fresh" "$T/release/"
	# and the budgets' table, with figures of its own: the summary reads
	# them from there (tests/budget)
	mkdir -p "$T/tests" "$T/docs"
	cp "$MEMBENCH_ROOT/tests/budget" "$T/tests/"
	printf '%s\n' '| tier | budget | what it holds |' '|---|---:|---|' \
		'| `./setup --test` on a fresh Debian machine | 6 min | packages |' \
		'| `make check` | 13 min | tests |' '| `make check-machines` | 7 min | guests |' \
		'| the whole command | 26 min | all |' >"$T/docs/testing.md"
	git -C "$T" init -q
	git -C "$T" add .
	git -C "$T" -c user.name=t -c user.email=t@t commit -q -m t
	export PATH=$F/bin:$PATH
}

# work: check-fresh's work directory (the one mktemp made)
work() { printf '%s\n' "$F"/tmp/check-fresh.*; }

# the host as it was: settings, and nothing mounted under the work directory
assert_host_restored() {
	# (as the kernel shows it, or as check-fresh wrote it back)
	[[ "$(cat "$F/sys/kernel/mm/transparent_hugepage/enabled")" =~ ^(madvise|.*\[madvise\].*)$ ]] ||
		fail "THP: $(cat "$F/sys/kernel/mm/transparent_hugepage/enabled")"
	assert_equal "$(cat "$F/proc/sys/vm/nr_hugepages")" 0
	assert_equal "$(cat "$F/proc/self/mounts")" $'/dev/vda / ext4 rw 0 0\nproc /proc proc rw 0 0'
}

@test "check-fresh refuses in one line, exit 2: an unknown argument, not root, no mmdebstrap, no apt sources" {
	run --separate-stderr "$T/release/check-fresh" --kep
	assert_failure 2
	assert_equal "$stderr" "check-fresh: unknown argument '--kep' (--keep, --help)"
	mkdir "$F/user"
	printf '#!/bin/sh\necho 1000\n' >"$F/user/id"
	chmod +x "$F/user/id"
	PATH=$F/user:$PATH run --separate-stderr "$T/release/check-fresh"
	assert_failure 2
	assert_equal "$stderr" "check-fresh: must run as root: it builds a root with mmdebstrap, mounts and chroots into it"
	[ "$(id -u)" = 0 ] || skip "the rest needs root"
	PATH=$(trimmed_path mmdebstrap) run --separate-stderr "$T/release/check-fresh"
	assert_failure 2
	assert_equal "$stderr" "check-fresh: mmdebstrap is not installed (apt-get install mmdebstrap)"
	CHECK_FRESH_SOURCES=$F/none run --separate-stderr "$T/release/check-fresh"
	assert_failure 2
	assert_equal "$stderr" "check-fresh: no apt sources at $F/none (CHECK_FRESH_SOURCES names the file)"
	assert_equal "$(ls -A "$F/tmp")" ""
	[ ! -e "$F/log" ] || fail "it ran something: $(cat "$F/log")"
}

@test "check-fresh: both commands, each one's result, time, packages and tests; settings put back, mounts undone, the root removed" {
	[ "$(id -u)" = 0 ] || skip "check-fresh runs as root"
	run --separate-stderr "$T/release/check-fresh"
	assert_failure 1
	local w
	w=$(work)
	# the root from this machine's sources, a mount point of its own,
	# private, with /proc, /sys and /dev bound in and slaved
	assert_equal "$(grep '^mmdebstrap' "$F/log")" \
		"mmdebstrap --variant=minbase --include=git,openssh-client bookworm $w/root $F/sources"
	assert_equal "$(grep '^mount' "$F/log")" "mount --bind $w/root $w/root
mount --make-private $w/root
mount --rbind /proc $w/root/proc
mount --make-rslave $w/root/proc
mount --rbind /sys $w/root/sys
mount --make-rslave $w/root/sys
mount --rbind /dev $w/root/dev
mount --make-rslave $w/root/dev"
	# exactly the README's commands, in a clean clone of HEAD
	grep -qxF "chroot $w/root /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/sh PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=${TERM:-dumb} /bin/sh -c cd /root/membench && ./setup && make run" "$F/log"
	grep -qxF "chroot $w/root /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/sh PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=${TERM:-dumb} /bin/sh -c cd /root/membench && ./setup --test && make check check-machines" "$F/log"
	# the summary, after both commands' own output
	local s
	s=$(sed -n '/^check-fresh: summary/,$p' <<<"$output")
	assert_regex "$s" "^check-fresh: summary \\(commit $(git -C "$T" rev-parse --short=12 HEAD), bookworm root from $F/sources\\):
check-fresh: ./setup && make run: passed in [0-9]+ s
check-fresh:   setup: [0-9]+ s, 3 packages asked for, 7 installed with their dependencies
check-fresh: ./setup --test && make check check-machines: FAILED \\(exit 2\\) in [0-9]+ s
check-fresh:   setup: [0-9]+ s, 4 packages asked for, 30 installed with their dependencies
check-fresh:   the whole command: [0-9]+ s of its 26 min budget
check-fresh:     setup [0-9]+ s of 6 min, make check 1 s of 13 min, check-machines [0-9]+ s of 7 min
check-fresh:   tests: 4 planned, 2 passed, 1 failed, 1 skipped
check-fresh:     not ok 2 third
check-fresh:     skipped: second # skip gdb is not installed
check-fresh: logs in $w/logs\$"
	assert_line "Triad: ..."
	# the tests' hugetlbfs mount went first, the root last
	assert_equal "$(grep '^umount' "$F/log")" "umount $w/root/tmp/bats.1/huge
umount $w/root/dev
umount $w/root/sys
umount $w/root/proc
umount $w/root"
	assert_equal "$stderr" "check-fresh: put back $F/sys/kernel/mm/transparent_hugepage/enabled: madvise (the run left always)
check-fresh: put back $F/proc/sys/vm/nr_hugepages: 0 (the run left 7)"
	assert_host_restored
	[ ! -e "$w/root" ]
	[ -s "$w/logs/command-2.log" ]
	# the clone is the checkout's HEAD, and --keep keeps the root
	rm -rf "$w"
	: >"$F/log"
	run --separate-stderr "$T/release/check-fresh" --keep
	assert_failure 1
	w=$(work)
	assert_equal "$(git -C "$w/root/root/membench" rev-parse HEAD)" "$(git -C "$T" rev-parse HEAD)"
	assert_line "check-fresh: the root is kept in $w/root"
	# with this machine's /etc/hosts, which minbase lacks
	[ ! -f /etc/hosts ] || cmp /etc/hosts "$w/root/etc/hosts"
	assert_host_restored
}

@test "check-fresh: Ctrl-C in the suite puts the settings back, unmounts everything, exit 130" {
	[ "$(id -u)" = 0 ] || skip "check-fresh runs as root"
	FAKE_CTRL_C=1 run --separate-stderr "$T/release/check-fresh"
	assert_failure 130
	[[ "$stderr" == "check-fresh: interrupted"* ]] || fail "stderr: $stderr"
	assert_host_restored
	local w
	w=$(work)
	[ ! -e "$w/root" ]
	grep -q '^[0-9]* ok 1 first$' "$w/logs/command-2.log"
}

@test "check-fresh: TERM (a CI timeout, a kill) stops what runs in the root at once, puts the settings back, exit 143" {
	[ "$(id -u)" = 0 ] || skip "check-fresh runs as root"
	# (a bound, not a speed: without the stop it waits out the suite)
	FAKE_TERM_HANG=1 run --separate-stderr timeout 120 "$T/release/check-fresh"
	assert_failure 143
	[[ "$stderr" == "check-fresh: terminated"* ]] || fail "stderr: $stderr"
	! kill -0 "$(cat "$F/hang.pid")" 2>/dev/null || fail "the process in the root runs on"
	assert_host_restored
	[ ! -e "$(work)/root" ]
}

@test "check-fresh: a failed build is named, exit 2, and what it left mounted is unmounted" {
	[ "$(id -u)" = 0 ] || skip "check-fresh runs as root"
	FAKE_BUILD_FAILS=1 run --separate-stderr "$T/release/check-fresh"
	assert_failure 2
	local w
	w=$(work)
	assert_equal "$stderr" "check-fresh: mmdebstrap failed, see $w/logs/mmdebstrap.log"
	assert_host_restored
	[ ! -e "$w/root" ]
	! grep -q '^chroot .* /bin/sh' "$F/log" || fail "it ran a command in a root that failed to build"
}

@test "check-fresh: a mount that stays busy is named, and nothing under the work directory is removed" {
	[ "$(id -u)" = 0 ] || skip "check-fresh runs as root"
	FAKE_BUSY='*/root' run --separate-stderr "$T/release/check-fresh"
	assert_failure 1
	local w
	w=$(work)
	[[ "$stderr" == *"check-fresh: still mounted, $w left as it is: $w/root"* ]] || fail "stderr: $stderr"
	# everything below it was unmounted, the root kept with its files
	assert_equal "$(grep -c "$w" "$F/proc/self/mounts")" 1
	[ -d "$w/root/root/membench/.git" ]
	# the settings are put back all the same
	assert_equal "$(cat "$F/proc/sys/vm/nr_hugepages")" 0
	grep -q "umount -l $w/root" "$F/log"
}
