// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: arbitrary codectl(2) calls (and calls of the kernel's own
 * proposals) against a fake tracee, then an unwind over whatever got
 * registered, again after tracee bytes changed (a kernel profile reads the
 * section again at every lookup). Any input must give an errno from the
 * rules table and a reason, never a crash, a leak or an over-read.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_space.h"
#include "fuzz_input.h"

static void check_answer(int err, const struct emu_call_result *res)
{
	if (err && (-err != emu_rule_errno(res->verdict.rule) || !res->verdict.reason[0]))
		abort();
	if (!err && res->verdict.rule != EMU_R_OK)
		abort();
}

static void unwind_once(struct fake_space *fs, const struct fuzz_call *fc)
{
	struct emu_regs regs = { .ip = fc->regs[0], .sp = fc->regs[1], .fp = fc->regs[2] };
	struct emu_unwind_opts o = { .arch = fs->policy.arch, .max_frames = 32,
				     .profile = fs->policy.profile };
	struct emu_frame frames[32];
	struct emu_unwind_result res;

	if (emu_unwind(fs->registry, &fs->mem, &regs, &o, frames, &res) || res.nframes < 1 ||
	    res.nframes > 32)
		abort();
}

/*
 * Tracee memory changes under the unwinder (JIT tables grow, or are rewritten
 * against the rules): flip every @stride-th byte of the data area, from
 * repeat's upper bits, so that a second walk runs over changed tables with
 * what the first one learnt (a JIT registration's sealed-table index).
 */
static void mutate_data(struct fake_space *fs, const struct fuzz_call *fc, size_t len)
{
	unsigned int stride = fc->repeat >> 2;
	uint8_t flip = (uint8_t)(fc->info_off >> 8) | 1;

	for (size_t i = fc->info_off % 64; stride && i < len; i += stride)
		fs->data[i] ^= flip;
}

/* One call: codectl, or with FUZZ_KCALL a kernel proposal (fuzz_input.h). */
static int one_call(struct fake_space *fs, const struct fuzz_call *fc, uint64_t info)
{
	struct emu_kcall kc = { .entry = FUZZ_KCALL_ENTRY(fc->option) };
	uint64_t words[4] = { 0 };
	size_t off = fc->info_off;

	if (!(fc->option & FUZZ_KCALL))
		return fake_call(fs, fc->option, info, fc->info_size, fc->flags);
	if (off + sizeof(words) <= FAKE_DATA_SIZE)
		memcpy(words, fs->data + off, sizeof(words));
	if (kc.entry == EMU_ENTRY_SFRAME_REGISTER || kc.entry == EMU_ENTRY_SFRAME_UNREGISTER) {
		kc.arg[0] = FAKE_DATA + off;
		kc.arg[1] = fc->info_size;
	} else {
		kc.arg[0] = kc.entry == EMU_ENTRY_PRCTL ? PR_ADD_SFRAME + ((fc->option >> 2) & 1) :
							  (fc->option >> 2) & 3;
		memcpy(&kc.arg[1], words, sizeof(words));
	}
	return emu_kcall(&fs->policy, &fs->space, &kc, &fs->res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fake_space fs;
	struct fuzz_call fc;
	uint64_t info;
	int err;

	if (size < sizeof(fc))
		return 0;
	memcpy(&fc, data, sizeof(fc));
	fake_space_init(&fs);
	size -= sizeof(fc);
	memcpy(fs.data, data + sizeof(fc), size < FAKE_DATA_SIZE ? size : FAKE_DATA_SIZE);
	fs.policy.profile = !(fc.policy & 1) ? EMU_PROFILE_EMULATOR :
			    fc.policy & 4 ? EMU_PROFILE_V13 : EMU_PROFILE_V16;
	fs.policy.arch = fc.policy & 2 ? EMU_ARCH_AARCH64 : EMU_ARCH_X86_64;
	info = (fc.option == CODE_UNREGISTER ? FAKE_TEXT_A : FAKE_DATA) + fc.info_off;
	for (unsigned int i = 0; i <= (fc.repeat & 3u); i++) {
		err = one_call(&fs, &fc, info);
		check_answer(err, &fs.res);
	}
	unwind_once(&fs, &fc);
	if (fc.repeat >> 2) {
		mutate_data(&fs, &fc, size < FAKE_DATA_SIZE ? size : FAKE_DATA_SIZE);
		unwind_once(&fs, &fc);
	}
	if (fs.res.reg) {
		err = fake_call(&fs, CODE_UNREGISTER, fs.res.reg->text_start, 0, 0);
		check_answer(err, &fs.res);
	}
	fake_space_fini(&fs);
	return 0;
}
