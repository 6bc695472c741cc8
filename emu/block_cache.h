/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The budget of one address space for SFrame data read from files: blocks
 * made resident (read, or decompressed) by lookups are charged here and the
 * least recently used is given back when the budget is full. The blocks stay
 * with their owners (struct emu_sframe_store); the cache keeps only which
 * ones are resident, how big, and each one's last use.
 */
#ifndef EMU_BLOCK_CACHE_H
#define EMU_BLOCK_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* Default budget of one address space (--sframe-cache-size), bytes. */
#define EMU_BLOCK_CACHE_DEFAULT (8u << 20)

/**
 * struct emu_block_cache_stats - what the cache did, for the reports
 * @hits, @misses: block uses that found it resident, and that had to read it
 * @evictions: blocks given back for room
 * @resident, @peak: bytes charged now, and at most
 */
struct emu_block_cache_stats {
	uint64_t hits;
	uint64_t misses;
	uint64_t evictions;
	uint64_t resident;
	uint64_t peak;
};

struct emu_block_cache;

/** emu_block_cache_new() - an empty cache of @budget bytes, one reference; NULL on ENOMEM. */
struct emu_block_cache *emu_block_cache_new(uint64_t budget);

/** emu_block_cache_get() - take a reference (each store charging it holds one). */
struct emu_block_cache *emu_block_cache_get(struct emu_block_cache *c);

/** emu_block_cache_put() - drop a reference; the last frees it (NULL is fine). */
void emu_block_cache_put(struct emu_block_cache *c);

/**
 * emu_block_cache_begin() - start one lookup: the blocks it uses from now on
 * are never evicted for another block of the same lookup
 * Return: the stamp to give its blocks (emu_block_cache_use()).
 */
uint64_t emu_block_cache_begin(struct emu_block_cache *c);

/**
 * emu_block_cache_charge() - block @block of @owner was made resident
 * @bytes: what it takes
 * @stamp: where the owner keeps the block's last use (set to the lookup's
 *	stamp); 0 there means not resident
 * @evict: called to give a block back (it sets the block's stamp to 0)
 *
 * Older blocks of any owner are evicted until the budget holds it, or no
 * block but the current lookup's is left (the budget is then exceeded for
 * the lookup's sake).
 * Return: 0, or -ENOMEM (the entry could not be recorded; the block stays
 * resident, uncharged, until its owner goes).
 */
int emu_block_cache_charge(struct emu_block_cache *c, void *owner, uint32_t block,
			   uint32_t bytes, uint64_t *stamp,
			   void (*evict)(void *owner, uint32_t block));

/** emu_block_cache_hit() - a resident block was used again (counted; the caller sets its stamp). */
void emu_block_cache_hit(struct emu_block_cache *c);

/** emu_block_cache_forget() - @owner is going: its entries are dropped (not evicted). */
void emu_block_cache_forget(struct emu_block_cache *c, void *owner);

/** emu_block_cache_stats() - the counters of @c. */
struct emu_block_cache_stats emu_block_cache_stats(const struct emu_block_cache *c);

#endif /* EMU_BLOCK_CACHE_H */
