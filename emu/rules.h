/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a codectl(2) call is refused: one rule per row of the ABI page's error
 * table and per "invalid SFrame section" rule, each with its errno. The errno
 * of an answer comes only from this table (codectl-abi.md, "Errors").
 */
#ifndef EMU_RULES_H
#define EMU_RULES_H

#include <stdint.h>

enum emu_rule {
	EMU_R_OK = 0,
	/* the call */
	EMU_R_FLAGS,			/* EINVAL: flags != 0 */
	EMU_R_OPTION,			/* EINVAL: unknown option */
	EMU_R_SIZE_VER0,		/* EINVAL: info_size below the option's VER0 size */
	EMU_R_SIZE_PAGE,		/* E2BIG: info_size above 4096 */
	EMU_R_SIZE_TAIL,		/* E2BIG: non-zero bytes past the known struct */
	EMU_R_INFO_FAULT,		/* EFAULT: info unreadable */
	EMU_R_UNREG_SIZE,		/* EINVAL: UNREGISTER with info_size != 0 */
	EMU_R_UNREG_UNKNOWN,		/* ENOENT: no registration at that text_start */
	/* the struct's fields */
	EMU_R_TEXT_RANGE,		/* EINVAL: text_start >= text_end */
	EMU_R_SFRAME_RANGE,		/* EINVAL: sframe_start > sframe_end, or one of them 0 */
	EMU_R_BUILD_ID_LEN,		/* EINVAL: build_id_len > CODE_BUILD_ID_MAX */
	EMU_R_BUILD_ID_NULL,		/* EINVAL: build_id_len > 0 with build_id 0 */
	EMU_R_NO_ASPECT,		/* EINVAL: neither unwind nor identity aspect */
	EMU_R_TEXT_NOT_EXEC,		/* EINVAL: text not wholly in executable mappings */
	EMU_R_SFRAME_NOT_READABLE,	/* EINVAL: sframe not wholly in readable mappings */
	EMU_R_PATH_FAULT,		/* EFAULT: pathname or debug link unreadable */
	EMU_R_PATH_TOO_LONG,		/* ENAMETOOLONG: no NUL within PATH_MAX bytes */
	EMU_R_BUILD_ID_FAULT,		/* EFAULT: build id unreadable */
	EMU_R_SFRAME_FAULT,		/* EFAULT: sframe bytes unreadable */
	EMU_R_SFRAME_TOO_BIG,		/* ENOMEM: section above the emulator's size cap */
	EMU_R_SFRAME_BUDGET,		/* ENOMEM: the address space's sections above their budget */
	EMU_R_NOMEM,			/* ENOMEM: the emulator ran out of memory */
	EMU_R_JIT_HEAD_FAULT,		/* EFAULT: JIT table header unreadable */
	EMU_R_JIT_HEAD_ALIGN,		/* EINVAL: JIT table header not 8-byte aligned */
	EMU_R_JIT_USED_LEN,		/* EINVAL: used_len > reserved_len */
	EMU_R_JIT_FRE_SIZE,		/* EINVAL: fre_size < CODE_JIT_FRE_SIZE_VER0 */
	EMU_R_JIT_FRE_STRIDE,		/* EINVAL: fre_stride < fre_size or not a multiple of 4 */
	EMU_R_KERNEL_REFUSES,		/* EINVAL: strict profile, a kernel-patch acceptance rule */
	/* the registry */
	EMU_R_OVERLAP,			/* EEXIST: overlaps a registration with the same aspect */
	EMU_R_LIMIT,			/* ENOSPC: per-process registration limit reached */
	/* the SFrame section (all EINVAL) */
	EMU_R_SF_SHORT,			/* shorter than the SFrame header */
	EMU_R_SF_MAGIC,			/* magic not 0xdee2 */
	EMU_R_SF_VERSION,		/* version not 1, 2 or 3 */
	EMU_R_SF_ABI,			/* ABI/arch not the caller's */
	EMU_R_SF_FLAGS,			/* undefined flag bits */
	EMU_R_SF_BOUNDS,		/* header offsets or counts outside the section */
	EMU_R_SF_NOT_SORTED,		/* FDE_SORTED flag missing */
	EMU_R_SF_FDE_ORDER,		/* FDE start addresses not increasing */
	EMU_R_SF_FDE_FRES,		/* an FDE's FREs outside the FRE sub-section */
	EMU_R_SF_FDE_TEXT,		/* an FDE's function outside the text range */
	EMU_R_SF_FDE_TYPE,		/* v3: unknown FDE type */
	EMU_R_SF_REP_SIZE,		/* PCMASK FDE with repetition size 0 */
	EMU_R_SF_FRE_ADDR_SIZE,		/* invalid FRE start-address size */
	EMU_R_SF_FRE_ORDER,		/* FRE starts not strictly increasing */
	EMU_R_SF_FRE_OUTSIDE,		/* FRE start outside the function */
	EMU_R_SF_FRE_OFFSET_SIZE,	/* invalid FRE offset size */
	EMU_R_SF_FRE_OFFSET_COUNT,	/* invalid FRE offset count */
	EMU_R_SF_FLEX_CONTROL,		/* v3 FLEX: invalid control word */
	EMU_R_COUNT
};

/*
 * Acceptance rules of the Linux SFrame patch series (v12/v13) that the ABI
 * itself does not require. Default profile: logged as warnings. Strict
 * profile: each refuses the registration (EMU_R_KERNEL_REFUSES).
 */
enum emu_kernel_rule {
	EMU_KR_VERSION = 1u << 0,	/* v1: the kernel takes v2+PCREL (v12) or v3 (v13+) */
	EMU_KR_PCREL = 1u << 1,		/* FDE_FUNC_START_PCREL flag missing */
	EMU_KR_AUXHDR = 1u << 2,	/* auxhdr_len != 0 */
	EMU_KR_NO_FDES = 1u << 3,	/* num_fdes == 0 */
	EMU_KR_NO_FRES = 1u << 4,	/* num_fres == 0 */
	EMU_KR_SFRAME_VMAS = 1u << 5,	/* section spans more than one mapping */
	EMU_KR_TEXT_VMAS = 1u << 6,	/* text spans more than one mapping */
};
#define EMU_KR_COUNT 7

#define EMU_REASON_MAX 200

/**
 * struct emu_verdict - the outcome of one check, for the log
 * @rule: EMU_R_OK, or the rule that refused
 * @kernel_refusals: EMU_KR_* bits of the kernel-patch rules the input breaks
 * @reason: human reason ("FDE 3: function 0x4011a0..0x4011f0 outside text range")
 */
struct emu_verdict {
	enum emu_rule rule;
	uint32_t kernel_refusals;
	char reason[EMU_REASON_MAX];
};

/** emu_rule_errno() - the positive errno a call refused by @rule answers with. */
int emu_rule_errno(enum emu_rule rule);

/** emu_rule_name() - a short stable name of @rule ("sframe-fde-text"). */
const char *emu_rule_name(enum emu_rule rule);

/** emu_kernel_rule_text() - what the kernel patches require, for one EMU_KR_* bit. */
const char *emu_kernel_rule_text(uint32_t bit);

/**
 * emu_reject() - record that @rule refused, with a printf-style reason
 * Return: the negative errno of @rule, for `return emu_reject(...)`.
 */
int emu_reject(struct emu_verdict *v, enum emu_rule rule, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** emu_verdict_init() - clear @v before a check. */
void emu_verdict_init(struct emu_verdict *v);

/**
 * emu_kernel_rules_apply() - in the strict profile, refuse what the kernel would
 * @strict: true for the strict profile
 * Return: 0 (default profile, or no kernel rule broken), or -EINVAL with @v
 * set to EMU_R_KERNEL_REFUSES naming the first broken rule.
 */
int emu_kernel_rules_apply(struct emu_verdict *v, int strict);

#endif /* EMU_RULES_H */
