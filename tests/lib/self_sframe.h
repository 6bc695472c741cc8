/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calling program's own executable text, PT_GNU_SFRAME section and
 * .eh_frame_hdr (for test programs and benchmarks that register or read
 * themselves). Uses include/ only.
 */
#ifndef TESTS_SELF_SFRAME_H
#define TESTS_SELF_SFRAME_H

#include <link.h>
#include <linux/codectl.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

/* The main program's executable segment, PT_GNU_SFRAME and PT_GNU_EH_FRAME. */
struct self_segments {
	struct code_sframe_info sframe;
	uint64_t eh_frame_hdr_start;
	uint64_t eh_frame_hdr_size;
};

static int self_sframe_phdrs(struct dl_phdr_info *i, size_t size, void *data)
{
	struct self_segments *g = data;

	(void)size;
	for (int k = 0; k < i->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &i->dlpi_phdr[k];

		if (ph->p_type == PT_GNU_SFRAME) {
			g->sframe.sframe_start = i->dlpi_addr + ph->p_vaddr;
			g->sframe.sframe_end = g->sframe.sframe_start + ph->p_memsz;
		} else if (ph->p_type == PT_GNU_EH_FRAME) {
			g->eh_frame_hdr_start = i->dlpi_addr + ph->p_vaddr;
			g->eh_frame_hdr_size = ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			g->sframe.text_start = i->dlpi_addr + ph->p_vaddr;
			g->sframe.text_end = g->sframe.text_start + ph->p_memsz;
		}
	}
	return 1;	/* the main program only */
}

/**
 * self_segments() - @g gets the main program's executable PT_LOAD segment,
 * PT_GNU_SFRAME and PT_GNU_EH_FRAME (addresses in this process); fields stay
 * 0 when absent
 */
static inline void self_segments(struct self_segments *g)
{
	*g = (struct self_segments){ 0 };
	dl_iterate_phdr(self_sframe_phdrs, g);
}

/** self_sframe() - the text and PT_GNU_SFRAME of self_segments() */
static inline void self_sframe(struct code_sframe_info *s)
{
	struct self_segments g;

	self_segments(&g);
	*s = g.sframe;
}

#endif /* TESTS_SELF_SFRAME_H */
