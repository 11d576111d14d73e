/*
 * approval_store_sqlite: the SQLite store's file. Opening it (created mode
 * 0600 whatever the umask, WAL, synchronous commits, a busy timeout so two
 * processes on one file wait for each other), making or checking its
 * schema, and what the store's other files share: the column table,
 * messages and transactions (approval_store_sqlite_db.c).
 *
 * A file is refused, with a message naming it, when it is not a SQLite
 * database, is not UTF-8, has a schema version newer than this code's, or
 * holds something else (other tables and no version, or an approvals table
 * of another shape). The connection trusts nothing in the file's schema:
 * triggers and views are off and the defensive flag is on.
 *
 * The store approval_store_sqlite_open returns is the caller's until
 * ops->close frees it.
 */
#include "approval/approval_store_sqlite_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* How long a call waits for another connection's lock before it fails. */
#define SQLSTORE_BUSY_MS 5000
/* SQLite's cap on one value or row: above the largest record the bounds allow. */
#define SQLSTORE_MAX_LENGTH (4 * 1024 * 1024)

#define SQLSTORE_STR_(x) #x
#define SQLSTORE_STR(x) SQLSTORE_STR_(x)

/* A failure reading the file, told apart when the file is not SQLite's or is damaged. */
static bool fail_file(struct sqlstore *s, const char *what)
{
	switch (sqlite3_errcode(s->db) & 0xff) {
	case SQLITE_NOTADB:
		sqlstore_fail(s, APPROVAL_IO, "not a SQLite database");
		break;
	case SQLITE_CORRUPT:
		sqlstore_fail(s, APPROVAL_IO, "the database is damaged (%s)", sqlite3_errmsg(s->db));
		break;
	default:
		sqlstore_fail_db(s, what);
		break;
	}
	return false;
}

/*
 * Prepares sql (a constant: no values) and steps to its first row; *st is
 * then the caller's to finalize. False, with *st NULL, when there is none.
 */
static bool query_row(struct sqlstore *s, const char *sql, const char *what, sqlite3_stmt **st)
{
	int rc;

	*st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return fail_file(s, what);
	rc = sqlite3_step(*st);
	if (rc == SQLITE_ROW)
		return true;
	if (rc == SQLITE_DONE)
		sqlstore_fail(s, APPROVAL_IO, "%s: no answer", what);
	else
		fail_file(s, what);
	sqlite3_finalize(*st);
	*st = NULL;
	return false;
}

static bool exec_sql(struct sqlstore *s, const char *sql, const char *what)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return fail_file(s, what);
	return true;
}

/*
 * Creates path when absent; a file with nothing in it (new, or left empty)
 * is given mode 0600 whatever the umask before SQLite writes to it. An
 * existing database keeps the mode it has.
 */
static bool create_file(struct sqlstore *s, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
	bool ok = false;

	if (fd < 0) {
		sqlstore_fail(s, APPROVAL_IO, "cannot open: %s", strerror(errno));
		return false;
	}
	if (fstat(fd, &st) != 0) {
		sqlstore_fail(s, APPROVAL_IO, "cannot stat: %s", strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		sqlstore_fail(s, APPROVAL_IO, "not a regular file");
		goto out_close;
	}
	if (st.st_size == 0 && (st.st_mode & 07777) != 0600 && fchmod(fd, 0600) != 0) {
		sqlstore_fail(s, APPROVAL_IO, "cannot set mode 0600: %s", strerror(errno));
		goto out_close;
	}
	ok = true;
out_close:
	close(fd);
	return ok;
}

/* Opens the connection and sets what holds for its life: limits, timeouts, no trust in the file's schema. */
static bool open_db(struct sqlstore *s, const char *path)
{
	int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);

	if (rc != SQLITE_OK) {
		if (!s->db)
			sqlstore_fail(s, APPROVAL_IO, "cannot open: out of memory");
		else
			sqlstore_fail_db(s, "cannot open");
		return false;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, SQLSTORE_MAX_LENGTH);
	if (sqlite3_busy_timeout(s->db, SQLSTORE_BUSY_MS) != SQLITE_OK ||
	    sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL) != SQLITE_OK ||
	    sqlite3_db_config(s->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL) != SQLITE_OK ||
	    sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL) != SQLITE_OK ||
	    sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL) != SQLITE_OK) {
		sqlstore_fail_db(s, "cannot configure the connection");
		return false;
	}
	return true;
}

/* The schema version the file says it has (PRAGMA user_version). */
static bool read_version(struct sqlstore *s, int64_t *version)
{
	sqlite3_stmt *st;

	if (!query_row(s, "PRAGMA user_version", "cannot read the schema version", &st))
		return false;
	*version = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return true;
}

/* Refuses a version this code cannot read: newer than its own, or below zero. */
static bool version_known(struct sqlstore *s, int64_t version)
{
	if (version > APPROVAL_SQLITE_VERSION) {
		sqlstore_fail(s, APPROVAL_IO,
			      "schema version %lld is newer than this airlockd knows (%d): run a newer airlockd",
			      (long long)version, APPROVAL_SQLITE_VERSION);
		return false;
	}
	if (version < 0) {
		sqlstore_fail(s, APPROVAL_IO, "schema version %lld is not one of this store's", (long long)version);
		return false;
	}
	return true;
}

/*
 * Reads the file before changing anything in it: it must be a SQLite
 * database in UTF-8 (so text comes back byte for byte, never converted)
 * of a schema version this code knows.
 */
static bool check_file(struct sqlstore *s)
{
	sqlite3_stmt *st;
	const unsigned char *enc;
	int64_t version;
	bool utf8;

	if (!query_row(s, "PRAGMA encoding", "cannot read the text encoding", &st))
		return false;
	enc = sqlite3_column_text(st, 0);
	utf8 = enc && strcmp((const char *)enc, "UTF-8") == 0;
	sqlite3_finalize(st);
	if (!utf8) {
		sqlstore_fail(s, APPROVAL_IO, "the database's text encoding is not UTF-8");
		return false;
	}
	return read_version(s, &version) && version_known(s, version);
}

/* WAL (readers never wait for the writer) and a sync on every commit: an acknowledged write is durable. */
static bool set_modes(struct sqlstore *s)
{
	sqlite3_stmt *st;
	const unsigned char *mode;
	bool wal;

	if (!query_row(s, "PRAGMA journal_mode = WAL", "cannot set the journal mode", &st))
		return false;
	mode = sqlite3_column_text(st, 0);
	wal = mode && strcasecmp((const char *)mode, "wal") == 0;
	sqlite3_finalize(st);
	if (!wal) {
		sqlstore_fail(s, APPROVAL_IO, "the journal mode cannot be set to WAL");
		return false;
	}
	return exec_sql(s, "PRAGMA synchronous = FULL", "cannot set synchronous commits");
}

/* The table approvals has this code's columns, in order, with id its primary key. */
static bool check_shape(struct sqlstore *s)
{
	sqlite3_stmt *st;
	int64_t tables;
	int rc, i = 0;

	if (!query_row(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'approvals'",
		       "cannot read the schema", &st))
		return false;
	tables = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (tables != 1) {
		sqlstore_fail(s, APPROVAL_IO, "no table approvals");
		return false;
	}
	if (sqlite3_prepare_v2(s->db, "PRAGMA table_info(approvals)", -1, &st, NULL) != SQLITE_OK)
		return fail_file(s, "cannot read the table's columns");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 1);
		const unsigned char *decl = sqlite3_column_text(st, 2);
		int64_t pk = sqlite3_column_int64(st, 5);

		if (i >= RECORD_COL_COUNT || !name || !decl ||
		    strcmp((const char *)name, record_columns[i].name) != 0 ||
		    strcasecmp((const char *)decl, sqlstore_sqltype(record_columns[i].kind)) != 0 || pk != (i == 0)) {
			sqlite3_finalize(st);
			sqlstore_fail(s, APPROVAL_IO, "the table approvals has the wrong shape (column %d)", i + 1);
			return false;
		}
		i++;
	}
	if (rc != SQLITE_DONE) {
		fail_file(s, "cannot read the table's columns");
		sqlite3_finalize(st);
		return false;
	}
	sqlite3_finalize(st);
	if (i != RECORD_COL_COUNT) {
		sqlstore_fail(s, APPROVAL_IO, "the table approvals has %d columns, not %d", i, RECORD_COL_COUNT);
		return false;
	}
	return true;
}

/* An empty file gets the schema; any other file must hold nothing else. */
static bool create_schema(struct sqlstore *s)
{
	sqlite3_stmt *st;
	int64_t objects;

	if (!query_row(s, "SELECT count(*) FROM sqlite_master", "cannot read the schema", &st))
		return false;
	objects = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (objects != 0) {
		sqlstore_fail(s, APPROVAL_IO, "a SQLite database of something else (tables, and no schema version)");
		return false;
	}
	return exec_sql(s, APPROVAL_SQLITE_CREATE_TABLE, "cannot create the table") &&
	       exec_sql(s, "PRAGMA user_version = " SQLSTORE_STR(APPROVAL_SQLITE_VERSION),
			"cannot set the schema version");
}

/* A version 1 file gains the columns version 2 added, at the end, as the list has them. */
static bool upgrade_from_1(struct sqlstore *s)
{
	return exec_sql(s, "ALTER TABLE approvals ADD COLUMN \"settings\" TEXT NOT NULL DEFAULT '{}'",
			"cannot add the column settings") &&
	       exec_sql(s, "ALTER TABLE approvals ADD COLUMN \"param_types\" TEXT NOT NULL DEFAULT '[]'",
			"cannot add the column param_types") &&
	       exec_sql(s, "ALTER TABLE approvals ADD COLUMN \"result\" TEXT NOT NULL DEFAULT ''",
			"cannot add the column result") &&
	       exec_sql(s, "PRAGMA user_version = " SQLSTORE_STR(APPROVAL_SQLITE_VERSION),
			"cannot set the schema version");
}

/*
 * Makes, upgrades or checks the schema in one write transaction, so two
 * processes opening a new file at once cannot both create it.
 */
static bool prepare_schema(struct sqlstore *s)
{
	int64_t version;

	if (!sqlstore_begin(s))
		return false;
	if (!read_version(s, &version) || !version_known(s, version))
		goto out_rollback;
	if (version == 1 && !upgrade_from_1(s))
		goto out_rollback;
	if (version == 0 ? !create_schema(s) : !check_shape(s))
		goto out_rollback;
	if (!exec_sql(
		    s,
		    "CREATE INDEX IF NOT EXISTS approvals_by_status ON approvals (\"status\", \"created_at\", \"id\")",
		    "cannot create the index"))
		goto out_rollback;
	return sqlstore_commit(s);
out_rollback:
	sqlstore_rollback(s);
	return false;
}

/* The last failure's message; borrowed until the next call on s. */
static const char *sqlstore_error(struct approval_store *base)
{
	return sqlstore_of(base)->err;
}

/* Closes the connection and frees the store; base is dead afterwards. */
static void sqlstore_close(struct approval_store *base)
{
	struct sqlstore *s;

	if (!base)
		return;
	s = sqlstore_of(base);
	sqlite3_close_v2(s->db);
	free(s);
}

static const struct approval_store_ops sqlstore_ops = {
	.put = sqlstore_put,
	.get = sqlstore_get,
	.each = sqlstore_each,
	.move = sqlstore_move,
	.expire = sqlstore_expire,
	.recover = sqlstore_recover,
	.error = sqlstore_error,
	.close = sqlstore_close,
};

struct approval_store *approval_store_sqlite_open(const char *path, char *err, size_t errlen)
{
	struct sqlstore *s;

	if (!path || !*path) {
		if (err && errlen)
			snprintf(err, errlen, "approval store: no path given");
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	if (!create_file(s, path))
		goto out_free;
	if (!open_db(s, path) || !check_file(s) || !set_modes(s) || !prepare_schema(s))
		goto out_close;
	s->base.ops = &sqlstore_ops;
	return &s->base;
out_close:
	sqlite3_close_v2(s->db);
out_free:
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, s->err);
	free(s);
	return NULL;
}
