/*
 * ops_page: the operator's page (ops_page.h).
 */
#define _GNU_SOURCE
#include "proxy/ops_page.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "approval/approval_text.h"
#include "base/wbuf.h"
#include "proxy/admin.h"
#include "proxy/approval_page.h"
#include "proxy/job/job.h"
#include "proxy/ops_chart.h"
#include "proxy/ops_history.h"
#include "proxy/server.h"
#include "proxy/stats.h"

/* Refusals and errors get a series of their own for this many codes, the hour's most frequent; the rest: other. */
#define TOP_CODES 7

static const char *const decision_names[] = {
#define OPS_DECISION_NAME(name) #name,
	SERVER_DECISIONS(OPS_DECISION_NAME)
#undef OPS_DECISION_NAME
};
static const char *const decision_colors[] = {"#2e7d32", "#90a4ae", "#c62828", "#ef6c00",
					      "#6a1b9a", "#1565c0", "#795548"};
static const char *const code_colors[] = {"#c62828", "#ef6c00", "#6a1b9a", "#1565c0",
					  "#00838f", "#9e9d24", "#5d4037", "#9e9e9e"};
static const char *const phase_colors[] = {"#1565c0", "#ef6c00", "#9e9d24", "#6a1b9a", "#2e7d32", "#212121"};

_Static_assert(sizeof(decision_names) / sizeof(decision_names[0]) <= OPS_DECISIONS, "a decision without a slot");
_Static_assert(sizeof(decision_colors) / sizeof(decision_colors[0]) == SERVER_NDECISIONS, "a decision's colour");
_Static_assert(sizeof(phase_colors) / sizeof(phase_colors[0]) == OPS_PHASES, "a phase's colour");

void ops_sample(struct server *srv, int64_t now_s)
{
	unsigned ready = 0;

	if (!srv->ops)
		return;
	for (size_t i = 0; srv->jobs && i < srv->cfg->ntargets; i++)
		ready += jobs_ready(srv->jobs, srv->cfg->targets[i].name);
	ops_gauges(srv->ops, now_s, srv->nloggedin, srv->jobs ? jobs_live(srv->jobs) : 0, ready,
		   srv->jobs ? (unsigned)jobs_queue_len(srv->jobs) : 0);
}

/* Every series' values NAN: no minute known yet. */
static void unknown(struct ops_series *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t m = 0; m < OPS_MINUTES; m++)
			s[i].v[m] = NAN;
}

/* The minute at index m of a chart (0: the oldest), or NULL when none was recorded. */
static const struct ops_minute *at(const struct ops_history *h, int64_t now_s, size_t m)
{
	return ops_minute_ago(h, now_s, (unsigned)(OPS_MINUTES - 1 - m));
}

static void chart_decisions(struct wbuf *w, const struct ops_history *h, int64_t now_s)
{
	struct ops_series s[SERVER_NDECISIONS];

	for (size_t i = 0; i < SERVER_NDECISIONS; i++) {
		s[i].name = decision_names[i];
		s[i].color = decision_colors[i];
		for (size_t m = 0; m < OPS_MINUTES; m++) {
			const struct ops_minute *mm = at(h, now_s, m);

			s[i].v[m] = mm ? mm->decisions[i] : 0;
		}
	}
	ops_chart_bars(w, "chart-statements", "Statements per minute, by decision", "", s, SERVER_NDECISIONS);
}

static void chart_codes(struct wbuf *w, const struct ops_history *h, int64_t now_s)
{
	uint64_t total[AIRLOCK_E_COUNT] = {0};
	int top[TOP_CODES];
	struct ops_series s[TOP_CODES + 1];
	size_t n = 0;

	for (size_t m = 0; m < OPS_MINUTES; m++) {
		const struct ops_minute *mm = at(h, now_s, m);

		for (size_t c = 1; mm && c < AIRLOCK_E_COUNT; c++)
			total[c] += mm->codes[c];
	}
	/* The most frequent codes of the hour, most first. */
	while (n < TOP_CODES) {
		int best = -1;

		for (size_t c = 1; c < AIRLOCK_E_COUNT; c++)
			if (total[c] && (best < 0 || total[c] > total[best]))
				best = (int)c;
		if (best < 0)
			break;
		top[n] = best;
		s[n].name = airlock_err_name((enum airlock_err)best);
		s[n].color = code_colors[n];
		total[best] = 0;
		n++;
	}
	s[n].name = "other";
	s[n].color = code_colors[TOP_CODES];
	for (size_t m = 0; m < OPS_MINUTES; m++) {
		const struct ops_minute *mm = at(h, now_s, m);
		uint64_t rest = 0;

		for (size_t c = 1; mm && c < AIRLOCK_E_COUNT; c++)
			rest += mm->codes[c];
		for (size_t i = 0; i < n; i++) {
			s[i].v[m] = mm ? mm->codes[top[i]] : 0;
			rest -= mm ? mm->codes[top[i]] : 0;
		}
		s[n].v[m] = (double)rest;
	}
	ops_chart_bars(w, "chart-refusals", "Refusals and errors per minute, by check (airlock code)", "", s, n + 1);
}

static void chart_phases(struct wbuf *w, const struct ops_history *h, int64_t now_s)
{
	struct ops_series s[OPS_PHASES];

	unknown(s, OPS_PHASES);
	for (size_t p = 0; p < OPS_PHASES; p++) {
		s[p].name = stats_phase_name((enum stats_phase)p);
		s[p].color = phase_colors[p];
		for (size_t m = 0; m < OPS_MINUTES; m++) {
			const struct ops_minute *mm = at(h, now_s, m);

			if (mm && mm->phase_n[p])
				s[p].v[m] = mm->phase_sum[p] / mm->phase_n[p] * 1000.0;
		}
	}
	ops_chart_lines(w, "chart-latency", "Latency by phase, mean per minute", "ms", s, OPS_PHASES, true);
}

static void chart_load(struct wbuf *w, const struct ops_history *h, int64_t now_s)
{
	struct ops_series s[] = {{.name = "sessions", .color = "#1565c0"},
				 {.name = "jobs", .color = "#2e7d32"},
				 {.name = "ready runners", .color = "#9e9d24"},
				 {.name = "queued", .color = "#c62828"}};

	unknown(s, 4);
	for (size_t m = 0; m < OPS_MINUTES; m++) {
		const struct ops_minute *mm = at(h, now_s, m);

		if (!mm)
			continue;
		s[0].v[m] = mm->sessions;
		s[1].v[m] = mm->jobs;
		s[2].v[m] = mm->ready;
		s[3].v[m] = mm->queue;
	}
	ops_chart_lines(w, "chart-load", "Sessions, jobs, ready runners and the queue (most in each minute)", "", s, 4,
			false);
}

/* A SHOW's result set as an HTML table. */
struct html_table {
	struct wbuf *w;
};

static void cells(struct wbuf *w, const char *tag, const char *const *v, size_t n)
{
	wbuf_put_str(w, "<tr>");
	for (size_t i = 0; i < n; i++) {
		wbuf_put_str(w, "<");
		wbuf_put_str(w, tag);
		wbuf_put_str(w, ">");
		approval_html_text(w, v[i] ? v[i] : "", v[i] ? strlen(v[i]) : 0);
		wbuf_put_str(w, "</");
		wbuf_put_str(w, tag);
		wbuf_put_str(w, ">");
	}
	wbuf_put_str(w, "</tr>\n");
}

static void html_columns(void *arg, const char *const *names, size_t n)
{
	struct html_table *t = arg;

	wbuf_put_str(t->w, "<thead>");
	cells(t->w, "th", names, n);
	wbuf_put_str(t->w, "</thead><tbody>");
}

static void html_row(void *arg, const char *const *v, size_t n)
{
	struct html_table *t = arg;

	cells(t->w, "td", v, n);
}

static void table(struct wbuf *w, struct server *srv, enum admin_cmd_kind kind, const char *id, const char *title)
{
	struct html_table t = {.w = w};
	struct admin_out out = {html_columns, html_row, &t};
	uint64_t rows;

	wbuf_put_str(w, "<div><h2>");
	approval_html_text(w, title, strlen(title));
	wbuf_put_str(w, "</h2><table id=\"");
	wbuf_put_str(w, id);
	wbuf_put_str(w, "\">");
	rows = admin_show(srv, kind, &out);
	wbuf_put_str(w, rows ? "</tbody></table>" : "</tbody></table><p class=\"note\">none</p>");
	wbuf_put_str(w, "</div>\n");
}

bool ops_page_render(struct wbuf *w, struct server *srv, const char *who, const char *csrf, int64_t now_s)
{
	ops_sample(srv, now_s);
	approval_page_begin(w, "Operations", "airlock: operations", who, csrf, OPS_PAGE_REFRESH_S);
	wbuf_put_str(w, "<h1>This node</h1>");
	if (srv->paused)
		wbuf_put_str(
			w, "<p class=\"error\" id=\"paused\">Paused: new statements wait (RESUME on the console).</p>");
	if (srv->stopping)
		wbuf_put_str(w, "<p class=\"error\" id=\"stopping\">Shutting down.</p>");
	table(w, srv, ADMIN_CMD_SHOW_STATS, "stats", "Now");
	wbuf_put_str(w, "<h2>The last hour</h2><div class=\"charts\">");
	chart_decisions(w, srv->ops, now_s);
	chart_codes(w, srv->ops, now_s);
	chart_phases(w, srv->ops, now_s);
	chart_load(w, srv->ops, now_s);
	wbuf_put_str(w, "</div><section class=\"tables\">");
	table(w, srv, ADMIN_CMD_SHOW_CLIENTS, "clients", "Sessions");
	table(w, srv, ADMIN_CMD_SHOW_POOLS, "pools", "Pools");
	table(w, srv, ADMIN_CMD_SHOW_JOBS, "jobs", "Jobs");
	table(w, srv, ADMIN_CMD_SHOW_USERS, "users", "Users");
	if (srv->cfg->npeers)
		table(w, srv, ADMIN_CMD_SHOW_PEERS, "peers", "Peers");
	wbuf_put_str(w, "<details><summary>Configuration</summary>");
	table(w, srv, ADMIN_CMD_SHOW_CONFIG, "config", "Configuration in force");
	wbuf_put_str(w, "</details></section>");
	return approval_page_end(w);
}
