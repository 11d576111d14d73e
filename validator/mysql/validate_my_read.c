/*
 * validate_my_read: see validate_my_read.h.
 *
 * Grammar followed (keywords only count when the lexer says the word may
 * be a keyword, so `from` and t.from are names):
 *
 *   query    := [WITH [RECURSIVE] cte {, cte}] body
 *   cte      := name [(names)] AS ( query )
 *   body     := term {(UNION | EXCEPT | INTERSECT) [ALL | DISTINCT] term}
 *   term     := SELECT options seq(select) | ( query ) seq(tail)
 *   seq      := tokens up to ')', the end or a set operator; FROM starts
 *               a table list (select only), '(' a group, SELECT a body
 *   tables   := factor {, factor | join factor {ON seq(on) | USING (names)}}
 *   factor   := [db.]name [PARTITION (...)] [[AS] alias] {index hint}
 *             | ( query ) [[AS] alias [(names)]] | LATERAL ( query ) ...
 *             | ( tables ) | DUAL
 *
 * CTE scoping: in WITH, CTE i is visible to the CTEs after it and to the
 * body; in WITH RECURSIVE every CTE of the clause is visible everywhere
 * in the clause and the body. Inner WITH clauses shadow outer ones.
 */
#include "validator/mysql/validate_my_read.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "validator/mysql/validate_my_funcs.h"
#include "validator/mysql/validate_my_names.h"
#include "validator/mysql/validate_my_scope_tables.h"
#include "validator/mysql/validate_my_skim.h"
#include "validator/mysql/validate_my_star.h"

enum {
	SEQ_SELECT = 1 << 0,    /* a SELECT's list and clauses: FROM opens the table list */
	SEQ_TAIL = 1 << 1,      /* after a parenthesized query: ORDER BY / LIMIT */
	SEQ_GROUP = 1 << 2,     /* inside parentheses */
	SEQ_ON = 1 << 3,        /* a join's ON condition: stops at the next join or clause */
	SEQ_FUNC_FROM = 1 << 4, /* SUBSTRING / TRIM / EXTRACT arguments: FROM and FOR are words */
	SEQ_ARG = 1 << 5,       /* one argument of a list: stops at its ',' */
};

static bool query(struct vmy_parser *p);
static bool body(struct vmy_parser *p);
static bool seq(struct vmy_parser *p, unsigned flags);
static bool tables(struct vmy_parser *p);

static bool kw_in(struct vmy_parser *p, const struct vmy_token *t, const char *const *set)
{
	for (; *set; set++) {
		if (vmy_is_kw(p, t, *set))
			return true;
	}
	return false;
}

/* Words that can never be a table name or an unquoted alias. */
static const char *const reserved[] = {
	"ON",      "USING",     "WHERE",  "GROUP",   "HAVING",        "ORDER", "LIMIT",     "WINDOW", "UNION",
	"EXCEPT",  "INTERSECT", "MINUS",  "INTO",    "FOR",           "LOCK",  "PROCEDURE", "JOIN",   "INNER",
	"CROSS",   "LEFT",      "RIGHT",  "NATURAL", "STRAIGHT_JOIN", "OUTER", "FULL",      "USE",    "IGNORE",
	"FORCE",   "PARTITION", "AS",     "SELECT",  "WITH",          "FROM",  "SET",       "VALUES", "TABLE",
	"LATERAL", "DUAL",      "OFFSET", "FETCH",   "RETURNING",     "KEY",   "INDEX",     NULL};

/* What may follow a table list. */
static const char *const after_tables[] = {"WHERE",  "GROUP", "HAVING",    "WINDOW", "ORDER",     "LIMIT",
					   "OFFSET", "FETCH", "UNION",     "EXCEPT", "INTERSECT", "INTO",
					   "FOR",    "LOCK",  "PROCEDURE", NULL};

static const char *const set_ops[] = {"UNION", "EXCEPT", "INTERSECT", NULL};

/* Clauses that end a join's ON condition. */
static const char *const clause_kws[] = {"WHERE",     "GROUP", "HAVING", "WINDOW",    "ORDER",     "LIMIT", "OFFSET",
					 "FETCH",     "INTO",  "FOR",    "LOCK",      "PROCEDURE", "UNION", "EXCEPT",
					 "INTERSECT", "ON",    "USING",  "RETURNING", NULL};

static bool expect_punct(struct vmy_parser *p, const char *s)
{
	char hint[64];

	if (vmy_accept_punct(p, s))
		return true;
	snprintf(hint, sizeof(hint), "'%s' was expected here", s);
	vmy_syntax(p, hint);
	return false;
}

/* "(" query ")" at the current "(", one nesting level deeper; output: its columns are the result's. */
static bool paren_query(struct vmy_parser *p, bool output)
{
	bool ok, was;

	if (!vmy_enter(p))
		return false;
	was = vmy_star_output(p, output);
	vmy_next(p); /* ( */
	ok = query(p) && expect_punct(p, ")");
	vmy_leave(p);
	vmy_star_output(p, was);
	return ok;
}

static bool is_query_start(struct vmy_parser *p, const struct vmy_token *t)
{
	return vmy_is_kw(p, t, "SELECT") || vmy_is_kw(p, t, "WITH") || vmy_is_kw(p, t, "VALUES");
}

static void refuse_unsupported(struct vmy_parser *p, const char *what, const char *hint)
{
	vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, hint, "Not supported through airlock: %s", what);
}

/* TABLE t (MariaDB has none) and writes where a query was expected. */
static bool refuse_non_query(struct vmy_parser *p, const struct vmy_token *t)
{
	static const char *const writes[] = {"INSERT", "UPDATE", "DELETE", "REPLACE", NULL};

	if (vmy_is_kw(p, t, "TABLE")) {
		refuse_unsupported(p, "TABLE statements", "write SELECT * FROM t instead of TABLE t");
		return false;
	}
	if (kw_in(p, t, writes)) {
		vmy_refuse_write(p, "a data-changing statement");
		return false;
	}
	vmy_syntax(p, "a SELECT was expected here");
	return false;
}

static bool with_clause(struct vmy_parser *p)
{
	char name[VMY_NAME_MAX];
	bool recursive;

	vmy_next(p); /* WITH */
	recursive = vmy_accept_kw(p, "RECURSIVE");
	if (recursive && !vmy_push_recursive_names(p))
		return false;
	do {
		if (!vmy_accept_name(p, name, sizeof(name)))
			return false;
		if (vmy_punct_at(p, 0, "(") && !vmy_name_list(p))
			return false;
		if (!vmy_expect(p, vmy_accept_kw(p, "AS") && vmy_punct_at(p, 0, "("),
				"WITH name AS (SELECT ...) was expected"))
			return false;
		if (!paren_query(p, false))
			return false;
		if (!recursive && !vmy_cte_push(p, name))
			return false;
	} while (vmy_accept_punct(p, ","));
	return true;
}

static bool query(struct vmy_parser *p)
{
	size_t mark = vmy_cte_mark(p);
	bool ok;

	if (!vmy_enter(p))
		return false;
	ok = (!vmy_kw_at(p, 0, "WITH") || with_clause(p)) && body(p);
	vmy_cte_pop(p, mark);
	vmy_leave(p);
	return ok && !p->failed;
}

static const char *const select_options[] = {
	"ALL",           "DISTINCT",         "DISTINCTROW",         "HIGH_PRIORITY",
	"STRAIGHT_JOIN", "SQL_SMALL_RESULT", "SQL_BIG_RESULT",      "SQL_BUFFER_RESULT",
	"SQL_CACHE",     "SQL_NO_CACHE",     "SQL_CALC_FOUND_ROWS", NULL};

static bool group(struct vmy_parser *p, unsigned extra);

/* VALUES (expr, ...), (...) [ORDER BY ...] [LIMIT ...]: MariaDB's table value constructor. */
static bool values_term(struct vmy_parser *p)
{
	vmy_next(p); /* VALUES */
	do {
		if (!vmy_punct_at(p, 0, "(")) {
			vmy_syntax(p, "'(' was expected here");
			return false;
		}
		if (!group(p, 0))
			return false;
	} while (vmy_accept_punct(p, ","));
	return seq(p, SEQ_TAIL);
}

static bool term(struct vmy_parser *p)
{
	const struct vmy_token *t = vmy_peek(p, 0);

	if (vmy_tok_punct(p->sql, t, "("))
		return paren_query(p, p->star_output) && seq(p, SEQ_TAIL);
	if (vmy_is_kw(p, t, "VALUES"))
		return values_term(p);
	if (!vmy_is_kw(p, t, "SELECT"))
		return refuse_non_query(p, t);
	vmy_next(p);
	while (kw_in(p, vmy_peek(p, 0), select_options))
		vmy_next(p);
	return seq(p, SEQ_SELECT);
}

static bool body(struct vmy_parser *p)
{
	for (;;) {
		if (!term(p))
			return false;
		if (!kw_in(p, vmy_peek(p, 0), set_ops))
			return true;
		vmy_next(p);
		if (!vmy_accept_kw(p, "ALL"))
			vmy_accept_kw(p, "DISTINCT");
	}
}

/* ( ... ) in an expression: a subquery when it starts with SELECT or WITH. */
static bool group(struct vmy_parser *p, unsigned extra)
{
	const struct vmy_token *t;
	bool ok, was;

	if (!vmy_enter(p))
		return false;
	was = vmy_star_output(p, false);
	vmy_next(p); /* ( */
	t = vmy_peek(p, 0);
	if (is_query_start(p, t))
		ok = query(p);
	else if (vmy_is_kw(p, t, "TABLE"))
		ok = refuse_non_query(p, t);
	else
		ok = seq(p, SEQ_GROUP | extra);
	ok = ok && expect_punct(p, ")");
	vmy_leave(p);
	vmy_star_output(p, was);
	return ok;
}

static void refuse_function(struct vmy_parser *p, const char *name, const char *reason)
{
	char hint[512];
	const char *user = p->pol->user ? p->pol->user : "";

	snprintf(hint, sizeof(hint), "%.64s() is not allowed: %s", name, reason);
	vmy_refuse(p, AIRLOCK_E_FORBIDDEN_FUNCTION, AIRLOCK_N_NONE, hint,
		   "execute command denied to user '%.64s' for routine '%.64s'", user, name);
}

/* UUID() at the current token: recorded for the rewrite to replace (VMY_REF_UUID). */
static bool uuid_call(struct vmy_parser *p)
{
	struct vmy_scope_plan *sp = &p->out->scope;
	size_t start = vmy_peek(p, 0)->start;
	struct vmy_scoped_ref *r;

	if (!vmy_scope_room(p, NULL))
		return false;
	vmy_next(p);
	vmy_next(p);
	vmy_next(p);
	r = &sp->refs[sp->nrefs++];
	memset(r, 0, sizeof(*r));
	r->rule = VMY_REF_UUID;
	r->start = (uint32_t)start;
	r->end = (uint32_t)p->last_end;
	return true;
}

/*
 * db.table.column at the current token, where db.table is read through a
 * derived table (a rule's, or a filtered information_schema table's): the
 * "db." is noted for the rewrite to leave out (VMY_REF_QUALIFIER). The
 * tokens are left for the caller.
 */
static bool qualified_column(struct vmy_parser *p)
{
	char db[VMY_NAME_MAX], table[VMY_NAME_MAX];
	const struct vmy_is_table *e;
	struct vmy_scoped_ref *r;

	if (vmy_tok_ident(p->sql, vmy_peek(p, 0), db, sizeof(db)) < 0 ||
	    vmy_tok_ident(p->sql, vmy_peek(p, 2), table, sizeof(table)) < 0)
		return true;
	e = strcasecmp(db, "information_schema") == 0 ? vmy_is_table_find(table) : NULL;
	if (vmy_rule_index(p->pol, db, table) < 0 && !(e && e->mode == VMY_IS_FILTER))
		return true;
	if (!vmy_scope_room(p, NULL))
		return false;
	r = &p->out->scope.refs[p->out->scope.nrefs++];
	memset(r, 0, sizeof(*r));
	r->rule = VMY_REF_QUALIFIER;
	r->start = (uint32_t)vmy_peek(p, 0)->start;
	r->end = (uint32_t)vmy_peek(p, 2)->start;
	return true;
}

/* name( ... ): the denylist, then the arguments. qualified: db.name( ... ). */
static bool call(struct vmy_parser *p, bool qualified)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	char name[VMY_NAME_MAX], lower[VMY_NAME_MAX];
	const char *reason;
	unsigned extra = 0;

	if (!vmy_take_name(p, t, name, sizeof(name)))
		return false;
	vmy_lower_copy(lower, sizeof(lower), name, strlen(name));
	if (qualified) {
		refuse_function(p, lower, "stored functions (db.function()) are not allowed");
		return false;
	}
	if (strcmp(lower, "uuid") == 0 && vmy_punct_at(p, 1, "(") && vmy_punct_at(p, 2, ")"))
		return uuid_call(p);
	reason = vmy_function_denied(p->pol, lower);
	if (reason && strcmp(lower, "json_table") == 0) {
		refuse_unsupported(p, "JSON_TABLE", "select the JSON column and process it instead");
		return false;
	}
	if (reason) {
		refuse_function(p, lower, reason);
		return false;
	}
	if (strcmp(lower, "last_insert_id") == 0 && !vmy_punct_at(p, 2, ")")) {
		refuse_function(p, lower, "with an argument it sets a session value");
		return false;
	}
	if (strcmp(lower, "substring") == 0 || strcmp(lower, "substr") == 0 || strcmp(lower, "mid") == 0 ||
	    strcmp(lower, "trim") == 0 || strcmp(lower, "extract") == 0)
		extra = SEQ_FUNC_FROM;
	vmy_next(p);
	return group(p, extra);
}

static bool join_word(struct vmy_parser *p, const struct vmy_token *t)
{
	if (vmy_is_kw(p, t, "LEFT") || vmy_is_kw(p, t, "RIGHT"))
		return !vmy_punct_at(p, 1, "(");
	return vmy_is_kw(p, t, "JOIN") || vmy_is_kw(p, t, "STRAIGHT_JOIN") || vmy_is_kw(p, t, "INNER") ||
	       vmy_is_kw(p, t, "CROSS") || vmy_is_kw(p, t, "NATURAL") || vmy_is_kw(p, t, "OUTER");
}

/* A keyword inside seq(): returns 1 to go on, 0 to stop (not consumed), -1 refused. */
static int seq_keyword(struct vmy_parser *p, unsigned flags, bool *had_from)
{
	const struct vmy_token *t = vmy_peek(p, 0);

	if (vmy_is_kw(p, t, "SELECT"))
		return body(p) ? 1 : -1;
	if (vmy_is_kw(p, t, "FROM")) {
		if (flags & SEQ_FUNC_FROM) {
			vmy_next(p);
			return 1;
		}
		if (!(flags & SEQ_SELECT) || *had_from) {
			vmy_syntax(p, "FROM is not expected here");
			return -1;
		}
		*had_from = true;
		vmy_next(p);
		return tables(p) ? 1 : -1;
	}
	if (vmy_is_kw(p, t, "FOR")) {
		if (flags & SEQ_FUNC_FROM) {
			vmy_next(p);
			return 1;
		}
		if (vmy_kw_at(p, 1, "UPDATE") || vmy_kw_at(p, 1, "SHARE"))
			vmy_refuse_write(p, "a locking read (FOR UPDATE / FOR SHARE)");
		else if (vmy_word_is(p, vmy_peek(p, 1), "SYSTEM_TIME"))
			refuse_unsupported(p, "FOR SYSTEM_TIME", "query the current rows");
		else
			vmy_syntax(p, "FOR is not expected here");
		return -1;
	}
	if (vmy_is_kw(p, t, "LOCK")) {
		vmy_refuse_write(p, "a locking read (LOCK IN SHARE MODE)");
		return -1;
	}
	if (vmy_is_kw(p, t, "INTO")) {
		vmy_refuse_write(p, "SELECT ... INTO (a file or variables)");
		return -1;
	}
	if (vmy_is_kw(p, t, "PROCEDURE")) {
		refuse_unsupported(p, "SELECT ... PROCEDURE", "remove the PROCEDURE clause");
		return -1;
	}
	if (vmy_is_kw(p, t, "TABLE")) {
		refuse_non_query(p, t);
		return -1;
	}
	if (kw_in(p, t, set_ops)) {
		if (flags & (SEQ_SELECT | SEQ_TAIL | SEQ_ON))
			return 0;
		vmy_next(p);
		return 1;
	}
	if (vmy_is_kw(p, t, "WITH")) {
		const struct vmy_token *n = vmy_peek(p, 1);

		if (vmy_word_is(p, n, "ROLLUP") || vmy_word_is(p, n, "CUBE") || vmy_word_is(p, n, "TIES") ||
		    vmy_word_is(p, n, "QUERY")) {
			vmy_next(p);
			vmy_next(p);
			return 1;
		}
		vmy_syntax(p, "WITH is only allowed at the start of a query");
		return -1;
	}
	if (join_word(p, t)) {
		if (flags & SEQ_ON)
			return 0;
		vmy_syntax(p, "a join is only allowed in a FROM clause");
		return -1;
	}
	if ((flags & SEQ_ON) && kw_in(p, t, clause_kws))
		return 0;
	if ((vmy_is_kw(p, t, "CURRENT_USER") || vmy_is_kw(p, t, "CURRENT_ROLE")) && !vmy_punct_at(p, 1, "(")) {
		char lower[32];

		vmy_lower_copy(lower, sizeof(lower), p->sql + t->start, t->len);
		refuse_function(p, lower,
				"it reveals the backend account; SELECT CURRENT_USER on "
				"its own is answered by airlock");
		return -1;
	}
	if ((vmy_is_kw(p, t, "NEXT") || vmy_is_kw(p, t, "PREVIOUS")) && vmy_kw_at(p, 1, "VALUE") &&
	    vmy_kw_at(p, 2, "FOR")) {
		refuse_function(p, vmy_is_kw(p, t, "NEXT") ? "nextval" : "lastval",
				"it reads or advances a sequence (sequences are tables)");
		return -1;
	}
	return 2; /* an ordinary word: the caller treats it like a name */
}

/*
 * Tokens up to ')' or the end (and, by flags, a set operator or the end
 * of a join condition); nothing consumed at the stop.
 */
static bool seq(struct vmy_parser *p, unsigned flags)
{
	bool had_from = false, after_dot = false, item_start = true;

	for (;;) {
		const struct vmy_token *t = vmy_peek(p, 0);
		bool dot = false;

		if (p->failed)
			return false;
		if ((flags & SEQ_SELECT) && !had_from)
			vmy_star_note(p, t, item_start || after_dot);
		item_start = vmy_tok_punct(p->sql, t, ",");
		switch (t->kind) {
		case VMY_T_END:
			return true;
		case VMY_T_ERROR:
			vmy_syntax(p, "unexpected input");
			return false;
		case VMY_T_ATAT:
			if (!vmy_read_sysvar(p))
				return false;
			break;
		case VMY_T_USERVAR:
			if (t->len < 2) {
				vmy_syntax(p, "'@' must be followed by a variable name");
				return false;
			}
			vmy_next(p);
			break;
		case VMY_T_PUNCT:
			if (vmy_tok_punct(p->sql, t, ")"))
				return true;
			if (vmy_tok_punct(p->sql, t, "(")) {
				if (!group(p, 0))
					return false;
				break;
			}
			if (vmy_tok_punct(p->sql, t, ":=")) {
				vmy_refuse_write(p, "assigning a variable with :=");
				return false;
			}
			if (vmy_tok_punct(p->sql, t, "{") || vmy_tok_punct(p->sql, t, "}")) {
				refuse_unsupported(p, "ODBC escapes ({d ...}, {fn ...}, {oj ...})",
						   "write the plain SQL form");
				return false;
			}
			if ((flags & (SEQ_ON | SEQ_ARG)) && vmy_tok_punct(p->sql, t, ","))
				return true;
			dot = vmy_tok_punct(p->sql, t, ".");
			vmy_next(p);
			break;
		case VMY_T_WORD:
		case VMY_T_QIDENT:
			if (t->kind == VMY_T_WORD && t->kw) {
				int r = seq_keyword(p, flags, &had_from);

				if (r < 0)
					return false;
				if (r == 0)
					return true;
				if (r == 1)
					break;
			}
			if (vmy_punct_at(p, 1, "(")) {
				if (!call(p, after_dot))
					return false;
				break;
			}
			if (!after_dot && vmy_punct_at(p, 1, ".") && vmy_punct_at(p, 3, ".") &&
			    !vmy_punct_at(p, 5, "(") && !qualified_column(p))
				return false;
			vmy_next(p);
			break;
		default:
			vmy_next(p);
			break;
		}
		after_dot = dot;
	}
}

static bool alias_word(struct vmy_parser *p, const struct vmy_token *t)
{
	if (t->kind == VMY_T_QIDENT || t->kind == VMY_T_STRING)
		return true;
	return t->kind == VMY_T_WORD && !(t->kw && kw_in(p, t, reserved));
}

/* [AS] alias, and for derived tables an optional column list. */
static bool alias(struct vmy_parser *p, bool derived)
{
	if (vmy_accept_kw(p, "AS")) {
		const struct vmy_token *t = vmy_peek(p, 0);

		if (t->kind != VMY_T_WORD && t->kind != VMY_T_QIDENT && t->kind != VMY_T_STRING) {
			vmy_syntax(p, "an alias was expected after AS");
			return false;
		}
		vmy_next(p);
	} else if (alias_word(p, vmy_peek(p, 0))) {
		vmy_next(p);
	} else {
		return true;
	}
	if (derived && vmy_punct_at(p, 0, "("))
		return vmy_name_list(p);
	return true;
}

/*
 * JSON_TABLE(expr, 'path' COLUMNS (...)) [AS] alias: the document is an
 * expression like any other (it may read the tables before it); the rest
 * is data.
 */
static bool json_table(struct vmy_parser *p)
{
	bool ok;

	if (!vmy_enter(p))
		return false;
	vmy_next(p); /* JSON_TABLE */
	vmy_next(p); /* ( */
	ok = seq(p, SEQ_ARG) && expect_punct(p, ",") &&
	     vmy_expect(p, vmy_peek(p, 0)->kind == VMY_T_STRING, "a path string was expected");
	if (ok) {
		vmy_next(p);
		ok = vmy_json_columns(p) && expect_punct(p, ")");
	}
	vmy_leave(p);
	return ok && alias(p, false);
}

/* [db.]name at the current token, then what may follow a base table. */
static bool base_table(struct vmy_parser *p)
{
	char a[VMY_NAME_MAX], b[VMY_NAME_MAX];
	const struct vmy_token *t = vmy_peek(p, 0);
	size_t start = t->start, before_alias, nrefs = p->out->scope.nrefs;
	bool ok, scoped;

	if (vmy_tok_punct(p->sql, t, ".")) {
		/* ODBC ".table": the current database */
		const char *db;

		vmy_next(p);
		if (!vmy_accept_name(p, b, sizeof(b)))
			return false;
		db = vmy_current_db(p);
		ok = db && vmy_check_table(p, db, b) && vmy_scope_note(p, start, db, b);
	} else {
		if (!vmy_accept_name(p, a, sizeof(a)))
			return false;
		if (vmy_accept_punct(p, ".")) {
			if (!vmy_accept_name(p, b, sizeof(b)))
				return false;
			if (vmy_punct_at(p, 0, ".")) {
				vmy_syntax(p, "a table name is database.table");
				return false;
			}
			ok = vmy_check_table(p, a, b) && vmy_scope_note(p, start, a, b);
		} else {
			ok = vmy_check_table(p, NULL, a) && vmy_scope_note(p, start, NULL, a);
		}
	}
	if (!ok)
		return false;
	/* A table read through a filter becomes a derived table, which takes no PARTITION and no index hint. */
	scoped = p->out->scope.nrefs > nrefs;
	if (scoped && vmy_kw_at(p, 0, "PARTITION")) {
		refuse_unsupported(p, "PARTITION on a table airlock reads through a filter", "read the whole table");
		return false;
	}
	if (vmy_accept_kw(p, "PARTITION") && !vmy_name_list(p))
		return false;
	if (vmy_kw_at(p, 0, "FOR") && vmy_word_is(p, vmy_peek(p, 1), "SYSTEM_TIME")) {
		refuse_unsupported(p, "FOR SYSTEM_TIME", "query the current rows");
		return false;
	}
	before_alias = p->last_end;
	if (!alias(p, false))
		return false;
	vmy_scope_aliased(p, start, p->last_end != before_alias);
	if (scoped && (vmy_kw_at(p, 0, "USE") || vmy_kw_at(p, 0, "IGNORE") || vmy_kw_at(p, 0, "FORCE"))) {
		/* A derived table takes no hint: the rewrite moves a rule's table's hints inside it. */
		size_t hint_start = vmy_peek(p, 0)->start;

		if (!vmy_index_hints(p))
			return false;
		if (!vmy_scope_hinted(p, start, hint_start, p->last_end)) {
			refuse_unsupported(p, "index hints on a catalog airlock reads through a filter",
					   "drop the index hint");
			return false;
		}
		return true;
	}
	return vmy_index_hints(p);
}

static bool factor(struct vmy_parser *p)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	bool lateral = false, ok;

	if (vmy_is_kw(p, t, "LATERAL")) {
		vmy_next(p);
		t = vmy_peek(p, 0);
		lateral = true;
		if (!vmy_tok_punct(p->sql, t, "(") || !vmy_parens_lead_to_query(p)) {
			vmy_syntax(p, "LATERAL (SELECT ...) was expected");
			return false;
		}
	}
	if (vmy_tok_punct(p->sql, t, "(")) {
		bool derived = lateral || vmy_parens_lead_to_query(p), was;

		if (!vmy_enter(p))
			return false;
		was = vmy_star_output(p, false);
		vmy_next(p);
		ok = derived ? query(p) : tables(p);
		ok = ok && expect_punct(p, ")");
		vmy_leave(p);
		vmy_star_output(p, was);
		return ok && (!derived || alias(p, true));
	}
	if (vmy_is_kw(p, t, "DUAL")) {
		vmy_next(p);
		return true;
	}
	if (vmy_tok_punct(p->sql, t, "{")) {
		refuse_unsupported(p, "ODBC escapes ({oj ...})", "write the plain JOIN");
		return false;
	}
	if ((t->kind == VMY_T_WORD || t->kind == VMY_T_QIDENT) && vmy_punct_at(p, 1, "(")) {
		if (t->kind == VMY_T_WORD && vmy_word_is(p, t, "JSON_TABLE"))
			return json_table(p);
		refuse_unsupported(p, "table functions", "name a table or a (SELECT ...)");
		return false;
	}
	if (t->kind == VMY_T_WORD && t->kw && kw_in(p, t, reserved)) {
		vmy_syntax(p, "a table name was expected");
		return false;
	}
	if (t->kind != VMY_T_WORD && t->kind != VMY_T_QIDENT && !vmy_tok_punct(p->sql, t, ".")) {
		vmy_syntax(p, "a table name was expected");
		return false;
	}
	return base_table(p);
}

/* Consumes a join operator; false when the current token does not start one. */
static bool join_op(struct vmy_parser *p)
{
	const struct vmy_token *t = vmy_peek(p, 0);

	if (vmy_is_kw(p, t, "JOIN") || vmy_is_kw(p, t, "STRAIGHT_JOIN")) {
		vmy_next(p);
		return true;
	}
	if (vmy_is_kw(p, t, "INNER") || vmy_is_kw(p, t, "CROSS")) {
		vmy_next(p);
	} else if ((vmy_is_kw(p, t, "LEFT") || vmy_is_kw(p, t, "RIGHT")) && !vmy_punct_at(p, 1, "(")) {
		vmy_next(p);
		vmy_accept_kw(p, "OUTER");
	} else if (vmy_is_kw(p, t, "NATURAL")) {
		vmy_next(p);
		if (vmy_accept_kw(p, "LEFT") || vmy_accept_kw(p, "RIGHT"))
			vmy_accept_kw(p, "OUTER");
		else
			vmy_accept_kw(p, "INNER");
	} else {
		vmy_syntax(p, "a join was expected");
		return false;
	}
	return vmy_expect(p, vmy_accept_kw(p, "JOIN"), "JOIN was expected");
}

static bool join_spec(struct vmy_parser *p)
{
	if (vmy_accept_kw(p, "ON"))
		return seq(p, SEQ_ON);
	vmy_next(p); /* USING */
	return vmy_name_list(p);
}

static bool tables(struct vmy_parser *p)
{
	const struct vmy_token *t;
	bool ok = true;

	if (!vmy_enter(p))
		return false;
	if (!factor(p))
		ok = false;
	while (ok && !p->failed) {
		if (vmy_accept_punct(p, ",")) {
			ok = factor(p);
		} else if (vmy_kw_at(p, 0, "ON") || vmy_kw_at(p, 0, "USING")) {
			ok = join_spec(p);
		} else if (join_word(p, vmy_peek(p, 0))) {
			ok = join_op(p) && factor(p);
		} else {
			break;
		}
	}
	vmy_leave(p);
	if (!ok || p->failed)
		return false;
	t = vmy_peek(p, 0);
	if (t->kind == VMY_T_END || vmy_tok_punct(p->sql, t, ")") || kw_in(p, t, after_tables))
		return true;
	vmy_syntax(p, "the FROM clause ends with something airlock does not recognise");
	return false;
}

bool vmy_read_query(struct vmy_parser *p)
{
	return query(p);
}

bool vmy_read_clause(struct vmy_parser *p)
{
	return seq(p, SEQ_ON);
}

bool vmy_read_group(struct vmy_parser *p)
{
	if (!vmy_punct_at(p, 0, "(")) {
		vmy_syntax(p, "'(' was expected here");
		return false;
	}
	return group(p, 0);
}

bool vmy_read_expr(struct vmy_parser *p)
{
	if (!seq(p, SEQ_TAIL))
		return false;
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input after the expression"))
		return false;
	return true;
}
