// SPDX-License-Identifier: GPL-2.0
/*
 * The v16 series' SFrame reader (sframe_kernel.h), on the process's memory.
 * Addresses are computed as the kernel computes them: 64-bit unsigned sums
 * that may wrap, signed 64-bit function offsets, 32-bit FRE offsets. Each
 * check is made where the kernel makes it, so that the first failing one
 * answers, with the kernel's errno (the rule table's).
 */
#include <stdio.h>

#include "sframe_format.h"
#include "sframe_kernel.h"

/* The FDE (index entry and attribute record) as the kernel decodes it. */
struct kfde {
	uint64_t func_addr;
	uint32_t func_size;
	uint32_t fres_off;	/* from fres_start to the first FRE */
	uint16_t fres_num;
	uint8_t info;
	uint8_t info2;
	uint8_t rep_size;
};

/* One FRE: its start, info byte and where its data words are. */
struct kfre {
	uint32_t size;
	uint32_t ip_off;
	uint8_t info;
	uint64_t dw_addr;
	uint8_t dw_count;
	uint8_t dw_size;
};

/* A rule's control word and offset, before they become a rule. */
struct kloc {
	uint32_t ctl;
	int32_t off;
};

#define CTL_REG_P	0x1
#define CTL_DEREF_P	0x2
#define CTL_RESERVED	0x4
#define CTL_REGNUM(c)	(((c) >> 3) & 0x1f)	/* the kernel keeps 5 bits */

static uint64_t le(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;

	while (size--)
		v = v << 8 | p[size];
	return v;
}

static int fault(struct emu_verdict *v, const char *what, uint64_t addr)
{
	return emu_reject(v, EMU_R_SFRAME_FAULT, "%s at 0x%llx unreadable", what,
			  (unsigned long long)addr);
}

/* An unsigned field of @size (1, 2, 4 or 8) bytes at @addr. */
static int get(const struct emu_accessor *mem, uint64_t addr, unsigned int size, uint64_t *val,
	       struct emu_verdict *v)
{
	uint8_t b[8];

	if (emu_read(mem, addr, b, size))
		return fault(v, "SFrame data", addr);
	*val = le(b, size);
	return 0;
}

/* A signed data word of @size bytes, sign-extended. */
static int get_signed(const struct emu_accessor *mem, uint64_t addr, unsigned int size,
		      int32_t *val, struct emu_verdict *v)
{
	uint64_t u;
	int err = get(mem, addr, size, &u, v);

	if (!err)
		*val = size == 1 ? (int8_t)u : size == 2 ? (int16_t)u : (int32_t)u;
	return err;
}

/* FDE @i: its index entry and attribute record, with the kernel's checks. */
static int read_fde(const struct emu_ksframe *k, const struct emu_accessor *mem, uint32_t i,
		    struct kfde *f, struct emu_verdict *v)
{
	uint64_t at = k->fdes_start + (uint64_t)i * EMU_SF_V3_IDX_ENTRY_SIZE, fda, end;
	uint8_t e[EMU_SF_V3_IDX_ENTRY_SIZE], a[EMU_SF_V3_ATTR_SIZE];
	uint32_t fres_off;

	if (emu_read(mem, at, e, sizeof(e)))
		return fault(v, "FDE index entry", at);
	f->func_addr = at + le(e + EMU_SF_V3_IDX_START, 8);
	f->func_size = (uint32_t)le(e + EMU_SF_V3_IDX_SIZE, 4);
	fres_off = (uint32_t)le(e + EMU_SF_V3_IDX_FRE_OFF, 4);
	end = f->func_addr + f->func_size;
	if (f->func_addr < k->text_start || end > k->text_end)
		return emu_reject(v, EMU_R_SETUP_FDE_TEXT,
				  "FDE %u: function 0x%llx..0x%llx outside text range 0x%llx..0x%llx", i,
				  (unsigned long long)f->func_addr, (unsigned long long)end,
				  (unsigned long long)k->text_start, (unsigned long long)k->text_end);
	fda = k->fres_start + fres_off;
	if (fda + EMU_SF_V3_ATTR_SIZE > k->fres_end)
		return emu_reject(v, EMU_R_SETUP_FDE_FRES,
				  "FDE %u: attribute record at FRE offset 0x%x past the FRE "
				  "sub-section", i, fres_off);
	if (emu_read(mem, fda, a, sizeof(a)))
		return fault(v, "FDE attribute record", fda);
	f->fres_num = (uint16_t)le(a + EMU_SF_V3_ATTR_NUM_FRES, 2);
	f->info = a[EMU_SF_V3_ATTR_INFO];
	f->info2 = a[EMU_SF_V3_ATTR_INFO2];
	f->rep_size = a[EMU_SF_V3_ATTR_REP_SIZE];
	f->fres_off = fres_off + EMU_SF_V3_ATTR_SIZE;
	if (EMU_SF_INFO_PCMASK(f->info) && !f->rep_size)
		return emu_reject(v, EMU_R_SF_REP_SIZE, "FDE %u: PCMASK with repetition size 0", i);
	if (f->fres_num > f->func_size)
		return emu_reject(v, EMU_R_SF_FDE_NUM_FRES, "FDE %u: %u FREs in a function of %u bytes",
				  i, f->fres_num, f->func_size);
	return 0;
}

/*
 * The binary search for the last FDE starting at or below @ip, each start
 * bounded by those seen before it (else the index is not sorted: EINVAL);
 * then that FDE, which must hold @ip. -ENOENT: none does.
 */
static int find_fde(const struct emu_ksframe *k, const struct emu_accessor *mem, uint64_t ip,
		    struct kfde *f, uint32_t *idx, struct emu_verdict *v)
{
	uint64_t low_bound = 0, high_bound = UINT64_MAX, at, func = 0;
	int64_t lo = 0, hi = (int64_t)k->num_fdes - 1, mid, found = -1;
	int err;

	while (lo <= hi) {
		mid = lo + (hi - lo) / 2;
		at = k->fdes_start + (uint64_t)mid * EMU_SF_V3_IDX_ENTRY_SIZE;
		err = get(mem, at, 8, &func, v);
		if (err)
			return err;
		func += at;
		if (ip >= func ? func < low_bound : func > high_bound)
			return emu_reject(v, EMU_R_SF_FDE_ORDER,
					  "FDE %lld starts at 0x%llx, out of the order the search "
					  "found", (long long)mid, (unsigned long long)func);
		if (ip >= func) {
			low_bound = func;
			found = mid;
			lo = mid + 1;
		} else {
			high_bound = func;
			hi = mid - 1;
		}
	}
	if (found < 0)
		return -ENOENT;
	*idx = (uint32_t)found;
	err = read_fde(k, mem, *idx, f, v);
	if (err)
		return err;
	if (ip < f->func_addr || ip >= f->func_addr + f->func_size)
		return -ENOENT;		/* a gap between functions */
	return 0;
}

/* The FRE at @addr of FDE @i (its @j-th): start, info and where its data words are. */
static int read_fre(const struct emu_ksframe *k, const struct emu_accessor *mem,
		    const struct kfde *f, uint64_t addr, struct kfre *r, uint32_t i, uint32_t j,
		    struct emu_verdict *v)
{
	unsigned int type = EMU_SF_INFO_FRE_TYPE(f->info), asize, size_enum;
	uint64_t val, words;
	int err;

	if (type > EMU_SF_FRE_TYPE_ADDR4)
		return emu_reject(v, EMU_R_SF_FRE_ADDR_SIZE, "FDE %u: FRE type %u", i, type);
	asize = 1u << type;
	if (addr + asize + 1 > k->fres_end)
		goto past;
	err = get(mem, addr, asize, &val, v);
	if (err)
		return err;
	r->ip_off = (uint32_t)val;
	if (EMU_SF_INFO_PCMASK(f->info) ? r->ip_off >= f->rep_size : r->ip_off >= f->func_size)
		return emu_reject(v, EMU_R_SF_FRE_OUTSIDE, "FDE %u: FRE %u start 0x%x not below the "
				  "%s 0x%x", i, j, r->ip_off, EMU_SF_INFO_PCMASK(f->info) ?
				  "repetition size" : "function size",
				  EMU_SF_INFO_PCMASK(f->info) ? f->rep_size : f->func_size);
	err = get(mem, addr + asize, 1, &val, v);
	if (err)
		return err;
	r->info = (uint8_t)val;
	r->dw_count = EMU_SF_FRE_COUNT(r->info);
	size_enum = EMU_SF_FRE_OFFSET_SIZE(r->info);
	if (size_enum > EMU_SF_FRE_OFFSET_4B)
		return emu_reject(v, EMU_R_SF_FRE_OFFSET_SIZE, "FDE %u: FRE %u: data-word size "
				  "%u (info 0x%02x)", i, j, size_enum, r->info);
	r->dw_size = (uint8_t)(1u << size_enum);
	r->dw_addr = addr + asize + 1;
	words = (uint64_t)r->dw_count * r->dw_size;
	if (r->dw_addr + words > k->fres_end)
		goto past;
	r->size = asize + 1 + (uint32_t)words;
	return 0;
past:
	return emu_reject(v, EMU_R_SETUP_FDE_FRES, "FDE %u: FRE %u at 0x%llx past the FRE "
			  "sub-section's end 0x%llx", i, j, (unsigned long long)addr,
			  (unsigned long long)k->fres_end);
}

/* The next data word of @r, signed (offsets) or not (FLEX control words). */
static int next_word(const struct emu_accessor *mem, const struct kfre *r, uint64_t *cur,
		     bool is_signed, int32_t *out, struct emu_verdict *v)
{
	uint64_t u;
	int err;

	if (is_signed)
		err = get_signed(mem, *cur, r->dw_size, out, v);
	else if (!(err = get(mem, *cur, r->dw_size, &u, v)))
		*out = (int32_t)(uint32_t)u;
	*cur += r->dw_size;
	return err;
}

/* DEFAULT FDE: CFA offset, then RA and FP offsets unless fixed in the header. */
static int default_words(const struct emu_ksframe *k, const struct emu_accessor *mem,
			 const struct emu_arch_info *arch, const struct kfre *r, struct kloc *loc,
			 struct emu_verdict *v)
{
	uint64_t cur = r->dw_addr;
	unsigned int n = r->dw_count;
	int32_t ra = k->ra_off, fp = k->fp_off;
	int err;

	err = next_word(mem, r, &cur, true, &loc[0].off, v);
	n--;
	if (!err && !ra && n) {
		n--;
		err = next_word(mem, r, &cur, true, &ra, v);
	}
	if (!err && !fp && n) {
		n--;
		err = next_word(mem, r, &cur, true, &fp, v);
	}
	if (err)
		return err;
	if (n)
		return emu_reject(v, EMU_R_SF_FRE_OFFSET_COUNT, "%u data words left over", n);
	loc[0].ctl = (EMU_SF_FRE_BASE_SP(r->info) ? arch->sp_reg : arch->fp_reg) << 3 | CTL_REG_P;
	loc[1] = (struct kloc){ ra ? CTL_DEREF_P : 0, ra };
	loc[2] = (struct kloc){ fp ? CTL_DEREF_P : 0, fp };
	return 0;
}

/*
 * One FLEX RA or FP location: a (control, offset) pair, or one padding word
 * 0 standing for the header's default; read only when two words remain.
 */
static int flex_loc(const struct emu_accessor *mem, const struct kfre *r, uint64_t *cur,
		    unsigned int *n, int32_t dflt, struct kloc *loc, struct emu_verdict *v)
{
	int32_t ctl;
	int err;

	*loc = (struct kloc){ dflt ? CTL_DEREF_P : 0, dflt };
	if (*n < 2)
		return 0;
	err = next_word(mem, r, cur, false, &ctl, v);
	(*n)--;
	if (err || !ctl)
		return err;
	loc->ctl = (uint32_t)ctl;
	(*n)--;
	return next_word(mem, r, cur, true, &loc->off, v);
}

static int flex_words(const struct emu_ksframe *k, const struct emu_accessor *mem,
		      const struct kfre *r, struct kloc *loc, struct emu_verdict *v)
{
	uint64_t cur = r->dw_addr;
	unsigned int n = r->dw_count;
	int32_t ctl;
	int err;

	if (n < 2)
		return emu_reject(v, EMU_R_SF_FRE_OFFSET_COUNT, "FLEX FRE with %u data words", n);
	err = next_word(mem, r, &cur, false, &ctl, v);
	if (!err)
		err = next_word(mem, r, &cur, true, &loc[0].off, v);
	if (err)
		return err;
	loc[0].ctl = (uint32_t)ctl;
	n -= 2;
	err = flex_loc(mem, r, &cur, &n, k->ra_off, &loc[1], v);
	if (!err)
		err = flex_loc(mem, r, &cur, &n, k->fp_off, &loc[2], v);
	if (err)
		return err;
	if (n)
		return emu_reject(v, EMU_R_SF_FRE_OFFSET_COUNT, "%u data words left over", n);
	return 0;
}

/* The data words of @r: control words and offsets of CFA, RA and FP. */
static int read_words(const struct emu_ksframe *k, const struct emu_accessor *mem,
		      const struct emu_arch_info *arch, const struct kfde *f, const struct kfre *r,
		      struct kloc *loc, struct emu_verdict *v)
{
	unsigned int type = EMU_SF_V3_FDE_TYPE(f->info2);

	if (!r->dw_count) {	/* the outermost frame, whatever the FDE type */
		loc[0] = (struct kloc){ (uint32_t)arch->sp_reg << 3 | CTL_REG_P, 0 };
		loc[1] = loc[2] = (struct kloc){ 0, 0 };
		return 0;
	}
	if (type == EMU_SF_V3_FDE_TYPE_DEFAULT)
		return default_words(k, mem, arch, r, loc, v);
	if (type == EMU_SF_V3_FDE_TYPE_FLEX)
		return flex_words(k, mem, r, loc, v);
	return emu_reject(v, EMU_R_SF_FDE_TYPE, "unknown FDE type %u", type);
}

static int cfa_rule(const struct emu_arch_info *arch, struct kloc l, struct emu_unwind_rule *rule,
		    struct emu_verdict *v)
{
	unsigned int reg = CTL_REGNUM(l.ctl);

	if (l.ctl & CTL_RESERVED || !(l.ctl & CTL_REG_P))
		return emu_reject(v, EMU_R_SF_FLEX_CONTROL, "CFA control word 0x%x: %s", l.ctl,
				  l.ctl & CTL_RESERVED ? "reserved bit set" : "not register-based");
	rule->cfa_base = reg == arch->sp_reg ? EMU_CFA_SP : reg == arch->fp_reg ? EMU_CFA_FP :
			 EMU_CFA_REG;
	rule->cfa_reg = (uint8_t)reg;
	rule->cfa_deref = l.ctl & CTL_DEREF_P;
	rule->cfa_off = l.off;
	return 0;
}

/* An RA or FP location: retained (control word and offset 0), register-, or CFA-based. */
static int loc_rule(struct kloc l, const char *what, struct emu_loc_rule *out,
		    struct emu_verdict *v)
{
	bool deref = l.ctl & CTL_DEREF_P;

	if (!l.ctl && !l.off) {
		*out = (struct emu_loc_rule){ .kind = EMU_LOC_SAME };
		return 0;
	}
	if (l.ctl & CTL_RESERVED)
		return emu_reject(v, EMU_R_SF_FLEX_CONTROL, "%s control word 0x%x: reserved bit set",
				  what, l.ctl);
	*out = (struct emu_loc_rule){ .off = l.off };
	if (l.ctl & CTL_REG_P) {
		out->kind = deref ? EMU_LOC_REG_DEREF : EMU_LOC_REG;
		out->reg = (uint8_t)CTL_REGNUM(l.ctl);
	} else {
		out->kind = deref ? EMU_LOC_CFA_DEREF : EMU_LOC_CFA;
	}
	return 0;
}

/*
 * The FREs of FDE @i up to the last one starting at or below @ip's offset,
 * each checked as read (the ones after it are not read); then its rule.
 */
static int find_fre(const struct emu_ksframe *k, const struct emu_accessor *mem,
		    const struct emu_arch_info *arch, const struct kfde *f, uint32_t i, uint64_t ip,
		    struct emu_unwind_rule *rule, struct emu_verdict *v)
{
	uint32_t ip_off = (uint32_t)(ip - f->func_addr);
	uint64_t addr = k->fres_start + f->fres_off;
	struct kfre r, prev = { 0 };
	struct kloc loc[3];
	bool have = false;
	int err;

	if (EMU_SF_INFO_PCMASK(f->info))
		ip_off %= f->rep_size;
	for (uint32_t j = 0; j < f->fres_num; j++) {
		err = read_fre(k, mem, f, addr, &r, i, j, v);
		if (err)
			return err;
		addr += r.size;
		if (have && r.ip_off <= prev.ip_off)
			return emu_reject(v, EMU_R_SF_FRE_ORDER, "FDE %u: FRE %u start 0x%x not above "
					  "0x%x", i, j, r.ip_off, prev.ip_off);
		if (r.ip_off > ip_off)
			break;
		prev = r;
		have = true;
	}
	if (!have)
		return emu_reject(v, EMU_R_SF_NO_FRE, "FDE %u: no FRE starts at or below offset 0x%x",
				  i, ip_off);
	*rule = (struct emu_unwind_rule){ .code_start = f->func_addr,
					  .code_end = f->func_addr + f->func_size };
	err = read_words(k, mem, arch, f, &prev, loc, v);
	if (!err)
		err = cfa_rule(arch, loc[0], rule, v);
	if (!err)
		err = loc_rule(loc[1], "RA", &rule->ra, v);
	if (!err)
		err = loc_rule(loc[2], "FP", &rule->fp, v);
	rule->outermost = !prev.dw_count;
	return err;
}

int emu_ksframe_find(const struct emu_ksframe *k, const struct emu_accessor *mem,
		     const struct emu_arch_info *arch, uint64_t ip, struct emu_unwind_rule *rule,
		     struct emu_verdict *why)
{
	struct kfde f = { 0 };
	uint32_t i = 0;
	int err;

	if (ip < k->text_start || ip >= k->text_end)
		return -ENOENT;
	err = find_fde(k, mem, ip, &f, &i, why);
	if (!err)
		err = find_fre(k, mem, arch, &f, i, ip, rule, why);
	return err;
}

/* CONFIG_SFRAME_VALIDATION: every FDE in order, every FRE and its data words. */
static int validate(const struct emu_ksframe *k, const struct emu_accessor *mem,
		    const struct emu_arch_info *arch, struct emu_verdict *v)
{
	uint64_t prev_ip = 0, addr;
	struct kloc loc[3];
	struct kfre r, prev = { 0 };
	struct kfde f;
	int err;

	for (uint32_t i = 0; i < k->num_fdes; i++) {
		err = read_fde(k, mem, i, &f, v);
		if (err)
			return err;
		if (f.func_addr <= prev_ip)
			return emu_reject(v, EMU_R_SF_FDE_ORDER, "FDE %u: start 0x%llx not above "
					  "0x%llx", i, (unsigned long long)f.func_addr,
					  (unsigned long long)prev_ip);
		prev_ip = f.func_addr;
		addr = k->fres_start + f.fres_off;
		for (uint32_t j = 0; j < f.fres_num; j++) {
			err = read_fre(k, mem, &f, addr, &r, i, j, v);
			if (!err)
				err = read_words(k, mem, arch, &f, &r, loc, v);
			if (err)
				return err;
			addr += r.size;
			if (j && r.ip_off <= prev.ip_off)
				return emu_reject(v, EMU_R_SF_FRE_ORDER, "FDE %u: FRE %u start 0x%x "
						  "not above 0x%x", i, j, r.ip_off, prev.ip_off);
			prev = r;
		}
	}
	return 0;
}

/* sframe_read_header(): the copy, then the header's fields and the layout. */
static int read_header(struct emu_ksframe *k, const struct emu_accessor *mem,
		       struct emu_verdict *v)
{
	uint8_t h[EMU_SF_HDR_SIZE];
	uint8_t version, flags;
	uint64_t header_end, fdes_end;

	if (emu_read(mem, k->sframe_start, h, sizeof(h)))
		return fault(v, "SFrame header", k->sframe_start);
	version = h[EMU_SF_HDR_VERSION];
	flags = h[EMU_SF_HDR_FLAGS];
	if (le(h + EMU_SF_HDR_MAGIC, 2) != EMU_SF_MAGIC)
		return emu_reject(v, EMU_R_SF_MAGIC, "magic 0x%04llx",
				  (unsigned long long)le(h + EMU_SF_HDR_MAGIC, 2));
	if (version != 3) {
		v->kernel_refusals |= EMU_KR_V3_ONLY;
		return emu_kernel_rules_apply(v, EMU_PROFILE_V16);
	}
	if (!(flags & EMU_SF_F_FDE_SORTED))
		return emu_reject(v, EMU_R_SF_NOT_SORTED, "flags 0x%02x without FDE_SORTED", flags);
	if (!(flags & EMU_SF_F_FDE_FUNC_START_PCREL))
		v->kernel_refusals |= EMU_KR_PCREL;
	if (h[EMU_SF_HDR_AUXHDR_LEN])
		v->kernel_refusals |= EMU_KR_AUXHDR;
	k->num_fdes = (uint32_t)le(h + EMU_SF_HDR_NUM_FDES, 4);
	k->num_fres = (uint32_t)le(h + EMU_SF_HDR_NUM_FRES, 4);
	if (!k->num_fdes)
		v->kernel_refusals |= EMU_KR_NO_FDES;
	if (!k->num_fres)
		v->kernel_refusals |= EMU_KR_NO_FRES;
	if (v->kernel_refusals)
		return emu_kernel_rules_apply(v, EMU_PROFILE_V16);
	header_end = k->sframe_start + EMU_SF_HDR_SIZE;
	if (header_end >= k->sframe_end)
		return emu_reject(v, EMU_R_SF_SHORT, "%llu bytes: no room after the header",
				  (unsigned long long)(k->sframe_end - k->sframe_start));
	k->fdes_start = header_end + le(h + EMU_SF_HDR_FDEOFF, 4);
	fdes_end = k->fdes_start + (uint64_t)k->num_fdes * EMU_SF_V3_IDX_ENTRY_SIZE;
	k->fres_start = header_end + le(h + EMU_SF_HDR_FREOFF, 4);
	k->fres_end = k->fres_start + le(h + EMU_SF_HDR_FRE_LEN, 4);
	if (k->fres_start < fdes_end || k->fres_end > k->sframe_end)
		return emu_reject(v, EMU_R_SF_BOUNDS, "FDE index ends at +0x%llx, FREs at "
				  "+0x%llx..+0x%llx of %llu bytes",
				  (unsigned long long)(fdes_end - k->sframe_start),
				  (unsigned long long)(k->fres_start - k->sframe_start),
				  (unsigned long long)(k->fres_end - k->sframe_start),
				  (unsigned long long)(k->sframe_end - k->sframe_start));
	k->ra_off = (int8_t)h[EMU_SF_HDR_FIXED_RA];
	k->fp_off = (int8_t)h[EMU_SF_HDR_FIXED_FP];
	return 0;
}

int emu_ksframe_add(struct emu_ksframe *k, const struct emu_accessor *mem,
		    const struct emu_arch_info *arch, bool validate_all, struct emu_verdict *v)
{
	int err = read_header(k, mem, v);

	if (!err && validate_all)
		err = validate(k, mem, arch, v);
	return err;
}
