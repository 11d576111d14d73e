/*
 * bench_vworker: what the validator worker's channel costs per statement.
 * Each case runs the library call in this process and then the same call
 * through one airlock-validator worker (proxy/validator_client.h), and
 * prints the median and p99 microseconds of both and their difference:
 * the price of the sandbox, paid once per statement.
 * Usage: bench_vworker [iterations] [path to airlock-validator]
 *        (default 20000, and the airlock-validator beside this program)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_stats.h"
#include "validator/pg/validate_pg_scope.h"
#include "proxy/validator_client.h"

static const char *const tables[] = {
	"public.orders", "public.customers", "public.products", "pg_catalog.*", "information_schema.*",
};
static const char *const path[] = {"public"};
static const struct airlock_rule rules[] = {{.table = "public.orders", .filter = "customer_id <= 100"}};
static const struct pgv_policy policy = {
	.tables = tables,
	.ntables = 5,
	.search_path = path,
	.nsearch_path = 1,
	.user = "agent",
	.rules = rules,
	.nrules = 1,
};
static const char *const my_tables[] = {"shop.orders", "shop.customers", "shop.products", "information_schema.*"};
static const struct vmy_policy my_policy = {.user = "agent", .database = "shop", .tables = my_tables, .ntables = 4};

static const char *const cases[][2] = {
	{"select_1", "SELECT 1"},
	{"typical_join", "SELECT o.id, o.amount, c.name FROM orders o JOIN customers c "
			 "ON c.id = o.customer_id WHERE o.amount > 100 ORDER BY o.id LIMIT 50"},
	{"psql_d", "SELECT c.oid, n.nspname, c.relname FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n "
		   "ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(orders)$' COLLATE "
		   "pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 2, 3"},
};

static struct vpool *pool;

/* A Postgres read as the session handles it: validate, then scope. */
static void pg_read(const char *sql, bool remote)
{
	struct vcl_scoped held = {0};
	struct pgv_result r;
	char *out = NULL;

	if (remote ? vcl_pg_validate(pool, &policy, sql, false, &r, &held) == PGV_READ
		   : pgv_validate(&policy, sql, &r) == PGV_READ) {
		if (remote)
			vcl_pg_scope(pool, &policy, sql, &out, NULL, &r, &held);
		else
			pgv_scope(&policy, sql, &out, &r);
	}
	if (r.kind != PGV_READ) {
		fprintf(stderr, "%s: refused: %s\n", sql, r.message);
		exit(1);
	}
	free(out);
}

static void my_read(const char *sql, bool remote)
{
	static struct vmy_result r;
	uint64_t fp;

	if (remote)
		vcl_my_validate(pool, &my_policy, sql, strlen(sql), &r, &fp);
	else
		vmy_validate(&my_policy, sql, strlen(sql), &r);
	if (r.kind != VMY_READ) {
		fprintf(stderr, "%s: refused: %s\n", sql, r.message);
		exit(1);
	}
}

/* The median of iters timed calls into *median, the p99 into *p99. */
static void timed(void (*fn)(const char *, bool), const char *sql, bool remote, long iters, double *samples,
		  double *median, double *p99)
{
	for (long i = 0; i < 200; i++)
		fn(sql, remote);
	for (long i = 0; i < iters; i++) {
		double t = bench_now_ms();

		fn(sql, remote);
		samples[i] = (bench_now_ms() - t) * 1000.0;
	}
	qsort(samples, (size_t)iters, sizeof(*samples), bench_cmp_double);
	*median = samples[iters / 2];
	*p99 = samples[(iters * 99) / 100];
}

static void one(const char *name, void (*fn)(const char *, bool), const char *sql, long iters, double *samples)
{
	double lm, lp, rm, rp;

	timed(fn, sql, false, iters, samples, &lm, &lp);
	timed(fn, sql, true, iters, samples, &rm, &rp);
	printf("%-16s in_process_median_us=%.1f p99_us=%.1f worker_median_us=%.1f p99_us=%.1f "
	       "channel_us=%.1f\n",
	       name, lm, lp, rm, rp, rm - lm);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
	char self[4096], bin[4200], err[256];
	struct vpool_options o = {
		.workers = 1,
		.uid = 999999997,
		.gid = 999999997,
		.timeout_ms = 5000,
		.memory_mb = 1024,
		.cpu_seconds = 3600,
	};
	double *samples;
	ssize_t n;

	if (iters <= 0 || iters > 10000000) {
		fprintf(stderr, "usage: %s [iterations] [airlock-validator]\n", argv[0]);
		return 2;
	}
	if (argc > 2) {
		o.path = argv[2];
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return 1;
		self[n] = '\0';
		snprintf(bin, sizeof(bin), "%.*s/airlock-validator", (int)(strrchr(self, '/') - self), self);
		o.path = bin;
	}
	pool = vpool_new(&o, err, sizeof(err));
	samples = malloc((size_t)iters * sizeof(*samples));
	if (!pool || !samples) {
		fprintf(stderr, "bench_vworker: %s\n", pool ? "out of memory" : err);
		return 1;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		one(cases[i][0], pg_read, cases[i][1], iters, samples);
	one("my_select_1", my_read, "SELECT 1", iters, samples);
	one("my_typical_join", my_read, cases[1][1], iters, samples);
	free(samples);
	vpool_free(pool);
	return 0;
}
