// SPDX-License-Identifier: GPL-2.0
/*
 * A data object found by name in one module of a process
 * (supervisor/oracle/symbols.c, symbols_object_address()), as codectl-run
 * finds a program's codectl_truth table in its executable: the modules of
 * other files are not read. The process is this test program.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <unistd.h>

#include "supervisor/oracle/symbols.h"

/* This program's data object, as codectl_truth is a program's. */
int object_address_marker __attribute__((visibility("default"), used)) = 1;

static struct symbols sym;
static char exe[PATH_MAX];

static void setup(void)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	cr_assert_gt(n, 0);
	exe[n] = '\0';
	symbols_init(&sym, getpid());
}

static void teardown(void)
{
	symbols_free(&sym);
}

TestSuite(object_address, .init = setup, .fini = teardown);

Test(object_address, found_in_the_executable)
{
	uint64_t addr = 0;

	cr_assert_eq(symbols_object_address(&sym, "object_address_marker", exe, &addr), 0);
	cr_assert_eq(addr, (uintptr_t)&object_address_marker);
}

Test(object_address, not_looked_for_in_another_file)
{
	uint64_t addr = 1;

	cr_assert_eq(symbols_object_address(&sym, "object_address_marker", "/nonexistent/prog",
					    &addr), -ENOENT);
	cr_assert_eq(addr, 0);
}

/* libc's own data object (this program never names it): in libc only. */
Test(object_address, a_library_s_object_is_found_only_when_every_module_is_read)
{
	uint64_t addr = 0;

	cr_assert_eq(symbols_object_address(&sym, "program_invocation_short_name", exe, &addr),
		     -ENOENT);
	cr_assert_eq(symbols_object_address(&sym, "program_invocation_short_name", NULL, &addr), 0);
	cr_assert_neq(addr, 0);
}
