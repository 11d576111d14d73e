/*
 * my_cursor: server-side cursors of MySQL prepared statements: a
 * COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY answers the column
 * definitions and an EOF with SERVER_STATUS_CURSOR_EXISTS, and each
 * COM_STMT_FETCH sends up to the rows it asks for in the binary protocol,
 * then an EOF with CURSOR_EXISTS while rows remain or LAST_ROW_SENT at the
 * end (what Connector/C's STMT_ATTR_CURSOR_TYPE and MySQL Connector/J's
 * useCursorFetch do).
 *
 * A cursor is its statement's job, paused between fetches: its rows are
 * read from the runner only while a fetch wants them, so nothing is
 * buffered here and the user's caps bound the whole result. It is owned by
 * its statement and ends with the next execution, COM_STMT_RESET or CLOSE,
 * the end of the session, or after timeout_ms (its runner's deadline).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"

struct mys_cursor {
	struct my_session *s;
	struct job *job; /* NULL once the result ended */
	struct event *resume;
	bool executing; /* the COM_STMT_EXECUTE waits for the column definitions */
	bool fetching;  /* a COM_STMT_FETCH is reading rows */
	bool done;
	struct mys_bin bin;
	struct mys_create create; /* a SHOW CREATE TABLE's definition column */
	uint16_t ncols;
	uint32_t want, got;
	uint8_t truncated;
	uint64_t rows;
	bool failed;        /* the job ended in an error not reported yet */
	bool out_of_memory; /* the binary columns could not be made: the job was canceled */
	unsigned err_no;
	char err_state[6];
	char err_msg[512];
};

void myc_output_drained(struct my_session *s)
{
	struct mys_cursor *c = s->fetching;

	if (c && s->core.out_paused && c->job) {
		s->core.out_paused = false;
		job_pause(c->job, false);
	}
}

void myc_free(struct my_session *s, struct mys_cursor *c)
{
	if (!c)
		return;
	if (s->fetching == c)
		s->fetching = NULL;
	if (c->job) {
		job_detach(c->job);
		if (s->core.job == c->job)
			s->core.job = NULL;
		session_job_release(&s->core);
	}
	event_free(c->resume);
	myr_bin_free(&c->bin);
	free(c);
}

/* The command is answered: the session reads its next one. */
static void answered(struct mys_cursor *c)
{
	struct my_session *s = c->s;

	if (s->fetching == c)
		s->fetching = NULL;
	s->core.out_paused = false;
	myr_flush(s);
	session_set_state(&s->core, SESSION_READY);
	session_process(&s->core);
}

static void cursor_columns(void *arg, const struct frame *f)
{
	struct mys_cursor *c = arg;
	struct my_session *s = c->s;
	struct rbuf cur;
	uint16_t n;

	if (!c->executing || frame_mycols_begin(f, &n, &cur) != FRAME_OK)
		return;
	if (!myr_bin_alloc(&c->bin, n)) {
		c->out_of_memory = true;
		job_cancel(c->job);
		return;
	}
	c->ncols = n;
	mys_create_begin(s, f, &c->create);
	my_write_column_count(&s->core.w, s->seq++, n);
	myr_put_columns(s, f, false, &c->bin);
	myr_result_end_with(s, MY_STATUS_CURSOR_EXISTS);
	/* The execution is answered; rows wait in the runner for COM_STMT_FETCH. */
	job_pause(c->job, true);
	c->executing = false;
	s->core.job = NULL; /* still counted against max_jobs, as the cursor's */
	answered(c);
}

static void cursor_row(void *arg, const struct frame *f)
{
	struct mys_cursor *c = arg;
	struct my_session *s = c->s;
	struct frame scrubbed;
	struct wbuf buf;
	bool sent;

	c->rows++;
	if (!c->fetching)
		return;
	wbuf_init(&buf);
	f = mys_create_row(s, &c->create, f, &buf, &scrubbed);
	sent = f && myr_binary_row(s, &c->bin, c->ncols, f);
	wbuf_free(&buf);
	if (!sent) {
		if (!f)
			myr_put_err(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		/* Cannot be sent (the ERR is out): the cursor ends. */
		c->fetching = false;
		job_detach(c->job);
		c->job = NULL;
		session_job_release(&s->core);
		c->done = true;
		answered(c);
		return;
	}
	if (++c->got >= c->want) {
		job_pause(c->job, true);
		c->fetching = false;
		myr_result_end_with(s, MY_STATUS_CURSOR_EXISTS);
		answered(c);
		return;
	}
	myr_flush(s);
	session_backpressure(&s->core, c->job);
}

static void cursor_done(void *arg, const struct job_result *r)
{
	struct mys_cursor *c = arg;
	struct my_session *s = c->s;
	bool executing = c->executing, fetching = c->fetching;
	struct job_result oom;

	if (c->out_of_memory && !r->ok) {
		/* The cancel was airlock's, for want of memory: say so, not CANCELED. */
		oom = (struct job_result){
			.code = AIRLOCK_E_OUT_OF_MEMORY,
			.sqlstate = airlock_my_sqlstate(AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE),
			.message = "Out of memory",
		};
		r = &oom;
	}
	if (s->core.job == c->job)
		session_job_finished(&s->core);
	else
		session_job_release(&s->core);
	c->job = NULL;
	c->done = true;
	c->executing = c->fetching = false;
	if (!r->ok && (executing || fetching)) {
		myr_job_error(s, r);
	} else if (!r->ok) {
		c->failed = true;
		c->err_no = r->my_errno ? r->my_errno : airlock_my_errno(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR);
		snprintf(c->err_state, sizeof(c->err_state), "%s",
			 r->sqlstate ? r->sqlstate : airlock_my_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_MY_UNKNOWN_ERROR));
		snprintf(c->err_msg, sizeof(c->err_msg), "%s", r->message ? r->message : "");
		return;
	} else {
		c->truncated = r->truncated;
		if (r->truncated)
			myr_warn(s, AIRLOCK_E_RESULT_TRUNCATED, AIRLOCK_N_NONE,
				 "RESULT_TRUNCATED: the cursor's result was cut by max_rows or max_bytes");
		if (executing)
			myr_put_ok(s); /* no result set: nothing to fetch */
		else if (fetching)
			myr_result_end_with(s, MY_STATUS_LAST_ROW_SENT);
		else
			return;
	}
	answered(c);
}

static void cursor_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	struct mys_cursor *c = arg;

	(void)fd;
	(void)what;
	if (c->job)
		job_pause(c->job, false);
}

static const struct job_events cursor_events = {
	.on_rowdesc = cursor_columns,
	.on_row = cursor_row,
	.on_done = cursor_done,
};

struct mys_cursor *myc_execute(struct my_session *s, const char *sql, size_t len)
{
	struct mys_cursor *c = calloc(1, sizeof(*c));

	if (c)
		c->resume = evtimer_new(s->core.srv->base, cursor_resume_cb, c);
	if (!c || !c->resume) {
		free(c);
		myr_refuse(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "Out of memory", NULL);
		return NULL;
	}
	c->s = s;
	c->executing = true;
	myq_run_with(s, sql, len, &(struct myq_job){.ev = &cursor_events, .arg = c});
	if (!s->core.job) {
		/* Refused before a job started: the ERR is out. */
		event_free(c->resume);
		free(c);
		return NULL;
	}
	c->job = s->core.job;
	return c;
}

void myc_fetch(struct my_session *s, struct mys_cursor *c, uint32_t rows)
{
	struct timeval zero = {0, 0};

	if (c->failed) {
		c->failed = false;
		myr_put_db_err(s, (uint16_t)c->err_no, c->err_state, c->err_msg);
		myr_flush(s);
		return;
	}
	if (c->done || !c->job) {
		myr_result_end_with(s, MY_STATUS_LAST_ROW_SENT);
		myr_flush(s);
		return;
	}
	c->want = rows ? rows : 1;
	c->got = 0;
	c->fetching = true;
	s->fetching = c;
	session_set_state(&s->core, SESSION_BUSY);
	/* Resumed on the next loop pass, outside the command loop that called us. */
	evtimer_add(c->resume, &zero);
}
