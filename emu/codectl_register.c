// SPDX-License-Identifier: GPL-2.0
/*
 * Registration steps: mapping checks, identity strings, the SFrame section
 * copy, and CODE_REGISTER_ELF's two aspects (codectl-abi.md, "Options").
 */
#include <stdlib.h>

#include "codectl_internal.h"
#include "copy_struct.h"
#include "mem_image.h"

/* Text in executable mappings; the section (when @sframe_start) in readable ones. */
static int check_mappings(const struct emu_policy *p, const struct emu_space *sp,
			  uint64_t text_start, uint64_t text_end, uint64_t sframe_start,
			  uint64_t sframe_end, struct emu_verdict *v)
{
	if (!emu_mappings_covers(sp->maps, text_start, text_end, EMU_PROT_EXEC))
		return emu_reject(v, EMU_R_TEXT_NOT_EXEC,
				  "text 0x%llx..0x%llx not wholly in executable mappings",
				  (unsigned long long)text_start, (unsigned long long)text_end);
	if (!sframe_start)
		return 0;
	if (sframe_start == sframe_end)
		return emu_reject(v, EMU_R_SF_SHORT, "empty sframe range at 0x%llx",
				  (unsigned long long)sframe_start);
	if (!emu_mappings_covers(sp->maps, sframe_start, sframe_end, EMU_PROT_READ))
		return emu_reject(v, EMU_R_SFRAME_NOT_READABLE,
				  "sframe 0x%llx..0x%llx not wholly in readable mappings",
				  (unsigned long long)sframe_start, (unsigned long long)sframe_end);
	if (!emu_mappings_within_one(sp->maps, text_start, text_end, EMU_PROT_EXEC))
		v->kernel_refusals |= EMU_KR_TEXT_VMAS;
	if (!emu_mappings_within_one(sp->maps, sframe_start, sframe_end, EMU_PROT_READ))
		v->kernel_refusals |= EMU_KR_SFRAME_VMAS;
	return emu_kernel_rules_apply(v, p->profile);
}

int emu_registration_begin(const struct emu_policy *p, const struct emu_space *sp,
			   const struct emu_reg_request *rq, struct emu_registration **out,
			   struct emu_verdict *v)
{
	const struct emu_vma *vma = emu_mappings_find(sp->maps, rq->text_start);
	struct emu_registration *reg;
	int err;

	err = check_mappings(p, sp, rq->text_start, rq->text_end, rq->sframe_start,
			     rq->sframe_end, v);
	if (!err)
		err = emu_registry_check_insert(sp->registry, rq->text_start, rq->text_end,
						rq->aspects, rq->origin, v);
	if (err)
		return err;
	reg = calloc(1, sizeof(*reg));
	if (!reg)
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	reg->option = rq->option;
	reg->origin = rq->origin;
	reg->text_start = rq->text_start;
	reg->text_end = rq->text_end;
	reg->text_vma_ident = vma && !sp->maps_cached ? vma->ident : 0;
	*out = reg;
	return 0;
}

/* The cached copy when the bytes are unchanged, else a new validated one (cached). */
static int attach_section(const struct emu_policy *p, const struct emu_space *sp, uint8_t *buf,
			  size_t len, const struct emu_sframe_params *params,
			  struct emu_registration *reg, struct emu_verdict *v)
{
	struct emu_sframe_cache *cache = emu_registry_sframe_cache(sp->registry);
	uint32_t mapping_bits = v->kernel_refusals, kr;
	int err;

	reg->sframe = emu_sframe_cache_find(cache, buf, len, params, &kr);
	if (reg->sframe) {
		free(buf);
		v->kernel_refusals |= kr;
		return emu_kernel_rules_apply(v, p->profile);
	}
	err = emu_sframe_load(buf, len, params, &reg->sframe, v);
	if (!err)
		emu_sframe_cache_add(cache, reg->sframe, params, v->kernel_refusals & ~mapping_bits);
	return err;
}

/* The section's bytes in a new buffer; NULL with @v set (the caps, memory, a fault). */
static uint8_t *copy_section(const struct emu_policy *p, const struct emu_space *sp,
			     uint64_t start, uint64_t len, struct emu_verdict *v)
{
	uint64_t total = emu_registry_sframe_bytes(sp->registry) + len;
	uint8_t *buf;

	if (len > p->max_sframe_size) {
		emu_reject(v, EMU_R_SFRAME_TOO_BIG, "sframe section of %llu bytes above the "
			   "%zu-byte limit", (unsigned long long)len, p->max_sframe_size);
		return NULL;
	}
	if (total > p->max_sframe_total) {
		emu_reject(v, EMU_R_SFRAME_BUDGET, "sframe sections would take %llu bytes, above "
			   "this process's %llu-byte budget", (unsigned long long)total,
			   (unsigned long long)p->max_sframe_total);
		return NULL;
	}
	buf = malloc(len);
	if (!buf) {
		emu_reject(v, EMU_R_NOMEM, "out of memory");
		return NULL;
	}
	if (emu_read(sp->mem, start, buf, len)) {
		free(buf);
		emu_reject(v, EMU_R_SFRAME_FAULT, "sframe 0x%llx..0x%llx unreadable",
			   (unsigned long long)start, (unsigned long long)(start + len));
		return NULL;
	}
	return buf;
}

/*
 * v16: the section registered as sframe_add_section() takes it, read through
 * the copy when the emulator could take one (the same bytes, read once), else
 * from the process. The copy is then kept for --verify and the reports when
 * the emulator's own validation accepts it; it never decides the answer.
 */
static int attach_kernel(const struct emu_policy *p, const struct emu_space *sp,
			 struct emu_registration *reg, const struct emu_sframe_params *params,
			 uint64_t sframe_end, struct emu_verdict *v)
{
	const struct emu_arch_info *arch = emu_arch_get(p->arch);
	uint64_t start = params->sframe_addr, len = sframe_end - start;
	struct emu_mem_image img = { .fallback = sp->mem };
	struct emu_accessor mem = emu_mem_image_accessor(&img);
	struct emu_sframe_params own = *params;
	struct emu_policy emulator = *p;
	struct emu_verdict scratch;
	uint8_t *buf;
	int err;

	if (!arch)
		return emu_reject(v, EMU_R_SF_ABI, "unknown architecture %d", p->arch);
	emu_verdict_init(&scratch);
	buf = copy_section(p, sp, start, len, &scratch);
	if (buf)
		emu_mem_image_add(&img, start, buf, len);
	reg->ksframe = (struct emu_ksframe){
		.sframe_start = start, .sframe_end = sframe_end,
		.text_start = reg->text_start, .text_end = reg->text_end,
	};
	err = emu_ksframe_add(&reg->ksframe, &mem, arch, p->sframe_validation, v);
	if (err || !buf) {
		free(buf);
		return err;
	}
	emulator.profile = own.profile = EMU_PROFILE_EMULATOR;
	if (attach_section(&emulator, sp, buf, len, &own, reg, &scratch))
		reg->sframe = NULL;
	return 0;
}

int emu_attach_sframe(const struct emu_policy *p, const struct emu_space *sp,
		      struct emu_registration *reg, uint64_t sframe_start, uint64_t sframe_end,
		      struct emu_call_result *res)
{
	struct emu_sframe_params params = {
		.sframe_addr = sframe_start, .text_start = reg->text_start,
		.text_end = reg->text_end, .arch = p->arch, .profile = p->profile, .maps = sp->maps,
	};
	uint8_t *buf;
	int err;

	if (p->profile == EMU_PROFILE_V16) {
		err = attach_kernel(p, sp, reg, &params, sframe_end, &res->verdict);
	} else {
		buf = copy_section(p, sp, sframe_start, sframe_end - sframe_start, &res->verdict);
		err = buf ? attach_section(p, sp, buf, sframe_end - sframe_start, &params, reg,
					   &res->verdict) : -emu_rule_errno(res->verdict.rule);
	}
	if (err)
		return err;
	reg->aspects |= EMU_ASPECT_UNWIND;
	reg->unwind_kind = EMU_UNWIND_SFRAME;
	reg->sframe_start = sframe_start;
	reg->sframe_end = sframe_end;
	res->sframe_version = reg->sframe ? emu_sframe_header(reg->sframe)->version : 3;
	res->sframe_fdes = reg->sframe ? emu_sframe_header(reg->sframe)->num_fdes :
			   reg->ksframe.num_fdes;
	return 0;
}

int emu_stage_register(const struct emu_space *sp, struct emu_registration *reg, int err,
		       struct emu_call_result *res)
{
	if (!err && emu_registry_reserve(sp->registry))
		err = emu_reject(&res->verdict, EMU_R_NOMEM, "out of memory");
	if (err) {
		emu_registration_free(reg);
		return err;
	}
	res->staged = reg;
	return 0;
}

static int read_path(const struct emu_space *sp, uint64_t addr, const char *what, char **out,
		     struct emu_verdict *v)
{
	int err;

	if (!addr)
		return 0;
	err = emu_strndup_user(sp->mem, addr, EMU_PATH_MAX, out);
	if (err == -EFAULT)
		return emu_reject(v, EMU_R_PATH_FAULT, "%s 0x%llx unreadable", what,
				  (unsigned long long)addr);
	if (err == -ENAMETOOLONG)
		return emu_reject(v, EMU_R_PATH_TOO_LONG, "%s 0x%llx: no NUL within %d bytes", what,
				  (unsigned long long)addr, EMU_PATH_MAX);
	if (err)
		return emu_reject(v, EMU_R_NOMEM, "out of memory");
	return 0;
}

static int read_identity(const struct emu_space *sp, const struct code_elf_info *info,
			 struct emu_identity *id, struct emu_verdict *v)
{
	int err;

	id->elf_start = info->elf_start;
	id->elf_end = info->elf_end;
	id->debug_link_crc = info->debug_link_crc;
	id->build_id_len = info->build_id_len;
	err = read_path(sp, info->pathname, "pathname", &id->pathname, v);
	if (!err && info->build_id_len &&
	    emu_read(sp->mem, info->build_id, id->build_id, info->build_id_len))
		err = emu_reject(v, EMU_R_BUILD_ID_FAULT, "build id 0x%llx..+%u unreadable",
				 (unsigned long long)info->build_id, info->build_id_len);
	if (!err)
		err = read_path(sp, info->debug_link_pathname, "debug link", &id->debug_link, v);
	return err;
}

int emu_check_ranges(uint64_t text_start, uint64_t text_end, uint64_t sframe_start,
		     uint64_t sframe_end, struct emu_verdict *v)
{
	if (text_start >= text_end)
		return emu_reject(v, EMU_R_TEXT_RANGE, "text_start 0x%llx not below text_end 0x%llx",
				  (unsigned long long)text_start, (unsigned long long)text_end);
	if (sframe_start > sframe_end)
		return emu_reject(v, EMU_R_SFRAME_RANGE, "sframe_start 0x%llx above sframe_end 0x%llx",
				  (unsigned long long)sframe_start, (unsigned long long)sframe_end);
	if (!sframe_start != !sframe_end)
		return emu_reject(v, EMU_R_SFRAME_RANGE, "only one of sframe_start/sframe_end is 0");
	return 0;
}

/* Field rules of struct code_elf_info that need no tracee memory. */
static int check_elf_fields(const struct code_elf_info *info, struct emu_verdict *v)
{
	int err = emu_check_ranges(info->text_start, info->text_end, info->sframe_start,
				   info->sframe_end, v);

	if (err)
		return err;
	if (info->build_id_len > CODE_BUILD_ID_MAX)
		return emu_reject(v, EMU_R_BUILD_ID_LEN, "build_id_len %u above %d",
				  info->build_id_len, CODE_BUILD_ID_MAX);
	if (info->build_id_len && !info->build_id)
		return emu_reject(v, EMU_R_BUILD_ID_NULL, "build_id_len %u with build_id 0",
				  info->build_id_len);
	if (!info->sframe_start && !info->pathname && !info->build_id_len &&
	    !info->debug_link_pathname)
		return emu_reject(v, EMU_R_NO_ASPECT,
				  "neither sframe nor pathname, build id or debug link");
	return 0;
}

static unsigned int elf_aspects(const struct code_elf_info *info)
{
	unsigned int aspects = info->sframe_start ? EMU_ASPECT_UNWIND : 0;

	if (info->pathname || info->build_id_len || info->debug_link_pathname)
		aspects |= EMU_ASPECT_IDENTITY;
	return aspects;
}

int emu_do_register_elf(const struct emu_policy *p, const struct emu_space *sp,
			const struct code_elf_info *info, struct emu_call_result *res)
{
	const struct emu_reg_request rq = {
		CODE_REGISTER_ELF, EMU_ORIGIN_CALL, elf_aspects(info),
		info->text_start, info->text_end, info->sframe_start, info->sframe_end,
	};
	struct emu_verdict *v = &res->verdict;
	struct emu_registration *reg;
	int err;

	err = check_elf_fields(info, v);
	if (!err)
		err = emu_registration_begin(p, sp, &rq, &reg, v);
	if (err)
		return err;
	reg->aspects = rq.aspects & EMU_ASPECT_IDENTITY;
	if (reg->aspects)
		err = read_identity(sp, info, &reg->ident, v);
	if (!err && info->sframe_start)
		err = emu_attach_sframe(p, sp, reg, info->sframe_start, info->sframe_end, res);
	return emu_stage_register(sp, reg, err, res);
}
