/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The .eh_frame reader's parts shared by eh_frame.c (the reads, the header,
 * the search table, FDEs), eh_frame_cie.c (CIEs) and eh_frame_cfi.c (the CFI
 * interpreter).
 */
#ifndef EMU_EH_FRAME_INTERNAL_H
#define EMU_EH_FRAME_INTERNAL_H

#include <stddef.h>

#include "eh_frame.h"

/* x86_64 as the posted series builds it (asm/unwind_user_eh_frame.h): DWARF numbers, factors */
#define EHF_REG_FP		6
#define EHF_REG_SP		7
#define EHF_REG_RA		16
#define EHF_MAX_CODE_ALIGN	1
#define EHF_MIN_DATA_ALIGN	(-8)
#define EHF_MAX_DATA_ALIGN	(-1)

/* A CIE's smallest size, its length field included: no FDE's CIE starts less before it. */
#define EHF_CIE_MIN_LENGTH	13
#define EHF_DWARF64_LENGTH	0xffffffffu

/**
 * struct ehf_reader - how one part of the section is read, and how its
 *	failures are named
 * @e, @mem, @v: the section, the caller's memory, the verdict to set
 * @kind, @rec: what is read and where it starts, for the reasons
 * @past: the rule of a read past the cursor's end (EINVAL)
 * @bad: the rule of a value that cannot be decoded: an unknown or omitted
 *	pointer encoding, a LEB128 of more than 64 bits, a record's length (EINVAL)
 * @fault: the rule of a byte the accessor cannot read (EFAULT)
 */
struct ehf_reader {
	const struct emu_eh_frame *e;
	const struct emu_accessor *mem;
	struct emu_verdict *v;
	const char *kind;
	uint64_t rec;
	enum emu_rule past;
	enum emu_rule bad;
	enum emu_rule fault;
};

/** struct ehf_cur - the next byte to read (@at) and the end no read passes (@end) */
struct ehf_cur {
	uint64_t at;
	uint64_t end;
};

/**
 * struct ehf_cie - what an FDE needs of its CIE
 * @insn_start, @insn_end: its initial instructions, [start, end) addresses
 * @code_align, @data_align: the factors (1, and -8..-1, on x86_64)
 * @fde_enc: the 'R' encoding of its FDEs' pc_begin (DW_EH_PE_absptr without one)
 * @aug_data: 'z': FDEs carry augmentation data too
 * @signal_frame: 'S'
 */
struct ehf_cie {
	uint64_t insn_start;
	uint64_t insn_end;
	uint64_t code_align;
	int64_t data_align;
	uint8_t fde_enc;
	bool aug_data;
	bool signal_frame;
};

/**
 * struct ehf_fde - an FDE read and checked
 * @addr: where it starts (its length field)
 * @func, @size: its function, [func, func + size), inside the text
 * @insn_start, @insn_end: its instructions
 * @cie: its CIE
 */
struct ehf_fde {
	uint64_t addr;
	uint64_t func;
	uint64_t size;
	uint64_t insn_start;
	uint64_t insn_end;
	struct ehf_cie cie;
};

/* Reads through @r at @c, advancing it: 0, -EINVAL (@r->past, @r->bad) or -EFAULT (@r->fault). */
int ehf_bytes(const struct ehf_reader *r, struct ehf_cur *c, void *buf, size_t n,
	      const char *what);
int ehf_uint(const struct ehf_reader *r, struct ehf_cur *c, unsigned int n, uint64_t *val,
	     const char *what);
int ehf_uleb(const struct ehf_reader *r, struct ehf_cur *c, uint64_t *val, const char *what);
int ehf_sleb(const struct ehf_reader *r, struct ehf_cur *c, int64_t *val, const char *what);

/**
 * ehf_pointer() - a DW_EH_PE_* encoded pointer: pcrel from the field's own
 *	address, datarel from the header's start, textrel from the text's
 * Return: 0, -EINVAL (@r->bad: omitted, unknown application or format),
 * -EOPNOTSUPP (funcrel, aligned, indirect: EHF_ENCODING_UNSUPPORTED) or a read's error.
 */
int ehf_pointer(const struct ehf_reader *r, struct ehf_cur *c, uint8_t enc, uint64_t *val,
		const char *what);

/** ehf_enc_size() - an encoded pointer's fixed size: 2, 4 or 8; 0 for LEB128 or unknown. */
unsigned int ehf_enc_size(uint8_t enc);

/**
 * ehf_record_end() - the end of the CIE or FDE at @addr (@r says which), from
 *	its length field: not 0, DWARF64 or above @max (-EINVAL, @r->bad), the
 *	record inside .eh_frame's mapping (-EFAULT, EHF_FAULT)
 */
int ehf_record_end(const struct ehf_reader *r, uint64_t addr, uint32_t max, uint64_t *end);

/**
 * ehf_read_cie() - the CIE at @addr: its fields checked, what its FDEs need
 * Return: 0, -EINVAL (EHF_CIE), -EOPNOTSUPP (EHF_CIE_UNSUPPORTED, or an
 * unsupported personality encoding) or -EFAULT, with @v naming the rule.
 */
int ehf_read_cie(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t addr,
		 struct ehf_cie *cie, struct emu_verdict *v);

/**
 * ehf_read_fde() - the FDE at @addr and its CIE, with the kernel's checks
 * Return: 0, -EINVAL, -EFAULT, or -EOPNOTSUPP (an unsupported CIE or
 * pointer encoding), with @v naming the rule.
 */
int ehf_read_fde(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t addr,
		 struct ehf_fde *fde, struct emu_verdict *v);

/**
 * ehf_cfi_rule() - the CIE's and the FDE's instructions up to @ip, as a rule
 * @next: when not NULL, where the row after @ip's starts (the function's end
 *	when @ip's is its last), set on success: the rows of a function are
 *	found by asking at each one's start
 * Return: 0, -EOPNOTSUPP, -EINVAL or -EFAULT, with @v naming the rule.
 */
int ehf_cfi_rule(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		 const struct ehf_fde *fde, uint64_t ip, struct emu_unwind_rule *rule,
		 uint64_t *next, struct emu_verdict *v);

/** ehf_table_func() - search table entry @i's function start; 0 or a lookup's negative errno. */
int ehf_table_func(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t i,
		   uint64_t *func, struct emu_verdict *v);

/**
 * ehf_table_fde() - search table entry @i's FDE, read and checked as a
 *	lookup reads it (its function the entry's)
 * Return: 0, or a lookup's negative errno with @v naming the rule.
 */
int ehf_table_fde(const struct emu_eh_frame *e, const struct emu_accessor *mem, uint64_t i,
		  struct ehf_fde *fde, struct emu_verdict *v);

#endif /* EMU_EH_FRAME_INTERNAL_H */
