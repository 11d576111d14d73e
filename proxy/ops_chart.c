/*
 * ops_chart: inline SVG charts of an hour (ops_chart.h).
 */
#define _GNU_SOURCE
#include "proxy/ops_chart.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "approval/approval_text.h"
#include "base/wbuf.h"

/* The drawing, in SVG user units: the plot area inside the margins. */
#define W 720.0
#define H 200.0
#define LEFT 58.0
#define RIGHT 8.0
#define TOP 10.0
#define BOTTOM 24.0
#define PW (W - LEFT - RIGHT)
#define PH (H - TOP - BOTTOM)
#define BAR (PW / OPS_MINUTES)

__attribute__((format(printf, 2, 3))) static void put(struct wbuf *w, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(buf)) {
		w->failed = true;
		return;
	}
	wbuf_put_bytes(w, buf, (size_t)n);
}

static void text(struct wbuf *w, const char *s)
{
	approval_html_text(w, s, strlen(s));
}

static void attr(struct wbuf *w, const char *s)
{
	approval_html_attr(w, s, strlen(s));
}

double ops_chart_nice(double max)
{
	double p, steps[] = {1, 2, 5, 10};

	if (!(max > 0.0) || !isfinite(max))
		return 1.0;
	p = pow(10.0, floor(log10(max)));
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= max * (1 - 1e-12))
			return steps[i] * p;
	return 10.0 * p;
}

/* The figure, its caption and the svg element's start (closed by end()). */
static void begin(struct wbuf *w, const char *id, const char *title)
{
	put(w, "<figure class=\"chart\"><figcaption>");
	text(w, title);
	put(w, "</figcaption><svg id=\"");
	attr(w, id);
	put(w,
	    "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" "
	    "role=\"img\" aria-label=\"",
	    W, H, W, H);
	attr(w, title);
	put(w, "\">");
	put(w, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#fafafa\" stroke=\"#ddd\"/>", LEFT,
	    TOP, PW, PH);
	/* The time axis: an hour ago, half an hour ago, now. */
	put(w, "<text x=\"%.1f\" y=\"%.1f\">-60 min</text>", LEFT, H - 8);
	put(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">-30 min</text>", LEFT + PW / 2, H - 8);
	put(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">now</text>", W - RIGHT, H - 8);
}

/* " unit" after a number; nothing when there is no unit. */
static void unit_after(struct wbuf *w, const char *unit)
{
	if (!unit[0])
		return;
	put(w, " ");
	text(w, unit);
}

/* A horizontal grid line at y with its label. */
static void grid(struct wbuf *w, double y, double value, const char *unit)
{
	put(w, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", LEFT, W - RIGHT, y, y);
	put(w, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g", LEFT - 4, y + 4, value);
	unit_after(w, unit);
	put(w, "</text>");
}

static void end(struct wbuf *w, const struct ops_series *s, size_t n)
{
	put(w, "</svg><ul class=\"legend\">");
	for (size_t i = 0; i < n; i++) {
		put(w, "<li><svg width=\"10\" height=\"10\" aria-hidden=\"true\"><rect width=\"10\" height=\"10\" "
		       "fill=\"");
		attr(w, s[i].color);
		put(w, "\"/></svg> ");
		text(w, s[i].name);
		put(w, "</li>");
	}
	put(w, "</ul></figure>\n");
}

/*
 * The rest of a mark (an element tag opened with its geometry): its fill,
 * its data- attributes, a <title> "name: value unit, N min ago", its end.
 */
static void mark_rest(struct wbuf *w, const char *tag, const struct ops_series *s, size_t minute, double v,
		      const char *unit)
{
	put(w, " fill=\"");
	attr(w, s->color);
	put(w, "\" data-series=\"");
	attr(w, s->name);
	put(w, "\" data-minute=\"%zu\" data-value=\"%g\"><title>", minute, v);
	text(w, s->name);
	put(w, ": %g", v);
	unit_after(w, unit);
	put(w, ", %zu min ago</title></%s>", (size_t)OPS_MINUTES - 1 - minute, tag);
}

void ops_chart_bars(struct wbuf *w, const char *id, const char *title, const char *unit, const struct ops_series *s,
		    size_t n)
{
	double top = 0.0;

	for (size_t m = 0; m < OPS_MINUTES; m++) {
		double sum = 0.0;

		for (size_t i = 0; i < n; i++)
			if (s[i].v[m] > 0.0)
				sum += s[i].v[m];
		if (sum > top)
			top = sum;
	}
	top = ops_chart_nice(top);
	begin(w, id, title);
	grid(w, TOP, top, unit);
	grid(w, TOP + PH / 2, top / 2, unit);
	grid(w, TOP + PH, 0, unit);
	for (size_t m = 0; m < OPS_MINUTES; m++) {
		double base = TOP + PH;

		for (size_t i = 0; i < n; i++) {
			double v = s[i].v[m], h;

			if (!(v > 0.0))
				continue;
			h = v / top * PH;
			base -= h;
			put(w, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"", LEFT + (double)m * BAR,
			    base, BAR - 1.0, h);
			mark_rest(w, "rect", &s[i], m, v, unit);
		}
	}
	end(w, s, n);
}

/* The line chart's y of v between lo and hi (lo > 0 on a log axis). */
static double y_of(double v, double lo, double hi, bool log)
{
	double f = log ? (log10(v) - log10(lo)) / (log10(hi) - log10(lo)) : (v - lo) / (hi - lo);

	return TOP + PH * (1.0 - f);
}

void ops_chart_lines(struct wbuf *w, const char *id, const char *title, const char *unit, const struct ops_series *s,
		     size_t n, bool log)
{
	double lo = log ? INFINITY : 0.0, hi = 0.0;

	for (size_t i = 0; i < n; i++)
		for (size_t m = 0; m < OPS_MINUTES; m++) {
			double v = s[i].v[m];

			if (!isfinite(v) || (log && !(v > 0.0)))
				continue;
			if (v > hi)
				hi = v;
			if (log && v < lo)
				lo = v;
		}
	if (log) {
		if (!isfinite(lo)) {
			lo = 0.1;
			hi = 1.0;
		}
		lo = pow(10.0, floor(log10(lo)));
		hi = pow(10.0, ceil(log10(hi)));
		if (hi <= lo)
			hi = lo * 10.0;
	} else {
		hi = ops_chart_nice(hi);
	}
	begin(w, id, title);
	if (log) {
		for (double d = lo; d <= hi * 1.0001; d *= 10.0)
			grid(w, y_of(d, lo, hi, true), d, unit);
	} else {
		grid(w, TOP, hi, unit);
		grid(w, TOP + PH / 2, hi / 2, unit);
		grid(w, TOP + PH, 0, unit);
	}
	for (size_t i = 0; i < n; i++) {
		bool open = false;

		/* A polyline per unbroken run, and a dot for every minute, which carries the value. */
		for (size_t m = 0; m < OPS_MINUTES; m++) {
			double v = s[i].v[m];
			bool ok = isfinite(v) && (!log || v > 0.0);

			if (ok && !open) {
				put(w, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"");
				attr(w, s[i].color);
				put(w, "\" points=\"");
				open = true;
			}
			if (ok)
				put(w, "%.2f,%.2f ", LEFT + ((double)m + 0.5) * BAR, y_of(v, lo, hi, log));
			if (open && (!ok || m == OPS_MINUTES - 1)) {
				put(w, "\"/>");
				open = false;
			}
		}
		for (size_t m = 0; m < OPS_MINUTES; m++) {
			double v = s[i].v[m];

			if (!isfinite(v) || (log && !(v > 0.0)))
				continue;
			put(w, "<circle r=\"2.5\" cx=\"%.2f\" cy=\"%.2f\"", LEFT + ((double)m + 0.5) * BAR,
			    y_of(v, lo, hi, log));
			mark_rest(w, "circle", &s[i], m, v, unit);
		}
	}
	end(w, s, n);
}
