/*
 * approval_store_sqlite_row: whole records in the SQLite store. put checks
 * a new record against the bounds of approval.h before it writes a byte;
 * get and each read rows back and check every column as they go, since the
 * file may have been damaged or edited by hand: a row that breaks a bound
 * is reported as APPROVAL_IO naming its id, never handed on.
 *
 * Text is bound and read with its length in a UTF-8 database, so the bytes
 * an agent sent come back exactly, valid UTF-8 or not. A record handed out
 * (get's out, each's fn argument) owns its strings: approval_free frees them.
 */
#include "approval/approval_store_sqlite_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Column i of st's current row when it is text of at most max bytes with
 * no NUL inside (borrowed until st steps again or is finalized), its
 * length in *n; NULL when it is not, with *why saying how.
 */
static const char *column_text(sqlite3_stmt *st, int i, size_t max, size_t *n, const char **why)
{
	const unsigned char *p;
	int len;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_TEXT:
		break;
	case SQLITE_NULL:
		*why = "is NULL";
		return NULL;
	default:
		*why = "is not text";
		return NULL;
	}
	p = sqlite3_column_text(st, i);
	len = sqlite3_column_bytes(st, i);
	if (!p || len < 0) {
		*why = "cannot be read";
		return NULL;
	}
	if ((size_t)len > max) {
		*why = "is too long";
		return NULL;
	}
	if (memchr(p, '\0', (size_t)len)) {
		*why = "holds a NUL byte";
		return NULL;
	}
	*n = (size_t)len;
	return (const char *)p;
}

/* Binds column i of a (checked by put_check; borrowed: it must outlive st's step) to its parameter of st. */
static int bind_column(sqlite3_stmt *st, const struct approval *a, size_t i)
{
	const struct record_column *c = &record_columns[i];
	const void *member = (const char *)a + c->offset;
	int param = (int)i + 1;
	const char *v;
	size_t n;

	switch (c->kind) {
	case RECORD_KEY:
		return sqlite3_bind_text(st, param, a->id, APPROVAL_ID_LEN, SQLITE_STATIC);
	case RECORD_STATUS:
		return sqlite3_bind_text(st, param, approval_status_name(a->status), -1, SQLITE_STATIC);
	case RECORD_TEXT:
		record_text(a, c, &v, &n);
		return sqlite3_bind_text(st, param, v, (int)n, SQLITE_STATIC);
	case RECORD_I64:
		return sqlite3_bind_int64(st, param, *(const int64_t *)member);
	case RECORD_INT:
		return sqlite3_bind_int(st, param, *(const int *)member);
	}
	return SQLITE_MISUSE;
}

enum approval_result sqlstore_put(struct approval_store *base, const struct approval *a)
{
	struct sqlstore *s = sqlstore_of(base);
	enum approval_result res = record_check_new(a, s->err, sizeof(s->err));
	sqlite3_stmt *st;
	int rc;

	if (res != APPROVAL_OK)
		return res;
	if (sqlite3_prepare_v2(s->db, APPROVAL_SQLITE_INSERT, -1, &st, NULL) != SQLITE_OK)
		return sqlstore_fail_db(s, "cannot store a record");
	for (size_t i = 0; i < RECORD_COL_COUNT; i++) {
		if (bind_column(st, a, i) != SQLITE_OK) {
			res = sqlstore_fail_db(s, "cannot store a record");
			goto out_finalize;
		}
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
		res = sqlstore_fail(s, APPROVAL_CONFLICT, "record %s exists already", a->id);
	else if (rc != SQLITE_DONE)
		res = sqlstore_fail_db(s, "cannot store a record");
out_finalize:
	sqlite3_finalize(st);
	return res;
}

/*
 * Fills out (overwritten, not freed) from st's current row, checking each
 * column against its kind and bound. On failure out is freed and zeroed
 * and the message names the record and the column.
 */
static enum approval_result row_read(struct sqlstore *s, sqlite3_stmt *st, struct approval *out)
{
	const struct record_column *c = &record_columns[RECORD_COL_id];
	const char *why = NULL;
	const char *v;
	char status[RECORD_MAX_STATUS + 1];
	size_t n;

	memset(out, 0, sizeof(*out));
	v = column_text(st, RECORD_COL_id, c->max, &n, &why);
	if (v) {
		memcpy(out->id, v, n);
		out->id[n] = '\0';
	}
	if (!approval_id_valid(out->id)) {
		memset(out, 0, sizeof(*out));
		return sqlstore_fail(s, APPROVAL_IO, "a record with a malformed id (column id %s)",
				     why ? why : "is not an id");
	}
	for (int i = RECORD_COL_id + 1; i < RECORD_COL_COUNT; i++) {
		void *member;

		c = &record_columns[i];
		member = (char *)out + c->offset;
		switch (c->kind) {
		case RECORD_KEY:
			break;
		case RECORD_STATUS:
			v = column_text(st, i, c->max, &n, &why);
			if (!v)
				goto out_free;
			memcpy(status, v, n);
			status[n] = '\0';
			if (!approval_status_parse(status, (enum approval_status *)member)) {
				why = "is not a status this code knows";
				goto out_free;
			}
			break;
		case RECORD_TEXT:
			v = column_text(st, i, c->max, &n, &why);
			if (!v)
				goto out_free;
			if (!(*(char **)member = malloc(n + 1))) {
				why = "cannot be copied: out of memory";
				goto out_free;
			}
			memcpy(*(char **)member, v, n);
			(*(char **)member)[n] = '\0';
			break;
		case RECORD_I64:
			if (sqlite3_column_type(st, i) != SQLITE_INTEGER) {
				why = "is not an integer";
				goto out_free;
			}
			*(int64_t *)member = sqlite3_column_int64(st, i);
			break;
		case RECORD_INT:
			if (sqlite3_column_type(st, i) != SQLITE_INTEGER) {
				why = "is not an integer";
				goto out_free;
			}
			if (sqlite3_column_int64(st, i) < INT_MIN || sqlite3_column_int64(st, i) > INT_MAX) {
				why = "is out of range";
				goto out_free;
			}
			*(int *)member = sqlite3_column_int(st, i);
			break;
		}
	}
	if (out->approvals_needed != 1 && out->approvals_needed != 2) {
		c = &record_columns[RECORD_COL_approvals_needed];
		why = "is neither 1 nor 2";
		goto out_free;
	}
	return APPROVAL_OK;
out_free:
	sqlstore_fail(s, APPROVAL_IO, "record %s: column %s %s", out->id, c->name, why);
	approval_free(out);
	return APPROVAL_IO;
}

enum approval_result sqlstore_get(struct approval_store *base, const char *id, struct approval *out)
{
	struct sqlstore *s = sqlstore_of(base);
	enum approval_result res;
	sqlite3_stmt *st;
	int rc;

	if (!out)
		return sqlstore_fail(s, APPROVAL_INVALID, "no record to fill");
	memset(out, 0, sizeof(*out));
	if (!approval_id_valid(id))
		return sqlstore_fail(s, APPROVAL_INVALID, "a malformed id");
	if (sqlite3_prepare_v2(s->db, APPROVAL_SQLITE_SELECT " WHERE \"id\" = ?1", -1, &st, NULL) != SQLITE_OK)
		return sqlstore_fail_db(s, "cannot read a record");
	if (sqlite3_bind_text(st, 1, id, APPROVAL_ID_LEN, SQLITE_STATIC) != SQLITE_OK) {
		res = sqlstore_fail_db(s, "cannot read a record");
		goto out_finalize;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		res = row_read(s, st, out);
	else if (rc == SQLITE_DONE)
		res = sqlstore_fail(s, APPROVAL_NOT_FOUND, "no record %s", id);
	else
		res = sqlstore_fail(s, APPROVAL_IO, "record %s cannot be read: %s", id, sqlite3_errmsg(s->db));
out_finalize:
	sqlite3_finalize(st);
	return res;
}

/*
 * Lists the ids in order, then reads each record with get, so that a
 * damaged row is reported by its id whatever broke in it. A record moved
 * out of status between the two (by fn, or by another process) is skipped
 * and still counts towards limit.
 * The listing is prepared for this call alone: fn may call the store (get,
 * move, even each) while it runs.
 */
enum approval_result sqlstore_each(struct approval_store *base, enum approval_status status, size_t limit,
				   bool (*fn)(void *arg, const struct approval *a), void *arg)
{
	struct sqlstore *s = sqlstore_of(base);
	const char *name = approval_status_name(status);
	enum approval_result res = APPROVAL_OK;
	char id[APPROVAL_ID_LEN + 1];
	struct approval a;
	sqlite3_stmt *st;
	int rc;

	if (!name || !fn)
		return sqlstore_fail(s, APPROVAL_INVALID, "no such status, or no function to call");
	if (limit == 0)
		return APPROVAL_OK;
	if (sqlite3_prepare_v2(
		    s->db,
		    "SELECT \"id\" FROM approvals WHERE \"status\" = ?1 ORDER BY \"created_at\", \"id\" LIMIT ?2", -1,
		    &st, NULL) != SQLITE_OK)
		return sqlstore_fail_db(s, "cannot list records");
	if (sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) != SQLITE_OK ||
	    sqlite3_bind_int64(st, 2, limit > INT64_MAX ? -1 : (int64_t)limit) != SQLITE_OK) {
		res = sqlstore_fail_db(s, "cannot list records");
		goto out_finalize;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *why = "is not an id";
		const char *v;
		size_t n;
		bool more;

		v = column_text(st, 0, APPROVAL_ID_LEN, &n, &why);
		if (v) {
			memcpy(id, v, n);
			id[n] = '\0';
		}
		if (!v || !approval_id_valid(id)) {
			res = sqlstore_fail(s, APPROVAL_IO, "a record with a malformed id (column id %s)", why);
			goto out_finalize;
		}
		res = sqlstore_get(base, id, &a);
		if (res == APPROVAL_NOT_FOUND)
			continue;
		if (res != APPROVAL_OK)
			goto out_finalize;
		if (a.status != status) {
			approval_free(&a);
			continue;
		}
		more = fn(arg, &a);
		approval_free(&a);
		if (!more)
			goto out_finalize;
	}
	if (rc != SQLITE_DONE)
		res = sqlstore_fail_db(s, "cannot list records");
	else
		res = APPROVAL_OK;
out_finalize:
	sqlite3_finalize(st);
	return res;
}
