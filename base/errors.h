/*
 * errors: the airlock error codes, from one list. Each code has the
 * SQLSTATE a Postgres client gets, and the errno and SQLSTATE a MySQL
 * client gets, when the place that raises it has no more specific one
 * (a column is NULL or 0 where the code never reaches that protocol's
 * clients). The code's name leads the error message, so an agent can
 * branch on it; the error tables of docs/errors.md are checked against
 * this list by tests/base/test_errors.c.
 *
 * Pure data and look-ups; nothing here allocates or is owned.
 */
#ifndef AIRLOCK_BASE_ERRORS_H
#define AIRLOCK_BASE_ERRORS_H

#include <stdint.h>

/* A table, aligned by column. */
/* clang-format off */
/*  name                 Postgres  MySQL errno, SQLSTATE */
#define AIRLOCK_ERRORS(X)                                     \
	X(NOT_READ_ONLY,       "25006", 1792, "25006")         \
	X(MULTI_STATEMENT,     "42601", 1064, "42000")         \
	X(EXECUTABLE_COMMENT,  NULL,    1064, "42000")         \
	X(SYNTAX_ERROR,        "42601", 0,    NULL)            \
	X(SYNTAX,              NULL,    1064, "42000")         \
	X(TABLE_NOT_ALLOWED,   "42501", 1142, "42000")         \
	X(NO_DATABASE,         NULL,    1046, "3D000")         \
	X(FORBIDDEN_FUNCTION,  "42501", 1370, "42000")         \
	X(FORBIDDEN_STATEMENT, "42501", 0,    NULL)            \
	X(SETTING_NOT_ALLOWED, "42501", 0,    NULL)            \
	X(INVALID_VALUE,       "22023", 0,    NULL)            \
	X(NOT_ALLOWED,         NULL,    1227, "42000")         \
	X(UNSUPPORTED,         "0A000", 1235, "42000")         \
	X(TOO_COMPLEX,         "54001", 1473, "HY000")         \
	X(COST_LIMIT,          "54001", 0,    NULL)            \
	X(TIMEOUT,             "57014", 3024, "HY000")         \
	X(MEMORY_LIMIT,        "53200", 1290, "HY000")         \
	X(CANCELED,            "57014", 1317, "70100")         \
	X(RESULT_TRUNCATED,    "01000", 1105, "HY000")         \
	X(BUSY,                "53300", 1040, "08004")         \
	X(OUT_OF_MEMORY,       "53200", 1037, "HY001")         \
	X(DOCKER_UNAVAILABLE,  "58000", 1105, "58000")         \
	X(IMAGE_UNAVAILABLE,   "58000", 1105, "58000")         \
	X(RUNTIME_UNAVAILABLE, "58000", 1105, "58000")         \
	X(EXECUTION_FAILED,    "58000", 1105, "58000")         \
	X(VALIDATOR_FAILED,    "XX000", 1105, "HY000")         \
	X(HOST_NOT_ALLOWED,    "42501", 1105, "42501")

enum airlock_err {
	AIRLOCK_E_NONE, /* not airlock's: the database's own error, or none */
#define AIRLOCK_ERR_ENUM(name, pg, my_errno, my_state) AIRLOCK_E_##name,
	AIRLOCK_ERRORS(AIRLOCK_ERR_ENUM)
#undef AIRLOCK_ERR_ENUM
	AIRLOCK_E_COUNT
};
/* clang-format on */

/* The code's name ("TIMEOUT"); "" for AIRLOCK_E_NONE or a value out of range. */
const char *airlock_err_name(enum airlock_err e);
/* The code of a name as the runner and the launcher send it; AIRLOCK_E_NONE for "" or an unknown name. */
enum airlock_err airlock_err_from_name(const char *name, uint32_t len);
/* The defaults: NULL / 0 where the code does not reach that protocol (and for NONE). */
const char *airlock_err_pg_sqlstate(enum airlock_err e);
uint16_t airlock_err_my_errno(enum airlock_err e);
const char *airlock_err_my_sqlstate(enum airlock_err e);

#endif
