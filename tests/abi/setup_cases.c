// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of sframe_register(2)'s own rules: the size is the version
 * (any size but 32 is EINVAL, checked before the struct is read), an
 * unreadable or partly readable struct is EFAULT, and sframe_unregister
 * takes sframe_start alone (any other field non-zero: EINVAL).
 */
#include <string.h>
#include <sys/mman.h>

#include "abi.h"

#define SEC_MAX 2048

/* A valid registration's struct over a fresh text chunk (section in the data area). */
static struct sframe_setup fixture(struct abi_ctx *ctx)
{
	uint64_t text = abi_text(ctx, 256);
	uint8_t *sec = abi_data(ctx, SEC_MAX);
	size_t len = abi_section(3, true, text, 4, 64, sec, SEC_MAX);

	return (struct sframe_setup){ (uintptr_t)sec, len, text, 256 };
}

static enum abi_result sizes(struct abi_ctx *ctx)
{
	static const size_t bad[] = { 0, 31, 33, (size_t)-1 };
	struct sframe_setup s = fixture(ctx), key = { .sframe_start = s.sframe_start };

	for (unsigned int i = 0; i < 4; i++) {
		EXPECT(ctx, abi_sframe_register(ctx, &s, bad[i]), EINVAL);
		EXPECT(ctx, abi_sframe_register(ctx, NULL, bad[i]), EINVAL);	/* before the read */
	}
	EXPECT(ctx, abi_sframe_register(ctx, &s, sizeof(s)), 0);
	for (unsigned int i = 0; i < 4; i++)
		EXPECT(ctx, abi_sframe_unregister(ctx, &key, bad[i]), EINVAL);
	EXPECT(ctx, abi_sframe_unregister(ctx, &key, sizeof(key)), 0);
	return ABI_PASS;
}

static enum abi_result struct_unreadable(struct abi_ctx *ctx)
{
	uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct sframe_setup s = fixture(ctx), *edge;

	if (two == MAP_FAILED || mprotect(two + 4096, 4096, PROT_NONE))
		return ABI_FAIL;
	edge = (struct sframe_setup *)(two + 4096 - 16);	/* half of it readable */
	memcpy(edge, &s, 16);
	EXPECT(ctx, abi_sframe_register(ctx, NULL, sizeof(s)), EFAULT);
	EXPECT(ctx, abi_sframe_register(ctx, ctx->none, sizeof(s)), EFAULT);
	EXPECT(ctx, abi_sframe_register(ctx, edge, sizeof(s)), EFAULT);
	EXPECT(ctx, abi_sframe_unregister(ctx, NULL, sizeof(s)), EFAULT);
	EXPECT(ctx, abi_sframe_unregister(ctx, edge, sizeof(s)), EFAULT);
	EXPECT(ctx, abi_sframe_register(ctx, &s, sizeof(s)), 0);	/* nothing was registered */
	EXPECT(ctx, abi_kunreg(ctx, s.sframe_start), 0);
	munmap(two, 8192);
	return ABI_PASS;
}

static enum abi_result unregister_fields(struct abi_ctx *ctx)
{
	struct sframe_setup s = fixture(ctx), key;

	EXPECT(ctx, abi_sframe_register(ctx, &s, sizeof(s)), 0);
	key = (struct sframe_setup){ .sframe_start = s.sframe_start, .sframe_size = s.sframe_size };
	EXPECT(ctx, abi_sframe_unregister(ctx, &key, sizeof(key)), EINVAL);
	key = (struct sframe_setup){ .sframe_start = s.sframe_start, .text_start = s.text_start };
	EXPECT(ctx, abi_sframe_unregister(ctx, &key, sizeof(key)), EINVAL);
	key = (struct sframe_setup){ .sframe_start = s.sframe_start, .text_size = 1 };
	EXPECT(ctx, abi_sframe_unregister(ctx, &key, sizeof(key)), EINVAL);
	EXPECT(ctx, abi_sframe_unregister(ctx, &s, sizeof(s)), EINVAL);	/* the register struct */
	key = (struct sframe_setup){ .sframe_start = s.sframe_start };
	EXPECT(ctx, abi_sframe_unregister(ctx, &key, sizeof(key)), 0);	/* still there until now */
	return ABI_PASS;
}

const struct abi_case abi_setup_cases[] = {
	{ "setup-einval-size-0-31-33-max", sizes },
	{ "setup-efault-struct-unreadable", struct_unreadable },
	{ "setup-einval-unregister-fields", unregister_fields },
	{ NULL, NULL },
};
