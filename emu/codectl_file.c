// SPDX-License-Identifier: GPL-2.0
/*
 * CODE_REGISTER_SFRAME_FILE: an SFrame section in a file of the caller's
 * (codectl-abi.md, "CODE_REGISTER_SFRAME_FILE"). The checks in the ABI's
 * order: the fields, the text's mappings, overlap and limit, the build id
 * given, the size cap, the file (fdget() as the kernel does it: open,
 * readable, regular, the range inside it), the text's build id, then the
 * section's header and FDE table read from the file and validated.
 */
#include <stdio.h>
#include <string.h>

#include "build_id.h"
#include "codectl_internal.h"
#include "sframe_file.h"

static int check_fields(const struct code_sframe_file_info *info, struct emu_verdict *v)
{
	int err = emu_check_ranges(info->text_start, info->text_end, 0, 0, v);

	if (err)
		return err;
	if (info->sframe_addr + info->size < info->sframe_addr)
		return emu_reject(v, EMU_R_SFRAME_RANGE, "sframe_addr 0x%llx + size %llu wraps",
				  (unsigned long long)info->sframe_addr,
				  (unsigned long long)info->size);
	if (info->build_id_len > CODE_BUILD_ID_MAX)
		return emu_reject(v, EMU_R_BUILD_ID_LEN, "build_id_len %u above %d",
				  info->build_id_len, CODE_BUILD_ID_MAX);
	if (info->build_id_len && !info->build_id)
		return emu_reject(v, EMU_R_BUILD_ID_NULL, "build_id_len %u with build_id 0",
				  info->build_id_len);
	if (info->flags)
		return emu_reject(v, EMU_R_FILE_FLAGS, "flags 0x%x (none defined)", info->flags);
	if (info->compression > CODE_SFRAME_COMPRESS_ZSTD)
		return emu_reject(v, EMU_R_FILE_COMPRESSION, "compression %u unknown",
				  info->compression);
	if (!info->length || !info->size || info->offset + info->length < info->offset ||
	    (info->compression == CODE_SFRAME_COMPRESS_NONE && info->size != info->length))
		return emu_reject(v, EMU_R_FILE_SIZES, "offset %llu, length %llu, size %llu, "
				  "compression %u", (unsigned long long)info->offset,
				  (unsigned long long)info->length, (unsigned long long)info->size,
				  info->compression);
	return 0;
}

/* The caller's file at @info->fd, checked; released on failure. */
static int get_file(const struct emu_space *sp, const struct code_sframe_file_info *info,
		    struct emu_file *f, struct emu_verdict *v)
{
	int err = sp->files ? sp->files->get(sp->files->ctx, info->fd, f) : -EBADF;

	if (err == -EBADF)
		return emu_reject(v, EMU_R_FILE_FD, "fd %d not open in the caller", info->fd);
	if (err)
		return emu_reject(v, EMU_R_EMULATOR_FAILURE, "fd %d: the emulator could not take "
				  "the file (%s)", info->fd, strerror(-err));
	if (!f->readable)
		err = emu_reject(v, EMU_R_FILE_FD, "fd %d not open for reading", info->fd);
	else if (!f->regular)
		err = emu_reject(v, EMU_R_FILE_NOT_REGULAR, "fd %d not a regular file", info->fd);
	else if (f->may_block)
		err = emu_reject(v, EMU_R_FILE_MAY_BLOCK, "fd %d: a file whose reads can wait on "
				  "a process (FUSE or network filesystem)", info->fd);
	else if (info->offset > f->size || f->size - info->offset < info->length)
		err = emu_reject(v, EMU_R_FILE_RANGE, "offset %llu + length %llu past the file's "
				  "%llu bytes", (unsigned long long)info->offset,
				  (unsigned long long)info->length, (unsigned long long)f->size);
	if (err)
		f->release(f->ctx);
	return err;
}

/* The build id given (read from the caller), and the text's object's, equal. */
static int check_build_id(const struct emu_space *sp, const struct code_sframe_file_info *info,
			  const uint8_t *want, struct emu_verdict *v)
{
	uint8_t have[EMU_BUILD_ID_MAX];
	size_t len = 0;
	int err;

	if (!info->build_id_len)
		return 0;
	err = emu_text_build_id(sp->mem, sp->maps, info->text_start, have, &len);
	if (err)
		return emu_reject(v, EMU_R_BUILD_ID_MISMATCH, "the text's object has no build id "
				  "to compare (%s)", strerror(-err));
	if (len != info->build_id_len || memcmp(have, want, len))
		return emu_reject(v, EMU_R_BUILD_ID_MISMATCH, "the text's object has another "
				  "build id (%zu bytes, %02x...)", len, have[0]);
	return 0;
}

/* Everything after the registry's checks: the build id, the cap, the file, the section. */
static int attach_file(const struct emu_policy *p, const struct emu_space *sp,
		       const struct code_sframe_file_info *info, struct emu_registration *reg,
		       struct emu_call_result *res)
{
	const struct emu_sframe_params params = {
		.sframe_addr = info->sframe_addr, .text_start = info->text_start,
		.text_end = info->text_end, .arch = p->arch, .profile = p->profile,
		.maps = sp->maps,
	};
	uint64_t held = emu_registry_sframe_bytes(sp->registry);
	struct emu_sframe_file_params fp = {
		.offset = info->offset, .length = info->length, .size = info->size,
		.compression = info->compression,
		.room = p->max_sframe_total > held ? p->max_sframe_total - held : 0,
	};
	struct emu_verdict *v = &res->verdict;
	uint8_t id[CODE_BUILD_ID_MAX];
	struct emu_file f;
	int err;

	if (info->build_id_len && emu_read(sp->mem, info->build_id, id, info->build_id_len))
		return emu_reject(v, EMU_R_BUILD_ID_FAULT, "build id 0x%llx..+%u unreadable",
				  (unsigned long long)info->build_id, info->build_id_len);
	if (info->size > p->max_sframe_size)
		return emu_reject(v, EMU_R_SFRAME_TOO_BIG, "sframe section of %llu bytes above the "
				  "%zu-byte limit", (unsigned long long)info->size,
				  p->max_sframe_size);
	err = get_file(sp, info, &f, v);
	if (err)
		return err;
	err = check_build_id(sp, info, id, v);
	fp.cache = err ? NULL : emu_registry_block_cache(sp->registry, p->max_sframe_cache);
	if (!err && !fp.cache)
		err = emu_reject(v, EMU_R_NOMEM, "out of memory");
	if (err) {
		f.release(f.ctx);
		return err;
	}
	err = emu_sframe_load_file(&f, &fp, &params, &reg->sframe, v);
	if (err)
		return err;
	reg->aspects |= EMU_ASPECT_UNWIND;
	reg->unwind_kind = EMU_UNWIND_SFRAME;
	reg->sframe_start = info->sframe_addr;
	reg->sframe_end = info->sframe_addr + info->size;
	res->sframe_version = emu_sframe_header(reg->sframe)->version;
	res->sframe_fdes = emu_sframe_header(reg->sframe)->num_fdes;
	return 0;
}

int emu_do_register_sframe_file(const struct emu_policy *p, const struct emu_space *sp,
				const struct code_sframe_file_info *info,
				struct emu_call_result *res)
{
	const struct emu_reg_request rq = {
		CODE_REGISTER_SFRAME_FILE, EMU_ORIGIN_CALL, EMU_ASPECT_UNWIND,
		info->text_start, info->text_end, 0, 0,
	};
	struct emu_verdict *v = &res->verdict;
	struct emu_registration *reg;
	int err;

	err = check_fields(info, v);
	if (!err)
		err = emu_registration_begin(p, sp, &rq, &reg, v);
	if (err)
		return err;
	return emu_stage_register(sp, reg, attach_file(p, sp, info, reg, res), res);
}
