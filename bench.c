/*
 * bench.c -- membench: honest memory bandwidth and latency in one file.
 *
 * Build anywhere with a bare compiler:
 *     cc -O3 -fopenmp bench.c -o bench        (OpenMP, recommended)
 *     cc -O2 bench.c -o bench                 (serial)
 * C99 plus POSIX; OpenMP only under _OPENMP; Linux-only parts (smaps,
 * MAP_HUGETLB, sched_getcpu) compile out elsewhere.
 *
 * The bandwidth mode keeps the kernels, byte counts, validation and text
 * output of John McCalpin's STREAM 5.10, so scripts that parse STREAM keep
 * working; everything membench adds is printed outside STREAM's table.
 *
 * Sections: knobs -> platform shims -> options -> allocation -> kernels ->
 * timing -> validation -> reporting -> modes.
 */
#if defined(__linux__) || defined(__GLIBC__) || defined(__CYGWIN__)
#define _GNU_SOURCE
#endif

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
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
#include <sys/mman.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/utsname.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __linux__
#include <sched.h>
#endif

/* ======================================================================
 * Knobs: every compile-time default, overridable with -D and (except the
 * type) with a command-line flag.  Names and defaults follow STREAM.
 * ====================================================================== */

/* Elements per array (-s/--size).  Also the size of the static arrays. */
#ifndef STREAM_ARRAY_SIZE
#define STREAM_ARRAY_SIZE 10000000
#endif

/* Timed repetitions per kernel (-n/--ntimes); the first is discarded. */
#ifndef NTIMES
#define NTIMES 10
#endif
#if NTIMES <= 1
#undef NTIMES
#define NTIMES 10
#endif

/* Elements between the arrays' starts (--offset), as in STREAM. */
#ifndef OFFSET
#define OFFSET 0
#endif

/* Element type: double (default) or float; one token, like STREAM. */
#ifndef STREAM_TYPE
#define STREAM_TYPE double
#endif

/* 1: non-temporal (streaming) stores by default (--stores nt|plain). */
#ifndef STREAMING_STORES
#define STREAMING_STORES 0
#endif

/* Default allocation mode (--alloc), see alloc_names[]. */
#ifndef BENCH_ALLOC
#define BENCH_ALLOC "mmap"
#endif

/* Bytes added between consecutive dynamically allocated arrays so that
 * a[j], b[j] and c[j] never share a page offset (--stagger). */
#ifndef BENCH_STAGGER
#define BENCH_STAGGER 4160
#endif

/* 1: pin each OpenMP thread to one allowed CPU when the user set no
 * OpenMP binding of their own (--bind auto|none). */
#ifndef BENCH_BIND
#define BENCH_BIND 1
#endif

/* The build line, passed in by the Makefile; "unknown" for a hand build. */
#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "unknown"
#endif

/* 1 drops the .bss arrays (then --alloc static is unavailable). */
#ifndef BENCH_NO_STATIC
#define BENCH_NO_STATIC 0
#endif

/* Test-only: 1 corrupts one element after the run, so validation fails. */
#ifndef BENCH_CORRUPT_TEST
#define BENCH_CORRUPT_TEST 0
#endif

#define BENCH_VERSION "0.1.0"
#define JSON_SCHEMA "membench/1"
#define HLINE "-------------------------------------------------------------\n"
#define CACHE_LINE 64
#define MAX_THREADS 1024
#define MAX_WARNINGS 32

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
 * Platform shims: each platform-specific feature sits behind one small
 * function with a portable fallback.
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
static void nt_fence(void) { }
#endif

/* The CPU the calling thread runs on, or -1 where the OS cannot say. */
static int current_cpu(void)
{
#if defined(__linux__) && defined(CPU_SETSIZE)
	return sched_getcpu();
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
#else
	(void)cpu;
	return -1;
#endif
}

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
#endif
	(void)cpus;
	(void)max;
	return n;
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
	FILE *f = fopen(path, "r");
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

/* A "Key: value kB" field of /proc/meminfo in KiB (or plain count). */
static long long meminfo_value(const char *key)
{
	char path[512], line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f;
	snprintf(path, sizeof(path), "%s/meminfo", procfs_root());
	f = fopen(path, "r");
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

static unsigned long long physical_memory(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psz = sysconf(_SC_PAGESIZE);
	if (pages <= 0 || psz <= 0)
		return 0;
	return (unsigned long long)pages * (unsigned long long)psz;
}

/* ======================================================================
 * Warnings and errors.  Errors are one line on stderr and exit 2;
 * warnings are kept for the report (text and JSON alike).
 * ====================================================================== */

static int json_output;
static char *warnings[MAX_WARNINGS];
static int nwarnings;

static void die(const char *fmt, ...)
{
	va_list ap;
	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* Record a warning; in text mode also print it now, on stdout. */
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
	if (!json_output)
		printf("WARNING: %s\n", buf);
}

/* ======================================================================
 * Options.  One table drives parsing and --help; each option names the
 * modes it belongs to, so `bench latency --size 5` is an error, not a
 * silently ignored flag.
 * ====================================================================== */

enum mode { M_STREAM = 1, M_LATENCY = 2, M_ALL = 4, M_INFO = 8 };
#define M_BW (M_STREAM | M_ALL)
#define M_RUN (M_STREAM | M_LATENCY | M_ALL)
#define M_ANY (M_RUN | M_INFO)

enum opt_id {
	O_SIZE, O_NTIMES, O_THREADS, O_OFFSET, O_ALLOC, O_KERNELS, O_STORES,
	O_STAGGER, O_BIND, O_JSON, O_HELP, O_VERSION
};

struct option_def {
	enum opt_id id;
	char shrt;
	const char *lng;
	const char *arg; /* NULL: a switch */
	int modes;
	const char *help;
};

static const struct option_def option_defs[] = {
	{O_SIZE, 's', "size", "ELEMENTS", M_BW,
	 "elements per array (default " XSTR(STREAM_ARRAY_SIZE) ")"},
	{O_NTIMES, 'n', "ntimes", "N", M_BW,
	 "repetitions per kernel, first discarded (default " XSTR(NTIMES) ")"},
	{O_THREADS, 't', "threads", "N", M_RUN,
	 "OpenMP threads (default: OMP_NUM_THREADS or all CPUs)"},
	{O_OFFSET, 0, "offset", "N", M_BW,
	 "elements added after each array (default " XSTR(OFFSET) ")"},
	{O_ALLOC, 0, "alloc", "MODE", M_RUN,
	 "static|malloc|mmap|thp|hugetlb|shm (default " BENCH_ALLOC ")"},
	{O_KERNELS, 0, "kernels", "LIST", M_BW,
	 "comma list of copy,scale,add,triad,read,write, or all"},
	{O_STORES, 0, "stores", "plain|nt", M_BW,
	 "plain or non-temporal stores (default from STREAMING_STORES)"},
	{O_STAGGER, 0, "stagger", "BYTES", M_BW,
	 "bytes between dynamic arrays (default " XSTR(BENCH_STAGGER) ")"},
	{O_BIND, 0, "bind", "auto|none", M_RUN,
	 "auto pins threads unless OMP binding is set (default auto)"},
	{O_JSON, 0, "json", NULL, M_ANY, "one JSON document on stdout"},
	{O_HELP, 'h', "help", NULL, M_ANY, "this help"},
	{O_VERSION, 'V', "version", NULL, M_ANY, "print the version"},
};
#define NOPTIONS (sizeof(option_defs) / sizeof(option_defs[0]))

enum alloc_mode { A_STATIC, A_MALLOC, A_MMAP, A_THP, A_HUGETLB, A_SHM };
static const char *const alloc_names[] = {
	"static", "malloc", "mmap", "thp", "hugetlb", "shm"
};
#define NALLOC (sizeof(alloc_names) / sizeof(alloc_names[0]))

struct options {
	enum mode mode;
	unsigned long long size;
	unsigned long long ntimes;
	unsigned long long offset;
	unsigned long long stagger;
	long threads; /* 0: runtime default */
	enum alloc_mode alloc;
	unsigned kernels; /* bit per kernel_defs[] entry */
	int nt_stores;
	int bind;
};

static const char *mode_name(enum mode m)
{
	switch (m) {
	case M_STREAM: return "stream";
	case M_LATENCY: return "latency";
	case M_ALL: return "all";
	default: return "info";
	}
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

/* ======================================================================
 * Kernels' table: names, STREAM row labels, bytes and flops per element.
 * The kernels, the report and the JSON all read it; nothing else knows
 * how much memory a kernel moves.
 * ====================================================================== */

enum kernel_id { K_COPY, K_SCALE, K_ADD, K_TRIAD, K_READ, K_WRITE, NKERNELS };

static const struct kernel_def {
	const char *name;  /* for --kernels and JSON */
	const char *label; /* STREAM's row label, padded as STREAM pads it */
	int words;         /* array elements moved per index */
	int flops;         /* floating-point operations per index */
} kernel_defs[NKERNELS] = {
	{"copy", "Copy:      ", 2, 0},  /* c = a */
	{"scale", "Scale:     ", 2, 1}, /* b = q*c */
	{"add", "Add:       ", 3, 1},   /* c = a + b */
	{"triad", "Triad:     ", 3, 2}, /* a = b + q*c */
	{"read", "Read:      ", 1, 1},  /* s += a */
	{"write", "Write:     ", 1, 0},  /* c = q */
};
#define STREAM_KERNELS ((1u << K_COPY) | (1u << K_SCALE) | (1u << K_ADD) | \
			(1u << K_TRIAD))

static const char *kernel_display(enum kernel_id k)
{
	static const char *const names[NKERNELS] = {
		"Copy", "Scale", "Add", "Triad", "Read", "Write"
	};
	return names[k];
}

static unsigned parse_kernels(const char *s)
{
	unsigned mask = 0;
	char buf[256], *tok, *save = NULL;
	int k;
	if (!s || !*s)
		die("--kernels: missing list");
	if (strlen(s) >= sizeof(buf))
		die("--kernels: list is too long");
	strcpy(buf, s);
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
			die("--kernels: unknown kernel '%s' (copy, scale, add, "
			    "triad, read, write, all)", tok);
		mask |= 1u << k;
	}
	if (!mask)
		die("--kernels: empty list");
	return mask;
}

static enum alloc_mode parse_alloc(const char *s)
{
	size_t i;
	for (i = 0; i < NALLOC; i++)
		if (s && strcmp(s, alloc_names[i]) == 0)
			return (enum alloc_mode)i;
	die("--alloc: unknown mode '%s' (static, malloc, mmap, thp, hugetlb, "
	    "shm)", s ? s : "");
	return A_MMAP;
}

static void usage(FILE *f)
{
	size_t i;
	char left[64];
	fprintf(f,
		"usage: bench [stream|latency|all|info] [options]\n"
		"  stream   STREAM-compatible bandwidth (default)\n"
		"  latency  dependent-load latency sweep (lat_mem_rd format)\n"
		"  all      bandwidth, then the latency summary\n"
		"  info     what bench sees of its build and this machine\n"
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

static void parse_options(int argc, char **argv, struct options *o)
{
	int i = 1;
	const char *env_alloc = BENCH_ALLOC;

	memset(o, 0, sizeof(*o));
	o->mode = M_STREAM;
	o->size = STREAM_ARRAY_SIZE;
	o->ntimes = NTIMES;
	o->offset = OFFSET;
	o->stagger = BENCH_STAGGER;
	o->kernels = STREAM_KERNELS;
	o->nt_stores = STREAMING_STORES;
	o->bind = BENCH_BIND;
	o->alloc = parse_alloc(env_alloc);

	if (argc > 1 && argv[1][0] != '-') {
		if (strcmp(argv[1], "stream") == 0)
			o->mode = M_STREAM;
		else if (strcmp(argv[1], "latency") == 0)
			o->mode = M_LATENCY;
		else if (strcmp(argv[1], "all") == 0)
			o->mode = M_ALL;
		else if (strcmp(argv[1], "info") == 0)
			o->mode = M_INFO;
		else
			die("unknown mode '%s' (stream, latency, all, info)",
			    argv[1]);
		i = 2;
	}

	for (; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq = NULL;
		const struct option_def *d = NULL;
		char flag[64];
		size_t k, nlen;

		if (a[0] == '-' && a[1] == '-' && a[2]) {
			eq = strchr(a + 2, '=');
			nlen = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			for (k = 0; k < NOPTIONS; k++)
				if (strlen(option_defs[k].lng) == nlen &&
				    strncmp(option_defs[k].lng, a + 2, nlen) == 0)
					d = &option_defs[k];
		} else if (a[0] == '-' && a[1] && !a[2]) {
			for (k = 0; k < NOPTIONS; k++)
				if (option_defs[k].shrt == a[1])
					d = &option_defs[k];
		}
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

		switch (d->id) {
		case O_SIZE:
			o->size = parse_count(flag, val, 1, ULLONG_MAX / 64);
			break;
		case O_NTIMES:
			o->ntimes = parse_count(flag, val, 2, 1000000);
			break;
		case O_THREADS:
			o->threads = (long)parse_count(flag, val, 1, MAX_THREADS);
			break;
		case O_OFFSET:
			o->offset = parse_count(flag, val, 0, 1u << 30);
			break;
		case O_ALLOC:
			o->alloc = parse_alloc(val);
			break;
		case O_KERNELS:
			o->kernels = parse_kernels(val);
			break;
		case O_STORES:
			if (strcmp(val, "nt") == 0)
				o->nt_stores = 1;
			else if (strcmp(val, "plain") == 0)
				o->nt_stores = 0;
			else
				die("--stores: unknown value '%s' (plain, nt)", val);
			break;
		case O_STAGGER:
			o->stagger = parse_bytes(flag, val, 0);
			if (o->stagger > (1u << 30))
				die("--stagger: %s is above 1 GiB", val);
			break;
		case O_BIND:
			if (strcmp(val, "auto") == 0)
				o->bind = 1;
			else if (strcmp(val, "none") == 0)
				o->bind = 0;
			else
				die("--bind: unknown value '%s' (auto, none)", val);
			break;
		case O_JSON:
			json_output = 1;
			break;
		case O_HELP:
			usage(stdout);
			exit(0);
		case O_VERSION:
			printf("membench bench %s\n", BENCH_VERSION);
			exit(0);
		}
	}
}

/* ======================================================================
 * Allocation.  Every mode hands back one region per array; the region
 * remembers how to give itself back.  All checks that can refuse a run
 * (memory size, huge page pool) happen before anything is printed.
 * ====================================================================== */

#if !BENCH_NO_STATIC
static elem_t static_a[STREAM_ARRAY_SIZE + OFFSET];
static elem_t static_b[STREAM_ARRAY_SIZE + OFFSET];
static elem_t static_c[STREAM_ARRAY_SIZE + OFFSET];
#endif

struct region {
	void *map;    /* what was obtained (for release) */
	size_t maplen;
	void *data;   /* where the array starts */
	size_t bytes; /* bytes the array uses */
	enum alloc_mode mode;
};

#define HUGE_2M (2u << 20)

static size_t round_up(size_t v, size_t to) { return (v + to - 1) / to * to; }

/* Huge page size of the default pool in bytes (0 if unknown). */
static size_t hugetlb_page_bytes(void)
{
	long long kib = meminfo_value("Hugepagesize");
	return kib > 0 ? (size_t)kib * 1024 : 0;
}

/* Refuse --alloc hugetlb before mmap when the pool is too small: a
 * process that overruns the pool can be killed by SIGBUS, and the seeds
 * document exactly that. */
static void hugetlb_check_pool(size_t total_pages)
{
	long long free_p = meminfo_value("HugePages_Free");
	long long rsvd = meminfo_value("HugePages_Rsvd");
	char path[512], nr[64] = "?";
	long long avail;
	snprintf(path, sizeof(path), "%s/sys/vm/nr_hugepages", procfs_root());
	read_first_line(path, nr, sizeof(nr));
	if (free_p < 0)
		die("--alloc hugetlb: this kernel reports no huge page pool");
	avail = free_p - (rsvd > 0 ? rsvd : 0);
	if (avail < (long long)total_pages)
		die("--alloc hugetlb: needs %zu huge pages but only %lld are free "
		    "(nr_hugepages=%s); reserve more, e.g. echo %lld > "
		    "/proc/sys/vm/nr_hugepages", total_pages, avail, nr,
		    atoll(nr) + (long long)total_pages - avail);
}

static int region_alloc(struct region *r, size_t bytes, enum alloc_mode mode,
			size_t shift, elem_t *static_array)
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
		void *p = NULL;
		if (posix_memalign(&p, 4096, len) != 0)
			return -1;
		r->map = p;
		break;
	}
	case A_MMAP:
	case A_THP: {
		/* THP needs 2 MiB-aligned virtual ranges to use huge pages. */
		size_t align = mode == A_THP ? HUGE_2M : 0;
		size_t maplen = round_up(len + align, 4096);
		char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		r->map = p;
		r->maplen = maplen;
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
#ifdef MAP_HUGETLB
		size_t hp = hugetlb_page_bytes();
		size_t maplen = round_up(len, hp ? hp : HUGE_2M);
		char *p = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		r->map = p;
		r->maplen = maplen;
		r->data = p + shift;
		return 0;
#else
		return -1;
#endif
	}
	case A_SHM: {
		/* Marked for removal at once: the segment then disappears when
		 * we detach or die, whatever the exit path. */
		int id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600);
		void *p;
		if (id < 0)
			return -1;
		p = shmat(id, NULL, 0);
		shmctl(id, IPC_RMID, NULL);
		if (p == (void *)-1)
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
		free(r->map);
		break;
	case A_MMAP:
	case A_THP:
	case A_HUGETLB:
		if (r->map)
			munmap(r->map, r->maplen);
		break;
	case A_SHM:
		if (r->map)
			shmdt(r->map);
		break;
	}
	r->map = r->data = NULL;
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

/* What the kernel really gave us for [addr, addr+bytes): the page size
 * of the mapping that holds most of it and the share of resident memory
 * on huge pages (THP, hugetlbfs or shmem THP), from /proc/self/smaps. */
struct page_report {
	int known;
	unsigned long page_kib;        /* the page size most memory sits on */
	unsigned long kernel_page_kib; /* the mapping's KernelPageSize */
	double huge_pct;
	unsigned long long rss_kib;
};

static void page_report(const void *addr, size_t bytes, struct page_report *pr)
{
	FILE *f;
	char line[512];
	uintptr_t lo = (uintptr_t)addr, hi = lo + bytes;
	int inside = 0;
	unsigned long long best = 0, cover = 0, rss = 0, huge = 0;
	unsigned long kps = 0;

	memset(pr, 0, sizeof(*pr));
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, v;
		char key[64];
		if (sscanf(line, "%llx-%llx ", &s, &e) == 2 && strchr(line, '-') &&
		    isxdigit((unsigned char)line[0])) {
			inside = s < hi && e > lo;
			if (inside)
				cover = (e < hi ? e : hi) - (s > lo ? s : lo);
			continue;
		}
		if (!inside || sscanf(line, "%63[^:]: %llu", key, &v) != 2)
			continue;
		if (strcmp(key, "Rss") == 0) {
			rss += v;
		} else if (strcmp(key, "AnonHugePages") == 0 ||
			   strcmp(key, "ShmemPmdMapped") == 0 ||
			   strcmp(key, "FilePmdMapped") == 0) {
			huge += v;
		} else if (strcmp(key, "Private_Hugetlb") == 0 ||
			   strcmp(key, "Shared_Hugetlb") == 0) {
			/* hugetlb pages are not counted in Rss */
			huge += v;
			rss += v;
		} else if (strcmp(key, "KernelPageSize") == 0) {
			if (cover > best) {
				best = cover;
				kps = (unsigned long)v;
			}
		}
	}
	fclose(f);
	pr->known = best > 0;
	pr->kernel_page_kib = kps;
	pr->page_kib = kps;
	pr->rss_kib = rss;
	pr->huge_pct = rss ? 100.0 * (double)huge / (double)rss : 0.0;
	if (pr->huge_pct > 100.0)
		pr->huge_pct = 100.0;
	/* THP keeps KernelPageSize at the base size; when most memory is on
	 * transparent huge pages, report their size instead. */
	if (pr->huge_pct >= 50.0 && kps < thp_page_kib())
		pr->page_kib = thp_page_kib();
}

/* ======================================================================
 * Timing.
 * ====================================================================== */

static double now(void)
{
	struct timeval tv;
#if defined(CLOCK_MONOTONIC)
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
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

/* ======================================================================
 * JSON writer: just enough to emit one well-formed document, with
 * commas and string escapes handled in one place.
 * ====================================================================== */

static int json_depth;
static int json_first[32];

static void json_sep(const char *key)
{
	if (json_depth > 0 && !json_first[json_depth])
		putchar(',');
	json_first[json_depth] = 0;
	if (key)
		printf("\"%s\":", key);
}

static void json_string_value(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch == '\n')
			fputs("\\n", stdout);
		else if (ch == '\t')
			fputs("\\t", stdout);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_open(const char *key, char brace)
{
	json_sep(key);
	putchar(brace);
	json_first[++json_depth] = 1;
}

static void json_close(char brace)
{
	putchar(brace);
	json_depth--;
	if (json_depth == 0)
		putchar('\n');
}

static void json_str(const char *key, const char *v)
{
	json_sep(key);
	if (v)
		json_string_value(v);
	else
		fputs("null", stdout);
}

static void json_num(const char *key, double v)
{
	json_sep(key);
	if (isfinite(v))
		printf("%.9g", v);
	else
		fputs("null", stdout);
}

static void json_int(const char *key, long long v)
{
	json_sep(key);
	printf("%lld", v);
}

static void json_bool(const char *key, int v)
{
	json_sep(key);
	fputs(v ? "true" : "false", stdout);
}

/* ======================================================================
 * Provenance: what was built, on what, and when.  Printed in every
 * output so a number can always be traced to its conditions.
 * ====================================================================== */

#define MAX_CACHES 8

struct cache_info {
	int level;
	char type[16];
	unsigned long long bytes;
	int line;
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
	struct cache_info caches[MAX_CACHES];
	int ncaches;
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
		si->ncaches++;
	}
}

/* The last-level cache as the OS reports it (0 if unknown). */
static unsigned long long reported_llc(const struct system_info *si)
{
	unsigned long long best = 0;
	int i, lvl = 0;
	for (i = 0; i < si->ncaches; i++)
		if (strcmp(si->caches[i].type, "Instruction") != 0 &&
		    si->caches[i].level >= lvl) {
			lvl = si->caches[i].level;
			best = si->caches[i].bytes;
		}
	return best;
}

static void collect_system(struct system_info *si)
{
	char path[512], line[512];
	struct utsname u;
	time_t t = time(NULL);
	FILE *f;
	char *lb, *rb;

	memset(si, 0, sizeof(*si));
	if (gethostname(si->hostname, sizeof(si->hostname) - 1) != 0)
		strcpy(si->hostname, "unknown");
	if (uname(&u) == 0) {
		snprintf(si->kernel, sizeof(si->kernel), "%s %s", u.sysname,
			 u.release);
		snprintf(si->machine, sizeof(si->machine), "%s", u.machine);
	}
	strftime(si->timestamp, sizeof(si->timestamp), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&t));
	si->online_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	si->phys_mem = physical_memory();

	/* x86 says "model name", POWER "cpu", Arm "CPU part"/"Hardware". */
	snprintf(path, sizeof(path), "%s/cpuinfo", procfs_root());
	snprintf(si->cpu_model, sizeof(si->cpu_model), "%s", si->machine);
	if ((f = fopen(path, "r")) != NULL) {
		while (fgets(line, sizeof(line), f)) {
			char *colon = strchr(line, ':');
			size_t n;
			if (!colon)
				continue;
			if (strncmp(line, "model name", 10) != 0 &&
			    strncmp(line, "cpu\t", 4) != 0 &&
			    strncmp(line, "Hardware", 8) != 0)
				continue;
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			n = strlen(colon);
			while (n && isspace((unsigned char)colon[n - 1]))
				colon[--n] = '\0';
			snprintf(si->cpu_model, sizeof(si->cpu_model), "%s", colon);
			break;
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
	collect_caches(si);
}

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

static void cache_label(const struct cache_info *c, char *buf, size_t len)
{
	const char *suffix = strcmp(c->type, "Data") == 0 ? "d"
			   : strcmp(c->type, "Instruction") == 0 ? "i" : "";
	snprintf(buf, len, "L%d%s", c->level, suffix);
}

static void print_build_text(void)
{
	printf("Build: %s %s\n", compiler_name(), compiler_version());
	printf("Build flags: %s\n", BENCH_CFLAGS);
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

static void print_system_text(const struct system_info *si)
{
	char b1[32];
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
	}
	printf("%s\n", si->ncaches ? "" : " none");
	format_bytes(b1, sizeof(b1), si->phys_mem);
	printf("Memory: %s, THP %s, huge pages %lld total %lld free of %lld KiB\n",
	       b1, si->thp, si->hp_total, si->hp_free, si->hp_kib);
	printf("CPU governor: %s\n",
	       si->governor[0] ? si->governor : "not available on this machine");
}

static void json_build(void)
{
	json_open("build", '{');
	json_str("compiler", compiler_name());
	json_str("compiler_version", compiler_version());
	json_str("cflags", BENCH_CFLAGS);
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
	json_bool("streaming_stores", STREAMING_STORES);
	json_bool("streaming_stores_available", HAVE_NT);
	json_str("streaming_stores_isa", NT_ISA);
	json_str("bench_alloc", BENCH_ALLOC);
	json_str("version", BENCH_VERSION);
	json_close('}');
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
	json_close('}');
	json_str("governor", si->governor[0] ? si->governor : NULL);
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
		json_close('}');
	}
	json_close(']');
	json_str("timestamp", si->timestamp);
	json_close('}');
}

static void json_warnings(void)
{
	int i;
	json_open("warnings", '[');
	for (i = 0; i < nwarnings; i++)
		json_str(NULL, warnings[i]);
	json_close(']');
}

/* ======================================================================
 * Threads: how many, where they run, and who decided.
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

static void setup_threads(const struct options *o)
{
#ifdef _OPENMP
	if (o->threads > 0)
		omp_set_num_threads((int)o->threads);
#else
	if (o->threads > 1)
		die("--threads %ld: this bench was built without OpenMP "
		    "(rebuild with -fopenmp)", o->threads);
#endif
}

/* Whether bench pins its own threads: only when asked (auto) and when
 * the user gave the OpenMP runtime no binding, which always wins. */
static int bench_pins(const struct options *o)
{
	return o->bind && !omp_binding_env();
}

static void describe_binding(const struct options *o, char *buf, size_t len)
{
	const char *env = omp_binding_env();
	if (env)
		snprintf(buf, len, "from %s=%s", env, getenv(env));
	else if (o->bind)
		snprintf(buf, len, "auto (bench pinned thread i to the i-th "
			 "allowed CPU)");
	else
		snprintf(buf, len, "none (threads may migrate)");
}

/* This thread's share of [0, n): contiguous, in thread order, with
 * boundaries on cache-line multiples so no two threads write one line.
 * First touch and every kernel use it, so each thread works on the
 * memory it placed. */
static void thread_span(size_t n, size_t *lo, size_t *hi)
{
	size_t q = CACHE_LINE / sizeof(elem_t) ? CACHE_LINE / sizeof(elem_t) : 1;
	size_t blocks = (n + q - 1) / q;
	size_t t = (size_t)thread_id(), nt = (size_t)thread_count();
	size_t per = blocks / nt, rem = blocks % nt;
	size_t b0 = t * per + (t < rem ? t : rem);
	size_t b1 = b0 + per + (t < rem ? 1 : 0);
	*lo = b0 * q < n ? b0 * q : n;
	*hi = b1 * q < n ? b1 * q : n;
}

/* ======================================================================
 * Bandwidth kernels.  Each works on one thread's [lo, hi).  With nt set
 * the stored array is written with non-temporal stores: a head loop
 * reaches vector alignment, the body streams whole vectors, a tail loop
 * finishes, and a fence orders the stores before the join.
 * ====================================================================== */

#if HAVE_VEC_NT
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
	} while (0)
#endif

static void k_copy(elem_t *restrict c, const elem_t *restrict a,
		   size_t lo, size_t hi, int nt)
{
	size_t j;
#if HAVE_NT
	if (nt) {
		NT_STORE_LOOP(c, j, lo, hi, a[j], vload(&a[j]));
		return;
	}
#endif
	(void)nt;
	for (j = lo; j < hi; j++)
		c[j] = a[j];
}

static void k_scale(elem_t *restrict b, const elem_t *restrict c, elem_t q,
		    size_t lo, size_t hi, int nt)
{
	size_t j;
#if HAVE_NT
	if (nt) {
		NT_STORE_LOOP(b, j, lo, hi, q * c[j], vmul(vset1(q), vload(&c[j])));
		return;
	}
#endif
	(void)nt;
	for (j = lo; j < hi; j++)
		b[j] = q * c[j];
}

static void k_add(elem_t *restrict c, const elem_t *restrict a,
		  const elem_t *restrict b, size_t lo, size_t hi, int nt)
{
	size_t j;
#if HAVE_NT
	if (nt) {
		NT_STORE_LOOP(c, j, lo, hi, a[j] + b[j],
			      vadd(vload(&a[j]), vload(&b[j])));
		return;
	}
#endif
	(void)nt;
	for (j = lo; j < hi; j++)
		c[j] = a[j] + b[j];
}

static void k_triad(elem_t *restrict a, const elem_t *restrict b,
		    const elem_t *restrict c, elem_t q, size_t lo, size_t hi,
		    int nt)
{
	size_t j;
#if HAVE_NT
	if (nt) {
		NT_STORE_LOOP(a, j, lo, hi, b[j] + q * c[j],
			      vadd(vload(&b[j]), vmul(vset1(q), vload(&c[j]))));
		return;
	}
#endif
	(void)nt;
	for (j = lo; j < hi; j++)
		a[j] = b[j] + q * c[j];
}

/* Read-only: eight partial sums keep the adds independent, so the loop
 * is limited by loads, not by the latency of one accumulator. */
static double k_read(const elem_t *restrict a, size_t lo, size_t hi)
{
	double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
	size_t j;
	for (j = lo; j + 8 <= hi; j += 8) {
		s[0] += a[j];
		s[1] += a[j + 1];
		s[2] += a[j + 2];
		s[3] += a[j + 3];
		s[4] += a[j + 4];
		s[5] += a[j + 5];
		s[6] += a[j + 6];
		s[7] += a[j + 7];
	}
	for (; j < hi; j++)
		s[0] += a[j];
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static void k_write(elem_t *restrict c, elem_t q, size_t lo, size_t hi, int nt)
{
	size_t j;
#if HAVE_NT
	if (nt) {
		NT_STORE_LOOP(c, j, lo, hi, q, vset1(q));
		return;
	}
#endif
	(void)nt;
	for (j = lo; j < hi; j++)
		c[j] = q;
}

struct arrays {
	elem_t *a, *b, *c;
	size_t n;
};

/* One timed, parallel pass of kernel k; *sum gets Read's total. */
static double run_kernel(enum kernel_id k, const struct arrays *ar, elem_t q,
			 int nt, double *sum)
{
	double t, s = 0.0;
	t = now();
#ifdef _OPENMP
#pragma omp parallel reduction(+ : s)
#endif
	{
		size_t lo, hi;
		thread_span(ar->n, &lo, &hi);
		switch (k) {
		case K_COPY: k_copy(ar->c, ar->a, lo, hi, nt); break;
		case K_SCALE: k_scale(ar->b, ar->c, q, lo, hi, nt); break;
		case K_ADD: k_add(ar->c, ar->a, ar->b, lo, hi, nt); break;
		case K_TRIAD: k_triad(ar->a, ar->b, ar->c, q, lo, hi, nt); break;
		case K_READ: s += k_read(ar->a, lo, hi); break;
		case K_WRITE: k_write(ar->c, q, lo, hi, nt); break;
		case NKERNELS: break;
		}
	}
	t = now() - t;
	*sum = s;
	return t;
}

/* First touch, in parallel with the kernels' own split, so each page is
 * placed near the thread that will use it.  Threads are pinned here
 * (when bench pins) and report where they run. */
static void first_touch(const struct arrays *ar, int pin)
{
	int cpus[MAX_THREADS];
	int ncpus = allowed_cpus(cpus, MAX_THREADS);
	int counted = 0;
#ifdef _OPENMP
#pragma omp parallel reduction(+ : counted)
#endif
	{
		size_t lo, hi, j;
		int t = thread_id();
		if (pin && ncpus > 0)
			pin_to_cpu(cpus[t % ncpus]);
		if (t < MAX_THREADS)
			thread_cpu_start[t] = current_cpu();
		thread_span(ar->n, &lo, &hi);
		for (j = lo; j < hi; j++) {
			ar->a[j] = 1.0;
			ar->b[j] = 2.0;
			ar->c[j] = 0.0;
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

/* ======================================================================
 * Validation, as STREAM does it: replay the kernel sequence on scalars,
 * then compare every element against the replayed value.
 * ====================================================================== */

struct stream_run {
	struct arrays ar;
	struct region reg[3];
	struct page_report pages[3];
	size_t n;
	unsigned long long ntimes;
	double granularity;
	double *times;  /* [kernel][rep] */
	double *sums;   /* Read's total per repetition */
	double *expect; /* the replayed a[] before each Read */
	double min_t[NKERNELS], max_t[NKERNELS], avg_t[NKERNELS], med_t[NKERNELS];
	/* validation */
	int valid;
	int read_ok;
	double epsilon;
	double expected[3], avg_abs[3], avg_rel[3];
	long long nerr[3];
};

#define TIME_AT(r, k, rep) ((r)->times[(size_t)(k) * (r)->ntimes + (rep)])

static const char array_names[3] = {'a', 'b', 'c'};

static void validate(struct stream_run *r, unsigned kernels)
{
	elem_t aj = 1.0, bj = 2.0, cj = 0.0, q = 3.0;
	const elem_t *arr[3];
	unsigned long long k;
	size_t j;
	int i;

	r->epsilon = sizeof(elem_t) == 4 ? 1.e-6 : 1.e-13;
	aj = (elem_t)(2.0E0 * aj); /* the timer-resolution pass doubled a[] */
	r->read_ok = 1;
	for (k = 0; k < r->ntimes; k++) {
		if (kernels & (1u << K_COPY))
			cj = aj;
		if (kernels & (1u << K_SCALE))
			bj = q * cj;
		if (kernels & (1u << K_ADD))
			cj = aj + bj;
		if (kernels & (1u << K_TRIAD))
			aj = bj + q * cj;
		if (kernels & (1u << K_READ)) {
			double want = (double)r->n * (double)aj;
			r->expect[k] = want;
			if (fabs(r->sums[k] - want) > 1e-9 * fabs(want))
				r->read_ok = 0;
		}
		if (kernels & (1u << K_WRITE))
			cj = q;
	}
	r->expected[0] = aj;
	r->expected[1] = bj;
	r->expected[2] = cj;
	arr[0] = r->ar.a;
	arr[1] = r->ar.b;
	arr[2] = r->ar.c;
	r->valid = r->read_ok;
	for (i = 0; i < 3; i++) {
		double want = r->expected[i], sum = 0.0;
		long long bad = 0;
		for (j = 0; j < r->n; j++)
			sum += fabs((double)arr[i][j] - want);
		r->avg_abs[i] = sum / (double)r->n;
		/* An expected 0 (c[] when nothing writes it) compares absolutely. */
		r->avg_rel[i] = want != 0.0 ? r->avg_abs[i] / fabs(want) : r->avg_abs[i];
		if (r->avg_rel[i] > r->epsilon) {
			for (j = 0; j < r->n; j++) {
				double x = (double)arr[i][j];
				double e = want != 0.0 ? fabs(x / want - 1.0) : fabs(x);
				if (e > r->epsilon)
					bad++;
			}
			r->valid = 0;
		}
		r->nerr[i] = bad;
	}
}

static void print_validation_text(const struct stream_run *r, unsigned kernels)
{
	int i;
	unsigned long long k;
	for (i = 0; i < 3; i++) {
		if (r->avg_rel[i] <= r->epsilon)
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
	if ((kernels & (1u << K_READ)) && !r->read_ok)
		for (k = 0; k < r->ntimes; k++)
			if (fabs(r->sums[k] - r->expect[k]) > 1e-9 * fabs(r->expect[k]))
				printf("Failed Validation on Read: repetition %llu summed "
				       "%e, expected %e\n", k, r->sums[k], r->expect[k]);
	if (r->valid)
		printf("Solution Validates: avg error less than %e on all three "
		       "arrays\n", r->epsilon);
}

/* ======================================================================
 * The bandwidth mode.
 * ====================================================================== */

/* Refuse what cannot run, before anything is allocated or printed. */
static void stream_check(const struct options *o)
{
	unsigned long long per = (o->size + o->offset) * sizeof(elem_t);
	unsigned long long total = 3 * per + 3 * o->stagger;
	unsigned long long phys = physical_memory();

	if (o->size > (ULLONG_MAX / 4 - o->offset) / sizeof(elem_t) ||
	    total > (unsigned long long)SIZE_MAX / 2)
		die("--size: %llu elements overflow this machine's address space",
		    o->size);
	if (phys && total > phys)
		die("--size: 3 arrays of %llu elements need %.1f MiB but this "
		    "machine has %.1f MiB of physical memory", o->size,
		    (double)total / 1048576.0, (double)phys / 1048576.0);
	if (o->alloc == A_STATIC) {
		if (BENCH_NO_STATIC)
			die("--alloc static: this build has no static arrays "
			    "(BENCH_NO_STATIC=1)");
		if (o->size > STREAM_ARRAY_SIZE)
			die("--size: %llu exceeds the compiled static array size "
			    "%llu; rebuild with -DSTREAM_ARRAY_SIZE=%llu or use "
			    "another --alloc", o->size,
			    (unsigned long long)STREAM_ARRAY_SIZE, o->size);
		if (o->offset != OFFSET)
			die("--offset: static arrays keep the compiled OFFSET (%d); "
			    "rebuild with -DOFFSET=%llu or use another --alloc",
			    OFFSET, o->offset);
	}
	if (o->alloc == A_HUGETLB) {
		size_t hp = hugetlb_page_bytes();
		size_t len = (size_t)(per + 2 * o->stagger);
		if (!hp)
			die("--alloc hugetlb: this kernel reports no huge page size");
		hugetlb_check_pool(3 * ((len + hp - 1) / hp));
	}
	if (o->nt_stores && !HAVE_NT)
		warn("streaming stores were requested but are not available on "
		     "this target; plain stores are used");
}

static void stream_allocate(const struct options *o, struct stream_run *r)
{
	elem_t *statics[3] = {NULL, NULL, NULL};
	size_t bytes = (size_t)o->size * sizeof(elem_t);
	int i;
#if !BENCH_NO_STATIC
	statics[0] = static_a;
	statics[1] = static_b;
	statics[2] = static_c;
#endif
	r->n = (size_t)o->size;
	r->ntimes = o->ntimes;
	for (i = 0; i < 3; i++) {
		/* Array i starts i * (stagger + offset) bytes into its region,
		 * which shifts the arrays' relative alignment as STREAM's
		 * OFFSET padding does. */
		size_t shift = (size_t)i * ((size_t)o->stagger +
					    (size_t)o->offset * sizeof(elem_t));
		if (o->alloc == A_STATIC)
			shift = 0;
		if (region_alloc(&r->reg[i], bytes, o->alloc, shift, statics[i]) != 0)
			die("--alloc %s: could not obtain %.1f MiB for array %c (%s)",
			    alloc_names[o->alloc], (double)bytes / 1048576.0,
			    array_names[i], strerror(errno));
	}
	r->ar.a = r->reg[0].data;
	r->ar.b = r->reg[1].data;
	r->ar.c = r->reg[2].data;
	r->ar.n = r->n;
	r->times = calloc(NKERNELS * r->ntimes, sizeof(double));
	r->sums = calloc(r->ntimes, sizeof(double));
	r->expect = calloc(r->ntimes, sizeof(double));
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
}

static void print_stream_banner(const struct options *o, const struct stream_run *r)
{
	double bpw = (double)sizeof(elem_t);
	printf(HLINE);
	printf("membench %s: STREAM-compatible bandwidth (output follows "
	       "STREAM 5.10)\n", BENCH_VERSION);
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

static void print_placement_text(const struct options *o,
				 const struct stream_run *r)
{
	char bind[160];
	int i;
	describe_binding(o, bind, sizeof(bind));
	printf("Allocation: %s, stores %s, stagger %llu bytes\n",
	       alloc_names[o->alloc], o->nt_stores && HAVE_NT ? "nt" : "plain",
	       o->alloc == A_STATIC ? 0ULL : o->stagger);
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
	printf("Binding: %s\n", bind);
	printf("Thread CPUs:");
	for (i = 0; i < threads_counted && i < MAX_THREADS; i++)
		printf(" %d:%d", i, thread_cpu_start[i]);
	printf("\n");
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

static double kernel_bytes(int k, size_t n)
{
	return (double)kernel_defs[k].words * (double)sizeof(elem_t) * (double)n;
}

static void json_stream_body(const struct options *o, const struct stream_run *r,
			     unsigned kernels)
{
	char bind[160];
	int i, k;
	describe_binding(o, bind, sizeof(bind));
	json_open("run", '{');
	json_int("array_size", (long long)r->n);
	json_int("ntimes", (long long)r->ntimes);
	json_int("offset", (long long)o->offset);
	json_str("alloc", alloc_names[o->alloc]);
	json_str("stores", o->nt_stores && HAVE_NT ? "nt" : "plain");
	json_int("stagger_bytes", o->alloc == A_STATIC ? 0 : (long long)o->stagger);
	json_int("bytes_per_element", (long long)sizeof(elem_t));
	json_int("threads_requested", threads_requested());
	json_int("threads_counted", threads_counted);
	json_str("binding", bind);
	json_open("threads", '[');
	for (i = 0; i < threads_counted && i < MAX_THREADS; i++) {
		json_open(NULL, '{');
		json_int("thread", i);
		json_int("cpu", thread_cpu_start[i]);
		json_int("cpu_end", thread_cpu_end[i]);
		json_close('}');
	}
	json_close(']');
	json_open("arrays", '[');
	for (i = 0; i < 3; i++) {
		char name[2] = {array_names[i], '\0'};
		json_open(NULL, '{');
		json_str("name", name);
		json_int("bytes", (long long)r->reg[i].bytes);
		json_int("address_mod_4k", (long long)((uintptr_t)r->reg[i].data % 4096));
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
		json_close('}');
	}
	json_close(']');
	json_num("timer_granularity_s", r->granularity);
	json_close('}');

	json_open("results", '[');
	for (k = 0; k < NKERNELS; k++) {
		double bytes = kernel_bytes(k, r->n);
		if (!(kernels & (1u << k)))
			continue;
		json_open(NULL, '{');
		json_str("kernel", kernel_display((enum kernel_id)k));
		json_num("bytes", bytes);
		json_num("flops", (double)kernel_defs[k].flops * (double)r->n);
		json_num("best_mbs", 1.0E-06 * bytes / r->min_t[k]);
		json_num("median_mbs", 1.0E-06 * bytes / r->med_t[k]);
		json_num("avg_s", r->avg_t[k]);
		json_num("min_s", r->min_t[k]);
		json_num("max_s", r->max_t[k]);
		json_num("median_s", r->med_t[k]);
		json_close('}');
	}
	json_close(']');

	json_open("validation", '{');
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
	if (kernels & (1u << K_READ))
		json_bool("read_ok", r->read_ok);
	json_close('}');
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

/* Medians and spread, outside STREAM's table and with labels that STREAM
 * parsers (which match "Copy:" and friends) do not pick up. */
static void print_medians_text(const struct stream_run *r, unsigned kernels)
{
	int k;
	printf("Medians over repetitions 2..%llu (MB/s, seconds, max/min time):\n",
	       r->ntimes);
	for (k = 0; k < NKERNELS; k++)
		if (kernels & (1u << k))
			printf("  median %-6s %12.1f  %11.6f  spread %.3f\n",
			       kernel_display((enum kernel_id)k),
			       1.0E-06 * kernel_bytes(k, r->n) / r->med_t[k],
			       r->med_t[k], r->max_t[k] / r->min_t[k]);
	printf(HLINE);
}

/* Measure and report STREAM.  Returns the exit status (0, or 1 when the
 * results do not validate).  With json_body_only the caller owns the
 * enclosing JSON object (used by `bench all`). */
static int stream_mode(const struct options *o, const struct system_info *si,
		       int json_body_only)
{
	struct stream_run r;
	unsigned long long llc = reported_llc(si);
	unsigned long long k, rep;
	int quantum, nt = o->nt_stores && HAVE_NT, i;
	double t;
	elem_t q = 3.0;

	memset(&r, 0, sizeof(r));
	stream_check(o);
	stream_allocate(o, &r);

	if (!json_output) {
		print_stream_banner(o, &r);
#ifdef _OPENMP
		printf(HLINE);
		printf("Number of Threads requested = %i\n", threads_requested());
#endif
	}
	first_touch(&r.ar, bench_pins(o));
	for (i = 0; i < 3; i++)
		page_report(r.reg[i].data, r.reg[i].bytes, &r.pages[i]);
	if (!json_output) {
#ifdef _OPENMP
		printf("Number of Threads counted = %i\n", threads_counted);
#endif
		printf(HLINE);
	}

	r.granularity = timer_granularity();
	quantum = (int)(r.granularity * 1e6);
	t = now();
#ifdef _OPENMP
#pragma omp parallel
#endif
	{
		size_t lo, hi, j;
		thread_span(r.n, &lo, &hi);
		for (j = lo; j < hi; j++)
			r.ar.a[j] = 2.0E0 * r.ar.a[j];
	}
	t = 1.0E6 * (now() - t);
	if (!json_output) {
		if (quantum >= 1)
			printf("Your clock granularity/precision appears to be %d "
			       "microseconds.\n", quantum);
		else {
			printf("Your clock granularity appears to be less than one "
			       "microsecond.\n");
			quantum = 1;
		}
		printf("Each test below will take on the order of %d microseconds.\n",
		       (int)t);
		printf("   (= %d clock ticks)\n", (int)(t / quantum));
		printf("Increase the size of the arrays if this shows that\n");
		printf("you are not getting at least 20 clock ticks per test.\n");
		printf(HLINE);
		print_build_text();
		print_system_text(si);
		print_placement_text(o, &r);
		printf(HLINE);
	}
	if (llc && (unsigned long long)r.n * sizeof(elem_t) < 4 * llc) {
		char b1[32], b2[32];
		format_bytes(b1, sizeof(b1), llc);
		snprintf(b2, sizeof(b2), "%.1f MiB",
			 (double)r.n * sizeof(elem_t) / 1048576.0);
		warn("each array (%s) is smaller than 4x the reported last-level "
		     "cache (%s); --size %llu or more follows STREAM's rule "
		     "(VMs may report nonsense cache sizes)", b2, b1,
		     (4 * llc + sizeof(elem_t) - 1) / sizeof(elem_t));
	}
	if (!json_output && nwarnings)
		printf(HLINE);

	for (rep = 0; rep < r.ntimes; rep++)
		for (k = 0; k < NKERNELS; k++)
			if (o->kernels & (1u << k)) {
				double sum = 0.0;
				TIME_AT(&r, k, rep) =
					run_kernel((enum kernel_id)k, &r.ar, q, nt, &sum);
				if (k == K_READ)
					r.sums[rep] = sum;
			}
	record_end_cpus();
#if BENCH_CORRUPT_TEST
	r.ar.a[r.n / 2] = r.ar.a[r.n / 2] * 2 + 1;
#endif
	stream_stats(&r, o->kernels);
	validate(&r, o->kernels);

	for (k = 0; k < NKERNELS; k++)
		if ((o->kernels & (1u << k)) && r.min_t[k] < 20 * r.granularity)
			warn("%s took %.3g s, fewer than 20 clock ticks of %.3g s; "
			     "increase --size", kernel_display((enum kernel_id)k),
			     r.min_t[k], r.granularity);
	for (i = 0; i < threads_counted && i < MAX_THREADS; i++)
		if (thread_cpu_start[i] != thread_cpu_end[i])
			warn("thread %d moved from CPU %d to CPU %d during the run",
			     i, thread_cpu_start[i], thread_cpu_end[i]);

	if (json_output) {
		if (!json_body_only) {
			json_open(NULL, '{');
			json_str("schema", JSON_SCHEMA);
			json_str("mode", "stream");
			json_build();
			json_system(si);
		}
		json_stream_body(o, &r, o->kernels);
		if (!json_body_only) {
			json_warnings();
			json_close('}');
		}
	} else {
		print_results_text(&r, o->kernels);
		print_validation_text(&r, o->kernels);
		printf(HLINE);
		print_medians_text(&r, o->kernels);
	}
	stream_release(&r);
	return r.valid ? 0 : 1;
}

/* ======================================================================
 * Info mode and the entry point.
 * ====================================================================== */

/* Allowed CPUs as a compact list such as "0-3,8" into buf. */
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

static int info_mode(const struct system_info *si)
{
	int cpus[MAX_THREADS], n = allowed_cpus(cpus, MAX_THREADS);
	char list[512] = "unknown";
	double gran = timer_granularity();
	if (n > 0)
		format_cpu_list(list, sizeof(list), cpus, n);
	if (json_output) {
		json_open(NULL, '{');
		json_str("schema", JSON_SCHEMA);
		json_str("mode", "info");
		json_build();
		json_system(si);
		json_open("process", '{');
		json_str("allowed_cpus", n > 0 ? list : NULL);
		json_int("threads_default", threads_requested());
		json_num("timer_granularity_s", gran);
		json_str("binding_env", omp_binding_env());
		json_close('}');
		json_close('}');
	} else {
		printf("membench %s\n", BENCH_VERSION);
		print_build_text();
		print_system_text(si);
		printf("Allowed CPUs: %s\n", list);
		printf("Default threads: %d\n", threads_requested());
		printf("Timer granularity: %.3g s\n", gran);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct system_info si;
	int rc = 0;

	parse_options(argc, argv, &o);
	setup_threads(&o);
	collect_system(&si);
	switch (o.mode) {
	case M_STREAM:
		rc = stream_mode(&o, &si, 0);
		break;
	case M_INFO:
		rc = info_mode(&si);
		break;
	case M_LATENCY:
	case M_ALL:
		die("mode '%s' is not available in this build yet",
		    mode_name(o.mode));
	}
	fflush(stdout);
	return rc;
}
