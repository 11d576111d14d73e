/*
 * validate_my_write: the governed writes of a MySQL user with write
 * tables (vmy_policy.write_tables): one INSERT, UPDATE or DELETE on one of
 * them, checked here and made into the text that will run by
 * vmy_write_scope. The statement itself is held until a person approves
 * it (docs/writes.md); this file only decides what it is.
 *
 * Accepted:
 *   INSERT [LOW_PRIORITY | HIGH_PRIORITY] [INTO] tbl [(col, ...)]
 *          {VALUES | VALUE} (expr, ...) [, (expr, ...)] ...
 *   INSERT [LOW_PRIORITY | HIGH_PRIORITY] [INTO] tbl SET col = expr, ...
 *   UPDATE [LOW_PRIORITY] tbl [[AS] alias] SET col = expr, ...
 *          [WHERE cond] [ORDER BY expr, ...] [LIMIT n]
 *   DELETE [LOW_PRIORITY] [QUICK] FROM tbl [WHERE cond]
 *          [ORDER BY expr, ...] [LIMIT n]
 * where tbl is [db.]table, a table of write_tables that the read
 * allowlist also lists. Expressions are read as every read's are
 * (validate_my_read.h): subqueries name only readable tables and are
 * scoped by the user's rules, functions pass the same denylist.
 *
 * Refused: IGNORE, DELAYED, INSERT ... SELECT, ON DUPLICATE KEY UPDATE,
 * RETURNING, PARTITION, several tables (multi-table UPDATE and DELETE),
 * REPLACE, a table outside write_tables, and a table whose rule has a
 * column list (its hidden columns could be written or compared). On a
 * table with a row filter an UPDATE may not set a column the filter
 * names, so a row it touches stays one the filter shows.
 *
 * Pure: no I/O, no allocation except vmy_write_scope's result.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_WRITE_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_WRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "validator/mysql/validate_my_parse.h"

/*
 * The write at the current token (INSERT, UPDATE or DELETE), to the end
 * of the statement. On success out->kind is VMY_WRITE and out->write
 * says what vmy_write_scope needs; else out holds the refusal.
 */
void vmy_write(struct vmy_parser *p);

/*
 * The text that will run of a write v (VMY_WRITE) of sql under pol: the
 * table named with its database; each table the reads inside it name
 * through a rule read as the scoping reads it (validate_my_scope.h); the
 * rule's filter joined to an UPDATE's or DELETE's WHERE; an INSERT into a
 * filtered table followed by RETURNING the filter's truth for each row,
 * which the runner checks (a row the filter hides fails the write).
 * Heap, NUL-terminated, the caller frees it; NULL when it cannot be made
 * (memory, or a plan that does not fit the text): never run unscoped.
 */
char *vmy_write_scope(const struct vmy_policy *pol, const char *sql, size_t len, const struct vmy_result *v);

/* Whether the text that runs of the write v returns its rows' checks (an INSERT into a filtered table). */
bool vmy_write_checks(const struct vmy_policy *pol, const struct vmy_result *v);

#endif
