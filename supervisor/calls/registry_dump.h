/* SPDX-License-Identifier: GPL-2.0 */
/* --registry-dump: print a process's registrations. */
#ifndef SUPERVISOR_CALLS_REGISTRY_DUMP_H
#define SUPERVISOR_CALLS_REGISTRY_DUMP_H

#include <stdio.h>

#include "supervisor/trace/tracees.h"

/**
 * registry_dump() - one line on @f per registration of @p (which still has its
 * registry), naming the entry point that made it (emu_origin_name())
 */
void registry_dump(FILE *f, const struct proc *p);

#endif /* SUPERVISOR_CALLS_REGISTRY_DUMP_H */
