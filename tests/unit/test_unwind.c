// SPDX-License-Identifier: GPL-2.0
/*
 * The frame walker on hand-built stacks: SFrame steps, frame-pointer fallback,
 * RA - 1 caller lookup (and RA in the strict profile), every stop reason.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fake_space.h"
#include "emu/sframe_internal.h"
#include "sframe_samples.h"

#define STACK 0x7ff000000000ull
#define STACK_WORDS 512

static struct fake_space fs;
static uint64_t stk[STACK_WORDS];
static struct emu_frame frames[EMU_UNWIND_DEFAULT_MAX_FRAMES];
static struct emu_unwind_result res;
static struct emu_unwind_opts opts = { .arch = EMU_ARCH_X86_64,
				       .max_frames = EMU_UNWIND_DEFAULT_MAX_FRAMES };

static void setup(void)
{
	fake_space_init(&fs);
	memset(stk, 0, sizeof(stk));
	emu_mem_image_add(&fs.img, STACK, stk, sizeof(stk));
	opts.max_frames = EMU_UNWIND_DEFAULT_MAX_FRAMES;
	opts.lookup_ra = false;
	opts.signal_frames = false;
}

static void teardown(void)
{
	fake_space_fini(&fs);
}

TestSuite(unwind, .init = setup, .fini = teardown);

static uint64_t slot(unsigned int i)
{
	return STACK + 8ull * i;
}

static void register_fdes(uint8_t version, const struct sfw_fde *fdes, unsigned int n,
			  uint64_t text, uint64_t text_len)
{
	struct sfw_section s = sfw_amd64(version, version != 1, fake_next_addr(&fs));
	struct sfw_layout lay;
	uint8_t buf[2048];
	size_t len;

	s.fdes = fdes;
	s.nfdes = n;
	len = sfw_write(&s, buf, sizeof(buf), &lay);
	cr_assert_eq(fake_register_sframe(&fs, buf, len, text, text + text_len), 0, "%s",
		     fs.res.verdict.reason);
}

static void walk(uint64_t ip, uint64_t sp, uint64_t fp)
{
	struct emu_regs regs = { .ip = ip, .sp = sp, .fp = fp };

	cr_assert_eq(emu_unwind(fs.registry, &fs.mem, &regs, &opts, frames, &res), 0);
}

static void expect_frames(const uint64_t *ips, const uint8_t *src, unsigned int n)
{
	cr_assert_eq(res.nframes, n, "%u frames, want %u (stop %s)", res.nframes, n,
		     emu_stop_name(res.stop));
	for (unsigned int i = 0; i < n; i++) {
		cr_assert_eq(frames[i].ip, ips[i], "frame %u ip 0x%llx want 0x%llx", i,
			     (unsigned long long)frames[i].ip, (unsigned long long)ips[i]);
		cr_assert_eq(frames[i].source, src[i], "frame %u source %s want %s", i,
			     emu_source_name(frames[i].source), emu_source_name(src[i]));
	}
}

/*
 * f0..f3: 64-byte frame-pointer functions at FAKE_TEXT_A + 64 * k; "start" at
 * +0x200 has an outermost FRE. Frame k's CFA is slot(16 * (k + 1)), its saved
 * FP at CFA - 16 and RA at CFA - 8; each RA points 10 bytes into the caller.
 */
static const struct sfw_fre outer_fre[1] = { { .start = 0, .count = 0 } };

static void build_fp_chain(uint8_t version)
{
	struct sfw_fde fdes[5];

	sample_functions(fdes, 4, FAKE_TEXT_A, 64);
	fdes[4] = (struct sfw_fde){ .func_start = FAKE_TEXT_A + 0x200, .func_size = 32,
				    .nfres = 1, .fres = outer_fre };
	register_fdes(version, fdes, version == 1 ? 4 : 5, FAKE_TEXT_A, 0x400);
	for (unsigned int k = 0; k < 4; k++) {
		uint64_t cfa = slot(16 * (k + 1));
		uint64_t caller = k < 3 ? FAKE_TEXT_A + 64 * (k + 1) + 10 : FAKE_TEXT_A + 0x210;

		stk[16 * (k + 1) - 1] = caller;		/* RA */
		stk[16 * (k + 1) - 2] = slot(16 * (k + 2) - 2);	/* caller's FP */
		(void)cfa;
	}
}

Test(unwind, sframe_chain_to_outermost)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 20, FAKE_TEXT_A + 74, FAKE_TEXT_A + 138,
				 FAKE_TEXT_A + 202, FAKE_TEXT_A + 0x210 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SFRAME, EMU_SRC_SFRAME, EMU_SRC_SFRAME,
				EMU_SRC_SFRAME };

	build_fp_chain(3);
	walk(FAKE_TEXT_A + 20, slot(4), slot(14));
	expect_frames(ips, src, 5);
	cr_assert_eq(res.stop, EMU_STOP_OUTERMOST);
	cr_assert_eq(res.stop_source, EMU_SRC_SFRAME);
	cr_assert_not(res.corrupt);
}

Test(unwind, first_frame_in_prologue_uses_sp)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 0, FAKE_TEXT_A + 74 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SFRAME };

	build_fp_chain(2);
	/* at f0's first instruction: CFA = SP + 8, RA at SP */
	stk[30] = FAKE_TEXT_A + 74;
	opts.max_frames = 2;
	walk(FAKE_TEXT_A, slot(30), 0xdead);
	expect_frames(ips, src, 2);
	cr_assert_eq(res.stop, EMU_STOP_MAX_FRAMES);
}

Test(unwind, frame_pointer_fallback_without_registration)
{
	const uint64_t ips[] = { 0x900000, 0x900100, 0x900200 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_FP, EMU_SRC_FP };

	stk[11] = 0x900100;	/* frame at FP = slot(10) */
	stk[10] = slot(20);
	stk[21] = 0x900200;
	stk[20] = 0;		/* end of the FP chain */
	walk(0x900000, slot(2), slot(10));
	expect_frames(ips, src, 3);
	cr_assert_eq(res.stop, EMU_STOP_FP_BELOW_SP);
	cr_assert_eq(res.stop_source, EMU_SRC_FP);
}

Test(unwind, frame_pointer_step_off_the_threads_stack_stops)
{
	const uint64_t ips[] = { 0x900000, 0x900100 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_FP };

	stk[11] = 0x900100;	/* frame at FP = slot(10), on the stack */
	stk[10] = slot(20);	/* the next FP: past the thread's stack below */
	stk[21] = 0x900200;
	stk[20] = 0;
	opts.stack_lo = slot(0);
	opts.stack_hi = slot(16);	/* the thread's stack ends below slot(20) */
	walk(0x900000, slot(2), slot(10));
	expect_frames(ips, src, 2);
	cr_assert_eq(res.stop, EMU_STOP_LEFT_STACK);
	cr_assert_eq(res.stop_source, EMU_SRC_FP);
	cr_assert_str_eq(emu_stop_name(res.stop), "left-stack");
	/* an SFrame step is not bounded (a signal frame may lead to another stack) */
	build_fp_chain(3);
	opts.stack_hi = slot(8);
	walk(FAKE_TEXT_A + 20, slot(4), slot(14));
	cr_assert_eq(res.nframes, 5);
	cr_assert_eq(res.stop, EMU_STOP_OUTERMOST);
}

Test(unwind, failed_sframe_step_does_not_fall_back)
{
	build_fp_chain(2);
	/* FP-based CFA with a misaligned FP */
	walk(FAKE_TEXT_A + 20, slot(4), slot(14) + 4);
	cr_assert_eq(res.nframes, 1);
	cr_assert_eq(res.stop, EMU_STOP_CFA_MISALIGNED);
	cr_assert_eq(res.stop_source, EMU_SRC_SFRAME);
	/* the rule of the failed step, for the report */
	cr_assert_eq(res.rule.cfa_base, EMU_CFA_FP);
	cr_assert_eq(res.rule.cfa_off, 16);
}

Test(unwind, cfa_must_move_up)
{
	build_fp_chain(2);
	walk(FAKE_TEXT_A + 20, slot(40), slot(14));	/* FP below SP */
	cr_assert_eq(res.stop, EMU_STOP_FP_BELOW_SP);
	walk(FAKE_TEXT_A + 2, slot(40), 0);		/* CFA = SP + 16: RA in slot 41 is 0 */
	cr_assert_eq(res.nframes, 1);
	cr_assert_eq(res.stop, EMU_STOP_RA_ZERO);
}

Test(unwind, cfa_not_above_sp)
{
	static const struct sfw_fre down = { .start = 0, .sp_base = true, .count = 1,
					     .words = { -16 } };
	struct sfw_fde fde = { .func_start = FAKE_TEXT_A, .func_size = 16, .nfres = 1,
			       .fres = &down };

	register_fdes(2, &fde, 1, FAKE_TEXT_A, 0x100);
	walk(FAKE_TEXT_A + 4, slot(20), 0);
	cr_assert_eq(res.nframes, 1);
	cr_assert_eq(res.stop, EMU_STOP_CFA_NOT_ABOVE_SP);
}

/*
 * A header putting the RA at CFA - 16 in a frame whose CFA is SP + 8: the
 * RA is read from below SP, where none lives. The walk steps on, as the
 * kernel's would, and marks the frame; a right rule's frame is not marked.
 */
Test(unwind, an_ra_read_below_sp_marks_the_frame)
{
	static const struct sfw_fre at_entry = { .start = 0, .sp_base = true, .count = 1,
						 .words = { 8 } };
	struct sfw_fde fde = { .func_start = FAKE_TEXT_A, .func_size = 16, .nfres = 1,
			       .fres = &at_entry };
	struct sfw_section sec = sfw_amd64(2, true, fake_next_addr(&fs));
	uint8_t buf[512];
	struct sfw_layout lay;
	size_t len;

	sec.fixed_ra = -16;
	sec.fdes = &fde;
	sec.nfdes = 1;
	len = sfw_write(&sec, buf, sizeof(buf), &lay);
	cr_assert_eq(fake_register_sframe(&fs, buf, len, FAKE_TEXT_A, FAKE_TEXT_A + 0x100), 0);
	stk[19] = FAKE_TEXT_B + 1;	/* below SP: read, whatever it is */
	stk[20] = FAKE_TEXT_A + 0x40;	/* the true RA, at SP */
	opts.max_frames = 2;
	walk(FAKE_TEXT_A + 4, slot(20), 0);
	cr_assert_eq(res.nframes, 2);
	cr_assert_eq(frames[1].ip, FAKE_TEXT_B + 1);
	cr_assert_eq(frames[1].flags, EMU_FRAME_RA_BELOW_SP);
	cr_assert_eq(frames[0].flags, EMU_FRAME_EXACT);
}

Test(unwind, read_fault_stops)
{
	build_fp_chain(2);
	walk(FAKE_TEXT_A + 2, slot(STACK_WORDS - 1), 0);	/* RA beyond the stack */
	cr_assert_eq(res.nframes, 1);
	cr_assert_eq(res.stop, EMU_STOP_READ_FAULT);
}

/*
 * g calls a noreturn function as its last instruction: its return address is
 * the first byte of h, whose rule differs. RA - 1 finds g's rule; the strict
 * profile's RA lookup takes h's, and the stack changes.
 */
static const struct sfw_fre g_fres[1] = { { .start = 0, .sp_base = true, .count = 1,
					    .words = { 32 } } };
static const struct sfw_fre h_fres[1] = { { .start = 0, .sp_base = true, .count = 1,
					    .words = { 8 } } };

static void build_noreturn_case(void)
{
	struct sfw_fde fdes[3];

	sample_functions(fdes, 1, FAKE_TEXT_A, 64);	/* f: frame-pointer function */
	fdes[1] = (struct sfw_fde){ .func_start = FAKE_TEXT_A + 64, .func_size = 16, .nfres = 1,
				    .fres = g_fres };
	fdes[2] = (struct sfw_fde){ .func_start = FAKE_TEXT_A + 80, .func_size = 16, .nfres = 1,
				    .fres = h_fres };
	register_fdes(2, fdes, 3, FAKE_TEXT_A, 0x100);
	/* f (FP = slot(10)) returns into g's end; g's frame is 32 bytes of stack */
	stk[11] = FAKE_TEXT_A + 80;
	stk[10] = slot(30);
	stk[15] = 0x999999;		/* g's RA at CFA(slot 16) - 8 */
	stk[12] = 0x777777;		/* h's "RA" at CFA(slot 13) - 8 */
}

Test(unwind, caller_lookup_uses_ra_minus_one)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 20, FAKE_TEXT_A + 80, 0x999999 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SFRAME, EMU_SRC_SFRAME };

	build_noreturn_case();
	opts.max_frames = 3;
	walk(FAKE_TEXT_A + 20, slot(2), slot(10));
	expect_frames(ips, src, 3);
}

Test(unwind, strict_caller_lookup_uses_ra)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 20, FAKE_TEXT_A + 80, 0x777777 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SFRAME, EMU_SRC_SFRAME };

	build_noreturn_case();
	opts.max_frames = 3;
	opts.lookup_ra = true;
	walk(FAKE_TEXT_A + 20, slot(2), slot(10));
	expect_frames(ips, src, 3);
}

Test(unwind, max_frames_bounds_a_loop)
{
	/* an FP chain pointing to itself would loop without the FP >= SP check */
	stk[11] = 0x900100;
	stk[10] = slot(10);
	walk(0x900000, slot(2), slot(10));
	cr_assert_eq(res.nframes, 2);
	cr_assert_eq(res.stop, EMU_STOP_FP_BELOW_SP);
	opts.max_frames = 1;
	walk(0x900000, slot(2), slot(10));
	cr_assert_eq(res.nframes, 1);
	cr_assert_eq(res.stop, EMU_STOP_MAX_FRAMES);
}

static void register_flex(const struct sfw_fre *fre)
{
	struct sfw_fde fdes[2];

	sample_functions(fdes, 1, FAKE_TEXT_A, 64);
	fdes[1] = (struct sfw_fde){ .func_start = FAKE_TEXT_A + 64, .func_size = 64, .fde_type = 1,
				    .nfres = 1, .fres = fre };
	register_fdes(3, fdes, 2, FAKE_TEXT_A, 0x100);
}

Test(unwind, flex_register_cfa_in_first_frame_only)
{
	static const struct sfw_fre r10_cfa = { .count = 2, .words = { 0x51, 0 } };
	struct emu_regs regs = { .ip = FAKE_TEXT_A + 70, .sp = slot(2), .fp = slot(10) };

	register_flex(&r10_cfa);
	regs.gpr[10] = slot(8);
	regs.gpr_valid = 1u << 10;
	stk[7] = FAKE_TEXT_A + 30;	/* RA at r10 - 8 */
	opts.max_frames = 2;
	cr_assert_eq(emu_unwind(fs.registry, &fs.mem, &regs, &opts, frames, &res), 0);
	cr_assert_eq(res.nframes, 2);
	cr_assert_eq(frames[1].ip, FAKE_TEXT_A + 30);
	/* the same rule in a caller frame: r10 is not known there */
	stk[11] = FAKE_TEXT_A + 71;	/* f0 (FP frame) returns into the FLEX function */
	stk[10] = slot(20);
	opts.max_frames = 8;
	walk(FAKE_TEXT_A + 20, slot(2), slot(10));
	cr_assert_eq(res.nframes, 2);
	cr_assert_eq(res.stop, EMU_STOP_REG_UNAVAILABLE);
}

Test(unwind, flex_drap_dereferenced_cfa)
{
	/* CFA = *(FP - 8), RA at CFA - 8, FP = *(FP + 0) */
	static const struct sfw_fre drap = { .count = 5, .words = { 0x33, -8, 0, 0x33, 0 } };

	register_flex(&drap);
	stk[9] = slot(30);		/* *(FP - 8) with FP = slot(10) */
	stk[10] = slot(40);		/* caller FP */
	stk[29] = 0x888888;		/* RA */
	opts.max_frames = 2;
	walk(FAKE_TEXT_A + 70, slot(2), slot(10));
	cr_assert_eq(res.nframes, 2);
	cr_assert_eq(frames[1].ip, 0x888888);
}

/* The kernel profiles: a v3 signal FDE ends the walk. */
Test(unwind, signal_frame_stops)
{
	struct sfw_fde fde = { .func_start = FAKE_TEXT_A, .func_size = 16, .signal = true };

	register_fdes(3, &fde, 1, FAKE_TEXT_A, 0x100);
	walk(FAKE_TEXT_A + 4, slot(2), slot(10));
	cr_assert_eq(res.nframes, 1);
	cr_assert_eq(res.stop, EMU_STOP_SIGNAL_FRAME);
}

Test(unwind, corrupt_section_is_reported_and_falls_back)
{
	const struct emu_registration *reg;
	struct emu_sframe_fde fde;

	build_fp_chain(2);
	reg = emu_registry_find_unwind(fs.registry, FAKE_TEXT_A);
	cr_assert_eq(emu_sframe_fde_at(reg->sframe, 0, &fde), 0);
	/* FRE 0 of f0 gets offset size 3: the kernel's -EFAULT case */
	reg->sframe->data[fde.fres_pos + 1] = 0x63;
	stk[11] = 0x900100;
	stk[10] = 0;
	walk(FAKE_TEXT_A + 20, slot(2), slot(10));
	cr_assert(res.corrupt);
	cr_assert_eq(res.corrupt_text_start, FAKE_TEXT_A);
	cr_assert_eq(res.nframes, 2);
	cr_assert_eq(frames[1].source, EMU_SRC_FP);
}

Test(unwind, bad_options)
{
	struct emu_regs regs = { 0 };

	opts.max_frames = 0;
	cr_assert_eq(emu_unwind(fs.registry, &fs.mem, &regs, &opts, frames, &res), -EINVAL);
}

Test(unwind, ip_register_known_in_every_frame)
{
	/* CFA = SP + 16, RA at CFA - 8, FP = the IP (DWARF 16) + 0: no register needed */
	static const struct sfw_fre ipfp = { .count = 6, .words = { 0x39, 16, 0x02, -8, 0x81, 0 },
					     .word_size = 2 };

	register_flex(&ipfp);
	stk[11] = FAKE_TEXT_A + 71;	/* f0 (FP frame) returns into the FLEX function */
	stk[10] = slot(20);
	stk[13] = 0x999999;		/* the FLEX frame's RA: CFA slot(14) - 8 */
	opts.max_frames = 3;
	walk(FAKE_TEXT_A + 20, slot(2), slot(10));
	cr_assert_eq(res.nframes, 3, "stop %s", emu_stop_name(res.stop));
	cr_assert_eq(frames[2].ip, 0x999999);
}

/*
 * Signal frames. f0 (FAKE_TEXT_A, an SFrame frame-pointer function) is a
 * handler that returns to the trampoline at TRAMP; the kernel's ucontext is
 * at the trampoline's SP, slot(16): the interrupted registers at +40 (struct
 * sigcontext), with RIP in f2 (FAKE_TEXT_A + 158), RSP slot(60), RBP slot(62);
 * f2's frame returns to "start" (outermost).
 */
#define TRAMP (FAKE_TEXT_A + 0x300)
#define INTERRUPTED (FAKE_TEXT_A + 128 + 30)

static const uint8_t rt_sigreturn[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };

static void build_signal_frame(uint64_t tramp)
{
	uint64_t *sc = &stk[16 + 40 / 8];	/* struct sigcontext */

	stk[15] = tramp;			/* the handler's RA: pretcode */
	stk[14] = 0x1111;			/* its caller's FP: none (garbage) */
	sc[128 / 8] = INTERRUPTED;		/* rip */
	sc[120 / 8] = slot(60);			/* rsp */
	sc[80 / 8] = slot(62);			/* rbp */
	stk[63] = FAKE_TEXT_A + 0x210;		/* the interrupted frame's RA */
	stk[62] = 0;
}

Test(unwind, signal_frame_stepped_through_to_the_interrupted_frame)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 20, TRAMP, INTERRUPTED, FAKE_TEXT_A + 0x210 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SFRAME, EMU_SRC_SIGNAL, EMU_SRC_SFRAME };

	memcpy(fs.text + (TRAMP - FAKE_TEXT_A), rt_sigreturn, sizeof(rt_sigreturn));
	build_fp_chain(3);
	build_signal_frame(TRAMP);
	opts.signal_frames = true;
	walk(FAKE_TEXT_A + 20, slot(14), slot(14));
	expect_frames(ips, src, 4);
	cr_assert_eq(res.stop, EMU_STOP_OUTERMOST);
	cr_assert_eq(frames[0].flags, EMU_FRAME_EXACT);
	cr_assert_eq(frames[1].flags, EMU_FRAME_EXACT | EMU_FRAME_TRAMPOLINE);
	cr_assert_eq(frames[2].flags, EMU_FRAME_EXACT);
	cr_assert_eq(frames[3].flags, 0);
}

Test(unwind, signal_frame_ends_the_walk_in_the_kernel_profiles)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 20, TRAMP };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SFRAME };

	memcpy(fs.text + (TRAMP - FAKE_TEXT_A), rt_sigreturn, sizeof(rt_sigreturn));
	build_fp_chain(3);
	build_signal_frame(TRAMP);
	walk(FAKE_TEXT_A + 20, slot(14), slot(14));
	expect_frames(ips, src, 2);
	cr_assert_eq(res.stop, EMU_STOP_SIGNAL_FRAME);
	cr_assert_eq(res.stop_source, EMU_SRC_SIGNAL);
}

/* Stopped in the trampoline itself, at its system call: SP is the ucontext's. */
Test(unwind, stopped_in_the_trampoline)
{
	const uint64_t ips[] = { TRAMP + 7, INTERRUPTED, FAKE_TEXT_A + 0x210 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SIGNAL, EMU_SRC_SFRAME };

	memcpy(fs.text + (TRAMP - FAKE_TEXT_A), rt_sigreturn, sizeof(rt_sigreturn));
	build_fp_chain(3);
	build_signal_frame(TRAMP);
	opts.signal_frames = true;
	walk(TRAMP + 7, slot(16), 0x2222);
	expect_frames(ips, src, 3);
	cr_assert_eq(frames[0].flags, EMU_FRAME_EXACT | EMU_FRAME_TRAMPOLINE);
}

/* A trampoline the code does not give away: an SFrame v3 FDE with the signal bit. */
Test(unwind, v3_signal_fde_marks_the_trampoline)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 20, FAKE_TEXT_A + 0x380, INTERRUPTED,
				 FAKE_TEXT_A + 0x210 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_SFRAME, EMU_SRC_SIGNAL, EMU_SRC_SFRAME };
	struct sfw_fde fdes[6];

	sample_functions(fdes, 4, FAKE_TEXT_A, 64);
	fdes[4] = (struct sfw_fde){ .func_start = FAKE_TEXT_A + 0x200, .func_size = 32,
				    .nfres = 1, .fres = outer_fre };
	fdes[5] = (struct sfw_fde){ .func_start = FAKE_TEXT_A + 0x380, .func_size = 16,
				    .signal = true };
	register_fdes(3, fdes, 6, FAKE_TEXT_A, 0x400);
	build_signal_frame(FAKE_TEXT_A + 0x380);
	opts.signal_frames = true;
	walk(FAKE_TEXT_A + 20, slot(14), slot(14));
	expect_frames(ips, src, 4);
}

/* The frame-pointer fallback reaches the trampoline too: no SFrame for the handler. */
Test(unwind, signal_frame_after_the_frame_pointer_fallback)
{
	const uint64_t ips[] = { FAKE_TEXT_B + 20, TRAMP, INTERRUPTED, FAKE_TEXT_A + 0x210 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_FP, EMU_SRC_SIGNAL, EMU_SRC_SFRAME };

	memcpy(fs.text + (TRAMP - FAKE_TEXT_A), rt_sigreturn, sizeof(rt_sigreturn));
	build_fp_chain(3);
	build_signal_frame(TRAMP);
	opts.signal_frames = true;
	walk(FAKE_TEXT_B + 20, slot(2), slot(14));
	expect_frames(ips, src, 4);
}

/* ---- kernel profiles: the lookup reads the section as it is in the process ---- */

static const struct emu_registration *chain_registration(void)
{
	return emu_registry_find_unwind(fs.registry, FAKE_TEXT_A);
}

/* The section's bytes in the fake tracee (not the registered copy). */
static uint8_t *tracee_section(void)
{
	return fs.data + (chain_registration()->sframe_start - FAKE_DATA);
}

/* "; changed since registration at +OFF: OLD -> NEW", 4 bytes from @off, as the log says it. */
static void change_text(char *buf, size_t len, size_t off)
{
	const uint8_t *was = chain_registration()->sframe->data + off, *now = tracee_section() + off;

	snprintf(buf, len, "; changed since registration at +0x%zx: %02x%02x%02x%02x -> "
		 "%02x%02x%02x%02x", off, was[0], was[1], was[2], was[3], now[0], now[1], now[2],
		 now[3]);
}

Test(unwind, v16_removes_a_registration_broken_since)
{
	const uint64_t ips[] = { FAKE_TEXT_A + 20, FAKE_TEXT_A + 74, FAKE_TEXT_A + 138,
				 FAKE_TEXT_A + 202, FAKE_TEXT_A + 0x210 };
	const uint8_t src[] = { EMU_SRC_REGS, EMU_SRC_FP, EMU_SRC_FP, EMU_SRC_FP, EMU_SRC_FP };
	struct emu_sframe_fde fde;

	fs.policy.profile = opts.profile = EMU_PROFILE_V16;
	build_fp_chain(3);
	walk(FAKE_TEXT_A + 20, slot(4), slot(14));
	cr_assert_eq(res.nframes, 5);
	cr_assert_eq(res.nremovals, 0);
	cr_assert_eq(emu_sframe_fde_at(chain_registration()->sframe, 0, &fde), 0);
	/* FRE 0 of f0 gets data-word size 3 in the process; the copy is intact */
	tracee_section()[fde.fres_pos + 1] = 0x63;
	walk(FAKE_TEXT_A + 20, slot(4), slot(14));
	/* that frame falls back to FP; the rest of the walk goes on without the registration */
	expect_frames(ips, src, 5);
	cr_assert_eq(res.stop, EMU_STOP_RA_ZERO);
	cr_assert_eq(res.nremovals, 1);
	cr_assert_eq(res.removals[0].sframe_start, chain_registration()->sframe_start);
	cr_assert_eq(res.removals[0].text_start, FAKE_TEXT_A);
	cr_assert_eq(res.removals[0].rule, EMU_R_SF_FRE_OFFSET_SIZE);
	cr_assert_str_eq(res.removals[0].reason, "FDE 0: FRE 0: data-word size 3 (info 0x63)");
	opts.profile = EMU_PROFILE_EMULATOR;
}

/* v13 read the copy unless the bytes changed, with the copy's checks (sframe_live.c). */
Test(unwind, v13_removes_a_registration_broken_since)
{
	struct emu_sframe_fde fde;
	char want[EMU_REASON_MAX], change[96];

	fs.policy.profile = opts.profile = EMU_PROFILE_V13;
	build_fp_chain(3);
	cr_assert_eq(emu_sframe_fde_at(chain_registration()->sframe, 0, &fde), 0);
	tracee_section()[fde.fres_pos + 1] = 0x63;
	walk(FAKE_TEXT_A + 20, slot(4), slot(14));
	cr_assert_eq(res.nremovals, 1);
	cr_assert_eq(res.removals[0].rule, EMU_R_SF_FRE_OFFSET_SIZE);
	change_text(change, sizeof(change), fde.fres_pos + 1);
	snprintf(want, sizeof(want), "FDE 0: FRE 0: invalid offset size (info 0x63)%s", change);
	cr_assert_str_eq(res.removals[0].reason, want);
	opts.profile = EMU_PROFILE_EMULATOR;
}

/* A function moved 64 KiB below the text in the process. */
static void move_first_function(void)
{
	size_t at = chain_registration()->sframe->fdes_pos;
	int64_t start;

	memcpy(&start, tracee_section() + at, 8);
	start -= 0x10000;
	memcpy(tracee_section() + at, &start, 8);
}

/* A function moved outside the text: v13 (EINVAL there) only falls back. */
Test(unwind, v13_keeps_a_registration_whose_function_left_the_text)
{
	fs.policy.profile = opts.profile = EMU_PROFILE_V13;
	build_fp_chain(3);
	move_first_function();
	walk(FAKE_TEXT_A + 20, slot(4), slot(14));
	cr_assert(res.corrupt);
	cr_assert_eq(res.nremovals, 0);
	cr_assert_eq(frames[1].source, EMU_SRC_FP);
	opts.profile = EMU_PROFILE_EMULATOR;
}

/* v16: EFAULT from the FDE's text check, which removes the registration. */
Test(unwind, v16_removes_a_registration_whose_function_left_the_text)
{
	fs.policy.profile = opts.profile = EMU_PROFILE_V16;
	build_fp_chain(3);
	move_first_function();
	walk(FAKE_TEXT_A + 20, slot(4), slot(14));
	cr_assert_eq(res.nremovals, 1);
	cr_assert_eq(res.removals[0].rule, EMU_R_SETUP_FDE_TEXT);
	cr_assert_str_eq(res.removals[0].reason, "FDE 0: function 0x3f0000..0x3f0040 outside text "
			 "range 0x400000..0x400400");
	cr_assert_eq(frames[1].source, EMU_SRC_FP);
	opts.profile = EMU_PROFILE_EMULATOR;
}

/* Memory of the fake tracee, except [@start, @end), which no longer reads. */
struct holed {
	const struct emu_accessor *inner;
	uint64_t start, end;
};

static int holed_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct holed *h = ctx;

	if (addr < h->end && addr + len > h->start)
		return -EFAULT;
	return h->inner->read(h->inner->ctx, addr, buf, len);
}

Test(unwind, v16_removes_a_section_no_longer_readable)
{
	struct holed h = { .inner = &fs.mem };
	struct emu_accessor mem = { .read = holed_read, .ctx = &h };
	struct emu_regs regs = { .ip = FAKE_TEXT_A + 20, .sp = slot(4), .fp = slot(14) };
	char want[EMU_REASON_MAX];

	fs.policy.profile = opts.profile = EMU_PROFILE_V16;
	build_fp_chain(3);
	h.start = chain_registration()->sframe_start;
	h.end = chain_registration()->sframe_end;
	cr_assert_eq(emu_unwind(fs.registry, &mem, &regs, &opts, frames, &res), 0);
	cr_assert_eq(res.nremovals, 1);
	cr_assert_eq(res.removals[0].rule, EMU_R_SFRAME_FAULT);
	/* the binary search's first entry: FDE 2 of 5 */
	snprintf(want, sizeof(want), "SFrame data at 0x%llx unreadable",
		 (unsigned long long)(chain_registration()->ksframe.fdes_start + 2 * 16));
	cr_assert_str_eq(res.removals[0].reason, want);
	opts.profile = EMU_PROFILE_EMULATOR;
}
