/* SPDX-License-Identifier: GPL-2.0 */
/* What the unwinder needs to know of an architecture: registers and defaults. */
#ifndef EMU_ARCH_H
#define EMU_ARCH_H

#include <stdint.h>

enum emu_arch {
	EMU_ARCH_X86_64 = 0,
	EMU_ARCH_AARCH64 = 1,
};

struct emu_sigframe_info;

/**
 * struct emu_arch_info - per-architecture constants
 * @sframe_abi: the SFrame header's ABI/arch byte for this architecture
 * @sp_reg, @fp_reg, @ra_reg: DWARF register numbers of SP, FP and the return
 *	address (x86_64: the RA column 16; AArch64: LR, x30)
 * @ip_reg: DWARF number whose value is the frame's IP (x86_64: 16, RIP),
 *	or 0xff when there is none
 * @nregs: DWARF register numbers below this are valid in FLEX rules
 * @kernel_regs: DWARF numbers below this are registers the v16 kernel's
 *	unwinder reads (unwind_user_get_reg(): x86_64 0-15, no RIP)
 * @ra_cfa_off: where the RA is saved when the data says nothing, relative to
 *	the CFA in bytes (x86_64: -8); 0 = it stays in @ra_reg (AArch64)
 * @sigframe: signal trampolines and frames (NULL: none recognised)
 */
struct emu_arch_info {
	const char *name;
	uint8_t sframe_abi;
	uint8_t sp_reg;
	uint8_t fp_reg;
	uint8_t ra_reg;
	uint8_t ip_reg;
	uint8_t nregs;
	uint8_t kernel_regs;
	int8_t ra_cfa_off;
	const struct emu_sigframe_info *sigframe;
};

/* Registers the unwinder can hold; DWARF numbers index emu_regs::gpr. */
#define EMU_MAX_REGS 32

/* Trampolines that return from a signal, as code (per architecture). */
#define EMU_SIGRETURN_FORMS 2
#define EMU_SIGRETURN_MAX 16

/**
 * struct emu_sigframe_info - the kernel's signal frame, as the trampoline that
 *	returns from it sees it (x86_64: rt_sigreturn, struct rt_sigframe)
 * @code, @code_len: the trampoline's instructions in each form a C library
 *	or program may use; a frame whose IP is at their first byte is one
 * @syscall_off: where in each form the system call instruction starts (a
 *	thread stopped there is in the trampoline too)
 * @regs_off: where the interrupted registers are, from the SP the trampoline
 *	runs with (x86_64: the ucontext's uc_mcontext, 40 bytes in)
 * @reg_off: each DWARF register's offset within them, -1 when not saved
 */
struct emu_sigframe_info {
	uint8_t code[EMU_SIGRETURN_FORMS][EMU_SIGRETURN_MAX];
	uint8_t code_len[EMU_SIGRETURN_FORMS];
	uint8_t syscall_off[EMU_SIGRETURN_FORMS];
	uint32_t regs_off;
	int16_t reg_off[EMU_MAX_REGS];
};

/** emu_arch_get() - constants of @arch; NULL for an unknown value. */
const struct emu_arch_info *emu_arch_get(enum emu_arch arch);

#endif /* EMU_ARCH_H */
