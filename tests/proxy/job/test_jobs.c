/*
 * test_jobs: the job manager's admission (proxy/job/jobs.c) on a real loop
 * with a real launcher that cannot start a container (job_fixture.h), so
 * every statement that gets a runner fails with IMAGE_UNAVAILABLE: which
 * statement ran, waited or was refused, and in what order, is what the
 * manager decided. A host outside the allowlist is refused without a
 * container; max_jobs statements run, the rest wait and run fairly as
 * room comes; with queue_wait_ms = 0 they are refused with BUSY at once;
 * a reload to queue_wait_ms = 0 fails those waiting; the pool's stop
 * fails them too. A user's own max_jobs makes its statements wait as the
 * server's does (BUSY at once only without a queue), while another user's
 * run.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "tests/proxy/job/job_fixture.h"

static const int user_a, user_b;

struct mfix {
	struct jfix *f;
	struct jobs *js;
};

static struct mfix *mfix_new(const char *extra)
{
	struct mfix *m = calloc(1, sizeof(*m));

	m->f = jfix_new(extra);
	m->js = jobs_new(m->f->base, NULL, m->f->launcher, m->f->cfg);
	assert_non_null(m->js);
	return m;
}

static int teardown(void **state)
{
	struct mfix *m = *state;

	jobs_stop_pool(m->js);
	jfix_pump(m->f, 5);
	assert_int_equal(jobs_live(m->js), 0);
	jobs_free(m->js);
	jfix_free(m->f);
	free(m);
	return 0;
}

static int setup_one_at_a_time(void **state)
{
	*state = mfix_new("max_jobs = 1\nqueue_wait_ms = 5000\n");
	return 0;
}

static int setup_roomy(void **state)
{
	*state = mfix_new("max_jobs = 8\nqueue_wait_ms = 5000\n");
	return 0;
}

static int setup_roomy_no_queue(void **state)
{
	*state = mfix_new("max_jobs = 8\nqueue_wait_ms = 0\n");
	return 0;
}

static int setup_no_queue(void **state)
{
	*state = mfix_new("max_jobs = 1\nqueue_wait_ms = 0\n");
	return 0;
}

static struct job *start(struct mfix *m, const void *user, struct owner *o)
{
	struct job_request req = jfix_request(m->f, user);
	struct job *j = job_start(m->js, &req, &owner_events, o);

	assert_non_null(j);
	return j;
}

static void test_host_not_allowed(void **state)
{
	struct mfix *m = *state;
	struct job_request req = jfix_request(m->f, &user_a);
	struct airlock_target elsewhere = *req.target;
	struct owner o = {0};

	elsewhere.host = "192.0.2.1";
	req.target = &elsewhere;
	assert_non_null(job_start(m->js, &req, &owner_events, &o));
	assert_int_equal(o.done, 0); /* never from inside job_start */
	jfix_pump(m->f, 3);
	assert_int_equal(o.done, 1);
	assert_int_equal(o.code, AIRLOCK_E_HOST_NOT_ALLOWED);
	assert_string_equal(o.sqlstate, "42501");
}

/* One runs; the others wait, and run as room comes: a's second after b's first, though it came earlier. */
static void test_max_jobs_then_fair_queue(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, a2 = {0}, a3 = {0}, b1 = {0};

	start(m, &user_a, &a1);
	start(m, &user_a, &a2);
	start(m, &user_a, &a3);
	start(m, &user_b, &b1);
	jfix_run_ms(m->f, 200);
	/* Every one got a runner in the end (which could not start here), none was refused. */
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(a2.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(a3.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(b1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	/* a1 ran at once; of those that waited, the first in, then b (never served), then a's last. */
	assert_int_equal(a1.order, 1);
	assert_int_equal(a2.order, 2);
	assert_int_equal(b1.order, 3);
	assert_int_equal(a3.order, 4);
}

static void test_waiting_fails_when_queue_wait_ms_becomes_0(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, a2 = {0};
	struct airlock_config *cfg = (struct airlock_config *)m->f->cfg;

	start(m, &user_a, &a1);
	start(m, &user_a, &a2);
	cfg->queue_wait_ms = 0;
	jobs_set_config(m->js, cfg);
	jfix_pump(m->f, 5);
	assert_int_equal(a2.done, 1);
	assert_int_equal(a2.code, AIRLOCK_E_BUSY);
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
}

static void test_stop_fails_the_waiting(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, a2 = {0};

	start(m, &user_a, &a1);
	start(m, &user_b, &a2);
	jobs_stop_pool(m->js);
	jfix_pump(m->f, 5);
	assert_int_equal(a2.code, AIRLOCK_E_BUSY);
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
}

static void test_busy_at_once_without_a_queue(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, b1 = {0};

	start(m, &user_a, &a1);
	start(m, &user_b, &b1);
	jfix_pump(m->f, 5);
	assert_int_equal(b1.code, AIRLOCK_E_BUSY);
	assert_string_equal(b1.sqlstate, "53300");
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	/* Room again: the next one runs. */
	start(m, &user_b, &b1);
	jfix_pump(m->f, 5);
	assert_int_equal(b1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
}

static struct job *start_capped(struct mfix *m, const void *user, uint32_t user_max, struct owner *o)
{
	struct job_request req = jfix_request(m->f, user);
	struct job *j;

	req.user_max_jobs = user_max;
	j = job_start(m->js, &req, &owner_events, o);
	assert_non_null(j);
	return j;
}

/* a's own max_jobs is 1: its second and third wait, then run one by one; none is refused. */
static void test_user_max_jobs_waits(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, a2 = {0}, a3 = {0}, b1 = {0};

	assert_true(jobs_user_has_room(m->js, &user_a, 1));
	start_capped(m, &user_a, 1, &a1);
	assert_false(jobs_user_has_room(m->js, &user_a, 1));
	assert_true(jobs_user_has_room(m->js, &user_a, 2));
	assert_true(jobs_user_has_room(m->js, &user_a, 0));
	start_capped(m, &user_a, 1, &a2);
	start_capped(m, &user_a, 1, &a3);
	start_capped(m, &user_b, 1, &b1);
	jfix_run_ms(m->f, 300);
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(a2.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(a3.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(b1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_true(a1.order < a2.order && a2.order < a3.order);
}

/* Without a queue, a user at its own max_jobs is told BUSY at once; another user is not. */
static void test_user_max_jobs_busy_without_a_queue(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, a2 = {0}, b1 = {0};

	start_capped(m, &user_a, 1, &a1);
	start_capped(m, &user_a, 1, &a2);
	start_capped(m, &user_b, 1, &b1);
	jfix_pump(m->f, 5);
	assert_int_equal(a2.code, AIRLOCK_E_BUSY);
	assert_string_equal(a2.sqlstate, "53300");
	jfix_run_ms(m->f, 200);
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(b1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	/* a's first is done: room again. */
	start_capped(m, &user_a, 1, &a2);
	jfix_run_ms(m->f, 200);
	assert_int_equal(a2.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
}

/* The test's own config: its target may be bounded in place. */
static void bound_target(struct mfix *m, uint32_t max)
{
	((struct airlock_target *)config_find_user(m->f->cfg, "agent")->target)->max_db_connections = max;
}

struct seen {
	unsigned n[JOB_PHASE_CONTAINER_FAILED + 1];
	double most_queue_wait;
};

static void observe(void *arg, enum job_phase phase, double seconds)
{
	struct seen *s = arg;

	s->n[phase]++;
	if (phase == JOB_PHASE_QUEUE_WAIT && seconds > s->most_queue_wait)
		s->most_queue_wait = seconds;
	assert_true(seconds >= 0);
}

/*
 * Each statement's wait for room is told once, a waiter's longer than the
 * one that ran at once; each container the launcher failed to start is
 * told; no runner ever had a statement, so no runner wait or backend time.
 */
static void test_phases_told(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, a2 = {0};
	struct seen seen = {0};

	jobs_observe(m->js, observe, &seen);
	start(m, &user_a, &a1);
	start(m, &user_a, &a2);
	jfix_run_ms(m->f, 200);
	assert_int_equal(a1.done + a2.done, 2);
	assert_int_equal(seen.n[JOB_PHASE_QUEUE_WAIT], 2);
	assert_true(seen.most_queue_wait > 0);
	assert_int_equal(seen.n[JOB_PHASE_CONTAINER_FAILED], 2);
	assert_int_equal(seen.n[JOB_PHASE_CONTAINER_OK], 0);
	assert_int_equal(seen.n[JOB_PHASE_RUNNER_WAIT], 0);
	assert_int_equal(seen.n[JOB_PHASE_BACKEND], 0);
	jobs_observe(m->js, NULL, NULL);
}

/* One backend connection: of three statements with room under max_jobs, one runs, two wait, all run in turn. */
static void test_db_bound_queues(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, a2 = {0}, b1 = {0};
	unsigned most = 0;

	bound_target(m, 1);
	start(m, &user_a, &a1);
	start(m, &user_a, &a2);
	start(m, &user_b, &b1);
	assert_int_equal(jobs_db_open(m->js, "shop"), 1);
	for (int i = 0; i < 200 && b1.done + a2.done + a1.done < 3; i++) {
		unsigned open = jobs_db_open(m->js, "shop");

		most = open > most ? open : most;
		jfix_pump(m->f, 1);
		usleep(1000);
	}
	assert_int_equal(most, 1);
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(a2.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(b1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	/* The first ran at once; the others in their turn, in arrival order (neither was served yet). */
	assert_true(a1.order < a2.order && a2.order < b1.order);
	assert_int_equal(jobs_db_open(m->js, "shop"), 0);
}

/* Without a queue the second is told BUSY at once, naming the bound; room again once the first is done. */
static void test_db_bound_busy_without_a_queue(void **state)
{
	struct mfix *m = *state;
	struct owner a1 = {0}, b1 = {0};

	bound_target(m, 1);
	start(m, &user_a, &a1);
	start(m, &user_b, &b1);
	jfix_pump(m->f, 5);
	assert_int_equal(b1.code, AIRLOCK_E_BUSY);
	assert_string_equal(b1.sqlstate, "53300");
	jfix_run_ms(m->f, 200);
	assert_int_equal(a1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	start(m, &user_b, &b1);
	jfix_run_ms(m->f, 200);
	assert_int_equal(b1.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_host_not_allowed, setup_one_at_a_time, teardown),
		cmocka_unit_test_setup_teardown(test_phases_told, setup_one_at_a_time, teardown),
		cmocka_unit_test_setup_teardown(test_max_jobs_then_fair_queue, setup_one_at_a_time, teardown),
		cmocka_unit_test_setup_teardown(test_waiting_fails_when_queue_wait_ms_becomes_0, setup_one_at_a_time,
						teardown),
		cmocka_unit_test_setup_teardown(test_stop_fails_the_waiting, setup_one_at_a_time, teardown),
		cmocka_unit_test_setup_teardown(test_busy_at_once_without_a_queue, setup_no_queue, teardown),
		cmocka_unit_test_setup_teardown(test_user_max_jobs_waits, setup_roomy, teardown),
		cmocka_unit_test_setup_teardown(test_user_max_jobs_busy_without_a_queue, setup_roomy_no_queue,
						teardown),
		cmocka_unit_test_setup_teardown(test_db_bound_queues, setup_roomy, teardown),
		cmocka_unit_test_setup_teardown(test_db_bound_busy_without_a_queue, setup_roomy_no_queue, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
