/*
 * validate_pg_funcs: the function denylist. Functions with side effects
 * (files, large objects, sequences, advisory locks, notifications, server
 * administration, replication, configuration, statistics resets) and
 * functions that run SQL text or read whole tables by name (and so would
 * step around the table allowlist) are refused wherever they appear.
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

/* True when the denylist table is in strictly ascending strcmp order. */
bool pgv_function_table_sorted(void);

#endif
