// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/maps reader: address ranges, r/w/x and what file each mapping shows. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "proc_maps.h"

/* Mappings at or above this are not VMAs a find_vma() sees ([vsyscall]). */
#define USER_SPACE_END (1ull << 56)

int proc_maps_parse_line(const char *line, uint64_t *start, uint64_t *end, unsigned int *prot,
			 uint64_t *ident)
{
	unsigned int dev_major, dev_minor;
	uint64_t offset, inode;
	char perms[5];

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64, start, end,
		   perms, &offset, &dev_major, &dev_minor, &inode) != 7 || *start >= *end)
		return -EINVAL;
	*prot = (perms[0] == 'r' ? EMU_PROT_READ : 0) | (perms[1] == 'w' ? EMU_PROT_WRITE : 0) |
		(perms[2] == 'x' ? EMU_PROT_EXEC : 0);
	/* a file mapping's identity: device, inode and file offset */
	*ident = inode ? (inode * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)dev_major << 40) ^
			 ((uint64_t)dev_minor << 20) ^ offset : 0;
	return 0;
}

/* The rest of an over-long line (a mapped file with a very long path). */
static void skip_rest(FILE *f, const char *line)
{
	int c;

	if (strchr(line, '\n'))
		return;
	while ((c = fgetc(f)) != EOF && c != '\n')
		;
}

int proc_maps_read(pid_t pid, struct emu_mappings *m)
{
	char path[64], line[512];
	uint64_t start, end, ident;
	unsigned int prot;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	emu_mappings_reset(m);
	while (!err && fgets(line, sizeof(line), f)) {
		skip_rest(f, line);
		err = proc_maps_parse_line(line, &start, &end, &prot, &ident);
		if (!err && start < USER_SPACE_END)
			err = emu_mappings_add_ident(m, start, end, prot, ident);
	}
	fclose(f);
	return err;
}
