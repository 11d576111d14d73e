/*
 * validate_my_create: SHOW CREATE TABLE's definition as the user's world
 * shows it. MariaDB prints a table's foreign keys whatever the reader may
 * see of the tables they point to:
 *
 *   CONSTRAINT `c_ibfk_2` FOREIGN KEY (`e`) REFERENCES `shop`.`staff_salaries` (`id`),
 *
 * A foreign key whose referenced table is outside the user's tables, or
 * whose referenced columns include one the table's rule hides, is left
 * out, as the filtered KEY_COLUMN_USAGE and TABLE_CONSTRAINTS leave it out
 * (validate_my_scope_tables.c) and as Postgres' filtered pg_constraint does,
 * and so is an index of the same name (the one MariaDB makes for a foreign
 * key that has none is named after the constraint, as the filtered
 * STATISTICS leaves it out). Every other line is kept as printed.
 *
 * The text comes from a runner, so it is read as untrusted: line by line
 * (MariaDB prints each column, key and constraint on a line of its own, two
 * spaces in, with a newline inside a string escaped), names in backticks,
 * double quotes (ANSI_QUOTES) or bare (sql_quote_show_create = 0). A line
 * that opens as a foreign key and does not read as one is left out. Pure:
 * no I/O.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_CREATE_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_CREATE_H

#include <stddef.h>

#include "validator/mysql/validate_my.h"

/*
 * text (len bytes): the Create Table column of SHOW CREATE TABLE for a
 * table of database db. Returns the definition the user may see (heap,
 * NUL-terminated, *out_len its length; the caller frees it), or NULL when
 * memory ran out.
 */
char *vmy_create_scrub(const struct vmy_policy *pol, const char *db, const char *text, size_t len, size_t *out_len);

#endif
