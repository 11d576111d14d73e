/*
 * fuzz_validate_pg: libFuzzer target for the Postgres statement validator.
 * Each input, copied and NUL-terminated, is validated under a fixed policy;
 * the result's strings must be terminated and its kind in range. A read is
 * then scoped (validate_pg_scope.h): a rewrite must itself validate as a
 * read (the policy allows the catalogs the rewrite reads), and a refusal must carry a code;
 * so is a DECLARE's query, from the offset the result gives. The kind's bound comes from
 * the enum (PGV_NKINDS), so new kinds need no change here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "proxy/pg/validate/validate_pg.h"
#include "proxy/pg/validate/validate_pg_scope.h"

static const char *const tables[] = {
	"public.orders",
	"public.customers",
	"pg_catalog.*",
	"information_schema.*",
};
static const char *const path[] = {"app", "public"};

static struct airlock_column columns[] = {{"id", NULL}, {"email", "left(email, 1) || '***'"}};
static const struct airlock_rule rules[] = {
	{.table = "public.orders", .filter = "customer_id <= 100"},
	{.table = "public.customers", .columns = columns, .ncolumns = 2, .has_columns = true},
};

static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = sizeof(tables) / sizeof(tables[0]),
	.search_path = path,
	.nsearch_path = sizeof(path) / sizeof(path[0]),
	.user = "agent",
	.rules = rules,
	.nrules = 2,
};

static void check_scope(const char *sql)
{
	struct pgv_result r, again;
	char *out = NULL;

	if (pgv_scope(&policy, sql, &out, &r) == PGV_REFUSED) {
		if (out || r.code == AIRLOCK_E_NONE || strlen(r.sqlstate) != 5)
			abort();
		return;
	}
	if (out && pgv_validate(&policy, out, &again) != PGV_READ)
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pgv_result r;
	char *sql;

	if (size > 1 << 20)
		return 0;
	sql = malloc(size + 1);
	if (!sql)
		return 0;
	memcpy(sql, data, size);
	sql[size] = '\0';
	pgv_validate(&policy, sql, &r);
	if ((unsigned)r.kind >= PGV_NKINDS)
		abort();
	if (memchr(r.message, '\0', sizeof(r.message)) == NULL || memchr(r.hint, '\0', sizeof(r.hint)) == NULL ||
	    memchr(r.name, '\0', sizeof(r.name)) == NULL || memchr(r.value, '\0', sizeof(r.value)) == NULL)
		abort();
	if (r.kind == PGV_REFUSED && (r.code == AIRLOCK_E_NONE || r.code >= AIRLOCK_E_COUNT || strlen(r.sqlstate) != 5))
		abort();
	if (r.kind == PGV_READ)
		check_scope(sql);
	/* A cursor's query is scoped as a read from where it starts, as pg_cursor.c runs it. */
	if (r.kind == PGV_DECLARE) {
		if (r.query_offset >= size)
			abort();
		check_scope(sql + r.query_offset);
	}
	free(sql);
	return 0;
}
