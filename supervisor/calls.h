/* SPDX-License-Identifier: GPL-2.0 */
/* One codectl notification: receive, read, validate, answer, then commit. */
#ifndef SUPERVISOR_CALLS_H
#define SUPERVISOR_CALLS_H

#include "supervisor.h"

/**
 * sv_handle_notification() - serve one pending notification
 *
 * Order (seccomp_unotify(2)): receive into a zeroed buffer; copy and validate
 * the caller's memory through emu (process_vm_readv); check that the
 * notification is still valid; answer; apply the registration change only if
 * the answer was delivered, so a call interrupted and re-issued is counted
 * once. Call only when the listener is readable.
 */
void sv_handle_notification(struct supervisor *s);

#endif /* SUPERVISOR_CALLS_H */
