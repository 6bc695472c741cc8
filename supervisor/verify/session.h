/* SPDX-License-Identifier: GPL-2.0 */
/*
 * codectl-run --verify: every SFrame section registered (at exec, by the
 * loader module, by any front-end) checked against the code it describes,
 * and every JIT function a sample walks through against its table entries,
 * read from the traced process, once per object (its build id, else the
 * file's device and inode, and the segment's offset in it). Symbols and
 * .eh_frame come from the object's file when it is readable. What was found
 * goes to the log as it is found, and to the exit summary and --json at the
 * end; a wrong sample is linked to a finding at its address.
 */
#ifndef SUPERVISOR_VERIFY_SESSION_H
#define SUPERVISOR_VERIFY_SESSION_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "emu/registry.h"
#include "supervisor/core/log.h"
#include "jit_check.h"
#include "verify.h"

struct verify_session;

/** verify_session_new() - an empty session logging to @log; NULL on ENOMEM. */
struct verify_session *verify_session_new(struct log *log);

/** verify_session_free() - release @v and its results (NULL is fine). */
void verify_session_free(struct verify_session *v);

/**
 * verify_session_check() - @reg was just committed in process @pid: check
 * its section against the code, read through @mem, unless its object was
 * checked already (then only remember where this process has it). Not an
 * SFrame registration: nothing. Failures are logged, never fatal.
 */
void verify_session_check(struct verify_session *v, pid_t pid, const struct emu_registration *reg,
			  const struct emu_accessor *mem);

/**
 * verify_session_jit_checked() - was the JIT function holding @ip, in the
 * JIT registration at @text_start of process @pid, checked already?
 */
bool verify_session_jit_checked(const struct verify_session *v, pid_t pid, uint64_t text_start,
				uint64_t ip);

/**
 * verify_session_check_jit() - the JIT function [@start, @end) (named
 * @name, or NULL) of @j, a JIT registration of process @pid, was sampled:
 * hold its table entries to its code as they are now (JIT tables grow
 * without a system call: a function is checked when a sample first walks
 * through it). Its findings join the registration's object, "[jit
 * 0xSTART-0xEND]"; logged as they are found. Failures are logged, never fatal.
 */
void verify_session_check_jit(struct verify_session *v, pid_t pid, const struct verify_jit *j,
			      uint64_t start, uint64_t end, const char *name);

/** verify_session_summary() - the exit summary's lines of what was checked and found. */
void verify_session_summary(const struct verify_session *v, FILE *f);

/** verify_session_json() - the "verify" array of --json (a new reference; NULL on ENOMEM). */
json_t *verify_session_json(const struct verify_session *v);

/**
 * verify_session_find() - the mismatch finding at run-time address @addr
 * of process @pid, if its object was checked and has one there
 * @object: its object's name, when found
 * @at: @addr as the finding's addresses say it (the process checked)
 * Return: the finding, or NULL.
 */
const struct verify_finding *verify_session_find(const struct verify_session *v, pid_t pid,
						 uint64_t addr, const char **object, uint64_t *at);

#endif /* SUPERVISOR_VERIFY_SESSION_H */
