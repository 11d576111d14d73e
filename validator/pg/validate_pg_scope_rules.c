/*
 * validate_pg_scope_rules: row filters and column policies. A reference to
 * a table the user has a rule for becomes
 *
 *   (SELECT <columns, masks in their place> FROM ONLY? schema.table
 *    WHERE (<filter>)) AS <the reference's name or alias>
 *
 * so every reading path (joins, subqueries, CTEs, LATERAL, set operations,
 * cursors, prepared statements) sees the same rows and columns. The rule's
 * SQL was checked against the user's policy when the configuration loaded
 * (proxy/policy_check.c); each expression is followed by a newline so a
 * trailing "--" comment cannot swallow the rest of the template.
 */
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "validator/pg/validate_pg_scope_int.h"
#include "validator/pg/validate_pg_scope_sql.h"

static const struct airlock_rule *find_rule(const struct pgv_policy *p, const char *schema, const char *rel)
{
	size_t slen = strlen(schema), i;

	for (i = 0; i < p->nrules; i++) {
		const char *t = p->rules[i].table;

		if (strncmp(t, schema, slen) == 0 && t[slen] == '.' && strcmp(t + slen + 1, rel) == 0)
			return &p->rules[i];
	}
	return NULL;
}

/*
 * The rule an unqualified name reaches: the first search_path schema
 * (pg_catalog aside: its relations are catalogs) whose rule names the
 * table. When a schema before it is listed, that schema could hold a table
 * of the same name and Postgres would read that one instead: refused.
 */
static const struct airlock_rule *resolve(struct pgv_scope *sc, const PgQuery__RangeVar *rv, const char **schema)
{
	const struct pgv_policy *p = sc->policy;
	const struct airlock_rule *r;
	size_t i, before = 0;

	for (i = 0; i < p->nsearch_path; i++) {
		const char *s = p->search_path[i];

		if (!s || !s[0] || strcmp(s, "pg_catalog") == 0)
			continue;
		r = find_rule(p, s, rv->relname);
		if (!r) {
			before++;
			continue;
		}
		if (before) {
			pgv_scope_refuse(
				sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, rv->location,
				"write the table as schema.table",
				"table \"%s\" must be schema-qualified: search_path lists other schemas before "
				"\"%s\"",
				rv->relname, s);
			return NULL;
		}
		*schema = s;
		return r;
	}
	return NULL;
}

static void put_columns(struct pgv_sbuf *sb, const struct airlock_rule *r)
{
	size_t i;

	if (!r->has_columns) {
		pgv_sb_put(sb, "*");
		return;
	}
	for (i = 0; i < r->ncolumns; i++) {
		pgv_sb_put(sb, i ? ", " : "");
		if (r->columns[i].mask) {
			pgv_sb_put(sb, "(");
			pgv_sb_put(sb, r->columns[i].mask);
			pgv_sb_put(sb, "\n) AS ");
		}
		pgv_sb_ident(sb, r->columns[i].name);
	}
}

void pgv_scope_rules_relation(struct pgv_scope *sc, PgQuery__Node *node)
{
	const PgQuery__RangeVar *rv = node->range_var;
	const struct airlock_rule *r;
	const char *schema = NULL;
	struct pgv_sbuf sb = {0};

	if (sc->policy->nrules == 0)
		return;
	if (rv->schemaname && rv->schemaname[0]) {
		schema = rv->schemaname;
		r = find_rule(sc->policy, schema, rv->relname);
	} else {
		r = resolve(sc, rv, &schema);
		for (size_t i = 0; r && i < sc->nctes; i++) {
			/* CTE names are collected flat, not by scope: the name may be the table or the CTE. */
			if (strcmp(sc->ctes[i], rv->relname) == 0) {
				pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, rv->location,
						 "give the CTE a name of its own, or write the table as schema.table",
						 "WITH query \"%s\" has the name of a filtered table", rv->relname);
				return;
			}
		}
	}
	if (!r)
		return;
	sc->ruled = true;
	pgv_sb_put(&sb, "SELECT * FROM (SELECT ");
	put_columns(&sb, r);
	pgv_sb_put(&sb, " FROM ");
	pgv_sb_put(&sb, rv->inh ? "" : "ONLY ");
	pgv_sb_ident(&sb, schema);
	pgv_sb_put(&sb, ".");
	pgv_sb_ident(&sb, rv->relname);
	if (r->filter) {
		pgv_sb_put(&sb, " WHERE (");
		pgv_sb_put(&sb, r->filter);
		pgv_sb_put(&sb, "\n)");
	}
	pgv_sb_put(&sb, ")");
	pgv_scope_replace_relation(sc, node, &sb, "a rule's template has an unexpected shape");
}
