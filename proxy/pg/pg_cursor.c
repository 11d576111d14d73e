/*
 * pg_cursor: DECLARE ... CURSOR, FETCH and CLOSE, as psycopg2's named
 * cursors use them, and MOVE, which reads as FETCH does and sends no rows.
 *
 * Over the simple and the extended protocol alike (psycopg 3's named
 * cursors DECLARE with bound parameters, Describe the cursor as a portal,
 * then FETCH through Execute). A cursor is a job whose result frames are
 * read only while a FETCH wants rows: DECLARE starts the runner with the job paused, FETCH n resumes it
 * until n rows went out (or the result ended) and pauses it again. The
 * runner waits on its socket in between, so nothing is buffered in the
 * proxy and the caps of the user still bound the whole result. A cursor
 * lives at most timeout_ms (its runner's deadline) and, without HOLD,
 * until the end of its transaction. Each cursor is owned by its session.
 *
 * A portal executed with a row limit (node pg-cursor, PgJDBC's fetch
 * size) is read the same way: its first Execute starts the job, every
 * Execute sends up to its limit and PortalSuspended, the last one
 * CommandComplete. Such a cursor is owned by its portal, not listed in
 * the session's cursors, and ends with the portal (Close, the end of the
 * transaction, Sync outside one).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "proxy/pg/pg_session_int.h"
#include "proxy/server.h"

struct pg_cursor {
	struct pg_session *s;
	struct pgx_portal *portal; /* NULL for a DECLAREd cursor */
	bool rowdesc_sent;         /* a portal's RowDescription goes out once */
	bool describing;           /* Describe of the cursor (psycopg 3): reading until its RowDescription */
	bool mismatch;             /* a portal's columns are not what its statement was described with */
	bool out_of_memory;        /* its column description could not be kept: the job was canceled */
	char name[64];
	bool hold;
	struct job *job;      /* NULL once the result ended */
	struct event *resume; /* resumes the job outside the session's message loop */
	uint8_t *rowdesc;     /* the runner's 'T' frame payload, re-sent by every FETCH */
	uint32_t rowdesc_len;

	bool done;
	bool failed; /* an error is stored and not yet reported */
	char err_sqlstate[6];
	enum airlock_err err_code;
	char err_message[512];
	uint8_t truncated;
	bool truncation_told;
	uint64_t rows; /* rows read so far */

	uint64_t want; /* the running FETCH */
	uint64_t got;
	bool moving; /* the running FETCH is a MOVE: its rows are skipped */
};

static int find_cursor(struct pg_session *s, const char *name)
{
	for (int i = 0; i < SESS_MAX_CURSORS; i++)
		if (s->cursors[i] && !strcmp(s->cursors[i]->name, name))
			return i;
	return -1;
}

/* A free slot of s->cursors, or -1. */
static int free_cursor_slot(struct pg_session *s)
{
	for (int i = 0; i < SESS_MAX_CURSORS; i++)
		if (!s->cursors[i])
			return i;
	return -1;
}

static void cursor_destroy(struct pg_session *s, struct pg_cursor *c)
{
	if (c->job) {
		job_detach(c->job);
		session_job_release(&s->core);
	}
	if (s->fetching == c)
		s->fetching = NULL;
	event_free(c->resume);
	free(c->rowdesc);
	free(c);
}

static void cursor_free(struct pg_session *s, int i)
{
	cursor_destroy(s, s->cursors[i]);
	s->cursors[i] = NULL;
}

void pgc_portal_free(struct pg_session *s, struct pgx_portal *p)
{
	if (p->running)
		cursor_destroy(s, p->running);
	p->running = NULL;
}

void pgc_close_all(struct pg_session *s)
{
	for (int i = 0; i < SESS_MAX_CURSORS; i++)
		if (s->cursors[i])
			cursor_free(s, i);
}

void pgc_end_transaction(struct pg_session *s)
{
	for (int i = 0; i < SESS_MAX_CURSORS; i++)
		if (s->cursors[i] && !s->cursors[i]->hold)
			cursor_free(s, i);
}

static void put_stored_rowdesc(struct pg_cursor *c)
{
	struct frame f = {.type = FRAME_ROWDESC, .len = c->rowdesc_len, .payload = c->rowdesc};

	if (c->rowdesc)
		pgr_rowdesc(c->s, &f);
}

/* A simple Query ends with ReadyForQuery; an Execute does not (Sync brings it). */
static void end_message(struct pg_session *s)
{
	if (s->cur.extended)
		pgr_flush(s);
	else
		pgr_ready(s);
}

/* Once c's result has ended: the notice that it was cut, if it was and the client was not told. */
static void tell_truncation(struct pg_cursor *c)
{
	if (c->done && c->truncated && !c->truncation_told) {
		pgr_truncated(c->s, c->truncated, c->rows);
		c->truncation_told = true;
	}
}

/* A read that returned its rows ends: CommandComplete "VERB n" and its audit line. */
static void read_complete(struct pg_cursor *c, const char *verb)
{
	char tag[48];

	snprintf(tag, sizeof(tag), "%s %" PRIu64, verb, c->got);
	pg_put_command_complete(&c->s->core.w, tag);
	session_audit(&c->s->core, "run", NULL, AIRLOCK_E_NONE, c->got, 0, c->truncated);
}

/* A portal's Execute ends: PortalSuspended while rows remain, else its tag; no ReadyForQuery. */
static void portal_finish(struct pg_cursor *c)
{
	struct pg_session *s = c->s;

	if (!c->done) {
		pg_put_portal_suspended(&s->core.w);
		session_audit(&s->core, "run", NULL, AIRLOCK_E_NONE, c->got, 0, 0);
	} else if (c->truncated && !c->truncation_told && s->core.u->truncation_is_error) {
		c->truncation_told = true;
		pgr_truncated_error(s, c->truncated, c->rows);
	} else {
		tell_truncation(c); /* the result has ended */
		read_complete(c, "SELECT");
	}
	pgr_flush(s);
}

/* Ends the running FETCH: its tag, ReadyForQuery, then input that waited. */
static void fetch_finish(struct pg_cursor *c)
{
	struct pg_session *s = c->s;

	if (c->job)
		job_pause(c->job, true);
	s->fetching = NULL;
	s->core.out_paused = false;
	if (c->portal) {
		portal_finish(c);
	} else {
		tell_truncation(c);
		read_complete(c, c->moving ? "MOVE" : "FETCH");
		end_message(s);
	}
	session_statement_done(&s->core);
}

static void cursor_rowdesc(void *arg, const struct frame *f)
{
	struct pg_cursor *c = arg;

	if (c->portal && pgr_rowdesc_differs(c->portal->stmt, f)) {
		c->mismatch = true;
		job_cancel(c->job);
		return;
	}
	free(c->rowdesc);
	c->rowdesc = malloc(f->len ? f->len : 1);
	if (!c->rowdesc) {
		c->rowdesc_len = 0;
		c->out_of_memory = true;
		job_cancel(c->job);
		return;
	}
	memcpy(c->rowdesc, f->payload, f->len);
	c->rowdesc_len = f->len;
	if (c->s->fetching != c)
		return;
	if (c->describing) {
		/* Describe of the cursor: its columns, then it waits for a FETCH again. */
		put_stored_rowdesc(c);
		c->describing = false;
		job_pause(c->job, true);
		c->s->fetching = NULL;
		session_set_state(&c->s->core, SESSION_READY);
		session_process(&c->s->core);
	} else if (!c->portal) {
		if ((!c->s->cur.extended || c->s->cur.describe) && !c->moving)
			put_stored_rowdesc(c);
	} else if (c->portal->described && !c->rowdesc_sent) {
		put_stored_rowdesc(c);
		c->rowdesc_sent = true;
	}
}

static void cursor_row(void *arg, const struct frame *f)
{
	struct pg_cursor *c = arg;
	struct pg_session *s = c->s;

	c->rows++;
	if (c->mismatch || c->out_of_memory)
		return;
	if (!(c->moving && s->fetching == c)) {
		pg_put_datarow_raw(&s->core.w, f->payload, f->len);
		pgr_flush(s);
	}
	if (s->fetching != c)
		return;
	c->got++;
	if (c->got >= c->want) {
		fetch_finish(c);
		return;
	}
	session_backpressure(&s->core, c->job);
}

static void cursor_notice(void *arg, const struct frame_error *e)
{
	struct pg_cursor *c = arg;

	pgr_frame_notice(c->s, e);
}

/* The error that ended a cursor's job, to the client now. */
static void report_failure(struct pg_cursor *c, const struct job_result *r)
{
	struct pg_session *s = c->s;
	struct job_result e = *r;

	if (c->mismatch) {
		pgr_result_type_changed(s);
		return;
	}
	if (c->out_of_memory) {
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		return;
	}
	e.position = 0; /* it counts in the cursor's SELECT, not in the FETCH */
	pgr_job_error(s, &e);
	if (s->cur.extended)
		s->discard_until_sync = true;
}

/* The error that ended c's job while nothing read it, kept for report_stored. */
static void store_failure(struct pg_cursor *c, const struct job_result *r)
{
	enum airlock_err code = r->code;
	const char *sqlstate = r->sqlstate, *message = r->message;

	if (c->mismatch) {
		code = AIRLOCK_E_NONE;
		sqlstate = airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_FEATURE_NOT_SUPPORTED);
		message = "cached plan must not change result type";
	} else if (c->out_of_memory) {
		code = AIRLOCK_E_OUT_OF_MEMORY;
		sqlstate = airlock_pg_sqlstate(AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE);
		message = "out of memory";
	}
	c->failed = true;
	c->err_code = code;
	snprintf(c->err_sqlstate, sizeof(c->err_sqlstate), "%s", sqlstate);
	snprintf(c->err_message, sizeof(c->err_message), "%s", message);
}

static void cursor_done(void *arg, const struct job_result *r)
{
	struct pg_cursor *c = arg;
	struct pg_session *s = c->s;

	c->job = NULL;
	session_job_release(&s->core);
	c->done = true;
	if (r->ok && !c->mismatch && !c->out_of_memory) {
		c->truncated = r->truncated;
	} else if (s->fetching == c) {
		report_failure(c, r);
		s->fetching = NULL;
		c->describing = false;
		end_message(s);
		session_set_state(&s->core, SESSION_READY);
		session_process(&s->core);
		return;
	} else {
		store_failure(c, r);
		return;
	}
	if (s->fetching == c && c->describing) {
		/* Ended before any column description: a cursor of no columns. */
		c->describing = false;
		s->fetching = NULL;
		pg_put_no_data(&s->core.w);
		pgr_flush(s);
		session_set_state(&s->core, SESSION_READY);
		session_process(&s->core);
	} else if (s->fetching == c) {
		fetch_finish(c);
	}
}

static const struct job_events cursor_events = {
	.on_rowdesc = cursor_rowdesc,
	.on_row = cursor_row,
	.on_notice = cursor_notice,
	.on_done = cursor_done,
};

static void cursor_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pg_cursor *c = arg;

	if (c->job)
		job_pause(c->job, false);
}

bool pgc_cancel(struct pg_session *s)
{
	struct pg_cursor *c = s->fetching;

	if (!c || !c->job)
		return false;
	job_cancel(c->job);
	return true;
}

void pgc_output_drained(struct pg_session *s)
{
	struct pg_cursor *c = s->fetching;

	if (c && s->core.out_paused && c->job) {
		s->core.out_paused = false;
		job_pause(c->job, false);
	}
}

/* A cursor with its resume timer; NULL (the error queued) when memory ran out. */
static struct pg_cursor *cursor_new(struct pg_session *s)
{
	struct pg_cursor *c = calloc(1, sizeof(*c));

	if (c)
		c->resume = evtimer_new(s->core.srv->base, cursor_resume_cb, c);
	if (!c || !c->resume) {
		free(c);
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		return NULL;
	}
	c->s = s;
	return c;
}

static bool do_declare(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	const struct pgj_read rd = {
		.sql = sql + v->query_offset,
		.scope = true,
		.plan = true,
		.params = x->params,
		.nparams = x->nparams,
	};
	struct pg_cursor *c;
	char msg[160];
	int slot;

	if (s->txn == 'I' && !v->hold) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION,
			  "DECLARE CURSOR can only be used in transaction blocks", NULL, 0);
		return true;
	}
	if (find_cursor(s, v->name) >= 0) {
		snprintf(msg, sizeof(msg), "cursor \"%s\" already exists", v->name);
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_DUPLICATE_CURSOR, msg, NULL, 0);
		return true;
	}
	slot = free_cursor_slot(s);
	if (slot < 0) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_CONFIGURATION_LIMIT_EXCEEDED,
			  "too many open cursors in this session", "CLOSE cursors you are done with", 0);
		return true;
	}
	if (!(c = cursor_new(s)))
		return true;
	c->hold = v->hold;
	snprintf(c->name, sizeof(c->name), "%s", v->name);
	c->job = pgj_start(s, &rd, &cursor_events, c);
	if (!c->job) {
		cursor_destroy(s, c);
		return true;
	}
	/* Nothing is read until a FETCH asks for rows. */
	job_pause(c->job, true);
	s->cursors[slot] = c;
	pgr_local_done(s, "DECLARE CURSOR");
	return true;
}

/* The error that ended c's job while nothing read it, to the FETCH or Execute that asks now. */
static void report_stored(struct pg_cursor *c)
{
	struct job_result r = {.sqlstate = c->err_sqlstate, .code = c->err_code, .message = c->err_message};
	struct pg_session *s = c->s;

	c->failed = false;
	pgr_job_error(s, &r);
	if (s->cur.extended)
		s->discard_until_sync = true;
}

/* Reads up to want rows from c, outside the message loop; the FETCH or Execute finishes later. */
static bool start_reading(struct pg_cursor *c, uint64_t want)
{
	struct timeval zero = {0, 0};
	struct pg_session *s = c->s;

	c->want = want;
	c->got = 0;
	s->fetching = c;
	session_set_state(&s->core, SESSION_BUSY);
	evtimer_add(c->resume, &zero);
	return false;
}

bool pgc_portal_execute(struct pg_session *s, struct pgx_portal *p, const struct pgj_read *rd, uint32_t max_rows)
{
	struct pg_cursor *c = p->running;

	if (!c) {
		if (!(c = cursor_new(s)))
			return true;
		c->portal = p;
		c->job = pgj_start(s, rd, &cursor_events, c);
		if (!c->job) {
			cursor_destroy(s, c);
			return true;
		}
		job_pause(c->job, true);
		p->running = c;
	}
	if (c->failed) {
		report_stored(c);
		return true;
	}
	if (c->done) {
		c->got = 0;
		portal_finish(c);
		return true;
	}
	return start_reading(c, max_rows ? max_rows : UINT64_MAX);
}

static bool do_fetch(struct pg_session *s, const struct pgv_result *v, const struct pgq_exec *x)
{
	struct pg_cursor *c;
	char msg[160];
	int i = find_cursor(s, v->name);

	if (i < 0) {
		snprintf(msg, sizeof(msg), "cursor \"%s\" does not exist", v->name);
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_SUCH_CURSOR, msg, NULL, 0);
		return true;
	}
	if (x->formats && strchr(x->formats, '1')) {
		pgr_error(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "binary results from a cursor are not supported",
			  "FETCH in text (psycopg: a server-side cursor with binary=False), or Execute the SELECT "
			  "with a row limit",
			  0);
		return true;
	}
	c = s->cursors[i];
	if (c->failed) {
		report_stored(c);
		return true;
	}
	c->moving = v->move;
	if (v->move && x->extended && x->describe)
		pg_put_no_data(&s->core.w); /* MOVE returns no rows */
	else if (!v->move && (!x->extended || x->describe))
		put_stored_rowdesc(c);
	if (c->done) {
		/* The result has ended: the rest of the FETCHes return no rows. */
		tell_truncation(c);
		pgr_local_done(s, v->move ? "MOVE 0" : "FETCH 0");
		return true;
	}
	return start_reading(c, v->count);
}

bool pgc_describe_cursor(struct pg_session *s, const char *name)
{
	int i = find_cursor(s, name);
	struct pg_cursor *c;
	char msg[160];

	if (i < 0) {
		snprintf(msg, sizeof(msg), "portal \"%.64s\" does not exist", name);
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_SUCH_CURSOR, msg, NULL, 0);
		return true;
	}
	c = s->cursors[i];
	if (c->rowdesc || !c->job) {
		if (c->rowdesc)
			put_stored_rowdesc(c);
		else
			pg_put_no_data(&s->core.w);
		pgr_flush(s);
		return true;
	}
	c->describing = true;
	return start_reading(c, 0);
}

bool pgc_statement(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	int i;
	char msg[160];

	switch (v->kind) {
	case PGV_DECLARE:
		return do_declare(s, sql, v, x);
	case PGV_FETCH:
		return do_fetch(s, v, x);
	case PGV_CLOSE_CURSOR:
		if (!v->name[0]) {
			pgc_close_all(s);
		} else if ((i = find_cursor(s, v->name)) >= 0) {
			cursor_free(s, i);
		} else {
			snprintf(msg, sizeof(msg), "cursor \"%s\" does not exist", v->name);
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_SUCH_CURSOR, msg, NULL, 0);
			return true;
		}
		pgr_local_done(s, v->name[0] ? "CLOSE CURSOR" : "CLOSE CURSOR ALL");
		return true;
	default:
		return true;
	}
}
