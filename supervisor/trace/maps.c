// SPDX-License-Identifier: GPL-2.0
/* An address space's cached mappings, and the stale registrations they reveal. */
#include "maps.h"
#include "supervisor/core/procfs.h"
#include "supervisor/core/clock.h"

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

	c->p->stats.stale++;
	addr_space_note_refusal(c->p->as, reg->text_start, reg->text_end, "stale");
	log_note(c->t->log, "pid %d: stale registration dropped: text %#llx-%#llx is no longer "
			    "mapped executable (unloaded without CODE_UNREGISTER)", (int)c->p->tgid,
		 (unsigned long long)reg->text_start, (unsigned long long)reg->text_end);
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
 * Mappings of another program: the vDSO moved, which only an execve does
 * (it is placed anew for each program). Read after the kernel ran the exec
 * but before its event was handled (a sample walked, a call answered in
 * between), they must not make the old program's registrations stale: the
 * exec drops those, and the old program's samples keep its mappings.
 */
static bool another_program(const struct addr_space *as, const struct emu_mappings *fresh)
{
	uint64_t was = as->maps_valid ? vdso_start(&as->maps) : 0, now = vdso_start(fresh);

	return was && now && was != now;
}

int maps_refresh(struct trace *t, struct proc *p, pid_t tid)
{
	struct stale_ctx c = { t, p };
	struct emu_mappings fresh = { 0 };
	uint64_t before = maps_digest(&p->as->maps);
	int err = procfs_maps_read(tid, &fresh);
	bool vdso_gone;

	if (!err && another_program(p->as, &fresh))
		err = -ESTALE;
	if (err) {	/* the last mappings read stay: an exiting process has none */
		emu_mappings_free(&fresh);
		return err;
	}
	/*
	 * No vDSO where there was one: an execve between its switch to the new
	 * program's memory and the vDSO's mapping (or a program that unmapped
	 * its vDSO). The old program's registrations are the exec's to drop,
	 * not stale.
	 */
	vdso_gone = p->as->maps_valid && vdso_start(&p->as->maps) && !vdso_start(&fresh);
	emu_mappings_free(&p->as->maps);
	p->as->maps = fresh;
	p->as->maps_valid = true;
	p->as->maps_hinted = false;
	p->as->maps_ns = clock_now_ns();
	if (!vdso_gone)
		emu_registry_prune_unmapped(p->as->registry, &p->as->maps, log_stale, &c);
	if (maps_digest(&p->as->maps) != before && t->hooks.mappings_changed)
		t->hooks.mappings_changed(t->hooks.ctx, p);
	return 0;
}
