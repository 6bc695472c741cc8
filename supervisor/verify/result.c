// SPDX-License-Identifier: GPL-2.0
/* The verifier's names (kinds, reasons) and results: counts, shares, release. */
#include <stdlib.h>

#include "verify.h"

static const char *const kind_names[VERIFY_KIND_COUNT] = {
#define VERIFY_KIND_NAME(id, name) [VERIFY_##id] = name,
	VERIFY_KINDS(VERIFY_KIND_NAME)
#undef VERIFY_KIND_NAME
};

static const char *const why_names[VERIFY_WHY_COUNT] = {
#define VERIFY_WHY_NAME(id, name, text) [VERIFY_WHY_##id] = name,
	VERIFY_WHYS(VERIFY_WHY_NAME)
#undef VERIFY_WHY_NAME
};

static const char *const why_texts[VERIFY_WHY_COUNT] = {
#define VERIFY_WHY_TEXT(id, name, text) [VERIFY_WHY_##id] = text,
	VERIFY_WHYS(VERIFY_WHY_TEXT)
#undef VERIFY_WHY_TEXT
};

const char *verify_kind_name(unsigned int k)
{
	return k < VERIFY_KIND_COUNT ? kind_names[k] : "?";
}

const char *verify_why_name(unsigned int w)
{
	return w < VERIFY_WHY_COUNT ? why_names[w] : "?";
}

const char *verify_why_text(unsigned int w)
{
	return w < VERIFY_WHY_COUNT ? why_texts[w] : "?";
}

unsigned long verify_mismatches(const struct verify_stats *st)
{
	unsigned long n = 0;

	for (unsigned int k = 0; k < VERIFY_KIND_COUNT; k++)
		if (verify_is_mismatch(k))
			n += st->by_kind[k];
	return n;
}

void verify_stats_add(struct verify_stats *sum, const struct verify_stats *st)
{
	sum->fdes += st->fdes;
	sum->functions += st->functions;
	sum->rows += st->rows;
	sum->instructions += st->instructions;
	sum->decided += st->decided;
	sum->undecided += st->undecided;
	sum->unreachable += st->unreachable;
	sum->not_checked += st->not_checked;
	for (unsigned int k = 0; k < VERIFY_KIND_COUNT; k++)
		sum->by_kind[k] += st->by_kind[k];
}

double verify_share_decided(const struct verify_stats *st)
{
	unsigned long all = st->decided + st->undecided;

	return all ? (double)st->decided / (double)all : 1.0;
}

void verify_result_free(struct verify_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->f[i].function);
		free(r->f[i].detail);
		free(r->f[i].cause);
		free(r->f[i].range);
	}
	free(r->f);
	r->f = NULL;
	r->n = r->cap = 0;
	free(r->rows);
	r->rows = NULL;
	r->nrows = r->caprows = 0;
}
