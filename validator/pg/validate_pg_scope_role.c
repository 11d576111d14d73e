/*
 * validate_pg_scope_role: one role in the agent's world, and no address.
 * The backend role is the only role there is, named as the airlock user
 * (the catalogs do the same: validate_pg_catalog.c); calls that would
 * name it, another role, the backend's address or what the whole database
 * holds are rewritten after their arguments were walked:
 *
 *   pg_get_userbyid(o)        the airlock user for the backend role's oid,
 *                             "unknown (OID=o)" for any other, as for an
 *                             oid that is no role
 *   current_setting(n[, m])   session_authorization reads as the airlock
 *                             user, role as "none", is_superuser as "off"
 *                             (what SHOW answers)
 *   inet_server_addr(), inet_client_addr(), inet_server_port(),
 *   inet_client_port()        NULL, as over a unix socket
 *   pg_database_size(d), pg_tablespace_size(t)
 *                             NULL: each counts every table, the hidden
 *                             ones too, and less the visible tables' sizes
 *                             that tells what the hidden ones hold
 *   pg_has_role(u, r, p), pg_has_role(r, p), has_*_privilege(u, ..., p)
 *                             a role given by name: the airlock user's
 *                             name is the backend role (the real current
 *                             user); any other name written as a constant
 *                             is refused as Postgres refuses a role that
 *                             does not exist (42704); a name computed at
 *                             run time other than the user's or public
 *                             reads as NULL (the function's answer NULL),
 *                             a real role and a missing one alike
 *   pg_relation_size(r[, f]), pg_table_size(r), pg_total_relation_size(r),
 *   pg_indexes_size(r)        for a user with rules: NULL for a table with
 *                             a rule (and its indexes, TOAST table and
 *                             partitions), whose size counts the rows the
 *                             rule hides; the catalog guard
 *                             (validate_pg_scope_guard.c) applies first
 */
#include <string.h>

#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_role.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_util.h"

enum role_fn { FN_NONE, FN_USERBYID, FN_SETTING, FN_ADDR, FN_PORT, FN_SIZE, FN_RELSIZE, FN_HASROLE, FN_PRIV };

static const struct {
	const char *name;
	enum role_fn fn;
} fns[] = {
	{"current_setting", FN_SETTING},
	{"has_any_column_privilege", FN_PRIV},
	{"has_column_privilege", FN_PRIV},
	{"has_database_privilege", FN_PRIV},
	{"has_foreign_data_wrapper_privilege", FN_PRIV},
	{"has_function_privilege", FN_PRIV},
	{"has_language_privilege", FN_PRIV},
	{"has_parameter_privilege", FN_PRIV},
	{"has_schema_privilege", FN_PRIV},
	{"has_sequence_privilege", FN_PRIV},
	{"has_server_privilege", FN_PRIV},
	{"has_table_privilege", FN_PRIV},
	{"has_tablespace_privilege", FN_PRIV},
	{"has_type_privilege", FN_PRIV},
	{"inet_client_addr", FN_ADDR},
	{"inet_client_port", FN_PORT},
	{"inet_server_addr", FN_ADDR},
	{"inet_server_port", FN_PORT},
	{"pg_database_size", FN_SIZE},
	{"pg_get_userbyid", FN_USERBYID},
	{"pg_has_role", FN_HASROLE},
	{"pg_indexes_size", FN_RELSIZE},
	{"pg_relation_size", FN_RELSIZE},
	{"pg_table_size", FN_RELSIZE},
	{"pg_tablespace_size", FN_SIZE},
	{"pg_total_relation_size", FN_RELSIZE},
};

/* Which rewrite fc gets: its name (unqualified or pg_catalog.) is listed. */
static enum role_fn which(const PgQuery__FuncCall *fc, char *lower, size_t cap)
{
	const PgQuery__Node *last;
	size_t i;

	if (fc->n_funcname == 0 || fc->n_funcname > 2 || fc->agg_star || fc->over)
		return FN_NONE;
	if (fc->n_funcname == 2 && (fc->funcname[0]->node_case != PG_QUERY__NODE__NODE_STRING ||
				    strcmp(fc->funcname[0]->string->sval, "pg_catalog") != 0))
		return FN_NONE;
	last = fc->funcname[fc->n_funcname - 1];
	if (last->node_case != PG_QUERY__NODE__NODE_STRING || !pgv_lower_copy(lower, cap, last->string->sval))
		return FN_NONE;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		if (strcmp(lower, fns[i].name) == 0)
			return fns[i].fn;
	}
	return FN_NONE;
}

/* node becomes sb's "SELECT <expr>", its placeholder (if any) holding value. */
static void replace_with(struct pgv_scope *sc, PgQuery__Node *node, struct pgv_sbuf *sb, PgQuery__Node *value)
{
	PgQuery__Node *expr = pgv_scope_expr(sc, sb, value);

	if (expr)
		pgv_scope_replace(sc, node, expr);
}

/*
 * A relation's size for a user with rules: the guard first (a hidden
 * relation reads as NULL), then NULL for what ruled_relations holds.
 */
static void relation_size(struct pgv_scope *sc, PgQuery__Node *node, const char *name)
{
	PgQuery__FuncCall *fc = node->func_call;
	const char *fork = fc->n_args == 2 ? pgv_scope_string_const(fc->args[1]) : NULL;
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);

	if (sc->policy->nrules == 0 || fc->n_args == 0 || fc->n_args > 2)
		return;
	if (fc->n_args == 2 && !fork) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, fc->location, "give the fork as a constant",
				 "this form of %s() is not supported", name);
		return;
	}
	pgv_scope_func_call(sc, node);
	if (sc->refused || node->node_case != PG_QUERY__NODE__NODE_FUNC_CALL)
		return;
	pgv_sb_put(&sb, "SELECT (SELECT CASE WHEN ");
	pgv_scope_expand(&sb, sc->policy, "@U(g.a::pg_catalog.regclass::pg_catalog.oid)");
	pgv_sb_put(&sb, " THEN pg_catalog.");
	pgv_sb_put(&sb, name);
	pgv_sb_put(&sb, "(g.a::pg_catalog.regclass");
	if (fork) {
		pgv_sb_put(&sb, ", ");
		pgv_sb_literal(&sb, fork);
	}
	pgv_sb_put(&sb, ") END FROM (SELECT " PGV_SCOPE_PLACEHOLDER ") AS g(a))");
	replace_with(sc, node, &sb, node->func_call->args[0]);
}

/*
 * Argument i names a role: the airlock user's name becomes the backend
 * role's, another constant name is refused as missing, anything else is
 * mapped when it is the airlock user's name at run time. False when refused.
 */
static bool role_arg(struct pgv_scope *sc, PgQuery__FuncCall *fc, size_t i)
{
	PgQuery__Node *arg = fc->args[i];
	const char *lit = pgv_scope_string_const(arg);
	const char *user = sc->policy->user ? sc->policy->user : "airlock";
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);
	PgQuery__Node *expr;

	if (arg->node_case == PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION ||
	    (arg->node_case == PG_QUERY__NODE__NODE_A_CONST && !lit))
		return true; /* current_user (already the airlock user's name: mapped below), an oid, NULL */
	if (lit && strcmp(lit, user) != 0 && strcmp(lit, "public") != 0) {
		pgv_scope_refuse(sc, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_PG_UNDEFINED_OBJECT, fc->location,
				 "the only role here is the one you are logged in as", "role \"%s\" does not exist",
				 lit);
		return false;
	}
	/* Any other name is unknown to the world, whether the backend has such a role or not: NULL, as the
	 * function gives for a NULL role, so that no run-time name tells a real role from a missing one. */
	pgv_sb_put(&sb, "SELECT (SELECT CASE g.a::pg_catalog.text WHEN ");
	pgv_sb_literal(&sb, user);
	pgv_sb_put(&sb, " THEN CURRENT_USER WHEN 'public' THEN 'public'::pg_catalog.name ELSE NULL::pg_catalog.name END"
			" FROM (SELECT " PGV_SCOPE_PLACEHOLDER ") AS g(a))");
	expr = pgv_scope_expr(sc, &sb, arg);
	return expr && pgv_scope_replace(sc, arg, expr);
}

/* A boolean constant (missing_ok), as SQL; NULL when the argument is anything else. */
static const char *bool_const(const PgQuery__Node *n)
{
	if (n->node_case != PG_QUERY__NODE__NODE_A_CONST || n->a_const->isnull ||
	    n->a_const->val_case != PG_QUERY__A__CONST__VAL_BOOLVAL)
		return NULL;
	return n->a_const->boolval && n->a_const->boolval->boolval ? "true" : "false";
}

void pgv_scope_role_call(struct pgv_scope *sc, PgQuery__Node *node)
{
	PgQuery__FuncCall *fc = node->func_call;
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);
	const char *missing_ok = NULL;
	char lower[64];
	enum role_fn fn = which(fc, lower, sizeof(lower));

	if (fn == FN_NONE)
		return;
	if (fc->func_variadic || (fn == FN_SETTING && fc->n_args == 2 && !(missing_ok = bool_const(fc->args[1])))) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, fc->location,
				 "give missing_ok as true or false", "this form of %s() is not supported", lower);
		return;
	}
	for (size_t i = 0; i < fc->n_args; i++) {
		if (fc->args[i]->node_case == PG_QUERY__NODE__NODE_NAMED_ARG_EXPR) {
			pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, fc->location,
					 "pass the arguments by position", "named arguments to %s() are not supported",
					 lower);
			return;
		}
	}
	switch (fn) {
	case FN_ADDR:
	case FN_PORT:
		if (fc->n_args != 0)
			return;
		pgv_sb_put(&sb, fn == FN_ADDR ? "SELECT NULL::pg_catalog.inet" : "SELECT NULL::pg_catalog.int4");
		replace_with(sc, node, &sb, NULL);
		return;
	case FN_SIZE:
		if (fc->n_args != 1)
			return;
		pgv_sb_put(&sb, "SELECT NULL::pg_catalog.int8");
		replace_with(sc, node, &sb, NULL);
		return;
	case FN_USERBYID:
		if (fc->n_args != 1)
			return;
		pgv_sb_put(&sb, "SELECT (SELECT CASE WHEN g.a IS NULL THEN NULL WHEN g.a = ");
		pgv_scope_expand(&sb, sc->policy, "@B THEN @W");
		pgv_sb_put(&sb, " ELSE ('unknown (OID=' || g.a::pg_catalog.text || ')')::pg_catalog.name END"
				" FROM (SELECT (" PGV_SCOPE_PLACEHOLDER ")::pg_catalog.oid) AS g(a))");
		replace_with(sc, node, &sb, fc->args[0]);
		return;
	case FN_SETTING:
		if (fc->n_args != 1 && fc->n_args != 2)
			return;
		pgv_sb_put(&sb, "SELECT (SELECT CASE pg_catalog.lower(g.a) WHEN 'session_authorization' THEN ");
		pgv_scope_expand(&sb, sc->policy, "@W::pg_catalog.text");
		pgv_sb_put(&sb, " WHEN 'role' THEN 'none' WHEN 'is_superuser' THEN 'off'"
				" ELSE pg_catalog.current_setting(g.a");
		if (missing_ok) {
			pgv_sb_put(&sb, ", ");
			pgv_sb_put(&sb, missing_ok);
		}
		pgv_sb_put(&sb, ") END FROM (SELECT (" PGV_SCOPE_PLACEHOLDER ")::pg_catalog.text) AS g(a))");
		replace_with(sc, node, &sb, fc->args[0]);
		return;
	case FN_RELSIZE:
		relation_size(sc, node, lower);
		return;
	case FN_HASROLE:
		if ((fc->n_args == 2 || fc->n_args == 3) && role_arg(sc, fc, 0) && fc->n_args == 3)
			role_arg(sc, fc, 1);
		return;
	case FN_PRIV:
		/* The user argument is there when the call has its longest form. */
		if (fc->n_args == (strcmp(lower, "has_column_privilege") == 0 ? 4u : 3u) && role_arg(sc, fc, 0))
			pgv_scope_func_call(sc, node); /* the guard of the object argument */
		return;
	case FN_NONE:
		return;
	}
}
