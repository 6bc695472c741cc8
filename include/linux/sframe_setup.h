/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * sframe_register(2) and sframe_unregister(2) (Rostedt, v2, 28 May 2026):
 * a loader tells the kernel where an object's .sframe section is loaded and
 * which text it describes. The struct's size is its version. Also the test
 * prctl of the same series (v12 13/13). UAPI types only; the layout is the
 * ABI contract (codectl-abi.md, "The kernel's own proposals").
 */
#ifndef _UAPI_LINUX_SFRAME_SETUP_H
#define _UAPI_LINUX_SFRAME_SETUP_H

#include <linux/types.h>

/*
 * No numbers are assigned upstream: the emulator traps these when the system
 * headers have no __NR_sframe_register / __NR_sframe_unregister (x86_64;
 * codectl-run --sframe-nr REG,UNREG traps others).
 */
#define SFRAME_REGISTER_NR_DEFAULT 1001
#define SFRAME_UNREGISTER_NR_DEFAULT 1002

/*
 * The section [sframe_start, sframe_start + sframe_size) describes the text
 * [text_start, text_start + text_size); all addresses in the caller's address
 * space. sframe_unregister() uses sframe_start alone: the other fields must be 0.
 */
struct sframe_setup {
	__u64 sframe_start;		/* loaded .sframe section */
	__u64 sframe_size;		/* its length in bytes */
	__u64 text_start;		/* text it describes */
	__u64 text_size;
};
#define SFRAME_SETUP_SIZE_VER0 32	/* any other size: EINVAL */

/*
 * The series' test prctl ("testing only"): prctl(PR_ADD_SFRAME, sframe_start,
 * sframe_end, text_start, text_end), prctl(PR_REMOVE_SFRAME, sframe_start, 0,
 * 0, 0). Mainline may give these numbers to other options: codectl-run traps
 * them only with --prctl-sframe.
 */
#ifndef PR_ADD_SFRAME
#define PR_ADD_SFRAME 79
#endif
#ifndef PR_REMOVE_SFRAME
#define PR_REMOVE_SFRAME 80
#endif

/* The layout, checked where _Static_assert is standard (C11 and later). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include <stddef.h>
_Static_assert(sizeof(struct sframe_setup) == SFRAME_SETUP_SIZE_VER0, "sframe_setup size");
_Static_assert(offsetof(struct sframe_setup, sframe_start) == 0, "sframe_start");
_Static_assert(offsetof(struct sframe_setup, sframe_size) == 8, "sframe_size");
_Static_assert(offsetof(struct sframe_setup, text_start) == 16, "text_start");
_Static_assert(offsetof(struct sframe_setup, text_size) == 24, "text_size");
#endif

#endif /* _UAPI_LINUX_SFRAME_SETUP_H */
