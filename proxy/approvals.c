#include "proxy/approvals.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proxy/log.h"

bool approvals_needed(const struct airlock_config *cfg)
{
	for (size_t i = 0; i < cfg->nusers; i++)
		if (cfg->users[i].writes && strcmp(cfg->users[i].writes, "approve") == 0)
			return true;
	return false;
}

struct approval_store *approvals_open(const struct airlock_config *cfg, char *err, size_t errlen)
{
	struct approval_store *st = approval_store_sqlite_open(cfg->approval_store, err, errlen);
	struct timespec ts;
	size_t n = 0;

	if (!st)
		return NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (st->ops->recover(st, (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, &n) != APPROVAL_OK) {
		snprintf(err, errlen, "%s", st->ops->error(st));
		st->ops->close(st);
		return NULL;
	}
	if (n)
		log_info("approvals: %zu writes were running when airlockd last stopped; they are failed and never "
			 "run again by themselves",
			 n);
	log_info("approvals: held writes are kept in %s", cfg->approval_store);
	return st;
}
