/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a verification found, said: one line per finding, a summary per
 * object, and the same as JSON (sframe-verify's --json, codectl-run's
 * "verify" array). The fields are listed in sframe-verify(1).
 */
#ifndef SUPERVISOR_VERIFY_REPORT_H
#define SUPERVISOR_VERIFY_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "verify.h"

/**
 * struct verify_object_info - what the report says of the object checked
 * @name: its path (or how it is known)
 * @version, @fdes, @fres: its SFrame header's (@version 0: a JIT
 *	registration's tables, @fres their entries checked)
 * @bias: run-time minus link-time addresses (0 for a file); findings are
 *	printed at run-time addresses, with their file address when @bias is set
 */
struct verify_object_info {
	const char *name;
	unsigned int version;
	unsigned long fdes;
	unsigned long fres;
	uint64_t bias;
};

/**
 * verify_finding_text() - one line for @fd (no newline) into @buf (@size bytes)
 * @bias: subtracted for the file address shown beside a run-time one (0: none)
 */
void verify_finding_text(const struct verify_finding *fd, uint64_t bias, char *buf, size_t size);

/**
 * verify_finding_explain() - what @fd says, without where: "the code says
 * CFA = SP+40, the JIT entry [0x.., 0x..) CFA = SP+24", into @buf
 */
void verify_finding_explain(const struct verify_finding *fd, char *buf, size_t size);

/** verify_table_name() - "SFrame v2", or "JIT tables" for @o's version 0, into @buf. */
const char *verify_table_name(const struct verify_object_info *o, char *buf, size_t size);

/**
 * verify_print() - the summary of @r for @o, then its findings (@all: every
 * one; else only mismatches, with the unknown ones counted)
 */
void verify_print(FILE *f, const struct verify_object_info *o, const struct verify_result *r,
		  bool all);

/**
 * verify_dump() - each row of @r (verify_target's @dump) beside what the code
 * implies at its first instruction, one line a row, under a line per FDE
 */
void verify_dump(FILE *f, const struct verify_object_info *o, const struct verify_result *r);

/** verify_summary_text() - the one-line summary of @r into @buf. */
void verify_summary_text(const struct verify_result *r, char *buf, size_t size);

/** verify_counts_json() - @st's findings by kind ({"cfa-mismatch": 1, ...}; NULL on ENOMEM). */
json_t *verify_counts_json(const struct verify_stats *st);

/** verify_result_json() - @o and @r as a JSON object (NULL on ENOMEM); the caller owns it. */
json_t *verify_result_json(const struct verify_object_info *o, const struct verify_result *r);

#endif /* SUPERVISOR_VERIFY_REPORT_H */
