/*
 * test_wbuf: the shared buffer writer. The bytes of every put, in both
 * byte orders; the sticky failed bit (a failed reserve writes nothing and
 * every later put and patch does nothing until reset); a message's limit
 * at its exact boundary and counted from its own start; length patching,
 * in bounds and out; growth keeping what was written; reset and free.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/wbuf.h"

#define LIT(s) (const uint8_t *)(s), sizeof(s) - 1

static void expect_bytes(const struct wbuf *w, const uint8_t *want, size_t n)
{
	assert_false(w->failed);
	assert_int_equal(w->len, n);
	if (n)
		assert_memory_equal(w->data, want, n);
}

static void test_init_empty(void **state)
{
	struct wbuf w;

	(void)state;
	memset(&w, 0xa5, sizeof(w));
	wbuf_init(&w);
	assert_null(w.data);
	assert_int_equal(w.len, 0);
	assert_int_equal(w.cap, 0);
	assert_int_equal(w.mark, 0);
	assert_int_equal(w.limit, 0);
	assert_false(w.failed);
	/* Freeing an empty buffer is fine, and leaves it as initialised. */
	wbuf_free(&w);
	assert_null(w.data);
	assert_false(w.failed);
}

static void test_integers(void **state)
{
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	wbuf_put_u8(&w, 0x01);
	wbuf_put_be16(&w, 0x0203);
	wbuf_put_be24(&w, 0xff040506u); /* only the low 24 bits */
	wbuf_put_be32(&w, 0x0708090au);
	wbuf_put_be64(&w, 0x0b0c0d0e0f101112ull);
	expect_bytes(&w, LIT("\x01"
			     "\x02\x03"
			     "\x04\x05\x06"
			     "\x07\x08\x09\x0a"
			     "\x0b\x0c\x0d\x0e\x0f\x10\x11\x12"));
	wbuf_reset(&w);
	wbuf_put_le16(&w, 0x0203);
	wbuf_put_le24(&w, 0xff040506u);
	wbuf_put_le32(&w, 0x0708090au);
	wbuf_put_le64(&w, 0x0b0c0d0e0f101112ull);
	expect_bytes(&w, LIT("\x03\x02"
			     "\x06\x05\x04"
			     "\x0a\x09\x08\x07"
			     "\x12\x11\x10\x0f\x0e\x0d\x0c\x0b"));
	wbuf_free(&w);
}

static void test_bytes_and_strings(void **state)
{
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	wbuf_put_bytes(&w, NULL, 0);
	wbuf_put_bytes(&w, "a\0b", 3);
	wbuf_put_str(&w, "cd");
	wbuf_put_str(&w, NULL);
	wbuf_put_str(&w, "");
	wbuf_put_cstr(&w, "ef");
	wbuf_put_cstr(&w, NULL);
	wbuf_put_cstr(&w, "");
	expect_bytes(&w, LIT("a\0b"
			     "cd"
			     "ef\0"
			     "\0"
			     "\0"));
	wbuf_free(&w);
}

/* Many small puts: growth keeps every byte in order. */
static void test_growth(void **state)
{
	struct wbuf w;
	size_t i;

	(void)state;
	wbuf_init(&w);
	for (i = 0; i < 100000; i++)
		wbuf_put_u8(&w, (uint8_t)(i * 7));
	assert_false(w.failed);
	assert_int_equal(w.len, 100000);
	assert_true(w.cap >= w.len);
	for (i = 0; i < 100000; i++)
		assert_int_equal(w.data[i], (uint8_t)(i * 7));
	wbuf_free(&w);
}

static void test_reset_keeps_allocation(void **state)
{
	struct wbuf w;
	uint8_t *data;
	size_t cap;

	(void)state;
	wbuf_init(&w);
	(void)wbuf_begin(&w, 8);
	wbuf_put_be32(&w, 1);
	data = w.data;
	cap = w.cap;
	wbuf_reset(&w);
	assert_int_equal(w.len, 0);
	assert_int_equal(w.mark, 0);
	assert_int_equal(w.limit, 0);
	assert_ptr_equal(w.data, data);
	assert_int_equal(w.cap, cap);
	/* The limit went with the reset. */
	wbuf_put_be64(&w, 2);
	wbuf_put_be64(&w, 3);
	assert_false(w.failed);
	wbuf_free(&w);
}

/* Overflowing size_t fails without allocating; the failure sticks. */
static void test_sticky_failure(void **state)
{
	struct wbuf w;

	(void)state;
	wbuf_init(&w);
	wbuf_put_u8(&w, 'x');
	assert_false(wbuf_reserve(&w, SIZE_MAX));
	assert_true(w.failed);
	assert_int_equal(w.len, 1);
	/* Every later put and patch does nothing. */
	wbuf_put_u8(&w, 1);
	wbuf_put_be16(&w, 1);
	wbuf_put_be24(&w, 1);
	wbuf_put_be32(&w, 1);
	wbuf_put_be64(&w, 1);
	wbuf_put_le16(&w, 1);
	wbuf_put_le24(&w, 1);
	wbuf_put_le32(&w, 1);
	wbuf_put_le64(&w, 1);
	wbuf_put_bytes(&w, "abc", 3);
	wbuf_put_str(&w, "abc");
	wbuf_put_cstr(&w, "abc");
	wbuf_put_bytes(&w, NULL, 0);
	assert_false(wbuf_reserve(&w, 0));
	assert_int_equal(w.len, 1);
	w.data[0] = 'x';
	wbuf_patch_be32(&w, 0, 0x41424344u);
	wbuf_patch_le24(&w, 0, 0x414243u);
	assert_int_equal(w.data[0], 'x');
	assert_true(w.failed);
	/* Until reset. */
	wbuf_reset(&w);
	assert_false(w.failed);
	wbuf_put_u8(&w, 'y');
	expect_bytes(&w, LIT("y"));
	wbuf_free(&w);
}

/* A message of exactly its limit fits; one byte more fails and is not written. */
static void test_limit_boundary(void **state)
{
	struct wbuf w;
	uint8_t blob[16] = {0};

	(void)state;
	wbuf_init(&w);
	assert_int_equal(wbuf_begin(&w, 10), 0);
	wbuf_put_bytes(&w, blob, 10);
	assert_false(w.failed);
	assert_int_equal(w.len, 10);
	wbuf_put_bytes(&w, NULL, 0); /* nothing more is still fine */
	assert_false(w.failed);
	wbuf_put_u8(&w, 0);
	assert_true(w.failed);
	assert_int_equal(w.len, 10);

	/* A single put larger than the limit fails whole, writing nothing. */
	wbuf_reset(&w);
	(void)wbuf_begin(&w, 10);
	wbuf_put_bytes(&w, blob, 11);
	assert_true(w.failed);
	assert_int_equal(w.len, 0);

	/* Each put width crosses the boundary by one byte and writes nothing. */
	for (size_t width = 2; width <= 8; width++) {
		wbuf_reset(&w);
		(void)wbuf_begin(&w, 9);
		wbuf_put_bytes(&w, blob, 10 - width);
		assert_false(w.failed);
		if (width == 2)
			wbuf_put_le16(&w, 1);
		else if (width == 3)
			wbuf_put_be24(&w, 1);
		else if (width == 4)
			wbuf_put_le32(&w, 1);
		else if (width == 8)
			wbuf_put_le64(&w, 1);
		else
			wbuf_put_bytes(&w, blob, width);
		assert_true(w.failed);
		assert_int_equal(w.len, 10 - width);
	}
	wbuf_free(&w);
}

/* The limit counts from the open message's start, not the buffer's. */
static void test_limit_per_message(void **state)
{
	struct wbuf w;
	uint8_t blob[8] = {0};

	(void)state;
	wbuf_init(&w);
	(void)wbuf_begin(&w, 8);
	wbuf_put_bytes(&w, blob, 8);
	assert_int_equal(wbuf_begin(&w, 8), 8);
	wbuf_put_bytes(&w, blob, 8);
	assert_false(w.failed);
	assert_int_equal(w.len, 16);
	wbuf_put_u8(&w, 0);
	assert_true(w.failed);
	/* 0 means no limit. */
	wbuf_reset(&w);
	(void)wbuf_begin(&w, 0);
	for (int i = 0; i < 100; i++)
		wbuf_put_bytes(&w, blob, sizeof(blob));
	assert_false(w.failed);
	wbuf_free(&w);
}

/* Remember an offset, write a placeholder, patch the length in. */
static void test_patch(void **state)
{
	struct wbuf w;
	size_t at;

	(void)state;
	wbuf_init(&w);
	wbuf_put_u8(&w, 'Z');
	at = wbuf_begin(&w, 0);
	assert_int_equal(at, 1);
	wbuf_put_u8(&w, 'T');
	wbuf_put_be32(&w, 0);
	wbuf_put_str(&w, "abc");
	wbuf_patch_be32(&w, at + 1, (uint32_t)(w.len - at - 1));
	expect_bytes(&w, LIT("Z"
			     "T\0\0\0\7abc"));

	wbuf_reset(&w);
	at = wbuf_begin(&w, 0);
	wbuf_put_le24(&w, 0);
	wbuf_put_u8(&w, 3); /* a sequence byte the patch leaves alone */
	wbuf_put_str(&w, "hi");
	wbuf_patch_le24(&w, at, (uint32_t)(w.len - at - 4));
	expect_bytes(&w, LIT("\2\0\0\3hi"));
	wbuf_patch_le24(&w, 0, 0xaabbccddu); /* the low 24 bits only */
	expect_bytes(&w, LIT("\xdd\xcc\xbb\3hi"));

	/* Exactly at the end is in bounds; one byte further is not. */
	wbuf_patch_be32(&w, 2, 0x01020304u);
	expect_bytes(&w, LIT("\xdd\xcc\x01\x02\x03\x04"));
	wbuf_patch_be32(&w, 3, 0);
	assert_true(w.failed);
	assert_memory_equal(w.data, "\xdd\xcc\x01\x02\x03\x04", 6);

	wbuf_reset(&w);
	wbuf_put_str(&w, "ab");
	wbuf_patch_le24(&w, 0, 1);
	assert_true(w.failed);
	wbuf_reset(&w);
	wbuf_put_str(&w, "abcd");
	wbuf_patch_le24(&w, SIZE_MAX, 1);
	assert_true(w.failed);
	wbuf_reset(&w);
	wbuf_patch_be32(&w, 0, 1); /* nothing written at all */
	assert_true(w.failed);
	wbuf_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_empty),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_bytes_and_strings),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_reset_keeps_allocation),
		cmocka_unit_test(test_sticky_failure),
		cmocka_unit_test(test_limit_boundary),
		cmocka_unit_test(test_limit_per_message),
		cmocka_unit_test(test_patch),
	};

	return cmocka_run_group_tests_name("wbuf", tests, NULL, NULL);
}
