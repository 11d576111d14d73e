/*
 * validate_pg_session: classifies the session statements the proxy
 * answers itself (SET, RESET, SHOW, BEGIN, COMMIT, ROLLBACK, SAVEPOINT,
 * RELEASE, ROLLBACK TO, DISCARD, SET TRANSACTION) and refuses the
 * dangerous forms (SET ROLE, SET SESSION AUTHORIZATION, turning read-only
 * off, loading libraries, snapshot import, two-phase commit).
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SESSION_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SESSION_H

#include <jansson.h>

#include "validator/pg/validate_pg.h"

/* body is the VariableSetStmt's fields; sql the text it was parsed from. */
enum pgv_kind pgv_session_set(const char *sql, json_t *body, struct pgv_result *out);

/* body is the VariableShowStmt's fields. */
enum pgv_kind pgv_session_show(json_t *body, struct pgv_result *out);
/*
 * SELECT [pg_catalog.]set_config('name', 'value', true | false) and nothing
 * else (no FROM, no other column), or pg_dump's SELECT set_config(name,
 * 'value', ...) FROM [pg_catalog.]pg_settings WHERE name = 'name' (nothing
 * else): a SET of name that returns the new value
 * (out->set_config, column named as Postgres names it). False, out
 * untouched, for any other SELECT, which is judged as a read (where
 * set_config is on the denylist).
 */
bool pgv_session_set_config(const char *sql, json_t *select, struct pgv_result *out);

/* body is the TransactionStmt's fields. */
enum pgv_kind pgv_session_transaction(json_t *body, struct pgv_result *out);

/* body is the DiscardStmt's fields. */
enum pgv_kind pgv_session_discard(json_t *body, struct pgv_result *out);
/* DEALLOCATE: answered by the session, which holds the prepared statements. */
enum pgv_kind pgv_session_deallocate(json_t *body, struct pgv_result *out);

#endif
