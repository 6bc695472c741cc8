// SPDX-License-Identifier: GPL-2.0
/* Bookkeeping of traced threads, processes and address spaces. */
#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "tracees.h"

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = ((const struct thread *)a)->tid, y = ((const struct thread *)b)->tid;

	return (x > y) - (x < y);
}

void tracees_init(struct tracees *t, size_t max_registrations)
{
	*t = (struct tracees){ .max_registrations = max_registrations };
}

static int new_key(tracees_free_fn *keys, tracees_free_fn free)
{
	for (int k = 0; k < TRACEES_KEYS; k++) {
		if (keys[k])
			continue;
		keys[k] = free;
		return k;
	}
	return -ENOSPC;
}

int tracees_proc_key(struct tracees *t, tracees_free_fn free)
{
	return new_key(t->proc_free, free);
}

int tracees_thread_key(struct tracees *t, tracees_free_fn free)
{
	return new_key(t->thread_free, free);
}

static void free_slots(void **slot, const tracees_free_fn *keys)
{
	for (int k = 0; k < TRACEES_KEYS; k++) {
		if (slot[k])
			keys[k](slot[k]);
		slot[k] = NULL;
	}
}

void tracees_proc_clear(struct tracees *t, struct proc *p, int key)
{
	if (p->slot[key])
		t->proc_free[key](p->slot[key]);
	p->slot[key] = NULL;
}

void tracees_swap_slots(struct thread *a, struct thread *b)
{
	for (int k = 0; k < TRACEES_KEYS; k++) {
		void *v = a->slot[k];

		a->slot[k] = b->slot[k];
		b->slot[k] = v;
	}
}

static void free_thread(const struct tracees *t, struct thread *th)
{
	free_slots(th->slot, t->thread_free);
	free(th);
}

static void free_proc(const struct tracees *t, struct proc *p)
{
	free_slots(p->slot, t->proc_free);
	free(p);
}

unsigned int tracees_exited_holding(const struct tracees *t)
{
	unsigned int n = 0;

	for (const struct proc *p = t->procs; p; p = p->next) {
		for (int k = 0; k < TRACEES_KEYS && p->exited; k++) {
			if (p->slot[k]) {
				n++;
				break;
			}
		}
	}
	return n;
}

struct thread *tracees_thread(const struct tracees *t, pid_t tid)
{
	struct thread key = { .tid = tid };
	struct thread **found = tfind(&key, &t->threads, cmp_tid);

	return found ? *found : NULL;
}

struct thread *tracees_add_thread(struct tracees *t, pid_t tid)
{
	struct thread *th = tracees_thread(t, tid), **slot;

	if (th)
		return th;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->tid = tid;
	slot = tsearch(th, &t->threads, cmp_tid);
	if (!slot) {
		free(th);
		return NULL;
	}
	t->live_threads++;
	return th;
}

struct proc *tracees_remove_thread(struct tracees *t, pid_t tid)
{
	struct thread *th = tracees_thread(t, tid);
	struct proc *p;

	if (!th)
		return NULL;
	tdelete(th, &t->threads, cmp_tid);
	t->live_threads--;
	p = th->proc;
	free_thread(t, th);
	if (!p || --p->nthreads)
		return NULL;
	return p;
}

struct proc *tracees_proc(const struct tracees *t, pid_t tgid)
{
	struct proc *p;

	for (p = t->procs; p; p = p->next)
		if (p->tgid == tgid && !p->exited)
			return p;
	return NULL;
}

struct addr_space *addr_space_new(const struct tracees *t)
{
	struct addr_space *as = calloc(1, sizeof(*as));

	if (!as)
		return NULL;
	as->refs = 1;
	as->fds = (struct remote_mem_fds){ -1, -1 };
	as->registry = emu_registry_new(t->max_registrations);
	if (!as->registry) {
		free(as);
		return NULL;
	}
	emu_registry_set_inclusive_end(as->registry, t->inclusive_end);
	return as;
}

struct addr_space *addr_space_copy(const struct addr_space *as)
{
	struct addr_space *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->refs = 1;
	c->fds = (struct remote_mem_fds){ -1, -1 };	/* the copy's process has files of its own */
	c->registry = emu_registry_dup(as->registry);
	if (!c->registry)
		goto err;
	/*
	 * The child's mappings are the parent's at the fork: with them an
	 * execve before the child's exec event is told apart (the vDSO moved),
	 * and the parent's registrations are not taken for stale.
	 */
	if (as->maps_valid && emu_mappings_copy(&c->maps, &as->maps))
		goto err_registry;
	c->maps_valid = as->maps_valid;
	c->maps_ns = as->maps_ns;
	c->maps_hinted = as->maps_hinted;
	return c;
err_registry:
	emu_registry_free(c->registry);
err:
	free(c);
	return NULL;
}

void addr_space_note_refusal(struct addr_space *as, uint64_t start, uint64_t end,
			     const char *why)
{
	as->refused[as->nrefused++ % ADDR_SPACE_REFUSED] =
		(struct addr_space_refusal){ start, end, why };
}

const char *addr_space_refusal_at(const struct addr_space *as, uint64_t ip)
{
	unsigned int n = as->nrefused < ADDR_SPACE_REFUSED ? as->nrefused : ADDR_SPACE_REFUSED;

	for (unsigned int k = 1; k <= n; k++) {
		const struct addr_space_refusal *r = &as->refused[(as->nrefused - k) %
								   ADDR_SPACE_REFUSED];

		if (ip >= r->start && ip < r->end)
			return r->why;
	}
	return NULL;
}

void addr_space_put(struct addr_space *as)
{
	if (!as || --as->refs)
		return;
	emu_registry_free(as->registry);
	emu_mappings_free(&as->maps);
	remote_mem_fds_close(&as->fds);
	free(as);
}

struct proc *tracees_new_proc(struct tracees *t, pid_t tgid, pid_t parent,
			      struct addr_space *as)
{
	struct proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	if (as) {
		as->refs++;
	} else {
		as = addr_space_new(t);
		if (!as) {
			free(p);
			return NULL;
		}
	}
	p->tgid = tgid;
	p->parent = parent;
	p->as = as;
	p->next = t->procs;
	t->procs = p;
	return p;
}

void proc_set_thread(struct proc *p, struct thread *th)
{
	if (th->proc == p)
		return;
	if (th->proc)
		th->proc->nthreads--;
	th->proc = p;
	p->nthreads++;
}

long proc_exec(struct tracees *t, struct proc *p)
{
	struct addr_space *as;
	long dropped;

	if (p->as->refs == 1) {
		dropped = (long)emu_registry_count(p->as->registry);
		emu_registry_clear(p->as->registry);
		p->as->maps_valid = false;
		remote_mem_fds_close(&p->as->fds);	/* they show the old program's memory */
		return dropped;
	}
	as = addr_space_new(t);
	if (!as)
		return -ENOMEM;
	addr_space_put(p->as);
	p->as = as;
	return 0;
}

unsigned long proc_exit(struct proc *p)
{
	unsigned long left = 0;

	struct emu_block_cache_stats st;

	if (p->as && p->as->refs == 1) {
		left = emu_registry_count(p->as->registry);
		st = emu_registry_file_stats(p->as->registry);
		p->stats.file_blocks_read += st.misses;
		p->stats.file_block_hits += st.hits;
		p->stats.file_evictions += st.evictions;
		p->stats.file_resident_peak += st.peak;
	}
	addr_space_put(p->as);
	p->as = NULL;
	p->exited = true;
	return left;
}

void proc_stats_add(struct proc_stats *to, const struct proc_stats *from)
{
	const unsigned long *f = (const unsigned long *)from;
	unsigned long *t = (unsigned long *)to;

	for (size_t i = 0; i < sizeof(*from) / sizeof(*f); i++)
		t[i] += f[i];
}

void tracees_retire(struct tracees *t, struct proc *p)
{
	struct proc **pp;

	if (++t->exited <= TRACEES_MAX_EXITED)
		return;
	for (pp = &t->procs; *pp && *pp != p; pp = &(*pp)->next)
		;
	if (!*pp)
		return;
	*pp = p->next;
	proc_stats_add(&t->folded, &p->stats);
	t->nfolded++;
	t->exited--;
	free_proc(t, p);
}

void tracees_free(struct tracees *t)
{
	struct proc *p, *next;
	struct thread *th;

	while (t->threads) {
		th = *(struct thread **)t->threads;
		tdelete(th, &t->threads, cmp_tid);
		free_thread(t, th);
	}
	for (p = t->procs; p; p = next) {
		next = p->next;
		addr_space_put(p->as);
		free_proc(t, p);
	}
	*t = (struct tracees){ 0 };
}
