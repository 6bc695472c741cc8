// SPDX-License-Identifier: GPL-2.0
/*
 * A raw clone's thread with its parent's %rbp (progs/raw_clone_fp.c): the
 * thread spins in spin_nocfi, which has no unwind data and builds no
 * frame, while %rbp still points at main's frame record on the main
 * thread's stack.
 *
 * Our walk leaves spin_nocfi by the frame-pointer fallback; the frame %rbp
 * points at is not on the thread's own stack (its anonymous mapping), so
 * the walk stops at frame 0 with "left-stack". libunwind (no CFI there)
 * stops at frame 0 too, with libunwind 1.6 and 1.8: every such sample is a
 * match of one frame, verified, and --check passes. No sample of the
 * thread may show a frame of the main thread's stack (main,
 * __libc_start_call_main, ...): before stack bounds, the fallback went on
 * there, "spin_nocfi -> __libc_start_call_main", and stopped at
 * fp-below-sp.
 *
 * Samples in keep_spinning and the vDSO (spin_nocfi's callees) reach
 * spin_nocfi by SFrame or the fallback and stop there the same way.
 *
 * The thread's first samples are taken before codectl-run's cached
 * mappings hold the thread's new stack: their bounds come from mappings
 * read after the stop, so they stop there too. A sample of the thread
 * still in raw_clone_keep_fp, right after the clone, steps by its
 * FP-based row into the parent's stack, which no copy of the thread's
 * holds: past-copy, never judged.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

/* Functions whose frames live on the main thread's stack. */
static const char *const main_stack_fns[] = {
	"main", "__libc_start_call_main", "__libc_start_main", "_start",
};

static bool is_thread(json_t *s)
{
	return json_integer_value(json_object_get(s, "tid")) !=
	       json_integer_value(json_object_get(s, "pid"));
}

/* Is @s a sample of the thread in spin_nocfi? */
static bool in_spin_nocfi(json_t *s, const void *ctx)
{
	(void)ctx;
	return is_thread(s) && verdict_frame0_in(s, "spin_nocfi");
}

/* No frame of @s, ours nor libunwind's, from the main thread's stack; our last is spin_nocfi's. */
static void check_own_stack(json_t *s)
{
	size_t k, n = verdict_frames(s, false), j;

	for (k = 0; k < n; k++)
		for (j = 0; j < sizeof(main_stack_fns) / sizeof(main_stack_fns[0]); j++)
			cr_assert(!verdict_sym_in(verdict_frame(s, false, k), main_stack_fns[j]) &&
				  !verdict_sym_in(verdict_frame(s, true, k), main_stack_fns[j]),
				  "frame %zu from the main thread's stack: %s",
				  k, json_dumps(s, 0));
	if (verdict_sym_in(verdict_frame(s, false, n - 1), "spin_nocfi"))
		cr_assert(verdict_is(s, "stop", "left-stack"), "%s", json_dumps(s, 0));
}

Test(verdict, raw_clone_fp)
{
	const struct verdict_place place = { in_spin_nocfi, NULL, 21, "samples in spin_nocfi" };
	struct verdict_run v;
	size_t i, in_spin = 0, in_thread = 0, left = 0, past = 0;
	json_t *s;

	verdict_run_until(&v, "raw_clone_fp", NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "raw_clone_fp: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (is_thread(s) && verdict_frame0_in(s, "raw_clone_keep_fp")) {
			/*
			 * Right after the clone, before spin_nocfi: the parent's
			 * %rbp and an FP-based row, whose step reads the parent's
			 * stack, not the copy's: read late, never judged.
			 */
			cr_assert(verdict_is(s, "outcome", "past-copy"), "%s", json_dumps(s, 0));
			past++;
			continue;
		}
		if (verdict_system_skip(s))
			continue;
		cr_assert(verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
		if (!is_thread(s))
			continue;
		in_thread++;
		check_own_stack(s);
		left += verdict_is(s, "stop", "left-stack");
		if (!in_spin_nocfi(s, NULL))
			continue;
		in_spin++;
		/* a match: libunwind's frames are ours (the JSON leaves them out) */
		cr_assert(verdict_frames(s, false) == 1 && verdict_is(s, "stop", "left-stack") &&
			  verdict_covered(s) == 1 && verdict_class_is(s, "match"),
			  "%s", json_dumps(s, 0));
	}
	cr_assert_gt(in_spin, 20, "%zu samples in spin_nocfi", in_spin);
	cr_assert_geq(left, in_spin);
	cr_assert_leq(left, in_thread);
	cr_assert_geq(verdict_count(&v, "match"), (long long)in_spin);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
	             verdict_count(&v, "total") - (long long)past);
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	verdict_free(&v);
}
