/*
 * job_pool: warm runners (see job_pool.h). Each pool's idle jobs are an
 * array sized to its cap when the pools are made. One timer does the
 * pools' work: it retires what is too old or no longer wanted, fills each
 * pool up to what it wants within its starts in flight, and stops at the
 * first failure, which backs off (500 ms, doubling, at most
 * JOB_POOL_BACKOFF_MAX_MS). While a pool is below what it wants, the timer
 * comes back every JOB_POOL_FILL_MS; otherwise every JOB_POOL_TICK_MS.
 */
#include "proxy/job/job_pool.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <event2/event.h>

#include "proxy/job/job_int.h"
#include "proxy/log.h"
#include "proxy/timeval.h"

#define JOB_POOL_FILL_MS 5
#define JOB_POOL_KICK_MS 10
#define JOB_POOL_TICK_MS 500

/* The refill in delay_ms; sooner replaces later unless a back-off is running. */
static void job_pool_schedule(struct job_pools *ps, uint32_t delay_ms)
{
	struct timeval tv = ms_timeval(delay_ms);
	int64_t due = monotonic_ms() + delay_ms;

	if (!ps->refill || ps->npools == 0)
		return;
	if (evtimer_pending(ps->refill, NULL)) {
		if (ps->backoff_ms || ps->due_ms <= due)
			return;
		evtimer_del(ps->refill);
	}
	ps->due_ms = due;
	evtimer_add(ps->refill, &tv);
}

/*
 * A slot was lost before use: refill later, slower each time. The back-off
 * replaces a sooner tick: kept behind it, a stopped engine was asked for
 * a runner of every slot on each tick, and every request sent while it
 * stops or starts again is one more container to account for.
 */
static void job_pool_slot_failed(struct job_pools *ps)
{
	ps->backoff_ms = ps->backoff_ms ? ps->backoff_ms * 2 : 500;
	if (ps->backoff_ms > JOB_POOL_BACKOFF_MAX_MS)
		ps->backoff_ms = JOB_POOL_BACKOFF_MAX_MS;
	if (ps->refill)
		evtimer_del(ps->refill);
	job_pool_schedule(ps, ps->backoff_ms);
}

/* Removes the idle job at k, keeping the others in the order they were made. */
static struct job *take_at(struct job_pool *p, unsigned k)
{
	struct job *j = p->idle[k];

	memmove(&p->idle[k], &p->idle[k + 1], (size_t)(p->nidle - k - 1) * sizeof(p->idle[0]));
	memmove(&p->made_ms[k], &p->made_ms[k + 1], (size_t)(p->nidle - k - 1) * sizeof(p->made_ms[0]));
	p->nidle--;
	return j;
}

/*
 * A statement asked p; empty (or emptied by it), p wants one more, up to
 * its cap, unless starts are failing (a back-off runs): more attempts
 * against a runtime that is down help nobody.
 */
static void job_pool_demand(struct job_pools *ps, struct job_pool *p, int64_t now)
{
	p->demand_ms = now;
	if (p->nidle == 0 && p->want < p->cap && !ps->backoff_ms)
		p->want++;
}

/* Retires what p no longer keeps: runners past pool_max_age_ms, and extras once demand stopped. */
static void job_pool_retire(struct job_pools *ps, struct job_pool *p, int64_t now)
{
	const struct airlock_config *cfg = ps->env->cfg;

	for (unsigned k = 0; k < p->nidle;) {
		if (now - p->made_ms[k] >= cfg->pool_max_age_ms)
			job_discard(take_at(p, k));
		else
			k++;
	}
	/* One fewer per quiet pool_idle_ms, however seldom this runs (a back-off spaces the ticks out). */
	while (p->want > cfg->pool_min && now - p->demand_ms >= cfg->pool_idle_ms) {
		p->want--;
		p->demand_ms += cfg->pool_idle_ms;
	}
	while (p->nidle > p->want)
		job_discard(take_at(p, 0)); /* the oldest */
}

/* Runners of p whose runner has not connected yet: starts in flight. */
static unsigned job_pool_starting(const struct job_pool *p)
{
	unsigned n = 0;

	for (unsigned k = 0; k < p->nidle; k++)
		n += !job_runner_connected(p->idle[k]);
	return n;
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
	int64_t now = monotonic_ms();
	bool short_of = false;

	for (size_t i = 0; i < ps->npools; i++) {
		struct job_pool *p = &ps->pools[i];
		unsigned starting;

		job_pool_retire(ps, p, now);
		starting = job_pool_starting(p);
		while (p->nidle < p->want && starting < ps->env->cfg->pool_refill_concurrency &&
		       (!ps->spare || ps->spare(ps->spare_arg, p->target) > 0)) {
			struct job *j = job_new(ps->env);

			if (!j)
				return;
			if (job_prepare(j, p->target, p->memory_mb, p->nano_cpus, p->pids) < 0) {
				job_discard(j);
				job_pool_slot_failed(ps);
				return;
			}
			job_watch(j, job_pool_lost, ps);
			p->made_ms[p->nidle] = now;
			p->idle[p->nidle++] = j;
			starting++;
		}
		/* Short of what it wants, and allowed more: come back soon. */
		short_of |= p->nidle < p->want && (!ps->spare || ps->spare(ps->spare_arg, p->target) > 0);
	}
	job_pool_schedule(ps, short_of ? JOB_POOL_FILL_MS : JOB_POOL_TICK_MS);
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
		if (p->nidle == 0) {
			job_pool_demand(ps, p, monotonic_ms());
			return NULL;
		}
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
		job_pool_demand(ps, p, monotonic_ms());
		return j;
	}
	return NULL;
}

void job_pool_counts(const struct job_pools *ps, const char *target, unsigned *ready, unsigned *starting)
{
	*ready = *starting = 0;
	for (size_t i = 0; i < ps->npools; i++) {
		const struct job_pool *p = &ps->pools[i];

		if (strcmp(p->target->name, target) != 0)
			continue;
		for (unsigned k = 0; k < p->nidle; k++) {
			if (job_runner_connected(p->idle[k]))
				(*ready)++;
			else
				(*starting)++;
		}
	}
}

unsigned job_pool_idle_of(const struct job_pools *ps, const char *target)
{
	unsigned ready, starting;

	job_pool_counts(ps, target, &ready, &starting);
	return ready + starting;
}

bool job_pool_shed(struct job_pools *ps, const char *target)
{
	struct job_pool *most = NULL;

	for (size_t i = 0; i < ps->npools; i++) {
		struct job_pool *p = &ps->pools[i];

		if (p->nidle && strcmp(p->target->name, target) == 0 && (!most || p->nidle > most->nidle))
			most = p;
	}
	if (!most)
		return false;
	if (most->want)
		most->want--;
	job_discard(take_at(most, 0));
	return true;
}

/* Adds the pool for target and the shape l unless it exists (or target is NULL, or the table is full). */
static void job_pool_add_shape(struct job_pools *ps, const struct airlock_target *target,
			       const struct airlock_limits *l)
{
	const struct airlock_config *cfg = ps->env->cfg;
	uint32_t cap = cfg->pool_max > cfg->pool_min ? cfg->pool_max : cfg->pool_min;
	struct job **idle = NULL;
	int64_t *made = NULL;
	size_t i;

	if (!target)
		return;
	for (i = 0; i < ps->npools; i++)
		if (ps->pools[i].target == target && ps->pools[i].memory_mb == l->memory_mb &&
		    ps->pools[i].nano_cpus == l->nano_cpus && ps->pools[i].pids == l->pids)
			return;
	if (ps->npools == JOB_MAX_POOLS)
		return;
	if (!cap)
		return;
	idle = calloc(cap, sizeof(*idle));
	made = calloc(cap, sizeof(*made));
	if (!idle || !made) {
		free(idle);
		free(made);
		log_error("no memory for a warm pool of %u runners", cap);
		return;
	}
	ps->pools[ps->npools++] = (struct job_pool){
		.target = target,
		.memory_mb = l->memory_mb,
		.nano_cpus = l->nano_cpus,
		.pids = l->pids,
		.idle = idle,
		.made_ms = made,
		.cap = cap,
		.want = cfg->pool_min,
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
		free(p->made_ms);
	}
	memset(ps->pools, 0, sizeof(ps->pools));
	ps->npools = 0;
}

void job_pool_init(struct job_pools *ps, struct job_env *env)
{
	memset(ps, 0, sizeof(*ps));
	ps->env = env;
}

void job_pool_set_spare(struct job_pools *ps, job_pool_spare_fn spare, void *arg)
{
	ps->spare = spare;
	ps->spare_arg = arg;
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

/*
 * A statement took a runner (or found none): refill soon, not at once.
 * Preparing a runner (its directory, sockets and the runtime's process)
 * takes the loop for a moment, which the statement that just took one
 * would otherwise wait for: measured, a warm statement cost 5.2 ms with
 * the refill at once and 2 ms with it JOB_POOL_KICK_MS later.
 */
void job_pool_kick(struct job_pools *ps)
{
	job_pool_schedule(ps, ps->backoff_ms ? ps->backoff_ms : JOB_POOL_KICK_MS);
}

void job_pool_engine_ok(struct job_pools *ps)
{
	if (!ps->backoff_ms)
		return;
	ps->backoff_ms = 0;
	job_pool_schedule(ps, JOB_POOL_KICK_MS);
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
