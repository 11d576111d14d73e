/*
 * The SQLite approval store's file: what survives a close, what a second
 * process waits for, which files are refused at open (not SQLite, a newer
 * schema, another shape, another program's tables), rows damaged by hand
 * read back as APPROVAL_IO, and the file's mode. The tests edit the file
 * with their own SQLite connection, as a person or an attacker would.
 */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "approval/approval_store.h"
#include "tests/approval/store_fixture.h"

#define NOW 1700000000000LL
#define LATER (NOW + 3600 * 1000LL)

static int setup(void **state)
{
	*state = fixture_open("/tmp/approval_file_XXXXXX");
	return 0;
}

static int teardown(void **state)
{
	fixture_close(*state);
	return 0;
}

/* Closes the fixture's store (so the test can edit the file) and reopens it. */
static void close_store(struct fixture *f)
{
	f->s->ops->close(f->s);
	f->s = NULL;
}

static void reopen_store(struct fixture *f)
{
	char err[512];

	f->s = approval_store_sqlite_open(f->path, err, sizeof(err));
	if (!f->s)
		fail_msg("reopen: %s", err);
}

/* A pending record, stored; its id in id. */
static void put_new(struct approval_store *s, int needed, char id[APPROVAL_ID_LEN + 1])
{
	struct approval a = {
		.status = APPROVAL_PENDING,
		.user = "alice",
		.protocol = "mysql",
		.client_addr = "10.1.1.1:3306",
		.application_name = "",
		.statement = "DELETE FROM t WHERE id = ? -- secret_statement_marker",
		.params = "[\"9\"]",
		.rewritten = "DELETE FROM db.t WHERE id = ?",
		.plan = "",
		.sample = "[]",
		.rows = 1,
		.executed_rows = -1,
		.created_at = NOW,
		.expires_at = LATER,
		.approvals_needed = needed,
		.approved_by = "",
		.decided_by = "",
		.reason = "",
		.policy_checksum = "sha256:00",
	};

	assert_true(approval_new_id(a.id));
	assert_int_equal(s->ops->put(s, &a), APPROVAL_OK);
	memcpy(id, a.id, APPROVAL_ID_LEN + 1);
}

/* Runs sql on path with the test's own connection; ?1 is bound to arg (text) when arg is not NULL. */
static void raw_sql(const char *path, const char *sql, const char *arg)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("prepare %s: %s", sql, sqlite3_errmsg(db));
	if (arg)
		assert_int_equal(sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		;
	assert_int_equal(sqlite3_finalize(st), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

static void expect_refused(const char *path, const char *words)
{
	char err[512] = "";
	struct approval_store *s = approval_store_sqlite_open(path, err, sizeof(err));

	if (s)
		fail_msg("%s opened; expected: %s", path, words);
	if (!strstr(err, words) || !strstr(err, path))
		fail_msg("message \"%s\" lacks \"%s\" or the path", err, words);
}

static void test_durable_across_close(void **state)
{
	struct fixture *f = *state;
	struct approval_move m = {.from = APPROVAL_PENDING, .to = APPROVAL_APPROVED, .now = NOW + 1, .by = "una"};
	char id[APPROVAL_ID_LEN + 1], id2[APPROVAL_ID_LEN + 1];
	struct approval a;
	sqlite3 *db;
	sqlite3_stmt *st;

	put_new(f->s, 1, id);
	put_new(f->s, 2, id2);
	m.id = id;
	assert_int_equal(f->s->ops->move(f->s, &m), APPROVAL_OK);
	close_store(f);
	reopen_store(f);
	assert_int_equal(f->s->ops->get(f->s, id, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_APPROVED);
	assert_string_equal(a.approved_by, "una");
	assert_string_equal(a.statement, "DELETE FROM t WHERE id = ? -- secret_statement_marker");
	approval_free(&a);
	assert_int_equal(f->s->ops->get(f->s, id2, &a), APPROVAL_OK);
	assert_int_equal(a.approvals_needed, 2);
	approval_free(&a);
	/* The file is in WAL mode at the schema version. */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 2);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* Another process holds the write lock for a while: the store waits for it rather than failing. */
static void test_second_process_waits(void **state)
{
	struct fixture *f = *state;
	char id[APPROVAL_ID_LEN + 1], ready;
	struct timespec t0, t1;
	int fds[2], status;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sqlite3 *db;

		close(fds[0]);
		if (sqlite3_open(f->path, &db) != SQLITE_OK ||
		    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		sqlite3_close(db);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &ready, 1), 1);
	close(fds[0]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	put_new(f->s, 1, id);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 150);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_not_sqlite_refused(void **state)
{
	struct fixture *f = *state;
	char garbage[8192], back[8192];
	int fd;

	close_store(f);
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = "this is not a database\n"[i % 23];
	unlink(f->path);
	fd = open(f->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, garbage, sizeof(garbage)), sizeof(garbage));
	close(fd);
	expect_refused(f->path, "not a SQLite database");
	/* Refused before anything was written to it. */
	fd = open(f->path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, back, sizeof(back)), sizeof(back));
	close(fd);
	assert_memory_equal(back, garbage, sizeof(garbage));
	/* Nor is a directory or a pipe. */
	expect_refused(f->dir, "cannot open");
	unlink(f->path);
	assert_int_equal(mkfifo(f->path, 0600), 0);
	expect_refused(f->path, "not a regular file");
}

static void test_newer_version_refused(void **state)
{
	struct fixture *f = *state;
	char id[APPROVAL_ID_LEN + 1];

	put_new(f->s, 1, id);
	close_store(f);
	raw_exec(f->path, "PRAGMA user_version = 3");
	expect_refused(f->path, "newer");
	raw_exec(f->path, "PRAGMA user_version = -1");
	expect_refused(f->path, "schema version -1");
	raw_exec(f->path, "PRAGMA user_version = 2");
	reopen_store(f);
}

/* A version 1 file (no settings, no param_types) gains them, its records read as run under the defaults. */
static void test_version_1_upgraded(void **state)
{
	struct fixture *f = *state;
	char id[APPROVAL_ID_LEN + 1];
	struct approval a = {0};

	put_new(f->s, 1, id);
	close_store(f);
	raw_exec(f->path,
		 "ALTER TABLE approvals DROP COLUMN \"result\"; ALTER TABLE approvals DROP COLUMN \"param_types\"; "
		 "ALTER TABLE approvals DROP COLUMN \"settings\"; PRAGMA user_version = 1");
	reopen_store(f);
	assert_int_equal(f->s->ops->get(f->s, id, &a), APPROVAL_OK);
	assert_string_equal(a.settings, "{}");
	assert_string_equal(a.param_types, "[]");
	assert_string_equal(a.result, "");
	approval_free(&a);
	put_new(f->s, 1, id);
	close_store(f);
	/* Opened again: version 2 now, nothing added twice. */
	reopen_store(f);
	assert_int_equal(f->s->ops->get(f->s, id, &a), APPROVAL_OK);
	approval_free(&a);
}

static void test_foreign_shapes_refused(void **state)
{
	struct fixture *f = *state;
	char other[192];

	close_store(f);
	/* Version 2, but a column renamed. */
	raw_exec(f->path, "ALTER TABLE approvals RENAME COLUMN \"user\" TO \"usr\"");
	expect_refused(f->path, "wrong shape (column 3)");
	/* Version 2 with a column too few, or one too many. */
	snprintf(other, sizeof(other), "%s/short.db", f->dir);
	raw_exec(other, "CREATE TABLE approvals (id TEXT PRIMARY KEY, status TEXT); PRAGMA user_version = 2");
	expect_refused(other, "has 2 columns");
	unlink(other);
	raw_exec(f->path, "ALTER TABLE approvals RENAME COLUMN \"usr\" TO \"user\"");
	raw_exec(f->path, "ALTER TABLE approvals ADD COLUMN extra TEXT");
	expect_refused(f->path, "wrong shape");
	/* Version 2 and no table; version 1 and no table to upgrade. */
	raw_exec(other, "CREATE TABLE t (x); PRAGMA user_version = 2");
	expect_refused(other, "no table approvals");
	unlink(other);
	raw_exec(other, "CREATE TABLE t (x); PRAGMA user_version = 1");
	expect_refused(other, "cannot add the column settings");
	unlink(other);
	/* Another program's database: tables and no version. */
	raw_exec(other, "CREATE TABLE t (x)");
	expect_refused(other, "something else");
	unlink(other);
	/* A UTF-16 database. */
	raw_exec(other, "PRAGMA encoding = 'UTF-16le'; CREATE TABLE t (x); DROP TABLE t");
	expect_refused(other, "UTF-8");
	unlink(other);
}

/* A trigger or a view planted in the file never runs in the store's connection. */
static void test_planted_trigger_ignored(void **state)
{
	struct fixture *f = *state;
	struct approval_move m = {.from = APPROVAL_PENDING, .to = APPROVAL_APPROVED, .now = NOW, .by = "wes"};
	char id[APPROVAL_ID_LEN + 1], other[APPROVAL_ID_LEN + 1];
	struct approval a;

	put_new(f->s, 1, id);
	put_new(f->s, 1, other);
	close_store(f);
	raw_exec(f->path, "CREATE TRIGGER planted AFTER UPDATE ON approvals BEGIN "
			  "UPDATE approvals SET status = 'approved', approved_by = 'mallory'; END; "
			  "CREATE VIEW planted_view AS SELECT * FROM approvals");
	reopen_store(f);
	m.id = id;
	assert_int_equal(f->s->ops->move(f->s, &m), APPROVAL_OK);
	assert_int_equal(f->s->ops->get(f->s, other, &a), APPROVAL_OK);
	assert_int_equal(a.status, APPROVAL_PENDING);
	assert_string_equal(a.approved_by, "");
	approval_free(&a);
}

/* Expects get and move of id to answer APPROVAL_IO naming id, and the store to go on working. */
static void expect_damaged(struct approval_store *s, const char *id)
{
	struct approval_move m = {.id = id, .from = APPROVAL_PENDING, .to = APPROVAL_REJECTED, .now = NOW, .by = "v"};
	struct approval a;

	if (s->ops->get(s, id, &a) != APPROVAL_IO)
		fail_msg("record %s read back despite its damage", id);
	if (!strstr(s->ops->error(s), id))
		fail_msg("message \"%s\" does not name %s", s->ops->error(s), id);
	assert_null(strstr(s->ops->error(s), "secret_statement_marker"));
	assert_null(a.user);
	assert_int_equal(s->ops->move(s, &m), APPROVAL_IO);
}

static bool count_one(void *arg, const struct approval *a)
{
	(*(size_t *)arg)++;
	return true;
}

static void test_damaged_rows_read_as_io(void **state)
{
	struct fixture *f = *state;
	static const char *const damage[] = {
		"UPDATE approvals SET status = 'bogus' WHERE id = ?1",
		"UPDATE approvals SET status = 'pending ' WHERE id = ?1",
		"UPDATE approvals SET user = x'ff00ff' WHERE id = ?1",
		"UPDATE approvals SET decided_at = x'01' WHERE id = ?1",
		"UPDATE approvals SET user = printf('%.300c', 'a') WHERE id = ?1",
		"UPDATE approvals SET statement = CAST(x'41004220' AS TEXT) WHERE id = ?1",
		"UPDATE approvals SET statement = zeroblob(5000000) WHERE id = ?1",
		"UPDATE approvals SET plan = CAST(zeroblob(300000) AS TEXT) WHERE id = ?1",
		"UPDATE approvals SET rows = 'many' WHERE id = ?1",
		"UPDATE approvals SET created_at = 1.5 WHERE id = ?1",
		"UPDATE approvals SET approvals_needed = 7 WHERE id = ?1",
		"UPDATE approvals SET approvals_needed = 4294967297 WHERE id = ?1",
		"UPDATE approvals SET approved_by = 'a,b' WHERE id = ?1",
	};
	enum { N = sizeof(damage) / sizeof(damage[0]) };
	char ids[N][APPROVAL_ID_LEN + 1], good[APPROVAL_ID_LEN + 1], bad_id[APPROVAL_ID_LEN + 1];
	struct approval_move m = {.from = APPROVAL_PENDING, .to = APPROVAL_APPROVED, .now = NOW, .by = "c"};
	struct approval a;
	size_t n = 0;

	for (size_t i = 0; i < N; i++)
		put_new(f->s, 2, ids[i]);
	put_new(f->s, 1, good);
	put_new(f->s, 1, bad_id);
	close_store(f);
	for (size_t i = 0; i < N; i++)
		raw_sql(f->path, damage[i], ids[i]);
	raw_sql(f->path, "UPDATE approvals SET id = 'w''; DROP TABLE x', status = 'executed' WHERE id = ?1", bad_id);
	reopen_store(f);
	for (size_t i = 0; i < N - 1; i++)
		expect_damaged(f->s, ids[i]);
	/* Two approvers on a pending record: readable, but no approval builds on it. */
	assert_int_equal(f->s->ops->get(f->s, ids[N - 1], &a), APPROVAL_OK);
	approval_free(&a);
	m.id = ids[N - 1];
	assert_int_equal(f->s->ops->move(f->s, &m), APPROVAL_IO);
	assert_non_null(strstr(f->s->ops->error(f->s), ids[N - 1]));
	/* Listing stops at a damaged row; a malformed id is never echoed. */
	assert_int_equal(f->s->ops->each(f->s, APPROVAL_PENDING, SIZE_MAX, count_one, &n), APPROVAL_IO);
	assert_int_equal(f->s->ops->each(f->s, APPROVAL_EXECUTED, SIZE_MAX, count_one, &n), APPROVAL_IO);
	assert_non_null(strstr(f->s->ops->error(f->s), "malformed id"));
	assert_null(strstr(f->s->ops->error(f->s), "DROP"));
	/* The undamaged record is still served. */
	assert_int_equal(f->s->ops->get(f->s, good, &a), APPROVAL_OK);
	assert_string_equal(a.user, "alice");
	approval_free(&a);
	m.id = good;
	assert_int_equal(f->s->ops->move(f->s, &m), APPROVAL_OK);
}

/* NOT NULL taken off the table by editing its schema, then a column set to NULL. */
static void test_null_column_read_as_io(void **state)
{
	struct fixture *f = *state;
	char id[APPROVAL_ID_LEN + 1], other[APPROVAL_ID_LEN + 1];
	size_t n = 0;

	put_new(f->s, 1, id);
	put_new(f->s, 1, other);
	close_store(f);
	raw_exec(f->path, "PRAGMA writable_schema = ON; "
			  "UPDATE sqlite_master SET sql = replace(sql, ' NOT NULL', '') WHERE name = 'approvals'; "
			  "PRAGMA writable_schema = OFF");
	raw_sql(f->path, "UPDATE approvals SET reason = NULL WHERE id = ?1", id);
	raw_sql(f->path, "UPDATE approvals SET expires_at = NULL WHERE id = ?1", other);
	reopen_store(f);
	expect_damaged(f->s, id);
	assert_non_null(strstr(f->s->ops->error(f->s), "reason"));
	expect_damaged(f->s, other);
	assert_int_equal(f->s->ops->each(f->s, APPROVAL_PENDING, SIZE_MAX, count_one, &n), APPROVAL_IO);
	assert_int_equal(f->s->ops->expire(f->s, LATER + 1, &n), APPROVAL_OK);
	assert_int_equal(n, 1);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

/* New files are 0600 whatever the umask; so are the WAL and shared-memory files beside them. */
static void test_file_mode(void **state)
{
	struct fixture *f = *state;
	char path[192], wal[200], err[512], id[APPROVAL_ID_LEN + 1];
	struct approval_store *s;
	mode_t old;
	int fd;

	assert_int_equal(mode_of(f->path), 0600);
	snprintf(path, sizeof(path), "%s/open.db", f->dir);
	old = umask(0);
	s = approval_store_sqlite_open(path, err, sizeof(err));
	umask(old);
	assert_non_null(s);
	put_new(s, 1, id);
	assert_int_equal(mode_of(path), 0600);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_equal(mode_of(wal), 0600);
	snprintf(wal, sizeof(wal), "%s-shm", path);
	assert_int_equal(mode_of(wal), 0600);
	s->ops->close(s);
	/* An empty file left by someone else, mode 0644, becomes the store at 0600. */
	snprintf(path, sizeof(path), "%s/empty.db", f->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fchmod(fd, 0644), 0);
	close(fd);
	s = approval_store_sqlite_open(path, err, sizeof(err));
	assert_non_null(s);
	assert_int_equal(mode_of(path), 0600);
	s->ops->close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_durable_across_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_process_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_sqlite_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_version_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_version_1_upgraded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_shapes_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_trigger_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged_rows_read_as_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_column_read_as_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_mode, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
