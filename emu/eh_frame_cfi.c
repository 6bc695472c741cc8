// SPDX-License-Identifier: GPL-2.0
/*
 * The bounded DWARF CFI interpreter of the .eh_frame proposal: the CIE's initial
 * instructions, then the FDE's up to the address, counted together against
 * EMU_EHF_CFI_INSN_LIMIT. Only the CFA, FP and RA rules are kept (the rules
 * of other registers are read and dropped); an SP rule other than
 * val_offset(0) is refused. The row is then made a struct emu_unwind_rule.
 */
#include <dwarf.h>
#include <stdio.h>

#include "eh_frame_internal.h"

typedef unsigned long long ull;

/* A tracked register's rule; 0 is the state before any instruction names it. */
enum reg_kind {
	RULE_UNDEF_IMPLICIT,	/* never named: left in place */
	RULE_UNDEF_EXPLICIT,	/* DW_CFA_undefined: RA has no caller, FP left in place */
	RULE_SAME,		/* DW_CFA_same_value */
	RULE_OFFSET,		/* saved at CFA + off */
	RULE_VAL_OFFSET,	/* CFA + off itself */
	RULE_REGISTER,		/* in register @reg */
};

struct reg_rule {
	enum reg_kind kind;
	uint64_t reg;
	int64_t off;
};

/* A row: the CFA (reg + off once defined), FP and RA. */
struct row {
	bool cfa_defined;
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct reg_rule fp;
	struct reg_rule ra;
};

/*
 * The interpreter's state
 * @r: reads of the CIE's and FDE's instructions (EHF_CFI past their end)
 * @row, @cie_row: the current row, the row after the CIE's instructions
 * @stack, @depth: DW_CFA_remember_state's rows
 * @in_cie: running the CIE's instructions (no DW_CFA_restore there)
 * @loc: the address the row applies from; @op_at: the instruction's address
 * @ip: the address looked up
 */
struct cfi {
	struct ehf_reader r;
	const struct ehf_fde *fde;
	struct row row;
	struct row cie_row;
	struct row stack[EMU_EHF_MAX_STATE_STACK];
	unsigned int depth;
	bool in_cie;
	uint64_t loc;
	uint64_t op_at;
	uint64_t ip;
};

/* An instruction refused: what about it, and a value (an opcode, a register, an offset). */
static int fail(const struct cfi *c, enum emu_rule rule, const char *what, uint64_t val)
{
	return emu_reject(c->r.v, rule, "FDE at 0x%llx: %s instruction at 0x%llx: %s 0x%llx",
			  (ull)c->fde->addr, c->in_cie ? "CIE" : "FDE", (ull)c->op_at, what,
			  (ull)val);
}

/* A row that cannot be a rule. */
static int row_fail(const struct cfi *c, enum emu_rule rule, const char *what, uint64_t val)
{
	return emu_reject(c->r.v, rule, "FDE at 0x%llx: the row at 0x%llx: %s 0x%llx",
			  (ull)c->fde->addr, (ull)c->ip, what, (ull)val);
}

/* The rule of FP or RA in @row; NULL for a register not tracked. */
static struct reg_rule *tracked(struct row *row, uint64_t reg)
{
	if (reg == EHF_REG_FP)
		return &row->fp;
	if (reg == EHF_REG_RA)
		return &row->ra;
	return NULL;
}

static void set_rule(struct cfi *c, uint64_t reg, enum reg_kind kind, uint64_t other, int64_t off)
{
	struct reg_rule *rr = tracked(&c->row, reg);

	if (rr)
		*rr = (struct reg_rule){ kind, other, off };
}

/* A factored offset: a ULEB128 or SLEB128 times the data alignment factor, in 64 bits. */
static int factored(struct cfi *c, struct ehf_cur *cur, bool is_signed, int64_t *off)
{
	int64_t da = c->fde->cie.data_align, s = 0;
	uint64_t u = 0;
	bool over;
	int err;

	if (is_signed)
		err = ehf_sleb(&c->r, cur, &s, "factored offset");
	else
		err = ehf_uleb(&c->r, cur, &u, "factored offset");
	if (err)
		return err;
	over = is_signed ? __builtin_mul_overflow(s, da, off) : __builtin_mul_overflow(u, da, off);
	if (over)
		return fail(c, EMU_R_EHF_CFI, "factored offset overflows 64 bits:",
			    is_signed ? (uint64_t)s : u);
	return 0;
}

/* DW_CFA_offset(_extended)(_sf), DW_CFA_val_offset(_sf) of @reg. */
static int offset_rule(struct cfi *c, struct ehf_cur *cur, uint64_t reg, bool is_signed,
		       enum reg_kind kind)
{
	int64_t off;
	int err = factored(c, cur, is_signed, &off);

	if (err)
		return err;
	if (reg == EHF_REG_SP && (kind == RULE_OFFSET || off))
		return fail(c, EMU_R_EHF_CFI_UNSUPPORTED, "a rule for SP, offset", (uint64_t)off);
	set_rule(c, reg, kind, 0, off);
	return 0;
}

/* The extended forms: the register first. */
static int offset_op(struct cfi *c, struct ehf_cur *cur, uint8_t op)
{
	bool is_signed = op == DW_CFA_offset_extended_sf || op == DW_CFA_val_offset_sf;
	bool val = op == DW_CFA_val_offset || op == DW_CFA_val_offset_sf;
	uint64_t reg;
	int err = ehf_uleb(&c->r, cur, &reg, "register");

	if (err)
		return err;
	return offset_rule(c, cur, reg, is_signed, val ? RULE_VAL_OFFSET : RULE_OFFSET);
}

/* DW_CFA_restore(_extended): the CIE's rule back (its kind: the kernel keeps the offset). */
static int restore(struct cfi *c, uint64_t reg)
{
	struct reg_rule *rr = tracked(&c->row, reg);

	if (c->in_cie)
		return fail(c, EMU_R_EHF_CFI, "DW_CFA_restore in a CIE, register", reg);
	if (rr)
		rr->kind = tracked(&c->cie_row, reg)->kind;
	return 0;
}

static int advance(struct cfi *c, struct ehf_cur *cur, unsigned int size)
{
	uint64_t delta;
	int err = ehf_uint(&c->r, cur, size, &delta, "advance_loc delta");

	if (!err)
		c->loc += delta * c->fde->cie.code_align;
	return err;
}

/* DW_CFA_def_cfa and its variants; all but the two that define it need a CFA. */
static int cfa_op(struct cfi *c, struct ehf_cur *cur, uint8_t op)
{
	uint64_t reg = c->row.cfa_reg, u;
	int64_t off = c->row.cfa_off;
	int err = 0;

	if (!c->row.cfa_defined && op != DW_CFA_def_cfa && op != DW_CFA_def_cfa_sf)
		return fail(c, EMU_R_EHF_CFI, "CFA not defined yet, opcode", op);
	if (op == DW_CFA_def_cfa || op == DW_CFA_def_cfa_sf || op == DW_CFA_def_cfa_register)
		err = ehf_uleb(&c->r, cur, &reg, "CFA register");
	if (err)
		return err;
	if (op == DW_CFA_def_cfa || op == DW_CFA_def_cfa_offset) {
		err = ehf_uleb(&c->r, cur, &u, "CFA offset");
		if (!err && u > INT64_MAX)
			return fail(c, EMU_R_EHF_CFI_UNSUPPORTED, "CFA offset above LONG_MAX", u);
		off = (int64_t)u;
	} else if (op == DW_CFA_def_cfa_sf || op == DW_CFA_def_cfa_offset_sf) {
		err = factored(c, cur, true, &off);
	}
	if (err)
		return err;
	c->row = (struct row){ true, reg, off, c->row.fp, c->row.ra };
	return 0;
}

/* DW_CFA_restore_extended, DW_CFA_undefined, DW_CFA_same_value, DW_CFA_register. */
static int reg_op(struct cfi *c, struct ehf_cur *cur, uint8_t op)
{
	uint64_t reg, other = 0;
	int err;

	if (op == DW_CFA_restore_extended && c->in_cie)
		return fail(c, EMU_R_EHF_CFI, "DW_CFA_restore_extended in a CIE, opcode", op);
	err = ehf_uleb(&c->r, cur, &reg, "register");
	if (!err && op == DW_CFA_register)
		err = ehf_uleb(&c->r, cur, &other, "register");
	if (err)
		return err;
	if (op == DW_CFA_restore_extended)
		return restore(c, reg);
	if (reg == EHF_REG_SP)
		return fail(c, EMU_R_EHF_CFI_UNSUPPORTED, "a rule for SP, opcode", op);
	if (op == DW_CFA_undefined)
		set_rule(c, reg, RULE_UNDEF_EXPLICIT, 0, 0);
	else if (op == DW_CFA_same_value)
		set_rule(c, reg, RULE_SAME, 0, 0);
	else
		set_rule(c, reg, RULE_REGISTER, other, 0);
	return 0;
}

/* DW_CFA_expression, DW_CFA_val_expression: skipped, unless for SP, FP or RA. */
static int expression(struct cfi *c, struct ehf_cur *cur)
{
	uint64_t reg, len;
	int err;

	err = ehf_uleb(&c->r, cur, &reg, "register");
	if (!err)
		err = ehf_uleb(&c->r, cur, &len, "expression length");
	if (err)
		return err;
	if (len > cur->end - cur->at)
		return fail(c, EMU_R_EHF_CFI, "expression past the record's end, length", len);
	if (reg == EHF_REG_SP || reg == EHF_REG_FP || reg == EHF_REG_RA)
		return fail(c, EMU_R_EHF_CFI_UNSUPPORTED, "an expression for register", reg);
	cur->at += len;
	return 0;
}

static int state_op(struct cfi *c, uint8_t op)
{
	if (op == DW_CFA_remember_state) {
		if (c->depth >= EMU_EHF_MAX_STATE_STACK)
			return fail(c, EMU_R_EHF_CFI, "DW_CFA_remember_state over the depth",
				    EMU_EHF_MAX_STATE_STACK);
		c->stack[c->depth++] = c->row;
		return 0;
	}
	if (!c->depth)
		return fail(c, EMU_R_EHF_CFI, "DW_CFA_restore_state with no state remembered, "
			    "opcode", op);
	c->row = c->stack[--c->depth];
	return 0;
}

/* The opcodes with the high two bits 0. */
static int extended(struct cfi *c, struct ehf_cur *cur, uint8_t op)
{
	uint64_t size;

	switch (op) {
	case DW_CFA_nop:
		return 0;
	case DW_CFA_advance_loc1:
		return advance(c, cur, 1);
	case DW_CFA_advance_loc2:
		return advance(c, cur, 2);
	case DW_CFA_advance_loc4:
		return advance(c, cur, 4);
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
		return cfa_op(c, cur, op);
	case DW_CFA_offset_extended:
	case DW_CFA_offset_extended_sf:
	case DW_CFA_val_offset:
	case DW_CFA_val_offset_sf:
		return offset_op(c, cur, op);
	case DW_CFA_restore_extended:
	case DW_CFA_undefined:
	case DW_CFA_same_value:
	case DW_CFA_register:
		return reg_op(c, cur, op);
	case DW_CFA_expression:
	case DW_CFA_val_expression:
		return expression(c, cur);
	case DW_CFA_GNU_args_size:
		return ehf_uleb(&c->r, cur, &size, "DW_CFA_GNU_args_size");
	case DW_CFA_remember_state:
	case DW_CFA_restore_state:
		return state_op(c, op);
	default:	/* DW_CFA_def_cfa_expression, DW_CFA_set_loc, vendor opcodes */
		return fail(c, EMU_R_EHF_CFI_UNSUPPORTED, "opcode not interpreted:", op);
	}
}

static int step(struct cfi *c, struct ehf_cur *cur)
{
	uint64_t op;
	int err = ehf_uint(&c->r, cur, 1, &op, "opcode");

	if (err)
		return err;
	switch (op & 0xc0) {
	case DW_CFA_advance_loc:
		c->loc += (op & 0x3f) * c->fde->cie.code_align;
		return 0;
	case DW_CFA_offset:
		return offset_rule(c, cur, op & 0x3f, false, RULE_OFFSET);
	case DW_CFA_restore:
		return restore(c, op & 0x3f);
	default:
		return extended(c, cur, (uint8_t)op);
	}
}

/* The instructions in [@start, @end): all of a CIE's, an FDE's while the row is at or below @ip. */
static int run(struct cfi *c, uint64_t start, uint64_t end, unsigned int *insns)
{
	struct ehf_cur cur = { start, end };
	int err;

	while (cur.at < cur.end && (c->in_cie || c->loc <= c->ip)) {
		c->op_at = cur.at;
		if ((*insns)++ >= EMU_EHF_CFI_INSN_LIMIT)
			return fail(c, EMU_R_EHF_CFI, "over the instruction limit",
				    EMU_EHF_CFI_INSN_LIMIT);
		err = step(c, &cur);
		if (err)
			return err;
	}
	return 0;
}

/* An RA or FP rule as a location; offsets must fit 32 bits, register numbers 8. */
static int loc_rule(const struct cfi *c, const struct reg_rule *rr, const char *name,
		    struct emu_loc_rule *out)
{
	char what[40];

	*out = (struct emu_loc_rule){ .kind = EMU_LOC_SAME };
	switch (rr->kind) {
	case RULE_OFFSET:
	case RULE_VAL_OFFSET:
		snprintf(what, sizeof(what), "%s offset beyond 32 bits:", name);
		if (rr->off < INT32_MIN || rr->off > INT32_MAX)
			return row_fail(c, EMU_R_EHF_CFI_UNSUPPORTED, what, (uint64_t)rr->off);
		out->kind = rr->kind == RULE_OFFSET ? EMU_LOC_CFA_DEREF : EMU_LOC_CFA;
		out->off = rr->off;
		return 0;
	case RULE_REGISTER:
		snprintf(what, sizeof(what), "%s in register", name);
		if (rr->reg > UINT32_MAX)
			return row_fail(c, EMU_R_EHF_CFI, what, rr->reg);
		if (rr->reg > UINT8_MAX)
			return row_fail(c, EMU_R_EHF_CFI_UNSUPPORTED, what, rr->reg);
		out->kind = EMU_LOC_REG;
		out->reg = (uint8_t)rr->reg;
		return 0;
	default:	/* undefined, implicitly or not, or the same value: left in place */
		return 0;
	}
}

/*
 * The row at the address as a rule (__find_frame_row()'s conversion). A
 * register number above 32 bits is the kernel's EINVAL; one of 9 to 32 bits,
 * which the kernel keeps and its unwinder then cannot read, EOPNOTSUPP here.
 */
static int row_rule(const struct cfi *c, struct emu_unwind_rule *rule)
{
	const struct row *row = &c->row;
	int err;

	if (!row->cfa_defined)
		return row_fail(c, EMU_R_EHF_CFI, "no CFA rule, the FDE's function at",
				c->fde->func);
	if (row->cfa_reg > UINT32_MAX)
		return row_fail(c, EMU_R_EHF_CFI, "CFA from register", row->cfa_reg);
	if (row->cfa_reg > UINT8_MAX)
		return row_fail(c, EMU_R_EHF_CFI_UNSUPPORTED, "CFA from register", row->cfa_reg);
	if (row->cfa_off < INT32_MIN || row->cfa_off > INT32_MAX)
		return row_fail(c, EMU_R_EHF_CFI_UNSUPPORTED, "CFA offset beyond 32 bits:",
				(uint64_t)row->cfa_off);
	*rule = (struct emu_unwind_rule){
		.cfa_base = row->cfa_reg == EHF_REG_SP ? EMU_CFA_SP :
			    row->cfa_reg == EHF_REG_FP ? EMU_CFA_FP : EMU_CFA_REG,
		.cfa_reg = (uint8_t)row->cfa_reg,
		.cfa_off = row->cfa_off,
		.outermost = row->ra.kind == RULE_UNDEF_EXPLICIT,
		.code_start = c->fde->func,
		.code_end = c->fde->func + c->fde->size,
	};
	err = loc_rule(c, &row->ra, "RA", &rule->ra);
	if (!err)
		err = loc_rule(c, &row->fp, "FP", &rule->fp);
	return err;
}

int ehf_cfi_rule(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		 const struct ehf_fde *fde, uint64_t ip, struct emu_unwind_rule *rule,
		 uint64_t *next, struct emu_verdict *v)
{
	struct cfi c = {
		.r = { e, mem, v, "CFI of the FDE", fde->addr, EMU_R_EHF_CFI, EMU_R_EHF_CFI,
		       EMU_R_EHF_FAULT },
		.fde = fde, .in_cie = true, .loc = fde->func, .op_at = fde->cie.insn_start,
		.ip = ip,
	};
	unsigned int insns = 0;
	int err;

	if (fde->cie.signal_frame)
		return emu_reject(v, EMU_R_EHF_CFI_UNSUPPORTED, "FDE at 0x%llx: its CIE is a "
				  "signal frame's ('S')", (ull)fde->addr);
	err = run(&c, fde->cie.insn_start, fde->cie.insn_end, &insns);
	if (err)
		return err;
	c.cie_row = c.row;
	c.depth = 0;		/* no state remembered in the CIE is restored in the FDE */
	c.in_cie = false;
	c.op_at = fde->insn_start;
	err = run(&c, fde->insn_start, fde->insn_end, &insns);
	if (!err)
		err = row_rule(&c, rule);
	if (!err && next)	/* the loop stops at the first row past @ip, if there is one */
		*next = c.loc > ip && c.loc < fde->func + fde->size ? c.loc : fde->func + fde->size;
	return err;
}
