/*
 * validate_pg_scope: rewrites a read that passed pgv_validate so that what
 * it can learn of the database describes only what the policy allows.
 *
 * On libpg_query's protobuf parse tree:
 *   - each reference to a catalog relation that names tables or sessions
 *     (validate_pg_catalog's FILTER entries) reads it through its filter,
 *     under the reference's own name or alias: in a read, from a
 *     MATERIALIZED CTE of the outermost query, one per distinct filter
 *     (validate_pg_scope_hoist.c); elsewhere from a subquery in place;
 *   - DENY entries and catalog names not listed are refused;
 *   - the argument of each catalog function that names a relation, type
 *     or constraint (validate_pg_scope_funcs) and each cast to regclass or
 *     regtype is guarded, so a hidden object reads as NULL;
 *   - current_user, session_user, current_role and user become the
 *     airlock user.
 * The tree is deparsed, and the text validated again as the agent's own
 * statement is; a statement that needs none of this runs as written.
 * Pure: no I/O.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_H

#include "validator/pg/validate_pg.h"

/*
 * sql passed pgv_validate as PGV_READ under policy. Returns PGV_READ with
 * *rewritten NULL (run sql as it is) or set to the text to run (heap; the
 * caller frees it), or PGV_REFUSED with out filled and *rewritten NULL.
 */
enum pgv_kind pgv_scope(const struct pgv_policy *policy, const char *sql, char **rewritten, struct pgv_result *out);

/*
 * pgv_scope, and with a read *guard (heap, caller frees; NULL when the
 * statement needs none) the runner must pass before the statement runs:
 * validate_pg_guard.h. NULL too when refused.
 */
enum pgv_kind pgv_scope_guarded(const struct pgv_policy *policy, const char *sql, char **rewritten, char **guard,
				struct pgv_result *out);

#endif
