/*
 * job_users: how many jobs each user has running, for the users' own
 * max_jobs (see job_int.h). A short array: a user is in it only while it
 * has a job running, so it never holds more entries than jobs run.
 */
#include <stdlib.h>

#include "proxy/job/job_int.h"

unsigned job_user_running(const struct job_env *env, const void *user)
{
	for (size_t i = 0; i < env->nusers; i++)
		if (env->users[i].user == user)
			return env->users[i].running;
	return 0;
}

bool job_user_reserve(struct job_env *env)
{
	struct job_user_count *u;
	size_t cap;

	if (env->nusers < env->users_cap)
		return true;
	cap = env->users_cap ? env->users_cap * 2 : 16;
	u = realloc(env->users, cap * sizeof(*u));
	if (!u)
		return false;
	env->users = u;
	env->users_cap = cap;
	return true;
}

void job_user_add(struct job_env *env, const void *user)
{
	size_t i;

	if (!user)
		return;
	for (i = 0; i < env->nusers; i++) {
		if (env->users[i].user == user) {
			env->users[i].running++;
			return;
		}
	}
	/* job_user_reserve made room before the job was let run; without it the job runs uncounted. */
	if (!job_user_reserve(env))
		return;
	env->users[env->nusers++] = (struct job_user_count){.user = user, .running = 1};
}

void job_user_sub(struct job_env *env, const void *user)
{
	for (size_t i = 0; user && i < env->nusers; i++) {
		if (env->users[i].user != user)
			continue;
		if (--env->users[i].running == 0)
			env->users[i] = env->users[--env->nusers];
		return;
	}
}

void job_users_fini(struct job_env *env)
{
	free(env->users);
	env->users = NULL;
	env->nusers = env->users_cap = 0;
}
