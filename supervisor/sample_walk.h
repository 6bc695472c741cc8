/* SPDX-License-Identifier: GPL-2.0 */
/* Unwinding one captured sample three ways and counting the result. */
#ifndef SUPERVISOR_SAMPLE_WALK_H
#define SUPERVISOR_SAMPLE_WALK_H

#include "sample.h"

struct supervisor;

/**
 * sample_walk() - walk @smp with our unwinder over its process's registry,
 * with libunwind (unless --no-crosscheck), with elfutils when the two
 * disagree; classify and add it to the statistics. A process gone by now
 * makes it a dropped sample.
 */
void sample_walk(struct supervisor *s, const struct sample *smp);

#endif /* SUPERVISOR_SAMPLE_WALK_H */
