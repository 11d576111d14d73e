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

#include "approval/approval.h"
#include "proxy/pg/pg_session_int.h"
#include "proxy/policy_view.h"
#include "proxy/server.h"
#include "proxy/validator_client.h"

static void report_param(struct pg_session *s, const char *name)
{
	int i = pgs_find(name);

	if (i >= 0 && (pgs_defs[i].flags & PGS_REPORT))
		pg_put_parameter_status(&s->core.w, pgs_defs[i].display, pgs_value(&s->set, i));
}

/* ---- local answers ---- */

/* A text value's binary form is its bytes: only the RowDescription says which was asked for. */
/* One text row, value in a column named display, ended with tag (SHOW, or SELECT 1). */
static void one_value(struct pg_session *s, const char *display, const char *value, const struct pgq_exec *x,
		      const char *tag)
{
	struct pg_column_desc c = {
		.name = display,
		.name_len = strlen(display),
		.type_oid = 25, /* text */
		.typlen = -1,
		.typmod = -1,
		.format = pgr_format(x->formats, 0),
	};
	uint8_t row[2 + 4 + PGS_VALUE_MAX];
	size_t vlen = strlen(value);

	if (x->describe) {
		pg_put_rowdesc_begin(&s->core.w, 1);
		pg_put_rowdesc_column(&s->core.w, &c);
		pg_put_rowdesc_end(&s->core.w);
	}
	row[0] = 0;
	row[1] = 1;
	row[2] = (uint8_t)(vlen >> 24);
	row[3] = (uint8_t)(vlen >> 16);
	row[4] = (uint8_t)(vlen >> 8);
	row[5] = (uint8_t)vlen;
	memcpy(row + 6, value, vlen);
	pg_put_datarow_raw(&s->core.w, row, 6 + vlen);
	pgr_local_done(s, tag);
}

static void show_local(struct pg_session *s, const char *display, const char *value, const struct pgq_exec *x)
{
	one_value(s, display, value, x, "SHOW");
}

struct policy_reply {
	struct pg_session *s;
	uint64_t rows;
};

static void put_text_cell(uint8_t *row, size_t *len, const char *v)
{
	size_t n = strlen(v);

	row[(*len)++] = (uint8_t)(n >> 24);
	row[(*len)++] = (uint8_t)(n >> 16);
	row[(*len)++] = (uint8_t)(n >> 8);
	row[(*len)++] = (uint8_t)n;
	memcpy(row + *len, v, n);
	*len += n;
}

static void policy_row(void *arg, const char *kind, const char *name, const char *detail)
{
	struct policy_reply *r = arg;
	uint8_t row[2 + 3 * 4 + 16 + 256 + 512];
	size_t len = 2;

	if (strlen(kind) > 16 || strlen(name) > 256 || strlen(detail) > 512)
		return;
	row[0] = 0;
	row[1] = 3;
	put_text_cell(row, &len, kind);
	put_text_cell(row, &len, name);
	put_text_cell(row, &len, detail);
	pg_put_datarow_raw(&r->s->core.w, row, len);
	r->rows++;
}

/* SHOW airlock.policy: the user's tables, which are filtered or narrowed, and its limits. */
static void show_policy(struct pg_session *s, const struct pgq_exec *x)
{
	static const char *const names[] = {"kind", "name", "detail"};
	struct policy_reply r = {.s = s};
	char tag[32];

	if (x->describe)
		pgr_text_rowdesc(s, names, 3, x->formats);
	policy_each(s->core.u, false, policy_row, &r);
	snprintf(tag, sizeof(tag), "SHOW");
	pgr_local_done(s, tag);
}

/* A COMMIT: what SET LOCAL changed goes back, reported as Postgres reports it. */
static void end_local(struct pg_session *s)
{
	uint32_t reverted;

	pgs_end_local(&s->set, s->snapshot, s->local_sets, &reverted);
	for (size_t i = 0; i < pgs_ndefs; i++) {
		if ((reverted & (UINT32_C(1) << i)) && (pgs_defs[i].flags & PGS_REPORT))
			pg_put_parameter_status(&s->core.w, pgs_defs[i].display, pgs_value(&s->set, i));
	}
}

/* After a SET of name (local: SET LOCAL in a block), whether COMMIT must put it back. */
static void note_local(struct pg_session *s, const char *name, bool local)
{
	int i = pgs_find(name);

	if (i < 0)
		return;
	if (local && s->txn != 'I')
		s->local_sets |= UINT32_C(1) << i;
	else
		s->local_sets &= ~(UINT32_C(1) << i);
}

static void do_set(struct pg_session *s, const struct pgv_result *v)
{
	bool reported = false;
	const char *sqlstate;
	enum airlock_err code;
	char msg[512];

	if (v->set_default || !strcasecmp(v->value, "default")) {
		pgs_reset(&s->set, v->name, msg, sizeof(msg));
		reported = true;
	} else if (v->is_local && s->txn == 'I') {
		pgr_warning(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION,
			    "SET LOCAL can only be used in transaction blocks");
		pgr_local_done(s, "SET");
		return;
	} else if (pgs_set(&s->set, v->name, v->value, false, &reported, &sqlstate, &code, msg, sizeof(msg)) < 0) {
		char hint[512];

		snprintf(hint, sizeof(hint), "settings that can be changed: %s", pgs_allowed_names());
		pgr_error(s, code, AIRLOCK_N_NONE, msg, code == AIRLOCK_E_SETTING_NOT_ALLOWED ? hint : NULL, 0);
		return;
	}
	note_local(s, v->name, v->is_local);
	pgr_local_done(s, "SET");
	if (reported)
		report_param(s, v->name);
}

/*
 * SELECT set_config('name', 'value', is_local) on a setting the session
 * keeps: a SET that answers the new value, as SHOW prints it (pg_dump, and
 * MCP servers that set their timeouts this way). Local outside a
 * transaction block, it changes nothing, as in Postgres' one-statement
 * transaction.
 */
static void do_set_config(struct pg_session *s, const struct pgv_result *v, const struct pgq_exec *x)
{
	bool reported = false;
	const char *sqlstate, *display, *value;
	enum airlock_err code;
	char msg[512];

	if (!(v->is_local && s->txn == 'I') &&
	    pgs_set(&s->set, v->name, v->value, false, &reported, &sqlstate, &code, msg, sizeof(msg)) < 0) {
		char hint[512];

		snprintf(hint, sizeof(hint), "settings that can be changed: %s", pgs_allowed_names());
		pgr_error(s, code, AIRLOCK_N_NONE, msg, code == AIRLOCK_E_SETTING_NOT_ALLOWED ? hint : NULL, 0);
		return;
	}
	if (!(v->is_local && s->txn == 'I'))
		note_local(s, v->name, v->is_local);
	value = v->is_local && s->txn == 'I' ? v->value : pgs_show(&s->set, v->name, &display);
	one_value(s, v->column, value ? value : v->value, x, "SELECT 1");
	if (reported)
		report_param(s, v->name);
}

/*
 * COMMIT or ROLLBACK: the block's cursors and suspended portals end; a
 * rollback, or the COMMIT of a failed block (which Postgres answers as
 * ROLLBACK), puts back the settings the block began with.
 */
static void end_transaction(struct pg_session *s, bool rollback)
{
	bool undo = rollback || s->txn == 'E';

	pgc_end_transaction(s);
	pgx_close_suspended(s);
	if (s->txn == 'I')
		pgr_warning(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION,
			    "there is no transaction in progress");
	else if (undo && s->snapshot) {
		/* The block's settings go; the snapshot's become the session's. */
		pgs_free(&s->set);
		s->set = *s->snapshot;
		free(s->snapshot);
		s->snapshot = NULL;
	} else if (s->snapshot && s->local_sets) {
		end_local(s);
	}
	s->txn = 'I';
	s->txn_read_only = false;
	s->local_sets = 0;
	free(s->savepoints);
	s->savepoints = NULL;
	s->nsavepoints = 0;
	if (s->snapshot)
		pgs_free(s->snapshot);
	free(s->snapshot);
	s->snapshot = NULL;
	pgr_local_done(s, undo ? "ROLLBACK" : "COMMIT");
}

static void do_transaction(struct pg_session *s, const struct pgv_result *v)
{
	switch (v->kind) {
	case PGV_BEGIN:
		/*
		 * BEGIN READ WRITE too (lib/pq's db.Begin() sends it): Postgres
		 * takes it whatever default_transaction_read_only says, and what
		 * the block runs is checked and run read-only as every statement.
		 */
		if (s->txn != 'I') {
			pgr_warning(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_TRANSACTION_IN_PROGRESS,
				    "there is already a transaction in progress");
		} else {
			/* Kept only while the block lasts: an idle session does not carry a second copy. */
			if (s->snapshot)
				pgs_free(s->snapshot);
			if ((!s->snapshot && !(s->snapshot = malloc(sizeof(*s->snapshot)))) ||
			    pgs_dup(s->snapshot, &s->set) < 0) {
				free(s->snapshot);
				s->snapshot = NULL;
				pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
				return;
			}
			s->nsavepoints = 0;
			s->txn = 'T';
			s->txn_read_only = v->read_only;
		}
		pgr_local_done(s, "BEGIN");
		return;
	case PGV_COMMIT:
	case PGV_ROLLBACK:
		end_transaction(s, v->kind == PGV_ROLLBACK);
		return;
	case PGV_SAVEPOINT:
		if (s->txn == 'I') {
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION,
				  "SAVEPOINT can only be used in transaction blocks", NULL, 0);
			return;
		}
		/* Kept only while a block has savepoints: an idle session does not carry the names. */
		if (!s->savepoints && !(s->savepoints = calloc(SESS_MAX_SAVEPOINTS, sizeof(*s->savepoints)))) {
			pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
			return;
		}
		if (s->nsavepoints < SESS_MAX_SAVEPOINTS)
			snprintf(s->savepoints[s->nsavepoints++], sizeof(s->savepoints[0]), "%s", v->name);
		pgr_local_done(s, "SAVEPOINT");
		return;
	case PGV_RELEASE:
	case PGV_ROLLBACK_TO: {
		size_t i = s->nsavepoints;
		char msg[160];

		if (s->txn == 'I') {
			snprintf(msg, sizeof(msg), "%s can only be used in transaction blocks",
				 v->kind == PGV_RELEASE ? "RELEASE SAVEPOINT" : "ROLLBACK TO SAVEPOINT");
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION, msg, NULL, 0);
			return;
		}
		while (i > 0 && strcmp(s->savepoints[i - 1], v->name) != 0)
			i--;
		if (i == 0) {
			snprintf(msg, sizeof(msg), "savepoint \"%s\" does not exist", v->name);
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_SUCH_SAVEPOINT, msg, NULL, 0);
			return;
		}
		if (v->kind == PGV_RELEASE) {
			s->nsavepoints = i - 1;
			pgr_local_done(s, "RELEASE");
		} else {
			s->nsavepoints = i;
			s->txn = 'T';
			pgr_local_done(s, "ROLLBACK");
		}
		return;
	}
	default:
		return;
	}
}

/* ---- reads through a job ---- */

/* A COPY's 'O' frame as CopyOutResponse. */
static void copy_start(struct pg_session *s, const struct frame *f)
{
	int16_t formats[FRAME_MAX_COLS];
	struct rbuf cur;
	uint16_t n;
	uint8_t format;

	if (frame_copy_start_begin(f, &format, &n, &cur) != FRAME_OK)
		return;
	for (uint16_t i = 0; i < n; i++)
		if (frame_copy_start_next(&cur, &formats[i]) != FRAME_OK)
			return;
	pg_put_copy_out_response(&s->core.w, format, formats, n);
	s->cur.copying = true;
	pgr_flush(s);
}

static void job_rowdesc(void *arg, const struct frame *f)
{
	struct pg_session *s = arg;

	if (f->type == FRAME_COPY_START) {
		copy_start(s, f);
		return;
	}

	/* A schema change since Describe: no row may be read against the described columns. */
	if (s->cur.portal && pgr_rowdesc_differs(s->cur.portal->stmt, f)) {
		s->cur.mismatch = true;
		job_cancel(s->core.job);
		return;
	}
	if (s->cur.describe)
		pgr_rowdesc(s, f);
}

static void job_row(void *arg, const struct frame *f)
{
	struct pg_session *s = arg;

	if (s->cur.mismatch)
		return;
	if (f->type == FRAME_COPY_DATA)
		pg_put_copy_data(&s->core.w, f->payload, f->len);
	else
		pg_put_datarow_raw(&s->core.w, f->payload, f->len);
	pgr_flush(s);
	session_backpressure(&s->core, s->core.job);
}

static void job_notice(void *arg, const struct frame_error *e)
{
	pgr_frame_notice(arg, e);
}

/*
 * The client names itself a dump tool (application_name pg_dump or
 * pg_dumpall, as they set it): it writes what it reads into a file that
 * must be whole, and drops notices.
 */
static bool dump_tool(const struct pg_session *s)
{
	const char *display, *name = pgs_show(&s->set, "application_name", &display);

	return name && (strcmp(name, "pg_dump") == 0 || strcmp(name, "pg_dumpall") == 0);
}

static void job_done(void *arg, const struct job_result *r)
{
	struct pg_session *s = arg;
	const struct pgq_exec *x = &s->cur;

	session_job_finished(&s->core);
	if (x->mismatch) {
		pgr_result_type_changed(s);
	} else if (r->ok) {
		/* For clients that drop notices (MCP servers, dump tools): a cut result cannot pass for a whole one. */
		bool cut_is_error = r->truncated && (s->core.u->truncation_is_error || dump_tool(s));

		if (cut_is_error) {
			pgr_truncated_error(s, r->truncated, r->rows); /* audited as refused */
		} else {
			if (x->copying)
				pg_put_copy_done(&s->core.w);
			if (r->truncated)
				pgr_truncated(s, r->truncated, r->rows);
			pg_put_command_complete(&s->core.w, r->tag);
			session_audit(&s->core, "run", NULL, AIRLOCK_E_NONE, r->rows, r->bytes, r->truncated);
		}
	} else {
		pgr_job_error(s, r);
		if (x->extended)
			s->discard_until_sync = true;
	}
	if (!x->extended)
		pg_put_ready(&s->core.w, s->txn);
	pgp_scoped_free(s);
	session_statement_done(&s->core);
}

static const struct job_events pg_job_events = {
	.on_rowdesc = job_rowdesc,
	.on_row = job_row,
	.on_notice = job_notice,
	.on_done = job_done,
};

/* Returns false when the job started; true when the statement already failed. */
static bool run_read(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	const struct pgj_read rd = pgj_statement(sql, v, x);

	s->core.job = pgj_start(s, &rd, &pg_job_events, s);
	if (!s->core.job)
		return true;
	session_set_state(&s->core, SESSION_BUSY);
	return false;
}

/*
 * COPY ... TO STDOUT: its read scoped as any read is, then the COPY the
 * runner sends written around it and validated again, whole, with the
 * policy: what runs is what was checked. The cost and plan checks EXPLAIN
 * the read.
 */
static bool run_copy(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	struct pgj_read rd = {.copy = true, .copy_header = v->copy_header, .plan = true, .cost_check = true};
	char *inner = v->copy_query[0] ? strdup(v->copy_query) : strndup(sql + v->query_offset, v->query_len);
	char *scoped = NULL, *copy = NULL, *guard = NULL;
	struct pgv_result *again = malloc(sizeof(*again));
	bool done = true;

	if (!inner || !again || !pgp_scope(s, inner, &scoped, &guard))
		goto out;
	rd.guard = guard;
	rd.plan_sql = scoped ? scoped : inner;
	if (asprintf(&copy, "COPY (\n%s\n) TO STDOUT%s", rd.plan_sql, v->copy_options) < 0) {
		copy = NULL;
		goto out;
	}
	pgp_validate(s, copy, again);
	if (again->kind != PGV_COPY_OUT) {
		pgr_error(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_INTERNAL_ERROR,
			  "the COPY could not be checked again after scoping", "COPY (SELECT ...) TO STDOUT", 0);
		goto out;
	}
	rd.sql = copy;
	s->core.job = pgj_start(s, &rd, &pg_job_events, s);
	if (s->core.job) {
		session_set_state(&s->core, SESSION_BUSY);
		done = false;
	}
out:
	if (done && (!inner || !again))
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
	free(inner);
	free(scoped);
	free(guard);
	free(copy);
	free(again);
	return done;
}

/* ---- one statement ---- */

bool pgq_execute(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	const char *display, *value;
	char msg[160];

	session_statement_begin(&s->core, v->fingerprint);
	s->cur = *x;
	if (s->txn == 'E' && v->kind != PGV_ROLLBACK && v->kind != PGV_COMMIT && v->kind != PGV_ROLLBACK_TO) {
		pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_IN_FAILED_TRANSACTION,
			  "current transaction is aborted, commands ignored until end of transaction block",
			  "send ROLLBACK", 0);
		return true;
	}
	switch (v->kind) {
	case PGV_REFUSED:
		if (v->code == AIRLOCK_E_SELECT_STAR)
			return pgst_refuse(s, sql, v, x->params, x->nparams);
		pgr_refused(s, v);
		break;
	case PGV_NKINDS: /* never a result; refused to be safe */
		pgr_refused(s, v);
		break;
	case PGV_WRITE:
		return pgw_execute(s, sql, v, x);
	case PGV_EMPTY:
		pg_put_empty_query(&s->core.w);
		break;
	case PGV_SET:
		if (v->set_config)
			do_set_config(s, v, x);
		else
			do_set(s, v);
		break;
	case PGV_RESET:
		if (pgs_reset(&s->set, v->name, msg, sizeof(msg)) < 0) {
			pgr_error(s, AIRLOCK_E_SETTING_NOT_ALLOWED, AIRLOCK_N_NONE, msg, NULL, 0);
			break;
		}
		pgr_local_done(s, "RESET");
		if (!strcmp(v->name, "all"))
			s->local_sets = 0;
		else
			note_local(s, v->name, false);
		if (!strcmp(v->name, "all")) {
			for (size_t i = 0; i < pgs_ndefs; i++)
				if (pgs_defs[i].flags & PGS_REPORT)
					pg_put_parameter_status(&s->core.w, pgs_defs[i].display, pgs_value(&s->set, i));
		} else {
			report_param(s, v->name);
		}
		break;
	case PGV_SHOW:
		if (strcmp(v->name, "airlock.policy") == 0) {
			show_policy(s, x);
			break;
		}
		value = pgs_show(&s->set, v->name, &display);
		if (!value)
			return run_read(s, sql, v, x);
		show_local(s, display, value, x);
		break;
	case PGV_DISCARD:
		if (s->txn != 'I') {
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_TRANSACTION_IN_PROGRESS,
				  "DISCARD ALL cannot run inside a transaction block", NULL, 0);
			break;
		}
		/* As Postgres: settings reset, prepared statements and cursors gone. */
		pgs_reset(&s->set, "all", msg, sizeof(msg));
		pgx_deallocate(s, "");
		pgc_close_all(s);
		pgr_local_done(s, "DISCARD ALL");
		break;
	case PGV_LOCK:
		/* As Postgres; no lock is taken (each statement reads a snapshot of its own). */
		if (s->txn == 'I') {
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_ACTIVE_TRANSACTION,
				  "LOCK TABLE can only be used in transaction blocks", NULL, 0);
			break;
		}
		pgr_local_done(s, "LOCK TABLE");
		break;
	case PGV_DEALLOCATE:
		if (pgx_deallocate(s, v->name) < 0) {
			snprintf(msg, sizeof(msg), "prepared statement \"%.64s\" does not exist", v->name);
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_NO_SUCH_PREPARED_STATEMENT, msg, NULL, 0);
			break;
		}
		pgr_local_done(s, v->name[0] ? "DEALLOCATE" : "DEALLOCATE ALL");
		break;
	case PGV_SET_TRANSACTION:
		/* READ WRITE for one transaction is taken as in BEGIN; as the session's default it is not. */
		if (v->read_write && strcmp(v->name, "session_characteristics") == 0) {
			pgr_error(s, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, "airlock sessions are read-only",
				  "leave default_transaction_read_only as it is", 0);
			break;
		}
		/* Inside a block, its mode from now on (a write is then refused, or held again). */
		if (s->txn != 'I' && strcmp(v->name, "transaction") == 0 && (v->read_only || v->read_write))
			s->txn_read_only = v->read_only;
		pgr_local_done(s, "SET");
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
	case PGV_COPY_OUT:
		return run_copy(s, sql, v, x);
	case PGV_DECLARE:
	case PGV_FETCH:
	case PGV_CLOSE_CURSOR:
		return pgc_statement(s, sql, v, x);
	}
	return true;
}

#define PGQ_MAX_LIST 16

/* A statement the session answers itself, with no runner: the kinds a statement list may hold. */
static bool answered_here(struct pg_session *s, const struct pgv_result *v)
{
	const char *display;

	switch (v->kind) {
	case PGV_SET:
	case PGV_RESET:
	case PGV_SET_TRANSACTION:
		return true;
	case PGV_SHOW:
		return pgs_show(&s->set, v->name, &display) != NULL;
	default:
		return false;
	}
}

/*
 * Several statements in one Query (Sequelize: "SET client_min_messages TO
 * warning;SET TIME ZONE INTERVAL '+00:00' HOUR TO MINUTE"): run in order
 * when every one is answered by the session, each with its CommandComplete,
 * as in one implicit transaction: an error stops the list and undoes its
 * settings. False (nothing sent) when any of them needs a runner.
 */
static bool run_list(struct pg_session *s, const char *sql)
{
	size_t off[PGQ_MAX_LIST], len[PGQ_MAX_LIST],
		n = vcl_pg_split(s->core.srv->validators, sql, off, len, PGQ_MAX_LIST);
	struct pgv_result *v = n ? calloc(n, sizeof(*v)) : NULL;
	char *text[PGQ_MAX_LIST] = {0};
	struct pg_settings *saved = NULL;
	const struct pgq_exec x = {.describe = true};
	bool ok = v != NULL;
	unsigned errors = s->errors;

	for (size_t i = 0; ok && i < n; i++) {
		text[i] = strndup(sql + off[i], len[i]);
		if (text[i])
			pgp_validate(s, text[i], &v[i]);
		ok = text[i] && answered_here(s, &v[i]);
	}
	if (ok && (saved = malloc(sizeof(*saved))) && pgs_dup(saved, &s->set) < 0) {
		free(saved);
		saved = NULL;
	}
	if (ok && saved) {
		for (size_t i = 0; i < n && s->errors == errors; i++)
			pgq_execute(s, text[i], &v[i], &x);
		/* A failed list sets nothing: the settings it began with come back. */
		if (s->errors != errors) {
			pgs_free(&s->set);
			s->set = *saved;
		} else {
			pgs_free(saved);
		}
		pgr_ready(s);
	}
	for (size_t i = 0; i < n; i++)
		free(text[i]);
	free(v);
	ok = ok && saved;
	free(saved);
	return ok;
}

void pgq_simple(struct pg_session *s, const char *sql)
{
	struct pgv_result v;
	const struct pgq_exec x = {.describe = true};
	char id[APPROVAL_ID_LEN + 2];

	/* Not Postgres' grammar (SHOW takes a name only): answered before the validator sees it. */
	if (pgw_show_id(sql, id, sizeof(id))) {
		session_statement_begin(&s->core, 0);
		pgw_show(s, id, &x);
		pgr_ready(s);
		return;
	}
	pgp_validate(s, sql, &v);
	if (v.kind == PGV_REFUSED && v.code == AIRLOCK_E_MULTI_STATEMENT && run_list(s, sql))
		return;
	if (pgq_execute(s, sql, &v, &x))
		pgr_ready(s);
}
