/* The record's names and ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "approval/approval.h"

static void test_status_names(void **state)
{
	enum approval_status s;

	(void)state;
	for (int i = APPROVAL_PENDING; i <= APPROVAL_FAILED; i++) {
		const char *name = approval_status_name((enum approval_status)i);

		assert_non_null(name);
		assert_true(approval_status_parse(name, &s));
		assert_int_equal(s, i);
	}
	assert_null(approval_status_name((enum approval_status)99));
	assert_false(approval_status_parse("Pending", &s));
	assert_false(approval_status_parse("", &s));
	assert_false(approval_status_parse(NULL, &s));
	assert_false(approval_status_final(APPROVAL_PENDING));
	assert_false(approval_status_final(APPROVAL_RUNNING));
	assert_true(approval_status_final(APPROVAL_DRIFTED));
}

static void test_ids(void **state)
{
	char a[APPROVAL_ID_LEN + 1], b[APPROVAL_ID_LEN + 1];

	(void)state;
	assert_true(approval_new_id(a));
	assert_true(approval_new_id(b));
	assert_true(approval_id_valid(a));
	assert_string_not_equal(a, b);
	assert_false(approval_id_valid(NULL));
	assert_false(approval_id_valid(""));
	assert_false(approval_id_valid("w"));
	assert_false(approval_id_valid("waaaaaaaaaaaaaaaaaaaa1"));
	assert_false(approval_id_valid("waaaaaaaaaaaaaaaaaaa1"));
	assert_false(approval_id_valid("xaaaaaaaaaaaaaaaaaaaa"));
	assert_false(approval_id_valid("wAAAAAAAAAAAAAAAAAAAA"));
	assert_false(approval_id_valid("waaaaaaaaa'aaaaaaaaaa"));
	assert_true(approval_id_valid("waaaaaaaaaaaaaaaaaaa7"));
}

/* The SHOW answers' times: UTC to the millisecond, the suffix as asked, "" for not yet. */
static void test_time_sql(void **state)
{
	char out[64];

	(void)state;
	approval_time_sql(1764806400123LL, "+00", out, sizeof(out));
	assert_string_equal(out, "2025-12-04 00:00:00.123+00");
	approval_time_sql(1764806400005LL, "", out, sizeof(out));
	assert_string_equal(out, "2025-12-04 00:00:00.005");
	approval_time_sql(0, "+00", out, sizeof(out));
	assert_string_equal(out, "");
	approval_time_sql(-5, "", out, sizeof(out));
	assert_string_equal(out, "");
	/* A short buffer is cut, never overrun. */
	approval_time_sql(1764806400123LL, "+00", out, 11);
	assert_string_equal(out, "2025-12-04");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_time_sql),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
