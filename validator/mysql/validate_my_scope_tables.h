/*
 * validate_my_scope_tables: the tables of MariaDB 10.11's
 * information_schema, each with what reading it may show an agent:
 *
 *   PASS    nothing in it names a table, a view, a database or another
 *           session's statement (or it is governed by the sensitive list of
 *           validate_my_names: variables, status, grants)
 *   FILTER  it does; the statement reads it through the filter, a
 *           predicate over its row alias r (markers: validate_my_scope.h)
 *   DENY    never readable: InnoDB's internal tables (every table's name,
 *           other transactions' statements); FILES (paths) is a FILTER
 *           that keeps no row
 *
 * A table not listed here is readable only when the allowlist names it.
 * Static data; nothing to free.
 */
#ifndef AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SCOPE_TABLES_H
#define AIRLOCK_VALIDATOR_MYSQL_VALIDATE_MY_SCOPE_TABLES_H

#include <stdbool.h>
#include <stddef.h>

enum vmy_is_mode { VMY_IS_PASS, VMY_IS_FILTER, VMY_IS_DENY };

struct vmy_is_table {
	const char *name; /* upper-case */
	enum vmy_is_mode mode;
	const char *filter; /* FILTER only */
	/* FILTER: the derived table's select list over r (markers allowed), so that figures
	 * that count a table's rows read as unknown (NULL) where a rule hides some; NULL: r.* */
	const char *columns;
};

/* The entry for an information_schema table (any case), or NULL when it is not known. */
const struct vmy_is_table *vmy_is_table_find(const char *name);

bool vmy_is_table_known(const char *name);
bool vmy_is_table_denied(const char *name);

/* Entry i, NULL past the end (tests walk the list with it). */
const struct vmy_is_table *vmy_is_table_entry(size_t i);

bool vmy_is_table_sorted(void);

#endif
