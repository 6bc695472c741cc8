// SPDX-License-Identifier: GPL-2.0
/*
 * The .eh_frame proposal's reader (emu/eh_frame.c, emu/eh_frame_cfi.c).
 * Suite eh_frame: sections written byte by byte, one rule each, at
 * registration and at lookup, with the errno, the rule and (where it says
 * something a test should pin) the reason. Suite eh_frame_real: real code
 * (this program, libc, the -O0/-O2 programs of build/diff-objs), registered
 * with validation and looked up against elfutils' reading of the same file:
 * at every byte of the small programs and of the first 64 KiB of the large
 * objects' text, then at the first and last byte of each row. The walker
 * over an .eh_frame registration: a step by it, an unsupported row's
 * frame-pointer fallback, a broken one's removal in a kernel profile.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "eh_frame_object.h"
#include "emu/eh_frame.h"
#include "emu/mem_image.h"
#include "emu/registry.h"
#include "emu/unwind.h"

#define TEXT		0x400000ull	/* the text: [TEXT, TEXT + TEXT_LEN) */
#define TEXT_LEN	0x1000ull
#define HDR		0x600000ull	/* .eh_frame_hdr, in the mapping [HDR, HDR + 0x10000) */
#define EHF		0x600100ull	/* .eh_frame */
#define F1		(TEXT + 0x100)	/* the functions: F1 0x20 bytes, F2 0x10 */
#define F2		(TEXT + 0x200)
#define FDE1		0x16		/* F1's FDE in .eh_frame, after the usual CIE */

/* One section under test: its bytes, memory, mappings, and the last answer. */
struct ecase {
	uint8_t hdr[256];
	size_t hdr_len;
	uint8_t ehf[33000];
	size_t ehf_len;
	uint64_t hdr_end;	/* 0: HDR + hdr_len */
	uint64_t vma_end;	/* the end of the mapping of .eh_frame */
	struct emu_mem_image img;
	struct emu_accessor mem;
	struct emu_vma vmas[2];
	struct emu_mappings maps;	/* over @vmas: nothing to free */
	struct emu_eh_frame e;
	struct emu_verdict why;
	struct emu_unwind_rule rule;
};

#define B(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

/* The errno and the rule of a refusal. */
#define assert_refused(err, c, want, name)							\
	do {											\
		int err_ = (err);								\
		cr_assert_eq(err_, -(want), "answer %d, not %d (%s: %s)", err_, -(want),	\
			     emu_rule_name((c)->why.rule), (c)->why.reason);			\
		cr_assert_str_eq(emu_rule_name((c)->why.rule), name, "%s", (c)->why.reason);	\
	} while (0)

static void emit(uint8_t *buf, size_t *len, size_t cap, const void *p, size_t n)
{
	cr_assert_leq(*len + n, cap);
	memcpy(buf + *len, p, n);
	*len += n;
}

static void emit_le(uint8_t *buf, size_t *len, size_t cap, uint64_t v, unsigned int n)
{
	uint8_t b[8];

	for (unsigned int i = 0; i < n; i++)
		b[i] = (uint8_t)(v >> 8 * i);
	emit(buf, len, cap, b, n);
}

#define EHF_PUT(c, p, n) emit((c)->ehf, &(c)->ehf_len, sizeof((c)->ehf), p, n)
#define EHF_LE(c, v, n) emit_le((c)->ehf, &(c)->ehf_len, sizeof((c)->ehf), v, n)
#define HDR_LE(c, v, n) emit_le((c)->hdr, &(c)->hdr_len, sizeof((c)->hdr), v, n)

static void ecase_init(struct ecase *c)
{
	memset(c, 0, sizeof(*c));
	c->vma_end = HDR + 0x10000;
}

/* A record: its length field, then @body; returns its offset in .eh_frame. */
static size_t record(struct ecase *c, const uint8_t *body, size_t n)
{
	size_t off = c->ehf_len;

	EHF_LE(c, n, 4);
	EHF_PUT(c, body, n);
	return off;
}

/* A CIE "zR" (pcrel sdata4 FDE pointers), factors 1 and -8, RA 16, then @insns. */
static size_t cie(struct ecase *c, const uint8_t *insns, size_t n)
{
	uint8_t body[200];
	size_t len = 0;

	emit(body, &len, sizeof(body), B(0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b));
	emit(body, &len, sizeof(body), insns, n);
	return record(c, body, len);
}

/* The usual CIE: CFA = SP + 8, RA at CFA - 8. */
static size_t std_cie(struct ecase *c)
{
	return cie(c, B(DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1));
}

/* An FDE of the CIE at @cie_off for [@func, @func + @size): pcrel sdata4, no augmentation data. */
static size_t fde(struct ecase *c, size_t cie_off, uint64_t func, uint32_t size,
		  const uint8_t *insns, size_t n)
{
	size_t off = c->ehf_len;

	EHF_LE(c, 4 + 4 + 4 + 1 + n, 4);
	EHF_LE(c, off + 4 - cie_off, 4);
	EHF_LE(c, func - (EHF + off + 8), 4);
	EHF_LE(c, size, 4);
	EHF_LE(c, 0, 1);
	EHF_PUT(c, insns, n);
	return off;
}

/* The header: pcrel eh_frame_ptr, udata4 count, datarel sdata4 table of (function, FDE). */
static void hdr(struct ecase *c, unsigned int n, const uint64_t *funcs, const size_t *fdes)
{
	c->hdr_len = 0;
	HDR_LE(c, 1, 1);
	HDR_LE(c, 0x1b, 1);
	HDR_LE(c, 0x03, 1);
	HDR_LE(c, 0x3b, 1);
	HDR_LE(c, EHF - (HDR + 4), 4);
	HDR_LE(c, n, 4);
	for (unsigned int i = 0; i < n; i++) {
		HDR_LE(c, funcs[i] - HDR, 4);
		HDR_LE(c, EHF + fdes[i] - HDR, 4);
	}
}

static int add(struct ecase *c, bool validate)
{
	memset(&c->img, 0, sizeof(c->img));
	emu_mem_image_add(&c->img, HDR, c->hdr, c->hdr_len);
	emu_mem_image_add(&c->img, EHF, c->ehf, c->ehf_len);
	c->mem = emu_mem_image_accessor(&c->img);
	c->maps = (struct emu_mappings){ .vma = c->vmas, .cap = 2 };
	cr_assert_eq(emu_mappings_add(&c->maps, TEXT, TEXT + 0x2000,
				      EMU_PROT_READ | EMU_PROT_EXEC), 0);
	cr_assert_eq(emu_mappings_add(&c->maps, HDR, c->vma_end, EMU_PROT_READ), 0);
	c->e = (struct emu_eh_frame){ .hdr_start = HDR,
				      .hdr_end = c->hdr_end ? c->hdr_end : HDR + c->hdr_len,
				      .text_start = TEXT, .text_end = TEXT + TEXT_LEN };
	emu_verdict_init(&c->why);
	return emu_eh_frame_add(&c->e, &c->mem, &c->maps, validate, &c->why);
}

static int find(struct ecase *c, uint64_t ip)
{
	emu_verdict_init(&c->why);
	memset(&c->rule, 0xa5, sizeof(c->rule));
	return emu_eh_frame_find(&c->e, &c->mem, emu_arch_get(EMU_ARCH_X86_64), ip, &c->rule,
				 &c->why);
}

/*
 * The usual section: F1 a frame-pointer function (push %rbp at +0, mov
 * %rsp,%rbp at +1, leave at +0x13, ret at +0x14), F2 a leaf without CFI.
 */
static void std_section(struct ecase *c)
{
	size_t ci = std_cie(c), f[2];

	f[0] = fde(c, ci, F1, 0x20, B(DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
				      DW_CFA_offset | 6, 2, DW_CFA_advance_loc | 3,
				      DW_CFA_def_cfa_register, 6, DW_CFA_advance_loc | 0x10,
				      DW_CFA_def_cfa, 7, 8, DW_CFA_restore | 6));
	f[1] = fde(c, ci, F2, 0x10, B(DW_CFA_nop));
	hdr(c, 2, (const uint64_t[]){ F1, F2 }, f);
}

/* A section of one function, F1, with the given CIE and FDE instructions; registered. */
static void cfi_section(struct ecase *c, const uint8_t *cie_insns, size_t n1,
			const uint8_t *fde_insns, size_t n2)
{
	size_t ci, f;

	ecase_init(c);
	ci = cie(c, cie_insns, n1);
	f = fde(c, ci, F1, 0x20, fde_insns, n2);
	hdr(c, 1, (const uint64_t[]){ F1 }, &f);
	cr_assert_eq(add(c, true), 0, "%s", c->why.reason);
}

#define STD_CIE_INSNS B(DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1)

static void assert_loc(const struct emu_loc_rule *l, uint8_t kind, int64_t off)
{
	cr_assert_eq(l->kind, kind, "kind %u, not %u", l->kind, kind);
	if (kind != EMU_LOC_SAME)
		cr_assert_eq(l->off, off, "offset %lld, not %lld", (long long)l->off,
			     (long long)off);
}

static void assert_cfa(const struct ecase *c, uint8_t base, uint8_t reg, int64_t off)
{
	cr_assert_eq(c->rule.cfa_base, base);
	cr_assert_eq(c->rule.cfa_reg, reg);
	cr_assert_eq(c->rule.cfa_off, off);
	cr_assert_not(c->rule.cfa_deref);
}

/* ---------------------------------------------------------------- registration */

Test(eh_frame, add_decodes_the_header)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	cr_assert_eq(c.why.rule, EMU_R_OK);
	cr_assert_eq(c.e.eh_frame_start, EHF);
	cr_assert_eq(c.e.eh_frame_vma_end, HDR + 0x10000);
	cr_assert_eq(c.e.table_start, HDR + 12);
	cr_assert_eq(c.e.table_end, HDR + 12 + 2 * 8);
	cr_assert_eq(c.e.fde_count, 2);
	cr_assert_eq(c.e.table_enc, 0x3b);
}

Test(eh_frame, header_version_not_1)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	c.hdr[0] = 2;
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-version");
	cr_assert_str_eq(c.why.reason, ".eh_frame_hdr at 0x600000: version 2, not 1");
}

Test(eh_frame, header_without_a_table)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	c.hdr[2] = DW_EH_PE_omit;
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-no-table");
	c.hdr[2] = 0x03;
	c.hdr[3] = DW_EH_PE_omit;
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-no-table");
}

/* funcrel, aligned and indirect pointers: EOPNOTSUPP (indirect only once the value is read). */
Test(eh_frame, header_encodings_not_supported)
{
	static const uint8_t encs[] = { 0x4b, 0x5b, 0x9b, 0x83 };
	struct ecase c;

	for (unsigned int i = 0; i < sizeof(encs); i++) {
		ecase_init(&c);
		std_section(&c);
		c.hdr[1] = encs[i];
		assert_refused(add(&c, false), &c, EOPNOTSUPP, "eh-frame-encoding-unsupported");
	}
	/* an indirect pointer past the header's end is EINVAL: the read comes first */
	ecase_init(&c);
	std_section(&c);
	c.hdr[1] = 0x9b;
	c.hdr_end = HDR + 6;
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-table");
}

/* Omitted, unknown application, unknown format: EINVAL. */
Test(eh_frame, header_encodings_unknown)
{
	static const uint8_t encs[] = { DW_EH_PE_omit, 0x6b, 0x7b, 0x05, 0x08, 0x0f };
	struct ecase c;

	for (unsigned int i = 0; i < sizeof(encs); i++) {
		ecase_init(&c);
		std_section(&c);
		c.hdr[1] = encs[i];
		assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-encoding");
	}
	ecase_init(&c);
	std_section(&c);
	c.hdr[2] = 0x6b;	/* the count's encoding */
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-encoding");
}

/* Table entries must have a fixed size: no LEB128, no unknown format. */
Test(eh_frame, header_table_of_no_fixed_size)
{
	static const uint8_t encs[] = { DW_EH_PE_uleb128, DW_EH_PE_sleb128, 0x3d };
	struct ecase c;

	for (unsigned int i = 0; i < sizeof(encs); i++) {
		ecase_init(&c);
		std_section(&c);
		c.hdr[3] = encs[i];
		assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-encoding");
	}
}

/* An unknown table application passes registration (only the size is used) and fails lookups. */
Test(eh_frame, table_application_read_at_lookup)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	c.hdr[3] = 0x6b;
	cr_assert_eq(add(&c, false), 0, "%s", c.why.reason);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-hdr-encoding");
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-hdr-encoding");
	c.hdr[3] = 0x4b;	/* funcrel */
	cr_assert_eq(add(&c, false), 0, "%s", c.why.reason);
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-encoding-unsupported");
}

Test(eh_frame, header_table_past_its_end)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	c.hdr[8] = 3;		/* three entries, room for two */
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-table");
	cr_assert_str_eq(c.why.reason, ".eh_frame_hdr at 0x600000: 3 entries of 8 bytes at "
			 "0x60000c past its end 0x60001c");
	c.hdr[8] = 2;
	c.hdr_end = HDR + 27;	/* one byte short */
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-table");
}

/* A field of the header past its end (the kernel's EINVAL for a read past the range). */
Test(eh_frame, header_fields_past_its_end)
{
	static const unsigned int ends[] = { 1, 3, 6, 10 };
	struct ecase c;

	for (unsigned int i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		ecase_init(&c);
		std_section(&c);
		c.hdr_end = HDR + ends[i];
		assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-table");
	}
	cr_assert_str_eq(c.why.reason, ".eh_frame_hdr at 0x600000: fde_count at 0x600008 runs "
			 "past 0x60000a");
	c.hdr_end = HDR + 12;	/* no room for a table: an empty one is fine */
	c.hdr[8] = 0;
	cr_assert_eq(add(&c, false), 0, "%s", c.why.reason);
}

Test(eh_frame, header_unreadable)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	c.hdr_end = HDR + c.hdr_len;
	c.hdr_len = 6;		/* the image holds 6 bytes of it */
	assert_refused(add(&c, false), &c, EFAULT, "eh-frame-hdr-fault");
	cr_assert_str_eq(c.why.reason, ".eh_frame_hdr at 0x600000: eh_frame_ptr at 0x600004 "
			 "unreadable");
}

Test(eh_frame, no_mapping_at_eh_frame_ptr)
{
	struct ecase c;
	uint32_t ptr = (uint32_t)(0x700000 - (HDR + 4));

	ecase_init(&c);
	std_section(&c);
	memcpy(c.hdr + 4, &ptr, 4);
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-missing");
	cr_assert_str_eq(c.why.reason, ".eh_frame_hdr at 0x600000: no mapping at its "
			 "eh_frame_ptr 0x700000");
}

/* The header's pointers in other encodings: absolute, textrel, datarel; table udata8. */
Test(eh_frame, header_other_encodings)
{
	struct ecase c;
	size_t ci, f;

	ecase_init(&c);
	ci = std_cie(&c);
	f = fde(&c, ci, F1, 0x20, B(DW_CFA_nop));
	HDR_LE(&c, 1, 1);
	HDR_LE(&c, DW_EH_PE_udata8, 1);
	HDR_LE(&c, DW_EH_PE_textrel | DW_EH_PE_uleb128, 1);
	HDR_LE(&c, DW_EH_PE_datarel | DW_EH_PE_udata8, 1);
	HDR_LE(&c, EHF, 8);
	/* textrel uleb128: TEXT + value = 1, value = 1 - TEXT mod 2^64, 10 bytes */
	for (uint64_t v = 1 - TEXT, i = 0; i < 10; i++, v >>= 7)
		HDR_LE(&c, (v & 0x7f) | (i < 9 ? 0x80 : 0), 1);
	HDR_LE(&c, F1 - HDR, 8);
	HDR_LE(&c, EHF + f - HDR, 8);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	cr_assert_eq(c.e.eh_frame_start, EHF);
	cr_assert_eq(c.e.fde_count, 1);
	cr_assert_eq(c.e.table_start, HDR + 22);
	cr_assert_eq(c.e.table_end, HDR + 38);
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
}

/* A LEB128 of 11 bytes has more than 64 bits. */
Test(eh_frame, header_leb128_too_long)
{
	struct ecase c;

	ecase_init(&c);
	HDR_LE(&c, 1, 1);
	HDR_LE(&c, DW_EH_PE_uleb128, 1);
	HDR_LE(&c, 0x03, 1);
	HDR_LE(&c, 0x3b, 1);
	for (int i = 0; i < 10; i++)
		HDR_LE(&c, 0x80, 1);
	HDR_LE(&c, 0x00, 1);
	HDR_LE(&c, 0, 4);
	assert_refused(add(&c, false), &c, EINVAL, "eh-frame-hdr-encoding");
	cr_assert_str_eq(c.why.reason, ".eh_frame_hdr at 0x600000: eh_frame_ptr at 0x600004: "
			 "LEB128 of more than 64 bits");
}

Test(eh_frame, validation_needs_an_entry)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	c.hdr[8] = 0;
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-table");
	cr_assert_eq(add(&c, false), 0);
	cr_assert_eq(find(&c, F1), -ENOENT);
	cr_assert_eq(c.why.rule, EMU_R_OK);
}

Test(eh_frame, validation_unsorted)
{
	struct ecase c;
	size_t ci, f[2];

	ecase_init(&c);
	ci = std_cie(&c);
	f[0] = fde(&c, ci, F2, 0x10, B(DW_CFA_nop));
	f[1] = fde(&c, ci, F1, 0x20, B(DW_CFA_nop));
	hdr(&c, 2, (const uint64_t[]){ F2, F1 }, f);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-table");
	cr_assert_str_eq(c.why.reason, "search table entry 1: function 0x400100 not above "
			 "0x400200");
	/* equal starts are not sorted either */
	hdr(&c, 2, (const uint64_t[]){ F2, F2 }, f);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-table");
	cr_assert_eq(add(&c, false), 0, "%s", c.why.reason);
}

Test(eh_frame, validation_fde_of_another_function)
{
	struct ecase c;
	size_t ci, f[2];

	ecase_init(&c);
	ci = std_cie(&c);
	f[1] = fde(&c, ci, F1, 0x20, B(DW_CFA_nop));
	f[0] = fde(&c, ci, F2, 0x10, B(DW_CFA_nop));
	hdr(&c, 2, (const uint64_t[]){ F1, F2 }, f);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-table");
	cr_assert_str_eq(c.why.reason, "search table entry 0: function 0x400100, its FDE "
			 "0x600128's 0x400200");
	/* the lookup makes the same check */
	cr_assert_eq(add(&c, false), 0);
	assert_refused(find(&c, F1 + 4), &c, EINVAL, "eh-frame-table");
}

Test(eh_frame, validation_fde_before_eh_frame)
{
	struct ecase c;
	int32_t before = (int32_t)(EHF - 0x10 - HDR);

	ecase_init(&c);
	std_section(&c);
	memcpy(c.hdr + 12 + 8 + 4, &before, 4);	/* entry 1's FDE */
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-table");
	cr_assert_str_eq(c.why.reason, "search table entry 1: FDE 0x6000f0 before .eh_frame "
			 "0x600100");
	cr_assert_eq(add(&c, false), 0);
	assert_refused(find(&c, F2), &c, EINVAL, "eh-frame-table");
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
}

/* A CIE in the parts each check concerns; the FDE at F1 uses it. */
static void cie_case(struct ecase *c, const uint8_t *body, size_t n)
{
	size_t ci, f;

	ecase_init(c);
	ci = record(c, body, n);
	f = fde(c, ci, F1, 0x20, B(DW_CFA_nop));
	hdr(c, 1, (const uint64_t[]){ F1 }, &f);
}

/* CIE fields: id, version, string, factors, RA column, augmentations. */
#define CIE_BODY(...) B(0, 0, 0, 0, __VA_ARGS__)

Test(eh_frame, cie_version_not_1)
{
	struct ecase c;

	cie_case(&c, CIE_BODY(3, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EOPNOTSUPP, "eh-frame-cie-unsupported");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: version 3, not 1");
	/* without validation the lookup finds it, and the section is kept */
	cr_assert_eq(add(&c, false), 0);
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cie-unsupported");
}

Test(eh_frame, cie_ra_column)
{
	struct ecase c;

	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x78, 30, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EOPNOTSUPP, "eh-frame-cie-unsupported");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: return address column 30, not 16");
}

Test(eh_frame, cie_id_length_and_string)
{
	struct ecase c;
	uint8_t body[140] = { 0 };

	cie_case(&c, B(1, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: id 0x1, not 0");
	body[4] = 1;
	cie_case(&c, body, 129);	/* over EMU_EHF_MAX_CIE_LENGTH */
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: length 0x81 (over the limit)");
	memset(body + 5, 'z', 16);	/* no NUL in 16 bytes */
	cie_case(&c, body, 40);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: augmentation string at 0x600109 "
			 "without a NUL in 16 bytes");
	/* a CIE shorter than its fields: the read past its end */
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x78));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: return address column at 0x60010e "
			 "runs past 0x60010e");
}

Test(eh_frame, cie_factors)
{
	struct ecase c;

	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 2, 0x78, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: code alignment factor 2, not 1..1");
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 0, 0x78, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x70, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: data alignment factor -16, not -8..-1");
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x08, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x00, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	/* -1 is within the bounds */
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x7f, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
}

Test(eh_frame, cie_augmentations)
{
	struct ecase c;

	cie_case(&c, CIE_BODY(1, 'z', 'R', 'X', 0, 1, 0x78, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EOPNOTSUPP, "eh-frame-cie-unsupported");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: augmentation 'X' in \"zRX\"");
	cie_case(&c, CIE_BODY(1, 'R', 0, 1, 0x78, 16, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: 'R' without 'z'");
	cie_case(&c, CIE_BODY(1, 'S', 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: 'z' not first in \"SzR\"");
	/* augmentation data longer than its fields */
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x78, 16, 2, 0x1b, 0, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: augmentation data ends at 0x600112, its "
			 "fields at 0x600111");
	/* augmentation data past the CIE */
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x78, 16, 9, 0x1b));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	/* 'L' and no 'R': an absolute pc_begin; the FDE's augmentation data then holds the LSDA */
	cie_case(&c, CIE_BODY(1, 'z', 'L', 0, 1, 0x78, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
}

/* 'P': the personality pointer is skipped, its indirect bit cleared; funcrel refused. */
Test(eh_frame, cie_personality)
{
	struct ecase c;

	cie_case(&c, CIE_BODY(1, 'z', 'P', 'R', 0, 1, 0x78, 16, 6, 0x9b, 1, 2, 3, 4, 0x1b,
			      DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1));
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 8);
	cie_case(&c, CIE_BODY(1, 'z', 'P', 'R', 0, 1, 0x78, 16, 6, 0x4b, 1, 2, 3, 4, 0x1b,
			      DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EOPNOTSUPP, "eh-frame-encoding-unsupported");
	cr_assert_str_eq(c.why.reason, "CIE at 0x600100: personality routine at 0x600112: "
			 "funcrel encoding 0x4b");
}

/* The FDE pointer encoding 'R': funcrel refused, omitted or unknown malformed. */
Test(eh_frame, fde_pointer_encoding)
{
	struct ecase c;

	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x4b, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EOPNOTSUPP, "eh-frame-encoding-unsupported");
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x78, 16, 1, 0xff, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	cie_case(&c, CIE_BODY(1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1d, DW_CFA_def_cfa, 7, 8));
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
}

Test(eh_frame, signal_frame_registered_not_interpreted)
{
	struct ecase c;

	cie_case(&c, CIE_BODY(1, 'z', 'R', 'S', 0, 1, 0x78, 16, 1, 0x1b, DW_CFA_def_cfa, 7, 8));
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600115: its CIE is a signal frame's ('S')");
	cr_assert_eq(find(&c, F1 + 0x20), -ENOENT);
}

Test(eh_frame, fde_function_outside_the_text)
{
	struct ecase c;
	size_t ci, f;

	ecase_init(&c);
	ci = std_cie(&c);
	f = fde(&c, ci, TEXT - 0x10, 0x20, B(DW_CFA_nop));
	hdr(&c, 1, (const uint64_t[]){ TEXT - 0x10 }, &f);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: function 0x3ffff0 outside the text "
			 "0x400000..0x401000");
	ecase_init(&c);
	ci = std_cie(&c);
	f = fde(&c, ci, TEXT + TEXT_LEN - 0x10, 0x11, B(DW_CFA_nop));
	hdr(&c, 1, (const uint64_t[]){ TEXT + TEXT_LEN - 0x10 }, &f);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: function 0x400ff0 of 0x11 bytes past "
			 "the text's end 0x401000");
}

Test(eh_frame, fde_cie_pointer)
{
	struct ecase c;
	uint32_t ptr;

	ecase_init(&c);
	std_section(&c);
	ptr = 0x1000;		/* a CIE before .eh_frame */
	memcpy(c.ehf + FDE1 + 4, &ptr, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: CIE pointer 0x1000: a CIE at 0x5ff11a, "
			 "before .eh_frame");
	ptr = 4;		/* the FDE itself: less than a CIE's size before it */
	memcpy(c.ehf + FDE1 + 4, &ptr, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: CIE pointer 0x4: a CIE at 0x600116, "
			 "not before the FDE");
	ptr = 4 + 13;		/* 13 bytes before the FDE: a CIE may start there */
	memcpy(c.ehf + FDE1 + 4, &ptr, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-cie");
	ptr = 4 + 12;		/* 12 bytes before: not */
	memcpy(c.ehf + FDE1 + 4, &ptr, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	ptr = FDE1 + 4;		/* the CIE as it is: fine */
	memcpy(c.ehf + FDE1 + 4, &ptr, 4);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
}

Test(eh_frame, fde_length)
{
	struct ecase c;
	uint32_t len;

	ecase_init(&c);
	std_section(&c);
	len = 0xffffffff;
	memcpy(c.ehf + FDE1, &len, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: length 0xffffffff (DWARF64)");
	len = 0;
	memcpy(c.ehf + FDE1, &len, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	len = EMU_EHF_MAX_FDE_LENGTH + 1;
	memcpy(c.ehf + FDE1, &len, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	len = 3;		/* no room for the CIE pointer */
	memcpy(c.ehf + FDE1, &len, 4);
	assert_refused(add(&c, true), &c, EINVAL, "eh-frame-fde");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: CIE pointer at 0x60011a runs past "
			 "0x60011d");
}

/* A record that ends past .eh_frame's mapping: EFAULT, at validation and at lookup. */
Test(eh_frame, record_past_the_mapping)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	c.vma_end = EHF + 0x20;	/* F1's FDE starts at 0x16 and is 0x1e long */
	assert_refused(add(&c, true), &c, EFAULT, "eh-frame-fault");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: ends at 0x600134, past .eh_frame's "
			 "mapping end 0x600120");
	cr_assert_eq(add(&c, false), 0);
	assert_refused(find(&c, F1), &c, EFAULT, "eh-frame-fault");
	/* a length field past the mapping is EINVAL, as the kernel's bounded read makes it */
	c.vma_end = EHF + FDE1 + 3;
	cr_assert_eq(add(&c, false), 0);
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-fde");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: length field past .eh_frame's mapping "
			 "end 0x600119");
	/* inside the mapping but unreadable */
	c.vma_end = HDR + 0x10000;
	cr_assert_eq(add(&c, false), 0);
	c.img.regions[1].len = FDE1 + 4 + 4 + 4 + 4 + 1;	/* up to its instructions */
	assert_refused(find(&c, F1), &c, EFAULT, "eh-frame-fault");
	cr_assert_str_eq(c.why.reason, "CFI of the FDE at 0x600116: opcode at 0x600127 "
			 "unreadable");
}

/* ---------------------------------------------------------------- lookup */

Test(eh_frame, rules_of_a_frame_pointer_function)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 8);
	assert_loc(&c.rule.ra, EMU_LOC_CFA_DEREF, -8);
	assert_loc(&c.rule.fp, EMU_LOC_SAME, 0);
	cr_assert_not(c.rule.outermost);
	cr_assert_not(c.rule.signal_frame);
	cr_assert_eq(c.rule.code_start, F1);
	cr_assert_eq(c.rule.code_end, F1 + 0x20);
	cr_assert_eq(find(&c, F1 + 1), 0);
	assert_cfa(&c, EMU_CFA_SP, 7, 16);
	assert_loc(&c.rule.fp, EMU_LOC_CFA_DEREF, -16);
	cr_assert_eq(find(&c, F1 + 3), 0);
	assert_cfa(&c, EMU_CFA_SP, 7, 16);
	for (uint64_t ip = F1 + 4; ip < F1 + 0x14; ip++) {
		cr_assert_eq(find(&c, ip), 0);
		assert_cfa(&c, EMU_CFA_FP, 6, 16);
		assert_loc(&c.rule.ra, EMU_LOC_CFA_DEREF, -8);
		assert_loc(&c.rule.fp, EMU_LOC_CFA_DEREF, -16);
	}
	cr_assert_eq(find(&c, F1 + 0x14), 0);	/* after leave: restored to the CIE's */
	assert_cfa(&c, EMU_CFA_SP, 7, 8);
	assert_loc(&c.rule.fp, EMU_LOC_SAME, 0);
	cr_assert_eq(find(&c, F2 + 0xf), 0);
	assert_cfa(&c, EMU_CFA_SP, 7, 8);
	cr_assert_eq(c.rule.code_start, F2);
	cr_assert_eq(c.rule.code_end, F2 + 0x10);
}

Test(eh_frame, no_fde_is_enoent)
{
	static const uint64_t ips[] = { TEXT - 1, TEXT, F1 - 1, F1 + 0x20, F2 - 1, F2 + 0x10,
					TEXT + TEXT_LEN - 1, TEXT + TEXT_LEN, 0, UINT64_MAX };
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	for (unsigned int i = 0; i < sizeof(ips) / sizeof(ips[0]); i++) {
		cr_assert_eq(find(&c, ips[i]), -ENOENT, "0x%llx", (unsigned long long)ips[i]);
		cr_assert_eq(c.why.rule, EMU_R_OK);
		cr_assert_str_eq(c.why.reason, "");
	}
}

Test(eh_frame, restore_in_the_cie)
{
	struct ecase c;

	cfi_section(&c, B(DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1, DW_CFA_restore | 6),
		    B(DW_CFA_nop));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600117: CIE instruction at 0x600116: "
			 "DW_CFA_restore in a CIE, register 0x6");
	cfi_section(&c, B(DW_CFA_def_cfa, 7, 8, DW_CFA_restore_extended, 3), B(DW_CFA_nop));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
}

Test(eh_frame, restore_in_the_fde)
{
	struct ecase c;

	/* the RA saved elsewhere, then restored: its kind back to the CIE's, its offset kept */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_undefined, 6, DW_CFA_advance_loc | 1,
					 DW_CFA_offset | 16, 3, DW_CFA_advance_loc | 1,
					 DW_CFA_restore | 16, DW_CFA_restore_extended, 6));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_loc(&c.rule.fp, EMU_LOC_SAME, 0);
	cr_assert_eq(find(&c, F1 + 1), 0, "%s", c.why.reason);
	assert_loc(&c.rule.ra, EMU_LOC_CFA_DEREF, -24);
	cr_assert_eq(find(&c, F1 + 2), 0, "%s", c.why.reason);
	assert_loc(&c.rule.ra, EMU_LOC_CFA_DEREF, -24);
	assert_loc(&c.rule.fp, EMU_LOC_SAME, 0);
}

Test(eh_frame, remember_and_restore_state)
{
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset, 16,
					 DW_CFA_remember_state, DW_CFA_advance_loc | 1,
					 DW_CFA_def_cfa_offset, 8, DW_CFA_advance_loc | 1,
					 DW_CFA_restore_state));
	cr_assert_eq(find(&c, F1 + 1), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 16);
	cr_assert_eq(find(&c, F1 + 2), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 8);
	cr_assert_eq(find(&c, F1 + 3), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 16);
	/* twice: over the depth of 1 */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_remember_state, DW_CFA_remember_state));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: FDE instruction at 0x600128: "
			 "DW_CFA_remember_state over the depth 0x1");
	/* nothing remembered */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_restore_state));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	/* remembered in the CIE: the stack is emptied before the FDE's instructions */
	cfi_section(&c, B(DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1, DW_CFA_remember_state),
		    B(DW_CFA_restore_state));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cfi_section(&c, B(DW_CFA_def_cfa, 7, 8, DW_CFA_offset | 16, 1, DW_CFA_remember_state),
		    B(DW_CFA_remember_state));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
}

Test(eh_frame, def_cfa_expression_not_interpreted)
{
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa_expression, 2, DW_OP_breg7, 8));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: FDE instruction at 0x600127: opcode not "
			 "interpreted: 0xf");
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_GNU_window_save));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_set_loc, 0, 0, 0, 0, 0, 0, 0, 0));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	/* past the address the instruction is never reached */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_advance_loc | 4, DW_CFA_def_cfa_expression, 2,
					 DW_OP_breg7, 8));
	cr_assert_eq(find(&c, F1 + 3), 0, "%s", c.why.reason);
	assert_refused(find(&c, F1 + 4), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
}

Test(eh_frame, expressions)
{
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_expression, 16, 2, DW_OP_breg7, 0));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: FDE instruction at 0x600127: an "
			 "expression for register 0x10");
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_val_expression, 6, 2, DW_OP_breg7, 0));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_expression, 7, 2, DW_OP_breg7, 0));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	/* for %rbx: skipped */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_expression, 3, 2, DW_OP_breg7, 0,
					 DW_CFA_def_cfa_offset, 24));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 24);
	assert_loc(&c.rule.ra, EMU_LOC_CFA_DEREF, -8);
	assert_loc(&c.rule.fp, EMU_LOC_SAME, 0);
	/* a block past the FDE's end: malformed, whatever the register */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_expression, 16, 9, DW_OP_breg7, 0));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_val_expression, 3, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x01));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
}

/* CIE instructions count: 2 here, so 16382 FDE nops are the limit. */
Test(eh_frame, instruction_limit)
{
	static uint8_t nops[EMU_EHF_CFI_INSN_LIMIT];
	struct ecase c;

	memset(nops, DW_CFA_nop, sizeof(nops));
	cfi_section(&c, STD_CIE_INSNS, nops, EMU_EHF_CFI_INSN_LIMIT - 2);
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	cfi_section(&c, STD_CIE_INSNS, nops, EMU_EHF_CFI_INSN_LIMIT - 1);
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: FDE instruction at 0x604125: over the "
			 "instruction limit 0x4000");
	/* the instructions after the address are not counted */
	nops[0] = DW_CFA_advance_loc | 1;
	cfi_section(&c, STD_CIE_INSNS, nops, EMU_EHF_CFI_INSN_LIMIT);
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_refused(find(&c, F1 + 1), &c, EINVAL, "eh-frame-cfi");
}

Test(eh_frame, cfa_rules)
{
	struct ecase c;

	cfi_section(&c, B(DW_CFA_offset | 16, 1), B(DW_CFA_nop));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600113: the row at 0x400100: no CFA rule, the "
			 "FDE's function at 0x400100");
	cfi_section(&c, B(DW_CFA_def_cfa_offset, 8), B(DW_CFA_nop));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cfi_section(&c, B(DW_CFA_def_cfa_register, 7), B(DW_CFA_nop));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cfi_section(&c, B(DW_CFA_def_cfa_offset_sf, 0x7e), B(DW_CFA_nop));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	/* the factored forms */
	cfi_section(&c, B(DW_CFA_def_cfa_sf, 7, 0x7e, DW_CFA_offset | 16, 1),
		    B(DW_CFA_advance_loc | 1, DW_CFA_def_cfa_offset_sf, 0x7c));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 16);
	cr_assert_eq(find(&c, F1 + 1), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_SP, 7, 32);
	/* another register: EMU_CFA_REG */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa, 10, 0));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_cfa(&c, EMU_CFA_REG, 10, 0);
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa_register, 0xac, 0x02));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: the row at 0x400100: CFA from register "
			 "0x12c");
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa_register, 0x80, 0x80, 0x80, 0x80, 0x10));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
}

Test(eh_frame, cfa_offsets)
{
	struct ecase c;

	/* 2^31: beyond 32 bits */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa_offset, 0x80, 0x80, 0x80, 0x80, 0x08));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: the row at 0x400100: CFA offset beyond "
			 "32 bits: 0x80000000");
	/* 2^63: above LONG_MAX, refused as read */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x01));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: FDE instruction at 0x600127: CFA offset "
			 "above LONG_MAX 0x8000000000000000");
	/* an 11-byte LEB128 */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa, 7, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x01));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	/* a factored offset of 2^62 * -8 overflows */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_offset_extended, 16, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x40));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	/* the RA's offset beyond 32 bits */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_offset_extended_sf, 16, 0x80, 0x80, 0x80, 0x80,
					 0x70));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: the row at 0x400100: RA offset beyond "
			 "32 bits: 0x800000000");
}

Test(eh_frame, register_rules)
{
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_register, 6, 3, DW_CFA_val_offset, 16, 2));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	cr_assert_eq(c.rule.fp.kind, EMU_LOC_REG);
	cr_assert_eq(c.rule.fp.reg, 3);
	cr_assert_eq(c.rule.fp.off, 0);
	assert_loc(&c.rule.ra, EMU_LOC_CFA, -16);
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_same_value, 16, DW_CFA_offset_extended_sf, 6,
					 0x7e, DW_CFA_val_offset_sf, 3, 1));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_loc(&c.rule.ra, EMU_LOC_SAME, 0);
	assert_loc(&c.rule.fp, EMU_LOC_CFA_DEREF, 16);
	cr_assert_not(c.rule.outermost);
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_register, 16, 0xac, 0x02));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	cr_assert_str_eq(c.why.reason, "FDE at 0x600116: the row at 0x400100: RA in register "
			 "0x12c");
	/* the ignored registers' rules are read all the same */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_register, 3, 0x80));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_GNU_args_size, 0x10, DW_CFA_offset | 3, 3,
					 DW_CFA_undefined, 12));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	assert_loc(&c.rule.ra, EMU_LOC_CFA_DEREF, -8);
}

Test(eh_frame, undefined_ra_is_outermost)
{
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_undefined, 16, DW_CFA_undefined, 6));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
	cr_assert(c.rule.outermost);
	assert_loc(&c.rule.fp, EMU_LOC_SAME, 0);
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_undefined, 7));
	assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
}

/* SP's only rule is the CFA itself, val_offset(0). */
Test(eh_frame, sp_rules)
{
	static const uint8_t refused[][3] = {
		{ DW_CFA_offset | 7, 1 }, { DW_CFA_same_value, 7 }, { DW_CFA_register, 7, 3 },
		{ DW_CFA_val_offset, 7, 1 }, { DW_CFA_offset_extended_sf, 7, 0 },
	};
	struct ecase c;

	for (unsigned int i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		cfi_section(&c, STD_CIE_INSNS, refused[i], 3);
		assert_refused(find(&c, F1), &c, EOPNOTSUPP, "eh-frame-cfi-unsupported");
	}
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_val_offset, 7, 0, DW_CFA_val_offset_sf, 7, 0));
	cr_assert_eq(find(&c, F1), 0, "%s", c.why.reason);
}

Test(eh_frame, advance_forms)
{
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_advance_loc1, 2, DW_CFA_def_cfa_offset, 16,
					 DW_CFA_advance_loc2, 3, 0, DW_CFA_def_cfa_offset, 24,
					 DW_CFA_advance_loc4, 4, 0, 0, 0,
					 DW_CFA_def_cfa_offset, 32));
	for (uint64_t ip = F1; ip < F1 + 0x20; ip++) {
		cr_assert_eq(find(&c, ip), 0, "%s", c.why.reason);
		assert_cfa(&c, EMU_CFA_SP, 7, ip < F1 + 2 ? 8 : ip < F1 + 5 ? 16 :
					      ip < F1 + 9 ? 24 : 32);
	}
	/* an advance's operand past the FDE's end */
	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_advance_loc2, 3));
	assert_refused(find(&c, F1), &c, EINVAL, "eh-frame-cfi");
	cr_assert_str_eq(c.why.reason, "CFI of the FDE at 0x600116: advance_loc delta at "
			 "0x600128 runs past 0x600129");
}

/* The table is read at each lookup: an entry changed since registration. */
Test(eh_frame, table_changed_after_registration)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	c.hdr[12] += 4;		/* entry 0's function start: F1 + 4 */
	assert_refused(find(&c, F1 + 8), &c, EINVAL, "eh-frame-table");
	cr_assert_eq(find(&c, F1), -ENOENT);	/* below the first entry now */
	c.img.regions[0].len = 12;		/* the table unreadable */
	assert_refused(find(&c, F1 + 8), &c, EFAULT, "eh-frame-fault");
}

/* Only x86_64's registers are known. */
Test(eh_frame, other_architecture)
{
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	emu_verdict_init(&c.why);
	assert_refused(emu_eh_frame_find(&c.e, &c.mem, emu_arch_get(EMU_ARCH_AARCH64), F1,
					 &c.rule, &c.why), &c, EOPNOTSUPP,
		       "eh-frame-cfi-unsupported");
}

/* ---------------------------------------------------------------- real code, against elfutils */

#define EVERY_BYTE_PREFIX 0x10000	/* a large object: every byte of its first 64 KiB of text */

/* What both readers said at the addresses compared. */
struct tally {
	unsigned long compared;		/* addresses looked up by both */
	unsigned long rows;		/* libdw rows checked at their first and last byte only */
	unsigned long rules;		/* the same rule */
	unsigned long none;		/* neither has an FDE there */
	unsigned long plt_expr;		/* EOPNOTSUPP, libdw a CFA expression, in .plt */
	unsigned long cfa_expr;		/* the same elsewhere */
	unsigned long reg_expr;		/* EOPNOTSUPP, libdw an expression for RA or FP */
	unsigned long sp_rule;		/* EOPNOTSUPP, libdw a rule for SP */
	unsigned long signal;		/* EOPNOTSUPP, libdw a signal frame */
	unsigned long disagree;
};

/* libdw's row at one file address, in the rule's terms. */
struct ref {
	bool found;		/* an FDE covers the address */
	bool cfa_expr, reg_expr, sp_rule, signal;	/* what the kernel does not interpret */
	bool cfa_undefined;
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct emu_loc_rule ra, fp;
	bool ra_undefined;
	uint64_t start, end;	/* the row's addresses, inside the FDE's function */
};

/*
 * One register's rule as a location: same value or undefined (@undefined),
 * offset(N) [call_frame_cfa, plus_uconst N], val_offset(N) (the same and
 * stack_value), register(R) [regx R]. False: anything else, an expression.
 */
static bool ref_loc(Dwarf_Frame *f, int reg, struct emu_loc_rule *out, bool *undefined)
{
	Dwarf_Op mem[3], *ops;
	size_t n, i = 1;

	*out = (struct emu_loc_rule){ .kind = EMU_LOC_SAME };
	*undefined = false;
	if (dwarf_frame_register(f, reg, mem, &ops, &n))
		return false;
	if (!n) {
		*undefined = ops != NULL;
		return true;
	}
	if (n == 1 && ops[0].atom == DW_OP_regx) {
		*out = (struct emu_loc_rule){ .kind = EMU_LOC_REG, .reg = (uint8_t)ops[0].number };
		return ops[0].number <= UINT8_MAX;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	out->kind = EMU_LOC_CFA_DEREF;
	if (i < n && ops[i].atom == DW_OP_plus_uconst)
		out->off = (int64_t)ops[i++].number;
	if (i < n && ops[i].atom == DW_OP_stack_value) {
		out->kind = EMU_LOC_CFA;
		i++;
	}
	return i == n;
}

static void ref_at(const struct object *o, uint64_t addr, struct ref *ref)
{
	struct emu_loc_rule sp;
	Dwarf_Frame *f = NULL;
	Dwarf_Addr start, end;
	Dwarf_Op *ops;
	bool undefined;
	size_t n;

	*ref = (struct ref){ 0 };
	if (dwarf_cfi_addrframe(o->cfi, addr, &f))
		return;
	ref->found = true;
	dwarf_frame_info(f, &start, &end, &ref->signal);
	ref->start = start;
	ref->end = end;
	if (dwarf_frame_cfa(f, &ops, &n) || !n)
		ref->cfa_undefined = true;
	else if (n == 1 && ops[0].atom == DW_OP_bregx)
		ref->cfa_reg = ops[0].number, ref->cfa_off = (int64_t)ops[0].number2;
	else
		ref->cfa_expr = true;
	ref->reg_expr = !ref_loc(f, 16, &ref->ra, &ref->ra_undefined) ||
			!ref_loc(f, 6, &ref->fp, &undefined);
	/* SP: the kernel takes val_offset(0) only, what the x86_64 ABI's CFI starts with */
	ref->sp_rule = !ref_loc(f, 7, &sp, &undefined) || sp.kind != EMU_LOC_CFA || sp.off;
	free(f);
}

static bool same_rule(const struct emu_unwind_rule *r, const struct ref *ref, uint64_t bias)
{
	uint8_t base = ref->cfa_reg == 7 ? EMU_CFA_SP : ref->cfa_reg == 6 ? EMU_CFA_FP :
		       EMU_CFA_REG;

	return !ref->cfa_undefined && r->cfa_base == base && r->cfa_reg == ref->cfa_reg &&
	       r->cfa_off == ref->cfa_off && !r->cfa_deref &&
	       r->outermost == ref->ra_undefined &&
	       r->ra.kind == ref->ra.kind && r->ra.off == ref->ra.off && r->ra.reg == ref->ra.reg &&
	       r->fp.kind == ref->fp.kind && r->fp.off == ref->fp.off && r->fp.reg == ref->fp.reg &&
	       r->code_start <= ref->start + bias && ref->end + bias <= r->code_end;
}

/* Counts an EOPNOTSUPP libdw explains; false when it does not. */
static bool explained(const struct object *o, uint64_t ip, const struct ref *ref,
		      struct tally *t)
{
	if (!ref->found)
		return false;
	if (ref->signal)
		t->signal++;
	else if (ref->cfa_expr && ip >= o->plt_start && ip < o->plt_end)
		t->plt_expr++;
	else if (ref->cfa_expr)
		t->cfa_expr++;
	else if (ref->sp_rule)
		t->sp_rule++;
	else if (ref->reg_expr)
		t->reg_expr++;
	else
		return false;
	return true;
}

static void log_disagreement(const struct object *o, uint64_t ip, int err,
			     const struct emu_verdict *v, const struct emu_unwind_rule *r,
			     const struct ref *ref)
{
	cr_log_error("%s +0x%llx: ours %d (%s: %s) CFA %u/r%u%+lld RA %u%+lld%s FP %u%+lld; "
		     "libdw %s CFA r%llu%+lld RA %u%+lld%s FP %u%+lld", o->path,
		     (unsigned long long)(ip - o->bias), err, emu_rule_name(v->rule), v->reason,
		     r->cfa_base, r->cfa_reg, (long long)r->cfa_off, r->ra.kind,
		     (long long)r->ra.off, r->outermost ? " outermost" : "", r->fp.kind, (long long)r->fp.off,
		     ref->found ? "found" : "none", (unsigned long long)ref->cfa_reg,
		     (long long)ref->cfa_off, ref->ra.kind, (long long)ref->ra.off,
		     ref->ra_undefined ? " undefined" : "", ref->fp.kind, (long long)ref->fp.off);
}

/* Both readers at @ip; returns the end of the row there when both gave it, else @ip + 1. */
static uint64_t compare_at(const struct object *o, uint64_t ip, struct tally *t)
{
	struct emu_unwind_rule r = { 0 };
	struct emu_verdict v;
	struct ref ref;
	int err;

	emu_verdict_init(&v);
	err = emu_eh_frame_find(&o->e, &o->mem, emu_arch_get(EMU_ARCH_X86_64), ip, &r, &v);
	ref_at(o, ip - o->bias, &ref);
	t->compared++;
	if (!ref.found && err == -ENOENT) {
		t->none++;
	} else if (err == -EOPNOTSUPP && explained(o, ip, &ref, t)) {
		cr_assert_eq(v.rule, EMU_R_EHF_CFI_UNSUPPORTED, "%s", v.reason);
	} else if (!err && ref.found && !ref.cfa_expr && !ref.reg_expr && !ref.sp_rule &&
		   !ref.signal && same_rule(&r, &ref, o->bias)) {
		t->rules++;
		return ref.end + o->bias;
	} else if (t->disagree++ < 8) {
		log_disagreement(o, ip, err, &v, &r, &ref);
	}
	return ip + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Every address of the text up to @every_byte_end; after it, each row both
 * readers agree on at its first and last byte (the rows libdw has none of
 * and the ones we do not interpret, at every byte).
 */
static void compare_text(const struct object *o, uint64_t every_byte_end, struct tally *t)
{
	uint64_t ip = o->text_start, row_end;
	double t0 = now();

	while (ip < o->text_end) {
		row_end = compare_at(o, ip, t);
		if (ip >= every_byte_end && row_end > ip + 1) {
			if (row_end - 1 < o->text_end)
				compare_at(o, row_end - 1, t);
			t->rows++;
			ip = row_end;
		} else {
			ip++;
		}
	}
	cr_log_info("%s: %lu addresses compared (%lu rows at both ends), %lu the same rule, %lu "
		    "without FDE, EOPNOTSUPP for %lu .plt, %lu other CFA expression, %lu RA/FP "
		    "expression, %lu SP rule, %lu signal frame; %lu disagreements, %.2f s",
		    o->path, t->compared, t->rows, t->rules, t->none, t->plt_expr, t->cfa_expr,
		    t->reg_expr, t->sp_rule, t->signal, t->disagree, now() - t0);
}

/*
 * The linker's .plt FDE: CFA = SP + 16, then + 24, for PLT0's first 16 bytes,
 * a DW_CFA_def_cfa_expression for the rest.
 */
static void assert_plt(const struct object *o, const struct tally *t)
{
	uint64_t plt = o->plt_end - o->plt_start;

	cr_assert_eq(t->plt_expr, plt > 16 ? plt - 16 : 0, "%s: %lu .plt addresses EOPNOTSUPP, "
		     ".plt 0x%llx bytes", o->path, t->plt_expr, (unsigned long long)plt);
}

Test(eh_frame_real, this_program)
{
	struct tally t = { 0 };
	struct object o;

	object_in_process(&o, "");
	object_register(&o);
	compare_text(&o, o.text_start + EVERY_BYTE_PREFIX, &t);
	cr_assert_gt(t.rules, 0);
	cr_assert_eq(t.disagree, 0);
	assert_plt(&o, &t);
	object_close(&o);
}

/* glibc: its .plt, __restore_rt's signal frame ("zRS"), SP rules of hand-written code. */
Test(eh_frame_real, libc)
{
	struct tally t = { 0 };
	struct object o;

	object_in_process(&o, "/libc.so.6");
	object_register(&o);
	compare_text(&o, o.text_start + EVERY_BYTE_PREFIX, &t);
	cr_assert_gt(t.rules, 0);
	cr_assert_eq(t.disagree, 0);
	assert_plt(&o, &t);
	cr_assert_gt(t.plt_expr, 0);
	cr_assert_gt(t.signal, 0);
	cr_assert_gt(t.sp_rule, 0);
	object_close(&o);
}

/* The -O0 and -O2 programs (frame pointer or not) of the libsframe differential test. */
Test(eh_frame_real, diff_programs)
{
	DIR *d = opendir(VECTOR_DIR "/../../build/diff-objs");
	struct tally t, all = { 0 };
	struct dirent *de;
	struct object o;
	char path[512];
	unsigned int files = 0;

	if (!d)
		cr_skip_test("build/diff-objs missing (make builds it)");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/../../build/diff-objs/%s", VECTOR_DIR, de->d_name);
		object_from_file(&o, path);
		object_register(&o);
		t = (struct tally){ 0 };
		compare_text(&o, UINT64_MAX, &t);
		cr_assert_gt(t.rules, 0, "%s", path);
		cr_assert_eq(t.disagree, 0, "%s", path);
		assert_plt(&o, &t);
		all.compared += t.compared;
		object_close(&o);
		files++;
	}
	closedir(d);
	cr_log_info("diff programs: %u files, %lu addresses", files, all.compared);
	cr_assert_geq(files, 16);
}

#define STACK 0x7ff000000000ull

/*
 * The walker over @c's tables registered as eh_frame_register would, in
 * @profile, with a stack of @n words at STACK: IP @ip, SP STACK, FP @fp.
 */
static void walk_case(struct ecase *c, enum emu_profile profile, uint64_t ip, uint64_t fp,
		      const uint64_t *stack, size_t n, struct emu_frame *frames,
		      struct emu_unwind_result *res)
{
	struct emu_registry *r = emu_registry_new(4);
	struct emu_registration *reg = calloc(1, sizeof(*reg));
	struct emu_regs regs = { .ip = ip, .sp = STACK, .fp = fp };
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 8, .profile = profile,
				     .tables = EMU_TABLES_EH_FRAME };
	struct emu_verdict v;

	cr_assert(r && reg);
	*reg = (struct emu_registration){ .text_start = TEXT, .text_end = TEXT + TEXT_LEN,
					  .aspects = EMU_ASPECT_EH_FRAME, .eh_frame = c->e };
	cr_assert_eq(emu_registry_insert(r, reg, &v), 0);
	cr_assert_eq(emu_mem_image_add(&c->img, STACK, stack, n * 8), 0);
	c->mem = emu_mem_image_accessor(&c->img);
	cr_assert_eq(emu_unwind(r, &c->mem, &regs, &o, frames, res), 0);
	emu_registry_free(r);
}

/* A frame-pointer function's caller, by its .eh_frame row: an eh_frame step. */
Test(eh_frame, the_walker_steps_by_eh_frame)
{
	const uint64_t stack[4] = { STACK + 0x100, F2 + 4, 0, 0 };	/* saved rbp, RA */
	struct emu_frame frames[8];
	struct emu_unwind_result res;
	struct ecase c;

	ecase_init(&c);
	std_section(&c);
	cr_assert_eq(add(&c, true), 0, "%s", c.why.reason);
	walk_case(&c, EMU_PROFILE_EMULATOR, F1 + 8, STACK, stack, 4, frames, &res);
	cr_assert_geq(res.nframes, 2);
	cr_assert_eq(frames[1].ip, F2 + 4);
	cr_assert_eq(frames[1].source, EMU_SRC_EH_FRAME);
	cr_assert_eq(res.nunsupported, 0);
}

/*
 * CFI the kernel does not interpret: the frame falls back to the frame
 * pointer, the walk counts the lookup and names the rule, the registration
 * stays (no removal, even in a kernel profile).
 */
Test(eh_frame, an_unsupported_row_falls_back_to_the_frame_pointer)
{
	/* F1 called from F1 (RA F1 + 0x10), called from F2: two unsupported lookups */
	const uint64_t stack[4] = { STACK + 0x10, F1 + 0x10, 0, F2 + 4 };
	struct emu_frame frames[8];
	struct emu_unwind_result res;
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_def_cfa_expression, 2, DW_OP_breg7, 8));
	walk_case(&c, EMU_PROFILE_V16, F1 + 8, STACK, stack, 4, frames, &res);
	cr_assert_geq(res.nframes, 3);
	cr_assert_eq(frames[1].ip, F1 + 0x10);
	cr_assert_eq(frames[1].source, EMU_SRC_FP);
	cr_assert_eq(frames[2].ip, F2 + 4);
	cr_assert_eq(frames[2].source, EMU_SRC_FP);
	cr_assert_eq(res.nunsupported, 2);
	cr_assert_str_eq(emu_rule_name(res.unsupported_rule), "eh-frame-cfi-unsupported");
	cr_assert_eq(res.nremovals, 0);
}

/* Broken CFI: the lookup removes every range of the header, in every profile (one series). */
Test(eh_frame, broken_cfi_removes_the_registration_in_a_kernel_profile)
{
	const uint64_t stack[4] = { STACK + 0x100, F2 + 4, 0, 0 };
	struct emu_frame frames[8];
	struct emu_unwind_result res;
	struct ecase c;

	cfi_section(&c, STD_CIE_INSNS, B(DW_CFA_restore_state));
	walk_case(&c, EMU_PROFILE_V16, F1 + 8, STACK, stack, 4, frames, &res);
	cr_assert_eq(frames[1].source, EMU_SRC_FP);
	cr_assert_eq(res.nremovals, 1);
	cr_assert_eq(res.removals[0].eh_frame_hdr_start, HDR);
	cr_assert_eq(res.removals[0].sframe_start, 0);
	cr_assert_str_eq(emu_rule_name(res.removals[0].rule), "eh-frame-cfi");
	cr_assert(res.corrupt);
	walk_case(&c, EMU_PROFILE_EMULATOR, F1 + 8, STACK, stack, 4, frames, &res);
	cr_assert_eq(res.nremovals, 1);
	cr_assert_eq(res.removals[0].eh_frame_hdr_start, HDR);
	cr_assert(res.corrupt);
	cr_assert_eq(res.corrupt_text_start, TEXT);
}
