// SPDX-License-Identifier: MIT
/* An object's SFrame file under CODECTL_SFRAME_PATH (audit_sframe_file.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_sframe_file.h"

/* "DIR/.build-id/xx/rest.sframe" from the @n bytes of @dir; false when it does not fit. */
static bool file_name(const char *dir, size_t n, const struct audit_object *o, char *name,
		      size_t len)
{
	int at = snprintf(name, len, "%.*s/.build-id/%02x/", (int)n, dir, o->build_id[0]);

	for (uint32_t i = 1; at > 0 && (size_t)at + 3 < len && i < o->build_id_len; i++)
		at += snprintf(name + at, len - (size_t)at, "%02x", o->build_id[i]);
	return at > 0 && (size_t)at + sizeof(".sframe") <= len &&
	       snprintf(name + at, len - (size_t)at, ".sframe") > 0;
}

static bool header_ok(const struct codectl_sframe_file *h, const struct audit_object *o)
{
	return !memcmp(h->magic, CODECTL_SFRAME_FILE_MAGIC, sizeof(h->magic)) &&
	       h->version == CODECTL_SFRAME_FILE_VERSION &&
	       h->build_id_len == o->build_id_len &&
	       !memcmp(h->build_id, o->build_id, o->build_id_len);
}

int audit_sframe_file_open(const char *dirs, const struct audit_object *o,
			   struct codectl_sframe_file *h, char *name, size_t len)
{
	const char *dir = dirs;

	if (o->build_id_len < 2)
		return -1;
	while (*dir) {
		size_t n = strcspn(dir, ":");
		/* never wait on a FIFO, never take a terminal: a regular file only */
		int fd = n && file_name(dir, n, o, name, len) ?
			 open(name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
		struct stat st;

		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    pread(fd, h, sizeof(*h), 0) == (ssize_t)sizeof(*h) && header_ok(h, o))
			return fd;
		if (fd >= 0)
			close(fd);
		dir += n + (dir[n] == ':');
	}
	return -1;
}
