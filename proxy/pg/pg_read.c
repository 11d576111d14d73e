/*
 * pg_read: the job of a read, for every way a Postgres session runs one:
 * a statement (simple Query or Execute), a cursor's query, a portal read a
 * few rows at a time, and the describe job of a prepared statement. One
 * place decides the limits, the settings, the policy's scoping and the
 * plan check, so no path can run a read without them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/pg/pg_session_int.h"
#include "validator/pg/validate_pg_types.h"

/*
 * The parameter types that may name a type outside the user's world (a
 * hidden relation's row type: the client chose them in Parse, or the
 * backend inferred them at Describe): the runner's check of them, scoped to
 * the policy, in *check, and the guard of the domains they reach in *guard
 * (each NULL when no type needs one, which is every statement with only
 * built-in or unspecified types; the caller frees both). The runner checks
 * them before the guard runs, so the guard sees only types of the world.
 * False when they could not be made, the ErrorResponse queued.
 */
static bool type_check(struct pg_session *s, const struct pgj_read *rd, char **check, char **guard)
{
	uint32_t oids[SESS_MAX_PARAMS];
	size_t n = 0;
	char *sql;

	*check = NULL;
	*guard = NULL;
	for (size_t i = 0; i < rd->nparams; i++) {
		const char *reg = pgv_param_type_refused(rd->params[i].type_oid);

		if (reg) {
			char msg[160];

			snprintf(msg, sizeof(msg), "parameters of type %s are not supported", reg);
			pgr_error(s, AIRLOCK_E_UNSUPPORTED, AIRLOCK_N_NONE, msg,
				  "bind the oid as oid or the name as text, and cast it in the statement", 0);
			return false;
		}
		if (!pgv_param_type_needs_check(rd->params[i].type_oid))
			continue;
		if (n == SESS_MAX_PARAMS) {
			pgr_error(s, AIRLOCK_E_NONE, AIRLOCK_N_PG_PROGRAM_LIMIT_EXCEEDED, "too many parameters", NULL,
				  0);
			return false;
		}
		oids[n++] = rd->params[i].type_oid;
	}
	if (n == 0)
		return true;
	sql = pgv_param_type_check_sql(oids, n);
	*guard = pgp_params_guard(s, oids, n);
	if (!sql || !*guard) {
		free(sql);
		free(*guard);
		*guard = NULL;
		pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
		return false;
	}
	if (!pgp_scope(s, sql, check, NULL)) {
		free(sql);
		free(*guard);
		*guard = NULL;
		return false;
	}
	free(sql);
	/* Unscoped, the check would pass every type that exists: fail closed. */
	if (!*check) {
		free(*guard);
		*guard = NULL;
		pgr_error(s, AIRLOCK_E_EXECUTION_FAILED, AIRLOCK_N_PG_INTERNAL_ERROR,
			  "the parameter types could not be checked", NULL, 0);
		return false;
	}
	return true;
}

/* a, or b, or both as one read (the guards are SELECTs of the same one column); heap, NULL when out of memory. */
static char *both_guards(const char *a, const char *b)
{
	size_t la, lb;
	char *out;

	if (!a || !b)
		return strdup(a ? a : b);
	la = strlen(a);
	lb = strlen(b);
	out = malloc(la + lb + sizeof(" UNION ALL "));
	if (out) {
		memcpy(out, a, la);
		memcpy(out + la, " UNION ALL ", sizeof(" UNION ALL ") - 1);
		memcpy(out + la + sizeof(" UNION ALL ") - 1, b, lb + 1);
	}
	return out;
}

struct job *pgj_start(struct pg_session *s, const struct pgj_read *rd, const struct job_events *ev, void *arg)
{
	struct job_setting settings[32];
	struct airlock_limits limits = s->core.u->limits;
	uint64_t session_ms = pgs_ms(&s->set, "statement_timeout");
	struct job_request req = {
		.target = s->core.u->target,
		.limits = &limits,
		.sql = rd->sql,
		.settings = settings,
		.nsettings = pgs_job_settings(&s->set, settings),
		.params = rd->params,
		.nparams = rd->nparams,
		.cost_check = rd->cost_check && !rd->describe,
		.formats = rd->formats,
		.describe = rd->describe,
		.plan_sql = rd->plan_sql,
		.copy = rd->copy,
		.copy_header = rd->copy_header,
		.rewritten = rd->copy, /* a COPY is written around its read */
	};
	char *scoped = NULL, *plan = NULL, *types = NULL, *guard = NULL, *params_guard = NULL, *guards = NULL;
	struct job *j = NULL;

	/* The session's statement_timeout, within the user's timeout_ms. */
	if (session_ms && session_ms < limits.timeout_ms)
		limits.timeout_ms = (uint32_t)session_ms;
	if (!type_check(s, rd, &types, &params_guard))
		return NULL;
	req.type_check = types;
	req.guard = rd->guard;
	if (rd->scope) {
		if (!pgp_scope(s, rd->sql, &scoped, &guard))
			goto out;
		if (scoped) {
			req.sql = scoped;
			req.rewritten = true;
		}
		req.guard = guard;
	}
	if (params_guard) {
		req.guard = guards = both_guards(req.guard, params_guard);
		if (!guards) {
			pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
			goto out;
		}
	}
	/* A describe job runs nothing: there is no plan to check. */
	if (s->core.u->plan_check && rd->plan && !rd->describe) {
		req.plan_tables = plan = pgp_plan_tables(s);
		if (!plan) {
			pgr_error(s, AIRLOCK_E_OUT_OF_MEMORY, AIRLOCK_N_NONE, "out of memory", NULL, 0);
			goto out;
		}
	}
	j = pgr_start_job(s, &req, ev, arg);
out:
	free(scoped);
	free(plan);
	free(types);
	free(guard);
	free(params_guard);
	free(guards);
	return j;
}

struct pgj_read pgj_statement(const char *sql, const struct pgv_result *v, const struct pgq_exec *x)
{
	bool read = v->kind == PGV_READ;

	return (struct pgj_read){
		.sql = sql,
		.scope = read,
		.plan = read && !v->explain,
		.cost_check = read && !v->explain,
		.params = x->params,
		.nparams = x->nparams,
		.formats = x->formats,
	};
}
