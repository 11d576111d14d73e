/*
 * runner_cap: the one place the runner decides whether a result may grow.
 * Both engines' rows ('D' frames) and a COPY's lines ('d' frames) ask
 * before they are queued; the first one that would pass the job's
 * max_rows or max_bytes is not sent, and the job completes with the
 * truncation reason returned here. Pure: no I/O, nothing owned.
 */
#ifndef AIRLOCK_RUNNER_RUNNER_CAP_H
#define AIRLOCK_RUNNER_RUNNER_CAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/frame.h"
#include "runner/runner_job.h"

/* What a job has sent so far: rows, and the payload bytes of its row frames. */
struct runner_sent {
	uint64_t rows;
	uint64_t bytes; /* never above the job's max_bytes */
};

/*
 * May one more frame of body payload bytes go out? is_row is false for
 * bytes that are not a row (a COPY's header line): they count against
 * max_bytes only. FRAME_TRUNC_NONE when it may; else the cap it would
 * pass (rows first), and nothing of it may be sent.
 */
enum frame_trunc runner_cap_check(const struct runner_job *job, const struct runner_sent *sent, size_t body,
				  bool is_row);

/* Counts a frame that went out (after runner_cap_check allowed it). */
void runner_cap_count(struct runner_sent *sent, size_t body, bool is_row);

#endif
