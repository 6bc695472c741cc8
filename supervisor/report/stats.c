// SPDX-License-Identifier: GPL-2.0
/* Accumulating sample results for the report. */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame_name.h"
#include "keyed.h"
#include "stats.h"

int stats_init(struct sample_stats *st, bool keep_stacks, uint64_t period_ns)
{
	*st = (struct sample_stats){ .period_ns = period_ns };
	st->disagreements = json_array();
	if (keep_stacks)
		st->stacks = json_array();
	if (!st->disagreements || (keep_stacks && !st->stacks))
		return -ENOMEM;
	return 0;
}

static void free_place(void *node)
{
	struct stats_place *p = node;

	free(p->key);
	free(p->function);
	json_decref(p->example);
	free(p);
}


void stats_free(struct sample_stats *st)
{
	keyed_free(st->objects);
	tdestroy(st->places, free_place);
	keyed_free(st->folded);
	keyed_free(st->folded_all);
	keyed_free(st->threads);
	profile_free(&st->profile);
	formats_free(&st->formats);
	json_decref(st->disagreements);
	json_decref(st->stacks);
	free(st->freeze_ns);
	*st = (struct sample_stats){ 0 };
}

static json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

/* Is frame @i looked up as a caller (at its RA - 1)? Not frame 0, nor an exact IP. */
static bool is_caller(const uint8_t *flags, unsigned int i)
{
	return i > 0 && !(flags && (flags[i] & EMU_FRAME_EXACT));
}

/*
 * One frame: its IP, its name and object, "exact" when the IP is where the
 * thread was (not a return address), "signal_trampoline" for a signal's
 * return trampoline, and its plausibility when known. @flags: EMU_FRAME_*.
 */
static json_t *frame_json(const struct stats_namer *names, uint64_t ip, bool caller,
			  uint8_t flags, const uint8_t *plaus, unsigned int i)
{
	const char *symbol = names->symbol(names->ctx, ip, caller);
	const char *object = names->object ? names->object(names->ctx, ip, caller) : NULL;
	json_t *f = json_pack("{s:o,s:s}", "ip", hex(ip), "symbol", symbol ? symbol : "?");

	if (f && object)
		json_object_set_new(f, "object", json_string(object));
	if (f && i && (flags & EMU_FRAME_EXACT))
		json_object_set_new(f, "exact", json_true());
	if (f && (flags & EMU_FRAME_TRAMPOLINE))
		json_object_set_new(f, "signal_trampoline", json_true());
	if (!f || !plaus || !i)
		return f;
	if (plaus[i] == PLAUSIBLE_UNKNOWN) {
		json_object_set_new(f, "plausible", json_null());
	} else {
		json_object_set_new(f, "plausible", json_boolean(plaus[i] == PLAUSIBLE_YES));
		if (plausible_bad(plaus[i]))
			json_object_set_new(f, "why", json_string(plausible_name(plaus[i])));
	}
	return f;
}

static json_t *frames_json(const struct sample_walks *w, const struct stats_namer *names)
{
	const struct emu_frame *ours = w->in.ours;
	json_t *a = json_array(), *f;

	for (unsigned int i = 0; a && i < w->in.n; i++) {
		bool exact = ours[i].flags & EMU_FRAME_EXACT;

		f = frame_json(names, ours[i].ip, i > 0 && !exact, ours[i].flags, w->in.plaus, i);
		if (f)
			json_object_set_new(f, "source", json_string(emu_source_name(ours[i].source)));
		if (f && w->in.past_copy && i >= w->in.past_copy)
			json_object_set_new(f, "past_copy", json_true());
		json_array_append_new(a, f);
	}
	return a;
}

/* A reference's frames; those from @past_copy on (0: none) read past the stack copy. */
static json_t *ips_json(const uint64_t *ips, const uint8_t *flags, const uint8_t *plaus,
			unsigned int n, unsigned int past_copy, const struct stats_namer *names)
{
	json_t *a = json_array(), *f;

	for (unsigned int i = 0; a && i < n; i++) {
		f = frame_json(names, ips[i], is_caller(flags, i),
			       flags ? flags[i] : i ? 0 : EMU_FRAME_EXACT, plaus, i);
		if (f && past_copy && i >= past_copy)
			json_object_set_new(f, "past_copy", json_true());
		json_array_append_new(a, f);
	}
	return a;
}

/* The program's own chain: its depth, and its innermost return addresses. */
static json_t *truth_json(const struct sample_walks *w)
{
	json_t *a = json_array();

	for (unsigned int i = 0; a && i < w->n_truth; i++)
		json_array_append_new(a, hex(w->truth[i]));
	return json_pack("{s:I,s:o}", "depth", (json_int_t)w->truth_depth, "return_addresses",
			 a ? a : json_null());
}

static json_t *sample_json(const struct sample_walks *w, const struct stats_namer *names)
{
	const struct sample_walks_in *in = &w->in;
	json_t *o = json_pack("{s:i,s:i,s:s,s:o}", "pid", (int)w->tgid, "tid", (int)w->tid,
			      "class", classify_class_name(w->v.cls),
			      "frames", frames_json(w, names));

	if (!o)
		return NULL;
	json_object_set_new(o, "stop", json_string(w->stop ? w->stop : ""));
	json_object_set_new(o, "covered", json_integer(w->v.covered));
	json_object_set_new(o, "agrees", json_boolean(w->v.agrees));
	json_object_set_new(o, "outcome", json_string(classify_outcome_name(classify_outcome(&w->v))));
	if (w->in.past_copy)
		json_object_set_new(o, "past_copy_from", json_integer(w->in.past_copy));
	if (w->v.fallback_skipped)
		json_object_set_new(o, "fallback_skipped", json_true());
	if (w->v.why) {
		json_object_set_new(o, "wrong_frame", json_integer(w->v.wrong_frame));
		json_object_set_new(o, "why", json_string(classify_why_name(w->v.why)));
	}
	if (w->jit_frames) {
		json_object_set_new(o, "jit_frames", json_integer(w->jit_frames));
		json_object_set_new(o, "first_jit_frame", json_integer(w->v.jit_frame));
	}
	if (w->v.cls != SC_MATCH && w->v.cls != SC_UNCHECKED) {
		json_object_set_new(o, "first_difference", json_integer(w->v.first_difference));
		json_object_set_new(o, "reason", json_string(w->reason ? w->reason : ""));
		json_object_set_new(o, "libunwind", ips_json(in->ref, w->in.ref_flags, in->ref_plaus,
							     in->n_ref, in->ref_past_copy, names));
	}
	if (w->v.side != SIDE_NOT_ASKED) {
		json_object_set_new(o, "elfutils", json_string(classify_side_name(w->v.side)));
		json_object_set_new(o, "elfutils_frames", ips_json(w->elf, w->elf_flags,
								   w->elf_plaus, w->n_elf, 0, names));
	}
	if (w->truth_depth)
		json_object_set_new(o, "truth", truth_json(w));
	if (w->eh_frame_unsupported)
		json_object_set_new(o, "eh_frame_unsupported",
				    json_pack("{s:i,s:s}", "lookups", (int)w->eh_frame_unsupported,
					      "rule", emu_rule_name(w->eh_frame_unsupported_rule)));
	if (w->strict_changed)
		json_object_set_new(o, "strict_ra_changed", json_true());
	if (w->read_past_copy)
		json_object_set_new(o, "read_past_copy", json_true());
	if (w->programs_own)
		json_object_set_new(o, "programs_own_sigprof", json_true());
	return o;
}

/*
 * The frame whose step went wrong: the one before a wrong frame or the first
 * difference, or the last covered one where the fallback took over.
 */
static unsigned int blamed_frame(const struct sample_walks *w)
{
	unsigned int d = w->v.first_difference;

	switch (w->v.cls) {
	case SC_OURS_WRONG:
	case SC_BOTH_WRONG:
		return w->v.wrong_frame ? w->v.wrong_frame - 1 : 0;
	case SC_DIVERGED:
		return d ? d - 1 : 0;
	case SC_ENDED:
	case SC_ASTRAY:
		return w->v.covered - 1;
	default:
		return 0;
	}
}

/* Count @w at its place; the place, with its example still to set when it is new. */
static struct stats_place *add_place(struct sample_stats *st, const struct sample_walks *w,
				     const struct stats_namer *names)
{
	unsigned int b = blamed_frame(w);
	const struct emu_frame *f = b < w->in.n ? &w->in.ours[b] : NULL;
	const char *text = f ? names->symbol(names->ctx, f->ip, b > 0 && !(f->flags & EMU_FRAME_EXACT)) : NULL;
	char fn[256], key[512];
	struct stats_place *p;

	frame_function(text ? text : "?", fn, sizeof(fn));
	snprintf(key, sizeof(key), "%s\t%s\t%s\t%s", classify_class_name(w->v.cls), fn,
		 classify_why_name(w->v.why), w->reason ? w->reason : "");
	p = keyed_entry(&st->places, key, sizeof(*p));
	if (!p)
		return NULL;
	if (!p->count++) {
		p->cls = w->v.cls;
		p->function = strdup(fn);
		p->why = w->v.why;
		p->reason = strrchr(p->key, '\t') + 1;
	}
	p->side[w->v.side]++;
	return p;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool in_loader_module(const struct stats_namer *names, uint64_t ip, bool caller)
{
	const char *o = names->object(names->ctx, ip, caller);

	return o && !strcmp(base_name(o), STATS_LOADER_MODULE);
}

/* Has either walk of @w a frame in the loader module (codectl-run's own code)? */
static bool sample_in_loader_module(const struct sample_walks *w, const struct stats_namer *names)
{
	for (unsigned int i = 0; i < w->in.n; i++)
		if (in_loader_module(names, w->in.ours[i].ip,
				     i > 0 && !(w->in.ours[i].flags & EMU_FRAME_EXACT)))
			return true;
	for (unsigned int i = 0; i < w->in.n_ref; i++)
		if (in_loader_module(names, w->in.ref[i], i > 0))
			return true;
	return false;
}

/* The first frame of @w past its covered prefix that libunwind's walk does not have too. */
static unsigned int witnessed_until(const struct sample_walks *w)
{
	unsigned int i = w->v.covered;

	while (i < w->in.n && w->in.have_ref && i < w->in.n_ref && w->in.ref[i] == w->in.ours[i].ip)
		i++;
	return i;
}

/*
 * What a flame graph may draw of @w: the frames below the first one judged
 * wrong or unverifiable, the rest replaced by @marker ("[wrong: not-code]"
 * in the covered prefix, "[astray: not-code]" past it, "[unverified]",
 * "[past-coverage]"); all of them when @marker is "".
 * Return: how many frames are kept.
 */
static unsigned int folded_cut(const struct sample_walks *w, char *marker, size_t size)
{
	const struct sample_verdict *v = &w->v;
	unsigned int cut = w->in.n, seen;

	marker[0] = '\0';
	switch (classify_outcome(v)) {
	case OUTCOME_OURS_WRONG:
	case OUTCOME_BOTH_WRONG:
		snprintf(marker, size, v->why ? "[wrong: %s]" : "[wrong]", classify_why_name(v->why));
		return v->why ? v->wrong_frame : v->first_difference;
	case OUTCOME_PAST_COPY:
		snprintf(marker, size, "[unverified]");
		return v->past_copy;
	case OUTCOME_UNVERIFIABLE:
		if (v->cls == SC_UNCHECKED)
			break;	/* no reference: the covered prefix, as a verified one */
		snprintf(marker, size, "[unverified]");
		if (v->fallback_skipped)
			return v->covered;
		return v->cls == SC_BLIND || v->cls == SC_DIVERGED ? v->first_difference : 1;
	default:
		break;
	}
	if (v->why && v->wrong_frame < cut) {	/* past the covered prefix: the fallback's */
		cut = v->wrong_frame;
		snprintf(marker, size, "[astray: %s]", classify_why_name(v->why));
	}
	seen = witnessed_until(w);
	if (seen < cut) {
		cut = seen;
		snprintf(marker, size, "[past-coverage]");
	}
	return cut;
}

/* "comm-TGID/TID;" (stackcollapse-perf's --pid --tid), the name the thread's entry keeps. */
static size_t folded_root(const struct sample_walks *w, const struct stats_namer *names,
			  const struct stats_thread *thread, char *out, size_t size)
{
	char comm[16] = "";
	size_t len;

	if (thread)
		memcpy(comm, thread->comm, sizeof(comm));
	else if (names->comm)
		names->comm(names->ctx, w->tid, comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	for (char *c = comm; *c; c++)
		if (*c == ';' || *c == ' ')
			*c = '_';	/* a name is one frame */
	len = (size_t)snprintf(out, size, "%s-%d/%d;", comm[0] ? comm : "?", (int)w->tgid,
			       (int)w->tid);
	return len < size ? len : size - 1;
}

/*
 * The stack, outermost first, into @tree: a root for the thread unless
 * --no-folded-root, then @marker when not "" (what follows the frames kept
 * is one marker frame: folded_cut()), then our frames 0 .. @keep - 1.
 */
static void fold_into(struct sample_stats *st, void **tree, const struct sample_walks *w,
		      const struct stats_namer *names, const struct stats_thread *thread,
		      unsigned int keep, const char *marker)
{
	char stack[16384], fn[256];
	size_t len = 0;
	struct stats_folded *f;

	stack[0] = '\0';
	if (!st->folded_no_root)
		len = folded_root(w, names, thread, stack, sizeof(stack));
	if (marker[0])
		len += (size_t)snprintf(stack + len, sizeof(stack) - len, "%s;", marker);
	for (unsigned int i = keep; i-- > 0 && len < sizeof(stack) - 1;) {
		const struct emu_frame *f = &w->in.ours[i];
		bool caller = i > 0 && !(f->flags & EMU_FRAME_EXACT);
		const char *t = names->symbol(names->ctx, f->ip, caller);

		frame_function(t ? t : "?", fn, sizeof(fn));
		len += (size_t)snprintf(stack + len, sizeof(stack) - len, "%s%s;", fn,
					in_loader_module(names, f->ip, caller) ?
					STATS_LOADER_MODULE_MARK : "");
	}
	if (len && len < sizeof(stack))
		stack[len - 1] = '\0';	/* the last ';' */
	f = keyed_entry(tree, stack, sizeof(*f));
	if (f) {
		f->count++;
		f->ref_wrong += w->v.cls == SC_LIBUNWIND_FAILED;
	}
}

/*
 * The folded stacks: cut to @keep frames and @marker (--folded, --html),
 * and every frame (--folded-all) when kept.
 */
static void add_folded(struct sample_stats *st, const struct sample_walks *w,
		       const struct stats_namer *names, const struct stats_thread *thread,
		       unsigned int keep, const char *marker)
{
	fold_into(st, &st->folded, w, names, thread, keep, marker);
	if (st->keep_folded_all)
		fold_into(st, &st->folded_all, w, names, thread, w->in.n, "");
}

/* Thread @tid's entry, or NULL; its key into @key (32 bytes). */
static struct stats_thread *thread_find(struct sample_stats *st, pid_t tgid, pid_t tid, char *key)
{
	snprintf(key, 32, "%d/%d", (int)tgid, (int)tid);
	return keyed_find(&st->threads, key);
}

/*
 * Thread @tid's entry, made on first use while there are fewer than
 * STATS_MAX_THREADS; NULL past that (counted) or on ENOMEM.
 */
static struct stats_thread *thread_entry(struct sample_stats *st, pid_t tgid, pid_t tid)
{
	char key[32];
	struct stats_thread *t = thread_find(st, tgid, tid, key);

	if (t)
		return t;
	if (st->n_threads >= STATS_MAX_THREADS) {
		st->threads_unlisted++;
		return NULL;
	}
	t = keyed_entry(&st->threads, key, sizeof(*t));
	if (t) {
		t->tgid = tgid;
		t->tid = tid;
		st->n_threads++;
	}
	return t;
}

/* @w counted for its thread @t, named at its first sample (and after an exec). */
static void count_thread(struct stats_thread *t, const struct sample_walks *w,
			 const struct stats_namer *names)
{
	enum sample_outcome o = classify_outcome(&w->v);

	t->walked++;
	t->unverified += o == OUTCOME_UNVERIFIABLE || o == OUTCOME_PAST_COPY;
	t->wrong += o == OUTCOME_OURS_WRONG || o == OUTCOME_BOTH_WRONG;
	if (!t->named && names->comm)
		names->comm(names->ctx, w->tid, t->comm, sizeof(t->comm));
	t->named = true;
}

static void add_object(struct sample_stats *st, const struct sample_walks *w, const char *object)
{
	struct stats_object *o = keyed_entry(&st->objects, object ? object : "[unknown]", sizeof(*o));

	if (!o)
		return;
	o->samples++;
	o->with_step += w->v.has_step;
}

static void add_freeze(struct sample_stats *st, uint64_t ns)
{
	if (st->nfreeze == st->capfreeze) {
		size_t cap = st->capfreeze ? st->capfreeze * 2 : 1024;
		uint32_t *v = realloc(st->freeze_ns, cap * sizeof(*v));

		if (!v)
			return;
		st->freeze_ns = v;
		st->capfreeze = cap;
	}
	st->freeze_ns[st->nfreeze++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static enum finding_walk finding_walk(enum sample_class cls)
{
	if (cls == SC_ASTRAY)
		return FINDING_ASTRAY;
	return cls == SC_LIBUNWIND_FAILED ? FINDING_LIBUNWIND : FINDING_COVERED;
}

static void add_counts(struct sample_stats *st, const struct sample_walks *w)
{
	st->total++;
	st->by_class[w->v.cls]++;
	st->programs_own += w->programs_own;
	st->with_step += w->v.has_step;
	st->checked_with_step += w->v.has_step && w->v.cls != SC_UNCHECKED;
	st->agreeing += w->v.agrees;
	st->outcome[classify_outcome(&w->v)]++;
	st->libunwind_wrong += classify_libunwind_wrong(&w->v);
	st->fallback_skipped += w->v.fallback_skipped;	/* always astray, unverifiable */
	st->findings[w->v.why < WHY_COUNT ? w->v.why : 0]++;
	st->findings_in[finding_walk(w->v.cls)][w->v.why < WHY_COUNT ? w->v.why : 0]++;
	st->side[w->v.side]++;
	st->check_failures += classify_check_failed(&w->v);
	st->strict_changed += w->strict_changed;
	st->jit_samples += w->jit_frames > 0;
	st->jit_frames += w->jit_frames;
	if (w->jit_fault && w->jit_fault < EMU_JIT_FAULT_COUNT) {
		st->jit_invalid[w->jit_fault]++;
		st->jit_invalid_total++;
	}
	if (w->waited_ns > st->period_ns) {
		st->waited++;
		if (w->waited_ns > st->waited_max_ns)
			st->waited_max_ns = w->waited_ns;
	}
	add_freeze(st, w->freeze_ns);
}

void stats_add(struct sample_stats *st, const struct sample_walks *w, const char *object,
	       const struct stats_namer *names, bool folded)
{
	bool disagrees = classify_disagrees(&w->v);
	bool keep = disagrees && st->keep_disagreements &&
		    json_array_size(st->disagreements) < STATS_MAX_DISAGREEMENTS;
	bool tool = sample_in_loader_module(w, names);
	struct stats_place *place = NULL;
	char marker[64];
	unsigned int cut = folded_cut(w, marker, sizeof(marker));
	struct stats_thread *thread;
	json_t *j = NULL;

	add_counts(st, w);
	add_object(st, w, object);
	thread = thread_entry(st, w->tgid, w->tid);
	if (thread)
		count_thread(thread, w, names);
	if (folded)
		add_folded(st, w, names, thread, cut, marker);
	if (!tool)
		profile_add(&st->profile, w, names, cut);
	st->in_loader_module += tool;
	if (disagrees) {
		st->disagreements_total++;
		/* codectl-run's own code is not one of the program's places */
		if (!tool)
			place = add_place(st, w, names);
		keep = keep && !tool;
	}
	/* every frame symbolized: only for a sample that is kept */
	if (keep || st->stacks || (place && !place->example))
		j = sample_json(w, names);
	if (!j)
		return;
	if (place && !place->example)
		place->example = json_incref(j);
	if (keep)
		json_array_append(st->disagreements, j);
	if (st->stacks)
		json_array_append(st->stacks, j);
	json_decref(j);
}

void stats_thread_exec(struct sample_stats *st, pid_t tgid, pid_t tid)
{
	char key[32];
	struct stats_thread *t = thread_find(st, tgid, tid, key);

	if (t)
		t->named = false;
}

void stats_drop(struct sample_stats *st)
{
	st->dropped++;
}

void stats_taken(struct sample_stats *st, pid_t tgid, pid_t tid)
{
	struct stats_thread *t = thread_entry(st, tgid, tid);

	if (t)
		t->taken++;
}

double stats_agreement(const struct sample_stats *st)
{
	return st->checked_with_step ? (double)st->agreeing / (double)st->checked_with_step : -1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint64_t stats_freeze_percentile(struct sample_stats *st, double pct)
{
	size_t i;

	if (!st->nfreeze)
		return 0;
	qsort(st->freeze_ns, st->nfreeze, sizeof(*st->freeze_ns), cmp_u32);
	i = (size_t)(pct / 100.0 * (double)(st->nfreeze - 1) + 0.5);
	return st->freeze_ns[i < st->nfreeze ? i : st->nfreeze - 1];
}

static int cmp_place(const void *a, const void *b)
{
	const struct stats_place *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

static int cmp_object(const void *a, const void *b)
{
	const struct stats_object *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_folded(const void *a, const void *b)
{
	const struct stats_folded *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

struct stats_place **stats_places_sorted(const struct sample_stats *st, size_t *n)
{
	return (struct stats_place **)keyed_sorted(st->places, n, cmp_place);
}

struct stats_object **stats_objects_sorted(const struct sample_stats *st, size_t *n)
{
	struct stats_object **v = (struct stats_object **)keyed_sorted(st->objects, n, cmp_object);

	for (size_t i = 0; v && i < *n; i++) {
		v[i]->label = base_name(v[i]->name);
		for (size_t k = 0; k < *n; k++)
			if (k != i && !strcmp(base_name(v[k]->name), v[i]->label))
				v[i]->label = v[i]->name;	/* two share the name: the path */
	}
	return v;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct stats_thread *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

struct stats_thread **stats_threads_sorted(const struct sample_stats *st, size_t *n)
{
	return (struct stats_thread **)keyed_sorted(st->threads, n, cmp_thread);
}

struct stats_folded **stats_folded_sorted(const struct sample_stats *st, bool all, size_t *n)
{
	return (struct stats_folded **)keyed_sorted(all ? st->folded_all : st->folded, n, cmp_folded);
}
