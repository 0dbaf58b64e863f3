#!/usr/bin/env bats
# Packaging: make install/uninstall/dist/distcheck follow Autoconf's
# conventions.  Everything is built out of tree in the file's temporary
# directory from this source tree, so the work tree is never written.

load test_helper

setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	BUILD="$BATS_FILE_TMPDIR/build"
	mkdir "$BUILD"
	# one compiler for the matrix: probing every compiler Debian has
	# (matrix_compilers.bats does) costs each configure 10 s here
	(cd "$BUILD" && MATRIX_COMPILERS=gcc "$MEMBENCH_ROOT/configure" >/dev/null && make >/dev/null) ||
		return 1
	export BUILD
}

version() {
	sed -n 's/^#define BENCH_VERSION "\(.*\)"$/\1/p' "$MEMBENCH_ROOT/bench.c"
}

# The files the package is made of: what git tracks, or in an unpacked
# release the MANIFEST that make dist wrote.
source_files() {
	if [ "$(cd "$MEMBENCH_ROOT" && git rev-parse --show-toplevel 2>/dev/null)" = \
		"$(cd "$MEMBENCH_ROOT" && pwd -P)" ]; then
		git -C "$MEMBENCH_ROOT" ls-files
	else
		cat "$MEMBENCH_ROOT/MANIFEST"
	fi
}

# "MODE PATH" for every file and directory under $1, sorted.
tree_listing() {
	(cd "$1" && find . -mindepth 1 -printf '%m %P\n' | LC_ALL=C sort -k2)
}

# What a default-prefix install must hold, as tree_listing prints it.
expected_tree() {
	local f mode
	{
		echo "755 usr/local/bin/membench"
		for c in bench-compare compare latency-compare report restore run run-matrix submission sweep-bind sweep-freq sweep-latency-pages \
			sweep-offset sweep-size sweep-threads verify; do
			echo "755 usr/local/bin/membench-$c"
		done
		echo "644 usr/local/share/man/man1/membench.1"
		echo "644 usr/local/libexec/membench/bench.c"
		echo "644 usr/local/libexec/membench/release/bench.c.sha256"
		source_files | grep -E '^(harness|matrix)/' | while read -r f; do
			mode=644
			[ ! -x "$MEMBENCH_ROOT/$f" ] || mode=755
			echo "$mode usr/local/libexec/membench/$f"
		done
		source_files | grep -E '^([^/]*\.md|LICENSE|docs/.*|results/README)$' |
			sed 's|^|644 usr/local/share/doc/membench/|'
	} | awk '{
		print
		# every directory above a file, once
		n = split($2, part, "/"); d = ""
		for (i = 1; i < n; i++) {
			d = d (i > 1 ? "/" : "") part[i]
			if (!(d in seen)) { seen[d] = 1; print "755 " d }
		}
	}' | LC_ALL=C sort -u -k2
}

@test "make install DESTDIR=... writes exactly the expected tree under /usr/local" {
	dest="$BATS_TEST_TMPDIR/dest"
	run make -C "$BUILD" install DESTDIR="$dest"
	assert_success
	diff -u <(expected_tree) <(tree_listing "$dest")
}

@test "docdir is DATAROOTDIR/doc/membench, also for a prefix given at make time" {
	dest="$BATS_TEST_TMPDIR/dest"
	run make -C "$BUILD" install DESTDIR="$dest" prefix=/opt/mb
	assert_success
	[ -f "$dest/opt/mb/share/doc/membench/README.md" ]
	[ -f "$dest/opt/mb/share/doc/membench/LICENSE" ]
	[ -x "$dest/opt/mb/bin/membench" ]
	# the commands name the prefix they were installed for
	grep -qx 'exec "/opt/mb/libexec/membench/harness/run" "$@"' "$dest/opt/mb/bin/membench-run"
	# shellcheck disable=SC2016 # $(docdir) is for make
	run make -s -C "$BUILD" -f - print-docdir <<<'include Makefile
print-docdir: ; @echo $(docdir)'
	assert_output /usr/local/share/doc/membench
}

@test "installed membench, its man page and its commands work from the installed tree" {
	inst="$BATS_TEST_TMPDIR/inst"
	# the file's build, installed under a prefix given at make time
	run make -C "$BUILD" install prefix="$inst"
	assert_success
	run "$inst/bin/membench" --version
	assert_success
	assert_output "membench bench $(version)"
	# the man page is bench's own --help and --version
	grep -q '^\.TH MEMBENCH "1" ".*" "membench bench '"$(version)"'"' "$inst/share/man/man1/membench.1"
	grep -q -- '-\\-stores' "$inst/share/man/man1/membench.1"
	# a harness run from some other directory: the installed membench,
	# results under ./results there
	mkdir "$BATS_TEST_TMPDIR/work"
	cd "$BATS_TEST_TMPDIR/work"
	run "$inst/bin/membench-run" --label pkg -- -s 100000 -n 3
	assert_success
	assert_line --regexp '^Solution Validates'
	dir=$(find results -mindepth 2 -maxdepth 2 -type d -name '*-pkg')
	[ -n "$dir" ]
	jq -e '.bench.validation.ok' "$dir/step-001.json" >/dev/null
	# provenance hashes the bench.c installed beside the harness
	grep -q "$(sha256sum <"$MEMBENCH_ROOT/bench.c" | cut -d' ' -f1)" "$dir/provenance.txt"
	# the matrix finds its files and bench.c in the installed tree
	MATRIX_COMPILERS=gcc run "$inst/bin/membench-run-matrix" --dry-run
	assert_success
	assert_output --partial "results (dry run, nothing built or run): $PWD/results/"
	# each command is installed under its name in the tree: the one
	# against stream.c is bench-compare, and membench-compare compares
	# two results from the installed tree
	run "$inst/bin/membench-bench-compare" --help
	assert_success
	assert_output --partial 'usage: harness/bench-compare'
	"$inst/bin/membench" -s 100000 -n 3 --json >a.json
	run "$inst/bin/membench-compare" a.json a.json
	assert_success
	assert_output --partial "within noise"
	for c in "$inst"/bin/membench-*; do
		name=${c##*/membench-}
		[ "$name" = mpi ] && continue
		grep -q "^exec \"[^\"]*/$name\" " "$c" || { echo "$c runs another script"; false; }
	done
	[ ! -e "$inst/bin/membench-diff" ] && [ ! -e "$inst/bin/membench-matrix" ]
	# membench-report renders the run from the installed tree
	run "$inst/bin/membench-report" --no-plots --format csv "$dir"
	assert_success
	[ -s "$dir/report-bandwidth.csv" ]
}

@test "make uninstall removes every file install wrote, and nothing else" {
	dest="$BATS_TEST_TMPDIR/dest"
	mkdir -p "$dest/usr/local/bin" "$dest/usr/local/share/doc/other"
	echo keep >"$dest/usr/local/bin/other-tool"
	echo keep >"$dest/usr/local/share/doc/other/README"
	run make -C "$BUILD" install DESTDIR="$dest"
	assert_success
	run make -C "$BUILD" uninstall DESTDIR="$dest"
	assert_success
	run sh -c 'find "$1" ! -type d | LC_ALL=C sort' sh "$dest"
	assert_output "$(printf '%s\n' "$dest/usr/local/bin/other-tool" \
		"$dest/usr/local/share/doc/other/README" | LC_ALL=C sort)"
	# membench's own directories went too
	run find "$dest" -name '*membench*'
	assert_output ""
}

@test "the tarball holds every file git tracks, the man page and MANIFEST" {
	run make -C "$BUILD" dist
	assert_success
	tarball="$BUILD/membench-$(version).tar.gz"
	run diff -u <({ source_files; echo membench.1; echo MANIFEST; } | LC_ALL=C sort -u) \
		<(tar tzf "$tarball" | sed -n "s|^membench-$(version)/||p" | grep -v -e '/$' -e '^$' | LC_ALL=C sort)
	assert_success
}

@test "configure's version is bench.c's BENCH_VERSION" {
	run "$MEMBENCH_ROOT/configure" --version
	assert_line --index 0 "membench configure $(version)"
}

@test "the committed configure is what autoconf makes of configure.ac" {
	local made_by this
	made_by=$(sed -n 's/^# Generated by GNU Autoconf \([0-9.]*\) .*/\1/p' "$MEMBENCH_ROOT/configure")
	this=$(autoconf --version | sed -n '1s/.* \([0-9.]*\)$/\1/p')
	[ "$made_by" = "$this" ] ||
		skip "configure was made by autoconf $made_by; this is autoconf $this"
	cp "$MEMBENCH_ROOT/configure.ac" "$MEMBENCH_ROOT/bench.c" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run autoconf -f -o configure.new
	assert_success
	cmp configure.new "$MEMBENCH_ROOT/configure"
}

@test "make distcheck passes" {
	# distcheck runs bats itself: give it the environment of a plain shell,
	# without the bats-core directory bats puts first on PATH.
	local path
	path=$(printf '%s' "$PATH" | tr : '\n' | grep -v bats-core | paste -sd:)
	run env -i HOME="$HOME" PATH="$path" MATRIX_COMPILERS=gcc make -C "$BUILD" distcheck
	assert_success
	assert_line "distcheck: membench-$(version).tar.gz is ready to publish"
}
