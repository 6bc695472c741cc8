/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 instructions as the stack analysis sees them: where control goes
 * next, and what the instruction does to the registers and stack slots the
 * analysis follows (SP, FP and any register or slot holding a CFA-relative
 * value, the caller's FP or the return address). Decoded with capstone.
 */
#ifndef SUPERVISOR_VERIFY_INSN_H
#define SUPERVISOR_VERIFY_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DWARF numbers of the x86-64 general-purpose registers the analysis follows. */
#define VREG_SP 7
#define VREG_FP 6
#define VREG_COUNT 16
#define VREG_NONE (-1)

/* Caller-saved registers (SysV x86-64 ABI): rax rdx rcx rsi rdi r8-r11. */
#define VREG_CALL_CLOBBERED 0x0f37u

enum vflow {
	VF_NEXT,	/* falls through */
	VF_JMP,		/* unconditional jump */
	VF_JCC,		/* conditional jump: the target or the next instruction */
	VF_CALL,	/* a call: the next instruction unless the callee never returns */
	VF_RET,		/* returns: the path ends */
	VF_STOP,	/* ud2, hlt, int3: the path ends */
	VF_INVALID,	/* bytes that do not decode (one byte long) */
};

enum vop {
	VO_OTHER,	/* writes the registers in @writes with values not followed */
	VO_PUSH,	/* SP -= 8, [SP] = @src (VREG_NONE: a value not followed) */
	VO_POP,		/* @dst = [SP], SP += 8 (@dst VREG_NONE: discarded) */
	VO_ADD,		/* @dst += @imm (64-bit) */
	VO_MOV,		/* @dst = @src (64-bit registers) */
	VO_LEA,		/* @dst = @mem's address */
	VO_LOAD,	/* @dst = 8 bytes at @mem */
	VO_STORE,	/* 8 bytes at @mem = @src (VREG_NONE: a value not followed) */
	VO_STORE_SHORT,	/* fewer than 8 bytes at @mem: that slot is overwritten */
	VO_REALIGN,	/* and $imm, %rsp */
	VO_SP_DYNAMIC,	/* SP changed by an amount not known here (sub %reg, %rsp) */
	VO_LEAVE,	/* SP = FP, then pop FP */
	VO_ENTER,	/* push FP, FP = SP, SP -= @imm */
};

/**
 * struct vmem - a memory operand: @base + @index * @scale + @disp
 * @base, @index: VREG numbers or VREG_NONE; @rip: @disp is the absolute address
 */
struct vmem {
	int8_t base;
	int8_t index;
	uint8_t scale;
	bool rip;
	int64_t disp;
};

/**
 * struct vinsn - one decoded instruction
 * @addr, @len: where and how long (bytes)
 * @flow: enum vflow; @indirect: a jump or call through a register or memory
 * @target: a direct jump's or call's destination
 * @op: enum vop; @dst, @src: VREG numbers or VREG_NONE; @imm: an immediate
 * @mem: the memory operand of VO_LEA/LOAD/STORE and of indirect jumps
 * @writes: every general-purpose register the instruction writes, as a bit
 *	mask of VREG numbers (capstone's register access lists)
 * @cmp: a 64-bit "cmp %reg, %reg" (or "cmp $imm, %reg" when @src is
 *	VREG_NONE): @dst and @src compared, for the refinements at a
 *	following conditional jump and the bound of a jump table
 * @nop: padding (nop, int3): unreachable ones are not counted
 * @cond_eq: a jump taken when ZF is set (je), @cond_ne when clear (jne)
 * @cond_above: ja, @cond_ae: jae (the bound check before a jump table)
 * @add_rr: add %@src, %@dst, both 64-bit (a jump table's base added)
 */
struct vinsn {
	uint64_t addr;
	uint64_t target;
	int64_t imm;
	struct vmem mem;
	uint16_t writes;
	uint8_t len;
	uint8_t flow;
	uint8_t op;
	int8_t dst;
	int8_t src;
	bool indirect;
	bool cmp;
	bool nop;
	bool cond_eq;
	bool cond_ne;
	bool cond_above;
	bool cond_ae;
	bool add_rr;
};

struct vdecoder;

/**
 * vdecoder_new() - a capstone x86-64 decoder with details
 * Return: it, or NULL with errno ENOMEM, or ELIBACC (libcapstone cannot be
 * loaded: x86_decoder_init()).
 */
struct vdecoder *vdecoder_new(void);

/** vdecoder_free() - release it (NULL is fine). */
void vdecoder_free(struct vdecoder *d);

/**
 * vdecode() - decode one instruction at @addr from @len bytes at @code
 * Return: its length (1-15), or 0 when the bytes do not decode (@out is
 * then a VF_INVALID one-byte instruction).
 */
unsigned int vdecode(struct vdecoder *d, const uint8_t *code, size_t len, uint64_t addr,
		     struct vinsn *out);

/** vreg_name() - "rax", ..., "FP", "SP", ..., "r15" for VREG number @reg; "?" beyond. */
const char *vreg_name(unsigned int reg);

#endif /* SUPERVISOR_VERIFY_INSN_H */
