// SPDX-License-Identifier: GPL-2.0
/* Architecture constants (x86-64 and AArch64 psABI DWARF register numbers). */
#include <stddef.h>

#include "arch.h"
#include "sframe_format.h"

/*
 * x86-64: rt_sigreturn is system call 15; glibc's __restore_rt is
 * "mov $15,%rax; syscall", others "mov $15,%eax; syscall". At the trampoline
 * SP points at the ucontext (the handler's return popped pretcode); its
 * uc_mcontext (struct sigcontext: r8-r15, rdi, rsi, rbp, rbx, rdx, rax, rcx,
 * rsp, rip) starts after uc_flags, uc_link and uc_stack (8 + 8 + 24 bytes).
 */
static const struct emu_sigframe_info x86_64_sigframe = {
	.code = {
		{ 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 },
		{ 0xb8, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 },
	},
	.code_len = { 9, 7 },
	.syscall_off = { 7, 5 },
	.regs_off = 40,
	.reg_off = {
		[0] = 104, [1] = 96, [2] = 112, [3] = 88, [4] = 72, [5] = 64, [6] = 80,
		[7] = 120, [8] = 0, [9] = 8, [10] = 16, [11] = 24, [12] = 32, [13] = 40,
		[14] = 48, [15] = 56, [16] = 128,
		[17 ... EMU_MAX_REGS - 1] = -1,
	},
};

static const struct emu_arch_info arch_table[] = {
	[EMU_ARCH_X86_64] = {
		.name = "x86_64", .sframe_abi = EMU_SF_ABI_AMD64_LE,
		.sp_reg = 7, .fp_reg = 6, .ra_reg = 16, .ip_reg = 16, .nregs = 17,
		.kernel_regs = 16,
		.ra_cfa_off = -8, .sigframe = &x86_64_sigframe,
	},
	[EMU_ARCH_AARCH64] = {
		.name = "aarch64", .sframe_abi = EMU_SF_ABI_AARCH64_LE,
		.sp_reg = 31, .fp_reg = 29, .ra_reg = 30, .ip_reg = 0xff, .nregs = 32,
		.kernel_regs = 32,
		.ra_cfa_off = 0,
	},
};

const struct emu_arch_info *emu_arch_get(enum emu_arch arch)
{
	if ((unsigned int)arch >= sizeof(arch_table) / sizeof(arch_table[0]))
		return NULL;
	return &arch_table[arch];
}
