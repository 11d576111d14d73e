/*
 * validate_my_write: see validate_my_write.h.
 */
#include "validator/mysql/validate_my_write.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/wbuf.h"
#include "conf/config.h"
#include "validator/mysql/validate_my_names.h"
#include "validator/mysql/validate_my_read.h"
#include "validator/mysql/validate_my_rule.h"
#include "validator/mysql/validate_my_scope.h"
#include "validator/mysql/validate_my_skim.h"

#define H_WRITE "write one INSERT, UPDATE or DELETE on one of your write tables (SHOW AIRLOCK POLICY lists them)"

static void refuse_shape(struct vmy_parser *p, const char *what, const char *hint)
{
	vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, hint, "Not supported through airlock in a write: %s",
		   what);
}

static const struct airlock_rule *rule_of(const struct vmy_policy *pol, int rule)
{
	return rule >= 0 && (size_t)rule < pol->nrules ? &pol->rules[rule] : NULL;
}

/* [db.]table at the current token: a write table the user may also read; fills the plan's table. */
static bool target(struct vmy_parser *p)
{
	struct vmy_write_plan *w = &p->out->write;
	const struct airlock_rule *r;
	char a[VMY_NAME_MAX], b[VMY_NAME_MAX];
	const char *db, *table;
	size_t start = vmy_peek(p, 0)->start;

	if (!vmy_accept_name(p, a, sizeof(a)))
		return false;
	if (vmy_accept_punct(p, ".")) {
		if (!vmy_accept_name(p, b, sizeof(b)))
			return false;
		db = a;
		table = b;
	} else {
		table = a;
		if (!(db = vmy_current_db(p)))
			return false;
	}
	if (vmy_punct_at(p, 0, ".")) {
		vmy_syntax(p, "a table name is database.table");
		return false;
	}
	if (strlen(db) >= sizeof(w->db) || strlen(table) >= sizeof(w->table)) {
		vmy_refuse(p, AIRLOCK_E_SYNTAX, AIRLOCK_N_MY_IDENTIFIER_TOO_LONG, "names are at most 64 characters",
			   "Identifier name '%.64s...' is too long", strlen(db) >= sizeof(w->db) ? db : table);
		return false;
	}
	if (!vmy_write_listed(p->pol, db, table)) {
		vmy_refuse(p, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, H_WRITE,
			   "%s command denied to user '%.64s' for table `%.64s`.`%.64s`: not one of your write tables",
			   w->command, p->pol->user ? p->pol->user : "", db, table);
		return false;
	}
	if (!vmy_check_table(p, db, table))
		return false;
	w->rule = (int16_t)vmy_rule_index(p->pol, db, table);
	r = rule_of(p->pol, w->rule);
	if (r && r->has_columns) {
		refuse_shape(p, "a table whose columns your policy limits",
			     "over MySQL a write table's rule may filter its rows but not limit its columns");
		return false;
	}
	/* Both fit: their lengths were checked above. */
	memcpy(w->db, db, strlen(db) + 1);
	memcpy(w->table, table, strlen(table) + 1);
	w->target_start = (uint32_t)start;
	w->target_end = (uint32_t)p->last_end;
	if (vmy_kw_at(p, 0, "PARTITION")) {
		refuse_shape(p, "PARTITION", "write the table as a whole");
		return false;
	}
	return true;
}

/* Whether the rule's filter names col (any name in it, quoted or not, whatever its case). */
static bool filter_names(const struct airlock_rule *r, const char *col)
{
	struct vmy_lexer lx;
	struct vmy_token t;
	char name[VMY_NAME_MAX];

	if (!r || !r->filter)
		return false;
	vmy_lex_init(&lx, r->filter, strlen(r->filter), false, false);
	for (;;) {
		enum vmy_tok_kind k = vmy_lex_next(&lx, &t);

		if (k == VMY_T_END)
			return false;
		if (k == VMY_T_ERROR)
			return true; /* unreadable: assume it does */
		if ((k == VMY_T_WORD || k == VMY_T_QIDENT) && vmy_tok_ident(r->filter, &t, name, sizeof(name)) > 0 &&
		    strcasecmp(name, col) == 0)
			return true;
	}
}

/* col = expr {, col = expr}: an UPDATE's (guarded: no column its filter names) or INSERT ... SET's. */
static bool assignments(struct vmy_parser *p, bool guarded)
{
	const struct airlock_rule *r = guarded ? rule_of(p->pol, p->out->write.rule) : NULL;

	do {
		char col[VMY_NAME_MAX];

		/* [[db.]table.]column: the last name is the column. */
		if (!vmy_accept_name(p, col, sizeof(col)))
			return false;
		for (int i = 0; i < 2 && vmy_accept_punct(p, "."); i++) {
			if (!vmy_accept_name(p, col, sizeof(col)))
				return false;
		}
		if (!vmy_expect(p, vmy_accept_punct(p, "="), "'=' was expected after the column"))
			return false;
		if (r && filter_names(r, col)) {
			vmy_refuse(p, AIRLOCK_E_WRITE_CHECK, AIRLOCK_N_NONE,
				   "set only columns the filter does not read, so the rows stay ones it shows",
				   "UPDATE may not set column `%.64s` of `%.64s`.`%.64s`: your row filter on the table "
				   "reads it",
				   col, p->out->write.db, p->out->write.table);
			return false;
		}
		if (vmy_at_end(p) || !vmy_read_clause(p))
			return vmy_expect(p, false, "a value was expected after '='");
	} while (vmy_accept_punct(p, ","));
	return true;
}

/* [WHERE cond] [ORDER BY expr, ...] [LIMIT n], then the end. */
static bool tail(struct vmy_parser *p)
{
	struct vmy_write_plan *w = &p->out->write;
	long n;

	w->filter_at = (uint32_t)p->last_end;
	if (vmy_accept_kw(p, "WHERE")) {
		w->where_start = (uint32_t)vmy_peek(p, 0)->start;
		if (vmy_at_end(p) || !vmy_read_clause(p))
			return vmy_expect(p, false, "a condition was expected after WHERE");
		w->where_end = (uint32_t)p->last_end;
		if (w->where_end <= w->where_start)
			return vmy_expect(p, false, "a condition was expected after WHERE");
	}
	if (vmy_accept_kw(p, "ORDER")) {
		if (!vmy_expect(p, vmy_accept_kw(p, "BY"), "BY was expected after ORDER"))
			return false;
		do {
			if (vmy_at_end(p) || !vmy_read_clause(p))
				return vmy_expect(p, false, "an expression was expected in ORDER BY");
		} while (vmy_accept_punct(p, ","));
	}
	if (vmy_kw_at(p, 0, "LIMIT")) {
		w->limit_start = (uint32_t)vmy_peek(p, 0)->start;
		vmy_next(p);
		if (!vmy_expect(p, vmy_accept_number(p, &n), "LIMIT takes a row count"))
			return false;
		w->limit = n;
	}
	return true;
}

/*
 * A rewrite's sample columns at the current token: "*", or after an
 * INSERT's check ", db.table.*" naming the table written. Only airlock's
 * own text (a rewrite) has them: the agent's RETURNING is refused.
 */
static bool sample_star(struct vmy_parser *p, bool after_check)
{
	struct vmy_write_plan *w = &p->out->write;
	char db[VMY_NAME_MAX], table[VMY_NAME_MAX];

	if (!after_check) {
		if (!vmy_accept_punct(p, "*"))
			return vmy_expect(p, false, "RETURNING * was expected");
	} else if (!vmy_accept_punct(p, ",") || !vmy_accept_name(p, db, sizeof(db)) || !vmy_accept_punct(p, ".") ||
		   !vmy_accept_name(p, table, sizeof(table)) || !vmy_accept_punct(p, ".") ||
		   !vmy_accept_punct(p, "*") || strcmp(db, w->db) != 0 || strcmp(table, w->table) != 0) {
		return vmy_expect(p, false, "the table's columns were expected after the check");
	}
	w->sample = true;
	return vmy_expect(p, vmy_at_end(p), "unexpected input after the sample's columns");
}

static bool at_end(struct vmy_parser *p)
{
	if (p->pol->rewrite && strcmp(p->out->write.command, "UPDATE") != 0 && vmy_accept_kw(p, "RETURNING"))
		return sample_star(p, false);
	if (vmy_kw_at(p, 0, "RETURNING")) {
		refuse_shape(p, "RETURNING", "read the rows after the write has run");
		return false;
	}
	return vmy_expect(p, vmy_at_end(p), "unexpected input after the write");
}

static bool refuse_modifiers(struct vmy_parser *p)
{
	if (vmy_kw_at(p, 0, "IGNORE")) {
		refuse_shape(p, "IGNORE", "leave out IGNORE: an error of one row fails the whole write");
		return false;
	}
	if (vmy_kw_at(p, 0, "DELAYED")) {
		refuse_shape(p, "DELAYED", "leave out DELAYED");
		return false;
	}
	return true;
}

static bool update(struct vmy_parser *p)
{
	vmy_next(p); /* UPDATE */
	vmy_accept_kw(p, "LOW_PRIORITY");
	if (!refuse_modifiers(p) || !target(p))
		return false;
	if (vmy_accept_kw(p, "AS") ||
	    (!vmy_kw_at(p, 0, "SET") && (vmy_peek(p, 0)->kind == VMY_T_WORD || vmy_peek(p, 0)->kind == VMY_T_QIDENT))) {
		char alias[VMY_NAME_MAX];

		p->out->write.alias_start = p->out->write.target_end;
		if (!vmy_accept_name(p, alias, sizeof(alias)))
			return false;
		p->out->write.alias_end = (uint32_t)p->last_end;
	}
	if (!vmy_kw_at(p, 0, "SET")) {
		refuse_shape(p, "an UPDATE of several tables", "update one table; name other rows in a subquery");
		return false;
	}
	vmy_next(p);
	return assignments(p, true) && tail(p) && at_end(p);
}

static bool delete (struct vmy_parser *p)
{
	vmy_next(p); /* DELETE */
	while (vmy_accept_kw(p, "LOW_PRIORITY") || vmy_accept_kw(p, "QUICK"))
		;
	if (!refuse_modifiers(p))
		return false;
	if (!vmy_accept_kw(p, "FROM")) {
		refuse_shape(p, "a DELETE of several tables", "DELETE FROM one table; name other rows in a subquery");
		return false;
	}
	if (!target(p))
		return false;
	if (vmy_punct_at(p, 0, ",") || vmy_kw_at(p, 0, "USING") || vmy_kw_at(p, 0, "JOIN")) {
		refuse_shape(p, "a DELETE of several tables", "DELETE FROM one table; name other rows in a subquery");
		return false;
	}
	return tail(p) && at_end(p);
}

static bool insert(struct vmy_parser *p)
{
	struct vmy_write_plan *w = &p->out->write;

	vmy_next(p); /* INSERT */
	if (!vmy_accept_kw(p, "LOW_PRIORITY"))
		vmy_accept_kw(p, "HIGH_PRIORITY");
	if (!refuse_modifiers(p))
		return false;
	vmy_accept_kw(p, "INTO");
	if (!target(p))
		return false;
	if (vmy_punct_at(p, 0, "(") && !vmy_kw_at(p, 1, "SELECT") && !vmy_kw_at(p, 1, "WITH") &&
	    !vmy_punct_at(p, 1, "(") && !vmy_name_list(p))
		return false;
	if (vmy_accept_kw(p, "VALUES") || vmy_accept_kw(p, "VALUE")) {
		do {
			if (!vmy_read_group(p))
				return false;
			w->rows++;
		} while (vmy_accept_punct(p, ","));
	} else if (vmy_accept_kw(p, "SET")) {
		if (!assignments(p, false))
			return false;
		w->rows = 1;
	} else if (vmy_kw_at(p, 0, "SELECT") || vmy_kw_at(p, 0, "WITH") || vmy_kw_at(p, 0, "TABLE") ||
		   vmy_punct_at(p, 0, "(")) {
		refuse_shape(p, "INSERT ... SELECT", "list the rows with VALUES");
		return false;
	} else {
		vmy_syntax(p, "VALUES or SET was expected");
		return false;
	}
	w->filter_at = (uint32_t)p->last_end;
	if (vmy_kw_at(p, 0, "ON")) {
		refuse_shape(p, "ON DUPLICATE KEY UPDATE", "insert new rows, or UPDATE the existing ones");
		return false;
	}
	/* The check the scoping adds, validated again with the rest. */
	if (p->pol->rewrite && rule_of(p->pol, w->rule) && rule_of(p->pol, w->rule)->filter &&
	    vmy_accept_kw(p, "RETURNING"))
		return vmy_read_clause(p) && (vmy_at_end(p) || sample_star(p, true) ||
					      vmy_expect(p, false, "unexpected input after the check"));
	return at_end(p);
}

void vmy_write(struct vmy_parser *p)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	struct vmy_write_plan *w = &p->out->write;
	bool ok;

	memset(w, 0, sizeof(*w));
	w->rule = -1;
	if (vmy_is_kw(p, t, "INSERT")) {
		snprintf(w->command, sizeof(w->command), "INSERT");
		ok = insert(p);
	} else if (vmy_is_kw(p, t, "UPDATE")) {
		snprintf(w->command, sizeof(w->command), "UPDATE");
		ok = update(p);
	} else if (vmy_is_kw(p, t, "DELETE")) {
		snprintf(w->command, sizeof(w->command), "DELETE");
		ok = delete (p);
	} else {
		vmy_refuse_write(p, "this statement");
		return;
	}
	if (!ok || p->failed) {
		if (!p->failed)
			vmy_syntax(p, H_WRITE);
		return;
	}
	p->out->kind = VMY_WRITE;
	p->out->stmt_kind = NULL;
}

bool vmy_write_checks(const struct vmy_policy *pol, const struct vmy_result *v)
{
	const struct airlock_rule *r = rule_of(pol, v->write.rule);

	return v->kind == VMY_WRITE && r && r->filter && strcmp(v->write.command, "INSERT") == 0;
}

char *vmy_write_scope(const struct vmy_policy *pol, const char *sql, size_t len, const struct vmy_result *v)
{
	const struct vmy_write_plan *w = &v->write;
	const struct airlock_rule *r = rule_of(pol, w->rule);
	const char *filter = r ? r->filter : NULL;
	size_t end = v->stmt_len && v->stmt_len <= len ? v->stmt_len : len;
	bool where = w->where_end > w->where_start, ok;
	struct wbuf b;

	if (v->kind != VMY_WRITE || w->target_start > w->target_end || w->target_end > w->filter_at ||
	    w->filter_at > end || (where && (w->where_start < w->filter_at || w->where_end > end)))
		return NULL;
	wbuf_init(&b);
	ok = vmy_scope_range(&b, pol, sql, 0, w->target_start, &v->scope);
	vmy_scope_put_ident(&b, w->db);
	wbuf_put_str(&b, ".");
	vmy_scope_put_ident(&b, w->table);
	if (ok && filter && strcmp(w->command, "INSERT") == 0) {
		ok = vmy_scope_range(&b, pol, sql, w->target_end, end, &v->scope);
		wbuf_put_str(&b, " RETURNING ((");
		ok = ok && vmy_rule_put(&b, filter);
		wbuf_put_str(&b, ") IS TRUE)");
	} else if (ok && filter && where) {
		ok = vmy_scope_range(&b, pol, sql, w->target_end, w->where_start, &v->scope);
		wbuf_put_str(&b, "(");
		ok = ok && vmy_scope_range(&b, pol, sql, w->where_start, w->where_end, &v->scope);
		wbuf_put_str(&b, ") AND (");
		ok = ok && vmy_rule_put(&b, filter);
		wbuf_put_str(&b, ")");
		ok = ok && vmy_scope_range(&b, pol, sql, w->where_end, end, &v->scope);
	} else if (ok && filter) {
		ok = vmy_scope_range(&b, pol, sql, w->target_end, w->filter_at, &v->scope);
		wbuf_put_str(&b, " WHERE (");
		ok = ok && vmy_rule_put(&b, filter);
		wbuf_put_str(&b, ")");
		ok = ok && vmy_scope_range(&b, pol, sql, w->filter_at, end, &v->scope);
	} else if (ok) {
		ok = vmy_scope_range(&b, pol, sql, w->target_end, end, &v->scope);
	}
	wbuf_put_u8(&b, 0);
	if (!ok || b.failed) {
		wbuf_free(&b);
		return NULL;
	}
	return (char *)b.data;
}
