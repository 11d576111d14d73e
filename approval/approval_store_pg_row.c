/*
 * approval_store_pg_row: whole records in the Postgres store. put checks
 * a new record with record_check_new before it sends a byte; get and each
 * read rows back in binary and check every column as they go (its type,
 * its bound, no NUL inside), since anyone with access to the database can
 * edit it: a row that breaks a bound is reported as APPROVAL_IO naming its
 * id, never handed on. A record handed out (get's out, each's fn argument)
 * owns its strings: approval_free frees them.
 */
#include "approval/approval_store_pg_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bool pgstore_check_fields(struct pgstore *s, const PGresult *res)
{
	unsigned oid;

	if (PQnfields(res) < RECORD_COL_COUNT) {
		pgstore_fail(s, APPROVAL_IO, "the table " PGSTORE_TABLE " has %d columns, not %d", PQnfields(res),
			     RECORD_COL_COUNT);
		return false;
	}
	for (int i = 0; i < RECORD_COL_COUNT; i++) {
		pgstore_type(record_columns[i].kind, &oid);
		if (PQftype(res, i) != oid || PQfformat(res, i) != 1) {
			pgstore_fail(s, APPROVAL_IO, "the table " PGSTORE_TABLE " has the wrong shape (column %s)",
				     record_columns[i].name);
			return false;
		}
	}
	return true;
}

enum approval_result pgstore_put(struct approval_store *base, const struct approval *a)
{
	static const char sql[] = "INSERT INTO " PGSTORE_TABLE " (" PGSTORE_NAMES ") VALUES ("
				  "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, "
				  "$18, $19, $20, $21, $22, $23, $24) ON CONFLICT (\"id\") DO NOTHING";
	struct pgstore *s = pgstore_of(base);
	enum approval_result res = record_check_new(a, s->err, sizeof(s->err));
	const char *values[RECORD_COL_COUNT];
	char ints[RECORD_COL_COUNT][8];
	unsigned types[RECORD_COL_COUNT];
	int lengths[RECORD_COL_COUNT];
	PGresult *r;
	size_t n;

	_Static_assert(RECORD_COL_COUNT == 24, "the INSERT names one parameter a column");
	if (res != APPROVAL_OK)
		return res;
	for (int i = 0; i < RECORD_COL_COUNT; i++) {
		const struct record_column *c = &record_columns[i];
		const void *member = (const char *)a + c->offset;

		pgstore_type(c->kind, &types[i]);
		switch (c->kind) {
		case RECORD_KEY:
			values[i] = a->id;
			lengths[i] = APPROVAL_ID_LEN;
			break;
		case RECORD_STATUS:
			values[i] = approval_status_name(a->status);
			lengths[i] = (int)strlen(values[i]);
			break;
		case RECORD_TEXT:
			record_text(a, c, &values[i], &n);
			lengths[i] = (int)n;
			break;
		case RECORD_I64:
			pgstore_i64(*(const int64_t *)member, ints[i]);
			values[i] = ints[i];
			lengths[i] = 8;
			break;
		case RECORD_INT:
			pgstore_i32(*(const int *)member, ints[i]);
			values[i] = ints[i];
			lengths[i] = 4;
			break;
		}
	}
	r = pgstore_exec(s, PGSTORE_RETRY_NEVER, "cannot store a record", sql, RECORD_COL_COUNT, types, values,
			 lengths);
	if (!r)
		return APPROVAL_IO;
	if (strcmp(PQcmdTuples(r), "1") != 0)
		res = pgstore_fail(s, APPROVAL_CONFLICT, "record %s exists already", a->id);
	PQclear(r);
	return res;
}

/* A big-endian integer of len bytes (4 or 8), sign-extended. */
static int64_t be_int(const unsigned char *p, int len)
{
	uint64_t u = 0;

	for (int i = 0; i < len; i++)
		u = (u << 8) | p[i];
	if (len == 4)
		return (int64_t)(int32_t)(uint32_t)u;
	return (int64_t)u;
}

enum approval_result pgstore_row_read(struct pgstore *s, const PGresult *res, int row, struct approval *out)
{
	const struct record_column *c = &record_columns[RECORD_COL_id];
	const char *why = NULL;
	char status[RECORD_MAX_STATUS + 1];

	memset(out, 0, sizeof(*out));
	if (!PQgetisnull(res, row, RECORD_COL_id) && PQgetlength(res, row, RECORD_COL_id) == APPROVAL_ID_LEN)
		memcpy(out->id, PQgetvalue(res, row, RECORD_COL_id), APPROVAL_ID_LEN);
	if (!approval_id_valid(out->id)) {
		memset(out, 0, sizeof(*out));
		return pgstore_fail(s, APPROVAL_IO, "a record with a malformed id");
	}
	for (int i = RECORD_COL_id + 1; i < RECORD_COL_COUNT; i++) {
		const unsigned char *v = (const unsigned char *)PQgetvalue(res, row, i);
		size_t n = (size_t)PQgetlength(res, row, i);
		void *member;

		c = &record_columns[i];
		member = (char *)out + c->offset;
		if (PQgetisnull(res, row, i)) {
			why = "is NULL";
			goto out_free;
		}
		switch (c->kind) {
		case RECORD_KEY:
			break;
		case RECORD_STATUS:
			if (n > RECORD_MAX_STATUS || memchr(v, '\0', n)) {
				why = "is not a status this code knows";
				goto out_free;
			}
			memcpy(status, v, n);
			status[n] = '\0';
			if (!approval_status_parse(status, (enum approval_status *)member)) {
				why = "is not a status this code knows";
				goto out_free;
			}
			break;
		case RECORD_TEXT:
			if (n > c->max) {
				why = "is too long";
				goto out_free;
			}
			if (memchr(v, '\0', n)) {
				why = "holds a NUL byte";
				goto out_free;
			}
			if (!(*(char **)member = malloc(n + 1))) {
				why = "cannot be copied: out of memory";
				goto out_free;
			}
			memcpy(*(char **)member, v, n);
			(*(char **)member)[n] = '\0';
			break;
		case RECORD_I64:
			if (n != 8) {
				why = "is not an integer";
				goto out_free;
			}
			*(int64_t *)member = be_int(v, 8);
			break;
		case RECORD_INT:
			if (n != 4) {
				why = "is not an integer";
				goto out_free;
			}
			*(int *)member = (int)be_int(v, 4);
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
	pgstore_fail(s, APPROVAL_IO, "record %s: column %s %s", out->id, c->name, why);
	approval_free(out);
	return APPROVAL_IO;
}

enum approval_result pgstore_get(struct approval_store *base, const char *id, struct approval *out)
{
	struct pgstore *s = pgstore_of(base);
	const unsigned types[1] = {PGSTORE_OID_TEXT};
	const char *values[1] = {id};
	int lengths[1] = {APPROVAL_ID_LEN};
	enum approval_result res;
	PGresult *r;

	if (!out)
		return pgstore_fail(s, APPROVAL_INVALID, "no record to fill");
	memset(out, 0, sizeof(*out));
	if (!approval_id_valid(id))
		return pgstore_fail(s, APPROVAL_INVALID, "a malformed id");
	r = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, "cannot read a record", PGSTORE_SELECT " WHERE \"id\" = $1", 1,
			 types, values, lengths);
	if (!r)
		return APPROVAL_IO;
	if (!pgstore_check_fields(s, r))
		res = APPROVAL_IO;
	else if (PQntuples(r) == 0)
		res = pgstore_fail(s, APPROVAL_NOT_FOUND, "no record %s", id);
	else
		res = pgstore_row_read(s, r, 0, out);
	PQclear(r);
	return res;
}

/*
 * Reads the records of status in order, whole, in one statement, then
 * calls fn on each: a damaged row is reported by its id and ends the
 * walk. The rows are all read before fn is first called: fn may call the
 * store (get, move, even each) while it runs.
 */
enum approval_result pgstore_each(struct approval_store *base, enum approval_status status, size_t limit,
				  bool (*fn)(void *arg, const struct approval *a), void *arg)
{
	struct pgstore *s = pgstore_of(base);
	const char *name = approval_status_name(status);
	const unsigned types[2] = {PGSTORE_OID_TEXT, PGSTORE_OID_INT8};
	const char *values[2];
	int lengths[2];
	char lim[8];
	enum approval_result res = APPROVAL_OK;
	struct approval a;
	PGresult *r;

	if (!name || !fn)
		return pgstore_fail(s, APPROVAL_INVALID, "no such status, or no function to call");
	if (limit == 0)
		return APPROVAL_OK;
	pgstore_i64(limit > INT64_MAX ? INT64_MAX : (int64_t)limit, lim);
	values[0] = name;
	lengths[0] = (int)strlen(name);
	values[1] = lim;
	lengths[1] = 8;
	r = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, "cannot list records",
			 PGSTORE_SELECT " WHERE \"status\" = $1 ORDER BY \"created_at\", \"id\" LIMIT $2", 2, types,
			 values, lengths);
	if (!r)
		return APPROVAL_IO;
	if (!pgstore_check_fields(s, r))
		res = APPROVAL_IO;
	for (int i = 0; res == APPROVAL_OK && i < PQntuples(r); i++) {
		bool more;

		res = pgstore_row_read(s, r, i, &a);
		if (res != APPROVAL_OK)
			break;
		more = a.status != status || fn(arg, &a);
		approval_free(&a);
		if (!more)
			break;
	}
	PQclear(r);
	return res;
}
