/*
 * validate_my_star: forbid_select_star's check of a MySQL read. A read is
 * refused (SELECT_STAR) when its result's columns come from a star: * or
 * t.* (db.t.*) in the select list of the statement's own SELECT, of each
 * branch of a UNION, EXCEPT or INTERSECT, or of a parenthesized query in
 * their place. Every other star stays allowed: COUNT(*) and other
 * arguments, EXISTS and IN subqueries, a scalar subquery (one column at
 * most), and CTEs and derived tables, whose columns reach the result only
 * through an outer select list, which is checked (a star there is refused
 * even when the derived table names its columns). EXPLAIN and DESCRIBE
 * show no rows and are not checked; MariaDB has no whole-row values.
 *
 * The parser marks where a select list's columns are the result's
 * (vmy_star_output around each nested query) and notes each star it
 * passes there; the statement is refused for the first one only after it
 * parsed whole, so any other refusal comes first.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_STAR_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_STAR_H

#include <stdbool.h>

#include "validator/mysql/validate_my_parse.h"

/* Sets whether the query read next gives the result's columns; returns what it was, to restore. */
bool vmy_star_output(struct vmy_parser *p, bool output);

/* t, a token of a select list: a star when it is '*' where an item starts (item_start) or after a dot. */
void vmy_star_note(struct vmy_parser *p, const struct vmy_token *t, bool item_start);

/* After a read parsed whole: refuses it (true) when the policy forbids the star it holds. */
bool vmy_star_refused(struct vmy_parser *p);

#endif
