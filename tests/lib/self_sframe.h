/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calling program's own executable text and PT_GNU_SFRAME section, as a
 * struct code_sframe_info (for test programs and benchmarks that register
 * or read themselves). Uses include/ only.
 */
#ifndef TESTS_SELF_SFRAME_H
#define TESTS_SELF_SFRAME_H

#include <link.h>
#include <linux/codectl.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

static int self_sframe_phdrs(struct dl_phdr_info *i, size_t size, void *data)
{
	struct code_sframe_info *s = data;

	(void)size;
	for (int k = 0; k < i->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &i->dlpi_phdr[k];

		if (ph->p_type == PT_GNU_SFRAME) {
			s->sframe_start = i->dlpi_addr + ph->p_vaddr;
			s->sframe_end = s->sframe_start + ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			s->text_start = i->dlpi_addr + ph->p_vaddr;
			s->text_end = s->text_start + ph->p_memsz;
		}
	}
	return 1;	/* the main program only */
}

/**
 * self_sframe() - @s gets the main program's executable PT_LOAD segment and
 * PT_GNU_SFRAME (addresses in this process); fields stay 0 when absent
 */
static inline void self_sframe(struct code_sframe_info *s)
{
	*s = (struct code_sframe_info){ 0 };
	dl_iterate_phdr(self_sframe_phdrs, s);
}

#endif /* TESTS_SELF_SFRAME_H */
