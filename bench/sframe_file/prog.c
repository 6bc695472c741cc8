// SPDX-License-Identifier: GPL-2.0
/*
 * bench/sframe_file's program: runs the code of its 20 libraries for about
 * @ms milliseconds (argument 1, default 300), then prints its own resident
 * memory, "rss_kb N hwm_kb M", from /proc/self/status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIBS(X) X(01) X(02) X(03) X(04) X(05) X(06) X(07) X(08) X(09) X(10) \
	X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20)
#define DECLARE(n) int lib_run_##n(int x, int rounds);
#define RUN(n) x = lib_run_##n(x, 20);

LIBS(DECLARE)

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* "VmRSS:" and "VmHWM:" of /proc/self/status, kB. */
static void print_rss(void)
{
	char line[256];
	long rss = -1, hwm = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmRSS:", 6))
			rss = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "VmHWM:", 6))
			hwm = strtol(line + 6, NULL, 10);
	}
	if (f)
		fclose(f);
	printf("rss_kb %ld hwm_kb %ld\n", rss, hwm);
}

int main(int argc, char **argv)
{
	long long end = now_ms() + (argc > 1 ? atoi(argv[1]) : 300);
	volatile int sink;
	int x = 1;

	do {
		LIBS(RUN)
	} while (now_ms() < end);
	sink = x;
	(void)sink;
	print_rss();
	return 0;
}
