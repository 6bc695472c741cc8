// SPDX-License-Identifier: MIT
/* Which file is mapped at an address: /proc/self/maps read without stdio or malloc. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_object.h"

/* "start-end perms offset dev inode   path": the path if @addr is in the range. */
static bool line_path(const char *line, uint64_t addr, char *buf, size_t len)
{
	char *end;
	uint64_t start = strtoull(line, &end, 16), stop;
	const char *path;

	if (*end != '-')
		return false;
	stop = strtoull(end + 1, &end, 16);
	if (addr < start || addr >= stop)
		return false;
	path = strchr(end, '/');
	if (!path || strlen(path) >= len)
		return false;
	strcpy(buf, path);
	return true;
}

int audit_mapped_path(uint64_t addr, char *buf, size_t len, struct audit_scratch *s)
{
	char *chunk = s->names, *nl;
	size_t have = 0;
	ssize_t n;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC), found = -1;

	if (fd < 0)
		return -1;
	while (found && (n = read(fd, chunk + have, sizeof(s->names) - 1 - have)) > 0) {
		char *line = chunk;

		have += (size_t)n;
		chunk[have] = '\0';
		while (found && (nl = strchr(line, '\n'))) {
			*nl = '\0';
			if (line_path(line, addr, buf, len))
				found = 0;
			line = nl + 1;
		}
		have -= (size_t)(line - chunk);
		memmove(chunk, line, have);
		if (have == sizeof(s->names) - 1)
			have = 0;	/* a line longer than the buffer: skip it */
	}
	close(fd);
	return found;
}
