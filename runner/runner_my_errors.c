/*
 * runner_my_errors: see runner_my_errors.h.
 */
#include "runner/runner_my_errors.h"

#include <inttypes.h>
#include <stdio.h>

#include "base/errors.h"

void my_send_timeout(struct runner_ctl *ctl, uint32_t timeout_ms)
{
	char hint[192];

	snprintf(hint, sizeof(hint),
		 "the statement exceeded the timeout of %" PRIu32
		 " ms; make it cheaper: filter with WHERE, add a LIMIT, avoid large joins and sorts",
		 timeout_ms);
	runner_ctl_error_my(ctl, FRAME_ERROR, airlock_err_my_sqlstate(AIRLOCK_E_TIMEOUT),
			    airlock_err_name(AIRLOCK_E_TIMEOUT), airlock_err_my_errno(AIRLOCK_E_TIMEOUT),
			    "Query execution was interrupted, maximum statement execution time exceeded", hint);
}

void my_send_cancel(struct runner_ctl *ctl)
{
	runner_ctl_error_my(ctl, FRAME_ERROR, airlock_err_my_sqlstate(AIRLOCK_E_CANCELED),
			    airlock_err_name(AIRLOCK_E_CANCELED), airlock_err_my_errno(AIRLOCK_E_CANCELED),
			    "Query execution was interrupted", "");
}

void my_send_lost(struct runner_ctl *ctl, bool in_rows)
{
	runner_ctl_error_my(ctl, FRAME_ERROR, airlock_my_sqlstate(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_SERVER_LOST),
			    airlock_err_name(AIRLOCK_E_EXECUTION_FAILED),
			    airlock_my_errno(AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_MY_SERVER_LOST),
			    in_rows ? "connection to the database was lost while reading rows"
				    : "connection to the database was lost",
			    in_rows ? "a single row larger than 64 MiB also ends the connection; "
				      "select fewer or shorter columns"
				    : "");
}

void my_send_memory_limit(struct runner_ctl *ctl)
{
	runner_ctl_error_my(ctl, FRAME_ERROR, airlock_err_my_sqlstate(AIRLOCK_E_MEMORY_LIMIT),
			    airlock_err_name(AIRLOCK_E_MEMORY_LIMIT), airlock_err_my_errno(AIRLOCK_E_MEMORY_LIMIT),
			    "the statement needed more database memory than the user's backend_memory_mb allows",
			    "use shorter IN lists and fewer large expressions, aggregate fewer rows, or add a LIMIT");
}
