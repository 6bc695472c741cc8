// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own proposals (codectl-abi.md, "The kernel's own proposals"):
 * sframe_register(2)/sframe_unregister(2), the v12 prctl and stacktrace_setup,
 * each decoding its arguments into sframe_add() and sframe_remove(), the
 * series' sframe_add_section() and sframe_remove_section() (codectl-abi.md,
 * "Order of checks": the v16 order of checks and their errnos); and
 * eh_frame_register(2)/eh_frame_unregister(2) into eh_frame_add() and the
 * removal by header, the .eh_frame proposal's eh_frame_add_section() and
 * eh_frame_remove_section() ("The .eh_frame proposal").
 */
#include <stdlib.h>
#include <linux/stacktrace_setup.h>

#include "codectl_internal.h"
#include "kernel_call.h"

/* sframe_add_section(): ranges, mappings, the section, the overlap last (v16 order). */
static int sframe_add(const struct emu_policy *p, const struct emu_space *sp, uint64_t sframe_start,
		      uint64_t sframe_end, uint64_t text_start, uint64_t text_end,
		      unsigned int origin, struct emu_call_result *res)
{
	struct emu_verdict *v = &res->verdict;
	const struct emu_vma *vma = emu_mappings_find(sp->maps, text_start);
	struct emu_registration *reg;
	int err;

	if (sframe_start >= sframe_end || text_start >= text_end)
		return emu_reject(v, EMU_R_SETUP_RANGE,
				  "sframe 0x%llx..0x%llx or text 0x%llx..0x%llx empty or inverted",
				  (unsigned long long)sframe_start, (unsigned long long)sframe_end,
				  (unsigned long long)text_start, (unsigned long long)text_end);
	if (!emu_mappings_within_one(sp->maps, sframe_start, sframe_end, 0))
		return emu_reject(v, EMU_R_SETUP_SFRAME_VMA, "sframe 0x%llx..0x%llx not inside one mapping",
				  (unsigned long long)sframe_start, (unsigned long long)sframe_end);
	if (!emu_mappings_within_one(sp->maps, text_start, text_end, EMU_PROT_EXEC))
		return emu_reject(v, EMU_R_SETUP_TEXT_VMA,
				  "text 0x%llx..0x%llx not inside one executable mapping",
				  (unsigned long long)text_start, (unsigned long long)text_end);
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	reg->option = CODE_REGISTER_SFRAME;
	reg->origin = origin;
	reg->text_start = text_start;
	reg->text_end = text_end;
	reg->text_vma_ident = vma && !sp->maps_cached ? vma->ident : 0;
	err = emu_attach_sframe(p, sp, reg, sframe_start, sframe_end, res);
	if (!err)
		err = emu_registry_check_insert(sp->registry, text_start, text_end, EMU_ASPECT_UNWIND,
						origin, v);
	return emu_stage_register(sp, reg, err, res);
}

/* sframe_remove_section(): every text range registered with @sframe_start. */
static int sframe_remove(const struct emu_space *sp, uint64_t sframe_start,
			 struct emu_call_result *res)
{
	if (!emu_registry_has_sframe(sp->registry, sframe_start))
		return emu_reject(&res->verdict, EMU_R_SETUP_UNREG_UNKNOWN,
				  "no registration with sframe_start 0x%llx",
				  (unsigned long long)sframe_start);
	res->unregister = true;
	res->unregister_key = sframe_start;
	return 0;
}

/* [@start, @start + @size) as an end: EINVAL when empty or wrapping. */
static int length_end(uint64_t start, uint64_t size, const char *what, uint64_t *end,
		      struct emu_verdict *v)
{
	if (!size || start + size < start)
		return emu_reject(v, EMU_R_SETUP_RANGE, "%s 0x%llx + %llu %s", what,
				  (unsigned long long)start, (unsigned long long)size,
				  size ? "wraps" : "is empty");
	*end = start + size;
	return 0;
}

/*
 * The struct's size is its version (no copy_struct_from_user()), then the
 * copy into @res->args (struct sframe_setup and struct eh_frame_setup: both
 * 32 bytes, SFRAME_SETUP_SIZE_VER0 and EH_FRAME_SETUP_SIZE_VER0).
 */
static int read_setup(const struct emu_space *sp, uint64_t addr, uint64_t size,
		      struct emu_call_result *res)
{
	_Static_assert(sizeof(res->args.setup) == sizeof(res->args.eh_setup), "setup sizes");
	const char *what = res->entry == EMU_ENTRY_EH_FRAME_REGISTER ||
			   res->entry == EMU_ENTRY_EH_FRAME_UNREGISTER ?
			   "eh_frame_setup" : "sframe_setup";

	if (size != SFRAME_SETUP_SIZE_VER0)
		return emu_reject(&res->verdict, EMU_R_SETUP_SIZE, "size %llu, not %d",
				  (unsigned long long)size, SFRAME_SETUP_SIZE_VER0);
	if (emu_read(sp->mem, addr, &res->args.setup, sizeof(res->args.setup)))
		return emu_reject(&res->verdict, EMU_R_SETUP_FAULT, "struct %s at 0x%llx unreadable",
				  what, (unsigned long long)addr);
	res->have_args = true;
	return 0;
}

static int sframe_register_call(const struct emu_policy *p, const struct emu_space *sp,
				const uint64_t *arg, struct emu_call_result *res)
{
	const struct sframe_setup *s = &res->args.setup;
	uint64_t sframe_end = 0, text_end = 0;
	int err;

	err = read_setup(sp, arg[0], arg[1], res);
	if (!err)
		err = length_end(s->sframe_start, s->sframe_size, "sframe", &sframe_end, &res->verdict);
	if (!err)
		err = length_end(s->text_start, s->text_size, "text", &text_end, &res->verdict);
	if (err)
		return err;
	return sframe_add(p, sp, s->sframe_start, sframe_end, s->text_start, text_end,
			  EMU_ORIGIN_SFRAME_REGISTER, res);
}

/*
 * The struct of a removal by a section's start (sframe_unregister,
 * eh_frame_unregister: the same layout), the other fields 0; *@key its start.
 */
static int removal_key(const struct emu_space *sp, const uint64_t *arg, const char *size_name,
		       uint64_t *key, struct emu_call_result *res)
{
	const struct sframe_setup *s = &res->args.setup;
	int err = read_setup(sp, arg[0], arg[1], res);

	if (err)
		return err;
	if (s->sframe_size || s->text_start || s->text_size)
		return emu_reject(&res->verdict, EMU_R_SETUP_UNREG_FIELDS,
				  "%s %llu, text_start 0x%llx, text_size %llu (must be 0)", size_name,
				  (unsigned long long)s->sframe_size, (unsigned long long)s->text_start,
				  (unsigned long long)s->text_size);
	*key = s->sframe_start;
	return 0;
}

static int sframe_unregister_call(const struct emu_space *sp, const uint64_t *arg,
				  struct emu_call_result *res)
{
	uint64_t key = 0;
	int err = removal_key(sp, arg, "sframe_size", &key, res);

	return err ? err : sframe_remove(sp, key, res);
}

/* prctl(option, arg2, arg3, arg4, arg5): option is an int. */
static int prctl_call(const struct emu_policy *p, const struct emu_space *sp, const uint64_t *arg,
		      struct emu_call_result *res)
{
	int option = (int)arg[0];

	if (option == PR_ADD_SFRAME)
		return sframe_add(p, sp, arg[1], arg[2], arg[3], arg[4], EMU_ORIGIN_PRCTL, res);
	if (option != PR_REMOVE_SFRAME)
		return emu_reject(&res->verdict, EMU_R_PRCTL_OPTION, "prctl option %d", option);
	if (arg[2] || arg[3] || arg[4])
		return emu_reject(&res->verdict, EMU_R_PRCTL_ARGS,
				  "PR_REMOVE_SFRAME with arg3 0x%llx, arg4 0x%llx, arg5 0x%llx "
				  "(must be 0)", (unsigned long long)arg[2],
				  (unsigned long long)arg[3], (unsigned long long)arg[4]);
	return sframe_remove(sp, arg[1], res);
}

/* stacktrace_setup(int op, addr, len, text, len): lengths; unregister ignores the rest. */
static int stacktrace_setup_call(const struct emu_policy *p, const struct emu_space *sp,
				 const uint64_t *arg, struct emu_call_result *res)
{
	int op = (int)arg[0];
	uint64_t sframe_end = 0, text_end = 0;
	int err;

	if (op == STACKTRACE_UNREGISTER_SFRAME)
		return sframe_remove(sp, arg[1], res);
	if (op != STACKTRACE_REGISTER_SFRAME)
		return emu_reject(&res->verdict, EMU_R_STACKTRACE_OP, "op %d (1 or 2)", op);
	err = length_end(arg[1], arg[2], "sframe", &sframe_end, &res->verdict);
	if (!err)
		err = length_end(arg[3], arg[4], "text", &text_end, &res->verdict);
	if (err)
		return err;
	return sframe_add(p, sp, arg[1], sframe_end, arg[3], text_end, EMU_ORIGIN_STACKTRACE_SETUP,
			  res);
}

/*
 * eh_frame_add_section(): ranges, the header in one mapping, the text in one
 * executable mapping, the header read (and the tables validated), the
 * overlap with another .eh_frame registration last.
 */
static int eh_frame_add(const struct emu_policy *p, const struct emu_space *sp,
			const struct emu_eh_frame *ranges, struct emu_call_result *res)
{
	struct emu_verdict *v = &res->verdict;
	const struct emu_vma *vma = emu_mappings_find(sp->maps, ranges->text_start);
	struct emu_registration *reg;
	int err;

	if (!emu_mappings_within_one(sp->maps, ranges->hdr_start, ranges->hdr_end, 0))
		return emu_reject(v, EMU_R_EHF_HDR_VMA, ".eh_frame_hdr 0x%llx..0x%llx not inside "
				  "one mapping", (unsigned long long)ranges->hdr_start,
				  (unsigned long long)ranges->hdr_end);
	if (!emu_mappings_within_one(sp->maps, ranges->text_start, ranges->text_end, EMU_PROT_EXEC))
		return emu_reject(v, EMU_R_SETUP_TEXT_VMA,
				  "text 0x%llx..0x%llx not inside one executable mapping",
				  (unsigned long long)ranges->text_start,
				  (unsigned long long)ranges->text_end);
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	reg->aspects = EMU_ASPECT_EH_FRAME;
	reg->origin = EMU_ORIGIN_EH_FRAME_REGISTER;
	reg->text_start = ranges->text_start;
	reg->text_end = ranges->text_end;
	reg->text_vma_ident = vma && !sp->maps_cached ? vma->ident : 0;
	reg->eh_frame = *ranges;
	err = emu_eh_frame_add(&reg->eh_frame, sp->mem, sp->maps, p->sframe_validation, v);
	if (!err)
		err = emu_registry_check_insert(sp->registry, reg->text_start, reg->text_end,
						EMU_ASPECT_EH_FRAME, reg->origin, v);
	return emu_stage_register(sp, reg, err, res);
}

static int eh_frame_register_call(const struct emu_policy *p, const struct emu_space *sp,
				  const uint64_t *arg, struct emu_call_result *res)
{
	const struct eh_frame_setup *s = &res->args.eh_setup;
	struct emu_eh_frame ranges = { 0 };
	int err;

	err = read_setup(sp, arg[0], arg[1], res);
	if (!err)
		err = length_end(s->eh_frame_hdr_start, s->eh_frame_hdr_size, ".eh_frame_hdr",
				 &ranges.hdr_end, &res->verdict);
	if (!err)
		err = length_end(s->text_start, s->text_size, "text", &ranges.text_end,
				 &res->verdict);
	if (err)
		return err;
	ranges.hdr_start = s->eh_frame_hdr_start;
	ranges.text_start = s->text_start;
	return eh_frame_add(p, sp, &ranges, res);
}

/* eh_frame_remove_section(): every text range registered with the header. */
static int eh_frame_unregister_call(const struct emu_space *sp, const uint64_t *arg,
				    struct emu_call_result *res)
{
	uint64_t key = 0;
	int err = removal_key(sp, arg, "eh_frame_hdr_size", &key, res);

	if (err)
		return err;
	if (!emu_registry_has_eh_frame(sp->registry, key))
		return emu_reject(&res->verdict, EMU_R_EHF_UNREG_UNKNOWN,
				  "no registration with eh_frame_hdr_start 0x%llx",
				  (unsigned long long)key);
	res->unregister = true;
	res->unregister_key = key;
	return 0;
}

/*
 * The shared validation words these two rules with EINVAL; v16 gives them
 * EFAULT (codectl-abi.md, "Per-FDE checks" and "Per-FRE checks").
 */
static int kernel_errno(struct emu_verdict *v, int err)
{
	if (v->rule == EMU_R_SF_FDE_TEXT)
		v->rule = EMU_R_SETUP_FDE_TEXT;
	else if (v->rule == EMU_R_SF_FDE_FRES)
		v->rule = EMU_R_SETUP_FDE_FRES;
	else
		return err;
	return -emu_rule_errno(v->rule);
}

static int prepare(const struct emu_policy *p, const struct emu_space *sp,
		   const struct emu_kcall *kc, struct emu_call_result *res)
{
	*res = (struct emu_call_result){ .entry = kc->entry };
	emu_verdict_init(&res->verdict);
	switch (kc->entry) {
	case EMU_ENTRY_SFRAME_REGISTER:
		return sframe_register_call(p, sp, kc->arg, res);
	case EMU_ENTRY_SFRAME_UNREGISTER:
		return sframe_unregister_call(sp, kc->arg, res);
	case EMU_ENTRY_PRCTL:
		return prctl_call(p, sp, kc->arg, res);
	case EMU_ENTRY_STACKTRACE_SETUP:
		return stacktrace_setup_call(p, sp, kc->arg, res);
	case EMU_ENTRY_EH_FRAME_REGISTER:
		return eh_frame_register_call(p, sp, kc->arg, res);
	case EMU_ENTRY_EH_FRAME_UNREGISTER:
		return eh_frame_unregister_call(sp, kc->arg, res);
	default:
		return emu_reject(&res->verdict, EMU_R_OPTION, "entry point %d is not a kernel "
				  "proposal", (int)kc->entry);
	}
}

int emu_kcall_prepare(const struct emu_policy *p, const struct emu_space *sp,
		      const struct emu_kcall *kc, struct emu_call_result *res)
{
	int err = prepare(p, sp, kc, res);

	return emu_answer(&res->verdict, kernel_errno(&res->verdict, err));
}

int emu_kcall(const struct emu_policy *p, const struct emu_space *sp, const struct emu_kcall *kc,
	      struct emu_call_result *res)
{
	int err = emu_kcall_prepare(p, sp, kc, res);

	if (!err)
		err = emu_codectl_commit(sp, res);
	emu_codectl_discard(res);
	return err;
}
