/*
 * test_pg_binary: binary values turned to their text. The bytes are what
 * a Postgres 15 server's send functions wrote for each value (numeric_send,
 * date_send, ...); the text must read back as the same value under any
 * setting. Every wrong length, a sign or digit no numeric has, text that
 * is not UTF-8, and a type not read are refused with out untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/pg_binary.h"

/* hex into bytes (len set); at most 64 bytes. */
static const uint8_t *bytes(const char *hex, size_t *len)
{
	static uint8_t buf[64];
	size_t n = strlen(hex) / 2;

	assert_true(n <= sizeof(buf));
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		buf[i] = (uint8_t)v;
	}
	*len = n;
	return buf;
}

static void expect(uint32_t type, const char *hex, const char *want)
{
	struct wbuf w;
	size_t len;
	const uint8_t *v = bytes(hex, &len);

	wbuf_init(&w);
	wbuf_put_str(&w, "<");
	if (pg_binary_to_text(type, v, len, &w) != PG_BINARY_OK)
		fail_msg("type %u, %s: refused", type, hex);
	wbuf_put_u8(&w, 0);
	if (strcmp((const char *)w.data + 1, want) != 0)
		fail_msg("type %u, %s: \"%s\", wanted \"%s\"", type, hex, (const char *)w.data + 1, want);
	wbuf_free(&w);
}

static void expect_refused(uint32_t type, const char *hex, enum pg_binary_result why)
{
	struct wbuf w;
	size_t len;
	const uint8_t *v = bytes(hex, &len);

	wbuf_init(&w);
	wbuf_put_str(&w, "kept");
	if (pg_binary_to_text(type, v, len, &w) != why)
		fail_msg("type %u, %s: not refused as %d", type, hex, why);
	assert_int_equal(w.len, 4);
	assert_false(w.failed);
	wbuf_free(&w);
}

static void test_numbers(void **state)
{
	(void)state;
	expect(16, "01", "t");
	expect(16, "00", "f");
	expect(21, "ffff", "-1");
	expect(23, "0000002a", "42");
	expect(23, "80000000", "-2147483648");
	expect(20, "7fffffffffffffff", "9223372036854775807");
	expect(20, "8000000000000000", "-9223372036854775808");
	expect(26, "ffffffff", "4294967295");
	expect(701, "3fb999999999999a", "0.10000000000000001");
	expect(700, "3fc00000", "1.5");
	expect(701, "7ff8000000000000", "NaN");
	expect(701, "fff0000000000000", "-Infinity");
	expect(700, "7f800000", "Infinity");
}

static void test_numerics(void **state)
{
	(void)state;
	expect(1700, "000200004000000404d2162e", "-1234.5678");
	expect(1700, "0001fffe0000000604b0", "0.000012");
	expect(1700, "0001000100000000000c", "120000");
	expect(1700, "00000000c0000000", "NaN");
	expect(1700, "00000000d0000000", "Infinity");
	expect(1700, "00000000f0000000", "-Infinity");
	expect(1700, "0000000000000000", "0");
	expect(1700, "000800040000000c04d2162e23340d801ed204d2162e2334", "12345678901234567890.123456789012");
	/* Digits past the last one stored read as zeros, to dscale. */
	expect(1700, "00010000000000030001", "1.000");
}

static void test_times(void **state)
{
	(void)state;
	expect(1082, "0000223f", "2024-01-02");
	expect(1082, "fff49d7b", "0044-03-15 BC");
	expect(1082, "7fffffff", "infinity");
	expect(1082, "80000000", "-infinity");
	expect(1184, "0002b0ec8517d580", "2024-01-02 03:04:05.123456+00");
	expect(1114, "fffffffffff85ee0", "1999-12-31 23:59:59.5");
	expect(1114, "0000000000000000", "2000-01-01 00:00:00");
	expect(1114, "7fffffffffffffff", "infinity");
	expect(1083, "0000000b18796850", "13:14:15.25");
	expect(1083, "000000141dd76000", "24:00:00");
	expect(1186, "000000000016e3600000000200000001", "1 mons 2 days 1500000 microseconds");
}

static void test_texts(void **state)
{
	(void)state;
	expect(25, "68c3a96c6c6f", "h\xc3\xa9llo");
	expect(1043, "", "");
	expect(3802, "017b7d", "{}");
	expect(114, "5b315d", "[1]");
	expect(17, "00ff10", "\\x00ff10");
	expect(2950, "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
}

static void test_refused(void **state)
{
	(void)state;
	/* Lengths the type does not have. */
	expect_refused(16, "", PG_BINARY_MALFORMED);
	expect_refused(16, "02", PG_BINARY_MALFORMED);
	expect_refused(23, "000000", PG_BINARY_MALFORMED);
	expect_refused(20, "0000000000000000ff", PG_BINARY_MALFORMED);
	expect_refused(2950, "a0eebc99", PG_BINARY_MALFORMED);
	expect_refused(1082, "00", PG_BINARY_MALFORMED);
	expect_refused(1186, "00000000", PG_BINARY_MALFORMED);
	expect_refused(1083, "ffffffffffffffff", PG_BINARY_MALFORMED);
	expect_refused(1083, "000000141dd76001", PG_BINARY_MALFORMED);
	/* Numerics: short, a count the bytes do not hold, a digit past 9999, a sign none has, a scale too big. */
	expect_refused(1700, "000100", PG_BINARY_MALFORMED);
	expect_refused(1700, "00020000000000000001", PG_BINARY_MALFORMED);
	expect_refused(1700, "0001000000000000270f00", PG_BINARY_MALFORMED);
	expect_refused(1700, "00010000000000002710", PG_BINARY_MALFORMED);
	expect_refused(1700, "0000000012340000", PG_BINARY_MALFORMED);
	expect_refused(1700, "0000000000004000", PG_BINARY_MALFORMED);
	expect_refused(1700, "ffff000000000000", PG_BINARY_MALFORMED);
	expect_refused(1700, "00010000c00000000001", PG_BINARY_MALFORMED);
	/* Text that is not UTF-8, or holds a NUL; jsonb of another version. */
	expect_refused(25, "ff", PG_BINARY_MALFORMED);
	expect_refused(25, "6100", PG_BINARY_MALFORMED);
	expect_refused(25, "c0af", PG_BINARY_MALFORMED);
	expect_refused(25, "eda080", PG_BINARY_MALFORMED);
	expect_refused(25, "f4908080", PG_BINARY_MALFORMED);
	expect_refused(25, "e282", PG_BINARY_MALFORMED);
	expect_refused(3802, "027b7d", PG_BINARY_MALFORMED);
	expect_refused(3802, "", PG_BINARY_MALFORMED);
	/* Types not read. */
	expect_refused(0, "00", PG_BINARY_UNKNOWN_TYPE);
	expect_refused(1007, "00", PG_BINARY_UNKNOWN_TYPE);
	expect_refused(2205, "00000001", PG_BINARY_UNKNOWN_TYPE);
	assert_false(pg_binary_known(0));
	assert_true(pg_binary_known(1700));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers), cmocka_unit_test(test_numerics), cmocka_unit_test(test_times),
		cmocka_unit_test(test_texts),   cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
