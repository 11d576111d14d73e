/*
 * test_validate_pg_proc: every catalog function has a class. A name
 * pg_catalog or information_schema does not have is refused, as are type
 * input functions (cstring, internal), unguarded oid and object-name
 * arguments; the newly guarded functions are rewritten so a hidden object
 * answers as a missing one; the generated table agrees with the guard
 * table and the denylist; the catalogs' own statistics are left out.
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
#include "validator/pg/validate_pg_funcs.h"
#include "validator/pg/validate_pg_proc.h"
#include "validator/pg/validate_pg_scope.h"
#include "validator/pg/validate_pg_scope_funcs.h"
#include "validator/pg/validate_pg_types.h"

static const char *const tables[] = {
	"public.orders", "public.customers", "public.products", "pg_catalog.*", "information_schema.*",
};
static const char *const path[] = {"public"};

static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = sizeof(tables) / sizeof(tables[0]),
	.search_path = path,
	.nsearch_path = 1,
	.user = "agent",
};

static void assert_refused_function(const char *sql, const char *why)
{
	struct pgv_result r;

	if (pgv_validate(&policy, sql, &r) != PGV_REFUSED)
		fail_msg("not refused: %s", sql);
	if (r.code != AIRLOCK_E_FORBIDDEN_FUNCTION)
		fail_msg("%s: refused with %d (%s), not FORBIDDEN_FUNCTION", sql, (int)r.code, r.message);
	assert_string_equal(r.sqlstate, "42501");
	if (why && !strstr(r.message, why))
		fail_msg("%s: \"%s\" does not say \"%s\"", sql, r.message, why);
}

static void test_table_sorted_and_consistent(void **state)
{
	const struct pgv_proc *e;
	size_t i, guarded = 0;

	(void)state;
	assert_true(pgv_proc_table_sorted());
	for (i = 0; (e = pgv_proc_entry(i)) != NULL; i++) {
		assert_true(e->schemas != 0 && (e->schemas & ~(PGV_PROC_PG | PGV_PROC_IS)) == 0);
		/* Guarded in the table exactly when the guard table has it. */
		if ((e->cls == PGV_FN_GUARDED) != (pgv_guarded_find(e->name) != NULL))
			fail_msg("%s: class %d but %s guard entry", e->name, (int)e->cls,
				 pgv_guarded_find(e->name) ? "a" : "no");
		/* Denied by the denylist exactly when the denylist names it. */
		if ((e->cls == PGV_FN_DENY_LIST) != (pgv_function_denied(e->name) != NULL))
			fail_msg("%s: class %d, denylist %s", e->name, (int)e->cls,
				 pgv_function_denied(e->name) ? "names it" : "does not");
		guarded += e->cls == PGV_FN_GUARDED;
	}
	assert_true(i > 2000);
	assert_true(guarded > 0);
	assert_non_null(pgv_proc_find("format_type"));
	assert_non_null(pgv_proc_find("_pg_expandarray"));
	assert_int_equal(pgv_proc_find("_pg_expandarray")->schemas, PGV_PROC_IS);
	assert_null(pgv_proc_find("no_such_function_q7"));
}

/* A catalog function airlock does not know is refused, as an unknown catalog relation is. */
static void test_unknown_catalog_function_refused(void **state)
{
	static const char *const sqls[] = {
		"SELECT pg_catalog.no_such_function_q7()",
		"SELECT pg_catalog.pg_get_acl(1259, 16408)", /* a later server's */
		"SELECT * FROM pg_catalog.no_such_srf_q7(1)",
		"SELECT information_schema.no_such_function_q7(1)",
		"SELECT information_schema.lower('a')", /* pg_catalog's, not information_schema's */
		"SELECT 1 FROM orders WHERE pg_catalog.no_such_function_q7(id) > 0",
		"SELECT \"pg_catalog\".\"NO_SUCH\"()",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++)
		assert_refused_function(sqls[i], "does not know");
}

/* Unqualified, a name neither catalog schema has is a function of the world's own schemas. */
static void test_world_functions_as_today(void **state)
{
	static const char *const sqls[] = {
		"SELECT lower('a'), pg_catalog.upper('b'), information_schema._pg_expandarray(ARRAY[1])",
		"SELECT pg_catalog.pg_get_userbyid(10), pg_catalog.pg_get_function_arguments(1)",
		"SELECT count(*), pg_catalog.count(*) FROM orders",
		"SELECT format_type(23, NULL), pg_type_is_visible(23), pg_catalog.to_regtype('int4')",
		"SELECT pg_catalog.pg_table_is_visible(c.oid) FROM pg_catalog.pg_class c",
		"SELECT extract(year FROM now()), substring('abc' FROM 2), trim(' a '), 'x' SIMILAR TO 'y'",
		"SELECT now() AT TIME ZONE 'UTC', overlay('abc' PLACING 'x' FROM 2), position('b' IN 'abc')",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++) {
		struct pgv_result r;

		if (pgv_validate(&policy, sqls[i], &r) != PGV_READ)
			fail_msg("refused: %s: %s", sqls[i], r.message);
	}
	/* The denylist still applies whatever the schema. */
	assert_refused_function("SELECT public.pg_read_file('x')", "files");
}

/* A regrole prints a role's real name: casts to it and to_regrole are refused. */
static void test_regrole_refused(void **state)
{
	static const char *const sqls[] = {
		"SELECT relowner::regrole FROM pg_class",
		"SELECT CAST(10 AS pg_catalog.regrole)",
		"SELECT regrole 'postgres'",
		"SELECT 1 FROM orders WHERE 'agent'::regrole IS NULL",
	};
	struct pgv_result r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++) {
		char *out = NULL;

		if (pgv_scope(&policy, sqls[i], &out, &r) != PGV_REFUSED)
			fail_msg("not refused: %s", sqls[i]);
		free(out);
		assert_string_equal(r.sqlstate, "0A000");
		assert_non_null(strstr(r.message, "regrole"));
	}
	assert_refused_function("SELECT to_regrole('postgres')", "real name");
	assert_non_null(pgv_param_type_refused(4096));
	assert_non_null(pgv_param_type_refused(2210));
	assert_null(pgv_param_type_refused(26));
	assert_null(pgv_param_type_refused(0));
}

/* A function of a schema outside the world reads as one of a schema that does not exist (3F000). */
static void test_foreign_schema_function_refused(void **state)
{
	static const char *const sqls[] = {
		"SELECT secret.f()",
		"SELECT * FROM secret.srf(1)",
		"SELECT 1 FROM orders WHERE \"Secret\".f(id) > 0",
		"SELECT secret.pg_read_file('x')",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++) {
		struct pgv_result r;

		if (pgv_validate(&policy, sqls[i], &r) != PGV_REFUSED)
			fail_msg("not refused: %s", sqls[i]);
		assert_string_equal(r.sqlstate, "3F000");
		if (!strstr(r.message, "does not exist") || !strstr(r.message, "ecret\""))
			fail_msg("%s: %s", sqls[i], r.message);
	}
}

/* Type input and receive functions answer for a hidden type's oid as for a visible one. */
static void test_cstring_functions_denied(void **state)
{
	static const char *const sqls[] = {
		"SELECT enum_in('x', 16410)",
		"SELECT pg_catalog.domain_in('x', 16410, -1)",
		"SELECT row_to_json(record_in('(1,a,1)', 16410, -1))",
		"SELECT array_in('{}', 16410, -1)",
		"SELECT range_in('[1,2)', 16410, -1)",
		"SELECT multirange_in('{}', 16410, -1)",
		"SELECT int4recv(NULL)",
		"SELECT textin('a')",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++)
		assert_refused_function(sqls[i], "cstring or internal");
}

/* oid and object-name arguments nothing guards. */
static void test_unguarded_object_arguments_denied(void **state)
{
	(void)state;
	assert_refused_function("SELECT oidvectortypes('16410')", "oid or reg*");
	assert_refused_function("SELECT satisfies_hash_partition(16408, 1, 0, 1)", "oid or reg*");
	assert_refused_function("SELECT information_schema._pg_index_position(16413, 1::int2)", "oid or reg*");
	assert_refused_function("SELECT pg_stat_have_stats('relation', 0, 16408)", "oid or reg*");
	assert_refused_function("SELECT to_regprocedure('abs(staff_salaries)')", "signature");
	assert_refused_function("SELECT regtypeout(16410)", NULL);
}

static char *scoped(const char *sql)
{
	struct pgv_result r;
	char *out = NULL;

	if (pgv_validate(&policy, sql, &r) != PGV_READ)
		fail_msg("refused: %s: %s", sql, r.message);
	if (pgv_scope(&policy, sql, &out, &r) != PGV_READ || !out)
		fail_msg("not rewritten: %s: %s", sql, out ? "" : r.message);
	/* The rewrite validates as a read again. */
	if (pgv_validate(&policy, out, &r) != PGV_READ)
		fail_msg("rewrite refused: %s: %s", out, r.message);
	return out;
}

/* Newly guarded: a hidden object answers as a missing one. */
static void test_new_guards_rewrite(void **state)
{
	static const struct {
		const char *sql, *must;
	} cases[] = {
		{"SELECT pg_type_is_visible(16410)", "pg_catalog.pg_type vt"},
		{"SELECT pg_catalog.pg_type_is_visible(t.oid) FROM pg_catalog.pg_type t", "(SELECT t.oid OFFSET 0)"},
		{"SELECT pg_statistics_obj_is_visible(16420)", "pg_catalog.pg_statistic_ext gs"},
		{"SELECT row_security_active('staff_salaries')", "'staff_salaries'::pg_catalog.text"},
		{"SELECT row_security_active(16408)", "(SELECT 16408 OFFSET 0)"},
		/* Schemas, and the functions, operators and collations in them, are the world's only. */
		{"SELECT has_schema_privilege('secret', 'usage')",
		 "ELSE pg_catalog.to_regnamespace(g.a::pg_catalog.text)::pg_catalog.oid END IN (SELECT"},
		{"SELECT has_schema_privilege('agent', 2200, 'usage')",
		 "(SELECT 2200 OFFSET 0) g(a) WHERE COALESCE(CASE WHEN"},
		{"SELECT to_regnamespace('secret')", "(SELECT 'secret'::pg_catalog.text OFFSET 0) g(a)"},
		{"SELECT to_regproc('secret.f')", "gp.oid IN (SELECT airlock_functions.oid FROM airlock_functions)"},
		{"SELECT to_regoper('secret.===')", "gr.oprnamespace IN (SELECT"},
		{"SELECT to_regcollation('secret.c')", "gc.collnamespace IN (SELECT"},
		/* A qualified name is looked up only when its schema is the world's (USAGE is checked first). */
		{"SELECT to_regclass('secret.t')",
		 "ELSE pg_catalog.to_regclass(CASE WHEN g.a::pg_catalog.text OPERATOR(pg_catalog.!~)"},
		{"SELECT to_regproc('secret.f')",
		 "WHEN NOT EXISTS (SELECT FROM pg_catalog.parse_ident(gv.n::pg_catalog.text"},
		{"SELECT 'secret.c'::regcollation", "pg_catalog.to_regcollation(CASE WHEN 'secret.c'"},
		{"SELECT 'secret.d'::regdictionary", "pg_catalog.parse_ident('secret.d', false)"},
		{"SELECT has_table_privilege('secret.t', 'select')",
		 "pg_catalog.to_regclass(CASE WHEN g.a::pg_catalog.text"},
		{"SELECT to_regtype(name) FROM products", "pg_catalog.to_regtype(CASE WHEN g.a::pg_catalog.text"},
		/* A text signature names argument types: it reads as NULL; an oid is kept. */
		{"SELECT has_function_privilege('abs(staff_salaries)', 'execute')",
		 "(SELECT 'abs(staff_salaries)'::pg_catalog.text OFFSET 0) g(a) WHERE "
		 "COALESCE(pg_catalog.pg_typeof(g.a)"},
		{"SELECT has_function_privilege('agent', p.oid, 'execute') FROM pg_catalog.pg_proc p",
		 "(SELECT p.oid OFFSET 0) g(a) WHERE COALESCE(pg_catalog.pg_typeof(g.a)::pg_catalog.oid IN (26, 24, "
		 "2202, 21, 23, "
		 "20)"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = scoped(cases[i].sql);

		if (!strstr(out, cases[i].must))
			fail_msg("%s -> %s: lacks %s", cases[i].sql, out, cases[i].must);
		free(out);
	}
}

/* The catalogs' own column statistics sample hidden objects' oids (pg_attribute.attrelid, pg_depend.objid). */
static void test_catalog_statistics_left_out(void **state)
{
	static const char *const sqls[] = {
		"SELECT * FROM pg_stats",
		"SELECT * FROM pg_catalog.pg_stats_ext",
		"SELECT * FROM pg_stats_ext_exprs",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++) {
		char *out = scoped(sqls[i]);

		if (!strstr(out, "r.schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')"))
			fail_msg("%s -> %s: keeps the catalogs' statistics", sqls[i], out);
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted_and_consistent),
		cmocka_unit_test(test_unknown_catalog_function_refused),
		cmocka_unit_test(test_foreign_schema_function_refused),
		cmocka_unit_test(test_regrole_refused),
		cmocka_unit_test(test_world_functions_as_today),
		cmocka_unit_test(test_cstring_functions_denied),
		cmocka_unit_test(test_unguarded_object_arguments_denied),
		cmocka_unit_test(test_new_guards_rewrite),
		cmocka_unit_test(test_catalog_statistics_left_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
