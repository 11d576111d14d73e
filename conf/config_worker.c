/*
 * config_worker: what one worker of workers = N takes of the config. The
 * supervisor (proxy/supervisor.c) checks the whole and binds what is
 * shared; each worker runs on its share.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"

/* One worker's part of a bound of the whole (0, no bound, stays 0); the config check keeps it at least 1. */
static uint32_t share_of(uint32_t whole, uint32_t n)
{
	return whole && whole / n == 0 ? 1 : whole / n;
}

bool config_worker_share(struct airlock_config *cfg, uint32_t index)
{
	uint32_t n = cfg->workers > 1 ? cfg->workers : 1;
	uint64_t all = (uint64_t)cfg->runner_uid_last - cfg->runner_uid_first + 1, each = all / n;
	char *dir, *uids;

	if (n == 1)
		return true;
	if (asprintf(&dir, "%s/w%u", cfg->job_dir, index) < 0)
		return false;
	/* The last worker also takes what the division leaves over. */
	uint32_t first = cfg->runner_uid_first + (uint32_t)(each * index);
	uint32_t last = index + 1 == n ? cfg->runner_uid_last : first + (uint32_t)each - 1;

	if (asprintf(&uids, "%u-%u", first, last) < 0) {
		free(dir);
		return false;
	}
	free(cfg->job_dir);
	cfg->job_dir = dir;
	free(cfg->runner_uids);
	cfg->runner_uids = uids;
	cfg->runner_uid_first = first;
	cfg->runner_uid_last = last;
	if (cfg->metrics_listen_host)
		cfg->metrics_listen_port = (uint16_t)(cfg->metrics_listen_port + index);
	/* What bounds the whole airlockd is divided, so N workers together stay within it. */
	cfg->max_connections = share_of(cfg->max_connections, n);
	cfg->max_unauthenticated = share_of(cfg->max_unauthenticated, n);
	for (size_t i = 0; i < cfg->ntargets; i++)
		cfg->targets[i].max_db_connections = share_of(cfg->targets[i].max_db_connections, n);
	if (index > 0) {
		free(cfg->approval_listen_host);
		cfg->approval_listen_host = NULL;
	}
	return true;
}

void config_worker_socket(const char *job_dir, uint32_t index, char *out, size_t len)
{
	snprintf(out, len, "%s" CONFIG_WORKER_DIR "/%u.sock", job_dir, index);
}
