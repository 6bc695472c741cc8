/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frame-plausibility oracle: does a walk's frame look like a frame at
 * all, whoever found it? It reads the code, not unwind data, so it is
 * independent of every unwinder, and judges every frame >= 1:
 *
 *  (a) its IP must be code: an executable mapping of a file or anonymous
 *      memory, the vDSO, or a registered text range (JIT code included);
 *  (b) a return address must follow a call instruction (decoded with
 *      capstone from the tracee's own bytes: code may be JIT or patched);
 *  (c) a direct call must lead to the callee frame's function: straight, through
 *      a PLT stub whose GOT slot holds it, or through direct tail jumps (up to
 *      three functions deep); an indirect call, or a path through an indirect
 *      jump, cannot tell (unknown).
 *
 * A frame reached through a signal frame holds the interrupted IP (no call
 * before it), and a signal trampoline's address was pushed by the kernel:
 * both are checked for (a) only.
 */
#ifndef SUPERVISOR_ORACLE_PLAUSIBLE_H
#define SUPERVISOR_ORACLE_PLAUSIBLE_H

#include <stdbool.h>
#include <stdint.h>

#include "emu/accessor.h"
#include "emu/mappings.h"
#include "emu/registry.h"

/* X(ID, name): enum plausible (PLAUSIBLE_<ID>) and plausible_name() from one table. */
#define PLAUSIBLE_VERDICTS(X) \
	X(UNKNOWN, "unknown") \
	X(YES, "plausible") \
	X(NOT_CODE, "not-code") \
	X(NOT_AFTER_CALL, "not-after-call") \
	X(CALL_TARGET_MISMATCH, "call-target-mismatch")

enum plausible {
#define PLAUSIBLE_ID(id, name) PLAUSIBLE_##id,
	PLAUSIBLE_VERDICTS(PLAUSIBLE_ID)
#undef PLAUSIBLE_ID
	PLAUSIBLE_COUNT
};

/** plausible_name() - "plausible", "not-code", ... for @v. */
const char *plausible_name(enum plausible v);

/** plausible_bad() - @v says the frame is wrong (not merely unknown). */
static inline bool plausible_bad(enum plausible v)
{
	return v >= PLAUSIBLE_NOT_CODE;
}

/**
 * plausible_function_fn - the function holding @addr, [*@start, *@end);
 *	0, or -ENOENT when none is known (symbols_function() has this shape)
 */
typedef int (*plausible_function_fn)(void *ctx, uint64_t addr, uint64_t *start, uint64_t *end);

/**
 * plausible_name_fn - the name of the function starting at @addr, or NULL
 *	(symbols_function_name() has this shape)
 */
typedef const char *(*plausible_name_fn)(void *ctx, uint64_t addr);

/**
 * struct plausible_env - what judging one walk reads (none of it owned)
 * @maps: the process's mappings; @registry: its registrations
 * @mem: its memory (code bytes, GOT slots)
 * @function, @ctx: function bounds (the process's symbols, perf map entries)
 * @name: function names, with @ctx (NULL: none known)
 */
struct plausible_env {
	const struct emu_mappings *maps;
	const struct emu_registry *registry;
	const struct emu_accessor *mem;
	plausible_function_fn function;
	plausible_name_fn name;
	void *ctx;
};

struct plausibility;

/**
 * plausibility_new() - one process's oracle (a disassembler, a verdict cache)
 * Return: it, or NULL with errno ENOMEM, or ELIBACC (libcapstone cannot be
 * loaded: x86_decoder_init()).
 */
struct plausibility *plausibility_new(void);

/** plausibility_free() - release it (NULL is fine). */
void plausibility_free(struct plausibility *p);

/** plausibility_invalidate() - the mappings changed: cached verdicts go. */
void plausibility_invalidate(struct plausibility *p);

/**
 * plausibility_judge() - judge frames 1 to @n - 1 of a walk
 * @ips, @flags: the walk's IPs and EMU_FRAME_* flags (@flags NULL: frame 0
 *	exact, the others return addresses)
 * @out: @n verdicts; frame 0 (where the thread was) is PLAUSIBLE_YES
 * Verdicts on code in file mappings are cached per process (until the
 * mappings change); JIT and anonymous code is read again every time.
 */
void plausibility_judge(struct plausibility *p, const struct plausible_env *env,
			const uint64_t *ips, const uint8_t *flags, unsigned int n, uint8_t *out);

/**
 * plausible_return_trampoline() - is @ip, a return address no call put
 * there, one by construction: glibc's __start_context (x86-64), which
 * makecontext(3) stores as a coroutine's return address, as the kernel
 * stores the signal restorer? Told by its code read through @mem ("mov
 * %rbx,%rsp; mov (%rsp),%rdi; test %rdi,%rdi", the same in glibc 2.36 to
 * 2.42), so it holds without libc's symbols. The thread resumes at its
 * first byte: the frame is exact (looked up and named at @ip).
 */
bool plausible_return_trampoline(const struct emu_accessor *mem, uint64_t ip);

/** plausibility_hits() - verdicts answered from the cache, and all verdicts made (stats). */
void plausibility_counts(const struct plausibility *p, unsigned long *hits,
			 unsigned long *total);

#endif /* SUPERVISOR_ORACLE_PLAUSIBLE_H */
