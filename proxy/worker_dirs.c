/* worker_dirs: what a run with more workers left under job_dir (see worker_dirs.h). */
#include "proxy/worker_dirs.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/oci_rootfs.h"
#include "proxy/job/job.h"
#include "proxy/job/job_dir.h"
#include "proxy/log.h"
#include "proxy/runtime_sweep.h"

/* Stale directories handled in one call; more are left for the next start (and logged). */
#define WORKER_DIRS_MAX 256

/* The number in a name of digits alone that ends in tail ("7" + "", "7" + ".sock"), or -1. */
static long index_of(const char *s, const char *tail)
{
	char *end;
	unsigned long k;

	if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9'))
		return -1;
	errno = 0;
	k = strtoul(s, &end, 10);
	if (errno || k > UINT32_MAX || strcmp(end, tail) != 0)
		return -1;
	return (long)k;
}

/* A worker this run does not have: any with one process, those past the last with several. */
static bool stale(long k, uint32_t workers)
{
	return k >= 0 && (workers <= 1 || (uint64_t)k >= workers);
}

/* Sweeps a worker's directory as the worker would, then removes it; false (logged) if it must stay. */
static bool sweep_one(const struct airlock_config *cfg, struct runtime_sweep *rs, const char *dir)
{
	char err[256];
	bool gone;
	int lock = job_dir_lock(dir, err, sizeof(err));

	if (lock < 0) {
		log_warn("job_dir: %s is left as it is: %s", dir, err);
		return false;
	}
	jobs_sweep_dir(dir);
	gone = runtime_sweep_dir(rs, cfg, dir, NULL) == RUNTIME_SWEPT;
	if (gone)
		oci_remove_tree(dir);
	else
		log_warn("job_dir: %s is left as it is: %s", dir, rs->err);
	close(lock);
	return gone && access(dir, F_OK) < 0;
}

/* The sockets of the workers this run does not have; with one process, their directory too. */
static void sweep_sockets(const struct airlock_config *cfg, uint32_t workers)
{
	char dir[4200], path[4500];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s" CONFIG_WORKER_DIR, cfg->job_dir);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!stale(index_of(de->d_name, ".sock"), workers))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	if (workers <= 1)
		rmdir(dir);
}

int worker_dirs_sweep(const struct airlock_config *cfg, uint32_t workers, struct runtime_sweep *rs)
{
	char(*names)[16] = NULL, path[4096];
	size_t n = 0, more = 0;
	struct dirent *de;
	int removed = 0;
	DIR *d;

	d = opendir(cfg->job_dir);
	if (!d)
		return 0;
	/* Names first: nothing is removed from a directory while it is read. */
	while ((de = readdir(d))) {
		if (de->d_name[0] != 'w' || strlen(de->d_name) >= sizeof(names[0]) ||
		    !stale(index_of(de->d_name + 1, ""), workers))
			continue;
		if (n == WORKER_DIRS_MAX || (!names && !(names = calloc(WORKER_DIRS_MAX, sizeof(names[0]))))) {
			more++;
			continue;
		}
		memcpy(names[n++], de->d_name, strlen(de->d_name) + 1); /* shorter than 16, checked above */
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", cfg->job_dir, names[i]) < sizeof(path))
			removed += sweep_one(cfg, rs, path);
	}
	free(names);
	sweep_sockets(cfg, workers);
	if (removed > 0)
		log_info("removed %d worker directories left from a run with more workers", removed);
	if (more > 0)
		log_warn("job_dir %s: %zu more worker directories are left for the next start", cfg->job_dir, more);
	return removed;
}
