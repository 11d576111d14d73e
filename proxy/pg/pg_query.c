/*
 * pg_query: runs one statement of a Postgres session, for simple Query and
 * for Execute alike: the local answers to session statements (SET, SHOW,
 * BEGIN, COMMIT, ...), and reads handed to a job, whose frames become
 * RowDescription / DataRow / CommandComplete.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "proxy/pg/pg_session_int.h"
#include "proxy/server.h"

/* A statement-level error: inside a transaction block it aborts the block. */
void pgq_error(struct pg_session *s, const char *sqlstate, const char *code, const char *message,
			    const char *hint, int position)
{
	char prefixed[1100];

	/* The airlock code leads the message, so an agent can branch on it. */
	if (code && code[0] && strncmp(message, code, strlen(code)) != 0) {
		snprintf(prefixed, sizeof(prefixed), "%s: %s", code, message);
		message = prefixed;
	}
	sess_put_error(s, "ERROR", sqlstate, message, NULL, hint, position);
	if (s->txn == 'T')
		s->txn = 'E';
	if (s->cur.extended)
		s->discard_until_sync = true;
	session_audit(&s->core, "refused", sqlstate, code, 0, 0, 0);
}

static void report_param(struct pg_session *s, const char *name)
{
	int i = pgs_find(name);

	if (i >= 0 && (pgs_defs[i].flags & PGS_REPORT))
		pg_put_parameter_status(&s->w, pgs_defs[i].display, s->set.value[i]);
}

/* ---- local answers ---- */

void pgq_local_done(struct pg_session *s, const char *tag)
{
	pg_put_command_complete(&s->w, tag);
	session_audit(&s->core, "local", NULL, NULL, 0, 0, 0);
}

static void show_local(struct pg_session *s, const char *display, const char *value, bool describe)
{
	struct pg_column_desc c = {
		.name = display,
		.name_len = strlen(display),
		.type_oid = 25, /* text */
		.typlen = -1,
		.typmod = -1,
	};
	uint8_t row[2 + 4 + PGS_VALUE_MAX];
	size_t vlen = strlen(value);

	if (describe) {
		pg_put_rowdesc_begin(&s->w, 1);
		pg_put_rowdesc_column(&s->w, &c);
		pg_put_rowdesc_end(&s->w);
	}
	row[0] = 0;
	row[1] = 1;
	row[2] = (uint8_t)(vlen >> 24);
	row[3] = (uint8_t)(vlen >> 16);
	row[4] = (uint8_t)(vlen >> 8);
	row[5] = (uint8_t)vlen;
	memcpy(row + 6, value, vlen);
	pg_put_datarow_raw(&s->w, row, 6 + vlen);
	pgq_local_done(s, "SHOW");
}

static void do_set(struct pg_session *s, const struct pgv_result *v)
{
	bool reported = false;
	const char *sqlstate, *code;
	char msg[512];

	if (v->set_default || !strcasecmp(v->value, "default")) {
		pgs_reset(&s->set, v->name, msg, sizeof(msg));
		reported = true;
	} else if (v->is_local && s->txn == 'I') {
		sess_put_notice(s, "WARNING", "25P01", "SET LOCAL can only be used in transaction blocks", NULL);
		pgq_local_done(s, "SET");
		return;
	} else if (pgs_set(&s->set, v->name, v->value, false, &reported, &sqlstate, &code, msg, sizeof(msg)) <
		   0) {
		char hint[512];

		snprintf(hint, sizeof(hint), "settings that can be changed: %s", pgs_allowed_names());
		pgq_error(s, sqlstate, code, msg, !strcmp(code, "SETTING_NOT_ALLOWED") ? hint : NULL, 0);
		return;
	}
	pgq_local_done(s, "SET");
	if (reported)
		report_param(s, v->name);
}

static void do_transaction(struct pg_session *s, const struct pgv_result *v)
{
	switch (v->kind) {
	case PGV_BEGIN:
		if (v->read_write) {
			pgq_error(s, "25006", "NOT_READ_ONLY",
					"NOT_READ_ONLY: airlock transactions are read-only",
					"use BEGIN or BEGIN READ ONLY", 0);
			return;
		}
		if (s->txn != 'I') {
			sess_put_notice(s, "WARNING", "25001", "there is already a transaction in progress", NULL);
		} else {
			s->snapshot = s->set;
			s->nsavepoints = 0;
			s->txn = 'T';
		}
		pgq_local_done(s, "BEGIN");
		return;
	case PGV_COMMIT:
		pgc_end_transaction(s);
		if (s->txn == 'I')
			sess_put_notice(s, "WARNING", "25P01", "there is no transaction in progress", NULL);
		if (s->txn == 'E')
			s->set = s->snapshot;
		pgq_local_done(s, s->txn == 'E' ? "ROLLBACK" : "COMMIT");
		s->txn = 'I';
		return;
	case PGV_ROLLBACK:
		pgc_end_transaction(s);
		if (s->txn == 'I')
			sess_put_notice(s, "WARNING", "25P01", "there is no transaction in progress", NULL);
		else
			s->set = s->snapshot;
		s->txn = 'I';
		pgq_local_done(s, "ROLLBACK");
		return;
	case PGV_SAVEPOINT:
		if (s->txn == 'I') {
			pgq_error(s, "25P01", "", "SAVEPOINT can only be used in transaction blocks", NULL, 0);
			return;
		}
		if (s->nsavepoints < SESS_MAX_SAVEPOINTS)
			snprintf(s->savepoints[s->nsavepoints++], sizeof(s->savepoints[0]), "%s", v->name);
		pgq_local_done(s, "SAVEPOINT");
		return;
	case PGV_RELEASE:
	case PGV_ROLLBACK_TO: {
		size_t i = s->nsavepoints;
		char msg[160];

		if (s->txn == 'I') {
			snprintf(msg, sizeof(msg), "%s can only be used in transaction blocks",
				 v->kind == PGV_RELEASE ? "RELEASE SAVEPOINT" : "ROLLBACK TO SAVEPOINT");
			pgq_error(s, "25P01", "", msg, NULL, 0);
			return;
		}
		while (i > 0 && strcmp(s->savepoints[i - 1], v->name) != 0)
			i--;
		if (i == 0) {
			snprintf(msg, sizeof(msg), "savepoint \"%s\" does not exist", v->name);
			pgq_error(s, "3B001", "", msg, NULL, 0);
			return;
		}
		if (v->kind == PGV_RELEASE) {
			s->nsavepoints = i - 1;
			pgq_local_done(s, "RELEASE");
		} else {
			s->nsavepoints = i;
			s->txn = 'T';
			pgq_local_done(s, "ROLLBACK");
		}
		return;
	}
	default:
		return;
	}
}

/* ---- reads through a job ---- */

/* A runner's 'T' frame as a RowDescription. */
void pgq_put_rowdesc(struct pg_session *s, const struct frame *f)
{
	struct frame_cursor cur;
	struct frame_column col;
	uint16_t n;

	if (frame_rowdesc_begin(f, &n, &cur) != FRAME_OK)
		return;
	pg_put_rowdesc_begin(&s->w, n);
	for (uint16_t i = 0; i < n; i++) {
		struct pg_column_desc c;

		if (frame_rowdesc_next(&cur, &col) != FRAME_OK) {
			pg_wbuf_reset(&s->w);
			return;
		}
		c = (struct pg_column_desc){
			.name = col.name.ptr,
			.name_len = col.name.len,
			.table_oid = col.table_oid,
			.attnum = col.attnum,
			.type_oid = col.type_oid,
			.typlen = col.typlen,
			.typmod = col.typmod,
			.format = 0,
		};
		pg_put_rowdesc_column(&s->w, &c);
	}
	pg_put_rowdesc_end(&s->w);
	sess_flush(s);
}

static void job_rowdesc(void *arg, const struct frame *f)
{
	struct pg_session *s = arg;

	if (s->cur.describe)
		pgq_put_rowdesc(s, f);
}

static void job_row(void *arg, const struct frame *f)
{
	struct pg_session *s = arg;

	pg_put_datarow_raw(&s->w, f->payload, f->len);
	sess_flush(s);
	session_backpressure(&s->core, s->core.job);
}

/* A runner's 'N' frame as a NoticeResponse, sent now. */
void pgq_put_frame_notice(struct pg_session *s, const struct frame_error *e)
{
	char sqlstate[6], message[1024], hint[512];

	snprintf(sqlstate, sizeof(sqlstate), "%.*s", (int)e->sqlstate.len, e->sqlstate.ptr);
	snprintf(message, sizeof(message), "%.*s", (int)e->message.len, e->message.ptr);
	snprintf(hint, sizeof(hint), "%.*s", (int)e->hint.len, e->hint.ptr);
	sess_put_notice(s, "NOTICE", sqlstate[0] ? sqlstate : "00000", message, hint[0] ? hint : NULL);
	sess_flush(s);
}

static void job_notice(void *arg, const struct frame_error *e)
{
	pgq_put_frame_notice(arg, e);
}

void pgq_put_truncated(struct pg_session *s, uint8_t truncated, uint64_t rows)
{
	const struct airlock_limits *lim = &s->core.u->limits;
	char note[512];

	if (truncated == FRAME_TRUNC_MAX_ROWS)
		snprintf(note, sizeof(note), "RESULT_TRUNCATED: result truncated by max_rows=%u after %" PRIu64 " rows",
			 lim->max_rows, rows);
	else
		snprintf(note, sizeof(note),
			 "RESULT_TRUNCATED: result truncated by max_bytes=%" PRIu64 " after %" PRIu64 " rows",
			 lim->max_bytes, rows);
	sess_put_notice(s, "NOTICE", "01000", note,
			"add a LIMIT, select fewer columns or filter with WHERE to get the whole result");
}

/* A job's error as an ErrorResponse, the airlock code leading the message. */
void pgq_put_job_error(struct pg_session *s, const struct job_result *r)
{
	char msg[1200];

	if (r->code && r->code[0] && strncmp(r->message, r->code, strlen(r->code)) != 0)
		snprintf(msg, sizeof(msg), "%s: %s", r->code, r->message);
	else
		snprintf(msg, sizeof(msg), "%s", r->message);
	sess_put_error(s, "ERROR", r->sqlstate, msg, r->detail, r->hint, r->position);
	if (s->txn == 'T')
		s->txn = 'E';
	session_audit(&s->core, "error", r->sqlstate, r->code, 0, 0, 0);
}

static void job_done(void *arg, const struct job_result *r)
{
	struct pg_session *s = arg;
	const struct pgq_exec *x = &s->cur;

	session_job_finished(&s->core);
	if (r->ok) {
		bool suspended = x->max_rows && r->truncated == FRAME_TRUNC_MAX_ROWS &&
				 x->max_rows <= s->core.u->limits.max_rows;

		if (suspended) {
			/* The client's own Execute limit, not the policy's: more rows were there. */
			pg_put_portal_suspended(&s->w);
			if (x->portal)
				x->portal->suspended = true;
		} else {
			if (r->truncated)
				pgq_put_truncated(s, r->truncated, r->rows);
			pg_put_command_complete(&s->w, r->tag);
		}
		session_audit(&s->core, "run", NULL, NULL, r->rows, r->bytes, r->truncated);
	} else {
		pgq_put_job_error(s, r);
		if (x->extended)
			s->discard_until_sync = true;
	}
	if (!x->extended)
		sess_ready(s);
	else
		sess_flush(s);
	session_set_state(&s->core, SESSION_READY);
	/* Messages that arrived meanwhile. */
	session_process(&s->core);
}

static const struct job_events pg_job_events = {
	.on_rowdesc = job_rowdesc,
	.on_row = job_row,
	.on_notice = job_notice,
	.on_done = job_done,
};

struct job *pgq_start_job(struct pg_session *s, const struct job_request *req, const struct job_events *ev,
			  void *arg)
{
	struct job *j;
	bool busy;
	char msg[256];

	j = session_job_start(&s->core, req, ev, arg, &busy);
	if (!j && busy) {
		snprintf(msg, sizeof(msg),
			 "BUSY: user \"%s\" already runs %u statements or cursors, its max_jobs", s->core.user,
			 s->core.u->max_jobs);
		pgq_error(s, "53300", "BUSY", msg, "wait for a statement to finish or CLOSE a cursor", 0);
	} else if (!j) {
		pgq_error(s, "53200", "", "out of memory", NULL, 0);
	}
	return j;
}

/* Returns false when the job started; true when the statement already failed. */
static bool run_read(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	struct job_setting settings[32];
	struct job_request req = {
		.target = s->core.u->target,
		.limits = &s->core.u->limits,
		.max_rows = x->max_rows,
		.sql = sql,
		.settings = settings,
		.nsettings = pgs_job_settings(&s->set, settings),
		.params = x->params,
		.nparams = x->nparams,
		.cost_check = v->kind == PGV_READ && !v->explain,
	};

	s->cur = *x;
	s->core.job = pgq_start_job(s, &req, &pg_job_events, s);
	if (!s->core.job)
		return true;
	session_set_state(&s->core, SESSION_BUSY);
	return false;
}

/* ---- one statement ---- */

void pgq_validate(struct pg_session *s, const char *sql, struct pgv_result *v)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol = {
		.tables = (const char *const *)s->core.u->tables,
		.ntables = s->core.u->ntables,
		.search_path = path,
	};

	pol.nsearch_path = pgs_search_path(&s->set, path);
	pgv_validate(&pol, sql, v);
}

bool pgq_execute(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	const char *display, *value;
	char msg[160];

	session_statement_begin(&s->core, v->fingerprint);
	s->cur = *x;
	if (s->txn == 'E' && v->kind != PGV_ROLLBACK && v->kind != PGV_COMMIT && v->kind != PGV_ROLLBACK_TO) {
		pgq_error(s, "25P02", "",
			  "current transaction is aborted, commands ignored until end of transaction block",
			  "send ROLLBACK", 0);
		return true;
	}
	switch (v->kind) {
	case PGV_REFUSED:
		pgq_error(s, v->sqlstate, v->code, v->message, v->hint[0] ? v->hint : NULL, v->cursor_pos);
		break;
	case PGV_EMPTY:
		pg_put_empty_query(&s->w);
		break;
	case PGV_SET:
		do_set(s, v);
		break;
	case PGV_RESET:
		if (pgs_reset(&s->set, v->name, msg, sizeof(msg)) < 0) {
			pgq_error(s, "42501", "SETTING_NOT_ALLOWED", msg, NULL, 0);
			break;
		}
		pgq_local_done(s, "RESET");
		if (!strcmp(v->name, "all")) {
			for (size_t i = 0; i < pgs_ndefs; i++)
				if (pgs_defs[i].flags & PGS_REPORT)
					pg_put_parameter_status(&s->w, pgs_defs[i].display, s->set.value[i]);
		} else {
			report_param(s, v->name);
		}
		break;
	case PGV_SHOW:
		value = pgs_show(&s->set, v->name, &display);
		if (!value)
			return run_read(s, sql, v, x);
		show_local(s, display, value, x->describe);
		break;
	case PGV_DISCARD:
		if (s->txn != 'I') {
			pgq_error(s, "25001", "", "DISCARD ALL cannot run inside a transaction block", NULL, 0);
			break;
		}
		pgs_reset(&s->set, "all", msg, sizeof(msg));
		pgq_local_done(s, "DISCARD ALL");
		break;
	case PGV_SET_TRANSACTION:
		if (v->read_write) {
			pgq_error(s, "25006", "NOT_READ_ONLY", "NOT_READ_ONLY: airlock transactions are read-only",
				  NULL, 0);
			break;
		}
		pgq_local_done(s, "SET");
		break;
	case PGV_BEGIN:
	case PGV_COMMIT:
	case PGV_ROLLBACK:
	case PGV_SAVEPOINT:
	case PGV_RELEASE:
	case PGV_ROLLBACK_TO:
		do_transaction(s, v);
		break;
	case PGV_READ:
		return run_read(s, sql, v, x);
	case PGV_DECLARE:
	case PGV_FETCH:
	case PGV_CLOSE_CURSOR:
		if (x->extended) {
			pgq_error(s, "0A000", "UNSUPPORTED", "UNSUPPORTED: cursors are available through simple queries only",
				  "Bind and Execute the SELECT itself", 0);
			break;
		}
		return pgc_statement(s, sql, v);
	}
	return true;
}

void pgq_simple(struct pg_session *s, const char *sql)
{
	struct pgv_result v;
	const struct pgq_exec x = {.describe = true};

	pgq_validate(s, sql, &v);
	if (pgq_execute(s, sql, &v, &x))
		sess_ready(s);
}
