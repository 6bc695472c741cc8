/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfutils' view of one traced process (libdwfl): module names, symbols and
 * source lines for reports, and elfutils' own unwinder as the third opinion
 * when ours and libunwind's disagree.
 */
#ifndef SUPERVISOR_PROC_DWFL_H
#define SUPERVISOR_PROC_DWFL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf_map.h"
#include "sample.h"
#include "sample_mem.h"

struct Dwfl;

/**
 * struct proc_dwfl - a Dwfl of process @pid's modules (from /proc/PID/maps)
 * @syms: tsearch cache of symbolized addresses (strings owned here)
 * @perf: the process's perf map, for addresses libdwfl has no symbol for
 * @walk_mem, @walk_smp: the sample being unwound (set for one walk only)
 */
struct proc_dwfl {
	struct Dwfl *dwfl;
	pid_t pid;
	struct perf_map perf;
	bool attached;
	bool reported;
	bool attached_modules;	/* modules were reported at least once */
	bool fresh;
	void *syms;
	struct sample_mem *walk_mem;
	const struct sample *walk_smp;
};

/** proc_dwfl_init() - an empty view of process @pid (modules read on first use). */
void proc_dwfl_init(struct proc_dwfl *d, pid_t pid);

/** proc_dwfl_free() - release everything (an all-zero @d is fine). */
void proc_dwfl_free(struct proc_dwfl *d);

/** proc_dwfl_invalidate() - the mappings changed: report the modules again on next use. */
void proc_dwfl_invalidate(struct proc_dwfl *d);

/** proc_dwfl_new_sample() - a new sample: an unknown address may read the modules again. */
void proc_dwfl_new_sample(struct proc_dwfl *d);

/**
 * proc_dwfl_symbol() - "function+0xOFF", "[object+0xOFF]" or "0xADDR" for
 * tracee address @ip; a caller's frame (@caller) is looked up at @ip - 1,
 * the call instruction. The function comes from the module's symbols, else
 * (anonymous memory, a module without a symbol there: JIT code) from the
 * process's perf map, /tmp/perf-PID.map. An address without a function is
 * looked up in the perf map again at later calls (it grows while the program
 * runs; at most one look at the file per sample). The string is owned by @d,
 * valid until the next invalidation.
 */
const char *proc_dwfl_symbol(struct proc_dwfl *d, uint64_t ip, bool caller);

#define SOURCE_PROVIDERS 256

/**
 * struct source_lines - which process's Dwfl reads the line table of each
 * file (a file's table is read once per run, not once per process)
 */
struct source_lines {
	struct source_provider {
		char *file;
		struct proc_dwfl *d;
		uint64_t start;
	} v[SOURCE_PROVIDERS];
	size_t n;
};

/** source_lines_free() - forget the providers (their Dwfls are not owned). */
void source_lines_free(struct source_lines *c);

/**
 * proc_dwfl_source() - "file.c:LINE" of @ip of @d's process into @buf
 * (@size bytes), from the module's DWARF line table (its separate debug file
 * when installed), read through @c's provider for that file. The first
 * lookup in a file reads its whole line table (libc: ~0.1 s), so this is
 * for reports, not for every sample.
 * Return: 0, or -ENOENT when there is no line information.
 */
int proc_dwfl_source(struct source_lines *c, struct proc_dwfl *d, uint64_t ip, bool caller,
		     char *buf, size_t size);

/**
 * proc_dwfl_object() - the file name (no directory) of the module holding
 * @ip, or NULL; owned by @d's Dwfl, valid until the next invalidation
 */
const char *proc_dwfl_object(struct proc_dwfl *d, uint64_t ip);

/**
 * proc_dwfl_unwind() - walk @smp's stack with elfutils' unwinder (CFI from
 * .eh_frame/.debug_frame; registers from the sample, memory through @mem)
 * @ips: room for @max PCs; @n: frames written
 * Return: 0 when the walk reached the end (or @max), -EIO when elfutils
 * stopped with an error, -ENOENT when it could not attach.
 */
int proc_dwfl_unwind(struct proc_dwfl *d, struct sample_mem *mem, const struct sample *smp,
		     uint64_t *ips, unsigned int max, unsigned int *n);

#endif /* SUPERVISOR_PROC_DWFL_H */
