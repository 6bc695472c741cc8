/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SFrame sections (versions 1, 2, 3): validation at registration, then FDE/FRE
 * lookup by address, producing the neutral unwind rule. Format: binutils
 * libsframe/doc/sframe-spec; rules: codectl-abi.md, "invalid SFrame section".
 */
#ifndef EMU_SFRAME_SECTION_H
#define EMU_SFRAME_SECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "accessor.h"
#include "arch.h"
#include "mappings.h"
#include "profile.h"
#include "rules.h"
#include "unwind_rule.h"

struct emu_sframe_section;

/**
 * struct emu_sframe_params - what a section is checked against
 * @sframe_addr: tracee address of the section's first byte (the anchor of
 *	non-PCREL function starts)
 * @text_start, @text_end: the registration's text range, [start, end) bytes
 * @maps: the caller's mappings, or NULL. With them, an FDE whose function
 *	lies wholly outside the text range but inside executable mappings is
 *	accepted: it describes another executable segment of the same object,
 *	registered separately. Without them every FDE must lie in the text.
 */
struct emu_sframe_params {
	uint64_t sframe_addr;
	uint64_t text_start;
	uint64_t text_end;
	enum emu_arch arch;
	enum emu_profile profile;
	const struct emu_mappings *maps;
};

/** struct emu_sframe_hdr - the decoded header (spec "SFrame Header") */
struct emu_sframe_hdr {
	uint8_t version;
	uint8_t flags;
	uint8_t abi;
	int8_t fixed_fp;
	int8_t fixed_ra;
	uint8_t auxhdr_len;
	uint32_t num_fdes;
	uint32_t num_fres;
	uint32_t fre_len;
	uint32_t fdeoff;
	uint32_t freoff;
};

/**
 * struct emu_sframe_fde - one function descriptor, version-neutral
 * @func_start: absolute address of the function; @func_size: bytes
 * @fres_pos: byte offset in the section of its first FRE (after the v3
 *	attribute record); @num_fres: FRE count
 * @rep_size: PCMASK block size in bytes (v1: EMU_SF_V1_PCMASK_REP_SIZE)
 * @addr_size: bytes of each FRE start (1, 2 or 4)
 * @type: v3 FDE type (0 DEFAULT, 1 FLEX); 0 before v3
 */
struct emu_sframe_fde {
	uint64_t func_start;
	uint32_t func_size;
	uint32_t num_fres;
	size_t fres_pos;
	uint8_t info;
	uint8_t info2;
	uint8_t rep_size;
	uint8_t addr_size;
	uint8_t type;
	bool pcmask;
	bool signal;
};

/**
 * struct emu_sframe_fre - one frame row entry as stored
 * @start: offset from the function start (PCMASK: within the repeat block)
 * @count, @word_size: number of data words and bytes per word
 * @word: the data words, sign-extended (FLEX control words are small and
 *	non-negative, see emu_sframe_fre_uword())
 */
struct emu_sframe_fre {
	uint32_t start;
	uint8_t info;
	uint8_t count;
	uint8_t word_size;
	int32_t word[15];
};

/**
 * emu_sframe_validate() - check a section against every rule of @p's profile
 * @data, @len: the section's bytes (a private copy: they are read many times)
 * @v: rule and reason on failure; kernel_refusals set in every case
 *
 * Return: 0, or -EINVAL with @v naming the rule (the section is invalid, or in
 * a kernel profile breaks one of its acceptance rules: EMU_R_KERNEL_REFUSES).
 */
int emu_sframe_validate(const uint8_t *data, size_t len, const struct emu_sframe_params *p,
			struct emu_verdict *v);

/**
 * emu_sframe_load() - validate a section and keep it
 * @data: malloc'd bytes of the section; consumed (kept or freed) in every case
 * @out: the new section with one reference, on success
 *
 * Return: 0, -EINVAL (see emu_sframe_validate()), -ENOMEM.
 */
int emu_sframe_load(uint8_t *data, size_t len, const struct emu_sframe_params *p,
		    struct emu_sframe_section **out, struct emu_verdict *v);

/** emu_sframe_get() - take a reference (sections are shared by fork copies). */
struct emu_sframe_section *emu_sframe_get(struct emu_sframe_section *s);

/** emu_sframe_put() - drop a reference; the last one frees the section. */
void emu_sframe_put(struct emu_sframe_section *s);

/** emu_sframe_header() - the decoded header of @s. */
const struct emu_sframe_hdr *emu_sframe_header(const struct emu_sframe_section *s);

/** emu_sframe_size() - bytes of the section copy. */
size_t emu_sframe_size(const struct emu_sframe_section *s);

/**
 * emu_sframe_fde_at() - decode FDE @idx of @s
 * Return: 0, -ENOENT (@idx >= num_fdes), -EFAULT (corrupt or out of bounds).
 */
int emu_sframe_fde_at(const struct emu_sframe_section *s, uint32_t idx,
		      struct emu_sframe_fde *fde);

/**
 * emu_sframe_find() - the FDE and FRE that describe address @ip
 * @fde_idx: may be NULL; the index of the FDE found
 *
 * FDE: binary search for the last function starting at or below @ip, which
 * must also contain @ip. FRE: the last one whose start is <= the offset of
 * @ip in the function (PCMASK: that offset modulo the repetition size).
 * Return: 0, -ENOENT (no FDE or FRE covers @ip), -EFAULT (corrupt data).
 */
int emu_sframe_find(const struct emu_sframe_section *s, uint64_t ip, uint32_t *fde_idx,
		    struct emu_sframe_fde *fde, struct emu_sframe_fre *fre);

/**
 * emu_sframe_rule() - translate an FRE of @fde into the neutral rule
 * Return: 0, -EFAULT (an offset count or control word the format forbids).
 */
int emu_sframe_rule(const struct emu_sframe_section *s, const struct emu_sframe_fde *fde,
		    const struct emu_sframe_fre *fre, struct emu_unwind_rule *rule);

/**
 * emu_sframe_find_rule() - emu_sframe_find() then emu_sframe_rule()
 *
 * A v3 signal-frame FDE gives a rule with only signal_frame set, even without
 * FREs. Return: 0, -ENOENT (not covered: try the frame pointer), -EFAULT.
 */
int emu_sframe_find_rule(const struct emu_sframe_section *s, uint64_t ip,
			 struct emu_unwind_rule *rule);

/**
 * emu_sframe_find_rule_live() - emu_sframe_find_rule() on the bytes a kernel
 *	would read: the section as it is in the process now (sframe_live.c)
 * @p: the registration's text range and the profile (its FDE and FRE checks);
 *	@p->maps is not used
 * @mem: the process's memory
 * @why: on an error other than -ENOENT, the rule and a reason naming the
 *	FDE/FRE and the bytes that changed since registration
 *
 * The bytes the lookup reads (the FDE entries its binary search visits, the
 * FDE found, its attribute record and FREs) are compared with the copy; when
 * they are the same the copy answers. Otherwise the section is read again
 * and searched with the kernel's per-FDE and per-FRE checks.
 * Return: 0, -ENOENT (no FDE or FRE covers @ip: the registration stays), or
 * the negative errno of @why's rule (the data is unreadable or broken).
 */
int emu_sframe_find_rule_live(const struct emu_sframe_section *s,
			      const struct emu_sframe_params *p, const struct emu_accessor *mem,
			      uint64_t ip, struct emu_unwind_rule *rule, struct emu_verdict *why);

/** emu_sframe_fre_uword() - data word @i of @fre read as unsigned (control words). */
uint32_t emu_sframe_fre_uword(const struct emu_sframe_fre *fre, unsigned int i);

#endif /* EMU_SFRAME_SECTION_H */
