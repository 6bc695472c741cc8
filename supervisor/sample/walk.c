// SPDX-License-Identifier: GPL-2.0
/* One sample: our walk, libunwind's, elfutils' on disagreement; classification. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/core/clock.h"
#include "walk.h"

int walk_buffers_init(struct walk_buffers *b, unsigned int max)
{
	b->max = max;
	b->ours = calloc(max, sizeof(*b->ours));
	b->ours_alt = calloc(max, sizeof(*b->ours_alt));
	b->ref = calloc(max, sizeof(*b->ref));
	b->elf = calloc(max, sizeof(*b->elf));
	return b->ours && b->ours_alt && b->ref && b->elf ? 0 : -ENOMEM;
}

void walk_buffers_free(struct walk_buffers *b)
{
	free(b->ours);
	free(b->ours_alt);
	free(b->ref);
	free(b->elf);
}

static void to_emu_regs(const struct sample *smp, struct emu_regs *e)
{
	*e = (struct emu_regs){ .ip = smp->regs.rip, .sp = smp->regs.rsp, .fp = smp->regs.rbp };
	for (unsigned int i = 0; i < SAMPLE_DWARF_REGS; i++)
		e->gpr[i] = smp->dwarf[i];
	e->gpr_valid = (1u << SAMPLE_DWARF_REGS) - 1;
}

static const char *symbol_cb(void *ctx, uint64_t ip, bool caller)
{
	return symbols_name(ctx, ip, caller);
}

/*
 * The object holding @ip: its registered path first, "[jit]" in a JIT
 * registration's code, else the mapped file.
 */
static const char *object_of(const struct walk_env *env, uint64_t ip)
{
	const struct emu_registration *r = emu_registry_find_identity(env->registry, ip);
	const char *slash;

	if (r && r->ident.pathname && r->ident.pathname[0]) {
		slash = strrchr(r->ident.pathname, '/');
		return slash ? slash + 1 : r->ident.pathname;
	}
	if (emu_registry_find_jit(env->registry, ip))
		return "[jit]";
	return symbols_object(&env->oracles->sym, ip);
}

/* Where frame @i of @f is looked up: its IP, or a caller's RA - 1 (as the walk does). */
static uint64_t lookup_ip(const struct walk_env *env, const struct emu_frame *f, unsigned int i)
{
	return i && !env->uopts.lookup_ra ? f[i].ip - 1 : f[i].ip;
}

/* Which of our frames are in JIT code: the first one, and how many. */
static void find_jit_frames(const struct walk_env *env, struct sample_walks *w)
{
	w->jit_frame = SAMPLE_NO_JIT_FRAME;
	w->jit_frames = 0;
	for (unsigned int i = 0; i < w->n; i++) {
		if (!emu_registry_find_jit(env->registry, lookup_ip(env, w->ours, i)))
			continue;
		if (!w->jit_frames++)
			w->jit_frame = i;
	}
}

/* Why the covered prefix ended, or where the walks part. */
static const char *reason_of(const struct walk_env *env, const struct sample_walks *w,
			     const struct emu_unwind_result *res)
{
	char *buf = env->buf->reason;
	size_t size = sizeof(env->buf->reason);
	unsigned int c = w->v.covered;
	const char *obj, *what;
	uint64_t ip;

	switch (w->v.cls) {
	case SC_JIT_UNCHECKED:
		snprintf(buf, size, "past the first JIT frame (%u): libunwind has no JIT unwind info",
			 w->v.jit_frame);
		return buf;
	case SC_DIVERGED:
		snprintf(buf, size, "%s step gives another caller",
			 emu_source_name(w->ours[w->v.first_difference].source));
		return buf;
	case SC_LIBUNWIND_FAILED:
		snprintf(buf, size, "libunwind: %s", w->ref_err ?
			 oracles_strerror(ORACLE_LIBUNWIND, w->ref_err) :
			 "stopped, as at the end of the stack");
		return buf;
	default:
		break;
	}
	if (c >= w->n && res->stop_source != EMU_SRC_FP) {
		snprintf(buf, size, "our walk stopped: %s", emu_stop_reason(res));
		return buf;
	}
	ip = lookup_ip(env, w->ours, c - 1);
	obj = object_of(env, ip);
	if (emu_registry_find_jit(env->registry, ip))
		what = "no JIT table entry";
	else
		what = emu_registry_find_unwind(env->registry, ip) ? "no SFrame FDE" :
		       "no registration";
	snprintf(buf, size, "%s for %s: frame-pointer fallback%s%s", what,
		 obj ? obj : "unmapped code", c >= w->n ? " stopped: " : "",
		 c >= w->n ? emu_stop_reason(res) : "");
	return buf;
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
static bool ra_lookup_changes(const struct walk_env *env, const struct emu_accessor *acc,
			      const struct emu_regs *regs, const struct emu_unwind_result *res)
{
	struct emu_unwind_opts o = env->uopts;
	struct emu_unwind_result alt;

	o.lookup_ra = !o.lookup_ra;
	if (emu_unwind(env->registry, acc, regs, &o, env->buf->ours_alt, &alt))
		return false;
	return alt.nframes != res->nframes ||
	       !same_frames(env->buf->ours, env->buf->ours_alt, alt.nframes);
}

/* What every oracle is given of @smp. */
static struct oracle_input oracle_input(const struct walk_env *env, const struct sample *smp,
					const struct emu_accessor *acc)
{
	return (struct oracle_input){ .tid = smp->tid, .regs = smp->dwarf, .mem = acc,
				      .registry = env->registry };
}

static void walk_references(const struct walk_env *env, const struct oracle_input *in,
			    struct sample_walks *w)
{
	struct oracle_walk ow = { .ips = env->buf->ref, .max = env->buf->max };
	uint64_t t0 = clock_now_ns();

	if (!env->crosscheck || !oracles_ready(env->oracles, ORACLE_LIBUNWIND))
		return;
	w->ref_err = oracles_walk(env->oracles, ORACLE_LIBUNWIND, in, &ow);
	w->n_ref = ow.n;
	env->stats->ref_retries += ow.retries;
	w->ref = env->buf->ref;
	w->have_ref = true;
	env->stats->ref_ns += clock_now_ns() - t0;
	env->stats->n_ref_walks++;
}

static void third_opinion(const struct walk_env *env, const struct oracle_input *in,
			  struct sample_walks *w)
{
	struct oracle_walk ow = { .ips = env->buf->elf, .max = env->buf->max };
	uint64_t t0 = clock_now_ns();

	oracles_walk(env->oracles, ORACLE_ELFUTILS, in, &ow);
	w->n_elf = ow.n;
	w->elf = env->buf->elf;
	classify_side(&w->v, w->ours, w->n, w->ref, w->n_ref, w->elf, w->n_elf);
	env->stats->elf_ns += clock_now_ns() - t0;
	env->stats->n_elf_walks++;
}

void walk_sample(const struct sample *smp, const struct walk_env *env)
{
	struct sample_walks w = { .tgid = smp->tgid, .tid = smp->tid };
	struct walk_buffers *b = env->buf;
	struct emu_unwind_result res;
	struct oracle_input in;
	struct emu_accessor acc;
	struct emu_regs regs;
	uint64_t t0;

	sample_mem_init(&b->mem, smp);
	symbols_new_sample(&env->oracles->sym);
	acc = sample_mem_accessor(&b->mem);
	in = oracle_input(env, smp, &acc);
	to_emu_regs(smp, &regs);
	t0 = clock_now_ns();
	if (emu_unwind(env->registry, &acc, &regs, &env->uopts, b->ours, &res)) {
		stats_drop(env->stats);
		return;
	}
	env->stats->ours_ns += clock_now_ns() - t0;
	env->stats->stack_past_copy += b->mem.past_copy;
	w.ours = b->ours;
	w.n = res.nframes;
	w.stop = emu_stop_reason(&res);
	w.jit_fault = res.stop == EMU_STOP_JIT_INVALID ? res.jit_fault : EMU_JIT_OK;
	w.strict_changed = ra_lookup_changes(env, &acc, &regs, &res);
	find_jit_frames(env, &w);
	walk_references(env, &in, &w);
	classify_sample(w.ours, w.n, w.jit_frame, w.ref, w.n_ref, w.ref_err, w.have_ref, &w.v);
	if (classify_needs_third_opinion(&w.v))
		third_opinion(env, &in, &w);
	w.programs_own = smp->programs_own;
	w.waited_ns = smp->waited_ns;
	w.freeze_ns = smp->freeze_ns;
	w.reason = w.v.cls == SC_MATCH || w.v.cls == SC_UNCHECKED ? NULL :
		   reason_of(env, &w, &res);
	stats_add(env->stats, &w, object_of(env, smp->regs.rip), symbol_cb, &env->oracles->sym,
		  env->folded);
}
