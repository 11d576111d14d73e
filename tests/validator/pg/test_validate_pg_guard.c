/*
 * test_validate_pg_guard: the guard read the scoping hands the runner. A
 * statement with nothing the backend resolves by the search_path needs
 * none; each way to reach an operator, a function by column notation or a
 * cast names what it reaches (IN, CASE x WHEN, USING, BETWEEN, ORDER BY
 * USING, x IN (SELECT), OPERATOR(schema.op), (x).f, x::t, t(x)); the
 * guard parses, holds no unqualified operator or function of its own, and
 * lists the user's functions; OPERATOR() of a schema outside the world is
 * refused as one that does not exist; the guard of parameter types walks
 * what each type is made of.
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
#include "validator/pg/validate_pg_guard.h"
#include "validator/pg/validate_pg_scope.h"

static const char *const path[] = {"public"};
static const char *const tables[] = {"public.orders", "public.customers"};
static const char *const functions[] = {"public.probe_total", "tools.*"};

static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = 2,
	.search_path = path,
	.nsearch_path = 1,
	.functions = functions,
	.nfunctions = 2,
};

/* The guard of sql, which must be a read; NULL when it has none. */
static char *guard_of(const char *sql)
{
	struct pgv_result r;
	char *text = NULL, *guard = NULL;

	if (pgv_scope_guarded(&policy, sql, &text, &guard, &r) != PGV_READ)
		fail_msg("%s: refused: %s", sql, r.message);
	free(text);
	return guard;
}

static void test_nothing_to_resolve(void **state)
{
	static const char *const plain[] = {
		"SELECT 1",
		"SELECT id, amount FROM ONLY orders",
		"SELECT o.* FROM ONLY orders o",
		"SELECT * FROM ONLY public.orders ORDER BY id DESC LIMIT 3",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		char *g = guard_of(plain[i]);

		if (g)
			fail_msg("%s: a guard: %s", plain[i], g);
	}
}

/*
 * A table read with its descendants is guarded by its name as written, so
 * the backend finds the same relation; the guard checks the descendants
 * against the user's tables by name, and names the ruled ones.
 */
static void test_descendants(void **state)
{
	static const struct {
		const char *sql, *name;
	} cases[] = {
		{"SELECT id FROM orders", "'\"orders\"'"},
		{"SELECT id FROM public.orders", "'\"public\".\"orders\"'"},
		{"SELECT 1 FROM orders o JOIN ONLY customers c ON true", "'\"orders\"'"},
		{"SELECT * FROM (SELECT id FROM customers) s", "'\"customers\"'"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *g = guard_of(cases[i].sql);

		if (!g)
			fail_msg("%s: no guard", cases[i].sql);
		if (!strstr(g, cases[i].name) || !strstr(g, "pg_inherits") || !strstr(g, "'public.orders'"))
			fail_msg("%s: %s not in %s", cases[i].sql, cases[i].name, g);
		free(g);
	}
	{
		char *g = guard_of("SELECT 1 FROM orders o JOIN ONLY customers c ON true");

		assert_null(strstr(g, "'\"customers\"'"));
		free(g);
		g = guard_of("SELECT relname FROM pg_catalog.pg_class");
		assert_null(strstr(g, "pg_class\"'"));
		free(g);
	}
}

/*
 * A cast to one of pg_catalog's own types (qualified so, or by a built-in
 * name while pg_catalog is searched first) reaches no domain: no domain
 * walk for it, while the cast branch still checks casts to it. Any other
 * target keeps the walk.
 */
static void test_domains_of_builtin_targets(void **state)
{
	static const char *const later[] = {"public", "pg_catalog"};
	static const char *const skipped[] = {
		"SELECT id::pg_catalog.text FROM orders",
		"SELECT id::text, id::int8[] FROM orders",
		"SELECT text(o) FROM orders o",
		"SELECT relname FROM pg_catalog.pg_class",
	};
	static const char *const kept[] = {
		"SELECT NULL::orders",
		"SELECT id::text, NULL::public.orders FROM orders",
		"SELECT probe_total(o) FROM orders o",
	};
	struct pgv_policy late = policy;
	struct pgv_result r;
	char *text = NULL, *g;

	(void)state;
	for (size_t i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++) {
		g = guard_of(skipped[i]);
		if (g && strstr(g, "'domain'"))
			fail_msg("%s: a domain walk: %s", skipped[i], g);
		free(g);
	}
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		g = guard_of(kept[i]);
		if (!g || !strstr(g, "'domain'"))
			fail_msg("%s: no domain walk: %s", kept[i], g ? g : "(none)");
		free(g);
	}
	g = guard_of("SELECT id::text FROM ONLY orders");
	assert_non_null(strstr(g, "c.casttarget OPERATOR(pg_catalog.=) ANY (ARRAY[pg_catalog.to_regtype('\"text\"')"));
	free(g);
	/* With public before pg_catalog, text(o) may be a cast to the database's own type. */
	late.search_path = later;
	late.nsearch_path = 2;
	assert_int_equal(pgv_scope_guarded(&late, "SELECT text(o) FROM ONLY orders o", &text, &g, &r), PGV_READ);
	assert_non_null(g);
	assert_non_null(strstr(g, "'domain'"));
	free(text);
	free(g);
}

/* The scoping's CTEs (a catalog's filter, the visible set) are not relations with descendants. */
static void test_scoping_ctes_are_not_relations(void **state)
{
	char *g;

	(void)state;
	g = guard_of(
		"SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid");
	assert_non_null(g);
	assert_null(strstr(g, "'inherits '"));
	assert_null(strstr(g, "airlock_"));
	free(g);
	g = guard_of("SELECT c.relname FROM pg_catalog.pg_class c, orders");
	assert_non_null(strstr(g, "'inherits '"));
	assert_non_null(strstr(g, "'\"orders\"'"));
	assert_null(strstr(g, "airlock_"));
	free(g);
}

/* Each statement's guard holds the quoted name. */
static void test_names_reached(void **state)
{
	static const struct {
		const char *sql, *name;
	} cases[] = {
		{"SELECT 1 === 2", "'==='"},
		{"SELECT id FROM orders WHERE amount > 5", "'>'"},
		{"SELECT id FROM orders WHERE id IN (1, 2)", "'='"},
		{"SELECT id FROM orders WHERE id NOT IN (1, 2)", "'<>'"},
		{"SELECT CASE id WHEN 1 THEN 'a' END FROM orders", "'='"},
		{"SELECT 1 FROM orders JOIN customers USING (id)", "'='"},
		{"SELECT 1 FROM orders NATURAL JOIN customers", "'='"},
		{"SELECT id FROM orders WHERE id BETWEEN 1 AND 5", "'<='"},
		{"SELECT id FROM orders ORDER BY id USING ~<~", "'~<~'"},
		{"SELECT id FROM orders WHERE id IN (SELECT id FROM customers)", "'='"},
		{"SELECT id FROM orders WHERE id = ANY (ARRAY[1])", "'='"},
		{"SELECT id FROM orders WHERE id IS DISTINCT FROM 3", "'='"},
		{"SELECT NULLIF(id, 3) FROM orders", "'='"},
		{"SELECT 'a' LIKE 'b'", "'~~'"},
		{"SELECT 'a' SIMILAR TO 'b'", "'~'"},
		{"SELECT 1 OPERATOR(public.+) 2", "qn.nspname OPERATOR(pg_catalog.=) 'public'"},
		{"SELECT o.leak FROM orders o", "'leak'"},
		{"SELECT orders.leak FROM orders", "'leak'"},
		{"SELECT public.orders.leak FROM orders", "'leak'"},
		{"SELECT (o).leak FROM orders o", "'leak'"},
		{"SELECT (ROW(1, 2)).leak", "'leak'"},
		{"SELECT id::text FROM orders", "to_regtype('\"text\"')"},
		{"SELECT CAST(id AS numeric[]) FROM orders", "to_regtype('\"pg_catalog\".\"numeric\"[]')"},
		{"SELECT text(o) FROM orders o", "to_regtype('\"text\"')"},
		{"SELECT now()", "castcontext"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *g = guard_of(cases[i].sql);

		if (!g)
			fail_msg("%s: no guard", cases[i].sql);
		if (!strstr(g, cases[i].name))
			fail_msg("%s: %s not in %s", cases[i].sql, cases[i].name, g);
		free(g);
	}
}

/* The guard is one read that parses, with its operators and functions qualified, and the user's list in it. */
static void test_guard_is_qualified(void **state)
{
	char *g = guard_of("SELECT o.leak, id::text FROM orders o WHERE id IN (1) AND amount === 2");
	PgQueryParseResult pr;
	PgQueryFingerprintResult fp;

	(void)state;
	assert_non_null(g);
	pr = pg_query_parse(g);
	assert_null(pr.error);
	pg_query_free_parse_result(pr);
	fp = pg_query_fingerprint(g);
	assert_null(fp.error);
	pg_query_free_fingerprint_result(fp);
	assert_non_null(strstr(g, "'public.probe_total'"));
	assert_non_null(strstr(g, "'tools.*'"));
	assert_non_null(strstr(g, "current_schemas(false)"));
	/* Every operator written OPERATOR(pg_catalog.x): no bare = < > || - of its own. */
	assert_null(strstr(g, " = "));
	assert_null(strstr(g, " || "));
	assert_null(strstr(g, " IN "));
	assert_null(strstr(g, " >= "));
	free(g);
}

/* What a value of each parameter type is converted to: the types, and what each is made of, walked for domains. */
static void test_parameter_types(void **state)
{
	static const uint32_t oids[] = {16500, 4294967295u};
	char *g = pgv_guard_params_sql(&policy, oids, 2);
	PgQueryParseResult pr;

	(void)state;
	assert_null(pgv_guard_params_sql(&policy, oids, 0));
	assert_non_null(g);
	pr = pg_query_parse(g);
	assert_null(pr.error);
	pg_query_free_parse_result(pr);
	assert_non_null(strstr(g, "'{16500,4294967295}'::pg_catalog.oid[]"));
	/* A domain's base type, an array's element, a composite's attributes, a range's subtype. */
	assert_non_null(strstr(g, "typbasetype"));
	assert_non_null(strstr(g, "typelem"));
	assert_non_null(strstr(g, "pg_catalog.pg_attribute"));
	assert_non_null(strstr(g, "rngsubtype"));
	assert_non_null(strstr(g, "'tools.*'"));
	assert_null(strstr(g, " = "));
	assert_null(strstr(g, " <> "));
	assert_null(strstr(g, " > "));
	free(g);
}

static void test_operator_of_a_schema_outside_the_world(void **state)
{
	struct pgv_result r;
	char *text = NULL, *guard = NULL;

	(void)state;
	assert_int_equal(pgv_scope_guarded(&policy, "SELECT 1 OPERATOR(secret.+) 2", &text, &guard, &r), PGV_REFUSED);
	assert_null(text);
	assert_null(guard);
	assert_string_equal(r.sqlstate, "3F000");
	assert_non_null(strstr(r.message, "schema \"secret\" does not exist"));
	/* pg_catalog's own is what Postgres would pick anyway: nothing to check by schema. */
	guard = guard_of("SELECT 1 OPERATOR(pg_catalog.+) 2");
	assert_non_null(guard);
	assert_null(strstr(guard, "qn.nspname OPERATOR(pg_catalog.=) 'pg_catalog'"));
	free(guard);
}

/* Past the bound of distinct names the guard checks every name of the kind. */
static void test_many_names(void **state)
{
	char *sql = malloc(64 * 1024), *g;
	size_t len = (size_t)snprintf(sql, 64, "SELECT 1");

	(void)state;
	for (int i = 0; i < 300; i++)
		len += (size_t)snprintf(sql + len, 64, ", o.c%d", i);
	snprintf(sql + len, 64, " FROM orders o");
	g = guard_of(sql);
	assert_non_null(g);
	assert_null(strstr(g, "'c1'"));
	assert_non_null(strstr(g, "pc.proname::pg_catalog.text"));
	free(g);
	free(sql);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_to_resolve),
		cmocka_unit_test(test_names_reached),
		cmocka_unit_test(test_domains_of_builtin_targets),
		cmocka_unit_test(test_scoping_ctes_are_not_relations),
		cmocka_unit_test(test_descendants),
		cmocka_unit_test(test_guard_is_qualified),
		cmocka_unit_test(test_parameter_types),
		cmocka_unit_test(test_operator_of_a_schema_outside_the_world),
		cmocka_unit_test(test_many_names),
	};

	return cmocka_run_group_tests(tests, 0, NULL);
}
