/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registrations of one address space (thread group): what the kernel keeps
 * per mm. Text ranges are half-open; two registrations carrying the same aspect
 * must not overlap (codectl-abi.md, "Options" and "Lifecycle"). Not thread-safe:
 * the caller serializes access.
 */
#ifndef EMU_REGISTRY_H
#define EMU_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/codectl.h>

#include "eh_frame.h"
#include "jit_index.h"
#include "mappings.h"
#include "rules.h"
#include "sframe_cache.h"
#include "sframe_file.h"
#include "sframe_kernel.h"
#include "sframe_section.h"

#define EMU_ASPECT_UNWIND	0x1	/* SFrame section or JIT tables */
#define EMU_ASPECT_IDENTITY	0x2	/* ELF range, pathname, build id, debug link */
#define EMU_ASPECT_EH_FRAME	0x4	/* .eh_frame_hdr (eh_frame_register(2)): a table of
					 * its own, as the kernel keeps it in a tree of
					 * its own; overlaps only with another */

enum emu_unwind_kind {
	EMU_UNWIND_NONE = 0,
	EMU_UNWIND_SFRAME,
	EMU_UNWIND_JIT,
};

/* Which entry point made a registration (--registry-dump shows it). */
enum emu_origin {
	EMU_ORIGIN_CALL = 0,		/* a codectl(2) call */
	EMU_ORIGIN_EXEC,		/* registered at execve, as binfmt_elf does */
	EMU_ORIGIN_SFRAME_REGISTER,	/* sframe_register(2) */
	EMU_ORIGIN_PRCTL,		/* prctl(PR_ADD_SFRAME) */
	EMU_ORIGIN_STACKTRACE_SETUP,	/* stacktrace_setup(STACKTRACE_REGISTER_SFRAME) */
	EMU_ORIGIN_EH_FRAME_REGISTER,	/* eh_frame_register(2) */
	EMU_ORIGIN_SYNTHESIZED,		/* SFrame made from .eh_frame (--synthesize-sframe) */
};

/**
 * emu_origin_name() - "codectl", "exec", "sframe_register", "prctl", "stacktrace_setup",
 * "eh_frame_register", "synthesized"
 */
const char *emu_origin_name(unsigned int origin);

/*
 * Registrations of the kernel's own proposals (sframe_register, the prctl,
 * stacktrace_setup) count toward no limit: those series have none
 * (codectl-abi.md, "Where the RFC, the kernel patches and the emulator
 * differ"); the emulator still caps bytes.
 */
static inline bool emu_origin_limited(unsigned int origin)
{
	return origin == EMU_ORIGIN_CALL || origin == EMU_ORIGIN_EXEC;
}

/**
 * struct emu_identity - the identity aspect (CODE_REGISTER_ELF)
 * @elf_start, @elf_end: the object's PT_LOAD span, as the caller gave it
 * @pathname, @debug_link: NUL-terminated malloc'd copies, or NULL; owned
 * @build_id: @build_id_len bytes (<= CODE_BUILD_ID_MAX)
 */
struct emu_identity {
	uint64_t elf_start;
	uint64_t elf_end;
	char *pathname;
	char *debug_link;
	uint32_t debug_link_crc;
	uint32_t build_id_len;
	uint8_t build_id[CODE_BUILD_ID_MAX];
};

/**
 * struct emu_registration - one successful registration call
 * @text_start, @text_end: the code covered, [start, end) addresses
 * @aspects: EMU_ASPECT_* bits it carries
 * @option: the CODE_REGISTER_* option that created it (codectl)
 * @origin: the entry point that made it (enum emu_origin)
 * @sframe: the validated section copy (a reference) for EMU_UNWIND_SFRAME;
 *	in the v16 profile, which answers and unwinds without it (@ksframe),
 *	only when the emulator's own validation accepts the section (else NULL)
 * @ksframe: in the v16 profile, what the kernel keeps of the section
 * @sframe_start, @sframe_end: where the section was in the tracee
 * @jit_head: tracee address of the first JIT table for EMU_UNWIND_JIT
 * @jit_index: its sealed tables, found by lookups (owned; NULL: not kept).
 *	Lookups through a const registration add to it: a cache, not state.
 * @eh_frame: with EMU_ASPECT_EH_FRAME, what the kernel keeps of the
 *	.eh_frame_hdr registered (read again at every lookup)
 * @text_vma_ident: struct emu_vma ident of the mapping holding text_start
 *	when registered (0: anonymous, or unknown until the next prune)
 * @ident: valid when @aspects has EMU_ASPECT_IDENTITY
 */
struct emu_registration {
	uint64_t text_start;
	uint64_t text_end;
	unsigned int aspects;
	unsigned int option;
	unsigned int origin;
	unsigned int unwind_kind;
	uint64_t sframe_start;
	uint64_t sframe_end;
	struct emu_sframe_section *sframe;
	struct emu_ksframe ksframe;
	uint64_t jit_head;
	struct emu_jit_index *jit_index;
	struct emu_eh_frame eh_frame;
	uint64_t text_vma_ident;
	struct emu_identity ident;
};

struct emu_registry;

/* Default per-process limit of registrations (--max-registrations). */
#define EMU_REGISTRY_DEFAULT_LIMIT 65536

/**
 * emu_registry_new() - an empty registry admitting @limit registrations made
 * by codectl or at exec (emu_origin_limited()); NULL on ENOMEM
 */
struct emu_registry *emu_registry_new(size_t limit);

/**
 * emu_registry_set_inclusive_end() - treat each text range's end as part of
 * it when looking for overlaps (the v13 series' maple tree: a range starting
 * at another's end overlaps it); off by default (half-open ranges)
 */
void emu_registry_set_inclusive_end(struct emu_registry *r, bool on);

/** emu_registry_free() - free @r and every registration in it (NULL is fine). */
void emu_registry_free(struct emu_registry *r);

/**
 * emu_registry_insert() - add a registration
 * @reg: malloc'd; owned by the registry on success, untouched on failure
 *
 * A synthesized registration (EMU_ORIGIN_SYNTHESIZED) stands in for data the
 * program did not register: any other registration of its text replaces it
 * (it is dropped, never an overlap), and it is never a section's
 * (emu_registry_remove_sframe() leaves it).
 * Return: 0, -EEXIST (overlaps a registration with a common aspect),
 * -ENOSPC (limit reached), -ENOMEM; @v says which and why.
 */
int emu_registry_insert(struct emu_registry *r, struct emu_registration *reg,
			struct emu_verdict *v);

/**
 * emu_registry_check_insert() - would emu_registry_insert() accept this range
 *	for a registration made by entry point @origin?
 * Return: 0, -EEXIST, -ENOSPC (as emu_registry_insert(), nothing changes).
 */
int emu_registry_check_insert(const struct emu_registry *r, uint64_t text_start,
			      uint64_t text_end, unsigned int aspects, unsigned int origin,
			      struct emu_verdict *v);

/**
 * emu_registry_reserve() - make room so that the next insert cannot fail for memory
 * Return: 0 or -ENOMEM.
 */
int emu_registry_reserve(struct emu_registry *r);

/** emu_registry_has() - is any aspect registered at exactly @text_start? */
bool emu_registry_has(const struct emu_registry *r, uint64_t text_start);

/**
 * emu_registry_remove() - remove @aspects of the registrations at @text_start
 * Return: the number of registrations changed (>= 1), or -ENOENT.
 */
int emu_registry_remove(struct emu_registry *r, uint64_t text_start, unsigned int aspects);

/** emu_registry_has_sframe() - does an SFrame unwind aspect come from @sframe_start? */
bool emu_registry_has_sframe(const struct emu_registry *r, uint64_t sframe_start);

/**
 * emu_registry_remove_sframe() - remove the unwind aspect of every registration
 *	whose SFrame section starts at @sframe_start (the kernel's
 *	sframe_remove_section(): every text range registered with it); identity
 *	aspects stay
 * Return: the number of registrations changed (>= 1), or -ENOENT.
 */
int emu_registry_remove_sframe(struct emu_registry *r, uint64_t sframe_start);

/**
 * emu_registry_has_eh_frame() - is an .eh_frame aspect registered with the
 *	header at @hdr_start?
 */
bool emu_registry_has_eh_frame(const struct emu_registry *r, uint64_t hdr_start);
/**
 * emu_registry_remove_eh_frame() - remove every .eh_frame registration with the
 *	header at @hdr_start (the kernel's eh_frame_remove_section())
 * Return: the number removed (>= 1), or -ENOENT.
 */
int emu_registry_remove_eh_frame(struct emu_registry *r, uint64_t hdr_start);
/** emu_registry_find_eh_frame() - the .eh_frame registration covering @ip, or NULL. */
const struct emu_registration *emu_registry_find_eh_frame(const struct emu_registry *r,
							  uint64_t ip);
/** emu_registry_find_jit() - the JIT registration whose code holds @ip, or NULL. */
const struct emu_registration *emu_registry_find_jit(const struct emu_registry *r, uint64_t ip);

/** emu_registry_find_unwind() - the registration whose unwind aspect covers @ip, or NULL. */
const struct emu_registration *emu_registry_find_unwind(const struct emu_registry *r,
							uint64_t ip);

/** emu_registry_find_identity() - the registration whose identity covers @ip, or NULL. */
const struct emu_registration *emu_registry_find_identity(const struct emu_registry *r,
							  uint64_t ip);

/**
 * emu_registry_dup() - copy for a forked child (SFrame copies are shared)
 * Return: the copy, or NULL on ENOMEM.
 */
struct emu_registry *emu_registry_dup(const struct emu_registry *r);

/** emu_registry_clear() - drop every registration (execve). */
void emu_registry_clear(struct emu_registry *r);

/** emu_registry_count() - number of registrations. */
size_t emu_registry_count(const struct emu_registry *r);

/**
 * emu_registry_block_cache() - the address space's budget for SFrame read
 * from files (block_cache.h), made with @budget bytes at the first call
 * Return: the cache (the registry's reference), or NULL on ENOMEM.
 */
struct emu_block_cache *emu_registry_block_cache(struct emu_registry *r, uint64_t budget);

/** emu_registry_file_stats() - what its budget for SFrame read from files did (zeros: none used). */
struct emu_block_cache_stats emu_registry_file_stats(const struct emu_registry *r);

/**
 * emu_registry_sframe_bytes() - bytes of SFrame sections its registrations
 * hold for good (a file-backed one: its header and FDE table)
 */
uint64_t emu_registry_sframe_bytes(const struct emu_registry *r);

/** emu_registry_sframe_cache() - the address space's cache of validated sections. */
struct emu_sframe_cache *emu_registry_sframe_cache(struct emu_registry *r);

/** emu_registry_limit() - the limit given to emu_registry_new(). */
size_t emu_registry_limit(const struct emu_registry *r);

/** emu_registry_inclusive_end() - see emu_registry_set_inclusive_end(). */
bool emu_registry_inclusive_end(const struct emu_registry *r);

typedef void (*emu_registry_visit_fn)(const struct emu_registration *reg, void *ctx);

/** emu_registry_for_each() - call @fn on each registration, by text_start. */
void emu_registry_for_each(const struct emu_registry *r, emu_registry_visit_fn fn, void *ctx);

/**
 * emu_registry_prune_unmapped() - drop registrations whose text is gone
 * @on_drop: called for each (before it is freed); may be NULL
 *
 * A registration is stale when its text is no longer wholly inside executable
 * mappings of @maps (JIT registrations: inside mappings of any protection, so
 * that W^X toggling keeps them, as munmap alone would end them in the kernel),
 * or its first byte is now mapped from another file
 * (dlclose without CODE_UNREGISTER, then something else loaded there). A
 * registration whose mapping identity is unknown (0) takes the one of @maps.
 * Return: the number dropped.
 */
size_t emu_registry_prune_unmapped(struct emu_registry *r, const struct emu_mappings *maps,
				   emu_registry_visit_fn on_drop, void *ctx);

/**
 * emu_registry_prune_unmapped_in() - emu_registry_prune_unmapped() for the
 * registrations whose text is all in [@start, @end) only: @maps are
 * known current there alone (a supervisor's cache brought up to date over
 * a range); the others are neither dropped nor given an identity
 * Return: the number dropped.
 */
size_t emu_registry_prune_unmapped_in(struct emu_registry *r, const struct emu_mappings *maps,
				      uint64_t start, uint64_t end, emu_registry_visit_fn on_drop,
				      void *ctx);

/** emu_registration_free() - free a registration not (or no longer) in a registry. */
void emu_registration_free(struct emu_registration *reg);

#endif /* EMU_REGISTRY_H */
