/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI conformance suites, one per interface: codectl(2), sframe_register(2)
 * with sframe_unregister(2), the v12 prctl, stacktrace_setup(2),
 * eh_frame_register(2) with eh_frame_unregister(2). A harness and
 * the cases, built only on include/ (and the test SFrame writer), to run
 * unchanged against the emulator and against a kernel that has the call
 * (its numbers from SFRAME_REGISTER_NR, SFRAME_UNREGISTER_NR, STACKTRACE_SETUP_NR,
 * EH_FRAME_REGISTER_NR, EH_FRAME_UNREGISTER_NR).
 */
#ifndef TESTS_ABI_H
#define TESTS_ABI_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <codectl.h>
#include <eh_frame_register.h>
#include <sframe_register.h>

enum abi_result { ABI_PASS, ABI_FAIL, ABI_SKIP };

/* The kernel interfaces the shared cases (kernel_cases.c) go through. */
enum abi_iface {
	ABI_IF_SFRAME_REGISTER,
	ABI_IF_PRCTL,
	ABI_IF_STACKTRACE_SETUP,
	ABI_IF_EH_FRAME,
};

/* The kernel series the kernel suites expect (--kernel): v16 unless told. */
enum abi_kernel {
	ABI_KERNEL_V16,
	ABI_KERNEL_V13,
};

/**
 * struct abi_ctx - what every case may use
 * @text: an RX mapping of @text_len bytes; cases take chunks with abi_text()
 * @data: an RW mapping close to @text (SFrame v1/v2 reach functions within
 *	2 GiB of the section, as in an ELF object); cases take chunks with abi_data()
 * @rw: an RW (not executable) page; @none: a PROT_NONE page
 * @argv0: this program, for cases that exec it again
 * @iface: the interface the kernel cases use; @kernel: the series expected
 * @validation: the v16 kernel under test validates each section whole at
 *	registration (built with CONFIG_SFRAME_VALIDATION; --sframe-validation)
 * @eh_validation: the kernel under test validates an .eh_frame_hdr's table
 *	and FDEs at registration (CONFIG_EH_FRAME_VALIDATION; --eh-frame-validation)
 * @sframe_nr, @stacktrace_nr, @eh_frame_nr: the numbers called (environment,
 *	else defaults)
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
	enum abi_iface iface;
	enum abi_kernel kernel;
	bool validation;
	bool eh_validation;
	long sframe_nr[2];
	long stacktrace_nr;
	long eh_frame_nr[2];
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
extern const struct abi_case abi_kernel_cases[];	/* each kernel interface */
extern const struct abi_case abi_kernel_life_cases[];	/* each kernel interface */
extern const struct abi_case abi_setup_cases[];		/* sframe_register's own */
extern const struct abi_case abi_prctl_cases[];		/* the prctl's own */
extern const struct abi_case abi_stacktrace_cases[];	/* stacktrace_setup's own */
extern const struct abi_case abi_eh_frame_cases[];	/* eh_frame_register's */
extern const struct abi_case abi_sframe_file_cases[];	/* CODE_REGISTER_SFRAME_FILE */

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

/* The kernel interfaces, raw: the call's return value, errno as the call left it. */
long abi_sframe_register(const struct abi_ctx *ctx, const void *setup, size_t size);
long abi_sframe_unregister(const struct abi_ctx *ctx, const void *setup, size_t size);
long abi_eh_frame_register(const struct abi_ctx *ctx, const void *setup, size_t size);
long abi_eh_frame_unregister(const struct abi_ctx *ctx, const void *setup, size_t size);
long abi_stacktrace_setup(const struct abi_ctx *ctx, long op, uint64_t a, uint64_t b, uint64_t c,
			  uint64_t d);

/**
 * abi_kreg() - register [@sframe, @sframe + @sframe_size) for [@text, @text +
 * @text_size) through @ctx->iface (the prctl: as start, end pairs)
 */
long abi_kreg(const struct abi_ctx *ctx, uint64_t sframe, uint64_t sframe_size, uint64_t text,
	      uint64_t text_size);

/** abi_kunreg() - remove every range registered with @sframe through @ctx->iface. */
long abi_kunreg(const struct abi_ctx *ctx, uint64_t sframe);

/** abi_numbers() - @ctx's numbers: the environment's, else the headers' defaults. */
void abi_numbers(struct abi_ctx *ctx);

/** abi_iface_name() - "sframe_register", "prctl", "stacktrace_setup" or "eh_frame_register". */
const char *abi_iface_name(enum abi_iface iface);

/**
 * abi_section() - a valid AMD64 section of @version (PCREL from v2 with @pcrel,
 * always in v3) for @n functions of @size bytes from @func, written into @buf
 * at its own address. Returns the length.
 */
size_t abi_section(uint8_t version, bool pcrel, uint64_t func, unsigned int n, uint32_t size,
		   uint8_t *buf, size_t cap);

#endif /* TESTS_ABI_H */
