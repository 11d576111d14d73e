/*
 * runtime_sweep: the runner containers an earlier run left for one job
 * directory (job_dir itself, or a worker's job_dir/wK).
 *
 * A start sweeps before it runs anything: its own directory, and those of
 * workers it does not have (worker_dirs.h). All of them ask the same
 * runtime, so one runtime_sweep asks it once and remembers the answer.
 */
#ifndef AIRLOCK_PROXY_RUNTIME_SWEEP_H
#define AIRLOCK_PROXY_RUNTIME_SWEEP_H

#include <stdbool.h>

#include "conf/config.h"

struct runtime_sweep {
	int answers; /* 0: not asked yet; 1: the runtime runs; -1: it does not (err says why) */
	char err[256];
};

enum runtime_sweep_outcome {
	RUNTIME_SWEPT,     /* nothing of dir runs any more */
	RUNTIME_NOT_ASKED, /* the runtime cannot be asked (s->err) */
	RUNTIME_LEFT,      /* the runtime still lists containers of dir (s->err) */
};

/* Whether cfg's runtime runs (OCI: its --version; Docker: the engine answers); asked once per s. */
bool runtime_sweep_ask(struct runtime_sweep *s, const struct airlock_config *cfg);

/*
 * Removes the containers the runtime still has for job directory dir
 * (OCI: those in dir's runtime root, asking the runtime only when that
 * root names any, and every bundle left; Docker: those labelled with dir
 * as their root).
 * *count (may be NULL) gets how many were removed.
 */
enum runtime_sweep_outcome runtime_sweep_dir(struct runtime_sweep *s, const struct airlock_config *cfg, const char *dir,
					     int *count);

#endif
