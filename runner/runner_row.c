/* runner_row: one result row as a 'D' frame within the job's caps (see runner_row.h). */
#include "runner/runner_row.h"

enum runner_row_status runner_row_send(struct runner_ctl *ctl, const struct runner_job *job, struct runner_sent *sent,
				       unsigned n, runner_row_value value, void *arg, enum frame_trunc *trunc)
{
	struct wbuf *b = &ctl->out;
	size_t body = 2, len;
	const void *v;
	unsigned i;

	for (i = 0; i < n; i++) {
		body += 4;
		if (value(arg, i, &len))
			body += len;
	}
	*trunc = runner_cap_check(job, sent, body, true);
	if (*trunc != FRAME_TRUNC_NONE)
		return RUNNER_ROW_TRUNCATED;
	frame_begin(b, FRAME_ROW);
	frame_put_u16(b, (uint16_t)n);
	for (i = 0; i < n; i++) {
		v = value(arg, i, &len);
		if (!v) {
			frame_put_i32(b, -1);
			continue;
		}
		frame_put_i32(b, (int32_t)len);
		frame_put_bytes(b, v, len);
	}
	if (runner_ctl_commit(ctl) < 0)
		return RUNNER_ROW_GONE;
	runner_cap_count(sent, body, true);
	return RUNNER_ROW_SENT;
}
