// SPDX-License-Identifier: GPL-2.0
/* perf maps (/tmp/perf-PID.map): JIT function names, read from an untrusted file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_map.h"
#include "supervisor/core/as_tracee.h"

void perf_map_init(struct perf_map *m, pid_t pid, const char *path)
{
	int len;

	*m = (struct perf_map){ .pid = pid, .max_bytes = PERF_MAP_MAX_BYTES };
	as_tracee_id_init(&m->who, pid);
	if (path)
		len = snprintf(m->path, sizeof(m->path), "%s", path);
	else
		len = snprintf(m->path, sizeof(m->path), "/tmp/perf-%d.map", (int)pid);
	if (len < 0 || (size_t)len >= sizeof(m->path))
		m->path[0] = '\0';	/* never looked at */
}

void perf_map_free(struct perf_map *m)
{
	free(m->v);
	free(m->names);
	as_tracee_id_free(&m->who);
	*m = (struct perf_map){ 0 };
}

void perf_map_new_sample(struct perf_map *m)
{
	m->checked = false;
	as_tracee_id_new_sample(&m->who);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number at *@p (optional 0x, at most 16 significant digits); *@p moves past it. */
static int parse_hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	unsigned int digits = 0, significant = 0;
	uint64_t x = 0;
	int d;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; s < end && (d = hex_digit(*s)) >= 0; s++, digits++) {
		significant += x || d;
		if (significant > 16)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
	}
	if (!digits)
		return -EINVAL;
	*v = x;
	*p = s;
	return 0;
}

/* One or more blanks at *@p; *@p moves past them. */
static int skip_blanks(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return -EINVAL;
	*p = s;
	return 0;
}

int perf_map_parse_line(const char *line, size_t len, uint64_t *start, uint64_t *size,
			const char **name, size_t *name_len)
{
	const char *p = line, *end = line + len;

	if (parse_hex(&p, end, start) || skip_blanks(&p, end) || parse_hex(&p, end, size) ||
	    skip_blanks(&p, end))
		return -EINVAL;
	if (end > p && end[-1] == '\r')
		end--;
	if (p == end || !*size || *size > UINT64_MAX - *start)
		return -EINVAL;
	*name = p;
	*name_len = (size_t)(end - p);
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct perf_map_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int reserve(struct perf_map *m, size_t name_len)
{
	size_t cap;
	void *p;

	if (m->n == m->cap) {
		cap = m->cap ? m->cap * 2 : 256;
		p = realloc(m->v, cap * sizeof(*m->v));
		if (!p)
			return -ENOMEM;
		m->v = p;
		m->cap = cap;
	}
	if (m->names_cap - m->names_len <= name_len) {
		cap = m->names_cap ? m->names_cap * 2 : 4096;
		while (cap - m->names_len <= name_len)
			cap *= 2;
		p = realloc(m->names, cap);
		if (!p)
			return -ENOMEM;
		m->names = p;
		m->names_cap = cap;
	}
	return 0;
}

/*
 * Keep one line's entry. Names go to reports, terminals and JSON: anything
 * but printable ASCII (and ';', folded stacks' separator) becomes '?'.
 */
static void add_line(struct perf_map *m, const char *line, size_t len)
{
	uint64_t start, size;
	const char *name;
	size_t name_len, i;
	char *out;

	m->lines++;
	if (m->n >= PERF_MAP_MAX_ENTRIES)
		m->problem = "more than 1048576 functions: the rest are not named";
	if (len > PERF_MAP_MAX_LINE || m->n >= PERF_MAP_MAX_ENTRIES ||
	    perf_map_parse_line(line, len, &start, &size, &name, &name_len) ||
	    reserve(m, name_len))
		return;
	out = m->names + m->names_len;
	for (i = 0; i < name_len; i++)
		out[i] = name[i] < 0x20 || name[i] > 0x7e || name[i] == ';' ? '?' : name[i];
	out[name_len] = '\0';
	m->v[m->n] = (struct perf_map_entry){ .start = start, .end = start + size,
					      .name_off = (uint32_t)m->names_len, .seq = m->lines };
	if (m->n && cmp_entry(&m->v[m->n - 1], &m->v[m->n]) > 0)
		m->unsorted = true;
	m->n++;
	m->names_len += name_len + 1;
}

/* Parse the complete lines of @buf (@len bytes). Return: the bytes consumed. */
static size_t parse_lines(struct perf_map *m, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (m->skip_line)
			m->skip_line = false;
		else
			add_line(m, p, (size_t)(nl - p));
		p = nl + 1;
	}
	return (size_t)(p - buf);
}

/*
 * Entries [0, @old) were sorted: sort the ones appended since, and merge
 * them in from the back (a JIT's threads append out of order; sorting the
 * whole map again at every read of a growing file would cost n log n each).
 */
static void sort_appended(struct perf_map *m, size_t old)
{
	size_t k = m->n - old, i = old, j = k, o = m->n;
	struct perf_map_entry *tail;

	qsort(m->v + old, k, sizeof(*m->v), cmp_entry);
	if (!old || !k || cmp_entry(&m->v[old - 1], &m->v[old]) <= 0)
		return;
	tail = malloc(k * sizeof(*tail));
	if (!tail) {
		qsort(m->v, m->n, sizeof(*m->v), cmp_entry);
		return;
	}
	memcpy(tail, m->v + old, k * sizeof(*tail));
	while (j) {
		if (i && cmp_entry(&m->v[i - 1], &tail[j - 1]) > 0)
			m->v[--o] = m->v[--i];
		else
			m->v[--o] = tail[--j];
	}
	free(tail);
}

/* Read and parse the file from @m->read_off to @size (at most max_bytes in all). */
static void read_from(struct perf_map *m, int fd, off_t size)
{
	off_t limit = size < (off_t)m->max_bytes ? size : (off_t)m->max_bytes;
	char *buf = malloc(PERF_MAP_CHUNK);
	size_t have = 0, used, want, old = m->n;
	ssize_t r;

	if (size > (off_t)m->max_bytes)
		m->problem = "larger than the 64 MiB read: the rest is not read";
	while (buf && m->read_off + (off_t)have < limit) {
		want = PERF_MAP_CHUNK - have;
		if ((off_t)want > limit - m->read_off - (off_t)have)
			want = (size_t)(limit - m->read_off - (off_t)have);
		r = pread(fd, buf + have, want, m->read_off + (off_t)have);
		if (r <= 0)
			break;
		have += (size_t)r;
		used = parse_lines(m, buf, have);
		m->read_off += (off_t)used;
		have -= used;
		memmove(buf, buf + used, have);
		if (have > PERF_MAP_MAX_LINE) {	/* a line too long: skipped to its end */
			m->read_off += (off_t)have;
			have = 0;
			m->skip_line = true;
		}
	}
	free(buf);
	if (m->unsorted)
		sort_appended(m, old);
	m->unsorted = false;
	m->reads++;
}

/* Is @uid ours, or the effective or file-system uid of the process? */
static bool owner_ok(struct perf_map *m, uid_t uid)
{
	unsigned int real, eff, saved, fs;
	char path[64], line[256];
	bool ok = false;
	FILE *f;

	if (uid == geteuid() || (m->have_owner && uid == m->owner))
		return true;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)m->pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u %u %u %u", &real, &eff, &saved, &fs) == 4) {
			ok = uid == (uid_t)eff || uid == (uid_t)fs;
			break;
		}
	fclose(f);
	if (ok) {
		m->owner = uid;
		m->have_owner = true;
	}
	return ok;
}

static void forget(struct perf_map *m)
{
	m->n = 0;
	m->names_len = 0;
	m->lines = 0;
	m->read_off = 0;
	m->skip_line = false;
	m->have_file = false;
}

/*
 * Look at the file again: read what was appended, or all of it when it is
 * another file, shorter, or rewritten (same size, new mtime). A file that is
 * gone or refused leaves the entries read so far (a program may remove its
 * map as it exits, before its last samples are symbolized). It is opened as
 * every file a tracee names (as_tracee_open(): a regular file, no link
 * followed, with the program's credentials), then must be the program's
 * own or ours.
 */
static void refresh(struct perf_map *m)
{
	struct stat st;
	int fd;

	if (m->checked || !m->path[0])
		return;
	m->checked = true;
	fd = as_tracee_open(&m->who, m->path);
	if (fd < 0) {
		if (fd == -ELOOP)
			m->problem = "a symbolic link: not followed";
		else if (fd == -EINVAL)
			m->problem = "not a regular file: not read";
		else if (fd == -EFBIG)
			m->problem = "larger than 1 GiB: not read";
		else if (fd == -EACCES || fd == -EPERM)
			m->problem = "not readable by the program: not read";
		return;
	}
	if (fstat(fd, &st))
		goto out;
	if (!owner_ok(m, st.st_uid)) {
		m->problem = "owned by a user other than the program's or ours: not read";
		goto out;
	}
	if (m->have_file && st.st_dev == m->dev && st.st_ino == m->ino && st.st_size == m->size &&
	    st.st_mtim.tv_sec == m->mtime.tv_sec && st.st_mtim.tv_nsec == m->mtime.tv_nsec)
		goto out;	/* unchanged */
	if (!m->have_file || st.st_dev != m->dev || st.st_ino != m->ino || st.st_size <= m->size)
		forget(m);
	m->have_file = true;
	m->dev = st.st_dev;
	m->ino = st.st_ino;
	m->size = st.st_size;
	m->mtime = st.st_mtim;
	read_from(m, fd, st.st_size);
out:
	close(fd);
}

static const struct perf_map_entry *find(const struct perf_map *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n, mid;
	const struct perf_map_entry *e;

	while (lo < hi) {	/* the first entry starting above @addr */
		mid = lo + (hi - lo) / 2;
		if (m->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	e = &m->v[lo - 1];	/* the last (latest) entry starting at or below it */
	return addr < e->end ? e : NULL;
}

const char *perf_map_function(struct perf_map *m, uint64_t addr, uint64_t *start, uint64_t *end)
{
	const struct perf_map_entry *e = find(m, addr);

	if (!e) {
		refresh(m);
		e = find(m, addr);
	}
	if (!e)
		return NULL;
	*start = e->start;
	*end = e->end;
	return m->names + e->name_off;
}

const char *perf_map_lookup(struct perf_map *m, uint64_t addr, uint64_t *start)
{
	uint64_t end;

	return perf_map_function(m, addr, start, &end);
}
