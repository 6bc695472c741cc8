// SPDX-License-Identifier: GPL-2.0
/* Reuse of validated SFrame sections whose bytes, place and text are unchanged. */
#include <string.h>

#include "sframe_cache.h"
#include "sframe_internal.h"

static bool entry_matches(const struct emu_sframe_cache_entry *e, const uint8_t *data, size_t len,
			  const struct emu_sframe_params *p)
{
	const struct emu_sframe_section *s = e->sec;

	return s && s->addr == p->sframe_addr && s->len == len && e->text_start == p->text_start &&
	       e->text_end == p->text_end && e->arch == p->arch && e->profile == p->profile &&
	       !memcmp(s->data, data, len);
}

struct emu_sframe_section *emu_sframe_cache_find(struct emu_sframe_cache *c, const uint8_t *data,
						 size_t len, const struct emu_sframe_params *p,
						 uint32_t *kernel_refusals)
{
	for (unsigned int i = 0; i < EMU_SFRAME_CACHE_ENTRIES; i++) {
		struct emu_sframe_cache_entry *e = &c->e[i];

		if (!entry_matches(e, data, len, p))
			continue;
		e->used = ++c->clock;
		*kernel_refusals = e->kernel_refusals;
		return emu_sframe_get(e->sec);
	}
	return NULL;
}

void emu_sframe_cache_add(struct emu_sframe_cache *c, struct emu_sframe_section *sec,
			  const struct emu_sframe_params *p, uint32_t kernel_refusals)
{
	struct emu_sframe_cache_entry *victim = &c->e[0];

	if (sec->len > EMU_SFRAME_CACHE_MAX_BYTES || sec->used_maps)
		return;
	for (unsigned int i = 0; i < EMU_SFRAME_CACHE_ENTRIES; i++)
		if (!c->e[i].sec || c->e[i].used < victim->used)
			victim = &c->e[i];
	emu_sframe_put(victim->sec);
	*victim = (struct emu_sframe_cache_entry){
		.sec = emu_sframe_get(sec), .text_start = p->text_start, .text_end = p->text_end,
		.arch = p->arch, .profile = p->profile, .kernel_refusals = kernel_refusals,
		.used = ++c->clock,
	};
}

void emu_sframe_cache_clear(struct emu_sframe_cache *c)
{
	for (unsigned int i = 0; i < EMU_SFRAME_CACHE_ENTRIES; i++)
		emu_sframe_put(c->e[i].sec);
	memset(c, 0, sizeof(*c));
}
