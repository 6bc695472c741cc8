// SPDX-License-Identifier: GPL-2.0
/* codectl-run's log lines. */
#include <stdarg.h>

#include "log.h"

static void vline(struct log *l, const char *fmt, va_list ap)
{
	fputs("codectl-run: ", l->f);
	vfprintf(l->f, fmt, ap);
	fputc('\n', l->f);
}

void log_line(struct log *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(l, fmt, ap);
	va_end(ap);
}

void log_note(struct log *l, const char *fmt, ...)
{
	va_list ap;

	if (l->quiet)
		return;
	va_start(ap, fmt);
	vline(l, fmt, ap);
	va_end(ap);
}
