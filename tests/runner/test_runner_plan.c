/*
 * test_runner_plan: the plan check's reader of EXPLAIN (FORMAT JSON,
 * VERBOSE). Relations are found by key in their own object, with their
 * schema; string values that look like keys are values; what it cannot
 * read (a relation without a schema, truncated or malformed text, names
 * too long, nesting too deep) is UNREAD, which refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner_plan.h"

static const char allowed[] = "public.orders, public.customers,pg_catalog.*";

static enum runner_plan_verdict check(const char *json, char *outside, size_t cap)
{
	return runner_plan_check(json, strlen(json), allowed, outside, cap);
}

static void test_allowed_and_outside(void **state)
{
	char outside[130];

	(void)state;
	assert_int_equal(check("[{\"Plan\": {\"Node Type\": \"Result\"}}]", NULL, 0), RUNNER_PLAN_ALLOWED);
	assert_int_equal(check("[{\"Plan\": {\"Node Type\": \"Seq Scan\", \"Relation Name\": \"orders\", "
			       "\"Schema\": \"public\", \"Alias\": \"orders\"}}]",
			       NULL, 0),
			 RUNNER_PLAN_ALLOWED);
	assert_int_equal(check("[{\"Plan\": {\"Node Type\": \"Seq Scan\", \"Relation Name\": \"pg_class\", "
			       "\"Schema\": \"pg_catalog\"}}]",
			       NULL, 0),
			 RUNNER_PLAN_ALLOWED);
	/* A view over a hidden table: its plan scans the table. */
	assert_int_equal(check("[{\"Plan\": {\"Node Type\": \"Nested Loop\", \"Plans\": [{\"Node Type\": \"Seq Scan\","
			       " \"Relation Name\": \"orders\", \"Schema\": \"public\"}, {\"Node Type\": "
			       "\"Index Scan\", \"Index Name\": \"staff_salaries_pkey\", \"Relation Name\": "
			       "\"staff_salaries\", \"Schema\": \"public\"}]}}]",
			       outside, sizeof(outside)),
			 RUNNER_PLAN_OUTSIDE);
	assert_string_equal(outside, "public.staff_salaries");
	/* Same name, another schema; names compare byte for byte. */
	assert_int_equal(check("[{\"Relation Name\": \"orders\", \"Schema\": \"archive\"}]", NULL, 0),
			 RUNNER_PLAN_OUTSIDE);
	assert_int_equal(check("[{\"Relation Name\": \"Orders\", \"Schema\": \"public\"}]", NULL, 0),
			 RUNNER_PLAN_OUTSIDE);
	/* A function's schema is not a relation's. */
	assert_int_equal(check("[{\"Node Type\": \"Function Scan\", \"Function Name\": \"f\", \"Schema\": \"secret\"}]",
			       NULL, 0),
			 RUNNER_PLAN_ALLOWED);
}

static void test_values_are_not_keys(void **state)
{
	(void)state;
	/* A filter string holding key-like text stays a value. */
	assert_int_equal(check("[{\"Relation Name\": \"orders\", \"Schema\": \"public\", \"Filter\": "
			       "\"(note = '\\\"Relation Name\\\": \\\"staff_salaries\\\"'::text)\"}]",
			       NULL, 0),
			 RUNNER_PLAN_ALLOWED);
	assert_int_equal(check("[{\"Output\": [\"\\\"Relation Name\\\"\", \"x\"], \"Relation Name\": \"orders\", "
			       "\"Schema\": \"public\"}]",
			       NULL, 0),
			 RUNNER_PLAN_ALLOWED);
}

static void test_unreadable_refuses(void **state)
{
	static const char *const bad[] = {
		"[{\"Relation Name\": \"orders\"}]",                       /* no schema (plain EXPLAIN) */
		"[{\"Relation Name\": \"orders\", \"Schema\": \"public\"", /* truncated */
		"[{\"Relation Name\": 5, \"Schema\": \"public\"}]",
		"[{\"Relation Name\": \"orders\", \"Schema\": 7}]",
		"[{\"Relation Name\": \"o\\qrders\", \"Schema\": \"public\"}]",
		"[{\"Relation Name\": \"orders\", \"Schema\": \"pub\\u00",
		"[{\"Relation Name\": \"orders\", \"Relation Name\": \"x\", \"Schema\": \"public\"}]",
		"]]",
		("[{\"Relation Name\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\", "
		 "\"Schema\": \"public\"}]"),
		"[{\"a\": \"unterminated}]",
	};
	char deep[2000];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (check(bad[i], NULL, 0) != RUNNER_PLAN_UNREAD)
			fail_msg("read: %s", bad[i]);
	}
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	assert_int_equal(check(deep, NULL, 0), RUNNER_PLAN_UNREAD);
	assert_int_equal(runner_plan_check(NULL, 0, allowed, NULL, 0), RUNNER_PLAN_UNREAD);
	/* Bounded by len: the relation past it is not read. */
	assert_int_equal(runner_plan_check("[]{\"Relation Name\"", 2, allowed, NULL, 0), RUNNER_PLAN_ALLOWED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allowed_and_outside),
		cmocka_unit_test(test_values_are_not_keys),
		cmocka_unit_test(test_unreadable_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
