/*
 * runner_pg_write: a write job (runner_job.h). The statement runs in a
 * read-write transaction; each row it returns passes its check column
 * first (a row the user's filter would hide fails the job, WRITE_CHECK),
 * and is sent without it only when the client asked for rows, or as the
 * first rows of a dry run's sample. At the end
 * the command's count decides: more than write_max rows is WRITE_ROWS,
 * a dry run is rolled back whatever it did, and a run is committed. On
 * every other path the transaction is left open and dies with the
 * connection: nothing is written unless COMMIT succeeds here.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "base/errors.h"
#include "base/wbuf.h"
#include "runner/runner_ctl.h"
#include "runner/runner_pg_int.h"

enum outcome write_row(struct pg_run *r, const PGresult *res)
{
	enum outcome o;

	if (r->job->write_check) {
		const char *v = PQgetisnull(res, 0, 0) ? NULL : PQgetvalue(res, 0, 0);

		if (PQnfields(res) < 1 || PQfformat(res, 0) != 0 || !v || strcmp(v, "t") != 0)
			return OUT_WRITE_CHECK;
	}
	if (!r->job->returning && !(r->job->sample && r->sampled < RUNNER_SAMPLE_ROWS))
		return OUT_OK;
	r->skip = r->job->write_check ? 1 : 0;
	o = send_desc(r, res);
	if (o == OUT_OK)
		o = send_row(r, res);
	if (r->job->sample) {
		/* The sample ends at the caps; the dry run goes on counting. */
		r->sampled = o == OUT_TRUNCATED ? RUNNER_SAMPLE_ROWS : r->sampled + 1;
		if (o == OUT_TRUNCATED)
			r->trunc = FRAME_TRUNC_NONE;
		return o == OUT_TRUNCATED ? OUT_OK : o;
	}
	/* Rows past the caps: the write touches more than it may, and is not run cut short. */
	return o == OUT_TRUNCATED ? OUT_WRITE_ROWS : o;
}

enum outcome write_desc(struct pg_run *r, const PGresult *res)
{
	if (!r->job->returning && !r->job->sample)
		return OUT_OK;
	r->skip = r->job->write_check ? 1 : 0;
	return send_desc(r, res);
}

enum outcome write_end(struct pg_run *r, int64_t deadline)
{
	uint64_t rows;

	if (!frame_tag_rows(r->tag, &rows)) {
		r->refusal = "the write's command tag has no row count";
		return OUT_REFUSED;
	}
	r->write_rows = rows;
	if (rows > r->job->write_max)
		return OUT_WRITE_ROWS;
	return run_command(r, r->job->write == RUNNER_WRITE_RUN ? "COMMIT" : "ROLLBACK", 0, NULL, deadline);
}

/* Each line of EXPLAIN's text, kept up to what a notice carries. */
static void read_plan_text(struct pg_run *r, const PGresult *res)
{
	if (PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_SINGLE_TUPLE)
		return;
	for (int i = 0; i < PQntuples(res) && r->plan_text->len <= RUNNER_CTL_MAX_TEXT; i++) {
		wbuf_put_str(r->plan_text, PQgetvalue(res, i, 0));
		wbuf_put_u8(r->plan_text, '\n');
	}
}

/*
 * A dry run's plan: EXPLAIN of the write as it will run (plan_sql), with
 * its parameters, in the same transaction; plain EXPLAIN runs nothing. It
 * goes to airlockd as a notice coded FRAME_PLAN_CODE (the backend's own
 * notices carry no code), cut at what a notice carries.
 */
enum outcome send_plan(struct pg_run *r, int64_t deadline)
{
	struct wbuf plan;
	enum outcome o;

	wbuf_init(&plan);
	r->plan_text = &plan;
	o = explain_read(r, "EXPLAIN ", deadline, read_plan_text);
	r->plan_text = NULL;
	wbuf_put_u8(&plan, 0);
	if (o == OUT_OK && !r->error && !plan.failed &&
	    runner_ctl_error(r->ctl, FRAME_NOTICE,
			     airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_SUCCESSFUL_COMPLETION), FRAME_PLAN_CODE,
			     (const char *)plan.data, "", "") < 0)
		o = OUT_GONE;
	wbuf_free(&plan);
	return o;
}

void send_write_refusal(struct pg_run *r, enum outcome o)
{
	char msg[256];

	if (o == OUT_WRITE_CHECK) {
		runner_ctl_error(r->ctl, FRAME_ERROR, airlock_err_pg_sqlstate(AIRLOCK_E_WRITE_CHECK),
				 airlock_err_name(AIRLOCK_E_WRITE_CHECK),
				 "WRITE_CHECK: the write would leave a row your row filter hides; nothing was written",
				 "", "write only rows that stay within what you can read");
		return;
	}
	if (r->write_rows > r->job->write_max)
		snprintf(msg, sizeof(msg),
			 "WRITE_ROWS: the write touches %" PRIu64 " rows, more than %" PRIu64 "; nothing was written",
			 r->write_rows, r->job->write_max);
	else
		snprintf(msg, sizeof(msg),
			 "WRITE_ROWS: the write touches more than %" PRIu64 " rows; nothing was written",
			 r->job->write_max);
	runner_ctl_error(r->ctl, FRAME_ERROR, airlock_err_pg_sqlstate(AIRLOCK_E_WRITE_ROWS),
			 airlock_err_name(AIRLOCK_E_WRITE_ROWS), msg, "", "narrow the WHERE clause");
}
