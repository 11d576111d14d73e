/*
 * oci_rootfs: check and unpack the pinned root filesystem (see oci_rootfs.h).
 */
#define _GNU_SOURCE
#include "launch/oci_rootfs.h"
#include "launch/image_ref.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <ftw.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROOTFS_PREFIX "rootfs-"

void oci_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", i < mdlen ? md[i] : 0);
	hex[64] = '\0';
}

/* The whole file at path into *buf (malloc'd, the caller's). */
static int read_all(const char *path, unsigned char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t got = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: cannot read the root filesystem %s: %s", path,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > OCI_ROOTFS_MAX_BYTES) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: %s is not a regular file of 1 byte to %u MB", path,
			 OCI_ROOTFS_MAX_BYTES >> 20);
		close(fd);
		return -1;
	}
	*buf = malloc((size_t)st.st_size);
	while (*buf && got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!*buf || got != (size_t)st.st_size) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: cannot read all of %s", path);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	*len = got;
	return 0;
}

/* Only what a root filesystem needs; modes lose write and set-id bits. */
static int entry_ok(struct archive_entry *e, char *err, size_t errlen)
{
	mode_t type = archive_entry_filetype(e);

	if (archive_entry_hardlink(e)) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: %s in the root filesystem is a hard link",
			 archive_entry_pathname(e));
		return -1;
	}
	if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: %s in the root filesystem is not a file, directory or link",
			 archive_entry_pathname(e));
		return -1;
	}
	archive_entry_set_perm(e, archive_entry_perm(e) & 0555);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	return 0;
}

static int unpack(const unsigned char *buf, size_t len, const char *dest, char *err, size_t errlen)
{
	struct archive *in = archive_read_new(), *out = archive_write_disk_new();
	struct archive_entry *e;
	char path[4096];
	int rc = -1, r;

	if (!in || !out)
		goto done;
	archive_read_support_format_tar(in);
	archive_write_disk_set_options(out, ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
						    ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_NO_OVERWRITE);
	if (archive_read_open_memory(in, buf, len) != ARCHIVE_OK) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: the root filesystem is not a tar archive: %s",
			 archive_error_string(in));
		goto done;
	}
	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);

		/* The archive's names are relative; dest (absolute, no links) is put in front of each. */
		if (name[0] == '/') {
			snprintf(err, errlen, "IMAGE_UNAVAILABLE: %s in the root filesystem is an absolute path", name);
			goto done;
		}
		if (entry_ok(e, err, errlen) < 0)
			goto done;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dest, name) >= sizeof(path))
			goto bad_entry;
		archive_entry_set_pathname(e, path);
		if (archive_write_header(out, e) != ARCHIVE_OK)
			goto bad_entry;
		if (archive_entry_size(e) > 0) {
			const void *blk;
			size_t n;
			la_int64_t off;

			while ((r = archive_read_data_block(in, &blk, &n, &off)) == ARCHIVE_OK)
				if (archive_write_data_block(out, blk, n, off) != ARCHIVE_OK)
					goto bad_entry;
			if (r != ARCHIVE_EOF)
				goto bad_entry;
		}
		if (archive_write_finish_entry(out) != ARCHIVE_OK)
			goto bad_entry;
	}
	if (r != ARCHIVE_EOF) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: the root filesystem archive is malformed: %s",
			 archive_error_string(in));
		goto done;
	}
	rc = 0;
	goto done;
bad_entry:
	snprintf(err, errlen, "IMAGE_UNAVAILABLE: cannot unpack %s of the root filesystem: %s",
		 archive_entry_pathname(e), archive_error_string(out) ? archive_error_string(out) : "bad entry");
done:
	if (out) {
		archive_write_close(out);
		archive_write_free(out);
	}
	if (in)
		archive_read_free(in);
	return rc;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void oci_remove_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Removes every earlier unpacked tree under state_dir but keep. */
static void remove_old(const char *state_dir, const char *keep)
{
	DIR *d = opendir(state_dir);
	struct dirent *de;
	char path[4096];

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, ROOTFS_PREFIX, strlen(ROOTFS_PREFIX)) != 0 || !strcmp(de->d_name, keep))
			continue;
		snprintf(path, sizeof(path), "%s/%s", state_dir, de->d_name);
		oci_remove_tree(path);
	}
	closedir(d);
}

int oci_rootfs_prepare_sync(const char *ref, const char *state_dir, char *out, size_t outlen, char *err, size_t errlen)
{
	char path[ROOTFS_REF_MAX + 1], hex[65], dest[PATH_MAX + 128], real[PATH_MAX];
	const char *name;
	unsigned char *buf = NULL;
	size_t at, len = 0;
	int rc;

	if (!rootfs_ref_pinned(ref, &at)) {
		snprintf(err, errlen, "IMAGE_UNPINNED: the root filesystem must be /PATH@sha256:<64 hex>");
		return -1;
	}
	snprintf(path, sizeof(path), "%.*s", (int)at, ref);
	if (read_all(path, &buf, &len, err, errlen) < 0)
		return -1;
	oci_sha256_hex(buf, len, hex);
	if (strcmp(hex, ref + at + 1 + strlen("sha256:")) != 0) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: %s has sha256:%s, not the pinned digest", path, hex);
		free(buf);
		return -1;
	}
	if (!realpath(state_dir, real)) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: %s: %s", state_dir, strerror(errno));
		free(buf);
		return -1;
	}
	snprintf(dest, sizeof(dest), "%s/" ROOTFS_PREFIX "%.16s-XXXXXX", real, hex);
	if (!mkdtemp(dest) || chmod(dest, 0755) < 0) {
		snprintf(err, errlen, "IMAGE_UNAVAILABLE: cannot make a directory in %s: %s", real, strerror(errno));
		free(buf);
		return -1;
	}
	name = strrchr(dest, '/') + 1;
	rc = unpack(buf, len, dest, err, errlen);
	free(buf);
	if (rc == 0 && chmod(dest, 0555) < 0)
		rc = -1;
	if (rc < 0) {
		oci_remove_tree(dest);
		return -1;
	}
	remove_old(state_dir, name);
	snprintf(out, outlen, "%s", dest);
	return 0;
}
