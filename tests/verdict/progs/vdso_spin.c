// SPDX-License-Identifier: GPL-2.0
/*
 * Calls clock_gettime(), which the vDSO serves, for 0.4 s of CPU time: most
 * samples stop in the vDSO, which has no SFrame. Our walk leaves it by the
 * frame-pointer fallback; libunwind reads the vDSO's own .eh_frame.
 */
#include <stdio.h>
#include <time.h>

__attribute__((noipa)) static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noipa)) static unsigned long spin_in_vdso(double seconds)
{
	struct timespec t;
	unsigned long calls = 0;
	double end = cpu_seconds() + seconds;

	do {
		for (int i = 0; i < 1000; i++, calls++)
			clock_gettime(CLOCK_MONOTONIC, &t);
	} while (cpu_seconds() < end);
	return calls;
}

int main(void)
{
	printf("vdso_spin: %s\n", spin_in_vdso(0.4) ? "done" : "no calls");
	return 0;
}
