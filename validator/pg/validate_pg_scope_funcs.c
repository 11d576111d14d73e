/*
 * validate_pg_scope_funcs: the catalog functions that take a relation,
 * type, constraint or function (by oid or by name) and describe it, each with the
 * argument that names it. The scoping guards that argument so a hidden
 * object reads as NULL, the same as one that does not exist.
 */
#include "validator/pg/validate_pg_scope_funcs.h"

#include "base/name_table.h"

/* clang-format off */
static const struct pgv_guarded_fn guarded[] = {
	{"col_description", 0, PGV_G_REL, PGV_P_OID},
	{"format_type", 0, PGV_G_TYPE, PGV_P_OID},
	{"has_any_column_privilege", -2, PGV_G_REL, PGV_P_TEXT},
	{"has_column_privilege", -3, PGV_G_REL, PGV_P_TEXT},
	{"has_function_privilege", -2, PGV_G_FUNC, PGV_P_TEXT},
	{"has_schema_privilege", -2, PGV_G_NSP, PGV_P_TEXT},
	{"has_sequence_privilege", -2, PGV_G_REL, PGV_P_TEXT},
	{"has_table_privilege", -2, PGV_G_REL, PGV_P_TEXT},
	{"has_type_privilege", -2, PGV_G_TYPE, PGV_P_TEXT},
	{"obj_description", 0, PGV_G_OBJ, PGV_P_OID},
	{"pg_column_is_updatable", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_filenode_relation", PGV_GUARD_RESULT, PGV_G_REL, PGV_P_OID},
	{"pg_function_is_visible", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_get_constraintdef", 0, PGV_G_CON, PGV_P_OID},
	{"pg_get_expr", 1, PGV_G_REL, PGV_P_OID},
	{"pg_get_function_arg_default", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_get_function_arguments", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_get_function_identity_arguments", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_get_function_result", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_get_function_sqlbody", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_get_functiondef", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_get_indexdef", 0, PGV_G_REL, PGV_P_OID},
	{"pg_get_partition_constraintdef", 0, PGV_G_REL, PGV_P_OID},
	{"pg_get_partkeydef", 0, PGV_G_REL, PGV_P_OID},
	{"pg_get_replica_identity_index", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_get_ruledef", 0, PGV_G_RULE, PGV_P_OID},
	{"pg_get_serial_sequence", 0, PGV_G_REL, PGV_P_TEXT},
	{"pg_get_statisticsobjdef", 0, PGV_G_STATX, PGV_P_OID},
	{"pg_get_statisticsobjdef_columns", 0, PGV_G_STATX, PGV_P_OID},
	{"pg_get_statisticsobjdef_expressions", 0, PGV_G_STATX, PGV_P_OID},
	{"pg_get_triggerdef", 0, PGV_G_TRIG, PGV_P_OID},
	{"pg_get_viewdef", 0, PGV_G_VIEW, PGV_P_TEXT},
	{"pg_index_column_has_property", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_index_has_property", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_indexes_size", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_partition_ancestors", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_partition_root", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_partition_tree", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_relation_filenode", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_relation_filepath", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_relation_is_publishable", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_relation_is_updatable", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_relation_size", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_sequence_last_value", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_sequence_parameters", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_analyze_count", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_autoanalyze_count", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_autovacuum_count", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_blocks_fetched", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_blocks_hit", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_dead_tuples", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_function_calls", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_stat_get_function_self_time", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_stat_get_function_total_time", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_stat_get_ins_since_vacuum", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_last_analyze_time", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_last_autoanalyze_time", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_last_autovacuum_time", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_last_vacuum_time", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_live_tuples", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_mod_since_analyze", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_numscans", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_tuples_deleted", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_tuples_fetched", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_tuples_hot_updated", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_tuples_inserted", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_tuples_returned", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_tuples_updated", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_vacuum_count", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_blocks_fetched", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_blocks_hit", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_function_calls", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_stat_get_xact_function_self_time", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_stat_get_xact_function_total_time", 0, PGV_G_PROC, PGV_P_OID},
	{"pg_stat_get_xact_numscans", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_tuples_deleted", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_tuples_fetched", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_tuples_hot_updated", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_tuples_inserted", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_tuples_returned", 0, PGV_G_REL, PGV_P_OID},
	{"pg_stat_get_xact_tuples_updated", 0, PGV_G_REL, PGV_P_OID},
	{"pg_statistics_obj_is_visible", 0, PGV_G_STATX, PGV_P_OID},
	{"pg_table_is_visible", 0, PGV_G_REL, PGV_P_OID},
	{"pg_table_size", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_total_relation_size", 0, PGV_G_REL, PGV_P_REGCLASS},
	{"pg_type_is_visible", 0, PGV_G_TYPE, PGV_P_OID},
	{"row_security_active", 0, PGV_G_REL, PGV_P_TEXT},
	{"to_regclass", 0, PGV_G_REL, PGV_P_TEXT},
	{"to_regcollation", PGV_GUARD_RESULT, PGV_G_COLL, PGV_P_TEXT},
	{"to_regnamespace", 0, PGV_G_NSP, PGV_P_TEXT},
	{"to_regoper", PGV_GUARD_RESULT, PGV_G_OPER, PGV_P_TEXT},
	{"to_regproc", PGV_GUARD_RESULT, PGV_G_PROC, PGV_P_TEXT},
	{"to_regtype", 0, PGV_G_TYPE, PGV_P_TEXT},
};
/* clang-format on */

const struct pgv_guarded_fn *pgv_guarded_find(const char *name)
{
	return name_table_find(guarded, NAME_TABLE_LEN(guarded), sizeof(guarded[0]), name);
}

bool pgv_guarded_table_sorted(void)
{
	return name_table_sorted(guarded, NAME_TABLE_LEN(guarded), sizeof(guarded[0]));
}
