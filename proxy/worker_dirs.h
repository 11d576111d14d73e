/*
 * worker_dirs: what a run with more workers left under job_dir.
 *
 * With workers = N, worker K keeps its jobs, its runtime state and its
 * unpacked root filesystem in job_dir/wK, and its socket for its siblings
 * in job_dir/.workers/K.sock (conf/config.h). A later run with fewer
 * workers (or one process) never looks there again, so whatever a crash
 * left running in such a directory would keep its runner uids busy, and
 * the new run would refuse to start.
 */
#ifndef AIRLOCK_PROXY_WORKER_DIRS_H
#define AIRLOCK_PROXY_WORKER_DIRS_H

#include <stdint.h>

#include "conf/config.h"
#include "proxy/runtime_sweep.h"

/*
 * Called with job_dir's lock held, by a run of workers processes (1: one
 * process, which has no worker directories). Every job_dir/wK it does not
 * use (K >= workers, or any K when workers = 1) is swept as its worker would sweep it (under its own lock: its job
 * directories, then its runtime's containers) and removed, but only once
 * nothing of it can still run: a directory whose lock is held, whose
 * runtime cannot be asked, or whose runtime state still names a container
 * is left as it is, with a warning. The sockets of the workers it does
 * not have go too, and with workers = 1 their directory. The runtime is
 * asked through rs (the caller's, shared with its own sweep). Returns how
 * many directories were removed.
 */
int worker_dirs_sweep(const struct airlock_config *cfg, uint32_t workers, struct runtime_sweep *rs);

#endif
