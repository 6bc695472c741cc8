// SPDX-License-Identifier: GPL-2.0
/*
 * A library the program maps itself and registers (progs/self_mapped_lib.c),
 * never dlopened: run_spin -> spin_a -> spin_b, spinning in spin_b.
 *
 *  - "file": the library file itself is mapped. Both walks are the same up
 *    to libc, where ours ends (no .sframe there): every sample in spin_b is
 *    ended (or astray past __libc_start_call_main, where the fallback
 *    finds what %rbp holds there: verdict_ended_in_libc()), and its
 *    frames are named by the file's symbols, spin_b+0x.. and spin_a+0x..
 *    (reached by SFrame, plausible), in both columns.
 *  - "copy": the program's own copy, a memfd ("/memfd:libselfmap.so
 *    (deleted)" in the mappings), registered with the library file's path
 *    and build id. Symbols come from the file behind the mapping, whoever
 *    mapped it and however (codectl-run opens it through
 *    /proc/PID/map_files): the frames are named spin_b+0x.. and
 *    spin_a+0x.. too, not "[memfd:libselfmap.so (deleted)+0x1114]" (as
 *    before), and elfutils reads the copy's CFI. libunwind-ptrace opens
 *    files by the name in the mappings, so it has no CFI there: it guesses
 *    frame 1 from %rbp, which is no frame pointer here (libunwind 1.6,
 *    Debian 12, 13: no code), or stops at frame 0 (1.8, sid). Either way
 *    libunwind-failed, verified, never a reason to call our walk wrong.
 *    (A user who may not open map_files, without CAP_SYS_ADMIN or
 *    CAP_CHECKPOINT_RESTORE, gets the mapping's name and an offset: the
 *    test asserts that then.)
 * --check passes in both (exit 0): our walk is right in every sample. A
 * sample whose walks part elsewhere (diverged: seen once on sid) is
 * verified only where elfutils has our frames.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "verdict_run.h"

/* Is @s a sample in the library: spin_b (or spin_a) -> spin_a -> run_spin? */
static bool in_library(json_t *s, const void *ctx)
{
	json_t *caller = verdict_frame(s, false, 2);

	(void)ctx;
	return verdict_sym_in(caller, "run_spin") && verdict_source_is(caller, "sframe");
}

/*
 * Can this user open files through /proc/PID/map_files (CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE)? codectl-run, run by the same user, names a
 * memfd's frames only then.
 */
static bool map_files_open(void)
{
	DIR *d = opendir("/proc/self/map_files");
	struct dirent *e;
	char path[300];
	int fd = -1;

	while (d && fd < 0 && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "/proc/self/map_files/%s", e->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
		}
	if (d)
		closedir(d);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/*
 * Our frames 0 and 1 and libunwind's frame 0 named by the library's symbols
 * (@named), or as the mapping with an offset.
 */
static void check_names(json_t *s, bool named)
{
	json_t *spin_b = verdict_frame(s, false, 0), *spin_a = verdict_frame(s, false, 1);
	const char *unnamed = "[memfd:libselfmap.so (deleted)+0x";

	if (named)
		cr_assert(!strncmp(verdict_str(spin_b, "symbol"), "spin_b+0x", 9) &&
			  !strncmp(verdict_str(spin_a, "symbol"), "spin_a+0x", 9),
			  "frames of the library unnamed: %s", json_dumps(s, 0));
	else
		cr_assert(!strncmp(verdict_str(spin_b, "symbol"), unnamed, strlen(unnamed)) &&
			  !strncmp(verdict_str(spin_a, "symbol"), unnamed, strlen(unnamed)),
			  "%s", json_dumps(s, 0));
	cr_assert(verdict_source_is(spin_a, "sframe"), "%s", json_dumps(s, 0));
	cr_assert_str_eq(verdict_str(verdict_frame(s, true, 0), "symbol"),
			 verdict_str(spin_b, "symbol"), "%s", json_dumps(s, 0));
}

static void run_mode(const char *mode)
{
	const struct verdict_place place = { in_library, NULL, 21, "samples in the library" };
	const char *args[] = { mode, NULL };
	char out[64];
	struct verdict_run v;
	size_t i, in_lib = 0, n_ref_failed = 0, past = 0, diverged = 0;
	bool copy = !strcmp(mode, "copy"), named = !copy || map_files_open();
	json_t *s;

	if (!named)
		cr_log_warn("self_mapped_lib: no /proc/PID/map_files for this user: the copy's "
			    "frames are named by the mapping");

	verdict_run_until(&v, "self_mapped_lib", NULL, args, &place, 1);
	cr_assert_eq(v.r.status, 0, "%s", v.r.log);
	snprintf(out, sizeof(out), "self_mapped_lib: %s: done\n", mode);
	cr_assert_str_eq(v.r.out, out);
	json_array_foreach(verdict_stacks(&v), i, s) {
		if (verdict_is(s, "outcome", "past-copy")) {
			past++;	/* the kernel's copy ended at a stack page not resident yet */
			diverged += verdict_class_is(s, "diverged");
			continue;
		}
		if (verdict_system_skip(s))
			continue;
		cr_assert(verdict_is(s, "outcome", "verified"), "%s", json_dumps(s, 0));
		/* walks that part are verified only by elfutils' having our frames */
		if (verdict_class_is(s, "diverged")) {
			cr_assert(verdict_is(s, "elfutils", "codectl-run"), "%s", json_dumps(s, 0));
			diverged++;
		}
		if (!in_library(s, NULL))
			continue;
		in_lib++;
		if (copy) {
			/* libunwind without CFI there: its guess or its stop at frame 0 */
			cr_assert(verdict_class_is(s, "libunwind-failed"), "%s", json_dumps(s, 0));
			cr_assert_eq(json_integer_value(json_object_get(s, "first_difference")), 1,
				     "%s", json_dumps(s, 0));
			n_ref_failed++;
		} else {
			json_t *f1 = verdict_frame(s, false, 1);

			cr_assert(verdict_ended_in_libc(s) && verdict_plausible(f1) &&
				  verdict_ip(verdict_frame(s, true, 1)) == verdict_ip(f1),
				  "%s", json_dumps(s, 0));
		}
		check_names(s, named);
	}
	cr_assert_gt(in_lib, 20, "%zu samples in the library", in_lib);
	cr_assert_geq(verdict_count(&v, "libunwind_failed"), (long long)n_ref_failed);
	cr_assert_geq(verdict_count(&v, "ended") + verdict_count(&v, "astray"),
		      (long long)(in_lib - n_ref_failed));
	cr_assert_eq(verdict_count(&v, "verified") + verdict_system_skips(&v) + (long long)past,
	             verdict_count(&v, "total"));
	cr_assert_eq(verdict_count(&v, "past_copy"), (long long)past);
	cr_assert_eq(verdict_count(&v, "ours_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "both_wrong"), 0);
	cr_assert_eq(verdict_count(&v, "diverged"), (long long)diverged);
	verdict_free(&v);
}

Test(verdict, self_mapped_lib_file)
{
	run_mode("file");
}

Test(verdict, self_mapped_lib_copy)
{
	run_mode("copy");
}
