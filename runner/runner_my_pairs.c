/*
 * runner_my_pairs: see runner_my_pairs.h.
 */
#include "runner/runner_my_pairs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/errors.h"
#include "base/wbuf.h"
#include "runner/runner_job.h"
#include "runner/runner_my_sample.h"

/* A primary key has at most 16 parts in MariaDB (MAX_REF_PARTS). */
#define MAX_KEYS 16

/* Rows of one read, kept with their lengths (a stored result's rows stay valid until it is freed). */
struct kept {
	MYSQL_ROW row[RUNNER_SAMPLE_ROWS];
	unsigned long *len[RUNNER_SAMPLE_ROWS];
	size_t n;
};

static void kept_free(struct kept *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->len[i]);
	k->n = 0;
}

/* The first RUNNER_SAMPLE_ROWS rows of res; false when out of memory. */
static bool keep(MYSQL_RES *res, struct kept *k)
{
	unsigned n = mysql_num_fields(res);
	MYSQL_ROW row;

	k->n = 0;
	while (k->n < RUNNER_SAMPLE_ROWS && (row = mysql_fetch_row(res)) != NULL) {
		unsigned long *len = mysql_fetch_lengths(res);

		if (!len || !(k->len[k->n] = malloc((n ? n : 1) * sizeof(*len))))
			return false;
		memcpy(k->len[k->n], len, n * sizeof(*len));
		k->row[k->n++] = row;
	}
	return true;
}

MYSQL_RES *my_pairs_read(MYSQL *conn, const char *sql)
{
	if (mysql_real_query(conn, sql, (unsigned long)strlen(sql)) != 0)
		return NULL;
	return mysql_store_result(conn);
}

/* s as a string literal: quoted, escaped for conn's character set and sql_mode. */
static void put_literal(MYSQL *conn, struct wbuf *b, const char *s, unsigned long len)
{
	char *esc = malloc(2 * (size_t)len + 1);

	if (!esc) {
		b->failed = true;
		return;
	}
	wbuf_put_u8(b, '\'');
	wbuf_put_bytes(b, esc, mysql_real_escape_string(conn, esc, s, len));
	wbuf_put_u8(b, '\'');
	free(esc);
}

/* s as an identifier: in backticks, each backtick doubled. */
static void put_ident(struct wbuf *b, const char *s, size_t len)
{
	wbuf_put_u8(b, '`');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '`')
			wbuf_put_u8(b, '`');
		wbuf_put_u8(b, (uint8_t)s[i]);
	}
	wbuf_put_u8(b, '`');
}

/* The field of f (n columns) named name as in the table, or n. */
static unsigned field_named(const MYSQL_FIELD *f, unsigned n, const char *name)
{
	unsigned i = 0;

	while (name && i < n && strcasecmp(f[i].org_name, name) != 0)
		i++;
	return name ? i : n;
}

/*
 * The key the rows are found again by, as indexes into f (the n columns
 * of the first read, each named as in the table): its primary key, else
 * its first unique key (by name) whose columns are all NOT NULL; 0 when
 * it has neither, when one of the key's columns is not among f, or when
 * the lookup failed. KEY_COLUMN_USAGE lists primary, unique and foreign
 * keys; a foreign key names the table it references.
 */
static size_t row_key(MYSQL *conn, const MYSQL_FIELD *f, unsigned n, unsigned *keys)
{
	struct wbuf q;
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	char name[NAME_CHAR_LEN * 4 + 1] = "";
	size_t nkeys = 0;
	bool ok = n > 0 && f[0].db_length && f[0].org_table_length, done = false;

	wbuf_init(&q);
	wbuf_put_str(&q, "SELECT CONSTRAINT_NAME, COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE "
			 "WHERE TABLE_SCHEMA = ");
	if (ok) {
		put_literal(conn, &q, f[0].db, f[0].db_length);
		wbuf_put_str(&q, " AND TABLE_NAME = ");
		put_literal(conn, &q, f[0].org_table, f[0].org_table_length);
	}
	wbuf_put_str(&q, " AND REFERENCED_TABLE_NAME IS NULL "
			 "ORDER BY CONSTRAINT_NAME <> 'PRIMARY', CONSTRAINT_NAME, ORDINAL_POSITION");
	if (!ok || q.failed || mysql_real_query(conn, (const char *)q.data, (unsigned long)q.len) != 0 ||
	    !(res = mysql_store_result(conn))) {
		wbuf_free(&q);
		return 0;
	}
	wbuf_free(&q);
	/* Each key's columns come together: the first whose columns all qualify is the one. */
	while (!done && (row = mysql_fetch_row(res)) != NULL) {
		unsigned i = field_named(f, n, row[1]);

		if (!row[0] || strlen(row[0]) >= sizeof(name)) {
			ok = false;
			break;
		}
		if (strcmp(row[0], name) != 0) {
			done = ok && nkeys > 0;
			if (done)
				break;
			memcpy(name, row[0], strlen(row[0]) + 1);
			nkeys = 0;
			ok = true;
		}
		/* A primary key's columns are NOT NULL; a unique key's may hold NULL in several rows. */
		ok = ok && i < n && nkeys < MAX_KEYS &&
		     (strcmp(name, "PRIMARY") == 0 || (f[i].flags & NOT_NULL_FLAG) != 0);
		if (ok)
			keys[nkeys++] = i;
	}
	mysql_free_result(res);
	return ok ? nkeys : 0;
}

/* SELECT * FROM `db`.`table` WHERE (`k`, ...) IN ((v, ...), ...): before's rows as they are now. */
static MYSQL_RES *read_again(MYSQL *conn, const MYSQL_FIELD *f, const unsigned *keys, size_t nkeys,
			     const struct kept *before)
{
	struct wbuf q;
	MYSQL_RES *res = NULL;

	wbuf_init(&q);
	wbuf_put_str(&q, "SELECT * FROM ");
	put_ident(&q, f[0].db, f[0].db_length);
	wbuf_put_u8(&q, '.');
	put_ident(&q, f[0].org_table, f[0].org_table_length);
	wbuf_put_str(&q, " WHERE (");
	for (size_t k = 0; k < nkeys; k++) {
		wbuf_put_str(&q, k ? ", " : "");
		put_ident(&q, f[keys[k]].org_name, f[keys[k]].org_name_length);
	}
	wbuf_put_str(&q, ") IN (");
	for (size_t r = 0; r < before->n; r++) {
		wbuf_put_str(&q, r ? ", (" : "(");
		for (size_t k = 0; k < nkeys; k++) {
			const char *v = before->row[r][keys[k]];

			wbuf_put_str(&q, k ? ", " : "");
			if (v)
				put_literal(conn, &q, v, before->len[r][keys[k]]);
			else
				wbuf_put_str(&q, "NULL");
		}
		wbuf_put_u8(&q, ')');
	}
	wbuf_put_u8(&q, ')');
	if (!q.failed && mysql_real_query(conn, (const char *)q.data, (unsigned long)q.len) == 0)
		res = mysql_store_result(conn);
	wbuf_free(&q);
	return res;
}

/* The row of after whose key is that of before's row r, or -1. */
static long find(const struct kept *after, const struct kept *before, size_t r, const unsigned *keys, size_t nkeys)
{
	for (size_t a = 0; a < after->n; a++) {
		size_t k = 0;

		for (; k < nkeys; k++) {
			unsigned c = keys[k];
			const char *x = before->row[r][c], *y = after->row[a][c];

			if (!x || !y || before->len[r][c] != after->len[a][c] || memcmp(x, y, before->len[r][c]) != 0)
				break;
		}
		if (k == nkeys)
			return (long)a;
	}
	return -1;
}

/* One pair's notice; 1 sent, 0 the sample is full (or a row too big), -1 the proxy is gone. */
static int send_pair(struct runner_ctl *ctl, const MYSQL_FIELD *f, unsigned n, const struct kept *before, size_t r,
		     const struct kept *after, long a, struct wbuf *obj, size_t *bytes)
{
	size_t blen;

	wbuf_reset(obj);
	my_sample_put_row(obj, f, before->row[r], before->len[r], n);
	blen = obj->len;
	wbuf_put_u8(obj, 0);
	if (a >= 0)
		my_sample_put_row(obj, f, after->row[a], after->len[a], n);
	if (obj->failed || blen > RUNNER_CTL_MAX_TEXT || obj->len - blen - 1 > RUNNER_CTL_MAX_TEXT ||
	    *bytes + obj->len - 1 > MY_SAMPLE_BYTES)
		return 0;
	*bytes += obj->len - 1;
	wbuf_put_u8(obj, 0);
	if (obj->failed ||
	    runner_ctl_error(ctl, FRAME_NOTICE, airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_SUCCESSFUL_COMPLETION),
			     FRAME_SAMPLE_PAIR_CODE, (const char *)obj->data, (const char *)obj->data + blen + 1,
			     "") < 0)
		return -1;
	return 1;
}

int my_pairs_send(MYSQL *conn, MYSQL_RES *before, struct runner_ctl *ctl)
{
	unsigned n = mysql_num_fields(before), keys[MAX_KEYS];
	MYSQL_FIELD *f = mysql_fetch_fields(before);
	struct kept b = {0}, a = {0};
	MYSQL_RES *again = NULL;
	size_t nkeys = 0, bytes = 0;
	struct wbuf obj;
	int rc = 0;

	if (!f || !n || !keep(before, &b)) {
		kept_free(&b);
		return 0;
	}
	if (b.n)
		nkeys = row_key(conn, f, n, keys);
	/* Read again only when it has the first read's columns, in their order. */
	if (nkeys && (again = read_again(conn, f, keys, nkeys, &b)) != NULL &&
	    (mysql_num_fields(again) != n || !keep(again, &a)))
		kept_free(&a);
	wbuf_init(&obj);
	for (size_t r = 0; r < b.n && rc == 0; r++) {
		int sent = send_pair(ctl, f, n, &b, r, &a, a.n ? find(&a, &b, r, keys, nkeys) : -1, &obj, &bytes);

		if (sent <= 0)
			rc = sent < 0 ? -1 : 1;
	}
	wbuf_free(&obj);
	kept_free(&b);
	kept_free(&a);
	if (again)
		mysql_free_result(again);
	return rc < 0 ? -1 : 0;
}
