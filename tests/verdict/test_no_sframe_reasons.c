// SPDX-License-Identifier: GPL-2.0
/*
 * Why unwind data is missing (progs/no_sframe_reasons.c), spinning in
 * reason_inner of three copies of one library (frame pointers kept):
 *
 * (a) libreasons-gc.so, linked with --gc-sections and dlopened. Whether
 *     .sframe survived is read from the file (readelf -S): ld 2.40 (Debian
 *     12) and 2.44 (Debian 13) drop it, ld 2.47 (sid) keeps it.
 *      - dropped: our walk has frame 0 alone covered and goes on by the
 *        frame-pointer fallback, to the same frames as libunwind, up to libc:
 *        ended, reason "no .sframe in libreasons-gc.so: frame-pointer
 *        fallback" (before: "no registration for ...", as if the loader had
 *        not registered it);
 *      - kept: the loader module registers it; the walk is covered up to
 *        libc, where it ends: "no .sframe in libc.so.6: ...".
 *     (Ended, or astray past __libc_start_call_main, where the fallback
 *     finds what %rbp holds there: verdict_ended_in_libc().)
 * (b) libreasons-order.so, mapped by the program and registered with a
 *     copy of its .sframe whose first two FDEs are swapped: refused
 *     (EINVAL, sframe-fde-order; the program prints it). Its samples are
 *     ended like (a)'s, reason "refused (sframe-fde-order):
 *     libreasons-order.so: frame-pointer fallback" (before: "no
 *     registration for ...").
 * (c) libreasons-stale.so, mapped by the program and registered, then
 *     unmapped: codectl-run drops the registration as stale when a refused
 *     call makes it read the mappings; libreasons-new.so (same bytes,
 *     another file) is mapped where it was, unregistered. Its samples are
 *     ended like (a)'s, reason "stale registration: libreasons-new.so:
 *     frame-pointer fallback" (before: "no registration for ...").
 * The per-place list ("places" in the JSON) holds exactly these reasons
 * with their sample counts. Every sample is verified, but for the few whose
 * fallback skips a frame (unverifiable) and any read past the stack copy
 * (past-copy); --check passes.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "verdict_run.h"

#define GC_LIB VERDICT_DIR "/libreasons-gc.so"
#define GC_DROPPED "no .sframe in libreasons-gc.so: frame-pointer fallback"
#define REFUSED "refused (sframe-fde-order): libreasons-order.so: frame-pointer fallback"
#define STALE "stale registration: libreasons-new.so: frame-pointer fallback"
#define LIBC_END "no .sframe in libc.so.6: frame-pointer fallback"

/* Does readelf -S show a .sframe section in @path? */
static bool has_sframe(const char *path)
{
	char cmd[512], line[512];
	bool found = false;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "readelf -SW '%s'", path);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p))
		found |= strstr(line, " .sframe ") != NULL;
	cr_assert_eq(pclose(p), 0, "%s", cmd);
	return found;
}

/* Is @s in reason_inner of the library @runner ("run_gc", "run_order", "run_stale") calls? */
static bool in_lib(json_t *s, const void *runner)
{
	return verdict_frame0_in(s, "reason_inner") && verdict_through(s, runner);
}

/*
 * Frame 0 alone covered, the fallback to reason_spin, the walks equal up to
 * libc: verified; true. Or, in reason_inner where %rbp is still its caller's
 * (its push and mov, its pop and ret: a few cycles of a call that spins a
 * million iterations), the fallback skips reason_spin, which libunwind has
 * by unwind data: astray, fallback_skipped, unverifiable; false.
 */
static bool check_uncovered(json_t *s, const char *reason)
{
	json_t *f1 = verdict_frame(s, false, 1), *ref1 = verdict_frame(s, true, 1);

	cr_assert_eq(verdict_covered(s), 1, "%s", json_dumps(s, 0));
	cr_assert_str_eq(verdict_str(s, "reason"), reason, "%s", json_dumps(s, 0));
	if (!verdict_sym_in(f1, "reason_spin")) {
		cr_assert(verdict_frame0_in(s, "reason_inner") && verdict_class_is(s, "astray") &&
			  verdict_source_is(f1, "fp") && verdict_sym_in(ref1, "reason_spin") &&
			  verdict_ip(verdict_frame(s, true, 2)) == verdict_ip(f1) &&
			  verdict_is(s, "outcome", "unverifiable") &&
			  json_is_true(json_object_get(s, "fallback_skipped")),
			  "%s", json_dumps(s, 0));
		return false;
	}
	cr_assert(verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
	cr_assert(verdict_ended_in_libc(s), "%s", json_dumps(s, 0));
	cr_assert(verdict_source_is(f1, "fp") && verdict_plausible(f1) &&
		  verdict_ip(f1) == verdict_ip(ref1), "%s", json_dumps(s, 0));
	return true;
}

Test(verdict, no_sframe_reasons)
{
	static const struct verdict_place places[] = {
		{ in_lib, "run_gc", 21, "samples in libreasons-gc.so" },
		{ in_lib, "run_order", 21, "samples in libreasons-order.so" },
		{ in_lib, "run_stale", 21, "samples in libreasons-new.so" },
	};
	bool kept = has_sframe(GC_LIB);
	size_t i, in_gc = 0, in_order = 0, in_stale = 0, n_refused = 0, n_dropped = 0, n_stale = 0;
	size_t skipped = 0, fallback_skipped = 0, past = 0, past_diverged = 0;
	struct verdict_run v;
	json_t *s;

	cr_log_info("no_sframe_reasons: ld %s .sframe with --gc-sections",
		    kept ? "keeps" : "drops");
	verdict_run_until(&v, "no_sframe_reasons", NULL, NULL, places, 3);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "no_sframe_reasons: unsorted .sframe refused: EINVAL\n"
				  "no_sframe_reasons: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_is(s, "outcome", "past-copy")) {
			past++;	/* the stack copy ended at a page not resident yet */
			past_diverged += verdict_class_is(s, "diverged");
			continue;
		}
		fallback_skipped += json_is_true(json_object_get(s, "fallback_skipped"));
		cr_assert(verdict_is(s, "outcome", "verified") ||
			  json_is_true(json_object_get(s, "fallback_skipped")), "%s", json_dumps(s, 0));
		n_refused += verdict_is(s, "reason", REFUSED);
		n_dropped += verdict_is(s, "reason", GC_DROPPED);
		n_stale += verdict_is(s, "reason", STALE);
		if (in_lib(s, "run_order")) {
			in_order++;
			skipped += !check_uncovered(s, REFUSED);
			continue;
		}
		if (in_lib(s, "run_stale")) {
			in_stale++;
			skipped += !check_uncovered(s, STALE);
			continue;
		}
		if (!verdict_frame0_in(s, "reason_inner"))
			continue;
		cr_assert(in_lib(s, "run_gc"), "%s", json_dumps(s, 0));
		in_gc++;
		if (!kept) {
			skipped += !check_uncovered(s, GC_DROPPED);
			continue;
		}
		cr_assert(verdict_ended_in_libc(s) &&
			  verdict_sym_in(verdict_frame(s, false, verdict_covered(s) - 1),
					 "__libc_start_call_main") &&
			  !strncmp(verdict_str(s, "reason"), LIBC_END, strlen(LIBC_END)),
			  "%s", json_dumps(s, 0));
	}
	cr_assert_gt(in_gc, 20, "%zu samples in libreasons-gc.so", in_gc);
	cr_assert_gt(in_order, 20, "%zu samples in libreasons-order.so", in_order);
	cr_assert_gt(in_stale, 20, "%zu samples in libreasons-new.so", in_stale);
	cr_assert_leq(skipped, (in_gc + in_order + in_stale) / 50, "%zu samples skipped a frame",
		      skipped);
	/* reason_inner's samples, and the few in reason_spin */
	cr_assert(n_refused >= in_order && n_refused - in_order <= in_order / 10, "%zu", n_refused);
	cr_assert(n_stale >= in_stale && n_stale - in_stale <= in_stale / 10, "%zu", n_stale);
	cr_assert(kept ? !n_dropped : n_dropped >= in_gc && n_dropped - in_gc <= in_gc / 10,
		  "%zu", n_dropped);
	cr_assert_eq(verdict_place_samples(&v, REFUSED), (long long)n_refused);
	cr_assert_eq(verdict_place_samples(&v, GC_DROPPED), (long long)n_dropped);
	cr_assert_eq(verdict_place_samples(&v, STALE), (long long)n_stale);
	cr_assert_eq(verdict_count(&v, "fallback_skipped"), (long long)fallback_skipped);
	cr_assert_eq(verdict_count(&v, "past_copy"), (long long)past);
	cr_assert_eq(verdict_count(&v, "verified") + (long long)(fallback_skipped + past),
		     verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), (long long)past_diverged);
	verdict_free(&v);
}
