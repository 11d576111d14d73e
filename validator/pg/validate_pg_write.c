/*
 * validate_pg_write: the shape of a write, its table and the columns it
 * names (validate_pg_write.h). The rewrite is validate_pg_write_scope.c.
 */
#include "validator/pg/validate_pg_write.h"

#include <stdio.h>
#include <string.h>

#include "conf/config.h"
#include "validator/pg/validate_pg_read.h"
#include "validator/pg/validate_pg_util.h"
#include "validator/pg/validate_pg_write_int.h"

static const char H_WRITE[] = "a write is one INSERT, UPDATE or DELETE on one of your write tables, with literals or "
			      "bound parameters; it is held until a person approves it";

/* The entry of list (schema.table or schema.*) that covers schema.rel. */
static bool listed(const char *const *list, size_t n, const char *schema, const char *rel)
{
	size_t slen = strlen(schema);

	for (size_t i = 0; i < n; i++) {
		const char *e = list[i], *dot = e ? strchr(e, '.') : NULL;

		if (dot && (size_t)(dot - e) == slen && memcmp(e, schema, slen) == 0 &&
		    (strcmp(dot + 1, "*") == 0 || strcmp(dot + 1, rel) == 0))
			return true;
	}
	return false;
}

bool pgv_write_resolve(const struct pgv_policy *p, const char *schema, const char *rel, const char **out_schema)
{
	if (schema) {
		*out_schema = schema;
		return true;
	}
	/*
	 * Postgres writes the table of the first schema of the search_path
	 * that holds one of that name. Which schema that is depends on the
	 * database, so an unqualified name is taken for the first schema the
	 * path lists (pg_catalog's relations aside, which are never written)
	 * and the rewrite names it: the write reaches that table or fails.
	 */
	for (size_t i = 0; i < p->nsearch_path; i++) {
		const char *s = p->search_path[i];

		if (!s || !s[0] || strcmp(s, "pg_catalog") == 0)
			continue;
		if (s[0] == '$')
			return false;
		*out_schema = s;
		return true;
	}
	(void)rel;
	return false;
}

const struct airlock_rule *pgv_write_rule(const struct pgv_policy *p, const char *schema, const char *rel)
{
	size_t slen = strlen(schema);

	for (size_t i = 0; i < p->nrules; i++) {
		const char *t = p->rules[i].table;

		if (strncmp(t, schema, slen) == 0 && t[slen] == '.' && strcmp(t + slen + 1, rel) == 0)
			return &p->rules[i];
	}
	return NULL;
}

bool pgv_write_column_shown(const struct airlock_rule *r, const char *col)
{
	if (!r || !r->has_columns)
		return true;
	for (size_t i = 0; i < r->ncolumns; i++) {
		if (strcmp(r->columns[i].name, col) == 0)
			return r->columns[i].mask == NULL;
	}
	return false;
}

struct cols {
	const struct airlock_rule *rule;
	const char *sql;
	const char *alias; /* the name the statement gives the table (its alias, else its name) */
	struct pgv_result *out;
	bool refused;
};

static void refuse_column(struct cols *c, json_t *at, const char *col)
{
	if (c->refused)
		return;
	c->refused = true;
	pgv_refuse(c->out, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_NONE, pgv_cursor_of(c->sql, at),
		   "a write names only the columns your rule shows unmasked (SHOW airlock.policy lists them)",
		   "column \"%s\" of \"%s\" cannot be written, compared or returned here", col, c->out->target);
}

/*
 * Every column reference in v: its last name must be a column the rule
 * shows unmasked (whichever table it belongs to: a name the table hides is
 * never written beside it), and with a column list neither a star nor the
 * table's whole row may be read.
 */
static void walk_columns(struct cols *c, json_t *v, int depth)
{
	const char *key;
	json_t *val;

	if (c->refused || depth > 200)
		return;
	if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v); i++)
			walk_columns(c, json_array_get(v, i), depth + 1);
		return;
	}
	if (!json_is_object(v))
		return;
	json_object_foreach(v, key, val)
	{
		if (strcmp(key, "ColumnRef") == 0) {
			json_t *fields = json_object_get(val, "fields");
			size_t n = json_array_size(fields);
			json_t *last = json_array_get(fields, n ? n - 1 : 0);
			const char *name = pgv_str(json_object_get(last, "String"), "sval");

			if (json_object_get(last, "A_Star")) {
				if (c->rule && c->rule->has_columns)
					refuse_column(c, val, "*");
			} else if (name && !pgv_write_column_shown(c->rule, name)) {
				refuse_column(c, val, name);
			} else if (name && n == 1 && c->rule && c->rule->has_columns && strcmp(name, c->alias) == 0) {
				refuse_column(c, val, name); /* the whole row */
			}
		}
		walk_columns(c, val, depth + 1);
	}
}

/* The columns an INSERT or UPDATE names (ResTarget name): each one the rule shows unmasked. */
static void target_columns(struct cols *c, json_t *list)
{
	for (size_t i = 0; i < json_array_size(list) && !c->refused; i++) {
		json_t *rt = json_object_get(json_array_get(list, i), "ResTarget");
		const char *name = pgv_str(rt, "name");

		if (name && !pgv_write_column_shown(c->rule, name))
			refuse_column(c, rt, name);
	}
}

static bool refuse_shape(struct pgv_result *out, const char *sql, json_t *at, const char *hint, const char *what)
{
	pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, pgv_cursor_of(sql, at), hint,
		   "%s is not supported in a write", what);
	return false;
}

/* The clauses a write may not have. */
static bool shape(const char *sql, const char *type, json_t *body, struct pgv_result *out)
{
	json_t *where = json_object_get(body, "whereClause");

	if (json_object_get(body, "withClause"))
		return refuse_shape(out, sql, json_object_get(body, "withClause"), "write the reads as subqueries",
				    "WITH");
	if (json_object_get(body, "onConflictClause"))
		return refuse_shape(out, sql, json_object_get(body, "onConflictClause"),
				    "read first, then ask for the INSERT or the UPDATE that applies", "ON CONFLICT");
	if (pgv_str(body, "override") && strcmp(pgv_str(body, "override"), "OVERRIDING_NOT_SET") != 0)
		return refuse_shape(out, sql, NULL, "leave out OVERRIDING", "OVERRIDING");
	if (json_object_get(where, "CurrentOfExpr"))
		return refuse_shape(out, sql, where, "name the rows by their key", "WHERE CURRENT OF");
	if (strcmp(type, "InsertStmt") == 0) {
		json_t *sel = json_object_get(json_object_get(body, "selectStmt"), "SelectStmt");

		if (sel && json_object_get(sel, "withClause"))
			return refuse_shape(out, sql, NULL, "write the reads as subqueries", "WITH");
	}
	return true;
}

static bool target(const struct pgv_policy *policy, const char *sql, json_t *rv, struct pgv_result *out,
		   const char **schema_out, const char **rel_out)
{
	const char *schema = pgv_str(rv, "schemaname"), *rel = pgv_str(rv, "relname"), *s = NULL;
	int at = pgv_cursor_of(sql, rv);

	if (!rel || pgv_str(rv, "catalogname")) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, at, H_WRITE, "unrecognised write");
		return false;
	}
	if (!pgv_write_resolve(policy, schema, rel, &s)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, at, "write the table as schema.table",
			   "the search_path names no schema to write \"%s\" in", rel);
		return false;
	}
	if (!listed(policy->write_tables, policy->nwrite_tables, s, rel) || !pgv_name_allowed(policy, s, rel) ||
	    strcmp(s, "pg_catalog") == 0 || strcmp(s, "information_schema") == 0) {
		pgv_refuse(out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, at, H_WRITE,
			   "table \"%s.%s\" is not one of your write tables", s, rel);
		return false;
	}
	if (snprintf(out->target, sizeof(out->target), "%s.%s", s, rel) >= (int)sizeof(out->target)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, at, NULL, "the table's name is too long");
		return false;
	}
	*schema_out = s;
	*rel_out = rel;
	return true;
}

static enum pgv_kind check(const struct pgv_policy *policy, const char *sql, const char *type, json_t *body,
			   struct pgv_result *out)
{
	json_t *rv = json_object_get(json_object_get(body, "relation"), "RangeVar");
	const char *schema = NULL, *rel = NULL;
	struct cols c = {.sql = sql, .out = out};
	json_t *alias;

	if (!rv)
		rv = json_object_get(body, "relation"); /* libpg_query writes the RangeVar bare here */
	if (!shape(sql, type, body, out) || !target(policy, sql, rv, out, &schema, &rel))
		return out->kind;
	c.rule = pgv_write_rule(policy, schema, rel);
	alias = json_object_get(json_object_get(rv, "alias"), "aliasname");
	c.alias = json_is_string(alias) ? json_string_value(alias) : rel;
	snprintf(out->command, sizeof(out->command), "%s",
		 strcmp(type, "InsertStmt") == 0   ? "INSERT"
		 : strcmp(type, "UpdateStmt") == 0 ? "UPDATE"
						   : "DELETE");
	out->returning = json_array_size(json_object_get(body, "returningList")) > 0;
	if (strcmp(type, "InsertStmt") == 0) {
		json_t *cols = json_object_get(body, "cols");

		if (json_array_size(cols) == 0 && c.rule && c.rule->has_columns &&
		    json_object_get(body, "selectStmt")) {
			pgv_refuse(out, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_NONE, pgv_cursor_of(sql, rv),
				   "name the columns: INSERT INTO t (a, b) VALUES (...)",
				   "an INSERT into \"%s\" must name its columns: your rule shows only some of them",
				   out->target);
			return out->kind;
		}
		target_columns(&c, cols);
	} else if (strcmp(type, "UpdateStmt") == 0) {
		target_columns(&c, json_object_get(body, "targetList"));
	}
	if (!c.refused)
		walk_columns(&c, body, 0);
	if (c.refused)
		return out->kind;
	/* Reads inside the write (subqueries, FROM, USING, INSERT ... SELECT, functions) are checked as reads are. */
	if (!pgv_check_read(policy, sql, body, out))
		return out->kind;
	out->kind = PGV_WRITE;
	return out->kind;
}

enum pgv_kind pgv_write_check(const struct pgv_policy *policy, const char *sql, const char *type, json_t *body,
			      struct pgv_result *out)
{
	if (check(policy, sql, type, body, out) != PGV_WRITE) {
		/* Only a write names its table and command. */
		out->target[0] = out->command[0] = '\0';
		out->returning = false;
	}
	return out->kind;
}
