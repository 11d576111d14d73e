/*
 * test_validate_my_rule: row filters and masks re-spelled so that every
 * sql_mode reads them as the operator wrote them, and sql_mode values
 * normalised as MariaDB prints them. The re-spelled text is lexed under
 * each combination of ANSI_QUOTES and NO_BACKSLASH_ESCAPES: the same
 * tokens every time, and none that a mode reads differently.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/wbuf.h"
#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_lex.h"
#include "validator/mysql/validate_my_rule.h"

/* expr re-spelled (heap), or NULL when it cannot be. */
static char *respell(const char *expr)
{
	struct wbuf w;
	char *out;

	wbuf_init(&w);
	if (!vmy_rule_put(&w, expr)) {
		wbuf_free(&w);
		return NULL;
	}
	wbuf_put_u8(&w, 0);
	assert_false(w.failed);
	out = strdup((const char *)w.data);
	wbuf_free(&w);
	return out;
}

/* The tokens of s under one lexing mode, as "kind:text|..." (heap). */
static char *tokens(const char *s, bool aq, bool nbs)
{
	struct vmy_lexer lx;
	struct vmy_token t;
	struct wbuf w;
	char *out;

	wbuf_init(&w);
	vmy_lex_init(&lx, s, strlen(s), aq, nbs);
	while (vmy_lex_next(&lx, &t) != VMY_T_END) {
		assert_int_not_equal(t.kind, VMY_T_ERROR);
		wbuf_put_u8(&w, (uint8_t)('0' + t.kind));
		wbuf_put_u8(&w, ':');
		wbuf_put_bytes(&w, s + t.start, t.len);
		wbuf_put_u8(&w, '|');
	}
	wbuf_put_u8(&w, 0);
	out = strdup((const char *)w.data);
	wbuf_free(&w);
	return out;
}

/* expr re-spells to want, and want lexes the same under every lexing mode, with no "..." and no ||. */
static void same(const char *expr, const char *want)
{
	char *out = respell(expr), *base;

	assert_non_null(out);
	assert_string_equal(out, want);
	base = tokens(out, false, false);
	for (int m = 1; m < 4; m++) {
		char *other = tokens(out, m & 1, m & 2);

		assert_string_equal(base, other);
		free(other);
	}
	assert_null(strchr(out, '"'));
	assert_null(strstr(out, "||"));
	free(base);
	free(out);
}

static void test_strings(void **state)
{
	(void)state;
	same("status = 'active'", "status = _utf8mb4 X'616374697665'");
	same("status = \"active\"", "status = _utf8mb4 X'616374697665'");
	/* Backslash escapes are read as the default mode reads them, once. */
	same("name <> 'O\\'Brien'", "name <> _utf8mb4 X'4F27427269656E'");
	same("name LIKE 'a\\_b%'", "name LIKE _utf8mb4 X'615C5F6225'");
	/* '' stays an empty string under EMPTY_STRING_IS_NULL. */
	same("region <> ''", "region <> _utf8mb4 X''");
	/* Adjacent literals are one. */
	same("a = 'x' 'y'", "a = _utf8mb4 X'7879'");
	same("a = N'x'", "a = _utf8mb3 X'78'");
	same("a = _latin1'x'", "a = _latin1 X'78'");
	/* Where the grammar wants a quoted string it stays one, if plain. */
	same("d > DATE '2024-01-01'", "d > DATE '2024-01-01'");
	same("n = 'x' COLLATE 'utf8mb4_bin'", "n = _utf8mb4 X'78' COLLATE 'utf8mb4_bin'");
	assert_null(respell("d > DATE 'a\\\\b'"));
	assert_null(respell("d > DATE ''"));
	/* @'x' is a variable's name. */
	same("@'t' = 1", "@`t` = 1");
	same("@\"t\" = 1", "@`t` = 1");
}

static void test_operators(void **state)
{
	(void)state;
	same("a = 1 || b = 2", "a = 1 OR b = 2");
	same("a = 1&&b = 2", "a = 1 AND b = 2");
	same("LEFT(email, 1)", "LEFT(email, 1)");
	/* A function name sits right before its parenthesis (IGNORE_SPACE). */
	same("count (x) > 1", "count(x) > 1");
	same("t.a = `b`.c", "t.a = `b`.c");
	/* Comments go. */
	same("a = 1 -- note\n", "a = 1");
	same("a /* x */ = 1 # y", "a = 1");
}

static void test_not(void **state)
{
	(void)state;
	same("NOT level < 3", "NOT (level < 3)");
	same("NOT a = 1 AND b = 2", "NOT (a = 1) AND b = 2");
	same("NOT a BETWEEN 1 AND 5 AND c", "NOT (a BETWEEN 1 AND 5) AND c");
	same("NOT NOT a > 1 OR b", "NOT (NOT (a > 1)) OR b");
	same("(NOT a > 1) XOR b", "(NOT (a > 1)) XOR b");
	same("CASE WHEN NOT a > 1 THEN 1 ELSE 0 END", "CASE WHEN NOT (a > 1) THEN 1 ELSE 0 END");
	same("NOT CASE WHEN a THEN 1 END = 1", "NOT (CASE WHEN a THEN 1 END = 1)");
	same("IF(NOT a, 1, 2)", "IF(NOT (a), 1, 2)");
	/* Infix NOTs are the same under every precedence. */
	same("a IS NOT NULL", "a IS NOT NULL");
	same("a NOT IN (1, 2) AND b NOT LIKE 'x'", "a NOT IN(1, 2) AND b NOT LIKE _utf8mb4 X'78'");
	same("a NOT BETWEEN 1 AND 2", "a NOT BETWEEN 1 AND 2");
	same("NOT EXISTS (SELECT 1)", "NOT (EXISTS(SELECT 1))");
}

/* Text the default mode cannot lex, or a second statement, is not used. */
static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"a = 'open", "a = `open", "a /* open", "/*! 1 */ a", "/*+ x */ a",
		"a = 1; b",  "a = $x",    "a = X'1'",  "a = \\",     "a = 'x\\0y'",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_null(respell(bad[i]));
	same("", "");
}

static void test_sql_mode_normalize(void **state)
{
	char out[256];
	unsigned f;

	(void)state;
	assert_true(vmy_sql_mode_normalize("ansi_quotes,pipes_as_concat", 27, out, sizeof(out), &f));
	assert_string_equal(out, "PIPES_AS_CONCAT,ANSI_QUOTES");
	assert_int_equal(f, VMY_MODE_ANSI_QUOTES);
	assert_true(vmy_sql_mode_normalize("ansi", 4, out, sizeof(out), &f));
	assert_string_equal(out, "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ANSI");
	assert_true(vmy_sql_mode_normalize("traditional", 11, out, sizeof(out), &f));
	assert_string_equal(out, "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
				 "ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION");
	assert_int_equal(f, VMY_MODE_VALUES);
	assert_true(vmy_sql_mode_normalize(",,", 2, out, sizeof(out), &f));
	assert_string_equal(out, "");
	assert_true(vmy_sql_mode_normalize("no_backslash_escapes,NO_BACKSLASH_ESCAPES", 41, out, sizeof(out), &f));
	assert_string_equal(out, "NO_BACKSLASH_ESCAPES");
	assert_int_equal(f, VMY_MODE_NO_BACKSLASH_ESCAPES);
	assert_true(vmy_sql_mode_normalize("PAD_CHAR_TO_FULL_LENGTH", 23, NULL, 0, &f));
	assert_int_equal(f, VMY_MODE_VALUES);
	/* Too small for the result, unknown and refused names. */
	assert_false(vmy_sql_mode_normalize("ansi", 4, out, 10, &f));
	assert_false(vmy_sql_mode_normalize("time_truncate_fractional", 24, out, sizeof(out), &f));
	assert_false(vmy_sql_mode_normalize("ansi,oracle", 11, out, sizeof(out), &f));
	assert_false(vmy_sql_mode_normalize(" ansi", 5, out, sizeof(out), &f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),   cmocka_unit_test(test_operators),          cmocka_unit_test(test_not),
		cmocka_unit_test(test_malformed), cmocka_unit_test(test_sql_mode_normalize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
