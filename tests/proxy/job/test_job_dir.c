/*
 * test_job_dir: job directories and their removal. The relay socket is
 * named for the engine; a sweep removes leftover Postgres and MariaDB job
 * directories with their sockets, and whatever a hostile runner uid could
 * leave in one (symlinks out of job_dir, FIFOs, files, nested directories)
 * without following a symlink or touching anything outside job_dir; names
 * that are not job ids are left alone, and a tree too deep to remove does
 * not stop the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "proxy/job/job_dir.h"

#define ID_PG "0123456789abcdef0123456789abcdef"
#define ID_MY "fedcba9876543210fedcba9876543210"
#define ID_EVIL "00000000000000000000000000000001"
#define ID_DEEP "00000000000000000000000000000002"
#define ID_LINK "00000000000000000000000000000003"

struct tdir {
	char root[64];  /* the test's scratch directory */
	char jobs[128]; /* root/jobs: job_dir */
	char out[128];  /* root/outside: what no sweep may touch */
};

static void pathf(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	assert_true(n > 0 && (size_t)n < len);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A socket file as a crashed proxy leaves it: bound and listening, then closed. */
static void leave_socket(const char *path)
{
	int fd = job_dir_listen(path, getuid(), getgid());

	assert_true(fd >= 0);
	close(fd);
	assert_true(exists(path));
}

/* A job directory under t->jobs holding control.sock and the engine's relay socket. */
static void leave_job(const struct tdir *t, const char *id, const char *engine)
{
	char dir[256], sock[320];

	pathf(dir, sizeof(dir), "%s/%s", t->jobs, id);
	assert_int_equal(job_dir_make(dir), 0);
	pathf(sock, sizeof(sock), "%s/%s", dir, JOB_DIR_CTL_SOCK);
	leave_socket(sock);
	pathf(sock, sizeof(sock), "%s/%s", dir, job_dir_db_sock(engine));
	leave_socket(sock);
}

static int setup(void **state)
{
	struct tdir *t = calloc(1, sizeof(*t));
	char p[256];

	assert_non_null(t);
	strcpy(t->root, "/tmp/airlock-test-job-dir.XXXXXX");
	assert_non_null(mkdtemp(t->root));
	pathf(t->jobs, sizeof(t->jobs), "%s/jobs", t->root);
	pathf(t->out, sizeof(t->out), "%s/outside", t->root);
	assert_int_equal(mkdir(t->jobs, 0711), 0);
	assert_int_equal(mkdir(t->out, 0700), 0);
	pathf(p, sizeof(p), "%s/secret", t->out);
	write_file(p, "keep me");
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tdir *t = *state;
	char cmd[128];

	pathf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", t->root);
	free(t);
	return 0;
}

static void test_db_sock(void **state)
{
	(void)state;
	assert_string_equal(job_dir_db_sock("postgres"), ".s.PGSQL.5432");
	assert_string_equal(job_dir_db_sock("mariadb"), "mysqld.sock");
	assert_string_equal(JOB_DIR_CTL_SOCK, "control.sock");
}

static void test_is_id(void **state)
{
	(void)state;
	assert_true(job_dir_is_id(ID_PG));
	assert_false(job_dir_is_id(""));
	assert_false(job_dir_is_id("0123456789abcdef0123456789abcde"));
	assert_false(job_dir_is_id(ID_PG "0"));
	assert_false(job_dir_is_id("0123456789ABCDEF0123456789abcdef"));
	assert_false(job_dir_is_id("."));
	assert_false(job_dir_is_id(".."));
	assert_false(job_dir_is_id("lost+found"));
}

/* A crash left one job of each engine: both go, sockets and all. */
static void test_sweep_both_engines(void **state)
{
	struct tdir *t = *state;
	char p[256];

	leave_job(t, ID_PG, "postgres");
	leave_job(t, ID_MY, "mariadb");
	pathf(p, sizeof(p), "%s/%s/mysqld.sock", t->jobs, ID_MY);
	assert_true(exists(p));

	assert_int_equal(job_dir_sweep(t->jobs), 2);
	pathf(p, sizeof(p), "%s/%s", t->jobs, ID_PG);
	assert_false(exists(p));
	pathf(p, sizeof(p), "%s/%s", t->jobs, ID_MY);
	assert_false(exists(p));
	assert_int_equal(job_dir_sweep(t->jobs), 0);
}

/* Whatever the runner uid left: removed, and no symlink is followed out of job_dir. */
static void test_sweep_hostile(void **state)
{
	struct tdir *t = *state;
	char dir[256], p[320], q[320];

	leave_job(t, ID_EVIL, "mariadb");
	pathf(dir, sizeof(dir), "%s/%s", t->jobs, ID_EVIL);
	/* The relay socket swapped for a symlink to a file outside, another to the directory outside. */
	pathf(p, sizeof(p), "%s/mysqld.sock", dir);
	assert_int_equal(unlink(p), 0);
	pathf(q, sizeof(q), "%s/secret", t->out);
	assert_int_equal(symlink(q, p), 0);
	pathf(p, sizeof(p), "%s/up", dir);
	assert_int_equal(symlink(t->out, p), 0);
	pathf(p, sizeof(p), "%s/dotdot", dir);
	assert_int_equal(symlink("../..", p), 0);
	pathf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	pathf(p, sizeof(p), "%s/.hidden", dir);
	write_file(p, "x");
	pathf(p, sizeof(p), "%s/sub", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	pathf(p, sizeof(p), "%s/sub/file", dir);
	write_file(p, "x");
	pathf(p, sizeof(p), "%s/sub/out", dir);
	assert_int_equal(symlink(t->out, p), 0);
	if (geteuid() == 0) {
		/* Only a root-run proxy can empty a directory the runner made unreadable. */
		pathf(p, sizeof(p), "%s/sub/unreadable", dir);
		assert_int_equal(mkdir(p, 0), 0);
		pathf(p, sizeof(p), "%s/sub/unreadable/file", dir);
		write_file(p, "x");
		assert_int_equal(chmod(p, 0), 0);
	}
	/* A job-named symlink at the top of job_dir: the link goes, its target stays. */
	pathf(p, sizeof(p), "%s/%s", t->jobs, ID_LINK);
	assert_int_equal(symlink(t->out, p), 0);
	/* Not job directories: left alone. */
	pathf(p, sizeof(p), "%s/lost+found", t->jobs);
	assert_int_equal(mkdir(p, 0700), 0);
	pathf(p, sizeof(p), "%s/notes.txt", t->jobs);
	write_file(p, "x");

	assert_int_equal(job_dir_sweep(t->jobs), 2);
	assert_false(exists(dir));
	pathf(p, sizeof(p), "%s/%s", t->jobs, ID_LINK);
	assert_false(exists(p));
	pathf(p, sizeof(p), "%s/lost+found", t->jobs);
	assert_true(exists(p));
	pathf(p, sizeof(p), "%s/notes.txt", t->jobs);
	assert_true(exists(p));
	pathf(p, sizeof(p), "%s/secret", t->out);
	assert_true(exists(p));
	assert_true(exists(t->out));
	assert_true(exists(t->jobs));
}

/* A tree deeper than JOB_DIR_MAX_DEPTH stays (logged); the sweep still removes the others. */
static void test_sweep_too_deep(void **state)
{
	struct tdir *t = *state;
	char p[1024];
	size_t n;

	pathf(p, sizeof(p), "%s/%s", t->jobs, ID_DEEP);
	assert_int_equal(mkdir(p, 0700), 0);
	for (int i = 0; i <= JOB_DIR_MAX_DEPTH; i++) {
		n = strlen(p);
		pathf(p + n, sizeof(p) - n, "/d");
		assert_int_equal(mkdir(p, 0700), 0);
	}
	leave_job(t, ID_MY, "mariadb");

	assert_int_equal(job_dir_sweep(t->jobs), 1);
	pathf(p, sizeof(p), "%s/%s", t->jobs, ID_DEEP);
	assert_true(exists(p));
	pathf(p, sizeof(p), "%s/%s", t->jobs, ID_MY);
	assert_false(exists(p));
}

/* One job's own teardown: the same removal, by its path. */
static void test_remove(void **state)
{
	struct tdir *t = *state;
	char dir[256], p[320];

	leave_job(t, ID_PG, "postgres");
	pathf(dir, sizeof(dir), "%s/%s", t->jobs, ID_PG);
	pathf(p, sizeof(p), "%s/extra", dir);
	write_file(p, "x");
	assert_int_equal(job_dir_remove(dir), 0);
	assert_false(exists(dir));
	assert_int_equal(job_dir_remove(dir), 0);

	errno = 0;
	assert_int_equal(job_dir_remove(t->jobs), -1);
	assert_int_equal(errno, EINVAL);
	assert_true(exists(t->jobs));
	assert_int_equal(job_dir_remove(ID_PG), -1);
}

static void test_sweep_missing_root(void **state)
{
	struct tdir *t = *state;
	char p[256];

	pathf(p, sizeof(p), "%s/none", t->root);
	assert_int_equal(job_dir_sweep(p), -1);
	pathf(p, sizeof(p), "%s/secret", t->out);
	assert_int_equal(job_dir_sweep(p), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_db_sock),
		cmocka_unit_test(test_is_id),
		cmocka_unit_test_setup_teardown(test_sweep_both_engines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_too_deep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_missing_root, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
