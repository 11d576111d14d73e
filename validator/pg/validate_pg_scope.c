/*
 * validate_pg_scope: the walk over the protobuf parse tree, catalog
 * relation references and the driver (unpack, walk, pack, deparse,
 * validate again). See validate_pg_scope.h.
 */
#include "validator/pg/validate_pg_scope.h"

#include <pg_query.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_bound.h"
#include "validator/pg/validate_pg_catalog.h"
#include "validator/pg/validate_pg_read.h"
#include "validator/pg/validate_pg_types.h"
#include "validator/pg/validate_pg_guard.h"
#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_role.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_util.h"

/* ---- CTE names ---- */

static void collect_ctes(void *ctx, ProtobufCMessage *m, int depth)
{
	struct pgv_scope *sc = ctx;

	if (depth > PGV_SCOPE_MAX_DEPTH || sc->refused)
		return;
	if (m->descriptor == &pg_query__common_table_expr__descriptor) {
		const PgQuery__CommonTableExpr *cte = (PgQuery__CommonTableExpr *)m;
		const char *name = cte->ctename;

		if (pgv_scope_hoist_reserved(name)) {
			pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, cte->location,
					 "give the CTE another name", "WITH query name \"%s\" is reserved by airlock",
					 name);
			return;
		}
		if (!pgv_scope_grow(sc, (void **)&sc->ctes, &sc->capctes, sc->nctes, sizeof(*sc->ctes)))
			return;
		sc->ctes[sc->nctes++] = name;
	}
	pgv_scope_each_child(m, collect_ctes, sc, depth);
}

/* Who reads tableoid (q.tableoid, or bare), and which relations stand alone in a FROM. */
static void collect_tableoid(void *ctx, ProtobufCMessage *m, int depth)
{
	struct pgv_scope *sc = ctx;

	if (depth > PGV_SCOPE_MAX_DEPTH || sc->refused)
		return;
	if (m->descriptor == &pg_query__select_stmt__descriptor) {
		const PgQuery__SelectStmt *s = (const PgQuery__SelectStmt *)m;

		if (s->n_from_clause == 1 && s->from_clause[0]->node_case == PG_QUERY__NODE__NODE_RANGE_VAR &&
		    pgv_scope_grow(sc, (void **)&sc->alone, &sc->capalone, sc->nalone, sizeof(*sc->alone)))
			sc->alone[sc->nalone++] = s->from_clause[0]->range_var;
	}
	if (m->descriptor == &pg_query__column_ref__descriptor) {
		const PgQuery__ColumnRef *c = (const PgQuery__ColumnRef *)m;
		const PgQuery__Node *last = c->n_fields ? c->fields[c->n_fields - 1] : NULL;
		const PgQuery__Node *q = c->n_fields >= 2 ? c->fields[c->n_fields - 2] : NULL;

		if (last && last->node_case == PG_QUERY__NODE__NODE_STRING && !strcmp(last->string->sval, "tableoid")) {
			if (!q)
				sc->tableoid_bare = true;
			else if (q->node_case == PG_QUERY__NODE__NODE_STRING &&
				 pgv_scope_grow(sc, (void **)&sc->tableoid_of, &sc->captableoid_of, sc->ntableoid_of,
						sizeof(*sc->tableoid_of)))
				sc->tableoid_of[sc->ntableoid_of++] = q->string->sval;
		}
	}
	pgv_scope_each_child(m, collect_tableoid, sc, depth);
}

/*
 * The filtered catalog rv is read as q.tableoid (q its alias or name), or as
 * a bare tableoid where it stands alone in its query's FROM (a bare one
 * names the nearest such relation): its subquery keeps the system column,
 * which SELECT * of a subquery would not.
 */
static bool keeps_tableoid(const struct pgv_scope *sc, const PgQuery__RangeVar *rv)
{
	const char *name =
		rv->alias && rv->alias->aliasname && rv->alias->aliasname[0] ? rv->alias->aliasname : rv->relname;

	for (size_t i = 0; sc->tableoid_bare && i < sc->nalone; i++) {
		if (sc->alone[i] == rv)
			return true;
	}
	for (size_t i = 0; name && i < sc->ntableoid_of; i++) {
		if (strcmp(sc->tableoid_of[i], name) == 0)
			return true;
	}
	return false;
}

static bool is_cte(const struct pgv_scope *sc, const char *name)
{
	size_t i;

	for (i = 0; i < sc->nctes; i++) {
		if (strcmp(sc->ctes[i], name) == 0)
			return true;
	}
	return false;
}

/* ---- catalog relations ---- */

static bool path_lists(const struct pgv_policy *p, const char *schema, size_t *at)
{
	size_t i;

	for (i = 0; i < p->nsearch_path; i++) {
		if (p->search_path[i] && strcmp(p->search_path[i], schema) == 0) {
			*at = i;
			return true;
		}
	}
	return false;
}

/*
 * Which catalog an unqualified name resolves to. Returns false (and
 * refuses) when the search_path could put another schema first: the
 * reference must then be qualified, or it could read the catalog unscoped.
 */
static bool resolve_unqualified(struct pgv_scope *sc, const PgQuery__RangeVar *rv, enum pgv_catalog_schema *schema,
				bool *is_catalog)
{
	const struct pgv_policy *p = sc->policy;
	bool in_pg = pgv_catalog_find(PGV_PG_CATALOG, rv->relname) != NULL;
	bool in_is = pgv_catalog_find(PGV_INFORMATION_SCHEMA, rv->relname) != NULL;
	size_t pg_at = 0, is_at = 0;
	bool pg_listed = path_lists(p, "pg_catalog", &pg_at);
	bool is_listed = path_lists(p, "information_schema", &is_at);

	*is_catalog = false;
	if (in_pg && (!pg_listed || pg_at == 0)) {
		*schema = PGV_PG_CATALOG;
		*is_catalog = true;
		return true;
	}
	if ((in_pg && pg_listed) || (in_is && is_listed)) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, rv->location,
				 "write the name as pg_catalog.name or information_schema.name",
				 "catalog relation \"%s\" must be schema-qualified while search_path lists other "
				 "schemas before its own",
				 rv->relname);
		return false;
	}
	return true;
}

static void refuse_catalog(struct pgv_scope *sc, const PgQuery__RangeVar *rv, const char *schema)
{
	pgv_scope_refuse(sc, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_NONE, rv->location,
			 "this catalog relation is never readable through airlock", "table \"%s.%s\" is not allowed",
			 schema, rv->relname);
}

static void filter_relation(struct pgv_scope *sc, PgQuery__Node *node, const char *schema,
			    const struct pgv_catalog_rel *e)
{
	const char *order = e->order, *cte;
	const PgQuery__RangeVar *rv = node->range_var;
	bool hoist = sc->hoist.target != NULL;
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc), pushed = {0};
	size_t npushed;

	if (!hoist) {
		pgv_sb_put(&sb, "SELECT * FROM (");
		pgv_scope_put_visible_cte(&sb, sc->policy);
	}
	if (e->columns) {
		pgv_sb_put(&sb, "SELECT ");
		pgv_scope_expand(&sb, sc->policy, e->columns);
	} else {
		pgv_sb_put(&sb, e->project ? "SELECT p.*" : "SELECT r.*");
	}
	pgv_sb_put(&sb, keeps_tableoid(sc, rv) ? ", r.tableoid FROM " : " FROM ");
	pgv_sb_put(&sb, rv->inh ? "" : "ONLY ");
	pgv_sb_put(&sb, schema);
	pgv_sb_put(&sb, ".");
	pgv_sb_ident(&sb, rv->relname);
	pgv_sb_put(&sb, " r");
	if (e->project) {
		pgv_sb_put(&sb, ", LATERAL pg_catalog.jsonb_populate_record(r, ");
		pgv_scope_expand(&sb, sc->policy, e->project);
		pgv_sb_put(&sb, ") p");
	}
	/* The statement's key lookups of this reference, when it has some (validate_pg_scope_push.c). */
	npushed = strcmp(schema, "pg_catalog") == 0 ? pgv_scope_push_put(sc, &pushed, rv, rv->relname) : 0;
	pgv_sb_put(&sb, npushed ? " WHERE (" : " WHERE ");
	pgv_scope_expand(&sb, sc->policy, e->filter);
	if (npushed) {
		char *more = pgv_sb_take(&pushed);

		pgv_sb_put(&sb, ")");
		if (more)
			pgv_sb_put(&sb, more);
		else
			sb.failed = true;
		free(more);
	}
	pgv_sb_free(&pushed);
	if (order) {
		pgv_sb_put(&sb, " ORDER BY ");
		pgv_sb_put(&sb, order);
	}
	/* A fence: the statement's own conditions see only the world's rows (PGV_SCOPE_FENCE). */
	pgv_sb_put(&sb, PGV_SCOPE_FENCE);
	if (hoist) {
		/* The same fence as a CTE of the statement, run once however often it is read. */
		if (!(cte = pgv_scope_hoist_add(sc, &sb)))
			return;
		pgv_sb_put(&sb, "SELECT * FROM ");
		pgv_sb_put(&sb, cte);
	} else {
		pgv_sb_put(&sb, ")");
	}
	pgv_scope_replace_relation(sc, node, &sb, "a scoping template has an unexpected shape");
}

static bool is_statements_view(const char *rel)
{
	return strcmp(rel, "pg_stat_statements") == 0 || strcmp(rel, "pg_stat_statements_info") == 0;
}

static void scope_relation(struct pgv_scope *sc, PgQuery__Node *node)
{
	const PgQuery__RangeVar *rv = node->range_var;
	const struct pgv_catalog_rel *e;
	enum pgv_catalog_schema schema = PGV_PG_CATALOG;
	bool is_catalog = false;

	if (!rv->relname || !rv->relname[0])
		return;
	if (is_statements_view(rv->relname)) {
		refuse_catalog(sc, rv, rv->schemaname && rv->schemaname[0] ? rv->schemaname : "public");
		return;
	}
	if (rv->schemaname && rv->schemaname[0]) {
		if (strcmp(rv->schemaname, "pg_catalog") == 0) {
			schema = PGV_PG_CATALOG;
			is_catalog = true;
		} else if (strcmp(rv->schemaname, "information_schema") == 0) {
			schema = PGV_INFORMATION_SCHEMA;
			is_catalog = true;
		}
	} else if (is_cte(sc, rv->relname)) {
		if (pgv_catalog_has_relation(rv->relname))
			pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, rv->location,
					 "give the CTE a name of its own",
					 "WITH query \"%s\" has the name of a catalog relation", rv->relname);
		else
			pgv_scope_rules_relation(sc, node); /* refuses a CTE named like a filtered table */
		return;
	} else if (pgv_scope_hoist_reserved(rv->relname)) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, rv->location,
				 "write the name with its schema, as schema.name",
				 "relation name \"%s\" is reserved by airlock unless schema-qualified", rv->relname);
		return;
	} else if (!resolve_unqualified(sc, rv, &schema, &is_catalog)) {
		return;
	}
	if (!is_catalog) {
		pgv_scope_rules_relation(sc, node);
		return;
	}
	if (schema == PGV_PG_CATALOG && strcmp(rv->relname, "pg_stat_activity") == 0)
		sc->shows_text = true;
	e = pgv_catalog_find(schema, rv->relname);
	if (!e || e->mode == PGV_CATALOG_DENY) {
		refuse_catalog(sc, rv, schema == PGV_PG_CATALOG ? "pg_catalog" : "information_schema");
		return;
	}
	if (e->mode == PGV_CATALOG_FILTER)
		filter_relation(sc, node, schema == PGV_PG_CATALOG ? "pg_catalog" : "information_schema", e);
}

/*
 * A relation becomes a subquery only where the grammar takes one: an item of
 * FROM or a side of a JOIN. Elsewhere (TABLESAMPLE's relation, above all)
 * the slot holds a plain relation and the deparser reads it as one, so a
 * relation that would be rewritten there is refused instead.
 */
static bool takes_subquery(const ProtobufCMessageDescriptor *parent)
{
	/* A write's own table is a bare RangeVar (walk leaves it): its UPDATE ... FROM and DELETE ... USING items are
	 * FROM's. */
	return parent == &pg_query__select_stmt__descriptor || parent == &pg_query__join_expr__descriptor ||
	       parent == &pg_query__update_stmt__descriptor || parent == &pg_query__delete_stmt__descriptor;
}

static void scope_relation_in_place(struct pgv_scope *sc, PgQuery__Node *node)
{
	const ProtobufCMessageDescriptor *parent = sc->parent;
	int location = node->range_var->location, before = sc->changes;
	char name[64];

	snprintf(name, sizeof(name), "%s", node->range_var->relname ? node->range_var->relname : "");
	scope_relation(sc, node);
	if (sc->refused || sc->changes == before || takes_subquery(parent))
		return;
	if (parent == &pg_query__range_table_sample__descriptor)
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, location,
				 "sample with WHERE random() < fraction instead",
				 "TABLESAMPLE cannot be applied to \"%s\": airlock reads it through a filter", name);
	else
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, location,
				 "name the relation in FROM or JOIN",
				 "relation \"%s\" cannot be read through airlock's filter in this position", name);
}

/* ---- type names ---- */

/* A type name (schema NULL: unqualified) names a visible type: built in, or the row type of an allowed relation or its
 * array. */
static bool type_visible(const struct pgv_policy *p, const char *schema, const char *name)
{
	if (schema && (!strcmp(schema, "pg_catalog") || !strcmp(schema, "information_schema")))
		return true;
	if (!schema && pgv_builtin_type(name) && pgv_catalog_first(p))
		return true;
	if (pgv_name_allowed(p, schema, name))
		return true;
	return name[0] == '_' && name[1] && pgv_name_allowed(p, schema, name + 1);
}

/*
 * Postgres resolves a type name while it parses, and every table has a row
 * type of its name: NULL::hidden_table would parse where a missing name
 * fails. Names other than built-in types and the row types of allowed
 * relations are refused as Postgres refuses a type that does not exist.
 */
static void check_type_name(struct pgv_scope *sc, const PgQuery__TypeName *tn)
{
	const char *parts[3] = {NULL, NULL, NULL};
	size_t i;

	if (tn->n_names == 0)
		return;
	for (i = 0; i < tn->n_names && i < 3; i++) {
		if (tn->names[i]->node_case != PG_QUERY__NODE__NODE_STRING) {
			pgv_scope_internal(sc, "a type name of an unexpected shape");
			return;
		}
		parts[i] = tn->names[i]->string->sval;
	}
	if (tn->n_names > 2 || tn->pct_type) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, tn->location,
				 "name the type as schema.type", "this form of type name is not supported");
		return;
	}
	if (tn->n_names == 2 ? type_visible(sc->policy, parts[0], parts[1]) : type_visible(sc->policy, NULL, parts[0]))
		return;
	if (tn->n_names == 2)
		pgv_scope_refuse(sc, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_PG_UNDEFINED_OBJECT, tn->location,
				 "only built-in types and the row types of allowed tables can be named",
				 "type \"%s.%s\" does not exist", parts[0], parts[1]);
	else
		pgv_scope_refuse(sc, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_PG_UNDEFINED_OBJECT, tn->location,
				 "only built-in types and the row types of allowed tables can be named",
				 "type \"%s\" does not exist", parts[0]);
}

/* ---- the walk ---- */

/* The mutations applied to a node after its children were walked (validate_pg_scope_guard.c). */
static const struct {
	PgQuery__Node__NodeCase node_case;
	void (*mutate)(struct pgv_scope *sc, PgQuery__Node *node);
} after_children[] = {
	{PG_QUERY__NODE__NODE_FUNC_CALL, pgv_scope_role_call},
	{PG_QUERY__NODE__NODE_FUNC_CALL, pgv_scope_func_call},
	{PG_QUERY__NODE__NODE_TYPE_CAST, pgv_scope_type_cast},
	{PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION, pgv_scope_user_value},
};

static void walk(void *ctx, ProtobufCMessage *m, int depth);

static void walk_res_target(struct pgv_scope *sc, PgQuery__ResTarget *rt, int depth)
{
	const char *colname = rt->val && (!rt->name || !rt->name[0]) ? pgv_scope_user_colname(rt->val) : NULL;
	char *copy;

	if (rt->val)
		walk(sc, &rt->val->base, depth + 1);
	if (!colname || sc->refused)
		return;
	copy = pgv_scope_strdup(sc, colname);
	if (copy && pgv_scope_save(sc, &rt->name, sizeof(rt->name)))
		rt->name = copy;
}

static void walk(void *ctx, ProtobufCMessage *m, int depth)
{
	struct pgv_scope *sc = ctx;
	PgQuery__Node *node;

	if (sc->refused)
		return;
	if (depth > PGV_SCOPE_MAX_DEPTH) {
		pgv_scope_refuse(sc, AIRLOCK_E_TOO_COMPLEX, AIRLOCK_N_NONE, -1, "simplify the statement",
				 "statement is nested too deeply");
		return;
	}
	if (m->descriptor == &pg_query__range_var__descriptor) {
		/* A relation outside a Node cannot become a subquery (reads never
		 * hold one: INTO and locking clauses are refused before). */
		PgQuery__RangeVar *rv = (PgQuery__RangeVar *)m;

		if ((rv->schemaname &&
		     (!strcmp(rv->schemaname, "pg_catalog") || !strcmp(rv->schemaname, "information_schema"))) ||
		    pgv_catalog_has_relation(rv->relname))
			pgv_scope_internal(sc, "a catalog relation in an unexpected place");
		return;
	}
	if (m->descriptor != &pg_query__node__descriptor) {
		const ProtobufCMessageDescriptor *outer = sc->parent;

		sc->parent = m->descriptor;
		if (m->descriptor == &pg_query__res_target__descriptor) {
			walk_res_target(sc, (PgQuery__ResTarget *)m, depth);
		} else {
			if (m->descriptor == &pg_query__type_name__descriptor)
				check_type_name(sc, (PgQuery__TypeName *)m);
			pgv_scope_each_child(m, walk, sc, depth);
		}
		sc->parent = outer;
		return;
	}
	node = (PgQuery__Node *)m;
	if (node->node_case == PG_QUERY__NODE__NODE_EXPLAIN_STMT)
		sc->shows_text = true;
	if (node->node_case == PG_QUERY__NODE__NODE_RANGE_VAR) {
		scope_relation_in_place(sc, node);
		return;
	}
	pgv_scope_each_child(m, walk, sc, depth);
	if (sc->refused)
		return;
	/* First, so a guard that wraps the call keeps it qualified. */
	if (node->node_case == PG_QUERY__NODE__NODE_FUNC_CALL)
		pgv_scope_qualify_call(sc, node);
	for (size_t i = 0; i < sizeof(after_children) / sizeof(after_children[0]); i++) {
		if (node->node_case == after_children[i].node_case) {
			int before = sc->changes;

			/* One that changes it only: the mutation may overwrite node with a node of another case. */
			after_children[i].mutate(sc, node);
			if (sc->refused || sc->changes != before)
				break;
		}
	}
}

/* ---- the driver ---- */

char *pgv_scope_deparse(struct pgv_scope *sc, PgQuery__ParseResult *tree)
{
	PgQueryProtobuf pb;
	PgQueryDeparseResult d;
	char *text = NULL;
	size_t len = pg_query__parse_result__get_packed_size(tree);

	pb.data = malloc(len ? len : 1);
	if (!pb.data) {
		pgv_scope_out_of_memory(sc);
		return NULL;
	}
	pb.len = pg_query__parse_result__pack(tree, (uint8_t *)pb.data);
	d = pg_query_deparse_protobuf(pb);
	free(pb.data);
	if (d.error)
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, -1,
				 "write the catalog query more plainly, or read the allowed tables directly",
				 "this catalog query could not be scoped to the allowed tables: %s",
				 d.error->message ? d.error->message : "deparse failed");
	else if (!(text = strdup(d.query)))
		pgv_scope_out_of_memory(sc);
	pg_query_free_deparse_result(d);
	return text;
}

/* The rewritten text must pass as the agent's own statement does, templates' catalogs included. */
static bool revalidate(struct pgv_scope *sc, const char *text)
{
	const struct pgv_policy *p = sc->policy;
	struct pgv_policy ext = *p;
	const char **tables = calloc(p->ntables + 2, sizeof(*tables));
	struct pgv_result r;
	enum pgv_kind kind;

	if (!tables) {
		pgv_scope_out_of_memory(sc);
		return false;
	}
	if (p->ntables)
		memcpy(tables, p->tables, p->ntables * sizeof(*tables));
	tables[p->ntables] = "pg_catalog.*";
	tables[p->ntables + 1] = "information_schema.*";
	ext.tables = tables;
	ext.ntables = p->ntables + 2;
	/* The agent's text was judged for stars; the stars of the rewrite are its templates', inside FROM. */
	ext.forbid_star = false;
	if (sc->write) {
		/* The write's filter and check name what the rule hides: checked as the agent's text was, less that. */
		ext.rules = NULL;
		ext.nrules = 0;
	}
	kind = pgv_validate_again(&ext, text, &r);
	free(tables);
	if (kind == (sc->write ? PGV_WRITE : PGV_READ))
		return true;
	if (kind == PGV_REFUSED) {
		*sc->out = r;
		sc->out->cursor_pos = 0;
	} else {
		pgv_scope_internal(sc, "the rewritten statement is not a read");
	}
	sc->refused = true;
	return false;
}

/* The guard of the statement as it will run (templates included), or a refusal. */
static char *guard_of(struct pgv_scope *sc, PgQuery__ParseResult *tree)
{
	struct pgv_guard g = {0};
	char *sql = NULL;

	pgv_guard_collect(&g, sc->policy, &tree->base);
	if (g.alien)
		pgv_scope_refuse(sc, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_PG_INVALID_SCHEMA_NAME, g.alien_at,
				 "only the schemas of the allowed tables can be named", "schema \"%s\" does not exist",
				 g.alien);
	else if (!(sql = pgv_guard_sql(&g, sc->policy)) && g.failed)
		pgv_scope_out_of_memory(sc);
	pgv_guard_free(&g);
	return sql;
}

enum pgv_kind pgv_scope(const struct pgv_policy *policy, const char *sql, char **rewritten, struct pgv_result *out)
{
	return pgv_scope_guarded(policy, sql, rewritten, NULL, out);
}

enum pgv_kind pgv_scope_guarded(const struct pgv_policy *policy, const char *sql, char **rewritten, char **guard,
				struct pgv_result *out)
{
	return pgv_scope_edited(policy, sql, NULL, NULL, rewritten, guard, out);
}

enum pgv_kind pgv_scope_edited(const struct pgv_policy *policy, const char *sql, pgv_scope_edit_fn edit, void *arg,
			       char **rewritten, char **guard, struct pgv_result *out)
{
	struct pgv_scope sc = {.policy = policy, .sql = sql, .out = out, .write = edit != NULL};
	enum pgv_kind kind = edit ? PGV_WRITE : PGV_READ;
	PgQuery__ParseResult *tree;
	char *text = NULL, *check = NULL;
	size_t i;

	*rewritten = NULL;
	if (guard)
		*guard = NULL;
	memset(out, 0, sizeof(*out));
	out->kind = kind;
	if (!pgv_bound(sql, out))
		return out->kind;
	tree = pgv_scope_unpack(sql);
	if (!tree) {
		pgv_scope_internal(&sc, "the statement did not parse again");
		return out->kind;
	}
	if (edit && !edit(&sc, tree, arg)) {
		if (!sc.refused)
			pgv_scope_internal(&sc, "the write has an unexpected shape");
		pgv_scope_free(&sc);
		pg_query__parse_result__free_unpacked(tree, NULL);
		return out->kind;
	}
	collect_ctes(&sc, &tree->base, 0);
	collect_tableoid(&sc, &tree->base, 0);
	/* A key lookup names pg_catalog's relations only while pg_catalog is first in the search_path. */
	if (pgv_catalog_first(sc.policy))
		pgv_scope_push_collect(&sc, &tree->base, 0);
	pgv_scope_hoist_begin(&sc, tree);
	for (i = 0; i < tree->n_stmts && !sc.refused; i++) {
		if (tree->stmts[i]->stmt)
			walk(&sc, &tree->stmts[i]->stmt->base, 0);
	}
	pgv_scope_hoist_finish(&sc);
	if (!sc.refused && sc.ruled && sc.shows_text)
		pgv_scope_refuse(&sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, -1,
				 "read the filtered tables and the plan or session views in separate statements",
				 "a statement that reads a filtered table cannot also show its own text or plan "
				 "(EXPLAIN, pg_stat_activity, current_query())");
	if (!sc.refused && guard)
		check = guard_of(&sc, tree);
	if (!sc.refused && (sc.changes > 0 || sc.write))
		text = pgv_scope_deparse(&sc, tree);
	pgv_scope_free(&sc);
	pg_query__parse_result__free_unpacked(tree, NULL);
	if (!sc.refused && (!text || revalidate(&sc, text))) {
		*rewritten = text;
		if (guard)
			*guard = check;
		else
			free(check);
		out->kind = kind;
		return kind;
	}
	free(text);
	free(check);
	return out->kind;
}
