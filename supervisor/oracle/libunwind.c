// SPDX-License-Identifier: GPL-2.0
/*
 * libunwind as an oracle (the cross-check of every sample): its remote
 * unwinding with our own accessors, registers from the sample, memory from
 * the sample's reader (stack copy, then process_vm_readv); unwind info is
 * found by libunwind-ptrace's _UPT_find_proc_info (DWARF .eh_frame from the
 * files), UNW_CACHE_PER_THREAD asked for (the Debian builds give the global
 * cache instead, whose lock masks every signal: libunwind_sigmask.c answers
 * those masks), flushed when the mappings change or the thread walked
 * another process last.
 *
 * A UPT_info keeps the ELF image and unwind table of the one object it
 * looked up last; asked about another, it reads /proc/PID/maps, unmaps the
 * image (a TLB shootdown that interrupts other CPUs, the program's among
 * them) and maps the other's. Each mapping therefore gets a UPT_info of its
 * own (at most UPT_SLOTS per process, the least recently made replaced), so
 * that a walk through a program's objects maps each once, until the
 * mappings change.
 *
 * The argument libunwind hands to our callbacks is either our per-walk
 * context (from unw_init_remote) or, for reads made inside
 * _UPT_find_proc_info, the UPT_info itself: libunwind casts that argument to
 * its struct UPT_info, so it must be the _UPT_create() pointer (passing
 * anything else ends every walk after one frame). A context starts with a
 * magic word; a UPT_info starts with the pid (pid_t, first member in every
 * libunwind release), checked once when the state is opened.
 *
 * _UPT_find_proc_info opens the file mapped at an address itself (by its
 * /proc/PID/maps path): the path is checked first (mapped_files.h), and the
 * call runs with the process's credentials (codectl-run(1), SECURITY).
 */
#include <errno.h>
#include <libunwind-ptrace.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "emu/unwind.h"
#include "mapped_files.h"
#include "oracle.h"
#include "supervisor/core/as_tracee.h"
#include "supervisor/core/clock.h"

/*
 * Why libunwind cannot check frames past the first JIT frame
 * (ORACLE_LIBUNWIND_NO_JIT). libunwind
 * 1.6.2's dynamic unwind info (_U_dyn_register) does not work for a remote
 * x86-64 unwinder, whatever the accessors (checked against its source and by
 * experiment; see codectl-run(1), SAMPLING):
 *  - libunwind-ptrace cannot find the tracee's _U_dyn_info_list
 *    (src/ptrace/_UPT_get_dyn_info_list_addr.c: get_list_addr() is "fix me"
 *    outside ia64); our get_dyn_info_list_addr accessor could supply it, but
 *  - UNW_INFO_FORMAT_DYNAMIC op lists are never interpreted on x86-64:
 *    src/dwarf/Gparser.c parse_dynamic() is "Not yet implemented" and returns
 *    -UNW_ENOINFO, so the step falls back to the frame chain (x86_64/Gstep.c);
 *  - UNW_INFO_FORMAT_TABLE's table_data is taken for a local .debug_frame
 *    index (src/dwarf/Gfind_proc_info-lsb.c dwarf_search_unwind_table());
 *  - UNW_INFO_FORMAT_REMOTE_TABLE (DWARF CFI the JIT would have to write as
 *    well) is read one word early: src/mi/Gdyn-remote.c intern_dyn_info()
 *    does not skip unw_dyn_info_t's load_offset; and laid out to match, the
 *    step frees the FDE's unwind info, allocated from libunwind's mempool
 *    (src/dwarf/Gfde.c), through the put_unwind_info accessor
 *    (src/mi/Gput_dynamic_unwind_info.c), which for libunwind-ptrace is
 *    free(): the unwinding process aborts.
 */

#define UPT_SLOTS 32
/*
 * Pages of read-only file mappings kept for libunwind-ptrace's reads of
 * unwind tables (.eh_frame_hdr, .eh_frame), which it makes a word at a time:
 * one process_vm_readv per page instead of one per word (4766 of them in
 * the first walks of bench/startup's program, for 5 samples).
 */
#define TABLE_PAGES 64
#define TABLE_PAGE 4096u

/* @map: the id of the mapping a page was read from (struct mapped_file) */
struct table_pages {
	uint64_t addr[TABLE_PAGES];
	uint64_t map[TABLE_PAGES];
	bool ok[TABLE_PAGES];
	uint8_t page[TABLE_PAGES][TABLE_PAGE];
};

/**
 * struct upt_slot - the UPT_info of one mapping
 * @map: the mapping's id (struct mapped_file: another once it changed)
 * @upt: _UPT_create(pid), NULL when the slot is free
 */
struct upt_slot {
	uint64_t map;
	void *upt;
};

/**
 * struct ref_unwinder - one process's libunwind state
 * @as: a remote address space with UNW_CACHE_PER_THREAD (flushed when the
 *	mappings change, and for the calling thread's cache when it walked
 *	another address space last)
 * @slot: the UPT_infos of the mappings looked up since the mappings last
 *	changed; @next: the slot made (or replaced) next when all are used
 * @files: which mapped files _UPT_find_proc_info may open
 * @tables: the table pages read (made on first use; emptied when the
 *	mappings change)
 * @born_ns: when @as was made (CLOCK_MONOTONIC; walked_last)
 * @who: the process they are opened for, with its credentials (its
 *	modules': read once per sample for both)
 */
struct ref_unwinder {
	void *as;
	struct upt_slot slot[UPT_SLOTS];
	unsigned int next;
	pid_t pid;
	uint64_t born_ns;
	struct mapped_files files;
	struct table_pages *tables;
	struct as_tracee_id *who;
};

/*
 * The process whose walk runs on this thread. libunwind hands its reads of
 * unwind tables our UPT_info, not our context (see above): this is how
 * they find the process's table pages. Set by walk() for the length of a
 * walk, NULL otherwise.
 */
static _Thread_local struct ref_unwinder *walking;

/*
 * The libunwind address space this thread walked last, and when it was made
 * (CLOCK_MONOTONIC; a space made later at the same address is another):
 * libunwind's register-state cache is per thread where libunwind is built
 * with per-thread caches (per address space otherwise, as Debian builds
 * it) and keyed by IP alone, so a walk in another process's address space
 * than this thread's last starts with it flushed. Two threads walk: the
 * walking thread, and the event loop at a stop and before a removal.
 */
static _Thread_local struct {
	const void *space;
	uint64_t born_ns;
} walked_last;

#define REF_CTX_MAGIC 0xffffffffc0dec7c7ull	/* its low half is no pid */

/*
 * @upt: the UPT_info of the last lookup; @no_info: a lookup during the
 * current step found no unwind information
 */
struct ref_ctx {
	uint64_t magic;
	const struct oracle_input *in;
	void *upt;
	struct ref_unwinder *r;
	bool no_info;
};

static bool read_remote(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len;
}

/*
 * A word of @r's process from the pages kept of its read-only file
 * mappings, read whole on first use; 1 when the word is not in such a page
 * (the caller reads it itself), 0, or -UNW_EINVAL.
 */
static int table_word(struct ref_unwinder *r, uint64_t addr, unw_word_t *val)
{
	const struct mapped_file *f = mapped_files_find(&r->files, addr);
	uint64_t page = addr & ~(uint64_t)(TABLE_PAGE - 1);
	unsigned int i = (unsigned int)(page / TABLE_PAGE % TABLE_PAGES);

	if (!f || f->writable || f->path[0] != '/' || addr - page > TABLE_PAGE - sizeof(*val))
		return 1;
	if (!r->tables && !(r->tables = calloc(1, sizeof(*r->tables))))
		return 1;
	if (r->tables->addr[i] != page || r->tables->map[i] != f->id || !r->tables->ok[i]) {
		r->tables->addr[i] = page;
		r->tables->map[i] = f->id;
		r->tables->ok[i] = read_remote(r->pid, page, r->tables->page[i], TABLE_PAGE);
	}
	if (!r->tables->ok[i])
		return -UNW_EINVAL;
	memcpy(val, r->tables->page[i] + (addr - page), sizeof(*val));
	return 0;
}

static int read_word(void *arg, unw_word_t addr, unw_word_t *val)
{
	struct ref_ctx *c = arg;
	pid_t pid;
	int ret;

	if (c->magic == REF_CTX_MAGIC)
		return emu_read(c->in->mem, addr, val, sizeof(*val)) ? -UNW_EINVAL : 0;
	memcpy(&pid, arg, sizeof(pid));	/* a UPT_info: reads of unwind tables */
	ret = walking && walking->pid == pid ? table_word(walking, addr, val) : 1;
	if (ret <= 0)
		return ret;
	return read_remote(pid, addr, val, sizeof(*val)) ? 0 : -UNW_EINVAL;
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
	if (write || c->magic != REF_CTX_MAGIC || reg < 0 || reg >= ORACLE_REGS)
		return -UNW_EBADREG;
	*val = c->in->regs[reg];
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

/* Every mapping's UPT_info destroyed, every table page forgotten (the mappings changed). */
static void drop_slots(struct ref_unwinder *r)
{
	if (r->tables)
		memset(r->tables->ok, 0, sizeof(r->tables->ok));
	for (unsigned int i = 0; i < UPT_SLOTS; i++) {
		if (r->slot[i].upt)
			_UPT_destroy(r->slot[i].upt);
		r->slot[i] = (struct upt_slot){ 0 };
	}
	r->next = 0;
}

/*
 * The UPT_info of the mapping with id @map, made when there is none (NULL:
 * no memory): a mapping replaced at the same address is another, and its
 * file's image is never taken for the old one's. Its ELF image and table
 * are that mapping's only: libunwind 1.6.2 can keep a wrong table after a
 * lookup in a file's data mapping, with a range that holds the file's code,
 * until a lookup outside it (tests/verdict/test_drap_nofde.c walks into
 * that); with a UPT_info per mapping, a lookup in the code never meets it.
 */
static void *upt_of(struct ref_unwinder *r, uint64_t map)
{
	struct upt_slot *s;

	for (unsigned int i = 0; i < UPT_SLOTS; i++)
		if (r->slot[i].upt && r->slot[i].map == map)
			return r->slot[i].upt;
	s = &r->slot[r->next];
	if (s->upt)
		_UPT_destroy(s->upt);
	s->map = map;
	s->upt = _UPT_create(r->pid);
	r->next = (r->next + 1) % UPT_SLOTS;
	return s->upt;
}

/*
 * JIT code has no file: _UPT_find_proc_info would look for one in
 * /proc/PID/maps and, failing, drop the ELF image it keeps (the next lookup
 * maps the file again). libunwind goes on with its frame-chain guess, as it
 * does where the file it would open is refused (a FIFO, a file the process
 * could not open itself), or when its credentials cannot be taken.
 */
static int find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi, int need,
			  void *arg)
{
	struct ref_ctx *c = arg;
	const struct mapped_file *map;
	struct as_tracee creds;
	void *upt;
	int ret;

	c->no_info = true;
	if (in_jit(c->in->registry, ip) || mapped_files_check(&c->r->files, c->r->who, ip))
		return -UNW_ENOINFO;
	map = mapped_files_find(&c->r->files, ip);
	upt = map ? upt_of(c->r, map->id) : NULL;
	if (!upt || as_tracee_enter(&creds, c->r->who))
		return -UNW_ENOINFO;
	c->upt = upt;
	ret = _UPT_find_proc_info(as, ip, pi, need, upt);
	as_tracee_leave(&creds);
	c->no_info = ret < 0;
	return ret;
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

static void close_state(void *state)
{
	struct ref_unwinder *r = state;

	if (!r)
		return;
	if (r->as)
		unw_destroy_addr_space(r->as);
	drop_slots(r);
	free(r->tables);
	mapped_files_free(&r->files);
	free(r);
}

/*
 * Return: 0, -ENOMEM, or -ENOTSUP when this libunwind's _UPT_create does not
 * keep the pid where its callbacks expect it (see above).
 */
static int open_state(void **state, pid_t pid, struct modules *mods)
{
	void *probe = _UPT_create(pid);	/* where its callbacks find the pid */
	struct ref_unwinder *r;
	pid_t first;

	if (!probe)
		return -ENOMEM;
	memcpy(&first, probe, sizeof(first));
	_UPT_destroy(probe);
	if (first != pid)
		return -ENOTSUP;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->pid = pid;
	mapped_files_init(&r->files, pid);
	r->who = &mods->who;
	r->as = unw_create_addr_space(&accessors, 0);
	if (!r->as) {
		close_state(r);
		return -ENOMEM;
	}
	unw_set_caching_policy(r->as, UNW_CACHE_PER_THREAD);
	r->born_ns = clock_now_ns();
	*state = r;
	return 0;
}

/*
 * Start over with fresh libunwind-ptrace state: the ELF images (kept by the
 * UPT_infos, which unw_flush_cache() does not drop) and the cache.
 */
static void fresh_state(struct ref_unwinder *r)
{
	drop_slots(r);
	unw_flush_cache(r->as, 0, 0);
}

/* A library replaced at the same address must not be read with the old one's CFI. */
static void mappings_changed(void *state)
{
	struct ref_unwinder *r = state;

	fresh_state(r);
	mapped_files_forget(&r->files);
}

static int walk_once(struct ref_unwinder *r, const struct oracle_input *in, struct oracle_walk *w)
{
	struct ref_ctx c = { .magic = REF_CTX_MAGIC, .in = in, .r = r };
	unw_cursor_t cur;
	unw_word_t ip;
	bool sig;
	int ret;

	w->n = 0;
	walking = r;
	ret = unw_init_remote(&cur, r->as, &c);
	while (ret >= 0 && w->n < w->max) {
		ret = unw_get_reg(&cur, UNW_REG_IP, &ip);
		if (ret < 0)
			break;
		/*
		 * At the frame a signal interrupted (its IP exact), libunwind says
		 * "signal frame": the frame before it was the trampoline.
		 */
		sig = w->n && unw_is_signal_frame(&cur) > 0;
		if (w->flags) {
			w->flags[w->n] = (!w->n || sig ? EMU_FRAME_EXACT : 0) |
					 (c.no_info ? ORACLE_FRAME_NO_INFO : 0);
			if (sig)
				w->flags[w->n - 1] |= EMU_FRAME_TRAMPOLINE | EMU_FRAME_EXACT;
		}
		w->ips[w->n++] = ip;
		c.no_info = false;
		ret = unw_step(&cur);
		if (ret == 0)
			break;
	}
	walking = NULL;
	return ret < 0 ? ret : 0;
}

/*
 * A walk that ends at frame 0 is tried once more with libunwind-ptrace's
 * ELF images and the address space's cache dropped, in case they were
 * stale; not when frame 0 is in JIT code or in memory without a file
 * libunwind may open (the vDSO, anonymous memory): there the end is
 * expected, and a retry would only map every object again. Return: 0 when libunwind reached the
 * stack's end (or the limit), else the negative libunwind error (-UNW_*) of
 * the init or step that failed.
 */
static int walk(void *state, const struct oracle_input *in, struct oracle_walk *w)
{
	struct ref_unwinder *r = state;
	bool other = walked_last.space != r->as || walked_last.born_ns != r->born_ns;
	int ret;

	/* asked for, or the thread's cache may hold another process's */
	if (in->walker->libunwind_flush || other)
		unw_flush_cache(r->as, 0, 0);
	walked_last.space = r->as;
	walked_last.born_ns = r->born_ns;
	in->walker->libunwind_flush = false;
	mapped_files_new_sample(&r->files, in->taken_ns);
	ret = walk_once(r, in, w);
	w->retries = 0;
	if (w->n > 1 || w->max < 2 || in_jit(in->registry, in->regs[ORACLE_REGS - 1]) ||
	    mapped_files_check(&r->files, r->who, in->regs[ORACLE_REGS - 1]))
		return ret;
	fresh_state(r);
	w->retries = 1;
	return walk_once(r, in, w);
}

static const char *walk_strerror(int err)
{
	return unw_strerror(err);
}

const struct oracle_ops oracle_libunwind = {
	.name = "libunwind",
	.open = open_state,
	.close = close_state,
	.mappings_changed = mappings_changed,
	.walk = walk,
	.strerror = walk_strerror,
};
