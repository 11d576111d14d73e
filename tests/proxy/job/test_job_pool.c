/*
 * test_job_pool: the warm pools' bookkeeping (proxy/job/job_pool.c) on a
 * real loop (job_fixture.h). Where a test needs runners that stay idle, it
 * places new jobs (job_new: nothing started, so nothing fails under it)
 * in a pool's slots by hand, as the refill does; the runners the pool
 * prepares itself go to the real launcher, which cannot start a
 * container here, so they are lost. Covered: a pool per target and
 * shape; a take prefers the newest connected runner, else the newest, and
 * keeps the others in order; a pool grows by one when a statement finds it
 * empty or empties it, up to pool_max, but not while starts fail (a lost
 * runner backs the refill off); a quiet pool shrinks to pool_min, oldest
 * first; a runner past pool_max_age_ms is retired; reset and stop
 * discard what is idle. The refill stops where the spare hook says (the
 * target's max_db_connections), and a shed discards one idle runner of a
 * target, from the pool holding most, which then wants one fewer.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "proxy/job/job_ctl.h"
#include "proxy/job/job_impl.h"
#include "proxy/job/job_pool.h"
#include "proxy/timeval.h"
#include "tests/proxy/job/job_fixture.h"

struct pfix {
	struct jfix *f;
	struct job_pools ps;
	const struct airlock_user *u;
};

static int setup(void **state)
{
	struct pfix *x = calloc(1, sizeof(*x));

	x->f = jfix_new("pool_min = 1\npool_max = 3\npool_idle_ms = 100\npool_max_age_ms = 1000\n");
	x->u = config_find_user(x->f->cfg, "agent");
	job_pool_init(&x->ps, &x->f->env);
	job_pool_start(&x->ps); /* its refill is due now, on the next loop pass */
	assert_int_equal(x->ps.npools, 1);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct pfix *x = *state;

	job_pool_stop(&x->ps);
	jfix_pump(x->f, 5);
	job_pool_fini(&x->ps);
	assert_int_equal(x->f->env.live, 0);
	jfix_free(x->f);
	free(x);
	return 0;
}

/* Places n new jobs in the pool's slots, oldest first, made age_ms ago. */
static struct job_pool *place(struct pfix *x, struct job **out, unsigned n, int64_t age_ms)
{
	struct job_pool *p = &x->ps.pools[0];

	for (unsigned i = 0; i < n; i++) {
		out[i] = job_new(&x->f->env);
		assert_non_null(out[i]);
		p->made_ms[p->nidle] = monotonic_ms() - age_ms;
		p->idle[p->nidle++] = out[i];
	}
	return p;
}

static struct job *take(struct pfix *x)
{
	return job_pool_take(&x->ps, x->u->target, &x->u->limits);
}

static void test_one_pool_per_target_and_shape(void **state)
{
	struct pfix *x = *state;
	struct job_pool *p = &x->ps.pools[0];
	struct airlock_limits other = x->u->limits;

	assert_ptr_equal(p->target, x->u->target);
	assert_int_equal(p->memory_mb, x->u->limits.memory_mb);
	assert_int_equal(p->want, 1);
	assert_int_equal(p->cap, 3);
	other.memory_mb++;
	assert_null(job_pool_take(&x->ps, x->u->target, &other)); /* no pool of that shape */
	assert_int_equal(p->want, 1);
}

static void test_take_prefers_connected_then_newest(void **state)
{
	struct pfix *x = *state;
	struct job *j[3];
	struct job_pool *p = place(x, j, 3, 0); /* its cap, pool_max */
	static const struct job_ctl_events none = {0};
	int sv[2];

	/* The oldest one's runner is connected: it is taken first. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	j[0]->ctl = job_ctl_new(x->f->base, sv[0], &none, NULL);
	assert_non_null(j[0]->ctl);
	p->want = 2;
	assert_ptr_equal(take(x), j[0]);
	assert_int_equal(p->nidle, 2);
	assert_ptr_equal(p->idle[0], j[1]);
	assert_ptr_equal(p->idle[1], j[2]);
	/* Then the newest, which leaves the others in order. */
	assert_ptr_equal(take(x), j[2]);
	assert_ptr_equal(p->idle[0], j[1]);
	assert_int_equal(p->want, 2); /* not emptied: no growth */
	assert_ptr_equal(take(x), j[1]);
	assert_int_equal(p->want, 3); /* emptied: one more */
	assert_null(take(x));
	assert_int_equal(p->want, 3); /* at pool_max */
	for (int i = 0; i < 3; i++)
		job_discard(j[i]); /* taken: the taker's */
	close(sv[1]);
}

/* What the pool prepares cannot start here: lost, the refill backs off, and no growth while it does. */
static void test_lost_runner_backs_off_and_stops_growth(void **state)
{
	struct pfix *x = *state;
	struct job_pool *p = &x->ps.pools[0];

	jfix_pump(x->f, 5);
	assert_int_equal(p->nidle, 0);
	assert_int_equal(x->ps.backoff_ms, 500);
	assert_int_equal(x->f->started, 0);
	assert_int_equal(x->f->env.live, 0);
	assert_null(take(x));
	assert_int_equal(p->want, 1);
	/* The refill after the back-off loses one more: it waits twice as long (a tick would be due in 500 ms). */
	jfix_run_ms(x->f, 700);
	assert_int_equal(x->ps.backoff_ms, 1000);
	assert_true(x->ps.due_ms - monotonic_ms() > 600);
	/* A container started somewhere: the engine works, growth is back, and the refill is near. */
	job_pool_engine_ok(&x->ps);
	assert_int_equal(x->ps.backoff_ms, 0);
	assert_true(x->ps.due_ms - monotonic_ms() <= 10);
	assert_null(take(x));
	assert_int_equal(p->want, 2);
}

/* Quiet for two pool_idle_ms: two fewer wanted (down to pool_min), the oldest extras go. */
static void test_quiet_pool_shrinks_oldest_first(void **state)
{
	struct pfix *x = *state;
	struct job *j[3];
	struct job_pool *p = place(x, j, 3, 0);

	p->want = 3;
	p->demand_ms = monotonic_ms() - 250;
	jfix_pump(x->f, 1); /* the refill's pass */
	assert_int_equal(p->want, 1);
	assert_int_equal(p->nidle, 1);
	assert_ptr_equal(p->idle[0], j[2]);
	assert_int_equal(x->f->env.live, 1);   /* the two discarded ones are gone */
	assert_int_equal(x->ps.backoff_ms, 0); /* nothing was made, so nothing failed */
}

static void test_too_old_is_retired(void **state)
{
	struct pfix *x = *state;
	struct job *old[1], *young[1];
	struct job_pool *p = place(x, old, 1, 1500);

	place(x, young, 1, 0);
	p->want = 2;
	p->demand_ms = monotonic_ms();
	jfix_pump(x->f, 3);
	/* The old one is gone; its replacement was tried (and lost here); the young one stays. */
	assert_int_equal(p->nidle, 1);
	assert_ptr_equal(p->idle[0], young[0]);
	assert_int_equal(x->ps.backoff_ms, 500);
	assert_int_equal(x->f->env.live, 1);
}

static void test_reset_and_stop_discard_the_idle(void **state)
{
	struct pfix *x = *state;
	struct job *j[2];

	place(x, j, 2, 0);
	job_pool_reset(&x->ps);
	assert_int_equal(x->f->env.live, 0);
	assert_int_equal(x->ps.npools, 1); /* rebuilt for the config */
	assert_int_equal(x->ps.pools[0].nidle, 0);
	place(x, j, 2, 0);
	job_pool_stop(&x->ps);
	assert_int_equal(x->f->env.live, 0);
	assert_int_equal(x->ps.npools, 0);
	assert_null(take(x));
}

static unsigned most_open; /* the most connections one_connection saw held */

/* The spare hook as the manager's, for a bound of 1 backend connection on the target. */
static unsigned one_connection(void *arg, const struct airlock_target *t)
{
	unsigned open = job_db_open(arg, t->name);

	most_open = open > most_open ? open : most_open;
	return open >= 1 ? 0 : 1;
}

static void test_refill_stops_at_the_spare(void **state)
{
	struct pfix *x = *state;
	struct job_pool *p = &x->ps.pools[0];

	job_pool_set_spare(&x->ps, one_connection, &x->f->env);
	p->want = 3;
	p->demand_ms = monotonic_ms();
	most_open = 0;
	jfix_pump(x->f, 1); /* the refill's pass: one made (two may start at once), then the hook says no more */
	assert_int_equal(most_open, 1);
	/* Lost here (no container starts): their connections are given back. */
	jfix_pump(x->f, 5);
	assert_int_equal(job_db_open(&x->f->env, "shop"), 0);
	assert_int_equal(most_open, 1);
}

static void test_shed_takes_from_the_fullest(void **state)
{
	struct pfix *x = *state;
	struct job *j[3];
	struct job_pool *p = place(x, j, 3, 0);

	p->want = 3;
	assert_int_equal(job_pool_idle_of(&x->ps, "shop"), 3);
	assert_int_equal(job_pool_idle_of(&x->ps, "elsewhere"), 0);
	assert_false(job_pool_shed(&x->ps, "elsewhere"));
	assert_true(job_pool_shed(&x->ps, "shop"));
	assert_int_equal(p->nidle, 2);
	assert_int_equal(p->want, 2);
	assert_ptr_equal(p->idle[0], j[1]); /* the oldest went */
	assert_int_equal(job_pool_idle_of(&x->ps, "shop"), 2);
	assert_int_equal(x->f->env.live, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_pool_per_target_and_shape, setup, teardown),
		cmocka_unit_test_setup_teardown(test_take_prefers_connected_then_newest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_runner_backs_off_and_stops_growth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quiet_pool_shrinks_oldest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_old_is_retired, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_and_stop_discard_the_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refill_stops_at_the_spare, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shed_takes_from_the_fullest, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
