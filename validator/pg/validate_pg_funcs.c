/*
 * validate_pg_funcs: the denylist as one sorted table. An entry either
 * names one function or, with prefix set, every function whose name starts
 * with it (pg_advisory_*, dblink*, lo_*, ...), so new members of a family
 * are refused without a table change.
 */
#include "validator/pg/validate_pg_funcs.h"

#include <string.h>

#include "base/name_table.h"
#include "validator/pg/validate_pg.h"
#include "validator/pg/validate_pg_proc.h"
#include "validator/pg/validate_pg_types.h"

static const char R_FILE[] = "it reads or lists files on the database server";
static const char R_FILE_WRITE[] = "it writes, renames or removes files on the database server";
static const char R_LO[] = "it reads or writes large objects (server-side files and blobs)";
static const char R_SEQ[] = "it reads or advances sequence state";
static const char R_LOCK[] = "it takes or releases advisory locks";
static const char R_NOTIFY[] = "it sends a notification to other sessions";
static const char R_ADMIN[] = "it signals other backends or changes server state";
static const char R_REPL[] = "it manages replication slots, origins or WAL";
static const char R_CONFIG[] = "it changes configuration settings (e.g. read-only mode)";
static const char R_SNAPSHOT[] = "it exports a transaction snapshot";
static const char R_STATS[] = "it resets collected statistics";
static const char R_DYNSQL[] = "it runs SQL text or reads whole tables by name, "
			       "which bypasses the table allowlist";
static const char R_NET[] = "it opens connections to other databases";
static const char R_XID[] = "it assigns a transaction id, which writes to the server's log; "
			    "txid_current_if_assigned() and pg_current_xact_id_if_assigned() read without assigning";
static const char R_SESSIONS[] = "it shows other sessions' activity and statements";
static const char R_INDEX[] = "it changes an index, a sequence or an extension's state";
static const char R_NAMES[] = "it names objects by oid or reads a table by name, tables outside the allowlist "
			      "included";
static const char R_ROLES[] = "a regrole prints a role's real name, and the only role here is the one you are "
			      "logged in as";

static const char R_UNKNOWN[] = "airlock does not know this catalog function, and refuses what it has not classified";
static const char R_INPUT[] = "it is a type's input, receive or support function (it takes cstring or internal), "
			      "which answers for a hidden type as for a visible one";
static const char R_OID[] = "it takes an oid or reg* value that may name a table or type outside the allowlist";
static const char R_OBJNAME[] = "it reads a name that may name a table or type outside the allowlist "
				"(a signature's argument types, a publication)";

/* Sorted by name in strcmp order; pgv_function_table_sorted() checks it. */
static const struct name_rule denied[] = {
	{"binary_upgrade_", true, R_ADMIN},
	{"brin_desummarize_range", false, R_INDEX},
	{"brin_summarize_", true, R_INDEX},
	{"currtid", true, R_NAMES},
	{"currval", false, R_SEQ},
	{"cursor_to_xml", true, R_DYNSQL},
	{"database_to_xml", true, R_DYNSQL},
	{"dblink", true, R_NET},
	{"gin_clean_pending_list", false, R_INDEX},
	{"lastval", false, R_SEQ},
	{"lo_", true, R_LO},
	{"loread", false, R_LO},
	{"lowrite", false, R_LO},
	{"nextval", false, R_SEQ},
	{"pg_advisory_", true, R_LOCK},
	{"pg_backup_", true, R_ADMIN},
	{"pg_blocking_pids", false, R_SESSIONS},
	{"pg_cancel_backend", false, R_ADMIN},
	{"pg_copy_", true, R_REPL},
	{"pg_create_", true, R_REPL},
	{"pg_current_xact_id", false, R_XID},
	{"pg_describe_object", false, R_NAMES},
	{"pg_drop_replication_slot", false, R_REPL},
	{"pg_export_snapshot", false, R_SNAPSHOT},
	{"pg_extension_config_dump", false, R_INDEX},
	{"pg_file_", true, R_FILE_WRITE},
	{"pg_get_object_address", false, R_NAMES},
	{"pg_identify_object", true, R_NAMES},
	{"pg_import_system_collations", false, R_ADMIN},
	{"pg_lock_status", false, R_SESSIONS},
	{"pg_log_backend_memory_contexts", false, R_ADMIN},
	{"pg_logdir_ls", false, R_FILE},
	{"pg_logical_", true, R_REPL},
	{"pg_ls_", true, R_FILE},
	{"pg_nextoid", false, R_INDEX},
	{"pg_notify", false, R_NOTIFY},
	{"pg_prepared_xact", false, R_SESSIONS},
	{"pg_promote", false, R_ADMIN},
	{"pg_read_", true, R_FILE},
	{"pg_reload_conf", false, R_ADMIN},
	{"pg_replication_origin_", true, R_REPL},
	{"pg_replication_slot_advance", false, R_REPL},
	{"pg_rotate_logfile", true, R_ADMIN},
	{"pg_safe_snapshot_blocking_pids", false, R_SESSIONS},
	{"pg_start_backup", false, R_ADMIN},
	{"pg_stat_file", false, R_FILE},
	{"pg_stat_get_activity", false, R_SESSIONS},
	{"pg_stat_get_backend_", true, R_SESSIONS},
	{"pg_stat_get_progress_info", false, R_SESSIONS},
	{"pg_stat_get_subscription", false, R_SESSIONS},
	{"pg_stat_get_wal_receiver", false, R_SESSIONS},
	{"pg_stat_get_wal_senders", false, R_SESSIONS},
	{"pg_stat_reset", true, R_STATS},
	{"pg_stat_statements", true, R_SESSIONS},
	{"pg_stat_statements_reset", false, R_STATS},
	{"pg_stop_backup", false, R_ADMIN},
	{"pg_switch_wal", false, R_REPL},
	{"pg_terminate_backend", false, R_ADMIN},
	{"pg_truncate_visibility_map", false, R_ADMIN},
	{"pg_try_advisory_", true, R_LOCK},
	{"pg_wal_replay_", true, R_REPL},
	{"plpgsql_validator", false, R_NAMES},
	{"query_to_xml", true, R_DYNSQL},
	{"regclass", false, R_NAMES},
	{"regclassin", false, R_NAMES},
	{"regclassout", false, R_NAMES},
	{"regclassrecv", false, R_NAMES},
	{"regclasssend", false, R_NAMES},
	{"regtypein", false, R_NAMES},
	{"regtypeout", false, R_NAMES},
	{"regtyperecv", false, R_NAMES},
	{"regtypesend", false, R_NAMES},
	{"schema_to_xml", true, R_DYNSQL},
	{"set_config", false, R_CONFIG},
	{"setval", false, R_SEQ},
	{"table_to_xml", true, R_DYNSQL},
	{"to_regrole", false, R_ROLES},
	{"ts_rewrite", false, R_DYNSQL},
	{"ts_stat", false, R_DYNSQL},
	{"txid_current", false, R_XID},
};

const char *pgv_function_denied(const char *name)
{
	const struct name_rule *hit = name_rule_find(denied, NAME_TABLE_LEN(denied), name);

	return hit ? hit->reason : NULL;
}

const char *pgv_function_refused(const char *schema, const char *name)
{
	const char *reason = pgv_function_denied(name);
	const struct pgv_proc *e;
	unsigned want = 0;

	if (reason)
		return reason;
	if (schema && strcmp(schema, "pg_catalog") == 0)
		want = PGV_PROC_PG;
	else if (schema && strcmp(schema, "information_schema") == 0)
		want = PGV_PROC_IS;
	else if (schema)
		return NULL; /* a function of the world's own schemas */
	e = pgv_proc_find(name);
	if (!e && want == PGV_PROC_PG && pgv_builtin_type(name))
		return NULL; /* a function-style cast, such as pg_catalog.json('{}') */
	if (!e)
		return want ? R_UNKNOWN : NULL;
	if (want && !(e->schemas & want))
		return R_UNKNOWN;
	switch (e->cls) {
	case PGV_FN_SAFE:
	case PGV_FN_GUARDED:
		return NULL;
	case PGV_FN_DENY_INPUT:
		return R_INPUT;
	case PGV_FN_DENY_OID:
		return R_OID;
	case PGV_FN_DENY_NAME:
		return R_OBJNAME;
	case PGV_FN_DENY_LIST:
		break; /* the denylist above decides; test_validate_pg_proc keeps the two in step */
	}
	return NULL;
}

bool pgv_function_builtin(const char *name)
{
	return pgv_proc_find(name) != NULL || pgv_builtin_type(name);
}

static bool catalog_schema(const char *schema)
{
	return strcmp(schema, "pg_catalog") == 0 || strcmp(schema, "information_schema") == 0;
}

bool pgv_function_allowed(const struct pgv_policy *p, const char *schema, const char *name)
{
	size_t slen = strlen(schema), i;

	for (i = 0; i < p->nfunctions; i++) {
		const char *e = p->functions[i];

		if (!e || strncmp(e, schema, slen) != 0 || e[slen] != '.')
			continue;
		if (strcmp(e + slen + 1, "*") == 0 || strcmp(e + slen + 1, name) == 0)
			return true;
	}
	return false;
}

const char *pgv_function_qualifier(const struct pgv_policy *p, const char *name)
{
	const struct pgv_proc *e = pgv_proc_find(name);
	bool everywhere = true;
	size_t i;

	for (i = 0; i < p->nsearch_path; i++) {
		const char *s = p->search_path[i];

		if (s && !catalog_schema(s) && !pgv_function_allowed(p, s, name))
			everywhere = false;
	}
	if (everywhere)
		return NULL;
	if (e)
		return (e->schemas & PGV_PROC_PG) ? "pg_catalog" : "information_schema";
	if (pgv_builtin_type(name))
		return "pg_catalog";
	for (i = 0; i < p->nsearch_path; i++) {
		const char *s = p->search_path[i];

		if (s && !catalog_schema(s) && pgv_function_allowed(p, s, name))
			return s;
	}
	return NULL;
}

bool pgv_function_table_sorted(void)
{
	return name_table_sorted(denied, NAME_TABLE_LEN(denied), sizeof(denied[0]));
}
