/*
 * validate_pg_write_scope: the text a write runs as (validate_pg_write.h).
 * The edits go through the scoping's recorded mutations
 * (validate_pg_scope_int.h), then the reads inside are scoped as any read.
 *
 * An UPDATE or DELETE of a filtered table keeps to the rows the user
 * reads:
 *   UPDATE s.t SET ... WHERE <settings check> AND (<filter>) AND (<where>)
 * and an INSERT or UPDATE of one returns first
 *   (<settings check> AND (<filter>)) IS TRUE AS airlock_check
 * for each row it writes, so the runner rolls back a write that would
 * leave a row the user could not read (a policy's WITH CHECK).
 */
#include <stdio.h>
#include <string.h>

#include "conf/config.h"
#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_write.h"
#include "validator/pg/validate_pg_write_int.h"

struct write_edit {
	char target[136];
	char command[8];
	bool returning;
	bool check;
};

bool pgv_write_parts(PgQuery__Node *stmt, struct pgv_write_parts *p)
{
	if (!stmt)
		return false;
	switch (stmt->node_case) {
	case PG_QUERY__NODE__NODE_INSERT_STMT:
		*p = (struct pgv_write_parts){stmt->insert_stmt->relation,
					      NULL,
					      &stmt->insert_stmt->n_returning_list,
					      &stmt->insert_stmt->returning_list,
					      NULL,
					      NULL,
					      "INSERT"};
		break;
	case PG_QUERY__NODE__NODE_UPDATE_STMT:
		*p = (struct pgv_write_parts){stmt->update_stmt->relation,
					      &stmt->update_stmt->where_clause,
					      &stmt->update_stmt->n_returning_list,
					      &stmt->update_stmt->returning_list,
					      &stmt->update_stmt->n_from_clause,
					      &stmt->update_stmt->from_clause,
					      "UPDATE"};
		break;
	case PG_QUERY__NODE__NODE_DELETE_STMT:
		*p = (struct pgv_write_parts){stmt->delete_stmt->relation,
					      &stmt->delete_stmt->where_clause,
					      &stmt->delete_stmt->n_returning_list,
					      &stmt->delete_stmt->returning_list,
					      &stmt->delete_stmt->n_using_clause,
					      &stmt->delete_stmt->using_clause,
					      "DELETE"};
		break;
	default:
		return false;
	}
	return p->rv && p->rv->relname && p->rv->relname[0];
}

/* "<settings check> AND (<filter>)" */
static void put_filter(struct pgv_sbuf *sb, const struct airlock_rule *r)
{
	pgv_sb_put(sb, pgv_scope_settings_check);
	pgv_sb_put(sb, " AND (");
	pgv_sb_put(sb, r->filter);
	pgv_sb_put(sb, "\n)");
}

/* WHERE <filter> AND (<the statement's WHERE>). */
static bool filter_where(struct pgv_scope *sc, const struct pgv_write_parts *p, const struct airlock_rule *r)
{
	struct pgv_sbuf sb = {0};
	PgQuery__Node *expr;

	pgv_sb_put(&sb, "SELECT ");
	put_filter(&sb, r);
	if (*p->where)
		pgv_sb_put(&sb, " AND (" PGV_SCOPE_PLACEHOLDER ")");
	expr = pgv_scope_expr(sc, &sb, *p->where);
	if (!expr || !pgv_scope_save(sc, p->where, sizeof(*p->where)))
		return false;
	*p->where = expr;
	return true;
}

/* RETURNING (<filter>) IS TRUE AS airlock_check, <the statement's RETURNING>. */
static bool check_returning(struct pgv_scope *sc, const struct pgv_write_parts *p, const struct airlock_rule *r)
{
	struct pgv_sbuf sb = {0};
	PgQuery__SelectStmt *sel;
	PgQuery__Node **list;

	pgv_sb_put(&sb, "SELECT (");
	put_filter(&sb, r);
	pgv_sb_put(&sb, ") IS TRUE AS " PGV_WRITE_CHECK);
	sel = pgv_scope_select(pgv_scope_template(sc, &sb));
	if (!sel || sel->n_target_list != 1)
		return false;
	list = pgv_scope_alloc(sc, (*p->nret + 1) * sizeof(*list));
	if (!list)
		return false;
	list[0] = sel->target_list[0];
	for (size_t i = 0; i < *p->nret; i++)
		list[i + 1] = (*p->ret)[i];
	if (!pgv_scope_save(sc, p->ret, sizeof(*p->ret)) || !pgv_scope_save(sc, p->nret, sizeof(*p->nret)))
		return false;
	*p->ret = list;
	*p->nret += 1;
	return true;
}

static bool edit(struct pgv_scope *sc, PgQuery__ParseResult *tree, void *arg)
{
	struct write_edit *e = arg;
	const struct airlock_rule *r;
	const char *schema = NULL;
	struct pgv_write_parts p;
	char *copy;

	if (tree->n_stmts != 1 || !pgv_write_parts(tree->stmts[0]->stmt, &p))
		return false;
	if (!pgv_write_resolve(sc->policy, p.rv->schemaname && p.rv->schemaname[0] ? p.rv->schemaname : NULL,
			       p.rv->relname, &schema))
		return false;
	snprintf(e->target, sizeof(e->target), "%s.%s", schema, p.rv->relname);
	snprintf(e->command, sizeof(e->command), "%s", p.command);
	e->returning = *p.nret > 0;
	if (!p.rv->schemaname || !p.rv->schemaname[0]) {
		/* The table the check resolved, named: the search_path cannot send the write elsewhere. */
		copy = pgv_scope_strdup(sc, schema);
		if (!copy || !pgv_scope_save(sc, &p.rv->schemaname, sizeof(p.rv->schemaname)))
			return false;
		p.rv->schemaname = copy;
	}
	r = pgv_write_rule(sc->policy, schema, p.rv->relname);
	if (!r || !r->filter)
		return true;
	if (!pgv_scope_default_path(sc->policy)) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, p.rv->location,
				 "SET search_path TO DEFAULT",
				 "table \"%s\" has a row filter, whose names resolve through the search_path: it is "
				 "written only under the default search_path (public)",
				 p.rv->relname);
		return false;
	}
	if (p.where && !filter_where(sc, &p, r))
		return false;
	if (strcmp(p.command, "DELETE") != 0) {
		if (!check_returning(sc, &p, r))
			return false;
		e->check = true;
	}
	return true;
}

enum pgv_kind pgv_write_scope(const struct pgv_policy *policy, const char *sql, char **rewritten, char **guard,
			      struct pgv_result *out)
{
	struct write_edit e = {0};

	if (pgv_scope_edited(policy, sql, edit, &e, rewritten, guard, out) != PGV_WRITE)
		return out->kind;
	memcpy(out->target, e.target, sizeof(out->target));
	memcpy(out->command, e.command, sizeof(out->command));
	out->returning = e.returning;
	out->write_check = e.check;
	return out->kind;
}
