// SPDX-License-Identifier: GPL-2.0
/*
 * The .eh_frame proposal's reader (eh_frame.h): the bounded reads everything
 * goes through, the header and its search table, FDEs, the lookup; CIEs and
 * the CFI interpreter are in eh_frame_cfi.c. Every byte is read through the accessor
 * when the kernel would read it, so a byte the kernel never reads cannot fail
 * a call; sums are 64-bit unsigned and wrap where the kernel's do, and each
 * bound that a wrap would defeat is checked without one.
 */
#include <dwarf.h>

#include "eh_frame_internal.h"

#define ENC_FORMAT(enc)		((enc) & 0x0f)
#define ENC_APPLICATION(enc)	((enc) & 0x70)

typedef unsigned long long ull;

int ehf_bytes(const struct ehf_reader *r, struct ehf_cur *c, void *buf, size_t n,
	      const char *what)
{
	if (c->at > c->end || n > c->end - c->at)
		return emu_reject(r->v, r->past, "%s at 0x%llx: %s at 0x%llx runs past 0x%llx",
				  r->kind, (ull)r->rec, what, (ull)c->at, (ull)c->end);
	if (emu_read(r->mem, c->at, buf, n))
		return emu_reject(r->v, r->fault, "%s at 0x%llx: %s at 0x%llx unreadable", r->kind,
				  (ull)r->rec, what, (ull)c->at);
	c->at += n;
	return 0;
}

/* An unsigned little-endian field of @n (1 to 8) bytes. */
int ehf_uint(const struct ehf_reader *r, struct ehf_cur *c, unsigned int n, uint64_t *val,
	     const char *what)
{
	uint8_t b[8];
	int err = ehf_bytes(r, c, b, n, what);

	if (err)
		return err;
	*val = 0;
	while (n--)
		*val = *val << 8 | b[n];
	return 0;
}

/* A LEB128 number's bits; @shift: how many its bytes carried (for the sign). */
static int leb128(const struct ehf_reader *r, struct ehf_cur *c, uint64_t *val,
		  unsigned int *shift, uint8_t *last, const char *what)
{
	uint64_t start = c->at;
	uint8_t b;
	int err;

	*val = 0;
	*shift = 0;
	do {
		if (*shift >= 64)
			return emu_reject(r->v, r->bad, "%s at 0x%llx: %s at 0x%llx: LEB128 of "
					  "more than 64 bits", r->kind, (ull)r->rec, what,
					  (ull)start);
		err = ehf_bytes(r, c, &b, 1, what);
		if (err)
			return err;
		*val |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	*last = b;
	return 0;
}

int ehf_uleb(const struct ehf_reader *r, struct ehf_cur *c, uint64_t *val, const char *what)
{
	unsigned int shift;
	uint8_t last;

	return leb128(r, c, val, &shift, &last, what);
}

int ehf_sleb(const struct ehf_reader *r, struct ehf_cur *c, int64_t *val, const char *what)
{
	unsigned int shift;
	uint64_t u;
	uint8_t last;
	int err = leb128(r, c, &u, &shift, &last, what);

	if (err)
		return err;
	if (shift < 64 && (last & 0x40))
		u |= ~0ull << shift;
	*val = (int64_t)u;
	return 0;
}

/* The size of an encoded pointer of fixed size: 2, 4 or 8 bytes; 0 for LEB128 or unknown. */
unsigned int ehf_enc_size(uint8_t enc)
{
	switch (ENC_FORMAT(enc)) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	default:
		return 0;
	}
}

/* What an encoded pointer at @c is relative to. */
static int pointer_base(const struct ehf_reader *r, const struct ehf_cur *c, uint8_t enc,
			uint64_t *base, const char *what)
{
	switch (ENC_APPLICATION(enc)) {
	case DW_EH_PE_absptr:
		*base = 0;
		return 0;
	case DW_EH_PE_pcrel:
		*base = c->at;
		return 0;
	case DW_EH_PE_datarel:
		*base = r->e->hdr_start;
		return 0;
	case DW_EH_PE_textrel:
		*base = r->e->text_start;
		return 0;
	case DW_EH_PE_funcrel:
	case DW_EH_PE_aligned:
		return emu_reject(r->v, EMU_R_EHF_ENCODING_UNSUPPORTED, "%s at 0x%llx: %s at "
				  "0x%llx: %s encoding 0x%02x", r->kind, (ull)r->rec, what,
				  (ull)c->at, ENC_APPLICATION(enc) == DW_EH_PE_funcrel ?
				  "funcrel" : "aligned", enc);
	default:
		return emu_reject(r->v, r->bad, "%s at 0x%llx: %s at 0x%llx: encoding 0x%02x of "
				  "unknown application", r->kind, (ull)r->rec, what, (ull)c->at,
				  enc);
	}
}

/* An encoded pointer's value: sign-extended, added to its base; indirect is refused once read. */
int ehf_pointer(const struct ehf_reader *r, struct ehf_cur *c, uint8_t enc, uint64_t *val,
		const char *what)
{
	uint64_t at = c->at, base = 0, raw = 0;
	unsigned int size = ehf_enc_size(enc);
	int err;

	if (enc == DW_EH_PE_omit)
		return emu_reject(r->v, r->bad, "%s at 0x%llx: %s at 0x%llx: encoding omitted",
				  r->kind, (ull)r->rec, what, (ull)at);
	err = pointer_base(r, c, enc, &base, what);
	if (err)
		return err;
	if (ENC_FORMAT(enc) == DW_EH_PE_uleb128)
		err = ehf_uleb(r, c, &raw, what);
	else if (ENC_FORMAT(enc) == DW_EH_PE_sleb128)
		err = ehf_sleb(r, c, (int64_t *)&raw, what);
	else if (!size)
		return emu_reject(r->v, r->bad, "%s at 0x%llx: %s at 0x%llx: encoding 0x%02x of "
				  "unknown format", r->kind, (ull)r->rec, what, (ull)at, enc);
	else
		err = ehf_uint(r, c, size, &raw, what);
	if (err)
		return err;
	if (size && size < 8 && (enc & DW_EH_PE_signed))
		raw = size == 2 ? (uint64_t)(int16_t)raw : (uint64_t)(int32_t)raw;
	if (enc & DW_EH_PE_indirect)
		return emu_reject(r->v, EMU_R_EHF_ENCODING_UNSUPPORTED, "%s at 0x%llx: %s at "
				  "0x%llx: indirect encoding 0x%02x", r->kind, (ull)r->rec, what,
				  (ull)at, enc);
	*val = base + raw;
	return 0;
}

/*
 * A CIE's or FDE's length field at @addr (its read bounded by .eh_frame's
 * mapping, as the kernel bounds it) and the record's end, checked against
 * @max and the mapping's end.
 */
int ehf_record_end(const struct ehf_reader *r, uint64_t addr, uint32_t max, uint64_t *end)
{
	uint64_t vma_end = r->e->eh_frame_vma_end, len;
	uint8_t b[4];

	if (addr + 4 > vma_end)
		return emu_reject(r->v, r->past, "%s at 0x%llx: length field past .eh_frame's "
				  "mapping end 0x%llx", r->kind, (ull)addr, (ull)vma_end);
	if (emu_read(r->mem, addr, b, sizeof(b)))
		return emu_reject(r->v, r->fault, "%s at 0x%llx: length field unreadable", r->kind,
				  (ull)addr);
	len = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;
	if (!len || len == EHF_DWARF64_LENGTH || len > max)
		return emu_reject(r->v, r->bad, "%s at 0x%llx: length 0x%llx (%s)", r->kind,
				  (ull)addr, (ull)len, len == EHF_DWARF64_LENGTH ? "DWARF64" :
				  len ? "over the limit" : "a terminator");
	*end = addr + 4 + len;
	if (*end < addr || *end > vma_end)
		return emu_reject(r->v, EMU_R_EHF_FAULT, "%s at 0x%llx: ends at 0x%llx, past "
				  ".eh_frame's mapping end 0x%llx", r->kind, (ull)addr,
				  (ull)*end, (ull)vma_end);
	return 0;
}

/* The FDE's function: pc_begin in the CIE's encoding, pc_range in its format alone. */
static int fde_function(const struct ehf_reader *r, struct ehf_cur *c, struct ehf_fde *fde)
{
	const struct emu_eh_frame *e = r->e;
	int err;

	err = ehf_pointer(r, c, fde->cie.fde_enc, &fde->func, "pc_begin");
	if (err)
		return err;
	if (fde->func < e->text_start || fde->func >= e->text_end)
		return emu_reject(r->v, EMU_R_EHF_FDE, "FDE at 0x%llx: function 0x%llx outside the "
				  "text 0x%llx..0x%llx", (ull)r->rec, (ull)fde->func,
				  (ull)e->text_start, (ull)e->text_end);
	err = ehf_pointer(r, c, ENC_FORMAT(fde->cie.fde_enc), &fde->size, "pc_range");
	if (err)
		return err;
	if (fde->func + fde->size < fde->func || fde->func + fde->size > e->text_end)
		return emu_reject(r->v, EMU_R_EHF_FDE, "FDE at 0x%llx: function 0x%llx of 0x%llx "
				  "bytes past the text's end 0x%llx", (ull)r->rec, (ull)fde->func,
				  (ull)fde->size, (ull)e->text_end);
	return 0;
}

int ehf_read_fde(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t addr,
		 struct ehf_fde *fde, struct emu_verdict *v)
{
	struct ehf_reader r = { e, mem, v, "FDE", addr, EMU_R_EHF_FDE, EMU_R_EHF_FDE,
				EMU_R_EHF_FAULT };
	struct ehf_cur c = { addr + 4, 0 };
	uint64_t cie_off, cie, len;
	int err;

	fde->addr = addr;
	err = ehf_record_end(&r, addr, EMU_EHF_MAX_FDE_LENGTH, &c.end);
	if (!err)
		err = ehf_uint(&r, &c, 4, &cie_off, "CIE pointer");
	if (err)
		return err;
	cie = c.at - 4 - cie_off;
	if (cie + EHF_CIE_MIN_LENGTH > addr || cie < e->eh_frame_start)
		return emu_reject(v, EMU_R_EHF_FDE, "FDE at 0x%llx: CIE pointer 0x%llx: a CIE at "
				  "0x%llx, %s", (ull)addr, (ull)cie_off, (ull)cie,
				  cie < e->eh_frame_start ? "before .eh_frame" :
				  "not before the FDE");
	err = ehf_read_cie(e, mem, cie, &fde->cie, v);
	if (!err)
		err = fde_function(&r, &c, fde);
	if (!err && fde->cie.aug_data) {
		err = ehf_uleb(&r, &c, &len, "augmentation data length");
		if (!err && len > c.end - c.at)
			return emu_reject(v, EMU_R_EHF_FDE, "FDE at 0x%llx: %llu bytes of "
					  "augmentation data past its end 0x%llx", (ull)addr,
					  (ull)len, (ull)c.end);
		c.at += len;
	}
	fde->insn_start = c.at;
	fde->insn_end = c.end;
	return err;
}

/* The header's four bytes: version, then the three encodings, each read on its own. */
static int header_bytes(const struct ehf_reader *r, struct ehf_cur *c, uint8_t f[4])
{
	static const char *const names[4] = { "version", "eh_frame_ptr encoding",
					       "fde_count encoding", "table encoding" };
	uint64_t b;
	int err;

	for (unsigned int i = 0; i < 4; i++) {
		err = ehf_uint(r, c, 1, &b, names[i]);
		if (err)
			return err;
		f[i] = (uint8_t)b;
		if (!i && b != 1)
			return emu_reject(r->v, EMU_R_EHF_HDR_VERSION, ".eh_frame_hdr at 0x%llx: "
					  "version %llu, not 1", (ull)r->rec, (ull)b);
	}
	if (f[2] == DW_EH_PE_omit || f[3] == DW_EH_PE_omit)
		return emu_reject(r->v, EMU_R_EHF_HDR_NO_TABLE, ".eh_frame_hdr at 0x%llx: no "
				  "search table (fde_count encoding 0x%02x, table encoding 0x%02x)",
				  (ull)r->rec, f[2], f[3]);
	return 0;
}

/* eh_frame_read_header(): the fields, the table's extent, the mapping of .eh_frame. */
static int read_header(struct emu_eh_frame *e, const struct emu_accessor *mem,
		       const struct emu_mappings *maps, struct emu_verdict *v)
{
	struct ehf_reader r = { e, mem, v, ".eh_frame_hdr", e->hdr_start, EMU_R_EHF_HDR_TABLE,
				EMU_R_EHF_HDR_ENCODING, EMU_R_EHF_HDR_FAULT };
	struct ehf_cur c = { e->hdr_start, e->hdr_end };
	uint64_t eh_frame, count;
	const struct emu_vma *vma;
	unsigned int entry;
	uint8_t f[4];
	int err;

	err = header_bytes(&r, &c, f);
	if (!err)
		err = ehf_pointer(&r, &c, f[1], &eh_frame, "eh_frame_ptr");
	if (!err)
		err = ehf_pointer(&r, &c, f[2], &count, "fde_count");
	if (err)
		return err;
	entry = 2 * ehf_enc_size(f[3]);
	if (!entry)
		return emu_reject(v, EMU_R_EHF_HDR_ENCODING, ".eh_frame_hdr at 0x%llx: table "
				  "encoding 0x%02x of no fixed size", (ull)e->hdr_start, f[3]);
	if (count > (e->hdr_end - c.at) / entry)
		return emu_reject(v, EMU_R_EHF_HDR_TABLE, ".eh_frame_hdr at 0x%llx: %llu entries "
				  "of %u bytes at 0x%llx past its end 0x%llx", (ull)e->hdr_start,
				  (ull)count, entry, (ull)c.at, (ull)e->hdr_end);
	vma = emu_mappings_find(maps, eh_frame);
	if (!vma)
		return emu_reject(v, EMU_R_EHF_NO_EH_FRAME, ".eh_frame_hdr at 0x%llx: no mapping "
				  "at its eh_frame_ptr 0x%llx", (ull)e->hdr_start, (ull)eh_frame);
	e->eh_frame_start = eh_frame;
	e->eh_frame_vma_end = vma->end;
	e->table_start = c.at;
	e->table_end = c.at + count * entry;
	e->fde_count = count;
	e->table_enc = f[3];
	return 0;
}

/* Entry @i's function start or FDE pointer (@second), read as the kernel reads it. */
static int table_field(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		       uint64_t i, bool second, uint64_t *val, struct emu_verdict *v)
{
	unsigned int size = ehf_enc_size(e->table_enc);
	uint64_t at = e->table_start + i * 2 * size;
	struct ehf_reader r = { e, mem, v, "search table entry", at, EMU_R_EHF_TABLE,
				EMU_R_EHF_HDR_ENCODING, EMU_R_EHF_FAULT };
	struct ehf_cur c = { at + (second ? size : 0), e->table_end };

	return ehf_pointer(&r, &c, e->table_enc, val, second ? "FDE pointer" : "function start");
}

int ehf_table_func(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t i,
		   uint64_t *func, struct emu_verdict *v)
{
	return table_field(e, mem, i, false, func, v);
}

int ehf_table_fde(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t i,
		  struct ehf_fde *fde, struct emu_verdict *v)
{
	uint64_t func, fde_addr;
	int err = table_field(e, mem, i, false, &func, v);

	if (!err)
		err = table_field(e, mem, i, true, &fde_addr, v);
	if (!err && fde_addr < e->eh_frame_start)
		return emu_reject(v, EMU_R_EHF_TABLE, "search table entry %llu: FDE 0x%llx "
				  "before .eh_frame 0x%llx", (ull)i, (ull)fde_addr,
				  (ull)e->eh_frame_start);
	if (!err)
		err = ehf_read_fde(e, mem, fde_addr, fde, v);
	if (!err && fde->func != func)
		return emu_reject(v, EMU_R_EHF_TABLE, "search table entry %llu: function "
				  "0x%llx, its FDE 0x%llx's 0x%llx", (ull)i, (ull)func,
				  (ull)fde_addr, (ull)fde->func);
	return err;
}

/* CONFIG_EH_FRAME_VALIDATION: each entry sorted, its FDE in .eh_frame, well-formed, its own. */
static int validate(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		    struct emu_verdict *v)
{
	uint64_t func, prev = 0;
	struct ehf_fde fde;
	int err;

	if (!e->fde_count)
		return emu_reject(v, EMU_R_EHF_TABLE, ".eh_frame_hdr at 0x%llx: no table entry",
				  (ull)e->hdr_start);
	for (uint64_t i = 0; i < e->fde_count; i++) {
		err = table_field(e, mem, i, false, &func, v);
		if (err)
			return err;
		if (i && func <= prev)
			return emu_reject(v, EMU_R_EHF_TABLE, "search table entry %llu: function "
					  "0x%llx not above 0x%llx", (ull)i, (ull)func, (ull)prev);
		prev = func;
		err = ehf_table_fde(e, mem, i, &fde, v);
		if (err)
			return err;
	}
	return 0;
}

int emu_eh_frame_add(struct emu_eh_frame *e, const struct emu_accessor *mem,
		     const struct emu_mappings *maps, bool validate_all, struct emu_verdict *v)
{
	int err = read_header(e, mem, maps, v);

	if (!err && validate_all)
		err = validate(e, mem, v);
	return err;
}

/*
 * The binary search over [low, high) for the last entry starting at or below
 * @ip (the table is trusted to be sorted), then its FDE pointer.
 */
static int search(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t ip,
		  uint64_t *func, uint64_t *fde_addr, struct emu_verdict *v)
{
	uint64_t low = 0, high = e->fde_count, mid, start, found = 0;
	bool have = false;
	int err;

	if (!ehf_enc_size(e->table_enc))
		return emu_reject(v, EMU_R_EHF_HDR_ENCODING, ".eh_frame_hdr at 0x%llx: table "
				  "encoding 0x%02x of no fixed size", (ull)e->hdr_start,
				  e->table_enc);
	while (low < high) {
		mid = low + (high - low) / 2;
		err = table_field(e, mem, mid, false, &start, v);
		if (err)
			return err;
		if (ip >= start) {
			found = mid;
			*func = start;
			have = true;
			low = mid + 1;
		} else {
			high = mid;
		}
	}
	if (!have)
		return -ENOENT;
	err = table_field(e, mem, found, true, fde_addr, v);
	if (!err && *fde_addr < e->eh_frame_start)
		return emu_reject(v, EMU_R_EHF_TABLE, "search table entry %llu: FDE 0x%llx before "
				  ".eh_frame 0x%llx", (ull)found, (ull)*fde_addr,
				  (ull)e->eh_frame_start);
	return err;
}

int emu_eh_frame_find(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		      const struct emu_arch_info *arch, uint64_t ip,
		      struct emu_unwind_rule *rule, struct emu_verdict *why)
{
	uint64_t func = 0, fde_addr = 0;
	struct ehf_fde fde;
	int err;

	/* the section is found by its text range (mtree_load()); then its table */
	if (ip < e->text_start || ip >= e->text_end || !e->fde_count)
		return -ENOENT;
	if (arch->sp_reg != EHF_REG_SP || arch->fp_reg != EHF_REG_FP || arch->ra_reg != EHF_REG_RA)
		return emu_reject(why, EMU_R_EHF_CFI_UNSUPPORTED, "%s: the reader knows x86_64's "
				  "registers only", arch->name);
	err = search(e, mem, ip, &func, &fde_addr, why);
	if (!err)
		err = ehf_read_fde(e, mem, fde_addr, &fde, why);
	if (err)
		return err;
	if (fde.func != func)
		return emu_reject(why, EMU_R_EHF_TABLE, "search table: function 0x%llx, its FDE "
				  "0x%llx's 0x%llx", (ull)func, (ull)fde_addr, (ull)fde.func);
	if (ip < fde.func || ip >= fde.func + fde.size)
		return -ENOENT;		/* a gap between functions */
	return ehf_cfi_rule(e, mem, &fde, ip, rule, NULL, why);
}
