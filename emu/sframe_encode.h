/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An SFrame version 3 section written from rows (binutils libsframe/doc
 * sframe-spec, "SFrame Section"): AMD64, DEFAULT FDEs only, the RA at the
 * fixed CFA - 8, function starts PC-relative, FDEs sorted. What
 * --synthesize-sframe registers, and nothing a test writes on purpose.
 */
#ifndef EMU_SFRAME_ENCODE_H
#define EMU_SFRAME_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct emu_sframe_row - one FRE: from @start (bytes into its function) on,
 *	CFA = (SP or FP, @sp_base) + @cfa_off, the caller's FP at CFA + @fp_off
 *	when @fp_saved; @outermost: no caller (an FRE without data words)
 */
struct emu_sframe_row {
	uint32_t start;
	bool outermost;
	bool sp_base;
	bool fp_saved;
	int32_t cfa_off;
	int32_t fp_off;
};

/** struct emu_sframe_enc_fde - a function written: its range and its FREs' offset */
struct emu_sframe_enc_fde {
	uint64_t func;
	uint32_t size;
	uint32_t fre_off;
};

/**
 * struct emu_sframe_encoder - a section being written (all zero to start)
 * @fdes: the functions so far (@nfdes of @fdes_cap; malloc'd)
 * @fres: the FRE subsection so far (@fres_len bytes of @fres_cap; malloc'd)
 * @nfres: FREs written
 * @last_end: where the last function ends (functions come in address order)
 */
struct emu_sframe_encoder {
	struct emu_sframe_enc_fde *fdes;
	size_t fdes_cap;
	uint8_t *fres;
	size_t fres_len;
	size_t fres_cap;
	uint32_t nfdes;
	uint32_t nfres;
	uint64_t last_end;
};

/**
 * emu_sframe_encode_fde() - add the function [@func, @func + @size) with its
 *	@n rows (the first at 0, ascending starts, each below @size)
 * Return: 0; -EINVAL (rows out of order, a function overlapping the one
 * before, more than 65535 rows or 4 GiB); -ENOMEM.
 */
int emu_sframe_encode_fde(struct emu_sframe_encoder *enc, uint64_t func, uint32_t size,
			  const struct emu_sframe_row *rows, unsigned int n);

/**
 * emu_sframe_encode_finish() - the section, to be loaded at @addr
 * @out, @len: the malloc'd bytes (the caller's) on success
 * The encoder is emptied in every case. Return: 0, -EINVAL (an FDE too far
 * from @addr for 64 bits: never), -ENOMEM.
 */
int emu_sframe_encode_finish(struct emu_sframe_encoder *enc, uint64_t addr, uint8_t **out,
			     size_t *len);

/** emu_sframe_encode_free() - drop what an encoder holds (also after an error). */
void emu_sframe_encode_free(struct emu_sframe_encoder *enc);

#endif /* EMU_SFRAME_ENCODE_H */
