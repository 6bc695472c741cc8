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
#define EMU_RULE_ROW(id, name, err, what) [EMU_R_##id] = { name, err },
	EMU_RULES(EMU_RULE_ROW)
#undef EMU_RULE_ROW
};

static const char *const kernel_rule_text[EMU_KR_COUNT] = {
	"version 2 with FDE_FUNC_START_PCREL (v12) or version 3 (v13+)",
	"the FDE_FUNC_START_PCREL flag",
	"auxhdr_len 0",
	"at least one FDE",
	"at least one FRE",
	"the section in one mapping",
	"the text in one executable mapping",
	"version 3 (the v15/v16 series)",
};

static const char *const profile_names[EMU_PROFILE_COUNT] = {
	[EMU_PROFILE_EMULATOR] = "emulator",
	[EMU_PROFILE_V16] = "v16",
	[EMU_PROFILE_V13] = "v13",
};

const char *emu_profile_name(enum emu_profile profile)
{
	if ((unsigned int)profile >= EMU_PROFILE_COUNT)
		return "unknown";
	return profile_names[profile];
}

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

int emu_answer(const struct emu_verdict *v, int err)
{
	int want = v->rule ? -emu_rule_errno(v->rule) : 0;

	if (err != want)
		fprintf(stderr, "emu: internal error: answer %d for rule %s (errno %d): %s\n", err,
			emu_rule_name(v->rule), want, v->reason);
	if (!want && err)
		return err;	/* no rule to answer with: the check's own error */
	return want;
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

uint32_t emu_kernel_rules_of(enum emu_profile profile)
{
	uint32_t all = (1u << EMU_KR_COUNT) - 1;

	if (profile == EMU_PROFILE_V16)
		return all & ~EMU_KR_VERSION;
	if (profile == EMU_PROFILE_V13)
		return all & ~EMU_KR_V3_ONLY;
	return 0;
}

int emu_kernel_rules_apply(struct emu_verdict *v, enum emu_profile profile)
{
	uint32_t broken = v->kernel_refusals & emu_kernel_rules_of(profile), bit;

	if (!broken)
		return 0;
	bit = broken & EMU_KR_V3_ONLY ? EMU_KR_V3_ONLY : broken & -broken;
	return emu_reject(v, EMU_R_KERNEL_REFUSES, "%s: the kernel requires %s",
			  emu_profile_name(profile), emu_kernel_rule_text(bit));
}
