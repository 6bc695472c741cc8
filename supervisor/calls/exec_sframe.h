/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What execve means for the calls: its --trace line, and what binfmt_elf
 * does in the Linux SFrame patches: after execve, register the
 * PT_GNU_SFRAME of the main program and of its interpreter for each of their
 * PF_X segments (unwind aspect only; failures are logged, never fatal).
 */
#ifndef SUPERVISOR_CALLS_EXEC_SFRAME_H
#define SUPERVISOR_CALLS_EXEC_SFRAME_H

#include "calls.h"

/**
 * exec_trace() - with --trace, the line of @p's execve (done: its path and
 * arguments from /proc), before the registrations it brings
 */
void exec_trace(struct calls *c, struct proc *p);

/**
 * exec_sframe_register() - register @p's exec-time SFrame sections
 * @tid: the thread stopped at its exec event (its memory is read)
 * Program headers come from /proc/TID/auxv (AT_PHDR, AT_PHNUM, AT_BASE) and
 * process_vm_readv.
 */
void exec_sframe_register(struct calls *c, struct proc *p, pid_t tid);

#endif /* SUPERVISOR_CALLS_EXEC_SFRAME_H */
