/*
 * runner_my_hidden: see runner_my_hidden.h.
 */
#include "runner/runner_my_hidden.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/wbuf.h"

enum my_hidden_load my_hidden_load(MYSQL *conn, const char *sql, struct my_hidden *h)
{
	MYSQL_RES *res;
	MYSQL_ROW row;
	enum my_hidden_load rc = MY_HIDDEN_OK;

	if (mysql_real_query(conn, sql, (unsigned long)strlen(sql)) != 0)
		return MY_HIDDEN_FAILED;
	res = mysql_store_result(conn);
	if (!res)
		return MY_HIDDEN_FAILED;
	if (mysql_num_fields(res) < 1 || mysql_num_rows(res) > RUNNER_HIDDEN_MAX) {
		mysql_free_result(res);
		return MY_HIDDEN_TOO_MANY;
	}
	h->names = calloc((size_t)mysql_num_rows(res) + 1, sizeof(*h->names));
	if (!h->names) {
		mysql_free_result(res);
		return MY_HIDDEN_TOO_MANY;
	}
	while ((row = mysql_fetch_row(res)) != NULL) {
		unsigned long *len = mysql_fetch_lengths(res);

		if (!row[0] || !len)
			continue;
		if (len[0] == 0 || len[0] > RUNNER_HIDDEN_NAME_MAX || memchr(row[0], '\0', len[0]) ||
		    !(h->names[h->n] = strndup(row[0], len[0]))) {
			rc = MY_HIDDEN_TOO_MANY;
			break;
		}
		h->n++;
	}
	mysql_free_result(res);
	return rc;
}

void my_hidden_columns(struct my_hidden *h, const MYSQL_FIELD *f, unsigned n)
{
	static const char *const printing[] = {"possible_keys", "key", "Extra", "EXPLAIN"};

	h->any = false;
	for (unsigned i = 0; i < n && i < FRAME_MAX_COLS; i++) {
		h->cols[i] = false;
		for (size_t k = 0; k < sizeof(printing) / sizeof(printing[0]); k++)
			if (f[i].name && strcmp(f[i].name, printing[k]) == 0)
				h->cols[i] = true;
		h->any |= h->cols[i] && h->n > 0;
	}
}

static bool bounds(char c)
{
	return strchr(",\"() ;", c) != NULL;
}

/* The length of the hidden name standing whole at v[at], 0 when none does. */
static size_t hidden_at(const struct my_hidden *h, const char *v, size_t len, size_t at)
{
	if (at > 0 && !bounds(v[at - 1]))
		return 0;
	for (size_t k = 0; k < h->n; k++) {
		size_t nl = strlen(h->names[k]);

		if (nl <= len - at && strncasecmp(v + at, h->names[k], nl) == 0 &&
		    (at + nl == len || bounds(v[at + nl])))
			return nl;
	}
	return 0;
}

char *my_hidden_scrub(const struct my_hidden *h, unsigned i, const char *v, size_t len, size_t *out_len, bool *failed)
{
	struct wbuf w;
	size_t at = 0, kept = 0;
	bool replaced = false;

	*failed = false;
	if (!h->any || i >= FRAME_MAX_COLS || !h->cols[i] || !v)
		return NULL;
	wbuf_init(&w);
	while (at < len) {
		size_t nl = hidden_at(h, v, len, at);

		if (nl == 0) {
			at++;
			continue;
		}
		wbuf_put_bytes(&w, v + kept, at - kept);
		wbuf_put_str(&w, RUNNER_HIDDEN_KEY);
		at += nl;
		kept = at;
		replaced = true;
	}
	if (!replaced) {
		wbuf_free(&w);
		return NULL;
	}
	wbuf_put_bytes(&w, v + kept, len - kept);
	wbuf_put_u8(&w, 0);
	if (w.failed) {
		wbuf_free(&w);
		*failed = true;
		return NULL;
	}
	*out_len = w.len - 1;
	return (char *)w.data;
}

int my_hidden_row(struct my_hidden *h, char **row, unsigned long *lengths, unsigned n)
{
	for (size_t k = 0; k < h->nscratch; k++)
		free(h->scratch[k]);
	h->nscratch = 0;
	for (unsigned i = 0; h->any && i < n && i < FRAME_MAX_COLS; i++) {
		size_t len = 0;
		bool failed;
		char *v;

		if (!h->cols[i])
			continue;
		v = my_hidden_scrub(h, i, row[i], lengths[i], &len, &failed);
		/* More columns to scrub than an EXPLAIN has: fail closed. */
		if (failed || (v && h->nscratch == sizeof(h->scratch) / sizeof(h->scratch[0]))) {
			free(v);
			return -1;
		}
		if (v) {
			h->scratch[h->nscratch++] = v;
			row[i] = v;
			lengths[i] = len;
		}
	}
	return 0;
}

void my_hidden_free(struct my_hidden *h)
{
	for (size_t k = 0; k < h->nscratch; k++)
		free(h->scratch[k]);
	for (size_t k = 0; k < h->n; k++)
		free(h->names[k]);
	free(h->names);
	memset(h, 0, sizeof(*h));
}
