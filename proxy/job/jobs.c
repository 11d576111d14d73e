/*
 * jobs: the job manager, one per server (the struct jobs of job.h). It
 * admits a statement (the host allowlist, the max_jobs capacity, the
 * target's max_db_connections, with a fair queue for what does not fit
 * yet), finds it a job (an idle one from
 * the warm pool, else a new one) and attaches the owner; swaps the config
 * on reload; frees everything at shutdown. It sits above job_pool,
 * job_queue and job, and none of them knows it.
 */
#include "proxy/job/job.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/job/job_dir.h"
#include "proxy/job/bsess.h"
#include "proxy/job/job_int.h"
#include "proxy/job/job_pool.h"
#include "proxy/job/job_queue.h"
#include "proxy/timeval.h"

#include <event2/event.h>

struct jobs {
	struct job_env env;
	struct job_pools pools;
	struct job_queue queue;
	struct event *dispatch; /* room freed: release what waits */
};

/* A job of user may run as far as its own max_jobs goes (job_queue_room_fn). */
static bool user_room(void *arg, const void *user, uint32_t user_max)
{
	struct jobs *js = arg;

	return !user || !user_max || job_user_running(&js->env, user) < user_max;
}

/*
 * A statement for target may get a runner now, as far as the target's
 * backend connections go: under max_db_connections, or with a ready
 * runner of that target to take, or to shed for one of its own shape.
 */
static bool db_room(struct jobs *js, const struct airlock_target *t)
{
	return !t || !t->max_db_connections || job_db_open(&js->env, t->name) < t->max_db_connections ||
	       job_pool_idle_of(&js->pools, t->name) > 0 || bsess_idle_count(js->env.bsess, t->name) > 0;
}

/* A new runner for target is about to connect: at the bound, a ready one of another shape goes first. */
static void db_make_room(struct jobs *js, const struct airlock_target *t)
{
	/* An idle kept session is the cheaper one to lose: the next login is a few ms, a runner a container. */
	if (t && t->max_db_connections && job_db_open(&js->env, t->name) >= t->max_db_connections &&
	    !bsess_shed(js->env.bsess, t->name))
		job_pool_shed(&js->pools, t->name);
}

/* How far target's ready runners may grow (job_pool_spare_fn): statements waiting for it come first. */
static unsigned db_spare(void *arg, const struct airlock_target *t)
{
	struct jobs *js = arg;
	size_t used;

	if (!t->max_db_connections)
		return UINT_MAX;
	used = job_db_open(&js->env, t->name) + job_queue_waiting(&js->queue, t->name);
	return used >= t->max_db_connections ? 0 : t->max_db_connections - (unsigned)used;
}

static enum job_room waiter_room(void *arg, const struct job_queued *e)
{
	struct jobs *js = arg;

	if (!user_room(js, e->user, e->user_max))
		return JOB_ROOM_USER;
	if (!db_room(js, e->target))
		return JOB_ROOM_DB;
	return JOB_ROOM_OK;
}

/* Waiting statements take the room that finished ones left. */
static void jobs_dispatch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct jobs *js = arg;
	struct job *j;

	(void)fd;
	(void)what;
	while (js->env.running < js->env.cfg->max_jobs && job_user_reserve(&js->env) &&
	       (j = job_queue_next(&js->queue))) {
		db_make_room(js, job_target(j));
		job_release_held(j);
		job_pool_kick(&js->pools);
	}
}

static void jobs_finished(void *arg)
{
	struct jobs *js = arg;

	if (job_queue_len(&js->queue) && js->dispatch)
		event_active(js->dispatch, 0, 0);
}

static void jobs_engine_ok(void *arg)
{
	struct jobs *js = arg;

	job_pool_engine_ok(&js->pools);
}

struct jobs *jobs_new(struct event_base *base, struct evdns_base *dns, struct launcher *launcher,
		      const struct airlock_config *cfg)
{
	struct jobs *js = calloc(1, sizeof(*js));

	if (!js)
		return NULL;
	js->env = (struct job_env){
		.base = base,
		.dns = dns,
		.launcher = launcher,
		.cfg = cfg,
		.on_started = jobs_engine_ok,
		.on_finished = jobs_finished,
		.hook_arg = js,
	};
	job_pool_init(&js->pools, &js->env);
	job_pool_set_spare(&js->pools, db_spare, js);
	job_queue_init(&js->queue, &js->env, waiter_room, js);
	js->dispatch = event_new(base, -1, 0, jobs_dispatch_cb, js);
	js->env.bsess = bsess_pool_new(&js->env);
	if (!js->dispatch || !js->env.bsess) {
		if (js->dispatch)
			event_free(js->dispatch);
		free(js);
		return NULL;
	}
	return js;
}

void jobs_set_config(struct jobs *js, const struct airlock_config *cfg)
{
	js->env.cfg = cfg;
	job_pool_reset(&js->pools);
	if (!cfg->queue_wait_ms)
		job_queue_flush(&js->queue, "BUSY: queue_wait_ms is now 0; retry shortly");
	event_active(js->dispatch, 0, 0); /* max_jobs may have grown */
}

void jobs_observe(struct jobs *js, job_observe_fn fn, void *arg)
{
	js->env.observe = fn;
	js->env.observe_arg = arg;
}

void jobs_start_pool(struct jobs *js)
{
	job_pool_start(&js->pools);
}

void jobs_stop_pool(struct jobs *js)
{
	job_pool_stop(&js->pools);
	job_queue_flush(&js->queue, "BUSY: airlock is shutting down");
}

void jobs_free(struct jobs *js)
{
	/* Nothing is dispatched any more: sessions closing below tell nobody. */
	js->env.on_finished = NULL;
	job_queue_fini(&js->queue);
	event_free(js->dispatch);
	job_pool_fini(&js->pools);
	job_free_all(&js->env);
	bsess_pool_free(js->env.bsess);
	job_users_fini(&js->env);
	job_dbs_fini(&js->env);
	job_scram_fini(&js->env);
	free(js);
}

int jobs_sweep_dir(const char *job_dir)
{
	return job_dir_sweep(job_dir);
}

unsigned jobs_live(const struct jobs *js)
{
	return js->env.live;
}

unsigned jobs_db_open(const struct jobs *js, const char *target)
{
	return job_db_open(&js->env, target);
}

void jobs_target_counts(const struct jobs *js, const char *target, struct jobs_target_counts *out)
{
	out->connections = job_db_open(&js->env, target);
	job_pool_counts(&js->pools, target, &out->ready, &out->starting);
	out->busy = 0;
	for (const struct job *j = js->env.all; j; j = job_next(j))
		out->busy += job_busy_for(j, target);
	out->waiting = (unsigned)job_queue_waiting(&js->queue, target);
	out->kept = js->env.bsess ? bsess_idle_count(js->env.bsess, target) : 0;
}

unsigned jobs_ready(const struct jobs *js, const char *target)
{
	unsigned ready, starting;

	job_pool_counts(&js->pools, target, &ready, &starting);
	return ready;
}

size_t jobs_queue_len(const struct jobs *js)
{
	return job_queue_len(&js->queue);
}

void jobs_each(const struct jobs *js, void (*fn)(void *arg, const struct jobs_info *info), void *arg)
{
	uint64_t now = monotonic_ns();

	for (const struct job *j = js->env.all; j; j = job_next(j)) {
		struct jobs_info info;

		job_info(j, now, &info);
		fn(arg, &info);
	}
}

/* A job that fails on the next pass without a container. */
static struct job *job_refused(struct jobs *js, const struct job_request *req, const struct job_events *ev, void *arg,
			       enum airlock_err code, enum airlock_native native, const char *msg)
{
	struct job *j = job_new(&js->env);

	if (!j)
		return NULL;
	job_fail_later(j, code, native, msg);
	job_attach(j, req, ev, arg);
	return j;
}

bool jobs_user_has_room(struct jobs *js, const void *user, uint32_t user_max)
{
	return user_room(js, user, user_max);
}

struct job *job_start(struct jobs *js, const struct job_request *req, const struct job_events *ev, void *arg)
{
	const struct airlock_config *cfg = js->env.cfg;
	bool user_full, db_full;
	struct job *j;

	/* Refusals that need no container never take or start one. */
	if (!config_host_allowed(cfg, req->target->host))
		return job_refused(js, req, ev, arg, AIRLOCK_E_HOST_NOT_ALLOWED, AIRLOCK_N_NONE,
				   "HOST_NOT_ALLOWED: the target database host is not in the host allowlist");
	if (!job_user_reserve(&js->env))
		return NULL;
	user_full = !user_room(js, req->user, req->user_max_jobs);
	db_full = !db_room(js, req->target);
	/*
	 * No room, for the server, the user or the target's connections, or
	 * others who could run already wait for it: wait too (behind them,
	 * fairly), or be told at once. Waiters with no room of their own (their
	 * user's or their target's) do not hold up the rest.
	 */
	if (js->env.running >= cfg->max_jobs || user_full || db_full || job_queue_runnable(&js->queue)) {
		if (cfg->queue_wait_ms) {
			j = job_new(&js->env);
			if (!j)
				return NULL;
			if (job_queue_add(&js->queue, j, req, ev, arg, cfg->queue_wait_ms) == 0) {
				job_pool_kick(&js->pools);
				event_active(js->dispatch, 0, 0);
				return j;
			}
			job_fail_later(j, AIRLOCK_E_BUSY, AIRLOCK_N_NONE,
				       "BUSY: too many statements wait for a runner already; retry shortly");
			job_attach(j, req, ev, arg);
			return j;
		}
		if (user_full)
			return job_refused(
				js, req, ev, arg, AIRLOCK_E_BUSY, AIRLOCK_N_NONE,
				"BUSY: this user already runs its max_jobs statements or cursors; retry shortly");
		if (db_full)
			return job_refused(js, req, ev, arg, AIRLOCK_E_BUSY, AIRLOCK_N_NONE,
					   "BUSY: the target's max_db_connections backend connections are all in use; "
					   "retry shortly");
		return job_refused(js, req, ev, arg, AIRLOCK_E_BUSY, AIRLOCK_N_NONE,
				   "BUSY: airlock is running as many statements as it is allowed to; retry shortly");
	}
	j = job_pool_take(&js->pools, req->target, req->limits);
	if (!j) {
		db_make_room(js, req->target);
		j = job_new(&js->env);
		if (!j)
			return NULL;
		if (job_prepare(j, req->target, req->limits->memory_mb, req->limits->nano_cpus, req->limits->pids) < 0)
			job_fail_later(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_NONE,
				       "the runner could not be prepared (see the airlock log)");
	}
	job_pool_kick(&js->pools);
	job_attach(j, req, ev, arg);
	return j;
}
