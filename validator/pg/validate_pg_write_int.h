/*
 * validate_pg_write_int: what validate_pg_write.c (the check) and
 * validate_pg_write_scope.c (the rewrite) share: how a write's table is
 * resolved and which of its columns the user's rule lets it name.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_WRITE_INT_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_WRITE_INT_H

#include <stdbool.h>

#include "validator/pg/validate_pg.h"

/*
 * The schema a write of schema.rel (schema NULL: unqualified) goes to:
 * the one written, else the first schema of the search_path. False when
 * the path names none ("$user" first included). *out_schema is borrowed
 * from schema or the policy.
 */
bool pgv_write_resolve(const struct pgv_policy *p, const char *schema, const char *rel, const char **out_schema);

/* The user's rule for schema.rel, or NULL. */
const struct airlock_rule *pgv_write_rule(const struct pgv_policy *p, const char *schema, const char *rel);

/* The rule (NULL: none) shows col unmasked: it may be written, compared and returned. */
bool pgv_write_column_shown(const struct airlock_rule *r, const char *col);

#endif
