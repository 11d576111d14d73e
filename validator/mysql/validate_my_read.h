/*
 * validate_my_read: the read rules of the MySQL validator, applied to a
 * query expression (WITH ... SELECT, SELECT, (SELECT ...), UNION /
 * INTERSECT / EXCEPT) or to an expression (SHOW ... WHERE).
 *
 * The parser knows the places where a table can be named: FROM lists,
 * joins, derived tables and every subquery, however deeply nested; there
 * each name is resolved to db.table (CTE names first) and checked against
 * the allowlist. Between those places it scans expressions token by token
 * and refuses what a read must not contain: INTO, FOR UPDATE / SHARE, LOCK
 * IN SHARE MODE, PROCEDURE, :=, denied functions, qualified (stored)
 * function calls, NEXT / PREVIOUS VALUE FOR, @@global and system variables
 * outside the readable list, TABLE and VALUES, ODBC { } escapes. A token
 * that is out of place (a JOIN outside a FROM clause, a FROM inside a
 * function call other than SUBSTRING / TRIM / EXTRACT) is a refusal.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_READ_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_READ_H

#include <stdbool.h>

#include "validator/mysql/validate_my_parse.h"

/* A query expression at the current token, to the end of the statement or
 * to an unmatched ')'. Returns false (out refused) when it may not run. */
bool vmy_read_query(struct vmy_parser *p);

/*
 * One expression of a clause at the current token: it ends, unconsumed,
 * at a ',' or ')' outside parentheses, at the end, at a join word or at a
 * clause keyword (WHERE, GROUP, HAVING, ORDER, LIMIT, RETURNING, ...).
 */
bool vmy_read_clause(struct vmy_parser *p);

/* ( expr, ... ) or a subquery in parentheses at the current '('. */
bool vmy_read_group(struct vmy_parser *p);

/* An expression at the current token, up to the end of the statement. */
bool vmy_read_expr(struct vmy_parser *p);

/* @@[scope.]name at the current token (VMY_T_ATAT): refuses @@global and
 * variables outside the readable list (validate_my_sysvar.c). */
bool vmy_read_sysvar(struct vmy_parser *p);

#endif
