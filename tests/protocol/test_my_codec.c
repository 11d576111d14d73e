/*
 * Tests for protocol/my_codec: exact bytes of the server packets, packet
 * framing, HandshakeResponse41 and command decoding, and the malformed and
 * truncated input a hostile client can send.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/my_codec.h"

/* A literal with embedded NULs: pointer and sizeof - 1. */
#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

#define FILLER23 "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"
#define SCRAMBLE "ABCDEFGHIJKLMNOPQRST"
#define TOKEN20 "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14"

static void expect_bytes(const struct wbuf *b, const void *want, size_t n)
{
	assert_false(b->failed);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

/* ---- writer primitives ---------------------------------------------------- */

static void test_put_ints(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_put_u8(&b, 0xab);
	my_put_u16(&b, 0x1234);
	my_put_u24(&b, 0xff563412);
	my_put_u32(&b, 0x89abcdef);
	my_put_u64(&b, 0x0102030405060708ull);
	expect_bytes(&b, LIT("\xab"
			     "\x34\x12"
			     "\x12\x34\x56"
			     "\xef\xcd\xab\x89"
			     "\x08\x07\x06\x05\x04\x03\x02\x01"));
	wbuf_free(&b);
	assert_null(b.data);
}

static void test_lenenc_int(void **state)
{
	static const struct {
		uint64_t v;
		const char *bytes;
		size_t n;
	} cases[] = {
		{0, "\x00", 1},
		{250, "\xfa", 1},
		{251, "\xfc\xfb\x00", 3},
		{0xffff, "\xfc\xff\xff", 3},
		{0x10000, "\xfd\x00\x00\x01", 4},
		{0xffffff, "\xfd\xff\xff\xff", 4},
		{0x1000000, "\xfe\x00\x00\x00\x01\x00\x00\x00\x00", 9},
		{UINT64_MAX, "\xfe\xff\xff\xff\xff\xff\xff\xff\xff", 9},
	};
	struct wbuf b;
	size_t i, used;
	uint64_t v;

	(void)state;
	wbuf_init(&b);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		wbuf_reset(&b);
		my_put_lenenc_int(&b, cases[i].v);
		expect_bytes(&b, cases[i].bytes, cases[i].n);
		assert_int_equal(my_read_lenenc_int(b.data, b.len, &v, &used), MY_OK);
		assert_true(v == cases[i].v);
		assert_int_equal(used, cases[i].n);
		/* Every shorter prefix is truncated. */
		for (size_t k = 0; k < cases[i].n; k++)
			assert_int_equal(my_read_lenenc_int(b.data, k, &v, &used), MY_ERR);
	}
	wbuf_free(&b);
	assert_int_equal(my_read_lenenc_int(LIT("\xfb"), &v, &used), MY_ERR); /* NULL */
	assert_int_equal(my_read_lenenc_int(LIT("\xff\x00\x00"), &v, &used), MY_ERR);
	/* A longer encoding than needed is still an integer. */
	assert_int_equal(my_read_lenenc_int(LIT("\xfc\x05\x00"), &v, &used), MY_OK);
	assert_true(v == 5);
}

/* The cursor getters consume nothing when they fail. */
static void test_lenenc_cursor(void **state)
{
	struct rbuf r;
	const uint8_t *s = NULL;
	uint64_t v = 7;
	size_t n = 7;

	(void)state;
	rbuf_init(&r, LIT("\xfd\x01\x02"));
	assert_false(my_get_lenenc_int(&r, &v));
	assert_int_equal(v, 7);
	assert_int_equal(rbuf_left(&r), 3);
	rbuf_init(&r, LIT("\x04"
			  "abc"));
	assert_false(my_get_lenenc_str(&r, &s, &n));
	assert_null(s);
	assert_int_equal(n, 7);
	assert_int_equal(rbuf_left(&r), 4);
	rbuf_init(&r, LIT("\xfb"));
	assert_false(my_get_lenenc_str(&r, &s, &n));
	assert_int_equal(rbuf_left(&r), 1);
	rbuf_init(&r, LIT("\x03"
			  "abcd"));
	assert_true(my_get_lenenc_str(&r, &s, &n));
	assert_int_equal(n, 3);
	assert_memory_equal(s, "abc", 3);
	assert_int_equal(rbuf_left(&r), 1);
	rbuf_init(&r, LIT("\xfc\x00\x01"));
	assert_true(my_get_lenenc_int(&r, &v));
	assert_int_equal(v, 256);
	assert_int_equal(rbuf_left(&r), 0);
}

static void test_put_strings(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_put_lenenc_str(&b, "abc", 3);
	my_put_lenenc_str(&b, NULL, 0);
	my_put_nul_str(&b, "hi");
	my_put_nul_str(&b, NULL);
	my_put_null(&b);
	my_put_bytes(&b, "xy", 2);
	expect_bytes(&b, LIT("\x03"
			     "abc"
			     "\x00"
			     "hi\0"
			     "\0"
			     "\xfb"
			     "xy"));
	wbuf_reset(&b);
	assert_int_equal(b.len, 0);
	{
		char big[300];

		memset(big, 'a', sizeof(big));
		my_put_lenenc_str(&b, big, sizeof(big));
		assert_false(b.failed);
		assert_int_equal(b.len, 3 + sizeof(big));
		assert_memory_equal(b.data, "\xfc\x2c\x01", 3);
	}
	wbuf_free(&b);
}

static void test_packet_framing(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_begin(&b, 5);
	my_put_lenenc_str(&b, "1", 1);
	my_put_null(&b);
	my_put_lenenc_str(&b, "", 0);
	my_end(&b);
	my_begin(&b, 6);
	my_end(&b);
	expect_bytes(&b, LIT("\x04\0\0\x05"
			     "\x01"
			     "1"
			     "\xfb\x00"
			     "\0\0\0\x06"));
	wbuf_free(&b);
}

static void test_writer_failures(void **state)
{
	struct wbuf b;
	uint8_t *big;

	(void)state;
	wbuf_init(&b);
	/* my_end without a packet. */
	my_end(&b);
	assert_true(b.failed);
	my_put_u8(&b, 1); /* sticky */
	assert_int_equal(b.len, 0);
	wbuf_reset(&b);
	assert_false(b.failed);

	/* Exactly MY_MAX_PAYLOAD fits; one byte more fails without buffering it. */
	big = calloc(1, MY_MAX_PAYLOAD);
	assert_non_null(big);
	my_begin(&b, 0);
	my_put_bytes(&b, big, MY_MAX_PAYLOAD);
	my_end(&b);
	assert_false(b.failed);
	assert_int_equal(b.len, MY_HEADER_LEN + (size_t)MY_MAX_PAYLOAD);
	assert_memory_equal(b.data, "\xfe\xff\xff\x00", 4);
	wbuf_reset(&b);
	my_begin(&b, 0);
	my_put_bytes(&b, big, MY_MAX_PAYLOAD);
	my_put_u8(&b, 0);
	assert_true(b.failed);
	my_end(&b);
	assert_true(b.failed);
	/* A second packet starts its own count. */
	wbuf_reset(&b);
	my_begin(&b, 0);
	my_put_bytes(&b, big, 10);
	my_end(&b);
	my_begin(&b, 1);
	my_put_bytes(&b, big, MY_MAX_PAYLOAD);
	my_end(&b);
	assert_false(b.failed);
	free(big);
	wbuf_free(&b);
}

/* ---- server packets ------------------------------------------------------- */

static void test_write_handshake(void **state)
{
	struct my_handshake h = {
		.server_version = "8.0.36",
		.conn_id = 7,
		.scramble = (const uint8_t *)SCRAMBLE,
		.caps = MY_CAP_LONG_PASSWORD | MY_CAP_PROTOCOL_41 | MY_CAP_TRANSACTIONS | MY_CAP_SECURE_CONNECTION |
			MY_CAP_PLUGIN_AUTH | MY_CAP_DEPRECATE_EOF,
		.charset = 45,
		.status = MY_STATUS_AUTOCOMMIT,
		.auth_plugin = "mysql_native_password",
	};
	struct wbuf b;

	(void)state;
	assert_int_equal(h.caps, 0x0108a201u);
	wbuf_init(&b);
	my_write_handshake(&b, 0, &h);
	expect_bytes(&b, LIT("\x4a\0\0\0"
			     "\x0a"
			     "8.0.36\0"
			     "\x07\0\0\0"
			     "ABCDEFGH"
			     "\0"
			     "\x01\xa2"
			     "\x2d"
			     "\x02\x00"
			     "\x08\x01"
			     "\x15"
			     "\0\0\0\0\0\0\0\0\0\0"
			     "IJKLMNOPQRST"
			     "\0"
			     "mysql_native_password\0"));
	/* NULL plugin is mysql_native_password; no PLUGIN_AUTH: length 0, no name. */
	wbuf_reset(&b);
	h.auth_plugin = NULL;
	h.caps &= ~MY_CAP_PLUGIN_AUTH;
	my_write_handshake(&b, 0, &h);
	assert_false(b.failed);
	assert_int_equal(b.len, 4 + 74 - 22);
	assert_int_equal(b.data[4 + 1 + 7 + 4 + 8 + 1 + 2 + 1 + 2 + 2], 0);
	wbuf_free(&b);
}

static void test_write_ok(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_write_ok(&b, 2, MY_CAP_PROTOCOL_41, 0, 0, MY_STATUS_AUTOCOMMIT, 0, false);
	expect_bytes(&b, LIT("\x07\0\0\x02"
			     "\x00\x00\x00\x02\x00\x00\x00"));
	wbuf_reset(&b);
	my_write_ok(&b, 9, MY_CAP_PROTOCOL_41 | MY_CAP_DEPRECATE_EOF, 300, 70000,
		    MY_STATUS_AUTOCOMMIT | MY_STATUS_IN_TRANS, 1, true);
	expect_bytes(&b, LIT("\x0c\0\0\x09"
			     "\xfe"
			     "\xfc\x2c\x01"
			     "\xfd\x70\x11\x01"
			     "\x03\x00"
			     "\x01\x00"));
	/* SESSION_TRACK: an empty info string follows. */
	wbuf_reset(&b);
	my_write_ok(&b, 1, MY_CAP_PROTOCOL_41 | MY_CAP_SESSION_TRACK, 1, 0, 0, 0, false);
	expect_bytes(&b, LIT("\x08\0\0\x01"
			     "\x00\x01\x00\x00\x00\x00\x00\x00"));
	/* Without PROTOCOL_41: status only with TRANSACTIONS, nothing without. */
	wbuf_reset(&b);
	my_write_ok(&b, 1, MY_CAP_TRANSACTIONS, 0, 0, 2, 5, false);
	expect_bytes(&b, LIT("\x05\0\0\x01"
			     "\x00\x00\x00\x02\x00"));
	wbuf_reset(&b);
	my_write_ok(&b, 1, 0, 0, 0, 2, 5, false);
	expect_bytes(&b, LIT("\x03\0\0\x01"
			     "\x00\x00\x00"));
	wbuf_free(&b);
}

static void test_write_err_eof(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_write_err(&b, 2, 1045, "28000", "Access denied");
	expect_bytes(&b, LIT("\x16\0\0\x02"
			     "\xff\x15\x04"
			     "#28000"
			     "Access denied"));
	wbuf_reset(&b);
	my_write_err(&b, 1, 1064, "4200", NULL); /* bad sqlstate, no message */
	expect_bytes(&b, LIT("\x09\0\0\x01"
			     "\xff\x28\x04"
			     "#HY000"));
	wbuf_reset(&b);
	my_write_err(&b, 1, 1064, "420001", "x");
	expect_bytes(&b, LIT("\x0a\0\0\x01"
			     "\xff\x28\x04"
			     "#HY000"
			     "x"));
	wbuf_reset(&b);
	my_write_err(&b, 1, 1, NULL, "");
	expect_bytes(&b, LIT("\x09\0\0\x01"
			     "\xff\x01\x00"
			     "#HY000"));
	wbuf_reset(&b);
	my_write_eof(&b, 5, 0, MY_STATUS_AUTOCOMMIT);
	my_write_eof(&b, 6, 3, 3);
	expect_bytes(&b, LIT("\x05\0\0\x05"
			     "\xfe\x00\x00\x02\x00"
			     "\x05\0\0\x06"
			     "\xfe\x03\x00\x03\x00"));
	wbuf_reset(&b);
	my_write_column_count(&b, 1, 3);
	my_write_column_count(&b, 1, 1000);
	expect_bytes(&b, LIT("\x01\0\0\x01"
			     "\x03"
			     "\x03\0\0\x01"
			     "\xfc\xe8\x03"));
	wbuf_free(&b);
}

static void test_write_column_def(void **state)
{
	struct my_column c = {
		.schema = "shopXX",
		.schema_len = 4,
		.table = "o",
		.table_len = 1,
		.org_table = "orders",
		.org_table_len = 6,
		.name = "id",
		.name_len = 2,
		.org_name = "id",
		.org_name_len = 2,
		.charset = 63,
		.length = 11,
		.type = MY_TYPE_LONG,
		.flags = MY_FLAG_NOT_NULL | MY_FLAG_PRI_KEY,
		.decimals = 0,
	};
	struct my_column empty = {
		.schema_len = 99,
		.charset = 45,
		.length = 0x01020304,
		.type = MY_TYPE_VAR_STRING,
		.flags = 0x8001,
		.decimals = 31,
	};
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_write_column_def(&b, 2, &c, false);
	expect_bytes(&b, LIT("\x25\0\0\x02"
			     "\x03"
			     "def"
			     "\x04"
			     "shop"
			     "\x01"
			     "o"
			     "\x06"
			     "orders"
			     "\x02"
			     "id"
			     "\x02"
			     "id"
			     "\x0c"
			     "\x3f\x00"
			     "\x0b\x00\x00\x00"
			     "\x03"
			     "\x03\x00"
			     "\x00"
			     "\x00\x00"));
	wbuf_reset(&b);
	my_write_column_def(&b, 3, &c, true);
	assert_false(b.failed);
	assert_int_equal(b.len, 4 + 0x26);
	assert_int_equal(b.data[0], 0x26);
	assert_int_equal(b.data[b.len - 1], 0xfb);
	wbuf_reset(&b);
	my_write_column_def(&b, 4, &empty, false);
	expect_bytes(&b, LIT("\x16\0\0\x04"
			     "\x03"
			     "def"
			     "\0\0\0\0\0"
			     "\x0c"
			     "\x2d\x00"
			     "\x04\x03\x02\x01"
			     "\xfd"
			     "\x01\x80"
			     "\x1f"
			     "\x00\x00"));
	wbuf_free(&b);
}

static void test_write_auth(void **state)
{
	struct wbuf b;

	(void)state;
	wbuf_init(&b);
	my_write_auth_switch(&b, 2, "mysql_native_password", (const uint8_t *)SCRAMBLE, 20);
	expect_bytes(&b, LIT("\x2c\0\0\x02"
			     "\xfe"
			     "mysql_native_password\0" SCRAMBLE "\0"));
	wbuf_reset(&b);
	my_write_auth_more(&b, 4, "\x04", 1);
	expect_bytes(&b, LIT("\x02\0\0\x04"
			     "\x01\x04"));
	wbuf_free(&b);
}

/* ---- packet framing ------------------------------------------------------- */

static void test_packet_peek(void **state)
{
	static const uint8_t two[] = "\x03\0\0\x00"
				     "\x03"
				     "ab"
				     "\0\0\0\x07";
	struct my_packet pkt;
	size_t consumed = 99, needed = 99, i;

	(void)state;
	/* Header incomplete: 4 bytes needed. */
	for (i = 0; i < 4; i++) {
		assert_int_equal(my_packet_peek(two, i, 1024, &pkt, &consumed, &needed), MY_NEED_MORE);
		assert_int_equal(needed, 4);
		assert_int_equal(consumed, 0);
	}
	/* Header complete, payload incomplete: the total is known. */
	for (i = 4; i < 7; i++) {
		assert_int_equal(my_packet_peek(two, i, 1024, &pkt, &consumed, &needed), MY_NEED_MORE);
		assert_int_equal(needed, 7);
	}
	assert_int_equal(my_packet_peek(two, sizeof(two) - 1, 1024, &pkt, &consumed, &needed), MY_OK);
	assert_int_equal(consumed, 7);
	assert_int_equal(pkt.seq, 0);
	assert_int_equal(pkt.len, 3);
	assert_ptr_equal(pkt.payload, two + 4);
	/* A zero-length payload is a packet; the sequence id is reported, never checked. */
	assert_int_equal(my_packet_peek(two + 7, 4, 1024, &pkt, &consumed, NULL), MY_OK);
	assert_int_equal(consumed, 4);
	assert_int_equal(pkt.len, 0);
	assert_int_equal(pkt.seq, 7);
	/* NULL out-parameters are allowed. */
	assert_int_equal(my_packet_peek(two, 2, 1024, &pkt, NULL, NULL), MY_NEED_MORE);
}

static void test_packet_peek_refused(void **state)
{
	struct my_packet pkt;
	size_t consumed, needed;

	(void)state;
	/* Split payloads are refused, as soon as the length is readable. */
	assert_int_equal(my_packet_peek(LIT("\xff\xff\xff"), 0xffffffffu, &pkt, &consumed, &needed), MY_ERR);
	assert_int_equal(my_packet_peek(LIT("\xff\xff\xff\x00"
					    "abc"),
					0xffffffffu, &pkt, &consumed, &needed),
			 MY_ERR);
	/* Over the caller's maximum. */
	assert_int_equal(my_packet_peek(LIT("\x01\x04\0\x00"), 1024, &pkt, &consumed, &needed), MY_ERR);
	assert_int_equal(my_packet_peek(LIT("\x00\x04\0\x00"), 1024, &pkt, &consumed, &needed), MY_NEED_MORE);
	assert_int_equal(needed, 4 + 1024);
	/* A maximum above MY_MAX_PAYLOAD is capped. */
	assert_int_equal(my_packet_peek(LIT("\xfe\xff\xff\x00"), 0xffffffffu, &pkt, &consumed, &needed), MY_NEED_MORE);
	assert_int_equal(needed, 4 + (size_t)MY_MAX_PAYLOAD);
	assert_int_equal(my_packet_peek(LIT("\x05\0\0\x00"), 0, &pkt, &consumed, &needed), MY_ERR);
	assert_int_equal(my_packet_peek(LIT("\x00\0\0\x00"), 0, &pkt, &consumed, &needed), MY_OK);
}

/* ---- HandshakeResponse41 ------------------------------------------------- */

/* PyMySQL-style: lenenc auth, database, plugin, one connection attribute. */
static const uint8_t pymysql_response[] = "\x0d\xa2\x3a\x00"
					  "\x00\x00\x00\x01"
					  "\x2d" FILLER23 "agent\0"
					  "\x14" TOKEN20 "shop\0"
					  "mysql_native_password\0"
					  "\x15"
					  "\x0c"
					  "_client_name"
					  "\x07"
					  "pymysql";

static void test_decode_response(void **state)
{
	const uint8_t *p = pymysql_response;
	size_t len = sizeof(pymysql_response) - 1;
	struct my_handshake_response r;
	const char *why = NULL;

	(void)state;
	assert_int_equal(len, 108);
	assert_int_equal(my_decode_handshake_response(p, len, &r, &why), MY_OK);
	assert_int_equal(r.caps, 0x003aa20du);
	assert_int_equal(r.max_packet, 0x01000000u);
	assert_int_equal(r.charset, 45);
	assert_false(r.ssl_request);
	assert_int_equal(r.user_len, 5);
	assert_memory_equal(r.user, "agent", 5);
	assert_ptr_equal(r.user, p + 32);
	assert_int_equal(r.auth_len, 20);
	assert_memory_equal(r.auth, TOKEN20, 20);
	assert_int_equal(r.database_len, 4);
	assert_memory_equal(r.database, "shop", 4);
	assert_int_equal(r.plugin_len, 21);
	assert_string_equal(r.plugin, "mysql_native_password");
	assert_int_equal(r.attrs_len, 21);
	assert_ptr_equal(r.attrs, p + len - 21);
}

/* A connection attribute by key; absent, a prefix of a key, or a block cut short: not found. */
static void test_connect_attr(void **state)
{
	static const uint8_t attrs[] = "\x0c"
				       "program_name"
				       "\x09"
				       "mysqldump"
				       "\x04"
				       "_pid"
				       "\x02"
				       "42";
	const uint8_t *v = NULL;
	size_t n = 0;

	(void)state;
	assert_true(my_connect_attr(attrs, sizeof(attrs) - 1, "program_name", &v, &n));
	assert_int_equal(n, 9);
	assert_memory_equal(v, "mysqldump", 9);
	assert_true(my_connect_attr(attrs, sizeof(attrs) - 1, "_pid", &v, &n));
	assert_memory_equal(v, "42", 2);
	assert_false(my_connect_attr(attrs, sizeof(attrs) - 1, "program", &v, &n));
	assert_false(my_connect_attr(attrs, sizeof(attrs) - 1, "_os", &v, &n));
	assert_false(my_connect_attr(attrs, 14, "_pid", &v, &n));
	assert_false(my_connect_attr(NULL, 0, "program_name", &v, &n));
}

/* Builds a response body with the writer (no packet header). */
struct resp {
	uint32_t caps;
	const char *user;
	const void *auth;
	size_t auth_len;
	const char *db;
	const char *plugin;
	const void *attrs; /* the whole attribute block, lenenc length included */
	size_t attrs_len;
	const void *tail;
	size_t tail_len;
};

static void build(struct wbuf *b, const struct resp *r)
{
	static const uint8_t filler[23];

	wbuf_reset(b);
	my_put_u32(b, r->caps);
	my_put_u32(b, 1u << 24);
	my_put_u8(b, 45);
	my_put_bytes(b, filler, sizeof(filler));
	my_put_nul_str(b, r->user);
	if (r->caps & MY_CAP_PLUGIN_AUTH_LENENC_CLIENT_DATA) {
		my_put_lenenc_str(b, r->auth, r->auth_len);
	} else if (r->caps & MY_CAP_SECURE_CONNECTION) {
		my_put_u8(b, (uint8_t)r->auth_len);
		my_put_bytes(b, r->auth, r->auth_len);
	} else {
		my_put_bytes(b, r->auth, r->auth_len);
		my_put_u8(b, 0);
	}
	if (r->db)
		my_put_nul_str(b, r->db);
	if (r->plugin)
		my_put_nul_str(b, r->plugin);
	if (r->attrs)
		my_put_bytes(b, r->attrs, r->attrs_len);
	if (r->tail)
		my_put_bytes(b, r->tail, r->tail_len);
	assert_false(b->failed);
}

static enum my_status decode(const struct wbuf *b, struct my_handshake_response *out, const char **why)
{
	*why = NULL;
	return my_decode_handshake_response(b->data, b->len, out, why);
}

#define CAPS_BASE (MY_CAP_PROTOCOL_41 | MY_CAP_SECURE_CONNECTION | MY_CAP_PLUGIN_AUTH)

static void test_decode_response_variants(void **state)
{
	struct my_handshake_response r;
	struct wbuf b;
	const char *why;
	struct resp v;

	(void)state;
	wbuf_init(&b);

	/* One length byte (mysql2 / older clients); no database flag. */
	v = (struct resp){
		.caps = CAPS_BASE, .user = "u", .auth = TOKEN20, .auth_len = 20, .plugin = "caching_sha2_password"};
	build(&b, &v);
	assert_int_equal(decode(&b, &r, &why), MY_OK);
	assert_int_equal(r.auth_len, 20);
	assert_null(r.database);
	assert_int_equal(r.plugin_len, 21);
	assert_null(r.attrs);

	/* Empty auth (empty password) and an empty database are absent. */
	v = (struct resp){.caps = CAPS_BASE | MY_CAP_CONNECT_WITH_DB,
			  .user = "",
			  .auth_len = 0,
			  .db = "",
			  .plugin = "mysql_native_password"};
	build(&b, &v);
	assert_int_equal(decode(&b, &r, &why), MY_OK);
	assert_int_equal(r.user_len, 0);
	assert_null(r.auth);
	assert_int_equal(r.auth_len, 0);
	assert_null(r.database);
	assert_int_equal(r.database_len, 0);

	/* Neither SECURE_CONNECTION nor LENENC: NUL-terminated auth. */
	v = (struct resp){.caps = MY_CAP_PROTOCOL_41 | MY_CAP_CONNECT_WITH_DB,
			  .user = "bob",
			  .auth = "secret",
			  .auth_len = 6,
			  .db = "shop"};
	build(&b, &v);
	assert_int_equal(decode(&b, &r, &why), MY_OK);
	assert_int_equal(r.auth_len, 6);
	assert_memory_equal(r.auth, "secret", 6);
	assert_int_equal(r.database_len, 4);
	assert_null(r.plugin);

	/* Fields announced but absent at the end of the packet. */
	v = (struct resp){.caps = CAPS_BASE | MY_CAP_CONNECT_WITH_DB | MY_CAP_CONNECT_ATTRS,
			  .user = "u",
			  .auth = TOKEN20,
			  .auth_len = 20};
	build(&b, &v);
	assert_int_equal(decode(&b, &r, &why), MY_OK);
	assert_null(r.database);
	assert_null(r.plugin);
	assert_null(r.attrs);

	/* Empty attribute block; an attribute with an empty value. */
	v = (struct resp){.caps = CAPS_BASE | MY_CAP_CONNECT_ATTRS,
			  .user = "u",
			  .auth = TOKEN20,
			  .auth_len = 20,
			  .plugin = "mysql_native_password",
			  .attrs = "\x00",
			  .attrs_len = 1};
	build(&b, &v);
	assert_int_equal(decode(&b, &r, &why), MY_OK);
	assert_non_null(r.attrs);
	assert_int_equal(r.attrs_len, 0);
	v.attrs = "\x03\x01k\x00";
	v.attrs_len = 4;
	build(&b, &v);
	assert_int_equal(decode(&b, &r, &why), MY_OK);
	assert_int_equal(r.attrs_len, 3);

	/* The zstd level byte after the attributes. */
	v = (struct resp){.caps = CAPS_BASE | MY_CAP_ZSTD_COMPRESSION_ALGORITHM,
			  .user = "u",
			  .auth = TOKEN20,
			  .auth_len = 20,
			  .plugin = "mysql_native_password",
			  .tail = "\x03",
			  .tail_len = 1};
	build(&b, &v);
	assert_int_equal(decode(&b, &r, &why), MY_OK);

	/* A user of exactly MY_MAX_USER_LEN bytes. */
	{
		char user[MY_MAX_USER_LEN + 1];

		memset(user, 'u', MY_MAX_USER_LEN);
		user[MY_MAX_USER_LEN] = 0;
		v = (struct resp){.caps = CAPS_BASE,
				  .user = user,
				  .auth = TOKEN20,
				  .auth_len = 20,
				  .plugin = "mysql_native_password"};
		build(&b, &v);
		assert_int_equal(decode(&b, &r, &why), MY_OK);
		assert_int_equal(r.user_len, MY_MAX_USER_LEN);
	}
	wbuf_free(&b);
}

static void test_decode_ssl_request(void **state)
{
	static const uint8_t ssl[] = "\x00\xaa\x3a\x00"
				     "\x00\x00\x00\x01"
				     "\x2d" FILLER23;
	static const uint8_t nossl[] = "\x00\xa2\x3a\x00"
				       "\x00\x00\x00\x01"
				       "\x2d" FILLER23;
	struct my_handshake_response r;
	const char *why = NULL;

	(void)state;
	assert_int_equal(sizeof(ssl) - 1, 32);
	assert_int_equal(my_decode_handshake_response(ssl, 32, &r, &why), MY_OK);
	assert_true(r.ssl_request);
	assert_true(r.caps & MY_CAP_SSL);
	assert_null(r.user);
	assert_int_equal(r.charset, 45);
	assert_int_equal(my_decode_handshake_response(nossl, 32, &r, &why), MY_ERR);
	assert_non_null(why);
	assert_false(r.ssl_request);
}

static void expect_refused(const struct wbuf *b, const char *reason_part)
{
	struct my_handshake_response r;
	const char *why = NULL;

	assert_int_equal(decode(b, &r, &why), MY_ERR);
	assert_non_null(why);
	if (!strstr(why, reason_part))
		fail_msg("reason \"%s\" lacks \"%s\"", why, reason_part);
	assert_null(r.user);
	assert_null(r.auth);
}

static void test_decode_response_malformed(void **state)
{
	struct wbuf b;
	struct resp v;
	char user[MY_MAX_USER_LEN + 2];
	char db[MY_MAX_DATABASE_LEN + 2];

	(void)state;
	wbuf_init(&b);

	/* No CLIENT_PROTOCOL_41. */
	v = (struct resp){.caps = MY_CAP_SECURE_CONNECTION, .user = "u", .auth = TOKEN20, .auth_len = 20};
	build(&b, &v);
	expect_refused(&b, "PROTOCOL_41");

	/* User name without NUL: the packet ends inside it. */
	wbuf_reset(&b);
	my_put_bytes(&b, pymysql_response, 32);
	my_put_bytes(&b, "agent", 5);
	expect_refused(&b, "user name without NUL");

	/* User name too long. */
	memset(user, 'u', MY_MAX_USER_LEN + 1);
	user[MY_MAX_USER_LEN + 1] = 0;
	v = (struct resp){.caps = CAPS_BASE, .user = user, .auth = TOKEN20, .auth_len = 20};
	build(&b, &v);
	expect_refused(&b, "user name too long");

	/* Lenenc auth length past the end, a NULL lenenc, a truncated lenenc. */
	wbuf_reset(&b);
	my_put_bytes(&b, pymysql_response, 38);
	my_put_bytes(&b, "\x15" TOKEN20, 21);
	expect_refused(&b, "past the end");
	b.data[38] = 0xfb;
	expect_refused(&b, "bad auth response length");
	b.len = 39;
	b.data[38] = 0xfc;
	expect_refused(&b, "bad auth response length");
	b.len = 38;
	expect_refused(&b, "bad auth response length");

	/* One-byte auth length past the end, or missing. */
	v = (struct resp){.caps = CAPS_BASE, .user = "u", .auth = TOKEN20, .auth_len = 20};
	build(&b, &v);
	b.len -= 1;
	expect_refused(&b, "past the end");
	b.len = 32 + 2;
	expect_refused(&b, "truncated auth response length");

	/* NUL-terminated auth without its NUL. */
	v = (struct resp){.caps = MY_CAP_PROTOCOL_41, .user = "u", .auth = "pw", .auth_len = 2};
	build(&b, &v);
	b.len -= 1;
	expect_refused(&b, "auth response without NUL");

	/* Auth response over the limit (lenenc allows it on the wire). */
	{
		static uint8_t big[MY_MAX_AUTH_RESPONSE + 1];

		v = (struct resp){.caps = CAPS_BASE | MY_CAP_PLUGIN_AUTH_LENENC_CLIENT_DATA,
				  .user = "u",
				  .auth = big,
				  .auth_len = sizeof(big)};
		build(&b, &v);
		expect_refused(&b, "auth response too long");
	}

	/* Database without NUL, too long. */
	v = (struct resp){.caps = CAPS_BASE | MY_CAP_CONNECT_WITH_DB,
			  .user = "u",
			  .auth = TOKEN20,
			  .auth_len = 20,
			  .tail = "shop",
			  .tail_len = 4};
	build(&b, &v);
	expect_refused(&b, "database name without NUL");
	memset(db, 'd', MY_MAX_DATABASE_LEN + 1);
	db[MY_MAX_DATABASE_LEN + 1] = 0;
	v.tail = NULL;
	v.db = db;
	build(&b, &v);
	expect_refused(&b, "database name too long");

	/* Plugin without NUL, too long. */
	v = (struct resp){.caps = CAPS_BASE,
			  .user = "u",
			  .auth = TOKEN20,
			  .auth_len = 20,
			  .tail = "mysql_native_password",
			  .tail_len = 21};
	build(&b, &v);
	expect_refused(&b, "plugin name without NUL");
	v.tail = NULL;
	v.plugin = "a_very_long_plugin_name_that_goes_on_and_on_and_on_past_sixty_four_bytes";
	build(&b, &v);
	expect_refused(&b, "plugin name too long");

	/* Attributes: block past the end; a value past the block; a key without a value; a NULL length. */
	v = (struct resp){.caps = CAPS_BASE | MY_CAP_CONNECT_ATTRS,
			  .user = "u",
			  .auth = TOKEN20,
			  .auth_len = 20,
			  .plugin = "mysql_native_password",
			  .attrs = "\x05\x01k\x01v",
			  .attrs_len = 5};
	build(&b, &v);
	expect_refused(&b, "connection attributes past the end");
	v.attrs = "\x04\x01k\x02vv";
	v.attrs_len = 6;
	build(&b, &v);
	expect_refused(&b, "malformed connection attributes");
	v.attrs = "\x02\x01k";
	v.attrs_len = 3;
	build(&b, &v);
	expect_refused(&b, "malformed connection attributes");
	v.attrs = "\x03\x01k\xfb";
	v.attrs_len = 4;
	build(&b, &v);
	expect_refused(&b, "malformed connection attributes");
	v.attrs = "\xfb";
	v.attrs_len = 1;
	build(&b, &v);
	expect_refused(&b, "connection attributes past the end");

	/* Trailing bytes. */
	v = (struct resp){.caps = CAPS_BASE,
			  .user = "u",
			  .auth = TOKEN20,
			  .auth_len = 20,
			  .plugin = "mysql_native_password",
			  .tail = "x",
			  .tail_len = 1};
	build(&b, &v);
	expect_refused(&b, "trailing bytes");

	/* Short packets. */
	wbuf_reset(&b);
	my_put_bytes(&b, "\x00\x02", 2);
	expect_refused(&b, "truncated capability flags");
	my_put_bytes(&b, "\x00\x00\x00", 3);
	expect_refused(&b, "truncated fixed fields");
	wbuf_free(&b);
}

/* Every prefix, in a buffer of exactly that size: OK or ERR, views inside the prefix. */
static void check_all_prefixes(const uint8_t *p, size_t len)
{
	size_t n;

	for (n = 0; n <= len; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		struct my_handshake_response r;
		const char *why = NULL;
		enum my_status st;

		assert_non_null(copy);
		memcpy(copy, p, n);
		st = my_decode_handshake_response(copy, n, &r, &why);
		if (st == MY_OK) {
			const uint8_t *end = copy + n;

			if (r.user)
				assert_true((const uint8_t *)r.user + r.user_len < end);
			if (r.auth)
				assert_true(r.auth + r.auth_len <= end);
			if (r.database)
				assert_true((const uint8_t *)r.database + r.database_len < end);
			if (r.plugin)
				assert_true((const uint8_t *)r.plugin + r.plugin_len < end);
			if (r.attrs)
				assert_true(r.attrs + r.attrs_len <= end);
		} else {
			assert_int_equal(st, MY_ERR);
			assert_non_null(why);
		}
		if (n == len)
			assert_int_equal(st, MY_OK);
		free(copy);
	}
}

static void test_decode_response_prefixes(void **state)
{
	struct wbuf b;
	struct resp v;

	(void)state;
	check_all_prefixes(pymysql_response, sizeof(pymysql_response) - 1);
	wbuf_init(&b);
	v = (struct resp){.caps = MY_CAP_PROTOCOL_41 | MY_CAP_CONNECT_WITH_DB | MY_CAP_PLUGIN_AUTH |
				  MY_CAP_CONNECT_ATTRS | MY_CAP_ZSTD_COMPRESSION_ALGORITHM,
			  .user = "root",
			  .auth = "pw",
			  .auth_len = 2,
			  .db = "d",
			  .plugin = "p",
			  .attrs = "\x08\x01k\xfc\x03\x00vvv",
			  .attrs_len = 9,
			  .tail = "\x01",
			  .tail_len = 1};
	build(&b, &v);
	check_all_prefixes(b.data, b.len);
	wbuf_free(&b);
}

/* ---- commands ------------------------------------------------------------ */

static void test_decode_command(void **state)
{
	struct my_command c;
	const char *why = NULL;

	(void)state;
	assert_int_equal(my_decode_command(LIT("\x03"
					       "select 1"),
					   &c, &why),
			 MY_OK);
	assert_int_equal(c.cmd, MY_COM_QUERY);
	assert_int_equal(c.arg_len, 8);
	assert_memory_equal(c.arg, "select 1", 8);
	assert_null(c.table);

	assert_int_equal(my_decode_command(LIT("\x0e"), &c, &why), MY_OK);
	assert_int_equal(c.cmd, MY_COM_PING);
	assert_int_equal(c.arg_len, 0);

	assert_int_equal(my_decode_command(LIT("\x04"
					       "orders\0"),
					   &c, &why),
			 MY_OK);
	assert_int_equal(c.cmd, MY_COM_FIELD_LIST);
	assert_int_equal(c.table_len, 6);
	assert_string_equal(c.table, "orders");
	assert_non_null(c.wildcard);
	assert_int_equal(c.wildcard_len, 0);

	assert_int_equal(my_decode_command(LIT("\x04"
					       "orders\0"
					       "i%"),
					   &c, &why),
			 MY_OK);
	assert_int_equal(c.wildcard_len, 2);
	assert_memory_equal(c.wildcard, "i%", 2);
	/* A trailing NUL after the wildcard is dropped. */
	assert_int_equal(my_decode_command(LIT("\x04"
					       "orders\0"
					       "i%\0"),
					   &c, &why),
			 MY_OK);
	assert_int_equal(c.wildcard_len, 2);
}

static void test_decode_command_malformed(void **state)
{
	struct my_command c;
	const char *why;
	char tbl[1 + MY_MAX_TABLE_LEN + 2];

	(void)state;
	why = NULL;
	assert_int_equal(my_decode_command((const uint8_t *)"", 0, &c, &why), MY_ERR);
	assert_non_null(why);
	why = NULL;
	assert_int_equal(my_decode_command(LIT("\x04"
					       "orders"),
					   &c, &why),
			 MY_ERR);
	assert_non_null(strstr(why, "without NUL"));
	assert_null(c.table);
	why = NULL;
	assert_int_equal(my_decode_command(LIT("\x04"), &c, &why), MY_ERR);
	assert_non_null(why);
	why = NULL;
	assert_int_equal(my_decode_command(LIT("\x04\0"), &c, &why), MY_ERR);
	assert_non_null(strstr(why, "empty table name"));
	why = NULL;
	assert_int_equal(my_decode_command(LIT("\x04"
					       "t\0"
					       "a\0b"),
					   &c, &why),
			 MY_ERR);
	assert_non_null(strstr(why, "wildcard"));
	assert_int_equal(my_decode_command(LIT("\x04"
					       "t\0"
					       "\0\0"),
					   &c, &why),
			 MY_ERR);

	tbl[0] = MY_COM_FIELD_LIST;
	memset(tbl + 1, 't', MY_MAX_TABLE_LEN + 1);
	tbl[MY_MAX_TABLE_LEN + 2] = 0;
	why = NULL;
	assert_int_equal(my_decode_command((const uint8_t *)tbl, sizeof(tbl), &c, &why), MY_ERR);
	assert_non_null(strstr(why, "too long"));
	tbl[MY_MAX_TABLE_LEN + 1] = 0;
	assert_int_equal(my_decode_command((const uint8_t *)tbl, MY_MAX_TABLE_LEN + 2, &c, &why), MY_OK);
	assert_int_equal(c.table_len, MY_MAX_TABLE_LEN);
}

/* The sequence id rule: in order moves on (wrapping), anything else is refused and changes nothing. */
static void test_sequence_ids(void **state)
{
	uint8_t next = 0;

	(void)state;
	assert_int_equal(my_seq_accept(&next, 0), MY_OK);
	assert_int_equal(next, 1);
	/* a reply took id 1; the client's next packet must be 2 */
	next++;
	assert_int_equal(my_seq_accept(&next, 3), MY_ERR);
	assert_int_equal(next, 2);
	assert_int_equal(my_seq_accept(&next, 1), MY_ERR);
	assert_int_equal(my_seq_accept(&next, 2), MY_OK);
	assert_int_equal(next, 3);
	next = 255;
	assert_int_equal(my_seq_accept(&next, 255), MY_OK);
	assert_int_equal(next, 0);
	assert_int_equal(my_seq_accept(&next, 0), MY_OK);
	/* a new command restarts at 0: a client that keeps counting is out of order */
	next = 0;
	assert_int_equal(my_seq_accept(&next, 5), MY_ERR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_ints),
		cmocka_unit_test(test_lenenc_int),
		cmocka_unit_test(test_lenenc_cursor),
		cmocka_unit_test(test_put_strings),
		cmocka_unit_test(test_packet_framing),
		cmocka_unit_test(test_sequence_ids),
		cmocka_unit_test(test_writer_failures),
		cmocka_unit_test(test_write_handshake),
		cmocka_unit_test(test_write_ok),
		cmocka_unit_test(test_write_err_eof),
		cmocka_unit_test(test_write_column_def),
		cmocka_unit_test(test_write_auth),
		cmocka_unit_test(test_packet_peek),
		cmocka_unit_test(test_packet_peek_refused),
		cmocka_unit_test(test_decode_response),
		cmocka_unit_test(test_connect_attr),
		cmocka_unit_test(test_decode_response_variants),
		cmocka_unit_test(test_decode_ssl_request),
		cmocka_unit_test(test_decode_response_malformed),
		cmocka_unit_test(test_decode_response_prefixes),
		cmocka_unit_test(test_decode_command),
		cmocka_unit_test(test_decode_command_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
