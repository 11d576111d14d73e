/*
 * Tests for protocol/my_stmt: COM_STMT_EXECUTE decoding (with every
 * truncation of a valid packet), parameters as SQL literals in both
 * escaping modes, COM_STMT_PREPARE_OK and binary result rows, all with
 * hand-checked bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/my_stmt.h"

/* A literal with embedded NULs: pointer and sizeof - 1. */
#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

static struct my_stmt_execute ex; /* large: not on the stack */

static void expect_bytes(const struct wbuf *b, const void *want, size_t n)
{
	assert_false(b->failed);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

/* A heap copy of exactly n bytes, so ASan catches a read past the end. */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *q = malloc(n ? n : 1);

	assert_non_null(q);
	if (n)
		memcpy(q, p, n);
	return q;
}

/* ---- COM_STMT_EXECUTE -------------------------------------------------------- */

/*
 * stmt 7, no cursor, 1 iteration, 4 params; bitmap 0x02 (param 1 NULL);
 * bound; types LONGLONG unsigned, VAR_STRING, VAR_STRING, DATETIME; values
 * 2^64-1, (NULL), "it's", 2024-02-29 13:05:09.
 */
#define EXEC4                              \
	"\x17"                             \
	"\x07\x00\x00\x00"                 \
	"\x00"                             \
	"\x01\x00\x00\x00"                 \
	"\x02"                             \
	"\x01"                             \
	"\x08\x80"                         \
	"\xfd\x00"                         \
	"\xfd\x00"                         \
	"\x0c\x00"                         \
	"\xff\xff\xff\xff\xff\xff\xff\xff" \
	"\x04it's"                         \
	"\x07\xe8\x07\x02\x1d\x0d\x05\x09"

static void test_execute_id(void **state)
{
	uint32_t id = 99;

	(void)state;
	assert_int_equal(my_stmt_execute_id(LIT("\x17\x01\x02\x03\x04"), &id), MY_OK);
	assert_int_equal(id, 0x04030201u);
	assert_int_equal(my_stmt_execute_id(LIT("\x17\x01\x02\x03"), &id), MY_ERR);
	assert_int_equal(my_stmt_execute_id(NULL, 0, &id), MY_ERR);
}

static void test_execute_decode(void **state)
{
	uint8_t types[8];
	const char *why = NULL;

	(void)state;
	memset(types, 0xee, sizeof(types));
	assert_int_equal(my_stmt_decode_execute(LIT(EXEC4), 4, NULL, &ex, types, &why), MY_OK);
	assert_int_equal(ex.stmt_id, 7);
	assert_int_equal(ex.flags, 0);
	assert_int_equal(ex.iterations, 1);
	assert_true(ex.new_params_bound);
	assert_int_equal(ex.nparams, 4);
	assert_memory_equal(types, "\x08\x80\xfd\x00\xfd\x00\x0c\x00", 8);

	assert_false(ex.params[0].is_null);
	assert_int_equal(ex.params[0].type, MY_TYPE_LONGLONG);
	assert_true(ex.params[0].is_unsigned);
	assert_int_equal(ex.params[0].len, 8);
	assert_memory_equal(ex.params[0].value, "\xff\xff\xff\xff\xff\xff\xff\xff", 8);

	assert_true(ex.params[1].is_null);
	assert_null(ex.params[1].value);
	assert_int_equal(ex.params[1].type, MY_TYPE_VAR_STRING);

	assert_false(ex.params[2].is_null);
	assert_false(ex.params[2].is_unsigned);
	assert_int_equal(ex.params[2].len, 4);
	assert_memory_equal(ex.params[2].value, "it's", 4);

	assert_int_equal(ex.params[3].type, MY_TYPE_DATETIME);
	assert_int_equal(ex.params[3].len, 7);
	assert_memory_equal(ex.params[3].value, "\xe8\x07\x02\x1d\x0d\x05\x09", 7);
}

static void test_execute_every_prefix_fails(void **state)
{
	const uint8_t *full = (const uint8_t *)EXEC4;
	size_t n = sizeof(EXEC4) - 1, i;

	(void)state;
	for (i = 0; i < n; i++) {
		uint8_t *q = dup_exact(full, i);
		const char *why = NULL;

		assert_int_equal(my_stmt_decode_execute(q, i, 4, NULL, &ex, NULL, &why), MY_ERR);
		assert_non_null(why);
		assert_int_equal(ex.nparams, 0);
		free(q);
	}
	/* And one byte too many. */
	{
		uint8_t buf[sizeof(EXEC4)];
		const char *why = NULL;

		memcpy(buf, full, n);
		buf[n] = 0;
		assert_int_equal(my_stmt_decode_execute(buf, n + 1, 4, NULL, &ex, NULL, &why), MY_ERR);
		assert_string_equal(why, "trailing bytes after COM_STMT_EXECUTE");
	}
}

static void test_execute_not_rebound(void **state)
{
	/* Same statement, types not re-sent: bitmap 0x00, bound 0, values 5 and "ab". */
	static const char pkt[] = "\x17"
				  "\x07\x00\x00\x00"
				  "\x00"
				  "\x01\x00\x00\x00"
				  "\x00"
				  "\x00"
				  "\x05\x00\x00\x00"
				  "\x02"
				  "ab";
	uint8_t prev[4] = {MY_TYPE_LONG, 0x00, MY_TYPE_STRING, 0x00};
	uint8_t kept[4] = {0};
	const char *why = NULL;

	(void)state;
	assert_int_equal(my_stmt_decode_execute(LIT(pkt), 2, NULL, &ex, kept, &why), MY_ERR);
	assert_string_equal(why, "parameter types never sent");
	assert_memory_equal(kept, "\0\0\0\0", 4); /* untouched on error */

	assert_int_equal(my_stmt_decode_execute(LIT(pkt), 2, prev, &ex, kept, &why), MY_OK);
	assert_false(ex.new_params_bound);
	assert_memory_equal(kept, prev, 4);
	assert_int_equal(ex.params[0].type, MY_TYPE_LONG);
	assert_int_equal(ex.params[0].len, 4);
	assert_memory_equal(ex.params[0].value, "\x05\x00\x00\x00", 4);
	assert_int_equal(ex.params[1].type, MY_TYPE_STRING);
	assert_int_equal(ex.params[1].len, 2);
	assert_memory_equal(ex.params[1].value, "ab", 2);

	/* prev_types and types_out may be the same array. */
	assert_int_equal(my_stmt_decode_execute(LIT(pkt), 2, prev, &ex, prev, &why), MY_OK);
	assert_memory_equal(prev, "\x03\x00\xfe\x00", 4);

	/* Bound packet overwriting the kept types in place. */
	{
		static const char pkt2[] = "\x17"
					   "\x07\x00\x00\x00"
					   "\x00"
					   "\x01\x00\x00\x00"
					   "\x03"
					   "\x01"
					   "\x01\x80\x06\x00";
		assert_int_equal(my_stmt_decode_execute(LIT(pkt2), 2, prev, &ex, prev, &why), MY_OK);
		assert_memory_equal(prev, "\x01\x80\x06\x00", 4);
		assert_true(ex.params[0].is_null);
		assert_true(ex.params[1].is_null);
	}
}

static void test_execute_malformed(void **state)
{
	const char *why = NULL;
	uint8_t prev[2] = {MY_TYPE_LONG, 0};

	(void)state;
	/* No parameters: exactly 10 bytes. */
	assert_int_equal(
		my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"), 0, NULL, &ex, NULL, &why),
		MY_OK);
	assert_int_equal(ex.stmt_id, 1);
	assert_int_equal(
		my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00"), 0, NULL, &ex, NULL, &why),
		MY_ERR);
	/* Wrong command byte. */
	assert_int_equal(
		my_stmt_decode_execute(LIT("\x16\x01\x00\x00\x00\x00\x01\x00\x00\x00"), 0, NULL, &ex, NULL, &why),
		MY_ERR);
	/* Too many parameters. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"), MY_STMT_MAX_PARAMS + 1,
						NULL, &ex, NULL, &why),
			 MY_ERR);
	/* new_params_bound 2. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x02"
						    "\x03\x00\x01\x00\x00\x00"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	assert_string_equal(why, "bad new_params_bound flag");
	/* Unknown types: TIME2 (internal) and 100. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\x13\x00"
						    "\x00"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	assert_string_equal(why, "unsupported parameter type");
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x01\x01"
						    "\x64\x00"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	/* Lenenc NULL marker and a length past the end. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\xfd\x00"
						    "\xfb"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\xfd\x00"
						    "\x05"
						    "abcd"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\xfd\x00"
						    "\xfe\xff\xff\xff\xff\xff\xff\xff\xff"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	/* Date lengths other than 0/4/7/11, time other than 0/8/12. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\x0a\x00"
						    "\x05\xe8\x07\x02\x1d\x00"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\x0b\x00"
						    "\x04\x00\x00\x00\x00"),
						1, NULL, &ex, NULL, &why),
			 MY_ERR);
	/* Length-0 date and time are fine. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\x0a\x00\x0b\x00"
						    "\x00\x00"),
						2, NULL, &ex, NULL, &why),
			 MY_OK);
	assert_int_equal(ex.params[0].len, 0);
	assert_int_equal(ex.params[1].len, 0);
	/* A NULL-typed parameter takes no bytes even with its bit clear. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x01"
						    "\x06\x00"),
						1, NULL, &ex, NULL, &why),
			 MY_OK);
	assert_true(ex.params[0].is_null);
	/* Unbound, prev types given, value missing. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\x00\x00"
						    "\x01\x00\x00"),
						1, prev, &ex, NULL, &why),
			 MY_ERR);
	/* 9 parameters: a 2-byte bitmap, all NULL. */
	assert_int_equal(my_stmt_decode_execute(LIT("\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00"
						    "\xff\x01"
						    "\x01"
						    "\x03\x00\x03\x00\x03\x00\x03\x00\x03\x00\x03\x00\x03\x00\x03\x00"
						    "\x03\x00"),
						9, NULL, &ex, NULL, &why),
			 MY_OK);
	assert_true(ex.params[8].is_null);
}

/* ---- parameter literals -------------------------------------------------------- */

/* The literal for one parameter, NUL-terminated in a static buffer; NULL on MY_ERR. */
static const char *lit(uint8_t type, bool is_unsigned, const void *v, size_t n, bool nbe)
{
	static char text[512];
	struct my_param prm = {.is_null = false, .type = type, .is_unsigned = is_unsigned, .value = v, .len = n};
	struct wbuf b;
	const char *why = NULL;
	enum my_status st;

	wbuf_init(&b);
	my_put_bytes(&b, "x", 1);
	st = my_param_literal(&prm, nbe, NULL, &b, &why);
	if (st != MY_OK) {
		assert_non_null(why);
		assert_int_equal(b.len, 1); /* rolled back */
		wbuf_free(&b);
		return NULL;
	}
	assert_false(b.failed);
	assert_true(b.len - 1 < sizeof(text));
	memcpy(text, b.data + 1, b.len - 1);
	text[b.len - 1] = 0;
	wbuf_free(&b);
	return text;
}

#define LITV(type, uns, bytes, nbe) lit(type, uns, bytes, sizeof(bytes) - 1, nbe)

/* A quoted literal is one token: the first quote that is not doubled (or escaped) is the last byte. */
static void assert_one_token(const char *s, size_t n, bool nbe)
{
	size_t i;

	assert_true(n >= 2 && s[0] == '\'');
	for (i = 1; i < n; i++) {
		if (s[i] == '\\' && !nbe) {
			i++;
			continue;
		}
		if (s[i] == '\'') {
			if (i + 1 < n && s[i + 1] == '\'') {
				i++;
				continue;
			}
			break;
		}
	}
	assert_int_equal(i, n - 1);
}

static void test_literal_null_and_ints(void **state)
{
	struct my_param prm = {.is_null = true, .type = MY_TYPE_LONG};
	struct wbuf b;
	const char *why = NULL;

	(void)state;
	wbuf_init(&b);
	assert_int_equal(my_param_literal(&prm, false, NULL, &b, &why), MY_OK);
	expect_bytes(&b, "NULL", 4);
	wbuf_free(&b);

	assert_string_equal(LITV(MY_TYPE_TINY, false, "\xff", false), "-1");
	assert_string_equal(LITV(MY_TYPE_TINY, true, "\xff", false), "255");
	assert_string_equal(LITV(MY_TYPE_TINY, false, "\x7f", false), "127");
	assert_string_equal(LITV(MY_TYPE_SHORT, false, "\x00\x80", false), "-32768");
	assert_string_equal(LITV(MY_TYPE_SHORT, true, "\x00\x80", false), "32768");
	assert_string_equal(LITV(MY_TYPE_YEAR, true, "\xe4\x07", false), "2020");
	assert_string_equal(LITV(MY_TYPE_YEAR, false, "\xe4\x07", false), "2020");
	assert_string_equal(LITV(MY_TYPE_LONG, false, "\xff\xff\xff\xff", false), "-1");
	assert_string_equal(LITV(MY_TYPE_LONG, true, "\xff\xff\xff\xff", false), "4294967295");
	assert_string_equal(LITV(MY_TYPE_INT24, false, "\x40\xe2\x01\x00", false), "123456");
	assert_string_equal(LITV(MY_TYPE_LONGLONG, false, "\x00\x00\x00\x00\x00\x00\x00\x80", false),
			    "-9223372036854775808");
	assert_string_equal(LITV(MY_TYPE_LONGLONG, true, "\xff\xff\xff\xff\xff\xff\xff\xff", false),
			    "18446744073709551615");
	assert_string_equal(LITV(MY_TYPE_LONGLONG, false, "\x0a\x00\x00\x00\x00\x00\x00\x00", false), "10");
	/* Wrong lengths for hand-built params. */
	assert_null(LITV(MY_TYPE_LONG, false, "\x01\x00", false));
	assert_null(LITV(MY_TYPE_TINY, false, "", false));
	/* Types we do not know. */
	assert_null(LITV(MY_TYPE_TIME2, false, "", false));
	assert_null(LITV(100, false, "a", false));
	/* MY_TYPE_NULL not flagged NULL is still NULL. */
	assert_string_equal(LITV(MY_TYPE_NULL, false, "", false), "NULL");
}

static void test_literal_floats(void **state)
{
	double d;
	uint8_t raw[8];

	(void)state;
	/* Integral doubles are integers (LIMIT ? from mysql2). */
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\x24\x40", false), "10");
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\x00\x00", false), "0");
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\x00\x80", false), "0"); /* -0 */
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\x59\xc0", false), "-100");
	/* 2^53 - 1 = 0x433fffffffffffff is an integer; 2^53 is not written as one. */
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\xff\xff\xff\xff\xff\xff\x3f\x43", false), "9007199254740991");
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\x40\x43", false), "9007199254740992");
	/* Fractions: shortest round trip. */
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x66\x66\x66\x66\x66\x66\x24\x40", false), "10.2");
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x9a\x99\x99\x99\x99\x99\xb9\x3f", false), "0.1");
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\x04\xc0", false), "-2.5");
	/* 0.1 + 0.2 = 0x3fd3333333333334 needs 17 digits. */
	assert_string_equal(LITV(MY_TYPE_DOUBLE, false, "\x34\x33\x33\x33\x33\x33\xd3\x3f", false),
			    "0.30000000000000004");
	d = 1e300;
	memcpy(raw, &d, 8);
	assert_string_equal(lit(MY_TYPE_DOUBLE, false, raw, 8, false), "1e+300");
	/* NaN and infinities. */
	assert_null(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\xf8\x7f", false));
	assert_null(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\xf0\x7f", false));
	assert_null(LITV(MY_TYPE_DOUBLE, false, "\x00\x00\x00\x00\x00\x00\xf0\xff", false));
	/* FLOAT: 10.2f = 0x41233333, 1.5f = 0x3fc00000, 3.0f = 0x40400000. */
	assert_string_equal(LITV(MY_TYPE_FLOAT, false, "\x33\x33\x23\x41", false), "10.2");
	assert_string_equal(LITV(MY_TYPE_FLOAT, false, "\x00\x00\xc0\x3f", false), "1.5");
	assert_string_equal(LITV(MY_TYPE_FLOAT, false, "\x00\x00\x40\x40", false), "3");
	assert_null(LITV(MY_TYPE_FLOAT, false, "\x00\x00\xc0\x7f", false));
	assert_null(LITV(MY_TYPE_FLOAT, false, "\x00\x00\x24\x40\x00", false));
}

static void test_literal_decimal(void **state)
{
	(void)state;
	assert_string_equal(LITV(MY_TYPE_NEWDECIMAL, false, "-12.50", false), "-12.50");
	assert_string_equal(LITV(MY_TYPE_DECIMAL, false, "0", false), "0");
	assert_string_equal(LITV(MY_TYPE_NEWDECIMAL, false, "123456789012345678901234567890", false),
			    "123456789012345678901234567890");
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, "", false));
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, "-", false));
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, "1.", false));
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, ".5", false));
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, "1e5", false));
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, "+1", false));
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, "1.2.3", false));
	assert_null(LITV(MY_TYPE_NEWDECIMAL, false, "1 OR 1=1", false));
	assert_null(LITV(MY_TYPE_DECIMAL, false, "1'", false));
}

static void test_literal_strings(void **state)
{
	static const uint8_t string_types[] = {
		MY_TYPE_VARCHAR, MY_TYPE_VAR_STRING,  MY_TYPE_STRING,    MY_TYPE_TINY_BLOB,
		MY_TYPE_BLOB,    MY_TYPE_MEDIUM_BLOB, MY_TYPE_LONG_BLOB, MY_TYPE_JSON,
		MY_TYPE_ENUM,    MY_TYPE_SET,         MY_TYPE_BIT,       MY_TYPE_GEOMETRY,
	};
	size_t i;
	const char *s;

	(void)state;
	for (i = 0; i < sizeof(string_types); i++) {
		assert_string_equal(LITV(string_types[i], false, "abc", false), "'abc'");
		assert_string_equal(LITV(string_types[i], false, "", true), "''");
	}
	/* Quote and backslash, both modes. */
	assert_string_equal(LITV(MY_TYPE_VAR_STRING, false, "it's a \\ test", false), "'it''s a \\\\ test'");
	assert_string_equal(LITV(MY_TYPE_VAR_STRING, false, "it's a \\ test", true), "'it''s a \\ test'");
	/* The classic break-outs: \' and a trailing backslash. */
	s = LITV(MY_TYPE_STRING, false, "\\'", false);
	assert_string_equal(s, "'\\\\'''");
	assert_one_token(s, strlen(s), false);
	s = LITV(MY_TYPE_STRING, false, "\\'", true);
	assert_string_equal(s, "'\\'''");
	assert_one_token(s, strlen(s), true);
	s = LITV(MY_TYPE_STRING, false, "x\\", false);
	assert_string_equal(s, "'x\\\\'");
	assert_one_token(s, strlen(s), false);
	s = LITV(MY_TYPE_STRING, false, "x\\", true);
	assert_string_equal(s, "'x\\'");
	assert_one_token(s, strlen(s), true);
	s = LITV(MY_TYPE_STRING, false, "''; DROP TABLE t; --", false);
	assert_string_equal(s, "'''''; DROP TABLE t; --'");
	assert_one_token(s, strlen(s), false);
	/* NUL: \0, or under NO_BACKSLASH_ESCAPES a hex literal of the connection's set (refused without one). */
	{
		static const char v[] = "a\0b";
		struct my_param prm = {.type = MY_TYPE_BLOB, .value = (const uint8_t *)v, .len = 3};
		struct wbuf b;
		const char *why = NULL;

		wbuf_init(&b);
		assert_int_equal(my_param_literal(&prm, false, NULL, &b, &why), MY_OK);
		expect_bytes(&b, "'a\\0b'", 6);
		assert_int_equal(my_param_literal(&prm, true, NULL, &b, &why), MY_ERR);
		assert_non_null(why);
		assert_int_equal(b.len, 6);
		/* ... or, given the connection's set, a hex literal of it; a name that is not plain is refused. */
		assert_int_equal(my_param_literal(&prm, true, "utf8mb4", &b, &why), MY_OK);
		expect_bytes(&b, "'a\\0b'_utf8mb4 X'610062'", 24);
		b.len = 6;
		assert_int_equal(my_param_literal(&prm, true, "utf8mb4' OR '1", &b, &why), MY_ERR);
		assert_int_equal(b.len, 6);
		wbuf_free(&b);
	}
	/* High bytes copied. */
	assert_string_equal(LITV(MY_TYPE_VARCHAR, false, "\xc3\xa9\xff", false), "'\xc3\xa9\xff'");
	/* Every two-byte value keeps the literal one token, both modes. */
	{
		unsigned a, c;

		for (a = 1; a < 256; a++) {
			for (c = 1; c < 256; c++) {
				uint8_t v[2] = {(uint8_t)a, (uint8_t)c};

				s = lit(MY_TYPE_STRING, false, v, 2, false);
				assert_one_token(s, strlen(s), false);
				s = lit(MY_TYPE_STRING, false, v, 2, true);
				assert_one_token(s, strlen(s), true);
			}
		}
	}
}

static void test_literal_dates(void **state)
{
	(void)state;
	assert_string_equal(LITV(MY_TYPE_DATE, false, "", false), "'0000-00-00'");
	assert_string_equal(LITV(MY_TYPE_DATE, false, "\xe8\x07\x02\x1d", false), "'2024-02-29'");
	assert_string_equal(LITV(MY_TYPE_DATETIME, false, "\xe8\x07\x02\x1d", false), "'2024-02-29'");
	assert_string_equal(LITV(MY_TYPE_DATETIME, false, "\xe8\x07\x02\x1d\x0d\x05\x09", false),
			    "'2024-02-29 13:05:09'");
	assert_string_equal(LITV(MY_TYPE_TIMESTAMP, false, "\xe8\x07\x02\x1d\x0d\x05\x09\x40\xe2\x01\x00", false),
			    "'2024-02-29 13:05:09.123456'");
	assert_string_equal(LITV(MY_TYPE_DATETIME, false, "\x01\x00\x01\x01\x00\x00\x00\x01\x00\x00\x00", false),
			    "'0001-01-01 00:00:00.000001'");
	assert_null(LITV(MY_TYPE_DATE, false, "\xe8\x07\x0d\x01", false));                 /* month 13 */
	assert_null(LITV(MY_TYPE_DATE, false, "\x10\x27\x01\x01", false));                 /* year 10000 */
	assert_null(LITV(MY_TYPE_DATETIME, false, "\xe8\x07\x01\x01\x18\x00\x00", false)); /* hour 24 */
	assert_null(LITV(MY_TYPE_DATETIME, false, "\xe8\x07\x01\x01\x00\x00\x00\x40\x42\x0f\x00", false));
	assert_null(LITV(MY_TYPE_DATE, false, "\xe8\x07\x01", false)); /* length 3 */

	assert_string_equal(LITV(MY_TYPE_TIME, false, "", false), "'00:00:00'");
	assert_string_equal(LITV(MY_TYPE_TIME, false, "\x01\x01\x00\x00\x00\x02\x03\x04", false), "'-26:03:04'");
	assert_string_equal(LITV(MY_TYPE_TIME, false, "\x00\x00\x00\x00\x00\x02\x03\x04", false), "'02:03:04'");
	assert_string_equal(LITV(MY_TYPE_TIME, false, "\x01\x01\x00\x00\x00\x02\x03\x04\x05\x00\x00\x00", false),
			    "'-26:03:04.000005'");
	assert_string_equal(LITV(MY_TYPE_TIME, false, "\x00\x22\x00\x00\x00\x16\x3b\x3b", false), "'838:59:59'");
	assert_null(LITV(MY_TYPE_TIME, false, "\x02\x00\x00\x00\x00\x00\x00\x00", false)); /* sign 2 */
	assert_null(LITV(MY_TYPE_TIME, false, "\x00\x00\x00\x00\x00\x18\x00\x00", false)); /* hour 24 */
	assert_null(LITV(MY_TYPE_TIME, false, "\x00\x00\x00\x00\x00\x00\x3c\x00", false)); /* minute 60 */
	assert_null(LITV(MY_TYPE_TIME, false, "\x00\x00\x00\x00", false));                 /* length 4 */
}

static void test_literal_from_decoded_execute(void **state)
{
	static const char *want[] = {"18446744073709551615", "NULL", "'it''s'", "'2024-02-29 13:05:09'"};
	struct wbuf b;
	const char *why = NULL;
	size_t i;

	(void)state;
	assert_int_equal(my_stmt_decode_execute(LIT(EXEC4), 4, NULL, &ex, NULL, &why), MY_OK);
	wbuf_init(&b);
	for (i = 0; i < 4; i++) {
		wbuf_reset(&b);
		assert_int_equal(my_param_literal(&ex.params[i], false, NULL, &b, &why), MY_OK);
		expect_bytes(&b, want[i], strlen(want[i]));
	}
	wbuf_free(&b);
}

/* ---- COM_STMT_PREPARE_OK and binary rows ------------------------------------------ */

static void test_prepare_ok(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_write_prepare_ok(&b, 1, 1, 2, 3, 0);
	expect_bytes(&b, LIT("\x0c\x00\x00\x01"
			     "\x00"
			     "\x01\x00\x00\x00"
			     "\x02\x00"
			     "\x03\x00"
			     "\x00"
			     "\x00\x00"));
	wbuf_reset(&b);
	my_write_prepare_ok(&b, 7, 0x01020304, 0, 0xffff, 5);
	expect_bytes(&b, LIT("\x0c\x00\x00\x07"
			     "\x00"
			     "\x04\x03\x02\x01"
			     "\x00\x00"
			     "\xff\xff"
			     "\x00"
			     "\x05\x00"));
	wbuf_free(&b);
}

/* One-column row from text; returns the status, the packet in *b. */
static enum my_status row1(struct wbuf *b, uint8_t type, bool uns, const char *text)
{
	const uint8_t *values[1] = {(const uint8_t *)text};
	size_t lens[1] = {text ? strlen(text) : 0};
	const char *why = NULL;
	enum my_status st;

	wbuf_reset(b);
	st = my_write_binary_row(b, 2, 1, &type, &uns, values, lens, &why);
	if (st != MY_OK) {
		assert_non_null(why);
		assert_int_equal(b->len, 0);
		assert_false(b->failed);
	}
	return st;
}

/* Expect a one-column row: header, 0x00, bitmap 0x00, then the value bytes. */
#define ROW1(b, type, uns, text, val)                                                 \
	do {                                                                          \
		static const char v_[] = val;                                         \
		uint8_t want_[64] = {(uint8_t)(sizeof(v_) + 1), 0, 0, 2, 0x00, 0x00}; \
		memcpy(want_ + 6, v_, sizeof(v_) - 1);                                \
		assert_int_equal(row1(b, type, uns, text), MY_OK);                    \
		expect_bytes(b, want_, sizeof(v_) - 1 + 6);                           \
	} while (0)

static void test_binary_row_values(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	/* The documented example: one VAR_STRING "foobar". */
	ROW1(&b, MY_TYPE_VAR_STRING, false, "foobar",
	     "\x06"
	     "foobar");
	ROW1(&b, MY_TYPE_NEWDECIMAL, false, "-15.50",
	     "\x06"
	     "-15.50");
	ROW1(&b, MY_TYPE_JSON, false, "{}",
	     "\x02"
	     "{}");
	ROW1(&b, MY_TYPE_NULL, false, "", "\x00");
	/* Integers. */
	ROW1(&b, MY_TYPE_TINY, false, "-1", "\xff");
	ROW1(&b, MY_TYPE_TINY, false, "-128", "\x80");
	ROW1(&b, MY_TYPE_TINY, true, "255", "\xff");
	ROW1(&b, MY_TYPE_SHORT, false, "-2", "\xfe\xff");
	ROW1(&b, MY_TYPE_YEAR, true, "2024", "\xe8\x07");
	ROW1(&b, MY_TYPE_LONG, false, "-2147483648", "\x00\x00\x00\x80");
	ROW1(&b, MY_TYPE_INT24, false, "8388607", "\xff\xff\x7f\x00");
	ROW1(&b, MY_TYPE_LONG, true, "4294967295", "\xff\xff\xff\xff");
	ROW1(&b, MY_TYPE_LONGLONG, true, "18446744073709551615", "\xff\xff\xff\xff\xff\xff\xff\xff");
	ROW1(&b, MY_TYPE_LONGLONG, false, "-9223372036854775808", "\x00\x00\x00\x00\x00\x00\x00\x80");
	ROW1(&b, MY_TYPE_LONGLONG, false, "9223372036854775807", "\xff\xff\xff\xff\xff\xff\xff\x7f");
	ROW1(&b, MY_TYPE_LONGLONG, true, "-0", "\x00\x00\x00\x00\x00\x00\x00\x00");
	/* Floating point. */
	ROW1(&b, MY_TYPE_FLOAT, false, "10.2", "\x33\x33\x23\x41");
	ROW1(&b, MY_TYPE_DOUBLE, false, "10.2", "\x66\x66\x66\x66\x66\x66\x24\x40");
	ROW1(&b, MY_TYPE_DOUBLE, false, "-2.5", "\x00\x00\x00\x00\x00\x00\x04\xc0");
	ROW1(&b, MY_TYPE_DOUBLE, false, "1e300", "\x9c\x75\x00\x88\x3c\xe4\x37\x7e");
	/* Dates. */
	ROW1(&b, MY_TYPE_DATE, false, "2024-02-29", "\x04\xe8\x07\x02\x1d");
	ROW1(&b, MY_TYPE_DATE, false, "0000-00-00", "\x00");
	ROW1(&b, MY_TYPE_DATETIME, false, "0000-00-00 00:00:00", "\x00");
	ROW1(&b, MY_TYPE_TIMESTAMP, false, "2024-02-29 00:00:00", "\x04\xe8\x07\x02\x1d");
	ROW1(&b, MY_TYPE_DATETIME, false, "2024-02-29 13:05:09", "\x07\xe8\x07\x02\x1d\x0d\x05\x09");
	ROW1(&b, MY_TYPE_DATETIME, false, "2024-02-29 13:05:09.123456",
	     "\x0b\xe8\x07\x02\x1d\x0d\x05\x09\x40\xe2\x01\x00");
	ROW1(&b, MY_TYPE_TIMESTAMP, false, "2024-02-29 13:05:09.5", "\x0b\xe8\x07\x02\x1d\x0d\x05\x09\x20\xa1\x07\x00");
	ROW1(&b, MY_TYPE_DATETIME, false, "2024-02-29 13:05:09.000", "\x07\xe8\x07\x02\x1d\x0d\x05\x09");
	ROW1(&b, MY_TYPE_DATETIME, false, "0000-00-00 10:00:00", "\x07\x00\x00\x00\x00\x0a\x00\x00");
	/* Times: -838:59:59 is 34 days 22 hours. */
	ROW1(&b, MY_TYPE_TIME, false, "00:00:00", "\x00");
	ROW1(&b, MY_TYPE_TIME, false, "-838:59:59", "\x08\x01\x22\x00\x00\x00\x16\x3b\x3b");
	ROW1(&b, MY_TYPE_TIME, false, "-00:00:01", "\x08\x01\x00\x00\x00\x00\x00\x00\x01");
	ROW1(&b, MY_TYPE_TIME, false, "01:02:03.000001", "\x0c\x00\x00\x00\x00\x00\x01\x02\x03\x01\x00\x00\x00");
	ROW1(&b, MY_TYPE_TIME, false, "-26:03:04.5", "\x0c\x01\x01\x00\x00\x00\x02\x03\x04\x20\xa1\x07\x00");
	wbuf_free(&b);
}

static void test_binary_row_bad_text(void **state)
{
	static const struct {
		uint8_t type;
		bool uns;
		const char *text;
	} bad[] = {
		{MY_TYPE_TINY, false, "128"},
		{MY_TYPE_TINY, false, "-129"},
		{MY_TYPE_TINY, true, "256"},
		{MY_TYPE_TINY, true, "-1"},
		{MY_TYPE_SHORT, false, ""},
		{MY_TYPE_SHORT, false, "-"},
		{MY_TYPE_SHORT, false, "+1"},
		{MY_TYPE_LONG, false, "1.5"},
		{MY_TYPE_LONG, false, " 1"},
		{MY_TYPE_LONGLONG, true, "18446744073709551616"},
		{MY_TYPE_LONGLONG, false, "9223372036854775808"},
		{MY_TYPE_LONGLONG, false, "-9223372036854775809"},
		{MY_TYPE_DOUBLE, false, "abc"},
		{MY_TYPE_DOUBLE, false, "1e999"},
		{MY_TYPE_DOUBLE, false, "nan"},
		{MY_TYPE_DOUBLE, false, ""},
		{MY_TYPE_DOUBLE, false, "1,5"},
		{MY_TYPE_FLOAT, false, "1e39"},
		{MY_TYPE_DATE, false, "2024-13-01"},
		{MY_TYPE_DATE, false, "2024-02-32"},
		{MY_TYPE_DATE, false, "24-02-01"},
		{MY_TYPE_DATETIME, false, "2024-02-29T13:05:09"},
		{MY_TYPE_DATETIME, false, "2024-02-29 24:00:00"},
		{MY_TYPE_DATETIME, false, "2024-02-29 13:05:09.1234567"},
		{MY_TYPE_DATETIME, false, "2024-02-29 13:05:09."},
		{MY_TYPE_DATETIME, false, "2024-02-29 13:05"},
		{MY_TYPE_TIME, false, "1:2"},
		{MY_TYPE_TIME, false, "10:60:00"},
		{MY_TYPE_TIME, false, "--1:00:00"},
		{MY_TYPE_TIME, false, ""},
	};
	struct wbuf b;
	size_t i;

	(void)state;
	wbuf_init(&b);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (row1(&b, bad[i].type, bad[i].uns, bad[i].text) != MY_ERR)
			fail_msg("accepted %s for type %u", bad[i].text, bad[i].type);
	}
	wbuf_free(&b);
}

static void test_binary_row_nulls_and_rollback(void **state)
{
	/* 7 columns, 0 and 6 NULL: bits 2 and 8 -> bitmap 04 01. */
	const uint8_t types[7] = {MY_TYPE_LONG, MY_TYPE_TINY,     MY_TYPE_VAR_STRING, MY_TYPE_NULL,
				  MY_TYPE_DATE, MY_TYPE_LONGLONG, MY_TYPE_BLOB};
	const uint8_t *values[7] = {NULL,
				    (const uint8_t *)"5",
				    (const uint8_t *)"ab",
				    (const uint8_t *)"",
				    (const uint8_t *)"2024-02-29",
				    (const uint8_t *)"-1",
				    NULL};
	size_t lens[7] = {0, 1, 2, 0, 10, 2, 0};
	struct wbuf b;
	const char *why = NULL;

	(void)state;
	wbuf_init(&b);
	assert_int_equal(my_write_binary_row(&b, 3, 7, types, NULL, values, lens, &why), MY_OK);
	expect_bytes(&b, LIT("\x15\x00\x00\x03"
			     "\x00"
			     "\x04\x01"
			     "\x05"
			     "\x02"
			     "ab"
			     "\x00"
			     "\x04\xe8\x07\x02\x1d"
			     "\xff\xff\xff\xff\xff\xff\xff\xff"));
	/* A bad value later in the row leaves the earlier packet alone. */
	values[5] = (const uint8_t *)"x1";
	assert_int_equal(my_write_binary_row(&b, 4, 7, types, NULL, values, lens, &why), MY_ERR);
	assert_non_null(why);
	assert_int_equal(b.len, 4 + 0x15);
	assert_false(b.failed);
	/* And the buffer still works: all NULL, 0 columns. */
	wbuf_reset(&b);
	{
		const uint8_t *nv[7] = {NULL};

		assert_int_equal(my_write_binary_row(&b, 1, 7, types, NULL, nv, lens, &why), MY_OK);
		expect_bytes(&b, LIT("\x03\x00\x00\x01"
				     "\x00"
				     "\xfc\x01"));
		wbuf_reset(&b);
		assert_int_equal(my_write_binary_row(&b, 1, 0, types, NULL, nv, lens, &why), MY_OK);
		expect_bytes(&b, LIT("\x02\x00\x00\x01"
				     "\x00"
				     "\x00"));
		wbuf_reset(&b);
		assert_int_equal(my_write_binary_row(&b, 1, 6, types, NULL, nv, lens, &why), MY_OK);
		expect_bytes(&b, LIT("\x02\x00\x00\x01"
				     "\x00"
				     "\xfc"));
	}
	/* Too many columns. */
	wbuf_reset(&b);
	assert_int_equal(my_write_binary_row(&b, 1, MY_STMT_MAX_COLS + 1, types, NULL, values, lens, &why), MY_ERR);
	assert_int_equal(b.len, 0);
	wbuf_free(&b);
}

static void test_fetch_decode(void **state)
{
	uint32_t id, rows;

	(void)state;
	assert_int_equal(my_stmt_fetch_decode(LIT("\x1c\x07\x00\x00\x00\x0a\x00\x00\x00"), &id, &rows), MY_OK);
	assert_int_equal(id, 7);
	assert_int_equal(rows, 10);
	/* Short, long, or another command. */
	assert_int_equal(my_stmt_fetch_decode(LIT("\x1c\x07\x00\x00\x00\x0a\x00\x00"), &id, &rows), MY_ERR);
	assert_int_equal(id, 0);
	assert_int_equal(my_stmt_fetch_decode(LIT("\x1c\x07\x00\x00\x00\x0a\x00\x00\x00\x00"), &id, &rows), MY_ERR);
	assert_int_equal(my_stmt_fetch_decode(LIT("\x17\x07\x00\x00\x00\x0a\x00\x00\x00"), &id, &rows), MY_ERR);
	assert_int_equal(my_stmt_fetch_decode(NULL, 0, &id, &rows), MY_ERR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_execute_id),
		cmocka_unit_test(test_execute_decode),
		cmocka_unit_test(test_execute_every_prefix_fails),
		cmocka_unit_test(test_execute_not_rebound),
		cmocka_unit_test(test_execute_malformed),
		cmocka_unit_test(test_literal_null_and_ints),
		cmocka_unit_test(test_literal_floats),
		cmocka_unit_test(test_literal_decimal),
		cmocka_unit_test(test_literal_strings),
		cmocka_unit_test(test_literal_dates),
		cmocka_unit_test(test_literal_from_decoded_execute),
		cmocka_unit_test(test_prepare_ok),
		cmocka_unit_test(test_binary_row_values),
		cmocka_unit_test(test_binary_row_bad_text),
		cmocka_unit_test(test_binary_row_nulls_and_rollback),
		cmocka_unit_test(test_fetch_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
