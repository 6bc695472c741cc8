// SPDX-License-Identifier: GPL-2.0
/* Registry semantics: aspects, half-open overlap edges, removal, limit, fork copy, exec clear. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "fake_space.h"

static struct emu_registry *r;
static struct emu_verdict v;

static void setup(void)
{
	r = emu_registry_new(EMU_REGISTRY_DEFAULT_LIMIT);
}

static void teardown(void)
{
	emu_registry_free(r);
}

TestSuite(registry, .init = setup, .fini = teardown);

static struct emu_registration *mk(uint64_t start, uint64_t end, unsigned int aspects)
{
	struct emu_registration *reg = calloc(1, sizeof(*reg));

	reg->text_start = start;
	reg->text_end = end;
	reg->aspects = aspects;
	if (aspects & EMU_ASPECT_IDENTITY)
		reg->ident.pathname = strdup("/lib/x.so");
	return reg;
}

/* Insert; on failure free the registration and return the error. */
static int add(uint64_t start, uint64_t end, unsigned int aspects)
{
	struct emu_registration *reg = mk(start, end, aspects);
	int err;

	emu_verdict_init(&v);
	err = emu_registry_insert(r, reg, &v);
	if (err)
		emu_registration_free(reg);
	return err;
}

#define U EMU_ASPECT_UNWIND
#define I EMU_ASPECT_IDENTITY

Test(registry, touching_ranges_do_not_overlap)
{
	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add(0x2000, 0x3000, U), 0);
	cr_assert_eq(add(0x0800, 0x1000, U), 0);
	cr_assert_eq(emu_registry_count(r), 3);
}

Test(registry, overlap_edges)
{
	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add(0x1fff, 0x3000, U), -EEXIST, "last byte shared");
	cr_assert_eq(v.rule, EMU_R_OVERLAP);
	cr_assert_eq(add(0x0800, 0x1001, U), -EEXIST, "first byte shared");
	cr_assert_eq(add(0x1100, 0x1200, U), -EEXIST, "inside");
	cr_assert_eq(add(0x0100, 0x9000, U), -EEXIST, "around");
	cr_assert_eq(add(0x1000, 0x2000, U), -EEXIST, "identical");
	cr_assert_eq(emu_registry_count(r), 1);
}

Test(registry, overlap_across_several)
{
	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
	cr_assert_eq(add(0x2000, 0x3000, U), 0, "fills the gap exactly");
	cr_assert_eq(add(0x2800, 0x5000, U), -EEXIST);
}

Test(registry, aspects_are_independent)
{
	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add(0x1000, 0x2000, I), 0, "identity over unwind: split model");
	cr_assert_eq(add(0x1800, 0x2800, I), -EEXIST);
	cr_assert_eq(add(0x1800, 0x2800, U | I), -EEXIST);
	cr_assert_eq(add(0x2000, 0x3000, U | I), 0);
	cr_assert_eq(emu_registry_find_unwind(r, 0x1800)->aspects, U);
	cr_assert_eq(emu_registry_find_identity(r, 0x1800)->aspects, I);
	cr_assert_eq(emu_registry_find_unwind(r, 0x2000), emu_registry_find_identity(r, 0x2fff));
}

Test(registry, lookup_is_half_open)
{
	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
	cr_assert_null(emu_registry_find_unwind(r, 0x0fff));
	cr_assert_eq(emu_registry_find_unwind(r, 0x1000)->text_start, 0x1000);
	cr_assert_eq(emu_registry_find_unwind(r, 0x1fff)->text_start, 0x1000);
	cr_assert_null(emu_registry_find_unwind(r, 0x2000));
	cr_assert_null(emu_registry_find_unwind(r, 0x2fff));
	cr_assert_eq(emu_registry_find_unwind(r, 0x3000)->text_start, 0x3000);
	cr_assert_null(emu_registry_find_unwind(r, 0x4000));
	cr_assert_null(emu_registry_find_identity(r, 0x1000));
}

Test(registry, remove_both_or_one_aspect)
{
	cr_assert_eq(add(0x1000, 0x2000, U | I), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
	cr_assert_eq(add(0x3000, 0x4000, I), 0);
	cr_assert_eq(emu_registry_remove(r, 0x1000, U), 1);
	cr_assert_null(emu_registry_find_unwind(r, 0x1000));
	cr_assert_not_null(emu_registry_find_identity(r, 0x1000));
	cr_assert_eq(emu_registry_count(r), 3);
	cr_assert_eq(emu_registry_remove(r, 0x3000, U | I), 2);
	cr_assert_eq(emu_registry_count(r), 1);
	cr_assert_eq(emu_registry_remove(r, 0x3000, U | I), -ENOENT);
	cr_assert_eq(emu_registry_remove(r, 0x1001, U | I), -ENOENT);
	cr_assert_eq(emu_registry_remove(r, 0x1000, I), 1);
	cr_assert_eq(emu_registry_count(r), 0);
}

Test(registry, limit)
{
	emu_registry_free(r);
	r = emu_registry_new(2);
	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add(0x2000, 0x3000, I), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), -ENOSPC);
	cr_assert_eq(v.rule, EMU_R_LIMIT);
	cr_assert_str_eq(v.reason, "limit of 2 registrations reached");
	cr_assert_eq(emu_registry_remove(r, 0x1000, U), 1);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
}

static void collect(const struct emu_registration *reg, void *ctx)
{
	uint64_t **p = ctx;

	*(*p)++ = reg->text_start;
}

Test(registry, for_each_visits_once_in_address_order)
{
	uint64_t seen[8], *p = seen;

	cr_assert_eq(add(0x5000, 0x6000, U | I), 0);
	cr_assert_eq(add(0x1000, 0x2000, I), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	emu_registry_for_each(r, collect, &p);
	cr_assert_eq(p - seen, 4);
	cr_assert_eq(seen[0], 0x1000);
	cr_assert_eq(seen[1], 0x1000);
	cr_assert_eq(seen[2], 0x3000);
	cr_assert_eq(seen[3], 0x5000);
}

Test(registry, dup_copies_and_is_independent)
{
	struct emu_registry *child;

	cr_assert_eq(add(0x1000, 0x2000, U | I), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
	child = emu_registry_dup(r);
	cr_assert_not_null(child);
	cr_assert_eq(emu_registry_count(child), 2);
	cr_assert_eq(emu_registry_limit(child), EMU_REGISTRY_DEFAULT_LIMIT);
	cr_assert_str_eq(emu_registry_find_identity(child, 0x1500)->ident.pathname, "/lib/x.so");
	cr_assert_neq(emu_registry_find_identity(child, 0x1500), emu_registry_find_identity(r, 0x1500));
	cr_assert_eq(emu_registry_remove(child, 0x1000, U | I), 1);
	cr_assert_not_null(emu_registry_find_unwind(r, 0x1500), "parent keeps its own");
	emu_registry_free(child);
}

Test(registry, dup_gives_a_jit_registration_an_index_of_its_own)
{
	struct emu_registration *jit = mk(0x1000, 0x2000, U);
	const struct emu_registration *copy;
	struct emu_registry *child;

	jit->unwind_kind = EMU_UNWIND_JIT;
	jit->jit_index = emu_jit_index_new();
	cr_assert_not_null(jit->jit_index);
	cr_assert_eq(emu_jit_index_add(jit->jit_index, 0x7000, 0), 0);
	emu_verdict_init(&v);
	cr_assert_eq(emu_registry_insert(r, jit, &v), 0);
	child = emu_registry_dup(r);
	cr_assert_not_null(child);
	copy = emu_registry_find_unwind(child, 0x1000);
	cr_assert_not_null(copy->jit_index);
	cr_assert_neq(copy->jit_index, jit->jit_index, "not shared: freed with each registration");
	cr_assert_eq(copy->jit_index->n, 0, "the child's tables are its own: learnt again");
	emu_registry_free(child);
	cr_assert_eq(jit->jit_index->n, 1, "the parent's is kept");
}

Test(registry, clear_empties)
{
	cr_assert_eq(add(0x1000, 0x2000, U | I), 0);
	cr_assert_eq(add(0x3000, 0x4000, I), 0);
	emu_registry_clear(r);
	cr_assert_eq(emu_registry_count(r), 0);
	cr_assert_null(emu_registry_find_unwind(r, 0x1000));
	cr_assert_null(emu_registry_find_identity(r, 0x3000));
	cr_assert_eq(add(0x1000, 0x2000, U | I), 0, "usable again");
}

static void count_drop(const struct emu_registration *reg, void *ctx)
{
	(void)reg;
	(*(int *)ctx)++;
}

Test(registry, prune_drops_unmapped_text)
{
	struct emu_mappings m = { 0 };
	int dropped = 0;

	cr_assert_eq(add(0x1000, 0x2000, U | I), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
	cr_assert_eq(add(0x3000, 0x4000, I), 0);
	cr_assert_eq(emu_mappings_add(&m, 0x1000, 0x2000, EMU_PROT_READ | EMU_PROT_EXEC), 0);
	cr_assert_eq(emu_mappings_add(&m, 0x3000, 0x4000, EMU_PROT_READ), 0);	/* no longer exec */
	cr_assert_eq(emu_registry_prune_unmapped(r, &m, count_drop, &dropped), 2);
	cr_assert_eq(dropped, 2);
	cr_assert_eq(emu_registry_count(r), 1);
	cr_assert_not_null(emu_registry_find_unwind(r, 0x1000));
	emu_mappings_free(&m);
}

Test(registry, prune_keeps_jit_code_made_writable_and_drops_it_unmapped)
{
	struct emu_registration *jit = mk(0x1000, 0x3000, U);
	struct emu_mappings m = { 0 };

	jit->unwind_kind = EMU_UNWIND_JIT;
	emu_verdict_init(&v);
	cr_assert_eq(emu_registry_insert(r, jit, &v), 0);
	cr_assert_eq(add(0x5000, 0x6000, U), 0);
	cr_assert_eq(emu_registry_find_jit(r, 0x2fff), jit);
	cr_assert_null(emu_registry_find_jit(r, 0x5000), "an SFrame registration");
	cr_assert_null(emu_registry_find_jit(r, 0x3000));
	cr_assert_eq(emu_mappings_add(&m, 0x1000, 0x2000, EMU_PROT_READ | EMU_PROT_WRITE), 0);
	cr_assert_eq(emu_mappings_add(&m, 0x2000, 0x3000, EMU_PROT_READ | EMU_PROT_EXEC), 0);
	cr_assert_eq(emu_mappings_add(&m, 0x5000, 0x6000, EMU_PROT_READ | EMU_PROT_WRITE), 0);
	cr_assert_eq(emu_registry_prune_unmapped(r, &m, NULL, NULL), 1, "only the ELF text");
	cr_assert_not_null(emu_registry_find_unwind(r, 0x1000), "W^X: JIT text kept");
	emu_mappings_free(&m);
	m = (struct emu_mappings){ 0 };
	cr_assert_eq(emu_mappings_add(&m, 0x1000, 0x2000, EMU_PROT_READ | EMU_PROT_EXEC), 0);
	cr_assert_eq(emu_registry_prune_unmapped(r, &m, NULL, NULL), 1, "half unmapped: gone");
	cr_assert_eq(emu_registry_count(r), 0);
	emu_mappings_free(&m);
}

/*
 * Mappings known current over a range only: registrations whose text is all
 * in it are judged by them; the others are neither dropped nor given the
 * identity of a mapping that may be old there.
 */
Test(registry, prune_in_a_range_judges_only_the_text_in_it)
{
	struct emu_mappings m = { 0 };

	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add(0x3000, 0x4000, U), 0);
	cr_assert_eq(add(0x5000, 0x7000, U), 0);
	/* none of them mapped; [0x5000, 0x6000) named by an old mapping */
	cr_assert_eq(emu_mappings_add_ident(&m, 0x5000, 0x7000, EMU_PROT_EXEC, 77), 0);
	cr_assert_eq(emu_registry_prune_unmapped_in(r, &m, 0x3000, 0x6000, NULL, NULL), 1,
		     "only 0x3000's text is all in the range");
	cr_assert_not_null(emu_registry_find_unwind(r, 0x1000));
	cr_assert_null(emu_registry_find_unwind(r, 0x3000));
	cr_assert_eq(emu_registry_find_unwind(r, 0x5000)->text_vma_ident, 0,
		     "text reaching past the range learns no identity");
	cr_assert_eq(emu_registry_prune_unmapped_in(r, &m, 0x1000, 0x7000, NULL, NULL), 1);
	cr_assert_eq(emu_registry_find_unwind(r, 0x5000)->text_vma_ident, 77);
	cr_assert_eq(emu_registry_count(r), 1);
	emu_mappings_free(&m);
}

Test(registry, many_registrations_in_random_order)
{
	enum { N = 10000 };
	static uint32_t order[N];

	srand(42);
	for (uint32_t i = 0; i < N; i++)
		order[i] = i;
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rand() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 0; i < N; i++)
		cr_assert_eq(add(0x100000 + order[i] * 0x100ull, 0x100000 + order[i] * 0x100ull + 0x80, U), 0);
	for (uint32_t i = 0; i < N; i++) {
		uint64_t base = 0x100000 + i * 0x100ull;

		cr_assert_eq(emu_registry_find_unwind(r, base + 0x7f)->text_start, base);
		cr_assert_null(emu_registry_find_unwind(r, base + 0x80));
	}
}

Test(registry, prune_drops_text_mapped_from_another_file)
{
	struct emu_registration *reg = mk(0x1000, 0x2000, U);
	struct emu_mappings m = { 0 };

	reg->text_vma_ident = 111;	/* libfoo.so's text when registered */
	cr_assert_eq(emu_registry_insert(r, reg, &v), 0);
	cr_assert_eq(emu_mappings_add_ident(&m, 0x1000, 0x3000, EMU_PROT_EXEC, 111), 0);
	cr_assert_eq(emu_registry_prune_unmapped(r, &m, NULL, NULL), 0, "same file: kept");
	emu_mappings_reset(&m);
	cr_assert_eq(emu_mappings_add_ident(&m, 0x1000, 0x3000, EMU_PROT_EXEC, 222), 0);
	cr_assert_eq(emu_registry_prune_unmapped(r, &m, NULL, NULL), 1, "libbar.so there now");
	cr_assert_eq(emu_registry_count(r), 0);
	emu_mappings_free(&m);
}

Test(registry, prune_teaches_an_unknown_mapping_identity)
{
	struct emu_registration *reg = mk(0x1000, 0x2000, U);
	struct emu_mappings m = { 0 };

	/* registered against a cached copy of the mappings: identity unknown */
	cr_assert_eq(reg->text_vma_ident, 0);
	cr_assert_eq(emu_registry_insert(r, reg, &v), 0);
	cr_assert_eq(emu_mappings_add_ident(&m, 0x1000, 0x3000, EMU_PROT_EXEC, 222), 0);
	cr_assert_eq(emu_registry_prune_unmapped(r, &m, NULL, NULL), 0, "learnt, not dropped");
	cr_assert_eq(emu_registry_find_unwind(r, 0x1000)->text_vma_ident, 222);
	emu_mappings_reset(&m);
	cr_assert_eq(emu_mappings_add_ident(&m, 0x1000, 0x3000, EMU_PROT_EXEC, 333), 0);
	cr_assert_eq(emu_registry_prune_unmapped(r, &m, NULL, NULL), 1, "another file now");
	emu_mappings_free(&m);
}

/* Registered from a supervisor's cached mappings: the identity waits for a fresh read. */
Test(registry, registration_from_cached_maps_takes_no_mapping_identity)
{
	static const char path[] = "/usr/lib/libfoo.so";
	struct fake_space fs;
	struct code_elf_info e = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 0x100 };

	fake_space_init(&fs);
	emu_mappings_reset(&fs.maps);
	cr_assert_eq(emu_mappings_add_ident(&fs.maps, FAKE_TEXT_A, FAKE_TEXT_B, EMU_PROT_EXEC, 111), 0);
	cr_assert_eq(emu_mappings_add_ident(&fs.maps, FAKE_TEXT_B, FAKE_TEXT_END, EMU_PROT_EXEC, 222), 0);
	e.pathname = fake_put(&fs, path, sizeof(path));
	fs.space.maps_cached = true;
	cr_assert_eq(fake_call(&fs, CODE_REGISTER_ELF, fake_put(&fs, &e, sizeof(e)), sizeof(e), 0), 0);
	cr_assert_eq(fs.res.reg->text_vma_ident, 0);
	e.text_start = FAKE_TEXT_B;
	e.text_end = FAKE_TEXT_B + 0x100;
	fs.space.maps_cached = false;
	cr_assert_eq(fake_call(&fs, CODE_REGISTER_ELF, fake_put(&fs, &e, sizeof(e)), sizeof(e), 0), 0);
	cr_assert_eq(fs.res.reg->text_vma_ident, 222);
	fake_space_fini(&fs);
}

#define E EMU_ASPECT_EH_FRAME

/* An .eh_frame registration of [start, end) with its header at @hdr. */
static int add_eh(uint64_t start, uint64_t end, uint64_t hdr)
{
	struct emu_registration *reg = mk(start, end, E);
	int err;

	reg->origin = EMU_ORIGIN_EH_FRAME_REGISTER;
	reg->eh_frame.hdr_start = hdr;
	emu_verdict_init(&v);
	err = emu_registry_insert(r, reg, &v);
	if (err)
		emu_registration_free(reg);
	return err;
}

/* The kernel keeps .eh_frame in a tree of its own: overlaps only with itself. */
Test(registry, eh_frame_is_a_table_of_its_own)
{
	uint64_t seen[8], *p = seen;

	cr_assert_eq(add(0x1000, 0x3000, U | I), 0);
	cr_assert_eq(add_eh(0x1000, 0x2000, 0x9000), 0);
	cr_assert_eq(add_eh(0x2000, 0x3000, 0x9000), 0, "one header, two text ranges");
	cr_assert_eq(add_eh(0x1800, 0x2800, 0xa000), -EEXIST);
	cr_assert_eq(v.rule, EMU_R_OVERLAP);
	cr_assert_str_eq(v.reason, "text 0x1800..0x2800 overlaps the .eh_frame aspect of "
				   "0x2000..0x3000");
	cr_assert_eq(emu_registry_count(r), 3);
	cr_assert_eq(emu_registry_find_eh_frame(r, 0x2fff)->text_start, 0x2000);
	cr_assert_eq(emu_registry_find_unwind(r, 0x2fff)->text_start, 0x1000);
	emu_registry_for_each(r, collect, &p);
	cr_assert_eq(p - seen, 3);
	cr_assert_eq(seen[0], 0x1000);
	cr_assert_eq(seen[1], 0x1000);
	cr_assert_eq(seen[2], 0x2000);
	cr_assert(emu_registry_has_eh_frame(r, 0x9000));
	cr_assert_not(emu_registry_has_sframe(r, 0x9000));
	cr_assert_eq(emu_registry_remove(r, 0x1000, U | I), 1, "codectl's removal leaves it");
	cr_assert_not_null(emu_registry_find_eh_frame(r, 0x1000));
	cr_assert_eq(emu_registry_remove_eh_frame(r, 0x9000), 2);
	cr_assert_eq(emu_registry_remove_eh_frame(r, 0x9000), -ENOENT);
	cr_assert_eq(emu_registry_count(r), 0);
}

Test(registry, eh_frame_dup_prune_and_clear)
{
	struct emu_mappings maps = { 0 };
	struct emu_registry *child;
	int dropped = 0;

	cr_assert_eq(add(0x1000, 0x2000, U), 0);
	cr_assert_eq(add_eh(0x1000, 0x2000, 0x9000), 0);
	cr_assert_eq(add_eh(0x4000, 0x5000, 0xa000), 0);
	child = emu_registry_dup(r);
	cr_assert_not_null(child);
	cr_assert_eq(emu_registry_count(child), 3);
	cr_assert_eq(emu_registry_find_eh_frame(child, 0x4000)->eh_frame.hdr_start, 0xa000);
	emu_registry_free(child);
	cr_assert_eq(emu_mappings_add(&maps, 0x1000, 0x2000, EMU_PROT_EXEC), 0);
	cr_assert_eq(emu_registry_prune_unmapped(r, &maps, count_drop, &dropped), 1);
	cr_assert_eq(dropped, 1);
	cr_assert_null(emu_registry_find_eh_frame(r, 0x4000));
	cr_assert_not_null(emu_registry_find_eh_frame(r, 0x1000));
	emu_registry_clear(r);
	cr_assert_eq(emu_registry_count(r), 0);
	cr_assert_null(emu_registry_find_eh_frame(r, 0x1000));
	emu_mappings_free(&maps);
}
