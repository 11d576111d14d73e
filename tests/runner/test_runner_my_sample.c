/*
 * test_runner_my_sample: a MySQL write's dry-run sample. The JSON text of
 * a value (quotes, controls, bytes that are not UTF-8: always valid JSON),
 * and, on the real MariaDB (the socket at AIRLOCK_TEST_MYSQL_SOCKET or
 * /run/mysqld/mysqld.sock, as root; skipped when there is none), the rows
 * my_write_run sends for a DELETE and an INSERT (a filtered one with its
 * check first), an UPDATE's before/after pairs (read again by primary
 * key, a composite one with odd names, else a unique key of NOT NULL
 * columns, none without one or when the key changed, in its ORDER BY and
 * LIMIT), the caps of 20 rows and 32 kB, and
 * nothing left written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/frame.h"
#include "runner/runner_ctl.h"
#include "runner/runner_job.h"
#include "runner/runner_my_sample.h"
#include "runner/runner_my_write.h"

#define DB "airlock_unit_sample"

static void expect_str(const char *in, size_t len, const char *want)
{
	struct wbuf b;

	wbuf_init(&b);
	my_sample_put_str(&b, in, len);
	wbuf_put_u8(&b, 0);
	assert_false(b.failed);
	assert_string_equal((const char *)b.data, want);
	wbuf_free(&b);
}

static void test_json_text(void **state)
{
	(void)state;
	expect_str("plain", 5, "\"plain\"");
	expect_str("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
	expect_str("\n\t\x01\x1f\x7f", 5, "\"\\u000a\\u0009\\u0001\\u001f\\u007f\"");
	expect_str("a\0b", 3, "\"a\\ufffdb\"");
	/* Valid UTF-8 stays as it is (the record escapes what is shown); anything else is U+FFFD. */
	expect_str("\xe2\x80\xae"
		   "x",
		   4,
		   "\"\xe2\x80\xae"
		   "x\"");
	expect_str("\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"");
	expect_str("\xff\xfe", 2, "\"\\ufffd\\ufffd\"");
	expect_str("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");                       /* overlong '/' */
	expect_str("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");            /* a surrogate */
	expect_str("\xe2\x80", 2, "\"\\ufffd\\ufffd\"");                       /* cut short */
	expect_str("\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
}

static void test_json_row(void **state)
{
	MYSQL_FIELD f[3];
	char *vals[3] = {"1", NULL, "x\"y"};
	unsigned long lens[3] = {1, 0, 3};
	struct wbuf b;

	(void)state;
	memset(f, 0, sizeof(f));
	f[0].name = "id";
	f[0].name_length = 2;
	f[1].name = "note";
	f[1].name_length = 4;
	f[2].name = "we\"ird";
	f[2].name_length = 6;
	wbuf_init(&b);
	my_sample_put_row(&b, f, vals, lens, 3);
	wbuf_put_u8(&b, 0);
	assert_string_equal((const char *)b.data, "{\"id\":\"1\",\"note\":null,\"we\\\"ird\":\"x\\\"y\"}");
	wbuf_free(&b);
}

/* ---- on the real server ---- */

static MYSQL *conn;

static int run(const char *sql)
{
	MYSQL_RES *res;

	if (mysql_query(conn, sql) != 0) {
		print_error("%s: %s\n", sql, mysql_error(conn));
		return -1;
	}
	res = mysql_store_result(conn);
	if (res)
		mysql_free_result(res);
	return 0;
}

static int setup(void **state)
{
	const char *sock = getenv("AIRLOCK_TEST_MYSQL_SOCKET");
	static const char *const init[] = {
		"DROP DATABASE IF EXISTS " DB,
		"CREATE DATABASE " DB,
		"CREATE TABLE " DB ".seq (seq INT PRIMARY KEY)",
		"INSERT INTO " DB ".seq VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10),(11),(12),(13),(14),(15),(16),"
		"(17),(18),(19),(20),(21),(22),(23),(24),(25),(26),(27),(28),(29),(30)",
		"CREATE TABLE " DB ".items (id INT PRIMARY KEY, name VARCHAR(100), owner INT, note TEXT)",
		"INSERT INTO " DB ".items SELECT seq, CONCAT('item ', seq), seq % 10, IF(seq = 2, NULL, 'n') "
		"FROM " DB ".seq",
		"CREATE TABLE " DB ".big (id INT PRIMARY KEY, note TEXT)",
		"INSERT INTO " DB ".big SELECT seq, REPEAT('x', 3000) FROM " DB ".seq WHERE seq <= 15",
		"CREATE TABLE " DB ".nokey (id INT, note TEXT, UNIQUE KEY (id))",
		"CREATE TABLE " DB ".ukey (id INT, code VARCHAR(10) NOT NULL, note TEXT, UNIQUE KEY a_null (id), "
		"UNIQUE KEY (code))",
		"INSERT INTO " DB ".ukey VALUES (1, 'c1', 'a'), (NULL, 'c2', 'b')",
		"INSERT INTO " DB ".nokey VALUES (1, 'a'), (2, 'b')",
		"CREATE TABLE " DB ".`odd``name` (`k``ey` VARCHAR(20), n INT, v INT, PRIMARY KEY (n, `k``ey`))",
		"INSERT INTO " DB ".`odd``name` VALUES ('o''k\\\\', 1, 10), ('plain', 1, 20), ('o''k\\\\', 2, 30)",
	};

	(void)state;
	conn = mysql_init(NULL);
	if (!conn || !mysql_real_connect(conn, NULL, "root", NULL, NULL, 0, sock ? sock : "/run/mysqld/mysqld.sock",
					 CLIENT_FOUND_ROWS)) {
		if (conn)
			mysql_close(conn);
		conn = NULL;
		return 0;
	}
	for (size_t i = 0; i < sizeof(init) / sizeof(init[0]); i++)
		if (run(init[i]) < 0)
			return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (conn) {
		run("DROP DATABASE IF EXISTS " DB);
		mysql_close(conn);
	}
	return 0;
}

/*
 * What a dry run sent: the sample's rows (in order, NUL-separated in rows;
 * a pair's before and after, "" when null, each one of them) and whether
 * a plan came.
 */
struct sent {
	char rows[80 * 1024];
	size_t nrows, npairs, bytes;
	bool plan;
	char failed[512]; /* the message of an AIRLOCK_SAMPLE_FAILED notice; "" when none came */
};

static void put_sent(struct sent *out, size_t *at, const struct frame_str *s)
{
	assert_true(*at + s->len + 1 < sizeof(out->rows));
	memcpy(out->rows + *at, s->ptr, s->len);
	*at += s->len;
	out->rows[(*at)++] = '\0';
	out->bytes += s->len;
}

static void read_sent(struct runner_ctl *ctl, struct sent *out)
{
	size_t off = 0, used, at = 0;
	struct frame f;

	memset(out, 0, sizeof(*out));
	while (off < ctl->out.len) {
		struct frame_error e;

		assert_int_equal(frame_peek(ctl->out.data + off, ctl->out.len - off, FRAME_MAX_PAYLOAD, &f, &used),
				 FRAME_OK);
		off += used;
		if (f.type != FRAME_NOTICE)
			continue;
		assert_int_equal(frame_decode_error(&f, &e), FRAME_OK);
		if (e.code.len == strlen(FRAME_PLAN_CODE) && !memcmp(e.code.ptr, FRAME_PLAN_CODE, e.code.len))
			out->plan = true;
		if (e.code.len == strlen(FRAME_SAMPLE_FAILED_CODE) &&
		    !memcmp(e.code.ptr, FRAME_SAMPLE_FAILED_CODE, e.code.len))
			snprintf(out->failed, sizeof(out->failed), "%.*s", (int)e.message.len, e.message.ptr);
		if (e.code.len == strlen(FRAME_SAMPLE_PAIR_CODE) &&
		    !memcmp(e.code.ptr, FRAME_SAMPLE_PAIR_CODE, e.code.len)) {
			put_sent(out, &at, &e.message);
			put_sent(out, &at, &e.detail);
			out->nrows += 2;
			out->npairs++;
			continue;
		}
		if (e.code.len != strlen(FRAME_SAMPLE_CODE) || memcmp(e.code.ptr, FRAME_SAMPLE_CODE, e.code.len))
			continue;
		put_sent(out, &at, &e.message);
		out->nrows++;
	}
}

/* The row i of what was sent. */
static const char *row_at(const struct sent *s, size_t i)
{
	const char *p = s->rows;

	assert_true(i < s->nrows);
	while (i--)
		p += strlen(p) + 1;
	return p;
}

/*
 * Dry-runs sql (the variant) with plan (the text that runs), or an UPDATE
 * with read (its sample_read); returns how it ended, rows in *rows.
 */
static enum my_write_end dry_read(const char *sql, const char *plan, const char *read, bool check, bool sample,
				  struct sent *out, uint64_t *rows)
{
	struct runner_job job;
	struct runner_ctl ctl = {.fd = -1};
	enum my_write_end e;

	runner_job_init(&job);
	job.sql = (char *)sql;
	job.plan_sql = (char *)plan;
	job.write = RUNNER_WRITE_DRY;
	job.write_max = 100;
	job.have_write_max = true;
	job.write_check = check;
	job.sample = sample;
	job.sample_read = (char *)read;
	wbuf_init(&ctl.out);
	e = my_write_run(conn, &job, &ctl, rows);
	read_sent(&ctl, out);
	wbuf_free(&ctl.out);
	return e;
}

static enum my_write_end dry(const char *sql, const char *plan, bool check, bool sample, struct sent *out,
			     uint64_t *rows)
{
	return dry_read(sql, plan, NULL, check, sample, out, rows);
}

static long count(const char *where)
{
	char sql[256];
	MYSQL_RES *res;
	MYSQL_ROW row;
	long n;

	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM " DB ".items WHERE %s", where);
	assert_int_equal(mysql_query(conn, sql), 0);
	res = mysql_store_result(conn);
	assert_non_null(res);
	row = mysql_fetch_row(res);
	n = atol(row[0]);
	mysql_free_result(res);
	return n;
}

static void test_delete_sample(void **state)
{
	static struct sent s;
	uint64_t rows = 0;

	(void)state;
	if (!conn)
		skip();
	assert_int_equal(dry("DELETE FROM " DB ".items WHERE id <= 3\nRETURNING *",
			     "DELETE FROM " DB ".items WHERE id <= 3", false, true, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 3);
	assert_true(s.plan);
	assert_int_equal(s.nrows, 3);
	assert_string_equal(row_at(&s, 0), "{\"id\":\"1\",\"name\":\"item 1\",\"owner\":\"1\",\"note\":\"n\"}");
	assert_string_equal(row_at(&s, 1), "{\"id\":\"2\",\"name\":\"item 2\",\"owner\":\"2\",\"note\":null}");
	assert_int_equal(count("1"), 30);
	/* Past 20 rows the rest are counted, not sent. */
	assert_int_equal(
		dry("DELETE FROM " DB ".items\nRETURNING *", "DELETE FROM " DB ".items", false, true, &s, &rows),
		MY_WRITE_OK);
	assert_int_equal(rows, 30);
	assert_int_equal(s.nrows, 20);
	assert_int_equal(count("1"), 30);
	/* Rows of 3 kB: the sample stops before 32 kB. */
	assert_int_equal(dry("DELETE FROM " DB ".big\nRETURNING *", "DELETE FROM " DB ".big", false, true, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 15);
	assert_true(s.nrows >= 9 && s.nrows < 15);
	assert_true(s.bytes <= MY_SAMPLE_BYTES);
}

static void test_insert_sample(void **state)
{
	static struct sent s;
	uint64_t rows = 0;

	(void)state;
	if (!conn)
		skip();
	assert_int_equal(dry("INSERT INTO " DB ".items VALUES (100, 'a\\Z\\n\xe2\x80\xae', 3, NULL), (101, 'b', 4, 'x')"
			     "\nRETURNING *",
			     "INSERT INTO " DB ".items VALUES (100, 'a', 3, NULL), (101, 'b', 4, 'x')", false, true, &s,
			     &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 2);
	assert_int_equal(s.nrows, 2);
	assert_string_equal(row_at(&s, 0),
			    "{\"id\":\"100\",\"name\":\"a\\u001a\\u000a\xe2\x80\xae\",\"owner\":\"3\",\"note\":null}");
	assert_string_equal(row_at(&s, 1), "{\"id\":\"101\",\"name\":\"b\",\"owner\":\"4\",\"note\":\"x\"}");
	/* A filtered table's check is the first column, not part of the row. */
	assert_int_equal(dry("INSERT INTO " DB
			     ".items VALUES (102, 'c', 3, NULL) RETURNING ((owner <= 5) IS TRUE)\n, `" DB "`.`items`.*",
			     "INSERT INTO " DB ".items VALUES (102, 'c', 3, NULL) RETURNING ((owner <= 5) IS TRUE)",
			     true, true, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 1);
	assert_int_equal(s.nrows, 1);
	assert_string_equal(row_at(&s, 0), "{\"id\":\"102\",\"name\":\"c\",\"owner\":\"3\",\"note\":null}");
	/* A row the filter hides still fails the write. */
	assert_int_equal(dry("INSERT INTO " DB
			     ".items VALUES (103, 'd', 9, NULL) RETURNING ((owner <= 5) IS TRUE)\n, `" DB "`.`items`.*",
			     NULL, true, true, &s, &rows),
			 MY_WRITE_CHECK);
	assert_int_equal(count("id >= 100"), 0);
}

#define ITEM(id, owner, note) "{\"id\":\"" id "\",\"name\":\"item " id "\",\"owner\":\"" owner "\",\"note\":" note "}"

/* An UPDATE dry-run with its read: each row before, then as the UPDATE left it, by primary key. */
static void test_update_pairs(void **state)
{
	static struct sent s;
	uint64_t rows = 0;

	(void)state;
	if (!conn)
		skip();
	assert_int_equal(dry_read("UPDATE " DB ".items AS i SET note = 'y', owner = owner + 100 WHERE i.id <= 3", NULL,
				  "SELECT * FROM `" DB "`.`items` AS i WHERE i.id <= 3\nLIMIT 20", false, false, &s,
				  &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 3);
	assert_true(s.plan);
	assert_int_equal(s.npairs, 3);
	assert_string_equal(row_at(&s, 0), ITEM("1", "1", "\"n\""));
	assert_string_equal(row_at(&s, 1), ITEM("1", "101", "\"y\""));
	assert_string_equal(row_at(&s, 2), ITEM("2", "2", "null"));
	assert_string_equal(row_at(&s, 3), ITEM("2", "102", "\"y\""));
	assert_string_equal(row_at(&s, 5), ITEM("3", "103", "\"y\""));
	assert_int_equal(count("note = 'y' OR owner > 100"), 0);
	/* The filter joined to the WHERE: the rows it hides are neither read nor updated. */
	assert_int_equal(dry_read("UPDATE " DB ".items SET note = 'z' WHERE (id <= 12) AND (owner <= 5)", NULL,
				  "SELECT * FROM " DB ".items WHERE (id <= 12) AND (owner <= 5)\nLIMIT 20", false,
				  false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 8);
	assert_int_equal(s.npairs, 8);
	for (size_t i = 0; i < s.nrows; i++) {
		assert_null(strstr(row_at(&s, i), "\"owner\":\"6\""));
		assert_null(strstr(row_at(&s, i), "\"owner\":\"9\""));
	}
	assert_string_equal(row_at(&s, 13), ITEM("11", "1", "\"z\""));
	/* ORDER BY and LIMIT: the same rows in the same order. */
	assert_int_equal(dry_read("UPDATE " DB ".items SET note = 'o' ORDER BY id DESC LIMIT 3", NULL,
				  "SELECT * FROM " DB ".items ORDER BY id DESC \nLIMIT 3", false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 3);
	assert_int_equal(s.npairs, 3);
	assert_string_equal(row_at(&s, 0), ITEM("30", "0", "\"n\""));
	assert_string_equal(row_at(&s, 1), ITEM("30", "0", "\"o\""));
	assert_string_equal(row_at(&s, 5), ITEM("28", "8", "\"o\""));
	assert_int_equal(count("note IN ('z', 'o')"), 0);
}

/* A key of two columns with odd names and values; a key the UPDATE changes, and no key: after is null. */
static void test_update_pairs_keys(void **state)
{
	static struct sent s;
	uint64_t rows = 0;

	(void)state;
	if (!conn)
		skip();
	assert_int_equal(dry_read("UPDATE " DB ".`odd``name` SET v = v + 1 WHERE v < 30", NULL,
				  "SELECT * FROM " DB ".`odd``name` WHERE v < 30 ORDER BY v\nLIMIT 20", false, false,
				  &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 2);
	assert_int_equal(s.npairs, 2);
	assert_string_equal(row_at(&s, 0), "{\"k`ey\":\"o'k\\\\\",\"n\":\"1\",\"v\":\"10\"}");
	assert_string_equal(row_at(&s, 1), "{\"k`ey\":\"o'k\\\\\",\"n\":\"1\",\"v\":\"11\"}");
	assert_string_equal(row_at(&s, 3), "{\"k`ey\":\"plain\",\"n\":\"1\",\"v\":\"21\"}");
	/* Under NO_BACKSLASH_ESCAPES the key's backslash is escaped as that mode reads it. */
	assert_int_equal(run("SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES'"), 0);
	assert_int_equal(dry_read("UPDATE " DB ".`odd``name` SET v = v + 1 WHERE v = 10", NULL,
				  "SELECT * FROM " DB ".`odd``name` WHERE v = 10\nLIMIT 20", false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(run("SET SESSION sql_mode = DEFAULT"), 0);
	assert_int_equal(s.npairs, 1);
	assert_string_equal(row_at(&s, 1), "{\"k`ey\":\"o'k\\\\\",\"n\":\"1\",\"v\":\"11\"}");
	/* The UPDATE moves the row's key: it is not found again. */
	assert_int_equal(dry_read("UPDATE " DB ".`odd``name` SET n = n + 10 WHERE v = 30", NULL,
				  "SELECT * FROM " DB ".`odd``name` WHERE v = 30\nLIMIT 20", false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 1);
	assert_int_equal(s.npairs, 1);
	assert_string_equal(row_at(&s, 1), "");
	/* Without a primary key, by the unique key whose columns are NOT NULL. */
	assert_int_equal(dry_read("UPDATE " DB ".ukey SET note = 'u'", NULL,
				  "SELECT * FROM " DB ".ukey ORDER BY code\nLIMIT 20", false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(s.npairs, 2);
	assert_string_equal(row_at(&s, 1), "{\"id\":\"1\",\"code\":\"c1\",\"note\":\"u\"}");
	assert_string_equal(row_at(&s, 3), "{\"id\":null,\"code\":\"c2\",\"note\":\"u\"}");
	/* Without a key that finds one row (a unique key of a column that may be NULL): after null. */
	assert_int_equal(dry_read("UPDATE " DB ".nokey SET note = 'c'", NULL, "SELECT * FROM " DB ".nokey\nLIMIT 20",
				  false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 2);
	assert_int_equal(s.npairs, 2);
	assert_string_equal(row_at(&s, 0), "{\"id\":\"1\",\"note\":\"a\"}");
	assert_string_equal(row_at(&s, 1), "");
	assert_string_equal(s.failed, "");
	/* A read that fails: the UPDATE is still dry-run and counted, with no sample and the database's reason. */
	assert_int_equal(dry_read("UPDATE " DB ".nokey SET note = 'c'", NULL, "SELECT * FROM " DB ".nothere", false,
				  false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 2);
	assert_int_equal(s.npairs, 0);
	assert_non_null(strstr(s.failed, "nothere"));
}

/* 20 pairs at most, within 32 kB; the count is the UPDATE's own. */
static void test_update_pairs_caps(void **state)
{
	static struct sent s;
	uint64_t rows = 0;

	(void)state;
	if (!conn)
		skip();
	assert_int_equal(dry_read("UPDATE " DB ".items SET note = 'all'", NULL, "SELECT * FROM " DB ".items\nLIMIT 20",
				  false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 30);
	assert_int_equal(s.npairs, 20);
	assert_int_equal(count("note = 'all'"), 0);
	/* Rows of 3 kB, each twice: the sample stops before 32 kB. */
	assert_int_equal(dry_read("UPDATE " DB ".big SET note = REPEAT('y', 3001)", NULL,
				  "SELECT * FROM " DB ".big\nLIMIT 20", false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 15);
	assert_true(s.npairs >= 4 && s.npairs < 15);
	assert_true(s.bytes <= MY_SAMPLE_BYTES);
	assert_non_null(strstr(row_at(&s, 1), "yyy"));
}

/* An UPDATE without its read: dry-run as it will run, counted, no sample. */
static void test_update_counts_only(void **state)
{
	static struct sent s;
	uint64_t rows = 0;

	(void)state;
	if (!conn)
		skip();
	assert_int_equal(dry("UPDATE " DB ".items SET note = 'y' WHERE id <= 4", NULL, false, false, &s, &rows),
			 MY_WRITE_OK);
	assert_int_equal(rows, 4);
	assert_int_equal(s.nrows, 0);
	assert_true(s.plan);
	assert_int_equal(count("note = 'y'"), 0);
	/* Rows returned to a job without a sample or a check: never run on. */
	assert_int_equal(dry("DELETE FROM " DB ".items WHERE id = 1\nRETURNING *", NULL, false, false, &s, &rows),
			 MY_WRITE_CHECK);
	assert_int_equal(count("1"), 30);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_text),          cmocka_unit_test(test_json_row),
		cmocka_unit_test(test_delete_sample),      cmocka_unit_test(test_insert_sample),
		cmocka_unit_test(test_update_counts_only), cmocka_unit_test(test_update_pairs),
		cmocka_unit_test(test_update_pairs_keys),  cmocka_unit_test(test_update_pairs_caps),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
