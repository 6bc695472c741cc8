// SPDX-License-Identifier: GPL-2.0
/*
 * Frame walker (codectl-abi.md, "Unwinding"): per frame, the rule of the
 * registration covering the IP (callers: RA - 1), else frame-pointer fallback;
 * then one step checked as the kernel checks it. A signal return trampoline
 * is stepped through to the interrupted frame with the registers the kernel
 * saved (or ends the walk, as in the kernel series). Knows rules, not formats.
 */
#include <string.h>

#include "eh_frame.h"
#include "jit.h"
#include "sframe_section.h"
#include "unwind.h"

/*
 * @exact: the IP is where the thread was (frame 0, or interrupted by a
 * signal): looked up as is, not as a return address
 * @gpr, @gpr_valid: the registers known at this frame (all of them at frame
 * 0 and at an interrupted frame, none but SP/FP/IP after a step)
 * @topmost: at frame 0, no step made yet
 * @v16: steps as the v16 series' unwind_user makes them: a register-based
 * rule only at frame 0 and only for the registers it reads, a CFA equal to
 * SP allowed at frame 0
 */
struct walk {
	const struct emu_arch_info *arch;
	const struct emu_accessor *mem;
	uint64_t ip, sp, fp;
	uint64_t gpr[EMU_MAX_REGS];
	uint32_t gpr_valid;
	bool exact;
	bool topmost;
	bool v16;
	bool ra_below_sp;	/* the last step read the RA below SP */
};

/* The frame-pointer frame: CFA = FP + 16, RA at CFA - 8, caller FP at CFA - 16. */
static const struct emu_unwind_rule fp_rule = {
	.cfa_base = EMU_CFA_FP,
	.cfa_off = 16,
	.ra = { .kind = EMU_LOC_CFA_DEREF, .off = -8 },
	.fp = { .kind = EMU_LOC_CFA_DEREF, .off = -16 },
};

/* Registers other than SP, FP and the IP are known in the first (and an interrupted) frame. */
static int reg_value(const struct walk *w, unsigned int reg, uint64_t *val)
{
	if (w->v16 && (!w->topmost || reg >= w->arch->kernel_regs))
		return EMU_STOP_REG_UNAVAILABLE;
	if (reg == w->arch->sp_reg || reg == w->arch->fp_reg || reg == w->arch->ip_reg) {
		*val = reg == w->arch->sp_reg ? w->sp : reg == w->arch->fp_reg ? w->fp : w->ip;
		return 0;
	}
	if (reg >= EMU_MAX_REGS || !(w->gpr_valid & (1u << reg)))
		return EMU_STOP_REG_UNAVAILABLE;
	*val = w->gpr[reg];
	return 0;
}

static int read_word(const struct walk *w, uint64_t addr, uint64_t *val)
{
	return emu_read_stack_u64(w->mem, addr, val) ? EMU_STOP_READ_FAULT : 0;
}

static int cfa_value(const struct walk *w, const struct emu_unwind_rule *rule, uint64_t *cfa)
{
	uint64_t base;
	int stop;

	if (rule->cfa_base == EMU_CFA_FP && w->fp < w->sp)
		return EMU_STOP_FP_BELOW_SP;
	if (rule->cfa_base == EMU_CFA_SP)
		base = w->sp;
	else if (rule->cfa_base == EMU_CFA_FP)
		base = w->fp;
	else if ((stop = reg_value(w, rule->cfa_reg, &base)))
		return stop;
	*cfa = base + (uint64_t)rule->cfa_off;
	if (rule->cfa_deref && (stop = read_word(w, *cfa, cfa)))
		return stop;
	if (*cfa < w->sp || (*cfa == w->sp && !(w->v16 && w->topmost)))
		return EMU_STOP_CFA_NOT_ABOVE_SP;
	if (*cfa & 7)
		return EMU_STOP_CFA_MISALIGNED;
	return 0;
}

/* The caller's RA or FP; @same is the value when the rule keeps it in place. */
static int loc_value(const struct walk *w, const struct emu_loc_rule *loc, uint64_t cfa,
		     uint64_t same, uint64_t *val)
{
	uint64_t base;
	int stop;

	switch (loc->kind) {
	case EMU_LOC_CFA_DEREF:
		return read_word(w, cfa + (uint64_t)loc->off, val);
	case EMU_LOC_CFA:
		return EMU_STOP_RULE_INVALID;
	case EMU_LOC_REG:
	case EMU_LOC_REG_DEREF:
		stop = reg_value(w, loc->reg, &base);
		if (stop)
			return stop;
		*val = base + (uint64_t)loc->off;
		return loc->kind == EMU_LOC_REG ? 0 : read_word(w, *val, val);
	default:
		*val = same;
		return 0;
	}
}

/* One step: on success the walk is at the caller and *@ra is its IP. */
static int step(struct walk *w, const struct emu_unwind_rule *rule, uint64_t *ra)
{
	uint64_t cfa, fp, lr = 0;
	int stop;

	stop = cfa_value(w, rule, &cfa);
	if (stop)
		return stop;
	/* RA left in its register (AArch64 LR) is only known in the first frame. */
	if (rule->ra.kind == EMU_LOC_SAME && w->arch->ra_cfa_off)
		return EMU_STOP_RA_RETAINED;
	if (rule->ra.kind == EMU_LOC_SAME && (stop = reg_value(w, w->arch->ra_reg, &lr)))
		return stop;
	w->ra_below_sp = rule->ra.kind == EMU_LOC_CFA_DEREF && cfa + (uint64_t)rule->ra.off < w->sp;
	stop = loc_value(w, &rule->ra, cfa, lr, ra);
	if (!stop)
		stop = loc_value(w, &rule->fp, cfa, w->fp, &fp);
	if (stop)
		return stop;
	w->sp = cfa;
	w->fp = fp;
	w->ip = *ra;
	w->gpr_valid = 0;
	w->exact = false;
	w->topmost = false;
	return 0;
}

static bool code_is(const struct emu_accessor *mem, uint64_t addr, const uint8_t *code,
		    size_t len)
{
	uint8_t buf[EMU_SIGRETURN_MAX];

	return !emu_read(mem, addr, buf, len) && !memcmp(buf, code, len);
}

bool emu_sigreturn_at(const struct emu_accessor *mem, const struct emu_arch_info *arch,
		      uint64_t ip, bool exact)
{
	const struct emu_sigframe_info *sf = arch->sigframe;

	for (unsigned int i = 0; sf && i < EMU_SIGRETURN_FORMS && sf->code_len[i]; i++) {
		if (code_is(mem, ip, sf->code[i], sf->code_len[i]))
			return true;
		if (exact && ip >= sf->syscall_off[i] &&
		    code_is(mem, ip - sf->syscall_off[i], sf->code[i], sf->code_len[i]))
			return true;
	}
	return false;
}

/*
 * Through the signal frame: the interrupted frame's registers, all of them,
 * from the kernel's save area at the trampoline's SP. Its IP is exact.
 */
static int signal_step(struct walk *w, uint64_t *ip)
{
	const struct emu_sigframe_info *sf = w->arch->sigframe;
	uint64_t base = w->sp + sf->regs_off, v[EMU_MAX_REGS];
	uint32_t valid = 0;
	int stop;

	for (unsigned int r = 0; r < EMU_MAX_REGS; r++) {
		if (sf->reg_off[r] < 0)
			continue;
		stop = read_word(w, base + (uint64_t)sf->reg_off[r], &v[r]);
		if (stop)
			return stop;
		valid |= 1u << r;
	}
	memcpy(w->gpr, v, sizeof(v));
	w->gpr_valid = valid;
	w->ip = *ip = v[w->arch->ip_reg];
	w->sp = v[w->arch->sp_reg];
	w->fp = v[w->arch->fp_reg];
	w->exact = true;
	w->topmost = false;
	return 0;
}

int emu_registration_rule(const struct emu_registration *reg, uint64_t ip,
			  const struct emu_accessor *mem, const struct emu_arch_info *arch,
			  struct emu_unwind_rule *rule, enum emu_jit_fault *fault)
{
	*fault = EMU_JIT_OK;
	switch (reg->unwind_kind) {
	case EMU_UNWIND_SFRAME:
		return reg->sframe ? emu_sframe_find_rule(reg->sframe, ip, rule) : -ENOENT;
	case EMU_UNWIND_JIT:
		return emu_jit_find_rule(mem, arch, reg->text_start, reg->jit_head, ip,
					 reg->jit_index, rule, fault);
	default:
		return -ENOENT;
	}
}

/*
 * Was @reg's section (SFrame, or .eh_frame_hdr with @eh_frame) removed
 * earlier in this walk (a kernel profile's lookup error)?
 */
static bool removed_in_walk(const struct emu_unwind_result *res, const struct emu_registration *reg,
			    bool eh_frame)
{
	for (unsigned int i = 0; i < res->nremovals; i++) {
		const struct emu_removal *rm = &res->removals[i];

		if (eh_frame ? rm->eh_frame_hdr_start == reg->eh_frame.hdr_start :
			       reg->unwind_kind == EMU_UNWIND_SFRAME &&
			       !rm->eh_frame_hdr_start && rm->sframe_start == reg->sframe_start)
			return true;
	}
	return false;
}

/*
 * @reg's SFrame rule for @ip: from the copy (emulator; a file-backed
 * section's blocks, with why a lookup failed), as the v16 kernel reads the
 * section in the process, or (v13) from the copy unless the bytes the lookup
 * reads changed since registration.
 */
static int sframe_rule(const struct emu_registration *reg, uint64_t ip, const struct walk *w,
		       const struct emu_unwind_opts *o, struct emu_unwind_rule *rule,
		       struct emu_verdict *why)
{
	const struct emu_sframe_params p = {
		.sframe_addr = reg->sframe_start, .text_start = reg->text_start,
		.text_end = reg->text_end, .arch = o->arch, .profile = o->profile,
	};
	const struct emu_verdict *fault;
	int err;

	if (o->profile == EMU_PROFILE_V16)
		return emu_ksframe_find(&reg->ksframe, w->mem, w->arch, ip, rule, why);
	if (o->profile == EMU_PROFILE_V13)
		return emu_sframe_find_rule_live(reg->sframe, &p, w->mem, ip, rule, why);
	err = emu_sframe_find_rule(reg->sframe, ip, rule);
	fault = err == -EFAULT ? emu_sframe_file_fault(reg->sframe) : NULL;
	if (fault)
		*why = *fault;
	return err;
}

/*
 * A lookup in @reg failed for broken or unreadable data: noted; in a kernel
 * profile the registration is removed, v13 only for what its lookup calls
 * EFAULT (a function outside the text is EINVAL there: codectl-abi.md,
 * "Lifecycle and unwind-time failures"). An .eh_frame registration
 * (@eh_frame) is removed in every profile: its one series does so, and the
 * emulator keeps no copy of it to go on with; so is a section read from a
 * file (CODE_REGISTER_SFRAME_FILE), whose FREs are checked when first read.
 */
static void lookup_failed(const struct emu_registration *reg, bool eh_frame,
			  const struct emu_verdict *why, enum emu_profile profile,
			  struct emu_unwind_result *res)
{
	struct emu_removal *rm = &res->removals[res->nremovals];
	bool from_file = reg->sframe && emu_sframe_is_file(reg->sframe);

	if (!res->corrupt) {
		res->corrupt = true;
		res->corrupt_text_start = reg->text_start;
	}
	if ((!eh_frame && !emu_profile_is_kernel(profile) && !from_file) ||
	    (!eh_frame && reg->unwind_kind != EMU_UNWIND_SFRAME) ||
	    (profile == EMU_PROFILE_V13 && why->rule == EMU_R_SF_FDE_TEXT) ||
	    res->nremovals == EMU_UNWIND_MAX_REMOVALS)
		return;
	rm->text_start = reg->text_start;
	rm->sframe_start = eh_frame ? 0 : reg->sframe_start;
	rm->eh_frame_hdr_start = eh_frame ? reg->eh_frame.hdr_start : 0;
	rm->rule = why->rule;
	memcpy(rm->reason, why->reason, sizeof(rm->reason));
	res->nremovals++;
}

/*
 * The .eh_frame rule for @ip (eh_frame_find()): 0, or a lookup that failed:
 * "unsupported" (EOPNOTSUPP) and "no FDE" keep the registration, any other
 * error is a broken one (lookup_failed()).
 */
static int eh_frame_rule(const struct emu_registry *r, const struct walk *w, uint64_t ip,
			 const struct emu_unwind_opts *o, struct emu_unwind_rule *rule,
			 struct emu_unwind_result *res)
{
	const struct emu_registration *reg = emu_registry_find_eh_frame(r, ip);
	struct emu_verdict why;
	int err;

	if (!reg || removed_in_walk(res, reg, true))
		return -ENOENT;
	emu_verdict_init(&why);
	err = emu_eh_frame_find(&reg->eh_frame, w->mem, w->arch, ip, rule, &why);
	if (err == -EOPNOTSUPP) {
		if (!res->nunsupported++)
			res->unsupported_rule = why.rule;
	} else if (err && err != -ENOENT) {
		lookup_failed(reg, true, &why, o->profile, res);
	}
	return err;
}

/* The rule for the current frame and its source (FP when no data); or a stop. */
static int frame_rule(const struct emu_registry *r, const struct walk *w,
		      const struct emu_unwind_opts *o, struct emu_unwind_rule *rule, uint8_t *src,
		      struct emu_unwind_result *res)
{
	uint64_t ip = w->exact || o->lookup_ra ? w->ip : w->ip - 1;
	const struct emu_registration *reg = NULL;
	enum emu_jit_fault fault;
	struct emu_verdict why;
	int err;

	if (o->tables != EMU_TABLES_EH_FRAME)
		reg = emu_registry_find_unwind(r, ip);
	if (reg && reg->origin == EMU_ORIGIN_SYNTHESIZED && o->tables == EMU_TABLES_SFRAME)
		reg = NULL;
	if (!reg || removed_in_walk(res, reg, false))
		goto fallback;
	emu_verdict_init(&why);
	if (reg->unwind_kind == EMU_UNWIND_SFRAME)
		err = sframe_rule(reg, ip, w, o, rule, &why);
	else
		err = emu_registration_rule(reg, ip, w->mem, w->arch, rule, &fault);
	*src = reg->unwind_kind == EMU_UNWIND_JIT ? EMU_SRC_JIT :
	       reg->origin == EMU_ORIGIN_SYNTHESIZED ? EMU_SRC_SYNTHESIZED : EMU_SRC_SFRAME;
	if (!err)
		return 0;
	if (err == -EINVAL && reg->unwind_kind == EMU_UNWIND_JIT) {
		res->jit_fault = fault;
		return EMU_STOP_JIT_INVALID;
	}
	if (err != -ENOENT)
		lookup_failed(reg, false, &why, o->profile, res);
fallback:
	*src = EMU_SRC_EH_FRAME;
	if ((o->tables == EMU_TABLES_ALL || o->tables == EMU_TABLES_EH_FRAME) &&
	    !eh_frame_rule(r, w, ip, o, rule, res))
		return 0;
	*rule = fp_rule;
	*src = EMU_SRC_FP;
	return 0;
}

/*
 * A v3 SFrame FDE with the signal bit for the function at @w's IP itself (a
 * return address points at a trampoline's first byte: the RA - 1 lookup
 * finds the function before it). Only v3 sections have the bit; the v16
 * kernel ignores it.
 */
static bool signal_fde_at(const struct emu_registry *r, const struct walk *w)
{
	const struct emu_registration *reg = emu_registry_find_unwind(r, w->ip);
	struct emu_unwind_rule rule;

	return !w->v16 && reg && reg->unwind_kind == EMU_UNWIND_SFRAME && reg->sframe &&
	       emu_sframe_header(reg->sframe)->version >= 3 &&
	       !emu_sframe_find_rule(reg->sframe, w->ip, &rule) && rule.signal_frame;
}

static bool at_trampoline(const struct emu_registry *r, const struct walk *w)
{
	return emu_sigreturn_at(w->mem, w->arch, w->ip, w->exact) || signal_fde_at(r, w);
}

/* A frame-pointer step must find its frame on the thread's own stack, when known. */
static bool off_stack(const struct walk *w, const struct emu_unwind_opts *o)
{
	return o->stack_hi && (w->fp < o->stack_lo || w->fp > o->stack_hi - 16);
}

static int rule_stop(struct walk *w, const struct emu_unwind_opts *o,
		     const struct emu_unwind_rule *rule, uint8_t src, uint64_t *ra)
{
	int stop;

	if (rule->outermost)
		return EMU_STOP_OUTERMOST;
	if (src == EMU_SRC_FP && off_stack(w, o) && w->fp >= w->sp)
		return EMU_STOP_LEFT_STACK;
	stop = step(w, rule, ra);
	if (!stop && !*ra)
		return EMU_STOP_RA_ZERO;
	return stop;
}

/*
 * Is the frame at @w a signal trampoline? A v3 signal FDE found by the
 * lookup says so; otherwise its code is read only where a trampoline can
 * be: where no unwind data describes the code (a trampoline is not given
 * an SFrame FDE but a v3 signal one), or at a return address just past the
 * function its lookup found (the kernel's return address is the restorer's
 * first byte: the RA - 1 lookup lands in the function before it).
 */
static bool trampoline(const struct emu_registry *r, const struct walk *w,
		       const struct emu_unwind_rule *rule, uint8_t src)
{
	if (rule->signal_frame)
		return true;
	if (src != EMU_SRC_FP && (w->exact || rule->code_end != w->ip))
		return false;
	return at_trampoline(r, w);
}

/*
 * The step from the frame at @w: through the signal frame when it is a
 * trampoline (*@tramp), or by the frame's rule. *@src says which.
 */
static int next_frame(const struct emu_registry *r, struct walk *w,
		      const struct emu_unwind_opts *o, bool *tramp, uint64_t *ra, uint8_t *src,
		      struct emu_unwind_result *res)
{
	struct emu_unwind_rule rule;
	int stop;

	*tramp = false;
	w->ra_below_sp = false;
	stop = frame_rule(r, w, o, &rule, src, res);
	if (stop)
		return stop;
	*tramp = trampoline(r, w, &rule, *src);
	if (!*tramp) {
		res->rule = rule;
		return rule_stop(w, o, &rule, *src, ra);
	}
	*src = EMU_SRC_SIGNAL;
	if (!o->signal_frames || !w->arch->sigframe)
		return EMU_STOP_SIGNAL_FRAME;
	stop = signal_step(w, ra);
	return !stop && !*ra ? EMU_STOP_RA_ZERO : stop;
}

static void walk(const struct emu_registry *r, struct walk *w, const struct emu_unwind_opts *o,
		 struct emu_frame *frames, struct emu_unwind_result *res)
{
	uint64_t ra = 0;
	uint8_t src = EMU_SRC_REGS;
	bool tramp;
	int stop;

	frames[res->nframes++] = (struct emu_frame){ w->ip, EMU_SRC_REGS, EMU_FRAME_EXACT };
	for (;;) {
		if (res->nframes >= o->max_frames) {
			res->stop = EMU_STOP_MAX_FRAMES;
			return;
		}
		stop = next_frame(r, w, o, &tramp, &ra, &src, res);
		if (tramp)
			frames[res->nframes - 1].flags |= EMU_FRAME_TRAMPOLINE | EMU_FRAME_EXACT;
		if (stop) {
			res->stop = stop;
			res->stop_source = src;
			return;
		}
		frames[res->nframes++] = (struct emu_frame){
			ra, src, (src == EMU_SRC_SIGNAL ? EMU_FRAME_EXACT : 0) |
				 (w->ra_below_sp ? EMU_FRAME_RA_BELOW_SP : 0),
		};
	}
}

int emu_unwind(const struct emu_registry *r, const struct emu_accessor *mem,
	       const struct emu_regs *regs, const struct emu_unwind_opts *o,
	       struct emu_frame *frames, struct emu_unwind_result *res)
{
	struct walk w = {
		.arch = emu_arch_get(o->arch), .mem = mem, .ip = regs->ip, .sp = regs->sp,
		.fp = regs->fp, .gpr_valid = regs->gpr_valid, .exact = true, .topmost = true,
		.v16 = o->profile == EMU_PROFILE_V16,
	};

	*res = (struct emu_unwind_result){ .stop_source = EMU_SRC_REGS };
	if (!w.arch || !o->max_frames)
		return -EINVAL;
	memcpy(w.gpr, regs->gpr, sizeof(w.gpr));
	walk(r, &w, o, frames, res);
	return 0;
}

static const char *const stop_names[EMU_STOP_COUNT] = {
#define EMU_STOP_ROW(id, name, what) [EMU_STOP_##id] = name,
	EMU_STOPS(EMU_STOP_ROW)
#undef EMU_STOP_ROW
};

const char *emu_stop_name(enum emu_stop stop)
{
	if ((unsigned int)stop >= EMU_STOP_COUNT || !stop_names[stop])
		return "unknown";
	return stop_names[stop];
}

const char *emu_stop_reason(const struct emu_unwind_result *res)
{
	if (res->stop == EMU_STOP_JIT_INVALID)
		return emu_jit_fault_reason(res->jit_fault);
	return emu_stop_name(res->stop);
}

const char *emu_source_name(enum emu_frame_source src)
{
	static const char *const names[] = { "regs", "sframe", "jit", "fp", "signal", "eh_frame",
					      "synthesized" };

	if ((unsigned int)src >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[src];
}
