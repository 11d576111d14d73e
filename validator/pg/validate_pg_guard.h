/*
 * validate_pg_guard: what a read reaches through the backend's own name
 * resolution, which the statement's text does not show. Postgres looks an
 * unqualified operator up in every schema of the search_path, and not
 * only where one is written: IN, CASE x WHEN, JOIN ... USING, IS DISTINCT
 * FROM and NULLIF compare with "=". It reads c.f, when c has no column f,
 * as the call f(c). And it applies a cast the database created wherever
 * one fits. Each of these can run a function the database defines, whose
 * body airlock never read, with the backend role's grants.
 *
 * Which operator or function is reached depends on the argument types and
 * the backend's catalogs, so the check runs there: the guard is a read the
 * runner sends before the statement, in the same transaction and under the
 * same search_path. It fails (22P02, its text starting "airlock-guard:")
 * when one of the statement's operator names, or a name in column notation,
 * is defined in a schema of the search_path by a function the user's
 * `functions` does not list, or when a cast the statement can reach runs
 * such a function (an implicit one anywhere, an explicit one where the
 * statement casts to its target type), or when a domain the statement
 * casts to (or one it is over) checks its values with one. Operators and casts written in C or internal (the
 * server's own code, or an extension's that a superuser installed) pass,
 * as built-in ones do; a function by column notation passes only listed,
 * as a call does.
 *
 * A relation read without ONLY reads its inheritance children and
 * partitions too, with the grants and rules of the relation named: the
 * backend checks no grant on a child. The guard fails too when such a
 * relation has a descendant outside the user's tables, or one with a rule
 * of its own, which the read would show unfiltered.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_GUARD_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_GUARD_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/frame.h"
#include "validator/pg/validate_pg.h"

/* What a statement names that the backend resolves by the search_path. */
struct pgv_guard {
	const char **ops; /* unqualified operator names (views into the tree) */
	size_t nops, capops;
	const char **quals; /* schema, operator pairs of OPERATOR(schema.op) outside pg_catalog */
	size_t nquals, capquals;
	const char **attrs; /* names in column notation: the last field of a.b, (x).b */
	size_t nattrs, capattrs;
	const void **types; /* the target TypeNames of casts (PgQuery__TypeName, in the tree) */
	size_t ntypes, captypes;
	const char **calls; /* names of one-argument calls, which may be function-style casts */
	size_t ncalls, capcalls;
	const void **rels; /* relations read with their descendants (PgQuery__RangeVar without ONLY, in the tree) */
	size_t nrels, caprels;
	bool any_op;       /* too many names to list: every operator name counts */
	bool any_attr;     /* the same for column notation */
	bool any_type;     /* the same for cast targets: every explicit cast counts */
	bool any_rel;      /* the same for relations: every visible one counts */
	bool reach;        /* a call, operator or cast: an implicit cast may apply */
	bool failed;       /* out of memory */
	const char *alien; /* the schema of OPERATOR(schema.op) outside the world, or NULL */
	int alien_at;      /* its location */
};

/* Collects what the tree (a parse result or any node of one) names; g zero-initialised. */
void pgv_guard_collect(struct pgv_guard *g, const struct pgv_policy *p, ProtobufCMessage *tree);

/* The guard read for g (caller frees), NULL when the statement needs none or memory ran out (g->failed). */
char *pgv_guard_sql(struct pgv_guard *g, const struct pgv_policy *p);

/*
 * The guard read for a statement's parameters of the types oids (Parse's,
 * each one of the user's world): a value bound to a domain, or to a type
 * made of one, runs the domain's CHECK when the backend reads it. Caller
 * frees; NULL when n is 0 or memory ran out.
 */
char *pgv_guard_params_sql(const struct pgv_policy *p, const uint32_t *oids, size_t n);

/* Frees the arrays (not the names, which belong to the tree). */
void pgv_guard_free(struct pgv_guard *g);

#endif
