/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a verdict program under codectl-run --check --json-all and
 * reading what the report says of its samples.
 */
#ifndef TESTS_VERDICT_RUN_H
#define TESTS_VERDICT_RUN_H

#include <jansson.h>
#include <stdbool.h>

#include "run_helper.h"

/**
 * struct verdict_run - one run and its report
 * @r: the run (exit status, the program's stdout, codectl-run's log)
 * @j: the --json-all report (NULL when none was written)
 */
struct verdict_run {
	struct run r;
	json_t *j;
};

/**
 * verdict_run() - run "codectl-run --check -q --json-all FILE OPTS... --
 * VERDICT_DIR/PROG ARGS..." and load the report
 * @opts, @args: NULL-terminated (either may be NULL)
 */
void verdict_run(struct verdict_run *v, const char *prog, const char *const *opts,
		 const char *const *args);

/** verdict_free() - release the run and the report. */
void verdict_free(struct verdict_run *v);

/** verdict_count() - the report's samples.@key ("total", "match", "ours_wrong", ...). */
long long verdict_count(const struct verdict_run *v, const char *key);

/** verdict_stacks() - the report's "stacks" (every sample). */
json_t *verdict_stacks(const struct verdict_run *v);

/** verdict_symbol() - our frame @i's symbol in @stack ("" when none). */
const char *verdict_symbol(json_t *stack, size_t i);

/** verdict_frame0_in() - is @stack's frame 0 in function @fn (symbol "fn+0x..")? */
bool verdict_frame0_in(json_t *stack, const char *fn);

/** verdict_class_is() - is @stack's class @cls? */
bool verdict_class_is(json_t *stack, const char *cls);

#endif /* TESTS_VERDICT_RUN_H */
