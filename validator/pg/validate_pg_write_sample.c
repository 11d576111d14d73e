/*
 * validate_pg_write_sample: the dry run's variant of a write
 * (validate_pg_write.h). It starts from the text that will run, already
 * checked and scoped, and changes only what the write returns (and, for an
 * UPDATE, adds the table's old rows to its FROM, joined one to one): the
 * rows it touches and its count stay those of the text that will run.
 */
#include <stdio.h>
#include <string.h>

#include "conf/config.h"
#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_write.h"
#include "validator/pg/validate_pg_write_int.h"

#define OLD "airlock_old"
#define OLD_ROW "airlock_o"

/*
 * A JSON object of the row q names (an alias or the table's name, already
 * quoted), each value as its text, so a number reads as the database
 * prints it (1.50 stays 1.50, a long numeric whole), in column order.
 */
static void put_row_json(struct pgv_sbuf *sb, const struct airlock_rule *r, const char *q)
{
	size_t n;

	pgv_sb_put(sb, "(SELECT pg_catalog.json_object_agg(airlock_kv.k, airlock_kv.v ORDER BY airlock_kv.n) FROM "
		       "pg_catalog.json_each_text(");
	if (!r || !r->has_columns || r->ncolumns == 0) {
		pgv_sb_put(sb, "pg_catalog.to_json(");
		pgv_sb_put(sb, q);
		pgv_sb_put(sb, ")) WITH ORDINALITY AS airlock_kv(k, v, n))");
		return;
	}
	n = r->ncolumns < PGV_WRITE_SAMPLE_COLUMNS ? r->ncolumns : PGV_WRITE_SAMPLE_COLUMNS;
	pgv_sb_put(sb, "pg_catalog.json_build_object(");
	for (size_t i = 0; i < n; i++) {
		pgv_sb_put(sb, i ? ", " : "");
		pgv_sb_literal(sb, r->columns[i].name);
		pgv_sb_put(sb, ", ");
		if (r->columns[i].mask) {
			pgv_sb_put(sb, "'(masked)'::pg_catalog.text");
		} else {
			pgv_sb_put(sb, q);
			pgv_sb_put(sb, ".");
			pgv_sb_ident(sb, r->columns[i].name);
		}
	}
	pgv_sb_put(sb, ")) WITH ORDINALITY AS airlock_kv(k, v, n))");
}

/*
 * "SELECT <before>, <after> [FROM (<old rows>) AS airlock_old]": the
 * template whose target list becomes the RETURNING and whose FROM item the
 * UPDATE's FROM gains.
 */
static void put_template(struct pgv_sbuf *sb, const struct pgv_write_parts *p, const struct airlock_rule *r,
			 const char *ref)
{
	bool update = strcmp(p->command, "UPDATE") == 0;

	pgv_sb_put(sb, "SELECT ");
	if (update)
		pgv_sb_put(sb, OLD ".airlock_row AS airlock_before, ");
	else if (strcmp(p->command, "DELETE") == 0) {
		put_row_json(sb, r, ref);
		pgv_sb_put(sb, " AS airlock_before");
		return;
	}
	put_row_json(sb, r, ref);
	pgv_sb_put(sb, " AS airlock_after");
	if (!update)
		return;
	pgv_sb_put(sb, " FROM (SELECT " OLD_ROW ".tableoid AS airlock_tableoid, " OLD_ROW ".ctid AS airlock_ctid, ");
	put_row_json(sb, r, OLD_ROW);
	pgv_sb_put(sb, " AS airlock_row FROM ");
	pgv_sb_put(sb, p->rv->inh ? "" : "ONLY ");
	pgv_sb_ident(sb, p->rv->schemaname);
	pgv_sb_put(sb, ".");
	pgv_sb_ident(sb, p->rv->relname);
	pgv_sb_put(sb, " AS " OLD_ROW ") AS " OLD);
}

/* The UPDATE's FROM gains the old rows, and its WHERE the join on (tableoid, ctid). */
static bool join_old(struct pgv_scope *sc, const struct pgv_write_parts *p, PgQuery__Node *old, const char *ref)
{
	struct pgv_sbuf sb = {0};
	PgQuery__Node **from, *expr;

	from = pgv_scope_alloc(sc, (*p->nfrom + 1) * sizeof(*from));
	if (!from)
		return false;
	for (size_t i = 0; i < *p->nfrom; i++)
		from[i] = (*p->from)[i];
	from[*p->nfrom] = old;
	pgv_sb_put(&sb, "SELECT ");
	if (*p->where)
		pgv_sb_put(&sb, "(" PGV_SCOPE_PLACEHOLDER ") AND ");
	pgv_sb_put(&sb, ref);
	pgv_sb_put(&sb, ".tableoid = " OLD ".airlock_tableoid AND ");
	pgv_sb_put(&sb, ref);
	pgv_sb_put(&sb, ".ctid = " OLD ".airlock_ctid");
	expr = pgv_scope_expr(sc, &sb, *p->where);
	if (!expr || !pgv_scope_save(sc, p->from, sizeof(*p->from)) ||
	    !pgv_scope_save(sc, p->nfrom, sizeof(*p->nfrom)) || !pgv_scope_save(sc, p->where, sizeof(*p->where)))
		return false;
	*p->from = from;
	*p->nfrom += 1;
	*p->where = expr;
	return true;
}

/* RETURNING [the check column,] the template's columns: the agent's own RETURNING is not needed here. */
static bool sample_returning(struct pgv_scope *sc, const struct pgv_write_parts *p, PgQuery__SelectStmt *sel,
			     bool check)
{
	size_t keep = check ? 1 : 0, n = keep + sel->n_target_list;
	PgQuery__Node **list;

	if (check && *p->nret < 1)
		return false;
	list = pgv_scope_alloc(sc, n * sizeof(*list));
	if (!list)
		return false;
	if (check)
		list[0] = (*p->ret)[0];
	for (size_t i = 0; i < sel->n_target_list; i++)
		list[keep + i] = sel->target_list[i];
	if (!pgv_scope_save(sc, p->ret, sizeof(*p->ret)) || !pgv_scope_save(sc, p->nret, sizeof(*p->nret)))
		return false;
	*p->ret = list;
	*p->nret = n;
	return true;
}

static bool edit(struct pgv_scope *sc, PgQuery__ParseResult *tree, const struct pgv_result *w)
{
	struct pgv_sbuf sb = {0}, refb = {0};
	struct pgv_write_parts p;
	const struct airlock_rule *r;
	PgQuery__SelectStmt *sel;
	char *ref;
	bool ok;

	if (tree->n_stmts != 1 || !pgv_write_parts(tree->stmts[0]->stmt, &p) || !p.rv->schemaname ||
	    !p.rv->schemaname[0] || strcmp(p.command, w->command) != 0)
		return false;
	r = pgv_write_rule(sc->policy, p.rv->schemaname, p.rv->relname);
	pgv_sb_ident(&refb, p.rv->alias && p.rv->alias->aliasname && p.rv->alias->aliasname[0] ? p.rv->alias->aliasname
											       : p.rv->relname);
	ref = pgv_sb_take(&refb);
	if (!ref)
		return false;
	put_template(&sb, &p, r, ref);
	sel = pgv_scope_select(pgv_scope_template(sc, &sb));
	ok = sel && sel->n_target_list >= 1 && sample_returning(sc, &p, sel, w->write_check);
	if (ok && strcmp(p.command, "UPDATE") == 0)
		ok = sel->n_from_clause == 1 && p.from && join_old(sc, &p, sel->from_clause[0], ref);
	free(ref);
	return ok;
}

char *pgv_write_sample(const struct pgv_policy *policy, const char *rewritten, const struct pgv_result *w)
{
	struct pgv_result scratch = {0};
	struct pgv_scope sc = {.policy = policy, .sql = rewritten, .out = &scratch, .write = true};
	PgQuery__ParseResult *tree;
	char *text = NULL;

	if (!rewritten || w->kind != PGV_WRITE)
		return NULL;
	tree = pgv_scope_unpack(rewritten);
	if (!tree)
		return NULL;
	if (edit(&sc, tree, w) && !sc.refused)
		text = pgv_scope_deparse(&sc, tree);
	pgv_scope_free(&sc);
	pg_query__parse_result__free_unpacked(tree, NULL);
	return text;
}
