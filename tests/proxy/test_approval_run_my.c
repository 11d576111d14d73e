/*
 * test_approval_run_my: a MySQL record's settings as the approved run
 * applies them: a JSON object of names to text values, in order, bounded
 * by the room the run has; anything else is unreadable and the run fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/approval_run_my.h"

static void test_settings_in_order(void **state)
{
	struct job_setting set[8];
	json_t *keep;
	size_t n;

	(void)state;
	assert_true(approval_my_settings("{\"names\":\"utf8mb4\",\"sql_mode\":\"ANSI_QUOTES\",\"database\":\"shop\"}",
					 &keep, set, 8, &n));
	assert_int_equal(n, 3);
	assert_string_equal(set[0].name, "names");
	assert_string_equal(set[1].value, "ANSI_QUOTES");
	assert_string_equal(set[2].name, "database");
	json_decref(keep);
	assert_true(approval_my_settings("{}", &keep, set, 8, &n));
	assert_int_equal(n, 0);
	json_decref(keep);
}

static void test_unreadable_settings(void **state)
{
	static const char *const bad[] = {
		"",
		"[]",
		"{\"a\":1}",
		"{\"a\":null}",
		"{\"a\":\"x\",\"a\":\"y\"}",
		"{\"a\":\"x\\u0000y\"}",
		"{\"a\":\"x\"",
		"{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\"}", /* more than the room given */
	};
	struct job_setting set[2];
	json_t *keep = (json_t *)1;
	size_t n = 9;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(approval_my_settings(bad[i], &keep, set, 2, &n));
		assert_null(keep);
		assert_int_equal(n, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings_in_order),
		cmocka_unit_test(test_unreadable_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
