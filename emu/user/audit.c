// SPDX-License-Identifier: MIT
/*
 * libcodectl-audit.so: an rtld-audit module (man 7 rtld-audit) that registers
 * every object the dynamic loader loads with codectl(2) (or another interface),
 * and unregisters it at unload, as a patched ld.so would
 * (docs/loader-integration.md).
 *
 *   LD_AUDIT=libcodectl-audit.so program       (codectl-run sets it by default)
 *   CODECTL_AUDIT_ABI=codectl  codectl(2) (the default)
 *                    =sframe_register  sframe_register(2) per executable
 *                              segment with a .sframe, one sframe_unregister(2)
 *                              by sframe_start at unload
 *                    =prctl    prctl(PR_ADD_SFRAME) per segment, one
 *                              prctl(PR_REMOVE_SFRAME) at unload
 *                    =eh_frame codectl(2) identities only, and
 *                              eh_frame_register(2) of the .eh_frame_hdr per
 *                              segment, one eh_frame_unregister(2) at unload
 *                    =both     codectl(2) as by default, and eh_frame_register(2)
 *   CODECTL_AUDIT_SFRAME_NR=REG,UNREG  sframe_register's and sframe_unregister's
 *                              numbers (default SFRAME_*_NR_DEFAULT)
 *   CODECTL_AUDIT_EH_FRAME_NR=REG,UNREG  eh_frame_register's and
 *                              eh_frame_unregister's (EH_FRAME_*_NR_DEFAULT)
 *   CODECTL_SFRAME_PATH=DIR[:DIR...]  (codectl) an object without a .sframe
 *                              of its own whose build id names a file under
 *                              DIR/.build-id/ (sframe-extract(1)) is
 *                              registered with CODE_REGISTER_SFRAME_FILE and
 *                              an identity-only CODE_REGISTER_ELF per range
 *   CODECTL_AUDIT_MODE=split   (codectl) one CODE_REGISTER_SFRAME plus one
 *                              identity-only CODE_REGISTER_ELF per text range
 *   CODECTL_AUDIT_DEBUG=1      one line per call on stderr
 *
 * The loader calls these hooks with its lock held, which serializes them: the
 * module's state, its buffers included, is one static struct (the rtld-audit
 * interface passes no context, and a thread with a small stack may dlopen).
 * The module uses no malloc, keeps the program's errno, prints nothing unless
 * asked, and goes quiet for good at the first ENOSYS (no supervisor).
 *
 * Objects the loader never unmaps (the main program, the ELF interpreter, the
 * vDSO) are not unregistered at their la_objclose, which comes at exit: that
 * would also drop the sections the kernel registered at exec.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <eh_frame_register.h>
#include <sframe_register.h>

#include "audit_object.h"
#include "audit_sframe_file.h"

#define EXPORT __attribute__((visibility("default")))
#define RECORDS_PER_CHUNK 256

/*
 * What one object's unregistration needs, found again through the cookie:
 * codectl: each text_start registered; the others: the sframe_start (@n 1);
 * @eh_frame_hdr: the .eh_frame_hdr registered (0: none).
 */
struct record {
	uint64_t key[AUDIT_MAX_TEXT];
	unsigned int n;
	uint64_t eh_frame_hdr;
	struct record *next_free;
};

/* The interface the module speaks (CODECTL_AUDIT_ABI). */
enum audit_abi {
	ABI_CODECTL,
	ABI_SFRAME_REGISTER,
	ABI_PRCTL,
};

/*
 * @no_sframe: codectl without the section (identities only);
 * @eh_frame: also eh_frame_register(2) (off after its ENOSYS)
 */
static struct {
	bool disabled;
	bool split;
	bool debug;
	bool no_sframe;
	bool eh_frame;
	enum audit_abi abi;
	long sframe_nr[2];
	long eh_frame_nr[2];
	const char *sframe_path;
	struct codectl_sframe_file file;
	char file_name[AUDIT_PATH_MAX];
	struct record *free_records;
	struct audit_object object;
	struct audit_scratch scratch;
	char line[AUDIT_PATH_MAX + 256];
} audit;

static void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void debug(const char *fmt, ...)
{
	size_t size = sizeof(audit.line);
	va_list ap;
	int n;

	if (!audit.debug)
		return;
	va_start(ap, fmt);
	n = vsnprintf(audit.line, size, fmt, ap);
	va_end(ap);
	if (n > 0 && write(2, audit.line, (size_t)n < size ? (size_t)n : size - 1) < 0)
		audit.debug = false;
}

/* Records come from mmap'd chunks: the program's malloc is never touched. */
static struct record *record_new(void)
{
	struct record *r = audit.free_records;

	if (!r) {
		struct record *chunk = mmap(NULL, RECORDS_PER_CHUNK * sizeof(*chunk),
					    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (chunk == MAP_FAILED)
			return NULL;
		for (int i = RECORDS_PER_CHUNK - 1; i >= 0; i--) {
			chunk[i].next_free = r;
			r = &chunk[i];
		}
	}
	audit.free_records = r->next_free;
	memset(r, 0, sizeof(*r));
	return r;
}

static void record_free(struct record *r)
{
	r->next_free = audit.free_records;
	audit.free_records = r;
}

/* One system call; ENOSYS switches the module off. Returns 0 or the errno. */
static int call(unsigned int option, void *info, size_t size, const char *what,
		const struct audit_object *o, unsigned int i)
{
	int err = codectl(option, info, size, 0) ? errno : 0;

	debug("codectl-audit: %s %s text=%#llx-%#llx = %s\n", what, o->path,
	      (unsigned long long)o->text_start[i], (unsigned long long)o->text_end[i],
	      err ? strerrorname_np(err) : "0");
	if (err == ENOSYS)
		audit.disabled = true;
	return err;
}

static struct code_elf_info elf_info(const struct audit_object *o, unsigned int i, bool sframe)
{
	struct code_elf_info e = {
		.elf_start = o->elf_start, .elf_end = o->elf_end,
		.text_start = o->text_start[i], .text_end = o->text_end[i],
		.pathname = (uintptr_t)o->path,
		.build_id = o->build_id_len ? (uintptr_t)o->build_id : 0,
		.build_id_len = o->build_id_len,
		.debug_link_pathname = o->debug_link[0] ? (uintptr_t)o->debug_link : 0,
		.debug_link_crc = o->debug_link_crc,
	};

	if (sframe) {
		e.sframe_start = o->sframe_start;
		e.sframe_end = o->sframe_end;
	}
	return e;
}

/* Text range @i's SFrame from the file at @fd (audit.file its header). Returns 0 or the errno. */
static int register_file(const struct audit_object *o, unsigned int i, int fd)
{
	struct code_sframe_file_info f = {
		.text_start = o->text_start[i], .text_end = o->text_end[i],
		.sframe_addr = o->bias + audit.file.sframe_vaddr, .offset = audit.file.offset,
		.length = audit.file.length, .size = audit.file.size,
		.build_id = (uintptr_t)o->build_id, .build_id_len = o->build_id_len,
		.fd = fd, .compression = audit.file.compression,
	};

	debug("codectl-audit: %s: SFrame from %s\n", o->path, audit.file_name);
	return call(CODE_REGISTER_SFRAME_FILE, &f, sizeof(f), "CODE_REGISTER_SFRAME_FILE", o, i);
}

/*
 * One text range: both aspects in one call, or (split mode) the section and
 * the identity in two. When the section is refused, the identity is still
 * given on its own: EEXIST means the kernel registered the section at exec
 * (main program, ld.so), EINVAL that the object's .sframe is unusable.
 * Returns true when anything was registered at this text_start.
 */
static bool register_text(const struct audit_object *o, unsigned int i, int file)
{
	bool sframe = o->has_sframe && !audit.no_sframe && file < 0;
	bool together = sframe && !audit.split;
	struct code_elf_info e = elf_info(o, i, together);
	struct code_sframe_info sf = {
		e.text_start, e.text_end, o->sframe_start, o->sframe_end
	};
	bool any = false;
	int err;

	if (sframe && audit.split)
		any = !call(CODE_REGISTER_SFRAME, &sf, sizeof(sf), "CODE_REGISTER_SFRAME", o, i);
	if (file >= 0)
		any = !register_file(o, i, file);
	if (audit.disabled)
		return false;
	err = call(CODE_REGISTER_ELF, &e, sizeof(e), "CODE_REGISTER_ELF", o, i);
	if ((err == EEXIST || err == EINVAL) && together) {
		e = elf_info(o, i, false);
		err = call(CODE_REGISTER_ELF, &e, sizeof(e), "CODE_REGISTER_ELF (identity)", o, i);
	}
	return any || !err;
}

/* "REG,UNREG": a register and an unregister call's numbers into @nr, when well-formed. */
static void take_nr_pair(const char *s, long nr[2])
{
	char *end;
	long reg = s ? strtol(s, &end, 0) : 0, unreg;

	if (!s || end == s || *end != ',')
		return;
	s = end + 1;
	unreg = strtol(s, &end, 0);
	if (end == s || *end || reg <= 0 || unreg <= 0)
		return;
	nr[0] = reg;
	nr[1] = unreg;
}

/* CODECTL_AUDIT_ABI: an unknown interface switches the module off. */
static void take_abi(const char *abi)
{
	if (!abi || !strcmp(abi, "codectl"))
		audit.abi = ABI_CODECTL;
	else if (!strcmp(abi, "sframe_register"))
		audit.abi = ABI_SFRAME_REGISTER;
	else if (!strcmp(abi, "prctl"))
		audit.abi = ABI_PRCTL;
	else if (!strcmp(abi, "eh_frame"))
		audit.no_sframe = audit.eh_frame = true;
	else if (!strcmp(abi, "both"))
		audit.eh_frame = true;
	else
		audit.disabled = true;
	if (audit.disabled)
		debug("codectl-audit: CODECTL_AUDIT_ABI=%s unknown: nothing registered\n", abi);
}

EXPORT unsigned int la_version(unsigned int version)
{
	const char *mode = getenv("CODECTL_AUDIT_MODE"), *dbg = getenv("CODECTL_AUDIT_DEBUG");

	audit.split = mode && !strcmp(mode, "split");
	audit.debug = dbg && !strcmp(dbg, "1");
	audit.sframe_nr[0] = SFRAME_REGISTER_NR;
	audit.sframe_nr[1] = SFRAME_UNREGISTER_NR;
	audit.eh_frame_nr[0] = EH_FRAME_REGISTER_NR;
	audit.eh_frame_nr[1] = EH_FRAME_UNREGISTER_NR;
	take_nr_pair(getenv("CODECTL_AUDIT_SFRAME_NR"), audit.sframe_nr);
	take_nr_pair(getenv("CODECTL_AUDIT_EH_FRAME_NR"), audit.eh_frame_nr);
	take_abi(getenv("CODECTL_AUDIT_ABI"));
	audit.sframe_path = getenv("CODECTL_SFRAME_PATH");
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

/*
 * sframe_register(2) or prctl(PR_ADD_SFRAME) of text range @i with the
 * object's section. Returns 0 or the errno; ENOSYS switches the module off.
 */
static int kernel_register(const struct audit_object *o, unsigned int i)
{
	struct sframe_setup s = {
		.sframe_start = o->sframe_start, .sframe_size = o->sframe_end - o->sframe_start,
		.text_start = o->text_start[i], .text_size = o->text_end[i] - o->text_start[i],
	};
	const char *name = audit.abi == ABI_PRCTL ? "PR_ADD_SFRAME" : "sframe_register";
	long ret;
	int err;

	if (audit.abi == ABI_PRCTL)
		ret = prctl(PR_ADD_SFRAME, (unsigned long)o->sframe_start,
			    (unsigned long)o->sframe_end, (unsigned long)o->text_start[i],
			    (unsigned long)o->text_end[i]);
	else
		ret = syscall(audit.sframe_nr[0], &s, sizeof(s));
	err = ret ? errno : 0;
	debug("codectl-audit: %s %s text=%#llx-%#llx sframe=%#llx-%#llx = %s\n", name, o->path,
	      (unsigned long long)o->text_start[i], (unsigned long long)o->text_end[i],
	      (unsigned long long)o->sframe_start, (unsigned long long)o->sframe_end,
	      err ? strerrorname_np(err) : "0");
	if (err == ENOSYS)
		audit.disabled = true;
	return err;
}

/*
 * eh_frame_register(2) of text range @i with the object's .eh_frame_hdr.
 * Returns 0 or the errno; ENOSYS switches eh_frame_register off.
 */
static int eh_frame_register_text(const struct audit_object *o, unsigned int i)
{
	struct eh_frame_setup s = {
		.eh_frame_hdr_start = o->eh_frame_hdr_start,
		.eh_frame_hdr_size = o->eh_frame_hdr_size,
		.text_start = o->text_start[i], .text_size = o->text_end[i] - o->text_start[i],
	};
	int err = syscall(audit.eh_frame_nr[0], &s, sizeof(s)) ? errno : 0;

	debug("codectl-audit: eh_frame_register %s text=%#llx-%#llx eh_frame_hdr=%#llx+%llu = "
	      "%s\n", o->path, (unsigned long long)o->text_start[i],
	      (unsigned long long)o->text_end[i], (unsigned long long)o->eh_frame_hdr_start,
	      (unsigned long long)o->eh_frame_hdr_size, err ? strerrorname_np(err) : "0");
	if (err == ENOSYS)
		audit.eh_frame = false;
	return err;
}

/*
 * Register @o's text ranges; a record of what la_objclose unregisters, or
 * NULL. sframe_register and the prctl register the unwind data alone: an
 * object without a .sframe has nothing to register, and one removal by
 * sframe_start takes every range; so does eh_frame_register, by the header.
 */
static struct record *register_object(const struct audit_object *o)
{
	uint64_t done[AUDIT_MAX_TEXT], eh = 0;
	bool own = o->has_sframe && o->sframe_end > o->sframe_start;
	int file = -1;
	unsigned int n = 0;
	struct record *r;

	if (audit.abi == ABI_CODECTL && !own && audit.sframe_path && !audit.no_sframe)
		file = audit_sframe_file_open(audit.sframe_path, o, &audit.file, audit.file_name,
					      sizeof(audit.file_name));
	for (unsigned int i = 0; i < o->ntext && !audit.disabled; i++) {
		if (audit.abi == ABI_CODECTL && register_text(o, i, file))
			done[n++] = o->text_start[i];
		else if (audit.abi != ABI_CODECTL && o->has_sframe && !kernel_register(o, i)) {
			done[0] = o->sframe_start;
			n = 1;
		}
		if (audit.eh_frame && o->eh_frame_hdr_start && !eh_frame_register_text(o, i))
			eh = o->eh_frame_hdr_start;
	}
	if (file >= 0)
		close(file);	/* the kernel (the supervisor) holds the file now */
	if ((!n && !eh) || o->permanent || !(r = record_new()))
		return NULL;
	memcpy(r->key, done, n * sizeof(done[0]));
	r->n = n;
	r->eh_frame_hdr = eh;
	return r;
}

EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	int saved = errno;

	(void)lmid;
	*cookie = 0;
	if (!audit.disabled && !audit_object_read(map, &audit.object, &audit.scratch))
		*cookie = (uintptr_t)register_object(&audit.object);
	errno = saved;
	return 0;
}

/* One unregistration: CODE_UNREGISTER of a text_start, or the removal of an sframe_start. */
static int unregister_key(uint64_t key)
{
	struct sframe_setup s = { .sframe_start = key };
	const char *name = "CODE_UNREGISTER text";
	long ret;
	int err;

	if (audit.abi == ABI_CODECTL) {
		ret = codectl(CODE_UNREGISTER, (void *)(uintptr_t)key, 0, 0);
	} else if (audit.abi == ABI_PRCTL) {
		name = "PR_REMOVE_SFRAME sframe";
		ret = prctl(PR_REMOVE_SFRAME, (unsigned long)key, 0ul, 0ul, 0ul);
	} else {
		name = "sframe_unregister sframe";
		ret = syscall(audit.sframe_nr[1], &s, sizeof(s));
	}
	err = ret ? errno : 0;
	debug("codectl-audit: %s=%#llx = %s\n", name, (unsigned long long)key,
	      err ? strerrorname_np(err) : "0");
	return err;
}

EXPORT unsigned int la_objclose(uintptr_t *cookie)
{
	struct record *r = (struct record *)*cookie;
	int saved = errno;

	if (!r)
		return 0;
	for (unsigned int i = 0; i < r->n && !audit.disabled; i++)
		if (unregister_key(r->key[i]) == ENOSYS)
			audit.disabled = true;
	if (r->eh_frame_hdr && audit.eh_frame) {
		struct eh_frame_setup s = { .eh_frame_hdr_start = r->eh_frame_hdr };
		int err = syscall(audit.eh_frame_nr[1], &s, sizeof(s)) ? errno : 0;

		debug("codectl-audit: eh_frame_unregister eh_frame_hdr=%#llx = %s\n",
		      (unsigned long long)r->eh_frame_hdr, err ? strerrorname_np(err) : "0");
	}
	record_free(r);
	*cookie = 0;
	errno = saved;
	return 0;
}
