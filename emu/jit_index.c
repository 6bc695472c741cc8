// SPDX-License-Identifier: GPL-2.0
/* The sealed-table index of a JIT registration: a sorted, growing array. */
#include <errno.h>
#include <stdlib.h>

#include "jit.h"
#include "jit_index.h"

struct emu_jit_index *emu_jit_index_new(void)
{
	return calloc(1, sizeof(struct emu_jit_index));
}

void emu_jit_index_free(struct emu_jit_index *idx)
{
	if (!idx)
		return;
	free(idx->t);
	free(idx);
}

int emu_jit_index_add(struct emu_jit_index *idx, uint64_t addr, uint32_t first_off)
{
	struct emu_jit_sealed *t;
	uint32_t cap;

	if (idx->n == idx->cap) {
		cap = idx->cap ? idx->cap * 2 : 16;
		if (cap > EMU_JIT_MAX_TABLES)
			return -ENOMEM;
		t = realloc(idx->t, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		idx->t = t;
		idx->cap = cap;
	}
	idx->t[idx->n++] = (struct emu_jit_sealed){ .addr = addr, .first_off = first_off };
	return 0;
}

int64_t emu_jit_index_find(const struct emu_jit_index *idx, uint32_t off)
{
	uint32_t lo = 0, hi = idx->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (idx->t[mid].first_off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)lo - 1;
}

void emu_jit_index_reset(struct emu_jit_index *idx)
{
	idx->n = 0;
}
