/*
 * test_frame: the job/result frame codec. Round trips for every frame
 * type (the MySQL additions too: 'K', the warning count in 'C', my_errno
 * in 'E'/'N'), then malformed input: truncations, oversize lengths,
 * unknown types, counts larger than what is present, overrunning strings
 * and values, trailing bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/frame.h"

/* A frame over raw payload bytes, as a decoder sees it after frame_peek. */
static struct frame raw(uint8_t type, const void *payload, size_t len)
{
	struct frame f = {.type = type, .len = (uint32_t)len, .payload = payload};

	return f;
}

/* Peeks the single frame in b and checks it spans the whole buffer. */
static struct frame peek_whole(const struct wbuf *b)
{
	struct frame f;
	size_t used = 0;

	assert_false(b->failed);
	assert_int_equal(frame_peek(b->data, b->len, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
	assert_int_equal(used, b->len);
	return f;
}

static bool str_is(const struct frame_str *s, const char *want)
{
	return s->len == strlen(want) && memcmp(s->ptr, want, s->len) == 0;
}

/* Every proper prefix of a valid frame is NEED_MORE, never ERR or OK. */
static void check_prefixes(const struct wbuf *b)
{
	struct frame f;
	size_t n, used;

	for (n = 0; n < b->len; n++) {
		used = 0;
		assert_int_equal(frame_peek(b->data, n, FRAME_MAX_PAYLOAD, &f, &used), FRAME_NEED_MORE);
		if (n >= FRAME_HEADER_LEN)
			assert_int_equal(used, b->len);
		else
			assert_int_equal(used, FRAME_HEADER_LEN);
	}
}

static void build_job(struct wbuf *b)
{
	frame_begin(b, FRAME_JOB);
	frame_put_u16(b, 3);
	frame_put_cstr(b, "engine");
	frame_put_cstr(b, "postgres");
	frame_put_cstr(b, "sql");
	frame_put_cstr(b, "SELECT 1");
	frame_put_cstr(b, "set.search_path");
	frame_put_cstr(b, "");
	frame_end(b);
}

static void test_job_roundtrip(void **state)
{
	struct wbuf b;
	struct frame_job *job = malloc(sizeof(*job));
	struct frame f;
	const struct frame_str *v;

	assert_non_null(job);
	wbuf_init(&b);
	build_job(&b);
	f = peek_whole(&b);
	assert_int_equal(f.type, FRAME_JOB);
	assert_int_equal(frame_decode_job(&f, job), FRAME_OK);
	assert_int_equal(job->npairs, 3);
	v = frame_job_get(job, "sql");
	assert_non_null(v);
	assert_true(str_is(v, "SELECT 1"));
	v = frame_job_get(job, "set.search_path");
	assert_non_null(v);
	assert_int_equal(v->len, 0);
	assert_null(frame_job_get(job, "password"));
	assert_null(frame_job_get(job, "sq"));
	check_prefixes(&b);
	wbuf_free(&b);
	free(job);
}

static void test_cancel_roundtrip(void **state)
{
	struct wbuf b;
	struct frame f;
	static const uint8_t one = 0;

	wbuf_init(&b);
	frame_begin(&b, FRAME_CANCEL);
	frame_end(&b);
	assert_int_equal(b.len, FRAME_HEADER_LEN);
	f = peek_whole(&b);
	assert_int_equal(frame_check_cancel(&f), FRAME_OK);
	check_prefixes(&b);
	f = raw(FRAME_CANCEL, &one, 1);
	assert_int_equal(frame_check_cancel(&f), FRAME_ERR);
	f = raw(FRAME_ROW, NULL, 0);
	assert_int_equal(frame_check_cancel(&f), FRAME_ERR);
	wbuf_free(&b);
}

static void test_backend_roundtrip(void **state)
{
	struct wbuf b;
	struct frame f;
	struct frame_backend be;
	static const uint8_t zero[4] = {0, 0, 0, 0}, neg[4] = {0x80, 0, 0, 1}, longer[5] = {0, 0, 0, 1, 0};
	/* pid 1, then a salt of 3, 4 and 89 characters, each with 4096 iterations, and one with 0. */
	static const uint8_t salt3[] = {0, 0, 0, 1, 0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0x10, 0};
	static const uint8_t salt4[] = {0, 0, 0, 1, 0, 0, 0, 4, 'a', 'b', 'c', 'd', 0, 0, 0x10, 0};
	static const uint8_t iter0[] = {0, 0, 0, 1, 0, 0, 0, 4, 'a', 'b', 'c', 'd', 0, 0, 0, 0};
	uint8_t salt89[4 + 4 + 89 + 4] = {0, 0, 0, 1, 0, 0, 0, 89};

	wbuf_init(&b);
	frame_begin(&b, FRAME_BACKEND);
	frame_put_u32(&b, 4242);
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_OK);
	assert_int_equal(be.pid, 4242);
	assert_int_equal(be.salt.len, 0);
	check_prefixes(&b);
	wbuf_free(&b);
	wbuf_init(&b);
	frame_begin(&b, FRAME_BACKEND);
	frame_put_u32(&b, 4243);
	frame_put_cstr(&b, "c2FsdHNhbHQ=");
	frame_put_u32(&b, 4096);
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_OK);
	assert_int_equal(be.pid, 4243);
	assert_int_equal(be.salt.len, 12);
	assert_memory_equal(be.salt.ptr, "c2FsdHNhbHQ=", 12);
	assert_int_equal(be.iterations, 4096);
	check_prefixes(&b);
	/* No pid 0, none above a pid_t, nothing short or long, no other type. */
	f = raw(FRAME_BACKEND, zero, 4);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	assert_int_equal(be.pid, 0);
	f = raw(FRAME_BACKEND, neg, 4);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	f = raw(FRAME_BACKEND, longer, 5);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	f = raw(FRAME_BACKEND, longer, 3);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	f = raw(FRAME_CANCEL, longer + 1, 4);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	/* A salt too short or too long, no iterations or 0 of them, a byte past them. */
	f = raw(FRAME_BACKEND, salt3, sizeof(salt3));
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	f = raw(FRAME_BACKEND, salt4, sizeof(salt4));
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_OK);
	f = raw(FRAME_BACKEND, salt4, sizeof(salt4) - 1);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	assert_int_equal(be.salt.len, 0);
	f = raw(FRAME_BACKEND, salt4, 12);
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	f = raw(FRAME_BACKEND, iter0, sizeof(iter0));
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	memset(salt89 + 8, 'a', 89);
	salt89[sizeof(salt89) - 1] = 1;
	f = raw(FRAME_BACKEND, salt89, sizeof(salt89));
	assert_int_equal(frame_decode_backend(&f, &be), FRAME_ERR);
	wbuf_free(&b);
}

static void build_rowdesc(struct wbuf *b)
{
	frame_begin(b, FRAME_ROWDESC);
	frame_put_u16(b, 2);
	frame_put_cstr(b, "id");
	frame_put_u32(b, 16390);
	frame_put_i16(b, 1);
	frame_put_u32(b, 23);
	frame_put_i16(b, 4);
	frame_put_i32(b, -1);
	frame_put_i16(b, 0);
	frame_put_cstr(b, "");
	frame_put_u32(b, 0);
	frame_put_i16(b, 0);
	frame_put_u32(b, 1043);
	frame_put_i16(b, -1);
	frame_put_i32(b, 36);
	frame_put_i16(b, 0);
	frame_end(b);
}

static void test_rowdesc_roundtrip(void **state)
{
	struct wbuf b;
	struct frame f;
	struct rbuf cur;
	struct frame_column col;
	uint16_t n;

	wbuf_init(&b);
	build_rowdesc(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(n, 2);
	assert_int_equal(frame_rowdesc_next(&cur, &col), FRAME_OK);
	assert_true(str_is(&col.name, "id"));
	assert_int_equal(col.table_oid, 16390);
	assert_int_equal(col.attnum, 1);
	assert_int_equal(col.type_oid, 23);
	assert_int_equal(col.typlen, 4);
	assert_int_equal(col.typmod, -1);
	assert_int_equal(col.format, 0);
	assert_int_equal(frame_rowdesc_next(&cur, &col), FRAME_OK);
	assert_int_equal(col.name.len, 0);
	assert_int_equal(col.type_oid, 1043);
	assert_int_equal(col.typlen, -1);
	assert_int_equal(col.typmod, 36);
	/* Past the last column the cursor has nothing left. */
	assert_int_equal(frame_rowdesc_next(&cur, &col), FRAME_ERR);
	check_prefixes(&b);
	wbuf_free(&b);
}

static void build_row(struct wbuf *b)
{
	frame_begin(b, FRAME_ROW);
	frame_put_u16(b, 3);
	frame_put_i32(b, 2);
	frame_put_bytes(b, "42", 2);
	frame_put_i32(b, -1);
	frame_put_i32(b, 0);
	frame_end(b);
}

static void test_row_roundtrip(void **state)
{
	struct wbuf b;
	struct frame f;
	uint16_t n = 99;

	wbuf_init(&b);
	build_row(&b);
	f = peek_whole(&b);
	assert_int_equal(f.len, 2 + 4 + 2 + 4 + 4);
	assert_int_equal(frame_row_check(&f, &n), FRAME_OK);
	assert_int_equal(n, 3);
	check_prefixes(&b);
	wbuf_free(&b);
}

/* The row's values one at a time: a value, SQL NULL, an empty value, then nothing more. */
static void test_row_values(void **state)
{
	static const uint8_t bad_len[] = {0, 1, 0xff, 0xff, 0xff, 0xfe}; /* -2 */
	static const uint8_t short_value[] = {0, 1, 0, 0, 0, 3, 'a', 'b'};
	struct wbuf b;
	struct frame f;
	struct rbuf cur;
	const uint8_t *v;
	uint32_t len;
	uint16_t n;

	wbuf_init(&b);
	build_row(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_row_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(n, 3);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_OK);
	assert_int_equal(len, 2);
	assert_memory_equal(v, "42", 2);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_OK);
	assert_null(v);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_OK);
	assert_non_null(v);
	assert_int_equal(len, 0);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_ERR);
	f.type = FRAME_ROWDESC;
	assert_int_equal(frame_row_begin(&f, &n, &cur), FRAME_ERR);
	wbuf_free(&b);

	f = (struct frame){.type = FRAME_ROW, .len = sizeof(bad_len), .payload = bad_len};
	assert_int_equal(frame_row_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_ERR);
	f = (struct frame){.type = FRAME_ROW, .len = sizeof(short_value), .payload = short_value};
	assert_int_equal(frame_row_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(frame_row_next(&cur, &v, &len), FRAME_ERR);
	f = (struct frame){.type = FRAME_ROW, .len = 1, .payload = short_value};
	assert_int_equal(frame_row_begin(&f, &n, &cur), FRAME_ERR);
}

static void test_paramdesc(void **state)
{
	static const uint8_t short_oid[] = {0, 2, 0, 0, 0, 23, 0, 0};
	static const uint8_t extra[] = {0, 1, 0, 0, 0, 23, 0};
	static const uint8_t none[] = {0, 0};
	struct wbuf b;
	struct frame f;
	struct rbuf cur;
	uint16_t n;
	uint32_t oid;

	(void)state;
	wbuf_init(&b);
	frame_begin(&b, FRAME_PARAMDESC);
	frame_put_u16(&b, 2);
	frame_put_u32(&b, 23);
	frame_put_u32(&b, 1043);
	frame_end(&b);
	f = peek_whole(&b);
	check_prefixes(&b);
	assert_int_equal(frame_paramdesc_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(n, 2);
	assert_int_equal(frame_paramdesc_next(&cur, &oid), FRAME_OK);
	assert_int_equal(oid, 23);
	assert_int_equal(frame_paramdesc_next(&cur, &oid), FRAME_OK);
	assert_int_equal(oid, 1043);
	assert_int_equal(frame_paramdesc_next(&cur, &oid), FRAME_ERR);
	wbuf_free(&b);

	f = raw(FRAME_PARAMDESC, short_oid, sizeof(short_oid));
	assert_int_equal(frame_paramdesc_begin(&f, &n, &cur), FRAME_ERR);
	assert_int_equal(n, 0);
	f = raw(FRAME_PARAMDESC, extra, sizeof(extra));
	assert_int_equal(frame_paramdesc_begin(&f, &n, &cur), FRAME_ERR);
	f = raw(FRAME_PARAMDESC, short_oid, 1);
	assert_int_equal(frame_paramdesc_begin(&f, &n, &cur), FRAME_ERR);
	f = raw(FRAME_ROWDESC, short_oid, 2);
	assert_int_equal(frame_paramdesc_begin(&f, &n, &cur), FRAME_ERR);
	f = raw(FRAME_PARAMDESC, none, sizeof(none));
	assert_int_equal(frame_paramdesc_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(n, 0);
	assert_int_equal(frame_paramdesc_next(&cur, &oid), FRAME_ERR);
}

static void test_complete_roundtrip(void **state)
{
	struct wbuf b;
	struct frame f;
	struct frame_complete c;

	wbuf_init(&b);
	frame_begin(&b, FRAME_COMPLETE);
	frame_put_u64(&b, UINT64_C(0x0102030405060708));
	frame_put_u8(&b, FRAME_TRUNC_MAX_BYTES);
	frame_put_cstr(&b, "SELECT 3");
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_decode_complete(&f, &c), FRAME_OK);
	assert_true(c.rows == UINT64_C(0x0102030405060708));
	assert_int_equal(c.truncated, FRAME_TRUNC_MAX_BYTES);
	assert_true(str_is(&c.tag, "SELECT 3"));
	assert_int_equal(c.warnings, 0);
	check_prefixes(&b);
	wbuf_free(&b);
}

/* The MySQL runner's 'C' frame: the same layout plus a u16 warning count. */
static void test_complete_warnings(void **state)
{
	struct wbuf b;
	struct frame f, t;
	struct frame_complete c;
	uint8_t *copy;

	wbuf_init(&b);
	frame_begin(&b, FRAME_COMPLETE);
	frame_put_u64(&b, 2);
	frame_put_u8(&b, FRAME_TRUNC_NONE);
	frame_put_cstr(&b, "SELECT 2");
	frame_put_u16(&b, 0xfffe);
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_decode_complete(&f, &c), FRAME_OK);
	assert_true(c.rows == 2);
	assert_true(str_is(&c.tag, "SELECT 2"));
	assert_int_equal(c.warnings, 0xfffe);
	check_prefixes(&b);
	/* Half a warning count, and bytes after it. */
	t = raw(FRAME_COMPLETE, f.payload, f.len - 1);
	assert_int_equal(frame_decode_complete(&t, &c), FRAME_ERR);
	copy = malloc(f.len + 1);
	assert_non_null(copy);
	memcpy(copy, f.payload, f.len);
	copy[f.len] = 0;
	t = raw(FRAME_COMPLETE, copy, f.len + 1);
	assert_int_equal(frame_decode_complete(&t, &c), FRAME_ERR);
	/* Without the count it is the Postgres frame: warnings read as 0. */
	c.warnings = 7;
	t = raw(FRAME_COMPLETE, f.payload, f.len - 2);
	assert_int_equal(frame_decode_complete(&t, &c), FRAME_OK);
	assert_int_equal(c.warnings, 0);
	free(copy);
	wbuf_free(&b);
}

static void build_error(struct wbuf *b, uint8_t type, const char *sqlstate)
{
	frame_begin(b, type);
	frame_put_cstr(b, sqlstate);
	frame_put_cstr(b, "TIMEOUT");
	frame_put_cstr(b, "statement exceeded the timeout of 1000 ms");
	frame_put_cstr(b, NULL);
	frame_put_cstr(b, "add a LIMIT");
	frame_end(b);
}

static void test_error_roundtrip(void **state)
{
	struct wbuf b;
	struct frame f;
	struct frame_error e;
	uint8_t types[2] = {FRAME_ERROR, FRAME_NOTICE};
	int i;

	for (i = 0; i < 2; i++) {
		wbuf_init(&b);
		build_error(&b, types[i], "57014");
		f = peek_whole(&b);
		assert_int_equal(f.type, types[i]);
		assert_int_equal(frame_decode_error(&f, &e), FRAME_OK);
		assert_true(str_is(&e.sqlstate, "57014"));
		assert_true(str_is(&e.code, "TIMEOUT"));
		assert_true(frame_error_coded(&e, "TIMEOUT"));
		assert_false(frame_error_coded(&e, "TIMEOUTS"));
		assert_false(frame_error_coded(&e, "TIME"));
		assert_true(str_is(&e.message, "statement exceeded the timeout of 1000 ms"));
		assert_int_equal(e.detail.len, 0);
		assert_true(str_is(&e.hint, "add a LIMIT"));
		assert_int_equal(e.position.len, 0);
		assert_int_equal(e.my_errno.len, 0);
		check_prefixes(&b);
		wbuf_free(&b);
	}
	/* The SQLSTATE must be five upper-case letters or digits. */
	wbuf_init(&b);
	build_error(&b, FRAME_ERROR, "5701");
	f = peek_whole(&b);
	assert_int_equal(frame_decode_error(&f, &e), FRAME_ERR);
	wbuf_free(&b);
	wbuf_init(&b);
	build_error(&b, FRAME_ERROR, "57a14");
	f = peek_whole(&b);
	assert_int_equal(frame_decode_error(&f, &e), FRAME_ERR);
	wbuf_free(&b);
}

static void test_peek_limits(void **state)
{
	uint8_t hdr[FRAME_HEADER_LEN + 4] = {FRAME_ROW, 0, 0, 0, 4, 0, 1, 0, 0};
	uint8_t big[FRAME_HEADER_LEN] = {FRAME_JOB, 0x01, 0x00, 0x00, 0x01};
	uint8_t two[2 * FRAME_HEADER_LEN] = {FRAME_CANCEL, 0, 0, 0, 0, FRAME_CANCEL, 0, 0, 0, 0};
	uint8_t bad = 'Q';
	struct frame f;
	size_t used;

	/* Length over the caller's maximum, and over the absolute maximum. */
	assert_int_equal(frame_peek(hdr, sizeof(hdr), 3, &f, &used), FRAME_ERR);
	assert_int_equal(frame_peek(hdr, sizeof(hdr), 4, &f, &used), FRAME_OK);
	assert_int_equal(frame_peek(big, sizeof(big), UINT32_MAX, &f, &used), FRAME_ERR);
	/* Exactly FRAME_MAX_PAYLOAD + 1. */
	big[1] = (uint8_t)((FRAME_MAX_PAYLOAD + 1) >> 24);
	big[2] = (uint8_t)((FRAME_MAX_PAYLOAD + 1) >> 16);
	big[3] = (uint8_t)((FRAME_MAX_PAYLOAD + 1) >> 8);
	big[4] = (uint8_t)(FRAME_MAX_PAYLOAD + 1);
	assert_int_equal(frame_peek(big, sizeof(big), UINT32_MAX, &f, &used), FRAME_ERR);
	/* Unknown type, even before the header is complete. */
	assert_int_equal(frame_peek(&bad, 1, FRAME_MAX_PAYLOAD, &f, &used), FRAME_ERR);
	hdr[0] = 0;
	assert_int_equal(frame_peek(hdr, sizeof(hdr), FRAME_MAX_PAYLOAD, &f, &used), FRAME_ERR);
	/* Two frames back to back: only the first is consumed. */
	assert_int_equal(frame_peek(two, sizeof(two), FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
	assert_int_equal(used, FRAME_HEADER_LEN);
	assert_int_equal(frame_peek(NULL, 0, FRAME_MAX_PAYLOAD, &f, &used), FRAME_NEED_MORE);
}

static void test_wrong_type(void **state)
{
	struct wbuf b;
	struct frame f;
	struct frame_job *job = malloc(sizeof(*job));
	struct frame_complete c;
	struct frame_error e;
	struct rbuf cur;
	uint16_t n;

	assert_non_null(job);
	wbuf_init(&b);
	build_row(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	assert_int_equal(frame_decode_complete(&f, &c), FRAME_ERR);
	assert_int_equal(frame_decode_error(&f, &e), FRAME_ERR);
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_ERR);
	assert_int_equal(frame_mycols_begin(&f, &n, &cur), FRAME_ERR);
	f.type = FRAME_ROWDESC;
	assert_int_equal(frame_row_check(&f, &n), FRAME_ERR);
	wbuf_free(&b);
	free(job);
}

static void test_job_malformed(void **state)
{
	struct frame_job *job = malloc(sizeof(*job));
	/* Says 2 pairs, holds 1. */
	static const uint8_t short_pairs[] = {0, 2, 0, 0, 0, 1, 'a', 0, 0, 0, 1, 'b'};
	/* Key length runs past the payload. */
	static const uint8_t key_overrun[] = {0, 1, 0, 0, 0, 9, 'a', 0, 0, 0, 0};
	/* Value length runs past the payload. */
	static const uint8_t val_overrun[] = {0, 1, 0, 0, 0, 1, 'a', 0xff, 0xff, 0xff, 0xff};
	/* One pair and a trailing byte. */
	static const uint8_t trailing[] = {0, 1, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 'x'};
	/* Same key twice. */
	static const uint8_t dup[] = {0, 2, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0, 0, 0, 1, 'a', 0, 0, 0, 0};
	static const uint8_t ok[] = {0, 1, 0, 0, 0, 1, 'a', 0, 0, 0, 0};
	static const uint8_t empty[] = {0};
	uint8_t *many;
	struct frame f;
	size_t i, len;

	assert_non_null(job);
	f = raw(FRAME_JOB, ok, sizeof(ok));
	assert_int_equal(frame_decode_job(&f, job), FRAME_OK);
	/* The connect frame has the job's layout. */
	f = raw(FRAME_CONNECT, ok, sizeof(ok));
	assert_int_equal(frame_decode_job(&f, job), FRAME_OK);
	f = raw(FRAME_CONNECT, key_overrun, sizeof(key_overrun));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	f = raw(FRAME_CANCEL, ok, sizeof(ok));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	f = raw(FRAME_JOB, short_pairs, sizeof(short_pairs));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	assert_int_equal(job->npairs, 0);
	f = raw(FRAME_JOB, key_overrun, sizeof(key_overrun));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	f = raw(FRAME_JOB, val_overrun, sizeof(val_overrun));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	f = raw(FRAME_JOB, trailing, sizeof(trailing));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	f = raw(FRAME_JOB, dup, sizeof(dup));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	f = raw(FRAME_JOB, empty, sizeof(empty));
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	/* Every truncation of a valid payload fails. */
	for (i = 0; i < sizeof(ok); i++) {
		f = raw(FRAME_JOB, ok, i);
		assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	}

	/* More pairs than FRAME_MAX_PAIRS, each well formed. */
	len = 2 + (FRAME_MAX_PAIRS + 1) * 10;
	many = calloc(1, len);
	assert_non_null(many);
	many[0] = (uint8_t)((FRAME_MAX_PAIRS + 1) >> 8);
	many[1] = (uint8_t)(FRAME_MAX_PAIRS + 1);
	for (i = 0; i < FRAME_MAX_PAIRS + 1; i++) {
		uint8_t *p = many + 2 + i * 10;

		p[3] = 2; /* key: two bytes, unique */
		p[4] = (uint8_t)(i >> 8);
		p[5] = (uint8_t)i;
		/* value: empty (p[6..9] = 0) */
	}
	f = raw(FRAME_JOB, many, len);
	assert_int_equal(frame_decode_job(&f, job), FRAME_ERR);
	/* Exactly FRAME_MAX_PAIRS is fine. */
	many[0] = (uint8_t)(FRAME_MAX_PAIRS >> 8);
	many[1] = (uint8_t)FRAME_MAX_PAIRS;
	f = raw(FRAME_JOB, many, len - 10);
	assert_int_equal(frame_decode_job(&f, job), FRAME_OK);
	assert_int_equal(job->npairs, FRAME_MAX_PAIRS);
	free(many);
	free(job);
}

static void test_rowdesc_malformed(void **state)
{
	struct wbuf b;
	struct frame f;
	struct rbuf cur;
	struct frame_column col;
	uint16_t n;
	size_t i;
	uint8_t *copy;

	/* ncols above FRAME_MAX_COLS, with enough bytes to hold them. */
	wbuf_init(&b);
	frame_begin(&b, FRAME_ROWDESC);
	frame_put_u16(&b, FRAME_MAX_COLS + 1);
	for (i = 0; i < FRAME_MAX_COLS + 1; i++) {
		frame_put_cstr(&b, "");
		frame_put_u32(&b, 0);
		frame_put_i16(&b, 0);
		frame_put_u32(&b, 25);
		frame_put_i16(&b, -1);
		frame_put_i32(&b, -1);
		frame_put_i16(&b, 0);
	}
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_ERR);
	assert_int_equal(n, 0);
	assert_int_equal(frame_rowdesc_next(&cur, &col), FRAME_ERR);
	wbuf_free(&b);

	wbuf_init(&b);
	build_rowdesc(&b);
	f = peek_whole(&b);
	/* Every truncated payload and a trailing byte both fail. */
	for (i = 0; i < f.len; i++) {
		struct frame t = raw(FRAME_ROWDESC, f.payload, i);

		assert_int_equal(frame_rowdesc_begin(&t, &n, &cur), FRAME_ERR);
	}
	copy = malloc(f.len + 1);
	assert_non_null(copy);
	memcpy(copy, f.payload, f.len);
	copy[f.len] = 0;
	f = raw(FRAME_ROWDESC, copy, b.len - FRAME_HEADER_LEN + 1);
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_ERR);
	/* ncols says 3 while 2 columns are present. */
	copy[1] = 3;
	f = raw(FRAME_ROWDESC, copy, b.len - FRAME_HEADER_LEN);
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_ERR);
	/* Name length overrunning the payload. */
	copy[1] = 2;
	copy[2] = 0x7f;
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_ERR);
	/* Binary is a format; 2 is none. */
	memcpy(copy, b.data + FRAME_HEADER_LEN, b.len - FRAME_HEADER_LEN);
	copy[b.len - FRAME_HEADER_LEN - 1] = 1;
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_OK);
	copy[b.len - FRAME_HEADER_LEN - 1] = 2;
	assert_int_equal(frame_rowdesc_begin(&f, &n, &cur), FRAME_ERR);
	free(copy);
	wbuf_free(&b);
}

static void test_row_malformed(void **state)
{
	/* ncols 2, one value present. */
	static const uint8_t missing[] = {0, 2, 0, 0, 0, 1, 'x'};
	/* ncols 1, two values present (trailing bytes). */
	static const uint8_t extra[] = {0, 1, 0, 0, 0, 1, 'x', 0xff, 0xff, 0xff, 0xff};
	/* Value length past the payload. */
	static const uint8_t overrun[] = {0, 1, 0, 0, 0, 2, 'x'};
	/* Negative lengths other than -1. */
	static const uint8_t neg2[] = {0, 1, 0xff, 0xff, 0xff, 0xfe};
	static const uint8_t negmin[] = {0, 1, 0x80, 0, 0, 0};
	/* Huge positive length. */
	static const uint8_t huge[] = {0, 1, 0x7f, 0xff, 0xff, 0xff, 'x'};
	/* Trailing garbage after a NULL. */
	static const uint8_t trail[] = {0, 1, 0xff, 0xff, 0xff, 0xff, 0};
	static const uint8_t ok[] = {0, 2, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 'x'};
	static const uint8_t zero[] = {0, 0};
	static const uint8_t one[] = {0};
	struct frame f;
	uint16_t n;
	size_t i;

	f = raw(FRAME_ROW, ok, sizeof(ok));
	assert_int_equal(frame_row_check(&f, &n), FRAME_OK);
	assert_int_equal(n, 2);
	f = raw(FRAME_ROW, zero, sizeof(zero));
	assert_int_equal(frame_row_check(&f, &n), FRAME_OK);
	assert_int_equal(n, 0);
	for (i = 0; i < sizeof(ok); i++) {
		f = raw(FRAME_ROW, ok, i);
		assert_int_equal(frame_row_check(&f, &n), FRAME_ERR);
	}
#define BAD(a)                                                        \
	do {                                                          \
		f = raw(FRAME_ROW, a, sizeof(a));                     \
		assert_int_equal(frame_row_check(&f, &n), FRAME_ERR); \
	} while (0)
	BAD(missing);
	BAD(extra);
	BAD(overrun);
	BAD(neg2);
	BAD(negmin);
	BAD(huge);
	BAD(trail);
	BAD(one);
#undef BAD
}

static void test_row_too_many_cols(void **state)
{
	size_t len = 2 + (FRAME_MAX_COLS + 1) * 4, i;
	uint8_t *p = malloc(len);
	struct frame f;
	uint16_t n;

	assert_non_null(p);
	p[0] = (uint8_t)((FRAME_MAX_COLS + 1) >> 8);
	p[1] = (uint8_t)(FRAME_MAX_COLS + 1);
	for (i = 2; i < len; i++)
		p[i] = 0xff; /* all NULL */
	f = raw(FRAME_ROW, p, len);
	assert_int_equal(frame_row_check(&f, &n), FRAME_ERR);
	p[0] = (uint8_t)(FRAME_MAX_COLS >> 8);
	p[1] = (uint8_t)FRAME_MAX_COLS;
	f = raw(FRAME_ROW, p, len - 4);
	assert_int_equal(frame_row_check(&f, &n), FRAME_OK);
	assert_int_equal(n, FRAME_MAX_COLS);
	free(p);
}

static void test_complete_malformed(void **state)
{
	uint8_t p[8 + 1 + 4 + 2] = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 'o', 'k'};
	uint8_t longer[sizeof(p) + 1];
	struct frame f;
	struct frame_complete c;
	size_t i;

	f = raw(FRAME_COMPLETE, p, sizeof(p));
	assert_int_equal(frame_decode_complete(&f, &c), FRAME_OK);
	for (i = 0; i < sizeof(p); i++) {
		f = raw(FRAME_COMPLETE, p, i);
		assert_int_equal(frame_decode_complete(&f, &c), FRAME_ERR);
	}
	memcpy(longer, p, sizeof(p));
	longer[sizeof(p)] = 'x';
	f = raw(FRAME_COMPLETE, longer, sizeof(longer));
	assert_int_equal(frame_decode_complete(&f, &c), FRAME_ERR);
	p[8] = 3; /* unknown truncation reason */
	f = raw(FRAME_COMPLETE, p, sizeof(p));
	assert_int_equal(frame_decode_complete(&f, &c), FRAME_ERR);
	p[8] = 0;
	p[12] = 3; /* tag overruns */
	assert_int_equal(frame_decode_complete(&f, &c), FRAME_ERR);
}

static void test_error_malformed(void **state)
{
	struct wbuf b;
	struct frame f, t;
	struct frame_error e;
	uint8_t *copy;
	size_t i;

	wbuf_init(&b);
	build_error(&b, FRAME_ERROR, "42601");
	f = peek_whole(&b);
	for (i = 0; i < f.len; i++) {
		t = raw(FRAME_ERROR, f.payload, i);
		assert_int_equal(frame_decode_error(&t, &e), FRAME_ERR);
	}
	copy = malloc(f.len + 1);
	assert_non_null(copy);
	memcpy(copy, f.payload, f.len);
	copy[f.len] = 0;
	t = raw(FRAME_ERROR, copy, f.len + 1);
	assert_int_equal(frame_decode_error(&t, &e), FRAME_ERR);
	/* The message length word made huge. */
	t = raw(FRAME_ERROR, copy, f.len);
	copy[9 + 4 + 7] = 0x7f;
	assert_int_equal(frame_decode_error(&t, &e), FRAME_ERR);
	free(copy);
	wbuf_free(&b);
}

/* The optional position field of an 'E' frame: decimal digits only, at most nine. */
static void test_error_position(void **state)
{
	static const char *const bad[] = {"1x", "-3", "1234567890"};
	struct wbuf b;
	struct frame f;
	struct frame_error e;
	size_t i;

	wbuf_init(&b);
	frame_begin(&b, FRAME_ERROR);
	frame_put_str(&b, "42703", 5);
	frame_put_cstr(&b, "");
	frame_put_cstr(&b, "column \"x\" does not exist");
	frame_put_cstr(&b, "");
	frame_put_cstr(&b, "");
	frame_put_cstr(&b, "17");
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_decode_error(&f, &e), FRAME_OK);
	assert_true(str_is(&e.position, "17"));
	wbuf_free(&b);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wbuf_init(&b);
		frame_begin(&b, FRAME_ERROR);
		frame_put_str(&b, "42703", 5);
		frame_put_cstr(&b, "");
		frame_put_cstr(&b, "m");
		frame_put_cstr(&b, "");
		frame_put_cstr(&b, "");
		frame_put_cstr(&b, bad[i]);
		frame_end(&b);
		f = peek_whole(&b);
		assert_int_equal(frame_decode_error(&f, &e), FRAME_ERR);
		wbuf_free(&b);
	}
}

static void build_error_my(struct wbuf *b, uint8_t type, const char *position, const char *my_errno)
{
	frame_begin(b, type);
	frame_put_str(b, "HY000", 5);
	frame_put_cstr(b, "TIMEOUT");
	frame_put_cstr(b, "Query execution was interrupted, maximum statement execution time exceeded");
	frame_put_cstr(b, "");
	frame_put_cstr(b, "the limit is 2000 ms");
	frame_put_cstr(b, position);
	frame_put_cstr(b, my_errno);
	frame_end(b);
}

/* The optional my_errno after the position: 1 to 5 digits, at most 65535. */
static void test_error_my_errno(void **state)
{
	static const char *const good[] = {"3024", "1", "65535", "01317"};
	static const char *const bad[] = {"", "x", "30a4", "-1", "65536", "99999", "123456", " 1"};
	struct wbuf b;
	struct frame f, t;
	struct frame_error e;
	uint8_t types[2] = {FRAME_ERROR, FRAME_NOTICE};
	uint8_t *copy;
	size_t i;

	for (i = 0; i < 2; i++) {
		wbuf_init(&b);
		build_error_my(&b, types[i], "", "3024");
		f = peek_whole(&b);
		assert_int_equal(frame_decode_error(&f, &e), FRAME_OK);
		assert_true(str_is(&e.sqlstate, "HY000"));
		assert_true(str_is(&e.code, "TIMEOUT"));
		assert_true(str_is(&e.hint, "the limit is 2000 ms"));
		assert_int_equal(e.position.len, 0);
		assert_true(str_is(&e.my_errno, "3024"));
		check_prefixes(&b);
		wbuf_free(&b);
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		wbuf_init(&b);
		build_error_my(&b, FRAME_ERROR, "12", good[i]);
		f = peek_whole(&b);
		assert_int_equal(frame_decode_error(&f, &e), FRAME_OK);
		assert_true(str_is(&e.position, "12"));
		assert_true(str_is(&e.my_errno, good[i]));
		wbuf_free(&b);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		wbuf_init(&b);
		build_error_my(&b, FRAME_ERROR, "", bad[i]);
		f = peek_whole(&b);
		assert_int_equal(frame_decode_error(&f, &e), FRAME_ERR);
		wbuf_free(&b);
	}
	/* A bad position still fails with an errno after it. */
	wbuf_init(&b);
	build_error_my(&b, FRAME_ERROR, "1x", "1064");
	f = peek_whole(&b);
	assert_int_equal(frame_decode_error(&f, &e), FRAME_ERR);
	wbuf_free(&b);
	/* Every truncation inside the errno, and a trailing byte after it, fail. */
	wbuf_init(&b);
	build_error_my(&b, FRAME_ERROR, "", "1064");
	f = peek_whole(&b);
	for (i = f.len - 8 + 1; i < f.len; i++) {
		t = raw(FRAME_ERROR, f.payload, i);
		assert_int_equal(frame_decode_error(&t, &e), FRAME_ERR);
	}
	copy = malloc(f.len + 1);
	assert_non_null(copy);
	memcpy(copy, f.payload, f.len);
	copy[f.len] = '1';
	t = raw(FRAME_ERROR, copy, f.len + 1);
	assert_int_equal(frame_decode_error(&t, &e), FRAME_ERR);
	/* The errno's length word made huge. */
	t = raw(FRAME_ERROR, copy, f.len);
	copy[f.len - 8] = 0x7f;
	assert_int_equal(frame_decode_error(&t, &e), FRAME_ERR);
	free(copy);
	wbuf_free(&b);
}

static void put_mycol(struct wbuf *b, const char *schema, const char *table, const char *name, uint16_t charset,
		      uint32_t length, uint8_t type, uint16_t flags, uint8_t decimals)
{
	frame_put_cstr(b, schema);
	frame_put_cstr(b, table);
	frame_put_cstr(b, table);
	frame_put_cstr(b, name);
	frame_put_cstr(b, name);
	frame_put_u16(b, charset);
	frame_put_u32(b, length);
	frame_put_u8(b, type);
	frame_put_u16(b, flags);
	frame_put_u8(b, decimals);
}

static void build_mycols(struct wbuf *b)
{
	frame_begin(b, FRAME_MYCOLS);
	frame_put_u16(b, 2);
	put_mycol(b, "shop", "orders", "id", 63, 11, 3 /* LONG */, 0x4203, 0);
	/* An expression: no schema or table. */
	put_mycol(b, "", "", "total", 45, 0xfffffffe, 246 /* NEWDECIMAL */, 0x0080, 2);
	frame_end(b);
}

static void test_mycols_roundtrip(void **state)
{
	struct wbuf b;
	struct frame f;
	struct rbuf cur;
	struct frame_mycol col;
	uint16_t n;

	wbuf_init(&b);
	build_mycols(&b);
	f = peek_whole(&b);
	assert_int_equal(f.type, FRAME_MYCOLS);
	assert_int_equal(frame_mycols_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(n, 2);
	assert_int_equal(frame_mycols_next(&cur, &col), FRAME_OK);
	assert_true(str_is(&col.schema, "shop"));
	assert_true(str_is(&col.table, "orders"));
	assert_true(str_is(&col.org_table, "orders"));
	assert_true(str_is(&col.name, "id"));
	assert_true(str_is(&col.org_name, "id"));
	assert_int_equal(col.charset, 63);
	assert_int_equal(col.length, 11);
	assert_int_equal(col.type, 3);
	assert_int_equal(col.flags, 0x4203);
	assert_int_equal(col.decimals, 0);
	assert_int_equal(frame_mycols_next(&cur, &col), FRAME_OK);
	assert_int_equal(col.schema.len, 0);
	assert_int_equal(col.org_table.len, 0);
	assert_true(str_is(&col.name, "total"));
	assert_int_equal(col.charset, 45);
	assert_true(col.length == 0xfffffffeu);
	assert_int_equal(col.type, 246);
	assert_int_equal(col.flags, 0x0080);
	assert_int_equal(col.decimals, 2);
	/* Past the last column the cursor has nothing left. */
	assert_int_equal(frame_mycols_next(&cur, &col), FRAME_ERR);
	check_prefixes(&b);
	wbuf_free(&b);

	/* No columns at all is a valid (if useless) frame. */
	wbuf_init(&b);
	frame_begin(&b, FRAME_MYCOLS);
	frame_put_u16(&b, 0);
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_mycols_begin(&f, &n, &cur), FRAME_OK);
	assert_int_equal(n, 0);
	wbuf_free(&b);
}

static void test_mycols_malformed(void **state)
{
	struct wbuf b;
	struct frame f, t;
	struct rbuf cur;
	struct frame_mycol col;
	uint16_t n;
	size_t i;
	uint8_t *copy;

	/* ncols above FRAME_MAX_COLS, with enough bytes to hold them. */
	wbuf_init(&b);
	frame_begin(&b, FRAME_MYCOLS);
	frame_put_u16(&b, FRAME_MAX_COLS + 1);
	for (i = 0; i < FRAME_MAX_COLS + 1; i++)
		put_mycol(&b, "", "", "", 0, 0, 0, 0, 0);
	frame_end(&b);
	f = peek_whole(&b);
	assert_int_equal(frame_mycols_begin(&f, &n, &cur), FRAME_ERR);
	assert_int_equal(n, 0);
	assert_int_equal(frame_mycols_next(&cur, &col), FRAME_ERR);
	/* Exactly FRAME_MAX_COLS is fine. */
	copy = malloc(f.len);
	assert_non_null(copy);
	memcpy(copy, f.payload, f.len);
	copy[0] = (uint8_t)(FRAME_MAX_COLS >> 8);
	copy[1] = (uint8_t)FRAME_MAX_COLS;
	t = raw(FRAME_MYCOLS, copy, f.len - 30);
	assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_OK);
	assert_int_equal(n, FRAME_MAX_COLS);
	free(copy);
	wbuf_free(&b);

	wbuf_init(&b);
	build_mycols(&b);
	f = peek_whole(&b);
	/* Every truncated payload fails, and so does a trailing byte. */
	for (i = 0; i < f.len; i++) {
		t = raw(FRAME_MYCOLS, f.payload, i);
		assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_ERR);
	}
	copy = malloc(f.len + 1);
	assert_non_null(copy);
	memcpy(copy, f.payload, f.len);
	copy[f.len] = 0;
	t = raw(FRAME_MYCOLS, copy, f.len + 1);
	assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_ERR);
	/* ncols says 3 while 2 columns are present; says 1 while 2 are. */
	t = raw(FRAME_MYCOLS, copy, f.len);
	copy[1] = 3;
	assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_ERR);
	copy[1] = 1;
	assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_ERR);
	/* The schema's length word overrunning the payload. */
	copy[1] = 2;
	copy[2] = 0x7f;
	assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_ERR);
	/* The other column decoders refuse it, and it refuses their frames. */
	memcpy(copy, f.payload, f.len);
	t = raw(FRAME_MYCOLS, copy, f.len);
	assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_OK);
	assert_int_equal(frame_rowdesc_begin(&t, &n, &cur), FRAME_ERR);
	assert_int_equal(frame_row_check(&t, &n), FRAME_ERR);
	t.type = FRAME_ROWDESC;
	assert_int_equal(frame_mycols_begin(&t, &n, &cur), FRAME_ERR);
	free(copy);
	wbuf_free(&b);
	wbuf_init(&b);
	build_rowdesc(&b);
	f = peek_whole(&b);
	f.type = FRAME_MYCOLS;
	assert_int_equal(frame_mycols_begin(&f, &n, &cur), FRAME_ERR);
	wbuf_free(&b);
}

static void test_writer_limits(void **state)
{
	struct wbuf b;
	uint8_t *blob = calloc(1, FRAME_MAX_PAYLOAD);

	assert_non_null(blob);
	/* A payload of exactly FRAME_MAX_PAYLOAD is fine. */
	wbuf_init(&b);
	frame_begin(&b, FRAME_ROW);
	frame_put_bytes(&b, blob, FRAME_MAX_PAYLOAD);
	frame_end(&b);
	assert_false(b.failed);
	assert_int_equal(b.len, FRAME_HEADER_LEN + FRAME_MAX_PAYLOAD);
	/* One more byte sets the sticky failure, and it stays until reset. */
	wbuf_reset(&b);
	frame_begin(&b, FRAME_ROW);
	frame_put_bytes(&b, blob, FRAME_MAX_PAYLOAD);
	frame_put_u8(&b, 0);
	frame_end(&b);
	assert_true(b.failed);
	frame_put_u8(&b, 0);
	assert_true(b.failed);
	wbuf_reset(&b);
	assert_false(b.failed);
	assert_int_equal(b.len, 0);
	/* Several frames in one buffer each get their own length. */
	build_row(&b);
	build_job(&b);
	assert_false(b.failed);
	{
		struct frame f;
		size_t used, off = 0;
		uint16_t n;

		assert_int_equal(frame_peek(b.data, b.len, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
		assert_int_equal(frame_row_check(&f, &n), FRAME_OK);
		off = used;
		assert_int_equal(frame_peek(b.data + off, b.len - off, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
		assert_int_equal(f.type, FRAME_JOB);
		assert_int_equal(off + used, b.len);
	}
	wbuf_free(&b);
	free(blob);
}

/* A command tag's row count: its last number, whole, in 64 bits; nothing else reads as one. */
static void test_tag_rows(void **state)
{
	static const char *const bad[] = {"",          "UPDATE",    "UPDATE ",    "UPDATE 3x",
					  "UPDATE -3", "UPDATE +3", "UPDATE 3 ",  "UPDATE 18446744073709551616",
					  "SELECT",    " ",         "UPDATE 0x10"};
	uint64_t rows = 7;

	(void)state;
	assert_true(frame_tag_rows("INSERT 0 3", &rows));
	assert_int_equal(rows, 3);
	assert_true(frame_tag_rows("UPDATE 18446744073709551615", &rows));
	assert_true(rows == UINT64_MAX);
	assert_true(frame_tag_rows("DELETE 0", &rows));
	assert_int_equal(rows, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rows = 7;
		if (frame_tag_rows(bad[i], &rows) || rows != 7)
			fail_msg("\"%s\" read as a count", bad[i]);
	}
	assert_false(frame_tag_rows(NULL, &rows));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_roundtrip),      cmocka_unit_test(test_cancel_roundtrip),
		cmocka_unit_test(test_rowdesc_roundtrip),  cmocka_unit_test(test_row_roundtrip),
		cmocka_unit_test(test_row_values),         cmocka_unit_test(test_complete_roundtrip),
		cmocka_unit_test(test_complete_warnings),  cmocka_unit_test(test_error_roundtrip),
		cmocka_unit_test(test_peek_limits),        cmocka_unit_test(test_wrong_type),
		cmocka_unit_test(test_job_malformed),      cmocka_unit_test(test_rowdesc_malformed),
		cmocka_unit_test(test_row_malformed),      cmocka_unit_test(test_row_too_many_cols),
		cmocka_unit_test(test_complete_malformed), cmocka_unit_test(test_error_malformed),
		cmocka_unit_test(test_error_position),     cmocka_unit_test(test_error_my_errno),
		cmocka_unit_test(test_mycols_roundtrip),   cmocka_unit_test(test_mycols_malformed),
		cmocka_unit_test(test_writer_limits),      cmocka_unit_test(test_paramdesc),
		cmocka_unit_test(test_backend_roundtrip),  cmocka_unit_test(test_tag_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
