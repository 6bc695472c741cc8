/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One sample: a thread's registers and a copy of its stack, taken at its
 * SIGPROF signal-delivery-stop while it is frozen, unwound after it runs on.
 */
#ifndef SUPERVISOR_SAMPLE_SAMPLE_H
#define SUPERVISOR_SAMPLE_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "emu/unwind.h"

/* Bytes below SP copied too: the x86-64 red zone. */
#define SAMPLE_RED_ZONE 128

/* DWARF registers 0-16 of x86-64: rax rdx rcx rbx rsi rdi rbp rsp r8-r15, RA (rip). */
#define SAMPLE_DWARF_REGS 17

/* Return addresses of a program's own chain (codectl_truth.h) kept per sample, innermost. */
#define SAMPLE_TRUTH_MAX 128

/**
 * struct sample_ours - our walk of a sample (walk_ours())
 * @frames: @res.nframes frames (an array of the sampler's --max-frames, owned
 *	by whoever owns the sample)
 * @res: how the walk went (its stop, the rule of a failed step; the
 *	registrations a kernel profile's lookups removed were removed already)
 * @done: the walk was made (false: the sample is dropped)
 * @past_copy: our first frame whose step read the stack past the copy, 0 none
 * @read_past_copy: our walk read the stack past the copy
 * @strict_changed: the other caller lookup (RA vs RA - 1) gives another stack
 * @stack_high: the end of the highest stack address the walk read
 * @ns: what the walk cost, ns
 */
struct sample_ours {
	struct emu_frame *frames;
	struct emu_unwind_result res;
	bool done;
	unsigned int past_copy;
	bool read_past_copy;
	bool strict_changed;
	uint64_t stack_high;
	uint64_t ns;
};

/*
 * The formats --compare-formats walks each sample with: SFrame (and JIT),
 * .eh_frame, and with --synthesize-sframe SFrame with the synthesized.
 */
#define SAMPLE_FORMATS 3

/**
 * struct sample_format - one more walk of a sample, with one kind of
 *	registration alone (--compare-formats; walk_ours())
 * @frames: @res.nframes frames (an array of --max-frames, owned by whoever
 *	owns the sample; NULL: formats are not compared)
 * @res: how the walk went; @ns: what it cost
 * @past_copy: its first frame whose step read the stack past the copy, 0 none
 */
struct sample_format {
	struct emu_frame *frames;
	struct emu_unwind_result res;
	uint64_t ns;
	unsigned int past_copy;
};

/**
 * struct sample - what the stop captured
 * @tid, @tgid: the thread and its process
 * @regs: its general registers (PTRACE_GETREGS)
 * @dwarf: the same by DWARF number, as every unwinder wants them
 *	(sample_set_dwarf_regs())
 * @stack_start: tracee address of @stack[0] (SP - SAMPLE_RED_ZONE)
 * @stack, @stack_len: the copy, @stack_len bytes (owned by the sample queue)
 * @stack_map_start, @stack_map_end: the mapping holding SP (0, 0: unknown;
 *	our walk fills them in from mappings read after the sample when the
 *	cached ones do not hold SP, as a stack grown since), the thread's
 *	stack: no frame-pointer step leaves it; the stack between the copy and
 *	its end is read live, after the thread ran on
 * @freeze_ns: how long the thread stayed stopped for us (waitpid to resume)
 * @waited_ns: how long the signal waited to be taken (see trigger_waited_ns())
 * @programs_own: the program's own SIGPROF (delivered to it unchanged)
 * @in_syscall: taken in a system call: @regs.rip is the address after its
 *	syscall instruction (a stop: orig_rax >= 0; a ring record: ring.h)
 * @stopped: our walk was made while the thread was stopped: what it read of
 *	the stack past the copy was the sample's own (--sampler stop)
 * @taken_ns: when it was taken: the stop began, or the kernel's record's
 *	time (CLOCK_MONOTONIC)
 * @truth_depth: the thread's depth in the program's own chain (truth.h),
 *	0 when it keeps none; @truth, @n_truth: its innermost return addresses,
 *	innermost first
 * @ours: our walk, made as soon as the sample was taken (walk_ours()),
 *	against the registrations of that moment; the references, the verdict
 *	and the statistics come later (walk_rest())
 * @formats: with --compare-formats, our walk again with each format alone
 *	(SAMPLE_FORMATS), made and judged with @ours
 */
struct sample {
	pid_t tid;
	pid_t tgid;
	struct user_regs_struct regs;
	uint64_t dwarf[SAMPLE_DWARF_REGS];
	uint64_t stack_start;
	uint8_t *stack;
	size_t stack_len;
	uint64_t stack_map_start;
	uint64_t stack_map_end;
	uint64_t taken_ns;
	uint64_t freeze_ns;
	uint64_t waited_ns;
	bool programs_own;
	bool in_syscall;
	bool stopped;
	uint32_t truth_depth;
	uint32_t n_truth;
	uint64_t truth[SAMPLE_TRUTH_MAX];
	struct sample_ours ours;
	struct sample_format formats[SAMPLE_FORMATS];
};

/** sample_set_dwarf_regs() - fill @s->dwarf from @s->regs. */
static inline void sample_set_dwarf_regs(struct sample *s)
{
	const struct user_regs_struct *r = &s->regs;
	const uint64_t v[SAMPLE_DWARF_REGS] = {
		r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15, r->rip,
	};

	for (unsigned int i = 0; i < SAMPLE_DWARF_REGS; i++)
		s->dwarf[i] = v[i];
}

#endif /* SUPERVISOR_SAMPLE_SAMPLE_H */
