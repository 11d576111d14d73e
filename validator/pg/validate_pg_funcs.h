/*
 * validate_pg_funcs: the function denylist. Functions with side effects
 * (files, large objects, sequences, advisory locks, notifications, server
 * administration, replication, configuration, statistics resets) and
 * functions that run SQL text or read whole tables by name (and so would
 * step around the table allowlist) are refused wherever they appear;
 * catalog functions by their generated class (validate_pg_proc.h).
 * Static data; the returned strings are never freed.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_FUNCS_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_FUNCS_H

#include <stdbool.h>

/*
 * name is the last component of a function name, lower-cased. Returns why
 * the function is denied (a phrase such as "it reads or writes files on the
 * database server"), or NULL when it may be called.
 */
const char *pgv_function_denied(const char *name);

/*
 * Why a call of schema.name is refused, or NULL when it may be called.
 * schema is the call's qualification (NULL when unqualified), name its last
 * component, lower-cased. The denylist applies whatever the schema; a
 * pg_catalog or information_schema function is refused unless its class
 * (validate_pg_proc.h) is safe or guarded, and refused too when that schema
 * has no function of the name; an unqualified name neither schema has is
 * left to the world's own schemas.
 */
const char *pgv_function_refused(const char *schema, const char *name);

/* True when the denylist table is in strictly ascending strcmp order. */
bool pgv_function_table_sorted(void);

#endif
