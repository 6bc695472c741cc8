// SPDX-License-Identifier: GPL-2.0
/*
 * The shipped demo: a program that talks codectl(2) the way a patched loader
 * and a JIT would. Run it under codectl-run --trace (make demo) to watch the
 * calls, their answers and the exit summary; natively every call says ENOSYS.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <codectl.h>

#define PT_GNU_SFRAME 0x6474e554

static void show(const char *what, long ret)
{
	printf("demo: %-62s -> %s\n", what, ret ? strerrorname_np(errno) : "ok");
}

static int find_self(struct dl_phdr_info *i, size_t size, void *data)
{
	struct code_elf_info *e = data;

	(void)size;
	for (int k = 0; k < i->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &i->dlpi_phdr[k];

		if (ph->p_type == PT_GNU_SFRAME) {
			e->sframe_start = i->dlpi_addr + ph->p_vaddr;
			e->sframe_end = e->sframe_start + ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			e->text_start = i->dlpi_addr + ph->p_vaddr;
			e->text_end = e->text_start + ph->p_memsz;
		}
	}
	return 1;
}

int main(void)
{
	static const char path[] = "/proc/self/exe";
	struct code_elf_info self = { .pathname = (uintptr_t)path };
	struct code_jit_unwind_table *tab;
	struct code_jit_info jit;
	uint8_t *code;

	setvbuf(stdout, NULL, _IOLBF, 0);
	dl_iterate_phdr(find_self, &self);
	/*
	 * What a loader does (codectl-run's loader module did it already, before
	 * main): the kernel registered our .sframe at exec, so this is EEXIST ...
	 */
	show("CODE_REGISTER_ELF of this program (sframe + identity)", codectl(CODE_REGISTER_ELF, &self,
									      sizeof(self), 0));
	/* ... and the identity goes on its own: EEXIST too, the loader module gave it */
	self.sframe_start = self.sframe_end = 0;
	show("CODE_REGISTER_ELF of this program (identity; ok if no module)",
	     codectl(CODE_REGISTER_ELF, &self, sizeof(self), 0));
	/* a JIT: one code area, one table, no system call per function later */
	code = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	tab = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	*tab = (struct code_jit_unwind_table){ .reserved_len = (1 << 16) - sizeof(*tab),
					       .fre_stride = 24, .fre_size = CODE_JIT_FRE_SIZE_VER0 };
	jit = (struct code_jit_info){ .text_start = (uintptr_t)code,
				      .text_end = (uintptr_t)code + (1 << 16),
				      .unwind_head = (uintptr_t)tab };
	show("CODE_REGISTER_JIT of a 64 KiB code area", codectl(CODE_REGISTER_JIT, &jit, sizeof(jit),
								  0));
	show("CODE_UNREGISTER of the JIT area", codectl(CODE_UNREGISTER, code, 0, 0));
	show("CODE_UNREGISTER of the JIT area again", codectl(CODE_UNREGISTER, code, 0, 0));
	/* a broken section: the answer names the rule */
	memcpy(tab + 1, "\xe3\xde\x03\x05", 4);
	{
		struct code_sframe_info bad = { .text_start = (uintptr_t)code,
						.text_end = (uintptr_t)code + 4096,
						.sframe_start = (uintptr_t)(tab + 1),
						.sframe_end = (uintptr_t)(tab + 1) + 64 };

		show("CODE_REGISTER_SFRAME with a bad magic", codectl(CODE_REGISTER_SFRAME, &bad,
								       sizeof(bad), 0));
	}
	return 0;
}
