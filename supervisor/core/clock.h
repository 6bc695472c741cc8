/* SPDX-License-Identifier: GPL-2.0 */
/* The one clock codectl-run measures with. */
#ifndef SUPERVISOR_CORE_CLOCK_H
#define SUPERVISOR_CORE_CLOCK_H

#include <stdint.h>
#include <time.h>

/** clock_now_ns() - CLOCK_MONOTONIC in nanoseconds. */
static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* SUPERVISOR_CORE_CLOCK_H */
