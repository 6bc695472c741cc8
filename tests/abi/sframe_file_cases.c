// SPDX-License-Identifier: GPL-2.0
/*
 * Conformance of CODE_REGISTER_SFRAME_FILE (codectl-abi.md,
 * "CODE_REGISTER_SFRAME_FILE"): every errno rule with the file, plain and
 * zlib-compressed data accepted and unregistered. The files are memfds: a
 * regular file of the caller's, nothing on disk.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "abi.h"

/* A fresh 256-byte text chunk, a valid v3 section for it, and a memfd holding it at 64. */
struct file_fixture {
	struct code_sframe_file_info info;
	uint8_t sec[512];
	size_t len;
	int fd;
};

static bool put_file(int fd, const void *data, size_t len, off_t at)
{
	return pwrite(fd, data, len, at) == (ssize_t)len;
}

static bool file_fixture(struct abi_ctx *ctx, struct file_fixture *f)
{
	uint64_t text = abi_text(ctx, 256);
	uint8_t *where = abi_data(ctx, 512);

	f->len = abi_section(3, true, text, 4, 64, where, sizeof(f->sec));
	memcpy(f->sec, where, f->len);
	f->fd = memfd_create("sframe", MFD_CLOEXEC);
	memset(&f->info, 0, sizeof(f->info));
	f->info = (struct code_sframe_file_info){
		.text_start = text, .text_end = text + 256, .sframe_addr = (uintptr_t)where,
		.offset = 64, .length = f->len, .size = f->len, .fd = f->fd,
	};
	if (f->fd < 0 || !put_file(f->fd, f->sec, f->len, 64)) {
		snprintf(ctx->msg, sizeof(ctx->msg), "memfd: %s", strerror(errno));
		return false;
	}
	return true;
}

static long reg_file(const struct code_sframe_file_info *info)
{
	return codectl(CODE_REGISTER_SFRAME_FILE, (void *)info, sizeof(*info), 0);
}

/*
 * The fixture's section as zlib blocks (struct code_sframe_blocks) at
 * offset 4096 of its file: block 0 up to the FREs, the FREs in one block;
 * @corrupt: 1 a wrong magic, 2 an index past the data, 3 block 0 (read at
 * registration; a broken FRE block is found by the unwind that reads it).
 */
static bool zlib_fixture(struct file_fixture *f, int corrupt)
{
	uint32_t fres = 28 + f->sec[7] + (f->sec[24] | f->sec[25] << 8 | f->sec[26] << 16 |
					  (uint32_t)f->sec[27] << 24);
	struct {
		struct code_sframe_blocks h;
		struct code_sframe_block e[2];
	} idx = { .h = { .magic = CODE_SFRAME_BLOCKS_MAGIC, .version = CODE_SFRAME_BLOCKS_VERSION,
			 .nblocks = 2, .block_size = 4096, .size = f->len } };
	uint8_t z[2][1024];
	uLongf n[2] = { sizeof(z[0]), sizeof(z[1]) };
	uint64_t at = sizeof(idx);

	if (compress2(z[0], &n[0], f->sec, fres, 9) != Z_OK ||
	    compress2(z[1], &n[1], f->sec + fres, f->len - fres, 9) != Z_OK)
		return false;
	for (int b = 0; b < 2; b++) {
		idx.e[b] = (struct code_sframe_block){ at, (uint32_t)n[b],
						       b ? (uint32_t)(f->len - fres) : fres };
		at += n[b];
	}
	if (corrupt == 1)
		idx.h.magic ^= 1;
	if (corrupt == 2)
		idx.h.nblocks = 200;
	if (corrupt == 3)
		z[0][n[0] / 2] ^= 0xff;
	f->info.offset = 4096;
	f->info.length = at;
	f->info.compression = CODE_SFRAME_COMPRESS_ZLIB;
	return put_file(f->fd, &idx, sizeof(idx), 4096) &&
	       put_file(f->fd, z[0], n[0], 4096 + idx.e[0].offset) &&
	       put_file(f->fd, z[1], n[1], 4096 + idx.e[1].offset);
}

#define FIXTURE(ctx, f)                                                                \
	do {                                                                           \
		if (!file_fixture((ctx), (f)))                                         \
			return ABI_FAIL;                                               \
	} while (0)

static enum abi_result plain_accepted(struct abi_ctx *ctx)
{
	struct file_fixture f;

	FIXTURE(ctx, &f);
	EXPECT(ctx, reg_file(&f.info), 0);
	close(f.fd);	/* the registration holds the file, not the descriptor */
	EXPECT(ctx, reg_file(&f.info), EEXIST);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	EXPECT(ctx, abi_unreg(f.info.text_start), ENOENT);
	return ABI_PASS;
}

static enum abi_result zlib_accepted(struct abi_ctx *ctx)
{
	struct file_fixture f;

	FIXTURE(ctx, &f);
	if (!zlib_fixture(&f, 0))
		return ABI_FAIL;
	EXPECT(ctx, reg_file(&f.info), 0);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result struct_size_rules(struct abi_ctx *ctx)
{
	struct file_fixture f;
	uint8_t big[CODE_SFRAME_FILE_INFO_SIZE_VER0 + 8] = { 0 };

	FIXTURE(ctx, &f);
	EXPECT(ctx, codectl(CODE_REGISTER_SFRAME_FILE, &f.info, CODE_SFRAME_FILE_INFO_SIZE_VER0 - 4,
			    0), EINVAL);
	memcpy(big, &f.info, sizeof(f.info));
	big[sizeof(big) - 1] = 1;
	EXPECT(ctx, codectl(CODE_REGISTER_SFRAME_FILE, big, sizeof(big), 0), E2BIG);
	EXPECT(ctx, codectl(CODE_REGISTER_SFRAME_FILE, ctx->none, sizeof(f.info), 0), EFAULT);
	EXPECT(ctx, codectl(CODE_REGISTER_SFRAME_FILE, &f.info, sizeof(f.info), 1), EINVAL);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result field_rules(struct abi_ctx *ctx)
{
	struct file_fixture f;
	struct code_sframe_file_info i;

	FIXTURE(ctx, &f);
	i = f.info, i.text_end = i.text_start;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.sframe_addr = ~0ull - 8;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.build_id_len = CODE_BUILD_ID_MAX + 1, i.build_id = (uintptr_t)f.sec;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.build_id_len = 20;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.flags = 1;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.compression = CODE_SFRAME_COMPRESS_ZSTD + 1;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.length = 0;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.size = f.len + 1;	/* without compression, size is length */
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.size = 0, i.compression = CODE_SFRAME_COMPRESS_ZLIB;
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.offset = ~0ull - 4;
	EXPECT(ctx, reg_file(&i), EINVAL);
	EXPECT(ctx, reg_file(&f.info), 0);	/* and the fixture itself is right */
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result text_rules(struct abi_ctx *ctx)
{
	struct file_fixture f;
	struct code_sframe_file_info i;

	FIXTURE(ctx, &f);
	i = f.info, i.text_start = (uintptr_t)ctx->rw, i.text_end = i.text_start + 64;
	EXPECT(ctx, reg_file(&i), EINVAL);
	EXPECT(ctx, abi_reg_ident(f.info.text_start, f.info.text_end, "/x"), 0);
	EXPECT(ctx, reg_file(&f.info), 0);	/* another aspect: no overlap */
	EXPECT(ctx, reg_file(&f.info), EEXIST);
	EXPECT(ctx, abi_unreg(f.info.text_start), 0);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result ebadf(struct abi_ctx *ctx)
{
	struct file_fixture f;
	struct code_sframe_file_info i;
	char path[64];
	int wr;

	FIXTURE(ctx, &f);
	i = f.info, i.fd = -1;
	EXPECT(ctx, reg_file(&i), EBADF);
	i.fd = dup(f.fd);
	close(i.fd);	/* not open any more */
	EXPECT(ctx, reg_file(&i), EBADF);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", f.fd);
	wr = open(path, O_WRONLY | O_CLOEXEC);
	i.fd = wr;
	EXPECT(ctx, reg_file(&i), EBADF);
	close(wr);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result not_regular(struct abi_ctx *ctx)
{
	struct file_fixture f;
	struct code_sframe_file_info i;
	int p[2], dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	FIXTURE(ctx, &f);
	if (dir < 0 || pipe(p))
		return ABI_FAIL;
	i = f.info, i.fd = p[0];
	EXPECT(ctx, reg_file(&i), EINVAL);
	i.fd = dir;
	EXPECT(ctx, reg_file(&i), EINVAL);
	close(p[0]);
	close(p[1]);
	close(dir);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result range_past_file(struct abi_ctx *ctx)
{
	struct file_fixture f;
	struct code_sframe_file_info i;

	FIXTURE(ctx, &f);
	i = f.info, i.offset = 64 + 1;	/* one byte past the end */
	EXPECT(ctx, reg_file(&i), EINVAL);
	i = f.info, i.offset = 1 << 20;
	EXPECT(ctx, reg_file(&i), EINVAL);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result build_id_rules(struct abi_ctx *ctx)
{
	struct file_fixture f;
	struct code_sframe_file_info i;
	static const uint8_t id[20] = { 0x12, 0x34 };

	FIXTURE(ctx, &f);
	i = f.info, i.build_id = (uintptr_t)ctx->none, i.build_id_len = 20;
	EXPECT(ctx, reg_file(&i), EFAULT);
	/* anonymous text belongs to no object: it has no build id to match */
	i = f.info, i.build_id = (uintptr_t)id, i.build_id_len = sizeof(id);
	EXPECT(ctx, reg_file(&i), EINVAL);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result size_above_cap(struct abi_ctx *ctx)
{
	struct file_fixture f;
	struct code_sframe_file_info i;

	FIXTURE(ctx, &f);
	i = f.info, i.compression = CODE_SFRAME_COMPRESS_ZLIB, i.size = 1ull << 40;
	EXPECT(ctx, reg_file(&i), ENOMEM);
	close(f.fd);
	return ABI_PASS;
}

static enum abi_result invalid_data(struct abi_ctx *ctx)
{
	struct file_fixture f;
	uint8_t bad = 0;

	for (int corrupt = 1; corrupt <= 3; corrupt++) {
		FIXTURE(ctx, &f);
		if (!zlib_fixture(&f, corrupt))
			return ABI_FAIL;
		EXPECT(ctx, reg_file(&f.info), EINVAL);
		close(f.fd);
	}
	FIXTURE(ctx, &f);
	put_file(f.fd, &bad, 1, 64);	/* the magic's first byte */
	EXPECT(ctx, reg_file(&f.info), EINVAL);
	close(f.fd);
	return ABI_PASS;
}

const struct abi_case abi_sframe_file_cases[] = {
	{ "plain-accepted", plain_accepted },
	{ "zlib-accepted", zlib_accepted },
	{ "struct-size-rules", struct_size_rules },
	{ "einval-fields", field_rules },
	{ "text-and-overlap", text_rules },
	{ "ebadf", ebadf },
	{ "einval-not-regular", not_regular },
	{ "einval-range-past-file", range_past_file },
	{ "build-id", build_id_rules },
	{ "enomem-size", size_above_cap },
	{ "einval-data", invalid_data },
	{ NULL, NULL },
};
