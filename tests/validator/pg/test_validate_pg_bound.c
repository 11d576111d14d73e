/*
 * test_validate_pg_bound: deep statements are refused before anything
 * recursive sees them, whatever builds the depth (a chain of one
 * operator, brackets, set operations, joins, CASE, prefix operators), and
 * flat statements of the same size pass; a relation that the scoping
 * would turn into a subquery where the grammar takes only a relation
 * (TABLESAMPLE) is refused, never handed to the deparser.
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
#include "validator/pg/validate_pg_bound.h"
#include "validator/pg/validate_pg_scope.h"

static const char *const tables[] = {
	"public.orders",
	"public.customers",
	"pg_catalog.*",
	"information_schema.*",
};
static const char *const path[] = {"public"};
static const struct airlock_rule rules[] = {
	{.table = "public.orders", .filter = "region = 'eu'"},
};
static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = sizeof(tables) / sizeof(tables[0]),
	.search_path = path,
	.nsearch_path = 1,
	.user = "agent",
	.rules = rules,
	.nrules = 1,
};

/* head, then n copies of item, then n copies of tail (heap). */
static char *repeat(const char *head, const char *item, const char *tail, size_t n)
{
	size_t lh = strlen(head), li = strlen(item), lt = strlen(tail);
	char *s = malloc(lh + n * (li + lt) + 1), *p = s;

	assert_non_null(s);
	memcpy(p, head, lh);
	p += lh;
	for (size_t i = 0; i < n; i++, p += li)
		memcpy(p, item, li);
	for (size_t i = 0; i < n; i++, p += lt)
		memcpy(p, tail, lt);
	*p = '\0';
	return s;
}

static void assert_too_deep(char *sql)
{
	struct pgv_result r;
	size_t off[4], len[4];
	char *out = NULL;

	assert_int_equal(pgv_validate(&policy, sql, &r), PGV_REFUSED);
	assert_string_equal(r.sqlstate, "54001");
	assert_int_equal(r.code, AIRLOCK_E_TOO_COMPLEX);
	assert_int_equal(pgv_validate_again(&policy, sql, &r), PGV_REFUSED);
	assert_string_equal(r.sqlstate, "54001");
	assert_int_equal(pgv_scope(&policy, sql, &out, &r), PGV_REFUSED);
	assert_null(out);
	assert_int_equal(pgv_split(sql, off, len, 4), 0);
	free(sql);
}

static void assert_read(char *sql)
{
	struct pgv_result r;

	if (pgv_validate(&policy, sql, &r) != PGV_READ)
		fail_msg("refused (%s %s): %.80s", r.sqlstate, r.message, sql);
	free(sql);
}

/* 80,000 terms is 160 kB and more: well under max_message_bytes. */
#define DEEP 80000

static void test_operator_chains_refused(void **state)
{
	static const char *const items[] = {
		"+1",   "||'a'",   "::int", " IS NOT NULL", " COLLATE \"C\"",      " AT TIME ZONE 'UTC'",
		"*2-1", " = true", "[1]",   "->'a'",        " IS DISTINCT FROM 1", " LIKE 'a'",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		assert_too_deep(repeat("SELECT 1", items[i], "", DEEP));
}

static void test_prefix_and_bracket_nesting_refused(void **state)
{
	(void)state;
	assert_too_deep(repeat("SELECT ", "NOT ", "true", DEEP));
	assert_too_deep(repeat("SELECT ", "- ", "1", DEEP));
	assert_too_deep(repeat("SELECT 1 FROM orders WHERE ", "(", ")", DEEP));
	assert_too_deep(repeat("SELECT ", "ARRAY[", "]", 5000));
	assert_too_deep(repeat("SELECT ", "CASE WHEN true THEN ", " END", 5000));
	assert_too_deep(repeat("SELECT ", "abs(", ")", 5000));
	assert_too_deep(repeat("SELECT ", "(SELECT ", ")", 5000));
	assert_too_deep(repeat("SELECT 1", " UNION SELECT 1, 2", "", 5000));
	assert_too_deep(repeat("SELECT * FROM orders a", " JOIN orders b ON a.id = b.id AND true", "", 5000));
	assert_too_deep(repeat("SELECT 1; SELECT 1", "+1", "", DEEP));
}

/* Width is not depth: long lists of siblings are read as before. */
static void test_flat_lists_pass(void **state)
{
	char *sql;

	(void)state;
	sql = repeat("SELECT 1 FROM orders WHERE id IN (0", ", 1", "", 50000);
	sql = realloc(sql, strlen(sql) + 2);
	strcat(sql, ")");
	assert_read(sql);
	assert_read(repeat("SELECT 1 FROM orders WHERE id = 0", " OR id = 1 + 1", "", 20000));
	assert_read(repeat("SELECT 1 FROM orders WHERE id = 0", " AND NOT id = 1", "", 20000));
	assert_read(repeat("VALUES (0, 'a')", ", (1, 'b')", "", 20000));
	assert_read(repeat("SELECT 0", ", abs(-1) + 1", "", 20000));
	sql = repeat("SELECT CASE WHEN id = 0 THEN 0", " WHEN id = 1 THEN 1", "", 5000);
	sql = realloc(sql, strlen(sql) + sizeof(" END FROM orders"));
	strcat(sql, " END FROM orders");
	assert_read(sql);
	assert_read(repeat("SELECT 1 FROM orders WHERE id BETWEEN 1 AND 2", " OR id BETWEEN 3 + 1 AND 4", "", 5000));
}

static void test_estimate_is_small_for_ordinary_reads(void **state)
{
	(void)state;
	assert_true(pgv_nesting("SELECT o.id, c.name FROM orders o JOIN customers c ON c.id = o.customer_id "
				"WHERE o.total > 10 AND (c.name LIKE 'a%' OR c.name IS NULL) ORDER BY 1 LIMIT 5") < 30);
	assert_int_equal(pgv_nesting("SELECT 'unterminated"), 0);
}

static char *scoped(const char *sql, struct pgv_result *r)
{
	char *out = NULL;

	if (pgv_validate(&policy, sql, r) != PGV_READ)
		fail_msg("%s: %s %s", sql, r->sqlstate, r->message);
	pgv_scope(&policy, sql, &out, r);
	return out;
}

static void test_tablesample_of_scoped_relation_refused(void **state)
{
	static const char *const reads[] = {
		"SELECT count(*) FROM pg_class TABLESAMPLE BERNOULLI (100)",
		"SELECT count(*) FROM orders TABLESAMPLE SYSTEM (10)",
		"SELECT count(*) FROM public.orders TABLESAMPLE SYSTEM (10) REPEATABLE (1)",
		"SELECT count(*) FROM information_schema.tables TABLESAMPLE SYSTEM (10)",
		"SELECT count(*) FROM pg_stats TABLESAMPLE SYSTEM (10)",
		"SELECT * FROM customers c JOIN pg_catalog.pg_attribute a TABLESAMPLE SYSTEM (1) ON true",
		"SELECT * FROM customers WHERE id IN (SELECT id FROM orders TABLESAMPLE BERNOULLI (5))",
		"WITH x AS (SELECT * FROM pg_class TABLESAMPLE SYSTEM (1)) SELECT * FROM x",
		"SELECT * FROM LATERAL (SELECT * FROM orders TABLESAMPLE SYSTEM (1)) s",
	};
	struct pgv_result r;
	char *out;

	(void)state;
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		out = scoped(reads[i], &r);
		if (out || r.kind != PGV_REFUSED)
			fail_msg("not refused: %s -> %s", reads[i], out ? out : "(as written)");
		assert_string_equal(r.sqlstate, "0A000");
		assert_int_equal(r.code, AIRLOCK_E_UNSUPPORTED);
		assert_non_null(strstr(r.message, "TABLESAMPLE"));
	}
}

/* A relation the policy does not rewrite keeps its TABLESAMPLE, beside rewritten ones. */
static void test_tablesample_of_plain_relation_kept(void **state)
{
	struct pgv_result r;
	char *out;

	(void)state;
	out = scoped("SELECT id FROM customers TABLESAMPLE SYSTEM (10)", &r);
	if (r.kind != PGV_READ)
		fail_msg("%s %s", r.sqlstate, r.message);
	assert_null(out); /* runs as written */
	out = scoped("SELECT * FROM customers c TABLESAMPLE SYSTEM (10) JOIN orders o ON o.customer_id = c.id", &r);
	if (r.kind != PGV_READ)
		fail_msg("%s %s", r.sqlstate, r.message);
	assert_non_null(out);
	assert_non_null(strstr(out, "TABLESAMPLE system"));
	assert_non_null(strstr(out, "region = 'eu'"));
	assert_int_equal(pgv_validate(&policy, out, &r), PGV_READ);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operator_chains_refused),
		cmocka_unit_test(test_prefix_and_bracket_nesting_refused),
		cmocka_unit_test(test_flat_lists_pass),
		cmocka_unit_test(test_estimate_is_small_for_ordinary_reads),
		cmocka_unit_test(test_tablesample_of_scoped_relation_refused),
		cmocka_unit_test(test_tablesample_of_plain_relation_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
