/* SPDX-License-Identifier: GPL-2.0 */
/* Steps shared by the registration options of codectl.c and codectl_register.c. */
#ifndef EMU_CODECTL_INTERNAL_H
#define EMU_CODECTL_INTERNAL_H

#include "codectl_call.h"

/* text_start < text_end; sframe_start <= sframe_end, both 0 or neither. */
int emu_check_ranges(uint64_t text_start, uint64_t text_end, uint64_t sframe_start,
		     uint64_t sframe_end, struct emu_verdict *v);

/**
 * struct emu_reg_request - what a registration call asks for
 * @option: CODE_REGISTER_*; @origin: EMU_ORIGIN_*; @aspects: EMU_ASPECT_* bits
 * @text_start, @text_end, @sframe_start, @sframe_end: addresses (sframe 0, 0: none)
 */
struct emu_reg_request {
	unsigned int option;
	unsigned int origin;
	unsigned int aspects;
	uint64_t text_start, text_end;
	uint64_t sframe_start, sframe_end;
};

/*
 * The checks every registration shares, in the ABI's order: text in executable
 * mappings, the section (when there is one) in readable ones, no overlap of
 * @rq->aspects; then a zeroed registration for the text in *@out.
 * Returns 0, or the negative errno with the reason in @v.
 */
int emu_registration_begin(const struct emu_policy *p, const struct emu_space *sp,
			   const struct emu_reg_request *rq, struct emu_registration **out,
			   struct emu_verdict *v);

/* Copy, validate and attach the section as @reg's unwind aspect. */
int emu_attach_sframe(const struct emu_policy *p, const struct emu_space *sp,
		      struct emu_registration *reg, uint64_t sframe_start, uint64_t sframe_end,
		      struct emu_call_result *res);

/* Stage @reg for the commit unless @err; frees it on any failure. Returns the errno. */
int emu_stage_register(const struct emu_space *sp, struct emu_registration *reg, int err,
		       struct emu_call_result *res);

int emu_do_register_sframe(const struct emu_policy *p, const struct emu_space *sp,
			   const struct code_sframe_info *info, unsigned int origin,
			   struct emu_call_result *res);

/* CODE_REGISTER_SFRAME_FILE with the struct read (codectl_file.c). */
int emu_do_register_sframe_file(const struct emu_policy *p, const struct emu_space *sp,
				const struct code_sframe_file_info *info,
				struct emu_call_result *res);

int emu_do_register_elf(const struct emu_policy *p, const struct emu_space *sp,
			const struct code_elf_info *info, struct emu_call_result *res);

#endif /* EMU_CODECTL_INTERNAL_H */
