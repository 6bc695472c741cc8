/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the program spends its time, as perf report shows it: samples by
 * function and by object, self (in frame 0) and total (anywhere in the
 * stack, once per sample), counted over the frames a flame graph may draw
 * (the frames below the first one judged wrong or unverifiable), each with
 * how many of its samples were not verified or were wrong. By process and
 * by thread from the threads' counts (stats.h). Samples in codectl-run's
 * own loader module are not the program's: not counted here.
 */
#ifndef SUPERVISOR_REPORT_PROFILE_H
#define SUPERVISOR_REPORT_PROFILE_H

#include <jansson.h>
#include <stdio.h>

struct sample_walks;
struct sample_stats;
struct stats_namer;

/**
 * struct profile_entry - a function ("name\tobject path") or an object
 *	(its path), keyed in a profile's tree
 * @self, @total: samples with it in frame 0, and anywhere
 * @unverified, @wrong: of @total, samples unverifiable (or read past the
 *	stack copy), and samples the verdict found wrong
 */
struct profile_entry {
	char *key;
	unsigned long self;
	unsigned long total;
	unsigned long unverified;
	unsigned long wrong;
};

/** struct profile - @functions and @objects (trees of struct profile_entry), @samples counted */
struct profile {
	void *functions;
	void *objects;
	unsigned long samples;
};

/**
 * profile_add() - count @w's frames 0 .. @keep - 1 (innermost first, the
 * frames it keeps), named through @names
 */
void profile_add(struct profile *p, const struct sample_walks *w, const struct stats_namer *names,
		 unsigned int keep);

/** profile_free() - release everything (an all-zero @p is fine). */
void profile_free(struct profile *p);

/** profile_print() - the profile section of the text report, to @f. */
void profile_print(FILE *f, const struct sample_stats *st);

/** profile_json() - the "profile" object of --json: functions, objects, processes (NULL on ENOMEM). */
json_t *profile_json(const struct sample_stats *st);

#endif /* SUPERVISOR_REPORT_PROFILE_H */
