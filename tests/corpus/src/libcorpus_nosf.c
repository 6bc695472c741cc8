// SPDX-License-Identifier: GPL-2.0
/*
 * Differential corpus: the shared library of nosframe_callback, built
 * without -Wa,--gsframe (it has .eh_frame but no .sframe), once with frame
 * pointers (libcorpus_nosf-fp.so) and once without (libcorpus_nosf-nofp.so).
 *
 * nosf_iterate -> nosf_call_one -> the program's callback, in a loop until
 * the callback returns non-zero.  Both functions keep a real frame: callee-
 * saved registers and a stack slot live across the indirect call.
 */

typedef int (*nosf_cb_t)(void *arg, unsigned long i);

unsigned long nosf_iterate(nosf_cb_t cb, void *arg);

static volatile unsigned long nosf_sink;

static __attribute__((__noipa__)) int nosf_call_one(nosf_cb_t cb, void *arg,
						     unsigned long i)
{
	volatile unsigned long guard = i;
	int r;

	r = cb(arg, i);
	nosf_sink += guard;
	return r;
}

unsigned long nosf_iterate(nosf_cb_t cb, void *arg)
{
	volatile unsigned long calls = 0;
	unsigned long i;

	for (i = 0;; i++) {
		calls = calls + 1;
		if (nosf_call_one(cb, arg, i))
			break;
	}
	return calls;
}
