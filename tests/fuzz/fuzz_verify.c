// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the verifier on arbitrary bytes, two ways (the first
 * byte says which):
 *
 *	0: "code length (2 bytes), code, SFrame section": the code at 0x400000,
 *	   the section at 0x500000 (read as data too: jump tables, GOT slots);
 *	   a section emu accepts is checked, with a symbol per FDE (one of
 *	   them a byte longer) and a fake .eh_frame, so every part runs;
 *	1: the rest is an ELF file, checked as sframe-verify checks one, and
 *	   reported as JSON.
 *
 * Every input must give findings or a clean error, in bounded time and
 * memory; never a crash.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "emu/emu.h"
#include "supervisor/verify/elf_file.h"
#include "supervisor/verify/report.h"

#define TEXT 0x400000ull
#define SEC 0x500000ull
#define MAX_SYMS 64

static int fake_dwarf(void *ctx, uint64_t addr, struct emu_unwind_rule *out)
{
	(void)ctx;
	if (addr & 0x10)
		return -ENOENT;
	*out = (struct emu_unwind_rule){ .cfa_base = EMU_CFA_SP, .cfa_off = 8,
					 .ra = { .kind = EMU_LOC_CFA_DEREF, .off = -8 },
					 .outermost = (addr & 0x3f) == 0x3f };
	return 0;
}

/* A symbol per FDE (the odd ones a byte longer than it), and one where none is. */
static void symbols(const struct emu_sframe_section *s, struct verify_sym *sym, size_t *n)
{
	struct emu_sframe_fde fde;

	*n = 0;
	for (uint32_t i = 0; i < emu_sframe_header(s)->num_fdes && *n < MAX_SYMS - 1; i++)
		if (!emu_sframe_fde_at(s, i, &fde))
			sym[(*n)++] = (struct verify_sym){ .start = fde.func_start,
							   .size = fde.func_size + (i & 1),
							   .name = i & 2 ? "abort" : "f" };
	sym[(*n)++] = (struct verify_sym){ .start = TEXT + 0x7000, .size = 64, .name = "g" };
}

static void check(const struct emu_sframe_section *s, const uint8_t *code, size_t clen,
		  const uint8_t *sec, size_t slen)
{
	struct verify_sym sym[MAX_SYMS];
	struct verify_section sections[1] = { { TEXT, TEXT + 0x10000, ".text" } };
	struct verify_symbols syms = { .sym = sym, .sec = sections, .nsec = 1 };
	struct emu_mem_image img = { 0 };
	struct emu_mappings text = { 0 };
	struct verify_result r = { 0 };
	struct emu_accessor mem;
	struct verify_target t;

	symbols(s, sym, &syms.nsym);
	verify_symbols_sort(&syms);
	emu_mem_image_add(&img, TEXT, code, clen);
	emu_mem_image_add(&img, SEC, sec, slen);
	mem = emu_mem_image_accessor(&img);
	emu_mappings_add(&text, TEXT, TEXT + 0x10000, EMU_PROT_EXEC);
	t = (struct verify_target){ .sframe = s, .mem = &mem, .text = &text, .syms = &syms,
				    .dwarf = fake_dwarf };
	if (verify_run(&t, &r) && r.n > r.cap)
		abort();
	verify_result_free(&r);
	emu_mappings_free(&text);
}

static void in_memory(const uint8_t *data, size_t size)
{
	struct emu_sframe_params p = { .sframe_addr = SEC, .text_start = TEXT,
				       .text_end = TEXT + 0x10000, .arch = EMU_ARCH_X86_64 };
	struct emu_sframe_section *s = NULL;
	struct emu_verdict v;
	size_t clen;
	uint8_t *copy;

	if (size < 2)
		return;
	clen = (size_t)(data[0] | data[1] << 8);
	if (clen > size - 2)
		clen = size - 2;
	copy = malloc(size - 2 - clen + 1);
	memcpy(copy, data + 2 + clen, size - 2 - clen);
	emu_verdict_init(&v);
	if (emu_sframe_load(copy, size - 2 - clen, &p, &s, &v))
		return;
	check(s, data + 2, clen, data + 2 + clen, size - 2 - clen);
	emu_sframe_put(s);
}

static void elf_file(const uint8_t *data, size_t size)
{
	struct verify_object_info info = { .name = "fuzz" };
	struct emu_sframe_section *s = NULL;
	struct verify_result r = { 0 };
	struct verify_target t;
	struct verify_elf e;
	char err[256];

	if (verify_elf_open_mem(data, size, &e, err, sizeof(err)))
		return;
	if (!verify_elf_sframe(&e, &s, err, sizeof(err))) {
		t = verify_elf_target(&e, s);
		verify_run(&t, &r);
		json_decref(verify_result_json(&info, &r));
		verify_result_free(&r);
		emu_sframe_put(s);
	}
	verify_elf_close(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		elf_file(data + 1, size - 1);
	else
		in_memory(data + 1, size - 1);
	return 0;
}
