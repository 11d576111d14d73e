/*
 * ops_history: the last hour of this node, a minute at a time, for the
 * operator's page (ops_page.h): statements by decision, refusals and
 * errors by airlock code, each phase's time (stats.h enum stats_phase),
 * and the most sessions, live jobs, ready runners and waiting statements
 * seen in each minute. The same events move the metrics (stats.h); this
 * keeps only what the page draws, in a fixed ring of OPS_MINUTES slots.
 *
 * Times are the caller's monotonic seconds; nothing here reads a clock,
 * allocates after ops_history_new or does I/O. Every call accepts NULL
 * (no page configured) and then does nothing.
 */
#ifndef AIRLOCK_PROXY_OPS_HISTORY_H
#define AIRLOCK_PROXY_OPS_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "proxy/stats.h"

#define OPS_MINUTES 60
#define OPS_DECISIONS 8 /* at least server.h SERVER_NDECISIONS */
#define OPS_PHASES (STATS_PHASE_TOTAL + 1)

struct ops_minute {
	int64_t minute; /* monotonic seconds / 60 of the minute this slot holds; -1: none yet */
	uint32_t decisions[OPS_DECISIONS];
	uint32_t codes[AIRLOCK_E_COUNT]; /* statements that ended with each airlock code (NONE: none) */
	double phase_sum[OPS_PHASES];    /* seconds */
	uint32_t phase_n[OPS_PHASES];
	uint32_t sessions, jobs, ready, queue; /* the most seen in the minute */
};

struct ops_history {
	struct ops_minute m[OPS_MINUTES];
};

/* An empty history; NULL when out of memory. The caller frees it (free). */
struct ops_history *ops_history_new(void);

/* A statement's end: its decision (< OPS_DECISIONS), its code, its total seconds. */
void ops_statement(struct ops_history *h, int64_t now_s, unsigned decision, enum airlock_err code, double seconds);
/* One observation of a phase (not TOTAL: ops_statement gives that). */
void ops_phase(struct ops_history *h, int64_t now_s, enum stats_phase phase, double seconds);
/* What is live now; each minute keeps the most it saw. */
void ops_gauges(struct ops_history *h, int64_t now_s, unsigned sessions, unsigned jobs, unsigned ready, unsigned queue);

/*
 * The slot of the minute ago minutes before now_s (0: this minute), or
 * NULL when nothing was recorded in it (or it is older than the ring).
 */
const struct ops_minute *ops_minute_ago(const struct ops_history *h, int64_t now_s, unsigned ago);

#endif
