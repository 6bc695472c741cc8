/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The .eh_frame proposal (found as code only, 2026: include/uapi/linux/
 * eh_frame.h of a posted series): a loader tells the kernel where an object's
 * .eh_frame_hdr is loaded and which text it describes; the kernel finds
 * .eh_frame through the header and unwinds with a bounded DWARF CFI
 * interpreter. The series names no system call: the emulator traps
 * eh_frame_register(2) and eh_frame_unregister(2), shaped as
 * sframe_register(2) is (the struct's size is its version). UAPI types only;
 * the layout is the ABI contract (codectl-abi.md, "The .eh_frame proposal").
 */
#ifndef _UAPI_LINUX_EH_FRAME_SETUP_H
#define _UAPI_LINUX_EH_FRAME_SETUP_H

#include <linux/types.h>

/*
 * Numbers of the emulator's own, trapped when the system headers have no
 * __NR_eh_frame_register / __NR_eh_frame_unregister (x86_64; codectl-run
 * --eh-frame-nr REG,UNREG traps others).
 */
#define EH_FRAME_REGISTER_NR_DEFAULT 1004
#define EH_FRAME_UNREGISTER_NR_DEFAULT 1005

/*
 * The header [eh_frame_hdr_start, eh_frame_hdr_start + eh_frame_hdr_size)
 * describes the text [text_start, text_start + text_size); all addresses in
 * the caller's address space. eh_frame_unregister() uses eh_frame_hdr_start
 * alone: the other fields must be 0.
 */
struct eh_frame_setup {
	__u64 eh_frame_hdr_start;	/* loaded .eh_frame_hdr (PT_GNU_EH_FRAME) */
	__u64 eh_frame_hdr_size;	/* its length in bytes */
	__u64 text_start;		/* text it describes */
	__u64 text_size;
};
#define EH_FRAME_SETUP_SIZE_VER0 32	/* any other size: EINVAL */

/* The layout, checked where _Static_assert is standard (C11 and later). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include <stddef.h>
_Static_assert(sizeof(struct eh_frame_setup) == EH_FRAME_SETUP_SIZE_VER0, "eh_frame_setup size");
_Static_assert(offsetof(struct eh_frame_setup, eh_frame_hdr_start) == 0, "eh_frame_hdr_start");
_Static_assert(offsetof(struct eh_frame_setup, eh_frame_hdr_size) == 8, "eh_frame_hdr_size");
_Static_assert(offsetof(struct eh_frame_setup, text_start) == 16, "text_start");
_Static_assert(offsetof(struct eh_frame_setup, text_size) == 24, "text_size");
#endif

#endif /* _UAPI_LINUX_EH_FRAME_SETUP_H */
