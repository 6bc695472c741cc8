// SPDX-License-Identifier: GPL-2.0
/*
 * bench/crowd: what wall-clock sampling costs a program with many threads,
 * measured side by side in one run. The program (e2e-prog threads N 20
 * 20000): N threads living together for 0.4 s, each registering and
 * unregistering a text range 20 times, 20 ms apart. Wall time, median of
 * 3 interleaved runs, under codectl-run without sampling and with
 * --clock wall --freq 100 (every thread asked for 100 samples a second),
 * at N = 10, 100 and 1000; the ratio is the slowdown sampling adds.
 * Usage: crowd [--runs N]   (default 3); crowd --quick: N = 10 and 100, one run
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One run of @argv, its output dropped; its wall time in seconds, or -1 if it failed. */
static double one_run(char *const argv[])
{
	double t0 = now_s();
	pid_t pid = bench_spawn(argv, NULL, true);
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const char *const counts[] = { "10", "100", "1000" };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");
	int runs = argc > 2 && !strcmp(argv[1], "--runs") ? atoi(argv[2]) : quick ? 1 : 3;
	size_t ncounts = sizeof(counts) / sizeof(counts[0]) - quick;
	double t[2][16];

	if (runs < 1 || runs > 16) {
		fprintf(stderr, "usage: crowd [--runs N | --quick]   (N <= 16)\n");
		return 2;
	}
	printf("bench/crowd: N threads registering 20 times each, 20 ms apart (median of %d)\n",
	       runs);
	for (size_t c = 0; c < ncounts; c++) {
		char *n = (char *)counts[c];
		char *const plain[] = { CODECTL_RUN, "-q", "--freq", "0", "--", E2E_PROG, "threads",
					n, "20", "20000", NULL };
		char *const wall[] = { CODECTL_RUN, "-q", "--clock", "wall", "--freq", "100", "--",
				       E2E_PROG, "threads", n, "20", "20000", NULL };

		for (int i = 0; i < runs; i++) {
			t[0][i] = one_run(plain);
			t[1][i] = one_run(wall);
			if (t[0][i] < 0 || t[1][i] < 0) {
				fprintf(stderr, "crowd: a run with %s threads failed\n", n);
				return 1;
			}
		}
		qsort(t[0], (size_t)runs, sizeof(double), cmp_double);
		qsort(t[1], (size_t)runs, sizeof(double), cmp_double);
		printf("  %4s threads: no sampling %.2f s, --clock wall --freq 100 %.2f s: %.2fx\n",
		       n, t[0][runs / 2], t[1][runs / 2], t[1][runs / 2] / t[0][runs / 2]);
	}
	return 0;
}
