/*
 * pg_policy: a Postgres user's policy as the validator sees it, made the
 * one way both a session and the run of an approved write make it.
 */
#ifndef AIRLOCK_PROXY_PG_PG_POLICY_H
#define AIRLOCK_PROXY_PG_PG_POLICY_H

#include "conf/config.h"
#include "proxy/pg/pg_settings.h"
#include "validator/pg/validate_pg.h"

/*
 * u's policy under the search_path of set: path (PGS_MAX_PATH entries)
 * receives it, and pol points into u, set and path, which must outlive it.
 * The write tables are in it only while u may write (writes = approve,
 * with a write target).
 */
void pgp_user_policy(const struct airlock_user *u, const struct pg_settings *set, const char **path,
		     struct pgv_policy *pol);

#endif
