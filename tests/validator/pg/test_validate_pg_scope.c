/*
 * test_validate_pg_scope: the catalog scoping. Every classified catalog
 * relation's filter expands and parses; statements that touch nothing
 * scoped run as written; catalog references become filtered subqueries
 * under their own names; secrets and unknown catalog names are refused;
 * guards wrap catalog functions and casts to the reg* types; type names
 * other than built-in ones and allowed row types are refused; the user
 * functions name the airlock user; and every rewrite is one read that
 * parses again.
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

#include "conf/config.h"
#include "validator/pg/validate_pg.h"
#include "validator/pg/validate_pg_catalog.h"
#include "validator/pg/validate_pg_funcs.h"
#include "validator/pg/validate_pg_scope.h"
#include "validator/pg/validate_pg_scope_funcs.h"
#include "validator/pg/validate_pg_scope_sql.h"
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

/* Validates and scopes sql; returns the text to run (heap) or NULL when refused (r says why). */
static char *scope(const struct pgv_policy *p, const char *sql, struct pgv_result *r)
{
	char *out = NULL;

	assert_int_equal(pgv_validate(p, sql, r), PGV_READ);
	if (pgv_scope(p, sql, &out, r) != PGV_READ) {
		assert_null(out);
		return NULL;
	}
	if (!out)
		out = strdup(sql);
	assert_non_null(out);
	return out;
}

/* The rewritten text parses, as one statement. */
static void assert_one_read(const char *text)
{
	PgQueryParseResult parsed = pg_query_parse(text);

	if (parsed.error)
		fail_msg("%s: %s", text, parsed.error->message);
	assert_null(strstr(parsed.parse_tree, ",{\"stmt\":"));
	pg_query_free_parse_result(parsed);
}

/* What key lookups a catalog's fenced copy takes in (validate_pg_scope_push.c), and what it never does. */
static void test_key_lookups_enter_the_copy(void **state)
{
	static const char *const later[] = {"public", "pg_catalog"};
	struct pgv_policy p = policy;
	struct pgv_result r;
	char *out;

	(void)state;
	out = scope(&p, "SELECT description FROM pg_catalog.pg_description d WHERE d.objsubid = 0 AND 16385 = d.objoid",
		    &r);
	assert_non_null(strstr(
		out, "END AND r.objsubid OPERATOR(pg_catalog.=) 0 AND r.objoid OPERATOR(pg_catalog.=) 16385 OFFSET 0"));
	assert_one_read(out);
	free(out);
	/* psql writes the oid as a string; a join's relations each take their own. */
	out = scope(&p,
		    "SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
		    "WHERE a.attrelid = '16400' AND c.relname = 'orders' AND a.attnum > 0",
		    &r);
	assert_non_null(strstr(out, "AND r.attrelid OPERATOR(pg_catalog.=) '16400'"));
	assert_non_null(strstr(out, "AND r.relname OPERATOR(pg_catalog.=) 'orders'"));
	assert_null(strstr(out, "attnum OPERATOR"));
	assert_one_read(out);
	free(out);
	/* Never: a disjunction, an expression, a parameter, a masked column, column aliases, another query's alias. */
	static const char *const kept_out[] = {
		"SELECT 1 FROM pg_description d WHERE d.objoid = 16385 OR d.objsubid = 0",
		"SELECT 1 FROM pg_description d WHERE d.objoid = 16384 + 1",
		"SELECT 1 FROM pg_description d WHERE d.objoid = $1",
		"SELECT 1 FROM pg_description d WHERE d.objoid::int = 16385",
		"SELECT 1 FROM pg_class c WHERE c.relowner = 10",
		"SELECT 1 FROM pg_class c WHERE c.reltuples = 0",
		"SELECT 1 FROM pg_class AS c(a) WHERE c.a = 16385",
		"SELECT 1 FROM pg_description d WHERE d.objoid < 16385",
		"SELECT 1 FROM pg_description d WHERE pg_catalog.pg_description.objoid = 16385",
		"SELECT (SELECT count(*) FROM pg_attribute a) FROM pg_class c WHERE a.attrelid = 5",
		"SELECT 1 FROM pg_description d WHERE 1 / (CASE WHEN d.objoid = 16385 THEN 0 ELSE 1 END) = 1",
		"SELECT 1 FROM pg_description d WHERE d.description = 'x'",
		"SELECT 1 FROM information_schema.columns c WHERE c.table_name = 'orders'",
	};
	for (size_t i = 0; i < sizeof(kept_out) / sizeof(kept_out[0]); i++) {
		struct pgv_result rr;

		if (pgv_validate(&p, kept_out[i], &rr) != PGV_READ)
			continue;
		out = NULL;
		if (pgv_scope(&p, kept_out[i], &out, &rr) != PGV_READ)
			continue;
		if (out && strstr(out, "OPERATOR(pg_catalog.=)"))
			fail_msg("%s: a lookup entered the copy: %s", kept_out[i], out);
		free(out);
	}
	/* A subquery's own lookup enters its own reference's copy only. */
	out = scope(&p, "SELECT (SELECT count(*) FROM pg_attribute a WHERE a.attrelid = 5) FROM pg_class c", &r);
	assert_non_null(strstr(out, "r.attrelid OPERATOR(pg_catalog.=) 5"));
	assert_null(strstr(out, "r.oid OPERATOR"));
	free(out);
	/* Carried across equalities: inner ones on and on, an outer join's ON term (one column each side) once. */
	out = scope(&p,
		    "SELECT a.attname, pgd.description FROM pg_catalog.pg_attribute a LEFT JOIN "
		    "pg_catalog.pg_description pgd "
		    "ON pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum WHERE a.attrelid = 16400 AND a.attnum > 0",
		    &r);
	assert_non_null(strstr(out, "r.attrelid OPERATOR(pg_catalog.=) 16400"));
	assert_non_null(strstr(out, "r.objoid OPERATOR(pg_catalog.=) 16400"));
	assert_null(strstr(out, "r.objsubid OPERATOR"));
	free(out);
	out = scope(&p,
		    "SELECT 1 FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid JOIN pg_attrdef d "
		    "ON d.adrelid = a.attrelid WHERE c.oid = 5",
		    &r);
	assert_non_null(strstr(out, "r.oid OPERATOR(pg_catalog.=) 5"));
	assert_non_null(strstr(out, "r.attrelid OPERATOR(pg_catalog.=) 5"));
	assert_non_null(strstr(out, "r.adrelid OPERATOR(pg_catalog.=) 5"));
	free(out);
	/*
	 * Never carried: an outer join's ON term between two columns of one
	 * side (a preserved row need not satisfy it), a string constant (it
	 * might not read as the other column's type).
	 */
	out = scope(
		&p,
		"SELECT 1 FROM pg_attribute a LEFT JOIN pg_description d ON a.attnum = a.attrelid WHERE a.attrelid = 5",
		&r);
	assert_non_null(strstr(out, "r.attrelid OPERATOR(pg_catalog.=) 5"));
	assert_null(strstr(out, "r.attnum OPERATOR"));
	free(out);
	out = scope(&p, "SELECT 1 FROM pg_class c, pg_attribute a WHERE a.attrelid = c.oid AND c.oid = '5'", &r);
	assert_non_null(strstr(out, "r.oid OPERATOR(pg_catalog.=) '5'"));
	assert_null(strstr(out, "r.attrelid OPERATOR"));
	free(out);
	/* With another schema before pg_catalog, "=" may not be pg_catalog's: nothing enters. */
	p.search_path = later;
	p.nsearch_path = 2;
	out = scope(&p, "SELECT 1 FROM pg_catalog.pg_description d WHERE d.objoid = 16385", &r);
	assert_null(strstr(out, "OPERATOR(pg_catalog.=)"));
	free(out);
}

static void test_tables_sorted(void **state)
{
	(void)state;
	assert_true(pgv_catalog_table_sorted());
	assert_true(pgv_guarded_table_sorted());
	assert_true(pgv_function_table_sorted());
	assert_true(pgv_type_table_sorted());
	assert_true(pgv_builtin_type("int4"));
	assert_true(pgv_builtin_type("_text"));
	assert_false(pgv_builtin_type("orders"));
}

static struct airlock_column support_columns[] = {
	{"id", NULL}, {"name", NULL}, {"email", "left(email, 1) || '***@' || split_part(email, '@', 2)"}};
static const struct airlock_rule support_rules[] = {
	{.table = "public.orders", .filter = "customer_id <= 100"},
	{.table = "public.customers", .columns = support_columns, .ncolumns = 3, .has_columns = true},
};

/* Each FILTER predicate, expanded (with and without rules), is valid SQL over its relation. */
static void test_every_filter_parses(void **state)
{
	static const char *const schemas[] = {"pg_catalog", "information_schema"};
	struct pgv_policy ruled = policy;
	int s;

	(void)state;
	ruled.rules = support_rules;
	ruled.nrules = 2;
	for (s = 0; s < 4; s++) {
		const struct pgv_catalog_rel *e;
		size_t i;

		for (i = 0; (e = pgv_catalog_entry((enum pgv_catalog_schema)(s % 2), i)) != NULL; i++) {
			struct pgv_sbuf sb = {0};
			PgQueryParseResult parsed;
			char *text;

			if (e->mode != PGV_CATALOG_FILTER) {
				assert_null(e->filter);
				continue;
			}
			assert_false(e->columns && e->project);
			pgv_sb_put(&sb, "SELECT ");
			pgv_sb_put(&sb, e->columns ? e->columns : "*");
			pgv_sb_put(&sb, " FROM ");
			pgv_sb_put(&sb, schemas[s % 2]);
			pgv_sb_put(&sb, ".");
			pgv_sb_put(&sb, e->name);
			pgv_sb_put(&sb, " r WHERE ");
			pgv_scope_expand(&sb, s < 2 ? &policy : &ruled, e->filter);
			text = pgv_sb_take(&sb);
			assert_non_null(text);
			parsed = pg_query_parse(text);
			if (parsed.error)
				fail_msg("%s.%s: %s", schemas[s % 2], e->name, parsed.error->message);
			pg_query_free_parse_result(parsed);
			free(text);
		}
	}
}

static void test_expand_quotes_policy_names(void **state)
{
	static const char *const odd[] = {"we'ird.t'1", "x.*"};
	const struct pgv_policy p = {.tables = odd, .ntables = 2};
	struct pgv_sbuf sb = {0};
	char *text;

	(void)state;
	pgv_scope_expand(&sb, &p, "@V");
	text = pgv_sb_take(&sb);
	assert_non_null(strstr(text, "'we''ird'"));
	assert_non_null(strstr(text, "'t''1'"));
	assert_non_null(strstr(text, "vn.nspname = 'x'"));
	free(text);
	/* No tables at all: nothing is visible, and the SQL still parses. */
	{
		const struct pgv_policy none = {0};

		pgv_scope_expand(&sb, &none, "SELECT 1 WHERE 1 IN @V");
		text = pgv_sb_take(&sb);
		assert_non_null(strstr(text, "false"));
		free(text);
	}
}

static const char *const untouched[] = {
	"SELECT 1",
	"SELECT 1::int4, 'a'::text, pg_catalog.now()::timestamptz, '{}'::jsonb, NULL::\"char\", 1::pg_catalog.int8",
	"SELECT NULL::orders, NULL::public.customers[], NULL::_products, NULL::pg_class",
	"SELECT NULL::information_schema.sql_identifier, '1 day'::interval day, 1::double precision",
	"SELECT * FROM orders WHERE id = $1",
	"SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id",
	"SELECT * FROM pg_catalog.pg_am",
	"SELECT amopmethod FROM pg_amop LIMIT 1",
	"SELECT 'orders'::regclass",
	"SELECT pg_catalog.pg_relation_size('public.orders')",
	"SELECT pg_catalog.has_table_privilege('orders', 'select')",
	"WITH x AS (SELECT 1 AS a) SELECT * FROM x",
	"SELECT current_date, pg_catalog.now()",
	"SELECT * FROM information_schema.sql_features LIMIT 1",
};

static void test_untouched(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(untouched) / sizeof(untouched[0]); i++) {
		struct pgv_result r;
		char *out = NULL;

		assert_int_equal(pgv_validate(&policy, untouched[i], &r), PGV_READ);
		assert_int_equal(pgv_scope(&policy, untouched[i], &out, &r), PGV_READ);
		if (out)
			fail_msg("rewritten: %s -> %s", untouched[i], out);
	}
}

/*
 * An unqualified call is qualified with the schema it was judged in, so
 * the search_path cannot make it another schema's overload: a built-in
 * name with its catalog, a listed function with the first schema of the
 * path that lists it; a call every schema of the path may resolve runs as
 * written.
 */
static void test_calls_qualified(void **state)
{
	static const char *const listed[] = {"app.tally", "public.oth*", "public.other"};
	static const char *const two[] = {"app", "public"};
	static const char *const with_app[] = {"public.customers", "app.*", "pg_catalog.*", "information_schema.*"};
	struct pgv_policy p = policy;
	struct pgv_result r;
	char *out;

	(void)state;
	out = scope(&policy, "SELECT count(*), lower(name), json('{}') FROM customers", &r);
	assert_non_null(out);
	assert_non_null(strstr(out, "pg_catalog.count(*)"));
	assert_non_null(strstr(out, "pg_catalog.lower(name)"));
	assert_non_null(strstr(out, "pg_catalog.json('{}')"));
	free(out);
	out = scope(&policy, "SELECT * FROM generate_series(1, 2) g, _pg_expandarray(ARRAY[1]) e", &r);
	assert_non_null(out);
	assert_non_null(strstr(out, "pg_catalog.generate_series(1, 2) g"));
	assert_non_null(strstr(out, "information_schema._pg_expandarray("));
	free(out);

	/* Refused unless listed: the body of a function the database defines is not checked. */
	assert_int_equal(pgv_validate(&policy, "SELECT tally(1)", &r), PGV_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_FORBIDDEN_FUNCTION);
	assert_non_null(strstr(r.message, "not a built-in function"));
	assert_int_equal(pgv_validate(&policy, "SELECT public.tally(1)", &r), PGV_REFUSED);
	assert_int_equal(pgv_validate(&policy, "SELECT \"LOWER\"('a')", &r), PGV_REFUSED);

	p.tables = with_app;
	p.ntables = 4;
	p.functions = listed;
	p.nfunctions = 3;
	p.search_path = two;
	p.nsearch_path = 2;
	/* app lists tally alone: lower could be app's overload, so it is pinned; tally is app's. */
	out = scope(&p, "SELECT tally(1), lower('a'), app.tally(3)", &r);
	assert_non_null(out);
	assert_non_null(strstr(out, "app.tally(1)"));
	assert_non_null(strstr(out, "pg_catalog.lower('a')"));
	free(out);
	/* An entry is a name or schema.*, no other pattern. */
	assert_int_equal(pgv_validate(&p, "SELECT public.othello(1)", &r), PGV_REFUSED);
	/* A name only public lists is public's, whatever app holds. */
	out = scope(&p, "SELECT other(1)", &r);
	assert_non_null(out);
	assert_non_null(strstr(out, "public.other(1)"));
	free(out);
	assert_int_equal(pgv_validate(&p, "SELECT app.other(1)", &r), PGV_REFUSED);
	assert_int_equal(r.code, AIRLOCK_E_FORBIDDEN_FUNCTION);
	/* Every schema of the path lists tally: Postgres chooses among them, as written. */
	p.nsearch_path = 1;
	out = scope(&p, "SELECT tally(1)", &r);
	assert_non_null(out);
	assert_string_equal(out, "SELECT tally(1)");
	free(out);
}

struct rewrite_case {
	const char *sql;
	const char *must; /* a substring of the rewritten text */
};

static const struct rewrite_case rewrites[] = {
	{"SELECT relname FROM pg_class", "FROM pg_catalog.pg_class r, LATERAL pg_catalog.jsonb_populate_record(r"},
	/* One role in the world: owners are the backend role, named as the airlock user; no ACL names anyone. */
	{"SELECT relowner, relacl FROM pg_class",
	 "'relowner', (SELECT ab.oid FROM pg_catalog.pg_roles ab WHERE ab.rolname = current_user), 'relacl', NULL"},
	{"SELECT rolname FROM pg_roles", "'rolname', 'agent'::pg_catalog.name"},
	{"SELECT * FROM pg_roles", "WHERE r.rolname = current_user"},
	{"SELECT usename FROM pg_user", "WHERE r.usename = current_user"},
	{"SELECT * FROM pg_auth_members", "WHERE false"},
	{"SELECT * FROM pg_shdescription", "WHEN 1260 THEN r.objoid = (SELECT ab.oid"},
	{"SELECT tableowner FROM pg_tables", "'tableowner', 'agent'::pg_catalog.name"},
	{"SELECT proowner FROM pg_proc", "'proowner', (SELECT ab.oid"},
	{"SELECT usename, client_addr FROM pg_stat_activity", "'client_addr', NULL"},
	{"SELECT * FROM information_schema.table_privileges", "r.grantee IN (current_user, 'PUBLIC')"},
	{"SELECT * FROM information_schema.enabled_roles", "'role_name', 'agent'::pg_catalog.name"},
	{"SELECT pg_get_userbyid(relowner) FROM pg_class",
	 "ELSE CAST(('unknown (OID=' || g.a::pg_catalog.text) || ')' AS pg_catalog.name)"},
	{"SELECT pg_catalog.pg_get_userbyid(10)", "THEN 'agent'::pg_catalog.name ELSE"},
	{"SELECT current_setting('session_authorization')", "WHEN 'session_authorization' THEN 'agent'"},
	{"SELECT current_setting(name, true) FROM pg_settings", "pg_catalog.current_setting(g.a, true)"},
	{"SELECT inet_server_addr(), inet_client_port()", "SELECT NULL::pg_catalog.inet, NULL::int"},
	{"SELECT pg_database_size('shop') + pg_tablespace_size(1)", "NULL::bigint + NULL::bigint"},
	{"SELECT c.relname FROM pg_catalog.pg_class c", "FROM airlock_c1 c"},
	{"SELECT relname FROM pg_class", "FROM airlock_c1 pg_class"},
	{"SELECT x.a FROM pg_class AS x(a)", "FROM airlock_c1 x(a)"},
	{"SELECT * FROM ONLY pg_class", "FROM ONLY pg_catalog.pg_class r"},
	{"SELECT * FROM pg_stats", "pg_catalog.pg_stats r WHERE EXISTS"},
	{"SELECT * FROM pg_stat_activity", "r.pid = pg_catalog.pg_backend_pid()"},
	{"SELECT * FROM pg_locks", "r.pid = pg_catalog.pg_backend_pid()"},
	{"SELECT * FROM information_schema.tables", "information_schema.tables r WHERE EXISTS"},
	{"SELECT * FROM information_schema.columns WHERE table_name = 'orders'", "information_schema.columns r"},
	{"SELECT (SELECT count(*) FROM pg_attribute) FROM orders", "pg_catalog.pg_attribute r WHERE"},
	{"SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_index WHERE indrelid = 1)", "pg_catalog.pg_index r"},
	{"WITH t AS (SELECT * FROM pg_tables) SELECT * FROM t", "pg_catalog.pg_tables r"},
	{"EXPLAIN SELECT * FROM pg_class", "EXPLAIN WITH airlock_visible(oid) AS MATERIALIZED"},
	{"SELECT current_user", "'agent'::pg_catalog.name AS \"current_user\""},
	{"SELECT session_user, user, current_role", "AS \"current_role\""},
	{"SELECT current_user AS me", "'agent'::pg_catalog.name AS me"},
	{"SELECT \"current_user\"()", "'agent'"},
	{"SELECT upper(current_user)", "upper('agent'"},
	{"SELECT 'staff_salaries'::regclass", "to_regclass('staff_salaries')"},
	{"SELECT '16390'::regclass", "'16390'::pg_catalog.oid::pg_catalog.regclass"},
	{"SELECT 16390::regclass", "(SELECT 16390 OFFSET 0)"},
	{"SELECT CAST(oid AS regclass) FROM pg_class", "(SELECT oid OFFSET 0)"},
	{"SELECT 'int4'::regtype", "to_regtype('int4')"},
	{"SELECT to_regclass('staff_salaries')", "'staff_salaries'::pg_catalog.text"},
	{"SELECT pg_relation_size('staff_salaries')", "pg_catalog.to_regclass('staff_salaries')"},
	{"SELECT pg_relation_size('orders_pkey')", "pg_catalog.to_regclass('orders_pkey')"},
	{"SELECT pg_get_indexdef(16390)", "(SELECT 16390 OFFSET 0)"},
	{"SELECT pg_get_constraintdef(1)", "pg_catalog.pg_constraint vk"},
	{"SELECT has_table_privilege('agent', 'staff_salaries', 'select')", "'staff_salaries'::pg_catalog.text"},
	{"SELECT has_table_privilege('agent', 'orders', 'select')", "WHEN 'agent' THEN current_user WHEN 'public'"},
	{"SELECT has_table_privilege(current_user, 'orders', 'select')",
	 "ELSE NULL::pg_catalog.name END FROM (SELECT 'agent'::pg_catalog.name)"},
	/* A name computed at run time: the agent's or public, else NULL. */
	{"SELECT pg_has_role('post' || 'gres', 'member')",
	 "CASE g.a::pg_catalog.text WHEN 'agent' THEN current_user WHEN 'public' THEN 'public'::pg_catalog.name ELSE "
	 "NULL::pg_catalog.name END FROM (SELECT 'post' || 'gres')"},
	{"SELECT pg_has_role('agent', 'agent', 'member')", "THEN current_user WHEN 'public'"},
	{"SELECT format_type(1, NULL)", "pg_catalog.pg_type vt"},
	{"SELECT pg_filenode_relation(0, 1)", "(SELECT pg_catalog.pg_filenode_relation(0, 1) OFFSET 0)"},
	{"SELECT pg_stat_get_live_tuples(1)", "(SELECT 1 OFFSET 0)"},
	{"SELECT obj_description(1, 'pg_class')", "pg_catalog.pg_constraint hk"},
	{"SELECT pg_relation_size((SELECT oid FROM pg_class LIMIT 1))", "pg_catalog.pg_class r"},
	/* The other reg* types: a schema, or what a hidden schema or type would be printed in, reads as NULL. */
	{"SELECT 'secret'::regnamespace", "(SELECT pg_catalog.to_regnamespace('secret') OFFSET 0) g(a) WHERE"},
	{"SELECT 'secret'::regnamespace", "= ANY(ARRAY(SELECT airlock_schemas.oid FROM airlock_schemas))"},
	{"SELECT 'secret'::regnamespace",
	 "airlock_schemas(oid) AS MATERIALIZED (SELECT vs.oid FROM pg_catalog.pg_namespace vs"},
	{"SELECT '16390'::pg_catalog.regnamespace",
	 "(SELECT '16390'::pg_catalog.oid::pg_catalog.regnamespace OFFSET 0)"},
	{"SELECT 16390::regnamespace::text", "(SELECT 16390 OFFSET 0) g(a) WHERE CASE WHEN"},
	{"SELECT n::regnamespace FROM (VALUES ('x')) v(n)", "pg_catalog.to_regnamespace(g.a::pg_catalog.text)"},
	{"SELECT 'f'::regproc", "(SELECT pg_catalog.to_regproc('f') OFFSET 0) g(a)"},
	{"SELECT '1234'::regprocedure", "pg_catalog.unnest(gq.proargtypes::pg_catalog.oid[])"},
	{"SELECT oid::regprocedure FROM pg_proc", "gp.oid IN (SELECT airlock_functions.oid FROM airlock_functions)"},
	{"SELECT oid::regprocedure FROM pg_proc",
	 "airlock_functions(oid) AS MATERIALIZED (SELECT fp.oid FROM pg_catalog.pg_proc fp"},
	{"SELECT '+'::regoper", "pg_catalog.to_regoper('+')"},
	{"SELECT '551'::regoperator", "gr.oprleft IN (SELECT airlock_types.oid FROM airlock_types)"},
	{"SELECT x::regprocedure FROM (VALUES ('1')) v(x)", "ELSE NULL::pg_catalog.oid END"},
	{"SELECT '\"C\"'::regcollation", "pg_catalog.to_regcollation('\"C\"')"},
	{"SELECT 'english'::regconfig", "(SELECT 'english'::pg_catalog.regconfig OFFSET 0) g(a) WHERE"},
	{"SELECT 'simple'::regdictionary", "gd.dictnamespace IN"},
	{"SELECT to_tsvector('english'::regconfig, 'a cat')", "gf.cfgnamespace IN"},
	/* A view's definition reads as NULL when it reads outside the world, an allowed name's too. */
	{"SELECT pg_get_viewdef('orders')", "dd.classid = 2618"},
	{"SELECT definition FROM pg_views", "{\"definition\": null}"},
	{"SELECT ev_action FROM pg_rewrite", "{\"ev_qual\": null, \"ev_action\": null}"},
};

static void test_rewrites(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rewrites) / sizeof(rewrites[0]); i++) {
		struct pgv_result r;
		char *out = scope(&policy, rewrites[i].sql, &r);

		if (!out)
			fail_msg("refused: %s: %s", rewrites[i].sql, r.message);
		if (!strstr(out, rewrites[i].must))
			fail_msg("%s\n  rewritten: %s\n  lacks: %s", rewrites[i].sql, out, rewrites[i].must);
		assert_one_read(out);
		free(out);
	}
}

struct refusal_case {
	const char *sql;
	const char *sqlstate;
	enum airlock_err code;
};

static const struct refusal_case refusals[] = {
	{"SELECT * FROM pg_authid", "42501", AIRLOCK_E_TABLE_NOT_ALLOWED},
	/* Roles other than the one in the world do not exist. */
	{"SELECT has_table_privilege('airlock_ro', 'orders', 'select')", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT pg_has_role('postgres', 'member')", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT pg_has_role('agent', 'postgres', 'usage')", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT has_column_privilege('postgres', 'orders', 'id', 'select')", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT rolpassword FROM pg_catalog.pg_shadow", "42501", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT * FROM pg_largeobject", "42501", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT * FROM pg_user_mappings", "42501", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT * FROM information_schema._pg_user_mappings", "42501", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT * FROM pg_catalog.pg_not_a_catalog", "42501", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT * FROM information_schema.not_a_view", "42501", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"WITH pg_class AS (SELECT 1) SELECT * FROM pg_class", "0A000", AIRLOCK_E_UNSUPPORTED},
	/* The names of the scoping's own CTEs: the agent's nearer CTE would be read in their place. */
	{"WITH airlock_visible(oid) AS (SELECT 1::oid) SELECT relname FROM pg_class", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"SELECT (WITH airlock_c1 AS (SELECT 1) SELECT 1) FROM pg_class", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"WITH airlock_c12 AS (SELECT 1) SELECT * FROM airlock_c12", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"SELECT (WITH airlock_types(oid) AS (SELECT 1::oid) SELECT format_type(1, NULL))", "0A000",
	 AIRLOCK_E_UNSUPPORTED},
	{"SELECT '{orders}'::regclass[]", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"SELECT '{public}'::regnamespace[]", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"SELECT 'abs(staff_salaries)'::regprocedure", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"SELECT '+(int4,int4)'::pg_catalog.regoperator", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"SELECT pg_relation_size(VARIADIC ARRAY['orders'::regclass])", "0A000", AIRLOCK_E_UNSUPPORTED},
	{"SELECT NULL::staff_salaries", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT NULL::public.staff_salaries[]", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT CAST(NULL AS public._staff_salaries)", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT * FROM json_to_record('{}') AS t(a staff_salaries)", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT NULL::no_such_type", "42704", AIRLOCK_E_TABLE_NOT_ALLOWED},
	{"SELECT NULL::a.b.c", "0A000", AIRLOCK_E_UNSUPPORTED},
};

static void test_refusals(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
		struct pgv_result r;
		char *out = scope(&policy, refusals[i].sql, &r);

		if (out)
			fail_msg("not refused: %s -> %s", refusals[i].sql, out);
		assert_int_equal(r.kind, PGV_REFUSED);
		assert_string_equal(r.sqlstate, refusals[i].sqlstate);
		assert_int_equal(r.code, refusals[i].code);
		assert_true(r.message[0] != '\0');
	}
}

/* pg_stat_statements is refused in any schema a policy might allow. */
static void test_statement_statistics_refused(void **state)
{
	static const char *const all[] = {"public.*", "pg_catalog.*"};
	const struct pgv_policy p = {.tables = all, .ntables = 2, .search_path = path, .nsearch_path = 1};
	struct pgv_result r;

	(void)state;
	assert_null(scope(&p, "SELECT query FROM pg_stat_statements", &r));
	assert_int_equal(r.code, AIRLOCK_E_TABLE_NOT_ALLOWED);
	assert_null(scope(&p, "SELECT * FROM public.pg_stat_statements_info", &r));
	assert_int_equal(r.code, AIRLOCK_E_TABLE_NOT_ALLOWED);
}

/* Functions that show other sessions or name any object by oid are refused by the validator itself. */
static void test_denied_functions(void **state)
{
	static const char *const sqls[] = {
		"SELECT pg_stat_get_backend_activity(1)",
		"SELECT pg_stat_get_activity(NULL)",
		"SELECT * FROM pg_stat_get_progress_info('VACUUM')",
		"SELECT pg_blocking_pids(1)",
		"SELECT * FROM pg_lock_status()",
		"SELECT * FROM pg_stat_statements(true)",
		"SELECT pg_describe_object(1259, 16390, 0)",
		"SELECT * FROM pg_identify_object(1259, 16390, 0)",
		"SELECT regclassout(16390)",
		"SELECT regclass('staff_salaries')",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++) {
		struct pgv_result r;

		if (pgv_validate(&policy, sqls[i], &r) != PGV_REFUSED)
			fail_msg("not refused: %s", sqls[i]);
		assert_int_equal(r.code, AIRLOCK_E_FORBIDDEN_FUNCTION);
	}
}

/*
 * search_path puts pg_catalog after a schema: an unqualified catalog name
 * could resolve either way, so it must be qualified; qualified it is scoped.
 */
static void test_search_path_order(void **state)
{
	static const char *const later[] = {"public", "pg_catalog"};
	static const char *const all[] = {"public.*", "pg_catalog.*"};
	const struct pgv_policy p = {.tables = all, .ntables = 2, .search_path = later, .nsearch_path = 2};
	struct pgv_result r;
	char *out;

	(void)state;
	assert_null(scope(&p, "SELECT * FROM pg_stats", &r));
	assert_string_equal(r.sqlstate, "0A000");
	out = scope(&p, "SELECT * FROM pg_catalog.pg_stats", &r);
	assert_non_null(out);
	assert_non_null(strstr(out, "pg_catalog.pg_stats r"));
	free(out);
	/* A plain table name stays a plain table. */
	out = scope(&p, "SELECT * FROM orders", &r);
	assert_string_equal(out, "SELECT * FROM orders");
	free(out);
}

/* A literal the allowlist allows by name stays; under a narrower policy the same literal is guarded. */
static void test_literal_by_policy(void **state)
{
	static const char *const narrow[] = {"public.customers", "pg_catalog.*"};
	const struct pgv_policy p = {.tables = narrow, .ntables = 2, .search_path = path, .nsearch_path = 1};
	struct pgv_result r;
	char *out;

	(void)state;
	out = scope(&p, "SELECT 'orders'::regclass", &r);
	assert_non_null(strstr(out, "to_regclass('orders')"));
	free(out);
	out = scope(&p, "SELECT 'customers'::regclass", &r);
	assert_string_equal(out, "SELECT 'customers'::regclass");
	free(out);
	out = scope(&p, "SELECT '\"Customers\"'::regclass", &r);
	assert_non_null(strstr(out, "to_regclass"));
	free(out);
}

/* Malformed or hostile text never crashes the scoping and never runs unscoped. */
static void test_robust(void **state)
{
	struct pgv_result r;
	char *out = NULL;

	(void)state;
	assert_int_equal(pgv_scope(&policy, "SELECT (", &out, &r), PGV_REFUSED);
	assert_null(out);
	assert_int_equal(pgv_scope(&policy, "", &out, &r), PGV_READ);
	assert_null(out);
	/* The placeholder name written by the agent is just a column. */
	out = scope(&policy, "SELECT airlock_guarded_value FROM orders", &r);
	assert_string_equal(out, "SELECT airlock_guarded_value FROM orders");
	free(out);
	/* A user name with quotes is a literal, not SQL. */
	{
		struct pgv_policy q = policy;

		q.user = "a'b";
		out = scope(&q, "SELECT current_user", &r);
		assert_non_null(strstr(out, "'a''b'"));
		assert_one_read(out);
		free(out);
	}
}

/* Row filters and column policies: the table becomes the rule's subquery wherever it is read. */

/* A filtered subquery is a fence: the statement's conditions run on what the filter kept. */
static void test_filters_are_fenced(void **state)
{
	static const char *const sqls[] = {
		"SELECT count(*) FROM pg_stats WHERE CASE WHEN tablename = 'x' THEN 1/length(tablename) ELSE 1 END = 1",
		"SELECT relname FROM pg_class WHERE relname = 'orders'",
		"SELECT column_name FROM information_schema.columns WHERE table_name = 'orders'",
	};
	struct pgv_result r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++) {
		char *out = scope(&policy, sqls[i], &r);

		if (!strstr(out, " OFFSET 0)"))
			fail_msg("not fenced: %s -> %s", sqls[i], out);
		free(out);
	}
}

/* How often sub occurs in text. */
static size_t count_of(const char *text, const char *sub)
{
	size_t n = 0;

	for (const char *at = strstr(text, sub); at; at = strstr(at + 1, sub))
		n++;
	return n;
}

/*
 * The filtered catalogs become CTEs of the outermost query, one per
 * distinct filter however often it is read, with the visible set once;
 * the agent's own CTEs come after them and read them.
 */
static void test_filters_hoisted(void **state)
{
	static const struct {
		const char *sql;
		size_t ctes; /* airlock_c<n> defined */
		const char *must;
	} cases[] = {
		{"SELECT a.relname, b.relname FROM pg_class a JOIN pg_class b ON a.oid = b.oid", 1,
		 "FROM airlock_c1 a JOIN airlock_c1 b ON"},
		{"SELECT (SELECT c.collname FROM pg_collation c WHERE c.oid = a.attcollation) FROM pg_attribute a", 2,
		 "FROM airlock_c1 c WHERE"},
		{"SELECT relname FROM pg_class UNION SELECT attname FROM pg_attribute", 2, "UNION SELECT attname FROM"},
		{"SELECT * FROM ONLY pg_class, pg_class p", 2, "FROM ONLY pg_catalog.pg_class r"},
		{"WITH t AS (SELECT relname FROM pg_class) SELECT * FROM t, pg_class", 1,
		 "), t AS (SELECT relname FROM"},
		{"EXPLAIN SELECT relname FROM pg_class", 1, "EXPLAIN WITH airlock_visible"},
		{"SELECT format_type(1, NULL)", 0, "FROM airlock_visible"},
		{"WITH airlock_cte AS (SELECT relname FROM pg_class) SELECT * FROM airlock_cte", 1, "airlock_cte AS"},
	};
	struct pgv_result r;
	char name[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = scope(&policy, cases[i].sql, &r);

		if (!out)
			fail_msg("refused: %s: %s", cases[i].sql, r.message);
		if (strncmp(out, "WITH airlock_visible(oid) AS MATERIALIZED (", 43) != 0 &&
		    strncmp(out, "EXPLAIN WITH airlock_visible(oid) AS MATERIALIZED (", 51) != 0)
			fail_msg("%s\n  does not start with the visible set: %s", cases[i].sql, out);
		if (count_of(out, "airlock_visible(oid) AS") != 1 || count_of(out, "pg_catalog.pg_index vx") != 1)
			fail_msg("%s\n  visible set not once: %s", cases[i].sql, out);
		if (!strstr(out, cases[i].must))
			fail_msg("%s\n  rewritten: %s\n  lacks: %s", cases[i].sql, out, cases[i].must);
		for (size_t k = 1; k <= cases[i].ctes + 1; k++) {
			snprintf(name, sizeof(name), "airlock_c%zu AS MATERIALIZED (", k);
			if (count_of(out, name) != (k <= cases[i].ctes ? 1u : 0u))
				fail_msg("%s\n  not %zu filters: %s", cases[i].sql, cases[i].ctes, out);
		}
		assert_one_read(out);
		free(out);
	}
}

/* The world's sets a statement's guards read are CTEs too: written out once however many guards read them. */
static void test_sets_hoisted(void **state)
{
	static const char *const sets[] = {
		"airlock_types(oid) AS MATERIALIZED (SELECT vt.oid FROM pg_catalog.pg_type vt",
		"airlock_schemas(oid) AS MATERIALIZED (SELECT vs.oid",
		"airlock_functions(oid) AS MATERIALIZED (SELECT fp.oid"};
	struct pgv_result r;
	char *out;

	(void)state;
	out = scope(&policy,
		    "SELECT format_type(a.atttypid, NULL), format_type(a.atttypid, a.atttypmod), 'f'::regproc, "
		    "to_regproc('g'), 'secret'::regnamespace, 'x'::regnamespace FROM pg_attribute a",
		    &r);
	assert_non_null(out);
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (count_of(out, sets[i]) != 1)
			fail_msg("not once: %s in %s", sets[i], out);
	}
	assert_int_equal(count_of(out, "pg_catalog.pg_type vt "), 1);
	assert_true(count_of(out, "FROM airlock_types)") >= 2);
	assert_int_equal(count_of(out, "airlock_visible(oid) AS"), 1);
	assert_one_read(out);
	free(out);
}

/* An unqualified relation may not take a CTE's name either; qualified, it is the table. */
static void test_reserved_relation_names(void **state)
{
	static const char *const all[] = {"public.*", "pg_catalog.*", "information_schema.*"};
	const struct pgv_policy p = {
		.tables = all, .ntables = 3, .search_path = path, .nsearch_path = 1, .user = "agent"};
	struct pgv_result r;
	char *out;

	(void)state;
	out = scope(&p, "SELECT * FROM airlock_c1, pg_class", &r);
	assert_null(out);
	assert_int_equal(r.code, AIRLOCK_E_UNSUPPORTED);
	assert_non_null(strstr(r.message, "reserved"));
	out = scope(&p, "SELECT * FROM airlock_visible", &r);
	assert_null(out);
	out = scope(&p, "SELECT * FROM public.airlock_c1 t, pg_class", &r);
	assert_non_null(out);
	assert_non_null(strstr(out, "FROM public.airlock_c1 t, airlock_c1 pg_class"));
	free(out);
	out = scope(&p, "SELECT * FROM airlock_events", &r);
	assert_string_equal(out, "SELECT * FROM airlock_events");
	free(out);
}

static void test_rules(void **state)
{
	struct pgv_policy p = policy;
	static const char *const two[] = {"app", "public"};
	struct pgv_result r;
	char *out;

	(void)state;
	p.rules = support_rules;
	p.nrules = 2;
	out = scope(&p, "SELECT * FROM orders", &r);
	assert_non_null(strstr(out, "FROM public.orders WHERE (SELECT CASE WHEN ad.n IS NULL THEN true"));
	assert_non_null(strstr(out, "AND customer_id <= 100 OFFSET 0) orders")); /* fenced: PGV_SCOPE_FENCE */
	/* The settings that turn text into values and back are checked first, once. */
	assert_non_null(strstr(out, "'TimeZone', 'DateStyle', 'IntervalStyle', 'bytea_output', 'extra_float_digits'"));
	assert_non_null(strstr(out, "ag.setting IS DISTINCT FROM ag.reset_val"));
	assert_one_read(out);
	free(out);
	out = scope(&p, "SELECT o.id FROM public.orders o JOIN customers c ON c.id = o.customer_id", &r);
	assert_non_null(strstr(out, "customer_id <= 100 OFFSET 0) o JOIN"));
	assert_non_null(strstr(out, "AS email FROM public.customers WHERE (SELECT CASE WHEN ad.n IS NULL"));
	free(out);
	out = scope(&p, "SELECT * FROM ONLY orders AS x(a, b)", &r);
	assert_non_null(strstr(out, "FROM ONLY public.orders"));
	assert_non_null(strstr(out, ") x(a, b)"));
	free(out);
	out = scope(&p, "SELECT (SELECT count(*) FROM orders), (SELECT 1 FROM products LIMIT 1)", &r);
	assert_non_null(strstr(out, "customer_id <= 100"));
	free(out);
	/* A CTE of the table's name, or a schema that could capture the name: refused. */
	assert_null(scope(&p, "WITH orders AS (SELECT 1) SELECT * FROM orders", &r));
	assert_string_equal(r.sqlstate, "0A000");
	{
		static const char *const with_app[] = {"app.*", "public.orders", "pg_catalog.*"};
		struct pgv_policy q = p;

		q.tables = with_app;
		q.ntables = 3;
		q.search_path = two;
		q.nsearch_path = 2;
		assert_null(scope(&q, "SELECT * FROM orders", &r));
		assert_string_equal(r.sqlstate, "0A000");
		/* Qualified too: a rule's own names resolve through the search_path. */
		assert_null(scope(&q, "SELECT * FROM public.orders", &r));
		assert_string_equal(r.sqlstate, "0A000");
		assert_non_null(strstr(r.hint, "search_path"));
		/* Tables without a rule read as before under any search_path. */
		out = scope(&q, "SELECT * FROM app.t", &r);
		free(out);
	}
	/* Its plan and its own text would show the filter. */
	assert_null(scope(&p, "EXPLAIN SELECT * FROM orders", &r));
	assert_string_equal(r.sqlstate, "0A000");
	assert_null(scope(&p, "SELECT query FROM pg_stat_activity, orders", &r));
	assert_null(scope(&p, "SELECT current_query() FROM customers", &r));
	out = scope(&p, "EXPLAIN SELECT * FROM products", &r);
	free(out);
	/* Statistics and hidden columns of ruled tables leave the catalogs. */
	out = scope(&p, "SELECT * FROM pg_stats", &r);
	assert_non_null(strstr(out, "r.tablename) IN (SELECT rn.nspname, rc.relname"));
	/* ... and so do those of their indexes, partitions, children and TOAST tables. */
	assert_non_null(strstr(out, "pg_catalog.to_regclass('\"public\".\"orders\"')"));
	assert_non_null(strstr(out, "pg_catalog.pg_inherits"));
	assert_non_null(strstr(out, "rx.indexrelid, rx.indrelid"));
	assert_non_null(strstr(out, "rt.reltoastrelid"));
	assert_one_read(out);
	free(out);
	out = scope(&p, "SELECT * FROM pg_statistic", &r);
	assert_non_null(strstr(out, "r.starelid IN (WITH RECURSIVE airlock_ruled"));
	assert_one_read(out);
	free(out);
	out = scope(&p, "SELECT * FROM pg_attribute", &r);
	assert_non_null(strstr(out, "r.attname IN ('id', 'name', 'email')"));
	/* Column grants name roles: the column reads as NULL. */
	assert_non_null(strstr(out, "NULL::pg_catalog.aclitem[] AS attacl"));
	assert_null(strstr(out, "r.attacl"));
	/* In the order its plan gives a table's columns: clients rely on it. */
	assert_non_null(strstr(out, "ORDER BY attrelid, attnum OFFSET 0"));
	free(out);
	out = scope(&p, "SELECT column_name FROM information_schema.columns", &r);
	assert_non_null(strstr(out, "ORDER BY table_schema, table_name, ordinal_position OFFSET 0"));
	free(out);
	/* Their figures read as a never analyzed, never used table's. */
	out = scope(&p, "SELECT reltuples, relpages FROM pg_class", &r);
	assert_non_null(strstr(out, "\"reltuples\": -1, \"relpages\": 0"));
	assert_non_null(strstr(out, "r.oid IN (WITH RECURSIVE airlock_ruled"));
	assert_one_read(out);
	free(out);
	out = scope(&p, "SELECT n_live_tup, seq_tup_read FROM pg_stat_user_tables", &r);
	assert_non_null(strstr(out, "\"n_live_tup\": 0"));
	assert_non_null(strstr(out, "r.relid IN (WITH RECURSIVE airlock_ruled"));
	free(out);
	out = scope(&p,
		    "SELECT pg_relation_size('orders'), pg_table_size('staff_salaries'), pg_relation_size(1, 'fsm')",
		    &r);
	assert_non_null(strstr(out, "THEN pg_catalog.pg_relation_size(g.a::pg_catalog.regclass) END"));
	assert_non_null(strstr(out, "pg_catalog.to_regclass('staff_salaries')")); /* the guard, inside */
	assert_non_null(strstr(out, "pg_catalog.pg_relation_size(g.a::pg_catalog.regclass, 'fsm')"));
	assert_one_read(out);
	free(out);
	assert_null(scope(&p, "SELECT pg_relation_size('orders', current_user)", &r));
	/* An index or a constraint on a column a rule hides is hidden with it. */
	out = scope(&p, "SELECT * FROM pg_index", &r);
	assert_non_null(strstr(out, "hd.objid = vx.indexrelid"));
	assert_non_null(strstr(out, "ha.attname IN ('id', 'name', 'email')"));
	assert_one_read(out);
	free(out);
	out = scope(&p, "SELECT * FROM pg_constraint", &r);
	assert_non_null(strstr(out, "ha.attnum = ANY(vk.conkey)"));
	assert_one_read(out);
	free(out);
	out = scope(&p, "SELECT idx_scan FROM pg_stat_user_indexes", &r);
	assert_non_null(strstr(out, "r.indexrelid IN (WITH RECURSIVE airlock_ruled"));
	free(out);
}

/* A filtered catalog read as q.tableoid, or bare where it stands alone in a FROM, keeps the system column; others do
 * not. */
static void test_tableoid(void **state)
{
	static const struct {
		const char *sql;
		bool kept;
	} cases[] = {
		{"SELECT c.tableoid, c.oid FROM pg_catalog.pg_class c WHERE c.relname = 'orders'", true},
		{"SELECT pg_class.tableoid FROM pg_class", true},
		{"SELECT tableoid, oid, nspname FROM pg_namespace", true},
		{"SELECT d.description FROM pg_class c LEFT JOIN pg_description d ON c.oid = d.objoid AND "
		 "c.tableoid = d.classoid",
		 true},
		{"SELECT c.oid FROM pg_class c", false},
		{"SELECT tableoid FROM pg_class c, pg_namespace n", false},
		/* pg_dump: the outer query's one relation, beside subqueries of their own. */
		{"SELECT tableoid, oid, typname, CASE WHEN typrelid = 0 THEN ' '::\"char\" ELSE (SELECT relkind FROM "
		 "pg_class WHERE oid = typrelid) END AS typrelkind FROM pg_type",
		 true},
	};
	struct pgv_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = scope(&policy, cases[i].sql, &r);

		assert_non_null(out);
		assert_one_read(out);
		if (cases[i].kept != (strstr(out, "r.tableoid FROM") != NULL))
			fail_msg("%s: %s", cases[i].sql, out);
		free(out);
	}
}

/* An array cast to regclass[] / regtype[] guards each element (pgcli: proallargtypes::regtype[]). */
static void test_reg_array_casts(void **state)
{
	static const char *const reads[] = {
		"SELECT p.proallargtypes::regtype[] FROM pg_catalog.pg_proc p",
		"SELECT ARRAY['orders', 'staff_salaries']::regclass[]",
		"SELECT CAST(i.indclass AS pg_catalog.regclass[]) FROM pg_index i",
	};
	struct pgv_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		char *out = scope(&policy, reads[i], &r);

		if (!out)
			fail_msg("%s: refused: %s", reads[i], r.message);
		assert_one_read(out);
		assert_non_null(strstr(out, "pg_catalog.unnest("));
		assert_non_null(strstr(out, "WITH ORDINALITY"));
		free(out);
	}
	/* A literal array, and regrole / regproc arrays, stay refused. */
	assert_null(scope(&policy, "SELECT '{orders}'::regclass[]", &r));
	assert_string_equal(r.sqlstate, "0A000");
	assert_null(scope(&policy, "SELECT ARRAY[1]::regproc[]", &r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_sorted),
		cmocka_unit_test(test_key_lookups_enter_the_copy),
		cmocka_unit_test(test_every_filter_parses),
		cmocka_unit_test(test_expand_quotes_policy_names),
		cmocka_unit_test(test_untouched),
		cmocka_unit_test(test_calls_qualified),
		cmocka_unit_test(test_rewrites),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_statement_statistics_refused),
		cmocka_unit_test(test_denied_functions),
		cmocka_unit_test(test_search_path_order),
		cmocka_unit_test(test_literal_by_policy),
		cmocka_unit_test(test_robust),
		cmocka_unit_test(test_filters_are_fenced),
		cmocka_unit_test(test_filters_hoisted),
		cmocka_unit_test(test_sets_hoisted),
		cmocka_unit_test(test_reserved_relation_names),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_tableoid),
		cmocka_unit_test(test_reg_array_casts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
