/*
 * approval_store_pg_login: the approval page's logins in the Postgres
 * store, so that an approver logged in on one node's page is logged in on
 * every node's, and a logout on one ends the login on all. A login is
 * found by the SHA-256 of its token: the database holds no cookie a
 * reader of it could present. A row read back is checked as any row is
 * (its lengths, its CSRF token's shape); a damaged one is not a login.
 */
#include "approval/approval_store_pg_int.h"

#include <stdio.h>
#include <string.h>

#define LOGIN_COLUMNS "\"csrf\", \"approver\", \"binding\", \"created_at\", \"last_at\""

/* The key as a bytea parameter. */
#define KEY_PARAM(key) ((const char *)(key))

static bool csrf_shaped(const char *v, int n)
{
	if (n != APPROVAL_LOGIN_CSRF_LEN)
		return false;
	for (int i = 0; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') || (v[i] >= 'a' && v[i] <= 'f')))
			return false;
	return true;
}

enum approval_result pgstore_login_put(struct approval_store *base, const unsigned char *key,
				       const struct approval_login *l)
{
	struct pgstore *s = pgstore_of(base);
	const unsigned types[6] = {PGSTORE_OID_BYTEA, PGSTORE_OID_TEXT, PGSTORE_OID_BYTEA,
				   PGSTORE_OID_BYTEA, PGSTORE_OID_INT8, PGSTORE_OID_INT8};
	char created[8], last[8];
	const char *values[6] = {KEY_PARAM(key), l->csrf, l->approver, (const char *)l->binding, created, last};
	int lengths[6] = {APPROVAL_LOGIN_KEY_LEN, 0, 0, APPROVAL_LOGIN_BINDING_LEN, 8, 8};
	PGresult *r;

	if (!csrf_shaped(l->csrf, (int)strnlen(l->csrf, sizeof(l->csrf))) ||
	    strnlen(l->approver, sizeof(l->approver)) > APPROVAL_MAX_NAME || !l->approver[0])
		return pgstore_fail(s, APPROVAL_INVALID, "a login with a malformed token or approver");
	lengths[1] = APPROVAL_LOGIN_CSRF_LEN;
	lengths[2] = (int)strlen(l->approver);
	pgstore_i64(l->created_ms, created);
	pgstore_i64(l->last_ms, last);
	r = pgstore_exec(s, PGSTORE_RETRY_NEVER, "cannot store a login",
			 "INSERT INTO " PGSTORE_LOGINS " (\"key\", " LOGIN_COLUMNS ") VALUES ($1, $2, $3, $4, $5, $6)",
			 6, types, values, lengths);
	if (!r)
		return APPROVAL_IO;
	PQclear(r);
	return APPROVAL_OK;
}

enum approval_result pgstore_login_get(struct approval_store *base, const unsigned char *key,
				       struct approval_login *out)
{
	struct pgstore *s = pgstore_of(base);
	const unsigned types[1] = {PGSTORE_OID_BYTEA};
	const char *values[1] = {KEY_PARAM(key)};
	const int lengths[1] = {APPROVAL_LOGIN_KEY_LEN};
	enum approval_result res = APPROVAL_OK;
	PGresult *r;
	int n;

	memset(out, 0, sizeof(*out));
	r = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, "cannot read a login",
			 "SELECT " LOGIN_COLUMNS " FROM " PGSTORE_LOGINS " WHERE \"key\" = $1", 1, types, values,
			 lengths);
	if (!r)
		return APPROVAL_IO;
	if (PQntuples(r) == 0) {
		res = pgstore_fail(s, APPROVAL_NOT_FOUND, "no such login");
	} else if (PQnfields(r) != 5 || PQgetisnull(r, 0, 0) || PQgetisnull(r, 0, 1) || PQgetisnull(r, 0, 2) ||
		   !csrf_shaped(PQgetvalue(r, 0, 0), PQgetlength(r, 0, 0)) || (n = PQgetlength(r, 0, 1)) < 1 ||
		   n > APPROVAL_MAX_NAME || memchr(PQgetvalue(r, 0, 1), '\0', (size_t)n) ||
		   PQgetlength(r, 0, 2) != APPROVAL_LOGIN_BINDING_LEN || PQgetlength(r, 0, 3) != 8 ||
		   PQgetlength(r, 0, 4) != 8) {
		res = pgstore_fail(s, APPROVAL_IO, "a login's row is damaged");
	} else {
		const unsigned char *c = (const unsigned char *)PQgetvalue(r, 0, 3);
		const unsigned char *l = (const unsigned char *)PQgetvalue(r, 0, 4);
		uint64_t cu = 0, lu = 0;

		memcpy(out->csrf, PQgetvalue(r, 0, 0), APPROVAL_LOGIN_CSRF_LEN);
		memcpy(out->approver, PQgetvalue(r, 0, 1), (size_t)n);
		memcpy(out->binding, PQgetvalue(r, 0, 2), APPROVAL_LOGIN_BINDING_LEN);
		for (int i = 0; i < 8; i++) {
			cu = cu << 8 | c[i];
			lu = lu << 8 | l[i];
		}
		out->created_ms = (int64_t)cu;
		out->last_ms = (int64_t)lu;
	}
	PQclear(r);
	return res;
}

/* One statement on the login key ($1), with a time ($2) when now is not NULL. */
static enum approval_result on_key(struct pgstore *s, const char *what, const char *sql, const unsigned char *key,
				   const int64_t *now)
{
	const unsigned types[2] = {PGSTORE_OID_BYTEA, PGSTORE_OID_INT8};
	char t[8];
	const char *values[2] = {KEY_PARAM(key), t};
	const int lengths[2] = {APPROVAL_LOGIN_KEY_LEN, 8};
	PGresult *r;

	if (now)
		pgstore_i64(*now, t);
	r = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, what, sql, now ? 2 : 1, types, values, lengths);
	if (!r)
		return APPROVAL_IO;
	PQclear(r);
	return APPROVAL_OK;
}

enum approval_result pgstore_login_touch(struct approval_store *base, const unsigned char *key, int64_t now)
{
	return on_key(pgstore_of(base), "cannot record a login's request",
		      "UPDATE " PGSTORE_LOGINS " SET \"last_at\" = GREATEST(\"last_at\", $2) WHERE \"key\" = $1", key,
		      &now);
}

enum approval_result pgstore_login_end(struct approval_store *base, const unsigned char *key)
{
	return on_key(pgstore_of(base), "cannot end a login", "DELETE FROM " PGSTORE_LOGINS " WHERE \"key\" = $1", key,
		      NULL);
}

enum approval_result pgstore_login_sweep(struct approval_store *base, int64_t idle_before, int64_t created_before)
{
	struct pgstore *s = pgstore_of(base);
	const unsigned types[2] = {PGSTORE_OID_INT8, PGSTORE_OID_INT8};
	char a[8], b[8];
	const char *values[2] = {a, b};
	const int lengths[2] = {8, 8};
	PGresult *r;

	pgstore_i64(idle_before, a);
	pgstore_i64(created_before, b);
	r = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, "cannot sweep logins",
			 "DELETE FROM " PGSTORE_LOGINS " WHERE \"last_at\" < $1 OR \"created_at\" < $2", 2, types,
			 values, lengths);
	if (!r)
		return APPROVAL_IO;
	PQclear(r);
	return APPROVAL_OK;
}
