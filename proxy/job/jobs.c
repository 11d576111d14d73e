/*
 * jobs: the job manager, one per server (the struct jobs of job.h). It
 * admits a statement (the host allowlist, the max_jobs capacity, with a
 * fair queue for what does not fit yet), finds it a job (an idle one from
 * the warm pool, else a new one) and attaches the owner; swaps the config
 * on reload; frees everything at shutdown. It sits above job_pool,
 * job_queue and job, and none of them knows it.
 */
#include "proxy/job/job.h"

#include <stdlib.h>

#include "proxy/job/job_dir.h"
#include "proxy/job/job_int.h"
#include "proxy/job/job_pool.h"
#include "proxy/job/job_queue.h"

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

/* Waiting statements take the room that finished ones left. */
static void jobs_dispatch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct jobs *js = arg;
	struct job *j;

	(void)fd;
	(void)what;
	while (js->env.running < js->env.cfg->max_jobs && job_user_reserve(&js->env) &&
	       (j = job_queue_next(&js->queue))) {
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
	job_queue_init(&js->queue, &js->env, user_room, js);
	js->dispatch = event_new(base, -1, 0, jobs_dispatch_cb, js);
	if (!js->dispatch) {
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
	job_queue_fini(&js->queue);
	event_free(js->dispatch);
	job_pool_fini(&js->pools);
	job_free_all(&js->env);
	job_users_fini(&js->env);
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
	bool user_full;
	struct job *j;

	/* Refusals that need no container never take or start one. */
	if (!config_host_allowed(cfg, req->target->host))
		return job_refused(js, req, ev, arg, AIRLOCK_E_HOST_NOT_ALLOWED, AIRLOCK_N_NONE,
				   "HOST_NOT_ALLOWED: the target database host is not in the host allowlist");
	if (!job_user_reserve(&js->env))
		return NULL;
	user_full = !user_room(js, req->user, req->user_max_jobs);
	/*
	 * No room, for the server or for the user, or others who could run
	 * already wait for it: wait too (behind them, fairly), or be told at
	 * once. Waiters whose own user has no room do not hold up the rest.
	 */
	if (js->env.running >= cfg->max_jobs || user_full || job_queue_runnable(&js->queue)) {
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
		return job_refused(js, req, ev, arg, AIRLOCK_E_BUSY, AIRLOCK_N_NONE,
				   "BUSY: airlock is running as many statements as it is allowed to; retry shortly");
	}
	j = job_pool_take(&js->pools, req->target, req->limits);
	if (!j) {
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
