// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of stacktrace_setup(2)'s own rules (the April 2026 RFC): ops
 * 1 (register, lengths) and 2 (unregister by sframe_start, the other
 * arguments ignored); any other op is EINVAL; the op is an int.
 */
#include <stacktrace_setup.h>

#include "abi.h"

#define SEC_MAX 2048

static enum abi_result unknown_op(struct abi_ctx *ctx)
{
	uint64_t text = abi_text(ctx, 256);
	uint8_t *sec = abi_data(ctx, SEC_MAX);
	size_t len = abi_section(3, true, text, 4, 64, sec, SEC_MAX);

	EXPECT(ctx, abi_stacktrace_setup(ctx, 0, (uintptr_t)sec, len, text, 256), EINVAL);
	EXPECT(ctx, abi_stacktrace_setup(ctx, 3, (uintptr_t)sec, len, text, 256), EINVAL);
	EXPECT(ctx, abi_stacktrace_setup(ctx, -1, (uintptr_t)sec, len, text, 256), EINVAL);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)sec, len, text, 256), 0);	/* nothing registered */
	EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)sec), 0);
	return ABI_PASS;
}

static enum abi_result op_is_an_int(struct abi_ctx *ctx)
{
	uint64_t text = abi_text(ctx, 256);
	uint8_t *sec = abi_data(ctx, SEC_MAX);
	size_t len = abi_section(3, true, text, 4, 64, sec, SEC_MAX);

	EXPECT(ctx, abi_stacktrace_setup(ctx, (1l << 32) | STACKTRACE_REGISTER_SFRAME,
					 (uintptr_t)sec, len, text, 256), 0);
	EXPECT(ctx, abi_stacktrace_setup(ctx, (5l << 32) | STACKTRACE_UNREGISTER_SFRAME,
					 (uintptr_t)sec, 0, 0, 0), 0);
	return ABI_PASS;
}

static enum abi_result unregister_ignores_the_rest(struct abi_ctx *ctx)
{
	uint64_t text = abi_text(ctx, 256);
	uint8_t *sec = abi_data(ctx, SEC_MAX);
	size_t len = abi_section(3, true, text, 4, 64, sec, SEC_MAX);

	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)sec, len, text, 256), 0);
	EXPECT(ctx, abi_stacktrace_setup(ctx, STACKTRACE_UNREGISTER_SFRAME, (uintptr_t)sec, 7,
					 ~0ull, 1), 0);
	EXPECT(ctx, abi_kunreg(ctx, (uintptr_t)sec), EINVAL);
	return ABI_PASS;
}

const struct abi_case abi_stacktrace_cases[] = {
	{ "stacktrace-einval-unknown-op", unknown_op },
	{ "stacktrace-op-is-an-int", op_is_an_int },
	{ "stacktrace-unregister-ignores-the-rest", unregister_ignores_the_rest },
	{ NULL, NULL },
};
