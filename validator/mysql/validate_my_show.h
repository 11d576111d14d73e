/*
 * validate_my_show: SHOW, DESCRIBE / DESC and EXPLAIN.
 *
 * Reads that go to a runner: SHOW DATABASES | SCHEMAS, [FULL] TABLES,
 * TABLE STATUS, [FULL] COLUMNS | FIELDS, INDEX | INDEXES | KEYS, CREATE
 * TABLE, CHARACTER SET | CHARSET, COLLATION, [STORAGE] ENGINES (every
 * database and table named must pass the allowlist; a WHERE condition
 * follows the read rules), DESCRIBE t [column], EXPLAIN t, and EXPLAIN
 * [EXTENDED | PARTITIONS | FORMAT = x] of a SELECT.
 *
 * Answered by the session: SHOW [SESSION | LOCAL] VARIABLES [LIKE 'p' |
 * WHERE Variable_name = 'x' | IN (...) | LIKE 'p' | = 'a' OR ...], SHOW
 * WARNINGS / ERRORS [LIMIT [offset,] n], SHOW COUNT(*) WARNINGS / ERRORS.
 *
 * Everything else SHOW can show (grants, processes, status, replication,
 * engine status, plugins, other objects' definitions, ...) is refused:
 * it describes the server or other accounts rather than the data.
 * EXPLAIN ANALYZE, EXPLAIN FOR CONNECTION and EXPLAIN of a write are
 * refused too.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SHOW_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SHOW_H

#include "validator/mysql/validate_my_parse.h"

/* At SHOW. Fills out; returns when done (out->kind set, or refused). */
void vmy_show(struct vmy_parser *p);

/* At DESCRIBE, DESC or EXPLAIN. */
void vmy_describe(struct vmy_parser *p);

#endif
