// SPDX-License-Identifier: GPL-2.0
/* JIT unwind tables at unwind time: lookup through chained tables, and malformed tables. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fake_space.h"

#define JIT_TEXT FAKE_TEXT_A
#define STACK 0x7ff000000000ull

struct table {
	struct code_jit_unwind_table h;
	struct code_jit_unwind_fre fre[8];
};

static struct fake_space fs;
static struct table tabs[3];
static uint64_t stk[64];
static const struct emu_arch_info *x86;

static void setup(void)
{
	fake_space_init(&fs);
	memset(tabs, 0, sizeof(tabs));
	memset(stk, 0, sizeof(stk));
	emu_mem_image_add(&fs.img, 0x7e0000000000ull, tabs, sizeof(tabs));
	emu_mem_image_add(&fs.img, STACK, stk, sizeof(stk));
	x86 = emu_arch_get(EMU_ARCH_X86_64);
}

static void teardown(void)
{
	fake_space_fini(&fs);
}

TestSuite(jit, .init = setup, .fini = teardown);

static uint64_t tab_addr(int i)
{
	return 0x7e0000000000ull + (uint64_t)i * sizeof(struct table);
}

static void init_table(int t, unsigned int n)
{
	tabs[t].h = (struct code_jit_unwind_table){ .reserved_len = sizeof(tabs[t].fre),
						    .used_len = n * 24, .fre_stride = 24,
						    .fre_size = 21 };
}

static void set_fre(int t, int i, uint32_t off, uint32_t size, int32_t cfa, uint8_t info)
{
	tabs[t].fre[i] = (struct code_jit_unwind_fre){ .size = size, .ip_off = off,
						       .cfa_off = cfa, .ra_off = -8, .fp_off = -16,
						       .info = info };
}

static enum emu_jit_fault last_fault;

static int find(uint64_t ip, struct emu_unwind_rule *r)
{
	return emu_jit_find_rule(&fs.mem, x86, JIT_TEXT, tab_addr(0), ip, NULL, r, &last_fault);
}

/* find() must fail with -EINVAL for @why. */
static void assert_fault(uint64_t ip, enum emu_jit_fault why, const char *reason)
{
	struct emu_unwind_rule r;

	cr_assert_eq(find(ip, &r), -EINVAL, "%s", reason);
	cr_assert_eq(last_fault, why, "%s: got %s", reason, emu_jit_fault_reason(last_fault));
	cr_assert_str_eq(emu_jit_fault_reason(last_fault) + strlen("jit-table-invalid: "), reason);
}

/* Table 0: [0,16) SP+8, [16,48) FP+16 with FP saved, [64,80) outermost; table 1: [100,120). */
static void build_chain(void)
{
	init_table(0, 3);
	set_fre(0, 0, 0, 16, 8, 0);
	set_fre(0, 1, 16, 32, 16, CODE_JIT_FRE_CFA_BASE_FP | CODE_JIT_FRE_FP_SAVED);
	set_fre(0, 2, 64, 16, 0, CODE_JIT_FRE_OUTERMOST);
	tabs[0].h.next = tab_addr(1);
	init_table(1, 1);
	set_fre(1, 0, 100, 20, 24, CODE_JIT_FRE_RA_SAVED);
}

Test(jit, lookup_through_the_chain)
{
	struct emu_unwind_rule r;

	build_chain();
	cr_assert_eq(find(JIT_TEXT + 15, &r), 0);
	cr_assert_eq(r.cfa_base, EMU_CFA_SP);
	cr_assert_eq(r.cfa_off, 8);
	cr_assert_eq(r.ra.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.ra.off, -8);
	cr_assert_eq(r.fp.kind, EMU_LOC_SAME);
	cr_assert_eq(find(JIT_TEXT + 16, &r), 0);
	cr_assert_eq(r.cfa_base, EMU_CFA_FP);
	cr_assert_eq(r.fp.kind, EMU_LOC_CFA_DEREF);
	cr_assert_eq(r.fp.off, -16);
	cr_assert_eq(find(JIT_TEXT + 48, &r), -ENOENT, "gap");
	cr_assert_eq(find(JIT_TEXT + 70, &r), 0);
	cr_assert(r.outermost);
	cr_assert_eq(find(JIT_TEXT + 119, &r), 0);
	cr_assert_eq(r.cfa_off, 24);
	cr_assert_eq(r.ra.off, -8);
	cr_assert_eq(find(JIT_TEXT + 120, &r), -ENOENT, "past the last entry");
}

Test(jit, unpublished_entries_are_not_seen)
{
	struct emu_unwind_rule r;

	build_chain();
	tabs[0].h.used_len = 2 * 24;
	cr_assert_eq(find(JIT_TEXT + 70, &r), -ENOENT);
	tabs[0].h.used_len = 2 * 24 + 21;	/* the last entry's filled bytes count */
	cr_assert_eq(find(JIT_TEXT + 70, &r), 0);
}

Test(jit, malformed_tables_name_the_fault)
{
	build_chain();
	tabs[0].h.used_len = 1000;		/* beyond reserved_len */
	assert_fault(JIT_TEXT + 1, EMU_JIT_USED_LEN, "used-len-above-reserved-len");
	build_chain();
	tabs[1].h.used_len = 9 * 24;		/* the same mid-chain */
	assert_fault(JIT_TEXT + 110, EMU_JIT_USED_LEN, "used-len-above-reserved-len");
	build_chain();
	set_fre(0, 1, 8, 32, 16, 0);		/* starts inside entry 0 */
	assert_fault(JIT_TEXT + 1, EMU_JIT_OVERLAP, "overlap");
	build_chain();
	tabs[1].h.fre_stride = 28;		/* stride change mid-chain */
	tabs[1].h.reserved_len = 8 * 28;
	assert_fault(JIT_TEXT + 110, EMU_JIT_LAYOUT_CHANGED, "stride-or-size-changed");
	build_chain();
	tabs[1].h.fre_size = 22;		/* size change mid-chain */
	assert_fault(JIT_TEXT + 110, EMU_JIT_LAYOUT_CHANGED, "stride-or-size-changed");
	build_chain();
	tabs[1].h.fre_size = 20;
	assert_fault(JIT_TEXT + 110, EMU_JIT_FRE_SIZE, "fre-size-below-21");
	build_chain();
	tabs[1].h.fre_stride = 22;
	assert_fault(JIT_TEXT + 110, EMU_JIT_FRE_STRIDE, "bad-fre-stride");
	build_chain();
	tabs[0].h.next = tab_addr(0) + 4;	/* misaligned next table */
	assert_fault(JIT_TEXT + 110, EMU_JIT_HEADER_MISALIGNED, "header-misaligned");
	build_chain();
	tabs[0].h.next = 0x7d0000000000ull;	/* unmapped next table */
	assert_fault(JIT_TEXT + 110, EMU_JIT_HEADER_UNREADABLE, "header-unreadable");
	build_chain();
	set_fre(1, 0, 10, 20, 24, 0);		/* second table below the first's last */
	assert_fault(JIT_TEXT + 5, EMU_JIT_UNSORTED, "unsorted");
	build_chain();
	set_fre(1, 0, 0, 20, 24, 0);		/* second table not above the first's first */
	assert_fault(JIT_TEXT + 110, EMU_JIT_UNSORTED, "unsorted");
	build_chain();
	set_fre(1, 0, 70, 20, 24, 0);		/* second table starts inside the first's last */
	assert_fault(JIT_TEXT + 65, EMU_JIT_OVERLAP, "overlap");
	build_chain();
	set_fre(0, 2, 10, 16, 0, 0);		/* last entry below the first */
	assert_fault(JIT_TEXT + 1, EMU_JIT_UNSORTED, "unsorted");
}

Test(jit, entries_past_the_table_are_unreadable)
{
	struct emu_unwind_rule r;

	build_chain();
	tabs[2].h = (struct code_jit_unwind_table){ .reserved_len = 1u << 20, .used_len = 1u << 20,
						    .fre_stride = 24, .fre_size = 21 };
	set_fre(2, 0, 200, 8, 8, 0);
	tabs[1].h.next = tab_addr(2);		/* claims 1 MiB of entries past the image */
	cr_assert_eq(find(JIT_TEXT + 110, &r), 0, "found before the bad table is read");
	assert_fault(JIT_TEXT + 300, EMU_JIT_ENTRY_UNREADABLE, "entry-unreadable");
}

Test(jit, looping_chains_end_the_lookup)
{
	build_chain();
	tabs[1].h.next = tab_addr(1);		/* a table pointing at itself: its */
	set_fre(1, 0, 200, 20, 24, 0);		/* entries come round again, lower */
	assert_fault(JIT_TEXT + 300, EMU_JIT_UNSORTED, "unsorted");
	build_chain();
	init_table(1, 0);			/* empty tables: no order check helps */
	init_table(2, 0);
	tabs[1].h.next = tab_addr(2);
	tabs[2].h.next = tab_addr(1);
	assert_fault(JIT_TEXT + 300, EMU_JIT_CHAIN_LOOP, "chain-loop");
	build_chain();
	tabs[1].h.next = tab_addr(0);		/* back to the head */
	assert_fault(JIT_TEXT + 300, EMU_JIT_CHAIN_LOOP, "chain-loop");
}

Test(jit, the_sealed_table_index_keeps_the_checks)
{
	struct emu_jit_index *idx = emu_jit_index_new();
	struct emu_unwind_rule r;

	build_chain();
	init_table(1, 0);			/* after the sealed head: empty tables in a loop */
	init_table(2, 0);
	tabs[1].h.next = tab_addr(2);
	tabs[2].h.next = tab_addr(1);
	for (int i = 0; i < 2; i++) {		/* the second lookup starts from the index */
		cr_assert_eq(emu_jit_find_rule(&fs.mem, x86, JIT_TEXT, tab_addr(0), JIT_TEXT + 300,
					       idx, &r, &last_fault), -EINVAL);
		cr_assert_eq(last_fault, EMU_JIT_CHAIN_LOOP, "lookup %d", i);
		cr_assert_eq(idx->n, 1, "the head is sealed");
	}
	build_chain();
	cr_assert_eq(emu_jit_find_rule(&fs.mem, x86, JIT_TEXT, tab_addr(0), JIT_TEXT + 15, idx, &r,
				       &last_fault), 0, "no false loop from the head found twice");
	cr_assert_eq(r.cfa_off, 8);
	tabs[1].h.used_len = 1000;		/* the tail breaks: found through the index */
	assert_fault(JIT_TEXT + 110, EMU_JIT_USED_LEN, "used-len-above-reserved-len");
	cr_assert_eq(emu_jit_find_rule(&fs.mem, x86, JIT_TEXT, tab_addr(0), JIT_TEXT + 110, idx, &r,
				       &last_fault), -EINVAL);
	cr_assert_eq(last_fault, EMU_JIT_USED_LEN);
	emu_jit_index_free(idx);
}

Test(jit, chains_longer_than_the_bound_end_the_lookup)
{
	size_t n = EMU_JIT_MAX_TABLES + 1;
	struct code_jit_unwind_table *chain = calloc(n, sizeof(*chain));
	uint64_t base = 0x7c0000000000ull;
	struct emu_unwind_rule r;

	cr_assert_not_null(chain);
	for (size_t i = 0; i < n; i++)
		chain[i] = (struct code_jit_unwind_table){
			.fre_stride = 24, .fre_size = 21,
			.next = i + 1 < n ? base + (i + 1) * sizeof(*chain) : 0 };
	cr_assert_eq(emu_mem_image_add(&fs.img, base, chain, n * sizeof(*chain)), 0);
	cr_assert_eq(emu_jit_find_rule(&fs.mem, x86, JIT_TEXT, base + sizeof(*chain), JIT_TEXT,
				       NULL, &r, &last_fault), -ENOENT, "EMU_JIT_MAX_TABLES tables are fine");
	cr_assert_eq(emu_jit_find_rule(&fs.mem, x86, JIT_TEXT, base, JIT_TEXT, NULL, &r, &last_fault),
		     -EINVAL);
	cr_assert_eq(last_fault, EMU_JIT_CHAIN_TOO_LONG);
	free(chain);
}

Test(jit, an_entry_published_before_it_is_written_is_caught)
{
	build_chain();
	tabs[0].h.used_len = 4 * 24;		/* entry 3 is still zero: ip_off 0 */
	assert_fault(JIT_TEXT + 70, EMU_JIT_UNSORTED, "unsorted");
}

Test(jit, unsorted_entries_detected_by_the_search)
{
	init_table(0, 5);
	set_fre(0, 0, 0, 8, 8, 0);
	set_fre(0, 1, 100, 8, 8, 0);	/* out of order */
	set_fre(0, 2, 16, 8, 8, 0);
	set_fre(0, 3, 24, 8, 8, 0);
	set_fre(0, 4, 32, 8, 8, 0);
	/* the binary search checks what it reads, as the kernel's FDE search does */
	assert_fault(JIT_TEXT + 5, EMU_JIT_UNSORTED, "unsorted");
}

Test(jit, walk_tags_jit_frames)
{
	struct code_jit_info j = { .text_start = JIT_TEXT, .text_end = JIT_TEXT + 0x1000,
				   .unwind_head = tab_addr(0) };
	struct emu_regs regs = { .ip = JIT_TEXT + 4, .sp = STACK, .fp = 0 };
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 8 };
	struct emu_frame frames[8];
	struct emu_unwind_result res;

	build_chain();
	cr_assert_eq(fake_call(&fs, CODE_REGISTER_JIT, fake_put(&fs, &j, sizeof(j)), sizeof(j), 0), 0,
		     "%s", fs.res.verdict.reason);
	stk[0] = JIT_TEXT + 70;		/* frame 0 at [0,16): CFA = SP + 8, RA at SP */
	cr_assert_eq(emu_unwind(fs.registry, &fs.mem, &regs, &o, frames, &res), 0);
	cr_assert_eq(res.nframes, 2);
	cr_assert_eq(frames[1].ip, JIT_TEXT + 70);
	cr_assert_eq(frames[1].source, EMU_SRC_JIT);
	cr_assert_eq(res.stop, EMU_STOP_OUTERMOST);
	tabs[0].h.used_len = 1000;
	cr_assert_eq(emu_unwind(fs.registry, &fs.mem, &regs, &o, frames, &res), 0);
	cr_assert_eq(res.nframes, 1);
	cr_assert_eq(res.stop, EMU_STOP_JIT_INVALID);
	cr_assert_eq(res.stop_source, EMU_SRC_JIT);
	cr_assert_str_eq(emu_stop_reason(&res), "jit-table-invalid: used-len-above-reserved-len");
	tabs[0].h.used_len = 3 * 24;
	cr_assert_eq(emu_unwind(fs.registry, &fs.mem, &regs, &o, frames, &res), 0);
	cr_assert_str_eq(emu_stop_reason(&res), "outermost");
}
