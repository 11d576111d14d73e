/*
 * Tests for protocol/pg_codec: exact bytes of backend messages, startup and
 * typed-message decoding, and the malformed and truncated inputs a hostile
 * client can send.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/pg_codec.h"

#define MAX_LEN 8192u

/* Builds a message from a literal holding embedded NULs (sizeof - 1 bytes). */
#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

static void expect_bytes(const struct wbuf *w, const void *want, size_t n)
{
	assert_false(w->failed);
	assert_int_equal(w->len, n);
	assert_memory_equal(w->data, want, n);
}

/* ---- backend messages ---------------------------------------------------- */

static void test_put_ready(void **state)
{
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	pg_put_ready(&w, 'I');
	expect_bytes(&w, LIT("Z\0\0\0\5I"));
	wbuf_reset(&w);
	pg_put_ready(&w, 'T');
	pg_put_ready(&w, 'E');
	expect_bytes(&w, LIT("Z\0\0\0\5TZ\0\0\0\5E"));
	wbuf_free(&w);
	assert_null(w.data);
}

static void test_put_simple(void **state)
{
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	pg_put_parameter_status(&w, "server_version", "15.4");
	expect_bytes(&w, LIT("S\0\0\0\30server_version\0"
			     "15.4\0"));
	wbuf_reset(&w);
	pg_put_backend_key(&w, 0x01020304, 0xa0b0c0d0);
	expect_bytes(&w, LIT("K\0\0\0\14\1\2\3\4\xa0\xb0\xc0\xd0"));
	wbuf_reset(&w);
	pg_put_command_complete(&w, "SELECT 3");
	expect_bytes(&w, LIT("C\0\0\0\15SELECT 3\0"));
	wbuf_reset(&w);
	pg_put_empty_query(&w);
	expect_bytes(&w, LIT("I\0\0\0\4"));
	wbuf_free(&w);
}

static void test_put_auth(void **state)
{
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	pg_put_auth_ok(&w);
	expect_bytes(&w, LIT("R\0\0\0\10\0\0\0\0"));
	wbuf_reset(&w);
	pg_put_auth_sasl(&w, "SCRAM-SHA-256");
	expect_bytes(&w, LIT("R\0\0\0\27\0\0\0\12SCRAM-SHA-256\0\0"));
	wbuf_reset(&w);
	pg_put_auth_sasl_continue(&w, "r=ab", 4);
	expect_bytes(&w, LIT("R\0\0\0\14\0\0\0\13r=ab"));
	wbuf_reset(&w);
	pg_put_auth_sasl_final(&w, "v=xyz", 5);
	expect_bytes(&w, LIT("R\0\0\0\15\0\0\0\14v=xyz"));
	wbuf_reset(&w);
	pg_put_auth_sasl_continue(&w, NULL, 0);
	expect_bytes(&w, LIT("R\0\0\0\10\0\0\0\13"));
	wbuf_free(&w);
}

static void test_put_error(void **state)
{
	struct wbuf w;
	struct pg_error_fields e = {
		.severity = "ERROR",
		.sqlstate = "42501",
		.message = "TABLE_NOT_ALLOWED",
		.detail = "d",
		.hint = "h",
		.position = 17,
	};
	struct pg_error_fields n = {.severity = "NOTICE", .message = "m"};

	(void)state;
	wbuf_init(&w);
	pg_put_error(&w, &e);
	expect_bytes(&w, LIT("E\0\0\0\67SERROR\0VERROR\0C42501\0MTABLE_NOT_ALLOWED\0Dd\0Hh\0P17\0\0"));
	wbuf_reset(&w);
	pg_put_notice(&w, &n);
	expect_bytes(&w, LIT("N\0\0\0\30SNOTICE\0VNOTICE\0Mm\0\0"));
	wbuf_reset(&w);
	/* position 0 or below is omitted */
	e.detail = NULL;
	e.hint = NULL;
	e.position = 0;
	e.message = "x";
	pg_put_error(&w, &e);
	expect_bytes(&w, LIT("E\0\0\0\35SERROR\0VERROR\0C42501\0Mx\0\0"));
	wbuf_free(&w);
}

static void test_put_rowdesc(void **state)
{
	struct wbuf w;
	struct pg_column_desc a = {
		.name = "id",
		.name_len = 2,
		.table_oid = 16384,
		.attnum = 1,
		.type_oid = 23,
		.typlen = 4,
		.typmod = -1,
		.format = 0,
	};
	struct pg_column_desc b = {
		.name = "nm",
		.name_len = 2,
		.table_oid = 0,
		.attnum = 0,
		.type_oid = 25,
		.typlen = -1,
		.typmod = -1,
		.format = 0,
	};

	(void)state;
	wbuf_init(&w);
	/* Earlier messages in the buffer must not confuse the length patch. */
	pg_put_ready(&w, 'I');
	pg_put_rowdesc_begin(&w, 2);
	pg_put_rowdesc_column(&w, &a);
	pg_put_rowdesc_column(&w, &b);
	pg_put_rowdesc_end(&w);
	pg_put_datarow_raw(&w, "\0\1\0\0\0\0013", 7);
	expect_bytes(&w, LIT("Z\0\0\0\5I"
			     "T\0\0\0\60\0\2"
			     "id\0\0\0\x40\0\0\1\0\0\0\27\0\4\xff\xff\xff\xff\0\0"
			     "nm\0\0\0\0\0\0\0\0\0\0\31\xff\xff\xff\xff\xff\xff\0\0"
			     "D\0\0\0\13\0\1\0\0\0\0013"));
	wbuf_free(&w);
}

static void test_put_rowdesc_mismatch(void **state)
{
	struct wbuf w;
	struct pg_column_desc a = {.name = "id", .name_len = 2};

	(void)state;
	wbuf_init(&w);
	pg_put_rowdesc_begin(&w, 2);
	pg_put_rowdesc_column(&w, &a);
	pg_put_rowdesc_end(&w);
	assert_true(w.failed);
	/* Sticky until reset. */
	pg_put_ready(&w, 'I');
	assert_true(w.failed);
	wbuf_reset(&w);
	assert_false(w.failed);
	pg_put_rowdesc_begin(&w, 0);
	pg_put_rowdesc_end(&w);
	expect_bytes(&w, LIT("T\0\0\0\6\0\0"));
	/* end without begin */
	pg_put_rowdesc_end(&w);
	assert_true(w.failed);
	wbuf_free(&w);
}

static void test_put_rowdesc_name_nul(void **state)
{
	struct wbuf w;
	struct pg_column_desc a = {.name = "a\0b", .name_len = 3};

	(void)state;
	wbuf_init(&w);
	pg_put_rowdesc_begin(&w, 1);
	pg_put_rowdesc_column(&w, &a);
	pg_put_rowdesc_end(&w);
	expect_bytes(&w, LIT("T\0\0\0\32\0\1a\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"));
	wbuf_free(&w);
}

static void test_put_large(void **state)
{
	struct wbuf w;
	size_t n = 100000, i;
	uint8_t *body = malloc(n);

	(void)state;
	assert_non_null(body);
	memset(body, 'x', n);
	wbuf_init(&w);
	for (i = 0; i < 10; i++)
		pg_put_datarow_raw(&w, body, n);
	assert_false(w.failed);
	assert_int_equal(w.len, 10 * (n + 5));
	assert_int_equal(w.data[9 * (n + 5)], 'D');
	assert_memory_equal(w.data + 9 * (n + 5) + 1, "\0\1\x86\xa4", 4);
	wbuf_free(&w);
	free(body);
}

/* ---- startup ------------------------------------------------------------- */

static const uint8_t startup_ok[] = "\0\0\0\x34\0\3\0\0"
				    "user\0alice\0"
				    "database\0shop\0"
				    "application_name\0\0"
				    "\0";

static void test_startup_normal(void **state)
{
	struct pg_startup s;
	size_t consumed = 99;
	const char *err = NULL;

	(void)state;
	assert_int_equal(sizeof(startup_ok) - 1, 0x34);
	assert_int_equal(pg_decode_startup(startup_ok, sizeof(startup_ok) - 1, MAX_LEN, &s, &consumed, &err), PG_OK);
	assert_int_equal(consumed, 0x34);
	assert_int_equal(s.kind, PG_STARTUP_NORMAL);
	assert_int_equal(s.protocol, PG_PROTOCOL_3_0);
	assert_int_equal(s.nparams, 3);
	assert_string_equal(pg_startup_get(&s, "user"), "alice");
	assert_string_equal(pg_startup_get(&s, "database"), "shop");
	assert_string_equal(pg_startup_get(&s, "application_name"), "");
	assert_null(pg_startup_get(&s, "options"));
	/* Pointers are into the caller's buffer. */
	assert_ptr_equal(s.params[0].name, (const char *)startup_ok + 8);
}

static void test_startup_no_params_and_trailing(void **state)
{
	struct pg_startup s;
	size_t consumed;
	const char *err;
	uint8_t two[] = "\0\0\0\x09\0\3\0\0\0"
			"\0\0\0\x08\x04\xd2\x16\x2f";

	(void)state;
	/* Bytes after the packet are left for the next call. */
	assert_int_equal(pg_decode_startup(two, sizeof(two) - 1, MAX_LEN, &s, &consumed, &err), PG_OK);
	assert_int_equal(consumed, 9);
	assert_int_equal(s.nparams, 0);
	assert_int_equal(pg_decode_startup(two + 9, sizeof(two) - 1 - 9, MAX_LEN, &s, &consumed, &err), PG_OK);
	assert_int_equal(s.kind, PG_STARTUP_SSL);
}

static void test_startup_special(void **state)
{
	struct pg_startup s;
	size_t consumed;
	const char *err;

	(void)state;
	assert_int_equal(pg_decode_startup(LIT("\0\0\0\x08\x04\xd2\x16\x2f"), MAX_LEN, &s, &consumed, &err), PG_OK);
	assert_int_equal(s.kind, PG_STARTUP_SSL);
	assert_int_equal(consumed, 8);
	assert_int_equal(pg_decode_startup(LIT("\0\0\0\x08\x04\xd2\x16\x30"), MAX_LEN, &s, &consumed, &err), PG_OK);
	assert_int_equal(s.kind, PG_STARTUP_GSSENC);
	assert_int_equal(pg_decode_startup(LIT("\0\0\0\x10\x04\xd2\x16\x2e\0\0\x30\x39\xde\xad\xbe\xef"), MAX_LEN, &s,
					   &consumed, &err),
			 PG_OK);
	assert_int_equal(s.kind, PG_STARTUP_CANCEL);
	assert_int_equal(consumed, 16);
	assert_int_equal(s.cancel_pid, 12345);
	assert_int_equal(s.cancel_key, 0xdeadbeef);
}

/* Every proper prefix of a valid packet asks for more, and consumes nothing. */
static void check_all_prefixes_need_more(const uint8_t *pkt, size_t n, bool typed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint8_t *copy = malloc(i ? i : 1);
		size_t consumed = 99;
		const char *err = NULL;
		enum pg_status st;

		assert_non_null(copy);
		memcpy(copy, pkt, i);
		if (typed) {
			struct pg_msg m;

			st = pg_decode_msg(copy, i, MAX_LEN, &m, &consumed, &err);
		} else {
			struct pg_startup s;

			st = pg_decode_startup(copy, i, MAX_LEN, &s, &consumed, &err);
		}
		if (st != PG_NEED_MORE)
			fail_msg("prefix of %zu bytes gave %d (%s)", i, st, err ? err : "");
		assert_int_equal(consumed, 0);
		free(copy);
	}
}

static void test_startup_truncations(void **state)
{
	(void)state;
	check_all_prefixes_need_more(startup_ok, sizeof(startup_ok) - 1, false);
	check_all_prefixes_need_more(LIT("\0\0\0\x08\x04\xd2\x16\x2f"), false);
	check_all_prefixes_need_more(LIT("\0\0\0\x10\x04\xd2\x16\x2e\0\0\x30\x39\xde\xad\xbe\xef"), false);
}

static void expect_startup_err(const uint8_t *buf, size_t n, uint32_t max_len)
{
	struct pg_startup s;
	size_t consumed = 99;
	const char *err = NULL;

	assert_int_equal(pg_decode_startup(buf, n, max_len, &s, &consumed, &err), PG_ERR);
	assert_non_null(err);
	assert_int_equal(consumed, 0);
}

static void test_startup_malformed(void **state)
{
	(void)state;
	/* length below 8 (checked as soon as the length is there) */
	expect_startup_err(LIT("\0\0\0\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x07"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x04\0\3\0\0"), MAX_LEN);
	/* length above max_len, and above 10000 whatever max_len says */
	expect_startup_err(LIT("\0\0\x20\x01"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x40"), 0x3f);
	expect_startup_err(LIT("\0\0\x27\x11"), 0xffffffffu);
	expect_startup_err(LIT("\xff\xff\xff\xff"), 0xffffffffu);
	/* unknown protocol versions */
	expect_startup_err(LIT("\0\0\0\x09\0\2\0\0\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x09\0\3\0\2\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x09\0\4\0\0\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x08\x04\xd2\x16\x31"), MAX_LEN);
	/* special requests of the wrong length */
	expect_startup_err(LIT("\0\0\0\x0c\x04\xd2\x16\x2e\0\0\0\1"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x14\x04\xd2\x16\x2e\0\0\0\1\0\0\0\2\0\0\0\3"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x0c\x04\xd2\x16\x2f\0\0\0\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x0c\x04\xd2\x16\x30\0\0\0\0"), MAX_LEN);
	/* protocol 3.0 with no body at all: no final terminator */
	expect_startup_err(LIT("\0\0\0\x08\0\3\0\0"), MAX_LEN);
	/* missing NUL terminators */
	expect_startup_err(LIT("\0\0\0\x0c\0\3\0\0user"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x11\0\3\0\0user\0alic"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x13\0\3\0\0user\0alice\0"), MAX_LEN);
	/* odd list: a name with no value, then the end */
	expect_startup_err(LIT("\0\0\0\x0e\0\3\0\0user\0\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x0d\0\3\0\0user\0"), MAX_LEN);
	/* data after the final terminator */
	expect_startup_err(LIT("\0\0\0\x0b\0\3\0\0\0x\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x0a\0\3\0\0\0\0"), MAX_LEN);
	/* duplicates and protocol extensions */
	expect_startup_err(LIT("\0\0\0\x17\0\3\0\0user\0a\0user\0b\0\0"), MAX_LEN);
	expect_startup_err(LIT("\0\0\0\x12\0\3\0\0_pq_.x\0y\0\0"), MAX_LEN);
}

static void test_startup_too_many_params(void **state)
{
	uint8_t buf[2048];
	size_t off = 8, i, consumed;
	struct pg_startup s;
	const char *err = NULL;

	(void)state;
	for (i = 0; i < PG_STARTUP_MAX_PARAMS + 1; i++) {
		off += (size_t)snprintf((char *)buf + off, sizeof(buf) - off, "p%zu", i) + 1;
		buf[off++] = 'v';
		buf[off++] = 0;
	}
	buf[off++] = 0;
	memcpy(buf, "\0\0\0\0\0\3\0\0", 8);
	buf[2] = (uint8_t)(off >> 8);
	buf[3] = (uint8_t)off;
	assert_int_equal(pg_decode_startup(buf, off, MAX_LEN, &s, &consumed, &err), PG_ERR);
	assert_string_equal(err, "startup packet: too many parameters");

	/* Exactly the maximum is fine. */
	off = 8;
	for (i = 0; i < PG_STARTUP_MAX_PARAMS; i++) {
		off += (size_t)snprintf((char *)buf + off, sizeof(buf) - off, "p%zu", i) + 1;
		buf[off++] = 'v';
		buf[off++] = 0;
	}
	buf[off++] = 0;
	buf[2] = (uint8_t)(off >> 8);
	buf[3] = (uint8_t)off;
	assert_int_equal(pg_decode_startup(buf, off, MAX_LEN, &s, &consumed, &err), PG_OK);
	assert_int_equal(s.nparams, PG_STARTUP_MAX_PARAMS);
	assert_string_equal(pg_startup_get(&s, "p63"), "v");
}

/* ---- typed messages ------------------------------------------------------ */

static void test_msg_query(void **state)
{
	struct pg_msg m;
	size_t consumed;
	const char *err = NULL, *sql;
	static const uint8_t q[] = "Q\0\0\0\x0dselect 1\0X\0\0\0\4";

	(void)state;
	assert_int_equal(pg_decode_msg(q, sizeof(q) - 1, MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(consumed, 14);
	assert_int_equal(m.type, 'Q');
	assert_int_equal(m.body_len, 9);
	assert_int_equal(pg_parse_query(&m, &sql, &err), PG_OK);
	assert_string_equal(sql, "select 1");
	/* the Terminate that follows */
	assert_int_equal(pg_decode_msg(q + 14, sizeof(q) - 1 - 14, MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(m.type, 'X');
	assert_int_equal(m.body_len, 0);
	assert_int_equal(consumed, 5);
	assert_int_equal(pg_parse_query(&m, &sql, &err), PG_ERR);
	assert_null(sql);

	check_all_prefixes_need_more(q, 14, true);
}

static void expect_query_err(const uint8_t *buf, size_t n)
{
	struct pg_msg m;
	size_t consumed;
	const char *err = NULL, *sql = "x";

	assert_int_equal(pg_decode_msg(buf, n, MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(pg_parse_query(&m, &sql, &err), PG_ERR);
	assert_null(sql);
	assert_non_null(err);
}

static void test_msg_query_malformed(void **state)
{
	(void)state;
	expect_query_err(LIT("Q\0\0\0\4"));
	expect_query_err(LIT("Q\0\0\0\x0cselect 1"));
	expect_query_err(LIT("Q\0\0\0\x0dsel\0ct 1\0"));
	expect_query_err(LIT("Q\0\0\0\6\0\0"));
	expect_query_err(LIT("Q\0\0\0\x0dselect 1x"));
}

static void expect_msg_err(const uint8_t *buf, size_t n, uint32_t max_len)
{
	struct pg_msg m;
	size_t consumed = 99;
	const char *err = NULL;

	assert_int_equal(pg_decode_msg(buf, n, max_len, &m, &consumed, &err), PG_ERR);
	assert_non_null(err);
	assert_int_equal(consumed, 0);
}

static void test_msg_lengths(void **state)
{
	struct pg_msg m;
	size_t consumed;
	const char *err;

	(void)state;
	expect_msg_err(LIT("Q\0\0\0\0"), MAX_LEN);
	expect_msg_err(LIT("Q\0\0\0\3"), MAX_LEN);
	expect_msg_err(LIT("Q\xff\xff\xff\xff"), MAX_LEN);
	expect_msg_err(LIT("Q\xff\xff\xff\xff"), 0xffffffffu - 1);
	expect_msg_err(LIT("Q\0\0\x20\x01"), MAX_LEN);
	/* At max_len exactly: waits for the body. */
	assert_int_equal(pg_decode_msg(LIT("Q\0\0\x20\0"), MAX_LEN, &m, &consumed, &err), PG_NEED_MORE);
	/* A huge maximum does not overflow the length arithmetic. */
	assert_int_equal(pg_decode_msg(LIT("Q\xff\xff\xff\xff"), 0xffffffffu, &m, &consumed, &err), PG_NEED_MORE);
	/* Fewer than 5 bytes: always more. */
	assert_int_equal(pg_decode_msg(LIT("Q\0\0\0"), MAX_LEN, &m, &consumed, &err), PG_NEED_MORE);
	assert_int_equal(pg_decode_msg(NULL, 0, MAX_LEN, &m, &consumed, &err), PG_NEED_MORE);
}

static void test_sasl_initial(void **state)
{
	static const uint8_t msg[] = "p\0\0\0\x28SCRAM-SHA-256\0\0\0\0\x12n,,n=,r=abcdefghij";
	static const uint8_t absent[] = "p\0\0\0\x16SCRAM-SHA-256\0\xff\xff\xff\xff";
	static const uint8_t empty[] = "p\0\0\0\x16SCRAM-SHA-256\0\0\0\0\0";
	struct pg_msg m;
	size_t consumed;
	const char *err = NULL, *mech;
	const uint8_t *data;
	int32_t dlen;

	(void)state;
	assert_int_equal(pg_decode_msg(msg, sizeof(msg) - 1, MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(consumed, sizeof(msg) - 1);
	assert_int_equal(pg_parse_sasl_initial(&m, &mech, &data, &dlen, &err), PG_OK);
	assert_string_equal(mech, "SCRAM-SHA-256");
	assert_int_equal(dlen, 18);
	assert_memory_equal(data, "n,,n=,r=abcdefghij", 18);
	check_all_prefixes_need_more(msg, sizeof(msg) - 1, true);

	assert_int_equal(pg_decode_msg(absent, sizeof(absent) - 1, MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(pg_parse_sasl_initial(&m, &mech, &data, &dlen, &err), PG_OK);
	assert_int_equal(dlen, -1);
	assert_null(data);

	assert_int_equal(pg_decode_msg(empty, sizeof(empty) - 1, MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(pg_parse_sasl_initial(&m, &mech, &data, &dlen, &err), PG_OK);
	assert_int_equal(dlen, 0);
	assert_non_null(data);
}

static void expect_sasl_initial_err(const uint8_t *buf, size_t n)
{
	struct pg_msg m;
	size_t consumed;
	const char *err = NULL, *mech;
	const uint8_t *data;
	int32_t dlen;

	assert_int_equal(pg_decode_msg(buf, n, MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(pg_parse_sasl_initial(&m, &mech, &data, &dlen, &err), PG_ERR);
	assert_non_null(err);
	assert_null(mech);
	assert_null(data);
}

static void test_sasl_initial_malformed(void **state)
{
	(void)state;
	/* data length exceeds the body */
	expect_sasl_initial_err(LIT("p\0\0\0\x1aSCRAM-SHA-256\0\0\0\0\x05"
				    "abcd"));
	expect_sasl_initial_err(LIT("p\0\0\0\x1aSCRAM-SHA-256\0\x7f\xff\xff\xff"
				    "abcd"));
	/* trailing bytes after the data */
	expect_sasl_initial_err(LIT("p\0\0\0\x1aSCRAM-SHA-256\0\0\0\0\x03"
				    "abcd"));
	expect_sasl_initial_err(LIT("p\0\0\0\x17SCRAM-SHA-256\0\xff\xff\xff\xff"
				    "a"));
	/* negative lengths other than -1 */
	expect_sasl_initial_err(LIT("p\0\0\0\x16SCRAM-SHA-256\0\xff\xff\xff\xfe"));
	expect_sasl_initial_err(LIT("p\0\0\0\x16SCRAM-SHA-256\0\x80\0\0\0"));
	/* truncated length field */
	expect_sasl_initial_err(LIT("p\0\0\0\x15SCRAM-SHA-256\0\0\0\0"));
	expect_sasl_initial_err(LIT("p\0\0\0\x12SCRAM-SHA-256\0"));
	/* missing mechanism terminator, empty mechanism, empty body */
	expect_sasl_initial_err(LIT("p\0\0\0\x11SCRAM-SHA-256"));
	expect_sasl_initial_err(LIT("p\0\0\0\x09\0\0\0\0\0"));
	expect_sasl_initial_err(LIT("p\0\0\0\4"));
	expect_sasl_initial_err(LIT("p\0\0\0\5\0"));
	/* wrong type */
	expect_sasl_initial_err(LIT("Q\0\0\0\x16SCRAM-SHA-256\0\0\0\0\0"));
}

static void test_sasl_response(void **state)
{
	struct pg_msg m;
	size_t consumed, dlen;
	const char *err = NULL;
	const uint8_t *data;

	(void)state;
	assert_int_equal(pg_decode_msg(LIT("p\0\0\0\x08"
					   "c=ab"),
				       MAX_LEN, &m, &consumed, &err),
			 PG_OK);
	assert_int_equal(pg_parse_sasl_response(&m, &data, &dlen, &err), PG_OK);
	assert_int_equal(dlen, 4);
	assert_memory_equal(data, "c=ab", 4);
	assert_int_equal(pg_decode_msg(LIT("p\0\0\0\x04"), MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(pg_parse_sasl_response(&m, &data, &dlen, &err), PG_OK);
	assert_int_equal(dlen, 0);
	assert_int_equal(pg_decode_msg(LIT("Q\0\0\0\x04"), MAX_LEN, &m, &consumed, &err), PG_OK);
	assert_int_equal(pg_parse_sasl_response(&m, &data, &dlen, &err), PG_ERR);
	assert_null(data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_ready),
		cmocka_unit_test(test_put_simple),
		cmocka_unit_test(test_put_auth),
		cmocka_unit_test(test_put_error),
		cmocka_unit_test(test_put_rowdesc),
		cmocka_unit_test(test_put_rowdesc_mismatch),
		cmocka_unit_test(test_put_rowdesc_name_nul),
		cmocka_unit_test(test_put_large),
		cmocka_unit_test(test_startup_normal),
		cmocka_unit_test(test_startup_no_params_and_trailing),
		cmocka_unit_test(test_startup_special),
		cmocka_unit_test(test_startup_truncations),
		cmocka_unit_test(test_startup_malformed),
		cmocka_unit_test(test_startup_too_many_params),
		cmocka_unit_test(test_msg_query),
		cmocka_unit_test(test_msg_query_malformed),
		cmocka_unit_test(test_msg_lengths),
		cmocka_unit_test(test_sasl_initial),
		cmocka_unit_test(test_sasl_initial_malformed),
		cmocka_unit_test(test_sasl_response),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
