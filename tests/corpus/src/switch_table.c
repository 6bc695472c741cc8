// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: a dense 64-way switch compiled to a jump table.
 *
 * Stack shape: main -> run -> interp_outer -> interp_loop -> dispatch, with
 * dispatch -> op_helper on four of the 64 opcodes.  interp_loop calls
 * dispatch in a tight loop over a fixed pseudo-random opcode stream for the
 * whole run, so samples land in interp_loop, dispatch and op_helper.
 *
 * dispatch branches through an indirect jmp into a table of offsets in
 * .rodata (at -O0 and -O2): the case blocks are reached only through the
 * table, never by fall-through.  What gcc 12 makes of it at -O2:
 *  - with frame pointers, dispatch is shrink-wrapped (push %rbp after the
 *    range check) and nearly every case block ends in its own
 *    "pop %rbp; ret", so the CFA changes back and forth all along the
 *    function and each case block needs its own FREs;
 *  - without, one frame for the whole function and one shared epilogue,
 *    but the out-of-range branch goes to dispatch.cold in .text.unlikely, a
 *    separate FDE that starts with the frame already set up (never executed
 *    here: every opcode is in range).
 * SFrame expresses all of it; a wrong FRE for a case block shows as a
 * broken walk from op_helper.
 */
#include <time.h>

#include "corpus.h"

#define RUN_NS		500000000LL	/* total run time */
#define NR_OPS		256		/* length of the opcode stream */

/* Never inlined, cloned or merged: the tests match these names. */

static unsigned char ops[NR_OPS];

static noipa unsigned long op_helper(unsigned long x)
{
	volatile unsigned long v = x;

	return v * 2654435761UL ^ (v >> 7);
}

static noipa unsigned long dispatch(unsigned int op, unsigned long x)
{
	switch (op) {
	case 0:
		return x + 11;
	case 1:
		return x ^ 0x30;
	case 2:
		return x * 85;
	case 3:
		return (x >> 3) + 122;
	case 4:
		return (x << 2) - 159;
	case 5:
		return x - 196;
	case 6:
		return (x | 0xe9) + 1;
	case 7:
		return (x & 0xeUL) + 7;
	case 8:
		return x + 51;
	case 9:
		return op_helper(x + 9) + 88;
	case 10:
		return x * 125;
	case 11:
		return (x >> 3) + 162;
	case 12:
		return (x << 2) - 199;
	case 13:
		return x - 236;
	case 14:
		return (x | 0x11) + 1;
	case 15:
		return (x & 0x36UL) + 7;
	case 16:
		return x + 91;
	case 17:
		return x ^ 0x80;
	case 18:
		return x * 165;
	case 19:
		return (x >> 3) + 202;
	case 20:
		return (x << 2) - 239;
	case 21:
		return x - 20;
	case 22:
		return (x | 0x39) + 1;
	case 23:
		return (x & 0x5eUL) + 7;
	case 24:
		return x + 131;
	case 25:
		return op_helper(x + 25) + 168;
	case 26:
		return x * 205;
	case 27:
		return (x >> 3) + 242;
	case 28:
		return (x << 2) - 23;
	case 29:
		return x - 60;
	case 30:
		return (x | 0x61) + 1;
	case 31:
		return (x & 0x86UL) + 7;
	case 32:
		return x + 171;
	case 33:
		return x ^ 0xd0;
	case 34:
		return x * 245;
	case 35:
		return (x >> 3) + 26;
	case 36:
		return (x << 2) - 63;
	case 37:
		return x - 100;
	case 38:
		return (x | 0x89) + 1;
	case 39:
		return (x & 0xaeUL) + 7;
	case 40:
		return x + 211;
	case 41:
		return op_helper(x + 41) + 248;
	case 42:
		return x * 29;
	case 43:
		return (x >> 3) + 66;
	case 44:
		return (x << 2) - 103;
	case 45:
		return x - 140;
	case 46:
		return (x | 0xb1) + 1;
	case 47:
		return (x & 0xd6UL) + 7;
	case 48:
		return x + 251;
	case 49:
		return x ^ 0x20;
	case 50:
		return x * 69;
	case 51:
		return (x >> 3) + 106;
	case 52:
		return (x << 2) - 143;
	case 53:
		return x - 180;
	case 54:
		return (x | 0xd9) + 1;
	case 55:
		return (x & 0xfeUL) + 7;
	case 56:
		return x + 35;
	case 57:
		return op_helper(x + 57) + 72;
	case 58:
		return x * 109;
	case 59:
		return (x >> 3) + 146;
	case 60:
		return (x << 2) - 183;
	case 61:
		return x - 220;
	case 62:
		return (x | 0x1) + 1;
	case 63:
		return (x & 0x26UL) + 7;
	default:
		return x;
	}
}

static noipa unsigned long interp_loop(unsigned long x)
{
	unsigned long i;

	for (i = 1;; i++) {
		x = dispatch(ops[i % NR_OPS], x);
		if (!(i & 1023) && now_ns() >= RUN_NS)
			break;
	}
	return x;
}

static noipa unsigned long interp_outer(unsigned long seed)
{
	volatile unsigned long frame[2];
	unsigned long r;

	frame[0] = seed;
	r = interp_loop(seed);
	return r + frame[0];
}

static noipa void run(void)
{
	unsigned int i, s = 12345;

	for (i = 0; i < NR_OPS; i++) {
		s = s * 1103515245u + 12345u;
		ops[i] = (unsigned char)((s >> 16) % 64);
	}
	sink += interp_outer(s);
}

int main(void)
{
	corpus_start();
	run();
	return 0;
}
