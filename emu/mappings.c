// SPDX-License-Identifier: GPL-2.0
/* The tracee's mappings: a sorted array searched like find_vma(). */
#include <errno.h>
#include <stdlib.h>

#include "mappings.h"

int emu_mappings_add(struct emu_mappings *m, uint64_t start, uint64_t end, unsigned int prot)
{
	return emu_mappings_add_ident(m, start, end, prot, 0);
}

int emu_mappings_add_ident(struct emu_mappings *m, uint64_t start, uint64_t end,
			   unsigned int prot, uint64_t ident)
{
	struct emu_vma *vma;
	size_t cap;

	if (start >= end || (m->n && start < m->vma[m->n - 1].end))
		return -EINVAL;
	if (m->n == m->cap) {
		cap = m->cap ? m->cap * 2 : 64;
		vma = realloc(m->vma, cap * sizeof(*vma));
		if (!vma)
			return -ENOMEM;
		m->vma = vma;
		m->cap = cap;
	}
	m->vma[m->n++] = (struct emu_vma){ start, end, prot, ident };
	return 0;
}

int emu_mappings_copy(struct emu_mappings *dst, const struct emu_mappings *src)
{
	int err = 0;

	emu_mappings_reset(dst);
	for (size_t i = 0; !err && i < src->n; i++)
		err = emu_mappings_add_ident(dst, src->vma[i].start, src->vma[i].end,
					     src->vma[i].prot, src->vma[i].ident);
	if (err)
		emu_mappings_reset(dst);
	return err;
}

void emu_mappings_reset(struct emu_mappings *m)
{
	m->n = 0;
}

void emu_mappings_free(struct emu_mappings *m)
{
	free(m->vma);
	*m = (struct emu_mappings){ 0 };
}

/* Index of the first mapping whose end is above @addr, or m->n. */
static size_t first_ending_above(const struct emu_mappings *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->vma[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct emu_vma *emu_mappings_find(const struct emu_mappings *m, uint64_t addr)
{
	size_t i = first_ending_above(m, addr);

	if (i == m->n || m->vma[i].start > addr)
		return NULL;
	return &m->vma[i];
}

/* The mappings from @start on cover [start, end) with @prot, none touching @avoid. */
static bool covers(const struct emu_mappings *m, uint64_t start, uint64_t end, unsigned int prot,
		   uint64_t avoid_start, uint64_t avoid_end)
{
	size_t i = first_ending_above(m, start);
	uint64_t pos = start;

	if (start >= end)
		return false;
	for (; i < m->n && pos < end; i++) {
		const struct emu_vma *v = &m->vma[i];

		if (v->start > pos || (v->prot & prot) != prot)
			return false;
		if (v->start < avoid_end && avoid_start < v->end)
			return false;
		pos = v->end;
	}
	return pos >= end;
}

bool emu_mappings_covers(const struct emu_mappings *m, uint64_t start, uint64_t end,
			 unsigned int prot)
{
	return covers(m, start, end, prot, 0, 0);
}

bool emu_mappings_covers_apart(const struct emu_mappings *m, uint64_t start, uint64_t end,
			       unsigned int prot, uint64_t avoid_start, uint64_t avoid_end)
{
	return covers(m, start, end, prot, avoid_start, avoid_end);
}

bool emu_mappings_within_one(const struct emu_mappings *m, uint64_t start, uint64_t end,
			     unsigned int prot)
{
	const struct emu_vma *v = emu_mappings_find(m, start);

	return start < end && v && end <= v->end && (v->prot & prot) == prot;
}
