#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats runs each test in a subshell on purpose
# harness/verify: what it proves and says it proves (a forged bundle that
# agrees with itself, bench.c released or not, the signature), every
# number compare and report read, deleted rows, runs that failed
# validation, and tarballs built to hurt the machine that unpacks them.

load test_helper

SUBMIT=$MEMBENCH_ROOT/harness/submission
VERIFY=$MEMBENCH_ROOT/harness/verify
PROVED='every number agrees with the raw outputs and the manifest; this does not prove the numbers were measured'

# One harness run and its bundle, and one run whose step failed
# validation (bench wrapped so that its validation fails), once per file.
setup_file() {
	export BATS_NO_PARALLELIZE_WITHIN_FILE=true # its tests run in order (CONTRIBUTING.md)
	local root=$BATS_FILE_TMPDIR run
	MEMBENCH_LOCK_DIR=$root/lock "$MEMBENCH_ROOT/harness/run" --results "$root/h" \
		--bench "$BENCH" -- -s 100000 -n 3 >/dev/null 2>&1 || true
	run=$(find "$root/h" -mindepth 2 -maxdepth 2 -type d)
	[ -n "$run" ] || return 0
	mkdir "$root/t"
	"$SUBMIT" --output "$root/t" "$run" >/dev/null 2>&1 || true
	cat >"$root/failing-bench" <<EOF
#!/bin/bash
out='' prev=''
for a in "\$@"; do [ "\$prev" != --json-file ] || out=\$a; prev=\$a; done
[ -n "\$out" ] || exec "$BENCH" "\$@"
"$BENCH" "\$@" | sed 's/^Solution Validates.*/Failed Validation on array c[] (planted)/'
jq '.validation.ok = false' "\$out" >"\$out.x" && mv "\$out.x" "\$out"
exit 1
EOF
	chmod +x "$root/failing-bench"
	MEMBENCH_LOCK_DIR=$root/lock "$MEMBENCH_ROOT/harness/run" --results "$root/f" \
		--bench "$root/failing-bench" -- -s 100000 -n 3 >/dev/null 2>&1 || true
}
good_run() { find "$BATS_FILE_TMPDIR/h" -mindepth 2 -maxdepth 2 -type d; }
failed_run() { find "$BATS_FILE_TMPDIR/f" -mindepth 2 -maxdepth 2 -type d 2>/dev/null; }
tarball() { printf '%s\n' "$BATS_FILE_TMPDIR"/t/*.tar.gz; }

# unpack [TARBALL]: the bundle (default: the file's) unpacked in the
# test's directory; prints the bundle directory.
unpack() {
	mkdir -p "$BATS_TEST_TMPDIR/u"
	tar -C "$BATS_TEST_TMPDIR/u" -xzf "${1:-$(tarball)}"
	find "$BATS_TEST_TMPDIR/u" -mindepth 1 -maxdepth 1 -type d
}
# remanifest DIR: what a forger does after an edit.
remanifest() {
	(cd "$1" && find . -type f ! -name MANIFEST.sha256 ! -name MANIFEST.sha256.sig | LC_ALL=C sort | sed 's|^\./||' |
		xargs -d '\n' sha256sum >"$BATS_TEST_TMPDIR/manifest" && mv "$BATS_TEST_TMPDIR/manifest" MANIFEST.sha256)
}
# jset DIR PROGRAM: step-001.json of the bundle in DIR through jq PROGRAM.
jset() {
	jq "$2" "$1/results/step-001.json" >"$1/j.new" && mv "$1/j.new" "$1/results/step-001.json"
}

@test "a bundle forged consistently (raw, JSON, summary, manifest) verifies, and verify says that proves no measurement" {
	[ -f "$(tarball)" ] || skip "no bundle"
	b=$(unpack)
	# Triad made 10% faster in the raw text, the JSON and the summary
	triad=$(awk '/^Triad:/ { print $2; exit }' "$b/results/step-001.raw")
	new=$(awk -v t="$triad" 'BEGIN { printf "%.1f", t * 1.1 }')
	sed -i "s/^\(Triad: *\)$triad/\1$new/" "$b/results/step-001.raw"
	jset "$b" "(.bench.results[] | select(.kernel == \"Triad\") | .best_mbs) = $new"
	sed -i "s/| $triad |/| $new |/" "$b/results/summary.md"
	grep -q "| $new |" "$b/results/summary.md"
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_success
	assert_equal "${lines[-1]}" "verify: $b: $PROVED"
	assert_line 'verify: MANIFEST.sha256: not signed: anyone could have written this bundle'
}

@test "bench.c: unreleased or modified is said to give tuned results, a released one is named" {
	[ -f "$(tarball)" ] || skip "no bundle"
	b=$(unpack)
	tuned="verify: bench.c: modified or unreleased (its sha256 is no released bench.c's, release/bench.c.sha256): its results are tuned results, in STREAM's terms"
	run "$VERIFY" "$b"
	assert_success
	assert_line "$tuned"
	# a membench whose release list holds this bench.c as 9.9.9
	copy=$BATS_TEST_TMPDIR/copy
	mkdir -p "$copy/release"
	cp -r "$MEMBENCH_ROOT/harness" "$MEMBENCH_ROOT/bench.c" "$copy/"
	{ cat "$MEMBENCH_ROOT/release/bench.c.sha256"; printf '%s  9.9.9\n' "$(cut -d' ' -f1 "$b/bench.c.sha256")"; } >"$copy/release/bench.c.sha256"
	run "$copy/harness/verify" "$b"
	assert_success
	assert_line 'verify: bench.c: the released bench.c of membench 9.9.9, unmodified'
	refute_line "$tuned"
	# a changed bench.c whose sha256 is changed everywhere the bundle has it
	echo '/* tuned */' >>"$b/bench.c"
	sum=$(sha256sum "$b/bench.c" | cut -d' ' -f1)
	(cd "$b" && sha256sum bench.c >bench.c.sha256)
	awk -v s="$sum" 'p { $1 = s; p = 0 } /^## sha256 of bench.c$/ { p = 1 } { print }' "$b/results/provenance.txt" >"$b/p.new"
	mv "$b/p.new" "$b/results/provenance.txt"
	remanifest "$b"
	run "$copy/harness/verify" "$b"
	assert_success
	assert_line "$tuned"
	refute_line --partial 'released bench.c of membench'
}

@test "release/bench.c.sha256 lists SHA256  VERSION, and make release-hash appends a release once" {
	local list=$MEMBENCH_ROOT/release/bench.c.sha256
	run grep -cvE '^(#.*|[0-9a-f]{64}  [0-9]+\.[0-9]+\.[0-9]+)$' "$list"
	assert_output 0
	assert_equal "$(grep -v '^#' "$list" | cut -d' ' -f3 | sort | uniq -d)" ''
	assert_equal "$(grep -v '^#' "$list" | cut -d' ' -f1 | sort | uniq -d)" ''
	[ -f "$MEMBENCH_ROOT/Makefile" ] || skip "run ./configure first"
	# a scratch tree: its bench.c as version 9.9.9
	tree=$BATS_TEST_TMPDIR/tree
	mkdir -p "$tree/release"
	cp "$list" "$tree/release/"
	sed 's/^#define BENCH_VERSION ".*"/#define BENCH_VERSION "9.9.9"/' "$MEMBENCH_ROOT/bench.c" >"$tree/bench.c"
	sum=$(sha256sum "$tree/bench.c" | cut -d' ' -f1)
	run make -s -C "$MEMBENCH_ROOT" release-hash RELEASE_TREE="$tree"
	assert_success
	assert_equal "$(tail -n 1 "$tree/release/bench.c.sha256")" "$sum  9.9.9"
	assert_equal "$(grep -c "  9.9.9$" "$tree/release/bench.c.sha256")" 1
	# again: left as it is
	run make -s -C "$MEMBENCH_ROOT" release-hash RELEASE_TREE="$tree"
	assert_success
	assert_equal "$(grep -c "  9.9.9$" "$tree/release/bench.c.sha256")" 1
	# the same version with another bench.c, or no release version: refused
	echo '/* changed */' >>"$tree/bench.c"
	run "$MEMBENCH_ROOT/release/record-bench-hash" "$tree"
	assert_failure 2
	assert_output "record-bench-hash: 9.9.9 is recorded with another bench.c ($sum): a released bench.c never changes; raise BENCH_VERSION"
	sed -i 's/^#define BENCH_VERSION ".*"/#define BENCH_VERSION "1.0.0-dev"/' "$tree/bench.c"
	run "$MEMBENCH_ROOT/release/record-bench-hash" "$tree"
	assert_failure 2
	assert_output --partial 'is not a release version'
	assert_equal "$(grep -vc '^#' "$tree/release/bench.c.sha256")" "$(($(grep -vc '^#' "$list") + 1))"
}

@test "--sign: a signed bundle verifies with its signer, fails with another, unsigned, or re-manifested" {
	need ssh-keygen
	[ -n "$(good_run)" ] || skip "no harness run"
	k=$BATS_TEST_TMPDIR/keys
	mkdir "$k"
	ssh-keygen -q -t ed25519 -N '' -C one -f "$k/one"
	ssh-keygen -q -t ed25519 -N '' -C two -f "$k/two"
	printf 'one@lab %s\n' "$(cut -d' ' -f1,2 "$k/one.pub")" >"$k/allowed-one"
	printf 'two@lab %s\n' "$(cut -d' ' -f1,2 "$k/two.pub")" >"$k/allowed-two"
	mkdir "$BATS_TEST_TMPDIR/out"
	run --separate-stderr "$SUBMIT" --sign "$k/one" --output "$BATS_TEST_TMPDIR/out" "$(good_run)"
	assert_success
	t=$output
	run "$VERIFY" --signer "$k/allowed-one" "$t"
	assert_success
	assert_line "verify: MANIFEST.sha256: signed by one@lab, a key $k/allowed-one lists"
	assert_equal "${lines[-1]}" "verify: $t: $PROVED"
	run "$VERIFY" --signer "$k/allowed-two" "$t"
	assert_failure 1
	assert_line "verify: MANIFEST.sha256.sig: made by no key that $k/allowed-two lists"
	# without --signer the signature is there, and not checked
	run "$VERIFY" "$t"
	assert_success
	assert_line 'verify: MANIFEST.sha256: signed, signature not checked (give --signer ALLOWED_SIGNERS)'
	# a forger's edit and new manifest breaks the signature
	b=$(unpack "$t")
	[ -f "$b/MANIFEST.sha256.sig" ]
	echo '# note' >>"$b/results/summary.md"
	remanifest "$b"
	run "$VERIFY" --signer "$k/allowed-one" "$b"
	assert_failure 1
	assert_line "verify: MANIFEST.sha256.sig: not a good signature of MANIFEST.sha256 by one@lab ($k/allowed-one)"
	# an unsigned bundle, where a signature is asked for
	run "$VERIFY" --signer "$k/allowed-one" "$(tarball)"
	assert_failure 1
	assert_line 'verify: MANIFEST.sha256: not signed (no MANIFEST.sha256.sig), but --signer asks for a signature'
	# make submission SIGN=KEYFILE passes the key on
	if [ -f "$MEMBENCH_ROOT/Makefile" ]; then
		run make -n -C "$MEMBENCH_ROOT" submission RESULTS=/some/run SIGN=/my/key ALLOW_FAILED=1
		assert_output --partial "harness/submission --sign '/my/key' --allow-failed '/some/run'"
	fi
}

@test "verify checks every number compare and report read against the raw text, not only the best rates" {
	[ -f "$(tarball)" ] || skip "no bundle"
	b=$(unpack)
	jset "$b" '(.bench.results[] | select(.kernel == "Copy") | .median_mbs) *= 2
		| (.bench.results[] | select(.kernel == "Scale") | .max_s) *= 3
		| (.bench.results[] | select(.kernel == "Add") | .bytes) *= 2
		| (.bench.results[] | select(.kernel == "Triad") | .spread) = "wide"
		| (.bench.results[] | select(.kernel == "Triad") | .median_s) = null'
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line --regexp '^verify: results/step-001.json: Copy median_mbs [0-9.]+ in the JSON, but the raw text says [0-9]+\.[0-9]$'
	assert_line --regexp '^verify: results/step-001.json: Scale max_s [0-9.e-]+ in the JSON, but the raw text says [0-9]+\.[0-9]{6}$'
	assert_line 'verify: results/step-001.json: Add bytes 4800000 in the JSON, but the raw text gives 2400000 (3 arrays of 100000 elements of 8 bytes)'
	assert_line --regexp '^verify: results/step-001.json: Triad spread wide \(not a number\) in the JSON, but the raw text says [0-9]+\.[0-9]{3}$'
	assert_line --regexp '^verify: results/step-001.json: Triad median_s nothing in the JSON, but the raw text says [0-9]+\.[0-9]{6}$'
	assert_equal "$(printf '%s\n' "$output" | grep -c '^verify: results/')" 5
	# the validation too
	b=$BATS_TEST_TMPDIR/v
	cp -r "$BATS_TEST_TMPDIR"/u/* "$b"
	sed -i 's/^Solution Validates/Failed Validation on array a[]/' "$b/results/step-001.raw"
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line 'verify: results/step-001.json: validation ok in the JSON, but the raw text has Failed Validation'
}

@test "a deleted summary row is noticed" {
	[ -f "$(tarball)" ] || skip "no bundle"
	b=$(unpack)
	grep -q '^| run |' "$b/results/summary.md"
	sed -i '/^| run |/d' "$b/results/summary.md"
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line 'verify: results/summary.md: no row for step 001, which has results'
}

@test "a run that failed validation: refused by submission in one line, or packed with --allow-failed and marked FAILED" {
	[ -n "$(failed_run)" ] || skip "no failed run"
	jq -e '.bench.validation.ok == false' "$(failed_run)/step-001.json" >/dev/null
	mkdir "$BATS_TEST_TMPDIR/out"
	run "$SUBMIT" --output "$BATS_TEST_TMPDIR/out" "$(failed_run)"
	assert_failure 2
	assert_output "submission: $(failed_run): step-001 failed validation: not a result (--allow-failed packs it, marked FAILED)"
	[ -z "$(ls "$BATS_TEST_TMPDIR/out")" ]
	run --separate-stderr "$SUBMIT" --allow-failed --output "$BATS_TEST_TMPDIR/out" "$(failed_run)"
	assert_success
	t=$output
	[[ $t == *-FAILED.tar.gz ]]
	b=$(unpack "$t")
	[[ $b == *-FAILED ]]
	grep -qx 'step-001	FAILED validation' "$b/FAILED.txt"
	grep -q '^step-001	FAILED validation	' "$b/run-rules.txt"
	run "$VERIFY" "$t"
	assert_success
	assert_line 'verify: results/step-001: FAILED validation: its numbers are no result'
	# the mark taken away: verify notices
	rm "$b/FAILED.txt"
	remanifest "$b"
	run "$VERIFY" "$b"
	assert_failure 1
	assert_line 'verify: results/step-001: failed validation, but the bundle does not say so (FAILED.txt)'
}

# hostile NAME PYTHON: a tarball $BATS_TEST_TMPDIR/NAME.tar.gz made by
# PYTHON, statements on tarfile t (the good bundle's files come first).
hostile() {
	need python3
	python3 -c "import io, sys, tarfile
good = tarfile.open(sys.argv[2])
t = tarfile.open(sys.argv[1], 'w:gz')
for m in good.getmembers():
    t.addfile(m, good.extractfile(m) if m.isfile() else None)
top = good.getmembers()[0].name.split('/')[0]
$2
t.close()" "$BATS_TEST_TMPDIR/$1.tar.gz" "$(tarball)"
}

@test "hostile tarballs: each refused, in one line naming the real cause" {
	[ -f "$(tarball)" ] || skip "no bundle"
	hostile up "i = tarfile.TarInfo(top + '/../../evil'); i.size = 1; t.addfile(i, io.BytesIO(b'x'))"
	run "$VERIFY" "$BATS_TEST_TMPDIR/up.tar.gz"
	assert_failure 2
	assert_output --regexp "^verify: $BATS_TEST_TMPDIR/up.tar.gz: member membench-[^ ]*/\.\./\.\./evil would be written outside the bundle directory \(an absolute path or '\.\.'\): refused$"
	hostile link "i = tarfile.TarInfo(top + '/results/passwd'); i.type = tarfile.SYMTYPE; i.linkname = '/etc/passwd'; t.addfile(i)"
	run "$VERIFY" "$BATS_TEST_TMPDIR/link.tar.gz"
	assert_failure 2
	assert_output --regexp "^verify: $BATS_TEST_TMPDIR/link.tar.gz: membench-[^ ]*/results/passwd is a symbolic link \(to /etc/passwd\): a bundle holds only plain files and directories$"
	hostile hard "i = tarfile.TarInfo(top + '/results/shadow'); i.type = tarfile.LNKTYPE; i.linkname = top + '/bench.c'; t.addfile(i)"
	run "$VERIFY" "$BATS_TEST_TMPDIR/hard.tar.gz"
	assert_failure 2
	assert_output --regexp "^verify: .*/hard.tar.gz: membench-[^ ]*/results/shadow is a hard link \(to membench-[^ ]*/bench.c\): a bundle holds only"
	hostile dev "i = tarfile.TarInfo(top + '/results/null'); i.type = tarfile.CHRTYPE; i.devmajor = 1; i.devminor = 3; t.addfile(i)"
	run "$VERIFY" "$BATS_TEST_TMPDIR/dev.tar.gz"
	assert_failure 2
	assert_output --regexp "^verify: .*/dev.tar.gz: membench-[^ ]*/results/null is a device: a bundle holds only"
	# a small tarball that inflates beyond the cap (a configurable one)
	hostile bomb "i = tarfile.TarInfo(top + '/results/zeros'); i.size = 3 << 20; t.addfile(i, io.BytesIO(bytes(i.size)))"
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/bomb.tar.gz")" -lt $((1 << 20)) ]
	run "$VERIFY" --max-size 2M "$BATS_TEST_TMPDIR/bomb.tar.gz"
	assert_failure 2
	assert_output "verify: $BATS_TEST_TMPDIR/bomb.tar.gz unpacks to more than 2M (--max-size): refused"
	# a sparse member: a small tar stream, a big file; tar's listing tells
	b=$(unpack)
	truncate -s 3M "$b/results/holes"
	tar -C "${b%/*}" --sparse -czf "$BATS_TEST_TMPDIR/sparse.tar.gz" "${b##*/}"
	[ "$(gzip -dc "$BATS_TEST_TMPDIR/sparse.tar.gz" | wc -c)" -lt $((2 << 20)) ]
	run "$VERIFY" --max-size 2M "$BATS_TEST_TMPDIR/sparse.tar.gz"
	assert_failure 2
	assert_output "verify: $BATS_TEST_TMPDIR/sparse.tar.gz unpacks to more than 2M (--max-size): refused"
	run "$VERIFY" --max-size 2X "$(tarball)"
	assert_failure 2
	assert_output "verify: --max-size 2X is not a size (bytes, or a number with K, M or G)"
	run "$VERIFY" --max-size 64M "$(tarball)"
	assert_success
	# not gzip at all
	echo junk >"$BATS_TEST_TMPDIR/junk.tar.gz"
	run "$VERIFY" "$BATS_TEST_TMPDIR/junk.tar.gz"
	assert_failure 2
	assert_output "verify: $BATS_TEST_TMPDIR/junk.tar.gz is not a gzip file, or its compressed data is damaged (gzip: $BATS_TEST_TMPDIR/junk.tar.gz: not in gzip format)"
}

@test "an unpacked bundle whose bench.c is a symbolic link is refused, not hashed through the link" {
	[ -f "$(tarball)" ] || skip "no bundle"
	b=$(unpack)
	cp "$b/bench.c" "$BATS_TEST_TMPDIR/elsewhere.c"
	ln -sf "$BATS_TEST_TMPDIR/elsewhere.c" "$b/bench.c"
	run "$VERIFY" "$b"
	assert_failure 2
	assert_output "verify: $b: bench.c is not a plain file or directory (a link, device or FIFO): a bundle holds only plain files and directories"
}

@test "a full disk is named as such, not as a bad tarball" {
	[ -f "$(tarball)" ] || skip "no bundle"
	need_mount_ns
	mkdir "$BATS_TEST_TMPDIR/small"
	run unshare -m sh -c 'mount -t tmpfs -o size=64k membench-full "$1" || exit 77; TMPDIR=$1 "$2" "$3"' \
		sh "$BATS_TEST_TMPDIR/small" "$VERIFY" "$(tarball)"
	[ "$status" != 77 ] || skip "cannot mount a tmpfs here"
	assert_failure 2
	assert_output --regexp "^verify: cannot unpack $(tarball) into $BATS_TEST_TMPDIR/small: .*No space left on device"
}
