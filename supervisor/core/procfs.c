// SPDX-License-Identifier: GPL-2.0
/* /proc readers: a task's status and stat lines, its exe link, its maps. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

/* A "Name: pid" line of /proc/TID/status; 0 when the task is gone. */
static pid_t status_pid(pid_t tid, const char *field)
{
	char path[64], line[128], fmt[32];
	pid_t pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	snprintf(fmt, sizeof(fmt), "%s: %%d", field);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &pid) == 1)
			break;
	fclose(f);
	return pid;
}

bool procfs_blocks(pid_t tid, int sig)
{
	char path[64], line[128];
	unsigned long long mask = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "SigBlk: %llx", &mask) == 1;
	fclose(f);
	return found && (mask >> (sig - 1) & 1);
}

void procfs_comm(pid_t tid, char *buf, size_t size)
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, size - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

pid_t procfs_tgid_of(pid_t tid)
{
	return status_pid(tid, "Tgid");
}

pid_t procfs_ppid_of(pid_t tid)
{
	return status_pid(tid, "PPid");
}

/* Up to @size bytes of /proc/@pid/@name into @buf, with one read; bytes read (0: none). */
static size_t read_proc_file(pid_t pid, const char *name, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, size);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

unsigned long long procfs_start_time(pid_t pid)
{
	char buf[1024], *p;
	unsigned long long t = 0;
	size_t n = read_proc_file(pid, "stat", buf, sizeof(buf) - 1);

	if (!n)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');		/* the command name may hold spaces and parentheses */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%llu", &t);
	return t;
}

void procfs_exe(pid_t pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, buf, size - 1);
	buf[n > 0 ? n : 0] = '\0';
}

size_t procfs_cmdline(pid_t pid, char *buf, size_t size)
{
	return read_proc_file(pid, "cmdline", buf, size);
}

/* Mappings at or above this are not VMAs a find_vma() sees ([vsyscall]). */
#define USER_SPACE_END (1ull << 56)

/*
 * The number in base @base at *@p, which must end with @sep (0: any
 * character); *@p moves past the separator. false when there is none.
 */
static bool number(const char **p, int base, char sep, uint64_t *v)
{
	char *e;

	if (!isxdigit((unsigned char)**p))
		return false;
	errno = 0;
	*v = strtoull(*p, &e, base);
	if (errno || (sep && *e != sep))
		return false;
	*p = sep ? e + 1 : e;
	return true;
}

uint64_t procfs_map_ident(uint64_t offset, uint64_t dev_major, uint64_t dev_minor, uint64_t inode)
{
	return inode ? (inode * 0x9e3779b97f4a7c15ull) ^ (dev_major << 40) ^ (dev_minor << 20) ^
		       offset : 0;
}

int procfs_maps_parse_line(const char *line, uint64_t *start, uint64_t *end, unsigned int *prot,
			   uint64_t *ident)
{
	uint64_t offset, dev_major, dev_minor, inode;
	const char *p = line, *perms;

	/* "START-END PERMS OFFSET MAJOR:MINOR INODE [PATH]", numbers in hex but INODE */
	if (!number(&p, 16, '-', start) || !number(&p, 16, ' ', end))
		return -EINVAL;
	perms = p;
	if (strnlen(perms, 5) < 5 || perms[4] != ' ')
		return -EINVAL;
	p += 5;
	if (!number(&p, 16, ' ', &offset) || !number(&p, 16, ':', &dev_major) ||
	    !number(&p, 16, ' ', &dev_minor) || !number(&p, 10, 0, &inode) || *start >= *end)
		return -EINVAL;
	*prot = (perms[0] == 'r' ? EMU_PROT_READ : 0) | (perms[1] == 'w' ? EMU_PROT_WRITE : 0) |
		(perms[2] == 'x' ? EMU_PROT_EXEC : 0) | (strstr(p, " [vdso]") ? EMU_VMA_VDSO : 0);
	*ident = procfs_map_ident(offset, dev_major, dev_minor, inode);
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

int procfs_maps_read(pid_t pid, struct emu_mappings *m)
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
		err = procfs_maps_parse_line(line, &start, &end, &prot, &ident);
		if (!err && start < USER_SPACE_END)
			err = emu_mappings_add_ident(m, start, end, prot, ident);
	}
	fclose(f);
	return err ? err : m->n ? 0 : -ESRCH;
}
