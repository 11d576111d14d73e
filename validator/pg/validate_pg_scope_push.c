/*
 * validate_pg_scope_push: a read's own key lookups copied into the fenced
 * catalog copies it reads.
 *
 * A filtered catalog is read behind a fence (PGV_SCOPE_FENCE, a
 * MATERIALIZED CTE when hoisted), so the backend computes the whole
 * filtered copy before any condition of the statement applies: a lookup
 * of one table's columns (WHERE a.attrelid = 16400) copied all 2,700
 * attributes of the world and sorted them, 4 to 13 ms a statement.
 *
 * A conjunct of a query's WHERE that compares a catalog's key column with
 * a constant (alias.column = constant) says every row the query reads from
 * that reference has that value; the same comparison inside the copy's
 * filter leaves out only rows the query drops anyway, so what the
 * statement reads is unchanged. The comparison is written as
 * OPERATOR(pg_catalog.=) and only for the columns listed below, whose
 * types (oid, int2, int4, name, "char") have built-in, leakproof equality
 * (test_pg_catalog_scope.py checks each against the backend's catalog):
 * nothing it raises or does depends on the rows it is applied to, which
 * is what the fence is for, so it may run before the filter. Only a
 * column the copy reads as stored (not one read through the projection
 * that masks owners, ACLs and statistics) is listed, and only when
 * pg_catalog comes first in the search_path (the statement's "=" is then
 * pg_catalog's too). Anything else (a parameter, an expression, a column
 * in notation with a schema, a reference with column aliases) is left to
 * the statement, behind the fence, as before. Integer lookups are also
 * carried across the query's equalities of two columns (derive below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_util.h"

/*
 * pg_catalog's key columns a lookup compares with a constant, by relation,
 * each read as stored: nums are oid, int2 or int4 (an integer compares
 * with each without an error), names are name or "char".
 */
static const struct {
	const char *rel;
	const char *nums[5];
	const char *names[3];
} keys[] = {
	{"pg_am", {"oid"}, {"amname"}},
	{"pg_attrdef", {"oid", "adrelid", "adnum"}, {NULL}},
	{"pg_attribute", {"attrelid", "attnum"}, {"attname"}},
	{"pg_class", {"oid", "relnamespace"}, {"relname", "relkind"}},
	{"pg_collation", {"oid", "collnamespace"}, {"collname"}},
	{"pg_constraint", {"oid", "conrelid", "confrelid", "connamespace"}, {"contype", "conname"}},
	{"pg_depend", {"classid", "objid", "refclassid", "refobjid"}, {"deptype"}},
	{"pg_description", {"objoid", "classoid", "objsubid"}, {NULL}},
	{"pg_enum", {"enumtypid"}, {NULL}},
	{"pg_index", {"indrelid", "indexrelid"}, {NULL}},
	{"pg_inherits", {"inhrelid", "inhparent"}, {NULL}},
	{"pg_namespace", {"oid"}, {"nspname"}},
	{"pg_policy", {"polrelid"}, {NULL}},
	{"pg_proc", {"oid", "pronamespace"}, {"proname"}},
	{"pg_rewrite", {"ev_class"}, {NULL}},
	{"pg_sequence", {"seqrelid"}, {NULL}},
	{"pg_statistic_ext", {"stxrelid"}, {NULL}},
	{"pg_trigger", {"tgrelid"}, {NULL}},
	{"pg_type", {"oid", "typnamespace", "typrelid"}, {"typname", "typtype"}},
};

static bool listed(const char *const *list, size_t n, const char *col)
{
	for (size_t i = 0; i < n && list[i]; i++) {
		if (strcmp(list[i], col) == 0)
			return true;
	}
	return false;
}

/* col is a key column of rel; with nums_only, one of the numeric ones. */
static bool is_key(const char *rel, const char *col, bool nums_only)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(keys[i].rel, rel) != 0)
			continue;
		return listed(keys[i].nums, sizeof(keys[i].nums) / sizeof(keys[i].nums[0]), col) ||
		       (!nums_only && listed(keys[i].names, sizeof(keys[i].names) / sizeof(keys[i].names[0]), col));
	}
	return false;
}

/* n is "=" or pg_catalog."=" (the operator name list of an A_Expr). */
static bool is_equals(PgQuery__Node **name, size_t n)
{
	if (n == 2 &&
	    (name[0]->node_case != PG_QUERY__NODE__NODE_STRING || strcmp(name[0]->string->sval, "pg_catalog")))
		return false;
	return (n == 1 || n == 2) && name[n - 1]->node_case == PG_QUERY__NODE__NODE_STRING &&
	       strcmp(name[n - 1]->string->sval, "=") == 0;
}

/* A constant written as an integer or a string, as SQL into buf (*integer: which); false for anything else. */
static bool constant_text(const PgQuery__Node *n, struct pgv_sbuf *sb, bool *integer)
{
	const PgQuery__AConst *c;
	char num[16];

	if (n->node_case != PG_QUERY__NODE__NODE_A_CONST || (c = n->a_const)->isnull)
		return false;
	if (c->val_case == PG_QUERY__A__CONST__VAL_IVAL && c->ival) {
		snprintf(num, sizeof(num), "%d", (int)c->ival->ival);
		pgv_sb_put(sb, num);
		*integer = true;
		return true;
	}
	if (c->val_case == PG_QUERY__A__CONST__VAL_SVAL && c->sval && c->sval->sval) {
		pgv_sb_literal(sb, c->sval->sval);
		*integer = false;
		return true;
	}
	return false;
}

/* alias.column: both names into *q, *col; false for any other column reference. */
static bool two_part(const PgQuery__Node *n, const char **q, const char **col)
{
	const PgQuery__ColumnRef *c;

	if (n->node_case != PG_QUERY__NODE__NODE_COLUMN_REF || (c = n->column_ref)->n_fields != 2 ||
	    c->fields[0]->node_case != PG_QUERY__NODE__NODE_STRING ||
	    c->fields[1]->node_case != PG_QUERY__NODE__NODE_STRING)
		return false;
	*q = c->fields[0]->string->sval;
	*col = c->fields[1]->string->sval;
	return *q && *col;
}

/* Lookups a statement keeps, written ones (a statement with more is read with the rest behind the fence). */
#define PUSH_MAX_LOOKUPS 256

/* One conjunct: kept when it is alias.column = constant (either way round). */
static void conjunct(struct pgv_scope *sc, const PgQuery__Node *n)
{
	const PgQuery__AExpr *e;
	const char *q, *col;
	const PgQuery__Node *value;
	struct pgv_sbuf text = {0};
	struct pgv_push *p;
	char *sql = NULL;
	bool integer = false;

	if (sc->npush >= PUSH_MAX_LOOKUPS || n->node_case != PG_QUERY__NODE__NODE_A_EXPR ||
	    (e = n->a_expr)->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || !e->lexpr || !e->rexpr ||
	    !is_equals(e->name, e->n_name))
		return;
	if (two_part(e->lexpr, &q, &col))
		value = e->rexpr;
	else if (two_part(e->rexpr, &q, &col))
		value = e->lexpr;
	else
		return;
	if (!constant_text(value, &text, &integer) || !(sql = pgv_sb_take(&text)) ||
	    !pgv_scope_grow(sc, (void **)&sc->push, &sc->cappush, sc->npush, sizeof(*sc->push))) {
		free(sql);
		return;
	}
	p = &sc->push[sc->npush];
	*p = (struct pgv_push){
		.qual = pgv_scope_strdup(sc, q),
		.col = pgv_scope_strdup(sc, col),
		.value = pgv_scope_strdup(sc, sql),
		.integer = integer,
		.holds = true,
	};
	free(sql);
	if (p->qual && p->col && p->value)
		sc->npush++;
}

/* At most this many column equalities of one query are followed, and lookups one query derives. */
#define PUSH_MAX_PAIRS 32
#define PUSH_MAX_DERIVED 32

/*
 * Equalities alias.col = alias.col of one query. An inner one (a WHERE
 * term, an inner join's ON term) holds for every row the query keeps; an
 * outer join's ON term holds only where the join matched, and is kept
 * only when its two columns are on either side of that join.
 */
struct pairs {
	struct {
		const char *q[2], *c[2];
		bool outer;
	} p[PUSH_MAX_PAIRS];
	size_t n;
};

/* The top-level AND terms of w: *terms and how many (w alone when it is not an AND). */
static size_t and_terms(PgQuery__Node *w, PgQuery__Node ***terms, PgQuery__Node **one)
{
	if (!w)
		return 0;
	if (w->node_case == PG_QUERY__NODE__NODE_BOOL_EXPR &&
	    w->bool_expr->boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR) {
		*terms = w->bool_expr->args;
		return w->bool_expr->n_args;
	}
	*one = w;
	*terms = one;
	return 1;
}

/* The FROM item n makes the name q visible (a relation's alias or name, a subquery's or function's alias). */
static bool binds(const PgQuery__Node *n, const char *q, int depth)
{
	const PgQuery__Alias *a = NULL;

	if (!n || depth > PGV_SCOPE_MAX_DEPTH)
		return false;
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_RANGE_VAR:
		a = n->range_var->alias;
		return !strcmp(a && a->aliasname       ? a->aliasname
			       : n->range_var->relname ? n->range_var->relname
						       : "",
			       q);
	case PG_QUERY__NODE__NODE_RANGE_SUBSELECT:
		a = n->range_subselect->alias;
		break;
	case PG_QUERY__NODE__NODE_RANGE_FUNCTION:
		a = n->range_function->alias;
		break;
	case PG_QUERY__NODE__NODE_JOIN_EXPR:
		if (n->join_expr->alias)
			return n->join_expr->alias->aliasname && !strcmp(n->join_expr->alias->aliasname, q);
		return binds(n->join_expr->larg, q, depth + 1) || binds(n->join_expr->rarg, q, depth + 1);
	default:
		return false;
	}
	return a && a->aliasname && !strcmp(a->aliasname, q);
}

/* The equalities among w's terms; of an outer join j, only those with a column on each side. */
static void equalities(PgQuery__Node *w, const PgQuery__JoinExpr *j, struct pairs *ps)
{
	PgQuery__Node **terms, *one;
	size_t n = and_terms(w, &terms, &one);

	for (size_t i = 0; i < n && ps->n < PUSH_MAX_PAIRS; i++) {
		const PgQuery__AExpr *e;
		const char **q = ps->p[ps->n].q, **c = ps->p[ps->n].c;

		if (terms[i]->node_case != PG_QUERY__NODE__NODE_A_EXPR ||
		    (e = terms[i]->a_expr)->kind != PG_QUERY__A__EXPR__KIND__AEXPR_OP || !e->lexpr || !e->rexpr ||
		    !is_equals(e->name, e->n_name) || !two_part(e->lexpr, &q[0], &c[0]) ||
		    !two_part(e->rexpr, &q[1], &c[1]))
			continue;
		if (j && !((binds(j->larg, q[0], 0) && binds(j->rarg, q[1], 0)) ||
			   (binds(j->larg, q[1], 0) && binds(j->rarg, q[0], 0))))
			continue;
		ps->p[ps->n++].outer = j != NULL;
	}
}

/* The ON terms of the joins of a FROM item (not into subqueries). */
static void join_equalities(PgQuery__Node *n, struct pairs *ps, int depth)
{
	const PgQuery__JoinExpr *j;

	if (!n || depth > PGV_SCOPE_MAX_DEPTH || n->node_case != PG_QUERY__NODE__NODE_JOIN_EXPR)
		return;
	j = n->join_expr;
	/* Names inside an aliased join are out of the query's sight. */
	if (j->alias)
		return;
	if (!j->is_natural && !j->n_using_clause)
		equalities(j->quals, j->jointype == PG_QUERY__JOIN_TYPE__JOIN_INNER ? NULL : j, ps);
	join_equalities(j->larg, ps, depth + 1);
	join_equalities(j->rarg, ps, depth + 1);
}

static bool has_lookup(const struct pgv_scope *sc, size_t first, const char *q, const char *col, const char *value)
{
	for (size_t i = first; i < sc->npush; i++) {
		const struct pgv_push *p = &sc->push[i];

		if (!strcmp(p->qual, q) && !strcmp(p->col, col) && !strcmp(p->value, value))
			return true;
	}
	return false;
}

/*
 * A query's integer lookups carried across its column equalities: with
 * a.attrelid = 16400 and pgd.objoid = a.attrelid, pgd.objoid = 16400.
 * A lookup written in the WHERE holds for every row the query keeps, and
 * so does one carried across an inner equality from one that holds; those
 * are carried on. Across an outer join's ON term (a column on each side)
 * one that holds gives the other side's copy a filter, carried no
 * further: a row of that side that fails it matches only rows the query
 * drops, or is NULL-extended where the lookup that holds then drops it.
 * Only numeric key columns take a carried one (an integer compares with
 * each without an error).
 */
static void derive(struct pgv_scope *sc, size_t first, const struct pairs *ps)
{
	size_t added = 0;

	for (size_t i = first; i < sc->npush && added < PUSH_MAX_DERIVED; i++) {
		for (size_t k = 0; sc->push[i].integer && sc->push[i].holds && k < ps->n && added < PUSH_MAX_DERIVED;
		     k++) {
			for (int side = 0; side < 2; side++) {
				struct pgv_push e = sc->push[i];
				const char *q = ps->p[k].q[!side], *col = ps->p[k].c[!side];

				if (strcmp(ps->p[k].q[side], e.qual) || strcmp(ps->p[k].c[side], e.col) ||
				    has_lookup(sc, first, q, col, e.value) ||
				    !pgv_scope_grow(sc, (void **)&sc->push, &sc->cappush, sc->npush, sizeof(*sc->push)))
					continue;
				sc->push[sc->npush++] = (struct pgv_push){.qual = pgv_scope_strdup(sc, q),
									  .col = pgv_scope_strdup(sc, col),
									  .value = e.value,
									  .integer = true,
									  .derived = true,
									  .holds = !ps->p[k].outer};
				if (!sc->push[sc->npush - 1].qual || !sc->push[sc->npush - 1].col)
					sc->npush--;
				added++;
			}
		}
	}
}

/* The relations of a FROM item (through joins, not into subqueries): each gets the query's conjuncts from first. */
static void from_item(struct pgv_scope *sc, const PgQuery__Node *n, size_t first, size_t end, int depth)
{
	if (!n || depth > PGV_SCOPE_MAX_DEPTH)
		return;
	if (n->node_case == PG_QUERY__NODE__NODE_JOIN_EXPR) {
		/* Names inside an aliased join are out of the query's sight. */
		if (n->join_expr->alias)
			return;
		from_item(sc, n->join_expr->larg, first, end, depth + 1);
		from_item(sc, n->join_expr->rarg, first, end, depth + 1);
		return;
	}
	if (n->node_case != PG_QUERY__NODE__NODE_RANGE_VAR)
		return;
	for (size_t i = first; i < end; i++) {
		const PgQuery__RangeVar *rv = n->range_var;
		const char *name = rv->alias && rv->alias->aliasname ? rv->alias->aliasname : rv->relname;

		if (!sc->push[i].rv && name && !(rv->alias && rv->alias->n_colnames) && !strcmp(name, sc->push[i].qual))
			sc->push[i].rv = rv;
	}
}

void pgv_scope_push_collect(void *ctx, ProtobufCMessage *m, int depth)
{
	struct pgv_scope *sc = ctx;

	if (depth > PGV_SCOPE_MAX_DEPTH || sc->refused)
		return;
	if (m->descriptor == &pg_query__select_stmt__descriptor) {
		const PgQuery__SelectStmt *s = (const PgQuery__SelectStmt *)m;
		PgQuery__Node **terms, *one;
		size_t first = sc->npush, n = and_terms(s->where_clause, &terms, &one);
		struct pairs ps;

		for (size_t i = 0; i < n; i++)
			conjunct(sc, terms[i]);
		if (sc->npush > first) {
			ps.n = 0;
			equalities(s->where_clause, NULL, &ps);
			for (size_t i = 0; i < s->n_from_clause; i++)
				join_equalities(s->from_clause[i], &ps, depth);
			derive(sc, first, &ps);
		}
		for (size_t i = 0; i < s->n_from_clause; i++)
			from_item(sc, s->from_clause[i], first, sc->npush, depth);
	}
	pgv_scope_each_child(m, pgv_scope_push_collect, sc, depth);
}

size_t pgv_scope_push_put(struct pgv_scope *sc, struct pgv_sbuf *sb, const PgQuery__RangeVar *rv, const char *rel)
{
	size_t n = 0;

	for (size_t i = 0; i < sc->npush; i++) {
		const struct pgv_push *p = &sc->push[i];

		if (p->rv != rv || !is_key(rel, p->col, p->derived))
			continue;
		pgv_sb_put(sb, " AND r.");
		pgv_sb_ident(sb, p->col);
		pgv_sb_put(sb, " OPERATOR(pg_catalog.=) ");
		pgv_sb_put(sb, p->value);
		n++;
	}
	return n;
}
