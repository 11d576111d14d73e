/*
 * test_validate_my_fingerprint: equal statements with other constants,
 * spacing, comments or keyword case share a fingerprint; other statements
 * do not; text that does not lex has none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "validator/mysql/validate_my_fingerprint.h"

static uint64_t fp(const char *sql)
{
	return vmy_fingerprint(sql, strlen(sql), false, false);
}

static void test_constants_and_layout_do_not_matter(void **state)
{
	(void)state;
	assert_int_not_equal(fp("SELECT id FROM orders WHERE id = 1"), 0);
	assert_int_equal(fp("SELECT id FROM orders WHERE id = 1"), fp("select  id\nFROM orders -- c\n WHERE id = 42"));
	assert_int_equal(fp("SELECT 'a', x'0a', 1.5"), fp("SELECT \"secret\", X'ff', 7"));
	assert_int_equal(fp("SELECT /* note */ 1"), fp("SELECT 2"));
}

static void test_different_statements_differ(void **state)
{
	(void)state;
	assert_int_not_equal(fp("SELECT id FROM orders"), fp("SELECT id FROM customers"));
	assert_int_not_equal(fp("SELECT a FROM t"), fp("SELECT `a` FROM t"));
	assert_int_not_equal(fp("SELECT ab"), fp("SELECT a b"));
}

static void test_unlexable_has_none(void **state)
{
	(void)state;
	assert_int_equal(fp("SELECT 'unterminated"), 0);
	assert_int_equal(vmy_fingerprint("SELECT \0", 8, false, false), 0);
	/* ANSI_QUOTES changes what a double quote is, so the fingerprint follows the session's mode */
	assert_int_not_equal(vmy_fingerprint("SELECT \"a\"", 10, true, false),
			     vmy_fingerprint("SELECT \"a\"", 10, false, false));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_constants_and_layout_do_not_matter),
		cmocka_unit_test(test_different_statements_differ),
		cmocka_unit_test(test_unlexable_has_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
