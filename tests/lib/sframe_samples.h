/* SPDX-License-Identifier: GPL-2.0 */
/* Ready-made SFrame sections for tests, built with the test writer. */
#ifndef TESTS_SFRAME_SAMPLES_H
#define TESTS_SFRAME_SAMPLES_H

#include "sframe_writer.h"

/* The FREs of a frame-pointer function of @size bytes (push rbp; mov rsp,rbp; ...; ret). */
extern const struct sfw_fre sample_fp_fres[4];

/**
 * sample_functions() - fill @fdes with @n frame-pointer functions of @size bytes
 * laid out back to back from @start (FREs at 0, 1, 4 and size - 1).
 */
void sample_functions(struct sfw_fde *fdes, unsigned int n, uint64_t start, uint32_t size);

/**
 * sample_section() - an AMD64 section of @version describing @n functions of
 * @size bytes from @start, to be loaded at @addr. Returns its length.
 */
size_t sample_section(uint8_t version, bool pcrel, uint64_t addr, uint64_t start,
		      unsigned int n, uint32_t size, uint8_t *buf, size_t cap,
		      struct sfw_layout *lay);

#endif /* TESTS_SFRAME_SAMPLES_H */
