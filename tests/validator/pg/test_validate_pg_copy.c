/* Tests for the validator's COPY ... TO STDOUT: the read found and validated, the options rewritten. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "validator/pg/validate_pg.h"

static const char *const tables[] = {"public.orders", "public.customers", "pg_catalog.*"};
static const char *const path[] = {"public"};
static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = 3,
	.search_path = path,
	.nsearch_path = 1,
};

static void assert_query(const char *sql, const char *query, const char *options)
{
	struct pgv_result v;

	assert_int_equal(pgv_validate(&policy, sql, &v), PGV_COPY_OUT);
	assert_string_equal(v.copy_query, "");
	assert_int_equal(v.query_len, strlen(query));
	assert_memory_equal(sql + v.query_offset, query, v.query_len);
	assert_string_equal(v.copy_options, options);
}

static void test_query_form(void **state)
{
	(void)state;
	assert_query("COPY (SELECT id FROM orders) TO STDOUT", "SELECT id FROM orders", "");
	assert_query("copy ( select '(' || note || ')' from orders /* ) */ where id = (1) -- )\n) to stdout csv",
		     " select '(' || note || ')' from orders /* ) */ where id = (1) -- )\n", " (FORMAT 'csv')");
	assert_query("COPY /* x */ (SELECT $$)$$) TO STDOUT WITH (FORMAT csv, HEADER, DELIMITER ';')", "SELECT $$)$$",
		     " (FORMAT 'csv', HEADER true, DELIMITER ';')");
	assert_query("COPY (VALUES (1)) TO STDOUT WITH csv header force quote *", "VALUES (1)",
		     " (FORMAT 'csv', HEADER true, FORCE_QUOTE *)");
	assert_query("COPY (SELECT 1) TO STDOUT (NULL 'it''s', QUOTE '\"', ESCAPE '\\', ENCODING 'UTF8', HEADER false)",
		     "SELECT 1", " (NULL 'it''s', QUOTE '\"', ESCAPE '\\', ENCODING 'UTF8', HEADER false)");
}

static void test_table_form(void **state)
{
	struct pgv_result v;

	(void)state;
	assert_int_equal(pgv_validate(&policy, "COPY orders TO STDOUT", &v), PGV_COPY_OUT);
	assert_string_equal(v.copy_query, "SELECT * FROM ONLY \"orders\"");
	assert_false(v.copy_header);
	assert_int_equal(pgv_validate(&policy, "COPY orders TO STDOUT CSV HEADER", &v), PGV_COPY_OUT);
	assert_true(v.copy_header);
	assert_int_equal(pgv_validate(&policy, "COPY public.orders (id, \"No\"\"te\") TO STDOUT (FORMAT binary)", &v),
			 PGV_COPY_OUT);
	assert_string_equal(v.copy_query, "SELECT \"id\", \"No\"\"te\" FROM ONLY \"public\".\"orders\"");
	assert_string_equal(v.copy_options, " (FORMAT 'binary')");
	assert_int_equal(pgv_validate(&policy, "COPY orders TO STDOUT (FORCE_QUOTE (note, id))", &v), PGV_COPY_OUT);
	assert_string_equal(v.copy_options, " (FORCE_QUOTE (\"note\", \"id\"))");
}

static void test_refused(void **state)
{
	static const char *const refused[] = {
		"COPY orders FROM STDIN",
		"COPY orders TO '/tmp/x'",
		"COPY orders TO PROGRAM 'id'",
		"COPY (SELECT 1) TO '/tmp/x'",
		"COPY (SELECT 1) TO STDOUT (FORMAT xml)",
		"COPY (SELECT 1) TO STDOUT (FREEZE)",
		"COPY (SELECT 1) TO STDOUT (FORCE_NOT_NULL (a))",
		"COPY (SELECT 1) TO STDOUT (HEADER match)",
		"COPY (SELECT 1) TO STDOUT (DELIMITER 1)",
	};
	struct pgv_result v;

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_int_equal(pgv_validate(&policy, refused[i], &v), PGV_REFUSED);
		assert_true(v.message[0]);
	}
}

static void test_the_read_is_checked(void **state)
{
	struct pgv_result v;

	(void)state;
	/* The read passes every check a plain SELECT passes. */
	assert_int_equal(pgv_validate(&policy, "COPY staff_salaries TO STDOUT", &v), PGV_REFUSED);
	assert_string_equal(v.sqlstate, "42501");
	assert_int_equal(v.cursor_pos, 0);
	assert_int_equal(pgv_validate(&policy, "COPY (SELECT * FROM staff_salaries) TO STDOUT", &v), PGV_REFUSED);
	assert_string_equal(v.sqlstate, "42501");
	assert_int_equal(v.cursor_pos, 21); /* where staff_salaries is in the whole text */
	assert_int_equal(pgv_validate(&policy, "COPY (SELECT pg_read_file('/etc/passwd')) TO STDOUT", &v), PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy, "COPY (DELETE FROM orders RETURNING *) TO STDOUT", &v), PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy, "COPY (EXPLAIN SELECT 1) TO STDOUT", &v), PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy, "COPY (SELECT id FROM orders FOR UPDATE) TO STDOUT", &v), PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy,
				      "COPY (WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d) TO STDOUT",
				      &v),
			 PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy, "COPY (SELECT 1) TO STDOUT; DELETE FROM orders", &v), PGV_REFUSED);
	assert_string_equal(v.sqlstate, "42601");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_form),
		cmocka_unit_test(test_table_form),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_the_read_is_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
