/*
 * approval_record: what every approval store shares about a record, so
 * that the SQLite store and the Postgres store hold the same columns and
 * refuse the same things. The columns are listed once, below: each store
 * makes its table, its INSERT and SELECT texts and the code that binds and
 * reads a record from that list. A column's name is also the struct
 * approval member it holds.
 *
 * record_check_new checks a new record against approval.h's bounds before
 * a store writes a byte of it. Every pointer taken is borrowed for the
 * call.
 */
#ifndef AIRLOCK_APPROVAL_APPROVAL_RECORD_H
#define AIRLOCK_APPROVAL_APPROVAL_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "approval/approval.h"
#include "approval/approval_store.h"

/* approved_by and decided_by: up to two names and the comma between them. */
#define RECORD_MAX_BY (2 * APPROVAL_MAX_NAME + 1)
/* The longest status name ("executed"), with room to spare. */
#define RECORD_MAX_STATUS 16

/* How a column maps to its struct approval member. */
enum record_kind {
	RECORD_KEY,    /* id: char[APPROVAL_ID_LEN + 1], the primary key */
	RECORD_STATUS, /* status: enum approval_status, stored as its name */
	RECORD_TEXT,   /* char *, owned by the record */
	RECORD_I64,    /* int64_t */
	RECORD_INT,    /* int */
};

/*
 * The columns after id, in table order: X(name, kind, longest text in
 * bytes). id comes first and is written out where the list is used, so
 * that each use can put a separator before every later column.
 */
#define APPROVAL_RECORD_MORE_COLUMNS(X)              \
	X(status, STATUS, RECORD_MAX_STATUS)         \
	X(user, TEXT, APPROVAL_MAX_NAME)             \
	X(protocol, TEXT, APPROVAL_MAX_NAME)         \
	X(client_addr, TEXT, APPROVAL_MAX_NAME)      \
	X(application_name, TEXT, APPROVAL_MAX_NAME) \
	X(statement, TEXT, APPROVAL_MAX_TEXT)        \
	X(params, TEXT, APPROVAL_MAX_TEXT)           \
	X(rewritten, TEXT, APPROVAL_MAX_TEXT)        \
	X(plan, TEXT, APPROVAL_MAX_TEXT)             \
	X(sample, TEXT, APPROVAL_MAX_SAMPLE)         \
	X(rows, I64, 0)                              \
	X(executed_rows, I64, 0)                     \
	X(created_at, I64, 0)                        \
	X(expires_at, I64, 0)                        \
	X(decided_at, I64, 0)                        \
	X(approvals_needed, INT, 0)                  \
	X(approved_by, TEXT, RECORD_MAX_BY)          \
	X(decided_by, TEXT, RECORD_MAX_BY)           \
	X(reason, TEXT, APPROVAL_MAX_REASON)         \
	X(policy_checksum, TEXT, APPROVAL_MAX_NAME)  \
	X(settings, TEXT, APPROVAL_MAX_TEXT)         \
	X(param_types, TEXT, APPROVAL_MAX_TEXT)      \
	X(result, TEXT, APPROVAL_MAX_TEXT)

#define APPROVAL_RECORD_COLUMNS(X) X(id, KEY, APPROVAL_ID_LEN) APPROVAL_RECORD_MORE_COLUMNS(X)

/* Column numbers, in table order. */
enum record_column_index {
#define RECORD_ENUM(name, kind, max) RECORD_COL_##name,
	APPROVAL_RECORD_COLUMNS(RECORD_ENUM)
#undef RECORD_ENUM
		RECORD_COL_COUNT
};

/* One column: its name, kind, member and bound. */
struct record_column {
	const char *name;
	enum record_kind kind;
	size_t offset; /* of the member in struct approval */
	size_t max;    /* the longest text, in bytes (text kinds) */
};

/* The columns in table order (RECORD_COL_COUNT of them). */
extern const struct record_column record_columns[RECORD_COL_COUNT];

/* The text member c of a (borrowed): "" for NULL; false when it passes c->max bytes. */
bool record_text(const struct approval *a, const struct record_column *c, const char **v, size_t *n);

/*
 * A new record: a well-formed id, pending, no decision or run yet, every
 * text within its bound, params, sample, settings and param_types of
 * their JSON shapes. On a refusal (APPROVAL_INVALID) err says why, naming
 * the id and the column, never a value.
 */
enum approval_result record_check_new(const struct approval *a, char *err, size_t errlen);

#endif
