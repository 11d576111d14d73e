/*
 * runner_pg_int: what the Postgres runner's files share: one job's state
 * and the calls between them, listed from the bottom up. runner_pg.c (the
 * job's sequence) -> runner_pg_result.c (descriptions, result formats,
 * rows, describe jobs) -> runner_pg_io.c (waiting on libpq and the control
 * socket). Nothing outside runner/ includes it.
 */
#ifndef AIRLOCK_RUNNER_PG_INT_H
#define AIRLOCK_RUNNER_PG_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <libpq-fe.h>

#include "runner/runner_cap.h"
#include "runner/runner_ctl.h"
#include "runner/runner_job.h"
#include "runner/runner_mem.h"
#include "runner/runner_tls.h"

#define CONNECT_TIMEOUT_MS 10000
#define SETUP_TIMEOUT_MS 10000 /* BEGIN, set_config, COMMIT */
#define ROLLBACK_TIMEOUT_MS 2000
#define WATCHDOG_GRACE_MS 1000 /* after timeout_ms, before the runner gives up */
#define MAX_NOTICES 64

enum outcome {
	OUT_OK,          /* command done; a backend error may be in run.error */
	OUT_CANCEL,      /* the proxy sent 'X' */
	OUT_GONE,        /* the control socket closed or failed */
	OUT_DEADLINE,    /* the runner's own deadline passed */
	OUT_LOST,        /* the database connection failed */
	OUT_TRUNCATED,   /* a cap was reached; run.trunc says which */
	OUT_REFUSED,     /* the runner will not handle this result (run.refusal) */
	OUT_COST,        /* the plan's estimated cost is above max_cost (run.cost) */
	OUT_PLAN,        /* the plan reads a relation outside plan_tables */
	OUT_PROTO,       /* refused as Postgres refuses it: run.proto_state, run.proto_msg */
	OUT_GUARD,       /* the guard refused what the statement reaches: run.guard_what */
	OUT_WRITE_CHECK, /* a row the write returned failed its check column */
	OUT_WRITE_ROWS,  /* the write touched more rows than write_max (run.write_rows, when counted) */
};

struct pg_run {
	const struct runner_job *job;
	/* The memory bounds derived from job->backend_memory_mb (nmem 0 when it has none). */
	struct runner_mem_setting mem[RUNNER_MEM_PG_N];
	size_t nmem;
	bool ctl_quiet; /* the control socket is not watched (warm connect) */
	double cost;    /* EXPLAIN's Total Cost, when max_cost is set */
	int plan;       /* enum runner_plan_verdict of the plan check; 2 until a plan was read */
	struct runner_ctl *ctl;
	PGconn *conn;
	struct runner_tls *tls; /* the TLS shim the connection goes through; NULL without TLS */
	char tls_why[200];      /* why TLS failed, when it did */
	PGresult *error;        /* first backend error of the job, owned */
	const char *refusal;    /* static message for OUT_REFUSED */
	unsigned notices;
	bool sent_desc;
	/*
	 * Per-column result formats (runner_pg_formats.c): desc is the
	 * statement's own description (owned) when the rows come from a
	 * wrapper that turns binary columns into bytea; dec / dec_len hold a
	 * row's decoded values (ncols each, owned).
	 */
	PGresult *desc;
	bool wrapped;
	unsigned char **dec;
	size_t *dec_len;
	bool copying;     /* a COPY TO STDOUT is sending its rows */
	int64_t deadline; /* the statement's */
	char proto_state[6];
	char proto_msg[160];
	char guard_what[96]; /* what the guard refused: "operator ===", "function f", "cast" or "domain" */
	struct runner_sent sent;
	enum frame_trunc trunc;
	char tag[64];
	int skip;               /* leading result columns not sent (a write's check column) */
	uint64_t write_rows;    /* the write's count, once its command ended */
	uint32_t sampled;       /* rows of a dry run's sample sent (RUNNER_SAMPLE_ROWS at most) */
	struct wbuf *plan_text; /* a dry run's plan while it is read; NULL otherwise */
};

/* runner_pg_io.c */
int64_t now_ms(void);
/* Waits until PQgetResult will not block; watches the control socket meanwhile. */
enum outcome wait_result(struct pg_run *r, int64_t deadline);
/* The next result of the command (owned by the caller), or *res NULL when there are no more; else why not. */
enum outcome next_result(struct pg_run *r, int64_t deadline, PGresult **res);
/* Waits until the database socket reports events (OUT_OK), flushing queued frames first. */
enum outcome wait_db(struct pg_run *r, short events, int64_t deadline);
/*
 * Collects every result of the command just sent; keeps the first error
 * in r->error. look (may be NULL) sees each other result before it is freed.
 */
enum outcome collect_with(struct pg_run *r, int64_t deadline, void (*look)(struct pg_run *r, const PGresult *res));
enum outcome collect(struct pg_run *r, int64_t deadline);
/* Same, keeping the last result that is not an error in *kept (caller clears; NULL when none). */
enum outcome collect_keep(struct pg_run *r, int64_t deadline, PGresult **kept);
/* Sends a command with text parameters and collects its results. */
enum outcome run_command(struct pg_run *r, const char *sql, int nparams, const char *const *params, int64_t deadline);
/* Sends sql with the job's bound parameters, results in format (0 text, 1 binary); 0 when libpq refused to send. */
int send_with_params(struct pg_run *r, const char *sql, int format);
/*
 * prefix + the job's read (plan_sql when set, else sql), sent with the
 * job's parameters in its transaction; look sees each result.
 */
enum outcome explain_read(struct pg_run *r, const char *prefix, int64_t deadline,
			  void (*look)(struct pg_run *r, const PGresult *res));

/* runner_pg_guard.c */
/*
 * A read of what a guard reads (the operators, functions and casts, by
 * their indexes), for a warm runner's throw-away transaction: the
 * catalog caches a guard needs are loaded before the job's clock starts.
 */
#define RUNNER_PG_GUARD_WARM                                                                                          \
	"SELECT o.oid FROM pg_catalog.pg_operator o WHERE o.oprname OPERATOR(pg_catalog.=) '='::pg_catalog.name AND " \
	"o.oprnamespace OPERATOR(pg_catalog.=) ANY (SELECT ns.oid FROM pg_catalog.pg_namespace ns WHERE ns.nspname "  \
	"OPERATOR(pg_catalog.=) ANY (pg_catalog.current_schemas(false))) UNION ALL SELECT p.oid FROM "                \
	"pg_catalog.pg_proc p WHERE p.proname OPERATOR(pg_catalog.=) 'x'::pg_catalog.name AND p.pronargs "            \
	"OPERATOR(pg_catalog.-) p.pronargdefaults OPERATOR(pg_catalog.<=) 1::pg_catalog.int2 UNION ALL SELECT c.oid " \
	"FROM pg_catalog.pg_cast c WHERE c.castfunc OPERATOR(pg_catalog.>=) 16384::pg_catalog.oid AND c.casttarget "  \
	"OPERATOR(pg_catalog.=) ANY (ARRAY[pg_catalog.to_regtype('\"text\"')]::pg_catalog.regtype[])"
/* The guard's own error in r->error becomes OUT_GUARD (r->guard_what kept, the error cleared); else OUT_OK. */
enum outcome guard_outcome(struct pg_run *r);
/* Sends the job's guard alone and collects it: OUT_GUARD when it refused. */
enum outcome check_guard(struct pg_run *r, int64_t deadline);
/* The 'E' frame of OUT_GUARD. */
void send_guard_refusal(struct pg_run *r);

/* runner_pg_write.c */
/* One row of a write: its check, then (when the client asked for rows) the row without it. */
enum outcome write_row(struct pg_run *r, const PGresult *res);
/* A write's row description, sent only when the client asked for rows. */
enum outcome write_desc(struct pg_run *r, const PGresult *res);
/* After the write's command: its count against write_max, then ROLLBACK (dry) or COMMIT (run). */
enum outcome write_end(struct pg_run *r, int64_t deadline);
/* A dry run's plan (plan_sql's), sent as a notice coded FRAME_PLAN_CODE. */
enum outcome send_plan(struct pg_run *r, int64_t deadline);
/* The 'E' frame of OUT_WRITE_CHECK and OUT_WRITE_ROWS. */
void send_write_refusal(struct pg_run *r, enum outcome o);

/* runner_pg_result.c */
/* The format the client asked for column i (0 text, 1 binary). */
int result_format(const struct runner_job *job, int i);
/* Does Bind ask for text and binary columns both (result_prepare's wrapper)? */
bool formats_mixed(const struct runner_job *job);
/*
 * Before the statement runs: the sql to send (*sql, owned by r until
 * result_done; the job's own text when no wrapper is needed) and the
 * result format to ask libpq for. For a mix of text and binary columns
 * the statement is prepared and described first, and a wrapper query
 * turns its binary columns into their send functions' bytea. OUT_OK with
 * r->error set: the backend refused it.
 */
enum outcome result_prepare(struct pg_run *r, int64_t deadline, char **sql, int *format);
/* The 'T' frame, once: from res or, when wrapped, from the statement's own description. */
enum outcome send_desc(struct pg_run *r, const PGresult *res);
/* One row as a 'D' frame, unless it would pass max_rows or max_bytes. */
enum outcome send_row(struct pg_run *r, const PGresult *res);
/* COPY TO STDOUT: the 'O' frame, then each CopyData as a 'd' frame within the caps. */
enum outcome copy_out(struct pg_run *r, const PGresult *res);
/* A describe job: prepares the statement and sends 'S', 'T' and 'C'. */
enum outcome describe_statement(struct pg_run *r, int64_t deadline);
/* Frees what result_prepare and send_desc kept. */
void result_done(struct pg_run *r, char *sql);

#endif
