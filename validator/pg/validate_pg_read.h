/*
 * validate_pg_read: checks the parse tree of a read (SELECT, VALUES, TABLE,
 * or the query under EXPLAIN) against the read-only rules, the function
 * denylist and the relation allowlist, with CTE scoping and search_path
 * resolution.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_READ_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_READ_H

#include <jansson.h>
#include <stdbool.h>

#include "validator/pg/validate_pg.h"

/*
 * node is a wrapped statement node ({"SelectStmt": {...}}) from the tree
 * that libpg_query parsed out of sql. Returns true when it may run;
 * otherwise fills out with the most important refusal found (writes first,
 * then denied functions, then relations) and returns false.
 */
bool pgv_check_read(const struct pgv_policy *policy, const char *sql, json_t *node, struct pgv_result *out);

/*
 * True when a reference to schema.rel (schema NULL: unqualified, resolved
 * through the policy's search_path as the walk does) is allowed.
 */
bool pgv_name_allowed(const struct pgv_policy *policy, const char *schema, const char *rel);

/* schema is pg_catalog, information_schema, or the schema of an allowed relation of the policy. */
bool pgv_world_schema(const struct pgv_policy *policy, const char *schema);

#endif
