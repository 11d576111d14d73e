/*
 * stats: the airlock_* families and what moves them (see stats.h).
 */
#define _GNU_SOURCE
#include "proxy/stats.h"

#include <stdio.h>
#include <stdlib.h>

#include "proxy/metrics.h"

/* Seconds: from a local answer (about a millisecond) to the longest timeout_ms worth keeping apart. */
static const double duration_bounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

/* Seconds, finer at the bottom than duration_bounds (a warm runner is handed a statement in microseconds) and
 * up to the longest queue_wait_ms worth keeping apart. */
static const double phase_bounds[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
				      0.25,   0.5,     1,      2.5,   5,      10,    30,   60,    120};

/* enum stats_phase's label values, in its order. */
static const char *const phase_names[] = {"validation",      "queue_wait", "runner_wait",
					  "container_start", "backend",    "total"};

struct stats {
	struct metrics *m; /* owned; every family below is in it */
	struct metrics_family *statements, *duration, *rows, *bytes, *truncations;
	struct metrics_family *failed_logins, *approvals, *sessions, *jobs_live;
	struct metrics_family *backend, *backend_max, *pool, *kept, *waiting, *queue;
	struct metrics_family *vcalls, *vfailures, *vstarted, *vduration;
	struct metrics_family *phase, *containers, *login_wait, *config;
	struct metrics_family *budget_refused, *budget_amount, *budget_left, *peer_cancels, *store_failures;
};

static const char *const l_statement[] = {"protocol", "user", "decision", "code"};
static const char *const l_protocol[] = {"protocol"};
static const char *const l_user[] = {"user"};
static const char *const l_status[] = {"status"};
static const char *const l_checksum[] = {"checksum"};
static const char *const l_sessions[] = {"protocol", "state"};
static const char *const l_target[] = {"target"};
static const char *const l_pool[] = {"target", "state"};
static const char *const l_phase[] = {"phase"};
static const char *const l_container[] = {"runtime", "result"};
static const char *const l_budget[] = {"user", "budget"};
static const char *const l_peer[] = {"peer", "outcome"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

struct stats *stats_new(void)
{
	struct stats *st = calloc(1, sizeof(*st));
	struct metrics *m = st ? metrics_new() : NULL;

	if (!m) {
		free(st);
		return NULL;
	}
	st->m = m;
	st->statements = metrics_family(m, METRICS_COUNTER, "airlock_statements_total",
					"Statements audited, by protocol, user, decision and airlock error code.",
					l_statement, N(l_statement), NULL, 0);
	st->duration = metrics_family(m, METRICS_HISTOGRAM, "airlock_statement_duration_seconds",
				      "Time from a statement's arrival to its audit record.", l_protocol, N(l_protocol),
				      duration_bounds, N(duration_bounds));
	st->rows = metrics_family(m, METRICS_COUNTER, "airlock_rows_total", "Rows returned to clients, by user.",
				  l_user, N(l_user), NULL, 0);
	st->bytes = metrics_family(m, METRICS_COUNTER, "airlock_bytes_total", "Row bytes returned to clients, by user.",
				   l_user, N(l_user), NULL, 0);
	st->truncations = metrics_family(m, METRICS_COUNTER, "airlock_truncations_total",
					 "Results cut by max_rows or max_bytes, by user.", l_user, N(l_user), NULL, 0);
	st->failed_logins = metrics_family(m, METRICS_COUNTER, "airlock_failed_logins_total",
					   "Failed logins, by protocol.", l_protocol, N(l_protocol), NULL, 0);
	st->approvals = metrics_family(m, METRICS_COUNTER, "airlock_approvals_total",
				       "Steps of held writes, by status.", l_status, N(l_status), NULL, 0);
	st->sessions =
		metrics_family(m, METRICS_GAUGE, "airlock_sessions", "Client sessions now, by protocol and state.",
			       l_sessions, N(l_sessions), NULL, 0);
	st->jobs_live =
		metrics_family(m, METRICS_GAUGE, "airlock_jobs_live",
			       "Jobs started and not yet cleaned up, their containers included.", NULL, 0, NULL, 0);
	st->backend = metrics_family(m, METRICS_GAUGE, "airlock_backend_connections",
				     "Backend connections the target's runners hold, ready ones included.", l_target,
				     N(l_target), NULL, 0);
	st->backend_max =
		metrics_family(m, METRICS_GAUGE, "airlock_backend_connections_max",
			       "The target's max_db_connections (0: no bound).", l_target, N(l_target), NULL, 0);
	st->pool = metrics_family(
		m, METRICS_GAUGE, "airlock_pool_runners",
		"Runners of the target: ready (warm, connected), busy (running a statement) or starting.", l_pool,
		N(l_pool), NULL, 0);
	st->kept = metrics_family(m, METRICS_GAUGE, "airlock_kept_sessions",
				  "Idle backend sessions kept for the target (keep_sessions), counted in its backend "
				  "connections.",
				  l_target, N(l_target), NULL, 0);
	st->waiting = metrics_family(m, METRICS_GAUGE, "airlock_queue_waiting",
				     "Statements waiting in the queue, by target.", l_target, N(l_target), NULL, 0);
	st->queue = metrics_family(m, METRICS_GAUGE, "airlock_queue_depth", "Statements waiting in the queue.", NULL, 0,
				   NULL, 0);
	st->vcalls = metrics_family(m, METRICS_COUNTER, "airlock_validator_calls_total",
				    "Requests to the validator workers.", NULL, 0, NULL, 0);
	st->vfailures =
		metrics_family(m, METRICS_COUNTER, "airlock_validator_failures_total",
			       "Validator requests whose worker failed (crashed, timed out).", NULL, 0, NULL, 0);
	st->vstarted = metrics_family(m, METRICS_COUNTER, "airlock_validator_workers_started_total",
				      "Validator worker processes started.", NULL, 0, NULL, 0);
	st->vduration = metrics_family(m, METRICS_HISTOGRAM, "airlock_validator_call_duration_seconds",
				       "Time of one validator round trip (a statement takes one or more).", NULL, 0,
				       duration_bounds, N(duration_bounds));
	st->phase = metrics_family(m, METRICS_HISTOGRAM, "airlock_phase_seconds",
				   "Time of each phase of a statement: validation, queue_wait, runner_wait, "
				   "container_start (every runner's, warm ones too), backend, total.",
				   l_phase, N(l_phase), phase_bounds, N(phase_bounds));
	st->containers = metrics_family(m, METRICS_COUNTER, "airlock_containers_total",
					"Runner containers the launcher started or failed to start, by runtime.",
					l_container, N(l_container), NULL, 0);
	st->login_wait =
		metrics_family(m, METRICS_HISTOGRAM, "airlock_failed_login_wait_seconds",
			       "How long the answer to a failed login waited for earlier failures, by protocol.",
			       l_protocol, N(l_protocol), phase_bounds, N(phase_bounds));
	st->config = metrics_family(m, METRICS_GAUGE, "airlock_config_info",
				    "1, labelled with the SHA-256 of the configuration (its policy included) in force.",
				    l_checksum, N(l_checksum), NULL, 0);
	st->budget_refused =
		metrics_family(m, METRICS_COUNTER, "airlock_budget_refusals_total",
			       "Statements refused because the user was past a budget, by user and budget.", l_budget,
			       N(l_budget), NULL, 0);
	st->budget_amount = metrics_family(m, METRICS_GAUGE, "airlock_budget_amount",
					   "A user's budget: what flows back per minute (runner_seconds: per hour).",
					   l_budget, N(l_budget), NULL, 0);
	st->budget_left = metrics_family(m, METRICS_GAUGE, "airlock_budget_remaining",
					 "What a user's budget holds now; below 0 while overdrawn.", l_budget,
					 N(l_budget), NULL, 0);
	st->peer_cancels = metrics_family(m, METRICS_COUNTER, "airlock_peer_cancels_total",
					  "CancelRequests naming another node, by the peer_id they name and outcome: "
					  "forwarded, failed, or dropped (hops, unknown, busy).",
					  l_peer, N(l_peer), NULL, 0);
	st->store_failures = metrics_family(
		m, METRICS_COUNTER, "airlock_approval_store_failures_total",
		"Calls to the store of held writes (approval_store's file, or state_dsn's database) that "
		"failed since start.",
		NULL, 0, NULL, 0);
	if (!st->store_failures || !st->peer_cancels || !st->budget_refused || !st->budget_amount || !st->budget_left ||
	    !st->config || !st->phase || !st->containers || !st->login_wait || !st->vduration || !st->statements ||
	    !st->duration || !st->rows || !st->bytes || !st->truncations || !st->failed_logins || !st->approvals ||
	    !st->sessions || !st->jobs_live || !st->vcalls || !st->vfailures || !st->vstarted || !st->backend ||
	    !st->backend_max || !st->pool || !st->kept || !st->waiting || !st->queue) {
		stats_free(st);
		return NULL;
	}
	return st;
}

void stats_free(struct stats *st)
{
	if (!st)
		return;
	metrics_free(st->m);
	free(st);
}

void stats_statement(struct stats *st, const char *protocol, const char *user, const char *decision,
		     enum airlock_err code, double seconds, uint64_t rows, uint64_t bytes, bool truncated)
{
	const char *name = airlock_err_name(code);
	const char *v[] = {protocol, user, decision, name[0] ? name : "none"};
	const char *u[] = {user};
	const char *p[] = {protocol};

	if (!st)
		return;
	metrics_add(st->statements, v, 1);
	metrics_observe(st->duration, p, seconds);
	stats_phase(st, STATS_PHASE_TOTAL, seconds);
	if (rows)
		metrics_add(st->rows, u, (double)rows);
	if (bytes)
		metrics_add(st->bytes, u, (double)bytes);
	if (truncated)
		metrics_add(st->truncations, u, 1);
}

void stats_login_failed(struct stats *st, const char *protocol, uint32_t wait_ms)
{
	const char *p[] = {protocol};

	if (!st)
		return;
	metrics_add(st->failed_logins, p, 1);
	metrics_observe(st->login_wait, p, wait_ms / 1000.0);
}

const char *stats_phase_name(enum stats_phase phase)
{
	return (size_t)phase < N(phase_names) ? phase_names[phase] : "";
}

void stats_phase(struct stats *st, enum stats_phase phase, double seconds)
{
	const char *v[1];

	if (!st || (size_t)phase >= N(phase_names))
		return;
	v[0] = phase_names[phase];
	metrics_observe(st->phase, v, seconds);
}

void stats_validation(struct stats *st, uint64_t ns)
{
	if (ns)
		stats_phase(st, STATS_PHASE_VALIDATION, (double)ns / 1e9);
}

void stats_container(struct stats *st, const char *runtime, bool ok)
{
	const char *v[] = {runtime, ok ? "started" : "failed"};

	if (st)
		metrics_add(st->containers, v, 1);
}

void stats_peer_cancel(struct stats *st, uint32_t peer, const char *outcome)
{
	char id[12];
	const char *v[] = {id, outcome};

	snprintf(id, sizeof(id), "%u", peer);
	if (st)
		metrics_add(st->peer_cancels, v, 1);
}

void stats_approval(struct stats *st, const char *status)
{
	const char *v[] = {status};

	if (st)
		metrics_add(st->approvals, v, 1);
}

void stats_sessions(struct stats *st, const char *protocol, unsigned logging_in, unsigned logged_in)
{
	const char *in[] = {protocol, "logging_in"};
	const char *on[] = {protocol, "logged_in"};

	if (!st)
		return;
	metrics_set(st->sessions, in, logging_in);
	metrics_set(st->sessions, on, logged_in);
}

void stats_jobs_live(struct stats *st, unsigned n)
{
	if (st)
		metrics_set(st->jobs_live, NULL, n);
}

void stats_target(struct stats *st, const char *target, unsigned connections, unsigned bound, unsigned ready,
		  unsigned busy, unsigned starting, unsigned waiting)
{
	const char *t[] = {target};
	const char *r[] = {target, "ready"};
	const char *b[] = {target, "busy"};
	const char *s[] = {target, "starting"};

	if (!st)
		return;
	metrics_set(st->backend, t, connections);
	metrics_set(st->backend_max, t, bound);
	metrics_set(st->pool, r, ready);
	metrics_set(st->pool, b, busy);
	metrics_set(st->pool, s, starting);
	metrics_set(st->waiting, t, waiting);
}

void stats_target_kept(struct stats *st, const char *target, unsigned idle)
{
	const char *t[] = {target};

	if (st)
		metrics_set(st->kept, t, idle);
}

void stats_targets_clear(struct stats *st)
{
	if (!st)
		return;
	metrics_clear(st->backend);
	metrics_clear(st->backend_max);
	metrics_clear(st->pool);
	metrics_clear(st->kept);
	metrics_clear(st->waiting);
}

void stats_config(struct stats *st, const char *checksum)
{
	const char *v[] = {checksum};

	if (!st)
		return;
	metrics_clear(st->config);
	metrics_set(st->config, v, 1);
}

void stats_budget_refused(struct stats *st, const char *user, const char *budget)
{
	const char *v[] = {user, budget};

	if (st)
		metrics_add(st->budget_refused, v, 1);
}

void stats_budgets_clear(struct stats *st)
{
	if (!st)
		return;
	metrics_clear(st->budget_amount);
	metrics_clear(st->budget_left);
}

void stats_budget(struct stats *st, const char *user, const char *budget, double amount, double remaining)
{
	const char *v[] = {user, budget};

	if (!st)
		return;
	metrics_set(st->budget_amount, v, amount);
	metrics_set(st->budget_left, v, remaining);
}

void stats_queue(struct stats *st, size_t waiting)
{
	if (st)
		metrics_set(st->queue, NULL, (double)waiting);
}

void stats_validator(struct stats *st, uint64_t calls, uint64_t failures, uint64_t started)
{
	if (!st)
		return;
	metrics_set(st->vcalls, NULL, (double)calls);
	metrics_set(st->vfailures, NULL, (double)failures);
	metrics_set(st->vstarted, NULL, (double)started);
}

void stats_store(struct stats *st, uint64_t failures)
{
	if (st)
		metrics_set(st->store_failures, NULL, (double)failures);
}

void stats_validator_call(void *st, double seconds)
{
	struct stats *s = st;

	if (s)
		metrics_observe(s->vduration, NULL, seconds);
}

bool stats_render(const struct stats *st, struct wbuf *w)
{
	return st ? metrics_render(st->m, w) : false;
}
