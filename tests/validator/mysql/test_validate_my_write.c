/*
 * test_validate_my_write: governed writes over MySQL. The accepted forms
 * and the text each runs as (the table named with its database, a row
 * filter joined to the WHERE or checked by RETURNING, subqueries scoped
 * as reads), which validates again as a write; and the refusals: a table
 * outside the write tables, a hidden or catalog table, several tables,
 * several statements, IGNORE, INSERT ... SELECT, ON DUPLICATE KEY UPDATE,
 * RETURNING, an UPDATE of a column the filter reads, a table whose rule
 * limits its columns, a user without write tables.
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
#include "validator/mysql/validate_my_write.h"
#include "validator/mysql/validate_my_write_sample.h"

static const char *const tables[] = {"shop.orders", "shop.customers", "shop.notes", "shop.staff",
				     "information_schema.*"};
static const char *const writes[] = {"shop.orders", "shop.notes", "shop.staff"};

static struct airlock_column staff_cols[] = {{.name = "id"}, {.name = "name"}};

static struct airlock_rule rules[] = {
	{.table = "shop.orders", .filter = "customer_id <= 100"},
	{.table = "shop.customers", .filter = "region = 'EU'"},
	{.table = "shop.staff", .columns = staff_cols, .ncolumns = 2, .has_columns = true},
};

static const struct vmy_policy policy = {
	.user = "writer",
	.database = "shop",
	.tables = tables,
	.ntables = 5,
	.rules = rules,
	.nrules = 3,
	.write_tables = writes,
	.nwrite_tables = 3,
};

/* sql passes as a write; returns the text that runs (heap), which validates again as the same write. */
static char *made(const char *sql, const char *command)
{
	struct vmy_result *r = calloc(1, sizeof(*r)), *again = calloc(1, sizeof(*again));
	struct vmy_policy ext = policy;
	char *out;

	assert_non_null(r);
	assert_non_null(again);
	vmy_validate(&policy, sql, strlen(sql), r);
	if (r->kind != VMY_WRITE)
		fail_msg("not a write: %s: %s (%s)", sql, r->message, r->hint);
	assert_string_equal(r->write.command, command);
	out = vmy_write_scope(&policy, sql, strlen(sql), r);
	assert_non_null(out);
	ext.rewrite = true;
	vmy_validate(&ext, out, strlen(out), again);
	if (again->kind != VMY_WRITE)
		fail_msg("the text that runs does not validate: %s\n  %s\n  %s", sql, out, again->message);
	free(r);
	free(again);
	return out;
}

static void expect_made(const char *sql, const char *command, const char *want)
{
	char *out = made(sql, command);

	if (strcmp(out, want) != 0)
		fail_msg("%s\n  made: %s\n  want: %s", sql, out, want);
	free(out);
}

static void refused_as(const struct vmy_policy *pol, const char *sql, enum airlock_err code, const char *part)
{
	struct vmy_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	vmy_validate(pol, sql, strlen(sql), r);
	if (r->kind != VMY_REFUSED)
		fail_msg("not refused: %s", sql);
	if (r->code != code)
		fail_msg("%s: code %d, want %d: %s", sql, r->code, code, r->message);
	if (part && !strstr(r->message, part) && !strstr(r->hint, part))
		fail_msg("%s: '%s' not in: %s / %s", sql, part, r->message, r->hint);
	free(r);
}

static void refused(const char *sql, enum airlock_err code, const char *part)
{
	refused_as(&policy, sql, code, part);
}

static void test_forms_and_what_runs(void **state)
{
	(void)state;
	expect_made("UPDATE notes SET body = 'x' WHERE id = 3", "UPDATE",
		    "UPDATE `shop`.`notes` SET body = 'x' WHERE id = 3");
	expect_made("update shop.notes n set n.body = concat(n.body, '!'), seen = 1 order by id limit 2", "UPDATE",
		    "update `shop`.`notes` n set n.body = concat(n.body, '!'), seen = 1 order by id limit 2");
	expect_made("DELETE FROM notes WHERE id IN (1, 2);", "DELETE", "DELETE FROM `shop`.`notes` WHERE id IN (1, 2)");
	expect_made("DELETE LOW_PRIORITY QUICK FROM notes", "DELETE", "DELETE LOW_PRIORITY QUICK FROM `shop`.`notes`");
	expect_made("INSERT INTO notes (id, body) VALUES (1, 'a'), (2, DEFAULT)", "INSERT",
		    "INSERT INTO `shop`.`notes` (id, body) VALUES (1, 'a'), (2, DEFAULT)");
	expect_made("insert notes value (1, 'a')", "INSERT", "insert `shop`.`notes` value (1, 'a')");
	expect_made("INSERT INTO notes SET id = 4, body = 'b'", "INSERT",
		    "INSERT INTO `shop`.`notes` SET id = 4, body = 'b'");
}

static void test_filter_joins_the_where(void **state)
{
	(void)state;
	/* An OR in the agent's condition stays inside its parentheses. */
	expect_made("UPDATE orders SET note = 'x' WHERE id = 1 OR 1 = 1", "UPDATE",
		    "UPDATE `shop`.`orders` SET note = 'x' WHERE (id = 1 OR 1 = 1) AND (customer_id <= 100)");
	expect_made("UPDATE orders SET note = 'x' ORDER BY id LIMIT 1", "UPDATE",
		    "UPDATE `shop`.`orders` SET note = 'x' WHERE (customer_id <= 100) ORDER BY id LIMIT 1");
	expect_made("DELETE FROM orders", "DELETE", "DELETE FROM `shop`.`orders` WHERE (customer_id <= 100)");
	expect_made("DELETE FROM orders WHERE amount > 5 -- tidy\n", "DELETE",
		    "DELETE FROM `shop`.`orders` WHERE (amount > 5) AND (customer_id <= 100)");
	/* An INSERT returns the filter's truth for each row it writes: the runner checks it. */
	expect_made("INSERT INTO orders (customer_id, amount) VALUES (7, 1.5)", "INSERT",
		    "INSERT INTO `shop`.`orders` (customer_id, amount) VALUES (7, 1.5) RETURNING "
		    "((customer_id <= 100) IS TRUE)");
}

static void test_reads_inside_are_scoped(void **state)
{
	char *out;

	(void)state;
	out = made("UPDATE notes SET body = 'vip' WHERE id IN (SELECT id FROM customers)", "UPDATE");
	assert_non_null(strstr(out, "(SELECT * FROM `shop`.`customers` WHERE (region = _utf8mb4 X'4555')"));
	assert_non_null(strstr(out, "UPDATE `shop`.`notes` SET"));
	free(out);
	out = made("INSERT INTO notes (id) VALUES ((SELECT max(id) FROM orders))", "INSERT");
	assert_non_null(strstr(out, "FROM `shop`.`orders` WHERE (customer_id <= 100)"));
	free(out);
	/* The target read inside its own write is read through its filter too. */
	out = made("DELETE FROM orders WHERE id = (SELECT min(id) FROM orders o2)", "DELETE");
	assert_non_null(strstr(out, "DELETE FROM `shop`.`orders` WHERE (id = (SELECT min(id) FROM (SELECT * FROM"));
	free(out);
	refused("UPDATE notes SET body = (SELECT password FROM mysql.user LIMIT 1)", AIRLOCK_E_TABLE_NOT_ALLOWED, NULL);
	refused("UPDATE notes SET body = (SELECT 1 FROM shop.secrets)", AIRLOCK_E_TABLE_NOT_ALLOWED, "secrets");
	refused("UPDATE notes SET body = load_file('/etc/passwd')", AIRLOCK_E_FORBIDDEN_FUNCTION, NULL);
	refused("UPDATE notes SET body = uuid()", AIRLOCK_E_FORBIDDEN_FUNCTION, NULL);
	refused("UPDATE notes SET body = @@global.secure_file_priv", AIRLOCK_E_NOT_ALLOWED, NULL);
}

static void test_tables_outside_are_refused(void **state)
{
	(void)state;
	refused("UPDATE customers SET name = 'x'", AIRLOCK_E_NOT_READ_ONLY, "not one of your write tables");
	refused("DELETE FROM mysql.user", AIRLOCK_E_NOT_READ_ONLY, "not one of your write tables");
	refused("INSERT INTO information_schema.tables VALUES (1)", AIRLOCK_E_NOT_READ_ONLY, NULL);
	refused("UPDATE other.notes SET a = 1", AIRLOCK_E_NOT_READ_ONLY, NULL);
	/* Names compare byte for byte, as MariaDB compares table names. */
	refused("UPDATE NOTES SET a = 1", AIRLOCK_E_NOT_READ_ONLY, NULL);
	/* A column rule would let hidden columns be written or compared. */
	refused("UPDATE staff SET name = 'x' WHERE salary > 100", AIRLOCK_E_UNSUPPORTED, "limits");
}

static void test_shapes_refused(void **state)
{
	(void)state;
	refused("UPDATE IGNORE notes SET a = 1", AIRLOCK_E_UNSUPPORTED, "IGNORE");
	refused("INSERT IGNORE INTO notes VALUES (1)", AIRLOCK_E_UNSUPPORTED, "IGNORE");
	refused("INSERT DELAYED INTO notes VALUES (1)", AIRLOCK_E_UNSUPPORTED, "DELAYED");
	refused("INSERT INTO notes SELECT * FROM orders", AIRLOCK_E_UNSUPPORTED, "INSERT ... SELECT");
	refused("INSERT INTO notes (id) SELECT id FROM orders", AIRLOCK_E_UNSUPPORTED, "INSERT ... SELECT");
	refused("INSERT INTO notes (SELECT 1)", AIRLOCK_E_UNSUPPORTED, "INSERT ... SELECT");
	refused("INSERT INTO notes VALUES (1) ON DUPLICATE KEY UPDATE a = 2", AIRLOCK_E_UNSUPPORTED, "DUPLICATE");
	refused("INSERT INTO notes VALUES (1) RETURNING *", AIRLOCK_E_UNSUPPORTED, "RETURNING");
	refused("DELETE FROM notes WHERE id = 1 RETURNING *", AIRLOCK_E_UNSUPPORTED, "RETURNING");
	refused("UPDATE notes, orders SET notes.a = 1", AIRLOCK_E_UNSUPPORTED, "several tables");
	refused("UPDATE notes JOIN orders ON 1 SET a = 1", AIRLOCK_E_UNSUPPORTED, "several tables");
	refused("DELETE notes FROM notes JOIN orders", AIRLOCK_E_UNSUPPORTED, "several tables");
	refused("DELETE FROM notes USING notes JOIN orders", AIRLOCK_E_UNSUPPORTED, "several tables");
	refused("DELETE FROM notes PARTITION (p0)", AIRLOCK_E_UNSUPPORTED, "PARTITION");
	refused("REPLACE INTO notes VALUES (1)", AIRLOCK_E_NOT_READ_ONLY, NULL);
	refused("UPDATE notes SET a = 1; DELETE FROM notes", AIRLOCK_E_MULTI_STATEMENT, NULL);
	refused("UPDATE notes SET a = 1 WHERE", AIRLOCK_E_SYNTAX, NULL);
	refused("UPDATE notes SET a = 1 WHERE b = 1)", AIRLOCK_E_SYNTAX, NULL);
	refused("UPDATE notes SET a = 1 WHERE b = 1, c = 2", AIRLOCK_E_SYNTAX, NULL);
	refused("UPDATE notes SET a = ", AIRLOCK_E_SYNTAX, NULL);
	refused("UPDATE notes SET a = 1 LIMIT x", AIRLOCK_E_SYNTAX, NULL);
	refused("INSERT INTO notes", AIRLOCK_E_SYNTAX, NULL);
	refused("INSERT INTO notes VALUES 1", AIRLOCK_E_SYNTAX, NULL);
	refused("UPDATE notes SET a := 1", AIRLOCK_E_SYNTAX, NULL);
	refused("UPDATE notes SET a = (@x := 1)", AIRLOCK_E_NOT_READ_ONLY, NULL);
	refused("UPDATE notes SET a = 1 WHERE id IN (SELECT id FROM orders FOR UPDATE)", AIRLOCK_E_NOT_READ_ONLY, NULL);
	refused("/*!50000 UPDATE notes SET a = 1 */", AIRLOCK_E_EXECUTABLE_COMMENT, NULL);
	refused("UPDATE notes SET a = 1 /*!, b = 2 */", AIRLOCK_E_EXECUTABLE_COMMENT, NULL);
}

static void test_filter_columns_stay(void **state)
{
	(void)state;
	refused("UPDATE orders SET customer_id = 101 WHERE id = 1", AIRLOCK_E_WRITE_CHECK, "customer_id");
	refused("UPDATE orders o SET o.`Customer_ID` = 5", AIRLOCK_E_WRITE_CHECK, NULL);
	refused("UPDATE orders SET amount = 1, shop.orders.customer_id = 5", AIRLOCK_E_WRITE_CHECK, NULL);
	expect_made("UPDATE orders SET amount = customer_id WHERE id = 2", "UPDATE",
		    "UPDATE `shop`.`orders` SET amount = customer_id WHERE (id = 2) AND (customer_id <= 100)");
}

/*
 * The dry run's variant of sql (vmy_write_sample of the text that runs,
 * validated again as the worker does): want, or NULL when it has none.
 */
static void expect_sample(const char *sql, const char *command, const char *want)
{
	struct vmy_result *made_again = calloc(1, sizeof(*made_again)), *again = calloc(1, sizeof(*again));
	struct vmy_policy ext = policy;
	char *text = made(sql, command), *sample;

	assert_non_null(made_again);
	assert_non_null(again);
	ext.rewrite = true;
	vmy_validate(&ext, text, strlen(text), made_again);
	assert_int_equal(made_again->kind, VMY_WRITE);
	assert_false(made_again->write.sample);
	sample = vmy_write_sample(&ext, made_again, text);
	if (!want) {
		assert_null(sample);
	} else {
		assert_non_null(sample);
		if (strcmp(sample, want) != 0)
			fail_msg("%s\n  sample: %s\n  want:   %s", sql, sample, want);
		vmy_validate(&ext, sample, strlen(sample), again);
		if (strcmp(command, "UPDATE") == 0) {
			/* An UPDATE's is a read of the rows it will touch, the same table under the same rule. */
			if (!vmy_write_sample_reads(made_again, again, sample))
				fail_msg("the sample does not validate as a read of the table: %s\n  %s", sample,
					 again->message);
			assert_false(vmy_write_sample_same(made_again, again));
			free(sample);
			sample = vmy_write_sample_checked(&ext, text, made_again);
			assert_non_null(sample);
		} else {
			if (!vmy_write_sample_same(made_again, again))
				fail_msg("the sample does not validate as the write: %s\n  %s", sample, again->message);
			assert_false(vmy_write_sample_reads(made_again, again, sample));
			/* Only airlock's own text has the sample's RETURNING; a variant is not varied again. */
			assert_null(vmy_write_sample(&ext, again, sample));
			vmy_validate(&policy, sample, strlen(sample), again);
			assert_int_equal(again->kind, VMY_REFUSED);
		}
	}
	free(sample);
	free(text);
	free(made_again);
	free(again);
}

static void test_sample_variant(void **state)
{
	(void)state;
	expect_sample("DELETE FROM notes WHERE id IN (1, 2)", "DELETE",
		      "DELETE FROM `shop`.`notes` WHERE id IN (1, 2)\nRETURNING *");
	expect_sample("DELETE FROM orders WHERE amount > 5 ORDER BY id LIMIT 3 -- tidy", "DELETE",
		      "DELETE FROM `shop`.`orders` WHERE (amount > 5) AND (customer_id <= 100) ORDER BY id LIMIT "
		      "3\nRETURNING *");
	expect_sample("INSERT INTO notes SET id = 4, body = 'b'", "INSERT",
		      "INSERT INTO `shop`.`notes` SET id = 4, body = 'b'\nRETURNING *");
	/* A filtered table's check stays the first column: the runner checks it, the rest is the row. */
	expect_sample("INSERT INTO orders (customer_id, amount) VALUES (7, 1.5)", "INSERT",
		      "INSERT INTO `shop`.`orders` (customer_id, amount) VALUES (7, 1.5) RETURNING "
		      "((customer_id <= 100) IS TRUE)\n, `shop`.`orders`.*");
	/*
	 * MariaDB has no UPDATE ... RETURNING: an UPDATE's variant reads the rows it will touch, its WHERE with
	 * the filter joined, its ORDER BY, at most the rows a sample keeps.
	 */
	expect_sample("UPDATE notes SET body = 'x' WHERE id = 3", "UPDATE",
		      "SELECT * FROM `shop`.`notes` WHERE id = 3\nLIMIT 20");
	expect_sample("UPDATE orders AS o SET amount = 1 WHERE o.amount > 5 ORDER BY id LIMIT 3 -- tidy", "UPDATE",
		      "SELECT * FROM `shop`.`orders` AS o WHERE (o.amount > 5) AND (customer_id <= 100) ORDER BY id "
		      "\nLIMIT 3");
	expect_sample("UPDATE orders o SET amount = amount + 1, note = amount", "UPDATE",
		      "SELECT * FROM `shop`.`orders` o WHERE (customer_id <= 100)\nLIMIT 20");
	expect_sample("UPDATE notes SET body = 'x' ORDER BY id DESC # last\nLIMIT 500", "UPDATE",
		      "SELECT * FROM `shop`.`notes` ORDER BY id DESC # last\n\nLIMIT 20");
	expect_sample("UPDATE notes SET body = 'x' WHERE id IN (SELECT id FROM orders) LIMIT 0", "UPDATE",
		      "SELECT * FROM `shop`.`notes` WHERE id IN (SELECT id FROM (SELECT * FROM `shop`.`orders` "
		      "WHERE (customer_id <= 100) LIMIT 18446744073709551615) `orders`) \nLIMIT 0");
}

/*
 * Of the write sql, is read (validated again as the worker does) taken as
 * its sample read?
 */
static bool sample_read_ok(const char *sql, const char *read)
{
	struct vmy_result *w = calloc(1, sizeof(*w)), *r = calloc(1, sizeof(*r));
	struct vmy_policy ext = policy;
	char *text = made(sql, "UPDATE");
	bool ok;

	assert_non_null(w);
	assert_non_null(r);
	ext.rewrite = true;
	vmy_validate(&ext, text, strlen(text), w);
	assert_int_equal(w->kind, VMY_WRITE);
	ext.forbid_star = false;
	vmy_validate(&ext, read, strlen(read), r);
	ok = vmy_write_sample_reads(w, r, read);
	free(text);
	free(w);
	free(r);
	return ok;
}

/* Only a SELECT of the updated table itself, through its own rule, is an UPDATE's sample read. */
static void test_sample_read_is_the_table(void **state)
{
	(void)state;
	assert_true(sample_read_ok("UPDATE orders SET amount = 1 WHERE id = 2",
				   "SELECT * FROM `shop`.`orders` WHERE (id = 2) AND (customer_id <= 100)\nLIMIT 20"));
	assert_true(sample_read_ok("UPDATE notes SET body = 'x'", "SELECT * FROM `shop`.`notes`\nLIMIT 20"));
	/* Another table, with or without a rule, or another table whose name starts the same. */
	assert_false(sample_read_ok("UPDATE orders SET amount = 1", "SELECT * FROM `shop`.`customers`\nLIMIT 20"));
	assert_false(sample_read_ok("UPDATE orders SET amount = 1", "SELECT * FROM `shop`.`notes`\nLIMIT 20"));
	assert_false(sample_read_ok("UPDATE notes SET body = 'x'", "SELECT * FROM `shop`.`orders`\nLIMIT 20"));
	assert_false(sample_read_ok("UPDATE notes SET body = 'x'", "SELECT * FROM `shop`.`notes2`\nLIMIT 20"));
	assert_false(sample_read_ok("UPDATE notes SET body = 'x'", "SELECT * FROM `shop`.`notes`x\nLIMIT 20"));
	/* The table, but not first, or not a SELECT, or not a read at all. */
	assert_false(sample_read_ok("UPDATE orders SET amount = 1",
				    "SELECT * FROM `shop`.`customers`, `shop`.`orders`\nLIMIT 20"));
	assert_false(sample_read_ok("UPDATE orders SET amount = 1", "SHOW COLUMNS FROM `shop`.`orders`"));
	assert_false(sample_read_ok("UPDATE notes SET body = 'x'", "DELETE FROM `shop`.`notes`"));
	assert_false(sample_read_ok("UPDATE notes SET body = 'x'", "SELECT * FROM `shop`.`no_such`"));
}

/* What only the variant may end with, and only in airlock's own text (a rewrite). */
static void test_sample_forms_refused(void **state)
{
	static const char *const bad[] = {
		"DELETE FROM `shop`.`notes` RETURNING id",
		"DELETE FROM `shop`.`notes` RETURNING *, id",
		"DELETE FROM `shop`.`notes` RETURNING `shop`.`notes`.*",
		"UPDATE `shop`.`notes` SET body = 1 RETURNING *",
		"INSERT INTO `shop`.`orders` (customer_id) VALUES (7) RETURNING ((customer_id <= 100) IS TRUE), *",
		"INSERT INTO `shop`.`orders` (customer_id) VALUES (7) RETURNING ((customer_id <= 100) IS TRUE), "
		"`shop`.`notes`.*",
		"INSERT INTO `shop`.`orders` (customer_id) VALUES (7) RETURNING ((customer_id <= 100) IS TRUE), "
		"`shop`.`orders`.*, 1",
		"INSERT INTO `shop`.`orders` (customer_id) VALUES (7) RETURNING ((customer_id <= 100) IS TRUE), "
		"`orders`.*",
	};
	struct vmy_result *r = calloc(1, sizeof(*r));
	struct vmy_policy ext = policy;

	(void)state;
	assert_non_null(r);
	ext.rewrite = true;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		vmy_validate(&ext, bad[i], strlen(bad[i]), r);
		if (r->kind == VMY_WRITE && r->write.sample)
			fail_msg("passed as a sample: %s", bad[i]);
	}
	free(r);
}

static void test_without_write_tables_every_write_is_refused(void **state)
{
	struct vmy_policy none = policy;

	(void)state;
	none.write_tables = NULL;
	none.nwrite_tables = 0;
	refused_as(&none, "UPDATE notes SET a = 1", AIRLOCK_E_NOT_READ_ONLY, NULL);
	refused_as(&none, "INSERT INTO notes VALUES (1)", AIRLOCK_E_NOT_READ_ONLY, NULL);
	refused_as(&none, "DELETE FROM notes", AIRLOCK_E_NOT_READ_ONLY, NULL);
	none.database = NULL;
	none.write_tables = writes;
	none.nwrite_tables = 3;
	refused_as(&none, "DELETE FROM notes", AIRLOCK_E_NO_DATABASE, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms_and_what_runs),
		cmocka_unit_test(test_filter_joins_the_where),
		cmocka_unit_test(test_reads_inside_are_scoped),
		cmocka_unit_test(test_tables_outside_are_refused),
		cmocka_unit_test(test_shapes_refused),
		cmocka_unit_test(test_filter_columns_stay),
		cmocka_unit_test(test_sample_variant),
		cmocka_unit_test(test_sample_read_is_the_table),
		cmocka_unit_test(test_sample_forms_refused),
		cmocka_unit_test(test_without_write_tables_every_write_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
