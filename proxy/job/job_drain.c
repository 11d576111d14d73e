/*
 * job_drain: how a job ends when its backend's statement outlives what
 * the job hears from its runner: the memory watch's cancel, which lands
 * at the backend's next interrupt check, and a runner stopped at the
 * deadline or an owner gone while the backend still works (job_impl.h,
 * job_mem.h). The job keeps its max_jobs slot and its target's
 * connection until the backend is done.
 */
#include <event2/listener.h>

#include "launch/launcher.h"
#include "proxy/job/job_ctl.h"
#include "proxy/job/job_impl.h"
#include "proxy/job/job_mem.h"
#include "proxy/job/relay.h"
#include "proxy/log.h"

/*
 * The memory watch canceled the backend's statement. The job waits for the
 * runner to report the statement's end (the backend stops at its next
 * interrupt check), keeping its slot and connection meanwhile; what the
 * runner sends until then goes nowhere, and back-pressure no longer holds
 * it (the owner's pause would stall the runner before its end arrives).
 */
void job_mem_exceeded(struct job *j)
{
	if (j->state == JOB_RUNNING)
		job_set_state(j, JOB_CANCELING);
	if (j->ctl && j->paused) {
		job_ctl_pause(j->ctl, false);
		job_ctl_process(j->ctl);
	}
}

/* See job_impl.h; the connection stays counted against its target until the end. */
bool job_drain(struct job *j, void (*gone)(struct job *j))
{
	if (!job_state_streams(j->state) || !job_mem_await_exit(j, gone, j->limits.timeout_ms))
		return false;
	j->draining = true;
	log_info("job %s: its statement ends before its backend's; the backend is canceled and waited for", j->id);
	if (j->state == JOB_RUNNING)
		job_set_state(j, JOB_CANCELING);
	job_ctl_free(j->ctl);
	j->ctl = NULL;
	relay_free_all(j->relays, JOB_MAX_RELAYS);
	if (j->db_lst)
		evconnlistener_disable(j->db_lst);
	if (j->launch)
		launcher_kill(j->launch);
	return true;
}
