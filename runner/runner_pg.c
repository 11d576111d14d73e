/*
 * runner_pg: one job against Postgres (see runner_pg.h).
 *
 * Sequence: connect through the relay socket; once the statement is here,
 * tell the proxy the backend's pid ('B', for its memory watch); BEGIN
 * TRANSACTION READ ONLY, statement_timeout, the job's settings and last the
 * memory bounds (runner_mem.h) with set_config(..., true),
 * then the statement in single-row mode so only one row is ever held.
 * A plain statement sends all three at once in libpq's pipeline mode and
 * ends with its last row (the read-only transaction needs no COMMIT);
 * a check of parameter types that may be hidden, a cost or plan check, a
 * COPY or mixed result formats take a round trip each, then COMMIT; a
 * describe job prepares and describes the statement instead
 * (runner_pg_result.c). Every wait watches the control socket too
 * (runner_pg_io.c). A runner-side watchdog backs up the engine's
 * statement_timeout.
 *
 * Nothing sent to the proxy names the socket path, the role or the
 * password; libpq's own connection errors are reduced to a fixed message.
 */
#include "runner/runner_pg.h"
#include "runner/runner_pg_int.h"
#include "runner/runner_plan.h"

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "base/errors.h"
#include "base/wbuf.h"

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

static enum outcome connect_db(struct pg_run *r, const char *host)
{
	const char *const keys[] = {
		"host",
		"port",
		"dbname",
		"user",
		"password",
		"sslmode",
		"gssencmode",
		"channel_binding",
		"connect_timeout",
		"application_name",
		NULL,
	};
	/*
	 * TLS, when the target has it, is the shim's (runner_tls.h): libpq
	 * sees plain text and cannot bind SCRAM to the TLS channel, which it
	 * would take for TLS stripped on the way when a server offers it.
	 */
	const char *const vals[] = {
		host,      "5432", r->job->dbname,   r->job->user, r->job->password, "disable", "disable",
		"disable", "10",   "airlock-runner", NULL,
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

/* How many settings the job's transaction gets. */
static size_t setting_count(const struct pg_run *r)
{
	return 1 + r->job->nsets + r->nmem;
}

/*
 * Setting i in the order applied: statement_timeout, the session's, then
 * the memory bounds, last so that nothing before them can undo them.
 */
static void setting_at(const struct pg_run *r, size_t i, const char **name, const char **value)
{
	const struct runner_job *job = r->job;

	if (i == 0) {
		*name = "statement_timeout";
		*value = job->timeout_text;
	} else if (i <= job->nsets) {
		*name = job->set_names[i - 1];
		*value = job->set_values[i - 1];
	} else {
		*name = r->mem[i - 1 - job->nsets].name;
		*value = r->mem[i - 1 - job->nsets].value;
	}
}

/*
 * The transaction and every setting in one round trip: BEGIN READ ONLY,
 * then one SELECT of set_config() calls whose arguments are quoted by
 * libpq (PQescapeLiteral), never pasted raw.
 */
static enum outcome begin_with_settings(struct pg_run *r, int64_t deadline)
{
	size_t cap = 128, len = 0;
	char *sql = NULL, *lit[3] = {NULL, NULL, NULL};
	enum outcome o = OUT_LOST;
	size_t i;

	for (i = 0; i < setting_count(r); i++) {
		const char *name, *value;
		size_t need;
		char *grown;

		setting_at(r, i, &name, &value);
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
				len = (size_t)snprintf(sql, cap, "BEGIN TRANSACTION %s; SELECT ",
						       r->job->write ? "READ WRITE" : "READ ONLY");
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
		if (r->job->write) {
			o = write_row(r, res);
			break;
		}
		o = send_desc(r, res);
		if (o == OUT_OK)
			o = send_row(r, res);
		break;
	case PGRES_TUPLES_OK:
		if (r->error)
			break;
		o = r->job->write ? write_desc(r, res) : send_desc(r, res);
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
		o = r->error ? OUT_LOST : copy_out(r, res);
		break;
	case PGRES_COPY_IN:
	case PGRES_COPY_BOTH:
		r->refusal = "COPY FROM is not supported";
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
				  "'\"public\"', true); " RUNNER_PG_GUARD_WARM "; ROLLBACK"))
		return;
	collect(r, now_ms() + SETUP_TIMEOUT_MS);
	if (r->error) {
		PQclear(r->error);
		r->error = NULL;
	}
}

/*
 * Hands each result of the statement to on_result until there are no more
 * or one is not OUT_OK. In a pipeline, the results of what an error
 * aborted are passed over (none come outside one).
 */
static enum outcome read_results(struct pg_run *r, int64_t deadline)
{
	enum outcome o;
	PGresult *res;

	for (;;) {
		o = next_result(r, deadline, &res);
		if (o != OUT_OK || !res)
			return o;
		if (PQresultStatus(res) == PGRES_PIPELINE_ABORTED) {
			PQclear(res);
			continue;
		}
		o = on_result(r, res);
		if (o != OUT_OK)
			return o;
	}
}

/* Runs the statement itself, streaming its rows. */
static enum outcome stream_statement(struct pg_run *r, int64_t deadline)
{
	char *sql;
	int format;
	enum outcome o = result_prepare(r, deadline, &sql, &format);

	r->deadline = deadline;
	if (o != OUT_OK || r->error)
		goto out;
	/* The extended protocol also refuses a string with several statements. */
	o = OUT_LOST;
	if (!send_with_params(r, sql, format) || !PQsetSingleRowMode(r->conn))
		goto out;
	o = read_results(r, deadline);
out:
	result_done(r, sql);
	return o;
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
	runner_ctl_error(r->ctl, FRAME_ERROR, airlock_err_pg_sqlstate(AIRLOCK_E_TIMEOUT),
			 airlock_err_name(AIRLOCK_E_TIMEOUT), msg, "",
			 "make the statement cheaper: filter with WHERE, add a LIMIT, avoid large joins and sorts");
}

static void send_cancel(struct pg_run *r)
{
	runner_ctl_error(r->ctl, FRAME_ERROR, airlock_err_pg_sqlstate(AIRLOCK_E_CANCELED),
			 airlock_err_name(AIRLOCK_E_CANCELED), "canceling statement due to user request", "", "");
}

static void send_lost(struct pg_run *r)
{
	runner_ctl_error(r->ctl, FRAME_ERROR,
			 airlock_pg_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_CONNECTION_FAILURE),
			 airlock_err_name(AIRLOCK_E_EXECUTION_FAILED), "connection to the database was lost", "", "");
}

/*
 * airlockd's refusal of a kept session (FRAME_KEPT_REFUSED) in text: its
 * reason into out; false when text holds none or the job is not kept.
 */
static bool kept_refusal(const struct pg_run *r, const char *text, char *out, size_t cap)
{
	const char *p = r->job->kept && text ? strstr(text, FRAME_KEPT_REFUSED) : NULL;
	size_t n;

	if (!p)
		return false;
	p += strlen(FRAME_KEPT_REFUSED);
	n = strcspn(p, "\n");
	snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), p);
	return true;
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
	/* airlockd answered the login but then had no session to give. */
	if (kept_refusal(r, msg, r->tls_why, sizeof(r->tls_why))) {
		runner_ctl_error(r->ctl, FRAME_ERROR,
				 airlock_pg_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_UNABLE_TO_CONNECT),
				 airlock_err_name(AIRLOCK_E_EXECUTION_FAILED), "could not connect to the database",
				 r->tls_why, "");
		return;
	}
	/* query_canceled: the engine's statement_timeout, or a cancel request. */
	if (strcmp(state, airlock_err_pg_sqlstate(AIRLOCK_E_CANCELED)) == 0) {
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
		runner_ctl_complete(r->ctl, r->sent.rows, FRAME_TRUNC_NONE, r->tag);
		break;
	case OUT_TRUNCATED:
		/* Cancel first so the backend stops before the proxy drops the relay. */
		cancel_query(r);
		snprintf(tag, sizeof(tag), "%s %" PRIu64, r->copying ? "COPY" : "SELECT", r->sent.rows);
		runner_ctl_complete(r->ctl, r->sent.rows, r->trunc, tag);
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
		runner_ctl_error(r->ctl, FRAME_ERROR,
				 airlock_pg_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_FEATURE_NOT_SUPPORTED),
				 airlock_err_name(AIRLOCK_E_EXECUTION_FAILED), r->refusal, "", "");
		break;
	case OUT_LOST:
		send_lost(r);
		break;
	case OUT_COST: {
		char msg[160];

		snprintf(msg, sizeof(msg), "COST_LIMIT: the estimated cost %.0f is above max_cost=%" PRIu64, r->cost,
			 r->job->max_cost);
		runner_ctl_error(r->ctl, FRAME_ERROR, airlock_err_pg_sqlstate(AIRLOCK_E_COST_LIMIT),
				 airlock_err_name(AIRLOCK_E_COST_LIMIT), msg, "",
				 "filter on an indexed column, add a LIMIT, or join fewer rows");
		break;
	}
	case OUT_PROTO:
		runner_ctl_error_at(r->ctl, r->proto_state, r->proto_msg, "", "", "");
		break;
	case OUT_GUARD:
		send_guard_refusal(r);
		break;
	case OUT_WRITE_CHECK:
	case OUT_WRITE_ROWS:
		/* The transaction stays open and dies with the connection: nothing is written. */
		cancel_query(r);
		send_write_refusal(r, o);
		break;
	case OUT_PLAN:
		/* Never named: the relation is one the user may not know exists. */
		runner_ctl_error(r->ctl, FRAME_ERROR, airlock_err_pg_sqlstate(AIRLOCK_E_TABLE_NOT_ALLOWED),
				 airlock_err_name(AIRLOCK_E_TABLE_NOT_ALLOWED),
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
		/* Why TLS failed, when it did: from the shim, or from starting it. */
		if (r->tls)
			runner_tls_failure(r->tls, r->tls_why, sizeof(r->tls_why));
		if (r->tls_why[0] ||
		    kept_refusal(r, r->conn ? PQerrorMessage(r->conn) : NULL, r->tls_why, sizeof(r->tls_why)))
			detail = r->tls_why;
		runner_ctl_error(r->ctl, FRAME_ERROR,
				 airlock_pg_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_UNABLE_TO_CONNECT),
				 airlock_err_name(AIRLOCK_E_EXECUTION_FAILED), "could not connect to the database",
				 detail, "");
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
	enum outcome o;

	r->cost = -1;
	o = explain_read(r, "EXPLAIN (FORMAT JSON) ", deadline, read_cost);
	if (o != OUT_OK || r->error)
		return o;
	if (r->cost < 0) {
		/* Fail closed: a cap that cannot be checked refuses. */
		r->refusal = "the planner's cost estimate could not be read";
		return OUT_REFUSED;
	}
	return r->cost > (double)r->job->max_cost ? OUT_COST : OUT_OK;
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
	enum outcome o;

	r->plan = 2;
	o = explain_read(r, "EXPLAIN (FORMAT JSON, VERBOSE) ", deadline, read_plan);
	if (o != OUT_OK || r->error)
		return o;
	if (r->plan == RUNNER_PLAN_OUTSIDE)
		return OUT_PLAN;
	if (r->plan != RUNNER_PLAN_ALLOWED) {
		r->refusal = "the statement's plan could not be checked";
		return OUT_REFUSED;
	}
	return OUT_OK;
}

/* The check's row: the oid of the first parameter type outside the user's world. */
static void read_hidden_type(struct pg_run *r, const PGresult *res)
{
	const char *oid;
	size_t n;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) == 0 || r->proto_state[0])
		return;
	oid = PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0);
	n = strspn(oid, "0123456789");
	if (PQntuples(res) != 1 || PQnfields(res) != 1 || n == 0 || n > 10 || oid[n] != '\0') {
		r->refusal = "the parameter types could not be checked";
		return;
	}
	snprintf(r->proto_state, sizeof(r->proto_state), "%s",
		 airlock_pg_sqlstate(AIRLOCK_E_NONE, AIRLOCK_N_PG_INTERNAL_ERROR));
	snprintf(r->proto_msg, sizeof(r->proto_msg), "cache lookup failed for type %s", oid);
}

/*
 * The parameter types' check, before anything is prepared with them: a
 * type outside the user's world (a hidden relation's row type) fails the
 * job exactly as one that does not exist fails at Parse in Postgres
 * (XX000, "cache lookup failed for type N"), and the backend never sees
 * it. A check that answers anything else refuses.
 */
static enum outcome check_types(struct pg_run *r, int64_t deadline)
{
	enum outcome o;

	r->proto_state[0] = '\0';
	r->refusal = NULL;
	if (!PQsendQueryParams(r->conn, r->job->type_check, 0, NULL, NULL, NULL, NULL, 0))
		return OUT_LOST;
	o = collect_with(r, deadline, read_hidden_type);
	if (o != OUT_OK || r->error)
		return o;
	if (r->refusal)
		return OUT_REFUSED;
	return r->proto_state[0] ? OUT_PROTO : OUT_OK;
}

/* The settings as one SELECT of set_config($1, $2, true), ... with the values as parameters. */
static char *settings_select(const struct pg_run *r, const char **values)
{
	size_t cap = 16 + setting_count(r) * 48, len;
	char *sql = malloc(cap);

	if (!sql)
		return NULL;
	len = (size_t)snprintf(sql, cap, "SELECT ");
	for (size_t i = 0; i < setting_count(r); i++) {
		setting_at(r, i, &values[2 * i], &values[2 * i + 1]);
		len += (size_t)snprintf(sql + len, cap - len, "%sset_config($%zu, $%zu, true)", i ? ", " : "",
					2 * i + 1, 2 * i + 2);
	}
	return sql;
}

/* One query's results of a pipeline, up to its NULL; the first error is kept. */
static enum outcome pipe_skip(struct pg_run *r, int64_t deadline)
{
	return collect(r, deadline);
}

/*
 * The common statement in one round trip: BEGIN READ ONLY, the settings
 * and the statement go out together in libpq's pipeline mode, then one
 * Sync. The statement's rows stream in single-row mode, set once the
 * settings' results are read (it applies to the query at the head of the
 * pipeline). An error in the settings aborts the rest, as Postgres does,
 * and is the job's error. No COMMIT: the transaction is read only, and the
 * completion goes to the proxy as soon as the last row is read.
 */
static enum outcome pipelined_statement(struct pg_run *r, int64_t deadline, int64_t stmt_deadline)
{
	const char *values[2 * (FRAME_MAX_PAIRS + 1 + RUNNER_MEM_PG_N)];
	char *sets = settings_select(r, values);
	int nvalues = 2 * (int)setting_count(r);
	enum outcome o = OUT_LOST;

	if (!sets || !PQenterPipelineMode(r->conn))
		goto out;
	/*
	 * The flush request makes the backend send the first two results before
	 * it runs the statement; without it they wait in its output buffer until
	 * the statement ends, and the setup deadline, not the statement's, would
	 * decide when a slow statement is given up.
	 */
	if (!PQsendQueryParams(r->conn, "BEGIN TRANSACTION READ ONLY", 0, NULL, NULL, NULL, NULL, 0) ||
	    !PQsendQueryParams(r->conn, sets, nvalues, NULL, values, NULL, NULL, 0) ||
	    (r->job->guard && !PQsendQueryParams(r->conn, r->job->guard, 0, NULL, NULL, NULL, NULL, 0)) ||
	    !PQsendFlushRequest(r->conn) || !send_with_params(r, r->job->sql, result_format(r->job, 0)) ||
	    !PQpipelineSync(r->conn))
		goto out;
	o = pipe_skip(r, deadline);
	if (o == OUT_OK)
		o = pipe_skip(r, deadline);
	/* The guard's error aborts the statement behind it, which never runs. */
	if (o == OUT_OK && r->job->guard && !r->error) {
		o = pipe_skip(r, deadline);
		if (o == OUT_OK)
			o = guard_outcome(r);
	}
	if (o != OUT_OK)
		goto out;
	r->deadline = stmt_deadline;
	if (!r->error && !PQsetSingleRowMode(r->conn)) {
		o = OUT_LOST;
		goto out;
	}
	o = read_results(r, stmt_deadline);
out:
	result_done(r, NULL);
	free(sets);
	return o;
}

/*
 * Can the statement go in one pipeline: no check to run first (cost, plan
 * or parameter types), no wrapper
 * to look up, and no COPY (which pipeline mode does not carry; the proxy
 * sends a COPY with the read it wraps in plan_sql).
 */
static bool pipelinable(const struct runner_job *job)
{
	return !job->describe && !job->max_cost && !job->plan_tables && !job->plan_sql && !job->type_check &&
	       !formats_mixed(job) && !job->write;
}

int runner_pg_run(struct runner_job *job, struct runner_ctl *ctl, const char *socket_dir,
		  int (*complete)(void *arg, struct runner_job *job), void *arg)
{
	struct pg_run r;
	enum outcome o;
	int64_t deadline;
	char host[64];
	int rc;

	memset(&r, 0, sizeof(r));
	r.job = job;
	r.ctl = ctl;
	r.ctl_quiet = !runner_job_complete(job);
	if (job->tls && runner_tls_start(&r.tls, job, socket_dir, ".s.PGSQL.5432", host, sizeof(host), r.tls_why,
					 sizeof(r.tls_why)) < 0) {
		rc = finish_connect(&r, OUT_LOST);
		goto out;
	}
	o = connect_db(&r, job->tls ? host : socket_dir);
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
		if (!job->kept)
			warm_up(&r);
		r.ctl_quiet = false;
		if (!complete || complete(arg, job) < 0) {
			rc = 1;
			goto out;
		}
	}
	r.ctl_quiet = false;
	if (job->backend_memory_mb) {
		runner_mem_pg(job->backend_memory_mb, r.mem);
		r.nmem = RUNNER_MEM_PG_N;
	}
	/* Goes out with the first wait's flush, before the statement can grow the backend. */
	{
		char salt[SCRAM_SALT_B64_MAX];
		uint32_t iterations = 0;
		bool scram = r.tls && runner_tls_scram_seen(r.tls, salt, &iterations) == 0;

		if (PQbackendPID(r.conn) > 0 &&
		    runner_ctl_backend(ctl, (uint32_t)PQbackendPID(r.conn), scram ? salt : NULL, iterations) < 0) {
			rc = -1;
			goto out;
		}
	}

	deadline = now_ms() + SETUP_TIMEOUT_MS;
	if (pipelinable(job)) {
		o = pipelined_statement(&r, deadline, now_ms() + job->timeout_ms + WATCHDOG_GRACE_MS);
		rc = finish(&r, o);
		goto out;
	}
	o = begin_with_settings(&r, deadline);
	/* The types first: the guard walks the parameters' types, which must all be of the world. */
	if (o == OUT_OK && !r.error && job->type_check)
		o = check_types(&r, deadline);
	if (o == OUT_OK && !r.error && job->guard)
		o = check_guard(&r, deadline);
	if (o == OUT_OK && !r.error && job->describe) {
		o = describe_statement(&r, deadline);
		result_done(&r, NULL);
		if (o == OUT_OK && !r.error)
			o = run_command(&r, "COMMIT", 0, NULL, now_ms() + SETUP_TIMEOUT_MS);
		rc = finish(&r, o);
		goto out;
	}
	if (o == OUT_OK && !r.error && job->max_cost)
		o = check_cost(&r, deadline);
	if (o == OUT_OK && !r.error && job->plan_tables)
		o = check_plan(&r, deadline);
	if (o == OUT_OK && !r.error && job->sample && job->plan_sql)
		o = send_plan(&r, deadline);
	if (o == OUT_OK && !r.error) {
		/* Single rows arrive as the backend produces them; the watchdog backs up statement_timeout. */
		deadline = now_ms() + job->timeout_ms + WATCHDOG_GRACE_MS;
		o = stream_statement(&r, deadline);
	}
	if (o == OUT_OK && !r.error)
		o = job->write ? write_end(&r, now_ms() + SETUP_TIMEOUT_MS)
			       : run_command(&r, "COMMIT", 0, NULL, now_ms() + SETUP_TIMEOUT_MS);
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
	runner_tls_stop(r.tls);
	return rc;
}
