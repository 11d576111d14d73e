/*
 * test_job_state: a job's one state mover (proxy/job/job_state.c) and the
 * job's life through its real entry points, on a real loop with a real
 * launcher that cannot start a container (job_fixture.h). Every move the
 * table allows is made and does its counting; every other move is refused
 * (a strict build aborts, which a child process shows); and a job is
 * walked through each path that needs no runner: refused, held then
 * released, canceled or detached while held, warm then lost, taken,
 * canceled before its runner has the statement, detached while running,
 * discarded.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "proxy/job/job_impl.h"
#include "proxy/job/job_state.h"
#include "proxy/strict.h"
#include "tests/proxy/job/job_fixture.h"

/* The moves job_state.h documents, written out again: the table may not drift from them. */
static const struct {
	enum job_state from, to;
} documented[] = {
	{JOB_NEW, JOB_IDLE},          {JOB_NEW, JOB_HELD},     {JOB_NEW, JOB_RUNNING},    {JOB_NEW, JOB_DONE},
	{JOB_IDLE, JOB_RUNNING},      {JOB_IDLE, JOB_DONE},    {JOB_HELD, JOB_RUNNING},   {JOB_HELD, JOB_DONE},
	{JOB_RUNNING, JOB_CANCELING}, {JOB_RUNNING, JOB_DONE}, {JOB_CANCELING, JOB_DONE},
};

static bool documented_move(enum job_state from, enum job_state to)
{
	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++)
		if (documented[i].from == from && documented[i].to == to)
			return true;
	return false;
}

static int setup(void **state)
{
	*state = jfix_new(NULL);
	return 0;
}

static int teardown(void **state)
{
	jfix_free(*state);
	return 0;
}

/* A new job whose owner is o (as job_take would set it), moved by the mover alone to st. */
static struct job *job_at(struct jfix *f, enum job_state st, struct owner *o)
{
	struct job *j = job_new(&f->env);

	assert_non_null(j);
	assert_int_equal(j->state, JOB_NEW);
	j->ev = &owner_events;
	j->arg = o;
	if (st == JOB_CANCELING)
		assert_true(job_set_state(j, JOB_RUNNING));
	if (st != JOB_NEW)
		assert_true(job_set_state(j, st));
	assert_int_equal(j->state, st);
	return j;
}

static void test_table_is_the_documented_one(void **state)
{
	for (int from = 0; from < JOB_NSTATES; from++)
		for (int to = 0; to < JOB_NSTATES; to++)
			assert_int_equal(job_state_allowed(from, to), documented_move(from, to));
	assert_string_equal(job_state_name(JOB_CANCELING), "CANCELING");
	assert_string_equal(job_state_name(JOB_NSTATES), "?");
}

/* Every allowed move moves, and RUNNING's count follows the state. */
static void test_every_allowed_move(void **state)
{
	struct jfix *f = *state;
	struct owner o = {0};

	for (size_t i = 0; i < sizeof(documented) / sizeof(documented[0]); i++) {
		enum job_state from = documented[i].from, to = documented[i].to;
		struct job *j = job_at(f, from, &o);
		unsigned running = f->env.running, finished = f->finished;

		assert_true(job_set_state(j, to));
		assert_int_equal(j->state, to);
		if (to == JOB_RUNNING) {
			assert_int_equal(f->env.running, running + 1);
			assert_int_equal(f->finished, finished);
		} else if ((from == JOB_RUNNING || from == JOB_CANCELING) && to == JOB_DONE) {
			assert_int_equal(f->env.running, running - 1);
			assert_int_equal(f->finished, finished + 1);
		} else {
			assert_int_equal(f->env.running, running);
			assert_int_equal(f->finished, finished);
		}
	}
	assert_int_equal(o.done, 0); /* the mover itself never tells an owner */
}

/* In a strict build the forbidden move aborts: shown in a child, which exits 0 only if it returned. */
static void forbidden_in_child(struct jfix *f, enum job_state from, enum job_state to)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct owner o = {0};
		struct job *j = job_at(f, from, &o);

		job_set_state(j, to);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
}

/* A release build refuses: nothing moves, nothing is counted, and an owner owed a result gets a failure. */
static void forbidden_refused(struct jfix *f, enum job_state from, enum job_state to)
{
	struct owner o = {0};
	struct job *j = job_at(f, from, &o);
	unsigned running = f->env.running, finished = f->finished;

	assert_false(job_set_state(j, to));
	assert_int_equal(j->state, from);
	assert_int_equal(f->env.running, running);
	assert_int_equal(f->finished, finished);
	assert_int_equal(o.done, 0); /* never from inside the call */
	jfix_pump(f, 3);
	if (job_state_owed(from)) {
		assert_int_equal(o.done, 1);
		assert_false(o.ok);
		assert_int_equal(o.code, AIRLOCK_E_EXECUTION_FAILED);
		assert_string_equal(o.sqlstate, "XX000");
	} else {
		assert_int_equal(o.done, 0);
		assert_int_equal(j->state, from);
	}
}

static void test_every_forbidden_move_is_refused(void **state)
{
	struct jfix *f = *state;
	unsigned n = 0;

	for (int from = 0; from < JOB_NSTATES; from++) {
		for (int to = 0; to < JOB_NSTATES; to++) {
			if (job_state_allowed(from, to))
				continue;
			n++;
			if (AIRLOCK_STRICT)
				forbidden_in_child(f, from, to);
			else
				forbidden_refused(f, from, to);
		}
	}
	assert_int_equal(n, JOB_NSTATES * JOB_NSTATES - sizeof(documented) / sizeof(documented[0]));
}

/* ---- the life of a job through its entry points ---- */

static unsigned lost_calls;

static void on_lost(void *arg, struct job *j)
{
	lost_calls++;
}

/* Refused before any container (host, BUSY): counted RUNNING until its failure is told on the next pass. */
static void test_refused_job(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct owner o = {0};
	struct job *j = job_new(&f->env);

	job_fail_later(j, AIRLOCK_E_BUSY, AIRLOCK_N_NONE, "BUSY: test");
	job_attach(j, &req, &owner_events, &o);
	assert_int_equal(j->state, JOB_RUNNING);
	assert_int_equal(f->env.running, 1);
	assert_int_equal(o.done, 0);
	jfix_pump(f, 3);
	assert_int_equal(o.done, 1);
	assert_int_equal(o.code, AIRLOCK_E_BUSY);
	assert_int_equal(f->env.running, 0);
	assert_int_equal(f->finished, 1);
	assert_int_equal(f->env.live, 0);
}

/* HELD has no container and no count; released, it is RUNNING with a container of its own. */
static void test_held_then_released(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct owner o = {0};
	struct job *j = job_new(&f->env);

	lost_calls = 0;
	job_hold(j, &req, &owner_events, &o, on_lost, NULL);
	assert_int_equal(j->state, JOB_HELD);
	assert_int_equal(f->env.running, 0);
	assert_null(j->launch);
	job_release_held(j);
	assert_int_equal(j->state, JOB_RUNNING);
	assert_int_equal(f->env.running, 1);
	assert_non_null(j->launch);
	/* No runtime here: the container never starts and the owner is told why. */
	jfix_pump(f, 5);
	assert_int_equal(o.done, 1);
	assert_int_equal(o.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(lost_calls, 0);
	assert_int_equal(f->env.running, 0);
	assert_int_equal(f->env.live, 0);
}

static void test_held_canceled(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct owner o = {0};
	struct job *j = job_new(&f->env);

	lost_calls = 0;
	job_hold(j, &req, &owner_events, &o, on_lost, NULL);
	job_cancel(j);
	job_cancel(j); /* once is enough */
	assert_int_equal(j->state, JOB_HELD);
	jfix_pump(f, 3);
	assert_int_equal(o.done, 1);
	assert_int_equal(o.code, AIRLOCK_E_CANCELED);
	assert_string_equal(o.sqlstate, "57014");
	assert_int_equal(lost_calls, 1); /* its queue forgets it */
	assert_int_equal(f->env.running, 0);
	assert_int_equal(f->finished, 0); /* it never ran */
	assert_int_equal(f->env.live, 0);
}

static void test_held_detached(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct owner o = {0};
	struct job *j = job_new(&f->env);

	lost_calls = 0;
	job_hold(j, &req, &owner_events, &o, on_lost, NULL);
	job_detach(j);
	assert_int_equal(j->state, JOB_DONE);
	assert_int_equal(lost_calls, 1);
	jfix_pump(f, 3);
	assert_int_equal(o.done, 0);
	assert_int_equal(f->env.live, 0);
}

/* A warm runner whose container cannot start is lost: its watcher is told, the job frees itself. */
static void test_idle_lost(void **state)
{
	struct jfix *f = *state;
	struct job *j = job_new(&f->env);
	const struct airlock_limits *l = &config_find_user(f->cfg, "agent")->limits;

	lost_calls = 0;
	assert_int_equal(job_prepare(j, config_find_user(f->cfg, "agent")->target, l->memory_mb, l->nano_cpus, l->pids),
			 0);
	assert_int_equal(j->state, JOB_IDLE);
	job_watch(j, on_lost, NULL);
	assert_int_equal(f->env.running, 0);
	jfix_pump(f, 5);
	assert_int_equal(lost_calls, 1);
	assert_int_equal(f->env.live, 0);
}

/* Taken (attached) before its container answered: the owner is told, not the watcher. */
static void test_idle_taken(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct owner o = {0};
	struct job *j = job_new(&f->env);

	lost_calls = 0;
	assert_int_equal(job_prepare(j, req.target, req.limits->memory_mb, req.limits->nano_cpus, req.limits->pids), 0);
	job_watch(j, on_lost, NULL);
	job_attach(j, &req, &owner_events, &o);
	assert_int_equal(j->state, JOB_RUNNING);
	assert_int_equal(f->env.running, 1);
	jfix_pump(f, 5);
	assert_int_equal(lost_calls, 0);
	assert_int_equal(o.done, 1);
	assert_int_equal(o.code, AIRLOCK_E_IMAGE_UNAVAILABLE);
	assert_int_equal(f->env.live, 0);
}

/* Canceled before its runner has the statement: one CANCELED failure, however often asked. */
static void test_running_canceled_before_runner(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct owner o = {0};
	struct job *j = job_new(&f->env);

	/* Attached with no container (so none can fail first): the runner cannot have the statement. */
	job_attach(j, &req, &owner_events, &o);
	job_cancel(j);
	job_cancel(j);
	assert_int_equal(j->state, JOB_RUNNING); /* no runner to tell: it fails instead */
	jfix_pump(f, 5);
	assert_int_equal(o.done, 1);
	assert_int_equal(o.code, AIRLOCK_E_CANCELED);
	assert_int_equal(f->env.running, 0);
	assert_int_equal(f->env.live, 0);
}

static void test_running_detached(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct owner o = {0};
	struct job *j = job_new(&f->env);

	assert_int_equal(job_prepare(j, req.target, req.limits->memory_mb, req.limits->nano_cpus, req.limits->pids), 0);
	assert_int_equal(job_db_open(&f->env, req.target->name), 1);
	job_attach(j, &req, &owner_events, &o);
	job_detach(j);
	assert_int_equal(j->state, JOB_DONE);
	assert_int_equal(f->env.running, 0);
	/* Room freed twice: its running slot, and its backend connection. */
	assert_int_equal(f->finished, 2);
	assert_int_equal(job_db_open(&f->env, req.target->name), 0);
	jfix_pump(f, 5);
	assert_int_equal(o.done, 0);
	assert_int_equal(f->env.live, 0);
}

static void test_discarded(void **state)
{
	struct jfix *f = *state;
	struct job_request req = jfix_request(f, NULL);
	struct job *fresh = job_new(&f->env), *idle = job_new(&f->env);

	lost_calls = 0;
	job_watch(fresh, on_lost, NULL);
	job_discard(fresh); /* nothing made: freed at once */
	assert_int_equal(f->env.live, 1);
	assert_int_equal(job_prepare(idle, req.target, req.limits->memory_mb, req.limits->nano_cpus, req.limits->pids),
			 0);
	job_watch(idle, on_lost, NULL);
	job_discard(idle);
	assert_int_equal(idle->state, JOB_DONE);
	jfix_pump(f, 5);
	assert_int_equal(lost_calls, 0); /* a discard tells no watcher */
	assert_int_equal(f->env.live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_the_documented_one),
		cmocka_unit_test_setup_teardown(test_every_allowed_move, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_forbidden_move_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_then_released, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_canceled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_detached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_canceled_before_runner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_running_detached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_discarded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
