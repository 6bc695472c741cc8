/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel profiles: what the emulated kernel accepts and how it behaves, for
 * every entry point alike (codectl-abi.md, "Kernel profiles"; the differences,
 * each with its source, are the table in codectl-run(1), KERNEL PROFILES).
 */
#ifndef EMU_PROFILE_H
#define EMU_PROFILE_H

#include <stdbool.h>

/**
 * enum emu_profile - the kernel emulated
 * @EMU_PROFILE_EMULATOR: every SFrame version after full validation, fork
 *	copies, half-open ranges, callers looked up at RA - 1, signal frames
 *	stepped through; each kernel acceptance rule a registration breaks is
 *	noted, not enforced
 * @EMU_PROFILE_V16: the v15/v16 core series (May 2026 on) with
 *	sframe_register(2): SFrame v3 only, fork inherits, half-open ranges,
 *	its validation checks, the unwind-time removal of a registration whose
 *	data a lookup finds broken, callers looked up at RA
 * @EMU_PROFILE_V13: the January 2026 series as --strict emulated it before:
 *	v2 with FDE_FUNC_START_PCREL or v3, fork starts empty, the text range's
 *	end inclusive (a range starting at another's end overlaps it)
 */
enum emu_profile {
	EMU_PROFILE_EMULATOR = 0,
	EMU_PROFILE_V16,
	EMU_PROFILE_V13,
};

#define EMU_PROFILE_COUNT 3

/** emu_profile_name() - "emulator", "v16" or "v13" ("unknown" otherwise). */
const char *emu_profile_name(enum emu_profile profile);

/** emu_profile_is_kernel() - does @profile enforce a kernel series' rules (v16, v13)? */
static inline bool emu_profile_is_kernel(enum emu_profile profile)
{
	return profile == EMU_PROFILE_V16 || profile == EMU_PROFILE_V13;
}

#endif /* EMU_PROFILE_H */
