/* errors: look-ups in the table of airlock error codes (see errors.h). */
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

static const struct err_row *row(enum airlock_err e)
{
	return (unsigned)e < AIRLOCK_E_COUNT ? &rows[e] : &rows[AIRLOCK_E_NONE];
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
