/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame rows this toolchain's objdump shows for a program, for tests
 * whose expected outcome is what the assembler or linker emitted.
 */
#ifndef TESTS_OBJDUMP_SFRAME_H
#define TESTS_OBJDUMP_SFRAME_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/*
 * objdump_sframe_cfa() - the CFA column of the rows objdump --sframe shows
 * for the FDE of @prog that starts at @pc, each followed by a space
 * ("sp+16 sp+24 "; "" when there is no such FDE)
 * Returns 0, or -1 when objdump could not be run or @out (@size bytes) is
 * too small.
 */
static inline int objdump_sframe_cfa(const char *prog, unsigned long long pc, char *out,
				     size_t size)
{
	char cmd[4200], line[256], cfa[32];
	unsigned long long at;
	bool in = false;
	size_t n = 0;
	const char *s;
	FILE *p;

	out[0] = '\0';
	snprintf(cmd, sizeof(cmd), "objdump --sframe=.sframe '%s'", prog);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		if ((s = strstr(line, "func idx [")) && (s = strstr(s, "pc = ")) &&
		    sscanf(s, "pc = %llx", &at) == 1) {
			in = at == pc;
			continue;
		}
		if (!in || strstr(line, "STARTPC") || sscanf(line, "%*s %31s", cfa) != 1)
			continue;
		n += (size_t)snprintf(out + n, n < size ? size - n : 0, "%s ", cfa);
	}
	pclose(p);
	return n < size ? 0 : -1;
}

#endif /* TESTS_OBJDUMP_SFRAME_H */
