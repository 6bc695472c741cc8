// SPDX-License-Identifier: GPL-2.0
/* codectl-run's own descriptors (/proc/self/fd) and memory (/proc/self/status). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>

#include "usage.h"

int self_usage_read(struct self_usage *u)
{
	char line[256];
	struct dirent *e;
	FILE *f;
	DIR *d;

	*u = (struct self_usage){ 0 };
	d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		u->fds += e->d_name[0] != '.';
	u->fds--;	/* the directory's own descriptor */
	closedir(d);
	f = fopen("/proc/self/status", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "VmRSS: %lu kB", &u->rss_kb);
		sscanf(line, "VmHWM: %lu kB", &u->max_rss_kb);
	}
	fclose(f);
	return 0;
}
