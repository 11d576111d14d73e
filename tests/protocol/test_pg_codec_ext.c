/*
 * Tests for the extended-query part of protocol/pg_codec: Parse, Bind,
 * Describe, Close and Execute decoding, including every truncation and the
 * malformed layouts a hostile client can send, and the exact bytes of the
 * backend replies.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "protocol/pg_codec.h"

#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

static struct pg_msg msg(uint8_t type, const uint8_t *body, size_t len)
{
	struct pg_msg m = {.type = type, .body_len = (uint32_t)len, .body = body};

	return m;
}

/* Every proper prefix of a valid body must be refused, never read past (uses the caller's m). */
#define EVERY_PREFIX_FAILS(type, body, call)                    \
	do {                                                    \
		for (size_t n = 0; n < sizeof(body) - 1; n++) { \
			uint8_t copy[sizeof(body)];             \
			memcpy(copy, body, n);                  \
			m = msg(type, copy, n);                 \
			assert_int_equal(call, PG_ERR);         \
		}                                               \
	} while (0)

static const char parse_body[] = "s1\0SELECT $1::int\0\0\2\0\0\0\x17\0\0\0\0";

static void test_parse_ok(void **state)
{
	struct pg_msg m = msg('P', LIT(parse_body));
	struct pg_parse p;
	const char *err = NULL;

	assert_int_equal(pg_parse_parse(&m, &p, &err), PG_OK);
	assert_string_equal(p.name, "s1");
	assert_string_equal(p.query, "SELECT $1::int");
	assert_int_equal(p.ntypes, 2);
	assert_int_equal(pg_parse_type_at(&p, 0), 23);
	assert_int_equal(pg_parse_type_at(&p, 1), 0);
	assert_int_equal(pg_parse_type_at(&p, 2), 0);
}

static void test_parse_malformed(void **state)
{
	struct pg_parse p;
	const char *err;
	struct pg_msg m;

	EVERY_PREFIX_FAILS('P', parse_body, pg_parse_parse(&m, &p, &err));
	/* type count larger than what follows, and trailing bytes */
	m = msg('P', LIT("\0SELECT 1\0\0\3\0\0\0\x17"));
	assert_int_equal(pg_parse_parse(&m, &p, &err), PG_ERR);
	m = msg('P', LIT("\0SELECT 1\0\0\0junk"));
	assert_int_equal(pg_parse_parse(&m, &p, &err), PG_ERR);
	m = msg('Q', LIT("\0SELECT 1\0\0\0"));
	assert_int_equal(pg_parse_parse(&m, &p, &err), PG_ERR);
}

/* portal "", statement "s1", 1 format (binary), 2 params: 4 bytes and NULL, 1 result format (text). */
static const char bind_body[] = "\0s1\0\0\1\0\1\0\2\0\0\0\4\0\0\0\7\xff\xff\xff\xff\0\1\0\0";

static void test_bind_ok(void **state)
{
	struct pg_msg m = msg('B', LIT(bind_body));
	struct pg_bind b;
	struct pg_bind_value v[4];
	const char *err = NULL;

	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_OK);
	assert_string_equal(b.portal, "");
	assert_string_equal(b.stmt, "s1");
	assert_int_equal(b.nparams, 2);
	assert_int_equal(pg_bind_values(&b, v, 4), PG_OK);
	assert_int_equal(v[0].len, 4);
	assert_int_equal(v[0].format, 1);
	assert_memory_equal(v[0].data, "\0\0\0\7", 4);
	assert_null(v[1].data);
	assert_int_equal(v[1].len, -1);
	assert_int_equal(v[1].format, 1);
	assert_int_equal(pg_bind_result_format(&b, 0), 0);
	assert_int_equal(pg_bind_values(&b, v, 1), PG_ERR);
}

static void test_bind_malformed(void **state)
{
	struct pg_bind b;
	const char *err;
	struct pg_msg m;

	EVERY_PREFIX_FAILS('B', bind_body, pg_parse_bind(&m, &b, &err));
	/* a parameter length beyond the message */
	m = msg('B', LIT("\0\0\0\0\0\1\0\0\0\x50"
			 "ab\0\0"));
	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_ERR);
	/* a negative length other than -1 */
	m = msg('B', LIT("\0\0\0\0\0\1\x80\0\0\0\0\0"));
	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_ERR);
	/* two formats for three parameters */
	m = msg('B', LIT("\0\0\0\2\0\0\0\0\0\3\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\0\0"));
	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_ERR);
	/* a format that is neither text nor binary */
	m = msg('B', LIT("\0\0\0\1\0\2\0\0\0\0"));
	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_ERR);
	m = msg('B', LIT("\0\0\0\0\0\0\0\1\0\7"));
	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_ERR);
	/* trailing bytes after the result formats */
	m = msg('B', LIT("\0\0\0\0\0\0\0\0x"));
	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_ERR);
	/* the smallest valid Bind */
	m = msg('B', LIT("\0\0\0\0\0\0\0\0"));
	assert_int_equal(pg_parse_bind(&m, &b, &err), PG_OK);
}

static void test_describe_close_execute(void **state)
{
	struct pg_msg m;
	const char *name, *err;
	char kind;
	uint32_t max_rows;

	m = msg('D', LIT("Ps1\0"));
	assert_int_equal(pg_parse_describe(&m, &kind, &name, &err), PG_OK);
	assert_int_equal(kind, 'P');
	assert_string_equal(name, "s1");
	m = msg('C', LIT("S\0"));
	assert_int_equal(pg_parse_describe(&m, &kind, &name, &err), PG_OK);
	assert_string_equal(name, "");
	m = msg('D', LIT("X\0"));
	assert_int_equal(pg_parse_describe(&m, &kind, &name, &err), PG_ERR);
	m = msg('D', LIT("Pabc"));
	assert_int_equal(pg_parse_describe(&m, &kind, &name, &err), PG_ERR);
	m = msg('D', LIT("P\0junk"));
	assert_int_equal(pg_parse_describe(&m, &kind, &name, &err), PG_ERR);
	m = msg('D', LIT("P"));
	assert_int_equal(pg_parse_describe(&m, &kind, &name, &err), PG_ERR);

	m = msg('E', LIT("p\0\0\0\0\5"));
	assert_int_equal(pg_parse_execute(&m, &name, &max_rows, &err), PG_OK);
	assert_string_equal(name, "p");
	assert_int_equal(max_rows, 5);
	EVERY_PREFIX_FAILS('E', "p\0\0\0\0\5", pg_parse_execute(&m, &name, &max_rows, &err));
	m = msg('E', LIT("\0\xff\xff\xff\xff"));
	assert_int_equal(pg_parse_execute(&m, &name, &max_rows, &err), PG_ERR);
	m = msg('E', LIT("\0\0\0\0\0\0"));
	assert_int_equal(pg_parse_execute(&m, &name, &max_rows, &err), PG_ERR);
}

static void test_replies(void **state)
{
	struct wbuf w;
	const uint32_t oids[2] = {23, 25};

	wbuf_init(&w);
	pg_put_parse_complete(&w);
	pg_put_bind_complete(&w);
	pg_put_close_complete(&w);
	pg_put_no_data(&w);
	pg_put_portal_suspended(&w);
	pg_put_parameter_description(&w, oids, 2);
	assert_false(w.failed);
	assert_int_equal(w.len, 5 * 5 + 1 + 4 + 2 + 8);
	assert_memory_equal(w.data,
			    "1\0\0\0\4"
			    "2\0\0\0\4"
			    "3\0\0\0\4"
			    "n\0\0\0\4"
			    "s\0\0\0\4"
			    "t\0\0\0\16\0\2\0\0\0\27\0\0\0\31",
			    (size_t)w.len);
	wbuf_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_bind_ok),
		cmocka_unit_test(test_bind_malformed),
		cmocka_unit_test(test_describe_close_execute),
		cmocka_unit_test(test_replies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
