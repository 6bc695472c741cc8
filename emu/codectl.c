// SPDX-License-Identifier: GPL-2.0
/*
 * codectl(2) entry: flags, option and info_size checks, the struct copy, and
 * the per-option handlers (codectl-abi.md, "Options" and "Errors").
 */
#include <stdlib.h>

#include "codectl_call.h"
#include "codectl_internal.h"
#include "copy_struct.h"
#include "jit.h"

struct emu_policy emu_policy_default(void)
{
	return (struct emu_policy){
		.arch = EMU_ARCH_X86_64,
		.profile = EMU_PROFILE_EMULATOR,
		.max_sframe_size = EMU_DEFAULT_MAX_SFRAME_SIZE,
		.max_sframe_total = EMU_DEFAULT_MAX_SFRAME_TOTAL,
		.max_sframe_cache = EMU_BLOCK_CACHE_DEFAULT,
	};
}

/* Extensible struct: page cap (E2BIG), VER0 floor (EINVAL), then the copy. */
static int read_info(const struct emu_space *sp, const struct emu_call *c, void *dst,
		     size_t ksize, size_t ver0, struct emu_call_result *res)
{
	struct emu_verdict *v = &res->verdict;
	int err;

	if (c->info_size > EMU_INFO_SIZE_MAX)
		return emu_reject(v, EMU_R_SIZE_PAGE, "info_size %llu above %d",
				  (unsigned long long)c->info_size, EMU_INFO_SIZE_MAX);
	if (c->info_size < ver0)
		return emu_reject(v, EMU_R_SIZE_VER0, "info_size %llu below %zu",
				  (unsigned long long)c->info_size, ver0);
	err = emu_copy_struct_from_user(sp->mem, dst, ksize, c->info, c->info_size);
	if (err == -E2BIG)
		return emu_reject(v, EMU_R_SIZE_TAIL, "non-zero bytes past the first %zu of info",
				  ksize);
	if (err)
		return emu_reject(v, EMU_R_INFO_FAULT, "info 0x%llx..+%llu unreadable",
				  (unsigned long long)c->info, (unsigned long long)c->info_size);
	res->have_args = true;
	return 0;
}

static int do_register_sframe(const struct emu_policy *p, const struct emu_space *sp,
			      const struct emu_call *c, struct emu_call_result *res)
{
	struct code_sframe_info *info = &res->args.sframe;
	int err;

	err = read_info(sp, c, info, sizeof(*info), CODE_SFRAME_INFO_SIZE_VER0, res);
	if (err)
		return err;
	return emu_do_register_sframe(p, sp, info, EMU_ORIGIN_CALL, res);
}

int emu_register_exec_sframe(const struct emu_policy *p, const struct emu_space *sp,
			     const struct code_sframe_info *info, struct emu_call_result *res)
{
	int err;

	*res = (struct emu_call_result){ .option = CODE_REGISTER_SFRAME, .have_args = true,
					 .args.sframe = *info };
	emu_verdict_init(&res->verdict);
	err = emu_answer(&res->verdict, emu_do_register_sframe(p, sp, &res->args.sframe,
							       EMU_ORIGIN_EXEC, res));
	return err ? err : emu_codectl_commit(sp, res);
}

int emu_do_register_sframe(const struct emu_policy *p, const struct emu_space *sp,
			   const struct code_sframe_info *info, unsigned int origin,
			   struct emu_call_result *res)
{
	const struct emu_reg_request rq = {
		CODE_REGISTER_SFRAME, origin, EMU_ASPECT_UNWIND,
		info->text_start, info->text_end, info->sframe_start, info->sframe_end,
	};
	struct emu_verdict *v = &res->verdict;
	struct emu_registration *reg;
	int err;

	err = emu_check_ranges(info->text_start, info->text_end, info->sframe_start,
			       info->sframe_end, v);
	if (!err && !info->sframe_start)
		err = emu_reject(v, EMU_R_SFRAME_RANGE, "no sframe range (sframe_start and sframe_end 0)");
	if (!err)
		err = emu_registration_begin(p, sp, &rq, &reg, v);
	if (err)
		return err;
	err = emu_attach_sframe(p, sp, reg, info->sframe_start, info->sframe_end, res);
	return emu_stage_register(sp, reg, err, res);
}

static int do_register_sframe_file(const struct emu_policy *p, const struct emu_space *sp,
				   const struct emu_call *c, struct emu_call_result *res)
{
	struct code_sframe_file_info *info = &res->args.sframe_file;
	int err;

	if (emu_profile_is_kernel(p->profile))
		return emu_reject(&res->verdict, EMU_R_OPTION, "CODE_REGISTER_SFRAME_FILE is the "
				  "emulator's proposal: no kernel profile has it");
	err = read_info(sp, c, info, sizeof(*info), CODE_SFRAME_FILE_INFO_SIZE_VER0, res);
	if (err)
		return err;
	return emu_do_register_sframe_file(p, sp, info, res);
}

static int do_register_elf(const struct emu_policy *p, const struct emu_space *sp,
			   const struct emu_call *c, struct emu_call_result *res)
{
	struct code_elf_info *info = &res->args.elf;
	int err;

	err = read_info(sp, c, info, sizeof(*info), CODE_ELF_INFO_SIZE_VER0, res);
	if (err)
		return err;
	return emu_do_register_elf(p, sp, info, res);
}

static int do_register_jit(const struct emu_policy *p, const struct emu_space *sp,
			   const struct emu_call *c, struct emu_call_result *res)
{
	struct code_jit_info *info = &res->args.jit;
	struct emu_verdict *v = &res->verdict;
	struct emu_reg_request rq = {
		.option = CODE_REGISTER_JIT, .origin = EMU_ORIGIN_CALL, .aspects = EMU_ASPECT_UNWIND,
	};
	struct emu_registration *reg;
	int err;

	err = read_info(sp, c, info, sizeof(*info), CODE_JIT_INFO_SIZE_VER0, res);
	if (!err)
		err = emu_check_ranges(info->text_start, info->text_end, 0, 0, v);
	rq.text_start = info->text_start;
	rq.text_end = info->text_end;
	if (!err)
		err = emu_registration_begin(p, sp, &rq, &reg, v);
	if (err)
		return err;
	reg->aspects = EMU_ASPECT_UNWIND;
	reg->unwind_kind = EMU_UNWIND_JIT;
	reg->jit_head = info->unwind_head;
	reg->jit_index = emu_jit_index_new();	/* NULL: lookups walk the chain */
	return emu_stage_register(sp, reg, emu_jit_check_head(sp->mem, info->unwind_head, v), res);
}

static int do_unregister(const struct emu_space *sp, const struct emu_call *c,
			 struct emu_call_result *res)
{
	if (c->info_size)
		return emu_reject(&res->verdict, EMU_R_UNREG_SIZE,
				  "CODE_UNREGISTER with info_size %llu (must be 0)",
				  (unsigned long long)c->info_size);
	if (!emu_registry_has(sp->registry, c->info))
		return emu_reject(&res->verdict, EMU_R_UNREG_UNKNOWN,
				  "no registration at text_start 0x%llx", (unsigned long long)c->info);
	res->unregister = true;
	res->unregister_key = c->info;
	return 0;
}

const char *emu_entry_name(enum emu_entry entry)
{
	static const char *const names[EMU_ENTRY_COUNT] = {
		"codectl", "sframe_register", "sframe_unregister", "prctl", "stacktrace_setup",
		"eh_frame_register", "eh_frame_unregister",
	};

	return (unsigned int)entry < EMU_ENTRY_COUNT ? names[entry] : "unknown";
}

int emu_codectl_commit(const struct emu_space *sp, struct emu_call_result *res)
{
	int err;

	if (res->unregister) {
		if (res->entry == EMU_ENTRY_CODECTL)
			err = emu_registry_remove(sp->registry, res->unregister_key,
						  EMU_ASPECT_UNWIND | EMU_ASPECT_IDENTITY);
		else if (res->entry == EMU_ENTRY_EH_FRAME_UNREGISTER)
			err = emu_registry_remove_eh_frame(sp->registry, res->unregister_key);
		else
			err = emu_registry_remove_sframe(sp->registry, res->unregister_key);
		if (err < 0)
			return err;
		res->removed = err;
		return 0;
	}
	if (!res->staged)
		return -ENOENT;
	err = emu_registry_insert(sp->registry, res->staged, &res->verdict);
	if (err)
		return err;
	res->reg = res->staged;
	res->staged = NULL;
	return 0;
}

void emu_codectl_discard(struct emu_call_result *res)
{
	emu_registration_free(res->staged);
	res->staged = NULL;
}

int emu_codectl(const struct emu_policy *p, const struct emu_space *sp,
		const struct emu_call *c, struct emu_call_result *res)
{
	int err = emu_codectl_prepare(p, sp, c, res);

	if (!err)
		err = emu_codectl_commit(sp, res);
	emu_codectl_discard(res);
	return err;
}

static int prepare(const struct emu_policy *p, const struct emu_space *sp,
		   const struct emu_call *c, struct emu_call_result *res)
{
	*res = (struct emu_call_result){ .option = c->option };
	emu_verdict_init(&res->verdict);
	if (c->flags)
		return emu_reject(&res->verdict, EMU_R_FLAGS, "flags 0x%x (must be 0)", c->flags);
	switch (c->option) {
	case CODE_UNREGISTER:
		return do_unregister(sp, c, res);
	case CODE_REGISTER_ELF:
		return do_register_elf(p, sp, c, res);
	case CODE_REGISTER_JIT:
		return do_register_jit(p, sp, c, res);
	case CODE_REGISTER_SFRAME:
		return do_register_sframe(p, sp, c, res);
	case CODE_REGISTER_SFRAME_FILE:
		return do_register_sframe_file(p, sp, c, res);
	default:
		return emu_reject(&res->verdict, EMU_R_OPTION, "unknown option %u", c->option);
	}
}

int emu_codectl_prepare(const struct emu_policy *p, const struct emu_space *sp,
			const struct emu_call *c, struct emu_call_result *res)
{
	return emu_answer(&res->verdict, prepare(p, sp, c, res));
}
