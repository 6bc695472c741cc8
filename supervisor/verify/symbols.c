// SPDX-License-Identifier: GPL-2.0
/* An object's names for the verifier: function symbols, imports, sections. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "verify.h"

/* By start; for one start the largest first (an alias of size 0 says nothing). */
static int cmp_sym(const void *a, const void *b)
{
	const struct verify_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->size > y->size ? -1 : x->size < y->size;
}

static int cmp_imp(const void *a, const void *b)
{
	const struct verify_import *x = a, *y = b;

	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static int cmp_sec(const void *a, const void *b)
{
	const struct verify_section *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Keep one symbol per start: the first (largest) of each run. */
static size_t dedup(struct verify_sym *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!k || s[k - 1].start != s[i].start)
			s[k++] = s[i];
	return k;
}

void verify_symbols_sort(struct verify_symbols *s)
{
	if (s->nsym) {
		qsort(s->sym, s->nsym, sizeof(*s->sym), cmp_sym);
		s->nsym = dedup(s->sym, s->nsym);
	}
	if (s->nimp)
		qsort(s->imp, s->nimp, sizeof(*s->imp), cmp_imp);
	if (s->nsec)
		qsort(s->sec, s->nsec, sizeof(*s->sec), cmp_sec);
}

/*
 * How many of the @n elements at @base (@size bytes each, sorted by the
 * address at byte @key of each) have an address <= @addr.
 */
static size_t count_at_or_below(const void *base, size_t n, size_t size, size_t key,
				uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t a;

		memcpy(&a, (const char *)base + mid * size + key, sizeof(a));
		if (a <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct verify_sym *verify_symbol_at(const struct verify_symbols *s, uint64_t addr)
{
	size_t i = count_at_or_below(s->sym, s->nsym, sizeof(*s->sym),
				     offsetof(struct verify_sym, start), addr);

	if (!i || addr - s->sym[i - 1].start >= s->sym[i - 1].size)
		return NULL;
	return &s->sym[i - 1];
}

const char *verify_import_at(const struct verify_symbols *s, uint64_t slot)
{
	size_t i = count_at_or_below(s->imp, s->nimp, sizeof(*s->imp),
				     offsetof(struct verify_import, slot), slot);

	return i && s->imp[i - 1].slot == slot ? s->imp[i - 1].name : NULL;
}

const struct verify_section *verify_section_of(const struct verify_symbols *s, uint64_t addr)
{
	size_t i = count_at_or_below(s->sec, s->nsec, sizeof(*s->sec),
				     offsetof(struct verify_section, start), addr);

	if (!i || addr >= s->sec[i - 1].end)
		return NULL;
	return &s->sec[i - 1];
}

const char *verify_section_at(const struct verify_symbols *s, uint64_t addr)
{
	const struct verify_section *sec = verify_section_of(s, addr);

	return sec ? sec->name : NULL;
}
