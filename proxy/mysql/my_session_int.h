/*
 * my_session_int: what the MySQL session's files share: the session struct
 * and each file's functions, listed from the bottom up. The calls go one
 * way: my_session.c (handshake, authentication, the command loop) ->
 * my_prepared.c (COM_STMT_*) -> my_cursor.c (cursors of executions) -> my_query.c (statements: local answers,
 * validation) -> my_job.c (a statement's job and its result set) ->
 * my_reply.c (replies), my_vars.c (the session's variables) and
 * my_scrub.c (SHOW CREATE TABLE as the world shows it). Nothing outside
 * proxy/mysql/ includes it.
 */
#ifndef AIRLOCK_PROXY_MY_SESSION_INT_H
#define AIRLOCK_PROXY_MY_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "protocol/my_auth.h"
#include "protocol/my_codec.h"
#include "proxy/job/job.h"
#include "proxy/star_hint.h"
#include "validator/mysql/validate_my.h"
#include "proxy/session.h"

#define MYS_MAX_WARNINGS 16
/* Bytes of statement text a session may keep prepared. */
#define MYS_MAX_PREPARED_BYTES (4u * 1024u * 1024u)

/* The steps of the handshake and authentication (the core's AUTH state). */
enum mys_auth_step {
	MYS_HANDSHAKE,   /* HandshakeV10 sent; the response next */
	MYS_AUTH_SWITCH, /* AuthSwitchRequest sent; the token next */
	MYS_SHA2_FULL,   /* caching_sha2_password full authentication: key request or RSA blob next */
};

enum mys_plugin {
	MYS_NATIVE, /* mysql_native_password */
	MYS_SHA2,   /* caching_sha2_password */
};

struct bufferevent;
struct event;
struct server;
struct server_gen;

/* One row of SHOW WARNINGS. */
struct mys_warning {
	char level[8]; /* "Note", "Warning", "Error" */
	uint16_t code;
	char message[512];
};

/* What a SHOW WARNINGS / SHOW ERRORS lists. */
struct myl_warnings {
	bool errors_only; /* SHOW ERRORS */
	bool count_only;  /* SHOW COUNT(*) WARNINGS */
	long offset;      /* LIMIT offset, n */
	long limit;       /* -1: none */
};

/* A prepared statement (COM_STMT_PREPARE). Owned by the session. */
struct mys_stmt {
	uint32_t id;
	char *sql; /* the text as prepared, NUL-terminated */
	size_t len;
	uint16_t nparams;
	size_t *holes;  /* byte offset of each '?' in sql */
	bool *counts;   /* each '?' is a LIMIT / OFFSET count */
	uint8_t *types; /* 2 bytes per parameter: the types last bound */
	bool have_types;
	uint8_t *cols; /* the describe job's 'K' payload: the columns PREPARE_OK lists; NULL: none */
	uint32_t cols_len;
	struct mys_cursor *cursor; /* an execution with CURSOR_TYPE_READ_ONLY: its rows, fetched in steps */
	bool long_data;            /* COM_STMT_SEND_LONG_DATA came: the next EXECUTE is refused */
	bool out_of_memory;        /* its columns' description could not be kept: PREPARE fails */
	bool local;                /* SHOW WARNINGS / ERRORS: the session answers each EXECUTE (warnings) */
	struct myl_warnings warnings;
	size_t bytes; /* counted in the session's prepared_bytes */
};

/* The per-column arrays of a binary result, made once per result (owned by the session). */
struct mys_bin {
	uint8_t *types;         /* each column's type */
	bool *is_unsigned;      /* each column's UNSIGNED flag */
	const uint8_t **values; /* the current row's values (views into its frame; NULL = SQL NULL) */
	size_t *lens;
};

/* A result's SHOW CREATE TABLE definition, scrubbed of what the world hides (my_scrub.c). */
struct mys_create {
	uint16_t col; /* its column, from 1; 0: the result has none */
	char db[65];  /* the database of the table shown */
};

/* The session variables that change what a statement does or how its result is encoded. */
/* Variables a session keeps for itself (my_vars.c's table), most of them applied to every job. */
#define MYV_KEPT 20

struct mys_vars {
	bool autocommit;
	char charset[32];   /* SET NAMES / the handshake's character set: what results are encoded in */
	uint8_t charset_id; /* collation id of charset's default collation */
	char collation[64];
	char sql_mode[256]; /* sent to every job; the lexer follows it */
	char time_zone[64];
	char isolation[32];  /* what @@transaction_isolation reports */
	uint32_t timeout_ms; /* max_statement_time / max_execution_time; 0: the user's timeout_ms */
	/* The variables of my_vars.c's kept table, as normalised text ("" until set: the default). */
	char kept[MYV_KEPT][24];
};

struct my_session {
	struct session core; /* first: the session core sees a struct session; core.id is the connection id */
	enum mys_auth_step step;
	uint8_t seq; /* sequence id of the next packet this side sends */
	uint8_t scramble[MY_SCRAMBLE_LEN];
	uint32_t caps; /* client's capabilities AND ours */
	enum mys_plugin plugin;
	bool unknown_user; /* authentication runs to the end, then fails */
	/* The client says it is a dump tool (program_name mysqldump / mariadb-dump): a cut result is an error. */
	bool dump_tool;
	bool used_password; /* the failed login sent a password (for its 1045 text) */
	char program[64];   /* the connection attribute program_name, "" when none (a held write records it) */
	char host[64];      /* the client's address, for messages */
	char login_db[65];  /* database named in the handshake response */
	char database[65];  /* current database, "" when none */
	char *versioned;    /* the last command's text with its versioned comments read (owned; freed at the
			     * next command and at the end) */

	time_t connected;   /* when the connection arrived: COM_STATISTICS' uptime */
	uint64_t questions; /* commands this session sent after login: COM_STATISTICS' questions */

	struct mys_vars vars;
	bool in_trans;
	uint32_t kill_wait; /* a KILL QUERY for this id sent to another node, its answer awaited (0: none) */
	bool read_only_txn;
	struct mys_warning warnings[MYS_MAX_WARNINGS];
	uint16_t nwarnings;  /* rows SHOW WARNINGS lists */
	uint32_t warn_count; /* the count reported (may exceed the rows kept) */

	struct mys_stmt *preparing;  /* a COM_STMT_PREPARE whose describe job runs (not in stmts yet) */
	struct mys_cursor *fetching; /* the cursor a COM_STMT_FETCH reads */
	struct mys_stmt **stmts;     /* nstmts slots, NULL where free; grown as needed (prepared_bytes bounds it) */
	size_t nstmts;
	uint32_t next_stmt_id;
	size_t prepared_bytes;

	/* The running statement (its job is core.job). */
	bool field_list; /* a COM_FIELD_LIST: column definitions only */
	/* Its wildcard (a LIKE pattern on column names, as MariaDB reads it); "" lists every column. */
	char field_wild[257];
	bool binary; /* a COM_STMT_EXECUTE: rows in the binary protocol */
	/* A row could not be encoded (UNSUPPORTED) or its arrays made (OUT_OF_MEMORY): that ERR
	 * was sent and the rest is dropped. AIRLOCK_E_NONE otherwise. */
	enum airlock_err result_failed;
	struct mys_bin bin; /* binary: made at the column frame, freed when the result ends */
	/* The read's SHOW CREATE TABLE database (vmy_result.create_db), "" for any other statement;
	 * create: what the result's column definitions made of it. */
	char create_db[65];
	struct mys_create create;
	/* While an EXPLAIN's job starts: its hidden_keys read (borrowed), else NULL. */
	const char *hidden_keys;
	/* While a SELECT's job starts (not a describe or a field list): the runner checks max_cost first. */
	bool cost_check;
	bool cols_sent;
	uint16_t ncols;
	struct myw_pending *write; /* a write's dry run while it runs (my_write.c); owned */
	struct myw_wait *waiting;  /* a held write whose decision the statement waits for (my_write.c); owned */
	/* A SELECT_STAR refusal held while the describe job of its read names the columns (my_star.c). */
	struct star_refusal star;
	bool star_allowed; /* the policy lets a star through: that job's scoping, COM_FIELD_LIST's read */
};

/* my_reply.c: the replies, below everything else */
/* Sends what s->w holds; a reply that could not be built closes the session. */
void myr_flush(struct my_session *s);
/* The status flags of OK and EOF: autocommit, in a transaction, read-only. */
uint16_t myr_status(const struct my_session *s);
void myr_put_ok(struct my_session *s);
/* The same with a statement's affected rows. */
void myr_put_ok_rows(struct my_session *s, uint64_t affected);
/*
 * The replies that raise take their code from the error table: code is an
 * airlock code (its name leads the message, the hint follows it) or
 * AIRLOCK_E_NONE for the server's own condition; native the condition
 * whose errno and SQLSTATE go out, or AIRLOCK_N_NONE for the code's own
 * (base/errors.h).
 */
/* An ERR packet. */
void myr_put_err(struct my_session *s, enum airlock_err code, enum airlock_native native, const char *message,
		 const char *hint);
/* An ERR packet with the errno and SQLSTATE a runner reported, as they came. */
void myr_put_db_err(struct my_session *s, uint16_t my_errno, const char *sqlstate, const char *message);
bool myr_deprecate_eof(const struct my_session *s);
/* A refused statement: ERR, audit record, flush. */
void myr_refuse(struct my_session *s, enum airlock_err code, enum airlock_native native, const char *message,
		const char *hint);
/* The validator's refusal, as myr_refuse. */
void myr_refused(struct my_session *s, const struct vmy_result *v);
/* The EOF or OK that ends a result set; _with adds status flags (a cursor's). */
void myr_result_end(struct my_session *s);
void myr_result_end_with(struct my_session *s, uint16_t status);
/* The column arrays of a result in the binary protocol, for n columns; false when memory ran out. */
bool myr_bin_alloc(struct mys_bin *b, uint16_t n);
/* Frees them (safe when none were made). */
void myr_bin_free(struct mys_bin *b);
/* One 'D' frame as a binary row of b's columns; false, with the ERR written, when it cannot be encoded. */
bool myr_binary_row(struct my_session *s, struct mys_bin *b, uint16_t ncols, const struct frame *f);
void myr_clear_warnings(struct my_session *s);
/*
 * The column definitions of a runner's 'K' frame (no count, no EOF); bin
 * (may be NULL) gets each column's type for binary rows. For a field list,
 * only the columns s->field_wild matches. Returns how many were read.
 */
uint16_t myr_put_columns(struct my_session *s, const struct frame *f, bool field_list, struct mys_bin *bin);
/* A job's error as an ERR packet (the runner's MySQL errno, else the airlock code's), audited. */
void myr_job_error(struct my_session *s, const struct job_result *r);
/* A warning SHOW WARNINGS lists: level "Note", "Warning" or "Error" with the errno a runner reported. */
void myr_add_warning(struct my_session *s, const char *level, uint16_t code, const char *message);
/* A "Warning" of airlock's own, its errno from the table. */
void myr_warn(struct my_session *s, enum airlock_err code, enum airlock_native native, const char *message);

/* my_scrub.c */
/* At a result's column definitions f: which column, if any, holds the definition s->create_db asked for. */
void mys_create_begin(const struct my_session *s, const struct frame *f, struct mys_create *c);
/*
 * Row frame f as the client may see it: f itself when c has no column,
 * else out, f with c's column scrubbed, a frame over buf (the caller's; it
 * frees it). NULL when f is malformed or memory ran out.
 */
const struct frame *mys_create_row(const struct my_session *s, const struct mys_create *c, const struct frame *f,
				   struct wbuf *buf, struct frame *out);

/* my_job.c */
/* Hands sql (validated) to a job: a column list for COM_FIELD_LIST, binary rows for COM_STMT_EXECUTE. */
void myj_start(struct my_session *s, const char *sql, bool field_list, bool binary);
/* A statement's job whose events go elsewhere than the session's result set. */
struct myq_job {
	const struct job_events *ev;
	void *arg;
	bool describe; /* prepare and describe only, run nothing */
	/*
	 * A governed write's dry run (my_write.c): on the user's
	 * mysql_write_target, at most max_write_rows rows, rolled back;
	 * write_check: its rows are the row filter's checks. settings, when
	 * not NULL, gets the settings it runs under, as the record of the held
	 * write keeps them (a JSON object, heap; NULL when memory ran out).
	 */
	bool write_dry;
	bool write_check;
	char **settings;
	/*
	 * sample: the text is the dry run's variant (validate_my_write.h),
	 * whose rows come back as notices coded FRAME_SAMPLE_CODE; plan_sql
	 * (with sample only): the text that will run, whose plan is shown.
	 * sample_read (an UPDATE, without sample): the read of the rows the
	 * text will touch, whose rows come back with their state after it as
	 * notices coded FRAME_SAMPLE_PAIR_CODE.
	 */
	bool sample;
	const char *plan_sql;
	const char *sample_read;
};
/* Hands sql (validated) to a job as how says; the job is s->core.job while it runs. */
void myj_start_with(struct my_session *s, const char *sql, const struct myq_job *how);

/* my_query.c */
void myq_query(struct my_session *s, const char *sql, size_t len);

/* my_write.c: governed writes (writes = approve). */
struct myw_pending;
/* The write v (VMY_WRITE) of sql: scoped, dry-run on the write target and held; or refused. */
void myw_execute(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v);
/* SHOW AIRLOCK APPROVAL 'id': the user's own held write, one row. */
void myw_show(struct my_session *s, const char *id);
void myw_pending_free(struct myw_pending *p);
struct myw_wait;
void myw_wait_free(struct my_session *s);
/* KILL QUERY of a session waiting for a held write's decision: the wait ends, the write stays held. */
bool myw_cancel(struct my_session *s);

/* my_local.c: result sets the session answers itself. */
struct myl_col {
	const char *name;
	uint8_t type;
	bool numeric;
	uint8_t decimals; /* 0, or 39 (NOT_FIXED_DEC) where the server sends it */
};
/* The column definitions, then an EOF unless the client deprecated it. */
void myl_columns(struct my_session *s, const struct myl_col *cols, size_t n);
/* The column count, then myl_columns. */
void myl_header(struct my_session *s, const struct myl_col *cols, size_t n);
/* One text row; a NULL entry in values is SQL NULL. */
void myl_row(struct my_session *s, const char *const *values, size_t n);
/* The warnings kept from the last statement, as text rows or binary ones (a prepared SHOW WARNINGS). */
void myl_show_warnings(struct my_session *s, const struct myl_warnings *w, bool binary);
/* The columns myl_show_warnings lists (myl_columns); returns how many. */
size_t myl_warnings_columns(struct my_session *s, const struct myl_warnings *w);
/* COM_FIELD_LIST: the columns of table whose names match wild (wild_len 0: all of them). */
void myq_field_list(struct my_session *s, const char *table, size_t table_len, const char *wild, size_t wild_len);
void myq_init_db(struct my_session *s, const char *db, size_t len);
/* True when the user may make db its current database. */
bool myq_database_allowed(const struct my_session *s, const char *db);
/* Validates sql under the session's policy, sql_mode and character set. */
void myq_validate(struct my_session *s, const char *sql, size_t len, struct vmy_result *v);
/* The job (how) of a read that passed the validator as v, scoped as any read. */
void myq_read_with(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v,
		   const struct myq_job *how);
/* A bound prepared statement's text validated as it will run, then its job as how says (a cursor). */
void myq_run_with(struct my_session *s, const char *sql, size_t len, const struct myq_job *how);
/* Runs a bound prepared statement's text: reads only, rows in the binary protocol. */
void myq_run_binary(struct my_session *s, const char *sql, size_t len);

/*
 * Refuses sql (len bytes), which the validator refused as v for its star
 * (SELECT_STAR), with a hint naming the columns: a describe job of the read,
 * scoped as any read with the star allowed, runs first (mys_star_events)
 * and sends the ERR when it ends. When no job starts, the ERR (that
 * refusal, or why the job could not start) is out on return.
 */
void myq_star_refuse(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v);

/* my_star.c: the events of that describe job. */
extern const struct job_events mys_star_events;

/* my_cursor.c */
struct mys_cursor;
/* COM_STMT_EXECUTE with a read-only cursor of sql (the bound text); NULL when refused (ERR sent). */
struct mys_cursor *myc_execute(struct my_session *s, const char *sql, size_t len);
/* COM_STMT_FETCH of up to rows rows. */
void myc_fetch(struct my_session *s, struct mys_cursor *c, uint32_t rows);
/* Output drained: a fetch paused for the client goes on. */
void myc_output_drained(struct my_session *s);
void myc_free(struct my_session *s, struct mys_cursor *c);

/* my_prepared.c */
void myp_prepare(struct my_session *s, const char *sql, size_t len);
void myp_execute(struct my_session *s, const uint8_t *p, size_t len);
void myp_close(struct my_session *s, const uint8_t *p, size_t len);
void myp_reset(struct my_session *s, const uint8_t *p, size_t len);
void myp_long_data(struct my_session *s, const uint8_t *p, size_t len);
void myp_fetch(struct my_session *s, const uint8_t *p, size_t len);
void myp_free_all(struct my_session *s);

/* my_vars.c */
void myv_init(struct mys_vars *v);
/* Sets the character set from a handshake collation id; false when it is unknown. */
bool myv_set_charset_id(struct mys_vars *v, uint8_t id);
/* Whether the collation is the character set's default (then jobs need not set it). */
bool myv_collation_is_default(const struct mys_vars *v);
/* Sets the character set (and its default collation) by name; false when unknown. */
bool myv_set_charset(struct mys_vars *v, const char *name);
/*
 * Applies one SET assignment the validator accepted. Returns AIRLOCK_N_NONE,
 * or the server's condition (MY_WRONG_VALUE_FOR_VAR, MY_UNKNOWN_COLLATION,
 * ...) with msg filled.
 */
enum airlock_native myv_assign(struct my_session *s, const struct vmy_assign *a, char *msg, size_t msglen);
/* The text of a variable for @@name / SHOW VARIABLES; NULL when airlock does not expose it. */
const char *myv_value(const struct my_session *s, const char *name, char *buf, size_t buflen, bool numeric_bool);
/*
 * The kept variables each job applies, for those not at their default:
 * fn(arg, name, value), value being digits, or for lc_time_names a locale
 * name (letters and '_').
 */
void myv_each_applied(const struct my_session *s, void (*fn)(void *arg, const char *name, const char *value),
		      void *arg);
/* The statement timeout a job gets: the session's, within the user's timeout_ms. */
uint32_t myv_timeout_ms(const struct my_session *s);
/* sql_select_limit: the rows a SELECT or SHOW VARIABLES without a LIMIT of its own returns at most. */
uint64_t myv_select_limit(const struct my_session *s);
/* wait_timeout in ms (idle sessions are closed after it). */
uint64_t myv_idle_ms(const struct my_session *s);
/* Calls fn for each exposed variable in name order. */
void myv_each(const struct my_session *s, void (*fn)(void *arg, const char *name, const char *value), void *arg);
/* sql_mode flags that change lexing. */
void myv_lex_modes(const struct mys_vars *v, bool *ansi_quotes, bool *no_backslash_escapes);
/* The sql_mode has a mode that changes what an expression computes (VMY_MODE_VALUES). */
bool myv_mode_changes_values(const struct mys_vars *v);
/* The session's policy for the validator: its user's, under its database and modes (borrowed from s). */
void myv_fill_policy(const struct my_session *s, struct vmy_policy *pol);

#define MYS_SERVER_VERSION "8.0.36-airlock"

#endif
