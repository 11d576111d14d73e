/*
 * runner_my_errors: the error frames a MySQL job ends with when the
 * runner, not the backend, has the last word: a timeout, a cancel, a lost
 * connection, MariaDB's memory bound.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_MY_ERRORS_H
#define AIRLOCK_RUNNER_RUNNER_MY_ERRORS_H

#include <stdbool.h>
#include <stdint.h>

#include "runner/runner_ctl.h"

/* The statement ran past the job's timeout_ms. */
void my_send_timeout(struct runner_ctl *ctl, uint32_t timeout_ms);
/* The proxy cancelled it. */
void my_send_cancel(struct runner_ctl *ctl);
/* The connection to the database went away (in_rows: while rows were being read). */
void my_send_lost(struct runner_ctl *ctl, bool in_rows);
/* MariaDB refused an allocation past max_session_mem_used (set from backend_memory_mb). */
void my_send_memory_limit(struct runner_ctl *ctl);

#endif
