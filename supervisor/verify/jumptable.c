// SPDX-License-Identifier: GPL-2.0
/*
 * Jump tables in the two forms GCC and Clang emit for x86-64 switches:
 *
 *	PIC:	lea T(%rip), %rB; movslq (%rB,%rI,4), %rR; add %rB, %rR; jmp *%rR
 *		(entries: 32-bit offsets from T; at -O0 the load differs)
 *	non-PIC: jmp *T(,%rI,8)
 *		(entries: 64-bit addresses)
 *
 * and either with T loaded into a register earlier (out of a loop, or for
 * a computed goto's dispatch table: mov (%rB,%rI,8), %rR; jmp *%rR), read
 * from the analysis' state there (VK_ADDR).
 *
 * The entry count comes from the bound check before it ("cmp $N, %rI;
 * ja/jae"), else entries are read while they land on instructions of the
 * function (at most VERIFY_MAX_TABLE). Entries that land outside the
 * function or inside an instruction are left out.
 */
#include "analysis.h"

#define LOOK_BACK 16u

/** struct vtable - a jump table: @base, 4-byte relative or 8-byte absolute entries, @count (0: not known) */
struct vtable {
	uint64_t base;
	bool relative;
	unsigned int count;
};

static bool block_end(const struct vinsn *in)
{
	return in->flow == VF_JMP || in->flow == VF_RET || in->flow == VF_STOP ||
	       in->flow == VF_INVALID;
}

/*
 * The bound check before instruction @k: "cmp $N, X; ja" (N + 1 entries)
 * or "jae" (N), the last such before the table is read. X is the index
 * register, or at -O0 its stack slot.
 */
static unsigned int bound(const struct vfunc *f, uint32_t k)
{
	for (uint32_t n = 0; k-- > 1 && n < 2 * LOOK_BACK && !block_end(&f->insn[k]); n++) {
		const struct vinsn *j = &f->insn[k], *c = &f->insn[k - 1];

		if (j->flow != VF_JCC || !(j->cond_above || j->cond_ae))
			continue;
		if (!c->cmp || c->src != VREG_NONE || c->imm < 0 || c->imm >= VERIFY_MAX_TABLE)
			return 0;
		return (unsigned int)c->imm + j->cond_above;
	}
	return 0;
}

/* The fixed address register @reg holds before instruction @k, if the analysis knows it. */
static bool addr_in(const struct vctx *cx, const struct vfunc *f, uint32_t k, int reg,
		    uint64_t *out)
{
	const struct vstate *s = &f->in[k];

	if (!s->reached || reg == VREG_NONE || s->reg[reg].kind != VK_ADDR)
		return false;
	*out = cx->anchor + (uint64_t)(int64_t)s->reg[reg].off;
	return true;
}

/*
 * The PIC form ending at the "jmp *%rR" at @i: "add %rB, %rR" before it,
 * "lea T(%rip), %rB" before that, or T in B already; the entries are 32-bit
 * offsets from T (GCC and Clang, -O0 to -O3). Or "mov (%rB,%rI,8), %rR"
 * with T in B: 64-bit addresses.
 */
static bool pic_table(const struct vctx *cx, const struct vfunc *f, uint32_t i,
		      struct vtable *tb)
{
	int r = f->insn[i].src, b = VREG_NONE;
	uint32_t k = i;

	for (uint32_t n = 0; k-- > 0 && n < LOOK_BACK && !block_end(&f->insn[k]); n++) {
		const struct vinsn *in = &f->insn[k];

		if (b == VREG_NONE && in->op == VO_LOAD && in->dst == r && in->mem.scale == 8 &&
		    in->mem.index != VREG_NONE && addr_in(cx, f, k, in->mem.base, &tb->base)) {
			tb->relative = false;
			tb->count = bound(f, k);
			return true;
		}
		if (b == VREG_NONE && in->add_rr && in->dst == r) {
			b = in->src;
			if (!addr_in(cx, f, k, b, &tb->base))
				continue;
			tb->relative = true;
			tb->count = bound(f, k);
			return true;
		} else if (b != VREG_NONE && in->op == VO_LEA && in->dst == b && in->mem.rip &&
			   in->mem.index == VREG_NONE) {
			*tb = (struct vtable){ .base = (uint64_t)in->mem.disp, .relative = true,
					       .count = bound(f, k) };
			return true;
		} else if (b != VREG_NONE && (in->writes & (1u << b))) {
			return false;	/* the base comes from elsewhere */
		}
	}
	return false;
}

static bool table_of(const struct vctx *cx, const struct vfunc *f, uint32_t i, struct vtable *tb)
{
	const struct vinsn *j = &f->insn[i];

	if (j->mem.scale == 8 && j->mem.base == VREG_NONE && j->mem.index != VREG_NONE &&
	    !j->mem.rip) {
		*tb = (struct vtable){ .base = (uint64_t)j->mem.disp,
				       .count = bound(f, i) };
		return true;
	}
	return j->src != VREG_NONE && pic_table(cx, f, i, tb);
}

/* Entry @e of @tb as an address; false when unreadable. */
static bool entry(const struct vctx *cx, const struct vtable *tb, unsigned int e, uint64_t *out)
{
	int32_t rel;

	if (!tb->relative)
		return !emu_read(cx->t->mem, tb->base + 8ull * e, out, 8);
	if (emu_read(cx->t->mem, tb->base + 4ull * e, &rel, 4))
		return false;
	*out = tb->base + (uint64_t)(int64_t)rel;
	return true;
}

/**
 * vtable_targets() - the targets of the indirect jump at instruction @i when
 * it reads a jump table; 0 when it does not (or none could be read)
 */
int vtable_targets(struct vctx *cx, const struct vfunc *f, uint32_t i, uint64_t *out,
		   unsigned int max)
{
	struct vtable tb;
	unsigned int n = 0, limit;

	if (!table_of(cx, f, i, &tb))
		return 0;
	limit = tb.count && tb.count < max ? tb.count : max;
	for (unsigned int e = 0; e < limit; e++) {
		uint64_t t;

		if (!entry(cx, &tb, e, &t))
			break;
		if (!tb.relative && (t < f->start || t >= f->end))
			t += cx->t->bias;	/* not relocated yet */
		if (t < f->start || t >= f->end || vfunc_find(f, t) < 0) {
			if (!tb.count)
				break;	/* past the table's end, most likely */
			continue;
		}
		out[n++] = t;
	}
	return (int)n;
}
