// SPDX-License-Identifier: GPL-2.0
/*
 * The end-to-end tracee of the kernel's own proposals, written against
 * include/ (sframe_register.h, stacktrace_setup.h, the prctl's numbers) and
 * the test SFrame writer. One scenario per command; exit status 0 when every
 * check in the program held, and what it did on stdout for the test to
 * compare with codectl-run's log.
 *
 *   self codectl|sframe_register|prctl|stacktrace_setup|eh_frame_register
 *              registers its own .sframe (eh_frame_register: .eh_frame_hdr)
 *              through that interface, recurses and spins for 0.4 s of CPU
 *              time, unregisters
 *   calls      one successful and one refused call of every entry point
 *   split      a codectl identity and a sframe_register section of one text,
 *              a prctl and a stacktrace_setup registration; exits with them
 *   corrupt R  a v3 section for code it runs, broken in memory after
 *              sframe_register; runs it up to R rounds until it is removed
 *   race N     N sframe_register calls while a thread flips the section's magic
 *   fork       registers, forks: the child tries the same text again
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <codectl.h>
#include <eh_frame_register.h>
#include <sframe_register.h>
#include <stacktrace_setup.h>

#include "self_sframe.h"
#include "sframe_writer.h"

#define CHECK(cond)                                                                      \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "kernel_prog: %s:%d: check failed: %s (errno %s)\n", \
				__FILE__, __LINE__, #cond, strerrorname_np(errno));      \
			exit(99);                                                        \
		}                                                                        \
	} while (0)

/* Register (or with @unreg remove) [s, s + ss) for [t, t + ts) through @iface. */
static long via(const char *iface, bool unreg, uint64_t s, uint64_t ss, uint64_t t, uint64_t ts)
{
	struct sframe_setup st = { s, unreg ? 0 : ss, unreg ? 0 : t, unreg ? 0 : ts };
	struct code_sframe_info ci = { t, t + ts, s, s + ss };

	if (!strcmp(iface, "codectl"))
		return unreg ? codectl(CODE_UNREGISTER, (void *)(uintptr_t)t, 0, 0) :
			       codectl(CODE_REGISTER_SFRAME, &ci, sizeof(ci), 0);
	if (!strcmp(iface, "prctl"))
		return unreg ? prctl(PR_REMOVE_SFRAME, s, 0ul, 0ul, 0ul) :
			       prctl(PR_ADD_SFRAME, s, s + ss, t, t + ts);
	if (!strcmp(iface, "stacktrace_setup"))
		return stacktrace_setup(unreg ? STACKTRACE_UNREGISTER_SFRAME :
					STACKTRACE_REGISTER_SFRAME, s, ss, t, ts);
	return unreg ? sframe_unregister(&st, sizeof(st)) : sframe_register(&st, sizeof(st));
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

__attribute__((noipa)) static void kp_spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noipa)) static unsigned long kp_recurse(int depth, unsigned long n)
{
	if (!depth) {
		kp_spin(n);
		return sink;
	}
	return kp_recurse(depth - 1, n) + 1;
}

/* Register (or remove) the program's own tables through @iface. */
static long via_self(const char *iface, bool unreg, const struct self_segments *g)
{
	const struct code_sframe_info *s = &g->sframe;
	struct eh_frame_setup e = { g->eh_frame_hdr_start, unreg ? 0 : g->eh_frame_hdr_size,
				    unreg ? 0 : s->text_start,
				    unreg ? 0 : s->text_end - s->text_start };

	if (!strcmp(iface, "eh_frame_register"))
		return unreg ? eh_frame_unregister(&e, sizeof(e)) : eh_frame_register(&e, sizeof(e));
	return via(iface, unreg, s->sframe_start, s->sframe_end - s->sframe_start, s->text_start,
		   s->text_end - s->text_start);
}

static int cmd_self(const char *iface)
{
	struct self_segments g;
	double end;

	self_segments(&g);
	CHECK(g.sframe.sframe_start && g.sframe.text_start && g.eh_frame_hdr_start);
	CHECK(via_self(iface, false, &g) == 0);
	for (end = cpu_seconds() + 0.4; cpu_seconds() < end;)
		kp_recurse(6, 2000000);
	CHECK(via_self(iface, true, &g) == 0);
	printf("self %s: registered, ran, unregistered\n", iface);
	return 0;
}

/* A v3 section for the one function [@text, @text + @size), written at @buf. */
static size_t one_function(uint8_t *buf, size_t cap, uint64_t text, uint32_t size,
			   struct sfw_layout *lay)
{
	static const struct sfw_fre fre = { .start = 0, .sp_base = true, .count = 1,
					    .words = { 8 } };
	struct sfw_fde fde = { .func_start = text, .func_size = size, .fre_type = 0, .nfres = 1,
			       .fres = &fre };
	struct sfw_section s = sfw_amd64(3, true, (uintptr_t)buf);

	s.fdes = &fde;
	s.nfdes = 1;
	return sfw_write(&s, buf, cap, lay);
}

static uint8_t *rx_page(void)
{
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(p != MAP_FAILED);
	return p;
}

static uint8_t sections[4][512];

static int cmd_calls(void)
{
	uint8_t *text = rx_page();
	struct sfw_layout lay;
	size_t len = one_function(sections[0], 512, (uintptr_t)text, 64, &lay);
	uint64_t s = (uintptr_t)sections[0], t = (uintptr_t)text;
	struct sframe_setup st = { s, len, t, 64 };

	CHECK(sframe_register(&st, sizeof(st)) == 0);
	CHECK(via("sframe_register", true, s, 0, 0, 0) == 0);
	CHECK(sframe_register(&st, 31) == -1 && errno == EINVAL);
	CHECK(prctl(PR_ADD_SFRAME, s, s + len, t, t + 64) == 0);
	CHECK(prctl(PR_REMOVE_SFRAME, s, 1ul, 0ul, 0ul) == -1 && errno == EINVAL);
	CHECK(prctl(PR_REMOVE_SFRAME, s, 0ul, 0ul, 0ul) == 0);
	CHECK(stacktrace_setup(STACKTRACE_REGISTER_SFRAME, s, len, t, 64) == 0);
	CHECK(stacktrace_setup(STACKTRACE_UNREGISTER_SFRAME, s, 0, 0, 0) == 0);
	CHECK(stacktrace_setup(9, s, len, t, 64) == -1 && errno == EINVAL);
	printf("calls: sframe %#lx+%zu text %#lx\n", (unsigned long)s, len, (unsigned long)t);
	return 0;
}

static int cmd_split(void)
{
	uint8_t *text = rx_page();
	uint64_t t = (uintptr_t)text, s[3];
	struct code_elf_info e = { .text_start = t, .text_end = t + 64,
				   .pathname = (uintptr_t)"/kernel-prog/split" };
	struct sfw_layout lay;
	size_t len[3];

	for (int i = 0; i < 3; i++) {
		len[i] = one_function(sections[i], 512, t + 64 * i, 64, &lay);
		s[i] = (uintptr_t)sections[i];
	}
	CHECK(codectl(CODE_REGISTER_ELF, &e, sizeof(e), 0) == 0);
	CHECK(via("sframe_register", false, s[0], len[0], t, 64) == 0);
	CHECK(via("prctl", false, s[1], len[1], t + 64, 64) == 0);
	CHECK(via("stacktrace_setup", false, s[2], len[2], t + 128, 64) == 0);
	printf("split: text %#lx sframe %#lx+%zu %#lx+%zu %#lx+%zu\n", (unsigned long)t,
	       (unsigned long)s[0], len[0], (unsigned long)s[1], len[1], (unsigned long)s[2],
	       len[2]);
	return 0;	/* exit with them in place */
}

/* dec %rdi; jnz .-3; ret */
static const uint8_t spin_code[] = { 0x48, 0xff, 0xcf, 0x75, 0xfb, 0xc3 };

static int cmd_corrupt(int rounds)
{
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t = (uintptr_t)code, s = (uintptr_t)sections[0], c = (uintptr_t)sections[1];
	struct sfw_layout lay;
	size_t len, at;
	long r = -1;
	int i;

	CHECK(code != MAP_FAILED);
	memcpy(code, spin_code, sizeof(spin_code));
	CHECK(!mprotect(code, 4096, PROT_READ | PROT_EXEC));
	one_function(sections[1], 512, t, sizeof(spin_code), &lay);	/* the probe's copy */
	len = one_function(sections[0], 512, t, sizeof(spin_code), &lay);
	CHECK(via("sframe_register", false, s, len, t, sizeof(spin_code)) == 0);
	at = lay.fre_block_pos[0] + 5 + 1;	/* attribute record, FRE start, FRE info */
	sections[0][at] |= 0x60;		/* data-word size 3: invalid */
	printf("corrupt: sframe %#lx text %#lx byte +%#zx\n", (unsigned long)s, (unsigned long)t,
	       at);
	fflush(stdout);
	for (i = 0; i < rounds; i++) {
		((void (*)(unsigned long))(uintptr_t)t)(20000000ul);
		r = via("sframe_register", false, c, len, t, sizeof(spin_code));
		if (r != -1 || errno != EEXIST)
			break;
	}
	CHECK(i == rounds || r == 0);
	if (i < rounds)
		CHECK(via("sframe_register", true, c, 0, 0, 0) == 0);
	puts(i < rounds ? "corrupt: removed" : "corrupt: still registered");
	return 0;
}

struct flipper {
	uint8_t *byte;
	atomic_bool stop;
};

static void *flip(void *p)
{
	struct flipper *f = p;

	while (!atomic_load(&f->stop))
		*(volatile uint8_t *)f->byte ^= 0xe2;
	*(volatile uint8_t *)f->byte = 0xe2;
	return NULL;
}

/* A section whose magic byte another thread flips while it is registered again and again. */
static int cmd_race(int n)
{
	uint8_t *text = rx_page();
	struct sfw_layout lay;
	size_t len = one_function(sections[0], 512, (uintptr_t)text, 64, &lay);
	struct sframe_setup st = { (uintptr_t)sections[0], len, (uintptr_t)text, 64 };
	struct flipper f = { .byte = &sections[0][0] };
	int ok = 0, refused = 0;
	pthread_t th;

	CHECK(pthread_create(&th, NULL, flip, &f) == 0);
	for (int i = 0; i < n; i++) {
		long r = sframe_register(&st, sizeof(st));

		CHECK(r == 0 || errno == EINVAL);
		if (r == 0) {
			ok++;
			CHECK(via("sframe_register", true, st.sframe_start, 0, 0, 0) == 0);
		} else {
			refused++;
		}
	}
	atomic_store(&f.stop, true);
	pthread_join(th, NULL);
	printf("race: %d calls, %d accepted, %d refused\n", n, ok, refused);
	return 0;
}

static int cmd_fork(void)
{
	uint8_t *text = rx_page();
	struct sfw_layout lay;
	size_t len = one_function(sections[0], 512, (uintptr_t)text, 64, &lay);
	size_t len2 = one_function(sections[1], 512, (uintptr_t)text, 64, &lay);
	int status;
	pid_t pid;

	CHECK(via("sframe_register", false, (uintptr_t)sections[0], len, (uintptr_t)text, 64) == 0);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		long r = via("sframe_register", false, (uintptr_t)sections[1], len2,
			     (uintptr_t)text, 64);

		printf("fork: the child's registration of the same text: %s\n",
		       r ? strerrorname_np(errno) : "0");
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && status == 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(cmd, "self") && argc > 2)
		return cmd_self(argv[2]);
	if (!strcmp(cmd, "calls"))
		return cmd_calls();
	if (!strcmp(cmd, "split"))
		return cmd_split();
	if (!strcmp(cmd, "corrupt") && argc > 2)
		return cmd_corrupt(atoi(argv[2]));
	if (!strcmp(cmd, "race") && argc > 2)
		return cmd_race(atoi(argv[2]));
	if (!strcmp(cmd, "fork"))
		return cmd_fork();
	fprintf(stderr, "usage: kernel-prog self IFACE | calls | split | corrupt R | race N | fork\n");
	return 2;
}
