/*
 * validate_pg_scope_guard: the guards on catalog functions and on casts to
 * the reg* types, and the user functions.
 *
 * A guard keeps a value only when it names something visible:
 *   (SELECT g.a FROM (SELECT <value> OFFSET 0) AS g(a) WHERE COALESCE(<check of g.a>, false))
 * so a hidden relation reads as NULL, exactly as one that does not exist
 * (the name is resolved with to_regclass, which does not raise for a
 * missing relation). The value
 * keeps its own type, so overloaded functions resolve as before. A string
 * literal is typed by the guard itself (regclass, oid or text, as the
 * function declares it), because Postgres would otherwise resolve it at
 * parse time and fail on a name that does not exist, which a hidden one
 * would not. A literal naming a relation the allowlist allows by name is
 * left as it is.
 */
#include <stdio.h>
#include <string.h>

#include "validator/pg/validate_pg_funcs.h"
#include "validator/pg/validate_pg_read.h"
#include "validator/pg/validate_pg_scope_funcs.h"
#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_util.h"

/*
 * Any value reads as text: digits are an oid, anything else a name to
 * resolve (a regclass or regtype prints as its name). The digit test comes
 * first: casting a name to oid would raise, and a CASE computes a branch
 * only when its test holds (g.a is computed apart, PGV_SCOPE_ONCE, so the
 * planner never folds the branches of a constant).
 */
#define DIGITS "g.a::pg_catalog.text OPERATOR(pg_catalog.~) '^[0-9]+$'"

/*
 * The world's functions (@F), operators and collations (those in a visible
 * schema), less the functions and operators over a type outside the world
 * (their printed signature would name it).
 */
#define VIS_FUNCTIONS                                                                                            \
	"(SELECT gp.oid FROM pg_catalog.pg_proc gp WHERE gp.oid IN @F EXCEPT SELECT gq.oid FROM"                 \
	" pg_catalog.pg_proc gq, pg_catalog.unnest(gq.proargtypes::pg_catalog.oid[]) AS ga(t) WHERE NOT ga.t IN" \
	" @T)"
#define VIS_OPERATORS                                                                                      \
	"(SELECT gr.oid FROM pg_catalog.pg_operator gr WHERE gr.oprnamespace IN @M AND (gr.oprleft = 0 OR" \
	" gr.oprleft IN @T) AND (gr.oprright = 0 OR gr.oprright IN @T))"
#define VIS_COLLATIONS "(SELECT gc.oid FROM pg_catalog.pg_collation gc WHERE gc.collnamespace IN @M)"

/*
 * name (SQL of a text value), or NULL when it is qualified by a schema
 * outside the world. Postgres looks a qualified name up only after checking
 * the backend role's USAGE on its schema, and raises "permission denied
 * for schema" where a schema that does not exist reads as missing: such a
 * name must never reach the lookup. The schema is the second to last part
 * (parse_ident splits and folds as the lookups do); of an operator's name
 * (oper), whose last part is no identifier, the last part of what comes
 * before its last dot. A name without a dot has none, and passes untouched
 * (the first arm, so a constant name that is not a qualified one is never
 * given to parse_ident).
 */
static void put_world_name(struct pgv_sbuf *sb, const struct pgv_policy *p, const char *name, bool oper)
{
	/* A string literal (quoted here: 'x' or E'x') without a dot names no schema. */
	if ((name[0] == '\'' || (name[0] == 'E' && name[1] == '\'')) && !strchr(name, '.')) {
		pgv_sb_put(sb, name);
		return;
	}
	pgv_sb_put(sb, "CASE WHEN ");
	pgv_sb_put(sb, name);
	pgv_sb_put(sb, " OPERATOR(pg_catalog.!~) '\\.' THEN ");
	pgv_sb_put(sb, name);
	pgv_sb_put(sb, " WHEN NOT EXISTS (SELECT FROM pg_catalog.parse_ident(");
	if (oper) {
		pgv_sb_put(sb, "pg_catalog.regexp_replace(");
		pgv_sb_put(sb, name);
		pgv_sb_put(sb, ", '\\.[^.]*$', '')");
	} else {
		pgv_sb_put(sb, name);
	}
	pgv_scope_expand(
		sb, p,
		oper ? ", false) AS gw(p) WHERE NOT gw.p[pg_catalog.cardinality(gw.p)] IN (SELECT"
		       " gn.nspname::pg_catalog.text FROM pg_catalog.pg_namespace gn WHERE gn.oid IN @M)) THEN "
		     : ", false) AS gw(p) WHERE pg_catalog.cardinality(gw.p) > 1 AND NOT"
		       " gw.p[pg_catalog.cardinality(gw.p) - 1] IN (SELECT gn.nspname::pg_catalog.text FROM"
		       " pg_catalog.pg_namespace gn WHERE gn.oid IN @M)) THEN ");
	pgv_sb_put(sb, name);
	pgv_sb_put(sb, " END");
}

/* put_world_name of g.a, the guarded value, read as text. */
static void put_world_name_of_value(struct pgv_sbuf *sb, const struct pgv_policy *p)
{
	put_world_name(sb, p, "g.a::pg_catalog.text", false);
}

/* The oid of the relation g.a names: digits as an oid, else the name resolved in the world. */
static void put_relation_oid(struct pgv_sbuf *sb, const struct pgv_policy *p)
{
	pgv_sb_put(sb, "CASE WHEN " DIGITS " THEN g.a::pg_catalog.text::pg_catalog.oid"
		       " ELSE pg_catalog.to_regclass(");
	put_world_name_of_value(sb, p);
	pgv_sb_put(sb, ")::pg_catalog.oid END");
}

/*
 * The condition on g.a, the guarded value. by_oid: the value is of a type
 * that converts to oid (an oid parameter's argument: an oid, an integer or
 * a reg* value), so a relation or type is its oid, with no name to read.
 */
static void put_check(struct pgv_sbuf *sb, const struct pgv_policy *p, enum pgv_guard_kind k, bool by_oid)
{
	if (by_oid && (k == PGV_G_REL || k == PGV_G_TYPE)) {
		pgv_scope_expand(sb, p, k == PGV_G_REL ? "g.a::pg_catalog.oid IN @V" : "g.a::pg_catalog.oid IN @T");
		return;
	}
	switch (k) {
	case PGV_G_REL:
		put_relation_oid(sb, p);
		pgv_scope_expand(sb, p, " IN @V");
		break;
	case PGV_G_VIEW:
		put_relation_oid(sb, p);
		pgv_scope_expand(
			sb, p,
			" IN @V AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class gvc JOIN pg_catalog.pg_namespace"
			" gvn ON gvn.oid = gvc.relnamespace WHERE gvc.oid = ");
		put_relation_oid(sb, p);
		pgv_scope_expand(sb, p, " AND @D(gvn.nspname,gvc.relname))");
		break;
	case PGV_G_TYPE:
		pgv_sb_put(sb, "CASE WHEN " DIGITS " THEN g.a::pg_catalog.text::pg_catalog.oid"
			       " ELSE pg_catalog.to_regtype(");
		put_world_name_of_value(sb, p);
		pgv_scope_expand(sb, p, ")::pg_catalog.oid END IN @T");
		break;
	case PGV_G_CON:
		pgv_scope_expand(sb, p, "g.a::pg_catalog.oid IN @C");
		break;
	case PGV_G_TRIG:
		pgv_scope_expand(sb, p,
				 "g.a::pg_catalog.oid IN (SELECT gt.oid FROM pg_catalog.pg_trigger gt"
				 " WHERE gt.tgrelid IN @V)");
		break;
	case PGV_G_RULE:
		pgv_scope_expand(sb, p,
				 "g.a::pg_catalog.oid IN (SELECT gr.oid FROM pg_catalog.pg_rewrite gr"
				 " WHERE gr.ev_class IN @V)");
		break;
	case PGV_G_STATX:
		pgv_scope_expand(sb, p,
				 "g.a::pg_catalog.oid IN (SELECT gs.oid FROM pg_catalog.pg_statistic_ext gs"
				 " WHERE gs.stxrelid IN @V)");
		break;
	case PGV_G_FUNC:
		/*
		 * oid, regproc, regprocedure, int2, int4, int8: what the oid
		 * overloads take; and one of the world's functions, by an oid
		 * that prints as digits (a regproc prints its name, and reads as
		 * NULL too).
		 */
		pgv_scope_expand(
			sb, p,
			"pg_catalog.pg_typeof(g.a)::pg_catalog.oid IN (26, 24, 2202, 21, 23, 20) AND CASE WHEN"
			" " DIGITS
			" THEN g.a::pg_catalog.text::pg_catalog.oid ELSE NULL::pg_catalog.oid END IN " VIS_FUNCTIONS);
		break;
	case PGV_G_NSP:
		pgv_scope_expand(sb, p,
				 "CASE WHEN " DIGITS " THEN g.a::pg_catalog.text::pg_catalog.oid"
				 " ELSE pg_catalog.to_regnamespace(g.a::pg_catalog.text)::pg_catalog.oid END IN @M");
		break;
	case PGV_G_PROC:
		pgv_scope_expand(sb, p, "g.a::pg_catalog.oid IN " VIS_FUNCTIONS);
		break;
	case PGV_G_OPER:
		pgv_scope_expand(sb, p, "g.a::pg_catalog.oid IN " VIS_OPERATORS);
		break;
	case PGV_G_COLL:
		pgv_scope_expand(sb, p, "g.a::pg_catalog.oid IN " VIS_COLLATIONS);
		break;
	case PGV_G_OBJ:
		pgv_scope_expand(sb, p,
				 "g.a::pg_catalog.oid NOT IN (SELECT hc.oid FROM pg_catalog.pg_class hc"
				 " WHERE hc.oid NOT IN @V UNION ALL SELECT hk.oid FROM pg_catalog.pg_constraint hk"
				 " WHERE hk.oid NOT IN @C UNION ALL SELECT ht.oid FROM pg_catalog.pg_type ht"
				 " WHERE ht.oid NOT IN @T)");
		break;
	}
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

/* value: the SQL of the guarded value (NULL: the placeholder); by_oid: see put_check. */
static PgQuery__Node *guard(struct pgv_scope *sc, const char *value, enum pgv_guard_kind k, PgQuery__Node *node,
			    bool by_oid)
{
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);

	pgv_sb_put(&sb, "SELECT (SELECT g.a FROM (SELECT ");
	pgv_sb_put(&sb, value ? value : PGV_SCOPE_PLACEHOLDER);
	pgv_sb_put(&sb, PGV_SCOPE_ONCE ") AS g(a) WHERE COALESCE(");
	put_check(&sb, sc->policy, k, by_oid);
	pgv_sb_put(&sb, ", false))");
	return pgv_scope_expr(sc, &sb, value ? NULL : node);
}

/*
 * An array cast to regclass[] or regtype[]: each element guarded as the
 * cast reads it (a name, or an oid), a hidden one NULL, in the array's
 * order. The array comes back one-dimensional, and an empty one NULL.
 */
static void guard_array(struct pgv_scope *sc, PgQuery__Node *arg, enum pgv_guard_kind k)
{
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);
	PgQuery__Node *expr;

	pgv_sb_put(&sb, "SELECT (SELECT pg_catalog.array_agg((SELECT g.a FROM (SELECT ge.e) AS g(a) WHERE ");
	put_check(&sb, sc->policy, k, false);
	pgv_sb_put(&sb,
		   ") ORDER BY ge.o) FROM pg_catalog.unnest(" PGV_SCOPE_PLACEHOLDER ") WITH ORDINALITY AS ge(e, o))");
	expr = pgv_scope_expr(sc, &sb, arg);
	if (expr)
		pgv_scope_replace(sc, arg, expr);
}

/* The guarded value for string literal lit read as the declared type. */
static char *literal_value(const struct pgv_policy *p, const char *lit, enum pgv_guard_kind k,
			   enum pgv_guard_param param, bool cast)
{
	struct pgv_sbuf sb = {0}, q = {0};
	bool digits = all_digits(lit);
	char *quoted;

	if (param == PGV_P_TEXT) {
		pgv_sb_literal(&sb, lit);
		pgv_sb_put(&sb, "::pg_catalog.text");
	} else if (param == PGV_P_OID || digits) {
		pgv_sb_literal(&sb, lit);
		pgv_sb_put(&sb, "::pg_catalog.oid");
		if (cast)
			pgv_sb_put(&sb, k == PGV_G_TYPE ? "::pg_catalog.regtype" : "::pg_catalog.regclass");
	} else {
		pgv_sb_literal(&q, lit);
		quoted = pgv_sb_take(&q);
		if (!quoted) {
			pgv_sb_free(&sb);
			return NULL;
		}
		pgv_sb_put(&sb, k == PGV_G_TYPE ? "pg_catalog.to_regtype(" : "pg_catalog.to_regclass(");
		put_world_name(&sb, p, quoted, false);
		pgv_sb_put(&sb, ")");
		free(quoted);
	}
	return pgv_sb_take(&sb);
}

/*
 * Splits a relation name as regclass input reads it ("a", "s.a",
 * "\"Mixed\".b"; unquoted parts folded to lower case) into schema (""
 * when unqualified) and rel. False for anything else.
 */
static bool split_name(const char *s, char *schema, char *rel, size_t cap)
{
	char parts[2][128];
	int n = 0;

	for (;;) {
		size_t len = 0;

		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (n == 2)
			return false;
		if (*s == '"') {
			for (s++;; s++) {
				if (*s == '\0')
					return false;
				if (*s == '"' && s[1] != '"')
					break;
				if (*s == '"')
					s++;
				if (len + 1 >= sizeof(parts[n]))
					return false;
				parts[n][len++] = *s;
			}
			s++;
		} else {
			while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
			       *s == '_' || *s == '$' || (unsigned char)*s >= 0x80) {
				if (len + 1 >= sizeof(parts[n]))
					return false;
				parts[n][len++] = (*s >= 'A' && *s <= 'Z') ? (char)(*s + 32) : *s;
				s++;
			}
		}
		if (len == 0)
			return false;
		parts[n++][len] = '\0';
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		if (*s == '\0')
			break;
		if (*s != '.')
			return false;
		s++;
	}
	if (strlen(parts[n - 1]) >= cap || (n == 2 && strlen(parts[0]) >= cap))
		return false;
	snprintf(schema, cap, "%s", n == 2 ? parts[0] : "");
	snprintf(rel, cap, "%s", parts[n - 1]);
	return true;
}

static bool literal_allowed(const struct pgv_scope *sc, const char *lit)
{
	char schema[128], rel[128];

	if (all_digits(lit) || !split_name(lit, schema, rel, sizeof(schema)))
		return false;
	return pgv_name_allowed(sc->policy, schema[0] ? schema : NULL, rel);
}

/* Replaces node (a value, or a whole cast when cast is set) by its guard. */
static void guard_value(struct pgv_scope *sc, PgQuery__Node *node, const PgQuery__Node *value, enum pgv_guard_kind k,
			enum pgv_guard_param param, bool cast)
{
	const char *lit = pgv_scope_string_const(value);
	PgQuery__Node *expr;

	if (lit) {
		char *v;

		if (k == PGV_G_REL && param != PGV_P_OID && literal_allowed(sc, lit))
			return;
		v = literal_value(sc->policy, lit, k, param, cast);
		if (!v) {
			pgv_scope_out_of_memory(sc);
			return;
		}
		expr = guard(sc, v, k, NULL, false);
		free(v);
	} else {
		/* An oid parameter takes no text (pgv_guarded_fn): its argument converts to an oid. */
		expr = guard(sc, NULL, k, node, param == PGV_P_OID);
	}
	if (expr)
		pgv_scope_replace(sc, node, expr);
}

/* Replaces arg, a name a function looks up, by put_world_name of it. */
static void guard_world_name(struct pgv_scope *sc, PgQuery__Node *arg, bool oper)
{
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);
	PgQuery__Node *expr;

	pgv_sb_put(&sb, "SELECT (SELECT ");
	put_world_name(&sb, sc->policy, "gv.n::pg_catalog.text", oper);
	pgv_sb_put(&sb, " FROM (SELECT " PGV_SCOPE_PLACEHOLDER ") AS gv(n))");
	expr = pgv_scope_expr(sc, &sb, arg);
	if (expr)
		pgv_scope_replace(sc, arg, expr);
}

/* ---- the user functions ---- */

static const char *user_function(const PgQuery__FuncCall *fc)
{
	static const char *const names[] = {"current_user", "session_user", "current_role", "getpgusername"};
	const PgQuery__Node *last;
	size_t i;

	if (fc->n_args != 0 || fc->n_funcname == 0 || fc->n_funcname > 2)
		return NULL;
	if (fc->n_funcname == 2 && (fc->funcname[0]->node_case != PG_QUERY__NODE__NODE_STRING ||
				    strcmp(fc->funcname[0]->string->sval, "pg_catalog") != 0))
		return NULL;
	last = fc->funcname[fc->n_funcname - 1];
	if (last->node_case != PG_QUERY__NODE__NODE_STRING)
		return NULL;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(last->string->sval, names[i]) == 0)
			return names[i];
	}
	return NULL;
}

const char *pgv_scope_user_colname(const PgQuery__Node *node)
{
	if (node->node_case == PG_QUERY__NODE__NODE_FUNC_CALL)
		return user_function(node->func_call);
	if (node->node_case != PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION)
		return NULL;
	switch (node->sqlvalue_function->op) {
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER:
		return "current_user";
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE:
		return "current_role";
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER:
		return "user";
	case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER:
		return "session_user";
	default:
		return NULL;
	}
}

static void replace_with_user(struct pgv_scope *sc, PgQuery__Node *node)
{
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);
	PgQuery__Node *expr;

	pgv_sb_put(&sb, "SELECT ");
	pgv_sb_literal(&sb, sc->policy->user ? sc->policy->user : "airlock");
	pgv_sb_put(&sb, "::pg_catalog.name");
	expr = pgv_scope_expr(sc, &sb, NULL);
	if (expr)
		pgv_scope_replace(sc, node, expr);
}

void pgv_scope_user_value(struct pgv_scope *sc, PgQuery__Node *node)
{
	if (pgv_scope_user_colname(node))
		replace_with_user(sc, node);
}

/* ---- the schema of an unqualified call ---- */

/* A two-part function name: the schema's String node, then the call's own last part. */
struct qualified_name {
	PgQuery__Node *parts[2];
	PgQuery__Node schema;
	PgQuery__String str;
};

void pgv_scope_qualify_call(struct pgv_scope *sc, PgQuery__Node *node)
{
	PgQuery__FuncCall *fc = node->func_call;
	struct qualified_name *q;
	const char *schema;

	if (fc->n_funcname != 1 || fc->funcname[0]->node_case != PG_QUERY__NODE__NODE_STRING)
		return;
	schema = pgv_function_qualifier(sc->policy, fc->funcname[0]->string->sval);
	if (!schema)
		return;
	q = pgv_scope_alloc(sc, sizeof(*q));
	if (!q || !pgv_scope_save(sc, &fc->funcname, sizeof(fc->funcname)) ||
	    !pgv_scope_save(sc, &fc->n_funcname, sizeof(fc->n_funcname)))
		return;
	pg_query__string__init(&q->str);
	q->str.sval = (char *)schema;
	pg_query__node__init(&q->schema);
	q->schema.node_case = PG_QUERY__NODE__NODE_STRING;
	q->schema.string = &q->str;
	q->parts[0] = &q->schema;
	q->parts[1] = fc->funcname[0];
	fc->funcname = q->parts;
	fc->n_funcname = 2;
	sc->changes++;
}

/* ---- catalog functions and casts ---- */

void pgv_scope_func_call(struct pgv_scope *sc, PgQuery__Node *node)
{
	PgQuery__FuncCall *fc = node->func_call;
	const struct pgv_guarded_fn *e;
	const PgQuery__Node *last;
	char lower[128];
	size_t i;
	long idx;

	if (user_function(fc)) {
		replace_with_user(sc, node);
		return;
	}
	if (fc->n_funcname >= 1 && fc->funcname[fc->n_funcname - 1]->node_case == PG_QUERY__NODE__NODE_STRING &&
	    strcmp(fc->funcname[fc->n_funcname - 1]->string->sval, "current_query") == 0)
		sc->shows_text = true;
	if (fc->n_funcname == 0 || fc->n_funcname > 2)
		return;
	if (fc->n_funcname == 2 && (fc->funcname[0]->node_case != PG_QUERY__NODE__NODE_STRING ||
				    strcmp(fc->funcname[0]->string->sval, "pg_catalog") != 0))
		return;
	last = fc->funcname[fc->n_funcname - 1];
	if (last->node_case != PG_QUERY__NODE__NODE_STRING || !pgv_lower_copy(lower, sizeof(lower), last->string->sval))
		return;
	e = pgv_guarded_find(lower);
	if (!e)
		return;
	if (e->arg == PGV_GUARD_RESULT) {
		if (e->param == PGV_P_TEXT && fc->n_args == 1)
			guard_world_name(sc, fc->args[0], e->kind == PGV_G_OPER);
		guard_value(sc, node, node, e->kind, e->param, false);
		return;
	}
	for (i = 0; i < fc->n_args; i++) {
		if (fc->func_variadic || fc->args[i]->node_case == PG_QUERY__NODE__NODE_NAMED_ARG_EXPR) {
			pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, fc->location,
					 "pass the arguments of catalog functions by position",
					 "named or VARIADIC arguments to %s() are not supported", lower);
			return;
		}
	}
	idx = e->arg >= 0 ? e->arg : (long)fc->n_args + e->arg;
	if (idx < 0 || (size_t)idx >= fc->n_args)
		return;
	guard_value(sc, fc->args[idx], fc->args[idx], e->kind, e->param, false);
}

/* ---- casts to the other reg* types ---- */

/*
 * The reg* types besides regclass and regtype whose values name an object
 * that can be outside the world: a schema, or an object whose printed name
 * would show a hidden schema (it is qualified when its schema is not on the
 * search_path) or a hidden type (a function's or an operator's operand
 * types). Such an object reads as NULL, as one that does not exist, by oid
 * or by name. to_reg resolves a name without raising (NULL: Postgres 15
 * has none, the cast itself resolves the name and a missing one raises);
 * visible is the template of the world's oids of that kind, read as one
 * array (an InitPlan, computed once per statement rather than once for each
 * value the cast sees). regrole is not here: casts to it are refused
 * (pgv_scope_type_cast), as a regrole prints the role's real name.
 */
struct reg_cast {
	const char *type;
	const char *to_reg;
	const char *visible;
	bool oid_only; /* a name is a signature, whose argument types Postgres 15 resolves and raises for */
};

static const struct reg_cast reg_casts[] = {
	{"regcollation", "pg_catalog.to_regcollation", VIS_COLLATIONS},
	{"regconfig", NULL, "(SELECT gf.oid FROM pg_catalog.pg_ts_config gf WHERE gf.cfgnamespace IN @M)"},
	{"regdictionary", NULL, "(SELECT gd.oid FROM pg_catalog.pg_ts_dict gd WHERE gd.dictnamespace IN @M)"},
	{"regnamespace", "pg_catalog.to_regnamespace", "@M"},
	{"regoper", "pg_catalog.to_regoper", VIS_OPERATORS},
	{"regoperator", NULL, VIS_OPERATORS, true},
	{"regproc", "pg_catalog.to_regproc", VIS_FUNCTIONS},
	{"regprocedure", NULL, VIS_FUNCTIONS, true},
};

static const struct reg_cast *find_reg_cast(const char *type)
{
	size_t i;

	for (i = 0; i < sizeof(reg_casts) / sizeof(reg_casts[0]); i++) {
		if (strcmp(reg_casts[i].type, type) == 0)
			return &reg_casts[i];
	}
	return NULL;
}

/*
 * How a name of the type resolves to its oid: the to_reg function, or the
 * cast itself; for a signature type, not at all (NULL), since both raise
 * for a missing argument type and so would tell a hidden type from none.
 */
static void put_resolved(struct pgv_sbuf *sb, const struct pgv_policy *p, const struct reg_cast *rc,
			 const char *name_sql)
{
	/* A schema's own name is not qualified, and to_regnamespace checks no USAGE. */
	bool qualified = strcmp(rc->type, "regnamespace") != 0;

	if (rc->oid_only) {
		pgv_sb_put(sb, "NULL");
		return;
	}
	pgv_sb_put(sb, rc->to_reg ? rc->to_reg : "");
	pgv_sb_put(sb, "(");
	if (qualified)
		put_world_name(sb, p, name_sql, !strcmp(rc->type, "regoper"));
	else
		pgv_sb_put(sb, name_sql);
	pgv_sb_put(sb, ")");
	if (!rc->to_reg) {
		pgv_sb_put(sb, "::pg_catalog.");
		pgv_sb_put(sb, rc->type);
	}
}

/*
 * A cast to one of reg_casts. A string literal: the whole cast becomes the
 * resolved value (digits an oid, a name resolved), kept only when visible,
 * so it keeps the cast's type. Any other value: kept only when it is the
 * digits of a visible oid or a name that resolves to one, and then cast.
 */
static void guard_reg_cast(struct pgv_scope *sc, PgQuery__Node *node, const struct reg_cast *rc)
{
	PgQuery__TypeCast *tc = node->type_cast;
	const char *lit = pgv_scope_string_const(tc->arg);
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc), lit_sql = {0};
	PgQuery__Node *expr;
	char *quoted = NULL;

	if (lit && rc->oid_only && !all_digits(lit)) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, tc->location,
				 "cast the function's or operator's oid, or use regproc / regoper with its name",
				 "a signature cast to %s is not supported: its argument types could name a hidden type",
				 rc->type);
		return;
	}
	pgv_sb_put(&sb, "SELECT (SELECT g.a FROM (SELECT ");
	if (lit) {
		pgv_sb_literal(&lit_sql, lit);
		quoted = pgv_sb_take(&lit_sql);
		if (!quoted) {
			pgv_sb_free(&sb);
			pgv_scope_out_of_memory(sc);
			return;
		}
		if (all_digits(lit)) {
			pgv_sb_put(&sb, quoted);
			pgv_sb_put(&sb, "::pg_catalog.oid::pg_catalog.");
			pgv_sb_put(&sb, rc->type);
		} else {
			put_resolved(&sb, sc->policy, rc, quoted);
		}
		free(quoted);
		pgv_sb_put(&sb, PGV_SCOPE_ONCE ") AS g(a) WHERE g.a::pg_catalog.oid = ANY (ARRAY");
	} else {
		pgv_sb_put(&sb, PGV_SCOPE_PLACEHOLDER PGV_SCOPE_ONCE
			   ") AS g(a) WHERE CASE WHEN " DIGITS " THEN g.a::pg_catalog.text::pg_catalog.oid ELSE ");
		put_resolved(&sb, sc->policy, rc, "g.a::pg_catalog.text");
		pgv_sb_put(&sb, "::pg_catalog.oid END = ANY (ARRAY");
	}
	pgv_scope_expand(&sb, sc->policy, rc->visible);
	pgv_sb_put(&sb, "))");
	expr = pgv_scope_expr(sc, &sb, lit ? NULL : tc->arg);
	if (expr)
		pgv_scope_replace(sc, lit ? node : tc->arg, expr);
}

void pgv_scope_type_cast(struct pgv_scope *sc, PgQuery__Node *node)
{
	PgQuery__TypeCast *tc = node->type_cast;
	const PgQuery__TypeName *tn = tc->type_name;
	const PgQuery__Node *last;
	const struct reg_cast *rc;
	enum pgv_guard_kind k = PGV_G_REL;

	if (!tn || tn->n_names == 0 || tn->n_names > 2 || !tc->arg)
		return;
	if (tn->n_names == 2 && (tn->names[0]->node_case != PG_QUERY__NODE__NODE_STRING ||
				 strcmp(tn->names[0]->string->sval, "pg_catalog") != 0))
		return;
	last = tn->names[tn->n_names - 1];
	if (last->node_case != PG_QUERY__NODE__NODE_STRING)
		return;
	if (strcmp(last->string->sval, "regrole") == 0) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, tc->location,
				 "use pg_get_userbyid(oid), or compare a name with current_user",
				 "casts to regrole are not supported: a regrole prints a role's real name, and the only"
				 " role here is the one you are logged in as");
		return;
	}
	rc = find_reg_cast(last->string->sval);
	if (strcmp(last->string->sval, "regclass") == 0)
		k = PGV_G_REL;
	else if (strcmp(last->string->sval, "regtype") == 0)
		k = PGV_G_TYPE;
	else if (!rc)
		return;
	if (tn->n_array_bounds > 0 && !rc && tn->n_array_bounds == 1 && !pgv_scope_string_const(tc->arg)) {
		guard_array(sc, tc->arg, k);
		return;
	}
	if (tn->n_array_bounds > 0) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, tc->location, "cast each element instead",
				 "casts to %s[] are not supported", last->string->sval);
		return;
	}
	if (rc) {
		guard_reg_cast(sc, node, rc);
		return;
	}
	if (pgv_scope_string_const(tc->arg)) {
		/* The whole cast becomes the guard, which yields the cast's type. */
		guard_value(sc, node, tc->arg, k, PGV_P_REGCLASS, true);
		return;
	}
	/* Read as the cast reads it: a name, or an oid. */
	guard_value(sc, tc->arg, tc->arg, k, PGV_P_REGCLASS, false);
}
