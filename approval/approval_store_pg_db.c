/*
 * approval_store_pg_db: what the Postgres store's files share and call:
 * the columns' types, the store's messages, and running a statement on a
 * connection that is made again when it was lost. It calls nothing of the
 * other files.
 */
#include "approval/approval_store_pg_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What every connection runs first: the bounds on a statement and a lock, and no notices. */
#define PGSTORE_SETUP                                                                                     \
	"SET statement_timeout = 5000; SET lock_timeout = 5000; SET idle_in_transaction_session_timeout " \
	"= 10000; SET client_min_messages = warning"

const char *pgstore_type(enum record_kind kind, unsigned *oid)
{
	switch (kind) {
	case RECORD_KEY:
	case RECORD_STATUS:
		*oid = PGSTORE_OID_TEXT;
		return "text";
	case RECORD_TEXT:
		*oid = PGSTORE_OID_BYTEA;
		return "bytea";
	case RECORD_I64:
		*oid = PGSTORE_OID_INT8;
		return "bigint";
	case RECORD_INT:
		*oid = PGSTORE_OID_INT4;
		return "integer";
	}
	*oid = 0;
	return "";
}

enum approval_result pgstore_fail(struct pgstore *s, enum approval_result code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	if (code == APPROVAL_IO)
		s->base.failures++;
	return code;
}

/* libpq's message without its trailing newline. */
static void fail_conn(struct pgstore *s, const char *what, const char *msg)
{
	size_t n = msg ? strlen(msg) : 0;

	while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		n--;
	pgstore_fail(s, APPROVAL_IO, "%s: %.*s", what, (int)(n > 400 ? 400 : n), msg ? msg : "");
}

static void ignore_notice(void *arg, const PGresult *res)
{
	(void)arg;
	(void)res;
}

bool pgstore_run(struct pgstore *s, const char *sql, const char *what)
{
	PGresult *res = PQexec(s->conn, sql);
	bool ok = PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK;

	if (!ok)
		fail_conn(s, what, PQerrorMessage(s->conn));
	PQclear(res);
	return ok;
}

bool pgstore_set_up(struct pgstore *s)
{
	if (PQstatus(s->conn) != CONNECTION_OK) {
		fail_conn(s, "cannot reach the state database", PQerrorMessage(s->conn));
		return false;
	}
	PQsetNoticeReceiver(s->conn, ignore_notice, NULL);
	return pgstore_run(s, PGSTORE_SETUP, "cannot set up the connection");
}

PGresult *pgstore_exec(struct pgstore *s, enum pgstore_retry retry, const char *what, const char *sql, int n,
		       const unsigned *types, const char *const *values, const int *lengths)
{
	int formats[32];
	PGresult *res;

	if (n > (int)(sizeof(formats) / sizeof(formats[0]))) {
		pgstore_fail(s, APPROVAL_IO, "%s: too many parameters", what);
		return NULL;
	}
	for (int i = 0; i < n; i++)
		formats[i] = 1;
	for (int attempt = 0;; attempt++) {
		if (PQstatus(s->conn) != CONNECTION_OK) {
			PQreset(s->conn);
			if (!pgstore_set_up(s))
				return NULL;
		}
		res = PQexecParams(s->conn, sql, n, (const Oid *)types, values, lengths, formats, 1);
		if (PQresultStatus(res) == PGRES_COMMAND_OK || PQresultStatus(res) == PGRES_TUPLES_OK)
			return res;
		fail_conn(s, what, PQresultErrorMessage(res)[0] ? PQresultErrorMessage(res) : PQerrorMessage(s->conn));
		PQclear(res);
		/* Lost under the statement: once more on a new connection, when doing it twice does no harm. */
		if (retry == PGSTORE_RETRY_IDEMPOTENT && attempt == 0 && PQstatus(s->conn) != CONNECTION_OK)
			continue;
		return NULL;
	}
}

void pgstore_i64(int64_t v, char out[8])
{
	uint64_t u = (uint64_t)v;

	for (int i = 7; i >= 0; i--, u >>= 8)
		out[i] = (char)(u & 0xff);
}

void pgstore_i32(int32_t v, char out[4])
{
	uint32_t u = (uint32_t)v;

	for (int i = 3; i >= 0; i--, u >>= 8)
		out[i] = (char)(u & 0xff);
}
