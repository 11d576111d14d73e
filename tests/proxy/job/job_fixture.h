/*
 * job_fixture: what the job tests share: a real event loop, a config with
 * a job_dir of the test's own, and a real launcher that cannot start a
 * container (the OCI launcher with no root filesystem: every launch ends
 * with IMAGE_UNAVAILABLE on a later loop pass, and no runtime is run).
 * That drives the job machinery's own logic (states, counts, queue, pool,
 * admission) with nothing mocked; what needs a database or a container is
 * the end-to-end suite's.
 */
#ifndef AIRLOCK_TESTS_PROXY_JOB_JOB_FIXTURE_H
#define AIRLOCK_TESTS_PROXY_JOB_JOB_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "conf/config.h"
#include "launch/launcher.h"
#include "proxy/job/job.h"
#include "proxy/job/job_int.h"
#include "tests/conf/conf_fixture.h"

struct jfix {
	struct event_base *base;
	struct airlock_config *cfg;
	struct launcher *launcher;
	struct job_env env;
	char root[64];     /* the test's directory: job_dir and the launcher's state below it */
	unsigned finished; /* env.on_finished calls */
	unsigned started;  /* env.on_started calls */
};

/* What one owner saw of its job. */
struct owner {
	unsigned done;
	bool ok;
	enum airlock_err code;
	char sqlstate[6];
	int order; /* the fixture's count of on_done calls when this one came */
};

__attribute__((unused)) static int jfix_done_order;

__attribute__((unused)) static void owner_done(void *arg, const struct job_result *r)
{
	struct owner *o = arg;

	o->done++;
	o->ok = r->ok;
	o->code = r->code;
	snprintf(o->sqlstate, sizeof(o->sqlstate), "%s", r->sqlstate ? r->sqlstate : "");
	o->order = ++jfix_done_order;
}

__attribute__((unused)) static const struct job_events owner_events = {.on_done = owner_done};

__attribute__((unused)) static void jfix_finished(void *arg)
{
	((struct jfix *)arg)->finished++;
}

__attribute__((unused)) static void jfix_started(void *arg)
{
	((struct jfix *)arg)->started++;
}

/* extra: more [server] lines. */
__attribute__((unused)) static struct jfix *jfix_new(const char *extra)
{
	struct jfix *f = calloc(1, sizeof(*f));
	struct config_errors errs = {0};
	char text[4096], state[128];
	struct oci_options o = {.runtime = "/bin/false", .state_dir = state};

	snprintf(f->root, sizeof(f->root), "/tmp/airlock-jobtest-XXXXXX");
	if (!mkdtemp(f->root))
		abort();
	snprintf(state, sizeof(state), "%s/state", f->root);
	mkdir(state, 0700);
	snprintf(text, sizeof(text),
		 "[server]\n"
		 "pg_listen = 127.0.0.1:6432\n"
		 "runner_image = " DIGEST "\n"
		 "job_dir = %s\n"
		 "%s"
		 "\n"
		 "[hosts]\n"
		 "allow = 127.0.0.1\n"
		 "\n" SHOP_TARGET_AND_AGENT,
		 f->root, extra ? extra : "");
	setup_data(NULL);
	f->cfg = config_load_string(text, data_dir, &errs);
	for (size_t i = 0; i < errs.n; i++)
		fprintf(stderr, "config: %s\n", errs.msg[i]);
	if (!f->cfg)
		abort();
	f->base = event_base_new();
	f->launcher = launcher_new_oci(f->base, &o);
	if (!f->base || !f->launcher)
		abort();
	f->env = (struct job_env){
		.base = f->base,
		.launcher = f->launcher,
		.cfg = f->cfg,
		.on_started = jfix_started,
		.on_finished = jfix_finished,
		.hook_arg = f,
	};
	jfix_done_order = 0;
	return f;
}

/* Runs the loop's ready work n times without blocking. */
__attribute__((unused)) static void jfix_pump(struct jfix *f, int n)
{
	for (int i = 0; i < n; i++)
		event_base_loop(f->base, EVLOOP_NONBLOCK);
}

/* Runs the loop for about ms milliseconds (timers fire). */
__attribute__((unused)) static void jfix_run_ms(struct jfix *f, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	event_base_loopexit(f->base, &tv);
	event_base_dispatch(f->base);
}

/* A request for the config's user agent. */
__attribute__((unused)) static struct job_request jfix_request(struct jfix *f, const void *user)
{
	const struct airlock_user *u = config_find_user(f->cfg, "agent");

	return (struct job_request){.target = u->target, .limits = &u->limits, .sql = "SELECT 1", .user = user};
}

__attribute__((unused)) static void jfix_free(struct jfix *f)
{
	char cmd[128];

	launcher_free(f->launcher);
	job_free_all(&f->env);
	job_dbs_fini(&f->env);
	event_base_free(f->base);
	config_free(f->cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", f->root);
	free(f);
}

#endif
