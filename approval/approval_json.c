/*
 * approval_json: held writes as the JSON API and airlockctl show them.
 * Every string goes through approval_json_string (approval_text.h), so
 * what an agent wrote reaches a terminal or a chat message with no
 * control, bidirectional or invisible character left in it; a value that
 * held such a character, or bytes that are not UTF-8, is flagged
 * "suspicious" beside it.
 */
#include "approval/approval_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "approval/approval_text.h"
#include "base/wbuf.h"

static void put_key(struct wbuf *w, const char *key, bool *first)
{
	wbuf_put_str(w, *first ? "{" : ", ");
	*first = false;
	approval_json_string(w, key, strlen(key), NULL);
	wbuf_put_str(w, ": ");
}

static void put_text(struct wbuf *w, const char *key, const char *v, bool *first, bool *suspicious)
{
	size_t n = v ? strlen(v) : 0;

	put_key(w, key, first);
	approval_json_string(w, v ? v : "", n, NULL);
	if (v && approval_text_suspicious(v, n))
		*suspicious = true;
}

static void put_int(struct wbuf *w, const char *key, int64_t v, bool *first)
{
	char num[32];

	put_key(w, key, first);
	snprintf(num, sizeof(num), "%" PRId64, v);
	wbuf_put_str(w, num);
}

/* Deeper than any sample nests; past it a value is written as null. */
#define MAX_DEPTH 8

/* v, a value the store made (the sample), written again through the escaper; its strings count as text. */
static void put_value(struct wbuf *w, json_t *v, int depth, bool *suspicious)
{
	const char *key;
	json_t *item;
	size_t i;
	char *num;

	if (depth > MAX_DEPTH || !v) {
		wbuf_put_str(w, "null");
	} else if (json_is_string(v)) {
		approval_json_string(w, json_string_value(v), json_string_length(v), NULL);
		if (approval_text_suspicious(json_string_value(v), json_string_length(v)))
			*suspicious = true;
	} else if (json_is_array(v)) {
		wbuf_put_str(w, "[");
		json_array_foreach(v, i, item)
		{
			wbuf_put_str(w, i ? ", " : "");
			put_value(w, item, depth + 1, suspicious);
		}
		wbuf_put_str(w, "]");
	} else if (json_is_object(v)) {
		i = 0;
		wbuf_put_str(w, "{");
		json_object_foreach(v, key, item)
		{
			wbuf_put_str(w, i++ ? ", " : "");
			approval_json_string(w, key, strlen(key), NULL);
			wbuf_put_str(w, ": ");
			put_value(w, item, depth + 1, suspicious);
		}
		wbuf_put_str(w, "}");
	} else {
		/* A number, true, false or null: plain ASCII. */
		num = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		wbuf_put_str(w, num ? num : "null");
		free(num);
	}
}

/* The record's sample as a JSON value (null when it holds none that parses). */
static void put_sample(struct wbuf *w, const char *sample, bool *first, bool *suspicious)
{
	json_t *v = sample && sample[0] ? json_loads(sample, JSON_REJECT_DUPLICATES, NULL) : NULL;

	put_key(w, "sample", first);
	put_value(w, json_is_object(v) ? v : NULL, 0, suspicious);
	json_decref(v);
}

bool approval_json_record(struct wbuf *w, const struct approval *a)
{
	bool first = true, suspicious = false;
	const char *status = approval_status_name(a->status);

	put_text(w, "id", a->id, &first, &suspicious);
	put_text(w, "status", status ? status : "", &first, &suspicious);
	put_text(w, "user", a->user, &first, &suspicious);
	put_text(w, "protocol", a->protocol, &first, &suspicious);
	put_text(w, "client_addr", a->client_addr, &first, &suspicious);
	put_text(w, "application_name", a->application_name, &first, &suspicious);
	put_text(w, "statement", a->statement, &first, &suspicious);
	/* The values as the store keeps them: a JSON array, itself written again through the escaper. */
	put_text(w, "params", a->params, &first, &suspicious);
	put_text(w, "rewritten", a->rewritten, &first, &suspicious);
	put_int(w, "rows", a->rows, &first);
	put_text(w, "plan", a->plan, &first, &suspicious);
	put_sample(w, a->sample, &first, &suspicious);
	put_int(w, "created_at", a->created_at, &first);
	put_int(w, "expires_at", a->expires_at, &first);
	put_int(w, "approvals_needed", a->approvals_needed, &first);
	put_text(w, "approved_by", a->approved_by, &first, &suspicious);
	put_text(w, "decided_by", a->decided_by, &first, &suspicious);
	put_int(w, "decided_at", a->decided_at, &first);
	put_text(w, "reason", a->reason, &first, &suspicious);
	put_int(w, "executed_rows", a->executed_rows, &first);
	put_key(w, "suspicious", &first);
	wbuf_put_str(w, suspicious ? "true}" : "false}");
	return !w->failed;
}

struct each_ctx {
	struct wbuf *w;
	size_t n;
};

static bool each_record(void *arg, const struct approval *a)
{
	struct each_ctx *c = arg;

	wbuf_put_str(c->w, c->n++ ? ", " : "");
	return approval_json_record(c->w, a);
}

enum approval_result approval_json_list(struct approval_store *st, enum approval_status status, size_t limit,
					struct wbuf *w)
{
	struct each_ctx c = {.w = w};
	enum approval_result r;

	wbuf_put_str(w, "[");
	r = st->ops->each(st, status, limit, each_record, &c);
	wbuf_put_str(w, "]");
	if (r == APPROVAL_OK && w->failed)
		return APPROVAL_IO;
	return r;
}
