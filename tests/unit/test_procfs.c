// SPDX-License-Identifier: GPL-2.0
/* One line of /proc/PID/maps (supervisor/core/procfs.c), as proc(5) describes it. */
#include <criterion/criterion.h>
#include <errno.h>

#include "emu/mappings.h"
#include "supervisor/core/procfs.h"

struct parsed {
	uint64_t start, end, ident;
	unsigned int prot;
	int ret;
};

static struct parsed parse(const char *line)
{
	struct parsed r = { 0 };

	r.ret = procfs_maps_parse_line(line, &r.start, &r.end, &r.prot, &r.ident);
	return r;
}

Test(procfs, a_file_mapping)
{
	struct parsed a = parse("7f2a10001000-7f2a10003000 r-xp 00001000 fe:01 1234567    "
				"/usr/lib/x86_64-linux-gnu/libc.so.6\n");
	struct parsed b = parse("7f2a10001000-7f2a10003000 r-xp 00002000 fe:01 1234567    "
				"/usr/lib/x86_64-linux-gnu/libc.so.6\n");

	cr_assert_eq(a.ret, 0);
	cr_assert_eq(a.start, 0x7f2a10001000ull);
	cr_assert_eq(a.end, 0x7f2a10003000ull);
	cr_assert_eq(a.prot, EMU_PROT_READ | EMU_PROT_EXEC);
	cr_assert_neq(a.ident, 0);
	cr_assert_neq(a.ident, b.ident, "another offset of the file is another identity");
}

Test(procfs, anonymous_memory_and_the_vdso)
{
	struct parsed anon = parse("55d3a2c5e000-55d3a2c7f000 rw-p 00000000 00:00 0 [heap]\n");
	struct parsed vdso = parse("7ffc71f11000-7ffc71f13000 r-xp 00000000 00:00 0 [vdso]\n");

	cr_assert_eq(anon.ret, 0);
	cr_assert_eq(anon.prot, EMU_PROT_READ | EMU_PROT_WRITE);
	cr_assert_eq(anon.ident, 0);
	cr_assert_eq(vdso.ret, 0);
	cr_assert_eq(vdso.prot, EMU_PROT_READ | EMU_PROT_EXEC | EMU_VMA_VDSO);
}

Test(procfs, lines_proc_does_not_write_are_refused)
{
	static const char *const bad[] = {
		"",
		"7f2a10001000 r-xp 00000000 00:00 0\n",
		"7f2a10003000-7f2a10001000 r-xp 00000000 00:00 0\n",
		"7f2a10001000-7f2a10001000 r-xp 00000000 00:00 0\n",
		"7f2a10001000-7f2a10003000 r-x 00000000 00:00 0\n",
		"7f2a10001000-7f2a10003000 r-xp 00000000 00-00 0\n",
		"7f2a10001000-7f2a10003000 r-xp 00000000 00:00\n",
		"-1-7f2a10003000 r-xp 00000000 00:00 0\n",
		"7f2a10001000-ffffffffffffffffff r-xp 00000000 00:00 0\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(parse(bad[i]).ret, -EINVAL, "line %zu: \"%s\"", i, bad[i]);
}
