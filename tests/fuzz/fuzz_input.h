/* SPDX-License-Identifier: GPL-2.0 */
/* Input layout shared by fuzz_codectl and its seed writer. */
#ifndef TESTS_FUZZ_INPUT_H
#define TESTS_FUZZ_INPUT_H

#include <stdint.h>

/*
 * A fuzz_codectl input: this header, then bytes copied to the fake tracee's
 * data area (FAKE_DATA). The call's info points at FAKE_DATA + info_off
 * (CODE_UNREGISTER: FAKE_TEXT_A + info_off).
 */
struct fuzz_call {
	uint8_t option;		/* CODE_* (values above 3 are unknown options) */
	uint8_t flags;		/* passed as is */
	uint16_t info_size;
	uint8_t policy;		/* bit 0 strict, bit 1 AArch64 */
	uint8_t repeat;		/* bits 0-1: call again this many times (EEXIST
				 * paths); bits 2-7: stride of the bytes flipped
				 * before a second unwind (0: none) */
	uint16_t info_off;
	uint64_t regs[3];	/* IP, SP, FP for an unwind afterwards */
} __attribute__((packed));

#endif /* TESTS_FUZZ_INPUT_H */
