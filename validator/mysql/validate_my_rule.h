/*
 * validate_my_rule: a row filter or column mask (conf/config.h), written by
 * the operator for airlock's default sql_mode and utf8mb4, re-spelled so
 * that MariaDB reads it the same under every sql_mode and connection
 * character set a session may choose. The agent's statement around it
 * runs under the session's own mode; only the operator's text is
 * re-spelled:
 *
 *   - string literals become _utf8mb4 X'..' (N'..': _utf8mb3 X'..'; after
 *     an introducer just X'..'): no quote, backslash or empty-string rule
 *     (ANSI_QUOTES, NO_BACKSLASH_ESCAPES, EMPTY_STRING_IS_NULL) and no
 *     SET NAMES changes them; after DATE, TIME, TIMESTAMP, COLLATE and the
 *     other places MariaDB's grammar wants a quoted string, a string of
 *     printable ASCII without a backslash stays '...' (it reads the same
 *     everywhere); any other string there makes the rule unusable;
 *   - || becomes OR and && AND (PIPES_AS_CONCAT);
 *   - a prefix NOT gets its operand in parentheses, as the default grammar
 *     reads it (HIGH_NOT_PRECEDENCE);
 *   - a function name is written directly before its '(' (IGNORE_SPACE);
 *   - comments are dropped; @'x' user variables become @`x`.
 *
 * Modes that change values rather than spelling (VMY_MODE_VALUES) cannot
 * be undone this way; the session refuses reads through a rule under them.
 * Pure: no I/O; allocates only a scratch token array.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_RULE_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_RULE_H

#include <stdbool.h>

#include "base/wbuf.h"

/*
 * Appends expr (NUL-terminated, as the operator wrote it) re-spelled to w.
 * Returns false, with w's content undefined, when expr does not lex under
 * the default mode, holds a ';' or a string that cannot be re-spelled, or
 * memory runs out: the caller then refuses the read.
 */
bool vmy_rule_put(struct wbuf *w, const char *expr);

#endif
