/* SPDX-License-Identifier: GPL-2.0 */
/* Model of the tracee's address space: its mappings and their protections. */
#ifndef EMU_MAPPINGS_H
#define EMU_MAPPINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EMU_PROT_READ	0x1
#define EMU_PROT_WRITE	0x2
#define EMU_PROT_EXEC	0x4
#define EMU_VMA_VDSO	0x100	/* not a protection: the kernel's vDSO (code, no file) */

/**
 * struct emu_vma - one mapping, [@start, @end) in bytes, EMU_PROT_* (and
 *	EMU_VMA_VDSO) in @prot
 * @ident: what is mapped (a file's device, inode and offset, hashed), 0 for
 *	anonymous memory or when unknown: a registration whose text is mapped
 *	again by something else is stale
 */
struct emu_vma {
	uint64_t start;
	uint64_t end;
	unsigned int prot;
	uint64_t ident;
};

/**
 * struct emu_mappings - the mappings of one address space, sorted by address,
 * non-overlapping (what find_vma() walks in a kernel). Owns @vma.
 */
struct emu_mappings {
	struct emu_vma *vma;
	size_t n;
	size_t cap;
};

/**
 * emu_mappings_add() - append the mapping [@start, @end) with @prot
 *
 * Mappings are supplied in increasing address order, as /proc/PID/maps lists them.
 * Return: 0, -EINVAL (empty range, or not above the previous mapping), -ENOMEM.
 */
int emu_mappings_add(struct emu_mappings *m, uint64_t start, uint64_t end, unsigned int prot);

/** emu_mappings_add_ident() - emu_mappings_add() with the mapping's identity. */
int emu_mappings_add_ident(struct emu_mappings *m, uint64_t start, uint64_t end,
			   unsigned int prot, uint64_t ident);

/**
 * emu_mappings_copy() - make @dst a copy of @src (a fork's address space)
 * Return: 0, or -ENOMEM (@dst is then empty).
 */
int emu_mappings_copy(struct emu_mappings *dst, const struct emu_mappings *src);

/** emu_mappings_reset() - forget all mappings, keep the storage. */
void emu_mappings_reset(struct emu_mappings *m);

/** emu_mappings_free() - release the storage; @m may be reused after. */
void emu_mappings_free(struct emu_mappings *m);

/** emu_mappings_find() - the mapping holding @addr, or NULL (O(log n)). */
const struct emu_vma *emu_mappings_find(const struct emu_mappings *m, uint64_t addr);

/**
 * emu_mappings_covers() - is every byte of [@start, @end) mapped with all of @prot?
 * Several adjacent mappings may cover the range. An empty range is not covered.
 */
bool emu_mappings_covers(const struct emu_mappings *m, uint64_t start, uint64_t end,
			 unsigned int prot);

/**
 * emu_mappings_covers_apart() - like emu_mappings_covers(), and no mapping used
 * to cover [@start, @end) holds a byte of [@avoid_start, @avoid_end)
 */
bool emu_mappings_covers_apart(const struct emu_mappings *m, uint64_t start, uint64_t end,
			       unsigned int prot, uint64_t avoid_start, uint64_t avoid_end);

/** emu_mappings_within_one() - does one mapping with all of @prot hold [@start, @end)? */
bool emu_mappings_within_one(const struct emu_mappings *m, uint64_t start, uint64_t end,
			     unsigned int prot);

#endif /* EMU_MAPPINGS_H */
