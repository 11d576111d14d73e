/*
 * approval_store_sqlite_int: what the SQLite store's files share behind
 * approval_store.h. approval_store_sqlite.c opens the file and checks its
 * schema; approval_store_sqlite_row.c writes and reads whole records (put,
 * get, each); approval_store_sqlite_move.c changes their state (move,
 * expire, recover).
 *
 * The table's columns are listed once, below: the CREATE TABLE, INSERT and
 * SELECT texts, the check of an existing file's shape, and the code that
 * binds and reads a record are all made from that list, so none can drift
 * from another. A column's name is also the struct approval member it holds.
 *
 * Every pointer the functions below take is borrowed for the call; what
 * they hand back is said on each.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_STORE_SQLITE_INT_H
#define AIRLOCK_APPROVAL_APPROVAL_STORE_SQLITE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <sqlite3.h>

#include "approval/approval_store.h"

/*
 * The schema this code writes and reads (PRAGMA user_version). Version 1
 * had no settings, param_types or result; opening such a file adds them
 * (an empty object and array, the defaults that version's records ran
 * under, and no result).
 */
#define APPROVAL_SQLITE_VERSION 2

/* approved_by and decided_by: up to two names and the comma between them. */
#define APPROVAL_SQLITE_MAX_BY (2 * APPROVAL_MAX_NAME + 1)
/* The longest status name ("executed"), with room to spare. */
#define APPROVAL_SQLITE_MAX_STATUS 16

/* How a column maps to its struct approval member. */
enum sqlstore_column_kind {
	SQLSTORE_KEY,    /* id: char[APPROVAL_ID_LEN + 1], the primary key */
	SQLSTORE_STATUS, /* status: enum approval_status, stored as its name */
	SQLSTORE_TEXT,   /* char *, owned by the record */
	SQLSTORE_I64,    /* int64_t */
	SQLSTORE_INT,    /* int */
};

#define SQLSTORE_SQLTYPE_KEY "TEXT"
#define SQLSTORE_SQLTYPE_STATUS "TEXT"
#define SQLSTORE_SQLTYPE_TEXT "TEXT"
#define SQLSTORE_SQLTYPE_I64 "INTEGER"
#define SQLSTORE_SQLTYPE_INT "INTEGER"

/*
 * The columns after id, in table order: X(name, kind, longest text in
 * bytes). id comes first and is written out where the list is used, so
 * that each use can put a separator before every later column.
 */
#define APPROVAL_SQLITE_MORE_COLUMNS(X)               \
	X(status, STATUS, APPROVAL_SQLITE_MAX_STATUS) \
	X(user, TEXT, APPROVAL_MAX_NAME)              \
	X(protocol, TEXT, APPROVAL_MAX_NAME)          \
	X(client_addr, TEXT, APPROVAL_MAX_NAME)       \
	X(application_name, TEXT, APPROVAL_MAX_NAME)  \
	X(statement, TEXT, APPROVAL_MAX_TEXT)         \
	X(params, TEXT, APPROVAL_MAX_TEXT)            \
	X(rewritten, TEXT, APPROVAL_MAX_TEXT)         \
	X(plan, TEXT, APPROVAL_MAX_TEXT)              \
	X(sample, TEXT, APPROVAL_MAX_SAMPLE)          \
	X(rows, I64, 0)                               \
	X(executed_rows, I64, 0)                      \
	X(created_at, I64, 0)                         \
	X(expires_at, I64, 0)                         \
	X(decided_at, I64, 0)                         \
	X(approvals_needed, INT, 0)                   \
	X(approved_by, TEXT, APPROVAL_SQLITE_MAX_BY)  \
	X(decided_by, TEXT, APPROVAL_SQLITE_MAX_BY)   \
	X(reason, TEXT, APPROVAL_MAX_REASON)          \
	X(policy_checksum, TEXT, APPROVAL_MAX_NAME)   \
	X(settings, TEXT, APPROVAL_MAX_TEXT)          \
	X(param_types, TEXT, APPROVAL_MAX_TEXT)       \
	X(result, TEXT, APPROVAL_MAX_TEXT)

#define APPROVAL_SQLITE_COLUMNS(X) X(id, KEY, APPROVAL_ID_LEN) APPROVAL_SQLITE_MORE_COLUMNS(X)

/* Column numbers, as sqlite3_column_* counts them (bind numbers are one more). */
enum sqlstore_column_index {
#define SQLSTORE_ENUM(name, kind, max) SQLSTORE_COL_##name,
	APPROVAL_SQLITE_COLUMNS(SQLSTORE_ENUM)
#undef SQLSTORE_ENUM
		SQLSTORE_COL_COUNT
};

/* The SQL texts the list makes (identifiers quoted: "rows" is a keyword). */
#define SQLSTORE_NAME(name, kind, max) ", \"" #name "\""
#define SQLSTORE_PARAM(name, kind, max) ", ?"
#define SQLSTORE_DEF(name, kind, max) ", \"" #name "\" " SQLSTORE_SQLTYPE_##kind " NOT NULL"

#define SQLSTORE_NAMES "\"id\"" APPROVAL_SQLITE_MORE_COLUMNS(SQLSTORE_NAME)
#define SQLSTORE_PARAMS "?" APPROVAL_SQLITE_MORE_COLUMNS(SQLSTORE_PARAM)
#define SQLSTORE_DEFS "\"id\" " SQLSTORE_SQLTYPE_KEY " NOT NULL PRIMARY KEY" APPROVAL_SQLITE_MORE_COLUMNS(SQLSTORE_DEF)

#define APPROVAL_SQLITE_CREATE_TABLE "CREATE TABLE approvals (" SQLSTORE_DEFS ")"
#define APPROVAL_SQLITE_SELECT "SELECT " SQLSTORE_NAMES " FROM approvals"
#define APPROVAL_SQLITE_INSERT "INSERT INTO approvals (" SQLSTORE_NAMES ") VALUES (" SQLSTORE_PARAMS ")"

/* One column: its name, declared type, kind, member and bound. */
struct sqlstore_column {
	const char *name;
	const char *sqltype;
	enum sqlstore_column_kind kind;
	size_t offset; /* of the member in struct approval */
	size_t max;    /* the longest text, in bytes (text kinds) */
};

/* The columns in table order (SQLSTORE_COL_COUNT of them). */
extern const struct sqlstore_column sqlstore_columns[SQLSTORE_COL_COUNT];

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
