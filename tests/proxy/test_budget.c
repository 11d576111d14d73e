/*
 * budget: the token buckets at fixed times. A full bucket lets its amount
 * through at once and then its rate; the retry time a refusal gives is
 * exact (a statement at that time starts, a millisecond sooner it does
 * not); rows overdraw and hold back until the debt has flowed back; a
 * reload keeps what was used and cuts a bucket to a smaller amount.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proxy/budget.h"
#include "tests/conf/conf_fixture.h"

#define MS 1000000ull
#define SEC 1000000000ull
#define T0 (1000 * SEC)

static struct budget bucket(enum airlock_budget_kind k, uint64_t amount)
{
	struct budget b = {.user = "agent", .at_ns = T0};

	b.amount[k] = amount;
	b.level[k] = (double)amount;
	return b;
}

/* 30 a minute: 30 at once, then one every 2 s; the retry time is the exact wait. */
static void test_statements_burst_then_rate(void **state)
{
	struct budget b = bucket(AIRLOCK_BUDGET_STATEMENTS, 30);
	uint64_t retry = 0, t;
	(void)state;

	for (int i = 0; i < 30; i++)
		assert_int_equal(budget_admit(&b, T0, &retry), AIRLOCK_BUDGET_NKINDS);
	assert_int_equal(budget_admit(&b, T0, &retry), AIRLOCK_BUDGET_STATEMENTS);
	assert_int_equal(retry, 2001);
	assert_int_equal(b.refused[AIRLOCK_BUDGET_STATEMENTS], 1);
	/* A millisecond before the time told (less its margin): still refused, and told the rest. */
	t = T0 + 1999 * MS;
	assert_int_equal(budget_admit(&b, t, &retry), AIRLOCK_BUDGET_STATEMENTS);
	assert_true(retry >= 1 && retry <= 2);
	/* At the time told: it starts, and the next one waits its 2 s again. */
	t = T0 + 2001 * MS;
	assert_int_equal(budget_admit(&b, t, &retry), AIRLOCK_BUDGET_NKINDS);
	assert_int_equal(retry, 0);
	assert_int_equal(budget_admit(&b, t, &retry), AIRLOCK_BUDGET_STATEMENTS);
	assert_true(retry >= 1999 && retry <= 2001);
	/* A long pause fills the bucket to its amount, never past it. */
	budget_refill(&b, t + 3600 * SEC);
	assert_true(b.level[AIRLOCK_BUDGET_STATEMENTS] == 30.0);
}

/* Rows are charged after the statement: one may overdraw, and the next waits until the debt is back. */
static void test_rows_overdraw_then_wait(void **state)
{
	struct budget b = bucket(AIRLOCK_BUDGET_ROWS, 60); /* one row a second */
	uint64_t retry = 0;
	(void)state;

	assert_int_equal(budget_admit(&b, T0, &retry), AIRLOCK_BUDGET_NKINDS);
	budget_charge(&b, AIRLOCK_BUDGET_ROWS, 50, T0);
	assert_int_equal(budget_admit(&b, T0, &retry), AIRLOCK_BUDGET_NKINDS);
	budget_charge(&b, AIRLOCK_BUDGET_ROWS, 25, T0);
	assert_true(b.level[AIRLOCK_BUDGET_ROWS] == -15.0);
	assert_int_equal(budget_admit(&b, T0, &retry), AIRLOCK_BUDGET_ROWS);
	assert_int_equal(retry, 15001);
	assert_int_equal(budget_admit(&b, T0 + 14 * SEC, &retry), AIRLOCK_BUDGET_ROWS);
	assert_int_equal(budget_admit(&b, T0 + 15001 * MS, &retry), AIRLOCK_BUDGET_NKINDS);
	/* A kind with no budget is never charged nor holds anything back. */
	budget_charge(&b, AIRLOCK_BUDGET_BYTES, 1e12, T0 + 16 * SEC);
	assert_true(b.level[AIRLOCK_BUDGET_BYTES] == 0.0);
	assert_int_equal(budget_admit(&b, T0 + 16 * SEC, &retry), AIRLOCK_BUDGET_NKINDS);
	/* Nothing negative, NaN or of an unknown kind is charged. */
	budget_charge(&b, AIRLOCK_BUDGET_ROWS, -5, T0 + 16 * SEC);
	budget_charge(&b, AIRLOCK_BUDGET_ROWS, NAN, T0 + 16 * SEC);
	budget_charge(&b, AIRLOCK_BUDGET_NKINDS, 5, T0 + 16 * SEC);
	assert_true(b.level[AIRLOCK_BUDGET_ROWS] >= 0.0 && b.level[AIRLOCK_BUDGET_ROWS] <= 60.0);
}

/* Runner time flows back over an hour; of several buckets held back, the longest wait is told. */
static void test_runner_seconds_and_the_longest_wait(void **state)
{
	struct budget b = bucket(AIRLOCK_BUDGET_RUNNER_SECONDS, 36); /* 0.01 s each second */
	uint64_t retry = 0;
	char msg[320], hint[96];
	(void)state;

	b.amount[AIRLOCK_BUDGET_STATEMENTS] = 60;
	b.level[AIRLOCK_BUDGET_STATEMENTS] = 0.5; /* half a second to a whole statement */
	budget_charge(&b, AIRLOCK_BUDGET_RUNNER_SECONDS, 36.05, T0);
	assert_int_equal(budget_admit(&b, T0, &retry), AIRLOCK_BUDGET_RUNNER_SECONDS);
	assert_int_equal(retry, 5001);
	budget_message(&b, AIRLOCK_BUDGET_RUNNER_SECONDS, retry, msg, sizeof(msg), hint, sizeof(hint));
	assert_string_equal(msg, "user \"agent\" is past its budget_runner_seconds_per_hour (36); its next statement "
				 "can start in 5.0 s");
	assert_string_equal(hint, "retry after 5001 ms");
	assert_int_equal(budget_admit(&b, T0 + 5001 * MS, &retry), AIRLOCK_BUDGET_NKINDS);
	assert_string_equal(budget_name(AIRLOCK_BUDGET_RUNNER_SECONDS), "runner_seconds");
	assert_string_equal(budget_key(AIRLOCK_BUDGET_NKINDS), "");
}

/* The clock going back (it cannot, but a caller's could) adds nothing. */
static void test_time_never_runs_back(void **state)
{
	struct budget b = bucket(AIRLOCK_BUDGET_STATEMENTS, 1);
	uint64_t retry;
	(void)state;

	assert_int_equal(budget_admit(&b, T0, &retry), AIRLOCK_BUDGET_NKINDS);
	assert_int_equal(budget_admit(&b, T0 - 500 * SEC, &retry), AIRLOCK_BUDGET_STATEMENTS);
	assert_int_equal(b.at_ns, T0);
}

#define SERVER_AND_HOSTS               \
	"[server]\n"                   \
	"pg_listen = 127.0.0.1:6432\n" \
	"runner_image = " DIGEST "\n"  \
	"[hosts]\n"                    \
	"allow = 127.0.0.1\n"          \
	"[target shop]\n"              \
	"host = 127.0.0.1\n"           \
	"port = 5432\n"                \
	"database = shop\n"            \
	"user = airlock_ro\n"          \
	"password_file = shop.password\n"
#define USER(name) "[user " name "]\nscram = " VERIFIER "\ntarget = shop\n"

/* A config of the users given (each USER(...) and its keys); NULL when refused. */
static struct airlock_config *load(const char *users)
{
	struct config_errors errs = {0};
	struct airlock_config *cfg;
	char text[4096];

	snprintf(text, sizeof(text), "%s%s", SERVER_AND_HOSTS, users);
	cfg = config_load_string(text, data_dir, &errs);
	for (size_t i = 0; getenv("BUDGET_TEST_VERBOSE") && i < errs.n; i++)
		fprintf(stderr, "config: %s\n", errs.msg[i]);
	return cfg;
}

/* Entries per user; a reload keeps what was used, cuts to a smaller amount, and fills a new budget. */
static void test_registry_across_reloads(void **state)
{
	struct budgets reg = {0};
	struct airlock_config *cfg, *next;
	struct budget *b, *o;
	uint64_t retry;
	(void)state;

	cfg = load(USER("agent") "budget_statements_per_minute = 10\n"
				 "budget_rows_per_minute = 100\n" USER("other"));
	assert_non_null(cfg);
	assert_true(budgets_sync(&reg, cfg, T0));
	b = budgets_find(&reg, "agent");
	o = budgets_find(&reg, "other");
	assert_non_null(b);
	assert_non_null(o);
	assert_null(budgets_find(&reg, "nobody"));
	assert_true(budget_any(b));
	assert_false(budget_any(o));
	for (int i = 0; i < 4; i++)
		assert_int_equal(budget_admit(b, T0, &retry), AIRLOCK_BUDGET_NKINDS);
	budget_charge(b, AIRLOCK_BUDGET_ROWS, 90, T0);

	/* statements 10 -> 5: 6 left is cut to 5; rows 100 -> 200: 10 left stays 10; other gets 3 runner seconds. */
	next = load(
		USER("agent") "budget_statements_per_minute = 5\n"
			      "budget_rows_per_minute = 200\n" USER("other") "budget_runner_seconds_per_hour = 3\n");
	assert_non_null(next);
	assert_true(budgets_sync(&reg, next, T0));
	assert_ptr_equal(budgets_find(&reg, "agent"), b); /* the same entry: pointers held stay good */
	assert_true(b->level[AIRLOCK_BUDGET_STATEMENTS] == 5.0);
	assert_true(b->level[AIRLOCK_BUDGET_ROWS] == 10.0);
	assert_true(o->level[AIRLOCK_BUDGET_RUNNER_SECONDS] == 3.0);

	/* A user the next config lacks keeps its entry and amounts, for the sessions it still has. */
	config_free(cfg);
	cfg = load(USER("other"));
	assert_non_null(cfg);
	assert_true(budgets_sync(&reg, cfg, T0));
	assert_ptr_equal(budgets_find(&reg, "agent"), b);
	assert_int_equal(b->amount[AIRLOCK_BUDGET_STATEMENTS], 5);
	assert_int_equal(o->amount[AIRLOCK_BUDGET_RUNNER_SECONDS], 0);

	config_free(cfg);
	config_free(next);
	budgets_free(&reg);
}

/* The keys' bounds: 0 is no budget; a negative or a word is refused by the loader. */
static void test_keys(void **state)
{
	struct airlock_config *cfg;
	(void)state;

	cfg = load(USER("agent") "budget_bytes_per_minute = 1000000\n");
	assert_non_null(cfg);
	assert_int_equal(cfg->users[0].budget[AIRLOCK_BUDGET_BYTES], 1000000);
	assert_int_equal(cfg->users[0].budget[AIRLOCK_BUDGET_STATEMENTS], 0);
	config_free(cfg);
	assert_null(load(USER("agent") "budget_rows_per_minute = -1\n"));
	assert_null(load(USER("agent") "budget_statements_per_minute = lots\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_statements_burst_then_rate),
		cmocka_unit_test(test_rows_overdraw_then_wait),
		cmocka_unit_test(test_runner_seconds_and_the_longest_wait),
		cmocka_unit_test(test_time_never_runs_back),
		cmocka_unit_test(test_registry_across_reloads),
		cmocka_unit_test(test_keys),
	};
	return cmocka_run_group_tests(tests, setup_data, NULL);
}
