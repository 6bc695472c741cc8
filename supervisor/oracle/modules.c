// SPDX-License-Identifier: GPL-2.0
/* A traced process's modules, through libdwfl's /proc/PID/maps reader. */
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "module_files.h"
#include "supervisor/core/clock.h"
#include "modules.h"

/* Every file through as_tracee_open() (module_files.h), none by libdwfl's own open(). */
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = module_files_find_elf,
	.find_debuginfo = module_files_find_debuginfo,
};

void modules_init(struct modules *m, pid_t pid)
{
	*m = (struct modules){ .pid = pid };
	as_tracee_id_init(&m->who, pid);
}

void modules_free(struct modules *m)
{
	if (m->dwfl)
		dwfl_end(m->dwfl);
	as_tracee_id_free(&m->who);
	*m = (struct modules){ 0 };
}

void modules_invalidate(struct modules *m)
{
	m->reported = false;
}

void modules_new_sample(struct modules *m, uint64_t taken_ns)
{
	m->sample_ns = taken_ns;
	as_tracee_id_new_sample(&m->who);
}

/*
 * Can the process's mappings still be read? An exited process (or a zombie,
 * whose maps file is empty) cannot: its last module list is kept then.
 */
static bool maps_readable(pid_t pid)
{
	char path[64], c;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, &c, 1);
	close(fd);
	return n == 1;
}

Dwfl *modules_dwfl(struct modules *m)
{
	if (!m->dwfl) {
		m->dwfl = dwfl_begin(&proc_callbacks);
		if (!m->dwfl)
			return NULL;
	}
	if (!m->reported && m->ever_reported && !maps_readable(m->pid)) {
		m->reported = true;	/* gone: what was known stays */
		return m->dwfl;
	}
	if (!m->reported) {
		m->ever_reported = true;
		dwfl_report_begin(m->dwfl);
		if (dwfl_linux_proc_report(m->dwfl, m->pid) || dwfl_report_end(m->dwfl, NULL, NULL))
			return NULL;
		module_files_tag(m->dwfl, &m->who);
		m->reported = true;
		m->reported_ns = clock_now_ns();
	}
	return m->dwfl;
}

/* The module whose own range holds @ip. */
static Dwfl_Module *module_at(Dwfl *dwfl, uint64_t ip)
{
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, ip) : NULL;
	Dwarf_Addr start = 0, end = 0;

	if (mod && (!dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL) ||
		    ip < start || ip >= end))
		return NULL;
	return mod;
}

Dwfl_Module *modules_at(struct modules *m, uint64_t ip)
{
	Dwfl *dwfl = modules_dwfl(m);
	Dwfl_Module *mod = module_at(dwfl, ip);

	if (mod || !dwfl || m->reported_ns >= m->sample_ns)
		return mod;	/* found, or not there when the sample was taken */
	m->reported = false;
	return module_at(modules_dwfl(m), ip);
}

/* "[vdso: 1234]" (as libdwfl names it) is "[vdso]" in reports. */
const char *modules_path(Dwfl_Module *mod)
{
	const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);

	if (name && !strncmp(name, "[vdso", 5))
		return "[vdso]";
	return name;
}

const char *modules_name(Dwfl_Module *mod)
{
	const char *name = modules_path(mod), *slash;

	if (!name)
		return NULL;
	slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

/* Does @cfi describe @pc (module-relative after @bias)? */
static bool cfi_covers(Dwarf_CFI *cfi, Dwarf_Addr bias, uint64_t pc)
{
	Dwarf_Frame *frame = NULL;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame))
		return false;
	free(frame);
	return true;
}

bool modules_has_cfi(struct modules *m, uint64_t pc)
{
	Dwfl_Module *mod = modules_at(m, pc);
	Dwarf_Addr bias = 0;
	Dwarf_CFI *cfi;

	if (!mod)
		return false;
	/* the bias is known once the call has set it: two statements, not one */
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi_covers(cfi, bias, pc))
		return true;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	return cfi_covers(cfi, bias, pc);
}

struct shared_name {
	Dwfl_Module *mod;
	const char *name, *path;
	bool shared;
};

static int shares_name(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
		       void *arg)
{
	struct shared_name *q = arg;
	const char *path = modules_path(mod), *other = modules_name(mod);

	(void)userdata, (void)name, (void)start;
	if (mod != q->mod && other && path && !strcmp(other, q->name) && strcmp(path, q->path)) {
		q->shared = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

bool modules_name_shared(struct modules *m, Dwfl_Module *mod)
{
	struct shared_name q = { .mod = mod, .name = modules_name(mod), .path = modules_path(mod) };

	if (!q.name || !q.path || !m->dwfl)
		return false;
	dwfl_getmodules(m->dwfl, shares_name, &q, 0);
	return q.shared;
}
