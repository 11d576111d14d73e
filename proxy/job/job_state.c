/*
 * job_state: the table of a job's allowed moves and the one function that
 * moves it (see job_state.h); what a job shows the manager (job_int.h).
 */
#include "proxy/job/job_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "launch/launcher.h"
#include "proxy/job/job_impl.h"
#include "proxy/log.h"
#include "proxy/strict.h"

#define TO(st) (1u << JOB_##st)

static const char *const names[] = {
#define JOB_STATE_NAME(name) #name,
	JOB_STATES(JOB_STATE_NAME)
#undef JOB_STATE_NAME
};

/* For each state, the states it may move to. */
static const unsigned allowed[JOB_NSTATES] = {
	[JOB_NEW] = TO(IDLE) | TO(HELD) | TO(RUNNING) | TO(DONE),
	[JOB_IDLE] = TO(RUNNING) | TO(DONE),
	[JOB_HELD] = TO(RUNNING) | TO(DONE),
	[JOB_RUNNING] = TO(CANCELING) | TO(DONE),
	[JOB_CANCELING] = TO(DONE),
	[JOB_DONE] = 0,
};

const char *job_state_name(enum job_state st)
{
	return (unsigned)st < JOB_NSTATES ? names[st] : "?";
}

bool job_state_allowed(enum job_state from, enum job_state to)
{
	return (unsigned)from < JOB_NSTATES && (unsigned)to < JOB_NSTATES && (allowed[from] & (1u << to));
}

/*
 * A forbidden move: airlockd's bug. The job goes no further: an owner owed
 * a result is told on the next loop pass (never from inside the call that
 * tried the move), and the container, if any, is killed.
 */
static void job_state_bug(struct job *j, enum job_state to)
{
	struct timeval zero = {0, 0};

	log_error("job %s: BUG: state %s -> %s is not allowed; the job is failed", j->id, job_state_name(j->state),
		  job_state_name(to));
	if (AIRLOCK_STRICT)
		abort();
	if (job_state_owed(j->state)) {
		j->pend_native = AIRLOCK_N_PG_INTERNAL_ERROR;
		j->pend_code = AIRLOCK_E_EXECUTION_FAILED;
		snprintf(j->pend_message, sizeof(j->pend_message), "internal error: the job's state was inconsistent");
		evtimer_add(j->defer, &zero);
	}
	if (j->launch)
		launcher_kill(j->launch);
}

bool job_set_state(struct job *j, enum job_state to)
{
	enum job_state from = j->state;

	if (!job_state_allowed(from, to)) {
		job_state_bug(j, to);
		return false;
	}
	j->state = to;
	if (to == JOB_RUNNING) {
		j->env->running++;
		job_user_add(j->env, j->user);
	} else if (job_state_streams(from) && !job_state_streams(to)) {
		j->env->running--;
		job_user_sub(j->env, j->user);
		if (j->env->on_finished)
			j->env->on_finished(j->env->hook_arg);
	}
	return true;
}

const struct job *job_next(const struct job *j)
{
	return j->next;
}

void job_info(const struct job *j, uint64_t now, struct jobs_info *info)
{
	uint64_t since = j->t_asked ? j->t_asked : j->t_launch;

	*info = (struct jobs_info){
		.id = j->id,
		.state = job_state_name(j->state),
		.age_ms = since && now > since ? (now - since) / 1000000u : 0,
		.runner_uid = (uint32_t)j->runner_uid,
		.target = j->target_name ? j->target_name : "",
	};
}

bool job_busy_for(const struct job *j, const char *target)
{
	return job_state_streams(j->state) && j->target_name && strcmp(j->target_name, target) == 0;
}
