/*
 * validate_pg_write_int: what validate_pg_write.c (the check),
 * validate_pg_write_scope.c (the rewrite) and validate_pg_write_sample.c
 * (the dry run's variant) share: how a write's table is resolved, which of
 * its columns the user's rule lets it name, and the parts of its tree.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_WRITE_INT_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_WRITE_INT_H

#include <pg_query/pg_query.pb-c.h>
#include <stdbool.h>
#include <stddef.h>

#include "validator/pg/validate_pg.h"

/* A write's own table and the fields its rewrites touch, whatever the statement; all point into its tree. */
struct pgv_write_parts {
	PgQuery__RangeVar *rv;
	PgQuery__Node **where; /* NULL for INSERT */
	size_t *nret;
	PgQuery__Node ***ret;
	size_t *nfrom; /* UPDATE's FROM, DELETE's USING; NULL for INSERT */
	PgQuery__Node ***from;
	const char *command; /* "INSERT", "UPDATE" or "DELETE" (static) */
};

/* stmt is an INSERT, UPDATE or DELETE of a named table: *p filled. */
bool pgv_write_parts(PgQuery__Node *stmt, struct pgv_write_parts *p);

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
