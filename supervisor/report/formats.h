/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --compare-formats: every sample walked with the SFrame (and JIT)
 * registrations alone and with the .eh_frame ones alone, each walk judged by
 * the verdict machinery (with --synthesize-sframe also with the SFrame
 * registrations and the synthesized ones); counted per format, overall and per object (of
 * frame 0): coverage, verdicts, cost per frame, the bytes of tables each
 * format gives the kernel, and the samples whose two walks differ.
 */
#ifndef SUPERVISOR_REPORT_FORMATS_H
#define SUPERVISOR_REPORT_FORMATS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "classify.h"

struct sample_walks;	/* stats.h */

enum format_id { FORMAT_SFRAME, FORMAT_EH_FRAME, FORMAT_SYNTHESIZED, FORMATS };

/* Walks whose frames differ between the formats kept in full for --json. */
#define FORMATS_MAX_DIFFERENCES 20

/**
 * struct format_counts - one format's walks
 * @samples: walks judged; @outermost: those that ended at an outermost frame
 *	(the stack's end, as its data says)
 * @frames: frames of all walks; @covered: frames of their covered prefixes
 *	(frame 0 and the frames reached by the format's data)
 * @outcome: the verdicts (enum sample_outcome)
 * @ns: what the walks cost, ns (lookups and steps, in the run)
 */
struct format_counts {
	unsigned long samples;
	unsigned long outermost;
	unsigned long frames;
	unsigned long covered;
	unsigned long outcome[OUTCOME_COUNT];
	uint64_t ns;
};

/**
 * struct table_bytes - the sections a kernel is given for one object, bytes
 *	(0: the object has none): .sframe; .eh_frame_hdr and the .eh_frame its
 *	lookups read; the SFrame synthesized for its text (frame 0's segment)
 */
struct table_bytes {
	uint64_t sframe;
	uint64_t eh_frame_hdr;
	uint64_t eh_frame;
	uint64_t synthesized;
};

/**
 * struct format_object - one object's walks by format (a keyed entry)
 * @bytes: its tables, when @bytes_known
 */
struct format_object {
	char *key;
	struct format_counts c[FORMATS];
	struct table_bytes bytes;
	bool bytes_known;
};

/**
 * struct format_stats - the comparison of a run (all zero: not asked)
 * @on: --compare-formats
 * @n: the formats compared: 2, or 3 with the synthesized SFrame
 * @all: every sample's walks by format
 * @differ: samples whose two walks have different frames
 * @objects: tsearch tree of struct format_object by object path
 * @differences: the first FORMATS_MAX_DIFFERENCES of them, both walks
 *	and libunwind's (JSON)
 */
struct format_stats {
	bool on;
	unsigned int n;
	struct format_counts all[FORMATS];
	unsigned long differ;
	void *objects;
	json_t *differences;
};

/**
 * format_name() - "sframe", "eh_frame" or "synthesized" (JSON keys);
 * format_title(): "SFrame", ".eh_frame", "SFrame+synth"
 */
const char *format_name(enum format_id f);
const char *format_title(enum format_id f);

/**
 * formats_add() - count walk @w of format @f (judged: its verdict set)
 * @object: the path of frame 0's file, or NULL; @bytes: its tables when
 *	known (NULL: not known)
 * @outermost: the walk ended at an outermost frame; @ns: its cost
 * Return: 0 or -ENOMEM.
 */
int formats_add(struct format_stats *fs, enum format_id f, const struct sample_walks *w,
		const char *object, const struct table_bytes *bytes, bool outermost, uint64_t ns);

/** formats_need_bytes() - are @object's table bytes still unknown (to be given to formats_add())? */
bool formats_need_bytes(const struct format_stats *fs, const char *object);

/**
 * formats_differ() - a sample whose walks @sframe and @eh_frame (frame
 *	lists, @n each) differ; @sym names a frame (@caller: a return address)
 */
void formats_differ(struct format_stats *fs, const uint64_t *sframe, unsigned int n_sframe,
		    const uint64_t *eh_frame, unsigned int n_eh_frame,
		    const char *(*sym)(void *ctx, uint64_t ip, bool caller), void *ctx);

/** formats_json() - the comparison as JSON ("formats"), or NULL when not asked. */
json_t *formats_json(const struct format_stats *fs);

/** formats_print() - the comparison as the text report's section (nothing when not asked). */
void formats_print(FILE *f, const struct format_stats *fs);

/** formats_free() - release everything @fs holds. */
void formats_free(struct format_stats *fs);

#endif /* SUPERVISOR_REPORT_FORMATS_H */
