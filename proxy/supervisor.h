/*
 * supervisor: airlockd with workers = N (N > 1). The process started
 * checks what every worker shares (job_dir and its lock, validator_uid,
 * leftover runners, held writes left running), binds each listener N
 * times with SO_REUSEPORT and a unix socket per worker, then forks the
 * workers: each a whole server (proxy/server.h) on its share of the
 * config (config_worker_share).
 *
 * From then on it serves no client. It keeps the audit log: each worker
 * sends its records over a SOCK_SEQPACKET socket and the supervisor chains
 * them all into the one file, so --verify-audit checks one chain. It
 * passes SIGTERM, SIGINT and SIGHUP on to every worker, reopens the audit
 * log on SIGUSR1, and when a worker ends that was not told to, it stops
 * the others and exits 1: a service manager starts airlockd again whole.
 * A worker whose supervisor dies gets SIGTERM (PR_SET_PDEATHSIG).
 */
#ifndef AIRLOCK_PROXY_SUPERVISOR_H
#define AIRLOCK_PROXY_SUPERVISOR_H

#include "conf/config.h"

/* Runs cfg (cfg->workers > 1) until its workers have stopped; takes cfg. 0 after a clean stop, else 1. */
int supervisor_run(struct airlock_config *cfg);

#endif
