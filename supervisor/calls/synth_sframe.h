/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --synthesize-sframe: each executable segment of an ELF object mapped in a
 * process (the program, ld.so, libraries, the vDSO) that has no .sframe
 * (PT_GNU_SFRAME) but an .eh_frame_hdr (PT_GNU_EH_FRAME) gets SFrame made
 * from its .eh_frame (emu/sframe_synth.h), registered as if the loader
 * had, with origin "synthesized". Looked for whenever the process's
 * mappings change; a registration the program makes for that text replaces
 * it. The headers and tables are read from the process's memory.
 */
#ifndef SUPERVISOR_CALLS_SYNTH_SFRAME_H
#define SUPERVISOR_CALLS_SYNTH_SFRAME_H

#include "calls.h"

/**
 * synth_sframe_scan() - synthesize and register SFrame for @p's objects
 *	that have none registered and no .sframe of their own; each text range
 *	whose synthesis makes nothing is noted (addr_space_note_refusal(),
 *	"synthesize-sframe") and not tried again while the note is kept.
 *	Counted in @p's stats; --trace says what each made.
 */
void synth_sframe_scan(struct calls *c, struct proc *p);

#endif /* SUPERVISOR_CALLS_SYNTH_SFRAME_H */
