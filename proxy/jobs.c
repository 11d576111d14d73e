/*
 * jobs: the job manager, one per server (the struct jobs of job.h). It
 * admits a statement (the max_jobs capacity, the host allowlist), finds
 * it a job (an idle one from the warm pool, else a new one) and attaches
 * the owner; swaps the config on reload; frees everything at shutdown.
 * It sits above job_pool and job, and neither of them knows it.
 */
#include "proxy/job.h"

#include <stdlib.h>

#include "proxy/job_dir.h"
#include "proxy/job_int.h"
#include "proxy/job_pool.h"

struct jobs {
	struct job_env env;
	struct job_pools pools;
};

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
		.hook_arg = js,
	};
	job_pool_init(&js->pools, &js->env);
	return js;
}

void jobs_set_config(struct jobs *js, const struct airlock_config *cfg)
{
	js->env.cfg = cfg;
	job_pool_reset(&js->pools);
}

void jobs_start_pool(struct jobs *js)
{
	job_pool_start(&js->pools);
}

void jobs_stop_pool(struct jobs *js)
{
	job_pool_stop(&js->pools);
}

void jobs_free(struct jobs *js)
{
	job_pool_fini(&js->pools);
	job_free_all(&js->env);
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

struct job *job_start(struct jobs *js, const struct job_request *req, const struct job_events *ev, void *arg)
{
	const struct airlock_config *cfg = js->env.cfg;
	struct job *j;

	/* Refusals that need no container never take or start one. */
	if (js->env.running >= cfg->max_jobs || !config_host_allowed(cfg, req->target->host)) {
		j = job_new(&js->env);
		if (!j)
			return NULL;
		if (js->env.running >= cfg->max_jobs)
			job_fail_later(
				j, "53300", AIRLOCK_E_BUSY,
				"BUSY: airlock is running as many statements as it is allowed to; retry shortly");
		else
			job_fail_later(j, "42501", AIRLOCK_E_HOST_NOT_ALLOWED,
				       "HOST_NOT_ALLOWED: the target database host is not in the host allowlist");
	} else {
		j = job_pool_take(&js->pools, req->target, req->limits);
		if (!j) {
			j = job_new(&js->env);
			if (!j)
				return NULL;
			if (job_prepare(j, req->target, req->limits->memory_mb, req->limits->nano_cpus,
					req->limits->pids) < 0)
				job_fail_later(j, "58000", AIRLOCK_E_EXECUTION_FAILED,
					       "the runner could not be prepared (see the airlock log)");
		}
		job_pool_kick(&js->pools);
	}
	job_attach(j, req, ev, arg);
	return j;
}
