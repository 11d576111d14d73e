/*
 * validate_pg_cursor: classifies DECLARE CURSOR, FETCH and CLOSE (see
 * validate_pg_cursor.c). Each fills out and returns out->kind.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_CURSOR_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_CURSOR_H

#include <jansson.h>

#include "validator/pg/validate_pg.h"

/* The DECLARE itself: name, options, where its query starts (the caller validates that query). */
enum pgv_kind pgv_cursor_declare(const char *sql, json_t *body, struct pgv_result *out);
enum pgv_kind pgv_cursor_fetch(json_t *body, struct pgv_result *out);
enum pgv_kind pgv_cursor_close(json_t *body, struct pgv_result *out);

#endif
