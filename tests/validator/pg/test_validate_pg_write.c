/*
 * test_validate_pg_write: which writes a user with write tables may ask
 * for, and the text each runs as: its table named by schema, the row
 * filter in an UPDATE's or DELETE's WHERE, the check column first in an
 * INSERT's or UPDATE's RETURNING, reads inside scoped as reads are, and
 * the descendant guard on the written table; and the dry run's variant,
 * which returns each row it touches as it was and as it will be.
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
#include "validator/pg/validate_pg_write.h"

static const char *const tables[] = {"public.orders", "public.customers", "public.products", "pg_catalog.*"};
static const char *const writes[] = {"public.orders", "public.customers"};
static const char *const path[] = {"public"};
static struct airlock_column customer_columns[] = {{"id", NULL}, {"name", NULL}, {"email", "'hidden'"}};
static const struct airlock_rule rules[] = {
	{.table = "public.orders", .filter = "customer_id <= 100"},
	{.table = "public.customers", .columns = customer_columns, .ncolumns = 3, .has_columns = true},
};
static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = 4,
	.search_path = path,
	.nsearch_path = 1,
	.rules = rules,
	.nrules = 2,
	.write_tables = writes,
	.nwrite_tables = 2,
};

static void assert_refused(const struct pgv_policy *p, const char *sql, enum airlock_err code, const char *part)
{
	struct pgv_result r;

	if (pgv_validate(p, sql, &r) != PGV_REFUSED)
		fail_msg("%s: kind %d, not refused", sql, r.kind);
	if (r.code != code || !strstr(r.message, part))
		fail_msg("%s: %s (%s), wanted %s", sql, r.message, airlock_err_name(r.code), part);
	/* Only a write names its table: the channel refuses a refusal that does. */
	if (r.target[0] || r.command[0])
		fail_msg("%s: refused, yet names %s %s", sql, r.command, r.target);
}

/* The text sql runs as (the caller frees), after it passed as a write; guard too when asked. */
static char *rewrite(const char *sql, struct pgv_result *r, char **guard)
{
	char *text = NULL, *g = NULL;

	if (pgv_validate(&policy, sql, r) != PGV_WRITE)
		fail_msg("%s: not a write: %s", sql, r->message);
	if (pgv_write_scope(&policy, sql, &text, &g, r) != PGV_WRITE)
		fail_msg("%s: scope refused: %s", sql, r->message);
	assert_non_null(text);
	if (guard)
		*guard = g;
	else
		free(g);
	return text;
}

static void test_writes_pass(void **state)
{
	static const struct {
		const char *sql, *command, *target;
		bool returning, check;
	} cases[] = {
		{"INSERT INTO orders (customer_id, amount) VALUES (5, 10)", "INSERT", "public.orders", false, true},
		{"INSERT INTO public.orders (customer_id, amount) VALUES ($1, $2) RETURNING id", "INSERT",
		 "public.orders", true, true},
		{"UPDATE orders SET amount = amount + 1 WHERE id = 3", "UPDATE", "public.orders", false, true},
		{"UPDATE orders o SET note = 'x' FROM customers c WHERE c.id = o.customer_id", "UPDATE",
		 "public.orders", false, true},
		{"DELETE FROM orders WHERE id = $1 RETURNING id, amount", "DELETE", "public.orders", true, false},
		{"DELETE FROM orders WHERE customer_id IN (SELECT id FROM customers WHERE name = 'x')", "DELETE",
		 "public.orders", false, false},
		{"INSERT INTO customers (id, name) VALUES (7, 'Ann')", "INSERT", "public.customers", false, false},
		{"UPDATE customers SET name = upper(name) WHERE id = 7 RETURNING id, name", "UPDATE",
		 "public.customers", true, false},
		{"INSERT INTO orders (customer_id, amount) SELECT id, 1 FROM customers WHERE id < 3", "INSERT",
		 "public.orders", false, true},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pgv_result r;
		char *text = rewrite(cases[i].sql, &r, NULL);

		assert_string_equal(r.command, cases[i].command);
		assert_string_equal(r.target, cases[i].target);
		assert_int_equal(r.returning, cases[i].returning);
		if (r.write_check != cases[i].check)
			fail_msg("%s: check %d in %s", cases[i].sql, r.write_check, text);
		free(text);
	}
}

/* The rewrite names the schema, filters the rows and returns the check first; it parses again as one write. */
static void test_rewrite(void **state)
{
	struct pgv_result r;
	char *guard = NULL;
	char *text = rewrite("UPDATE orders SET amount = 1 WHERE id = 3 RETURNING id", &r, &guard);
	PgQueryParseResult pr = pg_query_parse(text);

	(void)state;
	assert_null(pr.error);
	pg_query_free_parse_result(pr);
	assert_non_null(strstr(text, "UPDATE public.orders SET"));
	assert_non_null(strstr(text, "customer_id <= 100"));
	assert_non_null(strstr(text, "id = 3"));
	assert_non_null(strstr(text, "RETURNING ("));
	assert_non_null(strstr(text, "IS TRUE AS airlock_check, id"));
	assert_non_null(strstr(text, "RULE_SETTINGS"));
	/* The written table is guarded for descendants outside the world. */
	assert_non_null(guard);
	assert_non_null(strstr(guard, "'\"public\".\"orders\"'"));
	free(guard);
	free(text);

	text = rewrite("DELETE FROM orders", &r, NULL);
	assert_non_null(strstr(text, "DELETE FROM public.orders WHERE"));
	assert_non_null(strstr(text, "customer_id <= 100"));
	assert_null(strstr(text, "RETURNING"));
	free(text);

	/* No filter: the statement as sent, its table named. */
	text = rewrite("INSERT INTO customers (id, name) VALUES (7, 'Ann')", &r, NULL);
	assert_string_equal(text, "INSERT INTO public.customers (id, name) VALUES (7, 'Ann')");
	free(text);
}

static void test_refused(void **state)
{
	struct pgv_policy none = policy;

	(void)state;
	none.nwrite_tables = 0;
	assert_refused(&none, "INSERT INTO orders (amount) VALUES (1)", AIRLOCK_E_NOT_READ_ONLY, "");
	assert_refused(&policy, "INSERT INTO products (id) VALUES (1)", AIRLOCK_E_NOT_READ_ONLY,
		       "\"public.products\" is not one of your write tables");
	assert_refused(&policy, "DELETE FROM staff_salaries", AIRLOCK_E_NOT_READ_ONLY, "not one of your write tables");
	assert_refused(&policy, "UPDATE pg_catalog.pg_class SET relname = 'x'", AIRLOCK_E_NOT_READ_ONLY,
		       "not one of your write tables");
	assert_refused(&policy, "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d", AIRLOCK_E_NOT_READ_ONLY,
		       "");
	assert_refused(&policy, "WITH x AS (SELECT 1) UPDATE orders SET amount = 1", AIRLOCK_E_UNSUPPORTED, "WITH");
	assert_refused(&policy, "INSERT INTO orders (id) VALUES (1) ON CONFLICT DO NOTHING", AIRLOCK_E_UNSUPPORTED,
		       "ON CONFLICT");
	assert_refused(&policy, "DELETE FROM orders WHERE CURRENT OF c", AIRLOCK_E_UNSUPPORTED, "CURRENT OF");
	assert_refused(&policy, "INSERT INTO orders (id) OVERRIDING SYSTEM VALUE VALUES (1)", AIRLOCK_E_UNSUPPORTED,
		       "OVERRIDING");
	assert_refused(&policy, "UPDATE orders SET amount = 1; DELETE FROM orders", AIRLOCK_E_MULTI_STATEMENT, "");
	assert_refused(&policy, "UPDATE orders SET note = pg_read_file('/etc/passwd')", AIRLOCK_E_FORBIDDEN_FUNCTION,
		       "pg_read_file");
	assert_refused(&policy, "DELETE FROM orders WHERE id IN (SELECT id FROM staff_salaries)",
		       AIRLOCK_E_TABLE_NOT_ALLOWED, "staff_salaries");
	assert_refused(&policy, "DELETE FROM orders USING staff_salaries s WHERE s.id = orders.id",
		       AIRLOCK_E_TABLE_NOT_ALLOWED, "staff_salaries");
	assert_refused(&policy, "INSERT INTO orders (id) SELECT id FROM staff_salaries", AIRLOCK_E_TABLE_NOT_ALLOWED,
		       "staff_salaries");
	assert_refused(&policy, "UPDATE orders SET amount = (SELECT 1 FROM (DELETE FROM customers RETURNING 1) d)",
		       AIRLOCK_E_SYNTAX_ERROR, "");
}

/* What the rule hides or masks is never written, compared or returned. */
static void test_hidden_columns(void **state)
{
	static const char *const hidden[] = {
		"INSERT INTO customers (id, email) VALUES (1, 'x')",
		"INSERT INTO customers (id, secret) VALUES (1, 'x')",
		"INSERT INTO customers VALUES (1, 'x')",
		"UPDATE customers SET email = 'x' WHERE id = 1",
		"UPDATE customers SET name = 'x' WHERE email LIKE 'a%'",
		"UPDATE customers SET name = secret WHERE id = 1",
		"DELETE FROM customers WHERE secret = 1",
		"DELETE FROM customers RETURNING *",
		"DELETE FROM customers c RETURNING c.*",
		"DELETE FROM customers c RETURNING c",
		"DELETE FROM customers RETURNING row_to_json(customers)",
		"UPDATE customers SET name = 'x' RETURNING email",
	};
	struct pgv_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++) {
		if (pgv_validate(&policy, hidden[i], &r) != PGV_REFUSED)
			fail_msg("%s: not refused", hidden[i]);
		if (r.code != AIRLOCK_E_TABLE_NOT_ALLOWED || r.target[0])
			fail_msg("%s: %s", hidden[i], r.message);
	}
	/* A table without a column list: every column, RETURNING * included. */
	assert_int_equal(pgv_validate(&policy, "DELETE FROM orders WHERE id = 1 RETURNING *", &r), PGV_WRITE);
}

/* An unqualified table goes to the first schema of the search_path, named in the rewrite. */
static void test_search_path(void **state)
{
	static const char *const user_first[] = {"$user", "public"};
	static const char *const app_first[] = {"app", "public"};
	struct pgv_policy p = policy;
	struct pgv_result r;
	char *text = NULL, *guard = NULL;

	(void)state;
	p.search_path = user_first;
	p.nsearch_path = 2;
	assert_refused(&p, "DELETE FROM orders", AIRLOCK_E_UNSUPPORTED, "search_path");
	assert_int_equal(pgv_validate(&p, "DELETE FROM public.customers WHERE id = 1", &r), PGV_WRITE);
	p.search_path = app_first;
	assert_refused(&p, "DELETE FROM orders", AIRLOCK_E_NOT_READ_ONLY, "\"app.orders\"");
	/* A filtered table is written only under the default search_path, as it is read. */
	p.search_path = app_first;
	assert_int_equal(pgv_validate(&p, "DELETE FROM public.orders WHERE id = 1", &r), PGV_WRITE);
	assert_int_equal(pgv_write_scope(&p, "DELETE FROM public.orders WHERE id = 1", &text, &guard, &r), PGV_REFUSED);
	assert_null(text);
	assert_null(guard);
	assert_non_null(strstr(r.hint, "search_path"));
}

/* The dry run's variant of sql; it must parse as one statement of the same kind. */
static char *sample_of(const char *sql, struct pgv_result *r)
{
	char *text = rewrite(sql, r, NULL), *sample = pgv_write_sample(&policy, text, r);
	PgQueryParseResult pr;

	free(text);
	if (!sample)
		fail_msg("%s: no sample", sql);
	pr = pg_query_parse(sample);
	if (pr.error)
		fail_msg("%s: the sample does not parse: %s\n%s", sql, pr.error->message, sample);
	pg_query_free_parse_result(pr);
	return sample;
}

static void assert_has(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("wanted %s in:\n%s", part, text);
}

static void test_sample(void **state)
{
	struct pgv_result r;
	char *s;

	(void)state;
	/* UPDATE: the old rows joined one to one; the check first; the agent's RETURNING replaced. */
	s = sample_of("UPDATE orders SET amount = amount + 1 WHERE id = $1 RETURNING id, amount", &r);
	assert_has(s, "airlock_check");
	assert_has(s, "airlock_old.airlock_row AS airlock_before");
	assert_has(s, "pg_catalog.to_json(orders)) WITH ORDINALITY airlock_kv(k, v, n)) AS airlock_after");
	assert_has(s, "FROM public.orders airlock_o");
	assert_has(s, "orders.tableoid = airlock_old.airlock_tableoid");
	assert_has(s, "orders.ctid = airlock_old.airlock_ctid");
	assert_has(s, "customer_id <= 100");
	assert_true(strstr(s, "airlock_check") < strstr(s, "airlock_before"));
	assert_null(strstr(s, "RETURNING id"));
	free(s);
	/* ONLY stays ONLY, and an alias names the row. */
	s = sample_of("UPDATE ONLY public.orders AS o SET amount = 2 FROM products p WHERE o.id = p.id", &r);
	assert_has(s, "FROM ONLY public.orders airlock_o");
	assert_has(s, "pg_catalog.to_json(o)) WITH ORDINALITY airlock_kv(k, v, n)) AS airlock_after");
	assert_has(s, "o.ctid = airlock_old.airlock_ctid");
	assert_has(s, "products p");
	free(s);
	/* DELETE: the rows as they were, no check. */
	s = sample_of("DELETE FROM orders WHERE id = 3", &r);
	assert_has(s, "pg_catalog.to_json(orders)) WITH ORDINALITY airlock_kv(k, v, n)) AS airlock_before");
	assert_null(strstr(s, "airlock_after"));
	assert_null(strstr(s, "airlock_check"));
	free(s);
	/* INSERT: the rows as they will be. */
	s = sample_of("INSERT INTO orders (customer_id, amount) VALUES (5, 10) RETURNING id", &r);
	assert_has(s, "pg_catalog.to_json(orders)) WITH ORDINALITY airlock_kv(k, v, n)) AS airlock_after");
	assert_null(strstr(s, "airlock_before"));
	free(s);
	/* A rule's column list: its columns only, a masked one never read. */
	s = sample_of("UPDATE customers SET name = 'x' WHERE id = 1", &r);
	assert_has(s, "pg_catalog.json_build_object('id', customers.id, 'name', customers.name, 'email', "
		      "'(masked)'::pg_catalog.text)");
	assert_has(s, "pg_catalog.json_build_object('id', airlock_o.id, 'name', airlock_o.name, 'email', "
		      "'(masked)'::pg_catalog.text)");
	assert_has(s, "pg_catalog.json_object_agg(airlock_kv.k, airlock_kv.v ORDER BY airlock_kv.n)");
	assert_null(strstr(s, "airlock_o.email"));
	assert_null(strstr(s, "to_json"));
	assert_null(strstr(s, " json_"));
	free(s);
	/* Not a write's text: none. */
	r.kind = PGV_READ;
	assert_null(pgv_write_sample(&policy, "SELECT 1", &r));
	r.kind = PGV_WRITE;
	snprintf(r.command, sizeof(r.command), "DELETE");
	assert_null(pgv_write_sample(&policy, "SELECT 1", &r));
	assert_null(pgv_write_sample(&policy, "not sql", &r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writes_pass), cmocka_unit_test(test_rewrite),
		cmocka_unit_test(test_refused),     cmocka_unit_test(test_hidden_columns),
		cmocka_unit_test(test_search_path), cmocka_unit_test(test_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
