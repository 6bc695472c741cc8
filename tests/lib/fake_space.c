// SPDX-License-Identifier: GPL-2.0
/* A fake tracee address space for in-process tests of emu/. */
#include <stdlib.h>
#include <string.h>

#include "fake_space.h"

void fake_space_init(struct fake_space *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->text = calloc(1, FAKE_TEXT_END - FAKE_TEXT_A);
	fs->data = calloc(1, FAKE_DATA_SIZE);
	emu_mem_image_add(&fs->img, FAKE_TEXT_A, fs->text, FAKE_TEXT_END - FAKE_TEXT_A);
	emu_mem_image_add(&fs->img, FAKE_RW_NOEXEC, fs->rw_noexec, sizeof(fs->rw_noexec));
	emu_mem_image_add(&fs->img, FAKE_RO, fs->ro, sizeof(fs->ro));
	emu_mem_image_add(&fs->img, FAKE_DATA, fs->data, FAKE_DATA_SIZE);
	fs->mem = emu_mem_image_accessor(&fs->img);
	emu_mappings_add(&fs->maps, FAKE_TEXT_A, FAKE_TEXT_B, EMU_PROT_READ | EMU_PROT_EXEC);
	emu_mappings_add(&fs->maps, FAKE_TEXT_B, FAKE_TEXT_END, EMU_PROT_READ | EMU_PROT_EXEC);
	emu_mappings_add(&fs->maps, FAKE_RW_NOEXEC, FAKE_RW_NOEXEC + 4096,
			 EMU_PROT_READ | EMU_PROT_WRITE);
	emu_mappings_add(&fs->maps, FAKE_RO, FAKE_RO + 4096, EMU_PROT_READ);
	emu_mappings_add(&fs->maps, FAKE_DATA, FAKE_DATA + FAKE_DATA_SIZE,
			 EMU_PROT_READ | EMU_PROT_WRITE);
	emu_mappings_add(&fs->maps, FAKE_NOACCESS, FAKE_NOACCESS + 4096, 0);
	fs->registry = emu_registry_new(EMU_REGISTRY_DEFAULT_LIMIT);
	fs->space = (struct emu_space){ .registry = fs->registry, .mem = &fs->mem, .maps = &fs->maps };
	fs->policy = emu_policy_default();
}

void fake_space_fini(struct fake_space *fs)
{
	emu_registry_free(fs->registry);
	emu_mappings_free(&fs->maps);
	free(fs->text);
	free(fs->data);
}

uint64_t fake_next_addr(const struct fake_space *fs)
{
	return FAKE_DATA + ((fs->data_used + 15) & ~(size_t)15);
}

uint64_t fake_put(struct fake_space *fs, const void *p, size_t len)
{
	size_t off = (fs->data_used + 15) & ~(size_t)15;

	if (off + len > FAKE_DATA_SIZE)
		abort();
	memcpy(fs->data + off, p, len);
	fs->data_used = off + len;
	return FAKE_DATA + off;
}

int fake_call(struct fake_space *fs, unsigned int option, uint64_t info, uint64_t size,
	      unsigned int flags)
{
	struct emu_call c = { .option = option, .info = info, .info_size = size, .flags = flags };

	return emu_codectl(&fs->policy, &fs->space, &c, &fs->res);
}

int fake_register_sframe(struct fake_space *fs, const uint8_t *sec, size_t len, uint64_t start,
			 uint64_t end)
{
	struct code_sframe_info info = { .text_start = start, .text_end = end };

	info.sframe_start = fake_put(fs, sec, len);
	info.sframe_end = info.sframe_start + len;
	return fake_call(fs, CODE_REGISTER_SFRAME, fake_put(fs, &info, sizeof(info)), sizeof(info), 0);
}
