/*
 * pg_policy: the session's policy as the validator sees it (the user's
 * allowlist, the session's search_path, the user name), and the two
 * validator calls made with it: classifying a statement and scoping a
 * read to the catalogs the user may see, each answered by a validator
 * worker (proxy/validator_client.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/wbuf.h"

#include "proxy/pg/pg_policy.h"
#include "proxy/pg/pg_session_int.h"
#include "proxy/server.h"
#include "proxy/validator_client.h"
#include "validator/pg/validate_pg_guard.h"

void pgp_user_policy(const struct airlock_user *u, const struct pg_settings *set, const char **path,
		     struct pgv_policy *pol)
{
	*pol = (struct pgv_policy){
		.tables = (const char *const *)u->tables,
		.ntables = u->ntables,
		.search_path = path,
		.nsearch_path = pgs_search_path(set, path),
		.user = u->name,
		.rules = u->rules,
		.nrules = u->nrules,
		.functions = (const char *const *)u->functions,
		.nfunctions = u->nfunctions,
		.forbid_star = u->forbid_select_star,
	};
	if (u->writes && strcmp(u->writes, "approve") == 0 && u->write_target) {
		pol->write_tables = (const char *const *)u->write_tables;
		pol->nwrite_tables = u->nwrite_tables;
	}
}

/* The session's policy; path (PGS_MAX_PATH entries) receives the search_path. */
static void session_policy(struct pg_session *s, struct pgv_policy *pol, const char **path)
{
	pgp_user_policy(s->core.u, &s->set, path, pol);
	/* The describe job of a read refused for its star: its columns make the refusal's hint (pg_star.c). */
	if (s->star_allowed)
		pol->forbid_star = false;
}

void pgp_scoped_free(struct pg_session *s)
{
	if (!s->scoped)
		return;
	vcl_scoped_clear(s->scoped);
	free(s->scoped);
	s->scoped = NULL;
}

void pgp_validate(struct pg_session *s, const char *sql, struct pgv_result *v)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol;

	session_policy(s, &pol, path);
	/* Without room to hold a scope, the validation alone. */
	if (!s->scoped)
		s->scoped = calloc(1, sizeof(*s->scoped));
	vcl_pg_validate(s->core.srv->validators, &pol, sql, false, v, s->scoped);
	if (s->scoped && !s->scoped->key)
		pgp_scoped_free(s);
}

bool pgp_scope(struct pg_session *s, const char *sql, char **scoped, char **guard)
{
	const char *path[PGS_MAX_PATH];
	struct pgv_policy pol;
	struct pgv_result v;
	enum pgv_kind kind;

	session_policy(s, &pol, path);
	kind = vcl_pg_scope(s->core.srv->validators, &pol, sql, scoped, guard, &v, s->scoped);
	pgp_scoped_free(s);
	if (kind == PGV_READ)
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
