/*
 * metrics: a small registry of Prometheus series and their rendering in
 * the text exposition format (version 0.0.4). Pure: no I/O, no clock; the
 * only allocations are the registry's own and the wbuf it renders into.
 *
 * A family is a metric name with its help, type and label names; a
 * series is one family's value for one tuple of label values. Counters
 * and gauges hold one number; a histogram holds a count per bucket, a sum
 * and a count, and renders _bucket (cumulative, with le="+Inf"), _sum and
 * _count.
 *
 * Ownership: the registry owns its families and series. A family's name,
 * help, label names and the bucket bounds are copied when it is made.
 * Label values are borrowed for the call and copied when a series is
 * made. A family holds at most METRICS_MAX_SERIES series: an update that
 * would make one more changes nothing (and counts in metrics_dropped), so
 * label values a client could choose cannot grow the registry without
 * bound; label values are cut at METRICS_MAX_VALUE bytes.
 *
 * Every update and the render accept a NULL registry or family and then
 * do nothing, so callers need not check whether metrics are configured.
 */
#ifndef AIRLOCK_PROXY_METRICS_H
#define AIRLOCK_PROXY_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define METRICS_MAX_LABELS 4
#define METRICS_MAX_BUCKETS 24
#define METRICS_MAX_SERIES 2048
#define METRICS_MAX_VALUE 128

enum metrics_type {
	METRICS_COUNTER,
	METRICS_GAUGE,
	METRICS_HISTOGRAM,
};

struct metrics;
struct metrics_family;
struct wbuf;

/* An empty registry, or NULL when out of memory. The caller frees it with metrics_free. */
struct metrics *metrics_new(void);
void metrics_free(struct metrics *m);

/*
 * A new family, rendered after those made before it. labels: nlabels
 * names (at most METRICS_MAX_LABELS). bounds: a histogram's bucket upper
 * bounds, strictly increasing, at most METRICS_MAX_BUCKETS (+Inf is
 * implied); NULL and 0 for the other types. NULL when out of memory or
 * the arguments are invalid. The family belongs to m.
 */
struct metrics_family *metrics_family(struct metrics *m, enum metrics_type type, const char *name, const char *help,
				      const char *const *labels, size_t nlabels, const double *bounds, size_t nbounds);

/* values: the family's nlabels label values, in its order. */
void metrics_add(struct metrics_family *f, const char *const *values, double v); /* counter or gauge */
/* A gauge, or a counter whose count is kept elsewhere and sampled. */
void metrics_set(struct metrics_family *f, const char *const *values, double v);
void metrics_observe(struct metrics_family *f, const char *const *values, double v); /* histogram */
/* A gauge family loses every series: sampled afresh, what is gone (a target, a checksum) leaves it. */
void metrics_clear(struct metrics_family *f);

/* Updates that found their family full (METRICS_MAX_SERIES), all families together. */
uint64_t metrics_dropped(const struct metrics *m);

/* Appends every family to w; false when w failed (w->failed is sticky). */
bool metrics_render(const struct metrics *m, struct wbuf *w);

#endif
