// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-extract [-z none|zlib|zstd] [-b BYTES] (-d DIR | -o FILE) OBJECT...:
 * each object's .sframe into a file of its own (sframe-extract(1)), named by
 * the object's build id under DIR (DIR/.build-id/xx/rest.sframe, as debug
 * files are) or FILE, for codectl-run --sframe-path and CODE_REGISTER_SFRAME_FILE.
 * Exit status 0, 1 when an object has no .sframe (or, with -d, no build id),
 * 2 on an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sframe_pack.h"
#include "supervisor/core/version.h"

/**
 * struct object - what is taken from one object
 * @sec, @len: its .sframe's bytes (libelf's); @vaddr: the section's address
 * @id, @id_len: its build id (0 bytes: none)
 */
struct object {
	const uint8_t *sec;
	size_t len;
	uint64_t vaddr;
	uint8_t id[CODE_BUILD_ID_MAX];
	size_t id_len;
};

struct options {
	unsigned int compression;
	uint32_t block_size;
	const char *dir;
	const char *out;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sframe-extract [-z none|zlib|zstd] [-b BYTES] (-d DIR | -o FILE) "
		   "OBJECT...\n"
		   "  -d, --build-id-dir DIR  write DIR/.build-id/xx/rest.sframe per object\n"
		   "  -o, --output FILE       write FILE (one object)\n"
		   "  -z, --compress CODEC    none (default), zlib or zstd: blocks decompressed\n"
		   "                          one at a time when a lookup needs them\n"
		   "  -b, --block-size BYTES  bytes of each compressed FRE block (%u)\n"
		   "      --version           version\n", SFRAME_PACK_BLOCK);
}

/* The NT_GNU_BUILD_ID of note section @scn into @o, if it has one. */
static void take_build_id(Elf_Scn *scn, struct object *o)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, name, desc;
	GElf_Nhdr n;

	while (d && (off = gelf_getnote(d, off, &n, &name, &desc)) > 0) {
		if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name, "GNU", 4) && n.n_descsz &&
		    n.n_descsz <= CODE_BUILD_ID_MAX) {
			memcpy(o->id, (char *)d->d_buf + desc, n.n_descsz);
			o->id_len = n.n_descsz;
			return;
		}
	}
}

/* The .sframe and build id of @e; 0, or 1 when it has no .sframe. */
static int read_object(Elf *e, struct object *o)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 1;
	while ((scn = elf_nextscn(e, scn))) {
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_NOTE)
			take_build_id(scn, o);
		if (strcmp(name, ".sframe") || sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size) {
			o->sec = d->d_buf;
			o->len = d->d_size;
			o->vaddr = sh.sh_addr;
		}
	}
	return o->sec ? 0 : 1;
}

/* DIR/.build-id/xx/rest.sframe, its directories made (DIR's parent must exist). */
static int build_id_path(const char *dir, const struct object *o, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/.build-id/%02x", dir, o->id[0]);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, len, "%s/.build-id", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, len, "%s/.build-id/%02x", dir, o->id[0]);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	for (size_t i = 1; i < o->id_len && (size_t)n + 2 < len; i++)
		n += snprintf(path + n, len - n, "%s%02x", i == 1 ? "/" : "", o->id[i]);
	if ((size_t)n + sizeof(".sframe") > len)
		return -ENAMETOOLONG;
	strcpy(path + n, ".sframe");
	return 0;
}

/* The file: header, padding, data. */
static int write_file(const char *path, const struct codectl_sframe_file *h, const uint8_t *data,
		      size_t len)
{
	uint8_t head[CODECTL_SFRAME_FILE_HDR_SIZE] = { 0 };
	FILE *f = fopen(path, "wb");
	int err = 0;

	if (!f)
		return -errno;
	memcpy(head, h, sizeof(*h));
	if (fwrite(head, sizeof(head), 1, f) != 1 || (len && fwrite(data, len, 1, f) != 1))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static const char *const codec_names[] = { "none", "zlib", "zstd" };

/* One object; 0, 1 (nothing to extract) or 2 (an error), with a line saying which. */
static int extract_one(const char *obj, const struct options *opt)
{
	int fd = open(obj, O_RDONLY | O_CLOEXEC), ret = 2, err;
	struct object o = { 0 };
	struct codectl_sframe_file h;
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	char path[4096];
	uint8_t *data = NULL;
	size_t len = 0;

	if (!e) {
		fprintf(stderr, "sframe-extract: %s: %s\n", obj,
			fd < 0 ? strerror(errno) : elf_errmsg(-1));
		goto out;
	}
	ret = 1;
	if (read_object(e, &o)) {
		fprintf(stderr, "sframe-extract: %s: no .sframe section\n", obj);
		goto out;
	}
	if (opt->dir && o.id_len < 2) {
		fprintf(stderr, "sframe-extract: %s: no build id to name its file by\n", obj);
		goto out;
	}
	ret = 2;
	err = sframe_pack(o.sec, o.len, opt->compression, opt->block_size, &data, &len);
	if (!err && opt->dir)
		err = build_id_path(opt->dir, &o, path, sizeof(path));
	else if (!err)
		snprintf(path, sizeof(path), "%s", opt->out);
	h = sframe_file_header(opt->compression, o.vaddr, o.len, len, o.id, o.id_len);
	if (!err)
		err = write_file(path, &h, data, len);
	if (err) {
		fprintf(stderr, "sframe-extract: %s: %s\n", obj, strerror(-err));
		goto out;
	}
	printf("%s: %zu bytes of .sframe at 0x%llx -> %s (%zu bytes, %s)\n", obj, o.len,
	       (unsigned long long)o.vaddr, path, len + CODECTL_SFRAME_FILE_HDR_SIZE,
	       codec_names[opt->compression]);
	ret = 0;
out:
	free(data);
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int parse_codec(const char *s, unsigned int *out)
{
	for (unsigned int i = 0; i < 3; i++)
		if (!strcmp(s, codec_names[i])) {
			*out = i;
			return 0;
		}
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "build-id-dir", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "compress", required_argument, NULL, 'z' },
		{ "block-size", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct options opt = { .block_size = SFRAME_PACK_BLOCK };
	int c, worst = 0;
	char *end;

	while ((c = getopt_long(argc, argv, "d:o:z:b:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt.dir = optarg;
			break;
		case 'o':
			opt.out = optarg;
			break;
		case 'z':
			if (parse_codec(optarg, &opt.compression))
				goto bad;
			break;
		case 'b':
			opt.block_size = (uint32_t)strtoul(optarg, &end, 0);
			if (*end || opt.block_size < CODE_SFRAME_BLOCK_SIZE_MIN ||
			    opt.block_size > CODE_SFRAME_BLOCK_SIZE_MAX)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("sframe-extract (codectl-emu) %s\n", CODECTL_EMU_VERSION);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind == argc || !opt.dir == !opt.out || (opt.out && argc - optind != 1))
		goto bad;
	elf_version(EV_CURRENT);
	for (int i = optind; i < argc; i++) {
		int r = extract_one(argv[i], &opt);

		worst = r > worst ? r : worst;
	}
	return worst;
bad:
	usage(stderr);
	return 2;
}
