/*
 * validate_pg_scope_hoist: a read's filtered catalogs, and the visible
 * set their filters share, as CTEs of the read's outermost query.
 *
 * A catalog's filter written where the reference is runs again wherever
 * the reference does: inside a correlated subquery (psql's \d reads a
 * collation per column) once per outer row, and the visible set once per
 * filter; and each copy is planned again (SQLAlchemy's column query,
 * with a guard per function argument, took 30 ms to plan). As a
 * MATERIALIZED CTE each runs, and is planned, once per statement. A CTE is a
 * fence as OFFSET 0 is (the statement's conditions are not pushed into it),
 * and its query reads nothing of the statement, so the rows each
 * reference sees are the same.
 *
 * The names are airlock_c<n>, the world's sets' (airlock_visible,
 * airlock_types, airlock_constraints, airlock_schemas, airlock_functions:
 * validate_pg_scope_sql.h), and airlock_allowed and airlock_ruled, CTEs
 * inside the templates. A name resolves to the
 * nearest CTE of that name, so the agent's own CTEs may not take them
 * (pgv_scope_hoist_reserved), nor may an unqualified relation (it would
 * read ours instead); the guard knows them as CTEs, not tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"

#define PREFIX "airlock_c"

/* "airlock_c<i + 1>" into buf. */
static void cte_name(char buf[32], size_t i)
{
	snprintf(buf, 32, PREFIX "%zu", i + 1);
}

bool pgv_scope_hoist_reserved(const char *name)
{
	const char *d;

	if (!name)
		return false;
	/* The world's sets' CTEs, and the templates' inner ones. */
	if (pgv_scope_set_named(name) || !strcmp(name, "airlock_allowed") || !strcmp(name, "airlock_ruled"))
		return true;
	if (strncmp(name, PREFIX, sizeof(PREFIX) - 1) != 0 || !name[sizeof(PREFIX) - 1])
		return false;
	for (d = name + sizeof(PREFIX) - 1; *d; d++) {
		if (*d < '0' || *d > '9')
			return false;
	}
	return true;
}

void pgv_scope_hoist_begin(struct pgv_scope *sc, PgQuery__ParseResult *tree)
{
	PgQuery__Node *n;

	if (sc->write || tree->n_stmts != 1 || !tree->stmts[0]->stmt)
		return;
	n = tree->stmts[0]->stmt;
	if (n->node_case == PG_QUERY__NODE__NODE_EXPLAIN_STMT)
		n = n->explain_stmt->query;
	if (n && n->node_case == PG_QUERY__NODE__NODE_DECLARE_CURSOR_STMT)
		n = n->declare_cursor_stmt->query;
	sc->hoist.target = pgv_scope_select(n);
}

/* "airlock_c<i + 1>", kept until pgv_scope_free. */
static const char *name_of(struct pgv_scope *sc, size_t i)
{
	char name[32];

	cte_name(name, i);
	return pgv_scope_strdup(sc, name);
}

const char *pgv_scope_hoist_add(struct pgv_scope *sc, struct pgv_sbuf *body)
{
	unsigned sets_read = body->sets_read;
	char *text = pgv_sb_take(body);
	size_t i;

	if (!text) {
		pgv_scope_out_of_memory(sc);
		return NULL;
	}
	sc->hoist.sets_read |= sets_read;
	for (i = 0; i < sc->hoist.n; i++) {
		if (strcmp(sc->hoist.bodies[i], text) == 0) {
			free(text);
			return name_of(sc, i);
		}
	}
	if (!pgv_scope_grow(sc, (void **)&sc->hoist.bodies, &sc->hoist.cap, sc->hoist.n, sizeof(*sc->hoist.bodies))) {
		free(text);
		return NULL;
	}
	sc->hoist.bodies[sc->hoist.n++] = text;
	return name_of(sc, i);
}

/* The WITH list of the CTEs added, parsed (kept until pgv_scope_free); NULL when refused. */
static PgQuery__WithClause *hoisted_with(struct pgv_scope *sc)
{
	struct pgv_sbuf sb = {0};
	PgQuery__SelectStmt *sel;
	size_t i, nsets;

	pgv_sb_put(&sb, "WITH ");
	nsets = pgv_scope_put_sets(&sb, sc->policy, sc->hoist.sets_read);
	pgv_sb_put(&sb, nsets && sc->hoist.n ? ", " : "");
	for (i = 0; i < sc->hoist.n; i++) {
		char name[32];

		cte_name(name, i);
		pgv_sb_put(&sb, i ? ", " : "");
		pgv_sb_put(&sb, name);
		pgv_sb_put(&sb, " AS MATERIALIZED (");
		pgv_sb_put(&sb, sc->hoist.bodies[i]);
		pgv_sb_put(&sb, ")");
	}
	pgv_sb_put(&sb, " SELECT 1");
	sel = pgv_scope_select(pgv_scope_template(sc, &sb));
	if (!sel)
		return NULL;
	if (!sel->with_clause || sel->with_clause->n_ctes != sc->hoist.n + nsets) {
		pgv_scope_internal(sc, "a scoping template has an unexpected shape");
		return NULL;
	}
	return sel->with_clause;
}

void pgv_scope_hoist_finish(struct pgv_scope *sc)
{
	PgQuery__SelectStmt *t = sc->hoist.target;
	PgQuery__WithClause *ours, *theirs;
	PgQuery__Node **ctes;

	if (!t || sc->refused || (sc->hoist.n == 0 && !sc->hoist.sets_read))
		return;
	ours = hoisted_with(sc);
	if (!ours)
		return;
	theirs = t->with_clause;
	if (!theirs) {
		if (pgv_scope_save(sc, &t->with_clause, sizeof(t->with_clause)))
			t->with_clause = ours;
		return;
	}
	/* Ours first: a CTE of a plain WITH reads only those before it, and theirs read ours. */
	ctes = pgv_scope_alloc(sc, (ours->n_ctes + theirs->n_ctes) * sizeof(*ctes));
	if (!ctes || !pgv_scope_save(sc, &theirs->ctes, sizeof(theirs->ctes)) ||
	    !pgv_scope_save(sc, &theirs->n_ctes, sizeof(theirs->n_ctes)))
		return;
	memcpy(ctes, ours->ctes, ours->n_ctes * sizeof(*ctes));
	memcpy(ctes + ours->n_ctes, theirs->ctes, theirs->n_ctes * sizeof(*ctes));
	theirs->ctes = ctes;
	theirs->n_ctes += ours->n_ctes;
}
