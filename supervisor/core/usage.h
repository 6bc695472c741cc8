/* SPDX-License-Identifier: GPL-2.0 */
/* What codectl-run itself holds: descriptors and memory, for its report. */
#ifndef SUPERVISOR_CORE_USAGE_H
#define SUPERVISOR_CORE_USAGE_H

/**
 * struct self_usage - codectl-run's own resources at one moment
 * @fds: open file descriptors
 * @rss_kb, @max_rss_kb: resident memory now and at most so far (KiB,
 *	VmRSS and VmHWM)
 */
struct self_usage {
	unsigned int fds;
	unsigned long rss_kb;
	unsigned long max_rss_kb;
};

/** self_usage_read() - measure them now; 0, or a negative errno (then @u is zero). */
int self_usage_read(struct self_usage *u);

#endif /* SUPERVISOR_CORE_USAGE_H */
