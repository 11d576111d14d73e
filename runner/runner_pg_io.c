/*
 * runner_pg_io: the Postgres runner's waits (see runner_pg_int.h). libpq
 * runs non-blocking; every wait polls the database socket and the control
 * socket together, so a cancel frame or the proxy closing the socket is
 * acted on at once.
 */
#include "runner/runner_pg_int.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

enum outcome wait_db(struct pg_run *r, short events, int64_t deadline)
{
	struct pollfd pfd[2];

	for (;;) {
		int64_t left;
		int n;

		if (runner_ctl_flush(r->ctl) < 0)
			return OUT_GONE;
		left = deadline - now_ms();
		if (left <= 0)
			return OUT_DEADLINE;
		pfd[0].fd = PQsocket(r->conn);
		pfd[0].events = events;
		pfd[0].revents = 0;
		/* While a warm runner connects, its statement may arrive: leave it for later. */
		pfd[1].fd = r->ctl_quiet ? -1 : r->ctl->fd;
		pfd[1].events = POLLIN;
		pfd[1].revents = 0;
		if (pfd[0].fd < 0)
			return OUT_LOST;
		n = poll(pfd, 2, left > INT_MAX ? INT_MAX : (int)left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return OUT_LOST;
		}
		if (pfd[1].revents) {
			switch (runner_ctl_on_readable(r->ctl)) {
			case RUNNER_CTL_CANCEL:
				return OUT_CANCEL;
			case RUNNER_CTL_GONE:
				return OUT_GONE;
			case RUNNER_CTL_NOTHING:
				break;
			}
		}
		if (pfd[0].revents)
			return OUT_OK;
	}
}

enum outcome wait_result(struct pg_run *r, int64_t deadline)
{
	for (;;) {
		int f = PQflush(r->conn);
		enum outcome o;

		if (f < 0)
			return OUT_LOST;
		if (f == 0 && !PQisBusy(r->conn))
			return OUT_OK;
		o = wait_db(r, POLLIN | (f ? POLLOUT : 0), deadline);
		if (o != OUT_OK)
			return o;
		if (!PQconsumeInput(r->conn))
			return OUT_LOST;
	}
}

enum outcome next_result(struct pg_run *r, int64_t deadline, PGresult **res)
{
	enum outcome o = wait_result(r, deadline);

	*res = o == OUT_OK ? PQgetResult(r->conn) : NULL;
	return o;
}

/*
 * Every result of the command just sent: the first error kept in r->error,
 * each other result shown to look (may be NULL), then kept in *kept (may be
 * NULL: freed) in place of the one before.
 */
static enum outcome gather(struct pg_run *r, int64_t deadline, void (*look)(struct pg_run *r, const PGresult *res),
			   PGresult **kept)
{
	for (;;) {
		PGresult *res;
		enum outcome o = next_result(r, deadline, &res);

		if (o != OUT_OK || !res)
			return o;
		if (PQresultStatus(res) == PGRES_FATAL_ERROR) {
			if (!r->error)
				r->error = res;
			else
				PQclear(res);
			continue;
		}
		if (look)
			look(r, res);
		if (kept) {
			PQclear(*kept);
			*kept = res;
		} else {
			PQclear(res);
		}
	}
}

enum outcome collect_with(struct pg_run *r, int64_t deadline, void (*look)(struct pg_run *r, const PGresult *res))
{
	return gather(r, deadline, look, NULL);
}

enum outcome collect(struct pg_run *r, int64_t deadline)
{
	return gather(r, deadline, NULL, NULL);
}

enum outcome collect_keep(struct pg_run *r, int64_t deadline, PGresult **kept)
{
	*kept = NULL;
	return gather(r, deadline, NULL, kept);
}

enum outcome run_command(struct pg_run *r, const char *sql, int nparams, const char *const *params, int64_t deadline)
{
	if (!PQsendQueryParams(r->conn, sql, nparams, NULL, params, NULL, NULL, 0))
		return OUT_LOST;
	return collect(r, deadline);
}

int send_with_params(struct pg_run *r, const char *sql, int format)
{
	const struct runner_job *job = r->job;
	int n = job->nparams;

	return PQsendQueryParams(r->conn, sql, n, n ? job->param_types : NULL,
				 n ? (const char *const *)job->param_values : NULL, n ? job->param_lengths : NULL,
				 n ? job->param_formats : NULL, format);
}

/*
 * prefix + the job's read (plan_sql when the statement is not one itself,
 * a COPY), sent with the job's parameters in its read-only transaction;
 * look sees each result. EXPLAIN without ANALYZE plans, it runs nothing.
 */
enum outcome explain_read(struct pg_run *r, const char *prefix, int64_t deadline,
			  void (*look)(struct pg_run *r, const PGresult *res))
{
	const char *read = r->job->plan_sql ? r->job->plan_sql : r->job->sql;
	size_t p = strlen(prefix), n = strlen(read);
	char *sql = malloc(p + n + 1);
	enum outcome o = OUT_LOST;

	if (!sql)
		return OUT_LOST;
	memcpy(sql, prefix, p);
	memcpy(sql + p, read, n + 1);
	if (send_with_params(r, sql, 0))
		o = collect_with(r, deadline, look);
	free(sql);
	return o;
}
