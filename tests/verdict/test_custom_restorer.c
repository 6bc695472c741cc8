// SPDX-License-Identifier: GPL-2.0
/*
 * A handler installed with the program's own restorer (raw rt_sigaction,
 * SA_RESTORER): handler_spin -> custom_restore -> [signal frame] ->
 * spin_main -> main.
 *
 * custom_restore is "mov $15,%eax; syscall" right after prev_fn, so the
 * RA - 1 lookup for the trampoline frame finds prev_fn's FDE, ending at
 * the return address: our walk reads the code there, recognises the
 * trampoline and steps through the signal frame to the interrupted IP in
 * spin_main (source "signal", exact), then on by SFrame to main. libunwind
 * knows only glibc's "mov $15,%rax" trampoline, so it applies prev_fn's
 * CFI to the signal frame and reads uc_flags as a return address: its frame
 * 2 is no code, and the plausibility oracle names its walk the wrong one
 * (libunwind-failed). That is so with libunwind 1.6 (Debian 12) and 1.8
 * (Debian 13, sid). Before signal frames were stepped through, ours read
 * the same word ("prev_fn -> 0x2") and the two counted as agreeing.
 *
 * Samples in spin_main itself end where libc's frames start (libc has no
 * SFrame on any of the three toolchains): ended. --check passes.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

/* A sample in the handler: through the restorer's signal frame to spin_main, all verified. */
static void check_handler_sample(json_t *s)
{
	json_t *tramp = verdict_frame(s, false, 1), *intr = verdict_frame(s, false, 2), *caller = verdict_frame(s, false, 3);

	cr_assert_geq(verdict_frames(s, false), 4, "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_is(tramp, "custom_restore+0x0") && verdict_source_is(tramp, "sframe") &&
		  verdict_exact(tramp) && verdict_plausible(tramp), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(intr, "spin_main") && verdict_source_is(intr, "signal") &&
		  verdict_exact(intr) && verdict_plausible(intr), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(caller, "main") && verdict_source_is(caller, "sframe") &&
		  verdict_plausible(caller), "%s", json_dumps(s, 0));
	cr_assert_geq(verdict_covered(s), 4, "%s", json_dumps(s, 0));
	cr_assert(verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
	/* libunwind: the same trampoline address, then uc_flags (no code) */
	cr_assert(verdict_is(s, "class", "libunwind-failed") && verdict_is(s, "why", "not-code"),
		  "%s", json_dumps(s, 0));
	cr_assert(verdict_frames(s, true) >= 3 &&
		  !strcmp(verdict_str(verdict_frame(s, true, 1), "ip"), verdict_str(tramp, "ip")) &&
		  verdict_implausible(verdict_frame(s, true, 2)), "%s", json_dumps(s, 0));
}

Test(verdict, custom_restorer)
{
	static const struct verdict_place places[] = {
		{ verdict_in_function, "handler_spin", 21, "samples in the handler" },
		{ verdict_in_function, "spin_main", 21, "samples in spin_main" },
	};
	struct verdict_run v;
	size_t i, in_handler = 0, in_main = 0;
	json_t *s;

	verdict_run_until(&v, "custom_restorer", NULL, NULL, places, 2);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "custom_restorer: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_frame0_in(s, "handler_spin")) {
			in_handler++;
			check_handler_sample(s);
		} else if (verdict_frame0_in(s, "spin_main")) {
			in_main++;
			cr_assert(verdict_is(s, "class", "ended") && verdict_sym_in(verdict_frame(s, false, 1), "main") &&
				  verdict_covered(s) == (long long)verdict_frames(s, false), "%s", json_dumps(s, 0));
		}
	}
	cr_assert_gt(in_handler, 20, "%zu samples in the handler", in_handler);
	cr_assert_gt(in_main, 20, "%zu samples in spin_main", in_main);
	cr_assert_geq(verdict_count(&v, "libunwind_failed"), (long long)in_handler);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
	             verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	verdict_free(&v);
}
