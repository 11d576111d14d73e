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
 * Each ready runner holds a backend connection, so a pool fills only as
 * far as its target's max_db_connections leaves room (the manager says
 * how far, through the spare hook, counting statements that wait for
 * that target first); a statement that finds no ready runner of its shape
 * while its target is at its bound sheds a ready one of another shape.
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

/* How many more backend connections target may open for ready runners (UINT_MAX: no bound). */
typedef unsigned (*job_pool_spare_fn)(void *arg, const struct airlock_target *target);

/* Every pool of one manager. */
struct job_pools {
	struct job_env *env;     /* borrowed: base, cfg, and where jobs are made */
	job_pool_spare_fn spare; /* NULL: no bound */
	void *spare_arg;
	struct job_pool pools[JOB_MAX_POOLS];
	size_t npools;
	struct event *refill; /* NULL until job_pool_start */
	int64_t due_ms;       /* when it fires (monotonic) */
	uint32_t backoff_ms;
};

/* No pools yet and nothing kept warm; env must outlive ps. */
void job_pool_init(struct job_pools *ps, struct job_env *env);
/* Bounds the refill by spare (called before each runner is made). */
void job_pool_set_spare(struct job_pools *ps, job_pool_spare_fn spare, void *arg);
/* Starts keeping idle jobs per target and shape of env->cfg's users (pool_min, growing to pool_max). */
void job_pool_start(struct job_pools *ps);
/*
 * env->cfg changed: idle jobs hold the old targets' credentials, so they
 * are discarded, and once started the pools are rebuilt for the new config.
 */
void job_pool_reset(struct job_pools *ps);
/* An idle job of this target and shape, now the caller's, or NULL. */
struct job *job_pool_take(struct job_pools *ps, const struct airlock_target *target, const struct airlock_limits *lim);
/* Idle jobs of the target named target whose runner is connected (ready) and not yet (starting). */
void job_pool_counts(const struct job_pools *ps, const char *target, unsigned *ready, unsigned *starting);
/* Idle jobs of the target named target, whatever their shape. */
unsigned job_pool_idle_of(const struct job_pools *ps, const char *target);
/*
 * Discards one idle job of the target named target (the oldest of the
 * pool holding most), so its backend connection goes; the pool then wants
 * one fewer. False when there is none.
 */
bool job_pool_shed(struct job_pools *ps, const char *target);
/* Demand was seen: refill after the current back-off delay. */
void job_pool_kick(struct job_pools *ps);
/* A container started, so the engine works: a back-off ends, and the refill comes soon. */
void job_pool_engine_ok(struct job_pools *ps);
/* Shutting down: idle jobs are discarded (their containers stopped) and no more are made. */
void job_pool_stop(struct job_pools *ps);
/* Forgets every idle job (the caller frees them) and frees what the pools hold. */
void job_pool_fini(struct job_pools *ps);

#endif
