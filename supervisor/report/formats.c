// SPDX-License-Identifier: GPL-2.0
/* --compare-formats: the counts by format and object, and their report (formats.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats.h"
#include "keyed.h"
#include "stats.h"

/* Objects in the text report's table at most. */
#define FORMATS_OBJECTS 12

const char *format_name(enum format_id f)
{
	static const char *const names[FORMATS] = { "sframe", "eh_frame", "synthesized" };

	return names[f];
}

const char *format_title(enum format_id f)
{
	static const char *const titles[FORMATS] = { "SFrame", ".eh_frame", "SFrame+synth" };

	return titles[f];
}

static void count(struct format_counts *c, const struct sample_walks *w, bool outermost,
		  uint64_t ns)
{
	c->samples++;
	c->outermost += outermost;
	c->frames += w->in.n;
	c->covered += w->v.covered;
	c->outcome[classify_outcome(&w->v)]++;
	c->ns += ns;
}

int formats_add(struct format_stats *fs, enum format_id f, const struct sample_walks *w,
		const char *object, const struct table_bytes *bytes, bool outermost, uint64_t ns)
{
	struct format_object *o = keyed_entry(&fs->objects, object ? object : "[unknown]",
					      sizeof(*o));

	count(&fs->all[f], w, outermost, ns);
	if (!o)
		return -ENOMEM;
	count(&o->c[f], w, outermost, ns);
	if (bytes && !o->bytes_known) {
		o->bytes = *bytes;
		o->bytes_known = true;
	}
	return 0;
}

bool formats_need_bytes(const struct format_stats *fs, const char *object)
{
	const struct format_object *o = keyed_find(&fs->objects, object ? object : "[unknown]");

	return !o || !o->bytes_known;
}

static json_t *frames_json(const uint64_t *ips, unsigned int n,
			   const char *(*sym)(void *ctx, uint64_t ip, bool caller), void *ctx)
{
	json_t *a = json_array();

	for (unsigned int i = 0; a && i < n; i++) {
		const char *s = sym(ctx, ips[i], i > 0);

		json_array_append_new(a, json_string(s ? s : "?"));
	}
	return a;
}

void formats_differ(struct format_stats *fs, const uint64_t *sframe, unsigned int n_sframe,
		    const uint64_t *eh_frame, unsigned int n_eh_frame,
		    const char *(*sym)(void *ctx, uint64_t ip, bool caller), void *ctx)
{
	fs->differ++;
	if (!fs->differences)
		fs->differences = json_array();
	if (!fs->differences || json_array_size(fs->differences) >= FORMATS_MAX_DIFFERENCES)
		return;
	json_array_append_new(fs->differences,
			      json_pack("{s:o,s:o}", "sframe", frames_json(sframe, n_sframe, sym, ctx),
					"eh_frame", frames_json(eh_frame, n_eh_frame, sym, ctx)));
}

static double per(uint64_t a, unsigned long b)
{
	return b ? (double)a / (double)b : 0;
}

static json_t *counts_json(const struct format_counts *c)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:f}",
			 "samples", (json_int_t)c->samples, "outermost", (json_int_t)c->outermost,
			 "frames", (json_int_t)c->frames, "covered_frames", (json_int_t)c->covered,
			 "verified", (json_int_t)c->outcome[OUTCOME_VERIFIED],
			 "wrong", (json_int_t)(c->outcome[OUTCOME_OURS_WRONG] +
					       c->outcome[OUTCOME_BOTH_WRONG]),
			 "unverifiable", (json_int_t)c->outcome[OUTCOME_UNVERIFIABLE],
			 "past_copy", (json_int_t)c->outcome[OUTCOME_PAST_COPY],
			 "ns_per_frame", per(c->ns, c->frames));
}

static int cmp_object(const void *a, const void *b)
{
	const struct format_object *x = *(void *const *)a, *y = *(void *const *)b;

	if (x->c[0].samples != y->c[0].samples)
		return x->c[0].samples < y->c[0].samples ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Each compared format's counts under its name, into @j. */
static void add_counts(json_t *j, const struct format_stats *fs, const struct format_counts *c)
{
	for (unsigned int f = 0; j && f < fs->n; f++)
		json_object_set_new(j, format_name(f), counts_json(&c[f]));
}

static json_t *object_json(const struct format_stats *fs, const struct format_object *o)
{
	json_t *j = json_pack("{s:s}", "object", o->key);

	add_counts(j, fs, o->c);
	if (j && o->bytes_known)
		json_object_set_new(j, "table_bytes",
				    json_pack("{s:I,s:I,s:I,s:I}", "sframe", (json_int_t)o->bytes.sframe,
					      "eh_frame_hdr", (json_int_t)o->bytes.eh_frame_hdr,
					      "eh_frame", (json_int_t)o->bytes.eh_frame,
					      "synthesized", (json_int_t)o->bytes.synthesized));
	return j;
}

json_t *formats_json(const struct format_stats *fs)
{
	struct format_object **v;
	json_t *objs;
	size_t n = 0;

	if (!fs->on)
		return NULL;
	objs = json_array();
	v = (struct format_object **)keyed_sorted(fs->objects, &n, cmp_object);
	json_t *j;

	for (size_t i = 0; objs && i < n; i++)
		json_array_append_new(objs, object_json(fs, v[i]));
	free(v);
	j = json_pack("{s:I,s:o,s:O}", "walks_differ", (json_int_t)fs->differ, "objects",
		      objs ? objs : json_null(), "differences",
		      fs->differences ? fs->differences : json_null());
	add_counts(j, fs, fs->all);
	return j;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* "  1234  1200  98.1%   3.2     0    55.1" for one format's counts. */
static void print_counts(FILE *f, const struct format_counts *c)
{
	fprintf(f, "  %6lu %6lu %5.1f%% %5.1f %5lu %7.1f", c->samples, c->outermost,
		c->samples ? 100.0 * (double)c->outcome[OUTCOME_VERIFIED] / (double)c->samples : 0,
		per(c->covered, c->samples), c->outcome[OUTCOME_OURS_WRONG] +
		c->outcome[OUTCOME_BOTH_WRONG], per(c->ns, c->frames));
}

static void print_row(FILE *f, const struct format_stats *fs, const char *name,
		      const struct format_counts *c, const struct format_object *o)
{
	fprintf(f, "    %-22.22s", name);
	for (unsigned int k = 0; k < fs->n; k++)
		print_counts(f, &c[k]);
	if (o && o->bytes_known)
		fprintf(f, "  %8llu %8llu", (unsigned long long)o->bytes.sframe,
			(unsigned long long)(o->bytes.eh_frame_hdr + o->bytes.eh_frame));
	if (o && o->bytes_known && fs->n > FORMAT_SYNTHESIZED)
		fprintf(f, " %8llu", (unsigned long long)o->bytes.synthesized);
	fputc('\n', f);
}

void formats_print(FILE *f, const struct format_stats *fs)
{
	struct format_object **v;
	size_t n = 0;

	if (!fs->on)
		return;
	v = (struct format_object **)keyed_sorted(fs->objects, &n, cmp_object);
	fprintf(f, "  formats compared (--compare-formats): each sample walked with SFrame alone "
		   "and with .eh_frame alone%s\n"
		   "    per format: samples, walks to the outermost frame, verified, covered "
		   "frames per sample, wrong, ns per frame\n"
		   "    %-22s", fs->n > FORMAT_SYNTHESIZED ? ", and with SFrame and the synthesized" :
		"", "object of frame 0");
	for (unsigned int k = 0; k < fs->n; k++)
		fprintf(f, "  %-44s", format_title(k));
	fprintf(f, "  %8s %8s%s\n", "bytes sf", "eh", fs->n > FORMAT_SYNTHESIZED ? "    synth" : "");
	print_row(f, fs, "all", fs->all, NULL);
	for (size_t i = 0; i < n && i < FORMATS_OBJECTS; i++)
		print_row(f, fs, base_name(v[i]->key), v[i]->c, v[i]);
	if (n > FORMATS_OBJECTS)
		fprintf(f, "    (%zu more objects)\n", n - FORMATS_OBJECTS);
	fprintf(f, "    walks that differ between the formats: %lu of %lu samples\n", fs->differ,
		fs->all[FORMAT_SFRAME].samples);
	free(v);
}

void formats_free(struct format_stats *fs)
{
	keyed_free(fs->objects);
	json_decref(fs->differences);
	*fs = (struct format_stats){ 0 };
}
