/*
 * policy_view: see policy_view.h.
 */
#include "proxy/policy_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const struct airlock_rule *rule_of(const struct airlock_rule *rules, size_t n, const char *table)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(rules[i].table, table) == 0)
			return &rules[i];
	}
	return NULL;
}

/* "rows filtered; columns a, b, c; masked: c" for a rule; "" when there is none. */
static void describe(const struct airlock_rule *r, char *buf, size_t cap)
{
	size_t used = 0, i;
	bool any_mask = false;

	buf[0] = '\0';
	if (!r)
		return;
	if (r->filter)
		used += (size_t)snprintf(buf + used, cap - used, "rows filtered");
	if (r->has_columns && used < cap) {
		used += (size_t)snprintf(buf + used, cap - used, "%scolumns", used ? "; " : "");
		for (i = 0; i < r->ncolumns && used < cap; i++)
			used += (size_t)snprintf(buf + used, cap - used, "%s %s", i ? "," : "", r->columns[i].name);
		for (i = 0; i < r->ncolumns && used < cap; i++) {
			if (!r->columns[i].mask)
				continue;
			used += (size_t)snprintf(buf + used, cap - used, "%s%s",
						 any_mask ? ", " : "; masked: ", r->columns[i].name);
			any_mask = true;
		}
	}
	if (used >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
}

static void limit_row(policy_row_fn fn, void *arg, const char *name, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	fn(arg, "limit", name, num);
}

void policy_each(const struct airlock_user *u, bool mysql, policy_row_fn fn, void *arg)
{
	char *const *tables = mysql ? u->mysql_tables : u->tables;
	size_t ntables = mysql ? u->nmysql_tables : u->ntables, i;
	const struct airlock_rule *rules = mysql ? u->mysql_rules : u->rules;
	size_t nrules = mysql ? u->nmysql_rules : u->nrules;
	char detail[512];

	fn(arg, "user", u->name, "");
	for (i = 0; i < ntables; i++) {
		describe(rule_of(rules, nrules, tables[i]), detail, sizeof(detail));
		fn(arg, "table", tables[i], detail);
	}
	/* A rule may name a table a schema.* entry allows: list it too. */
	for (i = 0; i < nrules; i++) {
		size_t j;
		bool listed = false;

		for (j = 0; j < ntables && !listed; j++)
			listed = strcmp(tables[j], rules[i].table) == 0;
		if (listed)
			continue;
		describe(&rules[i], detail, sizeof(detail));
		fn(arg, "table", rules[i].table, detail);
	}
	/* The tables it may write with approval, on this protocol's write target. */
	if (mysql ? u->mysql_write_target != NULL : u->write_target != NULL) {
		char *const *writes = mysql ? u->mysql_write_tables : u->write_tables;
		size_t nwrites = mysql ? u->nmysql_write_tables : u->nwrite_tables;

		for (i = 0; i < nwrites; i++)
			fn(arg, "write", writes[i], "held until a person approves it");
		limit_row(fn, arg, "max_write_rows", u->max_write_rows);
	}
	limit_row(fn, arg, "max_rows", u->limits.max_rows);
	limit_row(fn, arg, "max_bytes", u->limits.max_bytes);
	limit_row(fn, arg, "timeout_ms", u->limits.timeout_ms);
	if (u->limits.max_cost)
		limit_row(fn, arg, "max_cost", u->limits.max_cost);
	limit_row(fn, arg, "max_jobs", u->max_jobs);
	if (u->forbid_select_star)
		fn(arg, "limit", "forbid_select_star", "on");
}
