// SPDX-License-Identifier: GPL-2.0
/* Shared supervisor helpers: the log, process lookup, mappings refresh, process exit. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proc_maps.h"
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

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* Without ptrace: processes appear at their first call, with empty registries. */
static struct proc *untraced_proc_of(struct supervisor *s, pid_t tid)
{
	pid_t tgid = tgid_of(tid);
	struct thread *th;
	struct proc *p;

	if (!tgid)
		return NULL;
	p = tracees_proc(&s->tree, tgid);
	if (!p)
		p = tracees_new_proc(&s->tree, tgid, 0, NULL);
	th = p ? tracees_add_thread(&s->tree, tid) : NULL;
	if (!th)
		return NULL;
	th->attached = true;
	proc_set_thread(p, th);
	return p;
}

struct proc *sv_proc_of(struct supervisor *s, pid_t tid)
{
	struct thread *th = tracees_thread(&s->tree, tid);

	if (th && th->proc && th->proc->as)
		return th->proc;
	if (s->traced)
		return NULL;
	return untraced_proc_of(s, tid);
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

int sv_refresh_maps(struct supervisor *s, struct proc *p, pid_t tid)
{
	void *args[2] = { s, p };
	int err = proc_maps_read(tid, &p->as->maps);

	p->as->maps_valid = !err;
	if (err)
		return err;
	emu_registry_prune_unmapped(p->as->registry, &p->as->maps, log_stale, args);
	return 0;
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
	(void)s;
	p->stats.left_at_exit += proc_exit(p);
}
