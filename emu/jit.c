// SPDX-License-Identifier: GPL-2.0
/*
 * JIT unwind tables: chained, append-only arrays of struct code_jit_unwind_fre
 * in increasing ip_off order. Every read goes through the accessor, and every
 * inconsistency is reported as -EINVAL, never trusted.
 */
#include <linux/codectl.h>

#include "jit.h"

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

/* Last entry with ip_off <= @off in [0, n); entries must be seen in order. */
static int search_table(const struct emu_accessor *mem, const struct jit_table *t, uint32_t off,
			const struct code_jit_unwind_fre *first, const struct code_jit_unwind_fre *last,
			uint64_t *idx, struct code_jit_unwind_fre *found)
{
	uint64_t lo = 1, hi = t->n - 1;
	uint32_t lo_off = first->ip_off, hi_off = last->ip_off;
	struct code_jit_unwind_fre e;

	*found = *first;
	*idx = 0;
	if (off >= last->ip_off) {
		*found = *last;
		*idx = t->n - 1;
		return 0;
	}
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (read_entry(mem, t, mid, &e) || e.ip_off < lo_off || e.ip_off > hi_off)
			return -EINVAL;
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
			    uint64_t idx, const struct code_jit_unwind_fre *e)
{
	struct code_jit_unwind_fre next;

	if (idx + 1 >= t->n)
		return 0;
	if (read_entry(mem, t, idx + 1, &next))
		return -EINVAL;
	return (uint64_t)e->ip_off + e->size > next.ip_off ? -EINVAL : 0;
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

/* Look @off up in one table; -ENOENT to go on with the next, 1 when past it. */
static int lookup_table(const struct emu_accessor *mem, const struct jit_table *t, uint32_t off,
			uint64_t *prev_end, struct code_jit_unwind_fre *found)
{
	struct code_jit_unwind_fre first, last;
	uint64_t idx;

	if (read_entry(mem, t, 0, &first) || read_entry(mem, t, t->n - 1, &last) ||
	    first.ip_off < *prev_end || last.ip_off < first.ip_off)
		return -EINVAL;
	if (off < first.ip_off)
		return 1;
	*prev_end = (uint64_t)last.ip_off + last.size;
	if (off >= *prev_end)
		return -ENOENT;
	if (search_table(mem, t, off, &first, &last, &idx, found) ||
	    check_no_overlap(mem, t, idx, found))
		return -EINVAL;
	return off < (uint64_t)found->ip_off + found->size ? 0 : 1;
}

int emu_jit_find_rule(const struct emu_accessor *mem, const struct emu_arch_info *arch,
		      uint64_t text_start, uint64_t head, uint64_t ip,
		      struct emu_unwind_rule *rule)
{
	struct code_jit_unwind_fre e;
	struct jit_table t, t0 = { 0 };
	uint64_t addr = head, prev_end = 0;
	unsigned int count;
	int err;

	if (ip < text_start || ip - text_start > UINT32_MAX)
		return -ENOENT;
	for (count = 0; addr && count < EMU_JIT_MAX_TABLES; count++, addr = t.next) {
		if (read_table(mem, addr, &t) || table_rule(&t))
			return -EINVAL;
		if (count == 0)
			t0 = t;
		else if (t.stride != t0.stride || t.size != t0.size)
			return -EINVAL;
		t.n = t.used_len >= t.size ? (t.used_len - t.size) / t.stride + 1 : 0;
		if (!t.n)
			continue;
		err = lookup_table(mem, &t, (uint32_t)(ip - text_start), &prev_end, &e);
		if (err == -ENOENT)
			continue;
		if (err)
			return err > 0 ? -ENOENT : err;
		entry_rule(&e, arch, rule);
		return 0;
	}
	return addr ? -EINVAL : -ENOENT;
}
