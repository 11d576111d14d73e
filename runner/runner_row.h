/*
 * runner_row: one result row as a 'D' frame, for both engines. The engine
 * says where each value is through a callback; the row is measured, asked
 * of the caps (runner_cap), queued and committed here. Nothing owned: the
 * values are the engine's, borrowed for the call.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_ROW_H
#define AIRLOCK_RUNNER_RUNNER_ROW_H

#include <stddef.h>

#include "runner/runner_cap.h"
#include "runner/runner_ctl.h"

/* Column i of the row: its bytes (NULL for SQL NULL), their length in *len. */
typedef const void *(*runner_row_value)(void *arg, unsigned i, size_t *len);

enum runner_row_status {
	RUNNER_ROW_SENT,
	RUNNER_ROW_TRUNCATED, /* it would pass a cap: nothing was queued, *trunc says which */
	RUNNER_ROW_GONE,      /* the control socket failed */
};

/* Sends the n values value() gives as one row unless it would pass max_rows or max_bytes. */
enum runner_row_status runner_row_send(struct runner_ctl *ctl, const struct runner_job *job, struct runner_sent *sent,
				       unsigned n, runner_row_value value, void *arg, enum frame_trunc *trunc);

#endif
