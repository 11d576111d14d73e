/*
 * my_write: a write of a user with writes = approve, over MySQL. The
 * statement is made into what will run (validate_my_write.h), dry-run by
 * a runner on the user's mysql_write_target in a transaction that is
 * always rolled back (runner/runner_my_write.c), and, when the dry run
 * passed and touched at most max_write_rows rows, kept as a pending
 * record of the store of held writes with the session's settings. The
 * agent gets APPROVAL_REQUIRED naming the record; SHOW AIRLOCK APPROVAL
 * '<id>' answers where it stands, for the user's own records only.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "approval/approval_sample.h"
#include "approval/approval_store.h"
#include "proxy/approval_hold.h"
#include "proxy/approvals.h"
#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"
#include "proxy/timeval.h"
#include "proxy/validator_client.h"
#include "validator/mysql/validate_my_scope.h"
#include "validator/mysql/validate_my_write.h"

/* What a dry run's record needs when the job ends: owned, freed with it. */
struct myw_pending {
	char *statement;
	char *rewritten;
	char *settings;                 /* the settings it was dry-run under, as the record keeps them */
	char *plan;                     /* the write's plan, from the dry run; NULL until it came */
	char *sample_sql;               /* the dry run's variant (validate_my_write_sample.h), or NULL: none */
	struct approval_sample *sample; /* its rows as they come; NULL without a variant */
	bool before;                    /* a DELETE's rows are as they were, an INSERT's as they will be */
	bool pairs;                     /* an UPDATE's come as pairs, before and after (the variant is its read) */
};

/*
 * A session waiting for a held write's outcome (approval_wait_ms): the
 * store is read every WAIT_TICK_MS until the write is decided and settled.
 */
struct myw_wait {
	struct event *tick;
	char id[APPROVAL_ID_LEN + 1];
	int64_t deadline; /* past it, a write still pending is answered as held */
};

#define WAIT_TICK_MS 200

void myw_pending_free(struct myw_pending *p)
{
	if (!p)
		return;
	free(p->statement);
	free(p->rewritten);
	free(p->settings);
	free(p->plan);
	free(p->sample_sql);
	approval_sample_free(p->sample);
	free(p);
}

/* The UPDATE's rows could not be read before it: the record's sample says why (or, out of memory, there is none). */
static void sample_failed(struct myw_pending *p, const struct frame_error *e)
{
	char why[600];
	int n = snprintf(why, sizeof(why), "the rows could not be read before the write%s%.*s",
			 e->message.len ? ": " : "", (int)(e->message.len < 512 ? e->message.len : 512),
			 e->message.ptr);

	if (n > 0 && !approval_sample_note(p->sample, why, strlen(why))) {
		approval_sample_free(p->sample);
		p->sample = NULL;
	}
}

/*
 * The dry run's plan and the rows of its sample come as notices with codes
 * of their own; the database's own are dropped (nothing ran).
 */
static void dry_notice(void *arg, const struct frame_error *e)
{
	struct myw_pending *p = ((struct my_session *)arg)->write;
	const char *row = e->message.ptr, *after = e->detail.len ? e->detail.ptr : NULL;
	size_t len = e->message.len;
	bool ok;

	if (p && !p->plan && frame_error_coded(e, FRAME_PLAN_CODE))
		p->plan = strndup(e->message.ptr, e->message.len);
	if (p && p->sample && frame_error_coded(e, FRAME_SAMPLE_FAILED_CODE))
		sample_failed(p, e);
	if (!p || !p->sample || !frame_error_coded(e, p->pairs ? FRAME_SAMPLE_PAIR_CODE : FRAME_SAMPLE_CODE))
		return;
	/* A pair's after is its detail; an empty one: the row was not read again (null). */
	if (p->pairs)
		ok = approval_sample_row(p->sample, row, len, after, e->detail.len);
	else
		ok = approval_sample_row(p->sample, p->before ? row : NULL, len, p->before ? NULL : row, len);
	if (!ok) {
		/* Out of memory: the write is held without a sample, never with half of one. */
		approval_sample_free(p->sample);
		p->sample = NULL;
	}
}

void myw_wait_free(struct my_session *s)
{
	if (!s->waiting)
		return;
	if (s->waiting->tick)
		event_free(s->waiting->tick);
	free(s->waiting);
	s->waiting = NULL;
}

static void wait_end(struct my_session *s)
{
	myw_wait_free(s);
	myr_flush(s);
	session_statement_done(&s->core);
}

static void held(struct my_session *s, const char *id, const char *lead, uint64_t rows)
{
	char msg[640], hint[320];

	snprintf(msg, sizeof(msg),
		 "the write is %s for approval (approval %s): it would touch %" PRIu64
		 " rows; nothing is written until a person approves it",
		 lead, id, rows);
	snprintf(hint, sizeof(hint), "SHOW AIRLOCK APPROVAL '%s' tells its outcome", id);
	myr_put_err(s, AIRLOCK_E_APPROVAL_REQUIRED, AIRLOCK_N_NONE, msg, hint);
}

static void wait_tick(evutil_socket_t fd, short what, void *arg)
{
	struct my_session *s = arg;
	struct myw_wait *w = s->waiting;
	struct approval_store *st = s->core.srv->approvals;
	struct approval a = {0};
	char msg[1400];

	(void)fd;
	(void)what;
	approvals_expire(st, s->core.srv->audit, wall_ms());
	if (st->ops->get(st, w->id, &a) != APPROVAL_OK) {
		myr_put_err(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_NONE, "the held write's record could not be read",
			    NULL);
		session_audit(&s->core, "error", NULL, AIRLOCK_E_EXECUTION_FAILED, 0, 0, 0);
	} else if (a.status == APPROVAL_EXECUTED) {
		/* As if the statement had just run. */
		myr_put_ok_rows(s, a.executed_rows < 0 ? 0 : (uint64_t)a.executed_rows);
		session_audit(&s->core, "run", NULL, AIRLOCK_E_NONE, (uint64_t)a.executed_rows, 0, 0);
	} else if (approval_status_final(a.status)) {
		snprintf(msg, sizeof(msg), "the write was %s (approval %s)%s%s; nothing was written",
			 approval_status_name(a.status), w->id, a.reason[0] ? ": " : "", a.reason);
		myr_put_err(s, AIRLOCK_E_APPROVAL_REQUIRED, AIRLOCK_N_NONE, msg,
			    "ask again, or change the statement as the reason says");
		session_audit(&s->core, "refused", NULL, AIRLOCK_E_APPROVAL_REQUIRED, 0, 0, 0);
	} else if (a.status == APPROVAL_PENDING && wall_ms() >= w->deadline) {
		held(s, w->id, "still held", (uint64_t)a.rows);
		session_audit_held(&s->core, w->id, (uint64_t)a.rows);
	} else {
		approval_free(&a);
		return; /* pending, approved or running: not yet */
	}
	approval_free(&a);
	wait_end(s);
}

/* Waits up to the user's approval_wait_ms for the held write id; false when the wait could not begin. */
static bool wait_begin(struct my_session *s, const char *id)
{
	struct myw_wait *w = calloc(1, sizeof(*w));
	struct timeval tv = {0, WAIT_TICK_MS * 1000};
	char msg[200];

	if (!w || !(w->tick = event_new(s->core.srv->base, -1, EV_PERSIST, wait_tick, s))) {
		free(w);
		return false;
	}
	memcpy(w->id, id, sizeof(w->id));
	w->deadline = wall_ms() + s->core.u->approval_wait_ms;
	if (event_add(w->tick, &tv) < 0) {
		event_free(w->tick);
		free(w);
		return false;
	}
	s->waiting = w;
	/* MySQL has no message before a statement's answer: the wait is told in a warning with it. */
	snprintf(msg, sizeof(msg),
		 "APPROVAL_REQUIRED: the write was held for approval (approval %s) and waited up to %u ms for the "
		 "decision",
		 id, s->core.u->approval_wait_ms);
	myr_warn(s, AIRLOCK_E_APPROVAL_REQUIRED, AIRLOCK_N_NONE, msg);
	return true;
}

bool myw_cancel(struct my_session *s)
{
	char msg[200];

	if (!s->waiting)
		return false;
	snprintf(msg, sizeof(msg), "canceling the wait: the write stays held (approval %s)", s->waiting->id);
	myr_put_err(s, AIRLOCK_E_CANCELED, AIRLOCK_N_NONE, msg, NULL);
	session_audit(&s->core, "error", NULL, AIRLOCK_E_CANCELED, 0, 0, 0);
	wait_end(s);
	return true;
}

/* Keeps the dry-run write as a pending record, its sample taken from p; its id in id. False with the reason in why. */
static bool hold(struct my_session *s, struct myw_pending *p, struct approval_ask *q, uint64_t rows, char *id,
		 char *why, size_t whylen)
{
	q->sample = p->sample;
	p->sample = NULL;
	return approval_hold(&s->core, q, rows, id, why, whylen);
}

static void dry_done(void *arg, const struct job_result *r)
{
	struct my_session *s = arg;
	struct myw_pending *p = s->write;
	char id[APPROVAL_ID_LEN + 1], why[512], msg[640];
	uint64_t rows = 0;
	struct approval_ask q = {
		.protocol = "mysql",
		.application_name = s->program,
		.statement = p ? p->statement : NULL,
		.params = "[]",
		.param_types = "[]",
		.rewritten = p ? p->rewritten : NULL,
		.settings = p ? p->settings : NULL,
		.plan = p ? p->plan : NULL,
	};

	s->write = NULL;
	session_job_finished(&s->core);
	if (!r->ok) {
		myr_job_error(s, r);
		myr_flush(s);
	} else if (!p || !p->settings) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
	} else if (!frame_tag_rows(r->tag, &rows)) {
		myr_refuse(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_NONE,
			   "the dry run of the write did not say how many rows it touches", NULL);
	} else if (!hold(s, p, &q, rows, id, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "the write could not be held for approval: %s", why);
		myr_refuse(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_NONE, msg, NULL);
	} else if (s->core.u->approval_wait_ms && wait_begin(s, id)) {
		/* The statement goes on: its answer comes with the decision. */
		session_audit_held(&s->core, id, rows);
		myw_pending_free(p);
		return;
	} else {
		held(s, id, "held", rows);
		session_audit_held(&s->core, id, rows);
		myr_flush(s);
	}
	myw_pending_free(p);
	session_statement_done(&s->core);
}

static const struct job_events dry_events = {
	.on_notice = dry_notice,
	.on_done = dry_done,
};

/*
 * The text that will run of the write v, validated again as the same
 * write, and *sample its dry run's variant (or NULL: none); NULL when
 * refused (sent).
 */
static char *made(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v,
		  const struct vmy_policy *pol, char **sample)
{
	struct vmy_result *again = malloc(sizeof(*again));
	bool failed = false;
	char *text = NULL;

	if (!again) {
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return NULL;
	}
	text = vcl_my_write_scope(s->core.srv->validators, pol, sql, len, v, &failed, again, sample);
	if (text && again->kind == VMY_WRITE && strcmp(again->write.command, v->write.command) == 0 &&
	    strcmp(again->write.db, v->write.db) == 0 && strcmp(again->write.table, v->write.table) == 0) {
		free(again);
		return text;
	}
	if (again->kind == VMY_REFUSED)
		myr_refused(s, again);
	else
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "Not supported through airlock: this write could not be scoped to your world",
			   "write it more plainly: one table, plain conditions");
	free(text);
	free(*sample);
	*sample = NULL;
	free(again);
	return NULL;
}

void myw_execute(struct my_session *s, const char *sql, size_t len, const struct vmy_result *v)
{
	const struct airlock_user *u = s->core.u;
	struct vmy_policy pol;
	struct myw_pending *p;
	struct myq_job how = {.ev = &dry_events, .arg = s, .write_dry = true};

	if (!s->core.srv->approvals || !u->mysql_write_target) {
		myr_refuse(s, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE,
			   "Cannot execute statement in a READ ONLY transaction", "only reads run here");
		return;
	}
	if (s->in_trans && s->read_only_txn) {
		myr_refuse(s, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE,
			   "Cannot execute statement in a READ ONLY transaction",
			   "the transaction was started READ ONLY");
		return;
	}
	if (v->write.rule >= 0 && myv_mode_changes_values(&s->vars)) {
		myr_refuse(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "Not supported through airlock: writing a table with a row filter under this sql_mode",
			   "SET sql_mode without NO_UNSIGNED_SUBTRACTION, NO_ZERO_IN_DATE, NO_ZERO_DATE, "
			   "ALLOW_INVALID_DATES, PAD_CHAR_TO_FULL_LENGTH and TIME_ROUND_FRACTIONAL");
		return;
	}
	myv_fill_policy(s, &pol);
	p = calloc(1, sizeof(*p));
	if (!p || !(p->statement = strndup(sql, v->stmt_len && v->stmt_len <= len ? v->stmt_len : len))) {
		myw_pending_free(p);
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return;
	}
	if (!(p->rewritten = made(s, sql, len, v, &pol, &p->sample_sql))) {
		myw_pending_free(p);
		return;
	}
	/* Without its variant (or memory for its rows) the write is dry-run as it will run, with no sample. */
	if (p->sample_sql && !(p->sample = approval_sample_new())) {
		free(p->sample_sql);
		p->sample_sql = NULL;
	}
	p->before = strcmp(v->write.command, "DELETE") == 0;
	/* An UPDATE's variant is the read of its rows: the job runs the UPDATE itself and reads them around it. */
	p->pairs = strcmp(v->write.command, "UPDATE") == 0;
	how.sample = p->sample_sql && !p->pairs;
	how.plan_sql = how.sample ? p->rewritten : NULL;
	how.sample_read = p->pairs ? p->sample_sql : NULL;
	how.write_check = vmy_write_checks(&pol, v);
	how.settings = &p->settings;
	s->write = p;
	myj_start_with(s, how.sample ? p->sample_sql : p->rewritten, &how);
	if (!s->core.job) {
		s->write = NULL;
		myw_pending_free(p);
		return;
	}
}

/* ---- SHOW AIRLOCK APPROVAL '<id>' ---- */

/* One row: id, status, rows, executed_rows, reason, decided_by, decided_at, created_at, expires_at (UTC). */
static void show_row(struct my_session *s, const struct approval *a)
{
	static const struct myl_col cols[] = {
		{"id", MY_TYPE_VAR_STRING, false},         {"status", MY_TYPE_VAR_STRING, false},
		{"rows", MY_TYPE_LONGLONG, true},          {"executed_rows", MY_TYPE_LONGLONG, true},
		{"reason", MY_TYPE_VAR_STRING, false},     {"decided_by", MY_TYPE_VAR_STRING, false},
		{"decided_at", MY_TYPE_VAR_STRING, false}, {"created_at", MY_TYPE_VAR_STRING, false},
		{"expires_at", MY_TYPE_VAR_STRING, false},
	};
	char rows[32], executed[32], decided[64], created[64], expires[64];
	const char *row[9];

	snprintf(rows, sizeof(rows), "%" PRId64, a->rows);
	snprintf(executed, sizeof(executed), "%" PRId64, a->executed_rows);
	approval_time_sql(a->decided_at, "", decided, sizeof(decided));
	approval_time_sql(a->created_at, "", created, sizeof(created));
	approval_time_sql(a->expires_at, "", expires, sizeof(expires));
	row[0] = a->id;
	row[1] = approval_status_name(a->status);
	row[2] = rows;
	row[3] = a->executed_rows < 0 ? NULL : executed;
	row[4] = a->reason[0] ? a->reason : NULL;
	row[5] = a->decided_by[0] ? a->decided_by : NULL;
	row[6] = decided[0] ? decided : NULL;
	row[7] = created;
	row[8] = expires;
	myl_header(s, cols, 9);
	myl_row(s, row, 9);
	myr_result_end(s);
	session_audit(&s->core, "local", NULL, AIRLOCK_E_NONE, 1, 0, 0);
	myr_flush(s);
}

void myw_show(struct my_session *s, const char *id)
{
	struct approval a;
	char msg[160];

	if (approvals_own(s->core.srv->approvals, s->core.srv->audit, s->core.u->name, id, &a)) {
		show_row(s, &a);
		approval_free(&a);
		return;
	}
	snprintf(msg, sizeof(msg), "approval '%.40s' does not exist", id);
	myr_refuse(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR, msg,
		   "the id is the one the write's APPROVAL_REQUIRED error named");
}
