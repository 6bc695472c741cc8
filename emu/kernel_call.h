/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own proposals, on the same core as codectl(2): sframe_register(2)
 * and sframe_unregister(2), the v12 test prctl (PR_ADD_SFRAME, PR_REMOVE_SFRAME)
 * and the stacktrace_setup(2) RFC. Each decodes its arguments into the one
 * registration (the series' sframe_add_section()) and removal
 * (sframe_remove_section()), in the v16 order of checks and with v16's errno
 * for each (codectl-abi.md, "The kernel's own proposals"); the profile decides
 * what the section must be, as for codectl.
 */
#ifndef EMU_KERNEL_CALL_H
#define EMU_KERNEL_CALL_H

#include <stdint.h>

#include "codectl_call.h"

/**
 * struct emu_kcall - one call of a kernel proposal as the caller made it
 * @entry: EMU_ENTRY_SFRAME_REGISTER, _SFRAME_UNREGISTER, _PRCTL,
 *	_STACKTRACE_SETUP, _EH_FRAME_REGISTER or _EH_FRAME_UNREGISTER
 * @arg: the system call's first five arguments, raw (int arguments are
 *	taken from their low 32 bits, as the kernel does)
 */
struct emu_kcall {
	enum emu_entry entry;
	uint64_t arg[5];
};

/**
 * emu_kcall_prepare() - validate one call without applying it
 * @res: filled in every case; on success it must be committed
 *	(emu_codectl_commit()) or discarded (emu_codectl_discard())
 *
 * sframe_register(setup, size): size 32 (EINVAL), the struct (EFAULT), no
 * empty or wrapping range (EINVAL), then the registration. sframe_unregister:
 * size, struct, fields other than sframe_start 0 (EINVAL), then the removal.
 * prctl(PR_ADD_SFRAME, sframe_start, sframe_end, text_start, text_end); prctl
 * (PR_REMOVE_SFRAME, sframe_start, 0, 0, 0): other arguments non-zero EINVAL.
 * stacktrace_setup(op, sframe, len, text, len): op 1 registers, op 2 removes
 * (the rest ignored), others EINVAL. eh_frame_register(setup, size) and
 * eh_frame_unregister: as sframe_register's pair, with the header's checks
 * (eh_frame.h, emu_eh_frame_add()) for the section's, the overlap with
 * other .eh_frame registrations only, EOPNOTSUPP for encodings the kernel
 * does not read; removal by eh_frame_hdr_start.
 * Registration: start >= end (EINVAL); the section in one mapping, the text in
 * one executable mapping (EINVAL); the section read (EFAULT) and validated
 * for the profile (EINVAL; an FDE's function outside the text or FREs past
 * the sub-section: EFAULT; ENOMEM above the emulator's caps); overlap last
 * (EEXIST). Removal: no registration with that sframe_start (EINVAL).
 * Return: 0, or the negative errno to answer with; @res->verdict says why.
 */
int emu_kcall_prepare(const struct emu_policy *p, const struct emu_space *sp,
		      const struct emu_kcall *kc, struct emu_call_result *res);

/**
 * emu_kcall() - emu_kcall_prepare(), then emu_codectl_commit() on success
 * Return: as emu_kcall_prepare().
 */
int emu_kcall(const struct emu_policy *p, const struct emu_space *sp, const struct emu_kcall *kc,
	      struct emu_call_result *res);

#endif /* EMU_KERNEL_CALL_H */
