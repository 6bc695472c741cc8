// SPDX-License-Identifier: GPL-2.0
/*
 * The frame-plausibility oracle (supervisor/oracle/plausible.c) on code
 * written here into a fake tracee: not code, not after a call, a call to
 * another function, direct and tail calls, PLT stubs, indirect calls and
 * jumps, signal frames, the vDSO.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "fake_space.h"
#include "supervisor/oracle/plausible.h"

/* Functions of text A: f (the caller), g, h, t (tail-calls h), u (indirect jump). */
#define F (FAKE_TEXT_A + 0x100)
#define G (FAKE_TEXT_A + 0x200)
#define H (FAKE_TEXT_A + 0x300)
#define T (FAKE_TEXT_A + 0x400)
#define U (FAKE_TEXT_A + 0x500)
#define PLT (FAKE_TEXT_A + 0x600)	/* no function: a PLT stub */
#define H2 (FAKE_TEXT_B + 0x100)	/* another object's definition of h */
#define GOT (FAKE_DATA + 0x100)

static const struct { uint64_t start, end; } functions[] = {
	{ F, F + 0x100 }, { G, G + 0x100 }, { H, H + 0x100 }, { T, T + 0x100 }, { U, U + 0x100 },
	{ H2, H2 + 0x100 },
};
static const char *const names[] = { "f", "g", "h", "t", "u", "h" };

static int function_of(void *ctx, uint64_t addr, uint64_t *start, uint64_t *end)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++) {
		if (addr >= functions[i].start && addr < functions[i].end) {
			*start = functions[i].start;
			*end = functions[i].end;
			return 0;
		}
	}
	return -ENOENT;
}

static const char *name_of(void *ctx, uint64_t addr)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)
		if (addr == functions[i].start)
			return names[i];
	return NULL;
}

static struct fake_space fs;
static struct plausibility *pl;
static struct plausible_env env;

static void put(uint64_t addr, const void *code, size_t len)
{
	memcpy(fs.text + (addr - FAKE_TEXT_A), code, len);
}

/* "call @to" at @at (5 bytes, e8 rel32); returns the return address. */
static uint64_t call_at(uint64_t at, uint64_t to)
{
	uint8_t c[5] = { 0xe8 };
	int32_t rel = (int32_t)(to - (at + 5));

	memcpy(c + 1, &rel, 4);
	put(at, c, 5);
	return at + 5;
}

static void jmp_at(uint64_t at, uint64_t to)
{
	uint8_t c[5] = { 0xe9 };
	int32_t rel = (int32_t)(to - (at + 5));

	memcpy(c + 1, &rel, 4);
	put(at, c, 5);
}

static void setup(void)
{
	fake_space_init(&fs);
	memset(fs.text, 0x90, FAKE_TEXT_END - FAKE_TEXT_A);	/* nops */
	pl = plausibility_new();
	cr_assert(pl);
	env = (struct plausible_env){ .maps = &fs.maps, .registry = fs.registry, .mem = &fs.mem,
				      .function = function_of, .name = name_of };
	put(G, "\xc3", 1);		/* g: ret */
	put(H, "\xc3", 1);		/* h: ret */
	put(U, "\xff\xe0", 2);		/* u: jmp *%rax */
}

static void teardown(void)
{
	plausibility_free(pl);
	fake_space_fini(&fs);
}

TestSuite(plausible, .init = setup, .fini = teardown);

/* The verdict on frame 1 (@ra) whose callee, frame 0, is at @callee. */
static enum plausible verdict(uint64_t callee, uint64_t ra, uint8_t ra_flags)
{
	const uint64_t ips[2] = { callee, ra };
	const uint8_t flags[2] = { EMU_FRAME_EXACT, ra_flags };
	uint8_t out[2];

	plausibility_judge(pl, &env, ips, flags, 2, out);
	cr_assert_eq(out[0], PLAUSIBLE_YES);
	return out[1];
}

Test(plausible, direct_call_to_the_callee)
{
	cr_assert_eq(verdict(G + 0x10, call_at(F + 0x10, G), 0), PLAUSIBLE_YES);
}

Test(plausible, not_code)
{
	cr_assert_eq(verdict(G + 0x10, 0x1, 0), PLAUSIBLE_NOT_CODE);
	cr_assert_eq(verdict(G + 0x10, 0x3e8, 0), PLAUSIBLE_NOT_CODE);
	cr_assert_eq(verdict(G + 0x10, FAKE_DATA + 0x40, 0), PLAUSIBLE_NOT_CODE, "data");
	cr_assert_eq(verdict(G + 0x10, FAKE_RW_NOEXEC + 8, EMU_FRAME_EXACT), PLAUSIBLE_NOT_CODE);
}

Test(plausible, not_after_a_call)
{
	call_at(F + 0x10, G);
	cr_assert_eq(verdict(G + 0x10, F + 0x17, 0), PLAUSIBLE_NOT_AFTER_CALL, "nops before");
	cr_assert_eq(verdict(G + 0x10, F + 0x12, 0), PLAUSIBLE_NOT_AFTER_CALL, "mid-call");
}

Test(plausible, call_to_another_function)
{
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x10, G), 0), PLAUSIBLE_CALL_TARGET_MISMATCH);
}

Test(plausible, tail_call_path)
{
	jmp_at(T, H);
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x10, T), 0), PLAUSIBLE_YES);
	cr_assert_eq(verdict(G + 0x10, call_at(F + 0x20, T), 0), PLAUSIBLE_CALL_TARGET_MISMATCH);
}

Test(plausible, indirect_call_or_jump_is_unknown)
{
	put(F + 0x30, "\xff\xd0", 2);	/* call *%rax */
	cr_assert_eq(verdict(H + 0x10, F + 0x32, 0), PLAUSIBLE_UNKNOWN);
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x40, U), 0), PLAUSIBLE_UNKNOWN);
}

/* endbr64; bnd jmp *GOT(%rip): the GOT slot says where the stub goes. */
Test(plausible, plt_stub_through_its_got_slot)
{
	uint8_t stub[11] = { 0xf3, 0x0f, 0x1e, 0xfa, 0xf2, 0xff, 0x25 };
	int32_t disp = (int32_t)(GOT - (PLT + 11));
	uint64_t h = H, g = G;

	memcpy(stub + 7, &disp, 4);
	put(PLT, stub, sizeof(stub));
	memcpy(fs.data + (GOT - FAKE_DATA), &h, 8);
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x10, PLT), 0), PLAUSIBLE_YES);
	cr_assert_eq(verdict(PLT + 4, F + 0x15, 0), PLAUSIBLE_YES, "stopped in the stub");
	memcpy(fs.data + (GOT - FAKE_DATA), &g, 8);
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x20, PLT), 0),
		     PLAUSIBLE_CALL_TARGET_MISMATCH);
}

/*
 * The slot now bound to another object's definition of the callee's symbol
 * (interposed after the call was made, as libc's _dl_catch_exception is in
 * ld.so's PLT): the call is plausible; a definition of another symbol is not.
 */
Test(plausible, plt_slot_rebound_to_an_interposing_definition)
{
	uint8_t stub[6] = { 0xff, 0x25 };
	int32_t disp = (int32_t)(GOT - (PLT + 6));
	uint64_t h2 = H2, g = G;

	memcpy(stub + 2, &disp, 4);
	put(PLT, stub, sizeof(stub));
	put(H2, "\xc3", 1);
	memcpy(fs.data + (GOT - FAKE_DATA), &h2, 8);
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x10, PLT), 0), PLAUSIBLE_YES);
	memcpy(fs.data + (GOT - FAKE_DATA), &g, 8);
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x20, PLT), 0),
		     PLAUSIBLE_CALL_TARGET_MISMATCH);
	env.name = NULL;
	memcpy(fs.data + (GOT - FAKE_DATA), &h2, 8);
	cr_assert_eq(verdict(H + 0x10, call_at(F + 0x30, PLT), 0),
		     PLAUSIBLE_CALL_TARGET_MISMATCH, "no names: H2 does not reach H");
}

/* An interrupted frame and a trampoline are not after a call: code is enough. */
Test(plausible, signal_frames_need_only_code)
{
	cr_assert_eq(verdict(G + 0x10, F + 0x17, EMU_FRAME_EXACT), PLAUSIBLE_YES);
	cr_assert_eq(verdict(G + 0x10, F + 0x17, EMU_FRAME_TRAMPOLINE | EMU_FRAME_EXACT),
		     PLAUSIBLE_YES);
}

/* A caller's callee is its RA - 1: a noreturn call at the end of a function still counts. */
Test(plausible, callee_of_a_return_address_is_its_call)
{
	const uint64_t ips[3] = { H + 0x10, call_at(G + 0xfb, H), call_at(F + 0x10, G) };
	uint8_t out[3];

	plausibility_judge(pl, &env, ips, NULL, 3, out);
	cr_assert_eq(out[1], PLAUSIBLE_YES);
	cr_assert_eq(out[2], PLAUSIBLE_YES, "G + 0x100 - 1 is in g");
}

Test(plausible, vdso_is_code)
{
	static uint8_t vdso[4096];
	struct emu_mappings maps = { 0 };

	memcpy(vdso + 0x10, "\xe8\x00\x00\x00\x00", 5);
	emu_mem_image_add(&fs.img, 0x7fff00000000ull, vdso, sizeof(vdso));
	cr_assert_eq(emu_mappings_add(&maps, 0x7fff00000000ull, 0x7fff00001000ull,
				      EMU_PROT_READ | EMU_VMA_VDSO), 0);
	env.maps = &maps;
	cr_assert_eq(verdict(0x7fff00000900ull, 0x7fff00000015ull, 0), PLAUSIBLE_UNKNOWN,
		     "code, after a call, to no known function");
	emu_mappings_free(&maps);
}

Test(plausible, verdicts_on_file_code_are_cached)
{
	unsigned long hits, total;

	cr_assert_eq(verdict(G + 0x10, call_at(F + 0x10, G), 0), PLAUSIBLE_YES);
	cr_assert_eq(verdict(G + 0x10, F + 0x15, 0), PLAUSIBLE_YES);
	plausibility_counts(pl, &hits, &total);
	cr_assert_eq(total, 2);
	cr_assert_eq(hits, 0, "fake mappings have no file identity: never cached");
}
