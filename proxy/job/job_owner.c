/*
 * job_owner: what a job's owner and the manager do to it (see job.h and
 * job_int.h): give it its statement (at once, or held until the manager
 * has room for it), cancel, pause and detach.
 */
#include "proxy/job/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "proxy/job/job_ctl.h"
#include "proxy/job/job_frame.h"
#include "proxy/job/job_impl.h"
#include "proxy/job/relay.h"
#include "proxy/timeval.h"
#include "launch/launcher.h"

/* The owner and the statement (the job frame is encoded now: req is only borrowed). */
static void job_take(struct job *j, const struct job_request *req, const struct job_events *ev, void *arg)
{
	j->lost = NULL;
	j->ev = ev;
	j->arg = arg;
	j->user = req->user;
	j->budget = req->budget;
	free(j->user_name);
	j->user_name = strdup(req->user_name ? req->user_name : "");
	if (!j->user_name && !j->pend_code)
		job_fail_later(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_NONE, "out of memory");
	j->t_asked = monotonic_ns();
	if (j->pend_code)
		return;
	j->limits = *req->limits;
	j->copy_ok = req->copy;
	j->copy_header = req->copy && req->copy_header;
	j->no_position = req->rewritten;
	if (job_frame_job(&j->jobframe, req) < 0)
		job_fail_later(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED,
			       "the statement and its parameters are too large for one job");
	/* A runner already connected gets its user's kept session now (its limits set: the memory watch needs them). */
	for (int i = 0; j->user_name && i < JOB_MAX_RELAYS; i++)
		relay_own(j->relays[i], j->user_name);
}

/* RUNNING (counted), its kill deadline armed, and the statement sent once the runner is there. */
static void job_go(struct job *j)
{
	struct timeval tv;

	if (!job_set_state(j, JOB_RUNNING))
		return;
	if (j->pend_code) {
		if (j->launch)
			launcher_kill(j->launch);
		return;
	}
	job_observe(j->env, JOB_PHASE_QUEUE_WAIT, j->t_asked);
	j->t_admit = monotonic_ns();
	tv = ms_timeval(j->limits.timeout_ms + j->env->cfg->kill_margin_ms);
	evtimer_add(j->deadline, &tv);
	job_send_frame(j);
}

void job_attach(struct job *j, const struct job_request *req, const struct job_events *ev, void *arg)
{
	job_take(j, req, ev, arg);
	job_go(j);
}

void job_hold(struct job *j, const struct job_request *req, const struct job_events *ev, void *arg, job_lost_fn lost,
	      void *lost_arg)
{
	job_take(j, req, ev, arg);
	job_set_state(j, JOB_HELD);
	j->target = req->target;
	free(j->target_name);
	j->target_name = strdup(req->target->name); /* NULL: the console shows none until job_prepare */
	j->lost = lost;
	j->lost_arg = lost_arg;
}

void job_release_held(struct job *j)
{
	const struct airlock_target *target = j->target;

	j->lost = NULL;
	if (!j->pend_code && job_prepare(j, target, j->limits.memory_mb, j->limits.nano_cpus, j->limits.pids) < 0)
		job_fail_later(j, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_NONE,
			       "the runner could not be prepared (see the airlock log)");
	job_go(j);
}

void job_cancel(struct job *j)
{
	struct wbuf b;

	/* Asked once: a cancel went to the runner, or a CANCELED failure waits to be told. */
	if (j->state == JOB_DONE || j->state == JOB_CANCELING || j->pend_code == AIRLOCK_E_CANCELED)
		return;
	if (!j->ctl || j->jobframe.data) {
		/* The runner has not received the job yet: stop it before it runs anything. */
		job_fail_later(j, AIRLOCK_E_CANCELED, AIRLOCK_N_NONE, "canceling statement due to user request");
		if (j->launch)
			launcher_kill(j->launch);
		return;
	}
	if (!job_set_state(j, JOB_CANCELING))
		return;
	wbuf_init(&b);
	frame_begin(&b, FRAME_CANCEL);
	frame_end(&b);
	if (!b.failed)
		job_ctl_write(j->ctl, b.data, b.len);
	wbuf_free(&b);
}

void job_pause(struct job *j, bool paused)
{
	j->paused = paused;
	/* A canceled statement's remaining frames are read and dropped (job_mem_exceeded). */
	if (!j->ctl || j->jobframe.data || j->mem_over)
		return;
	job_ctl_pause(j->ctl, paused);
	if (!paused) {
		/* Frames may already be buffered: process them now. */
		job_ctl_process(j->ctl);
	}
}

/* What a detached job still running tells: nothing. */
static const struct job_events job_no_events;

/* A detached job's backend has exited: it ends, unheard, and frees itself. */
static void job_detached_gone(struct job *j)
{
	struct timeval zero = {0, 0};

	job_finish(j, NULL);
	evtimer_add(j->defer, &zero);
}

void job_detach(struct job *j)
{
	struct timeval zero = {0, 0};
	bool was_done = j->state == JOB_DONE;

	j->ev = &job_no_events;
	j->arg = NULL;
	j->pend_code = AIRLOCK_E_NONE;
	/* Its backend may still run the statement: the job keeps its slot until the backend is done. */
	if (j->draining || (!was_done && job_drain(j, job_detached_gone)))
		return;
	job_finish(j, NULL); /* no event goes out */
	if (!was_done && j->launch)
		launcher_kill(j->launch);
	j->pend_code = AIRLOCK_E_NONE;
	evtimer_add(j->defer, &zero);
}
