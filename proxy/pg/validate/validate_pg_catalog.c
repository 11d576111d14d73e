/*
 * validate_pg_catalog: the relations of PostgreSQL 15's pg_catalog schema
 * (relkind r, v, m, p, f or S in a fresh cluster), kept sorted in C byte
 * order for bsearch. The list must be complete: a missing name would let an
 * unqualified reference to it be judged against the other schemas of the
 * search_path instead of pg_catalog's own allowlist entry.
 */
#include "proxy/pg/validate/validate_pg_catalog.h"

#include <stdlib.h>
#include <string.h>

static const char *const catalog_relations[] = {
	"pg_aggregate",
	"pg_am",
	"pg_amop",
	"pg_amproc",
	"pg_attrdef",
	"pg_attribute",
	"pg_auth_members",
	"pg_authid",
	"pg_available_extension_versions",
	"pg_available_extensions",
	"pg_backend_memory_contexts",
	"pg_cast",
	"pg_class",
	"pg_collation",
	"pg_config",
	"pg_constraint",
	"pg_conversion",
	"pg_cursors",
	"pg_database",
	"pg_db_role_setting",
	"pg_default_acl",
	"pg_depend",
	"pg_description",
	"pg_enum",
	"pg_event_trigger",
	"pg_extension",
	"pg_file_settings",
	"pg_foreign_data_wrapper",
	"pg_foreign_server",
	"pg_foreign_table",
	"pg_group",
	"pg_hba_file_rules",
	"pg_ident_file_mappings",
	"pg_index",
	"pg_indexes",
	"pg_inherits",
	"pg_init_privs",
	"pg_language",
	"pg_largeobject",
	"pg_largeobject_metadata",
	"pg_locks",
	"pg_matviews",
	"pg_namespace",
	"pg_opclass",
	"pg_operator",
	"pg_opfamily",
	"pg_parameter_acl",
	"pg_partitioned_table",
	"pg_policies",
	"pg_policy",
	"pg_prepared_statements",
	"pg_prepared_xacts",
	"pg_proc",
	"pg_publication",
	"pg_publication_namespace",
	"pg_publication_rel",
	"pg_publication_tables",
	"pg_range",
	"pg_replication_origin",
	"pg_replication_origin_status",
	"pg_replication_slots",
	"pg_rewrite",
	"pg_roles",
	"pg_rules",
	"pg_seclabel",
	"pg_seclabels",
	"pg_sequence",
	"pg_sequences",
	"pg_settings",
	"pg_shadow",
	"pg_shdepend",
	"pg_shdescription",
	"pg_shmem_allocations",
	"pg_shseclabel",
	"pg_stat_activity",
	"pg_stat_all_indexes",
	"pg_stat_all_tables",
	"pg_stat_archiver",
	"pg_stat_bgwriter",
	"pg_stat_database",
	"pg_stat_database_conflicts",
	"pg_stat_gssapi",
	"pg_stat_progress_analyze",
	"pg_stat_progress_basebackup",
	"pg_stat_progress_cluster",
	"pg_stat_progress_copy",
	"pg_stat_progress_create_index",
	"pg_stat_progress_vacuum",
	"pg_stat_recovery_prefetch",
	"pg_stat_replication",
	"pg_stat_replication_slots",
	"pg_stat_slru",
	"pg_stat_ssl",
	"pg_stat_subscription",
	"pg_stat_subscription_stats",
	"pg_stat_sys_indexes",
	"pg_stat_sys_tables",
	"pg_stat_user_functions",
	"pg_stat_user_indexes",
	"pg_stat_user_tables",
	"pg_stat_wal",
	"pg_stat_wal_receiver",
	"pg_stat_xact_all_tables",
	"pg_stat_xact_sys_tables",
	"pg_stat_xact_user_functions",
	"pg_stat_xact_user_tables",
	"pg_statio_all_indexes",
	"pg_statio_all_sequences",
	"pg_statio_all_tables",
	"pg_statio_sys_indexes",
	"pg_statio_sys_sequences",
	"pg_statio_sys_tables",
	"pg_statio_user_indexes",
	"pg_statio_user_sequences",
	"pg_statio_user_tables",
	"pg_statistic",
	"pg_statistic_ext",
	"pg_statistic_ext_data",
	"pg_stats",
	"pg_stats_ext",
	"pg_stats_ext_exprs",
	"pg_subscription",
	"pg_subscription_rel",
	"pg_tables",
	"pg_tablespace",
	"pg_timezone_abbrevs",
	"pg_timezone_names",
	"pg_transform",
	"pg_trigger",
	"pg_ts_config",
	"pg_ts_config_map",
	"pg_ts_dict",
	"pg_ts_parser",
	"pg_ts_template",
	"pg_type",
	"pg_user",
	"pg_user_mapping",
	"pg_user_mappings",
	"pg_views",
};

#define NRELATIONS (sizeof(catalog_relations) / sizeof(catalog_relations[0]))

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

bool pgv_catalog_has_relation(const char *name)
{
	return bsearch(name, catalog_relations, NRELATIONS, sizeof(catalog_relations[0]), cmp_name) != NULL;
}

bool pgv_catalog_table_sorted(void)
{
	size_t i;

	for (i = 1; i < NRELATIONS; i++) {
		if (strcmp(catalog_relations[i - 1], catalog_relations[i]) >= 0)
			return false;
	}
	return true;
}
