#include "proxy/approvals.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy/audit.h"
#include "proxy/log.h"
#include "proxy/timeval.h"

bool approvals_needed(const struct airlock_config *cfg)
{
	for (size_t i = 0; i < cfg->nusers; i++)
		if (cfg->users[i].writes && strcmp(cfg->users[i].writes, "approve") == 0)
			return true;
	return false;
}

struct approval_store *approvals_open(const struct airlock_config *cfg, bool recover, char *err, size_t errlen)
{
	struct approval_store *st;
	char why[512];
	size_t n = 0;

	if (cfg->state_dsn)
		st = approval_store_pg_open(cfg->state_dsn, (int)cfg->peer_id, why, sizeof(why));
	else
		st = approval_store_sqlite_open(cfg->approval_store, why, sizeof(why));
	if (st && recover && st->ops->recover(st, wall_ms(), &n) != APPROVAL_OK) {
		snprintf(why, sizeof(why), "%s", st->ops->error(st));
		st->ops->close(st);
		st = NULL;
	}
	if (!st) {
		if (cfg->state_dsn)
			snprintf(err, errlen, "state_dsn: %s", why);
		else
			snprintf(err, errlen, "approval_store %s: %s", cfg->approval_store, why);
		return NULL;
	}
	if (n)
		log_info("approvals: %zu writes were running when airlockd last stopped; they are failed and never "
			 "run again by themselves",
			 n);
	if (cfg->state_dsn)
		log_info("approvals: held writes are kept in the Postgres database state_dsn names, shared by the "
			 "nodes (this one is peer_id %u)",
			 (unsigned)cfg->peer_id);
	if (cfg->state_dsn && cfg->peer_id == 0)
		log_warn("approvals: state_dsn without peer_id: a node that shares the database and starts again "
			 "fails the writes every node with peer_id 0 was running; give each node its own peer_id");
	else
		log_info("approvals: held writes are kept in %s", cfg->approval_store);
	return st;
}

/* At most this many expire per call: the rest on the next. */
#define EXPIRE_BATCH 64

struct due {
	int64_t now;
	size_t n;
	char id[EXPIRE_BATCH][APPROVAL_ID_LEN + 1];
	char user[EXPIRE_BATCH][APPROVAL_MAX_NAME + 1];
};

static bool collect_due(void *arg, const struct approval *a)
{
	struct due *d = arg;

	if (a->expires_at > d->now)
		return true;
	memcpy(d->id[d->n], a->id, sizeof(d->id[d->n]));
	snprintf(d->user[d->n], sizeof(d->user[d->n]), "%s", a->user);
	return ++d->n < EXPIRE_BATCH;
}

void approvals_expire(struct approval_store *st, struct audit *audit, int64_t now)
{
	struct due *d = calloc(1, sizeof(*d));

	if (!d)
		return;
	d->now = now;
	if (st->ops->each(st, APPROVAL_PENDING, SIZE_MAX, collect_due, d) == APPROVAL_OK) {
		for (size_t i = 0; i < d->n; i++) {
			struct approval_move m = {.id = d->id[i],
						  .from = APPROVAL_PENDING,
						  .to = APPROVAL_EXPIRED,
						  .now = now,
						  .reason = "nobody decided before it expired"};
			struct audit_entry e = {
				.user = d->user[i], .decision = "expired", .approval = d->id[i], .reason = m.reason};

			if (st->ops->move(st, &m) == APPROVAL_OK)
				audit_record(audit, &e);
		}
	}
	free(d);
}

bool approvals_own(struct approval_store *st, struct audit *audit, const char *user, const char *id, struct approval *a)
{
	*a = (struct approval){0};
	if (!st || !approval_id_valid(id))
		return false;
	approvals_expire(st, audit, wall_ms());
	if (st->ops->get(st, id, a) == APPROVAL_OK && strcmp(a->user, user) == 0)
		return true;
	approval_free(a);
	*a = (struct approval){0};
	return false;
}
