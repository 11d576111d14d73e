/*
 * validate_pg_stmt: names and refuses the statement kinds that never run
 * (DML, DDL, COPY, CALL, DO, LOCK, PREPARE/EXECUTE, cursors, LISTEN/NOTIFY,
 * maintenance, ...), each with a SQLSTATE, an airlock code and a hint.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_STMT_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_STMT_H

#include <jansson.h>
#include <stddef.h>

#include "validator/pg/validate_pg.h"

/*
 * Writes the SQL name of a statement node (type is the parse-tree node
 * name such as "DropStmt", body its fields) into buf, e.g. "DROP TABLE".
 */
void pgv_statement_label(const char *type, json_t *body, char *buf, size_t bufsz);

/*
 * Refuses a statement of kind type. prefix ("" or e.g. "EXPLAIN of ") is
 * put before the statement's name in the message.
 */
void pgv_refuse_statement(const char *type, json_t *body, const char *prefix, struct pgv_result *out);

#endif
