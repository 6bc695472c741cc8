// SPDX-License-Identifier: GPL-2.0
/*
 * Many samples in the first .plt.sec stub of a binary linked with
 * -fcf-protection -z ibtplt (binutils PR ld/32296).
 *
 * Stack shape: abs@plt (the first .plt.sec stub, "endbr64; jmp
 * *GOT(%rip)", the return address at RSP) -> call_loop (ibt_plt-loop.S, a
 * zero right above each return address) -> spin_plt -> main. ld 2.40
 * (Debian 12) gives the first .plt.sec stub the SFrame rows of PLT0 (CFA =
 * RSP + 16, then + 24), so a walk from the stub reads its return address one
 * word too high: the zero, where the walk ends. ld 2.44 (Debian 13) and 2.47
 * (sid) give every .plt.sec stub CFA = RSP + 8. call_loop calls abs, a
 * four-instruction libc function, in batches of 1000 until 1 s of CPU
 * time are spent. ld does not order the stubs by first use: of this
 * program's imports (abs, clock_gettime, printf) abs comes first with ld
 * 2.40, 2.44 and 2.47 (getpagesize, say, would not); the test checks it
 * from the binary.
 */
#include <stdio.h>
#include <time.h>

unsigned long call_loop(unsigned long n);

static long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noipa)) static unsigned long spin_plt(long long ns)
{
	long long end = cpu_ns() + ns;
	unsigned long sum = 0;

	do
		sum += call_loop(1000);
	while (cpu_ns() < end);
	return sum;
}

int main(void)
{
	printf("ibt_plt: %s\n", spin_plt(1000000000LL) ? "done" : "no calls");
	return 0;
}
