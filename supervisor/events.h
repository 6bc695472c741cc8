/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptrace events of the traced tree: new threads and processes, exec, exit,
 * group-stops and signals (passed on unchanged), so that the registries
 * follow the ABI page's lifecycle.
 */
#ifndef SUPERVISOR_EVENTS_H
#define SUPERVISOR_EVENTS_H

#include "supervisor.h"

/** sv_reap() - collect every pending wait status and act on it; never blocks. */
void sv_reap(struct supervisor *s);

#endif /* SUPERVISOR_EVENTS_H */
