/*
 * approval_store_sqlite_db: what the SQLite store's files share and call:
 * the column table, the store's messages and its transactions. It calls
 * nothing of the other files.
 */
#include "approval/approval_store_sqlite_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const struct sqlstore_column sqlstore_columns[SQLSTORE_COL_COUNT] = {
#define SQLSTORE_ROW(name, kind, max) \
	{#name, SQLSTORE_SQLTYPE_##kind, SQLSTORE_##kind, offsetof(struct approval, name), max},
	APPROVAL_SQLITE_COLUMNS(SQLSTORE_ROW)
#undef SQLSTORE_ROW
};

enum approval_result sqlstore_fail(struct sqlstore *s, enum approval_result code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	return code;
}

enum approval_result sqlstore_fail_db(struct sqlstore *s, const char *what)
{
	return sqlstore_fail(s, APPROVAL_IO, "%s: %s", what, sqlite3_errmsg(s->db));
}

bool sqlstore_begin(struct sqlstore *s)
{
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		sqlstore_fail_db(s, "cannot begin a transaction");
		return false;
	}
	return true;
}

bool sqlstore_commit(struct sqlstore *s)
{
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return true;
	sqlstore_fail_db(s, "cannot commit");
	sqlstore_rollback(s);
	return false;
}

void sqlstore_rollback(struct sqlstore *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}
