// SPDX-License-Identifier: GPL-2.0
/*
 * Writes seed inputs for the fuzzers into four directories: SFrame sections of every
 * version from the test writer (fuzz_sframe), valid codectl calls of every
 * option against the fake tracee's layout (fuzz_codectl), functions with
 * their rows in fuzz_verify's in-memory form (fuzz_verify), and .eh_frame
 * tables of 1, 4 and 16 functions from the test writer (fuzz_eh_frame).
 */
#include <stdio.h>
#include <string.h>

#include "eh_frame_writer.h"
#include "fake_space.h"
#include "fuzz_input.h"
#include "sframe_samples.h"

static int write_file(const char *dir, const char *name, const void *a, size_t alen,
		      const void *b, size_t blen)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen || (blen && fwrite(b, 1, blen, f) != blen)) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

/* Data area image: the struct at 0, the section at 0x100, a path at 0x1000. */
static size_t call_seed(uint8_t *img, uint8_t version, unsigned int option)
{
	struct sfw_layout lay;
	size_t len = sample_section(version, version != 1, FAKE_DATA + 0x100, FAKE_TEXT_A, 4, 64,
				    img + 0x100, 0xe00, &lay);
	struct code_elf_info e = { .elf_start = FAKE_TEXT_A, .elf_end = FAKE_TEXT_END,
				   .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256,
				   .sframe_start = FAKE_DATA + 0x100,
				   .sframe_end = FAKE_DATA + 0x100 + len,
				   .pathname = FAKE_DATA + 0x1000 };
	struct code_jit_info j = { .text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 4096,
				   .unwind_head = FAKE_DATA + 0x2000 };
	struct code_jit_unwind_table t = { .reserved_len = 240, .used_len = 48, .fre_stride = 24,
					   .fre_size = 21 };
	struct code_jit_unwind_fre fre = { .size = 16, .cfa_off = 8 };

	strcpy((char *)img + 0x1000, "/usr/lib/libseed.so");
	if (option == CODE_REGISTER_ELF)
		memcpy(img, &e, sizeof(e));
	else if (option == CODE_REGISTER_SFRAME)
		memcpy(img, &e.text_start, 32);
	/* three chained JIT tables of two entries, [0, 96) in 16-byte steps */
	for (unsigned int k = 0; k < 3; k++) {
		t.next = k < 2 ? FAKE_DATA + 0x2000 + (k + 1) * 0x100 : 0;
		memcpy(img + 0x2000 + k * 0x100, &t, sizeof(t));
		for (unsigned int i = 0; i < 2; i++) {
			fre.ip_off = (k * 2 + i) * 16;
			memcpy(img + 0x2020 + k * 0x100 + i * 24, &fre, sizeof(fre));
		}
	}
	if (option == CODE_REGISTER_JIT)
		memcpy(img, &j, sizeof(j));
	return 0x2300;
}

/*
 * Seeds of the kernel's proposals (fuzz_input.h), v16, with a second walk
 * over changed bytes: sframe_register's struct, the prctl's and
 * stacktrace_setup's words, all over a v3 section at 0x100.
 */
static int kcall_seeds(const char *dir)
{
	static const uint8_t options[3] = { FUZZ_KCALL | 0, FUZZ_KCALL | 2, FUZZ_KCALL | 3 | 4 };
	static uint8_t img[0x1000];
	struct sfw_layout lay;
	size_t len = sample_section(3, true, FAKE_DATA + 0x100, FAKE_TEXT_A, 4, 64, img + 0x100,
				    0xe00, &lay);
	uint64_t setup[4] = { FAKE_DATA + 0x100, len, FAKE_TEXT_A, 256 };
	uint64_t ends[4] = { FAKE_DATA + 0x100, FAKE_DATA + 0x100 + len, FAKE_TEXT_A,
			     FAKE_TEXT_A + 256 };
	char name[64];
	int err = 0;

	for (unsigned int i = 0; i < 3; i++) {
		struct fuzz_call fc = { .option = options[i], .info_size = 32, .policy = 1,
					.repeat = 5 << 2,
					.regs = { FAKE_TEXT_A + 20, FAKE_DATA + 0x3000,
						  FAKE_DATA + 0x3040 } };

		memcpy(img, i == 1 ? ends : setup, sizeof(setup));
		snprintf(name, sizeof(name), "kcall-%u.call", i);
		err |= write_file(dir, name, &fc, sizeof(fc), img, sizeof(img));
	}
	return err;
}

/*
 * fuzz_verify's in-memory form: 0, the code's length (2 bytes), the code at
 * 0x400000, the section: "push %rbp; mov %rsp,%rbp; sub $16,%rsp; leave;
 * ret", then a jump table's function, with their rows.
 */
static int verify_seed(const char *dir, uint8_t version)
{
	static const uint8_t code[] = {
		0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10, 0xc9, 0xc3, 0, 0, 0, 0, 0, 0,
		0x83, 0xff, 0x02, 0x77, 0x19, 0x48, 0x8d, 0x15, 0x16, 0x00, 0x00, 0x00,
		0x48, 0x63, 0x04, 0xba, 0x48, 0x01, 0xd0, 0xff, 0xe0, 0x53, 0x5b, 0xc3, 0x53, 0x5b,
		0xc3, 0x53, 0x5b, 0xc3, 0xc3, 0x0f, 0x1f, 0x00, 0xf3, 0xff, 0xff, 0xff, 0xf6, 0xff,
		0xff, 0xff, 0xf9, 0xff, 0xff, 0xff,
	};
	static const struct sfw_fre f[4] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 1, .sp_base = true, .count = 2, .words = { 16, -16 } },
		{ .start = 4, .sp_base = false, .count = 2, .words = { 16, -16 } },
		{ .start = 9, .sp_base = true, .count = 2, .words = { 8, -16 } },
	};
	static const struct sfw_fre g[3] = {
		{ .start = 0, .sp_base = true, .count = 1, .words = { 8 } },
		{ .start = 0x16, .sp_base = true, .count = 1, .words = { 16 } },
		{ .start = 0x17, .sp_base = true, .count = 1, .words = { 8 } },
	};
	const struct sfw_fde fdes[2] = {
		{ .func_start = 0x400000, .func_size = 10, .fre_type = -1, .nfres = 4, .fres = f },
		{ .func_start = 0x400010, .func_size = 0x22, .fre_type = -1, .nfres = 3, .fres = g },
	};
	struct sfw_section s = sfw_amd64(version, version != 1, 0x500000);
	uint8_t in[3 + sizeof(code)], sec[1024];
	struct sfw_layout lay;
	char name[64];
	size_t len;

	s.fdes = fdes;
	s.nfdes = 2;
	len = sfw_write(&s, sec, sizeof(sec), &lay);
	in[0] = 0;
	in[1] = sizeof(code);
	in[2] = 0;
	memcpy(in + 3, code, sizeof(code));
	snprintf(name, sizeof(name), "frame-v%u.in", version);
	return write_file(dir, name, in, sizeof(in), sec, len);
}

/* fuzz_eh_frame's seeds: its header, then tables of @n functions of 64 bytes at its SEC. */
static int eh_frame_seeds(const char *dir)
{
	static uint8_t buf[8192];
	struct fuzz_eh_frame in = { .ip_off = { 0, 1, 4, 20, 64, 4095 } };
	struct ehw_layout lay;
	char name[64];
	int err = 0;

	for (unsigned int n = 1; n <= 16; n *= 4) {
		size_t len = ehw_build(0x500000, 0x400000, n, 64, buf, sizeof(buf), &lay);

		in.hdr_off = (uint16_t)lay.hdr;
		snprintf(name, sizeof(name), "eh-frame-%u.ehf", n);
		err |= write_file(dir, name, &in, sizeof(in), buf, len);
	}
	return err;
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[4] = { 0, 80, 24, 32 };
	static uint8_t img[0x4000], sec[4096];
	struct sfw_layout lay;
	char name[64];
	int err = 0;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: make_seeds SFRAME_DIR CALL_DIR [VERIFY_DIR [EH_FRAME_DIR]]\n");
		return 2;
	}
	for (uint8_t v = 1; v <= 3; v++) {
		size_t len = sample_section(v, v != 1, 0x500000, 0x400000, 8, 48, sec, sizeof(sec), &lay);

		snprintf(name, sizeof(name), "sframe-v%u.sframe", v);
		err |= write_file(argv[1], name, sec, len, NULL, 0);
		if (argc >= 4)
			err |= verify_seed(argv[3], v);
		for (unsigned int opt = 1; opt <= 3; opt++) {
			struct fuzz_call fc = { .option = (uint8_t)opt, .info_size = (uint16_t)sizes[opt],
						.regs = { FAKE_TEXT_A + 20, FAKE_DATA + 0x3000,
							  FAKE_DATA + 0x3040 } };
			size_t n;

			memset(img, 0, sizeof(img));
			n = call_seed(img, v, opt);
			if (opt == CODE_REGISTER_JIT)	/* a second walk over changed tables */
				fc.repeat = 7 << 2;
			snprintf(name, sizeof(name), "call-v%u-opt%u.call", v, opt);
			err |= write_file(argv[2], name, &fc, sizeof(fc), img, n);
		}
	}
	if (argc == 5)
		err |= eh_frame_seeds(argv[4]);
	return err | kcall_seeds(argv[2]);
}
