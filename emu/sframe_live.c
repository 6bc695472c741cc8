// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame lookup as the v13 series makes it: on the section's bytes in
 * the process at the time of the unwind, not on the copy taken at
 * registration. The kernel reads user memory at every lookup, so a program
 * that changes its section after registering it is seen, and a lookup error
 * of its EFAULT class removes the registration (codectl-abi.md, "Lifecycle
 * and unwind-time failures"). The
 * bytes a lookup reads are compared with the copy; only when they differ is
 * the section read again and searched with the copy's decoder and checks.
 * (The v16 profile reads the section as that kernel does: sframe_kernel.c.)
 */
#include <stdio.h>
#include <stdlib.h>

#include "sframe_internal.h"

#define CHUNK 256

/* The @len bytes at @pos in the process: 0 as in the copy, 1 changed, -EFAULT unreadable. */
static int compare(const struct emu_sframe_section *s, const struct emu_accessor *mem, size_t pos,
		   size_t len)
{
	uint8_t buf[CHUNK];

	while (len) {
		size_t n = len < CHUNK ? len : CHUNK;

		if (emu_read(mem, s->addr + pos, buf, n))
			return -EFAULT;
		if (memcmp(buf, s->data + pos, n))
			return 1;
		pos += n;
		len -= n;
	}
	return 0;
}

/* The FDE entries the binary search for @ip visits, as in the copy? */
static int compare_search(const struct emu_sframe_section *s, const struct emu_accessor *mem,
			  uint64_t ip)
{
	uint32_t lo = 0, hi = s->hdr.num_fdes;
	int r;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		r = compare(s, mem, s->fdes_pos + (size_t)mid * s->fde_size, s->fde_size);
		if (r)
			return r;
		if (emu_sf_fde_func_start(s, mid) <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Everything the lookup of @ip reads as in the copy: the search's entries,
 * the FDE found, its attribute record (v3) and its FREs.
 */
static int compare_lookup(const struct emu_sframe_section *s, const struct emu_accessor *mem,
			  uint64_t ip)
{
	struct emu_sframe_fde fde;
	struct emu_sframe_fre fre;
	size_t start, pos;
	uint32_t idx;
	int r;

	r = compare_search(s, mem, ip);
	if (r || emu_sf_find_fde_index(s, ip, &idx))
		return r;
	r = compare(s, mem, s->fdes_pos + (size_t)idx * s->fde_size, s->fde_size);
	if (r || emu_sf_decode_fde(s, idx, &fde))
		return r;
	start = fde.fres_pos - (s->hdr.version == 3 ? EMU_SF_V3_ATTR_SIZE : 0);
	pos = fde.fres_pos;
	for (uint32_t j = 0; j < fde.num_fres; j++)
		if (emu_sf_decode_fre_head(s, &fde, &pos, &fre))
			return 1;	/* cannot happen in a validated copy */
	return compare(s, mem, start, pos - start);
}

/* FREs of FDE @idx up to the one for @ip_off, checked as the kernel's scan checks them. */
static int scan_fres(const struct emu_sframe_section *s, uint32_t idx,
		     const struct emu_sframe_fde *fde, uint64_t ip_off,
		     struct emu_sframe_fre *match, uint32_t *match_j, struct emu_verdict *v)
{
	struct emu_sframe_fre fre;
	size_t pos = fde->fres_pos;
	uint32_t prev = 0;
	bool found = false;
	enum emu_rule r;
	int err;

	for (uint32_t j = 0; j < fde->num_fres; j++) {
		r = emu_sf_decode_fre(s, fde, &pos, &fre);
		if (r)
			return emu_sf_fre_fail(v, r, idx, j, &fre);
		err = emu_sf_check_fre_start(v, idx, j, fde, &fre, prev);
		if (err)
			return err;
		if (fre.start > ip_off)
			break;
		*match = fre;
		*match_j = j;
		found = true;
		prev = fre.start;
	}
	return found ? 0 : -ENOENT;
}

/* sframe_find() on @s (the bytes read now): FDE search, the FDE's checks, the FRE scan. */
static int kernel_find(struct emu_sframe_section *s, const struct emu_sframe_params *p,
		       uint64_t ip, struct emu_unwind_rule *rule, struct emu_verdict *v)
{
	struct emu_sframe_fde fde;
	struct emu_sframe_fre fre;
	uint64_t ip_off;
	enum emu_rule r;
	uint32_t idx, j = 0;
	int err;

	if (emu_sf_find_fde_index(s, ip, &idx))
		return -ENOENT;
	r = emu_sf_decode_fde(s, idx, &fde);
	if (r)
		return emu_sf_fde_fail(v, r, idx, &fde);
	err = emu_sf_check_fde_text(s, p, idx, &fde, v);
	if (err)
		return err;
	ip_off = ip - fde.func_start;
	if (ip_off >= fde.func_size)
		return -ENOENT;
	err = scan_fres(s, idx, &fde, fde.pcmask ? ip_off % fde.rep_size : ip_off, &fre, &j, v);
	if (err == -ENOENT && fde.signal) {
		*rule = (struct emu_unwind_rule){ .signal_frame = true };
		err = 0;
	} else if (!err) {
		r = emu_sf_fre_rule(s, &fde, &fre, rule);
		if (r)
			return emu_sf_fre_fail(v, r, idx, j, &fre);
	}
	if (!err) {
		rule->code_start = fde.func_start;
		rule->code_end = fde.func_start + fde.func_size;
	}
	return err;
}

/* "; changed since registration at +OFF: OLD -> NEW" (up to 4 bytes) after @v's reason. */
static void add_change(struct emu_verdict *v, const uint8_t *was, const uint8_t *now, size_t len)
{
	size_t at = 0, n, used = strlen(v->reason);
	char old[16] = "", new[16] = "";

	while (at < len && was[at] == now[at])
		at++;
	if (at == len)
		return;
	for (n = 0; n < 4 && at + n < len; n++) {
		snprintf(old + 2 * n, 3, "%02x", was[at + n]);
		snprintf(new + 2 * n, 3, "%02x", now[at + n]);
	}
	snprintf(v->reason + used, sizeof(v->reason) - used,
		 "; changed since registration at +0x%zx: %s -> %s", at, old, new);
}

/* The lookup on the whole section read again. */
static int lookup_again(const struct emu_sframe_section *s, const struct emu_sframe_params *p,
			const struct emu_accessor *mem, uint64_t ip, struct emu_unwind_rule *rule,
			struct emu_verdict *why)
{
	struct emu_sframe_section now = *s;
	int err;

	now.data = malloc(s->len);
	if (!now.data)	/* the emulator's failure, not the program's: the copy answers */
		return emu_sframe_find_rule(s, ip, rule);
	now.big = NULL;
	now.nbig = 0;
	now.fre_pos = NULL;
	if (emu_read(mem, s->addr, now.data, s->len))
		err = emu_reject(why, EMU_R_SFRAME_FAULT, "section 0x%llx..+%zu unreadable now",
				 (unsigned long long)s->addr, s->len);
	else
		err = kernel_find(&now, p, ip, rule, why);
	if (err && err != -ENOENT && why->rule != EMU_R_SFRAME_FAULT)
		add_change(why, s->data, now.data, s->len);
	free(now.data);
	return err;
}

int emu_sframe_find_rule_live(const struct emu_sframe_section *s,
			      const struct emu_sframe_params *p, const struct emu_accessor *mem,
			      uint64_t ip, struct emu_unwind_rule *rule, struct emu_verdict *why)
{
	if (!compare_lookup(s, mem, ip))
		return emu_sframe_find_rule(s, ip, rule);
	return lookup_again(s, p, mem, ip, rule, why);
}
