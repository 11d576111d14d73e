/*
 * validate_pg_write: a write a user may ask for (held until a person
 * approves it): one INSERT, UPDATE or DELETE, with RETURNING if asked, on
 * one of the user's write tables, with bound parameters or literals.
 *
 * pgv_write_check decides whether the statement has that shape; reads
 * inside it (subqueries, UPDATE ... FROM, DELETE ... USING, INSERT ...
 * SELECT) pass the read checks as any read does. What the statement may
 * name of its table is what the user's rule shows unmasked: a column the
 * rule hides or masks is never written, compared or returned, and a rule
 * with a column list needs the columns named (no INSERT without a column
 * list, no RETURNING *). Refused: WITH, ON CONFLICT, OVERRIDING, WHERE
 * CURRENT OF, and a table outside write_tables (as the read-only endpoint
 * refuses any write).
 *
 * pgv_write_scope makes the text that will run (validate_pg_scope.h): the
 * table qualified by its schema, the reads inside scoped as reads are, the
 * rule's filter added to an UPDATE's or DELETE's WHERE, and for an INSERT
 * or UPDATE of a filtered table a first RETURNING column, airlock_check,
 * true only for a row the filter keeps: the runner rolls the write back
 * when a row it writes is not one the user could read.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_WRITE_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_WRITE_H

#include <jansson.h>
#include <stdbool.h>

#include "validator/pg/validate_pg.h"

/* The name of the check column pgv_write_scope puts first in RETURNING. */
#define PGV_WRITE_CHECK "airlock_check"

/* type is InsertStmt, UpdateStmt or DeleteStmt. Fills out: PGV_WRITE (target, command, ...) or PGV_REFUSED. */
enum pgv_kind pgv_write_check(const struct pgv_policy *policy, const char *sql, const char *type, json_t *body,
			      struct pgv_result *out);

/*
 * sql passed pgv_validate as PGV_WRITE under policy. Returns PGV_WRITE
 * with *rewritten (heap, the caller frees) the text to run and *guard the
 * runner's guard read (heap; NULL when none), or PGV_REFUSED with out
 * filled and both NULL.
 */
enum pgv_kind pgv_write_scope(const struct pgv_policy *policy, const char *sql, char **rewritten, char **guard,
			      struct pgv_result *out);

/*
 * The dry run's variant of rewritten, the text pgv_write_scope made for a
 * write with result w: the same write, touching the same rows, whose
 * RETURNING is (after the check column, when w->write_check) a JSON object
 * of each row it touches, column name to value, as it was (airlock_before:
 * UPDATE, DELETE) and as it will be (airlock_after: INSERT, UPDATE). An
 * UPDATE pairs each row with its old version by joining the table to
 * itself on (tableoid, ctid). Under a rule with a column list the objects
 * hold those columns, a masked one as "(masked)"; else every column. For
 * the person who decides the write; the agent never sees it. Heap (the
 * caller frees), or NULL when it could not be made: the write is then
 * dry-run as it will run and held without a sample.
 */
char *pgv_write_sample(const struct pgv_policy *policy, const char *rewritten, const struct pgv_result *w);

/* Columns of a rule's list a sample row shows (json_build_object takes 100 arguments); the rest are left out. */
#define PGV_WRITE_SAMPLE_COLUMNS 49

#endif
