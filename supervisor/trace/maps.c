// SPDX-License-Identifier: GPL-2.0
/* An address space's cached mappings, and the stale registrations they reveal. */
#include "maps.h"
#include "supervisor/core/procfs.h"
#include "supervisor/core/clock.h"
#include "supervisor/core/procmap_query.h"
#include "remote_mem.h"

bool maps_old(const struct proc *p)
{
	return !p->as->maps_valid || clock_now_ns() - p->as->maps_ns > MAPS_MAX_AGE_NS;
}

struct stale_ctx {
	struct trace *t;
	struct proc *p;
};

static void log_stale(const struct emu_registration *reg, void *arg)
{
	struct stale_ctx *c = arg;

	if (reg->origin == EMU_ORIGIN_SYNTHESIZED)
		return;		/* the supervisor's own: made again for what comes there */
	c->p->stats.stale++;
	addr_space_note_refusal(c->p->as, reg->text_start, reg->text_end, "stale");
	log_note(c->t->log, "pid %d: stale registration dropped: text %#llx-%#llx is no longer "
			    "mapped executable (unloaded without %s)", (int)c->p->tgid,
		 (unsigned long long)reg->text_start, (unsigned long long)reg->text_end,
		 reg->aspects == EMU_ASPECT_EH_FRAME ? "eh_frame_unregister" : "CODE_UNREGISTER");
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

void maps_hint_changed(struct proc *p, const struct emu_registration *reg)
{
	const struct emu_vma *v;

	if (!p->as || !reg)
		return;
	v = emu_mappings_find(&p->as->maps, reg->text_start);
	if (reg->text_vma_ident || (v && v->ident))
		p->as->maps_hinted = true;
}

bool maps_old_for_samples(const struct proc *p)
{
	return maps_old(p) || p->as->maps_hinted;
}

/* Where the vDSO is mapped in @m, 0 when it is not. */
static uint64_t vdso_start(const struct emu_mappings *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->vma[i].prot & EMU_VMA_VDSO)
			return m->vma[i].start;
	return 0;
}

/*
 * Mappings of an execve whose event is not handled yet: the vDSO moved
 * (only an execve places it anew), or is gone where there was one (read
 * between the exec's switch to the new program's memory and the vDSO's
 * mapping). Read then (a sample walked, a call answered in between), they
 * must not make the old program's registrations stale, nor be kept: a
 * later read, with no old vDSO to compare with, would. The exec drops
 * those registrations, and the old program's samples keep its mappings.
 * (A program that unmapped its own vDSO keeps the mappings read before.)
 */
static bool exec_in_flight(const struct addr_space *as, const struct emu_mappings *fresh)
{
	uint64_t was = as->maps_valid ? vdso_start(&as->maps) : 0;

	return was && vdso_start(fresh) != was;
}

/*
 * Make @fresh @p's mappings, read now over [@start, @end) (all of them: 0,
 * UINT64_MAX), drop the registrations there they show stale, and tell the
 * mappings_changed hook when anything moved. @fresh is taken in every case.
 */
static int adopt(struct trace *t, struct proc *p, struct emu_mappings *fresh, uint64_t start,
		 uint64_t end)
{
	bool whole = !start && end == UINT64_MAX;
	struct stale_ctx c = { t, p };
	uint64_t before = maps_digest(&p->as->maps);

	if (exec_in_flight(p->as, fresh)) {
		emu_mappings_free(fresh);
		return -ESTALE;
	}
	emu_mappings_free(&p->as->maps);
	p->as->maps = *fresh;
	if (whole) {
		p->as->maps_valid = true;
		p->as->maps_hinted = false;
		p->as->maps_ns = clock_now_ns();
	}
	emu_registry_prune_unmapped_in(p->as->registry, &p->as->maps, start, end, log_stale, &c);
	if (maps_digest(&p->as->maps) != before && t->hooks.mappings_changed)
		t->hooks.mappings_changed(t->hooks.ctx, p);
	return 0;
}

int maps_refresh(struct trace *t, struct proc *p, pid_t tid)
{
	struct emu_mappings fresh = { 0 };
	int err = procfs_maps_read(tid, &fresh);

	t->maps_reads.full++;
	if (err) {	/* the last mappings read stay: an exiting process has none */
		emu_mappings_free(&fresh);
		return err;
	}
	return adopt(t, p, &fresh, 0, UINT64_MAX);
}

/* The ends of the cached mappings holding a byte of [*@start, *@end), added to it. */
static void widen_by(const struct emu_mappings *m, uint64_t *start, uint64_t *end)
{
	for (size_t i = 0; i < m->n; i++) {
		if (m->vma[i].end <= *start || m->vma[i].start >= *end)
			continue;
		if (m->vma[i].start < *start)
			*start = m->vma[i].start;
		if (m->vma[i].end > *end)
			*end = m->vma[i].end;
	}
}

/*
 * Into @out, the kernel's mappings over [@start, @end) widened until no
 * mapping, cached or fresh, reaches past its ends; *@start and *@end are
 * the range they replace.
 */
static int read_range(int fd, const struct emu_mappings *cached, uint64_t *start, uint64_t *end,
		      struct emu_mappings *out)
{
	for (int round = 0; round < 8; round++) {
		uint64_t lo = *start, hi = *end;
		int err;

		emu_mappings_reset(out);
		err = procmap_read_range(fd, lo, hi, out);
		if (err)
			return err;
		widen_by(cached, &lo, &hi);
		widen_by(out, &lo, &hi);
		if (lo == *start && hi == *end)
			return 0;
		*start = lo, *end = hi;
	}
	return -EAGAIN;	/* the mappings move under the reads */
}

/* @m with its mappings in [@start, @end) replaced by @fresh's, into @out. */
static int splice(const struct emu_mappings *m, const struct emu_mappings *fresh, uint64_t start,
		  uint64_t end, struct emu_mappings *out)
{
	int err = 0;

	for (size_t i = 0; !err && i < m->n && m->vma[i].end <= start; i++)
		err = emu_mappings_add_ident(out, m->vma[i].start, m->vma[i].end, m->vma[i].prot,
					     m->vma[i].ident);
	for (size_t i = 0; !err && i < fresh->n; i++)
		err = emu_mappings_add_ident(out, fresh->vma[i].start, fresh->vma[i].end,
					     fresh->vma[i].prot, fresh->vma[i].ident);
	for (size_t i = 0; !err && i < m->n; i++)
		if (m->vma[i].start >= end)
			err = emu_mappings_add_ident(out, m->vma[i].start, m->vma[i].end,
						     m->vma[i].prot, m->vma[i].ident);
	return err;
}

int maps_refresh_ranges(struct trace *t, struct proc *p, pid_t tid, const struct maps_range *r,
			size_t n)
{
	int fd = remote_mem_maps_fd(&p->as->fds, tid);
	struct emu_mappings fresh = { 0 }, out = { 0 };
	int err = 0;

	if (!p->as->maps_valid)
		return -ENODATA;
	for (size_t i = 0; !err && i < n; i++) {
		uint64_t start = r[i].start, end = r[i].end;

		if (start >= end)
			continue;
		err = read_range(fd, &p->as->maps, &start, &end, &fresh);
		if (!err) {
			t->maps_reads.ranges++;
			err = splice(&p->as->maps, &fresh, start, end, &out);
		}
		if (!err) {
			err = adopt(t, p, &out, start, end);
			out = (struct emu_mappings){ 0 };
		}
		emu_mappings_reset(&out);
	}
	emu_mappings_free(&fresh);
	emu_mappings_free(&out);
	return err;
}
