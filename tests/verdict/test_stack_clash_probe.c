// SPDX-License-Identifier: GPL-2.0
/*
 * A -fstack-clash-protection probe loop (progs/stack_clash_probe.c):
 * thread_probe -> probe_big, spinning in the loop that probes probe_big's
 * 1 MiB frame a page at a time, whose CFI say CFA = %r11 + N. What the
 * assembler made of that row is read from the binary (objdump --sframe):
 *
 *  - an SP-based row, CFA = SP + N (gas 2.40, Debian 12): wrong in every
 *    iteration but the last. A walk by it reads the return address a page
 *    or more above the frame, in the guard above the thread's stack: the
 *    read faults at frame 0, while libunwind (.eh_frame is right) goes on
 *    to thread_probe, plausibly. Every such sample is ours-wrong, why
 *    "row-fault", the reason naming the row ("read-fault stepping by the
 *    SFrame row at IP (CFA = sp +N, RA at CFA -8); libunwind goes on"), and
 *    --check fails (exit 3). Only a sample in the last iteration (SP = %r11)
 *    walks on to thread_probe, verified. Before row faults were findings,
 *    these samples were "sframe-shorter ... read-fault" and passed.
 *  - no FDE for probe_big (gas 2.44, Debian 13: "non-SP/FP register 11 in
 *    .cfi_def_cfa"): our walk leaves frame 0 by the frame-pointer fallback,
 *    %rbp being 0 in the thread: ended, "no SFrame FDE for
 *    stack_clash_probe", covered 1; --check passes.
 *  - a FLEX row CFA = r11 + N (gas 2.47, sid): right; our walk reaches
 *    thread_probe and raw_clone by SFrame, then reads RA 0 from the zeroed
 *    top of the thread's stack, where libunwind 1.8 ends too: match (with
 *    libunwind 1.6 its extra frame at IP 0 is no code: libunwind-failed, as
 *    in raw_clone); --check passes.
 *
 * The return address is 1 MiB above SP, past any stack copy: the samples
 * are taken with --sampler stop, every walk made on the stopped thread.
 */
#include <criterion/criterion.h>
#include <libunwind.h>
#include <stdio.h>
#include <string.h>

#include "verdict_run.h"

#define PROG VERDICT_DIR "/stack_clash_probe"
#define LIBUNWIND_ENDS_AT_RA_ZERO (UNW_VERSION >= UNW_VERSION_CODE(1, 8))
#define MAX_FDE_ROWS 16

enum encoding { NO_FDE, SP_ROW, FLEX_ROW };

/* probe_big's address, from nm. */
static unsigned long long function_address(const char *fn)
{
	char cmd[512], line[512], name[128];
	unsigned long long addr = 0, a;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm '%s'", PROG);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%llx %*s %127s", &a, name) == 2 && !strcmp(name, fn))
			addr = a;
	pclose(p);
	cr_assert_neq(addr, 0, "no %s in %s", fn, PROG);
	return addr;
}

/*
 * How the probe loop's row was encoded, and (SP_ROW) the loop's offsets
 * [@lo, @hi) and the CFA offset @cfa of its row: the first row after the
 * entry's, up to the next.
 */
static enum encoding probe_row(unsigned long long fn, unsigned long long *lo,
			       unsigned long long *hi, long long *cfa)
{
	struct verdict_row rows[MAX_FDE_ROWS];
	size_t n = verdict_fde_rows(PROG, fn, rows, MAX_FDE_ROWS), i;

	if (!n)
		return NO_FDE;
	for (i = 0; i < n; i++)
		if (!strncmp(rows[i].cfa, "r11+", 4))
			return FLEX_ROW;
	cr_assert(n >= 3 && sscanf(rows[1].cfa, "sp+%lld", cfa) == 1 &&
		  *cfa > (1 << 20) - 8192 && *cfa < (1 << 20) + 64,
		  "probe_big's rows are not the probe loop's");
	*lo = rows[1].off;
	*hi = rows[2].off;
	return SP_ROW;
}

/* Is @s's frame 0 in probe_big? */
static bool in_probe_big(json_t *s, const void *ctx)
{
	(void)ctx;
	return verdict_frame0_offset(s, "probe_big") >= 0;
}

/* A sample the walk by a wrong row ends at: frame 0, read fault, libunwind goes on. */
static bool check_row_fault(json_t *s, long long cfa)
{
	char reason[256];

	if (verdict_frames(s, false) > 1) {
		/* the last iteration: SP = %r11, the row is right there */
		cr_assert(verdict_sym_in(verdict_frame(s, false, 1), "thread_probe") &&
			  verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
		return false;
	}
	snprintf(reason, sizeof(reason),
		 "read-fault stepping by the SFrame row at %s (CFA = sp %+lld, RA at CFA -8); "
		 "libunwind goes on", verdict_str(verdict_frame(s, false, 0), "ip"), cfa);
	cr_assert(verdict_class_is(s, "ours-wrong") && verdict_is(s, "why", "row-fault") &&
		  verdict_is(s, "stop", "read-fault") && verdict_covered(s) == 1,
		  "%s", json_dumps(s, 0));
	cr_assert_str_eq(verdict_str(s, "reason"), reason);
	cr_assert(verdict_sym_in(verdict_frame(s, true, 1), "thread_probe") &&
		  verdict_plausible(verdict_frame(s, true, 1)), "%s", json_dumps(s, 0));
	return true;
}

/* A sample walked by right rows: thread_probe -> raw_clone, then RA 0 (as in raw_clone). */
static void check_right(json_t *s)
{
	cr_assert(verdict_is(s, "outcome", "verified") && verdict_is(s, "stop", "ra-zero") &&
		  verdict_covered(s) == (long long)verdict_frames(s, false),
		  "%s", json_dumps(s, 0));
	cr_assert(verdict_class_is(s, LIBUNWIND_ENDS_AT_RA_ZERO ? "match" : "libunwind-failed"),
		  "%s", json_dumps(s, 0));
}

/* No FDE: frame 0 alone is covered, the fallback stops at once (%rbp 0). */
static void check_no_fde(json_t *s)
{
	cr_assert(verdict_class_is(s, "ended") && verdict_is(s, "outcome", "verified") &&
		  verdict_covered(s) == 1, "%s", json_dumps(s, 0));
	cr_assert_str_eq(verdict_str(s, "reason"), "no SFrame FDE for stack_clash_probe: "
			 "frame-pointer fallback stopped: fp-below-sp");
	cr_assert(verdict_sym_in(verdict_frame(s, true, 1), "thread_probe"),
		  "%s", json_dumps(s, 0));
}

Test(verdict, stack_clash_probe)
{
	const struct verdict_place place = { in_probe_big, NULL, 21, "samples in probe_big" };
	const char *const stop[] = { "--sampler", "stop", NULL };
	unsigned long long fn = function_address("probe_big"), lo = 0, hi = 0;
	size_t i, in_fn = 0, in_loop = 0, faulted = 0;
	long long off, cfa = 0;
	struct verdict_run v;
	enum encoding enc;
	json_t *s, *wrong_frames;

	enc = probe_row(fn, &lo, &hi, &cfa);
	cr_log_info("stack_clash_probe: %s", enc == NO_FDE ? "no FDE for probe_big" :
		    enc == FLEX_ROW ? "FLEX row CFA = r11 + N" : "SP-based probe-loop row");
	verdict_run_until(&v, "stack_clash_probe", stop, NULL, &place, 1);
	cr_assert_eq(v.r.status, enc == SP_ROW ? 3 : 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "stack_clash_probe: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!in_probe_big(s, NULL) && verdict_frame0_in(s, "thread_probe")) {
			check_right(s);
			continue;
		}
		if (!in_probe_big(s, NULL)) {
			/* the program starting (ld.so) or ending: no SFrame step is wrong */
			cr_assert(verdict_system_skip(s) || verdict_is(s, "outcome", "verified"),
				  "%s", json_dumps(s, 0));
			continue;
		}
		in_fn++;
		off = verdict_frame0_offset(s, "probe_big");
		if (enc == NO_FDE) {
			check_no_fde(s);
		} else if (enc == SP_ROW && (unsigned long long)off >= lo &&
			   (unsigned long long)off < hi) {
			in_loop++;
			faulted += check_row_fault(s, cfa);
		} else {
			cr_assert(verdict_sym_in(verdict_frame(s, false, 1), "thread_probe") &&
				  verdict_source_is(verdict_frame(s, false, 1), "sframe"),
				  "%s", json_dumps(s, 0));
			check_right(s);
		}
	}
	cr_assert_gt(in_fn, 20, "%zu samples in probe_big", in_fn);
	if (enc == SP_ROW) {
		/* the loop is nearly all of probe_big's time; its last iteration a 255th of it */
		cr_assert_gt(in_loop, in_fn * 9 / 10, "%zu of %zu in the loop", in_loop, in_fn);
		cr_assert_geq(faulted, in_loop - in_loop / 20 - 2, "%zu of %zu faulted",
			      faulted, in_loop);
	}
	cr_assert_eq(verdict_count(&v, "ours_wrong"), (long long)faulted);
	wrong_frames = json_object_get(json_object_get(v.j, "samples"), "wrong_frames");
	cr_assert_eq(json_integer_value(json_object_get(wrong_frames, "row-fault")),
		     (long long)faulted);
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")),
		     (long long)faulted);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)faulted,
		     verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	verdict_free(&v);
}
