/*
 * validate_pg_types: the built-in type names of pg_catalog, and which type
 * oids a client's Parse may give that need checking against the user's
 * world. The tables are static data; pgv_param_type_check_sql returns heap
 * memory the caller frees.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_TYPES_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when name (exact, case-sensitive) is a type of pg_catalog. */
bool pgv_builtin_type(const char *name);

/* True when the name table is in strictly ascending strcmp order. */
bool pgv_type_table_sorted(void);

/*
 * Whether a parameter type oid from Parse may name a type outside the
 * user's world (the row type of a hidden relation, or its array), so that
 * it must be checked before the backend sees it: every oid from 10000 up
 * (what initdb and users create, the row types of most catalogs and of
 * the system views) and the row types of the catalogs that have fixed
 * oids below that, with their arrays. False for 0 (the server infers the
 * type) and every other built-in type: those cost nothing.
 */
bool pgv_param_type_needs_check(uint32_t oid);

/*
 * The name of oid when it is a reg* type or an array of one, else NULL. A
 * parameter of such a type is read by the type's input function, which
 * resolves a hidden relation's or a role's name and prints it back: such
 * parameters are refused (a value cast in the statement is guarded).
 */
const char *pgv_param_type_refused(uint32_t oid);

/*
 * A read that, once scoped to a policy (validate_pg_scope.h: the cast to
 * regtype is guarded there, so a type outside the world reads as NULL),
 * returns the first of the n oids (in their order) that is no type of the
 * world, as one row of one oid column, or no row when all are. Heap; NULL
 * when n is 0 or memory ran out.
 */
char *pgv_param_type_check_sql(const uint32_t *oids, size_t n);

#endif
