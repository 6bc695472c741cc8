// SPDX-License-Identifier: GPL-2.0
/* libunwind and elfutils state of one process. */
#include <errno.h>
#include <stdlib.h>

#include "proc_unwinders.h"

struct proc_unwinders *proc_unwinders_new(pid_t pid, bool crosscheck)
{
	struct proc_unwinders *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->ref_err = crosscheck ? ref_unwinder_init(&u->ref, pid) : -EPERM;
	proc_dwfl_init(&u->dwfl, pid);
	return u;
}

void proc_unwinders_free(struct proc_unwinders *u)
{
	if (!u)
		return;
	ref_unwinder_free(&u->ref);
	proc_dwfl_free(&u->dwfl);
	free(u);
}

void proc_unwinders_exited(struct proc_unwinders *u)
{
	if (u)
		perf_map_free(&u->dwfl.perf);	/* an empty map: lookups find nothing */
}

void proc_unwinders_mappings_changed(struct proc_unwinders *u)
{
	if (!u)
		return;
	ref_unwinder_flush(&u->ref);
	proc_dwfl_invalidate(&u->dwfl);
}
