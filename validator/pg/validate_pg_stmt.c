/*
 * validate_pg_stmt: one sorted table of the statement kinds that get a
 * specific name, SQLSTATE or hint; every other kind is DDL or a write as
 * far as a caller is concerned and is refused as NOT_READ_ONLY (25006)
 * under a name derived from its node type ("CreatePolicyStmt" -> "CREATE
 * POLICY").
 */
#include "validator/pg/validate_pg_stmt.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_util.h"

static const char H_READ_ONLY[] =
	"this endpoint only reads: send a SELECT (writes and schema changes are not accepted)";
static const char H_PREPARED[] =
	"send the statement text itself, or use the extended query protocol (Parse/Bind/Execute)";
static const char H_CURSOR[] = "send the SELECT itself; rows stream back and are capped by the row limit";
static const char H_CODE[] = "server-side code is not run; write the query as a SELECT";
static const char H_ADMIN[] = "server administration is not available through this endpoint";
static const char H_LISTEN[] = "notifications are not delivered through this endpoint";
static const char H_CALL[] = "procedures may write; call read-only functions from a SELECT instead";

struct stmt_rule {
	const char *type;      /* parse-tree node name */
	const char *label;     /* SQL name; NULL: derived from type and fields */
	enum airlock_err code; /* sent under its own SQLSTATE */
	const char *hint;
};

/* Sorted by type in strcmp order. */
static const struct stmt_rule rules[] = {
	{"AlterSystemStmt", "ALTER SYSTEM", AIRLOCK_E_FORBIDDEN_STATEMENT, H_ADMIN},
	{"CallStmt", "CALL", AIRLOCK_E_UNSUPPORTED, H_CALL},
	{"CheckPointStmt", "CHECKPOINT", AIRLOCK_E_FORBIDDEN_STATEMENT, H_ADMIN},
	{"ClosePortalStmt", "CLOSE", AIRLOCK_E_UNSUPPORTED, H_CURSOR},
	{"CompositeTypeStmt", "CREATE TYPE", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"ConstraintsSetStmt", "SET CONSTRAINTS", AIRLOCK_E_UNSUPPORTED, H_READ_ONLY},
	{"CreatePLangStmt", "CREATE LANGUAGE", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"CreateSeqStmt", "CREATE SEQUENCE", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"CreateStmt", "CREATE TABLE", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"CreateTrigStmt", "CREATE TRIGGER", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"CreatedbStmt", "CREATE DATABASE", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"DeclareCursorStmt", "DECLARE CURSOR", AIRLOCK_E_UNSUPPORTED, H_CURSOR},
	{"DoStmt", "DO", AIRLOCK_E_FORBIDDEN_STATEMENT, H_CODE},
	{"DropdbStmt", "DROP DATABASE", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"ExecuteStmt", "EXECUTE", AIRLOCK_E_UNSUPPORTED, H_PREPARED},
	{"FetchStmt", NULL, AIRLOCK_E_UNSUPPORTED, H_CURSOR},
	{"IndexStmt", "CREATE INDEX", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"ListenStmt", "LISTEN", AIRLOCK_E_UNSUPPORTED, H_LISTEN},
	{"LoadStmt", "LOAD", AIRLOCK_E_FORBIDDEN_STATEMENT, H_CODE},
	{"NotifyStmt", "NOTIFY", AIRLOCK_E_NOT_READ_ONLY, H_LISTEN},
	{"PrepareStmt", "PREPARE", AIRLOCK_E_UNSUPPORTED, H_PREPARED},
	{"RefreshMatViewStmt", "REFRESH MATERIALIZED VIEW", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"RuleStmt", "CREATE RULE", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"SecLabelStmt", "SECURITY LABEL", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
	{"UnlistenStmt", "UNLISTEN", AIRLOCK_E_UNSUPPORTED, H_LISTEN},
	{"ViewStmt", "CREATE VIEW", AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY},
};

static const struct stmt_rule default_rule = {NULL, NULL, AIRLOCK_E_NOT_READ_ONLY, H_READ_ONLY};

static int cmp_rule(const void *key, const void *elem)
{
	return strcmp(key, ((const struct stmt_rule *)elem)->type);
}

static const struct stmt_rule *find_rule(const char *type)
{
	const struct stmt_rule *r;

	r = bsearch(type, rules, sizeof(rules) / sizeof(rules[0]), sizeof(rules[0]), cmp_rule);
	return r ? r : &default_rule;
}

/* "OBJECT_FOREIGN_TABLE" -> "FOREIGN TABLE", "OBJECT_MATVIEW" -> "MATERIALIZED VIEW". */
static void object_words(const char *objtype, char *buf, size_t bufsz)
{
	size_t i;

	if (strncmp(objtype, "OBJECT_", 7) == 0)
		objtype += 7;
	if (strcmp(objtype, "MATVIEW") == 0)
		objtype = "MATERIALIZED VIEW";
	snprintf(buf, bufsz, "%s", objtype);
	for (i = 0; buf[i] != '\0'; i++) {
		if (buf[i] == '_')
			buf[i] = ' ';
	}
}

/* "CreatePolicyStmt" -> "CREATE POLICY". */
static void camel_words(const char *type, char *buf, size_t bufsz)
{
	size_t len = strlen(type), o = 0, i;

	if (len > 4 && strcmp(type + len - 4, "Stmt") == 0)
		len -= 4;
	for (i = 0; i < len && o + 2 < bufsz; i++) {
		char c = type[i];

		if (i > 0 && c >= 'A' && c <= 'Z' && type[i - 1] >= 'a' && type[i - 1] <= 'z')
			buf[o++] = ' ';
		buf[o++] = (c >= 'a' && c <= 'z') ? (char)(c - 32) : c;
	}
	buf[o] = '\0';
}

void pgv_statement_label(const char *type, json_t *body, char *buf, size_t bufsz)
{
	const struct stmt_rule *r = find_rule(type);
	char obj[64];
	const char *s;

	if (strcmp(type, "DropStmt") == 0 && (s = pgv_str(body, "removeType"))) {
		object_words(s, obj, sizeof(obj));
		snprintf(buf, bufsz, "DROP %s", obj);
	} else if (strcmp(type, "RenameStmt") == 0 && (s = pgv_str(body, "renameType"))) {
		object_words(s, obj, sizeof(obj));
		snprintf(buf, bufsz, "ALTER %s RENAME", obj);
	} else if (strcmp(type, "DefineStmt") == 0 && (s = pgv_str(body, "kind"))) {
		object_words(s, obj, sizeof(obj));
		snprintf(buf, bufsz, "CREATE %s", obj);
	} else if (strcmp(type, "CreateTableAsStmt") == 0) {
		s = pgv_str(body, "objtype");
		snprintf(buf, bufsz, "%s",
			 s && strcmp(s, "OBJECT_MATVIEW") == 0 ? "CREATE MATERIALIZED VIEW" : "CREATE TABLE AS");
	} else if (strcmp(type, "CopyStmt") == 0) {
		snprintf(buf, bufsz, "%s", json_is_true(json_object_get(body, "is_from")) ? "COPY FROM" : "COPY TO");
	} else if (strcmp(type, "GrantStmt") == 0 || strcmp(type, "GrantRoleStmt") == 0) {
		snprintf(buf, bufsz, "%s", json_is_true(json_object_get(body, "is_grant")) ? "GRANT" : "REVOKE");
	} else if (strcmp(type, "VacuumStmt") == 0) {
		snprintf(buf, bufsz, "%s", json_is_true(json_object_get(body, "is_vacuumcmd")) ? "VACUUM" : "ANALYZE");
	} else if (strcmp(type, "FetchStmt") == 0) {
		snprintf(buf, bufsz, "%s", json_is_true(json_object_get(body, "ismove")) ? "MOVE" : "FETCH");
	} else if (strcmp(type, "AlterTableStmt") == 0 && (s = pgv_str(body, "objtype"))) {
		object_words(s, obj, sizeof(obj));
		snprintf(buf, bufsz, "ALTER %s", obj);
	} else if (r->label) {
		snprintf(buf, bufsz, "%s", r->label);
	} else {
		camel_words(type, buf, bufsz);
	}
}

void pgv_refuse_statement(const char *type, json_t *body, const char *prefix, struct pgv_result *out)
{
	const struct stmt_rule *r = find_rule(type);
	const char *hint = r->hint;
	enum airlock_err code = r->code;
	char label[96];

	pgv_statement_label(type, body, label, sizeof(label));
	if (strcmp(type, "CopyStmt") == 0 && !json_is_true(json_object_get(body, "is_from"))) {
		/* COPY TO a server file or a program writes or runs something; TO STDOUT is validated as a read. */
		code = AIRLOCK_E_UNSUPPORTED;
		hint = "COPY (SELECT ...) TO STDOUT (psql: \\copy) sends the rows to you";
	}
	pgv_refuse(out, code, AIRLOCK_N_NONE, 0, hint,
		   "%s%s is not allowed%s: only SELECT, VALUES, TABLE, EXPLAIN (without "
		   "ANALYZE) and SHOW run here, plus session commands (SET, RESET, BEGIN, "
		   "COMMIT, ROLLBACK, SAVEPOINT, DISCARD)",
		   prefix, label, code == AIRLOCK_E_NOT_READ_ONLY ? " on a read-only endpoint" : "");
}
