// SPDX-License-Identifier: GPL-2.0
/* One sample: our walk, libunwind's, elfutils' on disagreement; classification. */
#include <libunwind.h>
#include <stdio.h>
#include <string.h>

#include "proc_unwinders.h"
#include "sample_walk.h"
#include "sampler.h"
#include "supervisor.h"

static void to_emu_regs(const struct sample *smp, struct emu_regs *e)
{
	*e = (struct emu_regs){ .ip = smp->regs.rip, .sp = smp->regs.rsp, .fp = smp->regs.rbp };
	for (unsigned int i = 0; i < SAMPLE_DWARF_REGS; i++)
		e->gpr[i] = smp->dwarf[i];
	e->gpr_valid = (1u << SAMPLE_DWARF_REGS) - 1;
}

static const char *symbol_cb(void *ctx, uint64_t ip, bool caller)
{
	return proc_dwfl_symbol(ctx, ip, caller);
}

/*
 * The object holding @ip: its registered path first, "[jit]" in a JIT
 * registration's code, else the mapped file.
 */
static const char *object_of(struct proc *p, struct proc_dwfl *d, uint64_t ip)
{
	const struct emu_registration *r = emu_registry_find_identity(p->as->registry, ip);
	const char *slash;

	if (r && r->ident.pathname && r->ident.pathname[0]) {
		slash = strrchr(r->ident.pathname, '/');
		return slash ? slash + 1 : r->ident.pathname;
	}
	if (emu_registry_find_jit(p->as->registry, ip))
		return "[jit]";
	return proc_dwfl_object(d, ip);
}

/* Where frame @i of @f is looked up: its IP, or a caller's RA - 1 (as the walk does). */
static uint64_t lookup_ip(const struct sampler *sm, const struct emu_frame *f, unsigned int i)
{
	return i && !sm->uopts.lookup_ra ? f[i].ip - 1 : f[i].ip;
}

/* Which of our frames are in JIT code: the first one, and how many. */
static void find_jit_frames(const struct sampler *sm, const struct proc *p, struct sample_walks *w)
{
	w->jit_frame = SAMPLE_NO_JIT_FRAME;
	w->jit_frames = 0;
	for (unsigned int i = 0; i < w->n; i++) {
		if (!emu_registry_find_jit(p->as->registry, lookup_ip(sm, w->ours, i)))
			continue;
		if (!w->jit_frames++)
			w->jit_frame = i;
	}
}

/* Why the covered prefix ended, or where the walks part. */
static const char *reason_of(struct sampler *sm, struct proc *p, struct proc_dwfl *d,
			     const struct sample_walks *w, const struct emu_unwind_result *res)
{
	unsigned int c = w->v.covered;
	const char *obj, *what;
	uint64_t ip;

	switch (w->v.cls) {
	case SC_JIT_UNCHECKED:
		snprintf(sm->reason, sizeof(sm->reason), "past the first JIT frame (%u): libunwind "
			 "has no JIT unwind info", w->v.jit_frame);
		return sm->reason;
	case SC_DIVERGED:
		snprintf(sm->reason, sizeof(sm->reason), "%s step gives another caller",
			 emu_source_name(w->ours[w->v.first_difference].source));
		return sm->reason;
	case SC_LIBUNWIND_FAILED:
		snprintf(sm->reason, sizeof(sm->reason), "libunwind: %s", w->ref_err ?
			 unw_strerror(w->ref_err) : "stopped, as at the end of the stack");
		return sm->reason;
	default:
		break;
	}
	if (c >= w->n && res->stop_source != EMU_SRC_FP) {
		snprintf(sm->reason, sizeof(sm->reason), "our walk stopped: %s",
			 emu_stop_reason(res));
		return sm->reason;
	}
	ip = lookup_ip(sm, w->ours, c - 1);
	obj = object_of(p, d, ip);
	if (emu_registry_find_jit(p->as->registry, ip))
		what = "no JIT table entry";
	else
		what = emu_registry_find_unwind(p->as->registry, ip) ? "no SFrame FDE" :
		       "no registration";
	snprintf(sm->reason, sizeof(sm->reason), "%s for %s: frame-pointer fallback%s%s", what,
		 obj ? obj : "unmapped code", c >= w->n ? " stopped: " : "",
		 c >= w->n ? emu_stop_reason(res) : "");
	return sm->reason;
}

static bool same_frames(const struct emu_frame *a, const struct emu_frame *b, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (a[i].ip != b[i].ip || a[i].source != b[i].source)
			return false;
	return true;
}

/*
 * Does the kernel's lookup of callers at their return address (--strict)
 * give another stack than the lookup at RA - 1 (as debuggers do)? The walk
 * is repeated with the other lookup.
 */
static bool ra_lookup_changes(struct sampler *sm, struct proc *p, const struct emu_accessor *acc,
			      const struct emu_regs *regs, const struct emu_unwind_result *res)
{
	struct emu_unwind_opts o = sm->uopts;
	struct emu_unwind_result alt;

	o.lookup_ra = !o.lookup_ra;
	if (emu_unwind(p->as->registry, acc, regs, &o, sm->ours_alt, &alt))
		return false;
	return alt.nframes != res->nframes || !same_frames(sm->ours, sm->ours_alt, alt.nframes);
}

static void walk_references(struct supervisor *s, struct proc *p, const struct sample *smp,
			    struct sample_walks *w)
{
	struct proc_unwinders *u = p->unwinders;
	struct sampler *sm = s->sampler;
	unsigned long retries = u->ref.retries;
	uint64_t t0 = sv_now_ns();

	if (!s->opts.crosscheck || u->ref_err)
		return;
	u->ref.registry = p->as->registry;
	w->ref_err = ref_unwind(&u->ref, &sm->mem, smp, sm->ref, s->opts.max_frames, &w->n_ref);
	sm->stats.ref_retries += u->ref.retries - retries;
	w->ref = sm->ref;
	w->have_ref = true;
	sm->stats.ref_ns += sv_now_ns() - t0;
	sm->stats.n_ref_walks++;
}

static void third_opinion(struct sampler *sm, struct proc_unwinders *u, const struct sample *smp,
			  struct sample_walks *w, unsigned int max)
{
	uint64_t t0 = sv_now_ns();

	proc_dwfl_unwind(&u->dwfl, &sm->mem, smp, sm->elf, max, &w->n_elf);
	w->elf = sm->elf;
	sample_side(&w->v, w->ours, w->n, w->ref, w->n_ref, w->elf, w->n_elf);
	sm->stats.elf_ns += sv_now_ns() - t0;
	sm->stats.n_elf_walks++;
}

/* Say once per process why its perf map was refused or read in part. */
static void note_perf_map(struct supervisor *s, struct proc *p)
{
	struct perf_map *m = &p->unwinders->dwfl.perf;

	if (!m->problem || m->problem_noted)
		return;
	m->problem_noted = true;
	sv_note(s, "pid %d: perf map %s: %s (JIT symbols from it may be missing)", p->tgid,
		m->path, m->problem);
}

void sample_walk(struct supervisor *s, const struct sample *smp)
{
	struct sampler *sm = s->sampler;
	struct proc *p = tracees_proc(&s->tree, smp->tgid);
	struct sample_walks w = { .tgid = smp->tgid, .tid = smp->tid };
	struct emu_unwind_result res;
	struct emu_accessor acc;
	struct emu_regs regs;
	uint64_t t0;

	if (p && p->as && !p->unwinders)
		p->unwinders = proc_unwinders_new(p->tgid, s->opts.crosscheck);
	if (!p || !p->as || !p->unwinders) {
		stats_drop(&sm->stats);
		return;
	}
	/* mappings change without a codectl call (mmap, munmap): re-read them now and then */
	if (sv_now_ns() - p->as->maps_ns > SV_MAPS_MAX_AGE_NS)
		sv_refresh_maps(s, p, p->tgid);
	sample_mem_init(&sm->mem, smp);
	proc_dwfl_new_sample(&p->unwinders->dwfl);
	acc = sample_mem_accessor(&sm->mem);
	to_emu_regs(smp, &regs);
	t0 = sv_now_ns();
	if (emu_unwind(p->as->registry, &acc, &regs, &sm->uopts, sm->ours, &res)) {
		stats_drop(&sm->stats);
		return;
	}
	sm->stats.ours_ns += sv_now_ns() - t0;
	sm->stats.stack_past_copy += sm->mem.past_copy;
	w.ours = sm->ours;
	w.n = res.nframes;
	w.stop = emu_stop_reason(&res);
	w.jit_fault = res.stop == EMU_STOP_JIT_INVALID ? res.jit_fault : EMU_JIT_OK;
	w.strict_changed = ra_lookup_changes(sm, p, &acc, &regs, &res);
	find_jit_frames(sm, p, &w);
	walk_references(s, p, smp, &w);
	sample_classify(w.ours, w.n, w.jit_frame, w.ref, w.n_ref, w.ref_err, w.have_ref, &w.v);
	if (sample_needs_third_opinion(&w.v))
		third_opinion(sm, p->unwinders, smp, &w, s->opts.max_frames);
	w.programs_own = smp->programs_own;
	w.waited_ns = smp->waited_ns;
	w.freeze_ns = smp->freeze_ns;
	w.reason = w.v.cls == SC_MATCH || w.v.cls == SC_UNCHECKED ? NULL :
		   reason_of(sm, p, &p->unwinders->dwfl, &w, &res);
	stats_add(&sm->stats, &w, object_of(p, &p->unwinders->dwfl, smp->regs.rip), symbol_cb,
		  &p->unwinders->dwfl, s->opts.folded_path != NULL);
	note_perf_map(s, p);
}
