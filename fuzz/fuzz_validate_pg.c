/*
 * fuzz_validate_pg: libFuzzer target for the Postgres statement validator
 * and the scoping rewrite. Each input, copied and NUL-terminated, is
 * validated under each of three policies equal to the demo's users
 * (integration/tools/lib.sh, write_config): "agent" (three tables and the
 * catalogs, no rules), "support" (two tables, a row filter on orders,
 * a column list with a mask on customers) and "support" again with
 * forbid_select_star (a read refused for its star must pass without it,
 * and the read its hint describes must scope). The result's strings must be
 * terminated and its kind in range. Then, as the proxy runs it:
 *   - a read is scoped (validate_pg_scope.h), and so is a DECLARE's query
 *     from the offset the result gives;
 *   - a COPY's read is scoped and the COPY written around it must
 *     validate again as a COPY (proxy/pg/pg_query.c, run_copy).
 * A refusal must carry a code. A rewrite must validate again as a read
 * under the same policy, and libpg_query must deparse it stably: parsed
 * and deparsed it comes back as it is, and parsed and deparsed again the
 * same (texts libpg_query itself cannot parse or deparse are skipped); the
 * runner's guard read (validate_pg_guard.h), when there is one, parses. The
 * kind's bound comes from the enum (PGV_NKINDS), so new kinds need no
 * change here.
 */
#define _GNU_SOURCE
#include <pg_query.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "validator/pg/validate_pg.h"
#include "validator/pg/validate_pg_write.h"
#include "validator/pg/validate_pg_scope.h"

/* The session's search_path when the client sets none (proxy/pg/pg_settings.c). */
static const char *const path[] = {"public"};

static const char *const agent_tables[] = {
	"public.orders", "public.customers", "public.products", "pg_catalog.*", "information_schema.*",
};

/* Functions the database defines that agent may call: listed calls are qualified with their schema. */
static const char *const agent_functions[] = {"public.order_total", "public.*"};

static const char *const support_tables[] = {
	"public.orders",
	"public.customers",
	"pg_catalog.*",
	"information_schema.*",
};
static struct airlock_column support_columns[] = {
	{"id", NULL},
	{"name", NULL},
	{"email", "left(email, 1) || '***@' || split_part(email, '@', 2)"},
};
static const struct airlock_rule support_rules[] = {
	{.table = "public.orders", .filter = "customer_id <= 100"},
	{.table = "public.customers", .columns = support_columns, .ncolumns = 3, .has_columns = true},
};

static const char *const support_writes[] = {"public.orders", "public.customers"};

static const struct pgv_policy policies[] = {
	{
		.tables = agent_tables,
		.ntables = sizeof(agent_tables) / sizeof(agent_tables[0]),
		.search_path = path,
		.nsearch_path = 1,
		.user = "agent",
		.functions = agent_functions,
		.nfunctions = sizeof(agent_functions) / sizeof(agent_functions[0]),
	},
	{
		.tables = support_tables,
		.ntables = sizeof(support_tables) / sizeof(support_tables[0]),
		.search_path = path,
		.nsearch_path = 1,
		.user = "support",
		.rules = support_rules,
		.nrules = sizeof(support_rules) / sizeof(support_rules[0]),
		.write_tables = support_writes,
		.nwrite_tables = sizeof(support_writes) / sizeof(support_writes[0]),
	},
	{
		/* "support" with forbid_select_star: a star read is refused, and the read its hint describes runs. */
		.tables = support_tables,
		.ntables = sizeof(support_tables) / sizeof(support_tables[0]),
		.search_path = path,
		.nsearch_path = 1,
		.user = "support",
		.rules = support_rules,
		.nrules = sizeof(support_rules) / sizeof(support_rules[0]),
		.forbid_star = true,
	},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_result(const struct pgv_result *r)
{
	if ((unsigned)r->kind >= PGV_NKINDS)
		abort();
	if (memchr(r->message, '\0', sizeof(r->message)) == NULL || memchr(r->hint, '\0', sizeof(r->hint)) == NULL ||
	    memchr(r->name, '\0', sizeof(r->name)) == NULL || memchr(r->value, '\0', sizeof(r->value)) == NULL ||
	    memchr(r->copy_query, '\0', sizeof(r->copy_query)) == NULL ||
	    memchr(r->copy_options, '\0', sizeof(r->copy_options)) == NULL ||
	    memchr(r->star_read, '\0', sizeof(r->star_read)) == NULL)
		abort();
	/* What the channel refuses: only a SELECT_STAR refusal names a read for its hint. */
	if (r->star_read[0] && (r->kind != PGV_REFUSED || r->code != AIRLOCK_E_SELECT_STAR))
		abort();
	if (r->kind == PGV_REFUSED &&
	    (r->code == AIRLOCK_E_NONE || r->code >= AIRLOCK_E_COUNT || strlen(r->sqlstate) != 5))
		abort();
	/* What the channel refuses: only a write names a table and a command. */
	if ((r->kind == PGV_WRITE) != (r->target[0] != '\0') || (r->kind == PGV_WRITE) != (r->command[0] != '\0'))
		abort();
}

/* Parses text and deparses the tree; NULL when libpg_query refuses either step. */
static char *reparse(const char *text)
{
	PgQueryProtobufParseResult p = pg_query_parse_protobuf(text);
	PgQueryDeparseResult d;
	char *out = NULL;

	if (p.error) {
		pg_query_free_protobuf_parse_result(p);
		return NULL;
	}
	d = pg_query_deparse_protobuf(p.parse_tree);
	pg_query_free_protobuf_parse_result(p);
	if (!d.error && d.query)
		out = strdup(d.query);
	pg_query_free_deparse_result(d);
	return out;
}

/*
 * The rewrite is libpg_query's deparse of the tree the scoping changed. Parsed
 * and deparsed, it must come back unchanged (a node grafted where the grammar
 * never puts one prints as something else, or crashes the deparser), and
 * parsed and deparsed again, the same.
 */
static void check_deparse(const char *text)
{
	char *first = reparse(text), *second;

	if (!first)
		return;
	second = reparse(first);
	if (strcmp(first, text) != 0 || (second && strcmp(first, second) != 0)) {
		fprintf(stderr, "deparse is not stable:\n--- rewrite\n%s\n--- first\n%s\n--- second\n%s\n", text, first,
			second ? second : "(libpg_query refused it)");
		abort();
	}
	free(first);
	free(second);
}

/*
 * Scopes a read as the proxy does. Returns what runs (heap: the rewrite,
 * or a copy of sql when it runs as written), or NULL when it is refused.
 */
static char *check_scope(const struct pgv_policy *pol, const char *sql)
{
	struct pgv_result r, again;
	char *out = NULL, *guard = NULL;

	if (pgv_scope_guarded(pol, sql, &out, &guard, &r) == PGV_REFUSED) {
		if (out || guard || r.code == AIRLOCK_E_NONE || r.code >= AIRLOCK_E_COUNT || strlen(r.sqlstate) != 5)
			abort();
		return NULL;
	}
	if (r.kind != PGV_READ)
		abort();
	/* The guard the runner sends is one read that parses. */
	if (guard) {
		PgQueryParseResult pr = pg_query_parse(guard);

		if (pr.error) {
			fprintf(stderr, "the guard does not parse (%s):\n%s\n", pr.error->message, guard);
			abort();
		}
		pg_query_free_parse_result(pr);
		free(guard);
	}
	if (!out)
		return strdup(sql);
	if (pgv_validate(pol, out, &again) != PGV_READ) {
		fprintf(stderr, "the rewrite does not validate as a read (%s):\n%s\n", again.message, out);
		abort();
	}
	check_deparse(out);
	return out;
}

/*
 * The dry run's variant of a write's text (validate_pg_write.h): when it
 * is made, one statement of the same command that parses.
 */
static void check_sample(const struct pgv_policy *pol, const char *text, const struct pgv_result *r)
{
	static const char *const kinds[][2] = {
		{"INSERT", "\"InsertStmt\""}, {"UPDATE", "\"UpdateStmt\""}, {"DELETE", "\"DeleteStmt\""}};
	char *sample = pgv_write_sample(pol, text, r);
	PgQueryParseResult pr;
	const char *kind = NULL, *first;

	if (!sample)
		return;
	for (size_t i = 0; i < 3; i++)
		if (strcmp(r->command, kinds[i][0]) == 0)
			kind = kinds[i][1];
	pr = pg_query_parse(sample);
	first = pr.error ? NULL : strstr(pr.parse_tree, "{\"stmt\":");
	if (!first || !kind || !strstr(pr.parse_tree, kind) || strstr(first + 1, "{\"stmt\":")) {
		fprintf(stderr, "the dry run's variant is not one %s:\n%s\n", r->command, sample);
		abort();
	}
	pg_query_free_parse_result(pr);
	free(sample);
}

/*
 * A write made into what runs, as the proxy will: one write of the same
 * table that validates again (its rules aside: the filter and check name
 * what a rule hides), with a guard that parses and a stable deparse.
 */
static void check_write(const struct pgv_policy *pol, const char *sql, const struct pgv_result *first)
{
	struct pgv_policy bare = *pol;
	struct pgv_result r, again;
	char *out = NULL, *guard = NULL;

	if (pgv_write_scope(pol, sql, &out, &guard, &r) == PGV_REFUSED) {
		if (out || guard || r.code == AIRLOCK_E_NONE || r.code >= AIRLOCK_E_COUNT || strlen(r.sqlstate) != 5)
			abort();
		return;
	}
	if (r.kind != PGV_WRITE || !out || strcmp(r.target, first->target) != 0)
		abort();
	if (guard) {
		PgQueryParseResult pr = pg_query_parse(guard);

		if (pr.error)
			abort();
		pg_query_free_parse_result(pr);
		free(guard);
	}
	bare.rules = NULL;
	bare.nrules = 0;
	if (pgv_validate(&bare, out, &again) != PGV_WRITE || strcmp(again.target, r.target) != 0) {
		fprintf(stderr, "the rewrite does not validate as the same write (%s):\n%s\n", again.message, out);
		abort();
	}
	check_deparse(out);
	check_sample(pol, out, &r);
	free(out);
}

/* COPY ... TO STDOUT: its read scoped, the COPY the runner sends validated again, whole. */
static void check_copy(const struct pgv_policy *pol, const char *sql, size_t size, const struct pgv_result *r)
{
	struct pgv_result again;
	char *inner, *read, *copy;

	if (!r->copy_query[0] && (r->query_offset > size || r->query_len > size - r->query_offset))
		abort();
	inner = r->copy_query[0] ? strdup(r->copy_query) : strndup(sql + r->query_offset, r->query_len);
	if (!inner)
		return;
	read = check_scope(pol, inner);
	free(inner);
	if (!read)
		return;
	if (asprintf(&copy, "COPY (\n%s\n) TO STDOUT%s", read, r->copy_options) < 0)
		copy = NULL;
	free(read);
	if (!copy)
		return;
	if (pgv_validate(pol, copy, &again) != PGV_COPY_OUT) {
		fprintf(stderr, "the scoped COPY does not validate again (%s):\n%s\n", again.message, copy);
		abort();
	}
	free(copy);
}

/*
 * A read refused for its star (forbid_star): the same text passes with the star allowed (the star is
 * judged last), and the read its hint describes (pg_star.c) is a read that scopes under that policy.
 */
static void check_star(const struct pgv_policy *pol, const char *sql, size_t size, const struct pgv_result *r)
{
	struct pgv_policy allowed = *pol;
	struct pgv_result again;
	char *read;

	allowed.forbid_star = false;
	if (pgv_validate(&allowed, sql, &again) == PGV_REFUSED) {
		fprintf(stderr, "refused for its star, refused without it (%s):\n%s\n", again.message, sql);
		abort();
	}
	if (!r->star_read[0] && (r->query_offset > size || r->query_len > size - r->query_offset))
		abort();
	read = r->star_read[0] ? strdup(r->star_read)
	       : r->query_len  ? strndup(sql + r->query_offset, r->query_len)
			       : strdup(sql);
	if (!read)
		return;
	if (pgv_validate(&allowed, read, &again) != PGV_READ) {
		fprintf(stderr, "the star's described read is not a read (%s):\n%s\n", again.message, read);
		abort();
	}
	free(check_scope(&allowed, read));
	free(read);
}

static void run(const struct pgv_policy *pol, const char *sql, size_t size)
{
	struct pgv_result r;

	pgv_validate(pol, sql, &r);
	check_result(&r);
	if (r.kind == PGV_REFUSED && r.code == AIRLOCK_E_SELECT_STAR)
		check_star(pol, sql, size, &r);
	switch (r.kind) {
	case PGV_READ:
		free(check_scope(pol, sql));
		break;
	case PGV_DECLARE:
		/* A cursor's query is scoped as a read from where it starts, as pg_cursor.c runs it. */
		if (r.query_offset >= size)
			abort();
		free(check_scope(pol, sql + r.query_offset));
		break;
	case PGV_COPY_OUT:
		check_copy(pol, sql, size, &r);
		break;
	case PGV_WRITE:
		check_write(pol, sql, &r);
		break;
	default:
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sql;
	size_t i;

	if (size > 1 << 20)
		return 0;
	sql = malloc(size + 1);
	if (!sql)
		return 0;
	memcpy(sql, data, size);
	sql[size] = '\0';
	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		run(&policies[i], sql, size);
	free(sql);
	return 0;
}
