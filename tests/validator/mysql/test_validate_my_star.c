/* Tests for forbid_select_star on MySQL: which stars give the result's columns, and what stays allowed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/config.h"
#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_scope.h"

static const char *const tables[] = {"shop.orders", "shop.customers", "information_schema.*"};
static struct airlock_column cols[] = {{"id", NULL}, {"name", NULL}};
static const struct airlock_rule rules[] = {
	{.table = "shop.customers", .columns = cols, .ncolumns = 2, .has_columns = true},
	{.table = "shop.orders", .filter = "customer_id <= 100"},
};

static struct vmy_policy policy(bool forbid, bool ruled)
{
	return (struct vmy_policy){
		.user = "agent",
		.database = "shop",
		.tables = tables,
		.ntables = 3,
		.rules = ruled ? rules : NULL,
		.nrules = ruled ? 2 : 0,
		.forbid_star = forbid,
	};
}

static void assert_star(const char *sql)
{
	struct vmy_policy on = policy(true, false), off = policy(false, false);
	struct vmy_result v;

	vmy_validate(&on, sql, strlen(sql), &v);
	if (v.kind != VMY_REFUSED || v.code != AIRLOCK_E_SELECT_STAR)
		fail_msg("not refused as SELECT_STAR: %s (%s)", sql, v.message);
	assert_int_equal(v.my_errno, 1142);
	assert_string_equal(v.sqlstate, "42000");
	assert_non_null(strstr(v.message, "'agent'"));
	vmy_validate(&off, sql, strlen(sql), &v);
	if (v.kind != VMY_READ)
		fail_msg("not a read without forbid_star: %s (%s)", sql, v.message);
}

static void assert_fine(const char *sql)
{
	struct vmy_policy on = policy(true, false);
	struct vmy_result v;

	vmy_validate(&on, sql, strlen(sql), &v);
	if (v.kind == VMY_REFUSED)
		fail_msg("refused: %s (%s)", sql, v.message);
}

static void test_stars_in_the_result(void **state)
{
	static const char *const refused[] = {
		"SELECT * FROM orders",
		"select * from shop.orders where id = 1",
		"SELECT o.* FROM orders o",
		"SELECT id, o.* FROM orders o",
		"SELECT `o`.* FROM orders AS `o`",
		"SELECT shop.orders.* FROM shop.orders",
		"SELECT *, 1 AS one FROM orders",
		"SELECT DISTINCT * FROM orders",
		"SELECT SQL_NO_CACHE * FROM orders",
		"SELECT STRAIGHT_JOIN * FROM orders JOIN customers",
		"SELECT * FROM orders LIMIT 1",
		"SELECT c.*, o.id FROM orders o JOIN customers c ON c.id = o.customer_id",
		"SELECT id FROM orders UNION SELECT * FROM customers",
		"SELECT * FROM orders UNION ALL SELECT * FROM orders",
		"(SELECT * FROM orders) UNION (SELECT id FROM customers)",
		"((SELECT * FROM orders))",
		"SELECT id FROM orders EXCEPT SELECT * FROM customers",
		"WITH x AS (SELECT id FROM orders) SELECT * FROM x",
		"WITH x AS (SELECT * FROM orders) SELECT x.* FROM x",
		"SELECT * FROM (SELECT id, note FROM orders) s",
		"SELECT s.* FROM (SELECT * FROM orders) s",
		"SELECT * FROM orders;",
		"SELECT /* c */ * FROM orders -- x\n",
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
		"SELECT COUNT(*) FROM orders",
		"SELECT count(*) AS n, MAX(id) FROM orders",
		"SELECT COUNT(DISTINCT id), COUNT(*) * 2 FROM orders",
		"SELECT id * 2, 3 * 4, (id) * id FROM orders",
		"SELECT id FROM orders WHERE EXISTS (SELECT * FROM customers)",
		"SELECT id FROM orders WHERE customer_id IN (SELECT * FROM (SELECT id FROM customers) c)",
		"SELECT EXISTS (SELECT * FROM customers)",
		"SELECT (SELECT * FROM (SELECT MAX(id) FROM customers) m) AS top",
		"SELECT id FROM (SELECT * FROM orders) s",
		"WITH x AS (SELECT * FROM orders) SELECT id, note FROM x",
		"SELECT a.id FROM (SELECT * FROM orders) a JOIN (SELECT * FROM customers) b ON a.id = b.id",
		"SELECT id FROM orders WHERE id * 2 > 3 ORDER BY id * 2",
		"SELECT 1",
		"VALUES (1, 2)",
		"EXPLAIN SELECT * FROM orders",
		"DESCRIBE orders",
		"SHOW COLUMNS FROM orders",
		"SHOW TABLES",
		"SHOW COUNT(*) WARNINGS",
		"SELECT @@version_comment",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
		assert_fine(fine[i]);
}

/* Every other refusal comes first: refused for its star, the read passed everything else. */
static void test_other_refusals_first(void **state)
{
	struct vmy_policy on = policy(true, false);
	struct vmy_result v;
	static const struct {
		const char *sql;
		enum airlock_err code;
	} cases[] = {
		{"SELECT * FROM secrets", AIRLOCK_E_TABLE_NOT_ALLOWED},
		{"SELECT * FROM orders FOR UPDATE", AIRLOCK_E_NOT_READ_ONLY},
		{"SELECT *, LOAD_FILE('/etc/passwd') FROM orders", AIRLOCK_E_FORBIDDEN_FUNCTION},
		{"SELECT * FROM orders; SELECT 1", AIRLOCK_E_MULTI_STATEMENT},
		{"SELECT * FROM orders INTO OUTFILE '/tmp/x'", AIRLOCK_E_NOT_READ_ONLY},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		vmy_validate(&on, cases[i].sql, strlen(cases[i].sql), &v);
		assert_int_equal(v.kind, VMY_REFUSED);
		if (v.code != cases[i].code)
			fail_msg("%s: code %d, wanted %d", cases[i].sql, v.code, cases[i].code);
	}
}

/*
 * A read of a table with a rule: the rewrite puts derived tables in place of the table, and is validated
 * again without tripping on them; the hint's describe runs the same read with the star allowed.
 */
static void test_rewrite_is_not_judged(void **state)
{
	struct vmy_policy on = policy(true, true);
	struct vmy_result v, again;
	const char *sql = "SELECT c.id, c.name FROM customers c JOIN orders o ON o.customer_id = c.id";
	bool failed = false;
	char *text;

	(void)state;
	vmy_validate(&on, sql, strlen(sql), &v);
	assert_int_equal(v.kind, VMY_READ);
	text = vmy_scope(&on, sql, strlen(sql), &v, &failed);
	assert_false(failed);
	assert_non_null(text);
	on.rewrite = true;
	vmy_validate(&on, text, strlen(text), &again);
	assert_int_equal(again.kind, VMY_READ);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stars_in_the_result),
		cmocka_unit_test(test_stars_that_stay_inside),
		cmocka_unit_test(test_other_refusals_first),
		cmocka_unit_test(test_rewrite_is_not_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
