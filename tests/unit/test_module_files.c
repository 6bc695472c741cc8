// SPDX-License-Identifier: GPL-2.0
/*
 * The files libdwfl is given for a process's modules
 * (supervisor/oracle/module_files.c): debug files by build ID or a plain
 * debug-link name, checked by build ID or CRC, never a FIFO; no
 * supplementary (dwz) file libdw would look for itself. The modules are
 * copies of this test program, made with objcopy.
 */
#include <criterion/criterion.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "supervisor/core/as_tracee.h"
#include "supervisor/oracle/module_files.h"
#include "test_tmp.h"

static char dir[128];

static void make_dir(void)
{
	cr_assert(test_mkdtemp(dir, sizeof(dir), "codectl-module-files"));
}

static void remove_dir(void)
{
	cr_assert_eq(test_rmtree(dir), 0);
}

/* A FIFO opened by mistake would block the test: the time limit fails it. */
TestSuite(module_files, .init = make_dir, .fini = remove_dir, .timeout = 60);

static const char *path_of(const char *name)
{
	static char buf[2][256];
	static unsigned int next;
	char *b = buf[next++ % 2];

	snprintf(b, sizeof(buf[0]), "%s/%s", dir, name);
	return b;
}

/* Run a shell command in the test's directory. */
__attribute__((format(printf, 1, 2)))
static void sh(const char *fmt, ...)
{
	char cmd[1024];
	int n;
	va_list ap;

	n = snprintf(cmd, sizeof(cmd), "cd '%s' && ", dir);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
	va_end(ap);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* "prog": this program; "prog.debug": its debug file; "stripped": without it, linked to it. */
static void make_stripped(void)
{
	sh("cp /proc/%d/exe prog && objcopy --only-keep-debug prog prog.debug && "
	   "objcopy --strip-debug --add-gnu-debuglink=prog.debug prog stripped", (int)getpid());
}

/* A .gnu_debuglink or .gnu_debugaltlink section's contents in file @out. */
static void write_link_section(const char *out, const char *name, const void *tail, size_t len)
{
	char buf[256] = { 0 };
	size_t n = strlen(name) + 1;
	FILE *f = fopen(path_of(out), "w");

	n = n + 3 - (n + 3) % 4;	/* .gnu_debuglink pads the name to 4 bytes */
	cr_assert(f);
	memcpy(buf, name, strlen(name));
	memcpy(buf + n, tail, len);
	cr_assert_eq(fwrite(buf, 1, n + len, f), n + len);
	cr_assert_eq(fclose(f), 0);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = module_files_find_elf,
	.find_debuginfo = module_files_find_debuginfo,
};

/* A Dwfl with the ELF file @name as its one module, opened for this process. */
static Dwfl *report(const char *name, struct as_tracee_id *self, Dwfl_Module **mod)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);

	cr_assert(dwfl);
	as_tracee_id_init(self, getpid());
	dwfl_report_begin(dwfl);
	*mod = dwfl_report_elf(dwfl, name, path_of(name), -1, 0, false);
	cr_assert(*mod, "%s: %s", name, dwfl_errmsg(-1));
	cr_assert_eq(dwfl_report_end(dwfl, NULL, NULL), 0);
	module_files_tag(dwfl, self);
	return dwfl;
}

/* The module's debug file as libdwfl found it, "-" for none. */
static const char *debug_file_of(const char *name)
{
	static char found[256];
	const char *debugfile = NULL;
	struct as_tracee_id self;
	Dwarf_Addr bias;
	Dwfl_Module *mod;
	Dwfl *dwfl = report(name, &self, &mod);
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);

	dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	snprintf(found, sizeof(found), "%s", dw && debugfile ? debugfile : "-");
	dwfl_end(dwfl);
	as_tracee_id_free(&self);
	return found;
}

Test(module_files, crc32_is_the_debug_links)
{
	cr_assert_eq(module_files_crc32(0, "123456789", 9), 0xcbf43926);
	cr_assert_eq(module_files_crc32(module_files_crc32(0, "1234", 4), "56789", 5), 0xcbf43926);
	cr_assert_eq(module_files_crc32(0, "", 0), 0);
}

Test(module_files, a_debug_link_is_found_next_to_the_module)
{
	make_stripped();
	cr_assert_str_eq(debug_file_of("stripped"), path_of("prog.debug"));
	sh("mkdir .debug && mv prog.debug .debug/");
	cr_assert_str_eq(debug_file_of("stripped"), path_of(".debug/prog.debug"));
}

Test(module_files, a_fifo_named_by_the_debug_link_is_not_opened)
{
	make_stripped();
	sh("rm prog.debug && mkfifo prog.debug");
	cr_assert_str_eq(debug_file_of("stripped"), "-");
}

Test(module_files, a_debug_file_of_another_build_is_not_taken)
{
	/* a GNU build ID note: namesz 4, descsz 20, NT_GNU_BUILD_ID, "GNU", 20 bytes */
	static const unsigned char note[36] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0,
						'G', 'N', 'U', 0, 1, 2, 3, 4, 5 };
	FILE *f;

	make_stripped();
	f = fopen(path_of("note.bin"), "w");
	cr_assert(f);
	cr_assert_eq(fwrite(note, 1, sizeof(note), f), sizeof(note));
	cr_assert_eq(fclose(f), 0);
	sh("objcopy --update-section .note.gnu.build-id=note.bin prog.debug");
	cr_assert_str_eq(debug_file_of("stripped"), "-");
}

Test(module_files, without_a_build_id_the_crc_decides)
{
	/* objcopy warns that the notes left no longer fill their segment */
	sh("{ cp /proc/%d/exe full && objcopy --remove-section .note.gnu.build-id full prog && "
	   "objcopy --only-keep-debug prog prog.debug && "
	   "objcopy --strip-debug --add-gnu-debuglink=prog.debug prog stripped; } 2>/dev/null",
	   (int)getpid());
	cr_assert_str_eq(debug_file_of("stripped"), path_of("prog.debug"));
	sh("echo >>prog.debug");
	cr_assert_str_eq(debug_file_of("stripped"), "-");
}

Test(module_files, a_debug_link_with_a_directory_is_not_followed)
{
	static const char *const names[] = { "sub/prog.debug", "../sub/prog.debug", ".." };
	unsigned char crc[4];
	char buf[65536];
	uint32_t c = 0;
	size_t len;
	FILE *f;

	make_stripped();
	sh("mkdir sub && mv prog.debug sub/");
	f = fopen(path_of("sub/prog.debug"), "r");
	cr_assert(f);
	while ((len = fread(buf, 1, sizeof(buf), f)))
		c = module_files_crc32(c, buf, len);
	fclose(f);
	memcpy(crc, &c, 4);	/* the CRC is right, and the build ID: only the name is refused */
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		write_link_section("link.bin", names[i], crc, 4);
		sh("objcopy --remove-section .gnu_debuglink --add-section .gnu_debuglink=link.bin "
		   "stripped linked");
		cr_assert_str_eq(debug_file_of("linked"), "-", "%s", names[i]);
	}
}

Test(module_files, a_supplementary_file_libdw_would_open_itself_is_marked_absent)
{
	static const unsigned char id[20] = { 0xde, 0xad, 0xbe, 0xef };
	struct as_tracee_id self;
	const char *name = NULL;
	const void *got = NULL;
	Dwarf_Addr bias;
	Dwfl_Module *mod;
	Dwfl *dwfl;
	Dwarf *dw;

	write_link_section("alt.bin", "altfifo", id, sizeof(id));
	sh("cp /proc/%d/exe prog && mkfifo altfifo && "
	   "objcopy --add-section .gnu_debugaltlink=alt.bin prog alt", (int)getpid());
	dwfl = report("alt", &self, &mod);
	dw = dwfl_module_getdwarf(mod, &bias);
	cr_assert(dw);
	cr_assert_eq(dwelf_dwarf_gnu_debugaltlink(dw, &name, &got), (ssize_t)sizeof(id));
	cr_assert_str_eq(name, "altfifo");
	/* libdw would open "altfifo" next to the file, and block there */
	cr_assert_null(dwarf_getalt(dw));
	dwfl_end(dwfl);
	as_tracee_id_free(&self);
}

/* Our program's first mapping: its ELF header. */
static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	uint64_t *range = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && !range[1]) {
			range[0] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			range[1] = range[0] + info->dlpi_phdr[i].p_memsz;
		}
	return 1;
}

Test(module_files, a_module_file_that_is_a_fifo_is_not_opened_and_a_deleted_one_read_from_memory)
{
	uint64_t range[2] = { 0 };
	struct as_tracee_id self;
	Dwfl_Module *fifo, *gone;
	GElf_Addr bias;
	Dwfl *dwfl;

	dl_iterate_phdr(first_object, range);
	cr_assert_neq(range[1], 0);
	sh("mkfifo lib.so && echo 'not an ELF file' >'prog (deleted)'");
	dwfl = dwfl_begin(&callbacks);
	cr_assert(dwfl);
	as_tracee_id_init(&self, getpid());
	dwfl_report_begin(dwfl);
	fifo = dwfl_report_module(dwfl, path_of("lib.so"), 0x1000, 0x2000);
	gone = dwfl_report_module(dwfl, path_of("prog (deleted)"), range[0], range[1]);
	cr_assert(fifo && gone);
	cr_assert_eq(dwfl_report_end(dwfl, NULL, NULL), 0);
	module_files_tag(dwfl, &self);
	cr_assert_null(dwfl_module_getelf(fifo, &bias));
	/* the image this process runs, not the file now under that name */
	cr_assert(dwfl_module_getelf(gone, &bias));
	dwfl_end(dwfl);
	as_tracee_id_free(&self);
}
