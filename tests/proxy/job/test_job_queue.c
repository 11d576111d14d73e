/*
 * test_job_queue: the fair queue under max_jobs (proxy/job/job_queue.c)
 * with real held jobs on a real loop (job_fixture.h). The user served
 * longest ago goes first, a user's own statements in arrival order; the
 * queue holds JOB_QUEUE_MAX at most; a waiter that leaves (its owner
 * detached, or it was canceled) is forgotten; one that waits past its
 * queue_wait_ms fails with BUSY; a flush fails every waiter with BUSY; a
 * user with no room under its own max_jobs is passed over until it has.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "proxy/job/job_queue.h"
#include "tests/proxy/job/job_fixture.h"

static const int user_a, user_b, user_c;
static const void *full_user; /* the user at its own max_jobs, or NULL */

static enum job_room room(void *arg, const struct job_queued *e)
{
	(void)arg;
	assert_int_equal(e->user_max, 1);
	assert_non_null(e->target);
	return e->user != full_user ? JOB_ROOM_OK : JOB_ROOM_USER;
}

struct qfix {
	struct jfix *f;
	struct job_queue q;
};

static int setup(void **state)
{
	struct qfix *x = calloc(1, sizeof(*x));

	x->f = jfix_new(NULL);
	full_user = NULL;
	job_queue_init(&x->q, &x->f->env, room, NULL);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct qfix *x = *state;

	job_queue_flush(&x->q, "BUSY: test over");
	jfix_pump(x->f, 3);
	job_queue_fini(&x->q);
	assert_int_equal(x->f->env.live, 0);
	jfix_free(x->f);
	free(x);
	return 0;
}

static struct job *add(struct qfix *x, const void *user, struct owner *o, uint32_t wait_ms)
{
	struct job_request req = jfix_request(x->f, user);
	struct job *j = job_new(&x->f->env);

	req.user_max_jobs = 1;
	assert_non_null(j);
	assert_int_equal(job_queue_add(&x->q, j, &req, &owner_events, o, wait_ms), 0);
	return j;
}

/* The next job; its owner leaves at once (the test does not run it). */
static struct job *next(struct qfix *x)
{
	struct job *j = job_queue_next(&x->q);

	if (j)
		job_detach(j);
	/* Served times are in milliseconds: two serves never share one. */
	usleep(2000);
	return j;
}

static void test_user_served_longest_ago_goes_first(void **state)
{
	struct qfix *x = *state;
	struct owner o[8] = {{0}};
	struct job *a1 = add(x, &user_a, &o[0], 5000), *a2 = add(x, &user_a, &o[1], 5000),
		   *a3 = add(x, &user_a, &o[2], 5000), *b1 = add(x, &user_b, &o[3], 5000),
		   *c1 = add(x, &user_c, &o[4], 5000);
	struct job *a4, *b2;

	assert_int_equal(job_queue_len(&x->q), 5);
	/* Nobody served yet: arrival order picks a1; then the users not served come before a's burst. */
	assert_ptr_equal(next(x), a1);
	assert_ptr_equal(next(x), b1);
	assert_ptr_equal(next(x), c1);
	assert_ptr_equal(next(x), a2);
	/* b arrives after a, but a was served last: b first. */
	a4 = add(x, &user_a, &o[5], 5000);
	b2 = add(x, &user_b, &o[6], 5000);
	assert_ptr_equal(next(x), b2);
	/* A user's own statements keep their order. */
	assert_ptr_equal(next(x), a3);
	assert_ptr_equal(next(x), a4);
	assert_null(next(x));
	assert_int_equal(job_queue_len(&x->q), 0);
	jfix_pump(x->f, 3);
	for (int i = 0; i < 7; i++)
		assert_int_equal(o[i].done, 0); /* served, not failed */
}

static void test_bounded(void **state)
{
	struct qfix *x = *state;
	struct job_request req = jfix_request(x->f, &user_a);
	static struct owner o[JOB_QUEUE_MAX];

	req.user_max_jobs = 1;
	struct owner extra = {0};
	struct job *j;

	memset(o, 0, sizeof(o));
	for (unsigned i = 0; i < JOB_QUEUE_MAX; i++)
		add(x, &user_a, &o[i], 5000);
	assert_int_equal(job_queue_len(&x->q), JOB_QUEUE_MAX);
	j = job_new(&x->f->env);
	assert_int_equal(job_queue_add(&x->q, j, &req, &owner_events, &extra, 5000), -1);
	assert_int_equal(job_queue_len(&x->q), JOB_QUEUE_MAX);
	job_discard(j); /* refused: never held */
	/* A flush fails every waiter with BUSY, on a later pass. */
	job_queue_flush(&x->q, "BUSY: test");
	assert_int_equal(job_queue_len(&x->q), 0);
	assert_int_equal(o[0].done, 0);
	jfix_pump(x->f, 3);
	for (unsigned i = 0; i < JOB_QUEUE_MAX; i++) {
		assert_int_equal(o[i].done, 1);
		assert_int_equal(o[i].code, AIRLOCK_E_BUSY);
	}
	assert_int_equal(extra.done, 0);
	assert_int_equal(x->f->env.live, 0);
	assert_int_equal(x->f->env.running, 0);
}

static void test_waiter_leaves(void **state)
{
	struct qfix *x = *state;
	struct owner o[3] = {{0}};
	struct job *a1 = add(x, &user_a, &o[0], 5000), *b1 = add(x, &user_b, &o[1], 5000),
		   *c1 = add(x, &user_c, &o[2], 5000);

	job_detach(b1); /* its owner went */
	assert_int_equal(job_queue_len(&x->q), 2);
	job_cancel(c1); /* fails on the next pass, and leaves the queue then */
	jfix_pump(x->f, 3);
	assert_int_equal(o[2].done, 1);
	assert_int_equal(o[2].code, AIRLOCK_E_CANCELED);
	assert_int_equal(job_queue_len(&x->q), 1);
	assert_ptr_equal(next(x), a1);
	assert_null(next(x));
	assert_int_equal(o[1].done, 0);
}

static void test_waits_at_most_queue_wait_ms(void **state)
{
	struct qfix *x = *state;
	struct owner quick = {0}, slow = {0};

	add(x, &user_a, &quick, 30);
	add(x, &user_b, &slow, 10000);
	jfix_run_ms(x->f, 10);
	assert_int_equal(quick.done, 0);
	jfix_run_ms(x->f, 80);
	assert_int_equal(quick.done, 1);
	assert_int_equal(quick.code, AIRLOCK_E_BUSY);
	assert_string_equal(quick.sqlstate, "53300");
	assert_int_equal(slow.done, 0);
	assert_int_equal(job_queue_len(&x->q), 1);
	/* slow lives in this frame: its job leaves the queue before the frame does. */
	job_queue_flush(&x->q, "BUSY: test over");
	jfix_pump(x->f, 3);
	assert_int_equal(slow.done, 1);
}

static void test_user_without_room_is_passed_over(void **state)
{
	struct qfix *x = *state;
	struct owner o[4] = {{0}};
	struct job *a1, *b1, *a2;

	full_user = &user_a;
	a1 = add(x, &user_a, &o[0], 5000);
	assert_false(job_queue_runnable(&x->q)); /* a newcomer of another user need not wait behind a1 */
	b1 = add(x, &user_b, &o[1], 5000);
	assert_true(job_queue_runnable(&x->q));
	a2 = add(x, &user_a, &o[2], 40);
	/* a runs its max_jobs: b's statement goes, a's wait though they came first. */
	assert_ptr_equal(next(x), b1);
	assert_null(next(x));
	assert_int_equal(job_queue_len(&x->q), 2);
	/* a2 waits past its queue_wait_ms while a has no room: BUSY. */
	jfix_run_ms(x->f, 100);
	assert_int_equal(o[2].done, 1);
	assert_int_equal(o[2].code, AIRLOCK_E_BUSY);
	assert_int_equal(job_queue_len(&x->q), 1);
	(void)a2;
	/* One of a's finished: its oldest goes. */
	full_user = NULL;
	assert_ptr_equal(next(x), a1);
	assert_null(next(x));
	jfix_pump(x->f, 3);
	assert_int_equal(o[0].done, 0);
	assert_int_equal(o[1].done, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_user_served_longest_ago_goes_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiter_leaves, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waits_at_most_queue_wait_ms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_without_room_is_passed_over, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
