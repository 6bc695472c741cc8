// SPDX-License-Identifier: GPL-2.0
/*
 * A static program without libc whose _start says, by .cfi_undefined rip,
 * that the stack ends there (progs/static_start.c). codectl-run registers
 * its .sframe at exec. libunwind reads .eh_frame (DW_CFA_undefined for the
 * RA) and ends every walk at _start. Whether our walk does depends on the
 * assembler that wrote the SFrame FDE of _start, so the test asks the
 * binary: objdump --sframe prints the FDE's row as "RA undefined" when gas
 * marked it outermost.
 *
 *  - Not marked (gas 2.40, Debian 12; 2.44, Debian 13): the row says
 *    "CFA = SP + 8, RA at CFA - 8", and our walk steps from _start to argc,
 *    0x1, in the covered prefix: every sample that reaches _start is
 *    ours-wrong (libunwind ends at _start, so it does not have that frame),
 *    not-code, and --check fails (exit 3).
 *  - Marked (gas 2.47, sid): our walk ends at _start, outermost, with
 *    libunwind: every such sample is a match, all verified (exit 0).
 */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "verdict_run.h"

#define PROG "static_start"

/* The program's entry point: _start. */
static unsigned long long entry_point(const char *path)
{
	Elf64_Ehdr eh;
	FILE *f = fopen(path, "rb");

	cr_assert(f, "%s", path);
	cr_assert_eq(fread(&eh, sizeof(eh), 1, f), 1);
	fclose(f);
	cr_assert(!memcmp(eh.e_ident, ELFMAG, SELFMAG));
	return eh.e_entry;
}

/*
 * Does the SFrame FDE that starts at the entry point have a row objdump
 * calls "RA undefined" (outermost)? The FDE must be there.
 */
static bool start_is_outermost(void)
{
	char path[4096], cmd[4200], line[512], want[64];
	bool in_start = false, found = false, outermost = false;
	FILE *p;

	snprintf(path, sizeof(path), "%s/%s", VERDICT_DIR, PROG);
	snprintf(want, sizeof(want), "pc = 0x%llx,", entry_point(path));
	snprintf(cmd, sizeof(cmd), "objdump --sframe '%s'", path);
	p = popen(cmd, "r");
	cr_assert(p, "%s", cmd);
	while (fgets(line, sizeof(line), p)) {
		if (strstr(line, "func idx [")) {
			in_start = strstr(line, want) != NULL;
			found |= in_start;
		} else if (in_start && strstr(line, "RA undefined")) {
			outermost = true;
		}
	}
	cr_assert_eq(pclose(p), 0, "%s failed", cmd);
	cr_assert(found, "no SFrame FDE at _start (%s) in objdump --sframe", want);
	return outermost;
}

/* Our frame in _start, or -1. */
static long start_frame(json_t *s)
{
	for (size_t i = 0; i < verdict_frames(s, false); i++)
		if (!strncmp(verdict_symbol(s, i), "_start+", 7))
			return (long)i;
	return -1;
}

/*
 * Does @s reach _start? Not a sample in static_main's exit_group: the
 * syscall is its last instruction, so the IP after it is _start+0x0 (the
 * class after-syscall, unverifiable).
 */
static bool reaches_start(json_t *s, const void *ctx)
{
	(void)ctx;
	return start_frame(s) >= 0 && !verdict_class_is(s, "after-syscall");
}

static void check_in_exit(json_t *s)
{
	cr_assert_str_eq(verdict_symbol(s, 0), "_start+0x0");
	cr_assert_str_eq(verdict_str(s, "outcome"), "unverifiable");
}

static void check_past_start(json_t *s, long k)
{
	json_t *argc = verdict_frame(s, false, k + 1);

	cr_assert(verdict_class_is(s, "ours-wrong"), "%s: %s", verdict_symbol(s, 0),
		  verdict_str(s, "class"));
	cr_assert_str_eq(verdict_str(s, "why"), "not-code");
	cr_assert_eq(json_integer_value(json_object_get(s, "wrong_frame")), k + 1);
	cr_assert_eq(verdict_ip(argc), 0x1);
	cr_assert_str_eq(verdict_str(argc, "source"), "sframe");
	cr_assert_str_eq(verdict_str(argc, "why"), "not-code");
	/* libunwind's walk ends at _start */
	cr_assert_eq(verdict_frames(s, true), (size_t)k + 1);
}

static void check_ends_at_start(json_t *s, long k)
{
	cr_assert(verdict_class_is(s, "match"), "%s: %s", verdict_symbol(s, 0),
		  verdict_str(s, "class"));
	cr_assert_str_eq(verdict_str(s, "stop"), "outermost");
	cr_assert_eq(verdict_frames(s, false), (size_t)k + 1);
}

Test(verdict, static_start)
{
	const struct verdict_place place = { reaches_start, NULL, 21, "samples reach _start" };
	bool outermost = start_is_outermost();
	struct verdict_run v;
	size_t i, reach = 0, in_exit = 0;
	json_t *s;
	long k;

	verdict_run_until(&v, PROG, NULL, NULL, &place, 1);
	cr_assert_eq(v.r.status, outermost ? 0 : 3, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "static_start: done\n");
	/* the static executable's .sframe, registered at exec */
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(v.j, "registrations"),
							"at_exec")), 1);
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_class_is(s, "after-syscall")) {
			check_in_exit(s);
			in_exit++;
			continue;
		}
		if (!reaches_start(s, NULL)) {
			cr_assert_str_eq(verdict_str(s, "outcome"), "verified", "%s: %s",
					 verdict_symbol(s, 0), verdict_str(s, "class"));
			continue;
		}
		reach++;
		k = start_frame(s);
		if (outermost)
			check_ends_at_start(s, k);
		else
			check_past_start(s, k);
	}
	cr_assert_gt(reach, 20, "%zu samples reach _start", reach);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "after_syscall"), (long long)in_exit);
	cr_assert_eq(verdict_count(&v, "unverifiable"), (long long)in_exit);
	if (outermost) {
		cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
		cr_assert_eq(verdict_count(&v, "verified") + (long long)in_exit,
			     verdict_count(&v, "total"));
		cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")), 0);
	} else {
		cr_assert_eq(verdict_count(&v, "ours_wrong"), (long long)reach);
		cr_assert_eq(verdict_count(&v, "verified") + (long long)(reach + in_exit),
			     verdict_count(&v, "total"));
		cr_assert_eq(json_integer_value(json_object_get(v.j, "check_failures")),
			     (long long)reach);
	}
	verdict_free(&v);
}
