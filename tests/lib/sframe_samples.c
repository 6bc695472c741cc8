// SPDX-License-Identifier: GPL-2.0
/* Ready-made SFrame sections for tests. */
#include "sframe_samples.h"

/* CFA=SP+8; CFA=SP+16, FP at CFA-16; CFA=FP+16; CFA=SP+8 (the ret). */
const struct sfw_fre sample_fp_fres[4] = {
	{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
	{ .start = 1, .sp_base = true, .count = 2, .words = { 16, -16 } },
	{ .start = 4, .sp_base = false, .count = 2, .words = { 16, -16 } },
	{ .start = 0, .sp_base = true, .count = 2, .words = { 8, -16 } },
};

static struct sfw_fre fres_by_size[64][4];

void sample_functions(struct sfw_fde *fdes, unsigned int n, uint64_t start, uint32_t size)
{
	unsigned int i, k = size % 64;

	for (i = 0; i < 4; i++)
		fres_by_size[k][i] = sample_fp_fres[i];
	fres_by_size[k][3].start = size - 1;
	for (i = 0; i < n; i++)
		fdes[i] = (struct sfw_fde){
			.func_start = start + (uint64_t)i * size, .func_size = size,
			.fre_type = -1, .nfres = 4, .fres = fres_by_size[k],
		};
}

size_t sample_section(uint8_t version, bool pcrel, uint64_t addr, uint64_t start,
		      unsigned int n, uint32_t size, uint8_t *buf, size_t cap,
		      struct sfw_layout *lay)
{
	struct sfw_fde fdes[SFW_MAX_FDES];
	struct sfw_section s = sfw_amd64(version, pcrel, addr);

	if (n > SFW_MAX_FDES)
		return 0;
	sample_functions(fdes, n, start, size);
	s.nfdes = n;
	s.fdes = fdes;
	return sfw_write(&s, buf, cap, lay);
}
