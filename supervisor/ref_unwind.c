// SPDX-License-Identifier: GPL-2.0
/*
 * libunwind remote unwinding over a sample. The argument libunwind hands to
 * our callbacks is either our per-walk context (from unw_init_remote) or, for
 * reads made inside _UPT_find_proc_info, the UPT_info itself: libunwind casts
 * that argument to its struct UPT_info, so it must be the _UPT_create()
 * pointer (passing anything else ends every walk after one frame). A context
 * starts with a magic word; a UPT_info starts with the pid (pid_t, first
 * member in every libunwind release), checked once in ref_unwinder_init().
 */
#include <errno.h>
#include <libunwind-ptrace.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ref_unwind.h"

#define REF_CTX_MAGIC 0xffffffffc0dec7c7ull	/* its low half is no pid */

struct ref_ctx {
	uint64_t magic;
	struct sample_mem *mem;
	const struct sample *smp;
	void *upt;
	const struct emu_registry *registry;
};

static int read_word(void *arg, unw_word_t addr, unw_word_t *val)
{
	struct ref_ctx *c = arg;
	struct iovec local = { .iov_base = val, .iov_len = sizeof(*val) };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = sizeof(*val) };
	pid_t pid;

	if (c->magic == REF_CTX_MAGIC)
		return sample_mem_read(c->mem, addr, val, sizeof(*val)) ? -UNW_EINVAL : 0;
	memcpy(&pid, arg, sizeof(pid));	/* a UPT_info: reads of unwind tables */
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != sizeof(*val))
		return -UNW_EINVAL;
	return 0;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
		      void *arg)
{
	(void)as;
	if (write)
		return -UNW_EINVAL;
	return read_word(arg, addr, val);
}


static int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
		      void *arg)
{
	struct ref_ctx *c = arg;

	(void)as;
	/* libunwind's x86-64 register numbers are DWARF's, RIP included */
	if (write || c->magic != REF_CTX_MAGIC || reg < 0 || reg >= SAMPLE_DWARF_REGS)
		return -UNW_EBADREG;
	*val = c->smp->dwarf[reg];
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val, int write,
			void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

/* Is @ip in JIT code, where libunwind has no unwind info of its own? */
static bool in_jit(const struct emu_registry *registry, uint64_t ip)
{
	return registry && emu_registry_find_jit(registry, ip);
}

/*
 * JIT code has no file: _UPT_find_proc_info would look for one in
 * /proc/PID/maps and, failing, drop the ELF image it keeps (the next lookup
 * maps the file again). libunwind goes on with its frame-chain guess.
 */
static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need,
			  void *arg)
{
	struct ref_ctx *c = arg;

	if (in_jit(c->registry, ip))
		return -UNW_ENOINFO;
	return _UPT_find_proc_info(as, ip, pi, need, c->upt);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	struct ref_ctx *c = arg;

	_UPT_put_unwind_info(as, pi, c->upt);
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
			 unw_word_t *off, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)off, (void)arg;
	return -UNW_ENOINFO;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

int ref_unwinder_init(struct ref_unwinder *r, pid_t pid)
{
	pid_t first;

	*r = (struct ref_unwinder){ .pid = pid };
	r->upt = _UPT_create(pid);
	if (!r->upt)
		return -ENOMEM;
	memcpy(&first, r->upt, sizeof(first));
	if (first != pid) {
		ref_unwinder_free(r);
		return -ENOTSUP;
	}
	r->as = unw_create_addr_space(&accessors, 0);
	if (!r->as) {
		ref_unwinder_free(r);
		return -ENOMEM;
	}
	unw_set_caching_policy(r->as, UNW_CACHE_GLOBAL);
	return 0;
}

void ref_unwinder_free(struct ref_unwinder *r)
{
	if (r->as)
		unw_destroy_addr_space(r->as);
	if (r->upt)
		_UPT_destroy(r->upt);
	*r = (struct ref_unwinder){ 0 };
}

void ref_unwinder_flush(struct ref_unwinder *r)
{
	if (r->as)
		unw_flush_cache(r->as, 0, 0);
}

static int walk(struct ref_unwinder *r, struct sample_mem *mem, const struct sample *smp,
		uint64_t *ips, unsigned int max, unsigned int *n)
{
	struct ref_ctx c = { .magic = REF_CTX_MAGIC, .mem = mem, .smp = smp, .upt = r->upt,
			     .registry = r->registry };
	unw_cursor_t cur;
	unw_word_t ip;
	int ret;

	*n = 0;
	ret = unw_init_remote(&cur, r->as, &c);
	while (ret >= 0 && *n < max) {
		ret = unw_get_reg(&cur, UNW_REG_IP, &ip);
		if (ret < 0)
			break;
		ips[(*n)++] = ip;
		ret = unw_step(&cur);
		if (ret == 0)
			break;
	}
	return ret < 0 ? ret : 0;
}

/*
 * libunwind-ptrace keeps the ELF image of the last object it looked up in
 * the UPT_info; a walk that ends at frame 0 is tried once more with that
 * state and the address space's cache dropped (not when frame 0 is in JIT
 * code: there the end is expected).
 */
int ref_unwind(struct ref_unwinder *r, struct sample_mem *mem, const struct sample *smp,
	       uint64_t *ips, unsigned int max, unsigned int *n)
{
	int ret = walk(r, mem, smp, ips, max, n);
	void *fresh;

	if (*n > 1 || max < 2 || in_jit(r->registry, smp->regs.rip))
		return ret;
	fresh = _UPT_create(r->pid);
	if (!fresh)
		return ret;
	_UPT_destroy(r->upt);
	r->upt = fresh;
	unw_flush_cache(r->as, 0, 0);
	r->retries++;
	return walk(r, mem, smp, ips, max, n);
}
