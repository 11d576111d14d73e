/*
 * job_pool: warm runners (see job_pool.h). Each pool's idle jobs are an
 * array sized to pool_size when the pools are made; the refill timer
 * fills every pool up to it and stops at the first failure, which backs
 * off (500 ms, doubling, at most JOB_POOL_BACKOFF_MAX_MS).
 */
#include "proxy/job_pool.h"

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <event2/event.h>

#include "proxy/job_int.h"
#include "proxy/log.h"
#include "proxy/timeval.h"

static void job_pool_schedule(struct job_pools *ps, uint32_t delay_ms)
{
	struct timeval tv = ms_timeval(delay_ms);

	if (!ps->refill || ps->env->cfg->pool_size == 0 || evtimer_pending(ps->refill, NULL))
		return;
	evtimer_add(ps->refill, &tv);
}

/* A slot was lost before use: refill later, slower each time. */
static void job_pool_slot_failed(struct job_pools *ps)
{
	ps->backoff_ms = ps->backoff_ms ? ps->backoff_ms * 2 : 500;
	if (ps->backoff_ms > JOB_POOL_BACKOFF_MAX_MS)
		ps->backoff_ms = JOB_POOL_BACKOFF_MAX_MS;
	job_pool_schedule(ps, ps->backoff_ms);
}

/* Removes the idle job at k, keeping the others in the order they were made. */
static struct job *take_at(struct job_pool *p, unsigned k)
{
	struct job *j = p->idle[k];

	memmove(&p->idle[k], &p->idle[k + 1], (size_t)(p->nidle - k - 1) * sizeof(p->idle[0]));
	p->nidle--;
	return j;
}

/* Takes j out of whichever pool holds it. */
static void job_pool_remove(struct job_pools *ps, struct job *j)
{
	for (size_t i = 0; i < ps->npools; i++) {
		struct job_pool *p = &ps->pools[i];

		for (unsigned k = 0; k < p->nidle; k++) {
			if (p->idle[k] == j) {
				take_at(p, k);
				return;
			}
		}
	}
}

static void job_pool_lost(void *arg, struct job *j)
{
	struct job_pools *ps = arg;

	job_pool_remove(ps, j);
	job_pool_slot_failed(ps);
}

static void job_pool_refill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct job_pools *ps = arg;

	for (size_t i = 0; i < ps->npools; i++) {
		struct job_pool *p = &ps->pools[i];

		while (p->nidle < p->cap) {
			struct job *j = job_new(ps->env);

			if (!j)
				return;
			if (job_prepare(j, p->target, p->memory_mb, p->nano_cpus, p->pids) < 0) {
				job_discard(j);
				job_pool_slot_failed(ps);
				return;
			}
			job_watch(j, job_pool_lost, ps);
			p->idle[p->nidle++] = j;
		}
	}
}

struct job *job_pool_take(struct job_pools *ps, const struct airlock_target *target, const struct airlock_limits *lim)
{
	for (size_t i = 0; i < ps->npools; i++) {
		struct job_pool *p = &ps->pools[i];
		unsigned best;
		struct job *j;

		if (p->target != target || p->memory_mb != lim->memory_mb || p->nano_cpus != lim->nano_cpus ||
		    p->pids != lim->pids)
			continue;
		if (p->nidle == 0)
			return NULL;
		/*
		 * The newest job whose runner is connected, else the newest, as
		 * before the pool had its own file: measured back to back
		 * (bench/run.sh's b2b), the oldest first made every second
		 * statement of a burst wait tens of milliseconds.
		 */
		best = p->nidle - 1;
		for (unsigned k = p->nidle; k-- > 0;) {
			if (job_runner_connected(p->idle[k])) {
				best = k;
				break;
			}
		}
		j = take_at(p, best);
		job_watch(j, NULL, NULL);
		return j;
	}
	return NULL;
}

/* Adds the pool for target and the shape l unless it exists (or target is NULL, or the table is full). */
static void job_pool_add_shape(struct job_pools *ps, const struct airlock_target *target,
			       const struct airlock_limits *l)
{
	uint32_t cap = ps->env->cfg->pool_size;
	struct job **idle = NULL;
	size_t i;

	if (!target)
		return;
	for (i = 0; i < ps->npools; i++)
		if (ps->pools[i].target == target && ps->pools[i].memory_mb == l->memory_mb &&
		    ps->pools[i].nano_cpus == l->nano_cpus && ps->pools[i].pids == l->pids)
			return;
	if (ps->npools == JOB_MAX_POOLS)
		return;
	if (cap && !(idle = calloc(cap, sizeof(*idle)))) {
		log_error("no memory for a warm pool of %u runners", cap);
		return;
	}
	ps->pools[ps->npools++] = (struct job_pool){
		.target = target,
		.memory_mb = l->memory_mb,
		.nano_cpus = l->nano_cpus,
		.pids = l->pids,
		.idle = idle,
		.cap = cap,
	};
}

static void job_pool_make(struct job_pools *ps)
{
	const struct airlock_config *cfg = ps->env->cfg;

	for (size_t u = 0; u < cfg->nusers; u++) {
		job_pool_add_shape(ps, cfg->users[u].target, &cfg->users[u].limits);
		job_pool_add_shape(ps, cfg->users[u].mysql_target, &cfg->users[u].limits);
	}
}

/* Drops every pool; with discard, their idle jobs are discarded, else only forgotten. */
static void job_pool_clear(struct job_pools *ps, bool discard)
{
	for (size_t i = 0; i < ps->npools; i++) {
		struct job_pool *p = &ps->pools[i];

		while (discard && p->nidle)
			job_discard(p->idle[--p->nidle]);
		free(p->idle);
	}
	memset(ps->pools, 0, sizeof(ps->pools));
	ps->npools = 0;
}

void job_pool_init(struct job_pools *ps, struct job_env *env)
{
	memset(ps, 0, sizeof(*ps));
	ps->env = env;
}

void job_pool_start(struct job_pools *ps)
{
	if (!ps->refill)
		ps->refill = evtimer_new(ps->env->base, job_pool_refill_cb, ps);
	job_pool_clear(ps, true);
	job_pool_make(ps);
	job_pool_schedule(ps, 0);
}

void job_pool_reset(struct job_pools *ps)
{
	job_pool_clear(ps, true);
	if (ps->refill)
		job_pool_start(ps);
}

void job_pool_kick(struct job_pools *ps)
{
	job_pool_schedule(ps, ps->backoff_ms);
}

void job_pool_engine_ok(struct job_pools *ps)
{
	ps->backoff_ms = 0;
}

void job_pool_stop(struct job_pools *ps)
{
	job_pool_clear(ps, true);
	if (ps->refill)
		event_free(ps->refill);
	ps->refill = NULL;
}

void job_pool_fini(struct job_pools *ps)
{
	job_pool_clear(ps, false);
	if (ps->refill)
		event_free(ps->refill);
	ps->refill = NULL;
}
