/*
 * test_validate_my_create: SHOW CREATE TABLE's definition scrubbed of the
 * foreign keys that name a table or column outside the user's world, as
 * MariaDB 10.11 prints them in each quoting mode (backticks, ANSI_QUOTES,
 * sql_quote_show_create = 0), with the index named as such a key, and
 * malformed or truncated text.
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
#include "validator/mysql/validate_my_create.h"

static const char *const tables[] = {"shop.c", "shop.p", "shop.customers", "other.*"};
static struct airlock_column customer_cols[] = {{"id", NULL}, {"name", NULL}};
static const struct airlock_rule rules[] = {
	{.table = "shop.customers", .columns = customer_cols, .ncolumns = 2, .has_columns = true},
	{.table = "shop.p", .filter = "id > 0"},
};
static const struct vmy_policy pol = {
	.user = "agent",
	.database = "shop",
	.tables = tables,
	.ntables = 4,
	.rules = rules,
	.nrules = 2,
};

static char *scrub(const char *text)
{
	size_t n = 0;
	char *out = vmy_create_scrub(&pol, "shop", text, strlen(text), &n);

	assert_non_null(out);
	assert_int_equal(n, strlen(out));
	return out;
}

static void expect(const char *text, const char *want)
{
	char *got = scrub(text);

	assert_string_equal(got, want);
	free(got);
}

#define HEAD0 "CREATE TABLE `c` (\n  `id` int(11) NOT NULL,\n  `e` int(11) DEFAULT NULL,\n"
#define HEAD HEAD0 "  PRIMARY KEY (`id`),\n"
/* HEAD when the items after it were all left out: its last one loses its comma. */
#define ALONE HEAD0 "  PRIMARY KEY (`id`)\n"
#define TAIL ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci"

static void test_hidden_table_left_out(void **state)
{
	(void)state;
	expect(HEAD "  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pu`) REFERENCES `p` (`u`),\n"
		    "  CONSTRAINT `c_ibfk_2` FOREIGN KEY (`e`) REFERENCES `shop`.`staff_salaries` (`id`),\n"
		    "  CONSTRAINT `we``ird` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE,\n"
		    "  CONSTRAINT `CONSTRAINT_1` CHECK (`e` > 0)\n" TAIL,
	       HEAD "  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pu`) REFERENCES `p` (`u`),\n"
		    "  CONSTRAINT `we``ird` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE,\n"
		    "  CONSTRAINT `CONSTRAINT_1` CHECK (`e` > 0)\n" TAIL);
}

static void test_last_item_left_out_moves_the_comma(void **state)
{
	(void)state;
	expect(HEAD "  KEY `e` (`e`),\n  CONSTRAINT `f` FOREIGN KEY (`e`) REFERENCES `staff_salaries` (`id`)\n" TAIL,
	       HEAD "  KEY `e` (`e`)\n" TAIL);
	expect(HEAD "  KEY `e` (`e`),\n  CONSTRAINT `f` FOREIGN KEY (`e`) REFERENCES `hidden` (`id`),\n"
		    "  CONSTRAINT `g` FOREIGN KEY (`e`) REFERENCES `hidden2` (`id`)\n" TAIL,
	       HEAD "  KEY `e` (`e`)\n" TAIL);
}

/* The index MariaDB made for a hidden foreign key takes its name: it goes with it, in any case; others stay. */
static void test_index_of_a_hidden_key_left_out(void **state)
{
	(void)state;
	expect(HEAD "  KEY `fk_staff_salaries` (`e`),\n  KEY `k_e` (`e`),\n  UNIQUE KEY `Fk_Other` (`e`),\n"
		    "  KEY `c_ibfk_1` (`pu`),\n"
		    "  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pu`) REFERENCES `p` (`u`),\n"
		    "  CONSTRAINT `fk_staff_salaries` FOREIGN KEY (`e`) REFERENCES `staff_salaries` (`id`),\n"
		    "  CONSTRAINT `fk_other` FOREIGN KEY (`e`) REFERENCES `hidden` (`id`)\n" TAIL,
	       HEAD "  KEY `k_e` (`e`),\n  KEY `c_ibfk_1` (`pu`),\n"
		    "  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pu`) REFERENCES `p` (`u`)\n" TAIL);
	/* ANSI_QUOTES, and a key line that only starts alike. */
	expect("CREATE TABLE \"c\" (\n  \"e\" int(11),\n  KEY \"f\" (\"e\"),\n  KEY \"f2\" (\"e\"),\n"
	       "  CONSTRAINT \"f\" FOREIGN KEY (\"e\") REFERENCES \"staff_salaries\" (\"id\")\n" TAIL,
	       "CREATE TABLE \"c\" (\n  \"e\" int(11),\n  KEY \"f2\" (\"e\")\n" TAIL);
}

static void test_each_quoting_mode(void **state)
{
	(void)state;
	/* ANSI_QUOTES */
	expect("CREATE TABLE \"c\" (\n  \"e\" int(11),\n"
	       "  CONSTRAINT \"c_ibfk_2\" FOREIGN KEY (\"e\") REFERENCES \"shop\".\"staff_salaries\" (\"id\"),\n"
	       "  CONSTRAINT \"we`ird\" FOREIGN KEY (\"pid\") REFERENCES \"p\" (\"id\") ON DELETE CASCADE\n" TAIL,
	       "CREATE TABLE \"c\" (\n  \"e\" int(11),\n"
	       "  CONSTRAINT \"we`ird\" FOREIGN KEY (\"pid\") REFERENCES \"p\" (\"id\") ON DELETE CASCADE\n" TAIL);
	/* sql_quote_show_create = 0: bare names, reserved words quoted. */
	expect("CREATE TABLE c (\n  e int(11),\n"
	       "  CONSTRAINT c_ibfk_2 FOREIGN KEY (e) REFERENCES shop.staff_salaries (\"id\"),\n"
	       "  CONSTRAINT c_ibfk_1 FOREIGN KEY (pu) REFERENCES \"p\" (u)\n" TAIL,
	       "CREATE TABLE c (\n  e int(11),\n  CONSTRAINT c_ibfk_1 FOREIGN KEY (pu) REFERENCES \"p\" (u)\n" TAIL);
}

static void test_other_databases(void **state)
{
	(void)state;
	/* other.* allows every table of other; a third database is outside. */
	expect(HEAD "  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `other`.`t` (`id`),\n"
		    "  CONSTRAINT `b` FOREIGN KEY (`e`) REFERENCES `third`.`p` (`id`)\n" TAIL,
	       HEAD "  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `other`.`t` (`id`)\n" TAIL);
	/* Names compare exactly, as MariaDB's on Linux. */
	expect(HEAD "  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `P` (`id`)\n" TAIL, ALONE TAIL);
}

static void test_hidden_referenced_column(void **state)
{
	(void)state;
	/* customers shows id and name; email is hidden. A filter alone hides no column. */
	expect(HEAD "  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `customers` (`ID`),\n"
		    "  CONSTRAINT `b` FOREIGN KEY (`e`, `f`) REFERENCES `customers` (`id`, `email`),\n"
		    "  CONSTRAINT `c` FOREIGN KEY (`e`) REFERENCES `p` (`secret`)\n" TAIL,
	       HEAD "  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `customers` (`ID`),\n"
		    "  CONSTRAINT `c` FOREIGN KEY (`e`) REFERENCES `p` (`secret`)\n" TAIL);
}

static void test_lines_that_only_look_alike(void **state)
{
	(void)state;
	/* A comment's newline is printed escaped; what it says stays, and so do CHECK lines and keys. */
	const char *t = HEAD "  `pid` int(11) COMMENT 'a\\nb  CONSTRAINT `x` FOREIGN KEY (`e`) REFERENCES `h` (`i`)',\n"
			     "  KEY `FOREIGN` (`e`),\n  CONSTRAINT `FOREIGN KEY` CHECK (`e` > 0)\n" TAIL;

	expect(t, t);
}

static void test_malformed_foreign_keys_left_out(void **state)
{
	static const char *const bad[] = {
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `p`",
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `p` (",
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `p` ()",
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `p` (`id`",
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `p.` (`id`)",
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `shop`. (`id`)",
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `p (`id`)",
		"  CONSTRAINT `a` FOREIGN KEY `e` REFERENCES `p` (`id`)",
		"  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCE `p` (`id`)",
		"  CONSTRAINT `a FOREIGN KEY (`e`) REFERENCES `p` (`id`)",
		"  CONSTRAINT",
		"  CONSTRAINT ",
		"  FOREIGN KEY (`e`) REFERENCES `staff_salaries` (`id`)",
		"  FOREIGN",
	};
	char text[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), HEAD "%s\n" TAIL, bad[i]);
		expect(text, ALONE TAIL);
	}
}

static void test_too_long_names_left_out(void **state)
{
	char text[4096], name[400];

	(void)state;
	memset(name, 'p', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(text, sizeof(text), HEAD "  CONSTRAINT `a` FOREIGN KEY (`e`) REFERENCES `%s` (`id`)\n" TAIL, name);
	expect(text, ALONE TAIL);
}

static void test_truncated_and_empty(void **state)
{
	const char *full = HEAD "  CONSTRAINT `f` FOREIGN KEY (`e`) REFERENCES `staff_salaries` (`id`)\n" TAIL;

	(void)state;
	expect("", "");
	expect("\n\n", "\n\n");
	/* Every prefix is read without going past its end (ASan watches the copies). */
	for (size_t n = 0; n <= strlen(full); n++) {
		char *copy = malloc(n ? n : 1);
		size_t out = 0;
		char *got;

		assert_non_null(copy);
		memcpy(copy, full, n);
		got = vmy_create_scrub(&pol, "shop", copy, n, &out);
		assert_non_null(got);
		assert_true(out <= n);
		assert_null(strstr(got, "staff_salaries"));
		free(got);
		free(copy);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hidden_table_left_out),
		cmocka_unit_test(test_last_item_left_out_moves_the_comma),
		cmocka_unit_test(test_index_of_a_hidden_key_left_out),
		cmocka_unit_test(test_each_quoting_mode),
		cmocka_unit_test(test_other_databases),
		cmocka_unit_test(test_hidden_referenced_column),
		cmocka_unit_test(test_lines_that_only_look_alike),
		cmocka_unit_test(test_malformed_foreign_keys_left_out),
		cmocka_unit_test(test_too_long_names_left_out),
		cmocka_unit_test(test_truncated_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
