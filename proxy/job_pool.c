/*
 * job_pool: warm runners. For each target and resource shape (memory, CPU,
 * PIDs) of the configured users, pool_size containers are started ahead of
 * demand; their runners connect to the database and wait for a statement.
 * A job takes one (preferring a runner that is already connected) and a
 * refill starts its replacement. Slots that die before use are refilled
 * with a growing delay, so a stopped engine is not hammered.
 */
#include <stdlib.h>
#include <sys/time.h>

#include <event2/event.h>

#include "proxy/job_int.h"
#include "runner/launch/launcher.h"

void pool_remove(struct job *j)
{
	struct job_pool *p = j->pool;
	struct job **pp;

	if (!p)
		return;
	for (pp = &p->idle; *pp; pp = &(*pp)->next_idle) {
		if (*pp == j) {
			*pp = j->next_idle;
			p->nidle--;
			break;
		}
	}
	j->pool = NULL;
	j->next_idle = NULL;
}

void pool_discard(struct job *j)
{
	pool_remove(j);
	/* Never attached: nothing to report, nothing counted as running. */
	j->done = true;
	if (j->launch)
		launcher_kill(j->launch);
}

void pool_schedule(struct jobs *js, uint32_t delay_ms)
{
	struct timeval tv = {delay_ms / 1000, (delay_ms % 1000) * 1000};

	if (!js->refill || js->cfg->pool_size == 0 || evtimer_pending(js->refill, NULL))
		return;
	evtimer_add(js->refill, &tv);
}

void pool_slot_failed(struct jobs *js)
{
	js->backoff_ms = js->backoff_ms ? js->backoff_ms * 2 : 500;
	if (js->backoff_ms > POOL_BACKOFF_MAX_MS)
		js->backoff_ms = POOL_BACKOFF_MAX_MS;
	pool_schedule(js, js->backoff_ms);
}

static void pool_refill_cb(evutil_socket_t fd, short what, void *arg)
{
	struct jobs *js = arg;

	for (size_t i = 0; i < js->npools; i++) {
		struct job_pool *p = &js->pools[i];

		while (p->nidle < js->cfg->pool_size) {
			struct job *j = job_new_bare(js);

			if (!j)
				return;
			if (job_prepare(j, p->target, p->memory_mb, p->nano_cpus, p->pids) < 0) {
				job_maybe_free(j);
				pool_slot_failed(js);
				return;
			}
			j->pool = p;
			j->next_idle = p->idle;
			p->idle = j;
			p->nidle++;
		}
	}
}

struct job *pool_take(struct jobs *js, const struct airlock_target *target,
			     const struct airlock_limits *lim)
{
	for (size_t i = 0; i < js->npools; i++) {
		struct job_pool *p = &js->pools[i];
		struct job *best = NULL;

		if (p->target != target || p->memory_mb != lim->memory_mb || p->nano_cpus != lim->nano_cpus ||
		    p->pids != lim->pids)
			continue;
		for (struct job *j = p->idle; j; j = j->next_idle)
			if (!best || (j->ctl && !best->ctl))
				best = j;
		if (best)
			pool_remove(best);
		return best;
	}
	return NULL;
}

/* Adds the pool for target and the shape l unless it exists (or target is NULL, or the table is full). */
static void pool_add_shape(struct jobs *js, const struct airlock_target *target, const struct airlock_limits *l)
{
	size_t i;

	if (!target)
		return;
	for (i = 0; i < js->npools; i++)
		if (js->pools[i].target == target && js->pools[i].memory_mb == l->memory_mb &&
		    js->pools[i].nano_cpus == l->nano_cpus && js->pools[i].pids == l->pids)
			return;
	if (js->npools == JOB_MAX_POOLS)
		return;
	js->pools[js->npools++] = (struct job_pool){
		.target = target,
		.memory_mb = l->memory_mb,
		.nano_cpus = l->nano_cpus,
		.pids = l->pids,
	};
}

static void jobs_make_pools(struct jobs *js)
{
	const struct airlock_config *cfg = js->cfg;

	js->npools = 0;
	for (size_t u = 0; u < cfg->nusers; u++) {
		pool_add_shape(js, cfg->users[u].target, &cfg->users[u].limits);
		pool_add_shape(js, cfg->users[u].mysql_target, &cfg->users[u].limits);
	}
}

void jobs_start_pool(struct jobs *js)
{
	if (!js->refill)
		js->refill = evtimer_new(js->base, pool_refill_cb, js);
	jobs_make_pools(js);
	pool_schedule(js, 0);
}

