/*
 * validate_pg_scope_rules: row filters and column policies. A reference to
 * a table the user has a rule for becomes
 *
 *   (SELECT <columns, masks in their place> FROM ONLY? schema.table
 *    WHERE (<filter>) OFFSET 0) AS <the reference's name or alias>
 *
 * so every reading path (joins, subqueries, CTEs, LATERAL, set operations,
 * cursors, prepared statements) sees the same rows and columns. The rule's
 * SQL was checked against the user's policy when the configuration loaded
 * (proxy/policy_check.c); each expression is followed by a newline so a
 * trailing "--" comment cannot swallow the rest of the template.
 *
 * A rule means what the operator wrote only under the settings it was
 * written for: a mask created_at::date shows the hour of each row to an
 * agent that tries one TimeZone after another, a filter created_at <
 * '01/02/2024' keeps other rows under DateStyle DMY. The settings a
 * session may change that turn text into values or values into text are
 * therefore held at the database's defaults (pg_settings.reset_val: the
 * runner sets the session's own values for its transaction only) while
 * a rule's table is read: the WHERE starts with a check that holds no
 * column, so Postgres runs it once, before the scan, and it fails the
 * statement naming the settings to reset. Names in a rule resolve through
 * the search_path, so a rule's table is read only under the default one.
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

/* Settings whose value may change what a rule's expressions mean (see the head of the file). */
#define RULE_SETTINGS                                                                                     \
	"'TimeZone', 'DateStyle', 'IntervalStyle', 'bytea_output', 'extra_float_digits', 'lc_monetary', " \
	"'lc_numeric', 'lc_time'"

/* Time zones that are all UTC: the proxy's default spelling and the database's may differ. */
#define UTC_NAMES "'utc', 'etc/utc', 'uct', 'etc/uct', 'universal', 'etc/universal', 'zulu', 'etc/zulu'"

/*
 * True when every setting of RULE_SETTINGS is at its reset value (extra_float_digits:
 * any two positive values print alike; TimeZone: spelt alike, or both UTC); otherwise an
 * error that names the settings to reset (a cast the planner cannot fold, as its
 * text holds current_setting()).
 */
const char pgv_scope_settings_check[] =
	"(SELECT CASE WHEN ad.n IS NULL THEN true ELSE ('RULE_SETTINGS: reset ' || ad.n || ' (SET name TO"
	" DEFAULT) to read a table with a row filter or column mask: its rules are read under the database''s"
	" defaults' || pg_catalog.left(pg_catalog.current_setting('TimeZone'), 0))::pg_catalog.int4 = 0 END"
	" FROM (SELECT pg_catalog.string_agg(ag.name, ', ') AS n FROM pg_catalog.pg_settings ag"
	" WHERE ag.name IN (" RULE_SETTINGS ") AND ag.setting IS DISTINCT FROM ag.reset_val"
	" AND NOT (CASE WHEN ag.name = 'extra_float_digits' THEN ag.setting::pg_catalog.int4 > 0"
	" AND ag.reset_val::pg_catalog.int4 > 0 WHEN ag.name = 'TimeZone' THEN"
	" pg_catalog.lower(ag.setting) = pg_catalog.lower(ag.reset_val) OR (pg_catalog.lower(ag.setting) IN"
	" (" UTC_NAMES ") AND pg_catalog.lower(ag.reset_val) IN (" UTC_NAMES ")) ELSE false END)) ad)";

/* The session's search_path is the default one ("public" alone). */
bool pgv_scope_default_path(const struct pgv_policy *p)
{
	return p->nsearch_path == 1 && p->search_path[0] && strcmp(p->search_path[0], "public") == 0;
}

void pgv_scope_rules_relation(struct pgv_scope *sc, PgQuery__Node *node)
{
	const PgQuery__RangeVar *rv = node->range_var;
	const struct airlock_rule *r;
	const char *schema = NULL;
	struct pgv_sbuf sb = PGV_SCOPE_SBUF(sc);

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
	if (!pgv_scope_default_path(sc->policy)) {
		pgv_scope_refuse(sc, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, rv->location, "SET search_path TO DEFAULT",
				 "table \"%s\" has a row filter or column mask, whose names resolve through the "
				 "search_path: it is read only under the default search_path (public)",
				 rv->relname);
		return;
	}
	sc->ruled = true;
	pgv_sb_put(&sb, "SELECT * FROM (SELECT ");
	put_columns(&sb, r);
	pgv_sb_put(&sb, " FROM ");
	pgv_sb_put(&sb, rv->inh ? "" : "ONLY ");
	pgv_sb_ident(&sb, schema);
	pgv_sb_put(&sb, ".");
	pgv_sb_ident(&sb, rv->relname);
	pgv_sb_put(&sb, " WHERE ");
	pgv_sb_put(&sb, pgv_scope_settings_check);
	if (r->filter) {
		pgv_sb_put(&sb, " AND (");
		pgv_sb_put(&sb, r->filter);
		pgv_sb_put(&sb, "\n)");
	}
	pgv_sb_put(&sb, PGV_SCOPE_FENCE ")");
	pgv_scope_replace_relation(sc, node, &sb, "a rule's template has an unexpected shape");
}
