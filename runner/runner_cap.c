/* runner_cap: max_rows and max_bytes, decided in one place (see runner_cap.h). */
#include "runner/runner_cap.h"

enum frame_trunc runner_cap_check(const struct runner_job *job, const struct runner_sent *sent, size_t body,
				  bool is_row)
{
	if (is_row && sent->rows >= job->max_rows)
		return FRAME_TRUNC_MAX_ROWS;
	/* A frame the codec cannot carry is cut like one past max_bytes. */
	if (body > FRAME_MAX_PAYLOAD || sent->bytes > job->max_bytes || body > job->max_bytes - sent->bytes)
		return FRAME_TRUNC_MAX_BYTES;
	return FRAME_TRUNC_NONE;
}

void runner_cap_count(struct runner_sent *sent, size_t body, bool is_row)
{
	if (is_row)
		sent->rows++;
	sent->bytes += body;
}
