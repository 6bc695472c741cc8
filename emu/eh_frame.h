/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The .eh_frame proposal's reader (codectl-abi.md, "The .eh_frame proposal"):
 * what eh_frame_add_section() checks of a registered .eh_frame_hdr, its
 * optional full validation (CONFIG_EH_FRAME_VALIDATION), and eh_frame_find()
 * at each lookup: the header's binary-search table, the CIE and FDE, and a
 * bounded DWARF CFI interpreter run up to the address, all on the memory of
 * the process as it is at the time (the kernel keeps no copy). Behaviour of
 * kernel/unwind/eh_frame.c as posted (intel-lab-lkp/linux @0bbfcf0ae3f5) for
 * x86_64; every difference is in eh_frame_register(2), EMULATOR CHOICES.
 */
#ifndef EMU_EH_FRAME_H
#define EMU_EH_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#include "accessor.h"
#include "arch.h"
#include "mappings.h"
#include "rules.h"
#include "unwind_rule.h"

/* The interpreter's bounds (the x86_64 values of the posted series). */
#define EMU_EHF_MAX_CIE_LENGTH 128	/* a CIE's length field, bytes */
#define EMU_EHF_MAX_FDE_LENGTH 32768	/* an FDE's length field, bytes */
#define EMU_EHF_MAX_AUGSTR 16		/* augmentation string with its NUL */
#define EMU_EHF_MAX_STATE_STACK 1	/* DW_CFA_remember_state depth */
#define EMU_EHF_CFI_INSN_LIMIT 16384	/* CFI instructions per lookup (CIE + FDE) */

/**
 * struct emu_eh_frame - what the kernel keeps of a registered .eh_frame_hdr
 *	(its struct eh_frame_section): the ranges, and what the header says,
 *	read once at registration
 * @hdr_start, @hdr_end, @text_start, @text_end: [start, end) addresses, as
 *	registered (set by the caller of emu_eh_frame_add())
 * @eh_frame_start: the header's eh_frame_ptr, decoded
 * @eh_frame_vma_end: the end of the mapping holding @eh_frame_start at
 *	registration: no CIE or FDE is read past it
 * @table_start, @table_end: the binary-search table, addresses
 * @fde_count: its entries; @table_enc: their DW_EH_PE_* encoding
 */
struct emu_eh_frame {
	uint64_t hdr_start;
	uint64_t hdr_end;
	uint64_t text_start;
	uint64_t text_end;
	uint64_t eh_frame_start;
	uint64_t eh_frame_vma_end;
	uint64_t table_start;
	uint64_t table_end;
	uint64_t fde_count;
	uint8_t table_enc;
};

/**
 * emu_eh_frame_add() - the header checks of eh_frame_add_section(), in its order
 * @e: its four ranges set (the range and mapping checks made by the caller);
 *	the header's fields are filled in
 * @mem: the caller's memory; @maps: its mappings (the VMA of .eh_frame)
 * @validate: also check every table entry and the FDE it points at
 *	(CONFIG_EH_FRAME_VALIDATION: sorted, FDE inside .eh_frame, CIE and FDE
 *	well-formed, the FDE's function the entry's)
 *
 * Return: 0, or -EINVAL, -EFAULT or -EOPNOTSUPP (a funcrel, aligned or
 * indirect encoding; under @validate also an unsupported CIE) with @v
 * naming the rule (EMU_R_EHF_*).
 */
int emu_eh_frame_add(struct emu_eh_frame *e, const struct emu_accessor *mem,
		     const struct emu_mappings *maps, bool validate, struct emu_verdict *v);

/**
 * emu_eh_frame_find() - eh_frame_find(): the rule for @ip from @e's tables as
 *	they are in @mem now
 *
 * The table's binary search, the FDE and its CIE, the CIE's initial
 * instructions and the FDE's up to @ip, then the rule: CFA from SP, FP or
 * another register (EMU_CFA_REG: frame 0 only) plus an offset; RA and FP
 * "undefined" (implicitly) or "same value" kept in their register
 * (EMU_LOC_SAME), "offset(N)" read at CFA + N, "val_offset(N)" CFA + N
 * itself, "register(R)" from R; RA explicitly undefined: @rule->outermost.
 * @rule->code_start/end: the FDE's function.
 * Return: 0; -ENOENT: no FDE covers @ip (@why untouched); -EOPNOTSUPP: CFI
 * or a CIE the kernel does not interpret (the kernel keeps the section);
 * -EINVAL or -EFAULT: the kernel removes it. Each error but -ENOENT with
 * @why naming the rule.
 */
int emu_eh_frame_find(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		      const struct emu_arch_info *arch, uint64_t ip,
		      struct emu_unwind_rule *rule, struct emu_verdict *why);

#endif /* EMU_EH_FRAME_H */
