/*
 * bench.c -- membench: honest memory bandwidth and latency in one file.
 *
 * Build anywhere with a bare compiler:
 *     cc -O3 -fopenmp bench.c -o bench        (OpenMP, recommended)
 *     cc -O2 bench.c -o bench                 (serial)
 * C99 plus POSIX; OpenMP only under _OPENMP; Linux-only parts (smaps,
 * MAP_HUGETLB, sched_getcpu) compile out elsewhere.  On Windows (mingw-w64)
 * the Win32 API stands in for POSIX's clock, mappings, affinity and
 * system facts; what it has no counterpart for is reported as missing.
 *
 * The bandwidth program keeps the kernels, byte counts, validation and
 * text of John McCalpin's STREAM 5.10, so scripts that parse STREAM keep
 * working; the latency program prints lat_mem_rd's curve.
 *
 * Map.  Sections run in dependency order: each uses only what is above it.
 *   The shared base
 *      1 Knobs            every default a user may change, as -D macros
 *      2 Platform shims   one small function per OS or CPU feature; the
 *                         machine's shape (packages, cores, SMT, nodes)
 *      3 Errors           die() and the run's list of warnings
 *      4 Options          the kernels' table, the flags' table, --help
 *      5 Allocation       the plan (sizes, limits, huge pages), regions, pages
 *      6 Timing           the clock, medians, ln and exp without libm
 *      7 Threads          how many, where they run, who decided
 *      8 Provenance       what was built, on what machine
 *      9 Output           the JSON writer, the key/value sink, shared blocks
 *   The bandwidth program (bench stream)
 *     10 Kernels          STREAM's four and Read, Write; plain and streaming
 *     11 Validation       STREAM's replay and compare
 *     12 Report           text (STREAM's layout) and JSON from one result
 *     13 The mode         plan, allocate, measure, report
 *   The latency program (bench latency)
 *     14 Chains           the random, stride and page orders
 *     15 Kernels          the dependent-load chases and the clock yardstick
 *     16 Timing           windows, stability, the core clock
 *     17 Analysis         plateaus, levels, the cache-size fit
 *     18 Load and MLP     latency under load, memory-level parallelism
 *     19 Report           lat_mem_rd's curve, '#' summary lines, JSON
 *     20 The mode         plan, allocate, sweep, report; --curve-in
 *   The core-to-core program (bench c2c)
 *     21 Core             the CPUs, the ping-pong, the matrix, its report
 *   The node matrices (bench nodes)
 *     22 Nodes            rows, columns, binding, the cells, their report
 *   The cluster layer (bench-mpi, built with -DBENCH_MPI; else absent)
 *     23 Cluster          nodes, barriers, the report's figures, its tables
 *   The memory hierarchy (bench hierarchy)
 *    23b Hierarchy        each level's bandwidth beside its latency
 *   24 Entry: info, all, --plan, main
 */
#if defined(__linux__) || defined(__GLIBC__) || defined(__CYGWIN__)
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/stat.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#define NOMINMAX
#include <windows.h>
#else
#include <sys/mman.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/utsname.h>
#include <sys/resource.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __linux__
#include <dirent.h>
#include <sched.h>
#include <sys/syscall.h>
#endif
#ifdef BENCH_MPI
#include <mpi.h>
#endif

/* ======================================================================
 * 1 Knobs.  Every default a user may want to change, overridable with
 * -D; most also with a flag (named in brackets).  Names and defaults of
 * the first four follow STREAM.
 * ====================================================================== */

/* -- Bandwidth -------------------------------------------------------- */

/* Elements per array [-s]; also the size of the static arrays. */
#ifndef STREAM_ARRAY_SIZE
#define STREAM_ARRAY_SIZE 10000000
#endif
/* Timed repetitions per kernel, the first discarded [-n]. */
#ifndef NTIMES
#define NTIMES 10
#endif
#if NTIMES <= 1
#undef NTIMES
#define NTIMES 10
#endif
/* Elements between the arrays' starts, as in STREAM [--offset]. */
#ifndef OFFSET
#define OFFSET 0
#endif
/* Element type: double or float; one token, like STREAM. */
#ifndef STREAM_TYPE
#define STREAM_TYPE double
#endif
/* Stores of the written array [--stores]: 0 plain, as STREAM; 1
 * non-temporal (streaming); 2 auto: calibration passes time every method
 * (plain and streaming at each instruction set, memcpy for Copy) per
 * kernel and keep the fastest.  The instruction set is [--isa, BENCH_ISA].
 * Plain is the default: measured here, streaming stores raise Scale, Add
 * and Triad by about 30% but widen the run-to-run spread 3-4 fold. */
#ifndef STREAMING_STORES
#define STREAMING_STORES 0
#endif
#if STREAMING_STORES < 0 || STREAMING_STORES > 2
#error "STREAMING_STORES must be 0 (plain), 1 (streaming) or 2 (auto)"
#endif
/* Passes of the kernel sequence that --stores auto (and --best) spends
 * choosing; each pass times every candidate method of each kernel once,
 * in ABBA order over the passes, and validation replays them. */
#ifndef BENCH_CAL_PASSES
#define BENCH_CAL_PASSES 2
#endif
/* Kernels run by default [--kernels]: "stream" is STREAM's four. */
#ifndef BENCH_KERNELS
#define BENCH_KERNELS "stream"
#endif
/* Allocation of the bandwidth arrays [--alloc], see alloc_names[].  thp:
 * measured here, 2 MiB pages lift Copy by a few per cent and never hurt;
 * where THP is off the page report says so. */
#ifndef BENCH_ALLOC
#define BENCH_ALLOC "thp"
#endif
/* Bytes between consecutive dynamic arrays [--stagger]: whole 4 KiB
 * pages keep every kernel's destination at its sources' offset in the
 * page, which no CPU's 4K aliasing reaches (the layout rule, section
 * 5).  The old 4160 put c 128 bytes ahead of a: Copy 0.3x on an AMD
 * Zen 3 guest, 4% faster on the Intel guest, model 167. */
#ifndef BENCH_STAGGER
#define BENCH_STAGGER 4096
#endif
/* 1: pin the OpenMP threads when the user set no OpenMP binding of their
 * own [--bind auto|none]: one a core, spread over every package before
 * any core gets a second on an SMT sibling, as OMP_PROC_BIND=spread
 * OMP_PLACES=cores (section 7); thread i on the i-th allowed CPU where
 * the OS does not say which CPUs are cores of which package. */
#ifndef BENCH_BIND
#define BENCH_BIND 1
#endif
/* STREAM's sizing rule: each array at least this many times the
 * last-level cache (--size auto, and the warning when it is broken). */
#ifndef BENCH_LLC_FACTOR
#define BENCH_LLC_FACTOR 4
#endif
/* Under a cgroup memory limit (a Slurm job's --mem, a container's
 * --memory) every size bench chooses, and every size it accepts, leaves
 * this many MiB plus 1/BENCH_HEADROOM_SHARE of the limit for bench
 * itself: its code and libraries (about 6 MiB), the threads' stacks,
 * page tables and what else the cgroup charges.  Measured here: 8.5 MiB
 * resident for a run of 2.4 MiB of arrays. */
#ifndef BENCH_HEADROOM_MIB
#define BENCH_HEADROOM_MIB 32
#endif
#ifndef BENCH_HEADROOM_SHARE
#define BENCH_HEADROOM_SHARE 64
#endif
/* The build line, passed in by the Makefile; "unknown" for a hand build. */
#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown"
#endif
/* 1 drops the .bss arrays (then --alloc static is unavailable). */
#ifndef BENCH_NO_STATIC
#define BENCH_NO_STATIC 0
#endif
/* Test-only: damage done after the timed repetitions, which validation
 * must find: 1 doubles one element of a[] (plus one); 2 moves one element
 * of a[] by a relative 1e-6; 3 moves Read's total of the last repetition
 * by a relative 1e-6, 4 Dot's; 5 takes back Nstream's last update of one
 * element of a[] (when Nstream ran). */
#ifndef BENCH_CORRUPT_TEST
#define BENCH_CORRUPT_TEST 0
#endif
/* Test-only: S > 0 records every kernel's first repetition (the warm-up,
 * which the statistics leave out) as S seconds for Copy, Add, Read, Dot
 * and Axpy and 1/S for Scale, Triad, Write, Nstream and Update, so a
 * statistic that counted it would be far off whichever way it looks. */
#ifndef BENCH_WARMUP_TEST
#define BENCH_WARMUP_TEST 0
#endif
/* Test-only: the loaded-latency load threads count bytes they did not
 * move: 1 skips their reads, 2 their writes.  The loaded test's own
 * check (section 18) must refuse to report such a row. */
#ifndef BENCH_LOAD_TEST
#define BENCH_LOAD_TEST 0
#endif

/* -- Cluster (bench-mpi only: -DBENCH_MPI) ------------------------------ */

#ifdef BENCH_MPI
/* Nodes more than this many per cent below the median are flagged
 * [--outlier]. */
#ifndef BENCH_OUTLIER_PCT
#define BENCH_OUTLIER_PCT 5
#endif
/* Seconds a collective step may wait for the other ranks before the
 * run ends naming the step [--cluster-timeout]; 0: no limit. */
#ifndef BENCH_CLUSTER_TIMEOUT
#define BENCH_CLUSTER_TIMEOUT 600
#endif
#endif

/* -- Latency: the sweep ----------------------------------------------- */

/* Sizes [--min, --max, --steps-per-octave]: from lat_mem_rd's first
 * size, so lmbench's summary scripts find their 1 KiB and 128 KiB points
 * (whole octaves are exact); eight steps per octave is about lat_mem_rd's
 * density above 32 KiB. */
#ifndef LAT_MIN_BYTES
#define LAT_MIN_BYTES 512
#endif
#ifndef LAT_MAX_BYTES
#define LAT_MAX_BYTES (256ULL << 20)
#endif
#ifndef LAT_STEPS_PER_OCTAVE
#define LAT_STEPS_PER_OCTAVE 8
#endif
/* Chase order [--pattern]: random, stride or page. */
#ifndef LAT_PATTERN
#define LAT_PATTERN "random"
#endif
/* Allocation of the chase buffer [--alloc]: base pages, as lat_mem_rd
 * gets them, so the curve includes the TLB misses users compare
 * against; --alloc thp|hugetlb shows the huge page effect. */
#ifndef LAT_ALLOC
#define LAT_ALLOC "mmap"
#endif
/* Seed of the chase orders: fixed, so runs differ only by the machine. */
#ifndef LAT_SEED
#define LAT_SEED 0x6d656d62656e6368ULL
#endif
/* A probe's chain up to this many lines is walked once more to prove
 * what the probe promises (a line a page; each window left once). */
#ifndef LAT_CHECK_LINES
#define LAT_CHECK_LINES 65536
#endif
/* Every chain is checked as it is built (lat_chain_check): one cycle
 * through each of its lines, and, for an order that claims to be
 * random, how often a load's successor is a neighbouring line, lies in
 * the same base page, or repeats the step before it.  Each count X is
 * held to mu + L + sqrt(L^2 + 4 L mu), mu its mean under the claimed
 * order and L = LAT_ORDER_LOG_P: that solves t^2 / (4 mu + 2 t) = L,
 * and Chatterjee's bound for such counts over a uniformly random
 * permutation, P(X - mu >= t) <= exp(-t^2 / (4 mu + 2 t)), makes a
 * random order fail it about once in e^30 (1e13) chains.  mu is 2 for
 * neighbours and below 1.01 for repeated steps in a random cycle of
 * 200 lines or more (bound 66 and 63), 63 for lines of one 4 KiB page
 * at 64-byte lines (bound 185); a chain in address order counts one
 * neighbour a line, one random only within each page 63 same-page steps
 * in 64.  The walk follows LAT_CHECK_SEGMENTS stretches of the cycle at
 * once, so that it costs a fraction of one chase's pass. */
#ifndef LAT_ORDER_LOG_P
#define LAT_ORDER_LOG_P 30
#endif
#ifndef LAT_CHECK_SEGMENTS
#define LAT_CHECK_SEGMENTS 16
#endif
#ifndef LAT_CHECK_BATCH
#define LAT_CHECK_BATCH 64
#endif
/* The probes beside a random sweep, which measure caches and TLBs
 * apart (Calibrator's idea; the window is multichase's -T).  The
 * TLB-local chase walks windows of LAT_LOCAL_PAGES base pages in random
 * order and each window's lines in random order, so the TLB holds the
 * window while the caches see the whole footprint: its curve names the
 * caches and memory's own latency.  The line-a-page chase visits one
 * line in each of N pages, from LAT_TLB_FIRST_PAGES up to the buffer's
 * pages (it needs LAT_TLB_MIN_PAGES), so its lines fit the caches while
 * its pages outgrow each TLB: what it takes beyond the TLB-local chase
 * over as many lines is the TLBs'.  Where no probe ran (a stored curve,
 * another pattern), a cache edge between LAT_TLB_MIN_ENTRIES and
 * LAT_TLB_MAX_ENTRIES pages (widened by LAT_SIZE_AGREE) could be a
 * TLB's reach (L1 DTLBs hold 32-96 entries, second-level TLBs 1024-4096
 * on the CPUs in tests/fixtures/latency), and is not certain. */
/* The window is half the smallest L1 DTLB (64 entries, 4 KiB pages) of
 * the machines in tests/recordings.  A window as large as the L1 DTLB
 * is no TLB-local span: with the stack's and code's pages beside it, the
 * TLB misses in page after page, and on the AMD Zen 3 guest a 64-page
 * window read 9-14 ns over the L2 where the full random chase read
 * 4.5-8 (docs/latency.md).  A run (or a record) whose window is more
 * than half the L1 TLB it measured says its memory is not TLB-local. */
#ifndef LAT_LOCAL_PAGES
#define LAT_LOCAL_PAGES 32
#endif
/* Above one window the TLB-local chase times every other size of the
 * sweep (when the sweep takes more than four steps an octave, so still
 * the line-a-page chase's density), always the first above the window
 * and the last LAT_TAIL_PTS (memory's own latency), then each size it
 * skipped whose two neighbours read more than LAT_LOCAL_FILL times
 * apart.  A random chase reads no faster on more lines, so a skipped
 * size lies between neighbours that agree (within a flat stretch's
 * LAT_PLATEAU_TOL): a flat stretch costs half, and an edge keeps every
 * size of the sweep. */
#ifndef LAT_LOCAL_FILL
#define LAT_LOCAL_FILL 1.1
#endif
#ifndef LAT_TLB_FIRST_PAGES
#define LAT_TLB_FIRST_PAGES 16
#endif
#ifndef LAT_TLB_MIN_PAGES
#define LAT_TLB_MIN_PAGES 128
#endif
#ifndef LAT_TLB_MIN_ENTRIES
#define LAT_TLB_MIN_ENTRIES 32
#endif
#ifndef LAT_TLB_MAX_ENTRIES
#define LAT_TLB_MAX_ENTRIES 8192
#endif
/* A random chase reads no faster on more lines, so where a probe point
 * reads more than LAT_LEVEL_JUMP times slower than a larger one, one of
 * the two was disturbed from outside.  On the AMD EPYC KVM guest both
 * happen: a neighbour's burst read the TLB-local chase at 50-79 ns from
 * 13 to 19 MiB, then 17 ns at 21 MiB, and the summary named a certain
 * L4 at 39.7 MiB; and a chain that had just been built (writing every
 * line, taking the shared L3 from the neighbours for a while) read 36
 * ns at 22.6 MiB between points of 96 ns, too little for the probe
 * window to settle it (LAT_DRAM_MIN_NS).  So once the probes' points are
 * measured, every point on either side of such a fall is timed again,
 * settled first, and the new reading is kept, up to LAT_RETIME_PASSES
 * passes; a fall that outlives them is said, and the levels read across
 * it are not certain. */
#ifndef LAT_RETIME_PASSES
#define LAT_RETIME_PASSES 3
#endif
/* A run disturbed from outside for longer than the re-timings last: at
 * least LAT_DISTURBED_POINTS of the TLB-local chase's re-timed points
 * read more than LAT_DISTURBED_APART times from their first readings,
 * and its curve still falls by that much.  Of the 72 records in
 * tests/recordings, the four the Intel guest (family 6 model 167) took
 * while disturbed have 7-15 such points and falls of 1.44-1.92; every
 * clean one has at most 5, but for one of the AMD Zen 3 guest (7), whose
 * re-timings mended it: its curve falls 1.19 at most.  Every level whose
 * edge lies in the stretch, back to the start of the climb into it, is
 * not certain. */
#ifndef LAT_DISTURBED_POINTS
#define LAT_DISTURBED_POINTS 6
#endif
#ifndef LAT_DISTURBED_APART
#define LAT_DISTURBED_APART 1.3
#endif
/* Test only: a probe's chain broken on purpose, which the chain check
 * must refuse: 1, the line-a-page chase visits two lines a page; 2, the
 * TLB-local window is the whole buffer.  Or a disturbance of the
 * TLB-local chase's third-last point and the line-a-page chase's third,
 * their first timing read 4 times slow (3) or fast (5); 4, every timing
 * of the former read slow.  Or a random chain that is not: 6, in
 * address order; 7, pages in address order, each page's lines random;
 * 8, the TLB-local windows' lines in address order.  9: every TLB-local
 * timing beyond one window read 4 times slow, so that the full random
 * chase reads faster at memory.  tests/variants.bats builds it. */
#ifndef BENCH_PROBE_TEST
#define BENCH_PROBE_TEST 0
#endif

/* -- Latency: timing a point ------------------------------------------ */

/* A point is timed in windows of LAT_WINDOW_NS (long against the clock,
 * short against preemption) until LAT_STABLE_REPEATS windows agree
 * within LAT_STABLE_TOL, LAT_MAX_REPEATS windows ran, or LAT_POINT_CAP_NS
 * of chasing was spent; the minimum is reported. */
#ifndef LAT_WINDOW_NS
#define LAT_WINDOW_NS 2.0e6
#endif
#ifndef LAT_POINT_CAP_NS
#define LAT_POINT_CAP_NS 40.0e6
#endif
/* A point beyond the caches (its probe at least LAT_DRAM_MIN_NS) chases
 * untimed for LAT_SETTLE_NS first.  Building a chain writes every line
 * of it, and for some 20 ms after such a burst the memory system stays
 * in a faster state: on the AMD EPYC KVM guest this was written on,
 * 2 ms windows right after the build of a 256 MiB chain read 186, 195,
 * 197, 211 ... ns and settled at 250-275 ns after ten windows (after an
 * idle second they start slow instead: 401, 308 ... ns).  The minimum
 * of the first windows reported the burst (about 195 ns) as DRAM
 * latency; a sustained chase, and the loaded test's idle row, saw 260. */
#ifndef LAT_SETTLE_NS
#define LAT_SETTLE_NS 50.0e6
#endif
#ifndef LAT_STABLE_REPEATS
#define LAT_STABLE_REPEATS 3
#endif
#ifndef LAT_STABLE_TOL
#define LAT_STABLE_TOL 0.01
#endif
#ifndef LAT_MAX_REPEATS
#define LAT_MAX_REPEATS 64
#endif
/* Core clock: the best of add-chain runs of about LAT_CLOCK_RUN_NS (as
 * long as a point's windows, so both see the same turbo), once
 * LAT_CLOCK_TRIES of them were not preempted (LAT_CLOCK_CAP_NS at most);
 * a change beyond LAT_CLOCK_DRIFT by the end of the run is reported
 * [--mhz skips the estimate].  A run another task interrupted reads a
 * slow clock: counted, make check's busy guest read an L1 of 3.5
 * cycles where the AMD EPYC KVM guest has 4. */
#ifndef LAT_CLOCK_RUN_NS
#define LAT_CLOCK_RUN_NS 2.0e6
#endif
#ifndef LAT_CLOCK_CAP_NS
#define LAT_CLOCK_CAP_NS 2.0e8
#endif
#ifndef LAT_CLOCK_TRIES
#define LAT_CLOCK_TRIES 7
#endif
#ifndef LAT_CLOCK_DRIFT
#define LAT_CLOCK_DRIFT 0.03
#endif

/* -- Latency: reading the curve --------------------------------------- */

/* A flat stretch keeps within LAT_PLATEAU_TOL of its median and spans
 * LAT_PLATEAU_MIN_PTS points and LAT_PLATEAU_MIN_OCT octaves.  A cache
 * read at random may climb across its own size (TLB reach, farther
 * slices) and is still a level as a person reading the graph sees it:
 * between the flat stretches, a stretch of as many points and octaves
 * whose log-slope (per octave) is at most LAT_CLIMB_FRAC of the steepest
 * rise on each side of it is one too (the real curves read right from
 * 0.63 to 0.88 of it).  A stretch less than LAT_LEVEL_JUMP times
 * slower than the one before is a step (TLB reach, typically) inside the
 * same level.  So is a rise at the reach of a TLB that --tlb names, when
 * the level then leaves where the reported cache ends: the data still
 * fit in it, and what slows the chase is the TLB.  The other
 * way round, a rise less than LAT_LEVEL_JUMP where the next reported
 * cache ends (within LAT_SIZE_AGREE) is that cache's edge, and is not
 * one of memory's steps when the stretch before it is less than
 * LAT_DRAM_STEP above the cache below: a prefetched line-stride chase
 * squeezes L2, L3 and memory to within 1.3 times of each other, and
 * only the reported sizes tell them apart.  No fixed latency tells
 * memory from cache (an L3 can take 55 ns, a 1990s board cache 55 ns,
 * CXL memory 390 ns), so memory is where the curve ends: its last
 * stretch, with the stretches before it that are steps of it (each less
 * than LAT_DRAM_STEP times slower than the one before and all within
 * LAT_DRAM_SPAN of the last; page walks under 4 KiB pages rise about
 * 1.6 times).  That level is DRAM when the sweep reaches past every
 * cache the OS reports, when every reported cache was already seen
 * below it, or when it is at least LAT_DRAM_RATIO times the first level
 * (memory is 30 to 90 times L1d in the real curves of tests/fixtures/
 * latency; one cache there is 40 times, which is why a stored curve
 * should come with --caches).  A cache size agrees with the OS within a
 * factor LAT_SIZE_AGREE; past LAT_SIZE_AGREE times the largest reported
 * cache no cache holds the chase, so a curve that has left its last
 * stretch there ends in memory even if it still climbs (its figure is
 * then the median of its last LAT_PLATEAU_MIN_PTS points, and a note
 * says it was still rising).  A curve whose sizes are a median of
 * LAT_SPARSE_GAP octaves or more apart, or that has fewer than
 * LAT_SPARSE_MIN_PTS points, is too sparse to name levels. */
#ifndef LAT_PLATEAU_TOL
#define LAT_PLATEAU_TOL 0.10
#endif
#ifndef LAT_PLATEAU_MIN_PTS
#define LAT_PLATEAU_MIN_PTS 3
#endif
#ifndef LAT_PLATEAU_MIN_OCT
#define LAT_PLATEAU_MIN_OCT 0.4
#endif
#ifndef LAT_LEVEL_JUMP
#define LAT_LEVEL_JUMP 1.5
#endif
#ifndef LAT_CLIMB_FRAC
#define LAT_CLIMB_FRAC 0.75
#endif
#ifndef LAT_DRAM_STEP
#define LAT_DRAM_STEP 1.7
#endif
#ifndef LAT_DRAM_SPAN
#define LAT_DRAM_SPAN 2.5
#endif
#ifndef LAT_DRAM_RATIO
#define LAT_DRAM_RATIO 20.0
#endif
#ifndef LAT_SIZE_AGREE
#define LAT_SIZE_AGREE 2.0
#endif
#ifndef LAT_SPARSE_GAP
#define LAT_SPARSE_GAP 0.75
#endif
#ifndef LAT_SPARSE_MIN_PTS
#define LAT_SPARSE_MIN_PTS 6
#endif
/* The summary ends with the curve's tail: the median of its last
 * LAT_TAIL_PTS points, the latency at the largest sizes measured,
 * whatever the levels (memory that keeps climbing past its last stretch,
 * as 4 KiB pages outgrow the TLBs or far memory does, is quoted where it
 * ends, not from the stretch's median).  A median, not the last point,
 * because a sweep's single points can be wild (a preempted window, a
 * point at the cap); the last three, not the points of a fixed span,
 * because a curve one point an octave apart has one point in any short
 * span.  At bench's default eight steps an octave they lie within
 * LAT_TAIL_OCT octaves of the end and are labelled with the largest
 * size; points spread wider are labelled with the sizes they span. */
#ifndef LAT_TAIL_PTS
#define LAT_TAIL_PTS 3
#endif
#ifndef LAT_TAIL_OCT
#define LAT_TAIL_OCT 0.25
#endif
/* How sure the summary is of each level: the curve is read again
 * LAT_RESAMPLES times with its own point-to-point noise added afresh (each
 * point's log latency is the curve's smoothed value plus a residual drawn
 * at random from the curve's own residuals: a residual bootstrap, seeded
 * with a constant so that a curve always gets the same answer), and a
 * level is certain when at least LAT_CERTAIN of those readings name it
 * alike (the same name, its edge within LAT_SIZE_AGREE).  A level that
 * only the exact noise of this run produced, or that this noise could as
 * well have hidden, is marked uncertain instead of being stated as fact.
 * Curves of more than LAT_RESAMPLE_MAX_PTS points are not resampled. */
#ifndef LAT_RESAMPLES
#define LAT_RESAMPLES 32
#endif
#ifndef LAT_CERTAIN
#define LAT_CERTAIN 0.8
#endif
#ifndef LAT_RESAMPLE_MAX_PTS
#define LAT_RESAMPLE_MAX_PTS 4096
#endif
/* A probe at least this slow is beyond the caches of the machines this
 * was tuned on, and settles first (LAT_SETTLE_NS); only timing uses it. */
#ifndef LAT_DRAM_MIN_NS
#define LAT_DRAM_MIN_NS 40.0
#endif

/* -- Latency: under load ---------------------------------------------- */

/* [--load-threads] The load threads spin LAT_LOADED_DELAYS [--delays]
 * idle-loop turns after each LAT_LOAD_CHUNK bytes they move, swept from
 * heavy delay (light load) to none, once per read:write mix of
 * LAT_LOADED_RW [--rw]: 1:0 reads only, 2:1 reads two bytes for each
 * byte it writes, as STREAM's Add and Triad do.  Each mix starts with an
 * idle row, the chase alone, measured the same way.  Each level warms
 * for LAT_LOADED_WARM_NS and is timed for LAT_LOADED_NS in windows of
 * LAT_LOADED_WINDOW_NS.  Each load thread works on its own array of
 * max(--max, LAT_LOAD_MIN_BYTES). */
#ifndef LAT_LOADED_DELAYS
#define LAT_LOADED_DELAYS {100000, 20000, 5000, 2000, 1000, 500, 200, 100, 20, 0}
#endif
#ifndef LAT_LOADED_RW
#define LAT_LOADED_RW "1:0,2:1"
#endif
#ifndef LAT_LOAD_CHUNK
#define LAT_LOAD_CHUNK 16384
#endif
#ifndef LAT_LOADED_WARM_NS
#define LAT_LOADED_WARM_NS LAT_SETTLE_NS
#endif
#ifndef LAT_LOADED_NS
#define LAT_LOADED_NS 150.0e6
#endif
#ifndef LAT_LOADED_WINDOW_NS
#define LAT_LOADED_WINDOW_NS 0.2e6
#endif
#ifndef LAT_LOAD_MIN_BYTES
#define LAT_LOAD_MIN_BYTES (64u << 20)
#endif

/* -- Core to core (bench c2c) ------------------------------------------ */

/* Each pair of CPUs bounces its line for C2C_WARM_NS first, which also
 * sizes the windows, then for C2C_WINDOWS windows of about C2C_WINDOW_NS;
 * a cell is the minimum and the median of the windows.  An odd count
 * makes the median one window's figure. */
#ifndef C2C_WINDOWS
#define C2C_WINDOWS 31
#endif
#ifndef C2C_WINDOW_NS
#define C2C_WINDOW_NS 1.0e6
#endif
#ifndef C2C_WARM_NS
#define C2C_WARM_NS 20.0e6
#endif
#if C2C_WINDOWS < 1 || C2C_WINDOWS > 10000
#error "C2C_WINDOWS must be 1 to 10000"
#endif
/* Test-only: C2C_MOVE_TEST 1 moves each pair's answering thread onto the
 * pinging thread's CPU once both are pinned, so the pair runs elsewhere
 * than it names and must be marked; C2C_STRAY_TEST N makes the answering
 * thread write a number the protocol never writes as its Nth answer, which
 * the pinging thread must catch. */
#ifndef C2C_MOVE_TEST
#define C2C_MOVE_TEST 0
#endif
#ifndef C2C_STRAY_TEST
#define C2C_STRAY_TEST 0
#endif

/* -- Node matrices (bench nodes) -------------------------------------- */

/* Each cell's buffer [--buffer]: the larger of NODES_MIN_BYTES and
 * BENCH_LLC_FACTOR times all the reported last-level caches, so that it
 * lies well past every cache, but no more than a quarter of the free
 * memory of any node it is bound to (the bandwidth cell's three arrays,
 * and room to spare).  The latency cell chases one such buffer, the
 * bandwidth cell has three arrays of its size, as STREAM's. */
#ifndef NODES_MIN_BYTES
#define NODES_MIN_BYTES (256ULL << 20)
#endif
/* Allocation of the buffers [--alloc]: thp gives huge pages where THP is
 * on (each cell says what it got); mmap base pages. */
#ifndef NODES_ALLOC
#define NODES_ALLOC "thp"
#endif
/* The bandwidth matrices' kernels [--kernels]: read only, as MLC's. */
#ifndef NODES_KERNELS
#define NODES_KERNELS "read"
#endif
/* The matrices [--matrix]: latency, bandwidth or both. */
#ifndef NODES_MATRIX
#define NODES_MATRIX "both"
#endif
/* Test-only: NODES_MISPLACE_TEST 1 leaves the buffers unbound while
 * saying they were bound, so their pages land where the kernel's default
 * puts them and a cell of another node must be marked; NODES_MOVE_TEST 1
 * pins every thread to the allowed CPU after the one its cell names, so
 * the cell must be marked as run elsewhere. */
#ifndef NODES_MISPLACE_TEST
#define NODES_MISPLACE_TEST 0
#endif
#ifndef NODES_MOVE_TEST
#define NODES_MOVE_TEST 0
#endif

/* -- Fixed by this file (limits of its tables, not knobs) -------------- */

#define BENCH_VERSION "0.1.0"
#define JSON_SCHEMA "membench/1"
/* JSON numbers' digits: enough for any figure bench measures, and what
 * a record's reader (--curve-in) gets back */
#define JSON_NUM_FORMAT "%.9g"
#define HLINE "-------------------------------------------------------------\n"
#define CACHE_LINE 64        /* thread boundaries fall on its multiples */
#define MAX_THREADS 1024
#define MAX_WARNINGS 32
#define LAT_MAX_CHAINS 16    /* one generated chase function per count */
#define LAT_MAX_STRIDES 16
#define LAT_MAX_LEVELS 8
#define LAT_MAX_STEPS 4
#define LAT_MAX_NOTES 12
#define LAT_LOADED_MAX_WINDOWS 4096
#define LAT_MAX_DELAYS 32    /* --delays entries */
#define LAT_MAX_RW 8         /* --rw mixes */
#define LAT_MAX_RW_PART 8    /* largest R or W of one R:W */
#define MAX_REGIONS 64       /* lat_mem_rd -P: chase buffers at once */

#define XSTR_(x) #x
#define XSTR(x) XSTR_(x)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* STREAM_TYPE as a number the preprocessor can test (1 double, 2 float,
 * 0 other); -DBENCH_TYPEID=0 for a multi-token type such as long double. */
#define BENCH_TYPEID_double 1
#define BENCH_TYPEID_float 2
#ifndef BENCH_TYPEID
#define BENCH_TYPEID CAT(BENCH_TYPEID_, STREAM_TYPE)
#endif

typedef STREAM_TYPE elem_t;

/* ======================================================================
 * 2 Platform shims.  Each platform-specific feature sits behind one
 * small function with a portable fallback.
 * ====================================================================== */

/* Which vector ISA carries non-temporal stores in this build. */
#if (BENCH_TYPEID == 1 || BENCH_TYPEID == 2) && \
    (defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__))
#include <immintrin.h>
#define HAVE_NT 1
#if defined(__AVX512F__)
#define NT_ISA "avx512"
#elif defined(__AVX__)
#define NT_ISA "avx"
#else
#define NT_ISA "sse2"
#endif
#elif defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define HAVE_NT 1
#define NT_ISA "builtin"
#endif
#endif
#ifndef HAVE_NT
#define HAVE_NT 0
#define NT_ISA "none"
#endif

/* One vector of elements and its operations, so each kernel's streaming
 * variant is written once.  vstream needs an address aligned to VBYTES. */
#if HAVE_NT
#if defined(__AVX512F__) && BENCH_TYPEID == 1
typedef __m512d vec_t;
#define VN 8
#define vload _mm512_loadu_pd
#define vset1 _mm512_set1_pd
#define vadd _mm512_add_pd
#define vmul _mm512_mul_pd
#define vstream _mm512_stream_pd
#elif defined(__AVX512F__) && BENCH_TYPEID == 2
typedef __m512 vec_t;
#define VN 16
#define vload _mm512_loadu_ps
#define vset1 _mm512_set1_ps
#define vadd _mm512_add_ps
#define vmul _mm512_mul_ps
#define vstream _mm512_stream_ps
#elif defined(__AVX__) && BENCH_TYPEID == 1
typedef __m256d vec_t;
#define VN 4
#define vload _mm256_loadu_pd
#define vset1 _mm256_set1_pd
#define vadd _mm256_add_pd
#define vmul _mm256_mul_pd
#define vstream _mm256_stream_pd
#elif defined(__AVX__) && BENCH_TYPEID == 2
typedef __m256 vec_t;
#define VN 8
#define vload _mm256_loadu_ps
#define vset1 _mm256_set1_ps
#define vadd _mm256_add_ps
#define vmul _mm256_mul_ps
#define vstream _mm256_stream_ps
#elif defined(__SSE2__) && BENCH_TYPEID == 1
typedef __m128d vec_t;
#define VN 2
#define vload _mm_loadu_pd
#define vset1 _mm_set1_pd
#define vadd _mm_add_pd
#define vmul _mm_mul_pd
#define vstream _mm_stream_pd
#elif defined(__SSE2__) && BENCH_TYPEID == 2
typedef __m128 vec_t;
#define VN 4
#define vload _mm_loadu_ps
#define vset1 _mm_set1_ps
#define vadd _mm_add_ps
#define vmul _mm_mul_ps
#define vstream _mm_stream_ps
#endif
#endif
#ifdef VN
#define HAVE_VEC_NT 1
#define VBYTES (VN * sizeof(elem_t))
/* Streaming stores are weakly ordered: fence before other threads look. */
static void nt_fence(void) { _mm_sfence(); }
#else
#define HAVE_VEC_NT 0
#if HAVE_NT
/* The compiler's streaming stores are weakly ordered too. */
static void nt_fence(void) { __sync_synchronize(); }
#endif
#endif

/* What stores asked to stream (--stores nt or auto) really are at
 * level isa where it has no vector streaming store; NULL where it has
 * one.  Every dispatched level (an isa_level above generic) has. */
static const char *nt_fallback(int isa)
{
	if (isa != 0)
		return NULL;
#if HAVE_VEC_NT
	return NULL;
#elif HAVE_NT
	return "the compiler's __builtin_nontemporal_store, one element at a "
	       "time (no vector streaming store for this target; the compiler "
	       "may emit plain stores)";
#else
	return "plain stores (this target has no streaming store)";
#endif
}

/* The data cache line the OS passes in the auxiliary vector (PowerPC's
 * AT_DCACHEBSIZE; qemu-user passes it too), 0 where it passes none. */
#if defined(__linux__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 16))
#include <sys/auxv.h>
#define HAVE_GETAUXVAL 1
#endif
static int auxv_cache_line(void)
{
#if defined(HAVE_GETAUXVAL) && defined(AT_DCACHEBSIZE)
	unsigned long v = getauxval(AT_DCACHEBSIZE);
	return v >= 16 && v <= 4096 && (v & (v - 1)) == 0 ? (int)v : 0;
#else
	return 0;
#endif
}

/* Run-time instruction-set dispatch.  A plain `cc -O3 bench.c` targets
 * the oldest CPU of its architecture (SSE2 on x86-64), so gcc and clang
 * compile the bandwidth kernels once more per wider ISA with the target
 * attribute, and the CPU's own answer (cpuid, and whether the OS saves
 * the registers) decides which may run; run_isa() (section 4) decides
 * which a run uses.  Other compilers and targets run the generic
 * kernels only: the ones this build's flags produced. */
enum isa_level { ISA_GENERIC, ISA_SSE2, ISA_AVX2, ISA_AVX512, ISA_SVE, NISA };
/* What --isa and BENCH_ISA hold besides a level: auto (the widest this
 * CPU has), or neither given, which run_isa() (section 4) decides. */
enum { ISA_UNSET = -2, ISA_AUTO = -1 };
static const char *const isa_names[NISA] = {"generic", "sse2", "avx2", "avx512",
					    "sve"};

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__TINYC__) && \
    (defined(__clang__) || __GNUC__ >= 6) && \
    (BENCH_TYPEID == 1 || BENCH_TYPEID == 2)
#include <immintrin.h>
#define HAVE_X86_DISPATCH 1
#define ISA_TARGET(t) __attribute__((target(t)))
/* One vector width's operations for elem_t, named by width, so the
 * kernels for every width are written once (section 10). */
#if BENCH_TYPEID == 1
#define V128_N 2
#define V128_T __m128d
#define V256_T __m256d
#define V512_T __m512d
#define V128_LOAD _mm_loadu_pd
#define V128_SET1 _mm_set1_pd
#define V128_ADD _mm_add_pd
#define V128_MUL _mm_mul_pd
#define V128_STREAM _mm_stream_pd
#define V128_STORE _mm_storeu_pd
#define V256_N 4
#define V256_LOAD _mm256_loadu_pd
#define V256_SET1 _mm256_set1_pd
#define V256_ADD _mm256_add_pd
#define V256_MUL _mm256_mul_pd
#define V256_STREAM _mm256_stream_pd
#define V256_STORE _mm256_storeu_pd
#define V512_N 8
#define V512_LOAD _mm512_loadu_pd
#define V512_SET1 _mm512_set1_pd
#define V512_ADD _mm512_add_pd
#define V512_MUL _mm512_mul_pd
#define V512_STREAM _mm512_stream_pd
#define V512_STORE _mm512_storeu_pd
#else
#define V128_N 4
#define V128_T __m128
#define V256_T __m256
#define V512_T __m512
#define V128_LOAD _mm_loadu_ps
#define V128_SET1 _mm_set1_ps
#define V128_ADD _mm_add_ps
#define V128_MUL _mm_mul_ps
#define V128_STREAM _mm_stream_ps
#define V128_STORE _mm_storeu_ps
#define V256_N 8
#define V256_LOAD _mm256_loadu_ps
#define V256_SET1 _mm256_set1_ps
#define V256_ADD _mm256_add_ps
#define V256_MUL _mm256_mul_ps
#define V256_STREAM _mm256_stream_ps
#define V256_STORE _mm256_storeu_ps
#define V512_N 16
#define V512_LOAD _mm512_loadu_ps
#define V512_SET1 _mm512_set1_ps
#define V512_ADD _mm512_add_ps
#define V512_MUL _mm512_mul_ps
#define V512_STREAM _mm512_stream_ps
#define V512_STORE _mm512_storeu_ps
#endif
/* SUM_LOOP_N's partial sums at each width (section 10), in doubles, the
 * sums' type whatever elem_t is: 8 vectors, which keep two adds a cycle
 * busy, and SSE2 16, which measured faster than its 8 on the Intel
 * guest (family 6 model 167), the loop's overhead shared by more bytes;
 * 16 of AVX-512's were no faster than 8. */
#define V128_ACC_LANES 32
#define V256_ACC_LANES 32
#define V512_ACC_LANES 64
#else
#define HAVE_X86_DISPATCH 0
#endif

/* aarch64: SVE, whose vector length the CPU chooses (128 to 2048 bits),
 * beside the build's own code, which is NEON, the architecture's
 * baseline.  gcc compiles SVE code under a target pragma (section 10);
 * clang before 18 cannot include arm_sve.h unless the build enables SVE
 * for the whole program, so it dispatches only in such builds.  The
 * kernel says whether the CPU has SVE (HWCAP_SVE). */
#if defined(__aarch64__) && defined(HAVE_GETAUXVAL) && \
    defined(__GNUC__) && !defined(__TINYC__) && \
    (BENCH_TYPEID == 1 || BENCH_TYPEID == 2) && \
    (defined(__ARM_FEATURE_SVE) || (!defined(__clang__) && __GNUC__ >= 10))
#define HAVE_SVE_DISPATCH 1
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#else
#define HAVE_SVE_DISPATCH 0
#endif
#define HAVE_ISA_DISPATCH (HAVE_X86_DISPATCH || HAVE_SVE_DISPATCH)

/* Dispatch: the levels above generic this build may run, one line each:
 * the level, whether this CPU has it, the function that runs its kernels
 * (section 10) and its vector width in bits (SVE's is the CPU's).
 * Detection here, dispatch and the reported widths all read this table;
 * a new level is a line here, a name in isa_names[] and its kernels. */
#if HAVE_X86_DISPATCH
#define ISA_TABLE(X)                                                        \
	X(ISA_SSE2, __builtin_cpu_supports("sse2"), kernels_sse2, 128)       \
	X(ISA_AVX2, __builtin_cpu_supports("avx2"), kernels_avx2, 256)       \
	X(ISA_AVX512, __builtin_cpu_supports("avx512f"), kernels_avx512, 512)
#elif HAVE_SVE_DISPATCH
#define ISA_TABLE(X)                                                        \
	X(ISA_SVE, getauxval(AT_HWCAP) & HWCAP_SVE, kernels_sve, sve_bits())
#else
#define ISA_TABLE(X)
#endif

/* Whether this CPU may run a level's instructions: generic always; the
 * others only where this build can dispatch and the CPU has them.
 * MEMBENCH_CPU_LACKS (a comma list of levels) hides levels, so tests can
 * play a CPU without them; it can only take levels away. */
static int isa_supported(int level)
{
#if HAVE_ISA_DISPATCH
	const char *lacks = getenv("MEMBENCH_CPU_LACKS");
	size_t len = strlen(isa_names[level < NISA ? level : 0]);
	const char *p;
	for (p = lacks; level > ISA_GENERIC && p && *p; p = strchr(p, ',')) {
		p += *p == ',';
		if (strncmp(p, isa_names[level], len) == 0 &&
		    (p[len] == ',' || p[len] == '\0'))
			return 0;
	}
#endif
#if HAVE_X86_DISPATCH
	__builtin_cpu_init();
#endif
	switch (level) {
	case ISA_GENERIC: return 1;
#define ISA_DETECT(level, detect, kernels, bits)                            \
	case level: return (detect) != 0;
	ISA_TABLE(ISA_DETECT)
	default: return 0;
	}
}

/* The widest level this CPU may run, at most cap. */
static int isa_widest(int cap)
{
	int l = cap;
	while (l > ISA_GENERIC && !isa_supported(l))
		l--;
	return l;
}

/* The CPU the calling thread runs on, or -1 where the OS cannot say. */
static int current_cpu(void)
{
#if defined(__linux__) && defined(CPU_SETSIZE)
	return sched_getcpu();
#elif defined(_WIN32)
	return (int)GetCurrentProcessorNumber();
#else
	return -1;
#endif
}

/* Pin the calling thread to one CPU; 0 on success, -1 if unsupported. */
static int pin_to_cpu(int cpu)
{
#if defined(__linux__) && defined(CPU_SETSIZE)
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
#elif defined(_WIN32)
	/* one processor group: the first 64 CPUs */
	if (cpu < 0 || cpu >= (int)(sizeof(DWORD_PTR) * CHAR_BIT))
		return -1;
	return SetThreadAffinityMask(GetCurrentThread(),
				     (DWORD_PTR)1 << cpu) ? 0 : -1;
#else
	(void)cpu;
	return -1;
#endif
}

/* Let the calling thread run on any of cpus[0..n) again; 0, or -1
 * where that cannot be done. */
static int pin_to_cpus(const int *cpus, int n)
{
#if defined(__linux__) && defined(CPU_SETSIZE)
	cpu_set_t set;
	int i;
	CPU_ZERO(&set);
	for (i = 0; i < n; i++)
		if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
			CPU_SET(cpus[i], &set);
	return n > 0 ? sched_setaffinity(0, sizeof(set), &set) : -1;
#else
	(void)cpus;
	(void)n;
	return -1;
#endif
}
/* Whether pin_to_cpu() can pin a thread here; and whether this build
 * can run bench c2c, which needs two threads at once (OpenMP), loads and
 * stores with acquire and release order (the compiler's __atomic
 * builtins) and pinning.  Where it cannot, c2c is refused in one line. */
#if (defined(__linux__) && defined(CPU_SETSIZE)) || defined(_WIN32)
#define HAVE_PIN 1
#else
#define HAVE_PIN 0
#endif
#if defined(_OPENMP) && defined(__ATOMIC_ACQUIRE) && HAVE_PIN
#define HAVE_C2C 1
#else
#define HAVE_C2C 0
#endif

/* The CPUs this process may run on, in order; returns how many. */
static int allowed_cpus(int *cpus, int max)
{
	int n = 0;
#if defined(__linux__) && defined(CPU_SETSIZE)
	cpu_set_t set;
	int c;
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (c = 0; c < CPU_SETSIZE && n < max; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
		return n;
	}
#elif defined(_WIN32)
	DWORD_PTR mine, sys;
	int c;
	if (GetProcessAffinityMask(GetCurrentProcess(), &mine, &sys)) {
		for (c = 0; c < (int)(sizeof(mine) * CHAR_BIT) && n < max; c++)
			if (mine >> c & 1)
				cpus[n++] = c;
		return n;
	}
#endif
	(void)cpus;
	(void)max;
	return n;
}

/* The kernel's account of this process's mappings (Linux smaps), or
 * NULL where the OS keeps none: callers then report "unknown". */
static FILE *open_self_smaps(void)
{
#ifdef __linux__
	return fopen("/proc/self/smaps", "r");
#else
	return NULL;
#endif
}

/* A Linux pseudo-file (procfs, sysfs) opened for reading.  Windows has
 * none, and under wine a path such as /proc/cpuinfo would reach the
 * Linux host's: there every read fails, so callers report "unknown"
 * rather than the host's facts. */
static FILE *pseudo_open(const char *path)
{
#ifdef _WIN32
	(void)path;
	return NULL;
#else
	return fopen(path, "r");
#endif
}

/* The OS's base page, CPUs online and CPUs it can have. */
static long os_page_bytes(void)
{
#ifdef _WIN32
	SYSTEM_INFO si;
	GetSystemInfo(&si);
	return (long)si.dwPageSize;
#else
	return sysconf(_SC_PAGESIZE);
#endif
}

static long os_cpus_online(void)
{
#ifdef _WIN32
	return (long)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
#else
	return sysconf(_SC_NPROCESSORS_ONLN);
#endif
}

static long os_cpus_configured(void)
{
#ifdef _WIN32
	return (long)GetMaximumProcessorCount(ALL_PROCESSOR_GROUPS);
#else
	return sysconf(_SC_NPROCESSORS_CONF);
#endif
}

/* Anonymous zeroed memory straight from the OS (mmap, VirtualAlloc);
 * NULL on failure.  os_unmap gives it back. */
static void *os_map(size_t len)
{
#ifdef _WIN32
	return VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
#else
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
#endif
}

static void os_unmap(void *p, size_t len)
{
#ifdef _WIN32
	(void)len;
	VirtualFree(p, 0, MEM_RELEASE);
#else
	munmap(p, len);
#endif
}

/* Make the last page of a mapping from os_map inaccessible, so that the
 * kernel never merges the mapping with the next one: each array keeps a
 * mapping of its own, and smaps' figures for it (huge pages, resident
 * memory) are its own.  Nothing to do where there is no smaps. */
static void os_guard_last_page(void *map, size_t len)
{
#ifndef _WIN32
	mprotect((char *)map + len - 4096, 4096, PROT_NONE);
#else
	(void)map;
	(void)len;
#endif
}

/* Windows' large pages: only for a process that holds the "Lock pages
 * in memory" privilege (SeLockMemoryPrivilege), which must be enabled
 * in its token first.  Returns why not, or NULL when they may be used. */
#ifdef _WIN32
static const char *win_large_pages_refused(void)
{
	HANDLE tok;
	TOKEN_PRIVILEGES tp;
	DWORD err;
	if (GetLargePageMinimum() == 0)
		return "this Windows offers no large pages";
	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &tok))
		return "cannot open this process's token to enable "
		       "SeLockMemoryPrivilege";
	tp.PrivilegeCount = 1;
	tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
	if (!LookupPrivilegeValueA(NULL, "SeLockMemoryPrivilege",
				   &tp.Privileges[0].Luid) ||
	    !AdjustTokenPrivileges(tok, FALSE, &tp, 0, NULL, NULL)) {
		CloseHandle(tok);
		return "SeLockMemoryPrivilege could not be enabled";
	}
	err = GetLastError();
	CloseHandle(tok);
	if (err == ERROR_NOT_ALL_ASSIGNED)
		return "this account lacks the 'Lock pages in memory' privilege "
		       "(SeLockMemoryPrivilege) that large pages need";
	return NULL;
}
#endif

/* The kernel's code for a huge page of `page` bytes in mmap's and
 * shmget's flags: log2 of the size at bit 26 (MAP_HUGE_SHIFT,
 * SHM_HUGE_SHIFT, Linux 3.8); 0 asks for the default size. */
#ifndef _WIN32
#define HUGE_SIZE_SHIFT 26
static int huge_size_flag(size_t page)
{
	int lg = 0;
	while (page > 1) {
		page >>= 1;
		lg++;
	}
	return lg << HUGE_SIZE_SHIFT;
}
#endif

/* Memory on the OS's huge pages (MAP_HUGETLB; Windows' MEM_LARGE_PAGES)
 * of `page` bytes, or the default size for 0; NULL where it cannot give
 * them. */
static void *os_map_huge(size_t len, size_t page)
{
#if defined(_WIN32)
	(void)page;
	if (win_large_pages_refused())
		return NULL;
	return VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES,
			    PAGE_READWRITE);
#elif defined(MAP_HUGETLB)
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
		       (page ? huge_size_flag(page) : 0), -1, 0);
	return p == MAP_FAILED ? NULL : p;
#else
	(void)len;
	(void)page;
	return NULL;
#endif
}

/* Page-aligned heap memory (posix_memalign; _aligned_malloc on
 * Windows, whose free differs). */
static void *os_aligned_alloc(size_t len)
{
#ifdef _WIN32
	return _aligned_malloc(len, 4096);
#else
	void *p = NULL;
	return posix_memalign(&p, 4096, len) == 0 ? p : NULL;
#endif
}

static void os_aligned_free(void *p)
{
#ifdef _WIN32
	_aligned_free(p);
#else
	free(p);
#endif
}

/* System V shared memory, marked for removal at once: the segment then
 * disappears when we detach or die, whatever the exit path; on huge
 * pages of `page` bytes (SHM_HUGETLB) unless page is 0.  NULL where the
 * OS has none (Windows). */
#ifndef SHM_HUGETLB
#define SHM_HUGETLB 04000
#endif
static void *os_shm_alloc(size_t len, size_t page)
{
#ifdef _WIN32
	(void)len;
	(void)page;
	return NULL;
#else
	int id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600 |
			(page ? SHM_HUGETLB | huge_size_flag(page) : 0));
	void *p;
	if (id < 0)
		return NULL;
	p = shmat(id, NULL, 0);
	shmctl(id, IPC_RMID, NULL);
	return p == (void *)-1 ? NULL : p;
#endif
}

static void os_shm_free(void *p)
{
#ifdef _WIN32
	(void)p;
#else
	shmdt(p);
#endif
}

/* Paths of the kernel's pseudo-files, redirectable for tests. */
static const char *sysfs_root(void)
{
	const char *s = getenv("MEMBENCH_SYSFS");
	return s && *s ? s : "/sys";
}

static const char *procfs_root(void)
{
	const char *s = getenv("MEMBENCH_PROCFS");
	return s && *s ? s : "/proc";
}

/* First line of a file, trailing whitespace removed; 0 if readable. */
static int read_first_line(const char *path, char *buf, size_t len)
{
	FILE *f = pseudo_open(path);
	size_t n;
	if (!f)
		return -1;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

/* Whether word w appears in the space-separated list s. */
static int has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	const char *p;
	for (p = s; (p = strstr(p, w)) != NULL; p += n)
		if ((p == s || isspace((unsigned char)p[-1])) &&
		    (p[n] == '\0' || isspace((unsigned char)p[n])))
			return 1;
	return 0;
}

/* A "Key: value kB" field of /proc/meminfo in KiB (or plain count). */
static long long meminfo_value(const char *key)
{
	char path[512], line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f;
	snprintf(path, sizeof(path), "%s/meminfo", procfs_root());
	f = pseudo_open(path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			v = strtoll(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The most bytes one run may map in all: half of what a pointer can
 * address.  No array may be larger than PTRDIFF_MAX, and a 32-bit
 * process gets 2 to 4 GiB of user space, part of it taken by the
 * program, its stack and libraries; 2 GiB leaves that room.  On a
 * 64-bit build it is far beyond any physical memory. */
static unsigned long long address_space_bytes(void)
{
	return (unsigned long long)(SIZE_MAX / 2);
}

static unsigned long long physical_memory(void)
{
#ifdef _WIN32
	MEMORYSTATUSEX ms;
	ms.dwLength = sizeof(ms);
	return GlobalMemoryStatusEx(&ms) ? (unsigned long long)ms.ullTotalPhys : 0;
#else
	long pages = sysconf(_SC_PHYS_PAGES);
	long psz = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psz <= 0)
		return 0;
	return (unsigned long long)pages * (unsigned long long)psz;
#endif
}


/* -- The box: the cgroup limits this process runs under ----------------
 * A Slurm job, a container or a systemd unit caps memory and CPU time
 * through the process's cgroup, and the machine's totals are then not
 * what bench may use: a run sized from them meets the OOM killer, and
 * one thread a CPU under a quota of half a CPU is throttled in turn.
 * os_box_limits() reads, for this process's cgroup and each parent up
 * to the top of the mount (a parent's limit binds too), cgroup v2's
 * memory.max, memory.high and cpu.max, or v1's memory.limit_in_bytes and
 * cpu.cfs_quota_us over cpu.cfs_period_us, and keeps the smallest of
 * each.  The mounts come from /proc/self/mountinfo; MEMBENCH_CGROUP,
 * for tests, is a directory put before every mount point it names.
 * What could not be read is said, and counts as no limit.  Where the OS
 * has no cgroups, there are no limits. */
#define BOX_TEXT 256
struct box_limits {
	unsigned long long mem;     /* bytes; 0: no limit */
	char mem_source[BOX_TEXT];  /* "cgroup v2 memory.max of /a/b" */
	double cpus;                /* CPUs of time a period; 0: no quota */
	char cpu_source[BOX_TEXT];
	char unread[BOX_TEXT];      /* what could not be read; "" nothing */
};

/* v1 writes "no limit" as the largest page count it keeps, about 2^63:
 * anything from 2^62 up is no limit. */
#define BOX_UNLIMITED (1ULL << 62)

#ifdef __linux__
static void box_unread(struct box_limits *b, const char *what)
{
	size_t n = strlen(b->unread), w = strlen(what);
	if (n && n + 2 < sizeof(b->unread)) {
		memcpy(b->unread + n, "; ", 3);
		n += 2;
	}
	if (n + w >= sizeof(b->unread))
		w = sizeof(b->unread) - n - 1;
	memcpy(b->unread + n, what, w);
	b->unread[n + w] = '\0';
}

/* A whole unsigned decimal, or "max" (*v = 0); -1 malformed. */
static int box_number(const char *s, unsigned long long *v)
{
	char *end;
	if (strcmp(s, "max") == 0) {
		*v = 0;
		return 0;
	}
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Reads dir/name into line: 1 read, 0 absent (that cgroup sets
 * nothing), -1 there but unreadable (said in b->unread). */
static int box_file(struct box_limits *b, const char *dir, const char *name,
		    char *line, size_t len)
{
	char path[4096 + 64], what[BOX_TEXT];
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
		box_unread(b, "a cgroup path too long to read");
		return -1; /* a truncated path is never read */
	}
	if (read_first_line(path, line, len) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	snprintf(what, sizeof(what), "%s (%s)", name, strerror(errno));
	box_unread(b, what);
	return -1;
}

/* The memory limits of one cgroup (dir; rel, its name, for the source). */
static void box_memory_at(struct box_limits *b, const char *dir,
			  const char *rel, int v2)
{
	static const char *const v2_files[] = {"memory.max", "memory.high"};
	char line[128], what[BOX_TEXT];
	size_t i, n = v2 ? 2 : 1;
	for (i = 0; i < n; i++) {
		const char *name = v2 ? v2_files[i] : "memory.limit_in_bytes";
		unsigned long long v;
		if (box_file(b, dir, name, line, sizeof(line)) <= 0)
			continue;
		if (box_number(line, &v) != 0 || (v == 0 && !v2)) {
			snprintf(what, sizeof(what), "%s of %.180s is not a size",
				 name, rel);
			box_unread(b, what);
			continue;
		}
		if (v == 0 || v >= BOX_UNLIMITED || (b->mem && v >= b->mem))
			continue;
		b->mem = v;
		snprintf(b->mem_source, sizeof(b->mem_source), "cgroup v%d %s "
			 "of %.180s", v2 ? 2 : 1, name, rel);
	}
}

/* The CPU quota of one cgroup. */
static void box_cpu_at(struct box_limits *b, const char *dir, const char *rel,
		       int v2)
{
	char line[128], quota[64] = "", period[64] = "", what[BOX_TEXT];
	unsigned long long q, p;
	double cpus;
	if (v2) {
		if (box_file(b, dir, "cpu.max", line, sizeof(line)) <= 0)
			return;
		if (sscanf(line, "%63s %63s", quota, period) < 1)
			quota[0] = '\0';
		if (!period[0])
			strcpy(period, "100000");
	} else {
		if (box_file(b, dir, "cpu.cfs_quota_us", quota, sizeof(quota)) <= 0)
			return;
		if (strcmp(quota, "-1") == 0)
			return;
		if (box_file(b, dir, "cpu.cfs_period_us", period,
			     sizeof(period)) <= 0)
			return;
	}
	if (box_number(quota, &q) != 0 || box_number(period, &p) != 0 ||
	    p == 0 || (q == 0 && strcmp(quota, "max") != 0)) {
		snprintf(what, sizeof(what), "%s of %.180s is not a quota",
			 v2 ? "cpu.max" : "cpu.cfs_quota_us", rel);
		box_unread(b, what);
		return;
	}
	if (q == 0)
		return; /* "max": no quota */
	cpus = (double)q / (double)p;
	if (b->cpus > 0 && cpus >= b->cpus)
		return;
	b->cpus = cpus;
	snprintf(b->cpu_source, sizeof(b->cpu_source), "cgroup v%d %s of %.180s",
		 v2 ? 2 : 1, v2 ? "cpu.max" : "cpu.cfs_quota_us/cpu.cfs_period_us",
		 rel);
}

/* mountinfo writes a space as \040 and so on: decoded in place. */
static void box_unescape(char *s)
{
	char *d = s;
	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 4;
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

/* Whether the comma list has the word. */
static int box_has(const char *list, const char *word)
{
	size_t n = strlen(word);
	while (list && *list) {
		if (strncmp(list, word, n) == 0 && (list[n] == ',' || !list[n]))
			return 1;
		list = strchr(list, ',');
		if (list)
			list++;
	}
	return 0;
}

/* The mount of controller (v2: any cgroup2 mount): its point (with the
 * test prefix) and its root inside the hierarchy; 0 when found. */
static int box_mount(const char *controller, int v2, char *point,
		     size_t plen, char *root, size_t rlen)
{
	char path[512], line[4096];
	const char *pre = getenv("MEMBENCH_CGROUP");
	int found = -1;
	FILE *f;
	snprintf(path, sizeof(path), "%s/self/mountinfo", procfs_root());
	if (!(f = pseudo_open(path)))
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		char r[2048], mp[2048], *dash = strstr(line, " - ");
		char fstype[64], src[512], opts[1024];
		if (!dash || sscanf(line, "%*s %*s %*s %2047s %2047s", r, mp) != 2 ||
		    sscanf(dash + 3, "%63s %511s %1023s", fstype, src, opts) != 3)
			continue;
		if (v2 ? strcmp(fstype, "cgroup2") != 0
		       : strcmp(fstype, "cgroup") != 0 || !box_has(opts, controller))
			continue;
		box_unescape(r);
		box_unescape(mp);
		snprintf(point, plen, "%s%s", pre ? pre : "", mp);
		snprintf(root, rlen, "%s", r);
		found = 0;
	}
	fclose(f);
	return found;
}

/* One controller: its line of /proc/self/cgroup, its mount, then each
 * cgroup from this process's up to the mount's top. */
static void box_controller(struct box_limits *b, const char *controller,
			   const char *cgfile)
{
	char line[4096], point[2048], root[2048], dir[2048 + 4096];
	char rel[4096] = "", found[4096] = "";
	int v2 = 0, have = 0;
	const char *p = cgfile;
	/* "id:controllers:path" lines; v2's is "0::path" */
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *c1, *c2;
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = '\0';
		p = nl ? nl + 1 : NULL;
		if (!(c1 = strchr(line, ':')) || !(c2 = strchr(c1 + 1, ':')))
			continue;
		*c2 = '\0';
		if (box_has(c1 + 1, controller) && !have) {
			snprintf(found, sizeof(found), "%s", c2 + 1);
			have = 1;
			v2 = 0;
		} else if (!c1[1] && strcmp(line, "0:") == 0 && !have) {
			snprintf(found, sizeof(found), "%s", c2 + 1);
			v2 = 1;
		}
	}
	if (!found[0])
		return; /* neither hierarchy has this process */
	if (box_mount(controller, v2, point, sizeof(point), root,
		      sizeof(root)) != 0) {
		snprintf(line, sizeof(line), "the %s controller's cgroup fs "
			 "is not mounted", controller);
		box_unread(b, line);
		return;
	}
	/* inside a cgroup namespace the path may not start with the
	 * mount's root: then the mount's top is the process's cgroup */
	if (strcmp(root, "/") == 0)
		snprintf(rel, sizeof(rel), "%s", found);
	else if (strncmp(found, root, strlen(root)) == 0 &&
		 (found[strlen(root)] == '/' || !found[strlen(root)]))
		snprintf(rel, sizeof(rel), "%s", found + strlen(root));
	if (!rel[0])
		strcpy(rel, "/");
	if (strstr(rel, "/..") || strchr(rel, '\n')) {
		box_unread(b, "/proc/self/cgroup names a path with '..'");
		return;
	}
	for (;;) {
		char *slash;
		if (snprintf(dir, sizeof(dir), "%s%s", point,
			     strcmp(rel, "/") == 0 ? "" : rel) >= (int)sizeof(dir)) {
			box_unread(b, "a cgroup path too long to read");
			return;
		}
		if (strcmp(controller, "memory") == 0)
			box_memory_at(b, dir, rel, v2);
		else
			box_cpu_at(b, dir, rel, v2);
		if (strcmp(rel, "/") == 0)
			break;
		slash = strrchr(rel, '/');
		if (slash == rel)
			rel[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			break;
	}
}
#endif

/* The limits, read once (later calls give the same). */
static const struct box_limits *os_box_limits(void)
{
	static struct box_limits b;
	static int done;
#ifdef __linux__
	char path[512], cg[8192];
	FILE *f;
	size_t n;
#endif
	if (done)
		return &b;
	done = 1;
#ifdef __linux__
	snprintf(path, sizeof(path), "%s/self/cgroup", procfs_root());
	if (!(f = pseudo_open(path))) {
		if (errno != ENOENT)
			box_unread(&b, "/proc/self/cgroup");
		return &b;
	}
	n = fread(cg, 1, sizeof(cg) - 1, f);
	cg[n] = '\0';
	fclose(f);
	box_controller(&b, "memory", cg);
	box_controller(&b, "cpu", cg);
#endif
	return &b;
}
/* What a run may allocate in all under the memory limit: the limit less
 * the headroom; ULLONG_MAX where there is no limit. */
static unsigned long long box_room(void)
{
	const struct box_limits *b = os_box_limits();
	unsigned long long head;
	if (!b->mem)
		return ULLONG_MAX;
	head = ((unsigned long long)BENCH_HEADROOM_MIB << 20) +
	       b->mem / BENCH_HEADROOM_SHARE;
	return b->mem > head ? b->mem - head : 0;
}

/* The CPUs the quota gives, rounded up (0: no quota), as Go's
 * GOMAXPROCS and the JVM's processor count follow it. */
static int box_cpus(void)
{
	const struct box_limits *b = os_box_limits();
	double c = b->cpus;
	int n;
	if (c <= 0)
		return 0;
	if (c > (double)INT_MAX / 2)
		return INT_MAX / 2;
	n = (int)c;
	return n < c || n < 1 ? n + 1 : n;
}

/* Whether x is a finite number, from its bits: -ffinite-math-only (and
 * -Ofast) lets the compiler assume isfinite() is always true, and the
 * checks that guard validation and input must not vanish with it. */
static int finite_d(double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof(bits));
	return (bits >> 52 & 0x7ff) != 0x7ff;
}

/* x is above limit, or not a number at all: the comparison a check
 * needs, which a NaN must fail in every build. */
static int exceeds(double x, double limit)
{
	return !finite_d(x) || x > limit;
}

/* |x| without libm: fabs is a library call for some compilers (tcc), and
 * bench.c must link with no -l flag. */
static double abs_d(double x)
{
	return x < 0 ? -x : x;
}

/* -- The machine's shape -----------------------------------------------
 * Sockets (packages), cores, SMT siblings and NUMA nodes as the OS
 * describes them: Linux's sysfs, read through sysfs_root() so a test can
 * play any machine with MEMBENCH_SYSFS.  One account, read once
 * (machine_shape()), serves the binding (section 7), the report (8, 9)
 * and anything that works node by node: a node is its id, its CPUs and
 * its memory, and a node with memory and no CPUs (CXL or HBM memory) is
 * a node like the others, with none.  Where the OS says nothing (no
 * sysfs; Windows), topology_known and nodes_known are 0: the shape is
 * then the CPUs this process may run on, each its own core, on one node
 * that holds all of memory, and the report says the shape is unknown. */

#define SHAPE_MAX_CPUS 1024 /* as CPU_SETSIZE (glibc) and MAX_THREADS */
#define SHAPE_MAX_NODES 64
#define SHAPE_LIST_CHARS 16384 /* a sysfs list of 1024 scattered CPUs */

struct shape_cpu {
	int id;      /* the OS's CPU number */
	int package; /* physical package (socket); -1 where not said */
	int core;    /* the lowest CPU number among its SMT siblings: the
		      * same for every CPU of one core */
	int thread;  /* its place among those siblings, 0 the first */
	int node;    /* its NUMA node's id; -1 where no node lists it */
};

struct shape_node {
	int id;
	int ncpus;                 /* its online CPUs; 0: memory only */
	int mem_known;             /* its memory was read */
	unsigned long long mem_bytes, free_bytes;
};

struct machine_shape {
	int topology_known; /* packages, cores and siblings come from the OS */
	int nodes_known;    /* the nodes come from the OS */
	int truncated;      /* more CPUs or nodes than this build keeps */
	int ncpus;          /* online CPUs, in number order */
	int npackages, ncores; /* 0 where not known */
	int smt;            /* most SMT siblings of one core (1: none) */
	int nnodes;         /* nodes in id order, memory-only ones too */
	struct shape_cpu cpus[SHAPE_MAX_CPUS];
	struct shape_node nodes[SHAPE_MAX_NODES];
};

/* A list as sysfs writes CPUs and nodes ("0-3,8-11", ascending; "" for
 * none) into ids[], at most max of them: how many it names (more than
 * max when they did not all fit), or -1 when s is no such list. */
static int parse_id_list(const char *s, int *ids, int max)
{
	int n = 0;
	long last = -1;
	while (*s) {
		char *end;
		long a, b;
		if (!isdigit((unsigned char)*s))
			return -1;
		a = b = strtol(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				return -1;
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		/* a list names at most what a machine can have */
		if (a > 1L << 20 || b > 1L << 20 || b < a || a <= last)
			return -1;
		last = b;
		for (; a <= b; a++, n++)
			if (n < max)
				ids[n] = (int)a;
		if (*s == ',' && isdigit((unsigned char)s[1]))
			s++;
		else if (*s)
			return -1;
	}
	return n;
}

/* The list in sysfs file path (under sysfs_root()); as parse_id_list,
 * and -1 when the file cannot be read. */
static int read_id_list(const char *path, int *ids, int max)
{
	static char buf[SHAPE_LIST_CHARS];
	char full[512];
	int len = snprintf(full, sizeof(full), "%s/%s", sysfs_root(), path);
	if (len < 0 || (size_t)len >= sizeof(full))
		return -1;
	if (read_first_line(full, buf, sizeof(buf)) != 0)
		return -1;
	return parse_id_list(buf, ids, max);
}

/* Node id's memory from its sysfs meminfo ("Node 0 MemTotal: 123 kB"),
 * read now (free memory moves); 0 when both were read. */
static int node_memory(int id, unsigned long long *total,
		       unsigned long long *free_b)
{
	char path[512], line[256], key[64];
	unsigned long long v;
	int got = 0;
	FILE *f;
	snprintf(path, sizeof(path), "%s/devices/system/node/node%d/meminfo",
		 sysfs_root(), id);
	if (!(f = pseudo_open(path)))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d %63[^:]: %llu", key, &v) == 2) {
			if (strcmp(key, "MemTotal") == 0) {
				*total = v * 1024;
				got |= 1;
			} else if (strcmp(key, "MemFree") == 0) {
				*free_b = v * 1024;
				got |= 2;
			}
		}
	fclose(f);
	return got == 3 ? 0 : -1;
}

/* The index of CPU id in m->cpus[], or -1 when m does not list it. */
static int shape_cpu_index(const struct machine_shape *m, int id)
{
	int lo = 0, hi = m->ncpus - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (m->cpus[mid].id == id)
			return mid;
		if (m->cpus[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The entry of CPU id in m, or NULL when m does not list it. */
static const struct shape_cpu *shape_cpu(const struct machine_shape *m, int id)
{
	int i = shape_cpu_index(m, id);
	return i < 0 ? NULL : &m->cpus[i];
}

/* The CPUs of node id into cpus[] (at most max), in number order; how
 * many it has (0 for a node of memory alone, or one m does not list). */
static int shape_node_cpus(const struct machine_shape *m, int id, int *cpus,
			   int max)
{
	int i, n = 0;
	for (i = 0; i < m->ncpus; i++)
		if (m->cpus[i].node == id) {
			if (n < max)
				cpus[n] = m->cpus[i].id;
			n++;
		}
	return n;
}

/* Package, core and SMT place of each CPU from its topology directory;
 * 0 when every one of them could be read. */
static int shape_read_topology(struct machine_shape *m)
{
	int i, sib[SHAPE_MAX_CPUS];
	for (i = 0; i < m->ncpus; i++) {
		struct shape_cpu *c = &m->cpus[i];
		char path[512], buf[64];
		int n, k;
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu%d/topology/physical_package_id",
			 sysfs_root(), c->id);
		if (read_first_line(path, buf, sizeof(buf)) != 0)
			return -1;
		c->package = atoi(buf);
		/* core_cpus_list is the newer name of thread_siblings_list */
		snprintf(path, sizeof(path),
			 "devices/system/cpu/cpu%d/topology/core_cpus_list", c->id);
		n = read_id_list(path, sib, SHAPE_MAX_CPUS);
		if (n < 0) {
			snprintf(path, sizeof(path),
				 "devices/system/cpu/cpu%d/topology/thread_siblings_list",
				 c->id);
			n = read_id_list(path, sib, SHAPE_MAX_CPUS);
		}
		if (n <= 0 || n > SHAPE_MAX_CPUS)
			return -1;
		c->core = sib[0];
		for (k = 0; k < n && sib[k] != c->id; k++)
			;
		if (k == n) /* a CPU missing from its own siblings */
			return -1;
		c->thread = k;
	}
	return 0;
}

/* Packages, cores and the most SMT siblings of one core, counted. */
static void shape_count(struct machine_shape *m)
{
	int i, j;
	m->npackages = m->ncores = 0;
	m->smt = 1;
	for (i = 0; i < m->ncpus; i++) {
		const struct shape_cpu *c = &m->cpus[i];
		for (j = 0; j < i && m->cpus[j].package != c->package; j++)
			;
		m->npackages += j == i;
		m->ncores += c->thread == 0;
		if (c->thread + 1 > m->smt)
			m->smt = c->thread + 1;
	}
}

/* The nodes from sysfs: their ids, CPUs and memory; 0 when they were
 * read. */
static int shape_read_nodes(struct machine_shape *m)
{
	int ids[SHAPE_MAX_NODES], cpus[SHAPE_MAX_CPUS];
	int n = read_id_list("devices/system/node/online", ids, SHAPE_MAX_NODES);
	int i, k;
	if (n <= 0)
		return -1;
	if (n > SHAPE_MAX_NODES) {
		m->truncated = 1;
		n = SHAPE_MAX_NODES;
	}
	for (i = 0; i < n; i++) {
		struct shape_node *nd = &m->nodes[i];
		char path[64];
		int nc;
		nd->id = ids[i];
		snprintf(path, sizeof(path), "devices/system/node/node%d/cpulist",
			 nd->id);
		nc = read_id_list(path, cpus, SHAPE_MAX_CPUS);
		for (k = 0; k < nc && k < SHAPE_MAX_CPUS; k++) {
			int at = shape_cpu_index(m, cpus[k]);
			if (at >= 0) { /* the list names offline CPUs too */
				m->cpus[at].node = nd->id;
				nd->ncpus++;
			}
		}
		nd->mem_known = node_memory(nd->id, &nd->mem_bytes,
					    &nd->free_bytes) == 0;
	}
	m->nnodes = n;
	return 0;
}

/* Read the shape into m: sysfs where it answers, else the fallback. */
static void shape_read(struct machine_shape *m)
{
	int ids[SHAPE_MAX_CPUS], n, i;
	long long free_kib;
	memset(m, 0, sizeof(*m));
	n = read_id_list("devices/system/cpu/online", ids, SHAPE_MAX_CPUS);
	m->topology_known = n > 0;
	if (n <= 0 && (n = allowed_cpus(ids, SHAPE_MAX_CPUS)) <= 0)
		for (n = 0; n < os_cpus_online() && n < SHAPE_MAX_CPUS; n++)
			ids[n] = n;
	if (n > SHAPE_MAX_CPUS) {
		m->truncated = 1;
		n = SHAPE_MAX_CPUS;
	}
	m->ncpus = n;
	for (i = 0; i < n; i++) {
		m->cpus[i].id = ids[i];
		m->cpus[i].package = -1;
		m->cpus[i].core = ids[i];
		m->cpus[i].thread = 0;
		m->cpus[i].node = -1;
	}
	if (m->topology_known && shape_read_topology(m) != 0) {
		m->topology_known = 0;
		for (i = 0; i < n; i++) {
			m->cpus[i].package = -1;
			m->cpus[i].core = m->cpus[i].id;
			m->cpus[i].thread = 0;
		}
	}
	if (m->topology_known)
		shape_count(m);
	m->nodes_known = shape_read_nodes(m) == 0;
	if (m->nodes_known)
		return;
	/* one node, made up: every CPU and all of memory */
	memset(m->nodes, 0, sizeof(m->nodes));
	m->nnodes = 1;
	m->nodes[0].ncpus = n;
	for (i = 0; i < n; i++)
		m->cpus[i].node = 0;
	m->nodes[0].mem_bytes = physical_memory();
	free_kib = meminfo_value("MemFree");
	m->nodes[0].free_bytes = free_kib > 0 ? (unsigned long long)free_kib * 1024 : 0;
	m->nodes[0].mem_known = m->nodes[0].mem_bytes > 0 && free_kib > 0;
}

/* The machine's shape, read on the first call.  Call it first before any
 * thread is pinned (main does, through collect_system()), so that the
 * fallback's allowed CPUs are the process's, not one pinned thread's. */
static const struct machine_shape *machine_shape(void)
{
	static struct machine_shape m;
	static int done;
	if (!done) {
		shape_read(&m);
		done = 1;
	}
	return &m;
}

/* -- Binding to a node -------------------------------------------------
 * Memory bound to one NUMA node, and the node each page really sits on,
 * through the kernel's own calls (mbind(2) and move_pages(2) by
 * syscall(), so no libnuma is needed and bench.c still builds with a
 * bare compiler); threads are pinned with pin_to_cpu() above.  Where
 * these calls do not exist (not Linux) HAVE_NODE_BIND is 0 and the work
 * that needs them (bench nodes) is refused in one line. */
#if defined(__linux__) && defined(CPU_SETSIZE) && defined(SYS_mbind) && \
    defined(SYS_move_pages)
#define HAVE_NODE_BIND 1
#else
#define HAVE_NODE_BIND 0
#endif
#define NODE_MASK_BITS 1024 /* node ids below this can be bound */
#define NODE_QUERY_BATCH 4096 /* pages asked about at once */

/* Bind [addr, addr + len), page-aligned and not yet touched, to node:
 * every page faulted there from now on comes from that node's memory
 * (MPOL_BIND).  0, or the errno the kernel answered with (EINVAL for a
 * node with no memory, or one this process's cpuset excludes; ENOSYS
 * where there is no such call). */
static int os_bind_memory(void *addr, size_t len, int node)
{
#if HAVE_NODE_BIND
	enum { WORD = CHAR_BIT * sizeof(unsigned long) };
	unsigned long mask[NODE_MASK_BITS / WORD];
	if (node < 0 || node >= NODE_MASK_BITS)
		return EINVAL;
	memset(mask, 0, sizeof(mask));
	mask[node / WORD] = 1UL << (node % WORD);
	/* MPOL_BIND is 2; the kernel reads maxnode - 1 bits of the mask */
	if (syscall(SYS_mbind, addr, (unsigned long)len, 2, mask,
		    (unsigned long)NODE_MASK_BITS + 1, 0) != 0)
		return errno ? errno : EINVAL;
	return 0;
#else
	(void)addr;
	(void)len;
	(void)node;
	return ENOSYS;
#endif
}

/* Where the pages of [lo, lo + pages * page) are, asked of the kernel
 * (move_pages(2) with no target nodes is a query and moves nothing):
 * count[k] gets the pages on node ids[k], *other those on any node not
 * in ids, *absent those the kernel has no page for (never touched) or
 * reports an error for.  0, or -1 when the kernel will not say (no NUMA
 * support in it, or not Linux). */
static int os_page_nodes(uintptr_t lo, unsigned long long pages,
			 unsigned long page, const int *ids, int nids,
			 unsigned long long *count, unsigned long long *other,
			 unsigned long long *absent)
{
#if HAVE_NODE_BIND
	void *addr[NODE_QUERY_BATCH];
	int status[NODE_QUERY_BATCH];
	unsigned long long i = 0;
	while (i < pages) {
		unsigned long long n = pages - i < NODE_QUERY_BATCH
					       ? pages - i : NODE_QUERY_BATCH, k;
		for (k = 0; k < n; k++)
			addr[k] = (void *)(uintptr_t)(lo + (i + k) * page);
		if (syscall(SYS_move_pages, 0, (unsigned long)n, addr, NULL,
			    status, 0) != 0)
			return -1;
		for (k = 0; k < n; k++) {
			int s = status[k], at = -1, j;
			if (s < 0) {
				(*absent)++;
				continue;
			}
			if (s < nids && ids[s] == s) /* ids 0..n-1: no search */
				at = s;
			for (j = 0; at < 0 && j < nids; j++)
				if (ids[j] == s)
					at = j;
			if (at >= 0)
				count[at]++;
			else
				(*other)++;
		}
		i += n;
	}
	return 0;
#else
	(void)lo;
	(void)pages;
	(void)page;
	(void)ids;
	(void)nids;
	(void)count;
	(void)other;
	(void)absent;
	return -1;
#endif
}

/* The process's NUMA memory policy (get_mempolicy(2), by syscall: no
 * libnuma), which decides where pages go before first touch does:
 * numactl --membind, --interleave and --preferred set it.  The modes
 * are numbered as Linux's MPOL_*, in policy_names[]. */
#define POLICY_MAX_NODES 1024
#define POLICY_WORDS (POLICY_MAX_NODES / (CHAR_BIT * sizeof(unsigned long)))
static const char *const policy_names[] = {
	"default", "preferred", "bind", "interleave", "local", "preferred-many",
	"weighted-interleave"
};
#define NPOLICIES ((int)(sizeof(policy_names) / sizeof(policy_names[0])))

struct mem_policy {
	int known;   /* the OS said */
	int mode;    /* index into policy_names[]; -1 a mode bench does not know */
	int static_nodes, relative_nodes; /* numactl's = and + node forms */
	unsigned long mask[POLICY_WORDS + 1]; /* the nodes it names */
};

static void memory_policy(struct mem_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->mode = -1;
#if defined(__linux__) && defined(SYS_get_mempolicy)
	{
		int mode = 0;
		if (syscall(SYS_get_mempolicy, &mode, p->mask,
			    (unsigned long)POLICY_MAX_NODES, (void *)0, 0UL) != 0)
			return;
		p->known = 1;
		p->static_nodes = (mode & (1 << 15)) != 0;   /* MPOL_F_STATIC_NODES */
		p->relative_nodes = (mode & (1 << 14)) != 0; /* MPOL_F_RELATIVE_NODES */
		mode &= (1 << 13) - 1;
		p->mode = mode < NPOLICIES ? mode : -1;
	}
#endif
}

/* Whether policy p names node id. */
static int policy_has_node(const struct mem_policy *p, int id)
{
	size_t bits = CHAR_BIT * sizeof(unsigned long);
	return id >= 0 && id < POLICY_MAX_NODES &&
	       (p->mask[(size_t)id / bits] >> ((size_t)id % bits) & 1UL);
}

/* ======================================================================
 * 3 Errors.  Bad input is one line on stderr and exit 2.  Warnings are
 * kept in one list; the report prints each where its format wants it.
 * ====================================================================== */

static const char *prog = "bench"; /* the name errors start with */
static char *warnings[MAX_WARNINGS];
static int nwarnings;
#ifdef BENCH_MPI
/* bench-mpi: "rank R on HOST: " after prog; die_quiet: a rank other
 * than 0 leaves an error every rank meets (the options) to rank 0. */
static char die_where[96];
static int die_quiet;
#endif

static void die(const char *fmt, ...)
{
	va_list ap;
#ifdef BENCH_MPI
	int up = 0, down = 0;
	char line[1024];
	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down && die_quiet)
		sleep(5); /* rank 0 ends the job first, unless it met no error */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write, so the lines of ranks dying at once do not mix */
	fprintf(stderr, "%s: %s%s\n", prog, die_where, line);
	if (up && !down) {
		int size = 1;
		MPI_Comm_size(MPI_COMM_WORLD, &size);
		if (size > 1)
			MPI_Abort(MPI_COMM_WORLD, 2); /* the others must not wait */
		MPI_Finalize(); /* alone: a plain exit, one line */
	}
#else
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
#endif
	exit(2);
}

/* Keep a warning for the report (text and JSON alike). */
static void warn(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (nwarnings < MAX_WARNINGS) {
		warnings[nwarnings] = malloc(strlen(buf) + 1);
		if (warnings[nwarnings])
			strcpy(warnings[nwarnings++], buf);
	}
}

/* Bytes as the messages and reports show them: "32 KiB", "1.5 MiB". */
static void format_bytes(char *buf, size_t len, unsigned long long b)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	int u = 0;
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	if (v == (double)(unsigned long long)v)
		snprintf(buf, len, "%.0f %s", v, units[u]);
	else
		snprintf(buf, len, "%.1f %s", v, units[u]);
}

/* CPUs (or nodes), ascending, as a compact list such as "0-3,8" into
 * buf; "" for none. */
static void format_cpu_list(char *buf, size_t len, const int *cpus, int n)
{
	size_t used = 0;
	int i = 0;
	buf[0] = '\0';
	while (i < n && used < len) {
		int j = i;
		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "",
					 cpus[i]);
		if (j > i && used < len)
			used += (size_t)snprintf(buf + used, len - used, "-%d", cpus[j]);
		i = j + 1;
	}
}

/* ======================================================================
 * 4 Options.  First the names a flag can take (kernels, allocation
 * modes, chase patterns), then struct options and the readers of a
 * value (counts, sizes, lists), then option_defs[], one row per flag:
 * its name, how its value is read, the field it sets, its default, the
 * modes it belongs to and its help.  Parsing, --help (and so the man
 * page), the defaults and the refusal of a flag outside its modes all
 * come from that table, so `bench latency --size 5` is an error, not a
 * silently ignored flag.  The rules between flags are one list after
 * the table.  Defaults come from the knobs and nowhere else.
 * ====================================================================== */

/* The kernels' table, one line per kernel and in the order they run:
 * its id, its name (for --kernels and JSON), its name in results, its
 * row label (padded as STREAM pads its own), what it does (STORE: the
 * array dst gets the formula at every index; SUM: the formula summed
 * over the indices, in double), array elements moved and flops per
 * index, and the formula.  A formula is written in KLD(x), array x's
 * element, KQ, the scalar, KADD and KMUL; section 10 generates from it
 * the plain, streaming and per-ISA bodies, and section 11 validation's
 * replay.  Nothing else knows what a kernel computes or moves. */
#define KERNEL_TABLE(X)                                                     \
	X(COPY, copy, Copy, "Copy:      ", STORE, c, 2, 0, KLD(a))          \
	X(SCALE, scale, Scale, "Scale:     ", STORE, b, 2, 1, KMUL(KQ, KLD(c))) \
	X(ADD, add, Add, "Add:       ", STORE, c, 3, 1, KADD(KLD(a), KLD(b))) \
	X(TRIAD, triad, Triad, "Triad:     ", STORE, a, 3, 2,                \
	  KADD(KLD(b), KMUL(KQ, KLD(c))))                                   \
	X(READ, read, Read, "Read:      ", SUM, s, 1, 1, KLD(a))            \
	X(WRITE, write, Write, "Write:     ", STORE, c, 1, 0, KQ)             \
	X(DOT, dot, Dot, "Dot:       ", SUM, s, 2, 2, KMUL(KLD(a), KLD(b)))  \
	X(NSTREAM, nstream, Nstream, "Nstream:   ", STORE, a, 4, 3,         \
	  KADD(KLD(a), KADD(KLD(b), KMUL(KQ, KLD(c)))))                     \
	X(AXPY, axpy, Axpy, "Axpy:      ", STORE, c, 3, 2,                  \
	  KADD(KLD(c), KMUL(KQ, KLD(a))))                                   \
	X(UPDATE, update, Update, "Update:    ", STORE, b, 2, 1, KMUL(KQ, KLD(b)))

enum kernel_kind { KIND_STORE, KIND_SUM };
#define KERNEL_ID(id, name, disp, label, kind, dst, words, flops, f) K_##id,
enum kernel_id { KERNEL_TABLE(KERNEL_ID) NKERNELS };

static const struct kernel_def {
	const char *name;    /* for --kernels and JSON */
	const char *display; /* in text and JSON results */
	const char *label;   /* STREAM's row label, padded as STREAM pads it */
	int words;           /* array elements moved per index */
	int flops;           /* floating-point operations per index */
	int kind;            /* kernel_kind */
	const char *dst;     /* the array a STORE kernel writes */
	const char *formula; /* the formula as the table writes it */
} kernel_defs[NKERNELS] = {
#define KERNEL_DEF(id, name, disp, label, kind, dst, words, flops, f)       \
	{#name, #disp, label, words, flops, KIND_##kind, #dst, #f},
	KERNEL_TABLE(KERNEL_DEF)
};
/* "copy,scale,...," for --help and the errors */
#define KERNEL_NAME(id, name, disp, label, kind, dst, words, flops, f) #name ","
#define KERNEL_NAMES KERNEL_TABLE(KERNEL_NAME)
#define IS_SUM(k) (kernel_defs[k].kind == KIND_SUM)
#define STREAM_KERNELS ((1u << K_COPY) | (1u << K_SCALE) | (1u << K_ADD) | \
			(1u << K_TRIAD))

/* A formula of the table in words, read back from the table's own text
 * ("KADD(KLD(c), KMUL(KQ, KLD(a)))" is "c + q*a"), with a bit in *loads
 * for each array it loads (a 1, b 2, c 4): so the reports name what a
 * kernel computes, and kernel_table_check() what it moves, from the one
 * line that makes its bodies.  Returns the text after the term, or NULL
 * where the text is not a formula of KLD, KQ, KADD and KMUL. */
struct formula_out {
	char buf[96];
	size_t used;
};

static void formula_put(struct formula_out *o, const char *s)
{
	size_t n = strlen(s);
	if (o->used + n < sizeof(o->buf)) {
		memcpy(o->buf + o->used, s, n + 1);
		o->used += n;
	} else {
		o->used = sizeof(o->buf); /* too long: refused by the caller */
	}
}

static const char *formula_skip(const char *f)
{
	while (*f == ' ')
		f++;
	return f;
}

static const char *formula_term(const char *f, struct formula_out *o,
				unsigned *loads, int in_mul)
{
	f = formula_skip(f);
	if (strncmp(f, "KLD(", 4) == 0) {
		char x[2] = {0, 0};
		f = formula_skip(f + 4);
		if (*f < 'a' || *f > 'c')
			return NULL;
		x[0] = *f;
		*loads |= 1u << (*f - 'a');
		formula_put(o, x);
		f = formula_skip(f + 1);
		return *f == ')' ? f + 1 : NULL;
	}
	if (strncmp(f, "KQ", 2) == 0 && !isalnum((unsigned char)f[2]) &&
	    f[2] != '_') {
		formula_put(o, "q");
		return f + 2;
	}
	if (strncmp(f, "KADD(", 5) == 0 || strncmp(f, "KMUL(", 5) == 0) {
		int add = f[1] == 'A';
		if (add && in_mul)
			formula_put(o, "(");
		f = formula_term(f + 5, o, loads, !add);
		if (!f || *(f = formula_skip(f)) != ',')
			return NULL;
		formula_put(o, add ? " + " : "*");
		f = formula_term(f + 1, o, loads, !add);
		if (!f || *(f = formula_skip(f)) != ')')
			return NULL;
		if (add && in_mul)
			formula_put(o, ")");
		return f + 1;
	}
	return NULL;
}

/* Kernel k's formula in words into buf ("c = c + q*a", "s += a*b") and
 * the arrays it loads into *loads; -1 where its text is not a formula. */
static int kernel_formula(int k, char *buf, size_t len, unsigned *loads)
{
	struct formula_out o;
	const char *end;
	o.buf[0] = '\0';
	o.used = 0;
	*loads = 0;
	end = formula_term(kernel_defs[k].formula, &o, loads, 0);
	if (!end || *formula_skip(end) || o.used >= sizeof(o.buf))
		return -1;
	if (IS_SUM(k))
		snprintf(buf, len, "s += %s", o.buf);
	else
		snprintf(buf, len, "%s = %s", kernel_defs[k].dst, o.buf);
	return 0;
}

/* Array elements kernel k reads and writes per index, from its formula:
 * the arrays it loads, and the one a STORE kernel writes. */
static int kernel_reads(int k)
{
	char f[128];
	unsigned m;
	if (kernel_formula(k, f, sizeof(f), &m) != 0)
		return -1;
	return (int)(m & 1) + (int)(m >> 1 & 1) + (int)(m >> 2 & 1);
}

static int kernel_writes(int k)
{
	return IS_SUM(k) ? 0 : 1;
}

/* The kernels' table read against itself at every start, as the flags'
 * rows are (opt_row_fits), so no test can miss a slip: each formula must
 * read as one, a STORE kernel must write one of a, b and c, and a row's
 * words per index, which every byte count uses, must be the arrays its
 * formula loads plus the one it stores. */
static void kernel_table_check(void)
{
	char f[128];
	unsigned m;
	int k;
	for (k = 0; k < NKERNELS; k++) {
		const struct kernel_def *d = &kernel_defs[k];
		if (kernel_formula(k, f, sizeof(f), &m) != 0)
			die("kernel table: %s's formula %s is not one of KLD, KQ, "
			    "KADD and KMUL", d->name, d->formula);
		if (!IS_SUM(k) && (strlen(d->dst) != 1 || d->dst[0] < 'a' ||
				   d->dst[0] > 'c'))
			die("kernel table: %s stores to %s, not to a, b or c",
			    d->name, d->dst);
		if (d->words != kernel_reads(k) + kernel_writes(k))
			die("kernel table: %s moves %d words per index by its row, "
			    "but its formula (%s) reads %d arrays and writes %d",
			    d->name, d->words, f, kernel_reads(k), kernel_writes(k));
	}
}

enum { STORES_PLAIN, STORES_NT, STORES_AUTO };
static const char *const store_names[] = {"plain", "nt", "auto"};

enum alloc_mode { A_STATIC, A_MALLOC, A_MMAP, A_THP, A_HUGETLB, A_SHM };
static const char *const alloc_names[] = {
	"static", "malloc", "mmap", "thp", "hugetlb", "shm"
};
#define NALLOC (sizeof(alloc_names) / sizeof(alloc_names[0]))

/* P_LINEPAGE: the TLB probe's chase, one line a page (never a --pattern) */
enum lat_pattern { P_RANDOM, P_STRIDE, P_PAGE, P_LINEPAGE };
static const char *const lat_pattern_names[] = {"random", "stride", "page"};

enum mode {
	M_STREAM = 1, M_LATENCY = 2, M_ALL = 4, M_INFO = 8,
	M_MIX = 16, /* bandwidth by read:write mix (sections 12-13) */
	M_C2C = 32, /* core-to-core latency (section 21) */
	M_NODES = 64, /* node-by-node latency and bandwidth (section 22) */
	M_HIER = 128 /* each level's bandwidth and latency (section 23b) */
};
#define M_BW (M_STREAM | M_ALL | M_MIX) /* the bandwidth arrays' flags */
#define M_KERNELS (M_STREAM | M_ALL)    /* STREAM's table: which, how stored */
#define M_RUN (M_STREAM | M_LATENCY | M_ALL | M_MIX)
#define M_ANY (M_RUN | M_INFO | M_C2C | M_NODES | M_HIER)
#define M_LAT (M_LATENCY | M_ALL)
/* The mode words, in enum mode's bit order. */
static const char *const mode_names[] = {"stream", "latency", "all", "info",
					 "mix", "c2c", "nodes", "hierarchy"};
#define NMODES 8

/* Every setting of a run.  A flag's row in option_defs[] names the
 * field it sets; the fields no row names are set by the personalities
 * and default_options(). */
struct options {
	enum mode mode;
	unsigned long long given; /* bit k: option_defs[k] was given */
	unsigned long long size;
	int size_auto; /* --size auto: STREAM's rule from the reported LLC */
	unsigned long long ntimes;
	unsigned long long offset;
	unsigned long long stagger;
	long threads; /* 0: runtime default */
	enum alloc_mode alloc;     /* bandwidth arrays */
	enum alloc_mode lat_alloc; /* latency chase buffer */
	unsigned long long page_size; /* --page-size: hugetlb's and shm's; 0 */
	unsigned kernels; /* bit per kernel_defs[] entry */
	int nt_stores; /* STORES_PLAIN, STORES_NT or STORES_AUTO */
	int isa;       /* an isa_level, ISA_AUTO or ISA_UNSET (run_isa()) */
	int best;      /* --best: the fastest methods' table too */
	int ws_sweep;  /* hierarchy --ws-sweep: Copy from 1 KiB to 4x the last level */
	int bind;
	int json;              /* --json: JSON on stdout instead of text */
	int csv;               /* --csv: CSV on stdout instead of text */
	const char *json_path; /* --json-file PATH */
	int plan;              /* --plan */
	/* latency */
	int pattern; /* enum lat_pattern */
	size_t strides[LAT_MAX_STRIDES];
	int nstrides; /* 0: the OS-reported line size */
	unsigned long long lat_min, lat_max;
	int spo;
	int chains;
	int load_threads;
	int nrw;                          /* --rw */
	int rw[LAT_MAX_RW][2];            /* reads, writes; in lowest terms */
	int ndelays;                      /* --delays, largest first */
	long delays[LAT_MAX_DELAYS];
	int placement;                    /* --placement */
	const char *c2c_cpus;             /* --cpus: a list, cores or sockets */
	/* bench nodes */
	const char *node_list;            /* --nodes: a list; NULL: every node */
	const char *cpu_list;             /* --cpus: a list; NULL: every CPU */
	unsigned long long buffer;        /* --buffer bytes; 0: the default */
	int matrix;                       /* --matrix: NODES_* bits */
	double mhz; /* 0: measure */
	const char *curve_in;
	int ncurve_caches;                /* --caches: the curve's machine */
	unsigned long long curve_caches[LAT_MAX_LEVELS];
	int ncurve_tlbs;                  /* --tlb: its TLBs' entries */
	unsigned long long curve_tlbs[LAT_MAX_LEVELS], curve_page;
	int curve_line;                   /* --caches' line=B entry; 0: 64 */
	int lmrd;       /* the lat_mem_rd personality: its sizes and stream */
	int parallel;   /* lat_mem_rd -P: chases at once, each on its own buffer */
	int lmrd_blank; /* ... with a blank line after each stride's block */
#ifdef BENCH_MPI
	int cluster_seq;        /* --cluster sequential */
	double outlier_pct;     /* --outlier */
	unsigned long long cluster_lat; /* --cluster-latency bytes; 0: none */
	double cluster_timeout; /* --cluster-timeout seconds; 0: none */
	const char *cluster_in; /* --cluster-in FILE */
#endif
};

static const char *mode_name(enum mode m)
{
	int k = 0;
	while (k < NMODES - 1 && !(m & (1 << k)))
		k++;
	return mode_names[k];
}

/* A decimal count in [lo, hi]; anything else is an error naming flag. */
static unsigned long long parse_count(const char *flag, const char *s,
				      unsigned long long lo,
				      unsigned long long hi)
{
	char *end;
	unsigned long long v;
	if (!s || !*s)
		die("%s: missing number", flag);
	if (!isdigit((unsigned char)s[0]))
		die("%s: '%s' is not a non-negative integer", flag, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		die("%s: '%s' is too large", flag, s);
	if (*end)
		die("%s: '%s' is not a non-negative integer", flag, s);
	if (v < lo)
		die("%s: %llu is below the minimum %llu", flag, v, lo);
	if (v > hi)
		die("%s: %llu is above the maximum %llu", flag, v, hi);
	return v;
}

/* Bytes with an optional binary suffix: 4096, 64K, 16M, 1G (KiB/MiB/GiB). */
static unsigned long long parse_bytes(const char *flag, const char *s,
				      unsigned long long lo)
{
	char num[64];
	size_t n = s ? strlen(s) : 0;
	unsigned long long mul = 1, v;
	if (n == 0)
		die("%s: missing size", flag);
	if (n >= sizeof(num))
		die("%s: '%s' is too long", flag, s);
	memcpy(num, s, n + 1);
	if (n >= 3 && (strcmp(num + n - 3, "iB") == 0 ||
		       strcmp(num + n - 3, "ib") == 0))
		num[n -= 2] = '\0';
	else if (n >= 2 && (num[n - 1] == 'B' || num[n - 1] == 'b') &&
		 isalpha((unsigned char)num[n - 2]))
		num[--n] = '\0';
	switch (num[n - 1]) {
	case 'k': case 'K': mul = 1ULL << 10; break;
	case 'm': case 'M': mul = 1ULL << 20; break;
	case 'g': case 'G': mul = 1ULL << 30; break;
	case 't': case 'T': mul = 1ULL << 40; break;
	default: break;
	}
	if (mul > 1)
		num[--n] = '\0';
	if (n == 0)
		die("%s: '%s' has no number", flag, s);
	v = parse_count(flag, num, 0, ULLONG_MAX);
	if (v > ULLONG_MAX / mul)
		die("%s: '%s' is too large", flag, s);
	v *= mul;
	if (v < lo)
		die("%s: %s is below the minimum of %llu bytes", flag, s, lo);
	return v;
}

/* A comma list with no empty entry, copied into buf for strtok_r. */
static void list_copy(const char *flag, const char *s, char *buf, size_t n)
{
	size_t len = s ? strlen(s) : 0;
	if (len == 0)
		die("%s: missing list", flag);
	if (len >= n)
		die("%s: list is too long", flag);
	if (s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
		die("%s: '%s' has an empty entry", flag, s);
	memcpy(buf, s, len + 1);
}

/* --kernels NAME[,NAME...]: kernels by name, or all, or stream (STREAM's
 * four). */
static void parse_kernels(const char *flag, const char *s,
			  struct options *o)
{
	unsigned mask = 0;
	char buf[256], *tok, *save = NULL;
	int k;
	list_copy(flag, s, buf, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "all") == 0) {
			mask |= (1u << NKERNELS) - 1;
			continue;
		}
		if (strcmp(tok, "stream") == 0) {
			mask |= STREAM_KERNELS;
			continue;
		}
		for (k = 0; k < NKERNELS; k++)
			if (strcmp(tok, kernel_defs[k].name) == 0)
				break;
		if (k == NKERNELS)
			die("%s: unknown kernel '%s' (" KERNEL_NAMES "all)",
			    flag, tok);
		mask |= 1u << k;
	}
	if (!mask)
		die("%s: empty list", flag);
	o->kernels = mask;
}

/* --stride B[,B...]: each a positive multiple of the pointer size. */
static void parse_strides(const char *flag, const char *s, struct options *o)
{
	char buf[256], *tok, *save = NULL;
	list_copy(flag, s, buf, sizeof(buf));
	o->nstrides = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long v = parse_bytes(flag, tok, 0);
		if (v == 0 || v % sizeof(void *) != 0)
			die("%s: %s is not a positive multiple of %u bytes (the "
			    "pointer size)", flag, tok, (unsigned)sizeof(void *));
		if (o->nstrides == LAT_MAX_STRIDES)
			die("%s: more than %d strides", flag, LAT_MAX_STRIDES);
		o->strides[o->nstrides++] = (size_t)v;
	}
	if (o->nstrides == 0)
		die("%s: empty list", flag);
}

/* A positive, finite number such as 3000 or 2.4e3. */
static double parse_positive(const char *flag, const char *s)
{
	char *end;
	double v;
	if (!s || !*s)
		die("%s: missing number", flag);
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno || !finite_d(v) || !(v > 0) || v > 1e9)
		die("%s: '%s' is not a positive number", flag, s);
	return v;
}



static int gcd_int(int a, int b)
{
	while (b) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* --rw R:W[,R:W...]: bytes read to bytes written by each load thread,
 * each part 0..LAT_MAX_RW_PART, not both 0, kept in lowest terms so 4:2
 * and 2:1 are one mix. */
static void parse_rw(const char *flag, const char *s, struct options *o)
{
	char buf[256], *tok, *save = NULL;
	list_copy(flag, s, buf, sizeof(buf));
	o->nrw = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		int r, w, g, k;
		if (!colon || colon == tok || !colon[1])
			die("%s: '%s' is not R:W (reads:writes, such as 2:1)", flag,
			    tok);
		*colon = '\0';
		r = (int)parse_count(flag, tok, 0, LAT_MAX_RW_PART);
		w = (int)parse_count(flag, colon + 1, 0, LAT_MAX_RW_PART);
		if (r == 0 && w == 0)
			die("%s: 0:0 moves nothing", flag);
		g = gcd_int(r, w);
		r /= g;
		w /= g;
		for (k = 0; k < o->nrw; k++)
			if (o->rw[k][0] == r && o->rw[k][1] == w)
				die("%s: the mix %d:%d is listed twice", flag, r, w);
		if (o->nrw == LAT_MAX_RW)
			die("%s: more than %d mixes", flag, LAT_MAX_RW);
		o->rw[o->nrw][0] = r;
		o->rw[o->nrw][1] = w;
		o->nrw++;
	}
}

/* A CPU list such as 0-3,8 into cpus (at most max, each below
 * MAX_CPU_ID), in the order given; returns how many.  A CPU named twice,
 * a range that runs backwards or a list longer than max is an error
 * naming flag.  --cpus (bench c2c) reads it at the command line for its
 * shape and again at run time for the CPUs. */
#define MAX_CPU_ID 65536
static int parse_cpu_list(const char *flag, const char *s, int *cpus, int max)
{
	char buf[4096], *tok, *save = NULL;
	int n = 0, i;
	list_copy(flag, s, buf, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok + 1, '-');
		int lo, hi, c;
		if (!isdigit((unsigned char)tok[0]))
			die("%s: '%s' is not a CPU list (such as 0-3,8), cores or "
			    "sockets", flag, s);
		if (dash)
			*dash = '\0';
		lo = (int)parse_count(flag, tok, 0, MAX_CPU_ID - 1);
		hi = dash ? (int)parse_count(flag, dash + 1, 0, MAX_CPU_ID - 1) : lo;
		if (hi < lo)
			die("%s: the range %d-%d runs backwards", flag, lo, hi);
		for (c = lo; c <= hi; c++) {
			for (i = 0; i < n; i++)
				if (cpus[i] == c)
					die("%s: CPU %d is listed twice", flag, c);
			if (n == max)
				die("%s: more than %d CPUs", flag, max);
			cpus[n++] = c;
		}
	}
	return n;
}

/* --cpus LIST|cores|sockets: the words, or a list whose shape is read
 * now; whether its CPUs exist and may be used is the run's to say. */
static void opt_c2c_cpus(const char *flag, const char *val, struct options *o)
{
	static int cpus[MAX_THREADS];
	if (strcmp(val, "cores") != 0 && strcmp(val, "sockets") != 0 &&
	    parse_cpu_list(flag, val, cpus, MAX_THREADS) < 2)
		die("%s: '%s' names one CPU; a pair needs two", flag, val);
	o->c2c_cpus = val;
}

/* --delays D[,D...]: idle-loop turns after each chunk, each at most 1e8,
 * no two alike; kept largest first, the order of rising load. */
static void parse_delays(const char *flag, const char *s, struct options *o)
{
	char buf[512], *tok, *save = NULL;
	int i;
	list_copy(flag, s, buf, sizeof(buf));
	o->ndelays = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long d = (long)parse_count(flag, tok, 0, 100000000);
		for (i = 0; i < o->ndelays; i++)
			if (o->delays[i] == d)
				die("%s: the delay %ld is listed twice", flag, d);
		if (o->ndelays == LAT_MAX_DELAYS)
			die("%s: more than %d delays", flag, LAT_MAX_DELAYS);
		for (i = o->ndelays; i > 0 && o->delays[i - 1] < d; i--)
			o->delays[i] = o->delays[i - 1];
		o->delays[i] = d;
		o->ndelays++;
	}
}

/* A --curve-in list: sizes, each larger than the one before, at most
 * LAT_MAX_LEVELS of them, as bytes or (entries) as a count, with
 * "KEY=VALUE" words among them handed to key_read as they come.  noun
 * names one size in refusals ("cache", "TLB"). */
static int parse_ascending(const char *flag, const char *s, const char *key,
			   void (*key_read)(const char *, const char *,
					    struct options *),
			   struct options *o, const char *noun, int entries,
			   unsigned long long *v)
{
	char buf[512], *tok, *save = NULL;
	size_t klen = strlen(key);
	int n = 0;
	list_copy(flag, s, buf, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long x;
		if (strncmp(tok, key, klen) == 0 && tok[klen] == '=') {
			key_read(flag, tok + klen + 1, o);
			continue;
		}
		x = entries ? parse_count(flag, tok, 1, 1 << 24)
			    : parse_bytes(flag, tok, 1);
		if (n == LAT_MAX_LEVELS)
			die("%s: more than %d %ss", flag, LAT_MAX_LEVELS, noun);
		if (n && x <= v[n - 1])
			die("%s: '%s' is not larger than the %s before it", flag,
			    tok, noun);
		v[n++] = x;
	}
	return n;
}

static void read_curve_line(const char *flag, const char *s, struct options *o)
{
	o->curve_line = (int)parse_count(flag, s, 8, 65536);
}

static void read_curve_page(const char *flag, const char *s, struct options *o)
{
	o->curve_page = parse_bytes(flag, s, 8);
}

/* --caches SIZE[,SIZE...][,line=B]: the data or unified caches of the
 * machine a --curve-in curve was measured on, L1d first and each larger
 * than the one before, and optionally its line size. */
static void parse_curve_caches(const char *flag, const char *s,
			       struct options *o)
{
	o->curve_line = 0;
	o->ncurve_caches = parse_ascending(flag, s, "line", read_curve_line, o,
					   "cache", 0, o->curve_caches);
}

/* --tlb ENTRIES[,ENTRIES...][,page=B]: the TLBs of the machine a
 * --curve-in curve was measured on, smallest first, and the bytes of
 * the curve each page holds (4 KiB; a list walk with a node a page: the
 * node's). */
static void parse_curve_tlbs(const char *flag, const char *s,
			     struct options *o)
{
	o->curve_page = 4096;
	o->ncurve_tlbs = parse_ascending(flag, s, "page", read_curve_page, o,
					 "TLB", 1, o->curve_tlbs);
	if (o->ncurve_tlbs == 0)
		die("%s: names no TLB (ENTRIES[,ENTRIES...][,page=B])", flag);
}

/* --isa and BENCH_ISA: a level name or auto (ISA_AUTO).  A level this
 * CPU (or this build) cannot run is refused, never run. */
static int parse_isa(const char *flag, const char *s)
{
	char have[64] = "";
	int l;
	if (strcmp(s, "auto") == 0)
		return ISA_AUTO;
	for (l = 0; l < NISA; l++)
		if (strcmp(s, isa_names[l]) == 0)
			break;
	if (l == NISA)
		die("%s: unknown instruction set '%s' (auto, generic, sse2, avx2, "
		    "avx512, sve)", flag, s);
	if (isa_supported(l))
		return l;
	if (!HAVE_ISA_DISPATCH)
		die("%s: %s needs run-time dispatch, which this build lacks (gcc "
		    "or clang on x86-64, gcc on aarch64); only generic can run",
		    flag, s);
	for (l = ISA_SSE2; l < NISA; l++)
		if (isa_supported(l))
			snprintf(have + strlen(have), sizeof(have) - strlen(have),
				 " %s", isa_names[l]);
	die("%s: this CPU lacks %s (it has:%s)", flag, s,
	    have[0] ? have : " generic only");
	return ISA_GENERIC;
}

/* Which rule chose a bandwidth run's instruction set; the text and the
 * JSON (run.isa_rule) name it. */
enum isa_rule {
	ISA_BY_BUILD,  /* this build cannot dispatch: its own code */
	ISA_BY_STREAM, /* neither --isa nor BENCH_ISA, plain stores: own code */
	ISA_BY_STORES, /* neither, --stores nt or auto: the widest */
	ISA_BY_AUTO,   /* --isa auto or BENCH_ISA=auto: the widest */
	ISA_BY_SET     /* a level named by --isa or BENCH_ISA */
};
static const char *const isa_rule_names[] = {"no_dispatch", "stream", "stores",
					     "auto", "set"};

/* The one owner of which instruction set a bandwidth run uses: the run,
 * its checks, --best, the cluster layer and the reports all ask here.
 * Unless --isa or BENCH_ISA says otherwise, a run with plain stores
 * (STREAM's) runs this build's own code: what STREAM measures is what
 * the compiler makes of its loops, so the default table is stream.c's
 * code built with the same compiler and flags, on every kernel and
 * every machine.  The dispatched kernels are not that code: gcc turns
 * Copy's loop into a call to libc (memcpy in stream.c, memmove here;
 * one routine in glibc), which copies large blocks with streaming
 * stores, and on an Intel Xeon guest the dispatched AVX-512 loop, the
 * default until 2026-12, ran Copy at 0.65x stream.c's.  The tuned
 * modes (--stores nt or auto, and so --best's table) and an explicit
 * --isa auto run the widest level the CPU has. */
static enum isa_rule isa_rule(const struct options *o)
{
	if (!HAVE_ISA_DISPATCH)
		return ISA_BY_BUILD;
	if (o->isa == ISA_AUTO)
		return ISA_BY_AUTO;
	if (o->isa != ISA_UNSET)
		return ISA_BY_SET;
	return o->nt_stores == STORES_PLAIN ? ISA_BY_STREAM : ISA_BY_STORES;
}

static int run_isa(const struct options *o)
{
	switch (isa_rule(o)) {
	case ISA_BY_SET: return o->isa;
	case ISA_BY_STORES:
	case ISA_BY_AUTO: return isa_widest(NISA - 1);
	default: return ISA_GENERIC;
	}
}


/* The words a flag may take, and the value each stands for: for
 * --alloc, --pattern, --stores, --bind and --cluster. */
struct opt_words {
	const char *noun;         /* "--alloc: unknown mode 'heap'" */
	const char *const *words; /* in the order the error lists them */
	const int *values;        /* NULL: a word's index */
	int n;
};
#define WORDS(noun, names, values)                                           \
	{noun, names, values, (int)(sizeof(names) / sizeof(names[0]))}
static const struct opt_words alloc_words = WORDS("mode", alloc_names, NULL);
static const struct opt_words pattern_words =
	WORDS("pattern", lat_pattern_names, NULL);
static const struct opt_words store_words = WORDS("value", store_names, NULL);
static const char *const bind_names[] = {"auto", "none"};
static const int bind_values[] = {1, 0};
static const struct opt_words bind_words =
	WORDS("value", bind_names, bind_values);
/* --matrix: bits of the matrices bench nodes measures */
enum { NODES_LATENCY = 1, NODES_BANDWIDTH = 2 };
static const char *const matrix_names[] = {"latency", "bandwidth", "both"};
static const int matrix_values[] = {NODES_LATENCY, NODES_BANDWIDTH,
				    NODES_LATENCY | NODES_BANDWIDTH};
static const struct opt_words matrix_words =
	WORDS("matrix", matrix_names, matrix_values);
#ifdef BENCH_MPI
static const char *const cluster_names[] = {"simultaneous", "sequential"};
static const struct opt_words cluster_words =
	WORDS("value", cluster_names, NULL);
#endif

static int opt_word(const char *flag, const char *s,
		    const struct opt_words *w)
{
	char list[128] = "";
	int k;
	for (k = 0; k < w->n; k++)
		if (strcmp(s, w->words[k]) == 0)
			return w->values ? w->values[k] : k;
	for (k = 0; k < w->n; k++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s%s", k ? ", " : "", w->words[k]);
	die("%s: unknown %s '%s' (%s)", flag, w->noun, s, list);
	return 0;
}

/* The readers of the flags whose value is more than one field's worth
 * or takes a rule of its own (the lists above have this shape too). */
typedef void opt_call(const char *flag, const char *val, struct options *o);

static void opt_size(const char *flag, const char *val, struct options *o)
{
	o->size_auto = strcmp(val, "auto") == 0;
	if (!o->size_auto)
		o->size = parse_count(flag, val, 1, ULLONG_MAX / 64);
}

/* --alloc serves both programs; LAT_ALLOC is the latency default only. */
static void opt_alloc(const char *flag, const char *val, struct options *o)
{
	o->alloc = o->lat_alloc = (enum alloc_mode)opt_word(flag, val,
							    &alloc_words);
}

static void opt_stagger(const char *flag, const char *val, struct options *o)
{
	o->stagger = parse_bytes(flag, val, 0);
	if (o->stagger > (1u << 30))
		die("%s: %s is above 1 GiB", flag, val);
}

static void opt_load_threads(const char *flag, const char *val,
			     struct options *o)
{
	if (strcmp(val, "all") == 0) {
		/* one per allowed CPU but the chase's, at least one */
		int cpus[MAX_THREADS], n = allowed_cpus(cpus, MAX_THREADS);
		o->load_threads = n > 1 ? n - 1 : 1;
	} else {
		o->load_threads = (int)parse_count(flag, val, 0,
						   MAX_THREADS - 1);
	}
}

static void opt_isa(const char *flag, const char *val, struct options *o)
{
	o->isa = parse_isa(flag, val);
}

/* A list of CPUs or nodes as sysfs writes them (0-3,8): ascending, so
 * each is named once; how many it names.  Whether they exist is the
 * run's to say. */
static int opt_id_list(const char *flag, const char *val, const char *what,
		       int *ids, int max)
{
	int n = parse_id_list(val, ids, max);
	if (n <= 0)
		die("%s: '%s' is not a list of %s ids in ascending order (such as "
		    "0-3,8)%s", flag, val, what,
		    strcmp(what, "CPU") == 0 ? ", cores or sockets" : "");
	if (n > max)
		die("%s: '%s' names more than %d %ss", flag, val, max, what);
	return n;
}

static void opt_node_list(const char *flag, const char *val, struct options *o)
{
	int ids[SHAPE_MAX_NODES];
	opt_id_list(flag, val, "node", ids, SHAPE_MAX_NODES);
	o->node_list = val;
}

/* --cpus: c2c's pairs (a list of two or more, cores or sockets) or
 * nodes' rows (a list, cores or sockets); the mode is read before the
 * flags, so each reads it its own way. */
static void opt_cpus(const char *flag, const char *val, struct options *o)
{
	static int ids[SHAPE_MAX_CPUS];
	if (o->mode != M_NODES) {
		opt_c2c_cpus(flag, val, o);
		return;
	}
	if (strcmp(val, "cores") != 0 && strcmp(val, "sockets") != 0)
		opt_id_list(flag, val, "CPU", ids, SHAPE_MAX_CPUS);
	o->cpu_list = val;
}

#ifdef BENCH_MPI
static void opt_outlier(const char *flag, const char *val, struct options *o)
{
	o->outlier_pct = parse_positive(flag, val);
	if (o->outlier_pct >= 100)
		die("%s: %s is not below 100 (per cent)", flag, val);
}
#endif

static void usage(FILE *f);

static void opt_help(const char *flag, const char *val, struct options *o)
{
	(void)flag;
	(void)val;
	(void)o;
	usage(stdout);
	exit(0);
}

static void opt_version(const char *flag, const char *val, struct options *o)
{
	(void)flag;
	(void)val;
	(void)o;
	printf("membench bench %s\n", BENCH_VERSION);
	exit(0);
}

/* How a row reads its flag's value. */
enum opt_kind {
	ARG_SWITCH, /* no value: the int field becomes 1 */
	ARG_COUNT,  /* a decimal count in [lo, hi] (parse_count) */
	ARG_BYTES,  /* bytes with K/M/G, at least lo (parse_bytes) */
	ARG_NUMBER, /* a positive number into a double (parse_positive) */
	ARG_WORDS,  /* one of the row's words; the int field gets its value */
	ARG_PATH,   /* a non-empty string, kept as given */
	ARG_CALL    /* the row's own reader: lists and compound values */
};
/* The type of the field a row sets. */
enum opt_type { FT_NONE, FT_INT, FT_LONG, FT_ULL, FT_DOUBLE, FT_STR };

struct option_def {
	const char *lng;
	char shrt;
	const char *arg;         /* in --help; NULL: takes no value */
	enum opt_kind kind;
	unsigned long long lo, hi; /* ARG_COUNT's range; ARG_BYTES' least */
	const struct opt_words *words; /* ARG_WORDS */
	opt_call *call;          /* ARG_CALL */
	enum opt_type type;      /* the field, checked by SETS() */
	size_t off;
	double def;              /* the field's default, unless */
	const char *knob, *knob_text; /* a knob's text, read as a value is */
	int modes;
	const char *help;
};

/* A row's middle columns come in three groups.  How the value is read: */
#define OPT_SWITCH ARG_SWITCH, 0, 0, NULL, NULL
#define OPT_COUNT(lo, hi) ARG_COUNT, (lo), (hi), NULL, NULL
#define OPT_BYTES(lo) ARG_BYTES, (lo), 0, NULL, NULL
#define OPT_NUMBER ARG_NUMBER, 0, 0, NULL, NULL
#define OPT_WORDS(w) ARG_WORDS, 0, 0, &(w), NULL
#define OPT_PATH ARG_PATH, 0, 0, NULL, NULL
#define OPT_CALL(fn) ARG_CALL, 0, 0, NULL, (fn)
/* the field it sets, whose type the compiler checks: a pointer to the
 * field minus one to T is an error unless the field is a T */
extern struct options opt_shape; /* never defined: only sizeof sees it */
#define FT_TYPE_INT int
#define FT_TYPE_LONG long
#define FT_TYPE_ULL unsigned long long
#define FT_TYPE_DOUBLE double
#define FT_TYPE_STR const char *
#define SETS(f, T) FT_##T, offsetof(struct options, f) + 0 * \
	sizeof(&opt_shape.f - (FT_TYPE_##T *)&opt_shape)
#define SETS_NOTHING FT_NONE, 0
/* and its default: a number (held as a double, exact for whole numbers
 * up to 2^53), a knob's text read as the flag's value would be (an
 * error names the knob), or zero */
#define DEF(v) (v), NULL, NULL
#define DEF_KNOB(k) 0, #k, k
#define DEF_ZERO 0, NULL, NULL

/* The flags, in --help's order.  A new flag is a row here, its field in
 * struct options, and the code that uses it. */
static const struct option_def option_defs[] = {
	{"size", 's', "ELEMENTS|auto", OPT_CALL(opt_size), SETS(size, ULL),
	 DEF(STREAM_ARRAY_SIZE), M_BW | M_HIER,
	 "elements per array (default " XSTR(STREAM_ARRAY_SIZE)
	 "); auto: " XSTR(BENCH_LLC_FACTOR) "x the reported LLC"},
	{"ntimes", 'n', "N", OPT_COUNT(2, 1000000), SETS(ntimes, ULL),
	 DEF(NTIMES), M_BW | M_NODES | M_HIER,
	 "repetitions per kernel, first discarded (default " XSTR(NTIMES) ")"},
	{"threads", 't', "N", OPT_COUNT(1, MAX_THREADS), SETS(threads, LONG),
	 DEF_ZERO, M_RUN | M_NODES | M_HIER,
	 "OpenMP threads (default: OMP_NUM_THREADS or all CPUs; nodes: a "
	 "node's CPUs)"},
	{"offset", 0, "N", OPT_COUNT(0, 1u << 30), SETS(offset, ULL),
	 DEF(OFFSET), M_BW | M_HIER,
	 "elements added after each array (default " XSTR(OFFSET) ")"},
	{"alloc", 0, "MODE", OPT_CALL(opt_alloc), SETS_NOTHING,
	 DEF_KNOB(BENCH_ALLOC), M_RUN | M_NODES | M_HIER,
	 "static|malloc|mmap|thp|hugetlb|shm (default " BENCH_ALLOC
	 ", latency " LAT_ALLOC ", nodes " NODES_ALLOC ")"},
	{"page-size", 0, "SIZE", OPT_BYTES(1), SETS(page_size, ULL), DEF_ZERO,
	 M_RUN | M_NODES, "huge page size of --alloc hugetlb and shm, such as 2M or 1G "
	 "(default: hugetlb the system's default, shm none)"},
	{"kernels", 0, "LIST", OPT_CALL(parse_kernels), SETS_NOTHING,
	 DEF_KNOB(BENCH_KERNELS), M_KERNELS | M_NODES,
	 "comma list of " KERNEL_NAMES " or all (nodes: " NODES_KERNELS ")"},
	{"stores", 0, "plain|nt|auto", OPT_WORDS(store_words),
	 SETS(nt_stores, INT), DEF(STREAMING_STORES), M_KERNELS | M_NODES,
	 "plain (default), nt (non-temporal) or auto (fastest per kernel)"},
	{"isa", 0, "auto|generic|sse2|avx2|avx512|sve", OPT_CALL(opt_isa),
	 SETS(isa, INT), DEF(ISA_UNSET), M_BW | M_NODES | M_HIER,
	 "instruction set of the kernels; auto: the widest the CPU has "
	 "(default: this build's own code with plain stores, as STREAM; auto "
	 "with --stores nt or auto; env BENCH_ISA)"},
	{"ws-sweep", 0, NULL, OPT_SWITCH, SETS(ws_sweep, INT), DEF_ZERO,
	 M_HIER | M_ALL,
	 "hierarchy (and all's): also Copy's bandwidth from 1 KiB to 4x the "
	 "last level's edge, 2 sizes an octave, 1 thread and all (the "
	 "report's plot)"},
	{"best", 0, NULL, OPT_SWITCH, SETS(best, INT), DEF_ZERO, M_KERNELS,
	 "also measure each kernel's fastest method (not a STREAM result)"},
	{"stagger", 0, "BYTES", OPT_CALL(opt_stagger), SETS(stagger, ULL),
	 DEF(BENCH_STAGGER), M_BW | M_HIER,
	 "bytes between dynamic arrays (default " XSTR(BENCH_STAGGER) ")"},
	{"bind", 0, "auto|none", OPT_WORDS(bind_words), SETS(bind, INT),
	 DEF(BENCH_BIND), M_RUN | M_HIER,
	 "auto pins threads a core each, spread over packages, unless OMP "
	 "binding is set (default auto)"},
	{"pattern", 0, "random|stride|page", OPT_WORDS(pattern_words),
	 SETS(pattern, INT), DEF_KNOB(LAT_PATTERN), M_LAT,
	 "latency chase order (default " LAT_PATTERN ")"},
	{"stride", 0, "B[,B...]", OPT_CALL(parse_strides), SETS_NOTHING,
	 DEF_ZERO, M_LAT,
	 "bytes between chased lines (default: OS cache line, or 64)"},
	{"min", 0, "SIZE", OPT_BYTES(1), SETS(lat_min, ULL),
	 DEF(LAT_MIN_BYTES), M_LAT | M_HIER,
	 "smallest chase, K/M/G suffixes (default " XSTR(LAT_MIN_BYTES) ")"},
	{"max", 0, "SIZE", OPT_BYTES(1), SETS(lat_max, ULL), DEF(LAT_MAX_BYTES),
	 M_LAT | M_HIER, "largest chase (default 256M; hierarchy 32M)"},
	{"steps-per-octave", 0, "N", OPT_COUNT(1, 64), SETS(spo, INT),
	 DEF(LAT_STEPS_PER_OCTAVE), M_LAT | M_HIER,
	 "latency sizes per doubling (default " XSTR(LAT_STEPS_PER_OCTAVE) ")"},
	{"chains", 0, "K", OPT_COUNT(1, LAT_MAX_CHAINS), SETS(chains, INT),
	 DEF(1), M_LAT,
	 "memory-level parallelism: 1..K interleaved chases at --max"},
	{"load-threads", 0, "N|all", OPT_CALL(opt_load_threads),
	 SETS(load_threads, INT), DEF_ZERO, M_LAT,
	 "latency at --max while N threads (all: one per other CPU) load "
	 "memory (needs OpenMP)"},
	{"rw", 0, "R:W[,R:W...]", OPT_CALL(parse_rw), SETS_NOTHING,
	 DEF_KNOB(LAT_LOADED_RW), M_LAT,
	 "--load-threads' read:write mixes (default " LAT_LOADED_RW ")"},
	{"delays", 0, "D[,D...]", OPT_CALL(parse_delays), SETS_NOTHING,
	 DEF_ZERO, M_LAT, /* LAT_LOADED_DELAYS: default_options() */
	 "--load-threads' injected delays, idle-loop turns per chunk"},
	{"placement", 0, NULL, OPT_SWITCH, SETS(placement, INT), DEF_ZERO,
	 M_RUN, "report the arrays' physical pages (frames need root)"},
	{"cpus", 0, "LIST|cores|sockets", OPT_CALL(opt_cpus),
	 SETS(c2c_cpus, STR), DEF_ZERO, M_C2C | M_NODES,
	 "the CPUs to use (default: every allowed CPU): c2c's pairs, nodes' "
	 "rows; cores, sockets: the first of each core, socket"},
	{"nodes", 0, "LIST", OPT_CALL(opt_node_list), SETS(node_list, STR),
	 DEF_ZERO, M_NODES,
	 "nodes: the nodes of the matrices, such as 0-1,4 (default: every "
	 "node)"},
	{"buffer", 0, "SIZE", OPT_BYTES(1u << 20), SETS(buffer, ULL), DEF_ZERO,
	 M_NODES,
	 "nodes: bytes of each cell's buffer, K/M/G suffixes (default: "
	 "max(256M, " XSTR(BENCH_LLC_FACTOR) "x LLC), capped by free memory)"},
	{"matrix", 0, "latency|bandwidth|both", OPT_WORDS(matrix_words),
	 SETS(matrix, INT), DEF_KNOB(NODES_MATRIX), M_NODES,
	 "nodes: which matrices to measure (default " NODES_MATRIX ")"},
	{"mhz", 0, "F", OPT_NUMBER, SETS(mhz, DOUBLE), DEF_ZERO, M_LAT | M_HIER,
	 "core clock for cycle counts (default: measured)"},
	{"curve-in", 0, "FILE", OPT_PATH, SETS(curve_in, STR), DEF_ZERO,
	 M_LATENCY | M_HIER, "summarise a stored \"size_MB ns\" curve, or analyse a "
	 "bench --json record again; measure nothing (hierarchy: its levels, "
	 "measured here)"},
	{"caches", 0, "SIZE[,SIZE...][,line=B]", OPT_CALL(parse_curve_caches),
	 SETS_NOTHING, DEF_ZERO, M_LATENCY | M_HIER,
	 "--curve-in: the data caches of the curve's machine, L1d first"},
	{"tlb", 0, "ENTRIES[,ENTRIES...][,page=B]", OPT_CALL(parse_curve_tlbs),
	 SETS_NOTHING, DEF_ZERO, M_LATENCY | M_HIER,
	 "--curve-in: the data TLBs of the curve's machine, smallest first"},
#ifdef BENCH_MPI
	{"cluster", 0, "simultaneous|sequential", OPT_WORDS(cluster_words),
	 SETS(cluster_seq, INT), DEF_ZERO, M_STREAM,
	 "bench-mpi: every node at once (default) or one at a time"},
	{"outlier", 0, "PCT", OPT_CALL(opt_outlier), SETS(outlier_pct, DOUBLE),
	 DEF(BENCH_OUTLIER_PCT), M_STREAM,
	 "bench-mpi: flag nodes more than PCT% below the median (default "
	 XSTR(BENCH_OUTLIER_PCT) ")"},
	{"cluster-latency", 0, "SIZE", OPT_BYTES(4096), SETS(cluster_lat, ULL),
	 DEF_ZERO, M_STREAM,
	 "bench-mpi: also one random chase over SIZE bytes per node"},
	{"cluster-timeout", 0, "SEC", OPT_COUNT(0, 86400),
	 SETS(cluster_timeout, DOUBLE), DEF(BENCH_CLUSTER_TIMEOUT), M_STREAM,
	 "bench-mpi: longest wait for the other ranks (default "
	 XSTR(BENCH_CLUSTER_TIMEOUT) "; 0 none)"},
	{"cluster-in", 0, "FILE", OPT_PATH, SETS(cluster_in, STR), DEF_ZERO,
	 M_STREAM, "bench-mpi: report stored per-node rows, measure nothing"},
#endif
	{"json", 0, NULL, OPT_SWITCH, SETS(json, INT), DEF_ZERO, M_ANY,
	 "one JSON document on stdout"},
	{"csv", 0, NULL, OPT_SWITCH, SETS(csv, INT), DEF_ZERO,
	 M_STREAM | M_MIX | M_C2C | M_NODES | M_HIER,
	 "a CSV header and one row per kernel (mix: row, c2c: pair, nodes: "
	 "cell) on stdout "
	 "instead of text"},
	{"json-file", 0, "PATH", OPT_PATH, SETS(json_path, STR), DEF_ZERO,
	 M_ANY, "also write the JSON document to PATH (text stays on stdout)"},
	{"plan", 0, NULL, OPT_SWITCH, SETS(plan, INT), DEF_ZERO,
	 M_RUN | M_C2C | M_NODES,
	 "print the allocation plan (key=value lines); measure nothing"},
	{"help", 'h', NULL, OPT_CALL(opt_help), SETS_NOTHING, DEF_ZERO, M_ANY,
	 "this help"},
	{"version", 'V', NULL, OPT_CALL(opt_version), SETS_NOTHING, DEF_ZERO,
	 M_ANY, "print the version"},
};
#define NOPTIONS (sizeof(option_defs) / sizeof(option_defs[0]))
/* struct options' given has a bit per row */
typedef char option_defs_fit_given[NOPTIONS <= 64 ? 1 : -1];

static void usage(FILE *f)
{
	size_t i;
	char left[64];
	fprintf(f,
		"usage: bench [stream|latency|all|info|mix|c2c|nodes|hierarchy] "
		"[options]\n"
		"  stream   STREAM-compatible bandwidth (default)\n"
		"  latency  dependent-load latency sweep (lat_mem_rd format)\n"
		"  all      bandwidth, then the latency summary\n"
		"  info     what bench sees of its build and this machine\n"
		"  mix      bandwidth by read:write mix, plain and streaming stores\n"
		"  c2c      core-to-core latency: a line bounced between CPU pairs\n"
		"  nodes    latency and bandwidth from each NUMA node's CPUs to "
		"each node's memory\n"
		"  hierarchy  each cache level's and memory's bandwidth beside its "
		"latency\n"
		"Run as `stream` (a copy or symlink) it takes no arguments, as "
		"stream.c;\nrun as `lat_mem_rd`, or as `bench lat_mem_rd ARGS`, it "
		"takes lat_mem_rd's\narguments and writes its curve on stderr.\n"
		"options:\n");
	for (i = 0; i < NOPTIONS; i++) {
		const struct option_def *o = &option_defs[i];
		if (o->shrt)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->shrt,
				 o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->lng,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-28s %s\n", left, o->help);
	}
}

/* Whether a row's way of reading fits the field it names; a row that
 * does not is refused at every start, so no test can miss it. */
static int opt_row_fits(const struct option_def *d)
{
	switch (d->kind) {
	case ARG_SWITCH: return !d->arg && d->type == FT_INT;
	case ARG_WORDS: return d->arg && d->words && d->type == FT_INT;
	case ARG_NUMBER: return d->arg && d->type == FT_DOUBLE;
	case ARG_PATH: return d->arg && d->type == FT_STR;
	case ARG_CALL: return d->call != NULL;
	default:
		return d->arg && d->type != FT_NONE && d->type != FT_STR;
	}
}

static void opt_set_count(struct options *o, const struct option_def *d,
			  unsigned long long v)
{
	void *p = (char *)o + d->off;
	switch (d->type) {
	case FT_INT: *(int *)p = (int)v; break;
	case FT_LONG: *(long *)p = (long)v; break;
	case FT_DOUBLE: *(double *)p = (double)v; break;
	default: *(unsigned long long *)p = v; break;
	}
}

/* Read one flag's value (val: NULL for a switch) into its field. */
static void opt_read(const struct option_def *d, const char *flag,
		     const char *val, struct options *o)
{
	void *p = (char *)o + d->off;
	switch (d->kind) {
	case ARG_SWITCH: *(int *)p = 1; break;
	case ARG_COUNT:
		opt_set_count(o, d, parse_count(flag, val, d->lo, d->hi));
		break;
	case ARG_BYTES:
		opt_set_count(o, d, parse_bytes(flag, val, d->lo));
		break;
	case ARG_NUMBER: *(double *)p = parse_positive(flag, val); break;
	case ARG_WORDS: *(int *)p = opt_word(flag, val, d->words); break;
	case ARG_PATH:
		if (!*val)
			die("%s: empty path", flag);
		*(const char **)p = val;
		break;
	case ARG_CALL: d->call(flag, val, o); break;
	}
}

/* The defaults: each row's, then those of the fields no row owns. */
static void default_options(struct options *o)
{
	static const long delays[] = LAT_LOADED_DELAYS;
	char buf[512];
	size_t i, n = 0;

	memset(o, 0, sizeof(*o));
	kernel_table_check();
	for (i = 0; i < NOPTIONS; i++) {
		const struct option_def *d = &option_defs[i];
		void *p = (char *)o + d->off;
		if (!opt_row_fits(d))
			die("option_defs: --%s reads a value its field cannot "
			    "hold", d->lng);
		if (d->knob)
			opt_read(d, d->knob, d->knob_text, o);
		else if (d->type == FT_INT)
			*(int *)p = (int)d->def;
		else if (d->type == FT_LONG)
			*(long *)p = (long)d->def;
		else if (d->type == FT_ULL)
			*(unsigned long long *)p = (unsigned long long)d->def;
		else if (d->type == FT_DOUBLE)
			*(double *)p = d->def;
	}
	o->mode = M_STREAM;
	o->lat_alloc = (enum alloc_mode)opt_word("LAT_ALLOC", LAT_ALLOC,
						 &alloc_words);
	o->parallel = 1;
	/* LAT_LOADED_DELAYS is an initializer, not text: written out, then
	 * read as --delays would be (sorted, no repeats) */
	for (i = 0; i < sizeof(delays) / sizeof(delays[0]) &&
		    n + 24 < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%ld",
				      i ? "," : "", delays[i]);
	parse_delays("LAT_LOADED_DELAYS", buf, o);
	if (getenv("BENCH_ISA") && *getenv("BENCH_ISA"))
		o->isa = parse_isa("BENCH_ISA", getenv("BENCH_ISA"));
}

/* Whether the flag --name was on the command line. */
static int opt_given(const struct options *o, const char *name)
{
	size_t k;
	for (k = 0; k < NOPTIONS; k++)
		if (strcmp(option_defs[k].lng, name) == 0)
			return (int)(o->given >> k & 1);
	die("option_defs: no flag --%s", name);
	return 0;
}

/* The rules between flags, checked once every flag is read, in this
 * order; the first one broken is the error.  A rule that needs the
 * machine (--min against a --max sized from it, a stride against
 * --max) is the plan's: lat_check() and alloc_plan(). */
static void check_options(const struct options *o)
{
	const struct {
		int broken;
		const char *why;
	} rules[] = {
		{o->json && o->json_path,
		 "--json and --json-file: choose one (JSON on stdout, or text "
		 "on stdout and JSON in a file)"},
		{(opt_given(o, "rw") || opt_given(o, "delays")) &&
		 !o->load_threads,
		 "--rw and --delays shape the loaded-latency test; add "
		 "--load-threads N (or all)"},
		{o->csv && o->json,
		 "--csv and --json: choose one for stdout (--csv --json-file "
		 "PATH writes both)"},
		{o->csv && o->plan,
		 "--csv and --plan: --plan measures nothing, so there is no "
		 "row to write"},
		{opt_given(o, "caches") && !o->curve_in,
		 "--caches describes the machine of a stored curve; it needs "
		 "--curve-in"},
		{opt_given(o, "tlb") && !o->curve_in,
		 "--tlb describes the machine of a stored curve; it needs "
		 "--curve-in (a live run measures its TLBs)"},
	};
	size_t i;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].broken)
			die("%s", rules[i].why);
}

/* The row of argument a: --name, --name=value or -x; *eq is the '='. */
static const struct option_def *opt_find(const char *a, const char **eq)
{
	size_t k, nlen;
	*eq = NULL;
	if (a[0] == '-' && a[1] == '-' && a[2]) {
		*eq = strchr(a + 2, '=');
		nlen = *eq ? (size_t)(*eq - (a + 2)) : strlen(a + 2);
		for (k = 0; k < NOPTIONS; k++)
			if (strlen(option_defs[k].lng) == nlen &&
			    strncmp(option_defs[k].lng, a + 2, nlen) == 0)
				return &option_defs[k];
	} else if (a[0] == '-' && a[1] && !a[2]) {
		for (k = 0; k < NOPTIONS; k++)
			if (option_defs[k].shrt == a[1])
				return &option_defs[k];
	}
	return NULL;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	int i = 1, m;

	default_options(o);
	if (argc > 1 && argv[1][0] != '-') {
		for (m = 0; m < NMODES; m++)
			if (strcmp(argv[1], mode_names[m]) == 0)
				break;
		if (m == NMODES)
			die("unknown mode '%s' (stream, latency, all, info, mix, c2c, "
			    "nodes, hierarchy)",
			    argv[1]);
		o->mode = (enum mode)(1 << m);
		i = 2;
	}
	for (; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const struct option_def *d = opt_find(a, &eq);
		char flag[64];

		if (!d)
			die("unknown option '%s' (see bench --help)", a);
		snprintf(flag, sizeof(flag), "--%s", d->lng);
		if (!(d->modes & o->mode))
			die("%s does not apply to mode '%s'", flag,
			    mode_name(o->mode));
		if (d->arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				die("%s: missing value", flag);
		} else if (eq) {
			die("%s takes no value", flag);
		}
		o->given |= 1ULL << (d - option_defs);
		opt_read(d, flag, val, o);
	}
	check_options(o);
}

/* Personalities.  Run as lat_mem_rd (argv[0], so a symlink or a copy
 * works, or `bench lat_mem_rd ...`), bench takes lmbench's arguments,
 *     lat_mem_rd [-P <parallelism>] [-W <warmup>] [-N <repetitions>] [-t]
 *                size_in_MB [stride ...]
 * sweeps lat_mem_rd's sizes and writes exactly its stream on stderr, so
 * lmbench's scripts read it; the measuring stays bench's.  Run as stream,
 * bench takes no arguments: the compile-time macros decide, as in
 * stream.c. */
#define LMRD_USAGE "usage: lat_mem_rd [-P <parallelism>] [-W <warmup>] " \
		   "[-N <repetitions>] [-t] size_in_MB [stride ...]"

static void parse_lat_mem_rd(int argc, char **argv, struct options *o)
{
	int i;
	o->mode = M_LATENCY;
	o->lmrd = 1;
	o->pattern = P_STRIDE; /* lat_mem_rd's chain; -t randomises it */
	o->lat_min = 512;
	for (i = 0; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];
		if (strcmp(a, "-t") == 0) {
			o->pattern = P_RANDOM;
			continue;
		}
		if (strcmp(a, "-P") && strcmp(a, "-W") && strcmp(a, "-N"))
			die("unknown option '%s'; " LMRD_USAGE, a);
		if (i + 1 == argc)
			die("%s: missing number; " LMRD_USAGE, a);
		i++;
		/* -W and -N size lmbench's fixed repetitions; bench times each
		 * point until its windows agree, so they change nothing here */
		if (a[1] == 'P')
			o->parallel = (int)parse_count(a, argv[i], 1, MAX_REGIONS);
		else
			parse_count(a, argv[i], 0, 1000000);
	}
	if (i == argc)
		die("the size in MB is missing; " LMRD_USAGE);
	o->lat_max = parse_count("size_in_MB", argv[i++], 1,
				 ULLONG_MAX >> 21) << 20;
	if (i == argc) {
		/* lat_mem_rd's default: 512 / sizeof(char *) bytes, and no
		 * blank line after its one block */
		o->strides[0] = 512 / sizeof(char *);
		o->nstrides = 1;
		return;
	}
	o->lmrd_blank = 1;
	for (; i < argc; i++) {
		unsigned long long v;
		if (argv[i][0] == '-')
			die("stride %s: options come before size_in_MB; "
			    LMRD_USAGE, argv[i]);
		v = parse_bytes("stride", argv[i], 1);
		if (v % sizeof(void *) != 0)
			die("stride %s: not a multiple of %u bytes (the pointer "
			    "size)", argv[i], (unsigned)sizeof(void *));
		if (o->nstrides == LAT_MAX_STRIDES)
			die("more than %d strides", LAT_MAX_STRIDES);
		o->strides[o->nstrides++] = (size_t)v;
	}
}

/* The options of this invocation, whichever name it was run under. */
static void parse_command_line(int argc, char **argv, struct options *o)
{
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (strcmp(base, "lat_mem_rd") == 0) {
		prog = "lat_mem_rd";
		default_options(o);
		parse_lat_mem_rd(argc - 1, argv + 1, o);
	} else if (argc > 1 && strcmp(argv[1], "lat_mem_rd") == 0) {
		prog = "lat_mem_rd";
		default_options(o);
		parse_lat_mem_rd(argc - 2, argv + 2, o);
	} else if (strcmp(base, "stream") == 0) {
		prog = "stream";
		if (argc > 1)
			die("takes no arguments: its settings are compile-time "
			    "macros (-DSTREAM_ARRAY_SIZE=...); run it as bench "
			    "for flags");
		default_options(o);
	} else {
		parse_options(argc, argv, o);
	}
}

/* ======================================================================
 * 5 Allocation.  alloc_plan() is the one owner of what a run allocates:
 * the array size (STREAM's sizing rule included), where each array
 * starts, the limits that refuse a run, and the huge pages it needs.
 * The modes, the --plan report and the allocator all read its plan, and
 * every refusal happens there, before anything is printed.  Every
 * allocation mode then hands back one region per array; the region
 * remembers how to give itself back.
 * ====================================================================== */

#if !BENCH_NO_STATIC
/* Each static array is the compiled size rounded up to whole 4 KiB
 * pages, then OFFSET elements: where the linker lays them end to end, a
 * kernel's dst - src is OFFSET elements modulo 4 KiB, as the layout rule
 * wants at OFFSET 0 (section 4), and not the size's remainder (10M
 * doubles end 1 KiB into a page: the arrays aliased 1024 bytes apart).
 * Run time reads the real addresses and warns where the linker did
 * otherwise. */
#define STATIC_PAGED (((unsigned long long)STREAM_ARRAY_SIZE * sizeof(elem_t) + \
		       4095) / 4096 * 4096)
#define STATIC_ELEMS ((STATIC_PAGED + sizeof(elem_t) - 1) / sizeof(elem_t) + OFFSET)
static elem_t static_a[STATIC_ELEMS];
static elem_t static_b[STATIC_ELEMS];
static elem_t static_c[STATIC_ELEMS];
#endif
#define STATIC_BYTES ((unsigned long long)(STREAM_ARRAY_SIZE + OFFSET) * \
		      sizeof(elem_t))

static const char array_names[3] = {'a', 'b', 'c'};

#define HUGE_2M (2u << 20)

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

/* Huge page size of the default pool in bytes (0 if unknown). */
static size_t hugetlb_page_bytes(void)
{
#ifdef _WIN32
	return GetLargePageMinimum();
#else
	long long kib = meminfo_value("Hugepagesize");
	return kib > 0 ? (size_t)kib * 1024 : 0;
#endif
}

/* One count of the kernel's pool of huge pages of `kib` KiB
 * ("nr_hugepages", "free_hugepages", "resv_hugepages" under
 * /sys/kernel/mm/hugepages/hugepages-<kib>kB); -1 where the kernel has
 * no pool of that size. */
static long long hugetlb_pool_value(unsigned long long kib, const char *what)
{
	char path[512], buf[64];
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages/hugepages-%llukB/%s",
		 sysfs_root(), kib, what);
	if (read_first_line(path, buf, sizeof(buf)) != 0 ||
	    !isdigit((unsigned char)buf[0]))
		return -1;
	return atoll(buf);
}

/* The huge page sizes the kernel offers, smallest first, into kib[] (at
 * most max): the hugepages-<kB>kB directories of /sys/kernel/mm/hugepages.
 * Their count; 0 where there are none, or no such directory. */
static int hugetlb_sizes(unsigned long long *kib, int max)
{
	int n = 0;
#ifdef __linux__
	char path[512];
	DIR *d;
	struct dirent *e;
	snprintf(path, sizeof(path), "%s/kernel/mm/hugepages", sysfs_root());
	if ((d = opendir(path)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL && n < max) {
		unsigned long long k;
		int end = 0, i;
		if (sscanf(e->d_name, "hugepages-%llukB%n", &k, &end) != 1 ||
		    end == 0 || e->d_name[end] || k == 0)
			continue;
		for (i = n++; i > 0 && kib[i - 1] > k; i--) /* insertion */
			kib[i] = kib[i - 1];
		kib[i] = k;
	}
	closedir(d);
#else
	(void)kib;
	(void)max;
#endif
	return n;
}

#ifdef __linux__
/* The sizes hugetlb_sizes() finds, in words: "2 MiB and 1 GiB", "none". */
static void hugetlb_sizes_words(char *buf, size_t len)
{
	unsigned long long kib[16];
	int n = hugetlb_sizes(kib, 16), i;
	snprintf(buf, len, "%s", n ? "" : "none");
	for (i = 0; i < n; i++) {
		char b[32];
		size_t used = strlen(buf);
		format_bytes(b, sizeof(b), kib[i] * 1024);
		snprintf(buf + used, len - used, "%s%s",
			 i == 0 ? "" : i + 1 == n ? " and " : ", ", b);
	}
}

#if defined(__x86_64__) || defined(__i386__)
/* Whether /proc/cpuinfo's first "flags" line (x86's CPUID bits) has
 * `flag`; -1 where there is no such line. */
static int cpuinfo_flag(const char *flag)
{
	char path[512], line[4096];
	int has = -1;
	FILE *f;
	snprintf(path, sizeof(path), "%s/cpuinfo", procfs_root());
	if ((f = pseudo_open(path)) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "flags", 5) == 0 &&
		    (line[5] == ' ' || line[5] == '\t') && strchr(line, ':')) {
			has = has_word(strchr(line, ':') + 1, flag);
			break;
		}
	fclose(f);
	return has;
}
#endif
#endif

/* Refuse, before anything is allocated, a --page-size the machine does
 * not offer: not a power of two, no larger than the base page, a size
 * the kernel keeps no pool of (1 GiB on a CPU without pdpe1gb). */
static void page_size_check(unsigned long long page)
{
	char b[32];
	format_bytes(b, sizeof(b), page);
#ifndef __linux__
	die("--page-size %s: only Linux lets a run choose its huge page size", b);
#else
	char words[160];
	if (page & (page - 1))
		die("--page-size %s: not a power of two", b);
	if (page <= (unsigned long long)os_page_bytes())
		die("--page-size %s: not larger than the base page of %ld bytes",
		    b, os_page_bytes());
	if (hugetlb_pool_value(page / 1024, "nr_hugepages") >= 0)
		return;
	hugetlb_sizes_words(words, sizeof(words));
#if defined(__x86_64__) || defined(__i386__)
	if (page == 1ULL << 30 && cpuinfo_flag("pdpe1gb") == 0)
		die("--page-size %s: this CPU has no 1 GiB pages (no pdpe1gb "
		    "among the flags of %s/cpuinfo); the kernel offers %s", b,
		    procfs_root(), words);
#endif
	die("--page-size %s: the kernel keeps no pool of that size; it offers "
	    "huge pages of %s (%s/kernel/mm/hugepages)", b, words, sysfs_root());
#endif
}

/* Refuse --alloc hugetlb before mmap when the pool is too small: a
 * process that overruns the pool can be killed by SIGBUS (libhugetlbfs
 * users know this as the run that dies when pages run out).  page: the
 * size --page-size named, whose pool is its own; 0, the default one. */
static void hugetlb_check_pool(size_t total_pages, const char *flag,
			       unsigned long long page)
{
#ifdef _WIN32
	/* Windows keeps no pool: large pages come from free memory, for a
	 * process with the privilege */
	const char *why = win_large_pages_refused();
	(void)total_pages;
	(void)page;
	if (why)
		die("%s: %s", flag, why);
#else
	long long free_p = meminfo_value("HugePages_Free");
	long long rsvd = meminfo_value("HugePages_Rsvd");
	char path[512], nr[64] = "?", b[32];
	long long avail;
	snprintf(path, sizeof(path), "%s/sys/vm/nr_hugepages", procfs_root());
	if (page) {
		free_p = hugetlb_pool_value(page / 1024, "free_hugepages");
		rsvd = hugetlb_pool_value(page / 1024, "resv_hugepages");
		snprintf(path, sizeof(path),
			 "%s/kernel/mm/hugepages/hugepages-%llukB/nr_hugepages",
			 sysfs_root(), page / 1024);
	}
	read_first_line(path, nr, sizeof(nr));
	if (free_p < 0)
		die("%s: this kernel reports no huge page pool", flag);
	avail = free_p - (rsvd > 0 ? rsvd : 0);
	b[0] = '\0';
	if (page) { /* the default size goes unnamed, as it always has */
		strcpy(b, " of ");
		format_bytes(b + 4, sizeof(b) - 4, page);
	}
	if (avail < (long long)total_pages)
		die("%s: needs %zu huge pages%s but only %lld are free "
		    "(nr_hugepages=%s); reserve more, e.g. echo %lld > %s", flag,
		    total_pages, b, avail, nr,
		    atoll(nr) + (long long)total_pages - avail,
		    page ? path : "/proc/sys/vm/nr_hugepages");
#endif
}

/* STREAM's sizing rule: the elements that make each array at least
 * BENCH_LLC_FACTOR times the last-level cache; 0 when the LLC is unknown. */
static unsigned long long stream_rule_elements(unsigned long long llc)
{
	return llc ? (BENCH_LLC_FACTOR * llc + sizeof(elem_t) - 1) / sizeof(elem_t)
		   : 0;
}

/* The memory limit in words, for refusals and notes: "the memory limit
 * of 200 MiB (cgroup v1 memory.limit_in_bytes of /job_5)". */
static void box_limit_words(char *buf, size_t len)
{
	const struct box_limits *b = os_box_limits();
	char b1[32];
	format_bytes(b1, sizeof(b1), b->mem);
	snprintf(buf, len, "the memory limit of %s (%.200s)", b1, b->mem_source);
}

/* Say once what the memory limit capped: a size bench chose for itself
 * (--size auto, the default size, latency's default --max, nodes'
 * buffer), now smaller so that the run fits. */
static void box_capped(const char *what, unsigned long long wanted,
		       unsigned long long got, const char *unit)
{
	char lim[BOX_TEXT + 64];
	int i;
	box_limit_words(lim, sizeof(lim));
	for (i = 0; i < nwarnings; i++)
		if (strstr(warnings[i], what) && strstr(warnings[i], "capped"))
			return;
	warn("%s: capped at %llu%s (wanted %llu%s) to fit under %s, with %d MiB "
	     "and 1/%d of it left for bench itself", what, got, unit, wanted,
	     unit, lim, BENCH_HEADROOM_MIB, BENCH_HEADROOM_SHARE);
}

/* The bytes a latency run with chase buffers of max bytes takes: each
 * buffer, a random chase's order (4 bytes a line of the smallest
 * stride), and --load-threads' arrays of max(max, LAT_LOAD_MIN_BYTES). */
static unsigned long long lat_need(const struct options *o,
				   unsigned long long max)
{
	unsigned long long stride = 64, each, need;
	int i, regions = o->parallel > 0 ? o->parallel : 1;
	for (i = 0; i < o->nstrides; i++)
		if (i == 0 || o->strides[i] < stride)
			stride = o->strides[i];
	if (stride < sizeof(void *))
		stride = sizeof(void *);
	need = max + (o->pattern == P_RANDOM ? max / stride * 4 : 0);
	if (need > ULLONG_MAX / 4 / (unsigned long long)regions)
		return ULLONG_MAX;
	need *= (unsigned long long)regions;
	each = max > LAT_LOAD_MIN_BYTES ? max : LAT_LOAD_MIN_BYTES;
	if (o->load_threads > 0 &&
	    (unsigned long long)o->load_threads > ULLONG_MAX / 4 / each)
		return ULLONG_MAX;
	return need + each * (unsigned long long)(o->load_threads > 0 ?
						  o->load_threads : 0);
}

/* The largest --max (whole KiB) whose run fits in room bytes; 0 none. */
static unsigned long long lat_fit(const struct options *o,
				  unsigned long long room)
{
	unsigned long long lo = 0, hi = room;
	if (room == ULLONG_MAX)
		return ULLONG_MAX;
	while (lo < hi) { /* lat_need grows with max: bisect */
		unsigned long long mid = lo + (hi - lo + 1) / 2;
		if (lat_need(o, mid) <= room)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo >> 10 << 10;
}

/* What one program of a run allocates. */
struct alloc_plan {
	enum mode part;        /* M_STREAM (three arrays) or M_LATENCY (one buffer) */
	enum alloc_mode mode;
	int regions;
	unsigned long long elems; /* bandwidth: elements per array */
	size_t bytes;          /* data bytes of each region */
	size_t shift[MAX_REGIONS]; /* bytes from each region's start to its data */
	size_t stagger;        /* bytes between dynamic arrays (0 when static) */
	unsigned long long total;      /* bytes of all regions */
	unsigned long long llc;        /* one reported LLC, 0 unknown */
	int llc_instances;             /* LLCs in the machine */
	unsigned long long rule_elems; /* STREAM's rule for all of them */
	size_t huge_page;      /* bytes of a huge page: --page-size's, or the
				* default one; 0 unknown */
	size_t page_size;      /* --page-size for hugetlb and shm; 0 none */
	size_t huge_pages;     /* such pages the regions fill */
	unsigned long long room;   /* what the memory limit lets it take; ULLONG_MAX none */
	unsigned long long wanted; /* bandwidth: elements before the limit capped them; 0 not capped */
	char flag[32];         /* what chose the mode, for errors: "--alloc
				* mmap", or the lat_mem_rd personality's
				* compiled "LAT_ALLOC mmap" */
};

/* The arrays' layout.  A load whose address matches, in its low 12
 * bits, an older store still in flight waits for that store (4K
 * aliasing, in the Intel and AMD optimization manuals).  A kernel whose
 * destination sits a little ahead of one of its sources in the page
 * meets such a store on every load.  Measured with memcpy (the Copy
 * gcc emits): on an AMD Zen 3 guest, a destination 64-320 bytes ahead
 * ran at 0.2-0.3x, 1024 bytes ahead at 0.9x and 2048 at full speed;
 * the Intel guest, family 6 model 167, lost nothing at any distance
 * (docs/measurements.md).  So bench calls a layout aliasing where a
 * destination is 1 to LAYOUT_WINDOW - 1 bytes ahead of a source,
 * modulo the page: the window reaches the first distance measured
 * free.  At 0, or behind the source, the matching load is the older of
 * the two and waits for nothing.
 *
 * The rule (layout_shifts): every array starts at the same offset in a
 * 4 KiB page, so every kernel's destination minus source is 0 modulo
 * 4 KiB, outside any window, on 4 KiB, 2 MiB and 1 GiB pages alike
 * (each array is a region of its own and every mode starts a region on
 * a page boundary, so the array size never enters).  It is stream.c's
 * own layout at its reference sizes, where the arrays are a multiple of
 * 4 KiB long.  Evenly spread page offsets (1344 bytes apart for three
 * arrays) were the other candidate, but Copy, Scale and Triad use the
 * pairs c-a, b-c and a-b, c-b and a-c both ways round, so one of them
 * is always 1344 bytes ahead: inside the window Zen 3 was measured in.
 * Consecutive arrays stay whole pages apart ([--stagger], default one
 * page), so that on huge pages their elements at one index fall in
 * different sets of the caches indexed above bit 12; that is what the
 * old default of 4160 bytes was for, and 4160 put c 128 bytes ahead of
 * a. */
#define LAYOUT_PAGE 4096
#define LAYOUT_WINDOW 2048

/* Bytes from each array's region start to its data: array i is i
 * strides in, a stride being --stagger plus --offset elements.  The
 * rule holds where the stride is a whole number of pages, which the
 * defaults give; a stride of the user's own may break it, and
 * warn_aliasing() then says where. */
static void layout_shifts(size_t *shift, const struct options *o)
{
	size_t stride = (size_t)o->stagger + (size_t)o->offset * sizeof(elem_t);
	int i;
	for (i = 0; i < 3; i++)
		shift[i] = (size_t)i * stride;
}

/* The sources of kernel k, each an array its formula loads other than
 * the one it stores (0 a, 1 b, 2 c), into src[]; how many.  A SUM
 * kernel stores nothing and has none. */
static int layout_sources(int k, int *src)
{
	char f[128];
	unsigned loads;
	int n = 0, j, dst;
	if (IS_SUM(k) || kernel_formula(k, f, sizeof(f), &loads) != 0)
		return 0;
	dst = kernel_defs[k].dst[0] - 'a';
	for (j = 0; j < 3; j++)
		if ((loads >> j & 1) && j != dst)
			src[n++] = j;
	return n;
}

/* How far the destination at dst sits ahead of the source at src in
 * the page, 0..4095 bytes; whether that is in the aliasing window. */
static unsigned layout_distance(uintptr_t dst, uintptr_t src)
{
	return (unsigned)((dst - src) % LAYOUT_PAGE);
}

static int layout_aliases(unsigned d)
{
	return d > 0 && d < LAYOUT_WINDOW;
}

/* Every kernel's destination-minus-source distances, for the kernels
 * in mask and arrays at addr[] (only their offsets in the page count),
 * into buf: for people "copy c-a 0; add c-a 0, c-b 0", or with keys
 * (--plan's lines, no spaces) "copy:c-a:0,add:c-a:0,add:c-b:0".  With
 * only_aliasing, just the pairs in the window.  Returns how many pairs
 * it wrote. */
static int layout_text(char *buf, size_t len, unsigned mask,
		       const uintptr_t *addr, int only_aliasing, int keys)
{
	size_t used = 0;
	int k, j, n, src[3], pairs = 0;
	buf[0] = '\0';
	for (k = 0; k < NKERNELS; k++) {
		int dst = kernel_defs[k].dst[0] - 'a', first = 1;
		if (!(mask & (1u << k)))
			continue;
		n = layout_sources(k, src);
		for (j = 0; j < n && used < len; j++) {
			unsigned d = layout_distance(addr[dst], addr[src[j]]);
			const char *sep = !pairs ? "" : keys ? "," : first ? "; " : ", ";
			if (only_aliasing && !layout_aliases(d))
				continue;
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%s%s%c-%c%c%u", sep,
						 keys || first ? kernel_defs[k].name : "",
						 keys ? ":" : first ? " " : "",
						 array_names[dst], array_names[src[j]],
						 keys ? ':' : ' ', d);
			first = 0;
			pairs++;
		}
	}
	return pairs;
}

/* Where plan p puts the arrays, as far as their offsets in the page go:
 * the static arrays where the linker put them, else each region's
 * shift (every mode starts a region on a page boundary). */
static void layout_addresses(const struct alloc_plan *p, uintptr_t *addr)
{
	int i;
	for (i = 0; i < 3; i++)
		addr[i] = (uintptr_t)p->shift[i];
#if !BENCH_NO_STATIC
	if (p->mode == A_STATIC) {
		addr[0] = (uintptr_t)static_a;
		addr[1] = (uintptr_t)static_b;
		addr[2] = (uintptr_t)static_c;
	}
#endif
}

/* The refusals of --alloc static for arrays of n elements: the .bss
 * arrays have the compiled size and OFFSET, and a build may have none. */
static void static_arrays_check(const struct options *o, unsigned long long n)
{
	if (BENCH_NO_STATIC)
		die("--alloc static: this build has no static arrays "
		    "(BENCH_NO_STATIC=1)");
	if (n > STREAM_ARRAY_SIZE)
		die("--size: %llu exceeds the compiled static array size "
		    "%llu; rebuild with -DSTREAM_ARRAY_SIZE=%llu or use "
		    "another --alloc", n,
		    (unsigned long long)STREAM_ARRAY_SIZE, n);
	if (o->offset != OFFSET)
		die("--offset: static arrays keep the compiled OFFSET (%d); "
		    "rebuild with -DOFFSET=%llu or use another --alloc",
		    OFFSET, o->offset);
}

/* Plan the bandwidth arrays (part M_STREAM) or the chase buffer
 * (M_LATENCY) of a run with options o on a machine whose OS reports
 * llc_instances last-level caches of llc bytes each (llc 0: unknown).
 * Refuses (exit 2) what cannot run; check_pool also refuses a huge page
 * pool too small for --alloc hugetlb (--plan skips it: the harness asks
 * the plan in order to fill the pool). */
static void alloc_plan(struct alloc_plan *p, const struct options *o,
		       enum mode part, unsigned long long llc,
		       int llc_instances, int check_pool)
{
	unsigned long long phys = physical_memory(), pagesum = 0;
	int i;

	memset(p, 0, sizeof(*p));
	p->part = part;
	p->llc = llc;
	p->llc_instances = llc_instances > 0 ? llc_instances : 1;
	p->rule_elems = stream_rule_elements(llc * (unsigned long long)p->llc_instances);
	p->huge_page = hugetlb_page_bytes();
	if (o->page_size) { /* the plan's mode decides whether it applies */
		enum alloc_mode m = part == M_LATENCY ? o->lat_alloc : o->alloc;
		if (m != A_HUGETLB && m != A_SHM)
			die("--page-size: it picks the huge pages of --alloc hugetlb "
			    "or shm, and this run's %s --alloc %s",
			    part == M_LATENCY ? "chase buffer is" : "arrays are",
			    alloc_names[m]);
		page_size_check(o->page_size);
		p->huge_page = p->page_size = (size_t)o->page_size;
	}
	if (part == M_LATENCY) {
		char b1[32], b2[32];
		char max[64];
		p->mode = o->lat_alloc;
		p->regions = o->parallel; /* lat_mem_rd -P: one buffer a chase */
		/* the size as it was given: lat_mem_rd's own argument */
		format_bytes(b1, sizeof(b1), o->lat_max);
		if (o->lmrd)
			snprintf(max, sizeof(max), "size_in_MB %llu (%s)",
				 o->lat_max >> 20, b1);
		else
			snprintf(max, sizeof(max), "--max %s", b1);
		if (o->lat_max > address_space_bytes() / (unsigned long long)p->regions) {
			format_bytes(b2, sizeof(b2), address_space_bytes());
			if (p->regions > 1)
				die("-P %d: %d chase buffers of %s are more than this "
				    "%d-bit build can map (%s in all)", p->regions,
				    p->regions, b1, (int)(sizeof(void *) * CHAR_BIT), b2);
			die("%s is more than this %d-bit build can map (%s)",
			    max, (int)(sizeof(void *) * CHAR_BIT), b2);
		}
		if (phys && o->lat_max * (unsigned long long)p->regions > phys) {
			format_bytes(b2, sizeof(b2), phys);
			if (p->regions > 1)
				die("-P %d: %d chase buffers of %s are more than this "
				    "machine's physical memory (%s)", p->regions,
				    p->regions, b1, b2);
			die("%s is larger than this machine's physical memory "
			    "(%s)", max, b2);
		}
		p->room = box_room();
		if (lat_need(o, o->lat_max) > p->room) {
			char lim[BOX_TEXT + 64];
			unsigned long long fit = lat_fit(o, p->room);
			box_limit_words(lim, sizeof(lim));
			format_bytes(b2, sizeof(b2), lat_need(o, o->lat_max));
			/* name what the user gave: a --max bench chose is not
			 * the reason, the load threads' arrays may be */
			if (fit < 4096 && o->load_threads > 0) {
				format_bytes(b1, sizeof(b1), LAT_LOAD_MIN_BYTES);
				die("--load-threads %d: %s leaves no room for a chase "
				    "beside %d load array%s of at least %s each "
				    "(bench keeps %d MiB and 1/%d of it for itself)",
				    o->load_threads, lim, o->load_threads,
				    o->load_threads > 1 ? "s" : "", b1,
				    BENCH_HEADROOM_MIB, BENCH_HEADROOM_SHARE);
			}
			if (fit < 4096)
				die("%s: %s leaves no room for a chase (bench keeps "
				    "%d MiB and 1/%d of it for itself)",
				    opt_given(o, "max") || o->lmrd ? max : "latency",
				    lim, BENCH_HEADROOM_MIB, BENCH_HEADROOM_SHARE);
			format_bytes(b1, sizeof(b1), fit);
			if (o->lmrd)
				snprintf(b1, sizeof(b1), "%llu", fit >> 20);
			die("%s: the run needs %s, more than %s allows with "
			    "bench's own headroom; the largest that fits is %s %s",
			    max, b2, lim, o->lmrd ? "size_in_MB" : "--max", b1);
		}
		if (p->mode == A_STATIC &&
		    (BENCH_NO_STATIC || o->lat_max > STATIC_BYTES))
			die("%s: the chase buffer of %llu bytes does not "
			    "fit the compiled static array", o->lmrd ?
			    "LAT_ALLOC static" : "--alloc static", o->lat_max);
		if (p->mode == A_STATIC && p->regions > 1)
			die("%s: the static array holds one chase buffer, "
			    "not %d", o->lmrd ? "LAT_ALLOC static" :
			    "--alloc static", p->regions);
		if (o->load_threads > 0) {
			/* each load thread reads its own array, allocated later:
			 * count it now, before anything is measured */
			unsigned long long each = o->lat_max > LAT_LOAD_MIN_BYTES ?
						  o->lat_max : LAT_LOAD_MIN_BYTES;
			unsigned long long need = o->lat_max +
						  each * (unsigned long long)o->load_threads;
			unsigned long long room = address_space_bytes();
			/* the division keeps each * load_threads from overflowing */
			if ((unsigned long long)o->load_threads + 1 > room / each) {
				format_bytes(b1, sizeof(b1), each);
				format_bytes(b2, sizeof(b2), room);
				die("--load-threads %d: the chase and %d load arrays of "
				    "%s are more than this %d-bit build can map (%s)",
				    o->load_threads, o->load_threads, b1,
				    (int)(sizeof(void *) * CHAR_BIT), b2);
			}
			if (phys && (each > phys ||
				     (unsigned long long)o->load_threads > phys / each ||
				     need > phys)) {
				format_bytes(b1, sizeof(b1), each);
				format_bytes(b2, sizeof(b2), phys);
				die("--load-threads %d: the load threads read %d arrays "
				    "of %s, more than this machine's physical memory "
				    "(%s)", o->load_threads, o->load_threads, b1, b2);
			}
		}
		p->bytes = (size_t)o->lat_max;
	} else {
		unsigned long long n = o->size, per, total;
		p->mode = o->alloc;
		p->regions = 3;
		/* the most elements whose three arrays fit under a memory
		 * limit (fit 0: none fits; ULLONG_MAX: no limit) */
		unsigned long long fit = ULLONG_MAX;
		p->room = box_room();
		if (p->room != ULLONG_MAX) {
			unsigned long long pad = 3 * (o->stagger + o->offset *
						      sizeof(elem_t));
			fit = p->room > pad ? (p->room - pad) / (3 * sizeof(elem_t))
					    : 0;
		}
		if (o->size_auto) {
			/* never below the compiled size; the three arrays take at
			 * most half of memory; static arrays keep their size */
			unsigned long long cap = phys / (6 * sizeof(elem_t)),
					   room = address_space_bytes() / 2 /
						  (3 * sizeof(elem_t));
			if (!cap || cap > room)
				cap = room;
			n = STREAM_ARRAY_SIZE;
			if (p->rule_elems > n)
				n = p->rule_elems;
			if (cap && n > cap)
				n = cap;
			if (p->mode == A_STATIC && n > STREAM_ARRAY_SIZE)
				n = STREAM_ARRAY_SIZE;
		}
		if ((o->size_auto || !opt_given(o, "size")) && n > fit && fit >= 2) {
			/* a size bench chose: capped, and said */
			p->wanted = n;
			n = fit;
			box_capped(o->size_auto ? "--size auto's arrays"
				   : "the default array size", p->wanted, n,
				   " elements");
		}
		if (n > fit) {
			char lim[BOX_TEXT + 64];
			box_limit_words(lim, sizeof(lim));
			if (fit < 2)
				die("--size: %s leaves no room for the arrays "
				    "(bench keeps %d MiB and 1/%d of it for itself)",
				    lim, BENCH_HEADROOM_MIB, BENCH_HEADROOM_SHARE);
			die("--size: 3 arrays of %llu elements need %.1f MiB, more "
			    "than %s allows with bench's own headroom; the largest "
			    "that fits is --size %llu", n,
			    (double)((n + o->offset) * sizeof(elem_t) * 3 +
				     3 * o->stagger) / 1048576.0, lim, fit);
		}
		per = (n + o->offset) * sizeof(elem_t);
		total = 3 * per + 3 * o->stagger;
		if (n > (ULLONG_MAX / 4 - o->offset) / sizeof(elem_t))
			die("--size: %llu elements overflow this machine's address "
			    "space", n);
		if (total > address_space_bytes())
			die("--size: 3 arrays of %llu elements need %.1f MiB, more "
			    "than this %d-bit build can map (%.1f MiB)", n,
			    (double)total / 1048576.0,
			    (int)(sizeof(void *) * CHAR_BIT),
			    (double)address_space_bytes() / 1048576.0);
		if (phys && total > phys)
			die("--size: 3 arrays of %llu elements need %.1f MiB but this "
			    "machine has %.1f MiB of physical memory", n,
			    (double)total / 1048576.0, (double)phys / 1048576.0);
		if (p->mode == A_STATIC) {
			static_arrays_check(o, n);
		} else {
			p->stagger = (size_t)o->stagger;
			layout_shifts(p->shift, o);
		}
		p->elems = n;
		p->bytes = (size_t)n * sizeof(elem_t);
	}
	for (i = 0; i < p->regions; i++) {
		p->total += p->bytes + p->shift[i];
		if (p->huge_page)
			pagesum += (p->bytes + p->shift[i] + p->huge_page - 1) /
				   p->huge_page;
	}
	/* static arrays are one block of .bss, each the compiled size */
	if (p->mode == A_STATIC && p->huge_page)
		pagesum = (p->regions * STATIC_BYTES + p->huge_page - 1) /
			  p->huge_page;
	p->huge_pages = (size_t)pagesum;
	snprintf(p->flag, sizeof(p->flag), "%s %s",
		 o->lmrd ? "LAT_ALLOC" : "--alloc", alloc_names[p->mode]);
#ifdef _WIN32
	if (p->mode == A_SHM)
		die("%s: Windows has no System V shared memory", p->flag);
#endif
	if (p->mode == A_HUGETLB) {
		if (!p->huge_page)
			die("%s: this kernel reports no huge page size", p->flag);
		if (check_pool)
			hugetlb_check_pool(p->huge_pages, p->flag, p->page_size);
	}
	if (p->mode == A_SHM && p->page_size && check_pool)
		hugetlb_check_pool(p->huge_pages, p->flag, p->page_size);
}

struct region {
	void *map;    /* what was obtained (for release) */
	size_t maplen;
	void *data;   /* where the array starts */
	size_t bytes; /* bytes the array uses */
	enum alloc_mode mode;
};

/* One region of `bytes` (plus `shift` before them) by mode; hugetlb and
 * shm on huge pages of `page` bytes where page is not 0 (--page-size:
 * hugetlb then asks for that size, shm for huge pages at all). */
static int region_alloc(struct region *r, size_t bytes, enum alloc_mode mode,
			size_t shift, elem_t *static_array, size_t page)
{
	size_t len = bytes + shift;
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->bytes = bytes;
	switch (mode) {
	case A_STATIC:
		r->data = static_array;
		return static_array ? 0 : -1;
	case A_MALLOC: {
		void *p = os_aligned_alloc(len);
		if (!p)
			return -1;
		r->map = p;
		break;
	}
	case A_MMAP:
	case A_THP: {
		/* THP needs 2 MiB-aligned virtual ranges to use huge pages:
		 * the mapping has room for the array's whole last huge page
		 * after the aligned start, and then a guard page
		 * (os_guard_last_page), so the advice never reaches the next
		 * array's mapping, which the kernel would merge with it. */
		size_t align = mode == A_THP ? HUGE_2M : 0;
		size_t maplen = (align ? round_up(len, align) + align
				       : round_up(len, 4096)) + 4096;
		char *p = os_map(maplen);
		if (!p)
			return -1;
		r->map = p;
		r->maplen = maplen;
		os_guard_last_page(p, maplen);
		if (align) {
			uintptr_t u = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
			p = (char *)u;
#ifdef MADV_HUGEPAGE
			madvise(p, round_up(len, align), MADV_HUGEPAGE);
#endif
		}
		r->data = p + shift;
		return 0;
	}
	case A_HUGETLB: {
		size_t hp = page ? page : hugetlb_page_bytes();
		size_t maplen = round_up(len, hp ? hp : HUGE_2M);
		char *p = os_map_huge(maplen, page);
		if (!p)
			return -1;
		r->map = p;
		r->maplen = maplen;
		r->data = p + shift;
		return 0;
	}
	case A_SHM: {
		void *p = os_shm_alloc(page ? round_up(len, page) : len, page);
		if (!p)
			return -1;
		r->map = p;
		r->data = (char *)p + shift;
		return 0;
	}
	}
	r->data = (char *)r->map + shift;
	return 0;
}

static void region_free(struct region *r)
{
	switch (r->mode) {
	case A_STATIC:
		break;
	case A_MALLOC:
		os_aligned_free(r->map);
		break;
	case A_MMAP:
	case A_THP:
	case A_HUGETLB:
		if (r->map)
			os_unmap(r->map, r->maplen);
		break;
	case A_SHM:
		if (r->map)
			os_shm_free(r->map);
		break;
	}
	r->map = r->data = NULL;
}

/* Obtain every region of plan p into reg[]; what names each region in
 * the error message ("array a", "the chase buffer"). */
static void alloc_regions(const struct alloc_plan *p, struct region *reg)
{
	elem_t *statics[MAX_REGIONS] = {NULL};
	int i;
#if !BENCH_NO_STATIC
	statics[0] = static_a;
	statics[1] = static_b;
	statics[2] = static_c;
#endif
	for (i = 0; i < p->regions; i++) {
		char what[32];
		if (region_alloc(&reg[i], p->bytes, p->mode, p->shift[i],
				 statics[i], p->page_size) == 0)
			continue;
		if (p->part == M_LATENCY)
			snprintf(what, sizeof(what), "the chase buffer");
		else
			snprintf(what, sizeof(what), "array %c", array_names[i]);
		die("%s: could not obtain %.1f MiB for %s (%s)", p->flag,
		    (double)p->bytes / 1048576.0, what, strerror(errno));
	}
}

/* Size of a transparent huge page (PMD) in KiB; 2048 if unknown. */
static unsigned long thp_page_kib(void)
{
	char path[512], buf[64];
	snprintf(path, sizeof(path),
		 "%s/kernel/mm/transparent_hugepage/hpage_pmd_size", sysfs_root());
	if (read_first_line(path, buf, sizeof(buf)) == 0 && atol(buf) > 0)
		return (unsigned long)(atol(buf) / 1024);
	return 2048;
}

/* The page size a region of plan p will most likely get, known before
 * it is touched: --page-size's, or the huge page pool's for hugetlb; a
 * transparent huge page where THP will serve it (THP always, or madvise
 * for thp, which asks for it; System V segments follow shmem's own
 * setting, not asked here); else the base page.  The page report says
 * afterwards what it got. */
static size_t expected_page_bytes(const struct alloc_plan *p)
{
	char path[512], line[128];
	const char *lb, *rb;
	size_t base = (size_t)os_page_bytes();
	enum alloc_mode mode = p->mode;
	if (p->page_size)
		return p->page_size;
	if (mode == A_HUGETLB)
		return hugetlb_page_bytes() ? hugetlb_page_bytes() : base;
	if (mode == A_SHM)
		return base;
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled",
		 sysfs_root());
	if (read_first_line(path, line, sizeof(line)) != 0 ||
	    !(lb = strchr(line, '[')) || !(rb = strchr(lb, ']')))
		return base;
	if ((rb - lb == 7 && strncmp(lb, "[always]", 8) == 0) ||
	    (mode == A_THP && rb - lb == 8 && strncmp(lb, "[madvise]", 9) == 0))
		return (size_t)thp_page_kib() * 1024;
	return base;
}

/* What the kernel really gave us for [addr, addr+bytes), from smaps:
 * the page size of the mapping that holds most of it and the share of
 * resident memory on huge pages (THP, hugetlbfs or shmem THP); and that
 * mapping (VMA) itself as the kernel describes it, so a test can check
 * which allocator served the array against an independent source. */
struct page_report {
	int known;
	unsigned long page_kib;        /* the page size most memory sits on */
	unsigned long kernel_page_kib; /* the mapping's KernelPageSize */
	double huge_pct;
	/* the VMA that holds most of the array; its fields are the VMA's
	 * own, so they cover the other arrays that share it */
	unsigned long long vma_start, vma_end;
	unsigned long long start, end; /* the array's own range */
	int vmas;                      /* VMAs the array overlaps */
	char vma_name[256];            /* "" anonymous, [heap], /SYSV..., a path */
	unsigned long long inode;      /* SysV shm: the segment's shmid */
	unsigned long mmu_page_kib;
	unsigned long long rss_kib, anon_huge_kib, hugetlb_kib;
	char vmflags[160];             /* "rd wr mr mw me ac hg", "" unknown */
};

/* The fields of the VMA currently read from smaps. */
struct smaps_vma {
	unsigned long long start, end, inode;
	char name[256];
	unsigned long kps, mmu;
	unsigned long long rss, anon_huge, hugetlb;
	char vmflags[160];
};

/* Keep v's mapping in pr when it covers more of the array than the one
 * kept so far. */
static void page_report_keep(struct page_report *pr, const struct smaps_vma *v,
			     unsigned long long cover, unsigned long long *best)
{
	if (cover <= *best)
		return;
	*best = cover;
	pr->kernel_page_kib = v->kps;
	pr->mmu_page_kib = v->mmu;
	pr->vma_start = v->start;
	pr->vma_end = v->end;
	pr->inode = v->inode;
	pr->rss_kib = v->rss;
	pr->anon_huge_kib = v->anon_huge;
	pr->hugetlb_kib = v->hugetlb;
	memcpy(pr->vma_name, v->name, sizeof(pr->vma_name));
	memcpy(pr->vmflags, v->vmflags, sizeof(pr->vmflags));
}

static void page_report(const void *addr, size_t bytes, struct page_report *pr)
{
	FILE *f;
	char line[512];
	uintptr_t lo = (uintptr_t)addr, hi = lo + bytes;
	int inside = 0;
	unsigned long long best = 0, cover = 0, rss = 0, huge = 0;
	struct smaps_vma v;

	memset(pr, 0, sizeof(*pr));
	memset(&v, 0, sizeof(v));
	pr->start = lo;
	pr->end = hi;
	f = open_self_smaps();
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, val;
		char key[64];
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %llu %n", &s, &e,
			   &val, &name_at) == 3 && name_at > 0 &&
		    isxdigit((unsigned char)line[0])) {
			size_t n;
			if (inside) /* the VMA before this header is complete */
				page_report_keep(pr, &v, cover, &best);
			inside = s < hi && e > lo;
			if (!inside)
				continue;
			memset(&v, 0, sizeof(v));
			v.start = s;
			v.end = e;
			v.inode = val;
			snprintf(v.name, sizeof(v.name), "%.255s", line + name_at);
			n = strlen(v.name);
			while (n > 0 && isspace((unsigned char)v.name[n - 1]))
				v.name[--n] = '\0';
			cover = (e < hi ? e : hi) - (s > lo ? s : lo);
			pr->vmas++;
			continue;
		}
		if (!inside)
			continue;
		if (strncmp(line, "VmFlags:", 8) == 0) {
			size_t n;
			const char *fl = line + 8;
			while (*fl == ' ')
				fl++;
			snprintf(v.vmflags, sizeof(v.vmflags), "%.159s", fl);
			n = strlen(v.vmflags);
			while (n > 0 && isspace((unsigned char)v.vmflags[n - 1]))
				v.vmflags[--n] = '\0';
			continue;
		}
		if (sscanf(line, "%63[^:]: %llu", key, &val) != 2)
			continue;
		if (strcmp(key, "Rss") == 0) {
			rss += val;
			v.rss = val;
		} else if (strcmp(key, "AnonHugePages") == 0 ||
			   strcmp(key, "ShmemPmdMapped") == 0 ||
			   strcmp(key, "FilePmdMapped") == 0) {
			huge += val;
			v.anon_huge += val;
		} else if (strcmp(key, "Private_Hugetlb") == 0 ||
			   strcmp(key, "Shared_Hugetlb") == 0) {
			/* hugetlb pages are not counted in Rss */
			huge += val;
			rss += val;
			v.hugetlb += val;
		} else if (strcmp(key, "KernelPageSize") == 0) {
			v.kps = (unsigned long)val;
		} else if (strcmp(key, "MMUPageSize") == 0) {
			v.mmu = (unsigned long)val;
		}
	}
	if (inside)
		page_report_keep(pr, &v, cover, &best);
	fclose(f);
	pr->known = best > 0;
	pr->page_kib = pr->kernel_page_kib;
	pr->huge_pct = rss ? 100.0 * (double)huge / (double)rss : 0.0;
	if (pr->huge_pct > 100.0)
		pr->huge_pct = 100.0;
	/* THP keeps KernelPageSize at the base size; when most memory is on
	 * transparent huge pages, report their size instead. */
	if (pr->huge_pct >= 50.0 && pr->kernel_page_kib < thp_page_kib())
		pr->page_kib = thp_page_kib();
}

/* --page-size's pages, as smaps says the kernel gave them: a mapping
 * whose KernelPageSize is another size is said (it cannot be, when
 * mmap and shmget are given the size; this checks that it was not). */
static void page_size_verify(const struct alloc_plan *p,
			     const struct page_report *pr, const char *what)
{
	char b[32];
	if (!p->page_size || !pr->known ||
	    (unsigned long long)pr->kernel_page_kib * 1024 == p->page_size)
		return;
	format_bytes(b, sizeof(b), p->page_size);
	warn("--page-size %s: %s is on pages of %lu KiB (smaps' KernelPageSize), "
	     "not the %s asked for", b, what, pr->kernel_page_kib, b);
}

/* One compact line's worth of pr's mapping into buf: the array's own
 * range and size, then the mapping (VMA) that holds it, its size, name,
 * page size, huge coverage and the kernel's VmFlags.  The kernel merges
 * neighbouring mappings of the same kind, so a mapping may hold other
 * arrays too: shared names them ("b", "a and c"; NULL or "" for none),
 * and the mapping's figures are then theirs as well. */
static void format_mapping(char *buf, size_t len, const struct page_report *pr,
			   const char *shared)
{
	char size[32], own[32];
	if (!pr->known) {
		snprintf(buf, len, "unknown (no smaps on this system)");
		return;
	}
	format_bytes(own, sizeof(own), pr->end - pr->start);
	format_bytes(size, sizeof(size), pr->vma_end - pr->vma_start);
	snprintf(buf, len, "%llx-%llx (%s) in %llx-%llx (%s%s%s%s) %s, "
		 "KernelPageSize %lu KiB, AnonHugePages %llu KiB, Hugetlb %llu "
		 "KiB, VmFlags %s", pr->start, pr->end, own,
		 pr->vma_start, pr->vma_end, size,
		 pr->vmas > 1 ? ", one of several" : "",
		 shared && *shared ? ", which holds " : "",
		 shared && *shared ? shared : "",
		 pr->vma_name[0] ? pr->vma_name : "anonymous",
		 pr->kernel_page_kib, pr->anon_huge_kib, pr->hugetlb_kib,
		 pr->vmflags[0] ? pr->vmflags : "unknown");
}

/* --placement: where the array really sits in physical memory, page by
 * page, from /proc/self/pagemap (one 64-bit entry per virtual page: bit
 * 63 present, bits 0-54 the frame number).  The kernel shows frame
 * numbers only to CAP_SYS_ADMIN; everyone else reads them as 0, which
 * is detected and said, never reported as frames.  Huge page coverage
 * comes from /proc/kpageflags where readable (root), else from smaps;
 * the NUMA node of each page from move_pages(2) in query mode. */
#define PHYS_MAX_NODES SHAPE_MAX_NODES
/* node_pages[] has one more slot: the pages whose node the kernel would
 * not say (move_pages cannot see a page NUMA balancing is scanning) */
#define NODE_UNKNOWN PHYS_MAX_NODES
#define PHYS_BATCH 4096 /* pagemap entries read at once */
#define PAGEMAP_PRESENT (1ULL << 63)
#define PAGEMAP_PFN ((1ULL << 55) - 1)
#define KPF_HUGE_BIT 17 /* hugetlbfs page */
#define KPF_THP_BIT 22  /* transparent huge page */

enum { PHYS_OK, PHYS_UNSUPPORTED, PHYS_NO_PAGEMAP, PHYS_NO_PFN };

struct phys_report {
	int state;
	char why[128];          /* when state is not PHYS_OK */
	unsigned long page_bytes;
	unsigned long long pages, present;
	unsigned long long runs;        /* runs of consecutive frames */
	unsigned long long longest;     /* pages in the longest run */
	unsigned long long pfn_lo, pfn_hi;
	int huge_known;                 /* kpageflags was readable */
	unsigned long long huge;        /* pages kpageflags marks huge */
	int nodes_known;
	unsigned long long node_pages[PHYS_MAX_NODES + 1]; /* and NODE_UNKNOWN */
};

/* Pages per NUMA node of [lo, lo + pages * page), one base page at a
 * time, asked of the kernel (os_page_nodes: move_pages(2) in query
 * mode), into count[] (by node id; a page it gives no node for, as one
 * NUMA balancing is scanning, or one on a node id of PHYS_MAX_NODES or
 * more, in count[NODE_UNKNOWN]); 0 when it will not say at all (a
 * kernel without NUMA, another OS). */
static int page_nodes(uintptr_t lo, unsigned long long pages,
		      unsigned long page, unsigned long long *count)
{
	int ids[PHYS_MAX_NODES], i;
	unsigned long long other = 0, absent = 0;
	for (i = 0; i < PHYS_MAX_NODES; i++)
		ids[i] = i;
	if (os_page_nodes(lo, pages, page, ids, PHYS_MAX_NODES, count, &other,
			  &absent) != 0)
		return 0;
	count[NODE_UNKNOWN] += other + absent;
	return 1;
}

#ifdef __linux__
/* Pages of run [pfn, pfn+n) that kpageflags marks as huge; -1 if the
 * file cannot be read. */
static long long phys_huge_pages(FILE *kf, unsigned long long pfn,
				 unsigned long long n)
{
	uint64_t flags[PHYS_BATCH];
	long long huge = 0;
	while (n > 0) {
		size_t k, want = n < PHYS_BATCH ? (size_t)n : PHYS_BATCH;
		if (pread(fileno(kf), flags, want * 8, (off_t)(pfn * 8)) !=
		    (ssize_t)(want * 8))
			return -1;
		for (k = 0; k < want; k++)
			huge += (flags[k] >> KPF_HUGE_BIT & 1) ||
				(flags[k] >> KPF_THP_BIT & 1);
		pfn += want;
		n -= want;
	}
	return huge;
}

/* Close a run of n consecutive frames from pfn: count it, and ask
 * kpageflags (while it reads) how many of its frames are huge. */
static void phys_run_end(struct phys_report *pr, FILE **kf,
			 unsigned long long pfn, unsigned long long n)
{
	if (n == 0)
		return;
	pr->runs++;
	if (n > pr->longest)
		pr->longest = n;
	if (*kf && pfn) {
		long long h = phys_huge_pages(*kf, pfn, n);
		if (h < 0) {
			fclose(*kf);
			*kf = NULL;
			pr->huge_known = 0;
		} else {
			pr->huge += (unsigned long long)h;
		}
	}
}

/* Walk the pagemap of [addr, addr+bytes) once, in virtual order; a run
 * is a stretch of present pages whose frames follow one another. */
static void phys_report(const void *addr, size_t bytes, struct phys_report *pr)
{
	unsigned long page = (unsigned long)os_page_bytes();
	uintptr_t lo = (uintptr_t)addr / page * page;
	unsigned long long npages = ((uintptr_t)addr + bytes - lo + page - 1) / page;
	unsigned long long i = 0, run_pfn = 0, run = 0, nonzero = 0;
	uint64_t e[PHYS_BATCH];
	FILE *f, *kf;

	memset(pr, 0, sizeof(*pr));
	pr->page_bytes = page;
	pr->pages = npages;
	f = fopen("/proc/self/pagemap", "rb");
	if (!f) {
		pr->state = PHYS_NO_PAGEMAP;
		snprintf(pr->why, sizeof(pr->why), "/proc/self/pagemap: %s",
			 strerror(errno));
		return;
	}
	kf = fopen("/proc/kpageflags", "rb");
	pr->huge_known = kf != NULL;
	pr->pfn_lo = ULLONG_MAX;
	while (i < npages && pr->state == PHYS_OK) {
		size_t k, want = npages - i < PHYS_BATCH ? (size_t)(npages - i)
							  : PHYS_BATCH;
		if (pread(fileno(f), e, want * 8, (off_t)((lo / page + i) * 8)) !=
		    (ssize_t)(want * 8)) {
			pr->state = PHYS_NO_PAGEMAP;
			snprintf(pr->why, sizeof(pr->why),
				 "/proc/self/pagemap: short read");
			break;
		}
		for (k = 0; k < want; k++) {
			unsigned long long pfn = e[k] & PAGEMAP_PFN;
			if (!(e[k] & PAGEMAP_PRESENT)) {
				phys_run_end(pr, &kf, run_pfn, run);
				run = 0;
				continue;
			}
			pr->present++;
			if (pfn) {
				nonzero++;
				pr->pfn_lo = pfn < pr->pfn_lo ? pfn : pr->pfn_lo;
				pr->pfn_hi = pfn > pr->pfn_hi ? pfn : pr->pfn_hi;
			}
			if (run > 0 && pfn && pfn == run_pfn + run) {
				run++;
				continue;
			}
			phys_run_end(pr, &kf, run_pfn, run);
			run_pfn = pfn;
			run = 1;
		}
		i += want;
	}
	phys_run_end(pr, &kf, run_pfn, run);
	fclose(f);
	if (kf)
		fclose(kf);
	if (pr->state == PHYS_OK && pr->present > 0 && nonzero == 0) {
		pr->state = PHYS_NO_PFN;
		snprintf(pr->why, sizeof(pr->why),
			 "frame numbers read as 0: reading them needs "
			 "CAP_SYS_ADMIN (run as root)");
	}
	if (pr->state != PHYS_OK)
		pr->huge_known = 0;
	if (nonzero == 0)
		pr->pfn_lo = 0;
	pr->nodes_known = page_nodes(lo, npages, page, pr->node_pages);
}
#else
static void phys_report(const void *addr, size_t bytes, struct phys_report *pr)
{
	(void)addr;
	(void)bytes;
	memset(pr, 0, sizeof(*pr));
	pr->state = PHYS_UNSUPPORTED;
	snprintf(pr->why, sizeof(pr->why),
		 "no /proc/self/pagemap on this system");
}
#endif

/* ======================================================================
 * 6 Timing.
 * ====================================================================== */

static double now(void)
{
#ifdef _WIN32
	/* QueryPerformanceCounter: Windows' monotonic clock */
	static double tick;
	LARGE_INTEGER c;
	if (!tick) {
		LARGE_INTEGER f;
		QueryPerformanceFrequency(&f);
		tick = 1.0 / (double)f.QuadPart;
	}
	QueryPerformanceCounter(&c);
	return (double)c.QuadPart * tick;
#else
	struct timeval tv;
#if defined(CLOCK_MONOTONIC)
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
#endif
}

/* Smallest step the clock can show, in seconds: the least difference
 * between two successive distinct readings, over 20 tries. */
static double timer_granularity(void)
{
	double best = 1.0;
	int i;
	for (i = 0; i < 20; i++) {
		double t0 = now(), t1;
		while ((t1 = now()) == t0)
			;
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Median of n values (n >= 1); sorts a copy. */
static double median(const double *v, size_t n)
{
	double *t = malloc(n * sizeof(*t)), m;
	if (!t)
		return v[0];
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_double);
	m = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
	free(t);
	return m;
}

/* Natural log and exp in plain arithmetic: `cc bench.c` links no libm.
 * Accurate to about 1e-12, far below any latency's noise. */
static double lat_ln(double x)
{
	double k = 0, z, z2, term, sum = 0;
	int i;
	if (!finite_d(x) || !(x > 0))
		return x > 0 ? HUGE_VAL : -HUGE_VAL; /* no loop over infinity */
	while (x >= 2) {
		x /= 2;
		k++;
	}
	while (x < 1) {
		x *= 2;
		k--;
	}
	/* ln x = 2 atanh((x-1)/(x+1)); |z| <= 1/3 converges fast */
	z = (x - 1) / (x + 1);
	z2 = z * z;
	term = z;
	for (i = 1; i < 60; i += 2) {
		sum += term / i;
		term *= z2;
	}
	return k * 0.69314718055994530942 + 2 * sum;
}

static double lat_exp(double y)
{
	double r = 1, term = 1;
	int i, halvings = 0;
	while (y > 0.5 || y < -0.5) {
		y /= 2;
		halvings++;
	}
	for (i = 1; i < 30; i++) {
		term *= y / i;
		r += term;
	}
	while (halvings-- > 0)
		r *= r;
	return r;
}

/* The geometric mean of two sizes. */
static double lat_geomean(double a, double b)
{
	return lat_exp(0.5 * (lat_ln(a) + lat_ln(b)));
}

/* Octaves from size a up to size b. */
static double lat_octaves(double a, double b)
{
	return lat_ln(b / a) / lat_ln(2.0);
}

/* The median of three values, without sorting. */
static double lat_median3(double a, double b, double c)
{
	double lo = a < b ? a : b, hi = a < b ? b : a;
	return c < lo ? lo : c > hi ? hi : c;
}

/* The running median of a growing window: a max-heap of its lower half
 * (negated) and a min-heap of its upper half, log n a point, so a curve
 * of a million points (--curve-in) is read in well under a second. */
struct runmed {
	double *lo, *hi;
	int nlo, nhi;
};

static void heap_push(double *h, int *n, double v)
{
	int i = (*n)++;
	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static double heap_pop(double *h, int *n)
{
	double top = h[0], v = h[--*n];
	int i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = v;
	return top;
}

static void runmed_add(struct runmed *r, double v)
{
	if (r->nlo == 0 || v <= -r->lo[0])
		heap_push(r->lo, &r->nlo, -v);
	else
		heap_push(r->hi, &r->nhi, v);
	if (r->nlo > r->nhi + 1)
		heap_push(r->hi, &r->nhi, -heap_pop(r->lo, &r->nlo));
	else if (r->nhi > r->nlo)
		heap_push(r->lo, &r->nlo, -heap_pop(r->hi, &r->nhi));
}

/* The same value median() gives for the window. */
static double runmed_get(const struct runmed *r)
{
	return r->nlo > r->nhi ? -r->lo[0] : 0.5 * (-r->lo[0] + r->hi[0]);
}

/* ======================================================================
 * 7 Threads: how many, where they run, and who decided.
 * ====================================================================== */

static int thread_cpu_start[MAX_THREADS];
static int thread_cpu_end[MAX_THREADS];
static int threads_counted = 1;

/* The first OpenMP binding variable the user set, or NULL. */
static const char *omp_binding_env(void)
{
	static const char *const vars[] = {
		"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY", "KMP_AFFINITY"
	};
	size_t i;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v && *v)
			return vars[i];
	}
	return NULL;
}

static int thread_id(void)
{
#ifdef _OPENMP
	return omp_get_thread_num();
#else
	return 0;
#endif
}

static int thread_count(void)
{
#ifdef _OPENMP
	return omp_get_num_threads();
#else
	return 1;
#endif
}

/* Threads the next parallel region will get (STREAM's "requested"). */
static int threads_requested(void)
{
#ifdef _OPENMP
	return omp_get_max_threads();
#else
	return 1;
#endif
}

/* Who chose the thread count under a CPU quota, in words for the
 * header ("" where there is no quota); over_quota: more threads than
 * the quota's CPUs, which take turns on them. */
static char threads_quota_text[BOX_TEXT + 128];
static int threads_over_quota;

/* n threads at once above the CPU quota (rounded up): they still run,
 * but take turns on the quota's time, so what they time is the turns,
 * not the machine.  Said in the warnings (text and JSON), after who
 * starts them ("" for the run's own threads); 1 when above, for the
 * run to mark. */
static int quota_over(int n, const char *who)
{
	const struct box_limits *b = os_box_limits();
	int quota = box_cpus();
	if (quota <= 0 || n <= quota)
		return 0;
	warn("%s%d threads under a CPU quota of %.2f CPUs (%.200s): they "
	     "take turns on the time of %d CPU%s, and the figures are not the "
	     "machine's", who, n, b->cpus, b->cpu_source, quota,
	     quota == 1 ? "" : "s");
	return 1;
}

static void setup_threads(const struct options *o)
{
	const struct box_limits *b = os_box_limits();
	int quota = box_cpus();
#ifdef _OPENMP
	const char *env = getenv("OMP_NUM_THREADS");
	int given = o->threads > 0 || (env && *env);
	if (quota > 0 && !given && omp_get_max_threads() > quota) {
		/* as Go's GOMAXPROCS and the JVM do: the quota, rounded up */
		omp_set_num_threads(quota);
		snprintf(threads_quota_text, sizeof(threads_quota_text),
			 "%d, from the CPU quota of %.2f CPUs (%.200s), not the "
			 "allowed CPUs", quota, b->cpus, b->cpu_source);
	}
#endif
	if (quota > 0 && !threads_quota_text[0])
		snprintf(threads_quota_text, sizeof(threads_quota_text),
			 "%d under a CPU quota of %.2f CPUs (%.200s)",
			 o->threads > 0 ? (int)o->threads : threads_requested(),
			 b->cpus, b->cpu_source);
#ifdef _OPENMP
	if (o->threads > 0)
		omp_set_num_threads((int)o->threads);
	/* however the count arrives (-t, OMP_NUM_THREADS), the same limit */
	else if (omp_get_max_threads() > MAX_THREADS)
		die("OMP_NUM_THREADS: %d threads is above the maximum %d",
		    omp_get_max_threads(), MAX_THREADS);
#else
	if (o->threads > 1)
		die("--threads %ld: this bench was built without OpenMP "
		    "(rebuild with -fopenmp)", o->threads);
#endif
	threads_over_quota = quota_over(threads_requested(), "");
}

/* -- Where --bind auto puts the threads --------------------------------
 * One thread a core, the cores of every package in turn, before any
 * core gets a second thread on an SMT sibling: OpenMP's spread rule over
 * places that are cores, which is what OMP_PROC_BIND=spread
 * OMP_PLACES=cores gives.  The places are the cores this process may
 * use, ordered by package, node and number, so threads 0..T/2-1 (and the
 * first half of each array, which they touch first) are on the first
 * package.  With T threads on P cores: T <= P gives the first core of
 * each of T runs of P/T cores (the first P%T runs one core longer); T > P
 * gives each core T/P threads in a row (the first T%P cores one more),
 * its SMT siblings in turn.  Where the shape is unknown, or does not
 * list a CPU this process may use, thread i goes to the i-th allowed
 * CPU, as bench always did there. */

enum bind_rule { BIND_NONE, BIND_ENV, BIND_SPREAD, BIND_ALLOWED };
static const char *const bind_rule_names[] = {"none", "openmp_env",
					      "spread_cores", "allowed_order"};

static struct bind_plan {
	enum bind_rule rule;
	int nthreads;
	int cpu_of[MAX_THREADS];      /* -1: not pinned */
	int cores, cores_all;         /* cores used, cores allowed */
	int packages, packages_all;   /* the same of packages */
	int per_core, per_cpu;        /* the most threads on one core, one CPU */
	char nodes[256];              /* the nodes the threads run on */
} bind_plan;

struct bind_key {
	int package, node, core, thread, id;
};

static int cmp_bind_key(const void *x, const void *y)
{
	const struct bind_key *a = x, *b = y;
	if (a->package != b->package)
		return a->package < b->package ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* What the plan spread over: cores, packages and nodes used, and the
 * most threads that share a core or a CPU. */
static void bind_plan_count(struct bind_plan *b, const struct bind_key *k,
			    int n)
{
	const struct machine_shape *m = machine_shape();
	int used[SHAPE_MAX_CPUS], nodes[SHAPE_MAX_NODES], nn = 0, i, j;
	memset(used, 0, sizeof(used));
	b->cores = b->packages = b->cores_all = b->packages_all = 0;
	b->per_core = b->per_cpu = 0;
	for (i = 0; i < b->nthreads; i++)
		for (j = 0; j < n; j++)
			if (k[j].id == b->cpu_of[i])
				used[j]++;
	for (i = 0; i < n; i++) {
		int core_threads = 0, pkg_used = 0, first_core = 1, first_pkg = 1;
		for (j = 0; j < n; j++) {
			if (k[j].core == k[i].core) {
				core_threads += used[j];
				first_core &= j >= i;
			}
			if (k[j].package == k[i].package) {
				pkg_used += used[j];
				first_pkg &= j >= i;
			}
		}
		b->cores_all += first_core;
		b->cores += first_core && core_threads;
		b->packages_all += first_pkg;
		b->packages += first_pkg && pkg_used;
		if (core_threads > b->per_core)
			b->per_core = core_threads;
		if (used[i] > b->per_cpu)
			b->per_cpu = used[i];
		if (used[i] && k[i].node >= 0 && m->nodes_known) {
			for (j = 0; j < nn && nodes[j] != k[i].node; j++)
				;
			if (j == nn && nn < SHAPE_MAX_NODES)
				nodes[nn++] = k[i].node;
		}
	}
	/* ascending, for the list */
	for (i = 1; i < nn; i++)
		for (j = i; j > 0 && nodes[j - 1] > nodes[j]; j--) {
			int x = nodes[j];
			nodes[j] = nodes[j - 1];
			nodes[j - 1] = x;
		}
	format_cpu_list(b->nodes, sizeof(b->nodes), nodes, nn);
}

/* Plan where nt threads go (bind_plan) from the shape and the CPUs this
 * process may use. */
static void plan_binding(int nt)
{
	const struct machine_shape *m = machine_shape();
	static struct bind_key k[MAX_THREADS];
	int cpus[MAX_THREADS], start[MAX_THREADS], len[MAX_THREADS];
	int n = allowed_cpus(cpus, MAX_THREADS), np = 0, i;
	struct bind_plan *b = &bind_plan;
	b->nthreads = nt < MAX_THREADS ? nt : MAX_THREADS;
	b->rule = n > 0 ? BIND_SPREAD : BIND_NONE;
	for (i = 0; i < n; i++) {
		const struct shape_cpu *c = shape_cpu(m, cpus[i]);
		if (!c || !m->topology_known) {
			b->rule = BIND_ALLOWED;
			break;
		}
		k[i].package = c->package;
		k[i].node = c->node;
		k[i].core = c->core;
		k[i].thread = c->thread;
		k[i].id = c->id;
	}
	if (b->rule != BIND_SPREAD) {
		for (i = 0; i < b->nthreads; i++)
			b->cpu_of[i] = n > 0 ? cpus[i % n] : -1;
		return;
	}
	qsort(k, (size_t)n, sizeof(k[0]), cmp_bind_key);
	/* the places: runs of one core's CPUs */
	for (i = 0; i < n; i++)
		if (i == 0 || k[i].core != k[i - 1].core) {
			start[np] = i;
			len[np++] = 1;
		} else {
			len[np - 1]++;
		}
	if (b->nthreads <= np) {
		int s = np / b->nthreads, rest = np % b->nthreads;
		for (i = 0; i < b->nthreads; i++)
			b->cpu_of[i] = k[start[i * s + (i < rest ? i : rest)]].id;
	} else {
		int s = b->nthreads / np, rest = b->nthreads % np, p, t = 0;
		for (p = 0; p < np; p++) {
			int here = s + (p < rest), j;
			for (j = 0; j < here; j++)
				b->cpu_of[t++] = k[start[p] + j % len[p]].id;
		}
	}
	bind_plan_count(b, k, n);
}

/* Whether bench pins its own threads: only when asked (auto) and when
 * the user gave the OpenMP runtime no binding, which always wins. */
static int bench_pins(const struct options *o)
{
	return o->bind && !omp_binding_env();
}

/* The binding in words, and which rule decided it (bind_rule_names[]). */
static enum bind_rule describe_binding(const struct options *o, char *buf,
				       size_t len)
{
	static const char *const vars[] = {
		"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY", "KMP_AFFINITY"
	};
	const struct bind_plan *b = &bind_plan;
	size_t i, used = 0;
	if (omp_binding_env()) {
		/* every variable the runtime reads: spread means little
		 * without the places it spreads over */
		used = (size_t)snprintf(buf, len, "from");
		for (i = 0; i < sizeof(vars) / sizeof(vars[0]) && used < len; i++)
			if (getenv(vars[i]) && *getenv(vars[i]))
				used += (size_t)snprintf(buf + used, len - used, " %s=%s",
							 vars[i], getenv(vars[i]));
		return BIND_ENV;
	}
	if (!o->bind || b->rule == BIND_NONE) {
		snprintf(buf, len, "none (threads may migrate)");
		return BIND_NONE;
	}
	if (b->rule == BIND_ALLOWED) {
		snprintf(buf, len, "auto (bench pinned thread i to the i-th "
			 "allowed CPU)");
		return BIND_ALLOWED;
	}
	used = (size_t)snprintf(buf, len, "auto, spread over cores as "
				"OMP_PROC_BIND=spread OMP_PLACES=cores would: "
				"%d thread%s on %d of %d cores in %d of %d "
				"package%s", b->nthreads, b->nthreads == 1 ? "" : "s",
				b->cores, b->cores_all, b->packages, b->packages_all,
				b->packages_all == 1 ? "" : "s");
	if (b->nodes[0] && used < len)
		used += (size_t)snprintf(buf + used, len - used, ", node%s %s",
					 strpbrk(b->nodes, ",-") ? "s" : "",
					 b->nodes);
	if (b->per_cpu > 1 && used < len)
		snprintf(buf + used, len - used, ", up to %d on one CPU (more "
			 "threads than CPUs)", b->per_cpu);
	else if (b->per_core > 1 && used < len)
		snprintf(buf + used, len - used, ", up to %d on one core's SMT "
			 "siblings", b->per_core);
	else if (used < len)
		snprintf(buf + used, len - used, ", one a core");
	return BIND_SPREAD;
}

/* -- Each thread's span of the arrays ------------------------------------
 * Thread t of T works on [start(t), start(t+1)) of every array, in every
 * kernel and in first touch, so the thread that first touches a page,
 * and so chooses its node, is the one that uses it.  That holds only
 * when the boundaries fall on the boundaries of the pages the array
 * got: a 2 MiB page that two threads' spans share is placed by whichever
 * touches it first.  So the bandwidth program sets the grid
 * (span_grid): on a machine with more than one node, arrays on pages
 * larger than the base page are split on page boundaries, each
 * boundary the page boundary nearest the thread's equal share (no
 * thread's span is more than a page off it); elsewhere, and when the
 * arrays have fewer pages than the run has threads, spans are split on
 * cache lines, so no two threads write one line. */
static size_t span_grain;   /* elements from one page boundary to the next; 0: cache lines */
static size_t span_phase;   /* the first page boundary's element */

static void span_grid(size_t grain, size_t phase)
{
	span_grain = grain;
	span_phase = grain ? phase % grain : 0;
}

/* The grid point of (grain, phase) nearest x, within [0, n]. */
static size_t span_snap(size_t x, size_t grain, size_t phase, size_t n)
{
	long long k, at;
	if (!grain)
		return x;
	k = ((long long)x - (long long)phase + (long long)grain / 2) /
	    (long long)grain;
	if ((long long)x < (long long)phase - (long long)grain / 2)
		k = -1; /* below the first boundary: 0 */
	at = (long long)phase + k * (long long)grain;
	return at < 0 ? 0 : (size_t)at > n ? n : (size_t)at;
}

/* Where thread t of nt starts in [0, n) split on cache lines alone,
 * as even as whole lines allow; n for t == nt. */
static size_t span_line_start(size_t n, size_t t, size_t nt)
{
	size_t q, blocks, per, rem, b;
	q = CACHE_LINE / sizeof(elem_t) ? CACHE_LINE / sizeof(elem_t) : 1;
	blocks = (n + q - 1) / q;
	per = blocks / nt;
	rem = blocks % nt;
	b = t * per + (t < rem ? t : rem);
	return b * q < n ? b * q : n;
}

/* Where thread t of nt starts in [0, n); n for t == nt. */
static size_t span_start(size_t n, size_t t, size_t nt)
{
	if (t == 0 || t >= nt)
		return t == 0 ? 0 : n;
	if (span_grain)
		return span_snap((size_t)((unsigned long long)t * n / nt),
				 span_grain, span_phase, n);
	return span_line_start(n, t, nt);
}

/* This thread's share of [0, n): contiguous, in thread order, on the
 * grid.  First touch and every kernel use it. */
static void thread_span(size_t n, size_t *lo, size_t *hi)
{
	size_t t = (size_t)thread_id(), nt = (size_t)thread_count();
	*lo = span_start(n, t, nt);
	*hi = span_start(n, t + 1, nt);
}

/* ======================================================================
 * 8 Provenance: what was built, on what, and when.  Every report
 * carries it, so a number can always be traced to its conditions.
 * ====================================================================== */

#define MAX_CACHES 8

struct cache_info {
	int level;
	char type[16];
	unsigned long long bytes;
	int line;
	int instances; /* caches like it in the machine (distinct CPU sets) */
};

struct system_info {
	char hostname[256];
	char kernel[256];
	char machine[128];
	char cpu_model[256];
	char thp[32];
	char governor[64];
	char timestamp[32];
	long online_cpus;
	unsigned long long phys_mem;
	long long hp_total, hp_free, hp_rsvd, hp_kib;
	/* every huge page size the kernel offers (--page-size), its pool */
	int nhp;
	unsigned long long hp_size_kib[8];
	long long hp_size_total[8], hp_size_free[8];
	struct cache_info caches[MAX_CACHES];
	int ncaches;
	int hypervisor;          /* the CPU says it runs under one */
	const char *caches_fake; /* whose made-up sizes the caches are, or NULL */
	int line;                /* data cache line in bytes, 0 unknown */
	const char *line_source; /* where the OS said so */
	const struct machine_shape *shape; /* packages, cores, nodes */
	struct mem_policy policy;          /* the NUMA policy bench runs under */
	int numa_balancing;                /* kernel.numa_balancing; -1 unknown */
};

static const char *compiler_name(void)
{
#if defined(__INTEL_LLVM_COMPILER)
	return "icx";
#elif defined(__INTEL_COMPILER)
	return "icc";
#elif defined(__NVCOMPILER)
	return "nvc";
#elif defined(__clang__)
	return "clang";
#elif defined(__ibmxl__) || defined(__xlC__)
	return "xlc";
#elif defined(__TINYC__)
	return "tcc";
#elif defined(__GNUC__)
	return "gcc";
#else
	return "unknown";
#endif
}

static const char *compiler_version(void)
{
#ifdef __VERSION__
	return __VERSION__;
#else
	return "unknown";
#endif
}

static long openmp_version(void)
{
#ifdef _OPENMP
	return _OPENMP;
#else
	return 0;
#endif
}

/* Which OpenMP runtime is mapped into the process: harnesses need it to
 * pick GOMP_CPU_AFFINITY or KMP_AFFINITY. */
static const char *openmp_runtime(void)
{
#ifdef _OPENMP
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];
	const char *rt = "unknown";
	if (!f)
		return rt;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "libgomp")) {
			rt = "libgomp";
			break;
		}
		if (strstr(line, "libiomp5")) {
			rt = "libiomp5";
			break;
		}
		if (strstr(line, "libomp")) {
			rt = "libomp";
			break;
		}
	}
	fclose(f);
	return rt;
#else
	return "none";
#endif
}

/* The compiler's own macros that tell how this file was built: the
 * record of a hand build, where no build line was passed in. */
static const char *const target_macros[] = {
#ifdef __OPTIMIZE__
	"__OPTIMIZE__",
#endif
#ifdef __OPTIMIZE_SIZE__
	"__OPTIMIZE_SIZE__",
#endif
#ifdef __FAST_MATH__
	"__FAST_MATH__",
#endif
#ifdef _OPENMP
	"_OPENMP",
#endif
#ifdef __SSE2__
	"__SSE2__",
#endif
#ifdef __AVX__
	"__AVX__",
#endif
#ifdef __AVX2__
	"__AVX2__",
#endif
#ifdef __FMA__
	"__FMA__",
#endif
#ifdef __AVX512F__
	"__AVX512F__",
#endif
#ifdef __ARM_NEON
	"__ARM_NEON",
#endif
#ifdef __ARM_FEATURE_SVE
	"__ARM_FEATURE_SVE",
#endif
#ifdef __ALTIVEC__
	"__ALTIVEC__",
#endif
#ifdef __VSX__
	"__VSX__",
#endif
	NULL
};

static unsigned long long parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	default: return v;
	}
}

/* How many caches like cpu0's cache indexN the machine has: the distinct
 * CPU sets that share one, over every CPU that sysfs lists (1 when it
 * does not say).  STREAM's sizing rule counts them all. */
static int cache_instances(int index)
{
	enum { MAXSETS = 512 };
	char *sets[MAXSETS];
	long cpu, ncpu = os_cpus_configured();
	int n = 0, k;
	for (cpu = 0; cpu < ncpu && cpu < 65536; cpu++) {
		char path[512], buf[1024];
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu%ld/cache/index%d/shared_cpu_list",
			 sysfs_root(), cpu, index);
		if (read_first_line(path, buf, sizeof(buf)) != 0)
			continue;
		for (k = 0; k < n && strcmp(sets[k], buf) != 0; k++)
			;
		if (k == n && n < MAXSETS && (sets[n] = malloc(strlen(buf) + 1)))
			strcpy(sets[n++], buf);
	}
	for (k = 0; k < n; k++)
		free(sets[k]);
	return n > 0 ? n : 1;
}

static void collect_caches(struct system_info *si)
{
	int i;
	for (i = 0; i < 16 && si->ncaches < MAX_CACHES; i++) {
		char path[512], buf[64];
		struct cache_info *c = &si->caches[si->ncaches];
		const char *base = sysfs_root();
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu0/cache/index%d/level", base, i);
		if (read_first_line(path, buf, sizeof(buf)) != 0)
			continue;
		c->level = atoi(buf);
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu0/cache/index%d/type", base, i);
		if (read_first_line(path, c->type, sizeof(c->type)) != 0)
			strcpy(c->type, "Unknown");
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu0/cache/index%d/size", base, i);
		if (read_first_line(path, buf, sizeof(buf)) != 0)
			continue;
		c->bytes = parse_cache_size(buf);
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu0/cache/index%d/coherency_line_size",
			 base, i);
		c->line = read_first_line(path, buf, sizeof(buf)) == 0 ? atoi(buf) : 0;
		c->instances = cache_instances(i);
		si->ncaches++;
	}
}

/* The last-level cache as the OS reports it: the data or unified cache
 * of the deepest level, or NULL.  On a VM it can be wrong or missing:
 * the latency curve is the honest answer. */
static const struct cache_info *reported_llc_cache(const struct system_info *si)
{
	const struct cache_info *llc = NULL;
	int i;
	for (i = 0; si && i < si->ncaches; i++)
		if (strcmp(si->caches[i].type, "Instruction") != 0 &&
		    (!llc || si->caches[i].level >= llc->level))
			llc = &si->caches[i];
	return llc;
}

/* Bytes of one last-level cache, 0 if none is reported. */
static unsigned long long reported_llc(const struct system_info *si)
{
	const struct cache_info *llc = reported_llc_cache(si);
	return llc ? llc->bytes : 0;
}

/* How many last-level caches the machine has (1 when unknown). */
static int reported_llc_instances(const struct system_info *si)
{
	const struct cache_info *llc = reported_llc_cache(si);
	return llc ? llc->instances : 1;
}

/* The deepest reported level (3 for L3), 0 if none. */
static int reported_levels(const struct system_info *si)
{
	const struct cache_info *llc = reported_llc_cache(si);
	return llc ? llc->level : 0;
}

/* Bytes of the data or unified cache at `level`, 0 if not reported. */
static unsigned long long reported_cache(const struct system_info *si,
					 int level)
{
	int i;
	for (i = 0; si && i < si->ncaches; i++)
		if (si->caches[i].level == level &&
		    strcmp(si->caches[i].type, "Instruction") != 0)
			return si->caches[i].bytes;
	return 0;
}

/* Cache sizes a hypervisor makes up.  A guest whose CPU model names no
 * caches of its own, and whose host's are not passed through, gets
 * QEMU's built-in descriptors (target/i386/cpu.c, "legacy" caches):
 * L1d 32 KiB, L2 4 MiB, L3 16 MiB on Intel, L1d 64 KiB, L2 512 KiB and
 * the same L3 on AMD; without l3-cache (older machine types) no L3.
 * They describe no hardware: an Ice Lake Xeon Gold 6338's guest reported
 * them (tests/fixtures/latency), against the 48 KB, 1.25 MB and 48 MB
 * Intel documents.  Sizes alone could be a real CPU's (a Core 2 has a
 * 32 KiB L1d and a 4 MiB L2), so they count only when the CPU says it
 * runs under a hypervisor. */
static const struct {
	const char *who;
	unsigned long long l1d, l2, l3;
} fake_caches[] = {
	{"QEMU's built-in Intel cache descriptors", 32ULL << 10, 4ULL << 20, 16ULL << 20},
	{"QEMU's built-in AMD cache descriptors", 64ULL << 10, 512ULL << 10, 16ULL << 20},
};

static const char *made_up_caches(const struct system_info *si)
{
	unsigned long long l3 = reported_cache(si, 3);
	size_t k;
	if (!si->hypervisor || reported_cache(si, 4))
		return NULL;
	for (k = 0; k < sizeof(fake_caches) / sizeof(fake_caches[0]); k++)
		if (reported_cache(si, 1) == fake_caches[k].l1d &&
		    reported_cache(si, 2) == fake_caches[k].l2 &&
		    (l3 == 0 || l3 == fake_caches[k].l3))
			return fake_caches[k].who;
	return NULL;
}

/* The L1 data cache's line size, 0 if not reported. */
static int reported_line(const struct system_info *si)
{
	return si->line;
}

/* Host name, kernel ("Linux 6.1.0", "Windows 10.0.19045") and machine
 * ("x86_64"). */
static void os_identity(struct system_info *si)
{
#ifdef _WIN32
	DWORD n = (DWORD)sizeof(si->hostname);
	SYSTEM_INFO sys;
	OSVERSIONINFOA v;
	if (!GetComputerNameA(si->hostname, &n))
		strcpy(si->hostname, "unknown");
	/* GetVersionEx answers what the program's manifest claims (8.0
	 * without one): the kernel's own number is in KUSER_SHARED_DATA,
	 * which ntdll's RtlGetVersion reads; the plain call is the
	 * fallback */
	memset(&v, 0, sizeof(v));
	v.dwOSVersionInfoSize = sizeof(v);
	{
		typedef LONG(WINAPI * rtl_get_version)(OSVERSIONINFOA *);
		HMODULE nt = GetModuleHandleA("ntdll.dll");
		FARPROC fp = nt ? GetProcAddress(nt, "RtlGetVersion") : NULL;
		rtl_get_version get;
		if (fp) {
			memcpy(&get, &fp, sizeof(get));
			if (get(&v) != 0)
				fp = NULL;
		}
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
		if (!fp && !GetVersionExA(&v))
			v.dwMajorVersion = 0;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
	}
	snprintf(si->kernel, sizeof(si->kernel), "Windows %lu.%lu.%lu",
		 (unsigned long)v.dwMajorVersion, (unsigned long)v.dwMinorVersion,
		 (unsigned long)v.dwBuildNumber);
	GetNativeSystemInfo(&sys);
	snprintf(si->machine, sizeof(si->machine), "%s",
		 sys.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64 ? "x86_64"
		 : sys.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_INTEL ? "i686"
		 : sys.wProcessorArchitecture == 12 ? "aarch64" /* ARM64 */
		 : "unknown");
#else
	struct utsname u;
	if (gethostname(si->hostname, sizeof(si->hostname) - 1) != 0)
		strcpy(si->hostname, "unknown");
	if (uname(&u) == 0) {
		snprintf(si->kernel, sizeof(si->kernel), "%s %s", u.sysname,
			 u.release);
		snprintf(si->machine, sizeof(si->machine), "%s", u.machine);
	}
#endif
}

/* What this OS cannot tell or give, said once in the system block
 * (NULL in the JSON where it lacks nothing bench uses). */
#ifdef _WIN32
#define OS_UNAVAILABLE "smaps (page sizes and mappings are unknown), " \
	"transparent huge pages (thp allocates base pages), a hugetlbfs pool, " \
	"sysfs and procfs (CPU governor; caches come from " \
	"GetLogicalProcessorInformation), System V shared memory (--alloc shm)"
#else
#define OS_UNAVAILABLE NULL
#endif

#ifdef _WIN32
/* What Windows itself says of the machine: the CPU's name (the
 * registry), its caches (GetLogicalProcessorInformation: each cache
 * once per set of CPUs sharing it, so instances are counted as on
 * sysfs).  Transparent huge pages, a huge page pool and a frequency
 * governor are Linux's; they stay unknown. */
static void win_system_facts(struct system_info *si)
{
	SYSTEM_LOGICAL_PROCESSOR_INFORMATION *buf = NULL;
	DWORD len = 0, i, n;
	char name[sizeof(si->cpu_model)];
	DWORD nlen = (DWORD)sizeof(name);
	HKEY key;
	if (RegOpenKeyExA(HKEY_LOCAL_MACHINE,
			  "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
			  0, KEY_READ, &key) == ERROR_SUCCESS) {
		DWORD type;
		if (RegQueryValueExA(key, "ProcessorNameString", NULL, &type,
				     (BYTE *)name, &nlen) == ERROR_SUCCESS &&
		    type == REG_SZ && nlen > 1) {
			name[sizeof(name) - 1] = '\0';
			snprintf(si->cpu_model, sizeof(si->cpu_model), "%s", name);
		}
		RegCloseKey(key);
	}
	strcpy(si->thp, "unavailable");
	si->hp_total = si->hp_free = si->hp_rsvd = -1;
	si->hp_kib = (long long)(GetLargePageMinimum() / 1024);
	if (GetLogicalProcessorInformation(NULL, &len) ||
	    GetLastError() != ERROR_INSUFFICIENT_BUFFER ||
	    !(buf = malloc(len)))
		return;
	if (!GetLogicalProcessorInformation(buf, &len)) {
		free(buf);
		return;
	}
	n = len / sizeof(*buf);
	si->ncaches = 0;
	for (i = 0; i < n; i++) {
		const CACHE_DESCRIPTOR *d = &buf[i].Cache;
		struct cache_info *c = NULL;
		int k;
		if (buf[i].Relationship != RelationCache || d->Level < 1)
			continue;
		for (k = 0; k < si->ncaches; k++)
			if (si->caches[k].level == d->Level &&
			    si->caches[k].bytes == d->Size &&
			    strcmp(si->caches[k].type,
				   d->Type == CacheInstruction ? "Instruction"
				   : d->Type == CacheData ? "Data" : "Unified") == 0)
				c = &si->caches[k];
		if (c) {
			c->instances++;
			continue;
		}
		if (si->ncaches >= MAX_CACHES)
			continue;
		c = &si->caches[si->ncaches++];
		memset(c, 0, sizeof(*c));
		c->level = d->Level;
		snprintf(c->type, sizeof(c->type), "%s",
			 d->Type == CacheInstruction ? "Instruction"
			 : d->Type == CacheData ? "Data" : "Unified");
		c->bytes = d->Size;
		c->line = d->LineSize;
		c->instances = 1;
		if (c->level == 1 && c->line > 0 && d->Type != CacheInstruction) {
			si->line = c->line;
			si->line_source = "GetLogicalProcessorInformation";
		}
	}
	free(buf);
}
#endif

static void collect_system(struct system_info *si)
{
	char path[512], line[512];
	time_t t = time(NULL);
	FILE *f;
	char *lb, *rb;
	int i;

	memset(si, 0, sizeof(*si));
	os_identity(si);
	strftime(si->timestamp, sizeof(si->timestamp), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&t));
	si->online_cpus = os_cpus_online();
	si->phys_mem = physical_memory();
	si->shape = machine_shape();
	memory_policy(&si->policy);
	/* automatic NUMA balancing moves pages toward the CPUs that use
	 * them, after first touch placed them */
	snprintf(path, sizeof(path), "%s/sys/kernel/numa_balancing", procfs_root());
	si->numa_balancing = read_first_line(path, line, sizeof(line)) == 0 &&
			     isdigit((unsigned char)line[0]) ? atoi(line) : -1;

	/* x86 says "model name", POWER "cpu", Arm "CPU part"/"Hardware". */
	snprintf(path, sizeof(path), "%s/cpuinfo", procfs_root());
	snprintf(si->cpu_model, sizeof(si->cpu_model), "%s", si->machine);
	if ((f = pseudo_open(path)) != NULL) {
		int named = 0, flags = 0;
		while ((!named || !flags) && fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');
			size_t n;
			if (!colon)
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			n = strlen(colon);
			while (n && isspace((unsigned char)colon[n - 1]))
				colon[--n] = '\0';
			/* x86's first "flags" line: the CPU's own CPUID bits */
			if (!flags && strncmp(line, "flags", 5) == 0 &&
			    (line[5] == ' ' || line[5] == '\t')) {
				flags = 1;
				si->hypervisor = has_word(colon, "hypervisor");
			}
			if (named || (strncmp(line, "model name", 10) != 0 &&
				      strncmp(line, "cpu\t", 4) != 0 &&
				      strncmp(line, "Hardware", 8) != 0))
				continue;
			snprintf(si->cpu_model, sizeof(si->cpu_model), "%s", colon);
			named = 1;
		}
		fclose(f);
	}

	/* "always [madvise] never": the bracketed word is in force. */
	strcpy(si->thp, "unavailable");
	snprintf(path, sizeof(path), "%s/kernel/mm/transparent_hugepage/enabled",
		 sysfs_root());
	if (read_first_line(path, line, sizeof(line)) == 0 &&
	    (lb = strchr(line, '[')) && (rb = strchr(lb, ']'))) {
		*rb = '\0';
		snprintf(si->thp, sizeof(si->thp), "%s", lb + 1);
	}
	snprintf(path, sizeof(path),
		 "%s/devices/system/cpu/cpu0/cpufreq/scaling_governor", sysfs_root());
	if (read_first_line(path, si->governor, sizeof(si->governor)) != 0)
		si->governor[0] = '\0';

	si->hp_total = meminfo_value("HugePages_Total");
	si->hp_free = meminfo_value("HugePages_Free");
	si->hp_rsvd = meminfo_value("HugePages_Rsvd");
	si->hp_kib = meminfo_value("Hugepagesize");
	si->nhp = hugetlb_sizes(si->hp_size_kib, 8);
	for (i = 0; i < si->nhp; i++) {
		si->hp_size_total[i] = hugetlb_pool_value(si->hp_size_kib[i],
							  "nr_hugepages");
		si->hp_size_free[i] = hugetlb_pool_value(si->hp_size_kib[i],
							 "free_hugepages");
	}
	collect_caches(si);
	si->caches_fake = made_up_caches(si);
	/* the L1 data line from sysfs; else what the auxiliary vector says */
	for (i = 0; i < si->ncaches; i++)
		if (si->caches[i].level == 1 && si->caches[i].line > 0 &&
		    strcmp(si->caches[i].type, "Instruction") != 0) {
			si->line = si->caches[i].line;
			si->line_source = "sysfs";
		}
	if (!si->line && (si->line = auxv_cache_line()) > 0)
		si->line_source = "auxv AT_DCACHEBSIZE";
#ifdef _WIN32
	win_system_facts(si);
#endif
}

/* ======================================================================
 * 9 Output.  Where the results go, the JSON writer, the key/value sink
 * (one list of facts, rendered as text and as JSON), and the blocks every
 * report shares: build and system in both formats, the JSON document's
 * header and warnings.  The programs collect results into one structure
 * per mode and render it once per format; measuring code never asks
 * which formats are on.
 * ====================================================================== */

/* Text goes to stdout unless --json.  The JSON document goes to stdout
 * (--json) or into PATH (--json-file), written under PATH.tmp.PID and
 * renamed into place only when complete, so an interrupted or refused
 * run leaves no file that looks like a result. */
static struct output {
	int text;         /* the text report is on */
	FILE *json;       /* the JSON document, or NULL */
	const char *path; /* --json-file PATH */
	char tmp[4096];   /* PATH's temporary name while writing */
	int warned;       /* warnings the text has printed so far */
	int csv;          /* --csv: the CSV table replaces the text */
} out = {1, NULL, NULL, "", 0, 0};

static void output_discard(void)
{
	if (out.tmp[0])
		unlink(out.tmp);
}

static void output_signal(int sig)
{
	output_discard();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Remove the temporary file on sig, unless the caller ignores sig (as
 * nohup does SIGHUP): an ignored signal stays ignored. */
static void output_on_signal(int sig)
{
#ifdef _WIN32
	/* no sigaction: signal() answers the handler it replaced */
	if (signal(sig, output_signal) == SIG_IGN)
		signal(sig, SIG_IGN);
#else
	struct sigaction now;
	if (sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_IGN)
		return;
	signal(sig, output_signal);
#endif
}

/* --json-file PATH: refused up front unless PATH is a regular file or
 * does not exist (never a device, a directory or a symlink, which root
 * must not follow); the document goes into a new file that mkstemp
 * creates beside PATH (O_EXCL: nothing planted is opened) and is renamed
 * over PATH only when complete. */
static void output_open(const struct options *o)
{
	struct stat st;
	const char *slash;
	int fd;
	out.text = !o->json && !o->lmrd && !o->csv; /* lat_mem_rd: the curve alone */
	out.csv = o->csv;
	if (o->json) {
		out.json = stdout;
		return;
	}
	if (!o->json_path)
		return;
	out.path = o->json_path;
#ifdef _WIN32
	if (stat(out.path, &st) == 0 && !S_ISREG(st.st_mode))
#else
	if (lstat(out.path, &st) == 0 && !S_ISREG(st.st_mode))
#endif
		die("--json-file %s: exists and is not a regular file", out.path);
	slash = strrchr(out.path, '/');
#ifdef _WIN32
	/* Windows paths may end in \\name or C:name */
	{
		const char *b = strrchr(out.path, '\\');
		if (!b)
			b = strchr(out.path, ':');
		if (b && (!slash || b > slash))
			slash = b;
	}
#endif
	if ((size_t)snprintf(out.tmp, sizeof(out.tmp), "%.*s.%s.XXXXXX",
			     slash ? (int)(slash - out.path + 1) : 0, out.path,
			     slash ? slash + 1 : out.path) >= sizeof(out.tmp))
		die("--json-file: path is too long");
	fd = mkstemp(out.tmp);
	if (fd < 0 || !(out.json = fdopen(fd, "w"))) {
		out.tmp[0] = '\0';
		die("--json-file %s: %s", out.path, strerror(errno));
	}
	atexit(output_discard);
	output_on_signal(SIGINT);
	output_on_signal(SIGTERM);
#ifdef SIGHUP
	output_on_signal(SIGHUP);
#endif
}

/* The run's output is complete: a result that was not written is a
 * failure, on stdout as in the JSON file. */
static void output_commit(void)
{
#ifndef _WIN32
	mode_t mask;
#endif
	if (fflush(stdout) != 0 || ferror(stdout))
		die("standard output: %s", strerror(errno ? errno : EIO));
	if (!out.path)
		return;
#ifdef _WIN32
	/* rename() will not replace a file on Windows; MoveFileEx will */
	if (fflush(out.json) != 0 || ferror(out.json) || fclose(out.json) != 0 ||
	    !MoveFileExA(out.tmp, out.path, MOVEFILE_REPLACE_EXISTING))
		die("--json-file %s: cannot write it (Windows error %lu)", out.path,
		    (unsigned long)GetLastError());
#else
	mask = umask(0);
	umask(mask); /* the mode fopen would have given, not mkstemp's 0600 */
	if (fflush(out.json) != 0 || ferror(out.json) ||
	    fchmod(fileno(out.json), 0666 & ~mask) != 0 || fclose(out.json) != 0 ||
	    rename(out.tmp, out.path) != 0)
		die("--json-file %s: %s", out.path, strerror(errno ? errno : EIO));
#endif
	out.tmp[0] = '\0';
}

/* The command line, for the JSON document's record of the run. */
static int cmd_argc;
static char **cmd_argv;

/* The JSON writer: just enough to emit one well-formed document, with
 * commas and string escapes handled in one place. */
static int json_depth;
static int json_first[32];

static void json_sep(const char *key)
{
	if (json_depth > 0 && !json_first[json_depth])
		fputc(',', out.json);
	json_first[json_depth] = 0;
	if (key)
		fprintf(out.json, "\"%s\":", key);
}

static void json_string_value(const char *s)
{
	fputc('"', out.json);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(out.json, "\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", out.json);
		else if (ch == '\t')
			fputs("\\t", out.json);
		else if (ch < 0x20)
			fprintf(out.json, "\\u%04x", ch);
		else
			fputc(ch, out.json);
	}
	fputc('"', out.json);
}

static void json_open(const char *key, char brace)
{
	json_sep(key);
	fputc(brace, out.json);
	json_first[++json_depth] = 1;
}

static void json_close(char brace)
{
	fputc(brace, out.json);
	json_depth--;
	if (json_depth == 0)
		fputc('\n', out.json);
}

static void json_str(const char *key, const char *v)
{
	json_sep(key);
	if (v)
		json_string_value(v);
	else
		fputs("null", out.json);
}

static void json_num(const char *key, double v)
{
	json_sep(key);
	if (finite_d(v))
		fprintf(out.json, JSON_NUM_FORMAT, v);
	else
		fputs("null", out.json);
}

static void json_int(const char *key, long long v)
{
	json_sep(key);
	fprintf(out.json, "%lld", v);
}

static void json_bool(const char *key, int v)
{
	json_sep(key);
	fputs(v ? "true" : "false", out.json);
}

/* The key/value sink: a list of facts written once, as calls in order,
 * each rendered to whichever outputs are on, so that the text and the
 * JSON of one list cannot name different facts or drift apart.  On the
 * JSON side a fact is a member of the object the caller has opened; on
 * the text side it is a "key=value" line (KV_KEYS: --plan's lines, which
 * the harness reads by key) or a "Label: value" line (KV_LABELS: for
 * people; a fact without a label is the JSON's alone, as where the text
 * says it in a sentence of its own).  A value that is not known is JSON's
 * null and the text's "unknown". */
enum kv_form { KV_KEYS, KV_LABELS };

struct kv {
	enum kv_form form;
	int text; /* the text side is on */
	int json; /* the JSON side is on */
};

/* A sink onto the outputs this run has on. */
static struct kv kv_sink(enum kv_form form)
{
	struct kv s;
	s.form = form;
	s.text = out.text;
	s.json = out.json != NULL;
	return s;
}

/* The text side of one fact, its value already in words. */
static void kv_text(const struct kv *s, const char *key, const char *label,
		    const char *v)
{
	if (!s->text)
		return;
	if (s->form == KV_KEYS)
		printf("%s=%s\n", key, v);
	else if (label)
		printf("%s: %s\n", label, v);
}

static void kv_str(const struct kv *s, const char *key, const char *label,
		   const char *v)
{
	if (s->json)
		json_str(key, v);
	kv_text(s, key, label, v ? v : "unknown");
}

/* A fact there is none of: null in the JSON and the key=value lines. */
static void kv_none(const struct kv *s, const char *key)
{
	if (s->json)
		json_str(key, NULL);
	kv_text(s, key, NULL, "null");
}

static void kv_int(const struct kv *s, const char *key, const char *label,
		   long long v)
{
	char buf[32];
	if (s->json)
		json_int(key, v);
	snprintf(buf, sizeof(buf), "%lld", v);
	kv_text(s, key, label, buf);
}

/* key=value writes a flag as 1 or 0, which shell tests read as numbers;
 * a label writes yes or no. */
static void kv_bool(const struct kv *s, const char *key, const char *label,
		    int v)
{
	if (s->json)
		json_bool(key, v);
	kv_text(s, key, label, s->form == KV_KEYS ? (v ? "1" : "0")
						    : (v ? "yes" : "no"));
}

/* A measured figure: JSON keeps its nine digits, the text shows digits
 * of them and then unit (NULL: none), as a person reads it. */
static void kv_num(const struct kv *s, const char *key, const char *label,
		   double v, int digits, const char *unit)
{
	char buf[48];
	if (s->json)
		json_num(key, v);
	if (!finite_d(v))
		snprintf(buf, sizeof(buf), "unknown");
	else
		snprintf(buf, sizeof(buf), "%.*g%s%s", digits, v, unit ? " " : "",
			 unit ? unit : "");
	kv_text(s, key, label, buf);
}

/* One CSV field on stdout, quoted only when it holds a comma, a quote or
 * a line break (RFC 4180); last ends the row. */
static void csv_field(const char *v, int last)
{
	if (strpbrk(v, ",\"\r\n")) {
		putchar('"');
		for (; *v; v++) {
			if (*v == '"')
				putchar('"');
			putchar(*v);
		}
		putchar('"');
	} else {
		fputs(v, stdout);
	}
	putchar(last ? '\n' : ',');
}

/* A CSV number field with the JSON document's digits, so the two agree. */
static void csv_num(double v)
{
	char buf[40];
	if (finite_d(v))
		snprintf(buf, sizeof(buf), "%.9g", v);
	else
		buf[0] = '\0'; /* no number measured: an empty field */
	csv_field(buf, 0);
}

static void cache_label(const struct cache_info *c, char *buf, size_t len)
{
	const char *suffix = strcmp(c->type, "Data") == 0 ? "d"
			   : strcmp(c->type, "Instruction") == 0 ? "i" : "";
	snprintf(buf, len, "L%d%s", c->level, suffix);
}

static void print_build_text(void)
{
	printf("Build: %s %s\n", compiler_name(), compiler_version());
	printf("Build flags: %s", BENCH_CFLAGS);
	if (strcmp(BENCH_CFLAGS, "unknown") == 0) {
		/* a hand build: say what the compiler's macros tell */
		int i;
		printf(" (not built by make; compiler macros:");
		for (i = 0; target_macros[i]; i++)
			printf(" %s", target_macros[i]);
		printf("%s)", target_macros[0] ? "" : " none");
	}
	printf("\n");
	printf("Build macros: STREAM_ARRAY_SIZE=%llu NTIMES=%d OFFSET=%d "
	       "STREAM_TYPE=%s STREAMING_STORES=%d BENCH_ALLOC=%s\n",
	       (unsigned long long)STREAM_ARRAY_SIZE, NTIMES, OFFSET,
	       XSTR(STREAM_TYPE), STREAMING_STORES, BENCH_ALLOC);
	if (openmp_version())
		printf("OpenMP: %ld (%s)\n", openmp_version(), openmp_runtime());
	else
		printf("OpenMP: not enabled in this build\n");
	printf("Streaming stores available: %s (%s)\n", HAVE_NT ? "yes" : "no",
	       NT_ISA);
}

/* The CPUs of each core that has more than one, "0,4 1,5": which CPU
 * numbers are SMT siblings, which no numbering rule tells. */
static void print_siblings_text(const struct machine_shape *m)
{
	char list[SHAPE_LIST_CHARS];
	int cpus[SHAPE_MAX_CPUS], i, k, n;
	if (!m->topology_known || m->smt < 2)
		return;
	printf("SMT siblings:");
	for (i = 0; i < m->ncpus; i++) {
		if (m->cpus[i].thread != 0)
			continue;
		for (n = 0, k = i; k < m->ncpus; k++)
			if (m->cpus[k].core == m->cpus[i].id)
				cpus[n++] = m->cpus[k].id;
		if (n < 2)
			continue;
		format_cpu_list(list, sizeof(list), cpus, n);
		printf(" %s", list);
	}
	printf("\n");
}

/* The nodes policy p names, as a list such as "0-1" into buf; how many. */
static int policy_node_list(const struct mem_policy *p, char *buf, size_t len)
{
	int ids[POLICY_MAX_NODES], n = 0, id;
	for (id = 0; id < POLICY_MAX_NODES; id++)
		if (policy_has_node(p, id))
			ids[n++] = id;
	format_cpu_list(buf, len, ids, n);
	return n;
}

/* The memory policy in words: "default (...)", "bind to nodes 1". */
static void describe_policy(const struct mem_policy *p, char *buf, size_t len)
{
	char nodes[512];
	int n = policy_node_list(p, nodes, sizeof(nodes));
	if (!p->known)
		snprintf(buf, len, "unknown (this OS does not say)");
	else if (p->mode < 0)
		snprintf(buf, len, "a mode bench does not know, nodes %s",
			 n ? nodes : "none");
	else if (p->mode == 0 || p->mode == 4)
		snprintf(buf, len, "%s (each page on the node of the CPU that "
			 "first touches it)", policy_names[p->mode]);
	else
		snprintf(buf, len, "%s, node%s %s%s", policy_names[p->mode],
			 n == 1 ? "" : "s", n ? nodes : "none",
			 p->static_nodes ? " (static)" : p->relative_nodes
			 ? " (relative to the allowed nodes)" : "");
}

/* The machine's shape: packages, cores and SMT, then a line a node. */
static void print_shape_text(const struct machine_shape *m)
{
	char list[SHAPE_LIST_CHARS], b1[32], b2[32];
	int cpus[SHAPE_MAX_CPUS], i;
	if (m->topology_known) {
		char smt[64];
		if (m->smt == 1)
			snprintf(smt, sizeof(smt), "no SMT");
		else
			snprintf(smt, sizeof(smt), "%s%d SMT threads per core",
				 m->ncpus == m->ncores * m->smt ? "" : "up to ",
				 m->smt);
		printf("Topology: %d package%s, %d core%s, %d CPU%s online, %s%s\n",
		       m->npackages, m->npackages == 1 ? "" : "s", m->ncores,
		       m->ncores == 1 ? "" : "s", m->ncpus, m->ncpus == 1 ? "" : "s",
		       smt, m->truncated ? " (more than this build lists)" : "");
	} else
		printf("Topology: not reported by the OS (%d CPUs)\n", m->ncpus);
	if (!m->nodes_known) {
		printf("NUMA nodes: not reported by the OS (one node assumed: "
		       "every CPU and all of memory)\n");
		return;
	}
	for (i = 0; i < m->nnodes; i++) {
		const struct shape_node *nd = &m->nodes[i];
		int n = shape_node_cpus(m, nd->id, cpus, SHAPE_MAX_CPUS);
		format_cpu_list(list, sizeof(list), cpus, n);
		printf("NUMA node %d: %s%s", nd->id,
		       nd->ncpus ? "CPUs " : "no CPUs", list);
		if (nd->mem_known) {
			format_bytes(b1, sizeof(b1), nd->mem_bytes);
			format_bytes(b2, sizeof(b2), nd->free_bytes);
			printf(", memory %s (%s free)\n", b1, b2);
		} else {
			printf(", memory unknown\n");
		}
	}
}

/* The cgroup's limits, one line each, every line after prefix. */
static void print_limits_text(const struct system_info *si,
			      const char *prefix)
{
	const struct box_limits *b = os_box_limits();
	char b1[32], b2[32];
	if (b->mem) {
		format_bytes(b1, sizeof(b1), b->mem);
		if (si->phys_mem && b->mem >= si->phys_mem)
			printf("%sMemory limit: %s (%s), above the machine's "
			       "memory: it does not bind\n", prefix, b1,
			       b->mem_source);
		else {
			format_bytes(b2, sizeof(b2), box_room());
			printf("%sMemory limit: %s (%s); bench's arrays and buffers take at "
			       "most %s of it\n", prefix, b1, b->mem_source, b2);
		}
	} else
		printf("%sMemory limit: none\n", prefix);
	if (b->cpus > 0)
		printf("%sCPU quota: %.2f CPUs (%s)\n", prefix, b->cpus,
		       b->cpu_source);
	else
		printf("%sCPU quota: none\n", prefix);
	if (b->unread[0])
		printf("%sLimits not read: %s\n", prefix, b->unread);
}

static void print_system_text(const struct system_info *si)
{
	char b1[32], buf[640];
	int i;
	printf("CPU: %s, %ld online\n", si->cpu_model, si->online_cpus);
	printf("Host: %s, %s %s, %s\n", si->hostname, si->kernel, si->machine,
	       si->timestamp);
	printf("Caches (OS-reported):");
	for (i = 0; i < si->ncaches; i++) {
		char name[16];
		cache_label(&si->caches[i], name, sizeof(name));
		format_bytes(b1, sizeof(b1), si->caches[i].bytes);
		printf("%s %s %s", i ? "," : "", name, b1);
		if (si->caches[i].instances > 1)
			printf(" x%d", si->caches[i].instances);
	}
	printf("%s\n", si->ncaches ? "" : " none");
	if (si->caches_fake)
		printf("Caches: these sizes are %s, which a guest gets when its "
		       "CPU model names none: they are not the host's, and the "
		       "latency summary does not use them\n", si->caches_fake);
	if (si->line)
		printf("Cache line: %d bytes (%s)\n", si->line, si->line_source);
	else
		printf("Cache line: unknown (the OS reports none)\n");
	format_bytes(b1, sizeof(b1), si->phys_mem);
#ifdef _WIN32
	printf("Memory: %s, large pages of %lld KiB (no pool: each run needs "
	       "SeLockMemoryPrivilege)\n", b1, si->hp_kib);
	printf("Not on Windows: %s\n", OS_UNAVAILABLE);
#else
	printf("Memory: %s, THP %s, huge pages %lld total %lld free of %lld KiB\n",
	       b1, si->thp, si->hp_total, si->hp_free, si->hp_kib);
	printf("Huge page sizes (--page-size):");
	for (i = 0; i < si->nhp; i++) {
		format_bytes(b1, sizeof(b1), si->hp_size_kib[i] * 1024);
		printf("%s %s (%lld in the pool, %lld free)", i ? " |" : "", b1,
		       si->hp_size_total[i], si->hp_size_free[i]);
	}
	printf("%s\n", si->nhp ? "" : " none offered");
#endif
	printf("CPU governor: %s\n",
	       si->governor[0] ? si->governor : "not available on this machine");
	print_limits_text(si, "");
	print_shape_text(si->shape);
	describe_policy(&si->policy, buf, sizeof(buf));
	printf("Memory policy: %s", buf);
	if (si->numa_balancing > 0)
		printf("; NUMA balancing on (the kernel moves pages toward the "
		       "CPUs that use them)");
	else if (si->numa_balancing == 0)
		printf("; NUMA balancing off");
	printf("\n");
}

static void json_build(void)
{
	int i;
	json_open("build", '{');
	json_str("compiler", compiler_name());
	json_str("compiler_version", compiler_version());
	json_str("cflags", BENCH_CFLAGS);
	json_open("target_macros", '[');
	for (i = 0; target_macros[i]; i++)
		json_str(NULL, target_macros[i]);
	json_close(']');
	if (openmp_version())
		json_int("openmp", openmp_version());
	else
		json_str("openmp", NULL);
	json_str("openmp_runtime", openmp_runtime());
	json_str("stream_type", XSTR(STREAM_TYPE));
	json_int("type_bytes", (long long)sizeof(elem_t));
	json_int("stream_array_size", (long long)STREAM_ARRAY_SIZE);
	json_int("ntimes", NTIMES);
	json_int("offset", OFFSET);
	json_str("streaming_stores", store_names[STREAMING_STORES]);
	json_bool("streaming_stores_available", HAVE_NT);
	json_str("streaming_stores_isa", NT_ISA);
	json_str("bench_alloc", BENCH_ALLOC);
	json_str("version", BENCH_VERSION);
	json_open("modes", '[');
	json_str(NULL, "stream");
	json_str(NULL, "latency");
	json_str(NULL, "all");
	json_str(NULL, "info");
	json_str(NULL, "mix");
	if (HAVE_C2C)
		json_str(NULL, "c2c");
	if (HAVE_NODE_BIND)
		json_str(NULL, "nodes");
	json_close(']');
	json_close('}');
}

/* A number, or null where known is 0. */
static void json_int_or_null(const char *key, int known, long long v)
{
	if (known)
		json_int(key, v);
	else
		json_str(key, NULL);
}

/* The machine's shape as the "topology" and "numa" objects. */
static void json_shape(const struct machine_shape *m)
{
	char list[SHAPE_LIST_CHARS];
	int cpus[SHAPE_MAX_CPUS], i, k;
	json_open("topology", '{');
	json_bool("known", m->topology_known);
	json_str("source", m->topology_known ? "sysfs" : NULL);
	json_int_or_null("packages", m->topology_known, m->npackages);
	json_int_or_null("cores", m->topology_known, m->ncores);
	json_int_or_null("threads_per_core", m->topology_known, m->smt);
	json_int("cpus", m->ncpus);
	json_bool("truncated", m->truncated);
	json_open("cpu", '[');
	for (i = 0; i < m->ncpus; i++) {
		const struct shape_cpu *c = &m->cpus[i];
		json_open(NULL, '{');
		json_int("id", c->id);
		json_int_or_null("package", m->topology_known, c->package);
		json_int_or_null("core", m->topology_known, c->core);
		json_int_or_null("thread", m->topology_known, c->thread);
		json_int_or_null("node", m->nodes_known && c->node >= 0, c->node);
		json_close('}');
	}
	json_close(']');
	json_close('}');
	json_open("numa", '{');
	json_bool("known", m->nodes_known);
	json_str("source", m->nodes_known ? "sysfs" : NULL);
	json_open("nodes", '[');
	for (i = 0; i < m->nnodes; i++) {
		const struct shape_node *nd = &m->nodes[i];
		int n = shape_node_cpus(m, nd->id, cpus, SHAPE_MAX_CPUS);
		json_open(NULL, '{');
		json_int("id", nd->id);
		format_cpu_list(list, sizeof(list), cpus, n);
		json_str("cpu_list", list);
		json_open("cpus", '[');
		for (k = 0; k < n && k < SHAPE_MAX_CPUS; k++)
			json_int(NULL, cpus[k]);
		json_close(']');
		json_int_or_null("memory_bytes", nd->mem_known, (long long)nd->mem_bytes);
		json_int_or_null("free_bytes", nd->mem_known, (long long)nd->free_bytes);
		json_close('}');
	}
	json_close(']');
	json_close('}');
}

/* The memory policy as the "memory_policy" object. */
static void json_policy(const struct mem_policy *p)
{
	char list[512];
	int id;
	json_open("memory_policy", '{');
	json_str("mode", p->known && p->mode >= 0 ? policy_names[p->mode] : NULL);
	policy_node_list(p, list, sizeof(list));
	json_str("node_list", p->known ? list : NULL);
	json_open("nodes", '[');
	for (id = 0; id < POLICY_MAX_NODES; id++)
		if (policy_has_node(p, id))
			json_int(NULL, id);
	json_close(']');
	json_bool("static_nodes", p->static_nodes);
	json_bool("relative_nodes", p->relative_nodes);
	json_close('}');
}

/* system.memory_limit, cpu_quota and limits_unread: null where none. */
static void json_limits(void)
{
	const struct box_limits *b = os_box_limits();
	if (b->mem) {
		json_open("memory_limit", '{');
		json_int("bytes", (long long)b->mem);
		json_str("source", b->mem_source);
		json_int("usable_bytes", (long long)box_room());
		json_close('}');
	} else
		json_str("memory_limit", NULL);
	if (b->cpus > 0) {
		json_open("cpu_quota", '{');
		json_num("cpus", b->cpus);
		json_str("source", b->cpu_source);
		json_close('}');
	} else
		json_str("cpu_quota", NULL);
	json_str("limits_unread", b->unread[0] ? b->unread : NULL);
}

static void json_system(const struct system_info *si)
{
	int i;
	json_open("system", '{');
	json_str("hostname", si->hostname);
	json_str("kernel", si->kernel);
	json_str("machine", si->machine);
	json_str("cpu_model", si->cpu_model);
	json_int("online_cpus", si->online_cpus);
	json_int("memory_bytes", (long long)si->phys_mem);
	json_str("thp", si->thp);
	json_open("hugepages", '{');
	json_int("total", si->hp_total);
	json_int("free", si->hp_free);
	json_int("reserved", si->hp_rsvd);
	json_int("page_kib", si->hp_kib);
	json_open("sizes", '[');
	for (i = 0; i < si->nhp; i++) {
		json_open(NULL, '{');
		json_int("page_kib", (long long)si->hp_size_kib[i]);
		json_int("total", si->hp_size_total[i]);
		json_int("free", si->hp_size_free[i]);
		json_close('}');
	}
	json_close(']');
	json_close('}');
	json_str("governor", si->governor[0] ? si->governor : NULL);
	json_str("os_unavailable", OS_UNAVAILABLE);
	json_open("caches", '[');
	for (i = 0; i < si->ncaches; i++) {
		char name[16];
		cache_label(&si->caches[i], name, sizeof(name));
		json_open(NULL, '{');
		json_str("name", name);
		json_int("level", si->caches[i].level);
		json_str("type", si->caches[i].type);
		json_int("bytes", (long long)si->caches[i].bytes);
		json_int("line", si->caches[i].line);
		json_int("instances", si->caches[i].instances);
		json_close('}');
	}
	json_close(']');
	json_bool("hypervisor", si->hypervisor);
	json_str("caches_made_up_by", si->caches_fake);
	if (si->line)
		json_int("cache_line", si->line);
	else
		json_str("cache_line", NULL);
	json_str("cache_line_source", si->line_source);
	json_str("timestamp", si->timestamp);
	json_shape(si->shape);
	json_policy(&si->policy);
	json_int_or_null("numa_balancing", si->numa_balancing >= 0,
			 si->numa_balancing);
	json_limits();
	json_close('}');
}

/* The mapping that holds an array (struct page_report) as a "mapping"
 * object, null where the OS keeps no smaps. */
static void json_mapping(const struct page_report *pr, const char *shared,
			 int nshared)
{
	char hex[32];
	int i;
	if (!pr->known) {
		json_str("mapping", NULL);
		return;
	}
	json_open("mapping", '{');
	/* the other arrays the kernel merged into this mapping */
	json_open("shared_with", '[');
	for (i = 0; i < nshared; i++) {
		char name[2] = {shared[i], '\0'};
		json_str(NULL, name);
	}
	json_close(']');
	snprintf(hex, sizeof(hex), "0x%llx", pr->vma_start);
	json_str("start", hex);
	snprintf(hex, sizeof(hex), "0x%llx", pr->vma_end);
	json_str("end", hex);
	json_str("name", pr->vma_name);
	json_int("inode", (long long)pr->inode);
	json_int("vmas", pr->vmas);
	json_int("kernel_page_kib", (long long)pr->kernel_page_kib);
	json_int("mmu_page_kib", (long long)pr->mmu_page_kib);
	json_int("rss_kib", (long long)pr->rss_kib);
	json_int("anon_huge_kib", (long long)pr->anon_huge_kib);
	json_int("hugetlb_kib", (long long)pr->hugetlb_kib);
	json_str("vmflags", pr->vmflags);
	json_close('}');
}

/* An address as JSON reads it back exactly: a hex string. */
static void json_address(const char *key, const void *p)
{
	char hex[32];
	snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)(uintptr_t)p);
	json_str(key, hex);
}

/* Every JSON document starts here: schema, mode, build and system. */
static void json_begin(const char *mode, const struct system_info *si)
{
	int i;
	json_open(NULL, '{');
	json_str("schema", JSON_SCHEMA);
	json_str("mode", mode);
	json_open("command", '[');
	for (i = 0; i < cmd_argc; i++)
		json_str(NULL, cmd_argv[i]);
	json_close(']');
	json_build();
	json_system(si);
}

/* ... and ends here, with every warning of the run. */
static void json_end(void)
{
	int i;
	json_open("warnings", '[');
	for (i = 0; i < nwarnings; i++)
		json_str(NULL, warnings[i]);
	json_close(']');
	json_close('}');
}

/* Print on f the warnings the text has not shown yet, each after prefix
 * (the programs choose it so their text format stays parseable);
 * returns how many were printed. */
static int warnings_to(FILE *f, const char *prefix)
{
	int n = 0;
	for (; out.warned < nwarnings; out.warned++, n++)
		fprintf(f, "%s%s\n", prefix, warnings[out.warned]);
	return n;
}

static int text_warnings(const char *prefix)
{
	return warnings_to(stdout, prefix);
}

/* --placement's line for one array or buffer, after prefix: how many
 * pages, how many runs of consecutive frames, huge page coverage and
 * nodes; or why the frames are not known. */
static void phys_print(const char *prefix, const char *name,
		       const struct phys_report *pr, double smaps_huge_pct)
{
	char b1[32], b2[32];
	int n, first = 1;
	printf("%sphysical %s: %llu pages of %lu KiB", prefix, name, pr->pages,
	       pr->page_bytes / 1024);
	if (pr->state != PHYS_OK) {
		printf(", frames unavailable: %s", pr->why);
	} else {
		format_bytes(b1, sizeof(b1), pr->longest * pr->page_bytes);
		format_bytes(b2, sizeof(b2),
			     pr->runs ? pr->present * pr->page_bytes / pr->runs : 0);
		printf(", %llu present in %llu run%s of consecutive frames "
		       "(longest %s, mean %s)", pr->present, pr->runs,
		       pr->runs == 1 ? "" : "s", b1, b2);
		format_bytes(b1, sizeof(b1),
			     (pr->pfn_hi - pr->pfn_lo + 1) * pr->page_bytes);
		printf(", frames 0x%llx-0x%llx (span %s)", pr->pfn_lo, pr->pfn_hi,
		       b1);
	}
	if (pr->huge_known)
		printf(", %.0f%% on huge pages (kpageflags)",
		       pr->present ? 100.0 * (double)pr->huge / (double)pr->present
				   : 0.0);
	else
		printf(", %.0f%% on huge pages (smaps)", smaps_huge_pct);
	if (pr->nodes_known) {
		for (n = 0; n < PHYS_MAX_NODES; n++) {
			if (!pr->node_pages[n])
				continue;
			printf("%s node %d %.0f%%", first ? "," : "", n,
			       100.0 * (double)pr->node_pages[n] / (double)pr->pages);
			first = 0;
		}
		if (pr->node_pages[NODE_UNKNOWN])
			printf("%s node unknown %.0f%%", first ? "," : "",
			       100.0 * (double)pr->node_pages[NODE_UNKNOWN] /
			       (double)pr->pages);
	}
	printf("\n");
}

/* The same as a JSON object under key: null fields where not known. */
static void phys_json(const char *key, const struct phys_report *pr,
		      double smaps_huge_pct)
{
	int ok = pr->state == PHYS_OK, n;
	static const char *const states[] = {"ok", "unsupported", "no_pagemap",
					     "no_pfn"};
	json_open(key, '{');
	json_str("state", states[pr->state]);
	json_str("why", pr->state == PHYS_OK ? NULL : pr->why);
	json_int("page_bytes", (long long)pr->page_bytes);
	json_int("pages", (long long)pr->pages);
	if (ok) {
		json_int("present", (long long)pr->present);
		json_int("runs", (long long)pr->runs);
		json_int("longest_run_pages", (long long)pr->longest);
		json_num("mean_run_pages", pr->runs ? (double)pr->present /
						      (double)pr->runs : NAN);
		json_int("pfn_lo", (long long)pr->pfn_lo);
		json_int("pfn_hi", (long long)pr->pfn_hi);
	} else {
		json_str("present", NULL);
		json_str("runs", NULL);
		json_str("longest_run_pages", NULL);
		json_str("mean_run_pages", NULL);
		json_str("pfn_lo", NULL);
		json_str("pfn_hi", NULL);
	}
	json_num("huge_pct", pr->huge_known
		 ? (pr->present ? 100.0 * (double)pr->huge / (double)pr->present : 0)
		 : smaps_huge_pct);
	json_str("huge_source", pr->huge_known ? "kpageflags" : "smaps");
	if (pr->nodes_known) {
		json_open("node_pages", '{');
		for (n = 0; n < PHYS_MAX_NODES; n++) {
			char k[16];
			if (!pr->node_pages[n])
				continue;
			snprintf(k, sizeof(k), "%d", n);
			json_int(k, (long long)pr->node_pages[n]);
		}
		json_close('}');
		json_int("node_pages_unknown", (long long)pr->node_pages[NODE_UNKNOWN]);
	} else {
		json_str("node_pages", NULL);
		json_str("node_pages_unknown", NULL);
	}
	json_close('}');
}

/* ======================================================================
 * The bandwidth program (bench stream).  STREAM's method: three arrays,
 * each kernel timed ntimes, the best time reported, every element
 * checked against a scalar replay.  Its results live in one struct
 * stream_run, which sections 10-13 fill and render.
 * ====================================================================== */

/* ======================================================================
 * 10 Kernels (bandwidth).  Each works on one thread's [lo, hi).  With nt
 * set the stored array is written with non-temporal stores: a head loop
 * reaches vector alignment, the body streams whole vectors, a tail loop
 * finishes, and a fence orders the stores before the join.
 * ====================================================================== */

/* A formula (the kernels' table, section 4) evaluates to three forms
 * at once, and each body takes the one it needs: KS the scalar, KV the
 * vector at the width VP names (V128, V256, V512, or VGEN, this build's
 * own), KW SVE's.  Array x is x_ in every body; EL(x), its scalar
 * element, is defined by each body; the vector forms read element j,
 * SVE's under the predicate pg_, with qv_ holding q in every lane. */
#define KS(s, v, w) s
#define KV(s, v, w) v
#define KW(s, v, w) w
#define VOP(op) VOP_(VP, op)
#define VOP_(p, op) VOP__(p, op)
#define VOP__(p, op) p##_##op
#define KLD(x) (EL(x), VOP(LOAD)(&x##_[j]), svld1(pg_, &x##_[j]))
#define KQ (q, VOP(SET1)(q), qv_)
#define KADD(x, y) ((KS x) + (KS y), VOP(ADD)(KV x, KV y),                 \
		    svadd_x(pg_, KW x, KW y))
#define KMUL(x, y) ((KS x) * (KS y), VOP(MUL)(KV x, KV y),                 \
		    svmul_x(pg_, KW x, KW y))
#define EL(x) x##_[j]

/* Every kernel takes the three arrays and q, and returns its sum (0
 * for STORE kernels); the parameters a kernel does not use are unused. */
#define KERNEL_PARAMS                                                       \
	elem_t *restrict a_, elem_t *restrict b_, elem_t *restrict c_,      \
	elem_t q, size_t lo, size_t hi, int nt
#define KERNEL_UNUSED                                                       \
	do {                                                                \
		(void)a_; (void)b_; (void)c_; (void)q; (void)nt;            \
	} while (0)

#if HAVE_VEC_NT
#define VGEN_LOAD vload
#define VGEN_SET1 vset1
#define VGEN_ADD vadd
#define VGEN_MUL vmul
#define NT_STORE_LOOP(dst, j, lo, hi, sval, vval)                         \
	do {                                                                \
		for (j = (lo); j < (hi) && (uintptr_t)&(dst)[j] % VBYTES; j++) \
			(dst)[j] = (sval);                                  \
		for (; j + VN <= (hi); j += VN)                             \
			vstream(&(dst)[j], (vval));                         \
		for (; j < (hi); j++)                                       \
			(dst)[j] = (sval);                                  \
		nt_fence();                                                 \
	} while (0)
#elif HAVE_NT
#define NT_STORE_LOOP(dst, j, lo, hi, sval, vval)                         \
	do {                                                                \
		for (j = (lo); j < (hi); j++)                               \
			__builtin_nontemporal_store((sval), &(dst)[j]);     \
		nt_fence();                                                 \
	} while (0)
#else /* never entered: nt is ignored where there are no streaming stores */
#define NT_STORE_LOOP(dst, j, lo, hi, sval, vval)                         \
	for (j = (lo); j < (hi); j++)                                       \
		(dst)[j] = (sval)
#endif

/* sum = the sum of sval over [lo, hi) in double, in lanes partial sums
 * (a power of two, at most 128): independent adds, so the loop is
 * limited by loads, not by the latency of one accumulator.  A compiler
 * that vectorizes them holds lanes / (doubles a vector) vector
 * accumulators, and keeping a core's two vector adds a cycle busy over
 * their 4-cycle latency takes 8 of them.  The ISA kernels give each
 * width its own count (V512_ACC_LANES ...); this build's own code takes
 * SUM_LANES, 32 (8 of AVX2's vectors, 16 of SSE2's) or 64 where the
 * build itself is AVX-512's.  The tail goes one element a lane, and the
 * lanes fold in halves whose widths are constants, so neither is a
 * chain of dependent adds: at a cache level's working set (20 KiB) a
 * call is about 300 cycles, and on the Intel guest (family 6 model 167)
 * the serial tail and fold took 40% more with a 59-element tail, 10%
 * without.  sval reads element j, which each lane steps on.
 * docs/measurements.md has the figures. */
#ifndef SUM_LANES
#if defined(__AVX512F__)
#define SUM_LANES 64
#else
#define SUM_LANES 32
#endif
#endif
#if SUM_LANES < 1 || SUM_LANES > 128 || (SUM_LANES & (SUM_LANES - 1))
#error "SUM_LANES must be a power of two from 1 to 128"
#endif
#define SUM_FOLD(w, lanes)                                                \
	if ((lanes) > (w))                                                  \
		for (u_ = 0; u_ < (w); u_++)                                \
			s_[u_] += s_[u_ + (w)];
#define SUM_LOOP(j, lo, hi, sval, sum) SUM_LOOP_N(j, lo, hi, sval, sum, SUM_LANES)
#define SUM_LOOP_N(j, lo, hi, sval, sum, lanes)                           \
	do {                                                                \
		/* 128, the most lanes: each fold's index lies inside it,   \
		 * the folds the lanes skip too (for cppcheck) */           \
		double s_[128];                                             \
		int u_;                                                     \
		for (u_ = 0; u_ < (lanes); u_++)                            \
			s_[u_] = 0;                                         \
		for (j = (lo); j + (lanes) <= (hi);)                        \
			for (u_ = 0; u_ < (lanes); u_++, j++)               \
				s_[u_] += (sval);                           \
		for (u_ = 0; j < (hi); u_++, j++)                           \
			s_[u_] += (sval);                                   \
		SUM_FOLD(64, lanes) SUM_FOLD(32, lanes) SUM_FOLD(16, lanes) \
		SUM_FOLD(8, lanes) SUM_FOLD(4, lanes) SUM_FOLD(2, lanes)    \
		SUM_FOLD(1, lanes)                                          \
		(sum) = s_[0];                                              \
	} while (0)

/* The plain kernels, k_copy ... k_nstream, in this build's own code:
 * with nt set a STORE kernel writes with non-temporal stores. */
#define VP VGEN
#define K_FN_STORE(name, dst, f)                                            \
	static double k_##name(KERNEL_PARAMS)                               \
	{                                                                   \
		size_t j;                                                   \
		KERNEL_UNUSED;                                              \
		if (HAVE_NT && nt) {                                        \
			NT_STORE_LOOP(dst##_, j, lo, hi, KS f, KV f);       \
			return 0.0;                                         \
		}                                                           \
		for (j = lo; j < hi; j++)                                   \
			dst##_[j] = KS f;                                   \
		return 0.0;                                                 \
	}
#define K_FN_SUM(name, dst, f)                                              \
	static double k_##name(KERNEL_PARAMS)                               \
	{                                                                   \
		size_t j;                                                   \
		double sum;                                                 \
		KERNEL_UNUSED;                                              \
		SUM_LOOP(j, lo, hi, KS f, sum);                             \
		return sum;                                                 \
	}
#define K_FN(id, name, disp, label, kind, dst, words, flops, f)             \
	K_FN_##kind(name, dst, f)
KERNEL_TABLE(K_FN)
#undef VP

struct arrays {
	elem_t *a, *b, *c;
	size_t n;
};

/* How a kernel runs: its stores (plain, streaming, or libc's memcpy for
 * Copy) and the instruction set its code was compiled for.  SK_LOAD is
 * Read's bare loads (ISA_LOAD_LOOP): no stores and no sum. */
enum store_kind { SK_PLAIN, SK_NT, SK_MEMCPY, SK_LOAD };
static const char *const store_kind_names[] = {"plain", "nt", "memcpy", "load"};
struct method {
	int kind; /* store_kind */
	int isa;  /* isa_level; ISA_GENERIC: this build's own code */
};
#define MAX_METHODS 8

/* "nt/avx512", "plain/generic", "memcpy": how reports name a method. */
static const char *method_name(struct method m, char *buf, size_t len)
{
	if (m.kind == SK_MEMCPY)
		snprintf(buf, len, "memcpy");
	else
		snprintf(buf, len, "%s/%s", store_kind_names[m.kind],
			 isa_names[m.isa]);
	return buf;
}

#if HAVE_X86_DISPATCH
/* Streaming stores at the vector width VP (V128, V256 or V512): a head
 * loop reaches the width's alignment, the body streams whole vectors, a
 * tail loop finishes, and a fence orders the stores before the join. */
#define ISA_NT_LOOP(dst, j, lo, hi, sval, vval)                           \
	do {                                                                \
		for (j = (lo); j < (hi) &&                                  \
			       (uintptr_t)&(dst)[j] % (VOP(N) * sizeof(elem_t)); \
		     j++)                                                   \
			(dst)[j] = (sval);                                  \
		for (; j + VOP(N) <= (hi); j += VOP(N))                     \
			VOP(STREAM)(&(dst)[j], (vval));                     \
		for (; j < (hi); j++)                                       \
			(dst)[j] = (sval);                                  \
		_mm_sfence();                                               \
	} while (0)

/* Every kernel at width VP, written once for kernels_sse2, _avx2 and
 * _avx512 below: streaming and plain stores through VP's intrinsics,
 * sums as the compiler's own loops for that function's ISA.  A SUM
 * kernel's total goes to sum.  Plain stores were the compiler's loops
 * too, and a build that does not vectorize (gcc 12 at -O2) stored one
 * element at a time under the method's name plain/avx512: a float
 * build's Write read 33 GB/s from the L1d of the Intel guest (family 6
 * model 167) beside Copy's 507 (memcpy). */
#define ISA_NT(id, name, disp, label, kind, dst, words, flops, f)           \
	ISA_NT_##kind(id, dst, f)
#define ISA_NT_STORE(id, dst, f)                                            \
	else if (nt && k == K_##id)                                         \
		ISA_NT_LOOP(dst##_, j, lo, hi, KS f, KV f);
#define ISA_NT_SUM(id, dst, f)
#define ISA_PLAIN(id, name, disp, label, kind, dst, words, flops, f)        \
	ISA_PLAIN_##kind(id, dst, f)
#define ISA_PLAIN_STORE(id, dst, f)                                         \
	else if (k == K_##id) {                                             \
		for (j = lo; j + VOP(N) <= hi; j += VOP(N))                 \
			VOP(STORE)(&dst##_[j], KV f);                       \
		for (; j < hi; j++)                                         \
			dst##_[j] = KS f;                                   \
	}
#define ISA_PLAIN_SUM(id, dst, f)
#define ISA_SUM(id, name, disp, label, kind, dst, words, flops, f)          \
	ISA_SUM_##kind(id, dst, f)
#define ISA_SUM_STORE(id, dst, f)
#define ISA_SUM_SUM(id, dst, f)                                             \
	else if (k == K_##id)                                               \
		SUM_LOOP_N(j, lo, hi, KS f, sum, VOP(ACC_LANES));
/* Read's bare loads (method kind SK_LOAD, nt == ISA_MODE_LOAD): every
 * vector of a[lo, hi) loaded at width VP, 8 independent ones a step as
 * likwid-bench's `load` kernel does, each handed to an empty asm
 * statement that takes it in a vector register ("x"), so the compiler
 * must load it and adds no instruction.  The values are not used: there
 * is no sum, and nothing of this method can be checked but the arrays,
 * which Read leaves alone.  Read's checked sums still run in the same
 * calibration, and a run that picks the loads checks Read's total with
 * the fastest sum (stream_repetitions, hier_cell_measure).  On the
 * Intel guest (family 6 model 167) a sum's adds cap Read in the L1d
 * at 0.69 of likwid-bench's `load`; docs/measurements.md. */
#define ISA_MODE_LOAD 2
#define ISA_LOAD_LOOP(x, j, lo, hi)                                         \
	do {                                                                \
		for (j = (lo); j + 8 * VOP(N) <= (hi); j += 8 * VOP(N)) {   \
			VOP(T) v0_ = VOP(LOAD)(&(x)[j]);                    \
			VOP(T) v1_ = VOP(LOAD)(&(x)[j + VOP(N)]);           \
			VOP(T) v2_ = VOP(LOAD)(&(x)[j + 2 * VOP(N)]);       \
			VOP(T) v3_ = VOP(LOAD)(&(x)[j + 3 * VOP(N)]);       \
			VOP(T) v4_ = VOP(LOAD)(&(x)[j + 4 * VOP(N)]);       \
			VOP(T) v5_ = VOP(LOAD)(&(x)[j + 5 * VOP(N)]);       \
			VOP(T) v6_ = VOP(LOAD)(&(x)[j + 6 * VOP(N)]);       \
			VOP(T) v7_ = VOP(LOAD)(&(x)[j + 7 * VOP(N)]);       \
			__asm__ volatile("" : : "x"(v0_), "x"(v1_), "x"(v2_), \
					 "x"(v3_));                         \
			__asm__ volatile("" : : "x"(v4_), "x"(v5_), "x"(v6_), \
					 "x"(v7_));                         \
		}                                                           \
		for (; j + VOP(N) <= (hi); j += VOP(N)) {                   \
			VOP(T) v_ = VOP(LOAD)(&(x)[j]);                     \
			__asm__ volatile("" : : "x"(v_));                   \
		}                                                           \
		for (; j < (hi); j++) {                                     \
			elem_t e_ = (x)[j];                                 \
			__asm__ volatile("" : : "x"(e_));                   \
		}                                                           \
	} while (0)
#define ISA_KERNELS                                                         \
	double sum = 0.0;                                                   \
	elem_t *restrict a_ = ar->a, *restrict b_ = ar->b;                  \
	elem_t *restrict c_ = ar->c;                                        \
	size_t j;                                                           \
	if (0) {                                                            \
	} else if (nt == ISA_MODE_LOAD && k == K_READ)                      \
		ISA_LOAD_LOOP(a_, j, lo, hi);                               \
	KERNEL_TABLE(ISA_NT)                                                \
	KERNEL_TABLE(ISA_PLAIN)                                             \
	KERNEL_TABLE(ISA_SUM)                                               \
	return sum

static ISA_TARGET("sse2") double kernels_sse2(enum kernel_id k,
		const struct arrays *ar, elem_t q, size_t lo, size_t hi, int nt)
{
#define VP V128
	ISA_KERNELS;
#undef VP
}

static ISA_TARGET("avx2") double kernels_avx2(enum kernel_id k,
		const struct arrays *ar, elem_t q, size_t lo, size_t hi, int nt)
{
#define VP V256
	ISA_KERNELS;
#undef VP
}

static ISA_TARGET("avx512f") double kernels_avx512(enum kernel_id k,
		const struct arrays *ar, elem_t q, size_t lo, size_t hi, int nt)
{
#define VP V512
	ISA_KERNELS;
#undef VP
}
#endif

#if HAVE_SVE_DISPATCH
/* SVE, written for any vector length: each step covers the lanes the
 * CPU has (svcnt), and a predicate (whilelt) masks off the elements
 * past hi, so there is no head or tail loop.  gcc compiles this part
 * for SVE only (the pragma), and only a CPU with SVE enters it. */
#ifndef __ARM_FEATURE_SVE /* which the pragma defines */
#define SVE_BY_PRAGMA 1
#pragma GCC push_options
#pragma GCC target("+sve")
#endif
#include <arm_sve.h>
#if BENCH_TYPEID == 1
#define SV_T svfloat64_t
#define SV_CNT svcntd
#define SV_WHILE(j, hi) svwhilelt_b64_u64((uint64_t)(j), (uint64_t)(hi))
#define SV_DUP svdup_n_f64
#else
#define SV_T svfloat32_t
#define SV_CNT svcntw
#define SV_WHILE(j, hi) svwhilelt_b32_u64((uint64_t)(j), (uint64_t)(hi))
#define SV_DUP svdup_n_f32
#endif

/* dst[j] = vexpr over [lo, hi), stored by ST (svst1 or svstnt1); vexpr
 * may use pg_, the step's predicate, and qv_, q in every lane. */
#define SVE_LOOP(ST, dst, j, lo, hi, vexpr)                               \
	do {                                                                \
		for (j = (lo); j < (hi); j += SV_CNT()) {                   \
			svbool_t pg_ = SV_WHILE(j, hi);                     \
			ST(pg_, &(dst)[j], (vexpr));                        \
		}                                                           \
	} while (0)

/* sum = the sum of vexpr over [lo, hi) in double.  Double: whole
 * vectors into four accumulators (vexpr steps on j), then a predicated
 * tail.  Float: the lanes past hi are zeroed, then widened to double
 * (even lanes, then odd ones) and summed in double, as the plain sums
 * do. */
#if BENCH_TYPEID == 1
#define SVE_SUM(j, lo, hi, vexpr, sum)                                    \
	do {                                                                \
		svbool_t all_ = svptrue_b64(), pg_ = all_;                  \
		svfloat64_t s0_ = svdup_n_f64(0.0), s1_ = s0_, s2_ = s0_;   \
		svfloat64_t s3_ = s0_;                                      \
		size_t vl_ = svcntd();                                      \
		for (j = (lo); j + 4 * vl_ <= (hi);) {                      \
			s0_ = svadd_x(all_, s0_, (vexpr)); j += vl_;        \
			s1_ = svadd_x(all_, s1_, (vexpr)); j += vl_;        \
			s2_ = svadd_x(all_, s2_, (vexpr)); j += vl_;        \
			s3_ = svadd_x(all_, s3_, (vexpr)); j += vl_;        \
		}                                                           \
		for (; j < (hi); j += vl_) {                                \
			pg_ = svwhilelt_b64_u64((uint64_t)j, (uint64_t)(hi)); \
			s0_ = svadd_m(pg_, s0_, (vexpr));                   \
		}                                                           \
		(sum) = svaddv(all_, svadd_x(all_, svadd_x(all_, s0_, s1_), \
					     svadd_x(all_, s2_, s3_)));     \
	} while (0)
#else
#define SVE_SUM(j, lo, hi, vexpr, sum)                                    \
	do {                                                                \
		svbool_t all_ = svptrue_b64();                              \
		svfloat64_t even_ = svdup_n_f64(0.0), odd_ = even_;         \
		for (j = (lo); j < (hi); j += svcntw()) {                   \
			svbool_t pg_ = svwhilelt_b32_u64((uint64_t)j, (uint64_t)(hi)); \
			svfloat32_t v_ = svsel(pg_, (vexpr), svdup_n_f32(0.0f)); \
			even_ = svadd_x(all_, even_, svcvt_f64_f32_x(all_, v_)); \
			odd_ = svadd_x(all_, odd_,                          \
				       svcvt_f64_f32_x(all_, svtrn2(v_, v_))); \
		}                                                           \
		(sum) = svaddv(all_, svadd_x(all_, even_, odd_));           \
	} while (0)
#endif

#define SVE_CASE(id, name, disp, label, kind, dst, words, flops, f)         \
	SVE_CASE_##kind(id, dst, f)
#define SVE_CASE_STORE(id, dst, f)                                          \
	else if (k == K_##id && nt)                                         \
		SVE_LOOP(svstnt1, dst##_, j, lo, hi, KW f);                 \
	else if (k == K_##id)                                               \
		SVE_LOOP(svst1, dst##_, j, lo, hi, KW f);
#define SVE_CASE_SUM(id, dst, f)                                            \
	else if (k == K_##id)                                               \
		SVE_SUM(j, lo, hi, KW f, sum);

static double kernels_sve(enum kernel_id k, const struct arrays *ar,
			  elem_t q, size_t lo, size_t hi, int nt)
{
	elem_t *restrict a_ = ar->a, *restrict b_ = ar->b, *restrict c_ = ar->c;
	SV_T qv_ = SV_DUP(q);
	double sum = 0.0;
	size_t j;
	(void)qv_;
	if (0) {
	}
	KERNEL_TABLE(SVE_CASE)
	if (nt)
		__sync_synchronize(); /* order the streaming stores */
	return sum;
}

/* The CPU's SVE vector length in bits. */
static int sve_bits(void) { return (int)svcntb() * 8; }
#ifdef SVE_BY_PRAGMA
#pragma GCC pop_options
#endif
#endif

/* One thread's share [lo, hi) of kernel k, run as m says; returns a
 * SUM kernel's partial total. */
static double kernel_span(enum kernel_id k, const struct arrays *ar, elem_t q,
			  struct method m, size_t lo, size_t hi)
{
	int nt = m.kind == SK_NT;
#if HAVE_X86_DISPATCH
	if (m.kind == SK_LOAD)
		nt = ISA_MODE_LOAD;
#endif
	if (m.kind == SK_MEMCPY && k == K_COPY) {
		memcpy(ar->c + lo, ar->a + lo, (hi - lo) * sizeof(elem_t));
		return 0.0;
	}
	switch (m.isa) { /* the dispatch table, section 2 */
#define ISA_CALL(level, detect, kernels, bits)                              \
	case level: return kernels(k, ar, q, lo, hi, nt);
	ISA_TABLE(ISA_CALL)
	default: break;
	}
	switch (k) {
#define K_CALL(id, name, disp, label, kind, dst, words, flops, f)           \
	case K_##id: return k_##name(ar->a, ar->b, ar->c, q, lo, hi, nt);
	KERNEL_TABLE(K_CALL)
	case NKERNELS: break;
	}
	return 0.0;
}

/* The vector width in bits of a level's kernels; 0 for generic, whose
 * width is the compiler's choice.  SVE's is the CPU's. */
static int isa_vector_bits(int level)
{
	switch (level) {
#define ISA_BITS(level, detect, kernels, bits)                              \
	case level: return isa_supported(level) ? (bits) : 0;
	ISA_TABLE(ISA_BITS)
	default: return 0;
	}
}

/* One timed, parallel pass of kernel k; *sum gets Read's total. */
static double run_kernel(enum kernel_id k, const struct arrays *ar, elem_t q,
			 struct method m, double *sum)
{
	double t, s = 0.0;
	t = now();
#ifdef _OPENMP
#pragma omp parallel reduction(+ : s)
#endif
	{
		size_t lo, hi;
		thread_span(ar->n, &lo, &hi);
		s += kernel_span(k, ar, q, m, lo, hi);
	}
	t = now() - t;
	*sum = s;
	return t;
}

/* First touch, in parallel with the kernels' own split, so each page is
 * placed near the thread that will use it.  Threads are pinned here
 * (when bench pins: plan_binding; or thread t to cpus[t % ncpus] when
 * the caller names CPUs, as bench nodes does) and report where they run.
 * On a page grid each array is touched on its own page boundaries, the
 * one nearest each span's start: the arrays start at different offsets
 * in their pages (the stagger), so a span's boundary can cut one of an
 * array's pages, which then goes to the thread that uses most of it.
 * phase[i]: the element where array i's first page boundary falls. */
static void first_touch(const struct arrays *ar, int pin, const int *cpus,
			int ncpus, const size_t *phase)
{
	int counted = 0;
#ifdef _OPENMP
#pragma omp parallel reduction(+ : counted)
#endif
	{
		size_t lo, hi, j, lx, hx, t = (size_t)thread_id(),
					    nt = (size_t)thread_count();
		elem_t *x[3];
		int i;
		x[0] = ar->a;
		x[1] = ar->b;
		x[2] = ar->c;
		if (cpus && ncpus > 0) {
			pin_to_cpu(cpus[t % (size_t)ncpus]);
		} else if (pin) {
#ifdef _OPENMP
#pragma omp single
#endif
			plan_binding((int)nt);
			if (t < MAX_THREADS && bind_plan.cpu_of[t] >= 0)
				pin_to_cpu(bind_plan.cpu_of[t]);
		}
		if (t < MAX_THREADS)
			thread_cpu_start[t] = current_cpu();
		thread_span(ar->n, &lo, &hi);
		for (i = 0; i < 3; i++) {
			elem_t v = i == 0 ? 1.0 : i == 1 ? 2.0 : 0.0;
			lx = span_grain ? span_snap(lo, span_grain, phase[i], ar->n) : lo;
			hx = span_grain ? span_snap(hi, span_grain, phase[i], ar->n) : hi;
			if (t == 0)
				lx = 0;
			if (t + 1 == nt)
				hx = ar->n;
			for (j = lx; j < hx; j++)
				x[i][j] = v;
		}
		counted++;
	}
	threads_counted = counted;
}

static void record_end_cpus(void)
{
#ifdef _OPENMP
#pragma omp parallel
#endif
	{
		int t = thread_id();
		if (t < MAX_THREADS)
			thread_cpu_end[t] = current_cpu();
	}
}

/* One bandwidth run: its plan, its arrays, and every figure the
 * report shows. */
struct stream_run {
	struct alloc_plan plan;
	struct arrays ar;
	struct region reg[3];
	struct page_report pages[3];
	struct phys_report phys[3]; /* --placement */
	size_t n;
	unsigned long long ntimes;
	double granularity; /* the clock's step, seconds */
	double tick;        /* the tick STREAM's text reports: whole us, >= 1 */
	double pass_us;     /* one untimed pass over a[], microseconds */
	size_t span_bytes;  /* threads' spans split on pages of this size; 0 cache lines */
	int nodes_known;    /* node_pages[] was asked (a machine of several nodes) */
	unsigned long long node_pages[3][PHYS_MAX_NODES + 1]; /* base pages per node, and NODE_UNKNOWN */
	double *times;  /* [kernel][rep] */
	double *sums;   /* [kernel][rep]: a SUM kernel's total */
	double *expect; /* [kernel][rep]: what the replay expects of it */
	double min_t[NKERNELS], max_t[NKERNELS], avg_t[NKERNELS], med_t[NKERNELS];
	/* stores: what each kernel used, and what --stores auto measured */
	int store_nt[NKERNELS];
	int isa;                    /* the level the kernels may use */
	struct method how[NKERNELS]; /* what each kernel ran with */
	/* a SUM kernel run by bare loads (SK_LOAD), which sum nothing: the
	 * fastest sum method, and its total of one untimed pass after the
	 * timed ones, which validation checks in their place */
	struct method check_how[NKERNELS];
	double check_sum[NKERNELS];
	unsigned long long ncal;
	int ncand[NKERNELS];        /* --stores auto's candidates per kernel */
	struct method cand[NKERNELS][MAX_METHODS];
	double cal_min[NKERNELS][MAX_METHODS];
	double cal_s;               /* seconds calibration added */
	struct stream_run *best;    /* --best: the fastest methods' run */
	/* validation */
	int valid;
	int sum_ok[NKERNELS]; /* a SUM kernel's totals all validate */
	double epsilon;
	double expected[3], avg_abs[3], avg_rel[3];
	long long nerr[3];
	/* STREAM's run rules */
	const char *verdict; /* "standard", "tuned" or "variant" */
	int nreasons;
	char reason[8][160];
};

#define TIME_AT(r, k, rep) ((r)->times[(size_t)(k) * (r)->ntimes + (rep)])
#define SUM_AT(r, k, rep) ((r)->sums[(size_t)(k) * (r)->ntimes + (rep)])
#define EXPECT_AT(r, k, rep) ((r)->expect[(size_t)(k) * (r)->ntimes + (rep)])

/* ======================================================================
 * 11 Validation (bandwidth), as STREAM does it: replay the kernel
 * sequence on scalars, then compare every element against the replayed
 * value.  The replay's formulas are written out here, apart from the
 * kernels' table, as STREAM's check writes its four in code of its own.
 * ====================================================================== */

/* What kernel k leaves, on the scalars a, b and c with the scalar q, and
 * for a SUM kernel its total over n elements: each formula written out
 * again, not taken from KERNEL_TABLE.  A kernel whose table line is
 * wrong (Nstream computing Triad) agrees with a replay of that line and
 * fails this one.  Returns KIND_STORE or KIND_SUM, as this code knows
 * the kernel, whatever the table says. */
static int kernel_expect(enum kernel_id k, elem_t *a, elem_t *b, elem_t *c,
			 elem_t q, double n, double *sum)
{
	switch (k) {
	case K_COPY: *c = *a; return KIND_STORE;
	case K_SCALE: *b = q * *c; return KIND_STORE;
	case K_ADD: *c = *a + *b; return KIND_STORE;
	case K_TRIAD: *a = *b + q * *c; return KIND_STORE;
	case K_READ: *sum = n * (double)*a; return KIND_SUM;
	case K_WRITE: *c = q; return KIND_STORE;
	case K_DOT: *sum = n * (double)(elem_t)(*a * *b); return KIND_SUM;
	case K_NSTREAM: *a = *a + (*b + q * *c); return KIND_STORE;
	case K_AXPY: *c = *c + q * *a; return KIND_STORE;
	case K_UPDATE: *b = q * *b; return KIND_STORE;
	case NKERNELS: break;
	}
	die("internal error: validation has no formula of its own for "
	    "kernel %d: add it to kernel_expect", (int)k);
	return KIND_STORE;
}

/* Replay the kernels' formulas on scalars: a STORE kernel's array gets
 * its formula, a SUM kernel's total of every repetition must be n times
 * its formula, to 1e-9.  Validation replays kernel_expect's formulas;
 * replay_limit, which only sizes a run, the table's (REPLAY).  A
 * calibration pass (--stores auto) runs each kernel once per candidate
 * method, which only Nstream, reading the array it writes, can tell
 * from once. */
#undef EL
#define EL(x) x##j
#define REPLAY(id, name, disp, label, kind, dst, words, flops, f)           \
	for (i = 0; (kernels & (1u << K_##id)) && i < REPLAY_TIMES(K_##id); i++) \
		REPLAY_##kind(K_##id, dst, f);
#define REPLAY_STORE(id, dst, f) dst##j = KS f

static void check_sum(struct stream_run *r, int kernel,
		      unsigned long long pass, double want)
{
	unsigned long long rep;
	if (pass < r->ncal) /* calibration's sums are not kept */
		return;
	rep = pass - r->ncal;
	EXPECT_AT(r, kernel, rep) = want;
	if (r->how[kernel].kind == SK_LOAD) /* no total: check_sum's */
		return;
	if (exceeds(abs_d(SUM_AT(r, kernel, rep) - want), 1e-9 * abs_d(want)))
		r->sum_ok[kernel] = 0;
}

static void validate(struct stream_run *r, unsigned kernels)
{
	elem_t aj = 1.0, bj = 2.0, cj = 0.0, q = 3.0;
	const elem_t *arr[3];
	unsigned long long k;
	size_t j;
	int i;

	r->epsilon = sizeof(elem_t) == 4 ? 1.e-6 : 1.e-13;
	aj = (elem_t)(2.0E0 * aj); /* the timer-resolution pass doubled a[] */
	for (i = 0; i < NKERNELS; i++)
		r->sum_ok[i] = 1;
	/* calibration passes (--stores auto) ran the same sequence first */
	for (k = 0; k < r->ncal + r->ntimes; k++)
		for (i = 0; i < NKERNELS; i++) {
			unsigned long long t, times = 1;
			if (k < r->ncal)
				times = (unsigned long long)r->ncand[i];
			for (t = 0; (kernels & (1u << i)) && t < times; t++) {
				double sum = 0.0;
				if (kernel_expect((enum kernel_id)i, &aj, &bj, &cj, q,
						  (double)r->n, &sum) == KIND_SUM)
					check_sum(r, i, k, sum);
			}
		}
	/* Read by bare loads: the fastest sum's pass after the timed ones,
	 * over the arrays the last pass left (Read changes none) */
	for (i = 0; i < NKERNELS; i++) {
		double sum = 0.0;
		if ((kernels & (1u << i)) && r->how[i].kind == SK_LOAD &&
		    kernel_expect((enum kernel_id)i, &aj, &bj, &cj, q,
				  (double)r->n, &sum) == KIND_SUM &&
		    exceeds(abs_d(r->check_sum[i] - sum), 1e-9 * abs_d(sum)))
			r->sum_ok[i] = 0;
	}
	r->expected[0] = aj;
	r->expected[1] = bj;
	r->expected[2] = cj;
	arr[0] = r->ar.a;
	arr[1] = r->ar.b;
	arr[2] = r->ar.c;
	r->valid = 1;
	for (i = 0; i < NKERNELS; i++)
		r->valid &= r->sum_ok[i];
	for (i = 0; i < 3; i++) {
		double want = r->expected[i], sum = 0.0;
		long long bad = 0;
		for (j = 0; j < r->n; j++)
			sum += abs_d((double)arr[i][j] - want);
		r->avg_abs[i] = sum / (double)r->n;
		/* An expected 0 (c[] when nothing writes it) compares absolutely. */
		r->avg_rel[i] = want != 0.0 ? r->avg_abs[i] / abs_d(want) : r->avg_abs[i];
		/* a value that overflowed validates against nothing */
		if (!finite_d(want) || exceeds(r->avg_rel[i], r->epsilon)) {
			for (j = 0; j < r->n; j++) {
				double x = (double)arr[i][j];
				double e = want != 0.0 ? abs_d(x / want - 1.0) : abs_d(x);
				if (!finite_d(want) || exceeds(e, r->epsilon))
					bad++;
			}
			r->avg_rel[i] = finite_d(r->avg_rel[i]) ? r->avg_rel[i] : HUGE_VAL;
			r->valid = 0;
		}
		r->nerr[i] = bad;
	}
}

/* How many timed passes of the kernel sequence, after cal calibration
 * passes, keep every value finite: the values grow with each pass
 * (15-fold with all four STREAM kernels), and an infinite value would
 * validate against an infinite expectation.  The 1e20 leaves room for a
 * SUM kernel's total of n values.  A calibration pass counts each
 * kernel as many times as it may have candidate methods. */
static unsigned long long replay_limit(unsigned kernels,
				       unsigned long long cal)
{
	elem_t aj = 2.0, bj = 2.0, cj = 0.0, q = 3.0, sj = 0.0;
	unsigned long long k;
	int i;
	for (k = 0; k < 1000000 + cal; k++) {
#undef REPLAY_SUM
#define REPLAY_SUM(id, dst, f) sj = KS f
#define REPLAY_TIMES(kernel) (k < cal ? MAX_METHODS : 1)
		KERNEL_TABLE(REPLAY)
#undef REPLAY_TIMES
		if (!finite_d((double)aj * 1e20) || !finite_d((double)bj * 1e20) ||
		    !finite_d((double)cj * 1e20) || !finite_d((double)sj * 1e20))
			return k < cal ? 0 : k - cal;
	}
	return k - cal;
}
#undef EL
#define EL(x) x##_[j]

/* One broken run rule, in words.  A reason holds no comma (a type named
 * by -DSTREAM_TYPE could bring one): `awk -F,` readers of the CSV count
 * its fields, and the reasons are joined with "; " there and in the text. */
static void rule_broken(struct stream_run *r, const char *fmt, ...)
{
	va_list ap;
	char *c;
	if (r->nreasons >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(r->reason[r->nreasons], sizeof(r->reason[0]), fmt, ap);
	va_end(ap);
	for (c = r->reason[r->nreasons++]; (c = strchr(c, ',')) != NULL; c++)
		*c = ';';
}

/* STREAM's run rules, which its licence asks of results published as
 * STREAM results: each array at least BENCH_LLC_FACTOR times all the
 * last-level cache, every kernel at least 20 ticks of the clock, STREAM's
 * four kernels on double elements, NTIMES at least 10, validation passed,
 * plain stores.  "standard" when all hold; "tuned" when only the stores
 * differ (a speed-up STREAM's rules call tuned code); "variant" else. */
static void stream_run_rules(const struct options *o, struct stream_run *r)
{
	int k, tuned = 0;
	r->nreasons = 0;
	if (!r->plan.rule_elems)
		rule_broken(r, "the OS reports no last-level cache: the %dx "
			    "rule cannot be checked", BENCH_LLC_FACTOR);
	else if (r->n < r->plan.rule_elems)
		rule_broken(r, "arrays of %llu elements: below %dx all last-level "
			    "caches (%llu)", (unsigned long long)r->n,
			    BENCH_LLC_FACTOR, r->plan.rule_elems);
	for (k = 0; k < NKERNELS; k++)
		if ((o->kernels & (1u << k)) && r->min_t[k] < 20 * r->tick) {
			rule_broken(r, "%s ran fewer than 20 clock ticks",
				    kernel_defs[k].name);
			break;
		}
	if (!r->valid)
		rule_broken(r, "validation failed");
	if (threads_over_quota)
		rule_broken(r, "%d threads above a CPU quota of %.2f CPUs: the "
			    "figures are not the machine's", threads_counted,
			    os_box_limits()->cpus);
	if (o->kernels != STREAM_KERNELS)
		rule_broken(r, "kernels other than STREAM's four");
	if (BENCH_TYPEID != 1)
		rule_broken(r, "elements are %s (not double)", XSTR(STREAM_TYPE));
	if (r->ntimes < 10)
		rule_broken(r, "ntimes %llu: below STREAM's 10", r->ntimes);
	for (k = 0; k < NKERNELS; k++)
		if (o->kernels & (1u << k))
			tuned |= (r->store_nt[k] ? 1 : 0) |
				 (r->how[k].kind == SK_MEMCPY ? 2 : 0);
	if (tuned)
		rule_broken(r, "%s", tuned == 1 ? "streaming stores"
			    : tuned == 2 ? "memcpy for copy"
			    : "streaming stores and memcpy for copy");
	r->verdict = r->nreasons == 0 ? "standard"
		     : r->nreasons == 1 && tuned ? "tuned" : "variant";
}

/* ======================================================================
 * 12 Report (bandwidth).  The text keeps STREAM 5.10's lines and order so
 * STREAM parsers keep working; membench's additions sit outside
 * STREAM's table under other words.  The JSON carries the same run.
 * ====================================================================== */

static double kernel_bytes(int k, size_t n)
{
	return (double)kernel_defs[k].words * (double)sizeof(elem_t) * (double)n;
}

/* What the stores were: "plain", "nt", or for auto "auto: copy memcpy,
 * scale nt/avx512, ..." (detail) or just "auto". */
static const char *stores_used(const struct options *o,
			       const struct stream_run *r)
{
	(void)o;
	int k, nt = 0;
	for (k = 0; k < NKERNELS; k++)
		nt |= r->how[k].kind == SK_NT;
	return r->ncal ? "auto" : nt ? "nt" : "plain";
}

static void describe_stores(const struct options *o, const struct stream_run *r,
			    char *buf, size_t len)
{
	size_t used;
	int k;
	if (!r->ncal) {
		snprintf(buf, len, "%s", stores_used(o, r));
		return;
	}
	used = (size_t)snprintf(buf, len, "auto:");
	for (k = 0; k < NKERNELS && used < len; k++)
		if ((o->kernels & (1u << k)) && !IS_SUM(k)) {
			char m[32];
			used += (size_t)snprintf(buf + used, len - used, " %s %s",
						 kernel_defs[k].name,
						 method_name(r->how[k], m, sizeof(m)));
		}
}

/* The levels this CPU may run, " sse2 avx2 avx512", for the reports. */
static void describe_isas(char *buf, size_t len)
{
	int l;
	buf[0] = '\0';
	for (l = ISA_SSE2; l < NISA; l++)
		if (isa_supported(l))
			snprintf(buf + strlen(buf), len - strlen(buf), " %s",
				 isa_names[l]);
}

/* Instruction set, and what --stores auto's calibration found: per
 * kernel the winner, its margin over the runner-up and over plain
 * stores in this build's own code, and the time it all added. */
static void print_isa_text(const struct options *o, const struct stream_run *r)
{
	char have[64], m1[32], m2[32], bits[32] = "";
	const char *why;
	int k, i;
	describe_isas(have, sizeof(have));
	if (isa_vector_bits(r->isa))
		snprintf(bits, sizeof(bits), "%d-bit vectors; ",
			 isa_vector_bits(r->isa));
	switch (isa_rule(o)) {
	case ISA_BY_BUILD: why = "this build's code, no run-time dispatch"; break;
	case ISA_BY_STREAM:
		why = "this build's own code, as STREAM's; --isa auto dispatches";
		break;
	case ISA_BY_SET: why = "set by --isa or BENCH_ISA"; break;
	default: why = "the widest this CPU has, chosen at run time"; break;
	}
	printf("Instruction set: %s (%s%s; this CPU:%s)\n", isa_names[r->isa],
	       bits, why, have[0] ? have
	       : HAVE_ISA_DISPATCH ? " nothing above generic" : " not probed");
	if (!r->ncal)
		return;
	printf("Calibration (--stores auto): %llu passes, %.3f s; fastest "
	       "per kernel:\n", r->ncal, r->cal_s);
	for (k = 0; k < NKERNELS; k++) {
		int w = -1, next = -1;
		if (!(o->kernels & (1u << k)))
			continue;
		for (i = 0; i < r->ncand[k]; i++)
			if (w < 0 || r->cal_min[k][i] < r->cal_min[k][w])
				w = i;
		for (i = 0; i < r->ncand[k]; i++)
			if (i != w && (next < 0 || r->cal_min[k][i] < r->cal_min[k][next]))
				next = i;
		printf("  %-6s %-14s", kernel_defs[k].name,
		       method_name(r->cand[k][w], m1, sizeof(m1)));
		if (next >= 0) {
			printf(" %.3fx %s (next)",
			       r->cal_min[k][next] / r->cal_min[k][w],
			       method_name(r->cand[k][next], m2, sizeof(m2)));
			/* candidate 0 is plain stores in this build's code */
			if (w != 0 && next != 0)
				printf(", %.3fx %s", r->cal_min[k][0] / r->cal_min[k][w],
				       method_name(r->cand[k][0], m1, sizeof(m1)));
			printf("\n");
		} else
			printf(" (the only method)\n");
	}
}

static void print_stream_banner(const struct options *o, const struct stream_run *r)
{
	double bpw = (double)sizeof(elem_t);
	printf(HLINE);
	printf("STREAM version $Revision: 5.10 $\n");
	printf("membench %s: bench.c measures STREAM's kernels and prints "
	       "STREAM's lines\n", BENCH_VERSION);
	printf(HLINE);
	printf("This system uses %d bytes per array element.\n", (int)sizeof(elem_t));
	printf(HLINE);
	printf("Array size = %llu (elements), Offset = %llu (elements)\n",
	       (unsigned long long)r->n, o->offset);
	printf("Memory per array = %.1f MiB (= %.1f GiB).\n",
	       bpw * ((double)r->n / 1024.0 / 1024.0),
	       bpw * ((double)r->n / 1024.0 / 1024.0 / 1024.0));
	printf("Total memory required = %.1f MiB (= %.1f GiB).\n",
	       (3.0 * bpw) * ((double)r->n / 1024.0 / 1024.),
	       (3.0 * bpw) * ((double)r->n / 1024.0 / 1024. / 1024.));
	printf("Each kernel will be executed %llu times.\n", r->ntimes);
	printf(" The *best* time for each kernel (excluding the first iteration)\n");
	printf(" will be used to compute the reported bandwidth.\n");
}

/* STREAM's clock paragraph: granularity and one pass's duration.  word:
 * "clock" as stream.c 5.10 says it, "timer" as stream_mpi.c 1.8 does. */
static void print_clock_text(const struct stream_run *r, const char *word)
{
	int quantum = (int)(r->tick * 1e6 + 0.5);
	if (r->granularity * 1e6 >= 1)
		printf("Your %s granularity/precision appears to be %d "
		       "microseconds.\n", word, quantum);
	else
		printf("Your %s granularity appears to be less than one "
		       "microsecond.\n", word);
	printf("Each test below will take on the order of %d microseconds.\n",
	       (int)r->pass_us);
	printf("   (= %d %s ticks)\n", (int)(r->pass_us / quantum), word);
	printf("Increase the size of the arrays if this shows that\n");
	printf("you are not getting at least 20 %s ticks per test.\n", word);
	printf(HLINE);
	printf("WARNING -- The above is only a rough guideline.\n");
	printf("For best results, please be sure you know the\n");
	printf("precision of your system timer.\n");
}

/* The other arrays whose mapping (VMA) is array i's, into names[]; how
 * many. */
static int stream_shared_mapping(const struct stream_run *r, int i, char *names)
{
	int j, n = 0;
	for (j = 0; j < 3; j++)
		if (j != i && r->pages[i].known && r->pages[j].known &&
		    r->pages[j].vma_start == r->pages[i].vma_start &&
		    r->pages[j].vma_end == r->pages[i].vma_end)
			names[n++] = array_names[j];
	return n;
}

static void print_placement_text(const struct options *o,
				 const struct stream_run *r)
{
	char bind[400], stores[160];
	int i;
	describe_binding(o, bind, sizeof(bind));
	describe_stores(o, r, stores, sizeof(stores));
	if (o->size_auto)
		printf("Array size: %llu elements, chosen by --size auto (%dx the "
		       "reported last-level cache, at most half of memory)\n",
		       (unsigned long long)r->n, BENCH_LLC_FACTOR);
	if (r->plan.wanted) {
		char lim[BOX_TEXT + 64];
		box_limit_words(lim, sizeof(lim));
		printf("Array size: capped from %llu to %llu elements by %s\n",
		       r->plan.wanted, (unsigned long long)r->n, lim);
	}
	printf("Allocation: %s, stores %s, stagger %llu bytes\n",
	       alloc_names[r->plan.mode], stores,
	       (unsigned long long)r->plan.stagger);
	{
		char pairs[512];
		uintptr_t addr[3];
		for (i = 0; i < 3; i++)
			addr[i] = (uintptr_t)r->reg[i].data;
		if (layout_text(pairs, sizeof(pairs), o->kernels, addr, 0, 0))
			printf("Array layout: dst-src mod 4 KiB, bytes: %s\n", pairs);
	}
	if (o->nt_stores != STORES_PLAIN && nt_fallback(r->isa))
		printf("Stores fallback: %s\n", nt_fallback(r->isa));
	print_isa_text(o, r);
	printf("Page size:");
	for (i = 0; i < 3; i++) {
		if (r->pages[i].known)
			printf("%s %c %lu KiB (%.0f%% huge)", i ? "," : "",
			       array_names[i], r->pages[i].page_kib,
			       r->pages[i].huge_pct);
		else
			printf("%s %c unknown", i ? "," : "", array_names[i]);
	}
	printf("\n");
	for (i = 0; i < 3; i++) {
		char map[1024], names[3], shared[16] = "";
		int n = stream_shared_mapping(r, i, names);
		if (n)
			snprintf(shared, sizeof(shared), "%c%s%.1s", names[0],
				 n > 1 ? " and " : "", n > 1 ? names + 1 : "");
		format_mapping(map, sizeof(map), &r->pages[i], shared);
		printf("Mapping %c: %s\n", array_names[i], map);
	}
	printf("Binding: %s\n", bind);
	if (threads_quota_text[0])
		printf("Threads: %s\n", threads_quota_text);
	printf("Thread CPUs:");
	for (i = 0; i < threads_counted && i < MAX_THREADS; i++)
		printf(" %d:%d", i, thread_cpu_start[i]);
	printf("\n");
	if (r->span_bytes) {
		char b1[32];
		format_bytes(b1, sizeof(b1), r->span_bytes);
		printf("Thread spans: split on %s page boundaries, so the thread "
		       "that first touches each page, and so chooses its node, "
		       "uses most of it\n", b1);
	} else {
		printf("Thread spans: split on %d-byte cache lines\n", CACHE_LINE);
	}
	if (r->nodes_known) {
		printf("Page nodes:");
		for (i = 0; i < 3; i++) {
			unsigned long long all = 0;
			int n;
			for (n = 0; n < PHYS_MAX_NODES; n++)
				all += r->node_pages[i][n];
			printf("%s %c", i ? ";" : "", array_names[i]);
			all += r->node_pages[i][NODE_UNKNOWN];
			for (n = 0; n < PHYS_MAX_NODES; n++)
				if (r->node_pages[i][n])
					printf(" node %d %.0f%%", n,
					       100.0 * (double)r->node_pages[i][n] / (double)all);
			if (r->node_pages[i][NODE_UNKNOWN])
				printf(" node unknown %.0f%%", 100.0 *
				       (double)r->node_pages[i][NODE_UNKNOWN] / (double)all);
		}
		printf("\n");
	}
	for (i = 0; o->placement && i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "array %c", array_names[i]);
		phys_print("", name, &r->phys[i], r->pages[i].huge_pct);
	}
}

static void print_results_text(const struct stream_run *r, unsigned kernels)
{
	int k;
	printf("Function    Best Rate MB/s  Avg time     Min time     Max time\n");
	for (k = 0; k < NKERNELS; k++)
		if (kernels & (1u << k))
			printf("%s%12.1f  %11.6f  %11.6f  %11.6f\n",
			       kernel_defs[k].label,
			       1.0E-06 * kernel_bytes(k, r->n) / r->min_t[k],
			       r->avg_t[k], r->min_t[k], r->max_t[k]);
	printf(HLINE);
}

static void print_validation_text(const struct stream_run *r, unsigned kernels)
{
	int i;
	unsigned long long k;
	for (i = 0; i < 3; i++) {
		if (!exceeds(r->avg_rel[i], r->epsilon) && finite_d(r->expected[i]))
			continue;
		printf("Failed Validation on array %c[], AvgRelAbsErr > epsilon (%e)\n",
		       array_names[i], r->epsilon);
		printf("     Expected Value: %e, AvgAbsErr: %e, AvgRelAbsErr: %e\n",
		       r->expected[i], r->avg_abs[i], r->avg_rel[i]);
		if (i > 0)
			printf("     AvgRelAbsErr > Epsilon (%e)\n", r->epsilon);
		printf("     For array %c[], %lld errors were found.\n",
		       array_names[i], r->nerr[i]);
	}
	for (i = 0; i < NKERNELS; i++)
		for (k = 0; (kernels & (1u << i)) && !r->sum_ok[i] &&
			    r->how[i].kind != SK_LOAD && k < r->ntimes; k++)
			if (exceeds(abs_d(SUM_AT(r, i, k) - EXPECT_AT(r, i, k)),
				    1e-9 * abs_d(EXPECT_AT(r, i, k))))
				printf("Failed Validation on %s: repetition %llu summed "
				       "%e, expected %e\n", kernel_defs[i].display,
				       k + 1, SUM_AT(r, i, k), EXPECT_AT(r, i, k));
	for (i = 0; i < NKERNELS; i++)
		if ((kernels & (1u << i)) && !r->sum_ok[i] &&
		    r->how[i].kind == SK_LOAD)
			printf("Failed Validation on %s: its bare loads sum "
			       "nothing, and the pass of its fastest sum after "
			       "them summed %e, expected %e\n",
			       kernel_defs[i].display, r->check_sum[i],
			       EXPECT_AT(r, i, r->ntimes - 1));
	if (r->valid)
		printf("Solution Validates: avg error less than %e on all three "
		       "arrays\n", r->epsilon);
}

/* Medians and spread, outside STREAM's table.  Only STREAM's own lines
 * may hold the words Copy, Scale, Add, Triad, Function, "Solution
 * Validates" and "STREAM version": scripts grep for them unanchored, so
 * membench's lines name kernels in lower case. */
static void print_medians_text(const struct stream_run *r, unsigned kernels)
{
	int k;
	printf("Medians over repetitions 2..%llu (MB/s, seconds, max/min time):\n",
	       r->ntimes);
	for (k = 0; k < NKERNELS; k++)
		if (kernels & (1u << k))
			printf("  median %-6s %12.1f  %11.6f  spread %.3f\n",
			       kernel_defs[k].name,
			       1.0E-06 * kernel_bytes(k, r->n) / r->med_t[k],
			       r->med_t[k], r->max_t[k] / r->min_t[k]);
	printf(HLINE);
}

/* The run-rule verdict, after STREAM's lines and the medians. */
static void print_run_rules_text(const struct stream_run *r)
{
	int i;
	printf("Run rules: %s", r->verdict);
	for (i = 0; i < r->nreasons; i++)
		printf("%s%s", i ? "; " : " (", r->reason[i]);
	printf("%s\n", r->nreasons ? ")" : "");
	printf(HLINE);
}

/* A result's method keys: stores, isa, method, and with --stores auto
 * every candidate's best calibration time. */
static void json_kernel_method(const struct stream_run *r, int k)
{
	char m[32];
	double best[4] = {DBL_MAX, DBL_MAX, DBL_MAX, DBL_MAX};
	int i;
	json_str("stores", IS_SUM(k) ? "none"
		 : store_kind_names[r->how[k].kind]);
	json_str("isa", isa_names[r->how[k].isa]);
	json_str("method", method_name(r->how[k], m, sizeof(m)));
	if (r->how[k].kind == SK_LOAD) /* no sum: the sum that checks Read */
		json_str("checked_by", method_name(r->check_how[k], m, sizeof(m)));
	if (!r->ncal)
		return;
	json_open("calibration", '[');
	for (i = 0; i < r->ncand[k]; i++) {
		struct method c = r->cand[k][i];
		json_open(NULL, '{');
		json_str("method", method_name(c, m, sizeof(m)));
		json_str("stores", store_kind_names[c.kind]);
		json_str("isa", isa_names[c.isa]);
		json_num("best_s", r->cal_min[k][i]);
		json_close('}');
		if (r->cal_min[k][i] < best[c.kind])
			best[c.kind] = r->cal_min[k][i];
	}
	json_close(']');
	/* the fastest of each kind, as before calibration had more kinds */
	if (!IS_SUM(k) && best[SK_PLAIN] < DBL_MAX)
		json_num("calibration_plain_s", best[SK_PLAIN]);
	if (!IS_SUM(k) && best[SK_NT] < DBL_MAX)
		json_num("calibration_nt_s", best[SK_NT]);
}

/* One kernel's rates and times, as the standard run and --best's both
 * give them: best and median rate, min, max and median time, spread. */
static void json_kernel_times(const struct stream_run *r, int k)
{
	double bytes = kernel_bytes(k, r->n);
	json_num("best_mbs", 1.0E-06 * bytes / r->min_t[k]);
	json_num("median_mbs", 1.0E-06 * bytes / r->med_t[k]);
	json_num("min_s", r->min_t[k]);
	json_num("max_s", r->max_t[k]);
	json_num("median_s", r->med_t[k]);
	json_num("spread", r->max_t[k] / r->min_t[k]);
}

/* --best's figures: each kernel's fastest method, measured as STREAM
 * measures, and its ratio to the standard run's best rate. */
static void json_best(const struct stream_run *r, unsigned kernels)
{
	const struct stream_run *b = r->best;
	int k;
	json_open("best", '{');
	json_str("note", "not a standard STREAM result: each kernel's fastest "
		 "method, chosen by calibration");
	json_num("calibration_s", b->cal_s);
	json_int("calibration_passes", (long long)b->ncal);
	json_bool("validated", b->valid);
	json_open("results", '[');
	for (k = 0; k < NKERNELS; k++) {
		if (!(kernels & (1u << k)))
			continue;
		json_open(NULL, '{');
		json_str("kernel", kernel_defs[k].display);
		json_kernel_times(b, k);
		json_num("ratio_to_standard", r->min_t[k] / b->min_t[k]);
		json_kernel_method(b, k);
		json_close('}');
	}
	json_close(']');
	json_close('}');
}

/* --best's table, after STREAM's lines and under other words: the
 * best rate of each kernel's fastest method, its median and spread, and
 * its ratio to the standard table's best rate. */
static void print_best_text(const struct stream_run *r, unsigned kernels)
{
	const struct stream_run *b = r->best;
	char m[32], m2[32];
	int k;
	printf("Best achievable, NOT a standard STREAM result (--best): each "
	       "kernel's\nfastest method after %llu calibration passes "
	       "(%.3f s), then %llu repetitions:\n", b->ncal, b->cal_s,
	       b->ntimes);
	printf("  kernel    best MB/s  median MB/s  spread  method          "
	       "x standard\n");
	for (k = 0; k < NKERNELS; k++)
		if (kernels & (1u << k)) {
			double bytes = kernel_bytes(k, b->n);
			printf("  %-6s %12.1f %12.1f  %6.3f  %-14s  %8.3f\n",
			       kernel_defs[k].name, 1.0E-06 * bytes / b->min_t[k],
			       1.0E-06 * bytes / b->med_t[k],
			       b->max_t[k] / b->min_t[k],
			       method_name(b->how[k], m, sizeof(m)),
			       r->min_t[k] / b->min_t[k]);
		}
	for (k = 0; k < NKERNELS; k++)
		if ((kernels & (1u << k)) && b->how[k].kind == SK_LOAD)
			printf("  %s by %s: bare loads, their values unused, no "
			       "sum to check;\n  %s summed the arrays after "
			       "them, and its total is the one validated.\n",
			       kernel_defs[k].name,
			       method_name(b->how[k], m, sizeof(m)),
			       method_name(b->check_how[k], m2, sizeof(m2)));
	printf("Best-method results %s.\n", b->valid ? "validated" :
	       "FAILED validation: these figures are not results");
	printf(HLINE);
}

/* The run object of a bandwidth document (stream, all, mix): sizes,
 * stores (as stores words them), instruction set, threads and where
 * they ran, the arrays and their pages. */
/* "layout": each (destination, source) pair of the kernels in mask,
 * with its distance in the page and whether it is in the aliasing
 * window, for arrays at addr[]. */
static void json_layout(unsigned mask, const uintptr_t *addr)
{
	int k, j, n, src[3];
	json_open("layout", '{');
	json_int("page_bytes", LAYOUT_PAGE);
	json_int("aliasing_window_bytes", LAYOUT_WINDOW - 1);
	json_open("distances", '[');
	for (k = 0; k < NKERNELS; k++) {
		if (!(mask & (1u << k)))
			continue;
		n = layout_sources(k, src);
		for (j = 0; j < n; j++) {
			char d[2] = {kernel_defs[k].dst[0], '\0'};
			char sname[2] = {array_names[src[j]], '\0'};
			unsigned b = layout_distance(addr[d[0] - 'a'], addr[src[j]]);
			json_open(NULL, '{');
			json_str("kernel", kernel_defs[k].name);
			json_str("dst", d);
			json_str("src", sname);
			json_int("bytes", (long long)b);
			json_bool("aliasing", layout_aliases(b));
			json_close('}');
		}
	}
	json_close(']');
	json_close('}');
}

static void json_stream_run(const struct options *o, const struct stream_run *r,
			    const char *stores)
{
	char bind[400];
	int i;
	enum bind_rule rule = describe_binding(o, bind, sizeof(bind));
	json_open("run", '{');
	json_int("array_size", (long long)r->n);
	json_bool("size_auto", o->size_auto);
	/* the size bench chose before the memory limit capped it */
	json_int_or_null("array_size_wanted", r->plan.wanted != 0,
			 (long long)r->plan.wanted);
	json_int("ntimes", (long long)r->ntimes);
	json_int("offset", (long long)o->offset);
	json_str("alloc", alloc_names[r->plan.mode]);
	json_int_or_null("page_size_bytes", r->plan.page_size != 0,
			 (long long)r->plan.page_size);
	json_str("stores", stores);
	json_str("stores_fallback",
		 o->nt_stores != STORES_PLAIN ? nt_fallback(r->isa) : NULL);
	json_int("calibration_passes", (long long)r->ncal);
	json_num("calibration_s", r->cal_s);
	json_str("isa", isa_names[r->isa]);
	if (isa_vector_bits(r->isa))
		json_int("isa_vector_bits", isa_vector_bits(r->isa));
	else
		json_str("isa_vector_bits", NULL);
	json_bool("isa_dispatch", HAVE_ISA_DISPATCH);
	json_str("isa_rule", isa_rule_names[isa_rule(o)]);
	json_open("isa_available", '[');
	for (i = 0; i < NISA; i++)
		if (isa_supported(i))
			json_str(NULL, isa_names[i]);
	json_close(']');
	json_int("stagger_bytes", (long long)r->plan.stagger);
	json_int("bytes_per_element", (long long)sizeof(elem_t));
	json_int("threads_requested", threads_requested());
	json_int("threads_counted", threads_counted);
	json_str("threads_quota", threads_quota_text[0] ? threads_quota_text
							: NULL);
	json_bool("threads_over_quota", threads_over_quota);
	json_str("binding", bind);
	json_str("binding_rule", bind_rule_names[rule]);
	json_int("span_bytes", (long long)(r->span_bytes ? r->span_bytes : CACHE_LINE));
	json_open("threads", '[');
	for (i = 0; i < threads_counted && i < MAX_THREADS; i++) {
		const struct shape_cpu *c = shape_cpu(machine_shape(),
						      thread_cpu_start[i]);
		json_open(NULL, '{');
		json_int("thread", i);
		json_int("cpu", thread_cpu_start[i]);
		json_int("cpu_end", thread_cpu_end[i]);
		json_int_or_null("package", c && machine_shape()->topology_known,
				 c ? c->package : 0);
		json_int_or_null("core", c && machine_shape()->topology_known,
				 c ? c->core : 0);
		json_int_or_null("node", c && c->node >= 0 && machine_shape()->nodes_known,
				 c ? c->node : 0);
		json_close('}');
	}
	json_close(']');
	{
		uintptr_t addr[3];
		for (i = 0; i < 3; i++)
			addr[i] = (uintptr_t)r->reg[i].data;
		json_layout(o->kernels, addr);
	}
	json_open("arrays", '[');
	for (i = 0; i < 3; i++) {
		char name[2] = {array_names[i], '\0'};
		json_open(NULL, '{');
		json_str("name", name);
		json_int("bytes", (long long)r->reg[i].bytes);
		json_int("address_mod_4k", (long long)((uintptr_t)r->reg[i].data % 4096));
		json_address("address", r->reg[i].data);
		if (r->pages[i].known) {
			json_int("page_kib", (long long)r->pages[i].page_kib);
			json_int("kernel_page_kib",
				 (long long)r->pages[i].kernel_page_kib);
			json_num("huge_pct", r->pages[i].huge_pct);
		} else {
			json_str("page_kib", NULL);
			json_str("kernel_page_kib", NULL);
			json_str("huge_pct", NULL);
		}
		{
			char names[3];
			int n = stream_shared_mapping(r, i, names);
			json_mapping(&r->pages[i], names, n);
		}
		if (r->nodes_known) {
			int n;
			json_open("node_pages", '{');
			for (n = 0; n < PHYS_MAX_NODES; n++) {
				char key[16];
				if (!r->node_pages[i][n])
					continue;
				snprintf(key, sizeof(key), "%d", n);
				json_int(key, (long long)r->node_pages[i][n]);
			}
			json_close('}');
			json_int("node_pages_unknown",
				 (long long)r->node_pages[i][NODE_UNKNOWN]);
		} else {
			json_str("node_pages", NULL);
			json_str("node_pages_unknown", NULL);
		}
		if (o->placement)
			phys_json("physical", &r->phys[i], r->pages[i].huge_pct);
		else
			json_str("physical", NULL);
		json_close('}');
	}
	json_close(']');
	json_num("timer_granularity_s", r->granularity);
	json_close('}');
}

/* One run's validation as an object under key: STREAM's figures per
 * array, and whether each SUM kernel's totals agreed. */
static void json_stream_validation(const char *key, const struct stream_run *r,
				   unsigned kernels)
{
	int i;
	json_open(key, '{');
	json_bool("ok", r->valid);
	json_num("epsilon", r->epsilon);
	json_open("arrays", '[');
	for (i = 0; i < 3; i++) {
		char name[2] = {array_names[i], '\0'};
		json_open(NULL, '{');
		json_str("name", name);
		json_num("expected", r->expected[i]);
		json_num("avg_abs_err", r->avg_abs[i]);
		json_num("avg_rel_err", r->avg_rel[i]);
		json_int("errors", r->nerr[i]);
		json_close('}');
	}
	json_close(']');
	for (i = 0; i < NKERNELS; i++)
		if ((kernels & (1u << i)) && IS_SUM(i)) {
			char name[32];
			snprintf(name, sizeof(name), "%s_ok", kernel_defs[i].name);
			json_bool(name, r->sum_ok[i]);
		}
	json_close('}');
}

/* The bandwidth keys of the JSON document (also those of `bench all`). */
static void json_stream_body(const struct options *o, const struct stream_run *r)
{
	unsigned kernels = o->kernels;
	int i, k;
	json_stream_run(o, r, stores_used(o, r));
	json_open("results", '[');
	for (k = 0; k < NKERNELS; k++) {
		double bytes = kernel_bytes(k, r->n);
		if (!(kernels & (1u << k)))
			continue;
		json_open(NULL, '{');
		json_str("kernel", kernel_defs[k].display);
		json_num("bytes", bytes);
		json_num("flops", (double)kernel_defs[k].flops * (double)r->n);
		json_num("avg_s", r->avg_t[k]);
		json_kernel_times(r, k);
		json_kernel_method(r, k);
		json_close('}');
	}
	json_close(']');
	json_stream_validation("validation", r, kernels);
	json_open("run_rules", '{');
	json_str("verdict", r->verdict);
	json_open("reasons", '[');
	for (i = 0; i < r->nreasons; i++)
		json_str(NULL, r->reason[i]);
	json_close(']');
	json_close('}');
	if (r->best)
		json_best(r, kernels);
}

/* --csv: one header line, then one row per kernel, from the same result
 * the text and JSON render; with --best, then one row per kernel of the
 * best-method run.  `table` says which run a row is (standard, best),
 * `method` how its kernel ran (as the JSON's method).  Numbers carry the
 * JSON document's digits; the units are in the header.  No field holds
 * a comma except by CSV quoting, and free text holds none at all.
 * Warnings go to stderr, one a line. */
static const char *const csv_header =
	"kernel,best_rate_MB/s,avg_time_s,min_time_s,max_time_s,"
	"median_rate_MB/s,median_time_s,spread_max/min_time,bytes_per_pass,"
	"array_elements,ntimes,threads,alloc,stores,validation,run_rules,"
	"run_rule_reasons,table,method";

static void print_stream_csv_rows(const struct options *o,
				  const struct stream_run *r, const char *table)
{
	char buf[8 * 160 + 16], num[40], m[32];
	size_t used = 0;
	int i, k;
	buf[0] = '\0';
	for (i = 0; i < r->nreasons && used < sizeof(buf); i++)
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s",
					 i ? "; " : "", r->reason[i]);
	for (k = 0; k < NKERNELS; k++) {
		double bytes = kernel_bytes(k, r->n);
		if (!(o->kernels & (1u << k)))
			continue;
		csv_field(kernel_defs[k].display, 0);
		csv_num(1.0E-06 * bytes / r->min_t[k]);
		csv_num(r->avg_t[k]);
		csv_num(r->min_t[k]);
		csv_num(r->max_t[k]);
		csv_num(1.0E-06 * bytes / r->med_t[k]);
		csv_num(r->med_t[k]);
		csv_num(r->max_t[k] / r->min_t[k]);
		csv_num(bytes);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)r->n);
		csv_field(num, 0);
		snprintf(num, sizeof(num), "%llu", r->ntimes);
		csv_field(num, 0);
		snprintf(num, sizeof(num), "%d", threads_counted);
		csv_field(num, 0);
		csv_field(alloc_names[r->plan.mode], 0);
		csv_field(IS_SUM(k) ? "none" : r->store_nt[k] ? "nt" : "plain", 0);
		csv_field(r->valid ? "ok" : "failed", 0);
		csv_field(r->verdict, 0);
		csv_field(buf, 0);
		csv_field(table, 0);
		csv_field(method_name(r->how[k], m, sizeof(m)), 1);
	}
}

static void print_stream_csv(const struct options *o,
			     const struct stream_run *r)
{
	int i;
	for (i = 0; i < nwarnings; i++)
		fprintf(stderr, "%s: warning: %s\n", prog, warnings[i]);
	printf("%s\n", csv_header);
	print_stream_csv_rows(o, r, "standard");
	if (r->best)
		print_stream_csv_rows(o, r->best, "best");
}

/* Everything STREAM prints before it measures: the banner, threads,
 * clock, then membench's provenance and placement, and the warnings so
 * far.  Text only: the JSON document is written whole at the end. */
static void stream_report_head(const struct options *o,
			       const struct system_info *si,
			       const struct stream_run *r)
{
	if (!out.text)
		return;
	print_stream_banner(o, r);
#ifdef _OPENMP
	printf(HLINE);
	printf("Number of Threads requested = %i\n", threads_requested());
	printf("Number of Threads counted = %i\n", threads_counted);
#endif
	printf(HLINE);
	print_clock_text(r, "clock");
	printf(HLINE);
	print_build_text();
	print_system_text(si);
	print_placement_text(o, r);
	printf(HLINE);
	if (text_warnings("WARNING: "))
		printf(HLINE);
}

/* The results.  nested: `bench all` owns the JSON document around them. */
static void stream_report_tail(const struct options *o,
			       const struct system_info *si,
			       const struct stream_run *r, int nested)
{
	if (out.json) {
		if (!nested)
			json_begin("stream", si);
		json_stream_body(o, r);
		if (!nested)
			json_end();
	}
	if (out.text) {
		text_warnings("WARNING: ");
		print_results_text(r, o->kernels);
		print_validation_text(r, o->kernels);
		printf(HLINE);
		print_medians_text(r, o->kernels);
		print_run_rules_text(r);
		if (r->best)
			print_best_text(r, o->kernels);
	}
	if (out.csv)
		print_stream_csv(o, r);
}

/* bench mix's report: one table of the mixes (rows of the kernels'
 * table, in mix_rows[]), each with its plain-store figure and its
 * streaming one, both runs validated on their own; text, JSON and CSV
 * from the same two runs.  No line holds STREAM's table words (Copy,
 * Scale, Add, Triad, Function, Solution Validates), so a STREAM parser
 * run on it by mistake finds nothing to misread. */
static const struct mix_row {
	int kernel;
	const char *name; /* as MLC names its rows */
} mix_rows[] = {
	{K_READ, "all reads"},
	{K_NSTREAM, "3:1"},
	{K_AXPY, "2:1"},
	{K_UPDATE, "1:1"},
	{K_TRIAD, "triad-like"},
};
#define NMIX (sizeof(mix_rows) / sizeof(mix_rows[0]))
#define MIX_KERNELS ((1u << K_READ) | (1u << K_NSTREAM) | (1u << K_AXPY) | \
		     (1u << K_UPDATE) | (1u << K_TRIAD))

/* The two runs of bench mix: plain stores, then streaming stores (NULL
 * where this target has none, or the mix stores nothing). */
struct mix_result {
	const struct options *op, *on;
	const struct stream_run *plain, *nt;
};

static int mix_has(const struct mix_result *m, int k, int nt)
{
	return nt ? m->nt && (m->on->kernels & (1u << k))
		  : (m->op->kernels & (1u << k)) != 0;
}

/* One run's validation in a sentence, naming what failed. */
static void print_mix_validation(const char *what, const struct stream_run *r,
				 unsigned kernels)
{
	int i, bad = 0;
	printf("Validation, %s: ", what);
	if (r->valid) {
		printf("every element of a, b and c within %.0e of the replay on "
		       "scalars%s\n", r->epsilon, kernels & (1u << K_READ) ?
		       ", read's sums within 1e-9" : "");
		return;
	}
	printf("FAILED, these figures are not results:");
	for (i = 0; i < 3; i++)
		if (r->nerr[i] || exceeds(r->avg_rel[i], r->epsilon) ||
		    !finite_d(r->expected[i]))
			printf("%s array %c[] %lld errors (expected %e, average "
			       "relative error %e)", bad++ ? ";" : "", array_names[i],
			       r->nerr[i], r->expected[i], r->avg_rel[i]);
	for (i = 0; i < NKERNELS; i++)
		if ((kernels & (1u << i)) && IS_SUM(i) && !r->sum_ok[i])
			printf("%s %s's sums disagree with the replay",
			       bad++ ? ";" : "", kernel_defs[i].name);
	printf("\n");
}

static void print_mix_text(const struct mix_result *m)
{
	const struct stream_run *p = m->plain, *n = m->nt;
	char f[128], rate[32], meth[32];
	unsigned loads;
	size_t i;
	printf("%-11s %-8s %-17s %-4s %12s %15s\n", "mix", "kernel", "formula",
	       "R:W", "plain MB/s", "streaming MB/s");
	for (i = 0; i < NMIX; i++) {
		int k = mix_rows[i].kernel;
		kernel_formula(k, f, sizeof(f), &loads);
		if (mix_has(m, k, 1))
			snprintf(rate, sizeof(rate), "%15.1f",
				 1.0E-06 * kernel_bytes(k, n->n) / n->min_t[k]);
		else
			snprintf(rate, sizeof(rate), "%15s", "-");
		printf("%-11s %-8s %-17s %d:%d  %12.1f %s\n", mix_rows[i].name,
		       kernel_defs[k].name, f, kernel_reads(k), kernel_writes(k),
		       1.0E-06 * kernel_bytes(k, p->n) / p->min_t[k], rate);
	}
	printf(HLINE);
	printf("Rates: bytes as STREAM counts them (each element a kernel reads "
	       "or writes, once per index; no write-allocate read) over the best "
	       "of repetitions 2..%llu, MB = 10^6 bytes\n", p->ntimes);
	printf("Methods: plain %s", method_name(p->how[K_TRIAD], meth,
						sizeof(meth)));
	if (n)
		printf(", streaming %s", method_name(n->how[K_TRIAD], meth,
						     sizeof(meth)));
	else
		printf(", no streaming stores on this target");
	printf("\n");
	print_mix_validation("plain stores", p, m->op->kernels);
	if (n)
		print_mix_validation("streaming stores", n, m->on->kernels);
	printf(HLINE);
	printf("Medians over repetitions 2..%llu (MB/s) and spread (max/min "
	       "time):\n", p->ntimes);
	for (i = 0; i < NMIX; i++) {
		int k = mix_rows[i].kernel;
		printf("  median %-10s plain %12.1f  spread %.3f", mix_rows[i].name,
		       1.0E-06 * kernel_bytes(k, p->n) / p->med_t[k],
		       p->max_t[k] / p->min_t[k]);
		if (mix_has(m, k, 1))
			printf("  streaming %12.1f  spread %.3f",
			       1.0E-06 * kernel_bytes(k, n->n) / n->med_t[k],
			       n->max_t[k] / n->min_t[k]);
		printf("\n");
	}
	printf(HLINE);
}

/* One column's figures of row k in JSON: rates, times, method. */
static void json_mix_cell(const char *key, const struct stream_run *r, int k)
{
	json_open(key, '{');
	json_kernel_times(r, k);
	json_num("avg_s", r->avg_t[k]);
	json_kernel_method(r, k);
	json_bool("validated", r->valid);
	json_close('}');
}

static void json_mix(const struct mix_result *m)
{
	char f[128];
	unsigned loads;
	size_t i;
	json_open("mix", '{');
	json_str("bytes", "as STREAM counts them: each element a kernel reads or "
		 "writes, once per index; no write-allocate read");
	json_open("rows", '[');
	for (i = 0; i < NMIX; i++) {
		int k = mix_rows[i].kernel;
		kernel_formula(k, f, sizeof(f), &loads);
		json_open(NULL, '{');
		json_str("mix", mix_rows[i].name);
		json_str("kernel", kernel_defs[k].display);
		json_str("formula", f);
		json_int("reads", kernel_reads(k));
		json_int("writes", kernel_writes(k));
		json_num("bytes", kernel_bytes(k, m->plain->n));
		json_mix_cell("plain", m->plain, k);
		if (mix_has(m, k, 1))
			json_mix_cell("nt", m->nt, k);
		else
			json_str("nt", NULL);
		json_close('}');
	}
	json_close(']');
	json_close('}');
	json_open("validation", '{');
	json_bool("ok", m->plain->valid && (!m->nt || m->nt->valid));
	json_stream_validation("plain", m->plain, m->op->kernels);
	if (m->nt)
		json_stream_validation("nt", m->nt, m->on->kernels);
	else
		json_str("nt", NULL);
	json_close('}');
}

static const char *const mix_csv_header =
	"mix,kernel,formula,reads,writes,stores,best_rate_MB/s,"
	"median_rate_MB/s,min_time_s,max_time_s,median_time_s,"
	"spread_max/min_time,bytes_per_pass,array_elements,ntimes,threads,"
	"alloc,method,validation";

static void print_mix_csv(const struct mix_result *m)
{
	char f[128], num[40], meth[32];
	unsigned loads;
	size_t i;
	int nt;
	for (i = 0; i < (size_t)nwarnings; i++)
		fprintf(stderr, "%s: warning: %s\n", prog, warnings[i]);
	printf("%s\n", mix_csv_header);
	for (i = 0; i < NMIX; i++)
		for (nt = 0; nt < 2; nt++) {
			int k = mix_rows[i].kernel;
			const struct stream_run *r = nt ? m->nt : m->plain;
			double bytes;
			if (!mix_has(m, k, nt))
				continue;
			bytes = kernel_bytes(k, r->n);
			kernel_formula(k, f, sizeof(f), &loads);
			csv_field(mix_rows[i].name, 0);
			csv_field(kernel_defs[k].display, 0);
			csv_field(f, 0);
			snprintf(num, sizeof(num), "%d", kernel_reads(k));
			csv_field(num, 0);
			snprintf(num, sizeof(num), "%d", kernel_writes(k));
			csv_field(num, 0);
			csv_field(IS_SUM(k) ? "none" : nt ? "nt" : "plain", 0);
			csv_num(1.0E-06 * bytes / r->min_t[k]);
			csv_num(1.0E-06 * bytes / r->med_t[k]);
			csv_num(r->min_t[k]);
			csv_num(r->max_t[k]);
			csv_num(r->med_t[k]);
			csv_num(r->max_t[k] / r->min_t[k]);
			csv_num(bytes);
			snprintf(num, sizeof(num), "%llu", (unsigned long long)r->n);
			csv_field(num, 0);
			snprintf(num, sizeof(num), "%llu", r->ntimes);
			csv_field(num, 0);
			snprintf(num, sizeof(num), "%d", threads_counted);
			csv_field(num, 0);
			csv_field(alloc_names[r->plan.mode], 0);
			csv_field(method_name(r->how[k], meth, sizeof(meth)), 0);
			csv_field(r->valid ? "ok" : "failed", 1);
		}
}

/* What bench mix prints before it measures: what it runs, the build,
 * the machine, the placement and the warnings so far. */
static void mix_report_head(const struct options *o,
			    const struct system_info *si,
			    const struct stream_run *r, int has_nt)
{
	double mib = (double)r->n * sizeof(elem_t) / 1048576.0;
	if (!out.text)
		return;
	printf(HLINE);
	printf("membench %s: bandwidth by read:write mix (bench mix); not a "
	       "STREAM result\n", BENCH_VERSION);
	printf(HLINE);
	printf("Array size = %llu (elements), Offset = %llu (elements), %d "
	       "bytes per element, %.1f MiB per array, 3 arrays\n",
	       (unsigned long long)r->n, o->offset, (int)sizeof(elem_t), mib);
	printf("Each mix runs %llu times with plain stores, then %s; the best "
	       "of repetitions 2..%llu is reported\n", r->ntimes,
	       has_nt ? "as many with streaming stores, from freshly "
		        "initialised arrays"
		      : "no streaming run (this target has no streaming store)",
	       r->ntimes);
	printf("Number of Threads counted = %i\n", threads_counted);
	printf(HLINE);
	print_build_text();
	print_system_text(si);
	print_placement_text(o, r);
	printf(HLINE);
	if (text_warnings("WARNING: "))
		printf(HLINE);
}

static void mix_report_tail(const struct mix_result *m,
			    const struct system_info *si)
{
	if (out.json) {
		json_begin("mix", si);
		json_stream_run(m->op, m->plain, m->nt ? "plain,nt" : "plain");
		json_mix(m);
		json_end();
	}
	if (out.text) {
		text_warnings("WARNING: ");
		print_mix_text(m);
	}
	if (out.csv)
		print_mix_csv(m);
}

/* ======================================================================
 * 13 The bandwidth mode: plan, allocate, prepare, measure, report.
 * ====================================================================== */

/* Passes --stores auto spends choosing among the methods. */
static unsigned long long calibration_passes(const struct options *o)
{
	return o->nt_stores == STORES_AUTO ? BENCH_CAL_PASSES : 0;
}

/* Refuse what the plan does not cover: repetitions whose values would
 * overflow the element type. */
static void stream_check(const struct options *o)
{
	/* --best's run calibrates too, from freshly initialised arrays */
	unsigned long long cal =
		o->best ? BENCH_CAL_PASSES : calibration_passes(o);
	unsigned long long most = replay_limit(o->kernels, cal);
	int isa = run_isa(o);
	if (o->ntimes > most)
		die("--ntimes: %llu repetitions%s make %s values overflow "
		    "(they grow about 15-fold per pass); use at most %llu",
		    o->ntimes, cal ? " plus calibration" : "",
		    XSTR(STREAM_TYPE), most);
	if (o->nt_stores == STORES_NT && !HAVE_NT && isa == ISA_GENERIC)
		warn("streaming stores were requested but are not available on "
		     "this target; plain stores are used");
	else if (o->nt_stores != STORES_PLAIN && nt_fallback(isa))
		warn("--stores %s: streaming stores fall back to %s",
		     store_names[o->nt_stores], nt_fallback(isa));
}

/* The one line that says where a layout the user chose (--stagger,
 * --offset, --alloc static) puts a destination in the aliasing window
 * of a source, as the arrays at addr[] really sit; the run still runs
 * it.  Said once, however many times the arrays are allocated. */
static void warn_aliasing(unsigned kernels, const uintptr_t *addr)
{
	static int said;
	char pairs[320];
	if (said || !layout_text(pairs, sizeof(pairs), kernels, addr, 1, 0))
		return;
	said = 1;
	warn("aliasing: destination 1-%d bytes ahead of a source in the 4 KiB "
	     "page, so loads may wait on stores (4K aliasing): %s (dst-src "
	     "bytes); every array at one page offset avoids it (the default "
	     "layout: --stagger a multiple of 4096, --offset a multiple of %d, "
	     "not --alloc static)", LAYOUT_WINDOW - 1, pairs,
	     (int)(LAYOUT_PAGE / sizeof(elem_t)));
}

static void stream_allocate(const struct options *o, struct stream_run *r)
{
	uintptr_t addr[3];
	int i;
	alloc_regions(&r->plan, r->reg);
	for (i = 0; i < 3; i++)
		addr[i] = (uintptr_t)r->reg[i].data;
	warn_aliasing(o->kernels, addr);
	r->n = (size_t)r->plan.elems;
	r->ntimes = o->ntimes;
	r->ar.a = r->reg[0].data;
	r->ar.b = r->reg[1].data;
	r->ar.c = r->reg[2].data;
	r->ar.n = r->n;
	r->times = calloc(NKERNELS * r->ntimes, sizeof(double));
	r->sums = calloc(NKERNELS * r->ntimes, sizeof(double));
	r->expect = calloc(NKERNELS * r->ntimes, sizeof(double));
	if (!r->times || !r->sums || !r->expect)
		die("out of memory for %llu repetitions", r->ntimes);
}

static void stream_release(struct stream_run *r)
{
	int i;
	for (i = 0; i < 3; i++)
		region_free(&r->reg[i]);
	free(r->times);
	free(r->sums);
	free(r->expect);
	if (r->best) { /* it shares the regions */
		free(r->best->times);
		free(r->best->sums);
		free(r->best->expect);
		free(r->best);
	}
}

/* --stores auto's candidates for kernel k at levels up to isa: plain
 * stores in this build's own code and at each dispatched level above
 * SSE2 (x86-64's baseline, which the own code already is), libc's
 * memcpy for Copy, and streaming stores at every dispatched level (or
 * this build's own, where it cannot dispatch).  Read stores nothing: its
 * sums, and where bench dispatches for x86 its bare loads at each level
 * (SK_LOAD, which sum nothing). */
static int candidate_methods(int k, int isa, struct method *m)
{
	int n = 0, l;
	m[n].kind = SK_PLAIN;
	m[n++].isa = ISA_GENERIC;
	for (l = ISA_AVX2; l <= isa; l++)
		if (isa_supported(l)) {
			m[n].kind = SK_PLAIN;
			m[n++].isa = l;
		}
#if HAVE_X86_DISPATCH
	/* Read's bare loads at each dispatched width: no sum (section 10) */
	for (l = ISA_SSE2; k == K_READ && l <= isa; l++)
		if (isa_supported(l)) {
			m[n].kind = SK_LOAD;
			m[n++].isa = l;
		}
#endif
	if (IS_SUM(k))
		return n;
	if (k == K_COPY) {
		m[n].kind = SK_MEMCPY;
		m[n++].isa = ISA_GENERIC;
	}
	if ((isa == ISA_GENERIC || !HAVE_X86_DISPATCH) && HAVE_NT) {
		m[n].kind = SK_NT;
		m[n++].isa = ISA_GENERIC;
	}
	for (l = ISA_SSE2; l <= isa; l++)
		if (isa_supported(l)) {
			m[n].kind = SK_NT;
			m[n++].isa = l;
		}
	return n;
}

/* Of nc candidates timed cal[], *fastest is the quickest, and *sums the
 * quickest that sums (bare loads, SK_LOAD, do not; candidate 0 always
 * does): the method a kernel runs with, and the one that checks Read's
 * total when bare loads win.  The bandwidth run and the hierarchy's
 * cells both choose so. */
static void fastest_methods(const double *cal, const struct method *cand,
			    int nc, int *fastest, int *sums)
{
	int i;
	*fastest = *sums = 0;
	for (i = 1; i < nc; i++) {
		if (cal[i] < cal[*fastest])
			*fastest = i;
		if (cal[i] < cal[*sums] && cand[i].kind != SK_LOAD)
			*sums = i;
	}
}

/* The method each kernel runs with.  --stores plain or nt: those stores
 * at the chosen level.  --stores auto: time every candidate, in ABBA
 * order over the passes, and keep each kernel's fastest.  Within a pass
 * each kernel runs all its candidates before the next kernel starts;
 * every kernel rewrites its array from the others, so the pass leaves
 * the values of one pass of the sequence, and validation replays ncal
 * passes.  The passes are not reported as results. */
static void choose_stores(const struct options *o, struct stream_run *r,
			  elem_t q)
{
	unsigned long long pass;
	double t0;
	int k, i;
	r->isa = run_isa(o);
	for (k = 0; k < NKERNELS; k++) {
		r->how[k].isa = r->isa;
		r->how[k].kind = o->nt_stores == STORES_NT && !IS_SUM(k) &&
				 (HAVE_NT || r->isa != ISA_GENERIC) ? SK_NT : SK_PLAIN;
		r->ncand[k] = 0;
	}
	r->ncal = calibration_passes(o);
	t0 = now();
	for (k = 0; k < NKERNELS && r->ncal; k++) {
		r->ncand[k] = candidate_methods(k, r->isa, r->cand[k]);
		for (i = 0; i < r->ncand[k]; i++)
			r->cal_min[k][i] = DBL_MAX;
	}
	for (pass = 0; pass < r->ncal; pass++)
		for (k = 0; k < NKERNELS; k++) {
			int n = r->ncand[k];
			if (!(o->kernels & (1u << k)))
				continue;
			for (i = 0; i < n; i++) {
				int c = pass % 2 ? n - 1 - i : i;
				double sum, t;
				t = run_kernel((enum kernel_id)k, &r->ar, q,
					       r->cand[k][c], &sum);
				if (t < r->cal_min[k][c])
					r->cal_min[k][c] = t;
			}
		}
	for (k = 0; k < NKERNELS && r->ncal; k++) {
		int w, s;
		fastest_methods(r->cal_min[k], r->cand[k], r->ncand[k], &w, &s);
		r->how[k] = r->cand[k][w];
		r->check_how[k] = r->cand[k][s];
	}
	r->cal_s = r->ncal ? now() - t0 : 0.0;
	for (k = 0; k < NKERNELS; k++)
		r->store_nt[k] = r->how[k].kind == SK_NT;
}

/* Kernel stats over repetitions 1..ntimes-1 (the first is a warm-up). */
static void stream_stats(struct stream_run *r, unsigned kernels)
{
	int k;
	unsigned long long i, m = r->ntimes - 1;
	for (k = 0; k < NKERNELS; k++) {
		double sum = 0.0, mn = DBL_MAX, mx = 0.0;
		if (!(kernels & (1u << k)))
			continue;
		for (i = 1; i < r->ntimes; i++) {
			double t = TIME_AT(r, k, i);
			sum += t;
			mn = t < mn ? t : mn;
			mx = t > mx ? t : mx;
		}
		r->avg_t[k] = sum / (double)m;
		r->min_t[k] = mn;
		r->max_t[k] = mx;
		r->med_t[k] = median(&TIME_AT(r, k, 1), (size_t)m);
	}
}

/* The grid the threads' spans are split on (section 7), set before
 * first touch: page boundaries on a machine with more than one node,
 * where the arrays will get pages larger than the base page and have at
 * least one page a thread; cache lines otherwise (where first touch has
 * no node to choose, the spans stay as they always were).  phase[i]
 * gets the element of array i's first page boundary. */
static void stream_spans(struct stream_run *r, size_t *phase)
{
	const struct machine_shape *m = machine_shape();
	size_t page = expected_page_bytes(&r->plan), pages;
	int i;
	span_grid(0, 0);
	r->span_bytes = 0;
	for (i = 0; i < 3; i++) {
		size_t off = (size_t)((uintptr_t)r->reg[i].data % page);
		phase[i] = off ? (page - off) / sizeof(elem_t) : 0;
	}
	if (m->nnodes < 2 || page <= (size_t)os_page_bytes() ||
	    page % sizeof(elem_t))
		return;
	pages = ((size_t)((uintptr_t)r->reg[0].data % page) +
		 r->n * sizeof(elem_t) + page - 1) / page;
	if (pages < (size_t)threads_requested())
		return;
	span_grid(page / sizeof(elem_t), phase[0]);
	r->span_bytes = page;
}

/* Before timing: first touch (placing, and pinning as bench pins, or
 * thread t to cpus[t % ncpus] when the caller names CPUs), the page
 * report, the clock's granularity and STREAM's untimed pass that doubles
 * a[], then --stores auto's calibration.  bench nodes prepares each
 * row's run here. */
static void stream_prepare_on(const struct options *o, struct stream_run *r,
			      const int *cpus, int ncpus)
{
	elem_t q = 3.0;
	double t;
	size_t phase[3];
	int i;
	stream_spans(r, phase);
	first_touch(&r->ar, bench_pins(o), cpus, ncpus, phase);
	for (i = 0; i < 3; i++) {
		char what[16];
		page_report(r->reg[i].data, r->reg[i].bytes, &r->pages[i]);
		snprintf(what, sizeof(what), "array %c", array_names[i]);
		page_size_verify(&r->plan, &r->pages[i], what);
	}
	for (i = 0; o->placement && i < 3; i++)
		phys_report(r->reg[i].data, r->reg[i].bytes, &r->phys[i]);
	r->granularity = timer_granularity();
	/* STREAM counts ticks of whole microseconds; the 20-tick rule, the
	 * text and the warning all use that one tick */
	r->tick = (r->granularity * 1e6 >= 1 ? (double)(int)(r->granularity * 1e6)
		   : 1.0) * 1e-6;
	t = now();
#ifdef _OPENMP
#pragma omp parallel
#endif
	{
		size_t lo, hi, j;
		thread_span(r->n, &lo, &hi);
		for (j = lo; j < hi; j++)
			r->ar.a[j] = 2.0E0 * r->ar.a[j];
	}
	r->pass_us = 1.0E6 * (now() - t);
	choose_stores(o, r, q);
}

/* ... with the threads where bench pins them (plan_binding), if it does. */
static void stream_prepare(const struct options *o, struct stream_run *r)
{
	stream_prepare_on(o, r, NULL, 0);
}

#if BENCH_CORRUPT_TEST
/* The corrupt-test builds' damage (BENCH_CORRUPT_TEST, section 1), done
 * after the timed repetitions. */
static void corrupt_for_test(struct stream_run *r, unsigned kernels)
{
	size_t j = r->n / 2;
	if (BENCH_CORRUPT_TEST == 1)
		r->ar.a[j] = r->ar.a[j] * 2 + 1;
	else if (BENCH_CORRUPT_TEST == 2)
		r->ar.a[j] = (elem_t)((double)r->ar.a[j] * (1.0 + 1e-6));
	else if (BENCH_CORRUPT_TEST == 3 && r->how[K_READ].kind == SK_LOAD)
		r->check_sum[K_READ] *= 1.0 + 1e-6; /* the total checked */
	else if (BENCH_CORRUPT_TEST == 3)
		SUM_AT(r, K_READ, r->ntimes - 1) *= 1.0 + 1e-6;
	else if (BENCH_CORRUPT_TEST == 4)
		SUM_AT(r, K_DOT, r->ntimes - 1) *= 1.0 + 1e-6;
	else if (BENCH_CORRUPT_TEST == 5 && (kernels & (1u << K_NSTREAM)))
		/* as if Nstream's last pass had missed element j */
		r->ar.a[j] = r->ar.a[j] - (r->ar.b[j] + (elem_t)3.0 * r->ar.c[j]);
}
#endif

/* One timed repetition's time and, for a SUM kernel, its sum, as the
 * timed loop (stream_repetitions) records them in plain and cluster runs.  A warm-up test build
 * (BENCH_WARMUP_TEST=S) records repetition 0 as S seconds, or 1/S for
 * every other kernel, so a statistic that counts it shows. */
static void record_rep(struct stream_run *r, enum kernel_id k,
		       unsigned long long rep, double t, double sum)
{
#if BENCH_WARMUP_TEST > 0
	if (rep == 0)
		t = k % 2 ? 1.0 / BENCH_WARMUP_TEST : (double)BENCH_WARMUP_TEST;
#endif
	TIME_AT(r, k, rep) = t;
	if (IS_SUM(k))
		SUM_AT(r, k, rep) = sum;
}

/* A hook the timed loop calls before each kernel's pass, with its
 * context: the cluster layer's barrier (section 23).  A plain run has
 * none. */
typedef void (*pass_hook)(void *ctx, int kernel, unsigned long long rep);

/* The timed repetitions, the one loop of the plain and the cluster runs:
 * each selected kernel in turn, ntimes over, each pass recorded. */
static void stream_repetitions(const struct options *o, struct stream_run *r,
			       pass_hook before, void *ctx)
{
	unsigned long long rep;
	elem_t q = 3.0;
	int k;
	for (rep = 0; rep < r->ntimes; rep++)
		for (k = 0; k < NKERNELS; k++)
			if (o->kernels & (1u << k)) {
				double sum = 0.0, t;
				if (before)
					before(ctx, k, rep);
				t = run_kernel((enum kernel_id)k, &r->ar, q,
					       r->how[k], &sum);
				record_rep(r, (enum kernel_id)k, rep, t, sum);
			}
	/* bare loads sum nothing: the fastest sum's total, untimed */
	for (k = 0; k < NKERNELS; k++)
		if ((o->kernels & (1u << k)) && r->how[k].kind == SK_LOAD)
			run_kernel((enum kernel_id)k, &r->ar, q, r->check_how[k],
				   &r->check_sum[k]);
}

/* After the repetitions, in the plain and the cluster runs: where each
 * thread ended, the corrupt-test build's damage (where corrupt says:
 * the cluster breaks one rank), the statistics and validation. */
static void stream_conclude(const struct options *o, struct stream_run *r,
			    int corrupt)
{
	record_end_cpus();
#if BENCH_CORRUPT_TEST
	if (corrupt)
		corrupt_for_test(r, o->kernels);
#endif
	(void)corrupt;
	stream_stats(r, o->kernels);
	validate(r, o->kernels);
}

/* The warning of every kernel whose best time is under 20 clock ticks. */
static void warn_few_ticks(const struct options *o, const struct stream_run *r)
{
	int k;
	for (k = 0; k < NKERNELS; k++)
		if ((o->kernels & (1u << k)) && r->min_t[k] < 20 * r->tick)
			warn("%s took %.3g s, fewer than 20 clock ticks of %.3g s; "
			     "increase --size", kernel_defs[k].name, r->min_t[k],
			     r->tick);
}

/* The warning of every thread that ended on another CPU than it began. */
static void warn_moved_threads(void)
{
	int i;
	for (i = 0; i < threads_counted && i < MAX_THREADS; i++)
		if (thread_cpu_start[i] != thread_cpu_end[i])
			warn("thread %d moved from CPU %d to CPU %d during the run",
			     i, thread_cpu_start[i], thread_cpu_end[i]);
}

/* The timed repetitions, then the statistics, validation and (for the
 * primary run, not --best's) the warnings they raise. */
static void stream_measure(const struct options *o, struct stream_run *r,
			   int primary)
{
	stream_repetitions(o, r, NULL, NULL);
	stream_conclude(o, r, 1);
	stream_run_rules(o, r);
	if (!primary)
		return;
	warn_few_ticks(o, r);
	warn_moved_threads();
}

/* A second run on the arrays of run r, as ob says (other stores, other
 * kernels), from freshly initialised values and validated on its own:
 * --best's, and bench mix's streaming column.  ob must not pin: the
 * threads stay where r's run pinned them (pinning again would read the
 * pinned master's one-CPU mask). */
static struct stream_run *stream_again(const struct options *ob,
				       const struct stream_run *r)
{
	struct stream_run *b = malloc(sizeof(*b));
	if (!b)
		die("out of memory for a second run");
	*b = *r;
	b->best = NULL;
	b->times = calloc(NKERNELS * b->ntimes, sizeof(double));
	b->sums = calloc(NKERNELS * b->ntimes, sizeof(double));
	b->expect = calloc(NKERNELS * b->ntimes, sizeof(double));
	if (!b->times || !b->sums || !b->expect)
		die("out of memory for %llu repetitions", b->ntimes);
	stream_prepare(ob, b);
	stream_measure(ob, b, 0);
	return b;
}

/* Where the pages and the threads are, on a machine of more than one
 * node: each array's base pages per node (move_pages), then the warning
 * when not one page is on a node any thread runs on (numactl --membind
 * to another node does that, and nothing else would say so), and the
 * one for an array that got pages larger than its spans' grid. */
static void stream_where(struct stream_run *r)
{
	const struct machine_shape *m = machine_shape();
	unsigned long page = (unsigned long)os_page_bytes();
	int tnode[PHYS_MAX_NODES], i, n, local = 0, remote = 0, nbig = 0;
	char pl[256], tl[256], big[16] = "";
	int pn[PHYS_MAX_NODES], npn = 0, ntn = 0;
	unsigned long big_kib = 0;
	if (m->nnodes < 2)
		return;
	r->nodes_known = 1;
	for (i = 0; i < 3; i++) {
		uintptr_t lo = (uintptr_t)r->reg[i].data / page * page;
		unsigned long long pages = ((uintptr_t)r->reg[i].data +
					    r->reg[i].bytes - lo + page - 1) / page;
		memset(r->node_pages[i], 0, sizeof(r->node_pages[i]));
		r->nodes_known &= page_nodes(lo, pages, page, r->node_pages[i]);
		if (r->pages[i].known && (size_t)r->pages[i].page_kib * 1024 >
		    (r->span_bytes ? r->span_bytes : (size_t)page)) {
			snprintf(big + strlen(big), sizeof(big) - strlen(big), "%s%c",
				 nbig++ ? ", " : "", array_names[i]);
			big_kib = r->pages[i].page_kib;
		}
	}
	if (nbig)
		warn("array%s %s got %lu KiB pages, larger than the pages the "
		     "threads' spans were split on (%s): a page two threads "
		     "share sits on one of their nodes", nbig > 1 ? "s" : "", big,
		     big_kib, r->span_bytes ? "pages of another size"
		     : "cache lines, since the arrays have fewer such pages than "
		       "the run has threads, or bench expected smaller pages");
	if (!r->nodes_known)
		return;
	memset(tnode, 0, sizeof(tnode));
	for (i = 0; i < threads_counted && i < MAX_THREADS; i++) {
		const struct shape_cpu *c = shape_cpu(m, thread_cpu_start[i]);
		if (!c || c->node < 0 || c->node >= PHYS_MAX_NODES)
			return; /* a thread whose node is unknown */
		tnode[c->node] = 1;
	}
	for (n = 0; n < PHYS_MAX_NODES; n++) {
		unsigned long long here = r->node_pages[0][n] + r->node_pages[1][n] +
					  r->node_pages[2][n];
		if (here)
			pn[npn++] = n;
		ntn += tnode[n];
		local += here && tnode[n];
		remote += here && !tnode[n];
	}
	if (local || !remote || !ntn || r->node_pages[0][NODE_UNKNOWN] ||
	    r->node_pages[1][NODE_UNKNOWN] || r->node_pages[2][NODE_UNKNOWN])
		return;
	format_cpu_list(pl, sizeof(pl), pn, npn);
	for (n = 0, ntn = 0; n < PHYS_MAX_NODES; n++)
		if (tnode[n])
			pn[ntn++] = n;
	format_cpu_list(tl, sizeof(tl), pn, ntn);
	warn("every page of the arrays is on node%s %s and every thread runs on "
	     "node%s %s: all of this run's memory is remote (see the Memory "
	     "policy line)", npn == 1 ? "" : "s", pl, ntn == 1 ? "" : "s", tl);
}

/* --best: after the standard run, the same arrays measured again with
 * each kernel's fastest method (--stores auto over every candidate). */
static struct stream_run *stream_best(const struct options *o,
				      const struct stream_run *r)
{
	struct options ob = *o;
	ob.nt_stores = STORES_AUTO;
	ob.bind = 0;
	return stream_again(&ob, r);
}

/* The warning of arrays below STREAM's sizing rule, which a run whose
 * arrays fit in the caches measures the caches with. */
static void warn_below_rule(const struct stream_run *r)
{
	char b1[48], b2[32];
	if (!r->plan.rule_elems || r->n >= r->plan.rule_elems)
		return;
	format_bytes(b1, sizeof(b1), r->plan.llc);
	if (r->plan.llc_instances > 1) {
		char one[32];
		memcpy(one, b1, sizeof(one));
		snprintf(b1, sizeof(b1), "%d x %s", r->plan.llc_instances, one);
	}
	snprintf(b2, sizeof(b2), "%.1f MiB",
		 (double)r->n * sizeof(elem_t) / 1048576.0);
	warn("each array (%s) is smaller than %dx the reported last-level "
	     "cache (%s); --size %llu or more follows STREAM's rule "
	     "(VMs may report nonsense cache sizes)", b2, BENCH_LLC_FACTOR,
	     b1, r->plan.rule_elems);
}

/* The last STREAM run's --best figures (its fastest methods' run), kept
 * for the memory row of the hierarchy at the end of `bench all` (section
 * 23b), which takes them rather than measuring memory a second time. */
static struct stream_kept {
	int have, threads, valid;
	unsigned kernels;
	unsigned long long elems, ntimes;
	double min_t[NKERNELS], med_t[NKERNELS];
	struct method how[NKERNELS];
} stream_kept;

static void stream_keep_best(const struct options *o, const struct stream_run *b)
{
	memset(&stream_kept, 0, sizeof(stream_kept));
	stream_kept.have = 1;
	stream_kept.threads = threads_counted;
	stream_kept.valid = b->valid;
	stream_kept.kernels = o->kernels;
	stream_kept.elems = (unsigned long long)b->n;
	stream_kept.ntimes = b->ntimes;
	memcpy(stream_kept.min_t, b->min_t, sizeof(stream_kept.min_t));
	memcpy(stream_kept.med_t, b->med_t, sizeof(stream_kept.med_t));
	memcpy(stream_kept.how, b->how, sizeof(stream_kept.how));
}

/* Measure and report STREAM.  Returns the exit status (0, or 1 when the
 * results do not validate).  nested: `bench all` owns the JSON document. */
static int stream_mode(const struct options *o, const struct system_info *si,
		       int nested)
{
	struct stream_run r;

	memset(&r, 0, sizeof(r));
	alloc_plan(&r.plan, o, M_STREAM, reported_llc(si),
		   reported_llc_instances(si), 1);
	stream_check(o);
	stream_allocate(o, &r);
	stream_prepare(o, &r);
	stream_where(&r);
	warn_below_rule(&r);
	stream_report_head(o, si, &r);
	stream_measure(o, &r, 1);
	if (o->best) {
		r.best = stream_best(o, &r);
		stream_keep_best(o, r.best);
	}
	stream_report_tail(o, si, &r, nested);
	stream_release(&r);
	return r.valid && (!r.best || r.best->valid) ? 0 : 1;
}

/* bench mix: the mixes' kernels on every thread at once, each thread on
 * the span it first touched, first with plain stores, then with
 * streaming stores from freshly initialised arrays (stream_again), both
 * at one instruction set (the widest, unless --isa says), so the two
 * columns differ by the stores alone.  Returns 0, or 1 when either run
 * fails validation. */
static int mix_mode(const struct options *o, const struct system_info *si)
{
	struct options op = *o, on;
	struct stream_run r, *n = NULL;
	struct mix_result m;
	int has_nt, rc;

	op.kernels = MIX_KERNELS;
	op.nt_stores = STORES_PLAIN;
	op.best = 0;
	if (op.isa == ISA_UNSET)
		op.isa = ISA_AUTO;
	on = op;
	on.nt_stores = STORES_NT;
	on.kernels &= ~(1u << K_READ); /* it stores nothing */
	on.bind = 0;
	memset(&r, 0, sizeof(r));
	alloc_plan(&r.plan, &op, M_STREAM, reported_llc(si),
		   reported_llc_instances(si), 1);
	stream_check(&op);
	has_nt = HAVE_NT || run_isa(&op) != ISA_GENERIC;
	if (has_nt && nt_fallback(run_isa(&op)))
		warn("the streaming column falls back to %s",
		     nt_fallback(run_isa(&op)));
	stream_allocate(&op, &r);
	stream_prepare(&op, &r);
	warn_below_rule(&r);
	mix_report_head(&op, si, &r, has_nt);
	stream_measure(&op, &r, 1);
	if (has_nt) {
		n = r.best = stream_again(&on, &r); /* stream_release frees it */
		warn_moved_threads();
	}
	m.op = &op;
	m.on = &on;
	m.plain = &r;
	m.nt = n;
	mix_report_tail(&m, si);
	rc = r.valid && (!n || n->valid) ? 0 : 1;
	stream_release(&r); /* and n, r's second run */
	return rc;
}

/* ======================================================================
 * The latency program (bench latency).  lat_mem_rd's method, a chase
 * where each load's address is the value the previous load returned,
 * measured faster and read for its plateaus.  Its results live in one
 * struct lat_run, which sections 14-20 fill and render.
 * ====================================================================== */

/* ======================================================================
 * 14 Chains (latency).  One buffer, sized for the largest point and
 * obtained through the allocation plan, holds every chain of the sweep;
 * each point links its first `lines` lines into one cycle.
 * ====================================================================== */

/* xorshift64*: fast, and seeded with a constant so that two runs chase
 * the same chains and differ only by what the machine did.  The chains
 * draw from lat_rng; the analysis (lat_read_curve) from a state of its
 * own, so reading a curve never changes later chase orders. */
static uint64_t lat_rng = LAT_SEED;

static uint64_t lat_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* a[0..n) = a uniformly random order of 0..n-1 (Fisher-Yates). */
static void lat_shuffle(uint32_t *a, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (i = n; i > 1; i--) {
		size_t j = (size_t)(lat_random(&lat_rng) % (uint64_t)i);
		uint32_t t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

struct lat_chain {
	char *buf;
	size_t stride;   /* bytes from one line of the chain to the next */
	size_t page;     /* bytes of the pages that --pattern page keeps local */
	size_t maxlines; /* lines the buffer holds at this stride */
	size_t npages;   /* line-a-page: pages the buffer holds */
	enum lat_pattern pattern;
	uint32_t *order;  /* random: all lines in random order; page,
			   * line-a-page: all pages (windows) in random order */
	uint32_t *inpage; /* page: scratch for one page's lines */
};

#define LAT_LINE(c, i) ((void *)((c)->buf + (size_t)(i) * (c)->stride))

static void lat_chain_free(struct lat_chain *c)
{
	free(c->order);
	free(c->inpage);
	c->order = c->inpage = NULL;
}

/* Draw the random orders once per stride; every point filters them. */
static void lat_chain_init(struct lat_chain *c, char *buf, size_t bytes,
			   size_t stride, enum lat_pattern pattern, size_t page)
{
	size_t n = 0;
	memset(c, 0, sizeof(*c));
	c->buf = buf;
	c->stride = stride;
	c->page = page;
	c->pattern = pattern;
	c->maxlines = bytes / stride;
	if (pattern == P_RANDOM)
		n = c->maxlines;
	else if (pattern == P_PAGE)
		n = (bytes + page - 1) / page;
	else if (pattern == P_LINEPAGE && stride <= page)
		n = c->npages = bytes / page;
	if (n == 0)
		return;
	c->order = malloc(n * sizeof(*c->order));
	if (pattern == P_PAGE)
		c->inpage = malloc((page / stride + 1) * sizeof(*c->inpage));
	if (!c->order || (pattern == P_PAGE && !c->inpage))
		die("out of memory for the chase order of %zu entries", n);
	lat_shuffle(c->order, n);
}

/* Lines per page for --pattern page (at least one). */
static size_t lat_lines_per_page(const struct lat_chain *c)
{
	size_t lpp = c->page / c->stride;
	return lpp ? lpp : 1;
}

#if BENCH_PROBE_TEST
/* Which probe the test build breaks: MEMBENCH_PROBE_BREAK=1 to 5. */
static int lat_probe_break(void)
{
	const char *e = getenv("MEMBENCH_PROBE_BREAK");
	return e ? atoi(e) : 0;
}

/* A reading as the test build's disturbance (3 to 5) leaves it. */
static void lat_probe_disturb(double *ns)
{
	int b = lat_probe_break();
	*ns = b == 5 ? *ns / 4 : b == 3 || b == 4 ? *ns * 4 : *ns;
}
#else
#define lat_probe_break() 0
#define lat_probe_disturb(ns) ((void)0)
#endif

/* Bytes of the pages --pattern page keeps its lines in: the base page. */
static size_t lat_page_bytes(void)
{
	long p = os_page_bytes();
	return p > 0 ? (size_t)p : 4096;
}

/* A chain as it is linked: its first line, the last linked, how many,
 * and the lines at each LAT_CHECK_SEGMENTS-th of its length, where the
 * check's stretches start. */
struct lat_link {
	size_t first, prev, rank, lines;
	void *seg[LAT_CHECK_SEGMENTS];
	int nseg;
};

/* Link line x after the last one linked. */
static void lat_link_add(const struct lat_chain *c, struct lat_link *l,
			 size_t x)
{
	if (l->rank == 0)
		l->first = x;
	else
		*(void **)LAT_LINE(c, l->prev) = LAT_LINE(c, x);
	if (l->nseg < LAT_CHECK_SEGMENTS &&
	    l->rank == l->lines / LAT_CHECK_SEGMENTS * (size_t)l->nseg)
		l->seg[l->nseg++] = LAT_LINE(c, x);
	l->prev = x;
	l->rank++;
}

/* The chain's name in the check's errors and the test hook's lines. */
static const char *lat_chain_name(const struct lat_chain *c)
{
	switch (c->pattern) {
	case P_RANDOM:
		return "random";
	case P_STRIDE:
		return "stride";
	case P_LINEPAGE:
		return "line-a-page";
	default:
		return c->page > lat_page_bytes() ? "TLB-local" : "page";
	}
}

/* What the check counts: steps to a neighbouring line (line-a-page: a
 * neighbouring page), steps within one base page, and steps that repeat
 * the one before; each count's mean under the order the chain claims,
 * and its bound (LAT_ORDER_LOG_P), or a negative bound where the claim
 * says nothing of it. */
enum { LAT_NEAR, LAT_SAMEPAGE, LAT_REPEAT, LAT_ORDER_STATS };
static const char *const lat_order_names[LAT_ORDER_STATS] = {
	"near", "page", "repeat"};
static const char *const lat_order_words[LAT_ORDER_STATS] = {
	"steps to a neighbouring line", "steps within one base page",
	"repeats the step before"};

struct lat_order {
	size_t count[LAT_ORDER_STATS];
	double mean[LAT_ORDER_STATS], bound[LAT_ORDER_STATS];
};

/* Ordered pairs of distinct lines that share a page, among n lines from
 * a page boundary on, lpp lines a page. */
static double lat_page_pairs(size_t n, size_t lpp)
{
	double f = (double)(n / lpp), r = (double)(n % lpp), l = (double)lpp;
	return f * l * (l - 1) + r * (r - 1);
}

/* Each count's mean under the claimed order, n units (lines; pages for
 * the line-a-page chain) of which `blpp` lines share a base page, and
 * its bound.  A random chain, the line-a-page chain and a window that
 * holds every line are one uniformly random cycle: each unit's
 * successor is any other with equal chance, so neighbours average
 * 2(n-1)/(n-1) = 2, same-page steps the pairs over n-1, repeats at
 * most n/(n-2) (the successor must be one given unit).  A windowed
 * chain (the TLB-local chase, --pattern page) is windows in random
 * order, each window's w lines in uniformly random order: per window
 * fewer than 2 neighbours and 2 repeats, and its page pairs over w
 * (none of its steps out of a window stays in a page); the same-page
 * count says nothing where a window is one page.  The stride chain
 * claims nothing. */
static void lat_order_expect(const struct lat_chain *c, size_t n,
			     struct lat_order *st)
{
	size_t blpp = lat_page_bytes() / c->stride, k = n, nw = 1, i;
	double L = LAT_ORDER_LOG_P;
	for (i = 0; i < LAT_ORDER_STATS; i++)
		st->mean[i] = st->bound[i] = -1;
	if (c->pattern == P_STRIDE || n < 3)
		return;
	if (blpp < 1)
		blpp = 1;
	if (c->pattern == P_PAGE && lat_lines_per_page(c) < n) {
		k = lat_lines_per_page(c);
		nw = (n + k - 1) / k;
	}
	if (k == n || k == 1) { /* one random cycle of the units */
		st->mean[LAT_NEAR] = 2;
		st->mean[LAT_REPEAT] = (double)n / (double)(n - 2);
		if (c->pattern != P_LINEPAGE)
			st->mean[LAT_SAMEPAGE] = lat_page_pairs(n, blpp) /
						 (double)(n - 1);
	} else if (k >= 4) {
		size_t last = n - (nw - 1) * k;
		st->mean[LAT_NEAR] = 2.0 * (double)nw;
		st->mean[LAT_REPEAT] = 2.0 * (double)nw;
		if (k > blpp)
			st->mean[LAT_SAMEPAGE] = (double)(nw - 1) *
				lat_page_pairs(k, blpp) / (double)k +
				lat_page_pairs(last, blpp) / (double)last;
	}
	for (i = 0; i < LAT_ORDER_STATS; i++)
		if (st->mean[i] >= 0)
			st->bound[i] = st->mean[i] + L +
				       lat_exp(0.5 * lat_ln(L * L + 4 * L *
							    st->mean[i]));
}

/* a / b, by a shift where b is a power of two (sh >= 0): the check
 * divides four times a line, and a division costs a chase's load. */
static size_t lat_div(size_t a, size_t b, int sh)
{
	return sh >= 0 ? a >> sh : a / b;
}

static int lat_log2(size_t b)
{
	int sh = 0;
	if (b == 0 || (b & (b - 1)))
		return -1;
	while ((b >> sh) > 1)
		sh++;
	return sh;
}

/* How the check reads a pointer: the chain's line size, lines a base
 * page and (line-a-page) lines a unit, each with its shift. */
struct lat_units {
	const struct lat_chain *c;
	size_t n, end, upp, blpp;
	int ssh, ush, bsh;
};

/* The line at p, and in *u its unit (line; line-a-page: page); a stop
 * if p is no line of the chain's first n units. */
static size_t lat_chain_line(const struct lat_units *w, const void *p,
			     size_t *u)
{
	const struct lat_chain *c = w->c;
	size_t off = (size_t)((const char *)p - c->buf), line = 0;
	*u = (size_t)-1;
	if ((const char *)p >= c->buf && off < w->end &&
	    off - (line = lat_div(off, c->stride, w->ssh)) * c->stride == 0)
		*u = lat_div(line, w->upp, w->ush);
	if (*u >= w->n)
		die("internal error: the %s chain of %zu %s points outside "
		    "them", lat_chain_name(c), w->n,
		    c->pattern == P_LINEPAGE ? "pages" : "lines");
	return line;
}

/* The check of every chain built: it walks the cycle once, in
 * LAT_CHECK_SEGMENTS stretches at a time (each from the line the
 * linking marked to the next one's), and stops the run if it visits a
 * unit twice, leaves the chain's units or closes before it has visited
 * them all, or if a count of its order passes its bound: the chase
 * would then time something other than what the run says it times.
 * MEMBENCH_CHAIN_STATS=1 prints each chain's counts on stderr. */
static void lat_chain_check(const struct lat_chain *c, const struct lat_link *l)
{
	size_t n = l->lines, steps = 0, d[LAT_CHECK_SEGMENTS];
	size_t lu[LAT_CHECK_SEGMENTS], u[LAT_CHECK_SEGMENTS], lim;
	void *cur[LAT_CHECK_SEGMENTS], *ahead[LAT_CHECK_SEGMENTS];
	void *trail[LAT_CHECK_BATCH][LAT_CHECK_SEGMENTS];
	int i, j, active = l->nseg, have[LAT_CHECK_SEGMENTS];
	int samepage = c->pattern != P_LINEPAGE;
	unsigned char *seen = calloc(n / 8 + 1, 1);
	const char *hook = getenv("MEMBENCH_CHAIN_STATS");
	struct lat_order st;
	struct lat_units w;
	if (!seen)
		die("out of memory for the chain check");
	memset(&st, 0, sizeof(st));
	w.c = c;
	w.n = n;
	w.end = c->maxlines * c->stride;
	w.upp = c->pattern == P_LINEPAGE ? lat_lines_per_page(c) : 1;
	w.blpp = lat_page_bytes() / c->stride;
	w.blpp = w.blpp ? w.blpp : 1;
	w.ssh = lat_log2(c->stride);
	w.ush = lat_log2(w.upp);
	w.bsh = lat_log2(w.blpp);
	lim = w.end - sizeof(void *); /* the last offset a pointer fits at */
	for (j = 0; j < l->nseg; j++) {
		ahead[j] = cur[j] = l->seg[j];
		lu[j] = lat_chain_line(&w, cur[j], &u[j]);
		have[j] = 0;
	}
	while (active > 0) {
		/* The chase alone, LAT_CHECK_BATCH steps of every stretch,
		 * few instructions a load so that the stretches' misses
		 * overlap; a pointer out of the buffer is kept, not followed,
		 * for the reading below to refuse. */
		for (i = 0; i < LAT_CHECK_BATCH; i++)
			for (j = 0; j < l->nseg; j++) {
				void *q = *(void **)ahead[j];
				trail[i][j] = q;
				if ((size_t)((char *)q - c->buf) <= lim)
					ahead[j] = q;
			}
		/* Then each stretch's steps read, up to the stretch's end. */
		for (j = 0; j < l->nseg; j++)
			for (i = 0; i < LAT_CHECK_BATCH && cur[j]; i++) {
				void *next = trail[i][j];
				size_t v, lv;
				if (seen[u[j] / 8] & (1u << (u[j] % 8)))
					die("internal error: the %s chain of %zu %s "
					    "visits %s %zu twice", lat_chain_name(c), n,
					    c->pattern == P_LINEPAGE ? "pages" : "lines",
					    c->pattern == P_LINEPAGE ? "page" : "line",
					    u[j]);
				seen[u[j] / 8] |= (unsigned char)(1u << (u[j] % 8));
				lv = lat_chain_line(&w, next, &v);
				st.count[LAT_NEAR] += v == u[j] + 1 || u[j] == v + 1;
				st.count[LAT_SAMEPAGE] += samepage &&
					lat_div(lu[j], w.blpp, w.bsh) ==
					lat_div(lv, w.blpp, w.bsh);
				st.count[LAT_REPEAT] += have[j] && v - u[j] == d[j];
				d[j] = v - u[j];
				have[j] = 1;
				steps++;
				cur[j] = next;
				u[j] = v;
				lu[j] = lv;
				if (next == l->seg[(j + 1) % l->nseg]) {
					cur[j] = NULL;
					active--;
				}
			}
	}
	free(seen);
	if (steps != n)
		die("internal error: the %s chain of %zu %s is not one cycle: "
		    "it closes after %zu", lat_chain_name(c), n,
		    c->pattern == P_LINEPAGE ? "pages" : "lines", steps);
	lat_order_expect(c, n, &st);
	if (hook && strcmp(hook, "1") == 0) {
		char line[512];
		size_t at;
		at = (size_t)snprintf(line, sizeof(line), "chain pattern=%s "
				      "lines=%zu cycle=1", lat_chain_name(c), n);
		for (j = 0; j < LAT_ORDER_STATS && at < sizeof(line); j++) {
			if (st.bound[j] < 0)
				at += (size_t)snprintf(line + at, sizeof(line) - at,
						       " %s=%zu %s_mean=none %s_bound=none",
						       lat_order_names[j], st.count[j],
						       lat_order_names[j], lat_order_names[j]);
			else
				at += (size_t)snprintf(line + at, sizeof(line) - at,
						       " %s=%zu %s_mean=%.4g %s_bound=%.4g",
						       lat_order_names[j], st.count[j],
						       lat_order_names[j], st.mean[j],
						       lat_order_names[j], st.bound[j]);
		}
		fprintf(stderr, "%s\n", line);
	}
	for (j = 0; j < LAT_ORDER_STATS; j++)
		if (st.bound[j] >= 0 && (double)st.count[j] > st.bound[j])
			die("internal error: the %s chain of %zu %s %s %zu times, "
			    "where a random order does so %.3g times on average "
			    "and at most %.0f: its loads could be prefetched",
			    lat_chain_name(c), n,
			    c->pattern == P_LINEPAGE ? "pages" : "lines",
			    j == LAT_NEAR && c->pattern == P_LINEPAGE
				    ? "steps to a neighbouring page" : lat_order_words[j],
			    st.count[j], st.mean[j], st.bound[j]);
}

/* Link the first `lines` lines into one cycle that visits each once
 * (line-a-page: one line in each of the first `lines` pages), check it
 * (lat_chain_check), and return the line the cycle starts at. */
static void *lat_chain_build(struct lat_chain *c, size_t lines)
{
	size_t i;
	struct lat_link l;
	memset(&l, 0, sizeof(l));
	l.lines = lines;

	if (c->pattern == P_STRIDE) {
		/* lat_mem_rd's chain: each line points to the next one up. */
		for (i = 0; i < lines; i++)
			lat_link_add(c, &l, i);
	} else if (c->pattern == P_RANDOM && lat_probe_break() == 6) {
		for (i = 0; i < lines; i++) /* address order */
			lat_link_add(c, &l, i);
	} else if (c->pattern == P_RANDOM && lat_probe_break() == 7) {
		/* pages in address order, each one's lines random */
		size_t lpp = lat_page_bytes() / c->stride, k;
		uint32_t *in;
		lpp = lpp ? lpp : 1;
		in = malloc(lpp * sizeof(*in));
		if (!in)
			die("out of memory for the chase order");
		for (i = 0; i < lines; i += lpp) {
			size_t cnt = lines - i < lpp ? lines - i : lpp;
			lat_shuffle(in, cnt);
			for (k = 0; k < cnt; k++)
				lat_link_add(c, &l, i + in[k]);
		}
		free(in);
	} else if (c->pattern == P_RANDOM) {
		/* Keeping the lines below `lines` from a random order of all
		 * lines gives a uniformly random order of the smaller set: a
		 * sequential scan instead of a fresh shuffle per point. */
		for (i = 0; i < c->maxlines; i++)
			if (c->order[i] < lines)
				lat_link_add(c, &l, c->order[i]);
	} else if (c->pattern == P_LINEPAGE) {
		/* Pages in random order, one line of each: the line's place
		 * in its page moves on one line per page and one more per
		 * lpp pages, so N pages' lines fill the sets of each cache
		 * as N lines in a row do, and only the pages differ. */
		size_t lpp = lat_lines_per_page(c), pg;
		for (i = 0; i < c->npages; i++) {
			size_t x;
			pg = c->order[i];
			if (pg >= lines)
				continue;
			x = pg * lpp + (pg + pg / lpp) % lpp;
			if (lat_probe_break() == 1) /* two lines a page */
				x = pg / 2 * lpp + (pg / 2 + pg % 2) % lpp;
			lat_link_add(c, &l, x);
		}
	} else {
		/* Pages in random order, each page's lines in random order:
		 * one TLB miss per page instead of one per load. */
		size_t lpp = lat_lines_per_page(c), pg;
		size_t npages = (c->maxlines + lpp - 1) / lpp;
		for (pg = 0; pg < npages; pg++) {
			size_t base = (size_t)c->order[pg] * lpp, cnt, k;
			if (base >= lines)
				continue;
			cnt = lines - base < lpp ? lines - base : lpp;
			lat_shuffle(c->inpage, cnt);
			for (k = 0; k < cnt; k++)
				lat_link_add(c, &l, base + (lat_probe_break() == 8 &&
							    lat_chain_name(c)[0] == 'T'
							    ? k : c->inpage[k]));
		}
	}
	*(void **)LAT_LINE(c, l.prev) = LAT_LINE(c, l.first);
	lat_chain_check(c, &l);
	return LAT_LINE(c, l.first);
}

/* k starting points spread evenly along the cycle of `lines` lines, for
 * --chains: the chases then never catch up with each other. */
static void lat_chain_heads(const struct lat_chain *c, size_t lines, int k,
			    void **heads)
{
	size_t rank = 0, i;
	int next = 0;
	if (c->pattern == P_STRIDE) {
		for (next = 0; next < k; next++)
			heads[next] = LAT_LINE(c, lines / (size_t)k * (size_t)next);
		return;
	}
	if (c->pattern == P_RANDOM) {
		for (i = 0; i < c->maxlines && next < k; i++) {
			if (c->order[i] >= lines)
				continue;
			if (rank == lines / (size_t)k * (size_t)next)
				heads[next++] = LAT_LINE(c, c->order[i]);
			rank++;
		}
	} else {
		/* Any line of a page lies on the cycle; page ranks stand in
		 * for line ranks to within one page. */
		size_t lpp = lat_lines_per_page(c);
		size_t npages = (c->maxlines + lpp - 1) / lpp;
		size_t used = (lines + lpp - 1) / lpp;
		for (i = 0; i < npages && next < k; i++) {
			size_t base = (size_t)c->order[i] * lpp;
			if (base >= lines)
				continue;
			if (rank == used / (size_t)k * (size_t)next)
				heads[next++] = LAT_LINE(c, base);
			rank++;
		}
	}
	while (next < k) { /* fewer lines than chains: share heads */
		heads[next] = heads[next - 1];
		next++;
	}
}

/* What a probe's chain promises, checked on each chain small enough to
 * walk (LAT_CHECK_LINES): the line-a-page chase touches `lines` pages,
 * one line in each; a windowed chase (the TLB-local probe, --pattern
 * page) finishes each window of `span` bytes before it leaves it, so it
 * leaves windows as often as it covers them.  A probe that broke its
 * promise would measure the other probe's effect under its name. */
static void lat_chain_verify_probe(const struct lat_chain *c, void *head,
				   size_t lines, size_t span)
{
	size_t leaves = 0, wins, k;
	unsigned char *seen;
	char *p = head;
	if (lines > LAT_CHECK_LINES || span == 0 ||
	    (c->pattern != P_PAGE && c->pattern != P_LINEPAGE))
		return;
	k = span / c->stride;
	wins = c->pattern == P_LINEPAGE ? lines : (lines + k - 1) / k;
	seen = calloc(c->maxlines / (k ? k : 1) + 2, 1);
	if (!seen)
		die("out of memory for the chain check");
	do {
		size_t w = (size_t)(p - c->buf) / span;
		char *q = *(char **)p;
		if (c->pattern == P_LINEPAGE && seen[w])
			die("internal error: the line-a-page chain of %zu pages "
			    "visits page %zu twice", lines, w);
		seen[w] = 1;
		leaves += (size_t)(q - c->buf) / span != w;
		p = q;
	} while (p != head);
	free(seen);
	if (wins > 1 && leaves != wins)
		die("internal error: the chain of %zu lines leaves its %zu-byte "
		    "windows %zu times, not once for each of its %zu", lines, span,
		    leaves, wins);
}

/* ======================================================================
 * 15 Kernels (latency).  Each load's address is the value the previous
 * load returned, so the loads cannot overlap and the compiler can
 * neither drop nor reorder them; the final pointer is returned and ends
 * in a volatile sink.  64 loads per loop trip hide the loop's own cost.
 * ====================================================================== */

#define LAT_STEP1 p = (void **)*p;
#define LAT_STEP4 LAT_STEP1 LAT_STEP1 LAT_STEP1 LAT_STEP1
#define LAT_STEP16 LAT_STEP4 LAT_STEP4 LAT_STEP4 LAT_STEP4
#define LAT_UNROLL 64

static volatile uintptr_t lat_sink;

static void *lat_chase(void *start, size_t trips)
{
	void **p = (void **)start;
	while (trips-- > 0) {
		LAT_STEP16 LAT_STEP16 LAT_STEP16 LAT_STEP16
	}
	return (void *)p;
}

/* --chains: K independent chases interleaved in one thread, one
 * function per K, each a straight run of K loads per step: no branch
 * inside the loop, and every function is whole C that tools can read.
 * LAT_FOR_K(X) expands X(0) .. X(K-1). */
#define LAT_FOR_1(X) X(0)
#define LAT_FOR_2(X) LAT_FOR_1(X) X(1)
#define LAT_FOR_3(X) LAT_FOR_2(X) X(2)
#define LAT_FOR_4(X) LAT_FOR_3(X) X(3)
#define LAT_FOR_5(X) LAT_FOR_4(X) X(4)
#define LAT_FOR_6(X) LAT_FOR_5(X) X(5)
#define LAT_FOR_7(X) LAT_FOR_6(X) X(6)
#define LAT_FOR_8(X) LAT_FOR_7(X) X(7)
#define LAT_FOR_9(X) LAT_FOR_8(X) X(8)
#define LAT_FOR_10(X) LAT_FOR_9(X) X(9)
#define LAT_FOR_11(X) LAT_FOR_10(X) X(10)
#define LAT_FOR_12(X) LAT_FOR_11(X) X(11)
#define LAT_FOR_13(X) LAT_FOR_12(X) X(12)
#define LAT_FOR_14(X) LAT_FOR_13(X) X(13)
#define LAT_FOR_15(X) LAT_FOR_14(X) X(14)
#define LAT_FOR_16(X) LAT_FOR_15(X) X(15)
#define LAT_HEAD(i) void **p##i = (void **)heads[i];
#define LAT_LOAD(i) p##i = (void **)*p##i;
#define LAT_SAVE(i) heads[i] = (void *)p##i;
#define LAT_CHASE_K(K)                                                   \
	static void lat_chase_##K(void **heads, size_t steps)            \
	{                                                                \
		LAT_FOR_##K(LAT_HEAD)                                    \
		while (steps-- > 0) {                                    \
			LAT_FOR_##K(LAT_LOAD)                            \
		}                                                        \
		LAT_FOR_##K(LAT_SAVE)                                    \
	}
LAT_CHASE_K(1)
LAT_CHASE_K(2)
LAT_CHASE_K(3)
LAT_CHASE_K(4)
LAT_CHASE_K(5)
LAT_CHASE_K(6)
LAT_CHASE_K(7)
LAT_CHASE_K(8)
LAT_CHASE_K(9)
LAT_CHASE_K(10)
LAT_CHASE_K(11)
LAT_CHASE_K(12)
LAT_CHASE_K(13)
LAT_CHASE_K(14)
LAT_CHASE_K(15)
LAT_CHASE_K(16)

typedef void (*lat_chase_fn)(void **heads, size_t steps);
static const lat_chase_fn lat_chase_k[LAT_MAX_CHAINS + 1] = {
	NULL, lat_chase_1, lat_chase_2, lat_chase_3, lat_chase_4, lat_chase_5,
	lat_chase_6, lat_chase_7, lat_chase_8, lat_chase_9, lat_chase_10,
	lat_chase_11, lat_chase_12, lat_chase_13, lat_chase_14, lat_chase_15,
	lat_chase_16
};

/* The clock yardstick: 100 dependent integer adds per call, each one
 * cycle on every modern core.  The operand is a register, not an
 * immediate, because some cores fold chains of immediate adds at
 * rename.  Without inline asm a volatile operand keeps the compiler
 * from summing the chain at compile time; its loads are independent of
 * the chain, so they overlap with it. */
#if defined(__GNUC__) && !defined(__TINYC__) && \
    (defined(__x86_64__) || defined(__aarch64__))
#define LAT_CLOCK_METHOD "dependent add chain (inline asm)"
static unsigned long lat_adds(unsigned long x, size_t calls)
{
	unsigned long one = 1;
	while (calls-- > 0) {
#if defined(__x86_64__)
		__asm__ volatile(".rept 100\n\tadd %1, %0\n\t.endr"
				 : "+r"(x) : "r"(one));
#else
		__asm__ volatile(".rept 100\n\tadd %0, %0, %1\n\t.endr"
				 : "+r"(x) : "r"(one));
#endif
	}
	return x;
}
#elif defined(__OPTIMIZE__)
#define LAT_CLOCK_METHOD "dependent add chain (portable C, volatile operand)"
static unsigned long lat_adds(unsigned long x, size_t calls)
{
	static volatile unsigned long one = 1;
	while (calls-- > 0) {
		int k;
		for (k = 0; k < 100; k++)
			x += one;
	}
	return x;
}
#else
/* Unoptimised C keeps x in memory: each add would cost a store-forward,
 * not a cycle, so there is no honest estimate. */
#define LAT_CLOCK_METHOD ""
#define LAT_NO_CLOCK 1
static unsigned long lat_adds(unsigned long x, size_t calls)
{
	return x + calls;
}
#endif

#ifdef _OPENMP
/* The idle spin the loaded-latency load threads insert between reads. */
static void lat_spin(long n)
{
	long i;
	for (i = 0; i < n; i++)
		lat_sink = (uintptr_t)i;
}
#endif

/* ======================================================================
 * 16 Timing (latency).  A point is timed in windows of about LAT_WINDOW_NS;
 * the chase carries on from where the last window stopped, so windows
 * shorter than one lap still see each line once per lap.  The minimum
 * over windows is kept, and the point ends when LAT_STABLE_REPEATS
 * windows agree within LAT_STABLE_TOL or LAT_POINT_CAP_NS is spent.
 * ====================================================================== */

struct lat_point {
	size_t stride;
	size_t bytes;
	double ns;      /* best ns per load */
	int repeats;    /* windows timed */
	double loads;   /* loads timed in all */
	int stable;     /* the repeats agreed before the cap */
	int preempted;  /* windows another task interrupted, not used; -1:
			 * the OS does not say */
	double first_ns; /* a re-timed probe point's first reading; 0: none */
};

/* The calling thread's involuntary context switches so far, or -1
 * where the OS does not count them a thread.  A timed window across
 * which this moved was preempted: another task had the core for part
 * of it, so its time is not the chase's (or the clock's). */
static long preemptions(void)
{
#if defined(RUSAGE_THREAD) && !defined(_WIN32)
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) == 0)
		return (long)ru.ru_nivcsw;
#endif
	return -1;
}

/* Whether the thread was preempted since preemptions() read before. */
static int preempted_since(long before)
{
	return before >= 0 && preemptions() != before;
}

static double lat_window(void **heads, int chains, size_t loads)
{
	double t;
	if (chains == 1) {
		size_t trips = loads / LAT_UNROLL;
		t = now();
		heads[0] = lat_chase(heads[0], trips);
		t = now() - t;
	} else {
		size_t steps = loads / (size_t)chains;
		t = now();
		lat_chase_k[chains](heads, steps);
		t = now() - t;
	}
	lat_sink = (uintptr_t)heads[0];
	return t;
}

/* Loads that fill window_ns at ns_per_load, rounded to whole trips. */
static size_t lat_window_loads(double window_ns, double ns_per_load, int chains)
{
	double n = window_ns / (ns_per_load > 0.05 ? ns_per_load : 0.05);
	size_t unit = (size_t)LAT_UNROLL * (size_t)chains;
	size_t loads = (size_t)(n / (double)unit + 1.0) * unit;
	return loads;
}

/* settle: chase untimed first (LAT_SETTLE_NS) whatever the probe reads. */
static void lat_time_point(void **heads, int chains, struct lat_point *pt,
			   int settle)
{
	double best[LAT_STABLE_REPEATS], spent = 0, guess, any = HUGE_VAL;
	size_t loads = (size_t)LAT_UNROLL * 16 * (size_t)chains;
	int i;

	for (i = 0; i < LAT_STABLE_REPEATS; i++)
		best[i] = HUGE_VAL;
	/* A short probe warms the chain and sizes the first window. */
	guess = 1e9 * lat_window(heads, chains, loads) / (double)loads;
	loads = lat_window_loads(LAT_WINDOW_NS, guess, chains);
	if (settle || guess * (double)chains >= LAT_DRAM_MIN_NS)
		while (spent < LAT_SETTLE_NS)
			spent += 1e9 * lat_window(heads, chains, loads);
	spent = 0;
	pt->repeats = 0;
	pt->loads = 0;
	pt->stable = 0;
	pt->first_ns = 0;
	pt->preempted = preemptions() < 0 ? -1 : 0;
	while (pt->repeats < LAT_MAX_REPEATS) {
		long sw = preemptions();
		double t = lat_window(heads, chains, loads), v;
		size_t done = chains == 1 ? loads / LAT_UNROLL * LAT_UNROLL
			      : loads / (size_t)chains * (size_t)chains;
		v = 1e9 * t / (double)done;
		pt->repeats++;
		pt->loads += (double)done;
		spent += 1e9 * t;
		if (v < any)
			any = v;
		if (preempted_since(sw)) { /* not the chase's time */
			pt->preempted++;
			i = LAT_STABLE_REPEATS;
		} else {
			i = 0;
		}
		for (; i < LAT_STABLE_REPEATS; i++)
			if (v < best[i]) {
				int j;
				for (j = LAT_STABLE_REPEATS - 1; j > i; j--)
					best[j] = best[j - 1];
				best[i] = v;
				break;
			}
		if (best[LAT_STABLE_REPEATS - 1] < HUGE_VAL &&
		    best[LAT_STABLE_REPEATS - 1] <= best[0] * (1.0 + LAT_STABLE_TOL)) {
			pt->stable = 1;
			break;
		}
		if (spent >= LAT_POINT_CAP_NS)
			break;
		if (v > 2 * guess || v < guess / 2) {
			guess = v;
			loads = lat_window_loads(LAT_WINDOW_NS, guess, chains);
		}
	}
	/* every window preempted: the best of them, as before the filter */
	pt->ns = best[0] < HUGE_VAL ? best[0] : any;
}

/* Core clock in MHz from the add chain: the best run of about
 * LAT_CLOCK_RUN_NS that was not preempted (of any, if every one was).
 * *runs counts the runs, *preempted those not used (-1: unknown). */
static double lat_measure_mhz(int *runs, int *preempted)
{
#ifdef LAT_NO_CLOCK
	*runs = 0;
	*preempted = -1;
	return 0;
#else
	size_t calls = 1000;
	unsigned long x = 0;
	double best = HUGE_VAL, any = HUGE_VAL, t, spent = 0;
	int clean = 0;
	*runs = 0;
	*preempted = preemptions() < 0 ? -1 : 0;
	for (;;) {
		t = now();
		x = lat_adds(x, calls);
		t = now() - t;
		if (t * 1e9 >= LAT_CLOCK_RUN_NS || calls > SIZE_MAX / 4 ||
		    (double)calls > 4294967296.0)
			break;
		calls *= 2;
	}
	while (clean < LAT_CLOCK_TRIES && spent < LAT_CLOCK_CAP_NS) {
		long sw = preemptions();
		int whole;
		t = now();
		x = lat_adds(x, calls);
		t = now() - t;
		whole = !preempted_since(sw);
		spent += t * 1e9;
		if (t < any)
			any = t;
		if (whole && t < best)
			best = t;
		clean += whole;
		++*runs;
		if (!whole)
			++*preempted;
	}
	if (best == HUGE_VAL)
		best = any;
	lat_sink = (uintptr_t)x;
	return 100.0 * (double)calls / best / 1e6;
#endif
}

/* ======================================================================
 * 17 Analysis (latency).  The curve is read for plateaus the way a person
 * reads lat_mem_rd's graph, and the levels are set beside the cache
 * sizes the OS reports.
 * ====================================================================== */

/* A flat stretch of the curve: points first..last. */
struct lat_flat {
	int first, last;
	double ns;       /* median latency of its points */
	double boundary; /* bytes of the steepest rise after it, 0 if none */
	int rising;      /* the curve's tail, still climbing (LAT_SIZE_AGREE) */
	int climbing;    /* a climbing stretch (lat_climbing), not a flat one */
};

/* A memory level: one or more flat stretches less than LAT_LEVEL_JUMP
 * apart (the later ones are TLB or similar steps inside the level). */
struct lat_level {
	char name[16];
	double ns;                 /* the level's first flat stretch */
	double from, to;           /* sizes its stretches span */
	double boundary;           /* where the curve leaves it; 0: never */
	int nsteps;
	double step_at[LAT_MAX_STEPS], step_ns[LAT_MAX_STEPS];
	unsigned long long os_bytes; /* OS-reported size of this level */
	int agrees;                  /* 1, 0, or -1 when it cannot be told */
	/* share of the resampled readings that name it alike
	 * (LAT_RESAMPLES); -1: not resampled */
	double confidence;
	int tlb_doubt; /* its edge could be a TLB's reach: not certain */
	int near_below; /* ends within LAT_SIZE_AGREE of the level below */
	int disturbed;  /* read across a fall of its probe's curve */
	int number;     /* 1 for L1d, 2 for L2...; 0 DRAM or unnumbered */
	int extra;      /* unnumbered (lat_renumber): not a level of its own */
	int climbing;   /* its first stretch climbs (lat_climbing) */
};

struct lat_summary {
	size_t stride;
	int nlevels;
	struct lat_level level[LAT_MAX_LEVELS];
	int nnotes;
	char note[LAT_MAX_NOTES][200];
	double llc_fit; /* bytes, lat_fit_llc(); 0 when not fitted */
	/* the tail: the median of the last tail_pts points (LAT_TAIL_PTS),
	 * from tail_from to tail_bytes */
	double tail_ns, tail_bytes, tail_from;
	int tail_pts;
	int ncaches;    /* the data caches it was read against, L1d first */
	unsigned long long cache[LAT_MAX_LEVELS];
};

static void lat_note(struct lat_summary *s, const char *fmt, ...)
{
	va_list ap;
	if (s->nnotes >= LAT_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->note[s->nnotes++], sizeof(s->note[0]), fmt, ap);
	va_end(ap);
}

/* Points first..last are long enough to be a level, flat or climbing:
 * LAT_PLATEAU_MIN_PTS points over LAT_PLATEAU_MIN_OCT octaves. */
static int lat_stretch_spans(const double *bytes, int first, int last)
{
	return last - first + 1 >= LAT_PLATEAU_MIN_PTS &&
	       lat_octaves(bytes[first], bytes[last]) >=
		       LAT_PLATEAU_MIN_OCT - 1e-9;
}

/* Climbing levels, as a person reading the graph sees them: between the
 * flat stretches found (and after the last), among the smoothed points
 * s, a stretch whose log-slope is at most LAT_CLIMB_FRAC of the steepest
 * rise on each side, as long as a flat one must be.  Returns the new
 * count of stretches, in order of size. */
static int lat_climbing(const double *bytes, const double *ns,
			const double *s, int n,
			struct lat_flat *st, int m, int maxout)
{
	double *g, *suf;
	struct lat_flat add[LAT_MAX_LEVELS * LAT_MAX_STEPS];
	int na = 0, gi, k;
	if (n < 2)
		return m;
	g = malloc((size_t)n * 2 * sizeof(*g));
	if (!g)
		die("out of memory for plateau detection");
	suf = g + n;
	for (k = 0; k + 1 < n; k++)
		g[k] = (s[k + 1] - s[k]) / lat_octaves(bytes[k], bytes[k + 1]);
	for (gi = 0; gi <= m; gi++) {
		int lo = gi == 0 ? 0 : st[gi - 1].last;
		int hi = gi == m ? n - 1 : st[gi].first;
		double pre = 0;
		int run = -1;
		if (hi - lo < LAT_PLATEAU_MIN_PTS)
			continue;
		suf[hi - 1] = 0;
		for (k = hi - 2; k >= lo; k--)
			suf[k] = g[k + 1] > suf[k + 1] ? g[k + 1] : suf[k + 1];
		for (k = lo; k <= hi; k++) {
			double side = k < hi && pre > suf[k] ? suf[k] : pre;
			int flat = k < hi && side > 0 && g[k] <= LAT_CLIMB_FRAC * side;
			if (flat && run < 0)
				run = k;
			if (!flat && run >= 0) {
				/* points run..k */
				if (lat_stretch_spans(bytes, run, k) &&
				    na < (int)(sizeof(add) / sizeof(add[0])) &&
				    m + na < maxout)
					add[na++] = (struct lat_flat){
						run, k, median(ns + run, (size_t)(k - run + 1)), 0, 0, 1};
				run = -1;
			}
			if (k < hi && g[k] > pre)
				pre = g[k];
		}
	}
	/* merge the two ordered lists, from the end (room was kept) */
	if (na > 0) {
		int a = m - 1, b = na - 1, t = m + na - 1;
		while (b >= 0)
			st[t--] = a >= 0 && st[a].first > add[b].first ? st[a--] : add[b--];
		m += na;
	}
	free(g);
	return m;
}

/* Flat stretches of (bytes[i], ns[i]), sizes ascending, on log latency
 * smoothed by a median of three (one wild point cannot split a plateau):
 * a stretch grows while each point stays within LAT_PLATEAU_TOL of its
 * median and twice that of its lowest point (lat_stretch_spans). */
static int lat_find_flats(const double *bytes, const double *ns, int n,
			  double mem_past, struct lat_flat *out, int maxout)
{
	double tol = lat_ln(1.0 + LAT_PLATEAU_TOL);
	size_t cells = (size_t)(n > 0 ? n : 1);
	double *s = malloc(cells * sizeof(*s));
	struct runmed rm;
	int i, m = 0;
	rm.lo = malloc(cells * sizeof(double));
	rm.hi = malloc(cells * sizeof(double));
	if (!s || !rm.lo || !rm.hi)
		die("out of memory for plateau detection");
	for (i = 0; i < n; i++)
		s[i] = lat_ln(ns[i] > 1e-6 ? ns[i] : 1e-6);
	for (i = 1; i + 1 < n; i++)
		s[i] = lat_median3(lat_ln(ns[i - 1] > 1e-6 ? ns[i - 1] : 1e-6),
				   s[i],
				   lat_ln(ns[i + 1] > 1e-6 ? ns[i + 1] : 1e-6));
	i = 0;
	while (i < n) {
		int j = i + 1;
		double lo = s[i];
		rm.nlo = rm.nhi = 0;
		runmed_add(&rm, s[i]);
		while (j < n) {
			double med = runmed_get(&rm);
			if (abs_d(s[j] - med) > tol || s[j] - lo > 2 * tol)
				break;
			if (s[j] < lo)
				lo = s[j];
			runmed_add(&rm, s[j]);
			j++;
		}
		if (lat_stretch_spans(bytes, i, j - 1)) {
			double lvl = median(ns + i, (size_t)(j - i));
			/* a bump between two stretches at one level is noise */
			if (m > 0 && abs_d(lat_ln(lvl / out[m - 1].ns)) <= tol) {
				out[m - 1].last = j - 1;
			} else if (m < maxout) {
				out[m++] = (struct lat_flat){i, j - 1, lvl, 0, 0, 0};
			}
		}
		i = j;
	}
	m = lat_climbing(bytes, ns, s, n, out, m, maxout);
	/* Past LAT_SIZE_AGREE times the largest reported cache no cache
	 * holds the chase: a tail that left the last stretch and has not
	 * flattened is memory still rising, read from its last points. */
	if (mem_past > 0 && bytes[n - 1] >= mem_past && m > 0 && m < maxout &&
	    out[m - 1].last < n - 1) {
		int k, from = out[m - 1].last + 1;
		double top = s[from];
		for (k = from; k < n; k++)
			if (s[k] > top)
				top = s[k];
		if (top - lat_ln(out[m - 1].ns) >= lat_ln(LAT_LEVEL_JUMP)) {
			if (from < n - LAT_PLATEAU_MIN_PTS)
				from = n - LAT_PLATEAU_MIN_PTS;
			out[m++] = (struct lat_flat){
				from, n - 1, median(ns + from, (size_t)(n - from)), 0, 1, 0};
		}
	}
	/* The boundary: where the smoothed curve first climbs LAT_LEVEL_JUMP
	 * above the stretch before the next one (else the steepest rise
	 * there); noise barely moves it, nor does a gap in the sizes. */
	for (i = 0; i < m; i++) {
		int end = i + 1 < m ? out[i + 1].first : n - 1, k, at = -1, first = -1;
		double steepest = 0, top = s[out[i].last];
		double climb = lat_ln(out[i].ns) + lat_ln(LAT_LEVEL_JUMP);
		for (k = out[i].last; k < end; k++) {
			if (s[k + 1] - s[k] > steepest) {
				steepest = s[k + 1] - s[k];
				at = k;
			}
			if (first < 0 && s[k + 1] >= climb)
				first = k;
			if (s[k + 1] > top)
				top = s[k + 1];
		}
		if (first >= 0)
			at = first;
		/* After the last stretch, a few points drifting up are not a
		 * boundary; the curve must clearly leave the level. */
		if (i + 1 == m && top - lat_ln(out[i].ns) < lat_ln(LAT_LEVEL_JUMP))
			at = -1;
		out[i].boundary = at >= 0 ? lat_geomean(bytes[at], bytes[at + 1]) : 0;
	}
	free(s);
	free(rm.lo);
	free(rm.hi);
	return m;
}

/* The last-level cache from a uniform random chase: past a cache of C
 * the curve follows l(S) = l_C + (1 - C/S) (l_mem - l_C), l_mem the last
 * point.  Each size but the last two is tried as C; the best fit (least
 * squared relative error) wins; 0 under 4 points.  Meant for a sweep
 * that starts above L2 (harness/sweep-size --llc-from measured). */
static double lat_fit_llc(const double *bytes, const double *ns, int n)
{
	/* With a = 1/l and K = C (l_mem - l_C), a point's relative error is
	 * l_C a - 1 at or below C and l_mem a - 1 - K a/S above it: five
	 * running sums, one pass each way, give every candidate's error. */
	double best = -1, pick = 0, mem, *sum;
	double pa = 0, pa2 = 0;
	int c, i;
	if (n < 4)
		return 0;
	mem = ns[n - 1];
	sum = calloc((size_t)(n + 1) * 3, sizeof(*sum)); /* suffix sums */
	if (!sum)
		die("out of memory for the cache-size fit");
	for (i = n - 1; i >= 0; i--) {
		double a = 1 / ns[i], u = mem * a - 1, w = a / bytes[i];
		sum[3 * i] = sum[3 * (i + 1)] + u * u;
		sum[3 * i + 1] = sum[3 * (i + 1) + 1] + u * w;
		sum[3 * i + 2] = sum[3 * (i + 1) + 2] + w * w;
	}
	for (c = 0; c < n - 2; c++) {
		double a = 1 / ns[c], k = bytes[c] * (mem - ns[c]), err;
		pa += a;
		pa2 += a * a;
		err = ns[c] * ns[c] * pa2 - 2 * ns[c] * pa + (c + 1) +
		      sum[3 * (c + 1)] - 2 * k * sum[3 * (c + 1) + 1] +
		      k * k * sum[3 * (c + 1) + 2];
		if (best < 0 || err < best) {
			best = err;
			pick = bytes[c];
		}
	}
	free(sum);
	return pick;
}

/* What the analysis knows beside the curve: its machine's data caches
 * (L1d first) and line, its chase, and its TLBs. */
struct lat_ctx {
	int ncaches;
	unsigned long long cache[LAT_MAX_LEVELS];
	int line;                 /* bytes; 0: unknown */
	enum lat_pattern pattern;
	int tlb_known;            /* TLBs measured (probes) or named (--tlb) */
	int ntlb;
	double reach[LAT_MAX_LEVELS], page; /* bytes each TLB, each page holds */
	int all_caches;           /* cache[] is the OS's whole list */
	unsigned unnumbered;      /* levels (bit i: level[i]) named after the
				   * one below, L2+, not numbered */
};

static void lat_ctx_from_system(struct lat_ctx *c, const struct system_info *si,
				enum lat_pattern pattern, double base_page)
{
	int lvl, top = si->caches_fake ? 0 : reported_levels(si);
	memset(c, 0, sizeof(*c));
	for (lvl = 1; lvl <= top && c->ncaches < LAT_MAX_LEVELS; lvl++)
		if (reported_cache(si, lvl))
			c->cache[c->ncaches++] = reported_cache(si, lvl);
	c->line = reported_line(si);
	c->pattern = pattern;
	c->page = base_page;
	c->all_caches = c->ncaches > 0;
}

/* The median distance between neighbouring sizes, in octaves. */
static double lat_median_gap(const double *bytes, int n)
{
	double *g, med;
	int i;
	if (n < 2)
		return HUGE_VAL;
	g = malloc((size_t)(n - 1) * sizeof(*g));
	if (!g)
		die("out of memory for the summary");
	for (i = 0; i + 1 < n; i++)
		g[i] = lat_octaves(bytes[i], bytes[i + 1]);
	med = median(g, (size_t)(n - 1));
	free(g);
	return med;
}

/* One level of the summary from flat stretches a..b (b - a steps). */
static void lat_level_fill(struct lat_level *lv, const struct lat_flat *fl,
			   int a, int b, const double *bytes)
{
	lv->ns = fl[a].ns;
	lv->from = bytes[fl[a].first];
	lv->to = bytes[fl[b].last];
	lv->boundary = fl[b].boundary;
	lv->climbing = fl[a].climbing;
	/* steps beyond LAT_MAX_STEPS: the last ones are kept, the largest
	 * footprints' latency */
	for (lv->nsteps = 0; lv->nsteps < b - a && lv->nsteps < LAT_MAX_STEPS;
	     lv->nsteps++) {
		int f = b - a > LAT_MAX_STEPS ? b - LAT_MAX_STEPS + 1 + lv->nsteps
					      : a + 1 + lv->nsteps;
		lv->step_at[lv->nsteps] = bytes[fl[f].first];
		lv->step_ns[lv->nsteps] = fl[f].ns;
	}
}

/* Whether a level leaving at `at` bytes agrees with a cache of c. */
static int lat_agrees(double at, double c)
{
	return c > 0 && at >= c / LAT_SIZE_AGREE && at <= c * LAT_SIZE_AGREE;
}

/* Whether a rise at `at` bytes lies where a TLB's reach could: at one
 * named (--tlb), or with no TLB known, in the range TLBs reach. */
static int lat_tlb_could(const struct lat_ctx *ctx, double at)
{
	int t = 0;
	while (t < ctx->ntlb && !lat_agrees(at, ctx->reach[t]))
		t++;
	return t < ctx->ntlb || (!ctx->tlb_known &&
		at >= LAT_TLB_MIN_ENTRIES * ctx->page / LAT_SIZE_AGREE &&
		at <= LAT_TLB_MAX_ENTRIES * ctx->page * LAT_SIZE_AGREE);
}

/* The last stretch of the level that starts with stretch i (of those
 * below b), to be matched with the reported cache of next bytes (0: none
 * reported): the stretches after i less than LAT_LEVEL_JUMP slower, and
 * with tlb, rises at a named TLB's reach; a rise where next ends is its
 * edge however small, unless the stretch after it would join and ends
 * nearer next (a gradual edge read as two small rises). */
static int lat_level_end(const struct lat_flat *fl, int i, int b, double next,
			 const struct lat_ctx *tlb)
{
	int j = i;
	while (j + 1 < b &&
	       (!lat_agrees(fl[j].boundary, next) ||
		abs_d(lat_ln(fl[j + 1].boundary / next)) <
			abs_d(lat_ln(fl[j].boundary / next))) &&
	       (fl[j + 1].ns < fl[i].ns * LAT_LEVEL_JUMP ||
		(tlb && tlb->ntlb && lat_tlb_could(tlb, fl[j].boundary))))
		j++;
	return j;
}

/* Whether the rise after stretch k is a reported cache's edge, not a
 * step of memory: the first rise agreeing with a reported cache, after
 * stretches of one level starting less than LAT_DRAM_STEP above the
 * level before (a prefetched chase squeezes caches and memory so). */
static int lat_cache_edge(const struct lat_flat *fl, int k,
			  const struct lat_ctx *ctx)
{
	int t, c = 0, p = -1, claim = -1;
	for (t = 0; t <= k; t++) {
		int cc;
		for (cc = c; cc < ctx->ncaches; cc++)
			if (lat_agrees(fl[t].boundary, (double)ctx->cache[cc]))
				break;
		if (cc < ctx->ncaches) {
			c = cc + 1;
			if (t < k)
				p = t;
			else
				claim = cc;
		}
	}
	if (claim < 0 || p < 0 || !(fl[p + 1].ns < fl[p].ns * LAT_DRAM_STEP))
		return 0;
	for (t = p + 2; t <= k; t++)
		if (!(fl[t].ns < fl[p + 1].ns * LAT_LEVEL_JUMP))
			return 0;
	return 1;
}

/* Where a level whose rise was read as a climbing stretch, no level of
 * its own (lat_renumber), ends: where half the chase's loads still hit
 * it, the latency halfway from its last stretch j to stretch h, the next
 * flat one; a cache whose sets fill unevenly (4 KiB frames) empties by
 * degrees.  Its boundary, where nothing climbs out of it. */
static double lat_half_hit(const struct lat_flat *fl, int j, int h,
			   const double *bytes, const double *ns)
{
	double mid = (fl[j].ns + fl[h].ns) / 2;
	int k;
	for (k = fl[j].last; k + 2 <= fl[h].first; k++)
		if (lat_median3(ns[k], ns[k + 1], ns[k + 2]) >= mid)
			return lat_geomean(bytes[k], bytes[k + 1]);
	return fl[j].boundary;
}

/* Cache levels from stretches a..b-1 (of m), named in order, each
 * matched with the next reported cache within LAT_SIZE_AGREE of its
 * edge.  seen[k]: cache k was matched (1), or said to disagree with the
 * level of its number (-1); *matched: the first cache not yet passed. */
static void lat_caches(const struct lat_flat *fl, int a, int b, int m,
		       const double *bytes, const double *ns,
		       const struct lat_ctx *ctx, struct lat_summary *sum,
		       int *seen, int *matched)
{
	char b1[32], b2[32];
	int i, j, k, num, h;
	for (i = a; i < b && sum->nlevels < LAT_MAX_LEVELS; i = j + 1) {
		struct lat_level *lv = &sum->level[sum->nlevels++];
		/* the cache this level is to match, when the OS reports one:
		 * a rise at a named TLB's reach is a step inside it when the
		 * level then leaves where that cache ends */
		double next = *matched < ctx->ncaches ? (double)ctx->cache[*matched] : 0;
		j = lat_level_end(fl, i, b, next, ctx);
		if (next > 0 && !lat_agrees(fl[j].boundary, next))
			j = lat_level_end(fl, i, b, next, NULL);
		lat_level_fill(lv, fl, i, j, bytes);
		/* the next number; or none (lat_renumber): the one below's, L2+ */
		for (k = num = 0; k + 1 < sum->nlevels; k++)
			num += sum->level[k].number > 0;
		lv->number = ctx->unnumbered >> (sum->nlevels - 1) & 1 ? 0 : ++num;
		snprintf(lv->name, sizeof(lv->name), "L%d%s%s", num, num == 1 ?
			 "d" : "", lv->number ? "" : "+");
		for (h = j + 1; h < m && fl[h].climbing; h++)
			;
		if (lv->number && h > j + 1 && h < m &&
		    ctx->unnumbered >> sum->nlevels & 1)
			lv->boundary = lat_half_hit(fl, j, h, bytes, ns);
		lv->agrees = -1;
		for (k = *matched; lv->boundary > 0 && k < ctx->ncaches; k++)
			if (lat_agrees(lv->boundary, (double)ctx->cache[k]))
				break;
		if (lv->boundary > 0 && k < ctx->ncaches) {
			lv->os_bytes = ctx->cache[k];
			lv->agrees = 1;
			seen[k] = 1;
			*matched = k + 1;
		} else if (lv->boundary > 0 && lv->number > 0 &&
			   lv->number <= ctx->ncaches) {
			lv->os_bytes = ctx->cache[lv->number - 1];
			lv->agrees = 0;
			if (!seen[lv->number - 1]) /* said here, not again */
				seen[lv->number - 1] = -1;
			format_bytes(b1, sizeof(b1), (unsigned long long)lv->boundary);
			format_bytes(b2, sizeof(b2), lv->os_bytes);
			lat_note(sum, "%s: the curve leaves this level at %s but the OS "
				 "reports %s", lv->name, b1, b2);
		}
		if ((lv->tlb_doubt = lv->boundary > 0 && lv->agrees != 1 &&
				     lat_tlb_could(ctx, lv->boundary)))
			lat_note(sum, "%s? could be a TLB's reach, not a cache: its "
				 "edge is where %s %.0f-byte pages run out", lv->name,
				 ctx->ntlb ? "a known TLB (measured, or --tlb), of" : "a TLB of "
				 XSTR(LAT_TLB_MIN_ENTRIES) "-" XSTR(LAT_TLB_MAX_ENTRIES),
				 ctx->page);
	}
}

/* Whether a sequential chase that starts at `first` ns (0: no first
 * level) and ends at `end` ns never waited for memory: it ends less than
 * LAT_DRAM_RATIO times above its start, so the prefetcher streamed it or
 * loads shared each line's miss. */
static int lat_streamed(const struct lat_ctx *ctx, double first, double end)
{
	return ctx->pattern == P_STRIDE && first > 0 && end < LAT_DRAM_RATIO * first;
}

/* Whether the curve is one no level can be read from: too sparse, with
 * no flat stretch, or a sequential chase the prefetcher streamed; the
 * note that says so is added. */
static int lat_unreadable(const double *bytes, const double *ns, int n,
			  size_t stride, const struct lat_ctx *ctx,
			  const struct lat_flat *fl, int m, struct lat_summary *sum)
{
	int line = ctx->line > 0 ? ctx->line : 64;
	int below = stride > 0 && stride < (size_t)line;
	double gap = lat_median_gap(bytes, n);
	char b1[32], b2[32];

	if (n < LAT_SPARSE_MIN_PTS || gap >= LAT_SPARSE_GAP) {
		format_bytes(b1, sizeof(b1), (unsigned long long)bytes[0]);
		format_bytes(b2, sizeof(b2), (unsigned long long)bytes[n - 1]);
		if (n < LAT_SPARSE_MIN_PTS)
			lat_note(sum, "too sparse to name levels: %d point%s from %s "
				 "to %s (levels need %d)", n, n == 1 ? "" : "s", b1,
				 b2, LAT_SPARSE_MIN_PTS);
		else
			lat_note(sum, "too sparse to name levels: %d points from %s "
				 "to %s, a median of %.2g octaves apart (levels need "
				 "points under %.2g octaves apart)", n, b1, b2, gap,
				 LAT_SPARSE_GAP);
		return 1;
	}
	if (m == 0) {
		lat_note(sum, "no plateau found: the curve has no flat stretch of %d "
			 "points over %.2g octaves", LAT_PLATEAU_MIN_PTS,
			 LAT_PLATEAU_MIN_OCT);
		return 1;
	}
	/* A sequential chase shorter than a line reads each line several
	 * times; if even scaled by that the end is not far above the start,
	 * the prefetcher streamed every level and none can be named.  So
	 * with a longer stride, when no cache sizes say where its rises
	 * are: a prefetcher that streams a line-stride chase hides L2 and
	 * L3 alike (1.1 ns to 3 MiB on the AMD Zen 5 guest, which reports
	 * no caches), and its first rise is not the L1d's edge. */
	if (stride > 0 && (below || ctx->ncaches == 0) &&
	    lat_streamed(ctx, fl[0].ns,
			 ns[n - 1] * (below ? (double)line / (double)stride : 1.0))) {
		if (below)
			lat_note(sum, "the prefetcher hides the levels: a sequential "
				 "chase with stride %zu, below the %d-byte line, rises "
				 "from %.3g to only %.3g ns; use --pattern random",
				 stride, line, fl[0].ns, ns[n - 1]);
		else
			lat_note(sum, "the prefetcher hides the levels: a sequential "
				 "chase with stride %zu rises from %.3g to only %.3g ns, "
				 "and no cache sizes say where its levels end; use "
				 "--pattern random", stride, fl[0].ns, ns[n - 1]);
		return 1;
	}
	return 0;
}

/* The notes under memory's level lv, after `caches` cache levels: still
 * rising, reported caches with no plateau (seen[k]: cache k matched or
 * already said), a sequential chase that never waited for memory, memory
 * inside the LLC. */
static void lat_dram_notes(const struct lat_level *lv, const struct lat_flat *fl,
			   int m, const double *bytes, int n,
			   const struct lat_ctx *ctx, int caches, const int *seen,
			   struct lat_summary *sum)
{
	unsigned long long llc = ctx->ncaches ? ctx->cache[ctx->ncaches - 1] : 0;
	double end = lv->nsteps ? lv->step_ns[lv->nsteps - 1] : lv->ns;
	char b1[32], b2[32];
	int i;

	if (fl[m - 1].rising) {
		format_bytes(b1, sizeof(b1), (unsigned long long)bytes[fl[m - 1].first]);
		format_bytes(b2, sizeof(b2), llc);
		lat_note(sum, "DRAM still rising: the sweep reaches %.3g times "
			 "the OS-reported last-level cache of %s and the curve has "
			 "not flattened, so DRAM's figure is its last points', from %s",
			 bytes[n - 1] / (double)llc, b2, b1);
	}
	/* A reported cache no level matched, whose size the sweep covered:
	 * the curve shows no plateau for it (a VM's share of a host's L3, a
	 * partitioned cache).  Said, not guessed at. */
	for (i = 0; i < ctx->ncaches; i++)
		if (!seen[i]) {
			format_bytes(b2, sizeof(b2), ctx->cache[i]);
			lat_note(sum, "the OS reports L%d %s but the curve shows "
				 "no plateau for it", i + 1, b2);
		}
	if (lat_streamed(ctx, caches ? sum->level[0].ns : 0, end))
		lat_note(sum, "memory's latency is hidden: this sequential "
			 "chase's DRAM reads %.3g ns, %.2g times its L1d (a "
			 "chase that waits for memory reads %.3g times or more); "
			 "use --pattern random", end, end / sum->level[0].ns,
			 LAT_DRAM_RATIO);
	if (llc && lv->from < (double)llc / LAT_SIZE_AGREE) {
		format_bytes(b1, sizeof(b1), (unsigned long long)lv->from);
		format_bytes(b2, sizeof(b2), llc);
		lat_note(sum, "DRAM latency is reached at %s, inside the "
			 "OS-reported last-level cache of %s", b1, b2);
	}
}

/* The curve's tail, the summary's last figure: the median of its last
 * LAT_TAIL_PTS points (fewer on a shorter curve). */
static void lat_tail(const double *bytes, const double *ns, int n,
		     struct lat_summary *sum)
{
	int k = n < LAT_TAIL_PTS ? n : LAT_TAIL_PTS;
	if (k < 1)
		return;
	sum->tail_pts = k;
	sum->tail_ns = median(ns + n - k, (size_t)k);
	sum->tail_bytes = bytes[n - 1];
	sum->tail_from = bytes[n - k];
}

/* Read one stride's curve: its flat stretches become levels, memory is
 * the level the curve ends on (see LAT_DRAM_STEP), the levels before it
 * are caches named in order and set beside the OS-reported sizes.  fit:
 * the curve is a uniform random chase, so lat_fit_llc() applies. */
static void lat_analyse(const double *bytes, const double *ns, int n,
			size_t stride, const struct lat_ctx *ctx, int fit,
			struct lat_summary *sum)
{
	struct lat_flat fl[LAT_MAX_LEVELS * LAT_MAX_STEPS];
	unsigned long long llc = ctx->ncaches ? ctx->cache[ctx->ncaches - 1] : 0;
	int m = lat_find_flats(bytes, ns, n, (double)llc * LAT_SIZE_AGREE, fl,
			       LAT_MAX_LEVELS * LAT_MAX_STEPS);
	int d, caches, dram = 0, matched = 0, seen[LAT_MAX_LEVELS] = {0};
	char b1[32];

	memset(sum, 0, sizeof(*sum));
	sum->stride = stride;
	sum->ncaches = ctx->ncaches;
	memcpy(sum->cache, ctx->cache, sizeof(sum->cache));
	sum->llc_fit = fit ? lat_fit_llc(bytes, ns, n) : 0;
	lat_tail(bytes, ns, n, sum);
	if (lat_unreadable(bytes, ns, n, stride, ctx, fl, m, sum))
		return;
	/* Memory: the stretch the curve ends on, and the steps before it. */
	d = m - 1;
	while (d > 0 && fl[d].ns < fl[d - 1].ns * LAT_DRAM_STEP &&
	       fl[m - 1].ns < fl[d - 1].ns * LAT_DRAM_SPAN &&
	       !lat_cache_edge(fl, d - 1, ctx))
		d--;
	/* The caches: the stretches below it, grouped into levels. */
	lat_caches(fl, 0, d, m, bytes, ns, ctx, sum, seen, &matched);
	if (fl[m - 1].boundary == 0 && d > 0 &&
	    ((llc && bytes[n - 1] >= (double)llc * LAT_SIZE_AGREE) ||
	     (ctx->ncaches && sum->nlevels >= ctx->ncaches) ||
	     fl[d].ns >= LAT_DRAM_RATIO * fl[0].ns))
		dram = 1;
	else /* the sweep ends in a cache: it is one more level */
		lat_caches(fl, d, m, m, bytes, ns, ctx, sum, seen, &matched);
	caches = sum->nlevels;
	if (!dram) {
		format_bytes(b1, sizeof(b1), (unsigned long long)bytes[n - 1]);
		lat_note(sum, "DRAM not reached: the sweep ends at %s, at %.3g ns "
			 "(raise --max%s)", b1, ns[n - 1],
			 lat_streamed(ctx, caches ? sum->level[0].ns : 0, ns[n - 1])
			 ? "; or the prefetcher streams this sequential chase: "
			   "use --pattern random" : "");
		return;
	}
	if (sum->nlevels < LAT_MAX_LEVELS) {
		struct lat_level *lv = &sum->level[sum->nlevels++];
		lat_level_fill(lv, fl, d, m - 1, bytes);
		strcpy(lv->name, "DRAM");
		lv->agrees = -1;
		lat_dram_notes(lv, fl, m, bytes, n, ctx, caches, seen, sum);
	}
}

/* The level of `a` nearest in edge to level i of `b` (log size); -1
 * where neither leaves a level at all. */
static int lat_nearest_edge(const struct lat_summary *a,
			    const struct lat_summary *b, int i)
{
	double best = HUGE_VAL, d;
	int j, at = -1;
	for (j = 0; j < a->nlevels; j++)
		if (a->level[j].boundary > 0 && b->level[i].boundary > 0 &&
		    (d = abs_d(lat_ln(a->level[j].boundary / b->level[i].boundary))) < best) {
			best = d;
			at = j;
		}
	return at;
}

/* The level of a resampled reading re that names sum's level i alike,
 * whatever its number: the nearest in edge, within LAT_SIZE_AGREE, to
 * which level i is the nearest of sum's; for the level the curve ends
 * in, the one re ends in, memory for memory.  -1: none. */
static int lat_level_alike(const struct lat_summary *re,
			   const struct lat_summary *sum, int i)
{
	const struct lat_level *lv = &sum->level[i];
	int j = re->nlevels - 1;
	if (lv->boundary == 0)
		return j >= 0 && re->level[j].boundary == 0 &&
		       (strcmp(re->level[j].name, "DRAM") == 0) ==
		       (strcmp(lv->name, "DRAM") == 0) ? j : -1;
	j = lat_nearest_edge(re, sum, i);
	return j >= 0 && lat_agrees(re->level[j].boundary, lv->boundary) &&
	       lat_nearest_edge(sum, re, j) == i ? j : -1;
}

/* Name the levels again, once it is known how sure the reading is of
 * each: a level ending near the one below (the middle of an edge) takes
 * no number (L2+) under one the reading is certain of, so it cannot
 * make the real L3 an L4; and no more are numbered than the OS reports
 * caches, from the top those that matched none, climbing ones first (a
 * climbing stretch may be the rise out of a cache, a flat one cannot).
 * The curve is read again with those names: the same levels. */
static void lat_renumber(const double *bytes, const double *ns, int n,
			 size_t stride, const struct lat_ctx *ctx, int fit,
			 struct lat_summary *sum)
{
	struct lat_ctx named = *ctx;
	struct lat_summary *again;
	int i, top = 0, unsure, above = 0, numbered, pass;
	while (top < sum->nlevels && sum->level[top].number > 0)
		top++;
	numbered = top;
	for (i = top - 1; i > 0; above |= !unsure && !sum->level[i].tlb_doubt, i--) {
		const struct lat_level *lv = &sum->level[i];
		unsure = (lv->confidence >= 0 && lv->confidence < LAT_CERTAIN) ||
			 lv->near_below;
		if (lv->near_below && above) {
			named.unnumbered |= 1u << i;
			numbered--;
		}
	}
	for (pass = 0; pass < 2; pass++)
		for (i = top - 1; i > 0 && ctx->all_caches && numbered > ctx->ncaches; i--)
			if (!(named.unnumbered >> i & 1) && sum->level[i].agrees != 1 &&
			    (pass || sum->level[i].climbing)) {
				named.unnumbered |= 1u << i;
				numbered--;
			}
	if (!named.unnumbered || !(again = malloc(sizeof(*again))))
		return;
	lat_analyse(bytes, ns, n, stride, &named, fit, again);
	for (i = 0; i < again->nlevels && again->nlevels == sum->nlevels; i++) {
		again->level[i].confidence = sum->level[i].confidence;
		again->level[i].near_below = sum->level[i].near_below;
		again->level[i].extra = named.unnumbered >> i & 1;
	}
	if (again->nlevels == sum->nlevels)
		*sum = *again;
	free(again);
}

/* Read one stride's curve (lat_analyse), then read it again
 * LAT_RESAMPLES times with its own noise drawn afresh, and set each
 * level's confidence: the share of those readings that name a level
 * alike, the same name with its edge within LAT_SIZE_AGREE (or, for the
 * level the curve ends in, none).  An uncertain level gets a note. */
static void lat_read_curve(const double *bytes, const double *ns, int n,
			   size_t stride, const struct lat_ctx *ctx, int fit,
			   struct lat_summary *sum)
{
	struct lat_summary *re;
	double *y, *s, *r, *alt, lo[LAT_MAX_LEVELS], hi[LAT_MAX_LEVELS];
	uint64_t state = LAT_SEED ^ 0x9e3779b97f4a7c15ULL;
	int hits[LAT_MAX_LEVELS] = {0}, i, k, j;
	char b1[96], b2[32], b3[32];

	lat_analyse(bytes, ns, n, stride, ctx, fit, sum);
	for (i = 0; i < sum->nlevels; i++)
		sum->level[i].confidence = -1;
	if (sum->nlevels == 0 || n < 3 || n > LAT_RESAMPLE_MAX_PTS)
		return;
	re = malloc(sizeof(*re));
	y = malloc((size_t)n * 4 * sizeof(*y));
	if (!re || !y)
		die("out of memory for the summary");
	s = y + n;
	r = s + n;
	alt = r + n;
	for (i = 0; i < n; i++)
		y[i] = lat_ln(ns[i] > 1e-6 ? ns[i] : 1e-6);
	/* the smoothed curve (a median of three, as the detector smooths)
	 * and each point's residual from it */
	for (i = 0; i < n; i++) {
		int c = i == 0 ? 1 : i == n - 1 ? n - 2 : i; /* the ends: their three */
		s[i] = lat_median3(y[c - 1], y[c], y[c + 1]);
		r[i] = y[i] - s[i];
	}
	/* each level's edge across those readings, lo[i] to hi[i] */
	for (i = 0; i < sum->nlevels; i++)
		lo[i] = hi[i] = sum->level[i].boundary;
	for (k = 0; k < LAT_RESAMPLES; k++) {
		for (i = 0; i < n; i++)
			alt[i] = lat_exp(s[i] + r[lat_random(&state) % (uint64_t)n]);
		lat_analyse(bytes, alt, n, stride, ctx, 0, re);
		for (i = 0; i < sum->nlevels; i++) {
			struct lat_level *lv = &sum->level[i];
			if ((j = lat_level_alike(re, sum, i)) < 0)
				continue;
			if (re->level[j].boundary > 0) {
				if (re->level[j].boundary < lo[i] || lo[i] == 0)
					lo[i] = re->level[j].boundary;
				if (re->level[j].boundary > hi[i])
					hi[i] = re->level[j].boundary;
			}
			if (lv->boundary > 0 ? lat_agrees(re->level[j].boundary, lv->boundary)
					     : re->level[j].boundary == 0)
				hits[i]++;
		}
	}
	for (i = 0; i < sum->nlevels; i++) {
		struct lat_level *lv = &sum->level[i];
		lv->confidence = (double)hits[i] / LAT_RESAMPLES;
		/* no cache is less than twice the one below it: a cache that
		 * ends that near is the one below leaving by degrees (an L3
		 * shared with other tenants, its far slices), not a level */
		lv->near_below = i > 0 && i < sum->nlevels - 1 &&
				 lv->boundary < LAT_SIZE_AGREE * lv[-1].boundary;
	}
	lat_renumber(bytes, ns, n, stride, ctx, fit, sum);
	for (i = 0; i < sum->nlevels; i++) {
		struct lat_level *lv = &sum->level[i];
		if (lv->near_below)
			lat_note(sum, "%s? is uncertain: it ends within %.0f "
				 "times of where %s ends, and no cache is that "
				 "near the one below", lv->name, LAT_SIZE_AGREE,
				 lv[-1].name);
		else if (lv->extra && lv->confidence >= LAT_CERTAIN && !lv->tlb_doubt)
			lat_note(sum, "%s? is no cache of its own: the OS reports %d "
				 "data caches, and it matched none of them", lv->name,
				 ctx->ncaches);
		if (lv->confidence >= LAT_CERTAIN)
			continue;
		b1[0] = '\0';
		if (lo[i] > 0 && hi[i] > lo[i]) {
			format_bytes(b2, sizeof(b2), (unsigned long long)lo[i]);
			format_bytes(b3, sizeof(b3), (unsigned long long)hi[i]);
			snprintf(b1, sizeof(b1), " (its edge in them from %s to %s)",
				 b2, b3);
		}
		lat_note(sum, "%s? is uncertain: %d of %d readings of this curve "
			 "with its own point-to-point noise drawn afresh name "
			 "it alike%s", lv->name, hits[i], LAT_RESAMPLES, b1);
	}
	free(y);
	free(re);
}

/* ======================================================================
 * 18 Load and MLP: latency under load, memory-level parallelism.
 * ====================================================================== */

struct lat_mlp_row {
	int chains;
	double ns_per_load;
	double parallelism;
};

/* One row of the loaded-latency test: a mix at one delay, or its idle
 * row (the chase alone, no load thread running). */
struct lat_loaded_row {
	int mix;      /* index into options.rw */
	int idle;
	long delay;   /* idle-loop turns per chunk; unused when idle */
	int threads;  /* load threads that ran: 0 for the idle row */
	double ns;    /* median of the chase's windows */
	double ns_min; /* and their minimum */
	double load_mbs; /* bytes the load threads moved / their time */
	unsigned long long load_bytes; /* ... while the chase was timed */
	double seconds;                /* ... and that time */
	int windows;
};

/* Where one mix's latency reaches twice its idle value, by linear
 * interpolation between the two rows (in order of rising load) that
 * straddle it. */
struct lat_loaded_curve {
	size_t chunk_bytes; /* what a load thread moves between its delays */
	double idle_ns;
	int loaded_rows; /* rows whose load threads moved data */
	int doubles;
	double double_mbs;
	long delay_lo, delay_hi; /* the delays straddling it (-1: idle) */
};

#define LAT_LOADED_ROWS (LAT_MAX_RW * (LAT_MAX_DELAYS + 1))

/* --load-threads N runs N + 1 threads, the chase and N loads, each meant
 * to have a CPU of its own: when bench may run on fewer CPUs, or a CPU
 * quota gives it the time of fewer, threads take turns and the chase
 * times the turns, not the memory.  Say so once, before anything is
 * measured (a run may still want it: a loaded curve on a small VM is
 * better than none); above the quota the run is marked, as -t's is. */
static int lat_load_over_quota;

static void lat_load_check_cpus(const struct options *o)
{
	static int checked;
	int cpus[MAX_THREADS], n;
	char who[48];
	if (checked || o->load_threads <= 0 || o->curve_in)
		return;
	checked = 1;
	snprintf(who, sizeof(who), "--load-threads %d: ", o->load_threads);
	lat_load_over_quota = quota_over(o->load_threads + 1, who);
	n = allowed_cpus(cpus, MAX_THREADS);
	if (n <= 0)
		n = (int)os_cpus_online();
	if (n == 1)
		warn("--load-threads %d: only one CPU is allowed, so the load "
		     "threads share it with the chase", o->load_threads);
	else if (n > 1 && o->load_threads > n - 1)
		warn("--load-threads %d: only %d CPUs besides the chase's are "
		     "allowed, so load threads share CPUs", o->load_threads, n - 1);
}

/* A TLB level from the line-a-page probe: its reach (where the probe
 * leaves the level), entries = reach / page, and what a miss in it adds
 * (the next level's excess over this one's). */
struct lat_tlb {
	double entries, reach, miss_ns, confidence;
	int doubt; /* its reading is uncertain (confidence < LAT_CERTAIN) */
};

/* The probes beside the first stride of a random sweep (LAT_LOCAL_PAGES,
 * LAT_TLB_FIRST_PAGES), their readings, and memory's two figures. */
struct lat_probe {
	int ran;
	char why[240];                 /* when not: why, said once */
	double page;                   /* bytes of the pages they crossed */
	double window;                 /* bytes of a TLB-local window */
	char lpage_why[160];           /* why no line-a-page chase ("": it ran) */
	double seen;                   /* pages its largest point crossed */
	struct lat_point *local;       /* TLB-local, at sweep sizes */
	struct lat_point *lpage;       /* line-a-page; bytes: pages x page */
	double *excess;                /* lpage's ns beyond TLB-local's */
	int nlocal, nlpage, shared; /* shared: TLB-local points the sweep's */
	struct lat_summary full;       /* the full random curve, read */
	int ntlbs;
	struct lat_tlb tlb[LAT_MAX_LEVELS];
	double mem_ns;                 /* TLB-local's memory plateau's median */
	double mem_from;               /* where that plateau starts */
	int mem_pts;                   /* its points */
	double local_tail_ns, tail_ns; /* TLB-local's tail, the curve's */
	int mem_reached;               /* TLB-local's last level is DRAM */
	int retimed;                   /* re-timings on either side of falls */
	/* disturbed longer than its re-timings (lat_local_read): apart of
	 * its re-timed points read LAT_DISTURBED_APART from their first, and
	 * it still falls so from disturbed_lo to _hi */
	int apart, disturbed;
	double disturbed_lo, disturbed_hi;
	/* its window is more than half the L1 TLB it measured: memory's
	 * own latency is not TLB-local by bench's rule (LAT_LOCAL_PAGES) */
	int not_local;
	/* walks no TLB of its pages explains (lat_probe_hidden): the full
	 * chase's ns above memory's own at from..to, inside reach, where a
	 * TLB hit costs hit_ns; hidden 0: not seen */
	int hidden, hidden_pts;
	double hidden_ns, hidden_hit_ns, hidden_reach, hidden_from, hidden_to;
	/* the full random chase's tail reads faster than the TLB-local
	 * chase's by more than spread (lat_probe_agree): 1 */
	int disagree;
	double spread;
};

/* One latency run: the curve, its summaries, and what --chains and
 * --load-threads measured. */
struct lat_run {
	struct lat_probe probe;
	struct alloc_plan plan;
	struct lat_point *pts;
	int npts;
	double mhz, mhz_end;
	int clock_runs, clock_preempted; /* lat_measure_mhz's, at the start */
	const char *mhz_source;
	int cpu;
	struct region bufs[MAX_REGIONS]; /* the chase buffers (-P: several) */
	struct page_report pages;        /* of the first */
	struct phys_report phys;         /* of the first, with --placement */
	double elapsed;
	int unstable;
	double base_page;         /* bytes of the OS's base page */
	struct lat_summary *sums; /* one per stride */
	size_t mlp_bytes;
	int nmlp;
	struct lat_mlp_row mlp[LAT_MAX_CHAINS];
	int nloaded;
	struct lat_loaded_row loaded[LAT_LOADED_ROWS];
	struct lat_loaded_curve curves[LAT_MAX_RW];
	int load_shared; /* 1: with the chase, 2: among themselves */
	int chase_cpu;
	int load_cpu[MAX_THREADS];
	int load_threads_run;
	size_t load_bytes;
	struct region *load_arrays; /* one per load thread, from lat_prepare */
	double sweep_ns; /* the sweep's figure at the loaded test's size */
	int ncpus;            /* CPUs allowed before the chase was pinned */
	int cpus[MAX_THREADS];
};


#ifdef _OPENMP
/* The doubling point of each mix, from its rows (idle first, then the
 * delays largest first, which is the order of rising load). */
static void lat_loaded_curves(const struct options *o, struct lat_run *r)
{
	int m, i;
	for (m = 0; m < o->nrw; m++) {
		struct lat_loaded_curve *c = &r->curves[m];
		const struct lat_loaded_row *prev = NULL;
		size_t chunk = c->chunk_bytes;
		memset(c, 0, sizeof(*c));
		c->chunk_bytes = chunk;
		for (i = 0; i < r->nloaded; i++) {
			const struct lat_loaded_row *row = &r->loaded[i];
			/* a row whose load never ran is no point of the curve */
			if (row->mix != m || (!row->idle && row->load_bytes == 0))
				continue;
			c->loaded_rows += !row->idle;
			if (row->idle) {
				c->idle_ns = row->ns;
			} else if (prev && !c->doubles && c->idle_ns > 0 &&
				   row->ns >= 2 * c->idle_ns) {
				double f = (2 * c->idle_ns - prev->ns) /
					   (row->ns - prev->ns);
				c->doubles = 1;
				c->double_mbs = prev->load_mbs +
						f * (row->load_mbs - prev->load_mbs);
				c->delay_lo = prev->idle ? -1 : prev->delay;
				c->delay_hi = row->delay;
			}
			prev = row;
		}
	}
}

struct lat_counter {
	unsigned long long bytes;
	double sum; /* what the thread's reads of one row summed */
	char pad[CACHE_LINE - sizeof(unsigned long long) - sizeof(double)];
};
static int lat_stop;

/* What the load threads run: a read:write mix and a delay. */
struct lat_load {
	int threads;
	int reads, writes;
	long delay;
	size_t elems; /* of each thread's array */
	size_t sub;   /* elements per read or write block of a chunk */
	struct region *arrays;
	struct lat_counter *cnt;
	const int *cpu_of; /* CPU of thread t, t = 0 the chase; -1 unpinned */
};

/* What a load thread writes, where every element it has not written
 * holds 1 (lat_load_arrays), so what its reads sum and where its writes
 * landed can be checked against the bytes it counted (lat_load_verify). */
#define LAT_LOAD_MARK ((elem_t)2)

/* One load thread until lat_stop: each chunk reads `reads` blocks and
 * writes `writes` blocks, walking its array in order from its start,
 * then spins `delay` turns; the bytes moved are published after every
 * chunk, and what its reads summed when it stops. */
static double lat_load_thread(const struct lat_load *l, int t)
{
	elem_t *a = l->arrays[t - 1].data;
	size_t pos = 0, per_chunk = (size_t)(l->reads + l->writes) * l->sub;
	unsigned long long done, chunk_bytes = per_chunk * sizeof(elem_t);
	double s = 0;
	int stop = 0, k;
#pragma omp atomic read
	done = l->cnt[t].bytes;
	while (!stop) {
		if (pos + per_chunk > l->elems)
			pos = 0;
		for (k = 0; k < l->reads; k++, pos += l->sub)
			if (BENCH_LOAD_TEST != 1)
				s += k_read(a, NULL, NULL, 0, pos, pos + l->sub, 0);
		for (k = 0; k < l->writes; k++, pos += l->sub)
			if (BENCH_LOAD_TEST != 2)
				k_write(NULL, NULL, a, LAT_LOAD_MARK, pos,
					pos + l->sub, 0);
		done += chunk_bytes;
#pragma omp atomic write
		l->cnt[t].bytes = done;
		lat_spin(l->delay);
#pragma omp atomic read
		stop = lat_stop;
	}
	l->cnt[t].sum = s;
	return s;
}

/* After a row, with its load threads joined: each thread counted bytes
 * it really moved.  From its counter alone (from, its value before the
 * row), the chunks it did are known, and so what its reads must have
 * summed (every read element holds 1) and which write blocks must hold
 * LAT_LOAD_MARK (it walks from its array's start, wrapping after the
 * last whole chunk).  A thread that counted without reading or writing
 * would report bandwidth it never drew, and load the chase with
 * nothing: the run stops instead.  The write blocks get their 1 back,
 * so another mix's reads see 1 everywhere. */
static void lat_load_verify(const struct lat_load *l,
			    const unsigned long long *from)
{
	size_t per_chunk = (size_t)(l->reads + l->writes) * l->sub;
	size_t lap = per_chunk ? l->elems / per_chunk : 0, c, j;
	int t, w;
	for (t = 1; t <= l->threads; t++) {
		elem_t *a = l->arrays[t - 1].data;
		unsigned long long moved = l->cnt[t].bytes - from[t],
				   chunk = per_chunk * sizeof(elem_t),
				   n = chunk ? moved / chunk : 0;
		double want = (double)n * (double)l->reads * (double)l->sub;
		size_t missed = 0;
		if (!chunk || moved % chunk || l->cnt[t].sum != want)
			die("internal error: load thread %d counted %llu bytes, but "
			    "its reads summed %.17g where they must sum %.17g: the "
			    "row would report bytes it did not move", t, moved,
			    l->cnt[t].sum, want);
		for (c = 0; c < lap && c < n; c++)
			for (w = 0; w < l->writes; w++) {
				elem_t *b = a + c * per_chunk +
					    (size_t)(l->reads + w) * l->sub;
				for (j = 0; j < l->sub; j++) {
					missed += b[j] != LAT_LOAD_MARK;
					b[j] = (elem_t)1;
				}
			}
		if (missed)
			die("internal error: load thread %d counted %llu bytes, but "
			    "%zu of the elements they wrote hold no write: the row "
			    "would report bytes it did not move", t, moved, missed);
	}
}

/* One row: thread 0 warms and times the chase while l->threads load
 * threads run (none for the idle row).  Latency is the median of short
 * windows, not the minimum: the minimum would pick the moments the load
 * threads happened to pause, and the mean would count the times the
 * chase was preempted (short windows keep a preemption to one window).
 * The bandwidth is what the counters say the load threads moved while
 * the chase was timed. */
static void lat_loaded_row_run(const struct lat_load *l, void **head,
			       double hint_ns, struct lat_run *r,
			       struct lat_loaded_row *row)
{
	double t0 = 0, t1 = 0, chase_t = 0, keep = 0;
	double *per = malloc(LAT_LOADED_MAX_WINDOWS * sizeof(*per));
	unsigned long long b0 = 0, b1 = 0, *from = malloc(
		((size_t)l->threads + 1) * sizeof(*from));
	int nw = 0, got = l->threads + 1, k;

	if (!per || !from)
		die("out of memory for the loaded-latency windows");
	for (k = 1; k <= l->threads; k++)
		from[k] = l->cnt[k].bytes;
#pragma omp atomic write
	lat_stop = 0;
#pragma omp parallel num_threads(l->threads + 1) reduction(+ : keep)
	{
		int tid = omp_get_thread_num(), k;
		if (l->cpu_of[tid] >= 0)
			pin_to_cpu(l->cpu_of[tid]);
		if (tid == 0) {
			double warm;
			unsigned long long v;
			got = omp_get_num_threads();
			r->chase_cpu = current_cpu();
			warm = now();
			while (now() - warm < LAT_LOADED_WARM_NS * 1e-9)
				head[0] = lat_chase(head[0], 64);
			for (k = 1; k <= l->threads; k++) {
#pragma omp atomic read
				v = l->cnt[k].bytes;
				b0 += v;
			}
			t0 = now();
			while (chase_t < LAT_LOADED_NS * 1e-9 &&
			       nw < LAT_LOADED_MAX_WINDOWS) {
				size_t n = lat_window_loads(LAT_LOADED_WINDOW_NS,
							    hint_ns, 1);
				double w = lat_window(head, 1, n);
				chase_t += w;
				per[nw++] = 1e9 * w / (double)(n / LAT_UNROLL * LAT_UNROLL);
			}
			for (k = 1; k <= l->threads; k++) {
#pragma omp atomic read
				v = l->cnt[k].bytes;
				b1 += v;
			}
			t1 = now();
#pragma omp atomic write
			lat_stop = 1;
		} else {
			r->load_cpu[tid - 1] = current_cpu();
			keep += lat_load_thread(l, tid);
		}
	}
	if (got < l->threads + 1)
		die("--load-threads %d: the OpenMP runtime gave only %d threads",
		    l->threads, got);
	lat_load_verify(l, from);
	free(from);
	lat_sink = (uintptr_t)keep;
	row->threads = l->threads;
	row->ns = median(per, (size_t)nw);
	row->ns_min = per[0];
	for (k = 1; k < nw; k++)
		if (per[k] < row->ns_min)
			row->ns_min = per[k];
	row->windows = nw;
	row->load_bytes = b1 - b0;
	row->seconds = t1 - t0;
	row->load_mbs = 1e-6 * (double)row->load_bytes / row->seconds;
	free(per);
}

/* The loaded-latency test on the chain at head: per mix, an idle row,
 * then one row per delay.  The chase runs on the sweep's CPU (the first
 * allowed), the load threads on the other allowed CPUs, round-robin
 * when there are more threads than CPUs; they share the chase's CPU
 * only when it is the only one, and a warning says so. */
static void lat_loaded_run(const struct options *o, void *head,
			   struct lat_run *r)
{
	struct lat_load l;
	int nl = o->load_threads, ncpu = r->ncpus, m, d, i;
	int *cpu_of = malloc((size_t)(nl + 1) * sizeof(*cpu_of));
	double hint = r->pts[r->npts - 1].ns;
	void *h[1];

	memset(&l, 0, sizeof(l));
	l.arrays = r->load_arrays;
	l.cnt = calloc((size_t)nl + 1, sizeof(*l.cnt));
	if (!l.cnt || !cpu_of)
		die("out of memory for %d load threads", nl);
	l.elems = r->load_bytes / sizeof(elem_t);
	l.cpu_of = cpu_of;
	for (i = 0; i <= nl; i++)
		cpu_of[i] = ncpu == 0 ? -1
			    : i == 0 || ncpu == 1 ? r->cpus[0]
			    : r->cpus[1 + (i - 1) % (ncpu - 1)];
	r->load_shared = ncpu == 1 ? 1 : ncpu > 1 && nl > ncpu - 1 ? 2 : 0;
	/* lat_load_check_cpus() said so, before the curve was measured */
	r->load_threads_run = nl + 1;
	r->sweep_ns = hint;
	h[0] = head;
	for (m = 0; m < o->nrw; m++) {
		size_t parts = (size_t)(o->rw[m][0] + o->rw[m][1]);
		size_t sub = LAT_LOAD_CHUNK / sizeof(elem_t) / parts;
		/* whole cache lines, so a read and a write block never share one */
		sub -= sub % (CACHE_LINE / sizeof(elem_t) ? CACHE_LINE / sizeof(elem_t) : 1);
		if (sub == 0)
			sub = 1;
		if (sub * parts > l.elems)
			sub = l.elems / parts;
		l.sub = sub;
		r->curves[m].chunk_bytes = sub * parts * sizeof(elem_t);
		l.reads = o->rw[m][0];
		l.writes = o->rw[m][1];
		for (d = -1; d < o->ndelays; d++) {
			struct lat_loaded_row *row = &r->loaded[r->nloaded];
			memset(row, 0, sizeof(*row));
			row->mix = m;
			row->idle = d < 0;
			row->delay = d < 0 ? 0 : o->delays[d];
			l.threads = d < 0 ? 0 : nl;
			l.delay = row->delay;
			lat_loaded_row_run(&l, h, hint, r, row);
			r->nloaded++;
		}
	}
	lat_loaded_curves(o, r);
	free(l.cnt);
	free(cpu_of);
}
#endif

#ifdef _OPENMP
/* lat_mem_rd -P N: N chases at once, each pinned to its own CPU (as far
 * as there are CPUs) on its own buffer, as lmbench runs N copies; the
 * point is the median of their latencies. */
static void lat_parallel_point(const struct lat_run *r, struct lat_chain *cs,
			       size_t lines, struct lat_point *p)
{
	int n = r->plan.regions, got = n, stable = 1, repeats = 0, preempted = 0;
	double ns[MAX_REGIONS], loads = 0;
#pragma omp parallel num_threads(n) reduction(&& : stable) \
	reduction(+ : loads, repeats, preempted)
	{
		int t = omp_get_thread_num();
		struct lat_point mine = *p;
		void *heads[1];
		if (t == 0)
			got = omp_get_num_threads();
		if (r->ncpus > 0)
			pin_to_cpu(r->cpus[t % r->ncpus]);
		heads[0] = lat_chain_build(&cs[t], lines);
#pragma omp barrier
		lat_time_point(heads, 1, &mine, 0);
		ns[t] = mine.ns;
		stable = stable && mine.stable;
		loads += mine.loads;
		repeats += mine.repeats;
		preempted += mine.preempted; /* -1 each where unknown */
	}
	if (got < n)
		die("-P %d: the OpenMP runtime gave only %d threads", n, got);
	p->ns = median(ns, (size_t)n);
	p->stable = stable;
	p->loads = loads;
	p->repeats = repeats;
	p->preempted = preempted < 0 ? -1 : preempted;
}
#endif

/* --chains: ns per load with 1, 2, 4, ... and K chains over the
 * largest size; parallelism is latency(1) / ns per load(k). */
static void lat_mlp_run(const struct options *o, struct lat_chain *c,
			size_t lines, struct lat_run *r)
{
	void *heads[LAT_MAX_CHAINS];
	int k = 1;
	r->mlp_bytes = lines * c->stride;
	lat_chain_build(c, lines);
	for (;;) {
		struct lat_point pt;
		lat_chain_heads(c, lines, k, heads);
		lat_time_point(heads, k, &pt, 0);
		r->mlp[r->nmlp].chains = k;
		r->mlp[r->nmlp].ns_per_load = pt.ns;
		r->mlp[r->nmlp].parallelism = r->mlp[0].ns_per_load / pt.ns;
		r->nmlp++;
		if (k == o->chains)
			break;
		k = 2 * k < o->chains ? 2 * k : o->chains;
	}
}

/* ======================================================================
 * 19 Report (latency): lat_mem_rd's curve, printed as it is measured, then
 * '#' lines (which lmbench's graph scripts and gnuplot skip) with the
 * warnings and the summary.  The JSON carries the same run.
 * ====================================================================== */

/* Where the curve goes as it is measured: stdout with the text report
 * (not for `bench all`, which shows the summary alone), stderr as
 * lat_mem_rd writes it, or nowhere. */
static FILE *lat_curve_fp;
static int lat_curve_blank; /* a blank line closes each block */

static void lat_report_begin(const struct options *o, int summary_only)
{
	lat_curve_fp = o->lmrd ? stderr
		       : out.text && !summary_only ? stdout : NULL;
	lat_curve_blank = !o->lmrd || o->lmrd_blank;
}

static void lat_report_block(size_t stride)
{
	if (lat_curve_fp)
		fprintf(lat_curve_fp, "\"stride=%zu\n", stride);
}

static void lat_report_point(const struct lat_point *p)
{
	if (!lat_curve_fp)
		return;
	fprintf(lat_curve_fp, "%.5f %.3f\n",
		(double)p->bytes / (1024.0 * 1024.0), p->ns);
	fflush(lat_curve_fp);
}

static void lat_report_block_end(void)
{
	if (lat_curve_fp && lat_curve_blank)
		fprintf(lat_curve_fp, "\n");
}

/* Where the tail's points lie: the largest size when they are within
 * LAT_TAIL_OCT octaves of it, else the sizes they span. */
static void lat_tail_sizes(char *buf, size_t len, const struct lat_summary *s)
{
	char b1[32], b2[32], *u1, *u2;
	format_bytes(b2, sizeof(b2), (unsigned long long)s->tail_bytes);
	/* (sizes are whole strides, a hair under the geometric steps) */
	if (lat_octaves(s->tail_from, s->tail_bytes) <= LAT_TAIL_OCT + 1e-3) {
		snprintf(buf, len, "%s", b2);
		return;
	}
	format_bytes(b1, sizeof(b1), (unsigned long long)s->tail_from);
	u1 = strchr(b1, ' ');
	u2 = strchr(b2, ' ');
	if (u1 && u2 && strcmp(u1, u2) == 0) /* 128-512 MiB */
		*u1 = '\0';
	snprintf(buf, len, "%s-%s", b1, b2);
}

/* A level's mark: 1 certain, 0 not (resampled readings disagree, its
 * edge could be a TLB's reach, or its probe's curve fell across it), -1
 * not resampled. */
static int lat_level_certain(const struct lat_level *lv)
{
	if (lv->tlb_doubt || lv->near_below || lv->disturbed || lv->extra)
		return 0;
	return lv->confidence < 0 ? -1 : lv->confidence >= LAT_CERTAIN;
}

/* What measured level a rise of the full random curve at `at` bytes is:
 * the cache level or TLB reach nearest it within LAT_SIZE_AGREE. */
static void lat_rise_cause(const struct lat_summary *s,
			   const struct lat_probe *pr, double at, char *buf,
			   size_t len)
{
	double best = lat_ln(LAT_SIZE_AGREE) + 1e-9, d;
	int i;
	snprintf(buf, len, "no measured level");
	for (i = 0; i < s->nlevels; i++)
		if (s->level[i].boundary > 0 &&
		    (d = abs_d(lat_ln(at / s->level[i].boundary))) < best) {
			best = d;
			snprintf(buf, len, "%s's edge", s->level[i].name);
		}
	for (i = 0; i < pr->ntlbs; i++)
		if ((d = abs_d(lat_ln(at / pr->tlb[i].reach))) < best) {
			best = d;
			snprintf(buf, len, "L%d TLB's reach", i + 1);
		}
}

/* The summary's other two parts (TLBs, memory) and what explains each
 * rise of the full random curve; or, where the probes did not run, why
 * (once). */
static void lat_print_probe(const struct lat_summary *s,
			    const struct lat_probe *pr, double mhz)
{
	char b[32], b2[32], why[48];
	int i, k;
	if (!pr->ran) {
		if (pr->why[0])
			printf("# stride=%zu: caches and TLBs not measured apart (%s): "
			       "the levels are this curve's, and one whose "
			       "edge could be a TLB's reach is marked ?\n", s->stride,
			       pr->why);
		return;
	}
	format_bytes(b, sizeof(b), (unsigned long long)pr->page);
	if (!pr->nlpage) {
		printf("# stride=%zu: TLBs of its %s pages: not measured (%s)\n",
		       s->stride, b, pr->lpage_why);
	} else {
		format_bytes(b2, sizeof(b2), (unsigned long long)(pr->seen * pr->page));
		printf("# stride=%zu: TLBs (a line a page, %s pages, seen to %.0f of "
		       "them, %s):", s->stride, b, pr->seen, b2);
		for (i = 0; i < pr->ntlbs; i++) {
			format_bytes(b, sizeof(b), (unsigned long long)pr->tlb[i].reach);
			printf("%s L%d TLB%s %.0f entries (%s) +%.3g ns a miss",
			       i ? " |" : "", i + 1, pr->tlb[i].doubt ? "?" : "",
			       pr->tlb[i].entries, b, pr->tlb[i].miss_ns);
		}
		printf("%s\n", pr->ntlbs ? "" : " none runs out within them");
	}
	format_bytes(b, sizeof(b), (unsigned long long)s->tail_bytes);
	if (pr->mem_reached) {
		format_bytes(b2, sizeof(b2), (unsigned long long)pr->mem_from);
		printf("# stride=%zu: memory%s: %.3g ns", s->stride,
		       pr->disagree ? "?" : "", pr->mem_ns);
		if (mhz > 0)
			printf(" %.1f cyc", pr->mem_ns * mhz / 1e3);
		printf(" of its own (the TLB-local chase's median over its "
		       "memory plateau, %d points from %s); at %s it reads %.3g "
		       "ns, ", pr->mem_pts, b2, b, pr->local_tail_ns);
	} else {
		printf("# stride=%zu: memory%s: not reached (the TLB-local chase "
		       "reads %.3g ns at %s); ", s->stride, pr->disagree ? "?" : "",
		       pr->local_tail_ns, b);
	}
	if (pr->disagree)
		printf("the full random chase %.3g ns there, TLB misses: not "
		       "known\n# stride=%zu: the full random chase reads %.3g ns "
		       "at %s, faster than the TLB-local chase's %.3g ns by more "
		       "than their spread (%.3g ns): one of the two chases is not "
		       "what it claims, and the memory figures are not certain\n",
		       pr->tail_ns, s->stride, pr->tail_ns, b, pr->local_tail_ns,
		       pr->spread);
	else
		printf("the full random chase %.3g ns there, TLB misses add %.3g "
		       "ns\n", pr->tail_ns, pr->tail_ns - pr->local_tail_ns);
	if (pr->hidden) {
		format_bytes(b, sizeof(b), (unsigned long long)pr->page);
		format_bytes(b2, sizeof(b2), (unsigned long long)pr->hidden_from);
		format_bytes(why, sizeof(why), (unsigned long long)pr->hidden_to);
		char reach[32];
		format_bytes(reach, sizeof(reach), (unsigned long long)pr->hidden_reach);
		printf("# stride=%zu: smaller pages behind its %s pages: inside the "
		       "%s reach (%s), at %s-%s, the full random chase reads %.3g "
		       "ns above memory's own where a line a page reads %.2f ns "
		       "above it; the memory behind these pages is mapped in "
		       "smaller pages (as a hypervisor's nested paging maps a "
		       "guest's), whose walks no TLB of these pages removes\n",
		       s->stride, b, pr->ntlbs ? "L1 TLB's" : "TLBs'", reach, b2,
		       why, pr->hidden_ns, pr->hidden_hit_ns);
	}
	printf("# stride=%zu: the full random curve's rises:", s->stride);
	for (i = k = 0; i < pr->full.nlevels; i++) {
		const struct lat_level *lv = &pr->full.level[i];
		int j;
		for (j = 0; j <= lv->nsteps; j++) { /* its steps, then its edge */
			double at = j < lv->nsteps ? lv->step_at[j] : lv->boundary;
			if (!(at > 0))
				continue;
			lat_rise_cause(s, pr, at, why, sizeof(why));
			format_bytes(b2, sizeof(b2), (unsigned long long)at);
			printf("%s %s %s", k++ ? " |" : "", b2, why);
		}
	}
	printf("%s\n", k ? "" : " none");
}

static void lat_print_levels(const struct lat_summary *s, double mhz,
			     int tail)
{
	char b[64];
	size_t stride = s->stride;
	int i, k;
	printf("# stride=%zu:", stride);
	for (i = 0; i < s->nlevels; i++) {
		const struct lat_level *lv = &s->level[i];
		printf("%s %s%s", i ? " |" : "", lv->name,
		       lat_level_certain(lv) == 0 ? "?" : "");
		if (lv->boundary > 0) {
			format_bytes(b, sizeof(b), (unsigned long long)lv->boundary);
			printf(" %s", b);
		}
		printf(" %.3g ns", lv->ns);
		if (mhz > 0)
			printf(" %.1f cyc", lv->ns * mhz / 1e3);
		if (lv->boundary == 0 && lv->from > 0) {
			format_bytes(b, sizeof(b), (unsigned long long)lv->from);
			printf(" from %s", b);
		}
		for (k = 0; k < lv->nsteps; k++) {
			format_bytes(b, sizeof(b), (unsigned long long)lv->step_at[k]);
			printf(" (%.3g ns from %s)", lv->step_ns[k], b);
		}
	}
	printf("%s", s->nlevels ? "" : " no level named");
	if (s->tail_pts > 0 && tail) {
		lat_tail_sizes(b, sizeof(b), s);
		printf("%s %.3g ns at %s", s->nlevels ? "," : ";", s->tail_ns, b);
	}
	printf("\n");
	for (i = 0; i < s->nnotes; i++)
		printf("# stride=%zu: %s\n", stride, s->note[i]);
}

static void lat_print_os_caches(const struct system_info *si)
{
	int i, n = 0;
	printf("# OS-reported caches:");
	for (i = 0; i < si->ncaches; i++) {
		char name[16], b[32];
		if (strcmp(si->caches[i].type, "Instruction") == 0)
			continue;
		cache_label(&si->caches[i], name, sizeof(name));
		format_bytes(b, sizeof(b), si->caches[i].bytes);
		printf("%s %s %s", n++ ? " |" : "", name, b);
	}
	if (n && si->caches_fake)
		printf(" (%s, not the host's: not used)", si->caches_fake);
	printf("%s\n", n ? "" : " none");
}

static void lat_print_clock(const struct lat_run *r)
{
	if (r->mhz > 0) {
		printf("# clock: %.0f MHz, %s", r->mhz, r->mhz_source);
		if (r->clock_preempted > 0)
			printf(" (%d of its %d runs were preempted and not used)",
			       r->clock_preempted, r->clock_runs);
		putchar('\n');
	} else
		printf("# clock: unknown (%s); cycles not shown\n", r->mhz_source);
}

/* --load-threads' table: one block per read:write mix, its idle row
 * first, then each delay; then where latency doubles its idle value. */
static void lat_print_loaded(const struct options *o, const struct lat_run *r)
{
	char b[32];
	int i, m;
	format_bytes(b, sizeof(b), o->lat_max);
	printf("# loaded latency at %s: chase on CPU %d, %d load thread(s) on "
	       "CPU", b, r->chase_cpu, o->load_threads);
	for (i = 0; i < o->load_threads; i++)
		printf("%s%d", i ? "," : " ", r->load_cpu[i]);
	printf("%s\n", r->load_shared == 1 ? " (sharing the chase's CPU)"
		       : r->load_shared == 2 ? " (sharing CPUs)" : "");
	format_bytes(b, sizeof(b), LAT_LOAD_CHUNK);
	printf("# mix R:W = bytes read : bytes written; delay = idle-loop turns "
	       "per %s chunk\n", b);
	printf("#  mix    delay  latency_ns     min_ns  cycles   load_MB/s\n");
	for (i = 0; i < r->nloaded; i++) {
		const struct lat_loaded_row *row = &r->loaded[i];
		char mix[16], delay[24];
		snprintf(mix, sizeof(mix), "%d:%d", o->rw[row->mix][0],
			 o->rw[row->mix][1]);
		if (row->idle)
			snprintf(delay, sizeof(delay), "idle");
		else
			snprintf(delay, sizeof(delay), "%ld", row->delay);
		printf("# %4s %8s %11.2f %10.2f %7.1f %11.1f\n", mix, delay, row->ns,
		       row->ns_min, r->mhz > 0 ? row->ns * r->mhz / 1e3 : 0.0,
		       row->load_mbs);
	}
	printf("# latency_ns: the median of the chase's %.1f ms windows; min_ns: "
	       "their minimum\n", LAT_LOADED_WINDOW_NS / 1e6);
	/* its 0 is what the counters said, but its latency is the chase's
	 * alone: say so rather than let it pass as a loaded row */
	for (i = 0; i < r->nloaded; i++) {
		const struct lat_loaded_row *row = &r->loaded[i];
		if (row->idle || row->load_bytes > 0)
			continue;
		format_bytes(b, sizeof(b), r->curves[row->mix].chunk_bytes);
		printf("# mix %d:%d delay %ld: the load threads finished no %s "
		       "chunk while the chase was timed (a busy machine gave them "
		       "no CPU time, or the delay outlasted the timing), so the "
		       "row's latency is not loaded latency; the doubling point "
		       "leaves the row out\n", o->rw[row->mix][0],
		       o->rw[row->mix][1], row->delay, b);
	}
	format_bytes(b, sizeof(b), o->lat_max);
	for (m = 0; m < o->nrw; m++)
		printf("# idle row %d:%d against the sweep at %s: %.2f ns against "
		       "%.2f ns (%+.1f%%)\n", o->rw[m][0], o->rw[m][1], b,
		       r->curves[m].idle_ns, r->sweep_ns,
		       100 * (r->curves[m].idle_ns / r->sweep_ns - 1));
	for (m = 0; m < o->nrw; m++) {
		const struct lat_loaded_curve *c = &r->curves[m];
		printf("# mix %d:%d: idle %.2f ns; ", o->rw[m][0], o->rw[m][1],
		       c->idle_ns);
		if (!c->loaded_rows) {
			printf("latency doubles: not measured (no row's load "
			       "threads moved data)\n");
			continue;
		}
		if (!c->doubles) {
			printf("latency doubles: not reached\n");
			continue;
		}
		printf("latency doubles at about %.1f MB/s (between ",
		       c->double_mbs);
		if (c->delay_lo < 0)
			printf("idle");
		else
			printf("delay %ld", c->delay_lo);
		printf(" and delay %ld)\n", c->delay_hi);
	}
}

/* The same in JSON. */
static void lat_json_loaded(const struct options *o, const struct lat_run *r)
{
	int i, m;
	char mix[16];
	json_open("loaded", '{');
	json_int("chase_cpu", r->chase_cpu);
	json_int("load_threads", o->load_threads);
	json_bool("threads_over_quota", lat_load_over_quota);
	json_open("load_cpus", '[');
	for (i = 0; i < o->load_threads; i++)
		json_int(NULL, r->load_cpu[i]);
	json_close(']');
	json_str("shared", r->load_shared == 1 ? "chase"
		 : r->load_shared == 2 ? "load" : "none");
	json_int("bytes", (long long)o->lat_max);
	json_int("load_bytes_per_thread", (long long)r->load_bytes);
	json_int("chunk_bytes", LAT_LOAD_CHUNK);
	json_num("sweep_ns", r->sweep_ns);
	json_open("rows", '[');
	for (i = 0; i < r->nloaded; i++) {
		const struct lat_loaded_row *row = &r->loaded[i];
		snprintf(mix, sizeof(mix), "%d:%d", o->rw[row->mix][0],
			 o->rw[row->mix][1]);
		json_open(NULL, '{');
		json_str("rw", mix);
		json_bool("idle", row->idle);
		if (row->idle)
			json_str("delay", NULL);
		else
			json_int("delay", row->delay);
		json_int("threads", row->threads);
		json_num("ns", row->ns);
		json_num("ns_min", row->ns_min);
		json_num("cycles", r->mhz > 0 ? row->ns * r->mhz / 1e3 : NAN);
		json_num("load_mbs", row->load_mbs);
		json_int("load_bytes", (long long)row->load_bytes);
		json_bool("load_moved", row->load_bytes > 0);
		json_num("seconds", row->seconds);
		json_int("windows", row->windows);
		json_close('}');
	}
	json_close(']');
	json_open("curves", '[');
	for (m = 0; m < o->nrw; m++) {
		const struct lat_loaded_curve *c = &r->curves[m];
		snprintf(mix, sizeof(mix), "%d:%d", o->rw[m][0], o->rw[m][1]);
		json_open(NULL, '{');
		json_str("rw", mix);
		json_int("reads", o->rw[m][0]);
		json_int("writes", o->rw[m][1]);
		json_int("chunk_bytes", (long long)c->chunk_bytes);
		json_num("idle_ns", c->idle_ns);
		json_int("loaded_rows", c->loaded_rows);
		json_bool("doubles", c->doubles);
		json_num("double_mbs", c->doubles ? c->double_mbs : NAN);
		if (c->doubles && c->delay_lo >= 0)
			json_int("double_after_delay", c->delay_lo);
		else
			json_str("double_after_delay", NULL);
		if (c->doubles)
			json_int("double_by_delay", c->delay_hi);
		else
			json_str("double_by_delay", NULL);
		json_close('}');
	}
	json_close(']');
	json_close('}');
}

/* The summary's lines, "# stride=": the levels of each stride, and on
 * the first the probes' TLBs and memory.  A replay prints them alike. */
static void lat_print_strides(const struct lat_run *r, int nstrides)
{
	int i;
	for (i = 0; i < nstrides; i++) {
		/* with the probes, memory's line gives the tail */
		lat_print_levels(&r->sums[i], r->mhz, i || !r->probe.ran);
		if (i == 0)
			lat_print_probe(&r->sums[i], &r->probe, r->mhz);
	}
}

static void lat_print_summary(const struct options *o,
			      const struct system_info *si,
			      const struct lat_run *r)
{
	char b[32], map[1024], pg[64];
	int i;
	format_bytes(b, sizeof(b), o->lat_max);
	if (r->pages.known)
		snprintf(pg, sizeof(pg), "%lu KiB pages (%.0f%% huge)",
			 r->pages.page_kib, r->pages.huge_pct);
	else
		snprintf(pg, sizeof(pg), "pages of unknown size (no smaps)");
	printf("# membench %s latency: pattern %s, alloc %s, %s on %s, chase on "
	       "CPU %d\n", BENCH_VERSION, lat_pattern_names[o->pattern],
	       alloc_names[r->plan.mode], b, pg, r->cpu);
	format_mapping(map, sizeof(map), &r->pages, NULL);
	printf("# mapping of the chase buffer: %s\n", map);
	lat_print_clock(r);
	if (o->placement)
		phys_print("# ", "chase buffer", &r->phys, r->pages.huge_pct);
	lat_print_strides(r, o->nstrides);
	lat_print_os_caches(si);
	print_limits_text(si, "# ");
	printf("# run: %d points in %.1f s; %d stopped at the %.0f ms cap "
	       "before %d repeats agreed within %.0f%%\n",
	       r->npts + r->probe.nlocal - r->probe.shared + r->probe.nlpage,
	       r->elapsed,
	       r->unstable, LAT_POINT_CAP_NS / 1e6, LAT_STABLE_REPEATS,
	       100 * LAT_STABLE_TOL);
	if (r->nmlp) {
		format_bytes(b, sizeof(b), r->mlp_bytes);
		printf("# memory-level parallelism at %s: chains ns/load "
		       "parallelism\n", b);
		for (i = 0; i < r->nmlp; i++)
			printf("#   %2d %9.3f %6.2f\n", r->mlp[i].chains,
			       r->mlp[i].ns_per_load, r->mlp[i].parallelism);
	}
	if (r->nloaded)
		lat_print_loaded(o, r);
}

/* summary[].tlbs and .memory: null where the probes did not run. */
static void lat_json_probe_summary(const struct lat_probe *pr, double mhz)
{
	int i;
	if (!pr || !pr->ran) {
		json_str("tlbs_seen", NULL);
		json_str("tlbs", NULL);
		json_str("memory", NULL);
		json_str("disturbed", NULL);
		json_str("not_measured_apart", pr && pr->why[0] ? pr->why : NULL);
		return;
	}
	json_open("tlbs_seen", '{');
	json_int("page_bytes", (long long)pr->page);
	json_int_or_null("pages", pr->nlpage > 0, (long long)pr->seen);
	json_int_or_null("bytes", pr->nlpage > 0, (long long)(pr->seen * pr->page));
	json_str("not_measured", pr->nlpage ? NULL : pr->lpage_why);
	json_close('}');
	json_open("tlbs", '[');
	for (i = 0; i < pr->ntlbs; i++) {
		json_open(NULL, '{');
		json_num("entries", pr->tlb[i].entries);
		json_int("page_bytes", (long long)pr->page);
		json_num("reach_bytes", pr->tlb[i].reach);
		json_num("miss_ns", pr->tlb[i].miss_ns);
		json_num("confidence", pr->tlb[i].confidence >= 0
			 ? pr->tlb[i].confidence : NAN);
		json_bool("certain", !pr->tlb[i].doubt);
		json_close('}');
	}
	json_close(']');
	json_open("memory", '{');
	json_bool("reached", pr->mem_reached);
	json_num("ns", pr->mem_reached ? pr->mem_ns : NAN);
	json_num("cycles", mhz > 0 && pr->mem_reached ? pr->mem_ns * mhz / 1e3 : NAN);
	json_num("from_bytes", pr->mem_reached ? pr->mem_from : NAN);
	json_int_or_null("points", pr->mem_reached, pr->mem_pts);
	json_num("tlb_local_tail_ns", pr->local_tail_ns);
	json_num("tail_ns", pr->tail_ns);
	json_num("tlb_ns", pr->disagree ? NAN : pr->tail_ns - pr->local_tail_ns);
	json_bool("certain", !pr->disagree);
	json_bool("chases_disagree", pr->disagree);
	json_bool("tlb_local", !pr->not_local);
	if (pr->hidden) {
		json_open("smaller_pages_behind", '{');
		json_num("ns", pr->hidden_ns);
		json_num("tlb_hit_ns", pr->hidden_hit_ns);
		json_num("reach_bytes", pr->hidden_reach);
		json_int("from_bytes", (long long)pr->hidden_from);
		json_int("to_bytes", (long long)pr->hidden_to);
		json_int("points", pr->hidden_pts);
		json_close('}');
	} else {
		json_str("smaller_pages_behind", NULL);
	}
	json_close('}');
	if (pr->disturbed) {
		json_open("disturbed", '{');
		json_num("from_bytes", pr->disturbed_lo);
		json_num("to_bytes", pr->disturbed_hi);
		json_int("points_apart", pr->apart);
		json_close('}');
	} else {
		json_str("disturbed", NULL);
	}
	json_str("not_measured_apart", NULL);
}

/* The probes' curves, for harness/report's picture of the three. */
static void lat_json_probe_curves(const struct lat_probe *pr)
{
	int i;
	if (!pr->ran) {
		json_str("probes", NULL);
		return;
	}
	json_open("probes", '{');
	json_int("local_window_bytes", (long long)pr->window);
	json_int("page_bytes", (long long)pr->page);
	json_int("retimed", pr->retimed);
	json_open("tlb_local", '[');
	for (i = 0; i < pr->nlocal; i++) {
		json_open(NULL, '{');
		json_int("bytes", (long long)pr->local[i].bytes);
		json_num("ns", pr->local[i].ns);
		json_num("first_ns", pr->local[i].first_ns > 0 ? pr->local[i].first_ns : NAN);
		json_close('}');
	}
	json_close(']');
	json_open("line_a_page", '[');
	for (i = 0; i < pr->nlpage; i++) {
		json_open(NULL, '{');
		json_int("pages", (long long)((double)pr->lpage[i].bytes / pr->page + 0.5));
		json_int("bytes", (long long)pr->lpage[i].bytes);
		json_num("ns", pr->lpage[i].ns);
		json_num("first_ns", pr->lpage[i].first_ns > 0 ? pr->lpage[i].first_ns : NAN);
		json_num("excess_ns", pr->excess[i]);
		json_close('}');
	}
	json_close(']');
	json_close('}');
}

static void lat_json_summary(const struct lat_summary *s, double mhz,
			     const struct lat_probe *pr)
{
	int i, k;
	json_open(NULL, '{');
	json_int("stride", (long long)s->stride);
	json_open("caches", '[');
	for (i = 0; i < s->ncaches; i++)
		json_int(NULL, (long long)s->cache[i]);
	json_close(']');
	json_open("levels", '[');
	for (i = 0; i < s->nlevels; i++) {
		const struct lat_level *lv = &s->level[i];
		json_open(NULL, '{');
		json_str("name", lv->name);
		json_num("ns", lv->ns);
		json_num("cycles", mhz > 0 ? lv->ns * mhz / 1e3 : NAN);
		json_num("from_bytes", lv->from);
		json_num("to_bytes", lv->to);
		json_num("boundary_bytes", lv->boundary > 0 ? lv->boundary : NAN);
		if (lv->os_bytes)
			json_int("os_bytes", (long long)lv->os_bytes);
		else
			json_str("os_bytes", NULL);
		if (lv->agrees < 0)
			json_str("agrees", NULL);
		else
			json_bool("agrees", lv->agrees);
		json_num("confidence", lv->confidence >= 0 ? lv->confidence : NAN);
		if (lat_level_certain(lv) < 0)
			json_str("certain", NULL);
		else
			json_bool("certain", lat_level_certain(lv));
		json_bool("could_be_tlb", lv->tlb_doubt);
		json_bool("disturbed", lv->disturbed);
		json_open("steps", '[');
		for (k = 0; k < lv->nsteps; k++) {
			json_open(NULL, '{');
			json_num("from_bytes", lv->step_at[k]);
			json_num("ns", lv->step_ns[k]);
			json_close('}');
		}
		json_close(']');
		json_close('}');
	}
	json_close(']');
	json_open("notes", '[');
	for (i = 0; i < s->nnotes; i++)
		json_str(NULL, s->note[i]);
	json_close(']');
	json_num("llc_fit_bytes", s->llc_fit > 0 ? s->llc_fit : NAN);
	lat_json_probe_summary(pr, mhz);
	if (s->tail_pts > 0) {
		json_open("tail", '{');
		json_num("ns", s->tail_ns);
		json_num("cycles", mhz > 0 ? s->tail_ns * mhz / 1e3 : NAN);
		json_num("bytes", s->tail_bytes);
		json_num("from_bytes", s->tail_from);
		json_int("points", s->tail_pts);
		json_close('}');
	} else {
		json_str("tail", NULL);
	}
	json_close('}');
}

/* The latency keys of the JSON document (also nested by `bench all`). */
static void lat_json_body(const struct options *o, const struct lat_run *r)
{
	int i;
	json_open("run", '{');
	json_str("pattern", lat_pattern_names[o->pattern]);
	json_open("strides", '[');
	for (i = 0; i < o->nstrides; i++)
		json_int(NULL, (long long)o->strides[i]);
	json_close(']');
	json_int("min_bytes", (long long)o->lat_min);
	json_int("max_bytes", (long long)o->lat_max);
	json_int("steps_per_octave", o->spo);
	json_int("chains", o->chains);
	json_int("load_threads", o->load_threads);
	json_str("alloc", alloc_names[r->plan.mode]);
	json_int_or_null("page_size_bytes", r->plan.page_size != 0,
			 (long long)r->plan.page_size);
	json_int("base_page_bytes", (long long)r->base_page);
	json_int("cpu", r->cpu);
	json_open("buffer", '{');
	json_int("bytes", (long long)r->bufs[0].bytes);
	json_int("page_kib", (long long)(r->pages.known ? r->pages.page_kib : 0));
	json_num("huge_pct", r->pages.huge_pct);
	json_address("address", r->bufs[0].data);
	json_mapping(&r->pages, NULL, 0);
	if (o->placement)
		phys_json("physical", &r->phys, r->pages.huge_pct);
	else
		json_str("physical", NULL);
	json_close('}');
	json_num("window_ns", LAT_WINDOW_NS);
	json_num("point_cap_ns", LAT_POINT_CAP_NS);
	json_int("stable_repeats", LAT_STABLE_REPEATS);
	json_num("stable_tolerance", LAT_STABLE_TOL);
	json_num("elapsed_s", r->elapsed);
	json_close('}');
	json_open("clock", '{');
	json_num("mhz", r->mhz > 0 ? r->mhz : NAN);
	json_str("source", r->mhz_source);
	json_num("mhz_at_end", r->mhz_end > 0 ? r->mhz_end : NAN);
	json_num("runs", r->clock_runs > 0 ? r->clock_runs : NAN);
	json_num("preempted_runs", r->clock_runs > 0 && r->clock_preempted >= 0
					   ? r->clock_preempted : NAN);
	json_close('}');
	json_open("curve", '[');
	for (i = 0; i < r->npts; i++) {
		const struct lat_point *p = &r->pts[i];
		json_open(NULL, '{');
		json_int("stride", (long long)p->stride);
		json_int("bytes", (long long)p->bytes);
		json_num("size_mb", (double)p->bytes / (1024.0 * 1024.0));
		json_num("ns", p->ns);
		json_num("cycles", r->mhz > 0 ? p->ns * r->mhz / 1e3 : NAN);
		json_int("repeats", p->repeats);
		json_num("loads", p->loads);
		json_bool("stable", p->stable);
		json_num("preempted", p->preempted >= 0 ? p->preempted : NAN);
		json_close('}');
	}
	json_close(']');
	json_open("summary", '[');
	for (i = 0; i < o->nstrides; i++)
		lat_json_summary(&r->sums[i], r->mhz, i ? NULL : &r->probe);
	json_close(']');
	lat_json_probe_curves(&r->probe);
	if (r->nmlp) {
		json_open("mlp", '{');
		json_int("bytes", (long long)r->mlp_bytes);
		json_open("rows", '[');
		for (i = 0; i < r->nmlp; i++) {
			json_open(NULL, '{');
			json_int("chains", r->mlp[i].chains);
			json_num("ns_per_load", r->mlp[i].ns_per_load);
			json_num("parallelism", r->mlp[i].parallelism);
			json_close('}');
		}
		json_close(']');
		json_close('}');
	} else {
		json_str("mlp", NULL);
	}
	if (r->nloaded)
		lat_json_loaded(o, r);
	else
		json_str("loaded", NULL);
}

/* The run's report once measured.  nested: `bench all` owns the JSON
 * document around it. */
static void lat_report(const struct options *o, const struct system_info *si,
		       const struct lat_run *r, int nested)
{
	if (out.json) {
		if (!nested)
			json_begin("latency", si);
		lat_json_body(o, r);
		if (!nested)
			json_end();
	}
	if (out.text) {
		text_warnings("# WARNING: ");
		lat_print_summary(o, si, r);
	}
	if (o->lmrd) /* after the curve, where lmbench's readers skip '#' */
		warnings_to(stderr, "# WARNING: ");
}

/* --curve-in's report: the summary of each block of the file. */
static void lat_report_file(const struct options *o,
			    const struct system_info *si,
			    const struct lat_summary *sums, int nsums)
{
	int i;
	if (out.json) {
		json_begin("latency", si);
		json_str("source", o->curve_in);
		json_open("summary", '[');
		for (i = 0; i < nsums; i++)
			lat_json_summary(&sums[i], o->mhz, NULL);
		json_close(']');
		json_end();
	}
	if (out.text) {
		text_warnings("# WARNING: ");
		for (i = 0; i < nsums; i++)
			lat_print_levels(&sums[i], o->mhz, 1);
	}
}

/* ======================================================================
 * 20 The latency mode: plan, allocate, sweep, report; --curve-in reads
 * a stored curve instead of measuring one.
 * ====================================================================== */

/* lat_mem_rd's sizes, from 512 bytes up to --max: doubling below 1 KiB,
 * 1 KiB steps below 4 KiB, then sixteen steps per octave (each step a
 * sixteenth of the power of two, 32 KiB or more, above the size).  Sizes
 * below the stride are left out, as lat_mem_rd leaves them out. */
static int lmrd_sizes(const struct options *o, size_t stride, size_t *out,
		      int maxout)
{
	size_t k = 512;
	int n = 0;
	while (k <= o->lat_max && n < maxout) {
		size_t pow = 32 * 1024;
		if (k >= stride)
			out[n++] = k;
		if (k < 1024) {
			k *= 2;
			continue;
		}
		if (k < 4 * 1024) {
			k += 1024;
			continue;
		}
		while (pow <= k)
			pow *= 2;
		k += pow / 16;
	}
	return n;
}

/* The sizes of the sweep: geometric from --min, --steps-per-octave per
 * doubling, each a whole number of strides and at least two lines, with
 * --max itself as the last point. */
static int lat_sizes(const struct options *o, size_t stride, size_t *out,
		     int maxout)
{
	int n = 0, i;
	if (o->lmrd)
		return lmrd_sizes(o, stride, out, maxout);
	for (i = 0; n < maxout && i / o->spo < 63; i++) {
		/* whole octaves exact (1 KiB is 1024 bytes, for lmbench's
		 * scripts), the steps between them geometric */
		double sz = (double)o->lat_min * (double)(1ULL << (i / o->spo)) *
			    lat_exp((double)(i % o->spo) / o->spo *
				    0.69314718055994530942);
		size_t b;
		if (sz > (double)o->lat_max * (1 + 1e-12))
			break;
		b = (size_t)(sz / (double)stride) * stride;
		if (b < 2 * stride || (n && out[n - 1] == b))
			continue;
		out[n++] = b;
	}
	if (n < maxout && o->lat_max / stride >= 2 &&
	    (n == 0 || out[n - 1] < o->lat_max / stride * stride))
		out[n++] = (size_t)(o->lat_max / stride * stride);
	return n;
}

/* Loaded latency must chase memory, not a cache: without --max the
 * chase (and so the sweep) reaches at least STREAM's rule, BENCH_LLC_
 * FACTOR times all the reported last-level caches, in whole MiB, but
 * leaves half of memory free of the chase and the load threads' arrays.
 * When no cache is reported, the default --max stands. */
static unsigned long long lat_loaded_max(const struct options *o,
					 const struct system_info *si)
{
	unsigned long long llc = reported_llc(si) *
				 (unsigned long long)reported_llc_instances(si);
	unsigned long long want = stream_rule_elements(llc) * sizeof(elem_t);
	unsigned long long cap = physical_memory() / 2 /
				 (unsigned long long)(o->load_threads + 1),
			   room = address_space_bytes() / 2 /
				  (unsigned long long)(o->load_threads + 1);
	if (!cap || cap > room)
		cap = room;
	want = (want + (1ULL << 20) - 1) >> 20 << 20;
	if (cap && want > cap)
		want = cap >> 20 << 20;
	return want > o->lat_max ? want : o->lat_max;
}

/* Refuse latency options that cannot run (the allocation plan refuses
 * the rest), before anything is allocated or printed, and fill in the
 * default stride: the OS-reported line, or 64. */
static unsigned long long lat_max_wanted; /* the default --max the limit capped; 0 none */

static void lat_check(struct options *o, const struct system_info *si)
{
	char b1[32], b2[32];
	int i;

	if (o->nstrides == 0) {
		int line = reported_line(si);
		o->strides[0] = line >= (int)sizeof(void *) &&
				line % (int)sizeof(void *) == 0 ? (size_t)line : 64;
		o->nstrides = 1;
	}
	if (o->curve_in)
		return;
	if (o->load_threads > 0 && !opt_given(o, "max"))
		o->lat_max = lat_loaded_max(o, si);
	if (!opt_given(o, "max") && !o->lmrd &&
	    lat_need(o, o->lat_max) > box_room()) {
		/* a --max bench chose: capped under the memory limit, and said */
		unsigned long long fit = lat_fit(o, box_room()), want = o->lat_max;
		if (fit >= (1ULL << 20))
			fit = fit >> 20 << 20;
		if (fit >= o->lat_min && fit >= 2 * o->strides[0]) {
			lat_max_wanted = want;
			o->lat_max = fit;
			box_capped("latency's default --max", want >> 10, fit >> 10,
				   " KiB");
		}
	}
	if (o->lat_min > o->lat_max) {
		format_bytes(b1, sizeof(b1), o->lat_min);
		format_bytes(b2, sizeof(b2), o->lat_max);
		die("--min %s is larger than --max %s", b1, b2);
	}
	for (i = 0; i < o->nstrides; i++) {
		/* lat_mem_rd's own arguments where it was run as lat_mem_rd */
		if (o->strides[i] > o->lat_max / 2 && o->lmrd)
			die("stride %zu: a chain needs two strides, but size_in_MB "
			    "%llu is %llu bytes", o->strides[i], o->lat_max >> 20,
			    o->lat_max);
		if (o->strides[i] > o->lat_max / 2)
			die("--stride %zu: a chain needs two strides, but --max is "
			    "%llu bytes", o->strides[i], o->lat_max);
		if (o->lat_max / o->strides[i] > UINT32_MAX && o->lmrd)
			die("stride %zu: size_in_MB %llu makes more than 2^32 lines",
			    o->strides[i], o->lat_max >> 20);
		if (o->lat_max / o->strides[i] > UINT32_MAX)
			die("--stride %zu: --max %llu makes more than 2^32 lines",
			    o->strides[i], o->lat_max);
	}
#ifndef _OPENMP
	if (o->load_threads > 0)
		die("--load-threads: loaded latency needs OpenMP; rebuild with "
		    "-fopenmp");
	if (o->parallel > 1)
		die("-P %d: parallel chases need OpenMP; rebuild with -fopenmp",
		    o->parallel);
#else
	/* a runtime that caps its threads (OMP_THREAD_LIMIT) is refused now,
	 * not after the curve has begun */
	if (o->parallel > omp_get_thread_limit())
		die("-P %d: the OpenMP runtime's thread limit is %d "
		    "(OMP_THREAD_LIMIT)", o->parallel, omp_get_thread_limit());
	if (o->load_threads + 1 > omp_get_thread_limit())
		die("--load-threads %d: the chase and its load threads need %d "
		    "threads; the OpenMP runtime's thread limit is %d "
		    "(OMP_THREAD_LIMIT)", o->load_threads, o->load_threads + 1,
		    omp_get_thread_limit());
	/* -P's chases each want a CPU of their own, as --load-threads'
	 * threads do: more of them than the CPUs (or the quota's time)
	 * take turns, and each times the turns.  lat_mem_rd says nothing;
	 * the run goes on, said once. */
	if (o->parallel > 1) {
		int cpus[MAX_THREADS], n = allowed_cpus(cpus, MAX_THREADS);
		snprintf(b1, sizeof(b1), "-P %d: ", o->parallel);
		if (n > 0 && o->parallel > n)
			warn("-P %d: %d chases on %d allowed CPU%s take turns, "
			     "and each times the turns, not the memory",
			     o->parallel, o->parallel, n, n == 1 ? "" : "s");
		else
			quota_over(o->parallel, b1);
	}
#endif
}

/* --load-threads: each load thread's array, written through, before
 * the chase buffer exists and so before anything is timed.  Faulting
 * in hundreds of MiB between the sweep and the idle row made the same
 * chase 20-50% slower on a KVM guest (measured: 199 ns before, 300-400
 * ns after, for 256 MiB on 4 KiB pages), while the same memory faulted
 * in first changed nothing; so the sweep and the loaded rows now see
 * one memory state. */
static void lat_load_arrays(const struct options *o, struct lat_run *r)
{
	int i, nl = o->load_threads;
	if (nl <= 0)
		return;
#ifdef _OPENMP
	r->load_bytes = o->lat_max > LAT_LOAD_MIN_BYTES ? (size_t)o->lat_max
						       : LAT_LOAD_MIN_BYTES;
	r->load_arrays = calloc((size_t)nl, sizeof(*r->load_arrays));
	if (!r->load_arrays)
		die("out of memory for %d load threads", nl);
	for (i = 0; i < nl; i++) {
		struct region *a = &r->load_arrays[i];
		size_t j, n = r->load_bytes / sizeof(elem_t);
		if (region_alloc(a, r->load_bytes, A_MMAP, 0, NULL, 0) != 0)
			die("--load-threads: could not obtain %.1f MiB for load "
			    "thread %d (%s)", (double)r->load_bytes / 1048576.0,
			    i + 1, strerror(errno));
		for (j = 0; j < n; j++)
			((elem_t *)a->data)[j] = (elem_t)1;
	}
#else
	(void)i;
	(void)r;
#endif
}

/* The chase buffer, faulted in, with the chasing thread pinned (when
 * bench pins) and the core clock known. */
static void lat_prepare(const struct options *o, struct lat_run *r)
{
	int i;
	lat_load_arrays(o, r);
	alloc_regions(&r->plan, r->bufs);
	r->ncpus = allowed_cpus(r->cpus, MAX_THREADS);
	if (bench_pins(o) && r->ncpus > 0)
		pin_to_cpu(r->cpus[0]);
	r->cpu = current_cpu();
	for (i = 0; i < r->plan.regions; i++) /* fault in before timing */
		memset(r->bufs[i].data, 0, r->bufs[i].bytes);
	page_report(r->bufs[0].data, r->bufs[0].bytes, &r->pages);
	page_size_verify(&r->plan, &r->pages, "the chase buffer");
	if (o->placement)
		phys_report(r->bufs[0].data, r->bufs[0].bytes, &r->phys);
	if (o->mhz > 0) {
		r->mhz = o->mhz;
		r->mhz_source = "from --mhz";
	} else if (o->lmrd) {
		r->mhz_source = "not measured (lat_mem_rd reports ns only)";
	} else {
		r->mhz = lat_measure_mhz(&r->clock_runs, &r->clock_preempted);
		r->mhz_source = r->mhz > 0 ? "measured: " LAT_CLOCK_METHOD
					     "; --mhz overrides"
				: "this build has no reliable add chain (unoptimised, "
				  "no inline asm); pass --mhz";
	}
}

/* Whether the probes can run beside this sweep: NULL, or why not.  The
 * TLB-local chase's windows are base pages whatever pages the buffer
 * got, so the buffer's base pages decide; the line-a-page chase, on the
 * buffer's own pages, says for itself when they are too few
 * (lat_probe_measure). */
static const char *lat_probe_refusal(const struct options *o,
				     const struct lat_run *r, size_t stride,
				     char *buf, size_t len)
{
	double page = r->probe.window / LAT_LOCAL_PAGES;
	char b1[32], b2[32];
	if (o->pattern != P_RANDOM)
		return "they run beside a random sweep (--pattern random)";
	if (r->plan.regions > 1)
		return "they run beside one chase, not several at once";
	if ((double)stride * 2 > page) {
		snprintf(buf, len, "stride %zu leaves no room for two lines in a "
			 "page", stride);
		return buf;
	}
	if ((double)o->lat_max < page * LAT_TLB_MIN_PAGES) {
		format_bytes(b1, sizeof(b1), o->lat_max);
		format_bytes(b2, sizeof(b2), (unsigned long long)page);
		snprintf(buf, len, "--max %s holds %.0f pages of %s, and the "
			 "line-a-page chase needs %d", b1, (double)o->lat_max / page,
			 b2, LAT_TLB_MIN_PAGES);
		return buf;
	}
	return NULL;
}

/* ns at `bytes` on a measured curve, between its points on log-log
 * axes (its ends beyond them). */
static double lat_curve_at(const struct lat_point *p, int n, double bytes)
{
	int i;
	if (bytes <= (double)p[0].bytes)
		return p[0].ns;
	for (i = 1; i < n && (double)p[i].bytes < bytes; i++)
		;
	if (i == n)
		return p[n - 1].ns;
	return lat_exp(lat_ln(p[i - 1].ns) + lat_ln(p[i].ns / p[i - 1].ns) *
		       lat_ln(bytes / (double)p[i - 1].bytes) /
		       lat_ln((double)p[i].bytes / (double)p[i - 1].bytes));
}

/* Whether a point of p[from..n) reads more than `jump` times slower
 * than a larger one (LAT_RETIME_PASSES): redo (when not NULL)
 * marks the points on either side of each such fall, lo..hi the sizes
 * they span.  The TLB-local chase's first points are the sweep's own
 * (from: the first of its own), which stay as they were measured. */
static int lat_falls(const struct lat_point *p, int from, int n, double jump,
		     char *redo, double *lo, double *hi)
{
	int i, j;
	*lo = *hi = 0;
	for (i = from; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (p[i].ns > jump * p[j].ns) {
				if (redo)
					redo[i] = redo[j] = 1;
				if (*lo == 0)
					*lo = (double)p[i].bytes;
				if ((double)p[j].bytes > *hi)
					*hi = (double)p[j].bytes;
			}
	return *lo > 0;
}

/* Time a probe's chain of `lines` lines (held to windows of `check`
 * bytes: one is checked to leave each once) into p; settle as
 * lat_time_point's. */
static void lat_probe_time(struct lat_chain *c, size_t lines, size_t check,
			   int settle, struct lat_point *p)
{
	void *heads[1];
	heads[0] = lat_chain_build(c, lines);
	lat_chain_verify_probe(c, heads[0], lines, check);
	lat_time_point(heads, 1, p, settle);
	if (lat_probe_break() == 9 && c->pattern == P_PAGE)
		p->ns *= 4; /* the TLB-local chase beyond one window */
}

/* Time again, settled, each point of p[from..n) on either side of a
 * fall, on chain c (its lines: bytes / unit, held to windows of `check`
 * bytes), and keep the new reading, the first in first_ns; up to
 * LAT_RETIME_PASSES passes.  `disturb` (test builds) is disturbed every
 * time.  Returns the re-timings. */
static int lat_retime(struct lat_chain *c, struct lat_point *p, int from,
		      int n, size_t unit, size_t check,
		      const struct lat_point *disturb)
{
	int pass, i, done = 0, again = 1;
	double lo, hi;
	char *redo = malloc((size_t)n + 1); /* cleared each pass */
	if (!redo)
		die("out of memory for the probes");
	for (pass = 0; pass < LAT_RETIME_PASSES && again; pass++) {
		memset(redo, 0, (size_t)n + 1);
		lat_falls(p, from, n, LAT_LEVEL_JUMP, redo, &lo, &hi);
		for (i = from, again = 0; i < n; i++) {
			struct lat_point q;
			if (!redo[i])
				continue;
			lat_probe_time(c, p[i].bytes / unit, check, 1, &q);
			if (p + i == disturb)
				lat_probe_disturb(&q.ns);
			q.stride = p[i].stride;
			q.bytes = p[i].bytes;
			q.first_ns = p[i].first_ns > 0 ? p[i].first_ns : p[i].ns;
			p[i] = q;
			done++;
			again = 1;
		}
	}
	free(redo);
	return done;
}

/* The probes' points: the TLB-local chase at the sweep's sizes (above
 * one window, those LAT_LOCAL_FILL picks), then the line-a-page chase
 * from LAT_TLB_FIRST_PAGES pages to the buffer's, at half the sweep's
 * steps an octave (four by default), and each of its points' excess
 * over the TLB-local chase of as many lines (the same room in the
 * caches).  A chain no larger than one window is the full random chase
 * itself (the window holds all its lines, in random order), so there
 * the TLB-local curve takes the sweep's own points, full[], rather than
 * time the same chase twice.  Last, the points on either side of a fall
 * of either curve are timed again (lat_retime). */
static void lat_probe_measure(const struct options *o, struct lat_run *r,
			      const size_t *sizes, int n, size_t stride,
			      const struct lat_point *full)
{
	struct lat_probe *pr = &r->probe;
	struct lat_chain c;
	size_t page = (size_t)pr->page, maxpages = (size_t)o->lat_max / page;
	size_t local = (size_t)pr->window;
	size_t win = lat_probe_break() == 2 ? (size_t)o->lat_max : local;
	int i, k, cap = n + o->spo * 40 + 2, spo = o->spo > 4 ? o->spo / 2 : o->spo;
	struct lat_point *disturb = NULL;
	pr->local = calloc((size_t)cap, sizeof(*pr->local));
	pr->lpage = pr->local + n;
	pr->excess = malloc((size_t)cap * sizeof(*pr->excess));
	if (!pr->local || !pr->excess)
		die("out of memory for the probes");
	/* TLB-local, at its sweep index (bytes 0: not timed), in the
	 * sweep's order: a size skipped is timed right after the next,
	 * when the two beside it read apart; then the points it timed are
	 * moved down in place */
	lat_chain_init(&c, r->bufs[0].data, (size_t)o->lat_max, stride, P_PAGE,
		       win);
	for (i = 0; i < n; i++) {
		if (sizes[i] <= local) {
			pr->local[i] = full[i];
			continue;
		}
		if (o->spo > 4 && (n - 1 - i) % 2 && i + LAT_TAIL_PTS < n &&
		    i > 0 && sizes[i - 1] > local)
			continue;
		for (k = i; k >= 0 && k >= i - 1; k--) {
			struct lat_point *p = &pr->local[k];
			if (k < i && (p->bytes ||
				      (p[-1].ns <= LAT_LOCAL_FILL * p[1].ns &&
				       p[1].ns <= LAT_LOCAL_FILL * p[-1].ns)))
				break;
			lat_probe_time(&c, sizes[k] / stride, local, 0, p);
			if (k == n - 3)
				lat_probe_disturb(&p->ns);
			r->unstable += !p->stable;
			p->stride = stride;
			p->bytes = sizes[k];
		}
	}
	for (i = 0; i < n; i++) {
		if (!pr->local[i].bytes)
			continue;
		if (i == n - 3 && lat_probe_break() == 4)
			disturb = pr->local + pr->nlocal;
		pr->shared += sizes[i] <= local;
		pr->local[pr->nlocal++] = pr->local[i];
	}
	lat_chain_free(&c);
	if (maxpages < LAT_TLB_MIN_PAGES) {
		char b1[32], b2[32];
		format_bytes(b1, sizeof(b1), o->lat_max);
		format_bytes(b2, sizeof(b2), (unsigned long long)page);
		if (maxpages == 0)
			snprintf(pr->lpage_why, sizeof(pr->lpage_why), "--max %s is "
				 "less than one page of %s, and the line-a-page chase "
				 "needs %d", b1, b2, LAT_TLB_MIN_PAGES);
		else
			snprintf(pr->lpage_why, sizeof(pr->lpage_why), "--max %s holds "
				 "%zu page%s of %s, and the line-a-page chase needs %d",
				 b1, maxpages, maxpages == 1 ? "" : "s", b2,
				 LAT_TLB_MIN_PAGES);
		maxpages = 0;
	}
	lat_chain_init(&c, r->bufs[0].data, (size_t)o->lat_max, stride,
		       P_LINEPAGE, page);
	for (i = 0; maxpages && pr->nlpage < cap - n; i++) {
		size_t np = (size_t)(LAT_TLB_FIRST_PAGES * lat_exp((double)i /
				     spo * 0.69314718055994530942) + 0.5);
		struct lat_point *p = &pr->lpage[pr->nlpage];
		if (np > maxpages)
			np = maxpages;
		if (pr->nlpage && (double)np * (double)page <= (double)p[-1].bytes)
			break;
		lat_probe_time(&c, np, page, 0, p);
		if (pr->nlpage == 2)
			lat_probe_disturb(&p->ns);
		r->unstable += !p->stable;
		p->stride = stride;
		p->bytes = np * page;
		pr->seen = (double)np;
		pr->nlpage++;
	}
	pr->retimed = lat_retime(&c, pr->lpage, 0, pr->nlpage, page, page, NULL);
	lat_chain_free(&c);
	lat_chain_init(&c, r->bufs[0].data, (size_t)o->lat_max, stride, P_PAGE,
		       win);
	pr->retimed += lat_retime(&c, pr->local, pr->shared, pr->nlocal, stride,
				  local, disturb);
	lat_chain_free(&c);
	pr->ran = 1;
}

/* Walks no TLB of the run's pages explains.  Inside the L1 TLB's reach
 * of the run's pages (clear of its edge by LAT_SIZE_AGREE, where the
 * line-a-page chase pays less than a walk), every page's translation is
 * held, so the full random chase should read as the TLB-local chase
 * plus that hit; a buffer of no more pages than any L1 DTLB holds
 * (LAT_TLB_MIN_ENTRIES) needs no chase to say so.  Where, over memory's
 * points there (at least LAT_TAIL_PTS), it reads more than one
 * plateau's tolerance above (LAT_PLATEAU_TOL), its translations are
 * finer than its pages: the memory behind them is mapped in smaller
 * pages, as a hypervisor's nested paging maps a guest's huge pages on
 * the host's small ones.  Further out, where the pages outgrow a TLB,
 * the full chase's walks also miss caches the line-a-page chase's
 * never fill, so the two cannot be set side by side there. */
static void lat_probe_hidden(struct lat_probe *pr, const struct lat_summary *sum,
			     const double *xb, const double *yn, int n,
			     double walk, double buffer)
{
	double reach, from, *d, *h;
	int i, k = 0;
	if (!pr->mem_reached || sum->nlevels < 1)
		return;
	if (pr->nlpage)
		reach = pr->ntlbs ? pr->tlb[0].reach / LAT_SIZE_AGREE
				  : pr->seen * pr->page;
	else if (buffer / pr->page <= LAT_TLB_MIN_ENTRIES)
		reach = buffer;
	else
		return;
	from = sum->level[sum->nlevels - 1].from;
	d = malloc((size_t)(n ? n : 1) * 2 * sizeof(*d));
	if (!d)
		die("out of memory for the summary");
	h = d + (n ? n : 1);
	for (i = 0; i < n; i++) {
		double hit = 0;
		if (xb[i] < from || xb[i] > reach)
			continue;
		if (pr->nlpage) { /* the excess of as many pages, a line each */
			int j;
			for (j = 1; j < pr->nlpage && pr->lpage[j].bytes <= xb[i]; j++)
				;
			hit = pr->excess[j - 1] > 0 ? pr->excess[j - 1] : 0;
			if (hit >= walk)
				continue;
		}
		h[k] = hit;
		d[k++] = yn[i] - lat_curve_at(pr->local, pr->nlocal, xb[i]);
		if (k == 1)
			pr->hidden_from = xb[i];
		pr->hidden_to = xb[i];
	}
	if (k >= LAT_TAIL_PTS) {
		pr->hidden_ns = median(d, (size_t)k);
		pr->hidden_hit_ns = median(h, (size_t)k);
		pr->hidden_reach = pr->ntlbs ? pr->tlb[0].reach : reach;
		pr->hidden_pts = k;
		pr->hidden = pr->hidden_ns > pr->hidden_hit_ns +
			     LAT_PLATEAU_TOL * (pr->mem_ns + pr->hidden_hit_ns);
	}
	free(d);
}

/* The range of the last k readings of p[0..n), or of ns[0..n). */
static double lat_tail_range(const struct lat_point *p, const double *ns,
			     int n, int k)
{
	double lo = HUGE_VAL, hi = -HUGE_VAL;
	int i;
	for (i = n - k; i < n; i++) {
		double v = p ? p[i].ns : ns[i];
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	return hi - lo;
}

/* The two chases checked against each other at memory.  The full
 * random chase pays what the TLB-local chase pays plus its TLB misses,
 * so at the same sizes it never reads faster.  Where its tail reads
 * faster by more than their spread (the two tails' ranges added, and
 * LAT_PLATEAU_TOL of the TLB-local one for what three points cannot
 * show), one of them is not the chase it claims to be (a full chase
 * that a prefetcher follows; a TLB-local chase slowed from outside),
 * and neither memory figure, nor their difference, is certain. */
static void lat_probe_agree(struct lat_probe *pr, const double *xb,
			    const double *yn, int n)
{
	int k = LAT_TAIL_PTS;
	if (pr->nlocal < k || n < k ||
	    (double)pr->local[pr->nlocal - 1].bytes != xb[n - 1] ||
	    (double)pr->local[pr->nlocal - k].bytes != xb[n - k])
		return;
	pr->spread = lat_tail_range(pr->local, NULL, pr->nlocal, k) +
		     lat_tail_range(NULL, yn, n, k);
	pr->disagree = pr->local_tail_ns - pr->tail_ns >
		       pr->spread + LAT_PLATEAU_TOL * pr->local_tail_ns;
}

/* What the line-a-page chase measured a load to pay in TLBs over the
 * pages of `bytes` (its excess, none below 0), between its points on a
 * log scale of pages; 0 below its first point. */
static double lat_tlb_cost(const struct lat_probe *pr, double bytes)
{
	double e0, e1, f;
	int i;
	for (i = 0; i < pr->nlpage && (double)pr->lpage[i].bytes < bytes; i++)
		;
	if (i == 0)
		return 0;
	if (i == pr->nlpage)
		return pr->excess[i - 1] > 0 ? pr->excess[i - 1] : 0;
	e0 = pr->excess[i - 1] > 0 ? pr->excess[i - 1] : 0;
	e1 = pr->excess[i] > 0 ? pr->excess[i] : 0;
	f = lat_ln(bytes / (double)pr->lpage[i - 1].bytes) /
	    lat_ln((double)pr->lpage[i].bytes / (double)pr->lpage[i - 1].bytes);
	return e0 + (e1 - e0) * f;
}

/* The caches and memory from the TLB-local curve (x, y: np of its sizes
 * and readings) into sum, with ctx's TLBs; the notes on its re-timings,
 * and the levels read across a fall they left, or across the stretch a
 * disturbance held (LAT_DISTURBED_POINTS), back to the start of the
 * climb into it: each level that starts below the stretch's end and
 * whose next level starts in it or above it (so the last level below
 * it, whose edge is that climb, too). */
static void lat_local_read(struct lat_probe *pr, const double *x,
			   const double *y, int np, size_t stride,
			   const struct lat_ctx *ctx, struct lat_summary *sum)
{
	char b1[32], b2[32];
	double lo, hi;
	int i, fell;
	lat_read_curve(x, y, np, stride, ctx, 1, sum);
	if (pr->retimed)
		lat_note(sum, "probe points timed again: %d (on either side "
			 "of a fall, where a point read more than %.1f times "
			 "slower than a larger one; each settled first, and the "
			 "new reading kept)", pr->retimed, LAT_LEVEL_JUMP);
	for (i = pr->shared, pr->apart = 0; i < pr->nlocal; i++)
		pr->apart += pr->local[i].first_ns > 0 &&
			     abs_d(lat_ln(pr->local[i].ns / pr->local[i].first_ns)) >
			     lat_ln(LAT_DISTURBED_APART);
	fell = lat_falls(pr->local, pr->shared, pr->nlocal, LAT_LEVEL_JUMP,
			 NULL, &lo, &hi);
	pr->disturbed = pr->apart >= LAT_DISTURBED_POINTS &&
			lat_falls(pr->local, pr->shared, pr->nlocal,
				  LAT_DISTURBED_APART, NULL, &lo, &hi);
	if (!fell && !pr->disturbed)
		return;
	for (i = 0; i < sum->nlevels; i++)
		sum->level[i].disturbed = sum->level[i].from <= hi &&
			(i + 1 < sum->nlevels ? sum->level[i + 1].from : HUGE_VAL) >= lo;
	pr->disturbed_lo = lo;
	pr->disturbed_hi = hi;
	format_bytes(b1, sizeof(b1), (unsigned long long)lo);
	format_bytes(b2, sizeof(b2), (unsigned long long)hi);
	if (pr->disturbed)
		lat_note(sum, "disturbed: %d TLB-local points timed again read over "
			 "%.1f times from their first, and the chase still falls "
			 "so from %s to %s; no level ending there, or climbing "
			 "into it, is certain", pr->apart, LAT_DISTURBED_APART, b1, b2);
	else
		lat_note(sum, "the TLB-local chase still falls from %s to %s when "
			 "timed again: something outside it disturbed it, and "
			 "the levels read across the fall are not certain", b1, b2);
}

/* The probes read: the caches and memory from the TLB-local curve (into
 * sum), read as a curve whose TLBs are measured (none of its rises is
 * one); TLB levels from the line-a-page excess, on top of the TLB-local
 * chase's first point, so a level is a TLB that holds the pages and its
 * edge the reach.  A miss that costs as much as the second cache level
 * (an L2 hit) is a page walk, which reads the page tables through the
 * caches: later rises are the tables outgrowing a cache, not TLBs.  A
 * fall the re-timings left (lat_retime) takes the certainty of the
 * levels and TLBs read across it.  Then the full random curve, for its
 * rises. */
static void lat_probe_read(const struct lat_ctx *sys, const double *xb,
			   const double *yn, int n, size_t stride,
			   struct lat_run *r, struct lat_summary *sum)
{
	struct lat_probe *pr = &r->probe;
	struct lat_ctx ctx = *sys;
	struct lat_summary *t = malloc(sizeof(*t));
	double *x = malloc((size_t)(pr->nlpage + pr->nlocal) * 2 * sizeof(*x));
	double *y, walk, lo = 0, hi = 0, tailv[LAT_TAIL_PTS];
	int i, k, fell, kept, dropped;
	if (!t || !x)
		die("out of memory for the summary");
	y = x + pr->nlpage + pr->nlocal;
	/* what the points say of themselves: the TLB-local points that are
	 * the sweep's own, the pages the line-a-page chase crossed, and its
	 * excess over the TLB-local chase of as many lines */
	for (i = pr->shared = 0; i < pr->nlocal; i++)
		pr->shared += (double)pr->local[i].bytes <= pr->window;
	pr->seen = pr->nlpage ? (double)pr->lpage[pr->nlpage - 1].bytes / pr->page : 0;
	for (i = 0; i < pr->nlpage; i++)
		pr->excess[i] = pr->lpage[i].ns -
				lat_curve_at(pr->local, pr->nlocal,
					     (double)pr->lpage[i].bytes / pr->page *
					     (double)stride);
	ctx.pattern = P_RANDOM;
	ctx.tlb_known = 1;
	ctx.ntlb = 0;
	ctx.page = pr->page;
	/* Above its window the TLB-local chase holds the same lines as the
	 * full random chase of that size, and should read no slower.  Where
	 * it reads slower by more than LAT_PLATEAU_TOL (noise), and the
	 * line-a-page chase measured TLB misses over as
	 * many pages, its window did not stay in that TLB (a window as large
	 * as the L1 TLB, which a cyclic order misses in every page): such a
	 * point measured something other than the chase claims, and is left
	 * out of the reading, not replaced by a figure nobody measured.
	 * (Kept apart from the line-a-page chase's points, x[0..nlpage).) */
	for (i = kept = dropped = 0; i < pr->nlocal; i++) {
		double b = (double)pr->local[i].bytes;
		if (pr->local[i].ns > (1 + LAT_PLATEAU_TOL) * lat_curve_at(r->pts, n, b) &&
		    lat_tlb_cost(pr, b) > 0) {
			lo = dropped++ ? lo : b;
			hi = b;
			continue;
		}
		x[pr->nlpage + kept] = b;
		y[pr->nlpage + kept++] = pr->local[i].ns;
	}
	lat_local_read(pr, x + pr->nlpage, y + pr->nlpage, kept, stride, &ctx, sum);
	if (dropped) {
		char b1[32], b2[32];
		format_bytes(b1, sizeof(b1), (unsigned long long)lo);
		format_bytes(b2, sizeof(b2), (unsigned long long)hi);
		lat_note(sum, "TLB-local chase points left out: %d from %s to "
			 "%s read slower than the full random chase where TLB "
			 "misses were measured (its window left the TLB)",
			 dropped, b1, b2);
	}
	/* its own tail, as measured: what the full chase is set beside */
	k = pr->nlocal < LAT_TAIL_PTS ? pr->nlocal : LAT_TAIL_PTS;
	for (i = 0; i < k; i++)
		tailv[i] = pr->local[pr->nlocal - k + i].ns;
	pr->local_tail_ns = k > 0 ? median(tailv, (size_t)k) : sum->tail_ns;
	pr->tail_ns = sum->tail_ns;
	pr->mem_reached = sum->nlevels > 0 &&
			  strcmp(sum->level[sum->nlevels - 1].name, "DRAM") == 0;
	walk = sum->nlevels > 1 ? sum->level[1].ns : HUGE_VAL;
	for (i = 0; i < pr->nlpage; i++) {
		x[i] = (double)pr->lpage[i].bytes;
		y[i] = pr->local[0].ns + (pr->excess[i] > 0 ? pr->excess[i] : 0);
	}
	ctx.ncaches = ctx.all_caches = 0; /* TLBs, not the OS's caches */
	memset(t, 0, sizeof(*t));
	if (pr->nlpage)
		lat_read_curve(x, y, pr->nlpage, stride, &ctx, 0, t);
	if ((fell = lat_falls(pr->lpage, 0, pr->nlpage, LAT_LEVEL_JUMP, NULL,
			       &lo, &hi))) {
		lat_note(sum, "the line-a-page chase still falls from %.0f to "
			 "%.0f pages when timed again: something outside it "
			 "disturbed it, and the TLBs read across the fall are "
			 "not certain", lo / pr->page, hi / pr->page);
	}
	for (i = 0; i < t->nlevels && t->level[i].boundary > 0; i++) {
		struct lat_tlb *tl;
		double beyond;
		int k = 0;
		/* the level after the edge, or where the chase ends in no level,
		 * its points beyond the edge: a TLB is named only where at least
		 * two of them say what a miss in it costs, never at the end of
		 * the pages the chase crossed */
		if (i + 1 < t->nlevels) {
			beyond = t->level[i + 1].ns;
		} else {
			while (k < pr->nlpage && x[pr->nlpage - 1 - k] > t->level[i].boundary)
				k++;
			if (k < LAT_TAIL_PTS - 1)
				break;
			beyond = median(y + pr->nlpage - k, (size_t)k);
		}
		tl = &pr->tlb[pr->ntlbs++];
		tl->reach = t->level[i].boundary;
		tl->entries = tl->reach / pr->page;
		tl->miss_ns = beyond - t->level[i].ns;
		tl->confidence = t->level[i].confidence;
		tl->doubt = (tl->confidence >= 0 && tl->confidence < LAT_CERTAIN) ||
			    (fell && tl->reach >= lo && tl->reach <= hi);
		ctx.reach[ctx.ntlb++] = tl->reach;
		if (tl->miss_ns >= walk)
			break;
	}
	ctx.ncaches = sys->ncaches;
	/* bench's own rule (LAT_LOCAL_PAGES): a window of more than half
	 * the L1 TLB is no TLB-local span; one inside a page always is */
	pr->not_local = pr->ntlbs > 0 && pr->window > pr->page &&
			pr->window / pr->page > pr->tlb[0].entries / 2;
	if (pr->not_local) {
		char b1[32];
		format_bytes(b1, sizeof(b1), (unsigned long long)pr->page);
		lat_note(sum, "memory's own latency is not TLB-local by bench's "
			 "own rule: the chase's window of %.0f pages of %s is more "
			 "than half the %.0f-entry L1 TLB this run measured",
			 pr->window / pr->page, b1, pr->tlb[0].entries);
	}
	/* memory's own latency: the median of the TLB-local chase's whole
	 * memory plateau, which one slow point at its end cannot move */
	if (pr->mem_reached) {
		const struct lat_level *mem = &sum->level[sum->nlevels - 1];
		pr->mem_from = mem->from;
		for (k = 0; k < kept && x[pr->nlpage + k] < mem->from; k++)
			;
		pr->mem_pts = kept - k;
		pr->mem_ns = kept > k ? median(y + pr->nlpage + k,
					       (size_t)(kept - k))
				      : pr->local_tail_ns;
	} else {
		pr->mem_ns = pr->local_tail_ns;
	}
	/* the full random curve: its rises, set beside the levels measured */
	lat_read_curve(xb, yn, n, stride, &ctx, 0, &pr->full);
	pr->tail_ns = pr->full.tail_ns;
	lat_probe_agree(pr, xb, yn, n);
	if (pr->disagree && sum->nlevels > 0) /* the level memory's figure is */
		sum->level[sum->nlevels - 1].disturbed = 1;
	lat_probe_hidden(pr, sum, xb, yn, n, walk, (double)r->plan.bytes);
	/* the summary's tail stays the printed curve's, as before */
	sum->tail_ns = pr->full.tail_ns;
	sum->tail_bytes = pr->full.tail_bytes;
	sum->tail_from = pr->full.tail_from;
	sum->tail_pts = pr->full.tail_pts;
	free(t);
	free(x);
}

/* A measured figure as the record holds it (json_num's digits): the
 * analysis reads the figures so rounded, live and from a record alike,
 * so that a run's summary and the replay of its record are the same. */
static double lat_as_recorded(double v)
{
	char b[40];
	if (!finite_d(v))
		return v;
	snprintf(b, sizeof(b), JSON_NUM_FORMAT, v);
	return strtod(b, NULL);
}

/* The analysis: every stride's summary, and the probes' reading, from
 * what a record holds and nothing else: the points (as recorded), the
 * probes' curves, the OS's caches in si, the base page, the buffer's
 * pages, the pattern and strides in o.  A live run calls it once it has
 * measured; --curve-in with a record calls it on the record. */
static void lat_summarise(const struct options *o, const struct system_info *si,
			  struct lat_run *r)
{
	struct lat_probe *pr = &r->probe;
	double *xb, *yn;
	int s, i, t;
	r->mhz = lat_as_recorded(r->mhz);
	for (i = 0; i < r->npts; i++)
		r->pts[i].ns = lat_as_recorded(r->pts[i].ns);
	for (i = 0; pr->ran && i < pr->nlocal; i++)
		pr->local[i].ns = lat_as_recorded(pr->local[i].ns);
	for (i = 0; pr->ran && i < pr->nlpage; i++)
		pr->lpage[i].ns = lat_as_recorded(pr->lpage[i].ns);
	r->sums = calloc((size_t)o->nstrides, sizeof(*r->sums));
	xb = malloc((size_t)(r->npts ? r->npts : 1) * 2 * sizeof(*xb));
	if (!r->sums || !xb)
		die("out of memory for the summary");
	yn = xb + (r->npts ? r->npts : 1);
	for (s = 0; s < o->nstrides; s++) {
		struct lat_ctx ctx;
		size_t stride = o->strides[s];
		int n = 0;
		for (i = 0; i < r->npts; i++)
			if (r->pts[i].stride == stride) {
				xb[n] = (double)r->pts[i].bytes;
				yn[n++] = r->pts[i].ns;
			}
		lat_ctx_from_system(&ctx, si, o->pattern, r->base_page);
		/* the pages the probes crossed, or would have */
		if (s == 0 && !o->lmrd && !pr->ran)
			pr->page = r->pages.known && r->pages.page_kib * 1024.0 >
				   ctx.page ? r->pages.page_kib * 1024.0 : ctx.page;
		ctx.page = pr->page > 0 ? pr->page : ctx.page;
		/* the other strides' curves: the TLBs the probes measured are
		 * the only ones whose reach can be doubted as a cache's edge */
		ctx.tlb_known = pr->ran;
		for (t = 0; t < pr->ntlbs; t++)
			ctx.reach[ctx.ntlb++] = pr->tlb[t].reach;
		if (s == 0 && pr->ran)
			lat_probe_read(&ctx, xb, yn, n, stride, r, &r->sums[s]);
		else
			lat_read_curve(xb, yn, n, stride, &ctx, o->pattern == P_RANDOM,
				       &r->sums[s]);
	}
	free(xb);
}

/* The sweep: per stride, every size's point; on the first stride the
 * probes, --chains and --load-threads; then the analysis. */
static void lat_sweep(const struct options *o, const struct system_info *si,
		      struct lat_run *r)
{
	int maxsizes = (o->lmrd ? 16 : o->spo) * 64 + 2, s, i;
	size_t *sizes = malloc((size_t)maxsizes * sizeof(*sizes));
	r->pts = malloc((size_t)(maxsizes * o->nstrides + 1) * sizeof(*r->pts));
	if (!sizes || !r->pts)
		die("out of memory for the sweep");
	r->base_page = (double)lat_page_bytes();
	for (s = 0; s < o->nstrides; s++) {
		struct lat_chain cs[MAX_REGIONS], *c = &cs[0];
		size_t stride = o->strides[s];
		int n = lat_sizes(o, stride, sizes, maxsizes), first = r->npts, t;
		for (t = 0; t < r->plan.regions; t++)
			lat_chain_init(&cs[t], r->bufs[t].data, (size_t)o->lat_max,
				       stride, o->pattern, lat_page_bytes());
		lat_report_block(stride);
		for (i = 0; i < n; i++) {
			struct lat_point *p = &r->pts[r->npts++];
			size_t lines = sizes[i] / stride;
			p->stride = stride;
			p->bytes = sizes[i];
#ifdef _OPENMP
			if (r->plan.regions > 1)
				lat_parallel_point(r, cs, lines, p);
			else
#endif
			{
				void *heads[1];
				heads[0] = lat_chain_build(c, lines);
				lat_time_point(heads, 1, p, 0);
			}
			r->unstable += !p->stable;
			lat_report_point(p);
		}
		lat_report_block_end();
		if (s == 0 && !o->lmrd) {
			const char *no;
			r->probe.page = r->pages.known && r->pages.page_kib * 1024.0 >
					r->base_page ? r->pages.page_kib * 1024.0
						     : r->base_page;
			/* the window is base pages whatever pages the buffer got:
			 * 64 huge pages are no TLB-local span */
			r->probe.window = LAT_LOCAL_PAGES * r->base_page;
			no = lat_probe_refusal(o, r, stride, r->probe.why,
					       sizeof(r->probe.why));
			if (no && no != r->probe.why)
				snprintf(r->probe.why, sizeof(r->probe.why), "%s", no);
			if (!no)
				lat_probe_measure(o, r, sizes, n, stride,
						  r->pts + first);
		}
		if (s == 0 && o->chains > 1)
			lat_mlp_run(o, c, (size_t)o->lat_max / stride, r);
#ifdef _OPENMP
		if (s == 0 && o->load_threads > 0)
			lat_loaded_run(o, lat_chain_build(c, (size_t)o->lat_max /
							     stride), r);
#endif
		for (t = 0; t < r->plan.regions; t++)
			lat_chain_free(&cs[t]);
	}
	free(sizes);
	lat_summarise(o, si, r);
}

/* A record's reader: bench's own JSON, read back for --curve-in.  The
 * whole document is parsed into nodes in one array; strings are undone
 * in place, numbers keep their text (a copy is written digit for digit).
 * Nesting deeper than JREC_DEPTH, or anything not JSON, is refused with
 * the byte it was met at. */
#define JREC_DEPTH 24
#define JREC_MAX_BYTES (256ULL << 20)

enum jrec_type { JR_NULL, JR_BOOL, JR_NUM, JR_STR, JR_ARR, JR_OBJ };

struct jrec_node {
	enum jrec_type type;
	int kid, next;   /* first member, next member; -1: none */
	const char *key; /* in an object: the member's name */
	const char *str; /* a string's text; a number's first digit */
	size_t len;      /* a number's text's length */
	double num;      /* a number's value; a boolean's 0 or 1 */
};

struct jrec {
	const char *file;
	char *text;
	size_t at;
	struct jrec_node *n;
	int nn, cap;
};

static void jrec_fail(const struct jrec *d, const char *what)
{
	die("--curve-in %s: not JSON at byte %zu: %s", d->file, d->at, what);
}

static void jrec_space(struct jrec *d)
{
	while (d->text[d->at] == ' ' || d->text[d->at] == '\t' ||
	       d->text[d->at] == '\n' || d->text[d->at] == '\r')
		d->at++;
}

static int jrec_new(struct jrec *d, enum jrec_type type)
{
	if (d->nn == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 1024;
		d->n = realloc(d->n, (size_t)d->cap * sizeof(*d->n));
		if (!d->n)
			die("out of memory reading --curve-in");
	}
	memset(&d->n[d->nn], 0, sizeof(d->n[0]));
	d->n[d->nn].type = type;
	d->n[d->nn].kid = d->n[d->nn].next = -1;
	return d->nn++;
}

static int jrec_hex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* A string at d->at (its opening quote), undone in place; returns it. */
static const char *jrec_string(struct jrec *d)
{
	char *w = d->text + d->at + 1, *start = w;
	const char *r = w;
	for (;;) {
		unsigned char c = (unsigned char)*r;
		d->at = (size_t)(r - d->text);
		if (c == '"')
			break;
		if (c < 0x20)
			jrec_fail(d, c ? "a control character in a string"
				       : "a string never closed");
		if (c != '\\') {
			*w++ = *r++;
			continue;
		}
		r++;
		switch (*r) {
		case '"': case '\\': case '/': *w++ = *r++; break;
		case 'b': *w++ = '\b'; r++; break;
		case 'f': *w++ = '\f'; r++; break;
		case 'n': *w++ = '\n'; r++; break;
		case 'r': *w++ = '\r'; r++; break;
		case 't': *w++ = '\t'; r++; break;
		case 'u': {
			unsigned u = 0;
			int k, h;
			for (k = 1; k <= 4; k++) {
				if ((h = jrec_hex(r[k])) < 0)
					jrec_fail(d, "a \\u escape without four hex digits");
				u = u * 16 + (unsigned)h;
			}
			r += 5;
			/* UTF-8, no more than three bytes: six were read */
			if (u == 0)
				jrec_fail(d, "a \\u0000 in a string");
			if (u < 0x80) {
				*w++ = (char)u;
			} else if (u < 0x800) {
				*w++ = (char)(0xc0 | u >> 6);
				*w++ = (char)(0x80 | (u & 0x3f));
			} else {
				*w++ = (char)(0xe0 | u >> 12);
				*w++ = (char)(0x80 | (u >> 6 & 0x3f));
				*w++ = (char)(0x80 | (u & 0x3f));
			}
			break;
		}
		default:
			jrec_fail(d, "an unknown escape in a string");
		}
	}
	*w = '\0'; /* w <= r: the closing quote is not overwritten first */
	d->at++;
	return start;
}

static int jrec_value(struct jrec *d, int depth)
{
	char *p;
	int i, last = -1;
	jrec_space(d);
	p = d->text + d->at;
	if (depth > JREC_DEPTH)
		jrec_fail(d, "nested too deep");
	if (*p == '{' || *p == '[') {
		int obj = *p == '{';
		i = jrec_new(d, obj ? JR_OBJ : JR_ARR);
		d->at++;
		jrec_space(d);
		if (d->text[d->at] == (obj ? '}' : ']')) {
			d->at++;
			return i;
		}
		for (;;) {
			const char *key = NULL;
			int v;
			jrec_space(d);
			if (obj) {
				if (d->text[d->at] != '"')
					jrec_fail(d, "an object's member has no quoted name");
				key = jrec_string(d);
				jrec_space(d);
				if (d->text[d->at] != ':')
					jrec_fail(d, "no ':' after a member's name");
				d->at++;
			}
			v = jrec_value(d, depth + 1);
			d->n[v].key = key;
			if (last < 0)
				d->n[i].kid = v;
			else
				d->n[last].next = v;
			last = v;
			jrec_space(d);
			if (d->text[d->at] == ',') {
				d->at++;
				continue;
			}
			if (d->text[d->at] != (obj ? '}' : ']'))
				jrec_fail(d, obj ? "no ',' or '}' after a member"
						 : "no ',' or ']' after an element");
			d->at++;
			return i;
		}
	}
	if (*p == '"') {
		i = jrec_new(d, JR_STR);
		d->n[i].str = jrec_string(d);
		return i;
	}
	if (strncmp(p, "null", 4) == 0 || strncmp(p, "true", 4) == 0 ||
	    strncmp(p, "false", 5) == 0) {
		i = jrec_new(d, *p == 'n' ? JR_NULL : JR_BOOL);
		d->n[i].num = *p == 't';
		d->at += *p == 'f' ? 5 : 4;
		return i;
	}
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		/* JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
		char *q = p + (*p == '-'), *end;
		if (!isdigit((unsigned char)*q) || (*q == '0' && isdigit((unsigned char)q[1])))
			jrec_fail(d, "a number not written as JSON writes one");
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '.') {
			if (!isdigit((unsigned char)*++q))
				jrec_fail(d, "a number not written as JSON writes one");
			while (isdigit((unsigned char)*q))
				q++;
		}
		if (*q == 'e' || *q == 'E') {
			q += q[1] == '+' || q[1] == '-' ? 2 : 1;
			if (!isdigit((unsigned char)*q))
				jrec_fail(d, "a number not written as JSON writes one");
			while (isdigit((unsigned char)*q))
				q++;
		}
		i = jrec_new(d, JR_NUM);
		d->n[i].str = p;
		d->n[i].len = (size_t)(q - p);
		d->n[i].num = strtod(p, &end);
		if (end != q || !finite_d(d->n[i].num))
			jrec_fail(d, "a number out of range");
		d->at = (size_t)(q - d->text);
		return i;
	}
	jrec_fail(d, *p ? "no JSON value here" : "the document ends early");
	return -1;
}

/* Read and parse the whole file (f, named file); the root is node 0. */
static void jrec_read(struct jrec *d, FILE *f, const char *file)
{
	size_t len = 0, cap = 0, got;
	memset(d, 0, sizeof(*d));
	d->file = file;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 1 << 16;
			if (cap > JREC_MAX_BYTES + 4096 + 1)
				die("--curve-in %s: larger than the %llu MiB a record "
				    "may be", file, JREC_MAX_BYTES >> 20);
			d->text = realloc(d->text, cap);
			if (!d->text)
				die("out of memory reading --curve-in");
		}
		got = fread(d->text + len, 1, cap - len - 1, f);
		len += got;
	} while (got > 0);
	if (ferror(f))
		die("--curve-in %s: %s", file, strerror(errno));
	d->text[len] = '\0';
	if (strlen(d->text) != len)
		die("--curve-in %s: a NUL byte in a JSON record", file);
	jrec_value(d, 0);
	jrec_space(d);
	if (d->text[d->at])
		jrec_fail(d, "more after the document");
}

/* The member `key` of object node i; -1 where i is no object or has none. */
static int jrec_get(const struct jrec *d, int i, const char *key)
{
	int k;
	if (i < 0 || d->n[i].type != JR_OBJ)
		return -1;
	for (k = d->n[i].kid; k >= 0; k = d->n[k].next)
		if (strcmp(d->n[k].key, key) == 0)
			return k;
	return -1;
}

/* The node at a dotted path below i ("run.buffer.page_kib"); -1: none. */
static int jrec_path(const struct jrec *d, int i, const char *path)
{
	char part[64];
	while (i >= 0 && *path) {
		size_t k = strcspn(path, ".");
		if (k >= sizeof(part))
			return -1;
		memcpy(part, path, k);
		part[k] = '\0';
		i = jrec_get(d, i, part);
		path += k + (path[k] == '.');
	}
	return i;
}

/* A field the analysis needs: of the type wanted (or null, where
 * may_null), else one line naming it and exit 2.  `at` names node i in
 * the message ("" for the record's root). */
static int jrec_need(const struct jrec *d, int i, const char *at,
		     const char *path, enum jrec_type type, int may_null)
{
	static const char *const names[] = {"null", "a boolean", "a number",
					    "a string", "an array", "an object"};
	int k = jrec_path(d, i, path);
	if (k < 0)
		die("--curve-in %s: the record has no %s%s (not a bench latency "
		    "record, or one from a bench that did not write it)", d->file,
		    at, path);
	if (d->n[k].type != type && !(may_null && d->n[k].type == JR_NULL))
		die("--curve-in %s: %s%s is %s, not %s", d->file, at, path,
		    names[d->n[k].type], names[type]);
	return k;
}

/* A whole number of at least lo at path below i. */
static double jrec_count(const struct jrec *d, int i, const char *at,
			 const char *path, double lo)
{
	double v = d->n[jrec_need(d, i, at, path, JR_NUM, 0)].num;
	if (v != (double)(long long)v || v < lo || v > 1e18)
		die("--curve-in %s: %s%s is %.17g, not a whole number from %.0f",
		    d->file, at, path, v, lo);
	return v;
}

/* A latency in ns at path below i: finite, positive, below 1e9. */
static double jrec_ns(const struct jrec *d, int i, const char *at,
		      const char *path)
{
	double v = d->n[jrec_need(d, i, at, path, JR_NUM, 0)].num;
	if (!(v > 0) || v >= 1e9)
		die("--curve-in %s: %s%s is %.17g, not a latency in ns", d->file,
		    at, path, v);
	return v;
}

static int jrec_count_kids(const struct jrec *d, int i)
{
	int k, n = 0;
	for (k = d->n[i].kid; k >= 0; k = d->n[k].next)
		n++;
	return n;
}

/* Write node i (under key, NULL in an array) as it was read. */
static void jrec_copy(const struct jrec *d, const char *key, int i)
{
	const struct jrec_node *v = &d->n[i];
	int k;
	json_sep(NULL);
	if (key) {
		json_string_value(key);
		fputc(':', out.json);
	}
	switch (v->type) {
	case JR_NULL: fputs("null", out.json); break;
	case JR_BOOL: fputs(v->num ? "true" : "false", out.json); break;
	case JR_NUM: fwrite(v->str, 1, v->len, out.json); break;
	case JR_STR: json_string_value(v->str); break;
	case JR_ARR: case JR_OBJ:
		fputc(v->type == JR_OBJ ? '{' : '[', out.json);
		json_first[++json_depth] = 1;
		for (k = v->kid; k >= 0; k = d->n[k].next)
			jrec_copy(d, v->type == JR_OBJ ? d->n[k].key : NULL, k);
		json_close(v->type == JR_OBJ ? '}' : ']');
		break;
	}
}

/* The points of a record's curve (an array at path below lat) for a
 * probe, or for the curve itself (with stride): sizes rising (within a
 * stride), latencies positive; *n counts them. */
static struct lat_point *lat_record_points(const struct jrec *d, int lat,
					   const char *path, int with_stride,
					   int *n)
{
	int arr = jrec_need(d, lat, "", path, JR_ARR, 0), k, i = 0;
	int cnt = jrec_count_kids(d, arr);
	struct lat_point *p = calloc((size_t)(cnt ? cnt : 1), sizeof(*p));
	char at[64];
	if (!p)
		die("out of memory reading --curve-in");
	for (k = d->n[arr].kid; k >= 0; k = d->n[k].next, i++) {
		int f;
		snprintf(at, sizeof(at), "%s[%d].", path, i);
		p[i].stride = with_stride ? (size_t)jrec_count(d, k, at, "stride", 1) : 0;
		p[i].bytes = (size_t)jrec_count(d, k, at, "bytes", 1);
		p[i].ns = jrec_ns(d, k, at, "ns");
		if (!with_stride) { /* a probe's point timed again: its first */
			f = jrec_need(d, k, at, "first_ns", JR_NUM, 1);
			p[i].first_ns = d->n[f].type == JR_NULL ? 0 : d->n[f].num;
		}
		p[i].stable = 1;
		if (i > 0 && p[i].stride == p[i - 1].stride && p[i].bytes <= p[i - 1].bytes)
			die("--curve-in %s: %s[%d].bytes does not rise from the point "
			    "before", d->file, path, i);
	}
	*n = cnt;
	return p;
}

/* A record (bench latency --json, or bench all --json) read into what
 * lat_summarise() reads: o's pattern and strides, si's caches, r's
 * points, probes, pages, clock.  Nothing is measured or guessed: a
 * field the analysis needs and the record lacks is named, and exit 2.
 * Returns the latency object's node. */
static int lat_record_read(const struct jrec *d, struct options *o,
			   struct system_info *si, struct lat_run *r)
{
	int lat = 0, sys, k, i, pr, arr;
	const char *mode = d->n[jrec_need(d, 0, "", "mode", JR_STR, 0)].str;
	char at[64];
	if (d->n[0].type != JR_OBJ)
		die("--curve-in %s: the record is no JSON object", d->file);
	if (strcmp(mode, "all") == 0)
		lat = jrec_need(d, 0, "", "latency", JR_OBJ, 0);
	else if (strcmp(mode, "latency") != 0)
		die("--curve-in %s: a record of bench %s, which has no latency curve",
		    d->file, mode);
	if (jrec_get(d, 0, "replay") >= 0)
		die("--curve-in %s: a replay's output, not a record: replay the "
		    "record it came from", d->file);
	/* the OS's caches, as the recorded run read them */
	sys = jrec_need(d, 0, "", "system", JR_OBJ, 0);
	arr = jrec_need(d, sys, "system.", "caches", JR_ARR, 0);
	memset(si, 0, sizeof(*si));
	for (k = d->n[arr].kid, i = 0; k >= 0; k = d->n[k].next, i++) {
		struct cache_info *c;
		const char *type;
		if (si->ncaches == MAX_CACHES)
			die("--curve-in %s: system.caches holds more than %d caches",
			    d->file, MAX_CACHES);
		c = &si->caches[si->ncaches++];
		snprintf(at, sizeof(at), "system.caches[%d].", i);
		c->level = (int)jrec_count(d, k, at, "level", 1);
		type = d->n[jrec_need(d, k, at, "type", JR_STR, 0)].str;
		if (strlen(type) >= sizeof(c->type))
			die("--curve-in %s: %stype is longer than a cache type",
			    d->file, at);
		strcpy(c->type, type);
		c->bytes = (unsigned long long)jrec_count(d, k, at, "bytes", 1);
	}
	k = jrec_need(d, sys, "system.", "caches_made_up_by", JR_STR, 1);
	si->caches_fake = d->n[k].type == JR_STR ? d->n[k].str : NULL;
	k = jrec_need(d, sys, "system.", "cache_line", JR_NUM, 1);
	si->line = d->n[k].type == JR_NUM ? (int)jrec_count(d, sys, "system.",
							    "cache_line", 1) : 0;
	/* the run */
	{
		const char *pat = d->n[jrec_need(d, lat, "", "run.pattern", JR_STR, 0)].str;
		for (i = 0; i < 3 && strcmp(pat, lat_pattern_names[i]); i++)
			;
		if (i == 3)
			die("--curve-in %s: run.pattern \"%s\" is no pattern bench "
			    "knows", d->file, pat);
		o->pattern = (enum lat_pattern)i;
	}
	arr = jrec_need(d, lat, "", "run.strides", JR_ARR, 0);
	o->nstrides = 0;
	for (k = d->n[arr].kid, i = 0; k >= 0; k = d->n[k].next, i++) {
		snprintf(at, sizeof(at), "run.strides[%d]", i);
		if (o->nstrides == LAT_MAX_STRIDES)
			die("--curve-in %s: run.strides holds more than %d strides",
			    d->file, LAT_MAX_STRIDES);
		o->strides[o->nstrides++] = (size_t)jrec_count(d, k, at, "", 1);
	}
	if (o->nstrides == 0)
		die("--curve-in %s: run.strides is empty", d->file);
	o->lat_max = (unsigned long long)jrec_count(d, lat, "", "run.max_bytes", 1);
	r->plan.bytes = (size_t)o->lat_max;
	{
		const char *alloc = d->n[jrec_need(d, lat, "", "run.alloc", JR_STR, 0)].str;
		for (i = 0; i < (int)(sizeof(alloc_names) / sizeof(alloc_names[0])) &&
			    strcmp(alloc, alloc_names[i]); i++)
			;
		if (i == (int)(sizeof(alloc_names) / sizeof(alloc_names[0])))
			die("--curve-in %s: run.alloc \"%s\" is no allocation bench "
			    "knows", d->file, alloc);
		r->plan.mode = (enum alloc_mode)i;
	}
	r->pages.page_kib = (unsigned long)jrec_count(d, lat, "", "run.buffer.page_kib", 0);
	r->pages.known = r->pages.page_kib > 0;
	r->pages.huge_pct = d->n[jrec_need(d, lat, "", "run.buffer.huge_pct", JR_NUM, 0)].num;
	r->cpu = (int)d->n[jrec_need(d, lat, "", "run.cpu", JR_NUM, 0)].num;
	/* the clock: for cycles only */
	k = jrec_need(d, lat, "", "clock.mhz", JR_NUM, 1);
	r->mhz = d->n[k].type == JR_NUM ? d->n[k].num : 0;
	r->mhz_source = d->n[jrec_need(d, lat, "", "clock.source", JR_STR, 0)].str;
	k = jrec_need(d, lat, "", "clock.runs", JR_NUM, 1);
	r->clock_runs = d->n[k].type == JR_NUM ? (int)d->n[k].num : 0;
	k = jrec_need(d, lat, "", "clock.preempted_runs", JR_NUM, 1);
	r->clock_preempted = d->n[k].type == JR_NUM ? (int)d->n[k].num : -1;
	/* the curve, every stride's */
	r->pts = lat_record_points(d, lat, "curve", 1, &r->npts);
	for (i = 0; i < r->npts; i++) {
		for (k = 0; k < o->nstrides && o->strides[k] != r->pts[i].stride; k++)
			;
		if (k == o->nstrides)
			die("--curve-in %s: curve[%d].stride is none of run.strides",
			    d->file, i);
	}
	/* the probes, or why they did not run */
	pr = jrec_need(d, lat, "", "probes", JR_OBJ, 1);
	if (d->n[pr].type == JR_NULL) {
		/* their pages, which the other strides' reading needs, are the
		 * base page's where the buffer's are not larger: a bench that
		 * wrote no base page left that unsaid */
		r->base_page = jrec_count(d, lat, "", "run.base_page_bytes", 1);
		k = jrec_need(d, lat, "", "summary", JR_ARR, 0);
		k = d->n[k].kid;
		if (k >= 0 && (k = jrec_need(d, k, "summary[0].",
					     "not_measured_apart", JR_STR, 1)) >= 0 &&
		    d->n[k].type == JR_STR)
			snprintf(r->probe.why, sizeof(r->probe.why), "%s", d->n[k].str);
	} else {
		struct lat_probe *p = &r->probe;
		k = jrec_get(d, lat, "run");
		k = jrec_get(d, k, "base_page_bytes");
		r->base_page = k >= 0 ? jrec_count(d, lat, "", "run.base_page_bytes", 1) : 0;
		p->ran = 1;
		p->page = jrec_count(d, pr, "probes.", "page_bytes", 1);
		p->window = jrec_count(d, pr, "probes.", "local_window_bytes", 1);
		p->retimed = (int)jrec_count(d, pr, "probes.", "retimed", 0);
		p->local = lat_record_points(d, lat, "probes.tlb_local", 0, &p->nlocal);
		p->lpage = lat_record_points(d, lat, "probes.line_a_page", 0, &p->nlpage);
		p->excess = calloc((size_t)(p->nlpage ? p->nlpage : 1), sizeof(*p->excess));
		if (!p->excess)
			die("out of memory reading --curve-in");
		if (p->nlocal == 0)
			die("--curve-in %s: probes.tlb_local is empty", d->file);
		if (p->nlpage == 0) {
			k = d->n[jrec_need(d, lat, "", "summary", JR_ARR, 0)].kid;
			if (k < 0)
				die("--curve-in %s: the record has no summary[0] to say "
				    "why probes.line_a_page is empty", d->file);
			k = jrec_need(d, k, "summary[0].", "tlbs_seen.not_measured",
				      JR_STR, 0);
			snprintf(p->lpage_why, sizeof(p->lpage_why), "%s", d->n[k].str);
		}
	}
	return lat;
}

/* --curve-in with a record: its analysis again, by this build, and the
 * summary a live run prints, text and JSON; nothing is measured. */
/* Flags a record answers itself: given with one, refused, not ignored. */
static void lat_record_options(const struct options *o)
{
	static const char *const own[] = {"caches", "tlb", "pattern", "stride",
					  "min", "max", "mhz"};
	size_t k;
	for (k = 0; k < sizeof(own) / sizeof(own[0]); k++)
		if (opt_given(o, own[k]))
			die("--%s: %s is a bench record, which holds its own (--%s is "
			    "for a \"size_MB ns\" curve or a live run)", own[k],
			    o->curve_in, own[k]);
}

/* The first stride's summary of the last latency run or --curve-in
 * file, and its clock (0: none), kept for bench hierarchy (section 23b),
 * which reads the levels and measures bandwidth inside each. */
static struct lat_kept {
	int have;
	struct lat_summary sum;
	double mhz;
} lat_kept;

static void lat_keep(const struct lat_summary *s, double mhz)
{
	lat_kept.have = 1;
	lat_kept.sum = *s;
	lat_kept.mhz = mhz;
}

static int lat_replay(struct options *o, struct jrec *d)
{
	struct system_info *si = calloc(1, sizeof(*si));
	struct lat_run r;
	char b[32], pg[64];
	int lat, i;
	if (!si)
		die("out of memory reading --curve-in");
	memset(&r, 0, sizeof(r));
	lat = lat_record_read(d, o, si, &r);
	lat_summarise(o, si, &r);
	if (o->nstrides > 0) /* for bench hierarchy --curve-in RECORD */
		lat_keep(&r.sums[0], r.mhz);
	if (out.json) {
		json_open(NULL, '{');
		json_str("schema", JSON_SCHEMA);
		json_str("mode", "latency");
		json_open("command", '[');
		for (i = 0; i < cmd_argc; i++)
			json_str(NULL, cmd_argv[i]);
		json_close(']');
		json_build();
		json_open("replay", '{');
		json_str("source", o->curve_in);
		jrec_copy(d, "mode", jrec_get(d, 0, "mode"));
		jrec_copy(d, "command", jrec_need(d, 0, "", "command", JR_ARR, 0));
		jrec_copy(d, "build", jrec_need(d, 0, "", "build", JR_OBJ, 0));
		jrec_copy(d, "warnings", jrec_need(d, 0, "", "warnings", JR_ARR, 0));
		json_close('}');
		jrec_copy(d, "system", jrec_get(d, 0, "system"));
		jrec_copy(d, "run", jrec_get(d, lat, "run"));
		jrec_copy(d, "clock", jrec_get(d, lat, "clock"));
		jrec_copy(d, "curve", jrec_get(d, lat, "curve"));
		json_open("summary", '[');
		for (i = 0; i < o->nstrides; i++)
			lat_json_summary(&r.sums[i], r.mhz, i ? NULL : &r.probe);
		json_close(']');
		lat_json_probe_curves(&r.probe);
		json_end();
	}
	if (out.text) {
		text_warnings("# WARNING: ");
		format_bytes(b, sizeof(b), o->lat_max);
		if (r.pages.known)
			snprintf(pg, sizeof(pg), "%lu KiB pages (%.0f%% huge)",
				 r.pages.page_kib, r.pages.huge_pct);
		else
			snprintf(pg, sizeof(pg), "pages of unknown size (no smaps)");
		printf("# membench %s latency: a replay of a record, nothing "
		       "measured: pattern %s, alloc %s, %s on %s, chase on CPU %d\n",
		       BENCH_VERSION, lat_pattern_names[o->pattern],
		       alloc_names[r.plan.mode], b, pg, r.cpu);
		lat_print_clock(&r);
		lat_print_strides(&r, o->nstrides);
		lat_print_os_caches(si);
	}
	free(r.pts);
	free(r.sums);
	free(r.probe.local);
	free(r.probe.lpage);
	free(r.probe.excess);
	free(si);
	return 0;
}

/* A curve file's "stride=N header line: N whole bytes, from 1 to 2^50
 * (past the 1e9 MB the sizes may reach); anything else is refused, not
 * wrapped (-64 became 2^64 - 64) or clamped.  A quoted line of another
 * kind names no stride (0). */
static long curve_stride(const struct options *o, const char *line,
			 int lineno)
{
	const char *p = line + 8, *end;
	unsigned long long v = 0;
	if (strncmp(line, "\"stride=", 8) != 0)
		return 0;
	for (end = p; isdigit((unsigned char)*end) && v <= 1ULL << 50; end++)
		v = v * 10 + (unsigned long long)(*end - '0');
	while (isspace((unsigned char)*end))
		end++;
	if (end == p || *end || v < 1 || v > 1ULL << 50)
		die("--curve-in %s:%d: the \"stride= header is not a whole "
		    "number of bytes from 1 to 2^50", o->curve_in, lineno);
	return (long)v;
}

/* --curve-in: read "size_MB ns" lines (lat_mem_rd's output, our own, or
 * a synthetic curve) and summarise each stride block. */
static int lat_curve_file(struct options *o, const struct system_info *si)
{
	FILE *f = strcmp(o->curve_in, "-") ? fopen(o->curve_in, "r") : stdin;
	char line[512];
	double *bytes = NULL, *ns = NULL;
	struct lat_summary *sums = NULL;
	struct lat_ctx ctx;
	int n = 0, cap = 0, lineno = 0, blocks = 0, done = 0;
	long stride = 0;

	/* The caches are those of the machine the curve came from, given
	 * by --caches; this machine's would be a guess. */
	if (!f)
		die("--curve-in %s: %s", o->curve_in, strerror(errno));
	{
		/* bench's own record (a JSON object) holds all it needs */
		int c;
		while ((c = getc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
			;
		if (c != EOF)
			ungetc(c, f);
		if (c == '{') {
			struct jrec d;
			lat_record_options(o);
			jrec_read(&d, f, o->curve_in);
			if (f != stdin)
				fclose(f);
			c = lat_replay(o, &d);
			free(d.text);
			free(d.n);
			return c;
		}
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.ncaches = o->ncurve_caches;
	memcpy(ctx.cache, o->curve_caches, sizeof(ctx.cache));
	ctx.line = o->curve_line;
	ctx.pattern = o->pattern;
	ctx.page = o->curve_page ? (double)o->curve_page : 4096.0;
	ctx.tlb_known = ctx.ntlb = o->ncurve_tlbs;
	for (n = 0; n < ctx.ntlb; n++)
		ctx.reach[n] = (double)o->curve_tlbs[n] * ctx.page;
	n = 0;
	(void)si;
	while (!done) {
		double mb, v;
		char extra;
		int eof = !fgets(line, sizeof(line), f);
		lineno++;
		if (!eof && line[0] == '"') {
			stride = curve_stride(o, line, lineno);
			continue;
		}
		if (!eof && sscanf(line, "%lf %lf %c", &mb, &v, &extra) == 2) {
			if (!finite_d(mb) || !finite_d(v) || mb > 1e9 || v > 1e9)
				die("--curve-in %s:%d: a size or latency is not a finite "
				    "number below 1e9", o->curve_in, lineno);
			if (!(mb > 0) || !(v > 0) || (n && mb * 1048576.0 <= bytes[n - 1]))
				die("--curve-in %s:%d: sizes must be positive and rising, "
				    "latencies positive", o->curve_in, lineno);
			if (n == cap) {
				cap = cap ? 2 * cap : 256;
				bytes = realloc(bytes, (size_t)cap * sizeof(*bytes));
				ns = realloc(ns, (size_t)cap * sizeof(*ns));
				if (!bytes || !ns)
					die("out of memory reading --curve-in");
			}
			bytes[n] = mb * 1048576.0;
			ns[n++] = v;
			continue;
		}
		if (!eof && line[0] != '\n' && line[0] != '#')
			die("--curve-in %s:%d: not a \"size_MB ns\" line", o->curve_in,
			    lineno);
		if (n == 0) {
			done = eof;
			continue;
		}
		/* a blank line, a comment or the end closes a block */
		sums = realloc(sums, (size_t)(blocks + 1) * sizeof(*sums));
		if (!sums)
			die("out of memory reading --curve-in");
		lat_read_curve(bytes, ns, n, (size_t)stride, &ctx,
			       o->pattern == P_RANDOM, &sums[blocks++]);
		n = 0;
		done = eof;
	}
	if (f != stdin)
		fclose(f);
	free(bytes);
	free(ns);
	if (blocks == 0)
		die("--curve-in %s: no \"size_MB ns\" lines", o->curve_in);
	lat_keep(&sums[0], o->mhz);
	lat_report_file(o, si, sums, blocks);
	free(sums);
	return 0;
}

/* Measure and report latency.  summary_only (bench all) drops the
 * curve from the text; nested: `bench all` owns the JSON document. */
static int latency_mode(struct options *o, const struct system_info *si,
			int summary_only, int nested)
{
	struct lat_run r;
	double t_start = now();
	int i;

	lat_check(o, si);
	if (o->curve_in)
		return lat_curve_file(o, si);
	memset(&r, 0, sizeof(r));
	alloc_plan(&r.plan, o, M_LATENCY, reported_llc(si),
		   reported_llc_instances(si), 1);
	lat_load_check_cpus(o);
	lat_prepare(o, &r);
	/* after every refusal, before the curve is measured */
	if (out.text && !summary_only)
		text_warnings("# WARNING: ");
	lat_report_begin(o, summary_only);
	lat_sweep(o, si, &r);
	r.elapsed = now() - t_start;
	if (o->mhz <= 0 && r.mhz > 0) {
		int runs, preempted;
		r.mhz_end = lat_measure_mhz(&runs, &preempted);
		if (abs_d(r.mhz_end / r.mhz - 1) > LAT_CLOCK_DRIFT)
			warn("the clock estimate moved from %.0f to %.0f MHz during the "
			     "run; cycle counts are uncertain (pin the frequency or "
			     "pass --mhz)", r.mhz, r.mhz_end);
	}
	if (r.pages.known && r.pages.huge_pct < 50 &&
	    (r.plan.mode == A_THP || r.plan.mode == A_HUGETLB))
		warn("--alloc %s: only %.0f%% of the chase buffer is on huge pages",
		     alloc_names[r.plan.mode], r.pages.huge_pct);
	if (o->nstrides > 0)
		lat_keep(&r.sums[0], r.mhz);
	lat_report(o, si, &r, nested);
	for (i = 0; i < r.plan.regions; i++)
		region_free(&r.bufs[i]);
	for (i = 0; r.load_arrays && i < o->load_threads; i++)
		region_free(&r.load_arrays[i]);
	free(r.load_arrays);
	free(r.pts);
	free(r.sums);
	free(r.probe.local);
	free(r.probe.excess);
	return 0;
}

/* ======================================================================
 * The core-to-core program (bench c2c).  Intel MLC's --c2c_latency as a
 * matrix: for each pair of CPUs, two threads pinned one to each bounce a
 * cache line, and half the round trip is one transfer's latency.  Its
 * results live in one struct c2c_run, which section 21 fills and renders.
 * ====================================================================== */

/* ======================================================================
 * 21 Core to core: the CPUs of the matrix and how they relate, the
 * ping-pong, the cells' figures, and the report (text, JSON, CSV).
 * ====================================================================== */

#if HAVE_C2C
/* How the two CPUs of a pair relate, from the topology below. */
enum c2c_class { C2C_SMT, C2C_SOCKET, C2C_REMOTE, C2C_UNKNOWN, NC2C_CLASS };
static const char *const c2c_class_keys[NC2C_CLASS] = {
	"smt", "socket", "remote", "unknown"
};
static const char *const c2c_class_names[NC2C_CLASS] = {
	"same core (SMT siblings)", "same socket", "other socket",
	"unknown (no topology)"
};

/* Where a CPU sits: its package (socket) and core, -1 where the OS does
 * not say; from the machine's shape (section 2), whose core is the
 * lowest CPU number among a core's SMT siblings. */
struct c2c_place {
	int pkg, core;
};

static struct c2c_place c2c_place_of(int cpu)
{
	const struct machine_shape *m = machine_shape();
	const struct shape_cpu *c = m->topology_known ? shape_cpu(m, cpu) : NULL;
	struct c2c_place p;
	p.pkg = c && c->package >= 0 ? c->package : -1;
	p.core = p.pkg >= 0 ? c->core : -1;
	return p;
}

static enum c2c_class c2c_relate(struct c2c_place a, struct c2c_place b)
{
	if (a.pkg < 0 || b.pkg < 0)
		return C2C_UNKNOWN;
	if (a.pkg != b.pkg)
		return C2C_REMOTE;
	return a.core == b.core ? C2C_SMT : C2C_SOCKET;
}

/* One pair's measurement. */
struct c2c_cell {
	int a, b;             /* the CPUs it names: a's thread pings */
	enum c2c_class cls;
	int ran[2][2];        /* the CPU each thread ran on, before and after */
	int pinned;           /* both threads were pinned */
	int on_cpus;          /* ... and ran where the cell says */
	int protocol;         /* the line always held what the protocol allows */
	unsigned long long trips;    /* round trips thread a timed and warmed */
	unsigned long long answered; /* the numbers thread b answered */
	double min_ns, q1_ns, median_ns, q3_ns, max_ns; /* half a round trip */
};

/* The pairs of one relation, over the cells that ran on their CPUs. */
struct c2c_sum {
	int pairs, on_cpus;
	double min_ns, median_ns; /* of the cells' minima, of their medians */
};

struct c2c_run {
	int n;                 /* CPUs in the matrix */
	int *cpus;             /* ascending */
	struct c2c_place *place;
	const char *pick;      /* "allowed", "list", "cores" or "sockets" */
	int ncells;
	struct c2c_cell *cells; /* pairs i < j, row by row */
	int marked;            /* cells not on their CPUs, or not measured */
	int over_quota;        /* a pair's two threads are above the CPU quota */
	struct c2c_sum sum[NC2C_CLASS];
};

static int cmp_int(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;
	return (a > b) - (a < b);
}

/* The CPUs of the matrix, as --cpus asks, each checked against the CPUs
 * this process may run on: a CPU outside them, or one the machine does
 * not have, is refused in one line. */
static void c2c_pick_cpus(const struct options *o, struct c2c_run *r)
{
	static int allowed[MAX_THREADS];
	char list[512];
	int na = allowed_cpus(allowed, MAX_THREADS), i, j, k;
	if (na <= 0)
		die("c2c: this OS does not say which CPUs bench may run on");
	format_cpu_list(list, sizeof(list), allowed, na);
	r->cpus = malloc((size_t)na * sizeof(int));
	r->place = malloc((size_t)na * sizeof(*r->place));
	if (!r->cpus || !r->place)
		die("out of memory for %d CPUs", na);
	r->n = 0;
	if (!o->c2c_cpus) {
		r->pick = "allowed";
		memcpy(r->cpus, allowed, (size_t)na * sizeof(int));
		r->n = na;
	} else if (strcmp(o->c2c_cpus, "cores") == 0 ||
		   strcmp(o->c2c_cpus, "sockets") == 0) {
		int by_core = o->c2c_cpus[0] == 'c';
		r->pick = o->c2c_cpus;
		for (i = 0; i < na; i++) {
			struct c2c_place p = c2c_place_of(allowed[i]);
			if (p.pkg < 0)
				die("--cpus %s: the OS reports no topology for CPU %d "
				    "(sysfs cpu%d/topology), so bench cannot tell %s "
				    "apart", o->c2c_cpus, allowed[i], allowed[i],
				    o->c2c_cpus);
			for (j = 0; j < r->n; j++)
				if (r->place[j].pkg == p.pkg &&
				    (!by_core || r->place[j].core == p.core))
					break;
			if (j == r->n) {
				r->place[r->n] = p;
				r->cpus[r->n++] = allowed[i];
			}
		}
		if (r->n < 2)
			die("--cpus %s: the CPUs this process may run on (%s) are on "
			    "one %s; a pair needs two", o->c2c_cpus, list,
			    by_core ? "core" : "socket");
	} else {
		static int want[MAX_THREADS];
		int nw = parse_cpu_list("--cpus", o->c2c_cpus, want, MAX_THREADS);
		r->pick = "list";
		for (i = 0; i < nw; i++) {
			for (k = 0; k < na && allowed[k] != want[i]; k++)
				;
			if (k < na)
				continue;
			if (want[i] >= os_cpus_configured())
				die("--cpus: CPU %d does not exist (this machine has "
				    "%ld CPUs, 0-%ld)", want[i], os_cpus_configured(),
				    os_cpus_configured() - 1);
			die("--cpus: CPU %d is not one this process may run on (%s)",
			    want[i], list);
		}
		memcpy(r->cpus, want, (size_t)nw * sizeof(int));
		r->n = nw;
	}
	if (r->n < 2)
		die("c2c: this process may run on one CPU only (%s); a pair needs "
		    "two", list);
	qsort(r->cpus, (size_t)r->n, sizeof(int), cmp_int);
	for (i = 0; i < r->n; i++)
		r->place[i] = c2c_place_of(r->cpus[i]);
}

/* The line's word is an unsigned int, whose atomic loads and stores
 * every target does inline (a 64-bit one would want libatomic on some
 * 32-bit targets, and bench.c links with no -l).  The value that ends a
 * pair: thread a's pings are odd, thread b's answers even, and neither
 * reaches it (a pair makes millions of round trips, not billions). */
#define C2C_STOP UINT_MAX

/* One round trip from thread a: write the next odd number, wait until
 * thread b answers with the even one after it.  The store is a release
 * and the load an acquire, so the compiler may neither drop nor merge
 * them, and the wait ends only on a number that thread b alone writes.
 * Returns 0, or -1 when the line held a number neither could have put
 * there (then the cell is marked, not measured). */
static int c2c_trip(unsigned *line, unsigned *v)
{
	unsigned ping = *v + 1, pong = *v + 2, x;
	__atomic_store_n(line, ping, __ATOMIC_RELEASE);
	while ((x = __atomic_load_n(line, __ATOMIC_ACQUIRE)) != pong)
		if (x != ping)
			return -1;
	*v = pong;
	return 0;
}

/* Thread a: warm-up bouncing for C2C_WARM_NS (four batches at least)
 * in batches of 64 round trips, whose fastest sizes a window of about
 * C2C_WINDOW_NS (the fastest: a batch the OS interrupted would make the
 * windows short), then C2C_WINDOWS timed windows, each's time over its
 * round trips, halved, into per[].  Ends thread b with C2C_STOP. */
static int c2c_ping(unsigned *line, double *per, unsigned long long *trips)
{
	unsigned v = 0;
	unsigned long long n = 0, reps, i;
	double start = now(), t0, t, fastest = HUGE_VAL;
	int w, bad = 0;
	do {
		t0 = now();
		for (i = 0; i < 64 && !bad; i++)
			bad = c2c_trip(line, &v);
		t = now() - t0;
		n += i;
		if (t < fastest)
			fastest = t;
	} while (!bad && (now() - start < C2C_WARM_NS * 1e-9 || n < 4 * 64));
	reps = bad || !(fastest > 0) ? 16
	       : (unsigned long long)(C2C_WINDOW_NS * 1e-9 / (fastest / 64.0));
	if (reps < 16)
		reps = 16;
	for (w = 0; w < C2C_WINDOWS && !bad; w++) {
		t0 = now();
		for (i = 0; i < reps && !bad; i++)
			bad = c2c_trip(line, &v);
		t = now() - t0;
		n += i;
		per[w] = 1e9 * t / (double)reps / 2.0;
	}
	__atomic_store_n(line, C2C_STOP, __ATOMIC_RELEASE);
	*trips = n;
	return bad ? -1 : 0;
}

/* Thread b: answer each odd number with the even one after it, until
 * C2C_STOP; returns how many it answered. */
static unsigned long long c2c_pong(unsigned *line)
{
	unsigned v = 1, x;
	unsigned long long n = 0;
	for (;;) {
		while ((x = __atomic_load_n(line, __ATOMIC_ACQUIRE)) != v)
			if (x == C2C_STOP)
				return n;
#if C2C_STRAY_TEST > 0
		if (n + 1 == C2C_STRAY_TEST) {
			__atomic_store_n(line, v + 3, __ATOMIC_RELEASE);
			v += 2;
			n++;
			continue;
		}
#endif
		__atomic_store_n(line, v + 1, __ATOMIC_RELEASE);
		v += 2;
		n++;
	}
}

/* Measure one pair: both threads pin themselves and say where they run;
 * the line is a page of its own, written first by thread a (so it is on
 * a's node); they bounce it only if both are pinned and the runtime gave
 * two threads, and say where they ran after. */
static void c2c_pair(struct c2c_cell *c)
{
	double per[C2C_WINDOWS], sorted[C2C_WINDOWS];
	long page = os_page_bytes();
	unsigned *line = NULL;
	int pinned[2] = {0, 0}, got = 0, bad = 0;
	unsigned long long trips = 0, answered = 0;
#pragma omp parallel num_threads(2)
	{
		int t = omp_get_thread_num();
		pinned[t] = pin_to_cpu(t ? c->b : c->a) == 0;
		c->ran[t][0] = current_cpu();
		if (t == 0) {
			got = omp_get_num_threads();
			line = os_map((size_t)page);
			if (line)
				__atomic_store_n(line, 0, __ATOMIC_RELEASE);
		}
#pragma omp barrier
#if C2C_MOVE_TEST
		if (t == 1 && pinned[0] && pinned[1])
			pin_to_cpu(c->a);
#endif
		if (got == 2 && line && pinned[0] && pinned[1]) {
			if (t == 0)
				bad = c2c_ping(line, per, &trips);
			else
				answered = c2c_pong(line);
		}
		c->ran[t][1] = current_cpu();
	}
	if (got < 2)
		die("c2c: the OpenMP runtime gave %d thread(s) where a pair needs "
		    "two (OMP_THREAD_LIMIT, OMP_DYNAMIC?)", got);
	if (!line)
		die("c2c: cannot map a page for the line");
	os_unmap(line, (size_t)page);
	c->pinned = pinned[0] && pinned[1];
	c->protocol = !bad;
	c->trips = trips;
	c->answered = answered;
	c->on_cpus = c->pinned && c->protocol && trips == answered &&
		     c->ran[0][0] == c->a && c->ran[0][1] == c->a &&
		     c->ran[1][0] == c->b && c->ran[1][1] == c->b;
	c->min_ns = c->q1_ns = c->median_ns = c->q3_ns = c->max_ns = HUGE_VAL;
	if (!c->pinned || bad)
		return;
	memcpy(sorted, per, sizeof(sorted));
	qsort(sorted, C2C_WINDOWS, sizeof(double), cmp_double);
	c->min_ns = sorted[0];
	c->q1_ns = sorted[C2C_WINDOWS / 4];
	c->median_ns = median(per, C2C_WINDOWS);
	c->q3_ns = sorted[(3 * C2C_WINDOWS) / 4];
	c->max_ns = sorted[C2C_WINDOWS - 1];
}

/* The summary by relation, once, for every format: per relation its
 * pairs, and over those that ran on their CPUs the least minimum and
 * the median of the medians. */
static void c2c_summarise(struct c2c_run *r)
{
	double *med = malloc((size_t)r->ncells * sizeof(double));
	int cls, k;
	if (!med)
		die("out of memory for the summary");
	for (cls = 0; cls < NC2C_CLASS; cls++) {
		struct c2c_sum *m = &r->sum[cls];
		m->pairs = m->on_cpus = 0;
		m->min_ns = m->median_ns = HUGE_VAL;
		for (k = 0; k < r->ncells; k++) {
			const struct c2c_cell *c = &r->cells[k];
			if ((int)c->cls != cls)
				continue;
			m->pairs++;
			if (!c->on_cpus)
				continue;
			med[m->on_cpus++] = c->median_ns;
			if (c->min_ns < m->min_ns)
				m->min_ns = c->min_ns;
		}
		if (m->on_cpus)
			m->median_ns = median(med, (size_t)m->on_cpus);
	}
	free(med);
}

/* Why a cell is marked, in words, for the warning and the text alike. */
static void c2c_cell_problem(const struct c2c_cell *c, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	if (!c->pinned)
		used += (size_t)snprintf(buf + used, len - used, "; a thread could "
					 "not be pinned, so nothing was measured");
	if (c->pinned && (c->ran[0][0] != c->a || c->ran[0][1] != c->a ||
			  c->ran[1][0] != c->b || c->ran[1][1] != c->b) && used < len)
		used += (size_t)snprintf(buf + used, len - used, "; its threads ran "
					 "on CPUs %d then %d and %d then %d, not on %d "
					 "and %d", c->ran[0][0], c->ran[0][1],
					 c->ran[1][0], c->ran[1][1], c->a, c->b);
	if (!c->protocol && used < len)
		used += (size_t)snprintf(buf + used, len - used, "; the line held a "
					 "number neither thread writes, so nothing "
					 "was measured");
	if (c->pinned && c->protocol && c->trips != c->answered && used < len)
		snprintf(buf + used, len - used, "; %llu round trips, %llu answered",
			 c->trips, c->answered);
	if (buf[0])
		memmove(buf, buf + 2, strlen(buf + 2) + 1);
}

/* A cell's figure as the text shows it: "41.2/43.0", or why not. */
static void c2c_cell_text(const struct c2c_cell *c, char *buf, size_t len)
{
	if (!c->pinned)
		snprintf(buf, len, "not pinned");
	else if (!c->protocol)
		snprintf(buf, len, "bad line!");
	else
		snprintf(buf, len, "%.1f/%.1f%s", c->min_ns, c->median_ns,
			 c->on_cpus ? "" : "!");
}

static void print_c2c_text(const struct c2c_run *r)
{
	char buf[48];
	int i, j, k = 0, cls, w = 12;
	printf("Half round trip per pair (ns), min/median of %d windows; a row's "
	       "CPU pings, the column's answers:\n", C2C_WINDOWS);
	printf("%6s", "");
	for (j = 1; j < r->n; j++)
		printf(" %*d", w, r->cpus[j]);
	printf("\n");
	for (i = 0; i + 1 < r->n; i++) {
		printf("%6d", r->cpus[i]);
		for (j = 1; j < r->n; j++) {
			if (j <= i) {
				printf(" %*s", w, "");
				continue;
			}
			c2c_cell_text(&r->cells[k++], buf, sizeof(buf));
			printf(" %*s", w, buf);
		}
		printf("\n");
	}
	printf(HLINE);
	printf("Summary by how the two CPUs relate (cells on their CPUs only):\n");
	printf("  %-26s %6s %10s %10s\n", "relation", "pairs", "min ns",
	       "median ns");
	for (cls = 0; cls < NC2C_CLASS; cls++) {
		const struct c2c_sum *m = &r->sum[cls];
		if (m->on_cpus)
			printf("  %-26s %6d %10.1f %10.1f\n", c2c_class_names[cls],
			       m->pairs, m->min_ns, m->median_ns);
		else if (m->pairs || cls != C2C_UNKNOWN)
			printf("  %-26s %6d %10s %10s\n", c2c_class_names[cls],
			       m->pairs, "-", "-");
	}
	if (r->marked) {
		printf("Marked (!): cells that did not run as they say; left out "
		       "of the summary:\n");
		for (k = 0; k < r->ncells; k++) {
			char why[320];
			if (r->cells[k].on_cpus)
				continue;
			c2c_cell_problem(&r->cells[k], why, sizeof(why));
			printf("  %d-%d: %s\n", r->cells[k].a, r->cells[k].b, why);
		}
	}
	printf(HLINE);
}

static void c2c_json_cell_ran(const char *key, const int ran[2])
{
	json_open(key, '[');
	json_int(NULL, ran[0]);
	json_int(NULL, ran[1]);
	json_close(']');
}

static void json_c2c(const struct c2c_run *r)
{
	int i, k, cls;
	json_open("c2c", '{');
	json_str("method", "half the round trip of a cache line bounced between "
		 "two pinned threads (acquire loads, release stores)");
	json_int("windows", C2C_WINDOWS);
	json_num("window_ns", C2C_WINDOW_NS);
	json_num("warm_ns", C2C_WARM_NS);
	json_str("cpus_from", r->pick);
	json_open("cpus", '[');
	for (i = 0; i < r->n; i++) {
		json_open(NULL, '{');
		json_int("cpu", r->cpus[i]);
		if (r->place[i].pkg >= 0) {
			json_int("package", r->place[i].pkg);
			json_int("core", r->place[i].core);
		} else {
			json_str("package", NULL);
			json_str("core", NULL);
		}
		json_close('}');
	}
	json_close(']');
	json_open("pairs", '[');
	for (k = 0; k < r->ncells; k++) {
		const struct c2c_cell *c = &r->cells[k];
		json_open(NULL, '{');
		json_int("a", c->a);
		json_int("b", c->b);
		json_str("relation", c2c_class_keys[c->cls]);
		json_num("min_ns", c->min_ns);
		json_num("q1_ns", c->q1_ns);
		json_num("median_ns", c->median_ns);
		json_num("q3_ns", c->q3_ns);
		json_num("max_ns", c->max_ns);
		json_int("round_trips", (long long)c->trips);
		json_int("answered", (long long)c->answered);
		c2c_json_cell_ran("a_ran_on", c->ran[0]);
		c2c_json_cell_ran("b_ran_on", c->ran[1]);
		json_bool("pinned", c->pinned);
		json_bool("on_cpus", c->on_cpus);
		json_close('}');
	}
	json_close(']');
	json_open("summary", '[');
	for (cls = 0; cls < NC2C_CLASS; cls++) {
		const struct c2c_sum *m = &r->sum[cls];
		if (!m->pairs && cls == C2C_UNKNOWN)
			continue;
		json_open(NULL, '{');
		json_str("relation", c2c_class_keys[cls]);
		json_int("pairs", m->pairs);
		json_int("pairs_on_cpus", m->on_cpus);
		json_num("min_ns", m->min_ns);
		json_num("median_ns", m->median_ns);
		json_close('}');
	}
	json_close(']');
	json_int("marked", r->marked);
	json_bool("threads_over_quota", r->over_quota);
	json_close('}');
}

static void print_c2c_csv(const struct c2c_run *r)
{
	char num[48];
	int i, k;
	for (i = 0; i < nwarnings; i++)
		fprintf(stderr, "%s: warning: %s\n", prog, warnings[i]);
	printf("cpu_a,cpu_b,relation,min_ns,median_ns,q1_ns,q3_ns,max_ns,"
	       "windows,round_trips,answered,a_ran_on,b_ran_on,on_cpus\n");
	for (k = 0; k < r->ncells; k++) {
		const struct c2c_cell *c = &r->cells[k];
		snprintf(num, sizeof(num), "%d", c->a);
		csv_field(num, 0);
		snprintf(num, sizeof(num), "%d", c->b);
		csv_field(num, 0);
		csv_field(c2c_class_keys[c->cls], 0);
		csv_num(c->min_ns);
		csv_num(c->median_ns);
		csv_num(c->q1_ns);
		csv_num(c->q3_ns);
		csv_num(c->max_ns);
		snprintf(num, sizeof(num), "%d", C2C_WINDOWS);
		csv_field(num, 0);
		snprintf(num, sizeof(num), "%llu", c->trips);
		csv_field(num, 0);
		snprintf(num, sizeof(num), "%llu", c->answered);
		csv_field(num, 0);
		snprintf(num, sizeof(num), "%d %d", c->ran[0][0], c->ran[0][1]);
		csv_field(num, 0);
		snprintf(num, sizeof(num), "%d %d", c->ran[1][0], c->ran[1][1]);
		csv_field(num, 0);
		csv_field(c->on_cpus ? "yes" : "no", 1);
	}
}

/* The matrix, every refusal first (the run's and --plan's alike): the
 * CPUs, the pairs i < j in order, and whether a pair's two spinning
 * threads are more than the CPU quota gives time for. */
static void c2c_setup(const struct options *o, struct c2c_run *r)
{
	int i, j, k;
	memset(r, 0, sizeof(*r));
	if (omp_binding_env())
		die("c2c: %s is set, and the OpenMP runtime has pinned the program "
		    "to its first place before bench began; c2c pins each pair's "
		    "threads itself: unset it", omp_binding_env());
	c2c_pick_cpus(o, r);
	r->ncells = r->n * (r->n - 1) / 2;
	r->cells = calloc((size_t)r->ncells, sizeof(*r->cells));
	if (!r->cells)
		die("out of memory for %d pairs", r->ncells);
	for (i = 0, k = 0; i < r->n; i++)
		for (j = i + 1; j < r->n; j++, k++) {
			r->cells[k].a = r->cpus[i];
			r->cells[k].b = r->cpus[j];
			r->cells[k].cls = c2c_relate(r->place[i], r->place[j]);
		}
	r->over_quota = quota_over(2, "c2c's pairs: ");
}

static void c2c_release(struct c2c_run *r)
{
	free(r->cells);
	free(r->cpus);
	free(r->place);
}

/* --plan: the CPUs (in cpus) and the pairs; a pair bounces a line in a
 * page of its own, so there is no memory to plan, only its two threads.
 * Returns 1 when they are above the CPU quota. */
static int c2c_plan(const struct options *o, char *cpus, size_t len,
		    int *pairs)
{
	struct c2c_run r;
	c2c_setup(o, &r);
	format_cpu_list(cpus, len, r.cpus, r.n);
	*pairs = r.ncells;
	c2c_release(&r);
	return r.over_quota;
}

/* bench c2c: pick the CPUs, say what it will do, measure every pair
 * i < j in order, report.  Returns 0: a cell that did not run where it
 * says is marked in the report, not an error. */
static int c2c_mode(const struct options *o, const struct system_info *si)
{
	struct c2c_run r;
	int i, k;
	c2c_setup(o, &r);
	if (out.text) {
		char list[512];
		format_cpu_list(list, sizeof(list), r.cpus, r.n);
		printf(HLINE);
		printf("membench %s: core-to-core latency (bench c2c)\n",
		       BENCH_VERSION);
		printf(HLINE);
		print_build_text();
		print_system_text(si);
		printf("CPUs: %s (%s), %d pair%s; each pair bounces its line for "
		       "%.0f ms, then %d windows of about %.2f ms\n", list,
		       strcmp(r.pick, "allowed") == 0 ? "every allowed CPU"
		       : strcmp(r.pick, "list") == 0 ? "--cpus" : r.pick,
		       r.ncells, r.ncells == 1 ? "" : "s", C2C_WARM_NS * 1e-6, C2C_WINDOWS,
		       C2C_WINDOW_NS * 1e-6);
		printf("Topology (sysfs):");
		for (i = 0; i < r.n; i++)
			if (r.place[i].pkg >= 0)
				printf(" %d:socket %d core %d", r.cpus[i], r.place[i].pkg,
				       r.place[i].core);
			else
				printf(" %d:unknown", r.cpus[i]);
		printf("\n");
		printf(HLINE);
		fflush(stdout);
	}
	for (k = 0; k < r.ncells; k++) {
		c2c_pair(&r.cells[k]);
		if (!r.cells[k].on_cpus) {
			char why[320];
			c2c_cell_problem(&r.cells[k], why, sizeof(why));
			r.marked++;
			warn("c2c pair %d-%d is marked: %s", r.cells[k].a,
			     r.cells[k].b, why);
		}
	}
	c2c_summarise(&r);
	if (out.json) {
		json_begin("c2c", si);
		json_c2c(&r);
		json_end();
	}
	if (out.text) {
		text_warnings("WARNING: ");
		print_c2c_text(&r);
	}
	if (out.csv)
		print_c2c_csv(&r);
	c2c_release(&r);
	return 0;
}
#else
/* Where this build cannot run it: one line, exit 2. */
static int c2c_mode(const struct options *o, const struct system_info *si)
{
	(void)o;
	(void)si;
	die("c2c: core-to-core latency needs two threads at once, atomic loads "
	    "and stores, and pinning, and this build lacks %s",
#ifndef _OPENMP
	    "OpenMP (rebuild with -fopenmp)"
#elif !HAVE_PIN
	    "a way to pin a thread on this OS"
#else
	    "the compiler's __atomic builtins"
#endif
	);
	return 2;
}

/* --plan refuses it the same way. */
static int c2c_plan(const struct options *o, char *cpus, size_t len,
		    int *pairs)
{
	(void)cpus;
	(void)len;
	(void)pairs;
	return c2c_mode(o, NULL);
}
#endif

/* ======================================================================
 * The node matrices (bench nodes).  MLC's latency and bandwidth
 * matrices, run where they say: for each pair of a node whose CPUs run
 * (a row) and a node whose memory is read (a column), the latency
 * program's chase and the bandwidth program's kernels over buffers bound
 * to the column's node, each cell checked for where its threads ran and
 * where its pages lay.
 * ====================================================================== */

/* ======================================================================
 * 22 Nodes.  The rows and columns from the machine's shape and the
 * flags, the buffer's size from the columns' free memory, then column
 * by column: bind (os_bind_memory), fault in, and for each row pin,
 * measure with sections 14-16 (a chase) or 10-13 (a STREAM run), and
 * ask the kernel where every page is (os_page_nodes).  A binding the
 * kernel refuses is a cell that says so; a cell whose threads were seen
 * on another CPU, or whose pages are not all on its node, is marked.
 * ====================================================================== */

/* A row: a node whose CPUs run the cell's threads, thread t on cpus[t];
 * the latency chase runs on cpus[0]. */
struct nodes_row {
	int node;
	int ncpus;
	int *cpus;
};

/* A column: a node whose memory holds the cell's buffer; nodes without
 * CPUs (CXL or HBM memory) are columns only. */
struct nodes_col {
	int node;
	int ncpus;
	int mem_known;
	unsigned long long mem_bytes, free_bytes; /* read when sized */
};

/* One cell of one matrix. */
struct nodes_cell {
	int measured;     /* the binding held and the cell ran */
	int bind_err;     /* the errno the kernel refused the binding with */
	double value;     /* ns per load, or best MB/s */
	double median;    /* bandwidth: median MB/s */
	double worst;     /* bandwidth: the slowest repetition's MB/s */
	int stable;       /* latency: the windows agreed before the cap */
	int valid;        /* bandwidth: the row's run validated */
	int nran;         /* CPUs seen, two a thread (start, end) */
	int *ran;
	int cpus_held;    /* each thread seen only on the CPU it was given */
	int pages_known;  /* the kernel said where the pages are */
	unsigned long long pages, absent, other;
	unsigned long long *node_pages; /* per node of the shape, in its order */
	int pages_held;   /* every page present and on the column's node */
	unsigned long page_kib; /* 0, and huge_pct -1: smaps said nothing */
	double huge_pct;
};

/* One matrix: latency, or one kernel's bandwidth. */
struct nodes_matrix {
	int latency;
	int kernel;
	struct nodes_cell *cells; /* row-major: [row * ncols + col] */
};

struct nodes_run {
	int nrows, ncols;
	struct nodes_row rows[SHAPE_MAX_NODES];
	struct nodes_col cols[SHAPE_MAX_NODES];
	char not_row[SHAPE_MAX_NODES][160]; /* why a CPU node is not a row */
	int nnot_rows;
	int nids, ids[SHAPE_MAX_NODES]; /* every node, for page counts */
	int nallowed, allowed[MAX_THREADS];
	unsigned long long bytes; /* each cell's buffer */
	const char *bytes_rule;   /* "given", "default" or "capped" */
	unsigned long long bytes_wanted; /* the default before its cap */
	int capped_by;            /* the node whose free memory capped it */
	int threads;              /* the most at once: a bandwidth row's CPUs */
	int over_quota;           /* ... above the CPU quota */
	enum alloc_mode alloc;
	size_t page_size;      /* --page-size (hugetlb); 0 the default */
	size_t stride;
	int lat_on;            /* mx[0], latency, is measured */
	int nmx;
	struct nodes_matrix mx[NKERNELS + 1]; /* latency, then each kernel */
	int isa;               /* the bandwidth run's instruction set */
	const char *stores;    /* and its stores */
	double min_tick_s;     /* the fewest seconds a kernel took */
	double tick;
	int invalid;           /* bandwidth cells that failed validation */
};

/* The huge page of a hugetlb run: --page-size, else the default size. */
static unsigned long long nodes_huge_page(const struct nodes_run *nr)
{
	return nr->page_size ? nr->page_size : hugetlb_page_bytes();
}

static struct nodes_cell *nodes_cell(const struct nodes_run *nr,
				     const struct nodes_matrix *m, int row,
				     int col)
{
	return &m->cells[(size_t)row * (size_t)nr->ncols + (size_t)col];
}

/* Pin the calling thread to cpu, or under the move-test build to the
 * allowed CPU after it, so that the cell must be marked. */
static int nodes_cpu_given(const struct nodes_run *nr, int cpu)
{
#if NODES_MOVE_TEST
	int i;
	for (i = 0; i < nr->nallowed; i++)
		if (nr->allowed[i] == cpu)
			return nr->allowed[(i + 1) % nr->nallowed];
#endif
	(void)nr;
	return cpu;
}

/* Bind a region's whole mapping to node before anything touches it;
 * 0 or the kernel's errno.  The misplace-test build binds nothing. */
static int nodes_bind(const struct region *reg, int node)
{
#if NODES_MISPLACE_TEST
	(void)reg;
	(void)node;
	return 0;
#else
	return os_bind_memory(reg->map, reg->maplen, node);
#endif
}

/* Where the pages of [addr, addr + bytes) are, added to the cell. */
static void nodes_count_pages(const struct nodes_run *nr, struct nodes_cell *c,
			      const void *addr, size_t bytes)
{
	unsigned long page = (unsigned long)os_page_bytes();
	uintptr_t lo = (uintptr_t)addr / page * page;
	unsigned long long n = ((uintptr_t)addr + bytes - lo + page - 1) / page;
	if (!c->pages_known)
		return;
	c->pages += n;
	if (os_page_nodes(lo, n, page, nr->ids, nr->nids, c->node_pages,
			  &c->other, &c->absent) != 0)
		c->pages_known = 0;
}

/* The cell's verdict on its pages: all present and on node. */
static void nodes_judge_pages(const struct nodes_run *nr, struct nodes_cell *c,
			      int node)
{
	int k;
	c->pages_held = 0;
	if (!c->pages_known)
		return;
	for (k = 0; k < nr->nids; k++)
		if (nr->ids[k] == node)
			c->pages_held = c->absent == 0 && c->other == 0 &&
					c->node_pages[k] == c->pages;
}

/* Start a cell's record: its CPUs seen (two a thread) and its pages. */
static void nodes_cell_begin(const struct nodes_run *nr, struct nodes_cell *c,
			     int threads)
{
	c->measured = 1;
	c->bind_err = 0;
	c->nran = 2 * threads;
	c->ran = calloc((size_t)c->nran, sizeof(*c->ran));
	c->node_pages = calloc((size_t)nr->nids, sizeof(*c->node_pages));
	if (!c->ran || !c->node_pages)
		die("out of memory for the node matrices");
	c->pages = c->absent = c->other = 0;
	c->pages_known = 1;
}

/* Whether the cell's threads, as seen at their start and end, each ran
 * on the CPU named for it (named[t] for thread t), all n of them. */
static void nodes_judge_cpus(struct nodes_cell *c, const int *named, int n)
{
	int t;
	c->cpus_held = c->nran == 2 * n;
	for (t = 0; t < c->nran / 2 && t < n; t++)
		if (c->ran[2 * t] != named[t] || c->ran[2 * t + 1] != named[t])
			c->cpus_held = 0;
}

/* Every cell of column col refused: the kernel would not bind there. */
static void nodes_refused(struct nodes_run *nr, int col, int err, int latency)
{
	int m, i;
	for (m = 0; m < nr->nmx; m++)
		if (nr->mx[m].latency == latency)
			for (i = 0; i < nr->nrows; i++) {
				struct nodes_cell *c = nodes_cell(nr, &nr->mx[m], i, col);
				c->measured = 0;
				c->bind_err = err;
			}
}

/* Column col's latency cells: one buffer bound to its node, faulted in
 * and linked into one random cycle of lines, as bench latency does at
 * one size; each row's first CPU chases it (section 16's windows), and
 * the kernel is asked where its pages are after each. */
static void nodes_latency_column(struct nodes_run *nr, int col)
{
	struct nodes_matrix *m = &nr->mx[0];
	int node = nr->cols[col].node, err, i;
	size_t lines = (size_t)(nr->bytes / nr->stride);
	struct region reg;
	struct lat_chain ch;
	struct page_report pr;
	void *head;
	if (region_alloc(&reg, (size_t)nr->bytes, nr->alloc, 0, NULL,
			 nr->page_size) != 0)
		die("--alloc %s: could not obtain %.1f MiB for the chase buffer on "
		    "node %d (%s)", alloc_names[nr->alloc],
		    (double)nr->bytes / 1048576.0, node, strerror(errno));
	if ((err = nodes_bind(&reg, node)) != 0) {
		nodes_refused(nr, col, err, 1);
		region_free(&reg);
		return;
	}
	memset(reg.data, 0, reg.bytes); /* fault in before timing */
	page_report(reg.data, reg.bytes, &pr);
	lat_rng = LAT_SEED; /* every column chases bench latency's order */
	lat_chain_init(&ch, reg.data, (size_t)nr->bytes, nr->stride, P_RANDOM,
		       lat_page_bytes());
	head = lat_chain_build(&ch, lines);
	for (i = 0; i < nr->nrows; i++) {
		struct nodes_cell *c = nodes_cell(nr, m, i, col);
		struct lat_point pt;
		memset(&pt, 0, sizeof(pt));
		nodes_cell_begin(nr, c, 1);
		pin_to_cpu(nodes_cpu_given(nr, nr->rows[i].cpus[0]));
		c->ran[0] = current_cpu();
		lat_time_point(&head, 1, &pt, 0);
		c->ran[1] = current_cpu();
		c->value = pt.ns;
		c->stable = pt.stable;
		nodes_judge_cpus(c, nr->rows[i].cpus, 1);
		nodes_count_pages(nr, c, reg.data, reg.bytes);
		nodes_judge_pages(nr, c, node);
		c->page_kib = pr.known ? pr.page_kib : 0;
		c->huge_pct = pr.known ? pr.huge_pct : -1;
	}
	lat_chain_free(&ch);
	region_free(&reg);
}

/* Column col's bandwidth cells: STREAM's three arrays bound to its
 * node, and for each row a STREAM run of the chosen kernels by the
 * row's CPUs, one thread each (section 13's prepare, repetitions,
 * statistics and validation), then where every page of the arrays is. */
static void nodes_bandwidth_column(const struct options *o,
				   const struct system_info *si,
				   struct nodes_run *nr, int col)
{
	struct options so = *o;
	struct stream_run r;
	int node = nr->cols[col].node, err = 0, i, k, m, a;
	so.size = nr->bytes / sizeof(elem_t);
	so.size_auto = 0;
	so.offset = 0;
	so.alloc = nr->alloc;
	so.page_size = nr->page_size;
	so.best = 0;
	so.placement = 0;
	memset(&r, 0, sizeof(r));
	alloc_plan(&r.plan, &so, M_STREAM, reported_llc(si),
		   reported_llc_instances(si), 1);
	stream_allocate(&so, &r);
	for (a = 0; a < 3 && !err; a++)
		err = nodes_bind(&r.reg[a], node);
	if (err) {
		nodes_refused(nr, col, err, 0);
		stream_release(&r);
		return;
	}
	for (i = 0; i < nr->nrows; i++) {
		const struct nodes_row *row = &nr->rows[i];
		int given[MAX_THREADS], t;
		for (t = 0; t < row->ncpus; t++)
			given[t] = nodes_cpu_given(nr, row->cpus[t]);
#ifdef _OPENMP
		omp_set_num_threads(row->ncpus);
#endif
		stream_prepare_on(&so, &r, given, row->ncpus);
		stream_repetitions(&so, &r, NULL, NULL);
		stream_conclude(&so, &r, 1);
		nr->invalid += !r.valid;
		nr->isa = r.isa;
		nr->stores = stores_used(&so, &r);
		nr->tick = r.tick;
		for (m = 1; m < nr->nmx; m++) {
			struct nodes_cell *c = nodes_cell(nr, &nr->mx[m], i, col);
			double bytes;
			k = nr->mx[m].kernel;
			bytes = kernel_bytes(k, r.n);
			nodes_cell_begin(nr, c, threads_counted);
			for (t = 0; t < threads_counted && t < MAX_THREADS; t++) {
				c->ran[2 * t] = thread_cpu_start[t];
				c->ran[2 * t + 1] = thread_cpu_end[t];
			}
			nodes_judge_cpus(c, row->cpus, row->ncpus);
			for (a = 0; a < 3; a++)
				nodes_count_pages(nr, c, r.reg[a].data, r.reg[a].bytes);
			nodes_judge_pages(nr, c, node);
			c->value = bytes / r.min_t[k] / 1e6;
			c->median = bytes / r.med_t[k] / 1e6;
			c->worst = bytes / r.max_t[k] / 1e6;
			c->valid = r.valid;
			c->page_kib = 0;
			c->huge_pct = -1; /* unknown until an array says */
			for (a = 0; a < 3; a++) /* the array least on huge pages */
				if (r.pages[a].known && (c->huge_pct < 0 ||
							 r.pages[a].huge_pct < c->huge_pct)) {
					c->page_kib = r.pages[a].page_kib;
					c->huge_pct = r.pages[a].huge_pct;
				}
			if (r.min_t[k] < nr->min_tick_s)
				nr->min_tick_s = r.min_t[k];
		}
	}
	stream_release(&r);
}

/* The column's memory now (free memory moves), as sysfs says it; the
 * shape's account where the node has no meminfo of its own. */
static void nodes_col_memory(const struct machine_shape *m, struct nodes_col *c)
{
	int k;
	c->mem_known = node_memory(c->node, &c->mem_bytes, &c->free_bytes) == 0;
	for (k = 0; !c->mem_known && k < m->nnodes; k++)
		if (m->nodes[k].id == c->node && m->nodes[k].mem_known) {
			c->mem_known = 1;
			c->mem_bytes = m->nodes[k].mem_bytes;
			c->free_bytes = m->nodes[k].free_bytes;
		}
}

/* The nodes of the matrices: every node, or those --nodes names, each of
 * which must exist. */
static void nodes_plan_columns(const struct options *o,
			       const struct machine_shape *m, struct nodes_run *nr)
{
	int want[SHAPE_MAX_NODES] = {0}, nwant = 0, i, k;
	char list[SHAPE_LIST_CHARS];
	for (k = 0; k < m->nnodes; k++)
		nr->ids[nr->nids++] = m->nodes[k].id;
	if (o->node_list) {
		format_cpu_list(list, sizeof(list), nr->ids, nr->nids);
		nwant = parse_id_list(o->node_list, want, SHAPE_MAX_NODES);
		for (i = 0; i < nwant; i++) {
			for (k = 0; k < nr->nids && nr->ids[k] != want[i]; k++)
				;
			if (k == nr->nids)
				die("--nodes: node %d does not exist (this machine's "
				    "nodes: %s)", want[i], list);
		}
	}
	for (k = 0; k < m->nnodes; k++) {
		struct nodes_col *c = &nr->cols[nr->ncols];
		for (i = 0; i < nwant && want[i] != m->nodes[k].id; i++)
			;
		if (o->node_list && i == nwant)
			continue;
		c->node = m->nodes[k].id;
		c->ncpus = m->nodes[k].ncpus;
		nodes_col_memory(m, c);
		nr->ncols++;
	}
}

/* --cpus cores or sockets: the first CPU this process may use of each
 * core (as MLC's -X runs one thread a core) or of each package, into
 * named[]; how many.  Refused where the OS does not say which CPUs
 * share a core or a package. */
static int nodes_first_cpus(const struct machine_shape *m,
			    const struct nodes_run *nr, const char *what,
			    int *named)
{
	int by_core = what[0] == 'c', n = 0, i, j;
	if (!m->topology_known)
		die("--cpus %s: the OS reports no topology (sysfs cpu*/topology), "
		    "so bench cannot tell %s apart", what, what);
	for (i = 0; i < nr->nallowed; i++) {
		const struct shape_cpu *c = shape_cpu(m, nr->allowed[i]);
		if (!c)
			continue;
		for (j = 0; j < n; j++) {
			const struct shape_cpu *d = shape_cpu(m, named[j]);
			if (d->package == c->package && (!by_core || d->core == c->core))
				break;
		}
		if (j == n)
			named[n++] = c->id;
	}
	return n;
}

/* The rows: each column's node that has CPUs this process may use
 * (and that --cpus names), at most -t of them; a node with CPUs that
 * cannot be a row says why. */
static void nodes_plan_rows(const struct options *o,
			    const struct machine_shape *m, struct nodes_run *nr)
{
	static int named[SHAPE_MAX_CPUS], cpus[SHAPE_MAX_CPUS];
	char list[SHAPE_LIST_CHARS];
	int nnamed = 0, i, k, j;
	nr->nallowed = allowed_cpus(nr->allowed, MAX_THREADS);
	if (o->cpu_list && (strcmp(o->cpu_list, "cores") == 0 ||
			    strcmp(o->cpu_list, "sockets") == 0)) {
		nnamed = nodes_first_cpus(m, nr, o->cpu_list, named);
	} else if (o->cpu_list) {
		nnamed = parse_id_list(o->cpu_list, named, SHAPE_MAX_CPUS);
		for (i = 0; i < nnamed; i++) {
			if (!shape_cpu(m, named[i])) {
				for (k = 0; k < m->ncpus; k++)
					cpus[k] = m->cpus[k].id;
				format_cpu_list(list, sizeof(list), cpus, m->ncpus);
				die("--cpus: CPU %d does not exist (CPUs online: %s)",
				    named[i], list);
			}
			for (k = 0; k < nr->nallowed && nr->allowed[k] != named[i]; k++)
				;
			if (k == nr->nallowed) {
				format_cpu_list(list, sizeof(list), nr->allowed,
						nr->nallowed);
				die("--cpus: CPU %d is outside the CPUs this process may "
				    "run on (%s)", named[i], list);
			}
		}
	}
	for (i = 0; i < nr->ncols; i++) {
		struct nodes_row *r = &nr->rows[nr->nrows];
		int n = shape_node_cpus(m, nr->cols[i].node, cpus, SHAPE_MAX_CPUS);
		if (n == 0)
			continue; /* memory only: a column alone */
		r->node = nr->cols[i].node;
		r->cpus = malloc((size_t)n * sizeof(*r->cpus));
		if (!r->cpus)
			die("out of memory for the node matrices");
		r->ncpus = 0;
		for (k = 0; k < n; k++) {
			int ok = 0;
			for (j = 0; j < nr->nallowed && !ok; j++)
				ok = nr->allowed[j] == cpus[k];
			for (j = 0; o->cpu_list && ok && j < nnamed; j++)
				if (named[j] == cpus[k])
					break;
			if (ok && (!o->cpu_list || j < nnamed))
				r->cpus[r->ncpus++] = cpus[k];
		}
		format_cpu_list(list, sizeof(list), cpus, n);
		if (r->ncpus == 0) {
			snprintf(nr->not_row[nr->nnot_rows++], sizeof(nr->not_row[0]),
				 "node %d: none of its CPUs (%.96s) %s", r->node, list,
				 o->cpu_list ? "is among --cpus"
					     : "may be used by this process");
			free(r->cpus);
			continue;
		}
#ifndef _OPENMP
		r->ncpus = 1; /* one thread: this build has no OpenMP */
#endif
		if (o->threads > 0 && r->ncpus > o->threads)
			r->ncpus = (int)o->threads;
		else if (o->threads > r->ncpus)
			warn("node %d: -t %ld asks for more threads than its %d usable "
			     "CPU%s; its row runs %d", r->node, o->threads, r->ncpus,
			     r->ncpus == 1 ? "" : "s", r->ncpus);
		nr->nrows++;
	}
	if (nr->nrows == 0)
		die("mode nodes: no row for the matrices: %s",
		    nr->nnot_rows ? nr->not_row[0]
		    : "none of the nodes has CPUs (a row is a node whose CPUs run)");
}

/* Each cell's buffer: --buffer, which every column with memory must
 * hold (the bandwidth cell's three arrays, or the chase buffer alone),
 * or the default, well past every cache and capped so that a cell takes
 * at most a quarter of a column's free memory (half, latency alone).
 * A node with no memory at all is left to the kernel, whose refusal to
 * bind there its cells report. */
static void nodes_plan_size(const struct options *o,
			    const struct system_info *si, struct nodes_run *nr)
{
	unsigned long long llc = reported_llc(si) *
				 (unsigned long long)reported_llc_instances(si);
	unsigned long long rule = stream_rule_elements(llc) * sizeof(elem_t);
	unsigned long long need = o->matrix & NODES_BANDWIDTH ? 3 : 1;
	char b1[32], b2[32], b3[32];
	int i, line = reported_line(si);
	nr->capped_by = -1;
	if (o->buffer) {
		nr->bytes = o->buffer;
		nr->bytes_rule = "given";
		for (i = 0; i < nr->ncols; i++) {
			const struct nodes_col *c = &nr->cols[i];
			if (!c->mem_known || c->mem_bytes == 0 ||
			    nr->bytes <= c->free_bytes / need)
				continue;
			format_bytes(b1, sizeof(b1), nr->bytes);
			format_bytes(b2, sizeof(b2), c->free_bytes);
			format_bytes(b3, sizeof(b3), need * nr->bytes);
			die("--buffer %s: node %d has %s free, less than the %s %s", b1,
			    c->node, b2, b3, need == 3
			    ? "a bandwidth cell's three arrays of that size take there"
			    : "a chase buffer of that size takes there");
		}
	} else {
		nr->bytes_wanted = rule > NODES_MIN_BYTES ? rule : NODES_MIN_BYTES;
		nr->bytes_wanted = (nr->bytes_wanted + (1ULL << 20) - 1) >> 20 << 20;
		nr->bytes = nr->bytes_wanted;
		nr->bytes_rule = "default";
		for (i = 0; i < nr->ncols; i++) {
			const struct nodes_col *c = &nr->cols[i];
			unsigned long long cap = c->free_bytes / (need + 1) >> 20 << 20;
			if (!c->mem_known || c->mem_bytes == 0 || cap >= nr->bytes)
				continue;
			if (cap < (1ULL << 20)) {
				format_bytes(b1, sizeof(b1), c->free_bytes);
				die("node %d has %s free: too little for a cell's buffer "
				    "(at least 1 MiB, %llu times over with room to spare)",
				    c->node, b1, need);
			}
			nr->bytes = cap;
			nr->bytes_rule = "capped";
			nr->capped_by = c->node;
		}
	}
	if (box_room() != ULLONG_MAX) {
		/* a cell at a time: three arrays, or a buffer and its chase's
		 * order (4 bytes a line of at least 8 bytes... 64 as a rule) */
		unsigned long long room = box_room(),
				   fit = need == 3 ? room / 3 : room / 17 * 16;
		char lim[BOX_TEXT + 64];
		box_limit_words(lim, sizeof(lim));
		fit = fit >> 20 << 20;
		if (nr->bytes > fit && o->buffer) {
			format_bytes(b1, sizeof(b1), nr->bytes);
			format_bytes(b2, sizeof(b2), fit);
			if (fit < (1ULL << 20))
				die("--buffer %s: %s leaves no room for a cell", b1,
				    lim);
			die("--buffer %s: a cell needs more than %s allows with "
			    "bench's own headroom; the largest that fits is "
			    "--buffer %s", b1, lim, b2);
		}
		if (nr->bytes > fit) {
			if (fit < (1ULL << 20))
				die("%s leaves no room for a cell's buffer (at least "
				    "1 MiB)", lim);
			box_capped("bench nodes' buffer", nr->bytes >> 10, fit >> 10,
				   " KiB");
			nr->bytes = fit;
			nr->bytes_rule = "memory_limit";
		}
	}
	if (nr->bytes > address_space_bytes() / need) {
		format_bytes(b1, sizeof(b1), nr->bytes);
		die("--buffer %s: %llu such buffers are more than this %d-bit build "
		    "can map", b1, need, (int)(sizeof(void *) * CHAR_BIT));
	}
	nr->stride = line >= (int)sizeof(void *) && line % (int)sizeof(void *) == 0
		     ? (size_t)line : 64;
	if (nr->bytes / nr->stride > UINT32_MAX) {
		format_bytes(b1, sizeof(b1), nr->bytes);
		die("--buffer %s: more than 2^32 lines of %zu bytes to chase", b1,
		    nr->stride);
	}
	if (rule && nr->bytes < rule) {
		format_bytes(b1, sizeof(b1), nr->bytes);
		format_bytes(b2, sizeof(b2), llc);
		warn("each cell's buffer (%s) is smaller than %dx the reported "
		     "last-level caches (%s): a cell may read a cache, not memory",
		     b1, BENCH_LLC_FACTOR, b2);
	}
}

/* Everything bench nodes will do, decided and checked before anything
 * is measured or printed: the flags' defaults for this mode, the
 * columns, the rows, the buffer and the matrices.  Every refusal is one
 * line here. */
/* --alloc hugetlb: a cell's buffers are bound to their column's node
 * before first touch, so each page comes from that node's own pool,
 * and a fault that finds it empty kills the run (SIGBUS).  Refuse a
 * column whose node has fewer free pages than a cell takes (three
 * arrays, or the chase buffer), before anything is allocated. */
static void nodes_plan_pools(const struct options *o, const struct nodes_run *nr)
{
	unsigned long long page = nodes_huge_page(nr);
	unsigned long long need, have;
	char dir[448], path[512], buf[64], b[32];
	int col;
	if (!page)
		die("--alloc hugetlb: this kernel reports no huge page size");
	need = (nr->bytes + page - 1) / page *
	       (o->matrix & NODES_BANDWIDTH ? 3 : 1);
	format_bytes(b, sizeof(b), page);
	for (col = 0; col < nr->ncols; col++) {
		int node = nr->cols[col].node;
		snprintf(dir, sizeof(dir), "%s/devices/system/node/node%d/"
			 "hugepages/hugepages-%llukB", sysfs_root(), node,
			 page / 1024);
		snprintf(path, sizeof(path), "%s/free_hugepages", dir);
		if (read_first_line(path, buf, sizeof(buf)) != 0 ||
		    !isdigit((unsigned char)buf[0]))
			continue; /* no per-node pools: one node, checked whole */
		have = strtoull(buf, NULL, 10);
		if (have < need)
			die("--alloc hugetlb: node %d has %llu free huge pages of %s "
			    "and a cell takes %llu; reserve them on that node, e.g. "
			    "echo %llu > %s/nr_hugepages", node, have, b, need, need,
			    dir);
	}
	/* and the whole pool, as the stream and latency modes check it */
	hugetlb_check_pool((size_t)need, "--alloc hugetlb", nr->page_size);
}

static void nodes_plan(struct options *o, const struct system_info *si,
		       struct nodes_run *nr)
{
	int k;
	memset(nr, 0, sizeof(*nr));
	if (!HAVE_NODE_BIND)
		die("mode nodes: this build cannot bind memory to a node (that "
		    "needs Linux's mbind(2) and move_pages(2))");
	if (!opt_given(o, "kernels"))
		parse_kernels("NODES_KERNELS", NODES_KERNELS, o);
	if (!opt_given(o, "alloc"))
		o->alloc = (enum alloc_mode)opt_word("NODES_ALLOC", NODES_ALLOC,
						     &alloc_words);
	if (o->alloc != A_MMAP && o->alloc != A_THP && o->alloc != A_HUGETLB)
		die("--alloc %s: bench nodes binds each buffer to its node before "
		    "the buffer is first touched, which it can do for mmap, thp "
		    "and hugetlb", alloc_names[o->alloc]);
	if (o->page_size && o->alloc != A_HUGETLB)
		die("--page-size: it picks the huge pages of --alloc hugetlb, and "
		    "this run's buffers are --alloc %s", alloc_names[o->alloc]);
	if (o->page_size)
		page_size_check(o->page_size);
	nr->alloc = o->alloc;
	nr->page_size = (size_t)o->page_size;
	if (o->matrix & NODES_BANDWIDTH)
		stream_check(o);
	if (omp_binding_env())
		warn("%s is set: bench nodes pins its own threads, and where the "
		     "OpenMP runtime moved one its cell says so", omp_binding_env());
	nodes_plan_columns(o, si->shape, nr);
	nodes_plan_rows(o, si->shape, nr);
	nodes_plan_size(o, si, nr);
	if (nr->alloc == A_HUGETLB)
		nodes_plan_pools(o, nr);
	/* a bandwidth cell runs a thread on each CPU of its row at once */
	nr->threads = 1;
	for (k = 0; (o->matrix & NODES_BANDWIDTH) && k < nr->nrows; k++)
		if (nr->rows[k].ncpus > nr->threads)
			nr->threads = nr->rows[k].ncpus;
	nr->over_quota = quota_over(nr->threads, "bench nodes' rows: ");
	nr->mx[0].latency = 1;
	nr->lat_on = (o->matrix & NODES_LATENCY) != 0;
	nr->nmx = 1;
	for (k = 0; (o->matrix & NODES_BANDWIDTH) && k < NKERNELS; k++)
		if (o->kernels & (1u << k))
			nr->mx[nr->nmx++].kernel = k;
	for (k = 0; k < nr->nmx; k++) {
		nr->mx[k].cells = calloc((size_t)nr->nrows * (size_t)nr->ncols,
					 sizeof(struct nodes_cell));
		if (!nr->mx[k].cells)
			die("out of memory for the node matrices");
	}
	nr->isa = run_isa(o);
	nr->stores = store_names[o->nt_stores];
	nr->min_tick_s = HUGE_VAL;
}

/* Measure every column: latency, then bandwidth; pins the calling
 * thread back to every allowed CPU at the end. */
static void nodes_measure(const struct options *o, const struct system_info *si,
			  struct nodes_run *nr)
{
	int col;
	for (col = 0; col < nr->ncols; col++) {
		if (o->matrix & NODES_LATENCY)
			nodes_latency_column(nr, col);
		if (o->matrix & NODES_BANDWIDTH)
			nodes_bandwidth_column(o, si, nr, col);
	}
	pin_to_cpus(nr->allowed, nr->nallowed);
}

/* -- The report: text like numactl -H's matrix, JSON and CSV from one run */

/* A cell's mark: "!" when its threads ran elsewhere or its pages are not
 * all on its node, "?" when the kernel did not say where its pages are. */
static const char *nodes_mark(const struct nodes_cell *c)
{
	if (!c->cpus_held || (c->pages_known && !c->pages_held))
		return "!";
	return c->pages_known ? "" : "?";
}

static int nodes_held(const struct nodes_cell *c)
{
	return c->measured && c->cpus_held && c->pages_known && c->pages_held;
}

/* "latency" or the kernel's name: a matrix's name in every format. */
static const char *nodes_matrix_name(const struct nodes_matrix *mx)
{
	return mx->latency ? "latency" : kernel_defs[mx->kernel].name;
}

/* The pages of a cell not on node, in words ("12 on node 0, 3 not
 * present", sep between the parts); "" when there are none. */
static void nodes_pages_elsewhere(const struct nodes_run *nr,
				  const struct nodes_cell *c, int node,
				  const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	int k;
	buf[0] = '\0';
	for (k = 0; k < nr->nids && used < len; k++)
		if (nr->ids[k] != node && c->node_pages[k])
			used += (size_t)snprintf(buf + used, len - used, "%s%llu on "
						 "node %d", used ? sep : "",
						 c->node_pages[k], nr->ids[k]);
	if (c->other && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s%llu on other "
					 "nodes", used ? sep : "", c->other);
	if (c->absent && used < len)
		snprintf(buf + used, len - used, "%s%llu not present",
			 used ? sep : "", c->absent);
}

/* The CPUs a cell's threads were seen on, in words: "0" or "0 then 1"
 * for each thread, "; " between threads. */
static void nodes_ran_text(const struct nodes_cell *c, char *buf, size_t len)
{
	size_t used = 0;
	int t;
	buf[0] = '\0';
	for (t = 0; t < c->nran / 2 && used < len; t++) {
		if (c->ran[2 * t] == c->ran[2 * t + 1])
			used += (size_t)snprintf(buf + used, len - used, "%s%d",
						 t ? "," : "", c->ran[2 * t]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%d then %d",
						 t ? "," : "", c->ran[2 * t],
						 c->ran[2 * t + 1]);
	}
}

/* The CPUs a cell's threads were given: one for latency, the row's all
 * for bandwidth. */
static int nodes_given(const struct nodes_matrix *mx, const struct nodes_row *r)
{
	return mx->latency ? 1 : r->ncpus;
}

static void nodes_print_matrix(const struct nodes_run *nr,
			       const struct nodes_matrix *mx)
{
	char buf[64];
	int i, j;
	if (mx->latency)
		printf("Idle latency (ns per load): rows are the nodes whose CPU "
		       "chased, columns the nodes whose memory it read\n");
	else
		printf("Bandwidth of %s (MB/s): rows are the nodes whose CPUs read, "
		       "columns the nodes whose memory they read\n",
		       kernel_defs[mx->kernel].name);
	printf("node ");
	for (j = 0; j < nr->ncols; j++)
		printf(" %10d", nr->cols[j].node);
	printf("\n");
	for (i = 0; i < nr->nrows; i++) {
		printf("%4d:", nr->rows[i].node);
		for (j = 0; j < nr->ncols; j++) {
			const struct nodes_cell *c = nodes_cell(nr, mx, i, j);
			if (!c->measured)
				snprintf(buf, sizeof(buf), "refused");
			else if (!mx->latency && !c->valid)
				snprintf(buf, sizeof(buf), "FAILED%s", nodes_mark(c));
			else
				snprintf(buf, sizeof(buf), "%.1f%s", c->value,
					 nodes_mark(c));
			printf(" %10s", buf);
		}
		printf("\n");
	}
}

/* One line a cell: where its threads ran and its pages lay, and what
 * came of its measurement. */
static void nodes_print_cells(const struct nodes_run *nr,
			      const struct nodes_matrix *mx)
{
	char named[SHAPE_LIST_CHARS], ran[512], else_[256], pg[48];
	int i, j;
	for (i = 0; i < nr->nrows; i++)
		for (j = 0; j < nr->ncols; j++) {
			const struct nodes_cell *c = nodes_cell(nr, mx, i, j);
			const struct nodes_row *r = &nr->rows[i];
			int node = nr->cols[j].node, n = nodes_given(mx, r), k;
			printf("  %s %d->%d: ", nodes_matrix_name(mx), r->node, node);
			if (!c->measured) {
				printf("refused: the kernel would not bind memory to node "
				       "%d (mbind: %s)\n", node, strerror(c->bind_err));
				continue;
			}
			format_cpu_list(named, sizeof(named), r->cpus, n);
			nodes_ran_text(c, ran, sizeof(ran));
			printf("CPU%s %s", n == 1 ? "" : "s", named);
			if (c->cpus_held)
				printf(", ran there (held); ");
			else
				printf(", NOT HELD: its %d thread%s ran on CPU%s %s; ",
				       c->nran / 2, c->nran == 2 ? "" : "s",
				       c->nran == 2 ? "" : "s", ran);
			if (!c->pages_known) {
				printf("pages unknown (the kernel did not say where they "
				       "are); ");
			} else {
				unsigned long long on = 0;
				for (k = 0; k < nr->nids; k++)
					if (nr->ids[k] == node)
						on = c->node_pages[k];
				printf("%llu of %llu pages on node %d", on, c->pages, node);
				nodes_pages_elsewhere(nr, c, node, ", ", else_,
						      sizeof(else_));
				if (c->pages_held)
					printf(" (held); ");
				else
					printf(", NOT HELD: %s; ", else_);
			}
			if (c->huge_pct >= 0) {
				format_bytes(pg, sizeof(pg), (unsigned long long)c->page_kib
							     << 10);
				printf("%s pages, %.0f%% huge; ", pg, c->huge_pct);
			} else {
				printf("page size unknown; ");
			}
			if (mx->latency)
				printf("%s\n", c->stable ? "windows agreed"
					       : "windows still varied at the cap");
			else
				printf("%s\n", c->valid ? "validated"
					       : "FAILED validation: not a result");
		}
}

static void nodes_print_head(const struct options *o,
			     const struct system_info *si,
			     const struct nodes_run *nr)
{
	char list[SHAPE_LIST_CHARS], b1[32], b2[32];
	const char *pages;
	int i, ids[SHAPE_MAX_NODES];
	if (!out.text)
		return;
	printf(HLINE);
	printf("membench %s: bench nodes, from each NUMA node's CPUs to each "
	       "node's memory\n", BENCH_VERSION);
	printf(HLINE);
	print_build_text();
	print_system_text(si);
	printf(HLINE);
	for (i = 0; i < nr->nrows; i++) {
		const struct nodes_row *r = &nr->rows[i];
		format_cpu_list(list, sizeof(list), r->cpus, r->ncpus);
		printf("Row node %d: CPU%s %s (%d thread%s, each pinned to its "
		       "CPU; the chase on CPU %d)\n", r->node,
		       r->ncpus == 1 ? "" : "s", list, r->ncpus,
		       r->ncpus == 1 ? "" : "s", r->cpus[0]);
	}
	for (i = 0; i < nr->nnot_rows; i++)
		printf("Not a row: %s\n", nr->not_row[i]);
	for (i = 0; i < nr->ncols; i++)
		ids[i] = nr->cols[i].node;
	format_cpu_list(list, sizeof(list), ids, nr->ncols);
	printf("Columns: node%s %s", nr->ncols == 1 ? "" : "s", list);
	for (i = 0; i < nr->ncols; i++)
		if (nr->cols[i].ncpus == 0)
			printf("; node %d has no CPUs: a column only", nr->cols[i].node);
	printf("\n");
	format_bytes(b1, sizeof(b1), nr->bytes);
	if (strcmp(nr->bytes_rule, "given") == 0) {
		printf("Buffer: %s a cell (--buffer)\n", b1);
	} else if (strcmp(nr->bytes_rule, "default") == 0) {
		format_bytes(b2, sizeof(b2), NODES_MIN_BYTES);
		printf("Buffer: %s a cell (the larger of %s and %dx the reported "
		       "last-level caches)\n", b1, b2, BENCH_LLC_FACTOR);
	} else if (strcmp(nr->bytes_rule, "memory_limit") == 0) {
		format_bytes(b2, sizeof(b2), nr->bytes_wanted);
		printf("Buffer: %s a cell (%s wanted, capped by the memory "
		       "limit)\n", b1, b2);
	} else {
		format_bytes(b2, sizeof(b2), nr->bytes_wanted);
		printf("Buffer: %s a cell (%s wanted, capped by node %d's free "
		       "memory)\n", b1, b2, nr->capped_by);
	}
	pages = "base pages";
	b2[0] = '\0';
	if (nr->alloc == A_THP)
		pages = "huge pages where THP gives them; each cell says what it got";
	if (nr->alloc == A_HUGETLB) {
		pages = "pages of ";
		format_bytes(b2, sizeof(b2), nodes_huge_page(nr));
	}
	printf("Allocation: %s, each buffer bound to its column's node by "
	       "mbind before its first touch (%s%s)\n", alloc_names[nr->alloc],
	       pages, b2);
	if (o->matrix & NODES_LATENCY)
		printf("Latency: one CPU of the row's node chases a random cycle "
		       "through every %zu-byte line of the buffer; ns per load, the "
		       "best of windows of %.0f ms, as bench latency measures a "
		       "point\n", nr->stride, LAT_WINDOW_NS / 1e6);
	if (o->matrix & NODES_BANDWIDTH) {
		printf("Bandwidth:");
		for (i = 1; i < nr->nmx; i++)
			printf("%s %s", i > 1 ? "," : "",
			       kernel_defs[nr->mx[i].kernel].name);
		printf(" by every CPU of the row's node, a thread each, on three "
		       "arrays of the buffer's size; MB/s (10^6 bytes) of the best "
		       "of repetitions 2..%llu, validated as STREAM validates; "
		       "stores %s, instruction set %s\n", o->ntimes, nr->stores,
		       isa_names[nr->isa]);
	}
	printf(HLINE);
	if (text_warnings("WARNING: "))
		printf(HLINE);
}

static void nodes_print_text(const struct nodes_run *nr)
{
	int m;
	text_warnings("WARNING: ");
	for (m = 0; m < nr->nmx; m++) {
		if (m == 0 && !nr->lat_on)
			continue;
		nodes_print_matrix(nr, &nr->mx[m]);
		printf(HLINE);
	}
	printf("Marks: ! the cell's threads ran elsewhere or its pages are not "
	       "all on its node; ? the kernel did not say where its pages are; "
	       "refused: the kernel would not bind memory to the column's node; "
	       "FAILED: the run did not validate\n");
	printf("Cells, row node -> column node: where the threads ran and the "
	       "pages lay\n");
	for (m = 0; m < nr->nmx; m++)
		if (m > 0 || nr->lat_on)
			nodes_print_cells(nr, &nr->mx[m]);
	printf(HLINE);
}

/* A cell as a JSON object: the nodes, the binding, the figure, where its
 * threads ran and its pages lay, and whether each held. */
static void nodes_json_cell(const struct nodes_run *nr,
			    const struct nodes_matrix *mx, int i, int j)
{
	const struct nodes_cell *c = nodes_cell(nr, mx, i, j);
	const struct nodes_row *r = &nr->rows[i];
	int node = nr->cols[j].node, n = nodes_given(mx, r), k;
	json_open(NULL, '{');
	json_int("cpu_node", r->node);
	json_int("mem_node", node);
	json_str("binding", c->measured ? "ok" : "refused");
	json_str("error", c->measured ? NULL : strerror(c->bind_err));
	json_open("cpus", '[');
	for (k = 0; k < n; k++)
		json_int(NULL, r->cpus[k]);
	json_close(']');
	if (!c->measured) {
		json_str("value", NULL);
		json_str("held", NULL);
		json_close('}');
		return;
	}
	json_num("value", c->value);
	if (mx->latency) {
		json_bool("stable", c->stable);
	} else {
		json_num("median", c->median);
		json_num("worst", c->worst);
		json_bool("validated", c->valid);
	}
	json_open("ran_on", '[');
	for (k = 0; k < c->nran; k++)
		json_int(NULL, c->ran[k]);
	json_close(']');
	json_bool("cpus_held", c->cpus_held);
	json_bool("pages_known", c->pages_known);
	if (c->pages_known) {
		json_int("pages", (long long)c->pages);
		json_open("node_pages", '{');
		for (k = 0; k < nr->nids; k++) {
			char key[16];
			if (!c->node_pages[k])
				continue;
			snprintf(key, sizeof(key), "%d", nr->ids[k]);
			json_int(key, (long long)c->node_pages[k]);
		}
		json_close('}');
		json_int("pages_other_nodes", (long long)c->other);
		json_int("pages_absent", (long long)c->absent);
		json_bool("pages_held", c->pages_held);
	} else {
		json_str("pages", NULL);
		json_str("node_pages", NULL);
		json_str("pages_other_nodes", NULL);
		json_str("pages_absent", NULL);
		json_str("pages_held", NULL);
	}
	json_bool("held", nodes_held(c));
	if (c->huge_pct >= 0) {
		json_int("page_kib", (long long)c->page_kib);
		json_num("huge_pct", c->huge_pct);
	} else {
		json_str("page_kib", NULL);
		json_str("huge_pct", NULL);
	}
	json_close('}');
}

static void nodes_json(const struct options *o, const struct nodes_run *nr)
{
	int i, k, m;
	json_open("nodes", '{');
	json_int("buffer_bytes", (long long)nr->bytes);
	json_str("buffer_rule", nr->bytes_rule);
	if (nr->capped_by >= 0)
		json_int("buffer_capped_by_node", nr->capped_by);
	else
		json_str("buffer_capped_by_node", NULL);
	json_bool("threads_over_quota", nr->over_quota);
	json_str("alloc", alloc_names[nr->alloc]);
	json_int_or_null("page_size_bytes", nr->page_size != 0,
			 (long long)nr->page_size);
	json_int("stride", (long long)nr->stride);
	json_str("pattern", "random");
	json_int("ntimes", (long long)o->ntimes);
	json_str("stores", nr->stores);
	json_str("isa", isa_names[nr->isa]);
	json_open("rows", '[');
	for (i = 0; i < nr->nrows; i++) {
		json_open(NULL, '{');
		json_int("node", nr->rows[i].node);
		json_open("cpus", '[');
		for (k = 0; k < nr->rows[i].ncpus; k++)
			json_int(NULL, nr->rows[i].cpus[k]);
		json_close(']');
		json_int("threads", nr->rows[i].ncpus);
		json_int("latency_cpu", nr->rows[i].cpus[0]);
		json_close('}');
	}
	json_close(']');
	json_open("not_rows", '[');
	for (i = 0; i < nr->nnot_rows; i++)
		json_str(NULL, nr->not_row[i]);
	json_close(']');
	json_open("columns", '[');
	for (i = 0; i < nr->ncols; i++) {
		const struct nodes_col *c = &nr->cols[i];
		json_open(NULL, '{');
		json_int("node", c->node);
		json_int("cpus", c->ncpus);
		json_int_or_null("memory_bytes", c->mem_known, (long long)c->mem_bytes);
		json_int_or_null("free_bytes", c->mem_known, (long long)c->free_bytes);
		json_close('}');
	}
	json_close(']');
	json_open("matrices", '[');
	for (m = 0; m < nr->nmx; m++) {
		const struct nodes_matrix *mx = &nr->mx[m];
		if (m == 0 && !nr->lat_on)
			continue;
		json_open(NULL, '{');
		json_str("matrix", mx->latency ? "latency" : "bandwidth");
		json_str("kernel", mx->latency ? NULL : kernel_defs[mx->kernel].name);
		json_str("unit", mx->latency ? "ns" : "MB/s");
		json_open("cells", '[');
		for (i = 0; i < nr->nrows; i++)
			for (k = 0; k < nr->ncols; k++)
				nodes_json_cell(nr, mx, i, k);
		json_close(']');
		json_close('}');
	}
	json_close(']');
	json_close('}');
}

/* --csv: a header and one row a cell of each matrix; no field holds a
 * comma (lists of CPUs are separated by spaces), so awk -F, counts the
 * header's fields in every row.  The warnings go to stderr. */
static void nodes_csv(const struct nodes_run *nr)
{
	char buf[SHAPE_LIST_CHARS];
	int m, i, j, k;
	for (i = 0; i < nwarnings; i++)
		fprintf(stderr, "%s: warning: %s\n", prog, warnings[i]);
	printf("matrix,kernel,cpu_node,mem_node,value,unit,binding,error,cpus,"
	       "ran_on,cpus_held,pages,pages_on_node,pages_elsewhere,pages_held,"
	       "held,page_kib,huge_pct,stable,validation,buffer_bytes,alloc\n");
	for (m = 0; m < nr->nmx; m++) {
		const struct nodes_matrix *mx = &nr->mx[m];
		if (m == 0 && !nr->lat_on)
			continue;
		for (i = 0; i < nr->nrows; i++)
			for (j = 0; j < nr->ncols; j++) {
				const struct nodes_cell *c = nodes_cell(nr, mx, i, j);
				const struct nodes_row *r = &nr->rows[i];
				int node = nr->cols[j].node;
				unsigned long long on = 0;
				csv_field(mx->latency ? "latency" : "bandwidth", 0);
				csv_field(mx->latency ? "" : kernel_defs[mx->kernel].name, 0);
				snprintf(buf, sizeof(buf), "%d", r->node);
				csv_field(buf, 0);
				snprintf(buf, sizeof(buf), "%d", node);
				csv_field(buf, 0);
				csv_num(c->measured ? c->value : NAN);
				csv_field(mx->latency ? "ns" : "MB/s", 0);
				csv_field(c->measured ? "ok" : "refused", 0);
				csv_field(c->measured ? "" : strerror(c->bind_err), 0);
				buf[0] = '\0';
				for (k = 0; k < nodes_given(mx, r); k++)
					snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
						 "%s%d", k ? " " : "", r->cpus[k]);
				csv_field(buf, 0);
				buf[0] = '\0';
				for (k = 0; c->measured && k < c->nran; k++)
					snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
						 "%s%d", k ? " " : "", c->ran[k]);
				csv_field(buf, 0);
				csv_field(!c->measured ? "" : c->cpus_held ? "yes" : "no", 0);
				for (k = 0; c->measured && k < nr->nids; k++)
					if (nr->ids[k] == node)
						on = c->node_pages[k];
				if (c->measured && c->pages_known) {
					snprintf(buf, sizeof(buf), "%llu", c->pages);
					csv_field(buf, 0);
					snprintf(buf, sizeof(buf), "%llu", on);
					csv_field(buf, 0);
					nodes_pages_elsewhere(nr, c, node, "; ", buf,
							      sizeof(buf));
					csv_field(buf, 0);
					csv_field(c->pages_held ? "yes" : "no", 0);
				} else {
					csv_field("", 0);
					csv_field("", 0);
					csv_field("", 0);
					csv_field(c->measured ? "unknown" : "", 0);
				}
				csv_field(!c->measured ? "" : nodes_held(c) ? "yes" : "no", 0);
				if (c->measured && c->huge_pct >= 0) {
					snprintf(buf, sizeof(buf), "%lu", c->page_kib);
					csv_field(buf, 0);
					csv_num(c->huge_pct);
				} else {
					csv_field("", 0);
					csv_field("", 0);
				}
				csv_field(!c->measured || !mx->latency ? ""
					  : c->stable ? "yes" : "no", 0);
				csv_field(!c->measured || mx->latency ? ""
					  : c->valid ? "ok" : "failed", 0);
				snprintf(buf, sizeof(buf), "%llu", nr->bytes);
				csv_field(buf, 0);
				csv_field(alloc_names[nr->alloc], 1);
			}
	}
}

static void nodes_release(struct nodes_run *nr)
{
	int m;
	size_t i, n = (size_t)nr->nrows * (size_t)nr->ncols;
	for (m = 0; m < nr->nmx; m++) {
		for (i = 0; i < n; i++) {
			free(nr->mx[m].cells[i].ran);
			free(nr->mx[m].cells[i].node_pages);
		}
		free(nr->mx[m].cells);
	}
	for (m = 0; m < nr->nrows; m++)
		free(nr->rows[m].cpus);
}

/* bench nodes: plan (every refusal), the head, every column measured,
 * then the matrices in each format asked.  Exit status 1 when a
 * bandwidth cell failed validation, as STREAM's; a cell whose binding
 * did not hold is marked in every format and does not change it. */
static int nodes_mode(struct options *o, const struct system_info *si)
{
	struct nodes_run nr;
	int rc;
	nodes_plan(o, si, &nr);
	nodes_print_head(o, si, &nr);
	fflush(stdout);
	nodes_measure(o, si, &nr);
	if (o->matrix & NODES_BANDWIDTH && nr.min_tick_s < 20 * nr.tick)
		warn("a bandwidth cell's kernel took %.3g s, fewer than 20 clock "
		     "ticks of %.3g s; increase --buffer", nr.min_tick_s, nr.tick);
	if (nr.invalid)
		warn("%d bandwidth run%s failed validation: %s figures are not "
		     "results", nr.invalid, nr.invalid == 1 ? "" : "s",
		     nr.invalid == 1 ? "its" : "their");
	if (out.json) {
		json_begin("nodes", si);
		nodes_json(o, &nr);
		json_end();
	}
	if (out.text)
		nodes_print_text(&nr);
	if (out.csv)
		nodes_csv(&nr);
	rc = nr.invalid ? 1 : 0;
	nodes_release(&nr);
	return rc;
}

/* ======================================================================
 * 23 Cluster (bench-mpi: built with -DBENCH_MPI; without the macro
 * nothing here is compiled).  Every rank runs the bandwidth program on
 * arrays of its own; ranks are grouped by node (the ranks that share
 * memory), a barrier starts every kernel repetition, and rank 0 gathers
 * every rank's times and prints one table: a row per node, the sum over
 * nodes, the spread across nodes and the nodes below the median.  Every
 * collective step waits at most --cluster-timeout seconds, so a rank
 * that died or hangs ends the run with a message, never a hang.
 * ====================================================================== */
#ifdef BENCH_MPI

#define CLUSTER_HOST 64

/* Where this rank is. */
static struct cluster {
	int rank, size;
	MPI_Comm node; /* the ranks of this node */
	int node_rank, node_size;
	int node_id, nnodes; /* nodes are numbered by their lowest world rank */
	char host[CLUSTER_HOST];
	double timeout; /* seconds a collective step may wait; 0: no limit */
} cl;

/* What each rank sends rank 0 after its run. */
struct cluster_rank {
	char host[CLUSTER_HOST];
	int node, threads, valid, pages_known;
	double elems;     /* elements per array */
	double page_kib;  /* the page size most of a[] sits on */
	double huge_pct;  /* of a[], b[] and c[], the lowest */
	double lat_ns;    /* latency at --cluster-latency's size; 0: not run */
	double epsilon;   /* validation, as validate() left it */
	double expected[3], avg_abs[3];
	long long nerr[3];
	double mem_limit;  /* its cgroup's memory limit in bytes; 0 none */
	double cpu_quota;  /* its cgroup's CPU quota in CPUs; 0 none */
};

/* stream_mpi.c's table over every rank: each repetition's time is the
 * slowest rank's (stream_mpi.c times a repetition between two barriers),
 * the bytes are all ranks' arrays, and validation averages the ranks'
 * average errors, as stream_mpi.c does. */
struct cluster_stream {
	double elems;                /* all ranks' elements per array */
	double bytes[NKERNELS];
	double avg_t[NKERNELS], min_t[NKERNELS], max_t[NKERNELS];
	double best_mbs[NKERNELS];   /* bytes over the best (least) time */
	double epsilon, expected[3], avg_abs[3], avg_rel[3];
	long long nerr[3];
	int valid; /* every rank validated */
};

/* Seconds rank 0 spent from its own results to the report's tables:
 * waiting for the other ranks, the gathers and the tables; <0: none. */
static double cluster_gather_s = -1;

/* One row of the per-node table, from a run or from --cluster-in. */
struct cluster_node {
	char host[CLUSTER_HOST];
	int ranks, threads;
	double mbs[NKERNELS]; /* best MB/s of the node's ranks together */
	double bytes[NKERNELS];  /* a run's: what all its ranks move a pass */
	double best_s[NKERNELS]; /* ... and the slowest rank's time in the
				  * best repetition; mbs is bytes / best_s */
	double lat_ns;        /* 0: not measured */
	int valid;
	int bad_rank;  /* lowest world rank that failed validation; -1 none */
	int nbad;      /* ranks that failed */
	int pages_known;
	double page_kib, huge_pct;
	int limits_known;           /* a run's: its ranks sent their limits */
	double mem_limit, cpu_quota; /* the smallest of its ranks'; 0 none */
	int limits_differ;          /* not the limits most nodes have */
};

/* The messages of this layer name the rank and its node, then end the
 * whole job: a rank that stops alone would leave the others waiting. */
static void cluster_abort(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s%s\n", prog, die_where, line);
	MPI_Abort(MPI_COMM_WORLD, 3);
	exit(3);
}

static void cluster_check(int err, const char *step)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;
	if (err == MPI_SUCCESS)
		return;
	if (MPI_Error_string(err, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "MPI error %d", err);
	cluster_abort("%s: %s", step, msg);
}

/* Wait for a non-blocking collective, at most cl.timeout seconds.  The
 * MPI standard offers no timeout of its own; polling MPI_Test does what
 * a blocking call would (spin), and notices the clock. */
static void cluster_wait(MPI_Request *req, const char *step, int kernel,
			 long long rep)
{
	double t0 = MPI_Wtime();
	int done = 0;
	for (;;) {
		cluster_check(MPI_Test(req, &done, MPI_STATUS_IGNORE), step);
		if (done)
			return;
		if (cl.timeout > 0 && MPI_Wtime() - t0 > cl.timeout) {
			if (kernel >= 0)
				cluster_abort("%s %s, repetition %lld: not every rank "
					      "arrived within %g s (--cluster-timeout); a "
					      "rank died or hangs", step,
					      kernel_defs[kernel].display, rep + 1,
					      cl.timeout);
			cluster_abort("%s: not every rank arrived within %g s "
				      "(--cluster-timeout); a rank died or hangs",
				      step, cl.timeout);
		}
	}
}

static void cluster_barrier(MPI_Comm c, const char *step, int kernel,
			    long long rep)
{
	MPI_Request req;
	cluster_check(MPI_Ibarrier(c, &req), step);
	cluster_wait(&req, step, kernel, rep);
}

static void cluster_finalize(void)
{
	int up = 0, down = 0;
	MPI_Initialized(&up);
	MPI_Finalized(&down);
	if (up && !down)
		MPI_Finalize();
}

/* BENCH_FAKE_HOST=a,b,...: a test hook that names rank i's node after
 * the i-th item (the last item for the ranks past the list), so one
 * machine can stand for several nodes. */
static int cluster_fake_host(char *buf, size_t len)
{
	const char *s = getenv("BENCH_FAKE_HOST"), *p;
	int i;
	size_t n;
	if (!s || !*s)
		return 0;
	for (p = s, i = 0; i < cl.rank && strchr(p, ','); i++)
		p = strchr(p, ',') + 1;
	n = strchr(p, ',') ? (size_t)(strchr(p, ',') - p) : strlen(p);
	if (n == 0 || n >= len)
		die("BENCH_FAKE_HOST: item %d is empty or longer than %d "
		    "characters", i + 1, (int)len - 1);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 1;
}

/* MPI up, this rank's node found, and only rank 0 on stdout. */
static void cluster_start(int *argc, char ***argv)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	int provided, len = 0, first, i, *firsts, fake;

	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) !=
	    MPI_SUCCESS) {
		fprintf(stderr, "%s: MPI_Init failed\n", prog);
		exit(3);
	}
	atexit(cluster_finalize);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &cl.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &cl.size);
	if (MPI_Get_processor_name(name, &len) != MPI_SUCCESS)
		snprintf(name, sizeof(name), "unknown");
	snprintf(cl.host, sizeof(cl.host), "%.*s", CLUSTER_HOST - 1, name);
	snprintf(die_where, sizeof(die_where), "rank %d on %.64s: ", cl.rank,
		 cl.host);
	/* options are parsed on every rank; rank 0 names their errors */
	die_quiet = cl.rank != 0;
	if (cl.rank != 0 && !freopen("/dev/null", "w", stdout))
		die("cannot silence stdout: %s", strerror(errno));
	cl.timeout = BENCH_CLUSTER_TIMEOUT;
	fake = cluster_fake_host(cl.host, sizeof(cl.host));
	/* every rank must take the same way, even if only some fake */
	cluster_check(MPI_Allreduce(MPI_IN_PLACE, &fake, 1, MPI_INT, MPI_MAX,
				    MPI_COMM_WORLD), "grouping ranks by node");
	if (fake) {
		/* nodes by name: the lowest rank of each name is its colour */
		char *all = malloc((size_t)cl.size * CLUSTER_HOST);
		if (!all)
			die("out of memory for %d host names", cl.size);
		cluster_check(MPI_Allgather(cl.host, CLUSTER_HOST, MPI_CHAR, all,
					    CLUSTER_HOST, MPI_CHAR,
					    MPI_COMM_WORLD), "gathering host names");
		for (i = 0; strcmp(all + (size_t)i * CLUSTER_HOST, cl.host); i++)
			;
		cluster_check(MPI_Comm_split(MPI_COMM_WORLD, i, cl.rank, &cl.node),
			      "grouping ranks by host name");
		free(all);
		snprintf(die_where, sizeof(die_where), "rank %d on %.64s: ",
			 cl.rank, cl.host);
	} else {
		cluster_check(MPI_Comm_split_type(MPI_COMM_WORLD,
						  MPI_COMM_TYPE_SHARED, cl.rank,
						  MPI_INFO_NULL, &cl.node),
			      "grouping ranks by node");
	}
	MPI_Comm_set_errhandler(cl.node, MPI_ERRORS_RETURN);
	MPI_Comm_rank(cl.node, &cl.node_rank);
	MPI_Comm_size(cl.node, &cl.node_size);
	/* number the nodes in the order of their lowest world rank */
	cluster_check(MPI_Allreduce(&cl.rank, &first, 1, MPI_INT, MPI_MIN,
				    cl.node), "numbering the nodes");
	firsts = malloc((size_t)cl.size * sizeof(int));
	if (!firsts)
		die("out of memory for %d ranks", cl.size);
	cluster_check(MPI_Allgather(&first, 1, MPI_INT, firsts, 1, MPI_INT,
				    MPI_COMM_WORLD), "numbering the nodes");
	cl.nnodes = cl.node_id = 0;
	for (i = 0; i < cl.size; i++)
		if (firsts[i] == i) {
			cl.node_id += i < first;
			cl.nnodes++;
		}
	free(firsts);
}

/* What every rank must run alike, one "what=value" line each: the
 * options that shape a measurement and the build.  Output options
 * (--json, --csv, --json-file) are rank 0's alone and not here. */
#define CLUSTER_PRINT 2048

static void cluster_fingerprint(const struct options *o, char *buf, size_t len)
{
	char kern[96] = "";
	size_t used = 0;
	int k;
	for (k = 0; k < NKERNELS; k++)
		if (o->kernels & (1u << k))
			snprintf(kern + strlen(kern), sizeof(kern) - strlen(kern),
				 "%s%s", kern[0] ? "," : "", kernel_defs[k].name);
#define FP(...) (used += (size_t)snprintf(buf + used, used < len ? len - used : 0, \
					   __VA_ARGS__))
	FP("mode=%s\n", mode_name(o->mode));
	if (o->size_auto)
		FP("--size=auto\n");
	else
		FP("--size=%llu\n", o->size);
	FP("--ntimes=%llu\n", o->ntimes);
	FP("--offset=%llu\n", o->offset);
	FP("--stagger=%llu\n", o->stagger);
	FP("--threads=%ld\n", o->threads);
	FP("--alloc=%s\n", alloc_names[o->alloc]);
	FP("--kernels=%s\n", kern);
	FP("--stores=%s\n", o->nt_stores == STORES_NT ? "nt" :
	   o->nt_stores == STORES_AUTO ? "auto" : "plain");
	FP("--isa (or BENCH_ISA)=%s\n", o->isa == ISA_AUTO ? "auto" :
	   o->isa == ISA_UNSET ? "unset" : isa_names[o->isa]);
	FP("--best=%s\n", o->best ? "yes" : "no");
	FP("--bind=%s\n", o->bind ? "auto" : "none");
	FP("--plan=%s\n", o->plan ? "yes" : "no");
	FP("--placement=%s\n", o->placement ? "yes" : "no");
	FP("--cluster=%s\n", o->cluster_seq ? "sequential" : "simultaneous");
	FP("--outlier=%g\n", o->outlier_pct);
	FP("--cluster-latency=%llu\n", o->cluster_lat);
	FP("--pattern=%s\n", lat_pattern_names[o->pattern]);
	FP("--cluster-timeout=%g\n", o->cluster_timeout);
	FP("--cluster-in=%s\n", o->cluster_in ? o->cluster_in : "");
	FP("bench.c version=%s\n", BENCH_VERSION);
	FP("build flags=%s\n", BENCH_CFLAGS);
	FP("element type=%s\n", XSTR(STREAM_TYPE));
#undef FP
	if (used >= len)
		die("the options do not fit the %d bytes every rank compares; "
		    "shorten the paths or flags", (int)len);
}

/* Line `line` (from 0) of a fingerprint: its "what" before the '=' into
 * what (when not NULL), the value after it into val. */
static void cluster_print_line(const char *p, int line, char *what,
			       size_t wlen, char *val, size_t vlen)
{
	const char *eq, *end;
	for (; line > 0 && *p; line--)
		p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != '\0');
	end = p + strcspn(p, "\n");
	eq = memchr(p, '=', (size_t)(end - p));
	if (!eq)
		eq = end;
	if (what)
		snprintf(what, wlen, "%.*s", (int)(eq - p), p);
	snprintf(val, vlen, "%.*s", (int)(end - eq - (eq < end)), eq + (eq < end));
}

/* Every rank runs what rank 0 runs.  Rank 0's fingerprint goes to every
 * rank, each finds the first line where its own differs, and the lowest
 * such rank's line is refused by every rank in the same words (rank 0
 * prints them), before anything is allocated or measured.  Without it
 * ranks with other kernels would fill each other's columns, and ranks
 * with another -n would fall out of step at a barrier and wait out
 * --cluster-timeout. */
static void cluster_agree(const struct options *o)
{
	static char mine[CLUSTER_PRINT], theirs[CLUSTER_PRINT], odd[CLUSTER_PRINT];
	MPI_Request req;
	int bad = INT_MAX, who, line = -1, i;
	const char *m, *t;

	if (cl.size < 2)
		return;
	cluster_fingerprint(o, mine, sizeof(mine));
	memcpy(theirs, mine, sizeof(theirs));
	cluster_check(MPI_Ibcast(theirs, CLUSTER_PRINT, MPI_CHAR, 0,
				 MPI_COMM_WORLD, &req), "comparing the options");
	cluster_wait(&req, "comparing the options", -1, 0);
	for (m = mine, t = theirs, i = 0; *m || *t; i++) {
		size_t lm = strcspn(m, "\n"), lt = strcspn(t, "\n");
		if (lm != lt || memcmp(m, t, lm) != 0) {
			bad = cl.rank;
			line = i;
			break;
		}
		m += lm + (m[lm] != '\0');
		t += lt + (t[lt] != '\0');
	}
	cluster_check(MPI_Iallreduce(&bad, &who, 1, MPI_INT, MPI_MIN,
				     MPI_COMM_WORLD, &req), "comparing the options");
	cluster_wait(&req, "comparing the options", -1, 0);
	if (who == INT_MAX)
		return;
	memcpy(odd, mine, sizeof(odd));
	cluster_check(MPI_Ibcast(odd, CLUSTER_PRINT, MPI_CHAR, who,
				 MPI_COMM_WORLD, &req), "comparing the options");
	cluster_wait(&req, "comparing the options", -1, 0);
	cluster_check(MPI_Ibcast(&line, 1, MPI_INT, who, MPI_COMM_WORLD, &req),
		      "comparing the options");
	cluster_wait(&req, "comparing the options", -1, 0);
	{
		char what[128], vo[256], v0[256];
		cluster_print_line(odd, line, what, sizeof(what), vo, sizeof(vo));
		cluster_print_line(theirs, line, NULL, 0, v0, sizeof(v0));
		/* every rank's die_where names itself; the words name the odd
		 * one, and rank 0 says them, the others quiet */
		die_where[0] = '\0';
		die_quiet = cl.rank != 0;
		die("rank %d runs %s '%s', rank 0 '%s': every rank must run the "
		    "same options and build", who, what, vo, v0);
	}
}

/* After the options: refuse what the cluster layer does not run, and
 * let each rank's own errors speak again. */
static void cluster_options(struct options *o)
{
	die_quiet = 0;
	cl.timeout = o->cluster_timeout;
	if (cl.size > 1 && !o->plan && o->mode != M_STREAM && o->mode != M_INFO)
		die("mode '%s' does not run across ranks; bench-mpi runs 'stream' "
		    "(with --cluster-latency SIZE for a chase per node)",
		    mode_name(o->mode));
	cluster_agree(o);
	if (cl.rank == 0)
		output_open(o);
	else
		out.text = 0; /* and no JSON: rank 0 writes the one document */
}

/* The timed loop's hook: a barrier on the ranks of *ctx (an MPI_Comm)
 * before each kernel's pass, as STREAM's MPI version does. */
static void cluster_before_pass(void *ctx, int kernel, unsigned long long rep)
{
	cluster_barrier(*(MPI_Comm *)ctx, "the barrier before", kernel,
			(long long)rep);
}

/* The timed repetitions on the ranks of c: stream's loop, with the
 * barrier as its hook. */
static void cluster_repetitions(const struct options *o, struct stream_run *r,
				MPI_Comm c)
{
	stream_repetitions(o, r, cluster_before_pass, &c);
	cluster_barrier(c, "the barrier after the last repetition", -1, 0);
}

/* simultaneous: every node at once; sequential: one node at a time
 * while the others wait, for figures no other node disturbs. */
static void cluster_measure(const struct options *o, struct stream_run *r)
{
	int j;
	if (!o->cluster_seq) {
		cluster_repetitions(o, r, MPI_COMM_WORLD);
	} else {
		for (j = 0; j < cl.nnodes; j++) {
			if (j == cl.node_id)
				cluster_repetitions(o, r, cl.node);
			cluster_barrier(MPI_COMM_WORLD, "the barrier after a "
					"node's turn (sequential)", -1, 0);
		}
	}
	/* the corrupt-test build breaks the last rank only, so the report
	 * must find and name it */
	stream_conclude(o, r, cl.rank == cl.size - 1);
	/* the single-node run's warnings about what makes a figure weak */
	warn_few_ticks(o, r);
	if (r->plan.rule_elems && r->n < r->plan.rule_elems)
		warn("each rank's arrays (%llu elements) are smaller than %dx the "
		     "reported last-level cache; --size %llu or more follows "
		     "STREAM's rule", (unsigned long long)r->n, BENCH_LLC_FACTOR,
		     r->plan.rule_elems);
}

/* --cluster-latency SIZE: one chase per node (the node's lowest rank;
 * the others wait), a random chase over SIZE bytes, the nodes at once. */
static double cluster_latency(const struct options *o,
			      const struct system_info *si)
{
	struct options lo = *o;
	struct lat_run r;
	double ns = 0;
	int i, text = out.text;
	FILE *json = out.json;

	cluster_barrier(MPI_COMM_WORLD, "the barrier before the latency chase",
			-1, 0);
	if (cl.node_rank == 0) {
		lo.mode = M_LATENCY;
		lo.pattern = P_RANDOM;
		lo.lat_min = lo.lat_max = o->cluster_lat;
		lo.nstrides = 0;
		lo.chains = 1;
		lo.load_threads = 0;
		lat_check(&lo, si);
		memset(&r, 0, sizeof(r));
		alloc_plan(&r.plan, &lo, M_LATENCY, reported_llc(si),
			   reported_llc_instances(si), 1);
		lat_prepare(&lo, &r);
		out.text = 0; /* the curve is one point; the table shows it */
		out.json = NULL;
		lat_sweep(&lo, si, &r);
		out.text = text;
		out.json = json;
		if (r.npts > 0)
			ns = r.pts[r.npts - 1].ns;
		for (i = 0; i < r.plan.regions; i++)
			region_free(&r.bufs[i]);
		free(r.pts);
		free(r.sums);
	}
	cluster_barrier(MPI_COMM_WORLD, "the barrier after the latency chase",
			-1, 0);
	return ns;
}

/* The time of repetition rep of kernel k on the ranks of node (-1:
 * every rank): its slowest rank's, since a barrier starts every
 * repetition and the group is done when its last rank is, as
 * stream_mpi.c times it.  The per-node table and stream_mpi.c's table
 * both ask this. */
static double cluster_slowest(const struct cluster_rank *rk,
			      const double *times, unsigned long long ntimes,
			      int k, unsigned long long rep, int node)
{
	double slow = 0;
	int i;
	for (i = 0; i < cl.size; i++) {
		double t = times[((size_t)i * NKERNELS + (size_t)k) * ntimes + rep];
		if ((node < 0 || rk[i].node == node) && t > slow)
			slow = t;
	}
	return slow;
}

/* Nodes from the ranks' records and times: a node's rate for a kernel
 * is the bytes all its ranks moved over the repetition's slowest rank,
 * best over the repetitions after the first. */
/* Mark the nodes whose limits are not the ones most nodes have (a tie:
 * the first node's), so that the table names a node whose job or
 * container box differs from the others'. */
static void cluster_limits_differ(struct cluster_node *nd, int nn)
{
	int i, j, best = 0, best_n = 0;
	for (i = 0; i < nn; i++) {
		int same = 0;
		for (j = 0; j < nn; j++)
			same += nd[j].mem_limit == nd[i].mem_limit &&
				nd[j].cpu_quota == nd[i].cpu_quota;
		if (same > best_n) {
			best_n = same;
			best = i;
		}
	}
	for (i = 0; i < nn; i++)
		nd[i].limits_differ = nd[i].mem_limit != nd[best].mem_limit ||
				      nd[i].cpu_quota != nd[best].cpu_quota;
}

static int cluster_nodes(const struct cluster_rank *rk, const double *times,
			 unsigned long long ntimes, unsigned kernels,
			 struct cluster_node *nd, int nn)
{
	int i, j, k;
	unsigned long long rep;
	for (j = 0; j < nn; j++) {
		memset(&nd[j], 0, sizeof(nd[j]));
		nd[j].valid = 1;
		nd[j].bad_rank = -1;
		nd[j].huge_pct = 100;
	}
	for (i = 0; i < cl.size; i++) {
		struct cluster_node *n = &nd[rk[i].node];
		if (n->ranks++ == 0) {
			memcpy(n->host, rk[i].host, sizeof(n->host));
			n->lat_ns = rk[i].lat_ns;
			n->page_kib = rk[i].page_kib;
		}
		n->threads += rk[i].threads;
		if (!rk[i].valid) {
			if (n->nbad++ == 0)
				n->bad_rank = i;
			n->valid = 0;
		}
		if (rk[i].pages_known) {
			n->pages_known = 1;
			if (rk[i].huge_pct < n->huge_pct)
				n->huge_pct = rk[i].huge_pct;
			if (rk[i].page_kib < n->page_kib)
				n->page_kib = rk[i].page_kib;
		}
		/* the box of the node: its ranks' smallest limits */
		if (!n->limits_known || (rk[i].mem_limit > 0 &&
		    (n->mem_limit == 0 || rk[i].mem_limit < n->mem_limit)))
			n->mem_limit = rk[i].mem_limit;
		if (!n->limits_known || (rk[i].cpu_quota > 0 &&
		    (n->cpu_quota == 0 || rk[i].cpu_quota < n->cpu_quota)))
			n->cpu_quota = rk[i].cpu_quota;
		n->limits_known = 1;
	}
	cluster_limits_differ(nd, nn);
	for (k = 0; k < NKERNELS; k++) {
		if (!(kernels & (1u << k)))
			continue;
		for (j = 0; j < nn; j++) {
			double bytes = 0, best = DBL_MAX;
			for (i = 0; i < cl.size; i++)
				if (rk[i].node == j)
					bytes += kernel_bytes(k, (size_t)rk[i].elems);
			for (rep = 1; rep < ntimes; rep++) {
				double slow = cluster_slowest(rk, times, ntimes, k, rep, j);
				if (slow > 0 && slow < best)
					best = slow;
			}
			nd[j].bytes[k] = bytes;
			nd[j].best_s[k] = best < DBL_MAX ? best : 0;
			nd[j].mbs[k] = best < DBL_MAX ? 1.0E-06 * bytes / best : 0;
		}
	}
	return nn;
}

static void cluster_stream_table(const struct cluster_rank *rk,
				 const double *times, unsigned long long ntimes,
				 unsigned kernels, struct cluster_stream *cs)
{
	unsigned long long rep;
	int i, k;
	memset(cs, 0, sizeof(*cs));
	cs->valid = 1;
	cs->epsilon = rk[0].epsilon;
	for (i = 0; i < 3; i++)
		cs->expected[i] = rk[0].expected[i];
	for (i = 0; i < cl.size; i++) {
		int a;
		cs->elems += rk[i].elems;
		cs->valid &= rk[i].valid;
		for (a = 0; a < 3; a++) {
			cs->avg_abs[a] += rk[i].avg_abs[a] / cl.size;
			cs->nerr[a] += rk[i].nerr[a];
		}
	}
	for (i = 0; i < 3; i++)
		cs->avg_rel[i] = cs->expected[i] != 0.0
			? cs->avg_abs[i] / abs_d(cs->expected[i]) : cs->avg_abs[i];
	for (k = 0; k < NKERNELS; k++) {
		if (!(kernels & (1u << k)))
			continue;
		cs->bytes[k] = kernel_bytes(k, (size_t)cs->elems);
		cs->min_t[k] = DBL_MAX;
		for (rep = 1; rep < ntimes; rep++) {
			double slow = cluster_slowest(rk, times, ntimes, k, rep, -1);
			cs->avg_t[k] += slow / (double)(ntimes - 1);
			if (slow < cs->min_t[k])
				cs->min_t[k] = slow;
			if (slow > cs->max_t[k])
				cs->max_t[k] = slow;
		}
		cs->best_mbs[k] = 1.0E-06 * cs->bytes[k] / cs->min_t[k];
	}
}

/* stream_mpi.c 1.8's lines, in its order and words, with the aggregate
 * figures, so that every STREAM parser reads the cluster's.  Its scalar
 * line says the scalar bench's kernels use (3, as stream.c 5.10's). */
static void cluster_stream_text(const struct stream_run *r,
				const struct cluster_stream *cs, unsigned kernels)
{
	double bpw = (double)sizeof(elem_t), mib = 1024.0 * 1024.0;
	int i, k;
	printf(HLINE);
	printf("STREAM version $Revision: 1.8 $\n");
	printf("membench %s cluster: bench-mpi measures STREAM's kernels on "
	       "every rank and prints stream_mpi.c's lines\n", BENCH_VERSION);
	printf(HLINE);
	printf("This system uses %d bytes per array element.\n", (int)sizeof(elem_t));
	printf(HLINE);
	printf("Total Aggregate Array size = %.0f (elements)\n", cs->elems);
	printf("Total Aggregate Memory per array = %.1f MiB (= %.1f GiB).\n",
	       bpw * (cs->elems / mib), bpw * (cs->elems / mib / 1024.0));
	printf("Total Aggregate memory required = %.1f MiB (= %.1f GiB).\n",
	       3.0 * bpw * (cs->elems / mib), 3.0 * bpw * (cs->elems / mib / 1024.0));
	printf("Data is distributed across %d MPI ranks\n", cl.size);
	printf("   Array size per MPI rank = %llu (elements)\n",
	       (unsigned long long)r->n);
	printf("   Memory per array per MPI rank = %.1f MiB (= %.1f GiB).\n",
	       bpw * ((double)r->n / mib), bpw * ((double)r->n / mib / 1024.0));
	printf("   Total memory per MPI rank = %.1f MiB (= %.1f GiB).\n",
	       3.0 * bpw * ((double)r->n / mib),
	       3.0 * bpw * ((double)r->n / mib / 1024.0));
	printf(HLINE);
	printf("Each kernel will be executed %llu times.\n", r->ntimes);
	printf(" The *best* time for each kernel (excluding the first iteration)\n");
	printf(" will be used to compute the reported bandwidth.\n");
	printf("The SCALAR value used for this run is %f\n", 3.0);
#ifdef _OPENMP
	printf(HLINE);
	printf("Number of Threads requested for each MPI rank = %i\n",
	       threads_requested());
	printf("Number of Threads counted for rank 0 = %i\n", threads_counted);
#endif
	printf(HLINE);
	print_clock_text(r, "timer");
	printf(HLINE);
	printf("Function    Best Rate MB/s  Avg time     Min time     Max time\n");
	for (k = 0; k < NKERNELS; k++)
		if (kernels & (1u << k))
			printf("%s%11.1f  %11.6f  %11.6f  %11.6f\n",
			       kernel_defs[k].label, cs->best_mbs[k],
			       cs->avg_t[k], cs->min_t[k], cs->max_t[k]);
	printf(HLINE);
	for (i = 0, k = 0; i < 3; i++) {
		if (!exceeds(cs->avg_rel[i], cs->epsilon) && !cs->nerr[i])
			continue;
		k++;
		printf("Failed Validation on array %c[], AvgRelAbsErr > epsilon (%e)\n",
		       array_names[i], cs->epsilon);
		printf("     Expected Value: %e, AvgAbsErr: %e, AvgRelAbsErr: %e\n",
		       cs->expected[i], cs->avg_abs[i], cs->avg_rel[i]);
		if (i > 0)
			printf("     AvgRelAbsErr > Epsilon (%e)\n", cs->epsilon);
		printf("     For array %c[], %lld errors were found.\n",
		       array_names[i], cs->nerr[i]);
	}
	if (cs->valid)
		printf("Solution Validates: avg error less than %e on all three "
		       "arrays\n", cs->epsilon);
	else if (!k) /* a rank's Read sums: the ranks are named below */
		printf("Failed Validation on a rank: see below\n");
	printf(HLINE);
}

/* The outlier rule: strictly more than pct per cent below the median;
 * a node exactly at the threshold is not flagged.  Compared as
 * (median - v) * 100 > pct * median, so whole-number figures at the
 * threshold meet no rounding. */
static int cluster_below(double v, double med, double pct)
{
	return med > 0 && (med - v) * 100.0 > pct * med;
}

static const char *cluster_pages(const struct cluster_node *n, char *buf,
				 size_t len)
{
	char b[32];
	if (!n->pages_known)
		return "unknown";
	format_bytes(b, sizeof(b), (unsigned long long)n->page_kib * 1024);
	snprintf(buf, len, "%s, %.0f%% huge", b, n->huge_pct);
	return buf;
}

/* The cluster report's figures, computed once by cluster_figures() from
 * the nodes (a run's or --cluster-in's rows) and rendered once per
 * format by cluster_json() and cluster_text(), which compute nothing.  A
 * node that failed validation has no figures: it is left out of the sum,
 * the spread and the outlier rule. */
struct cluster_figures {
	const struct cluster_node *nd; /* the rows, in node order */
	int nn, ranks;
	unsigned kernels;
	const struct stream_run *r;      /* rank 0's run; NULL: --cluster-in */
	const struct cluster_stream *cs; /* stream_mpi.c's table; NULL: none */
	const char *source;              /* --cluster-in's file; NULL: a run */
	double outlier_pct;
	int ngood;  /* nodes that passed validation */
	int failed; /* any node failed */
	int lat;    /* any node has a latency figure */
	/* over the nodes that passed: the sum and the spread; NaN where none
	 * passed, 0 for a kernel not run */
	double agg[NKERNELS], mn[NKERNELS], md[NKERNELS], mx[NKERNELS];
	int noutliers; /* nodes below the median in any kernel */
	struct cluster_outlier {
		unsigned kernels;          /* those the node is an outlier in */
		double below_pct[NKERNELS]; /* how far below the median */
	} *outl; /* one per node */
};

static void cluster_figures(struct cluster_figures *f,
			    const struct cluster_node *nd, int nn, int ranks,
			    unsigned kernels, double outlier_pct)
{
	double *col = malloc((size_t)nn * sizeof(double));
	int j, k;

	memset(f, 0, sizeof(*f));
	f->outl = calloc((size_t)nn, sizeof(*f->outl));
	if (!col || !f->outl)
		die("out of memory for %d nodes", nn);
	f->nd = nd;
	f->nn = nn;
	f->ranks = ranks;
	f->kernels = kernels;
	f->outlier_pct = outlier_pct;
	for (j = 0; j < nn; j++) {
		f->ngood += nd[j].valid;
		f->failed |= !nd[j].valid;
		f->lat |= nd[j].lat_ns > 0;
	}
	for (k = 0; k < NKERNELS; k++) {
		int n = 0;
		f->agg[k] = f->mn[k] = f->md[k] = f->mx[k] = f->ngood ? 0 : NAN;
		if (!(kernels & (1u << k)))
			continue;
		for (j = 0; j < nn; j++) {
			if (!nd[j].valid)
				continue;
			col[n] = nd[j].mbs[k];
			f->agg[k] += col[n];
			if (n == 0 || col[n] < f->mn[k])
				f->mn[k] = col[n];
			if (col[n] > f->mx[k])
				f->mx[k] = col[n];
			n++;
		}
		if (n)
			f->md[k] = median(col, (size_t)n);
	}
	free(col);
	for (j = 0; j < nn; j++) {
		for (k = 0; k < NKERNELS; k++) {
			if (!(kernels & (1u << k)) || !nd[j].valid ||
			    !cluster_below(nd[j].mbs[k], f->md[k], outlier_pct))
				continue;
			f->outl[j].kernels |= 1u << k;
			f->outl[j].below_pct[k] =
				100.0 * (f->md[k] - nd[j].mbs[k]) / f->md[k];
		}
		f->noutliers += f->outl[j].kernels != 0;
	}
}

/* One kernel-keyed object of figures, v[k] for each kernel run. */
static void cluster_json_kernels(const char *key, const double *v,
				 unsigned kernels)
{
	int k;
	json_open(key, '{');
	for (k = 0; k < NKERNELS; k++)
		if (kernels & (1u << k))
			json_num(kernel_defs[k].name, v[k]);
	json_close('}');
}

static void cluster_json_node(const struct cluster_figures *f, int j)
{
	const struct cluster_node *n = &f->nd[j];
	double none[NKERNELS];
	int k;
	for (k = 0; k < NKERNELS; k++)
		none[k] = NAN;
	json_open(NULL, '{');
	json_str("host", n->host);
	json_int("ranks", n->ranks);
	json_int("threads", n->threads);
	/* a failed node's rates are no figures: null */
	cluster_json_kernels("rates_mbs", n->valid ? n->mbs : none, f->kernels);
	if (!f->source) {
		cluster_json_kernels("bytes", n->bytes, f->kernels);
		cluster_json_kernels("best_s", n->best_s, f->kernels);
	}
	if (n->lat_ns > 0)
		json_num("latency_ns", n->lat_ns);
	json_bool("valid", n->valid);
	if (n->bad_rank >= 0)
		json_int("first_failed_rank", n->bad_rank);
	json_int("failed_ranks", n->nbad);
	if (n->pages_known) {
		json_num("page_kib", n->page_kib);
		json_num("huge_pct", n->huge_pct);
	}
	if (n->limits_known) {
		/* its cgroup's: null where there is none */
		json_int_or_null("memory_limit_bytes", n->mem_limit > 0,
				 (long long)n->mem_limit);
		json_num("cpu_quota_cpus", n->cpu_quota > 0 ? n->cpu_quota : NAN);
		json_bool("limits_differ", n->limits_differ);
	}
	json_close('}');
}

/* stream_mpi.c's table as the JSON's stream_aggregate. */
static void cluster_stream_json(const struct cluster_stream *cs,
				unsigned kernels)
{
	int k;
	json_open("stream_aggregate", '{');
	json_str("note", "stream_mpi.c's table: all ranks' bytes over the "
		 "slowest rank's time of each repetition");
	json_num("array_size", cs->elems);
	json_bool("validated", cs->valid);
	json_open("results", '[');
	for (k = 0; k < NKERNELS; k++) {
		if (!(kernels & (1u << k)))
			continue;
		json_open(NULL, '{');
		json_str("kernel", kernel_defs[k].display);
		json_num("best_mbs", cs->best_mbs[k]);
		json_num("avg_s", cs->avg_t[k]);
		json_num("min_s", cs->min_t[k]);
		json_num("max_s", cs->max_t[k]);
		json_num("bytes", cs->bytes[k]);
		json_close('}');
	}
	json_close(']');
	json_close('}');
}

static void cluster_json(const struct options *o, const struct system_info *si,
			 const struct cluster_figures *f)
{
	int j, k;
	json_begin("stream", si);
	json_open("cluster", '{');
	json_str("source", f->source);
	json_str("launch", f->source ? NULL
		 : o->cluster_seq ? "sequential" : "simultaneous");
	json_int("ranks", f->ranks);
	json_int("node_count", f->nn);
	if (f->r) {
		json_int("array_size_per_rank", (long long)f->r->n);
		json_int("ntimes", (long long)f->r->ntimes);
	}
	json_num("outlier_pct", f->outlier_pct);
	json_num("gather_s", cluster_gather_s >= 0 ? cluster_gather_s : NAN);
	json_open("nodes", '[');
	for (j = 0; j < f->nn; j++)
		cluster_json_node(f, j);
	json_close(']');
	json_open("aggregate", '{');
	json_int("nodes", f->ngood);
	json_int("ranks", f->ranks);
	json_open("failed_nodes", '[');
	for (j = 0; j < f->nn; j++)
		if (!f->nd[j].valid)
			json_str(NULL, f->nd[j].host);
	json_close(']');
	cluster_json_kernels("rates_mbs", f->agg, f->kernels);
	json_close('}');
	json_open("spread", '{');
	cluster_json_kernels("min", f->mn, f->kernels);
	cluster_json_kernels("median", f->md, f->kernels);
	cluster_json_kernels("max", f->mx, f->kernels);
	json_close('}');
	json_open("outliers", '[');
	for (j = 0; j < f->nn; j++) {
		if (!f->outl[j].kernels)
			continue;
		json_open(NULL, '{');
		json_str("host", f->nd[j].host);
		json_open("kernels", '[');
		for (k = 0; k < NKERNELS; k++) {
			if (!(f->outl[j].kernels & (1u << k)))
				continue;
			json_open(NULL, '{');
			json_str("kernel", kernel_defs[k].name);
			json_num("mbs", f->nd[j].mbs[k]);
			json_num("below_median_pct", f->outl[j].below_pct[k]);
			json_close('}');
		}
		json_close(']');
		json_close('}');
	}
	json_close(']');
	json_bool("valid", !f->failed);
	if (f->cs)
		cluster_stream_json(f->cs, f->kernels);
	json_close('}');
	json_end();
}

/* The limits the nodes ran under (their cgroups': a Slurm job's --mem,
 * a container's), and each node whose limits are not the others'. */
static void cluster_limit_words(const struct cluster_node *n, char *buf,
				size_t len)
{
	char b1[32] = "none";
	if (n->mem_limit > 0)
		format_bytes(b1, sizeof(b1), (unsigned long long)n->mem_limit);
	if (n->cpu_quota > 0)
		snprintf(buf, len, "memory limit %s, CPU quota %.2f CPUs", b1,
			 n->cpu_quota);
	else
		snprintf(buf, len, "memory limit %s, CPU quota none", b1);
}

static void cluster_text_limits(const struct cluster_figures *f)
{
	char w[96];
	int j, same = 0, differ = 0;
	if (f->nn == 0 || !f->nd[0].limits_known)
		return;
	for (j = f->nn - 1; j >= 0; j--) {
		if (!f->nd[j].limits_differ)
			same = j;
		differ += f->nd[j].limits_differ;
	}
	cluster_limit_words(&f->nd[same], w, sizeof(w));
	printf("Limits: %s%s\n", w, differ ? " on the other nodes"
	       : f->nn > 1 ? " on every node" : "");
	for (j = 0; j < f->nn; j++)
		if (f->nd[j].limits_differ) {
			cluster_limit_words(&f->nd[j], w, sizeof(w));
			printf("Limits differ on %s: %s\n", f->nd[j].host, w);
		}
}

/* The per-node table: a row per node, then the sum and the spread. */
static void cluster_text_table(const struct cluster_figures *f)
{
	static const char *const names[] = {"Aggregate (sum)", "Min", "Median",
					    "Max"};
	const double *rows[4];
	char pb[48];
	int i, j, k;
	rows[0] = f->agg;
	rows[1] = f->mn;
	rows[2] = f->md;
	rows[3] = f->mx;
	printf("%-20s %5s %7s", "Node", "Ranks", "Threads");
	for (k = 0; k < NKERNELS; k++)
		if (f->kernels & (1u << k))
			printf(" %11s", kernel_defs[k].name);
	printf("%s %-10s %s\n", f->lat ? "  Latency ns" : "", "Validation",
	       "Pages");
	for (j = 0; j < f->nn; j++) {
		const struct cluster_node *n = &f->nd[j];
		printf("%-20s %5d %7d", n->host, n->ranks, n->threads);
		for (k = 0; k < NKERNELS; k++)
			if (f->kernels & (1u << k) && n->valid)
				printf(" %11.1f", n->mbs[k]);
			else if (f->kernels & (1u << k))
				printf(" %11s", "-");
		if (f->lat)
			printf(" %11.1f", n->lat_ns);
		printf(" %-10s %s\n", n->valid ? "passed" : "FAILED",
		       cluster_pages(n, pb, sizeof(pb)));
	}
	cluster_text_limits(f);
	printf(HLINE);
	for (i = 0; i < 4; i++) {
		printf("%-20s %5s %7s", names[i], "", "");
		for (k = 0; k < NKERNELS; k++)
			if ((f->kernels & (1u << k)) && f->ngood)
				printf(" %11.1f", rows[i][k]);
			else if (f->kernels & (1u << k))
				printf(" %11s", "-");
		printf("\n");
	}
}

static void cluster_text(const struct options *o, const struct cluster_figures *f)
{
	int j, k, nn = f->nn;
	if (f->cs)
		cluster_stream_text(f->r, f->cs, f->kernels);
	else if (!f->source)
		printf("No STREAM table: the nodes ran one at a time "
		       "(--cluster sequential), so no figure is of them "
		       "all at once.\n");
	printf("membench %s cluster\n", BENCH_VERSION);
	print_build_text();
	printf(HLINE);
	if (f->source)
		printf("Per-node figures read from %s; nothing measured.\n",
		       f->source);
	else
		printf("%d rank%s on %d node%s, %s; %llu elements per array "
		       "per rank, best of %llu repetitions after the first.\n",
		       f->ranks, f->ranks == 1 ? "" : "s", nn, nn == 1 ? "" : "s",
		       o->cluster_seq ? "sequential" : "simultaneous",
		       (unsigned long long)f->r->n, f->r->ntimes - 1);
	printf("Rates in MB/s: the bytes of all a node's ranks over the "
	       "slowest rank's time.\n");
	cluster_text_table(f);
	if (f->ngood < nn)
		printf("%d of %d node%s failed validation and %s left out of "
		       "the sum, the spread and the outlier rule.\n",
		       nn - f->ngood, nn, nn == 1 ? "" : "s",
		       nn - f->ngood == 1 ? "is" : "are");
	if (o->cluster_seq && !f->source)
		printf("Nodes ran one at a time: the sum is not a figure of "
		       "the nodes at once.\n");
	printf(HLINE);
	printf("Outliers (more than %g%% below the median): %s\n",
	       f->outlier_pct, f->noutliers ? "" : "none");
	for (j = 0; j < nn; j++) {
		const char *sep = "";
		if (!f->outl[j].kernels)
			continue;
		printf("  %s:", f->nd[j].host);
		for (k = 0; k < NKERNELS; k++) {
			if (!(f->outl[j].kernels & (1u << k)))
				continue;
			printf("%s %s %.1f%% below", sep, kernel_defs[k].name,
			       f->outl[j].below_pct[k]);
			sep = ",";
		}
		printf("\n");
	}
	for (j = 0; j < nn; j++)
		if (!f->nd[j].valid) {
			if (f->nd[j].bad_rank >= 0)
				printf("Validation failed on rank %d (host %s)%s\n",
				       f->nd[j].bad_rank, f->nd[j].host,
				       f->nd[j].nbad > 1 ? " and other ranks of that node" : "");
			else
				printf("Validation failed on node %s\n", f->nd[j].host);
		}
	if (!f->failed)
		printf("validation passed on every %s\n", f->source ? "node" : "rank");
	text_warnings("WARNING: ");
	printf(HLINE);
}

/* The report of a run or of --cluster-in's rows: the figures once, then
 * text and JSON from them.  Returns 1 when any node failed validation. */
static int cluster_report(const struct options *o, const struct system_info *si,
			  const struct cluster_node *nd, int nn, int ranks,
			  unsigned kernels, const struct stream_run *r,
			  const struct cluster_stream *cs, const char *source)
{
	struct cluster_figures f;
	cluster_figures(&f, nd, nn, ranks, kernels, o->outlier_pct);
	f.r = r;
	f.cs = cs;
	f.source = source;
	if (out.json)
		cluster_json(o, si, &f);
	if (out.text)
		cluster_text(o, &f);
	free(f.outl);
	return f.failed;
}

/* --cluster-in FILE: per-node rows, one a line, "#" comments:
 *     host ranks threads copy scale add triad [passed|failed]
 * rendered as a run's table; the outlier rule and the report can be
 * checked without a cluster. */
static int cluster_in_mode(const struct options *o, const struct system_info *si)
{
	FILE *f = strcmp(o->cluster_in, "-") == 0 ? stdin : fopen(o->cluster_in, "r");
	struct cluster_node *nd = NULL;
	char line[512];
	int nn = 0, cap = 0, lineno = 0, ranks = 0, rc;

	if (!f)
		die("--cluster-in %s: %s", o->cluster_in, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		struct cluster_node n;
		char host[CLUSTER_HOST + 1], state[16] = "passed", extra[2];
		int got;
		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			die("--cluster-in %s:%d: line too long", o->cluster_in, lineno);
		if (line[strspn(line, " \t\r\n")] == '\0' ||
		    line[strspn(line, " \t")] == '#')
			continue;
		memset(&n, 0, sizeof(n));
		got = sscanf(line, "%64s %d %d %lf %lf %lf %lf %15s %1s", host,
			     &n.ranks, &n.threads, &n.mbs[K_COPY], &n.mbs[K_SCALE],
			     &n.mbs[K_ADD], &n.mbs[K_TRIAD], state, extra);
		if (got < 7 || got > 8 || strlen(host) >= CLUSTER_HOST ||
		    n.ranks < 1 || n.threads < 1 ||
		    (strcmp(state, "passed") && strcmp(state, "failed")))
			die("--cluster-in %s:%d: expected 'host ranks threads copy "
			    "scale add triad [passed|failed]'", o->cluster_in, lineno);
		for (got = K_COPY; got <= K_TRIAD; got++)
			if (!finite_d(n.mbs[got]) || n.mbs[got] < 0)
				die("--cluster-in %s:%d: rates must be finite, not "
				    "negative", o->cluster_in, lineno);
		memcpy(n.host, host, strlen(host) + 1);
		n.valid = strcmp(state, "passed") == 0;
		n.nbad = !n.valid;
		n.bad_rank = -1;
		if (nn == cap) {
			struct cluster_node *m;
			cap = cap ? 2 * cap : 64;
			m = realloc(nd, (size_t)cap * sizeof(*nd));
			if (!m)
				die("out of memory for %d nodes", cap);
			nd = m;
		}
		ranks += n.ranks;
		nd[nn++] = n;
	}
	if (ferror(f))
		die("--cluster-in %s: %s", o->cluster_in, strerror(errno));
	if (f != stdin)
		fclose(f);
	if (nn == 0)
		die("--cluster-in %s: no node rows", o->cluster_in);
	rc = cluster_report(o, si, nd, nn, ranks, STREAM_KERNELS, NULL, NULL,
			    o->cluster_in);
	free(nd);
	return rc;
}

/* What this rank sends rank 0 of its run (lat_ns: its chase, 0 for
 * none): the table's facts, not the run, which rank 0 cannot read. */
static void cluster_rank_record(const struct stream_run *r, double lat_ns,
				struct cluster_rank *me)
{
	int i;
	memset(me, 0, sizeof(*me)); /* sent as bytes: no stray padding */
	memcpy(me->host, cl.host, sizeof(me->host));
	me->node = cl.node_id;
	me->threads = threads_counted;
	me->valid = r->valid;
	me->lat_ns = lat_ns;
	me->elems = (double)r->n;
	me->epsilon = r->epsilon;
	for (i = 0; i < 3; i++) {
		me->expected[i] = r->expected[i];
		me->avg_abs[i] = r->avg_abs[i];
		me->nerr[i] = r->nerr[i];
	}
	me->mem_limit = (double)os_box_limits()->mem;
	me->cpu_quota = os_box_limits()->cpus;
	me->pages_known = r->pages[0].known;
	me->page_kib = (double)r->pages[0].page_kib;
	me->huge_pct = 100;
	for (i = 0; i < 3; i++)
		if (r->pages[i].known && r->pages[i].huge_pct < me->huge_pct)
			me->huge_pct = r->pages[i].huge_pct;
}

/* bench-mpi stream: every rank measures, rank 0 reports.  Any rank's
 * failed validation fails the run (exit 1) on every rank. */
static int cluster_stream_mode(const struct options *o,
			       const struct system_info *si)
{
	struct stream_run r;
	struct cluster_rank me, *rk = NULL;
	struct cluster_node *nd = NULL;
	double *times = NULL;
	MPI_Request req;
	int rc = 0;
	size_t per = NKERNELS * (size_t)o->ntimes;
	double t_gather;

	if (o->cluster_in)
		return cluster_in_mode(o, si);
	memset(&r, 0, sizeof(r));
	alloc_plan(&r.plan, o, M_STREAM, reported_llc(si),
		   reported_llc_instances(si), 1);
	stream_check(o);
	stream_allocate(o, &r);
	stream_prepare(o, &r);
	/* every rank has its memory (a rank refused huge pages has ended the
	 * job naming itself) before any is timed */
	cluster_barrier(MPI_COMM_WORLD, "the barrier before the first kernel",
			-1, 0);
	cluster_measure(o, &r);
	cluster_rank_record(&r, o->cluster_lat ? cluster_latency(o, si) : 0, &me);
	if (!r.valid)
		fprintf(stderr, "%s: %svalidation failed (a[] %lld, b[] %lld, c[] "
			"%lld elements wrong)\n", prog, die_where, r.nerr[0],
			r.nerr[1], r.nerr[2]);
	if (cl.rank == 0) {
		rk = malloc((size_t)cl.size * sizeof(*rk));
		times = malloc((size_t)cl.size * per * sizeof(double));
		nd = malloc((size_t)cl.nnodes * sizeof(*nd));
		if (!rk || !times || !nd)
			die("out of memory for the results of %d ranks", cl.size);
	}
	t_gather = MPI_Wtime();
	cluster_check(MPI_Igather(&me, (int)sizeof(me), MPI_BYTE, rk,
				  (int)sizeof(me), MPI_BYTE, 0, MPI_COMM_WORLD,
				  &req), "gathering the ranks' results");
	cluster_wait(&req, "gathering the ranks' results", -1, 0);
	cluster_check(MPI_Igather(r.times, (int)per, MPI_DOUBLE, times, (int)per,
				  MPI_DOUBLE, 0, MPI_COMM_WORLD, &req),
		      "gathering the ranks' times");
	cluster_wait(&req, "gathering the ranks' times", -1, 0);
	if (cl.rank == 0) {
		struct cluster_stream cs;
		cluster_nodes(rk, times, r.ntimes, o->kernels, nd, cl.nnodes);
		cluster_stream_table(rk, times, r.ntimes, o->kernels, &cs);
		cluster_gather_s = MPI_Wtime() - t_gather;
		rc = cluster_report(o, si, nd, cl.nnodes, cl.size, o->kernels, &r,
				    o->cluster_seq ? NULL : &cs, NULL);
	}
	cluster_check(MPI_Ibcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD, &req),
		      "sharing the run's status");
	cluster_wait(&req, "sharing the run's status", -1, 0);
	free(rk);
	free(times);
	free(nd);
	stream_release(&r);
	return rc;
}

#endif /* BENCH_MPI */

/* ======================================================================
 * 23b Hierarchy (bench hierarchy): each level the latency analysis
 * names, its bandwidth beside its latency.  The levels come from the
 * latency summary (a sweep of its own, or --curve-in), kept by
 * lat_keep(); each level named for certain is measured inside its edges
 * with Read, Write, Copy and Triad, on 1 thread and on one bound thread
 * per core, each kernel by its fastest method (every instruction set;
 * streaming stores too where the level is memory), as --best chooses.
 * The L1d row is set against the core's peak from hier_cores[].
 * ====================================================================== */

/* A level's working set is its upper edge / HIER_INSIDE, and at least
 * HIER_ABOVE times the edge of the level below: well inside both. */
#ifndef HIER_INSIDE
#define HIER_INSIDE 2
#endif
#ifndef HIER_ABOVE
#define HIER_ABOVE 2
#endif
/* Each timed repetition of a cache level lasts at least this long (s):
 * the working set is run over that many times inside one timing. */
#ifndef HIER_MIN_S
#define HIER_MIN_S 0.002
#endif
/* bench hierarchy's own latency sweep ends here unless --max says: it
 * needs the levels' edges, not memory's latency at 256 MiB.  Twice a
 * CCD's 32 MiB L3 (AMD Zen 3-5), so the sweep leaves it; at 32 MiB the
 * Intel guest's L3 share (its records end it at 13-57 MiB) kept its row
 * one run in two.  10.4 s a run there, against 7.9 (budget 15). */
#ifndef HIER_LAT_MAX
#define HIER_LAT_MAX (64ULL << 20)
#endif

/* --ws-sweep: each size the one before times the square root of 2 (2
 * sizes an octave; a literal, so no libm), and at most this many. */
#define HIER_PTS_STEP 1.4142135623730951
#define HIER_MAX_PTS 96

/* The kernels of the table, in its column order. */
static const int hier_kernels[] = {K_READ, K_WRITE, K_COPY, K_TRIAD};
#define HIER_NK 4
#define HIER_ROWS (LAT_MAX_LEVELS + 1)

/* One kernel at one thread count. */
struct hier_cell {
	double mbs;        /* from the best repetition */
	double spread_pct; /* (median - fastest) / fastest of the reps */
	struct method how; /* the fastest method, from calibration */
	int valid;
};

struct hier_row {
	char level[16];     /* the summary's name: L1d, L2, ..., DRAM */
	int dram, shared;   /* memory; a cache shared by the threads */
	double ns, mhz;     /* latency from the summary; its clock, 0 none */
	double edge_lo, edge_hi; /* the level's edges (bytes); 0: none */
	int threads[2];     /* 1, then one per core */
	unsigned long long ws[2];        /* bytes of the arrays, all threads */
	unsigned long long ws_thread[2]; /* ... and one thread's share */
	int measured[2];
	char why[2][200];   /* why a thread count was not measured */
	int apart[2];       /* read above the next level's: 1, 0, -1 n/a */
	struct hier_cell cell[2][HIER_NK];
	/* memory: 1 where the cell is the `bench all` run's own --best
	 * figure, 0 where this row's STREAM run measured it */
	int from_run[2][HIER_NK];
	/* L1d: the core's peak per kernel (MB/s at nt = 1), 0 unknown */
	double peak_mbs[HIER_NK];
};

/* Load and store widths of a core's L1d, per microarchitecture: loads
 * per cycle up to load_bits each, stores per cycle up to store_bits
 * each, and the stores' bytes per cycle in all.  An entry stands only
 * where its numbers were checked against the vendor's own optimization
 * guide, named with its publication number and section in `source`
 * (docs/bench.md lists the cores left out and why): a CPU that is not
 * here gets no peak and no per cent, never a guess.  A vector wider
 * than load_bits or store_bits takes that many slots (Zen 4 runs
 * AVX-512 on 256-bit datapaths), so the bytes a cycle never grow with
 * the instruction set past the datapath. */
struct hier_core {
	const char *vendor; /* /proc/cpuinfo vendor_id */
	int family, model_lo, model_hi;
	const char *name;
	int loads, load_bits, stores, store_bits, store_bytes;
	const char *source;
};

/* Zen 4's models: family 19h models 10h-1Fh and 60h-AFh, as Linux's
 * arch/x86/kernel/cpu/amd.c (bsp_init_amd) sorts family 19h into Zen 3
 * and Zen 4. */
#define HIER_ZEN4_NAME "AMD Zen 4 (family 19h)"
#define HIER_ZEN4_SOURCE "Software Optimization Guide for the AMD Zen4 " \
	"Microarchitecture, publication 57647: section 2.11 Floating-Point " \
	"Unit (up to two 256-bit loads a cycle; FP stores on two pipes, one " \
	"a cycle; 512-bit operations over two cycles, the datapaths being " \
	"256 bits) and section 2.12 Load-Store Unit (three memory " \
	"operations a cycle, at most two of them stores)"

static const struct hier_core hier_cores[] = {
	{"AuthenticAMD", 0x16, 0x00, 0x0f, "AMD family 16h (Jaguar)", 1, 128, 1,
	 128, 16, "Software Optimization Guide for AMD Family 16h Processors, "
	 "publication 52128 rev. 1.1 (March 2013), section 2.5.2 L1 Data "
	 "Cache and section 2.12 Load Store Unit: one 128-bit load and one "
	 "128-bit store per cycle"},
	/* vector loads: two of 256 bits (2.11), though 2.12 lets three
	 * memory operations be loads (that is the integer side); vector
	 * stores: one of 256 bits a cycle (2.11) */
	{"AuthenticAMD", 0x19, 0x10, 0x1f, HIER_ZEN4_NAME, 2, 256, 1, 256, 32,
	 HIER_ZEN4_SOURCE},
	{"AuthenticAMD", 0x19, 0x60, 0xaf, HIER_ZEN4_NAME, 2, 256, 1, 256, 32,
	 HIER_ZEN4_SOURCE},
};
#define HIER_NCORES (sizeof(hier_cores) / sizeof(hier_cores[0]))

/* This CPU's vendor, family and model from /proc/cpuinfo (redirectable
 * with MEMBENCH_PROCFS); 0 when they cannot be read.  *guest: the first
 * flags line has "hypervisor", so a hypervisor chose the family and
 * model the guest sees. */
static int hier_cpu_id(char *vendor, size_t len, int *family, int *model,
		       int *guest)
{
	char path[4096], line[4096];
	FILE *f;
	int got = 0;
	snprintf(path, sizeof(path), "%s/cpuinfo", procfs_root());
	*family = *model = -1;
	*guest = 0;
	vendor[0] = '\0';
	if (!(f = pseudo_open(path)))
		return 0;
	while ((got & 15) != 15 && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *e;
		long v;
		if (!colon)
			continue;
		if (strncmp(line, "flags", 5) == 0 && !(got & 8) &&
		    (line[5] == ' ' || line[5] == '\t')) {
			*guest = has_word(colon + 1, "hypervisor");
			got |= 8;
			continue;
		}
		if (strncmp(line, "vendor_id", 9) == 0 && !(got & 1)) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			snprintf(vendor, len, "%s", colon);
			vendor[strcspn(vendor, " \t\r\n")] = '\0';
			got |= 1;
			continue;
		}
		v = strtol(colon + 1, &e, 10);
		if (e == colon + 1 || v < 0 || v > 4095)
			continue;
		if (strncmp(line, "cpu family", 10) == 0 && !(got & 2)) {
			*family = (int)v;
			got |= 2;
		} else if (strncmp(line, "model\t", 6) == 0 && !(got & 4)) {
			*model = (int)v;
			got |= 4;
		}
	}
	fclose(f);
	return (got & 7) == 7;
}

/* The table's entry for this CPU, or NULL; *what names the CPU, *guest
 * says a hypervisor chose its family and model. */
static const struct hier_core *hier_core_of(char *what, size_t len,
					    int *guest)
{
	char vendor[64];
	int family, model;
	size_t i;
	if (!hier_cpu_id(vendor, sizeof(vendor), &family, &model, guest)) {
		snprintf(what, len, "this CPU's vendor, family and model could not "
			 "be read");
		return NULL;
	}
	for (i = 0; i < HIER_NCORES; i++)
		if (strcmp(hier_cores[i].vendor, vendor) == 0 &&
		    hier_cores[i].family == family &&
		    model >= hier_cores[i].model_lo &&
		    model <= hier_cores[i].model_hi) {
			snprintf(what, len, "%s family %d model %d", vendor,
				 family, model);
			return &hier_cores[i];
		}
	snprintf(what, len, "%s family %d model %d is not in bench's table of "
		 "cores (hier_cores[])", vendor, family, model);
	return NULL;
}

/* The core's peak bytes per cycle for kernel k at `bits` of vector:
 * each element moves its loads and stores; a cycle does at most
 * c->loads loads and c->stores stores of at most their width, and at
 * most store_bytes of stores. */
static double hier_peak_bpc(const struct hier_core *c, int k, int bits)
{
	int loads = kernel_reads(k), stores = kernel_writes(k);
	double lb = (double)(bits < c->load_bits ? bits : c->load_bits) / 8;
	double sb = (double)(bits < c->store_bits ? bits : c->store_bits) / 8;
	double lpc = c->loads * lb, spc = c->stores * sb, cyc = 0;
	double vb = (double)bits / 8; /* bytes of one vector */
	if (spc > c->store_bytes)
		spc = c->store_bytes;
	/* one vector of every array: loads*vb bytes loaded, stores*vb stored */
	if (loads && loads * vb / lpc > cyc)
		cyc = loads * vb / lpc;
	if (stores && stores * vb / spc > cyc)
		cyc = stores * vb / spc;
	return cyc > 0 ? (loads + stores) * vb / cyc : 0;
}

/* Arrays for the cache levels: three of `elems` each, staggered as the
 * bandwidth arrays are. */
struct hier_arrays {
	void *block;
	struct arrays ar;
	size_t cap;
};

static void hier_arrays_get(struct hier_arrays *h, size_t elems)
{
	/* elements from one array's start to the next's */
	size_t step = (round_up(elems * sizeof(elem_t), 4096) + BENCH_STAGGER +
		       sizeof(elem_t) - 1) / sizeof(elem_t);
	if (elems <= h->cap)
		return;
	os_aligned_free(h->block);
	if (!(h->block = os_aligned_alloc(3 * step * sizeof(elem_t))))
		die("out of memory for the hierarchy's arrays (%zu bytes)",
		    3 * step * sizeof(elem_t));
	h->ar.a = (elem_t *)h->block;
	h->ar.b = h->ar.a + step;
	h->ar.c = h->ar.a + 2 * step;
	h->cap = elems;
}

/* Thread t's span of n elements among nt, split on cache lines (the
 * bandwidth program's rule without its page grid, which is set for the
 * STREAM arrays), so no two threads write one line. */
static void hier_span(size_t n, int t, int nt, size_t *lo, size_t *hi)
{
	*lo = span_line_start(n, (size_t)t, (size_t)nt);
	*hi = span_line_start(n, (size_t)t + 1, (size_t)nt);
}

static int hier_cpu_of[MAX_THREADS];
static int hier_cpu_one; /* where a run of 1 thread goes: plan_binding(1) */
static int hier_pin; /* 1: bench pins, hier_cpu_of[] says where */

static void hier_pin_me(int t)
{
	if (hier_pin && t < MAX_THREADS && hier_cpu_of[t] >= 0)
		pin_to_cpu(hier_cpu_of[t]);
}

/* Each thread writes the starting values into its own span (first
 * touch): a 1, b 2, c 0.5. */
static void hier_init(const struct arrays *ar, int nt)
{
#ifdef _OPENMP
#pragma omp parallel num_threads(nt)
#endif
	{
		size_t lo, hi, j;
		int t = thread_id();
		hier_pin_me(t);
		hier_span(ar->n, t, nt, &lo, &hi);
		for (j = lo; j < hi; j++) {
			ar->a[j] = 1.0;
			ar->b[j] = 2.0;
			ar->c[j] = 0.5;
		}
	}
	(void)nt;
}

/* One timing of `inner` passes of kernel k over the arrays on nt bound
 * threads, from a barrier after every thread has started to one after
 * every thread has finished; *sum gets the last pass's Read total. */
static double hier_time(enum kernel_id k, const struct arrays *ar, elem_t q,
			struct method m, int nt, long inner, double *sum)
{
	double t0 = 0, t1 = 0, s = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) reduction(+ : s)
#endif
	{
		size_t lo, hi;
		int t = thread_id();
		long i;
		double part = 0;
		hier_pin_me(t);
		hier_span(ar->n, t, nt, &lo, &hi);
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
		t0 = now();
#ifdef _OPENMP
#pragma omp barrier
#endif
		for (i = 0; i < inner; i++)
			part = kernel_span(k, ar, q, m, lo, hi);
#ifdef _OPENMP
#pragma omp barrier
#pragma omp master
#endif
		t1 = now();
		s += part;
	}
	(void)nt;
	*sum = s;
	return t1 - t0;
}

/* Whether kernel k's result is right after its passes: Read's total is
 * n ones; the others' stored array holds its formula's value. */
static int hier_valid(enum kernel_id k, const struct arrays *ar, elem_t q,
		      double sum)
{
	size_t j, n = ar->n, step = n > (1u << 20) ? 4099 : 1;
	for (j = 0; j < n; j += step) {
		elem_t want, got;
		switch (k) {
		case K_WRITE: want = q; got = ar->c[j]; break;
		case K_COPY: want = ar->a[j]; got = ar->c[j]; break;
		case K_TRIAD: want = ar->b[j] + q * ar->c[j]; got = ar->a[j]; break;
		default: want = got = 0; break;
		}
		if (k != K_READ && want != got)
			return 0;
	}
	return k != K_READ || sum == (double)n;
}

/* One kernel of one cache level's row at nt threads over n elements an
 * array: the fastest candidate by BENCH_CAL_PASSES ABBA passes, then
 * ntimes timings of it (the first a warm-up), each timing enough passes
 * over the level for HIER_MIN_S.  (Memory's row is STREAM's run:
 * hier_dram.) */
static void hier_cell_measure(const struct options *o, struct hier_cell *c,
			      enum kernel_id k, const struct arrays *ar, int nt,
			      int isa)
{
	struct method cand[MAX_METHODS], m;
	double cal[MAX_METHODS], sum = 0, t, best = DBL_MAX, worst = 0, *times;
	elem_t q = 3.0;
	int nc = candidate_methods(k, isa, cand), i, w, ws, pass;
	long inner = 1;
	unsigned long long rep;
	/* plain stores only, which keep the lines in the level */
	{
		int kept = 0;
		for (i = 0; i < nc; i++)
			if (cand[i].kind != SK_NT)
				cand[kept++] = cand[i];
		nc = kept;
	}
	hier_init(ar, nt);
	{ /* passes enough for HIER_MIN_S a timing */
		t = hier_time(k, ar, q, cand[0], nt, 1, &sum);
		t = hier_time(k, ar, q, cand[0], nt, 1, &sum);
		inner = t > 0 ? (long)(HIER_MIN_S / t) + 1 : 1000;
		if (inner > 1000000)
			inner = 1000000;
	}
	for (i = 0; i < nc; i++)
		cal[i] = DBL_MAX;
	for (pass = 0; pass < BENCH_CAL_PASSES; pass++)
		for (i = 0; i < nc; i++) {
			int x = pass % 2 ? nc - 1 - i : i;
			t = hier_time(k, ar, q, cand[x], nt, inner, &sum);
			if (t < cal[x])
				cal[x] = t;
		}
	fastest_methods(cal, cand, nc, &w, &ws);
	m = cand[w];
	if (!(times = malloc((size_t)o->ntimes * sizeof(*times))))
		die("out of memory for %llu repetitions", o->ntimes);
	for (rep = 0; rep < o->ntimes; rep++) {
		t = hier_time(k, ar, q, m, nt, inner, &sum);
		times[rep] = t;
		if (rep > 0 && t < best)
			best = t;
	}
	/* the median's distance above the best: one preempted repetition
	 * does not make a level look noisy */
	worst = median(times + 1, (size_t)o->ntimes - 1);
	free(times);
	if (m.kind == SK_LOAD) /* bare loads sum nothing: check a sum's pass */
		hier_time(k, ar, q, cand[ws], nt, 1, &sum);
	c->how = m;
	c->valid = hier_valid(k, ar, q, sum);
	c->mbs = best > 0 ? kernel_bytes(k, ar->n) * (double)inner / best / 1e6 : 0;
	c->spread_pct = best > 0 ? 100 * (worst - best) / best : 0;
}

/* Whether cache level `number` is shared by the threads: the OS's word
 * where it gives one (fewer instances than cores), else L1 and L2 are
 * private and the rest shared. */
static int hier_shared(const struct system_info *si, int number, int cores)
{
	int i;
	for (i = 0; i < si->ncaches; i++)
		if (si->caches[i].level == number &&
		    strcmp(si->caches[i].type, "Instruction") != 0 &&
		    si->caches[i].instances > 0)
			return si->caches[i].instances < cores;
	return number > 2;
}

struct hier_run {
	int nrows;
	struct hier_row row[HIER_ROWS];
	int nskipped;
	char skipped[HIER_ROWS][240];
	int nt_all, cores_known;
	double mhz;             /* this machine's clock for bytes/cycle */
	const char *mhz_source;
	const struct hier_core *core;
	char core_what[160];
	int core_guest; /* a hypervisor chose the family and model */
	int isa, valid;
	const char *levels_from; /* "sweep" or the --curve-in file */
	/* --ws-sweep: Copy at working sets from 1 KiB to 4x the last edge */
	int npts;
	unsigned long long pt_ws[HIER_MAX_PTS];
	struct hier_cell pt[2][HIER_MAX_PTS];
	double sweep_top;  /* the last level's edge it runs to 4x of */
	char sweep_why[160]; /* why no sweep was run, "" when it ran or was not asked */
	/* the summary's levels' edges, for the plot */
	int nedges;
	char edge_name[LAT_MAX_LEVELS][16];
	double edge_bytes[LAT_MAX_LEVELS];
	int edge_certain[LAT_MAX_LEVELS];
};

/* The rows: each level of the summary named for certain, with an edge,
 * then memory; the others are said why not. */
static void hier_plan_rows(const struct options *o, const struct system_info *si,
			   const struct lat_summary *s, double lat_mhz,
			   struct hier_run *h)
{
	int i;
	char b1[32], b2[32];
	for (i = 0; i < s->nlevels && h->nrows < HIER_ROWS - 1; i++) {
		const struct lat_level *lv = &s->level[i];
		struct hier_row *r;
		double lo = i > 0 ? s->level[i - 1].boundary : 0, ws;
		int dram = strcmp(lv->name, "DRAM") == 0, nt;
		if (dram)
			continue; /* memory is the last row, below */
		if (lat_level_certain(lv) == 0) {
			snprintf(h->skipped[h->nskipped++], sizeof(h->skipped[0]),
				 "%s? has no row: the latency analysis names it "
				 "uncertainly (%s)", lv->name,
				 lv->extra ? "not a level of its own"
				 : lv->tlb_doubt ? "its edge could be a TLB's reach"
				 : lv->near_below ? "it ends close to the level below"
				 : lv->disturbed ? "its probe's curve fell across it"
				 : "resampled readings disagree");
			continue;
		}
		if (!(lv->boundary > 0)) {
			snprintf(h->skipped[h->nskipped++], sizeof(h->skipped[0]),
				 "%s has no row: the sweep never left it, so its "
				 "edge is unknown (raise --max)", lv->name);
			continue;
		}
		ws = lv->boundary / HIER_INSIDE;
		if (ws < HIER_ABOVE * lo) {
			format_bytes(b1, sizeof(b1), (unsigned long long)lo);
			format_bytes(b2, sizeof(b2),
				     (unsigned long long)lv->boundary);
			snprintf(h->skipped[h->nskipped++], sizeof(h->skipped[0]),
				 "%s has no row: its edges (%s to %s) are too close "
				 "for a working set %dx above the one and 1/%d of the "
				 "other", lv->name, b1, b2, HIER_ABOVE, HIER_INSIDE);
			continue;
		}
		r = &h->row[h->nrows++];
		memset(r, 0, sizeof(*r));
		snprintf(r->level, sizeof(r->level), "%s", lv->name);
		r->ns = lv->ns;
		r->mhz = lat_mhz;
		r->edge_lo = lo;
		r->edge_hi = lv->boundary;
		r->shared = hier_shared(si, lv->number > 0 ? lv->number : i + 1,
					h->nt_all);
		r->threads[0] = 1;
		r->threads[1] = h->nt_all;
		ws = (double)((unsigned long long)ws / 4096 * 4096);
		for (nt = 0; nt < 2; nt++) {
			int n = r->threads[nt];
			r->ws_thread[nt] = (unsigned long long)(r->shared ? ws / n : ws);
			r->ws[nt] = r->ws_thread[nt] * (unsigned long long)n;
			r->measured[nt] = 1;
			if (r->shared && r->ws_thread[nt] < HIER_ABOVE * lo) {
				format_bytes(b1, sizeof(b1), r->ws_thread[nt]);
				format_bytes(b2, sizeof(b2), (unsigned long long)lo);
				snprintf(r->why[nt], sizeof(r->why[nt]),
					 "%s is too small to split among %d threads: "
					 "a share of %s is under %dx the level below "
					 "(%s)", lv->name, n, b1, HIER_ABOVE, b2);
				r->measured[nt] = 0;
			}
		}
	}
	{
		struct hier_row *r = &h->row[h->nrows++];
		int nt;
		memset(r, 0, sizeof(*r));
		snprintf(r->level, sizeof(r->level), "DRAM");
		r->dram = r->shared = 1;
		r->ns = NAN;
		for (i = 0; i < s->nlevels; i++)
			if (strcmp(s->level[i].name, "DRAM") == 0)
				r->ns = s->level[i].ns;
		r->mhz = lat_mhz;
		r->threads[0] = 1;
		r->threads[1] = h->nt_all;
		/* arrays inside the last cache's edge measure that cache */
		for (i = h->nrows - 2; i >= 0 && i + 1 == h->nrows - 1; i--) {
			double ws = 3.0 * (double)o->size * sizeof(elem_t);
			if (ws < BENCH_LLC_FACTOR * h->row[i].edge_hi) {
				format_bytes(b1, sizeof(b1), (unsigned long long)ws);
				format_bytes(b2, sizeof(b2),
					     (unsigned long long)h->row[i].edge_hi);
				warn("hierarchy: DRAM's arrays (%s) are under %dx "
				     "%s's edge (%s): its row may read a cache "
				     "(raise -s)", b1, BENCH_LLC_FACTOR,
				     h->row[i].level, b2);
			}
		}
		for (nt = 0; nt < 2; nt++) {
			r->measured[nt] = 1;
			r->ws[nt] = 3 * o->size * sizeof(elem_t);
			r->ws_thread[nt] = r->ws[nt] / (unsigned long long)r->threads[nt];
		}
	}
}

/* Memory's row at thread count nt (0: 1 thread, 1: one a core): the
 * STREAM run of section 13 (stream_allocate, stream_prepare_on,
 * stream_measure) of Read, Write, Copy and Triad with --stores auto,
 * which is the run --best makes: the same candidates (each instruction
 * set, plain and streaming stores, libc's memcpy for Copy), the same
 * calibration, the kernels interleaved in each repetition, the best
 * time of repetitions 2..ntimes, on STREAM's three arrays of -s
 * elements.  So memory's row is --best's figure for the same kernels,
 * threads and array size by construction.  In `bench all` with --best,
 * the kernels whose figure the run's --best table already has at this
 * thread count and array size are taken from it, not measured again.
 * The arrays are allocated once (*have) and prepared again per count. */
static void hier_dram(const struct options *o, const struct system_info *si,
		      struct hier_row *r, int nt, struct stream_run *run,
		      int *have)
{
	struct options so = *o;
	struct alloc_plan p;
	unsigned want = 0;
	int k, n = r->threads[nt], cpus[MAX_THREADS], i, before;
	alloc_plan(&p, o, M_STREAM, reported_llc(si),
		   reported_llc_instances(si), 1);
	for (k = 0; k < HIER_NK; k++) {
		int kk = hier_kernels[k];
		struct hier_cell *c = &r->cell[nt][k];
		if (stream_kept.have && stream_kept.threads == n &&
		    stream_kept.elems == p.elems &&
		    (stream_kept.kernels & (1u << kk))) {
			double b = kernel_bytes(kk, (size_t)p.elems);
			/* json_kernel_times()'s formula, so the figures are one */
			c->mbs = 1.0E-06 * b / stream_kept.min_t[kk];
			c->spread_pct = 100 * (stream_kept.med_t[kk] -
					       stream_kept.min_t[kk]) /
					stream_kept.min_t[kk];
			c->how = stream_kept.how[kk];
			c->valid = stream_kept.valid;
			r->from_run[nt][k] = 1;
		} else {
			want |= 1u << kk;
		}
	}
	if (!want)
		return;
	so.kernels = want;
	so.nt_stores = STORES_AUTO;
	so.best = 0;
	so.placement = 0;
	if (!*have) {
		memset(run, 0, sizeof(*run));
		run->plan = p;
		stream_allocate(&so, run);
		*have = 1;
	}
	for (i = 0; i < n && i < MAX_THREADS; i++)
		cpus[i] = n == 1 ? hier_cpu_one : hier_cpu_of[i];
	before = threads_requested();
#ifdef _OPENMP
	omp_set_num_threads(n);
#endif
	stream_prepare_on(&so, run, hier_pin ? cpus : NULL, hier_pin ? n : 0);
	stream_measure(&so, run, 0);
#ifdef _OPENMP
	omp_set_num_threads(before);
#endif
	(void)before;
	for (k = 0; k < HIER_NK; k++) {
		int kk = hier_kernels[k];
		struct hier_cell *c = &r->cell[nt][k];
		if (!(want & (1u << kk)))
			continue;
		c->mbs = 1.0E-06 * kernel_bytes(kk, run->n) / run->min_t[kk];
		c->spread_pct = 100 * (run->med_t[kk] - run->min_t[kk]) /
				run->min_t[kk];
		c->how = run->how[kk];
		c->valid = run->valid;
	}
}

/* Measure every row: caches on hier_arrays sized per kernel (the
 * working set is the kernel's arrays together), memory on STREAM's
 * three arrays as alloc_plan() lays them out, each kernel over all n. */
static void hier_measure(const struct options *o, const struct system_info *si,
			 struct hier_run *h)
{
	struct hier_arrays ha;
	struct stream_run dram;
	int i, nt, k, dram_have = 0;
	memset(&ha, 0, sizeof(ha));
	for (i = 0; i < h->nrows; i++) {
		struct hier_row *r = &h->row[i];
		for (nt = 0; nt < 2; nt++) {
			if (!r->measured[nt] || (nt == 1 && r->threads[1] == 1 &&
						 r->measured[0])) {
				if (r->measured[nt])
					memcpy(r->cell[1], r->cell[0],
					       sizeof(r->cell[0]));
				continue;
			}
			if (r->dram) {
				hier_dram(o, si, r, nt, &dram, &dram_have);
				continue;
			}
			for (k = 0; k < HIER_NK; k++) {
				int kk = hier_kernels[k];
				size_t words = (size_t)kernel_defs[kk].words;
				size_t n = (size_t)(r->ws[nt] / (words * sizeof(elem_t)));
				n = n / 8 * 8;
				hier_arrays_get(&ha, n);
				ha.ar.n = n;
				hier_cell_measure(o, &r->cell[nt][k], (enum kernel_id)kk,
						  &ha.ar, r->threads[nt], h->isa);
			}
		}
		for (nt = 0; nt < 2; nt++)
			for (k = 0; k < HIER_NK && r->measured[nt]; k++)
				h->valid &= r->cell[nt][k].valid;
	}
	os_aligned_free(ha.block);
	if (dram_have)
		stream_release(&dram);
	/* told apart: Read above the next measured level's by its spread */
	for (nt = 0; nt < 2; nt++)
		for (i = 0; i < h->nrows; i++) {
			struct hier_row *r = &h->row[i];
			int j = i + 1;
			r->apart[nt] = -1;
			if (!r->measured[nt] || r->dram)
				continue;
			while (j < h->nrows && !h->row[j].measured[nt])
				j++;
			if (j == h->nrows)
				continue;
			r->apart[nt] = r->cell[nt][0].mbs - h->row[j].cell[nt][0].mbs >=
				       r->cell[nt][0].mbs * r->cell[nt][0].spread_pct / 100 &&
				       r->cell[nt][0].mbs > h->row[j].cell[nt][0].mbs;
		}
	/* the L1d row's peak, per kernel, at the method's vector width */
	for (i = 0; i < h->nrows && h->core && h->mhz > 0; i++) {
		struct hier_row *r = &h->row[i];
		if (strcmp(r->level, "L1d") != 0 || !r->measured[0])
			continue;
		for (k = 0; k < HIER_NK; k++) {
			int bits = isa_vector_bits(r->cell[0][k].how.isa);
			if (r->cell[0][k].how.kind == SK_MEMCPY || !bits)
				continue; /* width not bench's to say */
			r->peak_mbs[k] = hier_peak_bpc(h->core, hier_kernels[k],
						       bits) * h->mhz;
		}
	}
}

/* Said beside the peak where the CPU's identity came from a hypervisor:
 * the table's entry is then the reported model's. */
#define HIER_GUEST_CAVEAT "a hypervisor reports this CPU's family and " \
	"model (cpuinfo's \"hypervisor\" flag); the entry is the reported " \
	"model's, which need not be the host's core"

/* What the text and JSON say of the kernels above their peak. */
#define HIER_OVER_FMT \
	"above the peak: %s; the table's entry or the clock is wrong"

/* The kernels whose measured figure is above their peak, comma
 * separated into buf; how many.  Above 100% the entry or the clock is
 * wrong: it is said so, and the per cent is not clipped. */
static int hier_peak_over(const struct hier_row *r, char *buf, size_t len)
{
	int k, n = 0;
	size_t at = 0;
	buf[0] = '\0';
	for (k = 0; k < HIER_NK; k++)
		if (r->peak_mbs[k] > 0 && r->cell[0][k].mbs > r->peak_mbs[k]) {
			int w = snprintf(buf + at, len - at, "%s%s", n ? ", " : "",
					 kernel_defs[hier_kernels[k]].name);
			if (w > 0 && (size_t)w < len - at)
				at += (size_t)w;
			n++;
		}
	return n;
}

static double hier_bpc(const struct hier_run *h, const struct hier_row *r,
		       int nt, int k)
{
	if (!(h->mhz > 0) || r->dram || !r->measured[nt])
		return NAN;
	return r->cell[nt][k].mbs / h->mhz / r->threads[nt];
}

static void hier_print_text(const struct hier_run *h)
{
	int i, nt, k;
	char b[32], m[32], m2[64];
	printf("\nMemory hierarchy: bandwidth inside each level (levels from %s), "
	       "%d thread%s and %d (one per %s, bound)\n", h->levels_from,
	       1, "", h->nt_all, h->cores_known ? "core" : "allowed CPU");
	for (i = 0; i < h->nskipped; i++)
		printf("  %s\n", h->skipped[i]);
	printf("%-6s %-7s %10s %8s %12s %12s %12s %12s %8s %8s %s\n", "Level",
	       "Threads", "WorkSet", "Lat.ns", "read MB/s", "write MB/s",
	       "copy MB/s", "triad MB/s", "Lat.cyc", "B/c/core", "Note");
	for (i = 0; i < h->nrows; i++) {
		const struct hier_row *r = &h->row[i];
		for (nt = 0; nt < 2; nt++) {
			format_bytes(b, sizeof(b), r->ws[nt]);
			printf("%-6s %-7d %10s ", r->level, r->threads[nt], b);
			if (finite_d(r->ns))
				printf("%8.3g ", r->ns);
			else
				printf("%8s ", "-");
			if (!r->measured[nt]) {
				printf("%s\n", r->why[nt]);
				continue;
			}
			for (k = 0; k < HIER_NK; k++)
				printf("%12.1f ", r->cell[nt][k].mbs);
			if (finite_d(r->ns) && r->mhz > 0)
				printf("%8.1f ", r->ns * r->mhz / 1e3);
			else
				printf("%8s ", "-");
			if (finite_d(hier_bpc(h, r, nt, 0)))
				printf("%8.1f", hier_bpc(h, r, nt, 0));
			else
				printf("%8s", "-");
			printf("%s\n", r->apart[nt] == 0
			       ? " not told apart from the next level" : "");
		}
	}
	printf("Working set: the kernel's arrays together (read 1, write 1, copy "
	       "2, triad 3), 1/%d of the level's edge and at least %dx the "
	       "level below's; a private level's per thread, a shared level's "
	       "split among the threads; memory: STREAM's three arrays.\n",
	       HIER_INSIDE, HIER_ABOVE);
	for (i = 0; i < h->nrows; i++) {
		const struct hier_row *r = &h->row[i];
		int taken = 0;
		if (!r->dram)
			continue;
		for (nt = 0; nt < 2; nt++)
			for (k = 0; k < HIER_NK; k++)
				taken += r->measured[nt] && r->from_run[nt][k];
		printf("Memory: STREAM's run of the four kernels with --stores auto, "
		       "the run --best makes (same candidates, calibration and "
		       "best time)%s.\n", taken
		       ? "; where this run's --best table has a kernel at the row's "
			 "threads and array size, its figure is taken from it"
		       : "");
	}
	printf("B/c/core: read's bytes per cycle per core at %.0f MHz (%s).\n",
	       h->mhz, h->mhz_source);
	printf("Methods (1 thread):");
	for (i = 0; i < h->nrows; i++) {
		const struct hier_row *r = &h->row[i];
		if (!r->measured[0])
			continue;
		printf("%s %s", i ? ";" : "", r->level);
		for (k = 0; k < HIER_NK; k++)
			printf(" %s", method_name(r->cell[0][k].how, m, sizeof(m)));
	}
	printf("\n");
	for (i = 0, k = 0; i < h->nrows; i++)
		k |= h->row[i].measured[0] &&
		     h->row[i].cell[0][0].how.kind == SK_LOAD;
	if (k)
		printf("Methods load/...: read by bare loads, whose values are "
		       "not used (as likwid-bench's load);\n  no sum to check: "
		       "the fastest sum's total after them is the one "
		       "validated.\n");
	for (i = 0; i < h->nrows; i++) {
		const struct hier_row *r = &h->row[i];
		if (strcmp(r->level, "L1d") != 0 || !r->measured[0])
			continue;
		if (!h->core) {
			printf("L1d core peak: unknown (%s); no %% given\n",
			       h->core_what);
			continue;
		}
		if (!(h->mhz > 0)) {
			printf("L1d core peak: no measured clock; no %% given\n");
			continue;
		}
		printf("L1d core peak (%s, %s; %d x %d-bit loads + %d x %d-bit "
		       "stores, %d B of stores a cycle, at %.0f MHz):",
		       h->core->name, h->core_what, h->core->loads,
		       h->core->load_bits, h->core->stores, h->core->store_bits,
		       h->core->store_bytes, h->mhz);
		for (k = 0; k < HIER_NK; k++) {
			if (r->peak_mbs[k] > 0)
				printf(" %s %.0f MB/s (%.0f%%)",
				       kernel_defs[hier_kernels[k]].name,
				       r->peak_mbs[k],
				       100 * r->cell[0][k].mbs / r->peak_mbs[k]);
			else
				printf(" %s - (%s: no vector width of bench's)",
				       kernel_defs[hier_kernels[k]].name,
				       method_name(r->cell[0][k].how, m, sizeof(m)));
		}
		printf("\n  source: %s\n", h->core->source);
		if (h->core_guest)
			printf("  caveat: %s\n", HIER_GUEST_CAVEAT);
		if (hier_peak_over(r, m2, sizeof(m2)))
			printf("  " HIER_OVER_FMT "\n", m2);
	}
	if (h->npts) {
		printf("Copy by working set (--ws-sweep; both arrays, all threads; "
		       "to 4x the last edge):\n%10s %14s %11d threads\n",
		       "WorkSet", "1 thread MB/s", h->nt_all);
		for (i = 0; i < h->npts; i++) {
			format_bytes(b, sizeof(b), h->pt_ws[i]);
			printf("%10s %14.1f %14.1f\n", b, h->pt[0][i].mbs,
			       h->pt[1][i].mbs);
		}
	}
	if (!h->valid)
		printf("Hierarchy: a kernel's result failed validation; its figures "
		       "are not to be trusted\n");
}

/* The L1d row's peak: per kernel, and at the top the kernel nearest
 * its peak (core_peak_mbs, peak_pct, peak_kernel); or why there is none. */
static void hier_json_peak(const struct hier_run *h, const struct hier_row *r)
{
	int k, best = -1;
	char m[64];
	for (k = 0; k < HIER_NK; k++)
		if (r->peak_mbs[k] > 0 && (best < 0 || r->cell[0][k].mbs /
					   r->peak_mbs[k] > r->cell[0][best].mbs /
					   r->peak_mbs[best]))
			best = k;
	if (best < 0) {
		json_str("peak_note", !h->core ? h->core_what
			 : !(h->mhz > 0) ? "no measured clock"
			 : "every kernel's method has no vector width of bench's "
			   "(generic code or memcpy)");
		return;
	}
	json_num("core_peak_mbs", r->peak_mbs[best]);
	json_num("peak_pct", 100 * r->cell[0][best].mbs / r->peak_mbs[best]);
	json_str("peak_kernel", kernel_defs[hier_kernels[best]].name);
	json_open("core_peak", '{');
	for (k = 0; k < HIER_NK; k++) {
		json_open(kernel_defs[hier_kernels[k]].name, '{');
		json_num("mbs", r->peak_mbs[k] > 0 ? r->peak_mbs[k] : NAN);
		json_num("pct", r->peak_mbs[k] > 0
			 ? 100 * r->cell[0][k].mbs / r->peak_mbs[k] : NAN);
		json_close('}');
	}
	json_close('}');
	json_str("core", h->core->name);
	json_str("peak_source", h->core->source);
	if (h->core_guest)
		json_str("peak_caveat", HIER_GUEST_CAVEAT);
	if (hier_peak_over(r, m, sizeof(m))) {
		char w[200];
		snprintf(w, sizeof(w), HIER_OVER_FMT, m);
		json_str("peak_warning", w);
	}
}

static void hier_json(const struct hier_run *h)
{
	int i, nt, k;
	char m[32];
	json_open("hierarchy", '[');
	for (i = 0; i < h->nrows; i++) {
		const struct hier_row *r = &h->row[i];
		for (nt = 0; nt < 2; nt++) {
			json_open(NULL, '{');
			json_str("level", r->level);
			json_int("threads", r->threads[nt]);
			json_bool("shared", r->shared);
			json_int("working_set_bytes", (long long)r->ws[nt]);
			json_int("working_set_thread_bytes", (long long)r->ws_thread[nt]);
			json_num("edge_lo_bytes", r->dram ? NAN : r->edge_lo);
			json_num("edge_hi_bytes", r->dram ? NAN : r->edge_hi);
			json_bool("measured", r->measured[nt]);
			if (!r->measured[nt])
				json_str("why", r->why[nt]);
			for (k = 0; k < HIER_NK; k++) {
				char key[32];
				int kk = hier_kernels[k];
				const struct hier_cell *c = &r->cell[nt][k];
				snprintf(key, sizeof(key), "%s_mbs", kernel_defs[kk].name);
				json_num(key, r->measured[nt] ? c->mbs : NAN);
				snprintf(key, sizeof(key), "%s_spread_pct",
					 kernel_defs[kk].name);
				json_num(key, r->measured[nt] ? c->spread_pct : NAN);
				snprintf(key, sizeof(key), "%s_method", kernel_defs[kk].name);
				json_str(key, r->measured[nt]
					 ? method_name(c->how, m, sizeof(m)) : NULL);
				if (!r->dram || !r->measured[nt])
					continue;
				/* memory: whose run the figure is */
				snprintf(key, sizeof(key), "%s_from", kernel_defs[kk].name);
				json_str(key, r->from_run[nt][k] ? "run_best"
					 : "stream_run");
			}
			json_num("latency_ns", r->ns);
			json_num("latency_cycles", finite_d(r->ns) && r->mhz > 0
				 ? r->ns * r->mhz / 1e3 : NAN);
			json_num("read_bytes_per_cycle_per_core", hier_bpc(h, r, nt, 0));
			if (r->apart[nt] < 0)
				json_str("told_apart", NULL);
			else
				json_bool("told_apart", r->apart[nt]);
			if (strcmp(r->level, "L1d") == 0 && nt == 0)
				hier_json_peak(h, r);
			json_close('}');
		}
	}
	json_close(']');
	json_open("hierarchy_skipped", '[');
	for (i = 0; i < h->nskipped; i++)
		json_str(NULL, h->skipped[i]);
	json_close(']');
	json_num("hierarchy_mhz", h->mhz > 0 ? h->mhz : NAN);
	json_open("hierarchy_edges", '[');
	for (i = 0; i < h->nedges; i++) {
		json_open(NULL, '{');
		json_str("level", h->edge_name[i]);
		json_num("bytes", h->edge_bytes[i]);
		json_bool("certain", h->edge_certain[i]);
		json_close('}');
	}
	json_close(']');
	if (h->npts || h->sweep_why[0]) {
		json_open("hierarchy_sweep", '{');
		json_str("kernel", "copy");
		json_num("to_bytes", h->npts ? 4 * h->sweep_top : NAN);
		if (h->sweep_why[0])
			json_str("why_not", h->sweep_why);
		json_open("points", '[');
		for (nt = 0; nt < 2 && h->npts; nt++)
			for (i = 0; i < h->npts; i++) {
				json_open(NULL, '{');
				json_int("threads", nt ? h->nt_all : 1);
				json_int("working_set_bytes", (long long)h->pt_ws[i]);
				json_num("copy_mbs", h->pt[nt][i].mbs);
				json_num("copy_spread_pct", h->pt[nt][i].spread_pct);
				json_str("copy_method",
					 method_name(h->pt[nt][i].how, m, sizeof(m)));
				json_close('}');
			}
		json_close(']');
		json_close('}');
	}
	json_bool("hierarchy_valid", h->valid);
}

static void hier_csv(const struct hier_run *h)
{
	int i, nt, k;
	char v[64];
	static const char *const head[] = {
		"level", "threads", "working_set_bytes", "latency_ns",
		"read_mbs", "write_mbs", "copy_mbs", "triad_mbs",
		"read_bytes_per_cycle_per_core", "told_apart", "note"
	};
	for (i = 0; i < 11; i++)
		csv_field(head[i], i == 10);
	for (i = 0; i < h->nrows; i++) {
		const struct hier_row *r = &h->row[i];
		for (nt = 0; nt < 2; nt++) {
			csv_field(r->level, 0);
			snprintf(v, sizeof(v), "%d", r->threads[nt]);
			csv_field(v, 0);
			snprintf(v, sizeof(v), "%llu", r->ws[nt]);
			csv_field(v, 0);
			csv_num(r->ns);
			for (k = 0; k < HIER_NK; k++)
				csv_num(r->measured[nt] ? r->cell[nt][k].mbs : NAN);
			csv_num(hier_bpc(h, r, nt, 0));
			csv_field(r->apart[nt] < 0 ? "" : r->apart[nt] ? "1" : "0", 0);
			csv_field(r->measured[nt] ? "" : r->why[nt], 1);
		}
	}
}

/* The threads (1, then one bound thread per core: -t says otherwise),
 * where they go, and the core's table entry.  Before anything pins the
 * master thread, whose mask plan_binding() reads. */
static void hier_setup(const struct options *o, struct hier_run *h)
{
	int t, cores = threads_requested();
	memset(h, 0, sizeof(*h));
	h->valid = 1;
	h->levels_from = o->curve_in ? o->curve_in : "this run's latency sweep";
	h->isa = o->isa >= 0 ? o->isa : isa_widest(NISA - 1);
	plan_binding(threads_requested());
	if (bind_plan.rule == BIND_SPREAD && bind_plan.cores_all > 0 &&
	    !opt_given(o, "threads")) {
		cores = bind_plan.cores_all;
		h->cores_known = 1;
	}
	h->nt_all = cores;
#ifndef _OPENMP
	h->nt_all = 1;
#endif
	plan_binding(1);
	hier_cpu_one = bind_plan.cpu_of[0];
	plan_binding(h->nt_all);
	hier_pin = bench_pins(o);
	for (t = 0; t < MAX_THREADS; t++)
		hier_cpu_of[t] = t < h->nt_all ? bind_plan.cpu_of[t] : -1;
	h->core = hier_core_of(h->core_what, sizeof(h->core_what),
			       &h->core_guest);
}

/* --ws-sweep: Copy's bandwidth (fastest plain-store method at each
 * size, as a cache row is measured) at working sets from 1 KiB to 4x the
 * last edge the summary names, 2 sizes an octave, on 1
 * thread and on one per core; the working set is both arrays of all
 * threads together, as likwid-bench's -w counts it.  Three repetitions
 * a size, the first a warm-up. */
static void hier_sweep(const struct options *o, const struct lat_summary *s,
		       struct hier_run *h)
{
	struct options so = *o;
	struct hier_arrays ha;
	double top = 0, x;
	int i, nt;
	for (i = 0; i < s->nlevels; i++)
		if (strcmp(s->level[i].name, "DRAM") != 0 &&
		    s->level[i].boundary > top)
			top = s->level[i].boundary;
	if (!(top > 0)) {
		snprintf(h->sweep_why, sizeof(h->sweep_why), "--ws-sweep: no "
			 "level of the latency summary has an edge, so there is "
			 "no last level to sweep to 4x of");
		warn("%s", h->sweep_why);
		return;
	}
	h->sweep_top = top;
	for (x = 1024; x <= 4 * top * 1.0001 && h->npts < HIER_MAX_PTS;
	     x *= HIER_PTS_STEP)
		h->pt_ws[h->npts++] = (unsigned long long)(x + 0.5) / 64 * 64;
	so.ntimes = 3;
	memset(&ha, 0, sizeof(ha));
	for (nt = 0; nt < 2; nt++)
		for (i = 0; i < h->npts; i++) {
			int n = nt ? h->nt_all : 1;
			size_t elems = (size_t)(h->pt_ws[i] / (2 * sizeof(elem_t)));
			if (nt == 1 && h->nt_all == 1) {
				h->pt[1][i] = h->pt[0][i];
				continue;
			}
			elems = elems / 8 * 8;
			if (elems < (size_t)(8 * n)) /* a line a thread at least */
				elems = (size_t)(8 * n);
			hier_arrays_get(&ha, elems);
			ha.ar.n = elems;
			hier_cell_measure(&so, &h->pt[nt][i], K_COPY, &ha.ar, n, h->isa);
			h->valid &= h->pt[nt][i].valid;
		}
	os_aligned_free(ha.block);
}

/* The measuring half, from the kept summary: the clock, the rows, then
 * the bandwidth of every row. */
static void hier_run(const struct options *o, const struct system_info *si,
		     struct hier_run *h)
{
	if (o->mhz > 0) {
		h->mhz = o->mhz;
		h->mhz_source = "from --mhz";
	} else if (!o->curve_in && lat_kept.mhz > 0) {
		h->mhz = lat_kept.mhz;
		h->mhz_source = "measured by the latency sweep";
	} else {
		int runs, pre;
		h->mhz = lat_measure_mhz(&runs, &pre);
		h->mhz_source = h->mhz > 0 ? "measured" : "not measured";
	}
	hier_plan_rows(o, si, &lat_kept.sum, lat_kept.mhz, h);
	hier_measure(o, si, h);
	{
		const struct lat_summary *s = &lat_kept.sum;
		int i;
		for (i = 0; i < s->nlevels && h->nedges < LAT_MAX_LEVELS; i++) {
			if (!(s->level[i].boundary > 0))
				continue;
			snprintf(h->edge_name[h->nedges], sizeof(h->edge_name[0]),
				 "%s", s->level[i].name);
			h->edge_bytes[h->nedges] = s->level[i].boundary;
			h->edge_certain[h->nedges++] =
				lat_level_certain(&s->level[i]) != 0;
		}
	}
	if (o->ws_sweep)
		hier_sweep(o, &lat_kept.sum, h);
}

static void hier_report(const struct hier_run *h)
{
	if (out.json)
		hier_json(h);
	if (out.csv)
		hier_csv(h);
	else if (out.text) {
		hier_print_text(h);
		text_warnings("WARNING: ");
	}
}

/* bench hierarchy: the latency summary (a sweep to HIER_LAT_MAX unless
 * --max says, or --curve-in), then each level's bandwidth. */
static int hierarchy_mode(struct options *o, const struct system_info *si)
{
	struct hier_run *h = malloc(sizeof(*h));
	struct alloc_plan p;
	int rc, json = out.json != NULL, text = out.text;
	if (!h)
		die("out of memory for the hierarchy");
	if (!opt_given(o, "max"))
		o->lat_max = HIER_LAT_MAX;
	if (o->lat_min > o->lat_max && !opt_given(o, "min"))
		o->lat_min = o->lat_max;
	lat_check(o, si);
	/* memory's arrays: refused here, before any output, if they cannot be */
	alloc_plan(&p, o, M_STREAM, reported_llc(si), reported_llc_instances(si), 1);
	hier_setup(o, h);
	if (json)
		json_begin("hierarchy", si);
	if (o->curve_in) {
		/* the file's summary in text; its JSON is written here */
		FILE *j = out.json;
		out.json = NULL;
		out.text = text && !out.csv;
		lat_curve_file(o, si);
		out.json = j;
		out.text = text;
		if (json) {
			json_open("latency", '{');
			json_str("source", o->curve_in);
			json_open("summary", '[');
			lat_json_summary(&lat_kept.sum, lat_kept.mhz, NULL);
			json_close(']');
			json_close('}');
		}
	} else {
		if (json)
			json_open("latency", '{');
		latency_mode(o, si, 1, 1);
		if (json)
			json_close('}');
	}
	fflush(stdout);
	if (!lat_kept.have)
		die("hierarchy: the latency analysis gave no summary");
	hier_run(o, si, h);
	hier_report(h);
	if (json)
		json_end();
	rc = h->valid ? 0 : 1;
	free(h);
	return rc;
}

/* ======================================================================
 * 24 Entry: the info mode, `bench all`, --plan, and main.
 * ====================================================================== */

static int info_mode(const struct system_info *si)
{
	int cpus[MAX_THREADS], n = allowed_cpus(cpus, MAX_THREADS);
	int widest = isa_widest(NISA - 1), l;
	char list[512], have[64];
	struct kv s;
	if (n > 0)
		format_cpu_list(list, sizeof(list), cpus, n);
	describe_isas(have, sizeof(have));
	if (out.json) {
		json_begin("info", si);
		json_open("process", '{');
		json_open("isa_available", '[');
		for (l = 0; l < NISA; l++)
			if (isa_supported(l))
				json_str(NULL, isa_names[l]);
		json_close(']');
	}
	if (out.text) {
		printf("membench %s\n", BENCH_VERSION);
		print_build_text();
		print_system_text(si);
		print_siblings_text(si->shape);
		/* the instruction sets are one sentence of the text, three
		 * facts of the JSON: those have no label below */
		printf("Instruction sets: generic%s (", have);
		if (!HAVE_ISA_DISPATCH)
			printf("this build's code, no run-time dispatch)\n");
		else if (isa_vector_bits(widest))
			printf("run-time dispatch; %s, the widest, has %d-bit "
			       "vectors)\n", isa_names[widest],
			       isa_vector_bits(widest));
		else
			printf("run-time dispatch; this CPU has nothing above "
			       "generic)\n");
	}
	s = kv_sink(KV_LABELS);
	kv_bool(&s, "isa_dispatch", NULL, HAVE_ISA_DISPATCH);
	if (isa_vector_bits(widest))
		kv_int(&s, "isa_vector_bits", NULL, isa_vector_bits(widest));
	else
		kv_str(&s, "isa_vector_bits", NULL, NULL);
	kv_str(&s, "allowed_cpus", "Allowed CPUs", n > 0 ? list : NULL);
	kv_int(&s, "threads_default", "Default threads", threads_requested());
	kv_num(&s, "timer_granularity_s", "Timer granularity",
	       timer_granularity(), 3, "s");
	kv_str(&s, "binding_env", NULL, omp_binding_env());
	if (out.json) {
		json_close('}');
		json_end();
	}
	return 0;
}

/* bench all: STREAM's bandwidth report, then the latency summary, then
 * the hierarchy's table from that summary (section 23b). */
static int all_mode(struct options *o, const struct system_info *si)
{
	struct alloc_plan p;
	struct hier_run *h = malloc(sizeof(*h));
	int rc;
	if (!h)
		die("out of memory for the hierarchy");
	/* refuse bad latency options before any output */
	lat_check(o, si);
	alloc_plan(&p, o, M_LATENCY, reported_llc(si),
		   reported_llc_instances(si), 1);
	lat_load_check_cpus(o);
	hier_setup(o, h); /* before the bandwidth run pins the master */
	if (out.json)
		json_begin("all", si);
	rc = stream_mode(o, si, 1);
	fflush(stdout);
	if (out.json)
		json_open("latency", '{');
	latency_mode(o, si, 1, 1);
	if (out.json)
		json_close('}');
	fflush(stdout);
	if (lat_kept.have) {
		hier_run(o, si, h);
		hier_report(h);
		rc |= !h->valid;
	}
	if (out.json)
		json_end();
	free(h);
	return rc;
}

/* --plan: what the run would allocate, from the same alloc_plan() the
 * run asks, one list through the sink as key=value lines and JSON (the
 * harness reads the lines by key); nothing is allocated or timed,
 * and the huge page pool is not checked, since the harness asks the plan
 * in order to fill it.  For `bench all` the programs run one after the
 * other, so the pool must hold the larger of the two.  bench nodes and
 * bench c2c plan through their own first step (nodes_plan(),
 * c2c_setup()), which makes every refusal their run makes. */
static int plan_mode(struct options *o, const struct system_info *si)
{
	struct alloc_plan bw, lat;
	struct nodes_run nr;
	int has_bw = (o->mode & M_BW) != 0, has_lat = (o->mode & M_LAT) != 0;
	const struct alloc_plan *main_plan = has_bw ? &bw : &lat;
	size_t pages = 0;
	struct kv s;
	/* the most threads the run starts at once, and whether they are
	 * more than the quota's CPUs */
	int nt = threads_requested(), over = threads_over_quota, pairs = 0;
	char cpus[512];

	memset(&bw, 0, sizeof(bw));
	memset(&lat, 0, sizeof(lat));
	memset(&nr, 0, sizeof(nr)); /* read only for nodes: gcc cannot tell */
	if (o->mode == M_NODES) {
		nodes_plan(o, si, &nr);
		nt = nr.threads;
		over = nr.over_quota;
	} else if (o->mode == M_C2C) {
		over = c2c_plan(o, cpus, sizeof(cpus), &pairs);
		nt = 2;
	}
	if (has_lat) {
		lat_check(o, si);
		lat_load_check_cpus(o);
		if (o->load_threads > 0 && o->load_threads + 1 > nt)
			nt = o->load_threads + 1;
		over |= lat_load_over_quota;
	}
	if (has_bw) {
		alloc_plan(&bw, o, M_STREAM, reported_llc(si),
			   reported_llc_instances(si), 0);
		stream_check(o);
		pages = bw.huge_pages;
	}
	if (has_lat) {
		alloc_plan(&lat, o, M_LATENCY, reported_llc(si),
			   reported_llc_instances(si), 0);
		if (lat.huge_pages > pages)
			pages = lat.huge_pages;
	}
	if (out.json) {
		json_begin(mode_name(o->mode), si);
		json_open("plan", '{');
	}
	/* the JSON's "mode" is the document's own, from json_begin */
	if (out.text)
		printf("mode=%s\n", mode_name(o->mode));
	s = kv_sink(KV_KEYS);
	if (o->mode == M_NODES) {
		kv_str(&s, "alloc", NULL, alloc_names[nr.alloc]);
		kv_int(&s, "columns", NULL, nr.ncols);
		kv_int(&s, "rows", NULL, nr.nrows);
		kv_int(&s, "buffer_bytes", NULL, (long long)nr.bytes);
		kv_str(&s, "buffer_rule", NULL, nr.bytes_rule);
		if (nr.bytes_wanted > nr.bytes)
			kv_int(&s, "buffer_wanted_bytes", NULL,
			       (long long)nr.bytes_wanted);
		/* a cell at a time: three arrays, or a buffer */
		kv_int(&s, "total_bytes", NULL, (long long)nr.bytes *
		       (o->matrix & NODES_BANDWIDTH ? 3 : 1));
		nodes_release(&nr);
	} else if (o->mode == M_C2C) {
		kv_str(&s, "cpus", NULL, cpus);
		kv_int(&s, "pairs", NULL, pairs);
	} else {
		kv_str(&s, "alloc", NULL, alloc_names[main_plan->mode]);
		if (has_bw) {
			kv_int(&s, "array_size", NULL, (long long)bw.elems);
			kv_bool(&s, "size_auto", NULL, o->size_auto);
			kv_int(&s, "offset", NULL, (long long)o->offset);
			kv_int(&s, "stagger", NULL, (long long)bw.stagger);
			kv_int(&s, "elem_bytes", NULL, (long long)sizeof(elem_t));
			{
				char pairs[512];
				uintptr_t addr[3];
				layout_addresses(&bw, addr);
				layout_text(pairs, sizeof(pairs), o->kernels, addr, 0, 1);
				kv_str(&s, "layout_distances", NULL, pairs);
				layout_text(pairs, sizeof(pairs), o->kernels, addr, 1, 1);
				kv_str(&s, "layout_aliasing", NULL, pairs);
			}
		}
		kv_int(&s, "regions", NULL, main_plan->regions);
		kv_int(&s, "total_bytes", NULL, (long long)main_plan->total);
		kv_int(&s, "llc_bytes", NULL, (long long)main_plan->llc);
		kv_int(&s, "llc_instances", NULL, main_plan->llc_instances);
		kv_int(&s, "stream_rule_elements", NULL,
		       (long long)main_plan->rule_elems);
		kv_int(&s, "huge_page_bytes", NULL, (long long)main_plan->huge_page);
		kv_int(&s, "huge_pages", NULL, (long long)pages);
		if (has_lat)
			kv_int(&s, "latency_max_bytes", NULL, (long long)o->lat_max);
		if (has_bw && bw.wanted)
			kv_int(&s, "array_size_wanted", NULL, (long long)bw.wanted);
		if (has_lat && lat_max_wanted)
			kv_int(&s, "latency_max_wanted", NULL,
			       (long long)lat_max_wanted);
	}
	/* the box: the limit, what of it the arrays may take, and the
	 * quota (the harness refuses or warns from these and the sizes the
	 * limit capped) */
	{
		const struct box_limits *b = os_box_limits();
		if (b->mem) {
			kv_int(&s, "memory_limit_bytes", NULL, (long long)b->mem);
			kv_str(&s, "memory_limit_source", NULL, b->mem_source);
			kv_int(&s, "memory_usable_bytes", NULL, (long long)box_room());
		} else
			kv_none(&s, "memory_limit_bytes");
		if (b->cpus > 0) {
			kv_num(&s, "cpu_quota", NULL, b->cpus, 6, NULL);
			kv_str(&s, "cpu_quota_source", NULL, b->cpu_source);
		} else
			kv_none(&s, "cpu_quota");
		kv_int(&s, "threads", NULL, nt);
		kv_bool(&s, "threads_over_quota", NULL, over);
	}
	if (out.json) {
		json_close('}');
		json_end();
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct system_info si;
	int rc = 0;

	cmd_argc = argc;
	cmd_argv = argv;
#ifdef BENCH_MPI
	cluster_start(&argc, &argv);
	parse_command_line(argc, argv, &o);
	cluster_options(&o);
#else
	parse_command_line(argc, argv, &o);
	output_open(&o);
#endif
	setup_threads(&o);
	collect_system(&si);
	if (o.plan)
		rc = plan_mode(&o, &si);
	else switch (o.mode) {
	case M_STREAM:
#ifdef BENCH_MPI
		rc = cluster_stream_mode(&o, &si);
#else
		rc = stream_mode(&o, &si, 0);
#endif
		break;
	case M_INFO:
		rc = info_mode(&si);
		break;
	case M_LATENCY:
		rc = latency_mode(&o, &si, 0, 0);
		break;
	case M_ALL:
		rc = all_mode(&o, &si);
		break;
	case M_MIX:
		rc = mix_mode(&o, &si);
		break;
	case M_C2C:
		rc = c2c_mode(&o, &si);
		break;
	case M_NODES:
		rc = nodes_mode(&o, &si);
		break;
	case M_HIER:
		rc = hierarchy_mode(&o, &si);
		break;
	}
	output_commit(); /* flushes stdout and checks it */
	return rc;
}
