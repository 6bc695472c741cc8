// SPDX-License-Identifier: GPL-2.0
/*
 * The abstract state of a frame and one instruction's effect on it. Values
 * are CFA-relative offsets, the caller's FP, the return address, or not
 * followed (VK_OTHER); VK_STACK is an address inside the frame at an offset
 * the code does not fix (a realigned or dynamically grown stack); VK_ADDR a
 * fixed address (for jump tables whose base was loaded earlier); VK_UNKNOWN
 * is what disagreeing paths or an unmodelled instruction leave.
 */
#include <stdio.h>
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

/* What an unwinder needs, never left out for room: the return address, the caller's FP. */
static bool slot_vital(struct vval v)
{
	return v.kind == VK_RA || v.kind == VK_CALLER_FP;
}

/* The index of the first slot at or above CFA + @off. */
static unsigned int slot_index(const struct vstate *s, int32_t off)
{
	unsigned int i = 0;

	while (i < s->nslots && s->slot[i].off < off)
		i++;
	return i;
}

/* Make room for a vital value: the first slot that is not vital goes. False: none can. */
static bool evict(struct vstate *s)
{
	for (unsigned int i = 0; i < s->nslots; i++)
		if (!slot_vital(s->slot[i].val)) {
			slot_remove(s, i);
			return true;
		}
	return false;
}

/* The slot at CFA + @off now holds @v (slots stay sorted; VK_OTHER is not listed). */
static void slot_set(struct vstate *s, int32_t off, struct vval v)
{
	unsigned int i = slot_index(s, off);

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
		if (!slot_vital(v) || !evict(s))
			return;
		i = slot_index(s, off);
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

/* Is SP, FP or a followed slot unknown? */
static bool frame_unknown(const struct vstate *s)
{
	if (s->reg[VREG_SP].kind == VK_UNKNOWN || s->reg[VREG_FP].kind == VK_UNKNOWN)
		return true;
	for (unsigned int i = 0; i < s->nslots; i++)
		if (s->slot[i].val.kind == VK_UNKNOWN)
			return true;
	return false;
}

/*
 * A merge's disagreement that the code has since resolved (SP set from FP
 * again, say) explains nothing after it: the next one is reported as itself.
 */
static void forget_resolved(struct vstate *s)
{
	if ((s->why == VERIFY_WHY_MERGE || s->why == VERIFY_WHY_CALL) && !frame_unknown(s)) {
		s->why = 0;
		s->why_at = 0;
		s->conflict = (struct vconflict){ 0 };
	}
}

static void step(struct vstate *s, const struct vinsn *in, uint64_t anchor)
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

void vstate_step(struct vstate *s, const struct vinsn *in, uint64_t anchor)
{
	s->from = in->addr;
	step(s, in, anchor);
	forget_resolved(s);
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

/*
 * Keep the first thing that disagreed at a merge (a register, or a slot: @reg
 * VREG_NONE); @c is all zero until then (values that disagree are never
 * both VK_OTHER, 0).
 */
static void note_conflict(struct vconflict *c, int reg, int32_t slot, struct vval here,
			  struct vval there, uint64_t from)
{
	if (c->here.kind || c->there.kind)
		return;
	*c = (struct vconflict){ .from = from, .slot = slot, .reg = (int8_t)reg, .here = here,
				 .there = there };
}

/*
 * Leave @n joined slots of @v (sorted) to at most VSTATE_SLOTS: those that
 * are not vital go first, from the lowest offset (then, were there more
 * vital ones than that, the lowest of them).
 */
static unsigned int trim_slots(struct vslot *v, unsigned int n, struct vstate *out)
{
	for (int pass = 0; pass < 2; pass++)
		for (unsigned int i = 0; n > VSTATE_SLOTS && i < n;) {
			if (!pass && slot_vital(v[i].val)) {
				i++;
				continue;
			}
			memmove(&v[i], &v[i + 1], (n - i - 1) * sizeof(*v));
			n--;
			out->slots_lost = true;
		}
	return n;
}

/* Slots of @a joined with @b's into @out; true when a followed value met another. */
static bool join_slots(const struct vstate *a, const struct vstate *b, struct vstate *out,
		       struct vconflict *c)
{
	struct vslot v[2 * VSTATE_SLOTS];
	bool conflict = false, vital;
	int64_t off = INT64_MIN;
	unsigned int n = 0;

	while ((off = next_off(a, b, off)) != INT64_MAX) {
		struct vval va = slot_or_absent(a->slot, a->nslots, a->slots_lost, (int32_t)off);
		struct vval vb = slot_or_absent(b->slot, b->nslots, b->slots_lost, (int32_t)off);

		if (!vval_eq(va, vb)) {
			vital = slot_vital(va) || slot_vital(vb);
			if (vital)
				note_conflict(c, VREG_NONE, (int32_t)off, va, vb, b->from);
			conflict |= vital;
			va.kind = VK_UNKNOWN;
		}
		if (va.kind != VK_OTHER)
			v[n++] = (struct vslot){ .off = (int32_t)off, .val = va };
	}
	n = trim_slots(v, n, out);
	memcpy(out->slot, v, n * sizeof(*v));
	out->nslots = (uint8_t)n;
	return conflict;
}

static bool join_regs(struct vstate *into, const struct vstate *from, struct vconflict *c)
{
	bool conflict = false;

	for (int r = 0; r < VREG_COUNT; r++) {
		if (vval_eq(into->reg[r], from->reg[r]) || into->reg[r].kind == VK_UNKNOWN)
			continue;
		if (r == VREG_SP || r == VREG_FP) {
			note_conflict(c, r, 0, into->reg[r], from->reg[r], from->from);
			conflict = true;
		}
		into->reg[r].kind = VK_UNKNOWN;
	}
	return conflict;
}

bool vstate_join(struct vstate *into, const struct vstate *from, uint64_t at, bool after_call)
{
	struct vconflict c = { 0 };
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
	conflict = join_regs(into, from, &c);
	conflict |= join_slots(&old, from, into, &c);
	/* a value already unknown on the path that comes: its cause is that path's */
	if (conflict && !into->why && !(c.there.kind == VK_UNKNOWN && from->why)) {
		note_why(into, after_call ? VERIFY_WHY_CALL : VERIFY_WHY_MERGE, at);
		into->conflict = c;
	}
	if (from->why && !into->why) {
		note_why(into, from->why, from->why_at);
		into->conflict = from->conflict;
	}
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

/* "CFA-16", "the caller's FP", ...: what @v is, for a report. */
static void vval_text(struct vval v, char *buf, size_t size)
{
	static const char *const kinds[] = {
		[VK_OTHER] = "a value not followed", [VK_UNKNOWN] = "unknown",
		[VK_STACK] = "an address in the frame", [VK_ADDR] = "a fixed address",
		[VK_CALLER_FP] = "the caller's FP", [VK_RA] = "the return address",
	};

	if (v.kind == VK_CFA)
		snprintf(buf, size, "CFA%+d", v.off);
	else
		snprintf(buf, size, "%s", v.kind < sizeof(kinds) / sizeof(kinds[0]) &&
			 kinds[v.kind] ? kinds[v.kind] : "?");
}

void vconflict_text(const struct vconflict *c, char *buf, size_t size)
{
	char what[32], here[40], there[40], from[48];

	if (c->reg == VREG_NONE)
		snprintf(what, sizeof(what), "the slot at CFA%+d", c->slot);
	else
		snprintf(what, sizeof(what), "%s", vreg_name((unsigned int)c->reg));
	vval_text(c->here, here, sizeof(here));
	vval_text(c->there, there, sizeof(there));
	if (c->from)
		snprintf(from, sizeof(from), "the path from %#llx", (unsigned long long)c->from);
	else
		snprintf(from, sizeof(from), "a jump from another function");
	snprintf(buf, size, "%s is %s on one path, %s on %s", what, here, there, from);
}
