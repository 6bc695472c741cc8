// SPDX-License-Identifier: GPL-2.0
/*
 * jit-check: compare codectl-run's sampled stacks (--json-all) with the true
 * call chains jit-demo wrote (--chains).
 *
 *   jit-check [--expect-invalid] [--min-jit N] REPORT.json CHAINS
 *
 * A JIT stack is a sample of the demo's process with a frame in a JIT code
 * area (frame 0 at its IP, callers at IP - 1), or with frame 0 in a leaf
 * (leaves are only called from JIT code). Only leaves and JIT code have JIT
 * frames above them: a stack with frame 0 elsewhere (libc) that reaches JIT
 * code through a frame-pointer step has followed stale return addresses, and
 * is counted apart, not compared. JIT frames are matched by address
 * range, never by symbol; C frames by symbol name. The innermost JIT frame
 * names the chain and the depth; from there outward the frames must be
 * exactly the chain's functions in order, then its C entry; frames inside it
 * must all be the chain's leaf (which only then called the innermost
 * function). Every frame reached by a step from a JIT frame must have the
 * source the chain expects: "jit" (registered), "fp" (compiled after an
 * unregistration) or either, the same for the whole stack. A frame-pointer
 * walk cannot start in a JIT prologue: stacks with frame 0 in JIT code that
 * were unwound by the FP fallback (or stopped there) are counted, not
 * compared. A stack whose first wrong frame (or early end) was found by a
 * read past the stack copy ("past_copy_from" in the report: the ring's copy
 * came short and the thread ran on before the walk) is counted apart
 * (past_copy), not compared.
 *
 * Prints the counts and the first mismatches; exit status 1 on any mismatch,
 * on fewer JIT stacks than --min-jit (default 1), on a "jit-table-invalid..."
 * stop (with --expect-invalid: on none; stacks with that stop are then
 * counted, not compared), 2 on bad input.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_AREAS 8
#define MAX_DEPTH 64
#define NAME_MAX_LEN 64
#define SHOW_MISMATCHES 5
#define MAX_TABLES 4096
#define MAX_LEAVES 8
/* Frames of one stack at most (codectl-run: --max-frames, at most 65536). */
#define MAX_FRAMES 65536

enum expect { EXPECT_JIT, EXPECT_FP, EXPECT_EITHER };

struct fn {
	uint64_t start, end;
	uint32_t chain;
	uint32_t depth;
	uint32_t table;
	uint32_t area;
};

struct chain {
	uint32_t id;
	char entry[NAME_MAX_LEN];
	char leaf[NAME_MAX_LEN];
	enum expect expect;
	uint32_t depth;
	uint64_t start[MAX_DEPTH];
	const struct fn *fn[MAX_DEPTH];
	size_t samples;
};

struct truth {
	int pid;
	uint64_t area_start[MAX_AREAS], area_end[MAX_AREAS];
	unsigned int nareas;
	struct fn *fns;
	size_t nfns, capfns;
	struct chain *chains;
	size_t nchains, capchains;
	const char *leaves[MAX_LEAVES];
	unsigned int nleaves;
};

/* One frame of a sampled stack. */
struct frame {
	uint64_t ip;
	const char *source;
	const char *symbol;
};

struct counts {
	size_t stacks, jit_stacks, equal, mismatches, jit_steps, fp_steps, frame0_jit;
	size_t excluded_fp_prologue, invalid, other_pid, chains_sampled, fp_stale;
	size_t tables_sampled, areas_sampled, expect_fp, past_copy;
};

struct check {
	struct truth *t;
	struct counts n;
	bool table_seen[MAX_AREAS][MAX_TABLES];
	bool area_seen[MAX_AREAS];
	bool expect_invalid;
	size_t past_copy_from;	/* the stack's first frame found past its copy, 0: none */
	char why[512];
	struct frame f[MAX_FRAMES];	/* the stack being checked */
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "jit-check: out of memory\n");
		exit(2);
	}
	return p;
}

static enum expect parse_expect(const char *s)
{
	if (!strcmp(s, "fp"))
		return EXPECT_FP;
	return strcmp(s, "either") ? EXPECT_JIT : EXPECT_EITHER;
}

/* "chain ID ENTRY LEAF EXPECT DEPTH START..." */
static int parse_chain(struct truth *t, char *line)
{
	struct chain *c;
	char expect[16];
	int used;

	t->chains = grow(t->chains, &t->capchains, t->nchains, sizeof(*t->chains));
	c = &t->chains[t->nchains];
	memset(c, 0, sizeof(*c));
	if (sscanf(line, "chain %" SCNu32 " %63s %63s %15s %" SCNu32 "%n", &c->id, c->entry,
		   c->leaf, expect, &c->depth, &used) != 5 || !c->depth || c->depth > MAX_DEPTH)
		return -EINVAL;
	c->expect = parse_expect(expect);
	line += used;
	for (uint32_t d = 0; d < c->depth; d++) {
		char *end;

		c->start[d] = strtoull(line, &end, 16);
		if (end == line)
			return -EINVAL;
		line = end;
	}
	t->nchains++;
	return 0;
}

static int parse_line(struct truth *t, char *line)
{
	struct fn *f;

	if (line[0] == '#' || line[0] == '\n')
		return 0;
	if (!strncmp(line, "pid ", 4))
		return sscanf(line, "pid %d", &t->pid) == 1 ? 0 : -EINVAL;
	if (!strncmp(line, "area ", 5)) {
		if (t->nareas == MAX_AREAS ||
		    sscanf(line, "area %" SCNx64 " %" SCNx64, &t->area_start[t->nareas],
			   &t->area_end[t->nareas]) != 2)
			return -EINVAL;
		t->nareas++;
		return 0;
	}
	if (!strncmp(line, "chain ", 6))
		return parse_chain(t, line);
	if (strncmp(line, "fn ", 3))
		return -EINVAL;
	t->fns = grow(t->fns, &t->capfns, t->nfns, sizeof(*t->fns));
	f = &t->fns[t->nfns++];
	return sscanf(line, "fn %" SCNx64 " %" SCNx64 " %" SCNu32 " %" SCNu32 " %" SCNu32,
		      &f->start, &f->end, &f->chain, &f->depth, &f->table) == 5 &&
	       f->start < f->end ? 0 : -EINVAL;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_chain(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The function holding @addr, or NULL. */
static const struct fn *find_fn(const struct truth *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nfns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < t->fns[mid].start)
			hi = mid;
		else if (addr >= t->fns[mid].end)
			lo = mid + 1;
		else
			return &t->fns[mid];
	}
	return NULL;
}

static struct chain *find_chain(const struct truth *t, uint32_t id)
{
	struct chain key = { .id = id };

	return bsearch(&key, t->chains, t->nchains, sizeof(key), cmp_chain);
}

/* Sort, check that functions are apart and that each chain's starts are its functions. */
static int link_truth(struct truth *t)
{
	qsort(t->fns, t->nfns, sizeof(*t->fns), cmp_fn);
	qsort(t->chains, t->nchains, sizeof(*t->chains), cmp_chain);
	for (size_t i = 0; i < t->nfns; i++) {
		struct fn *f = &t->fns[i];

		if (i && f->start < f[-1].end)
			return -EINVAL;
		for (f->area = 0; f->area < t->nareas; f->area++)
			if (f->start >= t->area_start[f->area] && f->end <= t->area_end[f->area])
				break;
		if (f->area == t->nareas || f->table >= MAX_TABLES)
			return -EINVAL;
	}
	for (size_t i = 0; i < t->nchains; i++) {
		struct chain *c = &t->chains[i];
		unsigned int l;

		for (l = 0; l < t->nleaves && strcmp(t->leaves[l], c->leaf); l++)
			;
		if (l == MAX_LEAVES)
			return -EINVAL;
		if (l == t->nleaves)
			t->leaves[t->nleaves++] = c->leaf;
		for (uint32_t d = 0; d < c->depth; d++) {
			const struct fn *f = c->fn[d] = find_fn(t, c->start[d]);

			if (!f || f->start != c->start[d] || f->chain != c->id || f->depth != d)
				return -EINVAL;
		}
	}
	return t->nareas ? 0 : -EINVAL;
}

static int load_truth(struct truth *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int err = 0, lineno = 0;

	if (!f) {
		fprintf(stderr, "jit-check: %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		lineno++;
		err = parse_line(t, line);
	}
	fclose(f);
	if (err) {
		fprintf(stderr, "jit-check: %s:%d: malformed line\n", path, lineno);
		return err;
	}
	err = link_truth(t);
	if (err)
		fprintf(stderr, "jit-check: %s: inconsistent (overlapping functions, or a chain "
			"whose starts are not its functions)\n", path);
	return err;
}

static bool in_area(const struct truth *t, uint64_t addr)
{
	for (unsigned int i = 0; i < t->nareas; i++)
		if (addr >= t->area_start[i] && addr < t->area_end[i])
			return true;
	return false;
}

/* @sym is function @name, with or without +0xOFF (or a .suffix of the compiler's). */
static bool is_function(const char *sym, const char *name)
{
	size_t n = strlen(name);

	return sym && !strncmp(sym, name, n) &&
	       (sym[n] == '\0' || sym[n] == '+' || sym[n] == '.');
}

static bool is_leaf(const struct truth *t, const char *sym)
{
	for (unsigned int i = 0; i < t->nleaves; i++)
		if (is_function(sym, t->leaves[i]))
			return true;
	return false;
}

/* Where frame @i is looked up: its IP (frame 0), else its return address - 1. */
static uint64_t lookup_addr(const struct frame *f, size_t i)
{
	return i ? f[i].ip - 1 : f[i].ip;
}

static int fail_why(struct check *ck, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail_why(struct check *ck, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ck->why, sizeof(ck->why), fmt, ap);
	va_end(ap);
	return -1;
}

static bool source_allowed(enum expect e, const char *src)
{
	if (e == EXPECT_JIT)
		return !strcmp(src, "jit");
	if (e == EXPECT_FP)
		return !strcmp(src, "fp");
	return !strcmp(src, "jit") || !strcmp(src, "fp");
}

/* Frames i0+1 .. i0+k are the chain's depths k-1 .. 0, then its entry; all by @src. */
/*
 * Frame @i of the stack (or its end, @i = n) was found by a read past the
 * stack copy, from live memory after the thread ran on (a ring sample whose
 * copy came short): it is not judged, and the stack is counted apart.
 */
static bool past_copy(struct check *ck, size_t i)
{
	if (!ck->past_copy_from || i < ck->past_copy_from)
		return false;
	ck->n.past_copy++;
	return true;
}

/* The first frame from @i0 + 1 outward that is not chain @c's from depth @k, or n; @why says how. */
static size_t first_wrong(struct check *ck, const struct frame *f, size_t n, size_t i0,
			  const struct chain *c, uint32_t k, const char *stop)
{
	static const char *const expected[] = { "jit", "fp", "jit or fp" };
	const char *src = f[i0 + 1].source;

	if (!source_allowed(c->expect, src)) {
		fail_why(ck, "frame %zu reached by \"%s\" from a JIT frame (chain %" PRIu32
			 " expects %s)", i0 + 1, src, c->id, expected[c->expect]);
		return i0 + 1;
	}
	for (uint32_t j = 1; j <= k + 1; j++) {
		size_t i = i0 + j;

		if (i >= n) {
			fail_why(ck, "walk stopped (%s) after %zu frames, %" PRIu32
				 " frames short of the entry", stop, n, k + 2 - j);
			return n;
		}
		if (strcmp(f[i].source, src)) {
			fail_why(ck, "frame %zu reached by \"%s\", frame %zu by \"%s\"", i,
				 f[i].source, i0 + 1, src);
			return i;
		}
		if (j <= k) {
			const struct fn *want = c->fn[k - j];
			uint64_t a = lookup_addr(f, i);

			if (a < want->start || a >= want->end) {
				fail_why(ck, "frame %zu ip 0x%" PRIx64 " is not depth %" PRIu32
					 " of chain %" PRIu32 " [0x%" PRIx64 ",0x%" PRIx64 ")", i,
					 f[i].ip, k - j, c->id, want->start, want->end);
				return i;
			}
		} else if (!is_function(f[i].symbol, c->entry)) {
			fail_why(ck, "frame %zu is %s, not the chain's entry %s", i, f[i].symbol,
				 c->entry);
			return i;
		}
	}
	return SIZE_MAX;
}

/* Frames from @i0 outward are chain @c's from depth @k: 0; 1 when not judged; -1 when not. */
static int check_outward(struct check *ck, const struct frame *f, size_t n, size_t i0,
			 const struct chain *c, uint32_t k, const char *stop)
{
	size_t i = first_wrong(ck, f, n, i0, c, k, stop);

	if (i == SIZE_MAX)
		return 0;
	return past_copy(ck, i) ? 1 : -1;
}

/* A stack with a JIT frame at @i0: 0 when it is the true chain, 1 when excluded, -1 not. */
static int check_chain(struct check *ck, const struct frame *f, size_t n, size_t i0,
		       const char *stop)
{
	const struct fn *fn = find_fn(ck->t, lookup_addr(f, i0));
	struct chain *c = fn ? find_chain(ck->t, fn->chain) : NULL;
	int err;

	if (!c)
		return fail_why(ck, "frame %zu ip 0x%" PRIx64 " is in JIT code but in no function "
				"of a chain that ran", i0, f[i0].ip);
	if (i0 > 0 && fn->depth != c->depth - 1)
		return fail_why(ck, "frame %zu is depth %" PRIu32 " of chain %" PRIu32 ", but only "
				"depth %" PRIu32 " calls the leaf", i0, fn->depth, c->id,
				c->depth - 1);
	for (size_t i = 0; i < i0; i++)
		if (!is_function(f[i].symbol, c->leaf))
			return fail_why(ck, "frame %zu is %s, not chain %" PRIu32 "'s leaf %s", i,
					f[i].symbol, c->id, c->leaf);
	/* unregistered: only the FP fallback could go on from frame 0 (or stop there) */
	if (i0 == 0 && c->expect != EXPECT_JIT && (n == 1 || !strcmp(f[1].source, "fp"))) {
		ck->n.excluded_fp_prologue++;
		return 1;
	}
	if (i0 + 1 >= n)
		return past_copy(ck, n) ? 1 :
		       fail_why(ck, "walk stopped (%s) at the innermost JIT frame %zu", stop, i0);
	err = check_outward(ck, f, n, i0, c, fn->depth, stop);
	if (err)
		return err;
	if (!c->samples++)
		ck->n.chains_sampled++;
	if (!ck->table_seen[fn->area][fn->table]) {
		ck->table_seen[fn->area][fn->table] = true;
		ck->n.tables_sampled++;
	}
	if (!ck->area_seen[fn->area]) {
		ck->area_seen[fn->area] = true;
		ck->n.areas_sampled++;
	}
	ck->n.expect_fp += c->expect == EXPECT_FP;
	if (!strcmp(f[i0 + 1].source, "jit"))
		ck->n.jit_steps++;
	else
		ck->n.fp_steps++;
	return 0;
}

static int frames_of(json_t *stack, struct frame *f, size_t max, size_t *n)
{
	json_t *frames = json_object_get(stack, "frames"), *fr;
	size_t i;

	*n = json_array_size(frames);
	if (!*n || *n > max)
		return -EINVAL;
	json_array_foreach(frames, i, fr) {
		const char *ip = json_string_value(json_object_get(fr, "ip"));

		f[i].source = json_string_value(json_object_get(fr, "source"));
		f[i].symbol = json_string_value(json_object_get(fr, "symbol"));
		if (!ip || !f[i].source)
			return -EINVAL;
		if (!f[i].symbol)
			f[i].symbol = "?";
		f[i].ip = strtoull(ip, NULL, 16);
	}
	return 0;
}

static void show_mismatch(const struct check *ck, json_t *stack, const struct frame *f, size_t n)
{
	printf("jit-check: mismatch %zu (pid %d, tid %d, stop %s): %s\n", ck->n.mismatches,
	       (int)json_integer_value(json_object_get(stack, "pid")),
	       (int)json_integer_value(json_object_get(stack, "tid")),
	       json_string_value(json_object_get(stack, "stop")), ck->why);
	for (size_t i = 0; i < n && i < 24; i++) {
		const struct fn *fn = find_fn(ck->t, lookup_addr(f, i));

		printf("    %2zu 0x%-14" PRIx64 " %-6s %s", i, f[i].ip, f[i].source, f[i].symbol);
		if (fn)
			printf("  [chain %" PRIu32 " depth %" PRIu32 "]", fn->chain, fn->depth);
		putchar('\n');
	}
}

/* Is one of frames 1..@i0 reached by a frame-pointer step? */
static bool fp_step_before(const struct frame *f, size_t i0)
{
	for (size_t i = 1; i <= i0; i++)
		if (!strcmp(f[i].source, "fp"))
			return true;
	return false;
}

static void check_stack(struct check *ck, json_t *stack)
{
	struct frame *f = ck->f;
	const char *stop = json_string_value(json_object_get(stack, "stop"));
	size_t n, i0;
	int ret;

	ck->n.stacks++;
	if ((int)json_integer_value(json_object_get(stack, "pid")) != ck->t->pid) {
		ck->n.other_pid++;
		return;
	}
	if (frames_of(stack, f, MAX_FRAMES, &n)) {
		fprintf(stderr, "jit-check: a stack without frames, or a frame without "
			"ip/source\n");
		exit(2);
	}
	for (i0 = 0; i0 < n && !in_area(ck->t, lookup_addr(f, i0)); i0++)
		;
	if (i0 == n && !is_leaf(ck->t, f[0].symbol))
		return;
	/*
	 * Only a leaf or JIT code has JIT frames above it. Code without unwind
	 * data (libc) under the frame-pointer fallback reads whatever its %rbp
	 * points at: stale return addresses into a leaf or JIT code left on the
	 * stack by earlier runs make no JIT stack.
	 */
	if (i0 > 0 && i0 < n && !is_leaf(ck->t, f[0].symbol) && fp_step_before(f, i0)) {
		ck->n.fp_stale++;
		return;
	}
	ck->n.jit_stacks++;
	ck->n.frame0_jit += i0 == 0;
	ck->past_copy_from = (size_t)json_integer_value(json_object_get(stack, "past_copy_from"));
	if (!stop)
		stop = "?";
	if (!strncmp(stop, "jit-table-invalid", 17)) {
		ck->n.invalid++;
		if (ck->expect_invalid)
			return;
		ret = fail_why(ck, "the walk stopped with %s", stop);
	} else if (i0 == n) {
		ret = fail_why(ck, "frame 0 is in a leaf but no frame is in JIT code (stop %s)",
			       stop);
	} else {
		ret = check_chain(ck, f, n, i0, stop);
	}
	if (ret > 0)
		return;
	if (!ret) {
		ck->n.equal++;
		return;
	}
	if (++ck->n.mismatches <= SHOW_MISMATCHES)
		show_mismatch(ck, stack, f, n);
}

static void usage(void)
{
	fprintf(stderr, "usage: jit-check [--expect-invalid] [--min-jit N] REPORT.json CHAINS\n");
	exit(2);
}

static int report(const struct check *ck, size_t min_jit)
{
	const struct counts *n = &ck->n;
	size_t compared = n->equal + n->mismatches;
	bool ok = !n->mismatches && n->jit_stacks >= min_jit && n->jit_stacks > 0 &&
		  (ck->expect_invalid ? n->invalid > 0 : n->invalid == 0);

	printf("jit-check: JIT stacks: %zu, equal to the true chain: %zu (%.1f%%)\n",
	       n->jit_stacks, n->equal, compared ? 100.0 * (double)n->equal / (double)compared : 0);
	printf("jit-check: steps from JIT frames: jit %zu, fp %zu; frame 0 in JIT code: %zu (%zu "
	       "unwound by FP from a JIT frame, not compared); chains sampled: %zu of %zu; "
	       "jit-table-invalid stops: %zu%s; stacks of other processes: %zu; JIT addresses "
	       "reached by the FP fallback from code without unwind data (not JIT stacks): %zu\n",
	       n->jit_steps, n->fp_steps, n->frame0_jit, n->excluded_fp_prologue,
	       n->chains_sampled, ck->t->nchains, n->invalid,
	       ck->expect_invalid ? " (expected, not compared)" : "", n->other_pid, n->fp_stale);
	printf("jit-check: equal stacks in %zu tables of %zu areas; %zu of chains compiled after "
	       "an unregistration; %zu that differ only in frames read past the stack copy "
	       "(the thread ran on: not compared)\n", n->tables_sampled, n->areas_sampled,
	       n->expect_fp, n->past_copy);
	printf("jit-check: counts stacks=%zu jit_stacks=%zu equal=%zu mismatches=%zu jit_steps=%zu "
	       "fp_steps=%zu frame0_jit=%zu excluded=%zu chains_sampled=%zu chains=%zu invalid=%zu "
	       "other_pid=%zu fp_stale=%zu tables_sampled=%zu areas_sampled=%zu expect_fp=%zu "
	       "past_copy=%zu\n",
	       n->stacks, n->jit_stacks, n->equal, n->mismatches, n->jit_steps, n->fp_steps,
	       n->frame0_jit, n->excluded_fp_prologue, n->chains_sampled, ck->t->nchains,
	       n->invalid, n->other_pid, n->fp_stale, n->tables_sampled, n->areas_sampled,
	       n->expect_fp, n->past_copy);
	if (n->jit_stacks < min_jit || !n->jit_stacks)
		printf("jit-check: FAIL: %zu JIT stacks, at least %zu wanted\n", n->jit_stacks,
		       min_jit ? min_jit : 1);
	if (ck->expect_invalid && !n->invalid)
		printf("jit-check: FAIL: no jit-table-invalid stop, one was expected\n");
	if (!ck->expect_invalid && n->invalid)
		printf("jit-check: FAIL: %zu walks stopped on an invalid JIT table\n", n->invalid);
	printf("jit-check: %s\n", ok ? "OK" : "FAILED");
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "expect-invalid", 0, 0, 'i' }, { "min-jit", 1, 0, 'm' }, { 0, 0, 0, 0 },
	};
	static struct truth t;
	static struct check ck = { .t = &t };
	size_t min_jit = 1, i;
	json_error_t e;
	json_t *root, *stacks, *s;
	int c;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c == 'i')
			ck.expect_invalid = true;
		else if (c == 'm')
			min_jit = strtoull(optarg, NULL, 0);
		else
			usage();
	}
	if (argc - optind != 2)
		usage();
	if (load_truth(&t, argv[optind + 1]))
		return 2;
	root = json_load_file(argv[optind], 0, &e);
	if (!root) {
		fprintf(stderr, "jit-check: %s: %s (line %d)\n", argv[optind], e.text, e.line);
		return 2;
	}
	stacks = json_object_get(root, "stacks");
	if (!json_is_array(stacks)) {
		fprintf(stderr, "jit-check: %s: no \"stacks\" (run codectl-run with --json-all)\n",
			argv[optind]);
		return 2;
	}
	json_array_foreach(stacks, i, s)
		check_stack(&ck, s);
	json_decref(root);
	return report(&ck, min_jit);
}
