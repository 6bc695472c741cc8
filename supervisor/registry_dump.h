/* SPDX-License-Identifier: GPL-2.0 */
/* --registry-dump: print a process's registrations. */
#ifndef SUPERVISOR_REGISTRY_DUMP_H
#define SUPERVISOR_REGISTRY_DUMP_H

#include "supervisor.h"

/** sv_dump_registry() - one log line per registration of @p (which still has its registry). */
void sv_dump_registry(struct supervisor *s, const struct proc *p);

#endif /* SUPERVISOR_REGISTRY_DUMP_H */
