/*
 * validate_my_names: see validate_my_names.h.
 */
#include "validator/mysql/validate_my_names.h"

#include "conf/config.h"

#include "validator/mysql/validate_my_scope_tables.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char I_S[] = "information_schema";

/*
 * information_schema tables that a "information_schema.*" entry does not
 * cover: they show server variables, status, grants (with the backend
 * account and host), other sessions' statements, or file paths. Lower-case;
 * an entry ending in '_' is a prefix.
 */
static const char *const sensitive_is[] = {
	"administrable_role_authorizations",
	"applicable_roles",
	"client_statistics",
	"column_privileges",
	"disks",
	"enabled_roles",
	"global_status",
	"global_variables",
	"innodb_",
	"metadata_lock_info",
	"processlist",
	"query_cache_info",
	"role_",
	"schema_privileges",
	"session_status",
	"session_variables",
	"system_variables",
	"table_privileges",
	"thread_pool_",
	"user_attributes",
	"user_privileges",
	"user_statistics",
	"user_variables",
	"users",
	"wsrep_",
};

static bool is_is(const char *db, size_t n)
{
	return n == sizeof(I_S) - 1 && strncasecmp(db, I_S, n) == 0;
}

static bool is_sensitive(const char *table)
{
	size_t i;

	for (i = 0; i < sizeof(sensitive_is) / sizeof(sensitive_is[0]); i++) {
		const char *s = sensitive_is[i];
		size_t n = strlen(s);

		if (s[n - 1] == '_' ? strncasecmp(table, s, n) == 0 : strcasecmp(table, s) == 0)
			return true;
	}
	return false;
}

/* Entry "db.table" or "db.*"; the database part ends at the first dot. */
static bool entry_split(const char *e, const char **dot)
{
	if (!e)
		return false;
	*dot = strchr(e, '.');
	return *dot && *dot > e && (*dot)[1] != '\0';
}

static bool db_matches(const char *e, size_t elen, const char *db)
{
	if (is_is(db, strlen(db)))
		return is_is(e, elen);
	return strlen(db) == elen && memcmp(e, db, elen) == 0;
}

/*
 * Never readable, whatever the allowlist says: performance_schema and sys
 * show other sessions' statements, information_schema's DENY tables
 * (validate_my_scope_tables.h) every table's name or file paths, and these
 * tables of the mysql database hold password hashes, grants or logged
 * statements.
 */
static bool never_readable(const char *db, const char *table)
{
	static const char *const mysql_secret[] = {
		"columns_priv", "db",           "general_log",   "global_priv", "password_reuse_check_history",
		"procs_priv",   "proxies_priv", "roles_mapping", "slow_log",    "tables_priv",
		"user",
	};
	size_t i;

	if (strcasecmp(db, "performance_schema") == 0 || strcasecmp(db, "sys") == 0)
		return true;
	if (is_is(db, strlen(db)))
		return vmy_is_table_denied(table);
	if (strcmp(db, "mysql") != 0)
		return false;
	for (i = 0; i < sizeof(mysql_secret) / sizeof(mysql_secret[0]); i++) {
		if (strcasecmp(table, mysql_secret[i]) == 0)
			return true;
	}
	return false;
}

/*
 * 1 allowed, 0 not listed, -1 only a wildcard would allow a sensitive
 * information_schema table (or one the scoping does not know).
 */
static int table_allowed(const struct vmy_policy *pol, const char *db, const char *table)
{
	bool is = is_is(db, strlen(db));
	bool wildcard_blocked = false;
	size_t i;

	if (never_readable(db, table))
		return 0;
	for (i = 0; i < pol->ntables; i++) {
		const char *e = pol->tables ? pol->tables[i] : NULL, *dot;

		if (!entry_split(e, &dot) || !db_matches(e, (size_t)(dot - e), db))
			continue;
		if (strcmp(dot + 1, "*") == 0) {
			if (is && (is_sensitive(table) || !vmy_is_table_known(table))) {
				wildcard_blocked = true;
				continue;
			}
			return 1;
		}
		if (is ? strcasecmp(dot + 1, table) == 0 : strcmp(dot + 1, table) == 0)
			return 1;
	}
	return wildcard_blocked ? -1 : 0;
}

bool vmy_write_listed(const struct vmy_policy *pol, const char *db, const char *table)
{
	if (is_is(db, strlen(db)) || never_readable(db, table) || strcmp(db, "mysql") == 0)
		return false;
	for (size_t i = 0; i < pol->nwrite_tables; i++) {
		const char *e = pol->write_tables ? pol->write_tables[i] : NULL, *dot;

		if (!entry_split(e, &dot) || !db_matches(e, (size_t)(dot - e), db))
			continue;
		if (strcmp(dot + 1, "*") == 0 || strcmp(dot + 1, table) == 0)
			return true;
	}
	return false;
}

bool vmy_table_visible(const struct vmy_policy *pol, const char *db, const char *table)
{
	return table_allowed(pol, db, table) == 1;
}

void vmy_allowed_hint(char *hint, size_t size, const struct vmy_policy *pol, const char *prefix)
{
	size_t used, i;
	int n;
	bool any = false;

	if (size < 8)
		return;
	n = snprintf(hint, size, "%sallowed tables: ", prefix);
	used = n < 0 ? 0 : (size_t)n;
	for (i = 0; i < pol->ntables && used < size; i++) {
		const char *e = pol->tables ? pol->tables[i] : NULL;

		if (!e)
			continue;
		n = snprintf(hint + used, size - used, "%s%s", any ? ", " : "", e);
		any = true;
		if (n < 0 || (size_t)n >= size - used) {
			used = size;
			break;
		}
		used += (size_t)n;
	}
	if (!any)
		snprintf(hint, size, "%sno tables are allowed for this user", prefix);
	else if (used >= size)
		memcpy(hint + size - 4, "...", 4);
}

static const char *user_of(const struct vmy_parser *p)
{
	return p->pol->user ? p->pol->user : "";
}

const char *vmy_current_db(struct vmy_parser *p)
{
	char hint[512];

	if (p->pol->database && p->pol->database[0])
		return p->pol->database;
	vmy_allowed_hint(hint, sizeof(hint), p->pol, "run USE <database> first or write database.table; ");
	vmy_refuse(p, AIRLOCK_E_NO_DATABASE, AIRLOCK_N_NONE, hint, "No database selected");
	return NULL;
}

static bool cte_visible(const struct vmy_parser *p, const char *name)
{
	size_t i = p->ncte, n = strlen(name);

	while (i-- > 0) {
		/* MariaDB compares CTE names without case (table names it compares byte for byte). */
		if (p->cte[i].len == n && strncasecmp(p->cte_pool + p->cte[i].off, name, n) == 0)
			return true;
	}
	return false;
}

/*
 * The database a table reference reads: db itself, or for an unqualified
 * name the current one. NULL when there is no table to check: a CTE of
 * that name is in scope, or no database is selected (refused, p->failed).
 */
static const char *table_db(struct vmy_parser *p, const char *db, const char *table)
{
	if (db)
		return db;
	if (cte_visible(p, table))
		return NULL;
	return vmy_current_db(p);
}

bool vmy_check_table(struct vmy_parser *p, const char *db, const char *table)
{
	char hint[512];
	int ok;

	db = table_db(p, db, table);
	if (!db)
		return !p->failed;
	ok = table_allowed(p->pol, db, table);
	if (ok == 1)
		return true;
	if (ok == -1) {
		char prefix[256];

		snprintf(prefix, sizeof(prefix),
			 "information_schema.%.64s shows server settings, "
			 "grants or other sessions (or is not known to airlock) and must be listed by name; ",
			 table);
		vmy_allowed_hint(hint, sizeof(hint), p->pol, prefix);
	} else {
		vmy_allowed_hint(hint, sizeof(hint), p->pol, "");
	}
	vmy_refuse(p, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_NONE, hint,
		   "SELECT command denied to user '%.64s' for table `%.64s`.`%.64s`", user_of(p), db, table);
	return false;
}

bool vmy_check_database(struct vmy_parser *p, const char *db)
{
	char hint[512];
	size_t i;

	for (i = 0; i < p->pol->ntables; i++) {
		const char *e = p->pol->tables ? p->pol->tables[i] : NULL, *dot;

		if (entry_split(e, &dot) && db_matches(e, (size_t)(dot - e), db))
			return true;
	}
	vmy_allowed_hint(hint, sizeof(hint), p->pol, "");
	vmy_refuse(p, AIRLOCK_E_TABLE_NOT_ALLOWED, AIRLOCK_N_MY_DB_ACCESS_DENIED, hint,
		   "Access denied for user '%.64s' to database '%.64s'", user_of(p), db);
	return false;
}

size_t vmy_cte_mark(const struct vmy_parser *p)
{
	return p->ncte;
}

bool vmy_cte_push(struct vmy_parser *p, const char *name)
{
	size_t n = strlen(name);

	if (p->ncte >= VMY_MAX_CTES || n > sizeof(p->cte_pool) - p->cte_used) {
		vmy_refuse(p, AIRLOCK_E_TOO_COMPLEX, AIRLOCK_N_NONE, "use fewer common table expressions",
			   "Too many common table expressions in one statement");
		return false;
	}
	memcpy(p->cte_pool + p->cte_used, name, n);
	p->cte[p->ncte].off = (uint32_t)p->cte_used;
	p->cte[p->ncte].len = (uint16_t)n;
	p->ncte++;
	p->cte_used += n;
	return true;
}

void vmy_cte_pop(struct vmy_parser *p, size_t mark)
{
	if (mark >= p->ncte)
		return;
	p->cte_used = p->cte[mark].off;
	p->ncte = mark;
}

int vmy_rule_index(const struct vmy_policy *pol, const char *db, const char *table)
{
	size_t dlen = strlen(db), i;

	for (i = 0; i < pol->nrules && i < INT16_MAX; i++) {
		const char *t = pol->rules[i].table;

		if (strncmp(t, db, dlen) == 0 && t[dlen] == '.' && strcmp(t + dlen + 1, table) == 0)
			return (int)i;
	}
	return -1;
}

/* information_schema references in text (NULL: none). */
static size_t references_in(const char *text)
{
	size_t n = 0;

	while (text && (text = strstr(text, "information_schema.")) != NULL) {
		n++;
		text++;
	}
	return n;
}

/* information_schema tables the filter and select list of information_schema table t read themselves. */
static size_t nested_reads(const char *t)
{
	const struct vmy_is_table *e = vmy_is_table_find(t);

	if (!e || e->mode != VMY_IS_FILTER)
		return 0;
	return references_in(e->filter) + references_in(e->columns);
}

bool vmy_scope_room(struct vmy_parser *p, const char *is_table)
{
	struct vmy_scope_plan *sp = &p->out->scope;
	size_t n = sp->nrefs + 1;

	/* The rewrite's own validation counts the references its filters added as written. */
	if (!p->pol->rewrite) {
		n += is_table ? nested_reads(is_table) : 0;
		for (size_t i = 0; i < sp->nrefs; i++)
			n += sp->refs[i].rule < 0 ? nested_reads(sp->refs[i].table) : 0;
	}
	if (n <= VMY_MAX_SCOPED)
		return true;
	sp->too_many = true;
	vmy_refuse(p, AIRLOCK_E_TOO_COMPLEX, AIRLOCK_N_MY_NOT_SUPPORTED_YET,
		   "read fewer information_schema tables at once",
		   "Not supported through airlock: more than %d information_schema references", VMY_MAX_SCOPED);
	return false;
}

bool vmy_scope_note(struct vmy_parser *p, size_t start, const char *db, const char *table)
{
	struct vmy_scope_plan *sp = &p->out->scope;
	struct vmy_scoped_ref *r;
	size_t i;
	int rule;

	db = table_db(p, db, table);
	if (!db)
		return !p->failed;
	rule = vmy_rule_index(p->pol, db, table);
	if (!is_is(db, strlen(db)) && rule < 0)
		return true;
	if (!vmy_scope_room(p, rule < 0 ? table : NULL))
		return false;
	r = &sp->refs[sp->nrefs++];
	r->rule = (int16_t)rule;
	snprintf(r->db, sizeof(r->db), "%s", db);
	r->start = (uint32_t)start;
	r->end = (uint32_t)p->last_end;
	for (i = 0; table[i] && i + 1 < sizeof(r->table); i++)
		r->table[i] = (table[i] >= 'a' && table[i] <= 'z') ? (char)(table[i] - 32) : table[i];
	r->table[i] = '\0';
	snprintf(r->written, sizeof(r->written), "%s", table);
	return true;
}

void vmy_scope_aliased(struct vmy_parser *p, size_t start, bool aliased)
{
	struct vmy_scope_plan *sp = &p->out->scope;

	if (sp->nrefs > 0 && sp->refs[sp->nrefs - 1].start == start)
		sp->refs[sp->nrefs - 1].aliased = aliased;
}

bool vmy_scope_hinted(struct vmy_parser *p, size_t start, size_t hint_start, size_t hint_end)
{
	struct vmy_scope_plan *sp = &p->out->scope;
	struct vmy_scoped_ref *r = sp->nrefs > 0 ? &sp->refs[sp->nrefs - 1] : NULL;

	if (!r || r->start != start || r->rule < 0)
		return false;
	r->hint_start = (uint32_t)hint_start;
	r->hint_end = (uint32_t)hint_end;
	return true;
}

bool vmy_check_describable(struct vmy_parser *p, const char *db, const char *table, bool counts)
{
	int rule;

	db = table_db(p, db, table);
	if (!db)
		return !p->failed;
	rule = vmy_rule_index(p->pol, db, table);
	if (rule < 0)
		return true;
	if (counts && !p->pol->rules[rule].has_columns) {
		vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
			   "read information_schema.STATISTICS or SHOW COLUMNS, which leave out what counts hidden "
			   "rows",
			   "Not supported through airlock: index figures and the definition of `%.64s`.`%.64s`, whose "
			   "rows a filter shows you only in part",
			   db, table);
		return false;
	}
	if (!p->pol->rules[rule].has_columns)
		return true;
	vmy_refuse(p, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE,
		   "read information_schema.COLUMNS, which lists the columns you may see",
		   "Not supported through airlock: the definition of `%.64s`.`%.64s`, which shows you only some of its "
		   "columns",
		   db, table);
	return false;
}
