/*
 * test_pg_write_show: SHOW airlock.approval '<id>' as the session reads it
 * before the validator (Postgres' grammar has no such form): keywords in
 * any case, comments and spaces between, a string literal with '' for a
 * quote, an optional semicolon, and nothing after. Any other text is left
 * to the validator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "approval/approval.h"
#include "proxy/pg/pg_session_int.h"

static void test_forms(void **state)
{
	static const struct {
		const char *sql, *id;
	} ok[] = {
		{"SHOW airlock.approval 'wabc'", "wabc"},
		{"show AIRLOCK.APPROVAL 'wabc';", "wabc"},
		{"  SHOW /* c */ airlock.approval\n'wabc' ; -- end", "wabc"},
		{"SHOW airlock.approval ''", ""},
		{"SHOW airlock.approval 'x'' OR ''1'", "x' OR '1"},
		{"SHOW airlock.approval 'waaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'", "waaaaaaaaaaaaaaaaaaaaa"},
	};
	static const char *const no[] = {
		"SHOW airlock.policy",
		"SHOW airlock.approval",
		"SHOW airlock.approval wabc",
		"SHOW airlock.approval 'wabc' 'x'",
		"SHOW airlock.approval 'wabc'; SELECT 1",
		"SHOW airlock.approval 'wabc",
		"SHOWairlock.approval 'wabc'",
		"SELECT 'SHOW airlock.approval ''w'''",
		"SHOW airlock.approvals 'w'",
		"",
	};
	char id[APPROVAL_ID_LEN + 2];

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (!pgw_show_id(ok[i].sql, id, sizeof(id)))
			fail_msg("%s: not read", ok[i].sql);
		assert_string_equal(id, ok[i].id);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		if (pgw_show_id(no[i], id, sizeof(id)))
			fail_msg("%s: read as a SHOW of %s", no[i], id);
	}
	/* A cut id is never a valid one. */
	assert_true(pgw_show_id("SHOW airlock.approval 'waaaaaaaaaaaaaaaaaaaa7'", id, sizeof(id)));
	assert_false(approval_id_valid(id));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
