/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The abstract state of one frame before an instruction: what each
 * general-purpose register and each followed stack slot holds, relative to
 * the function's CFA (the SP before the call that entered it, plus 8), and
 * the step of one instruction over it (the transfer function) and the join
 * of two states where control flow merges.
 */
#ifndef SUPERVISOR_VERIFY_STATE_H
#define SUPERVISOR_VERIFY_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "insn.h"

enum vkind {
	VK_OTHER = 0,	/* a value the analysis does not follow (not CFA-relative) */
	VK_UNKNOWN,	/* the paths that meet here disagree, or not modelled */
	VK_STACK,	/* an address in this frame at an offset the code does not fix */
	VK_ADDR,	/* a fixed address, anchor + off (lea T(%rip)): a jump table's base */
	VK_CFA,		/* CFA + off */
	VK_CALLER_FP,	/* the caller's frame pointer */
	VK_RA,		/* the return address */
};

/** struct vval - an abstract value: @kind, and @off for VK_CFA and VK_ADDR (bytes) */
struct vval {
	int32_t off;
	uint8_t kind;
};

/* Stack slots followed per state: the saved FP, the RA, a DRAP register's copy, ... */
#define VSTATE_SLOTS 8

/** struct vslot - the 8-byte word at CFA + @off holds @val (@val never VK_OTHER) */
struct vslot {
	int32_t off;
	struct vval val;
};

/**
 * struct vconflict - what disagreed where paths met: register @reg, or (with
 *	@reg VREG_NONE) the slot at CFA + @slot; @here on the path that was
 *	there first, @there on the one from the instruction at @from (0: a jump
 *	from another function)
 */
struct vconflict {
	uint64_t from;
	int32_t slot;
	int8_t reg;
	struct vval here;
	struct vval there;
};

/**
 * struct vstate - the state before one instruction
 * @reg: by VREG number; @slot: the followed slots, sorted by offset
 * @reached: some path reaches the instruction
 * @slots_lost: more slots were written than followed: a slot not listed
 *	may hold anything (VK_UNKNOWN) rather than a value not followed. The
 *	return address and the caller's FP are never the ones left out.
 * @realigned: SP was realigned (and $imm, %rsp) on some path here
 * @why, @why_at: the first reason something became VK_UNKNOWN, and where
 * @conflict: with @why MERGE or CALL, what disagreed
 * @from: the instruction whose step gave this state (not compared: for
 *	@conflict's report)
 */
struct vstate {
	struct vval reg[VREG_COUNT];
	struct vslot slot[VSTATE_SLOTS];
	uint8_t nslots;
	bool reached;
	bool slots_lost;
	bool realigned;
	uint8_t why;
	uint64_t why_at;
	struct vconflict conflict;
	uint64_t from;
};

/** vstate_entry() - a function's state at its entry: SP = CFA - 8, the RA there, FP the caller's. */
void vstate_entry(struct vstate *s);

/**
 * vstate_step() - @s after the effect of @in on registers and slots
 * (control flow is the caller's: calls clobber the caller-saved registers
 * here, as the ABI lets the callee do); @anchor: VK_ADDR values count from it
 */
void vstate_step(struct vstate *s, const struct vinsn *in, uint64_t anchor);

/**
 * vstate_join() - merge @from into @into (a control-flow merge at @at)
 * Values that differ become VK_UNKNOWN with the reason MERGE (or CALL when
 * @after_call: the merge follows a call that may not return).
 * Return: @into changed (or was not reached before).
 */
bool vstate_join(struct vstate *into, const struct vstate *from, uint64_t at, bool after_call);

/** vstate_equal() - @a and @b say the same (reached, registers, slots). */
bool vstate_equal(const struct vstate *a, const struct vstate *b);

/** vstate_slot() - the value of the slot at CFA + @off (VK_OTHER or VK_UNKNOWN when not followed). */
struct vval vstate_slot(const struct vstate *s, int32_t off);

/** vstate_tail_shaped() - SP = CFA - 8, the RA there, FP the caller's: as at an entry. */
bool vstate_tail_shaped(const struct vstate *s);

/**
 * vconflict_text() - @c as a clause into @buf: "FP is CFA-16 on one path, a
 * value not followed on the path from 0x4687"
 */
void vconflict_text(const struct vconflict *c, char *buf, size_t size);

/** vval_eq() - @a and @b are the same abstract value. */
static inline bool vval_eq(struct vval a, struct vval b)
{
	return a.kind == b.kind && ((a.kind != VK_CFA && a.kind != VK_ADDR) || a.off == b.off);
}

/** vval_cfa() - a CFA-relative value. */
static inline struct vval vval_cfa(int64_t off)
{
	if (off < INT32_MIN || off > INT32_MAX)
		return (struct vval){ .kind = VK_OTHER };
	return (struct vval){ .kind = VK_CFA, .off = (int32_t)off };
}

#endif /* SUPERVISOR_VERIFY_STATE_H */
