/*
 * name_table: binary search and the order check over tables sorted by
 * name, and the exact-then-prefix match of denylists.
 */
#include "base/name_table.h"

#include <stdlib.h>
#include <string.h>

static const char *name_at(const void *table, size_t size, size_t i)
{
	return *(const char *const *)((const char *)table + i * size);
}

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

const void *name_table_find(const void *table, size_t n, size_t size, const char *name)
{
	return bsearch(name, table, n, size, cmp_name);
}

bool name_table_sorted(const void *table, size_t n, size_t size)
{
	for (size_t i = 1; i < n; i++) {
		if (strcmp(name_at(table, size, i - 1), name_at(table, size, i)) >= 0)
			return false;
	}
	return true;
}

const struct name_rule *name_rule_find(const struct name_rule *rules, size_t n, const char *name)
{
	const struct name_rule *hit = name_table_find(rules, n, sizeof(rules[0]), name);

	if (hit)
		return hit;
	for (size_t i = 0; i < n; i++) {
		if (rules[i].prefix && strncmp(name, rules[i].name, strlen(rules[i].name)) == 0)
			return &rules[i];
	}
	return NULL;
}
