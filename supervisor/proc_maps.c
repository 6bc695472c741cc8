// SPDX-License-Identifier: GPL-2.0
/* /proc/PID/maps reader: address ranges and r/w/x of every mapping. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "proc_maps.h"

int proc_maps_parse_line(const char *line, uint64_t *start, uint64_t *end, unsigned int *prot)
{
	char perms[5];

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", start, end, perms) != 3 || *start >= *end)
		return -EINVAL;
	*prot = (perms[0] == 'r' ? EMU_PROT_READ : 0) | (perms[1] == 'w' ? EMU_PROT_WRITE : 0) |
		(perms[2] == 'x' ? EMU_PROT_EXEC : 0);
	return 0;
}

int proc_maps_read(pid_t pid, struct emu_mappings *m)
{
	char path[64], line[4096 + 256];
	uint64_t start, end;
	unsigned int prot;
	int err = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	emu_mappings_reset(m);
	while (!err && fgets(line, sizeof(line), f)) {
		err = proc_maps_parse_line(line, &start, &end, &prot);
		if (!err)
			err = emu_mappings_add(m, start, end, prot);
	}
	fclose(f);
	return err;
}
