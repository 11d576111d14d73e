/*
 * approval_run_my: see approval_run_my.h.
 */
#include "proxy/approval_run_my.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/validator_client.h"
#include "validator/mysql/validate_my.h"
#include "validator/mysql/validate_my_write.h"

bool approval_my_settings(const char *json, json_t **keep, struct job_setting *out, size_t max, size_t *n)
{
	json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, NULL), *v;
	const char *name;

	*keep = NULL;
	*n = 0;
	if (!json_is_object(o) || json_object_size(o) > max) {
		json_decref(o);
		return false;
	}
	json_object_foreach(o, name, v)
	{
		if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v)) {
			json_decref(o);
			*n = 0;
			return false;
		}
		out[(*n)++] = (struct job_setting){name, json_string_value(v)};
	}
	*keep = o;
	return true;
}

static const char *setting(const struct job_setting *set, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(set[i].name, name) == 0)
			return set[i].value;
	return NULL;
}

char *approval_my_made(struct server *srv, const struct airlock_user *u, const char *statement,
		       const struct job_setting *set, size_t n, bool *write_check, char *why, size_t whylen)
{
	const char *mode = setting(set, n, "sql_mode");
	struct vmy_result *v = malloc(sizeof(*v)), *again = malloc(sizeof(*again));
	struct vmy_policy pol = {
		.user = u->name,
		.database = setting(set, n, "database"),
		.tables = (const char *const *)u->mysql_tables,
		.ntables = u->nmysql_tables,
		.allow_sleep = u->mysql_allow_sleep,
		.allow_benchmark = u->mysql_allow_benchmark,
		.charset = setting(set, n, "names"),
		.rules = u->mysql_rules,
		.nrules = u->nmysql_rules,
		.write_tables = (const char *const *)u->mysql_write_tables,
		.nwrite_tables = u->nmysql_write_tables,
	};
	uint64_t fingerprint = 0;
	bool failed = false;
	char *text = NULL;

	*write_check = false;
	snprintf(why, whylen, "out of memory");
	if (!v || !again)
		goto out;
	if (mode)
		vmy_sql_mode_parse(mode, strlen(mode), &pol.ansi_quotes, &pol.no_backslash_escapes);
	vcl_my_validate(srv->validators, &pol, statement, strlen(statement), v, &fingerprint);
	if (v->kind != VMY_WRITE) {
		snprintf(why, whylen, "the policy in force now refuses it: %s",
			 v->kind == VMY_REFUSED ? v->message : "it is not a write");
		goto out;
	}
	text = vcl_my_scope(srv->validators, &pol, statement, strlen(statement), v, &failed, again);
	if (!text || again->kind != VMY_WRITE) {
		snprintf(why, whylen, "the policy in force now refuses it: %s",
			 again->kind == VMY_REFUSED ? again->message : "it could not be scoped");
		free(text);
		text = NULL;
		goto out;
	}
	*write_check = vmy_write_checks(&pol, v);
out:
	free(v);
	free(again);
	return text;
}
