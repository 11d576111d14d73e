/*
 * test_runner_job: the job frame read into a struct: every key checked,
 * the result formats, describe, type_check and hidden_keys keys, and what
 * an engine may not take.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner_job.h"

/* Builds a 'J' frame of n key/value pairs and parses it into job. */
static int parse_pairs(struct runner_job *job, const char *const *kv, size_t n, char *why, size_t why_len)
{
	static struct frame_job fj;
	struct wbuf b;
	struct frame f;
	size_t used;
	int rc;

	wbuf_init(&b);
	frame_begin(&b, FRAME_JOB);
	frame_put_u16(&b, (uint16_t)n);
	for (size_t i = 0; i < n; i++) {
		frame_put_cstr(&b, kv[2 * i]);
		frame_put_cstr(&b, kv[2 * i + 1]);
	}
	frame_end(&b);
	assert_false(b.failed);
	assert_int_equal(frame_peek(b.data, b.len, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
	assert_int_equal(frame_decode_job(&f, &fj), FRAME_OK);
	rc = runner_job_parse(&fj, job, why, why_len);
	wbuf_free(&b);
	return rc;
}

#define BASE                                                                                                           \
	"engine", "postgres", "dbname", "shop", "user", "u", "password", "p", "sql", "SELECT 1", "timeout_ms", "1000", \
		"max_rows", "10", "max_bytes", "1000"
#define NBASE 8

static void test_formats(void **state)
{
	const char *const one[] = {BASE, "formats", "1"};
	const char *const mixed[] = {BASE, "formats", "0110"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, one, NBASE + 1, why, sizeof(why)), 0);
	assert_string_equal(job.formats, "1");
	assert_false(job.describe);
	assert_true(runner_job_complete(&job));
	runner_job_free(&job);

	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, mixed, NBASE + 1, why, sizeof(why)), 0);
	assert_string_equal(job.formats, "0110");
	runner_job_free(&job);
	assert_null(job.formats);
}

static void test_bad_formats(void **state)
{
	static const char *const bad[] = {"", "2", "01a", "0 1", "-1"};
	struct runner_job job;
	char why[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const kv[] = {BASE, "formats", bad[i]};

		runner_job_init(&job);
		assert_int_equal(parse_pairs(&job, kv, NBASE + 1, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "formats"));
		assert_null(job.sql); /* freed on failure */
	}
}

static void test_too_many_formats(void **state)
{
	static char many[FRAME_MAX_COLS + 2];
	const char *const kv[] = {BASE, "formats", many};
	struct runner_job job;
	char why[128];

	(void)state;
	memset(many, '1', FRAME_MAX_COLS + 1);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, kv, NBASE + 1, why, sizeof(why)), -1);
	many[FRAME_MAX_COLS] = '\0';
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, kv, NBASE + 1, why, sizeof(why)), 0);
	runner_job_free(&job);
}

static void test_describe(void **state)
{
	const char *const ok[] = {BASE, "describe", "1"};
	const char *const bad[] = {BASE, "describe", "yes"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, ok, NBASE + 1, why, sizeof(why)), 0);
	assert_true(job.describe);
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, bad, NBASE + 1, why, sizeof(why)), -1);
}

/* TLS: a known mode and a host, both or neither; a mode the runner does not know fails the job. */
static void test_tls(void **state)
{
	const char *const ok[] = {BASE, "tls", "verify-full", "tls_host", "db.example"};
	const char *const no_host[] = {BASE, "tls", "require"};
	const char *const bad[] = {BASE, "tls", "prefer", "tls_host", "db.example"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, ok, NBASE + 2, why, sizeof(why)), 0);
	assert_string_equal(job.tls, "verify-full");
	assert_string_equal(job.tls_host, "db.example");
	assert_true(runner_job_can_connect(&job));
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, no_host, NBASE + 1, why, sizeof(why)), 0);
	assert_false(runner_job_can_connect(&job));
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, bad, NBASE + 2, why, sizeof(why)), -1);
}

static void test_mariadb_refuses_formats_takes_describe(void **state)
{
	const char *const formats[] = {"engine",   "mariadb", "dbname",    "shop",     "user",       "u",
				       "password", "p",       "sql",       "SELECT 1", "timeout_ms", "1000",
				       "max_rows", "10",      "max_bytes", "1000",     "formats",    "1"};
	const char *const describe[] = {"engine",   "mariadb", "dbname",    "shop",     "user",       "u",
					"password", "p",       "sql",       "SELECT 1", "timeout_ms", "1000",
					"max_rows", "10",      "max_bytes", "1000",     "describe",   "1"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, formats, 9, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "mariadb"));
	/* A MySQL describe job prepares without executing (COM_STMT_PREPARE's columns). */
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, describe, 9, why, sizeof(why)), 0);
	assert_true(job.describe);
	runner_job_free(&job);
}

/* max_cost: both engines take it (MariaDB checks it with Last_query_cost, runner_my_cost.h). */
static void test_mariadb_takes_max_cost(void **state)
{
	const char *const ok[] = {"engine",   "mariadb", "dbname",    "shop",     "user",       "u",
				  "password", "p",       "sql",       "SELECT 1", "timeout_ms", "1000",
				  "max_rows", "10",      "max_bytes", "1000",     "max_cost",   "1000000"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, ok, 9, why, sizeof(why)), 0);
	assert_true(job.have_cost);
	assert_int_equal(job.max_cost, 1000000);
	runner_job_free(&job);
}

/* The parameter types' check: one read, for Postgres only. */
static void test_type_check(void **state)
{
	const char *const ok[] = {BASE, "type_check", "SELECT 1"};
	const char *const maria[] = {"engine",   "mariadb", "dbname",    "shop",     "user",       "u",
				     "password", "p",       "sql",       "SELECT 1", "timeout_ms", "1000",
				     "max_rows", "10",      "max_bytes", "1000",     "type_check", "SELECT 1"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, ok, NBASE + 1, why, sizeof(why)), 0);
	assert_string_equal(job.type_check, "SELECT 1");
	runner_job_free(&job);
	assert_null(job.type_check);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, maria, 9, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "mariadb"));
}

/*
 * A MariaDB write: dry or run with its bound and check; a dry run's sample
 * with the plan of the text that will run, or an UPDATE's with the read
 * of its rows (sample_read); never rows for the client.
 */
static void test_mariadb_write(void **state)
{
#define MARIA                                                                                             \
	"engine", "mariadb", "dbname", "shop", "user", "u", "password", "p", "sql", "UPDATE t SET a = 1", \
		"timeout_ms", "1000", "max_rows", "10", "max_bytes", "1000"
	const char *const dry[] = {MARIA, "write", "dry", "write_max", "100", "write_check", "1"};
	const char *const sample[] = {MARIA,    "write", "dry",      "write_max",    "5",
				      "sample", "1",     "plan_sql", "DELETE FROM t"};
	const char *const read[] = {MARIA, "write", "dry", "write_max", "5", "sample_read", "SELECT * FROM t"};
	const char *const bad[][24] = {
		{MARIA, "write", "run", "write_max", "5", "sample", "1"},
		{MARIA, "write", "run", "write_max", "5", "sample_read", "SELECT * FROM t"},
		{MARIA, "write", "dry", "write_max", "5", "sample_read", "SELECT * FROM t", "sample", "1"},
		{MARIA, "write", "dry", "write_max", "5", "sample_read", "SELECT * FROM t", "write_check", "1"},
		{MARIA, "sample_read", "SELECT * FROM t"},
		{MARIA, "write", "dry", "write_max", "5", "plan_sql", "DELETE FROM t"},
		{MARIA, "plan_sql", "DELETE FROM t"},
		{MARIA, "sample", "1"},
	};
	const char *const returning[] = {MARIA, "write", "run", "write_max", "5", "returning", "1"};
#undef MARIA
	struct runner_job job;
	char why[200];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, dry, 11, why, sizeof(why)), 0);
	assert_int_equal(job.write, RUNNER_WRITE_DRY);
	assert_true(job.write_check);
	assert_int_equal(job.write_max, 100);
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, sample, 12, why, sizeof(why)), 0);
	assert_true(job.sample);
	assert_string_equal(job.plan_sql, "DELETE FROM t");
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, read, 11, why, sizeof(why)), 0);
	assert_string_equal(job.sample_read, "SELECT * FROM t");
	assert_false(job.sample);
	runner_job_free(&job);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t n = 0;

		while (n < 24 && bad[i][n])
			n++;
		runner_job_init(&job);
		assert_int_equal(parse_pairs(&job, bad[i], n / 2, why, sizeof(why)), -1);
	}
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, returning, 11, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "mariadb"));
}

/* An EXPLAIN's hidden keys: one read, for MariaDB only. */
static void test_hidden_keys(void **state)
{
	const char *const pg[] = {BASE, "hidden_keys", "SELECT 1"};
	const char *const pg_read[] = {BASE, "write", "dry", "write_max", "5", "sample_read", "SELECT 1"};
	const char *const maria[] = {"engine",     "mariadb",     "dbname",   "shop",         "user",
				     "u",          "password",    "p",        "sql",          "SELECT 1",
				     "timeout_ms", "1000",        "max_rows", "10",           "max_bytes",
				     "1000",       "hidden_keys", "SELECT 1", "set.sql_mode", "ANSI"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, maria, 10, why, sizeof(why)), 0);
	assert_string_equal(job.hidden_keys, "SELECT 1");
	runner_job_free(&job);
	assert_null(job.hidden_keys);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, pg, NBASE + 1, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "hidden_keys"));
	/* An UPDATE's read of its rows is MariaDB's too: Postgres returns them. */
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, pg_read, NBASE + 3, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "sample_read"));
}

/*
 * A write: dry or run, its row bound, its check and returning flags; alone, never with a cost or formats;
 * a sample (with the plan's text) only for a dry run that returns nothing to the client.
 */
static void test_write(void **state)
{
	const char *const dry[] = {BASE, "write", "dry", "write_max", "100", "write_check", "1", "returning", "1"};
	const char *const run[] = {BASE, "write", "run", "write_max", "3"};
	const char *const sample[] = {BASE,     "write", "dry",      "write_max",         "5",
				      "sample", "1",     "plan_sql", "UPDATE t SET a = 1"};
	const char *const bad[][NBASE * 2 + 8] = {
		{BASE, "write", "dry"},
		{BASE, "write_max", "3"},
		{BASE, "write", "maybe", "write_max", "3"},
		{BASE, "write", "run", "write_max", "-1"},
		{BASE, "write", "run", "write_max", "3", "describe", "1"},
		{BASE, "write", "run", "write_max", "3", "max_cost", "10"},
		{BASE, "write", "run", "write_max", "3", "formats", "1"},
		{BASE, "write_check", "1"},
		{BASE, "returning", "1"},
		{BASE, "write", "run", "write_max", "3", "returning", "yes"},
		{BASE, "sample", "1"},
		{BASE, "write", "run", "write_max", "3", "sample", "1"},
		{BASE, "write", "dry", "write_max", "3", "sample", "1", "returning", "1"},
		{BASE, "write", "dry", "write_max", "3", "sample", "yes"},
		{BASE, "write", "dry", "write_max", "3", "plan_sql", "UPDATE t SET a = 1"},
		{BASE, "write", "dry", "write_max", "3", "sample", "1", "plan_tables", "public.*"},
	};
	const size_t nbad[] = {1, 1, 2, 2, 3, 3, 3, 1, 1, 3, 1, 3, 4, 3, 3, 4};
	struct runner_job job;
	char why[160];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, dry, NBASE + 4, why, sizeof(why)), 0);
	assert_int_equal(job.write, RUNNER_WRITE_DRY);
	assert_int_equal(job.write_max, 100);
	assert_true(job.write_check);
	assert_true(job.returning);
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, run, NBASE + 2, why, sizeof(why)), 0);
	assert_int_equal(job.write, RUNNER_WRITE_RUN);
	assert_int_equal(job.write_max, 3);
	assert_false(job.write_check);
	assert_false(job.sample);
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, sample, NBASE + 4, why, sizeof(why)), 0);
	assert_true(job.sample);
	assert_string_equal(job.plan_sql, "UPDATE t SET a = 1");
	runner_job_free(&job);
	for (size_t i = 0; i < sizeof(nbad) / sizeof(nbad[0]); i++) {
		runner_job_init(&job);
		if (parse_pairs(&job, bad[i], NBASE + nbad[i], why, sizeof(why)) != -1)
			fail_msg("case %zu parsed", i);
	}
}

static void test_unknown_key_and_denied_setting(void **state)
{
	const char *const unknown[] = {BASE, "max_cpu", "1"};
	const char *const denied[] = {BASE, "set.statement_timeout", "0"};
	const char *const allowed[] = {BASE, "set.search_path", "public"};
	struct runner_job job;
	char why[128];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, unknown, NBASE + 1, why, sizeof(why)), -1);
	assert_string_equal(why, "unknown job key");
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, denied, NBASE + 1, why, sizeof(why)), -1);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, allowed, NBASE + 1, why, sizeof(why)), 0);
	assert_string_equal(runner_job_setting(&job, "search_path"), "public");
	runner_job_free(&job);
}

static void test_backend_memory(void **state)
{
	const char *const ok[] = {BASE, "backend_memory_mb", "256"};
	const char *const small[] = {BASE, "backend_memory_mb", "15"};
	const char *const big[] = {BASE, "backend_memory_mb", "65537"};
	/* The bounds derived from backend_memory_mb are the runner's: a session setting may not carry them. */
	const char *const derived[] = {"work_mem", "hash_mem_multiplier", "max_parallel_workers_per_gather",
				       "temp_file_limit"};
	struct runner_job job;
	char why[128], key[64];

	(void)state;
	runner_job_init(&job);
	assert_int_equal(job.backend_memory_mb, 0);
	assert_int_equal(parse_pairs(&job, ok, NBASE + 1, why, sizeof(why)), 0);
	assert_int_equal(job.backend_memory_mb, 256);
	runner_job_free(&job);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, small, NBASE + 1, why, sizeof(why)), -1);
	runner_job_init(&job);
	assert_int_equal(parse_pairs(&job, big, NBASE + 1, why, sizeof(why)), -1);
	for (size_t i = 0; i < sizeof(derived) / sizeof(derived[0]); i++) {
		const char *const kv[] = {BASE, key, "1GB"};

		snprintf(key, sizeof(key), "set.%s", derived[i]);
		runner_job_init(&job);
		assert_int_equal(parse_pairs(&job, kv, NBASE + 1, why, sizeof(why)), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_bad_formats),
		cmocka_unit_test(test_too_many_formats),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_tls),
		cmocka_unit_test(test_mariadb_refuses_formats_takes_describe),
		cmocka_unit_test(test_mariadb_write),
		cmocka_unit_test(test_mariadb_takes_max_cost),
		cmocka_unit_test(test_type_check),
		cmocka_unit_test(test_hidden_keys),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_unknown_key_and_denied_setting),
		cmocka_unit_test(test_backend_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
