/*
 * approval_store_sqlite_int: what the SQLite store's files share behind
 * approval_store.h. approval_store_sqlite.c opens the file and checks its
 * schema; approval_store_sqlite_row.c writes and reads whole records (put,
 * get, each); approval_store_sqlite_move.c changes their state (move,
 * expire, recover).
 *
 * The table's columns are approval_record.h's list: the CREATE TABLE,
 * INSERT and SELECT texts, the check of an existing file's shape, and the
 * code that binds and reads a record are all made from it, so none can
 * drift from another.
 *
 * Every pointer the functions below take is borrowed for the call; what
 * they hand back is said on each.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_STORE_SQLITE_INT_H
#define AIRLOCK_APPROVAL_APPROVAL_STORE_SQLITE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "approval/approval_record.h"
#include "approval/approval_store.h"

/*
 * The schema this code writes and reads (PRAGMA user_version). Version 1
 * had no settings, param_types or result; opening such a file adds them
 * (an empty object and array, the defaults that version's records ran
 * under, and no result).
 */
#define APPROVAL_SQLITE_VERSION 2

#define SQLSTORE_SQLTYPE_KEY "TEXT"
#define SQLSTORE_SQLTYPE_STATUS "TEXT"
#define SQLSTORE_SQLTYPE_TEXT "TEXT"
#define SQLSTORE_SQLTYPE_I64 "INTEGER"
#define SQLSTORE_SQLTYPE_INT "INTEGER"

/* The SQL texts the list makes (identifiers quoted: "rows" is a keyword). */
#define SQLSTORE_NAME(name, kind, max) ", \"" #name "\""
#define SQLSTORE_PARAM(name, kind, max) ", ?"
#define SQLSTORE_DEF(name, kind, max) ", \"" #name "\" " SQLSTORE_SQLTYPE_##kind " NOT NULL"

#define SQLSTORE_NAMES "\"id\"" APPROVAL_RECORD_MORE_COLUMNS(SQLSTORE_NAME)
#define SQLSTORE_PARAMS "?" APPROVAL_RECORD_MORE_COLUMNS(SQLSTORE_PARAM)
#define SQLSTORE_DEFS "\"id\" " SQLSTORE_SQLTYPE_KEY " NOT NULL PRIMARY KEY" APPROVAL_RECORD_MORE_COLUMNS(SQLSTORE_DEF)

#define APPROVAL_SQLITE_CREATE_TABLE "CREATE TABLE approvals (" SQLSTORE_DEFS ")"
#define APPROVAL_SQLITE_SELECT "SELECT " SQLSTORE_NAMES " FROM approvals"
#define APPROVAL_SQLITE_INSERT "INSERT INTO approvals (" SQLSTORE_NAMES ") VALUES (" SQLSTORE_PARAMS ")"

/* A column's declared type in the file, by kind. */
const char *sqlstore_sqltype(enum record_kind kind);

/* The store: struct approval_store first, so the ops can find the rest. */
struct sqlstore {
	struct approval_store base;
	sqlite3 *db;   /* owned; closed by close */
	char err[512]; /* the last failure's message ("" when none yet) */
};

static inline struct sqlstore *sqlstore_of(struct approval_store *base)
{
	return (struct sqlstore *)base;
}

/* Records a message as the last failure and returns code. */
enum approval_result sqlstore_fail(struct sqlstore *s, enum approval_result code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Records "what: SQLite's message" as the last failure; returns APPROVAL_IO. */
enum approval_result sqlstore_fail_db(struct sqlstore *s, const char *what);

/* Transactions: BEGIN IMMEDIATE waits for the file's write lock (busy timeout). */
bool sqlstore_begin(struct sqlstore *s);
/* Commits; on failure rolls back, records why and returns false. */
bool sqlstore_commit(struct sqlstore *s);
/* Rolls back the open transaction, if any (keeps the recorded failure). */
void sqlstore_rollback(struct sqlstore *s);

/* The ops of approval_store_sqlite_row.c. */
enum approval_result sqlstore_put(struct approval_store *base, const struct approval *a);
enum approval_result sqlstore_get(struct approval_store *base, const char *id, struct approval *out);
enum approval_result sqlstore_each(struct approval_store *base, enum approval_status status, size_t limit,
				   bool (*fn)(void *arg, const struct approval *a), void *arg);

/* The ops of approval_store_sqlite_move.c. */
enum approval_result sqlstore_move(struct approval_store *base, const struct approval_move *m);
enum approval_result sqlstore_expire(struct approval_store *base, int64_t now, size_t *n);
enum approval_result sqlstore_recover(struct approval_store *base, int64_t now, size_t *n);

#endif
