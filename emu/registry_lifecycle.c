// SPDX-License-Identifier: GPL-2.0
/* Registry lifecycle beyond single calls: fork copies and stale-text pruning. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

static struct emu_registration *registration_clone(const struct emu_registration *reg)
{
	struct emu_registration *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *reg;
	c->ident.pathname = NULL;
	c->ident.debug_link = NULL;
	c->sframe = reg->sframe ? emu_sframe_get(reg->sframe) : NULL;
	/* the child's tables are its own from now on: it starts its own index */
	c->jit_index = reg->jit_index ? emu_jit_index_new() : NULL;
	if ((reg->ident.pathname && !(c->ident.pathname = strdup(reg->ident.pathname))) ||
	    (reg->ident.debug_link && !(c->ident.debug_link = strdup(reg->ident.debug_link)))) {
		emu_registration_free(c);
		return NULL;
	}
	return c;
}

struct dup_state {
	struct emu_registry *dst;
	int err;
};

static void dup_one(const struct emu_registration *reg, void *ctx)
{
	struct dup_state *st = ctx;
	struct emu_registration *c;
	struct emu_verdict v;

	if (st->err)
		return;
	c = registration_clone(reg);
	if (!c) {
		st->err = -ENOMEM;
		return;
	}
	st->err = emu_registry_insert(st->dst, c, &v);
	if (st->err)
		emu_registration_free(c);
}

struct emu_registry *emu_registry_dup(const struct emu_registry *r)
{
	struct dup_state st = { .dst = emu_registry_new(emu_registry_limit(r)) };

	if (!st.dst)
		return NULL;
	emu_registry_set_inclusive_end(st.dst, emu_registry_inclusive_end(r));
	emu_registry_for_each(r, dup_one, &st);
	if (st.err) {
		emu_registry_free(st.dst);
		return NULL;
	}
	return st.dst;
}

struct prune_state {
	const struct emu_mappings *maps;
	uint64_t start;
	uint64_t end;
	const struct emu_registration **stale;
	size_t n;
};

static bool is_stale(const struct emu_registration *reg, const struct emu_mappings *maps)
{
	/* a JIT may make its code writable and not executable while it writes */
	unsigned int prot = reg->unwind_kind == EMU_UNWIND_JIT ? 0 : EMU_PROT_EXEC;
	const struct emu_vma *v;

	if (!emu_mappings_covers(maps, reg->text_start, reg->text_end, prot))
		return true;
	v = emu_mappings_find(maps, reg->text_start);
	return reg->text_vma_ident && v && v->ident != reg->text_vma_ident;
}

static void collect_stale(const struct emu_registration *reg, void *ctx)
{
	struct prune_state *st = ctx;
	const struct emu_vma *v;

	if (reg->text_start < st->start || reg->text_end > st->end)
		return;		/* its text is not all where @maps are known current */
	if (is_stale(reg, st->maps)) {
		st->stale[st->n++] = reg;
		return;
	}
	v = emu_mappings_find(st->maps, reg->text_start);
	/* the registry owns its registrations: learn an unknown mapping identity */
	if (!reg->text_vma_ident && v)
		((struct emu_registration *)reg)->text_vma_ident = v->ident;
}

size_t emu_registry_prune_unmapped(struct emu_registry *r, const struct emu_mappings *maps,
				   emu_registry_visit_fn on_drop, void *ctx)
{
	return emu_registry_prune_unmapped_in(r, maps, 0, UINT64_MAX, on_drop, ctx);
}

size_t emu_registry_prune_unmapped_in(struct emu_registry *r, const struct emu_mappings *maps,
				      uint64_t start, uint64_t end, emu_registry_visit_fn on_drop,
				      void *ctx)
{
	struct prune_state st = { .maps = maps, .start = start, .end = end };
	size_t i;

	if (!emu_registry_count(r))
		return 0;
	st.stale = malloc(emu_registry_count(r) * sizeof(*st.stale));
	if (!st.stale)
		return 0;
	emu_registry_for_each(r, collect_stale, &st);
	for (i = 0; i < st.n; i++) {
		uint64_t text_start = st.stale[i]->text_start;
		unsigned int aspects = st.stale[i]->aspects;

		if (on_drop)
			on_drop(st.stale[i], ctx);
		emu_registry_remove(r, text_start, aspects);
	}
	free(st.stale);
	return st.n;
}
