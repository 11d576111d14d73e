/*
 * test_validator_pool: airlockd's side of the validator workers, against
 * the real airlock-validator program (AIRLOCK_VALIDATOR). A statement is
 * validated and scoped in a worker, with the same answer the library
 * gives in process; a worker stopped past the deadline, one killed while
 * it holds a statement and one that died while idle each cost at most
 * that one statement, and the next is answered by a replacement.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "validator/pg/validate_pg_scope.h"
#include "proxy/validator_client.h"
#include "proxy/validator_pool.h"

static const char *const tables[] = {"public.orders", "pg_catalog.*", "information_schema.*"};
static const char *const path[] = {"public"};
static const struct airlock_rule rules[] = {{.table = "public.orders", .filter = "customer_id <= 100"}};
static const struct pgv_policy pg = {
	.tables = tables,
	.ntables = 3,
	.search_path = path,
	.nsearch_path = 1,
	.user = "agent",
	.rules = rules,
	.nrules = 1,
};

static struct vpool *pool(unsigned workers, uint32_t timeout_ms)
{
	const char *bin = getenv("AIRLOCK_VALIDATOR");
	struct vpool_options o = {
		.path = bin,
		.workers = workers,
		.uid = 999999998,
		.gid = 999999998,
		.timeout_ms = timeout_ms,
		.memory_mb = 1024,
		.cpu_seconds = 60,
	};
	char err[256];
	struct vpool *p;

	if (!bin)
		fail_msg("AIRLOCK_VALIDATOR is not set (ctest sets it)");
	p = vpool_new(&o, err, sizeof(err));
	if (!p)
		fail_msg("%s", err);
	return p;
}

static pid_t only_pid(struct vpool *p)
{
	pid_t pid;

	assert_int_equal(vpool_pids(p, &pid, 1), 1);
	return pid;
}

static void assert_answers(struct vpool *p)
{
	struct pgv_result r;
	char *text = NULL;

	assert_int_equal(vcl_pg_validate(p, &pg, "SELECT count(*) FROM orders", false, &r, NULL), PGV_READ);
	assert_int_equal(vcl_pg_scope(p, &pg, "SELECT count(*) FROM orders", &text, NULL, &r, NULL), PGV_READ);
	assert_non_null(text);
	assert_non_null(strstr(text, "customer_id <= 100"));
	free(text);
}

static const char *const answered[] = {
	"SELECT * FROM orders WHERE id = 1",
	"SELECT * FROM staff_salaries",
	"SELECT 1; SELECT 2",
	"SET search_path = public",
	"SELECT count(*) FROM orders TABLESAMPLE SYSTEM (10)",
	"SELECT relname FROM pg_class",
	"DELETE FROM orders",
	"SELECT 1 +",
};

static uint64_t calls(const struct vpool *p)
{
	uint64_t n, failures, started;

	vpool_counts(p, &n, &failures, &started);
	return n;
}

/*
 * sql validated and, if a read, scoped through the worker gets the library's
 * answers in process. With held, the scope comes with the validation: one
 * call for both, and nothing held after.
 */
static void assert_same_answers(struct vpool *p, const char *sql, struct vcl_scoped *held)
{
	struct pgv_result local, remote;
	char *lt = NULL, *rt = NULL;
	uint64_t before = calls(p);

	pgv_validate(&pg, sql, &local);
	vcl_pg_validate(p, &pg, sql, false, &remote, held);
	assert_int_equal(remote.kind, local.kind);
	assert_string_equal(remote.sqlstate, local.sqlstate);
	assert_string_equal(remote.message, local.message);
	assert_int_equal(remote.fingerprint, local.fingerprint);
	if (held)
		assert_true(local.kind == PGV_READ ? held->key != NULL : held->key == NULL); /* only a read is scoped */
	if (local.kind != PGV_READ)
		return;
	pgv_scope(&pg, sql, &lt, &local);
	vcl_pg_scope(p, &pg, sql, &rt, NULL, &remote, held);
	assert_int_equal(calls(p), before + (held ? 1 : 2));
	assert_true(!held || held->key == NULL);
	assert_int_equal(remote.kind, local.kind);
	assert_string_equal(remote.message, local.message);
	if (lt || rt)
		assert_string_equal(rt, lt);
	free(lt);
	free(rt);
}

static void test_same_answers_as_in_process(void **state)
{
	struct vpool *p = pool(2, 5000);
	size_t off[4], len[4];

	(void)state;
	for (size_t i = 0; i < sizeof(answered) / sizeof(answered[0]); i++)
		assert_same_answers(p, answered[i], NULL);
	assert_int_equal(vcl_pg_split(p, "SELECT 1; SELECT 2", off, len, 4), 2);
	assert_int_equal(off[1], 9);
	vpool_free(p);
}

/* A read's scope comes with its validation: the same answers in one round trip. */
static void test_read_scoped_in_one_round_trip(void **state)
{
	struct vpool *p = pool(2, 5000);
	struct vcl_scoped held = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(answered) / sizeof(answered[0]); i++)
		assert_same_answers(p, answered[i], &held);
	vpool_free(p);
}

/*
 * A held scope answers only the request it was made for: another text, or
 * the same text under another policy (another user's row filter, another
 * search_path), asks the worker, and gets that policy's answer.
 */
static void test_held_scope_never_answers_another_request(void **state)
{
	static const struct airlock_rule tight[] = {{.table = "public.orders", .filter = "customer_id <= 5"}};
	static const char *const other_path[] = {"app"};
	struct pgv_policy other = pg, elsewhere = pg;
	struct vpool *p = pool(1, 5000);
	struct vcl_scoped held = {0};
	struct pgv_result r;
	char *text = NULL;
	uint64_t before;

	(void)state;
	other.rules = tight;
	other.user = "other";
	elsewhere.search_path = other_path;

	/* Same text, another user's row filter: that filter, never the held one. */
	assert_int_equal(vcl_pg_validate(p, &pg, "SELECT * FROM public.orders", false, &r, &held), PGV_READ);
	assert_non_null(held.key);
	before = calls(p);
	assert_int_equal(vcl_pg_scope(p, &other, "SELECT * FROM public.orders", &text, NULL, &r, &held), PGV_READ);
	assert_int_equal(calls(p), before + 1);
	assert_non_null(text);
	assert_non_null(strstr(text, "customer_id <= 5"));
	assert_null(strstr(text, "customer_id <= 100"));
	assert_null(held.key);
	free(text);
	text = NULL;

	/* Another search_path: the worker answers, and the rewrite is that path's. */
	assert_int_equal(vcl_pg_validate(p, &pg, "SELECT * FROM orders", false, &r, &held), PGV_READ);
	before = calls(p);
	vcl_pg_scope(p, &elsewhere, "SELECT * FROM orders", &text, NULL, &r, &held);
	assert_int_equal(calls(p), before + 1);
	assert_true(text == NULL || strstr(text, "customer_id <= 100") == NULL);
	free(text);
	text = NULL;

	/* Another text under the same policy: the worker answers for that text. */
	assert_int_equal(vcl_pg_validate(p, &pg, "SELECT 1", false, &r, &held), PGV_READ);
	before = calls(p);
	assert_int_equal(vcl_pg_scope(p, &pg, "SELECT * FROM public.orders", &text, NULL, &r, &held), PGV_READ);
	assert_int_equal(calls(p), before + 1);
	assert_non_null(text);
	assert_non_null(strstr(text, "customer_id <= 100"));
	free(text);
	vcl_scoped_clear(&held);
	vpool_free(p);
}

static void assert_failed(const struct pgv_result *r)
{
	assert_int_equal(r->kind, PGV_REFUSED);
	assert_int_equal(r->code, AIRLOCK_E_VALIDATOR_FAILED);
	assert_string_equal(r->sqlstate, "XX000");
	assert_true(r->hint[0] != '\0');
}

static int64_t ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void test_stopped_worker_costs_one_statement(void **state)
{
	struct vpool *p = pool(1, 300);
	struct pgv_result r;
	pid_t pid = only_pid(p);
	int64_t t0;

	(void)state;
	assert_answers(p);
	kill(pid, SIGSTOP);
	t0 = ms();
	vcl_pg_validate(p, &pg, "SELECT 1", false, &r, NULL);
	assert_true(ms() - t0 >= 290);
	assert_failed(&r);
	assert_int_equal(vpool_last_failure(p), VPOOL_TIMEOUT);
	assert_non_null(strstr(r.message, "did not answer within 300 ms"));
	assert_true(only_pid(p) != pid);
	assert_answers(p);
	vpool_free(p);
}

static void test_worker_killed_mid_statement(void **state)
{
	struct vpool *p = pool(1, 20000);
	struct pgv_result r;
	pid_t pid = only_pid(p), killer;
	int64_t t0;

	(void)state;
	/* Stopped, so it holds the statement; killed 200 ms into the call. */
	kill(pid, SIGSTOP);
	killer = fork();
	assert_true(killer >= 0);
	if (killer == 0) {
		usleep(200000);
		kill(pid, SIGKILL);
		_exit(0);
	}
	t0 = ms();
	vcl_pg_validate(p, &pg, "SELECT 1", false, &r, NULL);
	assert_true(ms() - t0 < 10000);
	waitpid(killer, NULL, 0);
	assert_failed(&r);
	assert_int_equal(vpool_last_failure(p), VPOOL_CRASHED);
	assert_answers(p);
	vpool_free(p);
}

static void test_worker_dead_while_idle_is_replaced_first(void **state)
{
	struct vpool *p = pool(1, 5000);
	uint64_t calls, failures, started;
	pid_t pid = only_pid(p);

	(void)state;
	kill(pid, SIGKILL);
	usleep(50000);
	assert_answers(p);
	vpool_counts(p, &calls, &failures, &started);
	assert_int_equal(failures, 0);
	assert_int_equal(started, 2);
	vpool_free(p);
}

/*
 * Calls stay with the worker that answered the last one (it looks for a
 * follow-up without sleeping); one that fails hands the next call to a
 * worker started before it. A call sent to a stopped worker below would
 * fail at the timeout, and assert_answers with it.
 */
static void test_calls_stay_with_one_worker_until_it_fails(void **state)
{
	struct vpool *p = pool(2, 300);
	struct pgv_result r;
	pid_t pids[2], now[2];

	(void)state;
	assert_int_equal(vpool_pids(p, pids, 2), 2);
	assert_answers(p);
	kill(pids[1], SIGSTOP);
	for (int i = 0; i < 10; i++)
		assert_answers(p);
	/* The serving worker stops: one statement fails, its replacement waits, the other worker serves. */
	kill(pids[1], SIGCONT);
	kill(pids[0], SIGSTOP);
	vcl_pg_validate(p, &pg, "SELECT 1", false, &r, NULL);
	assert_failed(&r);
	assert_int_equal(vpool_last_failure(p), VPOOL_TIMEOUT);
	assert_int_equal(vpool_pids(p, now, 2), 2);
	assert_true(now[0] != pids[0]);
	assert_int_equal(now[1], pids[1]);
	kill(now[0], SIGSTOP);
	for (int i = 0; i < 10; i++)
		assert_answers(p);
	kill(now[0], SIGCONT);
	vpool_free(p);
}

struct observed {
	unsigned calls;
	double seconds;
};

static void observe(void *arg, double seconds)
{
	struct observed *o = arg;

	o->calls++;
	o->seconds += seconds;
}

/* The observer hears of every call, a failed one too, with its time; unset, of none. */
static void test_observer_times_each_call(void **state)
{
	struct vpool *p = pool(1, 300);
	struct observed o = {0};
	struct pgv_result r;
	double before;

	(void)state;
	vpool_observe(p, observe, &o);
	assert_answers(p);
	assert_int_equal(o.calls, 2);
	assert_true(o.seconds > 0 && o.seconds < 10);
	before = o.seconds;
	kill(only_pid(p), SIGSTOP);
	vcl_pg_validate(p, &pg, "SELECT 1", false, &r, NULL);
	assert_failed(&r);
	assert_int_equal(o.calls, 3);
	assert_true(o.seconds - before >= 0.29);
	vpool_observe(p, NULL, NULL);
	assert_answers(p);
	assert_int_equal(o.calls, 3);
	vpool_free(p);
}

static void test_mysql_through_the_worker(void **state)
{
	static const char *const my_tables[] = {"shop.orders"};
	const struct vmy_policy my = {.user = "agent", .database = "shop", .tables = my_tables, .ntables = 1};
	struct vpool *p = pool(1, 5000);
	struct vmy_result v, again;
	uint64_t fp;
	bool failed;
	char *text;

	(void)state;
	vcl_my_validate(p, &my, "SELECT * FROM orders", 20, &v, &fp);
	assert_int_equal(v.kind, VMY_READ);
	assert_string_equal(v.stmt_kind, "SELECT");
	assert_true(fp != 0);
	text = vcl_my_scope(p, &my, "SELECT * FROM orders", 20, &v, &failed, &again);
	assert_null(text);
	assert_false(failed);
	vcl_my_validate(p, &my, "SELECT * FROM information_schema.tables", 39, &v, &fp);
	assert_int_equal(v.kind, VMY_REFUSED);
	vcl_my_validate(p, &my, "DELETE FROM orders", 18, &v, &fp);
	assert_int_equal(v.kind, VMY_REFUSED);
	assert_int_equal(v.my_errno, 1792);
	vpool_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_answers_as_in_process),
		cmocka_unit_test(test_read_scoped_in_one_round_trip),
		cmocka_unit_test(test_held_scope_never_answers_another_request),
		cmocka_unit_test(test_stopped_worker_costs_one_statement),
		cmocka_unit_test(test_worker_killed_mid_statement),
		cmocka_unit_test(test_worker_dead_while_idle_is_replaced_first),
		cmocka_unit_test(test_calls_stay_with_one_worker_until_it_fails),
		cmocka_unit_test(test_mysql_through_the_worker),
		cmocka_unit_test(test_observer_times_each_call),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
