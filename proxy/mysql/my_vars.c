/*
 * my_vars: a MySQL session's variables. Those that change a statement's
 * meaning or its result's encoding (the character set, sql_mode,
 * time_zone) are kept and sent with every job; autocommit and the
 * isolation level are kept for the protocol's status flags and for what
 * @@variables report. Every other variable SET may change is in the kept
 * table below: its value is checked and normalised as the server would
 * (numbers clamped to the variable's range with warning 1292), read back
 * by @@name and SHOW VARIABLES, and applied to every job (or, for the
 * connection timeouts, by airlock itself). What airlock reports for
 * @@name and SHOW VARIABLES comes from here, never from the backend, so
 * nothing about the backend host leaks.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxy/mysql/my_session_int.h"
#include "proxy/server.h"

/* sql_mode every session starts with, valid on MariaDB and MySQL 8 alike. */
#define DEFAULT_SQL_MODE "STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION"

struct charset_def {
	const char *name;
	uint8_t id; /* its default collation's id */
	const char *collation;
};

/* The character sets a client may ask for, with MariaDB's collation ids. */
static const struct charset_def charsets[] = {
	{"utf8mb4", 45, "utf8mb4_general_ci"}, {"utf8mb3", 33, "utf8mb3_general_ci"},
	{"utf8", 33, "utf8mb3_general_ci"},    {"latin1", 8, "latin1_swedish_ci"},
	{"ascii", 11, "ascii_general_ci"},     {"binary", 63, "binary"},
};

/* Collation ids clients put in the handshake, with their character set and MariaDB's name for them. */
static const struct {
	uint8_t id;
	const char *charset;
	const char *collation; /* NULL: the character set's default */
} collation_ids[] = {
	{8, "latin1", NULL},
	{11, "ascii", NULL},
	{33, "utf8mb3", NULL},
	{45, "utf8mb4", NULL},
	{46, "utf8mb4", "utf8mb4_bin"},
	{47, "latin1", "latin1_bin"},
	{48, "latin1", "latin1_general_ci"},
	{63, "binary", NULL},
	{65, "ascii", "ascii_bin"},
	{83, "utf8mb3", "utf8mb3_bin"},
	{192, "utf8mb3", "utf8mb3_unicode_ci"},
	{224, "utf8mb4", "utf8mb4_unicode_ci"},
	{255, "utf8mb4", NULL}, /* MySQL 8's utf8mb4_0900_ai_ci: MariaDB has no such collation */
};

enum kept_kind { KEPT_UINT, KEPT_BOOL, KEPT_LOCALE, KEPT_CHARSET, KEPT_COLLATION };

struct kept_def {
	const char *name;
	enum kept_kind kind;
	uint64_t min, max; /* KEPT_UINT */
	const char *dflt;  /* what it reads as until set (KEPT_BOOL: "0" or "1") */
	bool job;          /* applied to every job; else airlock applies it (the connection timeouts) */
};

/* At most MYV_KEPT, in name order. Ranges and defaults are MariaDB's. */
static const struct kept_def kept[] = {
	/* The server's defaults for new databases and tables: nothing a read uses; read back only. */
	{"character_set_server", KEPT_CHARSET, 0, 0, "utf8mb4", false},
	{"collation_server", KEPT_COLLATION, 0, 0, "utf8mb4_general_ci", false},
	{"default_week_format", KEPT_UINT, 0, 7, "0", true},
	{"div_precision_increment", KEPT_UINT, 0, 38, "4", true},
	{"foreign_key_checks", KEPT_BOOL, 0, 1, "1", true},
	{"group_concat_max_len", KEPT_UINT, 4, UINT64_MAX, "1048576", true},
	{"interactive_timeout", KEPT_UINT, 1, 31536000, "28800", false},
	{"lc_time_names", KEPT_LOCALE, 0, 0, "en_US", true},
	{"net_read_timeout", KEPT_UINT, 1, 31536000, "30", true},
	{"net_write_timeout", KEPT_UINT, 1, 31536000, "60", true},
	{"sql_auto_is_null", KEPT_BOOL, 0, 1, "0", true},
	{"sql_notes", KEPT_BOOL, 0, 1, "1", true},
	{"sql_quote_show_create", KEPT_BOOL, 0, 1, "1", true},
	{"sql_safe_updates", KEPT_BOOL, 0, 1, "0", true},
	{"sql_select_limit", KEPT_UINT, 0, UINT64_MAX, "18446744073709551615", true},
	{"sql_warnings", KEPT_BOOL, 0, 1, "0", true},
	{"unique_checks", KEPT_BOOL, 0, 1, "1", true},
	{"wait_timeout", KEPT_UINT, 1, 31536000, "28800", false},
};

_Static_assert(sizeof(kept) / sizeof(kept[0]) <= MYV_KEPT, "MYV_KEPT is too small for the kept table");

static int kept_index(const char *name)
{
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (strcasecmp(name, kept[i].name) == 0)
			return (int)i;
	return -1;
}

static const char *kept_value(const struct mys_vars *v, int i)
{
	return v->kept[i][0] ? v->kept[i] : kept[i].dflt;
}

void myv_init(struct mys_vars *v)
{
	memset(v, 0, sizeof(*v));
	v->autocommit = true;
	myv_set_charset(v, "utf8mb4");
	snprintf(v->sql_mode, sizeof(v->sql_mode), "%s", DEFAULT_SQL_MODE);
	snprintf(v->time_zone, sizeof(v->time_zone), "SYSTEM");
	snprintf(v->isolation, sizeof(v->isolation), "REPEATABLE-READ");
}

bool myv_set_charset(struct mys_vars *v, const char *name)
{
	for (size_t i = 0; i < sizeof(charsets) / sizeof(charsets[0]); i++) {
		if (strcasecmp(name, charsets[i].name) == 0) {
			/* "utf8" means utf8mb3 on MariaDB; keep the client's spelling for what it reads back. */
			snprintf(v->charset, sizeof(v->charset), "%s", charsets[i].name);
			snprintf(v->collation, sizeof(v->collation), "%s", charsets[i].collation);
			v->charset_id = charsets[i].id;
			return true;
		}
	}
	return false;
}

bool myv_set_charset_id(struct mys_vars *v, uint8_t id)
{
	for (size_t i = 0; i < sizeof(collation_ids) / sizeof(collation_ids[0]); i++) {
		if (collation_ids[i].id != id)
			continue;
		if (!myv_set_charset(v, collation_ids[i].charset))
			return false;
		if (collation_ids[i].collation) {
			snprintf(v->collation, sizeof(v->collation), "%s", collation_ids[i].collation);
			v->charset_id = id;
		}
		return true;
	}
	return false;
}

bool myv_collation_is_default(const struct mys_vars *v)
{
	for (size_t i = 0; i < sizeof(charsets) / sizeof(charsets[0]); i++)
		if (strcasecmp(v->charset, charsets[i].name) == 0)
			return strcasecmp(v->collation, charsets[i].collation) == 0;
	return true;
}

void myv_lex_modes(const struct mys_vars *v, bool *ansi_quotes, bool *no_backslash_escapes)
{
	/* The validator's own sql_mode parser, so the session and the lexer cannot disagree. */
	*ansi_quotes = *no_backslash_escapes = false;
	vmy_sql_mode_parse(v->sql_mode, strlen(v->sql_mode), ansi_quotes, no_backslash_escapes);
}

void myv_fill_policy(const struct my_session *s, struct vmy_policy *pol)
{
	*pol = (struct vmy_policy){
		.user = s->core.user,
		.database = s->database[0] ? s->database : NULL,
		.tables = (const char *const *)s->core.u->mysql_tables,
		.ntables = s->core.u->nmysql_tables,
		.allow_sleep = s->core.u->mysql_allow_sleep,
		.allow_benchmark = s->core.u->mysql_allow_benchmark,
		/* The runner sets this character set, so the lexer must read the bytes the way the backend will. */
		.charset = s->vars.charset,
		.rules = s->core.u->mysql_rules,
		.nrules = s->core.u->nmysql_rules,
		.write_tables = (const char *const *)s->core.u->mysql_write_tables,
		.nwrite_tables = s->core.u->mysql_write_target ? s->core.u->nmysql_write_tables : 0,
		.forbid_star = s->core.u->forbid_select_star && !s->star_allowed,
	};
	myv_lex_modes(&s->vars, &pol->ansi_quotes, &pol->no_backslash_escapes);
}

bool myv_mode_changes_values(const struct mys_vars *v)
{
	unsigned f = 0;

	return vmy_sql_mode_normalize(v->sql_mode, strlen(v->sql_mode), NULL, 0, &f) && (f & VMY_MODE_VALUES);
}

static int bool_value(const struct vmy_assign *a)
{
	static const char *const on[] = {"1", "ON", "TRUE"}, *const off[] = {"0", "OFF", "FALSE"};

	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(a->value, on[i]) == 0)
			return 1;
		if (strcasecmp(a->value, off[i]) == 0)
			return 0;
	}
	return -1;
}

/*
 * cur with a's REPLACE()s applied in order (every occurrence, left to
 * right, as MariaDB's REPLACE) into out; false when it does not fit.
 */
static bool replaced(const char *cur, const struct vmy_assign *a, char *out, size_t cap)
{
	char work[1024];

	if (cap > sizeof(work) || (size_t)snprintf(out, cap, "%s", cur) >= cap)
		return false;
	for (unsigned i = 0; i < a->nreplace; i++) {
		const char *f = a->replace[i].from, *t = a->replace[i].to, *from = out, *at;
		size_t len = 0, flen = strlen(f), tlen = strlen(t), rest;

		if (!flen)
			continue;
		while ((at = strstr(from, f))) {
			size_t keep = (size_t)(at - from);

			if (len + keep + tlen >= cap)
				return false;
			memcpy(work + len, from, keep);
			memcpy(work + len + keep, t, tlen);
			len += keep + tlen;
			from = at + flen;
		}
		rest = strlen(from);
		if (len + rest >= cap)
			return false;
		memcpy(work + len, from, rest + 1);
		memcpy(out, work, len + rest + 1);
	}
	return true;
}

/* s appended to buf (holding a string, cap bytes): the whole length, or -1 when it does not fit. */
static int append(char *buf, size_t cap, const char *s)
{
	size_t used = strlen(buf);
	int n = snprintf(buf + used, cap - used, "%s", s);

	return n < 0 || (size_t)n >= cap - used ? -1 : (int)(used + (size_t)n);
}

/* Letters, digits and the punctuation of mode lists, zone names and offsets: nothing that needs quoting. */
static bool plain_value(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_,+-:/", *s))
			return false;
	return true;
}

/* An unsigned decimal; false when s is not one or it overflows. Negative values are 0 (*neg set). */
static bool parse_uint(const char *s, uint64_t *out, bool *neg)
{
	uint64_t v = 0;

	*neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = *neg ? 0 : v;
	return true;
}

static enum airlock_native set_kept(struct my_session *s, int i, const struct vmy_assign *a, char *msg, size_t msglen)
{
	const struct kept_def *d = &kept[i];
	char *dst = s->vars.kept[i];
	uint64_t n;
	bool neg;
	int b;

	if (a->is_default) {
		dst[0] = '\0';
		return AIRLOCK_N_NONE;
	}
	switch (d->kind) {
	case KEPT_BOOL:
		b = bool_value(a);
		if (b < 0)
			break;
		snprintf(dst, sizeof(s->vars.kept[i]), "%d", b);
		return AIRLOCK_N_NONE;
	case KEPT_CHARSET:
		for (size_t c = 0; c < sizeof(charsets) / sizeof(charsets[0]); c++) {
			if (strcasecmp(a->value, charsets[c].name) != 0)
				continue;
			snprintf(dst, sizeof(s->vars.kept[i]), "%s", charsets[c].name);
			/* As on the server, the collation follows: the set's default. */
			snprintf(s->vars.kept[kept_index("collation_server")], sizeof(s->vars.kept[0]), "%s",
				 charsets[c].collation);
			return AIRLOCK_N_NONE;
		}
		snprintf(msg, msglen, "Unknown character set: '%.64s'", a->value);
		return AIRLOCK_N_MY_UNKNOWN_CHARACTER_SET;
	case KEPT_COLLATION:
		if (!a->value[0] || strlen(a->value) >= sizeof(s->vars.kept[i]) || !plain_value(a->value))
			break;
		memcpy(dst, a->value, strlen(a->value) + 1); /* it fits: checked above */
		return AIRLOCK_N_NONE;
	case KEPT_LOCALE:
		/* ll_CC, as MariaDB names locales; one it does not know fails at the next statement (1649). */
		if (strlen(a->value) < 5 || strlen(a->value) >= sizeof(s->vars.kept[i]) ||
		    strspn(a->value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") != strlen(a->value))
			break;
		memcpy(dst, a->value, strlen(a->value) + 1); /* it fits: checked above */
		return AIRLOCK_N_NONE;
	case KEPT_UINT:
		if (a->quoted) {
			snprintf(msg, msglen, "Incorrect argument type to variable '%s'", d->name);
			return AIRLOCK_N_MY_WRONG_TYPE_FOR_VAR;
		}
		if (!parse_uint(a->value, &n, &neg))
			break;
		if (neg || n < d->min || n > d->max) {
			char w[160];

			snprintf(w, sizeof(w), "Truncated incorrect %s value: '%.64s'", d->name, a->value);
			myr_warn(s, AIRLOCK_E_NONE, AIRLOCK_N_MY_TRUNCATED_WRONG_VALUE, w);
			n = n < d->min ? d->min : n > d->max ? d->max : n;
		}
		snprintf(dst, sizeof(s->vars.kept[i]), "%" PRIu64, n);
		return AIRLOCK_N_NONE;
	}
	snprintf(msg, msglen, "Variable '%s' can't be set to the value of '%.100s'", a->name, a->value);
	return AIRLOCK_N_MY_WRONG_VALUE_FOR_VAR;
}

/* max_statement_time (seconds, MariaDB) or max_execution_time (ms, MySQL): 0 is no limit of the session's own. */
static enum airlock_native set_timeout(struct mys_vars *v, const struct vmy_assign *a, char *msg, size_t msglen)
{
	bool seconds = !strcmp(a->name, "max_statement_time");
	const char *p = a->value;
	uint64_t whole = 0, frac = 0, scale = 1;

	if (a->is_default) {
		v->timeout_ms = 0;
		return AIRLOCK_N_NONE;
	}
	if (a->quoted) {
		snprintf(msg, msglen, "Incorrect argument type to variable '%s'", a->name);
		return AIRLOCK_N_MY_WRONG_TYPE_FOR_VAR;
	}
	for (; *p >= '0' && *p <= '9' && whole < 100000000; p++)
		whole = whole * 10 + (uint64_t)(*p - '0');
	if (*p == '.' && seconds)
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (scale < 1000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	if (*p || p == a->value) {
		snprintf(msg, msglen, "Variable '%s' can't be set to the value of '%.100s'", a->name, a->value);
		return AIRLOCK_N_MY_WRONG_VALUE_FOR_VAR;
	}
	whole = seconds ? whole * 1000 + frac * 1000 / scale : whole;
	v->timeout_ms = whole > UINT32_MAX ? UINT32_MAX : (uint32_t)whole;
	return AIRLOCK_N_NONE;
}

/* Every character set MariaDB knows: a collation named after one of them belongs to it. */
static const char *const mariadb_charsets[] = {
	"armscii8", "ascii",   "big5",   "binary",  "cp1250", "cp1251", "cp1256",  "cp1257",  "cp850",   "cp852",
	"cp866",    "cp932",   "dec8",   "eucjpms", "euckr",  "gb2312", "gbk",     "geostd8", "greek",   "hebrew",
	"hp8",      "keybcs2", "koi8r",  "koi8u",   "latin1", "latin2", "latin5",  "latin7",  "macce",   "macroman",
	"sjis",     "swe7",    "tis620", "ucs2",    "ujis",   "utf16",  "utf16le", "utf32",   "utf8mb3", "utf8mb4",
};

/* The collation name as MariaDB prints it: lower case, utf8_ read as utf8mb3_. */
static void collation_name(const char *c, char *out, size_t cap)
{
	size_t n = 0;

	if (strncasecmp(c, "utf8_", 5) == 0) {
		snprintf(out, cap, "utf8mb3_");
		n = 8;
		c += 5;
	}
	for (; *c && n + 1 < cap; c++)
		out[n++] = (char)tolower((unsigned char)*c);
	out[n] = '\0';
}

/* The character set a (normalised) collation name belongs to, or NULL when it names none. */
static const char *collation_charset(const char *c)
{
	const char *best = NULL;

	for (size_t i = 0; i < sizeof(mariadb_charsets) / sizeof(mariadb_charsets[0]); i++) {
		size_t n = strlen(mariadb_charsets[i]);

		if (strncmp(c, mariadb_charsets[i], n) == 0 &&
		    (c[n] == '_' || (c[n] == '\0' && !strcmp(c, "binary"))) && (!best || n > strlen(best)))
			best = mariadb_charsets[i];
	}
	return best;
}

enum airlock_native myv_assign(struct my_session *s, const struct vmy_assign *a, char *msg, size_t msglen)
{
	struct mys_vars *v = &s->vars;
	int b, k;

	if (!strcmp(a->name, "names") || !strcmp(a->name, "character set") ||
	    !strcmp(a->name, "character_set_client") || !strcmp(a->name, "character_set_connection") ||
	    !strcmp(a->name, "character_set_results")) {
		const char *cs = a->is_default ? "utf8mb4" : a->value;

		/* character_set_results = NULL asks for no conversion: results stay in the connection's set. */
		if (!strcmp(a->name, "character_set_results") && !strcasecmp(cs, "NULL"))
			return AIRLOCK_N_NONE;
		if (!myv_set_charset(v, cs)) {
			snprintf(msg, msglen,
				 "Unknown character set: '%.64s'; airlock offers utf8mb4, utf8mb3, utf8, "
				 "latin1, ascii and binary",
				 cs);
			return AIRLOCK_N_MY_UNKNOWN_CHARACTER_SET;
		}
		if (a->collate[0]) {
			char coll[sizeof(v->collation)];
			const char *set = !strcmp(v->charset, "utf8") ? "utf8mb3" : v->charset;
			const char *of;

			/* A collation of another character set is refused as MariaDB refuses it. */
			collation_name(a->collate, coll, sizeof(coll));
			of = collation_charset(coll);
			if (of && strcmp(of, set) != 0) {
				snprintf(msg, msglen, "COLLATION '%.64s' is not valid for CHARACTER SET '%s'", coll,
					 set);
				return AIRLOCK_N_MY_COLLATION_CHARSET_MISMATCH;
			}
			snprintf(v->collation, sizeof(v->collation), "%s", coll);
		}
		return AIRLOCK_N_NONE;
	}
	if (!strcmp(a->name, "autocommit")) {
		b = a->is_default ? 1 : bool_value(a);
		if (b < 0)
			goto out_value;
		if (b) {
			/* Turning autocommit on commits what is open. */
			s->in_trans = false;
			s->read_only_txn = false;
		}
		v->autocommit = b == 1;
		return AIRLOCK_N_NONE;
	}
	if (!strcmp(a->name, "sql_mode")) {
		char mode[sizeof(v->sql_mode)], norm[sizeof(v->sql_mode)];
		int n;

		/* CONCAT(@@sql_mode, ',X') appends to the current mode, after its REPLACE()s. */
		if (a->is_default)
			n = snprintf(mode, sizeof(mode), "%s", DEFAULT_SQL_MODE);
		else if (a->append)
			n = replaced(v->sql_mode, a, mode, sizeof(mode)) ? append(mode, sizeof(mode), a->value) : -1;
		else
			n = snprintf(mode, sizeof(mode), "%s", a->value);
		/* Kept as MariaDB prints it after SET: upper case, its order, combinations expanded. */
		if (n < 0 || (size_t)n >= sizeof(mode) || !plain_value(mode) ||
		    !vmy_sql_mode_normalize(mode, strlen(mode), norm, sizeof(norm), NULL))
			goto out_value;
		memcpy(v->sql_mode, norm, sizeof(norm));
		return AIRLOCK_N_NONE;
	}
	if (!strcmp(a->name, "time_zone")) {
		const char *tz = a->is_default ? "SYSTEM" : a->value;

		if (!*tz || !plain_value(tz) || strlen(tz) >= sizeof(v->time_zone))
			goto out_value;
		snprintf(v->time_zone, sizeof(v->time_zone), "%.63s", tz);
		return AIRLOCK_N_NONE;
	}
	if (!strcmp(a->name, "transaction") && !a->next_transaction_only &&
	    !strncmp(a->value, "ISOLATION LEVEL ", 16)) {
		/* "ISOLATION LEVEL READ COMMITTED" reads back as READ-COMMITTED. */
		snprintf(v->isolation, sizeof(v->isolation), "%.31s", a->value + 16);
		for (char *c = v->isolation; *c; c++)
			if (*c == ' ')
				*c = '-';
		return AIRLOCK_N_NONE;
	}
	if (!strcmp(a->name, "transaction_isolation") || !strcmp(a->name, "tx_isolation")) {
		if (!a->is_default && plain_value(a->value) && strlen(a->value) < sizeof(v->isolation))
			snprintf(v->isolation, sizeof(v->isolation), "%.31s", a->value);
		return AIRLOCK_N_NONE;
	}
	if (!strcmp(a->name, "max_statement_time") || !strcmp(a->name, "max_execution_time"))
		return set_timeout(v, a, msg, msglen);
	if ((k = kept_index(a->name)) >= 0)
		return set_kept(s, k, a, msg, msglen);
	if (!strcmp(a->name, "collation_connection")) {
		size_t n = strlen(v->charset);
		const char *c = a->is_default ? NULL : a->value;

		if (!c)
			return myv_set_charset(v, v->charset) ? AIRLOCK_N_NONE : AIRLOCK_N_MY_UNKNOWN_COLLATION;
		/* A collation is named after its character set: utf8mb4_bin belongs to utf8mb4. */
		if (strncasecmp(c, v->charset, n) != 0 || c[n] != '_' || !plain_value(c) ||
		    strlen(c) >= sizeof(v->collation)) {
			snprintf(msg, msglen, "COLLATION '%.64s' is not valid for CHARACTER SET '%s'", c, v->charset);
			return AIRLOCK_N_MY_COLLATION_CHARSET_MISMATCH;
		}
		for (size_t i = 0; i < sizeof(v->collation) && c[i]; i++)
			v->collation[i] = (char)tolower((unsigned char)c[i]);
		v->collation[strlen(c)] = '\0';
		return AIRLOCK_N_NONE;
	}
	/*
	 * Left: session_track_*, which change nothing here as on the server,
	 * since airlock does not offer CLIENT_SESSION_TRACK; turning
	 * transaction_read_only on, the only value the validator lets through;
	 * and SET TRANSACTION READ ONLY or an isolation level for the next
	 * transaction only (every statement is its own read-only snapshot).
	 * Anything else the validator lets SET reach here would be dropped:
	 * refused instead, so nothing is accepted without effect.
	 */
	if (!strncmp(a->name, "session_track_", 14) || !strcmp(a->name, "transaction_read_only") ||
	    !strcmp(a->name, "tx_read_only") || !strcmp(a->name, "transaction"))
		return AIRLOCK_N_NONE;
	snprintf(msg, msglen, "Unknown system variable '%.64s'", a->name);
	return AIRLOCK_N_MY_UNKNOWN_SYSTEM_VARIABLE;
out_value:
	snprintf(msg, msglen, "Variable '%s' can't be set to the value of '%.100s'", a->name, a->value);
	return AIRLOCK_N_MY_WRONG_VALUE_FOR_VAR;
}

/* ---- what @@name and SHOW VARIABLES report ---- */

enum var_src {
	V_FIXED,
	V_CHARSET,
	V_COLLATION,
	V_SQL_MODE,
	V_TIME_ZONE,
	V_AUTOCOMMIT,
	V_ISOLATION,
	V_READ_ONLY,
	V_MAX_PACKET,
	V_TIMEOUT_S,
	V_TIMEOUT_MS,
	V_WARNINGS,
	V_ERRORS
};

struct var_def {
	const char *name;
	enum var_src src;
	const char *fixed;
};

/*
 * In name order, as SHOW VARIABLES lists them (merged with the kept table,
 * whose variables are not repeated here).
 */
static const struct var_def vars[] = {
	{"auto_increment_increment", V_FIXED, "1"},
	{"auto_increment_offset", V_FIXED, "1"},
	{"autocommit", V_AUTOCOMMIT, NULL},
	{"character_set_client", V_CHARSET, NULL},
	{"character_set_connection", V_CHARSET, NULL},
	{"character_set_database", V_FIXED, "utf8mb4"},
	{"character_set_filesystem", V_FIXED, "binary"},
	{"character_set_results", V_CHARSET, NULL},
	{"character_set_system", V_FIXED, "utf8mb3"},
	{"collation_connection", V_COLLATION, NULL},
	{"collation_database", V_FIXED, "utf8mb4_general_ci"},
	{"default_storage_engine", V_FIXED, "InnoDB"},
	{"error_count", V_ERRORS, NULL},
	{"have_query_cache", V_FIXED, "NO"},
	{"init_connect", V_FIXED, ""},
	{"license", V_FIXED, "GPL"},
	{"lower_case_table_names", V_FIXED, "0"},
	{"max_allowed_packet", V_MAX_PACKET, NULL},
	{"max_execution_time", V_TIMEOUT_MS, NULL},
	{"max_statement_time", V_TIMEOUT_S, NULL},
	{"net_buffer_length", V_FIXED, "16384"},
	{"performance_schema", V_FIXED, "OFF"},
	{"query_cache_size", V_FIXED, "0"},
	{"query_cache_type", V_FIXED, "OFF"},
	{"sql_mode", V_SQL_MODE, NULL},
	{"system_time_zone", V_FIXED, "UTC"},
	{"time_zone", V_TIME_ZONE, NULL},
	{"transaction_isolation", V_ISOLATION, NULL},
	{"transaction_read_only", V_READ_ONLY, NULL},
	{"tx_isolation", V_ISOLATION, NULL},
	{"tx_read_only", V_READ_ONLY, NULL},
	{"version", V_FIXED, MYS_SERVER_VERSION},
	{"version_comment", V_FIXED, "airlock read-only endpoint"},
	{"warning_count", V_WARNINGS, NULL},
};

static const char *var_text(const struct my_session *s, const struct var_def *d, char *buf, size_t buflen,
			    bool numeric_bool)
{
	switch (d->src) {
	case V_FIXED:
		return d->fixed;
	case V_CHARSET:
		return s->vars.charset;
	case V_COLLATION:
		return s->vars.collation;
	case V_SQL_MODE:
		return s->vars.sql_mode;
	case V_TIME_ZONE:
		return s->vars.time_zone;
	case V_AUTOCOMMIT:
		return numeric_bool ? (s->vars.autocommit ? "1" : "0") : (s->vars.autocommit ? "ON" : "OFF");
	case V_ISOLATION:
		return s->vars.isolation;
	case V_READ_ONLY:
		/* Every statement runs read-only, and saying so is the truth. */
		return numeric_bool ? "1" : "ON";
	case V_MAX_PACKET:
		snprintf(buf, buflen, "%u", s->core.srv->cfg->max_message_bytes);
		return buf;
	case V_TIMEOUT_S:
		snprintf(buf, buflen, "%u.%03u000", myv_timeout_ms(s) / 1000, myv_timeout_ms(s) % 1000);
		return buf;
	case V_TIMEOUT_MS:
		snprintf(buf, buflen, "%u", myv_timeout_ms(s));
		return buf;
	case V_WARNINGS:
		snprintf(buf, buflen, "%u", s->warn_count);
		return buf;
	case V_ERRORS: {
		unsigned n = 0;

		for (uint16_t i = 0; i < s->nwarnings; i++)
			n += strcmp(s->warnings[i].level, "Error") == 0;
		snprintf(buf, buflen, "%u", n);
		return buf;
	}
	}
	return NULL;
}

static const char *kept_text(const struct my_session *s, int i, bool numeric_bool)
{
	const char *v = kept_value(&s->vars, i);

	if (kept[i].kind == KEPT_BOOL && !numeric_bool)
		return strcmp(v, "1") == 0 ? "ON" : "OFF";
	return v;
}

const char *myv_value(const struct my_session *s, const char *name, char *buf, size_t buflen, bool numeric_bool)
{
	int k = kept_index(name);

	if (k >= 0)
		return kept_text(s, k, numeric_bool);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (strcasecmp(name, vars[i].name) == 0)
			return var_text(s, &vars[i], buf, buflen, numeric_bool);
	return NULL;
}

void myv_each(const struct my_session *s, void (*fn)(void *arg, const char *name, const char *value), void *arg)
{
	const size_t nvars = sizeof(vars) / sizeof(vars[0]), nkept = sizeof(kept) / sizeof(kept[0]);
	char buf[64];

	/* Both tables are in name order: merged, they are SHOW VARIABLES' list. */
	for (size_t i = 0, k = 0; i < nvars || k < nkept;) {
		if (k == nkept || (i < nvars && strcmp(vars[i].name, kept[k].name) < 0)) {
			fn(arg, vars[i].name, var_text(s, &vars[i], buf, sizeof(buf), false));
			i++;
		} else {
			fn(arg, kept[k].name, kept_text(s, (int)k, false));
			k++;
		}
	}
}

void myv_each_applied(const struct my_session *s, void (*fn)(void *arg, const char *name, const char *value), void *arg)
{
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i].job && s->vars.kept[i][0] && strcmp(s->vars.kept[i], kept[i].dflt) != 0)
			fn(arg, kept[i].name, s->vars.kept[i]);
}

uint32_t myv_timeout_ms(const struct my_session *s)
{
	uint32_t cap = s->core.u->limits.timeout_ms;

	return s->vars.timeout_ms && s->vars.timeout_ms < cap ? s->vars.timeout_ms : cap;
}

uint64_t myv_idle_ms(const struct my_session *s)
{
	uint64_t sec = 0;
	bool neg;

	parse_uint(kept_value(&s->vars, kept_index("wait_timeout")), &sec, &neg);
	return sec * 1000;
}

uint64_t myv_select_limit(const struct my_session *s)
{
	uint64_t n = UINT64_MAX;
	bool neg;

	parse_uint(kept_value(&s->vars, kept_index("sql_select_limit")), &n, &neg);
	return n;
}
