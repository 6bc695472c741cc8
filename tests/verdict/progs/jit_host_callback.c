// SPDX-License-Identifier: GPL-2.0
/*
 * JIT code calling back into host code that has no SFrame
 * (docs/jit-integration.md): jit_call, generated into an anonymous
 * executable page with honest entries (no frame pointer: sub $8,%rsp; call
 * through %rax; add; ret), calls c_work in libjithost.so, which has DWARF CFI
 * but no .sframe and keeps no frame pointer.
 *
 *	main -> run_jit (C, frame pointer) -> jit_call (JIT) -> c_work (no SFrame)
 *
 * In c_work our walk has no unwind data and falls back to the frame
 * pointer: %rbp is run_jit's frame, so the fallback reads run_jit's return
 * address and lands in main, leaving out jit_call and run_jit. libunwind
 * steps from c_work by its CFI to jit_call.
 */
#include <codectl.h>
#include <codectl_jit.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "verdict_prog.h"

#define PAGE 4096
#define JIT_CALL_SIZE 0x15
#define JIT_CALL_TARGET 0x06	/* the movabs's immediate */

static const unsigned char jit_call_code[JIT_CALL_SIZE] = {
	0x48, 0x83, 0xec, 0x08,		/* 0x00: sub $0x8,%rsp */
	0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0x04: movabs $c_work,%rax */
	0xff, 0xd0,			/* 0x0e: call *%rax */
	0x48, 0x83, 0xc4, 0x08,		/* 0x10: add $0x8,%rsp */
	0xc3,				/* 0x14: ret */
};

/* jit_call's code at @page, calling @target. */
static int write_code(uint8_t *page, void (*target)(unsigned long))
{
	uint64_t to = (uint64_t)(uintptr_t)target;

	memcpy(page, jit_call_code, sizeof(jit_call_code));
	memcpy(page + JIT_CALL_TARGET, &to, sizeof(to));
	return mprotect(page, PAGE, PROT_READ | PROT_EXEC);
}

static int describe(struct codectl_jit_tables *t)
{
	struct code_jit_unwind_fre fre[CODECTL_JIT_FRAMELESS_FRES];

	if (!codectl_jit_fres_frameless(0, 4, 8, JIT_CALL_SIZE - 1, fre))
		return -1;
	return codectl_jit_add(t, fre, CODECTL_JIT_FRAMELESS_FRES);
}

DEFINE_RUNNER(run_jit, void)

int main(void)
{
	struct codectl_jit_tables t;
	char lib[PATH_MAX];
	void (*c_work)(unsigned long);
	uint8_t *page;
	void *h;
	int err;

	if (beside_prog(lib, sizeof(lib), "libjithost.so") || !(h = dlopen(lib, RTLD_NOW)) ||
	    !(c_work = (void (*)(unsigned long))dlsym(h, "c_work")))
		return 1;
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED || write_code(page, c_work) || codectl_jit_init(&t, page, PAGE, 8, 1))
		return 1;
	err = codectl_jit_register(&t);
	if (!err)
		err = describe(&t);
	if (err || perf_map_name(page, JIT_CALL_SIZE, "jit_call")) {
		fprintf(stderr, "jit_host_callback: registration failed: %s\n", strerror(-err));
		return 1;
	}
	run_jit((void (*)(unsigned long))page, 0.4);
	codectl_jit_destroy(&t);
	printf("jit_host_callback: done\n");
	return 0;
}
