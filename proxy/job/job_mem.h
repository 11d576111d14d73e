/*
 * job_mem: airlockd's watch over the memory of a Postgres job's backend
 * process, which the runner's container limit does not cover.
 *
 * The runner reports its backend's pid ('B' frame); the runner is
 * untrusted, so the pid is believed only once checked, on the watch's
 * first tick: its process must run the same executable as its parent (a
 * backend under its postmaster, never the postmaster itself) and hold the
 * socket at the other end of one of the job's own relays' TCP connections
 * (/proc/PID/net/tcp and /proc/PID/fd), checked through a pidfd taken
 * before the checks, so a pid reused later is never read or signalled.
 * A pid that fails any check is not watched (the engine's own bounds,
 * runner_mem.h, still apply): it can cost a job its watch, never another
 * process a signal. It works where the database runs on airlockd's host
 * (its /proc shows the backend) and airlockd may read the backend's
 * /proc/PID/fd (root, or the database's own uid).
 *
 * Then every JOB_MEM_TICK_MS the backend's private memory (RssAnon +
 * VmSwap) is compared with the user's backend_memory_mb; past it, the
 * backend gets SIGINT (what pg_cancel_backend sends: its current
 * statement, which is this job's, is canceled), the watch ends and the
 * job is told (over). The cancel lands at the backend's next interrupt
 * check, which a function without one (upper() or md5() over hundreds of
 * megabytes) reaches only when it returns: the job therefore keeps its
 * runner, its max_jobs slot and its backend connection until the runner
 * reports the statement's end, then ends with MEMORY_LIMIT (job.c), so a
 * backend still at work always counts against the caps.
 */
#ifndef AIRLOCK_PROXY_JOB_JOB_MEM_H
#define AIRLOCK_PROXY_JOB_JOB_MEM_H

#include <stdbool.h>
#include <stdint.h>

struct job;

#define JOB_MEM_TICK_MS 20

/*
 * Tells j its backend is past the budget and was sent a cancel; j->mem_over
 * and j->mem_message are set. Called once; the watch goes on (until the
 * backend exits or the job stops it), and over may end the job.
 */
typedef void (*job_mem_over_fn)(struct job *j);
/* job_mem_await_exit's: j's backend has exited (or its kept session settled), or is no longer waited for; the watch has
 * ended. */
typedef void (*job_mem_gone_fn)(struct job *j);

/* The runner of j says its backend is pid: watch it (once per job; later calls are ignored). */
void job_mem_watch(struct job *j, uint32_t pid, job_mem_over_fn over);
/*
 * j ends before its runner reported the statement's end (its runner
 * stopped at the deadline, its owner gone): the backend still runs the
 * statement, which the runner's end does not stop, and a statement in work
 * without an interrupt check not even the engine's statement_timeout. The
 * backend is sent a cancel; the watch (the budget included) goes on, and
 * gone(j) is called once the backend process has exited (the job's relays
 * are closed, so it exits once the statement ends), once the kept session
 * it serves has ended its reset (bsess_pid_settled: such a backend does
 * not exit), or after max_ms.
 * A watch whose pid has not been checked yet is checked first (the
 * caller's relays still open). false, nothing done: j has no watch, its
 * pid fails the checks, or it already awaits.
 */
bool job_mem_await_exit(struct job *j, job_mem_gone_fn gone, uint32_t max_ms);
/* Ends j's watch, if any (its timer and pidfd go). */
void job_mem_stop(struct job *j);

#endif
