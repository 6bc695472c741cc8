// SPDX-License-Identifier: GPL-2.0
/*
 * bench/startup: what codectl-run and its loader module add to the start-up
 * of a program linked against 20 libraries with .sframe (bench/startup/),
 * measured side by side in one run, interleaved, median wall time of:
 *   (n) the program alone;
 *   (a) the program with LD_AUDIT=libcodectl-audit.so and no supervisor
 *       (the module's cost when codectl says ENOSYS);
 *   (r) codectl-run --no-loader-module (supervisor, exec registration only);
 *   (m) codectl-run (supervisor and module: 24 objects registered);
 *   (R), (M) the same two without sampling (-F 0): (M - R) / 24 is what one
 *       registration costs, M / m what sampling adds.
 * Usage: startup [--runs N]   (default 40)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"

enum { NATIVE, AUDIT_ONLY, RUN_NO_MODULE, RUN_MODULE, RUN_NO_MODULE_F0, RUN_MODULE_F0,
       NVARIANTS };

static const char *const names[NVARIANTS] = {
	"program alone", "LD_AUDIT module, no supervisor", "codectl-run --no-loader-module",
	"codectl-run (module registers every object)", "codectl-run -F 0 --no-loader-module",
	"codectl-run -F 0 (module, no sampling)",
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One start of @argv with @envp; its wall time in ns, or -1 if it failed. */
static double one_start(char *const argv[], char *const envp[])
{
	double t0 = now_ns();
	pid_t pid = bench_spawn(argv, envp, false);
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	char *prog = STARTUP_PROG, *run = CODECTL_RUN;
	char audit_env[4200], *audit_envp[] = { audit_env, NULL }, *plain_envp[] = { NULL };
	char *const variants[NVARIANTS][8] = {
		{ prog, NULL },
		{ prog, NULL },
		{ run, "-q", "--no-loader-module", "--", prog, NULL },
		{ run, "-q", "--", prog, NULL },
		{ run, "-q", "-F", "0", "--no-loader-module", "--", prog, NULL },
		{ run, "-q", "-F", "0", "--", prog, NULL },
	};
	int runs = argc > 2 && !strcmp(argv[1], "--runs") ? atoi(argv[2]) : 40;
	double *t[NVARIANTS], med[NVARIANTS];

	if (runs < 1 || runs > 100000) {
		fprintf(stderr, "usage: startup [--runs N]\n");
		return 2;
	}
	snprintf(audit_env, sizeof(audit_env), "LD_AUDIT=%s", AUDIT_SO);
	for (int v = 0; v < NVARIANTS; v++)
		t[v] = calloc((size_t)runs, sizeof(double));
	for (int i = -1; i < runs; i++) {	/* round -1 warms the page cache */
		for (int v = 0; v < NVARIANTS; v++) {
			double ns = one_start(variants[v], v == AUDIT_ONLY ? audit_envp : plain_envp);

			if (ns < 0) {
				fprintf(stderr, "startup: %s: %s failed\n", names[v], variants[v][0]);
				return 1;
			}
			if (i >= 0)
				t[v][i] = ns;
		}
	}
	printf("bench/startup: a program linked against 20 libraries with .sframe, "
	       "median of %d starts\n", runs);
	for (int v = 0; v < NVARIANTS; v++) {
		med[v] = median(t[v], runs);
		printf("  (%c) %-46s %9.0f us\n", "narmRM"[v], names[v], med[v] / 1e3);
		free(t[v]);
	}
	printf("  registration by the module, under codectl-run: m - r = %.0f us "
	       "(%.1f us per object of 24)\n", (med[RUN_MODULE] - med[RUN_NO_MODULE]) / 1e3,
	       (med[RUN_MODULE] - med[RUN_NO_MODULE]) / 1e3 / 24);
	printf("  one registration, no sampling: (M - R) / 24 = %.1f us\n",
	       (med[RUN_MODULE_F0] - med[RUN_NO_MODULE_F0]) / 1e3 / 24);
	printf("  ratios: a/n %.2f  r/n %.2f  m/n %.2f  m/r %.2f  m/M (sampling) %.2f\n",
	       med[AUDIT_ONLY] / med[NATIVE], med[RUN_NO_MODULE] / med[NATIVE],
	       med[RUN_MODULE] / med[NATIVE], med[RUN_MODULE] / med[RUN_NO_MODULE],
	       med[RUN_MODULE] / med[RUN_MODULE_F0]);
	return 0;
}
