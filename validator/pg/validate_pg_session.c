/*
 * validate_pg_session: session statements. SET values are rendered the way
 * Postgres flattens SET arguments for display: constants joined by ", ",
 * elements of list settings that need it (search_path, ...) double-quoted
 * as identifiers. Only string and number constants are accepted as values.
 */
#include "validator/pg/validate_pg_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validator/pg/validate_pg_util.h"

/* Appends into a fixed buffer; overflow is sticky and checked once. */
struct sbuf {
	char *buf;
	size_t size;
	size_t len;
	bool overflow;
};

static void sb_putc(struct sbuf *sb, char c)
{
	if (sb->len + 1 >= sb->size) {
		sb->overflow = true;
		return;
	}
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

static void sb_puts(struct sbuf *sb, const char *s)
{
	for (; *s; s++)
		sb_putc(sb, *s);
}

static bool is_one_of(const char *name, const char *const *list)
{
	for (; *list; list++) {
		if (strcmp(name, *list) == 0)
			return true;
	}
	return false;
}

/* Settings whose list elements Postgres quotes as identifiers. */
static const char *const list_quote_settings[] = {"local_preload_libraries",   "search_path",
						  "session_preload_libraries", "shared_preload_libraries",
						  "temp_tablespaces",          NULL};

/* Settings that would load server code. */
static const char *const code_loading_settings[] = {"dynamic_library_path", "local_preload_libraries",
						    "session_preload_libraries", "shared_preload_libraries", NULL};

static const char *const read_only_settings[] = {"default_transaction_read_only", "transaction_read_only", NULL};

static const char *const identity_settings[] = {"role", "session_authorization", NULL};

static bool is_plain_identifier(const char *s)
{
	size_t i;

	if (!((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (i = 1; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$'))
			return false;
	}
	return true;
}

static void put_identifier(struct sbuf *sb, const char *s)
{
	if (is_plain_identifier(s)) {
		sb_puts(sb, s);
		return;
	}
	sb_putc(sb, '"');
	for (; *s; s++) {
		if (*s == '"')
			sb_putc(sb, '"');
		sb_putc(sb, *s);
	}
	sb_putc(sb, '"');
}

/*
 * libpg_query's JSON leaves out integer values that are zero or negative,
 * so such an integer is read back from the statement text at its location.
 */
static bool int_from_text(const char *sql, json_t *aconst, long long *v)
{
	json_t *loc = json_object_get(aconst, "location");
	const char *p;
	char *end;
	bool neg = false;
	long long n;

	if (!json_is_integer(loc) || json_integer_value(loc) < 0 || (size_t)json_integer_value(loc) >= strlen(sql))
		return false;
	p = sql + json_integer_value(loc);
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
	}
	if (*p < '0' || *p > '9')
		return false;
	n = strtoll(p, &end, 10);
	*v = neg ? -n : n;
	return true;
}

/* Renders one SET argument; false when it is not a simple constant. */
/*
 * SET TIME ZONE INTERVAL '+05:30' HOUR TO MINUTE (Sequelize sends it at
 * connect): the fixed offset as Postgres stores it, a POSIX zone whose
 * sign is the other way, "<+05:30>-05:30" (minutes left out when 0).
 * Accepted: [+-]H[H][:MM] and [+-]N hour[s]; false for anything else.
 */
static bool put_interval_zone(struct sbuf *sb, json_t *cast)
{
	json_t *sval = json_object_get(json_object_get(json_object_get(cast, "arg"), "A_Const"), "sval");
	json_t *names = json_object_get(json_object_get(cast, "typeName"), "names");
	json_t *last = json_array_get(names, json_array_size(names) ? json_array_size(names) - 1 : 0);
	const char *t = pgv_str(sval, "sval"), *type = pgv_str(json_object_get(last, "String"), "sval");
	int sign = 1, h = 0, m = 0, n = 0;
	char out[64];

	if (!t || !type || strcmp(type, "interval") != 0)
		return false;
	while (*t == ' ')
		t++;
	if (*t == '+' || *t == '-')
		sign = *t++ == '-' ? -1 : 1;
	if (sscanf(t, "%2d:%2d%n", &h, &m, &n) == 2 || sscanf(t, "%2d hour%n", &h, &n) == 1 ||
	    sscanf(t, "%2d%n", &h, &n) == 1) {
		t += n;
		if (*t == 's' && n && t[-1] == 'r')
			t++;
		while (*t == ' ')
			t++;
	}
	if (*t || n == 0 || h < 0 || m < 0 || h > 15 || m > 59 || (h == 15 && m))
		return false;
	if (m)
		snprintf(out, sizeof(out), "<%c%02d:%02d>%c%02d:%02d", sign > 0 ? '+' : '-', h, m, sign > 0 ? '-' : '+',
			 h, m);
	else
		snprintf(out, sizeof(out), "<%c%02d>%c%02d", sign > 0 ? '+' : '-', h, sign > 0 ? '-' : '+', h);
	sb_puts(sb, out);
	return true;
}

static bool put_arg(struct sbuf *sb, const char *sql, const char *name, json_t *arg)
{
	json_t *c = json_object_get(arg, "A_Const");
	json_t *x;
	char num[32];

	if (!strcmp(name, "timezone") && json_is_object(json_object_get(arg, "TypeCast")))
		return put_interval_zone(sb, json_object_get(arg, "TypeCast"));
	if (!json_is_object(c))
		return false;
	if ((x = json_object_get(c, "sval"))) {
		const char *s = pgv_str(x, "sval");

		if (!s)
			s = "";
		if (is_one_of(name, list_quote_settings))
			put_identifier(sb, s);
		else
			sb_puts(sb, s);
		return true;
	}
	if ((x = json_object_get(c, "ival"))) {
		long long v;

		if (json_is_integer(json_object_get(x, "ival")))
			v = json_integer_value(json_object_get(x, "ival"));
		else if (!int_from_text(sql, c, &v))
			return false;
		snprintf(num, sizeof(num), "%lld", v);
		sb_puts(sb, num);
		return true;
	}
	if ((x = json_object_get(c, "fval"))) {
		const char *s = pgv_str(x, "fval");

		if (!s)
			return false;
		sb_puts(sb, s);
		return true;
	}
	if ((x = json_object_get(c, "boolval"))) {
		sb_puts(sb, json_is_true(json_object_get(x, "boolval")) ? "on" : "off");
		return true;
	}
	return false;
}

static bool truthy(const char *v)
{
	static const char *const yes[] = {"on", "true", "yes", "1", "t", "y", NULL};
	char lower[16];

	return pgv_lower_copy(lower, sizeof(lower), v) && is_one_of(lower, yes);
}

/* Options of BEGIN / SET TRANSACTION: read_write and the isolation level. */
static void transaction_options(json_t *opts, struct pgv_result *out)
{
	size_t i;

	for (i = 0; i < json_array_size(opts); i++) {
		json_t *d = json_object_get(json_array_get(opts, i), "DefElem");
		const char *defname = pgv_str(d, "defname");
		json_t *c = json_object_get(json_object_get(d, "arg"), "A_Const");

		if (!defname)
			continue;
		if (strcmp(defname, "transaction_read_only") == 0) {
			json_t *iv = json_object_get(json_object_get(c, "ival"), "ival");

			/* READ ONLY is 1; READ WRITE is 0, which the JSON leaves out. */
			out->read_write = !json_is_integer(iv) || json_integer_value(iv) == 0;
			out->read_only = !out->read_write;
		} else if (strcmp(defname, "transaction_isolation") == 0) {
			const char *lvl = pgv_str(json_object_get(c, "sval"), "sval");

			if (lvl)
				snprintf(out->value, sizeof(out->value), "%s", lvl);
		}
	}
}

static enum pgv_kind set_multi(json_t *body, const char *name, struct pgv_result *out)
{
	if (strcmp(name, "TRANSACTION") == 0 || strcmp(name, "SESSION CHARACTERISTICS") == 0) {
		snprintf(out->name, sizeof(out->name), "%s",
			 name[0] == 'T' ? "transaction" : "session_characteristics");
		transaction_options(json_object_get(body, "args"), out);
		out->kind = PGV_SET_TRANSACTION;
		return out->kind;
	}
	if (strcmp(name, "TRANSACTION SNAPSHOT") == 0) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, "each statement runs in its own snapshot",
			   "SET TRANSACTION SNAPSHOT is not supported");
		return out->kind;
	}
	pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, NULL, "SET %s is not supported", name);
	return out->kind;
}

/* Refuses settings that change identity, load code or turn read-only off. */
static bool refuse_setting(const char *name, bool resetting, struct pgv_result *out)
{
	if (is_one_of(name, identity_settings)) {
		pgv_refuse(out, AIRLOCK_E_FORBIDDEN_STATEMENT, AIRLOCK_N_NONE, 0,
			   "queries always run as the endpoint's read-only role", "%s %s is not allowed",
			   resetting ? "RESET" : "SET", strcmp(name, "role") == 0 ? "ROLE" : "SESSION AUTHORIZATION");
		return true;
	}
	if (is_one_of(name, code_loading_settings)) {
		pgv_refuse(out, AIRLOCK_E_FORBIDDEN_STATEMENT, AIRLOCK_N_NONE, 0,
			   "server-side code cannot be loaded through this endpoint", "changing %s is not allowed",
			   name);
		return true;
	}
	if (resetting && is_one_of(name, read_only_settings)) {
		pgv_refuse(out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, 0,
			   "transactions here are always read-only; leave the setting alone",
			   "resetting %s is not allowed", name);
		return true;
	}
	return false;
}

enum pgv_kind pgv_session_set(const char *sql, json_t *body, struct pgv_result *out)
{
	const char *kind = pgv_str(body, "kind");
	const char *rawname = pgv_str(body, "name");
	json_t *args = json_object_get(body, "args");
	struct sbuf sb = {out->value, sizeof(out->value), 0, false};
	size_t i;

	if (!kind) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, NULL, "unrecognised SET statement");
		return out->kind;
	}
	if (strcmp(kind, "VAR_RESET_ALL") == 0) {
		snprintf(out->name, sizeof(out->name), "all");
		out->kind = PGV_RESET;
		return out->kind;
	}
	if (!rawname) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, NULL, "unrecognised SET statement");
		return out->kind;
	}
	if (strcmp(kind, "VAR_SET_MULTI") == 0)
		return set_multi(body, rawname, out);
	if (!pgv_lower_copy(out->name, sizeof(out->name), rawname)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_NAME_TOO_LONG, 0,
			   "setting names are at most 63 bytes", "setting name is too long");
		return out->kind;
	}
	out->is_local = json_is_true(json_object_get(body, "is_local"));
	if (strcmp(kind, "VAR_RESET") == 0) {
		if (refuse_setting(out->name, true, out))
			return out->kind;
		out->kind = PGV_RESET;
		return out->kind;
	}
	if (strcmp(kind, "VAR_SET_DEFAULT") == 0) {
		if (refuse_setting(out->name, true, out))
			return out->kind;
		out->set_default = true;
		out->kind = PGV_SET;
		return out->kind;
	}
	if (strcmp(kind, "VAR_SET_VALUE") != 0) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, "give the value as a constant",
			   "SET %s FROM CURRENT is not supported", out->name);
		return out->kind;
	}
	if (refuse_setting(out->name, false, out))
		return out->kind;
	out->value[0] = '\0';
	for (i = 0; i < json_array_size(args); i++) {
		if (i > 0)
			sb_puts(&sb, ", ");
		if (!put_arg(&sb, sql, out->name, json_array_get(args, i))) {
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0,
				   "give the value as a string or number constant, e.g. SET TIME ZONE 'UTC'",
				   "this form of SET %s value is not supported", out->name);
			return out->kind;
		}
	}
	if (sb.overflow) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED, 0, NULL,
			   "value for %s is too long (at most %zu bytes)", out->name, sizeof(out->value) - 1);
		return out->kind;
	}
	if (is_one_of(out->name, read_only_settings) && !truthy(out->value)) {
		pgv_refuse(out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, 0, "transactions here are always read-only",
			   "SET %s = %s is not allowed on a read-only endpoint", out->name, out->value);
		return out->kind;
	}
	out->kind = PGV_SET;
	return out->kind;
}

enum pgv_kind pgv_session_show(json_t *body, struct pgv_result *out)
{
	const char *name = pgv_str(body, "name");

	if (!name || !pgv_lower_copy(out->name, sizeof(out->name), name)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_NAME_TOO_LONG, 0,
			   "setting names are at most 63 bytes", "setting name is too long");
		return out->kind;
	}
	out->kind = PGV_SHOW;
	return out->kind;
}

static bool copy_savepoint(json_t *body, struct pgv_result *out)
{
	const char *name = pgv_str(body, "savepoint_name");
	int n;

	if (!name)
		name = "";
	n = snprintf(out->name, sizeof(out->name), "%s", name);
	if (n < 0 || (size_t)n >= sizeof(out->name)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_NAME_TOO_LONG, 0,
			   "savepoint names are at most 63 bytes", "savepoint name is too long");
		return false;
	}
	return true;
}

enum pgv_kind pgv_session_transaction(json_t *body, struct pgv_result *out)
{
	const char *kind = pgv_str(body, "kind");
	bool chain = json_is_true(json_object_get(body, "chain"));

	if (!kind)
		kind = "";
	if (strcmp(kind, "TRANS_STMT_BEGIN") == 0 || strcmp(kind, "TRANS_STMT_START") == 0) {
		transaction_options(json_object_get(body, "options"), out);
		out->kind = PGV_BEGIN;
	} else if (strcmp(kind, "TRANS_STMT_COMMIT") == 0 || strcmp(kind, "TRANS_STMT_ROLLBACK") == 0) {
		bool commit = strcmp(kind, "TRANS_STMT_COMMIT") == 0;

		if (chain) {
			pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0,
				   "end the transaction, then send BEGIN", "%s AND CHAIN is not supported",
				   commit ? "COMMIT" : "ROLLBACK");
			return out->kind;
		}
		out->kind = commit ? PGV_COMMIT : PGV_ROLLBACK;
	} else if (strcmp(kind, "TRANS_STMT_SAVEPOINT") == 0) {
		if (copy_savepoint(body, out))
			out->kind = PGV_SAVEPOINT;
	} else if (strcmp(kind, "TRANS_STMT_RELEASE") == 0) {
		if (copy_savepoint(body, out))
			out->kind = PGV_RELEASE;
	} else if (strcmp(kind, "TRANS_STMT_ROLLBACK_TO") == 0) {
		if (copy_savepoint(body, out))
			out->kind = PGV_ROLLBACK_TO;
	} else {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, 0, "use BEGIN / COMMIT / ROLLBACK",
			   "two-phase commit (PREPARE TRANSACTION, COMMIT PREPARED, "
			   "ROLLBACK PREPARED) is not supported");
	}
	return out->kind;
}

enum pgv_kind pgv_session_deallocate(json_t *body, struct pgv_result *out)
{
	const char *name = pgv_str(body, "name");

	/* DEALLOCATE ALL has no name. */
	snprintf(out->name, sizeof(out->name), "%s", name ? name : "");
	out->kind = PGV_DEALLOCATE;
	return out->kind;
}

enum pgv_kind pgv_session_discard(json_t *body, struct pgv_result *out)
{
	static const struct pgv_word targets[] = {
		{"DISCARD_PLANS", "plans"},
		{"DISCARD_SEQUENCES", "sequences"},
		{"DISCARD_TEMP", "temp"},
	};
	const char *name = pgv_enum_word(body, "target", targets, sizeof(targets) / sizeof(targets[0]), "all");
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->kind = PGV_DISCARD;
	return out->kind;
}

/* The text of a string constant node, or NULL. */
static const char *const_string(json_t *node)
{
	json_t *c = json_object_get(node, "A_Const");

	return c ? pgv_str(json_object_get(c, "sval"), "sval") : NULL;
}

/* 1 / 0 for a boolean constant node, -1 for anything else. */
static int const_bool(json_t *node)
{
	json_t *c = json_object_get(node, "A_Const"), *b = c ? json_object_get(c, "boolval") : NULL;

	if (!json_is_object(b))
		return -1;
	return json_is_true(json_object_get(b, "boolval")) ? 1 : 0;
}

/* A ColumnRef node of the one bare name col. */
static bool bare_column(json_t *node, const char *col)
{
	json_t *fields = json_object_get(json_object_get(node, "ColumnRef"), "fields");
	const char *s = pgv_str(json_object_get(json_array_get(fields, 0), "String"), "sval");

	return json_array_size(fields) == 1 && s && strcmp(s, col) == 0;
}

/*
 * pg_dump's form, FROM [pg_catalog.]pg_settings WHERE name = 'setting', with
 * set_config's first argument the column name: the setting's name, or NULL
 * when select is not of that form.
 */
static const char *settings_row(json_t *select, json_t *first_arg)
{
	json_t *from = json_object_get(select, "fromClause");
	json_t *rv = json_object_get(json_array_get(from, 0), "RangeVar");
	json_t *op = json_object_get(json_object_get(select, "whereClause"), "A_Expr");
	json_t *opname = json_object_get(op, "name");
	const char *rel = pgv_str(rv, "relname"), *schema = pgv_str(rv, "schemaname");
	const char *eq = pgv_str(json_object_get(json_array_get(opname, 0), "String"), "sval");
	const char *kind = pgv_str(op, "kind");

	if (json_array_size(from) != 1 || !rel || strcmp(rel, "pg_settings") != 0 ||
	    (schema && strcmp(schema, "pg_catalog") != 0) || json_object_get(rv, "alias") ||
	    !json_is_true(json_object_get(rv, "inh")) || json_array_size(opname) != 1 || !eq || strcmp(eq, "=") != 0 ||
	    !kind || strcmp(kind, "AEXPR_OP") != 0 || !bare_column(json_object_get(op, "lexpr"), "name") ||
	    !bare_column(first_arg, "name"))
		return NULL;
	return const_string(json_object_get(op, "rexpr"));
}

bool pgv_session_set_config(const char *sql, json_t *select, struct pgv_result *out)
{
	json_t *targets = json_object_get(select, "targetList"), *rt, *call, *name, *args;
	const char *key, *label, *setting, *value, *alias;
	bool from_settings = json_object_get(select, "fromClause") != NULL;
	size_t n;
	int local;

	/* Nothing but the select list (and the two keys every SELECT has), or pg_dump's form. */
	json_object_foreach(select, key, rt)
	{
		if (strcmp(key, "targetList") != 0 && strcmp(key, "limitOption") != 0 && strcmp(key, "op") != 0 &&
		    (!from_settings || (strcmp(key, "fromClause") != 0 && strcmp(key, "whereClause") != 0)))
			return false;
	}
	if (json_array_size(targets) != 1)
		return false;
	rt = json_object_get(json_array_get(targets, 0), "ResTarget");
	call = json_object_get(json_object_get(rt, "val"), "FuncCall");
	name = json_object_get(call, "funcname");
	args = json_object_get(call, "args");
	n = json_array_size(name);
	if (!call || n == 0 || n > 2 || json_array_size(args) != 3 || json_object_size(call) > 4)
		return false;
	label = pgv_str(json_object_get(json_array_get(name, n - 1), "String"), "sval");
	if (!label || strcmp(label, "set_config") != 0)
		return false;
	if (n == 2) {
		const char *schema = pgv_str(json_object_get(json_array_get(name, 0), "String"), "sval");

		if (!schema || strcmp(schema, "pg_catalog") != 0)
			return false;
	}
	setting = from_settings ? settings_row(select, json_array_get(args, 0)) : const_string(json_array_get(args, 0));
	value = const_string(json_array_get(args, 1));
	local = const_bool(json_array_get(args, 2));
	if (!setting || !value || local < 0)
		return false;
	(void)sql;
	memset(out, 0, sizeof(*out));
	out->kind = PGV_REFUSED;
	if (!pgv_lower_copy(out->name, sizeof(out->name), setting)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_NAME_TOO_LONG, 0,
			   "setting names are at most 63 bytes", "setting name is too long");
		return true;
	}
	if (refuse_setting(out->name, false, out))
		return true;
	if (snprintf(out->value, sizeof(out->value), "%s", value) >= (int)sizeof(out->value)) {
		pgv_refuse(out, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED, 0, NULL,
			   "value for %s is too long (at most %zu bytes)", out->name, sizeof(out->value) - 1);
		return true;
	}
	if (is_one_of(out->name, read_only_settings) && !truthy(out->value)) {
		pgv_refuse(out, AIRLOCK_E_NOT_READ_ONLY, AIRLOCK_N_NONE, 0, "transactions here are always read-only",
			   "set_config(%s, %s) is not allowed on a read-only endpoint", out->name, out->value);
		return true;
	}
	alias = pgv_str(rt, "name");
	snprintf(out->column, sizeof(out->column), "%s", alias && alias[0] ? alias : "set_config");
	out->is_local = local == 1;
	out->set_config = true;
	out->kind = PGV_SET;
	return true;
}
