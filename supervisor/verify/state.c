// SPDX-License-Identifier: GPL-2.0
/*
 * The abstract state of a frame and one instruction's effect on it. Values
 * are CFA-relative offsets, the caller's FP, the return address, or not
 * followed (VK_OTHER); VK_STACK is an address inside the frame at an offset
 * the code does not fix (a realigned or dynamically grown stack); VK_ADDR a
 * fixed address (for jump tables whose base was loaded earlier); VK_UNKNOWN
 * is what disagreeing paths or an unmodelled instruction leave.
 */
#include <string.h>

#include "state.h"
#include "verify.h"

static void note_why(struct vstate *s, uint8_t why, uint64_t at)
{
	if (!s->why) {
		s->why = why;
		s->why_at = at;
	}
}

void vstate_entry(struct vstate *s)
{
	memset(s, 0, sizeof(*s));
	s->reg[VREG_SP] = vval_cfa(-8);
	s->reg[VREG_FP].kind = VK_CALLER_FP;
	s->slot[0] = (struct vslot){ .off = -8, .val = { .kind = VK_RA } };
	s->nslots = 1;
	s->reached = true;
}

struct vval vstate_slot(const struct vstate *s, int32_t off)
{
	for (unsigned int i = 0; i < s->nslots; i++)
		if (s->slot[i].off == off)
			return s->slot[i].val;
	return (struct vval){ .kind = s->slots_lost ? VK_UNKNOWN : VK_OTHER };
}

static void slot_remove(struct vstate *s, unsigned int i)
{
	memmove(&s->slot[i], &s->slot[i + 1], (s->nslots - i - 1) * sizeof(s->slot[0]));
	s->nslots--;
}

/* The slot at CFA + @off now holds @v (slots stay sorted; VK_OTHER is not listed). */
static void slot_set(struct vstate *s, int32_t off, struct vval v)
{
	unsigned int i = 0;

	while (i < s->nslots && s->slot[i].off < off)
		i++;
	if (i < s->nslots && s->slot[i].off == off) {
		if (v.kind == VK_OTHER)
			slot_remove(s, i);
		else
			s->slot[i].val = v;
		return;
	}
	if (v.kind == VK_OTHER)
		return;
	if (s->nslots == VSTATE_SLOTS) {
		s->slots_lost = true;
		return;
	}
	memmove(&s->slot[i + 1], &s->slot[i], (s->nslots - i) * sizeof(s->slot[0]));
	s->slot[i] = (struct vslot){ .off = off, .val = v };
	s->nslots++;
}

/* Any bytes written at CFA + @off: the slots they touch hold something else now. */
static void slot_clobber(struct vstate *s, int32_t off)
{
	for (unsigned int i = 0; i < s->nslots; i++)
		if (s->slot[i].off > off - 8 && s->slot[i].off <= off)
			slot_remove(s, i--);
}

/* SP gets @v: a CFA offset, an address in the frame, or what is not modelled. */
static void set_sp(struct vstate *s, struct vval v, uint64_t at)
{
	if (v.kind != VK_CFA && v.kind != VK_STACK) {
		v = (struct vval){ .kind = VK_UNKNOWN };
		note_why(s, VERIFY_WHY_UNMODELLED, at);
	}
	s->reg[VREG_SP] = v;
}

static void set_reg(struct vstate *s, int r, struct vval v, uint64_t at)
{
	if (r == VREG_SP)
		set_sp(s, v, at);
	else if (r != VREG_NONE)
		s->reg[r] = v;
}

/* The address @m names, as a value: CFA + off, somewhere in the frame, or not the stack. */
static struct vval address(const struct vstate *s, const struct vmem *m)
{
	struct vval b;

	if (!m->scale || m->rip || m->base == VREG_NONE)
		return (struct vval){ .kind = VK_OTHER };
	b = s->reg[m->base];
	if (b.kind == VK_CFA && m->index == VREG_NONE)
		return vval_cfa((int64_t)b.off + m->disp);
	if (b.kind == VK_CFA || b.kind == VK_STACK)
		return (struct vval){ .kind = VK_STACK };
	return (struct vval){ .kind = b.kind == VK_UNKNOWN ? VK_UNKNOWN : VK_OTHER };
}

static struct vval load(const struct vstate *s, const struct vmem *m)
{
	struct vval a = address(s, m);

	if (a.kind == VK_CFA)
		return vstate_slot(s, a.off);
	return (struct vval){ .kind = a.kind == VK_OTHER ? VK_OTHER : VK_UNKNOWN };
}

static struct vval add(struct vval v, int64_t imm)
{
	if (v.kind == VK_CFA)
		return vval_cfa((int64_t)v.off + imm);
	if (v.kind == VK_ADDR) {
		v = vval_cfa((int64_t)v.off + imm);
		if (v.kind == VK_CFA)
			v.kind = VK_ADDR;
		return v;
	}
	if (v.kind == VK_STACK || v.kind == VK_UNKNOWN)
		return v;
	return (struct vval){ .kind = VK_OTHER };
}

static struct vval reg_or_other(const struct vstate *s, int r)
{
	return r == VREG_NONE ? (struct vval){ .kind = VK_OTHER } : s->reg[r];
}

static void push(struct vstate *s, struct vval v, uint64_t at)
{
	struct vval sp = s->reg[VREG_SP];

	if (sp.kind == VK_CFA)
		slot_set(s, sp.off - 8, v);
	set_sp(s, add(sp, -8), at);
}

static struct vval pop(struct vstate *s, uint64_t at)
{
	struct vval sp = s->reg[VREG_SP];
	struct vval v = { .kind = VK_UNKNOWN };

	if (sp.kind == VK_CFA)
		v = vstate_slot(s, sp.off);
	set_sp(s, add(sp, 8), at);
	return v;
}

static void store(struct vstate *s, const struct vinsn *in, bool whole)
{
	struct vval a = address(s, &in->mem);

	if (a.kind != VK_CFA)
		return;		/* not a slot of this frame we can name: assumed not a followed one */
	slot_clobber(s, a.off);
	if (whole)
		slot_set(s, a.off, reg_or_other(s, in->src));
}

/* and $-N, %rsp: without a frame pointer, the CFA stays only in another register (DRAP). */
static void realign(struct vstate *s, uint64_t at)
{
	bool other = false;

	for (int r = 0; r < VREG_COUNT; r++)
		if (r != VREG_SP && r != VREG_FP && s->reg[r].kind == VK_CFA)
			other = true;
	if (s->reg[VREG_FP].kind != VK_CFA)
		note_why(s, other ? VERIFY_WHY_DRAP : VERIFY_WHY_REALIGN, at);
	s->realigned = true;
	s->reg[VREG_SP].kind = VK_STACK;
}

static void leave(struct vstate *s, uint64_t at)
{
	struct vval fp = s->reg[VREG_FP];

	if (fp.kind == VK_CFA) {
		s->reg[VREG_FP] = vstate_slot(s, fp.off);
		set_sp(s, vval_cfa((int64_t)fp.off + 8), at);
		return;
	}
	set_sp(s, fp.kind == VK_STACK ? fp : (struct vval){ .kind = VK_UNKNOWN }, at);
	s->reg[VREG_FP].kind = VK_UNKNOWN;
}

static void clobber(struct vstate *s, uint16_t mask, uint64_t at)
{
	for (int r = 0; r < VREG_COUNT; r++) {
		if (!(mask & (1u << r)))
			continue;
		if (r == VREG_SP)
			set_sp(s, (struct vval){ .kind = VK_UNKNOWN }, at);
		else
			s->reg[r].kind = VK_OTHER;
	}
}

/* A call: the callee may change the caller-saved registers and the stack below SP. */
static void call(struct vstate *s)
{
	struct vval sp = s->reg[VREG_SP];

	for (int r = 0; r < VREG_COUNT; r++)
		if (VREG_CALL_CLOBBERED & (1u << r))
			s->reg[r].kind = VK_OTHER;
	if (sp.kind != VK_CFA)
		return;
	for (unsigned int i = 0; i < s->nslots; i++)
		if (s->slot[i].off < sp.off)
			slot_remove(s, i--);
}

/* lea T(%rip), %reg: the address, counted from @anchor */
static struct vval rip_address(const struct vinsn *in, uint64_t anchor)
{
	struct vval v = vval_cfa((int64_t)((uint64_t)in->mem.disp - anchor));

	if (v.kind == VK_CFA)
		v.kind = VK_ADDR;
	return v;
}

static void step_mem(struct vstate *s, const struct vinsn *in, uint64_t anchor)
{
	switch (in->op) {
	case VO_LEA:
		if (in->mem.rip && in->mem.scale && in->mem.index == VREG_NONE)
			set_reg(s, in->dst, rip_address(in, anchor), in->addr);
		else
			set_reg(s, in->dst, address(s, &in->mem), in->addr);
		break;
	case VO_LOAD:
		set_reg(s, in->dst, load(s, &in->mem), in->addr);
		break;
	case VO_STORE:
	case VO_STORE_SHORT:
		store(s, in, in->op == VO_STORE);
		break;
	}
}

void vstate_step(struct vstate *s, const struct vinsn *in, uint64_t anchor)
{
	struct vval v;

	if (in->flow == VF_CALL) {
		call(s);
		return;
	}
	if (in->flow != VF_NEXT)
		return;
	switch (in->op) {
	case VO_PUSH:
		push(s, reg_or_other(s, in->src), in->addr);
		break;
	case VO_POP:
		v = pop(s, in->addr);
		set_reg(s, in->dst, v, in->addr);
		break;
	case VO_ADD:
		set_reg(s, in->dst, add(s->reg[in->dst], in->imm), in->addr);
		break;
	case VO_MOV:
		set_reg(s, in->dst, s->reg[in->src], in->addr);
		break;
	case VO_REALIGN:
		realign(s, in->addr);
		break;
	case VO_SP_DYNAMIC:
		if (s->reg[VREG_SP].kind != VK_UNKNOWN)
			s->reg[VREG_SP].kind = VK_STACK;
		break;
	case VO_LEAVE:
		leave(s, in->addr);
		break;
	case VO_ENTER:
		push(s, s->reg[VREG_FP], in->addr);
		s->reg[VREG_FP] = s->reg[VREG_SP];
		set_sp(s, add(s->reg[VREG_SP], -in->imm), in->addr);
		break;
	case VO_OTHER:
		clobber(s, in->writes, in->addr);
		break;
	default:
		step_mem(s, in, anchor);
	}
}

static struct vval slot_or_absent(const struct vslot *sl, unsigned int n, bool lost, int32_t off)
{
	for (unsigned int i = 0; i < n; i++)
		if (sl[i].off == off)
			return sl[i].val;
	return (struct vval){ .kind = lost ? VK_UNKNOWN : VK_OTHER };
}

/* The next offset above @off listed in either state (INT64_MAX: none). */
static int64_t next_off(const struct vstate *a, const struct vstate *b, int64_t off)
{
	int64_t best = INT64_MAX;

	for (unsigned int i = 0; i < a->nslots; i++)
		if (a->slot[i].off > off && a->slot[i].off < best)
			best = a->slot[i].off;
	for (unsigned int i = 0; i < b->nslots; i++)
		if (b->slot[i].off > off && b->slot[i].off < best)
			best = b->slot[i].off;
	return best;
}

/* Slots of @a joined with @b's into @out; true when a followed value met another. */
static bool join_slots(const struct vstate *a, const struct vstate *b, struct vstate *out)
{
	bool conflict = false;
	int64_t off = INT64_MIN;

	out->nslots = 0;
	while ((off = next_off(a, b, off)) != INT64_MAX) {
		struct vval va = slot_or_absent(a->slot, a->nslots, a->slots_lost, (int32_t)off);
		struct vval vb = slot_or_absent(b->slot, b->nslots, b->slots_lost, (int32_t)off);

		if (!vval_eq(va, vb)) {
			conflict |= va.kind == VK_CALLER_FP || va.kind == VK_RA ||
				    vb.kind == VK_CALLER_FP || vb.kind == VK_RA;
			va.kind = VK_UNKNOWN;
		}
		if (va.kind == VK_OTHER)
			continue;
		if (out->nslots == VSTATE_SLOTS) {
			out->slots_lost = true;
			continue;
		}
		out->slot[out->nslots++] = (struct vslot){ .off = (int32_t)off, .val = va };
	}
	return conflict;
}

static bool join_regs(struct vstate *into, const struct vstate *from)
{
	bool conflict = false;

	for (int r = 0; r < VREG_COUNT; r++) {
		if (vval_eq(into->reg[r], from->reg[r]) || into->reg[r].kind == VK_UNKNOWN)
			continue;
		into->reg[r].kind = VK_UNKNOWN;
		conflict |= r == VREG_SP || r == VREG_FP;
	}
	return conflict;
}

bool vstate_join(struct vstate *into, const struct vstate *from, uint64_t at, bool after_call)
{
	struct vstate old;
	bool conflict;

	if (!from->reached)
		return false;
	if (!into->reached) {
		*into = *from;
		return true;
	}
	old = *into;
	into->slots_lost |= from->slots_lost;
	into->realigned |= from->realigned;
	conflict = join_regs(into, from);
	conflict |= join_slots(&old, from, into);
	if (conflict)
		note_why(into, after_call ? VERIFY_WHY_CALL : VERIFY_WHY_MERGE, at);
	if (from->why)
		note_why(into, from->why, from->why_at);
	return !vstate_equal(&old, into);
}

bool vstate_equal(const struct vstate *a, const struct vstate *b)
{
	if (a->reached != b->reached || a->nslots != b->nslots || a->slots_lost != b->slots_lost ||
	    a->realigned != b->realigned || a->why != b->why || a->why_at != b->why_at)
		return false;
	for (int r = 0; r < VREG_COUNT; r++)
		if (!vval_eq(a->reg[r], b->reg[r]))
			return false;
	for (unsigned int i = 0; i < a->nslots; i++)
		if (a->slot[i].off != b->slot[i].off || !vval_eq(a->slot[i].val, b->slot[i].val))
			return false;
	return true;
}

bool vstate_tail_shaped(const struct vstate *s)
{
	return vval_eq(s->reg[VREG_SP], vval_cfa(-8)) && vstate_slot(s, -8).kind == VK_RA &&
	       s->reg[VREG_FP].kind == VK_CALLER_FP;
}
