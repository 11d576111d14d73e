/*
 * runner_my_write: see runner_my_write.h.
 */
#include "runner/runner_my_write.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "base/wbuf.h"
#include "runner/runner_my_pairs.h"
#include "runner/runner_my_sample.h"

static bool run(MYSQL *conn, const char *sql)
{
	MYSQL_RES *res;

	if (mysql_real_query(conn, sql, (unsigned long)strlen(sql)) != 0)
		return false;
	res = mysql_store_result(conn);
	if (res)
		mysql_free_result(res);
	return mysql_errno(conn) == 0;
}

/* Sends one row of the sample (the columns after the check); false when the sample is full or the row too big. */
static bool send_sample(struct runner_ctl *ctl, MYSQL_RES *res, MYSQL_ROW row, unsigned skip, struct wbuf *obj,
			size_t *bytes, int *gone)
{
	unsigned n = mysql_num_fields(res);
	MYSQL_FIELD *f = mysql_fetch_fields(res);
	unsigned long *lengths = mysql_fetch_lengths(res);

	if (!f || !lengths || n <= skip)
		return false;
	wbuf_reset(obj);
	my_sample_put_row(obj, f + skip, row + skip, lengths + skip, n - skip);
	if (obj->failed || obj->len > RUNNER_CTL_MAX_TEXT || *bytes + obj->len > MY_SAMPLE_BYTES)
		return false;
	*bytes += obj->len;
	wbuf_put_u8(obj, 0);
	if (obj->failed || runner_ctl_error_my(ctl, FRAME_NOTICE,
					       airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_SUCCESSFUL_COMPLETION),
					       FRAME_SAMPLE_CODE, 0, (const char *)obj->data, "") < 0)
		*gone = 1;
	return *gone == 0;
}

/*
 * The rows of a write that returns them, each counted: a write_check
 * job's first column is the check (*ok false when one is not 1); a dry
 * run's sample sends the first RUNNER_SAMPLE_ROWS of them (the columns
 * after the check) within MY_SAMPLE_BYTES, the rest only counted.
 * *gone set when the proxy is gone.
 */
static bool read_rows(MYSQL *conn, MYSQL_RES *res, const struct runner_job *job, struct runner_ctl *ctl, uint64_t *rows,
		      bool *ok, int *gone)
{
	unsigned skip = job->write_check ? 1 : 0;
	bool open = job->sample && job->write == RUNNER_WRITE_DRY;
	struct wbuf obj;
	size_t bytes = 0;
	MYSQL_ROW row;

	wbuf_init(&obj);
	*ok = mysql_num_fields(res) >= skip;
	while ((row = mysql_fetch_row(res)) != NULL) {
		(*rows)++;
		if (job->write_check && (!row[0] || strcmp(row[0], "1") != 0))
			*ok = false;
		if (open && (*rows > RUNNER_SAMPLE_ROWS || !send_sample(ctl, res, row, skip, &obj, &bytes, gone)))
			open = false;
	}
	wbuf_free(&obj);
	return mysql_errno(conn) == 0;
}

/*
 * A dry run's plan: EXPLAIN of the write as it will run (plain EXPLAIN
 * runs nothing), each row's columns that are not NULL as name=value on a
 * line, sent as a notice coded FRAME_PLAN_CODE, cut at what a notice
 * carries. A plan that cannot be read is left out; the dry run goes on.
 */
static int send_plan(MYSQL *conn, const struct runner_job *job, struct runner_ctl *ctl)
{
	struct wbuf plan;
	MYSQL_RES *res;
	MYSQL_ROW row;
	int rc = 0;

	wbuf_init(&plan);
	wbuf_put_str(&plan, "EXPLAIN ");
	wbuf_put_str(&plan, job->plan_sql ? job->plan_sql : job->sql);
	wbuf_put_u8(&plan, 0);
	if (plan.failed || mysql_real_query(conn, (const char *)plan.data, (unsigned long)(plan.len - 1)) != 0 ||
	    !(res = mysql_store_result(conn))) {
		wbuf_free(&plan);
		return 0;
	}
	wbuf_reset(&plan);
	while ((row = mysql_fetch_row(res)) != NULL && plan.len <= RUNNER_CTL_MAX_TEXT) {
		MYSQL_FIELD *f = mysql_fetch_fields(res);

		for (unsigned i = 0; f && i < mysql_num_fields(res); i++) {
			if (!row[i])
				continue;
			wbuf_put_str(&plan, plan.len && plan.data[plan.len - 1] != '\n' ? " " : "");
			wbuf_put_str(&plan, f[i].name);
			wbuf_put_u8(&plan, '=');
			wbuf_put_str(&plan, row[i]);
		}
		wbuf_put_u8(&plan, '\n');
	}
	mysql_free_result(res);
	wbuf_put_u8(&plan, 0);
	if (!plan.failed && plan.len > 1 &&
	    runner_ctl_error_my(ctl, FRAME_NOTICE,
				airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_SUCCESSFUL_COMPLETION),
				FRAME_PLAN_CODE, 0, (const char *)plan.data, "") < 0)
		rc = -1;
	wbuf_free(&plan);
	return rc;
}

/* The write, counted, then committed or rolled back; before: an UPDATE's rows read first (sample_read), or NULL. */
static enum my_write_end counted(MYSQL *conn, const struct runner_job *job, struct runner_ctl *ctl, uint64_t *rows,
				 MYSQL_RES *before)
{
	MYSQL_RES *res;
	bool checked = true;

	if (mysql_real_query(conn, job->sql, (unsigned long)strlen(job->sql)) != 0)
		return MY_WRITE_ERROR;
	res = mysql_use_result(conn);
	if (res) {
		int gone = 0;
		bool read;

		if (!job->write_check && !job->sample) {
			/* A write that returns rows it was not made to: never committed. */
			mysql_free_result(res);
			run(conn, "ROLLBACK");
			return MY_WRITE_CHECK;
		}
		read = read_rows(conn, res, job, ctl, rows, &checked, &gone);
		mysql_free_result(res);
		if (gone)
			return MY_WRITE_GONE;
		if (!read)
			return MY_WRITE_ERROR;
	} else {
		my_ulonglong n = mysql_affected_rows(conn);

		if (mysql_field_count(conn) != 0 || n == (my_ulonglong)-1 || job->write_check || job->sample)
			return mysql_errno(conn) ? MY_WRITE_ERROR : MY_WRITE_CHECK;
		*rows = (uint64_t)n;
	}
	if (!checked || *rows > job->write_max) {
		run(conn, "ROLLBACK");
		return checked ? MY_WRITE_ROWS : MY_WRITE_CHECK;
	}
	/* The rows as the write left them, read in its transaction before it is rolled back. */
	if (before && my_pairs_send(conn, before, ctl) < 0)
		return MY_WRITE_GONE;
	if (!run(conn, job->write == RUNNER_WRITE_RUN ? "COMMIT" : "ROLLBACK"))
		return MY_WRITE_ERROR;
	return MY_WRITE_OK;
}

enum my_write_end my_write_run(MYSQL *conn, const struct runner_job *job, struct runner_ctl *ctl, uint64_t *rows)
{
	MYSQL_RES *before = NULL;
	enum my_write_end e;

	*rows = 0;
	/* The plan in the write's transaction: MariaDB refuses to EXPLAIN a write in a read-only one. */
	if (!run(conn, "START TRANSACTION READ WRITE"))
		return MY_WRITE_ERROR;
	if (job->write == RUNNER_WRITE_DRY && send_plan(conn, job, ctl) < 0)
		return MY_WRITE_GONE;
	/* Without its rows (the read failed) the dry run goes on with no sample, and says why. */
	if (job->write == RUNNER_WRITE_DRY && job->sample_read) {
		before = my_pairs_read(conn, job->sample_read);
		if (!before &&
		    runner_ctl_error_my(ctl, FRAME_NOTICE,
					airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_SUCCESSFUL_COMPLETION),
					FRAME_SAMPLE_FAILED_CODE, 0, mysql_error(conn), "") < 0)
			return MY_WRITE_GONE;
	}
	e = counted(conn, job, ctl, rows, before);
	if (before)
		mysql_free_result(before);
	return e;
}

void my_write_refusal(struct runner_ctl *ctl, enum my_write_end e, uint64_t rows, uint64_t max)
{
	enum airlock_err code = e == MY_WRITE_CHECK ? AIRLOCK_E_WRITE_CHECK : AIRLOCK_E_WRITE_ROWS;
	char msg[256];

	if (e == MY_WRITE_CHECK)
		snprintf(msg, sizeof(msg),
			 "WRITE_CHECK: the write would leave a row your row filter hides; nothing "
			 "was written");
	else
		snprintf(msg, sizeof(msg),
			 "WRITE_ROWS: the write touches %" PRIu64 " rows, more than %" PRIu64 "; nothing was written",
			 rows, max);
	runner_ctl_error_my(ctl, FRAME_ERROR, airlock_err_my_sqlstate(code), airlock_err_name(code),
			    airlock_err_my_errno(code), msg,
			    e == MY_WRITE_CHECK ? "write only rows that stay within what you can read"
						: "narrow the WHERE clause");
}
