// SPDX-License-Identifier: GPL-2.0
/* The test writer of .eh_frame and .eh_frame_hdr (eh_frame_writer.h). */
#include <string.h>

#include "eh_frame_writer.h"

/* The CIE: "zR", code 1, data -8, RA 16, FDE pointers pcrel sdata4; CFA = RSP + 8, RA at CFA - 8. */
static const uint8_t cie_body[] = {
	0, 0, 0, 0,			/* CIE id */
	1, 'z', 'R', 0,			/* version, augmentation */
	1, 0x78, 16,			/* code align 1, data align -8, RA column 16 */
	1, 0x1b,			/* augmentation data: DW_EH_PE_pcrel | sdata4 */
	0x0c, 7, 8,			/* DW_CFA_def_cfa rsp, 8 */
	0x90, 1,			/* DW_CFA_offset r16, 1 * -8 */
	0, 0,				/* DW_CFA_nop to 8-byte alignment */
};

/* A frame-pointer function's FDE instructions after its ranges and augmentation length. */
static const uint8_t fde_cfi[] = {
	0x41, 0x0e, 16,			/* advance 1; DW_CFA_def_cfa_offset 16 */
	0x86, 2,			/* DW_CFA_offset rbp, 2 * -8 */
	0x43, 0x0d, 6,			/* advance 3; DW_CFA_def_cfa_register rbp */
	0, 0, 0,			/* DW_CFA_nop to 8-byte alignment */
};

#define FDE_LEN (4 + 4 + 4 + 4 + 1 + sizeof(fde_cfi))

void ehw_put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static size_t put_fde(uint64_t base, uint8_t *buf, size_t at, size_t cie, uint64_t func,
		      uint32_t size)
{
	ehw_put32(buf + at, FDE_LEN - 4);
	ehw_put32(buf + at + 4, (uint32_t)(at + 4 - cie));
	ehw_put32(buf + at + 8, (uint32_t)(func - (base + at + 8)));
	ehw_put32(buf + at + 12, size);
	buf[at + 16] = 0;		/* augmentation data length */
	memcpy(buf + at + 17, fde_cfi, sizeof(fde_cfi));
	return at + FDE_LEN;
}

/* The header: version 1, eh_frame_ptr pcrel sdata4, count udata4, table datarel sdata4. */
static size_t put_hdr(uint64_t base, uint8_t *buf, size_t at, uint64_t text, unsigned int n,
		      uint32_t size, struct ehw_layout *lay)
{
	uint64_t hdr = base + at;

	lay->hdr = at;
	buf[at] = 1;
	buf[at + 1] = 0x1b;
	buf[at + 2] = 0x03;
	buf[at + 3] = 0x3b;
	ehw_put32(buf + at + 4, (uint32_t)(base - (hdr + 4)));
	ehw_put32(buf + at + 8, n);
	lay->table = at + 12;
	for (unsigned int i = 0; i < n; i++) {
		ehw_put32(buf + lay->table + 8 * i, (uint32_t)(text + (uint64_t)i * size - hdr));
		ehw_put32(buf + lay->table + 8 * i + 4, (uint32_t)(base + lay->fde[i] - hdr));
	}
	lay->hdr_len = 12 + 8 * (size_t)n;
	return at + lay->hdr_len;
}

size_t ehw_build(uint64_t addr, uint64_t text, unsigned int n, uint32_t size, uint8_t *buf,
		 size_t cap, struct ehw_layout *lay)
{
	size_t at = 0, need = 4 + sizeof(cie_body) + n * FDE_LEN + 4 + 8 + 12 + 8 * (size_t)n;

	if (n > EHW_MAX_FUNCS || need > cap)
		return 0;
	memset(lay, 0, sizeof(*lay));
	lay->cie = at;
	lay->cie_version = at + 8;
	lay->cie_ra = at + 14;
	ehw_put32(buf + at, sizeof(cie_body));
	memcpy(buf + at + 4, cie_body, sizeof(cie_body));
	at += 4 + sizeof(cie_body);
	for (unsigned int i = 0; i < n; i++) {
		lay->fde[i] = at;
		at = put_fde(addr, buf, at, lay->cie, text + (uint64_t)i * size, size);
	}
	ehw_put32(buf + at, 0);		/* the terminator */
	at += 4;
	lay->eh_frame_len = at;
	at = (at + 7) & ~(size_t)7;
	return put_hdr(addr, buf, at, text, n, size, lay);
}
