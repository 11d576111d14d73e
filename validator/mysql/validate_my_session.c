/*
 * validate_my_session: see validate_my_session.h.
 */
#include "validator/mysql/validate_my_session.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "validator/mysql/validate_my_funcs.h"
#include "validator/mysql/validate_my_names.h"

static const char LITERAL_HINT[] = "set it to a literal value: a number, a quoted string, ON / OFF or DEFAULT";

static void refuse_global(struct vmy_parser *p, const char *what)
{
	vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE,
		   "airlock only changes settings of your own session: use SET SESSION name = value",
		   "Access denied; you need (at least one of) the SUPER privilege(s) for this "
		   "operation (%s)",
		   what);
}

static void refuse_setting(struct vmy_parser *p, const char *name, const char *why)
{
	char hint[512];

	snprintf(hint, sizeof(hint), "%s; settings airlock accepts: %s", why, vmy_setting_list());
	vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE, hint,
		   "Access denied; SET %.64s is not allowed through airlock", name);
}

static struct vmy_assign *new_assign(struct vmy_parser *p)
{
	struct vmy_assign *a;

	if (p->out->nassigns >= VMY_MAX_ASSIGNS) {
		vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "split the SET into several statements",
			   "Not supported through airlock: more than %d settings in one SET", VMY_MAX_ASSIGNS);
		return NULL;
	}
	a = &p->out->assigns[p->out->nassigns++];
	memset(a, 0, sizeof(*a));
	return a;
}

static bool is_charset_setting(const char *name)
{
	return strcmp(name, "names") == 0 || strcmp(name, "character set") == 0 ||
	       strncmp(name, "character_set_", 14) == 0 || strncmp(name, "collation_", 10) == 0;
}

static void copy_case(char *dst, size_t size, const char *src, size_t n, bool lower)
{
	size_t i;

	vmy_lower_copy(dst, size, src, n);
	for (i = 0; !lower && dst[i]; i++) {
		if (dst[i] >= 'a' && dst[i] <= 'z')
			dst[i] = (char)(dst[i] - 32);
	}
}

/* Adjacent string literals ('a' 'b' is 'ab') appended to buf. */
static bool strings(struct vmy_parser *p, char *buf, size_t size, size_t *used)
{
	while (vmy_peek(p, 0)->kind == VMY_T_STRING) {
		if (!vmy_tok_string(p->sql, vmy_peek(p, 0), p->pol->no_backslash_escapes, buf, size, used)) {
			vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE, "use a shorter value",
				   "Access denied; the value is too long or holds a NUL byte");
			return false;
		}
		vmy_next(p);
	}
	return true;
}

/* @@[scope.]name, which must be a's own: the value starts from the current one. */
static bool current_value(struct vmy_parser *p, struct vmy_assign *a)
{
	char name[VMY_NAME_MAX], lower[VMY_NAME_MAX];
	const struct vmy_token *t;

	vmy_next(p); /* @@ */
	t = vmy_peek(p, 0);
	if (t->kind == VMY_T_WORD && vmy_punct_at(p, 1, ".") &&
	    (vmy_word_is(p, t, "GLOBAL") || vmy_word_is(p, t, "SESSION") || vmy_word_is(p, t, "LOCAL"))) {
		vmy_next(p);
		vmy_next(p);
	}
	if (vmy_tok_ident(p->sql, vmy_peek(p, 0), name, sizeof(name)) <= 0)
		return false;
	vmy_lower_copy(lower, sizeof(lower), name, strlen(name));
	if (strcmp(lower, a->name) != 0)
		return false;
	vmy_next(p);
	a->append = true;
	return true;
}

/* One string literal (adjacent ones joined) into buf. */
static bool one_string(struct vmy_parser *p, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	return vmy_peek(p, 0)->kind == VMY_T_STRING && strings(p, buf, size, &used);
}

/*
 * The value as an expression of the current one, as ORMs write it
 * (ActiveRecord's CONCAT(CONCAT(@@sql_mode, ',STRICT_ALL_TABLES'),
 * ',NO_AUTO_VALUE_ON_ZERO') and REPLACE(REPLACE(@@sql_mode,
 * 'STRICT_TRANS_TABLES', ''), ...)):
 *   expr := @@name | CONCAT(expr, 'a', ...) | REPLACE(expr, 'from', 'to')
 * where a REPLACE holds no CONCAT (so every REPLACE applies to the current
 * value and the literals are appended after them). a->append and
 * a->replace say how; a->value is the suffix, its length in *used.
 */
static bool value_expr(struct vmy_parser *p, struct vmy_assign *a, size_t *used, bool in_replace, int depth)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	bool concat;

	if (depth > 2 * VMY_MAX_REPLACE)
		return false;
	if (t->kind == VMY_T_ATAT)
		return current_value(p, a);
	concat = t->kind == VMY_T_WORD && vmy_word_is(p, t, "CONCAT");
	if ((!concat && !(t->kind == VMY_T_WORD && vmy_word_is(p, t, "REPLACE"))) || !vmy_punct_at(p, 1, "(") ||
	    (concat && in_replace))
		return false;
	vmy_next(p);
	vmy_next(p);
	if (!value_expr(p, a, used, !concat, depth + 1))
		return false;
	if (concat) {
		while (vmy_accept_punct(p, ",")) {
			if (vmy_peek(p, 0)->kind != VMY_T_STRING || !strings(p, a->value, sizeof(a->value), used))
				return false;
		}
	} else {
		struct vmy_replace *r = &a->replace[a->nreplace];

		if (a->nreplace >= VMY_MAX_REPLACE || !vmy_accept_punct(p, ",") ||
		    !one_string(p, r->from, sizeof(r->from)) || !vmy_accept_punct(p, ",") ||
		    !one_string(p, r->to, sizeof(r->to)) || !r->from[0])
			return false;
		a->nreplace++;
	}
	return vmy_accept_punct(p, ")");
}

/*
 * A literal value at the current token into a: strings (unescaped,
 * adjacent ones joined), [+-]numbers as written, words upper-cased
 * (lower-cased for character sets and collations). Refuses anything
 * else, and anything after the literal but ',' or the end.
 */
static bool literal(struct vmy_parser *p, struct vmy_assign *a)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	bool cs = is_charset_setting(a->name);
	size_t used = 0;

	if (t->kind == VMY_T_STRING) {
		if (!strings(p, a->value, sizeof(a->value), &used))
			return false;
		a->quoted = true;
		if (cs)
			vmy_lower_copy(a->value, sizeof(a->value), a->value, used);
	} else if (t->kind == VMY_T_NUMBER || ((vmy_tok_punct(p->sql, t, "-") || vmy_tok_punct(p->sql, t, "+")) &&
					       vmy_peek(p, 1)->kind == VMY_T_NUMBER)) {
		bool neg = vmy_tok_punct(p->sql, t, "-");

		if (t->kind != VMY_T_NUMBER) {
			vmy_next(p);
			t = vmy_peek(p, 0);
		}
		if (t->len + 2 > sizeof(a->value)) {
			refuse_setting(p, a->name, "the number is too long");
			return false;
		}
		snprintf(a->value, sizeof(a->value), "%s%.*s", neg ? "-" : "", (int)t->len, p->sql + t->start);
		vmy_next(p);
	} else if (t->kind == VMY_T_WORD) {
		if ((strcmp(a->name, "sql_mode") == 0 || strncmp(a->name, "session_track_", 14) == 0) &&
		    (vmy_word_is(p, t, "CONCAT") || vmy_word_is(p, t, "REPLACE")) && vmy_punct_at(p, 1, "(")) {
			if (!value_expr(p, a, &used, false, 0)) {
				if (!p->failed)
					refuse_setting(
						p, a->name,
						"the only expressions accepted are CONCAT(@@name, 'literal', ...) "
						"and REPLACE(@@name, 'from', 'to'), nested, with no CONCAT "
						"inside a REPLACE");
				return false;
			}
		} else {
			if (t->len >= sizeof(a->value)) {
				refuse_setting(p, a->name, "the value is too long");
				return false;
			}
			a->is_default = vmy_word_is(p, t, "DEFAULT");
			copy_case(a->value, sizeof(a->value), p->sql + t->start, t->len,
				  cs && !a->is_default && !vmy_word_is(p, t, "NULL"));
			vmy_next(p);
		}
	} else {
		refuse_setting(p, a->name, LITERAL_HINT);
		return false;
	}
	if (!vmy_at_end(p) && !vmy_punct_at(p, 0, ",")) {
		refuse_setting(p, a->name, LITERAL_HINT);
		return false;
	}
	return true;
}

/*
 * utf8mb4, utf8mb3, utf8 and ascii always; latin1 and binary only when the
 * session tells the validator the character set (pol->charset set), since
 * they are lexed differently.
 */
static bool charset_ok(struct vmy_parser *p, const struct vmy_assign *a)
{
	char hint[256];

	if (!a->is_default && (vmy_charset_allowed(a->value) || (p->pol->charset && vmy_charset_single_byte(a->value))))
		return true;
	snprintf(hint, sizeof(hint),
		 "airlock reads statements as utf8mb4: use SET NAMES utf8mb4 "
		 "(utf8, utf8mb3 and ascii are accepted too)");
	vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE, hint,
		   "Access denied; character set '%.64s' is not allowed through airlock", a->value);
	return false;
}

static bool true_word(const char *v)
{
	return strcasecmp(v, "1") == 0 || strcasecmp(v, "ON") == 0 || strcasecmp(v, "TRUE") == 0;
}

static bool bool_word(const char *v)
{
	return true_word(v) || strcasecmp(v, "0") == 0 || strcasecmp(v, "OFF") == 0 || strcasecmp(v, "FALSE") == 0 ||
	       strcasecmp(v, "DEFAULT") == 0;
}

/* What each REPLACE puts in is a list of modes airlock accepts, too. */
static bool replaced_modes_ok(const struct vmy_assign *a)
{
	for (unsigned i = 0; i < a->nreplace; i++) {
		if (!vmy_sql_mode_parse(a->replace[i].to, strlen(a->replace[i].to), NULL, NULL))
			return false;
	}
	return true;
}

/* Per-setting value rules. */
static bool check_value(struct vmy_parser *p, struct vmy_assign *a)
{
	if (strcmp(a->name, "names") == 0 || strcmp(a->name, "character set") == 0 ||
	    strcmp(a->name, "character_set_client") == 0)
		return charset_ok(p, a);
	if (strcmp(a->name, "transaction_read_only") == 0 || strcmp(a->name, "tx_read_only") == 0) {
		if (true_word(a->value))
			return true;
		vmy_refuse_write(p, "turning transaction_read_only off");
		return false;
	}
	if (strcmp(a->name, "autocommit") == 0 && !bool_word(a->value)) {
		refuse_setting(p, a->name, "autocommit takes 0, 1, ON, OFF or DEFAULT");
		return false;
	}
	if (strcmp(a->name, "sql_mode") == 0 && !a->is_default) {
		if (strcmp(a->value, "0") == 0 && !a->append) {
			a->value[0] = '\0';
		} else if (!vmy_sql_mode_parse(a->value, strlen(a->value), NULL, NULL) || !replaced_modes_ok(a)) {
			refuse_setting(p, a->name,
				       "airlock accepts the usual modes, ANSI, "
				       "ANSI_QUOTES, NO_BACKSLASH_ESCAPES and TRADITIONAL; not ORACLE, "
				       "MSSQL, DB2, POSTGRESQL, MAXDB, numeric or unknown modes");
			return false;
		}
	}
	return true;
}

/* NAMES {charset | 'charset' | DEFAULT} [COLLATE {collation | DEFAULT}] */
static bool names_item(struct vmy_parser *p, struct vmy_assign *a, const char *name)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	size_t used = 0;

	snprintf(a->name, sizeof(a->name), "%s", name);
	if (t->kind == VMY_T_STRING) {
		if (!strings(p, a->value, sizeof(a->value), &used))
			return false;
		vmy_lower_copy(a->value, sizeof(a->value), a->value, used);
	} else if (t->kind == VMY_T_WORD && t->len < sizeof(a->value)) {
		a->is_default = vmy_word_is(p, t, "DEFAULT");
		copy_case(a->value, sizeof(a->value), p->sql + t->start, t->len, !a->is_default);
		vmy_next(p);
	} else {
		vmy_syntax(p, "a character set name was expected");
		return false;
	}
	if (!check_value(p, a))
		return false;
	if (strcmp(name, "names") == 0 && vmy_accept_kw(p, "COLLATE")) {
		t = vmy_peek(p, 0);
		used = 0;
		if (t->kind == VMY_T_STRING) {
			if (!strings(p, a->collate, sizeof(a->collate), &used))
				return false;
			vmy_lower_copy(a->collate, sizeof(a->collate), a->collate, used);
		} else if (t->kind == VMY_T_WORD && t->len < sizeof(a->collate)) {
			copy_case(a->collate, sizeof(a->collate), p->sql + t->start, t->len,
				  !vmy_word_is(p, t, "DEFAULT"));
			vmy_next(p);
		} else {
			vmy_syntax(p, "a collation name was expected");
			return false;
		}
	}
	if (!vmy_at_end(p) && !vmy_punct_at(p, 0, ",")) {
		vmy_syntax(p, "',' or the end of the statement was expected");
		return false;
	}
	return true;
}

/* [SESSION | GLOBAL] TRANSACTION characteristic {, characteristic} */
static void set_transaction(struct vmy_parser *p, bool session)
{
	static const char *const levels[][2] = {
		{"READ", "UNCOMMITTED"},
		{"READ", "COMMITTED"},
		{"REPEATABLE", "READ"},
		{"SERIALIZABLE", NULL},
	};

	vmy_next(p); /* TRANSACTION */
	do {
		struct vmy_assign *a;
		size_t i;

		if (vmy_kw_at(p, 0, "READ") && vmy_kw_at(p, 1, "WRITE")) {
			vmy_refuse_write(p, "SET TRANSACTION READ WRITE");
			return;
		}
		a = new_assign(p);
		if (!a)
			return;
		snprintf(a->name, sizeof(a->name), "transaction");
		a->next_transaction_only = !session;
		if (vmy_kw_at(p, 0, "READ") && vmy_kw_at(p, 1, "ONLY")) {
			vmy_next(p);
			vmy_next(p);
			snprintf(a->value, sizeof(a->value), "READ ONLY");
			continue;
		}
		if (!vmy_accept_kw(p, "ISOLATION") || !vmy_accept_kw(p, "LEVEL")) {
			vmy_syntax(p, "ISOLATION LEVEL, READ ONLY or READ WRITE was expected");
			return;
		}
		for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
			if (vmy_kw_at(p, 0, levels[i][0]) && (!levels[i][1] || vmy_kw_at(p, 1, levels[i][1])))
				break;
		}
		if (i == sizeof(levels) / sizeof(levels[0])) {
			vmy_syntax(p, "an isolation level was expected");
			return;
		}
		vmy_next(p);
		if (levels[i][1])
			vmy_next(p);
		snprintf(a->value, sizeof(a->value), "ISOLATION LEVEL %s%s%s", levels[i][0], levels[i][1] ? " " : "",
			 levels[i][1] ? levels[i][1] : "");
	} while (vmy_accept_punct(p, ","));
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input at the end of SET TRANSACTION"))
		return;
	p->out->kind = VMY_SET;
}

/* name {= | :=} literal, with an optional scope already consumed. */
static bool variable_item(struct vmy_parser *p, struct vmy_assign *a)
{
	char name[VMY_NAME_MAX];

	if (!vmy_accept_name(p, name, sizeof(name)))
		return false;
	if (!vmy_lower_copy(a->name, sizeof(a->name), name, strlen(name))) {
		refuse_setting(p, "(a long name)", "unknown setting");
		return false;
	}
	if (vmy_punct_at(p, 0, ".")) {
		refuse_setting(p, a->name, "structured (component) variables are not supported");
		return false;
	}
	if (!vmy_setting_allowed(a->name) || strcmp(a->name, "names") == 0 || strcmp(a->name, "character set") == 0) {
		refuse_setting(p, a->name, "unknown or server-wide setting");
		return false;
	}
	if (!vmy_accept_punct(p, "=") && !vmy_accept_punct(p, ":=")) {
		vmy_syntax(p, "'=' was expected");
		return false;
	}
	return literal(p, a) && check_value(p, a);
}

static bool is_global_word(struct vmy_parser *p, const struct vmy_token *t)
{
	return vmy_word_is(p, t, "GLOBAL") || vmy_word_is(p, t, "PERSIST") || vmy_word_is(p, t, "PERSIST_ONLY");
}

static bool set_item(struct vmy_parser *p)
{
	const struct vmy_token *t = vmy_peek(p, 0);
	struct vmy_assign *a;

	if (t->kind == VMY_T_WORD && t->kw && is_global_word(p, t)) {
		refuse_global(p, "SET GLOBAL / PERSIST");
		return false;
	}
	if (t->kind == VMY_T_USERVAR || t->kind == VMY_T_AT) {
		vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE,
			   "each statement runs in a fresh session, so user variables do not "
			   "survive; put the value in the query instead",
			   "Access denied; user variables cannot be set through airlock");
		return false;
	}
	a = new_assign(p);
	if (!a)
		return false;
	if (vmy_kw_at(p, 0, "NAMES")) {
		vmy_next(p);
		return names_item(p, a, "names");
	}
	if (vmy_kw_at(p, 0, "CHARSET") ||
	    ((vmy_kw_at(p, 0, "CHARACTER") || vmy_kw_at(p, 0, "CHAR")) && vmy_kw_at(p, 1, "SET"))) {
		if (!vmy_accept_kw(p, "CHARSET")) {
			vmy_next(p);
			vmy_next(p);
		}
		return names_item(p, a, "character set");
	}
	if (t->kind == VMY_T_ATAT) {
		vmy_next(p);
		t = vmy_peek(p, 0);
		if (t->kind == VMY_T_WORD && vmy_punct_at(p, 1, ".")) {
			if (is_global_word(p, t)) {
				refuse_global(p, "SET @@global");
				return false;
			}
			if (vmy_word_is(p, t, "SESSION") || vmy_word_is(p, t, "LOCAL")) {
				vmy_next(p);
				vmy_next(p);
			}
		}
	} else if (vmy_kw_at(p, 0, "SESSION") || vmy_kw_at(p, 0, "LOCAL")) {
		vmy_next(p);
	}
	return variable_item(p, a);
}

void vmy_set(struct vmy_parser *p)
{
	static const char *const forbidden[] = {"PASSWORD", "ROLE", "STATEMENT", "RESOURCE", NULL};
	const char *const *f;
	const struct vmy_token *t;

	vmy_next(p); /* SET */
	t = vmy_peek(p, 0);
	for (f = forbidden; *f; f++) {
		if (vmy_is_kw(p, t, *f) || (vmy_is_kw(p, t, "DEFAULT") && vmy_kw_at(p, 1, "ROLE"))) {
			vmy_refuse(p, AIRLOCK_E_NOT_ALLOWED, AIRLOCK_N_NONE,
				   "airlock does not change passwords, roles or per-statement settings",
				   "Access denied; SET %.*s is not allowed through airlock", (int)t->len,
				   p->sql + t->start);
			return;
		}
	}
	if (vmy_is_kw(p, t, "TRANSACTION")) {
		set_transaction(p, false);
		return;
	}
	if ((vmy_is_kw(p, t, "SESSION") || vmy_is_kw(p, t, "LOCAL") || vmy_is_kw(p, t, "GLOBAL")) &&
	    vmy_kw_at(p, 1, "TRANSACTION")) {
		if (vmy_is_kw(p, t, "GLOBAL")) {
			refuse_global(p, "SET GLOBAL TRANSACTION");
			return;
		}
		vmy_next(p);
		set_transaction(p, true);
		return;
	}
	do {
		if (!set_item(p))
			return;
	} while (vmy_accept_punct(p, ","));
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input in SET"))
		return;
	p->out->kind = VMY_SET;
}

void vmy_begin(struct vmy_parser *p)
{
	if (vmy_accept_kw(p, "BEGIN")) {
		vmy_accept_kw(p, "WORK");
		if (!vmy_at_end(p)) {
			vmy_refuse_write(p, "BEGIN ... END compound statements");
			return;
		}
		p->out->kind = VMY_BEGIN;
		return;
	}
	vmy_next(p); /* START */
	if (!vmy_accept_kw(p, "TRANSACTION")) {
		vmy_refuse_write(p, "START (other than START TRANSACTION)");
		return;
	}
	if (!vmy_at_end(p)) {
		do {
			if (vmy_kw_at(p, 0, "WITH") && vmy_word_is(p, vmy_peek(p, 1), "CONSISTENT") &&
			    vmy_word_is(p, vmy_peek(p, 2), "SNAPSHOT")) {
				vmy_next(p);
				vmy_next(p);
				vmy_next(p);
			} else if (vmy_kw_at(p, 0, "READ") && vmy_kw_at(p, 1, "ONLY")) {
				vmy_next(p);
				vmy_next(p);
				p->out->read_only_txn = true;
			} else if (vmy_kw_at(p, 0, "READ") && vmy_kw_at(p, 1, "WRITE")) {
				vmy_refuse_write(p, "START TRANSACTION READ WRITE");
				return;
			} else {
				vmy_syntax(p, "READ ONLY or WITH CONSISTENT SNAPSHOT was expected");
				return;
			}
		} while (vmy_accept_punct(p, ","));
	}
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input at the end of START TRANSACTION"))
		return;
	p->out->kind = VMY_BEGIN;
}

void vmy_commit(struct vmy_parser *p, bool rollback)
{
	vmy_next(p); /* COMMIT / ROLLBACK */
	vmy_accept_kw(p, "WORK");
	if (rollback && vmy_kw_at(p, 0, "TO")) {
		vmy_refuse_write(p, "ROLLBACK TO SAVEPOINT (savepoints)");
		return;
	}
	if (vmy_accept_kw(p, "AND")) {
		if (!vmy_accept_kw(p, "NO")) {
			vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "send BEGIN after the COMMIT instead",
				   "Not supported through airlock: AND CHAIN");
			return;
		}
		if (!vmy_accept_kw(p, "CHAIN")) {
			vmy_syntax(p, "AND NO CHAIN was expected");
			return;
		}
	}
	if (vmy_accept_kw(p, "NO")) {
		if (!vmy_accept_kw(p, "RELEASE")) {
			vmy_syntax(p, "NO RELEASE was expected");
			return;
		}
	} else if (vmy_kw_at(p, 0, "RELEASE")) {
		vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, "close the connection instead",
			   "Not supported through airlock: RELEASE");
		return;
	}
	if (!vmy_expect(p, vmy_at_end(p), "unexpected input at the end of the statement"))
		return;
	p->out->kind = rollback ? VMY_ROLLBACK : VMY_COMMIT;
}

void vmy_use(struct vmy_parser *p)
{
	char db[VMY_NAME_MAX];

	vmy_next(p); /* USE */
	if (!vmy_accept_name(p, db, sizeof(db)))
		return;
	if (!vmy_expect(p, vmy_at_end(p), "USE takes one database name"))
		return;
	if (strlen(db) >= sizeof(p->out->use_db)) {
		vmy_refuse(p, AIRLOCK_E_SYNTAX, AIRLOCK_N_MY_WRONG_DB_NAME, "database names are at most 64 characters",
			   "Incorrect database name '%.64s...'", db);
		return;
	}
	if (!vmy_check_database(p, db))
		return;
	memcpy(p->out->use_db, db, strlen(db) + 1);
	p->out->kind = VMY_USE;
}
