// SPDX-License-Identifier: GPL-2.0
/*
 * The CIE of the .eh_frame proposal's reader: its length, id and version 1,
 * the augmentation string and data ('z', 'L', 'P', 'R', 'S'), the code and
 * data alignment factors and the RA column the x86_64 series takes, and
 * where its initial instructions are.
 */
#include <dwarf.h>
#include <stdio.h>

#include "eh_frame_internal.h"

typedef unsigned long long ull;

/* The augmentation string, NUL included, in at most EMU_EHF_MAX_AUGSTR bytes. */
static int cie_augstr(const struct ehf_reader *r, struct ehf_cur *c,
		      char aug[EMU_EHF_MAX_AUGSTR])
{
	uint64_t at = c->at, ch;
	int err;

	for (unsigned int i = 0; i < EMU_EHF_MAX_AUGSTR; i++) {
		err = ehf_uint(r, c, 1, &ch, "augmentation string");
		if (err)
			return err;
		aug[i] = (char)ch;
		if (!ch)
			return 0;
	}
	return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: augmentation string at 0x%llx "
			  "without a NUL in %u bytes", (ull)r->rec, (ull)at, EMU_EHF_MAX_AUGSTR);
}

/* The CIE's id, version and augmentation string. */
static int cie_head(const struct ehf_reader *r, struct ehf_cur *c, char aug[EMU_EHF_MAX_AUGSTR])
{
	uint64_t id, version;
	int err;

	err = ehf_uint(r, c, 4, &id, "CIE id");
	if (err)
		return err;
	if (id)
		return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: id 0x%llx, not 0",
				  (ull)r->rec, (ull)id);
	err = ehf_uint(r, c, 1, &version, "version");
	if (err)
		return err;
	if (version != 1)
		return emu_reject(r->v, EMU_R_EHF_CIE_UNSUPPORTED, "CIE at 0x%llx: version %llu, "
				  "not 1", (ull)r->rec, (ull)version);
	return cie_augstr(r, c, aug);
}

/* The alignment factors and the return address column. */
static int cie_factors(const struct ehf_reader *r, struct ehf_cur *c, struct ehf_cie *cie)
{
	uint64_t ra;
	int err;

	err = ehf_uleb(r, c, &cie->code_align, "code alignment factor");
	if (err)
		return err;
	if (!cie->code_align || cie->code_align > EHF_MAX_CODE_ALIGN)
		return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: code alignment factor "
				  "%llu, not 1..%d", (ull)r->rec, (ull)cie->code_align,
				  EHF_MAX_CODE_ALIGN);
	err = ehf_sleb(r, c, &cie->data_align, "data alignment factor");
	if (err)
		return err;
	if (!cie->data_align || cie->data_align < EHF_MIN_DATA_ALIGN ||
	    cie->data_align > EHF_MAX_DATA_ALIGN)
		return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: data alignment factor "
				  "%lld, not %d..%d", (ull)r->rec, (long long)cie->data_align,
				  EHF_MIN_DATA_ALIGN, EHF_MAX_DATA_ALIGN);
	err = ehf_uint(r, c, 1, &ra, "return address column");
	if (err)
		return err;
	if (ra != EHF_REG_RA)
		return emu_reject(r->v, EMU_R_EHF_CIE_UNSUPPORTED, "CIE at 0x%llx: return "
				  "address column %llu, not %d", (ull)r->rec, (ull)ra, EHF_REG_RA);
	return 0;
}

/* 'z': the augmentation data's length; @a is bounded by the data's end from now on. */
static int cie_aug_data(const struct ehf_reader *r, const struct ehf_cur *c, struct ehf_cur *a,
			struct ehf_cie *cie)
{
	uint64_t len;
	int err;

	a->end = c->end;
	err = ehf_uleb(r, a, &len, "augmentation data length");
	if (err)
		return err;
	if (len > c->end - a->at)
		return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: %llu bytes of augmentation "
				  "data past its end 0x%llx", (ull)r->rec, (ull)len, (ull)c->end);
	a->end = a->at + len;
	cie->aug_data = true;
	return 0;
}

/* 'L', 'P' or 'R': its field of the augmentation data, at @a. */
static int cie_aug_field(const struct ehf_reader *r, struct ehf_cur *a, char ch,
			 struct ehf_cie *cie)
{
	uint64_t enc, personality;
	int err;

	if (!cie->aug_data)
		return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: '%c' without 'z'",
				  (ull)r->rec, ch);
	if (ch == 'L')
		return ehf_uint(r, a, 1, &enc, "LSDA encoding");
	if (ch == 'R') {
		err = ehf_uint(r, a, 1, &enc, "FDE pointer encoding");
		if (!err)
			cie->fde_enc = (uint8_t)enc;
		return err;
	}
	err = ehf_uint(r, a, 1, &enc, "personality encoding");
	if (err)
		return err;
	/* never followed: the kernel clears the indirect bit and skips the pointer */
	return ehf_pointer(r, a, (uint8_t)(enc & ~DW_EH_PE_indirect), &personality,
			   "personality routine");
}

/* The augmentation string's letters and data; @c ends up where the instructions start. */
static int cie_augmentation(const struct ehf_reader *r, struct ehf_cur *c, const char *aug,
			    struct ehf_cie *cie)
{
	struct ehf_cur a = *c;	/* the data: bounded by the record, after 'z' by its length */
	int err = 0;

	a.end = c->at;
	for (unsigned int i = 0; aug[i] && !err; i++) {
		if (aug[i] == 'z' && i)
			return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: 'z' not first in "
					  "\"%s\"", (ull)r->rec, aug);
		if (aug[i] == 'z')
			err = cie_aug_data(r, c, &a, cie);
		else if (aug[i] == 'L' || aug[i] == 'P' || aug[i] == 'R')
			err = cie_aug_field(r, &a, aug[i], cie);
		else if (aug[i] == 'S')
			cie->signal_frame = true;
		else
			return emu_reject(r->v, EMU_R_EHF_CIE_UNSUPPORTED, "CIE at 0x%llx: "
					  "augmentation '%c' in \"%s\"", (ull)r->rec, aug[i], aug);
	}
	if (err)
		return err;
	if (a.at != a.end)
		return emu_reject(r->v, EMU_R_EHF_CIE, "CIE at 0x%llx: augmentation data ends at "
				  "0x%llx, its fields at 0x%llx", (ull)r->rec, (ull)a.end,
				  (ull)a.at);
	c->at = a.at;
	return 0;
}

int ehf_read_cie(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t addr,
		 struct ehf_cie *cie, struct emu_verdict *v)
{
	struct ehf_reader r = { e, mem, v, "CIE", addr, EMU_R_EHF_CIE, EMU_R_EHF_CIE,
				EMU_R_EHF_FAULT };
	struct ehf_cur c = { addr + 4, 0 };
	char aug[EMU_EHF_MAX_AUGSTR];
	int err;

	*cie = (struct ehf_cie){ .fde_enc = DW_EH_PE_absptr };
	err = ehf_record_end(&r, addr, EMU_EHF_MAX_CIE_LENGTH, &c.end);
	if (!err)
		err = cie_head(&r, &c, aug);
	if (!err)
		err = cie_factors(&r, &c, cie);
	if (!err)
		err = cie_augmentation(&r, &c, aug, cie);
	if (err)
		return err;
	cie->insn_start = c.at;
	cie->insn_end = c.end;
	return 0;
}
