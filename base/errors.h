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
	X(COST_LIMIT,          "54001", 1104, "42000")         \
	X(TIMEOUT,             "57014", 3024, "HY000")         \
	X(MEMORY_LIMIT,        "53200", 1290, "HY000")         \
	X(CANCELED,            "57014", 1317, "70100")         \
	X(RESULT_TRUNCATED,    "01000", 1105, "HY000")         \
	X(BUSY,                "53300", 1040, "08004")         \
	X(BUDGET,              "53400", 1226, "42000")         \
	X(OUT_OF_MEMORY,       "53200", 1037, "HY001")         \
	X(DOCKER_UNAVAILABLE,  "58000", 1105, "58000")         \
	X(IMAGE_UNAVAILABLE,   "58000", 1105, "58000")         \
	X(RUNTIME_UNAVAILABLE, "58000", 1105, "58000")         \
	X(EXECUTION_FAILED,    "58000", 1105, "58000")         \
	X(VALIDATOR_FAILED,    "XX000", 1105, "HY000")         \
	X(HOST_NOT_ALLOWED,    "42501", 1105, "42501")         \
	X(APPROVAL_REQUIRED,   "55000", 1105, "HY000")         \
	X(WRITE_CHECK,         "42501", 1105, "42501")         \
	X(WRITE_ROWS,          "54000", 1105, "HY000")         \
	X(SELECT_STAR,         "42501", 1142, "42000")

/*
 * The database's own conditions: where airlock answers as the server
 * itself would (no airlock name leads the message), or where an airlock
 * code goes out under a more specific code than its default; the runner
 * names them too. PG_ rows reach Postgres clients, MY_ rows MySQL clients
 * (MY_WARNING is a SQLSTATE only: a warning's errno is the server's); the
 * name is the condition, as the server's documentation calls it.
 */
/*  name                              Postgres  MySQL errno, SQLSTATE */
#define AIRLOCK_NATIVE(X)                                           \
	X(PG_SUCCESSFUL_COMPLETION,          "00000", 0,    NULL)    \
	X(PG_UNABLE_TO_CONNECT,              "08001", 0,    NULL)    \
	X(PG_CONNECTION_FAILURE,             "08006", 0,    NULL)    \
	X(PG_PROTOCOL_VIOLATION,             "08P01", 0,    NULL)    \
	X(PG_FEATURE_NOT_SUPPORTED,          "0A000", 0,    NULL)    \
	X(PG_INVALID_BYTE_SEQUENCE,          "22021", 0,    NULL)    \
	X(PG_INVALID_TEXT_REPRESENTATION,    "22P02", 0,    NULL)    \
	X(PG_INVALID_PARAMETER_VALUE,        "22023", 0,    NULL)    \
	X(PG_TRANSACTION_IN_PROGRESS,        "25001", 0,    NULL)    \
	X(PG_NO_ACTIVE_TRANSACTION,          "25P01", 0,    NULL)    \
	X(PG_IN_FAILED_TRANSACTION,          "25P02", 0,    NULL)    \
	X(PG_IDLE_IN_TRANSACTION_TIMEOUT,    "25P03", 0,    NULL)    \
	X(PG_NO_SUCH_PREPARED_STATEMENT,     "26000", 0,    NULL)    \
	X(PG_INVALID_AUTHORIZATION,          "28000", 0,    NULL)    \
	X(PG_INVALID_PASSWORD,               "28P01", 0,    NULL)    \
	X(PG_NO_SUCH_CURSOR,                 "34000", 0,    NULL)    \
	X(PG_NO_SUCH_SAVEPOINT,              "3B001", 0,    NULL)    \
	X(PG_NO_SUCH_DATABASE,               "3D000", 0,    NULL)    \
	X(PG_INVALID_SCHEMA_NAME,            "3F000", 0,    NULL)    \
	X(PG_NAME_TOO_LONG,                  "42622", 0,    NULL)    \
	X(PG_UNDEFINED_OBJECT,               "42704", 0,    NULL)    \
	X(PG_UNDEFINED_FUNCTION,             "42883", 0,    NULL)    \
	X(PG_DUPLICATE_CURSOR,               "42P03", 0,    NULL)    \
	X(PG_DUPLICATE_PREPARED_STATEMENT,   "42P05", 0,    NULL)    \
	X(PG_TOO_MANY_CONNECTIONS,           "53300", 0,    NULL)    \
	X(PG_CONFIGURATION_LIMIT_EXCEEDED,   "53400", 0,    NULL)    \
	X(PG_PROGRAM_LIMIT_EXCEEDED,         "54000", 0,    NULL)    \
	X(PG_ADMIN_SHUTDOWN,                 "57P01", 0,    NULL)    \
	X(PG_IDLE_SESSION_TIMEOUT,           "57P05", 0,    NULL)    \
	X(PG_INTERNAL_ERROR,                 "XX000", 0,    NULL)    \
	X(MY_WARNING,                        NULL,    0,    "01000") \
	X(MY_TOO_MANY_CONNECTIONS,           NULL,    1040, "08004") \
	X(MY_BAD_HANDSHAKE,                  NULL,    1043, "08S01") \
	X(MY_DB_ACCESS_DENIED,               NULL,    1044, "42000") \
	X(MY_ACCESS_DENIED,                  NULL,    1045, "28000") \
	X(MY_NO_DATABASE_SELECTED,           NULL,    1046, "3D000") \
	X(MY_UNKNOWN_COMMAND,                NULL,    1047, "08S01") \
	X(MY_SERVER_SHUTDOWN,                NULL,    1053, "08S01") \
	X(MY_BAD_FIELD,                      NULL,    1054, "42S22") \
	X(MY_IDENTIFIER_TOO_LONG,            NULL,    1059, "42000") \
	X(MY_PARSE_ERROR,                    NULL,    1064, "42000") \
	X(MY_EMPTY_QUERY,                    NULL,    1065, "42000") \
	X(MY_NO_SUCH_THREAD,                 NULL,    1094, "HY000") \
	X(MY_WRONG_DB_NAME,                  NULL,    1102, "42000") \
	X(MY_WRONG_TABLE_NAME,               NULL,    1103, "42000") \
	X(MY_UNKNOWN_ERROR,                  NULL,    1105, "HY000") \
	X(MY_UNKNOWN_CHARACTER_SET,          NULL,    1115, "42000") \
	X(MY_PACKET_TOO_LARGE,               NULL,    1153, "08S01") \
	X(MY_PACKETS_OUT_OF_ORDER,           NULL,    1156, "08S01") \
	X(MY_UNKNOWN_SYSTEM_VARIABLE,        NULL,    1193, "HY000") \
	X(MY_WRONG_ARGUMENTS,                NULL,    1210, "HY000") \
	X(MY_USER_LIMIT_REACHED,             NULL,    1226, "42000") \
	X(MY_WRONG_VALUE_FOR_VAR,            NULL,    1231, "42000") \
	X(MY_WRONG_TYPE_FOR_VAR,             NULL,    1232, "42000") \
	X(MY_NOT_SUPPORTED_YET,              NULL,    1235, "42000") \
	X(MY_UNKNOWN_STMT_HANDLER,           NULL,    1243, "HY000") \
	X(MY_COLLATION_CHARSET_MISMATCH,     NULL,    1253, "42000") \
	X(MY_UNKNOWN_COLLATION,              NULL,    1273, "HY000") \
	X(MY_OPTION_PREVENTS_STATEMENT,      NULL,    1290, "HY000") \
	X(MY_TRUNCATED_WRONG_VALUE,          NULL,    1292, "22007") \
	X(MY_UNSUPPORTED_PREPARED,           NULL,    1295, "HY000") \
	X(MY_NO_OPEN_CURSOR,                 NULL,    1421, "HY000") \
	X(MY_TOO_MANY_PREPARED,              NULL,    1461, "42000") \
	X(MY_NO_SUCH_QUERY,                  NULL,    1957, "HY000") \
	X(MY_STATEMENT_TIMEOUT,              NULL,    1969, "70100") \
	X(MY_CONN_HOST_ERROR,                NULL,    2003, "08001") \
	X(MY_SERVER_LOST,                    NULL,    2013, "HY000") \
	X(MY_QUERY_TIMEOUT,                  NULL,    3024, "HY000") \
	X(MY_SECURE_TRANSPORT_REQUIRED,      NULL,    3159, "HY000") \
	X(MY_CLIENT_INTERACTION_TIMEOUT,     NULL,    4031, "HY000")

enum airlock_err {
	AIRLOCK_E_NONE, /* not airlock's: the database's own error, or none */
#define AIRLOCK_ERR_ENUM(name, pg, my_errno, my_state) AIRLOCK_E_##name,
	AIRLOCK_ERRORS(AIRLOCK_ERR_ENUM)
#undef AIRLOCK_ERR_ENUM
	AIRLOCK_E_COUNT
};

enum airlock_native {
	AIRLOCK_N_NONE, /* the airlock code's own wire code */
#define AIRLOCK_NATIVE_ENUM(name, pg, my_errno, my_state) AIRLOCK_N_##name,
	AIRLOCK_NATIVE(AIRLOCK_NATIVE_ENUM)
#undef AIRLOCK_NATIVE_ENUM
	AIRLOCK_N_COUNT
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

/* The condition's name ("PG_NO_SUCH_CURSOR"); "" for AIRLOCK_N_NONE or a value out of range. */
const char *airlock_native_name(enum airlock_native n);

/*
 * What a raise sends: code (an airlock code, or AIRLOCK_E_NONE for the
 * database's own condition) on the wire as native, or as the code's own
 * default when native is AIRLOCK_N_NONE. A pair that names nothing for
 * the protocol answers PG_INTERNAL_ERROR / MY_UNKNOWN_ERROR, never NULL
 * or 0.
 */
const char *airlock_pg_sqlstate(enum airlock_err code, enum airlock_native native);
uint16_t airlock_my_errno(enum airlock_err code, enum airlock_native native);
const char *airlock_my_sqlstate(enum airlock_err code, enum airlock_native native);

#endif
