# shellcheck shell=bash
# harness/lib.sh: the whole of harness/lib/, for a command (or a test) that
# uses all of it.  Sourced, never run.
#
# A harness session goes: parse options (parse_options) -> session_begin
# (save machine state, trap restore, apply settings, verify them, open the
# results directory and write the provenance) -> step_run once per
# measurement -> session_end.  Every change to the machine goes through one
# apply_* function that saves the old value first (lib/knobs.sh), so
# restore_all (run from the EXIT/INT/TERM traps) can put it back whatever
# happens in between.
#
# Every command that measures also takes the membench lock (take_lock), so
# two of them never run at once, and names its results directory with
# make_results_dir; every command prints --help from its own usage function
# and --version from the one version string, bench.c's BENCH_VERSION.
#
# Which file owns what: CONTRIBUTING.md, "Where shell code lives".  Each
# file says in its first lines what it needs: the order below, each file
# after all it needs, is the one way they depend on each other.

# shellcheck source=harness/lib/messages.sh
. "${BASH_SOURCE[0]%/*}/lib/messages.sh"
# shellcheck source=harness/lib/options.sh
. "${BASH_SOURCE[0]%/*}/lib/options.sh"
# shellcheck source=harness/lib/knobs.sh
. "${BASH_SOURCE[0]%/*}/lib/knobs.sh"
# shellcheck source=harness/lib/topology.sh
. "${BASH_SOURCE[0]%/*}/lib/topology.sh"
# shellcheck source=harness/lib/binding.sh
. "${BASH_SOURCE[0]%/*}/lib/binding.sh"
# shellcheck source=harness/lib/settings.sh
. "${BASH_SOURCE[0]%/*}/lib/settings.sh"
# shellcheck source=harness/lib/resultsdir.sh
. "${BASH_SOURCE[0]%/*}/lib/resultsdir.sh"
# shellcheck source=harness/lib/provenance.sh
. "${BASH_SOURCE[0]%/*}/lib/provenance.sh"
# shellcheck source=harness/lib/lock.sh
. "${BASH_SOURCE[0]%/*}/lib/lock.sh"
# shellcheck source=harness/lib/progress.sh
. "${BASH_SOURCE[0]%/*}/lib/progress.sh"
# shellcheck source=harness/lib/session.sh
. "${BASH_SOURCE[0]%/*}/lib/session.sh"
# shellcheck source=harness/lib/summary.sh
. "${BASH_SOURCE[0]%/*}/lib/summary.sh"
# shellcheck source=harness/lib/sweep.sh
. "${BASH_SOURCE[0]%/*}/lib/sweep.sh"
# shellcheck source=harness/lib/results.sh
. "${BASH_SOURCE[0]%/*}/lib/results.sh"
# shellcheck source=harness/lib/offset.sh
. "${BASH_SOURCE[0]%/*}/lib/offset.sh"
