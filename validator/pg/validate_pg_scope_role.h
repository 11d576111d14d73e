/*
 * validate_pg_scope_role: the rewrites that keep one role in the agent's
 * world and no backend address in it (see validate_pg_scope_role.c).
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_ROLE_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_ROLE_H

#include <pg_query/pg_query.pb-c.h>

struct pgv_scope;

/*
 * A FuncCall after its arguments were walked: pg_get_userbyid,
 * current_setting, the inet_* functions and the database and tablespace
 * sizes become what the agent's world says; any other call is left alone.
 */
void pgv_scope_role_call(struct pgv_scope *sc, PgQuery__Node *node);

#endif
