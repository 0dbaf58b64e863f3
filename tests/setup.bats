#!/usr/bin/env bats
# ./setup proves capabilities (it compiles, links or runs what the tests
# need), --check lists them and installs nothing, a failing one is
# installed and proved again; a test whose tool is missing is a skip,
# except under CI=true, where it fails naming the tool; and the tiers of
# make check hold what CONTRIBUTING.md says.

load test_helper
load harness_helper

# Its tests run in order, one at a time (CONTRIBUTING.md).
setup_file() { export BATS_NO_PARALLELIZE_WITHIN_FILE=true; }

# a copy of the tree to run setup in: setup ends by running ./configure
# beside itself, which must not rewrite the checkout's Makefile
tree_copy() {
	local t=$BATS_TEST_TMPDIR/tree
	mkdir -p "$t"
	(cd "$MEMBENCH_ROOT" && tar cf - --exclude=./.git --exclude='./bench' --exclude='./bench-mpi' \
		--exclude='./results/*/*' .) | tar xf - -C "$t"
	printf '%s' "$t"
}

# fake_apt BIN: an apt-get in BIN that logs its arguments to
# $BATS_TEST_TMPDIR/apt.log and "installs" qemu-user-static by linking
# the real qemu-aarch64-static into BIN.
fake_apt() {
	local real
	real=$(command -v qemu-aarch64-static)
	cat >"$1/apt-get" <<EOF
#!/bin/sh
echo "\$*" >>"$BATS_TEST_TMPDIR/apt.log"
case " \$* " in *" qemu-user-static "*) ln -sf "$real" "$1/qemu-aarch64-static" ;; esac
exit 0
EOF
	chmod +x "$1/apt-get"
}

# check_verdicts: $output is --check's: one verdict a line, on each
# capability the suite relies on.
check_verdicts() {
	if printf '%s\n' "$output" | grep -qvE '^(ok|missing) +[a-z0-9-]+( .*)?$'; then
		fail "a line that is no verdict: $output"
	fi
	for cap in cc openmp make jq bats parallel clang-openmp libfuzzer aarch64-static aarch64-sve \
		ppc64le-static valgrind gdb chromium openmpi mpich slurm machines; do
		assert_line --regexp "^(ok|missing) +$cap( |\$)"
	done
}

@test "setup --check: capabilities that are all here pass, and say so" {
	run --separate-stderr "$MEMBENCH_ROOT/setup" --test --check --only cc,make,jq
	assert_success
	assert_equal "$output" "ok       cc
ok       make
ok       jq"
	assert_equal "$stderr" "setup: every capability is here"
}

@test "setup --check names a cross toolchain that cannot run, with its packages, and installs nothing" {
	need qemu-aarch64-static
	local bin
	bin=$(trimmed_path qemu-aarch64-static apt-get)
	fake_apt "$bin"
	PATH=$bin run --separate-stderr "$(tree_copy)/setup" --test --check --only aarch64-static,ppc64le-static
	assert_failure 1
	assert_equal "${#lines[@]}" 2
	assert_line 'missing  aarch64-static  (gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static)'
	assert_line --regexp '^ok +ppc64le-static$'
	[[ "$stderr" == *"setup: missing: aarch64-static"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/apt.log" ] || fail "--check ran apt-get: $(cat "$BATS_TEST_TMPDIR/apt.log")"
}

@test "setup --test installs the packages of a failing capability, proves it again, then configures" {
	[ "$(id -u)" = 0 ] || skip "setup installs only as root"
	need qemu-aarch64-static
	local bin t
	bin=$(trimmed_path qemu-aarch64-static apt-get)
	fake_apt "$bin"
	t=$(tree_copy)
	PATH=$bin MATRIX_COMPILERS=gcc run --separate-stderr "$t/setup" --test --only aarch64-static
	assert_success
	grep -q '^install .* qemu-user-static' "$BATS_TEST_TMPDIR/apt.log"
	[[ "$stderr" == *"setup: now working: aarch64-static"* ]]
	[ -f "$t/Makefile" ]
	# an install that does not make the probe pass is an error, not a pass
	rm -f "$bin/qemu-aarch64-static" "$t/Makefile"
	printf '#!/bin/sh\necho "$*" >>"%s/apt.log"\n' "$BATS_TEST_TMPDIR" >"$bin/apt-get"
	PATH=$bin run --separate-stderr "$t/setup" --test --only aarch64-static
	assert_failure 1
	[[ "$stderr" == *"setup: still failing after the install: aarch64-static"* ]]
	[ ! -f "$t/Makefile" ]
}

# hold_apt_lock SECONDS: a process that holds, as apt does (a POSIX lock
# through fcntl), the dpkg frontend lock of an apt configuration of the
# test's own ($APT_CONFIG), for SECONDS, and creates released.mark just
# before it lets go; its pid in $holder.
hold_apt_lock() {
	local d=$BATS_TEST_TMPDIR/apt
	mkdir -p "$d/dpkg" "$d/lists" "$d/archives"
	: >"$d/dpkg/status"
	printf 'Dir::State::status "%s/dpkg/status";\nDir::State::lists "%s/lists/";\nDir::Cache::archives "%s/archives/";\n' \
		"$d" "$d" "$d" >"$d/apt.conf"
	export APT_CONFIG=$d/apt.conf
	# the interpreter itself, not test_helper's python3 function, whose
	# subshell would hold no lock and have another pid
	local py=/usr/bin/python3
	[ -x "$py" ] || py=$(type -P python3)
	"$py" -c 'import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[3], "w").close()
time.sleep(float(sys.argv[2]))
open(sys.argv[4], "w").close()' "$d/dpkg/lock-frontend" "$1" "$d/held.mark" "$BATS_TEST_TMPDIR/released.mark" 3>&- &
	holder=$!
	until [ -e "$d/held.mark" ]; do sleep 0.1; done
	holder_name=$(cat "/proc/$holder/comm")
}

@test "setup waits its turn for another package manager's lock, saying for whom and how long at most; past that it stops naming the holder" {
	[ "$(id -u)" = 0 ] || skip "setup installs only as root"
	need qemu-aarch64-static
	need python3
	local bin t
	bin=$(trimmed_path qemu-aarch64-static apt-get)
	fake_apt "$bin"
	# the stand-in notes whether the holder had let go when it ran
	sed -i "2i [ -e '$BATS_TEST_TMPDIR/released.mark' ] && echo after-release >>'$BATS_TEST_TMPDIR/apt.log'" "$bin/apt-get"
	t=$(tree_copy)
	hold_apt_lock 3
	PATH=$bin MATRIX_COMPILERS=gcc MEMBENCH_APT_WAIT=120 run --separate-stderr "$t/setup" --test --only aarch64-static
	wait "$holder"
	assert_success
	[[ "$stderr" == *"setup: waiting for another package manager (pid $holder, $holder_name) to finish with $BATS_TEST_TMPDIR/apt/dpkg/lock-frontend; at most 120 s"* ]] ||
		fail "no wait line: $stderr"
	assert_equal "$(grep -c 'waiting for' <<<"$stderr")" 1
	# apt-get ran only once the lock was free, update and install both
	assert_equal "$(cat "$BATS_TEST_TMPDIR/apt.log")" "after-release
update -qq
after-release
install -y -qq --no-install-recommends gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static"
	[[ "$stderr" == *"setup: now working: aarch64-static"* ]]

	# past the bound: one line naming the holder, exit 1, apt-get never run
	rm -f "$BATS_TEST_TMPDIR/apt.log" "$BATS_TEST_TMPDIR/released.mark" "$BATS_TEST_TMPDIR/apt/held.mark" "$bin/qemu-aarch64-static"
	hold_apt_lock 30
	PATH=$bin MEMBENCH_APT_WAIT=2 run --separate-stderr "$t/setup" --test --only aarch64-static
	kill "$holder"
	assert_failure 1
	[ ! -e "$BATS_TEST_TMPDIR/apt.log" ] || fail "apt-get ran: $(cat "$BATS_TEST_TMPDIR/apt.log")"
	assert_equal "$(tail -n 1 <<<"$stderr")" "setup: another package manager (pid $holder, $holder_name) still holds $BATS_TEST_TMPDIR/apt/dpkg/lock-frontend after 2 s; run ./setup again when it has finished (MEMBENCH_APT_WAIT sets the wait)"
	# a lock taken between setup's look and apt-get's own: apt-get's
	# "Could not get lock" is waited out and apt-get run again
	fake_apt "$bin"
	sed -i "2i [ -e '$BATS_TEST_TMPDIR/raced' ] || { : >'$BATS_TEST_TMPDIR/raced'; echo 'E: Could not get lock /x. It is held by process 1 (apt)' >&2; exit 100; }" "$bin/apt-get"
	PATH=$bin MATRIX_COMPILERS=gcc MEMBENCH_APT_WAIT=60 run --separate-stderr "$t/setup" --test --only aarch64-static
	assert_success
	assert_equal "$(grep -c '^update -qq$' "$BATS_TEST_TMPDIR/apt.log")" 1
	[[ "$stderr" != *"Could not get lock"* ]] || fail "apt-get's lock error was passed on: $stderr"
	# a bound that is no number is refused before anything is probed
	MEMBENCH_APT_WAIT=soon run --separate-stderr "$t/setup" --test --only aarch64-static
	assert_failure 2
	assert_equal "$stderr" "setup: MEMBENCH_APT_WAIT must be a whole number of seconds, not 'soon'"
}

@test "setup --test --check: a verdict a line, status 1 with one missing; after an install every probe runs again, each in a fresh directory, and passes as it did the first time" {
	[ "$(id -u)" = 0 ] || skip "setup installs only as root"
	need qemu-aarch64-static
	local bin t ok tmp
	bin=$(trimmed_path qemu-aarch64-static apt-get)
	fake_apt "$bin"
	t=$(tree_copy)
	tmp=$BATS_TEST_TMPDIR/tmp
	mkdir "$tmp"
	# every capability this machine has (all of them under CI), and
	# aarch64-static, missing here until the stand-in apt-get "installs"
	# it: setup probes them all, installs, then probes them all again in
	# the same process, where a probe that finds what its first run
	# left (ssh-keygen's key asked "Overwrite (y/n)?") fails
	# (this --check of every capability is also the test of --check's
	# verdicts: one a line, each capability named, status 1 when any is
	# missing, and under CI nothing else missing)
	PATH=$bin TMPDIR=$tmp run --separate-stderr "$t/setup" --test --check
	check_verdicts
	assert_failure 1
	assert_line --regexp '^missing +aarch64-static '
	[ "${CI:-}" != true ] || [ "$stderr" = "setup: missing: aarch64-static" ] ||
		fail "CI ran after ./setup --test, yet: $stderr"
	[[ "$stderr" == "setup: missing:"*" aarch64-static"* ]] || fail "stderr: $stderr"
	ok=$(printf '%s\n' "$output" | sed -n 's/^ok  *//p' | paste -sd,)
	[[ ",$ok," == *,ssh-keygen,* ]] || [ "${CI:-}" != true ] || fail "ssh-keygen is not ok under CI: $output"
	[ "$(wc -l <<<"${ok//,/$'\n'}")" -ge 10 ] || fail "too few capabilities here to try: $ok"
	PATH=$bin TMPDIR=$tmp MATRIX_COMPILERS=gcc run --separate-stderr "$t/setup" --test --only "$ok,aarch64-static"
	assert_success
	assert_equal "$(grep -c '^install ' "$BATS_TEST_TMPDIR/apt.log")" 1
	grep -q '^install .* qemu-user-static' "$BATS_TEST_TMPDIR/apt.log"
	[ "$stderr" = "setup: missing: aarch64-static; installing gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static 
setup: now working: aarch64-static
setup: ready; now run 'make run' (or 'make check')" ] || fail "stderr: $stderr"
	[ -f "$t/Makefile" ]
	# nothing of either run is left behind
	assert_equal "$(ls -A "$tmp")" ""
}

@test "setup's machines capability needs every tool the guests' initramfs copies: without column it is missing, with its package named" {
	run --separate-stderr "$MEMBENCH_ROOT/setup" --test --check --only machines
	[ "$status" = 0 ] || missing_tool "the emulated machines' tools are not all here: $output"
	# column alone hidden: the probe fails on it, and names the package
	# that brings it (a minimal Debian root has none)
	PATH=$(trimmed_path column) run --separate-stderr "$MEMBENCH_ROOT/setup" --test --check --only machines
	assert_failure 1
	assert_output --regexp '^missing +machines +\(.* bsdextrautils .*\)$'
	PATH=$(trimmed_path column) run "$MEMBENCH_ROOT/tests/machines/build-initramfs" --missing
	assert_failure 1
	assert_output column
	run "$MEMBENCH_ROOT/tests/machines/build-initramfs" --missing
	assert_success
	assert_output ''
}

@test "setup: an unknown option is refused in one line" {
	run --separate-stderr "$MEMBENCH_ROOT/setup" --tset
	assert_failure 2
	assert_output ""
	[ "$stderr" = "setup: unknown option '--tset'" ]
	run --separate-stderr "$MEMBENCH_ROOT/setup" --check --only 'jq;id'
	assert_failure 2
	[ "$stderr" = "setup: --only: 'jq;id' is not a comma-separated list of capability names" ]
	run --separate-stderr "$MEMBENCH_ROOT/setup" --check --only jq,nope
	assert_failure 2
	[ "$stderr" = "setup: --only: no capability 'nope' (./setup --test --check lists them)" ]
}

# in_fake_dev CMD...: CMD in a mount namespace whose /dev is a tmpfs with
# the host's zero, full, random, urandom and tty, and a null that is a
# plain file; then /dev/null's kind and numbers.
in_fake_dev() {
	local d=$BATS_TEST_TMPDIR/dev
	mkdir -p "$d"
	run --separate-stderr unshare -m --propagation private sh -c '
		d=$1 && shift &&
		mount -t tmpfs -o mode=755 membench-dev "$d" &&
		cp -a /dev/zero /dev/full /dev/random /dev/urandom /dev/tty "$d"/ &&
		printf junk >"$d/null" && mount --bind "$d" /dev || exit 99
		"$@"; rc=$?
		stat -c "%F %t:%T" /dev/null
		exit "$rc"' sh "$d" "$@"
}

@test "setup: a /dev/null that is a plain file is made the null device again as root; --check only names it" {
	need_mount_ns
	in_fake_dev "$MEMBENCH_ROOT/setup" --test --check --only make
	assert_failure 1
	assert_output --regexp '^regular (empty )?file 0:0$'
	[[ "$stderr" =~ ^"setup: /dev/null is not the null device (regular "(empty )?"file); as root, ./setup makes it again"$ ]]
	local t
	t=$(tree_copy)
	in_fake_dev "$t/setup" --only cc
	assert_success
	# configure ran on the device: its config.status is whole
	assert_output "character special file 1:3"
	[[ "$stderr" =~ ^"setup: /dev/null was not the null device (regular "(empty )?"file); made it again"$'\n' ]]
	[[ "$stderr" == *"setup: ready;"* ]]
	run "$t/config.status" --version
	assert_success
}

# nested_bats ARGS...: bats on ARGS with a plain environment (none of
# this run's BATS_ variables), the PATH in $NESTED_PATH and CI=$NESTED_CI.
nested_bats() {
	# without the bats-core directory this bats put first on PATH
	NESTED_PATH=$(printf '%s' "$NESTED_PATH" | tr : '\n' | grep -v bats-core | paste -sd:)
	# fd 3 is this bats' own: the nested one must not write its TAP there
	run env -i HOME="$HOME" PATH="$NESTED_PATH" CI="$NESTED_CI" BENCH="$BENCH" bats "$@" 3>&-
}

@test "a missing tool: a skip outside CI, a failure naming it under CI=true" {
	# (bats would rewrite a test line written here as it stands)
	{
		echo "load $MEMBENCH_ROOT/tests/test_helper"
		printf '%s "needs a tool" { need membench-no-such-tool; }\n' @test
		printf '%s "needs a library" { missing_tool "libmembench-none is missing"; }\n' @test
	} >"$BATS_TEST_TMPDIR/t.bats"
	NESTED_PATH=$PATH NESTED_CI=false nested_bats "$BATS_TEST_TMPDIR/t.bats"
	assert_success
	assert_line 'ok 1 needs a tool # skip membench-no-such-tool is not installed'
	assert_line 'ok 2 needs a library # skip libmembench-none is missing'
	NESTED_PATH=$PATH NESTED_CI=true nested_bats "$BATS_TEST_TMPDIR/t.bats"
	assert_failure
	assert_line 'not ok 1 needs a tool'
	assert_line 'not ok 2 needs a library'
	assert_line --partial 'CI: membench-no-such-tool is not installed; ./setup --test should have installed it'
}

@test "under CI=true, a cross test with qemu-aarch64-static hidden from PATH fails and names it" {
	need qemu-aarch64-static
	NESTED_PATH=$(trimmed_path qemu-aarch64-static) NESTED_CI=true \
		nested_bats -f 'aarch64: static cross build' "$MEMBENCH_ROOT/tests/cross.bats"
	assert_failure
	assert_line --partial 'CI: qemu-aarch64-static is not installed'
	NESTED_PATH=$(trimmed_path qemu-aarch64-static) NESTED_CI=false \
		nested_bats -f 'aarch64: static cross build' "$MEMBENCH_ROOT/tests/cross.bats"
	assert_success
	assert_line --partial '# skip qemu-aarch64-static is not installed'
}

# the value of a Makefile.in variable, continuation lines joined
make_var() {
	sed -n "/^$1 = /,/[^\\\\]\$/p" "$MEMBENCH_ROOT/Makefile.in" | sed "s/^$1 = //; s/\\\\\$//" | tr -s ' \t\n' ' '
}

@test "the tiers: check-fast is a subset of existing files without the slow kinds; the others run their tests in order" {
	local fast f name
	fast=$(make_var FAST_TESTS)
	[ "$(wc -w <<<"$fast")" -ge 10 ]
	for f in $fast; do
		[ -f "$MEMBENCH_ROOT/tests/$f" ] || fail "FAST_TESTS names $f, which is not in tests/"
		case "$f" in
		cross.bats | spans.bats | sanitizers.bats | valgrind.bats | compilers.bats | build.bats | \
			matrix*.bats | mpi.bats | slurm.bats | report_cluster.bats | fuzz.bats | packaging.bats | \
			variants.bats)
			fail "FAST_TESTS holds $f, which belongs to the full tier" ;;
		esac
	done
	for f in "$MEMBENCH_ROOT"/tests/*.bats; do
		name=${f##*/}
		[[ " $fast " == *" $name "* ]] && continue
		grep -q 'export BATS_NO_PARALLELIZE_WITHIN_FILE=true' "$f" ||
			fail "$name is outside the fast tier but lets its tests run side by side"
	done
	run make -n -C "$MEMBENCH_ROOT" check-fast FAST_JOBS=1 TESTS=
	assert_success
	assert_output --partial "tests/stream_errors.bats"
	refute_output --partial "tests/cross.bats"
	refute_output --partial -- "--jobs"
	# make check runs every file exactly once, the slow ones first
	# TESTS= so that a `make check TESTS=setup.bats` around this test
	# does not narrow the list it checks
	run make -n -C "$MEMBENCH_ROOT" check JOBS=1 TESTS=
	assert_success
	local listed
	listed=$(tr ' ' '\n' <<<"$output" | sed -n 's|.*/tests/\([^/]*\.bats\)$|\1|p')
	assert_equal "$(sort <<<"$listed")" "$(cd "$MEMBENCH_ROOT/tests" && printf '%s\n' *.bats | sort)"
	assert_equal "$(head -n "$(make_var SLOW_TESTS | wc -w)" <<<"$listed" | paste -sd' ')" "$(make_var SLOW_TESTS | xargs)"
	# the emulated machines are their own target, never in make check
	refute_output --partial machines
	run make -n -C "$MEMBENCH_ROOT" check-machines
	assert_success
	assert_output --partial "tests/machines/machines.bats"
	grep -q 'export BATS_NO_PARALLELIZE_WITHIN_FILE=true' "$MEMBENCH_ROOT/tests/machines/machines.bats"
}

@test "make check ends with its slowest files, each file's whole wall time, setup_file included, and its time in all" {
	need parallel
	local mk
	mk=$(dirname "$BENCH")
	[ -f "$mk/Makefile" ] || skip "no Makefile beside $BENCH"
	# a job log of its own: the build's is the make check around this test's
	run make -s -C "$mk" check JOBS=2 TESTS="fixtures/timing/quick.bats fixtures/timing/slow.bats" \
		CHECK_JOBLOG="$BATS_TEST_TMPDIR/check.joblog"
	assert_success
	assert_equal "$(grep -c 'bats-exec-file .*/fixtures/timing/' "$BATS_TEST_TMPDIR/check.joblog")" 2
	assert_line --regexp '^ok 1 a test that returns at once in [0-9]+ms$'

	assert_line "make check: its slowest files (10 at most), wall seconds of each, setup_file included, beside other files:"
	assert_line --regexp "^make check: [0-9]+ s in all \\(budget: $("$MEMBENCH_ROOT/tests/budget" 'make check') min on the 2-vCPU guest, docs/testing.md\\): (within budget|over budget by [0-9]+ s)\$"
	# slow.bats first, with the 2 s of its setup_file and the 1 s of its test
	run sed -n '/slowest files/{n;p;n;p;}' <<<"$output"
	[[ "${lines[0]}" =~ ^\ +([0-9]+)\ s\ \ slow\.bats$ ]] || fail "first: ${lines[0]}"
	[ "${BASH_REMATCH[1]}" -ge 3 ] || fail "slow.bats took 3 s at least, the report says ${BASH_REMATCH[1]}"
	[[ "${lines[1]}" =~ ^\ +[0-9]+\ s\ \ quick\.bats$ ]] || fail "second: ${lines[1]}"
	# file-times takes a file's name only where it is a plain NAME.bats
	printf '1\t:\t0\t  7.5\t0\t0\t0\t0\tbats-exec-file -j 2 /t/$(x).bats /l\n2\t:\t0\t 1.2\t0\t0\t0\t0\tbats-exec-test -j 2 /t/a.bats /l\n' >"$BATS_TEST_TMPDIR/log"
	run "$MEMBENCH_ROOT/tests/file-times" "$BATS_TEST_TMPDIR/log"
	assert_success
	assert_output ""
}

@test "make check and check-fast say their time against the budget docs/testing.md's table gives, and over budget when over" {
	local doc=$BATS_TEST_TMPDIR/testing.md
	# the real table has a budget for each tier make check and
	# check-fresh report
	for t in 'make check' 'make check-fast' 'make check-machines' 'the whole command' \
		'./setup --test on a fresh Debian machine'; do
		run "$MEMBENCH_ROOT/tests/budget" "$t"
		assert_success
		assert_output --regexp '^[0-9]+$'
	done
	# a table of its own: the figure is the row's, compared with the time
	printf '%s\n' '| tier | budget | what |' '|---|---:|---|' '| `make check` | 7 min | x |' \
		'| `make check-fast` | 1 min | y |' '| `$(rm -rf /)` | 3 min | z |' >"$doc"
	export BUDGET_DOC=$doc
	run "$MEMBENCH_ROOT/tests/budget" 'make check' 420
	assert_output 'make check: 420 s in all (budget: 7 min on the 2-vCPU guest, docs/testing.md): within budget'
	run "$MEMBENCH_ROOT/tests/budget" 'make check' 421
	assert_output 'make check: 421 s in all (budget: 7 min on the 2-vCPU guest, docs/testing.md): over budget by 1 s'
	run "$MEMBENCH_ROOT/tests/budget" 'make check-fast' 75
	assert_output 'make check-fast: 75 s in all (budget: 1 min on the 2-vCPU guest, docs/testing.md): over budget by 15 s'
	# a tier's name is data: matched whole, never as a pattern or code
	run "$MEMBENCH_ROOT/tests/budget" '$(rm -rf /)'
	assert_output 3
	run "$MEMBENCH_ROOT/tests/budget" 'make .*'
	assert_failure 1
	run "$MEMBENCH_ROOT/tests/budget" 'make check-machines' 30
	assert_success
	assert_output 'make check-machines: 30 s in all (docs/testing.md gives it no budget)'
	run "$MEMBENCH_ROOT/tests/budget" 'make check' 1e3
	assert_failure 2
	# check-fast prints the line of its own tier
	run make -n -C "$(dirname "$BENCH")" check-fast
	assert_output --partial "tests/budget 'make check-fast'"
}

@test "CI and check-fresh run exactly the README's test command, and CONTRIBUTING names the same" {
	local readme ci
	readme=$(grep -E '^\./setup --test && make ' "$MEMBENCH_ROOT/README.md" | sed 's/ *#.*//')
	[ -n "$readme" ]
	ci=$(grep -v '^#' "$MEMBENCH_ROOT/.ci/run" | grep 'setup --test')
	assert_equal "$ci" "$readme"
	grep -qF "${readme#./setup --test && }" "$MEMBENCH_ROOT/CONTRIBUTING.md"
	# and the fresh root runs it whole, the emulated machines too
	grep -qxF "readme 2 '$readme'" "$MEMBENCH_ROOT/release/check-fresh"
}
