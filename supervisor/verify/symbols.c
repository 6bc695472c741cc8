// SPDX-License-Identifier: GPL-2.0
/* An object's names for the verifier: function symbols, imports, sections. */
#include <stdlib.h>

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

const struct verify_sym *verify_symbol_at(const struct verify_symbols *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nsym;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->sym[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - s->sym[lo - 1].start >= s->sym[lo - 1].size)
		return NULL;
	return &s->sym[lo - 1];
}

const char *verify_import_at(const struct verify_symbols *s, uint64_t slot)
{
	size_t lo = 0, hi = s->nimp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->imp[mid].slot < slot)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->nimp && s->imp[lo].slot == slot ? s->imp[lo].name : NULL;
}

const char *verify_section_at(const struct verify_symbols *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nsec;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->sec[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= s->sec[lo - 1].end)
		return NULL;
	return s->sec[lo - 1].name;
}
