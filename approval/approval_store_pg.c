/*
 * approval_store_pg: the Postgres store's connection. Several nodes share
 * one database (state_dsn), so a write held on one node can be approved on
 * another's page and is run once, by the node that approved it: every
 * move is a compare-and-set in one UPDATE.
 *
 * Over TCP the link is TLS with the server's certificate and name checked
 * (sslmode verify-full) unless the conninfo says otherwise: held writes
 * and what the approver saw cross it. Calls block the caller, as the
 * SQLite store's do, so every wait is bounded: 5 s to connect, 5 s for a statement or a lock, and TCP
 * keepalives and a user timeout for a server that stops answering. The
 * conninfo's own values win over these. A connection lost between calls
 * is made again on the next call; a read or a sweep that finds it lost is
 * sent once more on a new one, while a put or a move is not repeated (it
 * may have been done) and fails.
 *
 * The table is made when absent, under an advisory lock so that nodes
 * starting together do not race; a table of another shape is refused.
 * The store approval_store_pg_open returns is the caller's until
 * ops->close frees it.
 */
#include "approval/approval_store_pg_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advisory lock the table's creation is made under. */
#define PGSTORE_LOCK_KEY "hashtext('" PGSTORE_TABLE "')"

/* CREATE TABLE's text: the list's columns with their types, and run_node. */
static char *create_sql(void)
{
	static const char head[] = "CREATE TABLE IF NOT EXISTS " PGSTORE_TABLE " (";
	static const char tail[] = ", \"run_node\" integer NOT NULL DEFAULT 0)";
	size_t cap = sizeof(head) + sizeof(tail) + RECORD_COL_COUNT * 64;
	char *sql = malloc(cap);
	size_t len;
	unsigned oid;

	if (!sql)
		return NULL;
	len = (size_t)snprintf(sql, cap, "%s", head);
	for (size_t i = 0; i < RECORD_COL_COUNT && len < cap; i++)
		len += (size_t)snprintf(sql + len, cap - len, "%s\"%s\" %s NOT NULL%s", i ? ", " : "",
					record_columns[i].name, pgstore_type(record_columns[i].kind, &oid),
					i == 0 ? " PRIMARY KEY" : "");
	if (len < cap)
		len += (size_t)snprintf(sql + len, cap - len, "%s", tail);
	if (len >= cap) {
		free(sql);
		return NULL;
	}
	return sql;
}

/* The table there has this code's columns, in order, each of its type, and run_node. */
static bool check_table(struct pgstore *s)
{
	PGresult *res = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, "cannot read the table " PGSTORE_TABLE,
				     "SELECT " PGSTORE_NAMES ", \"run_node\" FROM " PGSTORE_TABLE " LIMIT 0", 0, NULL,
				     NULL, NULL);
	bool ok;

	if (!res)
		return false;
	ok = pgstore_check_fields(s, res);
	if (ok && (PQnfields(res) != RECORD_COL_COUNT + 1 || PQftype(res, RECORD_COL_COUNT) != PGSTORE_OID_INT4)) {
		pgstore_fail(s, APPROVAL_IO, "the table " PGSTORE_TABLE " has the wrong shape (column run_node)");
		ok = false;
	}
	PQclear(res);
	return ok;
}

/* The logins' table there has this code's columns and types. */
static bool check_logins(struct pgstore *s)
{
	static const unsigned want[] = {PGSTORE_OID_BYTEA, PGSTORE_OID_TEXT, PGSTORE_OID_BYTEA,
					PGSTORE_OID_BYTEA, PGSTORE_OID_INT8, PGSTORE_OID_INT8};
	PGresult *res = pgstore_exec(s, PGSTORE_RETRY_IDEMPOTENT, "cannot read the table " PGSTORE_LOGINS,
				     "SELECT \"key\", \"csrf\", \"approver\", \"binding\", \"created_at\", "
				     "\"last_at\" FROM " PGSTORE_LOGINS " LIMIT 0",
				     0, NULL, NULL, NULL);
	bool ok;

	if (!res)
		return false;
	ok = PQnfields(res) == 6;
	for (int i = 0; ok && i < 6; i++)
		ok = PQftype(res, i) == want[i];
	if (!ok)
		pgstore_fail(s, APPROVAL_IO, "the table " PGSTORE_LOGINS " has the wrong shape");
	PQclear(res);
	return ok;
}

/* Makes the tables when absent and checks the ones there, one node at a time. */
static bool prepare_table(struct pgstore *s)
{
	char *sql = create_sql();
	bool ok;

	if (!sql) {
		pgstore_fail(s, APPROVAL_IO, "cannot make the table: out of memory");
		return false;
	}
	ok = pgstore_run(s, "BEGIN", "cannot begin") &&
	     pgstore_run(s, "SELECT pg_advisory_xact_lock(" PGSTORE_LOCK_KEY ")", "cannot take the schema lock") &&
	     pgstore_run(s, sql, "cannot create the table " PGSTORE_TABLE) && check_table(s) &&
	     pgstore_run(s,
			 "CREATE INDEX IF NOT EXISTS " PGSTORE_TABLE "_status ON " PGSTORE_TABLE
			 " (\"status\", \"created_at\", \"id\")",
			 "cannot create the index of " PGSTORE_TABLE) &&
	     pgstore_run(s,
			 "CREATE TABLE IF NOT EXISTS " PGSTORE_LOGINS " (\"key\" bytea NOT NULL PRIMARY KEY, \"csrf\" "
			 "text NOT NULL, \"approver\" bytea NOT NULL, \"binding\" bytea NOT NULL, \"created_at\" "
			 "bigint NOT NULL, \"last_at\" bigint NOT NULL)",
			 "cannot create the table " PGSTORE_LOGINS) &&
	     check_logins(s) && pgstore_run(s, "COMMIT", "cannot commit the table " PGSTORE_TABLE);
	free(sql);
	if (!ok)
		PQclear(PQexec(s->conn, "ROLLBACK"));
	return ok;
}

static const char *pgstore_error(struct approval_store *base)
{
	return pgstore_of(base)->err;
}

static void pgstore_close(struct approval_store *base)
{
	struct pgstore *s = pgstore_of(base);

	if (s->conn)
		PQfinish(s->conn);
	free(s);
}

static const struct approval_store_ops pgstore_ops = {
	.put = pgstore_put,
	.get = pgstore_get,
	.each = pgstore_each,
	.move = pgstore_move,
	.expire = pgstore_expire,
	.recover = pgstore_recover,
	.login_put = pgstore_login_put,
	.login_get = pgstore_login_get,
	.login_touch = pgstore_login_touch,
	.login_end = pgstore_login_end,
	.login_sweep = pgstore_login_sweep,
	.error = pgstore_error,
	.close = pgstore_close,
};

struct approval_store *approval_store_pg_open(const char *conninfo, int node, char *err, size_t errlen)
{
	/* The defaults come first: the conninfo (expanded from dbname) overrides them. */
	static const char *const keys[] = {
		"sslmode",          "connect_timeout",  "keepalives",       "keepalives_idle", "keepalives_interval",
		"keepalives_count", "tcp_user_timeout", "application_name", "dbname",          NULL};
	const char *values[] = {"verify-full", "5", "1", "10", "2", "3", "10000", "airlockd", conninfo, NULL};
	struct pgstore *s = calloc(1, sizeof(*s));

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &pgstore_ops;
	s->node = node;
	s->conn = PQconnectdbParams(keys, values, 1);
	if (!s->conn) {
		snprintf(err, errlen, "out of memory");
		free(s);
		return NULL;
	}
	if (!pgstore_set_up(s) || !prepare_table(s)) {
		snprintf(err, errlen, "%s", s->err);
		pgstore_close(&s->base);
		return NULL;
	}
	return &s->base;
}
