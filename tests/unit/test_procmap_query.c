// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings asked of the kernel one at a time (supervisor/core/procmap_query.c)
 * and the cached mappings brought up to date over a range only
 * (maps_refresh_ranges() in supervisor/trace/maps.c). The truth is the
 * kernel's own /proc/self/maps, read whole and parsed (procfs_maps_read()).
 * PROCMAP_QUERY exists from Linux 6.11: on older kernels these tests skip,
 * saying so, and the supervisor reads the whole file (covered by the e2e
 * suites on every kernel).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "supervisor/core/procfs.h"
#include "supervisor/core/procmap_query.h"
#include "supervisor/trace/maps.h"
#include "supervisor/trace/tracees.h"

#define PAGE 4096ull
#define ALL_USER (1ull << 47)

static int maps_fd;

static void setup(void)
{
	struct procmap_vma v;
	int err;

	maps_fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	cr_assert_geq(maps_fd, 0);
	err = procmap_query(maps_fd, (uintptr_t)&maps_fd, false, &v);
	if (err == -ENOTTY)
		cr_skip_test("this kernel has no PROCMAP_QUERY (Linux 6.11+)");
	cr_assert_eq(err, 0, "PROCMAP_QUERY: %s", strerror(-err));
}

static void teardown(void)
{
	close(maps_fd);
}

TestSuite(procmap_query, .init = setup, .fini = teardown);

/*
 * @pages readable pages between two inaccessible ones, so that no
 * neighbour merges with them into one mapping
 */
static uint8_t *guarded(size_t pages)
{
	uint8_t *g = mmap(NULL, (pages + 2) * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(g, MAP_FAILED);
	cr_assert_eq(mprotect(g + PAGE, pages * PAGE, PROT_READ), 0);
	return g + PAGE;
}

static bool same(const struct emu_mappings *a, const struct emu_mappings *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (a->vma[i].start != b->vma[i].start || a->vma[i].end != b->vma[i].end ||
		    a->vma[i].prot != b->vma[i].prot || a->vma[i].ident != b->vma[i].ident)
			return false;
	return true;
}

/* The first mapping where @a and @b differ, for a failure's message. */
static size_t first_difference(const struct emu_mappings *a, const struct emu_mappings *b)
{
	size_t i = 0;

	while (i < a->n && i < b->n && a->vma[i].start == b->vma[i].start &&
	       a->vma[i].end == b->vma[i].end && a->vma[i].prot == b->vma[i].prot &&
	       a->vma[i].ident == b->vma[i].ident)
		i++;
	return i;
}

/* This process's mappings from /proc/self/maps, the same in two reads in a row. */
static void read_whole(struct emu_mappings *m)
{
	struct emu_mappings again = { 0 };

	for (int tries = 0; tries < 10; tries++) {
		cr_assert_eq(procfs_maps_read(getpid(), m), 0);
		cr_assert_eq(procfs_maps_read(getpid(), &again), 0);
		if (same(m, &again))
			break;
	}
	cr_assert(same(m, &again), "the mappings keep changing");
	emu_mappings_free(&again);
}

Test(procmap_query, every_mapping_as_the_maps_file_lists_it)
{
	struct emu_mappings whole = { 0 }, asked = { 0 };
	bool vdso = false;
	size_t i;

	/* room reserved first: the reads below must not map anything */
	cr_assert_eq(procfs_maps_read(getpid(), &whole), 0);
	cr_assert_eq(procfs_maps_read(getpid(), &asked), 0);
	read_whole(&whole);
	emu_mappings_reset(&asked);
	cr_assert_eq(procmap_read_range(maps_fd, 0, ALL_USER, &asked), 0);
	i = first_difference(&whole, &asked);
	cr_assert(same(&whole, &asked), "%zu and %zu mappings; first difference at %zu: %#llx",
		  whole.n, asked.n, i,
		  (unsigned long long)(i < whole.n ? whole.vma[i].start : 0));
	for (i = 0; i < asked.n; i++)
		vdso |= asked.vma[i].prot & EMU_VMA_VDSO;
	cr_assert(vdso || !getauxval(AT_SYSINFO_EHDR), "the vDSO is told apart");
	emu_mappings_free(&whole);
	emu_mappings_free(&asked);
}

Test(procmap_query, a_range_gives_the_mappings_holding_its_bytes)
{
	struct emu_mappings m = { 0 };
	uint8_t *a = guarded(3);
	uint64_t base = (uintptr_t)a;

	cr_assert_eq(mprotect(a + PAGE, PAGE, PROT_READ | PROT_WRITE), 0);
	/* one byte of each outer mapping: all three */
	cr_assert_eq(procmap_read_range(maps_fd, base + PAGE - 1, base + 2 * PAGE + 1, &m), 0);
	cr_assert_eq(m.n, 3);
	cr_assert_eq(m.vma[0].start, base);
	cr_assert_eq(m.vma[1].start, base + PAGE);
	cr_assert_eq(m.vma[1].prot, EMU_PROT_READ | EMU_PROT_WRITE);
	cr_assert_eq(m.vma[2].end, base + 3 * PAGE);
	cr_assert_eq(m.vma[2].ident, 0);
	/* a hole: none, not an error */
	cr_assert_eq(munmap(a - PAGE, 5 * PAGE), 0);
	emu_mappings_reset(&m);
	cr_assert_eq(procmap_read_range(maps_fd, base, base + 3 * PAGE, &m), 0);
	cr_assert_eq(m.n, 0);
	cr_assert_eq(procmap_query(maps_fd, base, false, &(struct procmap_vma){ 0 }), -ENOENT);
	emu_mappings_free(&m);
}

/* A process of the supervisor's model for this one, its mappings read whole once. */
static void model_self(struct trace *t, struct proc *p)
{
	*t = (struct trace){ 0 };
	tracees_init(&t->tree, 64);
	*p = (struct proc){ .tgid = getpid(), .as = addr_space_new(&t->tree) };
	cr_assert(p->as);
	cr_assert_eq(maps_refresh(t, p, getpid()), 0);
}

/* The mappings of @m holding a byte of [@start, @end), into @out. */
static void window(const struct emu_mappings *m, uint64_t start, uint64_t end,
		   struct emu_mappings *out)
{
	emu_mappings_reset(out);
	for (size_t i = 0; i < m->n; i++)
		if (m->vma[i].end > start && m->vma[i].start < end)
			cr_assert_eq(emu_mappings_add_ident(out, m->vma[i].start, m->vma[i].end,
							    m->vma[i].prot, m->vma[i].ident), 0);
}

/*
 * @p's cached mappings over [@start, @end) are this process's, as
 * /proc/self/maps lists them (elsewhere the process's own allocations, and
 * a sanitizer's, may have mapped more since they were cached).
 */
static void assert_current(const struct proc *p, uint64_t start, uint64_t end)
{
	struct emu_mappings whole = { 0 }, want = { 0 }, got = { 0 };
	size_t i;

	read_whole(&whole);
	window(&whole, start, end, &want);
	window(&p->as->maps, start, end, &got);
	i = first_difference(&want, &got);
	cr_assert(same(&want, &got), "first difference at %zu of %zu: %#llx", i, want.n,
		  (unsigned long long)(i < want.n ? want.vma[i].start : 0));
	emu_mappings_free(&whole);
	emu_mappings_free(&want);
	emu_mappings_free(&got);
}

Test(procmap_query, a_range_refresh_brings_the_cache_up_to_date_there)
{
	uint8_t *a = guarded(4);
	uint64_t base = (uintptr_t)a;
	struct trace t;
	struct proc p;

	model_self(&t, &p);
	/* a new mapping inside the cached one, asked for by its middle byte only */
	cr_assert_eq(mprotect(a + PAGE, 2 * PAGE, PROT_READ | PROT_EXEC), 0);
	cr_assert_eq(maps_refresh_ranges(&t, &p, getpid(),
					 &(struct maps_range){ base + 2 * PAGE, base + 2 * PAGE + 1 },
					 1), 0);
	assert_current(&p, base, base + 4 * PAGE);
	/* a hole punched: the cached mapping reaching into the range goes */
	cr_assert_eq(munmap(a + PAGE, PAGE), 0);
	cr_assert_eq(maps_refresh_ranges(&t, &p, getpid(),
					 &(struct maps_range){ base + PAGE, base + PAGE + 1 }, 1), 0);
	assert_current(&p, base, base + 4 * PAGE);
	/* an empty range asks nothing */
	cr_assert_eq(maps_refresh_ranges(&t, &p, getpid(), &(struct maps_range){ base, base }, 1),
		     0);
	cr_assert_eq(t.maps_reads.full, 1);
	cr_assert_eq(t.maps_reads.ranges, 2);
	munmap(a - PAGE, 6 * PAGE);
	addr_space_put(p.as);
	tracees_free(&t.tree);
}

Test(procmap_query, a_range_refresh_needs_mappings_read_once)
{
	struct tracees tree;
	struct trace t = { 0 };
	struct proc p;

	tracees_init(&tree, 64);
	p = (struct proc){ .tgid = getpid(), .as = addr_space_new(&tree) };
	cr_assert_eq(maps_refresh_ranges(&t, &p, getpid(), &(struct maps_range){ 0, PAGE }, 1),
		     -ENODATA);
	cr_assert_eq(t.maps_reads.ranges, 0);
	addr_space_put(p.as);
	tracees_free(&tree);
}
