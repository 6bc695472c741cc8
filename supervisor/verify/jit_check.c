// SPDX-License-Identifier: GPL-2.0
/* A JIT function's table entries held to its code (see jit_check.h). */
#include <errno.h>

#include "emu/jit.h"
#include "jit_check.h"

/* The entry covering @addr, by emu's own lookup (the unwinder's), as a verify lookup. */
static int entry_at(void *ctx, uint64_t addr, struct verify_lookup *out)
{
	const struct verify_jit *j = ctx;
	struct emu_unwind_rule rule;
	enum emu_jit_fault fault;
	int err = emu_jit_find_rule(j->mem, j->arch, j->text_start, j->head, addr, NULL, &rule,
				    &fault);

	if (err)
		return err;
	*out = (struct verify_lookup){ .num_rows = 1, .func_start = rule.code_start,
				       .func_size = rule.code_end - rule.code_start,
				       .jit = true, .have_rule = true, .rule = rule };
	return 0;
}

int verify_jit_run_around(const struct verify_jit *j, uint64_t ip, uint64_t *start,
			  uint64_t *end)
{
	struct verify_lookup e;
	int err = entry_at((void *)j, ip, &e);

	if (err)
		return err;
	*start = e.func_start;
	*end = e.func_start + e.func_size;
	for (unsigned int n = 0; n < VERIFY_JIT_MAX_RUN && *start > j->text_start &&
	     !entry_at((void *)j, *start - 1, &e) && e.func_start < *start; n++)
		*start = e.func_start;
	for (unsigned int n = 0; n < VERIFY_JIT_MAX_RUN && *end < j->text_end &&
	     !entry_at((void *)j, *end, &e) && e.func_start == *end; n++)
		*end = e.func_start + e.func_size;
	return 0;
}

int verify_jit_check(const struct verify_jit *j, uint64_t start, uint64_t end, const char *name,
		     struct verify_result *out)
{
	struct emu_mappings text = { 0 };
	struct verify_target t = { .lookup = entry_at, .lookup_ctx = (void *)j, .mem = j->mem,
				   .text = &text };
	struct verify_lookup e;
	uint64_t a;
	int err;

	if (start < j->text_start || end > j->text_end || start >= end)
		return -EINVAL;
	err = emu_mappings_add(&text, j->text_start, j->text_end, EMU_PROT_EXEC);
	if (!err)
		err = verify_function(&t, start, end, name, out);
	emu_mappings_free(&text);
	for (a = start; !err && a < end && !entry_at((void *)j, a, &e); a = e.func_start + e.func_size)
		out->st.rows++;
	return err;
}
