/*
 * validate_my_funcs: the MySQL validator's static name tables: the
 * function denylist, the system variables a read may show, the settings
 * SET may change, the client character sets, and the sql_mode names.
 * Static data; returned strings are never freed.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_FUNCS_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_FUNCS_H

#include <stdbool.h>
#include <stddef.h>

#include "validator/mysql/validate_my.h"

/*
 * name is a function name, lower-cased. Returns why it is denied under
 * pol ("it reads files on the database server"), or NULL when it may be
 * called. sleep and benchmark follow pol->allow_sleep / allow_benchmark.
 */
const char *vmy_function_denied(const struct vmy_policy *pol, const char *name);

/* True when a read may show @@name (lower-case, session value). */
bool vmy_sysvar_readable(const char *name);

/*
 * True when a local select may name @@name: the readable ones, plus a few
 * the session answers with its own value but a read may not fetch from
 * the backend (init_connect, have_query_cache).
 */
bool vmy_sysvar_local(const char *name);

/* The readable system variables, comma-separated, for hints. */
const char *vmy_sysvar_list(void);

/* True when SET may change name (lower-case, scope stripped). */
bool vmy_setting_allowed(const char *name);

/* The settings SET accepts, comma-separated, for hints. */
const char *vmy_setting_list(void);

/* True for the client character sets SET NAMES may choose (lower-case). */
bool vmy_charset_allowed(const char *name);

/* True for latin1 and binary (any case): lexed with bytes >= 0x80 only inside quotes. */
bool vmy_charset_single_byte(const char *name);

/* True when statements in this character set can be validated (NULL: utf8mb4). */
bool vmy_charset_supported(const char *name);

/* True when every table is in strictly ascending strcmp order. */
bool vmy_tables_sorted(void);

#endif
