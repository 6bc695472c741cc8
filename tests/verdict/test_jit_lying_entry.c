// SPDX-License-Identifier: GPL-2.0
/*
 * A JIT table entry that lies (progs/jit_lying_entry.c): while jit_spin
 * counts down at +0x0d..+0x12, %rbp points at a JIT frame whose second word
 * is 0x3e8, and the entry says "CFA = FP + 16, RA at CFA - 8". Our JIT step
 * reads RA 0x3e8, and libunwind, which cannot read JIT tables, guesses with
 * the frame pointer and reads the same word: both walks have frame 1 at
 * 0x3e8, no code, so such a sample is both-wrong, its wrong frame 1,
 * not-code, and --check fails (exit 3). Before the plausibility oracle the
 * two walks agreed and these samples were matches. Anywhere else (jit_spin's
 * prologue and epilogue, where the entries are true, and the C caller) every
 * sample is verified.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_tmp.h"
#include "verdict_run.h"

#define LIE_START 0x0d		/* %rbp moved to the JIT frame */
#define LIE_END 0x13		/* the leave, %rbp back at the frame record */

/* Is @s's frame 0 where the entry lies? */
static bool lie_at(json_t *s, const void *ctx)
{
	long long off = verdict_frame0_offset(s, "jit_spin");

	(void)ctx;
	return off >= LIE_START && off < LIE_END;
}

/* jit_spin's address, from @s (a sample in it). */
static unsigned long long jit_spin_at(json_t *s)
{
	return verdict_ip(verdict_frame(s, false, 0)) -
	       (unsigned long long)verdict_frame0_offset(s, "jit_spin");
}

/*
 * The reason names the entry and what the code says there (the verifier's
 * analysis of jit_spin, read from the process).
 */
static void check_reason(json_t *s)
{
	unsigned long long at = jit_spin_at(s);
	char want[512];

	snprintf(want, sizeof(want), "frame 1, by a jit step, is not-code; the code says CFA = "
		 "SP+32 = FP+32, the JIT entry [%#llx, %#llx) CFA = FP+16", at + LIE_START,
		 at + LIE_END);
	cr_assert_str_eq(verdict_str(s, "reason"), want);
}

static void check_lie(json_t *s)
{
	json_t *ours = verdict_frame(s, false, 1), *ref = verdict_frame(s, true, 1);

	cr_assert(verdict_class_is(s, "both-wrong"), "%s: %s", verdict_symbol(s, 0),
		  verdict_str(s, "class"));
	cr_assert_str_eq(verdict_str(s, "why"), "not-code");
	cr_assert_eq(json_integer_value(json_object_get(s, "wrong_frame")), 1);
	cr_assert_eq(verdict_ip(ours), 0x3e8);
	cr_assert_str_eq(verdict_str(ours, "source"), "jit");
	cr_assert_str_eq(verdict_str(ours, "why"), "not-code");
	cr_assert_eq(verdict_ip(ref), 0x3e8);
	cr_assert_str_eq(verdict_str(ref, "why"), "not-code");
	check_reason(s);
}

/*
 * The folded stacks never draw the wrong frame: each sample in the lie is
 * "jit_lying_entry-PID/TID;[wrong: not-code];jit_spin", never with 0x3e8;
 * every line starts with the thread's root.
 */
static void check_folded(const char *path)
{
	char line[4096];
	int lies = 0;
	FILE *f = fopen(path, "r");

	cr_assert(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		cr_assert(!strncmp(line, "jit_lying_entr", 14) && strchr(line, '/'), "%s", line);
		cr_assert_null(strstr(line, "0x3e8"), "%s", line);
		lies += strstr(line, ";[wrong: not-code];jit_spin ") != NULL;
	}
	fclose(f);
	cr_assert_eq(lies, 1, "%d folded lines of the lie", lies);
}

Test(verdict, jit_lying_entry)
{
	const struct verdict_place place = { lie_at, NULL, 21, "samples in the lie" };
	char folded[256];
	const char *const opts[] = { "--folded", folded, NULL };
	int fd = test_mkstemp(folded, sizeof(folded), "jit-lie-folded");
	struct verdict_run v;
	size_t i, in_lie = 0;
	json_t *s;

	cr_assert_geq(fd, 0);
	close(fd);
	verdict_run_until(&v, "jit_lying_entry", opts, NULL, &place, 1);
	check_folded(folded);
	unlink(folded);
	verdict_remove_perf_map(&v);
	cr_assert_eq(v.r.status, 3, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "jit_lying_entry: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (lie_at(s, NULL)) {
			in_lie++;
			check_lie(s);
		} else {
			cr_assert(verdict_system_skip(s) || verdict_is(s, "outcome", "verified"),
				  "%s", json_dumps(s, 0));
		}
	}
	cr_assert_gt(in_lie, 20, "%zu samples in the lie", in_lie);
	cr_assert_eq(verdict_count(&v, "both_wrong"), (long long)in_lie);
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)in_lie,
		     verdict_count(&v, "total"));
	cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), (long long)in_lie);
	verdict_free(&v);
}

/* The verifier's finding for the JIT registration in the report's "verify" array. */
static json_t *jit_object(const struct verdict_run *v)
{
	size_t i;
	json_t *o;

	json_array_foreach(json_object_get(v->j, "verify"), i, o)
		if (json_object_get(o, "jit"))
			return o;
	return NULL;
}

/*
 * --verify checks JIT tables too: jit_spin, sampled, is checked against its
 * code (before: "1 object checked, 0 findings", JIT tables not looked at).
 * One finding, the lie: [+0x0d, +0x13), the code's CFA = FP + 32 where the
 * entry says FP + 16; its six entries and ten instructions checked.
 */
Test(verdict, jit_lying_entry_verified)
{
	const struct verdict_place place = { lie_at, NULL, 1, "samples in the lie" };
	const char *const opts[] = { "--verify", NULL };
	unsigned long long at = 0;
	struct verdict_run v;
	json_t *s, *o, *fd;
	size_t i;

	verdict_run_until(&v, "jit_lying_entry", opts, NULL, &place, 1);
	verdict_remove_perf_map(&v);
	o = jit_object(&v);
	cr_assert_not_null(o, "%s", v.r.log);
	/* the report's "verify" is the first run's: its process's JIT page */
	json_array_foreach(verdict_stacks(&v), i, s)
		if (lie_at(s, NULL) && json_integer_value(json_object_get(s, "pid")) ==
				       json_integer_value(json_object_get(o, "pid")))
			at = jit_spin_at(s);
	cr_assert_neq(at, 0);
	cr_assert_eq(json_integer_value(json_object_get(o, "mismatches")), 1, "%s", v.r.log);
	cr_assert_eq(json_integer_value(json_object_get(o, "rows")), 6);
	cr_assert_eq(json_integer_value(json_object_get(o, "instructions")), 10);
	fd = json_array_get(json_object_get(o, "findings"), 0);
	cr_assert_str_eq(verdict_str(fd, "kind"), "cfa-mismatch");
	cr_assert_str_eq(verdict_str(fd, "function"), "jit_spin");
	cr_assert_eq(strtoull(verdict_str(fd, "start"), NULL, 16), at + LIE_START);
	cr_assert_eq(strtoull(verdict_str(fd, "end"), NULL, 16), at + LIE_END);
	cr_assert_str_eq(verdict_str(fd, "code"), "CFA = SP+32 = FP+32");
	cr_assert_str_eq(verdict_str(fd, "row"), "CFA = FP+16");
	verdict_free(&v);
}

/* The offset in "[jit+0xOFF]" of @s's frame 0 (an unnamed JIT frame), or -1. */
static long long unnamed_offset(json_t *s)
{
	unsigned long long off;
	char end;

	if (sscanf(verdict_symbol(s, 0), "[jit+%llx%c", &off, &end) != 2 || end != ']')
		return -1;
	return (long long)off;
}

static bool unnamed_lie_at(json_t *s, const void *ctx)
{
	long long off = unnamed_offset(s);

	(void)ctx;
	return off >= LIE_START && off < LIE_END;
}

/*
 * Without a perf map, JIT frames are "[jit+0xOFF]" from the code area's
 * start, never bare addresses (before: "0x7f..."), and the reason is the
 * same: jit_spin's bounds come from its run of adjacent entries.
 */
Test(verdict, jit_lying_entry_unnamed)
{
	const struct verdict_place place = { unnamed_lie_at, NULL, 21, "samples in the lie" };
	const char *const args[] = { "no-perf-map", NULL };
	unsigned long long at;
	struct verdict_run v;
	size_t i, in_lie = 0;
	char want[512];
	json_t *s;

	verdict_run_until(&v, "jit_lying_entry", NULL, args, &place, 1);
	cr_assert_eq(v.r.status, 3, "%s", v.r.log);
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (!verdict_is(verdict_frame(s, false, 0), "object", "[jit]"))
			continue;
		cr_assert_geq(unnamed_offset(s), 0, "%s", json_dumps(s, 0));
		if (!unnamed_lie_at(s, NULL))
			continue;
		in_lie++;
		at = verdict_ip(verdict_frame(s, false, 0)) - (unsigned long long)unnamed_offset(s);
		snprintf(want, sizeof(want), "frame 1, by a jit step, is not-code; the code says "
			 "CFA = SP+32 = FP+32, the JIT entry [%#llx, %#llx) CFA = FP+16",
			 at + LIE_START, at + LIE_END);
		cr_assert_str_eq(verdict_str(s, "reason"), want);
	}
	cr_assert_gt(in_lie, 20, "%zu samples in the lie", in_lie);
	verdict_free(&v);
}
