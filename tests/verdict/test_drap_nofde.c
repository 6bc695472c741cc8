// SPDX-License-Identifier: GPL-2.0
/*
 * A DRAP-realigned function: leaf_spin -> realigned_drap -> mid_caller ->
 * aligned_caller -> main.
 *
 * gas 2.40-2.45 (Debian 12, 13) emit no SFrame FDE for realigned_drap: our
 * walk reaches it from leaf_spin by SFrame, leaves it by the frame-pointer
 * fallback with the right return address but a wrong SP, and mid_caller's
 * SFrame row then reads realigned_drap's return address once more: the walk
 * is leaf_spin, realigned_drap, mid_caller (fp), mid_caller (sframe), ...,
 * and the oracle names the second mid_caller a call-target mismatch (it
 * calls realigned_drap, not mid_caller). The covered prefix ends at
 * realigned_drap and is right: "astray", never a match; the fallback is not
 * covered, so --check passes.
 *
 * gas 2.46+ (sid) give realigned_drap a FLEX FDE (CFA = R10, then *(RBP -
 * 8)): every step is SFrame and right up to libc, where ours ends (libc has
 * no SFrame): "ended".
 *
 * Which applies is read from the binary: does objdump --sframe show an FDE
 * at realigned_drap's address (as tests/corpus/test_corpus.c does)?
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "verdict_run.h"

#define PROG VERDICT_DIR "/drap_nofde"

static unsigned long long symbol_address(const char *fn)
{
	char cmd[512], line[512], name[128], type[4];
	unsigned long long addr, found = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -P '%s'", PROG);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%127s %3s %llx", name, type, &addr) == 3 && !strcmp(name, fn))
			found = addr;
	pclose(p);
	cr_assert_neq(found, 0, "%s: no symbol %s", PROG, fn);
	return found;
}

/* Does the program's .sframe, as this toolchain's objdump reads it, have an FDE at @fn? */
static bool has_sframe_fde(const char *fn)
{
	unsigned long long want = symbol_address(fn), pc;
	char cmd[512], line[256];
	bool found = false;
	const char *at;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "objdump --sframe=.sframe '%s'", PROG);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p))
		if ((at = strstr(line, "func idx [")) && (at = strstr(at, "pc = ")) &&
		    sscanf(at, "pc = %llx", &pc) == 1 && pc == want)
			found = true;
	pclose(p);
	return found;
}

/* No FDE: realigned_drap by SFrame, then the fallback, then mid_caller twice. */
static void check_without_fde(json_t *s)
{
	json_t *mid = verdict_frame(s, false, 2), *again = verdict_frame(s, false, 3);

	cr_assert(verdict_source_is(verdict_frame(s, false, 1), "sframe") && verdict_covered(s) == 2,
		  "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(mid, "mid_caller") && verdict_source_is(mid, "fp") && verdict_plausible(mid),
		  "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(again, "mid_caller") && verdict_source_is(again, "sframe") &&
		  verdict_is(again, "why", "call-target-mismatch"), "%s", json_dumps(s, 0));
	cr_assert(verdict_is(s, "class", "astray") && verdict_is(s, "why", "call-target-mismatch") &&
		  json_integer_value(json_object_get(s, "wrong_frame")) == 3 &&
		  verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
	cr_assert(verdict_sym_in(verdict_frame(s, true, 2), "mid_caller") &&
		  verdict_sym_in(verdict_frame(s, true, 3), "aligned_caller"), "%s", json_dumps(s, 0));
}

/* A FLEX FDE: SFrame all the way to libc, as libunwind walks. */
static void check_with_fde(json_t *s)
{
	static const char *const fns[] = { "realigned_drap", "mid_caller", "aligned_caller", "main" };

	for (size_t i = 0; i < 4; i++)
		cr_assert(verdict_sym_in(verdict_frame(s, false, i + 1), fns[i]) &&
			  verdict_source_is(verdict_frame(s, false, i + 1), "sframe") &&
			  verdict_plausible(verdict_frame(s, false, i + 1)), "frame %zu: %s", i + 1, json_dumps(s, 0));
	cr_assert(verdict_covered(s) >= 5 && verdict_is(s, "class", "ended") &&
		  json_is_true(json_object_get(s, "agrees")), "%s", json_dumps(s, 0));
}

Test(verdict, drap_nofde)
{
	const struct verdict_place place = { verdict_in_function, "leaf_spin", 21,
					     "samples in leaf_spin" };
	bool fde = has_sframe_fde("realigned_drap");
	struct verdict_run v;
	size_t i, in = 0;
	json_t *s;

	cr_log_info("drap_nofde: realigned_drap has %s SFrame FDE", fde ? "an" : "no");
	verdict_run_until(&v, "drap_nofde", NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "drap_nofde: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!verdict_frame0_in(s, "leaf_spin"))
			continue;
		in++;
		cr_assert(verdict_sym_in(verdict_frame(s, false, 1), "realigned_drap"), "%s", json_dumps(s, 0));
		if (fde)
			check_with_fde(s);
		else
			check_without_fde(s);
	}
	cr_assert_gt(in, 20, "%zu samples in leaf_spin", in);
	cr_assert_geq(verdict_count(&v, fde ? "ended" : "astray"), (long long)in);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v),
	             verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), 0);
	verdict_free(&v);
}
