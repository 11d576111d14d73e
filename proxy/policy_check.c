/*
 * policy_check: see policy_check.h. Each expression is put into the
 * statement shape the rewrite gives it (a WHERE clause, or one projected
 * column of the table) and validated, then scoped, exactly as an agent's
 * own statement would be; any refusal is reported with the validator's
 * own message.
 */
#include "proxy/policy_check.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "validator/mysql/validate_my.h"
#include "validator/pg/validate_pg.h"
#include "validator/pg/validate_pg_read.h"
#include "validator/pg/validate_pg_scope.h"

__attribute__((format(printf, 2, 3))) static void add(struct config_errors *errs, const char *fmt, ...)
{
	va_list ap;

	if (errs->n >= CONFIG_MAX_ERRORS)
		return;
	va_start(ap, fmt);
	vsnprintf(errs->msg[errs->n++], sizeof(errs->msg[0]), fmt, ap);
	va_end(ap);
}

/* "schema"."table" of "schema.table" into buf. */
static void quoted_table(const char *table, char q, char *buf, size_t cap)
{
	const char *dot = strchr(table, '.');

	snprintf(buf, cap, "%c%.*s%c.%c%s%c", q, dot ? (int)(dot - table) : 0, table, q, q, dot ? dot + 1 : table, q);
}

/* One protocol's way of checking a rule's SQL for one user. */
struct checker {
	bool (*statement_ok)(const void *pol, const char *sql, char *why, size_t cap);
	const void *pol;
	char quote;         /* the protocol's identifier quote */
	const char *prefix; /* "" or "mysql_": how the rule keys are named */
	const char *user;
	struct config_errors *errs;
};

/* expr in the shapes the rewrite gives it: one projected expression (so it is one expression), and a WHERE clause. */
static void check_expr(const struct checker *c, const char *what, const char *table, const char *expr, bool where)
{
	char qt[300], why[512], *sql;
	size_t n;
	bool ok;

	quoted_table(table, c->quote, qt, sizeof(qt));
	n = strlen(expr) + strlen(qt) + 64;
	sql = malloc(n);
	if (!sql) {
		add(c->errs, "out of memory");
		return;
	}
	snprintf(sql, n, "SELECT (%s\n) FROM %s", expr, qt);
	ok = c->statement_ok(c->pol, sql, why, sizeof(why));
	if (ok && where) {
		snprintf(sql, n, "SELECT 1 FROM %s WHERE (%s\n)", qt, expr);
		ok = c->statement_ok(c->pol, sql, why, sizeof(why));
	}
	if (!ok)
		add(c->errs, "[user %s] %s%s %s: %s", c->user, c->prefix, what, table, why);
	free(sql);
}

/* The filter and the masks of one rule. */
static void check_rule_sql(const struct checker *c, const struct airlock_rule *r)
{
	size_t j;

	if (r->filter)
		check_expr(c, "filter", r->table, r->filter, true);
	for (j = 0; j < r->ncolumns; j++) {
		char what[96];

		if (!r->columns[j].mask)
			continue;
		snprintf(what, sizeof(what), "mask of %.60s in", r->columns[j].name);
		check_expr(c, what, r->table, r->columns[j].mask, false);
	}
}

/* ---- Postgres ---- */

static bool pg_statement_ok(const void *arg, const char *sql, char *why, size_t cap)
{
	const struct pgv_policy *pol = arg;
	struct pgv_result r;
	char *scoped = NULL;

	if (pgv_validate(pol, sql, &r) != PGV_READ) {
		snprintf(why, cap, "%s", r.kind == PGV_REFUSED ? r.message : "not a read");
		return false;
	}
	if (pgv_scope(pol, sql, &scoped, &r) != PGV_READ) {
		snprintf(why, cap, "%s", r.message);
		return false;
	}
	free(scoped);
	return true;
}

static void pg_check_user(const struct airlock_user *u, struct config_errors *errs)
{
	static const char *const path[] = {"public"};
	const struct pgv_policy pol = {
		.tables = (const char *const *)u->tables,
		.ntables = u->ntables,
		.search_path = path,
		.nsearch_path = 1,
		.user = u->name,
		.functions = (const char *const *)u->functions,
		.nfunctions = u->nfunctions,
	};
	const struct checker c = {pg_statement_ok, &pol, '"', "", u->name, errs};
	size_t i;

	for (i = 0; i < u->nrules; i++) {
		const struct airlock_rule *r = &u->rules[i];
		const char *dot = strchr(r->table, '.');
		char schema[128];

		snprintf(schema, sizeof(schema), "%.*s", dot ? (int)(dot - r->table) : 0, r->table);
		if (!strcmp(schema, "pg_catalog") || !strcmp(schema, "information_schema")) {
			add(errs, "[user %s] a rule names %s: the catalogs are scoped by airlock, not by rules",
			    u->name, r->table);
			continue;
		}
		if (!dot || !pgv_name_allowed(&pol, schema, dot + 1)) {
			add(errs, "[user %s] a rule names %s, which is not in its tables", u->name, r->table);
			continue;
		}
		check_rule_sql(&c, r);
	}
}

/* ---- MySQL ---- */

static bool my_statement_ok(const void *arg, const char *sql, char *why, size_t cap)
{
	const struct vmy_policy *pol = arg;
	struct vmy_result *r = malloc(sizeof(*r));
	bool ok;

	if (!r) {
		snprintf(why, cap, "out of memory");
		return false;
	}
	vmy_validate(pol, sql, strlen(sql), r);
	ok = r->kind == VMY_READ;
	if (!ok)
		snprintf(why, cap, "%s", r->kind == VMY_REFUSED ? r->message : "not a read");
	free(r);
	return ok;
}

static void my_check_user(const struct airlock_user *u, struct config_errors *errs)
{
	const struct vmy_policy pol = {
		.user = u->name,
		.database = u->mysql_database,
		.tables = (const char *const *)u->mysql_tables,
		.ntables = u->nmysql_tables,
		.allow_sleep = u->mysql_allow_sleep,
		.allow_benchmark = u->mysql_allow_benchmark,
	};
	const struct checker c = {my_statement_ok, &pol, '`', "mysql_", u->name, errs};
	size_t i;

	for (i = 0; i < u->nmysql_rules; i++) {
		const struct airlock_rule *r = &u->mysql_rules[i];
		char qt[300], sql[400], why[512];

		if (strncasecmp(r->table, "information_schema.", 19) == 0) {
			add(errs, "[user %s] a mysql rule names %s: the catalogs are scoped by airlock, not by rules",
			    u->name, r->table);
			continue;
		}
		quoted_table(r->table, '`', qt, sizeof(qt));
		snprintf(sql, sizeof(sql), "SELECT 1 FROM %s", qt);
		if (!my_statement_ok(&pol, sql, why, sizeof(why))) {
			add(errs, "[user %s] a mysql rule names %s, which is not in its mysql_tables", u->name,
			    r->table);
			continue;
		}
		check_rule_sql(&c, r);
	}
}

bool policy_check(const struct airlock_config *cfg, struct config_errors *errs)
{
	size_t before = errs->n, i;

	for (i = 0; i < cfg->nusers; i++) {
		pg_check_user(&cfg->users[i], errs);
		my_check_user(&cfg->users[i], errs);
	}
	return errs->n == before;
}

size_t policy_warnings(const struct airlock_config *cfg, struct config_errors *out)
{
	size_t before = out->n;

	for (size_t i = 0; i < cfg->nusers; i++) {
		const struct airlock_user *u = &cfg->users[i];

		if (u->limits.max_cost && u->nmysql_rules)
			add(out,
			    "[user %s] max_cost and MySQL rules: MariaDB gives no cost for a read of a ruled table "
			    "(%.64s%s), so each is refused with COST_LIMIT",
			    u->name, u->mysql_rules[0].table, u->nmysql_rules > 1 ? ", ..." : "");
	}
	return out->n - before;
}

static void print_rules(FILE *out, const char *user, const char *proto, const struct airlock_rule *rules, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const struct airlock_rule *r = &rules[i];

		fprintf(out, "  user %s, %s table %s:", user, proto, r->table);
		if (r->filter)
			fprintf(out, " rows where %s;", r->filter);
		if (!r->has_columns) {
			fprintf(out, " every column\n");
			continue;
		}
		fprintf(out, " columns");
		for (j = 0; j < r->ncolumns; j++)
			fprintf(out, "%s %s%s", j ? "," : "", r->columns[j].name,
				r->columns[j].mask ? " (masked)" : "");
		fprintf(out, "\n");
	}
}

void policy_print(const struct airlock_config *cfg, FILE *out)
{
	size_t i;

	for (i = 0; i < cfg->nusers; i++) {
		print_rules(out, cfg->users[i].name, "postgres", cfg->users[i].rules, cfg->users[i].nrules);
		print_rules(out, cfg->users[i].name, "mysql", cfg->users[i].mysql_rules, cfg->users[i].nmysql_rules);
	}
}
