// SPDX-License-Identifier: GPL-2.0
/* Which of a traced process's mapped files libunwind-ptrace may open. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mapped_files.h"
#include "supervisor/core/as_tracee.h"
#include "supervisor/core/clock.h"

#define UNCHECKED 1

void mapped_files_init(struct mapped_files *mf, pid_t pid)
{
	*mf = (struct mapped_files){ .pid = pid };
}

static void free_all(struct mapped_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

void mapped_files_forget(struct mapped_files *mf)
{
	free_all(mf->v, mf->n);
	mf->v = NULL;
	mf->n = 0;
	mf->read_ns = 0;
}

void mapped_files_free(struct mapped_files *mf)
{
	mapped_files_forget(mf);
	*mf = (struct mapped_files){ 0 };
}

void mapped_files_new_sample(struct mapped_files *mf, uint64_t taken_ns)
{
	mf->sample_ns = taken_ns;
}

/* The mapping holding @addr (binary search: /proc/PID/maps is in address order). */
static struct mapped_file *find(struct mapped_file *v, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < v[mid].start)
			hi = mid;
		else if (addr >= v[mid].end)
			lo = mid + 1;
		else
			return &v[mid];
	}
	return NULL;
}

const struct mapped_file *mapped_files_find(const struct mapped_files *mf, uint64_t addr)
{
	return find(mf->v, mf->n, addr);
}

/*
 * "START-END PERMS OFFSET MAJ:MIN INODE   PATH": the path is the rest of the
 * line after the blanks, as libunwind reads it (spaces and " (deleted)" kept).
 */
static int parse_line(char *line, struct mapped_file *f)
{
	unsigned long long start, end, ino;
	unsigned int maj, min;
	char perms[8];
	int n = -1;

	if (sscanf(line, "%llx-%llx %7s %*x %x:%x %llu %n", &start, &end, perms, &maj, &min,
		   &ino, &n) != 6 || n < 0 || start >= end)
		return -EINVAL;
	line[n + strcspn(line + n, "\n")] = '\0';
	*f = (struct mapped_file){ .start = start, .end = end, .path = strdup(line + n),
				   .verdict = UNCHECKED, .writable = perms[1] == 'w' };
	return f->path ? 0 : -ENOMEM;
}

/* Keep what was checked of mappings that are still there, the same, and their ids. */
static void carry_verdicts(struct mapped_files *old, struct mapped_file *v, size_t n)
{
	struct mapped_file *o;

	for (size_t i = 0; i < n; i++) {
		o = find(old->v, old->n, v[i].start);
		if (o && o->start == v[i].start && o->end == v[i].end && !strcmp(o->path, v[i].path)) {
			v[i].verdict = o->verdict;
			v[i].id = o->id;
		} else {
			v[i].id = ++old->last_id;
		}
	}
}

static int read_maps(struct mapped_files *mf)
{
	size_t size = 0, n = 0, cap = 0;
	struct mapped_file f, *v = NULL, *p;
	char path[64], *line = NULL;
	int err = 0;
	FILE *file;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)mf->pid);
	file = fopen(path, "re");
	if (!file)
		return -ENOENT;
	while (!err && getline(&line, &size, file) > 0) {
		err = parse_line(line, &f);
		if (err == -EINVAL) {
			err = 0;
			continue;
		}
		if (!err && n == cap) {
			cap = cap ? cap * 2 : 64;
			p = realloc(v, cap * sizeof(*v));
			err = p ? 0 : -ENOMEM;
			v = p ? p : v;
		}
		if (err)
			free(f.path);
		else
			v[n++] = f;
	}
	free(line);
	fclose(file);
	if (!err)
		carry_verdicts(mf, v, n);
	mapped_files_forget(mf);
	mf->reads++;
	mf->read_ns = clock_now_ns();
	if (err) {
		free_all(v, n);
		return err;
	}
	mf->v = v;
	mf->n = n;
	return 0;
}

int mapped_files_check(struct mapped_files *mf, struct as_tracee_id *who, uint64_t addr)
{
	struct mapped_file *f = find(mf->v, mf->n, addr);
	char path[PATH_MAX];
	int fd, err;

	if (!f && (!mf->read_ns || mf->read_ns < mf->sample_ns)) {
		err = read_maps(mf);
		if (err)
			return err;
		f = find(mf->v, mf->n, addr);
	}
	if (!f || f->path[0] != '/')
		return -ENOENT;
	if (f->verdict != UNCHECKED)
		return f->verdict;
	if ((size_t)snprintf(path, sizeof(path), "/proc/%d/root%s", (int)mf->pid, f->path) >=
	    sizeof(path)) {
		f->verdict = -ENAMETOOLONG;
		return f->verdict;
	}
	fd = as_tracee_open(who, path);
	if (fd >= 0)
		close(fd);
	f->verdict = fd < 0 ? fd : 0;
	return f->verdict;
}
