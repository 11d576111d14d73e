/*
 * validate_my_scope: see validate_my_scope.h.
 */
#include "validator/mysql/validate_my_scope.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "conf/config.h"
#include "validator/mysql/validate_my_lex.h"
#include "validator/mysql/validate_my_rule.h"
#include "validator/mysql/validate_my_scope_tables.h"

static void put_hex(struct wbuf *w, const char *s, size_t n)
{
	static const char digits[] = "0123456789ABCDEF";
	size_t i;

	if (n == 0) {
		wbuf_put_str(w, "''");
		return;
	}
	wbuf_put_str(w, "X'");
	for (i = 0; i < n; i++) {
		wbuf_put_u8(w, (uint8_t)digits[(unsigned char)s[i] >> 4]);
		wbuf_put_u8(w, (uint8_t)digits[(unsigned char)s[i] & 15]);
	}
	wbuf_put_u8(w, '\'');
}

/* `name`, backticks doubled. */
void vmy_scope_put_ident(struct wbuf *w, const char *s)
{
	wbuf_put_u8(w, '`');
	for (; *s; s++) {
		if (*s == '`')
			wbuf_put_u8(w, '`');
		wbuf_put_u8(w, (uint8_t)*s);
	}
	wbuf_put_u8(w, '`');
}

/*
 * Closes a filtered derived table. Without a LIMIT, MariaDB merges the
 * derived table into the statement around it or pushes that statement's
 * conditions down into it, and then evaluates them on rows the filter
 * drops: a condition that fails (EXP(1000), a subquery of two rows) only
 * for a hidden table's row would tell that the table exists. A LIMIT of
 * every row keeps the filter a wall the outer conditions never see past.
 * A rule's filter is the same wall (put_rule_table): merged, a condition
 * cheaper to refuse a row than the operator's filter ran first.
 */
static const char NO_MERGE[] = " LIMIT 18446744073709551615";

static bool is_is(const char *db, size_t n)
{
	return n == 18 && strncasecmp(db, "information_schema", 18) == 0;
}

/*
 * One "db.table" or "db.*" entry as a predicate over columns s and t (t
 * NULL: databases only). Table and database names compare byte for byte,
 * as MariaDB compares them on a case-sensitive file system;
 * information_schema's own names compare without case.
 */
static void put_entry(struct wbuf *w, const char *e, const char *s, const char *t)
{
	const char *dot = strchr(e, '.');
	size_t dlen = (size_t)(dot - e);
	bool is = is_is(e, dlen);

	wbuf_put_str(w, "(");
	if (is) {
		wbuf_put_str(w, s);
		wbuf_put_str(w, " = 'information_schema'");
	} else {
		wbuf_put_str(w, "BINARY ");
		wbuf_put_str(w, s);
		wbuf_put_str(w, " = ");
		put_hex(w, e, dlen);
	}
	if (t && strcmp(dot + 1, "*") != 0) {
		if (is) {
			wbuf_put_str(w, " AND UPPER(");
			wbuf_put_str(w, t);
			wbuf_put_str(w, ") = UPPER(CONVERT(");
			put_hex(w, dot + 1, strlen(dot + 1));
			wbuf_put_str(w, " USING utf8mb4))");
		} else {
			wbuf_put_str(w, " AND BINARY ");
			wbuf_put_str(w, t);
			wbuf_put_str(w, " = ");
			put_hex(w, dot + 1, strlen(dot + 1));
		}
	}
	wbuf_put_str(w, ")");
}

static void put_allowed(struct wbuf *w, const struct vmy_policy *pol, const char *s, const char *t)
{
	bool any = false;
	size_t i;

	wbuf_put_str(w, "(");
	for (i = 0; i < pol->ntables; i++) {
		const char *e = pol->tables ? pol->tables[i] : NULL;
		const char *dot = e ? strchr(e, '.') : NULL;

		if (!dot || dot == e || dot[1] == '\0')
			continue;
		if (any)
			wbuf_put_str(w, " OR ");
		any = true;
		put_entry(w, e, s, t);
	}
	wbuf_put_str(w, any ? ")" : "FALSE)");
}

/* The argument text of a marker: "(a,b)" or "(a)"; returns what follows ')' or NULL. */
static const char *marker_args(const char *t, char *a, char *b, size_t cap)
{
	const char *close = strchr(t, ')'), *comma;
	size_t n;

	if (*t != '(' || !close)
		return NULL;
	comma = memchr(t, ',', (size_t)(close - t));
	n = (size_t)((comma ? comma : close) - t - 1);
	if (n >= cap)
		return NULL;
	memcpy(a, t + 1, n);
	a[n] = '\0';
	b[0] = '\0';
	if (comma) {
		n = (size_t)(close - comma - 1);
		if (n >= cap)
			return NULL;
		memcpy(b, comma + 1, n);
		b[n] = '\0';
	}
	return close + 1;
}

/*
 * @C(s,t,c): column c of table s.t is one its rule shows (a rule without
 * columns shows them all). The column argument is the third, after "t|".
 */
static void put_columns_allowed(struct wbuf *w, const struct vmy_policy *pol, const char *s, const char *t,
				const char *c)
{
	bool any = false;
	size_t i, j;

	wbuf_put_str(w, "(");
	for (i = 0; i < pol->nrules; i++) {
		const struct airlock_rule *r = &pol->rules[i];
		const char *dot = strchr(r->table, '.');

		if (!r->has_columns || !dot)
			continue;
		wbuf_put_str(w, any ? " AND " : "");
		any = true;
		wbuf_put_str(w, "(NOT (BINARY ");
		wbuf_put_str(w, s);
		wbuf_put_str(w, " = ");
		put_hex(w, r->table, (size_t)(dot - r->table));
		wbuf_put_str(w, " AND BINARY ");
		wbuf_put_str(w, t);
		wbuf_put_str(w, " = ");
		put_hex(w, dot + 1, strlen(dot + 1));
		wbuf_put_str(w, ") OR ");
		wbuf_put_str(w, c);
		wbuf_put_str(w, " IN (");
		for (j = 0; j < r->ncolumns; j++) {
			wbuf_put_str(w, j ? ", " : "");
			put_hex(w, r->columns[j].name, strlen(r->columns[j].name));
		}
		wbuf_put_str(w, "))");
	}
	wbuf_put_str(w, any ? ")" : "TRUE)");
}

/* @R(s,t): s.t is a table the user reads through a rule (a filter, a column list or both). */
static void put_ruled(struct wbuf *w, const struct vmy_policy *pol, const char *s, const char *t)
{
	bool any = false;
	size_t i;

	wbuf_put_str(w, "(");
	for (i = 0; i < pol->nrules; i++) {
		const struct airlock_rule *r = &pol->rules[i];
		const char *dot = strchr(r->table, '.');

		if (!dot)
			continue;
		wbuf_put_str(w, any ? " OR " : "");
		any = true;
		wbuf_put_str(w, "(BINARY ");
		wbuf_put_str(w, s);
		wbuf_put_str(w, " = ");
		put_hex(w, r->table, (size_t)(dot - r->table));
		wbuf_put_str(w, " AND BINARY ");
		wbuf_put_str(w, t);
		wbuf_put_str(w, " = ");
		put_hex(w, dot + 1, strlen(dot + 1));
		wbuf_put_str(w, ")");
	}
	wbuf_put_str(w, any ? ")" : "FALSE)");
}

bool vmy_scope_expand(struct wbuf *w, const struct vmy_policy *pol, const char *t)
{
	char a[96], b[96];

	while (*t) {
		const char *at = strchr(t, '@'), *bar;

		if (!at) {
			wbuf_put_str(w, t);
			return true;
		}
		wbuf_put_bytes(w, t, (size_t)(at - t));
		if (at[1] != 'T' && at[1] != 'D' && at[1] != 'C' && at[1] != 'R')
			return false;
		t = marker_args(at + 2, a, b, sizeof(a));
		if (!t || (at[1] != 'D') != (b[0] != '\0'))
			return false;
		if (at[1] == 'R') {
			put_ruled(w, pol, a, b);
			continue;
		}
		if (at[1] != 'C') {
			put_allowed(w, pol, a, at[1] == 'T' ? b : NULL);
			continue;
		}
		bar = strchr(b, '|');
		if (!bar)
			return false;
		*(char *)bar = '\0';
		put_columns_allowed(w, pol, a, b, bar + 1);
	}
	return true;
}

/*
 * The derived table a rule makes of db.table: its columns (masks in place)
 * and rows, the operator's expressions re-spelled to mean the same under
 * every sql_mode (validate_my_rule.h). False when one cannot be.
 */
static bool put_rule_table(struct wbuf *w, const struct airlock_rule *r, const char *db, const char *table,
			   const char *hint, size_t hint_len)
{
	size_t i;

	wbuf_put_str(w, "(SELECT ");
	if (!r->has_columns)
		wbuf_put_str(w, "*");
	for (i = 0; r->has_columns && i < r->ncolumns; i++) {
		wbuf_put_str(w, i ? ", " : "");
		if (r->columns[i].mask) {
			wbuf_put_str(w, "(");
			if (!vmy_rule_put(w, r->columns[i].mask))
				return false;
			wbuf_put_str(w, ") AS ");
		}
		vmy_scope_put_ident(w, r->columns[i].name);
	}
	wbuf_put_str(w, " FROM ");
	vmy_scope_put_ident(w, db);
	wbuf_put_str(w, ".");
	vmy_scope_put_ident(w, table);
	if (hint_len) {
		wbuf_put_str(w, " ");
		wbuf_put_bytes(w, hint, hint_len);
	}
	if (r->filter) {
		wbuf_put_str(w, " WHERE (");
		if (!vmy_rule_put(w, r->filter))
			return false;
		wbuf_put_str(w, ")");
		wbuf_put_str(w, NO_MERGE); /* the statement's conditions see only the rows the filter keeps */
	}
	wbuf_put_str(w, ")");
	return true;
}

/*
 * A version 4 UUID as UUID() prints one (lower case, 8-4-4-4-12): random
 * bytes with the version nibble 4 and the variant bits 10. Each piece
 * draws its own bytes, so each row gets its own value, as with UUID().
 */
#define UUID_V4                                                                                                \
	"LOWER(CONCAT(HEX(RANDOM_BYTES(4)), '-', HEX(RANDOM_BYTES(2)), '-4', SUBSTR(HEX(RANDOM_BYTES(2)), 2)," \
	" '-', HEX(8 + (ORD(RANDOM_BYTES(1)) & 3)), SUBSTR(HEX(RANDOM_BYTES(2)), 2), '-',"                     \
	" HEX(RANDOM_BYTES(6))))"

/*
 * Copies sql[from, to) with every scoped reference inside it replaced by
 * its filtered derived table, named as the reference was written (an alias
 * after it still wins). References are recorded in text order; one out of
 * order or straddling the range fails.
 */
bool vmy_scope_range(struct wbuf *w, const struct vmy_policy *pol, const char *sql, size_t from, size_t to,
		     const struct vmy_scope_plan *sp)
{
	size_t i, at = from;

	if (to < from)
		return false;
	for (i = 0; i < sp->nrefs; i++) {
		const struct vmy_scoped_ref *r = &sp->refs[i];
		const struct vmy_is_table *e = r->rule < 0 ? vmy_is_table_find(r->table) : NULL;

		if (r->end <= from || r->start >= to)
			continue;
		if (r->start < at || r->end > to || r->end < r->start ||
		    (r->rule >= 0 && (size_t)r->rule >= pol->nrules))
			return false;
		if (r->rule == VMY_REF_UUID || r->rule == VMY_REF_QUALIFIER) {
			wbuf_put_bytes(w, sql + at, r->start - at);
			wbuf_put_str(w, r->rule == VMY_REF_UUID ? UUID_V4 : "");
			at = r->end;
			continue;
		}
		if (r->rule < 0 && (!e || e->mode != VMY_IS_FILTER))
			continue;
		wbuf_put_bytes(w, sql + at, r->start - at);
		if (r->rule >= 0) {
			if (r->hint_end > r->hint_start && (r->hint_start < r->end || r->hint_end > to))
				return false;
			if (!put_rule_table(w, &pol->rules[r->rule], r->db, r->written, sql + r->hint_start,
					    r->hint_end - r->hint_start))
				return false;
		} else {
			wbuf_put_str(w, "(SELECT ");
			if (!e->columns)
				wbuf_put_str(w, "*");
			else if (!vmy_scope_expand(w, pol, e->columns))
				return false;
			wbuf_put_str(w, " FROM information_schema.");
			vmy_scope_put_ident(w, r->table);
			wbuf_put_str(w, " r WHERE ");
			if (!vmy_scope_expand(w, pol, e->filter))
				return false;
			wbuf_put_str(w, NO_MERGE);
			wbuf_put_str(w, ")");
		}
		if (!r->aliased) {
			wbuf_put_str(w, " ");
			vmy_scope_put_ident(w, r->written);
		}
		at = r->end;
		if (r->rule >= 0 && r->hint_end > r->hint_start) {
			/* The alias, then past the hints, which went inside. */
			wbuf_put_bytes(w, sql + at, r->hint_start - at);
			at = r->hint_end;
		}
	}
	wbuf_put_bytes(w, sql + at, to - at);
	return true;
}

/* SHOW [FULL] TABLES: the column is Tables_in_db, with " (pattern)" after a LIKE, as MariaDB names it. */
static void put_show_tables(struct wbuf *w, const struct vmy_policy *pol, const char *sql,
			    const struct vmy_scope_plan *sp)
{
	char label[sizeof(((struct vmy_scope_plan *)0)->db) + 140], pattern[128] = "";
	size_t used = 0;

	if (sp->like_len) {
		const char *q = sql + sp->like_start;
		const struct vmy_token t = {.kind = VMY_T_STRING,
					    .start = sp->like_start,
					    .len = sp->like_len,
					    .quote = (q[0] == 'N' || q[0] == 'n') ? q[1] : q[0]};

		if (!vmy_tok_string(sql, &t, pol->no_backslash_escapes, pattern, sizeof(pattern), &used))
			pattern[0] = '\0';
	}
	if (pattern[0])
		snprintf(label, sizeof(label), "Tables_in_%s (%s)", sp->db, pattern);
	else
		snprintf(label, sizeof(label), "Tables_in_%s", sp->db);
	wbuf_put_str(w, "SELECT TABLE_NAME AS ");
	vmy_scope_put_ident(w, label);
	if (sp->full)
		wbuf_put_str(w, ", TABLE_TYPE AS `Table_type`");
	wbuf_put_str(w, " FROM information_schema.TABLES WHERE BINARY TABLE_SCHEMA = ");
	put_hex(w, sp->db, strlen(sp->db));
	wbuf_put_str(w, " AND ");
	put_allowed(w, pol, "TABLE_SCHEMA", "TABLE_NAME");
}

/* SHOW TABLE STATUS: what counts a ruled table's rows (or dates its last change) reads as unknown. */
static bool put_show_status(struct wbuf *w, const struct vmy_policy *pol, const struct vmy_scope_plan *sp)
{
	if (!vmy_scope_expand(
		    w, pol,
		    "SELECT TABLE_NAME AS `Name`, ENGINE AS `Engine`, VERSION AS `Version`,"
		    " ROW_FORMAT AS `Row_format`, IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, TABLE_ROWS) AS `Rows`,"
		    " IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, AVG_ROW_LENGTH) AS `Avg_row_length`,"
		    " IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, DATA_LENGTH) AS `Data_length`,"
		    " MAX_DATA_LENGTH AS `Max_data_length`,"
		    " IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, INDEX_LENGTH) AS `Index_length`,"
		    " IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, DATA_FREE) AS `Data_free`,"
		    " IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, AUTO_INCREMENT) AS `Auto_increment`,"
		    " CREATE_TIME AS `Create_time`, IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, UPDATE_TIME) AS "
		    "`Update_time`,"
		    " CHECK_TIME AS `Check_time`, TABLE_COLLATION AS `Collation`,"
		    " IF(@R(TABLE_SCHEMA,TABLE_NAME), NULL, CHECKSUM) AS `Checksum`, CREATE_OPTIONS AS "
		    "`Create_options`,"
		    " TABLE_COMMENT AS `Comment`, MAX_INDEX_LENGTH AS `Max_index_length`, TEMPORARY AS `Temporary`"
		    " FROM information_schema.TABLES WHERE BINARY TABLE_SCHEMA = "))
		return false;
	put_hex(w, sp->db, strlen(sp->db));
	wbuf_put_str(w, " AND ");
	put_allowed(w, pol, "TABLE_SCHEMA", "TABLE_NAME");
	return true;
}

/* SHOW INDEX: the filtered STATISTICS rows of one table, under SHOW INDEX's column names. */
static bool put_show_index(struct wbuf *w, const struct vmy_policy *pol, const struct vmy_scope_plan *sp)
{
	const struct vmy_is_table *e = vmy_is_table_find("STATISTICS");

	if (!e || !e->filter ||
	    !vmy_scope_expand(
		    w, pol,
		    "SELECT r.TABLE_NAME AS `Table`, r.NON_UNIQUE AS `Non_unique`, r.INDEX_NAME AS `Key_name`,"
		    " r.SEQ_IN_INDEX AS `Seq_in_index`, r.COLUMN_NAME AS `Column_name`,"
		    " r.COLLATION AS `Collation`, IF(@R(r.TABLE_SCHEMA,r.TABLE_NAME), NULL, r.CARDINALITY)"
		    " AS `Cardinality`, r.SUB_PART AS `Sub_part`, r.PACKED AS `Packed`, r.NULLABLE AS `Null`,"
		    " r.INDEX_TYPE AS `Index_type`, r.COMMENT AS `Comment`, r.INDEX_COMMENT AS"
		    " `Index_comment`, r.IGNORED AS `Ignored` FROM information_schema.STATISTICS r WHERE"
		    " BINARY r.TABLE_SCHEMA = "))
		return false;
	put_hex(w, sp->db, strlen(sp->db));
	wbuf_put_str(w, " AND BINARY r.TABLE_NAME = ");
	put_hex(w, sp->table, strlen(sp->table));
	wbuf_put_str(w, " AND ");
	return vmy_scope_expand(w, pol, e->filter);
}

static void put_show_databases(struct wbuf *w, const struct vmy_policy *pol)
{
	wbuf_put_str(w, "SELECT SCHEMA_NAME AS `Database` FROM information_schema.SCHEMATA WHERE ");
	put_allowed(w, pol, "SCHEMA_NAME", NULL);
}

/* SHOW ... [LIKE 'p' | WHERE cond] as a SELECT with the same columns, in name order. */
static bool put_show(struct wbuf *w, const struct vmy_policy *pol, const char *sql, size_t stmt_len,
		     const struct vmy_scope_plan *sp)
{
	const char *first = sp->show == VMY_SHOW_DATABASES ? "SCHEMA_NAME" : "TABLE_NAME", *order;

	if (sp->where_start)
		wbuf_put_str(w, "SELECT * FROM (");
	if (sp->show == VMY_SHOW_TABLES)
		put_show_tables(w, pol, sql, sp);
	else if (sp->show == VMY_SHOW_TABLE_STATUS) {
		if (!put_show_status(w, pol, sp))
			return false;
	} else if (sp->show == VMY_SHOW_INDEX) {
		if (!put_show_index(w, pol, sp))
			return false;
	} else
		put_show_databases(w, pol);
	if (sp->like_len) {
		wbuf_put_str(w, " AND ");
		wbuf_put_str(w, first);
		wbuf_put_str(w, " LIKE ");
		wbuf_put_bytes(w, sql + sp->like_start, sp->like_len);
	}
	/* SHOW INDEX keeps the server's order: its keys as the table defines them. */
	order = sp->show == VMY_SHOW_INDEX ? "" : " ORDER BY 1";
	if (!sp->where_start) {
		wbuf_put_str(w, order);
		return true;
	}
	wbuf_put_str(w, NO_MERGE);
	wbuf_put_str(w, ") AS `airlock_show` WHERE ");
	if (!vmy_scope_range(w, pol, sql, sp->where_start, stmt_len, sp))
		return false;
	wbuf_put_str(w, order);
	return true;
}

static bool needs_scope(const struct vmy_scope_plan *sp)
{
	size_t i;

	if (sp->show != VMY_SHOW_NONE)
		return true;
	for (i = 0; i < sp->nrefs; i++) {
		const struct vmy_is_table *e = vmy_is_table_find(sp->refs[i].table);

		if (sp->refs[i].rule >= 0 || sp->refs[i].rule == VMY_REF_UUID || (e && e->mode == VMY_IS_FILTER))
			return true;
	}
	return false;
}

char *vmy_hidden_foreign_keys_sql(const struct vmy_policy *pol)
{
	struct wbuf w;

	wbuf_init(&w);
	if (!vmy_scope_expand(&w, pol,
			      "SELECT DISTINCT k.CONSTRAINT_NAME FROM information_schema.KEY_COLUMN_USAGE k WHERE"
			      " k.REFERENCED_TABLE_NAME IS NOT NULL AND @T(k.TABLE_SCHEMA,k.TABLE_NAME) AND NOT"
			      " (@C(k.TABLE_SCHEMA,k.TABLE_NAME|k.COLUMN_NAME) AND @T(k.REFERENCED_TABLE_SCHEMA,"
			      "k.REFERENCED_TABLE_NAME) AND @C(k.REFERENCED_TABLE_SCHEMA,k.REFERENCED_TABLE_NAME|"
			      "k.REFERENCED_COLUMN_NAME))"))
		w.failed = true;
	wbuf_put_u8(&w, 0);
	if (w.failed) {
		wbuf_free(&w);
		return NULL;
	}
	return (char *)w.data;
}

bool vmy_scope_reads_rules(const struct vmy_result *v)
{
	size_t i;

	for (i = 0; i < v->scope.nrefs; i++) {
		if (v->scope.refs[i].rule >= 0)
			return true;
	}
	return false;
}

char *vmy_scope(const struct vmy_policy *pol, const char *sql, size_t len, const struct vmy_result *v, bool *failed)
{
	const struct vmy_scope_plan *sp = &v->scope;
	size_t stmt_len = v->stmt_len && v->stmt_len <= len ? v->stmt_len : len;
	struct wbuf w;
	bool ok;

	*failed = false;
	if (v->kind != VMY_READ || !needs_scope(sp))
		return NULL;
	wbuf_init(&w);
	if (sp->show != VMY_SHOW_NONE)
		ok = put_show(&w, pol, sql, stmt_len, sp);
	else
		ok = vmy_scope_range(&w, pol, sql, 0, stmt_len, sp);
	wbuf_put_u8(&w, 0);
	if (!ok || w.failed) {
		wbuf_free(&w);
		*failed = true;
		return NULL;
	}
	return (char *)w.data;
}
