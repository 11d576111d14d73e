/*
 * validate_my: classifies one MySQL/MariaDB COM_QUERY text and decides
 * whether it may run.
 *
 * The text is cut into tokens by validate_my_lex, a lexer that follows
 * the server's own rules (backslash escapes unless NO_BACKSLASH_ESCAPES,
 * "x" as an identifier under ANSI_QUOTES, `#` and `-- ` comments, refused
 * executable comments), and then read by a small recursive-descent
 * parser that knows where tables, functions and system variables can
 * appear. A statement is a read that goes to a runner, a session
 * statement the proxy answers itself (SET, USE, BEGIN, COMMIT, SHOW
 * WARNINGS, SHOW VARIABLES, SELECT @@version_comment, ...), or refused
 * with a MySQL errno, a SQLSTATE and an actionable message. Anything the
 * parser cannot place is refused, never guessed.
 *
 * Pure: no I/O, no allocation, no global state. The policy and the SQL
 * text are borrowed for the call; the result holds no pointers into them
 * (stmt_kind points to a static string).
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"

struct airlock_rule; /* conf/config.h: a row filter and column policy */

struct vmy_policy {
	const char *user;          /* airlock login name, for messages */
	const char *database;      /* current database; NULL when none is selected */
	const char *const *tables; /* allowlist: "db.table" or "db.*" as written in the config */
	size_t ntables;
	bool allow_sleep, allow_benchmark;
	bool no_backslash_escapes; /* sql_mode has NO_BACKSLASH_ESCAPES */
	bool ansi_quotes;          /* sql_mode has ANSI_QUOTES (or ANSI): "x" is an identifier */
	/*
	 * The character set the backend will read the text in (the runner's
	 * set.names); NULL means utf8mb4. utf8mb4, utf8mb3, utf8 and ascii are
	 * lexed as utf8mb4. latin1 and binary are accepted with one more rule:
	 * bytes >= 0x80 only inside quotes and comments (latin1's 0xA0 is
	 * whitespace to the server). Any other set refuses every statement.
	 * SET NAMES latin1 / binary is accepted only when this is not NULL: a
	 * session that fills it passes the new set back on the next statement.
	 */
	const char *charset;
	/* Row filters and column policies (tables "db.table" as in tables):
	 * validate_my_scope reads each through them. */
	const struct airlock_rule *rules;
	size_t nrules;
	/*
	 * Governed writes (writes = approve): "db.table" or "db.*", each also in
	 * tables. An INSERT, UPDATE or DELETE on one of them is a VMY_WRITE
	 * (validate_my_write.h); with none every write is refused.
	 */
	const char *const *write_tables;
	size_t nwrite_tables;
	/* The text is validate_my_scope's rewrite, validated again: its references are counted as written
	 * (the first pass counted those its filters add, validate_my_names.c). */
	bool rewrite;
	/* forbid_select_star: a read whose result columns come from a star (SELECT *, t.*) is refused with
	 * SELECT_STAR once everything else about it passed (validate_my_read.c). */
	bool forbid_star;
};

enum vmy_kind {
	VMY_READ,  /* run it in a runner: SELECT, WITH ... SELECT, SHOW (allowed forms), DESCRIBE/DESC, plain EXPLAIN */
	VMY_EMPTY, /* only comments/whitespace/';' -> the session answers 1065 "Query was empty" */
	VMY_SET,   /* SET ... : see assigns */
	VMY_BEGIN, /* START TRANSACTION [READ ONLY | WITH CONSISTENT SNAPSHOT], BEGIN [WORK] */
	VMY_COMMIT,         /* COMMIT [WORK] (also [AND NO CHAIN] [NO RELEASE]) */
	VMY_ROLLBACK,       /* ROLLBACK [WORK] (not TO SAVEPOINT: refused) */
	VMY_USE,            /* USE db : see use_db */
	VMY_SHOW_WARNINGS,  /* SHOW WARNINGS [LIMIT [offset,] n], SHOW COUNT(*) WARNINGS (count_only) */
	VMY_SHOW_ERRORS,    /* SHOW ERRORS ..., SHOW COUNT(*) ERRORS */
	VMY_LOCAL_SELECT,   /* SELECT of only local items (see below), optional LIMIT n */
	VMY_SHOW_VARIABLES, /* SHOW [SESSION|LOCAL] VARIABLES [LIKE 'p' | WHERE Variable_name = 'x' | WHERE
			       Variable_name IN ('a','b')] */
	VMY_SHOW_POLICY,    /* SHOW AIRLOCK POLICY: answered by the session */
	VMY_SHOW_APPROVAL,  /* SHOW AIRLOCK APPROVAL 'id': a held write's outcome, answered by the session */
	VMY_SHOW_STATUS,    /* SHOW [SESSION|LOCAL] STATUS, as VARIABLES: the session's own status only */
	VMY_LOCK_TABLES,    /* LOCK TABLES ... READ [LOCAL] (tables checked), UNLOCK TABLES: answered OK */
	VMY_WRITE,          /* INSERT, UPDATE or DELETE on a write table: see write (validate_my_write.h) */
	VMY_REFUSED,
	VMY_NKINDS /* how many kinds there are: a bound for checks, never a result */
};

/*
 * One setting of a SET statement.
 *
 * name: lower-case, scope stripped ("autocommit", "sql_mode", ...); "names"
 * for SET NAMES, "character set" for SET CHARACTER SET / CHARSET, and
 * "transaction" for SET [SESSION] TRANSACTION characteristics, one assign
 * per characteristic with value "READ ONLY" or "ISOLATION LEVEL <level>"
 * (level one of READ UNCOMMITTED, READ COMMITTED, REPEATABLE READ,
 * SERIALIZABLE).
 *
 * value: strings unquoted and unescaped; numbers as written (with a
 * leading '-' if negative); bare words upper-cased (ON, OFF, TRUE,
 * DEFAULT, ANSI, ...), except character set and collation names (names,
 * character set, character_set_*, collation_*), which are lower-cased.
 */
/* At most this many REPLACE()s in one value. */
#define VMY_MAX_REPLACE 4

struct vmy_assign {
	char name[64];
	char value[256];
	char collate[64]; /* SET NAMES x COLLATE y (lower-case); "" when absent */
	bool is_default;  /* value was DEFAULT (value holds "DEFAULT") */
	bool quoted;      /* value was a string literal */
	bool append;      /* value is appended to the variable's current value:
			   * name = CONCAT(@@name, 'a', 'b') gives value "ab"
			   * (sql_mode and session_track_* only) */
	/*
	 * With append: name = REPLACE(@@name, 'from', 'to'), nested, and inside
	 * CONCAT: each applied in order to the current value (every
	 * occurrence, as MariaDB's REPLACE) before value is appended.
	 */
	struct vmy_replace {
		char from[64];
		char to[64];
	} replace[VMY_MAX_REPLACE];
	unsigned nreplace;
	bool next_transaction_only; /* SET TRANSACTION without SESSION: the next transaction only */
};

enum vmy_item {
	VMY_ITEM_DATABASE,
	VMY_ITEM_VERSION_COMMENT,
	VMY_ITEM_VERSION,
	VMY_ITEM_USER,
	VMY_ITEM_CURRENT_USER,
	VMY_ITEM_CONNECTION_ID,
	VMY_ITEM_SYSVAR /* @@[session.]name; name in sysvar */
};

struct vmy_local_item {
	enum vmy_item item;
	char sysvar[64]; /* lower-case variable name for every @@ item (also "version",
			  * "version_comment"); "" for function items */
	char label[256]; /* column name as the server would print it: the item as
			  * written ("@@version_comment", "database()", "DATABASE( )")
			  * or the AS alias */
};

#define VMY_MAX_ASSIGNS 32
#define VMY_MAX_ITEMS 32 /* MySQL Connector/J asks for 21 variables at connect */

/*
 * What the catalog scoping (validate_my_scope.h) rewrites in a VMY_READ:
 * each reference to an information_schema table, and the SHOW forms that
 * list tables or databases. Offsets are bytes into the validated text.
 */
#define VMY_MAX_SCOPED 16

enum vmy_show_kind {
	VMY_SHOW_NONE = 0,
	VMY_SHOW_TABLES,       /* SHOW [FULL] TABLES [FROM db] */
	VMY_SHOW_TABLE_STATUS, /* SHOW TABLE STATUS [FROM db] */
	VMY_SHOW_DATABASES,    /* SHOW DATABASES | SCHEMAS */
	VMY_SHOW_INDEX,        /* SHOW INDEX | INDEXES | KEYS FROM table [FROM db] */
};

/*
 * A UUID() call: MariaDB's UUID() is version 1, ending in the backend
 * host's MAC address; the rewrite puts a random (version 4) one in its
 * place.
 */
#define VMY_REF_UUID (-2)
/*
 * A column written db.table.column whose table the rewrite turns into a
 * derived table (one with a rule, or a filtered information_schema
 * table): a derived table has no database, so the rewrite leaves out the
 * "db." part, [start, end).
 */
#define VMY_REF_QUALIFIER (-3)

struct vmy_scoped_ref {
	uint32_t start, end; /* [start, end): "db.table" or "table" as written, alias excluded */
	char table[65];      /* the information_schema table, upper-case */
	char written[65];    /* the table's name as written (unquoted) */
	char db[65];         /* a table with a rule: its database */
	int16_t rule;        /* index into the policy's rules; -1: an information_schema table;
			      * VMY_REF_UUID: a UUID() call (start, end: the call);
			      * VMY_REF_QUALIFIER: a column's "db." (start, end: it) */
	bool aliased;        /* an alias follows: the derived table takes that one */
	/* A table with a rule: its index hints as written after the alias, [hint_start, hint_end)
	 * (equal: none), which the rewrite moves into the derived table. */
	uint32_t hint_start, hint_end;
};

struct vmy_scope_plan {
	struct vmy_scoped_ref refs[VMY_MAX_SCOPED];
	size_t nrefs;
	bool too_many; /* more references than refs holds: the read is refused */
	enum vmy_show_kind show;
	bool full;                     /* SHOW FULL TABLES */
	char db[65];                   /* SHOW TABLES / TABLE STATUS / INDEX: the database listed */
	char table[65];                /* SHOW INDEX: the table listed */
	uint32_t like_start, like_len; /* the LIKE pattern's string token; like_len 0 when none */
	uint32_t where_start;          /* the WHERE condition's first byte (it runs to stmt_len); 0 when none */
};

/* A VMY_WRITE: what vmy_write_scope makes of it. Offsets are bytes into the validated text. */
struct vmy_write_plan {
	char command[8];                   /* "INSERT", "UPDATE" or "DELETE" */
	char db[65], table[65];            /* the table written */
	int16_t rule;                      /* its rule in the policy (a row filter); -1: none */
	uint32_t target_start, target_end; /* [start, end): the table as written, alias excluded */
	uint32_t where_start, where_end;   /* UPDATE, DELETE: the WHERE condition; equal: none */
	uint32_t filter_at;                /* without a WHERE: where one with the filter goes */
	uint32_t alias_start, alias_end;   /* UPDATE: the alias as written, AS included; equal: none */
	uint32_t limit_start;              /* UPDATE, DELETE: the LIMIT keyword; 0: none */
	long limit;                        /* its row count */
	uint32_t rows;                     /* INSERT: the rows it lists */
	bool sample;                       /* a rewrite's RETURNING gives its rows whole (vmy_write_sample) */
};

struct vmy_result {
	enum vmy_kind kind;
	/* VMY_REFUSED: */
	uint16_t my_errno; /* 1064, 1142, 1227, 1792, 1046, 1235, ... */
	char sqlstate[6];
	enum airlock_err code; /* airlock code: NOT_READ_ONLY, MULTI_STATEMENT,
				* FORBIDDEN_FUNCTION, TABLE_NOT_ALLOWED, NO_DATABASE,
				* EXECUTABLE_COMMENT, SYNTAX, NOT_ALLOWED, UNSUPPORTED,
				* TOO_COMPLEX; AIRLOCK_E_NONE when not refused */
	char message[512];     /* native-style first part, e.g. "SELECT command denied to user
				* 'agent' for table `shop`.`staff_salaries`" */
	char hint[512];        /* what the agent can do */
	/* VMY_SET */
	struct vmy_assign assigns[VMY_MAX_ASSIGNS];
	size_t nassigns;
	/* VMY_BEGIN */
	bool read_only_txn;
	/* VMY_USE */
	char use_db[65];
	/* VMY_LOCAL_SELECT */
	struct vmy_local_item items[VMY_MAX_ITEMS];
	size_t nitems;
	long limit; /* LOCAL_SELECT and SHOW WARNINGS/ERRORS: -1 none */
	/* VMY_SHOW_VARIABLES: like is the pattern as written; names are lower-case */
	char like[256];
	bool have_like;
	char names[VMY_MAX_ITEMS][64];
	size_t nnames;
	/* VMY_READ */
	const char *stmt_kind; /* "SELECT", "SHOW", "DESCRIBE", "EXPLAIN" (static) */
	/* SHOW CREATE TABLE: the database of the table shown, for the session to scrub its foreign keys
	 * (validate_my_create.h); "" for every other statement. */
	char create_db[65];
	/* VMY_SHOW_WARNINGS / VMY_SHOW_ERRORS */
	bool count_only; /* SHOW COUNT(*) WARNINGS: one row with the count */
	long offset;     /* SHOW WARNINGS LIMIT offset, n: 0 when absent */
	/* Byte length of the statement proper, from the start of the text
	 * through its last token, without a trailing ';' and trailing comments;
	 * 0 for VMY_EMPTY and for text refused before parsing (lexical errors,
	 * several statements). */
	size_t stmt_len;
	/* VMY_SHOW_APPROVAL: the id as written (unquoted; checked by the session) */
	char approval[40];
	/* VMY_READ, VMY_WRITE: what validate_my_scope rewrites. */
	struct vmy_scope_plan scope;
	/* VMY_WRITE */
	struct vmy_write_plan write;
};

/*
 * Classifies one COM_QUERY text (len bytes, may contain NULs -> refused).
 * pol may be NULL (deny all tables). Never allocates; no globals. Always
 * fills out completely.
 */
void vmy_validate(const struct vmy_policy *pol, const char *sql, size_t len, struct vmy_result *out);

/*
 * sql_mode helpers for the session. vmy_sql_mode_normalize parses a
 * sql_mode value as MariaDB reads it (comma-separated mode names,
 * case-insensitive, empty elements ignored) and writes into out (cap
 * bytes; out may be NULL) what MariaDB prints for it afterwards: upper
 * case, in MariaDB's order, combination modes (ANSI, TRADITIONAL)
 * followed by the modes they set. flags gets the VMY_MODE_* bits (may be
 * NULL). Returns false for unknown names, for a result that does not fit
 * and for modes airlock refuses because they change the grammar or the
 * quoting rules beyond ANSI_QUOTES and NO_BACKSLASH_ESCAPES (ORACLE,
 * MSSQL, DB2, POSTGRESQL, MAXDB, MYSQL323, MYSQL40).
 *
 * vmy_sql_mode_parse is the same check reporting the two modes that
 * change lexing. The outputs may be NULL.
 */
#define VMY_MODE_ANSI_QUOTES 1u          /* ANSI_QUOTES (or ANSI): "x" is an identifier */
#define VMY_MODE_NO_BACKSLASH_ESCAPES 2u /* NO_BACKSLASH_ESCAPES */
/* A mode that changes an expression's value, not only how it is written
 * (NO_UNSIGNED_SUBTRACTION, NO_ZERO_DATE, NO_ZERO_IN_DATE,
 * ALLOW_INVALID_DATES, PAD_CHAR_TO_FULL_LENGTH, TIME_ROUND_FRACTIONAL):
 * no spelling of a row filter or mask reads the same under it. */
#define VMY_MODE_VALUES 4u
bool vmy_sql_mode_normalize(const char *mode, size_t len, char *out, size_t cap, unsigned *flags);
bool vmy_sql_mode_parse(const char *mode, size_t len, bool *ansi_quotes, bool *no_backslash_escapes);

#endif
