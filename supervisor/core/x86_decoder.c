// SPDX-License-Identifier: GPL-2.0
/* capstone's x86-64 decoder, loaded with dlopen (x86_decoder.h). */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "x86_decoder.h"

#ifndef CAPSTONE_SONAME
#error "CAPSTONE_SONAME: the soname of the libcapstone the headers are of (the Makefile's)"
#endif
_Static_assert(sizeof(CAPSTONE_SONAME) > 1, "CAPSTONE_SONAME is empty");

/* never unloaded: a process made after the last one's end must not load it again */
#define DLOPEN_FLAGS (RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)

const char *x86_decoder_library(void)
{
	return CAPSTONE_SONAME;
}

int x86_decoder_preload(void)
{
	void *lib = dlopen(CAPSTONE_SONAME, DLOPEN_FLAGS);

	if (!lib)
		return -ELIBACC;
	dlclose(lib);
	return 0;
}

/* @name's address in @lib into *@fn; false when it has none. */
static bool resolve(void *lib, const char *name, void *fn)
{
	void *sym = dlsym(lib, name);

	memcpy(fn, &sym, sizeof(sym));	/* POSIX: a function's address as a void * */
	return sym;
}

static bool resolve_all(struct x86_decoder *d)
{
	return resolve(d->lib, "cs_open", &d->fn.open) &&
	       resolve(d->lib, "cs_option", &d->fn.option) &&
	       resolve(d->lib, "cs_malloc", &d->fn.malloc) &&
	       resolve(d->lib, "cs_disasm_iter", &d->fn.disasm_iter) &&
	       resolve(d->lib, "cs_free", &d->fn.free) &&
	       resolve(d->lib, "cs_close", &d->fn.close) &&
	       resolve(d->lib, "cs_insn_group", &d->fn.insn_group) &&
	       resolve(d->lib, "cs_regs_access", &d->fn.regs_access);
}

int x86_decoder_init(struct x86_decoder *d)
{
	int err = -ELIBACC;
	cs_err cerr;

	*d = (struct x86_decoder){ 0 };
	d->lib = dlopen(CAPSTONE_SONAME, DLOPEN_FLAGS);
	if (!d->lib || !resolve_all(d))
		goto err;
	cerr = d->fn.open(CS_ARCH_X86, CS_MODE_64, &d->cs);
	if (cerr != CS_ERR_OK) {
		err = cerr == CS_ERR_MEM ? -ENOMEM : -ELIBACC;
		goto err;
	}
	d->fn.option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
	d->insn = d->fn.malloc(d->cs);
	if (!d->insn) {
		d->fn.close(&d->cs);
		err = -ENOMEM;
		goto err;
	}
	return 0;
err:
	if (d->lib)
		dlclose(d->lib);
	*d = (struct x86_decoder){ 0 };
	return err;
}

void x86_decoder_fini(struct x86_decoder *d)
{
	if (!d->lib)
		return;
	d->fn.free(d->insn, 1);
	d->fn.close(&d->cs);
	dlclose(d->lib);
	*d = (struct x86_decoder){ 0 };
}
