// SPDX-License-Identifier: GPL-2.0
/* The files of a traced process's modules for libdwfl: its objects and their debug files. */
#include <dirent.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module_files.h"
#include "supervisor/core/as_tracee.h"

#define DELETED " (deleted)"
#define DWZ_DIR MODULE_FILES_DEBUG_DIR "/.dwz/"
#define MIN_BUILD_ID 3		/* bytes, as libdw and libdwfl look them up */
#define MAX_BUILD_ID 64
#define CRC_CHUNK 65536

/*
 * libdw's own mark for "its supplementary file was looked for: there is
 * none" (dwarf_getalt(), elfutils 0.171 to 0.196 at least): without it,
 * libdw opens the .gnu_debugaltlink name itself, absolute or relative, with
 * plain open(2).
 */
#define NO_ALT ((Dwarf *)-1)

/**
 * struct debug_want - what a debug file must be
 * @who: the process it is opened for
 * @build_id, @build_id_len: the build ID it must carry (len <= 0: none known)
 * @crc, @have_crc: else, the CRC-32 of its contents (from .gnu_debuglink)
 */
struct debug_want {
	struct as_tracee_id *who;
	const unsigned char *build_id;
	int build_id_len;
	GElf_Word crc;
	bool have_crc;
};

static int tag(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start, void *arg)
{
	(void)mod, (void)name, (void)start;
	*userdata = arg;
	return DWARF_CB_OK;
}

void module_files_tag(Dwfl *dwfl, struct as_tracee_id *who)
{
	dwfl_getmodules(dwfl, tag, who, 0);
}

/*
 * The file behind a mapping of process @pid whose name (@name, as
 * /proc/PID/maps shows it) ends in " (deleted)": a memfd, a file deleted
 * since it was mapped. /proc/PID/map_files holds it (an open takes
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE; without, -1). Only a regular file
 * of at most AS_TRACEE_MAX_BYTES, opened without blocking. The process has
 * it mapped: what it shows is what the process could read. @path gets the
 * link's path. Return: a descriptor, or -1.
 */
static int map_files_open(pid_t pid, const char *name, char *path, size_t size)
{
	char dir[64], link[PATH_MAX];
	struct dirent *e;
	struct stat st;
	int fd = -1;
	ssize_t n;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/map_files", (int)pid);
	d = opendir(dir);
	while (d && fd < 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.' ||
		    (size_t)snprintf(path, size, "%s/%s", dir, e->d_name) >= size)
			continue;
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, name))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
				st.st_size > AS_TRACEE_MAX_BYTES)) {
			close(fd);
			fd = -1;
			break;
		}
	}
	if (d)
		closedir(d);
	return fd;
}

/* A module whose file is gone: the file behind the mapping, else the image in memory. */
static int find_deleted(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			char **file_name, Elf **elfp)
{
	struct as_tracee_id *who = *userdata;
	char image[32], path[PATH_MAX];
	int fd = map_files_open(who->pid, name, path, sizeof(path));

	if (fd >= 0) {
		*file_name = strdup(path);
		if (*file_name)
			return fd;
		close(fd);
	}
	/* as libdwfl reads a module for a process it attached */
	snprintf(image, sizeof(image), "[vdso: %d]", (int)who->pid);
	return dwfl_linux_proc_find_elf(mod, userdata, image, base, file_name, elfp);
}

int module_files_find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			  char **file_name, Elf **elfp)
{
	size_t len = strlen(name), del = strlen(DELETED);
	struct as_tracee_id *who = *userdata;
	int fd;

	if (!who)
		return -1;
	if (name[0] != '/')	/* "[vdso: PID]": read from memory */
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	if (len > del && !strcmp(name + len - del, DELETED))
		return find_deleted(mod, userdata, name, base, file_name, elfp);
	fd = as_tracee_open(who, name);
	if (fd < 0)
		return -1;
	*file_name = strdup(name);
	if (!*file_name) {
		close(fd);
		return -1;
	}
	return fd;
}

uint32_t module_files_crc32(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t table[256], c;

	for (uint32_t i = 0; i < 256; i++) {
		c = i;
		for (int k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320u & -(c & 1));
		table[i] = c;
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ crc >> 8;
	return ~crc;
}

/* The CRC-32 of the file (at most AS_TRACEE_MAX_BYTES: it may grow after the check). */
static int file_crc(int fd, uint32_t *crc)
{
	char *buf = malloc(CRC_CHUNK);
	long long off = 0;
	ssize_t n = 0;

	if (!buf)
		return -ENOMEM;
	*crc = 0;
	while (off < AS_TRACEE_MAX_BYTES && (n = pread(fd, buf, CRC_CHUNK, off)) > 0) {
		*crc = module_files_crc32(*crc, buf, (size_t)n);
		off += n;
	}
	free(buf);
	return n < 0 ? -EIO : 0;
}

static bool build_id_is(int fd, const unsigned char *id, int len)
{
	const void *got = NULL;
	bool same = false;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && dwelf_elf_gnu_build_id(elf, &got) == len)
		same = !memcmp(got, id, (size_t)len);
	elf_end(elf);
	return same;
}

static bool matches(const struct debug_want *w, int fd)
{
	uint32_t crc;

	if (w->build_id_len > 0)
		return build_id_is(fd, w->build_id, w->build_id_len);
	return w->have_crc && !file_crc(fd, &crc) && crc == w->crc;
}

/* @path (printf-style) through as_tracee_open(), if it is the file wanted. */
__attribute__((format(printf, 3, 4)))
static int try_path(const struct debug_want *w, char **found, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	fd = as_tracee_open(w->who, path);
	if (fd < 0)
		return -1;
	if (!matches(w, fd) || !(*found = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* MODULE_FILES_DEBUG_DIR/.build-id/xx/rest.debug */
static int by_build_id(const struct debug_want *w, char **found)
{
	char hex[2 * MAX_BUILD_ID + 1];

	if (w->build_id_len < MIN_BUILD_ID || w->build_id_len > MAX_BUILD_ID)
		return -1;
	for (int i = 0; i < w->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", w->build_id[i]);
	return try_path(w, found, "%s/.build-id/%.2s/%s.debug", MODULE_FILES_DEBUG_DIR, hex,
			hex + 2);
}

/* A name that stays in the directory it is looked for in. */
static bool plain_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

/* @name in the standard places for the module at @file. */
static int in_standard_places(const struct debug_want *w, const char *file, const char *name,
			      char **found)
{
	int dir_len = (int)(strrchr(file, '/') - file);
	const char *sub;
	int fd;

	fd = try_path(w, found, "%.*s/%s", dir_len, file, name);
	if (fd < 0)
		fd = try_path(w, found, "%.*s/.debug/%s", dir_len, file, name);
	for (sub = file; fd < 0 && sub < file + dir_len; sub = strchr(sub + 1, '/'))
		fd = try_path(w, found, "%s%.*s/%s", MODULE_FILES_DEBUG_DIR,
			      (int)(file + dir_len - sub), sub, name);
	if (fd < 0 && dir_len)
		fd = try_path(w, found, "%s/%s", MODULE_FILES_DEBUG_DIR, name);
	return fd;
}

/* By the debug link's name, or without one, the module's own name + ".debug". */
static int by_debug_link(const struct debug_want *w, const char *file, const char *link,
			 char **found)
{
	char *name = NULL;
	int fd = -1;

	if (!file || file[0] != '/')
		return -1;
	if (link)
		name = strdup(link);
	else if (w->build_id_len > 0 && asprintf(&name, "%s.debug", strrchr(file, '/') + 1) < 0)
		name = NULL;
	if (name && plain_name(name))
		fd = in_standard_places(w, file, name, found);
	free(name);
	return fd;
}

/*
 * The supplementary file (dwz) the module's DWARF names, which libdwfl asks
 * for once that DWARF is made: by its build ID, or by its name under
 * DWZ_DIR; when neither, libdw is told there is none.
 */
static int find_alt(Dwfl_Module *mod, struct debug_want *w, char **found)
{
	const char *name = NULL;
	const void *id = NULL;
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	int fd = -1;

	if (!dw)
		return -1;
	w->build_id_len = (int)dwelf_dwarf_gnu_debugaltlink(dw, &name, &id);
	w->build_id = id;
	if (w->build_id_len > 0)
		fd = by_build_id(w, found);
	if (fd < 0 && w->build_id_len > 0 && !strncmp(name, DWZ_DIR, strlen(DWZ_DIR)) &&
	    !strstr(name, "/.."))
		fd = try_path(w, found, "%s", name);
	if (fd < 0)
		dwarf_setalt(dw, NO_ALT);
	return fd;
}

int module_files_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
				Dwarf_Addr base, const char *file_name, const char *debuglink_file,
				GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct debug_want w = { .who = *userdata };
	const unsigned char *id = NULL;
	GElf_Addr addr;
	GElf_Word crc;
	Elf *elf;
	int fd;

	(void)modname, (void)base;
	elf = w.who ? dwfl_module_getelf(mod, &addr) : NULL;
	if (!elf)
		return -1;
	/* the main file's debug link is passed as read from it; any other name is dwz's */
	if (debuglink_file && debuglink_file != dwelf_elf_gnu_debuglink(elf, &crc))
		return find_alt(mod, &w, debuginfo_file_name);
	w.build_id_len = dwfl_module_build_id(mod, &id, &addr);
	w.build_id = id;
	fd = by_build_id(&w, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	w.crc = debuglink_crc;
	w.have_crc = debuglink_file != NULL;
	return by_debug_link(&w, file_name, debuglink_file, debuginfo_file_name);
}
