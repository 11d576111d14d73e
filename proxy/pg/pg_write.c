/*
 * pg_write: a write of a user with writes = approve, over Postgres. The
 * statement is made into what will run (validate_pg_write.h), dry-run by
 * a runner with the user's write target in a transaction that is always
 * rolled back (runner/runner_pg_write.c), and, when the dry run passed
 * and touched at most max_write_rows rows, kept as a pending record of
 * the store of held writes. The agent gets APPROVAL_REQUIRED naming the
 * record; SHOW airlock.approval '<id>' answers where it stands, for the
 * user's own records only.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <jansson.h>

#include <event2/event.h>
#include <openssl/evp.h>

#include "approval/approval_sample.h"
#include "approval/approval_store.h"
#include "proxy/approval_hold.h"
#include "proxy/approvals.h"
#include "proxy/pg/pg_session_int.h"
#include "proxy/server.h"
#include "proxy/timeval.h"

/* What a dry run's record needs when the job ends: owned, freed with it. */
struct pgw_pending {
	char *statement;
	char *rewritten;
	char *params;
	char *sample_sql;               /* the dry run's variant (validate_pg_write.h), or NULL: none */
	struct approval_sample *sample; /* its rows as they come; NULL without a variant */
	int before, after;              /* their columns in the variant's rows; -1: none */
	char *plan;                     /* the write's plan, from the dry run; NULL until it came */
	char *settings;                 /* the settings it was dry-run under, as the record keeps them */
	char *param_types;              /* its parameters' types, as the record keeps them */
	char command[8];                /* INSERT, UPDATE or DELETE: the tag when it ran */
	bool returning;                 /* the client asked for rows */
	bool text_rows;                 /* ... in text, as a run keeps them for a wait to give */
};

/*
 * A session waiting for a held write's outcome (approval_wait_ms): the
 * store is read every WAIT_TICK_MS until the write is decided and settled.
 */
struct pgw_wait {
	struct event *tick;
	char id[APPROVAL_ID_LEN + 1];
	char command[8];
	bool returning;   /* the statement returns rows: the run's are given as it gives them */
	int64_t deadline; /* past it, a write still pending is answered as held */
};

#define WAIT_TICK_MS 200

/* What the rows of a dry run's sample may hold; the record keeps at most APPROVAL_MAX_SAMPLE of JSON. */
#define SAMPLE_BYTES (32 * 1024)

void pgw_pending_free(struct pgw_pending *p)
{
	if (!p)
		return;
	free(p->statement);
	free(p->rewritten);
	free(p->params);
	free(p->sample_sql);
	approval_sample_free(p->sample);
	free(p->plan);
	free(p->settings);
	free(p->param_types);
	free(p);
}

/* The settings a job applies, as a JSON object of names to values (heap); NULL when out of memory. */
/* The bound values' types (0: unspecified), as a JSON array; NULL when out of memory. */
static char *types_json(const struct pgq_exec *x)
{
	json_t *a = json_array();
	char *out = NULL;
	bool ok = a != NULL;

	for (size_t i = 0; ok && i < x->nparams; i++)
		ok = json_array_append_new(a, json_integer(x->params[i].type_oid)) == 0;
	if (ok)
		out = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return out;
}

/* The bound values as a JSON array of strings and nulls (text parameters only); NULL when one is binary. */
static char *params_json(const struct pgq_exec *x)
{
	json_t *a = json_array();
	char *out = NULL;

	for (size_t i = 0; a && i < x->nparams; i++) {
		const struct job_param *p = &x->params[i];
		json_t *v = p->value ? json_stringn((const char *)p->value, p->len) : json_null();

		if (p->binary || !v || json_array_append_new(a, v) < 0)
			goto out;
	}
	if (a)
		out = json_dumps(a, JSON_COMPACT);
out:
	json_decref(a);
	return out;
}

/* Keeps the dry-run write as a pending record; its id in id. False with the reason in why. */
static bool hold(struct pg_session *s, struct pgw_pending *p, uint64_t rows, char *id, char *why, size_t whylen)
{
	const char *display;
	struct approval_ask q = {
		.protocol = "postgres",
		.application_name = pgs_show(&s->set, "application_name", &display),
		.statement = p->statement,
		.params = p->params,
		.param_types = p->param_types,
		.rewritten = p->rewritten,
		.plan = p->plan,
		.settings = p->settings,
		.sample = p->sample,
	};

	p->sample = NULL;
	return approval_hold(&s->core, &q, rows, id, why, whylen);
}

static void wait_free(struct pgw_wait *w)
{
	if (!w)
		return;
	if (w->tick)
		event_free(w->tick);
	free(w);
}

void pgw_wait_free(struct pg_session *s)
{
	wait_free(s->waiting);
	s->waiting = NULL;
}

/* The statement ends: its answer is queued; ReadyForQuery and the session's next message follow. */
static void wait_end(struct pg_session *s)
{
	pgw_wait_free(s);
	if (!s->cur.extended)
		pg_put_ready(&s->core.w, s->txn);
	session_statement_done(&s->core);
}

/* One kept frame (its type letter, its payload in base64) decoded into buf; false when it is malformed. */
static bool kept_frame(const char *text, size_t len, uint8_t *buf, struct frame *f)
{
	int n;

	if (len < 1 || (len - 1) % 4 != 0)
		return false;
	n = EVP_DecodeBlock(buf, (const unsigned char *)text + 1, (int)(len - 1));
	if (n < 0)
		return false;
	/* EVP_DecodeBlock counts the padding's zero bytes too. */
	for (size_t i = len; i > 1 && text[i - 1] == '='; i--)
		n--;
	*f = (struct frame){.type = (uint8_t)text[0], .len = (uint32_t)n, .payload = buf};
	return true;
}

/*
 * The rows the run returned, given as if the statement had just run: the
 * RowDescription (when the client did not describe it already) and each
 * DataRow, each checked as a runner's frame is. False when they were not
 * kept, or are malformed (nothing then goes out).
 */
static bool replay_rows(struct pg_session *s, const char *result)
{
	json_t *a = result[0] ? json_loads(result, 0, NULL) : NULL, *v;
	struct wbuf rows;
	uint8_t *buf = NULL;
	struct frame f, desc = {0};
	uint8_t *descbuf = NULL;
	bool ok = json_is_array(a) && json_array_size(a) >= 1;
	uint16_t ncols;
	size_t i;

	wbuf_init(&rows);
	json_array_foreach(a, i, v)
	{
		size_t len = json_string_length(v);

		if (!ok || !json_is_string(v) || !(buf = malloc(len + 1)) ||
		    !kept_frame(json_string_value(v), len, buf, &f) ||
		    (i == 0 ? f.type != FRAME_ROWDESC
			    : f.type != FRAME_ROW || frame_row_check(&f, &ncols) != FRAME_OK)) {
			ok = false;
			free(buf);
			buf = NULL;
			break;
		}
		if (i == 0) {
			desc = f;
			descbuf = buf;
		} else {
			pg_put_datarow_raw(&rows, f.payload, f.len);
			free(buf);
		}
		buf = NULL;
	}
	if (ok && !rows.failed) {
		if (s->cur.describe)
			pgr_rowdesc(s, &desc);
		wbuf_put_bytes(&s->core.w, rows.data, rows.len);
	}
	free(descbuf);
	wbuf_free(&rows);
	json_decref(a);
	return ok && !rows.failed;
}

static void wait_tick(evutil_socket_t fd, short what, void *arg)
{
	struct pg_session *s = arg;
	struct pgw_wait *w = s->waiting;
	struct approval_store *st = s->core.srv->approvals;
	struct approval a = {0};
	char msg[1400], tag[64];

	(void)fd;
	(void)what;
	approvals_expire(st, s->core.srv->audit, wall_ms());
	if (st->ops->get(st, w->id, &a) != APPROVAL_OK) {
		approval_free(&a);
		pgr_error(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
			  "the held write's record could not be read", NULL, 0);
		wait_end(s);
		return;
	}
	if (a.status == APPROVAL_EXECUTED) {
		/* As if the statement had just run. */
		if (w->returning && !replay_rows(s, a.result))
			pgr_warning(s, AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_NONE,
				    "RESULT_TRUNCATED: the write ran, but the rows it returned were too large to keep");
		snprintf(tag, sizeof(tag), "%s%s %" PRId64, w->command, strcmp(w->command, "INSERT") ? "" : " 0",
			 a.executed_rows);
		pg_put_command_complete(&s->core.w, tag);
		session_audit(&s->core, "run", NULL, AIRLOCK_E_NONE, (uint64_t)a.executed_rows, 0, 0);
	} else if (approval_status_final(a.status)) {
		snprintf(msg, sizeof(msg), "the write was %s (approval %s)%s%s; nothing was written",
			 approval_status_name(a.status), w->id, a.reason[0] ? ": " : "", a.reason);
		pgr_error(s, AIRLOCK_E_APPROVAL_REQUIRED, AIRLOCK_N_NONE, msg,
			  "ask again, or change the statement as the reason says", 0);
	} else if (a.status == APPROVAL_PENDING && wall_ms() >= w->deadline) {
		snprintf(msg, sizeof(msg),
			 "the write is still held for approval (approval %s); nothing is written until a person "
			 "approves it",
			 w->id);
		snprintf(tag, sizeof(tag), "SHOW airlock.approval '%s' tells its outcome", w->id);
		pgr_held(s, w->id, msg, tag, (uint64_t)a.rows);
	} else {
		approval_free(&a);
		return; /* pending, approved or running: not yet */
	}
	approval_free(&a);
	wait_end(s);
}

/* Waits up to the user's approval_wait_ms for the held write id; false when the wait could not begin. */
static bool wait_begin(struct pg_session *s, const char *id, const char *command, bool returning)
{
	struct pgw_wait *w = calloc(1, sizeof(*w));
	struct timeval tv = {0, WAIT_TICK_MS * 1000};
	char msg[256];

	if (!w || !(w->tick = event_new(s->core.srv->base, -1, EV_PERSIST, wait_tick, s))) {
		free(w);
		return false;
	}
	memcpy(w->id, id, sizeof(w->id));
	snprintf(w->command, sizeof(w->command), "%s", command);
	w->returning = returning;
	w->deadline = wall_ms() + s->core.u->approval_wait_ms;
	if (event_add(w->tick, &tv) < 0) {
		wait_free(w);
		return false;
	}
	s->waiting = w;
	snprintf(msg, sizeof(msg), "the write is held for approval (approval %s): waiting up to %u ms for the decision",
		 id, s->core.u->approval_wait_ms);
	pgr_warning(s, AIRLOCK_E_APPROVAL_REQUIRED, AIRLOCK_N_NONE, msg);
	pgr_flush(s);
	return true;
}

bool pgw_cancel(struct pg_session *s)
{
	char msg[200];

	if (!s->waiting)
		return false;
	snprintf(msg, sizeof(msg), "canceling the wait: the write stays held (approval %s)", s->waiting->id);
	pgr_error(s, AIRLOCK_E_CANCELED, AIRLOCK_N_NONE, msg, NULL, 0);
	wait_end(s);
	return true;
}

/* The variant's columns: which holds the rows as they were, which as they will be. */
static void dry_rowdesc(void *arg, const struct frame *f)
{
	struct pgw_pending *p = ((struct pg_session *)arg)->write;
	struct frame_column col;
	struct rbuf cur;
	uint16_t n;

	if (!p || !p->sample || frame_rowdesc_begin(f, &n, &cur) != FRAME_OK)
		return;
	for (int i = 0; i < n && frame_rowdesc_next(&cur, &col) == FRAME_OK; i++) {
		if (col.name.len == 14 && !memcmp(col.name.ptr, "airlock_before", 14))
			p->before = i;
		else if (col.name.len == 13 && !memcmp(col.name.ptr, "airlock_after", 13))
			p->after = i;
	}
}

/* One row of the sample: each of its two columns a JSON object of the row. */
static void dry_row(void *arg, const struct frame *f)
{
	struct pgw_pending *p = ((struct pg_session *)arg)->write;
	const uint8_t *v, *before = NULL, *after = NULL;
	uint32_t len, blen = 0, alen = 0;
	struct rbuf cur;
	uint16_t n;

	if (!p || !p->sample || (p->before < 0 && p->after < 0) || frame_row_begin(f, &n, &cur) != FRAME_OK)
		return;
	for (int i = 0; i < n && frame_row_next(&cur, &v, &len) == FRAME_OK; i++) {
		if (i == p->before)
			before = v, blen = len;
		else if (i == p->after)
			after = v, alen = len;
	}
	if (!approval_sample_row(p->sample, (const char *)before, blen, (const char *)after, alen)) {
		/* Out of memory: the write is held without a sample, never with half of one. */
		approval_sample_free(p->sample);
		p->sample = NULL;
	}
}

/* The dry run's plan comes as a notice with a code of its own; the database's notices go to the client. */
static void dry_notice(void *arg, const struct frame_error *e)
{
	struct pgw_pending *p = ((struct pg_session *)arg)->write;

	if (frame_error_coded(e, FRAME_PLAN_CODE)) {
		if (p && !p->plan)
			p->plan = strndup(e->message.ptr, e->message.len);
		return;
	}
	pgr_frame_notice(arg, e);
}

static void dry_done(void *arg, const struct job_result *r)
{
	struct pg_session *s = arg;
	struct pgw_pending *p = s->write;
	char id[APPROVAL_ID_LEN + 1], why[512], msg[640], hint[320];
	uint64_t rows = 0;

	s->write = NULL;
	session_job_finished(&s->core);
	if (!r->ok) {
		pgr_job_error(s, r);
	} else if (!frame_tag_rows(r->tag, &rows)) {
		pgr_error(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
			  "the dry run of the write did not say how many rows it touches", NULL, 0);
	} else if (!hold(s, p, rows, id, why, sizeof(why))) {
		snprintf(msg, sizeof(msg), "the write could not be held for approval: %s", why);
		pgr_error(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR, msg, NULL, 0);
	} else if (s->core.u->approval_wait_ms && (!p->returning || p->text_rows) &&
		   wait_begin(s, id, p->command, p->returning)) {
		/* The statement goes on: its answer comes with the decision. */
		session_audit_held(&s->core, id, rows);
		pgw_pending_free(p);
		return;
	} else {
		snprintf(msg, sizeof(msg),
			 "the write is held for approval (approval %s): it would touch %" PRIu64
			 " rows; nothing is written until a person approves it",
			 id, rows);
		snprintf(hint, sizeof(hint), "SHOW airlock.approval '%s' tells its outcome", id);
		pgr_held(s, id, msg, hint, rows);
	}
	pgw_pending_free(p);
	if (!s->cur.extended)
		pg_put_ready(&s->core.w, s->txn);
	session_statement_done(&s->core);
}

static const struct job_events dry_events = {
	.on_rowdesc = dry_rowdesc,
	.on_row = dry_row,
	.on_notice = dry_notice,
	.on_done = dry_done,
};

/* pgw_execute with every parameter in text (pgw_params_text). */
static bool execute_text(struct pg_session *s, const char *sql, const struct pgq_exec *x)
{
	const struct airlock_user *u = s->core.u;
	struct job_setting settings[32];
	size_t nsettings;
	struct airlock_limits limits = u->limits;
	struct pgv_result w;
	struct pgw_pending *p = NULL;
	char *text = NULL, *guard = NULL, *sample = NULL;
	struct job_request req;

	if (!pgp_write(s, sql, &text, &guard, &sample, &w))
		return true;
	p = calloc(1, sizeof(*p));
	if (!p || !(p->statement = strdup(sql)) || !(p->params = params_json(x))) {
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		goto fail;
	}
	p->rewritten = text;
	text = NULL;
	p->before = p->after = -1;
	/* Without its variant (or memory for its rows) the write is dry-run as it will run, with no sample. */
	if (sample && (p->sample = approval_sample_new()) != NULL) {
		p->sample_sql = sample;
		sample = NULL;
		if (limits.max_bytes > SAMPLE_BYTES)
			limits.max_bytes = SAMPLE_BYTES;
	}
	free(sample);
	sample = NULL;
	snprintf(p->command, sizeof(p->command), "%s", w.command);
	p->returning = w.returning;
	p->text_rows = !x->formats || !strchr(x->formats, '1');
	/* Rows it returns past max_write_rows are rows it touches past it. */
	limits.max_rows = u->max_write_rows;
	nsettings = pgs_job_settings(&s->set, settings);
	if (!(p->settings = approval_settings_json(settings, nsettings)) || !(p->param_types = types_json(x))) {
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		goto fail;
	}
	req = (struct job_request){
		.target = u->write_target,
		.limits = &limits,
		.sql = p->sample_sql ? p->sample_sql : p->rewritten,
		.plan_sql = p->sample_sql ? p->rewritten : NULL,
		.settings = settings,
		.nsettings = nsettings,
		.params = x->params,
		.nparams = x->nparams,
		.rewritten = true,
		.guard = guard,
		.write = 1,
		.write_max = u->max_write_rows,
		.write_check = w.write_check,
		.returning = false,
		.sample = p->sample_sql != NULL,
	};
	s->write = p;
	s->core.job = pgr_start_job(s, &req, &dry_events, s);
	free(guard);
	if (!s->core.job) {
		s->write = NULL;
		pgw_pending_free(p);
		return true;
	}
	session_set_state(&s->core, SESSION_BUSY);
	return false;
fail:
	pgw_pending_free(p);
	free(text);
	free(guard);
	free(sample);
	return true;
}

bool pgw_execute(struct pg_session *s, const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	struct pgw_params tp;
	char why[256];
	bool done;

	if (!s->core.srv->approvals || !s->core.u->write_target) {
		pgr_error(s, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, "cannot execute a write on a read-only endpoint",
			  "only reads run here", 0);
		return true;
	}
	if (s->txn == 'T' && s->txn_read_only) {
		/* As Postgres answers in a READ ONLY block; nothing is held. */
		snprintf(why, sizeof(why), "cannot execute %s in a read-only transaction", v->command);
		pgr_error(s, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, why,
			  "the transaction was begun READ ONLY; write outside it or in a READ WRITE one", 0);
		return true;
	}
	if (!pgw_params_text(x, &tp, why, sizeof(why))) {
		pgr_error(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, why, "bind the values as text, of built-in types",
			  0);
		return true;
	}
	/* The job copies what it needs as it starts: the text made of binary values goes now. */
	done = execute_text(s, sql, &tp.x);
	pgw_params_free(&tp);
	return done;
}

/* ---- SHOW airlock.approval '<id>' ---- */

/* Skips spaces and SQL comments. */
static const char *skip_space(const char *p)
{
	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");

			if (!end)
				return p;
			p = end + 2;
		} else {
			return p;
		}
	}
}

bool pgw_show_id(const char *sql, char *id, size_t idlen)
{
	const char *p = skip_space(sql), *end, *q;
	static const char show[] = "show", name[] = "airlock.approval";
	size_t n;

	if (strncasecmp(p, show, sizeof(show) - 1) != 0 || !isspace((unsigned char)p[sizeof(show) - 1]))
		return false;
	p = skip_space(p + sizeof(show) - 1);
	if (strncasecmp(p, name, sizeof(name) - 1) != 0)
		return false;
	p = skip_space(p + sizeof(name) - 1);
	if (*p != '\'')
		return false;
	/* A string literal, '' standing for a quote; one longer than an id is kept cut (it names nothing). */
	n = 0;
	for (q = p + 1;;) {
		char c;

		if (*q == '\0')
			return false;
		if (*q == '\'' && q[1] != '\'') {
			end = q;
			break;
		}
		c = *q;
		q += *q == '\'' ? 2 : 1;
		if (n + 1 < idlen)
			id[n++] = c;
	}
	id[n] = '\0';
	p = skip_space(end + 1);
	if (*p == ';')
		p = skip_space(p + 1);
	return *p == '\0';
}

static void put_cell(struct wbuf *w, const char *v)
{
	if (!v) {
		wbuf_put_be32(w, 0xffffffffu);
		return;
	}
	wbuf_put_be32(w, (uint32_t)strlen(v));
	wbuf_put_str(w, v);
}

/* One row: id, status, rows, executed_rows, reason, decided_by, decided_at, created_at, expires_at. */
static void show_row(struct pg_session *s, const struct approval *a, const struct pgq_exec *x)
{
	static const char *const names[] = {"id",         "status",     "rows",       "executed_rows", "reason",
					    "decided_by", "decided_at", "created_at", "expires_at"};
	char rows[32], executed[32], decided[64], created[64], expires[64];
	struct wbuf row;

	snprintf(rows, sizeof(rows), "%" PRId64, a->rows);
	snprintf(executed, sizeof(executed), "%" PRId64, a->executed_rows);
	approval_time_sql(a->decided_at, "+00", decided, sizeof(decided));
	approval_time_sql(a->created_at, "+00", created, sizeof(created));
	approval_time_sql(a->expires_at, "+00", expires, sizeof(expires));
	if (x->describe)
		pgr_text_rowdesc(s, names, 9, x->formats);
	wbuf_init(&row);
	wbuf_put_be16(&row, 9);
	put_cell(&row, a->id);
	put_cell(&row, approval_status_name(a->status));
	put_cell(&row, rows);
	put_cell(&row, a->executed_rows < 0 ? NULL : executed);
	put_cell(&row, a->reason[0] ? a->reason : NULL);
	put_cell(&row, a->decided_by[0] ? a->decided_by : NULL);
	put_cell(&row, decided[0] ? decided : NULL);
	put_cell(&row, created);
	put_cell(&row, expires);
	if (row.failed) {
		wbuf_free(&row);
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		return;
	}
	pg_put_datarow_raw(&s->core.w, row.data, row.len);
	wbuf_free(&row);
	pgr_local_done(s, "SHOW");
}

void pgw_show(struct pg_session *s, const char *id, const struct pgq_exec *x)
{
	struct approval a;
	char msg[160];

	if (approvals_own(s->core.srv->approvals, s->core.srv->audit, s->core.u->name, id, &a)) {
		show_row(s, &a, x);
		approval_free(&a);
		return;
	}
	snprintf(msg, sizeof(msg), "approval \"%.40s\" does not exist", id);
	pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_UNDEFINED_OBJECT, msg,
		  "the id is the one the write's APPROVAL_REQUIRED error named", 0);
}
