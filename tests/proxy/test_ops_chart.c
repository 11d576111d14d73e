/*
 * ops_history and ops_chart: the hour's ring (a minute's slot is emptied
 * when the ring comes round to it, an hour ago is gone), and the SVG the
 * operator's page draws from it (stacked bars whose marks carry their
 * values, lines broken where nothing is known, a log axis by decades,
 * names escaped).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/wbuf.h"
#include "proxy/ops_chart.h"
#include "proxy/ops_history.h"

#define T0 (100000 * 60) /* a minute's start, in seconds */

static void test_ring_rolls_by_the_minute(void **state)
{
	struct ops_history *h = ops_history_new();
	const struct ops_minute *m;
	(void)state;

	assert_non_null(h);
	assert_null(ops_minute_ago(h, T0, 0));
	ops_statement(h, T0, 0, AIRLOCK_E_NONE, 0.004);
	ops_statement(h, T0 + 59, 2, AIRLOCK_E_TABLE_NOT_ALLOWED, 0.001);
	ops_phase(h, T0 + 1, STATS_PHASE_BACKEND, 0.003);
	ops_phase(h, T0 + 1, STATS_PHASE_TOTAL, 9.0);    /* total comes only with the statement */
	ops_phase(h, T0 + 1, STATS_PHASE_BACKEND, -1.0); /* nonsense is dropped */
	ops_statement(h, T0, 99, AIRLOCK_E_COUNT, -1.0); /* so are an unknown decision, code and time */
	ops_gauges(h, T0 + 2, 5, 1, 2, 0);
	ops_gauges(h, T0 + 3, 3, 4, 1, 7);
	m = ops_minute_ago(h, T0 + 30, 0);
	assert_non_null(m);
	assert_int_equal(m->decisions[0], 1);
	assert_int_equal(m->decisions[2], 1);
	assert_int_equal(m->codes[AIRLOCK_E_TABLE_NOT_ALLOWED], 1);
	assert_int_equal(m->codes[AIRLOCK_E_NONE], 1);
	assert_int_equal(m->phase_n[STATS_PHASE_TOTAL], 2);
	assert_true(fabs(m->phase_sum[STATS_PHASE_TOTAL] - 0.005) < 1e-12);
	assert_int_equal(m->phase_n[STATS_PHASE_BACKEND], 1);
	/* Each minute keeps the most it saw of each gauge. */
	assert_int_equal(m->sessions, 5);
	assert_int_equal(m->jobs, 4);
	assert_int_equal(m->ready, 2);
	assert_int_equal(m->queue, 7);

	/* A minute later it is a minute ago; nothing was recorded in the next one. */
	assert_ptr_equal(ops_minute_ago(h, T0 + 60, 1), m);
	assert_null(ops_minute_ago(h, T0 + 60, 0));
	/* An hour on, the ring came round: the same slot holds the new minute, emptied first. */
	ops_statement(h, T0 + 3600, 1, AIRLOCK_E_NONE, 0.002);
	m = ops_minute_ago(h, T0 + 3600, 0);
	assert_non_null(m);
	assert_int_equal(m->decisions[0], 0);
	assert_int_equal(m->decisions[1], 1);
	assert_null(ops_minute_ago(h, T0 + 3600, 60));
	ops_statement(NULL, T0, 0, AIRLOCK_E_NONE, 1); /* no page: nothing, no crash */
	free(h);
}

static void test_nice_tops(void **state)
{
	(void)state;
	assert_true(ops_chart_nice(0) == 1);
	assert_true(ops_chart_nice(NAN) == 1);
	assert_true(ops_chart_nice(1) == 1);
	assert_true(ops_chart_nice(1.2) == 2);
	assert_true(ops_chart_nice(3) == 5);
	assert_true(ops_chart_nice(7) == 10);
	assert_true(fabs(ops_chart_nice(0.031) - 0.05) < 1e-12);
	assert_true(ops_chart_nice(4200) == 5000);
}

/* The chart's text, NUL-terminated (owned by w). */
static const char *text_of(struct wbuf *w)
{
	wbuf_put_bytes(w, "", 1);
	assert_false(w->failed);
	return (const char *)w->data;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_bars_carry_their_values_and_escape_names(void **state)
{
	struct ops_series s[2] = {{.name = "run", .color = "#2e7d32"},
				  {.name = "<script>x</script>", .color = "#c62828"}};
	struct wbuf w;
	const char *out;
	(void)state;

	s[0].v[OPS_MINUTES - 1] = 3;
	s[1].v[OPS_MINUTES - 1] = 1;
	s[0].v[0] = 2;
	wbuf_init(&w);
	ops_chart_bars(&w, "chart-x", "Title & more", "", s, 2);
	out = text_of(&w);
	assert_non_null(strstr(out, "<svg id=\"chart-x\""));
	assert_non_null(strstr(out, "Title &amp; more"));
	assert_null(strstr(out, "<script>"));
	assert_non_null(strstr(out, "&lt;script&gt;"));
	/* Three marks, each with its value; the axis tops at 5 (4 stacked, made nice). */
	assert_int_equal(count(out, "<rect x="), 3 + 1);
	assert_non_null(strstr(out, "data-series=\"run\" data-minute=\"59\" data-value=\"3\""));
	assert_non_null(strstr(out, "data-minute=\"0\" data-value=\"2\""));
	assert_non_null(strstr(out, "<title>run: 3, 0 min ago</title>"));
	assert_non_null(strstr(out, ">5</text>"));
	wbuf_free(&w);
}

static void test_lines_break_and_log_axis(void **state)
{
	struct ops_series s[1] = {{.name = "backend", .color = "#2e7d32"}};
	struct wbuf w;
	const char *out;
	(void)state;

	for (size_t m = 0; m < OPS_MINUTES; m++)
		s[0].v[m] = NAN;
	s[0].v[10] = 0.5;
	s[0].v[11] = 3.0;
	s[0].v[20] = 40.0;
	wbuf_init(&w);
	ops_chart_lines(&w, "chart-l", "Latency", "ms", s, 1, true);
	out = text_of(&w);
	/* Two runs (10-11, and 20 alone), a dot per known minute. */
	assert_int_equal(count(out, "<polyline"), 2);
	assert_int_equal(count(out, "<circle"), 3);
	/* Decades from 0.1 to 100 ms. */
	assert_non_null(strstr(out, ">0.1 ms</text>"));
	assert_non_null(strstr(out, ">100 ms</text>"));
	assert_null(strstr(out, ">1000 ms</text>"));
	assert_null(strstr(out, "nan"));
	wbuf_free(&w);

	/* Nothing known at all: an empty chart, still well-formed. */
	for (size_t m = 0; m < OPS_MINUTES; m++)
		s[0].v[m] = NAN;
	wbuf_init(&w);
	ops_chart_lines(&w, "chart-e", "Empty", "ms", s, 1, true);
	out = text_of(&w);
	assert_int_equal(count(out, "<polyline"), 0);
	assert_int_equal(count(out, "</svg>"), 2); /* the chart's and the legend swatch's */
	wbuf_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_rolls_by_the_minute),
		cmocka_unit_test(test_nice_tops),
		cmocka_unit_test(test_bars_carry_their_values_and_escape_names),
		cmocka_unit_test(test_lines_break_and_log_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
