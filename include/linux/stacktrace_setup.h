/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * stacktrace_setup(2), Rostedt's RFC of 29 April 2026 (superseded by
 * sframe_register(2)): stacktrace_setup(op, sframe_start, sframe_length,
 * text_start, text_length). UAPI constants only (codectl-abi.md, "Earlier
 * entry points").
 */
#ifndef _UAPI_LINUX_STACKTRACE_SETUP_H
#define _UAPI_LINUX_STACKTRACE_SETUP_H

/* Not assigned upstream; codectl-run --stacktrace-setup-nr N traps another. */
#define STACKTRACE_SETUP_NR_DEFAULT 1003

enum stacktrace_setup_types {
	STACKTRACE_REGISTER_SFRAME = 1,		/* lengths, not ends */
	STACKTRACE_UNREGISTER_SFRAME = 2,	/* by sframe_start; the rest ignored */
};

#endif /* _UAPI_LINUX_STACKTRACE_SETUP_H */
