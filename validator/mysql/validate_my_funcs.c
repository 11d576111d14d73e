/*
 * validate_my_funcs: see validate_my_funcs.h. Each table is sorted so a
 * lookup is a binary search; vmy_tables_sorted() lets the tests check
 * the order. A denylist entry with prefix set covers every function whose
 * name starts with it (sys_*, audit_log_*, ...), so new members of a UDF
 * family are refused without a table change.
 */
#include "validator/mysql/validate_my_funcs.h"

#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "base/name_table.h"

static const char R_FILE[] = "it reads files on the database server";
static const char R_LOCK[] = "it takes, releases or inspects named locks shared with other sessions";
static const char R_REPL[] = "it waits on or inspects replication state";
static const char R_SEQ[] = "it reads or advances a sequence (sequences are tables)";
static const char R_ROLE[] = "it reveals the backend account; SELECT USER() / CURRENT_USER() "
			     "on their own are answered by airlock";
static const char R_UDF[] = "it is a user-defined function that runs code on the server";
static const char R_ADMIN[] = "it manages server plugins, keys, audit logs or other sessions";
static const char R_INTERNAL[] = "it is an internal data-dictionary function";
static const char R_REMOTE[] = "it runs statements on other servers";
static const char R_SLEEP[] = "it holds a runner for a while; ask the administrator to allow "
			      "sleep for this user";
static const char R_BENCH[] = "it burns CPU on the database server; ask the administrator to "
			      "allow benchmark for this user";
static const char R_TABLEFN[] = "table functions are not supported";
static const char R_HOST[] = "its value carries the database host's network address (a version-1 UUID ends in "
			     "its MAC address); make UUIDs in the client";
static const char R_STATE[] = "it advances a counter shared by the whole server (a write other sessions see)";

/* Sorted by name in strcmp order. */
static const struct name_rule denied[] = {
	{"audit_api_message_emit_udf", false, R_ADMIN},
	{"audit_log_", true, R_ADMIN},
	{"benchmark", false, R_BENCH},
	{"binlog_gtid_pos", false, R_REPL},
	{"can_access_", true, R_INTERNAL},
	{"current_role", false, R_ROLE},
	{"current_user", false, R_ROLE},
	{"get_dd_", true, R_INTERNAL},
	{"get_lock", false, R_LOCK},
	{"internal_", true, R_INTERNAL},
	{"is_free_lock", false, R_LOCK},
	{"is_used_lock", false, R_LOCK},
	{"json_table", false, R_TABLEFN},
	{"keyring_", true, R_ADMIN},
	{"lastval", false, R_SEQ},
	{"lib_mysqludf", true, R_UDF},
	{"load_file", false, R_FILE},
	{"master_gtid_wait", false, R_REPL},
	{"master_pos_wait", false, R_REPL},
	{"mroonga_command", false, R_ADMIN},
	{"nextval", false, R_SEQ},
	{"release_all_locks", false, R_LOCK},
	{"release_lock", false, R_LOCK},
	{"roles_graphml", false, R_ROLE},
	{"service_get_", true, R_LOCK},
	{"service_release_locks", false, R_LOCK},
	{"session_user", false, R_ROLE},
	{"setval", false, R_SEQ},
	{"sleep", false, R_SLEEP},
	{"source_pos_wait", false, R_REPL},
	{"spider_", true, R_REMOTE},
	{"sys_", true, R_UDF},
	{"system_user", false, R_ROLE},
	{"user", false, R_ROLE},
	{"uuid", false, R_HOST},
	{"uuid_short", false, R_STATE},
	{"version_tokens_", true, R_ADMIN},
	{"wait_for_executed_gtid_set", false, R_REPL},
	{"wait_until_sql_thread_after_gtids", false, R_REPL},
	{"wsrep_", true, R_REPL},
};

/*
 * System variables by what a statement may do with them:
 *   read   a read may show the session value (those that describe the
 *          dialect and limits, not the backend host, paths or accounts)
 *   local  only the session answers it (connectors ask at connect)
 *   set    SET may change it (the session keeps some, accepts the rest)
 */
struct sysvar {
	const char *name;
	bool read, local, set;
};

/* Sorted by name in strcmp order. */
static const struct sysvar sysvars[] = {
	{"auto_increment_increment", true, false, false},
	{"auto_increment_offset", true, false, false},
	{"autocommit", true, false, true},
	{"character set", false, false, true},
	{"character_set_client", true, false, true},
	{"character_set_connection", true, false, true},
	{"character_set_database", true, false, false},
	{"character_set_filesystem", true, false, false},
	{"character_set_results", true, false, true},
	{"character_set_server", true, false, true},
	{"character_set_system", true, false, false},
	{"collation_connection", true, false, true},
	{"collation_database", true, false, false},
	{"collation_server", true, false, true},
	{"default_storage_engine", true, false, false},
	{"default_week_format", true, false, true},
	{"div_precision_increment", true, false, true},
	{"error_count", true, false, false},
	{"foreign_key_checks", true, false, true},
	{"group_concat_max_len", true, false, true},
	{"have_query_cache", false, true, false},
	{"init_connect", false, true, false},
	{"interactive_timeout", true, false, true},
	{"lc_time_names", true, false, true},
	{"license", true, false, false},
	{"lower_case_table_names", true, false, false},
	{"max_allowed_packet", true, false, false},
	{"max_execution_time", true, false, true},
	{"max_statement_time", true, false, true},
	{"names", false, false, true},
	{"net_buffer_length", true, false, false},
	{"net_read_timeout", true, false, true},
	{"net_write_timeout", true, false, true},
	{"performance_schema", true, false, false},
	{"query_cache_size", true, false, false},
	{"query_cache_type", true, false, false},
	{"session_track_gtids", false, false, true},
	{"session_track_schema", false, false, true},
	{"session_track_state_change", false, false, true},
	{"session_track_system_variables", false, false, true},
	{"session_track_transaction_info", false, false, true},
	{"sql_auto_is_null", true, false, true},
	{"sql_mode", true, false, true},
	{"sql_notes", true, false, true},
	{"sql_quote_show_create", true, false, true},
	{"sql_safe_updates", true, false, true},
	{"sql_select_limit", true, false, true},
	{"sql_warnings", true, false, true},
	{"system_time_zone", true, false, false},
	{"time_zone", true, false, true},
	{"transaction_isolation", true, false, true},
	{"transaction_read_only", true, false, true},
	{"tx_isolation", true, false, true},
	{"tx_read_only", true, false, true},
	{"unique_checks", true, false, true},
	{"version", true, false, false},
	{"version_comment", true, false, false},
	{"wait_timeout", true, false, true},
	{"warning_count", true, false, false},
};

/*
 * Client character sets: those in which every byte below 0x80 stands for
 * itself and no byte is whitespace or a comment marker other than in
 * utf8mb4. latin1 is not here: its 0xA0 is whitespace to the server.
 */
static const char *const charsets[] = {
	"ascii",
	"utf8",
	"utf8mb3",
	"utf8mb4",
};

#define N(a) NAME_TABLE_LEN(a)

const char *vmy_function_denied(const struct vmy_policy *pol, const char *name)
{
	const struct name_rule *hit = name_rule_find(denied, N(denied), name);

	if (!hit)
		return NULL;
	if (hit->reason == R_SLEEP && pol->allow_sleep)
		return NULL;
	if (hit->reason == R_BENCH && pol->allow_benchmark)
		return NULL;
	return hit->reason;
}

/* The entry for name, or one that allows nothing. */
static const struct sysvar *sysvar(const char *name)
{
	static const struct sysvar unknown;
	const struct sysvar *v = name_table_find(sysvars, N(sysvars), sizeof(sysvars[0]), name);

	return v ? v : &unknown;
}

bool vmy_sysvar_readable(const char *name)
{
	return sysvar(name)->read;
}

bool vmy_sysvar_local(const char *name)
{
	return sysvar(name)->read || sysvar(name)->local;
}

const char *vmy_sysvar_list(void)
{
	return "version, version_comment, sql_mode, autocommit, character_set_*, collation_*, "
	       "time_zone, transaction_isolation, transaction_read_only, max_allowed_packet, "
	       "wait_timeout, interactive_timeout, lower_case_table_names, group_concat_max_len, "
	       "sql_select_limit, max_statement_time, max_execution_time, ...";
}

bool vmy_setting_allowed(const char *name)
{
	return sysvar(name)->set;
}

const char *vmy_setting_list(void)
{
	return "NAMES, CHARACTER SET, autocommit, sql_mode, time_zone, character_set_client / "
	       "_connection / _results, collation_connection, transaction_isolation, "
	       "transaction_read_only (on only), session_track_*, net_*_timeout, wait_timeout, "
	       "interactive_timeout, sql_select_limit, max_statement_time, max_execution_time, "
	       "group_concat_max_len, sql_auto_is_null, sql_safe_updates, sql_quote_show_create, "
	       "sql_notes, sql_warnings, foreign_key_checks, unique_checks, "
	       "div_precision_increment, lc_time_names, default_week_format";
}

bool vmy_charset_allowed(const char *name)
{
	return name_table_find(charsets, N(charsets), sizeof(charsets[0]), name) != NULL;
}

bool vmy_charset_single_byte(const char *name)
{
	return name && (strcasecmp(name, "latin1") == 0 || strcasecmp(name, "binary") == 0);
}

bool vmy_charset_supported(const char *name)
{
	size_t i;

	if (!name || vmy_charset_single_byte(name))
		return true;
	for (i = 0; i < N(charsets); i++) {
		if (strcasecmp(name, charsets[i]) == 0)
			return true;
	}
	return false;
}

bool vmy_tables_sorted(void)
{
	return name_table_sorted(denied, N(denied), sizeof(denied[0])) &&
	       name_table_sorted(sysvars, N(sysvars), sizeof(sysvars[0])) &&
	       name_table_sorted(charsets, N(charsets), sizeof(charsets[0]));
}

/*
 * sql_mode names in MariaDB's own order (the order it prints them in), with
 * what they mean to airlock. M_ANSI_QUOTES and M_NO_BS change lexing;
 * M_VALUES changes what an expression's values are (so a row filter or mask
 * would mean something else than under airlock's default mode); M_REFUSE
 * modes change the grammar beyond what the validator follows.
 */
enum { M_OK = 0, M_ANSI_QUOTES = 1, M_NO_BS = 2, M_REFUSE = 4, M_VALUES = 8 };

struct mode {
	const char *name;
	int flags;
	const char *expands; /* a combination mode: the modes it sets besides itself */
};

static const struct mode modes[] = {
	{"REAL_AS_FLOAT", M_OK, NULL},
	{"PIPES_AS_CONCAT", M_OK, NULL},
	{"ANSI_QUOTES", M_ANSI_QUOTES, NULL},
	{"IGNORE_SPACE", M_OK, NULL},
	{"IGNORE_BAD_TABLE_OPTIONS", M_OK, NULL},
	{"ONLY_FULL_GROUP_BY", M_OK, NULL},
	{"NO_UNSIGNED_SUBTRACTION", M_VALUES, NULL},
	{"NO_DIR_IN_CREATE", M_OK, NULL},
	{"POSTGRESQL", M_REFUSE, NULL},
	{"ORACLE", M_REFUSE, NULL},
	{"MSSQL", M_REFUSE, NULL},
	{"DB2", M_REFUSE, NULL},
	{"MAXDB", M_REFUSE, NULL},
	{"NO_KEY_OPTIONS", M_OK, NULL},
	{"NO_TABLE_OPTIONS", M_OK, NULL},
	{"NO_FIELD_OPTIONS", M_OK, NULL},
	{"MYSQL323", M_REFUSE, NULL},
	{"MYSQL40", M_REFUSE, NULL},
	{"ANSI", M_OK, "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE"},
	{"NO_AUTO_VALUE_ON_ZERO", M_OK, NULL},
	{"NO_BACKSLASH_ESCAPES", M_NO_BS, NULL},
	{"STRICT_TRANS_TABLES", M_OK, NULL},
	{"STRICT_ALL_TABLES", M_OK, NULL},
	{"NO_ZERO_IN_DATE", M_VALUES, NULL},
	{"NO_ZERO_DATE", M_VALUES, NULL},
	{"ALLOW_INVALID_DATES", M_VALUES, NULL},
	{"ERROR_FOR_DIVISION_BY_ZERO", M_OK, NULL},
	{"TRADITIONAL", M_OK,
	 "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
	 "NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION"},
	{"NO_AUTO_CREATE_USER", M_OK, NULL},
	{"HIGH_NOT_PRECEDENCE", M_OK, NULL},
	{"NO_ENGINE_SUBSTITUTION", M_OK, NULL},
	{"PAD_CHAR_TO_FULL_LENGTH", M_VALUES, NULL},
	{"EMPTY_STRING_IS_NULL", M_OK, NULL},
	{"SIMULTANEOUS_ASSIGNMENT", M_OK, NULL},
	{"TIME_ROUND_FRACTIONAL", M_VALUES, NULL},
};

_Static_assert(sizeof(modes) / sizeof(modes[0]) <= 64, "a mode set is a 64-bit mask");

/* Adds the modes of the comma-separated list [s, s + len) to *set; false on an unknown or refused name. */
static bool mode_add(const char *s, size_t len, uint64_t *set)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i, k;
		char word[32];
		bool found = false;

		while (j < len && s[j] != ',')
			j++;
		if (j - i >= sizeof(word))
			return false;
		memcpy(word, s + i, j - i);
		word[j - i] = '\0';
		if (j > i) {
			for (k = 0; k < N(modes); k++) {
				if (strcasecmp(word, modes[k].name) != 0)
					continue;
				if (modes[k].flags & M_REFUSE)
					return false;
				*set |= (uint64_t)1 << k;
				if (modes[k].expands && !mode_add(modes[k].expands, strlen(modes[k].expands), set))
					return false;
				found = true;
				break;
			}
			if (!found)
				return false;
		}
		i = j + 1;
	}
	return true;
}

bool vmy_sql_mode_normalize(const char *mode, size_t len, char *out, size_t cap, unsigned *flags)
{
	uint64_t set = 0;
	unsigned f = 0;
	size_t k, n = 0;

	if ((!mode && len) || !mode_add(mode, len, &set))
		return false;
	for (k = 0; k < N(modes); k++) {
		size_t l = strlen(modes[k].name);

		if (!(set & ((uint64_t)1 << k)))
			continue;
		if (modes[k].flags & M_ANSI_QUOTES)
			f |= VMY_MODE_ANSI_QUOTES;
		if (modes[k].flags & M_NO_BS)
			f |= VMY_MODE_NO_BACKSLASH_ESCAPES;
		if (modes[k].flags & M_VALUES)
			f |= VMY_MODE_VALUES;
		if (out) {
			if (n + (n ? 1 : 0) + l >= cap)
				return false;
			if (n)
				out[n++] = ',';
			memcpy(out + n, modes[k].name, l);
			n += l;
		}
	}
	if (out) {
		if (cap == 0)
			return false;
		out[n] = '\0';
	}
	if (flags)
		*flags = f;
	return true;
}

bool vmy_sql_mode_parse(const char *mode, size_t len, bool *ansi_quotes, bool *no_backslash_escapes)
{
	unsigned f;

	if (!vmy_sql_mode_normalize(mode, len, NULL, 0, &f))
		return false;
	if (ansi_quotes)
		*ansi_quotes = (f & VMY_MODE_ANSI_QUOTES) != 0;
	if (no_backslash_escapes)
		*no_backslash_escapes = (f & VMY_MODE_NO_BACKSLASH_ESCAPES) != 0;
	return true;
}
