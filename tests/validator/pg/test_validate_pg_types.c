/*
 * test_validate_pg_types: which parameter type oids need checking against
 * the user's world (none of the built-in types but the catalogs' row
 * types, everything from 10000 up), and the check read: in the oids'
 * order, scoped so that a type outside the world reads as NULL, one read
 * that parses again, under a policy without the catalogs too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pg_query.h>

#include "validator/pg/validate_pg.h"
#include "validator/pg/validate_pg_scope.h"
#include "validator/pg/validate_pg_types.h"

static const char *const path[] = {"public"};

static void test_builtin_types_need_no_check(void **state)
{
	/* unspecified, bool, int4, text, oid, numeric, _int4, jsonb, uuid, timestamptz, regclass, record */
	static const uint32_t free_oids[] = {0, 16, 23, 25, 26, 1700, 1007, 3802, 2950, 1184, 2205, 2249, 9999};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(free_oids) / sizeof(free_oids[0]); i++) {
		if (pgv_param_type_needs_check(free_oids[i]))
			fail_msg("%u needs a check", free_oids[i]);
	}
}

static void test_row_types_and_user_types_need_one(void **state)
{
	/* pg_class's row type and its array, pg_authid's, information_schema's, and every user oid */
	static const uint32_t checked[] = {71,   75,   81,   83,    210,   270,   272,   273,   1248,       2842,
					   2843, 4066, 6101, 10000, 13221, 16384, 16386, 99999, 4294967295u};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
		if (!pgv_param_type_needs_check(checked[i]))
			fail_msg("%u needs no check", checked[i]);
	}
}

static void test_check_sql_lists_the_oids_in_order(void **state)
{
	static const uint32_t oids[] = {16386, 99999, 4294967295u};
	char *sql;

	(void)state;
	assert_null(pgv_param_type_check_sql(oids, 0));
	sql = pgv_param_type_check_sql(oids, 3);
	assert_non_null(sql);
	assert_string_equal(sql, "SELECT v.o FROM (VALUES (1, '16386'::pg_catalog.oid), (2, '99999'::pg_catalog.oid),"
				 " (3, '4294967295'::pg_catalog.oid)) AS v(n, o)"
				 " WHERE v.o::pg_catalog.regtype IS NULL ORDER BY v.n LIMIT 1");
	free(sql);
}

/* The check, scoped for a policy: the regtype cast is guarded by the world's types, and it is one read. */
static void assert_scoped(const struct pgv_policy *p)
{
	static const uint32_t oids[] = {16386, 83};
	struct pgv_result r;
	char *sql = pgv_param_type_check_sql(oids, 2), *out = NULL;
	PgQueryParseResult parsed;

	assert_non_null(sql);
	assert_int_equal(pgv_validate(p, sql, &r), PGV_READ);
	assert_int_equal(pgv_scope(p, sql, &out, &r), PGV_READ);
	/* Unchanged, the check would pass every type that exists (the runner's caller refuses that). */
	assert_non_null(out);
	/* g.a is the oid itself; kept only when it is a type of the world (the row types of visible relations). */
	assert_non_null(strstr(out, "(SELECT g.a FROM (SELECT v.o OFFSET 0) g(a) WHERE"));
	assert_non_null(strstr(
		out, "END IN (SELECT airlock_types.oid FROM airlock_types), false))::pg_catalog.regtype IS NULL"));
	assert_non_null(strstr(out, "airlock_types(oid) AS MATERIALIZED (SELECT vt.oid FROM pg_catalog.pg_type vt "
				    "WHERE (vt.typrelid = 0 OR"));
	assert_non_null(strstr(out, ")::pg_catalog.regtype IS NULL ORDER BY v.n LIMIT 1"));
	parsed = pg_query_parse(out);
	assert_null(parsed.error);
	assert_null(strstr(parsed.parse_tree, ",{\"stmt\":"));
	pg_query_free_parse_result(parsed);
	free(out);
	free(sql);
}

static void test_check_is_scoped(void **state)
{
	static const char *const tables[] = {"public.orders", "pg_catalog.*", "information_schema.*"};
	struct pgv_policy p = {.tables = tables, .ntables = 3, .search_path = path, .nsearch_path = 1, .user = "agent"};

	(void)state;
	assert_scoped(&p);
}

/* A user whose allowlist leaves out the catalogs still gets the check (it names no relation). */
static void test_check_is_scoped_without_catalogs(void **state)
{
	static const char *const tables[] = {"public.orders"};
	struct pgv_policy p = {.tables = tables, .ntables = 1, .search_path = path, .nsearch_path = 1, .user = "agent"};

	(void)state;
	assert_scoped(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_types_need_no_check),
		cmocka_unit_test(test_row_types_and_user_types_need_one),
		cmocka_unit_test(test_check_sql_lists_the_oids_in_order),
		cmocka_unit_test(test_check_is_scoped),
		cmocka_unit_test(test_check_is_scoped_without_catalogs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
