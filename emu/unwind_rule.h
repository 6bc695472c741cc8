/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The neutral unwind rule: what SFrame FREs and JIT table entries decode to,
 * and all the frame walker knows of them (codectl-abi.md, "Unwinding" step 3).
 */
#ifndef EMU_UNWIND_RULE_H
#define EMU_UNWIND_RULE_H

#include <stdbool.h>
#include <stdint.h>

enum emu_cfa_base {
	EMU_CFA_SP,		/* CFA from the stack pointer */
	EMU_CFA_FP,		/* CFA from the frame pointer (requires FP >= SP) */
	EMU_CFA_REG,		/* CFA from another register: first frame only */
};

enum emu_loc_kind {
	EMU_LOC_SAME,		/* FP: unchanged; RA: still in the RA register (first frame
				 * only; x86-64 has none: a step refuses it) */
	EMU_LOC_CFA_DEREF,	/* value at CFA + off */
	EMU_LOC_CFA,		/* CFA + off itself: no RA or FP is ever that (a step refuses it) */
	EMU_LOC_REG,		/* register + off */
	EMU_LOC_REG_DEREF,	/* value at register + off */
};

/** struct emu_loc_rule - where a caller's RA or FP is; @reg is a DWARF number */
struct emu_loc_rule {
	uint8_t kind;
	uint8_t reg;
	int64_t off;
};

/**
 * struct emu_unwind_rule - how to step from one frame to its caller
 * @cfa_base, @cfa_reg, @cfa_off, @cfa_deref: CFA = base + off, or the word
 *	at base + off when @cfa_deref (v3 FLEX, e.g. DRAP "*(FP - 8)")
 * @ra, @fp: the caller's return address and frame pointer
 * @outermost: no caller; the walk ends here (an FRE without offsets)
 * @signal_frame: the function is a signal trampoline (v3 signal bit)
 * @ra_mangled: AArch64 PAC-signed return address
 * @code_start, @code_end: the code the rule was found in, [start, end): its
 *	FDE's function or its JIT entry; 0 when unknown. A return address equal
 *	to @code_end points past the function: maybe at a signal trampoline
 *	right after.
 * The caller's SP is the CFA.
 */
struct emu_unwind_rule {
	uint8_t cfa_base;
	uint8_t cfa_reg;
	bool cfa_deref;
	int64_t cfa_off;
	struct emu_loc_rule ra;
	struct emu_loc_rule fp;
	bool outermost;
	bool signal_frame;
	bool ra_mangled;
	uint64_t code_start;
	uint64_t code_end;
};

#endif /* EMU_UNWIND_RULE_H */
