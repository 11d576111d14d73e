/*
 * pg_settings: the session's settings table and its rules.
 */
#include "proxy/pg/pg_settings.h"

#include <ctype.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define SERVER_VERSION "15.0"

const struct pgs_def pgs_defs[] = {
	{"application_name", "application_name", "", PGS_REPORT | PGS_FORWARD},
	{"bytea_output", "bytea_output", "hex", PGS_FORWARD},
	{"client_encoding", "client_encoding", "UTF8", PGS_REPORT | PGS_FIXED},
	{"client_min_messages", "client_min_messages", "notice", PGS_FORWARD},
	{"datestyle", "DateStyle", "ISO, MDY", PGS_REPORT | PGS_FORWARD},
	{"default_transaction_isolation", "default_transaction_isolation", "read committed", 0},
	{"default_transaction_read_only", "default_transaction_read_only", "on", PGS_REPORT | PGS_FIXED},
	{"extra_float_digits", "extra_float_digits", "1", PGS_FORWARD},
	{"idle_in_transaction_session_timeout", "idle_in_transaction_session_timeout", "0", PGS_MS},
	{"idle_session_timeout", "idle_session_timeout", "0", PGS_MS},
	{"in_hot_standby", "in_hot_standby", "off", PGS_REPORT | PGS_FIXED},
	{"integer_datetimes", "integer_datetimes", "on", PGS_REPORT | PGS_FIXED},
	{"intervalstyle", "IntervalStyle", "postgres", PGS_REPORT | PGS_FORWARD},
	{"is_superuser", "is_superuser", "off", PGS_REPORT | PGS_FIXED},
	{"lock_timeout", "lock_timeout", "0", PGS_MS | PGS_FORWARD},
	/*
	 * Relations whose use runs code a dump did not ask for (pg_dump sets 'view, foreign-table');
	 * Postgres checks the value, and a backend older than 12.20 / 13.16 / 14.13 / 15.8 / 16.4 lacks it.
	 */
	{"restrict_nonsystem_relation_kind", "restrict_nonsystem_relation_kind", "", PGS_FORWARD},
	/* Off, a read that a row-level security policy would filter fails instead (pg_dump sets it). */
	{"row_security", "row_security", "on", PGS_FORWARD},
	/* In its canonical form (every schema quoted), which is what a SET of it stores and SHOW shows. */
	{"search_path", "search_path", "\"public\"", PGS_FORWARD},
	{"server_encoding", "server_encoding", "UTF8", PGS_REPORT | PGS_FIXED},
	{"server_version", "server_version", SERVER_VERSION, PGS_REPORT | PGS_FIXED},
	{"session_authorization", "session_authorization", "", PGS_REPORT | PGS_FIXED},
	/* Forwarded although fixed: see pgs_init. */
	{"standard_conforming_strings", "standard_conforming_strings", "on", PGS_REPORT | PGS_FIXED | PGS_FORWARD},
	{"statement_timeout", "statement_timeout", "0", PGS_MS},
	{"synchronize_seqscans", "synchronize_seqscans", "on", PGS_FORWARD},
	{"timezone", "TimeZone", "UTC", PGS_REPORT | PGS_FORWARD},
	{"transaction_isolation", "transaction_isolation", "read committed", 0},
	{"transaction_read_only", "transaction_read_only", "on", PGS_FIXED},
};
const size_t pgs_ndefs = sizeof(pgs_defs) / sizeof(pgs_defs[0]);

_Static_assert(sizeof(pgs_defs) / sizeof(pgs_defs[0]) <= 32, "pg_settings arrays hold 32 settings");

int pgs_find(const char *name)
{
	for (size_t i = 0; i < pgs_ndefs; i++)
		if (!strcasecmp(pgs_defs[i].name, name))
			return (int)i;
	return -1;
}

/* session_authorization: never stored, always the session's user. */
static bool is_user(size_t i)
{
	static int sa = -1;

	if (sa < 0)
		sa = pgs_find("session_authorization");
	return (int)i == sa;
}

const char *pgs_value(const struct pg_settings *s, size_t i)
{
	if (is_user(i))
		return s->user ? s->user : "";
	return s->slots && s->slots->value[i] ? s->slots->value[i] : pgs_defs[i].default_value;
}

/* RESET's value of setting i. */
static const char *reset_value(const struct pg_settings *s, size_t i)
{
	if (is_user(i))
		return s->user ? s->user : "";
	return s->slots && s->slots->reset[i] ? s->slots->reset[i] : pgs_defs[i].default_value;
}

/*
 * Stores v (any string, s's own included) as setting i's value, or its
 * RESET value with reset: nothing when it is the default, else a copy.
 * -1 when out of memory (the setting is then as it was).
 */
static int put(struct pg_settings *s, bool reset, size_t i, const char *v)
{
	char *dup = NULL, **slot;

	if (is_user(i))
		return 0; /* fixed: pgs_set refuses any other value */
	if (strcmp(v, pgs_defs[i].default_value) != 0) {
		if (!(dup = strndup(v, PGS_VALUE_MAX - 1)))
			return -1;
		if (!s->slots && !(s->slots = calloc(1, sizeof(*s->slots)))) {
			free(dup);
			return -1;
		}
	}
	if (!s->slots)
		return 0; /* the default, and no value stored */
	slot = reset ? &s->slots->reset[i] : &s->slots->value[i];
	free(*slot);
	*slot = dup;
	return 0;
}

/* Names parsed from a search_path, before they are packed into a struct pg_settings. */
struct pgs_path {
	char names[PGS_MAX_PATH][64];
	size_t n;
};

/* Packs p into s->path. -1 when out of memory (s->path is then as it was). */
static int put_path(struct pg_settings *s, const struct pgs_path *p)
{
	size_t len = 0, off = 0;
	char *packed = NULL;

	for (size_t i = 0; i < p->n; i++)
		len += strlen(p->names[i]) + 1;
	if (len && !(packed = malloc(len)))
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		size_t n = strlen(p->names[i]) + 1;

		memcpy(packed + off, p->names[i], n);
		off += n;
	}
	free(s->path);
	s->path = packed;
	s->npath = p->n;
	return 0;
}

/* Parses a search_path list into out; returns -1 on a malformed list. */
static int pgs_parse_path(struct pgs_path *out, const char *value, char *canon, size_t canonlen)
{
	const char *p = value;
	size_t n = 0, clen = 0;

	canon[0] = '\0';
	while (*p) {
		char name[64];
		size_t len = 0;

		while (isspace((unsigned char)*p) || *p == ',')
			p++;
		if (!*p)
			break;
		if (*p == '"') {
			p++;
			while (*p && !(*p == '"' && p[1] != '"')) {
				if (*p == '"')
					p++;
				if (len + 1 >= sizeof(name))
					return -1;
				name[len++] = *p++;
			}
			if (*p != '"')
				return -1;
			p++;
		} else {
			while (*p && *p != ',' && !isspace((unsigned char)*p)) {
				if (len + 1 >= sizeof(name))
					return -1;
				name[len++] = (char)tolower((unsigned char)*p++);
			}
		}
		name[len] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (*p && *p != ',')
			return -1;
		if (len == 0)
			return -1;
		/* "$user" is dropped: schemas named after the backend role are never searched. */
		if (!strcmp(name, "$user"))
			continue;
		if (n >= PGS_MAX_PATH)
			return -1;
		snprintf(out->names[n++], sizeof(out->names[0]), "%s", name);
		/* Canonical form: every element double-quoted, quotes doubled. */
		if (clen + 2 * len + 6 >= canonlen)
			return -1;
		clen += (size_t)snprintf(canon + clen, canonlen - clen, "%s\"", clen ? ", " : "");
		for (size_t i = 0; i < len; i++) {
			if (name[i] == '"')
				canon[clen++] = '"';
			canon[clen++] = name[i];
		}
		canon[clen++] = '"';
		canon[clen] = '\0';
	}
	out->n = n;
	return 0;
}

/*
 * s->path from s's search_path value, which was parsed before (a
 * canonical list): -1 only when out of memory.
 */
static int path_from_value(struct pg_settings *s)
{
	struct pgs_path p;
	char canon[PGS_VALUE_MAX];

	if (pgs_parse_path(&p, pgs_value(s, (size_t)pgs_find("search_path")), canon, sizeof(canon)) < 0)
		p.n = 0;
	return put_path(s, &p);
}

/* Postgres spells DateStyle as "<style>, <order>"; a partial SET keeps the other half. */
static int pgs_datestyle(const char *cur, const char *value, char *out, size_t outlen)
{
	const char *style = NULL, *order = NULL;
	char buf[PGS_VALUE_MAX];
	char *tok, *save;

	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		if (!strcasecmp(tok, "iso"))
			style = "ISO";
		else if (!strcasecmp(tok, "sql"))
			style = "SQL";
		else if (!strcasecmp(tok, "postgres"))
			style = "Postgres";
		else if (!strcasecmp(tok, "german"))
			style = "German";
		else if (!strcasecmp(tok, "dmy") || !strcasecmp(tok, "euro") || !strcasecmp(tok, "european"))
			order = "DMY";
		else if (!strcasecmp(tok, "mdy") || !strcasecmp(tok, "us") || !strcasecmp(tok, "noneuro") ||
			 !strcasecmp(tok, "noneuropean"))
			order = "MDY";
		else if (!strcasecmp(tok, "ymd"))
			order = "YMD";
		else if (!strcasecmp(tok, "default"))
			continue;
		else
			return -1;
	}
	if (!style || !order) {
		char cs[32] = "ISO", co[32] = "MDY";

		sscanf(cur, "%31[^,], %31s", cs, co);
		snprintf(out, outlen, "%s, %s", style ? style : cs, order ? order : co);
	} else {
		snprintf(out, outlen, "%s, %s", style, order);
	}
	return 0;
}

int pgs_parse_ms(const char *value, uint64_t *ms)
{
	static const struct {
		const char *unit;
		double ms;
	} units[] = {{"us", 0.001}, {"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000}, {"d", 86400000}};
	const char *p = value;
	char *end;
	double v;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p) && *p != '.' && *p != '+')
		return -1;
	v = strtod(p, &end);
	if (end == p || v != v)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (*end) {
		size_t i, n = strcspn(end, " \t");

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strlen(units[i].unit) == n && !strncmp(end, units[i].unit, n))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		v *= units[i].ms;
		for (end += n; isspace((unsigned char)*end); end++)
			;
		if (*end)
			return -1;
	}
	/* Postgres rounds to the setting's unit, ms, and allows up to INT_MAX of it. */
	if (v < 0 || v > 2147483647.0)
		return -1;
	*ms = (uint64_t)(v + 0.5);
	if (*ms > 2147483647u)
		*ms = 2147483647u;
	return 0;
}

/* As SHOW prints a duration: in the largest unit that divides it. */
static void pgs_format_ms(uint64_t ms, char *out, size_t outlen)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}};

	if (ms == 0) {
		snprintf(out, outlen, "0");
		return;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ms % units[i].ms == 0) {
			snprintf(out, outlen, "%" PRIu64 "%s", ms / units[i].ms, units[i].unit);
			return;
		}
	}
	snprintf(out, outlen, "%" PRIu64 "ms", ms);
}

uint64_t pgs_ms(const struct pg_settings *s, const char *name)
{
	int i = pgs_find(name);
	uint64_t ms = 0;

	if (i < 0 || pgs_parse_ms(pgs_value(s, (size_t)i), &ms) < 0)
		return 0;
	return ms;
}

int pgs_init(struct pg_settings *s, const char *user)
{
	int sp = pgs_find("search_path");
	struct pgs_path p;
	char canon[PGS_VALUE_MAX];

	memset(s, 0, sizeof(*s));
	s->user = user;
	if (pgs_parse_path(&p, pgs_defs[sp].default_value, canon, sizeof(canon)) < 0 || put_path(s, &p) < 0) {
		pgs_free(s);
		return -1;
	}
	/* search_path is always applied: the validator resolved names against it. */
	s->changed |= UINT32_C(1) << sp;
	/*
	 * So is standard_conforming_strings = on: the validator's parser reads
	 * string literals with it on, and a backend role or database whose
	 * default is off would read 'a\' || '...' as one literal where the
	 * validator reads two, and run text the validator saw inside a string.
	 */
	s->changed |= UINT32_C(1) << pgs_find("standard_conforming_strings");
	return 0;
}

int pgs_dup(struct pg_settings *dst, const struct pg_settings *src)
{
	size_t len = 0;

	memset(dst, 0, sizeof(*dst));
	dst->user = src->user;
	if (src->slots && !(dst->slots = calloc(1, sizeof(*dst->slots))))
		return -1;
	for (size_t i = 0; src->slots && i < pgs_ndefs; i++) {
		if ((src->slots->value[i] && !(dst->slots->value[i] = strdup(src->slots->value[i]))) ||
		    (src->slots->reset[i] && !(dst->slots->reset[i] = strdup(src->slots->reset[i])))) {
			pgs_free(dst);
			return -1;
		}
	}
	for (size_t k = 0; k < src->npath; k++)
		len += strlen(src->path + len) + 1;
	if (len && !(dst->path = malloc(len))) {
		pgs_free(dst);
		return -1;
	}
	if (len)
		memcpy(dst->path, src->path, len);
	dst->npath = src->npath;
	dst->changed = src->changed;
	return 0;
}

void pgs_free(struct pg_settings *s)
{
	for (size_t i = 0; s->slots && i < pgs_ndefs; i++) {
		free(s->slots->value[i]);
		free(s->slots->reset[i]);
	}
	free(s->slots);
	free(s->path);
	memset(s, 0, sizeof(*s));
}

/*
 * Whether an encoding name means UTF8 as Postgres reads names: everything
 * but letters and digits dropped, case ignored, so "UTF8", "utf-8",
 * "'utf-8'" (asyncpg quotes it) and "Unicode" all do.
 */
static bool pgs_is_utf8(const char *v)
{
	char clean[16];
	size_t n = 0;

	for (; *v; v++) {
		if (!isalnum((unsigned char)*v))
			continue;
		if (n + 1 >= sizeof(clean))
			return false;
		clean[n++] = (char)tolower((unsigned char)*v);
	}
	clean[n] = '\0';
	return !strcmp(clean, "utf8") || !strcmp(clean, "unicode");
}

const char *pgs_allowed_names(void)
{
	return "application_name, bytea_output, client_min_messages, DateStyle, "
	       "default_transaction_isolation, extra_float_digits, IntervalStyle, lock_timeout, "
	       "restrict_nonsystem_relation_kind, row_security, search_path, statement_timeout, synchronize_seqscans, "
	       "TimeZone, "
	       "idle_in_transaction_session_timeout, idle_session_timeout";
}

int pgs_set(struct pg_settings *s, const char *name, const char *value, bool at_startup, bool *reported,
	    const char **sqlstate, enum airlock_err *code, char *msg, size_t msglen)
{
	int i = pgs_find(name);
	char canon[PGS_VALUE_MAX];
	const struct pgs_def *d;

	*reported = false;
	if (i < 0) {
		*code = AIRLOCK_E_SETTING_NOT_ALLOWED;
		*sqlstate = airlock_pg_sqlstate(*code, AIRLOCK_N_NONE);
		snprintf(msg, msglen, "%s: setting \"%s\" cannot be changed through airlock", airlock_err_name(*code),
			 name);
		return -1;
	}
	d = &pgs_defs[i];
	if (strlen(value) >= PGS_VALUE_MAX) {
		*code = AIRLOCK_E_INVALID_VALUE;
		*sqlstate = airlock_pg_sqlstate(*code, AIRLOCK_N_NONE);
		snprintf(msg, msglen, "%s: value for \"%s\" is too long", airlock_err_name(*code), d->display);
		return -1;
	}
	if (d->flags & PGS_FIXED) {
		bool same = i == pgs_find("client_encoding") ? pgs_is_utf8(value)
							     : !strcasecmp(value, pgs_value(s, (size_t)i));

		if (same)
			return 0;
		*code = i == pgs_find("client_encoding") ? AIRLOCK_E_INVALID_VALUE : AIRLOCK_E_NOT_READ_ONLY;
		*sqlstate = airlock_pg_sqlstate(*code, AIRLOCK_N_NONE);
		snprintf(msg, msglen, "%s: \"%s\" is fixed at \"%s\" in airlock sessions", airlock_err_name(*code),
			 d->display, pgs_value(s, (size_t)i));
		return -1;
	}
	if (i == pgs_find("search_path")) {
		struct pgs_path path;

		if (pgs_parse_path(&path, value, canon, sizeof(canon)) < 0) {
			*code = AIRLOCK_E_INVALID_VALUE;
			*sqlstate = airlock_pg_sqlstate(*code, AIRLOCK_N_NONE);
			snprintf(msg, msglen, "%s: search_path must be a comma-separated list of schema names",
				 airlock_err_name(*code));
			return -1;
		}
		if (put_path(s, &path) < 0)
			goto out_of_memory;
		value = canon;
	} else if (d->flags & PGS_MS) {
		uint64_t ms;

		if (pgs_parse_ms(value, &ms) < 0) {
			*code = AIRLOCK_E_INVALID_VALUE;
			*sqlstate = airlock_pg_sqlstate(*code, AIRLOCK_N_NONE);
			snprintf(msg, msglen, "%s: invalid value for parameter \"%s\": \"%s\"", airlock_err_name(*code),
				 d->display, value);
			return -1;
		}
		pgs_format_ms(ms, canon, sizeof(canon));
		value = canon;
	} else if (i == pgs_find("datestyle")) {
		if (pgs_datestyle(pgs_value(s, (size_t)i), value, canon, sizeof(canon)) < 0) {
			*code = AIRLOCK_E_INVALID_VALUE;
			*sqlstate = airlock_pg_sqlstate(*code, AIRLOCK_N_NONE);
			snprintf(msg, msglen, "%s: invalid value for parameter \"DateStyle\": \"%s\"",
				 airlock_err_name(*code), value);
			return -1;
		}
		value = canon;
	}
	if (put(s, false, (size_t)i, value) < 0 || (at_startup && put(s, true, (size_t)i, value) < 0)) {
		if (i == pgs_find("search_path"))
			path_from_value(s); /* back to the value kept */
		goto out_of_memory;
	}
	s->changed |= UINT32_C(1) << i;
	*reported = (d->flags & PGS_REPORT) != 0;
	return 0;
out_of_memory:
	*code = AIRLOCK_E_OUT_OF_MEMORY;
	*sqlstate = airlock_pg_sqlstate(*code, AIRLOCK_N_NONE);
	snprintf(msg, msglen, "%s: out of memory setting \"%s\"", airlock_err_name(*code), d->display);
	return -1;
}

int pgs_reset(struct pg_settings *s, const char *name, char *msg, size_t msglen)
{
	int i;

	if (!strcasecmp(name, "all")) {
		for (size_t k = 0; k < pgs_ndefs; k++)
			if (put(s, false, k, reset_value(s, k)) < 0)
				goto out_of_memory;
		if (path_from_value(s) < 0)
			goto out_of_memory;
		return 0;
	}
	i = pgs_find(name);
	if (i < 0) {
		snprintf(msg, msglen, "%s: setting \"%s\" cannot be changed through airlock",
			 airlock_err_name(AIRLOCK_E_SETTING_NOT_ALLOWED), name);
		return -1;
	}
	if (put(s, false, (size_t)i, reset_value(s, (size_t)i)) < 0 ||
	    (i == pgs_find("search_path") && path_from_value(s) < 0))
		goto out_of_memory;
	return 0;
out_of_memory:
	/* The search path follows the value, whatever was reset before memory ran out. */
	path_from_value(s);
	snprintf(msg, msglen, "%s: out of memory resetting \"%s\"", airlock_err_name(AIRLOCK_E_OUT_OF_MEMORY), name);
	return -1;
}

const char *pgs_show(const struct pg_settings *s, const char *name, const char **display)
{
	int i = pgs_find(name);

	if (i < 0)
		return NULL;
	*display = pgs_defs[i].display;
	return pgs_value(s, (size_t)i);
}

size_t pgs_job_settings(const struct pg_settings *s, struct job_setting *out)
{
	size_t n = 0;

	for (size_t i = 0; i < pgs_ndefs; i++) {
		if (!(pgs_defs[i].flags & PGS_FORWARD) || !(s->changed & (UINT32_C(1) << i)))
			continue;
		out[n].name = pgs_defs[i].name;
		out[n].value = pgs_value(s, i);
		n++;
	}
	return n;
}

size_t pgs_search_path(const struct pg_settings *s, const char **out)
{
	const char *p = s->path;

	for (size_t i = 0; i < s->npath; i++) {
		out[i] = p;
		p += strlen(p) + 1;
	}
	return s->npath;
}

void pgs_end_local(struct pg_settings *s, const struct pg_settings *begin, uint32_t local, uint32_t *reverted)
{
	*reverted = 0;
	for (size_t i = 0; i < pgs_ndefs; i++) {
		uint32_t bit = UINT32_C(1) << i;

		if (!(local & bit))
			continue;
		if (strcmp(pgs_value(s, i), pgs_value(begin, i)) != 0)
			*reverted |= bit;
		/* Out of memory, a value stays the block's: the setting is then reported as it is. */
		if (put(s, false, i, pgs_value(begin, i)) < 0 || put(s, true, i, reset_value(begin, i)) < 0) {
			*reverted |= bit;
			continue;
		}
		s->changed = (s->changed & ~bit) | (begin->changed & bit);
	}
	path_from_value(s);
}
