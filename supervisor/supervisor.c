// SPDX-License-Identifier: GPL-2.0
/* Shared supervisor helpers: the log, process lookup, mappings refresh, process exit. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proc_maps.h"
#include "registry_dump.h"
#include "proc_unwinders.h"
#include "supervisor.h"

static void vlog(struct supervisor *s, const char *fmt, va_list ap)
{
	fputs("codectl-run: ", s->log);
	vfprintf(s->log, fmt, ap);
	fputc('\n', s->log);
}

void sv_log(struct supervisor *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(s, fmt, ap);
	va_end(ap);
}

void sv_note(struct supervisor *s, const char *fmt, ...)
{
	va_list ap;

	if (s->opts.quiet)
		return;
	va_start(ap, fmt);
	vlog(s, fmt, ap);
	va_end(ap);
}

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

pid_t sv_tgid_of(pid_t tid)
{
	return status_pid(tid, "Tgid");
}

pid_t sv_ppid_of(pid_t tid)
{
	return status_pid(tid, "PPid");
}

unsigned long long sv_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');		/* the command name may hold spaces and parentheses */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%llu", &t);
	return t;
}

/* Without ptrace no exit is seen: drop the processes that are gone (or whose pid was reused). */
static void sweep_untraced(struct supervisor *s)
{
	struct proc *p, *next;

	for (p = s->tree.procs; p; p = next) {
		next = p->next;		/* sv_proc_exited() may free p */
		if (!p->exited && sv_start_time(p->tgid) != p->start_time)
			sv_proc_exited(s, p);
	}
}

/*
 * Without ptrace: a process is known by its pid and start time, found from the
 * calling thread at each call, and starts with an empty registry.
 */
static struct proc *untraced_proc_of(struct supervisor *s, pid_t tid)
{
	pid_t tgid = sv_tgid_of(tid);
	unsigned long long start = tgid ? sv_start_time(tgid) : 0;
	struct proc *p;

	if (!start)
		return NULL;
	p = tracees_proc(&s->tree, tgid);
	if (p && p->start_time == start)
		return p;
	sweep_untraced(s);
	p = tracees_new_proc(&s->tree, tgid, 0, NULL);
	if (p) {
		p->start_time = start;
		sv_read_exe(p);
	}
	return p;
}

struct proc *sv_proc_of(struct supervisor *s, pid_t tid)
{
	struct thread *th;

	if (!s->traced)
		return untraced_proc_of(s, tid);
	th = tracees_thread(&s->tree, tid);
	return th && th->proc && th->proc->as ? th->proc : NULL;
}

static void log_stale(const struct emu_registration *reg, void *ctx)
{
	void **args = ctx;
	struct supervisor *s = args[0];
	struct proc *p = args[1];

	p->stats.stale++;
	sv_note(s, "pid %d: stale registration dropped: text %#llx-%#llx is no longer mapped "
		   "executable (unloaded without CODE_UNREGISTER)", (int)p->tgid,
		(unsigned long long)reg->text_start, (unsigned long long)reg->text_end);
}

uint64_t sv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* FNV-1a over the mappings: tells whether a re-read found anything new. */
static uint64_t maps_digest(const struct emu_mappings *m)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < m->n; i++) {
		uint64_t v[4] = { m->vma[i].start, m->vma[i].end, m->vma[i].prot,
				  m->vma[i].ident };

		for (size_t k = 0; k < 4; k++)
			h = (h ^ v[k]) * 0x100000001b3ull;
	}
	return h;
}

int sv_refresh_maps(struct supervisor *s, struct proc *p, pid_t tid)
{
	void *args[2] = { s, p };
	uint64_t before = maps_digest(&p->as->maps);
	int err = proc_maps_read(tid, &p->as->maps);

	p->as->maps_valid = !err;
	p->as->maps_ns = sv_now_ns();
	if (err)
		return err;
	emu_registry_prune_unmapped(p->as->registry, &p->as->maps, log_stale, args);
	if (maps_digest(&p->as->maps) != before)
		proc_unwinders_mappings_changed(p->unwinders);
	return 0;
}

void sv_read_exe(struct proc *p)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->tgid);
	n = readlink(path, p->exe, sizeof(p->exe) - 1);
	p->exe[n > 0 ? n : 0] = '\0';
}

void sv_note_kernel_refusals(struct supervisor *s, struct proc *p, const struct emu_verdict *v)
{
	uint32_t kr = v->kernel_refusals;

	for (unsigned int bit = 0; kr && bit < EMU_KR_COUNT; bit++) {
		if (!(kr & (1u << bit)))
			continue;
		if (!p->stats.kernel_refusals[bit]++ && !s->opts.trace)
			sv_note(s, "pid %d: accepted registrations the Linux SFrame patches would "
				   "refuse: they require %s", (int)p->tgid,
				emu_kernel_rule_text(1u << bit));
	}
}

void sv_proc_exited(struct supervisor *s, struct proc *p)
{
	sampler_flush_proc(s, p->tgid);	/* its samples need its registry, which goes now */
	proc_unwinders_exited(p->unwinders);
	if (s->opts.registry_dump && p->as && p->as->refs == 1)
		sv_dump_registry(s, p);
	p->stats.left_at_exit += proc_exit(p);
	tracees_retire(&s->tree, p);
}
