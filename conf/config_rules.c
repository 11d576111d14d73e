/*
 * config_rules: the filter, columns and mask keys of a [user] section
 * (and their mysql_ twins). Each names its table after the key:
 *
 *   filter public.orders = customer_id <= 100
 *   columns public.customers = id, name, email
 *   mask public.customers.email = left(email, 1) || '***@' || split_part(email, '@', 2)
 *
 * One rule per table collects the three; each may be set once per table
 * (per column for masks), and a mask needs its column in the table's
 * columns, listed before it. Here the names and the shape are checked; the
 * SQL itself is checked by the validators when the configuration is put
 * to use (proxy/policy_check.c). Everything stored is owned by the user.
 */
#define _GNU_SOURCE
#include "conf/config_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(base, off, type) ((type *)(void *)((char *)(base) + (off)))

void conf_free_rules(struct airlock_rule *rules, size_t count)
{
	size_t i, j;

	for (i = 0; i < count; i++) {
		free(rules[i].table);
		free(rules[i].filter);
		for (j = 0; j < rules[i].ncolumns; j++) {
			free(rules[i].columns[j].name);
			free(rules[i].columns[j].mask);
		}
		free(rules[i].columns);
	}
	free(rules);
}

/* A column name: a letter or '_', then letters, digits, '_' or '$' (63 at most). */
static bool valid_column(const char *s)
{
	size_t i;

	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (i = 1; s[i]; i++) {
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$') || i >= 63)
			return false;
	}
	return true;
}

/* The rule for table (normalised), appended when new; NULL when memory ran out. */
static struct airlock_rule *rule_for(struct airlock_rule **rules, size_t *n, char *table)
{
	struct airlock_rule *grown;
	size_t i;

	for (i = 0; i < *n; i++) {
		if (strcmp((*rules)[i].table, table) == 0) {
			free(table);
			return &(*rules)[i];
		}
	}
	grown = realloc(*rules, (*n + 1) * sizeof(**rules));
	if (!grown) {
		free(table);
		return NULL;
	}
	*rules = grown;
	memset(&grown[*n], 0, sizeof(grown[*n]));
	grown[*n].table = table;
	return &grown[(*n)++];
}

static void set_columns(struct conf_ctx *ctx, struct airlock_rule *r, const char *label, const struct conf_key *k,
			const char *value)
{
	char **items = NULL, *bad = NULL;
	size_t n = 0, i, j;
	int rc = conf_list_append(value, &items, &n, NULL, &bad);

	if (rc == -2) {
		conf_err(ctx, ctx->line, "out of memory");
		goto out;
	}
	if (rc < 0 || n == 0) {
		conf_err(ctx, ctx->line, "%s %s%s has an empty entry; expected a comma-separated list of column names",
			 label, k->name, r->table);
		goto out;
	}
	r->columns = calloc(n, sizeof(*r->columns));
	if (!r->columns) {
		conf_err(ctx, ctx->line, "out of memory");
		goto out;
	}
	r->has_columns = true;
	for (i = 0; i < n; i++) {
		if (!valid_column(items[i])) {
			conf_err(ctx, ctx->line, "%s %s%s: \"%.40s\" is not a column name", label, k->name, r->table,
				 items[i]);
			goto out;
		}
		for (j = 0; j < i; j++) {
			if (strcmp(items[i], r->columns[j].name) == 0) {
				conf_err(ctx, ctx->line, "%s %s%s lists %s twice", label, k->name, r->table, items[i]);
				goto out;
			}
		}
		r->columns[i].name = items[i];
		items[i] = NULL;
		r->ncolumns++;
	}
out:
	conf_free_list(items, n);
	free(bad);
}

static void set_mask(struct conf_ctx *ctx, struct airlock_rule *r, const char *label, const struct conf_key *k,
		     const char *column, const char *value)
{
	size_t i;

	for (i = 0; i < r->ncolumns; i++) {
		if (strcmp(r->columns[i].name, column) != 0)
			continue;
		if (r->columns[i].mask) {
			conf_err(ctx, ctx->line, "%s %s%s.%s is set twice", label, k->name, r->table, column);
			return;
		}
		r->columns[i].mask = strdup(value);
		if (!r->columns[i].mask)
			conf_err(ctx, ctx->line, "out of memory");
		return;
	}
	conf_err(ctx, ctx->line, "%s %s%s.%s: %s is not in the table's columns; list it first (%scolumns %s = ...)",
		 label, k->name, r->table, column, column, k->off3 ? "mysql_" : "", r->table);
}

void conf_set_rule(struct conf_ctx *ctx, const struct conf_key *k, void *base, const char *label, const char *value)
{
	struct airlock_rule **rules = FIELD(base, k->off, struct airlock_rule *);
	size_t *n = FIELD(base, k->off2, size_t);
	const char *suffix = ctx->key_suffix ? ctx->key_suffix : "";
	char *name = strdup(suffix), *column = NULL, *table;
	struct airlock_rule *r;
	bool oom = false;

	if (!name) {
		conf_err(ctx, ctx->line, "out of memory");
		return;
	}
	if (k->type == CT_RULE_MASK) {
		column = strrchr(name, '.');
		if (!column || !valid_column(column + 1)) {
			conf_err(ctx, ctx->line, "%s %s%s: expected %s", label, k->name, suffix, k->expect);
			free(name);
			return;
		}
		*column++ = '\0';
	}
	table = k->off3 ? conf_mysql_table(name, &oom) : conf_normalise_table(name, &oom);
	if (!table || strchr(table, '*')) {
		if (oom)
			conf_err(ctx, ctx->line, "out of memory");
		else
			conf_err(ctx, ctx->line, "%s %s%s: \"%.40s\" is not a table; expected %s", label, k->name,
				 suffix, name, k->expect);
		free(table);
		free(name);
		return;
	}
	r = rule_for(rules, n, table);
	if (!r) {
		conf_err(ctx, ctx->line, "out of memory");
	} else if (!conf_valid_text(value) || !*value) {
		conf_err(ctx, ctx->line, "%s %s%s: expected %s", label, k->name, suffix, k->expect);
	} else if (k->type == CT_RULE_FILTER) {
		if (r->filter)
			conf_err(ctx, ctx->line, "%s %s%s is set twice", label, k->name, r->table);
		else if (!(r->filter = strdup(value)))
			conf_err(ctx, ctx->line, "out of memory");
	} else if (k->type == CT_RULE_COLUMNS) {
		if (r->has_columns)
			conf_err(ctx, ctx->line, "%s %s%s is set twice", label, k->name, r->table);
		else
			set_columns(ctx, r, label, k, value);
	} else {
		set_mask(ctx, r, label, k, column, value);
	}
	free(name);
}
