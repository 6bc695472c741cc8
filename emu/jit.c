// SPDX-License-Identifier: GPL-2.0
/*
 * JIT unwind tables: chained, append-only arrays of struct code_jit_unwind_fre
 * in increasing ip_off order. Every read goes through the accessor, and every
 * inconsistency is reported as -EINVAL, never trusted.
 */
#include <linux/codectl.h>
#include <stdbool.h>

#include "jit.h"
#include "jit_index.h"

struct jit_table {
	uint64_t addr;
	uint64_t reserved_len;
	uint64_t used_len;
	uint64_t next;
	uint32_t stride;
	uint32_t size;
	uint64_t n;		/* entries published */
};

static int read_table(const struct emu_accessor *mem, uint64_t addr, struct jit_table *t)
{
	struct code_jit_unwind_table h;

	if (addr & 7)
		return -EINVAL;
	if (emu_read(mem, addr, &h, sizeof(h)))
		return -EFAULT;
	*t = (struct jit_table){
		.addr = addr, .reserved_len = h.reserved_len, .used_len = h.used_len,
		.next = h.next, .stride = h.fre_stride, .size = h.fre_size,
	};
	return 0;
}

static enum emu_rule table_rule(const struct jit_table *t)
{
	if (t->used_len > t->reserved_len)
		return EMU_R_JIT_USED_LEN;
	if (t->size < CODE_JIT_FRE_SIZE_VER0)
		return EMU_R_JIT_FRE_SIZE;
	if (t->stride < t->size || t->stride % 4)
		return EMU_R_JIT_FRE_STRIDE;
	return EMU_R_OK;
}

int emu_jit_check_head(const struct emu_accessor *mem, uint64_t head, struct emu_verdict *v)
{
	struct jit_table t;
	int err = read_table(mem, head, &t);

	if (err == -EINVAL)
		return emu_reject(v, EMU_R_JIT_HEAD_ALIGN, "JIT table 0x%llx not 8-byte aligned",
				  (unsigned long long)head);
	if (err)
		return emu_reject(v, EMU_R_JIT_HEAD_FAULT, "JIT table header at 0x%llx unreadable",
				  (unsigned long long)head);
	switch (table_rule(&t)) {
	case EMU_R_JIT_USED_LEN:
		return emu_reject(v, EMU_R_JIT_USED_LEN, "JIT table: used_len %llu above reserved_len %llu",
				  (unsigned long long)t.used_len, (unsigned long long)t.reserved_len);
	case EMU_R_JIT_FRE_SIZE:
		return emu_reject(v, EMU_R_JIT_FRE_SIZE, "JIT table: fre_size %u below %d", t.size,
				  CODE_JIT_FRE_SIZE_VER0);
	case EMU_R_JIT_FRE_STRIDE:
		return emu_reject(v, EMU_R_JIT_FRE_STRIDE,
				  "JIT table: fre_stride %u below fre_size %u or not a multiple of 4",
				  t.stride, t.size);
	default:
		return 0;
	}
}

static int read_entry(const struct emu_accessor *mem, const struct jit_table *t, uint64_t i,
		      struct code_jit_unwind_fre *e)
{
	uint64_t addr = t->addr + sizeof(struct code_jit_unwind_table) + i * t->stride;

	return emu_read(mem, addr, e, CODE_JIT_FRE_SIZE_VER0) ? -EINVAL : 0;
}

static int fail(enum emu_jit_fault *fault, enum emu_jit_fault why)
{
	*fault = why;
	return -EINVAL;
}

/*
 * Last entry with ip_off <= @off among [1, n - 1) given @first and @last
 * (@off is below last->ip_off); every entry read must lie strictly between
 * the neighbours that bound it (ip_off increases from entry to entry).
 */
static int search_table(const struct emu_accessor *mem, const struct jit_table *t, uint32_t off,
			const struct code_jit_unwind_fre *first, const struct code_jit_unwind_fre *last,
			uint64_t *idx, struct code_jit_unwind_fre *found, enum emu_jit_fault *fault)
{
	uint64_t lo = 1, hi = t->n - 1;
	uint32_t lo_off = first->ip_off, hi_off = last->ip_off;
	struct code_jit_unwind_fre e;

	*found = *first;
	*idx = 0;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (read_entry(mem, t, mid, &e))
			return fail(fault, EMU_JIT_ENTRY_UNREADABLE);
		if (e.ip_off <= lo_off || e.ip_off >= hi_off)
			return fail(fault, EMU_JIT_UNSORTED);
		if (e.ip_off <= off) {
			*found = e;
			*idx = mid;
			lo_off = e.ip_off;
			lo = mid + 1;
		} else {
			hi_off = e.ip_off;
			hi = mid;
		}
	}
	return 0;
}

/* The entry after @idx must start at or after the end of the found one. */
static int check_no_overlap(const struct emu_accessor *mem, const struct jit_table *t,
			    uint64_t idx, const struct code_jit_unwind_fre *e,
			    enum emu_jit_fault *fault)
{
	struct code_jit_unwind_fre next;

	if (idx + 1 >= t->n)
		return 0;
	if (read_entry(mem, t, idx + 1, &next))
		return fail(fault, EMU_JIT_ENTRY_UNREADABLE);
	if (next.ip_off <= e->ip_off)
		return fail(fault, EMU_JIT_UNSORTED);
	if ((uint64_t)e->ip_off + e->size > next.ip_off)
		return fail(fault, EMU_JIT_OVERLAP);
	return 0;
}

static void entry_rule(const struct code_jit_unwind_fre *e, const struct emu_arch_info *arch,
		       struct emu_unwind_rule *rule)
{
	*rule = (struct emu_unwind_rule){
		.cfa_base = (e->info & CODE_JIT_FRE_CFA_BASE_FP) ? EMU_CFA_FP : EMU_CFA_SP,
		.cfa_off = e->cfa_off,
		.ra = { .kind = EMU_LOC_CFA_DEREF, .off = arch->ra_cfa_off },
		.fp = { .kind = EMU_LOC_SAME, .reg = arch->fp_reg },
		.outermost = e->info & CODE_JIT_FRE_OUTERMOST,
	};
	if (e->info & CODE_JIT_FRE_RA_SAVED)
		rule->ra.off = e->ra_off;
	else if (!arch->ra_cfa_off)
		rule->ra = (struct emu_loc_rule){ .kind = EMU_LOC_SAME, .reg = arch->ra_reg };
	if (e->info & CODE_JIT_FRE_FP_SAVED)
		rule->fp = (struct emu_loc_rule){ .kind = EMU_LOC_CFA_DEREF, .off = e->fp_off };
}

/* A table with entries, and its first entry. */
struct table_first {
	struct jit_table t;
	struct code_jit_unwind_fre first;
};

/* The last entry of @c: above its first, ending at or below @next_first. */
static int table_last(const struct emu_accessor *mem, const struct table_first *c,
		      uint64_t next_first, struct code_jit_unwind_fre *last,
		      enum emu_jit_fault *fault)
{
	if (read_entry(mem, &c->t, c->t.n - 1, last))
		return fail(fault, EMU_JIT_ENTRY_UNREADABLE);
	if ((c->t.n > 1 && last->ip_off <= c->first.ip_off) || last->ip_off >= next_first)
		return fail(fault, EMU_JIT_UNSORTED);
	if ((uint64_t)last->ip_off + last->size > next_first)
		return fail(fault, EMU_JIT_OVERLAP);
	return 0;
}

/*
 * Look @off up in @c, the last table whose first entry is at or below it;
 * @next_first: the next table's first ip_off (UINT64_MAX: none).
 * Return: 0 (*@found covers @off), -ENOENT, -EINVAL.
 */
static int search_candidate(const struct emu_accessor *mem, const struct table_first *c,
			    uint32_t off, uint64_t next_first, struct code_jit_unwind_fre *found,
			    enum emu_jit_fault *fault)
{
	struct code_jit_unwind_fre last;
	uint64_t idx;
	int err = table_last(mem, c, next_first, &last, fault);

	if (err)
		return err;
	if (off >= (uint64_t)last.ip_off + last.size)
		return -ENOENT;
	if (off >= last.ip_off) {
		*found = last;
		return 0;
	}
	err = search_table(mem, &c->t, off, &c->first, &last, &idx, found, fault);
	if (!err)
		err = check_no_overlap(mem, &c->t, idx, found, fault);
	if (err)
		return err;
	return off < (uint64_t)found->ip_off + found->size ? 0 : -ENOENT;
}

/* Read and check the table at @addr; its layout must be the head's (@t0). */
static int next_table(const struct emu_accessor *mem, uint64_t addr, const struct jit_table *t0,
		      struct jit_table *t, enum emu_jit_fault *fault)
{
	static const enum emu_jit_fault by_rule[] = {
		[EMU_R_JIT_USED_LEN] = EMU_JIT_USED_LEN,
		[EMU_R_JIT_FRE_SIZE] = EMU_JIT_FRE_SIZE,
		[EMU_R_JIT_FRE_STRIDE] = EMU_JIT_FRE_STRIDE,
	};
	enum emu_rule bad;
	int err = read_table(mem, addr, t);

	if (err)
		return fail(fault, err == -EFAULT ? EMU_JIT_HEADER_UNREADABLE :
				   EMU_JIT_HEADER_MISALIGNED);
	bad = table_rule(t);
	if (bad)
		return fail(fault, by_rule[bad]);
	if (t0 && (t->stride != t0->stride || t->size != t0->size))
		return fail(fault, EMU_JIT_LAYOUT_CHANGED);
	t->n = t->used_len >= t->size ? (t->used_len - t->size) / t->stride + 1 : 0;
	return 0;
}

/*
 * The chain must end within EMU_JIT_MAX_TABLES tables; a loop is caught as
 * soon as it comes round (Brent: compare with a mark moved at powers of two).
 */
struct chain_guard {
	uint64_t mark;
	unsigned int count, power, since_mark;
};

static int guard_step(struct chain_guard *g, uint64_t addr, enum emu_jit_fault *fault)
{
	if (addr == g->mark)
		return fail(fault, EMU_JIT_CHAIN_LOOP);
	if (++g->count > EMU_JIT_MAX_TABLES)
		return fail(fault, EMU_JIT_CHAIN_TOO_LONG);
	if (++g->since_mark >= g->power) {
		g->mark = addr;
		g->power *= 2;
		g->since_mark = 0;
	}
	return 0;
}

/*
 * The table at @addr with its first entry (t->n 0: none published); @t0 is
 * the head's header, read once per lookup.
 */
static int chain_next(const struct emu_accessor *mem, uint64_t addr, const struct jit_table *t0,
		      struct chain_guard *guard, struct table_first *cur,
		      enum emu_jit_fault *fault)
{
	int err = guard_step(guard, addr, fault);

	if (!err && addr == t0->addr)
		cur->t = *t0;
	else if (!err)
		err = next_table(mem, addr, t0, &cur->t, fault);
	if (err)
		return err;
	if (cur->t.n && read_entry(mem, &cur->t, 0, &cur->first))
		return fail(fault, EMU_JIT_ENTRY_UNREADABLE);
	return 0;
}

/*
 * One lookup of @off: @t0 the head's header, @idx the registration's index
 * (NULL: none), @start_count the tables before the one the walk starts at,
 * @indexed: every table of the walk so far is in @idx (so a sealed one met
 * next may be added).
 */
struct jit_lookup {
	const struct emu_accessor *mem;
	struct emu_jit_index *idx;
	struct jit_table t0;
	struct chain_guard guard;
	unsigned int start_count;
	uint32_t off;
	bool indexed;
};

/*
 * Where the lookup starts walking: the head (index empty or out of date), or
 * the last sealed table whose first entry is at or below @off. With a sealed
 * table after that one, the candidate is known without a walk: *@done, and
 * the result of its search is returned.
 */
static int start_from_index(struct jit_lookup *l, uint64_t *start, bool *done,
			    struct code_jit_unwind_fre *found, enum emu_jit_fault *fault)
{
	struct table_first cand;
	int64_t k;
	int err;

	*done = false;
	l->indexed = l->idx != NULL;
	if (!l->idx || !l->idx->n)
		return 0;
	k = emu_jit_index_find(l->idx, l->off);
	if (k < 0) {
		*done = true;
		return -ENOENT;
	}
	l->guard.count = (unsigned int)k;
	err = chain_next(l->mem, l->idx->t[k].addr, &l->t0, &l->guard, &cand, fault);
	if (err)
		return err;
	if (!cand.t.n || cand.first.ip_off != l->idx->t[k].first_off) {
		emu_jit_index_reset(l->idx);	/* rewritten: walk it all again */
		return 0;
	}
	l->start_count = (unsigned int)k;
	*start = l->idx->t[k].addr;
	if ((uint32_t)k + 1 == l->idx->n)
		return 0;
	*done = true;
	return search_candidate(l->mem, &cand, l->off, l->idx->t[k + 1].first_off, found, fault);
}

/* Walk the chain from @start (the head, or the last sealed table for @off). */
static int walk_chain(struct jit_lookup *l, uint64_t start, struct code_jit_unwind_fre *found,
		      enum emu_jit_fault *fault)
{
	struct table_first cur, cand = { 0 };
	uint64_t addr, next_first = UINT64_MAX;
	bool have = false;
	int err;

	for (addr = start; addr; addr = cur.t.next) {
		err = chain_next(l->mem, addr, &l->t0, &l->guard, &cur, fault);
		if (err)
			return err;
		if (!cur.t.n) {
			l->indexed = false;
			continue;
		}
		if (have && cur.first.ip_off <= cand.first.ip_off)
			return fail(fault, EMU_JIT_UNSORTED);
		if (l->indexed && cur.t.next && (!l->idx->n || addr != l->idx->t[l->idx->n - 1].addr))
			l->indexed = !emu_jit_index_add(l->idx, addr, cur.first.ip_off);
		else if (!cur.t.next)
			l->indexed = false;
		if (l->off < cur.first.ip_off) {
			next_first = cur.first.ip_off;
			break;
		}
		cand = cur;
		have = true;
	}
	if (!have)
		return -ENOENT;
	return search_candidate(l->mem, &cand, l->off, next_first, found, fault);
}

int emu_jit_find_rule(const struct emu_accessor *mem, const struct emu_arch_info *arch,
		      uint64_t text_start, uint64_t head, uint64_t ip,
		      struct emu_jit_index *idx, struct emu_unwind_rule *rule,
		      enum emu_jit_fault *fault)
{
	struct jit_lookup l = { .mem = mem, .idx = idx, .guard = { .power = 1 } };
	struct code_jit_unwind_fre e;
	uint64_t start = head;
	bool done;
	int err;

	*fault = EMU_JIT_OK;
	if (ip < text_start || ip - text_start > UINT32_MAX)
		return -ENOENT;
	l.off = (uint32_t)(ip - text_start);
	err = next_table(mem, head, NULL, &l.t0, fault);
	if (!err)
		err = start_from_index(&l, &start, &done, &e, fault);
	if (!err && !done) {
		/* the tables before @start count towards the bound */
		l.guard = (struct chain_guard){ .power = 1, .count = l.start_count };
		err = walk_chain(&l, start, &e, fault);
	}
	if (err)
		return err;
	entry_rule(&e, arch, rule);
	rule->code_start = text_start + e.ip_off;
	rule->code_end = rule->code_start + e.size;
	return 0;
}

static const char *const fault_reasons[EMU_JIT_FAULT_COUNT] = {
#define EMU_JIT_FAULT_ROW(id, reason, what) [EMU_JIT_##id] = reason,
	EMU_JIT_FAULTS(EMU_JIT_FAULT_ROW)
#undef EMU_JIT_FAULT_ROW
};

const char *emu_jit_fault_reason(enum emu_jit_fault fault)
{
	if ((unsigned int)fault >= EMU_JIT_FAULT_COUNT || !fault_reasons[fault])
		return "jit-table-invalid";
	return fault_reasons[fault];
}
