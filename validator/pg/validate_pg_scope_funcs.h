/*
 * validate_pg_scope_funcs: catalog functions whose argument names a
 * relation, type, constraint, trigger, rule or statistics object. Static
 * data; nothing to free.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_FUNCS_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_SCOPE_FUNCS_H

#include <stdbool.h>

/* What the guarded value names. */
enum pgv_guard_kind {
	PGV_G_REL,   /* a relation (regclass, oid or a name to resolve) */
	PGV_G_TYPE,  /* a type (oid or a name to resolve) */
	PGV_G_VIEW,  /* a relation, also hidden when it is a view that reads outside the world */
	PGV_G_CON,   /* a constraint oid */
	PGV_G_TRIG,  /* a trigger oid */
	PGV_G_RULE,  /* a rewrite rule oid */
	PGV_G_STATX, /* an extended statistics object oid */
	PGV_G_OBJ,   /* an oid of any catalog: hidden when it is a hidden relation, constraint or type */
	PGV_G_FUNC,  /* a function: kept as an oid of the world's functions, NULL as a text signature
		      * (whose argument types Postgres 15 resolves and raises on only when missing) */
	PGV_G_NSP,   /* a schema (oid or a name to resolve) */
	PGV_G_PROC,  /* a function's oid: hidden outside the world's functions (a hidden schema, a
		      * hidden type, or defined in the database and not listed) */
	PGV_G_OPER,  /* an operator's oid: hidden in a hidden schema or over a hidden type */
	PGV_G_COLL,  /* a collation's oid: hidden in a hidden schema */
};

/* The declared type of the argument: how a string literal there is read. */
enum pgv_guard_param {
	PGV_P_REGCLASS, /* a name, or digits for an oid */
	PGV_P_OID,      /* digits; every overload takes an oid there (test_pg_function_sweep.py checks) */
	PGV_P_TEXT,     /* a name (text overloads: has_table_privilege, to_regclass, ...) */
};

/* The function's result rather than an argument is guarded. */
#define PGV_GUARD_RESULT 99

struct pgv_guarded_fn {
	const char *name;
	signed char arg; /* 0-based; negative counts from the end (-2: second to last); PGV_GUARD_RESULT */
	enum pgv_guard_kind kind;
	enum pgv_guard_param param;
};

/* The entry for a function name (lower-case, unqualified), or NULL. */
const struct pgv_guarded_fn *pgv_guarded_find(const char *name);

bool pgv_guarded_table_sorted(void);

#endif
