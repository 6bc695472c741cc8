/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A JIT registration's index of its sealed unwind tables. A table whose
 * `next` is set is sealed: the writer has moved on to the next table, and
 * published entries never change (codectl-abi.md, "CODE_REGISTER_JIT"). So
 * the address of a sealed table and the ip_off of its first entry are kept,
 * and a lookup binary-searches them instead of walking the chain: O(log
 * tables) instead of two reads per table. Nothing else is kept: the table
 * searched is read again (header, first and last entry, entries) every time.
 */
#ifndef EMU_JIT_INDEX_H
#define EMU_JIT_INDEX_H

#include <stdint.h>

/* A sealed table: where it is and where its entries start. */
struct emu_jit_sealed {
	uint64_t addr;
	uint32_t first_off;
};

/**
 * struct emu_jit_index - sealed tables of one chain, in chain order
 * @t, @n, @cap: the tables (owned), first_off strictly increasing
 */
struct emu_jit_index {
	struct emu_jit_sealed *t;
	uint32_t n;
	uint32_t cap;
};

/** emu_jit_index_new() - an empty index (owned by the caller), NULL without memory. */
struct emu_jit_index *emu_jit_index_new(void);

/** emu_jit_index_free() - free @idx (NULL is fine). */
void emu_jit_index_free(struct emu_jit_index *idx);

/**
 * emu_jit_index_add() - append the next sealed table of the chain
 * Return: 0, or -ENOMEM (the index stays as it was: lookups walk further).
 */
int emu_jit_index_add(struct emu_jit_index *idx, uint64_t addr, uint32_t first_off);

/**
 * emu_jit_index_find() - the last sealed table whose first entry is at or
 * below @off: its position, or -1 when @off is below them all (or none).
 */
int64_t emu_jit_index_find(const struct emu_jit_index *idx, uint32_t off);

/** emu_jit_index_reset() - forget every table (the chain changed under it). */
void emu_jit_index_reset(struct emu_jit_index *idx);

#endif /* EMU_JIT_INDEX_H */
