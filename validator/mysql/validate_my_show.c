/*
 * validate_my_show: see validate_my_show.h.
 */
#include "validator/mysql/validate_my_show.h"

#include <stdio.h>
#include <string.h>

#include "validator/mysql/validate_my_names.h"
#include "validator/mysql/validate_my_read.h"

static const char SHOW_HINT[] = "allowed: SHOW DATABASES, SHOW [FULL] TABLES [FROM db], SHOW TABLE STATUS, "
				"SHOW [FULL] COLUMNS FROM t, SHOW INDEX FROM t, SHOW CREATE TABLE t, SHOW VARIABLES, "
				"SHOW WARNINGS, SHOW ERRORS, SHOW CHARACTER SET, SHOW COLLATION, SHOW ENGINES, "
				"SHOW AIRLOCK POLICY";

static void read_ok(struct vmy_parser *p, const char *kind)
{
	if (p->failed)
		return;
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input at the end of the statement"))
		return;
	p->out->kind = VMY_READ;
	p->out->stmt_kind = kind;
}

static void refuse_show(struct vmy_parser *p, size_t from, size_t to)
{
	size_t n = to > from ? to - from : 0;

	if (n > 64)
		n = 64;
	vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE, SHOW_HINT,
		   "Access denied; SHOW %.*s is not available through airlock", (int)n, p->sql + from);
}

/* [LIKE 'pattern' | WHERE condition] up to the end; where they are goes into out->scope. */
static bool like_or_where(struct vmy_parser *p)
{
	struct vmy_scope_plan *sp = &p->out->scope;

	if (vmy_accept_kw(p, "LIKE")) {
		const struct vmy_token *t = vmy_peek(p, 0);

		if (t->kind != VMY_T_STRING) {
			vmy_syntax(p, "LIKE 'pattern' was expected");
			return false;
		}
		sp->like_start = (uint32_t)t->start;
		sp->like_len = (uint32_t)t->len;
		vmy_next(p);
		return true;
	}
	if (vmy_accept_kw(p, "WHERE")) {
		sp->where_start = (uint32_t)vmy_peek(p, 0)->start;
		return vmy_read_expr(p);
	}
	return true;
}

static bool from_in(struct vmy_parser *p)
{
	return vmy_accept_kw(p, "FROM") || vmy_accept_kw(p, "IN");
}

/* [FROM | IN db]: checked against the allowlist; else the current database. It goes into out->scope.db. */
static bool show_db(struct vmy_parser *p)
{
	char db[VMY_NAME_MAX];
	const char *cur;

	if (from_in(p)) {
		if (!vmy_accept_name(p, db, sizeof(db)))
			return false;
		cur = db;
	} else {
		cur = vmy_current_db(p);
		if (!cur)
			return false;
	}
	if (strlen(cur) >= sizeof(p->out->scope.db)) {
		vmy_refuse(p, AIRLOCK_E_SYNTAX_ERROR, AIRLOCK_N_MY_WRONG_DB_NAME, NULL,
			   "Incorrect database name '%.64s'", cur);
		return false;
	}
	/* It fits: checked above. */
	memcpy(p->out->scope.db, cur, strlen(cur) + 1);
	return vmy_check_database(p, cur);
}

/* A SHOW form the catalog scoping rewrites. */
static void scoped_show(struct vmy_parser *p, enum vmy_show_kind kind, bool full)
{
	/* It becomes a read of information_schema: one more reference. */
	if (!vmy_scope_room(p, kind == VMY_SHOW_DATABASES ? "SCHEMATA" : "TABLES"))
		return;
	read_ok(p, "SHOW");
	if (p->out->kind == VMY_READ) {
		p->out->scope.show = kind;
		p->out->scope.full = full;
	}
}

/* The database of the table a SHOW reads (SHOW CREATE TABLE scrubs its foreign keys against the world). */
static bool note_db(struct vmy_parser *p, const char *db)
{
	if (strlen(db) >= sizeof(p->out->create_db)) {
		vmy_syntax(p, "the database name is too long");
		return false;
	}
	snprintf(p->out->create_db, sizeof(p->out->create_db), "%s", db);
	return true;
}

/*
 * [db.]table, then [FROM | IN db] when from_db, into the caller's buffers
 * (VMY_NAME_MAX each): *in the database named (NULL: the current one),
 * *table the table. False when refused.
 */
static bool show_name(struct vmy_parser *p, bool from_db, char *a, char *b, char *db, const char **in,
		      const char **table)
{
	*in = NULL;
	*table = a;
	if (!vmy_accept_name(p, a, VMY_NAME_MAX))
		return false;
	if (vmy_accept_punct(p, ".")) {
		if (!vmy_accept_name(p, b, VMY_NAME_MAX))
			return false;
		*in = a;
		*table = b;
	}
	if (from_db && from_in(p)) {
		if (*in) {
			vmy_syntax(p, "name the database once: FROM db.t or FROM t FROM db");
			return false;
		}
		if (!vmy_accept_name(p, db, VMY_NAME_MAX))
			return false;
		*in = db;
	}
	return true;
}

/*
 * The table of SHOW COLUMNS / CREATE TABLE, checked (see
 * vmy_check_describable); create: SHOW CREATE TABLE, which prints counts
 * and whose database goes in create_db.
 */
static bool show_table(struct vmy_parser *p, bool allow_from_db, bool create)
{
	char a[VMY_NAME_MAX], b[VMY_NAME_MAX], db[VMY_NAME_MAX];
	const char *in, *table;

	if (!show_name(p, allow_from_db, a, b, db, &in, &table) || !vmy_check_table(p, in, table) ||
	    !vmy_check_describable(p, in, table, create))
		return false;
	if (!create)
		return true;
	if (!in)
		in = vmy_current_db(p);
	return in && note_db(p, in);
}

/*
 * SHOW INDEX FROM [db.]table [FROM | IN db] [WHERE cond]: a read of the
 * filtered STATISTICS (validate_my_scope.c), so an index named as a key
 * the world hides is left out, and a table with a rule shows its visible
 * columns' indexes with no figures that count its rows.
 */
static void show_index(struct vmy_parser *p)
{
	char a[VMY_NAME_MAX], b[VMY_NAME_MAX], db[VMY_NAME_MAX];
	const char *in, *table;
	struct vmy_scope_plan *sp = &p->out->scope;

	if (!from_in(p)) {
		vmy_syntax(p, "SHOW INDEX FROM table was expected");
		return;
	}
	if (!show_name(p, true, a, b, db, &in, &table) || !vmy_check_table(p, in, table))
		return;
	if (!in && !(in = vmy_current_db(p)))
		return;
	if (strlen(in) >= sizeof(sp->db) || strlen(table) >= sizeof(sp->table)) {
		vmy_syntax(p, "the name is too long");
		return;
	}
	if (vmy_accept_kw(p, "WHERE")) {
		sp->where_start = (uint32_t)vmy_peek(p, 0)->start;
		if (!vmy_read_expr(p))
			return;
	}
	if (!vmy_scope_room(p, "STATISTICS"))
		return;
	read_ok(p, "SHOW");
	if (p->out->kind == VMY_READ) {
		memcpy(sp->db, in, strlen(in) + 1); /* lengths checked above */
		memcpy(sp->table, table, strlen(table) + 1);
		sp->show = VMY_SHOW_INDEX;
	}
}

static bool is_variable_name(struct vmy_parser *p, const struct vmy_token *t)
{
	char name[32];

	return vmy_tok_ident(p->sql, t, name, sizeof(name)) == 13 && vmy_lower_copy(name, sizeof(name), name, 13) &&
	       strcmp(name, "variable_name") == 0;
}

static bool add_name(struct vmy_parser *p, const struct vmy_token *t)
{
	char buf[256];
	size_t used = 0;

	if (t->kind != VMY_T_STRING ||
	    !vmy_tok_string(p->sql, t, p->pol->no_backslash_escapes, buf, sizeof(buf), &used)) {
		vmy_syntax(p, "a quoted variable name was expected");
		return false;
	}
	if (p->out->nnames >= VMY_MAX_ITEMS || used >= sizeof(p->out->names[0])) {
		vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "ask for fewer variables at a time",
			   "Not supported through airlock: this SHOW VARIABLES condition");
		return false;
	}
	vmy_lower_copy(p->out->names[p->out->nnames++], sizeof(p->out->names[0]), buf, used);
	vmy_next(p);
	return true;
}

/* Variable_name = 'x' | IN ('a', ...) | LIKE 'p', joined by OR. */
static bool variables_where(struct vmy_parser *p)
{
	static const char hint[] = "use SHOW VARIABLES LIKE 'pattern' or WHERE Variable_name "
				   "= 'x' / IN ('a', 'b') / LIKE 'p'";

	do {
		if (!is_variable_name(p, vmy_peek(p, 0))) {
			vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, hint,
				   "Not supported through airlock: this SHOW VARIABLES condition");
			return false;
		}
		vmy_next(p);
		if (vmy_accept_punct(p, "=")) {
			if (!add_name(p, vmy_peek(p, 0)))
				return false;
		} else if (vmy_accept_kw(p, "IN")) {
			if (!vmy_accept_punct(p, "(")) {
				vmy_syntax(p, "IN ('a', ...) was expected");
				return false;
			}
			do {
				if (!add_name(p, vmy_peek(p, 0)))
					return false;
			} while (vmy_accept_punct(p, ","));
			if (!vmy_accept_punct(p, ")")) {
				vmy_syntax(p, "')' was expected");
				return false;
			}
		} else if (vmy_kw_at(p, 0, "LIKE") && !p->out->have_like) {
			size_t used = 0;
			const struct vmy_token *t;

			vmy_next(p);
			t = vmy_peek(p, 0);
			if (t->kind != VMY_T_STRING || !vmy_tok_string(p->sql, t, p->pol->no_backslash_escapes,
								       p->out->like, sizeof(p->out->like), &used)) {
				vmy_syntax(p, "LIKE 'pattern' was expected");
				return false;
			}
			p->out->have_like = true;
			vmy_next(p);
		} else {
			vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, hint,
				   "Not supported through airlock: this SHOW VARIABLES condition");
			return false;
		}
	} while (vmy_accept_kw(p, "OR"));
	if (p->out->have_like && p->out->nnames) {
		vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, hint,
			   "Not supported through airlock: LIKE combined with names");
		return false;
	}
	return true;
}

static void show_variables(struct vmy_parser *p, enum vmy_kind kind)
{
	vmy_next(p); /* VARIABLES or STATUS */
	if (vmy_accept_kw(p, "LIKE")) {
		const struct vmy_token *t = vmy_peek(p, 0);
		size_t used = 0;

		if (t->kind != VMY_T_STRING || !vmy_tok_string(p->sql, t, p->pol->no_backslash_escapes, p->out->like,
							       sizeof(p->out->like), &used)) {
			vmy_syntax(p, "LIKE 'pattern' was expected");
			return;
		}
		p->out->have_like = true;
		vmy_next(p);
	} else if (vmy_accept_kw(p, "WHERE")) {
		if (!variables_where(p))
			return;
	}
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input at the end of SHOW VARIABLES"))
		return;
	p->out->kind = kind;
}

/* WARNINGS / ERRORS [LIMIT [offset,] n] */
static void show_warnings(struct vmy_parser *p, bool count)
{
	enum vmy_kind kind = vmy_kw_at(p, 0, "ERRORS") ? VMY_SHOW_ERRORS : VMY_SHOW_WARNINGS;

	vmy_next(p);
	p->out->count_only = count;
	p->out->limit = -1;
	if (!count && vmy_accept_kw(p, "LIMIT")) {
		long a, b;

		if (!vmy_accept_number(p, &a)) {
			vmy_syntax(p, "LIMIT n was expected");
			return;
		}
		if (vmy_accept_punct(p, ",")) {
			if (!vmy_accept_number(p, &b)) {
				vmy_syntax(p, "LIMIT offset, n was expected");
				return;
			}
			p->out->offset = a;
			p->out->limit = b;
		} else {
			p->out->limit = a;
		}
	}
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input at the end of SHOW WARNINGS"))
		return;
	p->out->kind = kind;
}

void vmy_show(struct vmy_parser *p)
{
	size_t from;
	bool full = false;

	vmy_next(p); /* SHOW */
	if (vmy_at_end(p)) {
		vmy_syntax(p, "SHOW what? e.g. SHOW TABLES");
		return;
	}
	from = vmy_peek(p, 0)->start;
	while (vmy_accept_kw(p, "FULL") || vmy_accept_kw(p, "EXTENDED"))
		full = true;
	if (!full && (vmy_accept_kw(p, "DATABASES") || vmy_accept_kw(p, "SCHEMAS"))) {
		if (like_or_where(p))
			scoped_show(p, VMY_SHOW_DATABASES, false);
	} else if (vmy_accept_kw(p, "TABLES")) {
		if (show_db(p) && like_or_where(p))
			scoped_show(p, VMY_SHOW_TABLES, full);
	} else if (!full && vmy_kw_at(p, 0, "TABLE") && vmy_kw_at(p, 1, "STATUS")) {
		vmy_next(p);
		vmy_next(p);
		if (show_db(p) && like_or_where(p))
			scoped_show(p, VMY_SHOW_TABLE_STATUS, false);
	} else if (vmy_accept_kw(p, "COLUMNS") || vmy_accept_kw(p, "FIELDS")) {
		if (!from_in(p))
			vmy_syntax(p, "SHOW COLUMNS FROM table was expected");
		else if (show_table(p, true, false) && like_or_where(p))
			read_ok(p, "SHOW");
	} else if (vmy_accept_kw(p, "INDEX") || vmy_accept_kw(p, "INDEXES") || vmy_accept_kw(p, "KEYS")) {
		show_index(p);
	} else if (!full && vmy_kw_at(p, 0, "CREATE") && vmy_kw_at(p, 1, "TABLE")) {
		vmy_next(p);
		vmy_next(p);
		if (show_table(p, false, true))
			read_ok(p, "SHOW");
		else
			p->out->create_db[0] = '\0';
	} else if (!full && ((vmy_kw_at(p, 0, "CHARACTER") && vmy_kw_at(p, 1, "SET")) || vmy_kw_at(p, 0, "CHARSET"))) {
		if (!vmy_accept_kw(p, "CHARSET")) {
			vmy_next(p);
			vmy_next(p);
		}
		if (like_or_where(p))
			read_ok(p, "SHOW");
	} else if (!full && vmy_accept_kw(p, "COLLATION")) {
		if (like_or_where(p))
			read_ok(p, "SHOW");
	} else if (!full &&
		   (vmy_accept_kw(p, "ENGINES") || (vmy_kw_at(p, 0, "STORAGE") && vmy_kw_at(p, 1, "ENGINES")))) {
		if (vmy_accept_kw(p, "STORAGE"))
			vmy_next(p);
		read_ok(p, "SHOW");
	} else if (!full &&
		   (vmy_kw_at(p, 0, "VARIABLES") ||
		    ((vmy_kw_at(p, 0, "SESSION") || vmy_kw_at(p, 0, "LOCAL")) && vmy_kw_at(p, 1, "VARIABLES")))) {
		if (!vmy_kw_at(p, 0, "VARIABLES"))
			vmy_next(p);
		show_variables(p, VMY_SHOW_VARIABLES);
	} else if (!full && (vmy_kw_at(p, 0, "STATUS") ||
			     ((vmy_kw_at(p, 0, "SESSION") || vmy_kw_at(p, 0, "LOCAL")) && vmy_kw_at(p, 1, "STATUS")))) {
		/* The session's own figures (its TLS); GLOBAL STATUS, the server's, stays refused. */
		if (!vmy_kw_at(p, 0, "STATUS"))
			vmy_next(p);
		show_variables(p, VMY_SHOW_STATUS);
	} else if (!full && vmy_kw_at(p, 0, "AIRLOCK") && vmy_word_is(p, vmy_peek(p, 1), "APPROVAL")) {
		const struct vmy_token *t;
		size_t used = 0;

		vmy_next(p);
		vmy_next(p);
		t = vmy_peek(p, 0);
		if (t->kind != VMY_T_STRING || !vmy_tok_string(p->sql, t, p->pol->no_backslash_escapes,
							       p->out->approval, sizeof(p->out->approval), &used)) {
			vmy_syntax(p, "SHOW AIRLOCK APPROVAL 'id' (the id the write's APPROVAL_REQUIRED error named)");
			return;
		}
		vmy_next(p);
		if (!vmy_at_end(p))
			vmy_syntax(p, "unexpected input at the end of SHOW AIRLOCK APPROVAL");
		else
			p->out->kind = VMY_SHOW_APPROVAL;
	} else if (!full && vmy_kw_at(p, 0, "AIRLOCK") && vmy_kw_at(p, 1, "POLICY")) {
		vmy_next(p);
		vmy_next(p);
		if (!vmy_at_end(p))
			vmy_syntax(p, "unexpected input at the end of SHOW AIRLOCK POLICY");
		else
			p->out->kind = VMY_SHOW_POLICY;
	} else if (!full && (vmy_kw_at(p, 0, "WARNINGS") || vmy_kw_at(p, 0, "ERRORS"))) {
		show_warnings(p, false);
	} else if (!full && vmy_kw_at(p, 0, "COUNT") && vmy_punct_at(p, 1, "(") && vmy_punct_at(p, 2, "*") &&
		   vmy_punct_at(p, 3, ")")) {
		vmy_next(p);
		vmy_next(p);
		vmy_next(p);
		vmy_next(p);
		if (vmy_kw_at(p, 0, "WARNINGS") || vmy_kw_at(p, 0, "ERRORS"))
			show_warnings(p, true);
		else
			vmy_syntax(p, "SHOW COUNT(*) WARNINGS or ERRORS was expected");
	} else {
		const struct vmy_token *t = vmy_peek(p, 0);
		size_t to = t->start + t->len;

		if (vmy_peek(p, 1)->kind == VMY_T_WORD)
			to = vmy_peek(p, 1)->start + vmy_peek(p, 1)->len;
		refuse_show(p, from, to);
	}
}

/* DESCRIBE / EXPLAIN of a query: EXPLAIN [EXTENDED | PARTITIONS | FORMAT = x] query */
static void explain_query(struct vmy_parser *p)
{
	if (vmy_read_query(p))
		read_ok(p, "EXPLAIN");
}

void vmy_describe(struct vmy_parser *p)
{
	static const char *const writes[] = {"INSERT", "UPDATE", "DELETE", "REPLACE", NULL};
	const char *const *w;
	const struct vmy_token *t;
	char col[VMY_NAME_MAX];
	bool modifier = false;

	vmy_next(p); /* DESCRIBE / DESC / EXPLAIN */
	t = vmy_peek(p, 0);
	if (vmy_is_kw(p, t, "ANALYZE")) {
		vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "use plain EXPLAIN (EXTENDED, PARTITIONS and FORMAT=JSON are fine)",
			   "Not supported through airlock: EXPLAIN ANALYZE runs the statement");
		return;
	}
	if (vmy_is_kw(p, t, "FOR")) {
		vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE, "EXPLAIN a SELECT of your own instead",
			   "Access denied; EXPLAIN FOR CONNECTION shows other sessions' statements");
		return;
	}
	if (vmy_is_kw(p, t, "EXTENDED") || vmy_is_kw(p, t, "PARTITIONS")) {
		modifier = true;
		vmy_next(p);
		t = vmy_peek(p, 0);
	} else if (vmy_is_kw(p, t, "FORMAT") && vmy_punct_at(p, 1, "=")) {
		modifier = true;
		vmy_next(p);
		vmy_next(p);
		t = vmy_peek(p, 0);
		if (t->kind != VMY_T_WORD && t->kind != VMY_T_STRING) {
			vmy_syntax(p, "FORMAT = JSON or FORMAT = TRADITIONAL was expected");
			return;
		}
		vmy_next(p);
		t = vmy_peek(p, 0);
	}
	for (w = writes; *w; w++) {
		if (vmy_is_kw(p, t, *w)) {
			vmy_refuse_write(p, "EXPLAIN of a data-changing statement");
			return;
		}
	}
	if (vmy_is_kw(p, t, "SELECT") || vmy_is_kw(p, t, "WITH") || vmy_tok_punct(p->sql, t, "(") ||
	    vmy_is_kw(p, t, "TABLE") || vmy_is_kw(p, t, "VALUES") || modifier) {
		explain_query(p);
		return;
	}
	if (t->kind != VMY_T_WORD && t->kind != VMY_T_QIDENT) {
		vmy_syntax(p, "DESCRIBE table or EXPLAIN SELECT ... was expected");
		return;
	}
	if (!show_table(p, false, false))
		return;
	t = vmy_peek(p, 0);
	if (t->kind == VMY_T_STRING) {
		vmy_next(p);
	} else if (t->kind == VMY_T_WORD || t->kind == VMY_T_QIDENT) {
		if (!vmy_accept_name(p, col, sizeof(col)))
			return;
	}
	read_ok(p, "DESCRIBE");
}
