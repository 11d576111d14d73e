/*
 * ops_chart: an hour of figures as an inline SVG chart for the operator's
 * page, drawn on the server: no script, no image request, so the page's
 * content security policy (no script, no image) holds. Each bar or point
 * carries its series, minute and value as data- attributes and a <title>
 * a browser shows on hover; a legend follows the chart.
 *
 * Names are escaped on output; colours are the caller's own constants.
 * Everything is written to the caller's wbuf; nothing is kept.
 */
#ifndef AIRLOCK_PROXY_OPS_CHART_H
#define AIRLOCK_PROXY_OPS_CHART_H

#include <stdbool.h>
#include <stddef.h>

#include "proxy/ops_history.h"

struct wbuf;

struct ops_series {
	const char *name;  /* the legend's label */
	const char *color; /* "#rrggbb" */
	/* Oldest first: v[0] is OPS_MINUTES - 1 minutes ago, v[OPS_MINUTES - 1] this minute; NAN: nothing known. */
	double v[OPS_MINUTES];
};

/* n series stacked as bars per minute; id names the svg element, unit the values ("statements"). */
void ops_chart_bars(struct wbuf *w, const char *id, const char *title, const char *unit, const struct ops_series *s,
		    size_t n);
/* One line per series, broken where a value is NAN; log: a log10 axis (values <= 0 are not drawn). */
void ops_chart_lines(struct wbuf *w, const char *id, const char *title, const char *unit, const struct ops_series *s,
		     size_t n, bool log);
/* The top of an axis over max: 1, 2 or 5 times a power of ten, at least max (1 when max <= 0). */
double ops_chart_nice(double max);

#endif
