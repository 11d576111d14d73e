/*
 * fuzz_validate_my: libFuzzer target for the MySQL statement validator.
 * The first input byte picks the policy flags (bit 0 ANSI_QUOTES, bit 1
 * NO_BACKSLASH_ESCAPES, bit 2 no current database, bit 3 allow sleep,
 * bit 4 allow benchmark, bit 5 latin1 connection, bit 6 gbk connection);
 * the rest is the statement, passed without a terminating NUL so that any
 * read past its end is caught. The result must be well-formed and the
 * same on a second run. A read is then scoped (validate_my_scope.h): a
 * rewrite must itself validate as a read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/config.h"
#include "proxy/mysql/validate/validate_my.h"
#include "proxy/mysql/validate/validate_my_scope.h"

static const char *const tables[] = {
	"shop.orders",
	"shop.customers",
	"shop.products",
	"information_schema.*",
};

static struct airlock_column columns[] = {{"id", NULL}, {"email", "LEFT(email, 1)"}};
static const struct airlock_rule rules[] = {
	{.table = "shop.orders", .filter = "customer_id <= 100"},
	{.table = "shop.customers", .columns = columns, .ncolumns = 2, .has_columns = true},
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmy_policy pol = {
		.user = "agent",
		.database = "shop",
		.tables = tables,
		.ntables = sizeof(tables) / sizeof(tables[0]),
		.rules = rules,
		.nrules = 2,
	};
	static struct vmy_result r1, r2;
	const char *sql;
	char *copy;
	size_t len;

	if (size < 1 || size > (1 << 20))
		return 0;
	pol.ansi_quotes = (data[0] & 1) != 0;
	pol.no_backslash_escapes = (data[0] & 2) != 0;
	if (data[0] & 4)
		pol.database = NULL;
	pol.allow_sleep = (data[0] & 8) != 0;
	pol.allow_benchmark = (data[0] & 16) != 0;
	if (data[0] & 32)
		pol.charset = "latin1";
	if (data[0] & 64)
		pol.charset = "gbk";
	len = size - 1;
	/* An exact-size heap copy: reading one byte past len is an ASan error. */
	copy = malloc(len ? len : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, len);
	sql = copy;
	vmy_validate(&pol, sql, len, &r1);
	check(&r1, len);
	vmy_validate(&pol, sql, len, &r2);
	if (r1.kind != r2.kind || r1.my_errno != r2.my_errno || strcmp(r1.message, r2.message) != 0)
		abort();
	if (r1.kind == VMY_READ) {
		bool failed;
		char *out = vmy_scope(&pol, sql, len, &r1, &failed);

		if (out) {
			vmy_validate(&pol, out, strlen(out), &r2);
			if (r2.kind != VMY_READ)
				abort();
		}
		free(out);
	}
	free(copy);
	return 0;
}
