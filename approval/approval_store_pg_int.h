/*
 * approval_store_pg_int: what the Postgres store's files share behind
 * approval_store.h. approval_store_pg.c opens the connection and makes or
 * checks the table; approval_store_pg_db.c runs statements on it, making
 * it again when it was lost; approval_store_pg_row.c writes and reads
 * whole records (put, get, each); approval_store_pg_move.c changes their
 * state (move, expire, recover); approval_store_pg_login.c keeps the
 * approval page's logins, in a table of their own.
 *
 * The table is approval_record.h's list of columns and one more, run_node:
 * the peer_id of the node that moved the record to running, so that a node
 * starting again fails only the writes it was running itself. Text columns
 * are bytea and every value travels in binary, so the bytes an agent sent
 * come back exactly, valid UTF-8 or not.
 *
 * Every pointer the functions below take is borrowed for the call; what
 * they hand back is said on each.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_STORE_PG_INT_H
#define AIRLOCK_APPROVAL_APPROVAL_STORE_PG_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "approval/approval_record.h"
#include "approval/approval_store.h"

/* The tables, in the first schema of the connection's search_path. */
#define PGSTORE_TABLE "airlock_approvals"
#define PGSTORE_LOGINS "airlock_approval_logins"

/* The types of Postgres this store uses (pg_type's oids). */
#define PGSTORE_OID_BYTEA 17
#define PGSTORE_OID_INT8 20
#define PGSTORE_OID_INT4 23
#define PGSTORE_OID_TEXT 25

/* The SQL texts the list makes (identifiers quoted: "rows" and "user" are keywords). */
#define PGSTORE_NAME(name, kind, max) ", \"" #name "\""
#define PGSTORE_NAMES "\"id\"" APPROVAL_RECORD_MORE_COLUMNS(PGSTORE_NAME)
#define PGSTORE_SELECT "SELECT " PGSTORE_NAMES " FROM " PGSTORE_TABLE

/* The store: struct approval_store first, so the ops can find the rest. */
struct pgstore {
	struct approval_store base;
	PGconn *conn;  /* owned; finished by close */
	int node;      /* this node's peer_id, recorded on the writes it runs */
	char err[512]; /* the last failure's message ("" when none yet) */
};

static inline struct pgstore *pgstore_of(struct approval_store *base)
{
	return (struct pgstore *)base;
}

/* A column's type in the table, by kind (its oid in *oid, its SQL name returned). */
const char *pgstore_type(enum record_kind kind, unsigned *oid);

/* Runs sql (no parameters, no rows wanted); false with the failure recorded as "what: message". */
bool pgstore_run(struct pgstore *s, const char *sql, const char *what);
/* A fresh connection (or one made again) gets its bounds; false with the failure recorded. */
bool pgstore_set_up(struct pgstore *s);

/* Records a message as the last failure and returns code. */
enum approval_result pgstore_fail(struct pgstore *s, enum approval_result code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether a statement may be sent again when the connection was lost under it. */
enum pgstore_retry {
	PGSTORE_RETRY_NEVER,      /* it may have been done: the caller is told it failed */
	PGSTORE_RETRY_IDEMPOTENT, /* a read, or a sweep: doing it twice is doing it once */
};

/*
 * Runs sql with n parameters (values[i] NULL for SQL NULL, each of
 * lengths[i] bytes and type types[i], all sent in binary), results in
 * binary. The connection is made again first when it was lost, and once
 * more after the statement when it was lost under it and retry allows.
 * NULL, with the failure recorded as "what: Postgres's message", when the
 * server refused it or could not be reached; else the result, the
 * caller's to PQclear.
 */
PGresult *pgstore_exec(struct pgstore *s, enum pgstore_retry retry, const char *what, const char *sql, int n,
		       const unsigned *types, const char *const *values, const int *lengths);

/* The 8 bytes of v as Postgres's binary int8 (big-endian), in out. */
void pgstore_i64(int64_t v, char out[8]);
/* The 4 bytes of v as Postgres's binary int4, in out. */
void pgstore_i32(int32_t v, char out[4]);

/* The ops of approval_store_pg_row.c. */
enum approval_result pgstore_put(struct approval_store *base, const struct approval *a);
enum approval_result pgstore_get(struct approval_store *base, const char *id, struct approval *out);
enum approval_result pgstore_each(struct approval_store *base, enum approval_status status, size_t limit,
				  bool (*fn)(void *arg, const struct approval *a), void *arg);
/*
 * Checks that res (of a PGSTORE_SELECT) has the table's columns in order,
 * each of its type; false with the failure recorded when it has not.
 */
bool pgstore_check_fields(struct pgstore *s, const PGresult *res);

/*
 * Fills out (overwritten, not freed) from row of res (a PGSTORE_SELECT's,
 * checked by pgstore_check_fields), checking each column against its
 * kind and bound: the store's decoder of what the database holds. On
 * failure (APPROVAL_IO) out is freed and zeroed and the message names the
 * record and the column.
 */
enum approval_result pgstore_row_read(struct pgstore *s, const PGresult *res, int row, struct approval *out);

/* The ops of approval_store_pg_login.c. */
enum approval_result pgstore_login_put(struct approval_store *base, const unsigned char *key,
				       const struct approval_login *l);
enum approval_result pgstore_login_get(struct approval_store *base, const unsigned char *key,
				       struct approval_login *out);
enum approval_result pgstore_login_touch(struct approval_store *base, const unsigned char *key, int64_t now);
enum approval_result pgstore_login_end(struct approval_store *base, const unsigned char *key);
enum approval_result pgstore_login_sweep(struct approval_store *base, int64_t idle_before, int64_t created_before);

/* The ops of approval_store_pg_move.c. */
enum approval_result pgstore_move(struct approval_store *base, const struct approval_move *m);
enum approval_result pgstore_expire(struct approval_store *base, int64_t now, size_t *n);
enum approval_result pgstore_recover(struct approval_store *base, int64_t now, size_t *n);

#endif
