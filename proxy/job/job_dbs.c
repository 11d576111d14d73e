/*
 * job_dbs: how many backend connections the jobs of each target hold, for
 * the targets' max_db_connections (see job_int.h). A short array: a
 * target is in it only while one of its jobs is prepared and not done,
 * so it never holds more entries than there are live jobs. Keyed by the
 * target's name, which outlives a reload that replaces the target itself.
 */
#include <stdlib.h>
#include <string.h>

#include "proxy/job/job_int.h"

static struct job_db_count *find(const struct job_env *env, const char *target)
{
	for (size_t i = 0; i < env->ndbs; i++)
		if (strcmp(env->dbs[i].target, target) == 0)
			return &env->dbs[i];
	return NULL;
}

unsigned job_db_open(const struct job_env *env, const char *target)
{
	const struct job_db_count *d = find(env, target);

	return d ? d->open : 0;
}

bool job_db_take(struct job_env *env, const char *target)
{
	struct job_db_count *d = find(env, target);

	if (d) {
		d->open++;
		return true;
	}
	if (env->ndbs == env->dbs_cap) {
		size_t cap = env->dbs_cap ? env->dbs_cap * 2 : 8;
		struct job_db_count *n = realloc(env->dbs, cap * sizeof(*n));

		if (!n)
			return false;
		env->dbs = n;
		env->dbs_cap = cap;
	}
	d = &env->dbs[env->ndbs];
	d->target = strdup(target);
	if (!d->target)
		return false;
	d->open = 1;
	env->ndbs++;
	return true;
}

void job_db_give(struct job_env *env, const char *target)
{
	struct job_db_count *d = find(env, target);

	if (!d || --d->open)
		return;
	free(d->target);
	*d = env->dbs[--env->ndbs];
}

void job_db_give_room(struct job_env *env, const char *target)
{
	job_db_give(env, target);
	if (env->on_finished)
		env->on_finished(env->hook_arg);
}

void job_dbs_fini(struct job_env *env)
{
	for (size_t i = 0; i < env->ndbs; i++)
		free(env->dbs[i].target);
	free(env->dbs);
	env->dbs = NULL;
	env->ndbs = env->dbs_cap = 0;
}
