/*
 * fuzz_validate_my: libFuzzer target for the MySQL statement validator and
 * the scoping rewrite. The first input byte picks the session's flags
 * (bit 0 ANSI_QUOTES, bit 1 NO_BACKSLASH_ESCAPES, bit 2 no current
 * database, bit 3 allow sleep, bit 4 allow benchmark, bit 5 latin1
 * connection, bit 6 gbk connection, bit 7 forbid_select_star: a read
 * refused for its star must be a read without it); the rest is the statement, passed
 * without a terminating NUL so that any read past its end is caught. It
 * is validated under each of two policies equal to the demo's users
 * (integration/tools/lib.sh, write_config): "agent" (three tables and
 * information_schema, sleep allowed) and "support" (two tables, a row
 * filter on orders, a column list with a mask on customers); bits 3 and 4
 * allow a function on top of what the user allows. The result must be
 * well-formed and the same on a second run. A read is then scoped as
 * proxy/mysql/my_query.c and the validator worker (validator/vw_serve.c)
 * run it (validate_my_scope.h): a rewrite must validate again as a read
 * under the same policy with information_schema allowed, as the worker
 * validates it. A third user, "writer", reads what support reads and may
 * write orders (filtered) with approval: a write is made into what runs
 * (validate_my_write.h), which must validate again as the same write;
 * a DELETE's or an INSERT's dry-run variant, as the worker makes it
 * (validate_my_write_sample.h), must be made and validate again as the
 * same write returning its rows, and an UPDATE's, when kept, as one read
 * of the table it updates.
 * The same bytes are also scrubbed as a SHOW CREATE TABLE definition
 * would be (validate_my_create.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_versioned.h"
#include "validator/mysql/validate_my_create.h"
#include "validator/mysql/validate_my_scope.h"
#include "validator/mysql/validate_my_write.h"
#include "validator/mysql/validate_my_write_sample.h"

static const char *const agent_tables[] = {
	"shop.orders",
	"shop.customers",
	"shop.products",
	"information_schema.*",
};

static const char *const support_tables[] = {
	"shop.orders",
	"shop.customers",
	"information_schema.*",
};
static struct airlock_column support_columns[] = {
	{"id", NULL},
	{"name", NULL},
	{"email", "CONCAT(LEFT(email, 1), '***@', SUBSTRING_INDEX(email, '@', -1))"},
};
static const struct airlock_rule support_rules[] = {
	{.table = "shop.orders", .filter = "customer_id <= 100"},
	{.table = "shop.customers", .columns = support_columns, .ncolumns = 3, .has_columns = true},
};

static const char *const writer_writes[] = {"shop.orders"};

static const struct vmy_policy users[] = {
	{
		.user = "agent",
		.database = "shop",
		.tables = agent_tables,
		.ntables = sizeof(agent_tables) / sizeof(agent_tables[0]),
		.allow_sleep = true,
	},
	{
		.user = "support",
		.database = "shop",
		.tables = support_tables,
		.ntables = sizeof(support_tables) / sizeof(support_tables[0]),
		.rules = support_rules,
		.nrules = sizeof(support_rules) / sizeof(support_rules[0]),
	},
	{
		.user = "writer",
		.database = "shop",
		.tables = support_tables,
		.ntables = sizeof(support_tables) / sizeof(support_tables[0]),
		.rules = support_rules,
		.nrules = sizeof(support_rules) / sizeof(support_rules[0]),
		.write_tables = writer_writes,
		.nwrite_tables = 1,
	},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_str(const char *s, size_t size)
{
	if (memchr(s, '\0', size) == NULL)
		abort();
}

static void check(const struct vmy_result *r, size_t len)
{
	size_t i;

	if ((unsigned)r->kind >= VMY_NKINDS)
		abort();
	check_str(r->message, sizeof(r->message));
	check_str(r->hint, sizeof(r->hint));
	check_str(r->sqlstate, sizeof(r->sqlstate));
	check_str(r->use_db, sizeof(r->use_db));
	check_str(r->like, sizeof(r->like));
	if (r->nassigns > VMY_MAX_ASSIGNS || r->nitems > VMY_MAX_ITEMS || r->nnames > VMY_MAX_ITEMS)
		abort();
	for (i = 0; i < r->nassigns; i++) {
		check_str(r->assigns[i].name, sizeof(r->assigns[i].name));
		check_str(r->assigns[i].value, sizeof(r->assigns[i].value));
		check_str(r->assigns[i].collate, sizeof(r->assigns[i].collate));
		if (r->assigns[i].name[0] == '\0')
			abort();
	}
	for (i = 0; i < r->nitems; i++) {
		check_str(r->items[i].sysvar, sizeof(r->items[i].sysvar));
		check_str(r->items[i].label, sizeof(r->items[i].label));
	}
	for (i = 0; i < r->nnames; i++)
		check_str(r->names[i], sizeof(r->names[i]));
	if (r->code >= AIRLOCK_E_COUNT)
		abort();
	if (r->kind == VMY_REFUSED) {
		if (r->code == AIRLOCK_E_NONE || strlen(r->sqlstate) != 5 || r->my_errno == 0 || r->message[0] == '\0')
			abort();
	} else if (r->code != AIRLOCK_E_NONE) {
		abort();
	}
	if (r->kind == VMY_READ && !r->stmt_kind)
		abort();
	if (r->kind == VMY_SET && r->nassigns == 0)
		abort();
	if (r->kind == VMY_LOCAL_SELECT && r->nitems == 0)
		abort();
	if (r->stmt_len > len)
		abort();
}

/* A rewrite, validated again as the worker does: the user's tables and information_schema. */
static void check_rewrite(const struct vmy_policy *pol, const char *text)
{
	static struct vmy_result again;
	const char *tables[8];
	struct vmy_policy ext = *pol;

	if (pol->ntables >= sizeof(tables) / sizeof(tables[0]))
		abort();
	memcpy(tables, pol->tables, pol->ntables * sizeof(*tables));
	tables[pol->ntables] = "information_schema.*";
	ext.tables = tables;
	ext.ntables = pol->ntables + 1;
	ext.rewrite = true;
	vmy_validate(&ext, text, strlen(text), &again);
	check(&again, strlen(text));
	if (again.kind != VMY_READ) {
		fprintf(stderr, "the rewrite does not validate as a read (%s):\n%s\n", again.message, text);
		abort();
	}
}

/*
 * The dry-run variant the worker makes of a write's text (made: the text
 * validated again): a DELETE's and an INSERT's always, validating as the
 * same write with its rows; an UPDATE's always made, and when the worker
 * keeps it, validating as one SELECT of the table it updates.
 */
static void check_sample(const struct vmy_policy *ext, const char *text, const struct vmy_result *made)
{
	static struct vmy_result again;
	struct vmy_policy read = *ext;
	bool update = strcmp(made->write.command, "UPDATE") == 0;
	char *sample = vmy_write_sample_checked(ext, text, made);
	char *unchecked = vmy_write_sample(ext, made, text);

	/* Every write's variant is made; an UPDATE's read may fail its check (then it has no sample). */
	if (!unchecked || (!sample && !update)) {
		fprintf(stderr, "the write's variant is missing:\n%s\n", text);
		abort();
	}
	free(unchecked);
	if (!sample)
		return;
	read.forbid_star = false;
	vmy_validate(update ? &read : ext, sample, strlen(sample), &again);
	check(&again, strlen(sample));
	if (update ? !vmy_write_sample_reads(made, &again, sample) : !vmy_write_sample_same(made, &again)) {
		fprintf(stderr, "the write's variant does not validate as %s (%s):\n%s\n",
			update ? "a read of its table" : "the same write", again.message, sample);
		abort();
	}
	free(sample);
}

/* A write made into what runs, validated again as the worker does: the same write. */
static void check_write(const struct vmy_policy *pol, const char *sql, size_t len, const struct vmy_result *r)
{
	static struct vmy_result again;
	const char *tables[8];
	struct vmy_policy ext = *pol;
	char *out = vmy_write_scope(pol, sql, len, r);

	if (!out || pol->ntables >= sizeof(tables) / sizeof(tables[0]))
		abort();
	memcpy(tables, pol->tables, pol->ntables * sizeof(*tables));
	tables[pol->ntables] = "information_schema.*";
	ext.tables = tables;
	ext.ntables = pol->ntables + 1;
	ext.rewrite = true;
	vmy_validate(&ext, out, strlen(out), &again);
	check(&again, strlen(out));
	if (again.kind != VMY_WRITE || strcmp(again.write.command, r->write.command) != 0 ||
	    strcmp(again.write.db, r->write.db) != 0 || strcmp(again.write.table, r->write.table) != 0) {
		fprintf(stderr, "the write's text does not validate as the same write (%s):\n%s\n", again.message, out);
		abort();
	}
	check_sample(&ext, out, &again);
	free(out);
}

static void run(const struct vmy_policy *pol, const char *sql, size_t len)
{
	static struct vmy_result r1, r2;
	struct vmy_policy allowed = *pol;
	bool failed;
	char *out;

	vmy_validate(pol, sql, len, &r1);
	check(&r1, len);
	if (r1.kind == VMY_REFUSED && r1.code == AIRLOCK_E_SELECT_STAR) {
		/* The star is judged last: without forbid_star the same text is a read (my_star.c describes it). */
		if (!pol->forbid_star)
			abort();
		allowed.forbid_star = false;
		vmy_validate(&allowed, sql, len, &r1);
		if (r1.kind != VMY_READ) {
			fprintf(stderr, "refused for its star, not a read without it (%s)\n", r1.message);
			abort();
		}
		pol = &allowed;
	}
	vmy_validate(pol, sql, len, &r2);
	if (r1.kind != r2.kind || r1.my_errno != r2.my_errno || strcmp(r1.message, r2.message) != 0)
		abort();
	if (r1.kind == VMY_WRITE) {
		check_write(pol, sql, len, &r1);
		return;
	}
	if (r1.kind != VMY_READ)
		return;
	/* my_query.c refuses this before scoping: the plan would show the filter. */
	if (strcmp(r1.stmt_kind, "EXPLAIN") == 0 && vmy_scope_reads_rules(&r1))
		return;
	out = vmy_scope(pol, sql, len, &r1, &failed);
	if (out && failed)
		abort();
	if (out)
		check_rewrite(pol, out);
	free(out);
}

/* The same bytes as SHOW CREATE TABLE's definition, as airlockd scrubs a result row (proxy/mysql/my_scrub.c). */
static void scrub(const struct vmy_policy *pol, const char *text, size_t len)
{
	size_t out_len = 0;
	char *out = vmy_create_scrub(pol, "shop", text, len, &out_len);

	if (!out)
		return;
	if (out_len > len || out[out_len] != '\0')
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmy_policy pol;
	char *copy;
	size_t len, i;

	if (size < 1 || size > (1 << 20))
		return 0;
	len = size - 1;
	/* An exact-size heap copy: reading one byte past len is an ASan error. */
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, len);
	for (i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		pol = users[i];
		pol.ansi_quotes = (data[0] & 1) != 0;
		pol.no_backslash_escapes = (data[0] & 2) != 0;
		if (data[0] & 4)
			pol.database = NULL;
		pol.allow_sleep = pol.allow_sleep || (data[0] & 8) != 0;
		pol.allow_benchmark = pol.allow_benchmark || (data[0] & 16) != 0;
		if (data[0] & 32)
			pol.charset = "latin1";
		if (data[0] & 64)
			pol.charset = "gbk";
		pol.forbid_star = (data[0] & 128) != 0;
		run(&pol, copy, len);
		scrub(&pol, copy, len);
	}
	/* As the session reads a statement: versioned comments first, then the text that remains. */
	if (vmy_expand_versioned(copy, len, (data[0] & 1) != 0, (data[0] & 2) != 0) == VMY_VERSIONED_EXPANDED) {
		pol = users[0];
		pol.ansi_quotes = (data[0] & 1) != 0;
		pol.no_backslash_escapes = (data[0] & 2) != 0;
		run(&pol, copy, len);
	}
	free(copy);
	return 0;
}
