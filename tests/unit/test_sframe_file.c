// SPDX-License-Identifier: GPL-2.0
/*
 * File-backed SFrame (emu/sframe_file.c, CODE_REGISTER_SFRAME_FILE): a
 * section read from a file, plain or block-compressed, answers every lookup
 * as the same section copied into memory; only the blocks a lookup needs
 * are read, within the address space's budget; a broken block is found by
 * the lookup that reads it; the option's errnos that need a file the
 * conformance suite cannot make (a filesystem that may block, a read error,
 * the emulator out of descriptors).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "eh_frame_object.h"
#include "elf_sframe.h"
#include "emu/sframe_synth.h"
#include "fake_space.h"
#include "sframe_samples.h"
#include "supervisor/calls/caller_files.h"
#include "supervisor/extract/sframe_pack.h"

/* A file in memory: @data (@len bytes); @fail_at: reads from there on fail (EIO). */
struct mem_file {
	const uint8_t *data;
	size_t len;
	uint64_t fail_at;
	unsigned int reads;
	unsigned int released;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct mem_file *m = ctx;

	m->reads++;
	if (off > m->len || m->len - off < len || off + len > m->fail_at)
		return -EIO;
	memcpy(buf, m->data + off, len);
	return 0;
}

static void mem_release(void *ctx)
{
	((struct mem_file *)ctx)->released++;
}

static struct emu_file file_of(struct mem_file *m)
{
	return (struct emu_file){ .read = mem_read, .release = mem_release, .ctx = m,
				  .size = m->len, .regular = true, .readable = true };
}

static struct emu_sframe_params params(uint64_t addr, uint64_t text_start, uint64_t text_end)
{
	return (struct emu_sframe_params){
		.sframe_addr = addr, .text_start = text_start, .text_end = text_end,
		.arch = EMU_ARCH_X86_64, .profile = EMU_PROFILE_EMULATOR,
	};
}

/* @sec packed with @compression, loaded from a mem_file over the packed bytes (kept in @m). */
static struct emu_sframe_section *load_file(const uint8_t *sec, size_t len,
					    const struct emu_sframe_params *p,
					    unsigned int compression, struct emu_block_cache *cache,
					    struct mem_file *m)
{
	struct emu_sframe_file_params fp = { .size = len, .compression = compression,
					     .cache = cache, .room = UINT64_MAX };
	struct emu_sframe_section *s = NULL;
	struct emu_file f;
	struct emu_verdict v;
	uint8_t *data;
	size_t n;

	cr_assert_eq(sframe_pack(sec, len, compression, 4096, &data, &n), 0);
	*m = (struct mem_file){ .data = data, .len = n, .fail_at = UINT64_MAX };
	fp.length = n;
	f = file_of(m);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load_file(&f, &fp, p, &s, &v), 0, "%s (%s)", v.reason,
		     emu_rule_name(v.rule));
	return s;
}

static struct emu_sframe_section *load_copy(const uint8_t *sec, size_t len,
					    const struct emu_sframe_params *p)
{
	struct emu_sframe_section *s = NULL;
	uint8_t *copy = malloc(len);
	struct emu_verdict v;

	memcpy(copy, sec, len);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load(copy, len, p, &s, &v), 0, "%s", v.reason);
	return s;
}

static bool same_rule(const struct emu_unwind_rule *a, const struct emu_unwind_rule *b)
{
	return a->cfa_base == b->cfa_base && a->cfa_reg == b->cfa_reg &&
	       a->cfa_deref == b->cfa_deref && a->cfa_off == b->cfa_off &&
	       a->ra.kind == b->ra.kind && a->ra.off == b->ra.off && a->fp.kind == b->fp.kind &&
	       a->fp.off == b->fp.off && a->outermost == b->outermost &&
	       a->signal_frame == b->signal_frame && a->code_start == b->code_start &&
	       a->code_end == b->code_end;
}

/* Every address of [start, end): the same answer from both; returns the addresses with a rule. */
static unsigned long compare(const struct emu_sframe_section *copy,
			     const struct emu_sframe_section *file, uint64_t start, uint64_t end)
{
	unsigned long ruled = 0;

	for (uint64_t ip = start; ip < end; ip++) {
		struct emu_unwind_rule a = { 0 }, b = { 0 };
		int ea = emu_sframe_find_rule(copy, ip, &a), eb = emu_sframe_find_rule(file, ip, &b);

		cr_assert_eq(ea, eb, "0x%llx: %d in memory, %d from the file",
			     (unsigned long long)ip, ea, eb);
		cr_assert(ea || same_rule(&a, &b), "0x%llx: the rules differ",
			  (unsigned long long)ip);
		ruled += !ea;
	}
	return ruled;
}

/* Real sections of each version, each codec: the same rule at every byte of the text. */
Test(sframe_file, vectors_answer_as_the_copy)
{
	static const char *const objs[] = { "basic-O2-nofp", "libvec-O0-fp.so", "drap-O2-nofp" };
	static const char *const sources[] = { "file", "file,zlib", "file,zstd" };
	struct emu_block_cache *cache = emu_block_cache_new(1 << 20);

	for (int ver = 1; ver <= 3; ver++)
		for (size_t o = 0; o < sizeof(objs) / sizeof(objs[0]); o++) {
			char path[512];
			struct elf_sframe es;

			snprintf(path, sizeof(path), "%s/v%d/%s", VECTOR_DIR, ver, objs[o]);
			cr_assert_eq(elf_sframe_read(path, &es), 0, "%s", path);
			for (unsigned int c = 0; c <= CODE_SFRAME_COMPRESS_ZSTD; c++) {
				const struct emu_sframe_params p =
					params(es.addr, es.text_start, es.text_end);
				struct emu_sframe_section *copy = load_copy(es.data, es.len, &p);
				struct mem_file m;
				struct emu_sframe_section *file =
					load_file(es.data, es.len, &p, c, cache, &m);

				cr_assert_gt(compare(copy, file, es.text_start, es.text_end), 0);
				cr_assert_str_eq(emu_sframe_source(file), sources[c]);
				emu_sframe_put(file);
				cr_assert_eq(m.released, 1);
				emu_sframe_put(copy);
				free((void *)m.data);
			}
			elf_sframe_free(&es);
		}
	emu_block_cache_put(cache);
}

/* glibc's text with SFrame made from its .eh_frame: a large v3 section (dozens of blocks). */
struct big {
	struct object o;
	uint8_t *sec;
	size_t len;
	struct emu_sframe_params p;
};

static void big_section(struct big *b)
{
	struct emu_sframe_synth_stats st;

	object_in_process(&b->o, "/libc.so.6");
	object_register(&b->o);
	cr_assert_eq(emu_sframe_synthesize(&b->o.e, &b->o.mem, b->o.text_start, &b->sec, &b->len,
					   &st), 0);
	b->p = params(b->o.text_start, b->o.text_start, b->o.text_end);
}

static void big_free(struct big *b)
{
	free(b->sec);
	object_close(&b->o);
}

/* 8 blocks of budget: a lookup reads one or two blocks; every answer right; never above it. */
Test(sframe_file, a_lookup_reads_only_its_blocks_within_the_budget)
{
	struct emu_block_cache *cache = emu_block_cache_new(8 * 4096);
	struct emu_block_cache_stats st;
	struct emu_sframe_section *copy, *file;
	struct emu_unwind_rule rule;
	struct mem_file m;
	struct big b;
	size_t first;

	big_section(&b);
	copy = load_copy(b.sec, b.len, &b.p);
	file = load_file(b.sec, b.len, &b.p, CODE_SFRAME_COMPRESS_ZSTD, cache, &m);
	st = emu_block_cache_stats(cache);
	cr_assert_eq(st.misses, 0, "registration reads the header and FDE table only");
	first = emu_sframe_resident(file);
	cr_assert_leq(first, emu_sframe_kept(file));
	cr_assert_lt(first, b.len / 2, "%zu of %zu bytes", first, b.len);
	cr_assert_eq(emu_sframe_find_rule(file, (b.o.text_start + b.o.text_end) / 2, &rule),
		     emu_sframe_find_rule(copy, (b.o.text_start + b.o.text_end) / 2, &rule));
	st = emu_block_cache_stats(cache);
	cr_assert(st.misses >= 1 && st.misses <= 2, "%llu blocks read", (unsigned long long)st.misses);
	cr_assert_eq(emu_sframe_resident(file), first + st.resident);
	cr_assert_gt(compare(copy, file, b.o.text_start, b.o.text_end), 0);
	st = emu_block_cache_stats(cache);
	cr_assert_leq(st.peak, 8 * 4096);
	cr_assert_gt(st.evictions, 0);
	cr_assert_gt(st.hits, st.misses, "%llu hits, %llu misses", (unsigned long long)st.hits,
		     (unsigned long long)st.misses);
	emu_sframe_put(file);
	emu_sframe_put(copy);
	emu_block_cache_put(cache);
	free((void *)m.data);
	big_free(&b);
}

/* A broken block is found by the lookups that read it (file-blocks); the others answer. */
Test(sframe_file, a_broken_block_fails_only_its_lookups)
{
	struct emu_block_cache *cache = emu_block_cache_new(1 << 20);
	const struct code_sframe_blocks *h;
	const struct code_sframe_block *e;
	struct emu_sframe_section *copy, *file;
	unsigned long failed = 0, right = 0;
	struct mem_file m;
	struct big b;

	big_section(&b);
	copy = load_copy(b.sec, b.len, &b.p);
	file = load_file(b.sec, b.len, &b.p, CODE_SFRAME_COMPRESS_ZLIB, cache, &m);
	h = (const void *)m.data;
	e = (const struct code_sframe_block *)(m.data + sizeof(*h)) + h->nblocks / 2;
	((uint8_t *)m.data)[e->offset + e->length / 2] ^= 0x5a;
	for (uint64_t ip = b.o.text_start; ip < b.o.text_end; ip += 7) {
		struct emu_unwind_rule x = { 0 }, y = { 0 };
		int ex = emu_sframe_find_rule(copy, ip, &x), ey = emu_sframe_find_rule(file, ip, &y);

		if (ey == -EFAULT) {
			cr_assert_eq(emu_sframe_file_fault(file)->rule, EMU_R_FILE_BLOCKS);
			failed++;
			continue;
		}
		cr_assert(ex == ey && (ex || same_rule(&x, &y)), "0x%llx", (unsigned long long)ip);
		right += !ex;
	}
	cr_assert_gt(failed, 0);
	cr_assert_gt(right, failed);
	emu_sframe_put(file);
	emu_sframe_put(copy);
	emu_block_cache_put(cache);
	free((void *)m.data);
	big_free(&b);
}

/*
 * The caller's descriptors for fake_space: every fd is @m, but 98 (the
 * emulator out of descriptors) and 99 (not open); @may_block: on FUSE.
 */
struct fake_files {
	struct mem_file m;
	bool may_block;
};

static int fake_get(void *ctx, int fd, struct emu_file *f)
{
	struct fake_files *ff = ctx;

	if (fd == 98)
		return -EMFILE;
	if (fd == 99)
		return -EBADF;
	*f = file_of(&ff->m);
	f->may_block = ff->may_block;
	return 0;
}

static struct fake_space fs;
static struct fake_files ff;
static struct emu_files files = { .get = fake_get, .ctx = &ff };
static uint8_t packed_sec[2048];

/* A v3 section for 4 functions of 64 bytes at text A, zlib-packed as the file's bytes. */
static struct code_sframe_file_info file_info(void)
{
	struct sfw_layout lay;
	size_t len = sample_section(3, true, FAKE_RO, FAKE_TEXT_A, 4, 64, packed_sec,
				    sizeof(packed_sec), &lay);
	uint8_t *data;
	size_t n;

	cr_assert_eq(sframe_pack(packed_sec, len, CODE_SFRAME_COMPRESS_ZLIB, 4096, &data, &n), 0);
	ff = (struct fake_files){ .m = { .data = data, .len = n, .fail_at = UINT64_MAX } };
	return (struct code_sframe_file_info){
		.text_start = FAKE_TEXT_A, .text_end = FAKE_TEXT_A + 256, .sframe_addr = FAKE_RO,
		.length = n, .size = len, .fd = 3, .compression = CODE_SFRAME_COMPRESS_ZLIB,
	};
}

static int reg(struct code_sframe_file_info *i)
{
	return fake_call(&fs, CODE_REGISTER_SFRAME_FILE, fake_put(&fs, i, sizeof(*i)), sizeof(*i), 0);
}

static void setup(void)
{
	fake_space_init(&fs);
	fs.space.files = &files;
}

static void teardown(void)
{
	fake_space_fini(&fs);
	free((void *)ff.m.data);
}

TestSuite(sframe_file_call, .init = setup, .fini = teardown);

Test(sframe_file_call, errnos_only_the_emulator_can_give)
{
	struct code_sframe_file_info i = file_info();

	ff.may_block = true;
	cr_assert_eq(reg(&i), -EOPNOTSUPP);
	cr_assert_eq(fs.res.verdict.rule, EMU_R_FILE_MAY_BLOCK);
	ff.may_block = false;
	ff.m.fail_at = 16;	/* the blocks' header reads, the index does not */
	cr_assert_eq(reg(&i), -EIO);
	cr_assert_eq(fs.res.verdict.rule, EMU_R_FILE_READ);
	ff.m.fail_at = UINT64_MAX;
	i.fd = 98;
	cr_assert_eq(reg(&i), -EAGAIN);
	cr_assert_eq(fs.res.verdict.rule, EMU_R_EMULATOR_FAILURE);
	i.fd = 99;
	cr_assert_eq(reg(&i), -EBADF);
	cr_assert_eq(fs.res.verdict.rule, EMU_R_FILE_FD);
	i.fd = 3;
	fs.policy.profile = EMU_PROFILE_V16;
	cr_assert_eq(reg(&i), -EINVAL);
	cr_assert_eq(fs.res.verdict.rule, EMU_R_OPTION);
	fs.policy.profile = EMU_PROFILE_EMULATOR;
	cr_assert_eq(ff.m.released, 2, "both files taken (FUSE, the read error) were released");
	cr_assert_eq(reg(&i), 0, "%s", fs.res.verdict.reason);
	cr_assert_eq(ff.m.released, 2, "the registration holds its file");
	cr_assert_eq(fake_call(&fs, CODE_UNREGISTER, FAKE_TEXT_A, 0, 0), 0);
	cr_assert_eq(ff.m.released, 3);
}

/* Broken FRE data found by an unwind removes the registration, in the emulator profile too. */
Test(sframe_file_call, a_broken_block_found_by_an_unwind_removes_it)
{
	struct code_sframe_file_info i = file_info();
	const struct code_sframe_blocks *h = (const void *)ff.m.data;
	const struct code_sframe_block *e = (const void *)(ff.m.data + sizeof(*h));
	struct emu_unwind_opts o = { .arch = EMU_ARCH_X86_64, .max_frames = 8,
				     .profile = EMU_PROFILE_EMULATOR };
	struct emu_regs regs = { .ip = FAKE_TEXT_A + 70, .sp = FAKE_DATA + 0x1000 };
	struct emu_frame frames[8];
	struct emu_unwind_result res;

	cr_assert_eq(h->nblocks, 2);
	((uint8_t *)ff.m.data)[e[1].offset + e[1].length / 2] ^= 0x5a;
	cr_assert_eq(reg(&i), 0, "%s", fs.res.verdict.reason);	/* block 0 is whole */
	cr_assert_eq(emu_unwind(fs.registry, &fs.mem, &regs, &o, frames, &res), 0);
	cr_assert_eq(res.nremovals, 1);
	cr_assert_eq(res.removals[0].text_start, FAKE_TEXT_A);
	cr_assert_eq(res.removals[0].sframe_start, FAKE_RO);
	cr_assert_eq(res.removals[0].rule, EMU_R_FILE_BLOCKS);
	cr_assert_eq(frames[0].ip, FAKE_TEXT_A + 70);
}

Test(sframe_file_call, filesystems_that_may_block)
{
	cr_assert(caller_file_may_block(0x65735546));	/* FUSE */
	cr_assert(caller_file_may_block(0x6969));	/* NFS */
	cr_assert(!caller_file_may_block(0xef53));	/* ext4 */
	cr_assert(!caller_file_may_block(0x01021994));	/* tmpfs */
}

/* Files taken from a caller (pidfd_getfd, here of this process): one held per file. */
Test(sframe_file_call, a_file_taken_twice_is_held_once)
{
	struct held_files held = { 0 };
	struct caller_files self = { getpid(), getpid(), &held };
	struct emu_files files = caller_files_of(&self);
	int fd = memfd_create("held", MFD_CLOEXEC), again = dup(fd), pipefd[2];
	struct emu_file a, b, c;
	char buf[4];

	cr_assert(fd >= 0 && again >= 0 && !pipe(pipefd));
	cr_assert_eq(write(fd, "abcd", 4), 4);
	cr_assert_eq(files.get(files.ctx, fd, &a), 0);
	cr_assert_eq(files.get(files.ctx, again, &b), 0);
	cr_assert_eq(files.get(files.ctx, 1000, &c), -EBADF);
	cr_assert(a.regular && a.readable && !a.may_block && a.size == 4);
	cr_assert_eq(a.ctx, b.ctx, "the same file, one descriptor held");
	cr_assert_eq(held.n, 1);
	close(fd);
	close(again);	/* the caller's descriptors gone: the file is still read */
	cr_assert_eq(a.read(a.ctx, 1, buf, 3), 0);
	cr_assert_eq(memcmp(buf, "bcd", 3), 0);
	cr_assert_eq(a.read(a.ctx, 2, buf, 3), -EIO, "a short read fails");
	cr_assert_eq(files.get(files.ctx, pipefd[0], &c), 0);
	cr_assert(!c.regular);
	cr_assert_eq(held.n, 2);
	c.release(c.ctx);
	a.release(a.ctx);
	cr_assert_eq(held.n, 1);
	b.release(b.ctx);
	cr_assert_eq(held.n, 0);
	held_files_free(&held);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* Bytes read again after an eviction are checked again: the file may have changed. */
Test(sframe_file, fres_read_again_are_checked_again)
{
	struct emu_block_cache *cache = emu_block_cache_new(EMU_SF_FILE_BLOCK);
	struct emu_sframe_section *copy, *file;
	struct emu_unwind_rule rule;
	struct emu_sframe_fde fde;
	struct mem_file m;
	uint64_t ip;
	uint32_t n;
	struct big b;

	big_section(&b);
	copy = load_copy(b.sec, b.len, &b.p);
	file = load_file(b.sec, b.len, &b.p, CODE_SFRAME_COMPRESS_NONE, cache, &m);
	n = emu_sframe_header(copy)->num_fdes;
	cr_assert_eq(emu_sframe_fde_at(copy, n / 2, &fde), 0);
	ip = fde.func_start;
	cr_assert_eq(emu_sframe_find_rule(file, ip, &rule), 0);
	for (uint32_t i = 0; i < n; i += 8) {	/* the whole section through 1 block */
		struct emu_sframe_fde f;

		cr_assert_eq(emu_sframe_fde_at(copy, i, &f), 0);
		emu_sframe_find_rule(file, f.func_start, &rule);
	}
	cr_assert_gt(emu_block_cache_stats(cache).evictions, 0);
	/* the first FRE's info byte: offset size 3, which no FRE may have */
	((uint8_t *)m.data)[fde.fres_pos + fde.addr_size] |= 0x60;
	cr_assert_eq(emu_sframe_find_rule(file, ip, &rule), -EFAULT);
	cr_assert_eq(emu_sframe_file_fault(file)->rule, EMU_R_SF_FRE_OFFSET_SIZE, "%s",
		     emu_sframe_file_fault(file)->reason);
	emu_sframe_put(file);
	emu_sframe_put(copy);
	emu_block_cache_put(cache);
	free((void *)m.data);
	big_free(&b);
}

/* What a file registration keeps for good counts against the budget. */
Test(sframe_file, what_it_keeps_counts_against_the_budget)
{
	struct emu_block_cache *cache = emu_block_cache_new(1 << 20);
	struct emu_sframe_file_params fp = { .compression = CODE_SFRAME_COMPRESS_ZSTD,
					     .cache = cache };
	struct emu_sframe_section *s = NULL, *ok;
	struct emu_verdict v;
	struct emu_file f;
	struct mem_file m;
	struct big b;

	big_section(&b);
	ok = load_file(b.sec, b.len, &b.p, CODE_SFRAME_COMPRESS_ZSTD, cache, &m);
	fp.length = m.len;
	fp.size = b.len;
	fp.room = emu_sframe_kept(ok) - 1;
	f = file_of(&m);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load_file(&f, &fp, &b.p, &s, &v), -ENOMEM);
	cr_assert_eq(v.rule, EMU_R_SFRAME_BUDGET, "%s", v.reason);
	cr_assert_eq(m.released, 1);
	fp.room = emu_sframe_kept(ok);
	emu_verdict_init(&v);
	cr_assert_eq(emu_sframe_load_file(&f, &fp, &b.p, &s, &v), 0, "%s", v.reason);
	cr_assert_eq(emu_sframe_kept(s), emu_sframe_kept(ok));
	cr_assert_lt(emu_sframe_kept(s), b.len);
	emu_sframe_put(s);
	emu_sframe_put(ok);
	emu_block_cache_put(cache);
	free((void *)m.data);
	big_free(&b);
}
