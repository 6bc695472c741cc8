// SPDX-License-Identifier: GPL-2.0
/*
 * A library for the security tests: built with debug info, then stripped of
 * it with a .gnu_debuglink naming its debug file, which the tests replace by
 * a FIFO or point at a file codectl-run must not open. Its functions keep
 * their names in .symtab (objcopy --strip-debug), so samples in them are
 * named by the library's own symbols.
 */
#include <time.h>

#define EXPORT __attribute__((visibility("default"), noinline))

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

EXPORT unsigned long security_lib_inner(unsigned long x)
{
	for (int i = 0; i < 4096; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

/* Spin in security_lib_inner() for @seconds of CPU time. */
EXPORT unsigned long security_lib_spin(double seconds)
{
	double end = now() + seconds;
	unsigned long x = 1;

	while (now() < end)
		x = security_lib_inner(x);
	return x;
}
