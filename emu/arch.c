// SPDX-License-Identifier: GPL-2.0
/* Architecture constants (x86-64 and AArch64 psABI DWARF register numbers). */
#include <stddef.h>

#include "arch.h"
#include "sframe_format.h"

static const struct emu_arch_info arch_table[] = {
	[EMU_ARCH_X86_64] = {
		.name = "x86_64", .sframe_abi = EMU_SF_ABI_AMD64_LE,
		.sp_reg = 7, .fp_reg = 6, .ra_reg = 16, .ip_reg = 16, .nregs = 17,
		.ra_cfa_off = -8,
	},
	[EMU_ARCH_AARCH64] = {
		.name = "aarch64", .sframe_abi = EMU_SF_ABI_AARCH64_LE,
		.sp_reg = 31, .fp_reg = 29, .ra_reg = 30, .ip_reg = 0xff, .nregs = 32,
		.ra_cfa_off = 0,
	},
};

const struct emu_arch_info *emu_arch_get(enum emu_arch arch)
{
	if ((unsigned int)arch >= sizeof(arch_table) / sizeof(arch_table[0]))
		return NULL;
	return &arch_table[arch];
}
