// SPDX-License-Identifier: GPL-2.0
/*
 * The abstract interpreter on hand-assembled functions (bytes from GNU as,
 * shown beside them) with rows from the test writer: every shape it models
 * (frame pointer, pushes, realignment, alloca, DRAP, probe loops, jump
 * tables, calls that do not return, cold parts, PLT0 and lazy PLT entries)
 * gives no finding with true rows, and a row made wrong gives exactly one
 * finding of the right kind at the right address; what it cannot decide is
 * unknown, with why.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/verify/report.h"
#include "verify_util.h"

#define A(off) (MINI_TEXT + (off))

static struct mini m;
static struct verify_result r;

static void reset(void)
{
	memset(&m, 0, sizeof(m));
	memset(&r, 0, sizeof(r));
}

static void done(void)
{
	verify_result_free(&r);
}

TestSuite(interp, .init = reset, .fini = done);

static void put(uint32_t off, const uint8_t *b, size_t n)
{
	memcpy(m.code + off, b, n);
	if (off + n > m.len)
		m.len = off + n;
}

/* push %rbp; mov %rsp,%rbp; sub $16,%rsp; leave; ret */
static const uint8_t fp_frame[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xc9, 0xc3 };

static void fp_frame_rows(struct sfw_fre *f)
{
	f[0] = sp_row(0, 8, 0);
	f[1] = sp_row(1, 16, -16);
	f[2] = fp_row(4, 16, -16);
	f[3] = sp_row(9, 8, -16);
}

Test(interp, fp_frame_true_rows_every_version)
{
	struct sfw_fre f[4];

	fp_frame_rows(f);
	for (uint8_t v = 1; v <= 3; v++) {
		reset();
		m.version = v;
		put(0, fp_frame, sizeof(fp_frame));
		mini_fn(&m, 0, sizeof(fp_frame), f, 4);
		mini_run(&m, &r);
		cr_assert_eq(r.n, 0, "v%u: %zu findings", v, r.n);
		cr_assert_eq(r.st.decided, 5, "v%u", v);
		cr_assert_eq(r.st.undecided, 0);
		cr_assert_eq(r.st.instructions, 5);
		done();
	}
}

Test(interp, cfa_off_by_8)
{
	struct sfw_fre f[4];
	const struct verify_finding *fd;

	fp_frame_rows(f);
	f[2] = fp_row(4, 24, -16);	/* CFA = FP + 24 where it is FP + 16 */
	put(0, fp_frame, sizeof(fp_frame));
	mini_fn(&m, 0, sizeof(fp_frame), f, 4);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	fd = &r.f[0];
	cr_assert_eq(fd->kind, VERIFY_CFA_MISMATCH);
	cr_assert_eq(fd->start, A(4));
	cr_assert_eq(fd->end, A(9), "the row's whole range: %#llx", (unsigned long long)fd->end);
	cr_assert(fd->code.fp_known && fd->code.fp_cfa == 16);
	cr_assert_eq(fd->row.cfa_off, 24);
}

Test(interp, fp_saved_too_early)
{
	struct sfw_fre f[4];

	fp_frame_rows(f);
	f[0] = sp_row(0, 8, -16);	/* FP at CFA - 16 before the push */
	put(0, fp_frame, sizeof(fp_frame));
	mini_fn(&m, 0, sizeof(fp_frame), f, 4);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_FP_MISMATCH);
	cr_assert_eq(r.f[0].start, A(0));
	cr_assert_eq(r.f[0].end, A(1));
}

Test(interp, ra_offset_wrong)
{
	/* no fixed RA offset: each row says where the RA is (words CFA, RA[, FP]) */
	struct sfw_fre f[4] = {
		{ .start = 0, .sp_base = true, .count = 2, .words = { 8, -8 } },
		{ .start = 1, .sp_base = true, .count = 3, .words = { 16, -16, -16 } },
		{ .start = 4, .sp_base = false, .count = 3, .words = { 16, -8, -16 } },
		{ .start = 9, .sp_base = true, .count = 3, .words = { 8, -8, -16 } },
	};

	m.no_fixed_ra = true;
	put(0, fp_frame, sizeof(fp_frame));
	mini_fn(&m, 0, sizeof(fp_frame), f, 4);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_RA_MISMATCH);
	cr_assert_eq(r.f[0].start, A(1));
	cr_assert_eq(r.f[0].end, A(4));
	cr_assert_eq(r.f[0].code.ra_slot, -8);
}

/* missing_remember_state-asm.S's spin_early_return */
static const uint8_t early_return[] = {
	0x53,			/* 0: push %rbx */
	0x48, 0x85, 0xf6,	/* 1: test %rsi,%rsi */
	0x75, 0x02,		/* 4: jne 8 */
	0x5b,			/* 6: pop %rbx */
	0xc3,			/* 7: ret */
	0x48, 0xff, 0xcf,	/* 8: dec %rdi */
	0x75, 0xfb,		/* b: jne 8 */
	0x5b,			/* d: pop %rbx */
	0xc3,			/* e: ret */
};

Test(interp, missing_remember_state)
{
	struct sfw_fre f[3] = { sp_row(0, 8, 0), sp_row(1, 16, 0), sp_row(7, 8, 0) };

	put(0, early_return, sizeof(early_return));
	mini_fn(&m, 0, sizeof(early_return), f, 3);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_CFA_MISMATCH);
	cr_assert_eq(r.f[0].start, A(8));
	cr_assert_eq(r.f[0].end, A(0xe));
	cr_assert(r.f[0].code.sp_known && r.f[0].code.sp_cfa == 16);
}

Test(interp, remember_restore_state)
{
	struct sfw_fre f[5] = { sp_row(0, 8, 0), sp_row(1, 16, 0), sp_row(7, 8, 0),
				sp_row(8, 16, 0), sp_row(0xe, 8, 0) };

	put(0, early_return, sizeof(early_return));
	mini_fn(&m, 0, sizeof(early_return), f, 5);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0);
	cr_assert_eq(r.st.decided, 9);
}

Test(interp, disagreeing_merge_is_unknown)
{
	/* test %edi,%edi; je 5; push %rax; ret: the ret is reached with SP = CFA - 8 and - 16 */
	static const uint8_t code[] = { 0x85, 0xff, 0x74, 0x01, 0x50, 0xc3 };
	struct sfw_fre f[1] = { sp_row(0, 8, 0) };

	put(0, code, sizeof(code));
	mini_fn(&m, 0, sizeof(code), f, 1);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_UNKNOWN);
	cr_assert_eq(r.f[0].why, VERIFY_WHY_MERGE);
	cr_assert_eq(r.f[0].start, A(5));
	cr_assert_eq(r.f[0].why_at, A(5));
	cr_assert_str_eq(r.f[0].cause ?: "", "SP is CFA-8 on one path, CFA-16 on the path from 0x401004", "%s", r.f[0].cause ?: "(null)");
	cr_assert_eq(r.f[0].nranges, 1);
	cr_assert_eq(r.f[0].insns, 1);
	cr_assert_eq(r.st.undecided, 1);
	cr_assert_eq(r.st.decided, 3);
}

/*
 * A function's undecided instructions are one finding with their ranges: two
 * merges where SP disagrees, each followed by an instruction still undecided
 * (the row is SP-based), SP known again between them (mov %rbp,%rsp) and
 * after (leave). libbz2's BZ2_hbMakeCodeLengths was 91 findings.
 */
Test(interp, unknowns_of_a_function_are_one_finding)
{
	/*
	 * 0: push %rbp; 1: mov %rsp,%rbp; 4: test %edi,%edi; 6: je 9; 8: push %rax;
	 * 9: nop; a: mov %rbp,%rsp; d: test %esi,%esi; f: je 12; 11: push %rax;
	 * 12: nop; 13: leave; 14: ret
	 */
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0x85, 0xff, 0x74, 0x01, 0x50,
					0x90, 0x48, 0x89, 0xec, 0x85, 0xf6, 0x74, 0x01, 0x50,
					0x90, 0xc9, 0xc3 };
	struct sfw_fre f[3] = { sp_row(0, 8, 0), sp_row(1, 16, -16), sp_row(0x14, 8, -16) };
	char text[1024];

	put(0, code, sizeof(code));
	mini_fn(&m, 0, sizeof(code), f, 3);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1, "%zu findings", r.n);
	cr_assert_eq(r.f[0].kind, VERIFY_UNKNOWN);
	cr_assert_eq(r.f[0].start, A(9));
	cr_assert_eq(r.f[0].end, A(0x14));
	cr_assert_eq(r.f[0].insns, 4);
	cr_assert_eq(r.f[0].nranges, 2);
	cr_assert_eq(r.f[0].range[0].start, A(9));
	cr_assert_eq(r.f[0].range[0].end, A(0xd), "%llx %llx", (unsigned long long)r.f[0].range[0].end, (unsigned long long)r.f[0].range[1].start);
	cr_assert_eq(r.f[0].range[0].why_at, A(9));
	cr_assert_eq(r.f[0].range[1].start, A(0x12));
	cr_assert_eq(r.f[0].range[1].end, A(0x14));
	cr_assert_eq(r.f[0].range[1].why_at, A(0x12));
	cr_assert_eq(r.st.by_kind[VERIFY_UNKNOWN], 1);
	cr_assert_eq(r.st.undecided, 4);
	verify_finding_text(&r.f[0], 0, text, sizeof(text));
	cr_assert_str_eq(text, "0x401009-0x401014 unknown fde#0 (0x401000)+0x9: 4 instructions in "
			 "2 ranges, the first: states that disagree meet at a control-flow merge "
			 "(merge at 0x401009: SP is CFA-16 on one path, CFA-24 on the path from "
			 "0x401008); ranges 0x401009-0x40100d 0x401012-0x401014");
}

/*
 * Pointers into the frame spilled to seven slots on one path and seven
 * others on the other: more slots than the analysis follows meet at the
 * merge. The return address's slot is kept (the spills are left out), so
 * the rows are decided (before: the RA was the slot left out, every
 * instruction after the merge unknown, as in libbz2).
 */
Test(interp, spilled_pointers_never_push_out_the_ra)
{
	/*
	 * 0: sub $0x80,%rsp; 7: lea (%rsp),%rax; b: test %edi,%edi; d: je 33;
	 * f..2c: mov %rax,0x0..0x30(%rsp); 31: jmp 56;
	 * 33..51: mov %rax,0x38..0x68(%rsp); 56: add $0x80,%rsp; 5d: ret
	 */
	static const uint8_t code[] = {
		0x48, 0x81, 0xec, 0x80, 0x00, 0x00, 0x00, 0x48, 0x8d, 0x04, 0x24, 0x85, 0xff,
		0x74, 0x24, 0x48, 0x89, 0x04, 0x24, 0x48, 0x89, 0x44, 0x24, 0x08, 0x48, 0x89,
		0x44, 0x24, 0x10, 0x48, 0x89, 0x44, 0x24, 0x18, 0x48, 0x89, 0x44, 0x24, 0x20,
		0x48, 0x89, 0x44, 0x24, 0x28, 0x48, 0x89, 0x44, 0x24, 0x30, 0xeb, 0x23, 0x48,
		0x89, 0x44, 0x24, 0x38, 0x48, 0x89, 0x44, 0x24, 0x40, 0x48, 0x89, 0x44, 0x24,
		0x48, 0x48, 0x89, 0x44, 0x24, 0x50, 0x48, 0x89, 0x44, 0x24, 0x58, 0x48, 0x89,
		0x44, 0x24, 0x60, 0x48, 0x89, 0x44, 0x24, 0x68, 0x48, 0x81, 0xc4, 0x80, 0x00,
		0x00, 0x00, 0xc3 };
	struct sfw_fre f[3] = { sp_row(0, 8, 0), sp_row(7, 0x88, 0), sp_row(0x5d, 8, 0) };

	put(0, code, sizeof(code));
	mini_fn(&m, 0, sizeof(code), f, 3);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0, "%zu findings, the first %s", r.n,
		     r.n ? verify_kind_name(r.f[0].kind) : "");
	cr_assert_eq(r.st.undecided, 0);
	cr_assert_eq(r.st.decided, 21);
}

/*
 * 0: test %edi,%edi; 2: jne a; 4: push %rax; 5: call 10; a: ret
 * 10: a function that never returns (jmp .), or one named exit
 */
static const uint8_t calls_noreturn[] = { 0x85, 0xff, 0x75, 0x06, 0x50, 0xe8, 0x06, 0x00, 0x00,
					  0x00, 0xc3 };

/* calls_noreturn at 0 and @callee (@n bytes) at 0x10, each with its true rows. */
static void caller_and_callee(const uint8_t *callee, uint32_t n)
{
	static struct sfw_fre f[3], g[1];	/* the FDEs point at them until mini_run() */

	f[0] = sp_row(0, 8, 0);
	f[1] = sp_row(5, 16, 0);
	f[2] = sp_row(0xa, 8, 0);
	g[0] = sp_row(0, 8, 0);
	put(0, calls_noreturn, sizeof(calls_noreturn));
	put(0x10, callee, n);
	mini_fn(&m, 0, sizeof(calls_noreturn), f, 3);
	mini_fn(&m, 0x10, n, g, 1);
}

Test(interp, call_to_function_found_never_to_return)
{
	static const uint8_t spin[] = { 0xeb, 0xfe };

	caller_and_callee(spin, sizeof(spin));
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0, "%zu findings, the first %s", r.n,
		     r.n ? verify_kind_name(r.f[0].kind) : "");
	cr_assert_eq(r.st.undecided, 0);
}

Test(interp, call_to_exit_by_name)
{
	static const uint8_t ret[] = { 0xc3 };

	caller_and_callee(ret, sizeof(ret));
	m.syms[m.nsym++] = (struct verify_sym){ .start = A(0x10), .size = 1, .name = "exit" };
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0);
}

Test(interp, call_that_may_return_makes_unknown)
{
	static const uint8_t ret[] = { 0xc3 };

	caller_and_callee(ret, sizeof(ret));
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_UNKNOWN);
	cr_assert_eq(r.f[0].why, VERIFY_WHY_CALL);
	cr_assert_eq(r.f[0].start, A(0xa));
}

/* hot: push %rbx; test %edi,%edi; jne cold (0x40); pop %rbx; ret. cold: pop %rbx; ret */
static void hot_and_cold(int32_t cold_cfa)
{
	static const uint8_t hot[] = { 0x53, 0x85, 0xff, 0x0f, 0x85, 0x37, 0x00, 0x00, 0x00, 0x5b,
				       0xc3 };
	static const uint8_t cold[] = { 0x5b, 0xc3 };
	static struct sfw_fre f[3], g[2];

	f[0] = sp_row(0, 8, 0);
	f[1] = sp_row(1, 16, 0);
	f[2] = sp_row(0xa, 8, 0);
	g[0] = sp_row(0, cold_cfa, 0);
	g[1] = sp_row(1, 8, 0);
	put(0, hot, sizeof(hot));
	put(0x40, cold, sizeof(cold));
	mini_fn(&m, 0, sizeof(hot), f, 3);
	mini_fn(&m, 0x40, sizeof(cold), g, 2);
	mini_run(&m, &r);
}

Test(interp, cold_part_entered_by_a_jump)
{
	hot_and_cold(16);
	cr_assert_eq(r.n, 0);
	cr_assert_eq(r.st.decided, 7);
}

Test(interp, cold_part_row_wrong)
{
	hot_and_cold(8);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_CFA_MISMATCH);
	cr_assert_eq(r.f[0].start, A(0x40));
	cr_assert_eq(r.f[0].code.sp_cfa, 16);
}

/*
 * PLT0 (push GOT+8; jmp *GOT+16; nopl) and a lazy entry (jmp *GOT; push $0;
 * jmp PLT0), PCMASK rows as ld writes them.
 */
Test(interp, plt0_and_lazy_entry)
{
	static const uint8_t plt[] = {
		0xff, 0x35, 0x02, 0x20, 0x00, 0x00, 0xff, 0x25, 0x04, 0x20, 0x00, 0x00,
		0x0f, 0x1f, 0x40, 0x00,
		0xff, 0x25, 0x02, 0x20, 0x00, 0x00, 0x68, 0x00, 0x00, 0x00, 0x00,
		0xe9, 0xe0, 0xff, 0xff, 0xff,
	};
	struct sfw_fre f[2] = { sp_row(0, 16, 0), sp_row(6, 24, 0) };
	struct sfw_fre g[2] = { sp_row(0, 8, 0), sp_row(0xb, 16, 0) };

	put(0, plt, sizeof(plt));
	mini_fn(&m, 0, 16, f, 2);
	mini_fn(&m, 16, 16, g, 2);
	m.fde[1].pcmask = true;
	m.fde[1].rep_size = 16;
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0, "%zu findings at %#llx", r.n,
		     r.n ? (unsigned long long)r.f[0].start : 0ull);
	cr_assert_eq(r.st.decided, 5);
}

/*
 * A DRAP function (gcc -mforce-drap), rows as gas 2.47 writes them (v3
 * FLEX, tests/vectors/v3/drap-*): CFA = SP + 8, then r10 + 0, then
 * *(FP - 8); the caller's FP at *(FP + 0) once FP is set. Decided up to the
 * realignment and while the CFA is in r10 and FP the caller's; unknown
 * after, not wrong.
 */
static const uint8_t drap[] = {
	0x4c, 0x8d, 0x54, 0x24, 0x08,	/* 0: lea 0x8(%rsp),%r10 */
	0x48, 0x83, 0xe4, 0xc0,		/* 5: and $-64,%rsp */
	0x41, 0xff, 0x72, 0xf8,		/* 9: push -0x8(%r10) */
	0x55,				/* d: push %rbp */
	0x48, 0x89, 0xe5,		/* e: mov %rsp,%rbp */
	0x41, 0x52,			/* 11: push %r10 */
	0x48, 0x83, 0xec, 0x28,		/* 13: sub $0x28,%rsp */
	0x4c, 0x8b, 0x55, 0xf8,		/* 17: mov -0x8(%rbp),%r10 */
	0xc9,				/* 1b: leave */
	0x49, 0x8d, 0x62, 0xf8,		/* 1c: lea -0x8(%r10),%rsp */
	0xc3,				/* 20: ret */
};

#define FLEX_REG(r) (((r) << 3) | 1)
#define FLEX_DEREF(r) (((r) << 3) | 3)

Test(interp, drap_flex_is_unknown_not_wrong)
{
	struct sfw_fre f[5] = {
		{ .start = 0, .sp_base = true, .count = 2, .words = { FLEX_REG(7), 8 } },
		{ .start = 5, .sp_base = true, .count = 2, .words = { FLEX_REG(10), 0 } },
		{ .start = 0x11, .sp_base = true, .count = 5,
		  .words = { FLEX_REG(10), 0, 0, FLEX_DEREF(6), 0 } },
		{ .start = 0x13, .sp_base = true, .count = 5,
		  .words = { FLEX_DEREF(6), -8, 0, FLEX_DEREF(6), 0 } },
		{ .start = 0x20, .sp_base = true, .count = 5,
		  .words = { FLEX_REG(7), 8, 0, FLEX_DEREF(6), 0 } },
	};

	m.version = 3;
	put(0, drap, sizeof(drap));
	mini_fn(&m, 0, sizeof(drap), f, 5);
	m.fde[0].fde_type = 1;
	mini_run(&m, &r);
	cr_assert_eq(verify_mismatches(&r.st), 0);
	cr_assert_gt(r.n, 0);
	for (size_t i = 0; i < r.n; i++)
		cr_assert(r.f[i].kind == VERIFY_UNKNOWN && r.f[i].why == VERIFY_WHY_DRAP,
			  "finding %zu: %s %s", i, verify_kind_name(r.f[i].kind),
			  verify_why_name(r.f[i].why));
	cr_assert_eq(r.f[0].why_at, A(5));
	cr_assert_eq(r.st.decided, 5, "lea, and, push, push, mov");
	cr_assert_eq(r.st.undecided, 6);
}

Test(interp, drap_without_fde_is_unknown)
{
	static const uint8_t ret[] = { 0xc3 };
	struct sfw_fre g[1] = { sp_row(0, 8, 0) };

	put(0, drap, sizeof(drap));
	put(0x40, ret, sizeof(ret));
	put(0x50, ret, sizeof(ret));
	mini_fn(&m, 0x40, 1, g, 1);
	m.syms[m.nsym++] = (struct verify_sym){ .start = A(0), .size = sizeof(drap), .name = "realigned" };
	m.syms[m.nsym++] = (struct verify_sym){ .start = A(0x50), .size = 1, .name = "plain" };
	m.dwarf_lo = A(0);
	m.dwarf_hi = A(0x60);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 2);
	cr_assert_eq(r.f[0].kind, VERIFY_UNKNOWN);
	cr_assert_eq(r.f[0].why, VERIFY_WHY_DRAP);
	cr_assert_eq(r.f[0].start, A(0));
	cr_assert_eq(r.f[0].end, A(sizeof(drap)));
	cr_assert_eq(r.f[1].kind, VERIFY_FUNCTION_WITHOUT_FDE);
	cr_assert_eq(r.f[1].start, A(0x50));
	cr_assert_str_eq(r.f[1].function, "plain");
}

/* A stack-clash probe loop: the CFA in r11 while SP moves, then SP = r11 again. */
Test(interp, probe_loop)
{
	static const uint8_t code[] = {
		0x4c, 0x8d, 0x9c, 0x24, 0x00, 0xd0, 0xff, 0xff,	/* 0: lea -0x3000(%rsp),%r11 */
		0x48, 0x81, 0xec, 0x00, 0x10, 0x00, 0x00,	/* 8: sub $0x1000,%rsp */
		0x48, 0x83, 0x0c, 0x24, 0x00,			/* f: orq $0x0,(%rsp) */
		0x4c, 0x39, 0xdc,				/* 14: cmp %r11,%rsp */
		0x75, 0xef,					/* 17: jne 8 */
		0x48, 0x81, 0xc4, 0x00, 0x30, 0x00, 0x00,	/* 19: add $0x3000,%rsp */
		0xc3,						/* 20: ret */
	};
	struct sfw_fre f[4] = {
		{ .start = 0, .sp_base = true, .count = 2, .words = { FLEX_REG(7), 8 } },
		{ .start = 8, .sp_base = true, .count = 2, .words = { FLEX_REG(11), 0x3008 } },
		{ .start = 0x19, .sp_base = true, .count = 2, .words = { FLEX_REG(7), 0x3008 } },
		{ .start = 0x20, .sp_base = true, .count = 2, .words = { FLEX_REG(7), 8 } },
	};

	m.version = 3;
	put(0, code, sizeof(code));
	mini_fn(&m, 0, sizeof(code), f, 4);
	m.fde[0].fde_type = 1;
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0, "%zu findings at %#llx", r.n,
		     r.n ? (unsigned long long)r.f[0].start : 0ull);
	cr_assert_eq(r.st.decided, 7);
}

/* cmp $2,%edi; ja def; lea T(%rip),%rdx; movslq (%rdx,%rdi,4),%rax; add %rdx,%rax; jmp *%rax */
Test(interp, jump_table)
{
	static const uint8_t code[] = {
		0x83, 0xff, 0x02, 0x77, 0x19, 0x48, 0x8d, 0x15, 0x16, 0x00, 0x00, 0x00,
		0x48, 0x63, 0x04, 0xba, 0x48, 0x01, 0xd0, 0xff, 0xe0,
		0x53, 0x5b, 0xc3, 0x53, 0x5b, 0xc3, 0x53, 0x5b, 0xc3,	/* 15, 18, 1b: cases */
		0xc3, 0x0f, 0x1f, 0x00,					/* 1e: default; nopl */
		0xf3, 0xff, 0xff, 0xff, 0xf6, 0xff, 0xff, 0xff, 0xf9, 0xff, 0xff, 0xff,
	};
	struct sfw_fre f[7] = { sp_row(0, 8, 0), sp_row(0x16, 16, 0), sp_row(0x17, 8, 0),
				sp_row(0x19, 16, 0), sp_row(0x1a, 8, 0), sp_row(0x1c, 16, 0),
				sp_row(0x1d, 8, 0) };

	put(0, code, sizeof(code));
	mini_fn(&m, 0, 0x22, f, 7);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0, "%zu findings, the first %s", r.n,
		     r.n ? verify_why_name(r.f[0].why) : "");
	cr_assert_eq(r.st.undecided, 0);
	cr_assert_eq(r.st.decided, 16);
	cr_assert_eq(r.st.unreachable, 1, "the nopl after the default case");
}

Test(interp, unresolved_indirect_jump)
{
	/* jmp *%rax with no table before it; the code after it is reached by nothing else */
	static const uint8_t code[] = { 0x53, 0xff, 0xe0, 0x5b, 0xc3 };
	struct sfw_fre f[2] = { sp_row(0, 8, 0), sp_row(1, 16, 0) };

	put(0, code, sizeof(code));
	mini_fn(&m, 0, sizeof(code), f, 2);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_UNKNOWN);
	cr_assert_eq(r.f[0].why, VERIFY_WHY_INDIRECT_JUMP);
	cr_assert_eq(r.f[0].why_at, A(1));
	cr_assert_eq(r.f[0].start, A(3));
	cr_assert_eq(r.f[0].end, A(5));
}

/* push %rbp; mov %rsp,%rbp; and $-32,%rsp; sub $0x40,%rsp; leave; ret */
static const uint8_t realigned[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xe4, 0xe0, 0x48, 0x83,
				     0xec, 0x40, 0xc9, 0xc3 };

Test(interp, realign_with_frame_pointer)
{
	struct sfw_fre f[4] = { sp_row(0, 8, 0), sp_row(1, 16, -16), fp_row(4, 16, -16),
				sp_row(0xd, 8, -16) };

	put(0, realigned, sizeof(realigned));
	mini_fn(&m, 0, sizeof(realigned), f, 4);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0);
	cr_assert_eq(r.st.decided, 6);
}

Test(interp, sp_row_after_realign_is_wrong)
{
	struct sfw_fre f[5] = { sp_row(0, 8, 0), sp_row(1, 16, -16), fp_row(4, 16, -16),
				sp_row(8, 16, -16), sp_row(0xd, 8, -16) };

	put(0, realigned, sizeof(realigned));
	mini_fn(&m, 0, sizeof(realigned), f, 5);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_CFA_MISMATCH);
	cr_assert_eq(r.f[0].start, A(8));
	cr_assert(!r.f[0].code.sp_known && r.f[0].code.fp_known);
}

Test(interp, alloca_with_frame_pointer)
{
	/* push %rbp; mov %rsp,%rbp; sub %rax,%rsp; leave; ret */
	static const uint8_t code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0x29, 0xc4, 0xc9, 0xc3 };
	struct sfw_fre f[4] = { sp_row(0, 8, 0), sp_row(1, 16, -16), fp_row(4, 16, -16),
				sp_row(8, 8, -16) };

	put(0, code, sizeof(code));
	mini_fn(&m, 0, sizeof(code), f, 4);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0);
}

Test(interp, fde_one_byte_short_and_too_long)
{
	/* f: push %rbx; pop %rbx; ret (3 bytes); g: the same, its FDE one byte too long */
	static const uint8_t code[] = { 0x53, 0x5b, 0xc3 };
	struct sfw_fre f[3] = { sp_row(0, 8, 0), sp_row(1, 16, 0), sp_row(2, 8, 0) };

	put(0, code, sizeof(code));
	put(0x10, code, sizeof(code));
	mini_fn(&m, 0, 2, f, 2);
	mini_fn(&m, 0x10, 4, f, 3);
	m.syms[m.nsym++] = (struct verify_sym){ .start = A(0), .size = 3, .name = "f" };
	m.syms[m.nsym++] = (struct verify_sym){ .start = A(0x10), .size = 3, .name = "g" };
	m.dwarf_lo = A(0);
	m.dwarf_hi = A(0x20);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 2);
	cr_assert_eq(r.f[0].kind, VERIFY_FUNCTION_WITHOUT_FDE);
	cr_assert_eq(r.f[0].start, A(2));
	cr_assert_eq(r.f[0].end, A(3));
	cr_assert_eq(r.f[1].kind, VERIFY_ROW_BEYOND_FUNCTION);
	cr_assert_eq(r.f[1].start, A(0x13));
	cr_assert_eq(r.f[1].end, A(0x14));
}

Test(interp, self_loop_and_bytes_that_are_not_code)
{
	/* jmp .; then 0x06 (no instruction in 64-bit mode) reached by a jne */
	static const uint8_t code[] = { 0x85, 0xff, 0x75, 0x02, 0xeb, 0xfe, 0x06, 0x06 };
	struct sfw_fre f[1] = { sp_row(0, 8, 0) };

	put(0, code, sizeof(code));
	mini_fn(&m, 0, sizeof(code), f, 1);
	mini_run(&m, &r);
	cr_assert_eq(verify_mismatches(&r.st), 0);
}

Test(interp, function_too_large_is_unknown)
{
	uint32_t size = VERIFY_MAX_FUNC + 16;
	uint8_t *big = calloc(1, size);
	struct sfw_fre f[1] = { sp_row(0, 8, 0) };
	struct sfw_fde fde = { .func_start = MINI_TEXT, .func_size = size, .fre_type = -1,
			       .nfres = 1, .fres = f };
	struct sfw_section sec = sfw_amd64(2, true, MINI_SEC);
	struct emu_sframe_params p = { .sframe_addr = MINI_SEC, .text_start = MINI_TEXT,
				       .text_end = MINI_TEXT + size, .arch = EMU_ARCH_X86_64 };
	struct emu_mem_image img = { 0 };
	struct emu_mappings text = { 0 };
	struct emu_sframe_section *s = NULL;
	struct emu_accessor mem;
	struct verify_target t;
	struct sfw_layout lay;
	struct emu_verdict v;
	uint8_t *buf = malloc(256);
	size_t len;

	sec.fdes = &fde;
	sec.nfdes = 1;
	len = sfw_write(&sec, buf, 256, &lay);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(buf, len, &p, &s, &v), 0, "%s", v.reason);
	emu_mem_image_add(&img, MINI_TEXT, big, size);
	mem = emu_mem_image_accessor(&img);
	emu_mappings_add(&text, MINI_TEXT, MINI_TEXT + size, EMU_PROT_EXEC);
	t = (struct verify_target){ .sframe = s, .mem = &mem, .text = &text };
	cr_assert_eq(verify_run(&t, &r), 0);
	cr_assert_eq(r.n, 1);
	cr_assert_eq(r.f[0].kind, VERIFY_UNKNOWN);
	cr_assert_eq(r.f[0].why, VERIFY_WHY_TOO_LARGE);
	emu_sframe_put(s);
	emu_mappings_free(&text);
	free(big);
}

/* A computed goto's dispatch table: its base loaded first, 64-bit entries, no bound check. */
Test(interp, dispatch_table_in_a_register)
{
	static const uint8_t code[] = {
		0x4c, 0x8d, 0x35, 0x19, 0x00, 0x00, 0x00,	/* 0: lea T(%rip),%r14 (T = 0x20) */
		0x0f, 0xb6, 0x07,				/* 7: movzbl (%rdi),%eax */
		0x49, 0x8b, 0x04, 0xc6,				/* a: mov (%r14,%rax,8),%rax */
		0xff, 0xe0,					/* e: jmp *%rax */
		0x53, 0x5b, 0xc3, 0x53, 0x5b, 0xc3,		/* 10, 13: handlers */
	};
	const uint64_t table[2] = { A(0x10), A(0x13) };
	struct sfw_fre f[5] = { sp_row(0, 8, 0), sp_row(0x11, 16, 0), sp_row(0x12, 8, 0),
				sp_row(0x14, 16, 0), sp_row(0x15, 8, 0) };

	put(0, code, sizeof(code));
	put(0x20, (const uint8_t *)table, sizeof(table));
	mini_fn(&m, 0, sizeof(code), f, 5);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0, "%zu findings, the first %s", r.n,
		     r.n ? verify_why_name(r.f[0].why) : "");
	cr_assert_eq(r.st.decided, 10);
}

/*
 * B ends with a call to C, which never returns: B does not return either
 * (nothing follows its call), and A's code after its call to B is reached
 * only by A's own jump.
 */
Test(interp, function_ending_in_a_call_does_not_return)
{
	static const uint8_t a[] = { 0x85, 0xff, 0x75, 0x06, 0x50, 0xe8, 0x06, 0x00, 0x00, 0x00,
				     0xc3 };
	static const uint8_t b[] = { 0x50, 0xe8, 0x0a, 0x00, 0x00, 0x00 };	/* push; call 0x20 */
	static const uint8_t c[] = { 0xeb, 0xfe };
	struct sfw_fre fa[3] = { sp_row(0, 8, 0), sp_row(5, 16, 0), sp_row(0xa, 8, 0) };
	struct sfw_fre fb[2] = { sp_row(0, 8, 0), sp_row(1, 16, 0) };
	struct sfw_fre fc[1] = { sp_row(0, 8, 0) };

	put(0, a, sizeof(a));
	put(0x10, b, sizeof(b));
	put(0x20, c, sizeof(c));
	mini_fn(&m, 0, sizeof(a), fa, 3);
	mini_fn(&m, 0x10, sizeof(b), fb, 2);
	mini_fn(&m, 0x20, sizeof(c), fc, 1);
	mini_run(&m, &r);
	cr_assert_eq(r.n, 0, "%zu findings, the first %s", r.n,
		     r.n ? verify_why_name(r.f[0].why) : "");
	cr_assert_eq(r.st.undecided, 0);
}
