/*
 * job_state: where a job is in its life, and the one function that moves
 * it. Nothing else writes a job's state; the mover also keeps what goes
 * with it (the manager's count of running jobs and its "room freed" hook).
 *
 *   NEW        made (job_new): no directory, container or owner yet.
 *   IDLE       prepared (job_prepare): its container starts or runs and its
 *              runner may connect, but it has no owner: a warm runner.
 *   HELD       an owner and a statement, waiting in the manager's queue
 *              for room under max_jobs; no container yet.
 *   RUNNING    an owner and a statement, counted in env->running: the
 *              statement goes to the runner once it connects, and result
 *              frames stream to the owner (paused by the owner at will).
 *   CANCELING  RUNNING, and a cancel went to the runner: frames still
 *              stream until the runner's error (57014) or result.
 *   DONE       the final event went out, or never will (detached, lost,
 *              discarded): nothing more reaches an owner. Its runner is
 *              cut off; the job is freed once its container is gone.
 *
 * The moves (anything else is a bug):
 *
 *   NEW     -> IDLE       job_prepare: a container was asked for
 *   NEW     -> HELD       job_hold: no room, the statement waits
 *   NEW     -> RUNNING    job_attach with a failure recorded (refused,
 *                         BUSY, or a container that could not be prepared)
 *   NEW     -> DONE       job_discard: a warm runner that could not be prepared
 *   IDLE    -> RUNNING    job_attach: taken from the pool, or prepared for it
 *   IDLE    -> DONE       lost (container failed or exited, runner could not
 *                         reach the database) or discarded (retired, reload)
 *   HELD    -> RUNNING    job_release_held: room came
 *   HELD    -> DONE       failed while waiting (queue_wait_ms passed, queue
 *                         flushed, canceled) or detached
 *   RUNNING -> CANCELING  job_cancel after the runner has the statement
 *   RUNNING -> DONE       result, error, failure, timeout, memory limit, detach
 *   CANCELING -> DONE     the same
 *
 * Entering RUNNING counts the job in env->running; leaving RUNNING or
 * CANCELING uncounts it and calls env->on_finished. A forbidden move
 * changes nothing and is logged as a bug; strict builds (proxy/strict.h)
 * abort, others fail the job closed: a job that owes its owner a result
 * fails on the next loop pass, and its container is killed.
 *
 * Flags that are not the job's life stay beside the state: paused (the
 * owner's back-pressure, set in any state and applied once a runner
 * reads), copy_ok / copy_header (what the statement is), mem_tried.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_STATE_H
#define AIRLOCK_PROXY_JOB_JOB_STATE_H

#include <stdbool.h>

struct job;

/* The states, from one list so their names cannot drift. */
#define JOB_STATES(X) \
	X(NEW)        \
	X(IDLE)       \
	X(HELD)       \
	X(RUNNING)    \
	X(CANCELING)  \
	X(DONE)

enum job_state {
#define JOB_STATE_ENUM(name) JOB_##name,
	JOB_STATES(JOB_STATE_ENUM)
#undef JOB_STATE_ENUM
};
#define JOB_NSTATES (JOB_DONE + 1)

const char *job_state_name(enum job_state st);
/* Does the table allow from -> to? */
bool job_state_allowed(enum job_state from, enum job_state to);
/* Moves j to st; false (nothing moved, the bug logged and handled as above) when the table forbids it. */
bool job_set_state(struct job *j, enum job_state st);

/* An owner waits for this job's final event. */
static inline bool job_state_owed(enum job_state st)
{
	return st == JOB_HELD || st == JOB_RUNNING || st == JOB_CANCELING;
}

/* The job's runner has its statement's owner: frames may reach it. */
static inline bool job_state_streams(enum job_state st)
{
	return st == JOB_RUNNING || st == JOB_CANCELING;
}

#endif
