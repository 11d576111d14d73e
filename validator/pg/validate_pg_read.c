/*
 * validate_pg_read: one walk over the whole JSON parse tree of a read.
 * The walk is generic (every object and array is visited) so that no
 * clause can hide a relation or a function call; a few keys get meaning:
 *
 *   relname        a RangeVar: checked against the allowlist
 *   funcname       a function call: checked against the denylist
 *   withClause     opens a CTE scope for the node that owns it
 *   intoClause     SELECT INTO
 *   lockingClause  FOR UPDATE / SHARE / ...
 *   *Stmt          a statement node other than SelectStmt (data-modifying CTE)
 *
 * CTE scoping follows Postgres: in a plain WITH, CTE i is visible to the
 * CTEs after it and to the query body, not to itself; in WITH RECURSIVE
 * every CTE of the clause is visible in every CTE body and the query body.
 * Scopes nest, so an inner WITH is seen before the outer ones.
 */
#include "validator/pg/validate_pg_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_catalog.h"
#include "validator/pg/validate_pg_funcs.h"
#include "validator/pg/validate_pg_stmt.h"
#include "validator/pg/validate_pg_util.h"

/* Deeper than jansson's own parser limit, so only a safety net. */
#define WALK_MAX_DEPTH 4096

/* Refusal classes, most important first. */
enum vclass {
	V_NONE = 0,
	V_FATAL, /* could not check: too deep, out of memory */
	V_WRITE, /* data-modifying CTE, SELECT INTO, row locks */
	V_FUNC,  /* denied function */
	V_REL,   /* relation outside the allowlist */
};

/* One visible CTE name; scopes chain outwards through up. */
struct scope {
	const char *name;
	const struct scope *up;
};

struct walk {
	const struct pgv_policy *policy;
	const char *sql;
	struct pgv_result *out;
	enum vclass found; /* class of the refusal held in out */
};

static void walk_node(struct walk *w, json_t *v, const struct scope *sc, int depth);

/* True when a refusal of class cls should replace what out holds. */
static bool want(struct walk *w, enum vclass cls)
{
	if (w->found != V_NONE && w->found <= cls)
		return false;
	w->found = cls;
	return true;
}

static bool in_scope(const struct scope *sc, const char *name)
{
	for (; sc; sc = sc->up) {
		if (strcmp(sc->name, name) == 0)
			return true;
	}
	return false;
}

/* Entry "schema.table" or "schema.*"; the schema part ends at the first dot. */
static bool allowed(const struct pgv_policy *p, const char *schema, const char *rel)
{
	size_t slen = strlen(schema), i;

	for (i = 0; i < p->ntables; i++) {
		const char *e = p->tables[i];
		const char *dot;

		if (!e)
			continue;
		dot = strchr(e, '.');
		if (!dot || (size_t)(dot - e) != slen || memcmp(e, schema, slen) != 0)
			continue;
		if (strcmp(dot + 1, "*") == 0 || strcmp(dot + 1, rel) == 0)
			return true;
	}
	return false;
}

/* "<prefix>allowed tables: a, b, c" into out->hint, cut with "..." if long. */
static void allowed_hint(struct pgv_result *out, const struct pgv_policy *p, const char *prefix)
{
	size_t used, i;
	int n;

	if (p->ntables == 0) {
		snprintf(out->hint, sizeof(out->hint), "%sno tables are allowed for this user", prefix);
		return;
	}
	n = snprintf(out->hint, sizeof(out->hint), "%sallowed tables: ", prefix);
	used = n < 0 ? 0 : (size_t)n;
	for (i = 0; i < p->ntables && used < sizeof(out->hint); i++) {
		if (!p->tables[i])
			continue;
		n = snprintf(out->hint + used, sizeof(out->hint) - used, "%s%s", i ? ", " : "", p->tables[i]);
		if (n < 0 || (size_t)n >= sizeof(out->hint) - used) {
			used = sizeof(out->hint);
			break;
		}
		used += (size_t)n;
	}
	if (used >= sizeof(out->hint))
		memcpy(out->hint + sizeof(out->hint) - 4, "...", 4);
}

static void refuse_table(struct walk *w, json_t *rv, const char *shown, const char *prefix)
{
	if (!want(w, V_REL))
		return;
	pgv_refuse(w->out, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_NONE, pgv_cursor_of(w->sql, rv), NULL,
		   "table \"%s\" is not allowed", shown);
	allowed_hint(w->out, w->policy, prefix);
}

static bool path_has(const struct pgv_policy *p, const char *schema)
{
	size_t i;

	for (i = 0; i < p->nsearch_path; i++) {
		if (p->search_path[i] && strcmp(p->search_path[i], schema) == 0)
			return true;
	}
	return false;
}

/*
 * Unqualified relation: walk pg_catalog (implicitly first unless the path
 * names it) and the search_path. pg_catalog's contents are known, so a
 * catalog name stops the walk there; any other schema might hold the name,
 * so every one of them before a stop must allow it.
 */
static void check_unqualified(struct walk *w, json_t *rv, const char *rel)
{
	const struct pgv_policy *p = w->policy;
	bool implicit_catalog = !path_has(p, "pg_catalog");
	const char *bad = NULL, *good = NULL;
	size_t i;

	if (implicit_catalog && pgv_catalog_has_relation(rel)) {
		if (!allowed(p, "pg_catalog", rel))
			refuse_table(w, rv, rel, "");
		return;
	}
	for (i = 0; i < p->nsearch_path; i++) {
		const char *s = p->search_path[i];

		if (!s || s[0] == '\0')
			continue;
		if (strcmp(s, "pg_catalog") == 0) {
			if (!pgv_catalog_has_relation(rel))
				continue;
			if (!allowed(p, s, rel) && !bad)
				bad = s;
			break;
		}
		if (allowed(p, s, rel)) {
			if (!good)
				good = s;
		} else if (!bad) {
			bad = s;
		}
	}
	if (!bad)
		return;
	if (good && want(w, V_REL)) {
		char prefix[256];

		snprintf(prefix, sizeof(prefix),
			 "qualify the name (%s.%s) or change the "
			 "search_path; ",
			 good, rel);
		pgv_refuse(w->out, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_NONE, pgv_cursor_of(w->sql, rv), NULL,
			   "table \"%s\" is not allowed: through the search_path it may "
			   "resolve to schema \"%s\"",
			   rel, bad);
		allowed_hint(w->out, p, prefix);
		return;
	}
	refuse_table(w, rv, rel, "");
}

bool pgv_name_allowed(const struct pgv_policy *p, const char *schema, const char *rel)
{
	bool implicit_catalog = !path_has(p, "pg_catalog");
	size_t i;

	if (schema)
		return allowed(p, schema, rel);
	if (implicit_catalog && pgv_catalog_has_relation(rel))
		return allowed(p, "pg_catalog", rel);
	for (i = 0; i < p->nsearch_path; i++) {
		const char *s = p->search_path[i];

		if (!s || s[0] == '\0')
			continue;
		if (strcmp(s, "pg_catalog") == 0 && !pgv_catalog_has_relation(rel))
			continue;
		if (!allowed(p, s, rel))
			return false;
		if (strcmp(s, "pg_catalog") == 0)
			break;
	}
	return true;
}

static void check_relation(struct walk *w, json_t *rv, const struct scope *sc)
{
	const char *catalog = pgv_str(rv, "catalogname");
	const char *schema = pgv_str(rv, "schemaname");
	const char *rel = pgv_str(rv, "relname");
	char shown[200];

	if (catalog) {
		if (!want(w, V_REL))
			return;
		pgv_refuse(w->out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, pgv_cursor_of(w->sql, rv),
			   "name tables as schema.table; only the current database is reachable",
			   "cross-database reference \"%s.%s.%s\" is not supported", catalog, schema ? schema : "",
			   rel);
		return;
	}
	if (schema) {
		if (allowed(w->policy, schema, rel))
			return;
		snprintf(shown, sizeof(shown), "%s.%s", schema, rel);
		refuse_table(w, rv, shown, "");
		return;
	}
	if (in_scope(sc, rel))
		return;
	check_unqualified(w, rv, rel);
}

bool pgv_world_schema(const struct pgv_policy *p, const char *schema)
{
	size_t slen = strlen(schema), i;

	if (!strcmp(schema, "pg_catalog") || !strcmp(schema, "information_schema"))
		return true;
	for (i = 0; i < p->ntables; i++) {
		const char *e = p->tables[i];
		const char *dot = e ? strchr(e, '.') : NULL;

		if (dot && (size_t)(dot - e) == slen && memcmp(e, schema, slen) == 0)
			return true;
	}
	return false;
}

/*
 * A function qualified by a schema outside the world: refused as Postgres
 * refuses a schema that does not exist. Sent on, the backend would check
 * USAGE first ("permission denied for schema"), or run a function of a
 * schema the agent cannot see.
 */
static bool refuse_foreign_schema(struct walk *w, json_t *call, const char *schema)
{
	if (pgv_world_schema(w->policy, schema))
		return false;
	if (want(w, V_FUNC))
		pgv_refuse(w->out, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_PG_INVALID_SCHEMA_NAME,
			   pgv_cursor_of(w->sql, call), "only the schemas of the allowed tables can be named",
			   "schema \"%s\" does not exist", schema);
	return true;
}

static const char R_DEFINED[] = "it is not a built-in function, and one the database defines runs only when "
				"listed: its body is not checked (it runs with the backend role's grants, past your "
				"tables, row filters and masks)";

/*
 * A built-in function, or one the policy lists. Unqualified, a name that is
 * not built in must be allowed in a schema of the search_path (the
 * scoping then qualifies the call with that schema).
 */
static bool defined_in_catalog(const struct pgv_policy *p, const char *schema, const char *name)
{
	size_t i;

	if (schema)
		return !strcmp(schema, "pg_catalog") || !strcmp(schema, "information_schema") ||
		       pgv_function_allowed(p, schema, name);
	if (pgv_function_builtin(name))
		return true;
	for (i = 0; i < p->nsearch_path; i++) {
		if (p->search_path[i] && pgv_function_allowed(p, p->search_path[i], name))
			return true;
	}
	return false;
}

static void check_function(struct walk *w, json_t *call, json_t *funcname)
{
	size_t n = json_array_size(funcname);
	const char *name, *schema = NULL, *reason;
	char lower[128];

	if (n == 0)
		return;
	name = pgv_str(json_object_get(json_array_get(funcname, n - 1), "String"), "sval");
	if (!name)
		return;
	if (n >= 2)
		schema = pgv_str(json_object_get(json_array_get(funcname, n - 2), "String"), "sval");
	if (schema && refuse_foreign_schema(w, call, schema))
		return;
	pgv_lower_copy(lower, sizeof(lower), name);
	reason = pgv_function_refused(schema, lower);
	if (!reason && !defined_in_catalog(w->policy, schema, name)) {
		if (!want(w, V_FUNC))
			return;
		pgv_refuse(w->out, AIRLOCK_E_FORBIDDEN_FUNCTION, AIRLOCK_N_NONE, pgv_cursor_of(w->sql, call),
			   "a function the database defines runs only when the operator lists it in the user's "
			   "functions",
			   "function %s%s%s() is not allowed: %s", schema ? schema : "", schema ? "." : "", name,
			   R_DEFINED);
		return;
	}
	if (!reason || !want(w, V_FUNC))
		return;
	pgv_refuse(w->out, AIRLOCK_E_FORBIDDEN_FUNCTION, AIRLOCK_N_NONE, pgv_cursor_of(w->sql, call),
		   "remove the call; ordinary read-only functions (including pg_sleep) are fine",
		   "function %s%s%s() is not allowed: %s", schema ? schema : "", schema ? "." : "", name, reason);
}

static void refuse_into(struct walk *w, json_t *into)
{
	if (!want(w, V_WRITE))
		return;
	pgv_refuse(w->out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, pgv_cursor_of(w->sql, json_object_get(into, "rel")),
		   "remove INTO: the rows are returned to you as the query result",
		   "SELECT ... INTO creates a table and is not allowed on a read-only endpoint");
}

static void refuse_locking(struct walk *w, json_t *clauses)
{
	json_t *lc = json_object_get(json_array_get(clauses, 0), "LockingClause");
	static const struct pgv_word strengths[] = {
		{"LCS_FORNOKEYUPDATE", "FOR NO KEY UPDATE"},
		{"LCS_FORSHARE", "FOR SHARE"},
		{"LCS_FORKEYSHARE", "FOR KEY SHARE"},
	};
	const char *shown =
		pgv_enum_word(lc, "strength", strengths, sizeof(strengths) / sizeof(strengths[0]), "FOR UPDATE");

	if (!want(w, V_WRITE))
		return;
	pgv_refuse(w->out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, 0,
		   "remove the FOR UPDATE / FOR SHARE clause; reads need no row locks",
		   "SELECT ... %s locks rows and is not allowed on a read-only endpoint", shown);
}

static void refuse_nested(struct walk *w, const char *type, json_t *body)
{
	char label[96];

	if (!want(w, V_WRITE))
		return;
	pgv_statement_label(type, body, label, sizeof(label));
	pgv_refuse(w->out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, 0,
		   "remove the data-modifying statement; only reads run here",
		   "%s inside a query (e.g. in WITH) is not allowed on a read-only endpoint", label);
}

/* A parse-tree node name for a statement: upper-case start, "Stmt" end. */
static bool is_stmt_type(const char *key)
{
	size_t len = strlen(key);

	return key[0] >= 'A' && key[0] <= 'Z' && len > 4 && strcmp(key + len - 4, "Stmt") == 0;
}

static void walk_fields(struct walk *w, json_t *obj, const struct scope *sc, int depth)
{
	const char *key;
	json_t *val;

	json_object_foreach(obj, key, val)
	{
		if (strcmp(key, "withClause") == 0)
			continue;
		if (strcmp(key, "intoClause") == 0)
			refuse_into(w, val);
		else if (strcmp(key, "lockingClause") == 0)
			refuse_locking(w, val);
		else if (is_stmt_type(key) && strcmp(key, "SelectStmt") != 0)
			refuse_nested(w, key, val);
		walk_node(w, val, sc, depth + 1);
	}
}

static void walk_with(struct walk *w, json_t *obj, json_t *with, const struct scope *sc, int depth)
{
	json_t *ctes = json_object_get(with, "ctes");
	bool recursive = json_is_true(json_object_get(with, "recursive"));
	size_t n = json_array_size(ctes), i;
	struct scope *names;

	if (n == 0) {
		walk_fields(w, obj, sc, depth);
		return;
	}
	names = calloc(n, sizeof(*names));
	if (!names) {
		if (want(w, V_FATAL))
			pgv_refuse(w->out, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, 0, NULL,
				   "out of memory while validating the statement");
		return;
	}
	for (i = 0; i < n; i++) {
		json_t *cte = json_object_get(json_array_get(ctes, i), "CommonTableExpr");
		const char *name = pgv_str(cte, "ctename");

		names[i].name = name ? name : "";
		names[i].up = i ? &names[i - 1] : sc;
	}
	for (i = 0; i < n; i++) {
		const struct scope *body = recursive ? &names[n - 1] : (i ? &names[i - 1] : sc);

		walk_node(w, json_array_get(ctes, i), body, depth + 1);
	}
	walk_fields(w, obj, &names[n - 1], depth);
	free(names);
}

static void walk_node(struct walk *w, json_t *v, const struct scope *sc, int depth)
{
	json_t *funcname, *with;
	size_t i;

	if (depth > WALK_MAX_DEPTH) {
		if (want(w, V_FATAL))
			pgv_refuse(w->out, AIRLOCK_E_TOO_COMPLEX, AIRLOCK_N_NONE, 0, "simplify the statement",
				   "statement is nested too deeply");
		return;
	}
	if (json_is_array(v)) {
		for (i = 0; i < json_array_size(v); i++)
			walk_node(w, json_array_get(v, i), sc, depth + 1);
		return;
	}
	if (!json_is_object(v))
		return;
	if (json_is_string(json_object_get(v, "relname")))
		check_relation(w, v, sc);
	funcname = json_object_get(v, "funcname");
	if (json_is_array(funcname))
		check_function(w, v, funcname);
	with = json_object_get(v, "withClause");
	if (json_is_object(with))
		walk_with(w, v, with, sc, depth);
	else
		walk_fields(w, v, sc, depth);
}

bool pgv_check_read(const struct pgv_policy *policy, const char *sql, json_t *node, struct pgv_result *out)
{
	struct walk w = {.policy = policy, .sql = sql, .out = out, .found = V_NONE};

	walk_node(&w, node, NULL, 0);
	return w.found == V_NONE;
}
