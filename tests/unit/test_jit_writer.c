// SPDX-License-Identifier: GPL-2.0
/*
 * The JIT writer helper (include/codectl_jit.h) read back by the emu/ lookup:
 * the FREs it derives for the two x86_64 shapes, its chaining of full
 * tables, and 1 000 006 entries across 16 chained tables looked up in
 * O(tables + log n) reads.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "codectl_jit.h"
#include "emu/emu.h"

/* A JIT code area that is never executed here: only its addresses count. */
#define TEXT ((const void *)0x10000000)
#define TEXT_LEN (8u << 20)
#define FN_BYTES 24u		/* each function's slot; the last bytes are padding */
#define FP_LEAVE 20u		/* FP shape: leave at 20, ret at 21, 22 bytes */
#define NOFP_SUB 4u		/* frameless: sub $24,%rsp (4 bytes) ... ret at 17 */
#define NOFP_FRAME 24u
#define NOFP_RET 17u

struct counting {
	struct emu_mem_image img;
	struct emu_accessor inner;
	unsigned long reads;
};

static int counting_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct counting *c = ctx;

	c->reads++;
	return emu_read(&c->inner, addr, buf, len);
}

struct writer_fixture {
	struct codectl_jit_tables t;
	void *area;
	size_t area_len;
	struct counting cnt;
	struct emu_accessor mem;
	struct emu_jit_index *idx;
	unsigned long walk_reads;	/* reads of the last lookup without the index */
};

static void fixture_init(struct writer_fixture *f, size_t per_table, size_t tables)
{
	memset(f, 0, sizeof(*f));
	f->area_len = codectl_jit_table_bytes(per_table) * tables;
	f->area = aligned_alloc(8, f->area_len);
	cr_assert_not_null(f->area);
	cr_assert_eq(codectl_jit_init_area(&f->t, TEXT, TEXT_LEN, f->area, f->area_len, per_table),
		     0);
	/* the tables are read at their real addresses, as a tracee's would be */
	cr_assert_eq(emu_mem_image_add(&f->cnt.img, (uintptr_t)f->area, f->area, f->area_len), 0);
	f->cnt.inner = emu_mem_image_accessor(&f->cnt.img);
	f->mem = (struct emu_accessor){ .read = counting_read, .ctx = &f->cnt };
	f->idx = emu_jit_index_new();
	cr_assert_not_null(f->idx);
}

static void fixture_fini(struct writer_fixture *f)
{
	emu_jit_index_free(f->idx);
	free(f->area);
}

/* Function @i: even ones keep a frame pointer, odd ones are frameless. */
static int add_function(struct codectl_jit_tables *t, uint32_t i)
{
	struct code_jit_unwind_fre fre[CODECTL_JIT_FP_FRES];
	unsigned int n = i % 2 ? codectl_jit_fres_frameless(i * FN_BYTES, NOFP_SUB, NOFP_FRAME,
							     NOFP_RET, fre)
			       : codectl_jit_fres_fp(i * FN_BYTES, FP_LEAVE, fre);

	return codectl_jit_add(t, fre, n);
}

static int lookup_with(struct writer_fixture *f, uint64_t off, struct emu_jit_index *idx,
		       struct emu_unwind_rule *r)
{
	enum emu_jit_fault fault;
	int err = emu_jit_find_rule(&f->mem, emu_arch_get(EMU_ARCH_X86_64), (uintptr_t)TEXT,
				    (uintptr_t)f->t.head, (uintptr_t)TEXT + off, idx, r, &fault);

	cr_assert_eq(fault, EMU_JIT_OK, "%s", emu_jit_fault_reason(fault));
	return err;
}

/*
 * Look @off up by walking the chain, then through the sealed-table index:
 * both must give the same answer. f->cnt.reads: the indexed lookup's reads.
 */
static int lookup(struct writer_fixture *f, uint64_t off, struct emu_unwind_rule *r)
{
	struct emu_unwind_rule walked;
	int err;

	f->cnt.reads = 0;
	err = lookup_with(f, off, NULL, &walked);
	f->walk_reads = f->cnt.reads;
	f->cnt.reads = 0;
	cr_assert_eq(lookup_with(f, off, f->idx, r), err, "indexed lookup of +%llu",
		     (unsigned long long)off);
	if (!err)
		cr_assert_eq(memcmp(r, &walked, sizeof(*r)), 0, "the same rule at +%llu",
			     (unsigned long long)off);
	return err;
}

/* The rule the shape gives at @at bytes into function @i: CFA base, offset, FP saved. */
static void expect_rule(struct writer_fixture *f, uint32_t i, uint32_t at)
{
	struct emu_unwind_rule r;
	uint32_t size = i % 2 ? NOFP_RET + 1 : FP_LEAVE + 2;
	int base_fp = 0, fp_saved = 0, cfa = 8;
	int err = lookup(f, (uint64_t)i * FN_BYTES + at, &r);

	if (at >= size) {
		cr_assert_eq(err, -ENOENT, "fn %u +%u is padding", i, at);
		return;
	}
	cr_assert_eq(err, 0, "fn %u +%u", i, at);
	if (i % 2 == 0 && at >= 1 && at < FP_LEAVE + 1) {
		fp_saved = 1;
		base_fp = at >= 4;
		cfa = 16;
	} else if (i % 2 && at >= NOFP_SUB && at < NOFP_RET) {
		cfa = 8 + NOFP_FRAME;
	}
	cr_assert_eq(r.cfa_base, base_fp ? EMU_CFA_FP : EMU_CFA_SP, "fn %u +%u", i, at);
	cr_assert_eq(r.cfa_off, cfa, "fn %u +%u", i, at);
	cr_assert_eq(r.ra.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.ra.off, -8);
	cr_assert_eq(r.fp.kind, fp_saved ? EMU_LOC_CFA_DEREF : EMU_LOC_SAME, "fn %u +%u", i, at);
	if (fp_saved)
		cr_assert_eq(r.fp.off, -16);
	cr_assert_not(r.outermost);
}

/* Every byte of functions [0, @n): its rule, or padding. */
static void expect_functions(struct writer_fixture *f, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t at = 0; at < FN_BYTES; at++)
			expect_rule(f, i, at);
}

Test(jit_writer, shapes_give_the_rule_of_every_instruction_boundary)
{
	struct writer_fixture f;

	fixture_init(&f, 16, 4);
	for (uint32_t i = 0; i < 6; i++)
		cr_assert_eq(add_function(&f.t, i), 0);
	expect_functions(&f, 6);
	fixture_fini(&f);
}

Test(jit_writer, full_tables_are_chained_without_losing_entries)
{
	struct writer_fixture f;
	size_t tables = 1;

	fixture_init(&f, 10, 8);	/* an FP and a frameless function (4 + 3) per table */
	for (uint32_t i = 0; i < 16; i++)
		cr_assert_eq(add_function(&f.t, i), 0, "fn %u", i);
	for (const struct code_jit_unwind_table *t = f.t.head; t->next;
	     t = (const void *)(uintptr_t)t->next)
		tables++;
	cr_assert_eq(tables, 8);
	cr_assert_eq(f.t.tail->used_len, 7 * CODECTL_JIT_FRE_STRIDE, "fn 14 and 15 in the last");
	cr_assert_eq(add_function(&f.t, 16), -ENOSPC, "the area is full");
	expect_functions(&f, 16);
	fixture_fini(&f);
}

Test(jit_writer, bad_entries_are_refused)
{
	struct writer_fixture f;
	struct code_jit_unwind_fre fre[CODECTL_JIT_FP_FRES];

	fixture_init(&f, 16, 2);
	cr_assert_eq(codectl_jit_fres_fp(0, 3, fre), 0, "leave before the body");
	cr_assert_eq(codectl_jit_fres_frameless(0, 4, 8, 4, fre), 0, "ret at the sub");
	cr_assert_eq(add_function(&f.t, 1), 0);
	cr_assert_eq(add_function(&f.t, 0), -EINVAL, "below the last function");
	cr_assert_eq(add_function(&f.t, 1), -EINVAL, "the same function again");
	codectl_jit_fres_fp(TEXT_LEN - 8, FP_LEAVE, fre);
	cr_assert_eq(codectl_jit_add(&f.t, fre, CODECTL_JIT_FP_FRES), -ERANGE);
	cr_assert_eq(codectl_jit_add(&f.t, fre, 0), -EINVAL);
	cr_assert_eq(codectl_jit_add(&f.t, fre, 17), -EINVAL, "more than a table holds");
	cr_assert_eq(f.t.head->used_len, CODECTL_JIT_FRAMELESS_FRES * CODECTL_JIT_FRE_STRIDE,
		     "nothing refused was published");
	cr_assert_eq(codectl_jit_destroy(&f.t), 0, "not registered: nothing to unregister");
	cr_assert_eq(codectl_jit_destroy(&f.t), 0, "twice");
	cr_assert_eq(add_function(&f.t, 2), -EINVAL, "after destroy");
	fixture_fini(&f);
}

Test(jit_writer, the_index_follows_a_growing_chain)
{
	struct writer_fixture f;

	fixture_init(&f, 8, 64);	/* an FP and a frameless function per table */
	srand(7);
	for (uint32_t i = 0; i < 120; i++) {
		cr_assert_eq(add_function(&f.t, i), 0, "fn %u", i);
		expect_rule(&f, i, (uint32_t)rand() % FN_BYTES);
		expect_rule(&f, (uint32_t)rand() % (i + 1), (uint32_t)rand() % FN_BYTES);
	}
	cr_assert_geq(f.idx->n, 50, "%u sealed tables indexed", f.idx->n);
	cr_assert_leq(f.idx->n, 59);
	fixture_fini(&f);
}

Test(jit_writer, a_sealed_table_rewritten_empties_the_index)
{
	struct writer_fixture f;
	struct code_jit_unwind_table *second;
	struct code_jit_unwind_fre *fre;
	struct emu_unwind_rule r;

	fixture_init(&f, 8, 8);
	for (uint32_t i = 0; i < 12; i++)
		cr_assert_eq(add_function(&f.t, i), 0);
	cr_assert_eq(lookup(&f, 11 * FN_BYTES, &r), 0);
	cr_assert_eq(f.idx->n, 5, "sealed: tables 0-4 of 6");
	/* against the ABI: table 1's functions (2, 3) moved up by 2 bytes */
	second = (void *)(uintptr_t)f.t.head->next;
	fre = (void *)(second + 1);
	for (unsigned int i = 0; i < 7; i++)
		fre[i].ip_off += 2;
	cr_assert_eq(lookup(&f, 2 * FN_BYTES + 2, &r), 0);
	cr_assert_eq(r.cfa_off, 8, "push %%rbp of the moved function");
	cr_assert_eq(f.idx->n, 3, "rebuilt up to the table after the one searched");
	fixture_fini(&f);
}

/* 285 716 functions, 1 000 006 entries in 16 tables of 65536. */
Test(jit_writer, a_million_entries_across_chained_tables, .timeout = 60)
{
	const uint32_t fns = 285716, per_table = 65536;
	struct writer_fixture f;
	struct emu_unwind_rule r;

	fixture_init(&f, per_table, 16);
	for (uint32_t i = 0; i < fns; i++)
		cr_assert_eq(add_function(&f.t, i), 0, "fn %u", i);
	cr_assert_eq(f.t.area_used, f.area_len, "16 tables used");
	srand(6);
	for (int k = 0; k < 20000; k++)
		expect_rule(&f, (uint32_t)rand() % fns, (uint32_t)rand() % FN_BYTES);
	/*
	 * Walking to the last table: a header and a first entry per table, then
	 * its last entry, at most 16 search steps and the overlap check.
	 */
	cr_assert_eq(lookup(&f, (uint64_t)(fns - 3) * FN_BYTES + 5, &r), 0);
	cr_assert_leq(f.walk_reads, 16 * 2 + 1 + 16 + 1, "%lu reads", f.walk_reads);
	cr_assert_geq(f.walk_reads, 16 * 2 + 1, "%lu reads", f.walk_reads);
	/* the 15 sealed tables are indexed: the head, the last sealed one, the tail */
	cr_assert_eq(f.idx->n, 15);
	cr_assert_leq(f.cnt.reads, 3 * 2 + 1 + 16 + 1, "%lu reads", f.cnt.reads);
	/* a middle table: the head, the table, its last entry, the search */
	cr_assert_eq(lookup(&f, (uint64_t)(fns / 2) * FN_BYTES + 5, &r), 0);
	cr_assert_leq(f.cnt.reads, 2 * 2 + 1 + 16 + 1, "%lu reads", f.cnt.reads);
	cr_assert_geq(f.walk_reads, 8 * 2, "%lu reads", f.walk_reads);
	fixture_fini(&f);
}
