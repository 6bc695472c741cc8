// SPDX-License-Identifier: GPL-2.0
/* Expected registrations of an object, from readelf -lW, -n and --sframe, and nm. */
#include <stdio.h>
#include <string.h>

#include "readelf_expect.h"

static FILE *readelf(const char *opt, const char *path)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "LC_ALL=C readelf %s '%s' 2>/dev/null", opt, path);
	return popen(cmd, "r");
}

/* "  LOAD  0xoff 0xvaddr 0xpaddr 0xfilesz 0xmemsz FLG 0xalign" */
static void take_phdr(const char *line, uint64_t bias, struct object_expect *e, uint64_t *lo,
		      uint64_t *hi)
{
	char type[32], flags[16];
	unsigned long off, vaddr, paddr, filesz, memsz;

	if (sscanf(line, "%31s %lx %lx %lx %lx %lx %15[RWE ]", type, &off, &vaddr, &paddr,
		   &filesz, &memsz, flags) != 7)
		return;
	if (!strcmp(type, "GNU_SFRAME")) {
		e->has_sframe = true;
		e->sframe_start = bias + vaddr;
		e->sframe_end = bias + vaddr + memsz;
	}
	if (!strcmp(type, "GNU_EH_FRAME") && memsz) {
		e->eh_frame_hdr_start = bias + vaddr;
		e->eh_frame_hdr_end = bias + vaddr + memsz;
	}
	if (strcmp(type, "LOAD"))
		return;
	if (vaddr < *lo)
		*lo = vaddr;
	if (vaddr + memsz > *hi)
		*hi = vaddr + memsz;
	if (!strchr(flags, 'E') || !memsz || e->ntext == EXPECT_MAX_TEXT)
		return;
	if (!e->ntext)
		e->text_vaddr = vaddr;
	e->text_start[e->ntext] = bias + vaddr;
	e->text_end[e->ntext++] = bias + vaddr + memsz;
}

static void take_build_id(const char *path, struct object_expect *e)
{
	FILE *f = readelf("-n", path);
	char line[512];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " Build ID: %128[0-9a-f]", e->build_id) == 1)
			break;
	if (f)
		pclose(f);
}

int readelf_expect(const char *path, uint64_t bias, struct object_expect *e)
{
	FILE *f = readelf("-lW", path);
	uint64_t lo = UINT64_MAX, hi = 0;
	char line[512];

	memset(e, 0, sizeof(*e));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		take_phdr(line, bias, e, &lo, &hi);
	if (pclose(f) || hi <= lo)
		return -1;
	e->elf_start = bias + lo;
	e->elf_end = bias + hi;
	take_build_id(path, e);
	return 0;
}

int readelf_fde_covers(const char *path, uint64_t addr)
{
	FILE *f = readelf("--sframe", path);
	char line[512];
	unsigned long long pc;
	unsigned int size;
	int idx, funcs = 0, covers = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " func idx [%d]: pc = %llx, size = %u bytes", &idx, &pc,
			   &size) == 3) {
			funcs++;
			covers |= addr >= pc && addr < pc + size;
		}
	pclose(f);
	return funcs ? covers : -1;
}

int nm_symbol(const char *path, const char *name, uint64_t *value)
{
	char cmd[4200], line[512], sym[256], type;
	unsigned long long v;
	int found = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "LC_ALL=C nm '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &v, &type, sym) == 3 && !strcmp(sym, name)) {
			*value = v;
			found = 0;
		}
	pclose(f);
	return found;
}
