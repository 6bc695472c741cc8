/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Why a codectl(2) call is refused: one rule per row of the ABI page's error
 * table and per "invalid SFrame section" rule, each with its errno. The errno
 * of an answer comes only from this table (codectl-abi.md, "Errors").
 */
#ifndef EMU_RULES_H
#define EMU_RULES_H

#include <stdint.h>

#include "profile.h"

/*
 * Every rule, in one table (an X-macro, as elfutils keeps its error list):
 * X(ID, name, errno, what). enum emu_rule (EMU_R_<ID>), the stable names
 * (emu_rule_name()) and the errnos (emu_rule_errno()) are all made from it;
 * a new rule is one line here, then a test, a man-page row and an ABI case
 * (docs/HACKING.md).
 */
#define EMU_RULES(X) \
	X(OK, "ok", 0, "accepted") \
	/* the call */ \
	X(FLAGS, "flags", EINVAL, "flags != 0") \
	X(OPTION, "option", EINVAL, "unknown option") \
	X(SIZE_VER0, "size-below-ver0", EINVAL, "info_size below the option's VER0 size") \
	X(SIZE_PAGE, "size-above-page", E2BIG, "info_size above 4096") \
	X(SIZE_TAIL, "size-nonzero-tail", E2BIG, "non-zero bytes past the known struct") \
	X(INFO_FAULT, "info-fault", EFAULT, "info unreadable") \
	X(UNREG_SIZE, "unregister-size", EINVAL, "UNREGISTER with info_size != 0") \
	X(UNREG_UNKNOWN, "unregister-unknown", ENOENT, "no registration at that text_start") \
	/* the struct's fields */ \
	X(TEXT_RANGE, "text-range", EINVAL, "text_start >= text_end") \
	X(SFRAME_RANGE, "sframe-range", EINVAL, "sframe_start > sframe_end, or one of them 0") \
	X(BUILD_ID_LEN, "build-id-len", EINVAL, "build_id_len > CODE_BUILD_ID_MAX") \
	X(BUILD_ID_NULL, "build-id-null", EINVAL, "build_id_len > 0 with build_id 0") \
	X(NO_ASPECT, "no-aspect", EINVAL, "neither unwind nor identity aspect") \
	X(TEXT_NOT_EXEC, "text-not-exec", EINVAL, "text not wholly in executable mappings") \
	X(SFRAME_NOT_READABLE, "sframe-not-readable", EINVAL, \
	  "sframe not wholly in readable mappings") \
	X(PATH_FAULT, "path-fault", EFAULT, "pathname or debug link unreadable") \
	X(PATH_TOO_LONG, "path-too-long", ENAMETOOLONG, "no NUL within PATH_MAX bytes") \
	X(BUILD_ID_FAULT, "build-id-fault", EFAULT, "build id unreadable") \
	X(SFRAME_FAULT, "sframe-fault", EFAULT, "sframe bytes unreadable") \
	X(SFRAME_TOO_BIG, "sframe-too-big", ENOMEM, "section above the emulator's size cap") \
	X(SFRAME_BUDGET, "sframe-budget", ENOMEM, \
	  "the address space's sections above their budget") \
	X(NOMEM, "nomem", ENOMEM, "the emulator ran out of memory") \
	X(EMULATOR_FAILURE, "emulator-failure", EAGAIN, \
	  "the emulator could not read the caller's mappings or memory for a reason of its own") \
	X(JIT_HEAD_FAULT, "jit-head-fault", EFAULT, "JIT table header unreadable") \
	X(JIT_HEAD_ALIGN, "jit-head-align", EINVAL, "JIT table header not 8-byte aligned") \
	X(JIT_USED_LEN, "jit-used-len", EINVAL, "used_len > reserved_len") \
	X(JIT_FRE_SIZE, "jit-fre-size", EINVAL, "fre_size < CODE_JIT_FRE_SIZE_VER0") \
	X(JIT_FRE_STRIDE, "jit-fre-stride", EINVAL, "fre_stride < fre_size or not a multiple of 4") \
	X(KERNEL_REFUSES, "kernel-refuses", EINVAL, "kernel profile, one of its acceptance rules") \
	/* CODE_REGISTER_SFRAME_FILE: the file and its data */ \
	X(FILE_FLAGS, "file-flags", EINVAL, "CODE_REGISTER_SFRAME_FILE with flags != 0") \
	X(FILE_COMPRESSION, "file-compression", EINVAL, "compression not NONE, ZLIB or ZSTD") \
	X(FILE_SIZES, "file-sizes", EINVAL, \
	  "length 0, size other than length without compression, or offset + length wraps") \
	X(FILE_FD, "file-fd", EBADF, "fd not open in the caller, or not open for reading") \
	X(FILE_NOT_REGULAR, "file-not-regular", EINVAL, "fd not a regular file") \
	X(FILE_MAY_BLOCK, "file-may-block", EOPNOTSUPP, \
	  "the file on a filesystem whose reads can wait on a process (FUSE, network)") \
	X(FILE_RANGE, "file-range", EINVAL, "offset + length past the file's end") \
	X(FILE_READ, "file-read", EIO, "the file's data could not be read") \
	X(FILE_BLOCKS, "file-blocks", EINVAL, \
	  "compressed data: a bad header or block index, or a block that does not " \
	  "decompress to its size") \
	X(BUILD_ID_MISMATCH, "build-id-mismatch", EINVAL, \
	  "the text's object has another build id, or none") \
	/* the registry */ \
	X(OVERLAP, "overlap", EEXIST, "overlaps a registration with the same aspect") \
	X(LIMIT, "limit", ENOSPC, "per-process registration limit reached") \
	/* sframe_register(2), sframe_unregister(2), the v12 prctl, stacktrace_setup */ \
	X(SETUP_SIZE, "setup-size", EINVAL, "struct sframe_setup or eh_frame_setup size other than 32") \
	X(SETUP_FAULT, "setup-fault", EFAULT, "struct sframe_setup or eh_frame_setup unreadable") \
	X(SETUP_RANGE, "setup-range", EINVAL, "an empty section or text range, or one that wraps") \
	X(SETUP_SFRAME_VMA, "setup-sframe-vma", EINVAL, "the section not inside one mapping") \
	X(SETUP_TEXT_VMA, "setup-text-vma", EINVAL, \
	  "the text not inside one executable mapping") \
	X(SETUP_FDE_TEXT, "setup-fde-text", EFAULT, \
	  "an FDE's function outside the text range (v16's errno for it)") \
	X(SETUP_FDE_FRES, "setup-fde-fres", EFAULT, \
	  "an FDE's attribute record, an FRE or its data words past the FRE sub-section " \
	  "(v16's errno)") \
	X(SETUP_UNREG_FIELDS, "setup-unregister-fields", EINVAL, \
	  "sframe_unregister or eh_frame_unregister with a field other than the section's start non-zero") \
	X(SETUP_UNREG_UNKNOWN, "setup-unregister-unknown", EINVAL, \
	  "no registration with that sframe_start") \
	X(PRCTL_ARGS, "prctl-unused-args", EINVAL, "PR_REMOVE_SFRAME with arg3, arg4 or arg5 non-zero") \
	X(PRCTL_OPTION, "prctl-option", EINVAL, "a prctl option other than PR_ADD_SFRAME, PR_REMOVE_SFRAME") \
	X(STACKTRACE_OP, "stacktrace-op", EINVAL, "stacktrace_setup op other than 1 and 2") \
	/* eh_frame_register(2), eh_frame_unregister(2): the .eh_frame proposal */ \
	X(EHF_HDR_VMA, "eh-frame-hdr-vma", EINVAL, "the .eh_frame_hdr range not inside one mapping") \
	X(EHF_HDR_FAULT, "eh-frame-hdr-fault", EFAULT, ".eh_frame_hdr unreadable") \
	X(EHF_HDR_VERSION, "eh-frame-hdr-version", EINVAL, ".eh_frame_hdr version not 1") \
	X(EHF_HDR_NO_TABLE, "eh-frame-hdr-no-table", EINVAL, \
	  ".eh_frame_hdr without a binary-search table (FDE count or table encoding omitted)") \
	X(EHF_HDR_ENCODING, "eh-frame-hdr-encoding", EINVAL, \
	  "a header pointer in an encoding that cannot be read, or table entries of no fixed size") \
	X(EHF_HDR_TABLE, "eh-frame-hdr-table", EINVAL, "the search table runs past the header's end") \
	X(EHF_NO_EH_FRAME, "eh-frame-missing", EINVAL, "no mapping at the header's eh_frame_ptr") \
	X(EHF_ENCODING_UNSUPPORTED, "eh-frame-encoding-unsupported", EOPNOTSUPP, \
	  "a funcrel, aligned or indirect pointer encoding") \
	X(EHF_TABLE, "eh-frame-table", EINVAL, \
	  "search table: no entry, not sorted, an FDE before .eh_frame or of another function") \
	X(EHF_CIE, "eh-frame-cie", EINVAL, "a malformed CIE (length, id, factors, augmentation)") \
	X(EHF_CIE_UNSUPPORTED, "eh-frame-cie-unsupported", EOPNOTSUPP, \
	  "a CIE of version other than 1, an unknown augmentation, or an RA column not the arch's") \
	X(EHF_FDE, "eh-frame-fde", EINVAL, "a malformed FDE, or its function outside the text") \
	X(EHF_FAULT, "eh-frame-fault", EFAULT, \
	  ".eh_frame or the search table unreadable, or a record past .eh_frame's mapping") \
	X(EHF_CFI, "eh-frame-cfi", EINVAL, \
	  "CFI malformed, over the instruction limit, the state stack, or no CFA rule") \
	X(EHF_CFI_UNSUPPORTED, "eh-frame-cfi-unsupported", EOPNOTSUPP, \
	  "CFI the kernel does not interpret: an expression, a signal frame, an SP rule, " \
	  "an offset beyond 32 bits") \
	X(EHF_UNREG_UNKNOWN, "eh-frame-unregister-unknown", EINVAL, \
	  "no registration with that eh_frame_hdr_start") \
	/* the SFrame section */ \
	X(SF_SHORT, "sframe-short", EINVAL, "shorter than the SFrame header") \
	X(SF_MAGIC, "sframe-magic", EINVAL, "magic not 0xdee2") \
	X(SF_VERSION, "sframe-version", EINVAL, "version not 1, 2 or 3") \
	X(SF_ABI, "sframe-abi", EINVAL, "ABI/arch not the caller's") \
	X(SF_FLAGS, "sframe-flags", EINVAL, "undefined flag bits") \
	X(SF_BOUNDS, "sframe-bounds", EINVAL, "header offsets or counts outside the section") \
	X(SF_NOT_SORTED, "sframe-not-sorted", EINVAL, "FDE_SORTED flag missing") \
	X(SF_FDE_ORDER, "sframe-fde-order", EINVAL, "FDE start addresses not increasing") \
	X(SF_FDE_FRES, "sframe-fde-fres", EINVAL, "an FDE's FREs outside the FRE sub-section") \
	X(SF_FDE_TEXT, "sframe-fde-text", EINVAL, "an FDE's function outside the text range") \
	X(SF_FDE_NUM_FRES, "sframe-fde-num-fres", EINVAL, "v16: more FREs than the function has bytes") \
	X(SF_FDE_TYPE, "sframe-fde-type", EINVAL, "v3: unknown FDE type") \
	X(SF_REP_SIZE, "sframe-rep-size", EINVAL, "PCMASK FDE with repetition size 0") \
	X(SF_FRE_ADDR_SIZE, "sframe-fre-addr-size", EINVAL, "invalid FRE start-address size") \
	X(SF_FRE_ORDER, "sframe-fre-order", EINVAL, "FRE starts not strictly increasing") \
	X(SF_FRE_OUTSIDE, "sframe-fre-outside", EINVAL, "FRE start outside the function") \
	X(SF_FRE_OFFSET_SIZE, "sframe-fre-offset-size", EINVAL, "invalid FRE offset size") \
	X(SF_FRE_OFFSET_COUNT, "sframe-fre-offset-count", EINVAL, "invalid FRE offset count") \
	X(SF_FLEX_CONTROL, "sframe-flex-control", EINVAL, "v3 FLEX: invalid control word") \
	X(SF_NO_FRE, "sframe-no-fre", EINVAL, \
	  "v16 lookup: the FDE holding the address has no FRE at or below it")

enum emu_rule {
#define EMU_RULE_ID(id, name, err, what) EMU_R_##id,
	EMU_RULES(EMU_RULE_ID)
#undef EMU_RULE_ID
	EMU_R_COUNT
};

/*
 * Acceptance rules of the Linux SFrame patch series that the ABI itself does
 * not require. Emulator profile: noted. Kernel profiles: each refuses the
 * registration (EMU_R_KERNEL_REFUSES): v13 all but EMU_KR_V3_ONLY, v16 all
 * but EMU_KR_VERSION (which EMU_KR_V3_ONLY implies).
 */
enum emu_kernel_rule {
	EMU_KR_VERSION = 1u << 0,	/* v1: v13 takes v2+PCREL (as v12 did) or v3 */
	EMU_KR_PCREL = 1u << 1,		/* FDE_FUNC_START_PCREL flag missing */
	EMU_KR_AUXHDR = 1u << 2,	/* auxhdr_len != 0 */
	EMU_KR_NO_FDES = 1u << 3,	/* num_fdes == 0 */
	EMU_KR_NO_FRES = 1u << 4,	/* num_fres == 0 */
	EMU_KR_SFRAME_VMAS = 1u << 5,	/* section spans more than one mapping */
	EMU_KR_TEXT_VMAS = 1u << 6,	/* text spans more than one mapping */
	EMU_KR_V3_ONLY = 1u << 7,	/* not v3: the v15/v16 series take v3 only */
};
#define EMU_KR_COUNT 8

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

/**
 * emu_answer() - the answer to a checked call, built from @v alone: 0 when no
 * rule refused it, else the negative errno of @v's rule, whatever @err the
 * checks returned. An @err that does not match (a refusal without a rule, an
 * errno other than its rule's) is an emulator bug: it is printed on stderr,
 * as a kernel's WARN_ON would, and the rule's errno answered.
 */
int emu_answer(const struct emu_verdict *v, int err);

/** emu_verdict_init() - clear @v before a check. */
void emu_verdict_init(struct emu_verdict *v);

/** emu_kernel_rules_of() - the EMU_KR_* bits @profile enforces (0: the emulator's). */
uint32_t emu_kernel_rules_of(enum emu_profile profile);

/**
 * emu_kernel_rules_apply() - in a kernel profile, refuse what that kernel would
 * Return: 0 (emulator profile, or none of @profile's rules broken), or
 * -EINVAL with @v set to EMU_R_KERNEL_REFUSES naming the broken rule (v3
 * only first, then the lowest bit).
 */
int emu_kernel_rules_apply(struct emu_verdict *v, enum emu_profile profile);

#endif /* EMU_RULES_H */
