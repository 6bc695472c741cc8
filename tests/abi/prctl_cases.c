// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of the v12 test prctl's own rules: PR_REMOVE_SFRAME with
 * arg3, arg4 or arg5 non-zero is EINVAL; the option is an int (the upper
 * half of its register is not looked at); and every other prctl runs as the
 * kernel runs it (codectl-run traps only PR_ADD_SFRAME and PR_REMOVE_SFRAME,
 * with an argument-matching seccomp rule).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "abi.h"

#define SEC_MAX 2048

struct fixture {
	uint64_t text;
	uint8_t *sec;
	size_t len;
};

static void fixture(struct abi_ctx *ctx, struct fixture *f)
{
	f->text = abi_text(ctx, 256);
	f->sec = abi_data(ctx, SEC_MAX);
	f->len = abi_section(3, true, f->text, 4, 64, f->sec, SEC_MAX);
}

static long remove_with(uint8_t *sec, unsigned long a3, unsigned long a4, unsigned long a5)
{
	return prctl(PR_REMOVE_SFRAME, (unsigned long)sec, a3, a4, a5);
}

static enum abi_result remove_unused_args(struct abi_ctx *ctx)
{
	struct fixture f;

	fixture(ctx, &f);
	EXPECT(ctx, abi_kreg(ctx, (uintptr_t)f.sec, f.len, f.text, 256), 0);
	EXPECT(ctx, remove_with(f.sec, 1, 0, 0), EINVAL);
	EXPECT(ctx, remove_with(f.sec, 0, 0x8000000000000000ul, 0), EINVAL);
	EXPECT(ctx, remove_with(f.sec, 0, 0, (unsigned long)f.sec), EINVAL);
	EXPECT(ctx, remove_with(f.sec, 0, 0, 0), 0);	/* it was there until now */
	return ABI_PASS;
}

static enum abi_result option_is_an_int(struct abi_ctx *ctx)
{
	struct fixture f;

	fixture(ctx, &f);
	EXPECT(ctx, syscall(SYS_prctl, (1ul << 32) | PR_ADD_SFRAME, (unsigned long)f.sec,
			    (unsigned long)f.sec + f.len, f.text, f.text + 256), 0);
	EXPECT(ctx, syscall(SYS_prctl, (7ul << 32) | PR_REMOVE_SFRAME, (unsigned long)f.sec, 0, 0,
			    0), 0);
	return ABI_PASS;
}

static enum abi_result others_run_natively(struct abi_ctx *ctx)
{
	char name[16] = "", old[16] = "";
	int sig = -1;

	EXPECT(ctx, prctl(PR_GET_NAME, old, 0, 0, 0), 0);
	EXPECT(ctx, prctl(PR_SET_NAME, "abi-prctl", 0, 0, 0), 0);
	EXPECT(ctx, prctl(PR_GET_NAME, name, 0, 0, 0), 0);
	if (strcmp(name, "abi-prctl")) {
		snprintf(ctx->msg, sizeof(ctx->msg), "PR_GET_NAME gave \"%s\"", name);
		return ABI_FAIL;
	}
	EXPECT(ctx, prctl(PR_SET_NAME, old, 0, 0, 0), 0);
	EXPECT(ctx, prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0), 0);
	EXPECT(ctx, prctl(PR_GET_PDEATHSIG, &sig, 0, 0, 0), 0);
	if (sig != SIGUSR2) {
		snprintf(ctx->msg, sizeof(ctx->msg), "PR_GET_PDEATHSIG gave %d", sig);
		return ABI_FAIL;
	}
	EXPECT(ctx, prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0), 0);
	EXPECT(ctx, prctl(PR_SET_PDEATHSIG, 65, 0, 0, 0), EINVAL);	/* the kernel's EINVAL */
	EXPECT(ctx, prctl(PR_CAPBSET_READ, 63 + 1000, 0, 0, 0), EINVAL);
	return ABI_PASS;
}

const struct abi_case abi_prctl_cases[] = {
	{ "prctl-einval-remove-unused-args", remove_unused_args },
	{ "prctl-option-is-an-int", option_is_an_int },
	{ "prctl-others-run-natively", others_run_natively },
	{ NULL, NULL },
};
