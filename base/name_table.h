/*
 * name_table: look-ups in static tables sorted by name, the form the
 * validators keep their function, setting and character-set lists in. A
 * table is an array whose elements each begin with `const char *name` (a
 * struct's first member, or the string itself), in strictly ascending
 * strcmp order; name_table_sorted lets a unit test hold a table to that.
 * Nothing here allocates; results point into the caller's table.
 */
#ifndef AIRLOCK_BASE_NAME_TABLE_H
#define AIRLOCK_BASE_NAME_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#define NAME_TABLE_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The element of table (n elements of size bytes) named exactly name, or NULL. */
const void *name_table_find(const void *table, size_t n, size_t size, const char *name);

/* True when the names of table are in strictly ascending strcmp order. */
bool name_table_sorted(const void *table, size_t n, size_t size);

/*
 * A rule of a denylist: a name, or with prefix set the start of every name
 * of a family (pg_advisory_*, audit_log_*), and why it is refused.
 */
struct name_rule {
	const char *name;
	bool prefix;
	const char *reason;
};

/*
 * The rule that covers name: the entry named exactly name, else the first
 * prefix entry name starts with; NULL when none does.
 */
const struct name_rule *name_rule_find(const struct name_rule *rules, size_t n, const char *name);

#endif
