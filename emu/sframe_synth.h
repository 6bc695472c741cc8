/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --synthesize-sframe: the SFrame an assembler would have written for an
 * object, made from its .eh_frame (through the .eh_frame_hdr's table, by the
 * .eh_frame reader), and registered as if the loader had, marked
 * synthesized. gas's rules for x86_64 (gas/gen-sframe.c, --gsframe): a row
 * is CFA = SP or FP + offset, the RA at CFA - 8, the caller's FP at CFA +
 * offset or in place, or the outermost frame (RA undefined); a function with
 * any other row (a CFA from another register or an expression, the FP in a
 * register, a signal frame's CIE) gets no SFrame FDE at all, as gas skips it.
 * The emulator profile only: the kernel profiles read SFrame in the process,
 * where a synthesized section is not.
 */
#ifndef EMU_SFRAME_SYNTH_H
#define EMU_SFRAME_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "accessor.h"
#include "eh_frame.h"
#include "registry.h"

/**
 * struct emu_sframe_synth_stats - what one synthesis made
 * @fdes: the .eh_frame FDEs of the text range (table entries)
 * @functions, @fres: SFrame FDEs and FREs written
 * @inexpressible: FDEs left out for a row SFrame cannot express
 * @refused: FDEs left out because the reader refuses their CFI or cannot read them
 * @why: the first FDE left out and the reason, "" when none
 */
struct emu_sframe_synth_stats {
	uint32_t fdes;
	uint32_t functions;
	uint32_t fres;
	uint32_t inexpressible;
	uint32_t refused;
	char why[200];
};

/**
 * emu_sframe_synthesize() - SFrame v3 for @e's text range from its .eh_frame
 * @e: an .eh_frame_hdr read by emu_eh_frame_add(); @mem: the memory holding it
 * @addr: where the section is taken to be (anchors its PC-relative starts)
 * @out, @len: the malloc'd section (the caller's) on success
 * Return: 0; -ENOENT (no function could be expressed: nothing made);
 * -ENOMEM.
 */
int emu_sframe_synthesize(const struct emu_eh_frame *e, const struct emu_accessor *mem,
			  uint64_t addr, uint8_t **out, size_t *len,
			  struct emu_sframe_synth_stats *st);

/**
 * emu_sframe_synth_register() - validate (emulator profile) and register
 *	@len bytes at @data, made by emu_sframe_synthesize() with @addr =
 *	@text_start, for text [@text_start, @text_end): an unwind registration
 *	of origin EMU_ORIGIN_SYNTHESIZED, which any other registration of the
 *	text replaces (emu_registry_insert())
 * @data: consumed in every case
 * Return: 0, -EEXIST (the text has an unwind registration), -EINVAL (the
 * section fails validation: a bug here), -ENOMEM; @v says why.
 */
int emu_sframe_synth_register(struct emu_registry *r, uint64_t text_start, uint64_t text_end,
			      uint8_t *data, size_t len, struct emu_verdict *v);

#endif /* EMU_SFRAME_SYNTH_H */
