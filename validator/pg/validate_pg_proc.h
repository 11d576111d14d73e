/*
 * validate_pg_proc: every function name of pg_catalog and
 * information_schema (PostgreSQL 15), each with its class. The table is
 * generated from the backend's pg_proc by
 * integration/tools/gen_pg_functions.py; a name not in it is not a
 * function of either schema. Static data; nothing to free.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_PROC_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_PROC_H

#include <stdbool.h>
#include <stddef.h>

/* The schemas that hold a name (a bit each). */
#define PGV_PROC_PG 1u /* pg_catalog */
#define PGV_PROC_IS 2u /* information_schema */

enum pgv_fn_class {
	PGV_FN_SAFE,       /* no argument names an object airlock hides */
	PGV_FN_GUARDED,    /* the argument that names one is guarded (validate_pg_scope_funcs.c) */
	PGV_FN_DENY_LIST,  /* on the denylist (validate_pg_funcs.c): side effects, files, dynamic SQL, ... */
	PGV_FN_DENY_INPUT, /* takes cstring or internal: a type's input, receive or support function */
	PGV_FN_DENY_OID,   /* takes an oid or reg* that may name a hidden object, unguarded */
	PGV_FN_DENY_NAME,  /* takes a text that may name a hidden object, unguarded */
};

struct pgv_proc {
	const char *name;
	unsigned schemas; /* PGV_PROC_PG | PGV_PROC_IS */
	enum pgv_fn_class cls;
};

/* The entry for name (exact, case-sensitive), or NULL when neither schema has a function of that name. */
const struct pgv_proc *pgv_proc_find(const char *name);

/* True when the table is in strictly ascending strcmp order. */
bool pgv_proc_table_sorted(void);

/* Entry i, NULL past the end (tests walk the table with it). */
const struct pgv_proc *pgv_proc_entry(size_t i);

#endif
