/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The codectl(2) ABI conformance suite: a harness and the cases, built only on
 * include/ (and the test SFrame writer), to run unchanged against the
 * emulator and against a future kernel.
 */
#ifndef TESTS_ABI_H
#define TESTS_ABI_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <codectl.h>

enum abi_result { ABI_PASS, ABI_FAIL, ABI_SKIP };

/**
 * struct abi_ctx - what every case may use
 * @text: an RX mapping of @text_len bytes; cases take chunks with abi_text()
 * @data: an RW mapping close to @text (SFrame v1/v2 reach functions within
 *	2 GiB of the section, as in an ELF object); cases take chunks with abi_data()
 * @rw: an RW (not executable) page; @none: a PROT_NONE page
 * @argv0: this program, for cases that exec it again
 */
struct abi_ctx {
	uint8_t *text;
	size_t text_len;
	size_t text_used;
	uint8_t *data;
	size_t data_used;
	uint8_t *rw;
	uint8_t *none;
	const char *argv0;
	char msg[512];
};

struct abi_case {
	const char *name;
	enum abi_result (*run)(struct abi_ctx *ctx);
};

/* Every case list; each ends with { NULL, NULL }. */
extern const struct abi_case abi_errno_cases[];
extern const struct abi_case abi_sframe_cases[];
extern const struct abi_case abi_lifecycle_cases[];

/** abi_text() - a fresh, never-registered chunk of @len bytes of the RX area. */
uint64_t abi_text(struct abi_ctx *ctx, size_t len);

/** abi_data() - @len bytes of the data area for an SFrame section (zeroed, 8-aligned). */
uint8_t *abi_data(struct abi_ctx *ctx, size_t len);

/**
 * abi_expect() - did @ret/@err (the call's result and errno) give @want (0 or an errno)?
 * On a mismatch, the message for the report is put in ctx->msg.
 */
bool abi_expect(struct abi_ctx *ctx, long ret, int err, int want, const char *what, int line);

#define EXPECT(ctx, call, want)                                                        \
	do {                                                                           \
		long ret_ = (call);                                                    \
		if (!abi_expect((ctx), ret_, errno, (want), #call, __LINE__))          \
			return ABI_FAIL;                                               \
	} while (0)

/* Registration helpers: the call's return value, errno as the call left it. */
long abi_reg_sframe(uint64_t ts, uint64_t te, const void *sf, size_t len);
long abi_reg_ident(uint64_t ts, uint64_t te, const char *path);
long abi_reg_elf(const struct code_elf_info *info);
long abi_unreg(uint64_t ts);

/**
 * abi_section() - a valid AMD64 section of @version (PCREL from v2 with @pcrel,
 * always in v3) for @n functions of @size bytes from @func, written into @buf
 * at its own address. Returns the length.
 */
size_t abi_section(uint8_t version, bool pcrel, uint64_t func, unsigned int n, uint32_t size,
		   uint8_t *buf, size_t cap);

#endif /* TESTS_ABI_H */
