/*
 * test_job_users: the per-user running counts behind a user's own max_jobs
 * (proxy/job/job_users.c): a user is counted while it has jobs running and
 * forgotten at zero; nobody's jobs (NULL) are not counted; a count never
 * goes below zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "proxy/job/job_int.h"

static const int user_a, user_b;

static void test_counts_per_user(void **state)
{
	struct job_env env = {0};

	(void)state;
	assert_true(job_user_reserve(&env));
	job_user_add(&env, &user_a);
	job_user_add(&env, &user_a);
	job_user_add(&env, &user_b);
	job_user_add(&env, NULL);
	assert_int_equal(job_user_running(&env, &user_a), 2);
	assert_int_equal(job_user_running(&env, &user_b), 1);
	assert_int_equal(job_user_running(&env, NULL), 0);
	assert_int_equal(env.nusers, 2);
	job_user_sub(&env, &user_a);
	job_user_sub(&env, &user_b);
	job_user_sub(&env, NULL);
	assert_int_equal(job_user_running(&env, &user_a), 1);
	assert_int_equal(job_user_running(&env, &user_b), 0);
	assert_int_equal(env.nusers, 1); /* b is forgotten at zero */
	job_user_sub(&env, &user_a);
	job_user_sub(&env, &user_a); /* not counted: nothing to take */
	assert_int_equal(job_user_running(&env, &user_a), 0);
	assert_int_equal(env.nusers, 0);
	job_users_fini(&env);
}

/* The table grows past its first allocation. */
static void test_many_users(void **state)
{
	static char users[100];
	struct job_env env = {0};

	(void)state;
	for (int i = 0; i < 100; i++)
		job_user_add(&env, &users[i]);
	for (int i = 0; i < 100; i++)
		assert_int_equal(job_user_running(&env, &users[i]), 1);
	for (int i = 0; i < 100; i += 2)
		job_user_sub(&env, &users[i]);
	assert_int_equal(env.nusers, 50);
	assert_int_equal(job_user_running(&env, &users[99]), 1);
	assert_int_equal(job_user_running(&env, &users[98]), 0);
	job_users_fini(&env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_per_user),
		cmocka_unit_test(test_many_users),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
