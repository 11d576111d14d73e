/*
 * bench_validate: time pgv_validate on a typical join and on SELECT 1,
 * pgv_validate + pgv_scope (what each Postgres read costs: the join, which
 * is not rewritten, and psql's \d catalog query, which is), and
 * vmy_validate (MySQL) on the same shapes plus a driver's connect SET.
 * Prints, one line per case, the median and p99 microseconds per call and
 * the calls per second over the whole run.
 * Usage: bench_validate [iterations]   (default 20000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validator/mysql/validate_my.h"
#include "validator/pg/validate_pg.h"
#include "validator/pg/validate_pg_scope.h"

static const char *const tables[] = {
	"public.orders", "public.customers", "public.products", "pg_catalog.*", "information_schema.*",
};
static const char *const path[] = {"public"};

static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = sizeof(tables) / sizeof(tables[0]),
	.search_path = path,
	.nsearch_path = 1,
};

struct bench_case {
	const char *name;
	const char *sql;
	enum pgv_kind want;
};

static const struct bench_case bench_cases[] = {
	{"typical_join",
	 "SELECT o.id, o.amount, c.name FROM orders o JOIN customers c "
	 "ON c.id = o.customer_id WHERE o.amount > 100 ORDER BY o.id LIMIT 50",
	 PGV_READ},
	{"select_1", "SELECT 1", PGV_READ},
	{"refused_table", "SELECT * FROM staff_salaries", PGV_REFUSED},
	{"set_search_path", "SET search_path TO public, \"App\"", PGV_SET},
};

static const char *const my_tables[] = {
	"shop.orders",
	"shop.customers",
	"shop.products",
	"information_schema.*",
};

static const struct vmy_policy my_policy = {
	.user = "agent",
	.database = "shop",
	.tables = my_tables,
	.ntables = sizeof(my_tables) / sizeof(my_tables[0]),
};

struct my_bench_case {
	const char *name;
	const char *sql;
	enum vmy_kind want;
};

static const struct my_bench_case my_bench_cases[] = {
	{"my_typical_join",
	 "SELECT o.id, o.amount, c.name FROM orders o JOIN customers c "
	 "ON c.id = o.customer_id WHERE o.amount > 100 ORDER BY o.id LIMIT 50",
	 VMY_READ},
	{"my_select_1", "SELECT 1", VMY_READ},
	{"my_refused_table", "SELECT * FROM staff_salaries", VMY_REFUSED},
	{"my_connect_set",
	 "SET autocommit=1, sql_mode=CONCAT(@@sql_mode,',STRICT_TRANS_TABLES'), "
	 "NAMES utf8mb4",
	 VMY_SET},
	{"my_version_comment", "select @@version_comment limit 1", VMY_LOCAL_SELECT},
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One Postgres validator call; with check, false (and why on stderr) when the kind is not the case's. */
static bool pg_call(const void *arg, bool check)
{
	const struct bench_case *c = arg;
	struct pgv_result r;

	pgv_validate(&policy, c->sql, &r);
	if (check && r.kind != c->want) {
		fprintf(stderr, "%s: unexpected kind %d (%s)\n", c->name, r.kind, r.message);
		return false;
	}
	return true;
}

static const struct bench_case scope_cases[] = {
	{"scope_join",
	 "SELECT o.id, o.amount, c.name FROM orders o JOIN customers c "
	 "ON c.id = o.customer_id WHERE o.amount > 100 ORDER BY o.id LIMIT 50",
	 PGV_READ},
	{"scope_functions",
	 "SELECT date_trunc('day', created_at) AS d, count(*), round(avg(amount), 2) FROM orders "
	 "WHERE created_at > now() - interval '30 days' GROUP BY 1 ORDER BY 1",
	 PGV_READ},
	{"scope_psql_d",
	 "SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n "
	 "ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(orders)$' COLLATE pg_catalog.default "
	 "AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3",
	 PGV_READ},
};

/* Validation and scoping of one read, as the session does it. */
static bool scope_call(const void *arg, bool check)
{
	const struct bench_case *c = arg;
	struct pgv_result r;
	char *out = NULL;

	pgv_validate(&policy, c->sql, &r);
	if (r.kind == PGV_READ)
		pgv_scope(&policy, c->sql, &out, &r);
	free(out);
	if (check && r.kind != c->want) {
		fprintf(stderr, "%s: unexpected kind %d (%s)\n", c->name, r.kind, r.message);
		return false;
	}
	return true;
}

/* The same for the MySQL validator (its result is large: kept off the stack). */
static bool my_call(const void *arg, bool check)
{
	const struct my_bench_case *c = arg;
	static struct vmy_result r;

	vmy_validate(&my_policy, c->sql, strlen(c->sql), &r);
	if (check && r.kind != c->want) {
		fprintf(stderr, "%s: unexpected kind %d (%s)\n", c->name, r.kind, r.message);
		return false;
	}
	return true;
}

/* Warms up, checks the outcome once, then times iters calls one by one. */
static int run(const char *name, bool (*call)(const void *arg, bool check), const void *arg, long iters,
	       double *samples)
{
	double start, total;
	long i;

	for (i = 0; i < 200; i++)
		call(arg, false);
	if (!call(arg, true))
		return -1;
	total = now_us();
	for (i = 0; i < iters; i++) {
		start = now_us();
		call(arg, false);
		samples[i] = now_us() - start;
	}
	total = now_us() - total;
	qsort(samples, (size_t)iters, sizeof(*samples), cmp_double);
	printf("%-18s calls=%ld median_us=%.2f p99_us=%.2f calls_per_sec=%.0f\n", name, iters, samples[iters / 2],
	       samples[(iters * 99) / 100], (double)iters / (total / 1e6));
	return 0;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	double *samples;
	size_t i;
	int rc = 0;

	if (iters <= 0 || iters > 100000000) {
		fprintf(stderr, "usage: %s [iterations]\n", argv[0]);
		return 2;
	}
	samples = malloc((size_t)iters * sizeof(*samples));
	if (!samples)
		return 1;
	for (i = 0; i < sizeof(bench_cases) / sizeof(bench_cases[0]); i++) {
		if (run(bench_cases[i].name, pg_call, &bench_cases[i], iters, samples) != 0)
			rc = 1;
	}
	for (i = 0; i < sizeof(scope_cases) / sizeof(scope_cases[0]); i++) {
		if (run(scope_cases[i].name, scope_call, &scope_cases[i], iters, samples) != 0)
			rc = 1;
	}
	for (i = 0; i < sizeof(my_bench_cases) / sizeof(my_bench_cases[0]); i++) {
		if (run(my_bench_cases[i].name, my_call, &my_bench_cases[i], iters, samples) != 0)
			rc = 1;
	}
	free(samples);
	return rc;
}
