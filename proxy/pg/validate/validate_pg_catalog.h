/*
 * validate_pg_catalog: the names of the relations (tables and views) that
 * PostgreSQL 15 keeps in pg_catalog. An unqualified name found here
 * resolves to pg_catalog, which is implicitly first on every search_path.
 * Static data; nothing to free.
 */
#ifndef AIRLOCK_PROXY_VALIDATE_PG_CATALOG_H
#define AIRLOCK_PROXY_VALIDATE_PG_CATALOG_H

#include <stdbool.h>

/* True when name (exact, case-sensitive) is a pg_catalog relation. */
bool pgv_catalog_has_relation(const char *name);

/* True when the name table is in strictly ascending strcmp order. */
bool pgv_catalog_table_sorted(void);

#endif
