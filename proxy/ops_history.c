/*
 * ops_history: the last hour a minute at a time (ops_history.h).
 */
#include "proxy/ops_history.h"

#include <stdlib.h>
#include <string.h>

struct ops_history *ops_history_new(void)
{
	struct ops_history *h = calloc(1, sizeof(*h));

	for (size_t i = 0; h && i < OPS_MINUTES; i++)
		h->m[i].minute = -1;
	return h;
}

/* The slot of now_s's minute, emptied first when it last held an older minute. */
static struct ops_minute *slot(struct ops_history *h, int64_t now_s)
{
	int64_t minute = now_s >= 0 ? now_s / 60 : 0;
	struct ops_minute *m = &h->m[minute % OPS_MINUTES];

	if (m->minute != minute) {
		memset(m, 0, sizeof(*m));
		m->minute = minute;
	}
	return m;
}

void ops_statement(struct ops_history *h, int64_t now_s, unsigned decision, enum airlock_err code, double seconds)
{
	struct ops_minute *m;

	if (!h)
		return;
	m = slot(h, now_s);
	if (decision < OPS_DECISIONS)
		m->decisions[decision]++;
	if ((unsigned)code < AIRLOCK_E_COUNT)
		m->codes[code]++;
	if (seconds >= 0.0) {
		m->phase_sum[STATS_PHASE_TOTAL] += seconds;
		m->phase_n[STATS_PHASE_TOTAL]++;
	}
}

void ops_phase(struct ops_history *h, int64_t now_s, enum stats_phase phase, double seconds)
{
	struct ops_minute *m;

	if (!h || (unsigned)phase >= STATS_PHASE_TOTAL || !(seconds >= 0.0))
		return;
	m = slot(h, now_s);
	m->phase_sum[phase] += seconds;
	m->phase_n[phase]++;
}

static void most(uint32_t *into, unsigned v)
{
	if (v > *into)
		*into = v;
}

void ops_gauges(struct ops_history *h, int64_t now_s, unsigned sessions, unsigned jobs, unsigned ready, unsigned queue)
{
	struct ops_minute *m;

	if (!h)
		return;
	m = slot(h, now_s);
	most(&m->sessions, sessions);
	most(&m->jobs, jobs);
	most(&m->ready, ready);
	most(&m->queue, queue);
}

const struct ops_minute *ops_minute_ago(const struct ops_history *h, int64_t now_s, unsigned ago)
{
	int64_t minute = (now_s >= 0 ? now_s / 60 : 0) - (int64_t)ago;
	const struct ops_minute *m;

	if (!h || ago >= OPS_MINUTES || minute < 0)
		return NULL;
	m = &h->m[minute % OPS_MINUTES];
	return m->minute == minute ? m : NULL;
}
