/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frame walker: from a thread's registers, one frame at a time, with the
 * rules the registrations give (SFrame, JIT) and frame-pointer fallback
 * (codectl-abi.md, "Unwinding").
 */
#ifndef EMU_UNWIND_H
#define EMU_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "accessor.h"
#include "arch.h"
#include "jit.h"
#include "registry.h"

/*
 * How a frame was reached: frame 0 from the registers, the others by a step
 * (SIGNAL: through a signal frame, from the registers the kernel saved;
 * EH_FRAME: by an .eh_frame registration's CFI; SYNTHESIZED: by SFrame
 * made from .eh_frame, --synthesize-sframe).
 */
enum emu_frame_source {
	EMU_SRC_REGS = 0,
	EMU_SRC_SFRAME,
	EMU_SRC_JIT,
	EMU_SRC_FP,
	EMU_SRC_SIGNAL,
	EMU_SRC_EH_FRAME,
	EMU_SRC_SYNTHESIZED,
};

/** emu_source_by_data() - was a step by @src made with registered unwind data? */
static inline bool emu_source_by_data(unsigned int src)
{
	return src == EMU_SRC_SFRAME || src == EMU_SRC_JIT || src == EMU_SRC_EH_FRAME ||
	       src == EMU_SRC_SYNTHESIZED;
}

/* What a frame's IP is (struct emu_frame's @flags). */
enum emu_frame_flags {
	EMU_FRAME_EXACT = 1u << 0,	/* where the thread was, not a return address:
					 * frame 0 and frames reached through a signal
					 * frame; look it up and name it as is */
	EMU_FRAME_TRAMPOLINE = 1u << 1,	/* a signal return trampoline (its IP, at the
					 * trampoline's first byte, is exact too) */
	EMU_FRAME_RA_BELOW_SP = 1u << 2,	/* the rule that found it read the RA
						 * below the callee's SP, where no
						 * return address lives: the rule is
						 * wrong, whatever was read (the kernel
						 * steps on all the same) */
};

/**
 * struct emu_frame - one frame: an IP (frame 0) or return address, how it was
 *	reached (enum emu_frame_source) and what it is (enum emu_frame_flags)
 */
struct emu_frame {
	uint64_t ip;
	uint8_t source;
	uint8_t flags;
};

/*
 * Why a walk stopped, in one table (an X-macro): X(ID, name, what); the enum
 * (EMU_STOP_<ID>) and the names (emu_stop_name()) are made from it. Never
 * 0: internally 0 means "go on".
 */
#define EMU_STOPS(X) \
	X(OUTERMOST, "outermost", "an outermost FRE: the stack's end") \
	X(RA_ZERO, "ra-zero", "the return address read is 0") \
	X(MAX_FRAMES, "max-frames", "the frame limit") \
	X(CFA_NOT_ABOVE_SP, "cfa-not-above-sp", "the CFA did not move up the stack") \
	X(CFA_MISALIGNED, "cfa-misaligned", "the CFA is not 8-byte aligned") \
	X(FP_BELOW_SP, "fp-below-sp", "FP-based CFA with FP below SP") \
	X(READ_FAULT, "read-fault", "a stack read failed") \
	X(REG_UNAVAILABLE, "register-unavailable", "the rule needs a register only frame 0 has") \
	X(RA_RETAINED, "ra-retained", "the rule keeps the RA in its register: x86-64 has none") \
	X(RULE_INVALID, "rule-invalid", "RA or FP at CFA + offset itself, not read from there") \
	X(SIGNAL_FRAME, "signal-frame", "a signal trampoline, not stepped through (kernel profiles)") \
	X(LEFT_STACK, "left-stack", "a frame-pointer step left the thread's stack") \
	X(JIT_INVALID, "jit-table-invalid", "a JIT table turned out malformed")

enum emu_stop {
	EMU_STOP_GO_ON = 0,
#define EMU_STOP_ID(id, name, what) EMU_STOP_##id,
	EMU_STOPS(EMU_STOP_ID)
#undef EMU_STOP_ID
	EMU_STOP_COUNT
};

/**
 * struct emu_regs - the sampled registers
 * @ip, @sp, @fp: instruction, stack and frame pointer
 * @gpr: registers by DWARF number, usable in frame 0 only, where @gpr_valid
 *	has bit (1 << number) set (FLEX rules such as DRAP's r10-based CFA)
 */
struct emu_regs {
	uint64_t ip;
	uint64_t sp;
	uint64_t fp;
	uint64_t gpr[EMU_MAX_REGS];
	uint32_t gpr_valid;
};

#define EMU_UNWIND_DEFAULT_MAX_FRAMES 128

/*
 * The registrations a walk takes its rules from: ALL (0) looks a frame up in
 * the SFrame and JIT registrations, then in the .eh_frame ones, then falls
 * back to the frame pointer; SFRAME (the SFrame and JIT registrations
 * the program made), EH_FRAME and SYNTHESIZED (SFRAME's and the synthesized
 * SFrame) use one kind alone (the walks --compare-formats makes of one sample).
 */
enum emu_unwind_tables {
	EMU_TABLES_ALL = 0,
	EMU_TABLES_SFRAME,
	EMU_TABLES_EH_FRAME,
	EMU_TABLES_SYNTHESIZED,
};

/**
 * struct emu_unwind_opts - walker settings
 * @max_frames: frames to produce at most (>= 1), the size of the frame array
 * @profile: in a kernel profile (v16, v13) SFrame lookups read the section as
 *	it is in the process now (emu_sframe_find_rule_live()), and one that
 *	finds its data broken removes the registration (struct emu_removal);
 *	the emulator profile reads the copy validated at registration
 * @lookup_ra: look callers up at their return address (the kernel patches,
 *	--strict) instead of return address - 1
 * @signal_frames: step through signal frames (a trampoline recognised by its
 *	code or a v3 signal FDE) to the interrupted frame, with the registers the
 *	kernel saved; false: stop there with EMU_STOP_SIGNAL_FRAME, as the
 *	kernel series do (none is known to step through them)
 * @stack_lo, @stack_hi: the sampled thread's stack, [lo, hi) (0, 0: not
 *	known); a frame-pointer step whose frame is not inside it ends the walk
 *	with EMU_STOP_LEFT_STACK (a stale FP would lead onto another stack)
 * @tables: enum emu_unwind_tables
 */
struct emu_unwind_opts {
	enum emu_arch arch;
	unsigned int max_frames;
	enum emu_profile profile;
	bool lookup_ra;
	bool signal_frames;
	uint64_t stack_lo;
	uint64_t stack_hi;
	unsigned int tables;
};

/* Registrations one walk may remove (each a lookup error; the rest fall back). */
#define EMU_UNWIND_MAX_REMOVALS 4

/**
 * struct emu_removal - a registration a kernel profile's lookup found broken:
 *	the kernel removes it (every text range registered with its section),
 *	and that frame falls back to the frame pointer
 * @text_start: the registration whose lookup failed; @sframe_start: its
 *	SFrame section, or @eh_frame_hdr_start: its .eh_frame_hdr (the other 0)
 * @rule, @reason: what was wrong, and the bytes that changed since registration
 */
struct emu_removal {
	uint64_t text_start;
	uint64_t sframe_start;
	uint64_t eh_frame_hdr_start;
	enum emu_rule rule;
	char reason[EMU_REASON_MAX];
};

/**
 * struct emu_unwind_result - how the walk went
 * @nframes: frames written
 * @stop: why it stopped; @stop_source: the method of the step that failed
 *	(EMU_SRC_SFRAME, _JIT or _FP; EMU_SRC_REGS when nothing was tried)
 * @jit_fault: with EMU_STOP_JIT_INVALID, what was wrong with the JIT tables
 * @rule: the rule of the step that failed (with @stop_source EMU_SRC_SFRAME
 *	or _JIT), for the report
 * @corrupt, @corrupt_text_start: the first registration whose data a lookup
 *	found corrupt or unreadable (the frame fell back to the frame pointer)
 * @removals, @nremovals: in a kernel profile, the registrations the kernel
 *	removes for it (v16: any lookup error but "no FDE"; v13: not for a
 *	function outside the text, EINVAL there); in every profile, .eh_frame
 *	registrations whose lookup failed but for "not found" and "unsupported";
 *	the walk goes on without them,
 *	and the caller removes them from the registry (emu_registry_remove_sframe(),
 *	emu_registry_remove_eh_frame())
 * @nunsupported, @unsupported_rule: .eh_frame lookups that found CFI the
 *	kernel does not interpret (EOPNOTSUPP: the registration stays, the
 *	frame falls back to the frame pointer), and the rule of the first
 */
struct emu_unwind_result {
	unsigned int nframes;
	enum emu_stop stop;
	uint8_t stop_source;
	uint8_t jit_fault;
	struct emu_unwind_rule rule;
	bool corrupt;
	uint64_t corrupt_text_start;
	unsigned int nremovals;
	struct emu_removal removals[EMU_UNWIND_MAX_REMOVALS];
	unsigned int nunsupported;
	enum emu_rule unsupported_rule;
};

/**
 * emu_unwind() - walk a stack
 * @r: registrations of the sampled address space
 * @mem: reads the stack (and JIT tables)
 * @frames: room for @o->max_frames frames, innermost first
 *
 * Return: 0 (see @res for the frames and the stop reason), or -EINVAL for bad
 * options (unknown arch, max_frames 0).
 */
int emu_unwind(const struct emu_registry *r, const struct emu_accessor *mem,
	       const struct emu_regs *regs, const struct emu_unwind_opts *o,
	       struct emu_frame *frames, struct emu_unwind_result *res);

/** emu_stop_name() - a short stable name of @stop ("outermost", "cfa-not-above-sp"). */
const char *emu_stop_name(enum emu_stop stop);

/**
 * emu_stop_reason() - @res's stop as a stable phrase: emu_stop_name(), or for
 * a malformed JIT table "jit-table-invalid: <what>" (emu_jit_fault_reason()).
 * The string is static.
 */
const char *emu_stop_reason(const struct emu_unwind_result *res);

/** emu_source_name() - "regs", "sframe", "jit", "fp", "signal" or "eh_frame". */
const char *emu_source_name(enum emu_frame_source src);

/**
 * emu_sigreturn_at() - is the code at @ip a signal return trampoline of @arch?
 * @exact: @ip is where a thread was (frame 0 or an interrupted frame), so it
 *	may also be the trampoline's system call instruction
 * Reads the code through @mem; false when it cannot be read.
 */
bool emu_sigreturn_at(const struct emu_accessor *mem, const struct emu_arch_info *arch,
		      uint64_t ip, bool exact);

/**
 * emu_registration_rule() - the rule a registration's unwind aspect gives for @ip
 * Return: 0, -ENOENT (no data for @ip: fall back to the frame pointer),
 * -EFAULT (corrupt SFrame data), -EINVAL (malformed JIT table: *@fault
 * says what; EMU_JIT_OK otherwise).
 */
int emu_registration_rule(const struct emu_registration *reg, uint64_t ip,
			  const struct emu_accessor *mem, const struct emu_arch_info *arch,
			  struct emu_unwind_rule *rule, enum emu_jit_fault *fault);

#endif /* EMU_UNWIND_H */
