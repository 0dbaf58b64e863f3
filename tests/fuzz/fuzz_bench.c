/*
 * fuzz_bench.c -- libFuzzer entry points for bench.c's input parsers.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *         tests/fuzz/fuzz_bench.c -o fuzz_bench
 *   FUZZ_TARGET=options ./fuzz_bench ...
 *
 * One binary holds the three targets; the environment's FUZZ_TARGET
 * (options, sizes or curve) picks one when it starts, since each
 * compile of bench.c with the sanitizers takes half a minute.  Built
 * with -DFUZZ_TARGET=1, 2 or 3 it is that target alone.
 *
 * FUZZ_TARGET 1 options: the input is a command line (arguments split at
 *   NUL or newline; the first byte picks the personality: bench,
 *   lat_mem_rd, stream), parsed and checked as a run would be, up to the
 *   allocation plan; nothing is allocated or measured.
 * FUZZ_TARGET 2 sizes: the input is one value for the size, count,
 *   positive-number and cache-size parsers.
 * FUZZ_TARGET 3 curve: the input is a --curve-in file, read and analysed.
 *
 * bench.c is included whole and unchanged.  Macros set before it turn
 * its exit() into a jump back here (die() ends in exit(2)), its main()
 * into bench_main(), its stderr into /dev/null and its heap into one
 * this file can empty after a refusal, which leaves its blocks behind.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FUZZ_TARGET
#define FUZZ_TARGET 0 /* chosen when it starts */
#endif
#if FUZZ_TARGET < 0 || FUZZ_TARGET > 3
#error "FUZZ_TARGET must be 1 (options), 2 (sizes) or 3 (curve), or unset"
#endif

static jmp_buf fuzz_env;
static int fuzz_armed;
static FILE *fuzz_null;

/* exit() inside an input's run returns to the fuzzer with the status. */
static void fuzz_exit(int code) __attribute__((noreturn));
static void fuzz_exit(int code)
{
	if (fuzz_armed)
		longjmp(fuzz_env, code + 1);
	exit(code);
}

/* Every block bench.c takes is on one list, so the blocks a refusal
 * leaves behind are freed before the next input. */
struct fuzz_block {
	struct fuzz_block *prev, *next;
	max_align_t align[];
};
static struct fuzz_block fuzz_heap = {&fuzz_heap, &fuzz_heap};

static void *fuzz_link(struct fuzz_block *b)
{
	if (!b)
		return NULL;
	b->next = fuzz_heap.next;
	b->prev = &fuzz_heap;
	fuzz_heap.next->prev = b;
	fuzz_heap.next = b;
	return b->align;
}

static struct fuzz_block *fuzz_unlink(void *p)
{
	struct fuzz_block *b;
	if (!p)
		return NULL;
	b = (struct fuzz_block *)((char *)p - offsetof(struct fuzz_block, align));
	b->prev->next = b->next;
	b->next->prev = b->prev;
	return b;
}

static void *fuzz_malloc(size_t n)
{
	if (n > SIZE_MAX - sizeof(struct fuzz_block))
		return NULL;
	return fuzz_link(malloc(sizeof(struct fuzz_block) + n));
}

static void *fuzz_calloc(size_t n, size_t size)
{
	void *p;
	if (size && n > (SIZE_MAX - sizeof(struct fuzz_block)) / size)
		return NULL;
	p = fuzz_malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

static void *fuzz_realloc(void *p, size_t n)
{
	struct fuzz_block *b = fuzz_unlink(p), *nb;
	if (n > SIZE_MAX - sizeof(struct fuzz_block))
		nb = NULL;
	else
		nb = realloc(b, sizeof(struct fuzz_block) + n);
	if (!nb) {
		if (b)
			fuzz_link(b); /* still the caller's */
		return NULL;
	}
	return fuzz_link(nb);
}

static void fuzz_free(void *p)
{
	free(fuzz_unlink(p));
}

static void fuzz_heap_empty(void)
{
	while (fuzz_heap.next != &fuzz_heap)
		fuzz_free(fuzz_heap.next->align);
}

#define exit(code) fuzz_exit(code)
#define main bench_main
#define malloc fuzz_malloc
#define calloc fuzz_calloc
#define realloc fuzz_realloc
#define free fuzz_free
#undef stderr
#define stderr fuzz_null
#include "../../bench.c"
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef exit

static struct system_info fuzz_si;

/* Before each input: the state one run of bench starts with. */
static void fuzz_reset(void)
{
	fuzz_heap_empty();
	nwarnings = 0; /* their blocks went with the heap */
	out.text = 1;
	out.json = NULL;
	out.warned = 0;
	prog = "bench";
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_target = FUZZ_TARGET;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const targets[] = {"options", "sizes", "curve"};
	const char *want = getenv("FUZZ_TARGET");
	int t;

	(void)argc;
	(void)argv;
	if (fuzz_target == 0) {
		for (t = 0; t < 3 && want; t++)
			if (strcmp(want, targets[t]) == 0)
				fuzz_target = t + 1;
		if (fuzz_target == 0) {
			/* stderr is bench.c's, which goes to /dev/null here */
			dprintf(STDERR_FILENO,
				"fuzz_bench: FUZZ_TARGET must be options, sizes or curve, not '%s'\n",
				want ? want : "");
			exit(2);
		}
	}
	fuzz_null = fopen("/dev/null", "w");
	if (!fuzz_null || !freopen("/dev/null", "w", stdout))
		abort();
	/* the machine's view (caches, memory) as a run sees it; the sysfs
	 * parsers are not under test here */
	collect_system(&fuzz_si);
	return 0;
}

#define FUZZ_MAXARGS 64

static void fuzz_options(const uint8_t *data, size_t size)
{
	static const char *const names[] = {"bench", "lat_mem_rd", "stream"};
	char *buf, *argv[FUZZ_MAXARGS + 1];
	int argc = 0;
	size_t i, start;
	struct options o;
	struct alloc_plan plan;

	if (size == 0)
		return;
	buf = fuzz_malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	argv[argc++] = (char *)names[data[0] % 3];
	for (i = start = 0; i < size && argc < FUZZ_MAXARGS; i++)
		if (buf[i] == '\0' || buf[i] == '\n') {
			buf[i] = '\0';
			argv[argc++] = buf + start;
			start = i + 1;
		}
	argv[argc] = NULL;
	cmd_argc = argc;
	cmd_argv = argv;
	parse_command_line(argc, argv, &o);
	if (o.mode == M_LATENCY || o.mode == M_ALL) {
		lat_check(&o, &fuzz_si);
		if (!o.curve_in)
			alloc_plan(&plan, &o, M_LATENCY, reported_llc(&fuzz_si),
				   reported_llc_instances(&fuzz_si), 0);
	}
	if (o.mode == M_STREAM || o.mode == M_ALL)
		alloc_plan(&plan, &o, M_STREAM, reported_llc(&fuzz_si),
			   reported_llc_instances(&fuzz_si), 0);
}

static void fuzz_sizes(const uint8_t *data, size_t size)
{
	char *s = fuzz_malloc(size + 1);
	volatile unsigned long long sink;
	memcpy(s, data, size);
	s[size] = '\0';
	sink = parse_cache_size(s);
	/* each parser refuses with exit(2); a jump back ends the input, so
	 * the first refusal decides how far it gets */
	sink = parse_bytes("--max", s, 1);
	sink = parse_count("--ntimes", s, 2, 1000000);
	sink = (unsigned long long)parse_positive("--mhz", s);
	(void)sink;
}

static char fuzz_path[4096];

/* the curve's file, made at the first input: under TMPDIR as it is then */
static void fuzz_curve_file(void)
{
	const char *dir = getenv("TMPDIR");
	int fd;
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/fuzz_curve.XXXXXX",
		 dir && *dir ? dir : "/tmp");
	fd = mkstemp(fuzz_path);
	if (fd < 0)
		abort();
	close(fd);
}

static void fuzz_curve(const uint8_t *data, size_t size)
{
	struct options o;
	FILE *f;

	if (!fuzz_path[0])
		fuzz_curve_file();
	f = fopen(fuzz_path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	/* "-" reads stdin, which a refusal cannot leave open */
	if (!freopen(fuzz_path, "r", stdin))
		abort();
	default_options(&o);
	o.mode = M_LATENCY;
	o.curve_in = "-";
	lat_curve_file(&o, &fuzz_si);
}

__attribute__((destructor)) static void fuzz_curve_unlink(void)
{
	if (fuzz_path[0])
		unlink(fuzz_path);
}

static void fuzz_one(const uint8_t *data, size_t size)
{
	switch (fuzz_target) {
	case 1:
		fuzz_options(data, size);
		break;
	case 2:
		fuzz_sizes(data, size);
		break;
	default:
		fuzz_curve(data, size);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_reset();
	fuzz_armed = 1;
	if (setjmp(fuzz_env) == 0)
		fuzz_one(data, size);
	fuzz_armed = 0;
	fuzz_reset();
	return 0;
}
