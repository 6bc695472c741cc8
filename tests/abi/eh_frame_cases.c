// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of eh_frame_register(2) and eh_frame_unregister(2), the
 * .eh_frame proposal's interface: the struct (size 32, EFAULT), the ranges
 * and their mappings, the header's checks (version 1, a search table that
 * fits, .eh_frame mapped, encodings), the full validation where the kernel
 * under test has it (CONFIG_EH_FRAME_VALIDATION: --eh-frame-validation),
 * overlaps only with another .eh_frame registration, removal by header
 * start, fork inheriting. Every errno is the posted series' (codectl-abi.md,
 * "The .eh_frame proposal").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "abi.h"
#include "eh_frame_writer.h"

#define EH_MAX 4096

/* Four 64-byte frame-pointer functions over a fresh chunk, their tables in the data area. */
struct ehcase {
	uint64_t text;
	uint8_t *buf;
	struct ehw_layout lay;
	struct eh_frame_setup s;
};

static void ehcase_init(struct abi_ctx *ctx, struct ehcase *c)
{
	c->text = abi_text(ctx, 256);
	c->buf = abi_data(ctx, EH_MAX);
	ehw_build((uintptr_t)c->buf, c->text, 4, 64, c->buf, EH_MAX, &c->lay);
	c->s = (struct eh_frame_setup){ (uintptr_t)(c->buf + c->lay.hdr), c->lay.hdr_len,
					c->text, 256 };
}

static long reg(struct abi_ctx *ctx, const struct eh_frame_setup *s)
{
	return abi_eh_frame_register(ctx, s, sizeof(*s));
}

static long unreg(struct abi_ctx *ctx, uint64_t hdr)
{
	struct eh_frame_setup key = { .eh_frame_hdr_start = hdr };

	return abi_eh_frame_unregister(ctx, &key, sizeof(key));
}

static enum abi_result register_unregister(struct abi_ctx *ctx)
{
	struct ehcase c;

	ehcase_init(ctx, &c);
	EXPECT(ctx, reg(ctx, &c.s), 0);
	EXPECT(ctx, reg(ctx, &c.s), EEXIST);
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), 0);
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), EINVAL);	/* nothing left */
	EXPECT(ctx, reg(ctx, &c.s), 0);					/* free again */
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), 0);
	return ABI_PASS;
}

static enum abi_result struct_rules(struct abi_ctx *ctx)
{
	static const size_t bad[] = { 0, 31, 33, (size_t)-1 };
	uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct eh_frame_setup *edge;
	struct ehcase c;

	if (two == MAP_FAILED || mprotect(two + 4096, 4096, PROT_NONE))
		return ABI_FAIL;
	ehcase_init(ctx, &c);
	for (unsigned int i = 0; i < 4; i++) {
		EXPECT(ctx, abi_eh_frame_register(ctx, &c.s, bad[i]), EINVAL);
		EXPECT(ctx, abi_eh_frame_register(ctx, NULL, bad[i]), EINVAL);	/* before the read */
		EXPECT(ctx, abi_eh_frame_unregister(ctx, &c.s, bad[i]), EINVAL);
	}
	edge = (struct eh_frame_setup *)(two + 4096 - 16);	/* half of it readable */
	memcpy(edge, &c.s, 16);
	EXPECT(ctx, abi_eh_frame_register(ctx, NULL, sizeof(c.s)), EFAULT);
	EXPECT(ctx, abi_eh_frame_register(ctx, edge, sizeof(c.s)), EFAULT);
	EXPECT(ctx, abi_eh_frame_unregister(ctx, ctx->none, sizeof(c.s)), EFAULT);
	EXPECT(ctx, reg(ctx, &c.s), 0);		/* nothing was registered before */
	EXPECT(ctx, abi_eh_frame_unregister(ctx, &c.s, sizeof(c.s)), EINVAL);	/* fields set */
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), 0);
	munmap(two, 8192);
	return ABI_PASS;
}

static enum abi_result ranges_and_mappings(struct abi_ctx *ctx)
{
	uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ehcase c;
	struct eh_frame_setup s;

	if (two == MAP_FAILED || mprotect(two + 4096, 4096, PROT_NONE))
		return ABI_FAIL;
	ehcase_init(ctx, &c);
	s = c.s, s.eh_frame_hdr_size = 0;
	EXPECT(ctx, reg(ctx, &s), EINVAL);
	s = c.s, s.text_size = 0;
	EXPECT(ctx, reg(ctx, &s), EINVAL);
	s = c.s, s.text_size = UINT64_MAX - c.text + 16;	/* wraps */
	EXPECT(ctx, reg(ctx, &s), EINVAL);
	s = c.s, s.eh_frame_hdr_start = (uintptr_t)two + 4096 - 8;	/* past its mapping */
	EXPECT(ctx, reg(ctx, &s), EINVAL);
	s = c.s, s.eh_frame_hdr_start = 1ull << 46;			/* nothing mapped */
	EXPECT(ctx, reg(ctx, &s), EINVAL);
	s = c.s, s.text_start = (uintptr_t)ctx->rw;			/* not executable */
	EXPECT(ctx, reg(ctx, &s), EINVAL);
	s = c.s, s.eh_frame_hdr_start = (uintptr_t)ctx->none;		/* mapped, unreadable */
	EXPECT(ctx, reg(ctx, &s), EFAULT);
	EXPECT(ctx, reg(ctx, &c.s), 0);		/* none of them registered anything */
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), 0);
	munmap(two, 8192);
	return ABI_PASS;
}

/* The header's own checks, one byte or field changed at a time. */
static enum abi_result header_rules(struct abi_ctx *ctx)
{
	struct ehcase c;
	uint8_t *hdr;

	ehcase_init(ctx, &c);
	hdr = c.buf + c.lay.hdr;
	hdr[0] = 2;					/* version */
	EXPECT(ctx, reg(ctx, &c.s), EINVAL);
	hdr[0] = 1, hdr[2] = 0xff;			/* no FDE count: no search table */
	EXPECT(ctx, reg(ctx, &c.s), EINVAL);
	hdr[2] = 0x03, hdr[3] = 0xff;			/* no table encoding */
	EXPECT(ctx, reg(ctx, &c.s), EINVAL);
	hdr[3] = 0x3b;
	ehw_put32(hdr + 8, 5);				/* one entry more than the header holds */
	EXPECT(ctx, reg(ctx, &c.s), EINVAL);
	ehw_put32(hdr + 8, 4);
	hdr[1] = 0x4b;					/* eh_frame_ptr funcrel: not supported */
	EXPECT(ctx, reg(ctx, &c.s), EOPNOTSUPP);
	hdr[1] = 0x9b;					/* indirect */
	EXPECT(ctx, reg(ctx, &c.s), EOPNOTSUPP);
	hdr[1] = 0x1b;
	ehw_put32(hdr + 4, (uint32_t)((1ull << 46) - (uintptr_t)(hdr + 4)));	/* unmapped */
	EXPECT(ctx, reg(ctx, &c.s), EINVAL);
	ehw_put32(hdr + 4, (uint32_t)((uintptr_t)c.buf - (uintptr_t)(hdr + 4)));
	EXPECT(ctx, reg(ctx, &c.s), 0);			/* restored: accepted */
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), 0);
	return ABI_PASS;
}

/*
 * What only a kernel with CONFIG_EH_FRAME_VALIDATION refuses at registration:
 * a table not sorted, an entry whose FDE is of another function, a CIE of
 * version 3. Without it each is registered (and found at unwind).
 */
static enum abi_result validation(struct abi_ctx *ctx)
{
	int want_einval = ctx->eh_validation ? EINVAL : 0;
	struct ehcase c[3];
	uint8_t *t;

	for (int i = 0; i < 3; i++)
		ehcase_init(ctx, &c[i]);
	t = c[0].buf + c[0].lay.table;
	memcpy(t + 32 - 8, t, 8);			/* the last entry's start is the first's */
	EXPECT(ctx, reg(ctx, &c[0].s), want_einval);
	t = c[1].buf + c[1].lay.table;
	memcpy(t + 4, t + 12, 4);			/* entry 0 points at function 1's FDE */
	EXPECT(ctx, reg(ctx, &c[1].s), want_einval);
	c[2].buf[c[2].lay.cie_version] = 3;
	EXPECT(ctx, reg(ctx, &c[2].s), ctx->eh_validation ? EOPNOTSUPP : 0);
	for (int i = 0; i < 3 && !ctx->eh_validation; i++)
		EXPECT(ctx, unreg(ctx, c[i].s.eh_frame_hdr_start), 0);
	return ABI_PASS;
}

/* Overlap with another .eh_frame registration, half-open: touching ranges do not. */
static enum abi_result overlaps(struct abi_ctx *ctx)
{
	struct ehcase a, b;
	struct ehw_layout lay;
	uint8_t *buf = abi_data(ctx, EH_MAX);
	struct eh_frame_setup mid;

	ehcase_init(ctx, &a);
	ehcase_init(ctx, &b);
	if (b.text != a.text + 256) {
		snprintf(ctx->msg, sizeof(ctx->msg), "text chunks not adjacent");
		return ABI_FAIL;
	}
	ehw_build((uintptr_t)buf, a.text + 64, 2, 64, buf, EH_MAX, &lay);	/* two functions inside a's */
	mid = (struct eh_frame_setup){ (uintptr_t)(buf + lay.hdr), lay.hdr_len, a.text + 64, 128 };
	EXPECT(ctx, reg(ctx, &a.s), 0);
	EXPECT(ctx, reg(ctx, &mid), EEXIST);
	EXPECT(ctx, reg(ctx, &b.s), 0);				/* starts at a's end */
	EXPECT(ctx, unreg(ctx, a.s.eh_frame_hdr_start), 0);
	EXPECT(ctx, reg(ctx, &mid), 0);				/* free now */
	EXPECT(ctx, unreg(ctx, mid.eh_frame_hdr_start), 0);
	EXPECT(ctx, unreg(ctx, b.s.eh_frame_hdr_start), 0);
	return ABI_PASS;
}

/* The .eh_frame registrations are a table of their own: SFrame over the same text is no overlap. */
static enum abi_result beside_sframe(struct abi_ctx *ctx)
{
	struct ehcase c;
	uint8_t *sec = abi_data(ctx, 2048);
	size_t len;
	struct sframe_setup sf;

	ehcase_init(ctx, &c);
	len = abi_section(3, true, c.text, 4, 64, sec, 2048);
	sf = (struct sframe_setup){ (uintptr_t)sec, len, c.text, 256 };
	if (abi_sframe_register(ctx, &sf, sizeof(sf)) == -1 && errno == ENOSYS) {
		snprintf(ctx->msg, sizeof(ctx->msg), "sframe_register not there");
		return ABI_SKIP;
	}
	EXPECT(ctx, reg(ctx, &c.s), 0);
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), 0);
	EXPECT(ctx, abi_sframe_unregister(ctx, &(struct sframe_setup){ .sframe_start = sf.sframe_start },
					  sizeof(sf)), 0);	/* still there */
	return ABI_PASS;
}

/* A forked child inherits the registrations (eh_frame_dup_mm()); its changes are its own. */
static enum abi_result fork_inherits(struct abi_ctx *ctx)
{
	struct ehcase c;
	int status;
	pid_t pid;

	ehcase_init(ctx, &c);
	EXPECT(ctx, reg(ctx, &c.s), 0);
	pid = fork();
	if (pid == 0)
		_exit(reg(ctx, &c.s) == -1 && errno == EEXIST &&
		      !unreg(ctx, c.s.eh_frame_hdr_start) && !reg(ctx, &c.s) ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		snprintf(ctx->msg, sizeof(ctx->msg), "fork child: inherited registration not seen");
		return ABI_FAIL;
	}
	EXPECT(ctx, reg(ctx, &c.s), EEXIST);		/* the parent's is untouched */
	EXPECT(ctx, unreg(ctx, c.s.eh_frame_hdr_start), 0);
	return ABI_PASS;
}

const struct abi_case abi_eh_frame_cases[] = {
	{ "eh-frame-register-unregister", register_unregister },
	{ "eh-frame-struct-size-efault-fields", struct_rules },
	{ "eh-frame-einval-ranges-mappings", ranges_and_mappings },
	{ "eh-frame-header-rules", header_rules },
	{ "eh-frame-validation", validation },
	{ "eh-frame-eexist-half-open", overlaps },
	{ "eh-frame-beside-sframe", beside_sframe },
	{ "eh-frame-fork-inherits", fork_inherits },
	{ NULL, NULL },
};
