// SPDX-License-Identifier: GPL-2.0
/*
 * bench/startup's program: linked against 20 libraries, calls each once and
 * exits. Started by startup-stamp (STARTUP_EXEC_NS in its environment), it
 * prints the nanoseconds from its execve to the end of its main on standard
 * output: the start-up as the program lives it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LIBS(X) X(01) X(02) X(03) X(04) X(05) X(06) X(07) X(08) X(09) X(10) \
	X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20)
#define DECLARE(n) int lib_entry_##n(int x);
#define CALL(n) sum += lib_entry_##n(sum);

LIBS(DECLARE)

int main(void)
{
	const char *stamp = getenv("STARTUP_EXEC_NS");
	volatile int sink;
	struct timespec ts;
	int sum = 1;

	LIBS(CALL)
	sink = sum;
	(void)sink;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (stamp)
		printf("%lld\n", ts.tv_sec * 1000000000LL + ts.tv_nsec - atoll(stamp));
	return 0;
}
