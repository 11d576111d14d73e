/* errors: look-ups in the tables of airlock error codes and the database's own conditions (see errors.h). */
#include "base/errors.h"

#include <string.h>

struct err_row {
	const char *name;
	const char *pg_sqlstate;
	uint16_t my_errno;
	const char *my_sqlstate;
};

static const struct err_row rows[AIRLOCK_E_COUNT] = {[AIRLOCK_E_NONE] = {"", NULL, 0, NULL},
#define AIRLOCK_ERR_ROW(name, pg, my_errno, my_state) [AIRLOCK_E_##name] = {#name, pg, my_errno, my_state},
						     AIRLOCK_ERRORS(AIRLOCK_ERR_ROW)
#undef AIRLOCK_ERR_ROW
};

static const struct err_row natives[AIRLOCK_N_COUNT] = {[AIRLOCK_N_NONE] = {"", NULL, 0, NULL},
#define AIRLOCK_NATIVE_ROW(name, pg, my_errno, my_state) [AIRLOCK_N_##name] = {#name, pg, my_errno, my_state},
							AIRLOCK_NATIVE(AIRLOCK_NATIVE_ROW)
#undef AIRLOCK_NATIVE_ROW
};

/* Row i of a table of count rows; its row 0 (none) when i is out of range. */
static const struct err_row *at(const struct err_row *table, unsigned count, unsigned i)
{
	return i < count ? &table[i] : &table[0];
}

static const struct err_row *row(enum airlock_err e)
{
	return at(rows, AIRLOCK_E_COUNT, (unsigned)e);
}

static const struct err_row *native(enum airlock_native n)
{
	return at(natives, AIRLOCK_N_COUNT, (unsigned)n);
}

const char *airlock_err_name(enum airlock_err e)
{
	return row(e)->name;
}

enum airlock_err airlock_err_from_name(const char *name, uint32_t len)
{
	for (unsigned i = 1; i < AIRLOCK_E_COUNT; i++)
		if (strlen(rows[i].name) == len && memcmp(rows[i].name, name, len) == 0)
			return (enum airlock_err)i;
	return AIRLOCK_E_NONE;
}

const char *airlock_err_pg_sqlstate(enum airlock_err e)
{
	return row(e)->pg_sqlstate;
}

uint16_t airlock_err_my_errno(enum airlock_err e)
{
	return row(e)->my_errno;
}

const char *airlock_err_my_sqlstate(enum airlock_err e)
{
	return row(e)->my_sqlstate;
}

const char *airlock_native_name(enum airlock_native n)
{
	return native(n)->name;
}

const char *airlock_pg_sqlstate(enum airlock_err code, enum airlock_native n)
{
	const char *s = n != AIRLOCK_N_NONE ? native(n)->pg_sqlstate : row(code)->pg_sqlstate;

	return s ? s : natives[AIRLOCK_N_PG_INTERNAL_ERROR].pg_sqlstate;
}

uint16_t airlock_my_errno(enum airlock_err code, enum airlock_native n)
{
	const struct err_row *r = n != AIRLOCK_N_NONE ? native(n) : row(code);

	return r->my_errno ? r->my_errno : natives[AIRLOCK_N_MY_UNKNOWN_ERROR].my_errno;
}

const char *airlock_my_sqlstate(enum airlock_err code, enum airlock_native n)
{
	const struct err_row *r = n != AIRLOCK_N_NONE ? native(n) : row(code);

	return r->my_sqlstate ? r->my_sqlstate : natives[AIRLOCK_N_MY_UNKNOWN_ERROR].my_sqlstate;
}
