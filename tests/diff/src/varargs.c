// SPDX-License-Identifier: GPL-2.0
/* Differential input: variadic functions and va_list forwarding. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static long sum_ints(int count, ...)
{
	va_list ap;
	long s = 0;

	va_start(ap, count);
	for (int i = 0; i < count; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

__attribute__((noinline)) static double mean(int count, ...)
{
	va_list ap;
	double s = 0;

	va_start(ap, count);
	for (int i = 0; i < count; i++)
		s += va_arg(ap, double);
	va_end(ap);
	return count ? s / count : 0;
}

__attribute__((noinline)) static int vlog(char *buf, size_t n, const char *fmt, va_list ap)
{
	return vsnprintf(buf, n, fmt, ap);
}

__attribute__((noinline)) static int logf_(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vlog(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

int main(int argc, char **argv)
{
	char buf[128];
	int n = argc > 1 ? atoi(argv[1]) : 3;

	logf_(buf, sizeof(buf), "%d %ld %.2f", n, sum_ints(4, 1, 2, 3, n), mean(3, 1.0, 2.0, 4.0));
	puts(buf);
	return 0;
}
