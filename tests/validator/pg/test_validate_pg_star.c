/* Tests for forbid_select_star on Postgres: which stars reach the result, and the read the hint describes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "validator/pg/validate_pg.h"

static const char *const tables[] = {"public.orders", "public.customers", "shop.items", "pg_catalog.*"};
static const char *const path[] = {"public"};
static const struct pgv_policy forbid = {
	.tables = tables,
	.ntables = 4,
	.search_path = path,
	.nsearch_path = 1,
	.forbid_star = true,
};
static const struct pgv_policy allow = {
	.tables = tables,
	.ntables = 4,
	.search_path = path,
	.nsearch_path = 1,
};

static void assert_star(const char *sql)
{
	struct pgv_result v;

	if (pgv_validate(&forbid, sql, &v) != PGV_REFUSED || v.code != AIRLOCK_E_SELECT_STAR)
		fail_msg("not refused as SELECT_STAR: %s (%s)", sql, v.message);
	assert_string_equal(v.sqlstate, "42501");
	assert_true(v.hint[0] != '\0');
	/* Without the key the same read runs. */
	if (pgv_validate(&allow, sql, &v) == PGV_REFUSED)
		fail_msg("refused without forbid_star: %s (%s)", sql, v.message);
}

static void assert_fine(const char *sql)
{
	struct pgv_result v;

	if (pgv_validate(&forbid, sql, &v) == PGV_REFUSED)
		fail_msg("refused: %s (%s)", sql, v.message);
}

static void test_stars_in_the_result(void **state)
{
	static const char *const refused[] = {
		"SELECT * FROM orders",
		"select * from public.orders where id = 1",
		"SELECT o.* FROM orders o",
		"SELECT id, o.* FROM orders o",
		"SELECT *, 1 AS one FROM orders",
		"TABLE orders",
		"SELECT DISTINCT * FROM orders",
		"SELECT * FROM orders LIMIT 1",
		"SELECT c.*, o.id FROM orders o JOIN customers c ON c.id = o.customer_id",
		"SELECT * FROM orders o JOIN customers c USING (id)",
		"SELECT * FROM shop.items",
		/* Each branch of a set operation gives the result's columns. */
		"SELECT id FROM orders UNION SELECT * FROM customers",
		"SELECT * FROM orders UNION ALL SELECT * FROM orders",
		"(SELECT id FROM orders) EXCEPT (SELECT * FROM customers)",
		"SELECT id FROM orders INTERSECT TABLE customers",
		/* An outer star over a CTE or a subquery is a star, whatever the inner names. */
		"WITH x AS (SELECT id FROM orders) SELECT * FROM x",
		"WITH x AS (SELECT * FROM orders) SELECT x.* FROM x",
		"SELECT * FROM (SELECT id, note FROM orders) s",
		"SELECT s.* FROM (SELECT * FROM orders) s",
		"SELECT * FROM orders, LATERAL (SELECT 1 AS one) l",
		/* A star inside an output column's expression. */
		"SELECT row_to_json(o.*) FROM orders o",
		"SELECT ROW(o.*) FROM orders o",
		"SELECT (o.*)::text FROM orders o",
		"SELECT coalesce(NULL, o.*) FROM orders o",
		"SELECT (o.note).* FROM orders o",
		"SELECT id, (orders).* FROM orders",
		/* A scalar or ARRAY subquery's columns are the column's value. */
		"SELECT (SELECT c.* FROM customers c LIMIT 1) FROM orders",
		"SELECT ARRAY(SELECT o FROM orders o)",
		"SELECT id, (SELECT to_json(c) FROM customers c WHERE c.id = o.customer_id) FROM orders o",
		/* Whole-row references. */
		"SELECT orders FROM orders",
		"SELECT o FROM orders o",
		"SELECT to_json(o) FROM orders o",
		"SELECT json_agg(orders) FROM orders",
		"SELECT public.orders FROM public.orders",
		"SELECT s FROM (SELECT id FROM orders) s",
		"SELECT j FROM (orders JOIN customers USING (id)) AS j",
		"SELECT x FROM orders AS x TABLESAMPLE SYSTEM (10)",
		"WITH w AS (SELECT id FROM orders) SELECT w FROM w",
		"SELECT (SELECT o FROM customers LIMIT 1) FROM orders o",
		/* The reads inside DECLARE and COPY are reads like any other. */
		"DECLARE c CURSOR FOR SELECT * FROM orders",
		"COPY (SELECT * FROM orders) TO STDOUT",
		"COPY orders TO STDOUT",
		"COPY (SELECT o FROM orders o) TO STDOUT",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_star(refused[i]);
}

static void test_stars_that_stay_inside(void **state)
{
	static const char *const fine[] = {
		"SELECT id, note FROM orders",
		"SELECT o.id, o.note FROM orders o",
		"SELECT count(*) FROM orders",
		"SELECT count(*) AS n, max(id) FROM orders",
		"SELECT count(o.*), count(o), pg_catalog.count(*) FROM orders o",
		"SELECT count(*) FILTER (WHERE o.* IS NOT NULL) FROM orders o",
		"SELECT id FROM orders WHERE EXISTS (SELECT * FROM customers)",
		"SELECT id FROM orders WHERE customer_id IN (SELECT * FROM (SELECT id FROM customers) c)",
		"SELECT EXISTS (SELECT * FROM customers)",
		"SELECT id = ANY (SELECT * FROM (SELECT id FROM customers) c) FROM orders",
		"SELECT id FROM (SELECT * FROM orders) s",
		"WITH x AS (SELECT * FROM orders) SELECT id, note FROM x",
		"SELECT a.id FROM (SELECT * FROM orders) a JOIN (SELECT * FROM customers) b ON a.id = b.id",
		"SELECT id FROM orders WHERE orders IS NOT NULL",
		"SELECT id FROM orders ORDER BY orders",
		"SELECT id FROM orders GROUP BY id, orders.*",
		"SELECT id, row_number() OVER (ORDER BY o) FROM orders o",
		"SELECT orders.id FROM orders",
		"SELECT id * 2, 3 * 4 FROM orders",
		"SELECT g FROM generate_series(1, 3) g",
		"SELECT 1",
		"VALUES (1, 2)",
		"EXPLAIN SELECT * FROM orders",
		"EXPLAIN (VERBOSE) TABLE orders",
		"DECLARE c CURSOR FOR SELECT id FROM orders",
		"COPY (SELECT id FROM orders) TO STDOUT",
		"COPY orders (id, note) TO STDOUT",
		"SHOW search_path",
		"SELECT relname FROM pg_class",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		assert_fine(fine[i]);
}

/* Any other refusal is reported before the star's, so the hint's describe of the read can run it. */
static void test_other_refusals_first(void **state)
{
	struct pgv_result v;

	(void)state;
	assert_int_equal(pgv_validate(&forbid, "SELECT * FROM secrets", &v), PGV_REFUSED);
	assert_int_equal(v.code, AIRLOCK_E_TABLE_NOT_ALLOWED);
	assert_int_equal(pgv_validate(&forbid, "SELECT *, pg_read_file('x') FROM orders", &v), PGV_REFUSED);
	assert_int_equal(v.code, AIRLOCK_E_FORBIDDEN_FUNCTION);
	assert_int_equal(pgv_validate(&forbid, "SELECT * FROM orders FOR UPDATE", &v), PGV_REFUSED);
	assert_int_equal(v.code, AIRLOCK_E_NOT_READ_ONLY);
	assert_int_equal(pgv_validate(&forbid, "SELECT * FROM orders; SELECT 1", &v), PGV_REFUSED);
	assert_int_equal(v.code, AIRLOCK_E_MULTI_STATEMENT);
}

/* What the proxy describes for the hint: the read itself, its span in a DECLARE or COPY, or a table's. */
static void test_the_read_described(void **state)
{
	struct pgv_result v;
	const char *sql;

	(void)state;
	assert_int_equal(pgv_validate(&forbid, "SELECT * FROM orders", &v), PGV_REFUSED);
	assert_string_equal(v.star_read, "");
	assert_int_equal(v.query_len, 0);
	assert_int_equal(v.cursor_pos, 8);

	sql = "DECLARE c CURSOR FOR SELECT o.* FROM orders o";
	assert_int_equal(pgv_validate(&forbid, sql, &v), PGV_REFUSED);
	assert_string_equal(v.star_read, "");
	assert_string_equal(sql + v.query_offset + strspn(sql + v.query_offset, " "), "SELECT o.* FROM orders o");
	assert_int_equal(v.query_len, strlen(sql + v.query_offset));

	sql = "COPY (SELECT * FROM customers) TO STDOUT CSV";
	assert_int_equal(pgv_validate(&forbid, sql, &v), PGV_REFUSED);
	assert_int_equal(v.code, AIRLOCK_E_SELECT_STAR);
	assert_int_equal(v.query_len, strlen("SELECT * FROM customers"));
	assert_memory_equal(sql + v.query_offset, "SELECT * FROM customers", v.query_len);
	assert_int_equal(v.cursor_pos, 14);

	assert_int_equal(pgv_validate(&forbid, "COPY orders TO STDOUT", &v), PGV_REFUSED);
	assert_string_equal(v.star_read, "SELECT * FROM ONLY \"orders\"");

	assert_int_equal(pgv_validate(&forbid, "SELECT to_json(x) FROM shop.items x", &v), PGV_REFUSED);
	assert_string_equal(v.star_read, "SELECT * FROM \"shop\".\"items\"");
	assert_non_null(strstr(v.message, "\"items\""));
	assert_int_equal(pgv_validate(&forbid, "SELECT s FROM (SELECT id FROM orders) s", &v), PGV_REFUSED);
	assert_string_equal(v.star_read, "");
}

/* Deep nesting in an output column: refused (or checked), never a crash. */
static void test_deep(void **state)
{
	static char sql[64 * 1024];
	struct pgv_result v;
	size_t n = 0;

	(void)state;
	n += (size_t)snprintf(sql + n, sizeof(sql) - n, "SELECT ");
	for (int i = 0; i < 3000; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "(");
	n += (size_t)snprintf(sql + n, sizeof(sql) - n, "o.*");
	for (int i = 0; i < 3000; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, ")");
	snprintf(sql + n, sizeof(sql) - n, " FROM orders o");
	assert_int_equal(pgv_validate(&forbid, sql, &v), PGV_REFUSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stars_in_the_result),
		cmocka_unit_test(test_stars_that_stay_inside),
		cmocka_unit_test(test_other_refusals_first),
		cmocka_unit_test(test_the_read_described),
		cmocka_unit_test(test_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
