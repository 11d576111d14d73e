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

struct pgv_policy;

/*
 * A function of the backend itself: name (exact, as the parser gives it) is
 * a function of pg_catalog or information_schema, or a built-in type's name
 * (a function-style cast such as json(x)).
 */
bool pgv_function_builtin(const char *name);

/* The policy's functions list holds schema.name (exactly, or as schema.*). */
bool pgv_function_allowed(const struct pgv_policy *p, const char *schema, const char *name);

/*
 * What an unqualified call of name must be qualified with so that the
 * session's search_path cannot make it another function than the one
 * judged: NULL when every schema of the path allows name (Postgres may
 * choose among them), else "pg_catalog" or "information_schema" for a
 * built-in name, else the first schema of the path that allows name; NULL
 * too for a name none of those holds (the read check refuses it).
 */
const char *pgv_function_qualifier(const struct pgv_policy *p, const char *name);

/* True when the denylist table is in strictly ascending strcmp order. */
bool pgv_function_table_sorted(void);

#endif
