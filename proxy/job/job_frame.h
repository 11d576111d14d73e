/*
 * job_frame: the two frames a job sends its runner. 'P' says how to reach
 * the target (engine, database, role, password) and goes out as soon as
 * the runner connects; 'J' carries the statement with its limits, session
 * settings and bound parameters, and goes out once an owner is attached.
 * Both hold secrets or agent data, so a sent or unwanted one is wiped.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_FRAME_H
#define AIRLOCK_PROXY_JOB_JOB_FRAME_H

#include <stdint.h>

#include "conf/config.h"
#include "base/frame.h"
#include "protocol/scram_client.h"
#include "proxy/job/job.h"

/*
 * Builds the 'P' frame for target into b (initialised here), with known
 * (the target's salted password, job_scram.c; NULL: none) as scram_salt,
 * scram_iterations and scram_key; b->failed tells whether it fit.
 */
void job_frame_connect(struct wbuf *b, const struct airlock_target *t, const struct scram_salted *known, bool kept);
/* Builds the 'J' frame of req into b (its caps from req->limits). -1 when it cannot be one frame. */
int job_frame_job(struct wbuf *b, const struct job_request *req);
/* Zeroes b's memory, then frees it. */
void job_frame_wipe(struct wbuf *b);

#endif
