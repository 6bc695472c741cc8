// SPDX-License-Identifier: GPL-2.0
/*
 * Registry of one address space: one sorted index per aspect (unwind,
 * identity, .eh_frame), each holding non-overlapping half-open text ranges, so
 * lookup by address is a binary search. A registration carrying two aspects is
 * in both indexes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

struct reg_index {
	struct emu_registration **v;
	size_t n;
	size_t cap;
};

/*
 * @count: registrations; @limited: those that count toward @limit
 * @inclusive_end: overlaps as the v13 maple tree saw them (end included)
 */
/* The indexes, by aspect: slot i holds the registrations with aspect bit 1 << i. */
#define NINDEX 3

struct emu_registry {
	struct reg_index index[NINDEX];
	size_t count;
	size_t limited;
	size_t limit;
	bool inclusive_end;
	uint64_t sframe_bytes;
	struct emu_sframe_cache cache;
	struct emu_block_cache *blocks;
};

/* Number of entries starting below @addr (or at it, with @or_equal). */
static size_t index_rank(const struct reg_index *x, uint64_t addr, bool or_equal)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t s = x->v[mid]->text_start;

		if (s < addr || (or_equal && s == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The entry overlapping [start, end), or NULL; with @inclusive, [start, end]
 * against entries [s, e]: touching ranges overlap too. With @replacing, a
 * synthesized entry is no overlap (the new registration replaces it).
 */
static const struct emu_registration *index_overlap(const struct reg_index *x, uint64_t start,
						    uint64_t end, bool inclusive, bool replacing)
{
	/* the entries are sorted and apart: those overlapping end right below @end */
	for (size_t pos = index_rank(x, end, inclusive); pos; pos--) {
		const struct emu_registration *old = x->v[pos - 1];

		if (old->text_end < start || (!inclusive && old->text_end == start))
			return NULL;
		if (!replacing || old->origin != EMU_ORIGIN_SYNTHESIZED)
			return old;
	}
	return NULL;
}

static const struct emu_registration *index_find(const struct reg_index *x, uint64_t ip)
{
	size_t pos = index_rank(x, ip, true);

	if (pos && ip < x->v[pos - 1]->text_end)
		return x->v[pos - 1];
	return NULL;
}

static int index_reserve(struct reg_index *x)
{
	struct emu_registration **v;
	size_t cap;

	if (x->n < x->cap)
		return 0;
	cap = x->cap ? x->cap * 2 : 16;
	v = realloc(x->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	x->v = v;
	x->cap = cap;
	return 0;
}

/* Caller checked overlap and reserved room. */
static void index_insert(struct reg_index *x, struct emu_registration *reg)
{
	size_t pos = index_rank(x, reg->text_start, false);

	memmove(&x->v[pos + 1], &x->v[pos], (x->n - pos) * sizeof(x->v[0]));
	x->v[pos] = reg;
	x->n++;
}

static struct emu_registration *index_take(struct reg_index *x, uint64_t text_start)
{
	size_t pos = index_rank(x, text_start, false);
	struct emu_registration *reg;

	if (pos == x->n || x->v[pos]->text_start != text_start)
		return NULL;
	reg = x->v[pos];
	memmove(&x->v[pos], &x->v[pos + 1], (x->n - pos - 1) * sizeof(x->v[0]));
	x->n--;
	return reg;
}

struct emu_registry *emu_registry_new(size_t limit)
{
	struct emu_registry *r = calloc(1, sizeof(*r));

	if (r)
		r->limit = limit;
	return r;
}

void emu_registry_set_inclusive_end(struct emu_registry *r, bool on)
{
	r->inclusive_end = on;
}

const char *emu_origin_name(unsigned int origin)
{
	static const char *const names[] = {
		[EMU_ORIGIN_CALL] = "codectl",
		[EMU_ORIGIN_EXEC] = "exec",
		[EMU_ORIGIN_SFRAME_REGISTER] = "sframe_register",
		[EMU_ORIGIN_PRCTL] = "prctl",
		[EMU_ORIGIN_STACKTRACE_SETUP] = "stacktrace_setup",
		[EMU_ORIGIN_EH_FRAME_REGISTER] = "eh_frame_register",
		[EMU_ORIGIN_SYNTHESIZED] = "synthesized",
	};

	return origin < sizeof(names) / sizeof(names[0]) ? names[origin] : "unknown";
}

void emu_registration_free(struct emu_registration *reg)
{
	if (!reg)
		return;
	emu_sframe_put(reg->sframe);
	emu_jit_index_free(reg->jit_index);
	free(reg->ident.pathname);
	free(reg->ident.debug_link);
	free(reg);
}

static const char *aspect_name(unsigned int slot)
{
	static const char *const names[NINDEX] = { "unwind", "identity", ".eh_frame" };

	return names[slot];
}

int emu_registry_check_insert(const struct emu_registry *r, uint64_t text_start,
			      uint64_t text_end, unsigned int aspects, unsigned int origin,
			      struct emu_verdict *v)
{
	const struct emu_registration *old;
	int i;

	for (i = 0; i < NINDEX; i++) {
		if (!(aspects & (1u << i)))
			continue;
		old = index_overlap(&r->index[i], text_start, text_end, r->inclusive_end,
				    origin != EMU_ORIGIN_SYNTHESIZED);
		if (old)
			return emu_reject(v, EMU_R_OVERLAP,
					  "text 0x%llx..0x%llx overlaps the %s aspect of 0x%llx..0x%llx%s",
					  (unsigned long long)text_start, (unsigned long long)text_end,
					  aspect_name(i), (unsigned long long)old->text_start,
					  (unsigned long long)old->text_end,
					  r->inclusive_end ? " (v13: ends inclusive)" : "");
	}
	if (emu_origin_limited(origin) && r->limited >= r->limit)
		return emu_reject(v, EMU_R_LIMIT, "limit of %zu registrations reached", r->limit);
	return 0;
}

int emu_registry_reserve(struct emu_registry *r)
{
	for (int i = 0; i < NINDEX; i++)
		if (index_reserve(&r->index[i]))
			return -ENOMEM;
	return 0;
}

static bool index_has(const struct reg_index *x, uint64_t text_start)
{
	size_t pos = index_rank(x, text_start, false);

	return pos < x->n && x->v[pos]->text_start == text_start;
}

bool emu_registry_has(const struct emu_registry *r, uint64_t text_start)
{
	return index_has(&r->index[0], text_start) || index_has(&r->index[1], text_start);
}

/* Index slot of one aspect bit. */
static int slot_of(unsigned int aspect)
{
	return __builtin_ctz(aspect);
}

/* Take @aspect away from the registration at @text_start; NULL if none has it. */
static struct emu_registration *take_aspect(struct emu_registry *r, uint64_t text_start,
					    unsigned int aspect)
{
	struct emu_registration *reg = index_take(&r->index[slot_of(aspect)], text_start);

	if (!reg)
		return NULL;
	reg->aspects &= ~aspect;
	if (aspect == EMU_ASPECT_UNWIND) {
		if (reg->sframe)
			r->sframe_bytes -= emu_sframe_kept(reg->sframe);
		emu_sframe_put(reg->sframe);
		reg->sframe = NULL;
		emu_jit_index_free(reg->jit_index);
		reg->jit_index = NULL;
		reg->unwind_kind = EMU_UNWIND_NONE;
	}
	return reg;
}

/* Free @reg once it carries no aspect; returns 1 if it was a registration. */
static int settle(struct emu_registry *r, struct emu_registration *reg)
{
	if (!reg)
		return 0;
	if (!reg->aspects) {
		r->limited -= emu_origin_limited(reg->origin);
		emu_registration_free(reg);
		r->count--;
	}
	return 1;
}

/* Drop the synthesized unwind registrations overlapping [@start, @end). */
static void drop_synthesized(struct emu_registry *r, uint64_t start, uint64_t end)
{
	const struct emu_registration *old;

	while ((old = index_overlap(&r->index[0], start, end, r->inclusive_end, false)) &&
	       old->origin == EMU_ORIGIN_SYNTHESIZED)
		settle(r, take_aspect(r, old->text_start, EMU_ASPECT_UNWIND));
}

int emu_registry_insert(struct emu_registry *r, struct emu_registration *reg,
			struct emu_verdict *v)
{
	int err, i;

	err = emu_registry_check_insert(r, reg->text_start, reg->text_end, reg->aspects,
					reg->origin, v);
	if (err)
		return err;
	for (i = 0; i < NINDEX; i++)
		if ((reg->aspects & (1u << i)) && index_reserve(&r->index[i]))
			return emu_reject(v, EMU_R_NOMEM, "out of memory");
	if (reg->aspects & EMU_ASPECT_UNWIND)
		drop_synthesized(r, reg->text_start, reg->text_end);
	for (i = 0; i < NINDEX; i++)
		if (reg->aspects & (1u << i))
			index_insert(&r->index[i], reg);
	if (reg->sframe)
		r->sframe_bytes += emu_sframe_kept(reg->sframe);
	r->count++;
	r->limited += emu_origin_limited(reg->origin);
	return 0;
}

int emu_registry_remove(struct emu_registry *r, uint64_t text_start, unsigned int aspects)
{
	struct emu_registration *taken[NINDEX];
	int i, j, n = 0;

	for (i = 0; i < NINDEX; i++)
		taken[i] = aspects & (1u << i) ? take_aspect(r, text_start, 1u << i) : NULL;
	for (i = 0; i < NINDEX; i++) {
		for (j = 0; j < i && taken[j] != taken[i]; j++)
			;
		if (j == i)	/* not settled yet (one registration may be taken twice) */
			n += settle(r, taken[i]);
	}
	return n ? n : -ENOENT;
}

/* Does @reg's @aspect come from the section (SFrame, .eh_frame_hdr) at @start? */
static bool from_section(const struct emu_registration *reg, unsigned int aspect, uint64_t start)
{
	if (aspect == EMU_ASPECT_EH_FRAME)
		return reg->eh_frame.hdr_start == start;
	return reg->unwind_kind == EMU_UNWIND_SFRAME && reg->origin != EMU_ORIGIN_SYNTHESIZED &&
	       reg->sframe_start == start;
}

static bool has_section(const struct emu_registry *r, unsigned int aspect, uint64_t start)
{
	const struct reg_index *x = &r->index[slot_of(aspect)];

	for (size_t i = 0; i < x->n; i++)
		if (from_section(x->v[i], aspect, start))
			return true;
	return false;
}

/* Take @aspect from every registration whose section starts at @start. */
static int remove_section(struct emu_registry *r, unsigned int aspect, uint64_t start)
{
	const struct reg_index *x = &r->index[slot_of(aspect)];
	int n = 0;

	/* backwards: taking entry i moves only the ones after it */
	for (size_t i = x->n; i-- > 0;) {
		struct emu_registration *reg = x->v[i];

		if (from_section(reg, aspect, start))
			n += settle(r, take_aspect(r, reg->text_start, aspect));
	}
	return n ? n : -ENOENT;
}

bool emu_registry_has_sframe(const struct emu_registry *r, uint64_t sframe_start)
{
	return has_section(r, EMU_ASPECT_UNWIND, sframe_start);
}

int emu_registry_remove_sframe(struct emu_registry *r, uint64_t sframe_start)
{
	return remove_section(r, EMU_ASPECT_UNWIND, sframe_start);
}

bool emu_registry_has_eh_frame(const struct emu_registry *r, uint64_t hdr_start)
{
	return has_section(r, EMU_ASPECT_EH_FRAME, hdr_start);
}

int emu_registry_remove_eh_frame(struct emu_registry *r, uint64_t hdr_start)
{
	return remove_section(r, EMU_ASPECT_EH_FRAME, hdr_start);
}

const struct emu_registration *emu_registry_find_eh_frame(const struct emu_registry *r,
							  uint64_t ip)
{
	return index_find(&r->index[slot_of(EMU_ASPECT_EH_FRAME)], ip);
}

const struct emu_registration *emu_registry_find_unwind(const struct emu_registry *r,
							uint64_t ip)
{
	return index_find(&r->index[0], ip);
}

const struct emu_registration *emu_registry_find_jit(const struct emu_registry *r, uint64_t ip)
{
	const struct emu_registration *reg = emu_registry_find_unwind(r, ip);

	return reg && reg->unwind_kind == EMU_UNWIND_JIT ? reg : NULL;
}

const struct emu_registration *emu_registry_find_identity(const struct emu_registry *r,
							  uint64_t ip)
{
	return index_find(&r->index[1], ip);
}

size_t emu_registry_count(const struct emu_registry *r)
{
	return r->count;
}

struct emu_sframe_cache *emu_registry_sframe_cache(struct emu_registry *r)
{
	return &r->cache;
}

struct emu_block_cache *emu_registry_block_cache(struct emu_registry *r, uint64_t budget)
{
	if (!r->blocks)
		r->blocks = emu_block_cache_new(budget);
	return r->blocks;
}

struct emu_block_cache_stats emu_registry_file_stats(const struct emu_registry *r)
{
	return r->blocks ? emu_block_cache_stats(r->blocks) : (struct emu_block_cache_stats){ 0 };
}

uint64_t emu_registry_sframe_bytes(const struct emu_registry *r)
{
	return r->sframe_bytes;
}

size_t emu_registry_limit(const struct emu_registry *r)
{
	return r->limit;
}

bool emu_registry_inclusive_end(const struct emu_registry *r)
{
	return r->inclusive_end;
}

/* The index to visit next: the lowest text_start among the heads (ties: the lower slot). */
static int next_slot(const struct emu_registry *r, const size_t *pos)
{
	int best = -1;

	for (int i = 0; i < NINDEX; i++) {
		if (pos[i] == r->index[i].n)
			continue;
		if (best < 0 || r->index[i].v[pos[i]]->text_start <
				r->index[best].v[pos[best]]->text_start)
			best = i;
	}
	return best;
}

/* Visit each registration once, by text_start, through the index of its lowest aspect. */
void emu_registry_for_each(const struct emu_registry *r, emu_registry_visit_fn fn, void *ctx)
{
	size_t pos[NINDEX] = { 0 };
	int i;

	while ((i = next_slot(r, pos)) >= 0) {
		const struct emu_registration *reg = r->index[i].v[pos[i]++];

		if (slot_of(reg->aspects & -reg->aspects) == i)
			fn(reg, ctx);
	}
}

void emu_registry_clear(struct emu_registry *r)
{
	int i;

	/* each registration freed through the index of its highest aspect */
	for (i = 0; i < NINDEX; i++) {
		for (size_t k = 0; k < r->index[i].n; k++) {
			struct emu_registration *reg = r->index[i].v[k];

			if (!(reg->aspects >> (i + 1)))
				emu_registration_free(reg);
		}
	}
	for (i = 0; i < NINDEX; i++)
		r->index[i].n = 0;
	r->count = 0;
	r->limited = 0;
	r->sframe_bytes = 0;
	emu_sframe_cache_clear(&r->cache);
}

void emu_registry_free(struct emu_registry *r)
{
	if (!r)
		return;
	emu_registry_clear(r);
	for (int i = 0; i < NINDEX; i++)
		free(r->index[i].v);
	emu_block_cache_put(r->blocks);
	free(r);
}
