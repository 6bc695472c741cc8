// SPDX-License-Identifier: GPL-2.0
/* One process's oracles: every back-end's state, and its symbols. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/unwind.h"
#include "oracle.h"

static const struct oracle_ops *const backends[ORACLE_COUNT] = {
	[ORACLE_LIBUNWIND] = &oracle_libunwind,
	[ORACLE_ELFUTILS] = &oracle_elfutils,
};

struct oracles *oracles_new(pid_t pid, bool crosscheck)
{
	struct oracles *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->pid = pid;
	o->plaus = plausibility_new();
	if (!o->plaus) {
		free(o);
		return NULL;
	}
	symbols_init(&o->sym, pid);
	for (int id = 0; id < ORACLE_COUNT; id++)
		o->err[id] = crosscheck ? backends[id]->open(&o->state[id], pid, &o->sym.mods) :
				-EPERM;
	return o;
}

void oracles_free(void *arg)
{
	struct oracles *o = arg;

	if (!o)
		return;
	for (int id = 0; id < ORACLE_COUNT; id++)
		if (o->state[id])
			backends[id]->close(o->state[id]);
	plausibility_free(o->plaus);
	symbols_free(&o->sym);
	free(o);
}

void oracles_mappings_changed(struct oracles *o)
{
	for (int id = 0; id < ORACLE_COUNT; id++)
		if (o->state[id])
			backends[id]->mappings_changed(o->state[id]);
	plausibility_invalidate(o->plaus);
	symbols_invalidate(&o->sym);
	memset(o->cfi, 0, sizeof(o->cfi));
}

bool oracles_ready(const struct oracles *o, enum oracle_id id)
{
	return !o->err[id] && o->state[id];
}

int oracles_walk(struct oracles *o, enum oracle_id id, const struct oracle_input *in,
		 struct oracle_walk *w)
{
	w->n = 0;
	w->retries = 0;
	if (!oracles_ready(o, id))
		return o->err[id] ? o->err[id] : -EPERM;
	return backends[id]->walk(o->state[id], in, w);
}

/* Do the process's CFI describe @pc? Cached per PC until the mappings change. */
static bool has_cfi(struct oracles *o, uint64_t pc)
{
	struct oracle_cfi_slot *s = &o->cfi[(pc * 0x9e3779b97f4a7c15ull >> 40) % ORACLE_CFI_CACHE];

	if (!s->known || s->pc != pc)
		*s = (struct oracle_cfi_slot){ pc, modules_has_cfi(&o->sym.mods, pc) ? 2 : 1 };
	return s->known == 2;
}

void oracles_mark_guesses(struct oracles *o, const uint64_t *ips, uint8_t *flags, unsigned int n)
{
	for (unsigned int i = 0; flags && i + 1 < n; i++) {
		bool exact = !i || (flags[i] & EMU_FRAME_EXACT);

		if (!has_cfi(o, exact ? ips[i] : ips[i] - 1))
			flags[i + 1] |= ORACLE_FRAME_GUESS;
	}
}

const char *oracles_strerror(enum oracle_id id, int err)
{
	return backends[id]->strerror(err);
}
