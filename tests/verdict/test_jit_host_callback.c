// SPDX-License-Identifier: GPL-2.0
/*
 * A JIT's C callback without SFrame (progs/jit_host_callback.c): in c_work
 * our walk has frame 0 alone covered, and the frame-pointer fallback reads
 * run_jit's frame (c_work keeps no frame pointer), landing in main past
 * jit_call and run_jit. libunwind steps from c_work by its CFI to jit_call.
 * Such a sample is astray, fallback_skipped, and unverifiable: right in its
 * covered part, wrong as a stack, never verified (before: verified, and the
 * report said every sample was). Not a --check failure: the unwind data that
 * exists is right. Everywhere else (jit_call, run_jit, main) every sample
 * is verified; in ld.so and libc (no SFrame on Debian 12) a sample whose
 * fallback skips a frame is unverifiable too.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

static void check_skipped(json_t *s)
{
	json_t *ours = verdict_frame(s, false, 1), *ref = verdict_frame(s, true, 1);

	cr_assert(verdict_class_is(s, "astray"), "%s", json_dumps(s, 0));
	cr_assert(json_is_true(json_object_get(s, "fallback_skipped")), "%s", json_dumps(s, 0));
	cr_assert_str_eq(verdict_str(s, "outcome"), "unverifiable");
	cr_assert_eq(verdict_covered(s), 1);
	cr_assert(verdict_source_is(ours, "fp") && verdict_sym_in(ours, "main"), "%s",
		  json_dumps(s, 0));
	cr_assert(verdict_sym_in(ref, "jit_call"), "%s", json_dumps(s, 0));
	cr_assert_str_eq(verdict_str(s, "reason"),
			 "no .sframe in libjithost.so: frame-pointer fallback");
}

Test(verdict, jit_host_callback)
{
	const struct verdict_place place = { verdict_in_function, "c_work", 21,
					     "samples in c_work" };
	struct verdict_run v;
	size_t i, in_c_work = 0, in_libs = 0;
	json_t *s;

	verdict_run_until(&v, "jit_host_callback", NULL, NULL, &place, 1);
	verdict_remove_perf_map(&v);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "jit_host_callback: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_frame0_in(s, "c_work")) {
			in_c_work++;
			check_skipped(s);
		} else if (verdict_system_skip(s)) {
			in_libs++;
		} else {
			cr_assert_str_eq(verdict_str(s, "outcome"), "verified", "%s",
					 json_dumps(s, 0));
		}
	}
	cr_assert_gt(in_c_work, 20, "%zu samples in c_work", in_c_work);
	cr_assert_eq(verdict_count(&v, "fallback_skipped"), (long long)(in_c_work + in_libs));
	cr_assert_eq(verdict_count(&v, "unverifiable"), (long long)(in_c_work + in_libs));
	cr_assert_eq(verdict_count(&v, "verified") + (long long)(in_c_work + in_libs),
		     verdict_count(&v, "total"));
	verdict_free(&v);
}
