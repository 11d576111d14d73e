/*
 * validate_my_skim: the parts of a read the parser passes over without
 * reading expressions in them, on the parser's tokens or a raw lexer
 * ahead of them.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SKIM_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SKIM_H

#include <stdbool.h>

#include "validator/mysql/validate_my_parse.h"

/*
 * WITH RECURSIVE: every name of the clause is in scope in every body, so
 * the names are pushed as CTE names before the bodies are read (the
 * current token follows RECURSIVE). False only when out of room.
 */
bool vmy_push_recursive_names(struct vmy_parser *p);

/* The first token after any number of '(' from the current one starts a query (or TABLE). */
bool vmy_parens_lead_to_query(struct vmy_parser *p);

/*
 * COLUMNS (...) of JSON_TABLE at the current token: names, types, paths,
 * literals and the words between them, nested. MariaDB takes no
 * expression there, so anything else (a variable, an operator) is
 * refused rather than read.
 */
bool vmy_json_columns(struct vmy_parser *p);

/* ( name {, name} ) at the current token: a column list, no expressions. */
bool vmy_name_list(struct vmy_parser *p);

/* USE / IGNORE / FORCE {INDEX | KEY} [FOR {JOIN | ORDER BY | GROUP BY}] (names), any number of them. */
bool vmy_index_hints(struct vmy_parser *p);

#endif
