// SPDX-License-Identifier: GPL-2.0
/*
 * Samples in the first .plt.sec stub of an -fcf-protection -z ibtplt
 * binary: abs@plt -> call_loop -> spin_plt -> main (binutils PR ld/32296).
 *
 * In the stub ("endbr64; jmp *GOT(%rip)") the return address is at RSP:
 * CFA = RSP + 8. ld 2.40 (Debian 12) gives the first .plt.sec stub PLT0's
 * SFrame rows instead (CFA = RSP + 16, then + 24: PLT0 has pushed a word),
 * so our walk reads the return address from the word above it, which
 * call_loop keeps 0: the walk ends at frame 0 with RA 0 through a row that
 * is not outermost, while libunwind (ld's .eh_frame for the stubs is
 * right) goes on to call_loop, plausibly. Every sample in the stub is then
 * ours-wrong with the finding "ra-zero-not-outermost", and --check fails
 * (exit 3); no other sample is wrong. ld 2.44
 * (Debian 13) and 2.47 (sid) give the stub CFA = RSP + 8: the walk reaches
 * call_loop, spin_plt and main by SFrame and ends in libc (no SFrame there):
 * every stub sample is "ended", and --check passes.
 *
 * Which applies is read from the binary: the rows objdump --sframe shows
 * for the FDE at the first stub, PLT0's (the bug) or RSP + 8 alone (fixed).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "objdump_sframe.h"
#include "verdict_run.h"

#define PROG VERDICT_DIR "/ibt_plt"

/* The first function objdump -d shows in @section: its address and name. */
static unsigned long long first_entry(const char *section, char *name, size_t size)
{
	char cmd[512], line[512], sym[128];
	unsigned long long addr = 0, a;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump -d -j %s '%s'", section, PROG);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p))
		if (!addr && sscanf(line, "%llx <%127[^>]>:", &a, sym) == 2) {
			addr = a;
			snprintf(name, size, "%s", sym);
		}
	pclose(p);
	cr_assert_neq(addr, 0, "no code in %s of %s", section, PROG);
	return addr;
}

/* The CFA column of the rows of the SFrame FDE that starts at @pc ("sp+16 sp+24 "). */
static void fde_rows(unsigned long long pc, char *out, size_t size)
{
	cr_assert_eq(objdump_sframe_cfa(PROG, pc, out, size), 0, "objdump --sframe %s", PROG);
}

/* Is frame 0 of @s in the stub at [*@stub, *@stub + 16)? Named "[ibt_plt+0xOFF]". */
static bool in_stub(json_t *s, const void *stub)
{
	unsigned long long off, at = *(const unsigned long long *)stub;

	return sscanf(verdict_str(verdict_frame(s, false, 0), "symbol"), "[ibt_plt+0x%llx]", &off) == 1 &&
	       off >= at && off < at + 16;
}

Test(verdict, ibt_plt)
{
	char name[128], plt0_rows[256], stub_rows[256];
	unsigned long long plt0, stub;
	const struct verdict_place place = {
		in_stub, &stub, 21, "samples in the first .plt.sec stub"
	};
	struct verdict_run v;
	size_t i, in = 0, n_wrong = 0;
	bool bug;
	json_t *s;

	plt0 = first_entry(".plt", name, sizeof(name));
	stub = first_entry(".plt.sec", name, sizeof(name));
	cr_assert_str_eq(name, "abs@plt", "the first .plt.sec stub is %s", name);
	fde_rows(plt0, plt0_rows, sizeof(plt0_rows));
	fde_rows(stub, stub_rows, sizeof(stub_rows));
	cr_assert_str_eq(plt0_rows, "sp+16 sp+24 ");
	bug = !strcmp(stub_rows, plt0_rows);
	cr_assert(bug || !strcmp(stub_rows, "sp+8 "), "the first stub's rows: %s", stub_rows);
	cr_log_info("ibt_plt: the first .plt.sec stub has %s rows", bug ? "PLT0's" : "its own");

	verdict_run_until(&v, "ibt_plt", NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, bug ? 3 : 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "ibt_plt: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!in_stub(s, &stub))
			continue;
		in++;
		if (bug) {
			/* RA 0 from the word above the return address; libunwind goes on */
			cr_assert(verdict_is(s, "class", "ours-wrong") &&
				  verdict_is(s, "why", "ra-zero-not-outermost") &&
				  verdict_is(s, "stop", "ra-zero") && verdict_frames(s, false) == 1 &&
				  verdict_sym_in(verdict_frame(s, true, 1), "call_loop"), "%s", json_dumps(s, 0));
			n_wrong++;
			continue;
		}
		cr_assert(verdict_sym_in(verdict_frame(s, false, 1), "call_loop") &&
			  verdict_source_is(verdict_frame(s, false, 1), "sframe") &&
			  verdict_sym_in(verdict_frame(s, false, 2), "spin_plt") && verdict_sym_in(verdict_frame(s, false, 3), "main") &&
			  verdict_covered(s) >= 4, "%s", json_dumps(s, 0));
		cr_assert(verdict_is(s, "class", "ended") && verdict_is(s, "outcome", "verified"),
			  "%s", json_dumps(s, 0));
	}
	cr_assert_gt(in, 20, "%zu samples in the first .plt.sec stub", in);
	/* the stub's samples are the only wrong ones */
	cr_assert_eq(verdict_count(&v, "ours_wrong"), (long long)n_wrong);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)n_wrong,
		     verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	verdict_free(&v);
}
