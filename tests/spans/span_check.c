/*
 * span_check.c -- every bandwidth kernel, at every instruction-set level
 * this CPU runs and with every store method, writes exactly its span.
 *
 *   cc -O2 tests/spans/span_check.c -o span_check && ./span_check
 *
 * bench.c is included whole and unchanged, its main() renamed, so the
 * kernels tested are the ones bench runs.  Each kernel runs on one
 * thread's share [lo, hi) of arrays fenced by poison on both sides and
 * started at every alignment a vector can have.  Inside the span each
 * stored element must hold the kernel's value, exactly (the values are
 * small integers, exact in any floating type); outside it, nothing may
 * change; Read and Dot must return the span's sum.  A vector loop that
 * stores past its tail, or skips one, is caught here, where a whole
 * run's validation cannot see it: a neighbour's overrun writes the same
 * values the neighbour writes, and one past the end of an array lands in
 * the padding.
 *
 * Prints one line per level and method, and one per fault; exits 1 if
 * any kernel missed its span, 0 otherwise.
 */
#define main bench_main
#include "../../bench.c"
#undef main

#define SPAN_N 200   /* elements in each array */
#define SPAN_PAD 80  /* poisoned elements on each side, past any vector */
#define SPAN_SHIFT 8 /* array starts tried: 0 to 7 elements off a line */

static elem_t span_buf[3][SPAN_SHIFT + SPAN_N + 2 * SPAN_PAD];

/* The value element i of array x (0 a, 1 b, 2 c) starts with, and the
 * poison outside the arrays. */
static elem_t span_initial(int x, int i)
{
	if (i < 0 || i >= SPAN_N)
		return (elem_t)(-7 - x);
	return (elem_t)(1 + 1000 * x + i);
}

/* What kernel k leaves in element i of array x, inside its span. */
static elem_t span_want(int k, int x, int i, elem_t q)
{
	elem_t a = span_initial(0, i), b = span_initial(1, i), c = span_initial(2, i);
	switch (k) {
	case K_COPY: return x == 2 ? a : span_initial(x, i);
	case K_SCALE: return x == 1 ? q * c : span_initial(x, i);
	case K_ADD: return x == 2 ? a + b : span_initial(x, i);
	case K_TRIAD: return x == 0 ? b + q * c : span_initial(x, i);
	case K_WRITE: return x == 2 ? q : span_initial(x, i);
	case K_NSTREAM: return x == 0 ? a + b + q * c : span_initial(x, i);
	case K_AXPY: return x == 2 ? c + q * a : span_initial(x, i);
	case K_UPDATE: return x == 1 ? q * b : span_initial(x, i);
	default: return span_initial(x, i);
	}
}

/* Run kernel k with method m over [lo, hi) of arrays starting shift
 * elements into their buffers; returns the number of faults. */
static int span_one(int k, struct method m, int shift, int lo, int hi)
{
	const elem_t q = 3;
	struct arrays ar;
	elem_t *base[3];
	double sum, want_sum = 0;
	char name[32];
	int x, i, bad = 0;
	for (x = 0; x < 3; x++) {
		base[x] = span_buf[x] + shift + SPAN_PAD;
		for (i = -SPAN_PAD - shift; i < SPAN_N + SPAN_PAD; i++)
			base[x][i] = span_initial(x, i);
	}
	ar.a = base[0];
	ar.b = base[1];
	ar.c = base[2];
	ar.n = SPAN_N;
	sum = kernel_span((enum kernel_id)k, &ar, q, m, (size_t)lo, (size_t)hi);
	for (x = 0; x < 3; x++)
		for (i = -SPAN_PAD - shift; i < SPAN_N + SPAN_PAD; i++) {
			int in = i >= lo && i < hi;
			elem_t want = in ? span_want(k, x, i, q) : span_initial(x, i);
			if (base[x][i] == want)
				continue;
			if (bad++ < 3)
				printf("FAULT %s %s shift %d [%d, %d): %c[%d] is "
				       "%g, want %g (%s the span)\n",
				       method_name(m, name, sizeof(name)),
				       kernel_defs[k].name, shift, lo, hi,
				       "abc"[x], i, (double)base[x][i],
				       (double)want, in ? "inside" : "outside");
		}
	if ((k == K_READ || k == K_DOT) && m.kind != SK_LOAD) { /* loads: no sum */
		for (i = lo; i < hi; i++)
			want_sum += k == K_READ ? span_initial(0, i)
				    : span_initial(0, i) * span_initial(1, i);
		if (sum != want_sum && bad++ < 3)
			printf("FAULT %s %s shift %d [%d, %d): sum %g, want "
			       "%g\n", method_name(m, name, sizeof(name)),
			       kernel_defs[k].name, shift, lo, hi, sum, want_sum);
	}
	return bad;
}

int main(void)
{
	/* spans: empty, shorter than a vector, odd ends, the whole array */
	static const int spans[][2] = {
		{0, 0}, {5, 5}, {0, 1}, {3, 4}, {1, 7}, {0, 8}, {9, 26},
		{2, 67}, {0, 129}, {13, 200}, {0, 200}, {64, 192}, {199, 200},
	};
	int l, kind, k, shift, s, faults = 0, levels = 0;
	for (l = 0; l < NISA; l++) {
		if (!isa_supported(l))
			continue;
		levels++;
		for (kind = SK_PLAIN; kind <= SK_NT; kind++) {
			struct method m;
			char name[32];
			int before = faults, runs = 0;
			m.kind = kind;
			m.isa = l;
			if (kind == SK_NT && l == ISA_GENERIC && !HAVE_NT)
				continue;
			for (k = 0; k < NKERNELS; k++)
				for (shift = 0; shift < SPAN_SHIFT; shift++)
					for (s = 0; s < (int)(sizeof(spans) /
							      sizeof(spans[0])); s++) {
						faults += span_one(k, m, shift,
								   spans[s][0],
								   spans[s][1]);
						runs++;
					}
			printf("%s %s: %d spans, %d faults\n",
			       method_name(m, name, sizeof(name)),
			       l ? "dispatched" : "this build's code", runs,
			       faults - before);
		}
#if HAVE_X86_DISPATCH
		if (l != ISA_GENERIC) { /* Read's bare loads: nothing written */
			struct method m;
			char name[32];
			int before = faults, runs = 0;
			m.kind = SK_LOAD;
			m.isa = l;
			for (shift = 0; shift < SPAN_SHIFT; shift++)
				for (s = 0; s < (int)(sizeof(spans) / sizeof(spans[0]));
				     s++) {
					faults += span_one(K_READ, m, shift, spans[s][0],
							   spans[s][1]);
					runs++;
				}
			printf("%s dispatched: %d spans, %d faults\n",
			       method_name(m, name, sizeof(name)), runs,
			       faults - before);
		}
#endif
	}
	printf("%d levels, %d faults\n", levels, faults);
	return faults ? 1 : 0;
}
