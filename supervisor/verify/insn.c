// SPDX-License-Identifier: GPL-2.0
/* x86-64 instructions decoded with capstone into what the stack analysis needs. */
#include <errno.h>
#include <stdlib.h>

#include "insn.h"
#include "supervisor/core/x86_decoder.h"

/* capstone 5 renamed UD2B (0f b9) to UD1 */
#if CS_API_MAJOR >= 5
#define VINS_UD1 X86_INS_UD1
#else
#define VINS_UD1 X86_INS_UD2B
#endif

/**
 * struct vdecoder - capstone's x86-64 decoder (its @insn: the instruction
 * decoded last)
 */
struct vdecoder {
	struct x86_decoder dec;
};

/* VREG number + 1 of each general-purpose register name (0: not one). */
#define R(reg, n) [X86_REG_##reg] = (n) + 1
static const int8_t gpr_table[X86_REG_ENDING] = {
	R(RAX, 0), R(EAX, 0), R(AX, 0), R(AL, 0), R(AH, 0),
	R(RDX, 1), R(EDX, 1), R(DX, 1), R(DL, 1), R(DH, 1),
	R(RCX, 2), R(ECX, 2), R(CX, 2), R(CL, 2), R(CH, 2),
	R(RBX, 3), R(EBX, 3), R(BX, 3), R(BL, 3), R(BH, 3),
	R(RSI, 4), R(ESI, 4), R(SI, 4), R(SIL, 4),
	R(RDI, 5), R(EDI, 5), R(DI, 5), R(DIL, 5),
	R(RBP, 6), R(EBP, 6), R(BP, 6), R(BPL, 6),
	R(RSP, 7), R(ESP, 7), R(SP, 7), R(SPL, 7),
	R(R8, 8), R(R8D, 8), R(R8W, 8), R(R8B, 8),
	R(R9, 9), R(R9D, 9), R(R9W, 9), R(R9B, 9),
	R(R10, 10), R(R10D, 10), R(R10W, 10), R(R10B, 10),
	R(R11, 11), R(R11D, 11), R(R11W, 11), R(R11B, 11),
	R(R12, 12), R(R12D, 12), R(R12W, 12), R(R12B, 12),
	R(R13, 13), R(R13D, 13), R(R13W, 13), R(R13B, 13),
	R(R14, 14), R(R14D, 14), R(R14W, 14), R(R14B, 14),
	R(R15, 15), R(R15D, 15), R(R15W, 15), R(R15B, 15),
};
#undef R

/* The 64-bit registers, by VREG number. */
static const uint16_t full_reg[VREG_COUNT] = {
	X86_REG_RAX, X86_REG_RDX, X86_REG_RCX, X86_REG_RBX, X86_REG_RSI, X86_REG_RDI,
	X86_REG_RBP, X86_REG_RSP, X86_REG_R8, X86_REG_R9, X86_REG_R10, X86_REG_R11,
	X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
};

struct vdecoder *vdecoder_new(void)
{
	struct vdecoder *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return NULL;
	err = x86_decoder_init(&d->dec);
	if (err) {
		free(d);
		errno = -err;
		return NULL;
	}
	return d;
}

const char *vreg_name(unsigned int reg)
{
	static const char *const names[VREG_COUNT] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi",
							"FP", "SP", "r8", "r9", "r10", "r11",
							"r12", "r13", "r14", "r15" };

	return reg < VREG_COUNT ? names[reg] : "?";
}

void vdecoder_free(struct vdecoder *d)
{
	if (!d)
		return;
	x86_decoder_fini(&d->dec);
	free(d);
}

/* The VREG number of @reg, any width; VREG_NONE when it is no GPR. */
static int gpr_any(unsigned int reg)
{
	return reg < X86_REG_ENDING && gpr_table[reg] ? gpr_table[reg] - 1 : VREG_NONE;
}

/* The VREG number of @reg if it is a whole 64-bit GPR, else VREG_NONE. */
static int gpr64(unsigned int reg)
{
	int g = gpr_any(reg);

	return g != VREG_NONE && full_reg[g] == reg ? g : VREG_NONE;
}

static const cs_x86_op *op(const struct vdecoder *d, unsigned int i)
{
	return &d->dec.insn->detail->x86.operands[i];
}

static unsigned int nops(const struct vdecoder *d)
{
	return d->dec.insn->detail->x86.op_count;
}

static bool is_reg64(const cs_x86_op *o)
{
	return o->type == X86_OP_REG && gpr64(o->reg) != VREG_NONE;
}

/* A memory operand: 64-bit base and index only; a segment override is not the stack. */
static struct vmem mem_of(const struct vdecoder *d, const cs_x86_op *o)
{
	struct vmem m = { .base = VREG_NONE, .index = VREG_NONE, .disp = o->mem.disp };

	if (o->mem.segment != X86_REG_INVALID)
		return m;	/* scale 0: not usable */
	if (o->mem.base == X86_REG_RIP) {
		m.rip = true;
		m.disp += (int64_t)(d->dec.insn->address + d->dec.insn->size);
	} else if (o->mem.base != X86_REG_INVALID) {
		m.base = (int8_t)gpr64(o->mem.base);
		if (m.base == VREG_NONE)
			return m;
	}
	if (o->mem.index != X86_REG_INVALID) {
		m.index = (int8_t)gpr64(o->mem.index);
		if (m.index == VREG_NONE)
			return m;
	}
	m.scale = (uint8_t)(o->mem.scale ? o->mem.scale : 1);
	return m;
}

/* Every GPR the instruction writes, explicitly or not. */
static uint16_t written_gprs(const struct vdecoder *d)
{
	cs_regs rd, wr;
	uint8_t nrd = 0, nwr = 0;
	uint16_t mask = 0;

	if (!x86_decoder_regs_access(&d->dec, rd, &nrd, wr, &nwr))
		return 0xffff;
	for (unsigned int i = 0; i < nwr; i++) {
		int g = gpr_any(wr[i]);

		if (g != VREG_NONE)
			mask |= (uint16_t)(1u << g);
	}
	return mask;
}

static void branch_target(const struct vdecoder *d, struct vinsn *v)
{
	const cs_x86_op *o = op(d, 0);

	if (nops(d) == 1 && o->type == X86_OP_IMM) {
		v->target = (uint64_t)o->imm;
		return;
	}
	v->indirect = true;
	if (nops(d) == 1 && o->type == X86_OP_MEM)
		v->mem = mem_of(d, o);
	else if (nops(d) == 1 && o->type == X86_OP_REG)
		v->src = (int8_t)gpr64(o->reg);
}

static void jump_kind(const struct vdecoder *d, struct vinsn *v)
{
	unsigned int id = d->dec.insn->id;

	v->flow = id == X86_INS_JMP ? VF_JMP : VF_JCC;
	v->cond_eq = id == X86_INS_JE;
	v->cond_ne = id == X86_INS_JNE;
	v->cond_above = id == X86_INS_JA;
	v->cond_ae = id == X86_INS_JAE;
	if (id == X86_INS_LJMP)
		v->flow = VF_STOP;
	else
		branch_target(d, v);
}

/* Where control goes after the instruction; false: it falls through. */
static bool classify_flow(const struct vdecoder *d, struct vinsn *v)
{
	unsigned int id = d->dec.insn->id;

	if (x86_decoder_in_group(&d->dec, CS_GRP_JUMP)) {
		jump_kind(d, v);
	} else if (x86_decoder_in_group(&d->dec, CS_GRP_CALL)) {
		v->flow = VF_CALL;
		branch_target(d, v);
	} else if (x86_decoder_in_group(&d->dec, CS_GRP_RET) ||
		   x86_decoder_in_group(&d->dec, CS_GRP_IRET)) {
		v->flow = VF_RET;
	} else if (id == X86_INS_HLT || id == X86_INS_UD2 || id == X86_INS_UD0 || id == VINS_UD1 ||
		   id == X86_INS_INT3) {
		v->flow = VF_STOP;
		v->nop = id == X86_INS_INT3;
	} else {
		return false;
	}
	return true;
}

static void classify_push_pop(const struct vdecoder *d, struct vinsn *v, bool push)
{
	const cs_x86_op *o = op(d, 0);

	if (nops(d) == 1 && o->size != 8)
		return;		/* a 2-byte push or pop: not modelled (VO_OTHER) */
	v->op = push ? VO_PUSH : VO_POP;
	if (nops(d) == 1 && is_reg64(o)) {
		if (push)
			v->src = (int8_t)gpr64(o->reg);
		else
			v->dst = (int8_t)gpr64(o->reg);
	}
}

static void classify_add(const struct vdecoder *d, struct vinsn *v, bool sub)
{
	const cs_x86_op *a = op(d, 0), *b = op(d, 1);

	if (nops(d) != 2 || !is_reg64(a))
		return;
	if (b->type == X86_OP_IMM) {
		v->op = VO_ADD;
		v->dst = (int8_t)gpr64(a->reg);
		v->imm = sub ? -b->imm : b->imm;
	} else if (gpr64(a->reg) == VREG_SP) {
		v->op = VO_SP_DYNAMIC;
	} else if (!sub && is_reg64(b)) {
		v->add_rr = true;
		v->dst = (int8_t)gpr64(a->reg);
		v->src = (int8_t)gpr64(b->reg);
	}
}

static void classify_mov(const struct vdecoder *d, struct vinsn *v)
{
	const cs_x86_op *a = op(d, 0), *b = op(d, 1);

	if (nops(d) != 2)
		return;
	if (is_reg64(a) && is_reg64(b)) {
		v->op = VO_MOV;
		v->dst = (int8_t)gpr64(a->reg);
		v->src = (int8_t)gpr64(b->reg);
	} else if (is_reg64(a) && b->type == X86_OP_MEM) {
		v->op = VO_LOAD;
		v->dst = (int8_t)gpr64(a->reg);
		v->mem = mem_of(d, b);
	} else if (a->type == X86_OP_MEM) {
		v->op = a->size == 8 ? VO_STORE : VO_STORE_SHORT;
		v->mem = mem_of(d, a);
		if (is_reg64(b))
			v->src = (int8_t)gpr64(b->reg);
	}
}

static void classify_cmp(const struct vdecoder *d, struct vinsn *v)
{
	const cs_x86_op *a = op(d, 0), *b = op(d, 1);

	if (nops(d) != 2)
		return;
	if (b->type == X86_OP_IMM && (a->type == X86_OP_MEM || gpr_any(a->reg) != VREG_NONE)) {
		v->cmp = true;	/* the register (VREG_NONE: memory) against an immediate */
		v->dst = (int8_t)(a->type == X86_OP_REG ? gpr_any(a->reg) : VREG_NONE);
		v->imm = b->imm;
	} else if (a->type != X86_OP_REG || gpr_any(a->reg) == VREG_NONE) {
		return;
	} else if (is_reg64(a) && is_reg64(b)) {
		v->cmp = true;
		v->dst = (int8_t)gpr64(a->reg);
		v->src = (int8_t)gpr64(b->reg);
	}
}

static void classify_lea(const struct vdecoder *d, struct vinsn *v)
{
	if (nops(d) != 2 || !is_reg64(op(d, 0)) || op(d, 1)->type != X86_OP_MEM)
		return;
	v->op = VO_LEA;
	v->dst = (int8_t)gpr64(op(d, 0)->reg);
	v->mem = mem_of(d, op(d, 1));
}

static void classify_misc(const struct vdecoder *d, struct vinsn *v)
{
	unsigned int id = d->dec.insn->id;

	if (id == X86_INS_AND && nops(d) == 2 && is_reg64(op(d, 0)) &&
	    gpr64(op(d, 0)->reg) == VREG_SP && op(d, 1)->type == X86_OP_IMM) {
		v->op = VO_REALIGN;
		v->imm = op(d, 1)->imm;
	} else if (id == X86_INS_LEAVE) {
		v->op = VO_LEAVE;
	} else if (id == X86_INS_ENTER && nops(d) == 2 && op(d, 1)->imm == 0) {
		v->op = VO_ENTER;
		v->imm = op(d, 0)->imm;
	} else if (id == X86_INS_NOP || (id == X86_INS_XCHG && nops(d) == 2 &&
					 op(d, 0)->type == X86_OP_REG &&
					 op(d, 0)->reg == op(d, 1)->reg)) {
		v->nop = true;
		v->writes = 0;
	}
}

static void classify_op(const struct vdecoder *d, struct vinsn *v)
{
	switch (d->dec.insn->id) {
	case X86_INS_PUSH:
		classify_push_pop(d, v, true);
		break;
	case X86_INS_PUSHFQ:
		v->op = VO_PUSH;
		break;
	case X86_INS_POP:
		classify_push_pop(d, v, false);
		break;
	case X86_INS_POPFQ:
		v->op = VO_POP;
		break;
	case X86_INS_ADD:
	case X86_INS_SUB:
		classify_add(d, v, d->dec.insn->id == X86_INS_SUB);
		break;
	case X86_INS_MOV:
		classify_mov(d, v);
		break;
	case X86_INS_LEA:
		classify_lea(d, v);
		break;
	case X86_INS_CMP:
		classify_cmp(d, v);
		break;
	default:
		classify_misc(d, v);
	}
}

unsigned int vdecode(struct vdecoder *d, const uint8_t *code, size_t len, uint64_t addr,
		     struct vinsn *out)
{
	const uint8_t *p = code;
	uint64_t a = addr;
	size_t n = len;

	*out = (struct vinsn){ .addr = addr, .len = 1, .flow = VF_INVALID, .op = VO_OTHER,
			       .dst = VREG_NONE, .src = VREG_NONE,
			       .mem = { .base = VREG_NONE, .index = VREG_NONE } };
	if (!len || !x86_decoder_next(&d->dec, &p, &n, &a))
		return 0;
	out->len = (uint8_t)d->dec.insn->size;
	out->flow = VF_NEXT;
	out->writes = written_gprs(d);
	if (!classify_flow(d, out))
		classify_op(d, out);
	return out->len;
}
