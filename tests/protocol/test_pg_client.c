/*
 * Tests for protocol/pg_client: the exact bytes of the frontend messages
 * airlockd sends as a backend's client, and its readers of backend
 * messages on well-formed, malformed and truncated bodies.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/pg_client.h"

#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

static void expect_bytes(const struct wbuf *w, const void *want, size_t n)
{
	assert_false(w->failed);
	assert_int_equal(w->len, n);
	assert_memory_equal(w->data, want, n);
}

/* A message of type with body (len bytes) as pg_decode_msg hands it over. */
static struct pg_msg msg(uint8_t type, const uint8_t *body, size_t len)
{
	return (struct pg_msg){.type = type, .body_len = (uint32_t)len, .body = body};
}

static void test_put_frontend(void **state)
{
	struct pg_param params[] = {{"user", "ro"}, {"database", "shop"}};
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	pg_put_ssl_request(&w);
	expect_bytes(&w, LIT("\0\0\0\x08\x04\xd2\x16\x2f"));
	wbuf_reset(&w);
	pg_put_startup(&w, params, 2);
	expect_bytes(&w, LIT("\0\0\0\x1f\0\3\0\0user\0ro\0database\0shop\0\0"));
	wbuf_reset(&w);
	pg_put_query(&w, "DISCARD ALL");
	expect_bytes(&w, LIT("Q\0\0\0\x10"
			     "DISCARD ALL\0"));
	wbuf_reset(&w);
	pg_put_sync(&w);
	pg_put_terminate(&w);
	expect_bytes(&w, LIT("S\0\0\0\4X\0\0\0\4"));
	wbuf_reset(&w);
	pg_put_password(&w, "pw");
	expect_bytes(&w, LIT("p\0\0\0\7pw\0"));
	wbuf_reset(&w);
	pg_put_sasl_initial(&w, "SCRAM-SHA-256", "n,,", 3);
	expect_bytes(&w, LIT("p\0\0\0\x19SCRAM-SHA-256\0\0\0\0\3n,,"));
	wbuf_reset(&w);
	pg_put_sasl_response(&w, "c=biws", 6);
	expect_bytes(&w, LIT("p\0\0\0\x0a"
			     "c=biws"));
	wbuf_free(&w);
}

static void test_auth(void **state)
{
	uint32_t code;
	const uint8_t *data;
	size_t len;
	const char *err;
	struct pg_msg m;

	(void)state;
	m = msg('R', LIT("\0\0\0\0"));
	assert_int_equal(pg_read_auth(&m, &code, &data, &len, &err), PG_OK);
	assert_int_equal(code, PG_AUTH_OK);
	assert_int_equal(len, 0);
	m = msg('R', LIT("\0\0\0\5abcd"));
	assert_int_equal(pg_read_auth(&m, &code, &data, &len, &err), PG_OK);
	assert_int_equal(code, PG_AUTH_MD5);
	assert_memory_equal(data, "abcd", 4);
	m = msg('R', LIT("\0\0\0\x0aSCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0"));
	assert_int_equal(pg_read_auth(&m, &code, &data, &len, &err), PG_OK);
	assert_true(pg_auth_sasl_offers(data, len, "SCRAM-SHA-256"));
	assert_false(pg_auth_sasl_offers(data, len, "SCRAM-SHA-1"));
	/* A list without its end, or with nothing, offers nothing. */
	assert_false(pg_auth_sasl_offers(LIT("SCRAM-SHA-256"), "SCRAM-SHA-256"));
	assert_false(pg_auth_sasl_offers(LIT("\0SCRAM-SHA-256\0"), "SCRAM-SHA-256"));
	/* Malformed: no code, a short MD5 salt, another type. */
	m = msg('R', LIT("\0\0\0"));
	assert_int_equal(pg_read_auth(&m, &code, &data, &len, &err), PG_ERR);
	m = msg('R', LIT("\0\0\0\5abc"));
	assert_int_equal(pg_read_auth(&m, &code, &data, &len, &err), PG_ERR);
	m = msg('E', LIT("\0\0\0\0"));
	assert_int_equal(pg_read_auth(&m, &code, &data, &len, &err), PG_ERR);
}

static void test_status_key_ready_tag(void **state)
{
	const char *name, *value, *err, *tag;
	uint32_t pid, key;
	char status;
	struct pg_msg m;

	(void)state;
	m = msg('S', LIT("TimeZone\0UTC\0"));
	assert_int_equal(pg_read_parameter_status(&m, &name, &value, &err), PG_OK);
	assert_string_equal(name, "TimeZone");
	assert_string_equal(value, "UTC");
	m = msg('S', LIT("TimeZone\0UTC"));
	assert_int_equal(pg_read_parameter_status(&m, &name, &value, &err), PG_ERR);
	m = msg('S', LIT("TimeZone\0UTC\0x"));
	assert_int_equal(pg_read_parameter_status(&m, &name, &value, &err), PG_ERR);

	m = msg('K', LIT("\0\0\x30\x39\xde\xad\xbe\xef"));
	assert_int_equal(pg_read_backend_key(&m, &pid, &key, &err), PG_OK);
	assert_int_equal(pid, 12345);
	assert_int_equal(key, 0xdeadbeef);
	m = msg('K', LIT("\0\0\x30\x39\xde\xad\xbe"));
	assert_int_equal(pg_read_backend_key(&m, &pid, &key, &err), PG_ERR);
	m = msg('K', LIT("\0\0\x30\x39\xde\xad\xbe\xef\0"));
	assert_int_equal(pg_read_backend_key(&m, &pid, &key, &err), PG_ERR);

	m = msg('Z', LIT("I"));
	assert_int_equal(pg_read_ready(&m, &status, &err), PG_OK);
	assert_int_equal(status, 'I');
	m = msg('Z', LIT("X"));
	assert_int_equal(pg_read_ready(&m, &status, &err), PG_ERR);
	m = msg('Z', LIT("II"));
	assert_int_equal(pg_read_ready(&m, &status, &err), PG_ERR);
	m = msg('Z', LIT(""));
	assert_int_equal(pg_read_ready(&m, &status, &err), PG_ERR);

	m = msg('C', LIT("DISCARD ALL\0"));
	assert_int_equal(pg_read_command_tag(&m, &tag, &err), PG_OK);
	assert_string_equal(tag, "DISCARD ALL");
	m = msg('C', LIT("DISCARD ALL"));
	assert_int_equal(pg_read_command_tag(&m, &tag, &err), PG_ERR);
	m = msg('C', LIT("DISCARD\0ALL\0"));
	assert_int_equal(pg_read_command_tag(&m, &tag, &err), PG_ERR);
}

static void test_error_and_datarow(void **state)
{
	const char *code, *message, *err;
	const uint8_t *v;
	size_t len;
	struct pg_msg m;

	(void)state;
	m = msg('E', LIT("SFATAL\0C28P01\0Mpassword authentication failed\0\0"));
	assert_int_equal(pg_read_error(&m, &code, &message, &err), PG_OK);
	assert_string_equal(code, "28P01");
	assert_string_equal(message, "password authentication failed");
	m = msg('N', LIT("\0"));
	assert_int_equal(pg_read_error(&m, &code, &message, &err), PG_OK);
	assert_string_equal(code, "");
	/* No terminator, a field without its end, bytes after the end. */
	m = msg('E', LIT("C28P01\0"));
	assert_int_equal(pg_read_error(&m, &code, &message, &err), PG_ERR);
	m = msg('E', LIT("C28P01"));
	assert_int_equal(pg_read_error(&m, &code, &message, &err), PG_ERR);
	m = msg('E', LIT("C28P01\0\0x"));
	assert_int_equal(pg_read_error(&m, &code, &message, &err), PG_ERR);

	m = msg('D', LIT("\0\1\0\0\0\3abc"));
	assert_int_equal(pg_read_datarow_one(&m, &v, &len, &err), PG_OK);
	assert_int_equal(len, 3);
	assert_memory_equal(v, "abc", 3);
	/* NULL, two columns, a length past the body, bytes after the value. */
	m = msg('D', LIT("\0\1\xff\xff\xff\xff"));
	assert_int_equal(pg_read_datarow_one(&m, &v, &len, &err), PG_ERR);
	m = msg('D', LIT("\0\2\0\0\0\1a\0\0\0\1b"));
	assert_int_equal(pg_read_datarow_one(&m, &v, &len, &err), PG_ERR);
	m = msg('D', LIT("\0\1\0\0\0\4abc"));
	assert_int_equal(pg_read_datarow_one(&m, &v, &len, &err), PG_ERR);
	m = msg('D', LIT("\0\1\0\0\0\2abc"));
	assert_int_equal(pg_read_datarow_one(&m, &v, &len, &err), PG_ERR);
}

/* Every reader on every cut of well-formed bodies: an answer, never a read past the body. */
static void test_truncations(void **state)
{
	static const struct {
		uint8_t type;
		const char *body;
		size_t len;
	} cases[] = {
		{'R', "\0\0\0\x0aSCRAM-SHA-256\0\0", 19}, {'S', "TimeZone\0UTC\0", 13},
		{'K', "\0\0\x30\x39\xde\xad\xbe\xef", 8}, {'C', "SELECT 1\0", 9},
		{'E', "SERROR\0C42601\0Mx\0\0", 18},      {'D', "\0\1\0\0\0\3abc", 9},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t n = 0; n < cases[i].len; n++) {
			uint8_t *copy = malloc(n ? n : 1);
			struct pg_msg m;
			const char *a, *b, *err;
			const uint8_t *v;
			uint32_t x, y;
			size_t len;
			char status;

			memcpy(copy, cases[i].body, n);
			m = msg(cases[i].type, copy, n);
			(void)pg_read_auth(&m, &x, &v, &len, &err);
			(void)pg_read_parameter_status(&m, &a, &b, &err);
			assert_int_equal(pg_read_backend_key(&m, &x, &y, &err), PG_ERR);
			(void)pg_read_ready(&m, &status, &err);
			assert_int_equal(pg_read_command_tag(&m, &a, &err), PG_ERR);
			assert_int_equal(pg_read_error(&m, &a, &b, &err), PG_ERR);
			assert_int_equal(pg_read_datarow_one(&m, &v, &len, &err), PG_ERR);
			free(copy);
		}
}

/* Feeds the messages of a stream (type byte, u32 length, body) to a reset watch; the last step. */
static enum pg_reset_step reset_over(const uint8_t *p, size_t n)
{
	struct pg_reset_watch w = {0};
	enum pg_reset_step st = PG_RESET_MORE;
	struct pg_msg m;
	size_t used;
	const char *err;

	while (n && st == PG_RESET_MORE) {
		assert_int_equal(pg_decode_msg(p, n, 65536, &m, &used, &err), PG_OK);
		st = pg_reset_step(&w, &m, "mk");
		p += used;
		n -= used;
	}
	return st;
}

#define SYNC_Z "Z\0\0\0\5I"
#define ROLLBACK "C\0\0\0\x0dROLLBACK\0Z\0\0\0\5I"
#define DISCARD       \
	"C\0\0\0\x10" \
	"DISCARD ALL\0Z\0\0\0\5I"
#define MARKER_ROW "D\0\0\0\x0c\0\1\0\0\0\2mk"
#define MARKER MARKER_ROW "C\0\0\0\x0dSELECT 1\0Z\0\0\0\5I"

static void test_reset_watch(void **state)
{
	(void)state;
	/* The plain reset, and one after a client's leftovers: its error, its rows, its open transaction. */
	assert_int_equal(reset_over(LIT(SYNC_Z ROLLBACK DISCARD MARKER)), PG_RESET_CLEAN);
	assert_int_equal(reset_over(LIT("E\0\0\0\x0c"
					"C57014\0\0Z\0\0\0\5E" SYNC_Z ROLLBACK DISCARD MARKER)),
			 PG_RESET_CLEAN);
	assert_int_equal(reset_over(LIT("D\0\0\0\x0b\0\1\0\0\0\1x" SYNC_Z ROLLBACK DISCARD MARKER)), PG_RESET_CLEAN);
	/* DISCARD ALL failed, or never ran before the marker; the marker's own error; a transaction left open. */
	assert_int_equal(reset_over(LIT(SYNC_Z ROLLBACK "E\0\0\0\x0c"
							"C25001\0\0Z\0\0\0\5I" MARKER)),
			 PG_RESET_FAILED);
	assert_int_equal(reset_over(LIT(SYNC_Z ROLLBACK MARKER)), PG_RESET_FAILED);
	assert_int_equal(reset_over(LIT(SYNC_Z DISCARD MARKER_ROW "E\0\0\0\x0c"
								  "C57014\0\0Z\0\0\0\5I")),
			 PG_RESET_FAILED);
	assert_int_equal(reset_over(LIT(SYNC_Z DISCARD MARKER_ROW "Z\0\0\0\5T")), PG_RESET_FAILED);
	/* A client's "DISCARD ALL" long before does not count for the marker's cycle. */
	assert_int_equal(reset_over(LIT(DISCARD SYNC_Z MARKER)), PG_RESET_FAILED);
	/* Another value is not the marker; a malformed ready or tag fails. */
	assert_int_equal(reset_over(LIT(DISCARD "D\0\0\0\x0c\0\1\0\0\0\2mx" SYNC_Z)), PG_RESET_MORE);
	assert_int_equal(reset_over(LIT("Z\0\0\0\5Q")), PG_RESET_FAILED);
	assert_int_equal(reset_over(LIT("C\0\0\0\5x")), PG_RESET_FAILED);
}

static void test_md5(void **state)
{
	char out[36];

	(void)state;
	/* md5(md5("secret" + "ro") as hex + salt), as libpq computes it. */
	assert_int_equal(pg_md5_password("secret", "ro", (const uint8_t *)"\1\2\3\4", out), 0);
	assert_string_equal(out, "md51bdd460374c0cb0d7bebbd93f7ca3eac");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_frontend),
		cmocka_unit_test(test_auth),
		cmocka_unit_test(test_status_key_ready_tag),
		cmocka_unit_test(test_error_and_datarow),
		cmocka_unit_test(test_truncations),
		cmocka_unit_test(test_reset_watch),
		cmocka_unit_test(test_md5),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
