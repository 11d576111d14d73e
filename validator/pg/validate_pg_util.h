/*
 * validate_pg_util: small helpers shared by the validator's files: filling
 * a refusal, turning a parse-tree location into a client cursor position,
 * and reading fields of libpg_query's JSON parse tree. Returned strings
 * point into the json_t they came from and live as long as it does.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_UTIL_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "validator/pg/validate_pg.h"

/* Marks out refused with code and native (base/errors.h), an optional hint and a message. */
__attribute__((format(printf, 6, 7))) void pgv_refuse(struct pgv_result *out, enum airlock_err code,
						      enum airlock_native native, int cursor_pos, const char *hint,
						      const char *fmt, ...);

/* pg_catalog is searched first under p's search_path: not listed (then it is implicitly first) or listed first. */
bool pgv_catalog_first(const struct pgv_policy *p);

/*
 * 1-based character position (what a Postgres ErrorResponse carries) of
 * the 0-based byte offset in sql; 0 when offset is negative or past the end.
 */
int pgv_cursor_from_offset(const char *sql, long long offset);

/* Cursor position of node's "location" field, 0 when it has none. */
int pgv_cursor_of(const char *sql, json_t *node);

/* The string value of obj[key], or NULL when absent or not a string. */
const char *pgv_str(json_t *obj, const char *key);

/* One value of a libpg_query enum field and the words a message shows for it. */
struct pgv_word {
	const char *value;
	const char *word;
};

/*
 * The word for obj[key] in words (n entries), or dflt when the field is
 * absent (libpg_query leaves out an enum's first value) or not listed.
 */
const char *pgv_enum_word(json_t *obj, const char *key, const struct pgv_word *words, size_t n, const char *dflt);

/*
 * Copies src lower-cased (ASCII) into dst of size dstsz. Returns false,
 * with dst holding a truncated copy, when src does not fit.
 */
bool pgv_lower_copy(char *dst, size_t dstsz, const char *src);

#endif
