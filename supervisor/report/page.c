// SPDX-License-Identifier: GPL-2.0
/* --html: the page, built in from page.html, with the report's data in it. */
#include <stdlib.h>
#include <string.h>

#include "page.h"

/* page.html, NUL-terminated (Makefile: page.o depends on it). */
__asm__(".pushsection .rodata\n"
	".type report_page_html, @object\n"
	"report_page_html:\n"
	".incbin \"supervisor/report/page.html\"\n"
	".byte 0\n"
	".size report_page_html, . - report_page_html\n"
	".popsection\n");
extern const char report_page_html[] __asm__("report_page_html");

#define PAGE_DATA "/*@DATA@*/"

int page_write(FILE *f, const json_t *data)
{
	const char *mark = strstr(report_page_html, PAGE_DATA);
	char *text = mark ? json_dumps(data, JSON_COMPACT) : NULL;

	if (!text)
		return -1;
	fwrite(report_page_html, 1, (size_t)(mark - report_page_html), f);
	/* inside <script>, no '<' at all: "</script>" or "<!--" in a name cannot end it */
	for (const char *p = text; *p; p++)
		if (*p == '<')
			fputs("\\u003c", f);
		else
			fputc(*p, f);
	fputs(mark + strlen(PAGE_DATA), f);
	free(text);
	return ferror(f) ? -1 : 0;
}
