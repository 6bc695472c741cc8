/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Recently validated SFrame sections of one address space. A loader that
 * unloads and reloads an object (dlopen/dlclose loops), or re-registers a
 * section, hands over the same bytes for the same text: the emulator still
 * reads them, but an exact match reuses the validated copy instead of
 * validating again. Only small sections whose validation did not depend on
 * the mappings are kept, so the cache holds at most 8 MiB.
 */
#ifndef EMU_SFRAME_CACHE_H
#define EMU_SFRAME_CACHE_H

#include "sframe_section.h"

#define EMU_SFRAME_CACHE_ENTRIES 8
#define EMU_SFRAME_CACHE_MAX_BYTES (1u << 20)

struct emu_sframe_cache_entry {
	struct emu_sframe_section *sec;
	uint64_t text_start;
	uint64_t text_end;
	enum emu_arch arch;
	enum emu_profile profile;
	uint32_t kernel_refusals;
	uint64_t used;
};

/** struct emu_sframe_cache - a small LRU of validated sections (holds references) */
struct emu_sframe_cache {
	struct emu_sframe_cache_entry e[EMU_SFRAME_CACHE_ENTRIES];
	uint64_t clock;
};

/**
 * emu_sframe_cache_find() - a section validated for the same place, text and
 * profile whose bytes equal @data
 * @kernel_refusals: set to the EMU_KR_* bits its header breaks
 * Return: the section with a new reference, or NULL.
 */
struct emu_sframe_section *emu_sframe_cache_find(struct emu_sframe_cache *c, const uint8_t *data,
						 size_t len, const struct emu_sframe_params *p,
						 uint32_t *kernel_refusals);

/**
 * emu_sframe_cache_add() - remember @sec, just validated with @p (takes a
 * reference; ignored when the section is too large or its validation used
 * the mappings)
 */
void emu_sframe_cache_add(struct emu_sframe_cache *c, struct emu_sframe_section *sec,
			  const struct emu_sframe_params *p, uint32_t kernel_refusals);

/** emu_sframe_cache_clear() - drop every entry (exec, teardown). */
void emu_sframe_cache_clear(struct emu_sframe_cache *c);

#endif /* EMU_SFRAME_CACHE_H */
