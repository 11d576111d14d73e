/* Tests for the validator's cursor statements: DECLARE, FETCH, CLOSE. */
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

static void test_declare_ok(void **state)
{
	struct pgv_result v;
	const char *sql = "DECLARE \"c\" CURSOR WITHOUT HOLD FOR SELECT id FROM orders";

	assert_int_equal(pgv_validate(&policy, sql, &v), PGV_DECLARE);
	assert_string_equal(v.name, "c");
	assert_false(v.hold);
	assert_string_equal(sql + v.query_offset, " SELECT id FROM orders");

	sql = "declare /* a */ my_cur no scroll cursor with hold -- x\n for\tselect 1";
	assert_int_equal(pgv_validate(&policy, sql, &v), PGV_DECLARE);
	assert_string_equal(v.name, "my_cur");
	assert_true(v.hold);
	assert_string_equal(sql + v.query_offset, "\tselect 1");

	sql = "DECLARE \"a \"\"for\"\" b\" CURSOR FOR SELECT 2";
	assert_int_equal(pgv_validate(&policy, sql, &v), PGV_DECLARE);
	assert_string_equal(sql + v.query_offset, " SELECT 2");
}

static void test_declare_refused(void **state)
{
	struct pgv_result v;

	/* The cursor's query passes every check a plain SELECT passes. */
	assert_int_equal(pgv_validate(&policy, "DECLARE c CURSOR FOR SELECT * FROM staff_salaries", &v), PGV_REFUSED);
	assert_string_equal(v.sqlstate, "42501");
	assert_int_equal(pgv_validate(&policy, "DECLARE c CURSOR FOR SELECT pg_read_file('/etc/passwd')", &v),
			 PGV_REFUSED);
	assert_string_equal(v.sqlstate, "42501");
	assert_int_equal(pgv_validate(&policy, "DECLARE c CURSOR FOR SELECT id FROM orders FOR UPDATE", &v),
			 PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy, "DECLARE c BINARY CURSOR FOR SELECT 1", &v), PGV_REFUSED);
	assert_string_equal(v.sqlstate, "0A000");
	assert_int_equal(pgv_validate(&policy, "DECLARE c SCROLL CURSOR FOR SELECT 1", &v), PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy, "DECLARE c CURSOR FOR SELECT 1; DELETE FROM orders", &v), PGV_REFUSED);
	assert_string_equal(v.sqlstate, "42601");
	assert_int_equal(pgv_validate(&policy,
				      "DECLARE c CURSOR FOR WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
				      &v),
			 PGV_REFUSED);
	assert_string_equal(v.sqlstate, "25006");
}

static void test_fetch_close(void **state)
{
	struct pgv_result v;

	assert_int_equal(pgv_validate(&policy, "FETCH FORWARD 2000 FROM \"c\"", &v), PGV_FETCH);
	assert_string_equal(v.name, "c");
	assert_int_equal(v.count, 2000);
	assert_int_equal(pgv_validate(&policy, "FETCH c", &v), PGV_FETCH);
	assert_int_equal(v.count, 1);
	assert_int_equal(pgv_validate(&policy, "FETCH ALL FROM c", &v), PGV_FETCH);
	assert_true(v.count > 1000000);
	assert_int_equal(pgv_validate(&policy, "FETCH BACKWARD 1 FROM c", &v), PGV_REFUSED);
	assert_false(v.move);
	assert_int_equal(pgv_validate(&policy, "MOVE 3 IN c", &v), PGV_FETCH);
	assert_true(v.move);
	assert_int_equal(v.count, 3);
	assert_int_equal(pgv_validate(&policy, "MOVE ALL IN c", &v), PGV_FETCH);
	assert_true(v.move && v.count > 1000000);
	assert_int_equal(pgv_validate(&policy, "MOVE PRIOR IN c", &v), PGV_REFUSED);
	assert_non_null(strstr(v.hint, "MOVE"));
	assert_int_equal(pgv_validate(&policy, "CLOSE \"c\"", &v), PGV_CLOSE_CURSOR);
	assert_string_equal(v.name, "c");
	assert_int_equal(pgv_validate(&policy, "CLOSE ALL", &v), PGV_CLOSE_CURSOR);
	assert_string_equal(v.name, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_declare_ok),
		cmocka_unit_test(test_declare_refused),
		cmocka_unit_test(test_fetch_close),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
