/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An SFrame section made into the data CODE_REGISTER_SFRAME_FILE reads, and
 * the file sframe-extract(1) writes around it (include/codectl_sframe_file.h).
 */
#ifndef SUPERVISOR_EXTRACT_SFRAME_PACK_H
#define SUPERVISOR_EXTRACT_SFRAME_PACK_H

#include <stddef.h>
#include <stdint.h>

#include <codectl_sframe_file.h>

/* Default bytes of each compressed FRE block. */
#define SFRAME_PACK_BLOCK 16384u

/**
 * sframe_pack() - @sec (@len bytes, an SFrame section) as the data of a file
 * @compression: CODE_SFRAME_COMPRESS_*: NONE gives the bytes as they are;
 *	ZLIB and ZSTD the block format of struct code_sframe_blocks: block 0
 *	up to the FRE sub-section, then FRE blocks of @block_size bytes
 * @block_size: CODE_SFRAME_BLOCK_SIZE_MIN..MAX
 * @out, @out_len: the data, malloc'd (the caller's)
 * Return: 0, -EINVAL (@sec too short for an SFrame header, its FRE
 * sub-section outside it, or a bad @compression or @block_size), -ENOMEM, -EIO
 * (the codec failed).
 */
int sframe_pack(const uint8_t *sec, size_t len, unsigned int compression, uint32_t block_size,
		uint8_t **out, size_t *out_len);

/**
 * sframe_file_header() - the header of a file holding @data_len bytes of
 * data made by sframe_pack() from a section of @size bytes at @sframe_vaddr
 * in an object with build id @id (@id_len bytes, at most CODE_BUILD_ID_MAX),
 * the data at CODECTL_SFRAME_FILE_HDR_SIZE
 */
struct codectl_sframe_file sframe_file_header(unsigned int compression, uint64_t sframe_vaddr,
					      uint64_t size, uint64_t data_len,
					      const uint8_t *id, size_t id_len);

#endif /* SUPERVISOR_EXTRACT_SFRAME_PACK_H */
