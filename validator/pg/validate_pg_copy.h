/*
 * validate_pg_copy: COPY (query) TO STDOUT and COPY table [(columns)] TO
 * STDOUT, the rows of a read streamed to the client; every other COPY is
 * refused (see validate_pg_copy.c).
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_COPY_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_COPY_H

#include <jansson.h>

#include "validator/pg/validate_pg.h"

/*
 * body is the CopyStmt node of sql. PGV_COPY_OUT with the read at
 * out->query_offset (out->query_len bytes; the query form) or in
 * out->copy_query (the table form), and the options in out->copy_options;
 * else refused. The read itself is not validated here (validate_pg.c).
 */
enum pgv_kind pgv_copy(const char *sql, json_t *body, struct pgv_result *out);

#endif
