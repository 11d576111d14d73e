/*
 * validate_pg_star: forbid_select_star's check of a Postgres read. A read
 * is refused (SELECT_STAR) when a column of its result comes from a star
 * or a whole row:
 *
 *   - a star (*, t.*, (x).*) anywhere in an output column's expression: the
 *     target list of the statement's own SELECT, of each branch of a set
 *     operation (UNION, INTERSECT, EXCEPT), and of a scalar or ARRAY
 *     subquery inside an output column (TABLE t is SELECT * FROM t);
 *   - a whole-row reference there: a bare name (or schema.name) that
 *     names a table, a subquery or a join of a FROM clause in scope, as
 *     in SELECT t FROM t or to_json(t), which Postgres reads as the row.
 *     A column of the same name as its table is read the same way here:
 *     the validator has no catalog, so it is refused (write t.col).
 *
 * Allowed: count(*) and count(t.*) / count(t) (a number, never the row),
 * stars in EXISTS, IN, ANY and ALL subqueries (a boolean reaches the
 * result), stars in CTEs and subqueries in FROM (their columns reach the
 * result only through the outer target list, which is checked: a star
 * there is refused even when the subquery names its columns), and stars
 * anywhere outside output columns (WHERE, GROUP BY, ORDER BY, FILTER,
 * window clauses). EXPLAIN is not checked: it returns a plan, not rows.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_STAR_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_STAR_H

#include <jansson.h>
#include <stdbool.h>

#include "validator/pg/validate_pg.h"

/*
 * node is a wrapped statement ({"SelectStmt": {...}}) parsed out of sql.
 * True, with out filled as a SELECT_STAR refusal (its star_read the read
 * whose columns the hint should list, when that is not sql itself), when
 * a result column comes from a star or a whole row; false otherwise.
 */
bool pgv_star_refused(const char *sql, json_t *node, struct pgv_result *out);

#endif
