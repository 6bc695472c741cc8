/* SPDX-License-Identifier: GPL-2.0 */
/* Input layouts shared by fuzz_codectl, fuzz_eh_frame and their seed writer. */
#ifndef TESTS_FUZZ_INPUT_H
#define TESTS_FUZZ_INPUT_H

#include <stdint.h>

/*
 * A fuzz_codectl input: this header, then bytes copied to the fake tracee's
 * data area (FAKE_DATA). The call's info points at FAKE_DATA + info_off
 * (CODE_UNREGISTER: FAKE_TEXT_A + info_off).
 *
 * With bit 7 of option set, the call is one of the kernel's proposals
 * (kernel_call.h): entry FUZZ_KCALL_ENTRY(option); sframe_register and
 * sframe_unregister get (info, info_size); the prctl gets PR_ADD_SFRAME
 * (bit 2 clear) or PR_REMOVE_SFRAME, stacktrace_setup op bits 2-3, and both
 * their four other arguments as 64-bit words at info.
 */
#define FUZZ_KCALL 0x80
#define FUZZ_KCALL_ENTRY(option) (1 + ((option) & 3))

struct fuzz_call {
	uint8_t option;		/* CODE_* (values above 3 are unknown options), or FUZZ_KCALL */
	uint8_t flags;		/* passed as is */
	uint16_t info_size;
	uint8_t policy;		/* bit 0 a kernel profile (bit 2: v13, else v16), bit 1 AArch64 */
	uint8_t repeat;		/* bits 0-1: call again this many times (EEXIST
				 * paths); bits 2-7: stride of the bytes flipped
				 * before a second unwind (0: none) */
	uint16_t info_off;
	uint64_t regs[3];	/* IP, SP, FP for an unwind afterwards */
} __attribute__((packed));

/*
 * A fuzz_eh_frame input: this header, then the image loaded at its SEC
 * (.eh_frame and .eh_frame_hdr: the header at @hdr_off, to the image's end);
 * @ip_off: addresses looked up, as offsets into its text (the first three
 * also the walk's IP, SP and FP offsets).
 */
#define FUZZ_EH_FRAME_IPS 6

struct fuzz_eh_frame {
	uint16_t hdr_off;
	uint16_t ip_off[FUZZ_EH_FRAME_IPS];
} __attribute__((packed));

#endif /* TESTS_FUZZ_INPUT_H */
