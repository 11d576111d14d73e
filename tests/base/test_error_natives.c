/*
 * test_error_natives: the database's own conditions of base/errors.h:
 * each row names a code of the protocol its prefix says (PG_ rows a
 * SQLSTATE, MY_ rows an errno and SQLSTATE, MY_WARNING only a SQLSTATE), no two rows are the same
 * condition, and a raise resolves to the native code when one is given,
 * to the airlock code's own otherwise, and never to nothing.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/errors.h"

static bool sqlstate_shaped(const char *s)
{
	if (!s || strlen(s) != 5)
		return false;
	for (int i = 0; i < 5; i++)
		if (!isdigit((unsigned char)s[i]) && !isupper((unsigned char)s[i]))
			return false;
	return true;
}

static void rows_are_whole(void **state)
{
	(void)state;
	for (unsigned n = AIRLOCK_N_NONE + 1; n < AIRLOCK_N_COUNT; n++) {
		const char *name = airlock_native_name((enum airlock_native)n);
		enum airlock_native e = (enum airlock_native)n;

		if (strncmp(name, "PG_", 3) == 0) {
			if (!sqlstate_shaped(airlock_pg_sqlstate(AIRLOCK_E_NONE, e)) ||
			    (strcmp(airlock_pg_sqlstate(AIRLOCK_E_NONE, e), "XX000") == 0 &&
			     e != AIRLOCK_N_PG_INTERNAL_ERROR))
				fail_msg("%s has no SQLSTATE of its own", name);
		} else if (strncmp(name, "MY_", 3) == 0) {
			if ((airlock_my_errno(AIRLOCK_E_NONE, e) < 1000 && e != AIRLOCK_N_MY_WARNING) ||
			    !sqlstate_shaped(airlock_my_sqlstate(AIRLOCK_E_NONE, e)) ||
			    (airlock_my_errno(AIRLOCK_E_NONE, e) == 1105 && e != AIRLOCK_N_MY_UNKNOWN_ERROR &&
			     e != AIRLOCK_N_MY_WARNING))
				fail_msg("%s has no errno and SQLSTATE of its own", name);
		} else {
			fail_msg("%s: a condition's name starts with PG_ or MY_", name);
		}
		for (unsigned m = AIRLOCK_N_NONE + 1; m < n; m++) {
			enum airlock_native o = (enum airlock_native)m;

			if (name[0] == 'P' && airlock_native_name(o)[0] == 'P' &&
			    strcmp(airlock_pg_sqlstate(AIRLOCK_E_NONE, e), airlock_pg_sqlstate(AIRLOCK_E_NONE, o)) == 0)
				fail_msg("%s and %s are the same SQLSTATE", name, airlock_native_name(o));
			if (name[0] == 'M' && airlock_native_name(o)[0] == 'M' && e != AIRLOCK_N_MY_WARNING &&
			    o != AIRLOCK_N_MY_WARNING &&
			    airlock_my_errno(AIRLOCK_E_NONE, e) == airlock_my_errno(AIRLOCK_E_NONE, o))
				fail_msg("%s and %s are the same errno", name, airlock_native_name(o));
		}
	}
}

static void native_or_default(void **state)
{
	(void)state;
	/* The native code wins; without one the airlock code's default goes out. */
	assert_string_equal(airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION), "25P01");
	assert_string_equal(airlock_pg_sqlstate(AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED),
			    "54000");
	assert_string_equal(airlock_pg_sqlstate(AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE), "25006");
	assert_int_equal(airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_STMT_HANDLER), 1243);
	assert_string_equal(airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_STMT_HANDLER), "HY000");
	assert_int_equal(airlock_my_errno(AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE), 1037);
	assert_string_equal(airlock_my_sqlstate(AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE), "HY001");
	assert_string_equal(airlock_pg_sqlstate(AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE), "53200");
	assert_int_equal(airlock_my_errno(AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_MY_DB_ACCESS_DENIED), 1044);
	assert_string_equal(airlock_native_name(AIRLOCK_N_PG_NO_SUCH_CURSOR), "PG_NO_SUCH_CURSOR");
	assert_string_equal(airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_WARNING), "01000");
	assert_int_equal(airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_WARNING), 1105);
	assert_string_equal(airlock_native_name(AIRLOCK_N_NONE), "");
	assert_string_equal(airlock_native_name(AIRLOCK_N_COUNT), "");
}

static void never_nothing(void **state)
{
	(void)state;
	/* A pair that names nothing for a protocol still answers a code. */
	assert_string_equal(airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_NONE), "XX000");
	assert_string_equal(airlock_pg_sqlstate(AIRLOCK_E_EXECUTABLE_COMMENT, AIRLOCK_N_NONE), "XX000");
	assert_string_equal(airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_PARSE_ERROR), "XX000");
	assert_int_equal(airlock_my_errno(AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_NONE), 1105);
	assert_string_equal(airlock_my_sqlstate(AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_NONE), "HY000");
	assert_int_equal(airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_SUCH_CURSOR), 1105);
	assert_int_equal(airlock_my_errno(AIRLOCK_E_COUNT, (enum airlock_native)AIRLOCK_N_COUNT), 1105);
	for (unsigned e = 0; e <= AIRLOCK_E_COUNT; e++)
		for (unsigned n = 0; n <= AIRLOCK_N_COUNT; n++) {
			assert_true(sqlstate_shaped(airlock_pg_sqlstate((enum airlock_err)e, (enum airlock_native)n)));
			assert_true(sqlstate_shaped(airlock_my_sqlstate((enum airlock_err)e, (enum airlock_native)n)));
			assert_true(airlock_my_errno((enum airlock_err)e, (enum airlock_native)n) >= 1000);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rows_are_whole),
		cmocka_unit_test(native_or_default),
		cmocka_unit_test(never_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
