// SPDX-License-Identifier: GPL-2.0
/* libdwfl per traced process: modules, symbols, and elfutils' unwinder over samples. */
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc_dwfl.h"

static char *debuginfo_path;

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

struct sym_entry {
	uint64_t key;	/* address << 1 | caller */
	char *text;
	bool provisional;	/* no function found: ask the perf map again */
};

static int cmp_sym(const void *a, const void *b)
{
	uint64_t x = ((const struct sym_entry *)a)->key, y = ((const struct sym_entry *)b)->key;

	return (x > y) - (x < y);
}

static void free_sym(void *node)
{
	struct sym_entry *e = node;

	free(e->text);
	free(e);
}

void proc_dwfl_init(struct proc_dwfl *d, pid_t pid)
{
	*d = (struct proc_dwfl){ .pid = pid };
	perf_map_init(&d->perf, pid, NULL);
}

void proc_dwfl_free(struct proc_dwfl *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	tdestroy(d->syms, free_sym);
	perf_map_free(&d->perf);
	*d = (struct proc_dwfl){ 0 };
}

void proc_dwfl_new_sample(struct proc_dwfl *d)
{
	d->fresh = false;
	perf_map_new_sample(&d->perf);
}

void proc_dwfl_invalidate(struct proc_dwfl *d)
{
	d->reported = false;
	tdestroy(d->syms, free_sym);
	d->syms = NULL;
}

/* The Dwfl with the process's current modules; NULL when it cannot be read. */
static Dwfl *modules(struct proc_dwfl *d);

/*
 * The module holding @ip; an address no module holds makes the modules be
 * read again once (a library mapped since they were read).
 */
static Dwfl_Module *module_at(Dwfl *dwfl, uint64_t ip)
{
	Dwfl_Module *mod = dwfl ? dwfl_addrmodule(dwfl, ip) : NULL;
	Dwarf_Addr start = 0, end = 0;

	/* only an address inside the module's own range belongs to it */
	if (mod && (!dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL) ||
		    ip < start || ip >= end))
		return NULL;
	return mod;
}

static Dwfl_Module *module_of(struct proc_dwfl *d, uint64_t ip)
{
	Dwfl *dwfl = modules(d);
	Dwfl_Module *mod = module_at(dwfl, ip);

	if (mod || !dwfl || d->fresh)
		return mod;
	d->reported = false;
	return module_at(modules(d), ip);
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

/* "[vdso: 1234]" (as libdwfl names it) is "[vdso]" in reports. */
static const char *module_name(Dwfl_Module *mod)
{
	const char *name = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	const char *slash;

	if (!name)
		return NULL;
	if (!strncmp(name, "[vdso", 5))
		return "[vdso]";
	slash = strrchr(name, '/');
	return slash ? slash + 1 : name;
}

static Dwfl *modules(struct proc_dwfl *d)
{
	if (!d->dwfl) {
		d->dwfl = dwfl_begin(&proc_callbacks);
		if (!d->dwfl)
			return NULL;
	}
	if (!d->reported && d->attached_modules && !maps_readable(d->pid)) {
		d->reported = true;	/* gone: what was known stays */
		return d->dwfl;
	}
	if (!d->reported) {
		d->attached_modules = true;
		dwfl_report_begin(d->dwfl);
		if (dwfl_linux_proc_report(d->dwfl, d->pid) || dwfl_report_end(d->dwfl, NULL, NULL))
			return NULL;
		d->reported = true;
		d->fresh = true;	/* until the next sample */
	}
	return d->dwfl;
}

const char *proc_dwfl_object(struct proc_dwfl *d, uint64_t ip)
{
	Dwfl_Module *mod = module_of(d, ip);

	return mod ? module_name(mod) : NULL;
}

/* "name+0xOFF" for @ip from the perf map (looked up at @at), or NULL. */
static char *perf_symbol(struct proc_dwfl *d, uint64_t ip, uint64_t at)
{
	uint64_t start = 0;
	const char *name = perf_map_lookup(&d->perf, at, &start);
	char *out = NULL;

	if (!name)
		return NULL;
	return asprintf(&out, "%s+0x%llx", name, (unsigned long long)(ip - start)) < 0 ? NULL : out;
}

/* Without a function for @ip: "[vdso]+0xOFF", "[object+0xOFF]" or "0xADDR". */
static char *describe_place(Dwfl_Module *mod, uint64_t ip)
{
	const char *name;
	Dwarf_Addr base = 0;
	char *out = NULL;

	if (!mod)
		return asprintf(&out, "0x%llx", (unsigned long long)ip) < 0 ? NULL : out;
	dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	name = module_name(mod);
	if (name && name[0] == '[')	/* "[vdso]" */
		return asprintf(&out, "%s+0x%llx", name, (unsigned long long)(ip - base)) < 0 ?
		       NULL : out;
	if (asprintf(&out, "[%s+0x%llx]", name ? name : "?", (unsigned long long)(ip - base)) < 0)
		return NULL;
	return out;
}

/* The text for @ip; *@provisional when it names no function (yet). */
static char *describe(struct proc_dwfl *d, uint64_t ip, bool caller, bool *provisional)
{
	uint64_t at = caller && ip ? ip - 1 : ip;
	Dwfl_Module *mod = module_of(d, at);
	const char *name = NULL;
	GElf_Off off = 0;
	GElf_Sym sym;
	char *out = NULL;

	*provisional = false;
	if (mod)
		name = dwfl_module_addrinfo(mod, at, &off, &sym, NULL, NULL, NULL);
	if (name)
		return asprintf(&out, "%s+0x%llx", name, (unsigned long long)(off + ip - at)) < 0 ?
		       NULL : out;
	out = perf_symbol(d, ip, at);
	if (out)
		return out;
	*provisional = true;
	return describe_place(mod, ip);
}

const char *proc_dwfl_symbol(struct proc_dwfl *d, uint64_t ip, bool caller)
{
	struct sym_entry key = { .key = ip << 1 | caller }, *e, **slot;
	char *text;

	slot = tfind(&key, &d->syms, cmp_sym);
	if (slot && (*slot)->provisional) {
		e = *slot;
		text = perf_symbol(d, ip, caller && ip ? ip - 1 : ip);
		if (text) {
			free(e->text);
			e->text = text;
			e->provisional = false;
		}
	}
	if (slot)
		return (*slot)->text;
	e = calloc(1, sizeof(*e));
	if (!e)
		return "?";
	e->key = key.key;
	e->text = describe(d, ip, caller, &e->provisional);
	if (!e->text || !tsearch(e, &d->syms, cmp_sym)) {
		free_sym(e);
		return "?";
	}
	return e->text;
}

/* The module's file (its path) and lowest address. */
static const char *module_file(Dwfl_Module *mod, Dwarf_Addr *start)
{
	const char *name = dwfl_module_info(mod, NULL, start, NULL, NULL, NULL, NULL, NULL);

	return name && name[0] == '/' ? name : NULL;
}

/*
 * Line tables are read once per file, not once per process: the first
 * process that asks about a file provides its lines to all the others, at
 * the same offset from the module's start.
 */
static struct source_provider *provider_of(struct source_lines *c, struct proc_dwfl *d,
					   const char *file, Dwarf_Addr start)
{
	struct source_provider *p;
	size_t i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].file, file))
			return &c->v[i];
	if (c->n == SOURCE_PROVIDERS)
		return NULL;
	p = &c->v[c->n];
	p->file = strdup(file);
	if (!p->file)
		return NULL;
	p->d = d;
	p->start = start;
	c->n++;
	return p;
}

void source_lines_free(struct source_lines *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].file);
	c->n = 0;
}

int proc_dwfl_source(struct source_lines *c, struct proc_dwfl *d, uint64_t ip, bool caller,
		     char *buf, size_t size)
{
	uint64_t at = caller && ip ? ip - 1 : ip;
	Dwfl_Module *mod = module_of(d, at);
	const char *file = NULL, *slash, *path;
	struct source_provider *p;
	Dwarf_Addr start = 0;
	Dwfl_Line *line;
	int lineno = 0;

	path = mod ? module_file(mod, &start) : NULL;
	p = path ? provider_of(c, d, path, start) : NULL;
	if (p && p->d != d) {
		at = p->start + (at - start);
		mod = module_of(p->d, at);
	}
	line = mod ? dwfl_module_getsrc(mod, at) : NULL;
	if (line)
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	if (!file)
		return -ENOENT;
	slash = strrchr(file, '/');
	snprintf(buf, size, "%s:%d", slash ? slash + 1 : file, lineno);
	return 0;
}

/* Thread callbacks: the one sampled thread, its captured registers and memory. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl, (void)arg, (void)thread_argp;
	return 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct proc_dwfl *d = arg;

	(void)dwfl;
	if (!d->walk_smp || tid != d->walk_smp->tid)
		return false;
	*thread_argp = d;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct proc_dwfl *d = arg;

	(void)dwfl;
	return d->walk_mem && !sample_mem_read(d->walk_mem, addr, result, sizeof(*result));
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct sample *smp = ((struct proc_dwfl *)arg)->walk_smp;

	dwfl_thread_state_register_pc(thread, smp->regs.rip);
	return dwfl_thread_state_registers(thread, 0, SAMPLE_DWARF_REGS, smp->dwarf);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct frames_out {
	uint64_t *ips;
	unsigned int max;
	unsigned int n;
};

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct frames_out *o = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(state, &pc, NULL))
		return -1;
	o->ips[o->n++] = pc;
	return o->n < o->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

int proc_dwfl_unwind(struct proc_dwfl *d, struct sample_mem *mem, const struct sample *smp,
		     uint64_t *ips, unsigned int max, unsigned int *n)
{
	struct frames_out o = { .ips = ips, .max = max };
	Dwfl *dwfl = modules(d);
	int ret;

	*n = 0;
	if (!dwfl)
		return -ENOENT;
	if (!d->attached) {
		if (!dwfl_attach_state(dwfl, NULL, d->pid, &thread_callbacks, d))
			return -ENOENT;
		d->attached = true;
	}
	d->walk_mem = mem;
	d->walk_smp = smp;
	ret = dwfl_getthread_frames(dwfl, smp->tid, on_frame, &o);
	d->walk_mem = NULL;
	d->walk_smp = NULL;
	*n = o.n;
	return ret == 0 || ret == DWARF_CB_ABORT ? 0 : -EIO;
}
