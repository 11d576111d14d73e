/*
 * policy_view: what a user may do, as rows an agent can read (SHOW
 * airlock.policy over Postgres, SHOW AIRLOCK POLICY over MySQL): the
 * tables it may read, which of them are filtered or show only some
 * columns (never the predicates or the mask expressions), and its limits.
 */
#ifndef AIRLOCK_PROXY_POLICY_VIEW_H
#define AIRLOCK_PROXY_POLICY_VIEW_H

#include <stdbool.h>

#include "conf/config.h"

/* One row: kind ("user", "table", "limit"), name, detail; all borrowed for the call. */
typedef void (*policy_row_fn)(void *arg, const char *kind, const char *name, const char *detail);

/* Calls fn for each row of u's policy over MySQL (mysql) or Postgres. */
void policy_each(const struct airlock_user *u, bool mysql, policy_row_fn fn, void *arg);

#endif
