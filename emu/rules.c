// SPDX-License-Identifier: GPL-2.0
/* The table of refusal rules and their errno (codectl-abi.md, "Errors"). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"

static const struct {
	const char *name;
	int err;
} rule_table[EMU_R_COUNT] = {
	[EMU_R_OK] = { "ok", 0 },
	[EMU_R_FLAGS] = { "flags", EINVAL },
	[EMU_R_OPTION] = { "option", EINVAL },
	[EMU_R_SIZE_VER0] = { "size-below-ver0", EINVAL },
	[EMU_R_SIZE_PAGE] = { "size-above-page", E2BIG },
	[EMU_R_SIZE_TAIL] = { "size-nonzero-tail", E2BIG },
	[EMU_R_INFO_FAULT] = { "info-fault", EFAULT },
	[EMU_R_UNREG_SIZE] = { "unregister-size", EINVAL },
	[EMU_R_UNREG_UNKNOWN] = { "unregister-unknown", ENOENT },
	[EMU_R_TEXT_RANGE] = { "text-range", EINVAL },
	[EMU_R_SFRAME_RANGE] = { "sframe-range", EINVAL },
	[EMU_R_BUILD_ID_LEN] = { "build-id-len", EINVAL },
	[EMU_R_BUILD_ID_NULL] = { "build-id-null", EINVAL },
	[EMU_R_NO_ASPECT] = { "no-aspect", EINVAL },
	[EMU_R_TEXT_NOT_EXEC] = { "text-not-exec", EINVAL },
	[EMU_R_SFRAME_NOT_READABLE] = { "sframe-not-readable", EINVAL },
	[EMU_R_PATH_FAULT] = { "path-fault", EFAULT },
	[EMU_R_PATH_TOO_LONG] = { "path-too-long", ENAMETOOLONG },
	[EMU_R_BUILD_ID_FAULT] = { "build-id-fault", EFAULT },
	[EMU_R_SFRAME_FAULT] = { "sframe-fault", EFAULT },
	[EMU_R_SFRAME_TOO_BIG] = { "sframe-too-big", ENOMEM },
	[EMU_R_SFRAME_BUDGET] = { "sframe-budget", ENOMEM },
	[EMU_R_NOMEM] = { "nomem", ENOMEM },
	[EMU_R_JIT_HEAD_FAULT] = { "jit-head-fault", EFAULT },
	[EMU_R_JIT_HEAD_ALIGN] = { "jit-head-align", EINVAL },
	[EMU_R_JIT_USED_LEN] = { "jit-used-len", EINVAL },
	[EMU_R_JIT_FRE_SIZE] = { "jit-fre-size", EINVAL },
	[EMU_R_JIT_FRE_STRIDE] = { "jit-fre-stride", EINVAL },
	[EMU_R_KERNEL_REFUSES] = { "kernel-refuses", EINVAL },
	[EMU_R_OVERLAP] = { "overlap", EEXIST },
	[EMU_R_LIMIT] = { "limit", ENOSPC },
	[EMU_R_SF_SHORT] = { "sframe-short", EINVAL },
	[EMU_R_SF_MAGIC] = { "sframe-magic", EINVAL },
	[EMU_R_SF_VERSION] = { "sframe-version", EINVAL },
	[EMU_R_SF_ABI] = { "sframe-abi", EINVAL },
	[EMU_R_SF_FLAGS] = { "sframe-flags", EINVAL },
	[EMU_R_SF_BOUNDS] = { "sframe-bounds", EINVAL },
	[EMU_R_SF_NOT_SORTED] = { "sframe-not-sorted", EINVAL },
	[EMU_R_SF_FDE_ORDER] = { "sframe-fde-order", EINVAL },
	[EMU_R_SF_FDE_FRES] = { "sframe-fde-fres", EINVAL },
	[EMU_R_SF_FDE_TEXT] = { "sframe-fde-text", EINVAL },
	[EMU_R_SF_FDE_TYPE] = { "sframe-fde-type", EINVAL },
	[EMU_R_SF_REP_SIZE] = { "sframe-rep-size", EINVAL },
	[EMU_R_SF_FRE_ADDR_SIZE] = { "sframe-fre-addr-size", EINVAL },
	[EMU_R_SF_FRE_ORDER] = { "sframe-fre-order", EINVAL },
	[EMU_R_SF_FRE_OUTSIDE] = { "sframe-fre-outside", EINVAL },
	[EMU_R_SF_FRE_OFFSET_SIZE] = { "sframe-fre-offset-size", EINVAL },
	[EMU_R_SF_FRE_OFFSET_COUNT] = { "sframe-fre-offset-count", EINVAL },
	[EMU_R_SF_FLEX_CONTROL] = { "sframe-flex-control", EINVAL },
};

static const char *const kernel_rule_text[EMU_KR_COUNT] = {
	"version 2 with FDE_FUNC_START_PCREL (v12) or version 3 (v13+)",
	"the FDE_FUNC_START_PCREL flag",
	"auxhdr_len 0",
	"at least one FDE",
	"at least one FRE",
	"the section in one mapping",
	"the text in one executable mapping",
};

int emu_rule_errno(enum emu_rule rule)
{
	if ((unsigned int)rule >= EMU_R_COUNT)
		return EINVAL;
	return rule_table[rule].err;
}

const char *emu_rule_name(enum emu_rule rule)
{
	if ((unsigned int)rule >= EMU_R_COUNT)
		return "unknown";
	return rule_table[rule].name;
}

const char *emu_kernel_rule_text(uint32_t bit)
{
	unsigned int i;

	for (i = 0; i < EMU_KR_COUNT; i++)
		if (bit == 1u << i)
			return kernel_rule_text[i];
	return "unknown";
}

void emu_verdict_init(struct emu_verdict *v)
{
	v->rule = EMU_R_OK;
	v->kernel_refusals = 0;
	v->reason[0] = '\0';
}

int emu_reject(struct emu_verdict *v, enum emu_rule rule, const char *fmt, ...)
{
	va_list ap;

	v->rule = rule;
	va_start(ap, fmt);
	vsnprintf(v->reason, sizeof(v->reason), fmt, ap);
	va_end(ap);
	return -emu_rule_errno(rule);
}

int emu_kernel_rules_apply(struct emu_verdict *v, int strict)
{
	uint32_t bit;

	if (!strict || !v->kernel_refusals)
		return 0;
	bit = v->kernel_refusals & -v->kernel_refusals;
	return emu_reject(v, EMU_R_KERNEL_REFUSES, "strict: the kernel patches require %s",
			  emu_kernel_rule_text(bit));
}
