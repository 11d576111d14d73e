/*
 * runner_my: executes one job against MySQL or MariaDB through the job's
 * relay socket with MariaDB Connector/C, streaming result frames ('K',
 * 'D', 'C', or 'E' with a MySQL errno) to the control socket as rows
 * arrive. Owns its connections and its watchdog thread for the duration
 * of the call only.
 */
#ifndef AIRLOCK_RUNNER_MY_H
#define AIRLOCK_RUNNER_MY_H

#include "runner/runner_ctl.h"
#include "runner/runner_job.h"

/*
 * Runs job; socket_dir is the directory holding the relay socket
 * mysqld.sock. Connects and makes the session read-only first; when the
 * job is not complete yet (only a 'P' frame came), complete(arg, job) is
 * then called and must add the rest (from the 'J' frame) or return -1.
 * Every outcome of the statement (rows, error, cancel, timeout,
 * truncation) is sent as frames. Returns 0 when the frames went out, -1
 * when the control socket failed or closed.
 */
int runner_my_run(struct runner_job *job, struct runner_ctl *ctl, const char *socket_dir,
		  int (*complete)(void *arg, struct runner_job *job), void *arg);

#endif
