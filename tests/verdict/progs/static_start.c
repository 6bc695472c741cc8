// SPDX-License-Identifier: GPL-2.0
/*
 * A static program without libc (-static -nostdlib -nostartfiles): its own
 * _start (static_start-asm.S), marked outermost by .cfi_undefined rip, calls
 * static_main, which spins for 0.4 s of CPU time in count_down and leaves by
 * the exit_group system call:
 *
 *	_start -> static_main -> count_down
 *
 * codectl-run registers the executable's .sframe at exec. Whether the SFrame
 * FDE of _start says the stack ends there depends on gas: 2.40 (Debian 12)
 * and 2.44 (Debian 13) drop .cfi_undefined rip, so its row says "RA at
 * CFA - 8", and our walk steps from _start to argc (0x1), no code; 2.47 (sid)
 * marks the row outermost and our walk ends at _start. libunwind reads
 * .eh_frame (found through the .eh_frame_hdr that verdict.mk asks the linker
 * for), which has DW_CFA_undefined for the RA either way, and ends at _start.
 */
#include <asm/unistd.h>
#include <time.h>

#define LOOPS 1000000ul

static long syscall3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noipa)) static long cpu_ns(void)
{
	struct timespec t = { 0 };

	syscall3(__NR_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (long)&t, 0);
	return t.tv_sec * 1000000000l + t.tv_nsec;
}

__attribute__((noipa)) static unsigned long count_down(unsigned long n)
{
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
	return n;
}

__attribute__((noreturn)) void static_main(void);

void static_main(void)
{
	static const char done[] = "static_start: done\n";
	long end = cpu_ns() + 400000000l;
	unsigned long left = 0;

	do
		left += count_down(LOOPS);
	while (cpu_ns() < end);
	syscall3(__NR_write, 1, (long)done, sizeof(done) - 1);
	syscall3(__NR_exit_group, left ? 1 : 0, 0, 0);
	__builtin_unreachable();
}
