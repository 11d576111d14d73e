/*
 * approval_store_sqlite_db: what the SQLite store's files share and call:
 * the columns' declared types, the store's messages and its transactions. It calls
 * nothing of the other files.
 */
#include "approval/approval_store_sqlite_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sqlstore_sqltype(enum record_kind kind)
{
	switch (kind) {
	case RECORD_KEY:
		return SQLSTORE_SQLTYPE_KEY;
	case RECORD_STATUS:
		return SQLSTORE_SQLTYPE_STATUS;
	case RECORD_TEXT:
		return SQLSTORE_SQLTYPE_TEXT;
	case RECORD_I64:
		return SQLSTORE_SQLTYPE_I64;
	case RECORD_INT:
		return SQLSTORE_SQLTYPE_INT;
	}
	return "";
}

enum approval_result sqlstore_fail(struct sqlstore *s, enum approval_result code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	if (code == APPROVAL_IO)
		s->base.failures++;
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
