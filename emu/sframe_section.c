// SPDX-License-Identifier: GPL-2.0
/*
 * A registered SFrame section: the emulator's own copy of the bytes,
 * validated once (sframe_validate.c) and indexed (sframe_lookup.c), then
 * shared by reference among the registries that hold it (fork copies,
 * re-registrations of the same bytes).
 */
#include <stdlib.h>

#include "sframe_internal.h"

int emu_sframe_load(uint8_t *data, size_t len, const struct emu_sframe_params *p,
		    struct emu_sframe_section **out, struct emu_verdict *v)
{
	struct emu_sframe_section *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s) {
		free(data);
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	}
	*s = (struct emu_sframe_section){ .refs = 1, .data = data, .len = len, .addr = p->sframe_addr };
	err = emu_sf_validate(s, p, v);
	if (!err && emu_sf_build_index(s))
		err = emu_reject(v, EMU_R_NOMEM, "out of memory");
	if (err) {
		emu_sframe_put(s);
		return err;
	}
	*out = s;
	return 0;
}

struct emu_sframe_section *emu_sframe_get(struct emu_sframe_section *s)
{
	s->refs++;
	return s;
}

void emu_sframe_put(struct emu_sframe_section *s)
{
	if (!s || --s->refs)
		return;
	free(s->big);
	free(s->fre_pos);
	if (s->store)
		emu_sf_store_free(s->store);
	else
		free(s->data);
	free(s);
}

const struct emu_sframe_hdr *emu_sframe_header(const struct emu_sframe_section *s)
{
	return &s->hdr;
}

size_t emu_sframe_size(const struct emu_sframe_section *s)
{
	return s->len;
}
