/* Tests for metrics: the text exposition of counters, gauges and histograms, label escaping and the series cap. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/wbuf.h"
#include "proxy/metrics.h"
#include "proxy/stats.h"

/* What m renders, as a string the caller frees. */
static char *render(const struct metrics *m)
{
	struct wbuf w;
	char *s;

	wbuf_init(&w);
	assert_true(metrics_render(m, &w));
	s = calloc(1, w.len + 1);
	assert_non_null(s);
	if (w.len)
		memcpy(s, w.data, w.len);
	wbuf_free(&w);
	return s;
}

static void test_counter_and_escaping(void **state)
{
	static const char *const labels[] = {"user", "code"};
	struct metrics *m = metrics_new();
	struct metrics_family *f;
	const char *plain[] = {"agent", "none"};
	const char *odd[] = {"a\\b\"c\nd", "TIMEOUT"};
	char *out;

	(void)state;
	assert_non_null(m);
	f = metrics_family(m, METRICS_COUNTER, "airlock_x_total", "Help with a \\ and a\nnewline \"kept\".", labels, 2,
			   NULL, 0);
	assert_non_null(f);
	metrics_add(f, plain, 1);
	metrics_add(f, plain, 2);
	metrics_add(f, odd, 1);
	metrics_add(f, odd, -5); /* a counter never goes down */
	out = render(m);
	assert_string_equal(out, "# HELP airlock_x_total Help with a \\\\ and a\\nnewline \"kept\".\n"
				 "# TYPE airlock_x_total counter\n"
				 "airlock_x_total{user=\"agent\",code=\"none\"} 3\n"
				 "airlock_x_total{user=\"a\\\\b\\\"c\\nd\",code=\"TIMEOUT\"} 1\n");
	free(out);
	metrics_free(m);
}

static void test_gauge_without_labels(void **state)
{
	struct metrics *m = metrics_new();
	struct metrics_family *f = metrics_family(m, METRICS_GAUGE, "airlock_g", "A gauge.", NULL, 0, NULL, 0);
	char *out;

	(void)state;
	assert_non_null(f);
	metrics_set(f, NULL, 7);
	metrics_add(f, NULL, -2);
	out = render(m);
	assert_string_equal(out, "# HELP airlock_g A gauge.\n# TYPE airlock_g gauge\nairlock_g 5\n");
	free(out);
	metrics_free(m);
}

/* A cleared gauge renders no series until set again: a label value gone from the source leaves the text. */
static void test_gauge_cleared(void **state)
{
	static const char *const labels[] = {"checksum"};
	struct metrics *m = metrics_new();
	struct metrics_family *f = metrics_family(m, METRICS_GAUGE, "airlock_c", "C.", labels, 1, NULL, 0);
	const char *a[] = {"aaaa"}, *b[] = {"bbbb"};
	char *out;

	(void)state;
	assert_non_null(f);
	metrics_set(f, a, 1);
	metrics_clear(f);
	out = render(m);
	assert_string_equal(out, "# HELP airlock_c C.\n# TYPE airlock_c gauge\n");
	free(out);
	metrics_set(f, b, 1);
	out = render(m);
	assert_string_equal(out, "# HELP airlock_c C.\n# TYPE airlock_c gauge\nairlock_c{checksum=\"bbbb\"} 1\n");
	free(out);
	metrics_free(m);
}

static void test_histogram(void **state)
{
	static const char *const labels[] = {"protocol"};
	static const double bounds[] = {0.001, 0.5, 1};
	struct metrics *m = metrics_new();
	struct metrics_family *f =
		metrics_family(m, METRICS_HISTOGRAM, "airlock_h_seconds", "Times.", labels, 1, bounds, 3);
	const char *pg[] = {"pg"};
	char *out;

	(void)state;
	assert_non_null(f);
	metrics_observe(f, pg, 0.0005); /* first bucket */
	metrics_observe(f, pg, 0.5);    /* on a bound: that bucket (le is inclusive) */
	metrics_observe(f, pg, 0.75);
	metrics_observe(f, pg, 2); /* +Inf only */
	out = render(m);
	assert_string_equal(out, "# HELP airlock_h_seconds Times.\n"
				 "# TYPE airlock_h_seconds histogram\n"
				 "airlock_h_seconds_bucket{protocol=\"pg\",le=\"0.001\"} 1\n"
				 "airlock_h_seconds_bucket{protocol=\"pg\",le=\"0.5\"} 2\n"
				 "airlock_h_seconds_bucket{protocol=\"pg\",le=\"1\"} 3\n"
				 "airlock_h_seconds_bucket{protocol=\"pg\",le=\"+Inf\"} 4\n"
				 "airlock_h_seconds_sum{protocol=\"pg\"} 3.2505\n"
				 "airlock_h_seconds_count{protocol=\"pg\"} 4\n");
	free(out);
	metrics_free(m);
}

static void test_invalid_families(void **state)
{
	static const double down[] = {1, 0.5};
	static const double one[] = {1};
	struct metrics *m = metrics_new();

	(void)state;
	assert_null(metrics_family(m, METRICS_HISTOGRAM, "h", "x", NULL, 0, down, 2));
	assert_null(metrics_family(m, METRICS_HISTOGRAM, "h", "x", NULL, 0, NULL, 0));
	assert_null(metrics_family(m, METRICS_COUNTER, "c", "x", NULL, 0, one, 1));
	assert_null(metrics_family(NULL, METRICS_COUNTER, "c", "x", NULL, 0, NULL, 0));
	/* Updates of no family do nothing. */
	metrics_add(NULL, NULL, 1);
	metrics_observe(NULL, NULL, 1);
	metrics_free(m);
}

static void test_series_cap(void **state)
{
	static const char *const labels[] = {"user"};
	struct metrics *m = metrics_new();
	struct metrics_family *f = metrics_family(m, METRICS_COUNTER, "c_total", "x", labels, 1, NULL, 0);
	char name[32];
	const char *v[] = {name};

	(void)state;
	for (unsigned i = 0; i < METRICS_MAX_SERIES + 10; i++) {
		snprintf(name, sizeof(name), "u%u", i);
		metrics_add(f, v, 1);
	}
	assert_int_equal(metrics_dropped(m), 10);
	snprintf(name, sizeof(name), "u0");
	metrics_add(f, v, 1); /* an existing series still counts */
	assert_int_equal(metrics_dropped(m), 10);
	metrics_free(m);
}

static void test_long_values_are_cut(void **state)
{
	static const char *const labels[] = {"user"};
	struct metrics *m = metrics_new();
	struct metrics_family *f = metrics_family(m, METRICS_COUNTER, "c_total", "x", labels, 1, NULL, 0);
	char a[METRICS_MAX_VALUE + 20], b[METRICS_MAX_VALUE + 20];
	const char *va[] = {a};
	const char *vb[] = {b};
	char *out;

	(void)state;
	memset(a, 'a', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[sizeof(b) - 2] = 'b'; /* differs past the cut: the same series */
	metrics_add(f, va, 1);
	metrics_add(f, vb, 1);
	out = render(m);
	/* One series, its value the first METRICS_MAX_VALUE bytes. */
	snprintf(b, sizeof(b), "c_total{user=\"%.*s\"} 2\n", METRICS_MAX_VALUE, a);
	assert_non_null(strstr(out, b));
	free(out);
	metrics_free(m);
}

static void test_stats_statement(void **state)
{
	struct stats *st = stats_new();
	struct wbuf w;
	char *out;

	(void)state;
	assert_non_null(st);
	stats_statement(st, "pg", "agent", "run", AIRLOCK_E_NONE, 0.002, 3, 40, false);
	stats_statement(st, "mysql", "agent", "refused", AIRLOCK_E_TIMEOUT, 0.5, 0, 0, true);
	stats_login_failed(st, "pg", 400);
	stats_sessions(st, "pg", 1, 2);
	stats_validator_call(st, 0.004);
	wbuf_init(&w);
	assert_true(stats_render(st, &w));
	out = strndup((const char *)w.data, w.len);
	assert_non_null(out);
	assert_non_null(strstr(out, "airlock_statements_total{protocol=\"pg\",user=\"agent\",decision=\"run\","
				    "code=\"none\"} 1\n"));
	assert_non_null(strstr(out, "airlock_statements_total{protocol=\"mysql\",user=\"agent\",decision=\"refused\","
				    "code=\"TIMEOUT\"} 1\n"));
	assert_non_null(strstr(out, "airlock_statement_duration_seconds_bucket{protocol=\"pg\",le=\"0.0025\"} 1\n"));
	assert_non_null(strstr(out, "airlock_rows_total{user=\"agent\"} 3\n"));
	assert_non_null(strstr(out, "airlock_bytes_total{user=\"agent\"} 40\n"));
	assert_non_null(strstr(out, "airlock_truncations_total{user=\"agent\"} 1\n"));
	assert_non_null(strstr(out, "airlock_failed_logins_total{protocol=\"pg\"} 1\n"));
	assert_non_null(strstr(out, "airlock_failed_login_wait_seconds_bucket{protocol=\"pg\",le=\"0.25\"} 0\n"));
	assert_non_null(strstr(out, "airlock_failed_login_wait_seconds_bucket{protocol=\"pg\",le=\"0.5\"} 1\n"));
	/* Each statement's whole time is also the phase "total". */
	assert_non_null(strstr(out, "airlock_phase_seconds_count{phase=\"total\"} 2\n"));
	assert_non_null(strstr(out, "airlock_sessions{protocol=\"pg\",state=\"logged_in\"} 2\n"));
	assert_non_null(strstr(out, "# TYPE airlock_approvals_total counter\n"));
	assert_non_null(strstr(out, "airlock_validator_call_duration_seconds_bucket{le=\"0.005\"} 1\n"));
	assert_non_null(strstr(out, "airlock_validator_call_duration_seconds_count 1\n"));
	free(out);
	wbuf_free(&w);
	stats_free(st);
	/* No metrics configured: every call is a no-op. */
	stats_statement(NULL, "pg", "agent", "run", AIRLOCK_E_NONE, 0, 0, 0, false);
}

static void test_stats_phases(void **state)
{
	struct stats *st = stats_new();
	struct wbuf w;
	char *out;

	(void)state;
	assert_non_null(st);
	stats_phase(st, STATS_PHASE_VALIDATION, 0.0003);
	stats_phase(st, STATS_PHASE_QUEUE_WAIT, 0);
	stats_phase(st, STATS_PHASE_QUEUE_WAIT, 90);
	stats_phase(st, STATS_PHASE_RUNNER_WAIT, 0.00005);
	stats_phase(st, STATS_PHASE_CONTAINER_START, 0.03);
	stats_phase(st, STATS_PHASE_BACKEND, 0.002);
	stats_phase(st, (enum stats_phase)99, 1); /* not a phase: nothing */
	stats_container(st, "oci", true);
	stats_container(st, "oci", true);
	stats_container(st, "docker", false);
	wbuf_init(&w);
	assert_true(stats_render(st, &w));
	out = strndup((const char *)w.data, w.len);
	assert_non_null(out);
	assert_non_null(strstr(out, "# TYPE airlock_phase_seconds histogram\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"validation\",le=\"0.0005\"} 1\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"validation\",le=\"0.00025\"} 0\n"));
	/* A wait of 0 (there was room) counts in the lowest bucket; 90 s in the one of 120. */
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"queue_wait\",le=\"0.0001\"} 1\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"queue_wait\",le=\"60\"} 1\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"queue_wait\",le=\"120\"} 2\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"runner_wait\",le=\"0.0001\"} 1\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"container_start\",le=\"0.025\"} 0\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_bucket{phase=\"container_start\",le=\"0.05\"} 1\n"));
	assert_non_null(strstr(out, "airlock_phase_seconds_count{phase=\"backend\"} 1\n"));
	assert_null(strstr(out, "phase=\"total\""));
	assert_non_null(strstr(out, "airlock_containers_total{runtime=\"oci\",result=\"started\"} 2\n"));
	assert_non_null(strstr(out, "airlock_containers_total{runtime=\"docker\",result=\"failed\"} 1\n"));
	free(out);
	wbuf_free(&w);
	stats_free(st);
	stats_phase(NULL, STATS_PHASE_TOTAL, 1);
	stats_container(NULL, "oci", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_and_escaping), cmocka_unit_test(test_gauge_without_labels),
		cmocka_unit_test(test_gauge_cleared),        cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_invalid_families),     cmocka_unit_test(test_series_cap),
		cmocka_unit_test(test_long_values_are_cut),  cmocka_unit_test(test_stats_statement),
		cmocka_unit_test(test_stats_phases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
