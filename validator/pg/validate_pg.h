/*
 * validate_pg: classifies one Postgres simple-Query string with the real
 * Postgres grammar (libpg_query) and decides whether it may run.
 *
 * A string is either a session statement the proxy answers itself (SET,
 * SHOW of a session setting, BEGIN, COMMIT, ...), a read that goes to a
 * runner, or refused with a native SQLSTATE and an actionable message.
 * Pure: no I/O, no global state besides libpg_query's own.
 *
 * validator/pg/ is this validator: validate_pg.c parses and
 * dispatches on the statement's kind; validate_pg_read.c walks a read's
 * tree (every relation against the allowlist, every function against the
 * denylist, CTE scoping); validate_pg_star.c the stars of a read's
 * result (forbid_select_star); validate_pg_stmt.c names and refuses the
 * statement kinds that may not run; validate_pg_session.c the session
 * statements; validate_pg_cursor.c DECLARE, FETCH and CLOSE;
 * validate_pg_catalog.c the relations of pg_catalog; validate_pg_funcs.c
 * the function denylist; validate_pg_util.c the tree accessors they share.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"

enum pgv_kind {
	PGV_REFUSED = 0,     /* see sqlstate, code, message, hint */
	PGV_EMPTY,           /* only whitespace/comments: EmptyQueryResponse */
	PGV_READ,            /* SELECT / VALUES / TABLE / EXPLAIN (never ANALYZE) of one of them */
	PGV_SET,             /* SET [SESSION|LOCAL] name = value; name lower-cased, value in value */
	PGV_RESET,           /* RESET name; name "all" for RESET ALL */
	PGV_SHOW,            /* SHOW name, every SHOW ("all" for SHOW ALL); the session decides
			      * whether it answers locally or sends it to a runner */
	PGV_BEGIN,           /* BEGIN / START TRANSACTION [READ ONLY | ISOLATION ...] */
	PGV_COMMIT,          /* COMMIT / END */
	PGV_ROLLBACK,        /* ROLLBACK / ABORT */
	PGV_SAVEPOINT,       /* SAVEPOINT name */
	PGV_RELEASE,         /* RELEASE [SAVEPOINT] name */
	PGV_ROLLBACK_TO,     /* ROLLBACK TO [SAVEPOINT] name */
	PGV_DISCARD,         /* DISCARD ALL | PLANS | SEQUENCES | TEMP */
	PGV_SET_TRANSACTION, /* SET TRANSACTION / SET SESSION CHARACTERISTICS (read-only or isolation only) */
	PGV_DECLARE,         /* DECLARE name CURSOR FOR <read>; the read starts at query_offset */
	PGV_FETCH,           /* FETCH [FORWARD] count FROM name (FETCH ALL: a huge count) */
	PGV_CLOSE_CURSOR,    /* CLOSE name; name "" for CLOSE ALL */
	PGV_DEALLOCATE,      /* DEALLOCATE [PREPARE] name; name "" for DEALLOCATE ALL */
	PGV_COPY_OUT,        /* COPY (read) / COPY table TO STDOUT: the read and the options below */
	PGV_LOCK,            /* LOCK [TABLE] t, ... IN ACCESS SHARE | ROW SHARE | ROW EXCLUSIVE MODE: no lock taken */
	PGV_WRITE,           /* INSERT / UPDATE / DELETE on a write table (validate_pg_write.h): held for approval */
	PGV_NKINDS           /* how many kinds there are: a bound for checks, never a result */
};

struct airlock_rule; /* conf/config.h: a row filter and column policy */

/* Policy the validator enforces; borrowed for the call. */
struct pgv_policy {
	/* Allowlist: "schema.table" or "schema.*", lower-case, exact match. */
	const char *const *tables;
	size_t ntables;
	/*
	 * The session's effective search_path (without pg_catalog, which is
	 * implicitly first unless listed). Entries are schema names as stored,
	 * unquoted; "$user" is not expanded and is treated as a schema that may
	 * hold any table, so unqualified names are refused while it is listed
	 * (unless "$user.*" is allowed).
	 */
	const char *const *search_path;
	size_t nsearch_path;
	/* The airlock user: what current_user, session_user and friends
	 * return to the agent (NULL: "airlock"). */
	const char *user;
	/* Row filters and column policies (tables "schema.table" as in
	 * tables): validate_pg_scope reads each through them. */
	const struct airlock_rule *rules;
	size_t nrules;
	/*
	 * The functions defined in the database this user may call:
	 * "schema.name" or "schema.*", as stored (the config folds them to
	 * lower case). Any other function outside pg_catalog and
	 * information_schema is refused: its body runs with the backend role's
	 * grants, past tables, filters and masks.
	 */
	const char *const *functions;
	size_t nfunctions;
	/*
	 * The tables this user may write, with a person's approval:
	 * "schema.table" or "schema.*" as in tables (each also readable).
	 * None: every write is refused as on a read-only endpoint.
	 */
	const char *const *write_tables;
	size_t nwrite_tables;
	/*
	 * forbid_select_star: a read whose result columns come from a star
	 * (validate_pg_star.h) is refused with SELECT_STAR once everything
	 * else about it passed.
	 */
	bool forbid_star;
};

struct pgv_result {
	enum pgv_kind kind;
	/* Refusals: a real SQLSTATE, an airlock code (one of NOT_READ_ONLY,
	 * MULTI_STATEMENT, FORBIDDEN_FUNCTION, FORBIDDEN_STATEMENT,
	 * TABLE_NOT_ALLOWED, SYNTAX_ERROR, UNSUPPORTED, TOO_COMPLEX,
	 * OUT_OF_MEMORY; AIRLOCK_E_NONE when not refused), and text an agent
	 * can act on. message does not repeat the code. */
	char sqlstate[6];
	enum airlock_err code;
	char message[512];
	char hint[512];
	int cursor_pos; /* 1-based character position (syntax errors, the second
			 * statement, a refused table or function), 0 if none */

	/* PGV_SET / PGV_RESET / PGV_SHOW / PGV_SAVEPOINT / ...: */
	char name[64];    /* lower-cased setting name; savepoint name as the parser
			   * gives it (unquoted names are already folded) */
	char value[512];  /* SET value as Postgres would store it, e.g. "ISO, MDY" or "public, app";
			   * BEGIN / SET TRANSACTION: the isolation level if given */
	bool is_local;    /* SET LOCAL */
	bool set_default; /* SET name TO DEFAULT (treat as RESET) */
	bool read_write;  /* BEGIN/SET TRANSACTION asked for READ WRITE (the session refuses it
			   * as the session's default only) */
	bool read_only;   /* BEGIN/SET TRANSACTION asked for READ ONLY (the block then refuses writes);
			   * never with read_write: the last one said wins */
	bool set_config;  /* PGV_SET written as SELECT set_config('name', 'value', is_local): answered
			   * with one row, the setting's new value, in a column named column */
	char column[64];

	/* PGV_DECLARE / PGV_FETCH: */
	bool hold;           /* WITH HOLD */
	size_t query_offset; /* where the cursor's SELECT starts in the text */
	uint64_t count;      /* rows FETCH asks for */
	bool move;           /* PGV_FETCH written MOVE: the rows are skipped, not sent */
	bool explain;        /* PGV_READ that is itself an EXPLAIN */

	/* PGV_COPY_OUT: the read, at query_offset for query_len bytes (COPY (read)) or in copy_query
	 * (COPY table: SELECT over it), and the options as " (FORMAT 'csv', ...)" or "". */
	size_t query_len;
	char copy_query[1024];
	char copy_options[512];
	bool copy_header; /* HEADER: the first line is not a row */

	/* PGV_WRITE: */
	char target[136]; /* the table written: schema.table, as the database names them */
	char command[8];  /* "INSERT", "UPDATE" or "DELETE" */
	bool returning;   /* the statement asked for rows (RETURNING) */
	bool write_check; /* the rewritten text's first RETURNING column is PGV_WRITE_CHECK */

	/* SELECT_STAR (validate_pg_star.h): the read whose columns the hint lists, when it is not the text
	 * itself: SELECT * FROM the table of a whole-row reference, or a COPY's read of a table; "" when
	 * none (then query_len, when not 0, spans the read in the text: a cursor's or a COPY's). */
	char star_read[1024];

	uint64_t fingerprint; /* pg_query_fingerprint of the statement, for the audit log;
			       * 0 when the text does not parse */
};

/* Validates sql (NUL-terminated). Always fills out; returns out->kind. */
enum pgv_kind pgv_validate(const struct pgv_policy *policy, const char *sql, struct pgv_result *out);
/* The same without the fingerprint (out->fingerprint 0): for text airlock rewrote, audited as the original. */
enum pgv_kind pgv_validate_again(const struct pgv_policy *policy, const char *sql, struct pgv_result *out);
/*
 * The statements of a text that holds several, as Postgres' parser cuts
 * them: off[i] and len[i] into sql. Returns how many (at most max), or 0
 * when the text does not parse or holds more than max.
 */
size_t pgv_split(const char *sql, size_t *off, size_t *len, size_t max);

#endif
