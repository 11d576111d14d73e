/*
 * validate_my_names: the table allowlist and CTE scoping of the MySQL
 * validator. Database and table names compare exactly (case-sensitive,
 * as MariaDB on Linux with lower_case_table_names=0), except
 * information_schema and its tables, which the server matches without
 * regard to case. "db.*" allows every table of db, but for
 * information_schema the tables that show server settings, grants, other
 * sessions or file paths are allowed only when listed by name.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_NAMES_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "validator/mysql/validate_my_parse.h"

/*
 * A table reference: db is NULL when unqualified (then a CTE in scope
 * wins, else the current database). Refuses (1142, 1046) and returns
 * false when it is not allowed.
 */
bool vmy_check_table(struct vmy_parser *p, const char *db, const char *table);

/*
 * Room for one more scoped reference (to information_schema table
 * is_table, or NULL: a rule's table): the rewrite, with what its filters
 * and SHOW forms add, must hold at most VMY_MAX_SCOPED. Refuses
 * (TOO_COMPLEX) and returns false when there is none.
 */
bool vmy_scope_room(struct vmy_parser *p, const char *is_table);

/* True when pol's allowlist lets the user read db.table (a name MariaDB printed: no CTE, no current database). */
bool vmy_table_visible(const struct vmy_policy *pol, const char *db, const char *table);

/* Whether db.table is one of pol's write tables (never a catalog or the mysql database). */
bool vmy_write_listed(const struct vmy_policy *pol, const char *db, const char *table);

/* A database named by SHOW ... FROM db or USE db: some entry must name it (else 1044). */
bool vmy_check_database(struct vmy_parser *p, const char *db);

/* The database an unqualified name refers to; refuses 1046 when none is selected. */
const char *vmy_current_db(struct vmy_parser *p);

/*
 * A table reference that starts at byte start and ends with the last token
 * consumed passed vmy_check_table: when it names an information_schema
 * table or a table the user has a rule for (db NULL: the current database,
 * unless a CTE of that name is in scope) it goes into out->scope for the
 * scoping. Returns false
 * (refused) only when there are too many of them.
 */
bool vmy_scope_note(struct vmy_parser *p, size_t start, const char *db, const char *table);
/*
 * SHOW COLUMNS / INDEX / CREATE TABLE and DESCRIBE of a table whose rule
 * shows only some of its columns would list the others: refused. With
 * counts (SHOW INDEX, SHOW CREATE TABLE: index cardinality, the next
 * AUTO_INCREMENT value) a table with any rule is refused, since those
 * figures count the rows a filter hides.
 */
bool vmy_check_describable(struct vmy_parser *p, const char *db, const char *table, bool counts);

/* The index of the policy's rule for db.table (names compared byte for byte), or -1. */
int vmy_rule_index(const struct vmy_policy *pol, const char *db, const char *table);

/* The reference vmy_scope_note took at start has an alias of its own (or not). */
void vmy_scope_aliased(struct vmy_parser *p, size_t start, bool aliased);
/* The index hints [hint_start, hint_end) of the table with a rule noted at start; false when it is not one. */
bool vmy_scope_hinted(struct vmy_parser *p, size_t start, size_t hint_start, size_t hint_end);

/* "<prefix>allowed tables: a, b, c" into hint, cut with "..." when long. */
void vmy_allowed_hint(char *hint, size_t size, const struct vmy_policy *pol, const char *prefix);

/* CTE scope: names pushed after mark are popped by vmy_cte_pop(p, mark). */
size_t vmy_cte_mark(const struct vmy_parser *p);
bool vmy_cte_push(struct vmy_parser *p, const char *name);
void vmy_cte_pop(struct vmy_parser *p, size_t mark);

#endif
