// SPDX-License-Identifier: GPL-2.0
/*
 * Nested handlers and a siglongjmp out of them
 * (progs/signal_trampoline_named.c). A sample in inner_handler (on the
 * alternate signal stack) walks:
 *
 *	0 inner_handler			regs
 *	1 __restore_rt			sframe, exact, signal_trampoline
 *	2 outer_handler (after tgkill)	signal, exact
 *	3 __restore_rt			sframe, exact, signal_trampoline
 *	4 outer_spin (after tgkill)	signal, exact
 *	5 run_signals			sframe
 *	6 main				sframe
 *	7 __libc_start_call_main	sframe, where coverage ends (libc has no .sframe)
 *
 * Each trampoline is recognised by its code (glibc's restorer: mov $15,%rax;
 * syscall), marked as a signal trampoline in the JSON, and stepped through
 * to the interrupted frame, whose IP is exact. libunwind knows glibc's
 * restorer too and has the same frames: ended (or astray past
 * __libc_start_call_main: verdict_ended_in_libc()), verified. After the
 * siglongjmp (spin_for, tail-called by spin_after, -> run_signals -> main)
 * no handler, trampoline or signal frame is left on the stack: ended,
 * verified. --check passes.
 *
 * Run with --sampler stop: a ring sample's stack copy holds the alternate
 * stack only, so the frames on the main stack (outer_spin's caller on) are
 * read after the thread ran on, past-copy, never verified; by then the
 * siglongjmp may have put spin_after's frame where outer_spin's was.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

static const char *const handler_frames[] = {
	"inner_handler", "__restore_rt", "outer_handler", "__restore_rt", "outer_spin",
	"run_signals", "main", "__libc_start_call_main",
};

static bool is_trampoline(json_t *f)
{
	return json_is_true(json_object_get(f, "signal_trampoline"));
}

static void check_handler_sample(json_t *s)
{
	size_t k;

	cr_assert(verdict_ended_in_libc(s) && verdict_is(s, "outcome", "verified") &&
		  verdict_covered(s) == 8, "%s", json_dumps(s, 0));
	for (k = 0; k < 8; k++) {
		json_t *f = verdict_frame(s, false, k), *ref = verdict_frame(s, true, k);
		bool tramp = k == 1 || k == 3, interrupted = k == 2 || k == 4;

		cr_assert(verdict_sym_in(f, handler_frames[k]),
			  "frame %zu: %s", k, json_dumps(s, 0));
		cr_assert(verdict_ip(f) == verdict_ip(ref), "frame %zu: %s", k, json_dumps(s, 0));
		cr_assert_eq(is_trampoline(f), tramp, "frame %zu: %s", k, json_dumps(s, 0));
		if (!k)
			continue;
		cr_assert(verdict_source_is(f, interrupted ? "signal" : "sframe") &&
			  verdict_exact(f) == (tramp || interrupted) && !verdict_implausible(f),
			  "frame %zu: %s", k, json_dumps(s, 0));
		if (tramp)
			cr_assert(verdict_sym_is(f, "__restore_rt+0x0") && verdict_plausible(f),
				  "frame %zu: %s", k, json_dumps(s, 0));
	}
}

/* After the siglongjmp: spin_for -> run_signals -> main, nothing of the handlers. */
static void check_after_sample(json_t *s)
{
	size_t k;

	cr_assert(verdict_ended_in_libc(s) && verdict_is(s, "outcome", "verified") &&
		  verdict_sym_in(verdict_frame(s, false, 1), "run_signals") &&
		  verdict_sym_in(verdict_frame(s, false, 2), "main"), "%s", json_dumps(s, 0));
	for (k = 0; k < verdict_frames(s, false); k++) {
		json_t *f = verdict_frame(s, false, k);

		cr_assert(!is_trampoline(f) && !verdict_source_is(f, "signal") &&
			  !verdict_sym_in(f, "inner_handler") &&
			  !verdict_sym_in(f, "outer_handler") &&
			  !verdict_sym_in(f, "outer_spin") && !verdict_sym_in(f, "__restore_rt"),
			  "stale frame %zu: %s", k, json_dumps(s, 0));
	}
}

Test(verdict, signal_trampoline_named)
{
	static const struct verdict_place places[] = {
		{ verdict_in_function, "inner_handler", 21, "samples in inner_handler" },
		{ verdict_in_function, "spin_for", 21, "samples after the siglongjmp" },
	};
	struct verdict_run v;
	size_t i, in_handler = 0, after = 0;
	json_t *s;

	verdict_run_until(&v, "signal_trampoline_named",
			  (const char *const[]){ "--sampler", "stop", NULL }, NULL, places, 2);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "signal_trampoline_named: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_system_skip(s))
			continue;
		cr_assert(verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
		if (verdict_frame0_in(s, "inner_handler")) {
			in_handler++;
			check_handler_sample(s);
		} else if (verdict_frame0_in(s, "spin_for")) {
			after++;
			check_after_sample(s);
		}
	}
	cr_assert_gt(in_handler, 20, "%zu samples in inner_handler", in_handler);
	cr_assert_gt(after, 20, "%zu samples after the siglongjmp", after);
	cr_assert_geq(verdict_count(&v, "ended") + verdict_count(&v, "astray"),
		      (long long)(in_handler + after));
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
	             verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	verdict_free(&v);
}

/*
 * With the ring sampler the copy holds the alternate stack only: every
 * handler sample's frames from the interrupted outer_spin's caller on are
 * read later (past-copy, whatever they hold by then), never verified nor
 * wrong; --check passes.
 */
Test(verdict, signal_trampoline_named_ring)
{
	struct verdict_run v;
	size_t i, in_handler = 0;
	json_t *s;

	verdict_run(&v, "signal_trampoline_named", NULL, NULL);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!verdict_frame0_in(s, "inner_handler"))
			continue;
		in_handler++;
		cr_assert(verdict_is(s, "outcome", "past-copy"), "%s", json_dumps(s, 0));
		cr_assert_leq(json_integer_value(json_object_get(s, "past_copy_from")), 5, "%s",
			      json_dumps(s, 0));
	}
	cr_assert_gt(in_handler, 0);
	cr_assert_eq(verdict_count(&v, "ours_wrong") + verdict_count(&v, "both_wrong"), 0);
	verdict_free(&v);
}
