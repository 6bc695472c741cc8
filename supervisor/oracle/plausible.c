// SPDX-License-Identifier: GPL-2.0
/* The frame-plausibility oracle: code, a call before each return address, its target. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu/unwind.h"
#include "plausible.h"
#include "supervisor/core/x86_decoder.h"

#define CACHE_SIZE 4096		/* verdicts kept per process (a power of two) */
#define CALL_MAX 15		/* bytes of the longest x86-64 instruction */
#define SCAN_MAX 16384		/* bytes of a function searched for tail jumps */
#define TAIL_DEPTH 3		/* functions a tail-call path may pass through */
#define PLT_ENTRY 16

struct verdict_slot {
	uint64_t ip;
	uint64_t callee;
	uint8_t flags;
	bool used;
	uint8_t verdict;
};

/**
 * struct plausibility - one process's oracle
 * @dec: the decoder (its @insn: the instruction decoded last)
 * @cache: verdicts on return addresses in file mappings, by (ip, callee)
 * @scan: room for a function's code
 */
struct plausibility {
	struct x86_decoder dec;
	struct verdict_slot cache[CACHE_SIZE];
	unsigned long hits, total;
	uint8_t scan[SCAN_MAX];
};

static const char *const names[PLAUSIBLE_COUNT] = {
#define PLAUSIBLE_NAME(id, name) [PLAUSIBLE_##id] = name,
	PLAUSIBLE_VERDICTS(PLAUSIBLE_NAME)
#undef PLAUSIBLE_NAME
};

const char *plausible_name(enum plausible v)
{
	return (unsigned int)v < PLAUSIBLE_COUNT ? names[v] : "unknown";
}

struct plausibility *plausibility_new(void)
{
	struct plausibility *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	err = x86_decoder_init(&p->dec);
	if (err) {
		free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

void plausibility_free(struct plausibility *p)
{
	if (!p)
		return;
	x86_decoder_fini(&p->dec);
	free(p);
}

void plausibility_invalidate(struct plausibility *p)
{
	memset(p->cache, 0, sizeof(p->cache));
}

void plausibility_counts(const struct plausibility *p, unsigned long *hits, unsigned long *total)
{
	*hits = p->hits;
	*total = p->total;
}

/* One instruction at @addr from @len bytes of @code; false when none decodes. */
static bool decode(struct plausibility *p, const uint8_t *code, size_t len, uint64_t addr)
{
	return x86_decoder_next(&p->dec, &code, &len, &addr);
}

/* The direct target of the decoded call or jump (an immediate operand), if any. */
static bool direct_target(const struct plausibility *p, uint64_t *target)
{
	const cs_x86 *x = &p->dec.insn->detail->x86;

	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return false;
	*target = (uint64_t)x->operands[0].imm;
	return true;
}

/* (a): code is what an executable mapping, the vDSO or a registered text range holds. */
static bool is_code(const struct plausible_env *env, uint64_t ip, uint64_t *lo)
{
	const struct emu_vma *v = emu_mappings_find(env->maps, ip);
	const struct emu_registration *r = emu_registry_find_jit(env->registry, ip);

	if (!r)
		r = emu_registry_find_unwind(env->registry, ip);
	if (r) {
		*lo = v && v->start > r->text_start ? v->start : r->text_start;
		return true;
	}
	if (!v || !(v->prot & (EMU_PROT_EXEC | EMU_VMA_VDSO)))
		return false;
	*lo = v->start;
	return true;
}

enum call_kind { NO_CALL, INDIRECT_CALL, DIRECT_CALL };

/*
 * (b): the call instruction that ends at @ra, if any: every length a call
 * can have is tried, a direct call preferred. @lo: where the code starts.
 */
static enum call_kind call_before(struct plausibility *p, const struct plausible_env *env,
				  uint64_t ra, uint64_t lo, uint64_t *target, bool *unreadable)
{
	uint8_t buf[CALL_MAX];
	size_t w = ra - lo < CALL_MAX ? (size_t)(ra - lo) : CALL_MAX;
	enum call_kind found = NO_CALL;

	*unreadable = !w || emu_read(env->mem, ra - w, buf, w);
	if (*unreadable)
		return NO_CALL;
	for (size_t len = 2; len <= w; len++) {
		if (!decode(p, buf + w - len, len, ra - len) || p->dec.insn->size != len ||
		    !x86_decoder_in_group(&p->dec, CS_GRP_CALL))
			continue;
		if (direct_target(p, target))
			return DIRECT_CALL;
		found = INDIRECT_CALL;
	}
	return found;
}

/* A PLT stub's GOT slot: [endbr64;] [bnd] jmp *disp(%rip). */
static bool plt_slot(struct plausibility *p, const struct plausible_env *env, uint64_t stub,
		     uint64_t *slot)
{
	uint8_t buf[PLT_ENTRY];
	const cs_x86 *x;
	size_t off = 0;

	if (emu_read(env->mem, stub, buf, sizeof(buf)))
		return false;
	for (int i = 0; i < 2 && decode(p, buf + off, sizeof(buf) - off, stub + off); i++) {
		x = &p->dec.insn->detail->x86;
		if (p->dec.insn->id == X86_INS_ENDBR64) {
			off += p->dec.insn->size;
			continue;
		}
		if (p->dec.insn->id != X86_INS_JMP || x->op_count != 1 ||
		    x->operands[0].type != X86_OP_MEM || x->operands[0].mem.base != X86_REG_RIP)
			return false;
		*slot = stub + off + p->dec.insn->size + (uint64_t)x->operands[0].mem.disp;
		return true;
	}
	return false;
}

/* The callee's function, [start, end): a jump anywhere into it reaches it (a .cold part). */
struct callee_fn {
	uint64_t start, end;
};

/*
 * Does function [@start, @end) reach @callee by direct jumps out of it,
 * through at most @depth functions? PLAUSIBLE_YES, _CALL_TARGET_MISMATCH
 * (every jump out seen, none leads there), or _UNKNOWN (an indirect jump, a
 * function too big or unreadable).
 */
static enum plausible tail_path(struct plausibility *p, const struct plausible_env *env,
				uint64_t start, uint64_t end, const struct callee_fn *callee, int depth)
{
	const uint8_t *code = p->scan;
	size_t len = end - start;
	uint64_t addr = start, t, ts, te, outs[16];
	unsigned int nouts = 0;
	enum plausible v = PLAUSIBLE_CALL_TARGET_MISMATCH;

	if (!depth || len > SCAN_MAX || emu_read(env->mem, start, p->scan, len))
		return PLAUSIBLE_UNKNOWN;
	while (len && x86_decoder_next(&p->dec, &code, &len, &addr)) {
		if (!x86_decoder_in_group(&p->dec, CS_GRP_JUMP))
			continue;
		if (!direct_target(p, &t))
			return PLAUSIBLE_UNKNOWN;	/* an indirect jump */
		if (t >= start && t < end)
			continue;
		if (t >= callee->start && t < callee->end)
			return PLAUSIBLE_YES;
		if (nouts < sizeof(outs) / sizeof(outs[0]))
			outs[nouts++] = t;
		else
			v = PLAUSIBLE_UNKNOWN;
	}
	if (len)
		return PLAUSIBLE_UNKNOWN;	/* not all of it decodes */
	for (unsigned int i = 0; i < nouts && v != PLAUSIBLE_YES; i++) {
		enum plausible r = PLAUSIBLE_UNKNOWN;

		if (!env->function(env->ctx, outs[i], &ts, &te) && ts == outs[i])
			r = tail_path(p, env, ts, te, callee, depth - 1);
		if (r != PLAUSIBLE_CALL_TARGET_MISMATCH)
			v = r;
	}
	return v;
}

/*
 * Are the functions at @a and @b two definitions of one symbol (one
 * interposing the other)? A PLT slot bound to one may have been bound to
 * the other when the call was made: ld.so calls its own
 * _dl_catch_exception through its PLT until libc's is bound there.
 */
static bool same_symbol(const struct plausible_env *env, uint64_t a, uint64_t b)
{
	const char *na = env->name ? env->name(env->ctx, a) : NULL;
	const char *nb = na ? env->name(env->ctx, b) : NULL;

	return nb && !strcmp(na, nb);
}

/* (c): a direct call to @target must lead to the function holding @callee_addr. */
static enum plausible check_target(struct plausibility *p, const struct plausible_env *env,
				   uint64_t target, uint64_t callee_addr)
{
	struct callee_fn c;
	uint64_t ts, te, slot, got;

	if (env->function(env->ctx, callee_addr, &c.start, &c.end)) {
		/* no function known there: a PLT stub the thread is in, or unknown */
		return callee_addr >= target && callee_addr - target < PLT_ENTRY ?
		       PLAUSIBLE_YES : PLAUSIBLE_UNKNOWN;
	}
	if (target == c.start)
		return PLAUSIBLE_YES;
	if (!env->function(env->ctx, target, &ts, &te))
		return ts == target ? tail_path(p, env, ts, te, &c, TAIL_DEPTH) :
				      PLAUSIBLE_UNKNOWN;
	if (!plt_slot(p, env, target, &slot) || emu_read_u64(env->mem, slot, &got))
		return PLAUSIBLE_UNKNOWN;
	if (got == c.start || same_symbol(env, got, c.start))
		return PLAUSIBLE_YES;
	if (env->function(env->ctx, got, &ts, &te) || ts != got)
		return PLAUSIBLE_UNKNOWN;	/* lazy binding: the GOT points back at the PLT */
	return tail_path(p, env, ts, te, &c, TAIL_DEPTH);
}

bool plausible_return_trampoline(const struct emu_accessor *mem, uint64_t ip)
{
	static const uint8_t start_context[] = {
		0x48, 0x89, 0xdc,		/* mov %rbx,%rsp */
		0x48, 0x8b, 0x3c, 0x24,		/* mov (%rsp),%rdi */
		0x48, 0x85, 0xff,		/* test %rdi,%rdi */
	};
	uint8_t code[sizeof(start_context)];

	return !mem->read(mem->ctx, ip, code, sizeof(code)) &&
	       !memcmp(code, start_context, sizeof(code));
}

/* One frame: @ip with @flags, below it (called by it) the frame at @callee_addr. */
static enum plausible judge(struct plausibility *p, const struct plausible_env *env,
			    uint64_t ip, uint8_t flags, uint64_t callee_addr)
{
	uint64_t lo, target;
	bool unreadable;

	if (!is_code(env, ip, &lo))
		return PLAUSIBLE_NOT_CODE;
	if (flags & (EMU_FRAME_EXACT | EMU_FRAME_TRAMPOLINE))
		return PLAUSIBLE_YES;	/* interrupted there, or pushed by the kernel */
	switch (call_before(p, env, ip, lo, &target, &unreadable)) {
	case DIRECT_CALL:
		return check_target(p, env, target, callee_addr);
	case INDIRECT_CALL:
		return PLAUSIBLE_UNKNOWN;
	default:
		return unreadable ? PLAUSIBLE_UNKNOWN : PLAUSIBLE_NOT_AFTER_CALL;
	}
}

static struct verdict_slot *slot_of(struct plausibility *p, uint64_t ip, uint64_t callee)
{
	uint64_t h = (ip * 0x9e3779b97f4a7c15ull) ^ (callee * 0xc2b2ae3d27d4eb4full);

	return &p->cache[(h >> 32) & (CACHE_SIZE - 1)];
}

/* Verdicts on file-backed code do not change until the mappings do. */
static bool cacheable(const struct plausible_env *env, uint64_t ip)
{
	const struct emu_vma *v = emu_mappings_find(env->maps, ip);

	return v && v->ident && !emu_registry_find_jit(env->registry, ip);
}

void plausibility_judge(struct plausibility *p, const struct plausible_env *env,
			const uint64_t *ips, const uint8_t *flags, unsigned int n, uint8_t *out)
{
	if (n)
		out[0] = PLAUSIBLE_YES;
	for (unsigned int i = 1; i < n; i++) {
		uint8_t f = flags ? flags[i] : 0;
		uint8_t cf = flags ? flags[i - 1] : i == 1 ? EMU_FRAME_EXACT : 0;
		uint64_t callee = cf & EMU_FRAME_EXACT ? ips[i - 1] : ips[i - 1] - 1;
		struct verdict_slot *s = slot_of(p, ips[i], callee);

		p->total++;
		if (s->used && s->ip == ips[i] && s->callee == callee && s->flags == f) {
			p->hits++;
			out[i] = s->verdict;
			continue;
		}
		out[i] = judge(p, env, ips[i], f, callee);
		if (cacheable(env, ips[i]))
			*s = (struct verdict_slot){ ips[i], callee, f, true, out[i] };
	}
}
