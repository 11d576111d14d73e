/*
 * validate_pg_guard: see validate_pg_guard.h. The collection walks the
 * protobuf tree by its descriptors (pgv_scope_each_child), so a node kind
 * that holds an operator name cannot be missed by a walk that forgot it;
 * the node kinds below are the ones whose names or implicit "=" it reads.
 *
 * The guard itself runs under the agent's search_path, so every operator
 * and function in it is written schema-qualified.
 */
#include "validator/pg/validate_pg_guard.h"

#include <pg_query.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "validator/pg/validate_pg_read.h"
#include "validator/pg/validate_pg_types.h"
#include "validator/pg/validate_pg_util.h"
#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"

/* Past this many distinct names of a kind, the guard checks every name of that kind. */
#define GUARD_MAX_NAMES 256

/* Room for need elements of elem bytes in *arr (capacity *cap); false, and g->failed, when memory ran out. */
static bool room(struct pgv_guard *g, void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return true;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p) {
		g->failed = true;
		return false;
	}
	*arr = p;
	*cap = ncap;
	return true;
}

/* Adds name to *arr unless there; false when the list is full. */
static bool add_name(struct pgv_guard *g, const char ***arr, size_t *n, size_t *cap, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp((*arr)[i], name) == 0)
			return true;
	}
	if (*n >= GUARD_MAX_NAMES)
		return false;
	if (room(g, (void **)arr, cap, *n + 1, sizeof(**arr)))
		(*arr)[(*n)++] = name;
	return true;
}

static void add_op(struct pgv_guard *g, const char *name)
{
	if (!g->any_op && !add_name(g, &g->ops, &g->nops, &g->capops, name))
		g->any_op = true;
	g->reach = true;
}

static void add_attr(struct pgv_guard *g, const char *name)
{
	if (!g->any_attr && !add_name(g, &g->attrs, &g->nattrs, &g->capattrs, name))
		g->any_attr = true;
}

static const char *string_of(const PgQuery__Node *n);

/* The same type name (its parts, and array or not; typmods aside). */
static bool same_type(const PgQuery__TypeName *a, const PgQuery__TypeName *b)
{
	if (a->n_names != b->n_names || !a->n_array_bounds != !b->n_array_bounds)
		return false;
	for (size_t i = 0; i < a->n_names; i++) {
		const char *x = string_of(a->names[i]), *y = string_of(b->names[i]);

		if (!x || !y || strcmp(x, y) != 0)
			return false;
	}
	return true;
}

static void add_type(struct pgv_guard *g, const PgQuery__TypeName *tn)
{
	if (g->any_type || !tn)
		return;
	for (size_t i = 0; i < g->ntypes; i++) {
		if (same_type(g->types[i], tn))
			return;
	}
	if (g->ntypes >= GUARD_MAX_NAMES) {
		g->any_type = true;
		return;
	}
	if (room(g, (void **)&g->types, &g->captypes, g->ntypes + 1, sizeof(*g->types)))
		g->types[g->ntypes++] = tn;
}

static const char *string_of(const PgQuery__Node *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_STRING && n->string->sval ? n->string->sval : NULL;
}

struct walk {
	struct pgv_guard *g;
	const struct pgv_policy *p;
};

/* An operator name as the grammar keeps it: op, or schema then op for OPERATOR(schema.op). */
static void operator_name(struct walk *w, PgQuery__Node **name, size_t n, int location)
{
	struct pgv_guard *g = w->g;
	const char *schema = n == 2 ? string_of(name[0]) : NULL, *op = n ? string_of(name[n - 1]) : NULL;

	if (!op)
		return;
	if (n == 1) {
		add_op(g, op);
		return;
	}
	g->reach = true;
	if (!schema || !strcmp(schema, "pg_catalog"))
		return;
	if (!pgv_world_schema(w->p, schema)) {
		if (!g->alien) {
			g->alien = schema;
			g->alien_at = location;
		}
		return;
	}
	/* Pairs are few (each written out); past the bound every name counts. */
	if (g->nquals + 2 > 2 * GUARD_MAX_NAMES) {
		g->any_op = true;
		return;
	}
	if (!room(g, (void **)&g->quals, &g->capquals, g->nquals + 2, sizeof(*g->quals)))
		return;
	g->quals[g->nquals++] = schema;
	g->quals[g->nquals++] = op;
}

static void a_expr(struct walk *w, const PgQuery__AExpr *e)
{
	switch (e->kind) {
	case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN:
	case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN:
	case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM:
	case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM:
		/* The name is the keyword; the comparisons are these. */
		add_op(w->g, "<=");
		add_op(w->g, ">=");
		add_op(w->g, "<");
		add_op(w->g, ">");
		return;
	default:
		operator_name(w, e->name, e->n_name, e->location);
		return;
	}
}

/* The last field of a.b (a.b.c, ...): a column, or the call b(a) when a has none of that name. */
static void column_ref(struct walk *w, const PgQuery__ColumnRef *c)
{
	const char *last = c->n_fields >= 2 ? string_of(c->fields[c->n_fields - 1]) : NULL;

	if (last)
		add_attr(w->g, last);
}

static void indirection(struct walk *w, const PgQuery__AIndirection *a)
{
	for (size_t i = 0; i < a->n_indirection; i++) {
		const char *name = string_of(a->indirection[i]);

		if (name)
			add_attr(w->g, name);
	}
}

static void sub_link(struct walk *w, const PgQuery__SubLink *s)
{
	if (s->n_oper_name)
		operator_name(w, s->oper_name, s->n_oper_name, s->location);
	else if (s->sub_link_type == PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK)
		add_op(w->g, "="); /* x IN (SELECT ...) */
}

/* f(x) is the cast of x to type f when f names a type and no function. */
static void func_call(struct walk *w, const PgQuery__FuncCall *f)
{
	const char *name = f->n_funcname ? string_of(f->funcname[f->n_funcname - 1]) : NULL;

	w->g->reach = true;
	if (name && f->n_args == 1 && !w->g->any_type &&
	    !add_name(w->g, &w->g->calls, &w->g->ncalls, &w->g->capcalls, name))
		w->g->any_type = true;
}

/*
 * A relation read with its descendants; catalogs have none, and neither
 * has a CTE of the scoping's (in FROM, unqualified, by a name the agent's
 * relations may not take: pgv_scope_hoist_reserved). from: a FROM item
 * (a Node), not a write's own table.
 */
static void range_var(struct walk *w, const PgQuery__RangeVar *rv, bool from)
{
	struct pgv_guard *g = w->g;
	const char *s = rv->schemaname;

	if (!rv->inh || !rv->relname || !rv->relname[0] || g->any_rel || (rv->catalogname && rv->catalogname[0]) ||
	    (s && (!strcmp(s, "pg_catalog") || !strcmp(s, "information_schema"))) ||
	    (from && !(s && s[0]) && pgv_scope_hoist_reserved(rv->relname)))
		return;
	for (size_t i = 0; i < g->nrels; i++) {
		const PgQuery__RangeVar *o = g->rels[i];

		if (!strcmp(o->relname, rv->relname) && !strcmp(o->schemaname ? o->schemaname : "", s ? s : ""))
			return;
	}
	if (g->nrels >= GUARD_MAX_NAMES) {
		g->any_rel = true;
		return;
	}
	if (room(g, (void **)&g->rels, &g->caprels, g->nrels + 1, sizeof(*g->rels)))
		g->rels[g->nrels++] = rv;
}

static void node(struct walk *w, const PgQuery__Node *n)
{
	switch (n->node_case) {
	case PG_QUERY__NODE__NODE_RANGE_VAR:
		range_var(w, n->range_var, true);
		break;
	case PG_QUERY__NODE__NODE_A_EXPR:
		a_expr(w, n->a_expr);
		break;
	case PG_QUERY__NODE__NODE_COLUMN_REF:
		column_ref(w, n->column_ref);
		break;
	case PG_QUERY__NODE__NODE_A_INDIRECTION:
		indirection(w, n->a_indirection);
		break;
	case PG_QUERY__NODE__NODE_SUB_LINK:
		sub_link(w, n->sub_link);
		break;
	case PG_QUERY__NODE__NODE_CASE_EXPR:
		if (n->case_expr->arg)
			add_op(w->g, "="); /* CASE x WHEN v */
		break;
	case PG_QUERY__NODE__NODE_JOIN_EXPR:
		if (n->join_expr->n_using_clause || n->join_expr->is_natural)
			add_op(w->g, "=");
		break;
	case PG_QUERY__NODE__NODE_SORT_BY:
		if (n->sort_by->n_use_op)
			operator_name(w, n->sort_by->use_op, n->sort_by->n_use_op, n->sort_by->location);
		break;
	case PG_QUERY__NODE__NODE_TYPE_CAST:
		add_type(w->g, n->type_cast->type_name);
		w->g->reach = true;
		break;
	case PG_QUERY__NODE__NODE_FUNC_CALL:
		func_call(w, n->func_call);
		break;
	default:
		break;
	}
}

static void collect(void *ctx, ProtobufCMessage *m, int depth)
{
	struct walk *w = ctx;

	/* The scoping bounds the agent's nesting; past this only templates could go, and every name counts. */
	if (depth > 2 * PGV_SCOPE_MAX_DEPTH) {
		w->g->any_op = w->g->any_attr = w->g->reach = true;
		return;
	}
	if (m->descriptor == &pg_query__node__descriptor) {
		const PgQuery__Node *n = (const PgQuery__Node *)m;

		node(w, n);
		if (n->node_case == PG_QUERY__NODE__NODE_RANGE_VAR)
			return; /* a FROM item: not its RangeVar again as a write's table; nothing under it counts */
	} else if (m->descriptor == &pg_query__range_var__descriptor)
		range_var(w, (const PgQuery__RangeVar *)m,
			  false); /* a write's own table: it writes the descendants too */
	pgv_scope_each_child(m, collect, w, depth + 1);
}

void pgv_guard_collect(struct pgv_guard *g, const struct pgv_policy *p, ProtobufCMessage *tree)
{
	struct walk w = {.g = g, .p = p};

	collect(&w, tree, 0);
}

/* ---- the guard read ---- */

#define EQ " OPERATOR(pg_catalog.=) "
#define CAT " OPERATOR(pg_catalog.||) "

/*
 * The oids of the search_path's schemas. The objects initdb makes
 * (pg_catalog's, information_schema's) have oids below 16384
 * (FirstNormalObjectId); everything the database defines, one above.
 */
#define PATH_OIDS                                                                   \
	"(SELECT ns.oid FROM pg_catalog.pg_namespace ns WHERE ns.nspname" EQ "ANY " \
	"(pg_catalog.current_schemas(false)))"
#define DEFINED " OPERATOR(pg_catalog.>=) 16384::pg_catalog.oid"

/* ARRAY['a', 'b']::pg_catalog.<type>[] */
static void put_array(struct pgv_sbuf *sb, const char *const *names, size_t n, const char *type)
{
	pgv_sb_put(sb, "ARRAY[");
	for (size_t i = 0; i < n; i++) {
		pgv_sb_put(sb, i ? ", " : "");
		pgv_sb_literal(sb, names[i] ? names[i] : "");
	}
	pgv_sb_put(sb, "]::pg_catalog.");
	pgv_sb_put(sb, type);
	pgv_sb_put(sb, "[]");
}

/*
 * The function fp (a pg_proc row) may be reached: the user's functions
 * list it (schema.name or schema.*) or, when c_too, it is written in C or
 * internal (12, 13: fixed oids), the server's code or an extension's.
 */
static void put_trusted(struct pgv_sbuf *sb, const struct pgv_policy *pol, bool c_too)
{
	pgv_sb_put(sb, "(false");
	if (c_too)
		pgv_sb_put(sb, " OR fp.prolang" EQ "ANY (ARRAY[12, 13]::pg_catalog.oid[])");
	if (pol->nfunctions > 0) {
		pgv_sb_put(sb, " OR EXISTS (SELECT FROM pg_catalog.pg_namespace fn WHERE fn.oid" EQ
			       "fp.pronamespace AND (pg_catalog.concat(fn.nspname, '.', fp.proname)" EQ "ANY (");
		put_array(sb, pol->functions, pol->nfunctions, "text");
		pgv_sb_put(sb, ") OR pg_catalog.concat(fn.nspname, '.*')" EQ "ANY (");
		put_array(sb, pol->functions, pol->nfunctions, "text");
		pgv_sb_put(sb, ")))");
	}
	pgv_sb_put(sb, ")");
}

/* The function whose oid is the expression func is one the database defines and the user may not reach. */
static void put_unreachable(struct pgv_sbuf *sb, const struct pgv_policy *pol, const char *func, bool c_too)
{
	pgv_sb_put(sb, func);
	pgv_sb_put(sb, DEFINED " AND NOT EXISTS (SELECT FROM pg_catalog.pg_proc fp WHERE fp.oid" EQ);
	pgv_sb_put(sb, func);
	pgv_sb_put(sb, " AND ");
	put_trusted(sb, pol, c_too);
	pgv_sb_put(sb, ")");
}

static void put_operators(struct pgv_sbuf *sb, const struct pgv_guard *g, const struct pgv_policy *pol)
{
	pgv_sb_put(sb, "SELECT 'operator '" CAT "o.oprname::pg_catalog.text FROM pg_catalog.pg_operator o WHERE ");
	put_unreachable(sb, pol, "o.oprcode::pg_catalog.oid", true);
	pgv_sb_put(sb, " AND ((o.oprnamespace" EQ "ANY " PATH_OIDS);
	if (!g->any_op) {
		pgv_sb_put(sb, " AND o.oprname" EQ "ANY (");
		put_array(sb, g->ops, g->nops, "name");
		pgv_sb_put(sb, ")");
	}
	pgv_sb_put(sb, ")");
	for (size_t i = 0; i + 1 < g->nquals; i += 2) {
		pgv_sb_put(sb, " OR (o.oprnamespace" EQ
			       "(SELECT qn.oid FROM pg_catalog.pg_namespace qn WHERE qn.nspname" EQ);
		pgv_sb_literal(sb, g->quals[i]);
		pgv_sb_put(sb, "::pg_catalog.name) AND o.oprname" EQ);
		pgv_sb_literal(sb, g->quals[i + 1]);
		pgv_sb_put(sb, "::pg_catalog.name)");
	}
	pgv_sb_put(sb, ")");
}

/* A function f(x) written x.f: one that takes one argument (or more, with defaults), never C's exempt. */
static void put_column_calls(struct pgv_sbuf *sb, const struct pgv_guard *g, const struct pgv_policy *pol)
{
	pgv_sb_put(sb, " UNION ALL SELECT 'function '" CAT "pc.proname::pg_catalog.text FROM pg_catalog.pg_proc pc"
		       " WHERE pc.pronargs OPERATOR(pg_catalog.>=) 1::pg_catalog.int2 AND pc.pronargs"
		       " OPERATOR(pg_catalog.-) pc.pronargdefaults OPERATOR(pg_catalog.<=) 1::pg_catalog.int2"
		       " AND pc.pronamespace" EQ "ANY " PATH_OIDS);
	if (!g->any_attr) {
		pgv_sb_put(sb, " AND pc.proname" EQ "ANY (");
		put_array(sb, g->attrs, g->nattrs, "name");
		pgv_sb_put(sb, ")");
	}
	pgv_sb_put(sb, " AND ");
	put_unreachable(sb, pol, "pc.oid", false);
}

/*
 * pg_catalog.to_regtype('"schema"."name"[]') of a cast's target (tn), or
 * of a call's name (tn NULL); quoted, so the text always parses.
 */
static void put_regtype(struct pgv_sbuf *sb, const PgQuery__TypeName *tn, const char *call)
{
	struct pgv_sbuf name = {0};

	for (size_t i = 0; tn && i < tn->n_names; i++) {
		const char *part = string_of(tn->names[i]);

		pgv_sb_put(&name, i ? "." : "");
		pgv_sb_ident(&name, part ? part : "");
	}
	if (tn && tn->n_array_bounds)
		pgv_sb_put(&name, "[]");
	if (!tn)
		pgv_sb_ident(&name, call);
	pgv_sb_put(sb, "pg_catalog.to_regtype(");
	pgv_sb_literal_of(sb, &name);
	pgv_sb_put(sb, ")");
}

/*
 * The type a cast to tn (or a call named call) reaches is one of the
 * server's own in pg_catalog: a built-in name, qualified with pg_catalog
 * or unqualified while pg_catalog is searched first. Such a type, and all
 * it is made of, is never a domain (a type the database adds to pg_catalog
 * cannot take a built-in name).
 */
static bool builtin_target(const struct pgv_policy *p, const PgQuery__TypeName *tn, const char *call)
{
	const char *schema = tn && tn->n_names == 2 ? string_of(tn->names[0]) : NULL;
	const char *name = tn ? (tn->n_names ? string_of(tn->names[tn->n_names - 1]) : NULL) : call;

	if (!name || !pgv_builtin_type(name) || (tn && (tn->n_names > 2 || tn->pct_type)))
		return false;
	return schema ? !strcmp(schema, "pg_catalog") : pgv_catalog_first(p);
}

/* ARRAY[the statement's cast targets]::regtype[]; with p, those that are not builtin_target's. */
static void put_targets(struct pgv_sbuf *sb, const struct pgv_guard *g, const struct pgv_policy *p)
{
	bool any = false;

	pgv_sb_put(sb, "ARRAY[");
	for (size_t i = 0; i < g->ntypes + g->ncalls; i++) {
		const PgQuery__TypeName *tn = i < g->ntypes ? g->types[i] : NULL;
		const char *call = i < g->ntypes ? NULL : g->calls[i - g->ntypes];

		if (p && builtin_target(p, tn, call))
			continue;
		pgv_sb_put(sb, any ? ", " : "");
		any = true;
		put_regtype(sb, tn, call);
	}
	pgv_sb_put(sb, "]::pg_catalog.regtype[]");
}

/* How many of the statement's cast targets may be a domain or made of one. */
static size_t domain_targets(const struct pgv_guard *g, const struct pgv_policy *p)
{
	size_t n = 0;

	for (size_t i = 0; i < g->ntypes + g->ncalls; i++) {
		if (!builtin_target(p, i < g->ntypes ? g->types[i] : NULL,
				    i < g->ntypes ? NULL : g->calls[i - g->ntypes]))
			n++;
	}
	return n;
}

/*
 * A cast the database created with a function: an implicit one anywhere
 * (Postgres applies it to fit an argument), an explicit one where the
 * statement casts to its target type.
 */
static void put_casts(struct pgv_sbuf *sb, const struct pgv_guard *g, const struct pgv_policy *pol)
{
	pgv_sb_put(sb, " UNION ALL SELECT 'cast' FROM pg_catalog.pg_cast c WHERE ");
	put_unreachable(sb, pol, "c.castfunc", true);
	pgv_sb_put(sb, " AND (c.castcontext OPERATOR(pg_catalog.<>) 'e'::pg_catalog.\"char\"");
	if (g->any_type) {
		pgv_sb_put(sb, " OR true");
	} else if (g->ntypes || g->ncalls) {
		pgv_sb_put(sb, " OR c.casttarget" EQ "ANY (");
		put_targets(sb, g, NULL);
		pgv_sb_put(sb, ")");
	}
	pgv_sb_put(sb, ")");
}

/*
 * The rest of the domain branch, after its seed (the types a value is
 * converted to): every type those reach (a domain's base type, an array's
 * element, a composite's attributes, a range's subtype, a multirange's
 * range), since converting to one converts to what it is made of, and a
 * CHECK of a domain among them that calls a function the user may not
 * reach.
 */
static void put_domain_walk(struct pgv_sbuf *sb, const struct pgv_policy *pol)
{
	pgv_sb_put(
		sb,
		" UNION SELECT n.x FROM dt, pg_catalog.pg_type ty, LATERAL (SELECT ty.typbasetype WHERE ty.typtype" EQ
		"'d'::pg_catalog.\"char\" UNION ALL SELECT ty.typelem WHERE ty.typelem OPERATOR(pg_catalog.<>)"
		" 0::pg_catalog.oid UNION ALL SELECT a.atttypid FROM pg_catalog.pg_attribute a WHERE a.attrelid" EQ
		"ty.typrelid AND a.attnum OPERATOR(pg_catalog.>) 0::pg_catalog.int2 AND NOT a.attisdropped"
		" UNION ALL SELECT rg.rngsubtype FROM pg_catalog.pg_range rg WHERE rg.rngtypid" EQ "ty.oid"
		" UNION ALL SELECT rg.rngtypid FROM pg_catalog.pg_range rg WHERE rg.rngmultitypid" EQ
		"ty.oid) n(x) WHERE ty.oid" EQ "dt.t) SELECT FROM pg_catalog.pg_constraint con,"
		" pg_catalog.pg_depend d, dt WHERE con.contypid" EQ "dt.t AND d.classid" EQ
		"'pg_catalog.pg_constraint'::pg_catalog.regclass AND d.objid" EQ "con.oid AND d.refclassid" EQ
		"'pg_catalog.pg_proc'::pg_catalog.regclass AND ");
	put_unreachable(sb, pol, "d.refobjid", true);
	pgv_sb_put(sb, ") dd");
}

/*
 * A type the statement casts to (a domain, or one made of a domain) whose
 * CHECK calls a function the user may not reach: the check runs with the
 * cast.
 */
static void put_domains(struct pgv_sbuf *sb, const struct pgv_guard *g, const struct pgv_policy *pol)
{
	if (!g->any_type && domain_targets(g, pol) == 0)
		return;
	pgv_sb_put(sb, " UNION ALL SELECT 'domain' FROM (WITH RECURSIVE dt(t) AS (");
	if (g->any_type) {
		pgv_sb_put(sb,
			   "SELECT ty.oid FROM pg_catalog.pg_type ty WHERE ty.typtype" EQ "'d'::pg_catalog.\"char\"");
	} else {
		pgv_sb_put(sb, "SELECT u.x::pg_catalog.oid FROM pg_catalog.unnest(");
		put_targets(sb, g, pol);
		pgv_sb_put(sb, ") AS u(x)");
	}
	put_domain_walk(sb, pol);
}

/* A relation's name as to_regclass reads it: "schema"."rel" or "rel". */
static void put_regclass_name(struct pgv_sbuf *sb, const PgQuery__RangeVar *rv)
{
	struct pgv_sbuf name = {0};

	if (rv->schemaname && rv->schemaname[0]) {
		pgv_sb_ident(&name, rv->schemaname);
		pgv_sb_put(&name, ".");
	}
	pgv_sb_ident(&name, rv->relname);
	pgv_sb_literal_of(sb, &name);
}

/*
 * The pg_class row vc (its schema vn) is one of the user's tables
 * (schema.table or schema.*), and has no rule of its own when unruled.
 */
static void put_world_table(struct pgv_sbuf *sb, const struct pgv_policy *pol, bool unruled)
{
	pgv_sb_put(sb, "(false");
	if (pol->ntables > 0) {
		pgv_sb_put(sb, " OR pg_catalog.concat(vn.nspname, '.', vc.relname)" EQ "ANY (");
		put_array(sb, (const char *const *)pol->tables, pol->ntables, "text");
		pgv_sb_put(sb, ") OR pg_catalog.concat(vn.nspname, '.*')" EQ "ANY (");
		put_array(sb, (const char *const *)pol->tables, pol->ntables, "text");
		pgv_sb_put(sb, ")");
	}
	pgv_sb_put(sb, ")");
	if (unruled && pol->nrules > 0) {
		pgv_sb_put(sb, " AND NOT pg_catalog.concat(vn.nspname, '.', vc.relname)" EQ "ANY (ARRAY[");
		for (size_t i = 0; i < pol->nrules; i++) {
			pgv_sb_put(sb, i ? ", " : "");
			pgv_sb_literal(sb, pol->rules[i].table);
		}
		pgv_sb_put(sb, "]::pg_catalog.text[])");
	}
}

/*
 * A relation read with its descendants (inheritance children, partitions)
 * that has one outside the user's tables or with a rule of its own: the
 * backend checks neither the grant nor the rule of a child read through
 * its parent. The branch names the relation as the statement wrote it.
 */
static void put_descendants(struct pgv_sbuf *sb, const struct pgv_guard *g, const struct pgv_policy *pol)
{
	if (!g->any_rel && !g->nrels)
		return;
	pgv_sb_put(sb, " UNION ALL SELECT 'inherits ' " CAT " x.n FROM (");
	if (g->any_rel) {
		pgv_sb_put(sb,
			   "SELECT vc.oid::pg_catalog.regclass::pg_catalog.text, vc.oid FROM pg_catalog.pg_class vc,"
			   " pg_catalog.pg_namespace vn WHERE vn.oid" EQ "vc.relnamespace AND ");
		put_world_table(sb, pol, false);
	} else {
		pgv_sb_put(sb, "SELECT u.n, pg_catalog.to_regclass(u.n)::pg_catalog.oid FROM pg_catalog.unnest(ARRAY[");
		for (size_t i = 0; i < g->nrels; i++) {
			pgv_sb_put(sb, i ? ", " : "");
			put_regclass_name(sb, g->rels[i]);
		}
		pgv_sb_put(sb, "]::pg_catalog.text[]) AS u(n)");
	}
	pgv_sb_put(sb, ") x(n, r) WHERE EXISTS (WITH RECURSIVE d(r) AS (SELECT i.inhrelid FROM pg_catalog.pg_inherits i"
		       " WHERE i.inhparent" EQ "x.r UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i, d WHERE"
		       " i.inhparent" EQ "d.r) SELECT FROM d WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class vc,"
		       " pg_catalog.pg_namespace vn WHERE vc.oid" EQ "d.r AND vn.oid" EQ "vc.relnamespace AND ");
	put_world_table(sb, pol, true);
	pgv_sb_put(sb, "))");
}

char *pgv_guard_params_sql(const struct pgv_policy *p, const uint32_t *oids, size_t n)
{
	struct pgv_sbuf sb = {0};
	char oid[16];

	if (n == 0)
		return NULL;
	pgv_sb_put(&sb, "SELECT ('" FRAME_GUARD_PREFIX "'" CAT "w.what)::pg_catalog.int4 FROM (SELECT 'domain'"
			"::pg_catalog.text FROM (WITH RECURSIVE dt(t) AS (SELECT u.x FROM pg_catalog.unnest('{");
	for (size_t i = 0; i < n; i++) {
		snprintf(oid, sizeof(oid), "%s%u", i ? "," : "", (unsigned)oids[i]);
		pgv_sb_put(&sb, oid);
	}
	pgv_sb_put(&sb, "}'::pg_catalog.oid[]) AS u(x)");
	put_domain_walk(&sb, p);
	pgv_sb_put(&sb, " LIMIT 1) w(what)");
	return pgv_sb_take(&sb);
}

char *pgv_guard_sql(struct pgv_guard *g, const struct pgv_policy *p)
{
	struct pgv_sbuf sb = {0};
	bool ops = g->any_op || g->nops || g->nquals, attrs = g->any_attr || g->nattrs;

	if (g->failed || (!ops && !attrs && !g->reach && !g->nrels && !g->any_rel))
		return NULL;
	pgv_sb_put(&sb, "SELECT ('" FRAME_GUARD_PREFIX "'" CAT "w.what)::pg_catalog.int4 FROM (");
	if (ops)
		put_operators(&sb, g, p);
	else
		pgv_sb_put(&sb, "SELECT NULL::pg_catalog.text WHERE false");
	if (attrs)
		put_column_calls(&sb, g, p);
	if (ops || attrs || g->reach)
		put_casts(&sb, g, p);
	put_domains(&sb, g, p);
	put_descendants(&sb, g, p);
	pgv_sb_put(&sb, " LIMIT 1) w(what)");
	if (sb.failed || sb.w.failed)
		g->failed = true;
	return pgv_sb_take(&sb);
}

void pgv_guard_free(struct pgv_guard *g)
{
	free(g->ops);
	free(g->quals);
	free(g->attrs);
	free(g->types);
	free(g->calls);
	free(g->rels);
	memset(g, 0, sizeof(*g));
}
