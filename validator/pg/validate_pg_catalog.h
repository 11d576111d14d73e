/*
 * validate_pg_catalog: the relations of pg_catalog and information_schema
 * (PostgreSQL 15), each classified by what reading it may show an agent.
 * An unqualified name found in the pg_catalog list resolves to pg_catalog,
 * which is implicitly first on every search_path. Static data; nothing
 * to free.
 */
#ifndef AIRLOCK_VALIDATOR_PG_VALIDATE_PG_CATALOG_H
#define AIRLOCK_VALIDATOR_PG_VALIDATE_PG_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

enum pgv_catalog_schema { PGV_PG_CATALOG, PGV_INFORMATION_SCHEMA };

enum pgv_catalog_mode {
	PGV_CATALOG_PASS,   /* read as it is */
	PGV_CATALOG_FILTER, /* read through filter */
	PGV_CATALOG_DENY,   /* refused */
};

struct pgv_catalog_rel {
	const char *name;
	enum pgv_catalog_mode mode;
	const char *filter; /* FILTER: a predicate over the row alias r, with markers */
	/*
	 * FILTER, or NULL: a jsonb expression over r (with markers) whose keys
	 * name columns read other than stored; the row is read through
	 * jsonb_populate_record, so its columns keep their order and types.
	 * One role in the world: owners read as the backend role's oid, role
	 * names as the airlock user, ACLs as NULL; and a table with a rule
	 * reads as never analyzed.
	 */
	const char *project;
	/*
	 * FILTER, or NULL: the select list the relation is read through, over
	 * r (a catalog read so often that a projection per row would cost
	 * more than the read: pg_attribute). It names every column in
	 * Postgres 15's order; a server whose relation has other columns
	 * fails the read (test_pg_one_role.py holds it to the backend).
	 */
	const char *columns;
	/*
	 * FILTER, or NULL: the order the filtered rows come in, where clients
	 * read the relation without ORDER BY and rely on the order the
	 * backend's own plan gives (a table's columns by position: the Postgres
	 * MCP server lists them so). Behind the fence the backend reads the
	 * filtered relation whole, in no such order.
	 */
	const char *order;
};

/* The entry for name (exact, case-sensitive) in schema, or NULL when the schema has no such relation. */
const struct pgv_catalog_rel *pgv_catalog_find(enum pgv_catalog_schema schema, const char *name);

/* True when name (exact, case-sensitive) is a pg_catalog relation. */
bool pgv_catalog_has_relation(const char *name);

/* True when both lists are in strictly ascending strcmp order. */
bool pgv_catalog_table_sorted(void);

/* Entry i of schema's list, NULL past the end (tests walk the lists with it). */
const struct pgv_catalog_rel *pgv_catalog_entry(enum pgv_catalog_schema schema, size_t i);

#endif
