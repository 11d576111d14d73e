/*
 * test_runner_my_cost: MySQL's max_cost check without a server: the
 * Last_query_cost text read (malformed, signed, exponent, overlong and
 * NUL-holding values refused), and the verdict on plans as MariaDB 10.11
 * printed them for the shop database: one join (SIMPLE), semi-joins
 * (PRIMARY, with a MATERIALIZED select joined as <subqueryN>), and the
 * plans whose cost it does not give or does not cover (UNION, subqueries,
 * derived tables, a WITH clause).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner_my_cost.h"

#define MAX 1000000u

static void test_parse(void **state)
{
	static const char *const bad[] = {
		"", ".", "-1", "+1", "1e9", "1E9", "inf", "nan", "0x10", " 1", "1 ", "1..2", "1.2.3", "12a", "a",
	};
	char longest[MY_COST_TEXT_MAX + 2];
	double c = -1;

	(void)state;
	assert_int_equal(my_cost_parse("40711.399000", 12, &c), 0);
	assert_true(c > 40711.39 && c < 40711.4);
	assert_int_equal(my_cost_parse("0.000000", 8, &c), 0);
	assert_true(c == 0);
	assert_int_equal(my_cost_parse("7", 1, &c), 0);
	assert_true(c == 7);
	assert_int_equal(my_cost_parse("7.", 2, &c), 0);
	assert_int_equal(my_cost_parse(".5", 2, &c), 0);
	assert_true(c == 0.5);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(my_cost_parse(bad[i], strlen(bad[i]), &c), -1);
	assert_int_equal(my_cost_parse(NULL, 0, &c), -1);
	/* Only len bytes are read: a NUL inside, or a number that goes on past len, is not taken whole. */
	assert_int_equal(my_cost_parse("12\0"
				       "3",
				       4, &c),
			 -1);
	assert_int_equal(my_cost_parse("123456", 3, &c), 0);
	assert_true(c == 123);
	memset(longest, '9', sizeof(longest));
	assert_int_equal(my_cost_parse(longest, MY_COST_TEXT_MAX, &c), 0);
	assert_int_equal(my_cost_parse(longest, MY_COST_TEXT_MAX + 1, &c), -1);
}

/* A plan of rows "id select_type table type" (a field "-" is SQL NULL). */
static struct my_cost_plan plan(const char *const (*rows)[4], size_t n)
{
	struct my_cost_plan p;

	memset(&p, 0, sizeof(p));
	for (size_t i = 0; i < n; i++) {
		const char *v[4];
		size_t l[4];

		for (int k = 0; k < 4; k++) {
			v[k] = strcmp(rows[i][k], "-") == 0 ? NULL : rows[i][k];
			l[k] = v[k] ? strlen(v[k]) : 0;
		}
		my_cost_plan_row(&p, &(struct my_cost_row){v[0], v[1], v[2], v[3], l[0], l[1], l[2], l[3]});
	}
	return p;
}

#define PLAN(r) plan(r, sizeof(r) / sizeof(r[0]))

static void test_one_join(void **state)
{
	static const char *const join[][4] = {{"1", "SIMPLE", "a", "index"}, {"1", "SIMPLE", "b", "index"}};
	static const char *const consts[][4] = {{"1", "SIMPLE", "a", "const"}, {"1", "SIMPLE", "b", "system"}};
	static const char *const no_table[][4] = {{"1", "SIMPLE", "-", "-"}};
	struct my_cost_plan p = PLAN(join);

	(void)state;
	/* SELECT COUNT(*) FROM orders a, orders b */
	assert_int_equal(my_cost_judge(&p, true, 7989804725.198999, MAX), MY_COST_OVER);
	assert_int_equal(my_cost_judge(&p, true, 40711.399, MAX), MY_COST_UNDER);
	assert_int_equal(my_cost_judge(&p, true, (double)MAX, MAX), MY_COST_UNDER);
	/* Tables read and no cost: not one MariaDB counted (a stored routine's statement). */
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNKNOWN);
	assert_int_equal(my_cost_judge(&p, false, 0, MAX), MY_COST_UNKNOWN);
	/* Lookups by a unique key, and no table at all (VALUES, Impossible WHERE): 0 is the cost. */
	p = PLAN(consts);
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNDER);
	p = PLAN(no_table);
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNDER);
	assert_int_equal(my_cost_judge(&p, true, 0, 0), MY_COST_UNDER);
}

static void test_semi_joins(void **state)
{
	/* IN (SELECT a.customer_id FROM orders a, orders b): FirstMatch, all in the one join. */
	static const char *const first_match[][4] = {
		{"1", "PRIMARY", "customers", "ALL"}, {"1", "PRIMARY", "a", "ref"}, {"1", "PRIMARY", "b", "index"}};
	/* IN (SELECT customer_id FROM orders): materialized, read by the join as <subquery2>. */
	static const char *const materialized[][4] = {{"1", "PRIMARY", "customers", "ALL"},
						      {"1", "PRIMARY", "<subquery2>", "eq_ref"},
						      {"2", "MATERIALIZED", "orders", "index"}};
	static const char *const not_joined[][4] = {{"1", "PRIMARY", "customers", "ALL"},
						    {"1", "PRIMARY", "<subquery3>", "eq_ref"},
						    {"2", "MATERIALIZED", "orders", "index"}};
	static const char *const bad_id[][4] = {{"1", "PRIMARY", "<subquery2>", "eq_ref"},
						{"2x", "MATERIALIZED", "orders", "index"}};
	struct my_cost_plan p = PLAN(first_match);

	(void)state;
	assert_int_equal(my_cost_judge(&p, true, 3949026421.39, MAX), MY_COST_OVER);
	assert_int_equal(my_cost_judge(&p, true, 2000.5, MAX), MY_COST_UNDER);
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNKNOWN);
	p = PLAN(materialized);
	assert_int_equal(my_cost_judge(&p, true, 10986.599, MAX), MY_COST_UNDER);
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNKNOWN);
	p = PLAN(not_joined);
	assert_int_equal(my_cost_judge(&p, true, 10986.599, MAX), MY_COST_UNKNOWN);
	p = PLAN(bad_id);
	assert_int_equal(my_cost_judge(&p, true, 10986.599, MAX), MY_COST_UNKNOWN);
}

static void test_uncounted_plans(void **state)
{
	/* SELECT ... UNION SELECT ...: MariaDB says 0. */
	static const char *const union_[][4] = {
		{"1", "PRIMARY", "a", "ALL"}, {"2", "UNION", "-", "-"}, {"-", "UNION RESULT", "<union1,2>", "ALL"}};
	/* WITH RECURSIVE r AS (... UNION ALL ...) SELECT COUNT(*) FROM r: 2.399, the outer scan alone. */
	static const char *const recursive[][4] = {{"1", "PRIMARY", "<derived2>", "ALL"},
						   {"2", "DERIVED", "-", "-"},
						   {"3", "RECURSIVE UNION", "<derived2>", "ALL"},
						   {"-", "UNION RESULT", "<union2,3>", "ALL"}};
	/* WITH x AS (SELECT id, (SELECT COUNT(*) FROM a, b, c) m FROM customers) SELECT * FROM x: 205.999. */
	static const char *const hoisted[][4] = {{"1", "PRIMARY", "customers", "index"},
						 {"3", "SUBQUERY", "a", "index"},
						 {"3", "SUBQUERY", "b", "index"}};
	static const char *const dependent[][4] = {{"1", "PRIMARY", "c", "ALL"},
						   {"2", "DEPENDENT SUBQUERY", "o", "ref"}};
	static const char *const mixed[][4] = {{"1", "SIMPLE", "a", "ALL"}, {"1", "PRIMARY", "b", "ALL"}};
	static const char *const lower[][4] = {{"1", "simple", "a", "ALL"}};
	struct my_cost_plan p;

	(void)state;
	p = PLAN(union_);
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNKNOWN);
	p = PLAN(recursive);
	assert_int_equal(my_cost_judge(&p, true, 2.399, MAX), MY_COST_UNKNOWN);
	p = PLAN(hoisted);
	assert_int_equal(my_cost_judge(&p, true, 205.999, MAX), MY_COST_UNKNOWN);
	p = PLAN(dependent);
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNKNOWN);
	p = PLAN(mixed);
	assert_int_equal(my_cost_judge(&p, true, 10, MAX), MY_COST_UNKNOWN);
	p = PLAN(lower);
	assert_int_equal(my_cost_judge(&p, true, 10, MAX), MY_COST_UNKNOWN);
	/* No rows at all: nothing was planned. */
	memset(&p, 0, sizeof(p));
	assert_int_equal(my_cost_judge(&p, true, 0, MAX), MY_COST_UNKNOWN);
}

/* Malformed rows: NULL select types, <subquery> names without a number, more ids than are kept. */
static void test_malformed_rows(void **state)
{
	static const char *const null_type[][4] = {{"1", "-", "a", "ALL"}};
	static const char *const names[][4] = {{"1", "PRIMARY", "<subquery>", "ALL"},
					       {"1", "PRIMARY", "<subquery2", "ALL"},
					       {"1", "PRIMARY", "<subquery-2>", "ALL"},
					       {"1", "PRIMARY", "<subquery12345678901>", "ALL"},
					       {"2", "MATERIALIZED", "t", "ALL"}};
	struct my_cost_plan p;

	(void)state;
	p = PLAN(null_type);
	assert_int_equal(my_cost_judge(&p, true, 10, MAX), MY_COST_UNKNOWN);
	p = PLAN(names);
	assert_false(p.other);
	assert_int_equal(p.njoined, 0);
	assert_int_equal(my_cost_judge(&p, true, 10, MAX), MY_COST_UNKNOWN);

	memset(&p, 0, sizeof(p));
	for (unsigned i = 0; i <= MY_COST_MAX_IDS; i++)
		my_cost_plan_row(&p, &(struct my_cost_row){"2", "MATERIALIZED", "t", "ALL", 1, 12, 1, 3});
	assert_true(p.other);
	assert_int_equal(p.nmaterialized, MY_COST_MAX_IDS);
	assert_int_equal(my_cost_judge(&p, true, 10, MAX), MY_COST_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),          cmocka_unit_test(test_one_join),
		cmocka_unit_test(test_semi_joins),     cmocka_unit_test(test_uncounted_plans),
		cmocka_unit_test(test_malformed_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
