/*
 * test_validate_my_lex: the MySQL lexer token by token. Each case gives
 * the text, the sql_mode flags and the expected token stream written as
 * kind letters with the token text: W word that may be a keyword, w word
 * that is always a name, Q quoted identifier, S string, X hex string, B
 * bit string, N number, U @name, A lone '@', T "@@", ; semicolon, P
 * punctuation, and E<n> for a lexical error (n = enum vmy_lex_err). The
 * cases follow the server's own lexer (checked against MariaDB 10.11).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "validator/mysql/validate_my_lex.h"

struct lcase {
	const char *sql;
	size_t len; /* 0: strlen(sql) */
	bool ansi, nobs;
	const char *want;
};

#define L(s, w)                       \
	{                             \
		s, 0, false, false, w \
	}
#define LA(s, w)                     \
	{                            \
		s, 0, true, false, w \
	}
#define LN(s, w)                     \
	{                            \
		s, 0, false, true, w \
	}
#define LB(s, n, w)                   \
	{                             \
		s, n, false, false, w \
	}

static const struct lcase cases[] = {
	/* Comments: "--" needs whitespace, a control byte or the end after it. */
	L("SELECT 1--1", "W(SELECT) N(1) P(-) P(-) N(1)"),
	L("SELECT 1-- 1", "W(SELECT) N(1)"),
	L("SELECT 1--\t1", "W(SELECT) N(1)"),
	L("SELECT 1--\x01x\n,2", "W(SELECT) N(1) P(,) N(2)"),
	L("SELECT 1--\x7fx\n,2", "W(SELECT) N(1) P(,) N(2)"),
	L("SELECT 1--\x0b\n,2", "W(SELECT) N(1) P(,) N(2)"),
	L("SELECT 1--", "W(SELECT) N(1)"),
	L("SELECT 1 -- x\n; DROP", "W(SELECT) N(1) ; W(DROP)"),
	L("SELECT 1 --x", "W(SELECT) N(1) P(-) P(-) W(x)"),
	L("SELECT 1 ---- x", "W(SELECT) N(1) P(-) P(-)"),
	L("SELECT 1 --- x", "W(SELECT) N(1) P(-)"),
	L("SELECT 1 --\xc2\xa0x", "W(SELECT) N(1) E13"),
	L("SELECT 1 --\x80", "W(SELECT) N(1) E13"),
	L("SELECT 1 # ; DROP\n,2", "W(SELECT) N(1) P(,) N(2)"),
	L("SELECT 1 # x\r, 2", "W(SELECT) N(1)"),
	L("SELECT 1#x", "W(SELECT) N(1)"),
	L("SELECT 1 /* ; */ , 2", "W(SELECT) N(1) P(,) N(2)"),
	L("SELECT 1 /**/, 2", "W(SELECT) N(1) P(,) N(2)"),
	L("SELECT 1 /* /* */ , 2", "W(SELECT) N(1) P(,) N(2)"),
	L("SELECT 1 /* x", "W(SELECT) N(1) E4"),
	L("SELECT 1 /*/", "W(SELECT) N(1) E4"),
	L("SELECT 1 /*", "W(SELECT) N(1) E4"),
	L("SELECT 1 */", "W(SELECT) N(1) P(*) P(/)"),
	L("SELECT 1 /*! , 2 */", "W(SELECT) N(1) E5"),
	L("/*!50000 DROP TABLE t*/", "E5"),
	L("/*!DROP*/", "E5"),
	L("/*M!100000 DROP TABLE t */", "E5"),
	L("/*m! x */", "E5"),
	L("SELECT 1 /*+ MAX_EXECUTION_TIME(1) */", "W(SELECT) N(1) E6"),
	L("SELECT 1 /*M x */", "W(SELECT) N(1)"),
	L("SELECT 1 / * x", "W(SELECT) N(1) P(/) P(*) W(x)"),
	L("-- only\n", ""),
	L("", ""),
	/* Strings. */
	L("SELECT 'a''b'", "W(SELECT) S('a''b')"),
	L("SELECT 'a\\'b'", "W(SELECT) S('a\\'b')"),
	L("SELECT '\\\\';DROP", "W(SELECT) S('\\\\') ; W(DROP)"),
	L("SELECT '\\';DROP TABLE t;--'", "W(SELECT) S('\\';DROP TABLE t;--')"),
	LN("SELECT '\\';DROP TABLE t;--'", "W(SELECT) S('\\') ; W(DROP) W(TABLE) W(t) ; P(-) P(-) E2"),
	L("SELECT \"a\\\"b\"", "W(SELECT) S(\"a\\\"b\")"),
	LA("SELECT \"a\\\"b\"", "W(SELECT) Q(\"a\\\") W(b) E3"),
	LA("SELECT \"a\"\"b\"", "W(SELECT) Q(\"a\"\"b\")"),
	L("SELECT 'a", "W(SELECT) E2"),
	L("SELECT 'a\\'", "W(SELECT) E2"),
	LN("SELECT 'a\\'", "W(SELECT) S('a\\')"),
	L("SELECT 'a\\", "W(SELECT) E2"),
	L("SELECT \"a", "W(SELECT) E2"),
	L("SELECT '#', '--', '/*'", "W(SELECT) S('#') P(,) S('--') P(,) S('/*')"),
	L("SELECT N'x', n'y'", "W(SELECT) S(N'x') P(,) S(n'y')"),
	L("SELECT N\"x\"", "W(SELECT) W(N) S(\"x\")"),
	L("SELECT _utf8mb4'x'", "W(SELECT) W(_utf8mb4) S('x')"),
	L("SELECT 'a' 'b'", "W(SELECT) S('a') S('b')"),
	L("SELECT '\xff\xfe'", "W(SELECT) S('\xff\xfe')"),
	/* Quoted identifiers. */
	L("SELECT `a``b;'\"`", "W(SELECT) Q(`a``b;'\"`)"),
	L("SELECT `a", "W(SELECT) E3"),
	L("SELECT `a\\`", "W(SELECT) Q(`a\\`)"),
	L("SELECT ``", "W(SELECT) Q(``)"),
	/* Hex and bit literals. */
	L("SELECT X'0A', x'', B'01', b''", "W(SELECT) X(X'0A') P(,) X(x'') P(,) B(B'01') P(,) B(b'')"),
	L("SELECT X'0'", "W(SELECT) E7"),
	L("SELECT X'0G'", "W(SELECT) E7"),
	L("SELECT X'0A", "W(SELECT) E7"),
	L("SELECT B'012'", "W(SELECT) E8"),
	/* Numbers and the identifiers that start with digits. */
	L("SELECT 1e5, 1E+5, 1e-5, 1.5, .5, 1., 1.e5", "W(SELECT) N(1e5) P(,) N(1E+5) P(,) N(1e-5) P(,) "
						       "N(1.5) P(,) N(.5) P(,) N(1.) P(,) N(1.e5)"),
	L("SELECT 1e5x", "W(SELECT) N(1e5) W(x)"),
	L("SELECT 1ex", "W(SELECT) w(1ex)"),
	L("SELECT 1e+", "W(SELECT) w(1e) P(+)"),
	L("SELECT 1e--1", "W(SELECT) w(1e) P(-) P(-) N(1)"),
	L("SELECT 1e-- x", "W(SELECT) w(1e)"),
	L("SELECT 123abc", "W(SELECT) w(123abc)"),
	L("SELECT 0x1F, 0b01", "W(SELECT) N(0x1F) P(,) N(0b01)"),
	L("SELECT 0x1g", "W(SELECT) w(0x1g)"),
	L("SELECT 0x", "W(SELECT) w(0x)"),
	L("SELECT 0X1F", "W(SELECT) w(0X1F)"),
	L("SELECT 0b12", "W(SELECT) w(0b12)"),
	L("SELECT 1..2", "W(SELECT) N(1) P(..) N(2)"),
	L("SELECT 1.5.5", "W(SELECT) N(1.5) N(.5)"),
	L("SELECT .5e-- 1", "W(SELECT) E9"),
	L("SELECT .5e", "W(SELECT) E9"),
	L("SELECT 1.5ex", "W(SELECT) E9"),
	L("SELECT 1.e-'x'", "W(SELECT) E9"),
	/* Qualified names: the parts are never keywords. */
	L("SELECT t.1e5", "W(SELECT) w(t) P(.) w(1e5)"),
	L("SELECT `t`.1e5", "W(SELECT) Q(`t`) N(.1e5)"),
	L("SELECT t .1e5", "W(SELECT) W(t) N(.1e5)"),
	L("SELECT select.from", "W(SELECT) w(select) P(.) w(from)"),
	L("SELECT db.`t`", "W(SELECT) W(db) P(.) Q(`t`)"),
	L("SELECT `db`.t", "W(SELECT) Q(`db`) P(.) w(t)"),
	L("SELECT a. b", "W(SELECT) W(a) P(.) W(b)"),
	L("SELECT * FROM.orders", "W(SELECT) P(*) w(FROM) P(.) w(orders)"),
	/* Variables. */
	L("SELECT @a, @a.b, @a_1$", "W(SELECT) U(@a) P(,) U(@a.b) P(,) U(@a_1$)"),
	L("SELECT @'x', @\"y\", @`z`", "W(SELECT) A(@) S('x') P(,) A(@) S(\"y\") P(,) A(@) Q(`z`)"),
	L("SELECT @a:=1", "W(SELECT) U(@a) P(:=) N(1)"),
	L("SELECT @", "W(SELECT) U(@)"),
	L("SELECT @@version", "W(SELECT) T(@@) W(version)"),
	L("SELECT @@session.sql_mode", "W(SELECT) T(@@) W(session) P(.) w(sql_mode)"),
	L("SELECT @@SESSION . x", "W(SELECT) T(@@) W(SESSION) P(.) W(x)"),
	L("SELECT @@global.x", "W(SELECT) T(@@) W(global) P(.) w(x)"),
	L("SELECT @@`version`", "W(SELECT) T(@@) Q(`version`)"),
	L("SELECT @@ version", "W(SELECT) T(@@) E14"),
	L("SELECT @@'x'", "W(SELECT) T(@@) E14"),
	L("SELECT @@", "W(SELECT) T(@@) E14"),
	/* Refused bytes. */
	LB("SELECT 1\0", 9, "W(SELECT) N(1) E1"),
	L("SELECT \x01", "W(SELECT) E11"),
	L("SELECT \\N", "W(SELECT) E11"),
	L("SELECT [a]", "W(SELECT) E11"),
	L("SELECT $a", "W(SELECT) E12"),
	L("SELECT $$x$$", "W(SELECT) E12"),
	L("SELECT a$b", "W(SELECT) W(a$b)"),
	L("SELECT t.$a", "W(SELECT) w(t) P(.) E12"),
	L("SELECT \xff", "W(SELECT) E10"),
	L("SELECT a\xc3", "W(SELECT) E10"),
	L("SELECT \xed\xa0\x80", "W(SELECT) E10"),
	L("SELECT caf\xc3\xa9, \xe4\xb8\xad", "W(SELECT) W(caf\xc3\xa9) P(,) W(\xe4\xb8\xad)"),
	/* Operators. */
	L("a<=>b:=c<>d!=e<=f>=g&&h||i<<j>>k", "W(a) P(<=>) W(b) P(:=) W(c) P(<>) W(d) P(!=) W(e) P(<=) "
					      "W(f) P(>=) W(g) P(&&) W(h) P(||) W(i) P(<<) W(j) P(>>) W(k)"),
	L("a->'$.x'", "W(a) P(-) P(>) S('$.x')"),
	L("SELECT 1; SELECT 2", "W(SELECT) N(1) ; W(SELECT) N(2)"),
	L("SELECT ?", "W(SELECT) P(?)"),
};

static void render(const struct lcase *c, char *out, size_t size)
{
	struct vmy_lexer lx;
	struct vmy_token t;
	size_t len = c->len ? c->len : strlen(c->sql), used = 0;
	int guard = 0;

	out[0] = '\0';
	vmy_lex_init(&lx, c->sql, len, c->ansi, c->nobs);
	while (vmy_lex_next(&lx, &t) != VMY_T_END && guard++ < 200) {
		char k = '?';
		int n;

		switch (t.kind) {
		case VMY_T_WORD:
			k = t.kw ? 'W' : 'w';
			break;
		case VMY_T_QIDENT:
			k = 'Q';
			break;
		case VMY_T_STRING:
			k = 'S';
			break;
		case VMY_T_HEXSTR:
			k = 'X';
			break;
		case VMY_T_BINSTR:
			k = 'B';
			break;
		case VMY_T_NUMBER:
			k = 'N';
			break;
		case VMY_T_USERVAR:
			k = 'U';
			break;
		case VMY_T_AT:
			k = 'A';
			break;
		case VMY_T_ATAT:
			k = 'T';
			break;
		case VMY_T_PUNCT:
			k = 'P';
			break;
		case VMY_T_SEMI:
			k = ';';
			break;
		default:
			break;
		}
		if (t.kind == VMY_T_ERROR)
			n = snprintf(out + used, size - used, "%sE%d", used ? " " : "", (int)lx.err);
		else if (t.kind == VMY_T_SEMI)
			n = snprintf(out + used, size - used, "%s;", used ? " " : "");
		else
			n = snprintf(out + used, size - used, "%s%c(%.*s)", used ? " " : "", k, (int)t.len,
				     c->sql + t.start);
		if (n < 0 || (size_t)n >= size - used)
			break;
		used += (size_t)n;
		if (t.kind == VMY_T_ERROR)
			break;
	}
}

static void test_tokens(void **state)
{
	char got[2048];
	size_t i;
	int failures = 0;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		render(&cases[i], got, sizeof(got));
		if (strcmp(got, cases[i].want) != 0) {
			print_error("case %zu: %s\n  want: %s\n  got:  %s\n", i, cases[i].sql, cases[i].want, got);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

/* After the end or an error every call gives the same kind again. */
static void test_sticky_end(void **state)
{
	struct vmy_lexer lx;
	struct vmy_token t;

	(void)state;
	vmy_lex_init(&lx, "x", 1, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_WORD);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_END);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_END);
	vmy_lex_init(&lx, "'x", 2, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_ERROR);
	assert_int_equal(lx.err, VMY_LEX_UNTERM_STRING);
	assert_int_equal(lx.err_at, 0);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_ERROR);
	vmy_lex_init(&lx, NULL, 5, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_END);
}

/* Only the given length is read: a quote just past it is not seen. */
static void test_length_bound(void **state)
{
	struct vmy_lexer lx;
	struct vmy_token t;

	(void)state;
	vmy_lex_init(&lx, "'ab'", 3, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_ERROR);
	vmy_lex_init(&lx, "x'0A'", 4, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_ERROR);
	vmy_lex_init(&lx, "1-- ", 3, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_NUMBER);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_END);
	vmy_lex_init(&lx, "/**/", 3, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_ERROR);
	vmy_lex_init(&lx, "@@", 1, false, false);
	assert_int_equal(vmy_lex_next(&lx, &t), VMY_T_USERVAR);
}

static void test_ident_text(void **state)
{
	const char *sql = "`a``b` \"c\"\"d\" e";
	struct vmy_lexer lx;
	struct vmy_token t;
	char buf[16];

	(void)state;
	vmy_lex_init(&lx, sql, strlen(sql), true, false);
	vmy_lex_next(&lx, &t);
	assert_int_equal(vmy_tok_ident(sql, &t, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "a`b");
	vmy_lex_next(&lx, &t);
	assert_int_equal(vmy_tok_ident(sql, &t, buf, sizeof(buf)), 3);
	assert_string_equal(buf, "c\"d");
	vmy_lex_next(&lx, &t);
	assert_int_equal(vmy_tok_ident(sql, &t, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "e");
	/* too long */
	assert_int_equal(vmy_tok_ident(sql, &t, buf, 1), -1);
}

static void test_string_text(void **state)
{
	const char *sql = "'a\\nb\\tc\\'d''e\\%\\_\\x' N'n' 'z\\0'";
	struct vmy_lexer lx;
	struct vmy_token t;
	char buf[64];
	size_t used = 0;

	(void)state;
	vmy_lex_init(&lx, sql, strlen(sql), false, false);
	vmy_lex_next(&lx, &t);
	assert_true(vmy_tok_string(sql, &t, false, buf, sizeof(buf), &used));
	assert_string_equal(buf, "a\nb\tc'd'e\\%\\_x");
	vmy_lex_next(&lx, &t);
	used = 0;
	assert_true(vmy_tok_string(sql, &t, false, buf, sizeof(buf), &used));
	assert_string_equal(buf, "n");
	vmy_lex_next(&lx, &t);
	used = 0;
	assert_false(vmy_tok_string(sql, &t, false, buf, sizeof(buf), &used));
	/* without backslash escapes the backslash is a plain byte */
	vmy_lex_init(&lx, "'a\\n'", 5, false, true);
	vmy_lex_next(&lx, &t);
	used = 0;
	assert_true(vmy_tok_string("'a\\n'", &t, true, buf, sizeof(buf), &used));
	assert_string_equal(buf, "a\\n");
	/* too small */
	used = 0;
	assert_false(vmy_tok_string("'a\\n'", &t, true, buf, 3, &used));
}

static void test_err_text(void **state)
{
	int e;

	(void)state;
	for (e = VMY_LEX_OK; e <= VMY_LEX_BAD_SYSVAR; e++)
		assert_non_null(vmy_lex_err_text((enum vmy_lex_err)e));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens),       cmocka_unit_test(test_sticky_end),
		cmocka_unit_test(test_length_bound), cmocka_unit_test(test_ident_text),
		cmocka_unit_test(test_string_text),  cmocka_unit_test(test_err_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
