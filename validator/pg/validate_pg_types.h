/*
 * validate_pg_types: the built-in type names of pg_catalog. Static data;
 * nothing to free.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_TYPES_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_TYPES_H

#include <stdbool.h>

/* True when name (exact, case-sensitive) is a type of pg_catalog. */
bool pgv_builtin_type(const char *name);

/* True when the name table is in strictly ascending strcmp order. */
bool pgv_type_table_sorted(void);

#endif
