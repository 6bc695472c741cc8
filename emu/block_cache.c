// SPDX-License-Identifier: GPL-2.0
/* The per-address-space budget of resident file-backed SFrame blocks (block_cache.h). */
#include <errno.h>
#include <stdlib.h>

#include "block_cache.h"

struct cache_entry {
	void *owner;
	uint32_t block;
	uint32_t bytes;
	uint64_t *stamp;
	void (*evict)(void *owner, uint32_t block);
};

struct emu_block_cache {
	unsigned int refs;
	uint64_t budget;
	uint64_t clock;
	uint64_t pin;
	struct cache_entry *e;
	size_t n;
	size_t cap;
	struct emu_block_cache_stats st;
};

struct emu_block_cache *emu_block_cache_new(uint64_t budget)
{
	struct emu_block_cache *c = calloc(1, sizeof(*c));

	if (c) {
		c->refs = 1;
		c->budget = budget;
	}
	return c;
}

struct emu_block_cache *emu_block_cache_get(struct emu_block_cache *c)
{
	c->refs++;
	return c;
}

void emu_block_cache_put(struct emu_block_cache *c)
{
	if (!c || --c->refs)
		return;
	free(c->e);
	free(c);
}

uint64_t emu_block_cache_begin(struct emu_block_cache *c)
{
	c->pin = ++c->clock;
	return c->pin;
}

static void drop(struct emu_block_cache *c, size_t i)
{
	c->st.resident -= c->e[i].bytes;
	c->e[i] = c->e[--c->n];
}

/* The least recently used block not of the current lookup, or c->n if none. */
static size_t oldest(const struct emu_block_cache *c)
{
	size_t best = c->n;

	for (size_t i = 0; i < c->n; i++)
		if (*c->e[i].stamp < c->pin && (best == c->n || *c->e[i].stamp < *c->e[best].stamp))
			best = i;
	return best;
}

int emu_block_cache_charge(struct emu_block_cache *c, void *owner, uint32_t block,
			   uint32_t bytes, uint64_t *stamp,
			   void (*evict)(void *owner, uint32_t block))
{
	struct cache_entry *grown;
	size_t i;

	c->st.misses++;
	while (c->st.resident + bytes > c->budget && (i = oldest(c)) < c->n) {
		c->e[i].evict(c->e[i].owner, c->e[i].block);
		drop(c, i);
		c->st.evictions++;
	}
	if (c->n == c->cap) {
		grown = realloc(c->e, (c->cap ? 2 * c->cap : 16) * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		c->e = grown;
		c->cap = c->cap ? 2 * c->cap : 16;
	}
	c->e[c->n++] = (struct cache_entry){ owner, block, bytes, stamp, evict };
	*stamp = c->pin;
	c->st.resident += bytes;
	if (c->st.resident > c->st.peak)
		c->st.peak = c->st.resident;
	return 0;
}

void emu_block_cache_hit(struct emu_block_cache *c)
{
	c->st.hits++;
}

void emu_block_cache_forget(struct emu_block_cache *c, void *owner)
{
	for (size_t i = c->n; i-- > 0;)
		if (c->e[i].owner == owner)
			drop(c, i);
}

struct emu_block_cache_stats emu_block_cache_stats(const struct emu_block_cache *c)
{
	return c->st;
}
