/*
 * test_validate_my_scope: the MySQL catalog scoping. Every classified
 * information_schema table's filter expands; references become filtered
 * derived tables under their own name or alias; the SHOW forms that list
 * tables and databases become filtered SELECTs with the same columns;
 * what names other sessions or InnoDB's internals is refused whatever the
 * allowlist says; and every rewrite validates again as a read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/config.h"
#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_scope.h"
#include "validator/mysql/validate_my_scope_tables.h"

static const char *const tables[] = {"shop.orders", "shop.customers", "information_schema.*"};

static const struct vmy_policy policy = {
	.user = "agent",
	.database = "shop",
	.tables = tables,
	.ntables = 3,
};

/* Validates and scopes sql; returns the rewrite (heap) or NULL when it runs as written. */
static char *scope(const struct vmy_policy *pol, const char *sql)
{
	struct vmy_result *r = calloc(1, sizeof(*r)), *again = calloc(1, sizeof(*again));
	bool failed;
	char *out;

	assert_non_null(r);
	assert_non_null(again);
	vmy_validate(pol, sql, strlen(sql), r);
	if (r->kind != VMY_READ)
		fail_msg("not a read: %s: %s", sql, r->message);
	out = vmy_scope(pol, sql, strlen(sql), r, &failed);
	assert_false(failed);
	if (out) {
		struct vmy_policy ext = *pol;

		ext.rewrite = true;
		vmy_validate(&ext, out, strlen(out), again);
		if (again->kind != VMY_READ)
			fail_msg("rewrite does not validate: %s\n  %s\n  %s", sql, out, again->message);
	}
	free(r);
	free(again);
	return out;
}

static void refused(const struct vmy_policy *pol, const char *sql, uint16_t my_errno)
{
	struct vmy_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	vmy_validate(pol, sql, strlen(sql), r);
	if (r->kind != VMY_REFUSED)
		fail_msg("not refused: %s", sql);
	assert_int_equal(r->my_errno, my_errno);
	free(r);
}

static void test_table_sorted_and_filters_expand(void **state)
{
	const struct vmy_is_table *e;
	size_t i;

	(void)state;
	assert_true(vmy_is_table_sorted());
	for (i = 0; (e = vmy_is_table_entry(i)) != NULL; i++) {
		struct wbuf w;

		if (e->mode != VMY_IS_FILTER) {
			assert_null(e->filter);
			continue;
		}
		wbuf_init(&w);
		if (!vmy_scope_expand(&w, &policy, e->filter))
			fail_msg("%s: filter does not expand", e->name);
		assert_false(w.failed);
		assert_null(memchr(w.data, '@', w.len));
		wbuf_free(&w);
	}
	assert_non_null(vmy_is_table_find("tables"));
	assert_true(vmy_is_table_denied("innodb_sys_tables"));
	assert_false(vmy_is_table_known("not_a_table"));
}

static void test_untouched(void **state)
{
	static const char *const sqls[] = {
		"SELECT * FROM orders",
		"SELECT o.id FROM shop.orders o JOIN customers c ON c.id = o.customer_id",
		"SELECT * FROM information_schema.COLLATIONS",
		"SELECT * FROM information_schema.ENGINES e",
		"SHOW COLUMNS FROM orders",
		"SHOW CREATE TABLE orders",
		"DESCRIBE orders",
		"WITH TABLES AS (SELECT 1 AS a) SELECT * FROM TABLES",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sqls) / sizeof(sqls[0]); i++) {
		char *out = scope(&policy, sqls[i]);

		if (out)
			fail_msg("rewritten: %s -> %s", sqls[i], out);
	}
}

struct rewrite_case {
	const char *sql;
	const char *must;
};

static const struct rewrite_case rewrites[] = {
	{"SELECT * FROM information_schema.TABLES", "r.TEMPORARY FROM information_schema.`TABLES` r WHERE"},
	{"SELECT * FROM information_schema.tables", ") `tables`"},
	{"SELECT t.table_name FROM information_schema.TABLES t",
	 "'information_schema')) LIMIT 18446744073709551615) t"},
	{"SELECT c.x FROM information_schema.COLUMNS AS c", "LIMIT 18446744073709551615) AS c"},
	{"SELECT * FROM `information_schema`.`STATISTICS`", "information_schema.`STATISTICS` r"},
	{"SELECT (SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE) FROM orders",
	 "(r.CONSTRAINT_SCHEMA, r.TABLE_NAME, r.CONSTRAINT_NAME) NOT IN (SELECT"},
	{"SELECT * FROM information_schema.TABLES, information_schema.COLUMNS", ") `COLUMNS`"},
	{"SELECT * FROM information_schema.SCHEMATA", "BINARY r.SCHEMA_NAME = X'73686F70'"},
	{"SELECT * FROM information_schema.TABLES WHERE TABLE_NAME = 'orders'",
	 "BINARY r.TABLE_NAME = X'6F7264657273'"},
	{"SHOW TABLES", "SELECT TABLE_NAME AS `Tables_in_shop` FROM information_schema.TABLES"},
	{"SHOW FULL TABLES FROM shop", "TABLE_TYPE AS `Table_type`"},
	{"SHOW TABLES LIKE 'o%'", "AND TABLE_NAME LIKE 'o%' ORDER BY 1"},
	{"SHOW TABLES WHERE Tables_in_shop = 'orders'",
	 "LIMIT 18446744073709551615) AS `airlock_show` WHERE Tables_in_shop = 'orders' ORDER BY 1"},
	{"SHOW TABLE STATUS", "IF((FALSE), NULL, TABLE_ROWS) AS `Rows`"},
	{"SHOW TABLE STATUS LIKE 'orders'", "AND TABLE_NAME LIKE 'orders'"},
	{"SHOW DATABASES", "SELECT SCHEMA_NAME AS `Database` FROM information_schema.SCHEMATA"},
	{"SHOW SCHEMAS LIKE 's%'", "AND SCHEMA_NAME LIKE 's%'"},
	{"SHOW TABLES WHERE Tables_in_shop IN (SELECT TABLE_NAME FROM information_schema.TABLES)",
	 "IN (SELECT TABLE_NAME FROM (SELECT r.TABLE_CATALOG, "},
	{"SELECT * FROM information_schema.TABLES;", "'information_schema')) LIMIT 18446744073709551615) `TABLES`"},
};

static void test_rewrites(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(rewrites) / sizeof(rewrites[0]); i++) {
		char *out = scope(&policy, rewrites[i].sql);

		if (!out)
			fail_msg("not rewritten: %s", rewrites[i].sql);
		if (!strstr(out, rewrites[i].must))
			fail_msg("%s\n  rewritten: %s\n  lacks: %s", rewrites[i].sql, out, rewrites[i].must);
		free(out);
	}
}

/*
 * The filter is a wall: the derived table ends in a LIMIT, so MariaDB neither
 * merges it nor pushes the statement's own conditions into it, where they
 * would run on a hidden table's row (and fail only for it: EXP(1000)).
 */
static void test_outer_conditions_stay_outside(void **state)
{
	static const struct rewrite_case walls[] = {
		{"SELECT TABLE_NAME FROM information_schema.TABLES WHERE IF(TABLE_NAME = 'h', EXP(1000), 0)",
		 "'information_schema')) LIMIT 18446744073709551615) `TABLES` WHERE IF(TABLE_NAME = 'h'"},
		{"SELECT COLUMN_NAME FROM information_schema.COLUMNS c WHERE c.TABLE_NAME = 'h' AND EXP(1000)",
		 "LIMIT 18446744073709551615) c WHERE c.TABLE_NAME = 'h' AND EXP(1000)"},
		{"SELECT 1 FROM orders WHERE EXISTS (SELECT 1 FROM information_schema.STATISTICS s WHERE EXP(1000))",
		 "LIMIT 18446744073709551615) s WHERE EXP(1000))"},
		{"SHOW TABLE STATUS WHERE IF(Name = 'h', EXP(1000), 0)",
		 "LIMIT 18446744073709551615) AS `airlock_show` WHERE IF(Name = 'h', EXP(1000), 0)"},
		{"SHOW FULL TABLES FROM shop WHERE Table_type = 'BASE TABLE'",
		 "LIMIT 18446744073709551615) AS `airlock_show` WHERE Table_type = 'BASE TABLE'"},
		{"SHOW DATABASES WHERE IF(`Database` = 'mysql', EXP(1000), 0)",
		 "LIMIT 18446744073709551615) AS `airlock_show` WHERE IF(`Database` = 'mysql'"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(walls) / sizeof(walls[0]); i++) {
		char *out = scope(&policy, walls[i].sql);

		if (!out || !strstr(out, walls[i].must))
			fail_msg("%s\n  rewritten: %s\n  lacks: %s", walls[i].sql, out ? out : "(nothing)",
				 walls[i].must);
		free(out);
	}
}

/* With information_schema the current database, unqualified names are its tables. */
/* "SELECT 1 FROM <n references>" or a SHOW DATABASES whose WHERE reads n rule tables (heap). */
static char *many(const char *head, const char *ref, int n)
{
	size_t cap = strlen(head) + (size_t)n * (strlen(ref) + 16) + 2;
	char *sql = malloc(cap);
	size_t used;

	assert_non_null(sql);
	used = (size_t)snprintf(sql, cap, "%s", head);
	for (int i = 0; i < n; i++)
		used += (size_t)snprintf(sql + used, cap - used, "%s%s t%d", i ? ", " : "", ref, i);
	snprintf(sql + used, cap - used, "%s", strchr(head, '(') ? ")" : "");
	return sql;
}

/* The rewrite holds what the statement names and what its filters and SHOW forms add: never more than
 * VMY_MAX_SCOPED, or the statement is refused before its rewrite would be. */
static void test_references_counted_with_what_the_rewrite_adds(void **state)
{
	char *sql;

	(void)state;
	/* Each key catalog's filter reads KEY_COLUMN_USAGE once more. */
	sql = many("SELECT 1 FROM ", "information_schema.TABLE_CONSTRAINTS", VMY_MAX_SCOPED / 2);
	free(scope(&policy, sql));
	free(sql);
	sql = many("SELECT 1 FROM ", "information_schema.TABLE_CONSTRAINTS", VMY_MAX_SCOPED / 2 + 1);
	refused(&policy, sql, 1235);
	free(sql);
	sql = many("SELECT 1 FROM ", "information_schema.TABLES", VMY_MAX_SCOPED);
	free(scope(&policy, sql));
	free(sql);
	/* SHOW DATABASES becomes a read of SCHEMATA. */
	sql = many("SHOW DATABASES WHERE `Database` IN (SELECT TABLE_NAME FROM ", "information_schema.TABLES",
		   VMY_MAX_SCOPED - 1);
	free(scope(&policy, sql));
	free(sql);
	sql = many("SHOW DATABASES WHERE `Database` IN (SELECT TABLE_NAME FROM ", "information_schema.TABLES",
		   VMY_MAX_SCOPED);
	refused(&policy, sql, 1235);
	free(sql);
}

static void test_current_database(void **state)
{
	struct vmy_policy p = policy;
	char *out;

	(void)state;
	p.database = "information_schema";
	out = scope(&p, "SELECT * FROM TABLES");
	assert_non_null(out);
	assert_non_null(strstr(out, "information_schema.`TABLES` r"));
	free(out);
	out = scope(&p, "SHOW TABLES");
	assert_non_null(strstr(out, "Tables_in_information_schema"));
	free(out);
}

/* Other sessions' statements, InnoDB's table list and secrets: refused even when allowlisted. */
static void test_never_readable(void **state)
{
	static const char *const all[] = {"performance_schema.*", "sys.*", "mysql.*", "information_schema.*",
					  "information_schema.innodb_trx"};
	const struct vmy_policy p = {.user = "agent", .database = "mysql", .tables = all, .ntables = 5};

	(void)state;
	refused(&p, "SELECT * FROM performance_schema.events_statements_history", 1142);
	refused(&p, "SELECT * FROM sys.processlist", 1142);
	refused(&p, "SELECT * FROM mysql.user", 1142);
	refused(&p, "SELECT * FROM global_priv", 1142);
	refused(&p, "SELECT * FROM information_schema.INNODB_TRX", 1142);
	refused(&p, "SELECT * FROM information_schema.innodb_sys_tables", 1142);
	/* FILES (paths) reads as empty. */
	char *out = scope(&p, "SELECT FILE_NAME FROM information_schema.FILES");

	assert_non_null(strstr(out, "information_schema.`FILES` r WHERE FALSE"));
	free(out);
	refused(&policy, "SELECT * FROM information_schema.NOT_A_TABLE_YET", 1142);
	refused(&policy, "SELECT * FROM information_schema.PROCESSLIST", 1142);
	free(scope(&p, "SELECT * FROM mysql.time_zone_name"));
}

/* PROCESSLIST listed by name shows the runner's own connection only. */
static void test_processlist_own_session(void **state)
{
	static const char *const listed[] = {"shop.*", "information_schema.processlist"};
	const struct vmy_policy p = {.user = "agent", .database = "shop", .tables = listed, .ntables = 2};
	char *out;

	(void)state;
	out = scope(&p, "SELECT INFO FROM information_schema.PROCESSLIST");
	assert_non_null(strstr(out, "r.ID = CONNECTION_ID()"));
	free(out);
}

/* Policy names are hexadecimal literals: no quote in a name can end the string. */
static void test_policy_names_are_hex(void **state)
{
	static const char *const odd[] = {"we'ird.t`1", "information_schema.*"};
	const struct vmy_policy p = {.user = "agent", .database = "shop", .tables = odd, .ntables = 2};
	char *out;

	(void)state;
	out = scope(&p, "SELECT * FROM information_schema.TABLES");
	assert_non_null(strstr(out, "X'776527697264'"));
	assert_null(strstr(out, "we'ird"));
	free(out);
}

static struct airlock_column cols[] = {{"id", NULL}, {"email", "LEFT(email, 1)"}};
static const struct airlock_rule rules[] = {
	{.table = "shop.orders", .filter = "customer_id <= 100"},
	{.table = "shop.customers", .columns = cols, .ncolumns = 2, .has_columns = true},
};

/* Row filters and column policies: the table becomes the rule's derived table wherever it is read. */
static void test_rules(void **state)
{
	struct vmy_policy p = policy;
	char *out;

	(void)state;
	p.rules = rules;
	p.nrules = 2;
	out = scope(&p, "SELECT * FROM orders");
	assert_non_null(strstr(
		out, "(SELECT * FROM `shop`.`orders` WHERE (customer_id <= 100) LIMIT 18446744073709551615) `orders`"));
	free(out);
	out = scope(&p, "SELECT o.id FROM shop.orders AS o JOIN customers c ON c.id = o.customer_id");
	assert_non_null(strstr(out, "customer_id <= 100) LIMIT 18446744073709551615) AS o JOIN"));
	assert_non_null(strstr(out, "(SELECT `id`, (LEFT(email, 1)) AS `email` FROM `shop`.`customers`) c"));
	free(out);
	out = scope(&p,
		    "SELECT * FROM (SELECT customer_id FROM orders) d WHERE customer_id IN (SELECT id FROM customers)");
	assert_non_null(strstr(out, "customer_id <= 100"));
	assert_non_null(strstr(out, "LEFT(email, 1)"));
	free(out);
	/* A CTE of the table's name is the CTE. */
	out = scope(&p, "WITH orders AS (SELECT 1 AS a) SELECT * FROM orders");
	assert_null(out);
	/* Case matters, as on MariaDB: ORDERS is another table (and not allowed). */
	refused(&p, "SELECT * FROM ORDERS", 1142);
	/* The definition of a column-restricted table would name the hidden columns. */
	refused(&p, "DESCRIBE customers", 1235);
	refused(&p, "SHOW CREATE TABLE shop.customers", 1235);
	refused(&p, "SHOW COLUMNS FROM customers", 1235);
	free(scope(&p, "DESCRIBE orders"));
	/* Figures that count a ruled table's rows read as unknown; SHOW CREATE TABLE of a filtered
	 * table (AUTO_INCREMENT) is refused, SHOW INDEX reads the filtered STATISTICS. */
	out = scope(&p, "SELECT TABLE_ROWS FROM information_schema.TABLES");
	assert_non_null(strstr(out, "IF(((BINARY r.TABLE_SCHEMA = X'73686F70' AND BINARY r.TABLE_NAME = "
				    "X'6F7264657273') OR (BINARY r.TABLE_SCHEMA = X'73686F70' AND BINARY "
				    "r.TABLE_NAME = X'637573746F6D657273')), NULL, r.TABLE_ROWS) AS TABLE_ROWS"));
	free(out);
	out = scope(&p, "SELECT CARDINALITY FROM information_schema.STATISTICS");
	assert_non_null(strstr(out, "NULL, r.CARDINALITY) AS CARDINALITY"));
	free(out);
	out = scope(&p, "SHOW TABLE STATUS");
	assert_non_null(strstr(out, "X'637573746F6D657273')), NULL, TABLE_ROWS) AS `Rows`"));
	free(out);
	out = scope(&p, "SELECT * FROM information_schema.KEY_COLUMN_USAGE");
	assert_non_null(strstr(out, "k.REFERENCED_COLUMN_NAME IN (X'6964', X'656D61696C')"));
	free(out);
	out = scope(&p, "SHOW KEYS FROM orders WHERE Key_name <> 'x'");
	assert_non_null(strstr(out, "SELECT * FROM (SELECT r.TABLE_NAME AS `Table`, r.NON_UNIQUE AS `Non_unique`"));
	assert_non_null(strstr(out, "X'637573746F6D657273')), NULL, r.CARDINALITY) AS `Cardinality`"));
	assert_non_null(
		strstr(out, "BINARY r.TABLE_SCHEMA = X'73686F70' AND BINARY r.TABLE_NAME = X'6F7264657273' AND "));
	/* An index named as a hidden key is left out with it. */
	assert_non_null(strstr(out, "(r.TABLE_SCHEMA, r.TABLE_NAME, r.INDEX_NAME) NOT IN (SELECT k.CONSTRAINT_SCHEMA"));
	assert_non_null(strstr(out, ") AS `airlock_show` WHERE Key_name <> 'x'"));
	assert_null(strstr(out, "ORDER BY"));
	free(out);
	/* db.table.column of a ruled table: the derived table has no database, so "shop." goes. */
	out = scope(&p,
		    "SELECT shop.customers.email, `shop`.`customers`.id, shop . customers . name FROM shop.customers "
		    "WHERE shop.customers.id > 0 AND other.customers.id IS NULL");
	assert_non_null(strstr(out, "SELECT customers.email, `customers`.id, customers . name FROM (SELECT"));
	assert_non_null(strstr(out, "WHERE customers.id > 0 AND other.customers.id IS NULL"));
	free(out);
	out = scope(&p, "SELECT information_schema.TABLES.TABLE_NAME FROM information_schema.TABLES");
	assert_non_null(strstr(out, "SELECT TABLES.TABLE_NAME FROM (SELECT"));
	free(out);
	/* A table read as it is keeps its columns as written. */
	assert_null(scope(&p, "SELECT information_schema.ENGINES.ENGINE FROM information_schema.ENGINES"));
	out = scope(&p, "SHOW INDEX FROM customers IN shop");
	assert_non_null(strstr(out, "r.COLUMN_NAME IN (X'6964', X'656D61696C')"));
	free(out);
	refused(&p, "SHOW INDEX FROM staff_salaries", 1142);
	refused(&p, "SHOW INDEX FROM shop.orders FROM shop", 1064);
	refused(&p, "SHOW CREATE TABLE orders", 1235);
	free(scope(&p, "SHOW COLUMNS FROM orders"));
	/* information_schema lists only the shown columns. */
	out = scope(&p, "SELECT COLUMN_NAME FROM information_schema.COLUMNS");
	assert_non_null(strstr(out, "r.COLUMN_NAME IN (X'6964', X'656D61696C')"));
	/* A default or generation expression that may name a hidden column reads as NULL. */
	assert_non_null(
		strstr(out, "LOCATE(h.COLUMN_NAME, d.COLUMN_DEFAULT) > 0), NULL, r.COLUMN_DEFAULT) AS COLUMN_DEFAULT"));
	assert_non_null(strstr(out, "NULL, r.GENERATION_EXPRESSION) AS GENERATION_EXPRESSION"));
	/* A ruled table's shown columns are numbered without gaps. */
	assert_non_null(strstr(out, "CAST(ROW_NUMBER() OVER (PARTITION BY r.TABLE_SCHEMA, r.TABLE_NAME ORDER BY "
				    "r.ORDINAL_POSITION) AS UNSIGNED), r.ORDINAL_POSITION) AS ORDINAL_POSITION"));
	free(out);
	/* A table read through a filter is a derived table: no PARTITION; its index hints go inside it. */
	refused(&p, "SELECT * FROM orders PARTITION (p0)", 1235);
	out = scope(&p, "SELECT * FROM orders USE INDEX (orders_customer_id) WHERE customer_id = 3");
	assert_non_null(strstr(out, "FROM `shop`.`orders` USE INDEX (orders_customer_id) WHERE ("));
	assert_non_null(strstr(out, "LIMIT 18446744073709551615) `orders`  WHERE customer_id = 3"));
	free(out);
	out = scope(&p, "SELECT o.id FROM shop.orders AS o FORCE INDEX FOR JOIN (PRIMARY) IGNORE KEY (x), "
			"customers c USE INDEX () WHERE o.id = 1");
	assert_non_null(strstr(out, "FROM `shop`.`orders` FORCE INDEX FOR JOIN (PRIMARY) IGNORE KEY (x) WHERE ("));
	assert_non_null(strstr(out, "FROM `shop`.`customers` USE INDEX ()) c"));
	assert_non_null(strstr(out, " AS o , ("));
	assert_null(strstr(out, "o FORCE"));
	free(out);
	refused(&p, "SELECT * FROM information_schema.TABLES USE INDEX (x)", 1235);
	/* On a table without a rule they stay the server's business. */
	assert_null(scope(&policy, "SELECT * FROM orders PARTITION (p0) o USE INDEX (PRIMARY)"));
}

/* UUID() ends in the backend host's MAC address: each call becomes a random version 4 UUID. */
static void test_uuid_is_random(void **state)
{
	static const char *const reads[] = {
		"SELECT UUID()",
		"SELECT uuid ( ) AS u, id FROM orders",
		"SELECT id FROM orders WHERE RIGHT(UUID(), 12) <> '' ORDER BY UUID()",
		"SELECT (SELECT UUID()), UUID() FROM information_schema.TABLES",
		"EXPLAIN SELECT UUID() FROM orders",
		"SHOW TABLES WHERE UUID() IS NOT NULL",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		char *out = scope(&policy, reads[i]);
		const char *at = out;
		size_t n = 0;

		assert_non_null(out);
		while ((at = strstr(at, "RANDOM_BYTES(6)")) != NULL) {
			n++;
			at++;
		}
		assert_int_equal(n,
				 strstr(reads[i], "UUID() FROM information") || strstr(reads[i], "ORDER BY") ? 2 : 1);
		assert_null(strstr(out, "uuid"));
		assert_null(strstr(out, "UUID"));
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted_and_filters_expand),
		cmocka_unit_test(test_untouched),
		cmocka_unit_test(test_rewrites),
		cmocka_unit_test(test_outer_conditions_stay_outside),
		cmocka_unit_test(test_references_counted_with_what_the_rewrite_adds),
		cmocka_unit_test(test_current_database),
		cmocka_unit_test(test_never_readable),
		cmocka_unit_test(test_processlist_own_session),
		cmocka_unit_test(test_policy_names_are_hex),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_uuid_is_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
