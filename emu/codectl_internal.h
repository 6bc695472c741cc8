/* SPDX-License-Identifier: GPL-2.0 */
/* Steps shared by the registration options of codectl.c and codectl_register.c. */
#ifndef EMU_CODECTL_INTERNAL_H
#define EMU_CODECTL_INTERNAL_H

#include "codectl_call.h"

/* text_start < text_end; sframe_start <= sframe_end, both 0 or neither. */
int emu_check_ranges(uint64_t text_start, uint64_t text_end, uint64_t sframe_start,
		     uint64_t sframe_end, struct emu_verdict *v);

/* Text in executable mappings; the section (when @sframe_start) in readable ones. */
int emu_check_mappings(const struct emu_policy *p, const struct emu_space *sp,
		       uint64_t text_start, uint64_t text_end, uint64_t sframe_start,
		       uint64_t sframe_end, struct emu_verdict *v);

/* A zeroed registration for [start, end) of @sp; NULL on ENOMEM. */
struct emu_registration *emu_registration_new(const struct emu_space *sp, unsigned int option,
					      unsigned int origin, uint64_t start, uint64_t end);

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

int emu_do_register_elf(const struct emu_policy *p, const struct emu_space *sp,
			const struct code_elf_info *info, struct emu_call_result *res);

#endif /* EMU_CODECTL_INTERNAL_H */
