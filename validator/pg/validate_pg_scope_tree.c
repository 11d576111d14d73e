/*
 * validate_pg_scope_tree: the bookkeeping under the scoping: refusals, the
 * undo log, templates parsed from SQL and the placeholder inside them, and
 * a generic descent over protobuf-c messages (by their descriptors, so no
 * node type can be missed). See validate_pg_scope_int.h.
 */
#include <pg_query.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_util.h"

/* ---- bookkeeping ---- */

void pgv_scope_refuse(struct pgv_scope *sc, enum airlock_err code, enum airlock_native native, int location,
		      const char *hint, const char *fmt, ...)
{
	va_list ap;

	if (sc->refused)
		return;
	sc->refused = true;
	pgv_refuse(sc->out, code, native, pgv_cursor_from_offset(sc->sql, location), hint, "%s", "");
	va_start(ap, fmt);
	vsnprintf(sc->out->message, sizeof(sc->out->message), fmt, ap);
	va_end(ap);
}

void pgv_scope_internal(struct pgv_scope *sc, const char *what)
{
	pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_INTERNAL_ERROR, -1, NULL,
			 "the statement could not be scoped to the allowed tables (%s)", what);
}

void pgv_scope_out_of_memory(struct pgv_scope *sc)
{
	pgv_scope_refuse(sc, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, -1, NULL,
			 "the statement could not be scoped to the allowed tables (out of memory)");
}

bool pgv_scope_grow(struct pgv_scope *sc, void **arr, size_t *cap, size_t n, size_t elem)
{
	void *p;
	size_t ncap;

	if (n < *cap)
		return true;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, ncap * elem);
	if (!p) {
		pgv_scope_out_of_memory(sc);
		return false;
	}
	*arr = p;
	*cap = ncap;
	return true;
}

bool pgv_scope_save(struct pgv_scope *sc, void *slot, size_t size)
{
	struct pgv_undo *u;

	if (size > sizeof(u->saved) ||
	    !pgv_scope_grow(sc, (void **)&sc->undo, &sc->capundo, sc->nundo, sizeof(*sc->undo)))
		return false;
	u = &sc->undo[sc->nundo++];
	u->slot = slot;
	u->size = size;
	memcpy(u->saved, slot, size);
	return true;
}

bool pgv_scope_replace(struct pgv_scope *sc, PgQuery__Node *node, const PgQuery__Node *with)
{
	if (!pgv_scope_save(sc, node, sizeof(*node)))
		return false;
	*node = *with;
	sc->changes++;
	return true;
}

char *pgv_scope_strdup(struct pgv_scope *sc, const char *s)
{
	char *p;

	if (!pgv_scope_grow(sc, (void **)&sc->strs, &sc->capstrs, sc->nstrs, sizeof(*sc->strs)))
		return NULL;
	p = strdup(s);
	if (!p) {
		pgv_scope_out_of_memory(sc);
		return NULL;
	}
	sc->strs[sc->nstrs++] = p;
	return p;
}

void *pgv_scope_alloc(struct pgv_scope *sc, size_t size)
{
	void *p;

	if (!pgv_scope_grow(sc, (void **)&sc->strs, &sc->capstrs, sc->nstrs, sizeof(*sc->strs)))
		return NULL;
	p = calloc(1, size);
	if (!p) {
		pgv_scope_out_of_memory(sc);
		return NULL;
	}
	sc->strs[sc->nstrs++] = p;
	return p;
}

static void undo_all(struct pgv_scope *sc)
{
	while (sc->nundo > 0) {
		struct pgv_undo *u = &sc->undo[--sc->nundo];

		memcpy(u->slot, u->saved, u->size);
	}
}

void pgv_scope_free(struct pgv_scope *sc)
{
	size_t i;

	undo_all(sc);
	for (i = 0; i < sc->ntmpl; i++)
		pg_query__parse_result__free_unpacked(sc->tmpl[i], NULL);
	for (i = 0; i < sc->nstrs; i++)
		free(sc->strs[i]);
	free(sc->undo);
	free(sc->tmpl);
	free(sc->strs);
	free(sc->ctes);
	free(sc->tableoid_of);
	free(sc->alone);
	free(sc->push);
	for (i = 0; i < sc->hoist.n; i++)
		free(sc->hoist.bodies[i]);
	free(sc->hoist.bodies);
}

/* ---- templates ---- */

PgQuery__ParseResult *pgv_scope_unpack(const char *sql)
{
	PgQueryProtobufParseResult r = pg_query_parse_protobuf(sql);
	PgQuery__ParseResult *tree = NULL;

	if (!r.error)
		tree = pg_query__parse_result__unpack(NULL, r.parse_tree.len, (const uint8_t *)r.parse_tree.data);
	pg_query_free_protobuf_parse_result(r);
	return tree;
}

/* The first statement of sb's text parsed as a template, kept until the end. */
PgQuery__Node *pgv_scope_template(struct pgv_scope *sc, struct pgv_sbuf *sb)
{
	PgQuery__ParseResult *tree;
	char *sql;

	sc->hoist.sets_read |= sb->sets_read;
	sql = pgv_sb_take(sb);

	if (!sql) {
		pgv_scope_out_of_memory(sc);
		return NULL;
	}
	if (!pgv_scope_grow(sc, (void **)&sc->tmpl, &sc->captmpl, sc->ntmpl, sizeof(*sc->tmpl))) {
		free(sql);
		return NULL;
	}
	tree = pgv_scope_unpack(sql);
	free(sql);
	if (!tree || tree->n_stmts != 1 || !tree->stmts[0]->stmt) {
		if (tree)
			pg_query__parse_result__free_unpacked(tree, NULL);
		pgv_scope_internal(sc, "a scoping template did not parse");
		return NULL;
	}
	sc->tmpl[sc->ntmpl++] = tree;
	return tree->stmts[0]->stmt;
}

PgQuery__SelectStmt *pgv_scope_select(PgQuery__Node *n)
{
	return n && n->node_case == PG_QUERY__NODE__NODE_SELECT_STMT ? n->select_stmt : NULL;
}

typedef bool (*node_pred)(const PgQuery__Node *n);
static PgQuery__Node *find_node(ProtobufCMessage *m, node_pred pred, int depth);

static bool is_placeholder(const PgQuery__Node *n)
{
	const PgQuery__ColumnRef *c;

	if (n->node_case != PG_QUERY__NODE__NODE_COLUMN_REF)
		return false;
	c = n->column_ref;
	return c->n_fields == 1 && c->fields[0]->node_case == PG_QUERY__NODE__NODE_STRING &&
	       strcmp(c->fields[0]->string->sval, PGV_SCOPE_PLACEHOLDER) == 0;
}

PgQuery__Node *pgv_scope_expr(struct pgv_scope *sc, struct pgv_sbuf *sb, PgQuery__Node *value)
{
	PgQuery__SelectStmt *sel = pgv_scope_select(pgv_scope_template(sc, sb));
	PgQuery__Node *root, *hole;

	if (!sel)
		return NULL;
	if (sel->n_target_list != 1 || sel->target_list[0]->node_case != PG_QUERY__NODE__NODE_RES_TARGET) {
		pgv_scope_internal(sc, "a scoping template has an unexpected shape");
		return NULL;
	}
	root = sel->target_list[0]->res_target->val;
	if (!value)
		return root;
	hole = find_node(&root->base, is_placeholder, 0);
	if (!hole) {
		pgv_scope_internal(sc, "a scoping template has no placeholder");
		return NULL;
	}
	if (!pgv_scope_save(sc, hole, sizeof(*hole)))
		return NULL;
	*hole = *value;
	return root;
}

const char *pgv_scope_string_const(const PgQuery__Node *n)
{
	if (n->node_case != PG_QUERY__NODE__NODE_A_CONST || n->a_const->isnull ||
	    n->a_const->val_case != PG_QUERY__A__CONST__VAL_SVAL || !n->a_const->sval)
		return NULL;
	return n->a_const->sval->sval;
}

/* ---- generic descent over protobuf-c messages ---- */

void pgv_scope_each_child(ProtobufCMessage *m, pgv_scope_child_fn fn, void *ctx, int depth)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	unsigned i;

	for (i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *f = &d->fields[i];
		char *base = (char *)m;

		if (f->type != PROTOBUF_C_TYPE_MESSAGE)
			continue;
		if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) && *(uint32_t *)(base + f->quantifier_offset) != f->id)
			continue;
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(size_t *)(base + f->quantifier_offset), k;
			ProtobufCMessage **arr = *(ProtobufCMessage ***)(base + f->offset);

			for (k = 0; k < n; k++) {
				if (arr[k])
					fn(ctx, arr[k], depth + 1);
			}
		} else {
			ProtobufCMessage *c = *(ProtobufCMessage **)(base + f->offset);

			if (c)
				fn(ctx, c, depth + 1);
		}
	}
}

struct finder {
	node_pred pred;
	PgQuery__Node *hit;
};

static void find_child(void *ctx, ProtobufCMessage *c, int depth)
{
	struct finder *f = ctx;

	if (!f->hit)
		f->hit = find_node(c, f->pred, depth);
}

static PgQuery__Node *find_node(ProtobufCMessage *m, node_pred pred, int depth)
{
	struct finder f = {.pred = pred};

	if (depth > PGV_SCOPE_MAX_DEPTH)
		return NULL;
	if (m->descriptor == &pg_query__node__descriptor && pred((PgQuery__Node *)m))
		return (PgQuery__Node *)m;
	pgv_scope_each_child(m, find_child, &f, depth);
	return f.hit;
}

void pgv_scope_put_alias(struct pgv_sbuf *sb, const PgQuery__RangeVar *rv)
{
	size_t i;

	pgv_sb_put(sb, " AS ");
	if (!rv->alias || !rv->alias->aliasname || !rv->alias->aliasname[0]) {
		pgv_sb_ident(sb, rv->relname);
		return;
	}
	pgv_sb_ident(sb, rv->alias->aliasname);
	if (rv->alias->n_colnames == 0)
		return;
	pgv_sb_put(sb, "(");
	for (i = 0; i < rv->alias->n_colnames; i++) {
		const PgQuery__Node *c = rv->alias->colnames[i];

		pgv_sb_put(sb, i ? ", " : "");
		pgv_sb_ident(sb, c->node_case == PG_QUERY__NODE__NODE_STRING ? c->string->sval : "?column?");
	}
	pgv_sb_put(sb, ")");
}

void pgv_scope_replace_relation(struct pgv_scope *sc, PgQuery__Node *node, struct pgv_sbuf *sb, const char *what)
{
	PgQuery__SelectStmt *sel;

	pgv_scope_put_alias(sb, node->range_var);
	sel = pgv_scope_select(pgv_scope_template(sc, sb));
	if (!sel)
		return;
	if (sel->n_from_clause != 1) {
		pgv_scope_internal(sc, what);
		return;
	}
	pgv_scope_replace(sc, node, sel->from_clause[0]);
}
