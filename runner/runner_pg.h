/*
 * runner_pg: executes one job against Postgres through the job's relay
 * socket with libpq, streaming result frames to the control socket as rows
 * arrive. Owns its connection for the duration of the call only.
 */
#ifndef AIRLOCK_RUNNER_PG_H
#define AIRLOCK_RUNNER_PG_H

#include "runner/runner_ctl.h"
#include "runner/runner_job.h"

/*
 * Runs job; socket_dir is the directory holding the relay socket
 * .s.PGSQL.5432. Every outcome of the statement (rows, error, cancel,
 * timeout, truncation) is sent as frames. Returns 0 when the frames went
 * out, -1 when the control socket failed or closed.
 */
/*
 * Connects, then runs the job. When the job is not complete yet (only a
 * 'P' frame came), complete(arg, job) is called once connected and must
 * add the rest (from the 'J' frame) or return -1.
 */
int runner_pg_run(struct runner_job *job, struct runner_ctl *ctl, const char *socket_dir,
		  int (*complete)(void *arg, struct runner_job *job), void *arg);

#endif
