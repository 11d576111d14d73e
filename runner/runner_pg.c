/*
 * runner_pg: one job against Postgres (see runner_pg.h).
 *
 * Sequence: connect through the relay socket, BEGIN TRANSACTION READ ONLY,
 * statement_timeout and the job's settings with set_config(..., true),
 * then the statement in single-row mode so only one row is ever held,
 * then COMMIT. libpq runs non-blocking and every wait polls the database
 * socket and the control socket together, so a cancel frame or the proxy
 * closing the socket is acted on at once. A runner-side watchdog backs up
 * the engine's statement_timeout.
 *
 * Nothing sent to the proxy names the socket path, the role or the
 * password; libpq's own connection errors are reduced to a fixed message.
 */
#include "runner/runner_pg.h"
#include "runner/runner_plan.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libpq-fe.h>

#include "protocol/errors.h"

#define CONNECT_TIMEOUT_MS 10000
#define SETUP_TIMEOUT_MS 10000 /* BEGIN, set_config, COMMIT */
#define ROLLBACK_TIMEOUT_MS 2000
#define WATCHDOG_GRACE_MS 1000 /* after timeout_ms, before the runner gives up */
#define MAX_NOTICES 64

enum outcome {
	OUT_OK,        /* command done; a backend error may be in run.error */
	OUT_CANCEL,    /* the proxy sent 'X' */
	OUT_GONE,      /* the control socket closed or failed */
	OUT_DEADLINE,  /* the runner's own deadline passed */
	OUT_LOST,      /* the database connection failed */
	OUT_TRUNCATED, /* a cap was reached; run.trunc says which */
	OUT_REFUSED,   /* the runner will not handle this result (run.refusal) */
	OUT_COST,      /* the plan's estimated cost is above max_cost (run.cost) */
	OUT_PLAN,      /* the plan reads a relation outside plan_tables */
};

struct pg_run {
	const struct runner_job *job;
	bool ctl_quiet; /* the control socket is not watched (warm connect) */
	double cost;    /* EXPLAIN's Total Cost, when max_cost is set */
	int plan;       /* enum runner_plan_verdict of the plan check; 2 until a plan was read */
	struct runner_ctl *ctl;
	PGconn *conn;
	PGresult *error;     /* first backend error of the job, owned */
	const char *refusal; /* static message for OUT_REFUSED */
	unsigned notices;
	bool sent_desc;
	uint64_t rows;
	uint64_t bytes;
	enum frame_trunc trunc;
	char tag[64];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Waits until the database socket reports events, flushing queued frames
 * first. Returns OUT_OK when the database side is ready.
 */
static enum outcome wait_db(struct pg_run *r, short events, int64_t deadline)
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

/* Waits until PQgetResult will not block. */
static enum outcome wait_result(struct pg_run *r, int64_t deadline)
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

static void on_notice(void *arg, const PGresult *res)
{
	struct pg_run *r = arg;

	if (r->notices >= MAX_NOTICES)
		return;
	r->notices++;
	/* A failed write marks the control socket broken; the next wait sees it. */
	runner_ctl_error(r->ctl, FRAME_NOTICE, PQresultErrorField(res, PG_DIAG_SQLSTATE), "",
			 PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY),
			 PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL),
			 PQresultErrorField(res, PG_DIAG_MESSAGE_HINT));
}

static enum outcome connect_db(struct pg_run *r, const char *socket_dir)
{
	const char *const keys[] = {
		"host",
		"port",
		"dbname",
		"user",
		"password",
		"sslmode",
		"gssencmode",
		"connect_timeout",
		"application_name",
		NULL,
	};
	const char *const vals[] = {
		socket_dir, "5432",    r->job->dbname, r->job->user,     r->job->password,
		"disable",  "disable", "10",           "airlock-runner", NULL,
	};
	PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
	int64_t deadline = now_ms() + CONNECT_TIMEOUT_MS;

	r->conn = PQconnectStartParams(keys, vals, 0);
	if (!r->conn || PQstatus(r->conn) == CONNECTION_BAD)
		return OUT_LOST;
	for (;;) {
		enum outcome o;

		if (ps == PGRES_POLLING_OK)
			return OUT_OK;
		if (ps == PGRES_POLLING_FAILED)
			return OUT_LOST;
		o = wait_db(r, ps == PGRES_POLLING_READING ? POLLIN : POLLOUT, deadline);
		if (o != OUT_OK)
			return o;
		ps = PQconnectPoll(r->conn);
	}
}

/* A fixed description of why libpq could not connect; never echoes its text. */
static const char *connect_detail(const char *pqmsg)
{
	if (!pqmsg)
		return "";
	if (strstr(pqmsg, "authentication failed") || strstr(pqmsg, "password"))
		return "the database rejected the credentials";
	if (strstr(pqmsg, "does not exist"))
		return "the database or role does not exist";
	if (strstr(pqmsg, "connection slots") || strstr(pqmsg, "too many"))
		return "the database has no free connection slots";
	if (strstr(pqmsg, "No such file") || strstr(pqmsg, "refused"))
		return "the database relay is not available";
	if (strstr(pqmsg, "timeout"))
		return "timed out";
	return "";
}

/*
 * Collects every result of the command just sent; keeps the first error.
 * look (may be NULL) sees each other result before it is freed.
 */
static enum outcome collect_with(struct pg_run *r, int64_t deadline,
				 void (*look)(struct pg_run *r, const PGresult *res))
{
	for (;;) {
		enum outcome o = wait_result(r, deadline);
		PGresult *res;

		if (o != OUT_OK)
			return o;
		res = PQgetResult(r->conn);
		if (!res)
			return OUT_OK;
		if (PQresultStatus(res) == PGRES_FATAL_ERROR && !r->error) {
			r->error = res;
			continue;
		}
		if (look)
			look(r, res);
		PQclear(res);
	}
}

static enum outcome collect(struct pg_run *r, int64_t deadline)
{
	return collect_with(r, deadline, NULL);
}

/* Sends a command with text parameters and collects its results. */
static enum outcome run_command(struct pg_run *r, const char *sql, int nparams, const char *const *params,
				int64_t deadline)
{
	if (!PQsendQueryParams(r->conn, sql, nparams, NULL, params, NULL, NULL, 0))
		return OUT_LOST;
	return collect(r, deadline);
}

/*
 * The transaction and every setting in one round trip: BEGIN READ ONLY,
 * then one SELECT of set_config() calls whose arguments are quoted by
 * libpq (PQescapeLiteral), never pasted raw.
 */
static enum outcome begin_with_settings(struct pg_run *r, int64_t deadline)
{
	const struct runner_job *job = r->job;
	size_t cap = 128, len = 0;
	char *sql = NULL, *lit[3] = {NULL, NULL, NULL};
	enum outcome o = OUT_LOST;
	size_t i;

	for (i = 0; i <= job->nsets; i++) {
		const char *name = i == 0 ? "statement_timeout" : job->set_names[i - 1];
		const char *value = i == 0 ? job->timeout_text : job->set_values[i - 1];
		size_t need;
		char *grown;

		lit[0] = PQescapeLiteral(r->conn, name, strlen(name));
		lit[1] = PQescapeLiteral(r->conn, value, strlen(value));
		if (!lit[0] || !lit[1])
			goto out;
		need = len + strlen(lit[0]) + strlen(lit[1]) + 64;
		if (need > cap || !sql) {
			cap = need * 2;
			grown = realloc(sql, cap);
			if (!grown)
				goto out;
			sql = grown;
			if (len == 0)
				len = (size_t)snprintf(sql, cap, "BEGIN TRANSACTION READ ONLY; SELECT ");
		}
		len += (size_t)snprintf(sql + len, cap - len, "%sset_config(%s, %s, true)", i ? ", " : "", lit[0],
					lit[1]);
		PQfreemem(lit[0]);
		PQfreemem(lit[1]);
		lit[0] = lit[1] = NULL;
	}
	if (PQsendQuery(r->conn, sql))
		o = collect(r, deadline);
out:
	PQfreemem(lit[0]);
	PQfreemem(lit[1]);
	free(sql);
	return o;
}

static enum outcome send_desc(struct pg_run *r, const PGresult *res)
{
	struct wbuf *b = &r->ctl->out;
	int n = PQnfields(res), i;

	if (r->sent_desc)
		return OUT_OK;
	if (n < 0 || n > FRAME_MAX_COLS) {
		r->refusal = "the result has too many columns";
		return OUT_REFUSED;
	}
	frame_begin(b, FRAME_ROWDESC);
	frame_put_u16(b, (uint16_t)n);
	for (i = 0; i < n; i++) {
		frame_put_cstr(b, PQfname(res, i));
		frame_put_u32(b, (uint32_t)PQftable(res, i));
		frame_put_i16(b, (int16_t)PQftablecol(res, i));
		frame_put_u32(b, (uint32_t)PQftype(res, i));
		frame_put_i16(b, (int16_t)PQfsize(res, i));
		frame_put_i32(b, (int32_t)PQfmod(res, i));
		frame_put_i16(b, 0);
	}
	if (runner_ctl_commit(r->ctl) < 0)
		return OUT_GONE;
	r->sent_desc = true;
	return OUT_OK;
}

/* Sends one row unless it would pass max_rows or max_bytes. */
static enum outcome send_row(struct pg_run *r, const PGresult *res)
{
	struct wbuf *b = &r->ctl->out;
	int n = PQnfields(res), i;
	size_t body = 2;

	if (r->rows >= r->job->max_rows) {
		r->trunc = FRAME_TRUNC_MAX_ROWS;
		return OUT_TRUNCATED;
	}
	for (i = 0; i < n; i++) {
		body += 4;
		if (!PQgetisnull(res, 0, i))
			body += (size_t)PQgetlength(res, 0, i);
	}
	if (body > FRAME_MAX_PAYLOAD || body > r->job->max_bytes - r->bytes) {
		r->trunc = FRAME_TRUNC_MAX_BYTES;
		return OUT_TRUNCATED;
	}
	frame_begin(b, FRAME_ROW);
	frame_put_u16(b, (uint16_t)n);
	for (i = 0; i < n; i++) {
		if (PQgetisnull(res, 0, i)) {
			frame_put_i32(b, -1);
		} else {
			int len = PQgetlength(res, 0, i);

			frame_put_i32(b, len);
			frame_put_bytes(b, PQgetvalue(res, 0, i), (size_t)len);
		}
	}
	if (runner_ctl_commit(r->ctl) < 0)
		return OUT_GONE;
	r->rows++;
	r->bytes += body;
	return OUT_OK;
}

static void set_tag(struct pg_run *r, const PGresult *res)
{
	snprintf(r->tag, sizeof(r->tag), "%s", PQcmdStatus((PGresult *)res));
}

/* Handles one result of the statement; takes ownership of res. */
static enum outcome on_result(struct pg_run *r, PGresult *res)
{
	enum outcome o = OUT_OK;

	switch (PQresultStatus(res)) {
	case PGRES_SINGLE_TUPLE:
		if (r->error)
			break;
		o = send_desc(r, res);
		if (o == OUT_OK)
			o = send_row(r, res);
		break;
	case PGRES_TUPLES_OK:
		if (r->error)
			break;
		o = send_desc(r, res);
		set_tag(r, res);
		break;
	case PGRES_COMMAND_OK:
	case PGRES_EMPTY_QUERY:
		set_tag(r, res);
		break;
	case PGRES_FATAL_ERROR:
		if (!r->error) {
			r->error = res;
			return OUT_OK;
		}
		break;
	case PGRES_NONFATAL_ERROR:
		break;
	case PGRES_COPY_OUT:
	case PGRES_COPY_IN:
	case PGRES_COPY_BOTH:
		r->refusal = "COPY is not supported; use SELECT";
		o = OUT_REFUSED;
		break;
	default:
		o = OUT_LOST;
		break;
	}
	PQclear(res);
	return o;
}

/*
 * While a warm runner waits for its statement: one throw-away read-only
 * transaction that calls set_config, so the backend's catalog caches for
 * what every job runs first are loaded before the clock starts. It changes
 * nothing (rolled back, settings local to it); a failure is ignored here
 * and shows again, for real, when the job runs.
 */
static void warm_up(struct pg_run *r)
{
	if (!PQsendQuery(r->conn, "BEGIN TRANSACTION READ ONLY; "
				  "SELECT set_config('statement_timeout', '0', true), set_config('search_path', "
				  "'\"public\"', true); ROLLBACK"))
		return;
	collect(r, now_ms() + SETUP_TIMEOUT_MS);
	if (r->error) {
		PQclear(r->error);
		r->error = NULL;
	}
}

/* Sends sql with the job's bound parameters (text results); 0 when libpq refused to send. */
static int send_with_params(struct pg_run *r, const char *sql)
{
	const struct runner_job *job = r->job;
	int n = job->nparams;

	return PQsendQueryParams(r->conn, sql, n, n ? job->param_types : NULL,
				 n ? (const char *const *)job->param_values : NULL, n ? job->param_lengths : NULL,
				 n ? job->param_formats : NULL, 0);
}

/* Runs the statement itself, streaming its rows. */
static enum outcome stream_statement(struct pg_run *r, int64_t deadline)
{
	/* The extended protocol also refuses a string with several statements. */
	if (!send_with_params(r, r->job->sql))
		return OUT_LOST;
	if (!PQsetSingleRowMode(r->conn))
		return OUT_LOST;
	for (;;) {
		enum outcome o = wait_result(r, deadline);
		PGresult *res;

		if (o != OUT_OK)
			return o;
		res = PQgetResult(r->conn);
		if (!res)
			return OUT_OK;
		o = on_result(r, res);
		if (o != OUT_OK)
			return o;
	}
}

/* Asks the backend to stop the running statement; does not wait for it. */
static void cancel_query(struct pg_run *r)
{
	PGcancel *c;
	char err[256];

	if (!r->conn || PQtransactionStatus(r->conn) != PQTRANS_ACTIVE)
		return;
	c = PQgetCancel(r->conn);
	if (!c)
		return;
	if (!PQcancel(c, err, sizeof(err)))
		fprintf(stderr, "airlock-runner: cancel request failed\n");
	PQfreeCancel(c);
}

static void send_timeout(struct pg_run *r)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "statement exceeded the timeout of %" PRIu32 " ms", r->job->timeout_ms);
	runner_ctl_error(r->ctl, FRAME_ERROR, "57014", airlock_err_name(AIRLOCK_E_TIMEOUT), msg, "",
			 "make the statement cheaper: filter with WHERE, add a LIMIT, avoid large joins and sorts");
}

static void send_cancel(struct pg_run *r)
{
	runner_ctl_error(r->ctl, FRAME_ERROR, "57014", airlock_err_name(AIRLOCK_E_CANCELED),
			 "canceling statement due to user request", "", "");
}

static void send_lost(struct pg_run *r)
{
	runner_ctl_error(r->ctl, FRAME_ERROR, "08006", airlock_err_name(AIRLOCK_E_EXECUTION_FAILED),
			 "connection to the database was lost", "", "");
}

static void send_backend_error(struct pg_run *r, const PGresult *res)
{
	const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);

	/* Errors libpq makes up itself carry no SQLSTATE: the connection failed. */
	if (!state || !msg) {
		send_lost(r);
		return;
	}
	if (strcmp(state, "57014") == 0) {
		if (strstr(msg, "user request"))
			send_cancel(r);
		else
			send_timeout(r);
		return;
	}
	runner_ctl_error_at(r->ctl, state, msg, PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL),
			    PQresultErrorField(res, PG_DIAG_MESSAGE_HINT),
			    PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION));
}

/* Sends the frame that ends the job for outcome o; returns the flush status. */
static int finish(struct pg_run *r, enum outcome o)
{
	char tag[64];

	switch (o) {
	case OUT_OK:
		if (r->error) {
			send_backend_error(r, r->error);
			break;
		}
		runner_ctl_complete(r->ctl, r->rows, FRAME_TRUNC_NONE, r->tag);
		break;
	case OUT_TRUNCATED:
		/* Cancel first so the backend stops before the proxy drops the relay. */
		cancel_query(r);
		snprintf(tag, sizeof(tag), "SELECT %" PRIu64, r->rows);
		runner_ctl_complete(r->ctl, r->rows, r->trunc, tag);
		break;
	case OUT_CANCEL:
		cancel_query(r);
		send_cancel(r);
		break;
	case OUT_DEADLINE:
		cancel_query(r);
		send_timeout(r);
		break;
	case OUT_REFUSED:
		cancel_query(r);
		runner_ctl_error(r->ctl, FRAME_ERROR, "0A000", airlock_err_name(AIRLOCK_E_EXECUTION_FAILED), r->refusal,
				 "", "");
		break;
	case OUT_LOST:
		send_lost(r);
		break;
	case OUT_COST: {
		char msg[160];

		snprintf(msg, sizeof(msg), "COST_LIMIT: the estimated cost %.0f is above max_cost=%" PRIu64, r->cost,
			 r->job->max_cost);
		runner_ctl_error(r->ctl, FRAME_ERROR, "54001", airlock_err_name(AIRLOCK_E_COST_LIMIT), msg, "",
				 "filter on an indexed column, add a LIMIT, or join fewer rows");
		break;
	}
	case OUT_PLAN:
		/* Never named: the relation is one the user may not know exists. */
		runner_ctl_error(r->ctl, FRAME_ERROR, "42501", airlock_err_name(AIRLOCK_E_TABLE_NOT_ALLOWED),
				 "TABLE_NOT_ALLOWED: the plan of this statement reads a relation outside the allowed "
				 "tables (through a view or a function)",
				 "", "read the allowed tables directly");
		break;
	case OUT_GONE:
		cancel_query(r);
		return -1;
	}
	return runner_ctl_flush(r->ctl);
}

static int finish_connect(struct pg_run *r, enum outcome o)
{
	const char *detail;

	switch (o) {
	case OUT_CANCEL:
		send_cancel(r);
		break;
	case OUT_GONE:
		return -1;
	default:
		detail = o == OUT_DEADLINE ? "timed out" : connect_detail(r->conn ? PQerrorMessage(r->conn) : NULL);
		runner_ctl_error(r->ctl, FRAME_ERROR, "08001", airlock_err_name(AIRLOCK_E_EXECUTION_FAILED),
				 "could not connect to the database", detail, "");
		break;
	}
	return runner_ctl_flush(r->ctl);
}

/* The top plan node's Total Cost: the first one in EXPLAIN's JSON. */
static void read_cost(struct pg_run *r, const PGresult *res)
{
	static const char key[] = "\"Total Cost\": ";
	const char *tc;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 || r->cost >= 0)
		return;
	tc = strstr(PQgetvalue(res, 0, 0), key);
	if (tc)
		r->cost = strtod(tc + sizeof(key) - 1, NULL);
}

/*
 * The plan layer: EXPLAIN (FORMAT JSON) of the statement, with its
 * parameters, in the same read-only transaction; the top node's Total Cost
 * is compared with max_cost. Plain EXPLAIN plans, it never runs anything.
 */
static enum outcome check_cost(struct pg_run *r, int64_t deadline)
{
	const struct runner_job *job = r->job;
	static const char prefix[] = "EXPLAIN (FORMAT JSON) ";
	size_t n = strlen(job->sql);
	char *sql = malloc(sizeof(prefix) + n);
	enum outcome o = OUT_LOST;
	bool found = false;

	if (!sql)
		return OUT_LOST;
	memcpy(sql, prefix, sizeof(prefix) - 1);
	memcpy(sql + sizeof(prefix) - 1, job->sql, n + 1);
	if (!send_with_params(r, sql))
		goto out;
	r->cost = -1;
	o = collect_with(r, deadline, read_cost);
	if (o != OUT_OK)
		goto out;
	found = r->cost >= 0;
	if (!r->error && !found) {
		/* Fail closed: a cap that cannot be checked refuses. */
		r->refusal = "the planner's cost estimate could not be read";
		o = OUT_REFUSED;
	} else if (!r->error && r->cost > (double)job->max_cost) {
		o = OUT_COST;
	}
out:
	free(sql);
	return o;
}

static void read_plan(struct pg_run *r, const PGresult *res)
{
	const char *text;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 || r->plan != 2)
		return;
	text = PQgetvalue(res, 0, 0);
	r->plan = runner_plan_check(text, (size_t)PQgetlength(res, 0, 0), r->job->plan_tables, NULL, 0);
}

/*
 * The plan check: EXPLAIN (FORMAT JSON, VERBOSE) of the statement, with its
 * parameters, in the same read-only transaction; every relation the plan
 * scans (views expanded, SQL functions inlined) must be in plan_tables. A
 * plan that cannot be read refuses.
 */
static enum outcome check_plan(struct pg_run *r, int64_t deadline)
{
	static const char prefix[] = "EXPLAIN (FORMAT JSON, VERBOSE) ";
	size_t n = strlen(r->job->sql);
	char *sql = malloc(sizeof(prefix) + n);
	enum outcome o = OUT_LOST;

	if (!sql)
		return OUT_LOST;
	memcpy(sql, prefix, sizeof(prefix) - 1);
	memcpy(sql + sizeof(prefix) - 1, r->job->sql, n + 1);
	if (!send_with_params(r, sql))
		goto out;
	r->plan = 2;
	o = collect_with(r, deadline, read_plan);
	if (o != OUT_OK || r->error)
		goto out;
	if (r->plan == RUNNER_PLAN_OUTSIDE) {
		o = OUT_PLAN;
	} else if (r->plan != RUNNER_PLAN_ALLOWED) {
		r->refusal = "the statement's plan could not be checked";
		o = OUT_REFUSED;
	}
out:
	free(sql);
	return o;
}

int runner_pg_run(struct runner_job *job, struct runner_ctl *ctl, const char *socket_dir,
		  int (*complete)(void *arg, struct runner_job *job), void *arg)
{
	struct pg_run r;
	enum outcome o;
	int64_t deadline;
	int rc;

	memset(&r, 0, sizeof(r));
	r.job = job;
	r.ctl = ctl;
	r.ctl_quiet = !runner_job_complete(job);
	o = connect_db(&r, socket_dir);
	if (o != OUT_OK) {
		rc = finish_connect(&r, o);
		goto out;
	}
	PQsetNoticeReceiver(r.conn, on_notice, &r);
	if (PQsetnonblocking(r.conn, 1) != 0) {
		rc = finish(&r, OUT_LOST);
		goto out;
	}
	/* Warm: connected ahead of the statement, which comes now. */
	if (!runner_job_complete(job)) {
		warm_up(&r);
		r.ctl_quiet = false;
		if (!complete || complete(arg, job) < 0) {
			rc = 1;
			goto out;
		}
	}
	r.ctl_quiet = false;

	deadline = now_ms() + SETUP_TIMEOUT_MS;
	o = begin_with_settings(&r, deadline);
	if (o == OUT_OK && !r.error && job->max_cost)
		o = check_cost(&r, deadline);
	if (o == OUT_OK && !r.error && job->plan_tables)
		o = check_plan(&r, deadline);
	if (o == OUT_OK && !r.error) {
		/* Single rows arrive as the backend produces them; the watchdog backs up statement_timeout. */
		deadline = now_ms() + job->timeout_ms + WATCHDOG_GRACE_MS;
		o = stream_statement(&r, deadline);
	}
	if (o == OUT_OK && !r.error)
		o = run_command(&r, "COMMIT", 0, NULL, now_ms() + SETUP_TIMEOUT_MS);
	rc = finish(&r, o);
	if (rc == 0 && o == OUT_OK && r.error) {
		/* Best effort: the error already went out; closing aborts the transaction anyway. */
		PQclear(r.error);
		r.error = NULL;
		run_command(&r, "ROLLBACK", 0, NULL, now_ms() + ROLLBACK_TIMEOUT_MS);
	}
out:
	if (r.error)
		PQclear(r.error);
	if (r.conn)
		PQfinish(r.conn);
	return rc;
}
