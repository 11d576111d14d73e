/*
 * runner_uids: whether anything on the host already runs with an id of
 * the runner uid range (read from /proc), checked at start after the
 * sweep of an earlier run's containers: a process with a runner's uid
 * could reach that runner's sockets.
 */
#ifndef AIRLOCK_PROXY_JOB_RUNNER_UIDS_H
#define AIRLOCK_PROXY_JOB_RUNNER_UIDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True, with the first such process described in who, when a process (not a zombie) has a uid or gid in
 * [first, last]. */
bool runner_uids_busy(uint32_t first, uint32_t last, char *who, size_t wholen);

#endif
