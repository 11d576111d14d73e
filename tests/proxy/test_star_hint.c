/* Tests for star_hint: the columns of a describe job's frame as a SELECT_STAR refusal's hint. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/frame.h"
#include "base/wbuf.h"
#include "proxy/star_hint.h"

/* A 'T' frame of the named columns (NULL ends the list), decoded as the session receives it. */
static struct frame rowdesc(struct wbuf *b, const char *const *names)
{
	struct frame f;
	size_t used, n = 0;

	while (names[n])
		n++;
	wbuf_init(b);
	frame_begin(b, FRAME_ROWDESC);
	frame_put_u16(b, (uint16_t)n);
	for (size_t i = 0; i < n; i++) {
		frame_put_cstr(b, names[i]);
		frame_put_u32(b, 16390);
		frame_put_i16(b, (int16_t)(i + 1));
		frame_put_u32(b, 23);
		frame_put_i16(b, 4);
		frame_put_i32(b, -1);
		frame_put_i16(b, 0);
	}
	frame_end(b);
	assert_false(b->failed);
	assert_int_equal(frame_peek(b->data, b->len, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
	return f;
}

static struct frame mycols(struct wbuf *b, const char *const *names)
{
	struct frame f;
	size_t used, n = 0;

	while (names[n])
		n++;
	wbuf_init(b);
	frame_begin(b, FRAME_MYCOLS);
	frame_put_u16(b, (uint16_t)n);
	for (size_t i = 0; i < n; i++) {
		frame_put_cstr(b, "shop");
		frame_put_cstr(b, "orders");
		frame_put_cstr(b, "orders");
		frame_put_cstr(b, names[i]);
		frame_put_cstr(b, names[i]);
		frame_put_u16(b, 63);
		frame_put_u32(b, 11);
		frame_put_u8(b, 3);
		frame_put_u16(b, 0);
		frame_put_u8(b, 0);
	}
	frame_end(b);
	assert_false(b->failed);
	assert_int_equal(frame_peek(b->data, b->len, FRAME_MAX_PAYLOAD, &f, &used), FRAME_OK);
	return f;
}

static void test_columns_once_each(void **state)
{
	static const char *const names[] = {"id", "customer_id", "amount", "id", "name", NULL};
	struct star_refusal r;
	struct wbuf b;
	struct frame f;

	(void)state;
	star_refusal_hold(&r, "a star", "the validator's hint", 8);
	f = rowdesc(&b, names);
	star_refusal_columns(&r, &f);
	assert_true(r.described);
	assert_string_equal(r.hint, "name the columns you need: id, customer_id, amount, name");
	assert_string_equal(r.message, "a star");
	assert_int_equal(r.cursor_pos, 8);
	wbuf_free(&b);

	star_refusal_hold(&r, "a star", "the validator's hint", 0);
	f = mycols(&b, names);
	star_refusal_columns(&r, &f);
	assert_string_equal(r.hint, "name the columns you need: id, customer_id, amount, name");
	wbuf_free(&b);
}

/* No columns, a frame that does not decode, or another frame: the validator's hint stays. */
static void test_nothing_to_list(void **state)
{
	static const char *const none[] = {NULL};
	static const uint8_t cut[] = {0, 2, 0, 0, 0, 5, 'i', 'd'};
	struct star_refusal r;
	struct wbuf b;
	struct frame f;

	(void)state;
	star_refusal_hold(&r, "a star", "the validator's hint", 0);
	f = rowdesc(&b, none);
	star_refusal_columns(&r, &f);
	assert_false(r.described);
	assert_string_equal(r.hint, "the validator's hint");
	wbuf_free(&b);

	f = (struct frame){.type = FRAME_ROWDESC, .payload = cut, .len = sizeof(cut)};
	star_refusal_columns(&r, &f);
	f.type = FRAME_MYCOLS;
	star_refusal_columns(&r, &f);
	f.type = FRAME_ROW;
	star_refusal_columns(&r, &f);
	assert_false(r.described);
	assert_string_equal(r.hint, "the validator's hint");
}

/* Many or long names: the hint is cut with "...", always terminated and within its buffer. */
static void test_long_lists_are_cut(void **state)
{
	static char names_buf[200][16];
	static const char *names[201];
	static char longname[700];
	const char *one[] = {longname, NULL};
	struct star_refusal r;
	struct wbuf b;
	struct frame f;
	size_t n;

	(void)state;
	for (int i = 0; i < 200; i++) {
		snprintf(names_buf[i], sizeof(names_buf[i]), "column_%d", i);
		names[i] = names_buf[i];
	}
	names[200] = NULL;
	star_refusal_hold(&r, "a star", "", 0);
	f = rowdesc(&b, names);
	star_refusal_columns(&r, &f);
	n = strlen(r.hint);
	assert_true(n < sizeof(r.hint));
	assert_string_equal(r.hint + n - 5, ", ...");
	assert_non_null(strstr(r.hint, "column_0, column_1, "));
	wbuf_free(&b);

	memset(longname, 'x', sizeof(longname) - 1);
	star_refusal_hold(&r, "a star", "", 0);
	f = rowdesc(&b, one);
	star_refusal_columns(&r, &f);
	assert_true(strlen(r.hint) < sizeof(r.hint));
	wbuf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_columns_once_each),
		cmocka_unit_test(test_nothing_to_list),
		cmocka_unit_test(test_long_lists_are_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
