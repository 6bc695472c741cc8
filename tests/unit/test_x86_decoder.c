// SPDX-License-Identifier: GPL-2.0
/*
 * capstone's x86-64 decoder loaded on first use
 * (supervisor/core/x86_decoder.c): not in the process before the first
 * decoder is made (codectl-run and these tests do not link it), then
 * decoding with details. Each test runs in a process of its own (Criterion's
 * default, which the first test needs: nothing loaded capstone before it).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>

#include "supervisor/core/x86_decoder.h"

static bool capstone_loaded(void)
{
	void *h = dlopen(x86_decoder_library(), RTLD_NOW | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h;
}

Test(x86_decoder, capstone_is_loaded_by_the_first_decoder_only)
{
	struct x86_decoder d;

	cr_assert_not(capstone_loaded());
	cr_assert_eq(x86_decoder_init(&d), 0);
	cr_assert(capstone_loaded());
	x86_decoder_fini(&d);
	cr_assert(capstone_loaded(), "kept loaded (RTLD_NODELETE): a later decoder finds it");
}

Test(x86_decoder, decodes_with_details)
{
	static const uint8_t code[] = { 0xe8, 0x0b, 0x00, 0x00, 0x00,	/* call 0x1010 */
					0xc3 };				/* ret */
	const uint8_t *p = code;
	size_t len = sizeof(code);
	uint64_t addr = 0x1000;
	struct x86_decoder d;

	cr_assert_eq(x86_decoder_init(&d), 0);
	cr_assert(x86_decoder_next(&d, &p, &len, &addr));
	cr_assert_eq(d.insn->id, X86_INS_CALL);
	cr_assert_eq(d.insn->size, 5);
	cr_assert(x86_decoder_in_group(&d, CS_GRP_CALL));
	cr_assert_eq(d.insn->detail->x86.operands[0].imm, 0x1010);
	cr_assert(p == code + 5 && len == 1 && addr == 0x1005);
	cr_assert(x86_decoder_next(&d, &p, &len, &addr));
	cr_assert(x86_decoder_in_group(&d, CS_GRP_RET));
	cr_assert_not(x86_decoder_in_group(&d, CS_GRP_CALL));
	cr_assert_not(x86_decoder_next(&d, &p, &len, &addr), "nothing left to decode");
	x86_decoder_fini(&d);
}
