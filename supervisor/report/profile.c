// SPDX-License-Identifier: GPL-2.0
/* Where the program spends its time: by function, object, process and thread. */
#include <search.h>
#include <stdlib.h>
#include <string.h>

#include "frame_name.h"
#include "keyed.h"
#include "profile.h"
#include "stats.h"

#define PROFILE_LINES 10	/* lines of each table in the text report */
#define PROFILE_JSON_MAX 10000	/* entries of each table in the JSON at most */

/* Has the key @key been counted for this sample already (recursion: total counts once)? */
static bool seen(const char *const *keys, unsigned int n, const char *key)
{
	for (unsigned int i = 0; i < n; i++)
		if (!strcmp(keys[i], key))
			return true;
	return false;
}

/* Count one frame of a sample under @key in @root: @self when frame 0; NULL when seen. */
static const char *count(void **root, const char *key, bool self, enum sample_outcome o)
{
	struct profile_entry *e = keyed_entry(root, key, sizeof(*e));

	if (!e)
		return NULL;
	e->self += self;
	e->total++;
	e->unverified += o == OUTCOME_UNVERIFIABLE || o == OUTCOME_PAST_COPY;
	e->wrong += o == OUTCOME_OURS_WRONG || o == OUTCOME_BOTH_WRONG;
	return e->key;
}

/* Frames counted per sample at most (deeper ones count in the report's other tables). */
#define PROFILE_DEPTH 256

void profile_add(struct profile *p, const struct sample_walks *w, const struct stats_namer *names,
		 unsigned int keep)
{
	const char *fns[PROFILE_DEPTH], *objs[PROFILE_DEPTH];
	enum sample_outcome o = classify_outcome(&w->v);
	unsigned int nf = 0, no = 0;
	char fn[256], key[4352];

	p->samples++;
	for (unsigned int i = 0; i < keep && i < PROFILE_DEPTH; i++) {
		const struct emu_frame *f = &w->in.ours[i];
		bool caller = i > 0 && !(f->flags & EMU_FRAME_EXACT);
		const char *t = names->symbol(names->ctx, f->ip, caller);
		const char *obj = names->object ? names->object(names->ctx, f->ip, caller) : NULL;

		frame_function(t ? t : "?", fn, sizeof(fn));
		obj = obj ? obj : "?";
		snprintf(key, sizeof(key), "%s\t%s", fn, obj);
		if (!seen(fns, nf, key) && (fns[nf] = count(&p->functions, key, !i, o)))
			nf++;
		if (!seen(objs, no, obj) && (objs[no] = count(&p->objects, obj, !i, o)))
			no++;
	}
}

void profile_free(struct profile *p)
{
	keyed_free(p->functions);
	keyed_free(p->objects);
	*p = (struct profile){ 0 };
}

static int by_self(const void *a, const void *b)
{
	const struct profile_entry *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->key, y->key);
}

static int by_total(const void *a, const void *b)
{
	const struct profile_entry *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return by_self(a, b);
}

/* ' ', '~' (some samples unverifiable) or '!' (some wrong). */
static char mark(unsigned long unverified, unsigned long wrong)
{
	return wrong ? '!' : unverified ? '~' : ' ';
}

static double share(unsigned long n, unsigned long of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

/* "leaf  libdemo_shapes.so" from "leaf\t/path/libdemo_shapes.so"; an object's file name. */
static void label(const char *key, char *out, size_t size)
{
	const char *tab = strchr(key, '\t'), *obj = tab ? tab + 1 : key, *slash = strrchr(obj, '/');

	if (tab)
		snprintf(out, size, "%.*s  %s", (int)(tab - key), key, slash ? slash + 1 : obj);
	else
		snprintf(out, size, "%s", slash ? slash + 1 : obj);
}

static void print_table(FILE *f, const char *title, void *root, unsigned long samples,
			int (*cmp)(const void *, const void *))
{
	size_t n;
	struct profile_entry **v = (struct profile_entry **)keyed_sorted(root, &n, cmp);
	char name[512];

	fprintf(f, "    %s:\n", title);
	for (size_t i = 0; i < n && i < PROFILE_LINES; i++) {
		label(v[i]->key, name, sizeof(name));
		fprintf(f, "     %c %5.1f%% %6lu self  %5.1f%% %6lu total  %s\n",
			mark(v[i]->unverified, v[i]->wrong), share(v[i]->self, samples), v[i]->self,
			share(v[i]->total, samples), v[i]->total, name);
	}
	if (n > PROFILE_LINES)
		fprintf(f, "       (%zu more)\n", n - PROFILE_LINES);
	free(v);
}

/* Processes, in pid order: the threads of one, summed (its name: its leader's, else a thread's). */
struct proc_line {
	pid_t tgid;
	const char *comm;
	unsigned long samples, unverified, wrong;
};

/* The processes of @t (@n threads, sorted by pid) into @out; how many. */
static size_t processes(struct stats_thread *const *t, size_t n, struct proc_line *out)
{
	size_t np = 0;

	for (size_t i = 0; i < n; i++) {
		struct proc_line *l = np && out[np - 1].tgid == t[i]->tgid ? &out[np - 1] : NULL;

		if (!l) {
			l = &out[np++];
			*l = (struct proc_line){ .tgid = t[i]->tgid, .comm = t[i]->comm };
		}
		if (t[i]->tid == t[i]->tgid && t[i]->comm[0])
			l->comm = t[i]->comm;
		l->samples += t[i]->walked;
		l->unverified += t[i]->unverified;
		l->wrong += t[i]->wrong;
	}
	return np;
}

static int thread_pid_order(const void *a, const void *b)
{
	const struct stats_thread *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static void print_threads(FILE *f, const struct sample_stats *st)
{
	size_t n, np;
	struct stats_thread **t = (struct stats_thread **)keyed_sorted(st->threads, &n,
									thread_pid_order);
	struct proc_line *pl = calloc(n ? n : 1, sizeof(*pl));

	if (!pl) {
		free(t);
		return;
	}
	np = processes(t, n, pl);
	fprintf(f, "    by process:\n");
	for (size_t i = 0; i < np && i < PROFILE_LINES; i++)
		fprintf(f, "     %c %5.1f%% %6lu  pid %d %s\n", mark(pl[i].unverified, pl[i].wrong),
			share(pl[i].samples, st->total), pl[i].samples, (int)pl[i].tgid,
			pl[i].comm[0] ? pl[i].comm : "?");
	fprintf(f, "    by thread:\n");
	for (size_t i = 0; i < n && i < PROFILE_LINES; i++)
		fprintf(f, "     %c %5.1f%% %6lu  tid %d %s (pid %d)\n",
			mark(t[i]->unverified, t[i]->wrong), share(t[i]->walked, st->total),
			t[i]->walked, (int)t[i]->tid, t[i]->comm[0] ? t[i]->comm : "?",
			(int)t[i]->tgid);
	if (n > PROFILE_LINES)
		fprintf(f, "       (%zu more threads)\n", n - PROFILE_LINES);
	free(pl);
	free(t);
}

void profile_print(FILE *f, const struct sample_stats *st)
{
	const struct profile *p = &st->profile;

	if (!p->samples)
		return;
	fprintf(f, "  profile: %lu samples of the program", p->samples);
	if (st->in_loader_module)
		fprintf(f, " (%lu in codectl-run's own loader module apart)", st->in_loader_module);
	fprintf(f, ", by the frames each stack keeps (~: some unverifiable, !: some wrong)\n");
	print_table(f, "functions by self", p->functions, p->samples, by_self);
	print_table(f, "functions by total", p->functions, p->samples, by_total);
	print_table(f, "objects by total", p->objects, p->samples, by_total);
	print_threads(f, st);
}

static json_t *table_json(void *root, bool functions)
{
	size_t n;
	struct profile_entry **v = (struct profile_entry **)keyed_sorted(root, &n, by_total);
	json_t *a = json_array(), *e;

	for (size_t i = 0; a && i < n && i < PROFILE_JSON_MAX; i++) {
		const char *tab = strchr(v[i]->key, '\t');

		e = json_pack("{s:s,s:I,s:I,s:I,s:I}", "object", tab ? tab + 1 : v[i]->key,
			      "self", (json_int_t)v[i]->self, "total", (json_int_t)v[i]->total,
			      "unverified", (json_int_t)v[i]->unverified,
			      "wrong", (json_int_t)v[i]->wrong);
		if (e && functions && tab)
			json_object_set_new(e, "function", json_stringn(v[i]->key,
									 (size_t)(tab - v[i]->key)));
		json_array_append_new(a, e);
	}
	free(v);
	return a;
}

static json_t *processes_json(const struct sample_stats *st)
{
	size_t n, np;
	struct stats_thread **t = (struct stats_thread **)keyed_sorted(st->threads, &n,
									thread_pid_order);
	struct proc_line *pl = calloc(n ? n : 1, sizeof(*pl));
	json_t *a = pl ? json_array() : NULL;

	np = pl ? processes(t, n, pl) : 0;
	for (size_t i = 0; a && i < np; i++)
		json_array_append_new(a, json_pack("{s:i,s:s,s:I,s:I,s:I}", "pid", (int)pl[i].tgid,
						   "comm", pl[i].comm, "samples",
						   (json_int_t)pl[i].samples, "unverified",
						   (json_int_t)pl[i].unverified, "wrong",
						   (json_int_t)pl[i].wrong));
	free(pl);
	free(t);
	return a;
}

json_t *profile_json(const struct sample_stats *st)
{
	return json_pack("{s:I,s:o,s:o,s:o}", "samples", (json_int_t)st->profile.samples,
			 "functions", table_json(st->profile.functions, true),
			 "objects", table_json(st->profile.objects, false),
			 "processes", processes_json(st));
}
