/* SPDX-License-Identifier: GPL-2.0 */
/* A relocatable object (.o) laid out as a linker would, for the verifier. */
#ifndef SUPERVISOR_VERIFY_RELOCATABLE_H
#define SUPERVISOR_VERIFY_RELOCATABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** verify_is_relocatable() - are the @size bytes at @map a 64-bit x86-64 ET_REL file? */
bool verify_is_relocatable(const uint8_t *map, size_t size);

/**
 * verify_layout_relocatable() - lay out the relocatable object in @map
 * (@size bytes, a private writable copy) as a linker would: each SHF_ALLOC
 * section at an address of its own (its sh_addr), each symbol's value made
 * an address, and the relocations of allocated sections (R_X86_64_64, PC64,
 * 32, 32S, PC32, PLT32) applied where the object defines their symbol;
 * others are left as written. Offsets and indexes past the file are skipped.
 * Return: 0, -ENOEXEC (not such an object, or its section table is not in
 * the file), -EOVERFLOW (sections too large or aligned past 4096 to place).
 */
int verify_layout_relocatable(uint8_t *map, size_t size);

/**
 * verify_sframe_sort_fdes() - make the relocated .sframe section copy @sec
 * (@len bytes, at @sframe_addr) of a relocatable object what the linker
 * makes of it: an assembler writes the FDEs in source order, unflagged, each
 * function start relative to its own field (a PC32, or v3 PC64,
 * relocation); the linker sorts them by function start, writes each start
 * as the header's flags say (relative to the FDE with FDE_FUNC_START_PCREL,
 * else to the section) and sets FDE_SORTED. A section already flagged
 * sorted is left as it is.
 * Return: 0, -EINVAL (no SFrame header, or its FDE table is not in @len),
 * -ENOMEM.
 */
int verify_sframe_sort_fdes(uint8_t *sec, size_t len, uint64_t sframe_addr);

#endif /* SUPERVISOR_VERIFY_RELOCATABLE_H */
