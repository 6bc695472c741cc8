// SPDX-License-Identifier: GPL-2.0
/* One sample: our walk, libunwind's, elfutils' on disagreement; classification. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "supervisor/core/clock.h"
#include "supervisor/core/procfs.h"
#include "supervisor/verify/jit_check.h"
#include "supervisor/verify/report.h"
#include "walk.h"

int walk_buffers_init(struct walk_buffers *b, unsigned int max)
{
	b->max = max;
	b->ours = calloc(max, sizeof(*b->ours));
	b->ours_alt = calloc(max, sizeof(*b->ours_alt));
	b->ours_ips = calloc(max, sizeof(*b->ours_ips));
	b->ref = calloc(max, sizeof(*b->ref));
	b->ref_alt = calloc(max, sizeof(*b->ref_alt));
	b->elf = calloc(max, sizeof(*b->elf));
	for (int i = 0; i < WALK_BYTES; i++)
		b->bytes[i] = calloc(max, 1);
	for (int i = 0; i < WALK_BYTES; i++)
		if (!b->bytes[i])
			return -ENOMEM;
	return b->ours && b->ours_alt && b->ours_ips && b->ref && b->ref_alt && b->elf ? 0 :
	       -ENOMEM;
}

void walk_buffers_free(struct walk_buffers *b)
{
	free(b->ours);
	free(b->ours_alt);
	free(b->ours_ips);
	free(b->ref);
	free(b->ref_alt);
	free(b->elf);
	for (int i = 0; i < WALK_BYTES; i++)
		free(b->bytes[i]);
}

static void to_emu_regs(const struct sample *smp, struct emu_regs *e)
{
	*e = (struct emu_regs){ .ip = smp->regs.rip, .sp = smp->regs.rsp, .fp = smp->regs.rbp };
	for (unsigned int i = 0; i < SAMPLE_DWARF_REGS; i++)
		e->gpr[i] = smp->dwarf[i];
	e->gpr_valid = (1u << SAMPLE_DWARF_REGS) - 1;
}


/* JIT functions larger than this are not analysed to explain one wrong sample. */
#define WALK_JIT_EXPLAIN_MAX (64u << 10)

/* How an object is named: the report's label, or its path. */
enum object_naming {
	OBJECT_LABEL,
	OBJECT_PATH,
};

/*
 * The object holding @ip: "[vdso]" in the vDSO (whatever name a loader
 * registered it under), its registered path, "[jit]" in a JIT
 * registration's code, else the mapped file; named as @how says (a label is
 * the file's name, or its path where another file of the process has that
 * name).
 */
static const char *object_at(const struct walk_env *env, uint64_t ip, enum object_naming how)
{
	const struct emu_registration *r = emu_registry_find_identity(env->registry, ip);
	const struct emu_vma *vma = env->maps ? emu_mappings_find(env->maps, ip) : NULL;
	struct symbols *sym = &env->oracles->sym;
	const char *label, *slash;

	if (vma && (vma->prot & EMU_VMA_VDSO))
		return "[vdso]";
	if (r && r->ident.pathname && r->ident.pathname[0]) {
		slash = strrchr(r->ident.pathname, '/');
		label = how == OBJECT_LABEL ? symbols_object_label(sym, ip) : NULL;
		if (how == OBJECT_PATH || !slash || (label && label[0] == '/'))
			return r->ident.pathname;
		return slash + 1;
	}
	if (emu_registry_find_jit(env->registry, ip))
		return "[jit]";
	return how == OBJECT_PATH ? symbols_object_path(sym, ip) : symbols_object_label(sym, ip);
}

/*
 * A frame's name: its symbol, else (JIT code the perf map does not name)
 * "[jit+0xOFF]" from the JIT code area's start, as an object's code without
 * a symbol is "[object+0xOFF]". The latter is valid until the next call.
 */
static const char *symbol_cb(void *ctx, uint64_t ip, bool caller)
{
	const struct walk_env *env = ctx;
	const char *name = symbols_name(&env->oracles->sym, ip, caller);
	const struct emu_registration *reg;

	if (name && name[0] != '0')
		return name;
	reg = emu_registry_find_jit(env->registry, caller && ip ? ip - 1 : ip);
	if (!reg)
		return name;
	snprintf(env->buf->jit_name, sizeof(env->buf->jit_name), "[jit+%#llx]",
		 (unsigned long long)(ip - reg->text_start));
	return env->buf->jit_name;
}

/* The path of a frame's object: a caller's at its call (RA - 1), as it is named. */
static const char *object_cb(void *ctx, uint64_t ip, bool caller)
{
	return object_at(ctx, caller && ip ? ip - 1 : ip, OBJECT_PATH);
}

/* A thread's name, for its folded stacks' root. */
static void comm_cb(void *ctx, pid_t tid, char *buf, size_t size)
{
	(void)ctx;
	procfs_comm(tid, buf, size);
}

/*
 * Where frame @i of @f is looked up: its IP when exact, else a caller's RA - 1
 * (or RA, with the kernel's lookup), as the walk does.
 */
static uint64_t lookup_ip(const struct walk_env *env, const struct emu_frame *f, unsigned int i)
{
	bool exact = !i || (f[i].flags & EMU_FRAME_EXACT);

	return !exact && !env->uopts.lookup_ra ? f[i].ip - 1 : f[i].ip;
}

/* Which of our frames are in JIT code: the first one, and how many. */
static void find_jit_frames(const struct walk_env *env, struct sample_walks *w)
{
	w->in.jit_frame = SAMPLE_NO_JIT_FRAME;
	w->jit_frames = 0;
	for (unsigned int i = 0; i < w->in.n; i++) {
		if (!emu_registry_find_jit(env->registry, lookup_ip(env, w->in.ours, i)))
			continue;
		if (!w->jit_frames++)
			w->in.jit_frame = i;
	}
}

/*
 * The plausibility of a walk's frames into @out, or NULL when the process's
 * mappings are not known (every frame would look like no code).
 */
static const uint8_t *judge(const struct walk_env *env, const struct emu_accessor *acc,
			    const uint64_t *ips, const uint8_t *flags, unsigned int n, uint8_t *out)
{
	struct plausible_env pe = { .maps = env->maps, .registry = env->registry, .mem = acc,
				    .function = symbols_function, .name = symbols_function_name,
				    .ctx = &env->oracles->sym };
	uint64_t t0 = clock_now_ns();
	unsigned long hits, total, hits_after;

	if (!env->maps || !env->oracles->plaus)
		return NULL;
	plausibility_counts(env->oracles->plaus, &hits, &total);
	plausibility_judge(env->oracles->plaus, &pe, ips, flags, n, out);
	plausibility_counts(env->oracles->plaus, &hits_after, &total);
	env->stats->plaus_ns += clock_now_ns() - t0;
	env->stats->plaus_frames += n ? n - 1 : 0;
	env->stats->plaus_hits += hits_after - hits;
	return out;
}

static bool any_not_code(const uint8_t *plaus, unsigned int n)
{
	for (unsigned int i = 1; plaus && i < n; i++)
		if (plaus[i] == PLAUSIBLE_NOT_CODE)
			return true;
	return false;
}

/* Our walk's frames and libunwind's, judged: does either hold a frame in no mapping? */
static bool judge_both(const struct walk_env *env, const struct emu_accessor *acc,
		       struct sample_walks *w)
{
	struct walk_buffers *b = env->buf;

	w->in.plaus = judge(env, acc, b->ours_ips, b->bytes[WALK_OURS_FLAGS], w->in.n,
			    b->bytes[WALK_OURS_PLAUS]);
	/* an RA read below SP is wrong whatever it is */
	for (unsigned int i = 1; w->in.plaus && i < w->in.n; i++)
		if (w->in.ours[i].flags & EMU_FRAME_RA_BELOW_SP)
			b->bytes[WALK_OURS_PLAUS][i] = WHY_RA_BELOW_SP;
	w->in.ref_plaus = !w->in.have_ref ? NULL :
			  judge(env, acc, w->in.ref, w->in.ref_flags, w->in.n_ref,
				b->bytes[WALK_REF_PLAUS]);
	return any_not_code(w->in.plaus, w->in.n) || any_not_code(w->in.ref_plaus, w->in.n_ref);
}

/*
 * Return addresses no call put there, stored by construction (glibc's
 * __start_context under a makecontext coroutine): where the thread resumes,
 * exact, as a frame a signal interrupted is. Marked in our walk and
 * libunwind's, so both are judged and named at the IP.
 */
static void mark_return_trampolines(const struct emu_accessor *acc, struct walk_buffers *b,
				    struct sample_walks *w)
{
	for (unsigned int i = 1; i < w->in.n; i++)
		if (!(b->ours[i].flags & EMU_FRAME_EXACT) &&
		    plausible_return_trampoline(acc, b->ours[i].ip))
			b->ours[i].flags |= EMU_FRAME_EXACT;
	for (unsigned int i = 1; w->in.have_ref && i < w->in.n_ref; i++)
		if (!(b->bytes[WALK_REF_FLAGS][i] & EMU_FRAME_EXACT) &&
		    plausible_return_trampoline(acc, w->in.ref[i]))
			b->bytes[WALK_REF_FLAGS][i] |= EMU_FRAME_EXACT;
}

/*
 * A frame in no mapping may be in one mapped since the mappings were read:
 * then they are read again (when older than the sample) and the frames
 * judged anew.
 */
static void judge_walks(const struct walk_env *env, const struct sample *smp,
			const struct emu_accessor *acc, struct sample_walks *w)
{
	struct walk_buffers *b = env->buf;

	mark_return_trampolines(acc, b, w);
	for (unsigned int i = 0; i < w->in.n; i++) {
		b->ours_ips[i] = w->in.ours[i].ip;
		b->bytes[WALK_OURS_FLAGS][i] = w->in.ours[i].flags;
	}
	if (judge_both(env, acc, w) && env->fresh_maps &&
	    env->fresh_maps(env->fresh_maps_ctx, smp->taken_ns))
		judge_both(env, acc, w);
}

/* "CFA = sp +1048584, RA at CFA -8": a row as the walk applied it. */
static void rule_text(const struct emu_unwind_rule *r, char *buf, size_t size)
{
	char cfa[48];

	if (r->cfa_base == EMU_CFA_REG)
		snprintf(cfa, sizeof(cfa), "r%u %+lld", r->cfa_reg, (long long)r->cfa_off);
	else
		snprintf(cfa, sizeof(cfa), "%s %+lld", r->cfa_base == EMU_CFA_SP ? "sp" : "fp",
			 (long long)r->cfa_off);
	snprintf(buf, size, "CFA = %s%s%s, RA %s%+lld", r->cfa_deref ? "*(" : "", cfa,
		 r->cfa_deref ? ")" : "",
		 r->ra.kind == EMU_LOC_CFA_DEREF ? "at CFA " : "in a register ",
		 (long long)r->ra.off);
}

/* The JIT registration holding @ip, as a check reads it through @acc; false when none. */
static bool jit_at(const struct walk_env *env, const struct emu_accessor *acc, uint64_t ip,
		   struct verify_jit *j)
{
	const struct emu_registration *reg = emu_registry_find_jit(env->registry, ip);

	if (!reg)
		return false;
	*j = (struct verify_jit){ .mem = acc, .arch = emu_arch_get(env->uopts.arch),
				  .text_start = reg->text_start, .text_end = reg->text_end,
				  .head = reg->jit_head };
	return j->arch != NULL;
}

/*
 * The JIT function around @ip: the perf map's, when it lies in @j's code,
 * else the run of adjacent entries; its name (the perf map's) into @name,
 * "" without one. 0, or a negative errno.
 */
static int jit_function(const struct walk_env *env, const struct verify_jit *j, uint64_t ip,
			uint64_t *start, uint64_t *end, char *name, size_t size)
{
	const char *sym;

	name[0] = '\0';
	if (symbols_function(&env->oracles->sym, ip, start, end) || *start < j->text_start ||
	    *end > j->text_end)
		return verify_jit_run_around(j, ip, start, end);
	sym = symbols_name(&env->oracles->sym, *start, false);
	if (sym && sym[0] != '0' && sym[0] != '[')
		snprintf(name, size, "%.*s", (int)strcspn(sym, "+"), sym);
	return 0;
}

/*
 * "; the code says CFA = SP+40, the JIT entry [0x.., 0x..) CFA = SP+24" (the
 * code as at the first instruction where the entry is wrong) for a step by
 * the JIT entry covering @ip, or "; the JIT entry for 0x.. agrees with the
 * code" (the wrong frame came from the stack's contents); "" when the
 * function cannot be analysed here.
 */
static void jit_explain(const struct walk_env *env, const struct emu_accessor *acc, uint64_t ip,
			char *buf, size_t size)
{
	struct verify_result r = { .n = 0 };
	const struct verify_finding *fd = NULL;
	uint64_t start, end;
	struct verify_jit j;
	char name[128], text[512];

	buf[0] = '\0';
	if (!acc || !jit_at(env, acc, ip, &j) ||
	    jit_function(env, &j, ip, &start, &end, name, sizeof(name)) ||
	    end - start > WALK_JIT_EXPLAIN_MAX ||
	    verify_jit_check(&j, start, end, name[0] ? name : NULL, &r))
		goto out;
	for (size_t i = 0; i < r.n && !fd; i++)
		if (verify_finding_covers(&r.f[i], ip))
			fd = &r.f[i];
	if (fd) {
		verify_finding_explain(fd, text, sizeof(text));
		snprintf(buf, size, "; %s", text);
	} else {
		snprintf(buf, size, "; the JIT entry for %#llx agrees with the code",
			 (unsigned long long)ip);
	}
out:
	verify_result_free(&r);
}

/* What made our covered prefix wrong: the step that gave the wrong frame. */
static const char *wrong_reason(const struct walk_env *env, const struct sample_walks *w,
				const struct emu_unwind_result *res, const struct emu_accessor *acc)
{
	const char *row = res->stop_source == EMU_SRC_JIT ? "JIT" :
			  res->stop_source == EMU_SRC_EH_FRAME ? ".eh_frame" :
			  res->stop_source == EMU_SRC_SYNTHESIZED ? "synthesized SFrame" : "SFrame";
	unsigned int k = w->v.wrong_frame;
	char rule[96], explain[640] = "";

	rule_text(&res->rule, rule, sizeof(rule));
	if (w->v.why == WHY_RA_ZERO_NOT_OUTERMOST) {
		snprintf(env->buf->reason, sizeof(env->buf->reason),
			 "RA 0 read through a %s row not marked outermost (%s); libunwind goes on",
			 row, rule);
		return env->buf->reason;
	}
	if (w->v.why == WHY_ROW_FAULT) {
		snprintf(env->buf->reason, sizeof(env->buf->reason),
			 "%s stepping by the %s row at 0x%llx (%s); libunwind goes on",
			 w->stop, row, (unsigned long long)lookup_ip(env, w->in.ours, k - 1), rule);
		return env->buf->reason;
	}
	if (k && k < w->in.n && w->in.ours[k].source == EMU_SRC_JIT)
		jit_explain(env, acc, lookup_ip(env, w->in.ours, k - 1), explain, sizeof(explain));
	snprintf(env->buf->reason, sizeof(env->buf->reason), "frame %u, by a %s step, is %s%s", k,
		 emu_source_name(w->in.ours[k].source), classify_why_name(w->v.why), explain);
	return env->buf->reason;
}

/*
 * Why there is no unwind data for @ip, to precede the object's name: "no
 * JIT table entry for", "no SFrame FDE for", "refused (RULE):", "stale
 * registration:", "no .sframe in", or "no registration for"; with an
 * .eh_frame registration there, "no .eh_frame row it interprets for" (no
 * FDE, or CFI the kernel does not interpret).
 */
static const char *missing_what(const struct walk_env *env, uint64_t ip)
{
	char *buf = env->buf->missing;
	const char *why;

	if (emu_registry_find_jit(env->registry, ip))
		return "no JIT table entry for";
	if (emu_registry_find_unwind(env->registry, ip))
		return "no SFrame FDE for";
	if (emu_registry_find_eh_frame(env->registry, ip))
		return "no .eh_frame row it interprets for";
	why = env->as ? addr_space_refusal_at(env->as, ip) : NULL;
	if (why && !strcmp(why, "stale"))
		return "stale registration:";
	if (why) {
		snprintf(buf, sizeof(env->buf->missing), "refused (%s):", why);
		return buf;
	}
	if (!symbols_has_sframe(&env->oracles->sym, ip))
		return "no .sframe in";
	return "no registration for";
}

/* Why the covered prefix ended, or where the walks part. */
static const char *reason_of(const struct walk_env *env, const struct sample_walks *w,
			     const struct emu_unwind_result *res, const struct emu_accessor *acc)
{
	char *buf = env->buf->reason;
	size_t size = sizeof(env->buf->reason);
	unsigned int c = w->v.covered;
	const char *obj, *what;
	uint64_t ip;

	switch (w->v.cls) {
	case SC_OURS_WRONG:
	case SC_BOTH_WRONG:
		return wrong_reason(env, w, res, acc);
	case SC_JIT_UNCHECKED:
		snprintf(buf, size, "past the first JIT frame (%u): libunwind has no JIT unwind info",
			 w->v.jit_frame);
		return buf;
	case SC_AFTER_SYSCALL:
		return "in a system call ending the function before frame 0's IP: "
		       "looked up in the next function";
	case SC_DIVERGED:
		snprintf(buf, size, "%s step gives another caller",
			 emu_source_name(w->in.ours[w->v.first_difference].source));
		return buf;
	case SC_BLIND:
		snprintf(buf, size, "libunwind only guessed frame %u (no unwind information where "
				    "it stepped from); ours is %s", w->v.first_difference,
			 w->v.plausible_there ? "plausible" : "not known plausible");
		return buf;
	case SC_LIBUNWIND_FAILED:
		if (w->v.why)
			snprintf(buf, size, "libunwind's frame %u is %s", w->v.wrong_frame,
				 classify_why_name(w->v.why));
		else
			snprintf(buf, size, "libunwind: %s", w->in.ref_err ?
				 oracles_strerror(ORACLE_LIBUNWIND, w->in.ref_err) :
				 "stopped, as at the end of the stack");
		return buf;
	default:
		break;
	}
	if (c >= w->in.n && res->stop_source != EMU_SRC_FP) {
		snprintf(buf, size, "our walk stopped: %s", emu_stop_reason(res));
		return buf;
	}
	ip = lookup_ip(env, w->in.ours, c - 1);
	obj = object_at(env, ip, OBJECT_LABEL);
	what = missing_what(env, ip);
	snprintf(buf, size, "%s %s: frame-pointer fallback%s%s", what,
		 obj ? obj : env->maps && emu_mappings_find(env->maps, ip) ? "anonymous code" :
		 "unmapped code", c >= w->in.n ? " stopped: " : "",
		 c >= w->in.n ? emu_stop_reason(res) : "");
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
			      const struct emu_regs *regs, const struct emu_unwind_opts *uopts,
			      const struct emu_unwind_result *res)
{
	struct emu_unwind_opts o = *uopts;
	struct emu_unwind_result alt;

	o.lookup_ra = !o.lookup_ra;
	if (emu_unwind(env->registry, acc, regs, &o, env->buf->ours_alt, &alt))
		return false;
	return alt.nframes != res->nframes ||
	       !same_frames(env->buf->ours, env->buf->ours_alt, alt.nframes);
}

/*
 * Our first frame whose step read the stack past the copy (from the process,
 * after the thread ran on: maybe another frame's by then), 0 when none: where
 * the same walk on the copy alone (sample_mem's poison for the rest) parts
 * from ours; the frame count when only how the walk ended depends on it.
 */
static unsigned int past_copy_from(const struct walk_env *env, const struct emu_accessor *acc,
				   const struct emu_regs *regs, const struct emu_unwind_opts *uopts,
				   const struct emu_unwind_result *res,
				   const struct emu_frame *frames)
{
	struct walk_buffers *b = env->buf;
	struct emu_unwind_result alt;
	unsigned int i;
	int err;

	if (!b->mem.past_copy)
		return 0;
	b->mem.copy_only = true;
	err = emu_unwind(env->registry, acc, regs, uopts, b->ours_alt, &alt);
	b->mem.copy_only = false;
	if (err)
		return 0;
	for (i = 0; i < alt.nframes && i < res->nframes; i++)
		if (b->ours_alt[i].ip != frames[i].ip || b->ours_alt[i].source != frames[i].source)
			break;
	/* a step whose rule read the RA below SP is wrong, whenever it read it */
	if (i < res->nframes && (frames[i].flags & EMU_FRAME_RA_BELOW_SP))
		return 0;
	if (i == res->nframes && (alt.nframes != res->nframes || alt.stop != res->stop))
		return res->nframes;
	return i < res->nframes ? i : 0;
}

/* Frames read past the copy are not judged: ours, and libunwind's, from the first one on. */
static void unjudge_past_copy(struct walk_buffers *b, struct sample_walks *w)
{
	for (unsigned int i = w->in.past_copy; i && w->in.plaus && i < w->in.n; i++)
		b->bytes[WALK_OURS_PLAUS][i] = PLAUSIBLE_UNKNOWN;
	for (unsigned int i = w->in.ref_past_copy; i && w->in.ref_plaus && i < w->in.n_ref; i++)
		b->bytes[WALK_REF_PLAUS][i] = PLAUSIBLE_UNKNOWN;
}

/* What every oracle is given of @smp. */
static struct oracle_input oracle_input(const struct walk_env *env, const struct sample *smp,
					const struct emu_accessor *acc)
{
	return (struct oracle_input){ .tid = smp->tid, .regs = smp->dwarf, .mem = acc,
				      .registry = env->registry, .walker = &env->buf->walker,
				      .taken_ns = smp->taken_ns };
}


/*
 * libunwind's first frame that read the stack past the copy, 0 when none:
 * where its walk on the copy alone parts from it (as past_copy_from()).
 */
static unsigned int ref_past_copy(const struct walk_env *env, const struct oracle_input *in,
				  const struct sample_walks *w)
{
	struct walk_buffers *b = env->buf;
	struct oracle_walk ow = { .ips = b->ref_alt, .flags = b->bytes[WALK_ELF_FLAGS],
				  .max = b->max };
	unsigned int i;

	b->mem.copy_only = true;
	oracles_walk(env->oracles, ORACLE_LIBUNWIND, in, &ow);
	b->mem.copy_only = false;
	for (i = 0; i < ow.n && i < w->in.n_ref && ow.ips[i] == w->in.ref[i]; i++)
		;
	return i < w->in.n_ref ? i : 0;
}

/*
 * Did libunwind's walk find an implausible frame before any it read past
 * the copy, by a step with unwind information? Only such a step can have
 * used a rule its cache keeps for the other lookup of the same IP; a walk
 * that guessed a frame before (no information it could read at the frame
 * before it: the vDSO, anonymous memory) would go the same way again.
 */
static bool ref_went_wrong(const struct sample_walks *w)
{
	unsigned int end = w->in.ref_past_copy ? w->in.ref_past_copy : w->in.n_ref;

	for (unsigned int i = 1; w->in.ref_plaus && i < end && i < w->in.n_ref; i++) {
		if (w->in.ref_flags && (w->in.ref_flags[i] & ORACLE_FRAME_NO_INFO))
			return false;
		if (plausible_bad(w->in.ref_plaus[i]))
			return true;
	}
	return false;
}

/* libunwind's walk; @stopped: the thread is stopped, its memory read live is the sample's. */
static void walk_references(const struct walk_env *env, const struct oracle_input *in,
			    bool stopped, struct sample_walks *w)
{
	struct walk_buffers *b = env->buf;
	struct oracle_walk ow = { .ips = b->ref, .flags = b->bytes[WALK_REF_FLAGS], .max = b->max };
	uint64_t t0 = clock_now_ns();

	if (!env->crosscheck || !oracles_ready(env->oracles, ORACLE_LIBUNWIND))
		return;
	b->mem.past_copy = false;
	w->in.ref_err = oracles_walk(env->oracles, ORACLE_LIBUNWIND, in, &ow);
	oracles_mark_guesses(env->oracles, b->ref, ow.flags, ow.n);
	w->in.n_ref = ow.n;
	env->stats->ref_retries += ow.retries;
	w->in.ref = b->ref;
	w->in.ref_flags = ow.flags;
	w->in.have_ref = true;
	if (b->mem.past_copy && !stopped)
		w->in.ref_past_copy = ref_past_copy(env, in, w);
	env->stats->ref_ns += clock_now_ns() - t0;
	env->stats->n_ref_walks++;
}

static void third_opinion(const struct walk_env *env, const struct oracle_input *in,
			  struct sample_walks *w)
{
	struct walk_buffers *b = env->buf;
	struct oracle_walk ow = { .ips = b->elf, .flags = b->bytes[WALK_ELF_FLAGS], .max = b->max };
	uint64_t t0 = clock_now_ns();

	oracles_walk(env->oracles, ORACLE_ELFUTILS, in, &ow);
	oracles_mark_guesses(env->oracles, b->elf, ow.flags, ow.n);
	w->n_elf = ow.n;
	w->elf = b->elf;
	w->elf_flags = ow.flags;
	env->stats->elf_ns += clock_now_ns() - t0;
	env->stats->n_elf_walks++;
	w->elf_plaus = judge(env, in->mem, b->elf, ow.flags, ow.n, b->bytes[WALK_ELF_PLAUS]);
	classify_side(&w->v, &w->in, w->elf, w->elf_plaus, w->elf_flags, w->n_elf);
}

/* The registrations our walk found broken go, once the sample is counted (v16 policy). */
static void walk_report_removals(const struct walk_env *env, const struct emu_unwind_result *res)
{
	for (unsigned int i = 0; env->removed && i < res->nremovals; i++)
		env->removed(env->removed_ctx, &res->removals[i]);
}

/*
 * The sampled thread's stack, [lo, hi), for the frame-pointer steps: the
 * mapping holding SP as the stop found it in the cached mappings; when they
 * did not know it yet (a thread sampled before its new stack was read, as a
 * raw clone's first sample), the mapping holding SP in mappings read after
 * the stop. (0, 0) when neither knows it: the walk is not bounded.
 */
static void stack_bounds(const struct walk_env *env, const struct sample *smp,
			 struct emu_unwind_opts *u)
{
	const struct emu_mappings *m = env->maps;
	const struct emu_vma *vma;

	u->stack_lo = smp->stack_map_start;
	u->stack_hi = smp->stack_map_end;
	if (u->stack_hi || !m)
		return;
	vma = emu_mappings_find(m, smp->regs.rsp);
	if (!vma && env->fresh_maps)
		m = env->fresh_maps(env->fresh_maps_ctx, smp->taken_ns);
	if (!vma && m)
		vma = emu_mappings_find(m, smp->regs.rsp);
	if (!vma)
		return;
	u->stack_lo = vma->start;
	u->stack_hi = vma->end;
}

/*
 * --compare-formats: @smp walked again with each kind of registration alone
 * (SFrame and JIT; .eh_frame), timed, against the registrations our walk saw
 * (before a kernel profile's removals are made).
 */
static void walk_formats(struct sample *smp, const struct walk_env *env,
			 const struct emu_accessor *acc, const struct emu_regs *regs,
			 const struct emu_unwind_opts *uopts)
{
	static const unsigned int tables[SAMPLE_FORMATS] = { EMU_TABLES_SFRAME,
							     EMU_TABLES_EH_FRAME,
							     EMU_TABLES_SYNTHESIZED };
	struct emu_unwind_opts o = *uopts;

	for (int f = 0; f < SAMPLE_FORMATS && smp->formats[f].frames; f++) {
		struct sample_format *fm = &smp->formats[f];
		uint64_t t0 = clock_now_ns();

		o.tables = tables[f];
		emu_unwind(env->registry, acc, regs, &o, fm->frames, &fm->res);
		fm->ns = clock_now_ns() - t0;
		fm->past_copy = smp->stopped ? 0 :
				past_copy_from(env, acc, regs, &o, &fm->res, fm->frames);
	}
}

void walk_ours(struct sample *smp, const struct walk_env *env)
{
	struct walk_buffers *b = env->buf;
	struct sample_ours *o = &smp->ours;
	struct emu_unwind_opts uopts = env->uopts;
	struct emu_accessor acc;
	struct emu_regs regs;
	uint64_t t0 = clock_now_ns();

	stack_bounds(env, smp, &uopts);
	if (!smp->stack_map_end) {
		/* a stack grown below the cached mappings: reads above the copy are past it */
		smp->stack_map_start = uopts.stack_lo;
		smp->stack_map_end = uopts.stack_hi;
	}
	sample_mem_init(&b->mem, smp, env->code, env->maps);
	acc = sample_mem_accessor(&b->mem);
	to_emu_regs(smp, &regs);
	o->done = !emu_unwind(env->registry, &acc, &regs, &uopts, o->frames, &o->res);
	if (!o->done)
		return;
	o->read_past_copy = b->mem.past_copy && !smp->stopped;
	o->ns = clock_now_ns() - t0;
	o->stack_high = b->mem.stack_high;
	memcpy(b->ours, o->frames, o->res.nframes * sizeof(*o->frames));
	o->past_copy = smp->stopped ? 0 :
		       past_copy_from(env, &acc, &regs, &uopts, &o->res, b->ours);
	o->strict_changed = ra_lookup_changes(env, &acc, &regs, &uopts, &o->res);
	walk_formats(smp, env, &acc, &regs, &uopts);
	walk_report_removals(env, &o->res);
}

/*
 * Was @smp taken in a system call made by the last instruction of a
 * function (a noreturn exit)? Its IP, the address after the syscall
 * instruction (0f 05), is then the first byte of the next function. (In a
 * system call, the IP may also be a handler's first byte, the signal frame
 * set up, or the syscall instruction itself, the call to be restarted.)
 */
static bool syscall_ends_function(const struct walk_env *env, const struct sample *smp,
				  const struct emu_accessor *acc)
{
	uint64_t ip = smp->regs.rip, start, end;
	uint8_t insn[2];

	return smp->in_syscall && !symbols_function(&env->oracles->sym, ip, &start, &end) &&
	       start == ip && !acc->read(acc->ctx, ip - 2, insn, sizeof(insn)) &&
	       insn[0] == 0x0f && insn[1] == 0x05;
}

/* --verify: each JIT function our walk of @w goes through, checked the first time. */
static void verify_jit_frames(const struct walk_env *env, const struct emu_accessor *acc,
			      const struct sample_walks *w)
{
	char name[128];
	uint64_t ip, start, end;
	struct verify_jit j;

	for (unsigned int i = 0; env->verify && w->jit_frames && i < w->in.n; i++) {
		ip = lookup_ip(env, w->in.ours, i);
		if (!jit_at(env, acc, ip, &j) ||
		    verify_session_jit_checked(env->verify, w->tgid, j.text_start, ip) ||
		    jit_function(env, &j, ip, &start, &end, name, sizeof(name)))
			continue;
		verify_session_check_jit(env->verify, w->tgid, &j, start, end,
					 name[0] ? name : NULL);
	}
}

/*
 * Count @w under the object of frame 0, a copy of its path: naming frames in
 * stats_add() may read the modules again, which frees the names read before.
 */
static void count_sample(const struct walk_env *env, const struct sample *smp,
			 const struct sample_walks *w, const struct stats_namer *names)
{
	const char *obj = object_at(env, smp->regs.rip, OBJECT_PATH);
	char object[PATH_MAX];

	if (obj)
		snprintf(object, sizeof(object), "%s", obj);
	stats_add(env->stats, w, obj ? object : NULL, names, env->folded);
}

_Static_assert(SAMPLE_FORMATS == FORMATS, "one walk per format");

/* The tables of the object holding @ip, when the module is known. */
static bool table_bytes(const struct walk_env *env, uint64_t ip, struct table_bytes *t)
{
	const struct emu_registration *reg = emu_registry_find_unwind(env->registry, ip);

	t->synthesized = reg && reg->origin == EMU_ORIGIN_SYNTHESIZED && reg->sframe ?
			 emu_sframe_size(reg->sframe) : 0;
	return !symbols_table_bytes(&env->oracles->sym, ip, &t->sframe, &t->eh_frame_hdr,
				    &t->eh_frame);
}

/*
 * Format @f's walk of @smp judged as our walk is (the same references, read
 * before into @w), and counted. The walk buffers' "ours" part is free again
 * once @w is counted.
 */
static void judge_format(const struct walk_env *env, const struct sample *smp,
			 const struct emu_accessor *acc, const struct oracle_input *in,
			 const struct sample_walks *w, enum format_id f)
{
	const struct sample_format *fm = &smp->formats[f];
	const struct emu_unwind_result *res = &fm->res;
	struct walk_buffers *b = env->buf;
	struct sample_walks wf = *w;
	const char *obj = object_at(env, smp->regs.rip, OBJECT_PATH);
	char object[PATH_MAX];
	struct table_bytes bytes;
	bool have_bytes;

	memcpy(b->ours, fm->frames, res->nframes * sizeof(*b->ours));
	wf.in.ours = b->ours;
	wf.in.n = res->nframes;
	wf.in.stop = res->stop;
	wf.in.stop_source = res->stop_source;
	wf.in.past_copy = fm->past_copy;
	wf.v = (struct sample_verdict){ 0 };
	find_jit_frames(env, &wf);
	judge_walks(env, smp, acc, &wf);
	unjudge_past_copy(b, &wf);
	classify_sample(&wf.in, &wf.v);
	if (classify_needs_third_opinion(&wf.v))
		third_opinion(env, in, &wf);
	if (obj)
		snprintf(object, sizeof(object), "%s", obj);
	have_bytes = formats_need_bytes(&env->stats->formats, obj ? object : NULL) &&
		     table_bytes(env, smp->regs.rip, &bytes);
	formats_add(&env->stats->formats, f, &wf, obj ? object : NULL, have_bytes ? &bytes : NULL,
		    res->stop == EMU_STOP_OUTERMOST, fm->ns);
}

/* --compare-formats: each format's walk judged, and the two compared. */
static void compare_formats(const struct walk_env *env, const struct sample *smp,
			    const struct emu_accessor *acc, const struct oracle_input *in,
			    const struct sample_walks *w)
{
	const struct sample_format *sf = &smp->formats[FORMAT_SFRAME];
	const struct sample_format *eh = &smp->formats[FORMAT_EH_FRAME];
	uint64_t *a = env->buf->ref_alt, *c = env->buf->ours_ips;
	bool same = sf->res.nframes == eh->res.nframes;

	for (unsigned int i = 0; same && i < sf->res.nframes; i++)
		same = sf->frames[i].ip == eh->frames[i].ip;
	for (int f = 0; f < FORMATS && smp->formats[f].frames; f++)
		judge_format(env, smp, acc, in, w, f);
	if (same)
		return;
	for (unsigned int i = 0; i < sf->res.nframes; i++)
		a[i] = sf->frames[i].ip;
	for (unsigned int i = 0; i < eh->res.nframes; i++)
		c[i] = eh->frames[i].ip;
	formats_differ(&env->stats->formats, a, sf->res.nframes, c, eh->res.nframes,
		       symbol_cb, (void *)env);
}

void walk_rest(const struct sample *smp, const struct walk_env *env)
{
	struct sample_walks w = { .tgid = smp->tgid, .tid = smp->tid };
	const struct stats_namer names = { symbol_cb, object_cb, (void *)env, comm_cb };
	const struct emu_unwind_result *res = &smp->ours.res;
	struct walk_buffers *b = env->buf;
	struct oracle_input in;
	struct emu_accessor acc;

	if (!smp->ours.done) {
		stats_drop(env->stats);
		return;
	}
	sample_mem_init(&b->mem, smp, env->code, env->maps);
	symbols_new_sample(&env->oracles->sym, smp->taken_ns);
	acc = sample_mem_accessor(&b->mem);
	in = oracle_input(env, smp, &acc);
	env->stats->ours_ns += smp->ours.ns;
	env->stats->stack_past_copy += smp->ours.read_past_copy;
	memcpy(b->ours, smp->ours.frames, res->nframes * sizeof(*b->ours));
	w.in.past_copy = smp->ours.past_copy;
	w.in.after_syscall = syscall_ends_function(env, smp, &acc);
	w.in.ours = b->ours;
	w.in.n = res->nframes;
	w.in.stop = res->stop;
	w.in.stop_source = res->stop_source;
	w.stop = emu_stop_reason(res);
	w.jit_fault = res->stop == EMU_STOP_JIT_INVALID ? res->jit_fault : EMU_JIT_OK;
	w.strict_changed = smp->ours.strict_changed;
	find_jit_frames(env, &w);
	walk_references(env, &in, smp->stopped, &w);
	judge_walks(env, smp, &acc, &w);
	if (ref_went_wrong(&w)) {	/* maybe by a rule cached for the other lookup */
		b->walker.libunwind_flush = true;
		walk_references(env, &in, smp->stopped, &w);
		judge_walks(env, smp, &acc, &w);
		env->stats->ref_retries++;
	}
	unjudge_past_copy(b, &w);
	classify_sample(&w.in, &w.v);
	if (classify_needs_third_opinion(&w.v))
		third_opinion(env, &in, &w);
	w.read_past_copy = smp->ours.read_past_copy || (b->mem.past_copy && !smp->stopped);
	w.programs_own = smp->programs_own;
	w.truth = smp->truth;
	w.n_truth = smp->n_truth;
	w.truth_depth = smp->truth_depth;
	w.waited_ns = smp->waited_ns;
	w.freeze_ns = smp->freeze_ns;
	w.eh_frame_unsupported = res->nunsupported;
	w.eh_frame_unsupported_rule = res->unsupported_rule;
	w.reason = w.v.cls == SC_MATCH || w.v.cls == SC_UNCHECKED ? NULL :
		   reason_of(env, &w, res, &acc);
	verify_jit_frames(env, &acc, &w);
	count_sample(env, smp, &w, &names);
	if (smp->formats[0].frames)
		compare_formats(env, smp, &acc, &in, &w);
}
