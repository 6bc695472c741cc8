// SPDX-License-Identifier: GPL-2.0
/* The example JIT's code generator, its records, the perf map and the chains file. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jit_gen.h"

/* Bytes left unused at the start of each area: no function starts at ip_off 0,
 * so a poison entry (ip_off 0) is always out of order. */
#define JIT_AREA_SKIP 64
/* Poison entries written past the published end of a table before each append. */
#define JIT_POISON_AHEAD 8
/* Every function's body spins a little before its call: samples land in JIT code. */
#define JIT_SPIN_LOOPS 20000
#define JIT_SPIN_BYTES 9
#define JIT_FP_LEAVE (8 + JIT_SPIN_BYTES + 12)
#define JIT_FP_SIZE (JIT_FP_LEAVE + 2)
#define INT3 0xcc

/* Frameless frames: each 8 mod 16, so %rsp is 16-byte aligned at the call. */
static const uint32_t frameless_frames[] = { 8, 24, 56, 120, 136, 520, 1032 };

int jit_state_init(struct jit_state *st, size_t max_fns)
{
	memset(st, 0, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	st->fns = calloc(max_fns, sizeof(*st->fns));
	st->chains = calloc(max_fns, sizeof(*st->chains));
	if (!st->fns || !st->chains)
		return -ENOMEM;
	st->cap_fns = max_fns;
	st->cap_chains = max_fns;
	st->min_depth = 4;
	st->max_depth = 12;
	st->max_recurse = 3;
	return 0;
}

int jit_area_open(struct jit_state *st, size_t code_len, size_t fres_per_table, bool poison)
{
	struct jit_area *a;
	size_t max_tables;
	void *code;
	int err;

	if (st->nareas == JIT_MAX_AREAS || code_len <= JIT_AREA_SKIP || !fres_per_table)
		return -EINVAL;
	a = &st->areas[st->nareas];
	code = mmap(NULL, code_len, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (code == MAP_FAILED)
		return -errno;
	/* at most 4 FREs per function of at least 32 bytes (21, 16-byte aligned) */
	max_tables = code_len / 8 / fres_per_table + 2;
	err = codectl_jit_init(&a->tables, code, code_len, fres_per_table, max_tables);
	if (err) {
		munmap(code, code_len);
		return err;
	}
	a->code = code;
	a->len = code_len;
	a->used = JIT_AREA_SKIP;
	a->poison = poison;
	memset(a->code, INT3, JIT_AREA_SKIP);
	a->reg_err = codectl_jit_register(&a->tables);
	return (int)st->nareas++;
}

size_t jit_table_count(const struct codectl_jit_tables *t)
{
	return t->area_used / codectl_jit_table_bytes(t->fres_per_table);
}

static void poison_slots(struct code_jit_unwind_table *tab, uint64_t from, uint64_t count)
{
	const struct code_jit_unwind_fre poison = { .size = 1, .ip_off = 0, .cfa_off = 8 };
	uint64_t max = tab->reserved_len / CODECTL_JIT_FRE_STRIDE;
	unsigned char *fres = (unsigned char *)(tab + 1);

	for (uint64_t i = from; i < from + count && i < max; i++)
		memcpy(fres + i * CODECTL_JIT_FRE_STRIDE, &poison, CODE_JIT_FRE_SIZE_VER0);
	/* a compiler barrier: the poison must really be stored before the entries */
	__asm__ volatile("" ::: "memory");
}

int jit_poison_add(struct codectl_jit_tables *t, const struct code_jit_unwind_fre *fre, size_t n)
{
	struct codectl_jit_slot slot;
	int err = codectl_jit_reserve(t, fre, n, &slot);

	if (err)
		return err;
	poison_slots(slot.tab, slot.used / CODECTL_JIT_FRE_STRIDE, n + JIT_POISON_AHEAD);
	codectl_jit_publish(t, &slot, fre, n);
	return 0;
}

static uint32_t fn_size(uint8_t kind, uint32_t frame)
{
	if (kind == JIT_FN_FP)
		return JIT_FP_SIZE;
	return (frame < 128 ? 21 : 27) + JIT_SPIN_BYTES;
}

static uint8_t *put_bytes(uint8_t *p, const void *b, size_t n)
{
	memcpy(p, b, n);
	return p + n;
}

/* mov $JIT_SPIN_LOOPS,%ecx; 1: dec %ecx; jnz 1b (the frame as it is: no FRE of its own) */
static uint8_t *put_spin(uint8_t *p)
{
	static const uint8_t mov_ecx = 0xb9, loop[] = { 0xff, 0xc9, 0x75, 0xfc };
	uint32_t n = JIT_SPIN_LOOPS;

	p = put_bytes(p, &mov_ecx, 1);
	p = put_bytes(p, &n, sizeof(n));
	return put_bytes(p, loop, sizeof(loop));
}

/* movabs $target,%rax; call *%rax */
static uint8_t *put_call(uint8_t *p, uint64_t target)
{
	static const uint8_t movabs[] = { 0x48, 0xb8 }, call[] = { 0xff, 0xd0 };

	p = put_bytes(p, movabs, sizeof(movabs));
	p = put_bytes(p, &target, sizeof(target));
	return put_bytes(p, call, sizeof(call));
}

/* sub/add $frame,%rsp (@op 0xec sub, 0xc4 add): 4 bytes for imm8, 7 for imm32. */
static uint8_t *put_rsp_op(uint8_t *p, uint8_t op, uint32_t frame)
{
	const uint8_t imm8[] = { 0x48, 0x83, op, (uint8_t)frame }, imm32[] = { 0x48, 0x81, op };

	if (frame < 128)
		return put_bytes(p, imm8, sizeof(imm8));
	p = put_bytes(p, imm32, sizeof(imm32));
	return put_bytes(p, &frame, sizeof(frame));
}

/* Write one function at @p (@ip_off in its area) calling @target; its FREs to @fre. */
static unsigned int emit_fn(uint8_t *p, uint32_t ip_off, uint8_t kind, uint32_t frame,
			    uint64_t target, struct code_jit_unwind_fre *fre)
{
	/* push %rbp; mov %rsp,%rbp; sub $16,%rsp */
	static const uint8_t fp_prologue[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10 };
	static const uint8_t leave_ret[] = { 0xc9, 0xc3 }, ret = 0xc3;
	uint8_t *q = p;
	uint32_t sub_len;

	if (kind == JIT_FN_FP) {
		q = put_bytes(q, fp_prologue, sizeof(fp_prologue));
		q = put_spin(q);
		q = put_call(q, target);
		put_bytes(q, leave_ret, sizeof(leave_ret));
		return codectl_jit_fres_fp(ip_off, JIT_FP_LEAVE, fre);
	}
	q = put_rsp_op(q, 0xec, frame);
	sub_len = (uint32_t)(q - p);
	q = put_spin(q);
	q = put_call(q, target);
	q = put_rsp_op(q, 0xc4, frame);
	put_bytes(q, &ret, 1);
	return codectl_jit_fres_frameless(ip_off, sub_len, frame, (uint32_t)(q - p), fre);
}

static void fn_name(const struct jit_state *st, size_t i, char *buf, size_t size)
{
	const struct jit_fn *f = &st->fns[i];

	if (f->kind == JIT_FN_FP)
		snprintf(buf, size, "jit_c%" PRIu32 "_d%u_fp", f->chain, f->depth);
	else
		snprintf(buf, size, "jit_c%" PRIu32 "_d%u_sub%" PRIu32, f->chain, f->depth,
			 f->frame);
}

static void perf_map_line(struct jit_state *st, size_t i)
{
	char name[64];

	fn_name(st, i, name, sizeof(name));
	fprintf(st->perf_map, "%" PRIx64 " %" PRIx64 " %s\n", st->fns[i].start,
		st->fns[i].end - st->fns[i].start, name);
}

unsigned int jit_random_depth(const struct jit_state *st, uint64_t *rng)
{
	return st->min_depth + (unsigned int)(jit_rand(rng) % (st->max_depth - st->min_depth + 1));
}

/**
 * struct chain_plan - a chain's functions before they are written
 * @order: depths in address order
 * @off: each depth's offset in the area
 */
struct chain_plan {
	unsigned int depth;
	uint8_t kind[64];
	uint32_t frame[64];
	unsigned int order[64];
	uint32_t off[64];
	size_t end;
};

/* Shapes and a shuffled placement past @a->used; false when the area is full. */
static bool plan_chain(const struct jit_state *st, const struct jit_area *a,
		       struct chain_plan *p, uint64_t *rng)
{
	size_t pos = (a->used + 15) & ~(size_t)15;

	for (unsigned int d = 0; d < p->depth; d++) {
		p->kind[d] = st->only_fp || jit_rand(rng) % 2 ? JIT_FN_FP : JIT_FN_FRAMELESS;
		p->frame[d] = frameless_frames[jit_rand(rng) % (sizeof(frameless_frames) /
								sizeof(frameless_frames[0]))];
		p->order[d] = d;
	}
	for (unsigned int d = p->depth; d-- > 1;) {
		unsigned int j = (unsigned int)(jit_rand(rng) % (d + 1)), t = p->order[d];

		p->order[d] = p->order[j];
		p->order[j] = t;
	}
	for (unsigned int i = 0; i < p->depth; i++) {
		unsigned int d = p->order[i];

		p->off[d] = (uint32_t)pos;
		pos = (pos + fn_size(p->kind[d], p->frame[d]) + 15) & ~(size_t)15;
		if (jit_rand(rng) % 4 == 0)
			pos += 16;	/* a gap no FRE covers */
	}
	p->end = pos;
	return pos <= a->len && pos <= UINT32_MAX;
}

static int table_add(struct jit_area *a, const struct code_jit_unwind_fre *fre, size_t n)
{
	return a->poison ? jit_poison_add(&a->tables, fre, n) : codectl_jit_add(&a->tables, fre, n);
}

/* Write the planned functions, append their FREs in address order, record them. */
static int write_chain(struct jit_state *st, unsigned int area, const struct chain_plan *p,
		       size_t c, uint8_t leaf)
{
	struct jit_area *a = &st->areas[area];
	uint64_t base = (uintptr_t)a->code;
	struct code_jit_unwind_fre fre[CODECTL_JIT_FP_FRES];
	size_t first = st->nfns;
	int err;

	memset(a->code + a->used, INT3, p->end - a->used);
	for (unsigned int i = 0; i < p->depth; i++) {
		unsigned int d = p->order[i];
		uint64_t target = d + 1 < p->depth ? base + p->off[d + 1] :
				  (uint64_t)(uintptr_t)jit_leaves[leaf].fn;
		unsigned int n = emit_fn(a->code + p->off[d], p->off[d], p->kind[d], p->frame[d],
					 target, fre);

		err = n ? table_add(a, fre, n) : -EINVAL;
		if (err)
			return err;
		st->fns[first + d] = (struct jit_fn){
			.start = base + p->off[d],
			.end = base + p->off[d] + fn_size(p->kind[d], p->frame[d]),
			.chain = (uint32_t)c, .depth = (uint16_t)d, .kind = p->kind[d],
			.area = (uint8_t)area, .frame = p->frame[d],
			.table = (uint32_t)(jit_table_count(&a->tables) - 1),
		};
	}
	return 0;
}

long jit_compile_chain(struct jit_state *st, unsigned int area, unsigned int depth,
		       uint64_t *rng, enum jit_expect expect)
{
	struct chain_plan p = { .depth = depth };
	struct jit_area *a = &st->areas[area];
	size_t c;
	int err;

	if (!depth || depth > 64 || area >= st->nareas)
		return -EINVAL;
	pthread_mutex_lock(&st->lock);
	c = st->nchains;
	if (st->nfns + depth > st->cap_fns || c >= st->cap_chains || !plan_chain(st, a, &p, rng)) {
		pthread_mutex_unlock(&st->lock);
		return -ENOSPC;
	}
	st->chains[c] = (struct jit_chain){
		.first_fn = (uint32_t)st->nfns, .depth = (uint16_t)depth,
		.entry = (uint8_t)(jit_rand(rng) % JIT_NENTRIES),
		.leaf = (uint8_t)(jit_rand(rng) % JIT_NLEAVES), .expect = (uint8_t)expect,
	};
	err = write_chain(st, area, &p, c, st->chains[c].leaf);
	/* even a failed chain's bytes stay used: later FREs must come after them */
	a->used = p.end;
	if (err) {
		pthread_mutex_unlock(&st->lock);
		return err;
	}
	for (unsigned int d = 0; st->perf_map && d < depth; d++)
		perf_map_line(st, st->nfns + d);
	if (st->perf_map && st->flush_each)
		fflush(st->perf_map);
	st->nfns += depth;
	__atomic_store_n(&st->nchains, c + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&st->lock);
	return (long)c;
}

size_t jit_published(struct jit_state *st)
{
	return __atomic_load_n(&st->nchains, __ATOMIC_ACQUIRE);
}

void jit_run_chain(struct jit_state *st, size_t c, struct jit_run *r)
{
	struct jit_chain *ch = &st->chains[c];

	__atomic_store_n(&ch->ran, 1, __ATOMIC_RELAXED);
	r->fn = (void (*)(struct jit_run *))(uintptr_t)st->fns[ch->first_fn].start;
	r->depth_left = r->recurse;
	jit_entries[ch->entry].fn(r);
}

int jit_perf_map_open(struct jit_state *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	st->perf_map = fopen(path, "w");
	return st->perf_map ? 0 : -errno;
}

void jit_perf_map_remove(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	unlink(path);
}

void jit_perf_map_all(struct jit_state *st)
{
	pthread_mutex_lock(&st->lock);
	for (size_t i = 0; st->perf_map && i < st->nfns; i++)
		perf_map_line(st, i);
	if (st->perf_map)
		fflush(st->perf_map);
	pthread_mutex_unlock(&st->lock);
}

static const char *const expect_names[] = { "jit", "fp", "either" };

static void write_chain_lines(FILE *f, const struct jit_state *st, size_t c)
{
	const struct jit_chain *ch = &st->chains[c];
	char name[64];

	for (unsigned int d = 0; d < ch->depth; d++) {
		const struct jit_fn *fn = &st->fns[ch->first_fn + d];

		fn_name(st, ch->first_fn + d, name, sizeof(name));
		fprintf(f, "fn %" PRIx64 " %" PRIx64 " %zu %u %u %s\n", fn->start, fn->end, c, d,
			fn->table, name);
	}
	fprintf(f, "chain %zu %s %s %s %u", c, jit_entries[ch->entry].name,
		jit_leaves[ch->leaf].name, expect_names[ch->expect], ch->depth);
	for (unsigned int d = 0; d < ch->depth; d++)
		fprintf(f, " %" PRIx64, st->fns[ch->first_fn + d].start);
	fputc('\n', f);
}

int jit_write_chains(struct jit_state *st, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t n = jit_published(st);

	if (!f)
		return -errno;
	fprintf(f, "# jit-demo chains: functions (start end chain depth table name), then each\n"
		   "# chain that ran (id entry leaf expect depth, starts outermost first)\n");
	fprintf(f, "pid %d\n", (int)getpid());
	for (unsigned int i = 0; i < st->nareas; i++)
		fprintf(f, "area %" PRIx64 " %" PRIx64 " %d\n", st->areas[i].tables.text_start,
			st->areas[i].tables.text_end, st->areas[i].reg_err == 0);
	for (size_t c = 0; c < n; c++)
		if (__atomic_load_n(&st->chains[c].ran, __ATOMIC_RELAXED))
			write_chain_lines(f, st, c);
	if (fclose(f))
		return -errno;
	return 0;
}
