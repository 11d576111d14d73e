/*
 * test_runner_tls_wire: the TLS shim's reading and changing of the
 * databases' first messages (runner/runner_tls_wire.h), with well-formed,
 * hostile and cut input, each in an exact-size heap copy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "runner/runner_tls_wire.h"

/* The SASL body: auth type 10, then the names given, each NUL-terminated, then the empty name. */
static size_t sasl(uint8_t *buf, const char *const *names, size_t n)
{
	size_t len = 4;

	memcpy(buf, "\0\0\0\x0a", 4);
	for (size_t i = 0; i < n; i++) {
		memcpy(buf + len, names[i], strlen(names[i]) + 1);
		len += strlen(names[i]) + 1;
	}
	buf[len++] = '\0';
	return len;
}

static void test_plus_dropped(void **state)
{
	const char *const both[] = {"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"};
	const char *const plain[] = {"SCRAM-SHA-256"};
	uint8_t want[64], *buf = malloc(64);
	size_t len, wlen;

	(void)state;
	len = sasl(buf, both, 2);
	wlen = sasl(want, plain, 1);
	len = tls_wire_pg_drop_plus(buf, len);
	assert_int_equal(len, wlen);
	assert_memory_equal(buf, want, wlen);
	/* Nothing to drop: unchanged. */
	len = tls_wire_pg_drop_plus(buf, len);
	assert_int_equal(len, wlen);
	assert_memory_equal(buf, want, wlen);
	free(buf);
}

static void test_scram_offered(void **state)
{
	const char *const both[] = {"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"};
	const char *const plus[] = {"SCRAM-SHA-256-PLUS"};
	const char *const other[] = {"SCRAM-SHA-2567", "OAUTHBEARER"};
	uint8_t buf[96];
	size_t len;

	(void)state;
	len = sasl(buf, both, 2);
	assert_true(tls_wire_pg_offers_scram(buf, len));
	/* The list must end: without its closing empty name, or cut inside a name, it is not taken. */
	assert_false(tls_wire_pg_offers_scram(buf, len - 1));
	assert_false(tls_wire_pg_offers_scram(buf, len - 3));
	assert_false(tls_wire_pg_offers_scram(buf, sasl(buf, plus, 1)));
	assert_false(tls_wire_pg_offers_scram(buf, sasl(buf, other, 2)));
	assert_false(tls_wire_pg_offers_scram(buf, sasl(buf, NULL, 0)));
	assert_false(tls_wire_pg_offers_scram(buf, 4));
	assert_false(tls_wire_pg_offers_scram(buf, 0));
}

static void test_plus_malformed(void **state)
{
	uint8_t *buf;
	size_t len;

	(void)state;
	/* Shorter than the auth type: as it is. */
	buf = malloc(3);
	memcpy(buf, "\0\0\0", 3);
	assert_int_equal(tls_wire_pg_drop_plus(buf, 3), 3);
	free(buf);
	/* A name without its NUL at the very end: cut there, never written past. */
	buf = malloc(4 + 18);
	memcpy(buf, "\0\0\0\x0aSCRAM-SHA-256-PLUS", 4 + 18);
	len = tls_wire_pg_drop_plus(buf, 4 + 18);
	assert_true(len <= 4 + 18);
	assert_int_equal(buf[4], 0);
	free(buf);
	/* The list's end missing: names kept, length never grows. */
	buf = malloc(4 + 14);
	memcpy(buf, "\0\0\0\x0aSCRAM-SHA-256\0", 4 + 14);
	len = tls_wire_pg_drop_plus(buf, 4 + 14);
	assert_int_equal(len, 4 + 14);
	assert_memory_equal(buf + 4, "SCRAM-SHA-256", 14);
	free(buf);
	/* Only the PLUS name, and no end: what is left is the empty list. */
	buf = malloc(4 + 19);
	memcpy(buf, "\0\0\0\x0aSCRAM-SHA-256-PLUS\0", 4 + 19);
	len = tls_wire_pg_drop_plus(buf, 4 + 19);
	assert_int_equal(len, 5);
	assert_int_equal(buf[4], 0);
	free(buf);
}

static void test_my_caps(void **state)
{
	static const uint8_t greeting[] = "\x0a"
					  "10.11.6-MariaDB\0"
					  "\x07\0\0\0"
					  "abcdefgh\0"
					  "\x00\xfa"
					  "\x21\x02\x00";
	uint8_t *buf = malloc(sizeof(greeting) - 1);
	size_t off = 0;

	(void)state;
	memcpy(buf, greeting, sizeof(greeting) - 1);
	assert_int_equal(tls_wire_my_caps_at(buf, sizeof(greeting) - 1, &off), 0);
	assert_int_equal(off, 1 + 16 + 4 + 8 + 1);
	assert_true((buf[off] | buf[off + 1] << 8) & TLS_WIRE_MY_CLIENT_SSL);
	/* Cut before the capabilities, in the version, or another protocol. */
	assert_int_equal(tls_wire_my_caps_at(buf, off + 1, &off), -1);
	assert_int_equal(tls_wire_my_caps_at(buf, 10, &off), -1);
	assert_int_equal(tls_wire_my_caps_at(buf, 0, &off), -1);
	buf[0] = 9;
	assert_int_equal(tls_wire_my_caps_at(buf, sizeof(greeting) - 1, &off), -1);
	buf[0] = 0xff;
	assert_int_equal(tls_wire_my_caps_at(buf, sizeof(greeting) - 1, &off), -1);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plus_dropped),
		cmocka_unit_test(test_plus_malformed),
		cmocka_unit_test(test_scram_offered),
		cmocka_unit_test(test_my_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
