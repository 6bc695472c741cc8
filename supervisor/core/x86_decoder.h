/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capstone's x86-64 decoder with instruction details, the library loaded
 * with dlopen(3): x86_decoder_preload() before a program starts when its
 * samples will be judged or --verify reads code, or the first decoder made.
 * Linked into codectl-run, libcapstone cost every start ~5-9 ms on the
 * development machine (its tables' ~80 000 relative relocations, written at
 * load: a page fault a page), -F 0 runs included, which decode nothing.
 */
#ifndef SUPERVISOR_CORE_X86_DECODER_H
#define SUPERVISOR_CORE_X86_DECODER_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct x86_decoder - one decoder and the capstone it was made with
 * @insn: the instruction x86_decoder_next() decoded last (details on)
 * @lib: the dlopen(3) handle (one reference per decoder)
 * @cs: capstone's handle; @fn: capstone's functions, from @lib
 */
struct x86_decoder {
	cs_insn *insn;
	void *lib;
	csh cs;
	struct {
		__typeof__(cs_open) *open;
		__typeof__(cs_option) *option;
		__typeof__(cs_malloc) *malloc;
		__typeof__(cs_disasm_iter) *disasm_iter;
		__typeof__(cs_free) *free;
		__typeof__(cs_close) *close;
		__typeof__(cs_insn_group) *insn_group;
		__typeof__(cs_regs_access) *regs_access;
	} fn;
};

/** x86_decoder_library() - the libcapstone loaded: the soname it was built with. */
const char *x86_decoder_library(void);

/**
 * x86_decoder_preload() - load libcapstone now, for decoders made later
 * (it stays: RTLD_NODELETE)
 * Return: 0, or -ELIBACC (it cannot be loaded).
 */
int x86_decoder_preload(void);

/**
 * x86_decoder_init() - make @d: capstone loaded, x86-64 with details, one
 * instruction's room
 * Return: 0, -ELIBACC (libcapstone cannot be loaded, lacks a function, or
 * has no x86-64), -ENOMEM. On error @d holds nothing to free.
 */
int x86_decoder_init(struct x86_decoder *d);

/** x86_decoder_fini() - release what x86_decoder_init() made (a zeroed @d is fine). */
void x86_decoder_fini(struct x86_decoder *d);

/**
 * x86_decoder_next() - decode the instruction at *@code (*@len bytes, at
 * address *@addr) into @d->insn, and move the three past it
 * Return: false when no instruction decodes there.
 */
static inline bool x86_decoder_next(struct x86_decoder *d, const uint8_t **code, size_t *len,
				    uint64_t *addr)
{
	return d->fn.disasm_iter(d->cs, code, len, addr, d->insn);
}

/** x86_decoder_in_group() - is @d->insn in capstone group @group (CS_GRP_CALL, ...)? */
static inline bool x86_decoder_in_group(const struct x86_decoder *d, unsigned int group)
{
	return d->fn.insn_group(d->cs, d->insn, group);
}

/**
 * x86_decoder_regs_access() - the registers @d->insn reads and writes, as
 * capstone's cs_regs_access() tells them
 * Return: false when capstone cannot tell.
 */
static inline bool x86_decoder_regs_access(const struct x86_decoder *d, cs_regs rd, uint8_t *nrd,
					   cs_regs wr, uint8_t *nwr)
{
	return d->fn.regs_access(d->cs, d->insn, rd, nrd, wr, nwr) == CS_ERR_OK;
}

#endif /* SUPERVISOR_CORE_X86_DECODER_H */
