/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for a traced process's addresses, for reports: function+offset from
 * the module's symbols (libdwfl), else from the process's perf map (JIT
 * code); the file holding an address; and file:line from DWARF line tables.
 */
#ifndef SUPERVISOR_ORACLE_SYMBOLS_H
#define SUPERVISOR_ORACLE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "modules.h"
#include "perf_map.h"

/**
 * struct symbols - one process's names
 * @mods: its modules (shared with elfutils' unwinder)
 * @perf: its perf map, for addresses no module has a symbol for
 * @cache: tsearch cache of the texts made (strings owned here)
 */
struct symbols {
	struct modules mods;
	struct perf_map perf;
	void *cache;
};

/** symbols_init() - names for process @pid (nothing read yet). */
void symbols_init(struct symbols *s, pid_t pid);

/** symbols_free() - release everything (an all-zero @s is fine). */
void symbols_free(struct symbols *s);

/** symbols_invalidate() - the mappings changed: modules read again, texts made again. */
void symbols_invalidate(struct symbols *s);

/**
 * symbols_new_sample() - a new sample, taken at @taken_ns (CLOCK_MONOTONIC):
 * the modules may be read again when they were read before it, the perf map
 * once more
 */
void symbols_new_sample(struct symbols *s, uint64_t taken_ns);

/**
 * symbols_name() - "function+0xOFF", "[object+0xOFF]" or "0xADDR" for tracee
 * address @ip; a caller's frame (@caller) is looked up at @ip - 1, the call
 * instruction. The function comes from the module's symbols, else
 * (anonymous memory, a module without a symbol there: JIT code) from the
 * perf map, /tmp/perf-PID.map. An address without a function is looked up in
 * the perf map again at later calls (it grows while the program runs; at
 * most one look at the file per sample). The string is owned by @s, valid
 * until the next invalidation.
 */
const char *symbols_name(struct symbols *s, uint64_t ip, bool caller);

/**
 * symbols_object() - the file name (no directory) of the module holding
 * @ip, or NULL; owned by @s, valid until the next invalidation
 */
const char *symbols_object(struct symbols *s, uint64_t ip);

/** symbols_object_path() - symbols_object(), its directory included. */
const char *symbols_object_path(struct symbols *s, uint64_t ip);

/**
 * symbols_object_label() - symbols_object(), or symbols_object_path() where
 * another file of the process has the same name: what a report calls it
 */
const char *symbols_object_label(struct symbols *s, uint64_t ip);

/**
 * symbols_function() - the function holding @addr: a symbol of its module
 * with a size that covers it, else a perf map entry (JIT code); @s is a
 * struct symbols (the shape of a plausible_function_fn)
 * @start, @end: its bounds, [@start, @end)
 * Return: 0, or -ENOENT when no sized symbol or entry holds @addr.
 */
int symbols_function(void *s, uint64_t addr, uint64_t *start, uint64_t *end);

/**
 * symbols_function_name() - the name of the sized function symbol starting
 *	exactly at @addr (without its version), from @s, a struct symbols (the
 *	shape of a plausible_name_fn); NULL when none. Owned by the module.
 */
const char *symbols_function_name(void *s, uint64_t addr);

/**
 * symbols_has_sframe() - does the file of the module holding @ip have an
 * .sframe section? 1, 0, or -ENOENT when no module or ELF file is known
 */
int symbols_has_sframe(struct symbols *s, uint64_t ip);

/**
 * symbols_table_bytes() - the sizes, bytes, of the .sframe, .eh_frame_hdr
 * and .eh_frame sections of the file of the module holding @ip (0: none)
 * Return: 0, or -ENOENT when no module or ELF file is known (all 0).
 */
int symbols_table_bytes(struct symbols *s, uint64_t ip, uint64_t *sframe, uint64_t *eh_frame_hdr,
			uint64_t *eh_frame);

/**
 * symbols_object_address() - the address of data object @name defined in
 * the process's module of file @path (NULL: any module, the first found;
 * reading every module's symbol table takes milliseconds)
 * Return: 0, or -ENOENT when none defines it.
 */
int symbols_object_address(struct symbols *s, const char *name, const char *path, uint64_t *addr);

#define SOURCE_PROVIDERS 256

/**
 * struct source_lines - which modules read the line table of each file (a
 * file's table is read once per run, not once per process): a process's
 * modules, borrowed while it lives, kept here (owned) once it has exited
 */
struct source_lines {
	struct source_provider {
		char *file;
		struct modules *mods;
		uint64_t start;
		bool owned;
	} v[SOURCE_PROVIDERS];
	size_t n;
};

/** source_lines_free() - forget the providers, and release the modules kept. */
void source_lines_free(struct source_lines *c);

/**
 * source_lines_adopt() - @s's process is gone and its symbols go: the
 * modules it provides line tables through are kept by @c (moved out of @s,
 * which is left with none). At most SOURCE_PROVIDERS modules are ever kept.
 */
void source_lines_adopt(struct source_lines *c, struct symbols *s);

/**
 * symbols_source() - "file.c:LINE" of @ip of @s's process into @buf (@size
 * bytes), from the module's DWARF line table (its separate debug file when
 * installed), read through @c's provider for that file. The first lookup in
 * a file reads its whole line table (libc: ~0.1 s), so this is for reports,
 * not for every sample.
 * Return: 0, or -ENOENT when there is no line information.
 */
int symbols_source(struct source_lines *c, struct symbols *s, uint64_t ip, bool caller,
		   char *buf, size_t size);

#endif /* SUPERVISOR_ORACLE_SYMBOLS_H */
