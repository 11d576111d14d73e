/*
 * my_job: a MySQL statement handed to a job, and its result: the
 * runner's 'K' frame becomes the column count and column definitions
 * (then EOF unless the client negotiated DEPRECATE_EOF), each 'D' frame a
 * text row or, for COM_STMT_EXECUTE, a binary row, and the end an EOF or
 * OK carrying the status flags and the warning count; a result cut by a
 * cap leaves a warning that SHOW WARNINGS lists.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "proxy/approval_hold.h"
#include "proxy/log.h"
#include "proxy/mysql/my_session_int.h"

/* Warning code reported for a result cut by max_rows or max_bytes. */

static void job_rowdesc(void *arg, const struct frame *f)
{
	struct my_session *s = arg;
	struct rbuf cur;
	uint16_t n;

	if (s->cols_sent || f->type != FRAME_MYCOLS || frame_mycols_begin(f, &n, &cur) != FRAME_OK) {
		session_warn(&s->core, "unexpected column frame from the runner");
		return;
	}
	if (s->binary) {
		if (!myr_bin_alloc(&s->bin, n)) {
			s->result_failed = AIRLOCK_E_OUT_OF_MEMORY;
			myr_put_err(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
			myr_flush(s);
			job_cancel(s->core.job);
			return;
		}
	}
	if (!s->field_list) {
		mys_create_begin(s, f, &s->create);
		my_write_column_count(&s->core.w, s->seq++, n);
	}
	myr_put_columns(s, f, s->field_list, s->binary ? &s->bin : NULL);
	if (!s->field_list && !myr_deprecate_eof(s))
		my_write_eof(&s->core.w, s->seq++, 0, myr_status(s));
	s->cols_sent = true;
	s->ncols = n;
	myr_flush(s);
}

static void job_row(void *arg, const struct frame *f)
{
	struct my_session *s = arg;
	struct frame scrubbed;
	struct wbuf buf;
	struct rbuf cur;
	uint16_t n;

	if (s->result_failed)
		return;
	wbuf_init(&buf);
	f = mys_create_row(s, &s->create, f, &buf, &scrubbed);
	if (!f) {
		wbuf_free(&buf);
		s->result_failed = AIRLOCK_E_OUT_OF_MEMORY;
		myr_put_err(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		myr_flush(s);
		job_cancel(s->core.job);
		return;
	}
	if (s->binary) {
		if (!myr_binary_row(s, &s->bin, s->ncols, f)) {
			wbuf_free(&buf);
			s->result_failed = AIRLOCK_E_UNSUPPORTED;
			myr_flush(s);
			job_cancel(s->core.job);
			return;
		}
		goto out;
	}
	/* job.c checked the layout (frame_row_check) before handing the row on. */
	my_begin(&s->core.w, s->seq++);
	if (frame_row_begin(f, &n, &cur) != FRAME_OK)
		n = 0;
	for (uint16_t i = 0; i < n; i++) {
		const uint8_t *v;
		uint32_t len;

		if (frame_row_next(&cur, &v, &len) != FRAME_OK)
			break;
		if (v)
			my_put_lenenc_str(&s->core.w, v, len);
		else
			my_put_null(&s->core.w);
	}
	my_end(&s->core.w);
out:
	wbuf_free(&buf);
	myr_flush(s);
	session_backpressure(&s->core, s->core.job);
}

static void job_notice(void *arg, const struct frame_error *e)
{
	struct my_session *s = arg;
	char level[8], msg[512];
	unsigned code = 0;

	for (uint32_t i = 0; i < e->my_errno.len && code < 100000; i++)
		code = code * 10 + (unsigned)(e->my_errno.ptr[i] - '0');
	snprintf(level, sizeof(level), "%.*s", (int)e->code.len, e->code.ptr);
	if (strcmp(level, "Note") != 0 && strcmp(level, "Error") != 0)
		snprintf(level, sizeof(level), "Warning");
	snprintf(msg, sizeof(msg), "%.*s", (int)e->message.len, e->message.ptr);
	myr_add_warning(s, level, (uint16_t)code, msg);
}

/* The errno for a failure that did not come from the backend. */
static void truncation_text(struct my_session *s, uint8_t truncated, uint64_t rows, char *note, size_t len)
{
	const struct airlock_limits *lim = &s->core.u->limits;

	if (truncated == FRAME_TRUNC_MAX_ROWS)
		snprintf(note, len,
			 "RESULT_TRUNCATED: result truncated by max_rows=%u after %" PRIu64 " rows; add a LIMIT, "
			 "select fewer columns or filter with WHERE to get the whole result",
			 lim->max_rows, rows);
	else
		snprintf(note, len,
			 "RESULT_TRUNCATED: result truncated by max_bytes=%" PRIu64 " after %" PRIu64 " rows; add a "
			 "LIMIT, select fewer columns or filter with WHERE to get the whole result",
			 lim->max_bytes, rows);
}

static void truncated_warning(struct my_session *s, uint8_t truncated, uint64_t rows)
{
	char note[400];

	truncation_text(s, truncated, rows, note, sizeof(note));
	myr_warn(s, AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_NONE, note);
}

static void job_done(void *arg, const struct job_result *r)
{
	struct my_session *s = arg;

	session_job_finished(&s->core);
	if (!s->vars.autocommit)
		s->in_trans = true; /* a statement opens a transaction when autocommit is off */
	if (s->result_failed) {
		/* The ERR went out with the row that failed. */
		session_audit(&s->core, "error",
			      airlock_my_sqlstate(s->result_failed, s->result_failed == AIRLOCK_E_UNSUPPORTED
									    ? AIRLOCK_N_MY_UNKNOWN_ERROR
									    : AIRLOCK_N_NONE),
			      s->result_failed, r->rows, r->bytes, r->truncated);
	} else if (r->ok && r->truncated && (s->core.u->truncation_is_error || s->dump_tool)) {
		char msg[400];

		/* For clients that drop warnings (MCP servers, dump tools): a cut result cannot pass for a whole one.
		 */
		truncation_text(s, r->truncated, r->rows, msg, sizeof(msg));
		myr_put_err(s, AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_NONE, msg, NULL);
		session_audit(&s->core, "error", airlock_my_sqlstate(AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_NONE),
			      AIRLOCK_E_RESULT_TRUNCATED, r->rows, r->bytes, r->truncated);
	} else if (r->ok) {
		if (r->truncated)
			truncated_warning(s, r->truncated, r->rows);
		if (!s->field_list && !s->cols_sent)
			myr_put_ok(s);
		else
			myr_result_end(s);
		session_audit(&s->core, "run", NULL, AIRLOCK_E_NONE, r->rows, r->bytes, r->truncated);
	} else {
		myr_job_error(s, r);
	}
	s->field_list = false;
	s->binary = false;
	s->result_failed = AIRLOCK_E_NONE;
	s->create_db[0] = '\0';
	memset(&s->create, 0, sizeof(s->create));
	myr_bin_free(&s->bin);
	session_statement_done(&s->core);
}

static const struct job_events my_job_events = {
	.on_rowdesc = job_rowdesc,
	.on_row = job_row,
	.on_notice = job_notice,
	.on_done = job_done,
};

struct applied_ctx {
	struct job_request *req;
	struct job_setting *settings;
};

static void add_applied(void *arg, const char *name, const char *value)
{
	struct applied_ctx *c = arg;

	c->settings[c->req->nsettings++] = (struct job_setting){name, value};
}

/* A job for sql with the session's settings, as how says (NULL: the session's own result set). */
static void start(struct my_session *s, const char *sql, const struct myq_job *how)
{
	struct job_setting settings[5 + MYV_KEPT] = {
		{"names", s->vars.charset},
		{"sql_mode", s->vars.sql_mode},
		{"time_zone", s->vars.time_zone},
	};
	const struct airlock_user *u = s->core.u;
	bool write = how && how->write_dry;
	struct airlock_limits limits = u->limits;
	struct job_request req = {
		.target = write ? u->mysql_write_target : u->mysql_target,
		.limits = &limits,
		.sql = sql,
		.settings = settings,
		.nsettings = 3,
		.describe = how && how->describe,
		.cost_check = !(how && how->describe) && !write && s->cost_check,
		.hidden_keys = how && (how->describe || write) ? NULL : s->hidden_keys,
		.rewritten = write,
		.write = write ? 1 : 0,
		.write_max = u->max_write_rows,
		.write_check = write && how->write_check,
		.sample = write && how->sample,
		.plan_sql = write && how->sample ? how->plan_sql : NULL,
		.sample_read = write && !how->sample ? how->sample_read : NULL,
	};
	struct applied_ctx ac = {.req = &req, .settings = settings};
	struct session_refusal why;

	/* max_statement_time / max_execution_time: the session's own, within the user's. */
	limits.timeout_ms = myv_timeout_ms(s);
	if (write)
		limits.max_rows = u->max_write_rows;
	myv_each_applied(s, add_applied, &ac);

	if (s->database[0])
		settings[req.nsettings++] = (struct job_setting){"database", s->database};
	if (!myv_collation_is_default(&s->vars))
		settings[req.nsettings++] = (struct job_setting){"collation", s->vars.collation};
	if (how && how->settings)
		*how->settings = approval_settings_json(settings, req.nsettings);
	s->core.job = session_job_start(&s->core, &req, how ? how->ev : &my_job_events, how ? how->arg : s, &why);
	if (!s->core.job) {
		myr_refuse(s, why.code, AIRLOCK_N_NONE, why.message, why.hint[0] ? why.hint : NULL);
		return;
	}
	session_set_state(&s->core, SESSION_BUSY);
}

void myj_start(struct my_session *s, const char *sql, bool field_list, bool binary)
{
	s->field_list = field_list;
	s->binary = binary;
	s->result_failed = AIRLOCK_E_NONE;
	s->cols_sent = false;
	start(s, sql, NULL);
}

void myj_start_with(struct my_session *s, const char *sql, const struct myq_job *how)
{
	start(s, sql, how);
}
