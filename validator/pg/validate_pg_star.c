/*
 * validate_pg_star: see validate_pg_star.h. The walk follows only what
 * reaches the result: a SELECT's target list (each branch of a set
 * operation), and inside an output column every expression but the
 * subqueries and clauses whose value is not the column's.
 */
#include "validator/pg/validate_pg_star.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_util.h"

/* Deeper than the read's own walk allows, so only a safety net: past it the read is refused. */
#define STAR_MAX_DEPTH 4096

/* The FROM clauses in scope, innermost first: a bare name may be a whole row of any of them. */
struct from_scope {
	json_t *from; /* a fromClause array */
	const struct from_scope *up;
};

/* What the walk found: the first star or whole row, and (a whole row of a table) the table. */
struct star {
	json_t *at;         /* the ColumnRef (or the SELECT, past the depth bound); NULL: none */
	bool whole_row;     /* a bare name, not a star */
	const char *schema; /* whole_row of a table: its schema as written, or NULL */
	const char *rel;    /* whole_row of a table: its name; NULL for a subquery or a join */
};

static void select_stmt(json_t *sel, const struct from_scope *up, struct star *st, int depth);

static json_t *unwrap(json_t *node, const char *type)
{
	return json_object_get(node, type);
}

/*
 * Whether the FROM item item (a wrapped node) is named name, as a bare
 * whole-row reference reads it (schema: the reference's schema part, or
 * NULL); a table's name in *rel (schema in *schema) when it is one.
 */
static bool item_named(json_t *item, const char *schema, const char *name, const char **rel_schema, const char **rel,
		       int depth)
{
	json_t *rv = unwrap(item, "RangeVar"), *sub = unwrap(item, "RangeSubselect"), *join = unwrap(item, "JoinExpr");
	json_t *ts = unwrap(item, "RangeTableSample");
	const char *alias;

	if (depth > STAR_MAX_DEPTH)
		return false;
	if (ts)
		return item_named(json_object_get(ts, "relation"), schema, name, rel_schema, rel, depth + 1);
	if (rv) {
		const char *s = pgv_str(rv, "schemaname"), *r = pgv_str(rv, "relname");

		alias = pgv_str(json_object_get(rv, "alias"), "aliasname");
		if (!r || (alias ? schema || strcmp(alias, name) != 0
				 : strcmp(r, name) != 0 || (schema && (!s || strcmp(s, schema) != 0))))
			return false;
		*rel_schema = s;
		*rel = r;
		return true;
	}
	if (sub) {
		alias = pgv_str(json_object_get(sub, "alias"), "aliasname");
		*rel = NULL;
		return !schema && alias && strcmp(alias, name) == 0;
	}
	if (join) {
		alias = pgv_str(json_object_get(join, "alias"), "aliasname");
		*rel = NULL;
		if (!schema && alias && strcmp(alias, name) == 0)
			return true;
		return item_named(json_object_get(join, "larg"), schema, name, rel_schema, rel, depth + 1) ||
		       item_named(json_object_get(join, "rarg"), schema, name, rel_schema, rel, depth + 1);
	}
	return false; /* a function in FROM: its row is built from its arguments, which are checked */
}

static void column_ref(json_t *ref, const struct from_scope *sc, struct star *st)
{
	json_t *fields = json_object_get(ref, "fields");
	size_t n = json_array_size(fields);
	const char *a, *b = NULL;

	if (n == 0)
		return;
	if (unwrap(json_array_get(fields, n - 1), "A_Star")) {
		st->at = ref;
		return;
	}
	if (n > 2)
		return;
	a = pgv_str(unwrap(json_array_get(fields, 0), "String"), "sval");
	if (n == 2)
		b = pgv_str(unwrap(json_array_get(fields, 1), "String"), "sval");
	if (!a || (n == 2 && !b))
		return;
	for (; sc; sc = sc->up) {
		for (size_t i = 0; i < json_array_size(sc->from); i++) {
			const char *rs = NULL, *r = NULL;

			if (item_named(json_array_get(sc->from, i), n == 2 ? a : NULL, n == 2 ? b : a, &rs, &r, 0)) {
				st->at = ref;
				st->whole_row = true;
				st->schema = rs;
				st->rel = r;
				return;
			}
		}
	}
}

/* count(...): a number, whatever its argument is. */
static bool is_count(json_t *call)
{
	json_t *name = json_object_get(call, "funcname");
	size_t n = json_array_size(name);
	const char *last = n ? pgv_str(unwrap(json_array_get(name, n - 1), "String"), "sval") : NULL;
	const char *schema = n == 2 ? pgv_str(unwrap(json_array_get(name, 0), "String"), "sval") : NULL;

	return last && strcmp(last, "count") == 0 && (n == 1 || (schema && strcmp(schema, "pg_catalog") == 0));
}

/* Keys of an expression node whose values never become the node's value. */
static bool not_a_value(const char *key)
{
	return strcmp(key, "agg_filter") == 0 || strcmp(key, "agg_order") == 0 || strcmp(key, "over") == 0;
}

/* An expression of an output column. */
static void expr(json_t *v, const struct from_scope *sc, struct star *st, int depth)
{
	const char *key;
	json_t *val;

	if (st->at)
		return;
	if (depth > STAR_MAX_DEPTH) {
		st->at = v;
		return;
	}
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v) && !st->at; i++)
			expr(json_array_get(v, i), sc, st, depth + 1);
		return;
	}
	if (!json_is_object(v))
		return;
	if ((val = unwrap(v, "ColumnRef"))) {
		column_ref(val, sc, st);
		return;
	}
	/* (expr).*: a composite's every field, as a star over a column or a row. */
	if (unwrap(v, "A_Star")) {
		st->at = v;
		return;
	}
	if ((val = unwrap(v, "SubLink"))) {
		const char *type = pgv_str(val, "subLinkType");

		/* EXISTS, IN / ANY, ALL and row comparisons yield a boolean: their subquery's columns stay inside. */
		if (type && (strcmp(type, "EXPR_SUBLINK") == 0 || strcmp(type, "ARRAY_SUBLINK") == 0))
			select_stmt(unwrap(json_object_get(val, "subselect"), "SelectStmt"), sc, st, depth + 1);
		return;
	}
	if ((val = unwrap(v, "FuncCall")) && is_count(val))
		return;
	json_object_foreach(v, key, val)
	{
		if (!not_a_value(key))
			expr(val, sc, st, depth + 1);
		if (st->at)
			return;
	}
}

/* A SELECT's body (unwrapped): the branches of a set operation, or the target list. */
static void select_stmt(json_t *sel, const struct from_scope *up, struct star *st, int depth)
{
	const char *op = pgv_str(sel, "op");
	struct from_scope sc = {.from = json_object_get(sel, "fromClause"), .up = up};
	json_t *targets = json_object_get(sel, "targetList");

	if (!json_is_object(sel) || st->at)
		return;
	if (depth > STAR_MAX_DEPTH) {
		st->at = sel;
		return;
	}
	if (op && strcmp(op, "SETOP_NONE") != 0) {
		select_stmt(json_object_get(sel, "larg"), up, st, depth + 1);
		select_stmt(json_object_get(sel, "rarg"), up, st, depth + 1);
		return;
	}
	for (size_t i = 0; i < json_array_size(targets) && !st->at; i++)
		expr(json_object_get(unwrap(json_array_get(targets, i), "ResTarget"), "val"), &sc, st, depth + 1);
}

/* SELECT * FROM the table a whole-row reference names, into out->star_read ("" when it does not fit). */
static void table_read(const struct star *st, struct pgv_result *out)
{
	struct pgv_sbuf sb = {0};
	char *text;

	pgv_sb_put(&sb, "SELECT * FROM ");
	if (st->schema) {
		pgv_sb_ident(&sb, st->schema);
		pgv_sb_put(&sb, ".");
	}
	pgv_sb_ident(&sb, st->rel);
	text = pgv_sb_take(&sb);
	if (text && strlen(text) < sizeof(out->star_read))
		memcpy(out->star_read, text, strlen(text) + 1);
	free(text);
}

bool pgv_star_refused(const char *sql, json_t *node, struct pgv_result *out)
{
	struct star st = {0};
	const char *shown;

	select_stmt(unwrap(node, "SelectStmt"), NULL, &st, 0);
	if (!st.at)
		return false;
	if (!st.whole_row) {
		pgv_refuse(out, AIRLOCK_E_SELECT_STAR, AIRLOCK_N_NONE, pgv_cursor_of(sql, st.at),
			   "name the columns you need (SELECT a, b FROM t); count(*) and EXISTS (SELECT * ...) are "
			   "fine",
			   "a star in the result's columns (SELECT *, t.*, TABLE t) is not allowed for this user");
		return true;
	}
	shown = st.rel ? st.rel : "";
	pgv_refuse(out, AIRLOCK_E_SELECT_STAR, AIRLOCK_N_NONE, pgv_cursor_of(sql, st.at),
		   "name the columns you need; if it is a column of the same name as its table, qualify it "
		   "(t.col)",
		   "a whole-row reference in the result's columns (SELECT t FROM t, to_json(t)) is not allowed for "
		   "this user%s%s%s",
		   shown[0] ? ": \"" : "", shown, shown[0] ? "\" is a table's whole row" : "");
	if (st.rel)
		table_read(&st, out);
	return true;
}
