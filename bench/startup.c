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
 * Each also as the program lives it: its own time from its execve to the end
 * of its main (started by startup-stamp, a static program that only takes the
 * time and executes it), without codectl-run's start before it and its
 * report after it.
 * Usage: startup [--runs N]   (default 40)
 */
#include <errno.h>
#include <fcntl.h>
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

/*
 * One start of @argv (running startup-stamp startup-prog) with @envp: the
 * program's own time from its execve to the end of its main, in ns, or -1 if
 * it failed.
 */
static double one_own_start(char *const argv[], char *const envp[])
{
	int p[2], status;
	char buf[64] = "";
	ssize_t len, got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = bench_spawn_to(argv, envp, p[1]);
	close(p[1]);
	while (got < (ssize_t)sizeof(buf) - 1 &&
	       ((len = read(p[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0 ||
		(len < 0 && errno == EINTR)))
		got += len > 0 ? len : 0;
	close(p[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || !got)
		return -1;
	return atof(buf);
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

/* @runs starts of every variant, interleaved; their medians into @med (ns). */
static int measure(char *const variants[NVARIANTS][9], char *const envp[NVARIANTS][2], bool own,
		   int runs, double med[NVARIANTS])
{
	double *t[NVARIANTS];
	int err = 0;

	for (int v = 0; v < NVARIANTS; v++)
		t[v] = calloc((size_t)runs, sizeof(double));
	for (int i = -1; i < runs && !err; i++) {	/* round -1 warms the page cache */
		for (int v = 0; v < NVARIANTS && !err; v++) {
			double ns = own ? one_own_start(variants[v], envp[v]) :
					  one_start(variants[v], envp[v]);

			if (ns < 0) {
				fprintf(stderr, "startup: %s: %s failed\n", names[v], variants[v][0]);
				err = -1;
			} else if (i >= 0) {
				t[v][i] = ns;
			}
		}
	}
	for (int v = 0; v < NVARIANTS; v++) {
		if (!err)
			med[v] = median(t[v], runs);
		free(t[v]);
	}
	return err;
}

/* The medians of @med (ns) and what they tell, under @title. */
static void report(const char *title, const double med[NVARIANTS])
{
	double per_object = (med[RUN_MODULE] - med[RUN_NO_MODULE]) / 1e3 / 24;

	printf("  %s\n", title);
	for (int v = 0; v < NVARIANTS; v++)
		printf("  (%c) %-46s %9.0f us\n", "narmRM"[v], names[v], med[v] / 1e3);
	printf("  registration by the module, under codectl-run: m - r = %.0f us "
	       "(%.1f us per object of 24; target <= 50)\n",
	       (med[RUN_MODULE] - med[RUN_NO_MODULE]) / 1e3, per_object);
	printf("  one registration, no sampling: (M - R) / 24 = %.1f us\n",
	       (med[RUN_MODULE_F0] - med[RUN_NO_MODULE_F0]) / 1e3 / 24);
	printf("  ratios: a/n %.2f  r/n %.2f  m/n %.2f (target <= 2)  m/r %.2f  "
	       "m/M (sampling) %.2f (target <= 1.2)\n",
	       med[AUDIT_ONLY] / med[NATIVE], med[RUN_NO_MODULE] / med[NATIVE],
	       med[RUN_MODULE] / med[NATIVE], med[RUN_MODULE] / med[RUN_NO_MODULE],
	       med[RUN_MODULE] / med[RUN_MODULE_F0]);
}

int main(int argc, char **argv)
{
	char *prog = STARTUP_PROG, *run = CODECTL_RUN, *stamp = STARTUP_STAMP;
	char audit_env[4200];
	char *const envp[NVARIANTS][2] = {
		{ NULL }, { audit_env, NULL }, { NULL }, { NULL }, { NULL }, { NULL },
	};
	char *const variants[NVARIANTS][9] = {
		{ prog, NULL },
		{ prog, NULL },
		{ run, "-q", "--no-loader-module", "--", prog, NULL },
		{ run, "-q", "--", prog, NULL },
		{ run, "-q", "-F", "0", "--no-loader-module", "--", prog, NULL },
		{ run, "-q", "-F", "0", "--", prog, NULL },
	};
	char *const own[NVARIANTS][9] = {
		{ stamp, prog, NULL },
		{ stamp, prog, NULL },
		{ run, "-q", "--no-loader-module", "--", stamp, prog, NULL },
		{ run, "-q", "--", stamp, prog, NULL },
		{ run, "-q", "-F", "0", "--no-loader-module", "--", stamp, prog, NULL },
		{ run, "-q", "-F", "0", "--", stamp, prog, NULL },
	};
	int runs = argc > 2 && !strcmp(argv[1], "--runs") ? atoi(argv[2]) : 40;
	double wall[NVARIANTS], lived[NVARIANTS];

	if (runs < 1 || runs > 100000) {
		fprintf(stderr, "usage: startup [--runs N]\n");
		return 2;
	}
	snprintf(audit_env, sizeof(audit_env), "LD_AUDIT=%s", AUDIT_SO);
	if (measure(variants, envp, false, runs, wall) || measure(own, envp, true, runs, lived))
		return 1;
	printf("bench/startup: a program linked against 20 libraries with .sframe, "
	       "median of %d starts\n", runs);
	report("wall time of the whole command:", wall);
	report("the program's own start (its execve to the end of its main):", lived);
	return 0;
}
