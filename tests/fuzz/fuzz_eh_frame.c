// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary bytes as an object's .eh_frame_hdr and
 * .eh_frame (struct fuzz_eh_frame, then the image at SEC), registered as
 * eh_frame_add_section() would with and without the full validation, then
 * looked up at the table's first functions and at addresses the input names,
 * and walked: every failure must come with a rule whose errno it is, and no
 * lookup may read outside what the accessor holds or run without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "fuzz_input.h"

#define SEC 0x500000ull
#define TEXT 0x400000ull
#define TEXT_END 0x500000ull

static void expect_rule(int err, const struct emu_verdict *v)
{
	if (err && err != -ENOENT && (err != -emu_rule_errno(v->rule) || !v->reason[0]))
		abort();
}

static void lookups(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		    const struct fuzz_eh_frame *in)
{
	const struct emu_arch_info *arch = emu_arch_get(EMU_ARCH_X86_64);
	struct emu_unwind_rule rule;
	struct emu_verdict v;

	for (unsigned int i = 0; i < FUZZ_EH_FRAME_IPS; i++) {
		uint64_t ip = TEXT + in->ip_off[i];

		emu_verdict_init(&v);
		expect_rule(emu_eh_frame_find(e, mem, arch, ip, &rule, &v), &v);
	}
}

static void walk(const struct emu_eh_frame *e, const struct emu_accessor *mem,
		 const struct fuzz_eh_frame *in)
{
	struct emu_registry *r = emu_registry_new(4);
	struct emu_registration *reg = calloc(1, sizeof(*reg));
	struct emu_regs regs = { .ip = TEXT + in->ip_off[0], .sp = SEC + in->ip_off[1] % 4096,
				 .fp = SEC + in->ip_off[2] % 4096 };
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 64,
				     .tables = EMU_TABLES_EH_FRAME, .profile = EMU_PROFILE_V16 };
	struct emu_frame frames[64];
	struct emu_unwind_result res;
	struct emu_verdict v;

	*reg = (struct emu_registration){ .text_start = TEXT, .text_end = TEXT_END,
					  .aspects = EMU_ASPECT_EH_FRAME, .eh_frame = *e };
	if (emu_registry_insert(r, reg, &v))
		abort();
	if (emu_unwind(r, mem, &regs, &o, frames, &res) || res.nframes > 64)
		abort();
	for (unsigned int i = 0; i < res.nremovals; i++)
		if (res.removals[i].eh_frame_hdr_start != e->hdr_start ||
		    emu_rule_errno(res.removals[i].rule) == EOPNOTSUPP)
			abort();
	emu_registry_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_eh_frame in;
	struct emu_mem_image img = { 0 };
	struct emu_mappings maps = { 0 };
	struct emu_accessor mem;
	struct emu_eh_frame e;
	struct emu_verdict v;
	size_t len;
	int err;

	if (size < sizeof(in))
		return 0;
	memcpy(&in, data, sizeof(in));
	data += sizeof(in);
	len = size - sizeof(in);
	if (!len || in.hdr_off >= len)
		return 0;
	emu_mem_image_add(&img, SEC, data, len);
	mem = emu_mem_image_accessor(&img);
	if (emu_mappings_add(&maps, TEXT, TEXT_END, EMU_PROT_EXEC) ||
	    emu_mappings_add(&maps, SEC, SEC + len, 0))
		abort();
	for (int validate = 0; validate < 2; validate++) {
		e = (struct emu_eh_frame){ .hdr_start = SEC + in.hdr_off, .hdr_end = SEC + len,
					   .text_start = TEXT, .text_end = TEXT_END };
		emu_verdict_init(&v);
		err = emu_eh_frame_add(&e, &mem, &maps, validate, &v);
		expect_rule(err, &v);
		if (err == -ENOENT)
			abort();	/* registration has no "not found" */
		if (!err) {
			lookups(&e, &mem, &in);
			walk(&e, &mem, &in);
		}
	}
	emu_mappings_free(&maps);
	return 0;
}
