/*
 * pg_policy: the session's policy as the validator sees it (the user's
 * allowlist, the session's search_path, the user name), and the two
 * validator calls made with it: classifying a statement and scoping a
 * read to the catalogs the user may see, each answered by a validator
 * worker (proxy/validator_client.h).
 */
#include <stdbool.h>
#include <string.h>

#include "base/wbuf.h"

#include "proxy/pg/pg_session_int.h"
#include "proxy/server.h"
#include "proxy/validator_client.h"
#include "validator/pg/validate_pg_guard.h"

/* The session's policy; path (PGS_MAX_PATH entries) receives the search_path. */
static void session_policy(struct pg_session *s, struct pgv_policy *pol, const char **path)
{
	*pol = (struct pgv_policy){
		.tables = (const char *const *)s->core.u->tables,
		.ntables = s->core.u->ntables,
		.search_path = path,
		.user = s->core.u->name,
		.rules = s->core.u->rules,
		.nrules = s->core.u->nrules,
		.functions = (const char *const *)s->core.u->functions,
		.nfunctions = s->core.u->nfunctions,
	};
	pol->nsearch_path = pgs_search_path(&s->set, path);
	if (s->core.u->writes && strcmp(s->core.u->writes, "approve") == 0 && s->core.u->write_target) {
		pol->write_tables = (const char *const *)s->core.u->write_tables;
		pol->nwrite_tables = s->core.u->nwrite_tables;
	}
}

void pgp_validate(struct pg_session *s, const char *sql, struct pgv_result *v)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol;

	session_policy(s, &pol, path);
	vcl_pg_validate(s->core.srv->validators, &pol, sql, false, v);
}

bool pgp_scope(struct pg_session *s, const char *sql, char **scoped, char **guard)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol;
	struct pgv_result v;

	session_policy(s, &pol, path);
	if (vcl_pg_scope(s->core.srv->validators, &pol, sql, scoped, guard, &v) == PGV_READ)
		return true;
	pgr_refused(s, &v);
	return false;
}

bool pgp_write(struct pg_session *s, const char *sql, char **text, char **guard, char **sample, struct pgv_result *v)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol;

	session_policy(s, &pol, path);
	if (vcl_pg_write(s->core.srv->validators, &pol, sql, text, guard, sample, v) == PGV_WRITE)
		return true;
	pgr_refused(s, v);
	return false;
}

char *pgp_params_guard(struct pg_session *s, const uint32_t *oids, size_t n)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol;

	session_policy(s, &pol, path);
	return pgv_guard_params_sql(&pol, oids, n);
}

char *pgp_plan_tables(const struct pg_session *s)
{
	const struct airlock_user *u = s->core.u;
	struct wbuf w;
	size_t i;

	if (!u->plan_check)
		return NULL;
	wbuf_init(&w);
	for (i = 0; i < u->ntables; i++) {
		wbuf_put_str(&w, u->tables[i]);
		wbuf_put_str(&w, ", ");
	}
	/* The catalogs: the statement's own catalog references were checked and scoped before it got here. */
	wbuf_put_str(&w, "pg_catalog.*, information_schema.*");
	wbuf_put_u8(&w, 0);
	if (w.failed) {
		wbuf_free(&w);
		return NULL;
	}
	return (char *)w.data;
}
