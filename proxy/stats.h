/*
 * stats: airlockd's own series on a metrics registry (metrics.h), named
 * airlock_*, and the one call per event that moves them: a statement's
 * audit record, a failed login, an approval step, and at each scrape the
 * gauges of what is live now. docs/metrics.md lists the series.
 *
 * Label values are bounded: protocols, decisions, codes (enum airlock_err)
 * and approval steps come from fixed lists, user names from the config
 * (statements are counted only once a session is logged in); the
 * registry caps each family besides (METRICS_MAX_SERIES).
 *
 * Ownership: stats_new's result is the caller's (stats_free). Strings
 * passed in are borrowed for the call. Every call accepts a NULL struct
 * stats (no metrics_listen) and then does nothing.
 */
#ifndef AIRLOCK_PROXY_STATS_H
#define AIRLOCK_PROXY_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"

struct stats;
struct wbuf;

/* Every family registered, no series yet; NULL when out of memory. */
struct stats *stats_new(void);
void stats_free(struct stats *st);

/*
 * One statement's audit record: protocol "pg" or "mysql", the logged-in
 * user, decision (run, local, refused, error, held), its airlock code
 * (AIRLOCK_E_NONE: none), seconds from its start, and what it returned.
 */
void stats_statement(struct stats *st, const char *protocol, const char *user, const char *decision,
		     enum airlock_err code, double seconds, uint64_t rows, uint64_t bytes, bool truncated);
/* A failed login over protocol, whose answer waited wait_ms for earlier failures (login_guard.h). */
void stats_login_failed(struct stats *st, const char *protocol, uint32_t wait_ms);
/*
 * The phases of a statement, each a histogram airlock_phase_seconds{phase}:
 * the validator's time, and the job's (job.h enum job_phase) from the
 * queue to the backend's answer; total is the whole statement's, as
 * airlock_statement_duration_seconds.
 */
enum stats_phase {
	STATS_PHASE_VALIDATION,
	STATS_PHASE_QUEUE_WAIT,
	STATS_PHASE_RUNNER_WAIT,
	STATS_PHASE_CONTAINER_START,
	STATS_PHASE_BACKEND,
	STATS_PHASE_TOTAL,
};
void stats_phase(struct stats *st, enum stats_phase phase, double seconds);
/* The phase's label value ("validation", ..., "total"); "" for none. Static. */
const char *stats_phase_name(enum stats_phase phase);
/* A statement's validation phase, ns in the validator; 0: it needed none, not observed. */
void stats_validation(struct stats *st, uint64_t ns);
/* The launcher of runtime ("oci", "docker") started a runner container, or could not (ok false). */
void stats_container(struct stats *st, const char *runtime, bool ok);

/* A statement of user refused past its budget ("statements", "rows", "bytes", "runner_seconds"). */
void stats_budget_refused(struct stats *st, const char *user, const char *budget);
/* At each scrape: the budgets' gauges emptied, then one user's budget, its amount and what it holds now. */
void stats_budgets_clear(struct stats *st);
void stats_budget(struct stats *st, const char *user, const char *budget, double amount, double remaining);

/* A held write's step: held, approved, rejected, running, executed, drifted, failed, expired. */
void stats_approval(struct stats *st, const char *status);
/* A CancelRequest naming peer (its id): forwarded, failed, dropped_hops, dropped_unknown or dropped_busy. */
void stats_peer_cancel(struct stats *st, uint32_t peer, const char *outcome);

/* One validator round trip (validator_pool.h vpool_call) took seconds; st is a struct stats (vpool_observe's arg). */
void stats_validator_call(void *st, double seconds);

/*
 * What is sampled at each scrape: the sessions of protocol logging in and
 * logged in, the live jobs, and the validator pool's own counts
 * (validator_pool.h vpool_counts).
 */
void stats_sessions(struct stats *st, const char *protocol, unsigned logging_in, unsigned logged_in);
void stats_jobs_live(struct stats *st, unsigned n);
/*
 * One target's runners: backend connections held and its bound
 * (max_db_connections, 0: none), warm runners ready, runners busy with a
 * statement, warm runners starting,
 * statements waiting for it; and the queue's length, all targets.
 */
void stats_target(struct stats *st, const char *target, unsigned connections, unsigned bound, unsigned ready,
		  unsigned busy, unsigned starting, unsigned waiting);
/* Idle backend sessions kept for the target (keep_sessions); they are among its connections. */
void stats_target_kept(struct stats *st, const char *target, unsigned idle);
void stats_queue(struct stats *st, size_t waiting);
/* Before the targets are sampled: a target a reload removed leaves the per-target gauges. */
void stats_targets_clear(struct stats *st);
/* airlock_config_info: checksum (lower-case hex) is the configuration in force, the only series. */
void stats_config(struct stats *st, const char *checksum);
void stats_validator(struct stats *st, uint64_t calls, uint64_t failures, uint64_t started);
/* The store of held writes' failed calls since start (struct approval_store's failures). */
void stats_store(struct stats *st, uint64_t failures);

/* Appends the exposition of every series to w; false when w failed. */
bool stats_render(const struct stats *st, struct wbuf *w);

#endif
