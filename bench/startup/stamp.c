// SPDX-License-Identifier: GPL-2.0
/*
 * bench/startup's stamp: "startup-stamp PROGRAM" takes the time and executes
 * PROGRAM with it in STARTUP_EXEC_NS, so that PROGRAM can tell how long its
 * own start took, from its execve on. Linked statically and doing nothing
 * else: under codectl-run, nothing of its own (no loader, no calls, hardly a
 * sample) comes before the execve measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec ts;
	char stamp[32];

	if (argc < 2) {
		fprintf(stderr, "usage: startup-stamp PROGRAM [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(stamp, sizeof(stamp), "%lld", ts.tv_sec * 1000000000LL + ts.tv_nsec);
	if (setenv("STARTUP_EXEC_NS", stamp, 1))
		return 1;
	execv(argv[1], argv + 1);
	perror("startup-stamp: execv");
	return 1;
}
