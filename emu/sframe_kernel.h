/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The v16 kernel series' SFrame reader: what sframe_add_section() checks of a
 * section, the CONFIG_SFRAME_VALIDATION walk, and sframe_find() at each
 * lookup, on the section as it is in the process at the time (the kernel
 * reads user memory; it keeps no copy). Behaviour of kernel/unwind/sframe.c
 * at linux-mm 07e15cb06bc9 (codectl-abi.md, "Kernel profiles"; every
 * difference: codectl-run(1), KERNEL PROFILES).
 */
#ifndef EMU_SFRAME_KERNEL_H
#define EMU_SFRAME_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "accessor.h"
#include "arch.h"
#include "rules.h"
#include "unwind_rule.h"

/**
 * struct emu_ksframe - what the kernel keeps of a registered section (its
 *	struct sframe_section): the ranges, and the header's fields every
 *	lookup uses (read once, at registration)
 * @sframe_start, @sframe_end, @text_start, @text_end: [start, end) addresses
 * @fdes_start, @fres_start, @fres_end: where the FDE index and the FRE
 *	sub-section are (addresses, computed from the header's offsets)
 * @num_fdes: the header's FDE count; @num_fres: its FRE count (shown only)
 * @ra_off, @fp_off: the header's fixed RA and FP offsets (0: none)
 */
struct emu_ksframe {
	uint64_t sframe_start;
	uint64_t sframe_end;
	uint64_t text_start;
	uint64_t text_end;
	uint64_t fdes_start;
	uint64_t fres_start;
	uint64_t fres_end;
	uint32_t num_fdes;
	uint32_t num_fres;
	int8_t ra_off;
	int8_t fp_off;
};

/**
 * emu_ksframe_add() - the section checks of sframe_add_section(), in its order
 * @k: its four ranges set by the caller (the range and mapping checks made);
 *	the header's fields are filled in
 * @mem: the caller's memory
 * @validate: also walk every FDE, FRE and data word (CONFIG_SFRAME_VALIDATION,
 *	off in the kernel a user runs: it needs DYNAMIC_DEBUG)
 *
 * The 28-byte header is copied first (EFAULT), then checked (magic, version
 * 3, FDE_SORTED, FDE_FUNC_START_PCREL, no auxiliary header, FDEs and FREs,
 * sub-sections inside the section: EINVAL). The ABI/arch byte and undefined
 * flag bits are not looked at: the kernel does not.
 * Return: 0, or -EINVAL/-EFAULT with @v naming the rule.
 */
int emu_ksframe_add(struct emu_ksframe *k, const struct emu_accessor *mem,
		    const struct emu_arch_info *arch, bool validate, struct emu_verdict *v);

/**
 * emu_ksframe_find() - sframe_find(): the rule for @ip from @k's section as
 *	it is in @mem now
 *
 * The FDE binary search with its bound checks, the FDE's checks, the FRE
 * scan up to @ip, the data words, then the rules: RA or FP "retained" for a
 * zero control word and offset (the caller's RA is then in no register on
 * x86-64: the step fails), "CFA + offset" without a read kept as such (the
 * step refuses it), registers masked to 5 bits. The FDE's signal bit is
 * ignored, as the kernel ignores it.
 * Return: 0; -ENOENT when no FDE covers @ip (the kernel keeps the section);
 * any other negative errno (-EINVAL, -EFAULT) with @why naming the rule: the
 * kernel removes the registration.
 */
int emu_ksframe_find(const struct emu_ksframe *k, const struct emu_accessor *mem,
		     const struct emu_arch_info *arch, uint64_t ip, struct emu_unwind_rule *rule,
		     struct emu_verdict *why);

#endif /* EMU_SFRAME_KERNEL_H */
