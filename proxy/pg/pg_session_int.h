/*
 * pg_session_int: what the Postgres session's files share: the session
 * struct and each file's functions, listed from the bottom up. The calls
 * go one way: pg_session.c (start-up, authentication, dispatch) ->
 * pg_extended.c (prepared statements and portals) -> pg_query.c
 * (statements: local answers and jobs) -> pg_prepared.c (the store of
 * statements and portals) -> pg_cursor.c (DECLARE / FETCH / CLOSE, and
 * portals read a few rows at a time) -> pg_read.c (a read's job) ->
 * pg_reply.c (replies) and pg_settings.c. Nothing outside proxy/pg/
 * includes it.
 */
#ifndef AIRLOCK_PROXY_PG_SESSION_INT_H
#define AIRLOCK_PROXY_PG_SESSION_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "protocol/pg_codec.h"
#include "protocol/scram.h"
#include "proxy/job/job.h"
#include "proxy/pg/pg_settings.h"
#include "proxy/star_hint.h"
#include "proxy/session.h"
#include "validator/pg/validate_pg.h"

#define SESS_MAX_SAVEPOINTS 32
#define SESS_MAX_PORTALS 8
#define SESS_MAX_PARAMS 200
/* Bytes of statement text and parameter values a session may keep prepared. */
#define SESS_MAX_PREPARED_BYTES (4u * 1024u * 1024u)
#define SESS_MAX_CURSORS 4

/* The steps of start-up and authentication (the core's AUTH state). */
enum pg_auth_step {
	PG_STARTUP,   /* waiting for the start-up packet */
	PG_SASL_INIT, /* AuthenticationSASL sent; SASLInitialResponse next */
	PG_SASL_CONT, /* server-first-message sent; SASLResponse next */
};

struct bufferevent;
struct event;
struct server;
struct server_gen;
struct pg_cursor;

/* A prepared statement (Parse). Owned by the session's list and by the portals bound from it. */
struct pgx_stmt {
	char name[64];
	int refs;
	size_t bytes; /* counted in the session's prepared_bytes */
	char *sql;
	struct pgv_result v;
	uint16_t ntypes;
	uint32_t *types; /* as Parse gave them; once described, as the backend inferred them */
	uint8_t *desc;   /* once described: the runner's 'T' payload, which every execution must match */
	uint32_t desc_len;
};

/* A portal (Bind): a statement with its parameter values. Owned by the session. */
struct pgx_portal {
	char name[64];
	size_t bytes;          /* counted in the session's prepared_bytes */
	struct pgx_stmt *stmt; /* one reference held (the statement outlives Close and DEALLOCATE) */
	uint8_t *values;       /* one buffer for every parameter's bytes */
	struct job_param *params;
	uint16_t nparams;
	char *formats;  /* the result formats of Bind, '0' / '1' (one for all or one per column); NULL: text */
	bool described; /* Describe asked: the RowDescription goes out with the first rows */
	struct pg_cursor *running; /* an Execute with a row limit left it suspended: the rest of its rows */
};

/* How one statement is to be run and answered. */
struct pgw_pending;
struct pgw_wait;

struct pgq_exec {
	bool extended; /* answered for Execute: no ReadyForQuery, errors discard until Sync */
	bool describe; /* send RowDescription (always for simple Query) */
	const struct job_param *params;
	size_t nparams;
	const char *formats; /* result formats, as in struct pgx_portal */
	struct pgx_portal *portal;
	bool mismatch; /* the result's columns are not the described statement's */
	bool copying;  /* CopyOutResponse sent: the result ends with CopyDone */
};

struct pg_auth;

struct pg_session {
	struct session core; /* first: the session core sees a struct session */
	enum pg_auth_step step;
	uint32_t key; /* the cancel key; core.id is the backend pid */
	char database[64];

	struct pg_auth *auth; /* the login's SCRAM exchange: owned, wiped and freed once decided */

	char txn;           /* 'I', 'T', 'E' */
	bool txn_read_only; /* the block was begun, or set, READ ONLY: a write in it is refused (25006) */
	struct pg_settings set;
	struct pg_settings *snapshot; /* at BEGIN, for ROLLBACK; owned, only inside a transaction block */
	uint32_t local_sets;          /* bit i: pgs_defs[i] was last set with SET LOCAL in this block */
	char (*savepoints)[64];       /* SESS_MAX_SAVEPOINTS names once a block set one (owned); NULL before */
	size_t nsavepoints;
	bool discard_until_sync;
	struct pgw_pending *write; /* a write's dry run under way: what its held record needs (owned) */
	struct pgw_wait *waiting;  /* a held write whose outcome the statement waits for (owned) */
	unsigned errors;           /* ErrorResponses sent (pgr_error): a statement list stops at the first */
	/* The last validated read's scope, from the same round trip (pg_policy.c); owned, NULL when none. */
	struct vcl_scoped *scoped;

	/* The running statement (its job is core.job). */
	struct pgq_exec cur;

	struct pg_cursor *cursors[SESS_MAX_CURSORS];
	struct pg_cursor *fetching;  /* the cursor a FETCH (or a portal's Execute) is reading */
	struct pgx_stmt *describing; /* the statement a describe job is for */
	/* A Describe of a portal that waits for its rows; if Sync or Flush comes first, it is answered then. */
	struct pgx_portal *undescribed;
	struct pgx_portal *describing_portal; /* the describe job answers this portal's Describe */
	bool sync_after_describe;             /* and then the Sync that started it */
	bool describe_out_of_memory;          /* a frame of the describe job could not be kept */
	/* A SELECT_STAR refusal held while the describe job of its read names the columns (pg_star.c). */
	struct star_refusal *star; /* owned while its describe job runs; NULL otherwise */
	bool star_allowed;         /* while that job starts: the policy lets the star through to the scoping */

	size_t prepared_bytes;
	struct pgx_stmt **stmts; /* nstmts slots, NULL where free; grown as needed (prepared_bytes bounds it) */
	int nstmts;
	struct pgx_portal *portals[SESS_MAX_PORTALS];
};

/* pg_reply.c: the replies, below everything else */
/* Sends what s->w holds; a reply that could not be built closes the session. */
void pgr_flush(struct pg_session *s);
/*
 * The replies that raise take their code from the error table: code is an
 * airlock code (its name leads the message) or AIRLOCK_E_NONE for the
 * database's own condition; native the condition whose SQLSTATE goes out,
 * or AIRLOCK_N_NONE for the code's own (base/errors.h).
 */
/* A WARNING NoticeResponse. */
void pgr_warning(struct pg_session *s, enum airlock_err code, enum airlock_native native, const char *message);
/* A FATAL ErrorResponse (not flushed; the caller closes the session). */
void pgr_fatal(struct pg_session *s, enum airlock_err code, enum airlock_native native, const char *message);
/* ReadyForQuery with the transaction status, flushed. */
void pgr_ready(struct pg_session *s);
/* A refused or failed statement; aborts a transaction block; in extended mode, discards until Sync. */
void pgr_error(struct pg_session *s, enum airlock_err code, enum airlock_native native, const char *message,
	       const char *hint, int position);
/* The validator's refusal, as pgr_error. */
void pgr_refused(struct pg_session *s, const struct pgv_result *v);
/* A write held for approval: APPROVAL_REQUIRED as an ErrorResponse, audited as held (rows: the dry run's). */
void pgr_held(struct pg_session *s, const char *approval, const char *message, const char *hint, uint64_t rows);
/* A statement answered by airlock: CommandComplete and its audit record. */
void pgr_local_done(struct pg_session *s, const char *tag);
/* A runner's 'T' frame as a RowDescription, flushed. */
void pgr_rowdesc(struct pg_session *s, const struct frame *f);
/* The described statement's columns as a RowDescription with the formats (NULL: text), flushed. */
void pgr_stmt_rowdesc(struct pg_session *s, const struct pgx_stmt *st, const char *formats);
/*
 * Whether a result's 'T' frame differs from what the statement was
 * described with (names, types, typmods); false when it was never
 * described. Postgres then fails the statement with 0A000.
 */
bool pgr_rowdesc_differs(const struct pgx_stmt *st, const struct frame *f);
/* That failure. */
void pgr_result_type_changed(struct pg_session *s);
/* A RowDescription of n text columns named names, in the formats Bind asked for. */
void pgr_text_rowdesc(struct pg_session *s, const char *const *names, size_t n, const char *formats);
/* The format code of result column i. */
int16_t pgr_format(const char *formats, size_t i);
/* The RESULT_TRUNCATED notice. */
void pgr_truncated(struct pg_session *s, uint8_t truncated, uint64_t rows);
/* The same as an ErrorResponse (54000), for users with truncation_is_error. */
void pgr_truncated_error(struct pg_session *s, uint8_t truncated, uint64_t rows);
/* A job's error as an ErrorResponse, the airlock code leading the message. */
void pgr_job_error(struct pg_session *s, const struct job_result *r);
/* A runner's 'N' frame as a NoticeResponse, flushed. */
void pgr_frame_notice(struct pg_session *s, const struct frame_error *e);
/*
 * A job for the user's statement (session_job_start); answers the error
 * itself and returns NULL when the session holds jobs past its user's
 * max_jobs or memory ran out. Each job it returned is matched by one
 * session_job_release.
 */
struct job *pgr_start_job(struct pg_session *s, const struct job_request *req, const struct job_events *ev, void *arg);

/* pg_policy.c */
/*
 * Validates sql against the session's policy into v. A read's scope comes
 * back in the same round trip and is held in s->scoped for the pgp_scope
 * of the same text under the same policy; any other pgp_scope asks again.
 */
void pgp_validate(struct pg_session *s, const char *sql, struct pgv_result *v);
/* Drops a held scope (at a statement's end: an idle session holds none). */
void pgp_scoped_free(struct pg_session *s);
/*
 * Scopes a read to the session's policy (validate_pg_scope.h): true with
 * *scoped NULL (run sql) or the text to run (caller frees); false when
 * refused, with the ErrorResponse already queued.
 */
bool pgp_scope(struct pg_session *s, const char *sql, char **scoped, char **guard);
/*
 * The guard read for parameters of the types oids, each of the session's
 * world (validate_pg_guard.h): heap, the caller frees; NULL when n is 0 or
 * memory ran out.
 */
char *pgp_params_guard(struct pg_session *s, const uint32_t *oids, size_t n);
/*
 * A write made into what will run (validate_pg_write.h): true with *text,
 * *guard and *sample (heap, the caller frees; guard and sample may be
 * NULL) and v filled; false when refused, the ErrorResponse queued.
 */
bool pgp_write(struct pg_session *s, const char *sql, char **text, char **guard, char **sample, struct pgv_result *v);
/*
 * With the user's plan_check on: the relations a plan may scan, for the
 * job's plan_tables (heap; the caller frees it). NULL when it is off (or
 * memory ran out: the check is then skipped, so the caller refuses).
 */
char *pgp_plan_tables(const struct pg_session *s);

/* pg_read.c */
/* How a read is to run: the text, what its job checks, and its parameters. */
struct pgj_read {
	const char *sql;
	bool scope;           /* a read of tables: scoped to the policy */
	bool plan;            /* plan-checked when the user has plan_check (not an EXPLAIN) */
	bool cost_check;      /* the runner checks max_cost with EXPLAIN first */
	bool describe;        /* prepare and describe only */
	bool copy;            /* sql is a COPY TO STDOUT (already scoped) */
	bool copy_header;     /* whose first line is a header */
	const char *plan_sql; /* with copy: its read, which the cost and plan checks EXPLAIN */
	const char *guard;    /* with copy: its read's guard (validate_pg_guard.h), or NULL */
	const struct job_param *params;
	size_t nparams;
	const char *formats;
};
/*
 * Starts the job of a read under the user's limits (the session's
 * statement_timeout within timeout_ms) and settings. NULL when it did not
 * start, with the ErrorResponse queued.
 */
struct job *pgj_start(struct pg_session *s, const struct pgj_read *rd, const struct job_events *ev, void *arg);
/* How a statement validated as v runs: a read of tables is scoped, plan- and cost-checked (not an EXPLAIN). */
struct pgj_read pgj_statement(const char *sql, const struct pgv_result *v, const struct pgq_exec *x);

/* pg_query.c */
/* Runs a validated statement. Returns false when a job was started (it finishes the statement later). */
bool pgq_execute(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x);
/* Simple Query. */
void pgq_simple(struct pg_session *s, const char *sql);

/* pg_admin.c: an admin's session (s->core.admin), which speaks to the console (proxy/admin.h) only */
/* One message of a logged-in admin: a simple Query runs a console command; anything else ends the session. */
bool pga_message(struct pg_session *s, const struct pg_msg *m);

/* pg_star.c */
/*
 * Refuses sql, which the validator refused as v for its star (SELECT_STAR),
 * with a hint naming the columns: a describe job of the read (its params,
 * as Parse or Bind typed them) runs first. Returns false when that job
 * started (it sends the refusal, and ReadyForQuery after a simple Query,
 * when it ends); true when the refusal went out now.
 */
bool pgst_refuse(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct job_param *params,
		 size_t nparams);

/* pg_write.c */
/*
 * A write (PGV_WRITE): made into what will run, dry-run, held. Returns
 * false when its dry run started (it finishes the statement later).
 */
bool pgw_execute(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x);
/* sql is SHOW airlock.approval '<id>': true with the id (NUL-terminated, at most idlen - 1 bytes). */
bool pgw_show_id(const char *sql, char *id, size_t idlen);
/* Answers SHOW airlock.approval for the session's user's own record id. */
void pgw_show(struct pg_session *s, const char *id, const struct pgq_exec *x);
/* Frees what a write's dry run kept, when the session ends before it did. */
void pgw_pending_free(struct pgw_pending *p);
/* Ends a wait for a held write's outcome (the session is going). */
void pgw_wait_free(struct pg_session *s);
/* CancelRequest during such a wait: the statement ends (57014), the write stays held. True when one was on. */
bool pgw_cancel(struct pg_session *s);

/* pg_write_params.c */
/* A write's parameters as its record keeps them: each as text, with its type. */
struct pgw_params {
	struct pgq_exec x;        /* the statement's, its params replaced by those below */
	struct job_param *params; /* owned, x.nparams of them; point into texts or the statement's values */
	char **texts;             /* owned: the text made of each value bound in binary (NULL for the others) */
};
/*
 * in's parameters made text: a value bound in binary, of a type whose
 * binary form airlock reads (protocol/pg_binary.h), becomes its text with
 * its type kept. False with why when one cannot be kept (of another type
 * or malformed in binary, of a type outside the user's world, or a reg*
 * type) or memory ran out; out is then empty. out borrows in's text
 * values: in must outlive it. pgw_params_free frees it.
 */
bool pgw_params_text(const struct pgq_exec *in, struct pgw_params *out, char *why, size_t whylen);
void pgw_params_free(struct pgw_params *p);

/* pg_cursor.c */
/* DECLARE, FETCH or CLOSE. Returns false when a FETCH is under way (it finishes later). */
bool pgc_statement(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x);
/*
 * Describe of a portal that is a cursor: its RowDescription, read from its
 * job first when it has not arrived yet (then false: it finishes later).
 */
bool pgc_describe_cursor(struct pg_session *s, const char *name);
/* COMMIT / ROLLBACK: cursors without HOLD end with their transaction. */
void pgc_end_transaction(struct pg_session *s);
void pgc_close_all(struct pg_session *s);
/* CancelRequest while a FETCH reads from a cursor: cancels its statement. Returns whether one was running. */
bool pgc_cancel(struct pg_session *s);
/* Output drained: a FETCH paused for the client may go on. */
void pgc_output_drained(struct pg_session *s);
/*
 * Execute of portal p with a row limit (0: the rest): starts its job on
 * the first Execute, then sends up to max_rows rows and PortalSuspended,
 * or the rest and CommandComplete. Returns false while rows are read (it
 * finishes later).
 */
bool pgc_portal_execute(struct pg_session *s, struct pgx_portal *p, const struct pgj_read *rd, uint32_t max_rows);
/* Frees a suspended portal's job. */
void pgc_portal_free(struct pg_session *s, struct pgx_portal *p);

/* pg_extended.c */
/* One extended-protocol message (Parse, Bind, Describe, Execute, Close, Sync, Flush). */
bool pgx_message(struct pg_session *s, const struct pg_msg *m);

/* pg_prepared.c: the statements and portals (indexes into s->stmts / s->portals, -1: none) */
int pgx_find_stmt(struct pg_session *s, const char *name);
int pgx_find_portal(struct pg_session *s, const char *name);
/* Takes statement i out of the session's list (freed once no portal holds it). */
void pgx_close_stmt(struct pg_session *s, int i);
void pgx_close_portal(struct pg_session *s, int i);
/* End of a transaction (or of an implicit one, at Sync): suspended portals close, as in Postgres. */
void pgx_close_suspended(struct pg_session *s);
/* A free index in s->stmts, the array grown when full; -1 when out of memory. */
int pgx_stmt_slot(struct pg_session *s);
void pgx_free_all(struct pg_session *s);
/*
 * DEALLOCATE name (name "": ALL, the named statements): 0, -1 when no
 * statement has the name. A running statement's portal holds it on.
 */
int pgx_deallocate(struct pg_session *s, const char *name);

#endif
