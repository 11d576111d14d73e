/*
 * test_approval_sample: a dry run's rows made into the record's sample.
 * Columns come in the order first seen and every row is as wide; values
 * keep their text; what is not a row object, or past the row bound, is
 * left out and marks the sample truncated, as does a write touching more
 * rows than were kept; the text never passes its bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "approval/approval_sample.h"

static json_t *finish(struct approval_sample *s, uint64_t touched, size_t max)
{
	char *text = approval_sample_finish(s, touched, max);
	json_t *j;

	assert_non_null(text);
	assert_true(strlen(text) <= max);
	j = json_loads(text, 0, NULL);
	if (!json_is_object(j))
		fail_msg("not an object: %s", text);
	free(text);
	return j;
}

static size_t len_of(const char *s)
{
	return s ? strlen(s) : 0;
}

#define ROW(s, b, a) assert_true(approval_sample_row(s, b, len_of(b), a, len_of(a)))

static const char *cell(json_t *j, size_t row, const char *side, size_t col)
{
	json_t *v = json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), row), side), col);

	return json_is_null(v) ? NULL : json_string_value(v);
}

static void test_update_rows(void **state)
{
	struct approval_sample *s = approval_sample_new();
	json_t *j;

	(void)state;
	ROW(s, "{\"id\": \"1\", \"note\": \"old\", \"amount\": \"1.50\"}",
	    "{\"id\": 1, \"note\": \"new\", \"amount\": 2}");
	ROW(s, "{\"id\": 2, \"note\": null, \"amount\": 3}", "{\"id\": 2, \"note\": \"x\", \"amount\": 3}");
	j = finish(s, 2, 65536);
	assert_int_equal(json_array_size(json_object_get(j, "columns")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "columns"), 0)), "id");
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "columns"), 2)), "amount");
	assert_string_equal(cell(j, 0, "before", 0), "1");
	assert_string_equal(cell(j, 0, "before", 1), "old");
	assert_string_equal(cell(j, 0, "before", 2), "1.50");
	assert_string_equal(cell(j, 0, "after", 1), "new");
	assert_null(cell(j, 1, "before", 1));
	assert_true(json_is_false(json_object_get(j, "truncated")));
	json_decref(j);
}

static void test_insert_delete_and_nested(void **state)
{
	struct approval_sample *s = approval_sample_new();
	json_t *j;

	(void)state;
	ROW(s, NULL, "{\"id\": 7, \"tags\": [\"a\", {\"b\": true}], \"ok\": false}");
	j = finish(s, 1, 65536);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "before")));
	assert_string_equal(cell(j, 0, "after", 1), "[\"a\",{\"b\":true}]");
	assert_string_equal(cell(j, 0, "after", 2), "false");
	json_decref(j);
	s = approval_sample_new();
	ROW(s, "{\"id\": 7}", NULL);
	j = finish(s, 1, 65536);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "after")));
	json_decref(j);
}

/* A column first seen in a later row widens the rows before it. */
static void test_columns_widen(void **state)
{
	struct approval_sample *s = approval_sample_new();
	json_t *j;

	(void)state;
	ROW(s, "{\"a\": 1}", "{\"a\": 2}");
	ROW(s, "{\"a\": 1, \"b\": \"x\"}", "{\"b\": \"y\"}");
	j = finish(s, 2, 65536);
	assert_int_equal(json_array_size(json_object_get(j, "columns")), 2);
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "before")), 2);
	assert_null(cell(j, 0, "before", 1));
	assert_null(cell(j, 1, "after", 0));
	assert_string_equal(cell(j, 1, "after", 1), "y");
	json_decref(j);
}

static void test_malformed_rows_left_out(void **state)
{
	static const char *const bad[] = {
		"[1, 2]", "\"text\"", "{\"a\": 1", "{\"a\": 1, \"a\": 2}", "", "null", "{\"a\": 1} trailing",
	};
	struct approval_sample *s = approval_sample_new();
	json_t *j;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ROW(s, bad[i], "{\"a\": 1}");
	ROW(s, NULL, NULL);
	assert_true(approval_sample_row(s, "{\"a\"\0: 1}", 9, NULL, 0));
	j = finish(s, 0, 65536);
	assert_int_equal(json_array_size(json_object_get(j, "rows")), 0);
	assert_true(json_is_true(json_object_get(j, "truncated")));
	json_decref(j);
}

/*
 * A MySQL UPDATE's pairs as its notices carry them (message before, detail
 * after, an empty detail null): a pair kept only when each side is a row
 * object or, after only, null.
 */
static void test_pairs_as_notices_carry_them(void **state)
{
	static const char *const bad[] = {
		"[1]", "{\"a\": \"1\"", "{\"a\": \"1\"} {}", "{\"a\": \"1\", \"a\": \"2\"}", "null", "\"x\"",
	};
	struct approval_sample *s = approval_sample_new();
	json_t *j;

	(void)state;
	ROW(s, "{\"id\": \"1\", \"v\": \"a\"}", "{\"id\": \"1\", \"v\": \"b\"}");
	ROW(s, "{\"id\": \"2\", \"v\": \"c\"}", NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ROW(s, "{\"id\": \"3\"}", bad[i]);
		ROW(s, bad[i], "{\"id\": \"3\"}");
	}
	/* A detail cut short, or with a NUL inside: left out. */
	assert_true(approval_sample_row(s, "{\"id\": \"4\"}", 13, "{\"id\": \"4\"}", 6));
	assert_true(approval_sample_row(s, "{\"id\": \"4\"}", 13, "{\"id\"\0: \"4\"}", 14));
	j = finish(s, 2, 65536);
	assert_int_equal(json_array_size(json_object_get(j, "rows")), 2);
	assert_string_equal(cell(j, 0, "before", 1), "a");
	assert_string_equal(cell(j, 0, "after", 1), "b");
	assert_string_equal(cell(j, 1, "before", 1), "c");
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "rows"), 1), "after")));
	assert_true(json_is_true(json_object_get(j, "truncated")));
	json_decref(j);
}

/* A note says why rows are missing: the first one is kept, it is written beside truncated, and escaped as JSON. */
static void test_note(void **state)
{
	struct approval_sample *s = approval_sample_new();
	char *json;

	(void)state;
	assert_non_null(s);
	assert_true(approval_sample_note(s, "the rows could not be read: \"x\"\n", 32));
	assert_true(approval_sample_note(s, "second", 6));
	json = approval_sample_finish(s, 3, 4096);
	assert_non_null(json);
	assert_string_equal(json, "{\"columns\":[],\"rows\":[],\"truncated\":true,"
				  "\"note\":\"the rows could not be read: \\\"x\\\"\\n\"}");
	free(json);
	/* Without a note there is no note key; a long note is cut at 512 bytes. */
	s = approval_sample_new();
	json = approval_sample_finish(s, 0, 4096);
	assert_string_equal(json, "{\"columns\":[],\"rows\":[],\"truncated\":false}");
	free(json);
	{
		char longer[700];

		memset(longer, 'n', sizeof(longer));
		s = approval_sample_new();
		assert_true(approval_sample_note(s, longer, sizeof(longer)));
		json = approval_sample_finish(s, 1, 4096);
		assert_non_null(strstr(json, "\"note\":\""));
		assert_int_equal(strlen(strstr(json, "\"note\":\"") + 8), 512 + 2);
		free(json);
	}
}

static void test_bounds(void **state)
{
	struct approval_sample *s = approval_sample_new();
	char big[2048], xs[1001];
	json_t *j;

	(void)state;
	/* Rows past the bound are counted, not kept. */
	for (int i = 0; i < APPROVAL_SAMPLE_ROWS + 5; i++)
		ROW(s, "{\"a\": 1}", "{\"a\": 2}");
	j = finish(s, APPROVAL_SAMPLE_ROWS + 5, 65536);
	assert_int_equal(json_array_size(json_object_get(j, "rows")), APPROVAL_SAMPLE_ROWS);
	assert_true(json_is_true(json_object_get(j, "truncated")));
	json_decref(j);
	/* More rows touched than seen. */
	s = approval_sample_new();
	ROW(s, "{\"a\": 1}", NULL);
	j = finish(s, 9, 65536);
	assert_true(json_is_true(json_object_get(j, "truncated")));
	json_decref(j);
	/* The text's bound: whole rows leave from the end. */
	memset(xs, 'x', sizeof(xs) - 1);
	xs[sizeof(xs) - 1] = '\0';
	snprintf(big, sizeof(big), "{\"a\": \"%s\"}", xs);
	s = approval_sample_new();
	for (int i = 0; i < 10; i++)
		ROW(s, big, NULL);
	j = finish(s, 10, 4096);
	assert_true(json_array_size(json_object_get(j, "rows")) < 4);
	assert_true(json_array_size(json_object_get(j, "rows")) > 0);
	assert_true(json_is_true(json_object_get(j, "truncated")));
	json_decref(j);
	/* Too small for even no rows. */
	s = approval_sample_new();
	ROW(s, "{\"a\": 1}", NULL);
	assert_null(approval_sample_finish(s, 1, 10));
	approval_sample_free(NULL);
	assert_null(approval_sample_finish(NULL, 0, 100));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_update_rows),
		cmocka_unit_test(test_insert_delete_and_nested),
		cmocka_unit_test(test_columns_widen),
		cmocka_unit_test(test_malformed_rows_left_out),
		cmocka_unit_test(test_pairs_as_notices_carry_them),
		cmocka_unit_test(test_note),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
