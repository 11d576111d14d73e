/*
 * validate_pg_copy: COPY of a read to the client, the form psql's \copy
 * and bulk exports use: COPY (query) TO STDOUT and COPY table [(columns)]
 * TO STDOUT, with the output options Postgres has for it. Everything else
 * COPY can do (FROM, a server file, a program) stays refused.
 *
 * The read is what a runner will execute, so validate_pg.c validates it on
 * its own as a complete statement, as DECLARE's query: the query form's text is
 * found between COPY's parentheses with libpg_query's scanner (so strings
 * and comments cannot fool the count), the table form becomes SELECT over
 * the table. The options are written back out from the parse tree, each
 * value a literal, never pasted from the text.
 */
#define _GNU_SOURCE
#include "validator/pg/validate_pg_copy.h"

#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validator/pg/validate_pg_scope_sql.h"
#include "validator/pg/validate_pg_stmt.h"
#include "validator/pg/validate_pg_util.h"

/* sb's text into the fixed field dst (cap bytes); false when it does not fit or memory ran out. */
static bool take_into(struct pgv_sbuf *sb, char *dst, size_t cap)
{
	char *text = pgv_sb_take(sb);
	bool ok = text && strlen(text) < cap;

	if (ok)
		memcpy(dst, text, strlen(text) + 1);
	free(text);
	return ok;
}

/* Where COPY's parenthesised query lies in sql: [*start, *end). False for the table form. */
static bool find_query(const char *sql, size_t *start, size_t *end)
{
	PgQueryScanResult scan = pg_query_scan(sql);
	PgQuery__ScanResult *r = NULL;
	bool found = false;
	int depth = 0;

	if (!scan.error)
		r = pg_query__scan_result__unpack(NULL, scan.pbuf.len, (const uint8_t *)scan.pbuf.data);
	for (size_t i = 0; r && i < r->n_tokens && !found; i++) {
		const PgQuery__ScanToken *t = r->tokens[i];

		if (t->token == PG_QUERY__TOKEN__SQL_COMMENT || t->token == PG_QUERY__TOKEN__C_COMMENT)
			continue;
		if (depth == 0 && t->token != PG_QUERY__TOKEN__ASCII_40) {
			/* COPY, then ( at once; anything else is the table form. */
			if (t->token != PG_QUERY__TOKEN__COPY)
				break;
			continue;
		}
		if (t->token == PG_QUERY__TOKEN__ASCII_40 && depth++ == 0)
			*start = (size_t)t->end;
		else if (t->token == PG_QUERY__TOKEN__ASCII_41 && --depth == 0) {
			*end = (size_t)t->start;
			found = *end >= *start;
		}
	}
	if (r)
		pg_query__scan_result__free_unpacked(r, NULL);
	pg_query_free_scan_result(scan);
	return found;
}

/* SELECT over the table form's table and columns; false when it does not fit. */
static bool table_query(json_t *body, struct pgv_result *out)
{
	json_t *rel = json_object_get(body, "relation");
	json_t *cols = json_object_get(body, "attlist");
	const char *schema = pgv_str(rel, "schemaname"), *name = pgv_str(rel, "relname");
	struct pgv_sbuf sb = {0};

	if (!name)
		return false;
	pgv_sb_put(&sb, "SELECT ");
	for (size_t i = 0; i < json_array_size(cols); i++) {
		const char *col = pgv_str(json_object_get(json_array_get(cols, i), "String"), "sval");

		if (!col) {
			pgv_sb_free(&sb);
			return false;
		}
		pgv_sb_put(&sb, i ? ", " : "");
		pgv_sb_ident(&sb, col);
	}
	if (json_array_size(cols) == 0)
		pgv_sb_put(&sb, "*");
	/* COPY table TO reads the table's own rows, never its children's. */
	pgv_sb_put(&sb, " FROM ONLY ");
	if (schema) {
		pgv_sb_ident(&sb, schema);
		pgv_sb_put(&sb, ".");
	}
	pgv_sb_ident(&sb, name);
	return take_into(&sb, out->copy_query, sizeof(out->copy_query));
}

/* A DefElem's argument as a string ("" for none); false for a kind the option cannot take. */
static bool string_arg(json_t *arg, const char **s)
{
	json_t *str = json_object_get(arg, "String");

	*s = str ? pgv_str(str, "sval") : NULL;
	return *s != NULL;
}

/* HEADER's value: no argument, a Boolean, 0 / 1 or a boolean word. */
static bool boolean_arg(json_t *arg, bool *v)
{
	json_t *b = json_object_get(arg, "Boolean"), *i = json_object_get(arg, "Integer");
	const char *s;

	if (!arg) {
		*v = true;
		return true;
	}
	if (b) {
		*v = json_is_true(json_object_get(b, "boolval"));
		return true;
	}
	if (i) {
		json_int_t n = json_integer_value(json_object_get(i, "ival"));

		*v = n == 1;
		return n == 0 || n == 1;
	}
	if (!string_arg(arg, &s))
		return false;
	if (!strcasecmp(s, "true") || !strcasecmp(s, "on")) {
		*v = true;
		return true;
	}
	*v = false;
	return !strcasecmp(s, "false") || !strcasecmp(s, "off");
}

/* FORCE_QUOTE * or (columns). */
static bool put_force_quote(struct pgv_sbuf *sb, json_t *arg)
{
	json_t *items = json_object_get(json_object_get(arg, "List"), "items");

	if (json_object_get(arg, "A_Star")) {
		pgv_sb_put(sb, "FORCE_QUOTE *");
		return true;
	}
	if (!json_array_size(items))
		return false;
	pgv_sb_put(sb, "FORCE_QUOTE (");
	for (size_t i = 0; i < json_array_size(items); i++) {
		const char *col = pgv_str(json_object_get(json_array_get(items, i), "String"), "sval");

		if (!col)
			return false;
		pgv_sb_put(sb, i ? ", " : "");
		pgv_sb_ident(sb, col);
	}
	pgv_sb_put(sb, ")");
	return true;
}

/* One option written back out; false when its value is not one airlock takes. */
static bool put_option(struct pgv_sbuf *sb, const char *name, json_t *arg, struct pgv_result *out)
{
	/* The options whose value is a string, with the keyword each is written back as. */
	static const char *const strings[][2] = {
		{"delimiter", "DELIMITER "}, {"null", "NULL "},         {"quote", "QUOTE "},
		{"escape", "ESCAPE "},       {"encoding", "ENCODING "},
	};
	const char *s;
	bool v;

	if (!strcmp(name, "format")) {
		if (!string_arg(arg, &s) || (strcasecmp(s, "text") && strcasecmp(s, "csv") && strcasecmp(s, "binary")))
			return false;
		pgv_sb_put(sb, "FORMAT ");
		pgv_sb_literal(sb, s);
		return true;
	}
	if (!strcmp(name, "header")) {
		if (!boolean_arg(arg, &v))
			return false;
		pgv_sb_put(sb, v ? "HEADER true" : "HEADER false");
		out->copy_header = v;
		return true;
	}
	if (!strcmp(name, "force_quote"))
		return put_force_quote(sb, arg);
	for (size_t k = 0; k < sizeof(strings) / sizeof(strings[0]); k++) {
		if (strcmp(name, strings[k][0]) != 0)
			continue;
		if (!string_arg(arg, &s))
			return false;
		pgv_sb_put(sb, strings[k][1]);
		pgv_sb_literal(sb, s);
		return true;
	}
	return false;
}

/* Whether name is an option COPY ... TO STDOUT may have here. */
static bool known_option(const char *name)
{
	static const char *const names[] = {"format", "header", "force_quote", "delimiter",
					    "null",   "quote",  "escape",      "encoding"};

	for (size_t k = 0; name && k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(name, names[k]))
			return true;
	return false;
}

/* The options written back out as " (FORMAT 'csv', HEADER true, ...)"; false with out refused. */
static bool options(const char *sql, json_t *body, struct pgv_result *out)
{
	json_t *opts = json_object_get(body, "options");
	struct pgv_sbuf sb = {0};

	for (size_t i = 0; i < json_array_size(opts); i++) {
		json_t *d = json_object_get(json_array_get(opts, i), "DefElem");
		const char *name = pgv_str(d, "defname");

		if (!known_option(name)) {
			pgv_sb_free(&sb);
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, pgv_cursor_of(sql, d),
				   "use FORMAT, HEADER, DELIMITER, NULL, QUOTE, ESCAPE, FORCE_QUOTE or ENCODING",
				   "COPY option \"%s\" is not supported here", name ? name : "");
			return false;
		}
		pgv_sb_put(&sb, i ? ", " : " (");
		if (!put_option(&sb, name, json_object_get(d, "arg"), out)) {
			pgv_sb_free(&sb);
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_INVALID_PARAMETER_VALUE,
				   pgv_cursor_of(sql, d), NULL, "COPY option \"%s\" has a value airlock does not take",
				   name);
			return false;
		}
	}
	if (json_array_size(opts))
		pgv_sb_put(&sb, ")");
	if (!take_into(&sb, out->copy_options, sizeof(out->copy_options))) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED, 0, NULL,
			   "COPY options are too long");
		return false;
	}
	return true;
}

enum pgv_kind pgv_copy(const char *sql, json_t *body, struct pgv_result *out)
{
	size_t start = 0, end = 0;

	if (json_is_true(json_object_get(body, "is_from")) || json_is_true(json_object_get(body, "is_program")) ||
	    json_object_get(body, "filename") || json_object_get(body, "whereClause")) {
		pgv_refuse_statement("CopyStmt", body, "", out);
		return out->kind;
	}
	if (!options(sql, body, out))
		return out->kind;
	if (json_object_get(body, "query")) {
		if (!find_query(sql, &start, &end)) {
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, "COPY (SELECT ...) TO STDOUT",
				   "unsupported form of COPY");
			return out->kind;
		}
		out->query_offset = start;
		out->query_len = end - start;
	} else if (!table_query(body, out)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED, 0,
			   "COPY (SELECT ...) TO STDOUT", "the table's name and columns are too long");
		return out->kind;
	}
	out->kind = PGV_COPY_OUT;
	return out->kind;
}
