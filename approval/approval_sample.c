/*
 * approval_sample: a dry run's rows made into the record's sample
 * (approval_sample.h), with jansson.
 */
#include "approval/approval_sample.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

struct approval_sample {
	json_t *columns; /* array of names */
	json_t *rows;    /* array of {"before": [...] | null, "after": [...] | null} */
	bool truncated;
	char *note; /* approval_sample_note's, or NULL */
};

struct approval_sample *approval_sample_new(void)
{
	struct approval_sample *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->columns = json_array();
	s->rows = json_array();
	if (!s->columns || !s->rows) {
		approval_sample_free(s);
		return NULL;
	}
	return s;
}

void approval_sample_free(struct approval_sample *s)
{
	if (!s)
		return;
	json_decref(s->columns);
	json_decref(s->rows);
	free(s->note);
	free(s);
}

/* The index of name among the columns, added when new; -1 when out of memory. */
static long column_of(struct approval_sample *s, const char *name)
{
	size_t i;
	json_t *c;

	json_array_foreach(s->columns, i, c)
	{
		if (strcmp(json_string_value(c), name) == 0)
			return (long)i;
	}
	if (json_array_append_new(s->columns, json_string(name)) < 0)
		return -1;
	return (long)json_array_size(s->columns) - 1;
}

/* A value as the sample keeps it: a string itself, null, else its compact JSON text. */
static json_t *cell(json_t *v)
{
	char *text;
	json_t *out;

	if (json_is_null(v))
		return json_null();
	if (json_is_string(v))
		return json_stringn(json_string_value(v), json_string_length(v));
	text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	out = text ? json_string(text) : NULL;
	free(text);
	return out;
}

/*
 * The object's values in the columns' order (*out a new array, null where
 * it has none; NULL for no object). False when the text is not an object
 * or memory ran out.
 */
static bool values_of(struct approval_sample *s, const char *text, size_t len, json_t **out)
{
	json_t *o, *arr, *v;
	const char *key;
	bool ok = true;

	*out = NULL;
	if (!text)
		return true;
	o = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return false;
	}
	json_object_foreach(o, key, v)
	{
		if (column_of(s, key) < 0)
			ok = false;
	}
	arr = ok ? json_array() : NULL;
	for (size_t i = 0; arr && i < json_array_size(s->columns); i++) {
		json_t *c = json_object_get(o, json_string_value(json_array_get(s->columns, i)));

		if (json_array_append_new(arr, c ? cell(c) : json_null()) < 0) {
			json_decref(arr);
			arr = NULL;
		}
	}
	json_decref(o);
	*out = arr;
	return arr != NULL;
}

bool approval_sample_row(struct approval_sample *s, const char *before, size_t blen, const char *after, size_t alen)
{
	json_t *b = NULL, *a = NULL, *row;
	bool ok;

	if (json_array_size(s->rows) >= APPROVAL_SAMPLE_ROWS || (!before && !after)) {
		s->truncated = true;
		return true;
	}
	if (!values_of(s, before, blen, &b) || !values_of(s, after, alen, &a)) {
		json_decref(b);
		json_decref(a);
		s->truncated = true;
		return true;
	}
	row = json_object();
	if (!row) {
		json_decref(b);
		json_decref(a);
		return false;
	}
	/* Each set takes its value, even when it fails. */
	ok = json_object_set_new(row, "before", b ? b : json_null()) == 0;
	ok = json_object_set_new(row, "after", a ? a : json_null()) == 0 && ok;
	if (!ok) {
		json_decref(row);
		return false;
	}
	return json_array_append_new(s->rows, row) == 0;
}

bool approval_sample_note(struct approval_sample *s, const char *why, size_t len)
{
	size_t n = len < 512 ? len : 512;

	if (s->note)
		return true;
	/* why is len bytes, not necessarily a C string. */
	s->note = malloc(n + 1);
	if (!s->note)
		return false;
	memcpy(s->note, why, n);
	s->note[n] = '\0';
	return true;
}

/* Rows kept before a column first seen in a later row: pad them to the columns' length. */
static void pad_rows(struct approval_sample *s)
{
	size_t i, n = json_array_size(s->columns);
	json_t *row;

	json_array_foreach(s->rows, i, row)
	{
		json_t *b = json_object_get(row, "before"), *a = json_object_get(row, "after");

		while (json_is_array(b) && json_array_size(b) < n && json_array_append_new(b, json_null()) == 0)
			;
		while (json_is_array(a) && json_array_size(a) < n && json_array_append_new(a, json_null()) == 0)
			;
	}
}

char *approval_sample_finish(struct approval_sample *s, uint64_t touched, size_t max)
{
	json_t *o;
	char *text = NULL;

	if (!s)
		return NULL;
	pad_rows(s);
	if (touched > json_array_size(s->rows))
		s->truncated = true;
	o = json_pack("{s:O, s:O, s:b}", "columns", s->columns, "rows", s->rows, "truncated", 0);
	/* A note that is not UTF-8 (a database's message) is left out rather than lose the sample. */
	if (o && s->note)
		json_object_set_new(o, "note", json_string(s->note));
	while (o) {
		json_object_set_new(o, "truncated", json_boolean(s->truncated));
		text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!text || strlen(text) <= max || json_array_size(s->rows) == 0)
			break;
		free(text);
		text = NULL;
		json_array_remove(s->rows, json_array_size(s->rows) - 1);
		s->truncated = true;
	}
	if (text && strlen(text) > max) {
		free(text);
		text = NULL;
	}
	json_decref(o);
	approval_sample_free(s);
	return text;
}
