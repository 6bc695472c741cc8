// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder on real stacks: this file is compiled with -Wa,--gsframe at -O0
 * and at -O2. A chain of functions (plain, alloca, large frame) calls
 * capture(), which takes its registers and a copy of its stack. Our unwinder,
 * over this program's own .sframe (registered as binfmt_elf would) and the
 * stack copy, must give exactly the return-address chain that libunwind's
 * local unwind and __builtin_return_address give for that moment.
 */
#include <alloca.h>
#include <criterion/criterion.h>
#include <link.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "emu/emu.h"
#include "supervisor/core/procfs.h"
#include "supervisor/trace/remote_mem.h"

#define DEPTH 9
#define CHAIN (2 * DEPTH + 2)	/* functions that record their return address */
#define MAX_FRAMES 64
#define STACK_COPY (64 * 1024)
#define PT_GNU_SFRAME 0x6474e554

struct capture {
	struct emu_regs regs;
	uint8_t stack[STACK_COPY];
	size_t stack_len;
	uint64_t lu_ips[MAX_FRAMES];
	unsigned int lu_n;
	uint64_t ra_chain[2 * DEPTH + 2];	/* __builtin_return_address, outermost first */
	unsigned int ra_n;
};

static struct capture cap;

#define RECORD_RA() (cap.ra_chain[cap.ra_n++] = (uint64_t)(uintptr_t)__builtin_return_address(0))

static uint64_t stack_top(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	cr_assert_eq(pthread_getattr_np(pthread_self(), &a), 0);
	cr_assert_eq(pthread_attr_getstack(&a, &addr, &size), 0);
	pthread_attr_destroy(&a);
	return (uint64_t)(uintptr_t)addr + size;
}

/* Registers from libunwind's context: IP, SP, FP and r0..r15 by DWARF number. */
static void take_registers(unw_cursor_t *c)
{
	unw_word_t v;

	unw_get_reg(c, UNW_REG_IP, &v);
	cap.regs.ip = v;
	unw_get_reg(c, UNW_REG_SP, &v);
	cap.regs.sp = v;
	unw_get_reg(c, UNW_X86_64_RBP, &v);
	cap.regs.fp = v;
	for (int r = 0; r < 16; r++) {
		unw_get_reg(c, r, &v);
		cap.regs.gpr[r] = v;
	}
	cap.regs.gpr_valid = 0xffff;
}

/* The stack from SP up, copied with process_vm_readv (not a sanitized memcpy). */
static void take_stack(void)
{
	struct remote_mem self;
	struct emu_accessor mem = remote_mem_accessor(&self);
	uint64_t top = stack_top();

	remote_mem_init(&self, getpid(), -1, NULL);
	cap.stack_len = top - cap.regs.sp < STACK_COPY ? top - cap.regs.sp : STACK_COPY;
	cr_assert_eq(emu_read(&mem, cap.regs.sp, cap.stack, cap.stack_len), 0);
}

__attribute__((noinline, noclone)) static void capture(void)
{
	unw_context_t ctx;
	unw_cursor_t c;
	unw_word_t ip;

	RECORD_RA();
	unw_getcontext(&ctx);
	unw_init_local(&c, &ctx);
	take_registers(&c);
	take_stack();
	cap.lu_n = 0;
	do {
		unw_get_reg(&c, UNW_REG_IP, &ip);
		cap.lu_ips[cap.lu_n++] = ip;
	} while (cap.lu_n < MAX_FRAMES && unw_step(&c) > 0);
}

static int level(int n);

__attribute__((noinline, noclone)) static int level_plain(int n)
{
	int r;

	RECORD_RA();
	r = level(n - 1);
	__asm__ volatile("" ::: "memory");
	return r + n;
}

__attribute__((noinline, noclone)) static int level_alloca(int n)
{
	volatile char *p = alloca((size_t)n * 24 + 8);
	int r;

	RECORD_RA();
	p[0] = (char)n;
	r = level(n - 1);
	__asm__ volatile("" ::: "memory");
	return r + p[0];
}

__attribute__((noinline, noclone)) static int level_big(int n)
{
	volatile char big[3000];
	int r;

	RECORD_RA();
	big[n] = (char)n;
	r = level(n - 1);
	__asm__ volatile("" ::: "memory");
	return r + big[n];
}

__attribute__((noinline, noclone)) static int level(int n)
{
	int r;

	RECORD_RA();
	if (n == 0) {
		capture();
		__asm__ volatile("" ::: "memory");
		return 0;
	}
	switch (n % 3) {
	case 0:
		r = level_plain(n);
		break;
	case 1:
		r = level_alloca(n);
		break;
	default:
		r = level_big(n);
	}
	__asm__ volatile("" ::: "memory");
	return r;
}

struct exe_ranges {
	struct code_sframe_info info;
	int found;
};

/* The main program's PT_GNU_SFRAME and its executable PT_LOAD, as binfmt_elf sees them. */
static int find_exe(struct dl_phdr_info *i, size_t size, void *data)
{
	struct exe_ranges *er = data;

	(void)size;
	if (er->found++)
		return 1;
	for (int k = 0; k < i->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &i->dlpi_phdr[k];

		if (ph->p_type == PT_GNU_SFRAME) {
			er->info.sframe_start = i->dlpi_addr + ph->p_vaddr;
			er->info.sframe_end = er->info.sframe_start + ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			er->info.text_start = i->dlpi_addr + ph->p_vaddr;
			er->info.text_end = er->info.text_start + ph->p_memsz;
		}
	}
	return 1;
}

static struct emu_registry *register_self(void)
{
	struct remote_mem self;
	struct emu_accessor mem = remote_mem_accessor(&self);
	struct emu_mappings maps = { 0 };
	struct emu_registry *r = emu_registry_new(16);
	struct emu_space sp = { .registry = r, .mem = &mem, .maps = &maps };
	struct emu_policy p = emu_policy_default();
	struct exe_ranges er = { 0 };
	struct emu_call_result res;

	remote_mem_init(&self, getpid(), -1, NULL);
	dl_iterate_phdr(find_exe, &er);
	cr_assert_neq(er.info.sframe_start, 0, "no PT_GNU_SFRAME in the test program");
	cr_assert_eq(procfs_maps_read(getpid(), &maps), 0);
	cr_assert_eq(emu_register_exec_sframe(&p, &sp, &er.info, &res), 0, "%s", res.verdict.reason);
	emu_mappings_free(&maps);
	return r;
}

Test(unwind_live, sframe_chain_equals_libunwind_and_return_addresses)
{
	struct emu_registry *r = register_self();
	struct emu_mem_image img = { 0 };
	struct emu_accessor mem;
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = MAX_FRAMES };
	struct emu_frame frames[MAX_FRAMES];
	struct emu_unwind_result res;
	unsigned int covered = 0;

	cap.ra_n = 0;
	level(DEPTH);
	emu_mem_image_add(&img, cap.regs.sp, cap.stack, cap.stack_len);
	mem = emu_mem_image_accessor(&img);
	cr_assert_eq(emu_unwind(r, &mem, &cap.regs, &o, frames, &res), 0);
	while (covered < res.nframes && frames[covered].source <= EMU_SRC_SFRAME)
		covered++;
	/* capture, level(0..DEPTH) with a helper between each, this test, its caller */
	cr_assert_eq(covered, CHAIN + 2, "covered prefix %u frames (stop %s)", covered,
		     emu_stop_name(res.stop));
	cr_assert_geq(cap.lu_n, covered, "libunwind gave %u frames", cap.lu_n);
	for (unsigned int i = 0; i < covered; i++)
		cr_assert_eq(frames[i].ip, cap.lu_ips[i], "frame %u: ours 0x%llx, libunwind 0x%llx", i,
			     (unsigned long long)frames[i].ip, (unsigned long long)cap.lu_ips[i]);
	cr_assert_eq(cap.ra_n, CHAIN);
	for (unsigned int i = 0; i < CHAIN; i++)
		cr_assert_eq(frames[i + 1].ip, cap.ra_chain[CHAIN - 1 - i], "return address %u", i);
	cr_assert_eq(img.fallback_reads, 0);
	emu_registry_free(r);
}

Test(unwind_live, strict_lookup_gives_the_same_chain_here)
{
	struct emu_registry *r = register_self();
	struct emu_mem_image img = { 0 };
	struct emu_accessor mem;
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = MAX_FRAMES,
				     .lookup_ra = true };
	struct emu_frame frames[MAX_FRAMES];
	struct emu_unwind_result res;

	cap.ra_n = 0;
	level(DEPTH);
	emu_mem_image_add(&img, cap.regs.sp, cap.stack, cap.stack_len);
	mem = emu_mem_image_accessor(&img);
	cr_assert_eq(emu_unwind(r, &mem, &cap.regs, &o, frames, &res), 0);
	cr_assert_geq(res.nframes, CHAIN + 2);
	for (unsigned int i = 0; i < CHAIN + 2; i++)
		cr_assert_eq(frames[i].ip, cap.lu_ips[i], "frame %u", i);
	emu_registry_free(r);
}
