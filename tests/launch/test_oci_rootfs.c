/*
 * test_oci_rootfs: the pinned OCI root filesystem. A good archive unpacks
 * with nothing writable and no set-id bits; an unpinned reference, a
 * missing file, a digest that does not match, bytes that are not a tar
 * archive, a truncated archive, and entries that would leave the tree or
 * are not plain files, directories or links are refused, and nothing of
 * a refused archive is left behind (nor anything written outside).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <archive.h>
#include <archive_entry.h>
#include <cmocka.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launch/oci_rootfs.h"

struct entry {
	const char *name;
	mode_t type;
	mode_t perm;
	const char *data; /* a file's bytes, or a link's target */
	bool hardlink;
};

static char tmp[256], state_dir[300], archive_path[300];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-oci-rootfs.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	snprintf(state_dir, sizeof(state_dir), "%s/state", tmp);
	snprintf(archive_path, sizeof(archive_path), "%s/rootfs.tar", tmp);
	assert_int_equal(mkdir(state_dir, 0711), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* Writes entries as a tar archive at archive_path; its pinned reference into ref. */
static void write_tar(const struct entry *e, size_t n, char *ref, size_t reflen)
{
	struct archive *a = archive_write_new();
	struct archive_entry *ae;
	unsigned char *buf;
	char hex[65];
	size_t used = 0, cap = 1 << 20;
	FILE *f;

	buf = malloc(cap);
	assert_non_null(buf);
	archive_write_set_format_gnutar(a);
	assert_int_equal(archive_write_open_memory(a, buf, cap, &used), ARCHIVE_OK);
	for (size_t i = 0; i < n; i++) {
		ae = archive_entry_new();
		archive_entry_set_pathname(ae, e[i].name);
		archive_entry_set_filetype(ae, e[i].type);
		archive_entry_set_perm(ae, e[i].perm);
		if (e[i].hardlink)
			archive_entry_set_hardlink(ae, e[i].data);
		else if (e[i].type == AE_IFLNK)
			archive_entry_set_symlink(ae, e[i].data);
		else if (e[i].type == AE_IFREG)
			archive_entry_set_size(ae, (la_int64_t)strlen(e[i].data));
		assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
		if (e[i].type == AE_IFREG && !e[i].hardlink)
			archive_write_data(a, e[i].data, strlen(e[i].data));
		archive_entry_free(ae);
	}
	archive_write_close(a);
	archive_write_free(a);
	f = fopen(archive_path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, used, f), used);
	fclose(f);
	oci_sha256_hex(buf, used, hex);
	snprintf(ref, reflen, "%s@sha256:%s", archive_path, hex);
	free(buf);
}

/* How many unpacked trees are in the state directory. */
static int trees(void)
{
	DIR *d = opendir(state_dir);
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += strncmp(de->d_name, "rootfs-", 7) == 0;
	if (d)
		closedir(d);
	return n;
}

static const struct entry good[] = {
	{"airlock-runner", AE_IFREG, 04755,
	 "\x7f"
	 "ELF"},
	{"etc", AE_IFDIR, 0755, NULL},
	{"etc/passwd", AE_IFREG, 0666, "nobody:x:65534:65534::/:/\n"},
	{"lib64", AE_IFDIR, 0755, NULL},
	{"lib64/ld.so", AE_IFREG, 0755, "loader"},
	{"lib", AE_IFLNK, 0777, "lib64"},
	{"job", AE_IFDIR, 0755, NULL},
};

static void test_good_archive(void **state)
{
	char ref[600], out[4096], err[512], path[4200];
	struct stat st;

	(void)state;
	write_tar(good, sizeof(good) / sizeof(good[0]), ref, sizeof(ref));
	if (oci_rootfs_prepare_sync(ref, state_dir, out, sizeof(out), err, sizeof(err)) != 0)
		fail_msg("%s", err);
	snprintf(path, sizeof(path), "%s/airlock-runner", out);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0555); /* no set-uid, no write */
	snprintf(path, sizeof(path), "%s/etc/passwd", out);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0444);
	assert_int_equal(st.st_uid, geteuid() == 0 ? 0 : geteuid());
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0555);
	snprintf(path, sizeof(path), "%s/lib", out);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	/* A second start unpacks afresh and removes the first tree. */
	assert_int_equal(oci_rootfs_prepare_sync(ref, state_dir, out, sizeof(out), err, sizeof(err)), 0);
	assert_int_equal(trees(), 1);
}

static void expect_refused(const char *ref, const char *code, const char *words)
{
	char out[4096] = "", err[512] = "";
	int before = trees();

	assert_int_equal(oci_rootfs_prepare_sync(ref, state_dir, out, sizeof(out), err, sizeof(err)), -1);
	if (!strstr(err, code) || (words && !strstr(err, words)))
		fail_msg("refusal of %s: \"%s\", expected %s ... %s", ref, err, code, words ? words : "");
	assert_int_equal(trees(), before);
}

static void test_refused_references(void **state)
{
	char ref[600];

	(void)state;
	expect_refused("/srv/rootfs.tar", "IMAGE_UNPINNED", NULL);
	expect_refused("rootfs.tar@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		       "IMAGE_UNPINNED", NULL);
	snprintf(ref, sizeof(ref), "%s/missing.tar@sha256:%064d", tmp, 0);
	expect_refused(ref, "IMAGE_UNAVAILABLE", "cannot read");
	write_tar(good, sizeof(good) / sizeof(good[0]), ref, sizeof(ref));
	memcpy(strstr(ref, "sha256:") + 7, "00000000", 8);
	expect_refused(ref, "IMAGE_UNAVAILABLE", "not the pinned digest");
}

/* The archive's bytes as they are, pinned by their own digest (so only the contents can fail). */
static void pin_file(const void *bytes, size_t n, char *ref, size_t reflen)
{
	char hex[65];
	FILE *f = fopen(archive_path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	fclose(f);
	oci_sha256_hex(bytes, n, hex);
	snprintf(ref, reflen, "%s@sha256:%s", archive_path, hex);
}

static void test_malformed_archives(void **state)
{
	char ref[600], *bytes;
	FILE *f;
	long n;

	(void)state;
	pin_file("this is not a tar archive at all, not even close", 48, ref, sizeof(ref));
	expect_refused(ref, "IMAGE_UNAVAILABLE", NULL);
	/* A good archive cut short in its first file. */
	write_tar(good, sizeof(good) / sizeof(good[0]), ref, sizeof(ref));
	f = fopen(archive_path, "rb");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	bytes = malloc((size_t)n);
	assert_int_equal(fread(bytes, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	pin_file(bytes, 600, ref, sizeof(ref));
	expect_refused(ref, "IMAGE_UNAVAILABLE", NULL);
	free(bytes);
	pin_file("", 0, ref, sizeof(ref));
	expect_refused(ref, "IMAGE_UNAVAILABLE", NULL);
}

static void expect_entries_refused(const struct entry *e, size_t n, const char *words)
{
	char ref[600], outside[400];
	struct stat st;

	write_tar(e, n, ref, sizeof(ref));
	expect_refused(ref, "IMAGE_UNAVAILABLE", words);
	snprintf(outside, sizeof(outside), "%s/escaped", tmp);
	assert_int_equal(lstat(outside, &st), -1);
}

static void test_hostile_entries(void **state)
{
	char abs_name[400], target[400];

	(void)state;
	expect_entries_refused((const struct entry[]){{"../escaped", AE_IFREG, 0644, "x"}}, 1, NULL);
	expect_entries_refused((const struct entry[]){{"etc/../../escaped", AE_IFREG, 0644, "x"}}, 1, NULL);
	snprintf(abs_name, sizeof(abs_name), "%s/escaped", tmp);
	expect_entries_refused((const struct entry[]){{abs_name, AE_IFREG, 0644, "x"}}, 1, "absolute");
	expect_entries_refused((const struct entry[]){{"dev/null", AE_IFCHR, 0666, NULL}}, 1, "not a file");
	expect_entries_refused((const struct entry[]){{"fifo", AE_IFIFO, 0666, NULL}}, 1, "not a file");
	expect_entries_refused(
		(const struct entry[]){{"a", AE_IFREG, 0644, "x"}, {"b", AE_IFREG, 0644, "a", .hardlink = true}}, 2,
		"hard link");
	/* A link out of the tree, then a file written through it. */
	snprintf(target, sizeof(target), "%s", tmp);
	expect_entries_refused(
		(const struct entry[]){{"out", AE_IFLNK, 0777, target}, {"out/escaped", AE_IFREG, 0644, "x"}}, 2, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_archive),
		cmocka_unit_test(test_refused_references),
		cmocka_unit_test(test_malformed_archives),
		cmocka_unit_test(test_hostile_entries),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
