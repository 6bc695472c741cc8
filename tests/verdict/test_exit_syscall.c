// SPDX-License-Identifier: GPL-2.0
/*
 * A thread sampled in a system call that ends its function
 * (progs/exit_syscall.c): its IP, the address after the syscall, is
 * after_pause+0x0, the next function's first byte. Our walk looks it up
 * there, as the kernel's does, and steps by after_pause's rule; libunwind
 * does the same. Nothing can judge such a walk: the class after-syscall,
 * outcome unverifiable, --check passes. The spinning thread's samples are
 * verified.
 */
#include <criterion/criterion.h>

#include "verdict_run.h"

static bool in_pause(json_t *s, const void *ctx)
{
	(void)ctx;
	return !strcmp(verdict_symbol(s, 0), "after_pause+0x0");
}

Test(verdict, exit_syscall)
{
	const struct verdict_place place = { in_pause, NULL, 10, "samples in pause" };
	const char *const opts[] = { "--clock", "wall", NULL };
	struct verdict_run v;
	size_t i, paused = 0;
	json_t *s;

	verdict_run_until(&v, "exit_syscall", opts, NULL, &place, 1);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	cr_assert_str_eq(v.r.out, "exit_syscall: done\n");
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (in_pause(s, NULL)) {
			paused++;
			cr_assert(verdict_class_is(s, "after-syscall"), "%s",
				  verdict_str(s, "class"));
			cr_assert_str_eq(verdict_str(s, "outcome"), "unverifiable");
		} else {
			cr_assert(verdict_system_skip(s) || verdict_is(s, "outcome", "verified"),
				  "%s", json_dumps(s, 0));
		}
	}
	cr_assert_geq(paused, 10, "%zu samples in pause", paused);
	cr_assert_eq(verdict_count(&v, "after_syscall"), (long long)paused);
	cr_assert_eq(verdict_count(&v, "unverifiable"),
		     (long long)paused + verdict_system_skips(&v));
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)paused,
		     verdict_count(&v, "total"));
	verdict_free(&v);
}
