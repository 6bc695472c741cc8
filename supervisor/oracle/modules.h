/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A traced process's modules as elfutils sees them (libdwfl, from
 * /proc/PID/maps): what the symbols and elfutils' unwinder both read.
 */
#ifndef SUPERVISOR_ORACLE_MODULES_H
#define SUPERVISOR_ORACLE_MODULES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "supervisor/core/as_tracee.h"

struct Dwfl;
struct Dwfl_Module;

/**
 * struct modules - a Dwfl of process @pid's modules, reported on first use
 * @who: the process its files are opened for (as_tracee_open()); the
 *	modules point to it: a struct modules stays where it was made
 * @reported: the Dwfl holds the current modules (until modules_invalidate())
 * @ever_reported: they were reported at least once (an exited process's
 *	last list is then kept)
 * @reported_ns: when they were reported last (CLOCK_MONOTONIC)
 * @sample_ns: when the sample being walked was taken: an unknown address
 *	reports them again only when they were reported before it
 */
struct modules {
	struct Dwfl *dwfl;
	pid_t pid;
	struct as_tracee_id who;
	bool reported;
	bool ever_reported;
	uint64_t reported_ns;
	uint64_t sample_ns;
};

/** modules_init() - an empty view of process @pid (modules read on first use). */
void modules_init(struct modules *m, pid_t pid);

/** modules_free() - release the Dwfl (an all-zero @m is fine). */
void modules_free(struct modules *m);

/** modules_invalidate() - the mappings changed: report the modules again on next use. */
void modules_invalidate(struct modules *m);

/**
 * modules_new_sample() - a new sample, taken at @taken_ns (CLOCK_MONOTONIC):
 * an unknown address reads the modules again when they were read before it
 */
void modules_new_sample(struct modules *m, uint64_t taken_ns);

/** modules_dwfl() - the Dwfl with the process's current modules; NULL when unreadable. */
struct Dwfl *modules_dwfl(struct modules *m);

/**
 * modules_at() - the module whose range holds @ip, or NULL; an address no
 * module holds makes the modules be read again, once per sample (a library
 * mapped since they were read)
 */
struct Dwfl_Module *modules_at(struct modules *m, uint64_t ip);

/**
 * modules_has_cfi() - do the DWARF CFI of the module holding @pc (.eh_frame,
 * else .debug_frame) describe @pc? A reference unwinder (libunwind,
 * elfutils) stepping from a frame they do not describe only guesses.
 */
bool modules_has_cfi(struct modules *m, uint64_t pc);

/** modules_path() - the module's file as the mappings name it ("[vdso]" for the vDSO), or NULL. */
const char *modules_path(struct Dwfl_Module *mod);

/** modules_name() - the module's file name, no directory ("[vdso]" for the vDSO), or NULL. */
const char *modules_name(struct Dwfl_Module *mod);

/**
 * modules_name_shared() - does another module of @m's process, another file,
 * have @mod's file name (two libbz2.so.1.0.4 from two directories)?
 */
bool modules_name_shared(struct modules *m, struct Dwfl_Module *mod);

#endif /* SUPERVISOR_ORACLE_MODULES_H */
