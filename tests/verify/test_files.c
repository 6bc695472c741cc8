// SPDX-License-Identifier: GPL-2.0
/*
 * Real toolchain output: every object of the differential corpus (this
 * machine's gcc and binutils, -O0/-O2 with and without frame pointers, and
 * the -O2 truth builds) and the shared binutils 2.40/2.44/2.47 vectors
 * verify with no mismatch but the known toolchain bugs (known_bug(): each
 * with its binutils PR), and nothing undecided but DRAP functions; the
 * verdict programs with known wrong SFrame are found, at their addresses:
 *
 *	ibt_plt			PR ld/32296, when this ld has it (read from the
 *				binary, as tests/verdict/test_ibt_plt.c does)
 *	missing_remember_state	the count-down after the early return
 *	fake_fp_chain		the count-down with FP pointing at a fake frame
 *	drap_nofde		unknown (drap), never a mismatch
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "objdump_sframe.h"
#include "verify_util.h"

/* Unknown only in the DRAP functions of the programs (drap.c, realign.c). */
static bool drap_function(const struct verify_finding *fd)
{
	return fd->why == VERIFY_WHY_DRAP &&
	       (strstr(fd->function, "drap") || strstr(fd->function, "align"));
}

static void check_clean(const char *path, unsigned long *mism, unsigned long *decided,
			unsigned long *undecided)
{
	struct vfile f;

	vfile_open(&f, path);
	vfile_run(&f, NULL);
	cr_expect_str_empty(unexplained(&f.r), "%s: mismatches no known bug explains:%s", path,
			    unexplained(&f.r));
	for (size_t i = 0; i < f.r.n; i++)
		cr_expect(f.r.f[i].kind != VERIFY_UNKNOWN || drap_function(&f.r.f[i]),
			  "%s: unknown at %#llx in %s (%s)", path,
			  (unsigned long long)f.r.f[i].start, f.r.f[i].function,
			  verify_why_name(f.r.f[i].why));
	*mism += verify_mismatches(&f.r.st);
	*decided += f.r.st.decided;
	*undecided += f.r.st.undecided;
	vfile_close(&f);
}

/* Every file of @dir that is a program or library with .sframe (not .txt, .so of the corpus...). */
static unsigned int check_dir(const char *dir, const char *skip_suffix)
{
	unsigned long mism = 0, decided = 0, undecided = 0;
	unsigned int n = 0;
	struct dirent *de;
	char path[4096];
	DIR *d = opendir(dir);

	cr_assert(d, "%s", dir);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name), sl = strlen(skip_suffix);

		if (de->d_name[0] == '.' || !strstr(de->d_name, "-O") ||
		    (len > sl && !strcmp(de->d_name + len - sl, skip_suffix)) ||
		    (len > 2 && !strcmp(de->d_name + len - 2, ".d")))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		check_clean(path, &mism, &decided, &undecided);
		n++;
	}
	closedir(d);
	cr_log_info("%s: %u files, %lu known-bug mismatches, %lu decided, %lu undecided", dir, n,
		    mism, decided, undecided);
	return n;
}

Test(files, corpus_objects)
{
	/* 12 programs x -O0/-O2 x fp/nofp, and -O2-truth; the two libraries have no .sframe */
	cr_assert_eq(check_dir(CORPUS_DIR, ".so"), 60);
}

/* basic, drap, realign, main_lib, libvec.so at -O0/-O2 x fp/nofp: 20 files a version */
Test(files, binutils_vectors)
{
	static const char *const v[] = { VECTOR_DIR "/v1", VECTOR_DIR "/v2", VECTOR_DIR "/v3" };

	for (int i = 0; i < 3; i++)
		cr_assert_eq(check_dir(v[i], ".txt"), 20, "%s", v[i]);
}

static uint64_t section_start(const struct vfile *f, const char *name)
{
	for (size_t i = 0; i < f->e.syms.nsec; i++)
		if (!strcmp(f->e.syms.sec[i].name, name))
			return f->e.syms.sec[i].start;
	cr_assert_fail("no section %s", name);
	return 0;
}

Test(known, ibt_plt_pr32296)
{
	const char *prog = VERDICT_DIR "/ibt_plt";
	char plt0[256], stub[256];
	const struct verify_finding *fd;
	uint64_t sec, plt;
	struct vfile f;
	bool bug;

	vfile_open(&f, prog);
	vfile_run(&f, NULL);
	sec = section_start(&f, ".plt.sec");
	plt = section_start(&f, ".plt");
	cr_assert_eq(objdump_sframe_cfa(prog, plt, plt0, sizeof(plt0)), 0);
	cr_assert_eq(objdump_sframe_cfa(prog, sec, stub, sizeof(stub)), 0);
	cr_assert_str_eq(plt0, "sp+16 sp+24 ");
	bug = !strcmp(stub, plt0);
	cr_log_info("ibt_plt: the first .plt.sec stub has %s rows", bug ? "PLT0's" : "its own");
	fd = NULL;
	for (size_t i = 0; i < f.r.n; i++)
		if (f.r.f[i].start == sec)
			fd = &f.r.f[i];
	cr_assert_str_empty(unexplained(&f.r), "%s", unexplained(&f.r));
	if (!bug) {
		cr_assert_null(fd, "a finding at the first stub, whose rows are right");
		goto out;
	}
	cr_assert_not_null(fd, "PR ld/32296 not found at the first .plt.sec stub %#llx",
			   (unsigned long long)sec);
	cr_assert_eq(fd->kind, VERIFY_CFA_MISMATCH);
	cr_assert(fd->code.sp_cfa == 8 && fd->row.cfa_off == 16);
	cr_assert_eq(fd->dwarf, VERIFY_DWARF_CODE, ".eh_frame has the stub right");
	cr_assert_str_eq(fd->section, ".plt.sec");
	/* and the .plt entries' second row, at +0xb instead of +0x9 */
	for (uint64_t e = plt + 0x10; e < sec && e < plt + 0x40; e += 0x10) {
		size_t i;

		for (i = 0; i < f.r.n && f.r.f[i].start != e + 9; i++)
			;
		cr_assert_lt(i, f.r.n, "no finding at the .plt entry %#llx + 9",
			     (unsigned long long)e);
		cr_assert_eq(f.r.f[i].kind, VERIFY_CFA_MISMATCH);
	}
out:
	vfile_close(&f);
}

/* The mismatches of @f but the known toolchain bugs: exactly one, in @fn at [+@from, +@to). */
static void one_finding_in(const char *prog, const char *fn, uint64_t from, uint64_t to)
{
	const struct verify_sym *sym;
	const struct verify_finding *found = NULL;
	size_t n = 0;
	struct vfile f;

	vfile_open(&f, prog);
	vfile_run(&f, NULL);
	sym = vfile_symbol(&f, fn);
	for (size_t i = 0; i < f.r.n; i++) {
		if (!verify_is_mismatch(f.r.f[i].kind) || known_bug(&f.r.f[i]))
			continue;
		found = &f.r.f[i];
		n++;
	}
	cr_assert_eq(n, 1, "%s: %zu mismatches:%s", prog, n, unexplained(&f.r));
	cr_assert_eq(found->kind, VERIFY_CFA_MISMATCH);
	cr_assert_eq(found->start, sym->start + from, "%s: at %#llx", prog,
		     (unsigned long long)found->start);
	cr_assert_eq(found->end, sym->start + to);
	cr_assert_eq(found->dwarf, VERIFY_DWARF_ROW, "the CFI lies the same way");
	vfile_close(&f);
}

Test(known, missing_remember_state)
{
	/* dec at +0x8, jnz, pop at +0xd: CFA = SP + 16, the rows say SP + 8 */
	one_finding_in(VERDICT_DIR "/missing_remember_state", "spin_early_return", 0x8, 0xe);
}

Test(known, fake_fp_chain)
{
	/* the count-down from +0x2f; leave at +0x39: FP points at a fake frame there */
	one_finding_in(VERDICT_DIR "/fake_fp_chain", "spin_fake_chain", 0x2f, 0x39);
}

Test(known, drap_is_unknown)
{
	const struct verify_sym *sym;
	size_t unknown = 0;
	struct vfile f;

	vfile_open(&f, VERDICT_DIR "/drap_nofde");
	vfile_run(&f, NULL);
	sym = vfile_symbol(&f, "realigned_drap");
	cr_assert_str_empty(unexplained(&f.r), "%s", unexplained(&f.r));
	for (size_t i = 0; i < f.r.n; i++) {
		const struct verify_finding *fd = &f.r.f[i];

		if (fd->start < sym->start || fd->start >= sym->start + sym->size)
			continue;
		cr_assert_eq(fd->kind, VERIFY_UNKNOWN, "%s at %#llx", verify_kind_name(fd->kind),
			     (unsigned long long)fd->start);
		cr_assert_eq(fd->why, VERIFY_WHY_DRAP);
		unknown++;
	}
	cr_assert_gt(unknown, 0, "realigned_drap: neither found nor said unknown");
	vfile_close(&f);
}
