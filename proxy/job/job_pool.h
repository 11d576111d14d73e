/*
 * job_pool: warm runners. For each target and resource shape (memory, CPU,
 * PIDs) of the configured users, idle jobs are prepared ahead of demand;
 * their runners connect to the database and wait for a statement. The
 * manager takes one (preferring a runner that is already connected) and a
 * refill prepares its replacement.
 *
 * Each pool is elastic: it keeps pool_min ready at idle, and wants one more
 * (up to pool_max) each time a statement finds it empty or empties it; at
 * most pool_refill_concurrency of its runners are starting at once. Once
 * no statement has come for pool_idle_ms it wants one fewer (down to
 * pool_min) and retires the oldest extra; a ready runner older than
 * pool_max_age_ms is retired unused. Slots lost before use are refilled
 * with a growing delay, so a stopped engine is not hammered.
 *
 * Sits above job (job_int.h) and below the manager (jobs.c); job knows
 * nothing of it. The pool holds its idle jobs by pointer and is told
 * through job_watch when one is lost; a taken job is the taker's.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_POOL_H
#define AIRLOCK_PROXY_JOB_JOB_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "conf/config.h"

struct event;
struct job;
struct job_env;

#define JOB_MAX_POOLS 8
#define JOB_POOL_BACKOFF_MAX_MS 10000

/* Idle jobs of one target and resource shape. */
struct job_pool {
	const struct airlock_target *target; /* warm runners are connected to it */
	uint32_t memory_mb;
	uint64_t nano_cpus;
	uint32_t pids;
	struct job **idle; /* nidle of them, oldest first, room for cap */
	int64_t *made_ms;  /* when each was prepared */
	unsigned nidle;
	unsigned cap;      /* pool_max, or pool_min when it does not grow */
	unsigned want;     /* how many it keeps ready now: pool_min..cap */
	int64_t demand_ms; /* the last statement that asked it */
};

/* Every pool of one manager. */
struct job_pools {
	struct job_env *env; /* borrowed: base, cfg, and where jobs are made */
	struct job_pool pools[JOB_MAX_POOLS];
	size_t npools;
	struct event *refill; /* NULL until job_pool_start */
	int64_t due_ms;       /* when it fires (monotonic) */
	uint32_t backoff_ms;
};

/* No pools yet and nothing kept warm; env must outlive ps. */
void job_pool_init(struct job_pools *ps, struct job_env *env);
/* Starts keeping idle jobs per target and shape of env->cfg's users (pool_min, growing to pool_max). */
void job_pool_start(struct job_pools *ps);
/*
 * env->cfg changed: idle jobs hold the old targets' credentials, so they
 * are discarded, and once started the pools are rebuilt for the new config.
 */
void job_pool_reset(struct job_pools *ps);
/* An idle job of this target and shape, now the caller's, or NULL. */
struct job *job_pool_take(struct job_pools *ps, const struct airlock_target *target, const struct airlock_limits *lim);
/* Demand was seen: refill after the current back-off delay. */
void job_pool_kick(struct job_pools *ps);
/* A container started, so the engine works: a back-off ends, and the refill comes soon. */
void job_pool_engine_ok(struct job_pools *ps);
/* Shutting down: idle jobs are discarded (their containers stopped) and no more are made. */
void job_pool_stop(struct job_pools *ps);
/* Forgets every idle job (the caller frees them) and frees what the pools hold. */
void job_pool_fini(struct job_pools *ps);

#endif
