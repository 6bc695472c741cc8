// SPDX-License-Identifier: GPL-2.0
/*
 * A signal at a function's first instruction: handler_spin -> __restore_rt
 * -> [signal frame] -> spin_at_entry+0x0 -> entry_caller -> main.
 *
 * spin_at_entry is one "loop" instruction, so the interrupted IP is always
 * its entry, where the return address is at RSP. After the signal step the
 * IP is exact: its row is spin_at_entry's own (CFA = RSP + 8), which gives
 * entry_caller. Looked up as a return address (IP - 1) it would be die_now's
 * last row (CFA = RBP + 16) and, entry_caller keeping a frame pointer, the
 * next frame would be main: one frame skipped, and a call-target mismatch
 * for the oracle. libunwind knows glibc's __restore_rt and walks the same
 * frames, then on through libc, where ours ends (libc has no SFrame on any of
 * the three toolchains): every handler sample is "ended" and verified.
 * Samples in the loop itself (frame 0 at spin_at_entry+0x0) go the same way
 * from there. --check passes.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

/* The walk's frames @at.. are spin_at_entry+0x0 (reached by @how), entry_caller, main. */
static void check_from_entry(json_t *s, size_t at, const char *how)
{
	json_t *entry = verdict_frame(s, false, at), *caller = verdict_frame(s, false, at + 1), *top = verdict_frame(s, false, at + 2);

	cr_assert(verdict_sym_is(entry, "spin_at_entry+0x0") && verdict_source_is(entry, how),
		  "%s", json_dumps(s, 0));
	cr_assert(at == 0 || (verdict_exact(entry) && verdict_plausible(entry)), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(caller, "entry_caller") && verdict_source_is(caller, "sframe") &&
		  verdict_plausible(caller), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(top, "main") && verdict_source_is(top, "sframe") && verdict_plausible(top),
		  "%s", json_dumps(s, 0));
	cr_assert_geq(verdict_covered(s), (long long)at + 3, "%s", json_dumps(s, 0));
	cr_assert(verdict_is(s, "class", "ended") && verdict_is(s, "outcome", "verified") &&
		  json_is_true(json_object_get(s, "agrees")), "%s", json_dumps(s, 0));
}

Test(verdict, signal_first_insn)
{
	static const struct verdict_place places[] = {
		{ verdict_in_function, "handler_spin", 21, "samples in the handler" },
		{ verdict_in_function, "spin_at_entry", 21, "samples in spin_at_entry" },
	};
	struct verdict_run v;
	size_t i, in_handler = 0, in_loop = 0;
	json_t *s;

	verdict_run_until(&v, "signal_first_insn", NULL, NULL, places, 2);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "signal_first_insn: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_frame0_in(s, "handler_spin")) {
			json_t *tramp = verdict_frame(s, false, 1);

			in_handler++;
			cr_assert(verdict_source_is(tramp, "sframe") && verdict_exact(tramp) &&
				  verdict_plausible(tramp), "%s", json_dumps(s, 0));
			check_from_entry(s, 2, "signal");
		} else if (verdict_frame0_in(s, "spin_at_entry")) {
			in_loop++;
			check_from_entry(s, 0, "regs");
		}
	}
	cr_assert_gt(in_handler, 20, "%zu samples in the handler", in_handler);
	cr_assert_gt(in_loop, 20, "%zu samples in spin_at_entry", in_loop);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
		     verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	verdict_free(&v);
}
