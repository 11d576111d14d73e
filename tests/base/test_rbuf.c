/*
 * test_rbuf: the shared read cursor. Every getter's value in both byte
 * orders; every getter failing one byte short of what it needs, leaving
 * the cursor and its output alone; reads from exact-size heap copies at
 * every offset (so ASan sees any read past the end); strings that lack
 * their NUL; sub-cursors that stop at their own end; an empty cursor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/rbuf.h"

static const uint8_t seq[16] = {
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10,
};

static void test_values(void **state)
{
	struct rbuf r;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	(void)state;
	rbuf_init(&r, seq, sizeof(seq));
	assert_int_equal(rbuf_left(&r), 16);
	assert_true(rbuf_get_u8(&r, &u8));
	assert_int_equal(u8, 0x01);
	assert_true(rbuf_get_be16(&r, &u16));
	assert_int_equal(u16, 0x0203);
	assert_true(rbuf_get_be32(&r, &u32));
	assert_int_equal(u32, 0x04050607);
	assert_true(rbuf_get_be64(&r, &u64));
	assert_true(u64 == 0x08090a0b0c0d0e0full);
	assert_int_equal(rbuf_left(&r), 1);

	rbuf_init(&r, seq, sizeof(seq));
	assert_true(rbuf_get_le16(&r, &u16));
	assert_int_equal(u16, 0x0201);
	assert_true(rbuf_get_le24(&r, &u32));
	assert_int_equal(u32, 0x050403);
	assert_true(rbuf_get_le32(&r, &u32));
	assert_int_equal(u32, 0x09080706);
	assert_int_equal(rbuf_left(&r), 7);
	assert_false(rbuf_get_le64(&r, &u64));
	rbuf_init(&r, seq + 8, 8);
	assert_true(rbuf_get_le64(&r, &u64));
	assert_true(u64 == 0x100f0e0d0c0b0a09ull);
	assert_int_equal(rbuf_left(&r), 0);
}

/* The signed getters: two's complement, and nothing read or written when short. */
static void test_signed(void **state)
{
	static const uint8_t neg[] = {0xff, 0xfe, 0x80, 0x00, 0x00, 0x00, 0x7f, 0xff};
	struct rbuf r;
	int16_t i16 = 7;
	int32_t i32 = 7;

	(void)state;
	rbuf_init(&r, neg, sizeof(neg));
	assert_true(rbuf_get_be16_signed(&r, &i16));
	assert_int_equal(i16, -2);
	assert_true(rbuf_get_be32_signed(&r, &i32));
	assert_true(i32 == INT32_MIN);
	assert_true(rbuf_get_be16_signed(&r, &i16));
	assert_int_equal(i16, INT16_MAX);
	i16 = 7;
	i32 = 7;
	assert_false(rbuf_get_be16_signed(&r, &i16));
	assert_false(rbuf_get_be32_signed(&r, &i32));
	assert_int_equal(i16, 7);
	assert_int_equal(i32, 7);
	rbuf_init(&r, neg, 3);
	assert_false(rbuf_get_be32_signed(&r, &i32));
	assert_int_equal(rbuf_left(&r), 3);
	assert_int_equal(i32, 7);
}

/* One getter by width, returning what it read widened to 64 bits. */
enum getter { G_U8, G_BE16, G_BE32, G_BE64, G_LE16, G_LE24, G_LE32, G_LE64, G_COUNT };

static const size_t widths[G_COUNT] = {1, 2, 4, 8, 2, 3, 4, 8};

static bool get(struct rbuf *r, enum getter g, uint64_t *out)
{
	uint8_t u8 = 0xee;
	uint16_t u16 = 0xeeee;
	uint32_t u32 = 0xeeeeeeeeu;
	uint64_t u64 = 0xeeeeeeeeeeeeeeeeull;
	bool ok;

	switch (g) {
	case G_U8:
		ok = rbuf_get_u8(r, &u8);
		*out = u8;
		break;
	case G_BE16:
		ok = rbuf_get_be16(r, &u16);
		*out = u16;
		break;
	case G_BE32:
		ok = rbuf_get_be32(r, &u32);
		*out = u32;
		break;
	case G_LE16:
		ok = rbuf_get_le16(r, &u16);
		*out = u16;
		break;
	case G_LE24:
		ok = rbuf_get_le24(r, &u32);
		*out = u32;
		break;
	case G_LE32:
		ok = rbuf_get_le32(r, &u32);
		*out = u32;
		break;
	case G_BE64:
		ok = rbuf_get_be64(r, &u64);
		*out = u64;
		break;
	default:
		ok = rbuf_get_le64(r, &u64);
		*out = u64;
		break;
	}
	return ok;
}

/* What a failed getter leaves in its output: the sentinel it started with. */
static uint64_t untouched(enum getter g)
{
	switch (widths[g]) {
	case 1:
		return 0xee;
	case 2:
		return 0xeeee;
	case 3:
	case 4:
		return 0xeeeeeeeeu;
	default:
		return 0xeeeeeeeeeeeeeeeeull;
	}
}

/*
 * Every getter at every offset of an exact-size heap copy: it succeeds
 * exactly when its bytes are all there, and when it fails the cursor has
 * not moved and its output was not written.
 */
static void test_every_getter_at_the_boundary(void **state)
{
	(void)state;
	for (size_t len = 0; len <= 9; len++) {
		uint8_t *copy = malloc(len ? len : 1);

		assert_non_null(copy);
		memcpy(copy, seq, len);
		for (int g = 0; g < G_COUNT; g++) {
			for (size_t off = 0; off <= len; off++) {
				struct rbuf r;
				uint64_t v;
				bool ok;

				rbuf_init(&r, copy, len);
				assert_true(rbuf_skip(&r, off));
				ok = get(&r, (enum getter)g, &v);
				if (len - off >= widths[g]) {
					assert_true(ok);
					assert_int_equal(rbuf_left(&r), len - off - widths[g]);
				} else {
					assert_false(ok);
					assert_int_equal(rbuf_left(&r), len - off);
					assert_true(v == untouched((enum getter)g));
				}
			}
		}
		free(copy);
	}
}

static void test_bytes_and_skip(void **state)
{
	struct rbuf r;
	const uint8_t *p = NULL;

	(void)state;
	rbuf_init(&r, seq, 4);
	assert_true(rbuf_get_bytes(&r, 0, &p));
	assert_ptr_equal(p, seq);
	assert_false(rbuf_get_bytes(&r, 5, &p));
	assert_ptr_equal(p, seq); /* untouched */
	assert_int_equal(rbuf_left(&r), 4);
	assert_false(rbuf_get_bytes(&r, SIZE_MAX, &p));
	assert_false(rbuf_skip(&r, SIZE_MAX));
	assert_false(rbuf_skip(&r, 5));
	assert_true(rbuf_skip(&r, 1));
	assert_true(rbuf_get_bytes(&r, 3, &p));
	assert_ptr_equal(p, seq + 1);
	assert_int_equal(rbuf_left(&r), 0);
	assert_true(rbuf_get_bytes(&r, 0, &p));
	assert_true(rbuf_skip(&r, 0));
	assert_false(rbuf_skip(&r, 1));
}

static void test_cstr(void **state)
{
	static const uint8_t two[] = {'a', 'b', 0, 0, 'c'};
	struct rbuf r;
	const char *s = NULL;
	size_t n = 99;
	uint8_t *copy;

	(void)state;
	rbuf_init(&r, two, sizeof(two));
	assert_true(rbuf_get_cstr(&r, &s, &n));
	assert_string_equal(s, "ab");
	assert_int_equal(n, 2);
	assert_int_equal(rbuf_left(&r), 2);
	/* An empty string is a string. */
	assert_true(rbuf_get_cstr(&r, &s, NULL));
	assert_string_equal(s, "");
	/* "c" has no NUL before the end: refused, nothing moves. */
	s = NULL;
	n = 99;
	assert_false(rbuf_get_cstr(&r, &s, &n));
	assert_null(s);
	assert_int_equal(n, 99);
	assert_int_equal(rbuf_left(&r), 1);
	/* Nothing left at all. */
	assert_true(rbuf_skip(&r, 1));
	assert_false(rbuf_get_cstr(&r, &s, &n));

	/* No NUL in an exact-size copy: memchr must stop at the end. */
	copy = malloc(3);
	assert_non_null(copy);
	memcpy(copy, "xyz", 3);
	rbuf_init(&r, copy, 3);
	assert_false(rbuf_get_cstr(&r, &s, &n));
	/* A NUL as the very last byte is found. */
	copy[2] = 0;
	assert_true(rbuf_get_cstr(&r, &s, &n));
	assert_int_equal(n, 2);
	assert_int_equal(rbuf_left(&r), 0);
	free(copy);

	/* A NUL just past a sub-cursor's end is not inside it. */
	rbuf_init(&r, two, sizeof(two));
	{
		struct rbuf sub;

		assert_true(rbuf_get_rbuf(&r, 2, &sub));
		assert_false(rbuf_get_cstr(&sub, &s, &n));
		assert_int_equal(rbuf_left(&sub), 2);
	}
}

static void test_sub_cursor(void **state)
{
	struct rbuf r, sub;
	uint32_t v;
	uint16_t h;

	(void)state;
	rbuf_init(&r, seq, 8);
	assert_false(rbuf_get_rbuf(&r, 9, &sub));
	assert_int_equal(rbuf_left(&r), 8);
	assert_true(rbuf_get_rbuf(&r, 3, &sub));
	assert_int_equal(rbuf_left(&r), 5);
	assert_int_equal(rbuf_left(&sub), 3);
	/* The sub-cursor ends where it was cut, though the bytes go on. */
	assert_false(rbuf_get_be32(&sub, &v));
	assert_true(rbuf_get_be16(&sub, &h));
	assert_int_equal(h, 0x0102);
	assert_false(rbuf_get_be16(&sub, &h));
	assert_int_equal(rbuf_left(&sub), 1);
	/* The parent goes on after the slice. */
	assert_true(rbuf_get_be32(&r, &v));
	assert_int_equal(v, 0x04050607);
	/* An empty slice. */
	assert_true(rbuf_get_rbuf(&r, 0, &sub));
	assert_int_equal(rbuf_left(&sub), 0);
}

/* A cursor over NULL is empty: every getter but a zero-length one fails. */
static void test_empty_cursor(void **state)
{
	struct rbuf r, sub;
	const uint8_t *p = seq;
	const char *s;
	uint64_t v;

	(void)state;
	rbuf_init(&r, NULL, 10); /* the length goes with the NULL */
	assert_int_equal(rbuf_left(&r), 0);
	for (int g = 0; g < G_COUNT; g++)
		assert_false(get(&r, (enum getter)g, &v));
	assert_false(rbuf_get_cstr(&r, &s, NULL));
	assert_false(rbuf_skip(&r, 1));
	assert_true(rbuf_skip(&r, 0));
	assert_true(rbuf_get_bytes(&r, 0, &p));
	assert_null(p);
	assert_true(rbuf_get_rbuf(&r, 0, &sub));
	assert_int_equal(rbuf_left(&sub), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_every_getter_at_the_boundary),
		cmocka_unit_test(test_bytes_and_skip),
		cmocka_unit_test(test_cstr),
		cmocka_unit_test(test_sub_cursor),
		cmocka_unit_test(test_empty_cursor),
	};

	return cmocka_run_group_tests_name("rbuf", tests, NULL, NULL);
}
