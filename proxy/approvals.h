/*
 * approvals: the server's store of held writes (approval/approval_store.h),
 * open while any user may write with approval. At start-up a write left
 * running by an earlier process becomes failed, never run again by itself.
 */
#ifndef AIRLOCK_PROXY_APPROVALS_H
#define AIRLOCK_PROXY_APPROVALS_H

#include <stdbool.h>
#include <stddef.h>

#include "approval/approval_store.h"
#include "conf/config.h"

/* Some user of cfg has writes = approve. */
bool approvals_needed(const struct airlock_config *cfg);

/*
 * Opens the store of held writes (the Postgres one state_dsn names, else
 * cfg->approval_store) and, with recover, fails the writes a stop left
 * running (a worker of workers = N does not: the supervisor did, before
 * any worker could run one). NULL with the reason in err, the key named
 * first, when it cannot be. The caller closes it with ->ops->close.
 */
struct approval_store *approvals_open(const struct airlock_config *cfg, bool recover, char *err, size_t errlen);

struct audit;

/*
 * Every pending record of st whose time passed at now (unix ms) becomes
 * expired, each audited by its id. Called before any read or decision, so
 * nobody decides, and no agent sees pending, a write past its time.
 */
void approvals_expire(struct approval_store *st, struct audit *audit, int64_t now);

/*
 * The record id when user asked for it, read into *a (the caller frees it
 * with approval_free) after expiring what is due; false for an id that is
 * malformed, missing or another user's, which the agent is told alike
 * (another user's record reads as one that does not exist). st may be NULL.
 */
bool approvals_own(struct approval_store *st, struct audit *audit, const char *user, const char *id,
		   struct approval *a);

#endif
