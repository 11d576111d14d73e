/*
 * validate_pg_catalog: every relation PostgreSQL 15 keeps in pg_catalog
 * (relkind r, v, m, p, f or S in a fresh cluster) and every view of
 * information_schema, each with what a read of it may show an agent:
 *
 *   PASS    nothing in it names or describes a table, a view or another
 *           session (operators, types of pg_catalog, settings, ...)
 *   FILTER  it does; the statement reads it through the filter, a
 *           predicate over its row alias r (markers: validate_pg_scope_sql.h)
 *   DENY    it holds secrets (password hashes, large objects, user
 *           mapping options) and is refused like a table outside the allowlist
 *
 * Both lists are sorted in C byte order for bsearch and must be complete:
 * a name of either schema not listed is refused (a relation a later
 * server version adds is never shown unfiltered), and a pg_catalog name
 * missing here would let an unqualified reference to it be judged against
 * the other schemas of the search_path instead of pg_catalog's own entry.
 */
#include "validator/pg/validate_pg_catalog.h"

#include <stdlib.h>
#include <string.h>

#define PASS(n)                                 \
	{                                       \
		n, PGV_CATALOG_PASS, NULL, NULL \
	}
#define FILTER(n, f)                           \
	{                                      \
		n, PGV_CATALOG_FILTER, f, NULL \
	}
/* A FILTER whose columns named in p read otherwise (see validate_pg_catalog.h). */
#define PROJECT(n, f, p)                    \
	{                                   \
		n, PGV_CATALOG_FILTER, f, p \
	}
#define DENY(n)                                 \
	{                                       \
		n, PGV_CATALOG_DENY, NULL, NULL \
	}
/* A FILTER read through the select list c, its rows in order o (see validate_pg_catalog.h). */
#define COLUMNS(n, f, c, o)                          \
	{                                            \
		n, PGV_CATALOG_FILTER, f, NULL, c, o \
	}
/* A FILTER whose rows come in order o. */
#define ORDERED(n, f, o)                                \
	{                                               \
		n, PGV_CATALOG_FILTER, f, NULL, NULL, o \
	}
/* A catalog of objects with an owner and maybe an ACL: the one role owns them, no ACL names anyone. */
/* The columns named as jsonb_build_object's arguments. */
#define J(args) "pg_catalog.jsonb_build_object(" args ")"
#define OWNED(n, owner) PROJECT(n, "true", J("'" owner "', @B"))
#define OWNED_ACL(n, owner, acl) PROJECT(n, "true", J("'" owner "', @B, '" acl "', NULL"))
/*
 * A table with a rule, and its indexes, TOAST table and partitions (@U),
 * read as never analyzed and never used: their figures count the rows the
 * rule hides. Keys a view does not have are passed over.
 */
#define NEVER_ANALYZED "'{\"reltuples\": -1, \"relpages\": 0, \"relallvisible\": 0}'::pg_catalog.jsonb"
#define NO_COUNTS                                                                                                  \
	"'{\"seq_scan\": 0, \"seq_tup_read\": 0, \"idx_scan\": 0, \"idx_tup_fetch\": 0, \"idx_tup_read\": 0,"      \
	" \"n_tup_ins\": 0, \"n_tup_upd\": 0, \"n_tup_del\": 0, \"n_tup_hot_upd\": 0, \"n_live_tup\": 0,"          \
	" \"n_dead_tup\": 0, \"n_mod_since_analyze\": 0, \"n_ins_since_vacuum\": 0, \"last_vacuum\": null,"        \
	" \"last_autovacuum\": null, \"last_analyze\": null, \"last_autoanalyze\": null, \"vacuum_count\": 0,"     \
	" \"autovacuum_count\": 0, \"analyze_count\": 0, \"autoanalyze_count\": 0, \"heap_blks_read\": 0,"         \
	" \"heap_blks_hit\": 0, \"idx_blks_read\": 0, \"idx_blks_hit\": 0, \"toast_blks_read\": 0,"                \
	" \"toast_blks_hit\": 0, \"tidx_blks_read\": 0, \"tidx_blks_hit\": 0, \"blks_read\": 0, \"blks_hit\": 0}'" \
	"::pg_catalog.jsonb"
#define COUNTS(n, f, rel) PROJECT(n, f, "CASE WHEN @U(" rel ") THEN '{}'::pg_catalog.jsonb ELSE " NO_COUNTS " END")

/* A view's definition as NULL when cond (a @D) holds: the text would name what the world does not hold. */
#define NO_DEFINITION(cond, col) \
	"CASE WHEN " cond " THEN '{\"" col "\": null}'::pg_catalog.jsonb ELSE '{}'::pg_catalog.jsonb END"

/* The grants of information_schema: those to the backend role or PUBLIC, granted by and to the one role. */
#define GRANTS(n, f)                                                    \
	PROJECT(n, "(" f ") AND r.grantee IN (CURRENT_USER, 'PUBLIC')", \
		J("'grantor', @W, 'grantee', CASE WHEN r.grantee = 'PUBLIC' THEN 'PUBLIC' ELSE @W END"))

/*
 * The catalogs' own column statistics (pg_class.relname, pg_attribute.attrelid,
 * pg_depend.objid, ...) sample every object, hidden ones included.
 */
#define NOT_CATALOG_STATS "r.schemaname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')"

/* clang-format off */
static const struct pgv_catalog_rel pg_catalog_rels[] = {
	/* An aggregate the database defines is a function: missing unless listed (its support functions print by name). */
	FILTER("pg_aggregate", "r.aggfnoid IN @F"),
	PASS("pg_am"),
	PASS("pg_amop"),
	PASS("pg_amproc"),
	FILTER("pg_attrdef", "r.adrelid IN @V"),
	/* Column grants (attacl) name roles: read as NULL, as every ACL is. */
	COLUMNS("pg_attribute", "r.attrelid IN @V AND (r.attnum <= 0 OR @H(r.attrelid,r.attname))",
		"r.attrelid, r.attname, r.atttypid, r.attstattarget, r.attlen, r.attnum, r.attndims, r.attcacheoff,"
		" r.atttypmod, r.attbyval, r.attalign, r.attstorage, r.attcompression, r.attnotnull, r.atthasdef,"
		" r.atthasmissing, r.attidentity, r.attgenerated, r.attisdropped, r.attislocal, r.attinhcount,"
		" r.attcollation, NULL::pg_catalog.aclitem[] AS attacl, r.attoptions, r.attfdwoptions,"
		" r.attmissingval",
		"attrelid, attnum"),
	FILTER("pg_auth_members", "false"),
	DENY("pg_authid"),
	PASS("pg_available_extension_versions"),
	PASS("pg_available_extensions"),
	PASS("pg_backend_memory_contexts"),
	PASS("pg_cast"),
	PROJECT("pg_class", "r.oid IN @V",
		J("'relowner', @B, 'relacl', NULL") " OPERATOR(pg_catalog.||) CASE WHEN @U(r.oid) THEN"
		" '{}'::pg_catalog.jsonb ELSE " NEVER_ANALYZED " END"),
	OWNED("pg_collation", "collowner"),
	PASS("pg_config"),
	FILTER("pg_constraint", "r.oid IN @C"),
	OWNED("pg_conversion", "conowner"),
	PASS("pg_cursors"),
	OWNED_ACL("pg_database", "datdba", "datacl"),
	FILTER("pg_db_role_setting", "false"),
	FILTER("pg_default_acl", "false"),
	FILTER("pg_depend", "@O(r.classid,r.objid) AND @O(r.refclassid,r.refobjid)"),
	FILTER("pg_description", "@O(r.classoid,r.objoid)"),
	PASS("pg_enum"),
	OWNED("pg_event_trigger", "evtowner"),
	OWNED("pg_extension", "extowner"),
	PASS("pg_file_settings"),
	OWNED_ACL("pg_foreign_data_wrapper", "fdwowner", "fdwacl"),
	OWNED_ACL("pg_foreign_server", "srvowner", "srvacl"),
	FILTER("pg_foreign_table", "r.ftrelid IN @V"),
	FILTER("pg_group", "false"),
	PASS("pg_hba_file_rules"),
	PASS("pg_ident_file_mappings"),
	FILTER("pg_index", "r.indrelid IN @V AND r.indexrelid IN @V"),
	FILTER("pg_indexes", "@N(r.schemaname,r.tablename) AND @N(r.schemaname,r.indexname)"),
	FILTER("pg_inherits", "r.inhrelid IN @V AND r.inhparent IN @V"),
	PROJECT("pg_init_privs", "@O(r.classoid,r.objoid)", J("'initprivs', NULL")),
	OWNED_ACL("pg_language", "lanowner", "lanacl"),
	DENY("pg_largeobject"),
	OWNED_ACL("pg_largeobject_metadata", "lomowner", "lomacl"),
	FILTER("pg_locks", "r.pid = pg_catalog.pg_backend_pid()"),
	PROJECT("pg_matviews", "@N(r.schemaname,r.matviewname)",
		J("'matviewowner', @W") " OPERATOR(pg_catalog.||) " NO_DEFINITION("@D(r.schemaname,r.matviewname)", "definition")),
	PROJECT("pg_namespace", "r.oid IN @M", J("'nspowner', @B, 'nspacl', NULL")),
	OWNED("pg_opclass", "opcowner"),
	OWNED("pg_operator", "oprowner"),
	OWNED("pg_opfamily", "opfowner"),
	PROJECT("pg_parameter_acl", "true", J("'paracl', NULL")),
	FILTER("pg_partitioned_table", "r.partrelid IN @V"),
	PROJECT("pg_policies", "@N(r.schemaname,r.tablename)", J("'roles', NULL")),
	PROJECT("pg_policy", "r.polrelid IN @V", J("'polroles', NULL")),
	PASS("pg_prepared_statements"),
	FILTER("pg_prepared_xacts", "false"),
	/* The world's functions alone: one the database defines is missing unless the user's functions lists it. */
	PROJECT("pg_proc", "r.oid IN @F", J("'proowner', @B, 'proacl', NULL")),
	OWNED("pg_publication", "pubowner"),
	PASS("pg_publication_namespace"),
	FILTER("pg_publication_rel", "r.prrelid IN @V"),
	FILTER("pg_publication_tables", "@N(r.schemaname,r.tablename)"),
	PASS("pg_range"),
	PASS("pg_replication_origin"),
	PASS("pg_replication_origin_status"),
	PASS("pg_replication_slots"),
	/* A rule's trees name what its view reads, hidden relations and columns included. */
	PROJECT("pg_rewrite", "r.ev_class IN @V",
		"CASE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_class wc JOIN pg_catalog.pg_namespace wn ON wn.oid ="
		" wc.relnamespace WHERE wc.oid = r.ev_class AND @D(wn.nspname,wc.relname)) THEN"
		" '{\"ev_qual\": null, \"ev_action\": null}'::pg_catalog.jsonb ELSE '{}'::pg_catalog.jsonb END"),
	PROJECT("pg_roles", "r.rolname = CURRENT_USER", J("'rolname', @W, 'rolconfig', NULL")),
	FILTER("pg_rules", "@N(r.schemaname,r.tablename)"),
	FILTER("pg_seclabel", "@O(r.classoid,r.objoid)"),
	FILTER("pg_seclabels", "@O(r.classoid,r.objoid)"),
	FILTER("pg_sequence", "r.seqrelid IN @V"),
	PROJECT("pg_sequences", "@N(r.schemaname,r.sequencename)", J("'sequenceowner', @W")),
	PASS("pg_settings"),
	DENY("pg_shadow"),
	FILTER("pg_shdepend", "@O(r.classid,r.objid) AND (r.refclassid <> 1260 OR r.refobjid = @B)"),
	FILTER("pg_shdescription", "@O(r.classoid,r.objoid)"),
	PASS("pg_shmem_allocations"),
	FILTER("pg_shseclabel", "@O(r.classoid,r.objoid)"),
	PROJECT("pg_stat_activity", "r.pid = pg_catalog.pg_backend_pid()", J("'usename', @W, 'client_addr', NULL, 'client_hostname', NULL, 'client_port', -1")),
	COUNTS("pg_stat_all_indexes", "r.relid IN @V AND r.indexrelid IN @V", "r.indexrelid"),
	COUNTS("pg_stat_all_tables", "r.relid IN @V", "r.relid"),
	PASS("pg_stat_archiver"),
	PASS("pg_stat_bgwriter"),
	PASS("pg_stat_database"),
	PASS("pg_stat_database_conflicts"),
	FILTER("pg_stat_gssapi", "r.pid = pg_catalog.pg_backend_pid()"),
	FILTER("pg_stat_progress_analyze", "r.pid = pg_catalog.pg_backend_pid()"),
	FILTER("pg_stat_progress_basebackup", "r.pid = pg_catalog.pg_backend_pid()"),
	FILTER("pg_stat_progress_cluster", "r.pid = pg_catalog.pg_backend_pid()"),
	FILTER("pg_stat_progress_copy", "r.pid = pg_catalog.pg_backend_pid()"),
	FILTER("pg_stat_progress_create_index", "r.pid = pg_catalog.pg_backend_pid()"),
	FILTER("pg_stat_progress_vacuum", "r.pid = pg_catalog.pg_backend_pid()"),
	PASS("pg_stat_recovery_prefetch"),
	FILTER("pg_stat_replication", "r.pid = pg_catalog.pg_backend_pid()"),
	PASS("pg_stat_replication_slots"),
	PASS("pg_stat_slru"),
	FILTER("pg_stat_ssl", "r.pid = pg_catalog.pg_backend_pid()"),
	FILTER("pg_stat_subscription", "false"),
	PASS("pg_stat_subscription_stats"),
	COUNTS("pg_stat_sys_indexes", "r.relid IN @V AND r.indexrelid IN @V", "r.indexrelid"),
	COUNTS("pg_stat_sys_tables", "r.relid IN @V", "r.relid"),
	PASS("pg_stat_user_functions"),
	COUNTS("pg_stat_user_indexes", "r.relid IN @V AND r.indexrelid IN @V", "r.indexrelid"),
	COUNTS("pg_stat_user_tables", "r.relid IN @V", "r.relid"),
	PASS("pg_stat_wal"),
	FILTER("pg_stat_wal_receiver", "false"),
	COUNTS("pg_stat_xact_all_tables", "r.relid IN @V", "r.relid"),
	COUNTS("pg_stat_xact_sys_tables", "r.relid IN @V", "r.relid"),
	PASS("pg_stat_xact_user_functions"),
	COUNTS("pg_stat_xact_user_tables", "r.relid IN @V", "r.relid"),
	COUNTS("pg_statio_all_indexes", "r.relid IN @V AND r.indexrelid IN @V", "r.indexrelid"),
	COUNTS("pg_statio_all_sequences", "r.relid IN @V", "r.relid"),
	COUNTS("pg_statio_all_tables", "r.relid IN @V", "r.relid"),
	COUNTS("pg_statio_sys_indexes", "r.relid IN @V AND r.indexrelid IN @V", "r.indexrelid"),
	COUNTS("pg_statio_sys_sequences", "r.relid IN @V", "r.relid"),
	COUNTS("pg_statio_sys_tables", "r.relid IN @V", "r.relid"),
	COUNTS("pg_statio_user_indexes", "r.relid IN @V AND r.indexrelid IN @V", "r.indexrelid"),
	COUNTS("pg_statio_user_sequences", "r.relid IN @V", "r.relid"),
	COUNTS("pg_statio_user_tables", "r.relid IN @V", "r.relid"),
	FILTER("pg_statistic", "r.starelid IN @V AND @U(r.starelid)"),
	PROJECT("pg_statistic_ext", "r.stxrelid IN @V AND @U(r.stxrelid)", J("'stxowner', @B")),
	FILTER("pg_statistic_ext_data", "r.stxoid IN (SELECT se.oid FROM pg_catalog.pg_statistic_ext se WHERE se.stxrelid IN @V AND @U(se.stxrelid))"),
	FILTER("pg_stats", "@N(r.schemaname,r.tablename) AND @R(r.schemaname,r.tablename) AND " NOT_CATALOG_STATS),
	FILTER("pg_stats_ext", "@N(r.schemaname,r.tablename) AND @R(r.schemaname,r.tablename) AND " NOT_CATALOG_STATS),
	FILTER("pg_stats_ext_exprs", "@N(r.schemaname,r.tablename) AND @R(r.schemaname,r.tablename) AND " NOT_CATALOG_STATS),
	/* The columns Postgres grants to all (subconninfo, a connection string, is not): r.* would be refused. */
	COLUMNS("pg_subscription", "true",
		"r.oid, r.subdbid, r.subskiplsn, r.subname, @B AS subowner, r.subenabled, r.subbinary, r.substream,"
		" r.subtwophasestate, r.subdisableonerr, NULL::pg_catalog.text AS subconninfo, r.subslotname,"
		" r.subsynccommit, r.subpublications",
		NULL),
	FILTER("pg_subscription_rel", "r.srrelid IN @V"),
	PROJECT("pg_tables", "@N(r.schemaname,r.tablename)", J("'tableowner', @W")),
	OWNED_ACL("pg_tablespace", "spcowner", "spcacl"),
	PASS("pg_timezone_abbrevs"),
	PASS("pg_timezone_names"),
	PASS("pg_transform"),
	FILTER("pg_trigger", "r.tgrelid IN @V"),
	OWNED("pg_ts_config", "cfgowner"),
	PASS("pg_ts_config_map"),
	OWNED("pg_ts_dict", "dictowner"),
	PASS("pg_ts_parser"),
	PASS("pg_ts_template"),
	PROJECT("pg_type", "r.oid IN @T", J("'typowner', @B, 'typacl', NULL")),
	PROJECT("pg_user", "r.usename = CURRENT_USER", J("'usename', @W, 'useconfig', NULL")),
	DENY("pg_user_mapping"),
	DENY("pg_user_mappings"),
	PROJECT("pg_views", "@N(r.schemaname,r.viewname)",
		J("'viewowner', @W") " OPERATOR(pg_catalog.||) " NO_DEFINITION("@D(r.schemaname,r.viewname)", "definition")),};

static const struct pgv_catalog_rel information_schema_rels[] = {
	PASS("_pg_foreign_data_wrappers"),
	PASS("_pg_foreign_servers"),
	FILTER("_pg_foreign_table_columns", "@N(r.nspname,r.relname)"),
	FILTER("_pg_foreign_tables", "@N(r.foreign_table_schema,r.foreign_table_name)"),
	DENY("_pg_user_mappings"),
	FILTER("administrable_role_authorizations", "false"),
	FILTER("applicable_roles", "false"),
	FILTER("attributes", "@Y(r.udt_schema,r.udt_name)"),
	PASS("character_sets"),
	FILTER("check_constraint_routine_usage", "@K(r.constraint_schema,r.constraint_name) AND @S(r.specific_schema,r.specific_name)"),
	FILTER("check_constraints", "@K(r.constraint_schema,r.constraint_name)"),
	PASS("collation_character_set_applicability"),
	PASS("collations"),
	FILTER("column_column_usage", "@N(r.table_schema,r.table_name)"),
	FILTER("column_domain_usage", "@N(r.table_schema,r.table_name)"),
	FILTER("column_options", "@N(r.table_schema,r.table_name)"),
	GRANTS("column_privileges", "@N(r.table_schema,r.table_name)"),
	FILTER("column_udt_usage", "@N(r.table_schema,r.table_name)"),
	ORDERED("columns", "@N(r.table_schema,r.table_name) AND @Q(r.table_schema,r.table_name,r.column_name)",
		"table_schema, table_name, ordinal_position"),
	FILTER("constraint_column_usage", "@N(r.table_schema,r.table_name) AND @K(r.constraint_schema,r.constraint_name)"),
	FILTER("constraint_table_usage", "@N(r.table_schema,r.table_name) AND @K(r.constraint_schema,r.constraint_name)"),
	FILTER("data_type_privileges", "(r.object_type <> 'TABLE' OR @N(r.object_schema,r.object_name)) AND (r.object_type <> 'ROUTINE' OR @S(r.object_schema,r.object_name))"),
	PASS("domain_constraints"),
	PASS("domain_udt_usage"),
	PASS("domains"),
	FILTER("element_types", "(r.object_type <> 'TABLE' OR @N(r.object_schema,r.object_name)) AND (r.object_type <> 'ROUTINE' OR @S(r.object_schema,r.object_name))"),
	PROJECT("enabled_roles", "r.role_name = CURRENT_USER", J("'role_name', @W")),
	PASS("foreign_data_wrapper_options"),
	PROJECT("foreign_data_wrappers", "true", J("'authorization_identifier', @W")),
	PASS("foreign_server_options"),
	PROJECT("foreign_servers", "true", J("'authorization_identifier', @W")),
	FILTER("foreign_table_options", "@N(r.foreign_table_schema,r.foreign_table_name)"),
	FILTER("foreign_tables", "@N(r.foreign_table_schema,r.foreign_table_name)"),
	PASS("information_schema_catalog_name"),
	FILTER("key_column_usage", "@N(r.table_schema,r.table_name) AND @K(r.constraint_schema,r.constraint_name)"),
	FILTER("parameters", "@S(r.specific_schema,r.specific_name)"),
	FILTER("referential_constraints", "@K(r.constraint_schema,r.constraint_name) AND (r.unique_constraint_name IS NULL OR @K(r.unique_constraint_schema,r.unique_constraint_name))"),
	GRANTS("role_column_grants", "@N(r.table_schema,r.table_name)"),
	GRANTS("role_routine_grants", "@S(r.specific_schema,r.specific_name)"),
	GRANTS("role_table_grants", "@N(r.table_schema,r.table_name)"),
	GRANTS("role_udt_grants", "@Y(r.udt_schema,r.udt_name)"),
	GRANTS("role_usage_grants", "r.object_type <> 'SEQUENCE' OR @N(r.object_schema,r.object_name)"),
	FILTER("routine_column_usage", "@N(r.table_schema,r.table_name) AND @S(r.specific_schema,r.specific_name)"),
	GRANTS("routine_privileges", "@S(r.specific_schema,r.specific_name)"),
	FILTER("routine_routine_usage", "@S(r.specific_schema,r.specific_name) AND @S(r.routine_schema,r.routine_name)"),
	FILTER("routine_sequence_usage", "@N(r.sequence_schema,r.sequence_name) AND @S(r.specific_schema,r.specific_name)"),
	FILTER("routine_table_usage", "@N(r.table_schema,r.table_name) AND @S(r.specific_schema,r.specific_name)"),
	FILTER("routines", "@S(r.specific_schema,r.specific_name)"),
	PROJECT("schemata", "r.schema_name IN (SELECT sn.nspname FROM pg_catalog.pg_namespace sn WHERE sn.oid IN @M)", J("'schema_owner', @W")),
	FILTER("sequences", "@N(r.sequence_schema,r.sequence_name)"),
	PASS("sql_features"),
	PASS("sql_implementation_info"),
	PASS("sql_parts"),
	PASS("sql_sizing"),
	FILTER("table_constraints", "@N(r.table_schema,r.table_name) AND @K(r.constraint_schema,r.constraint_name)"),
	GRANTS("table_privileges", "@N(r.table_schema,r.table_name)"),
	FILTER("tables", "@N(r.table_schema,r.table_name)"),
	FILTER("transforms", "@S(r.specific_schema,r.specific_name)"),
	FILTER("triggered_update_columns", "@N(r.event_object_schema,r.event_object_table)"),
	FILTER("triggers", "@N(r.event_object_schema,r.event_object_table)"),
	GRANTS("udt_privileges", "@Y(r.udt_schema,r.udt_name)"),
	GRANTS("usage_privileges", "r.object_type <> 'SEQUENCE' OR @N(r.object_schema,r.object_name)"),
	FILTER("user_defined_types", "@Y(r.user_defined_type_schema,r.user_defined_type_name)"),
	DENY("user_mapping_options"),
	FILTER("user_mappings", "false"),
	FILTER("view_column_usage", "@N(r.view_schema,r.view_name) AND @N(r.table_schema,r.table_name)"),
	FILTER("view_routine_usage", "@N(r.table_schema,r.table_name) AND @S(r.specific_schema,r.specific_name)"),
	FILTER("view_table_usage", "@N(r.view_schema,r.view_name) AND @N(r.table_schema,r.table_name)"),
	PROJECT("views", "@N(r.table_schema,r.table_name)",
		NO_DEFINITION("@D(r.table_schema,r.table_name)", "view_definition")),};
/* clang-format on */

#define NPG (sizeof(pg_catalog_rels) / sizeof(pg_catalog_rels[0]))
#define NIS (sizeof(information_schema_rels) / sizeof(information_schema_rels[0]))

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct pgv_catalog_rel *)elem)->name);
}

const struct pgv_catalog_rel *pgv_catalog_find(enum pgv_catalog_schema schema, const char *name)
{
	if (schema == PGV_PG_CATALOG)
		return bsearch(name, pg_catalog_rels, NPG, sizeof(pg_catalog_rels[0]), cmp_name);
	return bsearch(name, information_schema_rels, NIS, sizeof(information_schema_rels[0]), cmp_name);
}

bool pgv_catalog_has_relation(const char *name)
{
	return pgv_catalog_find(PGV_PG_CATALOG, name) != NULL;
}

static bool sorted(const struct pgv_catalog_rel *t, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++) {
		if (strcmp(t[i - 1].name, t[i].name) >= 0)
			return false;
	}
	return true;
}

bool pgv_catalog_table_sorted(void)
{
	return sorted(pg_catalog_rels, NPG) && sorted(information_schema_rels, NIS);
}

const struct pgv_catalog_rel *pgv_catalog_entry(enum pgv_catalog_schema schema, size_t i)
{
	if (schema == PGV_PG_CATALOG)
		return i < NPG ? &pg_catalog_rels[i] : NULL;
	return i < NIS ? &information_schema_rels[i] : NULL;
}
